/*
 * models/cartpole/cartpole_api.c - the C API of <weft/cartpole.h>
 * (libweft-cartpole), written on libweft's public run API alone
 * (weft/weft.h, "driving a run").
 *
 * An environment set is a weft run of the cartpole model (weft_sim_open:
 * backend choice, device, program, the model's setup and buffers), driven
 * step by step through the launch lists and views the model declares
 * (cartpole.c): "act" steps every environment with the actions in the
 * "actions" buffer, "policy" with the on-device policy, "pack" writes the
 * observations into the packed result "io", "reset" begins new episodes,
 * "reset_some" those the "mask" buffer names (with the seeds in
 * "reset_seed": the environment protocol's reset_mask and reset_seed,
 * weft/env.h), "stats" reduces the episode statistics into "control". A
 * host-action step is one asynchronous write of the packed actions, one launch
 * and one read of the packed result; n policy steps are one launch of n
 * repetitions and nothing else. The packed result can also be handed out
 * where it is (weft_sim_array_find), with fences to say when it is
 * complete.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weft/cartpole.h>
#include <weft/kernel_host.h>
#include <weft/kernel.h>

#include "cartpole_shared.h"

/* Action staging buffers: a step that leaves its result on the device does
 * not wait, so the actions it sent must stay untouched until they have
 * been sent: until a sync, or a wait on the fence issued after the step;
 * the next step uses the other buffer. */
#define CP_API_RING 2

enum {
	CP_L_ACT,
	CP_L_POLICY,
	CP_L_PACK,
	CP_L_RESET,
	CP_L_STATS,
	CP_L_RESET_SOME,
	CP_L_SET_STATE,
	CP_L_COUNT
};

static const char *const cp_list_names[CP_L_COUNT] = {
	"act", "policy", "pack", "reset", "stats", "reset_some", "set_state",
};

struct weft_cartpole {
	weft_context *ctx;
	weft_config *own_cfg; /* made by open() when given none */
	weft_sim *sim;
	weft_sim_buffer *io, *actions, *control;
	weft_sim_buffer *state, *seeds, *mask, *state_in;
	unsigned precision;	   /* 32 or 64 */
	uint64_t *seeds_host;	   /* n seeds, for reset_some */
	uint8_t *mask_host;	   /* n bytes, for reset_some and set_state */
	void *state_host;	   /* the state, 16 or 32 bytes a row */
	uint32_t list[CP_L_COUNT]; /* indexes of the model's launch lists */
	uint32_t n;
	weft_cartpole_layout layout;
	uint8_t *stage[CP_API_RING];
	int pending[CP_API_RING];      /* stage k is in an unsynced write */
	uint64_t covered[CP_API_RING]; /* the first fence after that write
					* (0: none yet) */
	int next_stage;
	uint64_t last_fence; /* the last fence issued (0: none) */
	int io_current;	     /* the packed observations are the state's */
	uint64_t env_steps;  /* steps x environments */
	uint64_t episodes, return_sum;
	uint32_t max_return;
};

void weft_cartpole_layout_of(uint32_t n, weft_cartpole_layout *out)
{
	if (!out)
		return;
	out->obs = 0;
	out->reward = CP_IO_REWARD((size_t)n);
	out->terminated = CP_IO_TERMINATED((size_t)n);
	out->truncated = CP_IO_TRUNCATED((size_t)n);
	out->final_obs = CP_IO_FINAL((size_t)n);
	out->final_return = CP_IO_FINAL_RETURN((size_t)n);
	out->step_bytes = CP_IO_STEP_BYTES((size_t)n);
	out->total_bytes = CP_IO_BYTES((size_t)n);
}

/* ---- talking to the run -----------------------------------------------------
 */

/* Prefix the run's message with what the API was doing. */
static weft_status cp_fail(weft_cartpole *env, weft_status st, const char *what)
{
	char msg[1024];

	snprintf(msg, sizeof msg, "%s", weft_context_error(env->ctx));
	return weft_context_fail(env->ctx, st, "cartpole: %s: %s", what, msg);
}

