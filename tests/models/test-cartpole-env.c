/*
 * tests/models/test-cartpole-env.c - the CartPole model as an environment
 * of the protocol (weft/env.h), driven through libweft's run API alone
 * (weft_sim_open, views and launch lists by name) on the OpenMP backend
 * and on OpenCL where it runs (skipped with the reason where not):
 * every autoreset mode of "act" (next_step, same_step, disabled) step by
 * step against a reference made of the kernels' own functions (the
 * dynamics, the reset draw: cartpole_shared.h), reset_some with its mask
 * and seeds, the "state" list and view, the bookkeeping buffer and the
 * declared spaces.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weft/weft.h>

#include "cartpole.h"
#include "env-drive.h"
#include "tap.h"

#define SEED	   7u
#define N_ENVS	   6u
#define MAX_STEPS  9u /* some episodes are truncated, some terminated */
#define RUN_STEPS  60u
#define TEST_SEED  0x0123456789abcdefull
#define OTHER_SEED 99u

static const char *const mode_names[3] = { "next_step", "same_step",
					   "disabled" };

/* ---- the run ------------------------------------------------------------ */

/* cartpole on `backend` (its plugin from this build), N_ENVS
 * environments, seed SEED, truncated after MAX_STEPS, with `sets`
 * (NULL-terminated) on top; its views and lists (the model's "state" list
 * too). 0 when it cannot open on a backend other than openmp (skipped()
 * reports why); bails out otherwise. */
static int run_open(run *r, const char *backend, const char *const *sets)
{
	static const char *const base[] = {
		"simulation.model=cartpole",
		"simulation.seed=7",
		"backend.threads=2",
		"output.csv=false",
		"output.summary=false",
		"output.plot=none",
		"cartpole.envs=6",
		"cartpole.max_episode_steps=9",
		NULL,
	};

	run_new(r, backend);
	run_setf(r, "output.directory=%s/env", tap_tmpdir());
	run_backend(r, backend);
	run_sets(r, base);
	run_sets(r, sets);
	if (!run_start(r))
		return 0;
	if (weft_sim_list(r->sim, "state", &r->pack_state))
		tap_bail("launch lists: %s", weft_context_error(r->ctx));
	return 1;
}

/* What act and reset_some leave for the application. */
typedef struct result {
	float obs[N_ENVS][4], final_obs[N_ENVS][4], state[N_ENVS][4];
	float reward[N_ENVS];
	uint8_t term[N_ENVS], trunc[N_ENVS];
} result;

/* The results, and the state packed by the "state" list. */
static void run_results(run *r, result *out)
{
	run_get(r, &r->obs, out->obs);
	run_get(r, &r->final_obs, out->final_obs);
	run_get(r, &r->reward, out->reward);
	run_get(r, &r->term, out->term);
	run_get(r, &r->trunc, out->trunc);
	run_launch(r, r->pack_state);
	run_get(r, &r->state, out->state);
}

/* ---- the reference ------------------------------------------------------- */

typedef struct ref_env {
	cartpole_obs s;	  /* the state */
	uint32_t episode; /* of its key */
	uint32_t t;	  /* steps into it */
	uint32_t pending; /* NEXT_STEP: ended in the previous step */
	uint32_t ended;	  /* episodes ended */
	float sum;	  /* their returns, added as env.wk adds them */
	uint64_t seed;	  /* its own seed, when seeded (else 0) */
	float obs[4], final_obs[4], reward;
	uint8_t term, trunc;
} ref_env;

static void put4(float *o, cartpole_obs s)
{
	o[0] = s.x;
	o[1] = s.x_dot;
	o[2] = s.theta;
	o[3] = s.theta_dot;
}

/* Episode e's first state of environment i, by the kernels' own draw
 * (the setup's key, or the seed the environment was given). */
