/*
 * tests/core/test-batch.c - batched replicas (core/run/batch.c) on the OpenMP
 * backend: each replica's state digest equals that of the run alone with
 * its seed, after steps and at the end, for SEIR and CartPole; a batch is
 * one launch per kernel for all replicas; a replica cannot be launched
 * alone; and models whose replicas allocate different buffers, or
 * declare step lists of different shapes, are refused, naming the replica,
 * the buffer or the launch (seir wrapped by setups that differ by seed).
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weft/model.h>
#include <weft/weft.h>

#include "run/batch.h"
#include "run/sim.h"
#include "tap.h"

#define SEED0 41
#define N     3

static weft_context *ctx;

/* cfgs[r]: model with sets, seed SEED0 + r, its own directory (named
 * by tag). */
static int make_cfgs(const char *model, const char *tag,
		     const char *const *sets, weft_config **cfgs, int n)
{
	char set[700];

	for (int r = 0; r < n; r++) {
		if (weft_config_new(ctx, &cfgs[r]))
			return 0;
		snprintf(set, sizeof set, "output.directory=%s/%s-%s-%d",
			 tap_tmpdir(), model, tag, r);
		if (weft_config_set(ctx, cfgs[r], set))
			return 0;
		snprintf(set, sizeof set, "simulation.model=%s", model);
		if (weft_config_set(ctx, cfgs[r], set))
			return 0;
		snprintf(set, sizeof set, "simulation.seed=%d", SEED0 + r);
		if (weft_config_set(ctx, cfgs[r], set) ||
		    weft_config_set(ctx, cfgs[r], "output.plot=none") ||
		    weft_config_set(ctx, cfgs[r], "backend.name=openmp"))
			return 0;
		for (const char *const *s = sets; *s; s++)
			if (weft_config_set(ctx, cfgs[r], *s))
				return 0;
	}
	return 1;
}

static void free_cfgs(weft_config **cfgs, int n)
{
	for (int r = 0; r < n; r++)
		weft_config_free(cfgs[r]);
}

/* Every buffer of a and b has the same bytes. */
static int same_digest(const weft_digest *a, const weft_digest *b)
{
	if (!a || !b || weft_digest_count(a) != weft_digest_count(b))
		return 0;
	for (size_t i = 0; i < weft_digest_count(a); i++) {
		const weft_digest_buf *x = weft_digest_at(a, i);
		const weft_digest_buf *y = weft_digest_at(b, i);
		if (strcmp(x->name, y->name) || x->bytes != y->bytes ||
		    memcmp(x->data, y->data, x->bytes))
			return 0;
	}
	return 1;
}

/* The run alone with cfg, its digest after `steps` steps. */
static weft_digest *alone(const weft_config *cfg, uint64_t steps)
{
	weft_sim *sim = NULL;
	weft_digest *d = NULL;

	if (weft_sim_open(ctx, cfg, &sim) == WEFT_OK &&
	    weft_sim_step(sim, steps) == WEFT_OK)
		weft_sim_digest(sim, &d);
	weft_sim_close(sim);
	return d;
}

/* Replica r's digest equals the run alone's with its seed (cfgs: the
 * runs alone's). */
static int replica_agrees(weft__batch *b, weft_config **cfgs, int r,
			  uint64_t steps)
{
	weft_digest *d = NULL, *want = alone(cfgs[r], steps);
	int same = weft_sim_digest(weft__batch_sim(b, (uint32_t)r), &d) ==
			   WEFT_OK &&
		   same_digest(d, want);

	weft_digest_free(d);
	weft_digest_free(want);
	return same;
}

