/*
 * models/pendulum/pendulum.c - the Pendulum model plugin
 * (weft-model-pendulum.so): Gymnasium's Pendulum-v1 on the environment
 * protocol (weft/env.h). Its keys, the initial state, the protocol's
 * launch lists and views, `weft run`'s step (the on-device policy) and
 * the summary of the episodes it ended. Everything that runs per
 * environment per step is in pendulum.wk and pendulum_dyn.h.
 *
 * Compiled without contraction of a * b + c (local.mk): the host computes
 * the initial state with the kernels' own functions, which must round as
 * on the devices.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/kernel_host.h>
#include <weft/kernel.h>
#include <weft/math.h>
#include <weft/double.h>
#include <weft/model.h>
#include <weft/env.wk>

#include "pendulum_kernels.h"
#include "pendulum_shared.h"
#include "pendulum_dyn.h"

/* The model's buffers, in allocation order (names in pd_alloc_all). */
enum {
	PD_B_PARAMS,
	PD_B_BOOK,    /* u32 [WEFT_ENV_WORDS][n]: weft/env.wk's bookkeeping */
	PD_B_STATE,   /* f64 or f32 [n][2]: th, thdot */
	PD_B_ACTIONS, /* f32 [n][1] */
	PD_B_IO,      /* the packed result (PD_IO_*) */
	PD_B_MASK,    /* u8 [n]: reset_mask */
	PD_B_SEED,    /* u64 [n]: reset_seed */
	PD_N_BUFS
};

typedef struct pendulum_state {
	pendulum_params params;
	uint32_t n_envs;
	weft_buf *bufs[PD_N_BUFS];
	size_t bytes[PD_N_BUFS];
} pendulum_state;

static const weft_key_desc pendulum_keys[] = {
	{ "envs", WEFT_KEY_INT, "8", 1, 100000000, NULL,
	  "number of environments stepped together" },
	{ "autoreset", WEFT_KEY_ENUM, "next_step", 0, 0, WEFT_AUTORESET_CHOICES,
	  "what the act list does with an environment whose episode ended: "
	  "next_step begins the next episode at the next step (Gymnasium "
	  "1.x's default), same_step at once (final_obs keeps the last "
	  "observation), disabled leaves it to reset_some" },
	{ "precision", WEFT_KEY_ENUM, "f64", 0, 0, "f32|f64",
	  "arithmetic of the state: f64 (Gymnasium's float64 operations; "
	  "sin and cos correctly rounded, numpy's but where glibc misrounds) "
	  "or f32 "
	  "(the same operations in float32)" },
	{ "max_episode_steps", WEFT_KEY_INT, "200", 1, 16777216, NULL,
	  "an episode is truncated after this many steps (Pendulum-v1: "
	  "200)" },
	{ "policy", WEFT_KEY_ENUM, "random", 0, 0, "random|zero",
	  "on-device policy of `weft run`: random draws a torque uniform in "
	  "[-2, 2) (keyed by environment, episode and step), zero applies "
	  "none" },
	{ "g", WEFT_KEY_REAL, "10.0", 0, 1e6, NULL,
	  "acceleration of gravity (Gymnasium's make(\"Pendulum-v1\", "
	  "g=...))" },
};

static void pd_read_params(weft_model_ctx *mc, pendulum_state *s)
{
	pendulum_params *p = &s->params;
	uint64_t seed = weft_model_seed(mc);
	const char *mode = weft_model_string(mc, "autoreset");
	double g = weft_model_real(mc, "g");
	/* Python's 3 * g / (2 * l) with l = 1.0: (3 * g) / 2.0 */
	double k = 3.0 * g / 2.0;
	float kf = 3.0f * (float)g / 2.0f;
	uint64_t kb;
	uint32_t kfb;

	s->n_envs = (uint32_t)weft_model_int(mc, "envs");
	p->n_envs = s->n_envs;
	p->seed_lo = (uint32_t)seed;
	p->seed_hi = (uint32_t)(seed >> 32);
	p->max_steps = (uint32_t)weft_model_int(mc, "max_episode_steps");
	p->autoreset =
		strcmp(mode, "same_step") == 0	? WEFT_ENV_AUTORESET_SAME_STEP
		: strcmp(mode, "disabled") == 0 ? WEFT_ENV_AUTORESET_DISABLED
						: WEFT_ENV_AUTORESET_NEXT_STEP;
	p->precision = strcmp(weft_model_string(mc, "precision"), "f32") == 0
			       ? PD_PRECISION_F32
			       : PD_PRECISION_F64;
	p->policy = strcmp(weft_model_string(mc, "policy"), "zero") == 0
			    ? PD_POLICY_ZERO
			    : PD_POLICY_RANDOM;
	memcpy(&kb, &k, sizeof kb);
	memcpy(&kfb, &kf, sizeof kfb);
	p->k_lo = (uint32_t)kb;
	p->k_hi = (uint32_t)(kb >> 32);
	p->k_f32 = kfb;
}

