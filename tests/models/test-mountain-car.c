/*
 * tests/models/test-mountain-car.c - the mountain-car environment model
 * (models/mountain-car) through weft.h's public run API, on the OpenMP
 * backend: the protocol (the three autoreset modes, seeded resets equal
 * across environment indices, truncation at max_episode_steps, the
 * termination condition and rewards of both variants), and every f64 step
 * of MountainCar-v0 against Gymnasium's float64 operations written here
 * in C with the C library's cos (what math.cos calls); precision = f32's
 * vectorised act against the scalar step of the on-device policy.
 *
 * With --trace DIR [continuous [precision [envs [steps [backend
 * [threads [policy]]]]]]] (true|false, f64|f32, at most 64, 1000, openmp,
 * 1, energy|random): no tests; drives the model with the energy policy
 * computed on the host from each observation (push the way the car moves)
 * or uniform random actions (continuous: forces in [-1.5, 1.5), beyond
 * the bounds Gymnasium clips to), SAME_STEP autoreset, and
 * writes DIR/trace.bin for bench/gym-compare.py --trace DIR.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel-launches.h"
#include "tap.h"
#include <weft/weft.h>

typedef struct run {
	weft_context *ctx;
	weft_config *cfg;
	weft_sim *sim;
	uint32_t n;
	int f64, continuous;
	weft_array obs, reward, term, trunc, fin, act, state, mask, seed;
	uint32_t l_act, l_reset;
} run;

static int set(run *r, const char *kv)
{
	if (weft_config_set(r->ctx, r->cfg, kv) == WEFT_OK)
		return 1;
	tap_diag("%s: %s", kv, weft_context_error(r->ctx));
	return 0;
}

static int find(run *r, const char *name, weft_array *a)
{
	a->struct_size = sizeof *a;
	if (weft_sim_array_find(r->sim, name, a) == WEFT_OK)
		return 1;
	tap_diag("view '%s': %s", name, weft_context_error(r->ctx));
	return 0;
}

/* The backend and thread count run_open() uses (--trace may change
 * them). */
static const char *g_backend = "openmp", *g_threads = "1";
static int g_random; /* --trace: random actions, not the energy policy */

/* Open the model on g_backend with g_threads threads and the given
 * settings ('\n'-separated section.key=value). */
static int run_open(run *r, const char *sets)
{
	const char *b = getenv("WEFT_BUILDDIR");
	char kv[4096], *line, *save = NULL, copy[1024];

	memset(r, 0, sizeof *r);
	if (!b)
		b = ".";
	if (weft_context_new(&r->ctx) || weft_config_new(r->ctx, &r->cfg))
		return 0;
	snprintf(kv, sizeof kv,
		 "backend.plugin=%s/plugins/%s/.libs/weft-backend-%s.so", b,
		 g_backend, g_backend);
	if (!set(r, kv))
		return 0;
	snprintf(kv, sizeof kv, "backend.threads=%s", g_threads);
	if (!set(r, kv))
		return 0;
	snprintf(kv, sizeof kv,
		 "model.plugin=%s/models/mountain-car/.libs/"
		 "weft-model-mountain_car.so",
		 b);
	if (!set(r, kv) || !set(r, "simulation.model=mountain_car") ||
	    !set(r, "output.summary=false") || !set(r, "output.csv=false") ||
	    !set(r, "output.plot=none"))
		return 0;
	snprintf(kv, sizeof kv, "output.directory=%s/out", tap_tmpdir());
	if (!set(r, kv))
		return 0;
	snprintf(copy, sizeof copy, "%s", sets);
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (!set(r, line))
			return 0;
	if (weft_sim_open(r->ctx, r->cfg, &r->sim)) {
		tap_diag("open: %s", weft_context_error(r->ctx));
		return 0;
	}
	if (!find(r, "obs", &r->obs) || !find(r, "reward", &r->reward) ||
	    !find(r, "terminated", &r->term) ||
	    !find(r, "truncated", &r->trunc) ||
	    !find(r, "final_obs", &r->fin) || !find(r, "actions", &r->act) ||
	    !find(r, "state", &r->state) || !find(r, "reset_mask", &r->mask) ||
	    !find(r, "reset_seed", &r->seed))
		return 0;
	r->n = (uint32_t)r->obs.shape[0];
	r->f64 = r->state.dtype == WEFT_DTYPE_F64;
	r->continuous = r->act.dtype == WEFT_DTYPE_F32;
	if (weft_sim_list(r->sim, "act", &r->l_act) ||
	    weft_sim_list(r->sim, "reset_some", &r->l_reset)) {
		tap_diag("lists: %s", weft_context_error(r->ctx));
		return 0;
	}
	return 1;
}

