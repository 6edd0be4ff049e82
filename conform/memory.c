/*
 * conform/memory.c - conformance groups about device memory:
 * allocation and its counters (alloc), alignment as kernels see it
 * (align), transfers of every direction, size and offset (transfer), and
 * the order in which asynchronous work is observed (async-order).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "conform.h"

#define MIB ((size_t)1 << 20)

/* got[0..n) equals want[0..n), or the first difference is recorded. */
static int same_bytes(weft__ct *t, const void *got, const void *want, size_t n,
		      const char *what)
{
	size_t i = weft__ct_first_diff(got, want, n);

	return weft__ct_expect(t, i == n,
			       "%s: byte %zu of %zu differs (got 0x%02x, "
			       "want 0x%02x)",
			       what, i, n,
			       i < n ? ((const unsigned char *)got)[i] : 0,
			       i < n ? ((const unsigned char *)want)[i] : 0);
}

/* Write a pattern to b at off, read it back: the bytes come back. */
static void round_trip(weft__ct *t, weft_buf *b, size_t off, size_t n,
		       unsigned seed)
{
	unsigned char *h = weft__ct_xmalloc(t, n),
		      *back = weft__ct_xmalloc(t, n);

	if (h && back) {
		weft__ct_pattern(h, n, seed);
		memset(back, 0, n);
		if (!weft__ct_write(t, b, off, h, n, 0) &&
		    !weft__ct_read(t, back, b, off, n, 0))
			same_bytes(t, back, h, n, "round trip");
	}
	free(h);
	free(back);
}

/* ---- alloc --------------------------------------------------------------- */

#define N_HANDLES 8

static void alloc_distinct(weft__ct *t, weft_buf *const *h, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (h[i] && h[i] == h[j])
				weft__ct_expect(
					t, 0,
					"allocations %zu and %zu gave the "
					"same handle",
					i, j);
}

static void alloc_sizes(weft__ct *t, weft_buf **h)
{
	static const size_t sizes[] = { 1, 4097, 65537 };

	weft__ct_begin(t, "0 bytes gives a valid handle distinct from every "
			  "other");
	h[0] = weft__ct_alloc(t, 0);
	h[1] = weft__ct_alloc(t, 0);
	if (h[0] && !weft__ct_write(t, h[0], 0, "", 0, 0))
		weft__ct_read(t, (char[1]){ 0 }, h[0], 0, 0, 0);
	for (size_t i = 0; i < 3; i++)
		h[2 + i] = weft__ct_alloc(t, sizes[i]);
	alloc_distinct(t, h, 5);
	weft__ct_end(t);
	for (size_t i = 0; i < 3; i++) {
		weft__ct_begin(t,
			       "a buffer of %zu bytes holds %zu bytes (round "
			       "trip)",
			       sizes[i], sizes[i]);
		if (weft__ct_expect(t, h[2 + i] != NULL, "allocation failed"))
			round_trip(t, h[2 + i], 0, sizes[i], (unsigned)i);
		weft__ct_end(t);
	}
	weft__ct_begin(t, "64 MiB gives a usable buffer (its first and last "
			  "4097 bytes round trip)");
	h[5] = weft__ct_alloc(t, 64 * MIB);
	if (h[5]) {
		round_trip(t, h[5], 0, 4097, 5);
		round_trip(t, h[5], 64 * MIB - 4097, 4097, 6);
	}
	alloc_distinct(t, h, 6);
	weft__ct_end(t);
}

static void alloc_free_null(weft__ct *t)
{
	weft_stats a, b;

	weft__ct_begin(t, "free(NULL) does nothing");
	weft__ct_stats(t, &a);
	t->vt->free(t->dev, NULL);
	weft__ct_stats(t, &b);
	weft__ct_counters_moved(t, &a, &b, "free(NULL)");
	weft__ct_end(t);
}

/* Free and allocate the same size: one allocation, from the system or the
 * pool, either counts. */
