/*
 * tests/models/test-cartpole.c - the CartPole model and its C API
 * (<weft/cartpole.h>) on the OpenMP backend, against a reference written
 * here from Gymnasium's CartPoleEnv.step in double precision, apart from
 * the kernels: trajectories for fixed action sequences, termination and
 * truncation at exactly the right step, automatic resets (fresh state in
 * range, final observation and return kept), the on-device policy, device
 * statistics, determinism, bad actions, the device arrays (where the
 * packed result lies, and what it holds after a fence and a wait), and
 * `weft run`'s episode CSV (written through the output pipeline: a fence
 * wait per row, one sync).
 * Cross-backend agreement is the conformance suite's (group models).
 *
 * Tolerances (models/cartpole/cartpole.md): the kernels compute in f32,
 * Gymnasium in f64. One step from the same state agrees within STEP_TOL; a
 * whole episode from the same initial state within TRAJ_TOL.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <weft/cartpole.h>

#include "cartpole.h"
#include "tap.h"

#define STEP_TOL 2e-6
#define TRAJ_TOL 2e-4

/* ---- the reference: Gymnasium's CartPoleEnv (cartpole.py), in double -- */

typedef struct ref_state {
	double x, x_dot, theta, theta_dot;
} ref_state;

static ref_state ref_step(ref_state s, int action)
{
	const double gravity = 9.8, masscart = 1.0, masspole = 0.1;
	const double total_mass = masspole + masscart, length = 0.5;
	const double polemass_length = masspole * length, force_mag = 10.0;
	const double tau = 0.02;
	double force = action == 1 ? force_mag : -force_mag;
	double costheta = cos(s.theta), sintheta = sin(s.theta);
	double temp = (force +
		       polemass_length * s.theta_dot * s.theta_dot * sintheta) /
		      total_mass;
	double thetaacc =
		(gravity * sintheta - costheta * temp) /
		(length *
		 (4.0 / 3.0 - masspole * costheta * costheta / total_mass));
	double xacc = temp - polemass_length * thetaacc * costheta / total_mass;
	ref_state n;

	n.x = s.x + tau * s.x_dot;
	n.x_dot = s.x_dot + tau * xacc;
	n.theta = s.theta + tau * s.theta_dot;
	n.theta_dot = s.theta_dot + tau * thetaacc;
	return n;
}

static double ref_theta_threshold(void)
{
	return 12 * 2 * acos(-1.0) / 360;
}

static int ref_terminated(ref_state s)
{
	double th = ref_theta_threshold();
	return s.x < -2.4 || s.x > 2.4 || s.theta < -th || s.theta > th;
}

/* How far s is from the termination boundary (negative: beyond it). */
static double ref_margin(ref_state s)
{
	double a = 2.4 - fabs(s.x), b = ref_theta_threshold() - fabs(s.theta);
	return a < b ? a : b;
}

static ref_state ref_from(const float *obs)
{
	ref_state s = { obs[0], obs[1], obs[2], obs[3] };
	return s;
}

static double ref_dist(ref_state a, const float *obs)
{
	double d[4] = { fabs(a.x - obs[0]), fabs(a.x_dot - obs[1]),
			fabs(a.theta - obs[2]), fabs(a.theta_dot - obs[3]) };
	double m = 0;

	for (int k = 0; k < 4; k++)
		if (d[k] > m)
			m = d[k];
	return m;
}

/* ---- opening environment sets ---------------------------------------------
 */

typedef struct cp_env {
	weft_context *ctx;
	weft_config *cfg;
	weft_cartpole *env;
	uint32_t n;
	weft_cartpole_layout lay;
	unsigned char *io; /* a packed result, total_bytes */
} cp_env;

static void cp_close(cp_env *e)
{
	weft_cartpole_close(e->env);
	weft_config_free(e->cfg);
	weft_context_free(e->ctx);
	free(e->io);
	memset(e, 0, sizeof *e);
}

/* cartpole on openmp with envs, seed 7 and the given overrides
 * (NULL-terminated); bails out when it cannot open. */
static void cp_open(cp_env *e, uint32_t envs, const char *const *sets)
{
	char set[600];

	memset(e, 0, sizeof *e);
	if (weft_context_new(&e->ctx) || weft_config_new(e->ctx, &e->cfg))
		tap_bail("out of memory");
	snprintf(set, sizeof set, "output.directory=%s/api", tap_tmpdir());
	if (weft_config_set(e->ctx, e->cfg, set) ||
	    weft_config_set(e->ctx, e->cfg, "simulation.model=cartpole") ||
	    weft_config_set(e->ctx, e->cfg, "simulation.seed=7") ||
	    weft_config_set(e->ctx, e->cfg, "backend.name=openmp") ||
	    weft_config_set(e->ctx, e->cfg, "output.csv=false") ||
	    weft_config_set(e->ctx, e->cfg, "output.summary=false"))
		tap_bail("config: %s", weft_context_error(e->ctx));
	snprintf(set, sizeof set, "cartpole.envs=%u", envs);
	if (weft_config_set(e->ctx, e->cfg, set))
		tap_bail("config: %s", weft_context_error(e->ctx));
	for (; sets && *sets; sets++)
		if (weft_config_set(e->ctx, e->cfg, *sets))
			tap_bail("config %s: %s", *sets,
				 weft_context_error(e->ctx));
	if (weft_cartpole_open(e->ctx, e->cfg, &e->env))
		tap_bail("weft_cartpole_open: %s", weft_context_error(e->ctx));
	e->n = weft_cartpole_count(e->env);
	weft_cartpole_layout_of(e->n, &e->lay);
	e->io = malloc(e->lay.total_bytes);
	if (!e->io)
		tap_bail("out of memory");
}

static const float *io_obs(const cp_env *e, uint32_t i)
{
	return (const float *)(e->io + e->lay.obs) + 4 * (size_t)i;
}

static const float *io_final(const cp_env *e, uint32_t i)
{
	return (const float *)(e->io + e->lay.final_obs) + 4 * (size_t)i;
}

static float io_final_return(const cp_env *e, uint32_t i)
{
	return ((const float *)(e->io + e->lay.final_return))[i];
}

static float io_reward(const cp_env *e, uint32_t i)
{
	return ((const float *)(e->io + e->lay.reward))[i];
}

static int io_term(const cp_env *e, uint32_t i)
{
	return e->io[e->lay.terminated + i];
}