static weft_status cp_sync(weft_cartpole *env, const char *what)
{
	weft_status st = weft_sim_sync(env->sim);

	memset(env->pending, 0, sizeof env->pending);
	memset(env->covered, 0, sizeof env->covered);
	return st ? cp_fail(env, st, what) : WEFT_OK;
}

static weft_status cp_launch(weft_cartpole *env, int list, uint64_t n_steps,
			     const char *what)
{
	weft_status st = weft_sim_launch(env->sim, env->list[list], n_steps);

	return st ? cp_fail(env, st, what) : WEFT_OK;
}

/* A fence after everything issued; the action writes in flight are
 * complete once it is waited for (a backend without fences synchronises
 * in the wait, weft_sim_wait). */
static weft_status cp_fence(weft_cartpole *env, uint64_t *token,
			    const char *what)
{
	weft_status st = weft_sim_fence(env->sim, token);

	if (st)
		return cp_fail(env, st, what);
	env->last_fence = *token;
	for (int k = 0; k < CP_API_RING; k++)
		if (env->pending[k] && !env->covered[k])
			env->covered[k] = *token;
	return WEFT_OK;
}

static weft_status cp_wait(weft_cartpole *env, uint64_t token, const char *what)
{
	weft_status st = weft_sim_wait(env->sim, token);

	if (st)
		return cp_fail(env, st, what);
	for (int k = 0; k < CP_API_RING; k++)
		if (env->covered[k] && env->covered[k] <= token)
			env->pending[k] = 0, env->covered[k] = 0;
	return WEFT_OK;
}

/* An asynchronous read of the packed buffer, then a sync. */
static weft_status cp_read_io(weft_cartpole *env, void *dst, size_t offset,
			      size_t bytes, const char *what)
{
	weft_status st = weft_sim_read(env->sim, dst, env->io, offset, bytes,
				       WEFT_XFER_ASYNC);

	if (st)
		return cp_fail(env, st, what);
	return cp_sync(env, what);
}

/* ---- open and close ------------------------------------------------------ */

/* Every default, no output files: outputs would go to the temporary
 * directory, and none is written unless the run is finished. */
static weft_status cp_default_config(weft_context *ctx, weft_config **out)
{
	const char *tmp = getenv("TMPDIR");
	char dir[1100];
	weft_status st;

	snprintf(dir, sizeof dir, "output.directory=%s",
		 tmp && tmp[0] == '/' && strlen(tmp) < 1000 ? tmp : "/tmp");
	if ((st = weft_config_new(ctx, out)) ||
	    (st = weft_config_set(ctx, *out, "simulation.model=cartpole")) ||
	    (st = weft_config_set(ctx, *out, "output.csv=false")) ||
	    (st = weft_config_set(ctx, *out, "output.summary=false")) ||
	    (st = weft_config_set(ctx, *out, dir)))
		return st;
	return WEFT_OK;
}

/* The model's buffers and launch lists this API drives, by name. */
static weft_status cp_find(weft_cartpole *env)
{
	weft_buffer_info info = { .struct_size = sizeof info };
	weft_status st;

	static const char *const names[] = { "io",	"actions",    "control",
					     "state",	"reset_seed", "mask",
					     "state_in" };
	weft_sim_buffer **at[] = { &env->io,	  &env->actions, &env->control,
				   &env->state,	  &env->seeds,	 &env->mask,
				   &env->state_in };

	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
		if (!(*at[k] = weft_sim_buffer_find(env->sim, names[k])))
			return weft_context_fail(
				env->ctx, WEFT_E_MODEL,
				"weft_cartpole_open: the cartpole model (%s) "
				"has no buffer '%s': a model of another "
				"version?",
				weft_sim_model(env->sim), names[k]);
	for (int k = 0; k < CP_L_COUNT; k++)
		if ((st = weft_sim_list(env->sim, cp_list_names[k],
					&env->list[k])))
			return st;
	weft_sim_buffer_info(env->actions, &info);
	env->n = (uint32_t)info.bytes;
	weft_sim_buffer_info(env->state, &info);
	env->precision = info.bytes == 32 * (size_t)CP_ROW(env->n) ? 64 : 32;
	return WEFT_OK;
}

