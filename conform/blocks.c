/*
 * conform/blocks.c - conformance group blocks: weft's parallel building
 * blocks (weft/blocks.wk, weft/blocks.h), compiled into the suite's
 * program through conform.wk, run on the candidate and compared bit for
 * bit with a plain C reference computed here.
 *
 * Every block runs on random inputs of sizes 0, 1, 2, 1000, one tile
 * (WEFT_BLOCKS_TILE), one tile and one, and 1000003, mostly with a
 * capacity a few elements larger than the count (read on the device), and
 * once with a count above the capacity (clamped to it). Sort keys come in
 * four kinds, each also on 300007 elements: random, all equal, three
 * distinct values differing in their top digit (stability), all distinct.
 * Every buffer a block writes, the scratch included, is allocated with
 * exactly the bytes weft/blocks.h asks for plus a tail of guard bytes that
 * must keep their pattern. Two tests chain blocks in one step: a scan whose
 * count is the word a compaction wrote on the device, and a sum then an
 * in-place scan of 2^24 + 5 elements, the smallest input whose level 1
 * has more than one tile of partials.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <weft/blocks.h>

#include "conform.h"
#include "rng.h"

/* The suite's program numbers the kit's kernels after conform.wk's own, in
 * the order weft/blocks.h knows. */
#define BK_FIRST CF_K_WEFT_BLOCKS
_Static_assert(CF_K_WEFT_BLOCKS_HIST - CF_K_WEFT_BLOCKS == WEFT_BLOCKS_K_HIST &&
		       CF_K_WEFT_BLOCKS_SCATTER_U32 - CF_K_WEFT_BLOCKS ==
			       WEFT_BLOCKS_K_SCATTER_U32 &&
		       CF_K_WEFT_BLOCKS_TOP_F64 - CF_K_WEFT_BLOCKS ==
			       WEFT_BLOCKS_K_TOP_F64 &&
		       CF_N_KERNELS - CF_K_WEFT_BLOCKS == WEFT_BLOCKS_N_KERNELS,
	       "weft/blocks.h's kernel order is weft/blocks.wk's");

/* Guard bytes after every buffer a block writes. */
#define BK_TAIL 256u
/* Where the count is in the control buffer, and the outputs. */
#define BK_COUNT_AT 3u
#define BK_OUT_AT   5u
#define BK_CTL	    8u

typedef struct bk_size {
	uint32_t n, cap;
} bk_size;

/* State of one test: the control words (count), its launches. */
typedef struct bk {
	weft__ct *t;
	bk_size sz;
	unsigned seed;
	weft_buf *ctl;
	weft_launch l[WEFT_BLOCKS_MAX_LAUNCHES + WEFT_BLOCKS_SCAN_LAUNCHES];
	uint32_t nl;
} bk;

static uint8_t bk_tail_byte(size_t i)
{
	return (uint8_t)(0xA5u ^ (i * 29u));
}

/* A device buffer of bytes + BK_TAIL guard bytes, its first bytes from
 * init (may be NULL: a pattern). */
static weft_buf *bk_buf(weft__ct *t, size_t bytes, const void *init)
{
	unsigned char tail[BK_TAIL], *h = NULL;
	weft_buf *b = weft__ct_alloc(t, bytes + BK_TAIL);

	for (size_t i = 0; i < BK_TAIL; i++)
		tail[i] = bk_tail_byte(i);
	if (b && !init && (h = weft__ct_xmalloc(t, bytes)))
		weft__ct_pattern(h, bytes, 77u);
	if (b &&
	    (t->why[0] ||
	     (bytes && weft__ct_write(t, b, 0, init ? init : h, bytes, 0)) ||
	     weft__ct_write(t, b, bytes, tail, BK_TAIL, 0))) {
		weft__ct_free(t, b);
		b = NULL;
	}
	free(h);
	return b;
}

/* Read bytes of b into host (may be NULL) and check its guard tail;
 * 0 when it held. */
static int bk_get(weft__ct *t, weft_buf *b, size_t bytes, void *host,
		  const char *what)
{
	unsigned char tail[BK_TAIL];

	if ((host && bytes && weft__ct_read(t, host, b, 0, bytes, 0)) ||
	    weft__ct_read(t, tail, b, bytes, BK_TAIL, 0))
		return -1;
	for (size_t i = 0; i < BK_TAIL; i++)
		if (tail[i] != bk_tail_byte(i))
			return !weft__ct_expect(t, 0,
						"%s (%zu bytes): byte %zu past "
						"its end was overwritten",
						what, bytes, i) -
			       1;
	return 0;
}

