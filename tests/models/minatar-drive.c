/*
 * tests/models/minatar-drive.c - the MinAtar model (models/minatar) driven
 * through libweft's run API as any application drives an environment
 * model (weft/env.h): the views and the lists "act" and "reset_some".
 *
 *   minatar-drive test
 *       TAP: the protocol (spaces, views, the three autoreset modes,
 *       seeded resets equal across environment indices, truncation at
 *       max_episode_steps, Breakout's termination), on the backend of
 *       $MINATAR_BACKEND (default openmp).
 *   minatar-drive games
 *       TAP: Asterix, Freeway, Space Invaders and Seaquest (spaces,
 *       first states, termination, truncation, Freeway's crossings,
 *       difficulty ramping on and off, sticky actions).
 *   minatar-drive digest GAME BACKEND THREADS [AUTORESET [STICKY [ENVS
 *                        [POLICY [MAX_STEPS]]]]]
 *       a hash of every view after each of 400 steps of ENVS (96)
 *       environments: equal on every backend and thread count; POLICY
 *       random (uniform over the game's actions), wide (any byte) or,
 *       for Breakout, track (the paddle follows the ball: the output
 *       also counts environment steps left without a brick).
 *   minatar-drive trace FILE ENVS STEPS SEED STICKY MAX_STEPS [BACKEND
 *   [POLICY [GAME [RAMPING]]]]
 *       ENVS environments for STEPS steps of uniformly random actions
 *       (an LCG of SEED; POLICY track: towards the ball's column 15 times
 *       in 16, for longer episodes; follow: always, for episodes that
 *       clear the bricks; other games: track plays the game's "busy"
 *       action 3 times in 4, Space Invaders' follow plants first states
 *       with one row of aliens and shoots ahead of them), GAME
 *       (default breakout) and RAMPING (true/false), autoreset disabled,
 * ended environments reset through reset_some; for every environment step one
 * record of MD_RECORD(B) bytes (B the observation's bytes) to FILE
 * (bench/minatar-compare.py reads it): state before (128 u8), time before
 * (u32), action (u8), obs after (B u8), reward (f32), terminated (u8),
 * truncated (u8), state after (128 u8), reset (u8: 1 when this record is a
 * reset, state before = state after = the new episode's first state).
 *
 * The model is found through $WEFT_MODEL_PATH, the backend through
 * $WEFT_PLUGIN_PATH.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/weft.h>

#include "tap.h"

#define MD_STATE 128
#define MD_OBS	 400 /* Breakout's observation bytes (test mode) */
/* A trace record for observations of ob bytes. */
#define MD_RECORD(ob) (MD_STATE + 4 + 1 + (ob) + 4 + 1 + 1 + MD_STATE + 1)

typedef struct md_env {
	weft_context *ctx;
	weft_config *cfg;
	weft_sim *sim;
	uint32_t n, act, reset_some;
	weft_array obs, reward, term, trunc, final_obs, actions, mask, seed,
		state, book;
} md_env;

static int md_fail(md_env *e, const char *what)
{
	fprintf(stderr, "minatar-drive: %s: %s\n", what,
		e->ctx ? weft_context_error(e->ctx) : "no context");
	return 1;
}

static int md_view(md_env *e, const char *name, weft_array *a)
{
	a->struct_size = sizeof *a;
	return weft_sim_array_find(e->sim, name, a) != WEFT_OK;
}

/* Open the model with these settings ('\n'-separated), or, with resume
 * set, continue the run checkpointed there. */
static int md_open_from(md_env *e, const char *backend, const char *sets,
			const char *resume)
{
	char line[256];
	const char *p = sets;

	memset(e, 0, sizeof *e);
	if (weft_context_new(&e->ctx) || weft_config_new(e->ctx, &e->cfg))
		return md_fail(e, "context");
	snprintf(line, sizeof line, "backend.name=%s", backend);
	if (weft_config_set(e->ctx, e->cfg, "simulation.model=minatar") ||
	    weft_config_set(e->ctx, e->cfg, line) ||
	    weft_config_set(e->ctx, e->cfg, "output.summary=false") ||
	    weft_config_set(e->ctx, e->cfg, "output.summary=false"))
		return md_fail(e, "settings");
	snprintf(line, sizeof line, "output.directory=%s/out", tap_tmpdir());
	if (weft_config_set(e->ctx, e->cfg, line))
		return md_fail(e, line);
	while (*p) {
		size_t k = strcspn(p, "\n");

		snprintf(line, sizeof line, "%.*s", (int)k, p);
		if (weft_config_set(e->ctx, e->cfg, line))
			return md_fail(e, line);
		p += k + (p[k] == '\n');
	}
	if (resume ? weft_sim_resume(e->ctx, e->cfg, resume, &e->sim)
		   : weft_sim_open(e->ctx, e->cfg, &e->sim))
		return md_fail(e, resume ? "weft_sim_resume" : "weft_sim_open");
	if (md_view(e, "obs", &e->obs) || md_view(e, "reward", &e->reward) ||
	    md_view(e, "terminated", &e->term) ||
	    md_view(e, "truncated", &e->trunc) ||
	    md_view(e, "final_obs", &e->final_obs) ||
	    md_view(e, "actions", &e->actions) ||
	    md_view(e, "reset_mask", &e->mask) ||
	    md_view(e, "reset_seed", &e->seed) ||
	    md_view(e, "state", &e->state) || md_view(e, "env_book", &e->book))
		return md_fail(e, "views");
	if (weft_sim_list(e->sim, "act", &e->act) ||
	    weft_sim_list(e->sim, "reset_some", &e->reset_some))
		return md_fail(e, "lists");
	e->n = (uint32_t)e->obs.shape[0];
	return 0;
}