static void alloc_reuse(weft__ct *t, weft_buf **h)
{
	weft_stats a, b;

	weft__ct_begin(t, "free then alloc of the same size counts one free "
			  "and one allocation (allocs or pool_reuses)");
	weft__ct_stats(t, &a);
	weft__ct_free(t, h[3]);
	h[3] = weft__ct_alloc(t, 4097);
	weft__ct_stats(t, &b);
	weft__ct_expect(t, b.frees - a.frees == 1, "frees grew by %llu",
			(unsigned long long)(b.frees - a.frees));
	weft__ct_expect(
		t, (b.allocs + b.pool_reuses) - (a.allocs + a.pool_reuses) == 1,
		"allocs grew by %llu and pool_reuses by %llu",
		(unsigned long long)(b.allocs - a.allocs),
		(unsigned long long)(b.pool_reuses - a.pool_reuses));
	if (h[3])
		round_trip(t, h[3], 0, 4097, 9);
	weft__ct_end(t);
}

static void alloc_counts(weft__ct *t, const weft_stats *start, weft_buf **h)
{
	weft_stats live, end;
	size_t n = 0;

	weft__ct_begin(t, "bytes_peak is never below bytes_in_use");
	weft__ct_stats(t, &live);
	weft__ct_expect(t, live.bytes_peak >= live.bytes_in_use,
			"bytes_in_use %llu, bytes_peak %llu",
			(unsigned long long)live.bytes_in_use,
			(unsigned long long)live.bytes_peak);
	weft__ct_end(t);

	weft__ct_begin(t, "allocs + pool_reuses counts every allocation, "
			  "frees every free, and bytes_in_use returns to its "
			  "start value");
	for (size_t i = 0; i < N_HANDLES; i++)
		if (h[i]) {
			weft__ct_free(t, h[i]);
			h[i] = NULL;
			n++;
		}
	weft__ct_stats(t, &end);
	/* 6 allocations, 1 free and 1 more (alloc_reuse), n frees now. */
	weft__ct_expect(
		t,
		(end.allocs + end.pool_reuses) -
				(start->allocs + start->pool_reuses) ==
			7,
		"7 allocations made, allocs + pool_reuses grew by "
		"%llu",
		(unsigned long long)((end.allocs + end.pool_reuses) -
				     (start->allocs + start->pool_reuses)));
	weft__ct_expect(t, end.frees - start->frees == n + 1,
			"%zu frees made, frees grew by %llu", n + 1,
			(unsigned long long)(end.frees - start->frees));
	weft__ct_expect(t, end.bytes_in_use == start->bytes_in_use,
			"bytes_in_use was %llu, is %llu after freeing "
			"everything",
			(unsigned long long)start->bytes_in_use,
			(unsigned long long)end.bytes_in_use);
	weft__ct_end(t);
}

/* Odd sizes no other test allocates, two of each, allocated in a row with
 * nothing written in between: where a backend places buffers side by
 * side, a buffer shorter than asked overlaps the next one. The harness
 * checks each new buffer's memory against the live ones (native()
 * addresses, when the backend has native()); the writes catch it without
 * addresses. */
static const size_t pair_sizes[] = { 1000, 12345, 4100 };
#define N_PAIRS (2 * sizeof pair_sizes / sizeof pair_sizes[0])

/* Buffer k of the pairs kept its pattern (seed 40 + k). */
static void pair_kept(weft__ct *t, weft_buf *b, size_t k,
		      const unsigned char *want, unsigned char *got)
{
	size_t n = pair_sizes[k / 2], first, last;
	const weft__ct_rec *r = weft__ct_rec_of(t, b);

	if (weft__ct_read(t, got, b, 0, n, 0))
		return;
	first = weft__ct_first_diff(got, want, n);
	if (first == n)
		return;
	for (last = n - 1; got[last] == want[last]; last--)
		;
	weft__ct_expect(t, 0,
			"buffer #%u (%zu bytes): bytes %zu..%zu changed after "
			"the %zu buffers were written in full (byte %zu is "
			"0x%02x, want 0x%02x): another buffer's write landed "
			"in it - its memory overlaps a neighbour's, or is "
			"shorter than asked",
			r ? r->id : 0, n, first, last, N_PAIRS, first,
			got[first], want[first]);
}

