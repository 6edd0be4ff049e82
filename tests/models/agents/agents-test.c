/*
 * agents-test.c - a test model of weft/agents.h: a population with births
 * and deaths every step (agents-test.wk), whose counts and final agents
 * tests/models/test-agents.sh compares with a plain C reference
 * (agents-ref.c), on every backend built. Built for `make check` only.
 *
 * Outputs: steps.csv (step,count,next_id at every output step, from the
 * control block read back in collect()) and agents.csv (id,value of every
 * live agent in slot order, written in finish()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/kernel_host.h>
#include <weft/kernel.h>
#include <weft/agents.h>
#include <weft/model.h>

#include "agents_test_kernels.h"
#include "agents_test_shared.h"

static const weft_key_desc at_keys[] = {
	{ "initial", WEFT_KEY_INT, "100", 0, 1000000, NULL,
	  "agents at step 0, identities 0 .. initial - 1, value = identity" },
	{ "capacity", WEFT_KEY_INT, "100000", 1, 100000000, NULL,
	  "slots of the population" },
	{ "max_children", WEFT_KEY_INT, "1", 0, 100, NULL,
	  "each agent has 0 .. max_children children a step, uniformly" },
	{ "death", WEFT_KEY_REAL, "0.45", 0, 1, NULL,
	  "chance that an agent dies in a step" },
};

typedef struct at_state {
	at_params params;
	weft_buf *p, *ids, *vals;
	weft_agents_pop pop;
	weft_output *csv;
} at_state;

static uint32_t at_threshold(double x)
{
	double t = x * 4294967296.0;

	return t >= 4294967295.0 ? 0xFFFFFFFFu : (uint32_t)t;
}

static weft_status at_fields(weft_model_ctx *mc, at_state *s, uint32_t cap,
			     uint32_t n0)
{
	uint32_t *v = calloc(cap, 4);
	weft_status st;

	if (!v)
		return weft_model_fail(mc, WEFT_E_NOMEM, "no host memory");
	for (uint32_t i = 0; i < n0; i++)
		v[i] = i;
	if (!(st = weft_model_alloc(mc, "ids", 4 * (size_t)cap, &s->ids)) &&
	    !(st = weft_model_alloc(mc, "vals", 4 * (size_t)cap, &s->vals)) &&
	    !(st = weft_model_upload(mc, s->ids, 0, v, 4 * (size_t)cap)) &&
	    !(st = weft_model_upload(mc, s->vals, 0, v, 4 * (size_t)cap)) &&
	    !(st = weft_model_state(mc, s->ids)))
		st = weft_model_state(mc, s->vals);
	free(v);
	return st;
}

static weft_status at_set_step(weft_model_ctx *mc, at_state *s)
{
	weft_launch l[64];
	weft_buf *fields[2] = { s->ids, s->vals };
	const weft_agents_pop *pop = &s->pop;
	uint32_t n = 0;
	const uint32_t B = AGENTS_TEST_K_WEFT_BLOCKS,
		       A = AGENTS_TEST_K_WEFT_AGENTS;

	l[n] = agents_test_at_mark_launch(
		(agents_test_at_mark_bufs){ .p = s->p,
					    .ctl = pop->ctl,
					    .ids = s->ids,
					    .nchild = pop->nchild,
					    .alive = pop->alive },
		pop->capacity);
	l[n].extent_buf = pop->ctl;
	l[n++].extent_offset = 4 * WEFT_AGENTS_COUNT;
	n += weft_agents_births(l + n, B, A, pop);
	l[n] = agents_test_at_birth_launch(
		(agents_test_at_birth_bufs){ .ctl = pop->ctl,
					     .nchild = pop->nchild,
					     .offs = pop->offs,
					     .ids = s->ids,
					     .vals = s->vals,
					     .alive = pop->alive },
		pop->capacity);
	l[n].extent_buf = pop->ctl;
	l[n++].extent_offset = 4 * WEFT_AGENTS_COUNT;
	n += weft_agents_births_end(l + n, A, pop);
	n += weft_agents_deaths(l + n, B, A, pop, fields, 2);
	return weft_model_set_step(mc, l, n);
}

static weft_status at_setup(weft_model_ctx *mc, void **out)
{
	at_state *s = calloc(1, sizeof *s);
	uint64_t seed = weft_model_seed(mc);
	uint32_t n0 = (uint32_t)weft_model_int(mc, "initial");
	uint32_t cap = (uint32_t)weft_model_int(mc, "capacity");
	weft_status st;

	if (!s)
		return weft_model_fail(mc, WEFT_E_NOMEM, "no host memory");
	*out = s;
	s->params.seed_lo = (uint32_t)seed;
	s->params.seed_hi = (uint32_t)(seed >> 32);
	s->params.max_children = (uint32_t)weft_model_int(mc, "max_children");
	s->params.death_thr = at_threshold(weft_model_real(mc, "death"));
	if ((st = weft_model_alloc(mc, "params", sizeof s->params, &s->p)) ||
	    (st = weft_model_upload(mc, s->p, 0, &s->params,
				    sizeof s->params)) ||
	    (st = weft_agents_open(mc, &s->pop, "agents",
				   "[agents_test] capacity", cap, n0, n0)) ||
	    (st = at_fields(mc, s, cap, n0)) || (st = at_set_step(mc, s)))
		return st;
	if (!weft_model_want_csv(mc))
		return WEFT_OK;
	if ((st = weft_model_output_open(mc, "steps.csv", &s->csv)))
		return st;
	return weft_output_printf(s->csv, "step,count,next_id\n0,%u,%u\n", n0,
				  n0);
}

static weft_status at_collect(weft_model_ctx *mc, void *state,
			      uint64_t steps_done, unsigned slot)
{
	(void)steps_done;
	return weft_agents_collect(mc, &((at_state *)state)->pop, slot);
}

static weft_status at_emit(weft_model_ctx *mc, void *state, uint64_t steps_done,
			   unsigned slot)
{
	at_state *s = state;
	const uint32_t *c = weft_agents_host(&s->pop, slot);
	weft_status st;

	if ((st = weft_agents_check(mc, &s->pop, slot, steps_done)))
		return st;
	if (!s->csv)
		return WEFT_OK;
	return weft_output_printf(s->csv, "%llu,%u,%u\n",
				  (unsigned long long)steps_done,
				  c[WEFT_AGENTS_COUNT], c[WEFT_AGENTS_NEXT]);
}

static weft_status at_finish(weft_model_ctx *mc, void *state)
{
	at_state *s = state;
	uint32_t ctl[WEFT_AGENTS_CTL_WORDS], *v = NULL, n;
	weft_output *out;
	weft_status st;

	if ((st = weft_model_download(mc, ctl, s->pop.ctl, 0, sizeof ctl)))
		return st;
	n = ctl[WEFT_AGENTS_COUNT];
	weft_model_summary(mc, "agents", "%u live, %u born in all", n,
			   ctl[WEFT_AGENTS_NEXT]);
	if (!n || !weft_model_want_csv(mc))
		return WEFT_OK;
	if (!(v = malloc(8 * (size_t)n)))
		return weft_model_fail(mc, WEFT_E_NOMEM, "no host memory");
	if (!(st = weft_model_download(mc, v, s->ids, 0, 4 * (size_t)n)) &&
	    !(st = weft_model_download(mc, v + n, s->vals, 0, 4 * (size_t)n)) &&
	    !(st = weft_model_output_open(mc, "agents.csv", &out)) &&
	    !(st = weft_output_printf(out, "id,value\n")))
		for (uint32_t i = 0; i < n && !st; i++)
			st = weft_output_printf(out, "%u,%u\n", v[i], v[n + i]);
	free(v);
	return st;
}

static void at_teardown(weft_model_ctx *mc, void *state)
{
	at_state *s = state;

	if (!s)
		return;
	weft_agents_close(mc, &s->pop);
	weft_model_free(mc, s->vals);
	weft_model_free(mc, s->ids);
	weft_model_free(mc, s->p);
	free(s);
}

/* Ensembles and batched replicas: the counts per step, the final count. */
static const weft_outcome_desc at_outcomes[] = {
	{ "final_count", "count", WEFT_OUTCOME_LAST, NULL, 1.0 },
};

static const weft_ensemble_desc at_ensemble = {
	.struct_size = sizeof(weft_ensemble_desc),
	.csv = "steps.csv",
	.x = "step",
	.compare = "count",
	.outcomes = at_outcomes,
	.n_outcomes = 1,
};

WEFT_MODEL_ENTRY = {
	.abi_major = WEFT_MODEL_ABI_MAJOR,
	.abi_minor = WEFT_MODEL_ABI_MINOR,
	.struct_size = sizeof(weft_model),
	.name = "agents_test",
	.version = "1.0",
	.summary = "test of weft/agents.h: births and deaths every step",
	.keys = at_keys,
	.n_keys = sizeof at_keys / sizeof at_keys[0],
	.program = &agents_test_program,
	.sigs = agents_test_sigs,
	.setup = at_setup,
	.finish = at_finish,
	.teardown = at_teardown,
	.collect = at_collect,
	.emit = at_emit,
	.conform_sets = "agents_test.initial=200\nsimulation.steps=30\n",
	.checkpoints = 1,
	.ensemble = &at_ensemble,
};