static int md_open(md_env *e, const char *backend, const char *sets)
{
	return md_open_from(e, backend, sets, NULL);
}

static void md_close(md_env *e)
{
	weft_sim_close(e->sim);
	weft_config_free(e->cfg);
	weft_context_free(e->ctx);
}

static int md_read(md_env *e, const weft_array *a, void *dst)
{
	return weft_sim_read(e->sim, dst, a->buffer, a->offset, a->bytes, 0) !=
	       WEFT_OK;
}

static int md_write(md_env *e, const weft_array *a, const void *src)
{
	return weft_sim_write(e->sim, a->buffer, a->offset, src, a->bytes, 0) !=
	       WEFT_OK;
}

/* One launch of a list, waited for. */
static int md_run(md_env *e, uint32_t list)
{
	return weft_sim_launch(e->sim, list, 1) || weft_sim_sync(e->sim);
}

/* Everything a step shows, one environment's slices. */
typedef struct md_snap {
	uint8_t obs[64][MD_OBS], final_obs[64][MD_OBS];
	uint8_t state[64][MD_STATE], term[64], trunc[64];
	float reward[64];
	uint32_t book[10 * 64];
} md_snap;

static int md_snap_read(md_env *e, md_snap *s)
{
	return md_read(e, &e->obs, s->obs) ||
	       md_read(e, &e->final_obs, s->final_obs) ||
	       md_read(e, &e->state, s->state) ||
	       md_read(e, &e->term, s->term) ||
	       md_read(e, &e->trunc, s->trunc) ||
	       md_read(e, &e->reward, s->reward) ||
	       md_read(e, &e->book, s->book);
}

/* Step every environment with the same action. */
static int md_step_all(md_env *e, uint8_t a, md_snap *s)
{
	uint8_t acts[64];

	memset(acts, a, sizeof acts);
	return md_write(e, &e->actions, acts) || md_run(e, e->act) ||
	       md_snap_read(e, s);
}

/* ---- test ---------------------------------------------------------------- */

/* Env i's ball starts in column 0 (it terminates at step 6 under no-op:
 * it reaches row 9 in column 6, the paddle in column 4) or 9 (it lands
 * on the paddle at step 6 and bounces). */
static void test_spaces(md_env *e)
{
	weft_env_info info = { .struct_size = sizeof info };
	int ok = weft_sim_env(e->sim, &info) == WEFT_OK;

	tap_ok(ok && info.num_envs == 64 &&
		       info.observation.kind == WEFT_SPACE_BOX &&
		       info.observation.dtype == WEFT_DTYPE_U8 &&
		       info.observation.ndim == 3 &&
		       info.observation.shape[0] == 10 &&
		       info.observation.shape[2] == 4 &&
		       info.observation.high[399] == 1.0 &&
		       info.observation.low[0] == 0.0 &&
		       info.action.kind == WEFT_SPACE_DISCRETE &&
		       info.action.n == 3,
	       "spaces: Box u8 [10, 10, 4] in [0, 1], Discrete(3); 64 envs");
	tap_ok(e->obs.ndim == 4 && e->obs.shape[1] == 10 &&
		       e->obs.shape[3] == 4 && e->state.shape[1] == MD_STATE,
	       "views: obs [64, 10, 10, 4], state [64, 128]");
}

/* Under no-op, every environment's episode: side-0 ones terminate at
 * step 6 (reward 0), side-9 ones are alive. Returns the count of
 * side-0 environments, their indices in left[]. */
static int test_first_episode(md_env *e, md_snap *s, const char *mode,
			      int *left)
{
	md_snap s0;
	int nl = 0, good = 1, i;

	if (md_snap_read(e, &s0))
		return -1;
	for (i = 0; i < 64; i++)
		if (s0.state[i][0] == 0)
			left[nl++] = i;
	for (int t = 1; t <= 6; t++) {
		if (md_step_all(e, 0, s))
			return -1;
		for (i = 0; i < 64; i++) {
			int l = s0.state[i][0] == 0;
			int want = t == 6 && l;

			good &= s->term[i] == want && s->trunc[i] == 0 &&
				s->reward[i] == 0.0f;
		}
	}
	tap_ok(good && nl > 8 && nl < 56,
	       "%s: under no-op, the %d envs whose ball starts in column 0 "
	       "terminate at step 6, the %d others bounce on the paddle",
	       mode, nl, 64 - nl);
	return nl;
}

