/*
 * conform/ordering.c - conformance group ordering: what a caller may count
 * on without sync() (weft/backend.h, "Lifetime and ordering"):
 *
 *   rule 4  a blocking read, write or copy issued right after queued
 *           launches returns once it has completed after them: a read or
 *           a copy gives the bytes they left, a write or a copy lands
 *           after them (they see the bytes it replaced), and later work
 *           sees what it wrote;
 *   rule 5  the host memory of an asynchronous write may be reused once
 *           wait() on a later fence, or a later blocking transfer, has
 *           returned;
 *   rule 6  the host memory of an asynchronous read is filled when wait()
 *           on a later fence, or sync(), returns, and is not written
 *           afterwards.
 *
 * Each test queues busy work (conform/busy.c) right before the work that
 * the operation under test must wait for or come after, and makes sure
 * that the operation was issued while the busy work surely still ran: an
 * asynchronous call is checked right after it returned, a blocking one
 * right before it is made (once it returns, a backend that keeps the
 * promise has waited for the busy work). A try that was not in time is run
 * again with more busy work (weft__ct_overlap()), so that no test passes
 * because the queue happened to be quick. A backend that runs work when it
 * is issued passes trivially; tests/plugins/async.c and its broken
 * variants show one with a queue passing, and each broken promise caught.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "conform.h"

/* Words of the buffers the tests use, and the bytes of one with its guard
 * words. */
#define LN     1000u
#define LBYTES (((size_t)LN + 2 * CF_GUARD) * 4)

/* Word i of got (LN words) is base + mul * i, or the first that is not is
 * recorded as "what: word i is G, want W: why". Returns 1 when all are. */
static int want_words(weft__ct *t, const uint32_t *got, uint32_t base,
		      uint32_t mul, const char *what, const char *why)
{
	for (uint32_t i = 0; i < LN; i++)
		if (got[i] != base + mul * i)
			return weft__ct_expect(
				t, 0, "%s: word %u is %u, want %u: %s", what,
				(unsigned)i, (unsigned)got[i],
				(unsigned)(base + mul * i), why);
	return 1;
}

/* Read the guarded buffer b into h (LBYTES, blocking) and check its LN
 * words as want_words() does. */
static int holds(weft__ct *t, weft_buf *b, uint32_t *h, uint32_t base,
		 uint32_t mul, const char *what, const char *why)
{
	return !weft__ct_read(t, h, b, 0, LBYTES, 0) &&
	       want_words(t, h + CF_GUARD, base, mul, what, why);
}

/* ---- rule 4: blocking transfers wait for the work before them ------------ */

/* What a rule-4 try works on: host memory *h of LBYTES, *x = 100 + i and,
 * when y is not NULL, *y = 0 (guarded buffers of LN words). Returns 0 when
 * all were allocated (else the reason is recorded); xy_free() releases
 * what was. */
static int xy_alloc(weft__ct *t, uint32_t **h, weft_buf **x, weft_buf **y)
{
	*h = weft__ct_xmalloc(t, LBYTES);
	*x = *h ? weft__ct_counting(t, LN, 100) : NULL;
	if (y)
		*y = *x ? weft__ct_guarded(t, LN, 0) : NULL;
	return *x && (!y || *y) ? 0 : -1;
}

static void xy_free(weft__ct *t, uint32_t *h, weft_buf *x, weft_buf *y)
{
	weft__ct_free(t, x);
	weft__ct_free(t, y);
	free(h);
}

/* x = 100 + i; busy work, step(7) of x += 1, and at once a blocking read
 * of x: 107 + i. */
static void read_try(weft__ct *t, void *arg)
{
	uint32_t *h;
	weft_buf *x;
	int bad = xy_alloc(t, &h, &x, NULL);
	weft_launch l = weft__ct_launch(CF_K_INC, LN, x, NULL);

	(void)arg;
	if (bad || weft__ct_busy(t) || weft__ct_step(t, &l, 1, 7))
		goto release;
	weft__ct_busy_check(t); /* the read is issued now */
	if (!weft__ct_read(t, h, x, 0, LBYTES, 0))
		want_words(t, h + CF_GUARD, 107, 1,
			   "x (100 + i), read blocking right after step(7) of "
			   "x += 1 was queued behind busy work",
			   "the read did not wait for the queued launches (a "
			   "blocking read gives the bytes every earlier launch "
			   "left)");
release:
	xy_free(t, h, x, NULL);
}

/* y = 0, x = 100 + i; busy work, y = 2y + x, a blocking write of
 * x = 9000 + i, y = 2y + x: the first launch sees the old x, the second the
 * new one, y = 2 (100 + i) + 9000 + i. */