/* Host memory for the calls that set states and seeds. */
static weft_status cp_alloc_host(weft_cartpole *env)
{
	size_t n = env->n, seeds = 8 * n;

	env->seeds_host = calloc(n ? n : 1, 8);
	env->mask_host = malloc(n ? n : 1);
	env->state_host = calloc(CP_ROW(n), (size_t)env->precision / 2);
	if (!env->seeds_host || !env->mask_host || !env->state_host)
		return weft_context_fail(
			env->ctx, WEFT_E_NOMEM,
			"cartpole: cannot allocate %zu bytes "
			"of host memory for the reset seeds "
			"and states",
			seeds + n + (size_t)env->precision / 2 * CP_ROW(n));
	return WEFT_OK;
}

static weft_status cp_open_sim(weft_cartpole *env, const weft_config *cfg)
{
	const char *model = weft_config_get(cfg, "simulation", "model");
	weft_status st;

	if ((st = weft_sim_open(env->ctx, cfg, &env->sim)))
		return st;
	if (strcmp(weft_sim_model(env->sim), "cartpole") != 0)
		return weft_context_fail(
			env->ctx, WEFT_E_CONFIG,
			"weft_cartpole_open: [simulation] model is '%s'; the "
			"CartPole API needs model = cartpole",
			model ? model : "");
	if ((st = cp_find(env)) || (st = cp_alloc_host(env)))
		return st;
	weft_cartpole_layout_of(env->n, &env->layout);
	for (int k = 0; k < CP_API_RING; k++)
		if (!(env->stage[k] = malloc(env->n)))
			return weft_context_fail(env->ctx, WEFT_E_NOMEM,
						 "cartpole: cannot allocate %u "
						 "bytes for the action staging "
						 "buffer",
						 env->n);
	env->io_current = 1; /* setup wrote the first observations */
	return WEFT_OK;
}

weft_status weft_cartpole_open(weft_context *ctx, const weft_config *cfg,
			       weft_cartpole **out)
{
	weft_cartpole *env;
	weft_status st;

	if (!ctx || !out)
		return weft_context_fail(ctx, WEFT_E_INVALID,
					 "weft_cartpole_open: NULL argument");
	*out = NULL;
	env = calloc(1, sizeof *env);
	if (!env)
		return weft_context_fail(ctx, WEFT_E_NOMEM, "out of memory");
	env->ctx = ctx;
	if (!cfg && (st = cp_default_config(ctx, &env->own_cfg)))
		goto close_env;
	if ((st = cp_open_sim(env, cfg ? cfg : env->own_cfg)))
		goto close_env;
	*out = env;
	return WEFT_OK;

close_env:
	weft_cartpole_close(env);
	return st;
}

void weft_cartpole_close(weft_cartpole *env)
{
	if (!env)
		return;
	weft_sim_close(env->sim);
	weft_config_free(env->own_cfg);
	for (int k = 0; k < CP_API_RING; k++)
		free(env->stage[k]);
	free(env->seeds_host);
	free(env->mask_host);
	free(env->state_host);
	free(env);
}

uint32_t weft_cartpole_count(const weft_cartpole *env)
{
	return env ? env->n : 0;
}

const char *weft_cartpole_backend(const weft_cartpole *env)
{
	return env ? weft_sim_backend(env->sim) : "";
}

/* ---- stepping ------------------------------------------------------------ */

