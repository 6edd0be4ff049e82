/*
 * tests/core/test-ensemble-api.c - an ensemble driven batch by batch through
 * the public API, as weft-mpi drives it (weft/distribute.h):
 * weft_ensemble_batch_at() follows [ensemble] batch and the scenarios'
 * ends, weft_ensemble_run_batch() refuses what is not runs of one
 * scenario of a begun ensemble, and each run's bytes from
 * weft_ensemble_result() are those weft_ensemble_run_one() gives the same
 * run in an ensemble without batches; both ensembles then finish.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weft/distribute.h>
#include <weft/weft.h>

#include "tap.h"

#define RUNS 6 /* 2 scenarios x 3 seeds */

static weft_context *ctx;

/* The ensemble of tests/ensemble-api-NAME.ini: batch of `batch`. */
static weft_ensemble *open_ens(const char *name, int batch, weft_config **cfg)
{
	char path[600], text[1400];
	weft_ensemble *e = NULL;

	snprintf(path, sizeof path, "%s/%s.ini", tap_tmpdir(), name);
	snprintf(text, sizeof text,
		 "[simulation]\nmodel = seir\nsteps = 10\nseed = 3\n"
		 "[backend]\nname = openmp\nthreads = 1\n"
		 "[output]\ndirectory = %s/%s\nplot = none\n"
		 "[ensemble]\nruns = 3\nbatch = %d\n"
		 "[seir]\nagents = 500\npopulation = random\n"
		 "[sweep]\nseir.beta = 0.02, 0.03\n",
		 tap_tmpdir(), name, batch);
	if (tap_write_file(path, text) || weft_config_load(ctx, path, cfg) ||
	    weft_ensemble_open(ctx, *cfg, &e))
		tap_bail("%s: %s", path, weft_context_error(ctx));
	return e;
}

static void test_batch_at(weft_ensemble *e)
{
	static const size_t want[RUNS + 1] = { 2, 2, 1, 2, 2, 1, 0 };
	int same = 1;

	for (size_t i = 0; i <= RUNS; i++)
		same &= weft_ensemble_batch_at(e, i) == want[i];
	tap_ok(same, "batch_at: 2, 2, 1 in each scenario of 3 runs, 0 past "
		     "the last run");
}

static void refused(weft_status st, const char *what, const char *needle)
{
	tap_ok(st == WEFT_E_INVALID, "%s is refused", what);
	tap_contains(weft_context_error(ctx), needle, "  ...saying why");
}

static void test_refusals(weft_ensemble *e)
{
	const void *data;
	size_t bytes;

	refused(weft_ensemble_run_batch(e, 0, 2), "a batch before begin",
		"not begun");
	if (weft_ensemble_begin(e))
		tap_bail("begin: %s", weft_context_error(ctx));
	refused(weft_ensemble_run_batch(e, 2, 2),
		"a batch across two scenarios", "not all of one scenario");
	refused(weft_ensemble_run_batch(e, 0, 0), "a batch of no runs",
		"no runs");
	refused(weft_ensemble_run_batch(e, 5, 2), "a batch past the last run",
		"runs 6 to 7 of 6");
	refused(weft_ensemble_result(e, 0, &data, &bytes),
		"the result of a run not run", "run 1 of 6 has no result here");
}

/* The summary says the runs were stepped together (not one by one). */
static void test_batched(weft_ensemble *e)
{
	const char *key, *value, *batch = "";

	for (size_t i = 0; i < weft_ensemble_summary_count(e); i++)
		if (weft_ensemble_summary_at(e, i, &key, &value) == WEFT_OK &&
		    strcmp(key, "batch") == 0)
			batch = value;
	tap_contains(batch, "stepped together on backend openmp",
		     "the summary's batch line: the runs were batched");
}

int main(void)
{
	weft_config *cfg_b = NULL, *cfg_1 = NULL;
	weft_ensemble *eb, *e1;
	void *want[RUNS] = { 0 };
	size_t want_bytes[RUNS] = { 0 };
	int same = 1;

	if (weft_context_new(&ctx))
		tap_bail("out of memory");
	e1 = open_ens("one", 1, &cfg_1);
	eb = open_ens("batched", 2, &cfg_b);
	tap_ok(weft_ensemble_batch_at(e1, 0) == 1, "batch = 1: runs alone");
	tap_ok(weft_ensemble_crn_key(e1) &&
		       strcmp(weft_ensemble_crn_key(e1), "seir.crn") == 0 &&
		       !weft_ensemble_crn_refused(e1),
	       "two sweep points compared: seir.crn set in every run");
	test_batch_at(eb);
	test_refusals(eb);
	if (weft_ensemble_begin(e1))
		tap_bail("begin: %s", weft_context_error(ctx));
	for (size_t i = 0; i < RUNS; i++) {
		const void *data;

		if (weft_ensemble_run_one(e1, i, &data, &want_bytes[i]) ||
		    !(want[i] = malloc(want_bytes[i])))
			tap_bail("run %zu: %s", i, weft_context_error(ctx));
		memcpy(want[i], data, want_bytes[i]);
	}
	for (size_t i = 0; i < RUNS; i += weft_ensemble_batch_at(eb, i))
		tap_ok(weft_ensemble_run_batch(
			       eb, i, weft_ensemble_batch_at(eb, i)) == WEFT_OK,
		       "runs %zu to %zu as a batch", i + 1,
		       i + weft_ensemble_batch_at(eb, i));
	for (size_t i = 0; i < RUNS; i++) {
		const void *data = NULL;
		size_t bytes = 0;

		same &= weft_ensemble_result(eb, i, &data, &bytes) == WEFT_OK &&
			bytes == want_bytes[i] &&
			memcmp(data, want[i], bytes) == 0;
		free(want[i]);
	}
	tap_ok(same, "each run's result bytes are those of the run alone");
	tap_ok(weft_ensemble_finish(eb) == WEFT_OK &&
		       weft_ensemble_finish(e1) == WEFT_OK &&
		       weft_ensemble_failed_count(eb) == 0,
	       "both ensembles finish, no run failed");
	test_batched(eb);
	weft_ensemble_close(eb);
	weft_ensemble_close(e1);
	weft_config_free(cfg_b);
	weft_config_free(cfg_1);
	weft_context_free(ctx);
	return tap_done();
}