static void write_try(weft__ct *t, void *arg)
{
	uint32_t *h;
	weft_buf *x, *y;
	int bad = xy_alloc(t, &h, &x, &y);
	weft_launch l = weft__ct_launch(CF_K_MAD, LN, y, x);

	(void)arg;
	if (bad)
		goto release;
	for (uint32_t i = 0; i < LN; i++)
		h[i] = 9000u + i;
	if (weft__ct_busy(t) || weft__ct_step(t, &l, 1, 1))
		goto release;
	weft__ct_busy_check(t); /* the write is issued now */
	if (!weft__ct_write(t, x, CF_GUARD * 4, h, (size_t)LN * 4, 0) &&
	    !weft__ct_step(t, &l, 1, 1) && !weft__ct_sync(t))
		holds(t, y, h, 9200, 3,
		      "y after y = 2y + x (queued behind busy work), a "
		      "blocking write of x = 9000 + i over x = 100 + i, "
		      "y = 2y + x",
		      "a blocking write lands after the launches queued before "
		      "it (they see the bytes it replaced) and before those "
		      "issued after it");
release:
	xy_free(t, h, x, y);
}

/* x = 100 + i, z = 0; busy work, step(2) of [x += 1, z = 2z + x], a
 * blocking copy of x into z, then z += 1: the copy takes x = 102 + i and
 * lands after the launches, z = 103 + i (a copy made at once gives
 * 705 + 7i). */
static void copy_try(weft__ct *t, void *arg)
{
	uint32_t *h;
	weft_buf *x, *z;
	int bad = xy_alloc(t, &h, &x, &z);
	weft_launch l[2] = { weft__ct_launch(CF_K_INC, LN, x, NULL),
			     weft__ct_launch(CF_K_MAD, LN, z, x) };
	weft_launch inc_z = weft__ct_launch(CF_K_INC, LN, z, NULL);

	(void)arg;
	if (bad || weft__ct_busy(t) || weft__ct_step(t, l, 2, 2))
		goto release;
	weft__ct_busy_check(t); /* the copy is issued now */
	if (!weft__ct_copy(t, z, 0, x, 0, LBYTES, 0) &&
	    !weft__ct_step(t, &inc_z, 1, 1) && !weft__ct_sync(t))
		holds(t, z, h, 103, 1,
		      "z after step(2) of [x += 1, z = 2z + x] (queued behind "
		      "busy work), a blocking copy of x (100 + i) into z, and "
		      "z += 1",
		      "a blocking copy takes the bytes the launches queued "
		      "before it left, lands after them, and later launches "
		      "see it");
release:
	xy_free(t, h, x, z);
}

/* ---- rule 5: the host memory of an asynchronous write -------------------- */

/* After the async write of x, behind busy work: wait() on a fence issued
 * after it (by_fence), or a blocking read of another buffer o. */
static int release_host(weft__ct *t, weft_buf *o, int by_fence)
{
	uint32_t other[4];
	uint64_t f = 0;

	if (by_fence)
		return weft__ct_fence(t, &f) || weft__ct_wait(t, f) ? -1 : 0;
	return weft__ct_read(t, other, o, 0, sizeof other, 0);
}

/* Busy work, an async write of x = 300 + i from h, release_host(); h is
 * then overwritten: the write took the old bytes. */
static void async_write_try(weft__ct *t, void *arg)
{
	int by_fence = *(const int *)arg;
	uint32_t *h = weft__ct_xmalloc(t, LBYTES);
	weft_buf *x = h ? weft__ct_guarded(t, LN, 0) : NULL;
	weft_buf *o = x ? weft__ct_alloc(t, 16) : NULL;

	if (!o || weft__ct_read(t, h, x, 0, LBYTES, 0))
		goto release;
	for (uint32_t i = 0; i < LN; i++)
		h[CF_GUARD + i] = 300u + i;
	if (weft__ct_busy(t) ||
	    weft__ct_write(t, x, 0, h, LBYTES, WEFT_XFER_ASYNC))
		goto release;
	weft__ct_busy_check(t); /* the write is still queued */
	if (release_host(t, o, by_fence))
		goto release;
	memset(h + CF_GUARD, 0xEE, (size_t)LN * 4);
	if (!weft__ct_sync(t))
		holds(t, x, h, 300, 1,
		      by_fence ? "x after an async write of 300 + i (queued "
				 "behind busy work), wait() on a fence issued "
				 "after it, then its host memory overwritten"
			       : "x after an async write of 300 + i (queued "
				 "behind busy work), a blocking read of "
				 "another buffer, then its host memory "
				 "overwritten",
		      by_fence ? "the write had not read its host memory when "
				 "wait() on a later fence returned"
			       : "the write had not read its host memory when "
				 "a later blocking transfer returned");
release:
	weft__ct_sync(t); /* nothing queued still reads h */
	weft__ct_free(t, x);
	weft__ct_free(t, o);
	free(h);
}

/* ---- rule 6: the host memory of an asynchronous read --------------------- */