/* The control words: the count at BK_COUNT_AT, a known pattern elsewhere
 * (outputs land at BK_OUT_AT). */
static uint32_t bk_ctl_word(uint32_t i, uint32_t n)
{
	return i == BK_COUNT_AT ? n : 0xC0DE0000u + i;
}

static int bk_open(bk *k, weft__ct *t, bk_size sz, unsigned seed)
{
	uint32_t w[BK_CTL];

	memset(k, 0, sizeof *k);
	k->t = t;
	k->sz = sz;
	k->seed = seed;
	for (uint32_t i = 0; i < BK_CTL; i++)
		w[i] = bk_ctl_word(i, sz.n);
	k->ctl = bk_buf(t, sizeof w, w);
	return k->ctl ? 0 : -1;
}

/* Run the launches once and wait. */
static int bk_run(bk *k)
{
	return weft__ct_step(k->t, k->l, k->nl, 1) || weft__ct_sync(k->t) ? -1
									  : 0;
}

/* The live count: the count word clamped to the capacity. */
static uint32_t bk_live(const bk *k)
{
	return k->sz.n < k->sz.cap ? k->sz.n : k->sz.cap;
}

/* The control words after the run: every word but BK_OUT_AT as before;
 * *out gets that one. */
static int bk_ctl_check(bk *k, uint32_t *out)
{
	uint32_t w[BK_CTL];

	if (bk_get(k->t, k->ctl, sizeof w, w, "the count buffer"))
		return -1;
	for (uint32_t i = 0; i < BK_CTL; i++)
		if (i != BK_OUT_AT && w[i] != bk_ctl_word(i, k->sz.n))
			return !weft__ct_expect(
				       k->t, 0,
				       "count buffer word %u is 0x%08x, "
				       "not 0x%08x",
				       (unsigned)i, (unsigned)w[i],
				       (unsigned)bk_ctl_word(i, k->sz.n)) -
			       1;
	if (out)
		*out = w[BK_OUT_AT];
	return 0;
}

/* Run the launches, then read `bytes` of out into got (what names it)
 * and check the guard tails of out and of the scratch scr (for the
 * capacity) and the control words (*count gets the output word; may be
 * NULL). 0 when all held. */
static int bk_run_check(bk *k, weft_buf *out, size_t bytes, void *got,
			const char *what, weft_buf *scr, uint32_t *count)
{
	weft__ct *t = k->t;

	if (bk_run(k) || bk_get(t, out, bytes, got, what) ||
	    bk_get(t, scr, weft_blocks_scratch_bytes(k->sz.cap), NULL,
		   "the scratch") ||
	    bk_ctl_check(k, count))
		return -1;
	return 0;
}

/* got == want for n words of `size` bytes, or the first difference. */
static int bk_same(weft__ct *t, const void *got, const void *want, size_t n,
		   size_t size, const char *what)
{
	size_t at = weft__ct_first_diff(got, want, n * size);
	uint64_t g = 0, w = 0;

	if (at == n * size)
		return 1;
	at /= size;
	memcpy(&g, (const char *)got + at * size, size);
	memcpy(&w, (const char *)want + at * size, size);
	return weft__ct_expect(t, 0, "%s: element %zu is 0x%llx, want 0x%llx",
			       what, at, (unsigned long long)g,
			       (unsigned long long)w);
}

/* Random u32 words, or bounded below `mod` when mod is not 0. */
static uint32_t *bk_random32(weft__ct *t, size_t n, unsigned seed, uint32_t mod)
{
	uint32_t *x = weft__ct_xmalloc(t, n * 4 + 4);
	uint64_t s = seed;

	for (size_t i = 0; x && i < n; i++) {
		uint64_t r = weft__ct_rng(&s);

		x[i] = mod ? (uint32_t)(r % mod) : (uint32_t)r;
	}
	return x;
}

/* ---- scans ------------------------------------------------------------- */

/* Element i of an array of words of `size` bytes (4 or 8), and storing
 * v there (its low 32 bits when size is 4). */
static uint64_t bk_word(const void *p, size_t i, size_t size)
{
	uint32_t w;
	uint64_t d;

	if (size == 4) {
		memcpy(&w, (const char *)p + i * 4, 4);
		return w;
	}
	memcpy(&d, (const char *)p + i * 8, 8);
	return d;
}

static void bk_set_word(void *p, size_t i, size_t size, uint64_t v)
{
	uint32_t w = (uint32_t)v;

	if (size == 4)
		memcpy((char *)p + i * 4, &w, 4);
	else
		memcpy((char *)p + i * 8, &v, 8);
}

