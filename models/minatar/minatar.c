/*
 * models/minatar/minatar.c - the MinAtar model plugin
 * (weft-model-minatar.so): MinAtar's games (Kenny Young's miniature
 * Atari, as gymnax computes them) for n environments at once, on the
 * environment protocol (weft/env.h): keys, the first states, the lists
 * "act" and "reset_some", the protocol's views, the step of `weft run`
 * (the random policy) and its summary. Everything that runs per
 * environment per step is in minatar.wk; the games' rules in
 * minatar_<game>.h. Model page: models/minatar/minatar.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "minatar.h"

#define MA_MAX_ENVS 1000000

static const weft_key_desc minatar_keys[] = {
	{ "game", WEFT_KEY_ENUM, "breakout", 0, 0,
	  "breakout|asterix|freeway|space_invaders|seaquest",
	  "the MinAtar game: breakout (MinAtar/Breakout-v1), asterix "
	  "(MinAtar/Asterix-v1), freeway (MinAtar/Freeway-v1), "
	  "space_invaders (MinAtar/SpaceInvaders-v1) or seaquest "
	  "(MinAtar/Seaquest-v1)" },
	{ "envs", WEFT_KEY_INT, "8", 1, MA_MAX_ENVS, NULL,
	  "number of environments stepped together" },
	{ "autoreset", WEFT_KEY_ENUM, "next_step", 0, 0, WEFT_AUTORESET_CHOICES,
	  "what the act list does with an environment whose episode ended "
	  "(Gymnasium's autoreset modes): next_step begins the next episode "
	  "at the next step, ignoring its action (Gymnasium's vector "
	  "default); same_step begins it in the same step, keeping the last "
	  "observation in final_obs; disabled leaves ended environments to "
	  "reset_some" },
	{ "max_episode_steps", WEFT_KEY_INT, "-1", -1, 16777216, NULL,
	  "an episode is truncated after this many steps, 0 for never, -1 "
	  "for the game's (gymnax's max_steps_in_episode: 2500 for freeway, "
	  "1000 for the others)" },
	{ "repeat_action_probability", WEFT_KEY_REAL, "0.1", 0, 1, NULL,
	  "sticky actions: the probability that a step applies the action "
	  "applied last instead of the one given (MinAtar's "
	  "sticky_action_prob; gymnax has none: 0)" },
	{ "difficulty_ramping", WEFT_KEY_BOOL, "true", 0, 0, NULL,
	  "MinAtar's difficulty ramping: asterix's enemies and gold spawn "
	  "and move faster every 100 steps or so, space_invaders' aliens "
	  "move faster each time they are all shot, seaquest's enemies "
	  "spawn and move faster each time the sub surfaces with divers "
	  "(MinAtar's "
	  "difficulty_ramping; gymnax ramps too); breakout and freeway have "
	  "none" },
	{ "policy", WEFT_KEY_ENUM, "random", 0, 0, "random",
	  "on-device policy of `weft run`: random draws each action "
	  "uniformly (counter-based, keyed by environment, episode and "
	  "step)" },
};

/* The buffers, in allocation order. */
enum {
	MA_B_PARAMS,
	MA_B_STATE,
	MA_B_BOOK,
	MA_B_ACTIONS,
	MA_B_IO,
	MA_B_MASK,
	MA_B_SEED,
	MA_B_DRAWS, /* u32 [2][n]: act's plan, from its main part to its
		     * after part (state, as every buffer the steps write) */
	MA_N_BUFS
};

typedef struct minatar_state {
	minatar_params params;
	uint32_t n_envs;
	size_t bytes[MA_N_BUFS];
	weft_buf *bufs[MA_N_BUFS];
} minatar_state;

#define B(k) (s->bufs[MA_B_##k])

/* The autoreset key's value as WEFT_ENV_AUTORESET_*. */
static weft_u32 minatar_autoreset(const char *mode)
{
	if (strcmp(mode, "same_step") == 0)
		return WEFT_ENV_AUTORESET_SAME_STEP;
	if (strcmp(mode, "disabled") == 0)
		return WEFT_ENV_AUTORESET_DISABLED;
	return WEFT_ENV_AUTORESET_NEXT_STEP;
}

/* A probability as a 32-bit threshold, floor(p 2^32), saturated: the
 * kernels decide with an integer comparison. */
static uint32_t minatar_threshold(double p)
{
	double t = p * 4294967296.0;

	return t >= 4294967295.0 ? 0xFFFFFFFFu : (uint32_t)t;
}

/* The games: the key's value, its id, its minimal action set, its
 * observation channels and gymnax's max_steps_in_episode. */
typedef struct minatar_game {
	const char *name;
	weft_u32 game, actions, channels, max_steps;
} minatar_game;

