/*
 * tests/models/test-cartpole-simd.c - CartPole's steps written to vectorise
 * on the host (cartpole_act_f32 and cartpole_policy_f32, WEFT_KERNEL_SIMD)
 * against the kernels they stand in for (cartpole_act and cartpole_policy),
 * called directly through the program's host builds: every buffer bit for
 * bit after every step, in each autoreset mode, with act and policy steps
 * mixed (so that the policy meets environments left pending by act in
 * NEXT_STEP mode), short episodes (truncation and termination), a count
 * of environments that is not a multiple of the vector block, and the
 * items split into ranges as threads split them (blocks and the items
 * after the last whole block both run).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cartpole.h"
#include "tap.h"

#define N     1000u /* 15 blocks of 64 and 40 items after them */
#define STEPS 400

enum {
	B_PARAMS,
	B_STATE,
	B_BOOK,
	B_ACC,
	B_ACTIONS,
	B_IO,
	B_CTL,
	B_CONSTS,
	B_N
};

typedef struct side {
	void *buf[B_N];
	size_t bytes[B_N];
} side;

static const char *const buf_names[B_N] = {
	"params", "state", "book", "acc", "actions", "io", "ctl", "consts"
};

static int side_open(side *s, const cartpole_params *p)
{
	float obs[4];

	s->bytes[B_PARAMS] = sizeof *p;
	s->bytes[B_STATE] = 16 * (size_t)CP_ROW(N);
	s->bytes[B_BOOK] = WEFT_ENV_BYTES((size_t)N);
	s->bytes[B_ACC] = 4 * CP_ACC_ARRAYS * (size_t)CP_ROW(N);
	s->bytes[B_ACTIONS] = N;
	s->bytes[B_IO] = (size_t)CP_IO_BYTES(N);
	s->bytes[B_CTL] = 4 * CP_CTL_WORDS;
	s->bytes[B_CONSTS] = 8 * CP64_CONST_COUNT;
	for (int k = 0; k < B_N; k++)
		if (!(s->buf[k] = calloc(1, s->bytes[k])))
			return -1;
	memcpy(s->buf[B_PARAMS], p, sizeof *p);
	for (uint32_t i = 0; i < N; i++) {
		weft__cartpole_reset_obs(p, i, 0, obs);
		for (int k = 0; k < 4; k++)
			((float *)s->buf[B_STATE])[k * CP_ROW(N) + i] = obs[k];
		weft_env_init(s->buf[B_BOOK], N, i, p->seed_lo, p->seed_hi);
	}
	return 0;
}

static void side_close(side *s)
{
	for (int k = 0; k < B_N; k++)
		free(s->buf[k]);
}

/* Kernel k over items [0, N) in ranges ending at cuts[] (the last N). */
static void run(const side *s, int k, const uint32_t *bufs, uint32_t n_bufs,
		const uint32_t *cuts)
{
	weft_kargs ka;
	uint32_t begin = 0;

	memset(&ka, 0, sizeof ka);
	for (uint32_t b = 0; b < n_bufs; b++)
		ka.buf[b] = s->buf[bufs[b]];
	ka.extent = N;
	for (int c = 0; begin < N; c++) {
		cartpole_program.kernels[k].host_fn(&ka, begin, cuts[c]);
		begin = cuts[c];
	}
}

/* The buffers of each kernel, in its slot order (cartpole_kernels.h). */
static const uint32_t act_bufs[] = { B_PARAMS,	B_STATE, B_BOOK, B_ACC,
				     B_ACTIONS, B_IO,	 B_CTL,	 B_CONSTS };
static const uint32_t act_f32_bufs[] = { B_PARAMS,  B_STATE, B_BOOK, B_ACC,
					 B_ACTIONS, B_IO,    B_CTL };
static const uint32_t policy_bufs[] = { B_PARAMS, B_STATE, B_BOOK,  B_ACC,
					B_IO,	  B_CTL,   B_CONSTS };
static const uint32_t policy_f32_bufs[] = { B_PARAMS, B_STATE, B_BOOK,
					    B_ACC,    B_IO,    B_CTL };

/* The first buffer where a and b differ, or -1. */
static int differ(const side *a, const side *b)
{
	for (int k = 0; k < B_N; k++)
		if (memcmp(a->buf[k], b->buf[k], a->bytes[k]))
			return k;
	return -1;
}