/* scan_u32 (size 4) or scan_u64 (size 8), exclusive or inclusive, out of
 * place or in place; the reference adds modulo 2^(8 size). */
static void bk_scan(weft__ct *t, bk_size sz, size_t size, int inclusive,
		    int in_place)
{
	uint32_t m = sz.cap, n;
	size_t bytes = (size_t)m * size;
	uint64_t s = size == 4 ? 11u + m : 5u + m;
	unsigned char *x = weft__ct_xmalloc(t, bytes + size);
	unsigned char *want = NULL, *got = NULL;
	weft_buf *in = NULL, *out = NULL, *scr = NULL;
	bk k;

	weft__ct_begin(
		t, "scan_u%d %s%s, n = %u (capacity %u)", size == 4 ? 32 : 64,
		inclusive ? "inclusive" : "exclusive",
		in_place ? " in place" : "", (unsigned)sz.n, (unsigned)sz.cap);
	if (!x || bk_open(&k, t, sz, size == 4 ? 1 : 2))
		goto free_host;
	n = bk_live(&k);
	for (uint32_t i = 0; i < m; i++)
		bk_set_word(x, i, size, weft__ct_rng(&s));
	want = weft__ct_xmalloc(t, bytes + size);
	got = weft__ct_xmalloc(t, bytes + size);
	in = want && got ? bk_buf(t, bytes, x) : NULL;
	out = !in || in_place ? in : bk_buf(t, bytes, NULL);
	scr = out ? bk_buf(t, weft_blocks_scratch_bytes(m), NULL) : NULL;
	/* What the buffer holds past the count stays as it was. */
	if (!scr || bk_get(t, out, bytes, want, "the output"))
		goto free_dev;
	for (uint64_t i = 0, acc = 0; i < n; i++) {
		uint64_t v = bk_word(x, i, size);

		bk_set_word(want, i, size, inclusive ? acc + v : acc);
		acc += v;
	}
	k.nl = (size == 4 ? weft_blocks_scan_u32 : weft_blocks_scan_u64)(
		k.l, BK_FIRST, in, out, k.ctl, BK_COUNT_AT, scr, m, inclusive);
	if (!bk_run_check(&k, out, bytes, got, "the output", scr, NULL))
		bk_same(t, got, want, m, size, "the scan");
free_dev:
	weft__ct_free(t, scr);
	if (out != in)
		weft__ct_free(t, out);
	weft__ct_free(t, in);
	weft__ct_free(t, k.ctl);
free_host:
	weft__ct_end(t);
	free(x);
	free(want);
	free(got);
}

/* ---- reductions ------------------------------------------------------------
 */

enum bk_red {
	BK_SUM_U32,
	BK_MIN_U32,
	BK_MAX_U32,
	BK_SUM_U64,
	BK_MIN_U64,
	BK_MAX_U64,
	BK_SUM_F32,
	BK_SUM_F64,
	BK_N_RED
};

static const char *const bk_red_name[BK_N_RED] = {
	"sum_u32", "min_u32", "max_u32", "sum_u64",
	"min_u64", "max_u64", "sum_f32", "sum_f64",
};

/* The fixed order of weft/blocks.wk: each tile of the data in order, each
 * tile of those partials in order, then those in order. One definition
 * for f32 and f64 (type T, every addition rounded to T), so that both
 * references keep that order alike. */
#define BK_SUM_FLOAT(name, T)                                               \
	static T name(const T *x, uint32_t n)                               \
	{                                                                   \
		uint32_t t1 = weft_blocks_tiles(n),                         \
			 t2 = weft_blocks_tiles(t1);                        \
		T *p1 = calloc((size_t)t1 + 1, sizeof *p1), top = (T)0;     \
		T p2;                                                       \
                                                                            \
		if (!p1)                                                    \
			abort();                                            \
		for (uint32_t i = 0; i < n; i++)                            \
			p1[i / WEFT_BLOCKS_TILE] += x[i];                   \
		for (uint32_t s = 0; s < t2; s++) {                         \
			p2 = (T)0;                                          \
			for (uint32_t i = s * WEFT_BLOCKS_TILE;             \
			     i < t1 && i < (s + 1) * WEFT_BLOCKS_TILE; i++) \
				p2 += p1[i];                                \
			top += p2;                                          \
		}                                                           \
		free(p1);                                                   \
		return top;                                                 \
	}

BK_SUM_FLOAT(bk_sum_f32, float)
BK_SUM_FLOAT(bk_sum_f64, double)

