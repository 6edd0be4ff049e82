/*
 * core/ensemble/ensemble.c - running an ensemble: its output set, each run into
 * runs/SCENARIO/SEED/ of the set, the results (as bytes, for processes
 * that run them elsewhere), and the commit.
 *
 * Each run is a run as `weft run` makes it (weft_sim_open, the steps,
 * weft_sim_finish), with [output] directory set to its place in the set
 * being written, its CSV on and its own plot off. Its results are read
 * back from the CSV it committed: the aggregates are computed from the
 * numbers a modeller finds in the per-run files.
 */
#include "config/cfg.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ensemble/ensemble.h"

#define ENS_WIRE_MAGIC 0x77656e73u /* "wens" */

int weft_config_is_ensemble(const weft_config *cfg)
{
	return weft__config_is_ensemble(cfg);
}

weft_status weft_ensemble_open(weft_context *ctx, const weft_config *cfg,
			       weft_ensemble **out)
{
	weft_ensemble *e;
	weft_status st;

	if (!cfg || !out)
		return weft__fail(ctx, WEFT_E_INVALID,
				  "weft_ensemble_open: cfg or out is NULL");
	*out = NULL;
	e = calloc(1, sizeof *e);
	if (!e)
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	e->ctx = ctx;
	e->base = cfg;
	e->out.lock_fd = -1;
	e->out.tail = &e->out.head;
	if ((st = weft__validate_cfg(ctx, cfg)) || (st = weft__ens_plan(e)) ||
	    (st = weft__ens_desc(e)))
		goto close_ensemble;
	e->res = calloc(e->n_runs, sizeof *e->res);
	if (!e->res) {
		st = weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
		goto close_ensemble;
	}
	*out = e;
	return WEFT_OK;

close_ensemble:
	weft_ensemble_close(e);
	return st;
}

size_t weft_ensemble_run_count(const weft_ensemble *e)
{
	return e ? e->n_runs : 0;
}

size_t weft_ensemble_scenario_count(const weft_ensemble *e)
{
	return e ? e->n_groups : 0;
}

const char *weft_ensemble_crn_key(const weft_ensemble *e)
{
	return e ? e->crn_note : NULL;
}

const char *weft_ensemble_crn_refused(const weft_ensemble *e)
{
	return e ? e->crn_refused : NULL;
}

const char *weft_ensemble_scenario_at(const weft_ensemble *e, size_t i)
{
	return e && i < e->n_groups ? e->groups[i].label : NULL;
}

weft_status weft_ensemble_run_info(const weft_ensemble *e, size_t i,
				   const char **scenario, uint64_t *seed)
{
	if (!e || i >= e->n_runs)
		return weft__fail(e ? e->ctx : NULL, WEFT_E_INVALID,
				  "ensemble run %zu: there are %zu runs", i,
				  e ? e->n_runs : 0);
	weft__ensemble_run_info(e, i, scenario, seed);
	return WEFT_OK;
}

void weft__ensemble_run_info(const weft_ensemble *e, size_t i,
			     const char **scenario, uint64_t *seed)
{
	const weft__ens_group *g = &e->groups[i / e->per_group];

	if (scenario)
		*scenario = g->label;
	if (seed)
		*seed = g->seed0 + i % e->per_group;
}

/* ---- the set ------------------------------------------------------------- */

/* Every run's directory and lock are paths the system takes: checked
 * before any run, so that an [output] directory too long for them is
 * named as the cause, once. A scenario's longest are those of its first
 * and last seeds (the seeds count up). */
static weft_status ens_paths_fit(weft_ensemble *e)
{
	char dir[PATH_MAX], lock[PATH_MAX], shown[400], key[WEFT__MSG_MAX / 2];
	weft_status st = WEFT_OK;

	for (size_t g = 0; st == WEFT_OK && g < e->n_groups; g++) {
		size_t first = g * e->per_group;
		size_t last = first + e->per_group - 1;

		st = weft__ens_run_dir(e, first, dir, sizeof dir, lock,
				       sizeof lock);
		if (st == WEFT_OK)
			st = weft__ens_run_dir(e, last, dir, sizeof dir, lock,
					       sizeof lock);
	}
	if (st == WEFT_OK)
		return WEFT_OK;
	weft__path_shown(shown, sizeof shown,
			 weft__config_opts(e->base)->output.directory);
	weft__where_key(key, sizeof key,
			weft__cfg_where_of(e->base, "output", "directory"),
			"output", "directory", shown);
	return weft__fail(e->ctx, WEFT_E_CONFIG, "%s: its runs' paths: %s", key,
			  weft__context_error(e->ctx));
}