/* Nothing is sent when one action is out of range. */
static weft_status cp_check_actions(weft_cartpole *env, const uint8_t *a)
{
	uint64_t any = 0, w;
	uint32_t i;

	/* Every byte 0 or 1: their OR, eight at a time (a loop without an
	 * exit, which the compiler vectorises), has no bit but each byte's
	 * lowest; the first bad index is looked for only when there is one. */
	for (i = 0; env->n - i >= 8; i += 8) {
		memcpy(&w, a + i, sizeof w);
		any |= w;
	}
	for (; i < env->n; i++)
		any |= a[i];
	if (!(any & ~UINT64_C(0x0101010101010101)))
		return WEFT_OK;
	for (i = 0; i < env->n; i++)
		if (a[i] > 1)
			return weft_context_fail(
				env->ctx, WEFT_E_INVALID,
				"weft_cartpole_step: action %u of "
				"environment %u is out of range "
				"(0: push left, 1: push right); "
				"nothing was sent",
				(unsigned)a[i], (unsigned)i);
	return WEFT_OK;
}

/* The actions to send: the caller's own when the call waits for its
 * result, else a staging copy that may stay in flight. */
static weft_status cp_stage(weft_cartpole *env, const uint8_t *actions,
			    int waits, const void **src)
{
	int k = env->next_stage;
	weft_status st;

	*src = actions;
	if (waits)
		return WEFT_OK;
	if (env->pending[k] &&
	    (st = env->covered[k] ? cp_wait(env, env->covered[k], "step")
				  : cp_sync(env, "step")))
		return st;
	memcpy(env->stage[k], actions, env->n);
	env->pending[k] = 1;
	env->covered[k] = 0;
	env->next_stage = (k + 1) % CP_API_RING;
	*src = env->stage[k];
	return WEFT_OK;
}

/* One launch of the act kernel over the actions now in the device buffer,
 * and the result read back when asked for. */
static weft_status cp_act(weft_cartpole *env, void *result, size_t result_bytes,
			  const char *what)
{
	weft_status st = cp_launch(env, CP_L_ACT, 1, what);

	if (st)
		return st;
	env->env_steps += env->n;
	env->io_current = 1;
	return result ? cp_read_io(env, result, 0, result_bytes, what)
		      : WEFT_OK;
}

static weft_status cp_step_host(weft_cartpole *env, const uint8_t *actions,
				void *result, size_t result_bytes)
{
	const void *src;
	uint64_t token;
	weft_status st;

	if ((st = cp_check_actions(env, actions)) ||
	    (st = cp_stage(env, actions, result != NULL, &src)))
		return st;
	st = weft_sim_write(env->sim, env->actions, 0, src, env->n,
			    WEFT_XFER_ASYNC);
	if (st)
		return cp_fail(env, st, "step: sending the actions");
	if ((st = cp_act(env, result, result_bytes, "step")) || result)
		return st;
	/* The staged actions may be reused once this fence is waited for: a
	 * later step waits for this one, not for everything. */
	return cp_fence(env, &token, "step");
}

/* result and result_bytes agree and fit the packed result. */
static weft_status cp_check_result(weft_cartpole *env, const char *fn,
				   const void *result, size_t result_bytes)
{
	if (!result == !result_bytes && result_bytes <= env->layout.total_bytes)
		return WEFT_OK;
	return weft_context_fail(env->ctx, WEFT_E_INVALID,
				 "%s: result_bytes %zu %s", fn, result_bytes,
				 result_bytes > env->layout.total_bytes
					 ? "exceeds the packed result"
				 : result ? "with a result buffer"
					  : "without a result buffer");
}

weft_status weft_cartpole_step(weft_cartpole *env, const uint8_t *actions,
			       uint64_t n_steps, void *result,
			       size_t result_bytes)
{
	weft_status st;

	if (!env)
		return WEFT_E_INVALID;
	if ((st = cp_check_result(env, "weft_cartpole_step", result,
				  result_bytes)))
		return st;
	if (actions) {
		if (n_steps != 1)
			return weft_context_fail(
				env->ctx, WEFT_E_INVALID,
				"weft_cartpole_step: %llu steps "
				"with host actions; one action "
				"buffer is one step",
				(unsigned long long)n_steps);
		return cp_step_host(env, actions, result, result_bytes);
	}
	if (result)
		return weft_context_fail(
			env->ctx, WEFT_E_INVALID,
			"weft_cartpole_step: the on-device policy "
			"leaves its results on the device; read "
			"them with weft_cartpole_observe");
	if (n_steps == 0)
		return WEFT_OK;
	if ((st = cp_launch(env, CP_L_POLICY, n_steps, "policy step")))
		return st;
	env->env_steps += n_steps * env->n;
	env->io_current = 0;
	return WEFT_OK;
}

