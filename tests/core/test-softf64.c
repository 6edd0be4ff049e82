/*
 * tests/core/test-softf64.c - weft/softf64.h, the kit's integer binary64,
 * against this machine's double-precision hardware: every operation it
 * offers (add, sub, mul, div, fma, sqrt, neg, abs, the comparisons, the
 * conversions from and to f32, i32 and u32), bit for bit, on every
 * combination of special values (zeros, subnormals, the normal range's
 * ends, infinities, NaN, ties) and on millions of random operands of every
 * kind (any bits, subnormals, close magnitudes that cancel, results that
 * overflow or underflow, few-bit values that make exact results and
 * ties). Then weft/double.h's two paths, software (this file, compiled
 * with WEFT_D64_SOFT) and hardware (double-hw.c), against the same
 * hardware. NaN results are compared as "is NaN" (their payloads are not
 * portable; softf64.h says so).
 *
 * Compiled with -ffp-contract=off, so the hardware reference rounds each
 * operation on its own.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <weft/kernel_host.h>
#define WEFT_D64_SOFT 1
#include <weft/double.h>

#include "double-ops.h"
#include "rnd64.h"
#include "tap.h"

#if WEFT_D64_HARDWARE
#error "WEFT_D64_SOFT must select weft/double.h's software path"
#endif

#define SIGN WEFT_SF64_SIGN
#define FRAC WEFT_SF64_FRAC
#define INF  WEFT_SF64_INF

/* An operand: any bit pattern, or one of the kinds that exercise the
 * corners (exponents near each other, subnormals, zeros, infinities,
 * values near the overflow and underflow thresholds). */
static uint64_t operand(uint64_t near)
{
	uint64_t r = tap_rnd64(), sign = tap_rnd64() & SIGN;

	switch (r % 8) {
	case 0: return tap_rnd64();
	case 1: /* same exponent as `near`, give or take one */
		return (near & ~FRAC) + ((tap_rnd64() % 3) << 52) -
		       (1ull << 52) + (tap_rnd64() & FRAC);
	case 2: return sign | (tap_rnd64() & FRAC); /* subnormal */
	case 3: return sign | ((tap_rnd64() % 2) ? INF : 0);
	case 4: /* near 1 */
		return sign | ((1020 + tap_rnd64() % 7) << 52) |
		       (tap_rnd64() & FRAC);
	case 5: /* huge or tiny */
		return sign |
		       (((tap_rnd64() % 2) ? 2000 + tap_rnd64() % 46
					   : tap_rnd64() % 60)
			<< 52) |
		       (tap_rnd64() & FRAC);
	case 6: /* a few bits only: exact results and ties */
		return sign | ((1000 + tap_rnd64() % 50) << 52) |
		       (tap_rnd64() & 0x000ff00000000000ull);
	default: return near ^ (tap_rnd64() & 0xffull); /* cancellation */
	}
}

/* Special values: every pair (and triple, for fma) is checked. */
static const uint64_t specials[] = {
	0x0000000000000000ull, /* +0 */
	0x8000000000000000ull, /* -0 */
	0x0000000000000001ull, /* the least subnormal */
	0x800fffffffffffffull, /* the largest subnormal, negative */
	0x0010000000000000ull, /* the least normal */
	0x3ff0000000000000ull, /* 1 */
	0xbff0000000000000ull, /* -1 */
	0x3ff0000000000001ull, /* 1 + ulp */
	0x3fe0000000000000ull, /* 0.5 */
	0x4000000000000000ull, /* 2 */
	0x3fefffffffffffffull, /* 1 - ulp/2 */
	0x4340000000000001ull, /* 2^53 + 2: odd last bit, ties */
	0x41dfffffffc00000ull, /* 2^31 - 1 */
	0xc1e0000000000000ull, /* -2^31 */
	0x47efffffe0000000ull, /* FLT_MAX */
	0x47efffffefffffffull, /* just below FLT_MAX + ulp/2 */
	0x36a0000000000000ull, /* the least float subnormal */
	0x7fefffffffffffffull, /* the largest double */
	0xffefffffffffffffull, /* its negative */
	0x7ff0000000000000ull, /* +inf */
	0xfff0000000000000ull, /* -inf */
	0x7ff8000000000000ull, /* a quiet NaN */
	0x3fd5555555555555ull, /* 1/3 */
	0xc1e0000000100000ull, /* -2^31 - 0.5 */
	0x41efffffffe00000ull, /* 2^32 - 1 */
};
#define N_SPECIALS (sizeof specials / sizeof *specials)

