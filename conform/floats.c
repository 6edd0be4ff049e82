/*
 * conform/floats.c - conformance group floats: f32 and f64 arithmetic
 * gives, bit for bit, what the host build of the same kernel gives
 * (weft/backend.h's WEFT_CAP_F32_EXACT and WEFT_CAP_F64;
 * docs/kernel-dialect.md, "Floats and doubles").
 *
 * The kernels (floats.wk) compute + - * /, square roots, conversions
 * between f32, f64 and integers, bit casts, a multiply-add that must not
 * be contracted and a product with a WEFT_CONST table, on pairs of
 * inputs: every pair of special values (signed zeros, subnormals, the
 * smallest and largest normals, infinities, NaNs, values next to integer
 * limits) and random bit patterns. The same kernels' host builds run here
 * on the same inputs; every output word must match, except that a NaN
 * matches any NaN (payloads are not specified). A device without
 * WEFT_CAP_SUBNORMAL is not compared where an input or the host's result
 * is subnormal. The f32 part is skipped, with the backend's reason, on a
 * device without WEFT_CAP_F32_EXACT, the f64 part on one without
 * WEFT_CAP_F64. A last test checks the atomics the kernel dialect added
 * with them: unsigned 32-bit maximum and minimum, and the 64-bit add where
 * the device has WEFT_CAP_ATOMIC64.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "conform.h"
#include "rng.h"

/* CF_F32_OUT and CF_F64_OUT of floats.wk. */
#define F32_OUT 12u
#define F64_OUT 14u

/* Output words of cf_f64_ops that are f32 bits or integers, not f64. */
#define F64_SLOT_F32 5u

static const uint32_t special32[] = {
	0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u, 0x007FFFFFu,
	0x00800000u, 0x80800000u, 0x7F7FFFFFu, 0xFF7FFFFFu, 0x7F800000u,
	0xFF800000u, 0x7FC00000u, 0xFFC00001u, 0x7F800001u, 0x3F800000u,
	0xBF800000u, 0x3F800001u, 0x4B800001u, 0x4F000000u, 0xCF000000u,
	0x4F800000u, 0x3DCCCCCDu, 0x3EAAAAABu, 0x40490FDBu, 0x00400000u,
	0x0BFFFFFFu, 0x7FFFFFFFu, 0xFFFFFFFFu,
};

static const uint64_t special64[] = {
	0x0000000000000000ull, 0x8000000000000000ull, 0x0000000000000001ull,
	0x8000000000000001ull, 0x000FFFFFFFFFFFFFull, 0x0010000000000000ull,
	0x8010000000000000ull, 0x7FEFFFFFFFFFFFFFull, 0xFFEFFFFFFFFFFFFFull,
	0x7FF0000000000000ull, 0xFFF0000000000000ull, 0x7FF8000000000000ull,
	0xFFF8000000000001ull, 0x7FF0000000000001ull, 0x3FF0000000000000ull,
	0xBFF0000000000000ull, 0x3FF0000000000001ull, 0x4340000000000001ull,
	0x43E0000000000000ull, 0xC3E0000000000000ull, 0x41E0000000000000ull,
	0x3FB999999999999Aull, 0x3FD5555555555555ull, 0x400921FB54442D18ull,
	0x36A0000000000000ull, 0x47EFFFFFE0000000ull, 0x3810000000000000ull,
	0x7FFFFFFFFFFFFFFFull, 0x00000000FFFFFFFFull, 0x4F0000004F800000ull,
};

#define N_S32 (sizeof special32 / sizeof special32[0])
#define N_S64 (sizeof special64 / sizeof special64[0])
/* Pairs compared: every pair of specials, then random bits. */
#define N_PAIRS 4096u

static int nan32(uint32_t u)
{
	return (u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu);
}

static int sub32(uint32_t u)
{
	return (u & 0x7F800000u) == 0 && (u & 0x007FFFFFu);
}

static int nan64(uint64_t u)
{
	return (u & 0x7FF0000000000000ull) == 0x7FF0000000000000ull &&
	       (u & 0x000FFFFFFFFFFFFFull);
}

static int sub64(uint64_t u)
{
	return (u & 0x7FF0000000000000ull) == 0 && (u & 0x000FFFFFFFFFFFFFull);
}

/* The device's capabilities and why some are missing; none without
 * caps(). */
static uint32_t fl_caps(weft__ct *t, char *detail, size_t size)
{
	weft_device_caps c = { .struct_size = sizeof c };

	detail[0] = '\0';
	if (t->vt->struct_size < WEFT_BACKEND_V1_5_SIZE || !t->vt->caps) {
		weft__ct_fmt(detail, size, "the backend has no caps()");
		return 0;
	}
	if (t->vt->caps(t->dev, &c, &t->err) != WEFT_OK) {
		weft__ct_fmt(detail, size, "caps() failed: %s", t->err.msg);
		return 0;
	}
	c.detail[sizeof c.detail - 1] = '\0';
	weft__ct_fmt(detail, size, "%s", c.detail);
	return c.caps;
}