static int io_trunc(const cp_env *e, uint32_t i)
{
	return e->io[e->lay.truncated + i];
}

static int host_step(cp_env *e, const uint8_t *actions)
{
	return weft_cartpole_step(e->env, actions, 1, e->io,
				  e->lay.total_bytes) == WEFT_OK;
}

static int in_reset_range(const float *obs)
{
	for (int k = 0; k < 4; k++)
		if (!(obs[k] >= -0.05f && obs[k] < 0.05f))
			return 0;
	return 1;
}

/* ---- trajectories for fixed action sequences ------------------------------
 */

/* Environment i's action at step t: always left, always right,
 * alternating, or bits of a fixed hash. */
static uint8_t fixed_action(uint32_t i, uint32_t t)
{
	uint32_t h = (i * 2654435761u) ^ (t * 2246822519u);

	switch (i % 4) {
	case 0: return 0;
	case 1: return 1;
	case 2: return (uint8_t)(t % 2);
	default:
		h ^= h >> 15;
		h *= 2654435761u;
		return (uint8_t)(h >> 31);
	}
}

typedef struct traj {
	ref_state ref, prev_obs; /* whole-episode reference; our last obs */
	uint32_t t;		 /* steps into the episode */
	uint32_t episode;
} traj;

typedef struct traj_report {
	double step_dev, traj_dev, final_dev;
	long steps, episodes, flag_wrong, near_boundary, length_wrong;
	long reset_wrong, reset_out, final_return_wrong, reward_wrong;
} traj_report;

/* One environment after one step: compare with both references. */
static void traj_check(const cp_env *e, uint32_t i, traj *tr, uint8_t a,
		       traj_report *r)
{
	ref_state one = ref_step(tr->prev_obs, a);
	ref_state whole = ref_step(tr->ref, a);
	int done = io_term(e, i) || io_trunc(e, i);
	const float *now = done ? io_final(e, i) : io_obs(e, i);
	double d1 = ref_dist(one, now), dw = ref_dist(whole, now);

	tr->t++;
	r->steps++;
	r->step_dev = d1 > r->step_dev ? d1 : r->step_dev;
	r->traj_dev = dw > r->traj_dev ? dw : r->traj_dev;
	if (io_reward(e, i) != 1.0f)
		r->reward_wrong++;
	if (fabs(ref_margin(one)) < 1e-6)
		r->near_boundary++;
	else if (io_term(e, i) != ref_terminated(one) ||
		 io_trunc(e, i) != (tr->t >= 500))
		r->flag_wrong++;
	if (!done) {
		if (ref_terminated(whole))
			r->length_wrong++;
		tr->ref = whole;
		tr->prev_obs = ref_from(now);
		return;
	}
	/* The whole-episode reference ends at the same step. */
	if (ref_terminated(whole) != io_term(e, i) && !io_trunc(e, i))
		r->length_wrong++;
	r->final_dev = d1 > r->final_dev ? d1 : r->final_dev;
	if (io_final_return(e, i) != (float)tr->t)
		r->final_return_wrong++;
	r->episodes++;
	tr->episode++;
	{
		float want[4];
		weft__cartpole_reset_obs(
			&((const cartpole_params){ .seed_lo = 7 }), i,
			tr->episode, want);
		if (memcmp(want, io_obs(e, i), sizeof want) != 0)
			r->reset_wrong++;
	}
	if (!in_reset_range(io_obs(e, i)))
		r->reset_out++;
	tr->ref = tr->prev_obs = ref_from(io_obs(e, i));
	tr->t = 0;
}

static void test_trajectories(void)
{
	enum { N = 64, T = 400 };
	cp_env e;
	traj tr[N];
	traj_report r;
	uint8_t a[N];
	int ok = 1;

	memset(&r, 0, sizeof r);
	cp_open(&e, N, NULL);
	if (weft_cartpole_read(e.env, e.io, 0, e.lay.total_bytes))
		tap_bail("read: %s", weft_context_error(e.ctx));
	for (uint32_t i = 0; i < N; i++) {
		tr[i].ref = tr[i].prev_obs = ref_from(io_obs(&e, i));
		tr[i].t = 0;
		tr[i].episode = 0;
	}
	for (uint32_t t = 0; t < T && ok; t++) {
		for (uint32_t i = 0; i < N; i++)
			a[i] = fixed_action(i, t);
		ok = host_step(&e, a);
		for (uint32_t i = 0; ok && i < N; i++)
			traj_check(&e, i, &tr[i], a[i], &r);
	}
	tap_ok(ok, "%d host-action steps of %d environments run", T, N);
	tap_diag("%ld env steps, %ld episodes; max deviation: one step %.3g, "
		 "whole episode %.3g, final observation %.3g",
		 r.steps, r.episodes, r.step_dev, r.traj_dev, r.final_dev);
	tap_ok(r.episodes > 500, "fixed actions end many episodes (%ld)",
	       r.episodes);
	tap_ok(r.step_dev <= STEP_TOL,
	       "one step agrees with Gymnasium's equations in double within "
	       "%g (max %.3g)",
	       STEP_TOL, r.step_dev);
	tap_ok(r.traj_dev <= TRAJ_TOL,
	       "whole episodes from the same start agree within %g (max %.3g)",
	       TRAJ_TOL, r.traj_dev);
	tap_ok(r.flag_wrong == 0 && r.near_boundary * 100 < r.episodes,
	       "terminated and truncated flags are the reference's at every "
	       "step (%ld wrong; %ld within 1e-6 of the boundary, not judged)",
	       r.flag_wrong, r.near_boundary);
	tap_ok(r.length_wrong == 0,
	       "every episode ends at the step where the whole-episode "
	       "reference ends (%ld differ)",
	       r.length_wrong);
	tap_ok(r.final_dev <= STEP_TOL && r.final_return_wrong == 0,
	       "the final observation and return of each episode are kept "
	       "(max deviation %.3g, %ld wrong returns)",
	       r.final_dev, r.final_return_wrong);
	tap_ok(r.reward_wrong == 0, "reward is 1 at every step (%ld not)",
	       r.reward_wrong);
	tap_ok(r.reset_out == 0,
	       "every automatic reset draws a state in [-0.05, 0.05) (%ld not)",
	       r.reset_out);
	tap_ok(r.reset_wrong == 0,
	       "the k-th reset of environment i is the draw keyed by (seed, "
	       "i, k) (%ld not)",
	       r.reset_wrong);
	cp_close(&e);
}