weft_status weft_cartpole_step_device(weft_cartpole *env, void *result,
				      size_t result_bytes)
{
	weft_status st;

	if (!env)
		return WEFT_E_INVALID;
	if ((st = cp_check_result(env, "weft_cartpole_step_device", result,
				  result_bytes)))
		return st;
	return cp_act(env, result, result_bytes, "step with device actions");
}

weft_status weft_cartpole_read(weft_cartpole *env, void *dst, size_t offset,
			       size_t bytes)
{
	if (!env)
		return WEFT_E_INVALID;
	if (!dst || offset > env->layout.total_bytes ||
	    bytes > env->layout.total_bytes - offset)
		return weft_context_fail(
			env->ctx, WEFT_E_INVALID,
			"weft_cartpole_read: %s (%zu bytes at "
			"offset %zu; the packed result has %zu)",
			dst ? "outside the packed result" : "no destination",
			bytes, offset, env->layout.total_bytes);
	return cp_read_io(env, dst, offset, bytes, "read");
}

weft_status weft_cartpole_observe(weft_cartpole *env, float *obs)
{
	weft_status st;

	if (!env)
		return WEFT_E_INVALID;
	if (!obs)
		return weft_context_fail(
			env->ctx, WEFT_E_INVALID,
			"weft_cartpole_observe: no destination");
	if (!env->io_current && (st = cp_launch(env, CP_L_PACK, 1, "observe")))
		return st;
	env->io_current = 1;
	return cp_read_io(env, obs, 0, 16 * (size_t)env->n, "observe");
}

weft_status weft_cartpole_reset(weft_cartpole *env, float *obs)
{
	weft_status st;

	if (!env)
		return WEFT_E_INVALID;
	if ((st = cp_launch(env, CP_L_RESET, 1, "reset")))
		return st;
	env->io_current = 1;
	if (!obs)
		return WEFT_OK;
	return cp_read_io(env, obs, 0, 16 * (size_t)env->n, "reset");
}

/* ---- resets with seeds, and states set from the host --------------------- */

/* A blocking write of the host copy into a model buffer. */
static weft_status cp_put(weft_cartpole *env, weft_sim_buffer *b,
			  const void *src, size_t bytes, const char *what)
{
	weft_status st = weft_sim_write(env->sim, b, 0, src, bytes, 0);

	return st ? cp_fail(env, st, what) : WEFT_OK;
}

/* The mask of which[] (NULL: `all` everywhere), refused when a value is
 * above `max`; counts how many are WEFT_CARTPOLE_SEED. */
static weft_status cp_mask(weft_cartpole *env, const char *fn,
			   const uint8_t *which, uint8_t all, uint8_t max,
			   uint32_t *seeded)
{
	*seeded = 0;
	for (uint32_t i = 0; i < env->n; i++) {
		uint8_t w = which ? which[i] : all;

		if (w > max)
			return weft_context_fail(
				env->ctx, WEFT_E_INVALID,
				"%s: which[%u] is %u (0: keep, 1: %s); "
				"nothing was sent",
				fn, (unsigned)i, (unsigned)w,
				max == WEFT_CARTPOLE_SEED
					? "next episode, 2: first episode of "
					  "seeds[i]"
					: "set");
		*seeded += w == WEFT_CARTPOLE_SEED;
		env->mask_host[i] = w;
	}
	return WEFT_OK;
}

/* Launch list k over the mask (and seeds) just sent, then the
 * observations read back when asked for. */