static void alloc_neighbours(weft__ct *t)
{
	weft_buf *b[N_PAIRS] = { 0 };
	unsigned char *want[N_PAIRS] = { 0 };
	unsigned char *got = weft__ct_xmalloc(t, pair_sizes[1]);

	weft__ct_begin(t, "buffers of 1000, 12345 and 4100 bytes, two of "
			  "each allocated in a row, overlap no live buffer "
			  "(by native() addresses, when present) and keep "
			  "their own bytes when every one is written in full");
	for (size_t k = 0; got && k < N_PAIRS && !t->why[0]; k++)
		b[k] = weft__ct_alloc(t, pair_sizes[k / 2]);
	for (size_t k = 0; b[N_PAIRS - 1] && k < N_PAIRS && !t->why[0]; k++) {
		want[k] = weft__ct_xmalloc(t, pair_sizes[k / 2]);
		if (!want[k])
			break;
		weft__ct_pattern(want[k], pair_sizes[k / 2], 40 + (unsigned)k);
		weft__ct_write(t, b[k], 0, want[k], pair_sizes[k / 2], 0);
	}
	for (size_t k = 0; want[N_PAIRS - 1] && k < N_PAIRS && !t->why[0]; k++)
		pair_kept(t, b[k], k, want[k], got);
	weft__ct_end(t);
	for (size_t k = 0; k < N_PAIRS; k++) {
		weft__ct_free(t, b[k]);
		free(want[k]);
	}
	free(got);
}

void weft__ct_group_alloc(weft__ct *t)
{
	weft_buf *h[N_HANDLES] = { 0 };
	weft_stats start;

	alloc_neighbours(t);
	weft__ct_begin(t, "setup: stats() answers");
	weft__ct_stats(t, &start);
	if (!weft__ct_end_quiet(t))
		return;
	alloc_sizes(t, h);
	alloc_free_null(t);
	alloc_reuse(t, h);
	alloc_counts(t, &start, h);
}

/* ---- align --------------------------------------------------------------- */

#define ALIGN_SLOTS WEFT_KERNEL_MAX_BUFS

/* Bind out and the buffers of sizes[] (out in the unused slots) to
 * cf_align, which writes the low 6 bits of each address it sees. */
static void align_round(weft__ct *t, weft_buf *out, const size_t *sizes,
			size_t n, const char *how)
{
	weft_buf *b[ALIGN_SLOTS] = { 0 };
	uint32_t low[16];
	weft_launch l;

	memset(low, 0xFF, sizeof low);
	l = weft__ct_launch(CF_K_ALIGN, 1, out, NULL);
	l.n_bufs = ALIGN_SLOTS;
	weft__ct_begin(t, "setup: %zu buffers%s and a launch over them", n,
		       how);
	for (size_t k = 1; k < ALIGN_SLOTS; k++) {
		b[k] = k <= n ? weft__ct_alloc(t, sizes[k - 1]) : NULL;
		l.bufs[k] = b[k] ? b[k] : out;
	}
	if (!weft__ct_write(t, out, 0, low, sizeof low, 0) &&
	    !weft__ct_step(t, &l, 1, 1) && !weft__ct_sync(t))
		weft__ct_read(t, low, out, 0, sizeof low, 0);
	if (!t->why[0]) {
		/* out (slot 0) is checked in the first round only. */
		for (size_t k = how[0] ? 1 : 0; k <= n; k++) {
			weft__ct_begin(t,
				       "a buffer of %zu bytes%s is 64-byte "
				       "aligned where kernels see it",
				       k ? sizes[k - 1] : sizeof low, how);
			weft__ct_expect(t, low[k] < 64,
					"the kernel did not write its result "
					"(slot %zu still holds 0x%08x)",
					k, (unsigned)low[k]);
			weft__ct_expect(t, low[k] == 0,
					"a kernel saw its address at %u bytes "
					"past a multiple of 64",
					(unsigned)low[k]);
			weft__ct_end(t);
		}
	} else {
		weft__ct_end(t);
	}
	for (size_t k = 1; k < ALIGN_SLOTS; k++)
		weft__ct_free(t, b[k]);
}