static void run_close(run *r)
{
	weft_sim_close(r->sim);
	weft_config_free(r->cfg);
	weft_context_free(r->ctx);
}

static int rd(run *r, const weft_array *a, void *dst)
{
	return weft_sim_read(r->sim, dst, a->buffer, a->offset, a->bytes, 0) ==
	       WEFT_OK;
}

static int wr(run *r, const weft_array *a, const void *src)
{
	return weft_sim_write(r->sim, a->buffer, a->offset, src, a->bytes, 0) ==
	       WEFT_OK;
}

/* The results of one step (or reset), read back. */
typedef struct step {
	float obs[2 * 64], reward[64], fin[2 * 64];
	unsigned char term[64], trunc[64];
	double state[2 * 64]; /* as doubles whatever the precision */
} step;

static int read_step(run *r, step *s)
{
	float s32[2 * 64];

	if (!rd(r, &r->obs, s->obs) || !rd(r, &r->reward, s->reward) ||
	    !rd(r, &r->term, s->term) || !rd(r, &r->trunc, s->trunc) ||
	    !rd(r, &r->fin, s->fin))
		return 0;
	if (r->f64)
		return rd(r, &r->state, s->state);
	if (!rd(r, &r->state, s32))
		return 0;
	for (uint32_t k = 0; k < 2 * r->n; k++)
		s->state[k] = s32[k];
	return 1;
}

/* One step with discrete actions a[i] (or continuous c[i]). */
static int act(run *r, const int64_t *a, const float *c, step *s)
{
	if (!wr(r, &r->act,
		r->continuous ? (const void *)c : (const void *)a) ||
	    weft_sim_launch(r->sim, r->l_act, 1) || weft_sim_sync(r->sim))
		return 0;
	return read_step(r, s);
}

static int reset_some(run *r, const unsigned char *mask, const uint64_t *seed,
		      step *s)
{
	if (!wr(r, &r->mask, mask) || !wr(r, &r->seed, seed) ||
	    weft_sim_launch(r->sim, r->l_reset, 1) || weft_sim_sync(r->sim))
		return 0;
	return read_step(r, s);
}

/* ---- the protocol ------------------------------------------------------- */

static void test_autoreset(const char *mode)
{
	char sets[256];
	int64_t a[4] = { 1, 1, 1, 1 };
	step s0, s;
	run r;
	int good = 1;

	snprintf(sets, sizeof sets,
		 "mountain_car.envs=4\nmountain_car.max_episode_steps=3\n"
		 "mountain_car.autoreset=%s",
		 mode);
	if (!tap_ok(run_open(&r, sets), "%s: the model opens", mode))
		return;
	good = read_step(&r, &s0);
	for (int t = 1; t <= 3 && good; t++) {
		good = act(&r, a, NULL, &s);
		good = good && s.reward[0] == -1.0f && !s.term[0] &&
		       s.trunc[0] == (t == 3);
	}
	tap_ok(good, "%s: steps 1-3 reward -1, truncated at step 3 only", mode);
	if (!strcmp(mode, "same_step"))
		tap_ok(s.obs[1] == 0.0f && s.fin[1] != 0.0f &&
			       s.obs[0] >= -0.6f && s.obs[0] < -0.4f,
		       "same_step: step 3's obs is a new episode's first "
		       "(velocity 0, position %g), final_obs the ended one's "
		       "(velocity %g)",
		       (double)s.obs[0], (double)s.fin[1]);
	else
		tap_ok(s.obs[1] != 0.0f,
		       "%s: step 3's obs is the ended "
		       "episode's last (velocity %g)",
		       mode, (double)s.obs[1]);
	good = act(&r, a, NULL, &s);
	if (!strcmp(mode, "next_step"))
		tap_ok(good && s.reward[0] == 0.0f && !s.trunc[0] &&
			       s.obs[1] == 0.0f && s.obs[0] != s0.obs[0],
		       "next_step: step 4 begins the next episode (reward 0, "
		       "no flags, velocity 0, a new position)");
	else if (!strcmp(mode, "disabled"))
		tap_ok(good && s.reward[0] == -1.0f && s.trunc[0],
		       "disabled: step 4 steps on (reward -1, truncated "
		       "again)");
	else
		tap_ok(good && s.reward[0] == -1.0f && !s.trunc[0],
		       "same_step: step 4 is the new episode's first");
	run_close(&r);
}