/* Run kernel k over n items on the device: inputs a and b (in_bytes
 * each), out_bytes of output into out. 0 on success. */
static int fl_device(weft__ct *t, uint32_t k, uint32_t n, const void *a,
		     const void *b, size_t in_bytes, void *out,
		     size_t out_bytes)
{
	weft_buf *ba = weft__ct_alloc(t, in_bytes);
	weft_buf *bb = ba ? weft__ct_alloc(t, in_bytes) : NULL;
	weft_buf *bo = bb ? weft__ct_alloc(t, out_bytes) : NULL;
	weft_launch l = weft__ct_launch(k, n, ba, bb);
	int rc = -1;

	l.bufs[2] = bo;
	l.n_bufs = 3;
	if (bo && !weft__ct_write(t, ba, 0, a, in_bytes, 0) &&
	    !weft__ct_write(t, bb, 0, b, in_bytes, 0) &&
	    !weft__ct_step(t, &l, 1, 1) &&
	    !weft__ct_read(t, out, bo, 0, out_bytes, 0))
		rc = 0;
	weft__ct_free(t, bo);
	weft__ct_free(t, bb);
	weft__ct_free(t, ba);
	return rc;
}

/* The host build of kernel k on the same inputs. */
static void fl_host(uint32_t k, uint32_t n, void *a, void *b, void *out)
{
	weft_kargs ka;

	memset(&ka, 0, sizeof ka);
	ka.buf[0] = a;
	ka.buf[1] = b;
	ka.buf[2] = out;
	ka.extent = n;
	cf_program.kernels[k].host_fn(&ka, 0, n);
}

/* What fl_part's compare counts: results that differ, results not
 * compared (subnormals on a device without WEFT_CAP_SUBNORMAL). */
typedef struct fl_count {
	uint32_t bad, skipped;
} fl_count;

/* The f32 or the f64 part of the group: its kernel over N_PAIRS pairs of
 * words, n_out outputs per pair, needing capability cap. */
typedef struct fl_part {
	const char *type; /* "f32", "f64" */
	uint32_t cap;
	const char *cap_name;
	uint32_t kernel;
	size_t word;	/* bytes of an input or output word */
	uint32_t n_out; /* output words per pair */
	void (*inputs)(void *a, void *b);
	/* Compare the device's output words with the host's; the first
	 * that differs fails the test. */
	void (*compare)(weft__ct *t, const void *a, const void *b,
			const void *dev, const void *host, int subnormal,
			fl_count *c);
} fl_part;

/* Run part p on the device and on the host and compare, or skip it when
 * the device lacks its capability (detail: why). */
static void fl_run(weft__ct *t, const fl_part *p, uint32_t caps,
		   const char *detail)
{
	size_t in = N_PAIRS * p->word, out = in * p->n_out;
	void *a = weft__ct_xmalloc(t, in), *b = weft__ct_xmalloc(t, in);
	void *dev = weft__ct_xmalloc(t, out);
	void *host = weft__ct_xmalloc(t, out);
	fl_count c = { 0, 0 };

	weft__ct_begin(t,
		       "%s + - * / sqrt, conversions, bit casts and "
		       "constants give the host build's bits",
		       p->type);
	if (!(caps & p->cap)) {
		weft__ct_skip(t, "the device lacks %s: %s", p->cap_name,
			      detail);
		goto out;
	}
	if (a && b && dev && host) {
		p->inputs(a, b);
		memset(dev, 0, out);
		memset(host, 0, out);
		if (fl_device(t, p->kernel, N_PAIRS, a, b, in, dev, out) == 0) {
			fl_host(p->kernel, N_PAIRS, a, b, host);
			p->compare(t, a, b, dev, host,
				   (caps & WEFT_CAP_SUBNORMAL) != 0, &c);
		}
	}
	if (c.bad)
		weft__ct_diag(t, "%u of %u %s results differ", (unsigned)c.bad,
			      (unsigned)(N_PAIRS * p->n_out), p->type);
	if (c.skipped)
		weft__ct_diag(t,
			      "%u results with subnormals not compared (no "
			      "WEFT_CAP_SUBNORMAL)",
			      (unsigned)c.skipped);
	weft__ct_end(t);
out:
	free(a);
	free(b);
	free(dev);
	free(host);
}

/* ---- f32 ------------------------------------------------------------------
 */