static void test_modes(void)
{
	md_env e;
	md_snap *s = calloc(1, sizeof *s), *s2 = calloc(1, sizeof *s2);
	int left[64], nl, good, i;

	/* next_step. */
	if (md_open(&e,
		    getenv("MINATAR_BACKEND") ? getenv("MINATAR_BACKEND")
					      : "openmp",
		    "minatar.envs=64\nminatar.repeat_action_probability=0\n"
		    "minatar.autoreset=next_step\nsimulation.seed=5"))
		tap_bail("cannot open the model");
	test_spaces(&e);
	nl = test_first_episode(&e, s, "next_step", left);
	good = nl > 0;
	/* The terminal observation: ball in row 9, column 6. */
	for (i = 0; i < nl; i++)
		good &= s->obs[left[i]][(96) * 4 + 1] == 1;
	if (md_step_all(&e, 0, s2))
		tap_bail("step");
	for (i = 0; i < nl; i++)
		good &= s2->reward[left[i]] == 0.0f && !s2->term[left[i]] &&
			s2->book[4 * 64 + left[i]] == 1 &&
			s2->book[5 * 64 + left[i]] == 0 &&
			s2->obs[left[i]][(30 + s2->state[left[i]][0]) * 4 + 1];
	tap_ok(good, "next_step: the terminal observation shows the ball in "
		     "row 9; the next step begins episode 1 (reward 0, no "
		     "flags, t = 0, the ball on row 3)");
	md_close(&e);

	/* same_step. */
	if (md_open(&e, "openmp",
		    "minatar.envs=64\nminatar.repeat_action_probability=0\n"
		    "minatar.autoreset=same_step\nsimulation.seed=5"))
		tap_bail("cannot open the model");
	nl = test_first_episode(&e, s, "same_step", left);
	good = nl > 0;
	for (i = 0; i < nl; i++)
		good &= s->final_obs[left[i]][96 * 4 + 1] == 1 &&
			s->obs[left[i]][(30 + s->state[left[i]][0]) * 4 + 1] ==
				1 &&
			s->book[4 * 64 + left[i]] == 1 &&
			s->book[8 * 64 + left[i]] == 1;
	tap_ok(good, "same_step: final_obs is the terminal observation, obs "
		     "episode 1's first; one episode counted");
	md_close(&e);

	/* disabled: a terminal environment stays as it is; reset_some. */
	if (md_open(&e, "openmp",
		    "minatar.envs=64\nminatar.repeat_action_probability=0\n"
		    "minatar.autoreset=disabled\nsimulation.seed=5"))
		tap_bail("cannot open the model");
	nl = test_first_episode(&e, s, "disabled", left);
	if (md_step_all(&e, 2, s2))
		tap_bail("step");
	good = nl > 0;
	for (i = 0; i < nl; i++)
		good &= s2->term[left[i]] == 1 && s2->reward[left[i]] == 0.0f &&
			memcmp(s->state[left[i]], s2->state[left[i]],
			       MD_STATE - 120) == 0;
	tap_ok(good, "disabled: a terminated environment stepped again stays "
		     "terminal with reward 0 (MinAtar's act)");
	{
		uint8_t mask[64] = { 0 };
		uint64_t seeds[64] = { 0 };

		for (i = 0; i < 64; i++) {
			mask[i] = i % 2 ? 2 : 0;
			seeds[i] = 777;
		}
		mask[left[0]] = 1;
		if (md_write(&e, &e.mask, mask) ||
		    md_write(&e, &e.seed, seeds) || md_run(&e, e.reset_some) ||
		    md_snap_read(&e, s2))
			tap_bail("reset_some");
		good = s2->term[left[0]] == 0 &&
		       s2->book[5 * 64 + left[0]] == 0;
		for (i = 3; i < 64; i += 2)
			good &= memcmp(s2->state[i], s2->state[1], MD_STATE) ==
					0 &&
				memcmp(s2->obs[i], s2->obs[1], MD_OBS) == 0;
		tap_ok(good, "reset_some: next episode where asked; envs "
			     "reset with the same seed start the same");
		/* ... and go on the same under the same actions. */
		for (int t = 0; t < 30 && good; t++) {
			if (md_step_all(&e, (uint8_t)(t % 3), s2))
				tap_bail("step");
			for (i = 3; i < 64; i += 2)
				good &= memcmp(s2->state[i], s2->state[1],
					       MD_STATE) == 0;
		}
		tap_ok(good, "seeded environments stay equal for 30 steps");
	}
	md_close(&e);

	/* Truncation. */
	if (md_open(&e, "openmp",
		    "minatar.envs=64\nminatar.max_episode_steps=5\n"
		    "minatar.autoreset=same_step\nsimulation.seed=9"))
		tap_bail("cannot open the model");
	good = 1;
	for (int t = 1; t <= 5; t++) {
		if (md_step_all(&e, 1, s))
			tap_bail("step");
		for (i = 0; i < 64; i++)
			good &= s->trunc[i] == (t == 5) && !s->term[i];
	}
	tap_ok(good && s->book[5 * 64] == 0 && s->book[4 * 64] == 1,
	       "max_episode_steps = 5: every episode truncated at step 5, "
	       "none before");
	md_close(&e);
	free(s);
	free(s2);
}

/* ---- trace --------------------------------------------------------------- */

static uint64_t md_lcg(uint64_t *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return *x >> 33;
}

/* An enemy bullet on rows 5 to 8 of column x. */
static int md_si_danger(const uint8_t *s, int x)
{
	int any = 0;

	for (int y = 5; y < 9; y++)
		any |= (s[56 + 2 * y] | s[57 + 2 * y] << 8) >> x & 1;
	return any;
}

/* Space Invaders' follow policy: fire when an alien is above the
 * cannon, else move towards the nearest column holding one (waves
 * cleared, the difficulty ramping). */
static uint8_t md_si_follow(const uint8_t *s)
{
	int pos = s[0], best = -1;

	for (int x = 0; x < 10; x++) {
		int any = 0;

		for (int y = 0; y < 10; y++)
			any |= (s[16 + 2 * y] | s[17 + 2 * y] << 8) >> x & 1;
		if (any && (best < 0 || abs(x - pos) < abs(best - pos)))
			best = x;
	}
	/* An enemy bullet coming down on the cannon: step aside; never
	 * step under one. */
	if (md_si_danger(s, pos))
		return pos < 9 && !md_si_danger(s, pos + 1) ? 2 : 1;
	/* With few aliens left they move often: aim where the lowest
	 * alien of that column will be when a bullet gets there. */
	if (best >= 0) {
		int low = 0, count = 0, period, dir = s[1] == 255 ? -1 : 1;

		for (int y = 0; y < 10; y++) {
			int row = s[16 + 2 * y] | s[17 + 2 * y] << 8;

			for (int x = 0; x < 10; x++)
				count += row >> x & 1;
			if (row >> best & 1)
				low = y;
		}
		period = count < s[2] ? count : s[2];
		best += dir * ((9 - low) / period);
		best = best < 0 ? 0 : best > 9 ? 9 : best;
	}
	if (best < 0 || best == pos)
		return 3;
	if (md_si_danger(s, best < pos ? pos - 1 : pos + 1))
		return 3;
	return best < pos ? 1 : 2;
}

