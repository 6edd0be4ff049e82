/*
 * models/mountain-car/mountain_car.c - the mountain-car model plugin
 * (weft-model-mountain_car.so): Gymnasium's MountainCar-v0 and, with
 * [mountain_car] continuous = true, MountainCarContinuous-v0, as an
 * environment model (weft/env.h). Its keys, the initial state (computed
 * on the host by the kernels' own reset function), the protocol's views
 * and lists, `weft run`'s step (the on-device policy) and its summary.
 * Everything that runs per environment per step is in mountain_car.wk.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/kernel_host.h>
#include <weft/kernel.h>
#include <weft/env.wk>
#include <weft/model.h>

#include "mountain_car_kernels.h"
#include "mountain_car_shared.h"

static const weft_key_desc mc_keys[] = {
	{ "envs", WEFT_KEY_INT, "8", 1, 100000000, NULL,
	  "number of environments stepped together" },
	{ "continuous", WEFT_KEY_BOOL, "false", 0, 0, NULL,
	  "false: MountainCar-v0 (Discrete(3) actions: push left, none, "
	  "right; reward -1 per step); true: MountainCarContinuous-v0 (one "
	  "float32 force in [-1, 1]; reward 100 at the goal minus 0.1 "
	  "force^2 per step)" },
	{ "autoreset", WEFT_KEY_ENUM, "next_step", 0, 0, WEFT_AUTORESET_CHOICES,
	  "what the act list does when an episode ends, as Gymnasium 1.x's "
	  "autoreset modes: next_step (the next step begins the next "
	  "episode), same_step (this step does, the ended episode's last "
	  "observation in final_obs) or disabled (the application resets "
	  "through reset_some)" },
	{ "precision", WEFT_KEY_ENUM, "f64", 0, 0, "f32|f64",
	  "arithmetic of the state: f64 (Gymnasium's float64 operations, "
	  "and the continuous variant's float32 ones, in its order) or f32 "
	  "(everything in float32)" },
	{ "max_episode_steps", WEFT_KEY_INT, "0", 0, 16777216, NULL,
	  "an episode is truncated after this many steps; 0 (the default) "
	  "takes Gymnasium's TimeLimit for the variant: 200 for "
	  "MountainCar-v0, 999 for MountainCarContinuous-v0" },
	{ "policy", WEFT_KEY_ENUM, "random", 0, 0, "random|energy",
	  "on-device policy of `weft run`: random (uniform actions, keyed by "
	  "environment, episode and step) or energy (push the way the car "
	  "moves, which reaches the goal)" },
};

/* The model's buffers, in allocation order. */
enum {
	MC_B_PARAMS,
	MC_B_STATE, /* f64 or f32 [n][2]: position, velocity */
	MC_B_BOOK,  /* u32 [WEFT_ENV_WORDS][n] (weft/env.wk) */
	MC_B_IO,    /* the packed result (MC_IO_*) */
	MC_B_ACTIONS,
	MC_B_MASK, /* u8 [n]: reset_mask */
	MC_B_SEED, /* u64 [n]: reset_seed */
	MC_N_BUFS
};

typedef struct mc_state {
	mountain_car_params params;
	uint32_t n;
	weft_buf *bufs[MC_N_BUFS];
	size_t bytes[MC_N_BUFS];
} mc_state;

#define B(k) (s->bufs[MC_B_##k])

static void mc_read_params(weft_model_ctx *mc, mc_state *s)
{
	mountain_car_params *p = &s->params;
	uint64_t seed = weft_model_seed(mc);
	const char *mode = weft_model_string(mc, "autoreset");

	s->n = (uint32_t)weft_model_int(mc, "envs");
	p->n_envs = s->n;
	p->seed_lo = (uint32_t)seed;
	p->seed_hi = (uint32_t)(seed >> 32);
	p->continuous = weft_model_bool(mc, "continuous") ? 1u : 0u;
	p->max_steps = (uint32_t)weft_model_int(mc, "max_episode_steps");
	if (!p->max_steps)
		p->max_steps = p->continuous ? 999u : 200u;
	p->autoreset = strcmp(mode, "same_step") == 0 ? WEFT_AUTORESET_SAME_STEP
		       : strcmp(mode, "disabled") == 0
			       ? WEFT_AUTORESET_DISABLED
			       : WEFT_AUTORESET_NEXT_STEP;
	p->precision = strcmp(weft_model_string(mc, "precision"), "f32") == 0
			       ? MC_PRECISION_F32
			       : MC_PRECISION_F64;
	p->policy = strcmp(weft_model_string(mc, "policy"), "energy") == 0
			    ? MC_POLICY_ENERGY
			    : MC_POLICY_RANDOM;
}

