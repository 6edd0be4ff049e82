/*
 * conform/math.c - conformance group math: every function of weft/math.h,
 * f64 and f32, run on the candidate (kernels cf_math_f64 and cf_math_f32
 * of conform/math.wk) on a few thousand arguments - uniform over several
 * ranges, uniform over bit patterns, huge ones for the trigonometric
 * functions' argument reduction, and zeros, subnormals, infinities and
 * NaN - and compared bit for bit with the host build of the same kernels:
 * the library promises the same bits on every backend, NaN included. The
 * group skips when the device has no hardware double (WEFT_CAP_F64), which
 * the library needs for f32 too.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "conform.h"
#include "rng.h"

/* Results per argument pair, in conform/math.wk's order. */
#define MT_N 28
/* Argument pairs. */
#define MT_ITEMS 6144u

static const char *const mt_names[MT_N] = {
	"floor", "ceil",  "trunc",	  "round",	  "fabs",  "fmin",
	"fmax",	 "clamp", "copysign",	  "sqrt",	  "hypot", "sin",
	"cos",	 "tan",	  "sincos (sin)", "sincos (cos)", "asin",  "acos",
	"atan",	 "atan2", "exp",	  "exp2",	  "expm1", "log",
	"log2",	 "log1p", "pow",	  "tanh",
};

/* Zeros, subnormals, infinities, NaN, integers and halves, multiples of
 * pi/2, overflow and underflow edges, huge arguments. */
static const double mt_special[] = {
	0.0,
	-0.0,
	0x1p-1074,
	-0x0.fffffffffffffp-1022,
	0x1p-1022,
	0x1p-149,
	0x1p-126,
	0.5,
	-0.5,
	1.0,
	-1.0,
	1.5,
	-2.5,
	2.0,
	3.0,
	-3.0,
	0x1.921fb54442d18p0,
	0x1.921fb54442d18p1,
	-0x1.2d97c7f3321d2p2,
	0x1.921fb54442d18p2,
	0x1.0000000000001p0,
	0x1.fffffffffffffp-1,
	88.72283935546875,
	-103.97208404541016,
	709.782712893384,
	-745.1332191019411,
	1024.0,
	-1075.0,
	0x1p52 + 0.5,
	16777215.5,
	1e22,
	-1e22,
	1e300,
	0x1.fffffffffffffp1023,
	0x1.fffffep127,
	INFINITY,
	-INFINITY,
	NAN,
	-NAN,
};

#define MT_NSPECIAL (sizeof mt_special / sizeof mt_special[0])

static double mt_uniform(uint64_t *s, double lo, double hi)
{
	return lo + (hi - lo) * ((double)(weft__ct_rng(s) >> 11) * 0x1p-53);
}

static double mt_of_bits(uint64_t u)
{
	double d;

	memcpy(&d, &u, sizeof d);
	return d;
}

/* Argument pair i: its kind by i % 8. bits32 = 1 gives f32 bit patterns
 * for the random-bits kind. */
static void mt_args(uint32_t i, uint64_t *s, double *x, double *y, int bits32)
{
	switch (i % 8) {
	case 0:
		*x = mt_uniform(s, -1, 1);
		*y = mt_uniform(s, -1, 1);
		break;
	case 1:
		*x = mt_uniform(s, -10, 10);
		*y = mt_uniform(s, -10, 10);
		break;
	case 2:
		*x = mt_uniform(s, -1000, 1000);
		*y = mt_uniform(s, -4, 4);
		break;
	case 3:
		*x = mt_uniform(s, -750, 750);
		*y = mt_uniform(s, 0, 100);
		break;
	case 4:
		if (bits32) {
			uint32_t a = (uint32_t)weft__ct_rng(s),
				 b = (uint32_t)weft__ct_rng(s);
			float fa, fb;

			memcpy(&fa, &a, 4);
			memcpy(&fb, &b, 4);
			*x = fa;
			*y = fb;
		} else {
			*x = mt_of_bits(weft__ct_rng(s));
			*y = mt_of_bits(weft__ct_rng(s));
		}
		break;
	case 5:
		*x = mt_special[(i / 8) % MT_NSPECIAL];
		*y = mt_special[(i / 8 / MT_NSPECIAL + i / 8) % MT_NSPECIAL];
		break;
	case 6: /* pow with integer exponents, negative bases */
		*x = mt_uniform(s, -4, 4);
		*y = (double)(int)mt_uniform(s, -12, 12);
		break;
	default: /* huge, for sin, cos and tan's argument reduction */
		*x = ldexp(mt_uniform(s, 1, 2), (int)mt_uniform(s, 20, 1023));
		if (weft__ct_rng(s) & 1)
			*x = -*x;
		*y = mt_uniform(s, -2, 2);
		break;
	}
}

