/*
 * models/cartpole/cartpole.c - the CartPole model plugin
 * (weft-model-cartpole.so): parameters, the initial state, the step's
 * launch list for `weft run` (the on-device policy, and the statistics
 * reduction when due), the environment protocol's spaces, views and
 * launch lists (weft/env.h: "CartPole-v1"), which the C API of
 * <weft/cartpole.h> drives too (cartpole_api.c, on libweft's public run
 * API), and the episode statistics CSV, written through the output pipeline
 * (collect() and emit()). Everything that runs per environment per step is
 * in cartpole.wk.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cartpole.h"

/* Most partial sums of the statistics reduction. */
#define CP_MAX_PARTIALS 4096u
/* Rows of a chunk's output snapshot: a chunk ends at the next multiple of
 * [output] every or at the last step, and the device writes a row only
 * there, so a chunk has at most one. */
#define CP_SNAP_ROWS 1u
/* Tolerance the conformance suite accepts for the f32 state; the
 * arithmetic is meant to be bit-identical on every backend. */
#define CP_STATE_TOLERANCE 1e-5

static const weft_key_desc cartpole_keys[] = {
	{ "envs", WEFT_KEY_INT, "4096", 1, 100000000, NULL,
	  "number of environments stepped together" },
	{ "policy", WEFT_KEY_ENUM, "linear", 0, 0, "linear|random",
	  "on-device policy of `weft run`: linear pushes right when "
	  "w_x x + w_x_dot x_dot + w_theta theta + w_theta_dot theta_dot + "
	  "bias > 0; random pushes either way with probability 1/2 "
	  "(counter-based, keyed by environment, episode and step)" },
	{ "w_x", WEFT_KEY_REAL, "0", -1e6, 1e6, NULL,
	  "linear policy: weight of the cart position" },
	{ "w_x_dot", WEFT_KEY_REAL, "0", -1e6, 1e6, NULL,
	  "linear policy: weight of the cart velocity" },
	{ "w_theta", WEFT_KEY_REAL, "0", -1e6, 1e6, NULL,
	  "linear policy: weight of the pole angle" },
	{ "w_theta_dot", WEFT_KEY_REAL, "1", -1e6, 1e6, NULL,
	  "linear policy: weight of the pole's angular velocity (the "
	  "default policy pushes the way the pole swings: episodes of "
	  "about 130 to 320 steps)" },
	{ "bias", WEFT_KEY_REAL, "0", -1e6, 1e6, NULL, "linear policy: bias" },
	{ "max_episode_steps", WEFT_KEY_INT, "500", 1, 16777216, NULL,
	  "an episode is truncated after this many steps (CartPole-v1: 500)" },
	{ "autoreset", WEFT_KEY_ENUM, "same_step", 0, 0, WEFT_AUTORESET_CHOICES,
	  "what the launch list \"act\" does when an episode ends "
	  "(Gymnasium's autoreset modes): same_step begins the next episode "
	  "in the same step (the observation is its first, final_obs the "
	  "ended one's last: EnvPool's convention and CartPole's since its "
	  "beginning); next_step reports the ended episode's last observation "
	  "and begins the next one in the following step, with reward 0 "
	  "(Gymnasium's vector default); disabled leaves ended environments "
	  "to reset_some. `weft run`'s policy always resets in the same step" },
	{ "precision", WEFT_KEY_ENUM, "f32", 0, 0, "f32|f64",
	  "arithmetic of the state: f32 (fast; within 2e-6 of Gymnasium per "
	  "step) or f64 (Gymnasium's float64 operations, bit for bit, on every "
	  "backend: hardware doubles where the device has them, integer "
	  "arithmetic, about 20 times slower, where it has not)" },
};

size_t weft__cartpole_io_bytes(uint32_t n)
{
	return CP_IO_BYTES((size_t)n);
}

/* The autoreset key's value (one of WEFT_AUTORESET_CHOICES, which the
 * configuration checked) as WEFT_ENV_AUTORESET_*. */
static weft_u32 cartpole_autoreset(const char *mode)
{
	if (strcmp(mode, "next_step") == 0)
		return WEFT_ENV_AUTORESET_NEXT_STEP;
	if (strcmp(mode, "disabled") == 0)
		return WEFT_ENV_AUTORESET_DISABLED;
	return WEFT_ENV_AUTORESET_SAME_STEP;
}

