/*
 * tests/models/test-acrobot.c - the Acrobot model (models/acrobot) as an
 * environment of the protocol (weft/env.h), driven through libweft's run
 * API alone on the OpenMP backend and on OpenCL where it runs (skipped
 * with the reason where not): every autoreset mode of "act" step by step,
 * bit for bit, against a reference made of the kernels' own functions
 * (acrobot_shared.h), with episodes truncated at max_episode_steps and
 * terminated (states written into the "state" view with the first link
 * up); reset_some with masks and seeds (the same seed, the same first
 * state whatever the index); both precisions; the declared spaces and
 * defaults; and the f64 step against Gymnasium's own results (recorded
 * from Gymnasium 1.4.0 with NumPy 2.4.6 on glibc): bit for bit when the
 * step uses the C library's sin, cos and pow (acrobot-libm.c: the order
 * of every other operation is Gymnasium's), and bit for bit with the
 * model's own functions too (weft/math.h's correctly rounded sin and cos,
 * glibc's on these arguments).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weft/kernel_host.h>
#include <weft/kernel.h>
#include <weft/weft.h>

#include "acrobot-libm.h"
#include "acrobot_shared.h"
#include "env-drive.h"
#include "kernel-launches.h"
#include "tap.h"

#define SEED 7u
/* Two blocks of 64 environments and a tail: the f32 act's vectorised
 * main part and its one-by-one items (acrobot_act_f32) both run. */
#define N_ENVS	   150u
#define MAX_STEPS  9u /* episodes truncated after 9 steps */
#define RUN_STEPS  40u
#define TEST_SEED  0x0123456789abcdefull
#define OTHER_SEED 99u

static const char *const mode_names[3] = { "next_step", "same_step",
					   "disabled" };

/* ---- the run ------------------------------------------------------------ */

/* acrobot on `backend` (its plugin from this build), N_ENVS environments,
 * seed SEED, truncated after MAX_STEPS, with `sets` (NULL-terminated) on
 * top. 0 when it cannot open on a backend other than openmp (skipped()
 * reports why); bails out otherwise. */
static int run_open(run *r, const char *backend, const char *const *sets)
{
	static const char *const base[] = {
		"simulation.model=acrobot",
		"simulation.seed=7",
		"backend.threads=2",
		"output.csv=false",
		"output.summary=false",
		"output.plot=none",
		"acrobot.envs=150", /* N_ENVS */
		"acrobot.max_episode_steps=9",
		NULL,
	};
	const char *dir = getenv("WEFT_BUILDDIR");

	run_new(r, backend);
	run_setf(r, "output.directory=%s/acrobot", tap_tmpdir());
	run_backend(r, backend);
	run_setf(r, "model.plugin_path=%s/models/acrobot/.libs",
		 dir ? dir : ".");
	run_sets(r, base);
	run_sets(r, sets);
	return run_start(r);
}

/* What act and reset_some leave for the application; the state as f64
 * (f32 states widened). */
typedef struct result {
	float obs[N_ENVS][6], final_obs[N_ENVS][6];
	double state[N_ENVS][4];
	float reward[N_ENVS];
	uint8_t term[N_ENVS], trunc[N_ENVS];
} result;

static void run_state(run *r, double st[N_ENVS][4])
{
	float f[N_ENVS][4];

	if (r->f64) {
		run_get(r, &r->state, st);
		return;
	}
	run_get(r, &r->state, f);
	for (uint32_t i = 0; i < N_ENVS; i++)
		for (int k = 0; k < 4; k++)
			st[i][k] = f[i][k];
}

static void run_results(run *r, result *out)
{
	run_get(r, &r->obs, out->obs);
	run_get(r, &r->final_obs, out->final_obs);
	run_get(r, &r->reward, out->reward);
	run_get(r, &r->term, out->term);
	run_get(r, &r->trunc, out->trunc);
	run_state(r, out->state);
}

/* Environment j's state becomes (up, 0.1, 0.5, -0.5): the first link
 * pointing up (theta1 = 3, about 172 degrees), whose next step
 * terminates. */
static void run_lift(run *r, uint32_t j, double up)
{
	double st[N_ENVS][4];
	float f[N_ENVS][4];
	double v[4] = { up, 0.1, 0.5, -0.5 };

	if (r->f64) {
		run_get(r, &r->state, st);
		memcpy(st[j], v, sizeof v);
		run_put(r, &r->state, st);
		return;
	}
	run_get(r, &r->state, f);
	for (int k = 0; k < 4; k++)
		f[j][k] = (float)v[k];
	run_put(r, &r->state, f);
}

