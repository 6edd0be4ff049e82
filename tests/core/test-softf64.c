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
#include "tap.h"

#if WEFT_D64_HARDWARE
#error "WEFT_D64_SOFT must select weft/double.h's software path"
#endif

static uint64_t bits(double d)
{
	uint64_t u;

	memcpy(&u, &d, 8);
	return u;
}

static double dbl(uint64_t u)
{
	double d;

	memcpy(&d, &u, 8);
	return d;
}

static uint32_t fbits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static float flt(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

/* xorshift64*: reproducible operands. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

#define SIGN WEFT_SF64_SIGN
#define FRAC WEFT_SF64_FRAC
#define INF  WEFT_SF64_INF

/* An operand: any bit pattern, or one of the kinds that exercise the
 * corners (exponents near each other, subnormals, zeros, infinities,
 * values near the overflow and underflow thresholds). */
static uint64_t operand(uint64_t near)
{
	uint64_t r = rnd(), sign = rnd() & SIGN;

	switch (r % 8) {
	case 0: return rnd();
	case 1: /* same exponent as `near`, give or take one */
		return (near & ~FRAC) + ((rnd() % 3) << 52) - (1ull << 52) +
		       (rnd() & FRAC);
	case 2: return sign | (rnd() & FRAC); /* subnormal */
	case 3: return sign | ((rnd() % 2) ? INF : 0);
	case 4: /* near 1 */
		return sign | ((1020 + rnd() % 7) << 52) | (rnd() & FRAC);
	case 5: /* huge or tiny */
		return sign |
		       (((rnd() % 2) ? 2000 + rnd() % 46 : rnd() % 60) << 52) |
		       (rnd() & FRAC);
	case 6: /* a few bits only: exact results and ties */
		return sign | ((1000 + rnd() % 50) << 52) |
		       (rnd() & 0x000ff00000000000ull);
	default: return near ^ (rnd() & 0xffull); /* cancellation */
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
	double a = dbl(ua), b = dbl(ub);

	switch (op) {
	case D64_ADD: return bits(a + b);
	case D64_SUB: return bits(a - b);
	case D64_MUL: return bits(a * b);
	case D64_DIV: return bits(a / b);
	case D64_FMA: return bits(fma(a, b, dbl(uc)));
	case D64_SQRT: return bits(sqrt(a));
	case D64_NEG: return bits(-a);
	case D64_ABS: return bits(fabs(a));
	case D64_COPYSIGN: return bits(copysign(a, b));
	case D64_LT: return a < b;
	case D64_LE: return a <= b;
	case D64_GT: return a > b;
	case D64_GE: return a >= b;
	case D64_EQ: return a == b;
	case D64_TO_F32: return fbits((float)a);
	case D64_FROM_F32: return bits((double)flt((uint32_t)ua));
	case D64_FROM_I32: return bits((double)(int32_t)(uint32_t)ua);
	case D64_FROM_U32: return bits((double)(uint32_t)ua);
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

/* The operation through weft/double.h's software path. */
static uint64_t d64_soft_op(int op, uint64_t ua, uint64_t ub, uint64_t uc)
{
	weft_d64 a = weft_d64_from_bits(ua), b = weft_d64_from_bits(ub);
	weft_d64 c = weft_d64_from_bits(uc), r;

	switch (op) {
	case D64_ADD: r = weft_d64_add(a, b); break;
	case D64_SUB: r = weft_d64_sub(a, b); break;
	case D64_MUL: r = weft_d64_mul(a, b); break;
	case D64_DIV: r = weft_d64_div(a, b); break;
	case D64_FMA: r = weft_d64_fma(a, b, c); break;
	case D64_SQRT: r = weft_d64_sqrt(a); break;
	case D64_NEG: r = weft_d64_neg(a); break;
	case D64_ABS: r = weft_d64_abs(a); break;
	case D64_COPYSIGN: r = weft_d64_copysign(a, b); break;
	case D64_FROM_F32:
		r = weft_d64_from_f32(weft_u32_as_f32((weft_u32)ua));
		break;
	case D64_FROM_I32: r = weft_d64_from_i32((weft_i32)(weft_u32)ua); break;
	case D64_FROM_U32: r = weft_d64_from_u32((weft_u32)ua); break;
	case D64_LT: return (uint64_t)weft_d64_lt(a, b);
	case D64_LE: return (uint64_t)weft_d64_le(a, b);
	case D64_GT: return (uint64_t)weft_d64_gt(a, b);
	case D64_GE: return (uint64_t)weft_d64_ge(a, b);
	case D64_EQ: return (uint64_t)weft_d64_eq(a, b);
	case D64_TO_F32: return weft_f32_as_u32(weft_d64_to_f32(a));
	case D64_TO_I32: return (weft_u32)weft_d64_to_i32(a);
	case D64_TO_U32: return weft_d64_to_u32(a);
	default: return 0;
	}
	return weft_d64_bits(r);
}

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
	double d = dbl(*a), lo, hi;

	if (op == D64_FROM_F32 || op == D64_FROM_I32 || op == D64_FROM_U32)
		*a &= 0xffffffffu;
	if (op != D64_TO_I32 && op != D64_TO_U32)
		return;
	lo = op == D64_TO_I32 ? -2147483649.0 : -1.0; /* exclusive */
	hi = op == D64_TO_I32 ? 2147483648.0 : 4294967296.0;
	if (!(d > lo && d < hi)) /* NaN included */
		*a = bits(lo + 1 +
			  (hi - lo - 1) * ldexp((double)(rnd() >> 11), -53));
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
			a = operand(rnd());
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
