/*
 * tests/models/test-pendulum.c - the Pendulum model (models/pendulum) as an
 * environment of the protocol (weft/env.h), driven through libweft's run
 * API alone on the OpenMP backend: the declared spaces; one step from
 * given states against Gymnasium 1.x's own results, bit for bit (angles
 * past +-pi and far outside, clipped torques and speeds); seeded resets
 * equal across environment indices; truncation at max_episode_steps and
 * never a termination; the three autoreset modes of act; the bookkeeping
 * buffer; precision = f32's vectorised act against the f32 arithmetic
 * compiled here, and against the scalar step of the on-device policy.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weft/weft.h>
#include <weft/env.h>

#include "env-drive.h"
#include "kernel-launches.h"
#include "tap.h"

/* The kernels' f32 arithmetic, compiled here as the host builds are: the
 * reference of the vectorised step. */
#include <weft/kernel_host.h>
#include <weft/kernel.h>
#include <weft/math.h>
#include <weft/double.h>
#include <weft/env.wk>
#include "pendulum_shared.h"
#include "pendulum_dyn.h"

#define N_ENVS	  8u
#define MAX_STEPS 5u
#define PD_PI	  3.141592653589793

/* The bookkeeping words (weft/env.wk). */
#define BOOK_EPISODE 4u
#define BOOK_T	     5u
#define BOOK_ENDED   8u
#define BOOK_WORDS   10u

/* pendulum on openmp, N_ENVS environments truncated after MAX_STEPS, in
 * autoreset mode `mode`. */
static void run_open(run *r, const char *mode)
{
	static const char *const base[] = {
		"simulation.model=pendulum",
		"simulation.seed=11",
		"backend.name=openmp",
		"backend.threads=2",
		"output.summary=false",
		"output.plot=none",
		"pendulum.envs=8",
		"pendulum.max_episode_steps=5",
		NULL,
	};

	run_new(r, NULL);
	run_setf(r, "output.directory=%s/pendulum", tap_tmpdir());
	run_sets(r, base);
	run_setf(r, "pendulum.autoreset=%s", mode);
	run_start(r);
}

/* One step with every environment's action a. */
static void run_step(run *r, float a)
{
	float act[N_ENVS];

	for (unsigned i = 0; i < N_ENVS; i++)
		act[i] = a;
	run_put(r, &r->actions, act);
	run_launch(r, r->act);
}

static double d_of(uint64_t bits)
{
	double d;

	memcpy(&d, &bits, sizeof d);
	return d;
}

static float f_of(uint32_t bits)
{
	float f;

	memcpy(&f, &bits, sizeof f);
	return f;
}

/* ---- spaces ------------------------------------------------------------- */

static void test_spaces(void)
{
	run r;
	weft_env_info info = { .struct_size = sizeof info };

	run_open(&r, "next_step");
	tap_ok(weft_sim_env(r.sim, &info) == WEFT_OK, "weft_sim_env");
	tap_ok(info.num_envs == N_ENVS && info.precision == 64 &&
		       info.autoreset == WEFT_AUTORESET_NEXT_STEP,
	       "8 environments, f64, next_step");
	tap_ok(info.observation.kind == WEFT_SPACE_BOX &&
		       info.observation.dtype == WEFT_DTYPE_F32 &&
		       info.observation.ndim == 1 &&
		       info.observation.shape[0] == 3 &&
		       info.observation.high &&
		       info.observation.high[2] == 8.0 &&
		       info.observation.low[0] == -1.0,
	       "observation Box(-[1, 1, 8], [1, 1, 8], (3,), float32)");
	tap_ok(info.action.kind == WEFT_SPACE_BOX && info.action.ndim == 1 &&
		       info.action.shape[0] == 1 &&
		       info.action.low[0] == -2.0 && info.action.high[0] == 2.0,
	       "action Box(-2, 2, (1,), float32)");
	run_close(&r);
}

/* ---- one step against Gymnasium ----------------------------------------- */

/* Gymnasium 1.4 (NumPy 2.4, glibc's sin/cos) from state (th, thdot) with
 * action a: the new state, the observation and the reward as float32
 * (bench: env.unwrapped.state = ...; env.step(np.array([a], float32))).
 * The first and the last angle are ones where musl's sin (weft_sin) and
 * glibc's differ, glibc's correctly rounded as weft_sin_cr is: with
 * weft_sin the new state would differ from Gymnasium's. */