weft_status weft_ensemble_begin(weft_ensemble *e)
{
	weft_status st;

	e->out.tree = "runs";
	st = weft__outputs_prepare(
		e->ctx, &e->out, weft__config_opts(e->base)->output.directory,
		weft__cfg_where_of(e->base, "output", "directory"));
	if (st == WEFT_OK && !(e->stage = weft__strdup(e->out.tmp)))
		st = weft__fail(e->ctx, WEFT_E_NOMEM, "out of memory");
	if (st == WEFT_OK)
		st = ens_paths_fit(e);
	return st;
}

const char *weft_ensemble_stage(const weft_ensemble *e)
{
	return e && e->stage ? e->stage : "";
}

weft_status weft_ensemble_attach(weft_ensemble *e, const char *stage)
{
	if (!e || !stage || !*stage)
		return weft__fail(e ? e->ctx : NULL, WEFT_E_INVALID,
				  "weft_ensemble_attach: no stage");
	free(e->stage);
	e->stage = weft__strdup(stage);
	return e->stage ? WEFT_OK
			: weft__fail(e->ctx, WEFT_E_NOMEM, "out of memory");
}

/* ---- one run ------------------------------------------------------------- */

/* STAGE/runs/SCENARIO/SEED, and the lock the run leaves beside it. */
weft_status weft__ens_run_dir(weft_ensemble *e, size_t i, char *dir,
			      size_t dsize, char *lock, size_t lsize)
{
	const char *label;
	uint64_t seed;
	weft_status st;

	weft__ensemble_run_info(e, i, &label, &seed);
	st = weft__fmt_path(e->ctx, dir, dsize, "run directory",
			    "%s/runs/%s/%llu", e->stage, label,
			    (unsigned long long)seed);
	if (st == WEFT_OK)
		st = weft__fmt_path(e->ctx, lock, lsize, "run lock",
				    "%s/runs/%s/.%llu%s", e->stage, label,
				    (unsigned long long)seed, WEFT__OUT_LOCK);
	return st;
}

/* Test hook ENSEMBLE_FAIL=N (util.h: weft__test_hook) fails run N
 * (0-based) as a model would, so that tests can check how a failed run is
 * reported. */
weft_status weft__ens_test_fail(weft_ensemble *e, size_t i)
{
	const char *v = weft__test_hook("ENSEMBLE_FAIL");

	if (!v || !*v || strtoull(v, NULL, 10) != i)
		return WEFT_OK;
	return weft__fail(e->ctx, WEFT_E_MODEL,
			  "run %zu failed (test hook ENSEMBLE_FAIL)", i);
}

/* Run i's configuration: its place in the set, its CSV on and its own
 * plot off, its seed. */
weft_status weft__ens_run_cfg(weft_ensemble *e, weft_config *cfg, size_t i,
			      const char *dir)
{
	weft__ens_group *g = &e->groups[i / e->per_group];
	struct cfg_section *out = weft__cfg_find(cfg, "output");
	struct cfg_section *sim_s = weft__cfg_find(cfg, "simulation");
	char seed[32];
	weft_status st;

	weft__fmt(seed, sizeof seed, "%llu",
		  (unsigned long long)(g->seed0 + i % e->per_group));
	if ((st = weft__cfg_store(e->ctx, out,
				  (size_t)weft__cfg_find_key(out, "directory"),
				  dir, "the ensemble")) ||
	    (st = weft__cfg_store(e->ctx, out,
				  (size_t)weft__cfg_find_key(out, "csv"),
				  "true", "the ensemble")) ||
	    (st = weft__cfg_store(e->ctx, out,
				  (size_t)weft__cfg_find_key(out, "plot"),
				  "none", "the ensemble")))
		return st;
	return weft__cfg_store(e->ctx, sim_s,
			       (size_t)weft__cfg_find_key(sim_s, "seed"), seed,
			       "[ensemble] runs");
}

/* Run i as weft run does, into dir. */
static weft_status ens_sim(weft_ensemble *e, size_t i, const char *dir)
{
	weft__ens_group *g = &e->groups[i / e->per_group];
	weft_sim *sim = NULL;
	weft_status st;

	if ((st = weft__ens_run_cfg(e, g->cfg, i, dir)))
		return st;
	st = weft__ens_test_fail(e, i);
	if (st == WEFT_OK)
		st = weft__sim_open_model(e->ctx, g->cfg, NULL, &sim);
	if (st == WEFT_OK)
		st = weft__sim_step(sim, sim->steps_total);
	if (st == WEFT_OK)
		st = weft__sim_finish(sim);
	weft__sim_close(sim);
	return st;
}