static const char *const f32_names[F32_OUT] = {
	"x + y",     "x - y",	  "x * y",     "x / y",
	"sqrt(x)",   "(i32)x",	  "(u32)x",    "(f32)(i32)bits",
	"(f32)bits", "bit casts", "x * y + y", "x * WEFT_CONST",
};

/* Slots 5 and 6 are integers; the others f32 bits. */
static int f32_same(uint32_t slot, uint32_t dev, uint32_t host)
{
	if (dev == host)
		return 1;
	return slot != 5 && slot != 6 && nan32(dev) && nan32(host);
}

static void f32_inputs(void *va, void *vb)
{
	uint32_t *a = va, *b = vb;
	uint64_t s = 0x5EED0F32ull;
	uint32_t i = 0;

	for (uint32_t p = 0; p < N_S32; p++)
		for (uint32_t q = 0; q < N_S32; q++, i++)
			a[i] = special32[p], b[i] = special32[q];
	for (; i < N_PAIRS; i++) {
		uint64_t r = weft__ct_rng(&s);

		a[i] = (uint32_t)r;
		b[i] = (uint32_t)(r >> 32);
		/* Some near one another, so that x - y cancels. */
		if (i % 8 == 0)
			b[i] = a[i] ^ (uint32_t)(r >> 59);
	}
}

static void f32_compare(weft__ct *t, const void *va, const void *vb,
			const void *vdev, const void *vhost, int subnormal,
			fl_count *c)
{
	const uint32_t *a = va, *b = vb, *dev = vdev, *host = vhost;

	for (uint32_t i = 0; i < N_PAIRS; i++)
		for (uint32_t k = 0; k < F32_OUT; k++) {
			uint32_t d = dev[F32_OUT * i + k];
			uint32_t h = host[F32_OUT * i + k];

			if (!subnormal && (sub32(a[i]) || sub32(b[i]) ||
					   (k == 11 && i % 4 == 2) ||
					   (k != 5 && k != 6 && sub32(h)))) {
				c->skipped++;
				continue;
			}
			if (f32_same(k, d, h))
				continue;
			if (!c->bad++)
				weft__ct_expect(t, 0,
						"%s with x = 0x%08X, y = "
						"0x%08X: device 0x%08X, host "
						"0x%08X",
						f32_names[k], (unsigned)a[i],
						(unsigned)b[i], (unsigned)d,
						(unsigned)h);
		}
}

static const fl_part fl_f32 = {
	.type = "f32",
	.cap = WEFT_CAP_F32_EXACT,
	.cap_name = "WEFT_CAP_F32_EXACT",
	.kernel = CF_K_F32_OPS,
	.word = sizeof(uint32_t),
	.n_out = F32_OUT,
	.inputs = f32_inputs,
	.compare = f32_compare,
};

/* ---- f64 ------------------------------------------------------------------
 */

static const char *const f64_names[F64_OUT] = {
	"x + y",     "x - y",	       "x * y",	 "x / y",
	"sqrt(x)",   "(f32)x",	       "(i64)x", "(f64)(i64)bits",
	"(f64)bits", "(f64)(f32)low",  "(i32)x", "bit casts",
	"x * y + y", "x * WEFT_CONST",
};

/* Slots 6 and 10 are integers, 5 f32 bits; the others f64 bits. */
static int f64_same(uint32_t slot, uint64_t dev, uint64_t host)
{
	if (dev == host)
		return 1;
	if (slot == 6 || slot == 10)
		return 0;
	if (slot == F64_SLOT_F32)
		return (dev >> 32) == 0 && (host >> 32) == 0 &&
		       nan32((uint32_t)dev) && nan32((uint32_t)host);
	return nan64(dev) && nan64(host);
}

static int f64_subnormal(uint32_t slot, uint64_t h)
{
	if (slot == 6 || slot == 10)
		return 0;
	return slot == F64_SLOT_F32 ? sub32((uint32_t)h) : sub64(h);
}

static void f64_inputs(void *va, void *vb)
{
	uint64_t *a = va, *b = vb;
	uint64_t s = 0x5EED0F64ull;
	uint32_t i = 0;

	for (uint32_t p = 0; p < N_S64; p++)
		for (uint32_t q = 0; q < N_S64; q++, i++)
			a[i] = special64[p], b[i] = special64[q];
	for (; i < N_PAIRS; i++) {
		a[i] = weft__ct_rng(&s);
		b[i] = i % 8 == 0 ? a[i] ^ (weft__ct_rng(&s) >> 58)
				  : weft__ct_rng(&s);
	}
}

