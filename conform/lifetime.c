/*
 * conform/lifetime.c - conformance groups about work that runs after the
 * call that issued it (weft/backend.h, "Lifetime and ordering"):
 *
 *   lifetime  what the caller may release while work is queued: buffers
 *             (free), programs (unload_program) and the launch array of
 *             step() (rules 1 and 2);
 *   ordering  what a caller may count on without sync(): blocking
 *             transfers wait for the work before them (rule 4), and the
 *             host memory of an asynchronous write may be reused once a
 *             wait() on a later fence, or a later blocking transfer, has
 *             returned (rule 5).
 *
 * Every test issues the operation under test right after the work it
 * could disturb, with no wait in between, then waits and checks the
 * results against what running everything in issue order gives. A backend
 * that runs work when it is issued passes trivially; one with a queue
 * passes only if it keeps the promises (tests/plugins/async.c and its
 * broken variants show both).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "conform.h"

/* Words of the buffers the tests use. */
#define LN     1000u
#define LBYTES (((size_t)LN + 2 * CF_GUARD) * 4)

/* ---- lifetime ------------------------------------------------------------ */

/* A control block whose count word holds count (as device-extent's). */
static weft_buf *count_block(weft__ct *t, uint32_t count)
{
	uint32_t ctl[CF_CTL_WORDS] = { 0 };
	weft_buf *c = weft__ct_alloc(t, sizeof ctl);

	ctl[CF_CTL_COUNT] = count;
	if (c && weft__ct_write(t, c, 0, ctl, sizeof ctl, 0)) {
		weft__ct_free(t, c);
		c = NULL;
	}
	return c;
}

/* The guarded buffer w of LN words holds times in its first n words and
 * 0 in the others. */
static void bumped(weft__ct *t, weft_buf *w, uint32_t n, uint32_t times)
{
	uint32_t *data = weft__ct_xmalloc(t, (size_t)LN * 4);

	if (data && !weft__ct_guards(t, w, LN, data) &&
	    weft__ct_words_affine(t, data, n, times, 0,
				  "items under a count held in a freed "
				  "buffer"))
		weft__ct_words_affine(t, data + n, LN - n, 0, 0,
				      "items past that count");
	free(data);
}

/* y = 7x by three steps of y = 2y + x from y = 0; w bumped three times
 * over a device-side count of 37; z and h copies of x: x and the count's
 * buffer are freed right after the work is issued, and a new buffer of
 * x's size written at once, as a pool would hand x's memory on. */
static void lifetime_free(weft__ct *t)
{
	uint32_t *h = weft__ct_xmalloc(t, LBYTES);
	weft_buf *x = h ? weft__ct_counting(t, LN, 500) : NULL;
	weft_buf *y = x ? weft__ct_guarded(t, LN, 0) : NULL;
	weft_buf *z = y ? weft__ct_guarded(t, LN, 0) : NULL;
	weft_buf *w = z ? weft__ct_guarded(t, LN, 0) : NULL;
	weft_buf *ctl = w ? count_block(t, 37) : NULL;
	weft_buf *next = NULL;
	weft_launch l[2] = { weft__ct_launch(CF_K_MAD, LN, y, x),
			     weft__ct_launch(CF_K_BUMP, LN, w, NULL) };

	l[1].extent_buf = ctl;
	l[1].extent_offset = CF_CTL_COUNT * 4;
	weft__ct_begin(t, "free() while queued launches, a copy and an async "
			  "read still use the buffer: they see its contents "
			  "(and a device-side count in a freed buffer)");
	if (ctl && !t->why[0] && !weft__ct_step(t, l, 2, 3) &&
	    !weft__ct_copy(t, z, 0, x, 0, LBYTES, WEFT_XFER_ASYNC) &&
	    !weft__ct_read(t, h, x, 0, LBYTES, WEFT_XFER_ASYNC)) {
		weft__ct_free(t, x);
		weft__ct_free(t, ctl);
		x = ctl = NULL;
		next = weft__ct_guarded(t, LN, 0xDEADBEEFu);
		if (next && !weft__ct_sync(t) &&
		    weft__ct_words_affine(
			    t, h + CF_GUARD, LN, 500, 1,
			    "the async read of the freed buffer") &&
		    weft__ct_holds(t, y, LN, 3500, 7,
				   "y = 2y + x three times, x freed after") &&
		    weft__ct_holds(t, z, LN, 500, 1,
				   "the copy of the freed buffer"))
			bumped(t, w, 37, 3);
	}
	weft__ct_end(t);
	weft__ct_free(t, next);
	weft__ct_free(t, x);
	weft__ct_free(t, ctl);
	weft__ct_free(t, y);
	weft__ct_free(t, z);
	weft__ct_free(t, w);
	free(h);
}

/* A second copy of the suite's program, unloaded right after a step of
 * five increments was issued with it. */
static void lifetime_unload(weft__ct *t)
{
	weft_program *keep = t->prog, *other;
	weft_buf *x = weft__ct_counting(t, LN, 100);
	weft_launch l = weft__ct_launch(CF_K_INC, LN, x, NULL);

	weft__ct_begin(t, "unload_program() while launches of the program are "
			  "queued: they run to completion");
	other = x ? weft__ct_program(t) : NULL;
	if (other) {
		t->prog = other;
		weft__ct_step(t, &l, 1, 5);
		t->prog = keep;
		t->vt->unload_program(t->dev, other);
		if (!t->why[0] && !weft__ct_sync(t))
			weft__ct_holds(t, x, LN, 105, 1,
				       "x after five increments");
	}
	weft__ct_end(t);
	weft__ct_free(t, x);
}