/* Planted first states of the environments mask marks, written back to
 * the model through its state view: Space Invaders' aliens of rows 0 to
 * 2 removed; Seaquest's sub one row down with 6 divers aboard. */
static int md_plant(md_env *e, uint8_t *st, const uint8_t *mask, uint32_t n)
{
	int sq = e->obs.shape[3] == 10;

	for (uint32_t i = 0; i < n; i++) {
		uint8_t *s = st + (size_t)i * MD_STATE;

		if (!mask[i])
			continue;
		if (!sq) {
			memset(s + 16, 0, 6);
			continue;
		}
		s[3] = 1;  /* sub_y */
		s[5] = 6;  /* diver_count */
		s[13] = 0; /* surface */
	}
	return md_write(e, &e->state, st);
}

/* The "busy" action of a game (trace's track policy). */
static uint8_t md_busy(const char *game, uint64_t *x)
{
	if (strcmp(game, "freeway") == 0)
		return 1;
	if (strcmp(game, "asterix") == 0)
		return (uint8_t)(2 + 2 * (md_lcg(x) & 1));
	if (strcmp(game, "seaquest") == 0)
		return 5;
	return 3;
}

/* The size of the action space. */
static uint32_t md_actions(md_env *e)
{
	weft_env_info info = { .struct_size = sizeof info };

	return weft_sim_env(e->sim, &info) == WEFT_OK && info.action.n > 0
		       ? (uint32_t)info.action.n
		       : 3;
}

static int trace(int argc, char **argv)
{
	md_env e;
	char sets[512];
	uint32_t n = (uint32_t)strtoul(argv[3], NULL, 10);
	unsigned long steps = strtoul(argv[4], NULL, 10);
	uint64_t x = strtoull(argv[5], NULL, 10);
	int track = argc > 9 && strcmp(argv[9], "track") == 0;
	int follow = argc > 9 && strcmp(argv[9], "follow") == 0;
	const char *game = argc > 10 ? argv[10] : "breakout";
	const char *ramping = argc > 11 ? argv[11] : "true";
	/* Space Invaders' follow: each first state keeps only its lowest
	 * row of aliens, so that waves are cleared (and ramp); Seaquest's:
	 * each begins one row down with 6 divers aboard, and goes up (a
	 * full load surfaced, then MinAtar's count of -1). */
	int plant = follow && (strcmp(game, "space_invaders") == 0 ||
			       strcmp(game, "seaquest") == 0);
	size_t ob, rsz;
	uint32_t na;
	uint8_t *st0, *st1, *obs, *term, *trunc, *act, *mask, *rec;
	uint32_t *book;
	float *rew;
	FILE *f;
	int rc = 1;

	snprintf(sets, sizeof sets,
		 "minatar.envs=%u\nminatar.repeat_action_probability=%s\n"
		 "minatar.max_episode_steps=%s\nminatar.autoreset=disabled\n"
		 "simulation.seed=%s\nminatar.game=%s\n"
		 "minatar.difficulty_ramping=%s",
		 n, argv[6], argv[7], argv[5], game, ramping);
	if (md_open(&e, argc > 8 ? argv[8] : "openmp", sets))
		return 1;
	ob = (size_t)(e.obs.bytes / n);
	rsz = MD_RECORD(ob);
	na = md_actions(&e);
	st0 = malloc((size_t)n * MD_STATE);
	st1 = malloc((size_t)n * MD_STATE);
	obs = malloc((size_t)n * ob);
	term = malloc(n), trunc = malloc(n), act = malloc(n), mask = malloc(n);
	book = malloc((size_t)n * 40);
	rew = malloc((size_t)n * 4);
	rec = malloc(rsz);
	f = fopen(argv[2], "wb");
	if (!f || !st0 || !st1 || !obs || !term || !trunc || !act || !mask ||
	    !book || !rew || !rec)
		goto done;
	memset(mask, 1, n);
	if (md_read(&e, &e.state, st1) || (plant && md_plant(&e, st1, mask, n)))
		goto done;
	memcpy(st0, st1, (size_t)n * MD_STATE);
	/* The first states, as reset records. */
	for (uint32_t i = 0; i < n; i++) {
		memset(rec, 0, rsz);
		memcpy(rec, st0 + (size_t)i * MD_STATE, MD_STATE);
		memcpy(rec + rsz - 1 - MD_STATE, st0 + (size_t)i * MD_STATE,
		       MD_STATE);
		rec[rsz - 1] = 1;
		fwrite(rec, 1, rsz, f);
	}
	for (unsigned long t = 0; t < steps; t++) {
		for (uint32_t i = 0; i < n; i++) {
			const uint8_t *si = st1 + (size_t)i * MD_STATE;

			act[i] = (uint8_t)(md_lcg(&x) % na);
			if (strcmp(game, "breakout") == 0) {
				/* track: towards the ball 15 times in 16;
				 * follow: always. */
				if (follow || (track && md_lcg(&x) % 16 != 0))
					act[i] = si[0] < si[3]	 ? 1
						 : si[0] > si[3] ? 2
								 : 0;
			} else if (follow &&
				   strcmp(game, "space_invaders") == 0) {
				act[i] = md_si_follow(si);
			} else if (follow && strcmp(game, "seaquest") == 0 &&
				   si[5] == 6 && md_lcg(&x) % 4 != 0) {
				act[i] = 2; /* up, with the full load */
			} else if (track && md_lcg(&x) % 4 != 0) {
				/* track: 3 times in 4 the game's "busy"
				 * action: freeway up (crossings), space
				 * invaders and seaquest fire, asterix up or
				 * down. */
				act[i] = md_busy(game, &x);
			}
		}
		if (md_read(&e, &e.state, st0) || md_read(&e, &e.book, book) ||
		    md_write(&e, &e.actions, act) || md_run(&e, e.act) ||
		    md_read(&e, &e.state, st1) || md_read(&e, &e.obs, obs) ||
		    md_read(&e, &e.reward, rew) || md_read(&e, &e.term, term) ||
		    md_read(&e, &e.trunc, trunc))
			goto done;
		for (uint32_t i = 0; i < n; i++) {
			uint8_t *r = rec;

			memcpy(r, st0 + (size_t)i * MD_STATE, MD_STATE);
			r += MD_STATE;
			memcpy(r, &book[5 * n + i], 4);
			r += 4;
			*r++ = act[i];
			memcpy(r, obs + (size_t)i * ob, ob);
			r += ob;
			memcpy(r, &rew[i], 4);
			r += 4;
			*r++ = term[i];
			*r++ = trunc[i];
			memcpy(r, st1 + (size_t)i * MD_STATE, MD_STATE);
			r += MD_STATE;
			*r = 0;
			fwrite(rec, 1, rsz, f);
			mask[i] = term[i] || trunc[i];
		}
		if (md_write(&e, &e.mask, mask) || md_run(&e, e.reset_some) ||
		    md_read(&e, &e.state, st1) ||
		    (plant && md_plant(&e, st1, mask, n)))
			goto done;
		for (uint32_t i = 0; i < n; i++) {
			if (!mask[i])
				continue;
			memset(rec, 0, rsz);
			memcpy(rec, st1 + (size_t)i * MD_STATE, MD_STATE);
			memcpy(rec + rsz - 1 - MD_STATE,
			       st1 + (size_t)i * MD_STATE, MD_STATE);
			rec[rsz - 1] = 1;
			fwrite(rec, 1, rsz, f);
		}
	}
	rc = 0;
done:
	if (rc)
		md_fail(&e, "trace");
	if (f && fclose(f))
		rc = 1;
	free(st0), free(st1), free(obs), free(term), free(trunc), free(act);
	free(mask), free(book), free(rew), free(rec);
	md_close(&e);
	return rc;
}