/* ---- truncation ------------------------------------------------------------
 */

/* A controller that keeps the pole up (push the way theta + theta_dot / 2
 * points), computed on the host from the observations read back. */
static void balance(const cp_env *e, uint8_t *a)
{
	for (uint32_t i = 0; i < e->n; i++) {
		const float *o = io_obs(e, i);
		a[i] = (double)o[2] + 0.5 * (double)o[3] > 0 ? 1 : 0;
	}
}

/* Every environment balanced for `limit` steps: nothing ends before step
 * limit, everything is truncated (not terminated) at it. */
static void test_truncation(uint32_t limit, const char *set)
{
	enum { N = 16 };
	const char *sets[] = { set, NULL };
	uint32_t early = 0, wrong = 0, bad_final = 0;
	uint8_t a[N];
	cp_env e;
	int ok;

	cp_open(&e, N, set ? sets : NULL);
	ok = weft_cartpole_read(e.env, e.io, 0, e.lay.total_bytes) == WEFT_OK;
	for (uint32_t t = 1; ok && t <= limit; t++) {
		balance(&e, a);
		ok = host_step(&e, a);
		for (uint32_t i = 0; ok && i < N; i++) {
			if (t < limit && (io_term(&e, i) || io_trunc(&e, i)))
				early++;
			if (t == limit && (!io_trunc(&e, i) || io_term(&e, i)))
				wrong++;
			if (t == limit &&
			    (io_final_return(&e, i) != (float)limit ||
			     !in_reset_range(io_obs(&e, i))))
				bad_final++;
		}
	}
	tap_ok(ok && early == 0 && wrong == 0,
	       "truncation after %u steps: none of %d balanced environments "
	       "ends earlier (%u did), all are truncated and not terminated "
	       "at step %u (%u are not)",
	       limit, N, early, limit, wrong);
	tap_ok(ok && bad_final == 0,
	       "at truncation the final return is %u and a fresh episode "
	       "begins (%u environments not)",
	       limit, bad_final);
	cp_close(&e);
}

/* ---- the on-device policy -------------------------------------------------
 */

/* The linear policy as the kernel evaluates it, in f32, same order. */
static uint8_t linear_action(const float *w, float bias, const float *o)
{
	float v = w[0] * o[0];

	v = v + w[1] * o[1];
	v = v + w[2] * o[2];
	v = v + w[3] * o[3];
	v = v + bias;
	return v > 0.0f ? 1 : 0;
}

static int stats_of(cp_env *e, weft_cartpole_episode_stats *st)
{
	memset(st, 0, sizeof *st);
	st->struct_size = sizeof *st;
	return weft_cartpole_stats(e->env, st) == WEFT_OK;
}

/* step(n) of the policy equals host steps with the actions the policy
 * would take, and involves no transfer and no synchronisation. */
static void test_policy(void)
{
	enum { N = 300, T = 250 };
	const char *sets[] = {
		"cartpole.w_x=0.3",	"cartpole.w_x_dot=-0.2",
		"cartpole.w_theta=1.5", "cartpole.w_theta_dot=0.7",
		"cartpole.bias=0.01",	NULL
	};
	const float w[4] = { 0.3f, -0.2f, 1.5f, 0.7f };
	weft_cartpole_episode_stats sa, sb;
	weft_stats c0, c1;
	cp_env a, b;
	uint8_t act[N];
	float *oa = malloc(16 * N), *ob = malloc(16 * N);
	int ok;

	cp_open(&a, N, sets);
	cp_open(&b, N, sets);
	memset(&c0, 0, sizeof c0);
	memset(&c1, 0, sizeof c1);
	c0.struct_size = c1.struct_size = sizeof c0;
	ok = oa && ob && weft_cartpole_counters(a.env, &c0) == WEFT_OK &&
	     weft_cartpole_step(a.env, NULL, T, NULL, 0) == WEFT_OK &&
	     weft_cartpole_counters(a.env, &c1) == WEFT_OK;
	tap_ok(ok && c1.steps - c0.steps == T && c1.launches - c0.launches == T,
	       "step(NULL, %d) runs %d steps of one launch (%llu, %llu)", T, T,
	       (unsigned long long)(c1.steps - c0.steps),
	       (unsigned long long)(c1.launches - c0.launches));
	tap_ok(ok && c1.syncs == c0.syncs &&
		       c1.xfer_count[WEFT_DIR_H2D] ==
			       c0.xfer_count[WEFT_DIR_H2D] &&
		       c1.xfer_count[WEFT_DIR_D2H] ==
			       c0.xfer_count[WEFT_DIR_D2H],
	       "the on-device policy makes no transfer and no sync "
	       "(syncs +%llu, H2D +%llu, D2H +%llu)",
	       (unsigned long long)(c1.syncs - c0.syncs),
	       (unsigned long long)(c1.xfer_count[WEFT_DIR_H2D] -
				    c0.xfer_count[WEFT_DIR_H2D]),
	       (unsigned long long)(c1.xfer_count[WEFT_DIR_D2H] -
				    c0.xfer_count[WEFT_DIR_D2H]));
	ok = ok && weft_cartpole_read(b.env, b.io, 0, b.lay.total_bytes) == 0;
	for (int t = 0; ok && t < T; t++) {
		for (uint32_t i = 0; i < N; i++)
			act[i] = linear_action(w, 0.01f, io_obs(&b, i));
		ok = host_step(&b, act);
	}
	ok = ok && weft_cartpole_observe(a.env, oa) == WEFT_OK &&
	     weft_cartpole_observe(b.env, ob) == WEFT_OK;
	tap_ok(ok && memcmp(oa, ob, 16 * N) == 0,
	       "the on-device linear policy gives the same bits as host "
	       "actions from the same weights");
	ok = ok && stats_of(&a, &sa) && stats_of(&b, &sb);
	tap_ok(ok && sa.episodes == sb.episodes && sa.episodes > 0 &&
		       sa.mean_return == sb.mean_return &&
		       sa.max_return == sb.max_return &&
		       sa.env_steps == (uint64_t)N * T &&
		       sb.env_steps == sa.env_steps,
	       "and the same statistics (%llu episodes, mean %.3f, max %g; "
	       "%llu env steps)",
	       (unsigned long long)sa.episodes, sa.mean_return, sa.max_return,
	       (unsigned long long)sa.env_steps);
	free(oa);
	free(ob);
	cp_close(&a);
	cp_close(&b);
}