static void cartpole_read_params(weft_model_ctx *mc, cartpole_state *s)
{
	cartpole_params *p = &s->params;
	uint64_t seed = weft_model_seed(mc);
	uint64_t steps = weft_model_steps(mc);
	uint64_t every = weft_model_output_every(mc);

	s->n_envs = (uint32_t)weft_model_int(mc, "envs");
	p->n_envs = s->n_envs;
	p->seed_lo = (uint32_t)seed;
	p->seed_hi = (uint32_t)(seed >> 32);
	p->max_steps = (uint32_t)weft_model_int(mc, "max_episode_steps");
	p->policy = strcmp(weft_model_string(mc, "policy"), "random") == 0
			    ? CP_POLICY_RANDOM
			    : CP_POLICY_LINEAR;
	p->n_partials =
		s->n_envs < CP_MAX_PARTIALS ? s->n_envs : CP_MAX_PARTIALS;
	/* Both at most 10^9 ([simulation] steps, [output] every). */
	p->every = (uint32_t)every;
	p->last_step = (uint32_t)steps;
	s->n_rows = (steps + every - 1) / every;
	p->n_rows = (uint32_t)s->n_rows;
	p->w[0] = (float)weft_model_real(mc, "w_x");
	p->w[1] = (float)weft_model_real(mc, "w_x_dot");
	p->w[2] = (float)weft_model_real(mc, "w_theta");
	p->w[3] = (float)weft_model_real(mc, "w_theta_dot");
	p->bias = (float)weft_model_real(mc, "bias");
	p->precision = strcmp(weft_model_string(mc, "precision"), "f64") == 0
			       ? CP_PRECISION_F64
			       : CP_PRECISION_F32;
	p->autoreset = cartpole_autoreset(weft_model_string(mc, "autoreset"));
}

/* Bytes of every buffer, from the parameters: what setup allocates and
 * what estimate() counts. */
static void cartpole_sizes(cartpole_state *s)
{
	size_t n = s->n_envs, row = CP_ROW(s->n_envs);
	size_t real = s->params.precision == CP_PRECISION_F64 ? 8 : 4;

	s->bytes[CP_B_PARAMS] = sizeof s->params;
	s->bytes[CP_B_STATE] = 4 * real * row;
	s->bytes[CP_B_BOOK] = WEFT_ENV_BYTES(n);
	s->bytes[CP_B_ACC] = 4 * CP_ACC_ARRAYS * row;
	s->bytes[CP_B_ACTIONS] = n;
	s->bytes[CP_B_IO] = weft__cartpole_io_bytes(s->n_envs);
	s->bytes[CP_B_PARTIALS] = 4 * CP_ROW_WORDS * s->params.n_partials;
	s->bytes[CP_B_SERIES] = 4 * CP_ROW_WORDS * (size_t)s->n_rows;
	s->bytes[CP_B_CTL] = 4 * CP_CTL_WORDS;
	s->bytes[CP_B_CONSTS] = 8 * CP64_CONST_COUNT;
	s->bytes[CP_B_MASK] = n;
	s->bytes[CP_B_STATE_IN] = 4 * real * n;
	s->bytes[CP_B_SEED] = 8 * n;
}

static weft_status cartpole_alloc_all(weft_model_ctx *mc, cartpole_state *s)
{
	static const char *const names[CP_N_BUFS] = {
		"params", "state",    "env_book",   "stats",   "actions",
		"io",	  "partials", "series",	    "control", "constants",
		"mask",	  "state_in", "reset_seed",
	};
	weft_status st;

	cartpole_sizes(s);
	for (int k = 0; k < CP_N_BUFS; k++)
		if ((st = weft_model_alloc(mc, names[k], s->bytes[k],
					   &s->bufs[k])))
			return st;
	/* f32 is meant to be bit-identical too; binary64 in integers is. */
	st = s->params.precision == CP_PRECISION_F64
		     ? WEFT_OK
		     : weft_model_buffer_tolerance(mc, s->bufs[CP_B_STATE],
						   CP_STATE_TOLERANCE);
	if (st)
		return st;
	s->series = calloc(s->n_rows ? s->n_rows : 1,
			   CP_ROW_WORDS * sizeof(uint32_t));
	if (!s->series)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the host copy of %llu "
				       "statistics rows",
				       (unsigned long long)s->n_rows);
	return WEFT_OK;
}

