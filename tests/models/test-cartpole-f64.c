/*
 * tests/models/test-cartpole-f64.c - [cartpole] precision = f64 on both
 * of weft/double.h's paths: the hardware doubles this file is compiled
 * with (the host prelude has them) and the software doubles of
 * weft/softf64.h (cartpole-soft64.c, compiled with WEFT_D64_SOFT), as a
 * device without doubles runs them.
 *
 * The program's needs (no WEFT_CAP_F64). The model's sin and cos
 * (cartpole_dyn64.h) against the C library's over CartPole's angles,
 * which Gymnasium calls through numpy (here without weft/double.h's FMA
 * build: WEFT_D64_FN); one step of the dynamics against Gymnasium's
 * CartPoleEnv.step written here in double, on both paths; the reset
 * states. Then the C API with precision = f64 on each backend that runs
 * here, OpenCL also as a device without doubles (WEFT_OPENCL_NO_FP64=1:
 * the software path): whole episodes from states set with
 * weft_cartpole_set_state, observation by observation against Gymnasium's
 * step (the bits numpy computes); states read back exactly; seeds of
 * their own per environment; refusals. weft/softf64.h's own operations
 * are checked against the FPU by tests/core/test-softf64.c.
 *
 * Built with -ffp-contract=off, so the hardware reference rounds each
 * operation on its own.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <weft/backend.h>
#include <weft/cartpole.h>

/* The model's f64 functions here without weft/double.h's FMA build: the
 * baseline build (fma a call of the C library's), which a CPU without FMA
 * runs; the model's plugin, on this CPU, runs the FMA build
 * (check_episodes). */
#define WEFT_D64_FN WEFT_FN

#include "cartpole-soft64.h"
#include "cartpole.h"
#include "rnd64.h"
#include "tap.h"

/* A uniform double in [-1, 1). */
static double uniform(void)
{
	return (double)(tap_rnd64() >> 11) / 9007199254740992.0 * 2 - 1;
}

static int has_fma(void)
{
	return __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
}

/* The model's sin and cos on the hardware path (this file). */
static uint64_t hw_sin(double t)
{
	return weft_d64_bits(cp64_sin(t, weft__cartpole_trig_table));
}

static uint64_t hw_cos(double t)
{
	return weft_d64_bits(cp64_cos(t, weft__cartpole_trig_table));
}

/* sin and cos over CartPole's angles (a step starts within 12 degrees)
 * and small magnitudes down to the C library's own shortcuts, on both
 * paths. */
static void check_trig(long n)
{
	long bad_s = 0, bad_c = 0, soft_s = 0, soft_c = 0;

	if (!has_fma()) {
		tap_skip(2, "this CPU has no FMA: glibc computes sin and cos "
			    "with its other variant, which precision = f64 "
			    "does not reproduce (cartpole.md)");
		return;
	}
	for (long i = 0; i < n; i++) {
		double t = uniform() * 0.2095;

		if (i % 4 == 0)
			t = ldexp(t, -(int)(tap_rnd64() % 40));
		if (hw_sin(t) != weft_f64_as_u64(sin(t)) && bad_s++ < 3)
			tap_diag("sin(%a): got %a, want %a", t,
				 weft_u64_as_f64(hw_sin(t)), sin(t));
		if (hw_cos(t) != weft_f64_as_u64(cos(t)) && bad_c++ < 3)
			tap_diag("cos(%a): got %a, want %a", t,
				 weft_u64_as_f64(hw_cos(t)), cos(t));
		if (i % 8 == 0) { /* the software path: slower */
			soft_s += cp_soft_sin(weft_f64_as_u64(t)) !=
				  weft_f64_as_u64(sin(t));
			soft_c += cp_soft_cos(weft_f64_as_u64(t)) !=
				  weft_f64_as_u64(cos(t));
		}
	}
	tap_ok(bad_s == 0 && bad_c == 0,
	       "hardware doubles: sin and cos of %ld angles within 12 "
	       "degrees: the C library's bits (%ld and %ld differ)",
	       n, bad_s, bad_c);
	tap_ok(soft_s == 0 && soft_c == 0,
	       "software doubles: sin and cos of %ld of those angles: the C "
	       "library's bits (%ld and %ld differ)",
	       (n + 7) / 8, soft_s, soft_c);
}

