/*
 * models/cartpole/example.c - batched CartPole through weft's C API
 * (<weft/cartpole.h>, models/cartpole/cartpole.md). `make check` builds and
 * runs it.
 *
 *   cc cartpole-example.c $(pkg-config --cflags --libs weft) -o
 * cartpole-example
 *   ./cartpole-example [FILE.ini]
 *
 * With no argument: 4096 environments on the best backend. Part 1 steps
 * them with actions computed on the host (one packed upload and one packed
 * read per step); part 2 runs the on-device policy, with no host
 * involvement; both end with the statistics reduced on the device. Part 3
 * leaves each step's results on the device and uses them where they are,
 * through the handle a binding would hand to its framework (DLPack), with
 * a fence and a wait per step instead of a read and a sync. Part 4 takes
 * the actions from device memory too: the controller stands in for a
 * policy network on the device, reading the observations and writing the
 * actions in place, and weft_cartpole_step_device() steps with them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <weft/cartpole.h>

/* Host actions: push the way theta + theta_dot / 2 points. */
static void controller(const float *obs, uint32_t n, uint8_t *actions)
{
	for (uint32_t i = 0; i < n; i++)
		actions[i] = obs[4 * i + 2] + 0.5f * obs[4 * i + 3] > 0.0f;
}

static weft_status report(weft_cartpole *env, const char *what)
{
	weft_cartpole_episode_stats st = { .struct_size = sizeof st };
	weft_status rc = weft_cartpole_stats(env, &st);

	if (rc == WEFT_OK)
		printf("%s: %llu episodes ended, mean return %.1f, max %.0f "
		       "(%llu environment steps so far)\n",
		       what, (unsigned long long)st.recent_episodes,
		       st.recent_mean_return, st.recent_max_return,
		       (unsigned long long)st.env_steps);
	return rc;
}

static weft_status host_actions(weft_cartpole *env, uint32_t steps)
{
	uint32_t n = weft_cartpole_count(env), truncated = 0;
	weft_cartpole_layout lay;
	unsigned char *result;
	uint8_t *actions;
	weft_status rc = WEFT_E_NOMEM;

	weft_cartpole_layout_of(n, &lay);
	result = malloc(lay.step_bytes);
	actions = malloc(n);
	if (!result || !actions)
		goto free_buffers;
	/* The packed result starts with float obs[n][4]. */
	if ((rc = weft_cartpole_observe(env, (float *)result)))
		goto free_buffers;
	for (uint32_t t = 0; t < steps; t++) {
		controller((const float *)(result + lay.obs), n, actions);
		rc = weft_cartpole_step(env, actions, 1, result,
					lay.step_bytes);
		if (rc)
			goto free_buffers;
		for (uint32_t i = 0; i < n; i++)
			truncated += result[lay.truncated + i];
	}
	printf("host actions: %u steps, %u episodes truncated at the time "
	       "limit\n",
	       steps, truncated);
	rc = report(env, "host actions");
free_buffers:
	free(result);
	free(actions);
	return rc;
}

static const char *kind_name(uint32_t kind)
{
	return kind == WEFT_NATIVE_HOST	  ? "host"
	       : kind == WEFT_NATIVE_CUDA ? "CUDA device"
					  : "OpenCL (cl_mem)";
}

/* The first element of an array whose memory is the host's. */
static const void *host_data(const weft_cartpole_array *a)
{
	return (const char *)a->mem.handle + a->mem.offset + a->offset;
}

/* Results left on the device: a fence after each step, a wait on it, then
 * the arrays are read in place. The example reads them only when they are
 * host memory; a binding would wrap any kind (a CUDA pointer for PyTorch
 * or CuPy) and let its framework read them, finishing before the next
 * step. */