/* ---- the other games ------------------------------------------------- */

/* Open GAME with 64 environments and these extra settings. */
static void md_open_game(md_env *e, const char *game, const char *extra)
{
	char sets[512];

	snprintf(sets, sizeof sets,
		 "minatar.envs=64\nminatar.game=%s\nsimulation.seed=21\n%s",
		 game, extra);
	if (md_open(e,
		    getenv("MINATAR_BACKEND") ? getenv("MINATAR_BACKEND")
					      : "openmp",
		    sets))
		tap_bail("cannot open %s", game);
}

/* Step all 64 environments with action a; flags and state into the
 * arrays given (any may be NULL). */
static void md_step64(md_env *e, uint8_t a, uint8_t *term, uint8_t *trunc,
		      float *rew, uint8_t *state)
{
	uint8_t acts[64];

	memset(acts, a, sizeof acts);
	if (md_write(e, &e->actions, acts) || md_run(e, e->act) ||
	    (term && md_read(e, &e->term, term)) ||
	    (trunc && md_read(e, &e->trunc, trunc)) ||
	    (rew && md_read(e, &e->reward, rew)) ||
	    (state && md_read(e, &e->state, state)))
		tap_bail("step");
}

static void test_spaces_game(md_env *e, const char *game, int channels,
			     int actions)
{
	weft_env_info info = { .struct_size = sizeof info };
	int ok = weft_sim_env(e->sim, &info) == WEFT_OK;

	tap_ok(ok && info.observation.ndim == 3 &&
		       info.observation.shape[2] == channels &&
		       info.observation.dtype == WEFT_DTYPE_U8 &&
		       info.action.n == actions && e->obs.shape[3] == channels,
	       "%s: spaces Box u8 [10, 10, %d], Discrete(%d)", game, channels,
	       actions);
}

/* Asterix: the first state; the ramp at step 102 (difficulty_ramping
 * true) or none (false); enemies end episodes under no-op. */
static void test_asterix(void)
{
	static uint8_t obs[64 * 400], state[64 * MD_STATE];
	uint8_t term[64], ended[64] = { 0 };
	int good = 1, alive, ramped, n_end = 0;

	for (int ramp = 1; ramp >= 0; ramp--) {
		md_env e;

		md_open_game(&e, "asterix",
			     ramp ? "minatar.autoreset=disabled\n"
				    "minatar.repeat_action_probability=0"
				  : "minatar.autoreset=disabled\n"
				    "minatar.repeat_action_probability=0\n"
				    "minatar.difficulty_ramping=false");
		if (ramp) {
			test_spaces_game(&e, "asterix", 4, 5);
			if (md_read(&e, &e.obs, obs))
				tap_bail("obs");
			for (int i = 0; i < 64; i++)
				good &= obs[i * 400 + 4 * 55] == 1;
			tap_ok(good, "asterix: every first observation shows "
				     "the player at row 5, column 5");
		}
		memset(ended, 0, sizeof ended);
		for (int t = 1; t <= 110; t++) {
			md_step64(&e, 0, term, NULL, NULL, state);
			for (int i = 0; i < 64; i++)
				ended[i] |= term[i];
		}
		alive = ramped = 0;
		n_end = 0;
		for (int i = 0; i < 64; i++) {
			n_end += ended[i];
			if (ended[i])
				continue;
			alive++;
			ramped += state[i * MD_STATE + 3] == (ramp ? 9 : 10) &&
				  state[i * MD_STATE + 9] == (ramp ? 1 : 0);
		}
		tap_ok(alive > 0 && ramped == alive && n_end > 0,
		       "asterix, difficulty_ramping %s: %d of 64 episodes "
		       "ended by an enemy in 110 no-op steps; the %d alive "
		       "spawn every %d steps (ramp_index %d)",
		       ramp ? "true" : "false", n_end, alive, ramp ? 9 : 10,
		       ramp);
		md_close(&e);
	}
}

