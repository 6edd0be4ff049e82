/*
 * tests/plugins/crash-model.c - model plugins that crash or hang in one
 * hook, for tests/core/test-crash.sh, built only by `make check`. Each is
 * the minimal template's random walk (models/template-minimal/walk.c,
 * included whole, its kernels from its build) under another name, with
 * one hook broken by a -D flag of tests/core/isolation.am:
 *
 *   CRASH_ID        the NAME of its file weft-model-NAME.so (required)
 *   CRASH_SETUP=1   setup() dereferences NULL (SIGSEGV)
 *   CRASH_CHECK=1   check() dereferences NULL (SIGSEGV)
 *   CRASH_HANG=1    setup() never returns, and never looks at
 *                   weft_model_cancelled()
 *   CRASH_DEEP=1    setup() recurses until its stack overflows (SIGSEGV)
 *
 * Unlike tests/plugins/fake.c's probes, nothing resets SIGSEGV's action
 * first: the weft command's handler must meet the fault.
 */
#include <limits.h>
#include <unistd.h>
#include <weft/model.h>

#ifndef CRASH_SETUP
#define CRASH_SETUP 0
#endif
#ifndef CRASH_CHECK
#define CRASH_CHECK 0
#endif
#ifndef CRASH_HANG
#define CRASH_HANG 0
#endif
#ifndef CRASH_DEEP
#define CRASH_DEEP 0
#endif

/* walk.c's entry stays in this file, unexported, under another name. */
#undef WEFT_MODEL_ENTRY
#define WEFT_MODEL_ENTRY \
	static const struct weft_model __attribute__((unused)) walk_entry
#include "walk.c"

/* A real fault, as a broken plugin would make. */
static void crash_now(void)
{
	volatile int *nowhere = NULL;

	*nowhere = 1;
}

/* Deeper until the stack ends (long before n does); the frame's bytes
 * are used, so that no compiler turns the recursion into a loop. */
static unsigned crash_deep(unsigned n)
{
	volatile char frame[4096];

	if (n == UINT_MAX)
		return 0;
	frame[n % sizeof frame] = (char)n;
	return crash_deep(n + 1) + frame[(n * 7) % sizeof frame];
}

static weft_status crash_setup(weft_model_ctx *mc, void **out)
{
	if (CRASH_SETUP)
		crash_now();
	if (CRASH_DEEP)
		(void)crash_deep(0);
	while (CRASH_HANG)
		pause();
	return walk_setup(mc, out);
}

static weft_status crash_check(weft_model_ctx *mc)
{
	(void)mc;
	if (CRASH_CHECK)
		crash_now();
	return WEFT_OK;
}

WEFT_EXPORT extern const struct weft_model weft_model_entry;
const struct weft_model weft_model_entry = {
	.abi_major = WEFT_MODEL_ABI_MAJOR,
	.abi_minor = WEFT_MODEL_ABI_MINOR,
	.struct_size = sizeof(weft_model),
	.name = CRASH_ID,
	.version = "1.0",
	.summary = "a random walk with a broken hook (weft's tests)",
	.keys = walk_keys,
	.n_keys = sizeof walk_keys / sizeof walk_keys[0],
	.program = &walk_program,
	.sigs = walk_sigs,
	.setup = crash_setup,
	.finish = walk_finish,
	.teardown = walk_teardown,
	.check = crash_check,
};