/* Gymnasium 1.x CartPoleEnv.step (cartpole.py), in its order. */
static void gym_step(double *s, int action)
{
	double force = action == 1 ? 10.0 : -10.0;
	double c = cos(s[2]), sn = sin(s[2]);
	double temp = (force + 0.1 * 0.5 * (s[3] * s[3]) * sn) / (0.1 + 1.0);
	double thetaacc = (9.8 * sn - c * temp) /
			  (0.5 * (4.0 / 3.0 - 0.1 * (c * c) / (0.1 + 1.0)));
	double xacc = temp - 0.1 * 0.5 * thetaacc * c / (0.1 + 1.0);

	s[0] = s[0] + 0.02 * s[1];
	s[1] = s[1] + 0.02 * xacc;
	s[2] = s[2] + 0.02 * s[3];
	s[3] = s[3] + 0.02 * thetaacc;
}

static int gym_terminated(const double *s)
{
	double thr = 12 * 2 * 3.141592653589793 / 360;

	return s[0] < -2.4 || s[0] > 2.4 || s[2] < -thr || s[2] > thr;
}

/* One step from random states anywhere a step can start (|theta| within
 * 12 degrees, |x| within 2.4), on both paths, against Gymnasium's. */
static void check_dynamics(long n)
{
	long bad_h = 0, bad_s = 0, term = 0;

	if (!has_fma()) {
		tap_skip(1, "this CPU has no FMA (see above)");
		return;
	}
	for (long i = 0; i < n; i++) {
		double g[4] = { uniform() * 2.4, uniform() * 3,
				uniform() * 0.2094, uniform() * 3 };
		uint64_t u[4];
		unsigned a = (unsigned)(tap_rnd64() & 1);
		cartpole_obs64 h = { g[0], g[1], g[2], g[3] };
		int th, ts;

		for (int k = 0; k < 4; k++)
			u[k] = weft_f64_as_u64(g[k]);
		h = cp64_dynamics(h, a, weft__cartpole_trig_table);
		th = cp64_terminated(h);
		ts = cp_soft_step(u, a);
		gym_step(g, (int)a);
		term += gym_terminated(g);
		bad_h +=
			weft_f64_as_u64(h.x) != weft_f64_as_u64(g[0]) ||
			weft_f64_as_u64(h.x_dot) != weft_f64_as_u64(g[1]) ||
			weft_f64_as_u64(h.theta) != weft_f64_as_u64(g[2]) ||
			weft_f64_as_u64(h.theta_dot) != weft_f64_as_u64(g[3]) ||
			th != gym_terminated(g);
		bad_s += u[0] != weft_f64_as_u64(g[0]) ||
			 u[1] != weft_f64_as_u64(g[1]) ||
			 u[2] != weft_f64_as_u64(g[2]) ||
			 u[3] != weft_f64_as_u64(g[3]) ||
			 ts != gym_terminated(g);
	}
	tap_ok(bad_h == 0 && bad_s == 0 && term > 0,
	       "one step from %ld random states (%ld terminated): "
	       "Gymnasium's float64 state and termination on hardware and "
	       "software doubles (%ld and %ld differ)",
	       n, term, bad_h, bad_s);
}

/* precision = f64 starts episodes from the f32 model's states, exactly,
 * on both paths. */
