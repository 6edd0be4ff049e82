/*
 * bench/cartpole-bench.c - environment steps per second of the CartPole
 * model through its C API (<weft/cartpole.h>), the way an RL loop drives
 * it. Prints one line per measurement:
 *
 *   backend=openmp threads=1 mode=policy envs=65536 steps=3000 seconds=1.02
 * env_steps_per_s=1.9e+08
 *
 *   cartpole-bench BACKEND THREADS MODE ENVS... [-t SECONDS] [-s SETTING]...
 *
 * MODE host: one weft_cartpole_step(env, actions, 1, result, step_bytes)
 * per step, the actions cycling through 16 random arrays made beforehand
 * (one packed upload, one launch, one packed read of observations,
 * rewards and flags per step: the whole host-action path). MODE policy:
 * weft_cartpole_step(env, NULL, k, NULL, 0) with the on-device linear
 * policy, k steps making about 2e7 env steps (at most 50000 steps), then
 * the statistics (which wait for the device). MODE device: actions from
 * device memory, as when the policy is a network on the device: per step
 * the actions are written into the action buffer in place (on a backend
 * with host memory; elsewhere the buffer keeps its contents, as if a
 * kernel of the caller's had written it), then
 * weft_cartpole_step_device(env, NULL, 0), a fence and a wait, with
 * nothing read back (the caller's network would read the observations in
 * place). Each point
 * repeats until SECONDS (0.5) have passed, after a warm-up of the same
 * calls; opening (setup, kernel compilation) is outside the timing.
 * -s SETTING: a "section.key=value" setting of weft's configuration, as
 * `weft run --set` takes (cartpole.precision=f64, model.plugin_path=DIR,
 * ...); as many as 16.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <weft/cartpole.h>

#define N_ACTION_SETS 16
#define MAX_SETTINGS  16

/* The -s settings. */
static const char *settings[MAX_SETTINGS];
static int n_settings;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static weft_status open_env(weft_context *ctx, const char *backend,
			    const char *threads, const char *envs,
			    weft_config **cfg, weft_cartpole **env)
{
	const char *tmp = getenv("TMPDIR");
	char set[1200];
	weft_status st;

	if ((st = weft_config_new(ctx, cfg)) ||
	    (st = weft_config_set(ctx, *cfg, "simulation.model=cartpole")) ||
	    (st = weft_config_set(ctx, *cfg, "output.csv=false")) ||
	    (st = weft_config_set(ctx, *cfg, "output.summary=false")))
		return st;
	snprintf(set, sizeof set, "output.directory=%s",
		 tmp && tmp[0] ? tmp : "/tmp");
	if ((st = weft_config_set(ctx, *cfg, set)))
		return st;
	snprintf(set, sizeof set, "backend.name=%s", backend);
	if ((st = weft_config_set(ctx, *cfg, set)))
		return st;
	snprintf(set, sizeof set, "backend.threads=%s", threads);
	if ((st = weft_config_set(ctx, *cfg, set)))
		return st;
	snprintf(set, sizeof set, "cartpole.envs=%s", envs);
	if ((st = weft_config_set(ctx, *cfg, set)))
		return st;
	for (int i = 0; i < n_settings; i++)
		if ((st = weft_config_set(ctx, *cfg, settings[i])))
			return st;
	return weft_cartpole_open(ctx, *cfg, env);
}

/* Host actions: returns steps done in about `budget` seconds. */
static weft_status bench_host(weft_cartpole *env, double budget,
			      uint64_t *steps, double *secs)
{
	uint32_t n = weft_cartpole_count(env);
	weft_cartpole_layout lay;
	uint8_t *a = malloc((size_t)n * N_ACTION_SETS);
	unsigned char *res;
	weft_status st = WEFT_E_NOMEM;
	double t0;

	weft_cartpole_layout_of(n, &lay);
	res = malloc(lay.step_bytes);
	if (!a || !res)
		goto free_buffers;
	srand(1);
	for (size_t i = 0; i < (size_t)n * N_ACTION_SETS; i++)
		a[i] = (uint8_t)(rand() >> 7 & 1);
	for (int w = 0; w < 3; w++)
		if ((st = weft_cartpole_step(env, a, 1, res, lay.step_bytes)))
			goto free_buffers;
	*steps = 0;
	t0 = now_s();
	do {
		for (uint32_t k = 0; k < 1 + 65536 / n; k++) {
			const uint8_t *act =
				a + (size_t)n * (*steps % N_ACTION_SETS);
			st = weft_cartpole_step(env, act, 1, res,
						lay.step_bytes);
			if (st)
				goto free_buffers;
			++*steps;
		}
		*secs = now_s() - t0;
	} while (*secs < budget);
free_buffers:
	free(a);
	free(res);
	return st;
}