/* Random elements of reduction r, and the reference result (as bits). */
static void *bk_red_input(weft__ct *t, enum bk_red r, uint32_t m, uint32_t n,
			  uint64_t *want)
{
	size_t size = r <= BK_MAX_U32 || r == BK_SUM_F32 ? 4 : 8;
	unsigned char *x = weft__ct_xmalloc(t, (size_t)m * size + 8);
	uint64_t s = 99u + m * 7u + r, acc;

	if (!x)
		return NULL;
	for (uint32_t i = 0; i < m; i++) {
		uint64_t v = weft__ct_rng(&s);

		if (r == BK_SUM_F32) {
			/* Magnitudes across 2^-20 .. 2^20, both signs. */
			float f = (float)((int32_t)(uint32_t)v) *
				  (1.0f / 2147483648.0f) *
				  (float)(1u << (v >> 59));
			memcpy(x + i * 4, &f, 4);
		} else if (r == BK_SUM_F64) {
			double d = (double)(int64_t)v * 0x1p-63 *
				   (double)(1ull << (v % 40));
			memcpy(x + i * 8, &d, 8);
		} else {
			memcpy(x + i * size, &v, size);
		}
	}
	if (r == BK_SUM_F32) {
		float f = bk_sum_f32((const float *)(void *)x, n);
		uint32_t b;

		memcpy(&b, &f, 4);
		*want = b;
		return x;
	}
	if (r == BK_SUM_F64) {
		double d = bk_sum_f64((const double *)(void *)x, n);

		memcpy(want, &d, 8);
		return x;
	}
	acc = r == BK_MIN_U32 ? 0xFFFFFFFFu : r == BK_MIN_U64 ? ~0ull : 0;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t v = 0;

		memcpy(&v, x + (size_t)i * size, size);
		if (r == BK_MIN_U32 || r == BK_MIN_U64)
			acc = v < acc ? v : acc;
		else if (r == BK_MAX_U32 || r == BK_MAX_U64)
			acc = v > acc ? v : acc;
		else
			acc += v;
	}
	*want = acc;
	return x;
}

static uint32_t bk_red_launches(bk *k, enum bk_red r, weft_buf *in,
				weft_buf *scr, weft_buf *res)
{
	uint32_t m = k->sz.cap;

	switch (r) {
	case BK_SUM_U32:
		return weft_blocks_sum_u32(k->l, BK_FIRST, in, k->ctl,
					   BK_COUNT_AT, scr, m, res, 1);
	case BK_MIN_U32:
	case BK_MAX_U32:
		return weft_blocks_minmax_u32(
			k->l, BK_FIRST,
			r == BK_MIN_U32 ? WEFT_BLOCKS_OP_MIN
					: WEFT_BLOCKS_OP_MAX,
			in, k->ctl, BK_COUNT_AT, scr, m, res, 1);
	case BK_SUM_U64:
	case BK_MIN_U64:
	case BK_MAX_U64:
		return weft_blocks_reduce_u64(
			k->l, BK_FIRST,
			r == BK_SUM_U64	  ? WEFT_BLOCKS_OP_SUM
			: r == BK_MIN_U64 ? WEFT_BLOCKS_OP_MIN
					  : WEFT_BLOCKS_OP_MAX,
			in, k->ctl, BK_COUNT_AT, scr, m, res, 1);
	case BK_SUM_F32:
		return weft_blocks_sum_f32(k->l, BK_FIRST, in, k->ctl,
					   BK_COUNT_AT, scr, m, res, 1);
	default:
		return weft_blocks_sum_f64(k->l, BK_FIRST, in, k->ctl,
					   BK_COUNT_AT, scr, m, res, 1);
	}
}

/* The result lands in element 1 of a 4-element result buffer (the
 * others keep their pattern), 4 or 8 bytes as the block says. */