/* ---- statistics -----------------------------------------------------------
 */

/* The device reduction equals what the packed flags and final returns
 * say, over two windows. */
static void test_stats(void)
{
	enum { N = 500, T = 120 };
	uint64_t count[2] = { 0, 0 }, sum[2] = { 0, 0 };
	float mx[2] = { 0, 0 };
	weft_cartpole_episode_stats st[2];
	uint8_t a[N];
	cp_env e;
	int ok = 1;

	cp_open(&e, N,
		(const char *const[]){ "cartpole.max_episode_steps=40", NULL });
	for (int w = 0; w < 2 && ok; w++) {
		for (uint32_t t = 0; ok && t < T; t++) {
			for (uint32_t i = 0; i < N; i++)
				a[i] = fixed_action(i * 7 + 3, t + 1000 * w);
			ok = host_step(&e, a);
			for (uint32_t i = 0; ok && i < N; i++) {
				float r = io_final_return(&e, i);
				if (!io_term(&e, i) && !io_trunc(&e, i))
					continue;
				count[w]++;
				sum[w] += (uint64_t)r;
				mx[w] = r > mx[w] ? r : mx[w];
			}
		}
		ok = ok && stats_of(&e, &st[w]);
	}
	tap_ok(ok && st[0].recent_episodes == count[0] &&
		       st[0].recent_mean_return ==
			       (double)sum[0] / (double)count[0] &&
		       st[0].recent_max_return == mx[0],
	       "device statistics equal the packed results: %llu episodes "
	       "(want %llu), mean %.4f, max %g",
	       (unsigned long long)st[0].recent_episodes,
	       (unsigned long long)count[0], st[0].recent_mean_return,
	       st[0].recent_max_return);
	tap_ok(ok && st[1].recent_episodes == count[1] &&
		       st[1].episodes == count[0] + count[1] &&
		       st[1].mean_return ==
			       (double)(sum[0] + sum[1]) /
				       (double)(count[0] + count[1]) &&
		       st[1].max_return == (mx[0] > mx[1] ? mx[0] : mx[1]) &&
		       st[1].env_steps == 2ull * N * T,
	       "the second call counts its own window and the totals (%llu "
	       "recent, %llu in all)",
	       (unsigned long long)st[1].recent_episodes,
	       (unsigned long long)st[1].episodes);
	tap_ok(ok && mx[0] == 40, "max_episode_steps = 40 truncates at 40");
	cp_close(&e);
}

/* ---- determinism ----------------------------------------------------------
 */

/* 100 random-policy steps then 20 host steps; the packed buffer after. */
static int run_fingerprint(const char *seed, const char *threads,
			   unsigned char *out, size_t bytes,
			   weft_cartpole_episode_stats *st)
{
	enum { N = 4096 };
	const char *sets[] = { "cartpole.policy=random", seed, threads, NULL };
	uint8_t *a = malloc(N);
	cp_env e;
	int ok;

	cp_open(&e, N, sets);
	ok = a && bytes == e.lay.total_bytes &&
	     weft_cartpole_step(e.env, NULL, 100, NULL, 0) == WEFT_OK;
	for (uint32_t t = 0; ok && t < 20; t++) {
		for (uint32_t i = 0; i < N; i++)
			a[i] = fixed_action(i, t);
		ok = host_step(&e, a);
	}
	ok = ok && weft_cartpole_read(e.env, out, 0, bytes) == WEFT_OK &&
	     stats_of(&e, st);
	free(a);
	cp_close(&e);
	return ok;
}

/* ---- the packed result's layout ------------------------------------------
 */

/* Regions of lay for n environments in order, none overlapping, each
 * 64-byte aligned (as XLA takes host memory without a copy); step_bytes
 * ends with truncated. */
static int layout_ordered(uint32_t n, const weft_cartpole_layout *l)
{
	size_t un = n;

	return l->obs == 0 && l->reward >= 16 * un &&
	       l->terminated >= l->reward + 4 * un &&
	       l->truncated >= l->terminated + un &&
	       l->final_obs >= l->truncated + un &&
	       l->final_return >= l->final_obs + 16 * un &&
	       l->total_bytes >= l->final_return + 4 * un &&
	       l->step_bytes == l->truncated + un && l->reward % 64 == 0 &&
	       l->terminated % 64 == 0 && l->truncated % 64 == 0 &&
	       l->final_obs % 64 == 0 && l->final_return % 64 == 0;
}

/* The regions the step streams through begin in different 4 KiB-aliased
 * places: no two of them a multiple of 4 KiB apart, the sizes that are
 * powers of two included (where rows n apart would all be). */
static int layout_spread(const weft_cartpole_layout *l)
{
	size_t at[6] = { l->obs,       l->reward,    l->terminated,
			 l->truncated, l->final_obs, l->final_return };

	for (int a = 0; a < 6; a++)
		for (int b = a + 1; b < 6; b++)
			if ((at[b] - at[a]) % 4096 == 0)
				return 0;
	return 1;
}

static void test_layout(void)
{
	static const uint32_t sizes[] = { 1,	7,     8,     1000,  1024,
					  4096, 65520, 65536, 65552, 1u << 20 };
	int ordered = 1, spread = 1;
	weft_cartpole_layout lay;

	for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		weft_cartpole_layout_of(sizes[k], &lay);
		ordered = ordered && layout_ordered(sizes[k], &lay);
		spread = spread && (sizes[k] < 1024 || layout_spread(&lay));
		if (sizes[k] == 65536)
			tap_ok(lay.total_bytes < 43 * (size_t)65536,
			       "65536 environments: the packed result is %zu "
			       "bytes, the padding %zu",
			       lay.total_bytes,
			       lay.total_bytes - 42 * (size_t)65536);
		if (sizes[k] == 8)
			tap_ok(lay.total_bytes <= 42 * 128,
			       "8 environments: the packed result is %zu bytes",
			       lay.total_bytes);
	}
	tap_ok(ordered, "the packed result's regions are in order, apart "
			"and 64-byte aligned, for 1 to 2^20 environments");
	tap_ok(spread, "no two regions a multiple of 4 KiB apart, powers of "
		       "two included");
}