/* Bytes of every buffer, from the parameters. */
static void pd_sizes(pendulum_state *s)
{
	size_t n = s->n_envs;
	size_t real = s->params.precision == PD_PRECISION_F64 ? 8 : 4;

	s->bytes[PD_B_PARAMS] = sizeof s->params;
	s->bytes[PD_B_BOOK] = WEFT_ENV_BYTES(n);
	s->bytes[PD_B_STATE] = PD_STATE * real * n;
	s->bytes[PD_B_ACTIONS] = 4 * n;
	s->bytes[PD_B_IO] = PD_IO_BYTES(n);
	s->bytes[PD_B_MASK] = n;
	s->bytes[PD_B_SEED] = 8 * n;
}

static weft_status pd_alloc_all(weft_model_ctx *mc, pendulum_state *s)
{
	static const char *const names[PD_N_BUFS] = {
		"params", "env_book",	"state",      "actions",
		"io",	  "reset_mask", "reset_seed",
	};
	weft_status st;

	pd_sizes(s);
	for (int k = 0; k < PD_N_BUFS; k++)
		if ((st = weft_model_alloc(mc, names[k], s->bytes[k],
					   &s->bufs[k])))
			return st;
	return WEFT_OK;
}

/* Episode 0 of every environment, as the kernels would begin it: the
 * bookkeeping (weft_env_init), the first state and its observation in
 * the packed buffer (reward 0, no flags). */
static void pd_initial(const pendulum_state *s, uint32_t *book,
		       unsigned char *state, unsigned char *io)
{
	const pendulum_params *p = &s->params;

	for (uint32_t i = 0; i < s->n_envs; i++) {
		weft_env_init(book, s->n_envs, i, p->seed_lo, p->seed_hi);
		pd_begin(p, book, state, i);
		pd_obs(p, state, i, (float *)io + 3u * i);
	}
}

/* Parameters, bookkeeping, state and packed buffer; zeros elsewhere. */
static weft_status pd_upload_all(weft_model_ctx *mc, pendulum_state *s)
{
	void *made[PD_N_BUFS] = { 0 };
	weft_status st = WEFT_OK;
	int ok = 1;

	for (int k = 1; k < PD_N_BUFS; k++)
		ok = (made[k] = calloc(1, s->bytes[k])) && ok;
	if (!ok) {
		st = weft_model_fail(mc, WEFT_E_NOMEM,
				     "cannot allocate host memory for the "
				     "initial state of %u environments",
				     s->n_envs);
		goto free_host;
	}
	pd_initial(s, made[PD_B_BOOK], made[PD_B_STATE], made[PD_B_IO]);
	for (int k = 0; k < PD_N_BUFS && !st; k++)
		st = weft_model_upload(
			mc, s->bufs[k], 0,
			k == PD_B_PARAMS ? (const void *)&s->params : made[k],
			s->bytes[k]);
free_host:
	for (int k = 0; k < PD_N_BUFS; k++)
		free(made[k]);
	return st;
}

#define B(k) (s->bufs[PD_B_##k])

static weft_launch pd_act_launch(const pendulum_state *s)
{
	return pendulum_act_launch((pendulum_act_bufs){ .p = B(PARAMS),
							.ep = B(BOOK),
							.state = B(STATE),
							.actions = B(ACTIONS),
							.io = B(IO) },
				   s->n_envs);
}

