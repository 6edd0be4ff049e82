/*
 * tests/plugins/fake.c - fake backends for the loader's tests, built only
 * by `make check`. One source, compiled once per plugin; the -D flags in
 * tests/core/loader.am choose what each copy is called and how it is broken:
 *
 *   FAKE_ID          the NAME of its file weft-backend-NAME.so (required)
 *   FAKE_NAME        the name its entry claims (default FAKE_ID)
 *   FAKE_ABI_MAJOR   abi_major of the entry (default: the current one)
 *   FAKE_ABI_MINOR   abi_minor of the entry (default: the current one)
 *   FAKE_STRUCT_SIZE struct_size of the entry (default: sizeof)
 *   FAKE_SCORE       what its probe scores (default 10)
 *   FAKE_UNAVAILABLE its probe says no, with a reason
 *   FAKE_NO_STATS    the stats function is left NULL
 *   FAKE_HIDE_ENTRY  the entry is not exported (no symbol to find)
 *   FAKE_PROBE_CRASH its probe dereferences NULL (SIGSEGV)
 *   FAKE_PROBE_HANG  its probe never returns
 *   FAKE_CTOR_CRASH  its constructor dereferences NULL, while loading
 *   FAKE_OPEN_CRASH  its open() dereferences NULL with SIGSEGV's action as
 *                    it finds it (the weft command's handler must meet it)
 *   FAKE_MODEL_ENTRY it exports weft_model_entry (a stand-in table, for a
 *                    model plugin whose constructor crashes) instead
 *
 * Every probe appends "FAKE_ID PID" to the file named by
 * $WEFT_FAKE_PROBE_LOG, and every constructor (run by dlopen()) to
 * $WEFT_FAKE_CTOR_LOG, so the tests can tell which plugins' code ran, and
 * in which process. None of the other functions is expected to run in the
 * loader's tests.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <weft/backend.h>

#ifndef FAKE_NAME
#define FAKE_NAME FAKE_ID
#endif
#ifndef FAKE_ABI_MAJOR
#define FAKE_ABI_MAJOR WEFT_BACKEND_ABI_MAJOR
#endif
#ifndef FAKE_ABI_MINOR
#define FAKE_ABI_MINOR WEFT_BACKEND_ABI_MINOR
#endif
#ifndef FAKE_STRUCT_SIZE
#define FAKE_STRUCT_SIZE sizeof(weft_backend)
#endif
#ifndef FAKE_SCORE
#define FAKE_SCORE 10
#endif
#ifndef FAKE_NO_STATS
#define FAKE_NO_STATS 0
#endif
#ifndef FAKE_UNAVAILABLE
#define FAKE_UNAVAILABLE 0
#endif

#ifndef FAKE_PROBE_CRASH
#define FAKE_PROBE_CRASH 0
#endif
#ifndef FAKE_PROBE_HANG
#define FAKE_PROBE_HANG 0
#endif
#ifndef FAKE_CTOR_CRASH
#define FAKE_CTOR_CRASH 0
#endif
#ifndef FAKE_OPEN_CRASH
#define FAKE_OPEN_CRASH 0
#endif

/* "FAKE_ID PID" appended to the file named by $var. */
static void fake_log(const char *var)
{
	const char *log = getenv(var);
	FILE *f;

	if (!log || !(f = fopen(log, "a")))
		return;
	fprintf(f, "%s %ld\n", FAKE_ID, (long)getpid());
	fclose(f);
}

/* A real fault, as a broken plugin would make, met by the default action
 * of SIGSEGV even where a sanitizer has installed its handler (which
 * would report the fault and end the process by SIGABRT): the loader's
 * answer names the signal, the same in every build. */
static void fake_crash(void)
{
	volatile int *nowhere = NULL;

	signal(SIGSEGV, SIG_DFL);
	*nowhere = 1;
}

__attribute__((constructor)) static void fake_constructor(void)
{
	fake_log("WEFT_FAKE_CTOR_LOG");
	if (FAKE_CTOR_CRASH)
		fake_crash();
}

static weft_status fake_probe(weft_probe *out)
{
	fake_log("WEFT_FAKE_PROBE_LOG");
	if (FAKE_PROBE_CRASH)
		fake_crash();
	while (FAKE_PROBE_HANG)
		pause();
	out->available = !FAKE_UNAVAILABLE;
	out->score = FAKE_SCORE;
	snprintf(out->devices, sizeof out->devices, "1 fake device");
	snprintf(out->reason, sizeof out->reason, "%s",
		 FAKE_UNAVAILABLE ? "no fake device (test plugin)" : "");
	return WEFT_OK;
}

