/*
 * tests/core/test-math-accuracy.c - weft/math.h (host build) against MPFR:
 * every function, f64 and f32, on random arguments (uniform over a useful
 * range, and uniform over bit patterns) and on special and hard cases.
 * For each function it reports the largest error in ulps, the argument
 * where it happens and how many results are not correctly rounded; it
 * fails when an f64 function is off by more than 1 ulp (docs/math.md),
 * an f32 one by more than half an ulp
 * (plus the double rounding of an f64 result), or when a special case
 * (NaN, infinities, signed zeros) differs from C's.
 *
 *   test-math-accuracy [--n N] [--seed S] [--only NAME,NAME...]
 *
 * N random arguments per function (default 10000, what make check runs;
 * docs/math.md's table comes from --n 10000000). The correctly rounded
 * weft_sin_cr, weft_cos_cr and weft_sincos_cr (--only cr) must give MPFR's
 * correctly rounded result on every argument below 2^20 tried, and hard
 * cases computed with mpmath. weft_sincosf_simd (--only simd), f32
 * arithmetic alone, is checked on a dense sample against its documented
 * bounds.
 */
#include <weft/kernel_host.h>
#include <weft/math.h>

#include <math.h>
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

/* Reference precision: far beyond binary64, so that the reference's own
 * rounding never matters at the ulp level. */
#define REF_PREC 160

/* An f32 result may be off by half an ulp plus the f64 result's error
 * carried through the second rounding (a few 2^-29 ulps). */
#define F32_BOUND (0.5 + 0x1p-20)

typedef int (*mpfr_fn1)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);
typedef int (*mpfr_fn2)(mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t);

struct fn {
	const char *name;
	int nargs;
	double (*d1)(double);
	double (*d2)(double, double);
	float (*f1)(float);
	float (*f2)(float, float);
	mpfr_fn1 m1;
	mpfr_fn2 m2;
	double lo, hi;	   /* range of the uniform f64 draws (x and y) */
	double flo, fhi;   /* the same for f32 */
	double bound;	   /* f64 error bound, ulps */
	int nan_canonical; /* 1: NaN results must be the one quiet NaN */
};

/* ---- the library's functions as function pointers ------------------ */

#define W1(n)                          \
	static double d_##n(double x)  \
	{                              \
		return weft_##n(x);    \
	}                              \
	static float f_##n(float x)    \
	{                              \
		return weft_##n##f(x); \
	}
#define W2(n)                                   \
	static double d_##n(double x, double y) \
	{                                       \
		return weft_##n(x, y);          \
	}                                       \
	static float f_##n(float x, float y)    \
	{                                       \
		return weft_##n##f(x, y);       \
	}

W1(floor)
W1(ceil)
W1(trunc)
W1(round)
W1(fabs)
W2(fmin)
W2(fmax)
W2(copysign)
W1(sqrt)
W2(hypot)
W1(sin)
W1(cos)
W1(tan)
W1(asin)
W1(acos)
W1(atan)
W2(atan2)
W1(exp)
W1(exp2)
W1(expm1)
W1(log)
W1(log2)
W1(log1p)
W2(pow)
W1(tanh)

/* weft_sincos's sine (part s) and cosine (part c), each a function of its
 * own in each precision, as the table below wants them. */
#define WSINCOS(part)                           \
	static double d_sincos_##part(double x) \
	{                                       \
		double s, c;                    \
		weft_sincos(x, &s, &c);         \
		return part;                    \
	}                                       \
	static float f_sincos_##part(float x)   \
	{                                       \
		float s, c;                     \
		weft_sincosf(x, &s, &c);        \
		return part;                    \
	}

WSINCOS(s)
WSINCOS(c)

/* MPFR's functions with the signature of the rest. */
static int m_floor(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd)
{
	return mpfr_rint_floor(r, x, rnd);
}

static int m_ceil(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd)
{
	return mpfr_rint_ceil(r, x, rnd);
}