static cartpole_obs ref_first(uint32_t i, const ref_env *e)
{
	weft_u32 keys[CP_KEY_ARRAYS] = { SEED, 0u, i, CP_PURPOSE_RESET };

	if (e->seed) {
		keys[CP_KEY_LO] = (weft_u32)e->seed;
		keys[CP_KEY_HI] = (weft_u32)(e->seed >> 32);
		keys[CP_KEY_STREAM] = 0u;
		keys[CP_KEY_PURPOSE] = CP_PURPOSE_SEEDED;
	}
	return cp_reset_state(cp_reset_draw(keys, 1, 0, e->episode));
}

/* Environment i begins its next episode: reward 0, no flags. */
static void ref_begin(uint32_t i, ref_env *e)
{
	e->episode++;
	e->t = 0;
	e->pending = 0;
	e->s = ref_first(i, e);
	put4(e->obs, e->s);
	e->reward = 0;
	e->term = e->trunc = 0;
}

/* One act of environment i pushing right, in autoreset mode m. */
static void ref_act(uint32_t i, ref_env *e, weft_autoreset m)
{
	cartpole_obs s;
	uint8_t term, trunc;

	if (m == WEFT_AUTORESET_NEXT_STEP && e->pending) {
		ref_begin(i, e);
		return;
	}
	s = cp_dynamics(e->s, 1);
	e->t++;
	term = (uint8_t)cp_terminated(s);
	trunc = e->t >= MAX_STEPS;
	e->s = s;
	put4(e->obs, s);
	if (term || trunc) {
		put4(e->final_obs, s);
		e->ended++;
		e->sum = e->sum + (float)e->t;
		if (m == WEFT_AUTORESET_SAME_STEP)
			ref_begin(i, e);
		if (m == WEFT_AUTORESET_NEXT_STEP)
			e->pending = 1;
	}
	e->reward = 1;
	e->term = term;
	e->trunc = trunc;
}

/* The reference at setup. */
static void ref_init(ref_env *ref)
{
	memset(ref, 0, N_ENVS * sizeof *ref);
	for (uint32_t i = 0; i < N_ENVS; i++) {
		ref[i].s = ref_first(i, &ref[i]);
		put4(ref[i].obs, ref[i].s);
	}
}

static int same4(const float *a, const float *b)
{
	return memcmp(a, b, 4 * sizeof(float)) == 0;
}

/* The run's results for environment i are the reference's; the final
 * observation is compared where `final` says. */
static int matches(const result *got, uint32_t i, const ref_env *e, int final)
{
	return same4(got->obs[i], e->obs) && got->reward[i] == e->reward &&
	       got->term[i] == e->term && got->trunc[i] == e->trunc &&
	       (!final || same4(got->final_obs[i], e->final_obs)) &&
	       same4(got->state[i], e->obs);
}

/* ---- the modes ----------------------------------------------------------- */

/* What a mode's run saw, for the checks. */
typedef struct tally {
	int steps_ok;	    /* every step as the reference */
	unsigned ends;	    /* episodes ended */
	unsigned term;	    /* ... terminated */
	unsigned trunc;	    /* ... truncated */
	unsigned restarts;  /* NEXT_STEP: steps that began an episode */
	int restart_fresh;  /* ... with reward 0, no flags, a first obs */
	int end_obs_final;  /* the ended step's obs is the ended state */
	int same_final;	    /* SAME_STEP: final_obs ended, obs fresh */
	int disabled_stays; /* DISABLED: obs stays until reset_some */
} tally;

static void tally_init(tally *t)
{
	memset(t, 0, sizeof *t);
	t->steps_ok = t->restart_fresh = t->end_obs_final = 1;
	t->same_final = t->disabled_stays = 1;
}

/* DISABLED: reset_some with every mask KEEP leaves every observation as
 * it is, then WEFT_ENV_NEXT resets the ended ones. */
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