static void test_seeded(void)
{
	unsigned char mask[4] = { 2, 2, 2, 2 };
	uint64_t seed[4] = { 7, 7, 7, 8 };
	step s;
	run r;
	int good;

	if (!tap_ok(run_open(&r, "mountain_car.envs=4"), "seeded: opens"))
		return;
	/* the reset first: tap_ok's arguments print what it read */
	good = reset_some(&r, mask, seed, &s);
	tap_ok(good && s.obs[0] == s.obs[2] && s.obs[0] == s.obs[4] &&
		       s.obs[0] != s.obs[6] && s.obs[1] == 0.0f &&
		       s.reward[0] == 0.0f,
	       "reset_some with seeds 7, 7, 7, 8: the first three equal "
	       "(%g), the fourth another (%g), velocity 0",
	       (double)s.obs[0], (double)s.obs[6]);
	mask[0] = 0;
	mask[1] = 1;
	{
		step s2;
		int ok = reset_some(&r, mask, seed, &s2);

		tap_ok(ok && s2.obs[0] == s.obs[0] && s2.obs[2] != s.obs[2],
		       "reset_some: KEEP leaves environment 0, NEXT moves "
		       "environment 1 to its next episode");
	}
	run_close(&r);
}

/* Truncation at the default max_episode_steps (200, or 999 when
 * continuous) with no push: the car never reaches the goal. */
static void test_truncation(int continuous)
{
	int64_t a[2] = { 1, 1 };
	float c[2] = { 0.0f, 0.0f };
	int want = continuous ? 999 : 200, first = 0;
	step s;
	run r;

	if (!tap_ok(run_open(&r, continuous ? "mountain_car.envs=2\n"
					      "mountain_car.continuous=true"
					    : "mountain_car.envs=2"),
		    "truncation (%s): opens",
		    continuous ? "continuous" : "discrete"))
		return;
	for (int t = 1; t <= want && !first; t++) {
		if (!act(&r, a, c, &s))
			break;
		if (s.trunc[0] || s.term[0])
			first = t;
	}
	tap_ok(first == want && s.trunc[0] && !s.term[0],
	       "%s: truncated at step %d, not before (first end at %d)",
	       continuous ? "MountainCarContinuous-v0" : "MountainCar-v0", want,
	       first);
	run_close(&r);
}

/* The energy policy until the goal: terminated where position >= goal
 * and velocity >= 0, with the variant's reward. */