/* The state of episode 0 of every environment (SoA, in the state's
 * precision) and the packed buffer showing it as the observation (AoS),
 * and the bookkeeping every environment starts with (weft_env_init: the
 * reset keys, episode 0). */
static void cartpole_initial(const cartpole_state *s, void *state,
			     unsigned char *io, uint32_t *book)
{
	size_t row = CP_ROW(s->n_envs);
	float obs[4];

	for (uint32_t i = 0; i < s->n_envs; i++) {
		weft__cartpole_reset_obs(&s->params, i, 0, obs);
		for (int k = 0; k < 4; k++)
			if (s->params.precision == CP_PRECISION_F64)
				((double *)state)[k * row + i] = obs[k];
			else
				((float *)state)[k * row + i] = obs[k];
		memcpy(io + 16 * (size_t)i, obs, sizeof obs);
		weft_env_init(book, s->n_envs, i, s->params.seed_lo,
			      s->params.seed_hi);
	}
}

/* precision = f64's constants: glibc's sin/cos table and the linear
 * policy in double. */
static void cartpole_consts(const cartpole_state *s, uint64_t *c)
{
	double w[5] = { s->params.w[0], s->params.w[1], s->params.w[2],
			s->params.w[3], s->params.bias };

	memcpy(c, weft__cartpole_trig_table, sizeof weft__cartpole_trig_table);
	memcpy(c + CP64_CONST_POLICY, w, sizeof w);
}

/* Parameters, initial state, packed buffer, bookkeeping and constants;
 * zeros everywhere else. */
static weft_status cartpole_upload_all(weft_model_ctx *mc, cartpole_state *s)
{
	static const int own[] = { CP_B_STATE, CP_B_IO, CP_B_BOOK,
				   CP_B_CONSTS };
	void *made[CP_N_BUFS] = { 0 };
	size_t zeros_bytes = 0;
	unsigned char *zeros;
	weft_status st = WEFT_OK;
	int ok;

	for (int k = 0; k < CP_N_BUFS; k++)
		if (s->bytes[k] > zeros_bytes)
			zeros_bytes = s->bytes[k];
	zeros = calloc(1, zeros_bytes);
	ok = zeros != NULL;
	for (size_t j = 0; j < sizeof own / sizeof own[0]; j++)
		ok = (made[own[j]] = calloc(1, s->bytes[own[j]])) && ok;
	if (!ok) {
		st = weft_model_fail(mc, WEFT_E_NOMEM,
				     "cannot allocate host memory for the "
				     "initial state (%zu bytes for the largest "
				     "buffer)",
				     zeros_bytes);
		goto free_host;
	}
	cartpole_initial(s, made[CP_B_STATE], made[CP_B_IO], made[CP_B_BOOK]);
	cartpole_consts(s, made[CP_B_CONSTS]);
	for (int k = 0; k < CP_N_BUFS && !st; k++)
		st = weft_model_upload(mc, s->bufs[k], 0,
				       k == CP_B_PARAMS
					       ? (const void *)&s->params
				       : made[k] ? made[k]
						 : zeros,
				       s->bytes[k]);
free_host:
	free(zeros);
	for (int k = 0; k < CP_N_BUFS; k++)
		free(made[k]);
	return st;
}

/* ---- launches -------------------------------------------------------------
 */

#define B(k) (s->bufs[CP_B_##k])

/* The step with the host's actions: cartpole_act_f32, written to
 * vectorise on the host, with precision = f32 (cartpole.wk, "the f32
 * step"); cartpole_act with f64. */
static weft_launch cp_act(const cartpole_state *s)
{
	if (s->params.precision == CP_PRECISION_F32)
		return cartpole_act_f32_launch(
			(cartpole_act_f32_bufs){ .p = B(PARAMS),
						 .state = B(STATE),
						 .book = B(BOOK),
						 .acc = B(ACC),
						 .actions = B(ACTIONS),
						 .io = B(IO),
						 .ctl = B(CTL) },
			s->n_envs);
	return cartpole_act_launch((cartpole_act_bufs){ .p = B(PARAMS),
							.state = B(STATE),
							.book = B(BOOK),
							.acc = B(ACC),
							.actions = B(ACTIONS),
							.io = B(IO),
							.ctl = B(CTL),
							.consts = B(CONSTS) },
				   s->n_envs);
}

