/*
 * models/acrobot/acrobot.c - the Acrobot model plugin
 * (weft-model-acrobot.so): Gymnasium's Acrobot-v1 as a batch of
 * environments through the environment protocol (weft/env.h): keys, the
 * buffers and their first contents, the protocol's views and lists
 * ("act", "reset_some"), the step of `weft run` (the on-device policy)
 * and its summary. Everything that runs per environment per step is in
 * acrobot.wk; the dynamics in acrobot_shared.h, which this file also
 * uses for the first states (compiled, as every model's C, without
 * contraction: the same bits as the kernels).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/kernel_host.h>
#include <weft/kernel.h>
#include <weft/model.h>

#include "acrobot_kernels.h"
#include "acrobot_shared.h"

/* The model's buffers, in allocation order (names in acrobot_names). */
enum {
	ACRO_B_PARAMS,
	ACRO_B_STATE,	/* f64 or f32 [n][4]: Gymnasium's state */
	ACRO_B_BOOK,	/* u32 [WEFT_ENV_WORDS][n] (weft/env.wk) */
	ACRO_B_IO,	/* the packed result (ACRO_IO_*) */
	ACRO_B_ACTIONS, /* u8 [n] */
	ACRO_B_MASK,	/* u8 [n]: reset_mask */
	ACRO_B_SEED,	/* u64 [n]: reset_seed */
	ACRO_N_BUFS
};

static const char *const acrobot_names[ACRO_N_BUFS] = {
	"params",  "state",	 "env_book",   "io",
	"actions", "reset_mask", "reset_seed",
};

typedef struct acrobot_state {
	acrobot_params params;
	weft_buf *bufs[ACRO_N_BUFS];
	size_t bytes[ACRO_N_BUFS];
} acrobot_state;

static const weft_key_desc acrobot_keys[] = {
	{ "envs", WEFT_KEY_INT, "16", 1, 100000000, NULL,
	  "number of environments stepped together" },
	{ "autoreset", WEFT_KEY_ENUM, "next_step", 0, 0, WEFT_AUTORESET_CHOICES,
	  "what the act list does with an episode that ends: next_step "
	  "begins the next one in the following step (Gymnasium 1.x's "
	  "default), same_step at once (final_obs keeps the last "
	  "observation), disabled leaves it to reset_some" },
	{ "precision", WEFT_KEY_ENUM, "f64", 0, 0, "f32|f64",
	  "arithmetic of the state: f64 (Gymnasium's float64 operations in "
	  "its order; sin, cos and x**2 from weft's math library) or f32 "
	  "(the same step in single precision, arranged for speed)" },
	{ "max_episode_steps", WEFT_KEY_INT, "500", 1, 16777216, NULL,
	  "an episode is truncated after this many steps (Acrobot-v1: 500)" },
	{ "policy", WEFT_KEY_ENUM, "random", 0, 0, "random|zero",
	  "on-device policy of `weft run`: random draws torque -1, 0 or +1 "
	  "with probability 1/3 each (counter-based, keyed by environment, "
	  "episode and step); zero always applies torque 0" },
};

static weft_u32 acrobot_autoreset(const char *v)
{
	if (strcmp(v, "same_step") == 0)
		return WEFT_ENV_AUTORESET_SAME_STEP;
	if (strcmp(v, "disabled") == 0)
		return WEFT_ENV_AUTORESET_DISABLED;
	return WEFT_ENV_AUTORESET_NEXT_STEP;
}

static void acrobot_read_params(weft_model_ctx *mc, acrobot_state *s)
{
	acrobot_params *p = &s->params;
	uint64_t seed = weft_model_seed(mc);

	p->n_envs = (uint32_t)weft_model_int(mc, "envs");
	p->seed_lo = (uint32_t)seed;
	p->seed_hi = (uint32_t)(seed >> 32);
	p->max_steps = (uint32_t)weft_model_int(mc, "max_episode_steps");
	p->autoreset = acrobot_autoreset(weft_model_string(mc, "autoreset"));
	p->precision = strcmp(weft_model_string(mc, "precision"), "f32") == 0
			       ? ACRO_PRECISION_F32
			       : ACRO_PRECISION_F64;
	p->policy = strcmp(weft_model_string(mc, "policy"), "zero") == 0
			    ? ACRO_POLICY_ZERO
			    : ACRO_POLICY_RANDOM;
}