static void test_termination(int continuous, const char *precision)
{
	char sets[256];
	int64_t a[2];
	float c[2], goal = continuous ? 0.45f : 0.5f;
	int t, done = 0, early = 0;
	step s;
	run r;

	snprintf(sets, sizeof sets,
		 "mountain_car.envs=2\nmountain_car.continuous=%s\n"
		 "mountain_car.precision=%s\nmountain_car.autoreset=same_step",
		 continuous ? "true" : "false", precision);
	if (!tap_ok(run_open(&r, sets), "termination: opens (%s, %s)",
		    continuous ? "continuous" : "discrete", precision))
		return;
	read_step(&r, &s);
	for (t = 1; t <= 400 && !done; t++) {
		for (int i = 0; i < 2; i++) {
			a[i] = s.obs[2 * i + 1] >= 0.0f ? 2 : 0;
			c[i] = s.obs[2 * i + 1] >= 0.0f ? 0.75f : -0.75f;
		}
		if (!act(&r, a, c, &s))
			break;
		if (s.term[0])
			done = t;
		else if (s.obs[0] >= goal && s.obs[1] >= 0.0f)
			early = t;
	}
	tap_ok(done && !early && s.fin[0] >= goal && s.fin[1] >= 0.0f &&
		       s.obs[1] == 0.0f,
	       "%s, %s: terminated at step %d at position %g >= %g, "
	       "velocity %g >= 0; the next episode begun",
	       continuous ? "continuous" : "discrete", precision, done,
	       (double)s.fin[0], (double)goal, (double)s.fin[1]);
	if (continuous)
		tap_ok(s.reward[0] == (float)(100.0 - (0.75 * 0.75) * 0.1),
		       "continuous: the goal's reward is 100 - 0.1 * 0.75^2 "
		       "(%.9g)",
		       (double)s.reward[0]);
	else
		tap_ok(s.reward[0] == -1.0f,
		       "discrete: the goal's reward is -1");
	run_close(&r);
}

/* ---- f64 steps against Gymnasium's operations with libm's cos ---------- */

static int gym_discrete(double *p, double *v, int a)
{
	double push = (a - 1) * 0.001;

	*v += push + cos(3 * *p) * (-0.0025);
	*v = *v < -0.07 ? -0.07 : *v > 0.07 ? 0.07 : *v;
	*p += *v;
	*p = *p < -1.2 ? -1.2 : *p > 0.6 ? 0.6 : *p;
	if (*p == -1.2 && *v < 0)
		*v = 0;
	return *p >= 0.5 && *v >= 0;
}

static void test_libm(void)
{
	enum { N = 64, T = 600 };
	int64_t a[N];
	double before[2 * N];
	long same = 0, total = 0, ends = 0, ends_same = 0;
	uint64_t x = 12345;
	step s;
	run r;

	if (!tap_ok(run_open(&r, "mountain_car.envs=64\n"
				 "mountain_car.autoreset=same_step"),
		    "libm comparison: opens"))
		return;
	read_step(&r, &s);
	for (int t = 0; t < T; t++) {
		memcpy(before, s.state, sizeof before);
		for (int i = 0; i < N; i++) {
			/* energy policy, with a random action one step in 4 */
			x = x * 6364136223846793005u + 1442695040888963407u;
			a[i] = (x >> 62) == 0 ? (int64_t)((x >> 40) % 3)
			       : s.obs[2 * i + 1] >= 0.0f ? 2
							  : 0;
		}
		if (!act(&r, a, NULL, &s))
			break;
		for (int i = 0; i < N; i++) {
			double p = before[2 * i], v = before[2 * i + 1];
			int term = gym_discrete(&p, &v, (int)a[i]);
			int ended = s.term[i] || s.trunc[i];

			total++;
			ends += term;
			if (term != s.term[i])
				continue;
			ends_same += term;
			/* after an end the state is the next episode's */
			if (ended ? (float)p == s.fin[2 * i] &&
					    (float)v == s.fin[2 * i + 1]
				  : p == s.state[2 * i] &&
					    v == s.state[2 * i + 1])
				same++;
		}
	}
	tap_ok(same * 1000 >= total * 999 && ends > 0 && ends_same == ends,
	       "MountainCar-v0, f64: %ld of %ld steps (%.3f %%) bit for bit "
	       "Gymnasium's operations with the C library's cos; %ld of %ld "
	       "terminations alike",
	       same, total, 100.0 * (double)same / (double)total, ends_same,
	       ends);
	run_close(&r);
}

/* ---- the trace for the Gymnasium comparison ----------------------------- */

/* trace.bin: a header of 5 u32 (n, T, continuous, f64, random), then per step
 * f64 state_before[n][2], f32 action[n], f32 obs[n][2], f32 reward[n],
 * u8 term[n], u8 trunc[n], f32 final_obs[n][2], f64 state_after[n][2]. */
