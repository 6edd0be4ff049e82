/*
 * weft/cartpole.h - batched CartPole-v1 environments for reinforcement
 * learning, stepped on any weft backend: the C API that an RL library or
 * a Python binding wraps. models/cartpole/cartpole.md describes the model, the
 * packed layouts and the float tolerance; models/cartpole/example.c is a
 * complete program.
 *
 * N environments live on the device as structure of arrays. An episode
 * that ends (terminated, or truncated after [cartpole] max_episode_steps)
 * is reset on the device within the same step: the observation returned
 * is the new episode's first, and the final observation and return of the
 * episode that ended are kept in the packed result buffer. That is
 * [cartpole] autoreset = same_step, the default; host and device-action
 * steps follow the other modes of that key too (next_step, disabled:
 * models/cartpole/cartpole.md), the on-device policy does not.
 *
 * Two ways to act:
 *  - host actions: weft_cartpole_step(env, actions, 1, result, bytes)
 *    sends one packed action buffer (one host-to-device transfer for all
 *    environments), runs one step and reads the packed result back with
 *    one device-to-host transfer (or leaves it on the device: result NULL);
 *  - the on-device policy of the [cartpole] section (linear or random):
 *    weft_cartpole_step(env, NULL, n, NULL, 0) runs n steps with no
 *    transfer and no synchronisation at all.
 *
 *  - device actions: a policy running on the device (a PyTorch or JAX
 *    network) writes its actions into the action buffer in place (the
 *    WEFT_CARTPOLE_ACTIONS array) and weft_cartpole_step_device() steps
 *    with them: nothing crosses to the host.
 *
 * Results can also stay where they are: weft_cartpole_device_array()
 * describes each array of the packed buffer on the device (host pointer,
 * CUDA device pointer or cl_mem, with offset, type and shape, as DLPack
 * wants it), and weft_cartpole_fence() and weft_cartpole_wait() say when
 * it holds a step's results.
 *
 * Like every weft call, these return a weft_status; on failure the
 * context given to weft_cartpole_open() holds the message.
 */
#ifndef WEFT_CARTPOLE_API_H
#define WEFT_CARTPOLE_API_H

#include <stddef.h>
#include <stdint.h>
#include <weft/weft.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct weft_cartpole weft_cartpole;

/* Observation: x, x_dot, theta, theta_dot (Gymnasium's order), f32. */
#define WEFT_CARTPOLE_OBS_DIM 4

/* Byte offsets in the packed result buffer of n environments, with R
 * the row stride, n rounded up to an odd multiple of 64 (every region
 * 64-byte aligned, and the regions in different cache sets when n is a
 * power of two):
 *   obs          0        float[n][4]
 *   reward       16R      float[n]      (1 every step, as CartPole-v1)
 *   terminated   20R      uint8_t[n]    (0 or 1)
 *   truncated    21R      uint8_t[n]    (0 or 1)
 *   final_obs    22R      float[n][4]
 *   final_return 38R      float[n]
 * final_obs and final_return hold, for each environment, the last
 * episode that ended: read them where terminated or truncated is set.
 * Take the offsets from weft_cartpole_layout_of(), not from this table. */
typedef struct weft_cartpole_layout {
	size_t obs, reward, terminated, truncated, final_obs, final_return;
	size_t step_bytes;  /* 21R + n: obs to truncated */
	size_t total_bytes; /* 42R: everything */
} weft_cartpole_layout;

WEFT_EXPORT void weft_cartpole_layout_of(uint32_t n, weft_cartpole_layout *out);

/* Open [cartpole] envs environments of the backend cfg chooses, as
 * `weft run` would ([simulation] model must be cartpole; seed from
 * [simulation] seed); cfg must outlive env. cfg NULL: every default
 * (backend auto). No output file is written ([output] directory is
 * created, as by any run). Every environment starts episode 0. *out is
 * the caller's, freed with weft_cartpole_close(); the strings the
 * functions below return are env's, valid until then. */
WEFT_EXPORT weft_status weft_cartpole_open(weft_context *ctx,
					   const weft_config *cfg,
					   weft_cartpole **out);
WEFT_EXPORT uint32_t weft_cartpole_count(const weft_cartpole *env);
/* The backend's name ("openmp", "opencl", "cuda", ...). */
WEFT_EXPORT const char *weft_cartpole_backend(const weft_cartpole *env);

/* Step every environment.
 * actions != NULL: n_steps must be 1; actions[i] (0: push left, 1: push
 *   right) for environment i, count of them. Any other value is refused
 *   with WEFT_E_INVALID naming the first bad index, before anything is
 *   sent. When result is not NULL, the first result_bytes bytes of the
 *   packed result (usually layout.step_bytes, or total_bytes for the
 *   final observations too) are read into it and the call returns when
 *   they are there; when NULL (result_bytes 0) the result stays on the
 *   device and the call returns without waiting (weft_cartpole_read).
 * actions == NULL: n_steps steps of the on-device policy, enqueued with no
 *   transfer and no wait; result must be NULL (weft_cartpole_observe). */