static const minatar_game minatar_games[] = {
	{ "breakout", MA_GAME_BREAKOUT, MA_BO_ACTIONS, MA_BO_CHANNELS, 1000 },
	{ "asterix", MA_GAME_ASTERIX, MA_AX_ACTIONS, MA_AX_CHANNELS, 1000 },
	{ "freeway", MA_GAME_FREEWAY, MA_FW_ACTIONS, MA_FW_CHANNELS, 2500 },
	{ "space_invaders", MA_GAME_SPACE_INVADERS, MA_SI_ACTIONS,
	  MA_SI_CHANNELS, 1000 },
	{ "seaquest", MA_GAME_SEAQUEST, MA_SQ_ACTIONS, MA_SQ_CHANNELS, 1000 },
};

/* The game the key names (the key's choices are these: the first, if
 * not). */
static const minatar_game *minatar_game_of(const char *name)
{
	for (size_t k = 0; k < sizeof minatar_games / sizeof *minatar_games;
	     k++)
		if (strcmp(name, minatar_games[k].name) == 0)
			return &minatar_games[k];
	return &minatar_games[0];
}

static void minatar_read_params(weft_model_ctx *mc, minatar_state *s)
{
	minatar_params *p = &s->params;
	uint64_t seed = weft_model_seed(mc);

	const minatar_game *g = minatar_game_of(weft_model_string(mc, "game"));
	int64_t max_steps = weft_model_int(mc, "max_episode_steps");

	s->n_envs = (uint32_t)weft_model_int(mc, "envs");
	p->n_envs = s->n_envs;
	p->seed_lo = (uint32_t)seed;
	p->seed_hi = (uint32_t)(seed >> 32);
	p->game = g->game;
	p->n_actions = g->actions;
	p->channels = g->channels;
	p->obs_bytes = MA_GRID * MA_GRID * p->channels;
	p->autoreset = minatar_autoreset(weft_model_string(mc, "autoreset"));
	p->max_steps = max_steps < 0 ? g->max_steps : (uint32_t)max_steps;
	p->ramping = weft_model_bool(mc, "difficulty_ramping") ? 1u : 0u;
	p->sticky = minatar_threshold(
		weft_model_real(mc, "repeat_action_probability"));
	p->policy = MA_POLICY_RANDOM;
}

static void minatar_sizes(minatar_state *s)
{
	size_t n = s->n_envs;

	s->bytes[MA_B_PARAMS] = sizeof s->params;
	s->bytes[MA_B_STATE] = MA_STATE_BYTES * n;
	s->bytes[MA_B_BOOK] = WEFT_ENV_BYTES(n);
	/* Whole words: act's main part reads them (minatar.wk). */
	s->bytes[MA_B_ACTIONS] = (n + 3) & ~(size_t)3;
	s->bytes[MA_B_IO] = MA_IO_BYTES(s->n_envs, s->params.obs_bytes);
	s->bytes[MA_B_MASK] = n;
	s->bytes[MA_B_SEED] = 8 * n;
	s->bytes[MA_B_DRAWS] = 8 * n;
}

/* Every environment's bookkeeping (weft_env_init), its episode 0 and the
 * packed buffer showing it (reward 0, no flags: calloc's zeros). */
static void minatar_initial(const minatar_state *s, uint8_t *state,
			    uint32_t *book, uint8_t *io)
{
	const minatar_params *p = &s->params;

	for (uint32_t i = 0; i < s->n_envs; i++) {
		ma_draws d = { .book = book, .n = s->n_envs, .i = i, .t = 0 };

		weft_env_init(book, s->n_envs, i, p->seed_lo, p->seed_hi);
		ma_reset(p, state + MA_STATE_BYTES * (size_t)i, d);
		ma_obs(p, state + MA_STATE_BYTES * (size_t)i,
		       io + (size_t)p->obs_bytes * i);
	}
}

static weft_status minatar_alloc_upload(weft_model_ctx *mc, minatar_state *s)
{
	static const char *const names[MA_N_BUFS] = {
		"params", "state", "env_book", "actions",
		"io",	  "mask",  "seed",     "draws",
	};
	void *host[MA_N_BUFS] = { 0 };
	weft_status st = WEFT_OK;

	minatar_sizes(s);
	for (int k = 0; k < MA_N_BUFS && !st; k++)
		if (!(host[k] = calloc(1, s->bytes[k])))
			st = weft_model_fail(mc, WEFT_E_NOMEM,
					     "cannot allocate %zu bytes of "
					     "host memory for the initial %s",
					     s->bytes[k], names[k]);
	if (st)
		goto free_host;
	memcpy(host[MA_B_PARAMS], &s->params, sizeof s->params);
	minatar_initial(s, host[MA_B_STATE], host[MA_B_BOOK], host[MA_B_IO]);
	for (int k = 0; k < MA_N_BUFS && !st; k++)
		if (!(st = weft_model_alloc(mc, names[k], s->bytes[k],
					    &s->bufs[k])))
			st = weft_model_upload(mc, s->bufs[k], 0, host[k],
					       s->bytes[k]);
free_host:
	for (int k = 0; k < MA_N_BUFS; k++)
		free(host[k]);
	return st;
}

