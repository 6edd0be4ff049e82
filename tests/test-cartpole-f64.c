/*
 * tests/test-cartpole-f64.c - the integer binary64 arithmetic of
 * [cartpole] precision = f64 (models/cartpole/cartpole_f64.h), compiled
 * as the host build of the kernels is, against this machine's double
 * precision hardware: add, sub, mul, fma (C99 fma()), div, comparisons
 * and the float conversions, bit for bit, on random operands of every
 * kind (normal, subnormal, zero, infinite, close magnitudes that cancel,
 * results that overflow or underflow); and the sin and cos of the model
 * (cartpole_shared.h) against the C library's over CartPole's angles,
 * which Gymnasium calls through numpy.
 *
 * Built with -ffp-contract=off, so the hardware reference rounds each
 * operation on its own.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cartpole.h"
#include "tap.h"

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

/* xorshift64*: reproducible operands. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

/* An operand: any bit pattern, or one of the kinds that exercise the
 * corners (exponents near each other, subnormals, zeros, infinities,
 * values near the overflow and underflow thresholds). */
static uint64_t operand(uint64_t near)
{
	uint64_t r = rnd(), sign = rnd() & CP64_SIGN;

	switch (r % 8) {
	case 0: return rnd();
	case 1: /* same exponent as `near`, give or take one */
		return (near & ~CP64_FRAC) + ((rnd() % 3) << 52) -
		       (1ull << 52) + (rnd() & CP64_FRAC);
	case 2: return sign | (rnd() & CP64_FRAC); /* subnormal */
	case 3: return sign | ((rnd() % 2) ? CP64_INF : 0);
	case 4: /* near 1 */
		return sign | ((1020 + rnd() % 7) << 52) | (rnd() & CP64_FRAC);
	case 5: /* huge or tiny */
		return sign |
		       (((rnd() % 2) ? 2000 + rnd() % 46 : rnd() % 60) << 52) |
		       (rnd() & CP64_FRAC);
	case 6: /* a few bits only: exact results and ties */
		return sign | ((1000 + rnd() % 50) << 52) |
		       (rnd() & 0x000ff00000000000ull);
	default:
		return near ^
		       (rnd() & 0xffull); /* nearly equal: cancellation */
	}
}

/* NaN payloads differ between implementations; the model makes none. */
static int same(uint64_t got, uint64_t want)
{
	return got == want || (CP64_ISNAN(got) && CP64_ISNAN(want));
}

enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FMA, OP_LT, OP_F32, N_OPS };
static const char *const op_names[N_OPS] = { "add", "sub", "mul",     "div",
					     "fma", "lt",  "to float" };

static uint64_t soft(int op, uint64_t a, uint64_t b, uint64_t c)
{
	switch (op) {
	case OP_ADD: return cp64_add(a, b);
	case OP_SUB: return cp64_sub(a, b);
	case OP_MUL: return cp64_mul(a, b);
	case OP_DIV: return cp64_div(a, b);
	case OP_FMA: return cp64_fma(a, b, c);
	case OP_LT: return (uint64_t)cp64_lt(a, b);
	default: return cp64_to_f32_bits(a);
	}
}

static uint64_t hard(int op, uint64_t a, uint64_t b, uint64_t c)
{
	double x = dbl(a), y = dbl(b);

	switch (op) {
	case OP_ADD: return bits(x + y);
	case OP_SUB: return bits(x - y);
	case OP_MUL: return bits(x * y);
	case OP_DIV: return bits(x / y);
	case OP_FMA: return bits(fma(x, y, dbl(c)));
	case OP_LT: return (uint64_t)(x < y);
	default: return fbits((float)x);
	}
}

