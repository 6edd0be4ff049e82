/*
 * tests/core/test-run.c - driving a run from an application (weft/weft.h,
 * "driving a run"; core/run/run.c), through the public API: the model's
 * buffers by name,
 * transfers within them and the refusals that name the buffer and the
 * bytes, native handles, typed views with their shape and strides, launch
 * lists by name, fences, digests; and the checks of launches against the
 * kernels' signatures (core/run/model_api.c), with a model whose setup binds
 * a launch wrongly (opened with the core's weft__sim_open_model).
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weft/model.h>
#include <weft/weft.h>

#include "run/sim.h"
#include "tap.h"

static weft_context *ctx;

/* A run of `model` (seir or cartpole) with a small configuration. */
static weft_sim *open_run(const char *model, const char *const *sets,
			  weft_config **cfg)
{
	char set[700];
	weft_sim *sim = NULL;

	snprintf(set, sizeof set, "output.directory=%s/%s", tap_tmpdir(),
		 model);
	if (weft_config_new(ctx, cfg) || weft_config_set(ctx, *cfg, set) ||
	    weft_config_set(ctx, *cfg, "output.plot=none"))
		return NULL;
	snprintf(set, sizeof set, "simulation.model=%s", model);
	if (weft_config_set(ctx, *cfg, set))
		return NULL;
	for (; sets && *sets; sets++)
		if (weft_config_set(ctx, *cfg, *sets))
			return NULL;
	if (weft_sim_open(ctx, *cfg, &sim))
		return NULL;
	return sim;
}

static void test_buffers(weft_sim *sim)
{
	weft_buffer_info info = { .struct_size = sizeof info };
	weft_sim_buffer *state = weft_sim_buffer_find(sim, "state");
	unsigned char in[16] = { 1, 2, 3, 4, 5, 6, 7, 8 }, out[16];
	size_t n = weft_sim_buffer_count(sim);
	int named = 1;

	tap_ok(n >= 8, "seir has its buffers (%zu)", n);
	for (size_t i = 0; i < n; i++) {
		weft_sim_buffer *b = weft_sim_buffer_at(sim, i);
		named &= weft_sim_buffer_info(b, &info) == WEFT_OK &&
			 info.name[0] &&
			 weft_sim_buffer_find(sim, info.name) == b;
	}
	tap_ok(named, "each buffer is found again by its name");
	tap_ok(weft_sim_buffer_at(sim, n) == NULL &&
		       weft_sim_buffer_find(sim, "no such buffer") == NULL,
	       "past the end, or an unknown name: NULL");
	if (!tap_ok(state && weft_sim_buffer_info(state, &info) == WEFT_OK &&
			    info.bytes == 500,
		    "'state' holds a byte per agent (500)")) {
		tap_skip(6, "no state buffer");
		return;
	}
	tap_ok(weft_sim_write(sim, state, 100, in, sizeof in, 0) == WEFT_OK &&
		       weft_sim_read(sim, out, state, 100, sizeof out,
				     WEFT_XFER_ASYNC) == WEFT_OK &&
		       weft_sim_sync(sim) == WEFT_OK &&
		       memcmp(in, out, sizeof in) == 0,
	       "a write and an asynchronous read within a buffer round-trip");
	tap_ok(weft_sim_write(sim, state, 490, in, sizeof in, 0) ==
		       WEFT_E_INVALID,
	       "a write past the end is refused");
	tap_contains(weft_context_error(ctx),
		     "weft_sim_write: 16 bytes at offset 490 lie outside "
		     "'state' (500 bytes)",
		     "  ...naming the bytes, the offset and the buffer");
	tap_ok(weft_sim_read(sim, NULL, state, 0, 4, 0) == WEFT_E_INVALID &&
		       strstr(weft_context_error(ctx), "no host memory"),
	       "a read with no host memory is refused, saying so");
	{
		weft_native nat = { .struct_size = sizeof nat };
		tap_ok(weft_sim_native(sim, state, &nat) == WEFT_OK &&
			       nat.kind == WEFT_NATIVE_HOST && nat.handle &&
			       nat.bytes == 500,
		       "native(): host memory of 500 bytes on openmp");
		nat.struct_size = 4;
		tap_ok(weft_sim_native(sim, state, &nat) == WEFT_E_INVALID,
		       "native() with a struct_size too small is refused");
	}
}