static void ens_result_clear(weft__ens_result *r)
{
	free(r->error);
	free(r->header);
	free(r->v);
	memset(r, 0, sizeof *r);
}

/* r as bytes: a header of six 32-bit words (magic, failed, rows, cols,
 * the lengths of error and header), the two strings, then the values. */
static weft_status ens_wire(weft_ensemble *e, const weft__ens_result *r)
{
	size_t le = r->error ? strlen(r->error) : 0;
	size_t lh = r->header ? strlen(r->header) : 0;
	size_t nv = (size_t)r->rows * r->cols;
	uint32_t h[6] = { ENS_WIRE_MAGIC, (uint32_t)r->failed, r->rows,
			  r->cols,	  (uint32_t)le,	       (uint32_t)lh };
	size_t bytes = sizeof h + le + lh + nv * sizeof(double);
	unsigned char *w = realloc(e->wire, bytes ? bytes : 1);

	if (!w)
		return weft__fail(e->ctx, WEFT_E_NOMEM, "out of memory");
	e->wire = w;
	e->wire_bytes = bytes;
	memcpy(w, h, sizeof h);
	memcpy(w + sizeof h, r->error ? r->error : "", le);
	memcpy(w + sizeof h + le, r->header ? r->header : "", lh);
	if (nv)
		memcpy(w + sizeof h + le + lh, r->v, nv * sizeof(double));
	return WEFT_OK;
}

/* Run i's result once it ended with st (msg: its failure, NULL for the
 * context's message): read from the CSV it committed, or its failure. */
weft_status weft__ens_run_result(weft_ensemble *e, size_t i, weft_status st,
				 const char *msg)
{
	char dir[PATH_MAX], lock[PATH_MAX], *csv;
	weft__ens_result *r = &e->res[i];
	weft_status pst;

	if ((pst = weft__ens_run_dir(e, i, dir, sizeof dir, lock, sizeof lock)))
		return pst;
	unlink(lock);
	if (st == WEFT_E_CANCELLED || weft__cancelled(e->ctx))
		return st ? st
			  : weft__cancel_fail(e->ctx, "running an ensemble");
	if (!(csv = weft__path_join(dir, e->csv)))
		return weft__fail(e->ctx, WEFT_E_NOMEM, "out of memory");
	if (st == WEFT_OK)
		st = weft__ens_read_csv(e->ctx, csv, r);
	free(csv);
	if (st != WEFT_OK) {
		ens_result_clear(r);
		r->failed = 1;
		if (!(r->error = weft__strdup(
			      msg ? msg : weft__context_error(e->ctx))))
			return weft__fail(e->ctx, WEFT_E_NOMEM,
					  "out of memory");
	}
	r->have = 1;
	if (!e->keep_runs)
		weft__rm_tree(dir);
	return WEFT_OK;
}

weft_status weft_ensemble_run_one(weft_ensemble *e, size_t i, const void **data,
				  size_t *bytes)
{
	char dir[PATH_MAX], lock[PATH_MAX];
	weft_status st;

	if (!e || i >= e->n_runs || !e->stage)
		return weft__fail(e ? e->ctx : NULL, WEFT_E_INVALID,
				  "weft_ensemble_run_one: run %zu of %zu, %s",
				  i, e ? e->n_runs : 0,
				  e && e->stage ? "" : "not begun");
	ens_result_clear(&e->res[i]);
	if ((st = weft__ens_run_dir(e, i, dir, sizeof dir, lock, sizeof lock)))
		return st;
	st = ens_sim(e, i, dir);
	if ((st = weft__ens_run_result(e, i, st, NULL)) ||
	    (st = ens_wire(e, &e->res[i])))
		return st;
	if (data)
		*data = e->wire;
	if (bytes)
		*bytes = e->wire_bytes;
	return WEFT_OK;
}

size_t weft_ensemble_batch_at(const weft_ensemble *e, size_t i)
{
	size_t left;

	if (!e || i >= e->n_runs)
		return 0;
	left = e->per_group - i % e->per_group;
	return left < e->batch ? left : e->batch;
}

weft_status weft_ensemble_run_batch(weft_ensemble *e, size_t i, size_t n)
{
	if (!e || !e->stage || n == 0 || i >= e->n_runs || n > e->n_runs - i ||
	    i / e->per_group != (i + n - 1) / e->per_group)
		return weft__fail(e ? e->ctx : NULL, WEFT_E_INVALID,
				  "weft_ensemble_run_batch: runs %zu to %zu of "
				  "%zu%s",
				  i + 1, i + n, e ? e->n_runs : 0,
				  !e || !e->stage ? ", not begun"
				  : n == 0	  ? ": no runs"
					   : ": not all of one scenario");
	for (size_t j = i; j < i + n; j++)
		ens_result_clear(&e->res[j]);
	return n > 1 ? weft__ens_batch(e, i, n) : weft__ens_run_each(e, i, 1);
}