/* The step with the on-device policy: cartpole_policy_f32 for precision =
 * f32 with the linear policy, cartpole_policy otherwise. */
static weft_launch cp_policy_launch(const cartpole_state *s)
{
	if (s->params.precision == CP_PRECISION_F32 &&
	    s->params.policy == CP_POLICY_LINEAR)
		return cartpole_policy_f32_launch(
			(cartpole_policy_f32_bufs){ .p = B(PARAMS),
						    .state = B(STATE),
						    .book = B(BOOK),
						    .acc = B(ACC),
						    .io = B(IO),
						    .ctl = B(CTL) },
			s->n_envs);
	return cartpole_policy_launch(
		(cartpole_policy_bufs){ .p = B(PARAMS),
					.state = B(STATE),
					.book = B(BOOK),
					.acc = B(ACC),
					.io = B(IO),
					.ctl = B(CTL),
					.consts = B(CONSTS) },
		s->n_envs);
}

static weft_launch cp_pack(const cartpole_state *s)
{
	return cartpole_pack_launch((cartpole_pack_bufs){ .p = B(PARAMS),
							  .state = B(STATE),
							  .io = B(IO) },
				    s->n_envs);
}

static weft_launch cp_reset(const cartpole_state *s)
{
	return cartpole_reset_launch((cartpole_reset_bufs){ .p = B(PARAMS),
							    .state = B(STATE),
							    .book = B(BOOK),
							    .io = B(IO) },
				     s->n_envs);
}

static weft_launch cp_reset_some(const cartpole_state *s)
{
	return cartpole_reset_some_launch(
		(cartpole_reset_some_bufs){ .p = B(PARAMS),
					    .state = B(STATE),
					    .book = B(BOOK),
					    .io = B(IO),
					    .mask = B(MASK),
					    .seed = B(SEED) },
		s->n_envs);
}

static weft_launch cp_set_state(const cartpole_state *s)
{
	return cartpole_set_state_launch(
		(cartpole_set_state_bufs){ .p = B(PARAMS),
					   .state = B(STATE),
					   .io = B(IO),
					   .state_in = B(STATE_IN),
					   .mask = B(MASK) },
		s->n_envs);
}

static weft_launch cp_pack_state(const cartpole_state *s)
{
	return cartpole_pack_state_launch(
		(cartpole_pack_state_bufs){ .p = B(PARAMS),
					    .state = B(STATE),
					    .state_in = B(STATE_IN) },
		s->n_envs);
}

/* The statistics: per-environment counts into partial sums, then those
 * into the control block and a row of the series. */
static void cp_stats(const cartpole_state *s, weft_launch l[2])
{
	l[0] = cartpole_reduce_launch(
		(cartpole_reduce_bufs){ .p = B(PARAMS),
					.acc = B(ACC),
					.book = B(BOOK),
					.partials = B(PARTIALS) },
		s->params.n_partials);
	l[1] = cartpole_total_launch(
		(cartpole_total_bufs){ .p = B(PARAMS),
				       .partials = B(PARTIALS),
				       .series = B(SERIES),
				       .ctl = B(CTL) },
		1);
}

/* One step of `weft run`: the on-device policy, then the statistics
 * reduction, whose extents cartpole_policy's item 0 sets on the device
 * (0 except every `every` steps and at the last). */
static weft_status cartpole_set_step(weft_model_ctx *mc, cartpole_state *s)
{
	weft_launch l[3];

	l[0] = cp_policy_launch(s);
	cp_stats(s, &l[1]);
	l[1].extent_buf = B(CTL);
	l[1].extent_offset = 4 * CP_CTL_REDUCE_N;
	l[2].extent_buf = B(CTL);
	l[2].extent_offset = 4 * CP_CTL_TOTAL_N;
	return weft_model_set_step(mc, l, 3);
}

/* The protocol's lists ("act", "reset_some") and what the C API
 * (cartpole_api.c) drives besides: one launch each, and the statistics
 * reduced at once. "state" packs the state into the "state" view. */