/* One act of every environment, checked against the reference. */
static void mode_step(run *r, ref_env *ref, weft_autoreset m, tally *t)
{
	int ended[N_ENVS] = { 0 }, any = 0;
	uint8_t right[N_ENVS];
	result got;

	memset(right, 1, sizeof right);
	run_put(r, &r->actions, right);
	run_launch(r, r->act);
	run_results(r, &got);
	for (uint32_t i = 0; i < N_ENVS; i++) {
		ref_env *e = &ref[i];
		int restart = m == WEFT_AUTORESET_NEXT_STEP && e->pending;
		cartpole_obs before = e->s;

		ref_act(i, e, m);
		t->steps_ok &= matches(&got, i, e, 1);
		if (restart) {
			t->restarts++;
			t->restart_fresh &= got.reward[i] == 0 &&
					    !got.term[i] && !got.trunc[i] &&
					    e->t == 0 &&
					    same4(got.obs[i], e->obs);
			continue;
		}
		if (!got.term[i] && !got.trunc[i])
			continue;
		ended[i] = any = 1;
		t->ends++;
		t->term += got.term[i];
		t->trunc += got.trunc[i];
		if (m == WEFT_AUTORESET_SAME_STEP) {
			float s[4];
			put4(s, cp_dynamics(before, 1));
			t->same_final &= same4(got.final_obs[i], s) &&
					 !same4(got.obs[i], s) &&
					 same4(got.obs[i], e->obs);
		} else
			t->end_obs_final &= same4(got.obs[i], got.state[i]) &&
					    same4(got.obs[i], e->final_obs);
	}
	if (m == WEFT_AUTORESET_DISABLED && any)
		disabled_resets(r, ref, ended, t);
}

/* The bookkeeping buffer holds what the reference counted. */
static int book_matches(run *r, const ref_env *ref, weft_autoreset m)
{
	static uint32_t book[WEFT_ENV_WORDS * N_ENVS];
	int ok = 1;

	run_get(r, &r->book, book);
	for (uint32_t i = 0; i < N_ENVS; i++) {
		const ref_env *e = &ref[i];
		float sum;

		memcpy(&sum, &book[WEFT_ENV_SUM * N_ENVS + i], 4);
		ok &= book[WEFT_ENV_EPISODE * N_ENVS + i] == e->episode &&
		      book[WEFT_ENV_T * N_ENVS + i] == e->t &&
		      book[WEFT_ENV_PENDING * N_ENVS + i] == e->pending &&
		      book[WEFT_ENV_ENDED * N_ENVS + i] == e->ended &&
		      sum == e->sum &&
		      book[WEFT_ENV_STREAM * N_ENVS + i] == i &&
		      book[WEFT_ENV_PURPOSE * N_ENVS + i] == CP_PURPOSE_RESET;
	}
	(void)m;
	return ok;
}

static void test_mode(weft_autoreset m, const char *backend)
{
	char set[64];
	const char *sets[] = { set, NULL };
	const char *name = mode_names[m], *b = backend;
	static ref_env ref[N_ENVS];
	weft_env_info info = { .struct_size = sizeof info };
	tally t;
	run r;

	snprintf(set, sizeof set, "cartpole.autoreset=%s", name);
	if (!run_open(&r, backend, sets) &&
	    skipped(&r, m == WEFT_AUTORESET_NEXT_STEP ? 6 : 5, name))
		return;
	tap_ok(weft_sim_env(r.sim, &info) == WEFT_OK &&
		       info.autoreset == (uint32_t)m && info.num_envs == N_ENVS,
	       "%s, %s: weft_sim_env says autoreset %s, %u environments", b,
	       name, name, N_ENVS);
	ref_init(ref);
	tally_init(&t);
	for (uint32_t k = 0; k < RUN_STEPS; k++)
		mode_step(&r, ref, m, &t);
	tap_ok(t.steps_ok,
	       "%s, %s: %u steps of act match the reference (obs, reward, "
	       "flags, final_obs, the \"state\" view)",
	       b, name, RUN_STEPS);
	tap_ok(t.term > 0 && t.trunc > 0,
	       "%s, %s: %u episodes ended, %u terminated, %u truncated", b,
	       name, t.ends, t.term, t.trunc);
	if (m == WEFT_AUTORESET_NEXT_STEP) {
		tap_ok(t.end_obs_final && t.ends > 0,
		       "%s, next_step: the ended step's obs is the final state",
		       b);
		tap_ok(t.restart_fresh && t.restarts > 0,
		       "%s, next_step: the step after an end (%u of them) has "
		       "reward 0, no flags and the next episode's first "
		       "observation",
		       b, t.restarts);
	}
	if (m == WEFT_AUTORESET_SAME_STEP)
		tap_ok(t.same_final && t.ends > 0,
		       "%s, same_step: final_obs holds the ended state and obs "
		       "the next episode's first",
		       b);
	if (m == WEFT_AUTORESET_DISABLED)
		tap_ok(t.end_obs_final && t.disabled_stays && t.ends > 0,
		       "%s, disabled: obs keeps the ended state until "
		       "reset_some",
		       b);
	tap_ok(book_matches(&r, ref, m),
	       "%s, %s: env_book holds each environment's episode, steps, "
	       "pending reset, episodes ended and their returns",
	       b, name);
	run_close(&r);
}