/* ---- the reference ------------------------------------------------------- */

typedef struct ref_env {
	int f64;
	acro64 d;	  /* the state, f64 */
	acro32 s;	  /* ... or f32 */
	uint32_t episode; /* of its key */
	uint32_t t;	  /* steps into it */
	uint32_t pending; /* NEXT_STEP: ended in the previous step */
	uint32_t ended;	  /* episodes ended */
	float ret, sum;	  /* the return so far, the ended ones' sum */
	uint64_t seed;	  /* its own seed, when seeded (else 0) */
	float obs[6], final_obs[6], reward;
	uint8_t term, trunc;
} ref_env;

static void ref_obs(const ref_env *e, float *o)
{
	if (e->f64)
		acro64_obs(e->d, o);
	else
		acro32_obs(e->s, o);
}

static void ref_state(const ref_env *e, double *st)
{
	st[0] = e->f64 ? e->d.s0 : e->s.s0;
	st[1] = e->f64 ? e->d.s1 : e->s.s1;
	st[2] = e->f64 ? e->d.s2 : e->s.s2;
	st[3] = e->f64 ? e->d.s3 : e->s.s3;
}

/* Episode e->episode's first state of environment i, by the kernels' own
 * draws (the setup's key, or the seed the environment was given). */
static void ref_first(uint32_t i, ref_env *e)
{
	weft_u32 book[WEFT_ENV_WORDS];

	weft_env_init(book, 1, 0, SEED, 0);
	book[WEFT_ENV_STREAM] = i;
	if (e->seed) {
		book[WEFT_ENV_KEY_LO] = (weft_u32)e->seed;
		book[WEFT_ENV_KEY_HI] = (weft_u32)(e->seed >> 32);
		book[WEFT_ENV_STREAM] = 0;
		book[WEFT_ENV_PURPOSE] = WEFT_ENV_PURPOSE_SEEDED;
	}
	book[WEFT_ENV_EPISODE] = e->episode;
	e->s = acro_reset_state(weft_env_rand(book, 1, 0, 0, 0),
				weft_env_rand(book, 1, 0, 0, 1));
	e->d = (acro64){ e->s.s0, e->s.s1, e->s.s2, e->s.s3 };
	ref_obs(e, e->obs);
}

static void ref_begin(uint32_t i, ref_env *e)
{
	e->episode++;
	e->t = 0;
	e->pending = 0;
	e->ret = 0;
	ref_first(i, e);
	e->reward = 0;
	e->term = e->trunc = 0;
}

/* One act of environment i with action a in autoreset mode m. */
static void ref_act(uint32_t i, ref_env *e, uint32_t a, weft_autoreset m)
{
	int term;

	if (m == WEFT_AUTORESET_NEXT_STEP && e->pending) {
		ref_begin(i, e);
		return;
	}
	if (e->f64) {
		e->d = acro64_step(e->d, a);
		term = acro64_terminal(e->d);
	} else {
		e->s = acro32_step(e->s, a);
		term = acro32_terminal(e->s);
	}
	e->t++;
	e->term = (uint8_t)term;
	e->trunc = e->t >= MAX_STEPS;
	e->reward = term ? 0.0f : -1.0f;
	e->ret = e->ret + e->reward;
	ref_obs(e, e->obs);
	if (e->term || e->trunc) {
		memcpy(e->final_obs, e->obs, sizeof e->obs);
		e->ended++;
		e->sum = e->sum + e->ret;
		e->ret = 0;
		if (m == WEFT_AUTORESET_SAME_STEP) {
			float r = e->reward;
			uint8_t te = e->term, tr = e->trunc;

			ref_begin(i, e);
			e->reward = r;
			e->term = te;
			e->trunc = tr;
		}
		if (m == WEFT_AUTORESET_NEXT_STEP)
			e->pending = 1;
	}
}

static void ref_init(ref_env *ref, int f64)
{
	memset(ref, 0, N_ENVS * sizeof *ref);
	for (uint32_t i = 0; i < N_ENVS; i++) {
		ref[i].f64 = f64;
		ref_first(i, &ref[i]);
	}
}

static void ref_lift(ref_env *e, double up)
{
	e->d = (acro64){ up, 0.1, 0.5, -0.5 };
	e->s = (acro32){ (float)up, 0.1f, 0.5f, -0.5f };
}

static int same6(const float *a, const float *b)
{
	return memcmp(a, b, 6 * sizeof(float)) == 0;
}

/* The run's results for environment i are the reference's, bit for bit;
 * the final observation where `final` says. */