WEFT_EXPORT weft_status weft_cartpole_step(weft_cartpole *env,
					   const uint8_t *actions,
					   uint64_t n_steps, void *result,
					   size_t result_bytes);
/* One step of every environment with the actions already in the device
 * action buffer (WEFT_CARTPOLE_ACTIONS of weft_cartpole_device_array()),
 * written there through its handle by the caller, a policy network on
 * the same device for instance: one launch, no host-to-device transfer.
 * The values cannot be checked without a copy, so they are clamped: 0
 * pushes left, any other value pushes right. result and result_bytes as
 * for weft_cartpole_step() (NULL and 0: nothing read, no wait).
 *
 * The caller's writes must be complete (its own stream or queue
 * synchronised) before this call, and must not start before the step
 * that last read the buffer has completed: a wait on a fence issued after
 * it, or any call that returns results to the host. Host-action steps
 * write the buffer too; it holds their last actions afterwards, and it
 * holds zeros after open. */
WEFT_EXPORT weft_status weft_cartpole_step_device(weft_cartpole *env,
						  void *result,
						  size_t result_bytes);
/* Bytes offset..offset+bytes-1 of the packed result buffer, after
 * everything issued. After on-device policy steps its observations are
 * stale until weft_cartpole_observe(). */
WEFT_EXPORT weft_status weft_cartpole_read(weft_cartpole *env, void *dst,
					   size_t offset, size_t bytes);
/* The current observations, float[count][4]. */
WEFT_EXPORT weft_status weft_cartpole_observe(weft_cartpole *env, float *obs);
/* Every environment begins a new episode (fresh state, counter-based and
 * keyed by environment and episode); the episodes under way are dropped,
 * not counted in the statistics. The packed buffer then shows the new
 * observations with reward 0 and both flags clear. obs may be NULL. */
WEFT_EXPORT weft_status weft_cartpole_reset(weft_cartpole *env, float *obs);

/* What weft_cartpole_reset_some() does to environment i (which[i]): the
 * environment protocol's WEFT_ENV_KEEP, WEFT_ENV_NEXT and WEFT_ENV_SEEDED
 * (weft/env.h), which the model's reset_mask view takes. */
typedef enum weft_cartpole_reset_kind {
	WEFT_CARTPOLE_KEEP = 0, /* nothing: its episode goes on */
	WEFT_CARTPOLE_NEXT = 1, /* a new episode, the next of its seed */
	WEFT_CARTPOLE_SEED = 2	/* a new episode, the first of seeds[i] */
} weft_cartpole_reset_kind;

/* Reset some environments, as Gymnasium's reset(seed=, options=
 * {"reset_mask": ...}) does: which[i] (NULL: WEFT_CARTPOLE_NEXT for all)
 * says what happens to environment i. An environment given a seed of its
 * own draws its episodes from that seed alone (the same seed gives the
 * same episodes at any index, like a Gymnasium environment reset with
 * seed=seeds[i]) and keeps it for its later episodes; seeds is read only
 * where which[i] is WEFT_CARTPOLE_SEED and may be NULL otherwise. The
 * episodes dropped are not counted in the statistics. Afterwards the
 * packed buffer holds every environment's observation (the reset ones
 * with reward 0 and both flags clear); obs (may be NULL) receives them,
 * float[count][4]. A value of which[] other than 0, 1, 2 is refused
 * before anything is sent. */
WEFT_EXPORT weft_status weft_cartpole_reset_some(weft_cartpole *env,
						 const uint8_t *which,
						 const uint64_t *seeds,
						 float *obs);

/* The arithmetic of the state ([cartpole] precision): 32 or 64. */
WEFT_EXPORT unsigned weft_cartpole_precision(const weft_cartpole *env);
/* Every environment's state, double[count][4] (x, x_dot, theta,
 * theta_dot): with precision f64 the binary64 state the next step starts
 * from, with f32 the f32 state, exactly. Waits for the device. */
WEFT_EXPORT weft_status weft_cartpole_get_state(weft_cartpole *env,
						double *state);
/* Set the state of the environments where which[i] is not 0 (which NULL:
 * all) to state[i] (double[count][4]; rounded to f32 with precision f32),
 * their steps into the episode unchanged, as assigning Gymnasium's
 * env.unwrapped.state does. A state must be finite and not terminated
 * (|x| <= 2.4, |theta| <= 12 degrees: the step's sin and cos are exact
 * there); otherwise nothing is sent and the message names the first bad
 * environment. Afterwards the packed buffer holds every observation, the
 * set ones with reward 0 and no flags; obs (may be NULL) receives them. */
WEFT_EXPORT weft_status weft_cartpole_set_state(weft_cartpole *env,
						const uint8_t *which,
						const double *state,
						float *obs);

/* ---- results on the device, without a host copy ------------------------ */

/* The arrays of the packed result buffer, the buffer itself, and the
 * device's action buffer. */