/* ---- reset_some with seeds, the default, the spaces, f64 ----------------- */

static void test_seeded(const char *backend)
{
	uint8_t mask[N_ENVS] = { WEFT_ENV_SEEDED, WEFT_ENV_KEEP,
				 WEFT_ENV_KEEP,	  WEFT_ENV_SEEDED,
				 WEFT_ENV_SEEDED, WEFT_ENV_KEEP };
	uint64_t seeds[N_ENVS] = { TEST_SEED, 0, 0, TEST_SEED, OTHER_SEED, 0 };
	static uint32_t book[WEFT_ENV_WORDS * N_ENVS];
	ref_env want = { .seed = TEST_SEED, .episode = (uint32_t)-1 };
	result before, got, next;
	float first[4];
	int keys_ok = 1;
	run r;

	if (!run_open(&r, backend, NULL) &&
	    skipped(&r, 4, "reset_some with seeds"))
		return;
	run_results(&r, &before);
	run_put(&r, &r.mask, mask);
	run_put(&r, &r.seed, seeds);
	run_launch(&r, r.reset_some);
	run_results(&r, &got);
	ref_begin(0, &want);
	memcpy(first, want.obs, sizeof first);
	tap_ok(same4(got.obs[0], got.obs[3]) && same4(got.obs[0], first) &&
		       !same4(got.obs[0], got.obs[4]),
	       "%s: reset_some WEFT_ENV_SEEDED: environments 0 and 3 with the "
	       "same seed begin from the same observation, the seed's "
	       "episode 0; environment 4's seed differs",
	       backend);
	tap_ok(got.reward[0] == 0 && !got.term[3] && !got.trunc[4] &&
		       same4(got.obs[1], before.obs[1]) &&
		       same4(got.obs[5], before.obs[5]),
	       "  ...with reward 0 and no flags; WEFT_ENV_KEEP keeps the "
	       "others' observations");
	run_get(&r, &r.book, book);
	for (uint32_t i = 0; i < N_ENVS; i++)
		if (mask[i] == WEFT_ENV_SEEDED)
			keys_ok &= book[WEFT_ENV_KEY_LO * N_ENVS + i] ==
					   (uint32_t)seeds[i] &&
				   book[WEFT_ENV_KEY_HI * N_ENVS + i] ==
					   (uint32_t)(seeds[i] >> 32) &&
				   book[WEFT_ENV_STREAM * N_ENVS + i] == 0 &&
				   book[WEFT_ENV_PURPOSE * N_ENVS + i] ==
					   WEFT_ENV_PURPOSE_SEEDED &&
				   book[WEFT_ENV_EPISODE * N_ENVS + i] == 0;
	tap_ok(keys_ok, "  ...their keys are (seed; 0, %u), episode 0",
	       WEFT_ENV_PURPOSE_SEEDED);
	memset(mask, WEFT_ENV_KEEP, sizeof mask);
	mask[0] = mask[3] = WEFT_ENV_NEXT;
	run_put(&r, &r.mask, mask);
	run_launch(&r, r.reset_some);
	run_results(&r, &next);
	ref_begin(0, &want);
	tap_ok(same4(next.obs[0], next.obs[3]) &&
		       same4(next.obs[0], want.obs) &&
		       !same4(next.obs[0], first),
	       "%s: reset_some WEFT_ENV_NEXT after a seed: the seed's "
	       "episode 1, the same in both",
	       backend);
	run_close(&r);
}