static const struct gym_case {
	uint64_t th, thdot;
	uint32_t a;
	uint64_t new_th, new_thdot;
	uint32_t obs[3], reward;
} gym_cases[N_ENVS] = {
	/* th -5.42956785959797, thdot -0.3, a 1.25 */
	{ 0xc015b7e0a3118b44,
	  0xbfd3333333333333,
	  0x3fa00000,
	  0xc015a0b2638a9174,
	  0x3fdcf9cf68b843d9,
	  { 0x3f23d938, 0x3f44b267, 0x3ee7ce7b },
	  0xbf3d3dde },
	/* th -pi (angle_normalize: 0 % 2 pi), thdot 0, a 0 */
	{ 0xc00921fb54442d18,
	  0x0000000000000000,
	  0x00000000,
	  0xc00921fb54442d18,
	  0xbc9a79394c9e8a0c,
	  { 0xbf800000, 0xa50d3132, 0xa4d3c9ca },
	  0xc11de9e6 },
	/* th pi, thdot 7.9, a 2: the speed clipped at 8 */
	{ 0x400921fb54442d18,
	  0x401f99999999999a,
	  0x40000000,
	  0x400c552e8777604b,
	  0x4020000000000000,
	  { 0xbf6bcaa7, 0xbec761d7, 0x41000000 },
	  0xc180eab6 },
	/* th 50, thdot -7.95, a -7: torque clipped at -2, speed at -8 */
	{ 0x4049000000000000,
	  0xc01fcccccccccccd,
	  0xc0e00000,
	  0x4048cccccccccccd,
	  0xc020000000000000,
	  { 0x3f495fdd, 0xbf1e1077, 0xc1000000 },
	  0xc0cca1a3 },
	/* th -50, thdot 2.5, a 3.5 */
	{ 0xc049000000000000,
	  0x4004000000000000,
	  0x40600000,
	  0xc048ecd212e33b1d,
	  0x4007f96863f61b61,
	  { 0x3f6a3c91, 0x3ece9579, 0x403fcb43 },
	  0xbf33112f },
	/* th 0.001, thdot 0.001, a -0.001 */
	{ 0x3f50624dd2f1a9fc,
	  0x3f50624dd2f1a9fc,
	  0xba83126f,
	  0x3f51b1d929c37c27,
	  0x3f5a36e2c8646b60,
	  { 0x3f7ffff6, 0x3a8d8ec8, 0x3ad1b716 },
	  0xb593c612 },
	/* th -2, thdot 0.75, a -1.9999 */
	{ 0xc000000000000000,
	  0x3fe8000000000000,
	  0xbffffcb9,
	  0xc00017c0a4480bc5,
	  0xbfcdb0cd5a0eb670,
	  { 0xbeda73c7, 0xbf678769, 0xbe6d866b },
	  0xc081ed91 },
	/* th 5.300397354631379, thdot 2.5, a -0.75 */
	{ 0x4015339b5d37c968,
	  0x4004000000000000,
	  0xbf400000,
	  0x40158de572c972b6,
	  0x3ffc3726bd84e880,
	  { 0x3f2035b3, 0xbf47abfc, 0x3fe1b936 },
	  0xbfcbb422 },
};

