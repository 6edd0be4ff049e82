/*
 * walk.c - the random-walk model's host code: the plugin weft-model-walk.so,
 * weft's minimal model template (docs/writing-a-model.md). It uses only
 * what every model needs of weft/model.h: parameters, device buffers, one
 * launch per step and summary lines; models/template (the SIR template)
 * shows the optional parts (outputs between steps, checkpoints, the memory
 * estimate, plots).
 *
 * The model: `walkers` walkers on a line, all starting at 0; at each step
 * every walker steps right with probability `right`, else left. Each
 * decision is a counter-based draw keyed by the seed, the walker and its
 * step (walk.wk), so a run gives the same positions, bit for bit, on every
 * backend and thread count. finish() reads the positions back once and
 * compares their mean and mean square with what theory expects.
 */
#include <stdlib.h>

#include <weft/model.h>

#include "walk_kernels.h"

/* [walk]: every key with a default and a help sentence. */
static const weft_key_desc walk_keys[] = {
	{ "walkers", WEFT_KEY_INT, "10000", 1, 100000000, NULL,
	  "number of independent walkers, each starting at position 0" },
	{ "right", WEFT_KEY_REAL, "0.5", 0, 1, NULL,
	  "probability that a walker steps right (+1) rather than left (-1) "
	  "in one step" },
};

/* The model's state, *state of setup(). */
typedef struct walk_state {
	uint32_t walkers;
	weft_buf *p;	 /* the parameter block: u32[3] (walk.wk, WALK_P_*) */
	weft_buf *pos;	 /* i32[walkers] */
	weft_buf *clock; /* u32[walkers]: steps taken */
} walk_state;

/* A probability as a 32-bit threshold, floor(p 2^32), saturated: the
 * kernel decides with an integer comparison, the same on every device. */
static uint32_t walk_threshold(double p)
{
	double t = p * 4294967296.0;

	return t >= 4294967295.0 ? 0xFFFFFFFFu : (uint32_t)t;
}

/* Allocate the buffers and upload every byte of them: the parameters, and
 * zeros for the positions and clocks. */
static weft_status walk_build(weft_model_ctx *mc, walk_state *s)
{
	uint64_t seed = weft_model_seed(mc);
	uint32_t p[3] = { (uint32_t)seed, (uint32_t)(seed >> 32),
			  walk_threshold(weft_model_real(mc, "right")) };
	size_t bytes = 4 * (size_t)s->walkers;
	void *zeros = calloc(s->walkers, 4);
	weft_status st;

	if (!zeros)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate %zu bytes of host "
				       "memory for the upload",
				       bytes);
	if (!(st = weft_model_alloc(mc, "params", sizeof p, &s->p)) &&
	    !(st = weft_model_alloc(mc, "pos", bytes, &s->pos)) &&
	    !(st = weft_model_alloc(mc, "clock", bytes, &s->clock)) &&
	    !(st = weft_model_upload(mc, s->p, 0, p, sizeof p)) &&
	    !(st = weft_model_upload(mc, s->pos, 0, zeros, bytes)))
		st = weft_model_upload(mc, s->clock, 0, zeros, bytes);
	free(zeros);
	return st;
}

static weft_status walk_setup(weft_model_ctx *mc, void **out)
{
	walk_state *s = calloc(1, sizeof *s);
	weft_launch l;
	weft_status st;

	if (!s)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the model state");
	*out = s; /* from here on, teardown() frees what is set */
	s->walkers = (uint32_t)weft_model_int(mc, "walkers");
	if ((st = walk_build(mc, s)))
		return st;
	/* The step: one launch, one work item per walker. Declared once;
	 * step(n) replays it n times with no host in between. */
	l = walk_step_launch(
		(walk_step_bufs){ .p = s->p, .pos = s->pos, .clock = s->clock },
		s->walkers);
	return weft_model_set_step(mc, &l, 1);
}

/* After the last step: the positions, read back once, against theory. */
static weft_status walk_finish(weft_model_ctx *mc, void *state)
{
	walk_state *s = state;
	double n = (double)weft_model_steps(mc);
	double q = weft_model_real(mc, "right");
	double sum = 0, sum2 = 0, drift = n * (2 * q - 1);
	int32_t *pos = malloc(4 * (size_t)s->walkers);
	int32_t far = 0;
	weft_status st;

	if (!pos)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the positions");
	st = weft_model_download(mc, pos, s->pos, 0, 4 * (size_t)s->walkers);
	for (uint32_t i = 0; st == WEFT_OK && i < s->walkers; i++) {
		sum += pos[i];
		sum2 += (double)pos[i] * pos[i];
		if (abs(pos[i]) > abs(far))
			far = pos[i];
	}
	free(pos);
	if (st)
		return st;
	weft_model_summary(mc, "walkers", "%u", s->walkers);
	weft_model_summary(mc, "mean position", "%.3f (expected %.3f)",
			   sum / s->walkers, drift);
	weft_model_summary(mc, "mean square", "%.1f (expected %.1f)",
			   sum2 / s->walkers,
			   4 * q * (1 - q) * n + drift * drift);
	return weft_model_summary(mc, "farthest from 0", "%d", (int)far);
}

/* Whenever setup() set *state, also after a failed setup. */
static void walk_teardown(weft_model_ctx *mc, void *state)
{
	walk_state *s = state;

	if (!s)
		return;
	weft_model_free(mc, s->clock); /* NULL is fine */
	weft_model_free(mc, s->pos);
	weft_model_free(mc, s->p);
	free(s);
}

/* The only symbol the plugin exports. */
WEFT_MODEL_ENTRY = {
	.abi_major = WEFT_MODEL_ABI_MAJOR,
	.abi_minor = WEFT_MODEL_ABI_MINOR,
	.struct_size = sizeof(weft_model),
	.name = "walk", /* weft-model-walk.so, and the section [walk] */
	.version = "1.0",
	.summary = "random walkers on a line (weft's minimal model template)",
	.keys = walk_keys,
	.n_keys = sizeof walk_keys / sizeof walk_keys[0],
	.program = &walk_program, /* walk_kernels.c, written by weft-wk */
	.sigs = walk_sigs,
	.setup = walk_setup,
	.finish = walk_finish,
	.teardown = walk_teardown,
	/* `weft conform`: small, so each run takes well under a second. */
	.conform_sets = "walk.walkers=4096\nsimulation.steps=100\n",
};