static int matches(const result *got, uint32_t i, const ref_env *e, int final)
{
	double st[4];

	ref_state(e, st);
	return same6(got->obs[i], e->obs) && got->reward[i] == e->reward &&
	       got->term[i] == e->term && got->trunc[i] == e->trunc &&
	       (!final || same6(got->final_obs[i], e->final_obs)) &&
	       memcmp(got->state[i], st, sizeof st) == 0;
}

/* ---- the modes ----------------------------------------------------------- */

typedef struct tally {
	int steps_ok;	    /* every step as the reference */
	unsigned ends;	    /* episodes ended */
	unsigned term;	    /* ... terminated */
	unsigned trunc;	    /* ... truncated */
	unsigned restarts;  /* NEXT_STEP: steps that began an episode */
	int restart_fresh;  /* ... with reward 0, no flags, a first obs */
	int end_obs_final;  /* the ended step's obs is its final obs */
	int same_final;	    /* SAME_STEP: final_obs ended, obs fresh */
	int disabled_stays; /* DISABLED: obs stays until reset_some */
	int term_reward;    /* terminated steps have reward 0, others -1 */
} tally;

static void tally_init(tally *t)
{
	memset(t, 0, sizeof *t);
	t->steps_ok = t->restart_fresh = t->end_obs_final = 1;
	t->same_final = t->disabled_stays = t->term_reward = 1;
}

/* DISABLED: reset_some with every mask KEEP leaves everything as it is,
 * then WEFT_ENV_NEXT resets the ended ones. */
static void disabled_resets(run *r, ref_env *ref, const int *ended, tally *t)
{
	uint8_t mask[N_ENVS] = { 0 };
	result got;

	run_put(r, &r->mask, mask);
	run_launch(r, r->reset_some);
	run_results(r, &got);
	for (uint32_t i = 0; i < N_ENVS; i++)
		t->disabled_stays &= matches(&got, i, &ref[i], 1);
	for (uint32_t i = 0; i < N_ENVS; i++)
		mask[i] = ended[i] ? WEFT_ENV_NEXT : WEFT_ENV_KEEP;
	run_put(r, &r->mask, mask);
	run_launch(r, r->reset_some);
	for (uint32_t i = 0; i < N_ENVS; i++)
		if (ended[i])
			ref_begin(i, &ref[i]);
	run_results(r, &got);
	for (uint32_t i = 0; i < N_ENVS; i++)
		t->steps_ok &= matches(&got, i, &ref[i], 1);
}

/* Step k: every environment acts ((i + k) % 3); every fifth step one
 * environment first gets the first link up. */
static void mode_step(run *r, ref_env *ref, weft_autoreset m, uint32_t k,
		      tally *t)
{
	int ended[N_ENVS] = { 0 }, any = 0;
	uint8_t act[N_ENVS];
	result got;

	if (k % 5 == 2) {
		run_lift(r, k % N_ENVS, 3.0);
		ref_lift(&ref[k % N_ENVS], 3.0);
	}
	/* An angle written far out of [-pi, pi]: wrap() turns it more
	 * often than the f32 act's main part does (the after part steps
	 * it). */
	if (k % 5 == 4) {
		run_lift(r, (7u * k + 1u) % N_ENVS, 40.0);
		ref_lift(&ref[(7u * k + 1u) % N_ENVS], 40.0);
	}
	for (uint32_t i = 0; i < N_ENVS; i++)
		act[i] = (uint8_t)((i + k) % 3);
	run_put(r, &r->actions, act);
	run_launch(r, r->act);
	run_results(r, &got);
	for (uint32_t i = 0; i < N_ENVS; i++) {
		ref_env *e = &ref[i];
		int restart = m == WEFT_AUTORESET_NEXT_STEP && e->pending;

		ref_act(i, e, act[i], m);
		t->steps_ok &= matches(&got, i, e, 1);
		if (restart) {
			t->restarts++;
			t->restart_fresh &= got.reward[i] == 0 &&
					    !got.term[i] && !got.trunc[i] &&
					    e->t == 0 &&
					    same6(got.obs[i], e->obs);
			continue;
		}
		t->term_reward &= got.reward[i] == (got.term[i] ? 0.0f : -1.0f);
		if (!got.term[i] && !got.trunc[i])
			continue;
		ended[i] = any = 1;
		t->ends++;
		t->term += got.term[i];
		t->trunc += got.trunc[i];
		if (m == WEFT_AUTORESET_SAME_STEP)
			t->same_final &= !same6(got.final_obs[i], got.obs[i]) &&
					 same6(got.obs[i], e->obs);
		else
			t->end_obs_final &= same6(got.obs[i], got.final_obs[i]);
	}
	if (m == WEFT_AUTORESET_DISABLED && any)
		disabled_resets(r, ref, ended, t);
}