/* act with precision = f32: pendulum_act_f32, the same bits, vectorised
 * on the host. */
static weft_launch pd_act_f32_launch(const pendulum_state *s)
{
	return pendulum_act_f32_launch(
		(pendulum_act_f32_bufs){ .p = B(PARAMS),
					 .ep = B(BOOK),
					 .state = B(STATE),
					 .actions = B(ACTIONS),
					 .io = B(IO) },
		s->n_envs);
}

static weft_launch pd_policy_launch(const pendulum_state *s)
{
	return pendulum_policy_launch((pendulum_policy_bufs){ .p = B(PARAMS),
							      .ep = B(BOOK),
							      .state = B(STATE),
							      .io = B(IO) },
				      s->n_envs);
}

static weft_launch pd_reset_some_launch(const pendulum_state *s)
{
	return pendulum_reset_some_launch(
		(pendulum_reset_some_bufs){ .p = B(PARAMS),
					    .ep = B(BOOK),
					    .state = B(STATE),
					    .io = B(IO),
					    .reset_mask = B(MASK),
					    .reset_seed = B(SEED) },
		s->n_envs);
}

/* The step of `weft run` and the protocol's lists. */
static weft_status pd_add_lists(weft_model_ctx *mc, pendulum_state *s)
{
	weft_launch step = pd_policy_launch(s);
	weft_launch act = s->params.precision == PD_PRECISION_F32
				  ? pd_act_f32_launch(s)
				  : pd_act_launch(s);
	weft_launch some = pd_reset_some_launch(s);
	weft_status st;

	if ((st = weft_model_set_step(mc, &step, 1)) ||
	    (st = weft_model_add_list(mc, "act", &act, 1)) ||
	    (st = weft_model_add_list(mc, "policy", &step, 1)))
		return st;
	return weft_model_add_list(mc, "reset_some", &some, 1);
}

/* The protocol's views (weft/env.h) and the model's own: state (th,
 * thdot: Gymnasium's env.unwrapped.state) and env_book. */
static weft_status pd_add_views(weft_model_ctx *mc, pendulum_state *s)
{
	size_t un = s->n_envs;
	weft_env_views v = {
		.struct_size = sizeof v,
		.reward_dtype = WEFT_DTYPE_F32,
		.io = B(IO),
		.obs = 0,
		.reward = PD_IO_REWARD(un),
		.terminated = PD_IO_TERMINATED(un),
		.truncated = PD_IO_TRUNCATED(un),
		.final_obs = PD_IO_FINAL(un),
		.actions = B(ACTIONS),
		.reset_mask = B(MASK),
		.reset_seed = B(SEED),
		.env_book = B(BOOK),
		.state = B(STATE),
		.state_dtype = s->params.precision == PD_PRECISION_F64
				       ? WEFT_DTYPE_F64
				       : WEFT_DTYPE_F32,
		.state_k = PD_STATE,
	};

	return weft_model_env_views(mc, &v);
}

/* Pendulum-v1's spaces: Box(-high, high, (3,), float32) with high =
 * [1, 1, 8]; Box(-2, 2, (1,), float32). */
static weft_status pd_spaces(weft_model_ctx *mc)
{
	static const double obs_high[PD_OBS] = { 1.0, 1.0, 8.0 };
	static const double obs_low[PD_OBS] = { -1.0, -1.0, -8.0 };
	static const double act_high[1] = { 2.0 }, act_low[1] = { -2.0 };
	weft_env_space obs = { .struct_size = sizeof obs,
			       .kind = WEFT_SPACE_BOX,
			       .dtype = WEFT_DTYPE_F32,
			       .ndim = 1,
			       .shape = { PD_OBS },
			       .low = obs_low,
			       .high = obs_high };
	weft_env_space act = { .struct_size = sizeof act,
			       .kind = WEFT_SPACE_BOX,
			       .dtype = WEFT_DTYPE_F32,
			       .ndim = 1,
			       .shape = { 1 },
			       .low = act_low,
			       .high = act_high };

	return weft_model_env_spaces(mc, &obs, &act);
}