/* The default mode is CartPole's own (same_step), and the spaces are
 * Gymnasium's. */
static void test_default_and_spaces(void)
{
	weft_env_info info = { .struct_size = sizeof info };
	const weft_env_space *o = &info.observation, *a = &info.action;
	run r;

	run_open(&r, "openmp", NULL);
	if (!tap_ok(weft_sim_env(r.sim, &info) == WEFT_OK,
		    "weft_sim_env describes the cartpole run")) {
		tap_diag("%s", weft_context_error(r.ctx));
		tap_skip(3, "no environment information");
		run_close(&r);
		return;
	}
	tap_ok(info.autoreset == WEFT_AUTORESET_SAME_STEP &&
		       info.precision == 32,
	       "the default autoreset mode is same_step, the default "
	       "precision f32");
	tap_ok(o->kind == WEFT_SPACE_BOX && o->dtype == WEFT_DTYPE_F32 &&
		       o->ndim == 1 && o->shape[0] == 4 && o->low && o->high &&
		       o->high[0] == (double)4.8f && o->high[1] == INFINITY &&
		       o->high[2] == (double)(float)0.41887902047863906 &&
		       o->high[3] == INFINITY && o->low[0] == -o->high[0] &&
		       o->low[1] == -INFINITY && o->low[2] == -o->high[2] &&
		       o->low[3] == -INFINITY,
	       "observation: Box f32 [4], high (4.8, inf, 0.41887903, inf) "
	       "as float32, low = -high");
	tap_ok(a->kind == WEFT_SPACE_DISCRETE && a->dtype == WEFT_DTYPE_U8 &&
		       a->ndim == 0 && a->n == 2 && a->start == 0,
	       "action: Discrete(2) held as u8");
	run_close(&r);
}

/* With precision = f64 the "state" view is f64 [n][4], the binary64
 * state, whose float32 rounding is the observation. */
static void test_state_f64(const char *backend)
{
	static const char *const sets[] = { "cartpole.precision=f64", NULL };
	double state[N_ENVS][4];
	int ok = 1;
	result got;
	run r;

	if (!run_open(&r, backend, sets) && skipped(&r, 2, "precision f64"))
		return;
	tap_ok(r.state.dtype == WEFT_DTYPE_F64 && r.state.ndim == 2 &&
		       r.state.shape[0] == N_ENVS && r.state.shape[1] == 4,
	       "%s, precision f64: the \"state\" view is f64 [%u][4]", backend,
	       N_ENVS);
	for (int k = 0; k < 5; k++) {
		uint8_t right[N_ENVS];

		memset(right, 1, sizeof right);
		run_put(&r, &r.actions, right);
		run_launch(&r, r.act);
	}
	run_get(&r, &r.obs, got.obs);
	run_launch(&r, r.pack_state);
	run_get(&r, &r.state, state);
	for (uint32_t i = 0; i < N_ENVS; i++)
		for (int k = 0; k < 4; k++)
			ok &= (float)state[i][k] == got.obs[i][k];
	tap_ok(ok, "  ...and after 5 steps its values round to the "
		   "observations");
	run_close(&r);
}

int main(void)
{
	static const char *const backends[] = { "openmp", "opencl" };

	test_default_and_spaces();
	for (size_t b = 0; b < sizeof backends / sizeof backends[0]; b++) {
		test_mode(WEFT_AUTORESET_NEXT_STEP, backends[b]);
		test_mode(WEFT_AUTORESET_SAME_STEP, backends[b]);
		test_mode(WEFT_AUTORESET_DISABLED, backends[b]);
		test_seeded(backends[b]);
		test_state_f64(backends[b]);
	}
	return tap_done();
}