/* ---- launches ----------------------------------------------------------- */

static weft_status minatar_lists(weft_model_ctx *mc, minatar_state *s)
{
	weft_launch act =
		minatar_act_launch((minatar_act_bufs){ .p = B(PARAMS),
						       .state = B(STATE),
						       .book = B(BOOK),
						       .actions = B(ACTIONS),
						       .io = B(IO),
						       .draws = B(DRAWS) },
				   s->n_envs);
	weft_launch some = minatar_reset_some_launch(
		(minatar_reset_some_bufs){ .p = B(PARAMS),
					   .state = B(STATE),
					   .book = B(BOOK),
					   .io = B(IO),
					   .mask = B(MASK),
					   .seed = B(SEED) },
		s->n_envs);
	weft_launch policy =
		minatar_policy_launch((minatar_policy_bufs){ .p = B(PARAMS),
							     .state = B(STATE),
							     .book = B(BOOK),
							     .io = B(IO) },
				      s->n_envs);
	weft_status st;

	if ((st = weft_model_set_step(mc, &policy, 1)) ||
	    (st = weft_model_add_list(mc, "act", &act, 1)))
		return st;
	return weft_model_add_list(mc, "reset_some", &some, 1);
}

/* The protocol's views (weft/env.h), the state and the bookkeeping. */
static weft_status minatar_views(weft_model_ctx *mc, minatar_state *s)
{
	uint32_t b = s->params.obs_bytes;
	weft_env_views v = {
		.struct_size = sizeof v,
		.reward_dtype = WEFT_DTYPE_F32,
		.io = B(IO),
		.obs = 0,
		.reward = MA_IO_REWARD(s->n_envs, b),
		.terminated = MA_IO_TERMINATED(s->n_envs, b),
		.truncated = MA_IO_TRUNCATED(s->n_envs, b),
		.final_obs = MA_IO_FINAL(s->n_envs, b),
		.actions = B(ACTIONS),
		.reset_mask = B(MASK),
		.reset_seed = B(SEED),
		.env_book = B(BOOK),
		.state = B(STATE),
		.state_dtype = WEFT_DTYPE_U8,
		.state_k = MA_STATE_BYTES,
	};

	return weft_model_env_views(mc, &v);
}

/* One environment's spaces: Box(0, 1, (10, 10, C), u8) as MinAtar's
 * (bool) and gymnax's (float32) 0/1 grids, and Discrete(n) of the
 * minimal action set, held as u8. */
static weft_status minatar_spaces(weft_model_ctx *mc, minatar_state *s)
{
	size_t count = s->params.obs_bytes;
	double *low = calloc(count, sizeof *low);
	double *high = malloc(count * sizeof *high);
	weft_env_space obs = { .struct_size = sizeof obs,
			       .kind = WEFT_SPACE_BOX,
			       .dtype = WEFT_DTYPE_U8,
			       .ndim = 3,
			       .shape = { MA_GRID, MA_GRID,
					  s->params.channels },
			       .low = low,
			       .high = high };
	weft_env_space action = { .struct_size = sizeof action,
				  .kind = WEFT_SPACE_DISCRETE,
				  .dtype = WEFT_DTYPE_U8,
				  .n = s->params.n_actions };
	weft_status st;

	if (!low || !high) {
		st = weft_model_fail(mc, WEFT_E_NOMEM,
				     "cannot allocate the observation space's "
				     "bounds");
		goto free_bounds;
	}
	for (size_t k = 0; k < count; k++)
		high[k] = 1.0;
	st = weft_model_env_spaces(mc, &obs, &action);
free_bounds:
	free(low);
	free(high);
	return st;
}

/* What a checkpoint saves: every buffer but the parameters (act's
 * draws too: resume checks that setup() rebuilds every other buffer as
 * the checkpointed run had it). */
static weft_status minatar_declare_state(weft_model_ctx *mc, minatar_state *s)
{
	weft_status st = WEFT_OK;

	for (int k = 0; k < MA_N_BUFS && !st; k++)
		if (k != MA_B_PARAMS)
			st = weft_model_state(mc, s->bufs[k]);
	return st;
}