static void test_digests(const char *model, const char *const *sets)
{
	weft_config *cfgs[N] = { 0 }, *alones[N] = { 0 };
	weft_stats s0 = { .struct_size = sizeof s0 }, s1 = s0;
	weft__batch *b = NULL;
	int no_rep = 0, ok = 1;
	uint64_t total;

	if (!make_cfgs(model, "batch", sets, cfgs, N) ||
	    !make_cfgs(model, "alone", sets, alones, N) ||
	    !tap_ok(weft__batch_open(ctx, (const weft_config *const *)cfgs, N,
				     NULL, &b, &no_rep) == WEFT_OK,
		    "%s: a batch of %d replicas opens (%s)", model, N,
		    weft_context_error(ctx))) {
		tap_skip(4, "no batch");
		goto free_cfgs;
	}
	total = weft_sim_steps_total(weft__batch_sim(b, 0));
	weft_sim_stats(weft__batch_sim(b, 0), &s0);
	ok = weft__batch_step(b, 7) == WEFT_OK;
	weft_sim_stats(weft__batch_sim(b, 0), &s1);
	TAP_EQ_INT(s1.steps - s0.steps, 7,
		   "  the device counted 7 steps for all replicas, not 21");
	for (int r = 0; ok && r < N; r++)
		ok = replica_agrees(b, alones, r, 7);
	tap_ok(ok,
	       "%s: after 7 steps every replica's digest is the run "
	       "alone's with its seed",
	       model);
	ok = weft__batch_step(b, total) == WEFT_OK;
	for (int r = 0; ok && r < N; r++)
		ok = weft_sim_finish(weft__batch_sim(b, (uint32_t)r)) ==
			     WEFT_OK &&
		     replica_agrees(b, alones, r, total);
	tap_ok(ok, "%s: and at the end (%llu steps), after finish (%s)", model,
	       (unsigned long long)total, weft_context_error(ctx));
	tap_ok(weft_sim_launch(weft__batch_sim(b, 1), 0, 1) ==
			       WEFT_E_UNSUPPORTED &&
		       strstr(weft_context_error(ctx),
			      "steps only with the batch"),
	       "%s: a replica's list cannot be launched alone", model);
	weft__batch_close(b);
free_cfgs:
	free_cfgs(cfgs, N);
	free_cfgs(alones, N);
}

/* ---- replicas that differ ------------------------------------------------ */

static const weft_model *seir;
static int differ; /* how an odd seed's replica differs */

/* seir's setup, then, for an odd seed, a difference. */
static weft_status differ_setup(weft_model_ctx *mc, void **state)
{
	weft_status st = seir->setup(mc, state);
	weft_buf *extra = NULL;

	if (st || weft_model_seed(mc) % 2 == 0)
		return st;
	if (differ == 1)
		return weft_model_alloc(mc, "extra", 64, &extra);
	{
		uint32_t n = WEFT__SIM_STEP(mc->sim)->n;
		weft_launch l[64];
		memcpy(l, WEFT__SIM_STEP(mc->sim)->l, n * sizeof *l);
		l[0].extent = l[0].extent ? l[0].extent - 1 : 1;
		return weft_model_set_step(mc, l, n);
	}
}

static void test_refused(void)
{
	static const char *const sets[] = { "seir.population=random",
					    "seir.agents=300",
					    "simulation.steps=5", NULL };
	weft_model_plugin *p = NULL;
	weft_model m;

	if (weft_model_plugin_open(ctx, "seir", NULL, &p))
		tap_bail("cannot load seir: %s", weft_context_error(ctx));
	seir = weft_model_plugin_table(p);
	m = *seir;
	m.setup = differ_setup;
	for (differ = 1; differ <= 2; differ++) {
		weft_config *cfgs[2] = { 0 };
		weft__batch *b = NULL;
		int no_rep = 0;
		weft_status st = WEFT_E_INTERNAL;
		if (make_cfgs("seir", "differ", sets, cfgs, 2))
			st = weft__batch_open(ctx,
					      (const weft_config *const *)cfgs,
					      2, &m, &b, &no_rep);
		tap_ok(st == WEFT_E_UNSUPPORTED && !b,
		       "replicas that differ (%s) are refused",
		       differ == 1 ? "a buffer more" : "an extent");
		tap_contains(weft_context_error(ctx),
			     differ == 1 ? "batch of 2 replicas of model seir: "
					   "replica 1 (seed 42): it allocated"
					 : "batch of 2 replicas of model seir: "
					   "replica 1 (seed 42): step launch 0",
			     "  ...naming the replica and its seed");
		tap_contains(weft_context_error(ctx),
			     differ == 1 ? "buffers, replica 0"
					 : "differs from replica 0's in its "
					   "extent",
			     "  ...and what differs");
		weft__batch_close(b);
		free_cfgs(cfgs, 2);
	}
	weft_model_plugin_close(p);
}

int main(void)
{
	static const char *const seir_sets[] = { "seir.population=random",
						 "seir.agents=2000",
						 "seir.initial_infected=20",
						 "simulation.steps=30", NULL };
	static const char *const cp_sets[] = { "cartpole.envs=64",
					       "simulation.steps=200", NULL };

	if (weft_context_new(&ctx))
		tap_bail("out of memory");
	test_digests("seir", seir_sets);
	test_digests("cartpole", cp_sets);
	test_refused();
	weft_context_free(ctx);
	return tap_done();
}