static int m_trunc(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd)
{
	return mpfr_rint_trunc(r, x, rnd);
}

static int m_round(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd)
{
	return mpfr_rint_round(r, x, rnd);
}

static int m_abs(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd)
{
	return mpfr_abs(r, x, rnd);
}

static int m_copysign(mpfr_ptr r, mpfr_srcptr x, mpfr_srcptr y, mpfr_rnd_t rnd)
{
	return mpfr_copysign(r, x, y, rnd);
}

#define R1(n, m, lo, hi, flo, fhi, b)                                          \
	{                                                                      \
#n, 1, d_##n, NULL, f_##n, NULL, m, NULL, lo, hi, flo, fhi, b, \
			1                                                      \
	}
#define R2(n, m, lo, hi, flo, fhi, b)                                          \
	{                                                                      \
#n, 2, NULL, d_##n, NULL, f_##n, NULL, m, lo, hi, flo, fhi, b, \
			1                                                      \
	}

static const struct fn fns[] = {
	R1(floor, m_floor, -1e6, 1e6, -1e6, 1e6, 0),
	R1(ceil, m_ceil, -1e6, 1e6, -1e6, 1e6, 0),
	R1(trunc, m_trunc, -1e6, 1e6, -1e6, 1e6, 0),
	R1(round, m_round, -1e6, 1e6, -1e6, 1e6, 0),
	{ "fabs", 1, d_fabs, NULL, f_fabs, NULL, m_abs, NULL, -1e3, 1e3, -1e3,
	  1e3, 0, 0 },
	R2(fmin, mpfr_min, -10, 10, -10, 10, 0),
	R2(fmax, mpfr_max, -10, 10, -10, 10, 0),
	{ "copysign", 2, NULL, d_copysign, NULL, f_copysign, NULL, m_copysign,
	  -10, 10, -10, 10, 0, 0 },
	R1(sqrt, mpfr_sqrt, 0, 1e3, 0, 1e3, 0.5),
	R2(hypot, mpfr_hypot, -1e3, 1e3, -1e3, 1e3, 1),
	R1(sin, mpfr_sin, -30, 30, -30, 30, 1),
	R1(cos, mpfr_cos, -30, 30, -30, 30, 1),
	R1(tan, mpfr_tan, -30, 30, -30, 30, 1),
	{ "sincos.sin", 1, d_sincos_s, NULL, f_sincos_s, NULL, mpfr_sin, NULL,
	  -30, 30, -30, 30, 1, 1 },
	{ "sincos.cos", 1, d_sincos_c, NULL, f_sincos_c, NULL, mpfr_cos, NULL,
	  -30, 30, -30, 30, 1, 1 },
	R1(asin, mpfr_asin, -1, 1, -1, 1, 1),
	R1(acos, mpfr_acos, -1, 1, -1, 1, 1),
	R1(atan, mpfr_atan, -10, 10, -10, 10, 1),
	R2(atan2, mpfr_atan2, -10, 10, -10, 10, 1),
	R1(exp, mpfr_exp, -745, 710, -104, 89, 1),
	R1(exp2, mpfr_exp2, -1075, 1024, -150, 128, 1),
	R1(expm1, mpfr_expm1, -40, 710, -20, 89, 1),
	R1(log, mpfr_log, 0, 10, 0, 10, 1),
	R1(log2, mpfr_log2, 0, 10, 0, 10, 1),
	R1(log1p, mpfr_log1p, -1, 10, -1, 10, 1),
	R2(pow, mpfr_pow, 0, 10, 0, 10, 1),
	R1(tanh, mpfr_tanh, -20, 20, -10, 10, 1),
};

/* ---- random draws (splitmix64) ------------------------------------- */

static uint64_t rng_state;