static void mc_sizes(mc_state *s)
{
	size_t n = s->n;

	s->bytes[MC_B_PARAMS] = sizeof s->params;
	s->bytes[MC_B_STATE] =
		(s->params.precision == MC_PRECISION_F64 ? 16 : 8) * n;
	s->bytes[MC_B_BOOK] = WEFT_ENV_BYTES(n);
	s->bytes[MC_B_IO] = MC_IO_BYTES(n);
	s->bytes[MC_B_ACTIONS] = 8 * n; /* i64 [n] or f32 [n][1] */
	s->bytes[MC_B_MASK] = n;
	s->bytes[MC_B_SEED] = 8 * n;
}

/* The bookkeeping and the first states, as the kernels would make them:
 * weft_env_init, then episode 0's position (mc_reset_position), velocity
 * 0, and its observation packed. */
static void mc_initial(const mc_state *s, uint32_t *book, void *state,
		       uint8_t *io)
{
	const mountain_car_params *p = &s->params;
	double *s64 = state;
	float *s32 = state, *obs = (float *)io;

	for (uint32_t i = 0; i < s->n; i++) {
		double x;

		weft_env_init(book, s->n, i, p->seed_lo, p->seed_hi);
		x = mc_reset_position(book, s->n, i);
		if (p->precision == MC_PRECISION_F64) {
			s64[2 * (size_t)i] = x;
			s64[2 * (size_t)i + 1] = 0.0;
		} else {
			s32[2 * (size_t)i] = (float)x;
			s32[2 * (size_t)i + 1] = 0.0f;
		}
		obs[2 * (size_t)i] = (float)x;
		obs[2 * (size_t)i + 1] = 0.0f;
	}
}

static weft_status mc_alloc_upload(weft_model_ctx *mc, mc_state *s)
{
	static const char *const names[MC_N_BUFS] = {
		"params",  "state",	 "env_book",   "io",
		"actions", "reset_mask", "reset_seed",
	};
	void *made[MC_N_BUFS] = { 0 };
	weft_status st = WEFT_OK;

	mc_sizes(s);
	for (int k = 0; k < MC_N_BUFS && !st; k++)
		st = weft_model_alloc(mc, names[k], s->bytes[k], &s->bufs[k]);
	if (st)
		return st;
	for (int k = 1; k < MC_N_BUFS; k++)
		if (!(made[k] = calloc(1, s->bytes[k]))) {
			st = weft_model_fail(mc, WEFT_E_NOMEM,
					     "cannot allocate %zu bytes for "
					     "the initial '%s' buffer",
					     s->bytes[k], names[k]);
			goto free_host;
		}
	mc_initial(s, made[MC_B_BOOK], made[MC_B_STATE], made[MC_B_IO]);
	for (int k = 0; k < MC_N_BUFS && !st; k++)
		st = weft_model_upload(
			mc, s->bufs[k], 0,
			k == MC_B_PARAMS ? (const void *)&s->params : made[k],
			s->bytes[k]);
free_host:
	for (int k = 0; k < MC_N_BUFS; k++)
		free(made[k]);
	return st;
}

/* ---- launches ------------------------------------------------------------ */

/* act: with precision = f32, mountain_car_act_f32 (the same bits,
 * vectorised on the host). */
static weft_launch mc_act(const mc_state *s)
{
	if (s->params.precision == MC_PRECISION_F32)
		return mountain_car_act_f32_launch(
			(mountain_car_act_f32_bufs){ .p = B(PARAMS),
						     .state = B(STATE),
						     .ep = B(BOOK),
						     .io = B(IO),
						     .actions = B(ACTIONS) },
			s->n);
	return mountain_car_act_launch(
		(mountain_car_act_bufs){ .p = B(PARAMS),
					 .state = B(STATE),
					 .ep = B(BOOK),
					 .io = B(IO),
					 .actions = B(ACTIONS) },
		s->n);
}