static const char *const op_names[D64_N_OPS] = {
	"add",	  "sub",      "mul",	  "div",      "fma",	"sqrt",	 "neg",
	"abs",	  "copysign", "lt",	  "le",	      "gt",	"ge",	 "eq",
	"to f32", "from f32", "from i32", "from u32", "to i32", "to u32"
};

/* The operation on this machine's hardware, on C doubles. */
static uint64_t native(int op, uint64_t ua, uint64_t ub, uint64_t uc)
{
	double a = weft_u64_as_f64(ua), b = weft_u64_as_f64(ub);

	switch (op) {
	case D64_ADD: return weft_f64_as_u64(a + b);
	case D64_SUB: return weft_f64_as_u64(a - b);
	case D64_MUL: return weft_f64_as_u64(a * b);
	case D64_DIV: return weft_f64_as_u64(a / b);
	case D64_FMA: return weft_f64_as_u64(fma(a, b, weft_u64_as_f64(uc)));
	case D64_SQRT: return weft_f64_as_u64(sqrt(a));
	case D64_NEG: return weft_f64_as_u64(-a);
	case D64_ABS: return weft_f64_as_u64(fabs(a));
	case D64_COPYSIGN: return weft_f64_as_u64(copysign(a, b));
	case D64_LT: return a < b;
	case D64_LE: return a <= b;
	case D64_GT: return a > b;
	case D64_GE: return a >= b;
	case D64_EQ: return a == b;
	case D64_TO_F32: return weft_f32_as_u32((float)a);
	case D64_FROM_F32:
		return weft_f64_as_u64((double)weft_u32_as_f32((uint32_t)ua));
	case D64_FROM_I32:
		return weft_f64_as_u64((double)(int32_t)(uint32_t)ua);
	case D64_FROM_U32: return weft_f64_as_u64((double)(uint32_t)ua);
	case D64_TO_I32: return (uint32_t)(int32_t)a;
	default: return (uint32_t)a;
	}
}

/* The operation as weft/softf64.h computes it. */
static uint64_t soft(int op, uint64_t a, uint64_t b, uint64_t c)
{
	switch (op) {
	case D64_ADD: return weft_sf64_add(a, b);
	case D64_SUB: return weft_sf64_sub(a, b);
	case D64_MUL: return weft_sf64_mul(a, b);
	case D64_DIV: return weft_sf64_div(a, b);
	case D64_FMA: return weft_sf64_fma(a, b, c);
	case D64_SQRT: return weft_sf64_sqrt(a);
	case D64_NEG: return weft_sf64_neg(a);
	case D64_ABS: return weft_sf64_abs(a);
	case D64_COPYSIGN: return (a & ~SIGN) | (b & SIGN);
	case D64_LT: return (uint64_t)weft_sf64_lt(a, b);
	case D64_LE: return (uint64_t)weft_sf64_le(a, b);
	case D64_GT: return (uint64_t)weft_sf64_lt(b, a);
	case D64_GE: return (uint64_t)weft_sf64_le(b, a);
	case D64_EQ: return (uint64_t)weft_sf64_eq(a, b);
	case D64_TO_F32: return weft_sf64_to_f32_bits(a);
	case D64_FROM_F32: return weft_sf64_from_f32_bits((uint32_t)a);
	case D64_FROM_I32: return weft_sf64_from_i32((int32_t)(uint32_t)a);
	case D64_FROM_U32: return weft_sf64_from_u32((uint32_t)a);
	case D64_TO_I32: return (uint32_t)weft_sf64_to_i32(a);
	default: return weft_sf64_to_u32(a);
	}
}