#define MARK 0x5Au /* what the caller writes into delivered host memory */

/* The host memory h (LBYTES) still holds the caller's MARK bytes. */
static int still_marked(weft__ct *t, const uint32_t *h, const char *what)
{
	const unsigned char *p = (const unsigned char *)h;

	for (size_t k = 0; k < LBYTES; k++)
		if (p[k] != MARK)
			return weft__ct_expect(
				t, 0,
				"%s: byte %zu is 0x%02x, not the caller's "
				"0x%02x "
				"written after it was delivered: the backend "
				"wrote the host memory of an async read after "
				"sync() or wait() had returned",
				what, k, (unsigned)p[k], MARK);
	return 1;
}

/* x = 100 + i; busy work, an async read of x into r1, a fence f, x += 1,
 * an async read into r2. wait(f) fills r1 (100 + i), sync() r2 (101 + i);
 * the caller then marks both, and more work and a sync() leave them as
 * marked. Without fences, sync() fills both. */
static void async_read_try(weft__ct *t, void *arg)
{
	int fences = *(const int *)arg;
	uint32_t *r1 = weft__ct_xmalloc(t, LBYTES);
	uint32_t *r2 = r1 ? weft__ct_xmalloc(t, LBYTES) : NULL;
	weft_buf *x = r2 ? weft__ct_counting(t, LN, 100) : NULL;
	weft_launch l = weft__ct_launch(CF_K_INC, LN, x, NULL);
	uint64_t f = 0;

	if (!x)
		goto release;
	memset(r1, 0xA5, LBYTES);
	memset(r2, 0xA5, LBYTES);
	if (weft__ct_busy(t) ||
	    weft__ct_read(t, r1, x, 0, LBYTES, WEFT_XFER_ASYNC) ||
	    (fences && weft__ct_fence(t, &f)) || weft__ct_step(t, &l, 1, 1) ||
	    weft__ct_read(t, r2, x, 0, LBYTES, WEFT_XFER_ASYNC))
		goto release;
	weft__ct_busy_check(t); /* both reads are still queued */
	if (fences) {
		if (weft__ct_wait(t, f) ||
		    !want_words(t, r1 + CF_GUARD, 100, 1,
				"the async read of x (100 + i) issued before a "
				"fence, when wait() on the fence returned",
				"its host memory is filled when wait() on a "
				"fence issued after it returns"))
			goto release;
		memset(r1, MARK, LBYTES);
	}
	if (weft__ct_sync(t) ||
	    (!fences && !want_words(t, r1 + CF_GUARD, 100, 1,
				    "the async read of x (100 + i), when "
				    "sync() returned",
				    "its host memory is filled when sync() "
				    "returns")) ||
	    !want_words(t, r2 + CF_GUARD, 101, 1,
			"the async read of x after x += 1, when sync() "
			"returned",
			"its host memory is filled when sync() returns"))
		goto release;
	memset(r1, MARK, LBYTES);
	memset(r2, MARK, LBYTES);
	if (!weft__ct_step(t, &l, 1, 1) && !weft__ct_sync(t) &&
	    still_marked(t, r1, "the host memory of the first async read"))
		still_marked(t, r2, "the host memory of the second async read");
release:
	weft__ct_sync(t); /* nothing queued still writes r1, r2 */
	weft__ct_free(t, x);
	free(r1);
	free(r2);
}

void weft__ct_group_ordering(weft__ct *t)
{
	static int yes = 1, no = 0;
	int fences = weft__ct_has_fences(t);
	const char *by_fence = "the host memory of an async write may be "
			       "reused once wait() on a fence issued after it "
			       "has returned";

	weft__ct_overlap_test(
		t,
		"a blocking read right after step(), with no sync(), "
		"gives the bytes the queued launches left",
		read_try, NULL);
	weft__ct_overlap_test(
		t,
		"a blocking write after queued launches lands after "
		"them: they see the bytes it replaced",
		write_try, NULL);
	weft__ct_overlap_test(
		t,
		"a blocking copy after queued launches copies the bytes "
		"they left and lands after them: later launches see it",
		copy_try, NULL);
	if (fences) {
		weft__ct_overlap_test(t, by_fence, async_write_try, &yes);
	} else {
		weft__ct_begin(t, "%s", by_fence);
		weft__ct_skip(t, "no fence() and wait()");
	}
	weft__ct_overlap_test(
		t,
		"the host memory of an async write may be reused once a "
		"later blocking read has returned",
		async_write_try, &no);
	weft__ct_overlap_test(
		t,
		fences ? "the host memory of an async read is filled "
			 "when wait() on a later fence, or sync(), "
			 "returns, and not written afterwards"
		       : "the host memory of an async read is filled "
			 "when sync() returns, and not written "
			 "afterwards",
		async_read_try, fences ? &yes : &no);
}