/* step() with a list in the caller's memory, changed as soon as step()
 * returns to bind another buffer: the launches issued are the ones that
 * were in it. */
static void lifetime_launches(weft__ct *t)
{
	weft_buf *x = weft__ct_counting(t, LN, 100);
	weft_buf *z = x ? weft__ct_counting(t, LN, 7000) : NULL;
	weft_launch *l = z ? weft__ct_xmalloc(t, 2 * sizeof *l) : NULL;

	weft__ct_begin(t, "the launch list may be changed or freed as soon as "
			  "step() returns: the launches issued are those it "
			  "held");
	if (l) {
		l[0] = l[1] = weft__ct_launch(CF_K_INC, LN, x, NULL);
		if (!weft__ct_step(t, l, 2, 4)) {
			l[0] = l[1] = weft__ct_launch(CF_K_INC, LN, z, NULL);
			if (!weft__ct_sync(t) &&
			    weft__ct_holds(t, x, LN, 108, 1,
					   "x after step(4) of two "
					   "increments"))
				weft__ct_holds(t, z, LN, 7000, 1,
					       "z, bound only once step() had "
					       "returned");
		}
	}
	weft__ct_end(t);
	free(l);
	weft__ct_free(t, x);
	weft__ct_free(t, z);
}

void weft__ct_group_lifetime(weft__ct *t)
{
	lifetime_free(t);
	lifetime_unload(t);
	lifetime_launches(t);
}

/* ---- ordering ------------------------------------------------------------ */

/* A blocking read issued right after step(), no sync() between. */
static void ordering_read(weft__ct *t)
{
	weft_buf *x = weft__ct_counting(t, LN, 100);
	weft_launch l = weft__ct_launch(CF_K_INC, LN, x, NULL);

	weft__ct_begin(t, "a blocking read right after step(), with no "
			  "sync(), gives the bytes the queued launches left");
	if (x && !weft__ct_step(t, &l, 1, 7))
		weft__ct_holds(t, x, LN, 107, 1, "x read after step(7)");
	weft__ct_end(t);
	weft__ct_free(t, x);
}

/* y = 2y + x, a blocking write of x, y = 2y + x again: the first launch
 * sees the old x, the second the new one. */
static void ordering_write(weft__ct *t)
{
	uint32_t *h = weft__ct_xmalloc(t, (size_t)LN * 4);
	weft_buf *x = h ? weft__ct_counting(t, LN, 100) : NULL;
	weft_buf *y = x ? weft__ct_guarded(t, LN, 0) : NULL;
	weft_launch l = weft__ct_launch(CF_K_MAD, LN, y, x);

	weft__ct_begin(t, "a blocking write after queued launches lands after "
			  "them: they see the bytes it replaced");
	if (y) {
		for (uint32_t i = 0; i < LN; i++)
			h[i] = 9000u + i;
		/* y = (100 + i), then 2 (100 + i) + (9000 + i). */
		if (!weft__ct_step(t, &l, 1, 1) &&
		    !weft__ct_write(t, x, CF_GUARD * 4, h, (size_t)LN * 4, 0) &&
		    !weft__ct_step(t, &l, 1, 1) && !weft__ct_sync(t))
			weft__ct_holds(t, y, LN, 9200, 3,
				       "y = 2y + x before and after the "
				       "write");
	}
	weft__ct_end(t);
	weft__ct_free(t, x);
	weft__ct_free(t, y);
	free(h);
}

/* After an async write from h into x, a wait() on a later fence (by_fence)
 * or a blocking read of another buffer o; 0 when it returned. */
static int release_host(weft__ct *t, weft_buf *o, int by_fence)
{
	uint32_t other[4];
	uint64_t f = 0;

	if (by_fence)
		return weft__ct_fence(t, &f) || weft__ct_wait(t, f) ? -1 : 0;
	return weft__ct_read(t, other, o, 0, sizeof other, 0);
}

/* An async write from h, then release_host(); h is then overwritten: the
 * write took the old bytes. */
static void ordering_async_host(weft__ct *t, int by_fence)
{
	uint32_t *h = weft__ct_xmalloc(t, LBYTES);
	weft_buf *x = h ? weft__ct_guarded(t, LN, 0) : NULL;
	weft_buf *o = x ? weft__ct_alloc(t, 16) : NULL;

	weft__ct_begin(t,
		       "the host memory of an async write may be reused once "
		       "%s has returned",
		       by_fence ? "wait() on a fence issued after it"
				: "a later blocking read");
	if (o && !weft__ct_read(t, h, x, 0, LBYTES, 0)) {
		for (uint32_t i = 0; i < LN; i++)
			h[CF_GUARD + i] = 300u + i;
		if (!weft__ct_write(t, x, 0, h, LBYTES, WEFT_XFER_ASYNC) &&
		    !release_host(t, o, by_fence)) {
			memset(h + CF_GUARD, 0xEE, (size_t)LN * 4);
			if (!weft__ct_sync(t))
				weft__ct_holds(t, x, LN, 300, 1,
					       "x, whose host bytes were "
					       "overwritten after that");
		}
	}
	weft__ct_end(t);
	weft__ct_free(t, x);
	weft__ct_free(t, o);
	free(h);
}

void weft__ct_group_ordering(weft__ct *t)
{
	ordering_read(t);
	ordering_write(t);
	if (weft__ct_has_fences(t)) {
		ordering_async_host(t, 1);
	} else {
		weft__ct_begin(t, "the host memory of an async write may be "
				  "reused once wait() on a fence issued after "
				  "it has returned");
		weft__ct_skip(t, "no fence() and wait()");
	}
	ordering_async_host(t, 0);
}