static int book_matches(run *r, const ref_env *ref)
{
	static uint32_t book[WEFT_ENV_WORDS * N_ENVS];
	int ok = 1;

	run_get(r, &r->book, book);
	for (uint32_t i = 0; i < N_ENVS; i++) {
		const ref_env *e = &ref[i];
		float sum, ret;

		memcpy(&sum, &book[WEFT_ENV_SUM * N_ENVS + i], 4);
		memcpy(&ret, &book[WEFT_ENV_RETURN * N_ENVS + i], 4);
		ok &= book[WEFT_ENV_EPISODE * N_ENVS + i] == e->episode &&
		      book[WEFT_ENV_T * N_ENVS + i] == e->t &&
		      book[WEFT_ENV_PENDING * N_ENVS + i] == e->pending &&
		      book[WEFT_ENV_ENDED * N_ENVS + i] == e->ended &&
		      sum == e->sum && ret == e->ret &&
		      book[WEFT_ENV_STREAM * N_ENVS + i] == i &&
		      book[WEFT_ENV_PURPOSE * N_ENVS + i] ==
			      WEFT_ENV_PURPOSE_RESET;
	}
	return ok;
}

/* The act list launched the precision's kernel for each of the
 * RUN_STEPS steps, and never the other: acrobot_act_f32 (the vectorised
 * one) with f32, acrobot_act with f64. */
static void act_kernel_launched(run *r, int f64, const char *prec,
				const char *mode)
{
	const char *want = f64 ? "acrobot_act" : "acrobot_act_f32";
	const char *other = f64 ? "acrobot_act_f32" : "acrobot_act";
	long long n_want = sim_launches(r->sim, want);
	long long n_other = sim_launches(r->sim, other);

	tap_ok(n_want == RUN_STEPS && n_other == 0,
	       "%s, %s, %s: the act list launched %s %lld times (expected "
	       "%u) and %s %lld times (expected 0)",
	       r->backend, prec, mode, want, n_want, RUN_STEPS, other, n_other);
}

static void test_mode(weft_autoreset m, const char *backend, int f64)
{
	char set[2][64];
	const char *sets[] = { set[0], set[1], NULL };
	const char *name = mode_names[m], *b = backend;
	const char *prec = f64 ? "f64" : "f32";
	static ref_env ref[N_ENVS];
	weft_env_info info = { .struct_size = sizeof info };
	tally t;
	run r;

	snprintf(set[0], sizeof set[0], "acrobot.autoreset=%s", name);
	snprintf(set[1], sizeof set[1], "acrobot.precision=%s", prec);
	if (!run_open(&r, backend, sets) &&
	    skipped(&r, m == WEFT_AUTORESET_NEXT_STEP ? 7 : 6, name))
		return;
	tap_ok(weft_sim_env(r.sim, &info) == WEFT_OK &&
		       info.autoreset == (uint32_t)m &&
		       info.num_envs == N_ENVS &&
		       info.precision == (f64 ? 64u : 32u),
	       "%s, %s, %s: weft_sim_env says autoreset %s, %u environments", b,
	       prec, name, name, N_ENVS);
	ref_init(ref, f64);
	tally_init(&t);
	for (uint32_t k = 0; k < RUN_STEPS; k++)
		mode_step(&r, ref, m, k, &t);
	tap_ok(t.steps_ok,
	       "%s, %s, %s: %u steps of act match the reference bit for bit "
	       "(obs, reward, flags, final_obs, the \"state\" view)",
	       b, prec, name, RUN_STEPS);
	tap_ok(t.term > 0 && t.trunc > 0 && t.term_reward,
	       "%s, %s, %s: %u episodes ended, %u terminated (reward 0), %u "
	       "truncated after %u steps (reward -1)",
	       b, prec, name, t.ends, t.term, t.trunc, MAX_STEPS);
	if (m == WEFT_AUTORESET_NEXT_STEP) {
		tap_ok(t.end_obs_final && t.ends > 0,
		       "%s, %s, next_step: the ended step's obs is its final "
		       "observation",
		       b, prec);
		tap_ok(t.restart_fresh && t.restarts > 0,
		       "%s, %s, next_step: the step after an end (%u of them) "
		       "has reward 0, no flags and the next episode's first "
		       "observation",
		       b, prec, t.restarts);
	}
	if (m == WEFT_AUTORESET_SAME_STEP)
		tap_ok(t.same_final && t.ends > 0,
		       "%s, %s, same_step: final_obs holds the ended episode's "
		       "last observation, obs the next episode's first",
		       b, prec);
	if (m == WEFT_AUTORESET_DISABLED)
		tap_ok(t.end_obs_final && t.disabled_stays && t.ends > 0,
		       "%s, %s, disabled: obs keeps the ended state until "
		       "reset_some",
		       b, prec);
	tap_ok(book_matches(&r, ref),
	       "%s, %s, %s: env_book holds each environment's episode, steps, "
	       "pending reset, return, episodes ended and their returns",
	       b, prec, name);
	act_kernel_launched(&r, f64, prec, name);
	run_close(&r);
}