static void bk_reduce(weft__ct *t, bk_size sz, enum bk_red r)
{
	size_t in_size = r <= BK_MAX_U32 || r == BK_SUM_F32 ? 4 : 8;
	size_t out_size =
		r == BK_MIN_U32 || r == BK_MAX_U32 || r == BK_SUM_F32 ? 4 : 8;
	unsigned char before[4 * 8], after[4 * 8];
	uint64_t want = 0, got = 0;
	void *x = NULL;
	weft_buf *in = NULL, *scr = NULL, *res = NULL;
	bk k;

	weft__ct_begin(t, "%s, n = %u (capacity %u)", bk_red_name[r],
		       (unsigned)sz.n, (unsigned)sz.cap);
	if (bk_open(&k, t, sz, 3))
		goto end;
	x = bk_red_input(t, r, sz.cap, bk_live(&k), &want);
	in = x ? bk_buf(t, sz.cap * in_size, x) : NULL;
	scr = in ? bk_buf(t, weft_blocks_scratch_bytes(sz.cap), NULL) : NULL;
	res = scr ? bk_buf(t, 4 * out_size, NULL) : NULL;
	if (!res || bk_get(t, res, 4 * out_size, before, "the result"))
		goto free_dev;
	k.nl = bk_red_launches(&k, r, in, scr, res);
	if (!bk_run_check(&k, res, 4 * out_size, after, "the result", scr,
			  NULL)) {
		memcpy(&got, after + out_size, out_size);
		memcpy(before + out_size, after + out_size, out_size);
		if (weft__ct_expect(
			    t, got == want, "the result is 0x%llx, want 0x%llx",
			    (unsigned long long)got, (unsigned long long)want))
			bk_same(t, after, before, 4 * out_size, 1,
				"the result buffer's other bytes");
	}
free_dev:
	weft__ct_free(t, res);
	weft__ct_free(t, scr);
	weft__ct_free(t, in);
	weft__ct_free(t, k.ctl);
end:
	weft__ct_end(t);
	free(x);
}

/* ---- sort -----------------------------------------------------------------
 */

enum bk_keys { BK_RANDOM, BK_EQUAL, BK_FEW, BK_DISTINCT, BK_N_KEYS };
static const char *const bk_keys_name[BK_N_KEYS] = {
	"random keys", "all keys equal", "3 distinct keys (stability)",
	"all keys distinct"
};

static uint64_t bk_key(enum bk_keys kind, uint32_t i, uint32_t m, uint64_t *s,
		       int wide)
{
	uint64_t r = weft__ct_rng(s);

	switch (kind) {
	case BK_EQUAL: return wide ? 0x0123456789ABCDEFu : 0x89ABCDEFu;
	case BK_FEW: /* differing in their high digits only */
		return (r % 3) << (wide ? 60 : 28);
	case BK_DISTINCT: /* m - i, every digit varying */
		return wide ? ((uint64_t)(m - i) << 32 | (m - i)) * 0x9E3779B1u
			    : (uint32_t)((m - i) * 0x9E3779B1u);
	default: return wide ? r : (uint32_t)r;
	}
}

/* The reference: a stable counting sort of (key, index) by key, one byte
 * at a time, as simple as it gets. */
static void bk_ref_sort(uint64_t *key, uint32_t *val, uint32_t n, int wide)
{
	uint64_t *k2 = malloc((size_t)n * 8 + 8);
	uint32_t *v2 = malloc((size_t)n * 4 + 4);
	size_t c[257];

	if (!k2 || !v2)
		abort();
	for (int pass = 0; pass < (wide ? 8 : 4); pass++) {
		memset(c, 0, sizeof c);
		for (uint32_t i = 0; i < n; i++)
			c[((key[i] >> (8 * pass)) & 255) + 1]++;
		for (int d = 0; d < 256; d++)
			c[d + 1] += c[d];
		for (uint32_t i = 0; i < n; i++) {
			size_t p = c[(key[i] >> (8 * pass)) & 255]++;

			k2[p] = key[i];
			v2[p] = val[i];
		}
		memcpy(key, k2, (size_t)n * 8);
		memcpy(val, v2, (size_t)n * 4);
	}
	free(k2);
	free(v2);
}