/* Checkpoints: every buffer but the parameters, which setup() makes
 * again from the configuration. */
static weft_status pd_declare_state(weft_model_ctx *mc, pendulum_state *s)
{
	weft_status st = WEFT_OK;

	for (int k = 1; k < PD_N_BUFS && !st; k++)
		st = weft_model_state(mc, s->bufs[k]);
	return st;
}

static weft_status pendulum_estimate(weft_model_ctx *mc,
				     weft_model_estimate *est)
{
	pendulum_state s;
	uint64_t dev = 0;
	char envs[64];

	memset(&s, 0, sizeof s);
	pd_read_params(mc, &s);
	pd_sizes(&s);
	for (int k = 0; k < PD_N_BUFS; k++)
		dev += s.bytes[k];
	snprintf(envs, sizeof envs, "[pendulum] envs = %u", s.n_envs);
	/* The host builds every buffer but the parameters before uploading. */
	return weft_model_estimate_add(est, "environments", envs,
				       dev - s.bytes[PD_B_PARAMS], dev);
}

static weft_status pendulum_setup(weft_model_ctx *mc, void **out)
{
	pendulum_state *s = calloc(1, sizeof *s);
	weft_status st;

	if (!s)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the model state");
	*out = s;
	pd_read_params(mc, s);
	if ((st = pd_alloc_all(mc, s)) || (st = pd_upload_all(mc, s)) ||
	    (st = pd_add_lists(mc, s)) || (st = pd_spaces(mc)) ||
	    (st = pd_add_views(mc, s)))
		return st;
	return pd_declare_state(mc, s);
}

/* The episodes the run's steps ended and their mean return, from the
 * bookkeeping (returns summed in f32 per environment, in step order). */
static weft_status pendulum_finish(weft_model_ctx *mc, void *state)
{
	pendulum_state *s = state;

	weft_model_summary(mc, "environments", "%u", s->n_envs);
	weft_model_summary(mc, "precision", "%s",
			   s->params.precision == PD_PRECISION_F64 ? "f64"
								   : "f32");
	weft_model_summary(mc, "policy", "%s",
			   s->params.policy == PD_POLICY_ZERO ? "zero"
							      : "random");
	return weft_model_env_summary(mc, s->bufs[PD_B_BOOK]);
}

static void pendulum_teardown(weft_model_ctx *mc, void *state)
{
	pendulum_state *s = state;

	if (!s)
		return;
	for (int k = 0; k < PD_N_BUFS; k++)
		weft_model_free(mc, s->bufs[k]);
	free(s);
}

static const weft_env_id pendulum_ids[] = {
	{ "Pendulum-v1", NULL,
	  "Gymnasium's Pendulum-v1: swing a pendulum up with a bounded torque",
	  200 },
};

static const weft_env_model pendulum_env = {
	.struct_size = sizeof(weft_env_model),
	.count_key = "envs",
	.autoreset_key = "autoreset",
	.precision_key = "precision",
	.ids = pendulum_ids,
	.n_ids = 1,
};

WEFT_MODEL_ENTRY = {
	.abi_major = WEFT_MODEL_ABI_MAJOR,
	.abi_minor = WEFT_MODEL_ABI_MINOR,
	.struct_size = sizeof(weft_model),
	.name = "pendulum",
	.version = WEFT_MODEL_VERSION,
	.summary = "Pendulum-v1 (Gymnasium's dynamics) for many environments "
		   "at once, on the environment protocol",
	.keys = pendulum_keys,
	.n_keys = sizeof pendulum_keys / sizeof pendulum_keys[0],
	.program = &pendulum_program,
	.sigs = pendulum_sigs,
	.setup = pendulum_setup,
	.finish = pendulum_finish,
	.teardown = pendulum_teardown,
	.estimate = pendulum_estimate,
	/* `weft conform`: 1000 environments, two truncations each, in both
	 * precisions' default (f64). */
	.conform_sets = "pendulum.envs=1000\n"
			"simulation.steps=450\n",
	.checkpoints = 1,
	.env = &pendulum_env,
};