/* The on-device policy: chunks of k steps, then a wait. */
static weft_status bench_policy(weft_cartpole *env, double budget,
				uint64_t *steps, double *secs)
{
	weft_cartpole_episode_stats es = { .struct_size = sizeof es };
	uint32_t n = weft_cartpole_count(env);
	/* About 2e7 env steps per chunk, at most 50000 steps (small n on a
	 * device with costly launches). */
	uint64_t k = n < 400 ? 50000 : 1 + 20000000 / n;
	weft_status st;
	double t0;

	if ((st = weft_cartpole_step(env, NULL, k, NULL, 0)) ||
	    (st = weft_cartpole_stats(env, &es)))
		return st;
	*steps = 0;
	t0 = now_s();
	do {
		if ((st = weft_cartpole_step(env, NULL, k, NULL, 0)) ||
		    (st = weft_cartpole_stats(env, &es)))
			return st;
		*steps += k;
		*secs = now_s() - t0;
	} while (*secs < budget);
	return WEFT_OK;
}

/* Actions from device memory: write in place (host memory only), step,
 * fence, wait. */
static weft_status bench_device(weft_cartpole *env, double budget,
				uint64_t *steps, double *secs)
{
	weft_cartpole_array act = { .struct_size = sizeof act };
	uint32_t n = weft_cartpole_count(env);
	uint8_t *a = malloc((size_t)n * N_ACTION_SETS), *dst = NULL;
	weft_status st = WEFT_E_NOMEM;
	uint64_t tok;
	double t0;

	if (!a ||
	    (st = weft_cartpole_device_array(env, WEFT_CARTPOLE_ACTIONS, &act)))
		goto free_actions;
	if (act.mem.kind == WEFT_NATIVE_HOST)
		dst = (uint8_t *)act.mem.handle + act.mem.offset;
	srand(1);
	for (size_t i = 0; i < (size_t)n * N_ACTION_SETS; i++)
		a[i] = (uint8_t)(rand() >> 7 & 1);
	*steps = 0;
	t0 = now_s();
	do {
		for (uint32_t k = 0; k < 1 + 65536 / n; k++) {
			if (dst)
				memcpy(dst,
				       a + (size_t)n * (*steps % N_ACTION_SETS),
				       n);
			if ((st = weft_cartpole_step_device(env, NULL, 0)) ||
			    (st = weft_cartpole_fence(env, &tok)) ||
			    (st = weft_cartpole_wait(env, tok)))
				goto free_actions;
			++*steps;
		}
		*secs = now_s() - t0;
	} while (*secs < budget);
free_actions:
	free(a);
	return st;
}

static int bench_one(const char *backend, const char *threads, const char *mode,
		     const char *envs, double budget)
{
	weft_context *ctx = NULL;
	weft_config *cfg = NULL;
	weft_cartpole *env = NULL;
	uint64_t steps = 0;
	double secs = 0;
	weft_status st;

	if (weft_context_new(&ctx))
		return 1;
	st = open_env(ctx, backend, threads, envs, &cfg, &env);
	if (st == WEFT_OK)
		st = strcmp(mode, "host") == 0
			     ? bench_host(env, budget, &steps, &secs)
		     : strcmp(mode, "device") == 0
			     ? bench_device(env, budget, &steps, &secs)
			     : bench_policy(env, budget, &steps, &secs);
	if (st == WEFT_OK)
		printf("backend=%s threads=%s mode=%s precision=f%u envs=%s "
		       "steps=%llu seconds=%.3f env_steps_per_s=%.4g\n",
		       weft_cartpole_backend(env), threads, mode,
		       weft_cartpole_precision(env), envs,
		       (unsigned long long)steps, secs,
		       (double)steps * (double)weft_cartpole_count(env) / secs);
	else
		fprintf(stderr, "cartpole-bench: %s %s envs=%s: %s\n", backend,
			mode, envs, weft_context_error(ctx));
	fflush(stdout);
	weft_cartpole_close(env);
	weft_config_free(cfg);
	weft_context_free(ctx);
	return st != WEFT_OK;
}

int main(int argc, char **argv)
{
	double budget = 0.5;
	int failed = 0, n_envs = 0;
	const char *envs[32];

	if (argc < 5 || (strcmp(argv[3], "host") && strcmp(argv[3], "policy") &&
			 strcmp(argv[3], "device"))) {
		fprintf(stderr, "usage: cartpole-bench BACKEND THREADS "
				"host|policy|device ENVS... [-t SECONDS] "
				"[-s SETTING]...\n");
		return 2;
	}
	for (int i = 4; i < argc; i++) {
		if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
			budget = atof(argv[++i]);
		else if (strcmp(argv[i], "-s") == 0 && i + 1 < argc &&
			 n_settings < MAX_SETTINGS)
			settings[n_settings++] = argv[++i];
		else if (n_envs < 32)
			envs[n_envs++] = argv[i];
	}
	for (int i = 0; i < n_envs; i++)
		failed |= bench_one(argv[1], argv[2], argv[3], envs[i], budget);
	return failed;
}