static void test_gym_step(void)
{
	run r;
	double st[N_ENVS][2];
	float act[N_ENVS], obs[N_ENVS][3], rew[N_ENVS];
	int bad = 0;

	run_open(&r, "disabled");
	for (unsigned i = 0; i < N_ENVS; i++) {
		st[i][0] = d_of(gym_cases[i].th);
		st[i][1] = d_of(gym_cases[i].thdot);
		act[i] = f_of(gym_cases[i].a);
	}
	run_put(&r, &r.state, st);
	run_put(&r, &r.actions, act);
	run_launch(&r, r.act);
	run_get(&r, &r.state, st);
	run_get(&r, &r.obs, obs);
	run_get(&r, &r.reward, rew);
	for (unsigned i = 0; i < N_ENVS; i++) {
		const struct gym_case *c = &gym_cases[i];
		uint64_t s0, s1;
		uint32_t o[3], rw;

		memcpy(&s0, &st[i][0], 8);
		memcpy(&s1, &st[i][1], 8);
		memcpy(o, obs[i], sizeof o);
		memcpy(&rw, &rew[i], 4);
		if (s0 != c->new_th || s1 != c->new_thdot ||
		    memcmp(o, c->obs, sizeof o) || rw != c->reward) {
			bad++;
			tap_diag("case %u: state %016llx %016llx (Gymnasium "
				 "%016llx "
				 "%016llx), obs %08x %08x %08x (%08x %08x "
				 "%08x), "
				 "reward %08x (%08x)",
				 i, (unsigned long long)s0,
				 (unsigned long long)s1,
				 (unsigned long long)c->new_th,
				 (unsigned long long)c->new_thdot, o[0], o[1],
				 o[2], c->obs[0], c->obs[1], c->obs[2], rw,
				 c->reward);
		}
	}
	tap_ok(bad == 0, "one step from 8 states: state, obs and reward are "
			 "Gymnasium's bits");
	run_close(&r);
}

/* ---- resets -------------------------------------------------------------- */

static void test_seeded(void)
{
	run r;
	unsigned char mask[N_ENVS];
	uint64_t seed[N_ENVS];
	double st[N_ENVS][2];
	float obs[N_ENVS][3], rew[N_ENVS];
	int same = 1, ranges = 1, differ = 0;

	run_open(&r, "next_step");
	run_get(&r, &r.state, st);
	for (unsigned i = 1; i < N_ENVS; i++)
		differ += st[i][0] != st[0][0];
	tap_ok(differ == N_ENVS - 1,
	       "the first episodes' states differ by index");
	run_step(&r, 1.0f);
	for (unsigned i = 0; i < N_ENVS; i++) {
		mask[i] = WEFT_ENV_SEEDED;
		seed[i] = 12345;
	}
	mask[3] = WEFT_ENV_KEEP;
	run_put(&r, &r.mask, mask);
	run_put(&r, &r.seed, seed);
	run_launch(&r, r.reset_some);
	run_get(&r, &r.state, st);
	run_get(&r, &r.obs, obs);
	run_get(&r, &r.reward, rew);
	for (unsigned i = 1; i < N_ENVS; i++)
		if (i != 3)
			same &= !memcmp(st[i], st[0], sizeof st[0]) &&
				!memcmp(obs[i], obs[0], sizeof obs[0]) &&
				rew[i] == 0.0f;
	tap_ok(same,
	       "reset with one seed: the same state and obs at every index");
	tap_ok(memcmp(st[3], st[0], sizeof st[0]) != 0,
	       "an environment kept (mask 0) keeps its state");
	for (unsigned i = 0; i < N_ENVS; i++)
		ranges &= i == 3 || (st[i][0] >= -PD_PI && st[i][0] < PD_PI &&
				     st[i][1] >= -1.0 && st[i][1] < 1.0);
	tap_ok(ranges, "first states: th in [-pi, pi), thdot in [-1, 1)");
	tap_ok(obs[0][2] == (float)st[0][1] &&
		       fabsf(obs[0][0] - (float)cos(st[0][0])) < 1e-6f &&
		       fabsf(obs[0][1] - (float)sin(st[0][0])) < 1e-6f,
	       "obs = [cos th, sin th, thdot]");
	run_close(&r);
}

/* ---- truncation and autoreset ---------------------------------------------
 */

static int all_u8(const unsigned char *v, unsigned char want)
{
	for (unsigned i = 0; i < N_ENVS; i++)
		if (v[i] != want)
			return 0;
	return 1;
}

/* Steps 1..MAX_STEPS - 1: no flags. Returns 1 when so. */
static int steps_before_end(run *r)
{
	unsigned char term[N_ENVS], trunc[N_ENVS];
	int good = 1;

	for (unsigned t = 1; t < MAX_STEPS; t++) {
		run_step(r, -0.5f);
		run_get(r, &r->term, term);
		run_get(r, &r->trunc, trunc);
		good &= all_u8(term, 0) && all_u8(trunc, 0);
	}
	return good;
}