typedef enum weft_cartpole_field {
	WEFT_CARTPOLE_OBS = 0,		/* f32 [n][4] */
	WEFT_CARTPOLE_REWARD = 1,	/* f32 [n] */
	WEFT_CARTPOLE_TERMINATED = 2,	/* u8 [n], 0 or 1 */
	WEFT_CARTPOLE_TRUNCATED = 3,	/* u8 [n], 0 or 1 */
	WEFT_CARTPOLE_FINAL_OBS = 4,	/* f32 [n][4] */
	WEFT_CARTPOLE_FINAL_RETURN = 5, /* f32 [n] */
	WEFT_CARTPOLE_PACKED = 6,	/* u8 [total_bytes]: all of the above */
	WEFT_CARTPOLE_ACTIONS = 7	/* u8 [n]: the action buffer, apart
					 * from the packed result; see
					 * weft_cartpole_step_device() */
} weft_cartpole_field;

/* Element types (DLPack: kDLFloat 32 bits, kDLUInt 8 bits). */
typedef enum weft_cartpole_dtype {
	WEFT_CARTPOLE_F32 = 1,
	WEFT_CARTPOLE_U8 = 2
} weft_cartpole_dtype;

/* One array, described as a DLPack DLTensor would be: the native memory
 * of the packed buffer (mem: host pointer, CUDA device pointer or cl_mem,
 * with the device), the array's byte offset in that buffer, its type and
 * its C-order shape and strides. For a pointer kind (host, CUDA) element 0
 * is at (char *)mem.handle + mem.offset + offset; for a cl_mem it is at
 * byte mem.offset + offset of the memory object. */
typedef struct weft_cartpole_array {
	uint32_t struct_size; /* set by the caller: sizeof *out */
	weft_native mem;      /* the whole packed buffer (for ACTIONS:
			       * the action buffer) */
	size_t offset;	      /* bytes from the buffer's start to element 0 */
	size_t bytes;	      /* bytes of the array */
	uint32_t dtype;	      /* a weft_cartpole_dtype */
	uint32_t ndim;	      /* 1, or 2 for observations */
	int64_t shape[2];     /* {n, 4} or {n} (total_bytes for PACKED) */
	int64_t strides[2];   /* in elements: {4, 1} or {1} */
} weft_cartpole_array;

/* Where an array lives on the backend's device, for a binding to hand to
 * its framework without a copy (DLPack's data, device, byte_offset, dtype,
 * shape, strides). For WEFT_CARTPOLE_ACTIONS, mem is the action buffer,
 * not the packed result, and the caller writes it (see
 * weft_cartpole_step_device()); the other arrays are for reading. Never waits
 * and moves nothing; the answer is the same for the life of env. Fails with
 * WEFT_E_UNSUPPORTED when the backend does not expose native buffers (a plugin
 * older than backend ABI 1.2).
 *
 * Synchronisation: the memory holds a step's results once it has
 * completed. After a call that returns results to the host (a step with a
 * result buffer, read, observe, reset with obs, stats) that is so already;
 * after steps that leave their results on the device, call
 * weft_cartpole_fence() and then weft_cartpole_wait() on its token (a fence
 * also packs the on-device policy's observations into the buffer). The
 * next step, reset or observe writes the buffer again: whoever reads it
 * through the handle (on its own CUDA stream or OpenCL queue too) must
 * have finished, or copied it, before calling one of them. */
WEFT_EXPORT weft_status weft_cartpole_device_array(weft_cartpole *env,
						   weft_cartpole_field field,
						   weft_cartpole_array *out);
/* Mark the point after everything issued so far and return its token;
 * never waits. If on-device policy steps left the packed observations
 * stale, first enqueues the launch that packs them. */
WEFT_EXPORT weft_status weft_cartpole_fence(weft_cartpole *env,
					    uint64_t *token);
/* Return once everything issued before the fence `token` has completed
 * (the device arrays then hold its results), without waiting for what was
 * issued after it: a fence wait in the counters, not a sync. A backend
 * without fences (ABI 1.0) synchronises instead. */
WEFT_EXPORT weft_status weft_cartpole_wait(weft_cartpole *env, uint64_t token);

/* Episode statistics, reduced on the device. */
typedef struct weft_cartpole_episode_stats {
	uint32_t struct_size; /* set by the caller: sizeof *stats */
	uint64_t env_steps;   /* steps x environments, since open */
	uint64_t episodes;    /* episodes finished since open */
	double mean_return;   /* of those episodes (0 when none) */
	double max_return;
	uint64_t recent_episodes; /* finished since the previous call */
	double recent_mean_return;
	double recent_max_return;
} weft_cartpole_episode_stats;

WEFT_EXPORT weft_status weft_cartpole_stats(weft_cartpole *env,
					    weft_cartpole_episode_stats *out);
/* The backend's counters: transfers, launches, synchronisations. */
WEFT_EXPORT weft_status weft_cartpole_counters(weft_cartpole *env,
					       weft_stats *out);
WEFT_EXPORT void weft_cartpole_close(weft_cartpole *env);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_CARTPOLE_API_H */