static weft_status cp_masked(weft_cartpole *env, int list, float *obs,
			     const char *what)
{
	weft_status st;

	if ((st = cp_put(env, env->mask, env->mask_host, env->n, what)) ||
	    (st = cp_launch(env, list, 1, what)))
		return st;
	env->io_current = 1;
	if (!obs)
		return WEFT_OK;
	return cp_read_io(env, obs, 0, 16 * (size_t)env->n, what);
}

weft_status weft_cartpole_reset_some(weft_cartpole *env, const uint8_t *which,
				     const uint64_t *seeds, float *obs)
{
	const char *fn = "weft_cartpole_reset_some";
	uint32_t seeded;
	weft_status st;

	if (!env)
		return WEFT_E_INVALID;
	if ((st = cp_mask(env, fn, which, WEFT_CARTPOLE_NEXT,
			  WEFT_CARTPOLE_SEED, &seeded)))
		return st;
	if (seeded && !seeds)
		return weft_context_fail(env->ctx, WEFT_E_INVALID,
					 "%s: %u environments to seed and no "
					 "seeds; nothing was sent",
					 fn, (unsigned)seeded);
	/* The kernel gives environment i the key (seeds[i]; 0,
	 * CP_PURPOSE_SEEDED) where the mask says WEFT_ENV_SEEDED
	 * (weft_env_reset_request) and reads no seed elsewhere. */
	for (uint32_t i = 0; i < env->n && seeded; i++)
		env->seeds_host[i] =
			env->mask_host[i] == WEFT_CARTPOLE_SEED ? seeds[i] : 0;
	if (seeded &&
	    (st = cp_put(env, env->seeds, env->seeds_host, 8 * (size_t)env->n,
			 "reset: sending the seeds")))
		return st;
	return cp_masked(env, CP_L_RESET_SOME, obs, "reset");
}

unsigned weft_cartpole_precision(const weft_cartpole *env)
{
	return env ? env->precision : 0;
}

weft_status weft_cartpole_get_state(weft_cartpole *env, double *state)
{
	size_t n, row;
	weft_status st;

	if (!env)
		return WEFT_E_INVALID;
	if (!state)
		return weft_context_fail(env->ctx, WEFT_E_INVALID,
					 "weft_cartpole_get_state: no "
					 "destination");
	n = env->n;
	row = CP_ROW(env->n);
	st = weft_sim_read(env->sim, env->state_host, env->state, 0,
			   (size_t)env->precision / 2 * row, WEFT_XFER_ASYNC);
	if (st)
		return cp_fail(env, st, "get_state");
	if ((st = cp_sync(env, "get_state")))
		return st;
	/* The device keeps structure of arrays, [4][row]. */
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < 4; k++)
			state[4 * i + k] =
				env->precision == 64
					? ((const double *)
						   env->state_host)[k * row + i]
					: ((const float *)env
						   ->state_host)[k * row + i];
	return WEFT_OK;
}

/* Gymnasium's theta_threshold_radians, 12 * 2 * math.pi / 360. */
#define CP_API_THETA_MAX 0.20943951023931953

/* A state a step can start from: finite and not terminated. */
static int cp_state_ok(const double *s)
{
	return isfinite(s[1]) && isfinite(s[3]) && fabs(s[0]) <= 2.4 &&
	       fabs(s[2]) <= CP_API_THETA_MAX;
}