static void test_modes(void)
{
	static const char *const modes[3] = { "next_step", "same_step",
					      "disabled" };

	for (int m = 0; m < 3; m++) {
		run r;
		unsigned char term[N_ENVS], trunc[N_ENVS];
		uint32_t book[BOOK_WORDS * N_ENVS];
		double st[N_ENVS][2], before[N_ENVS][2];
		float obs[N_ENVS][3], fin[N_ENVS][3], rew[N_ENVS];

		run_open(&r, modes[m]);
		tap_ok(steps_before_end(&r), "%s: no flag before step %u",
		       modes[m], MAX_STEPS);
		run_get(&r, &r.state, before);
		run_step(&r, -0.5f);
		run_get(&r, &r.term, term);
		run_get(&r, &r.trunc, trunc);
		run_get(&r, &r.obs, obs);
		run_get(&r, &r.final_obs, fin);
		run_get(&r, &r.state, st);
		run_get(&r, &r.book, book);
		tap_ok(all_u8(trunc, 1) && all_u8(term, 0),
		       "%s: truncated, not terminated, at step %u", modes[m],
		       MAX_STEPS);
		tap_ok(book[BOOK_ENDED * N_ENVS] == 1 &&
			       book[BOOK_ENDED * N_ENVS + 7] == 1,
		       "%s: env_book counts the ended episode", modes[m]);
		if (m == 1) { /* same_step: a new episode at once */
			tap_ok(book[BOOK_EPISODE * N_ENVS] == 1 &&
				       book[BOOK_T * N_ENVS] == 0 &&
				       obs[0][2] == (float)st[0][1] &&
				       memcmp(obs[0], fin[0], sizeof obs[0]) !=
					       0,
			       "same_step: obs is the new episode's, final_obs "
			       "the "
			       "ended one's");
			run_close(&r);
			continue;
		}
		tap_ok(book[BOOK_EPISODE * N_ENVS] == 0 &&
			       book[BOOK_T * N_ENVS] == MAX_STEPS &&
			       obs[0][2] == (float)st[0][1] &&
			       !memcmp(obs[0], fin[0], sizeof obs[0]),
		       "%s: the ended episode's state and obs stay", modes[m]);
		run_step(&r, -0.5f);
		run_get(&r, &r.trunc, trunc);
		run_get(&r, &r.reward, rew);
		run_get(&r, &r.book, book);
		run_get(&r, &r.state, st);
		if (m == 0)
			tap_ok(all_u8(trunc, 0) && rew[0] == 0.0f &&
				       book[BOOK_EPISODE * N_ENVS] == 1 &&
				       book[BOOK_T * N_ENVS] == 0 &&
				       st[0][1] >= -1.0 && st[0][1] < 1.0,
			       "next_step: the next step begins episode 1 "
			       "(reward "
			       "0, no flags)");
		else
			tap_ok(all_u8(trunc, 1) && rew[0] < 0.0f &&
				       book[BOOK_EPISODE * N_ENVS] == 0 &&
				       book[BOOK_T * N_ENVS] == MAX_STEPS + 1,
			       "disabled: the episode goes on until "
			       "reset_some");
		run_close(&r);
	}
}

/* ---- precision = f32: the vectorised act --------------------------------- */

/* Two blocks of 64 environments and a tail of 22 (one range: a launch
 * this small is not split between threads). */
#define F32_ENVS 150u

/* pendulum f32 with F32_ENVS environments on `backend` (openmp when
 * NULL), in autoreset mode `mode`, its output in a directory of its own
 * (k); 0 when a backend other than openmp cannot open. */
static int f32_open_on(run *r, const char *mode, int k, const char *backend)
{
	static const char *const base[] = {
		"simulation.model=pendulum",
		"simulation.seed=11",
		"backend.threads=2",
		"output.summary=false",
		"output.plot=none",
		"pendulum.envs=150",
		"pendulum.precision=f32",
		"pendulum.policy=zero",
		"pendulum.max_episode_steps=7",
		NULL,
	};

	run_new(r, backend);
	run_backend(r, backend ? backend : "openmp");
	run_setf(r, "output.directory=%s/pendulum-f32-%d", tap_tmpdir(), k);
	run_sets(r, base);
	run_setf(r, "pendulum.autoreset=%s", mode);
	return run_start(r);
}