static weft_status cartpole_add_lists(weft_model_ctx *mc, cartpole_state *s)
{
	weft_launch act = cp_act(s), policy = cp_policy_launch(s);
	weft_launch pack = cp_pack(s), reset = cp_reset(s), stats[2];
	weft_launch some = cp_reset_some(s), set = cp_set_state(s);
	weft_launch pack_state = cp_pack_state(s);
	weft_status st;

	cp_stats(s, stats);
	if ((st = weft_model_add_list(mc, "act", &act, 1)) ||
	    (st = weft_model_add_list(mc, "policy", &policy, 1)) ||
	    (st = weft_model_add_list(mc, "pack", &pack, 1)) ||
	    (st = weft_model_add_list(mc, "reset", &reset, 1)) ||
	    (st = weft_model_add_list(mc, "reset_some", &some, 1)) ||
	    (st = weft_model_add_list(mc, "set_state", &set, 1)) ||
	    (st = weft_model_add_list(mc, "state", &pack_state, 1)))
		return st;
	return weft_model_add_list(mc, "stats", stats, 2);
}

/* The protocol's views (weft/env.h): the packed result's, the action
 * buffer, the reset requests (the mask set_state reads too), the state
 * as the "state" list packs it ([n][4] in the state's precision) and the
 * bookkeeping; then the packed result's own (layouts in
 * cartpole_shared.h), as an application sees them
 * (weft_sim_array_find). */
static weft_status cartpole_add_views(weft_model_ctx *mc, cartpole_state *s)
{
	int64_t flat[1] = { s->n_envs };
	int64_t packed[1] = { (int64_t)s->bytes[CP_B_IO] };
	int64_t ctl[1] = { CP_CTL_WORDS };
	size_t un = s->n_envs;
	weft_env_views v = {
		.struct_size = sizeof v,
		.reward_dtype = WEFT_DTYPE_F32,
		.io = B(IO),
		.obs = 0,
		.reward = CP_IO_REWARD(un),
		.terminated = CP_IO_TERMINATED(un),
		.truncated = CP_IO_TRUNCATED(un),
		.final_obs = CP_IO_FINAL(un),
		.actions = B(ACTIONS),
		.reset_mask = B(MASK),
		.reset_seed = B(SEED),
		.env_book = B(BOOK),
		.state = B(STATE_IN),
		.state_dtype = s->params.precision == CP_PRECISION_F64
				       ? WEFT_DTYPE_F64
				       : WEFT_DTYPE_F32,
		.state_k = 4,
	};
	weft_status st;

	if ((st = weft_model_env_views(mc, &v)) ||
	    (st = weft_model_array(mc, "final_return", B(IO),
				   CP_IO_FINAL_RETURN(un), WEFT_DTYPE_F32, 1,
				   flat)) ||
	    (st = weft_model_array(mc, "packed", B(IO), 0, WEFT_DTYPE_U8, 1,
				   packed)))
		return st;
	/* the control block: the "stats" list's totals (CP_CTL_*), which
	 * the C API reads too (the longest episode is nowhere else) */
	return weft_model_array(mc, "control", B(CTL), 0, WEFT_DTYPE_U32, 1,
				ctl);
}

/* One environment's spaces, as Gymnasium's CartPole-v1 declares them: a
 * float32 Box of 4 whose bounds are float32 (high = [4.8, inf, 24
 * degrees in radians, inf], low = -high), and Discrete(2), held as u8 as
 * the "actions" view holds it. */
static weft_status cartpole_spaces(weft_model_ctx *mc)
{
	/* Gymnasium: x_threshold * 2 and theta_threshold_radians * 2 with
	 * theta_threshold_radians = 12 * 2 * math.pi / 360, as float32. */
	const double x_hi = (double)(float)(2.4 * 2);
	const double theta_hi =
		(double)(float)(12 * 2 * 3.141592653589793 / 360 * 2);
	double high[4] = { x_hi, INFINITY, theta_hi, INFINITY };
	double low[4] = { -x_hi, -INFINITY, -theta_hi, -INFINITY };
	weft_env_space obs = { .struct_size = sizeof obs,
			       .kind = WEFT_SPACE_BOX,
			       .dtype = WEFT_DTYPE_F32,
			       .ndim = 1,
			       .shape = { 4 },
			       .low = low,
			       .high = high };
	weft_env_space action = { .struct_size = sizeof action,
				  .kind = WEFT_SPACE_DISCRETE,
				  .dtype = WEFT_DTYPE_U8,
				  .n = 2 };

	return weft_model_env_spaces(mc, &obs, &action);
}