static uint64_t rnd64(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double uniform(double lo, double hi)
{
	return lo + (hi - lo) * ((double)(rnd64() >> 11) * 0x1p-53);
}

static double bits_f64(void)
{
	uint64_t u = rnd64();
	double x;

	memcpy(&x, &u, sizeof x);
	return x;
}

static float bits_f32(void)
{
	uint32_t u = (uint32_t)(rnd64() >> 32);
	float x;

	memcpy(&x, &u, sizeof x);
	return x;
}

/* ---- errors against the reference --------------------------------- */

/* One precision's bookkeeping for one function. */
struct stat {
	double max_ulp;
	double arg_x, arg_y, got, want;
	long wrong_rounding;
	long samples;
	long special_fail;
};

struct fmt {
	int prec; /* significand bits: 53 or 24 */
	int emin; /* exponent of the smallest normal */
	int f32;  /* 1: results are floats */
};

static const struct fmt F64 = { 53, -1022, 0 };
static const struct fmt F32 = { 24, -126, 1 };

static uint64_t bits_of(double y, const struct fmt *f)
{
	uint64_t u;

	if (f->f32) {
		float g = (float)y;
		uint32_t v;

		memcpy(&v, &g, sizeof v);
		return v;
	}
	memcpy(&u, &y, sizeof u);
	return u;
}

/* The reference rounded to the format, as a double. */
static double rounded(mpfr_srcptr ref, const struct fmt *f)
{
	return f->f32 ? (double)mpfr_get_flt(ref, MPFR_RNDN)
		      : mpfr_get_d(ref, MPFR_RNDN);
}

/* |y - ref| in ulps of ref in the format (the ulp of a subnormal is that
 * of the smallest normal); y's special values must match the rounded
 * reference's exactly: *special is set when they do not. */
static double ulp_error(double y, mpfr_srcptr ref, const struct fmt *f,
			mpfr_ptr tmp, int nan_canonical, int *special)
{
	double want = rounded(ref, f);
	mpfr_exp_t e;

	*special = 0;
	if (mpfr_nan_p(ref)) {
		if (!isnan(y))
			*special = 1;
		else if (nan_canonical &&
			 bits_of(y, f) !=
				 (f->f32 ? 0x7fc00000u : 0x7ff8000000000000ULL))
			*special = 1;
		return *special ? INFINITY : 0;
	}
	if (isnan(y)) {
		*special = 1;
		return INFINITY;
	}
	if (isinf(want) || want == 0) {
		/* infinities and zeros (overflow, underflow, exact) */
		if (bits_of(y, f) == bits_of(want, f))
			return 0;
		if (mpfr_inf_p(ref) || mpfr_zero_p(ref) || isinf(y) ||
		    signbit(y) != signbit(want)) {
			*special = 1;
			return INFINITY;
		}
	}
	if (isinf(y)) {
		*special = 1;
		return INFINITY;
	}
	mpfr_set_d(tmp, y, MPFR_RNDN);
	mpfr_sub(tmp, tmp, ref, MPFR_RNDN);
	mpfr_abs(tmp, tmp, MPFR_RNDN);
	e = mpfr_inf_p(ref) ? (f->f32 ? 128 : 1024) : mpfr_get_exp(ref);
	if (e - 1 < f->emin)
		e = f->emin + 1;
	mpfr_mul_2si(tmp, tmp, -(long)(e - f->prec), MPFR_RNDN);
	return mpfr_get_d(tmp, MPFR_RNDN);
}

static int is_rounded_right(double y, mpfr_srcptr ref, const struct fmt *f)
{
	double want = rounded(ref, f);

	if (isnan(want))
		return isnan(y);
	return bits_of(y, f) == bits_of(want, f);
}

/* Evaluate one function once at (x, y) in one format and record it. */
static void sample(const struct fn *fn, const struct fmt *f, double x, double y,
		   mpfr_ptr mx, mpfr_ptr my, mpfr_ptr ref, mpfr_ptr tmp,
		   struct stat *st)
{
	double got;
	double err;
	int special;

	if (f->f32) {
		float fx = (float)x, fy = (float)y;

		x = fx;
		y = fy;
		got = fn->nargs == 1 ? fn->f1(fx) : fn->f2(fx, fy);
	} else {
		got = fn->nargs == 1 ? fn->d1(x) : fn->d2(x, y);
	}
	mpfr_set_d(mx, x, MPFR_RNDN);
	mpfr_set_d(my, y, MPFR_RNDN);
	if (fn->m2 == m_copysign) /* MPFR's NaN has no sign of its own */
		mpfr_set_d(ref, copysign(x, y), MPFR_RNDN);
	else if (fn->nargs == 1)
		fn->m1(ref, mx, MPFR_RNDN);
	else
		fn->m2(ref, mx, my, MPFR_RNDN);
	err = ulp_error(got, ref, f, tmp, fn->nan_canonical, &special);
	st->samples++;
	if (!is_rounded_right(got, ref, f))
		st->wrong_rounding++;
	if (special && st->special_fail++ < 3)
		tap_diag("%s%s(%a, %a) = %a, want %a", fn->name,
			 f->f32 ? "f" : "", x, y, got, rounded(ref, f));
	if (err > st->max_ulp || (special && st->max_ulp != INFINITY)) {
		st->max_ulp = err;
		st->arg_x = x;
		st->arg_y = y;
		st->got = got;
		st->want = rounded(ref, f);
	}
}

/* Special and hard arguments: zeros, subnormals, infinities, NaN, range
 * reduction's hard cases, halfway cases of the rounding functions. */
static const double hard[] = {
	0.0,
	-0.0,
	0x1p-1074,
	-0x1p-1074,
	0x0.fffffffffffffp-1022,
	0x1p-1022,
	-0x1p-1022,
	0x1p-149,
	0x1p-126,
	1e-300,
	1e-30,
	0x1p-27,
	0x1p-54,
	0.25,
	0.5,
	-0.5,
	0.75,
	1.0,
	-1.0,
	1.5,
	2.5,
	-2.5,
	2.0,
	3.0,
	-3.0,
	0x1.fffffffffffffp-1,
	0x1.0000000000001p0,
	0.9999999,
	1.0000001,
	10.0,
	22.0,
	-22.0,
	0x1.921fb54442d18p0,
	-0x1.921fb54442d18p0,
	0x1.921fb54442d18p1,
	0x1.2d97c7f3321d2p2,
	0x1.921fb54442d18p2,
	0x1.921fb54442d18p3,
	0x1.921fb6p0,
	0x1.921fb6p1,
	355.0,
	1e6,
	0x1p52,
	0x1.8p52,
	0x1p52 + 0.5,
	4503599627370495.5,
	0x1p53,
	16777215.5,
	8388608.5,
	1e22,
	-1e22,
	0x1.6a09e667f3bcdp499,
	1e300,
	0x1.fffffffffffffp1023,
	-0x1.fffffffffffffp1023,
	0x1.fffffep127,
	88.72283935546875,
	-103.97208404541016,
	709.782712893384,
	709.79,
	-745.1332191019411,
	-745.2,
	1023.99,
	1024.0,
	-1074.5,
	-1075.0,
	-1076.0,
	INFINITY,
	-INFINITY,
	NAN,
};

#define NHARD (sizeof hard / sizeof hard[0])

static int report(const struct fn *fn, const struct fmt *f,
		  const struct stat *st)
{
	double bound = f->f32 ? (fn->bound > 0 ? F32_BOUND : 0) : fn->bound;
	int ok = st->max_ulp <= bound && st->special_fail == 0;

	char at[80];

	if (fn->nargs == 2)
		snprintf(at, sizeof at, "(%a, %a)", st->arg_x, st->arg_y);
	else
		snprintf(at, sizeof at, "(%a)", st->arg_x);
	tap_ok(ok,
	       "%s%s: max %.9g ulp (bound %.9g) at %s, got %a want %a; %ld of "
	       "%ld not correctly rounded; %ld special cases wrong",
	       fn->name, f->f32 ? "f" : "", st->max_ulp, bound, at, st->got,
	       st->want, st->wrong_rounding, st->samples, st->special_fail);
	return ok;
}

static void run_fn(const struct fn *fn, const struct fmt *f, long n,
		   mpfr_ptr mx, mpfr_ptr my, mpfr_ptr ref, mpfr_ptr tmp)
{
	struct stat st = { 0 };
	double lo = f->f32 ? fn->flo : fn->lo;
	double hi = f->f32 ? fn->fhi : fn->hi;
	size_t i, j;
	long k;

	for (i = 0; i < NHARD; i++) {
		if (fn->nargs == 1) {
			sample(fn, f, hard[i], 0, mx, my, ref, tmp, &st);
			continue;
		}
		for (j = 0; j < NHARD; j++)
			sample(fn, f, hard[i], hard[j], mx, my, ref, tmp, &st);
	}
	for (k = 0; k < n; k++) {
		double x, y;

		if (k & 1) { /* uniform over bit patterns */
			x = f->f32 ? bits_f32() : bits_f64();
			y = f->f32 ? bits_f32() : bits_f64();
		} else { /* uniform over the useful range */
			x = uniform(lo, hi);
			y = uniform(lo, hi);
			/* pow: negative bases with integer exponents too */
			if (fn->nargs == 2 && fn->m2 == mpfr_pow && (k & 2)) {
				x = -x;
				y = (double)(long)(y * 3);
			}
		}
		sample(fn, f, x, y, mx, my, ref, tmp, &st);
	}
	report(fn, f, &st);
	fflush(stdout);
}

/* weft_clamp and weft_clampf (not an MPFR function): bounds, inside,
 * signed zeros and NaN. */
static void check_clamp(void)
{
	int ok = weft_clamp(-3.0, -1.0, 2.0) == -1.0 &&
		 weft_clamp(5.0, -1.0, 2.0) == 2.0 &&
		 weft_clamp(0.25, -1.0, 2.0) == 0.25 &&
		 signbit(weft_clamp(-0.0, 0.0, 1.0)) &&
		 bits_of(weft_clamp(NAN, 0.0, 1.0), &F64) ==
			 0x7ff8000000000000ULL &&
		 weft_clampf(-3.0f, -1.0f, 2.0f) == -1.0f &&
		 weft_clampf(5.0f, -1.0f, 2.0f) == 2.0f &&
		 weft_clampf(0.25f, -1.0f, 2.0f) == 0.25f &&
		 bits_of(weft_clampf(NAN, 0.0f, 1.0f), &F32) == 0x7fc00000u;

	tap_ok(ok, "clamp, clampf: below, above, inside, -0, NaN");
}

/* ---- weft_sin_cr, weft_cos_cr, weft_sincos_cr ------------------------ */

/* Hard cases and their correctly rounded sin and cos, computed with mpmath
 * at 300 bits: x, sin x, cos x. */
static const struct cr_case {
	double x, s, c;
} cr_cases[] = {
	/* nearest double to a multiple of pi/2 below 2^20 (the nearest of all)
	 */
	{ 0x1.39c6fd67805a7p+18, -0x1.0000000000000p+0,
	  -0x1.988efe18ff83fp-55 },
	{ -0x1.39c6fd67805a7p+18, 0x1.0000000000000p+0,
	  -0x1.988efe18ff83fp-55 },
	{ 0x1.39c6fd67805a7p+19, 0x1.988efe18ff83fp-54, -0x1.0000000000000p+0 },
	{ 0x1.a9adcc7f96cf0p+19, -0x1.0000000000000p+0,
	  -0x1.d2a4f27e8c119p-52 },
	/* the double nearest 7 pi/2 */
	{ 0x1.5fdbbe9bba775p+3, -0x1.0000000000000p+0, -0x1.ee2c2d963a10cp-52 },
	/* pi/2 */
	{ 0x1.921fb54442d18p+0, 0x1.0000000000000p+0, 0x1.1a62633145c07p-54 },
	/* pi */
	{ 0x1.921fb54442d18p+1, 0x1.1a62633145c07p-53, -0x1.0000000000000p+0 },
	/* 3 pi/4, 1000001 pi/4 */
	{ 0x1.2d97c7f3321d2p+1, 0x1.6a09e667f3bcdp-1, -0x1.6a09e667f3bccp-1 },
	{ 0x1.7f7ede5c889d6p+19, 0x1.6a09e66822bf2p-1, 0x1.6a09e667c4ba7p-1 },
	/* where glibc misrounds */
	{ -0x1.6205df54a8bc0p-1, -0x1.467acc7ce3c7dp-1, 0x1.8a679636a196fp-1 },
	{ 0x1.e09a8e3d0010cp+1, -0x1.269e236163675p-1, -0x1.a2bdcf1a145f3p-1 },
	{ 0x1.64ab104465094p+1, 0x1.640cc44586e81p-2, -0x1.e00da1c59f1b5p-1 },
	{ -0x1.1b70890c9b37ep+2, 0x1.eb8a93d336371p-1, -0x1.1e92e31ead5cbp-2 },
	{ 0x1.17ba17bb3afb8p+0, 0x1.c69633f5c2b41p-1, 0x1.d725aa547b4cfp-2 },
	/* where weft_sin and weft_cos misround */
	{ -0x1.5b7e0a3118b44p+2, 0x1.81e01bd47a4b2p-1, 0x1.5084876d0ca63p-1 },
	{ 0x1.69189533148d8p+2, -0x1.3232fc58ac65bp-1, 0x1.9a5945c276b6fp-1 },
	/* 2^-26 (the series), just below 2^20 (the reduction's last k) */
	{ 0x1.0000000000000p-26, 0x1.0000000000000p-26, 0x1.fffffffffffffp-1 },
	{ 0x1.fffffffffffffp+19, 0x1.526ccb2de52a8p-2, 0x1.e33ada9352c61p-1 },
};

#define N_CR_CASES (sizeof cr_cases / sizeof cr_cases[0])

/* 1 when weft_sin_cr, weft_cos_cr and weft_sincos_cr at x are MPFR's
 * correctly rounded sin and cos (r53: 53 bits). */
static int cr_right(double x, mpfr_ptr mx, mpfr_ptr r53)
{
	double s, c, ws, wc;

	weft_sincos_cr(x, &s, &c);
	mpfr_set_d(mx, x, MPFR_RNDN);
	mpfr_sin(r53, mx, MPFR_RNDN);
	ws = mpfr_get_d(r53, MPFR_RNDN);
	mpfr_cos(r53, mx, MPFR_RNDN);
	wc = mpfr_get_d(r53, MPFR_RNDN);
	return bits_of(weft_sin_cr(x), &F64) == bits_of(ws, &F64) &&
	       bits_of(weft_cos_cr(x), &F64) == bits_of(wc, &F64) &&
	       bits_of(s, &F64) == bits_of(ws, &F64) &&
	       bits_of(c, &F64) == bits_of(wc, &F64);
}

/* n arguments uniform in [-m, m], and n uniform over the bit patterns of
 * |x| < 2^20 (every magnitude, the tiny included): the count of those
 * whose results are not correctly rounded, the first of them in *at. */
static long cr_random(long n, double m, mpfr_ptr mx, mpfr_ptr r53, double *at)
{
	long bad = 0;

	for (long k = 0; k < n; k++) {
		double x = uniform(-m, m);

		if (k & 1) {
			uint64_t u = rnd64() % 0x4130000000000000ULL;

			memcpy(&x, &u, sizeof x);
			x = (rnd64() & 1) ? -x : x;
		}
		if (!cr_right(x, mx, r53) && bad++ == 0)
			*at = x;
	}
	return bad;
}

static void check_cr(long n, mpfr_ptr mx)
{
	mpfr_t r53;
	double at = 0, big = 0x1.8p40, s, c;
	int table = 1, special;
	long bad;

	mpfr_init2(r53, 53);
	for (size_t i = 0; i < N_CR_CASES; i++) {
		const struct cr_case *k = &cr_cases[i];
		double cs, cc;

		weft_sincos_cr(k->x, &cs, &cc);
		if (weft_sin_cr(k->x) == k->s && weft_cos_cr(k->x) == k->c &&
		    cs == k->s && cc == k->c && cr_right(k->x, mx, r53))
			continue;
		table = 0;
		tap_diag("sin_cr, cos_cr(%a) = %a, %a; want %a, %a", k->x,
			 weft_sin_cr(k->x), weft_cos_cr(k->x), k->s, k->c);
	}
	tap_ok(table,
	       "sin_cr, cos_cr, sincos_cr: %zu hard cases (nearest multiples "
	       "of pi/2, glibc's and musl's misroundings) correctly rounded",
	       N_CR_CASES);
	rng_state = 1;
	bad = cr_random(n, 8.0, mx, r53, &at);
	tap_ok(bad == 0,
	       "sin_cr, cos_cr, sincos_cr: %ld arguments in [-8, 8] or "
	       "below 2^20 in magnitude: %ld not correctly rounded (first at "
	       "%a)",
	       2 * (n / 2), bad, at);
	bad = cr_random(n, 0x1p20, mx, r53, &at);
	tap_ok(bad == 0,
	       "sin_cr, cos_cr, sincos_cr: %ld arguments in [-2^20, 2^20] "
	       "or below 2^20 in magnitude: %ld not correctly rounded (first "
	       "at %a)",
	       2 * (n / 2), bad, at);
	weft_sincos_cr(-0.0, &s, &c);
	special =
		signbit(weft_sin_cr(-0.0)) && signbit(s) && c == 1.0 &&
		weft_cos_cr(-0.0) == 1.0 &&
		weft_sin_cr(0x1p-1074) == 0x1p-1074 &&
		bits_of(weft_sin_cr(INFINITY), &F64) == 0x7ff8000000000000ULL &&
		bits_of(weft_cos_cr(-INFINITY), &F64) ==
			0x7ff8000000000000ULL &&
		bits_of(weft_sin_cr(NAN), &F64) == 0x7ff8000000000000ULL &&
		weft_sin_cr(0x1p20) == weft_sin(0x1p20) &&
		weft_cos_cr(-big) == weft_cos(-big) &&
		weft_sin_cr(1e300) == weft_sin(1e300);
	weft_sincos_cr(big, &s, &c);
	special = special && s == weft_sin(big) && c == weft_cos(big);
	tap_ok(special, "sin_cr, cos_cr, sincos_cr: -0, subnormal, inf and NaN "
			"(one NaN), weft_sin and weft_cos from 2^20 on");
	mpfr_clear(r53);
}

/* ---- weft_sincosf_simd: f32 arithmetic alone, not correctly rounded -- */

/* |f - e| in units in the last place of the f32 grid at e. */
static double simd_ulps(float f, double e)
{
	int ex;

	frexp(e, &ex);
	if (fabs(e) < 0x1p-126)
		return fabs((double)f - e) / 0x1p-149;
	return fabs((double)f - e) / ldexp(1.0, ex - 24);
}

typedef void sincosf_fn(float x, float *s, float *c);

/* The largest errors of `fn` (weft_sincosf_simd, weft_sincosf_fma)
 * against the C library's double sin and cos (within 1e-16 of the exact
 * values: far below an f32 ulp), over every `stride`-th f32 in
 * [-lim, lim]. */
static void simd_errors(sincosf_fn *fn, float lim, uint32_t stride, double *es,
			double *ec)
{
	*es = *ec = 0;
	for (uint32_t u = 0;; u += stride) {
		float x, y, sn, c;

		memcpy(&x, &u, sizeof x);
		if (!(x <= lim))
			break;
		for (int sg = 0; sg < 2; sg++) {
			y = sg ? -x : x;
			fn(y, &sn, &c);
			*es = fmax(*es, simd_ulps(sn, sin((double)y)));
			*ec = fmax(*ec, simd_ulps(c, cos((double)y)));
		}
	}
}

/* fn (called name) within b64 ulp of sin and cos for |x| <= 64 (every
 * 97th f32) and b6433 below 6434 (every 997th), and sin 0 = +0, cos 0 =
 * 1. The bounds are docs/math.md's for weft_sincosf_simd (1.53 and
 * 2.45); for weft_sincosf_fma those of this sample (1.48 and 1.45: on
 * every float, docs/math.md gives 1.49 and 1.53). */
static void check_sincos_fn(sincosf_fn *fn, const char *name, double b64,
			    double b6433)
{
	double es, ec, ws, wc;
	float s, c;

	simd_errors(fn, 64.0f, 97u, &es, &ec);
	simd_errors(fn, 6433.0f, 997u, &ws, &wc);
	tap_ok(es <= b64 && ec <= b64 && ws <= b6433 && wc <= b6433,
	       "%s: within %.2f ulp of sin and cos for |x| <= 64 (%.3f, %.3f "
	       "ulp), within %.2f for |x| <= 6433 (%.3f, %.3f)",
	       name, b64, es, ec, b6433, ws, wc);
	fn(0.0f, &s, &c);
	tap_ok(s == 0.0f && !signbit(s) && c == 1.0f,
	       "%s: sin 0 = +0, cos 0 = 1", name);
}

/* 1 when name is one of the comma-separated names in list. */
static int listed(const char *list, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = list; p; p = strchr(p, ',')) {
		if (*p == ',')
			p++;
		if (!strncmp(p, name, len) && (p[len] == ',' || !p[len]))
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long n = 10000;
	unsigned long long seed = 1;
	const char *only = NULL;
	mpfr_t mx, my, ref, tmp;
	size_t i;

	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--n") && a + 1 < argc)
			n = atol(argv[++a]);
		else if (!strcmp(argv[a], "--seed") && a + 1 < argc)
			seed = strtoull(argv[++a], NULL, 0);
		else if (!strcmp(argv[a], "--only") && a + 1 < argc)
			only = argv[++a];
		else
			tap_bail("usage: %s [--n N] [--seed S] [--only "
				 "NAME,...]",
				 argv[0]);
	}
	mpfr_inits2(REF_PREC, mx, my, ref, tmp, (mpfr_ptr)0);
	tap_diag("weft/math.h against MPFR %s at %d bits: %ld random arguments "
		 "per function (seed %llu) and %zu special ones",
		 mpfr_get_version(), REF_PREC, n, seed, NHARD);
	for (i = 0; i < sizeof fns / sizeof fns[0]; i++) {
		if (only && !listed(only, fns[i].name))
			continue;
		rng_state = seed;
		run_fn(&fns[i], &F64, n, mx, my, ref, tmp);
		rng_state = seed;
		run_fn(&fns[i], &F32, n, mx, my, ref, tmp);
	}
	if (!only)
		check_clamp();
	if (!only || listed(only, "cr"))
		check_cr(n, mx);
	if (!only || listed(only, "simd"))
		check_sincos_fn(weft_sincosf_simd, "sincosf_simd", 1.53, 2.45);
	if (!only || listed(only, "simd"))
		check_sincos_fn(weft_sincosf_fma, "sincosf_fma", 1.48, 1.45);
	mpfr_clears(mx, my, ref, tmp, (mpfr_ptr)0);
	mpfr_free_cache();
	return tap_done();
}