/* Bytes of every buffer: what setup allocates and estimate() counts. */
static void acrobot_sizes(acrobot_state *s)
{
	size_t n = s->params.n_envs;
	size_t real = s->params.precision == ACRO_PRECISION_F64 ? 8 : 4;

	s->bytes[ACRO_B_PARAMS] = sizeof s->params;
	s->bytes[ACRO_B_STATE] = ACRO_STATE * real * n;
	s->bytes[ACRO_B_BOOK] = WEFT_ENV_BYTES(n);
	s->bytes[ACRO_B_IO] = ACRO_IO_BYTES(n);
	s->bytes[ACRO_B_ACTIONS] = n;
	s->bytes[ACRO_B_MASK] = n;
	s->bytes[ACRO_B_SEED] = 8 * n;
}

/* Episode 0 of every environment: the bookkeeping as weft_env_init()
 * makes it, the first states as acro_begin() draws them (the kernels'
 * own functions), their observations packed (reward 0, no flags). */
static void acrobot_initial(const acrobot_state *s, uint32_t *book, void *state,
			    unsigned char *io)
{
	const acrobot_params *p = &s->params;
	uint32_t n = p->n_envs;
	acro32 f;
	acro64 d;

	for (uint32_t i = 0; i < n; i++)
		weft_env_init(book, n, i, p->seed_lo, p->seed_hi);
	for (uint32_t i = 0; i < n; i++) {
		float *obs = (float *)io + ACRO_OBS * (size_t)i;

		f = acro_reset_state(weft_env_rand(book, n, i, 0, 0),
				     weft_env_rand(book, n, i, 0, 1));
		if (p->precision == ACRO_PRECISION_F64) {
			d = (acro64){ f.s0, f.s1, f.s2, f.s3 };
			memcpy((double *)state + 4 * (size_t)i, &d, sizeof d);
			acro64_obs(d, obs);
		} else {
			memcpy((float *)state + 4 * (size_t)i, &f, sizeof f);
			acro32_obs(f, obs);
		}
	}
}

/* Parameters and the first contents; zeros everywhere else. */
static weft_status acrobot_upload_all(weft_model_ctx *mc, acrobot_state *s)
{
	void *host[ACRO_N_BUFS] = { 0 };
	weft_status st = WEFT_OK;
	int k;

	for (k = 0; k < ACRO_N_BUFS; k++)
		if (k != ACRO_B_PARAMS && !(host[k] = calloc(1, s->bytes[k]))) {
			st = weft_model_fail(
				mc, WEFT_E_NOMEM,
				"cannot allocate %zu bytes of host "
				"memory for the buffer %s",
				s->bytes[k], acrobot_names[k]);
			goto free_host;
		}
	acrobot_initial(s, host[ACRO_B_BOOK], host[ACRO_B_STATE],
			host[ACRO_B_IO]);
	for (k = 0; k < ACRO_N_BUFS && !st; k++)
		st = weft_model_upload(
			mc, s->bufs[k], 0,
			k == ACRO_B_PARAMS ? (const void *)&s->params : host[k],
			s->bytes[k]);
free_host:
	for (k = 0; k < ACRO_N_BUFS; k++)
		free(host[k]);
	return st;
}

#define B(k) (s->bufs[ACRO_B_##k])

/* The protocol's lists and `weft run`'s step: one launch each (act with
 * precision = f32: acrobot_act_f32, the same bits, vectorised on the
 * host). */