/* Freeway: the first state; MinAtar's own end at step 2501 when
 * max_episode_steps = 0, truncation at 2500 by default; going up
 * crosses (reward 1) and randomizes the cars. */
static void test_freeway(void)
{
	static uint8_t obs[64 * 700], s0[64 * MD_STATE], s1[64 * MD_STATE];
	uint8_t term[64], trunc[64];
	float rew[64];
	md_env e;
	int good = 1, early = 0, crossed = 0, changed = 0;

	md_open_game(&e, "freeway",
		     "minatar.max_episode_steps=0\n"
		     "minatar.repeat_action_probability=0");
	test_spaces_game(&e, "freeway", 7, 3);
	if (md_read(&e, &e.obs, obs) || md_read(&e, &e.state, s0))
		tap_bail("obs");
	for (int i = 0; i < 64; i++)
		good &= obs[i * 700 + 7 * 94] == 1 &&
			s0[i * MD_STATE + 16 + 1] == 1;
	for (int t = 1; t <= 2501; t++) {
		md_step64(&e, 0, term, trunc, NULL, NULL);
		for (int i = 0; i < 64; i++) {
			early |= (term[i] && t < 2501) || trunc[i];
			good &= t < 2501 || term[i];
		}
	}
	tap_ok(good && !early,
	       "freeway: the chicken starts on row 9; max_episode_steps = 0: "
	       "every episode terminates at step 2501 (MinAtar's time "
	       "limit), none before");
	md_close(&e);

	md_open_game(&e, "freeway", "minatar.repeat_action_probability=0");
	good = 1;
	for (int t = 1; t <= 2500; t++) {
		if (md_read(&e, &e.state, s0))
			tap_bail("state");
		md_step64(&e, t % 2 ? 1 : 0, term, trunc, rew, s1);
		for (int i = 0; i < 64; i++) {
			good &= !term[i] && trunc[i] == (t == 2500);
			if (rew[i] == 1.0f && t < 2500) {
				crossed++;
				changed +=
					memcmp(s0 + i * MD_STATE + 16,
					       s1 + i * MD_STATE + 16, 32) != 0;
				good &= s1[i * MD_STATE] == 9;
			}
		}
	}
	tap_ok(good && crossed > 64 && changed > crossed / 2,
	       "freeway: truncated at step 2500 by default; going up crosses "
	       "%d times (reward 1, the chicken back on row 9, new cars)",
	       crossed);
	md_close(&e);
}

/* Space Invaders: the first state; firing shoots aliens; episodes end;
 * sticky actions repeat the last action at the rate asked. */
static void test_space_invaders(void)
{
	static uint8_t obs[64 * 600], state[64 * MD_STATE];
	uint8_t term[64], last[64];
	float rew[64];
	md_env e;
	int good = 1, ended = 0, repeated = 0, steps = 0;
	double shot = 0;

	md_open_game(&e, "space_invaders",
		     "minatar.repeat_action_probability=0\n"
		     "minatar.autoreset=same_step");
	test_spaces_game(&e, "space_invaders", 6, 4);
	if (md_read(&e, &e.obs, obs))
		tap_bail("obs");
	for (int i = 0; i < 64; i++) {
		int aliens = 0;

		for (int c = 0; c < 100; c++)
			aliens += obs[i * 600 + 6 * c + 1];
		good &= aliens == 24 && obs[i * 600 + 6 * 95] == 1 &&
			obs[i * 600 + 6 * 2 + 2] == 1;
	}
	for (int t = 1; t <= 300; t++) {
		md_step64(&e, 3, term, NULL, rew, NULL);
		for (int i = 0; i < 64; i++) {
			ended += term[i];
			shot += rew[i];
		}
	}
	tap_ok(good && ended > 0 && shot > 64,
	       "space_invaders: 24 aliens moving left at first; firing "
	       "always: %.0f aliens shot, %d episodes ended in 300 steps",
	       shot, ended);
	md_close(&e);

	md_open_game(&e, "space_invaders",
		     "minatar.repeat_action_probability=0.5");
	memset(last, 0, sizeof last);
	for (int t = 1; t <= 200; t++) {
		uint8_t a = (uint8_t)(t % 4);

		md_step64(&e, a, term, NULL, NULL, state);
		for (int i = 0; i < 64; i++) {
			uint8_t applied = state[i * MD_STATE + 8];

			good &= applied == a || applied == last[i];
			repeated += applied != a;
			steps++;
			last[i] = term[i] ? 0 : applied;
		}
	}
	tap_ok(good && repeated > steps * 4 / 10 && repeated < steps * 6 / 10,
	       "sticky actions (p = 0.5, the action changing every step): "
	       "%d of %d steps applied the previous action",
	       repeated, steps);
	md_close(&e);
}

/* Seaquest: the first state; diving and coming back up without a diver
 * ends the episode; staying down runs out of oxygen at step 201. */
