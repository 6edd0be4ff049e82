/*
 * tests/models/broken-model.c - a small model plugin for the model
 * loader's tests (tests/models/test-model-plugins.sh), built only by `make
 * check`. One source, compiled once per plugin; the -D flags in
 * tests/models/model-plugins.am choose what each copy is called and how it is
 * broken:
 *
 *   BM_ID            the NAME of its file weft-model-NAME.so (required)
 *   BM_NAME          the name its entry claims (default BM_ID)
 *   BM_ABI_MAJOR     abi_major of the entry (default: the current one)
 *   BM_STRUCT_SIZE   struct_size of the entry (default: sizeof)
 *   BM_HIDE_ENTRY    the entry is not exported (no symbol to find)
 *   BM_SETUP_FAIL=1  setup() opens its CSV, then fails with a message
 *   BM_KEY_NO_HELP=1 the key "add" has no help (NULL)
 *   BM_KEY_BAD_DEFAULT=1  the default of "add" is out of its own range
 *   BM_CRN_KEY="KEY"      an ensemble descriptor whose crn_key is KEY
 *   BM_ENS_SIZE=N         ... and whose struct_size is N (an older layout)
 *   BM_PAIR="DEFAULT"     a BOOL key "pair" with that default
 *   BM_NO_SIGS=1     the kernels have no signatures (sigs NULL)
 *   BM_NO_EMIT=1     collect() without emit()
 *   BM_HOOKS=1       with check() and estimate(); check(), estimate() and
 *                    setup() each append their name and a newline to the
 *                    file named by $WEFT_BM_HOOK_LOG, so that a test can
 *                    count how often each runs
 *   BM_UNDECLARED=1  setup() reads the key "itemz", which it does not
 *                    declare
 *   BM_NEEDS=BITS    its program needs these WEFT_CAP_* bits
 *                    (weft_program_desc.needs; tests/core/test-needs.sh)
 *
 * Intact, it is a whole model: `items` counters, each step adds `add` to
 * every one (tests/models/broken-model.wk), a row of ticks.csv every
 * [output] every steps (collect and emit) and a summary line.
 *
 * setup() appends BM_ID and a newline to the file named by
 * $WEFT_BM_SETUP_LOG first thing, so that the tests can tell whether a
 * model's code ran: the loader must refuse every broken copy but
 * BM_SETUP_FAIL before calling any of it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weft/model.h>

#include "bm_kernels.h"

#ifndef BM_NAME
#define BM_NAME BM_ID
#endif
#ifndef BM_ABI_MAJOR
#define BM_ABI_MAJOR WEFT_MODEL_ABI_MAJOR
#endif
#ifndef BM_STRUCT_SIZE
#define BM_STRUCT_SIZE sizeof(weft_model)
#endif
#ifndef BM_SETUP_FAIL
#define BM_SETUP_FAIL 0
#endif
#ifndef BM_KEY_NO_HELP
#define BM_KEY_NO_HELP 0
#endif
#ifndef BM_KEY_BAD_DEFAULT
#define BM_KEY_BAD_DEFAULT 0
#endif
#ifndef BM_CRN_KEY
#define BM_CRN_KEY NULL
#endif
#ifndef BM_ENS_SIZE
#define BM_ENS_SIZE sizeof(weft_ensemble_desc)
#endif
#ifndef BM_NO_SIGS
#define BM_NO_SIGS 0
#endif
#ifndef BM_HOOKS
#define BM_HOOKS 0
#endif
#ifndef BM_UNDECLARED
#define BM_UNDECLARED 0
#endif
#ifndef BM_NO_EMIT
#define BM_NO_EMIT 0
#endif

static const weft_key_desc bm_keys[] = {
	{ "items", WEFT_KEY_INT, "4", 1, 1024, NULL,
	  "number of counters stepped together" },
	/* 0 is out of its own range; a NULL help is no help. */
	{ "add", WEFT_KEY_INT, BM_KEY_BAD_DEFAULT ? "0" : "1", 1, 100, NULL,
	  BM_KEY_NO_HELP ? NULL : "what each step adds to every counter" },
#ifdef BM_PAIR
	{ "pair", WEFT_KEY_BOOL, BM_PAIR, 0, 0, NULL,
	  "a boolean the step ignores, for the ensemble's crn_key" },
#endif
};

typedef struct bm_state {
	uint32_t items, add;
	weft_buf *add_buf, *count;
	uint32_t *host; /* one counter per output slot */
	weft_output *csv;
	uint64_t total;
} bm_state;

static void bm_log_setup(void)
{
	const char *log = getenv("WEFT_BM_SETUP_LOG");
	FILE *f;

	if (!log || !(f = fopen(log, "a")))
		return;
	fputs(BM_ID "\n", f);
	fclose(f);
}

/* One line, the hook's name, in $WEFT_BM_HOOK_LOG (BM_HOOKS). */
static void bm_log_hook(const char *hook)
{
	const char *log = getenv("WEFT_BM_HOOK_LOG");
	FILE *f;

	if (!BM_HOOKS || !log || !(f = fopen(log, "a")))
		return;
	fprintf(f, "%s\n", hook);
	fclose(f);
}

static weft_status bm_check(weft_model_ctx *mc)
{
	bm_log_hook("check");
	if (weft_model_int(mc, "items") < 1)
		return weft_model_fail(mc, WEFT_E_CONFIG, "items < 1");
	return WEFT_OK;
}

static weft_status bm_estimate(weft_model_ctx *mc, weft_model_estimate *est)
{
	uint64_t items = (uint64_t)weft_model_int(mc, "items");

	bm_log_hook("estimate");
	return weft_model_estimate_add(est, "counters", "[" BM_ID "] items", 0,
				       8 + 4 * items);
}