void weft__ct_group_align(weft__ct *t)
{
	static const size_t first[] = { 0,     1,	3,	    63,
					64,    65,	100,	    4097,
					65537, MIB + 1, 8 * MIB + 3 };
	static const size_t again[] = { 5, 4095, 70001, 3 * MIB + 7 };
	weft_buf *out;

	weft__ct_begin(t, "setup: the result buffer");
	out = weft__ct_alloc(t, 64);
	if (!weft__ct_end_quiet(t) || !out)
		return;
	align_round(t, out, first, sizeof first / sizeof first[0], "");
	align_round(t, out, again, sizeof again / sizeof again[0],
		    " (allocated after others were freed)");
	weft__ct_free(t, out);
}

/* ---- transfer ------------------------------------------------------------ */

static const size_t xfer_sizes[] = { 0, 1, 3, 4095, 4097, MIB };
#define N_XFER_SIZES (sizeof xfer_sizes / sizeof xfer_sizes[0])
#define XFER_PAD     16 /* bytes after the range, which must not change */

/* The whole buffer reads back as want (blocking). */
static void xfer_expect(weft__ct *t, weft_buf *b, const unsigned char *want,
			size_t n, const char *what)
{
	unsigned char *got = weft__ct_xmalloc(t, n);

	if (got && !weft__ct_read(t, got, b, 0, n, 0))
		same_bytes(t, got, want, n, what);
	free(got);
}

/* One H2D + D2H round trip of n bytes at off; outside [off, off + n) the
 * buffer keeps what it held. */
static void xfer_h2d(weft__ct *t, size_t n, size_t off, unsigned flags)
{
	size_t total = off + n + XFER_PAD;
	unsigned char *old = weft__ct_xmalloc(t, total);
	unsigned char *data = weft__ct_xmalloc(t, n);
	unsigned char *back = weft__ct_xmalloc(t, n);
	weft_buf *b = old && data && back ? weft__ct_alloc(t, total) : NULL;
	char what[96];

	weft__ct_fmt(what, sizeof what, "%s round trip at offset %zu",
		     flags ? "async" : "blocking", off);
	if (b) {
		weft__ct_pattern(old, total, 1);
		weft__ct_pattern(data, n, 2 + (unsigned)off);
		memset(back, 0, n);
		if (!weft__ct_write(t, b, 0, old, total, 0) &&
		    !weft__ct_write(t, b, off, data, n, flags) &&
		    !weft__ct_read(t, back, b, off, n, flags) &&
		    !weft__ct_sync(t) && same_bytes(t, back, data, n, what)) {
			memcpy(old + off, data, n);
			xfer_expect(t, b, old, total,
				    "the whole buffer after the write");
		}
	}
	weft__ct_free(t, b);
	free(old);
	free(data);
	free(back);
}

/* A D2D copy of n bytes from src + soff to dst + doff. */
static void xfer_d2d(weft__ct *t, size_t n, size_t soff, size_t doff,
		     unsigned flags)
{
	size_t ts = soff + n + XFER_PAD, td = doff + n + XFER_PAD;
	unsigned char *s = weft__ct_xmalloc(t, ts),
		      *d = weft__ct_xmalloc(t, td);
	weft_buf *bs = s && d ? weft__ct_alloc(t, ts) : NULL;
	weft_buf *bd = bs ? weft__ct_alloc(t, td) : NULL;

	if (bd) {
		weft__ct_pattern(s, ts, 3);
		weft__ct_pattern(d, td, 4);
		if (!weft__ct_write(t, bs, 0, s, ts, 0) &&
		    !weft__ct_write(t, bd, 0, d, td, 0) &&
		    !weft__ct_copy(t, bd, doff, bs, soff, n, flags) &&
		    !weft__ct_sync(t)) {
			memcpy(d + doff, s + soff, n);
			xfer_expect(t, bd, d, td, "the destination buffer");
			xfer_expect(t, bs, s, ts, "the source buffer");
		}
	}
	weft__ct_free(t, bs);
	weft__ct_free(t, bd);
	free(s);
	free(d);
}