static void check_op(int op, long n)
{
	long bad = 0;

	for (long i = 0; i < n; i++) {
		uint64_t a = operand(rnd()), b = operand(a), c = operand(a);
		uint64_t got, want;

		if (op == OP_LT && (CP64_ISNAN(a) || CP64_ISNAN(b)))
			continue;
		got = soft(op, a, b, c);
		want = hard(op, a, b, c);
		if (op == OP_F32
			    ? got == want || ((got & 0x7fffffff) > 0x7f800000 &&
					      (want & 0x7fffffff) > 0x7f800000)
			    : same(got, want))
			continue;
		if (bad++ < 3)
			tap_diag("%s(%016llx, %016llx, %016llx): got %016llx, "
				 "want %016llx",
				 op_names[op], (unsigned long long)a,
				 (unsigned long long)b, (unsigned long long)c,
				 (unsigned long long)got,
				 (unsigned long long)want);
	}
	tap_ok(bad == 0,
	       "%s: %ld random operand sets bit for bit as the FPU "
	       "(%ld differ)",
	       op_names[op], n, bad);
}

static void check_conversions(void)
{
	long bad = 0;

	for (long i = 0; i < 1000000; i++) {
		uint32_t w = (uint32_t)rnd();
		int32_t k = (int32_t)rnd() >> (rnd() % 32);
		float f;

		memcpy(&f, &w, 4);
		if (!isnan(f) && cp64_from_f32_bits(w) != bits((double)f))
			bad++;
		if (cp64_from_i32(k) != bits((double)k))
			bad++;
	}
	tap_ok(bad == 0, "float and int32 to double: exact (%ld differ)", bad);
}

/* sin and cos over CartPole's angles (a step starts within 12 degrees)
 * and small magnitudes down to the C library's own shortcuts. */
static void check_trig(long n)
{
	const uint64_t *tab = weft__cartpole_trig_table;
	long bad_s = 0, bad_c = 0;

	if (!__builtin_cpu_supports("fma") || !__builtin_cpu_supports("avx2")) {
		tap_skip(1, "this CPU has no FMA: glibc computes sin and cos "
			    "with its other variant, which precision = f64 "
			    "does not reproduce (cartpole.md)");
		return;
	}

	for (long i = 0; i < n; i++) {
		double t =
			((double)(rnd() >> 11) / 9007199254740992.0 * 2 - 1) *
			0.2095;

		if (i % 4 == 0)
			t = ldexp(t, -(int)(rnd() % 40));
		if (cp64_sin(bits(t), tab) != bits(sin(t)) && bad_s++ < 3)
			tap_diag("sin(%a): got %a, want %a", t,
				 dbl(cp64_sin(bits(t), tab)), sin(t));
		if (cp64_cos(bits(t), tab) != bits(cos(t)) && bad_c++ < 3)
			tap_diag("cos(%a): got %a, want %a", t,
				 dbl(cp64_cos(bits(t), tab)), cos(t));
	}
	tap_ok(bad_s == 0 && bad_c == 0,
	       "sin and cos of %ld angles within 12 degrees: the C library's "
	       "bits (%ld and %ld differ)",
	       n, bad_s, bad_c);
}

/* precision = f64 starts episodes from the f32 model's states, exactly. */
static void check_reset(void)
{
	weft_u32 keys[CP_KEY_ARRAYS] = { 0x12345678u, 7u, 0u,
					 CP_PURPOSE_RESET };
	long bad = 0;

	for (weft_u32 e = 0; e < 100000; e++) {
		weft_rand4 r = cp_reset_draw(keys, 1, 0, e);
		cartpole_obs s = cp_reset_state(r);
		cartpole_obs64 d = cp64_reset_state(r);

		bad += d.x != bits(s.x) || d.x_dot != bits(s.x_dot) ||
		       d.theta != bits(s.theta) ||
		       d.theta_dot != bits(s.theta_dot);
	}
	tap_ok(bad == 0,
	       "f64 reset states equal the f32 ones (%ld of 100000 "
	       "differ)",
	       bad);
}

int main(void)
{
	for (int op = 0; op < N_OPS; op++)
		check_op(op, 2000000);
	check_conversions();
	check_trig(2000000);
	check_reset();
	return tap_done();
}