static void f64_compare(weft__ct *t, const void *va, const void *vb,
			const void *vdev, const void *vhost, int subnormal,
			fl_count *c)
{
	const uint64_t *a = va, *b = vb, *dev = vdev, *host = vhost;

	for (uint32_t i = 0; i < N_PAIRS; i++)
		for (uint32_t k = 0; k < F64_OUT; k++) {
			uint64_t d = dev[F64_OUT * i + k];
			uint64_t h = host[F64_OUT * i + k];

			if (!subnormal &&
			    (sub64(a[i]) || sub64(b[i]) ||
			     sub32((uint32_t)a[i]) || (k == 13 && i % 4 == 2) ||
			     f64_subnormal(k, h))) {
				c->skipped++;
				continue;
			}
			if (f64_same(k, d, h))
				continue;
			if (!c->bad++)
				weft__ct_expect(
					t, 0,
					"%s with x = 0x%016llX, y = 0x%016llX: "
					"device 0x%016llX, host 0x%016llX",
					f64_names[k], (unsigned long long)a[i],
					(unsigned long long)b[i],
					(unsigned long long)d,
					(unsigned long long)h);
		}
}

static const fl_part fl_f64 = {
	.type = "f64",
	.cap = WEFT_CAP_F64,
	.cap_name = "WEFT_CAP_F64",
	.kernel = CF_K_F64_OPS,
	.word = sizeof(uint64_t),
	.n_out = F64_OUT,
	.inputs = f64_inputs,
	.compare = f64_compare,
};

/* ---- atomics --------------------------------------------------------------
 */

/* cf_atomics over n items of a on the device: m (2 words) and s (1). */
static int atomics_device(weft__ct *t, const uint32_t *a, uint32_t n,
			  uint32_t m[2], uint64_t *s)
{
	weft_buf *ba = weft__ct_alloc(t, n * sizeof *a);
	weft_buf *bm = ba ? weft__ct_alloc(t, 2 * sizeof *m) : NULL;
	weft_buf *bs = bm ? weft__ct_alloc(t, sizeof *s) : NULL;
	weft_launch l = weft__ct_launch(CF_K_ATOMICS, n, ba, bm);
	int rc = -1;

	l.bufs[2] = bs;
	l.n_bufs = 3;
	if (bs && !weft__ct_write(t, ba, 0, a, n * sizeof *a, 0) &&
	    !weft__ct_write(t, bm, 0, m, 2 * sizeof *m, 0) &&
	    !weft__ct_write(t, bs, 0, s, sizeof *s, 0) &&
	    !weft__ct_step(t, &l, 1, 1) &&
	    !weft__ct_read(t, m, bm, 0, 2 * sizeof *m, 0) &&
	    !weft__ct_read(t, s, bs, 0, sizeof *s, 0))
		rc = 0;
	weft__ct_free(t, bs);
	weft__ct_free(t, bm);
	weft__ct_free(t, ba);
	return rc;
}

/* weft_atomic_max_u32, weft_atomic_min_u32 and (with WEFT_CAP_ATOMIC64)
 * weft_atomic_add_u64 from every item give what the host build gives. */
static void fl_atomics(weft__ct *t, uint32_t caps)
{
	uint32_t *a = weft__ct_xmalloc(t, N_PAIRS * sizeof *a);
	uint32_t dm[2] = { 0, UINT32_MAX }, hm[2] = { 0, UINT32_MAX };
	uint64_t ds = 0, hs = 0, seed = 0xA70A1C5ull;
	int wide = (caps & WEFT_CAP_ATOMIC64) != 0;

	weft__ct_begin(t,
		       "weft_atomic_max_u32, _min_u32%s from every item "
		       "give the host build's results",
		       wide ? " and _add_u64" : "");
	if (a) {
		for (uint32_t i = 0; i < N_PAIRS; i++)
			a[i] = (uint32_t)weft__ct_rng(&seed) >> (i % 7);
		fl_host(CF_K_ATOMICS, N_PAIRS, a, hm, &hs);
	}
	if (a && atomics_device(t, a, N_PAIRS, dm, &ds) == 0) {
		weft__ct_expect(t, dm[0] == hm[0] && dm[1] == hm[1],
				"max, min: device 0x%08X, 0x%08X; host "
				"0x%08X, 0x%08X",
				(unsigned)dm[0], (unsigned)dm[1],
				(unsigned)hm[0], (unsigned)hm[1]);
		if (wide)
			weft__ct_expect(t, ds == hs,
					"64-bit sum: device 0x%016llX, host "
					"0x%016llX",
					(unsigned long long)ds,
					(unsigned long long)hs);
	}
	if (!wide)
		weft__ct_diag(t,
			      "64-bit add not checked: no WEFT_CAP_ATOMIC64");
	weft__ct_end(t);
	free(a);
}

void weft__ct_group_floats(weft__ct *t)
{
	char detail[512];
	uint32_t caps = fl_caps(t, detail, sizeof detail);

	fl_run(t, &fl_f32, caps, detail);
	fl_run(t, &fl_f64, caps, detail);
	fl_atomics(t, caps);
}