static void test_seaquest(void)
{
	static uint8_t obs[64 * 1000], state[64 * MD_STATE];
	uint8_t term[64];
	md_env e;
	int good = 1, late = 0;

	md_open_game(&e, "seaquest",
		     "minatar.repeat_action_probability=0\n"
		     "minatar.autoreset=disabled");
	test_spaces_game(&e, "seaquest", 10, 6);
	if (md_read(&e, &e.obs, obs))
		tap_bail("obs");
	for (int i = 0; i < 64; i++) {
		int gauge = 0;

		for (int k = 0; k < 10; k++)
			gauge += obs[i * 1000 + 10 * (90 + k) + 7];
		good &= obs[i * 1000 + 10 * 5] == 1 &&
			obs[i * 1000 + 10 * 6 + 1] == 1 && gauge == 10;
	}
	md_step64(&e, 4, term, NULL, NULL, NULL);
	for (int i = 0; i < 64; i++)
		good &= !term[i];
	md_step64(&e, 2, term, NULL, NULL, state);
	for (int i = 0; i < 64; i++)
		good &= term[i] == 1 && state[i * MD_STATE + 3] == 0;
	tap_ok(good, "seaquest: the sub starts at (5, 0) facing left, oxygen "
		     "full; down then up with no diver ends every episode");
	md_close(&e);

	/* Down to row 8 and stay: oxygen runs out (unless an enemy
	 * comes first). */
	md_open_game(&e, "seaquest",
		     "minatar.repeat_action_probability=0\n"
		     "minatar.autoreset=disabled\n"
		     "minatar.difficulty_ramping=false");
	memset(state, 0, sizeof state);
	good = 1;
	{
		uint8_t ended[64] = { 0 };
		int by_oxygen = 0;

		for (int t = 1; t <= 201; t++) {
			md_step64(&e, 4, term, NULL, NULL, state);
			for (int i = 0; i < 64; i++) {
				if (term[i] && !ended[i]) {
					ended[i] = 1;
					by_oxygen += t == 201;
				}
			}
		}
		for (int i = 0; i < 64; i++)
			good &= ended[i] != 0;
		tap_ok(good && !late && by_oxygen > 0,
		       "seaquest: staying down, every episode ends by step 201 "
		       "(%d by oxygen: 200 steps of it, then the end)",
		       by_oxygen);
	}
	md_close(&e);
}

/* ENVS of digest: 1 to 65,536, else 0. */
static int md_envs_arg(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return *end || v < 1 || v > 65536 ? 0 : (int)v;
}

/* Environment i's action in digest's step with policy pol: "random",
 * uniform over the game's na actions; "wide", any byte (those past the
 * set are no-ops); "track" (Breakout), the paddle toward the ball's next
 * column (st: the states after the last step, all 0 before the first:
 * the first step moves left), a uniform action one step in 32. From the
 * LCG x, one draw per environment and step. */
static uint8_t md_digest_action(const char *pol, uint32_t na, uint64_t *x,
				const uint8_t *st, int i)
{
	uint64_t r = md_lcg(x);
	const uint8_t *s = st + (size_t)i * MD_STATE;
	int next = s[0] + (s[2] == 1 || s[2] == 2 ? 1 : -1);

	if (strcmp(pol, "wide") == 0)
		return (uint8_t)(r % 256);
	if (strcmp(pol, "track") != 0 || r % 32 == 0)
		return (uint8_t)(r % na);
	return next < s[3] ? 1 : next > s[3] ? 2 : 0;
}

/* Breakout environment-steps with no brick left among the envs states
 * st (the refill follows at the paddle's row). */
static long md_no_bricks(const uint8_t *st, int envs)
{
	long empty = 0;

	for (int i = 0; i < envs; i++) {
		int left = 0;

		for (int k = 16; k < 116; k++)
			left += st[(size_t)i * MD_STATE + k];
		empty += left == 0;
	}
	return empty;
}

/* digest GAME BACKEND THREADS [AUTORESET [STICKY [ENVS [POLICY
 * [MAX_STEPS]]]]]: 400 steps of ENVS environments (96 unless given;
 * autoreset same_step, sticky 0.1, POLICY random (md_digest_action;
 * track for Breakout only) and the game's max_episode_steps unless
 * given), every view after every step folded into one FNV-1a hash,
 * printed in hex; with POLICY track, also how many environment steps
 * ended with no brick left. */
static int digest(const char *game, const char *backend, const char *threads,
		  const char *autoreset, const char *sticky, int envs,
		  const char *pol, const char *max_steps)
{
	char sets[640];
	md_env e;
	uint64_t h = 1469598103934665603ull, x = 7;
	size_t cap = (size_t)envs * 1024;
	uint8_t *buf = malloc(cap), *acts = malloc((size_t)envs);
	uint8_t *st = calloc((size_t)envs, MD_STATE);
	int track = strcmp(pol, "track") == 0, rc = 1, len;
	long empty = 0;
	uint32_t na;
	const weft_array *views[] = { &e.obs,	&e.reward,    &e.term,
				      &e.trunc, &e.final_obs, &e.state,
				      &e.book };

	len = snprintf(sets, sizeof sets,
		       "minatar.envs=%d\nminatar.game=%s\nbackend.threads=%s\n"
		       "minatar.autoreset=%s\n"
		       "minatar.repeat_action_probability=%s\n"
		       "simulation.seed=99%s%s",
		       envs, game, threads, autoreset, sticky,
		       max_steps ? "\nminatar.max_episode_steps=" : "",
		       max_steps ? max_steps : "");
	if (len < 0 || (size_t)len >= sizeof sets) {
		fprintf(stderr, "minatar-drive: digest: arguments too long\n");
		goto free_bufs;
	}
	if (!buf || !acts || !st) {
		fprintf(stderr,
			"minatar-drive: digest: out of memory for %d "
			"environments\n",
			envs);
		goto free_bufs;
	}
	if (md_open(&e, backend, sets))
		goto free_bufs;
	na = md_actions(&e);
	if (e.state.bytes != (size_t)envs * MD_STATE ||
	    e.actions.bytes != (size_t)envs) {
		fprintf(stderr,
			"minatar-drive: digest: the state view is %zu "
			"bytes and actions %zu, expected %zu and %d\n",
			e.state.bytes, e.actions.bytes, (size_t)envs * MD_STATE,
			envs);
		goto close;
	}
	for (int t = 0; t < 400; t++) {
		for (int i = 0; i < envs; i++)
			acts[i] = md_digest_action(pol, na, &x, st, i);
		if (md_write(&e, &e.actions, acts) || md_run(&e, e.act)) {
			md_fail(&e, "step");
			goto close;
		}
		for (size_t v = 0; v < sizeof views / sizeof *views; v++) {
			if (views[v]->bytes > cap ||
			    md_read(&e, views[v], buf)) {
				md_fail(&e, "read");
				goto close;
			}
			for (size_t k = 0; k < views[v]->bytes; k++)
				h = (h ^ buf[k]) * 1099511628211ull;
			if (views[v] == &e.state)
				memcpy(st, buf, e.state.bytes);
		}
		empty += md_no_bricks(st, envs);
	}
	if (track)
		printf("%016llx, %ld with no brick left\n",
		       (unsigned long long)h, empty);
	else
		printf("%016llx\n", (unsigned long long)h);
	rc = 0;
close:
	md_close(&e);
free_bufs:
	free(buf);
	free(acts);
	free(st);
	return rc;
}