static weft_status minatar_setup(weft_model_ctx *mc, void **out)
{
	minatar_state *s = calloc(1, sizeof *s);
	weft_status st;

	if (!s)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the model state");
	*out = s;
	minatar_read_params(mc, s);
	if ((st = minatar_alloc_upload(mc, s)) || (st = minatar_lists(mc, s)) ||
	    (st = minatar_spaces(mc, s)) || (st = minatar_views(mc, s)))
		return st;
	return minatar_declare_state(mc, s);
}

/* estimate(): the device buffers, and their host copies setup fills
 * before uploading them. */
static weft_status minatar_estimate(weft_model_ctx *mc,
				    weft_model_estimate *est)
{
	minatar_state s;
	uint64_t bytes = 0;
	char envs[64];

	memset(&s, 0, sizeof s);
	minatar_read_params(mc, &s);
	minatar_sizes(&s);
	for (int k = 0; k < MA_N_BUFS; k++)
		bytes += s.bytes[k];
	snprintf(envs, sizeof envs, "[minatar] envs = %u", s.n_envs);
	return weft_model_estimate_add(est, "environments", envs, bytes, bytes);
}

/* The episodes the bookkeeping counted (ended, and their returns). */
static weft_status minatar_finish(weft_model_ctx *mc, void *state)
{
	minatar_state *s = state;
	uint32_t n = s->n_envs;
	uint64_t steps = weft_model_steps(mc);

	for (size_t k = 0; k < sizeof minatar_games / sizeof *minatar_games;
	     k++)
		if (minatar_games[k].game == s->params.game)
			weft_model_summary(mc, "game", "%s",
					   minatar_games[k].name);
	weft_model_summary(mc, "environments", "%u", n);
	weft_model_summary(mc, "policy", "random");
	weft_model_summary(mc, "steps", "%llu per environment, %llu in all",
			   (unsigned long long)steps,
			   (unsigned long long)steps * n);
	return weft_model_env_summary(mc, B(BOOK));
}

static void minatar_teardown(weft_model_ctx *mc, void *state)
{
	minatar_state *s = state;

	if (!s)
		return;
	for (int k = 0; k < MA_N_BUFS; k++)
		weft_model_free(mc, s->bufs[k]);
	free(s);
}

/* The environment protocol (weft/env.h): one id per game, each setting
 * the game; one precision (integers), so no precision key. */
static const weft_env_id minatar_env_ids[] = {
	{ "MinAtar/Breakout-v1", "minatar.game=breakout",
	  "MinAtar's Breakout (MinAtar's rules, minimal action set), 10x10x4 "
	  "u8 grids",
	  1000 },
	{ "MinAtar/Asterix-v1", "minatar.game=asterix",
	  "MinAtar's Asterix (MinAtar's rules, minimal action set), 10x10x4 "
	  "u8 grids",
	  1000 },
	{ "MinAtar/Freeway-v1", "minatar.game=freeway",
	  "MinAtar's Freeway (MinAtar's rules, minimal action set), 10x10x7 "
	  "u8 grids",
	  2500 },
	{ "MinAtar/SpaceInvaders-v1", "minatar.game=space_invaders",
	  "MinAtar's Space Invaders (MinAtar's rules, minimal action set), "
	  "10x10x6 u8 grids",
	  1000 },
	{ "MinAtar/Seaquest-v1", "minatar.game=seaquest",
	  "MinAtar's Seaquest (MinAtar's rules, minimal action set), 10x10x10 "
	  "u8 grids",
	  1000 },
};

static const weft_env_model minatar_env = {
	.struct_size = sizeof(weft_env_model),
	.count_key = "envs",
	.autoreset_key = "autoreset",
	.precision_key = NULL,
	.ids = minatar_env_ids,
	.n_ids = sizeof minatar_env_ids / sizeof minatar_env_ids[0],
};

WEFT_MODEL_ENTRY = {
	.abi_major = WEFT_MODEL_ABI_MAJOR,
	.abi_minor = WEFT_MODEL_ABI_MINOR,
	.struct_size = sizeof(weft_model),
	.name = "minatar",
	.version = WEFT_MODEL_VERSION,
	.summary = "MinAtar games (Breakout, Asterix, Freeway, Space "
		   "Invaders, Seaquest) for many environments at once, "
		   "integer rules identical on every backend",
	.keys = minatar_keys,
	.n_keys = sizeof minatar_keys / sizeof minatar_keys[0],
	.program = &minatar_program,
	.sigs = minatar_sigs,
	.setup = minatar_setup,
	.finish = minatar_finish,
	.teardown = minatar_teardown,
	.estimate = minatar_estimate,
	/* `weft conform`: about 6,000 episodes of the random policy. */
	.conform_sets = "minatar.envs=1000\n"
			"simulation.steps=200\n",
	/* setup() declares its state (minatar_declare_state). */
	.checkpoints = 1,
	.env = &minatar_env,
};