static int trace(const char *dir, int continuous, const char *precision,
		 uint32_t n, uint32_t steps)
{
	char sets[256], path[1024];
	int64_t a[64];
	float c[64];
	double before[128];
	uint32_t head[5];
	uint64_t x = 2024;
	FILE *f;
	step s;
	run r;

	if (n > 64)
		n = 64;
	snprintf(sets, sizeof sets,
		 "mountain_car.envs=%u\nmountain_car.continuous=%s\n"
		 "mountain_car.precision=%s\nmountain_car.autoreset=same_step",
		 n, continuous ? "true" : "false", precision);
	snprintf(path, sizeof path, "%s/trace.bin", dir);
	if (!run_open(&r, sets)) {
		fprintf(stderr,
			"test-mountain-car: cannot open the model on "
			"%s\n",
			g_backend);
		return 1;
	}
	if (!(f = fopen(path, "wb"))) {
		fprintf(stderr, "test-mountain-car: cannot write %s\n", path);
		return 1;
	}
	head[0] = n;
	head[1] = steps;
	head[2] = (uint32_t)continuous;
	head[3] = (uint32_t)r.f64;
	head[4] = (uint32_t)g_random;
	fwrite(head, sizeof head, 1, f);
	read_step(&r, &s);
	for (uint32_t t = 0; t < steps; t++) {
		memcpy(before, s.state, sizeof before);
		for (uint32_t i = 0; i < n; i++) {
			/* the energy policy, continuous force +-0.5..1 */
			int up = s.obs[2 * i + 1] >= 0.0f;

			a[i] = up ? 2 : 0;
			c[i] = up ? 1.0f - 0.25f * (float)(t % 3)
				  : -1.0f + 0.25f * (float)(t % 3);
			if (!g_random)
				continue;
			/* or uniform: 0..2, or a force in [-1.5, 1.5)
			 * (Gymnasium clips it to [-1, 1]) */
			x = x * 6364136223846793005u + 1442695040888963407u;
			a[i] = (int64_t)((x >> 33) % 3);
			c[i] = (float)((double)(x >> 40) * 0x1p-24 * 3.0 - 1.5);
		}
		if (!act(&r, a, c, &s))
			return 1;
		fwrite(before, 8, 2 * n, f);
		for (uint32_t i = 0; i < n; i++) {
			float v = continuous ? c[i] : (float)a[i];

			fwrite(&v, 4, 1, f);
		}
		fwrite(s.obs, 4, 2 * n, f);
		fwrite(s.reward, 4, n, f);
		fwrite(s.term, 1, n, f);
		fwrite(s.trunc, 1, n, f);
		fwrite(s.fin, 4, 2 * n, f);
		fwrite(s.state, 8, 2 * n, f);
	}
	fclose(f);
	run_close(&r);
	return 0;
}

/* ---- precision = f32: the vectorised act ----------------------------------
 */

/* Two blocks of 64 environments and a tail of 22 on one thread. */
#define F32_ENVS 150u

/* The energy policy's action for each environment of run r from its f32
 * state (push the way the car moves), as mountain_car_policy chooses it. */
static int energy_actions(run *r, int64_t *a, float *c)
{
	static float st[2 * F32_ENVS];

	if (!rd(r, &r->state, st))
		return 0;
	for (uint32_t i = 0; i < F32_ENVS; i++) {
		a[i] = st[2 * i + 1] >= 0.0f ? 2 : 0;
		c[i] = st[2 * i + 1] >= 0.0f ? 1.0f : -1.0f;
	}
	return 1;
}

/* 40 steps of act (mountain_car_act_f32, with the energy policy's
 * actions written by the host) against 40 of the on-device energy policy
 * (mountain_car_policy: the scalar step), same_step, episodes of 7 steps,
 * one car placed where 3 x position is out of the vectorised range: every
 * view the same, byte for byte, after every step. */