/* What a checkpoint saves: every buffer but the parameters and the
 * constants, which setup() makes again from the configuration. The
 * environments' state, bookkeeping (keys, the per-environment random
 * streams, which reset_some may reseed; step and episode counters),
 * statistics, the packed result, the control block, and the host's inputs
 * (actions, mask, seeds, states to set), so that a run driven by the API
 * resumes as it was; the series and its snapshots are declared by
 * weft_model_rows_open(). On the host: the totals emit() adds up. */
static weft_status cartpole_declare_state(weft_model_ctx *mc, cartpole_state *s)
{
	weft_status st = WEFT_OK;

	for (int k = 0; k < CP_N_BUFS && !st; k++)
		if (k != CP_B_PARAMS && k != CP_B_CONSTS)
			st = weft_model_state(mc, s->bufs[k]);
	if (st)
		return st;
	return weft_model_state_host(mc, "totals", &s->totals,
				     sizeof s->totals);
}

/* estimate() (model ABI 1.3): the device buffers (and the output
 * snapshots); on the host, the buffers setup fills before uploading them
 * (the state, the packed buffer's observations, the bookkeeping and the
 * constants; the rest are uploaded from one block of zeros, which stays
 * untouched), or the
 * statistics' host copy while the steps run, whichever is larger. */
static weft_status cartpole_estimate(weft_model_ctx *mc,
				     weft_model_estimate *est)
{
	static const int own[] = { CP_B_STATE, CP_B_IO, CP_B_BOOK,
				   CP_B_CONSTS };
	cartpole_state s;
	uint64_t dev = 0, upload = 0, series;
	char envs[64], steps[96];
	weft_status st;

	memset(&s, 0, sizeof s);
	cartpole_read_params(mc, &s);
	cartpole_sizes(&s);
	for (int k = 0; k < CP_N_BUFS; k++)
		if (k != CP_B_SERIES)
			dev += s.bytes[k];
	/* Of the packed buffer, only the observations are written. */
	for (size_t j = 0; j < sizeof own / sizeof own[0]; j++)
		upload += own[j] == CP_B_IO ? 16 * (uint64_t)s.n_envs
					    : s.bytes[own[j]];
	series = s.bytes[CP_B_SERIES];
	snprintf(envs, sizeof envs, "[cartpole] envs = %u", s.n_envs);
	snprintf(steps, sizeof steps,
		 "[simulation] steps = %llu, [output] every = %llu",
		 (unsigned long long)weft_model_steps(mc),
		 (unsigned long long)weft_model_output_every(mc));
	if ((st = weft_model_estimate_add(est, "environments", envs,
					  upload > series ? upload : 0, dev)))
		return st;
	return weft_model_estimate_add(
		est, "the statistics rows", steps, upload > series ? 0 : series,
		series + weft_model_rows_bytes(mc, CP_ROW_WORDS * 4,
					       CP_SNAP_ROWS));
}

static weft_status cartpole_setup(weft_model_ctx *mc, void **out)
{
	cartpole_state *s = calloc(1, sizeof *s);
	weft_status st;

	if (!s)
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "cannot allocate the model state");
	*out = s;
	cartpole_read_params(mc, s);
	if ((st = cartpole_spaces(mc)) || (st = cartpole_alloc_all(mc, s)) ||
	    (st = cartpole_upload_all(mc, s)) ||
	    (st = cartpole_set_step(mc, s)) ||
	    (st = cartpole_add_lists(mc, s)) ||
	    (st = cartpole_add_views(mc, s)) ||
	    (st = cartpole_declare_state(mc, s)) ||
	    (st = weft_model_rows_open(mc, s->bufs[CP_B_SERIES], s->series,
				       CP_ROW_WORDS * sizeof(uint32_t),
				       CP_SNAP_ROWS, &s->rows)))
		return st;
	if (!weft_model_want_csv(mc))
		return WEFT_OK;
	if ((st = weft_model_output_open(mc, "episodes.csv", &s->csv)))
		return st;
	return weft_output_printf(s->csv,
				  "step,episodes,mean_return,max_return,"
				  "episodes_total,mean_return_total\n");
}