static weft_status bm_buffers(weft_model_ctx *mc, bm_state *s)
{
	uint32_t *zeros = calloc(s->items, sizeof *zeros);
	weft_status st;

	if (!zeros)
		return weft_model_fail(mc, WEFT_E_NOMEM, "out of memory");
	if (!(st = weft_model_alloc(mc, "add", sizeof s->add, &s->add_buf)) &&
	    !(st = weft_model_alloc(mc, "count", 4 * (size_t)s->items,
				    &s->count)) &&
	    !(st = weft_model_upload(mc, s->add_buf, 0, &s->add,
				     sizeof s->add)))
		st = weft_model_upload(mc, s->count, 0, zeros,
				       4 * (size_t)s->items);
	free(zeros);
	return st;
}

static weft_status bm_setup(weft_model_ctx *mc, void **out)
{
	bm_state *s = calloc(1, sizeof *s);
	weft_launch l;
	weft_status st;

	bm_log_setup();
	bm_log_hook("setup");
	if (!s)
		return weft_model_fail(mc, WEFT_E_NOMEM, "out of memory");
	*out = s;
	s->items = (uint32_t)weft_model_int(mc, "items");
	s->add = (uint32_t)weft_model_int(mc, "add");
	if (BM_UNDECLARED)
		s->add += (uint32_t)weft_model_int(mc, "itemz");
	s->host = calloc(weft_model_output_slots(mc), sizeof *s->host);
	if (!s->host)
		return weft_model_fail(mc, WEFT_E_NOMEM, "out of memory");
	if ((st = bm_buffers(mc, s)))
		return st;
	l = bm_tick_launch(
		(bm_tick_bufs){ .add = s->add_buf, .count = s->count },
		s->items);
	if ((st = weft_model_set_step(mc, &l, 1)))
		return st;
	if (weft_model_want_csv(mc) &&
	    ((st = weft_model_output_open(mc, "ticks.csv", &s->csv)) ||
	     (st = weft_output_printf(s->csv, "step,count\n"))))
		return st;
	if (BM_SETUP_FAIL)
		return weft_model_fail(
			mc, WEFT_E_MODEL,
			"setup fails on purpose (BM_SETUP_FAIL)");
	return WEFT_OK;
}

/* Counter 0 of the chunk that ends at steps_done, into the slot's host
 * memory. */
static weft_status bm_collect(weft_model_ctx *mc, void *state,
			      uint64_t steps_done, unsigned slot)
{
	bm_state *s = state;

	(void)steps_done;
	return weft_model_download_async(mc, &s->host[slot], s->count, 0, 4);
}

static weft_status bm_emit(weft_model_ctx *mc, void *state, uint64_t steps_done,
			   unsigned slot)
{
	bm_state *s = state;

	(void)mc;
	s->total = s->host[slot];
	if (!s->csv)
		return WEFT_OK;
	return weft_output_printf(s->csv, "%llu,%u\n",
				  (unsigned long long)steps_done,
				  s->host[slot]);
}

static weft_status bm_finish(weft_model_ctx *mc, void *state)
{
	bm_state *s = state;

	return weft_model_summary(mc, "count", "%llu",
				  (unsigned long long)s->total);
}

static void bm_teardown(weft_model_ctx *mc, void *state)
{
	bm_state *s = state;

	if (!s)
		return;
	weft_model_free(mc, s->add_buf);
	weft_model_free(mc, s->count);
	free(s->host);
	free(s);
}

/* What an ensemble aggregates: ticks.csv; BM_CRN_KEY its crn_key. */
static const weft_ensemble_desc bm_ensemble = {
	.struct_size = BM_ENS_SIZE,
	.csv = "ticks.csv",
	.x = "step",
	.crn_key = BM_CRN_KEY,
};

/* BM_NEEDS: a copy of the program whose needs are set by hand, made when
 * the plugin is loaded (before the core reads the entry's program). */
#ifdef BM_NEEDS
static weft_program_desc bm_program_needs;

__attribute__((constructor)) static void bm_needs_init(void)
{
	bm_program_needs = bm_program;
	bm_program_needs.struct_size = sizeof bm_program_needs;
	bm_program_needs.needs = BM_NEEDS;
}
#define BM_PROGRAM (&bm_program_needs)
#else
#define BM_PROGRAM (&bm_program)
#endif

/* The entry: exported unless this copy tests a plugin that forgot to. */
#ifdef BM_HIDE_ENTRY
extern __attribute__((visibility("hidden"))) const weft_model weft_model_entry;
const weft_model weft_model_entry = {
#else
WEFT_MODEL_ENTRY = {
#endif
	.abi_major = BM_ABI_MAJOR,
	.abi_minor = WEFT_MODEL_ABI_MINOR,
	.struct_size = BM_STRUCT_SIZE,
	.name = BM_NAME,
	.version = "0",
	.summary = "counters for the model loader's tests",
	.keys = bm_keys,
	.n_keys = sizeof bm_keys / sizeof bm_keys[0],
	.program = BM_PROGRAM,
	.sigs = BM_NO_SIGS ? NULL : bm_sigs,
	.check = BM_HOOKS ? bm_check : NULL,
	.estimate = BM_HOOKS ? bm_estimate : NULL,
	.setup = bm_setup,
	.finish = bm_finish,
	.teardown = bm_teardown,
	.collect = bm_collect,
	.emit = BM_NO_EMIT ? NULL : bm_emit,
	.conform_sets = BM_ID ".items=64\nsimulation.steps=20\n",
	.ensemble = BM_CRN_KEY ? &bm_ensemble : NULL,
};