static void check_reset(void)
{
	weft_u32 keys[CP_KEY_ARRAYS] = { 0x12345678u, 7u, 0u,
					 CP_PURPOSE_RESET };
	long bad = 0;

	for (weft_u32 e = 0; e < 100000; e++) {
		weft_rand4 r = cp_reset_draw(keys, 1, 0, e);
		cartpole_obs s = cp_reset_state(r);
		cartpole_obs64 d = cp64_reset_state(r);
		uint64_t u[4];

		bad += weft_f64_as_u64(d.x) != weft_f64_as_u64(s.x) ||
		       weft_f64_as_u64(d.x_dot) != weft_f64_as_u64(s.x_dot) ||
		       weft_f64_as_u64(d.theta) != weft_f64_as_u64(s.theta) ||
		       weft_f64_as_u64(d.theta_dot) !=
			       weft_f64_as_u64(s.theta_dot);
		if (e % 8)
			continue;
		cp_soft_reset(keys[0], keys[1], e, u);
		bad += u[0] != weft_f64_as_u64(s.x) ||
		       u[1] != weft_f64_as_u64(s.x_dot) ||
		       u[2] != weft_f64_as_u64(s.theta) ||
		       u[3] != weft_f64_as_u64(s.theta_dot);
	}
	tap_ok(bad == 0,
	       "f64 reset states equal the f32 ones, hardware and software "
	       "doubles (%ld of 112500 differ)",
	       bad);
}

/* ---- the C API with precision = f64 ----------------------------------- */

typedef struct api {
	weft_context *ctx;
	weft_config *cfg;
	weft_cartpole *env;
	weft_cartpole_layout lay;
	unsigned char *io;
} api;

static int api_open(api *a, const char *backend, const char *precision,
		    uint32_t n)
{
	const char *dir = getenv("WEFT_BUILDDIR");
	char set[5][700];

	memset(a, 0, sizeof *a);
	/* The plugin built in this tree ($WEFT_PLUGIN_PATH has openmp's). */
	snprintf(set[4], sizeof set[4],
		 "backend.plugin_path=%s/plugins/%s/.libs", dir ? dir : ".",
		 backend);
	snprintf(set[0], sizeof set[0], "backend.name=%s", backend);
	snprintf(set[1], sizeof set[1], "cartpole.precision=%s", precision);
	snprintf(set[2], sizeof set[2], "cartpole.envs=%u", n);
	snprintf(set[3], sizeof set[3], "output.directory=%s", tap_tmpdir());
	if (weft_context_new(&a->ctx) || weft_config_new(a->ctx, &a->cfg) ||
	    weft_config_set(a->ctx, a->cfg, "simulation.model=cartpole") ||
	    weft_config_set(a->ctx, a->cfg, "simulation.seed=11") ||
	    weft_config_set(a->ctx, a->cfg, "output.csv=false") ||
	    weft_config_set(a->ctx, a->cfg, "output.summary=false"))
		tap_bail("config: %s", weft_context_error(a->ctx));
	for (int k = 0; k < 5; k++)
		if (weft_config_set(a->ctx, a->cfg, set[k]))
			tap_bail("config: %s", weft_context_error(a->ctx));
	if (weft_cartpole_open(a->ctx, a->cfg, &a->env))
		return 0;
	weft_cartpole_layout_of(n, &a->lay);
	a->io = malloc(a->lay.total_bytes);
	if (!a->io)
		tap_bail("out of memory");
	return 1;
}

static void api_close(api *a)
{
	weft_cartpole_close(a->env);
	weft_config_free(a->cfg);
	weft_context_free(a->ctx);
	free(a->io);
}

/* Does observation o (float bits of the packed buffer) equal s rounded? */
static int obs_is(const unsigned char *o, const double *s)
{
	for (int k = 0; k < 4; k++) {
		float f = (float)s[k], g;

		memcpy(&g, o + 4 * k, 4);
		if (weft_f32_as_u32(f) != weft_f32_as_u32(g))
			return 0;
	}
	return 1;
}

#define EP_ENVS	 32
#define EP_STEPS 1500

/* EP_STEPS steps of EP_ENVS environments from states set here, actions
 * from a fixed hash that keeps many poles up; the reference follows each
 * environment and takes weft's state again after an automatic reset. */