/* STEPS steps in autoreset mode `mode`, every seventh one by the policy:
 * the number of steps after which the buffers differ (0: none). */
static void check_mode(uint32_t mode, const char *name, const uint32_t *cuts,
		       const char *split)
{
	cartpole_params p;
	side ref, simd;
	uint32_t x = 12345u + mode, ended = 0, pending = 0;
	int bad = 0, first = -1, which = -1, ok;

	memset(&p, 0, sizeof p);
	p.n_envs = N;
	p.seed_lo = 20240601u + mode;
	p.seed_hi = 7u;
	p.max_steps = 60; /* truncation too */
	p.policy = CP_POLICY_LINEAR;
	p.n_partials = 16;
	p.every = 50;
	p.last_step = STEPS;
	p.n_rows = STEPS / 50;
	p.w[0] = 0.1f;
	p.w[1] = -0.3f;
	p.w[2] = 2.0f;
	p.w[3] = 0.7f;
	p.bias = 0.01f;
	p.precision = CP_PRECISION_F32;
	p.autoreset = mode;
	ok = side_open(&ref, &p) == 0 && side_open(&simd, &p) == 0;
	for (int t = 0; ok && t < STEPS; t++) {
		for (uint32_t i = 0; i < N; i++) {
			x = x * 1664525u + 1013904223u;
			((uint8_t *)ref.buf[B_ACTIONS])[i] =
				(uint8_t)((x >> 16) % 3u); /* 0, 1 and 2 */
		}
		memcpy(simd.buf[B_ACTIONS], ref.buf[B_ACTIONS], N);
		if (t % 7 == 3) {
			run(&ref, CARTPOLE_K_POLICY, policy_bufs, 7, cuts);
			run(&simd, CARTPOLE_K_POLICY_F32, policy_f32_bufs, 6,
			    cuts);
		} else {
			run(&ref, CARTPOLE_K_ACT, act_bufs, 8, cuts);
			run(&simd, CARTPOLE_K_ACT_F32, act_f32_bufs, 7, cuts);
		}
		if ((which = differ(&ref, &simd)) >= 0) {
			if (first < 0)
				first = t;
			bad++;
			/* Go on from the same buffers. */
			for (int k = 0; k < B_N; k++)
				memcpy(simd.buf[k], ref.buf[k], ref.bytes[k]);
		}
		for (uint32_t i = 0; i < N; i++) {
			const uint8_t *io = ref.buf[B_IO];

			ended += io[CP_IO_TERMINATED(N) + i] |
				 io[CP_IO_TRUNCATED(N) + i];
			pending +=
				((uint32_t *)
					 ref.buf[B_BOOK])[WEFT_ENV_PENDING * N +
							  i];
		}
	}
	tap_ok(ok && bad == 0 && ended > 1000,
	       "%s, %s: %d steps of act and policy leave every buffer as the "
	       "scalar kernels do (%d steps differ, the first %d, in %s; "
	       "%u episode ends, %u pending)",
	       name, split, STEPS, bad, first,
	       which >= 0 ? buf_names[which] : "none", ended, pending);
	side_close(&ref);
	side_close(&simd);
}

int main(void)
{
	static const uint32_t one[] = { N };
	static const uint32_t two[] = { N / 2, N };
	static const uint32_t odd[] = { 1, 70, 333, 334, 999, N };
	static const struct {
		uint32_t mode;
		const char *name;
	} modes[] = { { WEFT_ENV_AUTORESET_SAME_STEP, "same_step" },
		      { WEFT_ENV_AUTORESET_NEXT_STEP, "next_step" },
		      { WEFT_ENV_AUTORESET_DISABLED, "disabled" } };

#if defined(__x86_64__) && defined(__GNUC__)
	__builtin_cpu_init();
	tap_diag("this CPU: avx512f %d, avx2 %d (the host build of the "
		 "vectorising kernels the loader picked runs)",
		 __builtin_cpu_supports("avx512f") != 0,
		 __builtin_cpu_supports("avx2") != 0);
#endif
	for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
		check_mode(modes[m].mode, modes[m].name, one, "one range");
		check_mode(modes[m].mode, modes[m].name, two, "two ranges");
	}
	check_mode(WEFT_ENV_AUTORESET_NEXT_STEP, "next_step", odd,
		   "ranges of 1, 69, 263, 1, 665 and 1 items");
	return tap_done();
}