static void f32_open(run *r, const char *mode, int k)
{
	f32_open_on(r, mode, k, NULL);
}

/* Angles of every kind: in [-pi, pi], past it, near and beyond the
 * vectorised step's range (PD32_TRIG_MAX), and far beyond. */
static float f32_angle(unsigned i)
{
	static const float odd[] = { 4095.9f, -4095.9f, 4096.0f, 5000.0f,
				     -1e6f,   3.2e7f,	30.5f,	 -64.0f };

	if (i % 9u == 4u)
		return odd[(i / 9u) % 8u];
	return ((float)(int)(i * 7919u % 1001u) - 500.0f) * 0.0123f;
}

/* The views act leaves, in the order f32_same compares them. */
static void f32_views(run *r, const weft_array **v)
{
	v[0] = &r->obs;
	v[1] = &r->reward;
	v[2] = &r->term;
	v[3] = &r->trunc;
	v[4] = &r->final_obs;
	v[5] = &r->state;
	v[6] = &r->book;
}

/* 1 when every view of a and b holds the same bytes; names the others. */
static int f32_same(run *a, run *b, const char *what, int step)
{
	static unsigned char va[F32_ENVS * 64], vb[F32_ENVS * 64];
	const weft_array *x[7], *y[7];
	int same = 1;

	f32_views(a, x);
	f32_views(b, y);
	for (int v = 0; v < 7; v++) {
		if (x[v]->bytes > sizeof va)
			tap_bail("view %s too large", x[v]->name);
		run_get(a, x[v], va);
		run_get(b, y[v], vb);
		if (memcmp(va, vb, x[v]->bytes)) {
			tap_diag("%s, step %d: %s differs", what, step,
				 x[v]->name);
			same = 0;
		}
	}
	return same;
}

/* One act from chosen states and actions (clipped ones too) against
 * pd_step32 and pd_obs compiled here: state, observation and reward bit
 * for bit. */
static void test_f32_step(void)
{
	static float st[F32_ENVS][2], act[F32_ENVS], obs[F32_ENVS][3];
	static float rew[F32_ENVS], want_obs[F32_ENVS][3];
	static float want_st[F32_ENVS][2];
	pendulum_params p = { .n_envs = F32_ENVS,
			      .precision = PD_PRECISION_F32 };
	float kf = 3.0f * 10.0f / 2.0f;
	float want_rew;
	int bad = 0;
	run r;

	memcpy(&p.k_f32, &kf, sizeof kf);
	f32_open(&r, "disabled", 0);
	for (unsigned i = 0; i < F32_ENVS; i++) {
		st[i][0] = f32_angle(i);
		st[i][1] = (float)(int)(i % 19u) - 9.0f;
		act[i] = (float)(int)(i % 13u) * 0.61f - 3.7f;
	}
	act[17] = 1e9f;
	act[99] = -0.0f;
	memcpy(want_st, st, sizeof st);
	run_put(&r, &r.state, st);
	run_put(&r, &r.actions, act);
	run_launch(&r, r.act);
	run_get(&r, &r.state, st);
	run_get(&r, &r.obs, obs);
	run_get(&r, &r.reward, rew);
	for (unsigned i = 0; i < F32_ENVS; i++) {
		want_rew = pd_step32((weft_u8 *)want_st, i, act[i], kf);
		pd_obs(&p, (const weft_u8 *)want_st, i, want_obs[i]);
		if (memcmp(st[i], want_st[i], sizeof st[i]) ||
		    memcmp(obs[i], want_obs[i], sizeof obs[i]) ||
		    memcmp(&rew[i], &want_rew, sizeof want_rew)) {
			if (bad++ < 4)
				tap_diag("env %u (th %a, a %a): state %a %a "
					 "(want %a %a), reward %a (%a)",
					 i, f32_angle(i), act[i], st[i][0],
					 st[i][1], want_st[i][0], want_st[i][1],
					 rew[i], want_rew);
		}
	}
	tap_ok(bad == 0,
	       "f32: one vectorised act of %u environments (angles to "
	       "3.2e7, torques to 1e9) is the f32 step's bits (%d differ)",
	       F32_ENVS, bad);
	run_close(&r);
}

