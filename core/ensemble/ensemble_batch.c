/*
 * core/ensemble/ensemble_batch.c - [ensemble] batch: a scenario's runs stepped
 * as batches of replicas on one device (core/run/batch.c).
 *
 * Each run of a batch gets its own copy of the scenario's configuration
 * (its seed and directory, as a run alone has them), so that its outputs,
 * and the results read back from its CSV, are those of the run alone. A
 * failure before the replicas are finished (a setup, realize, a step) is
 * every run's of the batch; a replica whose finish fails fails alone. A
 * backend without step_replicas() runs the runs one after another, and the
 * ensemble's summary says so once.
 */
#include "config/cfg.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "run/batch.h"
#include "ensemble/ensemble.h"

/* What a batch holds while it runs. */
typedef struct ens_batch {
	weft_config **cfgs;
	weft_status *st; /* each run's end */
	char **msg;	 /* each failed run's message (NULL: the batch's) */
	char *failure;	 /* the batch's failure, when it failed whole */
	size_t n;
} ens_batch;

static void ens_batch_free(ens_batch *eb)
{
	for (size_t j = 0; eb->cfgs && j < eb->n; j++)
		weft__config_free(eb->cfgs[j]);
	for (size_t j = 0; eb->msg && j < eb->n; j++)
		free(eb->msg[j]);
	free(eb->cfgs);
	free(eb->st);
	free(eb->msg);
	free(eb->failure);
}

/* A configuration per run, each set for its run. */
static weft_status ens_batch_cfgs(weft_ensemble *e, ens_batch *eb, size_t i0)
{
	const weft_config *group = e->groups[i0 / e->per_group].cfg;
	char dir[PATH_MAX], lock[PATH_MAX];
	weft_status st = WEFT_OK;

	eb->cfgs = calloc(eb->n, sizeof *eb->cfgs);
	eb->st = calloc(eb->n, sizeof *eb->st);
	eb->msg = calloc(eb->n, sizeof *eb->msg);
	if (!eb->cfgs || !eb->st || !eb->msg)
		return weft__fail(e->ctx, WEFT_E_NOMEM, "out of memory");
	for (size_t j = 0; st == WEFT_OK && j < eb->n; j++) {
		st = weft__ens_run_dir(e, i0 + j, dir, sizeof dir, lock,
				       sizeof lock);
		if (st == WEFT_OK)
			st = weft__config_dup(e->ctx, group, &eb->cfgs[j]);
		if (st == WEFT_OK)
			st = weft__ens_run_cfg(e, eb->cfgs[j], i0 + j, dir);
		if (st == WEFT_OK)
			st = weft__ens_test_fail(e, i0 + j);
	}
	return st;
}

/* summary.txt's "batch" line. */
static weft_status ens_batch_note(weft_ensemble *e, const char *backend)
{
	char note[256];

	weft__fmt(note, sizeof note,
		  "up to %zu runs of a scenario at a time, stepped together "
		  "on backend %s",
		  e->batch, backend);
	if (!(e->batch_note = weft__strdup(note)))
		return weft__fail(e->ctx, WEFT_E_NOMEM, "out of memory");
	return WEFT_OK;
}

/* The batch's runs: stepped together, then each finished. */
static weft_status ens_batch_run(weft_ensemble *e, ens_batch *eb,
				 int *no_replicas)
{
	weft__batch *b = NULL;
	weft_status st;

	st = weft__batch_open(e->ctx, (const weft_config *const *)eb->cfgs,
			      (uint32_t)eb->n, NULL, &b, no_replicas);
	if (st == WEFT_OK && !e->batch_note)
		st = ens_batch_note(e, weft__batch_sim(b, 0)->vt->name);
	if (st == WEFT_OK)
		st = weft__batch_step(b, UINT64_MAX);
	for (size_t j = 0; st == WEFT_OK && j < eb->n; j++) {
		eb->st[j] = weft__sim_finish(weft__batch_sim(b, (uint32_t)j));
		if (eb->st[j] == WEFT_E_CANCELLED)
			st = eb->st[j];
		else if (eb->st[j] && !(eb->msg[j] = weft__strdup(
						weft__context_error(e->ctx))))
			st = weft__fail(e->ctx, WEFT_E_NOMEM, "out of memory");
	}
	weft__batch_close(b);
	return st;
}

/* Backend `what` has no batched replicas: say so once, and run the rest
 * of the ensemble one run after another. */
static weft_status ens_batch_off(weft_ensemble *e, size_t i0, size_t n)
{
	char note[WEFT__MSG_MAX];

	weft__fmt(note, sizeof note,
		  "%zu replicas at a time asked for, none batched: %s; the "
		  "runs ran one after another",
		  e->batch, weft__context_error(e->ctx));
	free(e->batch_note);
	if (!(e->batch_note = weft__strdup(note)))
		return weft__fail(e->ctx, WEFT_E_NOMEM, "out of memory");
	e->batch = 1;
	return weft__ens_run_each(e, i0, n);
}

/* Every run's result: its own failure, the batch's, or its CSV. */
static weft_status ens_batch_results(weft_ensemble *e, ens_batch *eb, size_t i0)
{
	weft_status st = WEFT_OK;

	for (size_t j = 0; st == WEFT_OK && j < eb->n; j++)
		st = weft__ens_run_result(
			e, i0 + j, eb->failure ? WEFT_E_MODEL : eb->st[j],
			eb->failure ? eb->failure : eb->msg[j]);
	return st;
}

static void ens_batch_progress(weft_ensemble *e, size_t i0, size_t n)
{
	const char *label;
	uint64_t seed;
	char what[256];

	weft__ensemble_run_info(e, i0, &label, &seed);
	weft__fmt(what, sizeof what,
		  "ensemble: runs %zu to %zu of %zu (%s, seeds %llu to %llu) "
		  "as a batch",
		  i0 + 1, i0 + n, e->n_runs, label, (unsigned long long)seed,
		  (unsigned long long)seed + n - 1);
	weft__progress(e->ctx, what, i0, e->n_runs);
}

weft_status weft__ens_batch(weft_ensemble *e, size_t i0, size_t n)
{
	ens_batch eb = { .n = n };
	int no_replicas = 0;
	weft_status st;

	ens_batch_progress(e, i0, n);
	st = ens_batch_cfgs(e, &eb, i0);
	if (st == WEFT_OK)
		st = ens_batch_run(e, &eb, &no_replicas);
	if (no_replicas) {
		ens_batch_free(&eb);
		return ens_batch_off(e, i0, n);
	}
	if (st == WEFT_E_CANCELLED || weft__cancelled(e->ctx)) {
		ens_batch_free(&eb);
		return st ? st : weft__cancel_fail(e->ctx, "running a batch");
	}
	if (st && !(eb.failure = weft__strdup(weft__context_error(e->ctx))))
		st = weft__fail(e->ctx, WEFT_E_NOMEM, "out of memory");
	else
		st = ens_batch_results(e, &eb, i0);
	ens_batch_free(&eb);
	return st;
}