static void xfer_sizes_all(weft__ct *t)
{
	for (size_t i = 0; i < N_XFER_SIZES; i++) {
		size_t n = xfer_sizes[i];

		weft__ct_begin(t,
			       "H2D then D2H round trip of %zu bytes at "
			       "offsets 0 and 7, blocking and async, "
			       "touching only those bytes",
			       n);
		for (unsigned f = 0; f < 2 && !t->why[0]; f++) {
			xfer_h2d(t, n, 0, f ? WEFT_XFER_ASYNC : 0);
			xfer_h2d(t, n, 7, f ? WEFT_XFER_ASYNC : 0);
		}
		weft__ct_end(t);
	}
	for (size_t i = 0; i < N_XFER_SIZES; i++) {
		size_t n = xfer_sizes[i];

		weft__ct_begin(t,
			       "D2D copy of %zu bytes between offsets 0 and "
			       "7, blocking and async, touching only those "
			       "bytes",
			       n);
		for (unsigned f = 0; f < 2 && !t->why[0]; f++) {
			xfer_d2d(t, n, 0, 0, f ? WEFT_XFER_ASYNC : 0);
			xfer_d2d(t, n, 7, 0, f ? WEFT_XFER_ASYNC : 0);
			xfer_d2d(t, n, 0, 7, f ? WEFT_XFER_ASYNC : 0);
		}
		weft__ct_end(t);
	}
}

/* A read into the middle of a host buffer leaves the rest of it alone. */
static void xfer_partial_read(weft__ct *t)
{
	unsigned char data[256], host[160], want[160];
	weft_buf *b;

	weft__ct_begin(t, "a partial read writes only its bytes of the host "
			  "buffer");
	b = weft__ct_alloc(t, sizeof data);
	if (b) {
		weft__ct_pattern(data, sizeof data, 5);
		memset(host, 0xEE, sizeof host);
		memcpy(want, host, sizeof want);
		memcpy(want + 16, data + 13, 100);
		if (!weft__ct_write(t, b, 0, data, sizeof data, 0) &&
		    !weft__ct_read(t, host + 16, b, 13, 100, 0))
			same_bytes(t, host, want, sizeof host,
				   "host buffer after reading 100 bytes at "
				   "offset 13 into its byte 16");
	}
	weft__ct_free(t, b);
	weft__ct_end(t);
}

/* An overlapping copy within one buffer, like memmove. */
static void xfer_overlap(weft__ct *t, size_t from, size_t to, const char *dir)
{
	enum { SIZE = 8192, N = 5000 };
	unsigned char *h = weft__ct_xmalloc(t, SIZE);
	weft_buf *b = h ? weft__ct_alloc(t, SIZE) : NULL;

	weft__ct_begin(t,
		       "an overlapping copy within one buffer %s behaves "
		       "like memmove",
		       dir);
	if (b) {
		weft__ct_pattern(h, SIZE, 6);
		if (!weft__ct_write(t, b, 0, h, SIZE, 0) &&
		    !weft__ct_copy(t, b, to, b, from, N, 0)) {
			memmove(h + to, h + from, N);
			xfer_expect(t, b, h, SIZE, "the buffer");
		}
	}
	weft__ct_free(t, b);
	free(h);
	weft__ct_end(t);
}

void weft__ct_group_transfer(weft__ct *t)
{
	xfer_sizes_all(t);
	xfer_partial_read(t);
	xfer_overlap(t, 0, 1000, "forward (5000 bytes from 0 to 1000)");
	xfer_overlap(t, 1000, 0, "backward (5000 bytes from 1000 to 0)");
}

/* ---- async-order --------------------------------------------------------- */

#define AO_SIZE 4096

/* Three overlapping async writes, then a read: the last issued wins. */
static void ao_writes(weft__ct *t, unsigned read_flags, const char *how)
{
	unsigned char *a = weft__ct_xmalloc(t, AO_SIZE);
	unsigned char *bb = weft__ct_xmalloc(t, AO_SIZE);
	unsigned char *c = weft__ct_xmalloc(t, AO_SIZE);
	unsigned char *want = weft__ct_xmalloc(t, AO_SIZE);
	unsigned char *got = weft__ct_xmalloc(t, AO_SIZE);
	weft_buf *b = got ? weft__ct_alloc(t, AO_SIZE) : NULL;

	weft__ct_begin(t,
		       "overlapping async writes are observed in issue "
		       "order (%s)",
		       how);
	if (b) {
		weft__ct_pattern(a, AO_SIZE, 21);
		weft__ct_pattern(bb, AO_SIZE, 22);
		weft__ct_pattern(c, AO_SIZE, 23);
		memcpy(want, a, AO_SIZE);
		memcpy(want + 1024, bb, 2048);
		memcpy(want + 2048, c, 2048);
		if (!weft__ct_write(t, b, 0, a, AO_SIZE, WEFT_XFER_ASYNC) &&
		    !weft__ct_write(t, b, 1024, bb, 2048, WEFT_XFER_ASYNC) &&
		    !weft__ct_write(t, b, 2048, c, 2048, WEFT_XFER_ASYNC) &&
		    (read_flags || !weft__ct_sync(t)) &&
		    !weft__ct_read(t, got, b, 0, AO_SIZE, read_flags) &&
		    !weft__ct_sync(t))
			same_bytes(t, got, want, AO_SIZE, "the buffer");
	}
	weft__ct_end(t);
	weft__ct_free(t, b);
	free(a);
	free(bb);
	free(c);
	free(want);
	free(got);
}