static void test_lists(weft_sim *sim)
{
	weft_stats s0 = { .struct_size = sizeof s0 }, s1 = s0;
	uint64_t t1 = 0, t2 = 0;
	uint32_t step = 99;

	tap_ok(weft_sim_list(sim, "step", &step) == WEFT_OK && step == 0,
	       "the step's own launch list is 'step', index 0");
	tap_ok(weft_sim_list(sim, "nope", NULL) == WEFT_E_INVALID &&
		       strstr(weft_context_error(ctx),
			      "model seir has no launch list named 'nope'"),
	       "an unknown list is refused, naming the model and the name");
	tap_ok(weft_sim_launch(sim, 7, 1) == WEFT_E_INVALID,
	       "a list index out of range is refused");
	weft_sim_stats(sim, &s0);
	tap_ok(weft_sim_launch(sim, step, 3) == WEFT_OK &&
		       weft_sim_fence(sim, &t1) == WEFT_OK &&
		       weft_sim_fence(sim, &t2) == WEFT_OK && t2 > t1 &&
		       weft_sim_wait(sim, t1) == WEFT_OK,
	       "3 steps launched, two fences with increasing tokens, a wait");
	weft_sim_stats(sim, &s1);
	TAP_EQ_INT(s1.steps - s0.steps, 3, "the backend counted the 3 steps");
	TAP_EQ_INT(s1.syncs - s0.syncs, 0, "and no synchronisation");
	TAP_EQ_INT(weft_sim_steps_done(sim), 0,
		   "launches are not steps of the run");
	tap_ok(weft_sim_wait(sim, t2 + 5) == WEFT_E_INVALID &&
		       strstr(weft_context_error(ctx), "was not given by"),
	       "a wait on a token no fence gave is refused");
}

static void test_digest(weft_sim *sim)
{
	weft_digest *a = NULL, *b = NULL;
	int same = 1;

	tap_ok(weft_sim_digest(sim, &a) == WEFT_OK &&
		       weft_sim_digest(sim, &b) == WEFT_OK &&
		       weft_digest_count(a) == weft_sim_buffer_count(sim),
	       "a digest has every buffer");
	for (size_t i = 0; i < weft_digest_count(a); i++) {
		const weft_digest_buf *x = weft_digest_at(a, i);
		const weft_digest_buf *y = weft_digest_at(b, i);
		same &= x->hash == y->hash && x->bytes == y->bytes &&
			!memcmp(x->data, y->data, x->bytes);
	}
	tap_ok(same, "two digests of an idle run are the same");
	weft_digest_free(a);
	weft_digest_free(b);
}

static void test_views(void)
{
	static const char *const sets[] = { "cartpole.envs=10", NULL };
	weft_config *cfg = NULL;
	weft_sim *sim = open_run("cartpole", sets, &cfg);
	weft_array obs = { .struct_size = sizeof obs }, fr = obs, bad = obs;

	if (!tap_ok(sim != NULL, "cartpole opens (%s)",
		    weft_context_error(ctx))) {
		tap_skip(4, "no run");
		weft_config_free(cfg);
		return;
	}
	TAP_EQ_INT(weft_sim_array_count(sim), 13, "cartpole declares 13 views");
	tap_ok(weft_sim_array_find(sim, "obs", &obs) == WEFT_OK &&
		       obs.dtype == WEFT_DTYPE_F32 && obs.ndim == 2 &&
		       obs.shape[0] == 10 && obs.shape[1] == 4 &&
		       obs.strides[0] == 4 && obs.strides[1] == 1 &&
		       obs.offset == 0 && obs.bytes == 160 &&
		       obs.mem.kind == WEFT_NATIVE_HOST,
	       "'obs': f32 [10][4], strides {4, 1}, 160 bytes of host memory");
	tap_ok(weft_sim_array_find(sim, "final_return", &fr) == WEFT_OK &&
		       fr.ndim == 1 && fr.shape[0] == 10 &&
		       fr.buffer == obs.buffer &&
		       fr.offset + fr.bytes <= obs.mem.bytes,
	       "'final_return' lies in the same packed buffer");
	tap_ok(weft_sim_array_find(sim, "obz", &bad) == WEFT_E_INVALID,
	       "an unknown view is refused");
	tap_contains(weft_context_error(ctx), "(its views: obs, reward,",
		     "  ...listing the views there are");
	weft_sim_close(sim);
	weft_config_free(cfg);
}