static void test_determinism(void)
{
	weft_cartpole_layout lay;
	unsigned char *r[4];
	weft_cartpole_episode_stats st[4];
	int ok = 1;

	weft_cartpole_layout_of(4096, &lay);
	for (int k = 0; k < 4; k++)
		ok = (r[k] = malloc(lay.total_bytes)) && ok;
	ok = ok &&
	     run_fingerprint("simulation.seed=11", "backend.threads=1", r[0],
			     lay.total_bytes, &st[0]) &&
	     run_fingerprint("simulation.seed=11", "backend.threads=2", r[1],
			     lay.total_bytes, &st[1]) &&
	     run_fingerprint("simulation.seed=11", "backend.threads=2", r[2],
			     lay.total_bytes, &st[2]) &&
	     run_fingerprint("simulation.seed=12", "backend.threads=2", r[3],
			     lay.total_bytes, &st[3]);
	tap_ok(ok && memcmp(r[0], r[1], lay.total_bytes) == 0 &&
		       st[0].episodes == st[1].episodes &&
		       st[0].mean_return == st[1].mean_return,
	       "1 and 2 threads give identical results and statistics");
	tap_ok(ok && memcmp(r[1], r[2], lay.total_bytes) == 0,
	       "the same seed gives identical results");
	tap_ok(ok && memcmp(r[2], r[3], lay.total_bytes) != 0,
	       "another seed gives other results");
	for (int k = 0; k < 4; k++)
		free(r[k]);
}

/* ---- resets ---------------------------------------------------------------
 */

static void test_reset(void)
{
	enum { N = 4096 };
	float *o1 = malloc(16 * N), *o2 = malloc(16 * N);
	double lo = 1, hi = -1, mean = 0;
	long out = 0, same = 0;
	weft_cartpole_episode_stats st;
	cp_env e;
	int ok;

	cp_open(&e, N, NULL);
	ok = o1 && o2 && weft_cartpole_step(e.env, NULL, 50, NULL, 0) == 0 &&
	     weft_cartpole_reset(e.env, o1) == WEFT_OK &&
	     weft_cartpole_read(e.env, e.io, 0, e.lay.step_bytes) == WEFT_OK;
	for (size_t k = 0; ok && k < 4 * (size_t)N; k++) {
		out += !(o1[k] >= -0.05f && o1[k] < 0.05f);
		lo = o1[k] < lo ? o1[k] : lo;
		hi = o1[k] > hi ? o1[k] : hi;
		mean += o1[k] / (4.0 * N);
	}
	tap_ok(ok && out == 0 && lo < -0.0495 && hi > 0.0495 &&
		       fabs(mean) < 0.002,
	       "reset draws every value in [-0.05, 0.05), spread over it "
	       "(min %.5f, max %.5f, mean %.5f, %ld outside)",
	       lo, hi, mean, out);
	tap_ok(ok && memcmp(o1, e.io, 16 * N) == 0 && io_reward(&e, 7) == 0 &&
		       !io_term(&e, 7) && !io_trunc(&e, 7),
	       "after a reset the packed buffer shows the new observations, "
	       "reward 0 and no flags");
	ok = ok && weft_cartpole_reset(e.env, o2) == WEFT_OK;
	for (size_t k = 0; ok && k < 4 * (size_t)N; k++)
		same += o1[k] == o2[k];
	tap_ok(ok && same < 8,
	       "a second reset draws new states (%ld values repeat)", same);
	ok = ok && stats_of(&e, &st);
	tap_ok(ok && st.episodes == 0,
	       "episodes dropped by a reset are not counted (%llu counted; "
	       "50 steps are too few to end one)",
	       (unsigned long long)st.episodes);
	free(o1);
	free(o2);
	cp_close(&e);
}

/* ---- refusals -------------------------------------------------------------
 */

static void test_bad_actions(void)
{
	enum { N = 32 };
	uint8_t a[N];
	float before[4 * N], after[4 * N];
	weft_stats c0, c1;
	cp_env e;
	int ok;

	cp_open(&e, N, NULL);
	memset(a, 1, sizeof a);
	a[5] = 2;
	a[9] = 255;
	memset(&c0, 0, sizeof c0);
	memset(&c1, 0, sizeof c1);
	c0.struct_size = c1.struct_size = sizeof c0;
	ok = weft_cartpole_observe(e.env, before) == WEFT_OK &&
	     weft_cartpole_counters(e.env, &c0) == WEFT_OK;
	tap_ok(ok && weft_cartpole_step(e.env, a, 1, e.io, e.lay.step_bytes) ==
			       WEFT_E_INVALID,
	       "an action of 2 is refused with WEFT_E_INVALID");
	tap_contains(weft_context_error(e.ctx), "action 2 of environment 5",
		     "the message names the first bad index and value");
	ok = ok && weft_cartpole_counters(e.env, &c1) == WEFT_OK &&
	     weft_cartpole_observe(e.env, after) == WEFT_OK;
	tap_ok(ok &&
		       c1.xfer_count[WEFT_DIR_H2D] ==
			       c0.xfer_count[WEFT_DIR_H2D] &&
		       c1.launches == c0.launches &&
		       memcmp(before, after, sizeof before) == 0,
	       "nothing was sent, launched or changed");
	a[5] = 0;
	a[9] = 1;
	tap_ok(weft_cartpole_step(e.env, a, 2, NULL, 0) == WEFT_E_INVALID,
	       "host actions for 2 steps are refused (one buffer, one step)");
	tap_ok(weft_cartpole_step(e.env, a, 1, e.io, e.lay.total_bytes + 1) ==
		       WEFT_E_INVALID,
	       "a result larger than the packed buffer is refused");
	tap_ok(weft_cartpole_step(e.env, NULL, 3, e.io, 16) == WEFT_E_INVALID,
	       "the on-device policy refuses a host result buffer");
	tap_ok(weft_cartpole_read(e.env, e.io, e.lay.total_bytes - 3, 4) ==
		       WEFT_E_INVALID,
	       "a read past the packed buffer is refused");
	tap_ok(weft_cartpole_step(e.env, a, 1, NULL, 0) == WEFT_OK &&
		       weft_cartpole_step(e.env, a, 1, NULL, 0) == WEFT_OK &&
		       weft_cartpole_step(e.env, a, 1, NULL, 0) == WEFT_OK &&
		       weft_cartpole_read(e.env, e.io, 0, e.lay.step_bytes) ==
			       WEFT_OK,
	       "steps that leave results on the device, then a read, work");
	cp_close(&e);
}