/* An async read, then an async write of the same bytes: the read gets
 * what was there before the write. */
static void ao_read_then_write(weft__ct *t)
{
	unsigned char old[AO_SIZE], neu[AO_SIZE], got[AO_SIZE];
	weft_buf *b;

	weft__ct_begin(t, "an async read followed by an async write to the "
			  "same bytes reads the old value");
	b = weft__ct_alloc(t, AO_SIZE);
	if (b) {
		weft__ct_pattern(old, AO_SIZE, 31);
		weft__ct_pattern(neu, AO_SIZE, 32);
		memset(got, 0, sizeof got);
		if (!weft__ct_write(t, b, 0, old, AO_SIZE, 0) &&
		    !weft__ct_read(t, got, b, 0, AO_SIZE, WEFT_XFER_ASYNC) &&
		    !weft__ct_write(t, b, 0, neu, AO_SIZE, WEFT_XFER_ASYNC) &&
		    !weft__ct_sync(t) &&
		    same_bytes(t, got, old, AO_SIZE, "the async read"))
			xfer_expect(t, b, neu, AO_SIZE,
				    "the buffer after the write");
	}
	weft__ct_free(t, b);
	weft__ct_end(t);
}

/* Async write, launch, async copy, async read: each sees the one before. */
static void ao_launches(weft__ct *t)
{
	enum { N = 1000 };
	uint32_t *h = weft__ct_xmalloc(t, (N + 2 * CF_GUARD) * 4);
	uint32_t *got = weft__ct_xmalloc(t, (N + 2 * CF_GUARD) * 4);
	weft_buf *x = got ? weft__ct_guarded(t, N, 0) : NULL;
	weft_buf *y = x ? weft__ct_guarded(t, N, 0) : NULL;
	weft_launch l = weft__ct_launch(CF_K_INC, N, x, NULL);
	size_t bytes = (N + 2 * CF_GUARD) * 4;

	weft__ct_begin(t, "an async write, a launch, an async copy and an "
			  "async read each see the one issued before");
	if (y && !weft__ct_read(t, h, x, 0, bytes, 0)) {
		for (uint32_t i = 0; i < N; i++)
			h[CF_GUARD + i] = 1000u + 3u * i;
		memset(got, 0, bytes);
		if (!weft__ct_write(t, x, 0, h, bytes, WEFT_XFER_ASYNC) &&
		    !weft__ct_step(t, &l, 1, 1) &&
		    !weft__ct_copy(t, y, 0, x, 0, bytes, WEFT_XFER_ASYNC) &&
		    !weft__ct_read(t, got, y, 0, bytes, WEFT_XFER_ASYNC) &&
		    !weft__ct_sync(t)) {
			for (uint32_t i = 0; i < N; i++)
				h[CF_GUARD + i] += 1;
			same_bytes(t, got, h, bytes,
				   "the copy of the incremented buffer");
		}
	}
	weft__ct_end(t);
	weft__ct_free(t, x);
	weft__ct_free(t, y);
	free(h);
	free(got);
}

void weft__ct_group_async(weft__ct *t)
{
	ao_writes(t, 0, "blocking read after sync");
	ao_writes(t, WEFT_XFER_ASYNC, "async read, then sync");
	ao_read_then_write(t);
	ao_launches(t);
}