static void bk_sort(weft__ct *t, bk_size sz, int wide, enum bk_keys kind)
{
	uint32_t m = sz.cap, n, ks = wide ? 8 : 4;
	uint64_t *key = weft__ct_xmalloc(t, (size_t)m * 8 + 8), s = 7u + m;
	uint32_t *val = weft__ct_xmalloc(t, (size_t)m * 4 + 4);
	unsigned char *hk = weft__ct_xmalloc(t, (size_t)m * 8 + 8);
	unsigned char *got = weft__ct_xmalloc(t, (size_t)m * 8 + 8);
	weft_buf *kb = NULL, *vb = NULL, *kt = NULL, *vt = NULL, *scr = NULL;
	size_t sb = weft_blocks_sort_scratch_bytes(m);
	bk k;

	weft__ct_begin(t, "sort_u%d, %s, n = %u (capacity %u)", wide ? 64 : 32,
		       bk_keys_name[kind], (unsigned)sz.n, (unsigned)sz.cap);
	if (!key || !val || !hk || !got || bk_open(&k, t, sz, 4))
		goto end;
	n = bk_live(&k);
	for (uint32_t i = 0; i < m; i++) {
		uint64_t v = bk_key(kind, i, m, &s, wide);

		key[i] = v;
		val[i] = i;
		memcpy(hk + (size_t)i * ks, &v, ks);
	}
	kb = bk_buf(t, (size_t)m * ks, hk);
	vb = kb ? bk_buf(t, (size_t)m * 4, val) : NULL;
	kt = vb ? bk_buf(t, (size_t)m * ks, NULL) : NULL;
	vt = kt ? bk_buf(t, (size_t)m * 4, NULL) : NULL;
	scr = vt ? bk_buf(t, sb, NULL) : NULL;
	if (!scr)
		goto free_dev;
	bk_ref_sort(key, val, n, wide);
	for (uint32_t i = 0; i < n; i++)
		memcpy(hk + (size_t)i * ks, &key[i], ks);
	k.nl = (wide ? weft_blocks_sort_u64 : weft_blocks_sort_u32)(
		k.l, BK_FIRST, kb, vb, kt, vt, k.ctl, BK_COUNT_AT, scr, m);
	if (!bk_run(&k) && !bk_get(t, kb, (size_t)m * ks, got, "the keys") &&
	    bk_same(t, got, hk, m, ks, "the keys") &&
	    !bk_get(t, vb, (size_t)m * 4, got, "the values") &&
	    bk_same(t, got, val, m, 4, "the values (stability)") &&
	    !bk_get(t, kt, (size_t)m * ks, NULL, "the keys' scratch") &&
	    !bk_get(t, vt, (size_t)m * 4, NULL, "the values' scratch") &&
	    !bk_get(t, scr, sb, NULL, "the scratch"))
		bk_ctl_check(&k, NULL);
free_dev:
	weft__ct_free(t, scr);
	weft__ct_free(t, vt);
	weft__ct_free(t, kt);
	weft__ct_free(t, vb);
	weft__ct_free(t, kb);
	weft__ct_free(t, k.ctl);
end:
	weft__ct_end(t);
	free(key);
	free(val);
	free(hk);
	free(got);
}

/* ---- compaction and histogram ---------------------------------------------
 */

/* The count word a compaction wrote is kept, the number of elements the
 * reference kept (else the test fails). */
static int bk_count_is(weft__ct *t, uint32_t count, uint32_t kept)
{
	return weft__ct_expect(t, count == kept,
			       "the output count word is %u, want %u",
			       (unsigned)count, (unsigned)kept);
}

static void bk_compact(weft__ct *t, bk_size sz, int index)
{
	uint32_t m = sz.cap, n, kept = 0, count = 0;
	uint32_t *x = bk_random32(t, m, 23u + m, 0);
	uint32_t *want = weft__ct_xmalloc(t, (size_t)m * 4 + 4);
	uint32_t *got = weft__ct_xmalloc(t, (size_t)m * 4 + 4);
	uint8_t *f = weft__ct_xmalloc(t, (size_t)m + 1);
	weft_buf *fb = NULL, *in = NULL, *out = NULL, *scr = NULL;
	bk k;

	weft__ct_begin(t, "compact_%s, n = %u (capacity %u)",
		       index ? "index" : "u32", (unsigned)sz.n,
		       (unsigned)sz.cap);
	if (!x || !want || !got || !f || bk_open(&k, t, sz, 5))
		goto end;
	n = bk_live(&k);
	for (uint32_t i = 0; i < m; i++) /* about 3 in 8 kept, any nonzero */
		f[i] = (x[i] >> 13) % 8 < 3 ? (uint8_t)(1 + (x[i] >> 24) % 255)
					    : 0;
	fb = bk_buf(t, m, f);
	in = fb ? bk_buf(t, (size_t)m * 4, x) : NULL;
	out = in ? bk_buf(t, (size_t)m * 4, NULL) : NULL;
	scr = out ? bk_buf(t, weft_blocks_scratch_bytes(m), NULL) : NULL;
	if (!scr || bk_get(t, out, (size_t)m * 4, want, "the output"))
		goto free_dev;
	for (uint32_t i = 0; i < n; i++)
		if (f[i])
			want[kept++] = index ? i : x[i];
	k.nl = index ? weft_blocks_compact_index(k.l, BK_FIRST, fb, out, k.ctl,
						 BK_COUNT_AT, scr, m, k.ctl,
						 BK_OUT_AT)
		     : weft_blocks_compact_u32(k.l, BK_FIRST, fb, in, out,
					       k.ctl, BK_COUNT_AT, scr, m,
					       k.ctl, BK_OUT_AT);
	if (!bk_run_check(&k, out, (size_t)m * 4, got, "the output", scr,
			  &count) &&
	    !bk_get(t, fb, m, NULL, "the flags") && bk_count_is(t, count, kept))
		bk_same(t, got, want, m, 4, "the output");
free_dev:
	weft__ct_free(t, scr);
	weft__ct_free(t, out);
	weft__ct_free(t, in);
	weft__ct_free(t, fb);
	weft__ct_free(t, k.ctl);
end:
	weft__ct_end(t);
	free(x);
	free(want);
	free(got);
	free(f);
}