static void test_open_errors(void)
{
	weft_context *ctx = NULL;
	weft_config *cfg = NULL;
	weft_cartpole *env = (weft_cartpole *)&ctx;
	char set[1100];
	int ok;

	/* The SEIR run is opened before its model is seen not to be
	 * CartPole: its outputs go to the test's directory, not to weft-out
	 * in the build tree (whose lock file distcheck would find). */
	snprintf(set, sizeof set, "output.directory=%s/seir", tap_tmpdir());
	if (weft_context_new(&ctx) || weft_config_new(ctx, &cfg) ||
	    weft_config_set(ctx, cfg, "simulation.model=seir") ||
	    weft_config_set(ctx, cfg, set))
		tap_bail("config: %s", weft_context_error(ctx));
	tap_ok(weft_cartpole_open(ctx, cfg, &env) == WEFT_E_CONFIG &&
		       env == NULL,
	       "opening a configuration of another model is refused");
	tap_contains(weft_context_error(ctx), "model = cartpole",
		     "and the message says what is needed");
	weft_config_free(cfg);
	ok = weft_cartpole_open(ctx, NULL, &env) == WEFT_OK;
	tap_ok(ok && weft_cartpole_count(env) == 4096 &&
		       strcmp(weft_cartpole_backend(env), "openmp") == 0,
	       "with no configuration: 4096 environments on the best "
	       "backend (%s)",
	       ok ? weft_cartpole_backend(env) : weft_context_error(ctx));
	weft_cartpole_close(env);
	weft_context_free(ctx);
}

/* ---- results on the device ------------------------------------------------
 */

static int array_of(cp_env *e, weft_cartpole_field f, weft_cartpole_array *a)
{
	memset(a, 0, sizeof *a);
	a->struct_size = sizeof *a;
	return weft_cartpole_device_array(e->env, f, a) == WEFT_OK;
}

/* The first byte of an array through a host handle. */
static const unsigned char *array_bytes(const weft_cartpole_array *a)
{
	return (const unsigned char *)a->mem.handle + a->mem.offset + a->offset;
}

/* Every field: where the layout says, with its type and shape; the
 * whole packed buffer; the same memory at every call. */
static void test_array_shapes(void)
{
	enum { N = 100 };
	static const struct {
		weft_cartpole_field f;
		uint32_t dtype, ndim;
		int64_t cols;
	} want[] = {
		{ WEFT_CARTPOLE_OBS, WEFT_CARTPOLE_F32, 2, 4 },
		{ WEFT_CARTPOLE_REWARD, WEFT_CARTPOLE_F32, 1, 0 },
		{ WEFT_CARTPOLE_TERMINATED, WEFT_CARTPOLE_U8, 1, 0 },
		{ WEFT_CARTPOLE_TRUNCATED, WEFT_CARTPOLE_U8, 1, 0 },
		{ WEFT_CARTPOLE_FINAL_OBS, WEFT_CARTPOLE_F32, 2, 4 },
		{ WEFT_CARTPOLE_FINAL_RETURN, WEFT_CARTPOLE_F32, 1, 0 },
	};
	weft_cartpole_array a, packed, again;
	cp_env e;
	int ok, bad = 0;

	cp_open(&e, N, NULL);
	ok = array_of(&e, WEFT_CARTPOLE_PACKED, &packed);
	tap_ok(ok && packed.mem.kind == WEFT_NATIVE_HOST && packed.mem.handle &&
		       packed.mem.device == 0 &&
		       packed.mem.bytes == e.lay.total_bytes &&
		       packed.offset == 0 &&
		       packed.bytes == e.lay.total_bytes &&
		       packed.dtype == WEFT_CARTPOLE_U8 &&
		       packed.shape[0] == (int64_t)e.lay.total_bytes,
	       "the packed buffer on openmp: host memory of device 0, "
	       "%zu bytes (%s)",
	       packed.mem.bytes, weft_context_error(e.ctx));
	for (size_t k = 0; ok && k < sizeof want / sizeof want[0]; k++) {
		const size_t offs[] = { e.lay.obs,	  e.lay.reward,
					e.lay.terminated, e.lay.truncated,
					e.lay.final_obs,  e.lay.final_return };
		size_t elem = want[k].dtype == WEFT_CARTPOLE_F32 ? 4 : 1;
		size_t cols = want[k].cols ? (size_t)want[k].cols : 1;

		ok = array_of(&e, want[k].f, &a);
		bad += !ok || a.offset != offs[k] || a.dtype != want[k].dtype ||
		       a.ndim != want[k].ndim || a.shape[0] != N ||
		       a.shape[1] != want[k].cols ||
		       a.strides[0] != (int64_t)cols ||
		       (a.ndim == 2 && a.strides[1] != 1) ||
		       a.bytes != elem * cols * N ||
		       a.offset + a.bytes > packed.mem.bytes ||
		       a.mem.handle != packed.mem.handle;
	}
	tap_ok(ok && bad == 0,
	       "every array lies where the layout says, with its type, shape "
	       "and strides (%d wrong)",
	       bad);
	ok = ok && array_of(&e, WEFT_CARTPOLE_PACKED, &again);
	tap_ok(ok && memcmp(&again, &packed, sizeof again) == 0,
	       "a second call gives the same answer");
	memset(&a, 0, sizeof a);
	a.struct_size = sizeof a - 1;
	tap_ok(weft_cartpole_device_array(e.env, WEFT_CARTPOLE_OBS, &a) ==
			       WEFT_E_INVALID &&
		       weft_cartpole_device_array(e.env, (weft_cartpole_field)8,
						  &again) == WEFT_E_INVALID,
	       "a short struct and an unknown field are refused");
	tap_contains(weft_context_error(e.ctx), "unknown field 8",
		     "  ...naming the field");
	cp_close(&e);
}

/* Host steps that leave their results on the device, then a fence and a
 * wait: the memory behind the handle is the packed result, and nothing
 * was read back or synchronised. */