/* ---- reset_some with seeds ----------------------------------------------- */

static void test_seeded(const char *backend)
{
	uint8_t mask[N_ENVS] = { WEFT_ENV_SEEDED, WEFT_ENV_KEEP,
				 WEFT_ENV_KEEP,	  WEFT_ENV_SEEDED,
				 WEFT_ENV_SEEDED, WEFT_ENV_KEEP };
	uint64_t seeds[N_ENVS] = { TEST_SEED, 0, 0, TEST_SEED, OTHER_SEED, 0 };
	ref_env want = { .f64 = 1, .seed = TEST_SEED, .episode = (uint32_t)-1 };
	result before, got, next;
	float first[6];
	run r;

	if (!run_open(&r, backend, NULL) &&
	    skipped(&r, 3, "reset_some with seeds"))
		return;
	run_results(&r, &before);
	run_put(&r, &r.mask, mask);
	run_put(&r, &r.seed, seeds);
	run_launch(&r, r.reset_some);
	run_results(&r, &got);
	ref_begin(0, &want);
	memcpy(first, want.obs, sizeof first);
	tap_ok(same6(got.obs[0], got.obs[3]) && same6(got.obs[0], first) &&
		       memcmp(got.state[0], got.state[3],
			      sizeof got.state[0]) == 0 &&
		       !same6(got.obs[0], got.obs[4]),
	       "%s: reset_some WEFT_ENV_SEEDED: environments 0 and 3 with the "
	       "same seed begin from the same state, the seed's episode 0; "
	       "environment 4's seed differs",
	       backend);
	tap_ok(got.reward[0] == 0 && !got.term[3] && !got.trunc[4] &&
		       same6(got.obs[1], before.obs[1]) &&
		       same6(got.obs[5], before.obs[5]),
	       "  ...with reward 0 and no flags; WEFT_ENV_KEEP keeps the "
	       "others' observations");
	memset(mask, WEFT_ENV_KEEP, sizeof mask);
	mask[0] = mask[3] = WEFT_ENV_NEXT;
	run_put(&r, &r.mask, mask);
	run_launch(&r, r.reset_some);
	run_results(&r, &next);
	ref_begin(0, &want);
	tap_ok(same6(next.obs[0], next.obs[3]) &&
		       same6(next.obs[0], want.obs) &&
		       !same6(next.obs[0], first),
	       "%s: reset_some WEFT_ENV_NEXT after a seed: the seed's "
	       "episode 1, the same in both",
	       backend);
	run_close(&r);
}

/* ---- defaults and spaces ------------------------------------------------- */

static void test_default_and_spaces(void)
{
	weft_env_info info = { .struct_size = sizeof info };
	const weft_env_space *o = &info.observation, *a = &info.action;
	double hi[6] = { 1, 1, 1, 1, (float)ACRO_MAX_V1, (float)ACRO_MAX_V2 };
	int bounds = 1;
	result got;
	run r;

	run_open(&r, "openmp", NULL);
	if (!tap_ok(weft_sim_env(r.sim, &info) == WEFT_OK,
		    "weft_sim_env describes the acrobot run")) {
		tap_diag("%s", weft_context_error(r.ctx));
		tap_skip(4, "no environment information");
		run_close(&r);
		return;
	}
	tap_ok(info.autoreset == WEFT_AUTORESET_NEXT_STEP &&
		       info.precision == 64 &&
		       r.state.dtype == WEFT_DTYPE_F64 && r.state.ndim == 2 &&
		       r.state.shape[0] == N_ENVS && r.state.shape[1] == 4,
	       "defaults: autoreset next_step, precision f64, the \"state\" "
	       "view f64 [%u][4]",
	       N_ENVS);
	for (int k = 0; o->low && o->high && k < 6; k++)
		bounds &= o->high[k] == hi[k] && o->low[k] == -hi[k];
	tap_ok(o->kind == WEFT_SPACE_BOX && o->dtype == WEFT_DTYPE_F32 &&
		       o->ndim == 1 && o->shape[0] == 6 && o->low && o->high &&
		       bounds,
	       "observation: Box f32 [6], high (1, 1, 1, 1, 4 pi, 9 pi) as "
	       "float32, low = -high");
	tap_ok(a->kind == WEFT_SPACE_DISCRETE && a->dtype == WEFT_DTYPE_U8 &&
		       a->ndim == 0 && a->n == 3 && a->start == 0,
	       "action: Discrete(3) held as u8");
	run_results(&r, &got);
	bounds = 1;
	for (uint32_t i = 0; i < N_ENVS; i++)
		for (int k = 0; k < 4; k++)
			bounds &= got.state[i][k] >= -0.1 &&
				  got.state[i][k] <= 0.1 &&
				  (double)(float)got.state[i][k] ==
					  got.state[i][k];
	tap_ok(bounds, "the first states lie in [-0.1, 0.1] and are float32 "
		       "values, as Gymnasium's reset makes them");
	run_close(&r);
}

