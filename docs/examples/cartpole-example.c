/*
 * docs/examples/cartpole-example.c - batched CartPole through weft's C API
 * (<weft/cartpole.h>, docs/cartpole.md). `make check` builds and runs it.
 *
 *   cc cartpole-example.c $(pkg-config --cflags --libs weft) -o
 * cartpole-example
 *   ./cartpole-example [FILE.ini]
 *
 * With no argument: 4096 environments on the best backend. Part 1 steps
 * them with actions computed on the host (one packed upload and one packed
 * read per step); part 2 runs the on-device policy, with no host
 * involvement; both end with the statistics reduced on the device.
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
