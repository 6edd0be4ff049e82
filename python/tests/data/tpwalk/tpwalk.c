/*
 * tpwalk.c - a third party's environment model, built by
 * python/tests/test_envs_third_party.py from the installed kit alone
 * (weft/model.h, weft/env.h, weft/env.wk, the kernel dialect, weft.pc
 * and weft-wk, with the minimal template's Makefile.example) and driven
 * through weft.envs.make and gymnasium.make_vec. The environment is in
 * tpwalk_shared.h; its ids:
 *   TpWalk-v0             goal 3, truncated after 20 steps
 *   ThirdParty/TpWalk-v1  goal 5 (tpwalk.goal=5)
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <weft/kernel_host.h>
#include <weft/kernel.h>
#include <weft/env.wk>
#include <weft/model.h>

#include "tpwalk_kernels.h"
#include "tpwalk_shared.h"

enum {
	TW_B_PARAMS,
	TW_B_BOOK,
	TW_B_STATE,
	TW_B_ACTIONS,
	TW_B_IO,
	TW_B_MASK,
	TW_B_SEED,
	TW_N_BUFS
};

typedef struct tpwalk_state {
	tpwalk_params params;
	weft_buf *bufs[TW_N_BUFS];
	size_t bytes[TW_N_BUFS];
} tpwalk_state;

static const weft_key_desc tpwalk_keys[] = {
	{ "envs", WEFT_KEY_INT, "4", 1, 1000000, NULL,
	  "number of environments stepped together" },
	{ "autoreset", WEFT_KEY_ENUM, "next_step", 0, 0, WEFT_AUTORESET_CHOICES,
	  "what act does with an environment whose episode ended" },
	{ "goal", WEFT_KEY_INT, "3", 2, 1000, NULL,
	  "distance from 0 at which an episode terminates" },
	{ "max_episode_steps", WEFT_KEY_INT, "20", 1, 1000000, NULL,
	  "an episode is truncated after this many steps" },
};

static const weft_env_id tpwalk_ids[] = {
	{ .id = "TpWalk-v0",
	  .summary = "a walker on the integers (a third party's test)",
	  .max_episode_steps = 20 },
	{ .id = "ThirdParty/TpWalk-v1",
	  .sets = "tpwalk.goal=5",
	  .summary = "the same, goal 5",
	  .max_episode_steps = 20 },
};

/* TpWalk-v0 counts as solved at a mean return of 10; the other has no
 * threshold. */
static const double tpwalk_thresholds[] = { 10.0, NAN };
_Static_assert(sizeof tpwalk_thresholds / sizeof tpwalk_thresholds[0] ==
		       sizeof tpwalk_ids / sizeof tpwalk_ids[0],
	       "one reward threshold per env id");

static const weft_env_model tpwalk_env = {
	.struct_size = sizeof(weft_env_model),
	.count_key = "envs",
	.autoreset_key = "autoreset",
	.precision_key = NULL,
	.ids = tpwalk_ids,
	.n_ids = 2,
	.reward_thresholds = tpwalk_thresholds,
};

static void tw_params(weft_model_ctx *mc, tpwalk_params *p)
{
	uint64_t seed = weft_model_seed(mc);
	const char *mode = weft_model_string(mc, "autoreset");

	memset(p, 0, sizeof *p);
	p->n_envs = (uint32_t)weft_model_int(mc, "envs");
	p->seed_lo = (uint32_t)seed;
	p->seed_hi = (uint32_t)(seed >> 32);
	p->goal = (uint32_t)weft_model_int(mc, "goal");
	p->max_steps = (uint32_t)weft_model_int(mc, "max_episode_steps");
	p->autoreset =
		strcmp(mode, "same_step") == 0	? WEFT_ENV_AUTORESET_SAME_STEP
		: strcmp(mode, "disabled") == 0 ? WEFT_ENV_AUTORESET_DISABLED
						: WEFT_ENV_AUTORESET_NEXT_STEP;
}

/* Every buffer allocated and uploaded: the parameters, episode 0 of each
 * environment (bookkeeping, state, observation), zeros elsewhere. */
static weft_status tw_build(weft_model_ctx *mc, tpwalk_state *s)
{
	static const char *const names[TW_N_BUFS] = { "params",	   "env_book",
						      "state",	   "actions",
						      "io",	   "reset_mask",
						      "reset_seed" };
	size_t n = s->params.n_envs;
	void *host[TW_N_BUFS] = { 0 };
	weft_status st = WEFT_OK;

	s->bytes[TW_B_PARAMS] = sizeof s->params;
	s->bytes[TW_B_BOOK] = WEFT_ENV_BYTES(n);
	s->bytes[TW_B_STATE] = 8 * n;
	s->bytes[TW_B_ACTIONS] = 4 * n;
	s->bytes[TW_B_IO] = TW_IO_BYTES(n);
	s->bytes[TW_B_MASK] = n;
	s->bytes[TW_B_SEED] = 8 * n;
	for (int k = 1; k < TW_N_BUFS; k++)
		if (!(host[k] = calloc(1, s->bytes[k])))
			st = weft_model_fail(mc, WEFT_E_NOMEM, "out of memory");
	for (uint32_t i = 0; !st && i < n; i++) {
		weft_env_init(host[TW_B_BOOK], (uint32_t)n, i,
			      s->params.seed_lo, s->params.seed_hi);
		tw_begin(host[TW_B_BOOK], (uint32_t)n, i, host[TW_B_STATE]);
		tw_obs(host[TW_B_STATE], (uint32_t)n, i,
		       (float *)host[TW_B_IO] + TW_OBS * i);
	}
	for (int k = 0; !st && k < TW_N_BUFS; k++)
		if (!(st = weft_model_alloc(mc, names[k], s->bytes[k],
					    &s->bufs[k])))
			st = weft_model_upload(
				mc, s->bufs[k], 0,
				k == TW_B_PARAMS ? (const void *)&s->params
						 : host[k],
				s->bytes[k]);
	for (int k = 0; k < TW_N_BUFS; k++)
		free(host[k]);
	return st;
}