/* digest's arguments checked (the usage otherwise). */
static int md_digest_args(int argc, char **argv)
{
	const char *game = argv[2];
	const char *pol = argc > 8 ? argv[8] : "random";
	int envs = argc > 7 ? md_envs_arg(argv[7]) : 96;

	if (envs == 0) {
		fprintf(stderr,
			"minatar-drive: digest: ENVS '%s': expected "
			"1 to 65536\n",
			argv[7]);
		return 2;
	}
	if (strcmp(pol, "random") != 0 && strcmp(pol, "wide") != 0 &&
	    !(strcmp(pol, "track") == 0 && strcmp(game, "breakout") == 0)) {
		fprintf(stderr,
			"minatar-drive: digest: POLICY '%s': expected "
			"random, wide or (breakout) track\n",
			pol);
		return 2;
	}
	return digest(game, argv[3], argv[4], argc > 5 ? argv[5] : "same_step",
		      argc > 6 ? argv[6] : "0.1", envs, pol,
		      argc > 9 ? argv[9] : NULL);
}

/* n acts of Breakout with actions from the LCG x (sticky 0.5), then
 * obs and state into obs[] and st[] (64 environments). */
static int md_acts(md_env *e, int n, uint64_t *x, uint8_t *obs, uint8_t *st)
{
	uint8_t acts[64];

	for (int t = 0; t < n; t++) {
		for (int i = 0; i < 64; i++)
			acts[i] = (uint8_t)(md_lcg(x) % 3);
		if (md_write(e, &e->actions, acts) || md_run(e, e->act))
			return 1;
	}
	return md_read(e, &e->obs, obs) || md_read(e, &e->state, st);
}

/* A checkpoint taken after acts (sticky actions on, so that act's main
 * part has written its draws) resumes, and 30 more acts from it give the
 * bytes 30 more acts gave in the run that wrote it: every buffer the
 * steps change is state (weft/model.h). */
static void test_checkpoint(void)
{
	static uint8_t obs[2][64 * MD_OBS], st[2][64 * MD_STATE];
	char sets[512];
	uint64_t x = 11, x_at;
	md_env e;
	int ok;

	snprintf(sets, sizeof sets,
		 "minatar.envs=64\nminatar.repeat_action_probability=0.5\n"
		 "minatar.autoreset=next_step\nsimulation.seed=8\n"
		 "checkpoint.directory=%s/ck",
		 tap_tmpdir());
	ok = !md_open(&e, "openmp", sets) &&
	     !md_acts(&e, 40, &x, obs[0], st[0]) &&
	     weft_sim_checkpoint(e.sim) == WEFT_OK;
	x_at = x;
	ok = ok && !md_acts(&e, 30, &x, obs[0], st[0]);
	md_close(&e);
	if (ok) {
		char dir[400];

		snprintf(dir, sizeof dir, "%s/ck", tap_tmpdir());
		x = x_at;
		ok = !md_open_from(&e, "openmp", sets, dir) &&
		     !md_acts(&e, 30, &x, obs[1], st[1]);
		md_close(&e);
	}
	tap_ok(ok && !memcmp(obs[0], obs[1], sizeof obs[0]) &&
		       !memcmp(st[0], st[1], sizeof st[0]),
	       "a checkpoint after 40 acts (sticky 0.5) resumes, and 30 more "
	       "acts give the observations and states of the run that wrote "
	       "it");
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "games") == 0) {
		test_asterix();
		test_freeway();
		test_space_invaders();
		test_seaquest();
		return tap_done();
	}
	if (argc >= 5 && argc <= 10 && strcmp(argv[1], "digest") == 0)
		return md_digest_args(argc, argv);
	if (argc >= 8 && strcmp(argv[1], "trace") == 0)
		return trace(argc, argv);
	if (argc != 2 || strcmp(argv[1], "test") != 0) {
		fprintf(stderr,
			"usage: minatar-drive test | games | digest GAME "
			"BACKEND THREADS [AUTORESET [STICKY [ENVS [POLICY "
			"[MAX_STEPS]]]]] | "
			"trace FILE ENVS STEPS SEED STICKY "
			"MAX_STEPS [BACKEND [POLICY [GAME [RAMPING]]]]\n");
		return 2;
	}
	test_modes();
	test_checkpoint();
	return tap_done();
}