/* ---- Gymnasium's own results --------------------------------------------- */

/* AcrobotEnv.step from `state` with `action`, as Gymnasium 1.4.0 computed
 * it (NumPy 2.4.6, glibc 2.36, x86-64): the next state, the observation
 * and terminated, as bits. */
static const struct gym_case {
	uint64_t state[4];
	unsigned action;
	uint64_t next[4];
	uint32_t obs[6];
	int terminated;
} gym_cases[] = {
	{ { 0x3fc7e25e442ac981u, 0xbfe0a5058c0bf0c2u, 0xbfe61019c64b2dd2u,
	    0x3ff806c6dd323ebau },
	  0,
	  { 0x3fa27c64a2ee0038u, 0xbfc908f37c161f6au, 0xbfe8cb96a2c012f8u,
	    0x3ffaa6adb2fe4a3du },
	  { 0x3f7fd54au, 0x3d13daecu, 0x3f7b1e7eu, 0xbe470158u, 0xbf465cb5u,
	    0x3fd5356eu },
	  0 },
	{ { 0x3fe9ac2fd52a73a3u, 0x3fd2dbababfd1c5cu, 0x3fe89a5653476ef3u,
	    0xbfe3400b3e33c980u },
	  2,
	  { 0x3feb4efa7821527eu, 0x3fd0c4416c857babu, 0xbfd0fe50555db2cau,
	    0x3fd25f8c9f8945d8u },
	  { 0x3f284d74u, 0x3f40e64cu, 0x3f7743e0u, 0x3e849a9bu, 0xbe87f283u,
	    0x3e92fc65u },
	  0 },
	{ { 0xbfa2a3cd8e064fa9u, 0x3fc3513e9857372eu, 0x3fb5df7af1e3add0u,
	    0xbfc604d8596f9cbfu },
	  2,
	  { 0xbf9aea26243fa1f8u, 0x3fc119d32ca47b90u, 0x3f8b37e0ad118cc8u,
	    0x3f6a582186a1bfc0u },
	  { 0x3f7fe95du, 0xbcd74ad8u, 0x3f7db7fdu, 0x3e086681u, 0x3c59bf05u,
	    0x3b52c10cu },
	  0 },
	{ { 0xbfd298de9991f7c7u, 0xbfe5f05e93aa43aau, 0x3ff5e55256f5a4e7u,
	    0xbff10cfc178a54b5u },
	  2,
	  { 0xbf907590da3fe3d0u, 0xbfe9eca81b7d665du, 0x3ff50344d774eb85u,
	    0xbfbc2c4c96b92b30u },
	  { 0x3f7ff789u, 0xbc83ab13u, 0x3f307c62u, 0xbf397127u, 0x3fa81a27u,
	    0xbde16265u },
	  0 },
	{ { 0x3fc70e453149e358u, 0xbfe2d835a267c9d7u, 0xc009cb4814416829u,
	    0x40119eef1b351e82u },
	  1,
	  { 0xbfde1ef7dd88f44eu, 0x3fd6235111499cc2u, 0xc008c647aa2c7862u,
	    0x4012284dd3599960u },
	  { 0x3f642acfu, 0xbee82b82u, 0x3f70d63au, 0x3ead97ccu, 0xc046323du,
	    0x4091426fu },
	  0 },
	{ { 0x3fc93ed79d949451u, 0xbfe6da09bd2f2a89u, 0x3fed6762c2971e63u,
	    0xbff19dbf1c62ca56u },
	  0,
	  { 0x3fd67cf9146e3526u, 0xbfebd1853d558812u, 0x3fe2f3272e313a48u,
	    0xbfdac3d4de82ca82u },
	  { 0x3f705bb6u, 0x3eb039e5u, 0x3f253518u, 0xbf438e94u, 0x3f179939u,
	    0xbed61ea7u },
	  0 },
	{ { 0x3fe4fc18d31a300du, 0xbfdc836dc1f26867u, 0x3fda5414174e3c4au,
	    0xbff7dc0ff221537fu },
	  2,
	  { 0x3fe4716b64d91297u, 0xbfe35e9ce6e5ef93u, 0xbfe27bdaba2a688cu,
	    0xbfb778ba7484a010u },
	  { 0x3f4d8350u, 0x3f18a512u, 0x3f528456u, 0xbf11aa88u, 0xbf13ded6u,
	    0xbdbbc5d4u },
	  0 },
	{ { 0x3fe372e021d90fd9u, 0xbfe8faac9dd187d5u, 0xbff1cfb19ce84339u,
	    0x3fec45c18aacae2eu },
	  1,
	  { 0x3fd400645d1e4b9cu, 0xbfdf12681fd4f347u, 0xbffc8d6ef2d55899u,
	    0x400015153a07cc93u },
	  { 0x3f73997au, 0x3e9d6b91u, 0x3f626ad2u, 0xbeeeeca7u, 0xbfe46b78u,
	    0x4000a8aau },
	  0 },
	{ { 0xbfa09eb466d1aeb4u, 0x3ff037022ec601eeu, 0x3fe5d3d389ed0cbcu,
	    0xbff9e2f4a094438eu },
	  0,
	  { 0x3fc06021ee6caa6au, 0x3fe285a36541b941u, 0x3feccd5ba2b1c50fu,
	    0xc00573fa319f179du },
	  { 0x3f7de86au, 0x3e02a5a7u, 0x3f564d00u, 0x3f0c0a37u, 0x3f666addu,
	    0xc02b9fd2u },
	  0 },
	{ { 0x3f90d523358bd797u, 0xbfc31bb8e602b409u, 0xbfc2fe85f5d7dfd6u,
	    0x3fe90315fd4af194u },
	  0,
	  { 0xbf65f62e1656f740u, 0xbf90e5245d683af8u, 0xbfa1ac53481336aeu,
	    0x3fe0a410289bc137u },
	  { 0x3f7fffc4u, 0xbb2fb163u, 0x3f7ff715u, 0xbc872791u, 0xbd0d629au,
	    0x3f052081u },
	  0 },
	{ { 0x4008000000000000u, 0x3fb999999999999au, 0x3fe0000000000000u,
	    0xbfe0000000000000u },
	  2,
	  { 0x4008911314683e3au, 0x3fab85b862fc04e5u, 0x3fccd0d459fcfe66u,
	    0x3f91ebac9fd88780u },
	  { 0xbf7f5c05u, 0x3d90c94eu, 0x3f7fa156u, 0x3d5c129fu, 0x3e6686a3u,
	    0x3c8f5d65u },
	  1 },
	{ { 0x4008cccccccccccdu, 0x4008cccccccccccdu, 0x4029000000000000u,
	    0x403c333333333333u },
	  2,
	  { 0x400802fe5fda9fe3u, 0x3f9c4d531d0e7600u, 0x40218e3aa96bb67eu,
	    0x40370646630a4a1au },
	  { 0xbf7d7d99u, 0x3e0f065fu, 0x3f7fe6f8u, 0x3ce26338u, 0x410c71d5u,
	    0x41b83233u },
	  1 },
	{ { 0xc008cccccccccccdu, 0xc008cccccccccccdu, 0xc029000000000000u,
	    0xc03c333333333333u },
	  0,
	  { 0xc00802fe5fda9fe3u, 0xbf9c4d531d0e7600u, 0xc0218e3aa96bb67eu,
	    0xc0370646630a4a1au },
	  { 0xbf7d7d99u, 0xbe0f065fu, 0x3f7fe6f8u, 0xbce26338u, 0xc10c71d5u,
	    0xc1b83233u },
	  1 },
};