static weft_status acrobot_lists(weft_model_ctx *mc, acrobot_state *s)
{
	uint32_t n = s->params.n_envs;
	weft_launch act =
		acrobot_act_launch((acrobot_act_bufs){ .p = B(PARAMS),
						       .state = B(STATE),
						       .book = B(BOOK),
						       .actions = B(ACTIONS),
						       .io = B(IO) },
				   n);
	weft_launch act_f32 = acrobot_act_f32_launch(
		(acrobot_act_f32_bufs){ .p = B(PARAMS),
					.state = B(STATE),
					.book = B(BOOK),
					.actions = B(ACTIONS),
					.io = B(IO) },
		n);
	weft_launch policy =
		acrobot_policy_launch((acrobot_policy_bufs){ .p = B(PARAMS),
							     .state = B(STATE),
							     .book = B(BOOK),
							     .io = B(IO) },
				      n);
	weft_launch some = acrobot_reset_some_launch(
		(acrobot_reset_some_bufs){ .p = B(PARAMS),
					   .state = B(STATE),
					   .book = B(BOOK),
					   .io = B(IO),
					   .mask = B(MASK),
					   .seed = B(SEED) },
		n);
	weft_status st;

	if ((st = weft_model_set_step(mc, &policy, 1)) ||
	    (st = weft_model_add_list(mc, "act",
				      s->params.precision == ACRO_PRECISION_F32
					      ? &act_f32
					      : &act,
				      1)))
		return st;
	return weft_model_add_list(mc, "reset_some", &some, 1);
}

/* The spaces: Box(-high, high, (6,), float32) with Gymnasium's float32
 * high [1, 1, 1, 1, 4 pi, 9 pi], and Discrete(3). */
static weft_status acrobot_spaces(weft_model_ctx *mc)
{
	double high[ACRO_OBS] = {
		1.0, 1.0, 1.0, 1.0, (float)ACRO_MAX_V1, (float)ACRO_MAX_V2
	};
	double low[ACRO_OBS];
	weft_env_space obs = { 0 }, act = { 0 };

	for (int k = 0; k < (int)ACRO_OBS; k++)
		low[k] = -high[k];
	obs.struct_size = sizeof obs;
	obs.kind = WEFT_SPACE_BOX;
	obs.dtype = WEFT_DTYPE_F32;
	obs.ndim = 1;
	obs.shape[0] = ACRO_OBS;
	obs.low = low;
	obs.high = high;
	act.struct_size = sizeof act;
	act.kind = WEFT_SPACE_DISCRETE;
	act.dtype = WEFT_DTYPE_U8;
	act.n = 3;
	act.start = 0;
	return weft_model_env_spaces(mc, &obs, &act);
}

/* The protocol's views (weft/env.h) and the model's own: state and
 * env_book. */
static weft_status acrobot_views(weft_model_ctx *mc, acrobot_state *s)
{
	size_t un = s->params.n_envs;
	weft_env_views v = {
		.struct_size = sizeof v,
		.reward_dtype = WEFT_DTYPE_F32,
		.io = B(IO),
		.obs = 0,
		.reward = ACRO_IO_REWARD(un),
		.terminated = ACRO_IO_TERMINATED(un),
		.truncated = ACRO_IO_TRUNCATED(un),
		.final_obs = ACRO_IO_FINAL(un),
		.actions = B(ACTIONS),
		.reset_mask = B(MASK),
		.reset_seed = B(SEED),
		.env_book = B(BOOK),
		.state = B(STATE),
		.state_dtype = s->params.precision == ACRO_PRECISION_F64
				       ? WEFT_DTYPE_F64
				       : WEFT_DTYPE_F32,
		.state_k = ACRO_STATE,
	};

	return weft_model_env_views(mc, &v);
}

/* Checkpoints: every buffer but the parameters, which setup() makes
 * again from the configuration. */
static weft_status acrobot_declare_state(weft_model_ctx *mc, acrobot_state *s)
{
	weft_status st = WEFT_OK;

	for (int k = 0; k < ACRO_N_BUFS && !st; k++)
		if (k != ACRO_B_PARAMS)
			st = weft_model_state(mc, s->bufs[k]);
	return st;
}