static void test_array_fenced(void)
{
	enum { N = 300, T = 40 };
	weft_cartpole_array packed, obs;
	weft_stats c0 = { .struct_size = sizeof c0 };
	weft_stats c1 = { .struct_size = sizeof c1 };
	uint8_t act[N];
	uint64_t tok = 0;
	float *o = malloc(16 * N);
	cp_env e;
	int ok;

	cp_open(&e, N, NULL);
	ok = o && array_of(&e, WEFT_CARTPOLE_PACKED, &packed) &&
	     array_of(&e, WEFT_CARTPOLE_OBS, &obs) &&
	     weft_cartpole_counters(e.env, &c0) == WEFT_OK;
	for (uint32_t t = 0; ok && t < T; t++) {
		for (uint32_t i = 0; i < N; i++)
			act[i] = fixed_action(i, t);
		ok = weft_cartpole_step(e.env, act, 1, NULL, 0) == WEFT_OK;
	}
	ok = ok && weft_cartpole_fence(e.env, &tok) == WEFT_OK &&
	     weft_cartpole_wait(e.env, tok) == WEFT_OK &&
	     weft_cartpole_counters(e.env, &c1) == WEFT_OK;
	/* Each step waits for the fence after the step two before it, whose
	 * staged actions it reuses: fence waits, never a sync. */
	tap_ok(ok && c1.syncs == c0.syncs &&
		       c1.fence_waits == c0.fence_waits + T - 1 &&
		       c1.xfer_count[WEFT_DIR_D2H] ==
			       c0.xfer_count[WEFT_DIR_D2H],
	       "%d host steps, a fence and a wait: no sync, nothing read "
	       "back (syncs +%llu, fence waits +%llu, D2H +%llu)",
	       T, (unsigned long long)(c1.syncs - c0.syncs),
	       (unsigned long long)(c1.fence_waits - c0.fence_waits),
	       (unsigned long long)(c1.xfer_count[WEFT_DIR_D2H] -
				    c0.xfer_count[WEFT_DIR_D2H]));
	ok = ok && weft_cartpole_read(e.env, e.io, 0, e.lay.total_bytes) == 0;
	tap_ok(ok && memcmp(array_bytes(&packed), e.io, e.lay.total_bytes) == 0,
	       "after the wait the handle holds the packed result that "
	       "weft_cartpole_read gives");
	/* The on-device policy leaves observations stale; a fence packs them.
	 */
	ok = ok && weft_cartpole_step(e.env, NULL, 25, NULL, 0) == WEFT_OK &&
	     weft_cartpole_fence(e.env, &tok) == WEFT_OK &&
	     weft_cartpole_wait(e.env, tok) == WEFT_OK;
	tap_ok(ok && weft_cartpole_observe(e.env, o) == WEFT_OK &&
		       memcmp(array_bytes(&obs), o, 16 * N) == 0,
	       "after policy steps, a fence and a wait: the handle holds the "
	       "observations weft_cartpole_observe gives");
	tap_ok(weft_cartpole_wait(e.env, tok + 1) == WEFT_E_INVALID,
	       "waiting on a token no fence returned is refused");
	tap_contains(weft_context_error(e.ctx), "was not returned",
		     "  ...saying so");
	free(o);
	cp_close(&e);
}

/* ---- actions from device memory --------------------------------------------
 */

/* The action buffer: its own host memory on openmp, n bytes, zeros after
 * open, apart from the packed result. */
static int check_action_array(cp_env *e, weft_cartpole_array *act)
{
	weft_cartpole_array packed;
	uint64_t tok;
	int ok, zeros = 1;

	ok = array_of(e, WEFT_CARTPOLE_ACTIONS, act) &&
	     array_of(e, WEFT_CARTPOLE_PACKED, &packed) &&
	     weft_cartpole_fence(e->env, &tok) == WEFT_OK &&
	     weft_cartpole_wait(e->env, tok) == WEFT_OK;
	for (uint32_t i = 0; ok && i < e->n; i++)
		zeros &= array_bytes(act)[i] == 0;
	return tap_ok(
		ok && act->mem.kind == WEFT_NATIVE_HOST && act->mem.handle &&
			act->mem.handle != packed.mem.handle &&
			act->mem.bytes >= e->n && act->offset == 0 &&
			act->bytes == e->n && act->dtype == WEFT_CARTPOLE_U8 &&
			act->ndim == 1 && act->shape[0] == (int64_t)e->n &&
			act->strides[0] == 1 && zeros,
		"the action array: host memory of its own on openmp, "
		"u8 [%u], zeros after open (%s)",
		e->n, weft_context_error(e->ctx));
}

/* Steps from actions written in place (1 written as 1, 2 or 255: clamped
 * to push right) give, bit for bit, the packed results of host steps with
 * the same actions, and send nothing; half of them leave their results on
 * the device and are fenced, as a training loop on a GPU would. */