static void check_episodes(const char *backend, const char *label)
{
	static double ref[EP_ENVS][4], back[EP_ENVS][4];
	uint8_t act[EP_ENVS];
	long bad = 0, ended = 0, exact_state = 1;
	api a;

	if (!api_open(&a, backend, "f64", EP_ENVS)) {
		tap_skip(2, "%s: %s", label, weft_context_error(a.ctx));
		api_close(&a);
		return;
	}
	for (int i = 0; i < EP_ENVS; i++)
		for (int k = 0; k < 4; k++)
			ref[i][k] = ((double)(tap_rnd64() >> 11) /
					     9007199254740992.0 -
				     0.5) *
				    (k % 2 ? 0.4 : 0.1);
	if (weft_cartpole_set_state(a.env, NULL, &ref[0][0], NULL) ||
	    weft_cartpole_get_state(a.env, &back[0][0]))
		tap_bail("%s: %s", label, weft_context_error(a.ctx));
	exact_state = memcmp(ref, back, sizeof ref) == 0;
	for (int t = 0; t < EP_STEPS; t++) {
		for (int i = 0; i < EP_ENVS; i++) {
			/* push the way the pole falls, now and then not */
			act[i] = (ref[i][2] + 0.3 * ref[i][3] > 0) ^
				 ((tap_rnd64() % 16) == 0);
			gym_step(ref[i], act[i]);
		}
		if (weft_cartpole_step(a.env, act, 1, a.io, a.lay.total_bytes))
			tap_bail("%s: %s", label, weft_context_error(a.ctx));
		if (weft_cartpole_get_state(a.env, &back[0][0]))
			tap_bail("%s: %s", label, weft_context_error(a.ctx));
		for (int i = 0; i < EP_ENVS; i++) {
			int term = a.io[a.lay.terminated + i];
			int trunc = a.io[a.lay.truncated + i];

			if (term != gym_terminated(ref[i]))
				bad++;
			if (term || trunc) {
				ended++;
				bad += !obs_is(a.io + a.lay.final_obs + 16 * i,
					       ref[i]);
				memcpy(ref[i], back[i], sizeof ref[i]);
			} else {
				bad += !obs_is(a.io + a.lay.obs + 16 * i,
					       ref[i]) ||
				       memcmp(ref[i], back[i], sizeof ref[i]);
			}
		}
	}
	tap_ok(exact_state,
	       "%s: set_state then get_state gives the doubles "
	       "back exactly",
	       label);
	tap_ok(bad == 0 && ended > EP_ENVS,
	       "%s: %d steps of %d environments (%ld episodes ended): "
	       "states, observations and termination as Gymnasium's float64 "
	       "step, bit for bit (%ld differ)",
	       label, EP_STEPS, EP_ENVS, ended, bad);
	api_close(&a);
}

/* Seeds of their own: the same seed gives the same episodes whatever the
 * environment's index; f32 and f64 start from the same states. */
