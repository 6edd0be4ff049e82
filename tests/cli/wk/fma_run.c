/*
 * tests/cli/wk/fma_run.c - runs the host builds of tests/cli/wk/fma.wk on
 * a * b + c where one rounding (an fma) and two differ, and prints which
 * the compiler made: "f32 unfused", "f64 fused", ...
 *
 * f32: a = b = 1 + 2^-20, c = -1: a * b = 1 + 2^-19 + 2^-40 rounds to
 * 1 + 2^-19, so two roundings give 2^-19 and one gives 2^-19 + 2^-40.
 * f64: the same with 2^-40 (the product's 2^-80 is lost when rounded).
 * Then the program's needs, fma_program.needs, in hex.
 */
#include <stdio.h>

#include "fma_kernels.h"

/* Which result out is: two roundings, one, or neither. */
static const char *which(double out, double unfused, double fused)
{
	return out == unfused ? "unfused" : out == fused ? "fused" : "wrong";
}

int main(void)
{
	/* volatile: the compiler must not fold the arithmetic here. */
	volatile float a32 = 1.0f + 0x1p-20f, c32 = -1.0f;
	volatile double a64 = 1.0 + 0x1p-40, c64 = -1.0;
	float a[1] = { a32 }, c[1] = { c32 }, out[1] = { 0 };
	double d[1] = { a64 }, e[1] = { c64 }, out64[1] = { 0 };
	weft_kargs ka = { .buf = { a, a, c, out }, .extent = 1 };
	weft_kargs kb = { .buf = { d, d, e, out64 }, .extent = 1 };

	fma_program.kernels[FMA_K_MADD32].host_fn(&ka, 0, 1);
	fma_program.kernels[FMA_K_MADD64].host_fn(&kb, 0, 1);
	printf("f32 %s\n", which(out[0], 0x1p-19, 0x1p-19 + 0x1p-40));
	printf("f64 %s\n", which(out64[0], 0x1p-39, 0x1p-39 + 0x1p-80));
	printf("needs 0x%x\n", (unsigned)fma_program.needs);
	return 0;
}