weft_status weft_ensemble_result(weft_ensemble *e, size_t i, const void **data,
				 size_t *bytes)
{
	weft_status st;

	if (!e || i >= e->n_runs || !e->res[i].have)
		return weft__fail(e ? e->ctx : NULL, WEFT_E_INVALID,
				  "weft_ensemble_result: run %zu of %zu has "
				  "no result here",
				  i + 1, e ? e->n_runs : 0);
	if ((st = ens_wire(e, &e->res[i])))
		return st;
	if (data)
		*data = e->wire;
	if (bytes)
		*bytes = e->wire_bytes;
	return WEFT_OK;
}

weft_status weft_ensemble_add_result(weft_ensemble *e, size_t i,
				     const void *data, size_t bytes)
{
	const unsigned char *w = data;
	weft__ens_result *r;
	uint32_t h[6];
	size_t nv;

	if (!e || i >= e->n_runs || !data || bytes < sizeof h)
		return weft__fail(e ? e->ctx : NULL, WEFT_E_INVALID,
				  "weft_ensemble_add_result: run %zu: no "
				  "result",
				  i);
	memcpy(h, w, sizeof h);
	nv = (size_t)h[2] * h[3];
	if (h[0] != ENS_WIRE_MAGIC ||
	    bytes != sizeof h + h[4] + h[5] + nv * sizeof(double))
		return weft__fail(e->ctx, WEFT_E_INVALID,
				  "weft_ensemble_add_result: run %zu: %zu "
				  "bytes that are not a result",
				  i, bytes);
	r = &e->res[i];
	ens_result_clear(r);
	r->failed = (int)h[1];
	r->rows = h[2];
	r->cols = h[3];
	r->error = h[4] ? strndup((const char *)w + sizeof h, h[4]) : NULL;
	r->header = strndup((const char *)w + sizeof h + h[4], h[5]);
	r->v = malloc(nv ? nv * sizeof(double) : 1);
	if ((h[4] && !r->error) || !r->header || !r->v)
		return weft__fail(e->ctx, WEFT_E_NOMEM, "out of memory");
	memcpy(r->v, w + sizeof h + h[4] + h[5], nv * sizeof(double));
	r->have = 1;
	return WEFT_OK;
}

/* ---- all of it ----------------------------------------------------------- */

weft_status weft_ensemble_finish(weft_ensemble *e)
{
	weft_status st;

	if (!e || !e->out.tmp)
		return weft__fail(e ? e->ctx : NULL, WEFT_E_INVALID,
				  "weft_ensemble_finish: not begun");
	for (size_t i = 0; i < e->n_runs; i++)
		if (!e->res[i].have)
			return weft__fail(e->ctx, WEFT_E_INTERNAL,
					  "weft_ensemble_finish: run %zu has "
					  "no result",
					  i);
	if (!e->keep_runs) {
		char *runs = weft__path_join(e->out.tmp, "runs");
		if (runs)
			weft__rm_tree(runs);
		free(runs);
	}
	if ((st = weft__ens_aggregate(e)) || (st = weft__ens_plots(e)))
		return st;
	if ((st = weft__outputs_commit(e->ctx, &e->out)))
		return st;
	for (weft_output *o = e->out.head; o; o = weft__output_next(o)) {
		char **grown =
			realloc(e->outputs, (e->n_outputs + 1) * sizeof *grown);
		if (!grown ||
		    !(grown[e->n_outputs] = weft__strdup(weft__output_path(o))))
			return weft__fail(e->ctx, WEFT_E_NOMEM,
					  "out of memory");
		e->outputs = grown;
		e->n_outputs++;
	}
	return WEFT_OK;
}

/* Runs i0 .. i0 + n - 1 one after another. */
weft_status weft__ens_run_each(weft_ensemble *e, size_t i0, size_t n)
{
	const char *label;
	uint64_t seed;
	char what[256];
	weft_status st;

	for (size_t i = i0; i < i0 + n; i++) {
		weft__ensemble_run_info(e, i, &label, &seed);
		weft__fmt(what, sizeof what,
			  "ensemble: run %zu of %zu (%s, seed %llu)", i + 1,
			  e->n_runs, label, (unsigned long long)seed);
		weft__progress(e->ctx, what, i, e->n_runs);
		if ((st = weft_ensemble_run_one(e, i, NULL, NULL)))
			return st;
	}
	return WEFT_OK;
}