static void test_device_actions(void)
{
	enum { N = 64, T = 120 };
	weft_stats c0 = { .struct_size = sizeof c0 };
	weft_stats c1 = { .struct_size = sizeof c1 };
	weft_cartpole_array act;
	uint8_t a[N];
	uint64_t tok;
	cp_env dev, host;
	long differ = 0;
	int ok;

	cp_open(&dev, N, NULL);
	cp_open(&host, N, NULL);
	ok = check_action_array(&dev, &act) &&
	     weft_cartpole_counters(dev.env, &c0) == WEFT_OK;
	for (uint32_t t = 0; ok && t < T; t++) {
		int waits = t % 2 == 0;

		for (uint32_t i = 0; i < N; i++) {
			a[i] = fixed_action(i, t);
			((uint8_t *)act.mem.handle)[i] =
				a[i] ? (uint8_t[]){ 1, 2, 255 }[i % 3] : 0;
		}
		ok = weft_cartpole_step(host.env, a, 1, host.io,
					host.lay.total_bytes) == WEFT_OK &&
		     weft_cartpole_step_device(dev.env, waits ? dev.io : NULL,
					       waits ? dev.lay.total_bytes
						     : 0) == WEFT_OK;
		if (ok && !waits)
			ok = weft_cartpole_fence(dev.env, &tok) == WEFT_OK &&
			     weft_cartpole_wait(dev.env, tok) == WEFT_OK &&
			     weft_cartpole_read(dev.env, dev.io, 0,
						dev.lay.total_bytes) == WEFT_OK;
		differ += ok && memcmp(dev.io, host.io, dev.lay.total_bytes);
	}
	ok = ok && weft_cartpole_counters(dev.env, &c1) == WEFT_OK;
	tap_ok(ok && differ == 0,
	       "%d steps with actions written in place (nonzero clamped to "
	       "push right) equal host-action steps bit for bit (%ld differ; "
	       "%s)",
	       T, differ, weft_context_error(dev.ctx));
	tap_ok(ok &&
		       c1.xfer_count[WEFT_DIR_H2D] ==
			       c0.xfer_count[WEFT_DIR_H2D] &&
		       c1.launches - c0.launches >= T,
	       "  ...with no host-to-device transfer (H2D +%llu, launches "
	       "+%llu)",
	       (unsigned long long)(c1.xfer_count[WEFT_DIR_H2D] -
				    c0.xfer_count[WEFT_DIR_H2D]),
	       (unsigned long long)(c1.launches - c0.launches));
	memset(a, 1, sizeof a);
	a[3] = 0;
	ok = weft_cartpole_step(dev.env, a, 1, dev.io, dev.lay.step_bytes) ==
		     WEFT_OK &&
	     memcmp(act.mem.handle, a, N) == 0;
	tap_ok(ok, "a host-action step leaves its actions in the action "
		   "array");
	tap_ok(weft_cartpole_step_device(dev.env, dev.io,
					 dev.lay.total_bytes + 1) ==
			       WEFT_E_INVALID &&
		       weft_cartpole_step_device(dev.env, NULL, 16) ==
			       WEFT_E_INVALID &&
		       weft_cartpole_step_device(NULL, NULL, 0) ==
			       WEFT_E_INVALID,
	       "a device-action step refuses a result larger than the packed "
	       "buffer, a size with no buffer and no environments");
	tap_contains(weft_context_error(dev.ctx), "weft_cartpole_step_device",
		     "  ...naming the call");
	cp_close(&dev);
	cp_close(&host);
}

/* ---- weft run -------------------------------------------------------------
 */

/* Counters of a finished run: the statistics rows went through the output
 * pipeline (a snapshot copy, an asynchronous read and a fence wait per
 * row), with one sync in all, at the end, not one per row. */
static void run_counters(weft_sim *sim, int ok)
{
	weft_stats c = { .struct_size = sizeof c };

	ok = ok && weft_sim_stats(sim, &c) == WEFT_OK;
	tap_ok(ok && c.steps == 230 && c.launches == 690,
	       "the run counted 230 steps of 3 launches (%llu, %llu)",
	       (unsigned long long)c.steps, (unsigned long long)c.launches);
	tap_ok(ok && c.fence_waits == 5 && c.syncs == 1,
	       "one fence wait per output row and one sync at the end, no "
	       "sync per row (%llu fence waits, %llu syncs)",
	       (unsigned long long)c.fence_waits, (unsigned long long)c.syncs);
	tap_ok(ok && c.xfer_count[WEFT_DIR_D2D] == 5 &&
		       c.xfer_count[WEFT_DIR_D2H] == 5 &&
		       c.xfer_bytes[WEFT_DIR_D2H] == 5 * 32,
	       "one snapshot copy and one 32-byte read per row (%llu copies, "
	       "%llu reads of %llu bytes)",
	       (unsigned long long)c.xfer_count[WEFT_DIR_D2D],
	       (unsigned long long)c.xfer_count[WEFT_DIR_D2H],
	       (unsigned long long)c.xfer_bytes[WEFT_DIR_D2H]);
}

/* `weft run`'s statistics CSV: a row every 50 steps whose counts add up
 * to the API's device reduction of the same run. */
static void test_run_csv(void)
{
	char dir[600], set[700], path[700];
	weft_context *ctx = NULL;
	weft_config *cfg = NULL;
	weft_sim *sim = NULL;
	weft_cartpole_episode_stats st;
	unsigned long long rows = 0, episodes = 0, step, ep, last = 0;
	char *csv = NULL, *line;
	cp_env e;
	int ok;

	snprintf(dir, sizeof dir, "%s/run", tap_tmpdir());
	snprintf(set, sizeof set, "output.directory=%s", dir);
	ok = weft_context_new(&ctx) == 0 && weft_config_new(ctx, &cfg) == 0 &&
	     weft_config_set(ctx, cfg, set) == 0 &&
	     weft_config_set(ctx, cfg, "simulation.model=cartpole") == 0 &&
	     weft_config_set(ctx, cfg, "simulation.seed=7") == 0 &&
	     weft_config_set(ctx, cfg, "simulation.steps=230") == 0 &&
	     weft_config_set(ctx, cfg, "output.every=50") == 0 &&
	     weft_config_set(ctx, cfg, "cartpole.envs=512") == 0 &&
	     weft_sim_open(ctx, cfg, &sim) == 0 && weft_sim_finish(sim) == 0;
	tap_ok(ok, "weft run of cartpole (%s)", weft_context_error(ctx));
	run_counters(sim, ok);
	snprintf(path, sizeof path, "%s/episodes.csv", dir);
	csv = ok ? tap_read_file(path, NULL) : NULL;
	for (line = csv ? strchr(csv, '\n') : NULL; line && line[1];
	     line = strchr(line + 1, '\n')) {
		if (sscanf(line + 1, "%llu,%llu", &step, &ep) != 2)
			break;
		rows++;
		episodes += ep;
		last = step;
	}
	tap_ok(rows == 5 && last == 230,
	       "episodes.csv has a row every 50 steps and one at the end "
	       "(%llu rows, last at step %llu)",
	       rows, last);
	cp_open(&e, 512, NULL);
	ok = weft_cartpole_step(e.env, NULL, 230, NULL, 0) == WEFT_OK &&
	     stats_of(&e, &st);
	tap_ok(ok && st.episodes == episodes && episodes > 0,
	       "its rows add up to the API's reduction of the same run (%llu "
	       "and %llu episodes)",
	       episodes, (unsigned long long)st.episodes);
	cp_close(&e);
	free(csv);
	weft_sim_close(sim);
	weft_config_free(cfg);
	weft_context_free(ctx);
}

int main(void)
{
	test_trajectories();
	test_truncation(500, NULL);
	test_truncation(37, "cartpole.max_episode_steps=37");
	test_policy();
	test_stats();
	test_layout();
	test_determinism();
	test_reset();
	test_bad_actions();
	test_open_errors();
	test_array_shapes();
	test_array_fenced();
	test_device_actions();
	test_run_csv();
	return tap_done();
}