static weft_launch mc_policy(const mc_state *s)
{
	return mountain_car_policy_launch(
		(mountain_car_policy_bufs){ .p = B(PARAMS),
					    .state = B(STATE),
					    .ep = B(BOOK),
					    .io = B(IO) },
		s->n);
}

static weft_launch mc_reset_some(const mc_state *s)
{
	return mountain_car_reset_some_launch(
		(mountain_car_reset_some_bufs){ .p = B(PARAMS),
						.state = B(STATE),
						.ep = B(BOOK),
						.io = B(IO),
						.mask = B(MASK),
						.seed = B(SEED) },
		s->n);
}

static weft_status mc_lists(weft_model_ctx *mc, mc_state *s)
{
	weft_launch act = mc_act(s), policy = mc_policy(s);
	weft_launch some = mc_reset_some(s);
	weft_status st;

	if ((st = weft_model_set_step(mc, &policy, 1)) ||
	    (st = weft_model_add_list(mc, "act", &act, 1)) ||
	    (st = weft_model_add_list(mc, "policy", &policy, 1)))
		return st;
	return weft_model_add_list(mc, "reset_some", &some, 1);
}

/* ---- the protocol's spaces and views ---------------------------------- */

/* Gymnasium's float32 bounds, as doubles. */
static const double mc_obs_low[2] = { (double)-1.2f, (double)-0.07f };
static const double mc_obs_high[2] = { (double)0.6f, (double)0.07f };
static const double mc_act_low[1] = { -1.0 }, mc_act_high[1] = { 1.0 };

static weft_status mc_spaces(weft_model_ctx *mc, const mc_state *s)
{
	weft_env_space obs = { .struct_size = sizeof obs,
			       .kind = WEFT_SPACE_BOX,
			       .dtype = WEFT_DTYPE_F32,
			       .ndim = 1,
			       .shape = { 2 },
			       .low = mc_obs_low,
			       .high = mc_obs_high };
	weft_env_space act = { .struct_size = sizeof act };

	if (s->params.continuous) {
		act.kind = WEFT_SPACE_BOX;
		act.dtype = WEFT_DTYPE_F32;
		act.ndim = 1;
		act.shape[0] = 1;
		act.low = mc_act_low;
		act.high = mc_act_high;
	} else {
		act.kind = WEFT_SPACE_DISCRETE;
		act.dtype = WEFT_DTYPE_I64;
		act.n = 3;
		act.start = 0;
	}
	return weft_model_env_spaces(mc, &obs, &act);
}

static weft_status mc_views(weft_model_ctx *mc, const mc_state *s)
{
	size_t un = s->n;
	weft_env_views v = {
		.struct_size = sizeof v,
		.reward_dtype = WEFT_DTYPE_F32,
		.io = B(IO),
		.obs = 0,
		.reward = MC_IO_REWARD(un),
		.terminated = MC_IO_TERMINATED(un),
		.truncated = MC_IO_TRUNCATED(un),
		.final_obs = MC_IO_FINAL(un),
		.actions = B(ACTIONS),
		.reset_mask = B(MASK),
		.reset_seed = B(SEED),
		.env_book = B(BOOK),
		.state = B(STATE),
		.state_dtype = s->params.precision == MC_PRECISION_F64
				       ? WEFT_DTYPE_F64
				       : WEFT_DTYPE_F32,
		.state_k = 2,
	};

	return weft_model_env_views(mc, &v);
}

/* Checkpoints: every buffer but the parameters, which setup() makes again
 * from the configuration. */
static weft_status mc_declare_state(weft_model_ctx *mc, mc_state *s)
{
	weft_status st = WEFT_OK;

	for (int k = 1; k < MC_N_BUFS && !st; k++)
		st = weft_model_state(mc, s->bufs[k]);
	return st;
}

static weft_status mc_setup(weft_model_ctx *mc, void **out)
{
	mc_state *s = calloc(1, sizeof *s);
	weft_status st;

	if (!s)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the model state");
	*out = s;
	mc_read_params(mc, s);
	if ((st = mc_alloc_upload(mc, s)) || (st = mc_lists(mc, s)) ||
	    (st = mc_spaces(mc, s)) || (st = mc_views(mc, s)))
		return st;
	return mc_declare_state(mc, s);
}