#define N_GYM (sizeof gym_cases / sizeof gym_cases[0])

static double bits64(uint64_t u)
{
	double d;

	memcpy(&d, &u, sizeof d);
	return d;
}

static void test_gymnasium(void)
{
	int libm_ok = 1, weft_ok = 1, terms = 0;
	size_t same = 0;
	double worst = 0;

	for (size_t c = 0; c < N_GYM; c++) {
		const struct gym_case *g = &gym_cases[c];
		double s[4], out[4];
		float obs[6];
		int term;
		acro64 x, n;

		for (int k = 0; k < 4; k++)
			s[k] = bits64(g->state[k]);
		acrobot_libm_step(s, g->action, out, obs, &term);
		libm_ok &= memcmp(out, g->next, sizeof out) == 0 &&
			   memcmp(obs, g->obs, sizeof obs) == 0 &&
			   term == g->terminated;
		x = (acro64){ s[0], s[1], s[2], s[3] };
		n = acro64_step(x, g->action);
		out[0] = n.s0;
		out[1] = n.s1;
		out[2] = n.s2;
		out[3] = n.s3;
		acro64_obs(n, obs);
		same += memcmp(out, g->next, sizeof out) == 0 &&
			memcmp(obs, g->obs, sizeof obs) == 0;
		for (int k = 0; k < 4; k++) {
			double want = bits64(g->next[k]);
			double e = fabs(out[k] - want) /
				   (fabs(want) > 1 ? fabs(want) : 1);

			worst = e > worst ? e : worst;
		}
		weft_ok &= acro64_terminal(n) == g->terminated;
		terms += g->terminated;
	}
	tap_ok(libm_ok && terms > 0,
	       "the f64 step with the C library's sin, cos and pow is "
	       "Gymnasium's bit for bit on %zu recorded steps (%d terminal; "
	       "wrap and bound included)",
	       N_GYM, terms);
	tap_ok(weft_ok && same == N_GYM,
	       "with weft/math.h's correctly rounded sin and cos: %zu of %zu "
	       "steps Gymnasium's bit for bit (state and observation; the "
	       "largest difference %.2g relative), the same terminations",
	       same, N_GYM, worst);
}