weft_status weft_cartpole_set_state(weft_cartpole *env, const uint8_t *which,
				    const double *state, float *obs)
{
	const char *fn = "weft_cartpole_set_state";
	uint32_t unused;
	weft_status st;

	if (!env)
		return WEFT_E_INVALID;
	if (!state)
		return weft_context_fail(env->ctx, WEFT_E_INVALID,
					 "%s: no states", fn);
	if ((st = cp_mask(env, fn, which, 1, 1, &unused)))
		return st;
	for (uint32_t i = 0; i < env->n; i++) {
		const double *s = state + 4 * (size_t)i;

		if (!env->mask_host[i])
			continue;
		if (!cp_state_ok(s))
			return weft_context_fail(
				env->ctx, WEFT_E_INVALID,
				"%s: environment %u: state (%g, %g, %g, %g) "
				"is %s; nothing was sent",
				fn, (unsigned)i, s[0], s[1], s[2], s[3],
				!isfinite(s[0] + s[1] + s[2] + s[3])
					? "not finite"
					: "terminated (|x| > 2.4 or |theta| > "
					  "12 degrees): it cannot be stepped");
		for (int k = 0; k < 4; k++)
			if (env->precision == 64)
				((double *)env->state_host)[4 * i + k] = s[k];
			else
				((float *)env->state_host)[4 * i + k] =
					(float)s[k];
	}
	/* set_state reads state_in as [n][4], only where the mask is set. */
	if ((st = cp_put(env, env->state_in, env->state_host,
			 (size_t)env->precision / 2 * env->n,
			 "set_state: sending the states")))
		return st;
	return cp_masked(env, CP_L_SET_STATE, obs, "set_state");
}

/* ---- results on the device ---------------------------------------------- */

/* Offset, type and shape of one array of the packed buffer. */
static int cp_array_shape(const weft_cartpole *env, weft_cartpole_field f,
			  weft_cartpole_array *a)
{
	const weft_cartpole_layout *lay = &env->layout;
	int64_t n = env->n;

	a->ndim = 1;
	a->dtype = WEFT_CARTPOLE_F32;
	a->shape[0] = n;
	a->shape[1] = 0;
	a->strides[0] = 1;
	a->strides[1] = 0;
	switch (f) {
	case WEFT_CARTPOLE_OBS:
	case WEFT_CARTPOLE_FINAL_OBS:
		a->offset = f == WEFT_CARTPOLE_OBS ? lay->obs : lay->final_obs;
		a->ndim = 2;
		a->shape[1] = WEFT_CARTPOLE_OBS_DIM;
		a->strides[0] = WEFT_CARTPOLE_OBS_DIM;
		a->strides[1] = 1;
		a->bytes = 16 * (size_t)n;
		return 1;
	case WEFT_CARTPOLE_REWARD:
	case WEFT_CARTPOLE_FINAL_RETURN:
		a->offset = f == WEFT_CARTPOLE_REWARD ? lay->reward
						      : lay->final_return;
		a->bytes = 4 * (size_t)n;
		return 1;
	case WEFT_CARTPOLE_TERMINATED:
	case WEFT_CARTPOLE_TRUNCATED:
	case WEFT_CARTPOLE_ACTIONS: /* its own buffer, from byte 0 */
		a->offset = f == WEFT_CARTPOLE_TERMINATED  ? lay->terminated
			    : f == WEFT_CARTPOLE_TRUNCATED ? lay->truncated
							   : 0;
		a->dtype = WEFT_CARTPOLE_U8;
		a->bytes = (size_t)n;
		return 1;
	case WEFT_CARTPOLE_PACKED:
		a->offset = 0;
		a->dtype = WEFT_CARTPOLE_U8;
		a->bytes = lay->total_bytes;
		a->shape[0] = (int64_t)lay->total_bytes;
		return 1;
	}
	return 0;
}

weft_status weft_cartpole_device_array(weft_cartpole *env,
				       weft_cartpole_field field,
				       weft_cartpole_array *out)
{
	weft_cartpole_array a;
	weft_status st;
	int actions;

	if (!env)
		return WEFT_E_INVALID;
	if (!out || out->struct_size < sizeof *out)
		return weft_context_fail(
			env->ctx, WEFT_E_INVALID,
			"weft_cartpole_device_array: %s (struct_size must "
			"be at least %zu)",
			out ? "struct_size too small" : "no array to fill",
			sizeof *out);
	memset(&a, 0, sizeof a);
	if (!cp_array_shape(env, field, &a))
		return weft_context_fail(
			env->ctx, WEFT_E_INVALID,
			"weft_cartpole_device_array: unknown field %d "
			"(WEFT_CARTPOLE_OBS .. WEFT_CARTPOLE_ACTIONS)",
			(int)field);
	actions = field == WEFT_CARTPOLE_ACTIONS;
	a.mem.struct_size = sizeof a.mem;
	st = weft_sim_native(env->sim, actions ? env->actions : env->io,
			     &a.mem);
	if (st)
		return cp_fail(env, st, "weft_cartpole_device_array");
	a.struct_size = out->struct_size;
	memcpy(out, &a, sizeof a);
	return WEFT_OK;
}