/* 1 when the device has hardware double; 0 with the reason in why. */
static int mt_has_f64(weft__ct *t, char *why, size_t size)
{
	weft_device_caps c;

	if (t->vt->struct_size < WEFT_BACKEND_V1_5_SIZE || !t->vt->caps) {
		weft__ct_fmt(why, size,
			     "the backend has no caps() (backend ABI 1.5), so "
			     "no WEFT_CAP_F64");
		return 0;
	}
	memset(&c, 0, sizeof c);
	c.struct_size = sizeof c;
	if (t->vt->caps(t->dev, &c, &t->err) != WEFT_OK) {
		weft__ct_fmt(why, size, "caps() failed: %s", t->err.msg);
		return 0;
	}
	if (!(c.caps & WEFT_CAP_F64)) {
		weft__ct_fmt(
			why, size,
			"the device has no WEFT_CAP_F64 (hardware double)%s%s",
			c.detail[0] ? ": " : "", c.detail);
		return 0;
	}
	return 1;
}

/* Run kernel k on the candidate over n pairs of args (elem bytes each),
 * results into got (n * MT_N elements), and on its host build into
 * want. 0 on success. */
static int mt_run(weft__ct *t, uint32_t k, const void *xs, const void *ys,
		  size_t elem, uint32_t n, void *got, void *want)
{
	size_t in_bytes = (size_t)n * elem, out_bytes = in_bytes * MT_N;
	weft_buf *bx = weft__ct_alloc(t, in_bytes);
	weft_buf *by = bx ? weft__ct_alloc(t, in_bytes) : NULL;
	weft_buf *bo = by ? weft__ct_alloc(t, out_bytes) : NULL;
	weft_kargs ka;
	weft_launch l;
	int rc = -1;

	if (!bo)
		goto free_bufs;
	/* a pattern where no result is, so a missing one is seen */
	memset(got, 0xA5, out_bytes);
	if (weft__ct_write(t, bx, 0, xs, in_bytes, 0) ||
	    weft__ct_write(t, by, 0, ys, in_bytes, 0) ||
	    weft__ct_write(t, bo, 0, got, out_bytes, 0))
		goto free_bufs;
	memset(&l, 0, sizeof l);
	l.kernel = k;
	l.extent = n;
	l.n_bufs = 3;
	l.bufs[0] = bx;
	l.bufs[1] = by;
	l.bufs[2] = bo;
	if (weft__ct_step(t, &l, 1, 1) || weft__ct_sync(t) ||
	    weft__ct_read(t, got, bo, 0, out_bytes, 0))
		goto free_bufs;
	memset(&ka, 0, sizeof ka);
	ka.buf[0] = (void *)xs;
	ka.buf[1] = (void *)ys;
	ka.buf[2] = want;
	ka.extent = n;
	memset(want, 0xA5, out_bytes);
	cf_program.kernels[k].host_fn(&ka, 0, n);
	rc = 0;
free_bufs:
	weft__ct_free(t, bo);
	weft__ct_free(t, by);
	weft__ct_free(t, bx);
	return rc;
}