/* The operation through weft/double.h's software path (d64_soft_op). */
#define D64_OP_FN d64_soft_op
#include "double-op.h"

static int is_nan_result(int op, uint64_t r)
{
	if (op == D64_TO_F32)
		return (r & 0x7fffffffu) > 0x7f800000u;
	return (r & ~SIGN) > INF;
}

/* Conversions to integers are defined when the truncated value fits,
 * conversions from f32 take a float's bits: operands made to suit. */
static void suit(int op, uint64_t *a)
{
	double d = weft_u64_as_f64(*a), lo, hi;

	if (op == D64_FROM_F32 || op == D64_FROM_I32 || op == D64_FROM_U32)
		*a &= 0xffffffffu;
	if (op != D64_TO_I32 && op != D64_TO_U32)
		return;
	lo = op == D64_TO_I32 ? -2147483649.0 : -1.0; /* exclusive */
	hi = op == D64_TO_I32 ? 2147483648.0 : 4294967296.0;
	if (!(d > lo && d < hi)) /* NaN included */
		*a = weft_f64_as_u64(
			lo + 1 +
			(hi - lo - 1) *
				ldexp((double)(tap_rnd64() >> 11), -53));
}

typedef uint64_t (*op_fn)(int op, uint64_t a, uint64_t b, uint64_t c);

/* How many of the operands (the specials' combinations, then n random
 * sets) give a result other than the hardware's under f. */
static long count_bad(op_fn f, const char *what, int op, long n)
{
	long bad = 0;

	for (long i = 0; i < (long)(N_SPECIALS * N_SPECIALS * N_SPECIALS) + n;
	     i++) {
		uint64_t a, b, c, got, want;

		if (i < (long)(N_SPECIALS * N_SPECIALS * N_SPECIALS)) {
			a = specials[i % N_SPECIALS];
			b = specials[i / N_SPECIALS % N_SPECIALS];
			c = specials[i / N_SPECIALS / N_SPECIALS];
		} else {
			a = operand(tap_rnd64());
			b = operand(a);
			c = operand(a);
		}
		suit(op, &a);
		got = f(op, a, b, c);
		want = native(op, a, b, c);
		if (got == want ||
		    (is_nan_result(op, got) && is_nan_result(op, want)))
			continue;
		if (bad++ < 3)
			tap_diag("%s %s(%016llx, %016llx, %016llx): got "
				 "%016llx, want %016llx",
				 what, op_names[op], (unsigned long long)a,
				 (unsigned long long)b, (unsigned long long)c,
				 (unsigned long long)got,
				 (unsigned long long)want);
	}
	return bad;
}

int main(void)
{
	long n_soft = 2000000, n_d64 = 200000;

	for (int op = 0; op < D64_N_OPS; op++) {
		long bad = count_bad(soft, "weft_sf64", op, n_soft);

		tap_ok(bad == 0,
		       "weft_sf64 %s: %zu special combinations and %ld random "
		       "operand sets bit for bit as the FPU (%ld differ)",
		       op_names[op], N_SPECIALS * N_SPECIALS * N_SPECIALS,
		       n_soft, bad);
	}
	for (int op = 0; op < D64_N_OPS; op++) {
		long bad_s = count_bad(d64_soft_op, "soft weft_d64", op, n_d64);
		long bad_h =
			count_bad(d64_hw_op, "hardware weft_d64", op, n_d64);

		tap_ok(bad_s == 0 && bad_h == 0,
		       "weft_d64 %s, software and hardware paths: as the FPU "
		       "(%ld and %ld differ)",
		       op_names[op], bad_s, bad_h);
	}
	return tap_done();
}