/* 40 steps of act with torque 0 against 40 of the on-device policy with
 * policy = zero (the scalar step, pendulum_policy), same_step, episodes
 * of 7 steps, a few angles out of the vectorised range: every view the
 * same, byte for byte, after every step. */
static void test_f32_policy(void)
{
	static float st[F32_ENVS][2], zero[F32_ENVS];
	long long n_f32, n_f64;
	uint32_t policy;
	int same = 1, s;
	run r[2];

	for (int k = 0; k < 2; k++) {
		f32_open(&r[k], "same_step", k);
		run_get(&r[k], &r[k].state, st);
		st[4][0] = 5000.0f;
		st[70][0] = -1e6f;
		st[149][0] = 4095.0f;
		run_put(&r[k], &r[k].state, st);
		run_put(&r[k], &r[k].actions, zero);
	}
	if (weft_sim_list(r[1].sim, "policy", &policy))
		tap_bail("policy list: %s", weft_context_error(r[1].ctx));
	for (s = 1; s <= 40 && same; s++) {
		run_launch(&r[0], r[0].act);
		run_launch(&r[1], policy);
		same = f32_same(&r[0], &r[1], "act against policy", s);
	}
	tap_ok(same,
	       "f32: 40 vectorised acts (torque 0, same_step, 7-step "
	       "episodes) leave every view as the scalar policy step does");
	n_f32 = sim_launches(r[0].sim, "pendulum_act_f32");
	n_f64 = sim_launches(r[0].sim, "pendulum_act");
	tap_ok(n_f32 == 40 && n_f64 == 0,
	       "f32: the act list launched pendulum_act_f32 %lld times "
	       "(expected 40) and pendulum_act %lld times (expected 0)",
	       n_f32, n_f64);
	run_close(&r[0]);
	run_close(&r[1]);
}

/* 30 acts with the same actions (clipped ones too) on openmp and OpenCL,
 * where each environment runs the main part and then, if it must, the
 * deferred part on its own, not in blocks: next_step (environments
 * waiting to begin their next episode) and disabled (episodes stepped past
 * their truncation until reset_some), 7-step episodes, a few angles out of
 * the vectorised range; every view the same after every step. */
static void test_f32_backends(void)
{
	static const char *const modes[2] = { "next_step", "disabled" };
	static float st[F32_ENVS][2], act[F32_ENVS];

	for (int m = 0; m < 2; m++) {
		run r[2];
		int same = 1;
		uint32_t x = 12345u;

		f32_open(&r[0], modes[m], 2);
		if (!f32_open_on(&r[1], modes[m], 3, "opencl")) {
			skipped(&r[1], 1, "f32 act on OpenCL");
			run_close(&r[0]);
			continue;
		}
		for (int k = 0; k < 2; k++) {
			run_get(&r[k], &r[k].state, st);
			st[9][0] = 4200.0f;
			st[100][0] = -9000.0f;
			run_put(&r[k], &r[k].state, st);
		}
		for (int step = 1; step <= 30 && same; step++) {
			for (unsigned i = 0; i < F32_ENVS; i++) {
				x = x * 1664525u + 1013904223u;
				act[i] = (float)(int)(x >> 24) / 40.0f - 3.2f;
			}
			for (int k = 0; k < 2; k++) {
				run_put(&r[k], &r[k].actions, act);
				run_launch(&r[k], r[k].act);
			}
			same = f32_same(&r[0], &r[1], modes[m], step);
		}
		tap_ok(same,
		       "f32, %s: 30 acts on openmp (in blocks of 64) and on "
		       "OpenCL (one environment at a time) leave every view "
		       "the "
		       "same",
		       modes[m]);
		run_close(&r[0]);
		run_close(&r[1]);
	}
}

int main(void)
{
	const char *b = getenv("WEFT_BUILDDIR"),
		   *old = getenv("WEFT_MODEL_PATH");
	char path[4096];

	if (!b)
		tap_bail("WEFT_BUILDDIR is not set");
	snprintf(path, sizeof path, "%s/models/pendulum/.libs%s%s", b,
		 old ? ":" : "", old ? old : "");
	setenv("WEFT_MODEL_PATH", path, 1);
	test_spaces();
	test_gym_step();
	test_seeded();
	test_modes();
	test_f32_step();
	test_f32_policy();
	test_f32_backends();
	return tap_done();
}