weft_status weft_cartpole_fence(weft_cartpole *env, uint64_t *token)
{
	weft_status st;

	if (!env)
		return WEFT_E_INVALID;
	if (!token)
		return weft_context_fail(
			env->ctx, WEFT_E_INVALID,
			"weft_cartpole_fence: no place for the "
			"token");
	if (!env->io_current && (st = cp_launch(env, CP_L_PACK, 1, "fence")))
		return st;
	env->io_current = 1;
	return cp_fence(env, token, "fence");
}

weft_status weft_cartpole_wait(weft_cartpole *env, uint64_t token)
{
	if (!env)
		return WEFT_E_INVALID;
	if (token == 0 || token > env->last_fence)
		return weft_context_fail(
			env->ctx, WEFT_E_INVALID,
			"weft_cartpole_wait: token %llu was not "
			"returned by weft_cartpole_fence (the last "
			"is %llu)",
			(unsigned long long)token,
			(unsigned long long)env->last_fence);
	return cp_wait(env, token, "wait");
}

/* ---- statistics ---------------------------------------------------------- */

/* Reduce the per-environment statistics on the device (which restarts them)
 * and read the totals: one launch list, one small read. */
static weft_status cp_reduce(weft_cartpole *env, uint32_t *ctl)
{
	weft_status st;

	if ((st = cp_launch(env, CP_L_STATS, 1, "statistics")))
		return st;
	st = weft_sim_read(env->sim, ctl, env->control, 0, 4 * CP_CTL_WORDS,
			   WEFT_XFER_ASYNC);
	if (st)
		return cp_fail(env, st, "statistics: reading the totals");
	return cp_sync(env, "statistics");
}

weft_status weft_cartpole_stats(weft_cartpole *env,
				weft_cartpole_episode_stats *out)
{
	weft_cartpole_episode_stats full;
	uint32_t ctl[CP_CTL_WORDS];
	uint64_t ep, sum;
	uint32_t size;
	weft_status st;

	if (!env)
		return WEFT_E_INVALID;
	if (!out || out->struct_size < sizeof(uint32_t))
		return weft_context_fail(
			env->ctx, WEFT_E_INVALID,
			"weft_cartpole_stats: no statistics struct, "
			"or its struct_size is not set");
	if ((st = cp_reduce(env, ctl)))
		return st;
	ep = (uint64_t)ctl[CP_CTL_EP_HI] << 32 | ctl[CP_CTL_EP_LO];
	sum = (uint64_t)ctl[CP_CTL_SUM_HI] << 32 | ctl[CP_CTL_SUM_LO];
	env->episodes += ep;
	env->return_sum += sum;
	if (ctl[CP_CTL_MAX] > env->max_return)
		env->max_return = ctl[CP_CTL_MAX];
	memset(&full, 0, sizeof full);
	full.env_steps = env->env_steps;
	full.episodes = env->episodes;
	full.mean_return =
		env->episodes ? (double)env->return_sum / (double)env->episodes
			      : 0.0;
	full.max_return = env->max_return;
	full.recent_episodes = ep;
	full.recent_mean_return = ep ? (double)sum / (double)ep : 0.0;
	full.recent_max_return = ctl[CP_CTL_MAX];
	size = out->struct_size;
	full.struct_size = size;
	memcpy(out, &full, size < sizeof full ? size : sizeof full);
	return WEFT_OK;
}

weft_status weft_cartpole_counters(weft_cartpole *env, weft_stats *out)
{
	if (!env)
		return WEFT_E_INVALID;
	return weft_sim_stats(env->sim, out);
}