#define B(k) (s->bufs[TW_B_##k])

static weft_status tpwalk_setup(weft_model_ctx *mc, void **out)
{
	static const double obs_low[TW_OBS] = { 0, 0 },
			    obs_high[TW_OBS] = { 0, 1 };
	tpwalk_state *s = calloc(1, sizeof *s);
	double low[TW_OBS], high[TW_OBS];
	weft_env_space obs = { .struct_size = sizeof obs,
			       .kind = WEFT_SPACE_BOX,
			       .dtype = WEFT_DTYPE_F32,
			       .ndim = 1,
			       .shape = { TW_OBS },
			       .low = low,
			       .high = high };
	weft_env_space act = { .struct_size = sizeof act,
			       .kind = WEFT_SPACE_DISCRETE,
			       .dtype = WEFT_DTYPE_I32,
			       .n = 3,
			       .start = -1 };
	weft_env_views v = { .struct_size = sizeof v,
			     .reward_dtype = WEFT_DTYPE_F32 };
	weft_launch act_l, some_l;
	weft_status st;
	int64_t rows;
	size_t n;

	if (!s)
		return weft_model_fail(mc, WEFT_E_NOMEM, "out of memory");
	*out = s;
	tw_params(mc, &s->params);
	n = s->params.n_envs;
	rows = (int64_t)n;
	if ((st = tw_build(mc, s)))
		return st;
	/* the position within [-goal, goal], the mark within [0, 1] */
	low[0] = -(double)s->params.goal;
	high[0] = (double)s->params.goal;
	low[1] = obs_low[1];
	high[1] = obs_high[1];
	act_l = tpwalk_act_launch((tpwalk_act_bufs){ .p = B(PARAMS),
						     .ep = B(BOOK),
						     .state = B(STATE),
						     .actions = B(ACTIONS),
						     .io = B(IO) },
				  (uint32_t)n);
	some_l = tpwalk_reset_some_launch(
		(tpwalk_reset_some_bufs){ .p = B(PARAMS),
					  .ep = B(BOOK),
					  .state = B(STATE),
					  .io = B(IO),
					  .reset_mask = B(MASK),
					  .reset_seed = B(SEED) },
		(uint32_t)n);
	v.io = B(IO);
	v.obs = 0;
	v.reward = TW_IO_REWARD(n);
	v.terminated = TW_IO_TERMINATED(n);
	v.truncated = TW_IO_TRUNCATED(n);
	v.final_obs = TW_IO_FINAL(n);
	v.actions = B(ACTIONS);
	v.reset_mask = B(MASK);
	v.reset_seed = B(SEED);
	v.env_book = B(BOOK);
	/* `weft run` steps act with the actions buffer's zeros (stay) */
	if ((st = weft_model_set_step(mc, &act_l, 1)) ||
	    (st = weft_model_add_list(mc, "act", &act_l, 1)) ||
	    (st = weft_model_add_list(mc, "reset_some", &some_l, 1)) ||
	    (st = weft_model_env_spaces(mc, &obs, &act)) ||
	    (st = weft_model_env_views(mc, &v)) ||
	    (st = weft_model_array(mc, "steps", B(IO), TW_IO_STEPS(n),
				   WEFT_DTYPE_U32, 1, &rows)))
		return st;
	return weft_model_env_info(mc, "steps");
}

static weft_status tpwalk_finish(weft_model_ctx *mc, void *state)
{
	tpwalk_state *s = state;

	return weft_model_env_summary(mc, s->bufs[TW_B_BOOK]);
}

static void tpwalk_teardown(weft_model_ctx *mc, void *state)
{
	tpwalk_state *s = state;

	if (!s)
		return;
	for (int k = 0; k < TW_N_BUFS; k++)
		weft_model_free(mc, s->bufs[k]);
	free(s);
}

WEFT_MODEL_ENTRY = {
	.abi_major = WEFT_MODEL_ABI_MAJOR,
	.abi_minor = WEFT_MODEL_ABI_MINOR,
	.struct_size = sizeof(weft_model),
	.name = "tpwalk",
	.version = "0.1",
	.summary = "a walker on the integers: a third party's environment "
		   "model, for the Python package's tests",
	.keys = tpwalk_keys,
	.n_keys = sizeof tpwalk_keys / sizeof tpwalk_keys[0],
	.program = &tpwalk_program,
	.sigs = tpwalk_sigs,
	.setup = tpwalk_setup,
	.finish = tpwalk_finish,
	.teardown = tpwalk_teardown,
	.conform_sets = "tpwalk.envs=64\nsimulation.steps=50\n",
	.env = &tpwalk_env,
};