static weft_status fake_open(const weft_device_config *cfg, weft_device **out,
			     weft_error *err)
{
	volatile int *nowhere = NULL;

	(void)cfg;
	if (FAKE_OPEN_CRASH)
		*nowhere = 1;
	*out = NULL;
	snprintf(err->msg, sizeof err->msg, "%s: a fake backend opens nothing",
		 FAKE_ID);
	return WEFT_E_UNSUPPORTED;
}

/* open() never succeeds, so no device reaches the functions below. */
static void fake_close(weft_device *dev)
{
	(void)dev;
}

static weft_status fake_alloc(weft_device *dev, size_t bytes, weft_buf **out,
			      weft_error *err)
{
	(void)dev;
	(void)bytes;
	(void)err;
	*out = NULL;
	return WEFT_E_UNSUPPORTED;
}

static void fake_free(weft_device *dev, weft_buf *buf)
{
	(void)dev;
	(void)buf;
}

static weft_status fake_write(weft_device *dev, weft_buf *dst, size_t offset,
			      const void *src, size_t bytes, unsigned flags,
			      weft_error *err)
{
	(void)dev, (void)dst, (void)offset, (void)src, (void)bytes;
	(void)flags, (void)err;
	return WEFT_E_UNSUPPORTED;
}

static weft_status fake_read(weft_device *dev, void *dst, weft_buf *src,
			     size_t offset, size_t bytes, unsigned flags,
			     weft_error *err)
{
	(void)dev, (void)dst, (void)src, (void)offset, (void)bytes;
	(void)flags, (void)err;
	return WEFT_E_UNSUPPORTED;
}

static weft_status fake_copy(weft_device *dev, weft_buf *dst, size_t dst_offset,
			     weft_buf *src, size_t src_offset, size_t bytes,
			     unsigned flags, weft_error *err)
{
	(void)dev, (void)dst, (void)dst_offset, (void)src, (void)src_offset;
	(void)bytes, (void)flags, (void)err;
	return WEFT_E_UNSUPPORTED;
}

static weft_status fake_load_program(weft_device *dev,
				     const weft_program_desc *desc,
				     weft_program **out, weft_error *err)
{
	(void)dev, (void)desc, (void)err;
	*out = NULL;
	return WEFT_E_UNSUPPORTED;
}

static void fake_unload_program(weft_device *dev, weft_program *prog)
{
	(void)dev, (void)prog;
}

static weft_status fake_step(weft_device *dev, weft_program *prog,
			     const weft_launch *launches, uint32_t n_launches,
			     uint64_t n_steps, weft_error *err)
{
	(void)dev, (void)prog, (void)launches, (void)n_launches;
	(void)n_steps, (void)err;
	return WEFT_E_UNSUPPORTED;
}

static weft_status fake_sync(weft_device *dev, weft_error *err)
{
	(void)dev, (void)err;
	return WEFT_E_UNSUPPORTED;
}

static weft_status fake_stats(weft_device *dev, weft_stats *out)
{
	(void)dev, (void)out;
	return WEFT_E_UNSUPPORTED;
}

/* The entry: exported unless this copy tests a plugin that forgot to. */
#ifdef FAKE_MODEL_ENTRY
/* A model plugin's entry symbol, to be looked for in the file; the
 * constructor crashes before anything reads it. */
WEFT_EXPORT extern const weft_backend weft_model_entry;
const weft_backend weft_model_entry = {
#elif defined(FAKE_HIDE_ENTRY)
extern const weft_backend weft_backend_entry;
const weft_backend weft_backend_entry = {
#else
WEFT_BACKEND_ENTRY = {
#endif
	.abi_major = FAKE_ABI_MAJOR,
	.abi_minor = FAKE_ABI_MINOR,
	.struct_size = FAKE_STRUCT_SIZE,
	.name = FAKE_NAME,
	.version = "0",
	.description = "fake backend for the loader's tests",
	.probe = fake_probe,
	.open = fake_open,
	.close = fake_close,
	.alloc = fake_alloc,
	.free = fake_free,
	.write = fake_write,
	.read = fake_read,
	.copy = fake_copy,
	.load_program = fake_load_program,
	.unload_program = fake_unload_program,
	.step = fake_step,
	.sync = fake_sync,
	.stats = FAKE_NO_STATS ? NULL : fake_stats,
};