static weft_status device_results(weft_cartpole *env, uint32_t steps)
{
	weft_cartpole_array obs = { .struct_size = sizeof obs };
	weft_cartpole_array term = { .struct_size = sizeof term };
	weft_stats c0 = { .struct_size = sizeof c0 }, c1 = c0;
	uint32_t n = weft_cartpole_count(env), ended = 0;
	uint8_t *actions = malloc(n);
	uint64_t token;
	weft_status rc;

	if (!actions)
		return WEFT_E_NOMEM;
	rc = weft_cartpole_device_array(env, WEFT_CARTPOLE_OBS, &obs);
	if (rc == WEFT_E_UNSUPPORTED) { /* a backend older than ABI 1.2 */
		printf("device results: not exposed by this backend\n");
		rc = WEFT_OK;
		goto free_actions;
	}
	if (rc ||
	    (rc = weft_cartpole_device_array(env, WEFT_CARTPOLE_TERMINATED,
					     &term)) ||
	    (rc = weft_cartpole_counters(env, &c0)))
		goto free_actions;
	printf("device results: observations f32[%lld][%lld] in %s memory "
	       "of device %d\n",
	       (long long)obs.shape[0], (long long)obs.shape[1],
	       kind_name(obs.mem.kind), (int)obs.mem.device);
	/* The policy steps of part 2 left the observations to be packed:
	 * the first fence does it. */
	if ((rc = weft_cartpole_fence(env, &token)) ||
	    (rc = weft_cartpole_wait(env, token)))
		goto free_actions;
	for (uint32_t t = 0; t < steps; t++) {
		if (obs.mem.kind == WEFT_NATIVE_HOST)
			controller(host_data(&obs), n, actions);
		else
			for (uint32_t i = 0; i < n; i++)
				actions[i] = (uint8_t)((i + t) & 1);
		if ((rc = weft_cartpole_step(env, actions, 1, NULL, 0)) ||
		    (rc = weft_cartpole_fence(env, &token)) ||
		    (rc = weft_cartpole_wait(env, token)))
			goto free_actions;
		for (uint32_t i = 0; term.mem.kind == WEFT_NATIVE_HOST && i < n;
		     i++)
			ended += ((const uint8_t *)host_data(&term))[i];
	}
	if ((rc = weft_cartpole_counters(env, &c1)))
		goto free_actions;
	if (term.mem.kind == WEFT_NATIVE_HOST)
		printf("device results: %u steps, %u episodes terminated, ",
		       steps, ended);
	else
		printf("device results: %u steps, flags left on the device, ",
		       steps);
	printf("%llu syncs, %llu fence waits\n",
	       (unsigned long long)(c1.syncs - c0.syncs),
	       (unsigned long long)(c1.fence_waits - c0.fence_waits));
free_actions:
	free(actions);
	return rc;
}

/* Actions from device memory: the controller reads the observations where
 * they lie and writes the actions into the action buffer in place, as a
 * policy network on the device would (through DLPack tensors of both);
 * weft_cartpole_step_device() steps with them, with no transfer. Shown
 * where both are host memory; elsewhere the network's own framework
 * writes them. */
static weft_status device_actions(weft_cartpole *env, uint32_t steps)
{
	weft_cartpole_array obs = { .struct_size = sizeof obs };
	weft_cartpole_array act = { .struct_size = sizeof act };
	weft_stats c0 = { .struct_size = sizeof c0 }, c1 = c0;
	uint32_t n = weft_cartpole_count(env);
	uint64_t token;
	weft_status rc;

	rc = weft_cartpole_device_array(env, WEFT_CARTPOLE_OBS, &obs);
	if (rc == WEFT_E_UNSUPPORTED) {
		printf("device actions: not exposed by this backend\n");
		return WEFT_OK;
	}
	if (rc ||
	    (rc = weft_cartpole_device_array(env, WEFT_CARTPOLE_ACTIONS, &act)))
		return rc;
	if (act.mem.kind != WEFT_NATIVE_HOST) {
		printf("device actions: u8[%lld] in %s memory, for a policy "
		       "on that device to write\n",
		       (long long)act.shape[0], kind_name(act.mem.kind));
		return WEFT_OK;
	}
	if ((rc = weft_cartpole_counters(env, &c0)) ||
	    (rc = weft_cartpole_fence(env, &token)) ||
	    (rc = weft_cartpole_wait(env, token)))
		return rc;
	for (uint32_t t = 0; t < steps; t++) {
		controller(host_data(&obs), n, (uint8_t *)host_data(&act));
		if ((rc = weft_cartpole_step_device(env, NULL, 0)) ||
		    (rc = weft_cartpole_fence(env, &token)) ||
		    (rc = weft_cartpole_wait(env, token)))
			return rc;
	}
	if ((rc = weft_cartpole_counters(env, &c1)))
		return rc;
	printf("device actions: %u steps, %llu host-to-device transfers, "
	       "%llu syncs\n",
	       steps,
	       (unsigned long long)(c1.xfer_count[WEFT_DIR_H2D] -
				    c0.xfer_count[WEFT_DIR_H2D]),
	       (unsigned long long)(c1.syncs - c0.syncs));
	return report(env, "device actions");
}

int main(int argc, char **argv)
{
	weft_context *ctx = NULL;
	weft_config *cfg = NULL;
	weft_cartpole *env = NULL;
	int failed = 1;

	if (weft_context_new(&ctx))
		return 1;
	if (argc > 1 && weft_config_load(ctx, argv[1], &cfg))
		goto done;
	if (weft_cartpole_open(ctx, cfg, &env))
		goto done;
	printf("%u environments on %s\n", weft_cartpole_count(env),
	       weft_cartpole_backend(env));
	if (host_actions(env, 600))
		goto done;
	/* The on-device policy of the [cartpole] section: 1000 steps. */
	if (weft_cartpole_step(env, NULL, 1000, NULL, 0) ||
	    report(env, "on-device policy"))
		goto done;
	if (device_results(env, 200) || device_actions(env, 600))
		goto done;
	failed = 0;
done:
	if (failed)
		fprintf(stderr, "cartpole-example: %s\n",
			weft_context_error(ctx));
	weft_cartpole_close(env);
	weft_config_free(cfg);
	weft_context_free(ctx);
	return failed;
}