static weft_status acrobot_setup(weft_model_ctx *mc, void **out)
{
	acrobot_state *s = calloc(1, sizeof *s);
	weft_status st;

	if (!s)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the model state");
	*out = s;
	acrobot_read_params(mc, s);
	acrobot_sizes(s);
	for (int k = 0; k < ACRO_N_BUFS; k++)
		if ((st = weft_model_alloc(mc, acrobot_names[k], s->bytes[k],
					   &s->bufs[k])))
			return st;
	if ((st = acrobot_upload_all(mc, s)) || (st = acrobot_lists(mc, s)) ||
	    (st = acrobot_spaces(mc)) || (st = acrobot_views(mc, s)))
		return st;
	return acrobot_declare_state(mc, s);
}

/* estimate(): the device buffers, and their host copies while setup
 * fills them. */
static weft_status acrobot_estimate(weft_model_ctx *mc,
				    weft_model_estimate *est)
{
	acrobot_state s;
	uint64_t dev = 0;
	char envs[64];

	memset(&s, 0, sizeof s);
	acrobot_read_params(mc, &s);
	acrobot_sizes(&s);
	for (int k = 0; k < ACRO_N_BUFS; k++)
		dev += s.bytes[k];
	snprintf(envs, sizeof envs, "[acrobot] envs = %u", s.params.n_envs);
	return weft_model_estimate_add(est, "environments", envs, dev, dev);
}

/* The summary of `weft run`: episodes ended and their mean return, from
 * the bookkeeping buffer (weft/env.wk). */
static weft_status acrobot_finish(weft_model_ctx *mc, void *state)
{
	acrobot_state *s = state;

	weft_model_summary(mc, "environments", "%u", s->params.n_envs);
	weft_model_summary(mc, "precision", "%s",
			   s->params.precision == ACRO_PRECISION_F64 ? "f64"
								     : "f32");
	weft_model_summary(mc, "policy", "%s",
			   s->params.policy == ACRO_POLICY_ZERO ? "zero"
								: "random");
	return weft_model_env_summary(mc, B(BOOK));
}

static void acrobot_teardown(weft_model_ctx *mc, void *state)
{
	acrobot_state *s = state;

	if (!s)
		return;
	for (int k = 0; k < ACRO_N_BUFS; k++)
		weft_model_free(mc, s->bufs[k]);
	free(s);
}

static const weft_env_id acrobot_ids[] = {
	{ "Acrobot-v1", NULL,
	  "two-link pendulum swung up by torque at the middle joint", 500 },
};

/* Gymnasium's reward_threshold of each id, in the order of acrobot_ids. */
static const double acrobot_thresholds[] = { -100.0 };
_Static_assert(sizeof acrobot_thresholds / sizeof acrobot_thresholds[0] ==
		       sizeof acrobot_ids / sizeof acrobot_ids[0],
	       "one reward threshold per env id");

static const weft_env_model acrobot_env = {
	.struct_size = sizeof(weft_env_model),
	.count_key = "envs",
	.autoreset_key = "autoreset",
	.precision_key = "precision",
	.ids = acrobot_ids,
	.n_ids = 1,
	.reward_thresholds = acrobot_thresholds,
};

WEFT_MODEL_ENTRY = {
	.abi_major = WEFT_MODEL_ABI_MAJOR,
	.abi_minor = WEFT_MODEL_ABI_MINOR,
	.struct_size = sizeof(weft_model),
	.name = "acrobot",
	.version = WEFT_MODEL_VERSION,
	.summary = "Acrobot-v1 (Gymnasium's dynamics, float64 Runge-Kutta) "
		   "for many environments at once",
	.keys = acrobot_keys,
	.n_keys = sizeof acrobot_keys / sizeof acrobot_keys[0],
	.program = &acrobot_program,
	.sigs = acrobot_sigs,
	.setup = acrobot_setup,
	.finish = acrobot_finish,
	.teardown = acrobot_teardown,
	.estimate = acrobot_estimate,
	/* `weft conform`: 256 environments, 600 steps (episodes truncated
	 * and ended, every env reset at least once). */
	.conform_sets = "acrobot.envs=256\n"
			"simulation.steps=600\n",
	.checkpoints = 1,
	.env = &acrobot_env,
};