#define BK_BINS 1000u

static void bk_histogram(weft__ct *t, bk_size sz)
{
	uint32_t m = sz.cap, n;
	/* Values up to 10 % past the last bin: not counted. */
	uint32_t *x = bk_random32(t, m, 31u + m, BK_BINS + BK_BINS / 10);
	uint32_t want[BK_BINS], got[BK_BINS];
	weft_buf *in = NULL, *bins = NULL, *scr = NULL;
	bk k;

	weft__ct_begin(t, "histogram of %u bins, n = %u (capacity %u)", BK_BINS,
		       (unsigned)sz.n, (unsigned)sz.cap);
	if (!x || bk_open(&k, t, sz, 6))
		goto end;
	n = bk_live(&k);
	memset(want, 0, sizeof want);
	for (uint32_t i = 0; i < n; i++)
		if (x[i] < BK_BINS)
			want[x[i]]++;
	in = bk_buf(t, (size_t)m * 4, x);
	bins = in ? bk_buf(t, sizeof got, NULL) : NULL;
	scr = bins ? bk_buf(t, weft_blocks_scratch_bytes(m), NULL) : NULL;
	if (!scr)
		goto free_dev;
	k.nl = weft_blocks_histogram(k.l, BK_FIRST, in, bins, BK_BINS, k.ctl,
				     BK_COUNT_AT, scr, m);
	if (!bk_run_check(&k, bins, sizeof got, got, "the bins", scr, NULL))
		bk_same(t, got, want, BK_BINS, 4, "the bins");
free_dev:
	weft__ct_free(t, scr);
	weft__ct_free(t, bins);
	weft__ct_free(t, in);
	weft__ct_free(t, k.ctl);
end:
	weft__ct_end(t);
	free(x);
}

/* ---- blocks chained on the device ---------------------------------------- */

/* One step: compact the indexes of flagged elements (the count lands in
 * the control buffer), then an inclusive scan of that list whose count is
 * that word. */
static void bk_chain(weft__ct *t, bk_size sz)
{
	uint32_t m = sz.cap, n, kept = 0, count = 0;
	uint32_t *x = bk_random32(t, m, 41u + m, 0);
	uint32_t *want = weft__ct_xmalloc(t, (size_t)m * 4 + 4);
	uint32_t *got = weft__ct_xmalloc(t, (size_t)m * 4 + 4);
	uint8_t *f = weft__ct_xmalloc(t, (size_t)m + 1);
	weft_buf *fb = NULL, *out = NULL, *scr = NULL;
	bk k;

	weft__ct_begin(t,
		       "compact_index, then an inclusive scan_u32 of the "
		       "list whose count is the word the compaction wrote, "
		       "in one step, n = %u",
		       (unsigned)sz.n);
	if (!x || !want || !got || !f || bk_open(&k, t, sz, 7))
		goto end;
	n = bk_live(&k);
	for (uint32_t i = 0; i < m; i++)
		f[i] = x[i] % 5 == 0;
	fb = bk_buf(t, m, f);
	out = fb ? bk_buf(t, (size_t)m * 4, NULL) : NULL;
	scr = out ? bk_buf(t, weft_blocks_scratch_bytes(m), NULL) : NULL;
	if (!scr || bk_get(t, out, (size_t)m * 4, want, "the output"))
		goto free_dev;
	for (uint32_t i = 0, acc = 0; i < n; i++)
		if (f[i])
			want[kept++] = acc += i;
	k.nl = weft_blocks_compact_index(k.l, BK_FIRST, fb, out, k.ctl,
					 BK_COUNT_AT, scr, m, k.ctl, BK_OUT_AT);
	k.nl += weft_blocks_scan_u32(k.l + k.nl, BK_FIRST, out, out, k.ctl,
				     BK_OUT_AT, scr, m, 1);
	if (!bk_run(&k) && !bk_get(t, out, (size_t)m * 4, got, "the output") &&
	    !bk_ctl_check(&k, &count) && bk_count_is(t, count, kept))
		bk_same(t, got, want, m, 4, "the scanned list");
free_dev:
	weft__ct_free(t, scr);
	weft__ct_free(t, out);
	weft__ct_free(t, fb);
	weft__ct_free(t, k.ctl);
end:
	weft__ct_end(t);
	free(x);
	free(want);
	free(got);
	free(f);
}