static void check_seeds(void)
{
	uint8_t which[8] = { 2, 0, 0, 0, 0, 2, 2, 1 };
	uint64_t seeds[8] = { 42, 0, 0, 0, 0, 42, 43, 0 };
	float o64[8][4], o32[8][4], again[8][4];
	api a, b;

	if (!api_open(&a, "openmp", "f64", 8))
		tap_bail("open: %s", weft_context_error(a.ctx));
	if (!api_open(&b, "openmp", "f32", 8))
		tap_bail("open: %s", weft_context_error(b.ctx));
	tap_ok(weft_cartpole_precision(a.env) == 64 &&
		       weft_cartpole_precision(b.env) == 32,
	       "weft_cartpole_precision says 64 and 32");
	if (weft_cartpole_reset_some(a.env, which, seeds, &o64[0][0]) ||
	    weft_cartpole_reset_some(b.env, which, seeds, &o32[0][0]))
		tap_bail("reset_some: %s", weft_context_error(a.ctx));
	tap_ok(memcmp(o64, o32, sizeof o64) == 0,
	       "f64 and f32 environments start from the same states");
	tap_ok(memcmp(o64[0], o64[5], 16) == 0 && memcmp(o64[0], o64[6], 16),
	       "seed 42 gives the same state at index 0 and 5, seed 43 "
	       "another");
	which[6] = 1;
	weft_cartpole_reset_some(a.env, which, seeds, NULL);
	which[0] = which[5] = 1;
	weft_cartpole_reset_some(a.env, which, seeds, &again[0][0]);
	tap_ok(memcmp(again[0], again[5], 16) == 0 &&
		       memcmp(again[0], o64[0], 16),
	       "their next episodes agree too, and differ from the first");
	which[3] = 3;
	tap_ok(weft_cartpole_reset_some(a.env, which, seeds, NULL) ==
			       WEFT_E_INVALID &&
		       tap_contains(weft_context_error(a.ctx), "which[3] is 3",
				    "message"),
	       "a which[] value of 3 is refused, naming it");
	which[3] = 2;
	tap_ok(weft_cartpole_reset_some(a.env, which, NULL, NULL) ==
		       WEFT_E_INVALID,
	       "seeding without seeds is refused");
	api_close(&a);
	api_close(&b);
}

static void check_set_state_errors(void)
{
	double s[2][4] = { { 0, 0, 0.1, 0 }, { 0, 0, 0.3, 0 } };
	double back[2][4];
	uint8_t which[2] = { 1, 0 };
	api a;

	if (!api_open(&a, "openmp", "f32", 2))
		tap_bail("open: %s", weft_context_error(a.ctx));
	tap_ok(weft_cartpole_set_state(a.env, NULL, &s[0][0], NULL) ==
			       WEFT_E_INVALID &&
		       tap_contains(weft_context_error(a.ctx),
				    "environment 1: state", "message"),
	       "a terminated state (theta 0.3) is refused, naming its "
	       "environment");
	s[1][2] = NAN;
	tap_ok(weft_cartpole_set_state(a.env, NULL, &s[0][0], NULL) ==
			       WEFT_E_INVALID &&
		       tap_contains(weft_context_error(a.ctx), "not finite",
				    "message"),
	       "a NaN is refused");
	s[0][0] = 0.1;
	tap_ok(weft_cartpole_set_state(a.env, which, &s[0][0], NULL) == 0 &&
		       weft_cartpole_get_state(a.env, &back[0][0]) == 0 &&
		       back[0][0] == (double)0.1f && back[0][2] == (double)0.1f,
	       "with precision f32 the state set is rounded to floats, and "
	       "environments left out of which[] are not checked");
	api_close(&a);
}

/* The program includes weft/double.h but never names weft_f64: weft-wk
 * derives no need of hardware doubles, so every device runs it. */
static void check_needs(void)
{
	tap_ok(!(cartpole_program.needs & WEFT_CAP_F64) &&
		       (cartpole_program.needs & WEFT_CAP_F32_EXACT),
	       "the program needs WEFT_CAP_F32_EXACT but not WEFT_CAP_F64 "
	       "(needs %#x)",
	       (unsigned)cartpole_program.needs);
}

int main(void)
{
	check_needs();
	check_trig(2000000);
	check_dynamics(200000);
	check_reset();
	check_episodes("openmp", "openmp");
	check_episodes("opencl", "opencl");
	/* The OpenCL device as one without doubles: weft/double.h's
	 * software path in the program it compiles. */
	setenv("WEFT_OPENCL_NO_FP64", "1", 1);
	check_episodes("opencl", "opencl without fp64 (WEFT_OPENCL_NO_FP64=1: "
				 "software doubles)");
	unsetenv("WEFT_OPENCL_NO_FP64");
	check_episodes("cuda", "cuda"); /* skips without a GPU */
	check_seeds();
	check_set_state_errors();
	return tap_done();
}