static uint64_t cp_u64(const uint32_t *w, int lo)
{
	return (uint64_t)w[lo + 1] << 32 | w[lo];
}

/* sum / count with 4 decimals, or an empty field when no episode ended:
 * a mean of nothing is not 0 (gnuplot plots no point, pandas reads
 * NaN). */
static const char *cp_mean(char *buf, size_t size, uint64_t sum, uint64_t count)
{
	if (!count)
		return "";
	snprintf(buf, size, "%.4f", (double)sum / (double)count);
	return buf;
}

/* Add a row to the totals and append it to episodes.csv. */
static weft_status cartpole_csv_row(cartpole_state *s, const uint32_t *r)
{
	uint64_t ep = cp_u64(r, CP_ROW_EP_LO), sum = cp_u64(r, CP_ROW_SUM_LO);
	char mean[32], total[32], max[16] = "";
	struct cartpole_totals *t = &s->totals;

	t->episodes += ep;
	t->return_sum += sum;
	if (r[CP_ROW_MAX] > t->max_return)
		t->max_return = r[CP_ROW_MAX];
	if (!s->csv)
		return WEFT_OK;
	if (ep)
		snprintf(max, sizeof max, "%u", r[CP_ROW_MAX]);
	return weft_output_printf(
		s->csv, "%llu,%llu,%s,%s,%llu,%s\n",
		(unsigned long long)cp_u64(r, CP_ROW_STEP_LO),
		(unsigned long long)ep, cp_mean(mean, sizeof mean, sum, ep),
		max, (unsigned long long)t->episodes,
		cp_mean(total, sizeof total, t->return_sum, t->episodes));
}

/* Main thread, after the chunk ending at steps_done was enqueued: the
 * rows the device wrote in it, on their way to `series`. */
static weft_status cartpole_collect(weft_model_ctx *mc, void *state,
				    uint64_t steps_done, unsigned slot)
{
	cartpole_state *s = state;

	return weft_model_rows_collect(
		mc, s->rows, slot,
		weft_model_rows_due(steps_done, s->params.every,
				    s->params.last_step, 0, s->n_rows));
}

/* Writer thread, once the slot's rows are in `series`: add them to the
 * totals and append them to episodes.csv, in order. */
static weft_status cartpole_emit(weft_model_ctx *mc, void *state,
				 uint64_t steps_done, unsigned slot)
{
	cartpole_state *s = state;
	uint64_t first, end;
	weft_status st;

	(void)mc;
	(void)steps_done;
	weft_model_rows_slot(s->rows, slot, &first, &end);
	for (uint64_t r = first; r < end; r++)
		if ((st = cartpole_csv_row(s, s->series + r * CP_ROW_WORDS)))
			return st;
	return WEFT_OK;
}

static weft_status cartpole_finish(weft_model_ctx *mc, void *state)
{
	cartpole_state *s = state;
	const cartpole_params *p = &s->params;
	uint64_t steps = weft_model_steps(mc);

	weft_model_summary(mc, "environments", "%u", s->n_envs);
	if (p->precision == CP_PRECISION_F64)
		weft_model_summary(mc, "precision",
				   "f64 (Gymnasium's float64 arithmetic)");
	if (p->policy == CP_POLICY_RANDOM)
		weft_model_summary(mc, "policy", "random");
	else
		weft_model_summary(
			mc, "policy", "linear (w = %g, %g, %g, %g; bias %g)",
			(double)p->w[0], (double)p->w[1], (double)p->w[2],
			(double)p->w[3], (double)p->bias);
	weft_model_summary(mc, "steps", "%llu per environment, %llu in all",
			   (unsigned long long)steps,
			   (unsigned long long)steps * s->n_envs);
	weft_model_summary(mc, "episodes finished", "%llu",
			   (unsigned long long)s->totals.episodes);
	weft_model_summary(mc, "mean return", "%.4f",
			   s->totals.episodes
				   ? (double)s->totals.return_sum /
					     (double)s->totals.episodes
				   : 0.0);
	weft_model_summary(mc, "max return", "%u", s->totals.max_return);
	return WEFT_OK;
}