/* ---- more than one tile of level 2 ----------------------------------------
 */

/* Level 1 of 2^24 + 5 elements has more than T entries, so level 2 has
 * two: one step sums the elements (sum_u32) and then scans them in place
 * (exclusive scan_u32), on one copy of the input. */
static void bk_big(weft__ct *t)
{
	const bk_size sz = { (1u << 24) + 5, (1u << 24) + 5 };
	uint32_t m = sz.cap;
	uint32_t *x = bk_random32(t, m, 3u, 0), *got = NULL;
	uint64_t sum = 0, res[4];
	weft_buf *in = NULL, *scr = NULL, *rb = NULL;
	bk k;

	weft__ct_begin(t,
		       "sum_u32, then scan_u32 exclusive in place, in one "
		       "step, n = %u (level 2 of more than one entry)",
		       (unsigned)m);
	if (!x || bk_open(&k, t, sz, 8))
		goto end;
	got = weft__ct_xmalloc(t, (size_t)m * 4);
	in = got ? bk_buf(t, (size_t)m * 4, x) : NULL;
	scr = in ? bk_buf(t, weft_blocks_scratch_bytes(m), NULL) : NULL;
	rb = scr ? bk_buf(t, sizeof res, NULL) : NULL;
	if (!rb)
		goto free_dev;
	for (uint32_t i = 0, acc = 0; i < m; i++) {
		uint32_t v = x[i];

		sum += v;
		x[i] = acc;
		acc += v;
	}
	k.nl = weft_blocks_sum_u32(k.l, BK_FIRST, in, k.ctl, BK_COUNT_AT, scr,
				   m, rb, 1);
	k.nl += weft_blocks_scan_u32(k.l + k.nl, BK_FIRST, in, in, k.ctl,
				     BK_COUNT_AT, scr, m, 0);
	if (!bk_run(&k) && !bk_get(t, rb, sizeof res, res, "the result") &&
	    weft__ct_expect(t, res[1] == sum, "the sum is %llu, want %llu",
			    (unsigned long long)res[1],
			    (unsigned long long)sum) &&
	    !bk_get(t, in, (size_t)m * 4, got, "the scanned buffer") &&
	    !bk_get(t, scr, weft_blocks_scratch_bytes(m), NULL, "the scratch"))
		bk_same(t, got, x, m, 4, "the scan");
free_dev:
	weft__ct_free(t, rb);
	weft__ct_free(t, scr);
	weft__ct_free(t, in);
	weft__ct_free(t, k.ctl);
end:
	weft__ct_end(t);
	free(x);
	free(got);
}

/* ---- the group ----------------------------------------------------------- */

static void bk_all(weft__ct *t, bk_size sz, unsigned which)
{
	bk_scan(t, sz, 4, 0, 0);
	bk_scan(t, sz, 4, 1, which % 2);
	bk_scan(t, sz, 8, which % 2, 0);
	for (int r = 0; r < BK_N_RED; r++)
		bk_reduce(t, sz, (enum bk_red)r);
	bk_sort(t, sz, 0, (enum bk_keys)(which % BK_N_KEYS));
	bk_sort(t, sz, 1, (enum bk_keys)((which + 1) % BK_N_KEYS));
	bk_compact(t, sz, which % 2);
	bk_histogram(t, sz);
}

void weft__ct_group_blocks(weft__ct *t)
{
	static const bk_size sizes[] = {
		{ 0, 0 },
		{ 0, 5 },
		{ 1, 1 },
		{ 2, 3 },
		{ 1000, 1003 },
		{ WEFT_BLOCKS_TILE, WEFT_BLOCKS_TILE },
		{ WEFT_BLOCKS_TILE + 1, WEFT_BLOCKS_TILE + 9 },
		{ 70000, 66001 }, /* a count above the capacity: clamped */
		{ 1000003, 1000003 },
	};
	const bk_size mid = { 300007, 300007 };

	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		bk_all(t, sizes[i], (unsigned)i);
	/* Every kind of keys, on 73 tiles and a part. */
	for (int kind = 0; kind < BK_N_KEYS; kind++)
		bk_sort(t, mid, 0, (enum bk_keys)kind);
	bk_chain(t, mid);
	bk_big(t);
}