/* estimate(): every device buffer, and their host copies made at setup
 * (all but the parameters). */
static weft_status mc_estimate(weft_model_ctx *mc, weft_model_estimate *est)
{
	mc_state s;
	uint64_t dev = 0, host = 0;
	char envs[64];

	memset(&s, 0, sizeof s);
	mc_read_params(mc, &s);
	mc_sizes(&s);
	for (int k = 0; k < MC_N_BUFS; k++) {
		dev += s.bytes[k];
		host += k ? s.bytes[k] : 0;
	}
	snprintf(envs, sizeof envs, "[mountain_car] envs = %u", s.n);
	return weft_model_estimate_add(est, "environments", envs, host, dev);
}

/* The summary: episodes ended and their mean return, from the
 * bookkeeping's per-environment counts and sums (added in environment
 * order: the same on every backend). */
static weft_status mc_finish(weft_model_ctx *mc, void *state)
{
	mc_state *s = state;
	const mountain_car_params *p = &s->params;

	weft_model_summary(mc, "environment", "%s",
			   p->continuous ? "MountainCarContinuous-v0"
					 : "MountainCar-v0");
	weft_model_summary(mc, "environments", "%u", s->n);
	weft_model_summary(mc, "precision", "%s",
			   p->precision == MC_PRECISION_F64 ? "f64" : "f32");
	weft_model_summary(mc, "policy", "%s",
			   p->policy == MC_POLICY_ENERGY ? "energy" : "random");
	weft_model_summary(mc, "steps", "%llu per environment",
			   (unsigned long long)weft_model_steps(mc));
	return weft_model_env_summary(mc, B(BOOK));
}

static void mc_teardown(weft_model_ctx *mc, void *state)
{
	mc_state *s = state;

	if (!s)
		return;
	for (int k = 0; k < MC_N_BUFS; k++)
		weft_model_free(mc, s->bufs[k]);
	free(s);
}

static const weft_env_id mc_ids[] = {
	{ "MountainCar-v0", NULL,
	  "a car in a valley pushes left, not at all or right to reach the "
	  "hill top (Discrete(3))",
	  200 },
	{ "MountainCarContinuous-v0", "mountain_car.continuous=true",
	  "a car in a valley pushes with a force in [-1, 1] to reach the "
	  "hill top",
	  999 },
};

/* Gymnasium's reward_threshold of each id, in the order of mc_ids. */
static const double mc_thresholds[] = { -110.0, 90.0 };
_Static_assert(sizeof mc_thresholds / sizeof mc_thresholds[0] ==
		       sizeof mc_ids / sizeof mc_ids[0],
	       "one reward threshold per env id");

static const weft_env_model mc_env = {
	.struct_size = sizeof(weft_env_model),
	.count_key = "envs",
	.autoreset_key = "autoreset",
	.precision_key = "precision",
	.ids = mc_ids,
	.n_ids = sizeof mc_ids / sizeof mc_ids[0],
	.reward_thresholds = mc_thresholds,
};

WEFT_MODEL_ENTRY = {
	.abi_major = WEFT_MODEL_ABI_MAJOR,
	.abi_minor = WEFT_MODEL_ABI_MINOR,
	.struct_size = sizeof(weft_model),
	.name = "mountain_car",
	.version = WEFT_MODEL_VERSION,
	.summary = "Gymnasium's MountainCar-v0 and MountainCarContinuous-v0 "
		   "for many environments at once (environment protocol)",
	.keys = mc_keys,
	.n_keys = sizeof mc_keys / sizeof mc_keys[0],
	.program = &mountain_car_program,
	.sigs = mountain_car_sigs,
	.setup = mc_setup,
	.finish = mc_finish,
	.teardown = mc_teardown,
	.estimate = mc_estimate,
	/* `weft conform`: both variants' paths are exercised by the step
	 * list; the energy policy ends episodes at the goal, truncation
	 * ends the others. */
	.conform_sets = "mountain_car.envs=1000\n"
			"mountain_car.policy=energy\n"
			"mountain_car.max_episode_steps=150\n"
			"simulation.steps=300\n",
	.checkpoints = 1,
	.env = &mc_env,
};
