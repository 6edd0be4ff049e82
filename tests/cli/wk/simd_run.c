/*
 * tests/cli/wk/simd_run.c - runs tests/cli/wk/simd.wk's host builds (linked
 * with the simd_kernels.c weft-wk wrote) over items split into ranges as
 * threads split them, and checks every item against the same arithmetic
 * written here: prints TAP lines without a plan (test-wk-simd.sh counts).
 */
#include <stdio.h>
#include <string.h>
#include <weft/program.h>

#include "simd_kernels.h"

#define N 1003u /* 15 blocks of 64, then 43 items */

static float x[N], y[N];
static unsigned char flags[N];
static uint32_t out[3];

/* The kernel over [0, N) in ranges ending at cuts[] (the last N). */
static void run(int k, const uint32_t *cuts)
{
	weft_kargs ka;
	uint32_t begin = 0;

	memset(&ka, 0, sizeof ka);
	ka.extent = N;
	if (k == SIMD_K_AXPB) {
		ka.buf[0] = x;
		ka.buf[1] = y;
		ka.buf[2] = flags;
		ka.buf[3] = out;
	} else if (k == SIMD_K_DEFER) {
		ka.buf[0] = y;
		ka.buf[1] = out;
	} else {
		ka.buf[0] = out;
	}
	for (int c = 0; begin < N; c++) {
		simd_program.kernels[k].host_fn(&ka, begin, cuts[c]);
		begin = cuts[c];
	}
}

/* The items simd_defer's main part marks. */
static int marked_item(uint32_t j)
{
	return j % 150 == 3 || j == 1000 || j == 63 || j == 703 || j == 704 ||
	       (j >= 640 && j < 648);
}

/* Runs of simd_defer's deferred part: one for each marked item, wherever
 * the ranges end (in a whole block of 64 as past the last one). */
static uint32_t defer_runs(void)
{
	uint32_t runs = 0;

	for (uint32_t j = 0; j < N; j++)
		runs += marked_item(j);
	return runs;
}

/* simd_defer over the ranges ending at cuts[]: its values, and its deferred
 * part run for the marked items alone; prints a TAP line. */
static void check_defer(const uint32_t *cuts, const char *what)
{
	int bad = 0;

	memset(out, 0, sizeof out);
	run(SIMD_K_DEFER, cuts);
	for (uint32_t i = 0; i < N; i++) {
		float want = (float)i + 0.5f;

		bad += y[i] != (marked_item(i) ? -want : want);
	}
	printf("%s - simd_defer over %s: the deferred part after the after "
	       "part, run %u times (%u expected, of %u items; %d wrong)\n",
	       !bad && out[2] == defer_runs() ? "ok" : "not ok", what,
	       (unsigned)out[2], (unsigned)defer_runs(), N, bad);
}

int main(void)
{
	static const uint32_t one[] = { N }, odd[] = { 1, 65, 200, 201, N };
	const uint32_t *const splits[] = { one, odd };
	int bad = 0;

	check_defer(one, "one range");
	check_defer(odd, "five ranges");

	for (int s = 0; s < 2; s++) {
		for (uint32_t i = 0; i < N; i++) {
			x[i] = (float)((int)(i * 37u % 301u) - 100) * 0.73f;
			y[i] = -1.0f;
			flags[i] = 9;
		}
		memset(out, 0, sizeof out);
		run(SIMD_K_AXPB, splits[s]);
		run(SIMD_K_PLAIN, splits[s]);
		for (uint32_t i = 0; i < N; i++) {
			volatile float a = 1.5f * x[i], want = x[i];

			if (x[i] > 0.0f)
				want = a + 0.1f;
			if (want > 100.0f)
				want = want + 1.0f;
			bad += y[i] != want || flags[i] != (x[i] > 0.0f);
		}
		bad += out[0] != 1 || out[1] != 1;
	}
	printf("%s - simd_axpb computes every item as scalar code does, its "
	       "after part once per item after the main part (%d wrong)\n",
	       bad ? "not ok" : "ok", bad);
	printf("%s - the kernel table lists simd_axpb, simd_defer and "
	       "simd_plain in file order\n",
	       SIMD_N_KERNELS == 3 &&
			       !strcmp(simd_program.kernels[0].name,
				       "simd_axpb") &&
			       !strcmp(simd_program.kernels[1].name,
				       "simd_defer") &&
			       !strcmp(simd_program.kernels[2].name,
				       "simd_plain")
		       ? "ok"
		       : "not ok");
	return 0;
}