/* One test per function: the candidate's bits are the host build's. */
static void mt_compare(weft__ct *t, const char *prec, const void *xs,
		       const void *ys, size_t elem, uint32_t n, const void *got,
		       const void *want)
{
	for (uint32_t f = 0; f < MT_N; f++) {
		uint32_t bad = 0, first = 0;
		uint64_t g = 0, w = 0, x = 0, y = 0;

		weft__ct_begin(t,
			       "%s %s: %u arguments, bits as the host build's",
			       prec, mt_names[f], (unsigned)n);
		for (uint32_t i = 0; i < n; i++) {
			size_t at = ((size_t)i * MT_N + f) * elem;

			if (memcmp((const char *)got + at,
				   (const char *)want + at, elem) &&
			    !bad++)
				first = i;
		}
		if (bad) {
			size_t at = ((size_t)first * MT_N + f) * elem;

			memcpy(&g, (const char *)got + at, elem);
			memcpy(&w, (const char *)want + at, elem);
			memcpy(&x, (const char *)xs + (size_t)first * elem,
			       elem);
			memcpy(&y, (const char *)ys + (size_t)first * elem,
			       elem);
			weft__ct_expect(t, 0,
					"%u of %u results differ; first at "
					"x = 0x%0*llx, y = 0x%0*llx: 0x%0*llx, "
					"host 0x%0*llx",
					(unsigned)bad, (unsigned)n,
					(int)elem * 2, (unsigned long long)x,
					(int)elem * 2, (unsigned long long)y,
					(int)elem * 2, (unsigned long long)g,
					(int)elem * 2, (unsigned long long)w);
		}
		weft__ct_end(t);
	}
}

/* v at at: a double (elem 8) or rounded to float (elem 4). */
static void mt_store(unsigned char *at, double v, size_t elem)
{
	if (elem == 4) {
		float f = (float)v;

		memcpy(at, &f, 4);
	} else {
		memcpy(at, &v, 8);
	}
}

/* One precision's test: prec "f64" (elem 8, kernel cf_math_f64) or "f32"
 * (elem 4, cf_math_f32), MT_ITEMS argument pairs from seed s, rounded to
 * float for f32. */
static void mt_prec(weft__ct *t, const char *prec, uint32_t k, size_t elem,
		    uint64_t s)
{
	unsigned char *xs = weft__ct_xmalloc(t, MT_ITEMS * elem);
	unsigned char *ys = weft__ct_xmalloc(t, MT_ITEMS * elem);
	void *got = weft__ct_xmalloc(t, (size_t)MT_ITEMS * MT_N * elem);
	void *want = weft__ct_xmalloc(t, (size_t)MT_ITEMS * MT_N * elem);
	int ran = 0;

	weft__ct_begin(t, "%s: cf_math_%s runs on %u arguments", prec, prec,
		       (unsigned)MT_ITEMS);
	if (xs && ys && got && want) {
		for (uint32_t i = 0; i < MT_ITEMS; i++) {
			double x, y;

			mt_args(i, &s, &x, &y, elem == 4);
			mt_store(xs + i * elem, x, elem);
			mt_store(ys + i * elem, y, elem);
		}
		ran = !mt_run(t, k, xs, ys, elem, MT_ITEMS, got, want);
	}
	if (weft__ct_end_quiet(t) && ran)
		mt_compare(t, prec, xs, ys, elem, MT_ITEMS, got, want);
	free(xs);
	free(ys);
	free(got);
	free(want);
}

void weft__ct_group_math(weft__ct *t)
{
	char why[512];

	if (!mt_has_f64(t, why, sizeof why)) {
		weft__ct_begin(t, "f64 and f32 functions, bit for bit");
		weft__ct_skip(t, "%s", why);
		return;
	}
	mt_prec(t, "f64", CF_K_MATH_F64, 8, 64);
	mt_prec(t, "f32", CF_K_MATH_F32, 4, 32);
}