static void cartpole_teardown(weft_model_ctx *mc, void *state)
{
	cartpole_state *s = state;

	if (!s)
		return;
	for (int k = 0; k < CP_N_BUFS; k++)
		weft_model_free(mc, s->bufs[k]);
	weft_model_rows_close(mc, s->rows);
	free(s->series);
	free(s);
}

/* [output] plot: the returns over the steps, from episodes.csv. */
static const weft_plot_curve cartpole_curves[] = {
	{ "mean_return", "mean return, this interval", "#1f77b4" },
	{ "mean_return_total", "mean return, all so far", "#2ca02c" },
	{ "max_return", "longest episode, this interval", "#d62728" },
};

static const weft_plot_desc cartpole_plot = {
	.struct_size = sizeof(weft_plot_desc),
	.csv = "episodes.csv",
	.title = "CartPole: episode returns",
	.x = "step",
	.xlabel = "step",
	.ylabel = "return (steps the pole stayed up)",
	.curves = cartpole_curves,
	.n_curves = sizeof cartpole_curves / sizeof cartpole_curves[0],
};

/* Ensembles: the returns per output step across seeds, and the last
 * interval's returns as final outcomes. */
static const weft_outcome_desc cartpole_outcomes[] = {
	{ "final_mean_return", "mean_return", WEFT_OUTCOME_LAST, NULL, 1.0 },
	{ "best_max_return", "max_return", WEFT_OUTCOME_MAX, NULL, 1.0 },
	{ "episodes", "episodes", WEFT_OUTCOME_SUM, NULL, 1.0 },
};

static const weft_ensemble_desc cartpole_ensemble = {
	.struct_size = sizeof(weft_ensemble_desc),
	.csv = "episodes.csv",
	.x = "step",
	.bands = "mean_return,max_return",
	.compare = "mean_return",
	.outcomes = cartpole_outcomes,
	.n_outcomes = sizeof cartpole_outcomes / sizeof cartpole_outcomes[0],
};

/* The environment protocol (weft/env.h): CartPole-v1, with the keys that
 * set the number of environments, the autoreset mode and the
 * precision. */
static const weft_env_id cartpole_env_ids[] = {
	{ "CartPole-v1", NULL,
	  "Gymnasium's CartPole-v1: push a cart left or right to keep its "
	  "pole upright",
	  500 },
};

/* Gymnasium's reward_threshold of each id, in the order of cartpole_env_ids. */
static const double cartpole_thresholds[] = { 475.0 };
_Static_assert(sizeof cartpole_thresholds / sizeof cartpole_thresholds[0] ==
		       sizeof cartpole_env_ids / sizeof cartpole_env_ids[0],
	       "one reward threshold per env id");

static const weft_env_model cartpole_env = {
	.struct_size = sizeof(weft_env_model),
	.count_key = "envs",
	.autoreset_key = "autoreset",
	.precision_key = "precision",
	.ids = cartpole_env_ids,
	.n_ids = sizeof cartpole_env_ids / sizeof cartpole_env_ids[0],
	.reward_thresholds = cartpole_thresholds,
};

WEFT_MODEL_ENTRY = {
	.abi_major = WEFT_MODEL_ABI_MAJOR,
	.abi_minor = WEFT_MODEL_ABI_MINOR,
	.struct_size = sizeof(weft_model),
	.name = "cartpole",
	.version = WEFT_MODEL_VERSION,
	.summary = "CartPole-v1 (Gymnasium's dynamics) for many environments "
		   "at once, reset on the device",
	.keys = cartpole_keys,
	.n_keys = sizeof cartpole_keys / sizeof cartpole_keys[0],
	.program = &cartpole_program,
	.sigs = cartpole_sigs,
	.setup = cartpole_setup,
	.finish = cartpole_finish,
	.teardown = cartpole_teardown,
	.estimate = cartpole_estimate,
	/* `weft conform`: about 800 episodes, a second on a CPU OpenCL. */
	.conform_sets = "cartpole.envs=1000\n"
			"simulation.steps=300\n",
	.collect = cartpole_collect,
	.emit = cartpole_emit,
	.plot = &cartpole_plot,
	.ensemble = &cartpole_ensemble,
	/* setup() declares its state (cartpole_declare_state). */
	.checkpoints = 1,
	.env = &cartpole_env,
};