/* ---- launches against the kernels' signatures ------------------------ */

static const weft_model *seir;
static int wrong; /* which mistake the setup below makes */

/* seir's setup, then a launch list of its own, of seir_progress (kernel
 * 1, eight buffers), made wrong on purpose as `wrong` says. */
static weft_status wrong_setup(weft_model_ctx *mc, void **state)
{
	weft_status st = seir->setup(mc, state);
	/* Extent 0: the stand-in buffers are bound, never read. */
	weft_launch l = { .kernel = 1, .n_bufs = 8, .extent = 0 };

	if (st)
		return st;
	for (uint32_t k = 0; k < 8; k++) {
		weft_buf *b = NULL;
		weft_model_alloc(mc, "stand-in", 4, &b);
		l.bufs[k] = b;
	}
	if (wrong == 1)
		l.n_bufs = 7;
	if (wrong == 2)
		l.bufs[3] = NULL;
	if (wrong == 3)
		l.kernel = 99;
	if (wrong == 4)
		return weft_model_add_list(mc, "step", &l, 1);
	if (wrong == 5)
		return weft_model_add_list(mc, "Bad Name", &l, 1);
	return weft_model_add_list(mc, "mine", &l, 1);
}

static void test_signature_checks(void)
{
	static const char *const want[] = {
		NULL,
		"launch list 'mine', launch 0 (seir_progress): binds 7 "
		"buffers, the kernel declares 8",
		"launch list 'mine', launch 0 (seir_progress): buffer 'tally' "
		"(slot 3) is not bound",
		"launch list 'mine', launch 0: kernel 99 does not exist",
		"launch list 'step' is declared twice ('step' is the step's "
		"own list)",
		"launch list name 'Bad Name' is not a name",
	};
	weft_model_plugin *p = NULL;
	weft_model m;

	if (weft_model_plugin_open(ctx, "seir", NULL, &p))
		tap_bail("cannot load seir: %s", weft_context_error(ctx));
	seir = weft_model_plugin_table(p);
	m = *seir;
	m.setup = wrong_setup;
	for (wrong = 0; wrong < 6; wrong++) {
		static const char *const sets[] = { "seir.population=random",
						    "seir.agents=300", NULL };
		weft_config *cfg = NULL;
		weft_sim *sim = NULL;
		weft_status st = WEFT_E_INTERNAL;
		char set[700];

		snprintf(set, sizeof set, "output.directory=%s/sig%d",
			 tap_tmpdir(), wrong);
		if (!weft_config_new(ctx, &cfg) &&
		    !weft_config_set(ctx, cfg, set) &&
		    !weft_config_set(ctx, cfg, sets[0]) &&
		    !weft_config_set(ctx, cfg, sets[1]))
			st = weft__sim_open_model(ctx, cfg, &m, &sim);
		if (wrong == 0) {
			uint32_t i;
			tap_ok(st == WEFT_OK &&
				       weft_sim_list(sim, "mine", &i) ==
					       WEFT_OK &&
				       weft_sim_launch(sim, i, 2) == WEFT_OK,
			       "a launch bound as its kernel declares is "
			       "accepted and runs (%s)",
			       weft_context_error(ctx));
		} else {
			tap_ok(st == WEFT_E_INVALID, "mistake %d is refused",
			       wrong);
			tap_contains(weft_context_error(ctx), want[wrong],
				     "  ...saying which launch and why");
		}
		weft_sim_close(sim);
		weft_config_free(cfg);
	}
	weft_model_plugin_close(p);
}

int main(void)
{
	static const char *const sets[] = { "seir.population=random",
					    "seir.agents=500",
					    "simulation.steps=10", NULL };
	weft_config *cfg = NULL;
	weft_sim *sim;

	if (weft_context_new(&ctx))
		tap_bail("out of memory");
	sim = open_run("seir", sets, &cfg);
	if (!sim)
		tap_bail("seir does not open: %s", weft_context_error(ctx));
	test_buffers(sim);
	test_lists(sim);
	test_digest(sim);
	weft_sim_close(sim);
	weft_config_free(cfg);
	test_views();
	test_signature_checks();
	weft_context_free(ctx);
	return tap_done();
}