static void test_f32_vs_policy(int continuous)
{
	static unsigned char va[64 * F32_ENVS], vb[64 * F32_ENVS];
	static float st[2 * F32_ENVS], c[F32_ENVS];
	static int64_t a[F32_ENVS];
	const char *name =
		continuous ? "MountainCarContinuous-v0" : "MountainCar-v0";
	weft_array v[2][7];
	char sets[512];
	uint32_t policy = 0;
	long long n_f32, n_f64;
	int ok = 1, bad = 0, step_no;
	run r[2];

	for (int k = 0; k < 2 && ok; k++) {
		snprintf(sets, sizeof sets,
			 "mountain_car.envs=150\nmountain_car.precision=f32\n"
			 "mountain_car.continuous=%s\n"
			 "mountain_car.policy=energy\n"
			 "mountain_car.max_episode_steps=7\n"
			 "mountain_car.autoreset=same_step\n"
			 "simulation.seed=5\noutput.directory=%s/f32-%d",
			 continuous ? "true" : "false", tap_tmpdir(), k);
		ok = run_open(&r[k], sets) &&
		     find(&r[k], "env_book", &v[k][6]) &&
		     rd(&r[k], &r[k].state, st);
		st[2 * 5] = 2000.0f; /* 3 x 2000: past MC32_TRIG_MAX */
		ok = ok && wr(&r[k], &r[k].state, st);
		v[k][0] = r[k].obs;
		v[k][1] = r[k].reward;
		v[k][2] = r[k].term;
		v[k][3] = r[k].trunc;
		v[k][4] = r[k].fin;
		v[k][5] = r[k].state;
	}
	ok = ok && weft_sim_list(r[1].sim, "policy", &policy) == WEFT_OK;
	for (step_no = 1; ok && !bad && step_no <= 40; step_no++) {
		ok = energy_actions(&r[0], a, c) &&
		     wr(&r[0], &r[0].act,
			continuous ? (const void *)c : (const void *)a) &&
		     !weft_sim_launch(r[0].sim, r[0].l_act, 1) &&
		     !weft_sim_sync(r[0].sim) &&
		     !weft_sim_launch(r[1].sim, policy, 1) &&
		     !weft_sim_sync(r[1].sim);
		for (int k = 0; ok && k < 7; k++) {
			ok = v[0][k].bytes <= sizeof va &&
			     rd(&r[0], &v[0][k], va) && rd(&r[1], &v[1][k], vb);
			if (ok && memcmp(va, vb, v[0][k].bytes)) {
				bad++;
				tap_diag("%s step %d: %s differs", name,
					 step_no, v[0][k].name);
			}
		}
	}
	if (!ok)
		tap_diag("%s: a call failed at step %d: %s", name, step_no,
			 weft_context_error(r[0].ctx));
	tap_ok(ok && !bad,
	       "%s, f32: 40 vectorised acts with the energy policy's actions "
	       "(same_step, 7-step episodes, 150 environments) leave every "
	       "view as the on-device policy's scalar step does",
	       name);
	n_f32 = sim_launches(r[0].sim, "mountain_car_act_f32");
	n_f64 = sim_launches(r[0].sim, "mountain_car_act");
	tap_ok(n_f32 == 40 && n_f64 == 0,
	       "%s, f32: the act list launched mountain_car_act_f32 %lld "
	       "times (expected 40) and mountain_car_act %lld times "
	       "(expected 0)",
	       name, n_f32, n_f64);
	run_close(&r[0]);
	run_close(&r[1]);
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "--trace")) {
		if (argc > 7) {
			g_backend = argv[7];
			g_threads = argc > 8 ? argv[8] : "1";
			g_random = argc > 9 && !strcmp(argv[9], "random");
		}
		return trace(argv[2], argc > 3 && !strcmp(argv[3], "true"),
			     argc > 4 ? argv[4] : "f64",
			     argc > 5 ? (uint32_t)atoi(argv[5]) : 64,
			     argc > 6 ? (uint32_t)atoi(argv[6]) : 1000);
	}
	test_autoreset("next_step");
	test_autoreset("same_step");
	test_autoreset("disabled");
	test_seeded();
	test_truncation(0);
	test_truncation(1);
	test_termination(0, "f64");
	test_termination(1, "f64");
	test_termination(0, "f32");
	test_termination(1, "f32");
	test_f32_vs_policy(0);
	test_f32_vs_policy(1);
	test_libm();
	return tap_done();
}
