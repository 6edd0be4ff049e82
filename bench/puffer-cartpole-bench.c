/*
 * bench/puffer-cartpole-bench.c - environment steps per second of
 * PufferLib 3's C CartPole (pufferlib/ocean/cartpole/cartpole.h from its
 * sdist), driven as PufferLib's native vectorisation drives it: N Cartpole
 * structs whose observation, action, reward and terminal pointers point
 * into contiguous shared buffers, and per step the actions copied into the
 * action buffer (what PufferLib's Python does with numpy) and c_step()
 * called for each environment in turn (env_binding.h's vec_step). No
 * Python: this is PufferLib's C cost alone, an upper bound on its rate.
 *
 *   puffer-cartpole-bench ENVS... [-t SECONDS]
 *
 * Built by bench/rl-compare.sh against the sdist's cartpole.h with a stub
 * raylib.h (rendering is never called), with PufferLib's own flags
 * (-O2 -flto -fwrapv -DPLATFORM_DESKTOP). Prints per size:
 *   RESULT peer=pufferlib-c env=CartPole-v1 envs=N steps=S seconds=T
 *   env_steps_per_s=R
 */
#define _GNU_SOURCE /* clock_gettime; M_PI, which cartpole.h uses */
#include <time.h>

#include "cartpole.h"

#define N_ACTION_SETS 16

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void step_all(Cartpole *envs, int n, float *actions, const float *set)
{
	memcpy(actions, set, (size_t)n * sizeof(float));
	for (int i = 0; i < n; i++)
		c_step(&envs[i]);
}

static int bench(int n, double seconds)
{
	Cartpole *envs = calloc((size_t)n, sizeof(*envs));
	float *obs = calloc((size_t)n * 4, sizeof(float));
	float *actions = calloc((size_t)n, sizeof(float));
	float *rewards = calloc((size_t)n, sizeof(float));
	unsigned char *terms = calloc((size_t)n, 1);
	unsigned char *truncs = calloc((size_t)n, 1);
	float *sets = malloc((size_t)n * N_ACTION_SETS * sizeof(float));

	if (!envs || !obs || !actions || !rewards || !terms || !truncs ||
	    !sets) {
		fprintf(stderr, "puffer-cartpole-bench: out of memory at %d\n",
			n);
		return 1;
	}
	srand(0);
	for (int i = 0; i < n * N_ACTION_SETS; i++)
		sets[i] = (float)(rand() & 1);
	for (int i = 0; i < n; i++) {
		envs[i].observations = obs + 4 * i;
		envs[i].actions = actions + i;
		envs[i].rewards = rewards + i;
		envs[i].terminals = terms + i;
		envs[i].truncations = truncs + i;
		init(&envs[i]);
		c_reset(&envs[i]);
	}
	long steps = 0;
	step_all(envs, n, actions, sets); /* warm-up */
	double t0 = now_s(), t;
	do {
		step_all(envs, n, actions,
			 sets + (size_t)(steps % N_ACTION_SETS) * n);
		steps++;
		t = now_s() - t0;
	} while (t < seconds || steps < 3);
	float sink = 0;
	for (int i = 0; i < n; i++)
		sink += rewards[i] + obs[4 * i];
	printf("RESULT peer=pufferlib-c env=CartPole-v1 envs=%d steps=%ld "
	       "seconds=%.3f env_steps_per_s=%.4g (sink %g)\n",
	       n, steps, t, (double)steps * n / t, (double)sink);
	fflush(stdout);
	free(envs), free(obs), free(actions), free(rewards), free(terms),
		free(truncs), free(sets);
	return 0;
}

int main(int argc, char **argv)
{
	double seconds = 0.5;
	int rc = 0;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-t") && i + 1 < argc)
			seconds = atof(argv[++i]);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-t")) {
			i++;
			continue;
		}
		rc |= bench(atoi(argv[i]), seconds);
	}
	return rc;
}