weft_status weft_ensemble_run(weft_ensemble *e)
{
	weft_status st;

	if (!e)
		return weft__fail(NULL, WEFT_E_INVALID,
				  "weft_ensemble_run: e is NULL");
	if ((st = weft_ensemble_begin(e)))
		return st;
	/* A scenario's runs, e->batch at a time (the last batch of a
	 * scenario may be smaller). */
	for (size_t i = 0; i < e->n_runs;) {
		size_t n = weft_ensemble_batch_at(e, i);
		if ((st = weft_ensemble_run_batch(e, i, n)))
			return st;
		i += n;
	}
	return weft_ensemble_finish(e);
}

/* ---- what it did --------------------------------------------------------- */

size_t weft_ensemble_failed_count(const weft_ensemble *e)
{
	size_t n = 0;

	for (size_t i = 0; e && i < e->n_runs; i++)
		n += e->res[i].have && e->res[i].failed;
	return n;
}

weft_status weft_ensemble_failed_at(const weft_ensemble *e, size_t k,
				    size_t *index, const char **message)
{
	for (size_t i = 0; e && i < e->n_runs; i++) {
		if (!e->res[i].have || !e->res[i].failed || k--)
			continue;
		if (index)
			*index = i;
		if (message)
			*message = e->res[i].error ? e->res[i].error : "";
		return WEFT_OK;
	}
	return weft__fail(e ? e->ctx : NULL, WEFT_E_INVALID,
			  "weft_ensemble_failed_at: no such failure");
}

weft_status weft__ens_summary(weft_ensemble *e, const char *key,
			      const char *fmt, ...)
{
	char value[1024];
	size_t kl = strlen(key);
	char **grown, *pair;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(value, sizeof value, fmt, ap);
	va_end(ap);
	grown = realloc(e->summary, (e->n_summary + 1) * sizeof *grown);
	pair = malloc(kl + strlen(value) + 2);
	if (!grown || !pair) {
		free(pair);
		if (grown)
			e->summary = grown;
		return weft__fail(e->ctx, WEFT_E_NOMEM, "out of memory");
	}
	memcpy(pair, key, kl + 1);
	strcpy(pair + kl + 1, value);
	e->summary = grown;
	e->summary[e->n_summary++] = pair;
	return WEFT_OK;
}

size_t weft_ensemble_summary_count(const weft_ensemble *e)
{
	return e ? e->n_summary : 0;
}

weft_status weft_ensemble_summary_at(const weft_ensemble *e, size_t i,
				     const char **key, const char **value)
{
	if (!e || i >= e->n_summary)
		return weft__fail(e ? e->ctx : NULL, WEFT_E_INVALID,
				  "summary line %zu: there are %zu", i,
				  e ? e->n_summary : 0);
	weft__ensemble_summary_at(e, i, key, value);
	return WEFT_OK;
}

void weft__ensemble_summary_at(const weft_ensemble *e, size_t i,
			       const char **key, const char **value)
{
	*key = e->summary[i];
	*value = e->summary[i] + strlen(e->summary[i]) + 1;
}

size_t weft_ensemble_output_count(const weft_ensemble *e)
{
	return e ? e->n_outputs : 0;
}

const char *weft_ensemble_output_at(const weft_ensemble *e, size_t i)
{
	return e && i < e->n_outputs ? e->outputs[i] : NULL;
}

void weft_ensemble_close(weft_ensemble *e)
{
	if (!e)
		return;
	weft__outputs_discard(&e->out);
	for (size_t g = 0; e->groups && g < e->n_groups; g++) {
		free(e->groups[g].label);
		weft__config_free(e->groups[g].cfg);
	}
	for (size_t i = 0; e->res && i < e->n_runs; i++)
		ens_result_clear(&e->res[i]);
	for (size_t i = 0; i < e->n_outcomes; i++) {
		free(e->outcomes[i].name);
		free(e->outcomes[i].columns);
		free(e->outcomes[i].per);
	}
	for (size_t i = 0; i < e->n_summary; i++)
		free(e->summary[i]);
	for (size_t i = 0; i < e->n_outputs; i++)
		free(e->outputs[i]);
	free(e->outcomes);
	free(e->summary);
	free(e->outputs);
	free(e->groups);
	free(e->res);
	free(e->wire);
	free(e->stage);
	free(e->batch_note);
	free(e->crn_note);
	free(e->crn_refused);
	free(e->csv);
	free(e->x);
	free(e->columns);
	free(e->bands);
	free(e->compare);
	free(e);
}