/* precision = f32's step (its own arithmetic: fused, one division per
 * derivative, weft_sincosf_fma) from each recorded state rounded to
 * float32, against the f64 step from the same state: within 5e-6
 * relative, the same terminations (the two recorded states at the
 * velocity bounds, 4 pi and 9 pi, take the Runge-Kutta stages far and
 * lose most: 1.8e-6, as the f32 step before its fused form did). A wrong
 * constant or term in the derivative is off by far more. */
static void test_f32_step(void)
{
	double worst = 0;
	int term_ok = 1;

	for (size_t c = 0; c < N_GYM; c++) {
		const struct gym_case *g = &gym_cases[c];
		acro32 x;
		acro64 w, n64;
		acro32 n32;
		double got[4], want[4];

		x = (acro32){ (float)bits64(g->state[0]),
			      (float)bits64(g->state[1]),
			      (float)bits64(g->state[2]),
			      (float)bits64(g->state[3]) };
		w = (acro64){ x.s0, x.s1, x.s2, x.s3 };
		n32 = acro32_step(x, g->action);
		n64 = acro64_step(w, g->action);
		got[0] = n32.s0, got[1] = n32.s1, got[2] = n32.s2;
		got[3] = n32.s3;
		want[0] = n64.s0, want[1] = n64.s1, want[2] = n64.s2;
		want[3] = n64.s3;
		for (int k = 0; k < 4; k++) {
			double e = fabs(got[k] - want[k]) /
				   (fabs(want[k]) > 1 ? fabs(want[k]) : 1);

			worst = e > worst ? e : worst;
		}
		term_ok &= acro32_terminal(n32) == acro64_terminal(n64);
	}
	tap_ok(worst <= 5e-6 && term_ok,
	       "precision = f32: one step from each of the %zu recorded states "
	       "is the f64 step's within %.2g relative (at most 5e-6), the "
	       "same terminations",
	       N_GYM, worst);
}

int main(void)
{
	static const char *const backends[] = { "openmp", "opencl" };

	test_default_and_spaces();
	test_gymnasium();
	test_f32_step();
	for (size_t b = 0; b < sizeof backends / sizeof backends[0]; b++) {
		test_mode(WEFT_AUTORESET_NEXT_STEP, backends[b], 1);
		test_mode(WEFT_AUTORESET_SAME_STEP, backends[b], 1);
		test_mode(WEFT_AUTORESET_DISABLED, backends[b], 1);
		test_mode(WEFT_AUTORESET_NEXT_STEP, backends[b], 0);
		test_mode(WEFT_AUTORESET_SAME_STEP, backends[b], 0);
		test_seeded(backends[b]);
	}
	return tap_done();
}
