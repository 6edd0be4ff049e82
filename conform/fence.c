/*
 * conform/fence.c - conformance group fence: the optional fence() and
 * wait() of ABI 1.1 (weft/backend.h), which the core's output pipeline uses
 * to wait for one chunk's snapshot reads while the next chunk runs.
 *
 * fence() returns WEFT_OK and increasing tokens, and never waits: busy
 * work (conform/busy.c) is queued right before it, and it must return
 * before that work could have completed. wait() makes the asynchronous
 * reads issued before its fence visible, in issue order, even when they
 * were queued behind busy work; it does not wait for busy work issued
 * after the fence; later work completes at sync() in the queue's order
 * (whether it had run at wait() is not asserted). A fence 10000 fences
 * old, or 5000, never waited for, is still waited for: backends that keep
 * fences in a ring must cover old tokens. An unknown token is refused
 * with a message; waits are counted in fence_waits and neither fence()
 * nor wait() in syncs. A backend that runs work as it is issued passes
 * the timing checks trivially. A plugin without them (a 1.0 vtable, or
 * NULL functions) has every test skipped: the core then uses sync().
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "conform.h"

#define DELTA(a, b, f) ((unsigned long long)((b).f - (a).f))

/* Words of the buffers the tests read back. */
#define FN 1000u

/* The group's tests, also listed when they are skipped. */
enum {
	FT_NOWAIT,
	FT_READS,
	FT_LATER,
	FT_NOLATER,
	FT_HISTORY,
	FT_UNKNOWN,
	FT_AGAIN,
	FT_COUNTED,
	FT_N
};
static const char *const fence_tests[FT_N] = {
	[FT_NOWAIT] = "fence() never waits: it returns while busy work issued "
		      "before it still runs, without a sync, and tokens "
		      "increase",
	[FT_READS] = "wait(token) makes the async reads issued before the "
		     "fence visible, in issue order",
	[FT_LATER] = "after wait(), later work completes at sync() with the "
		     "results of the queue's order",
	[FT_NOLATER] = "wait() on a fence returns without waiting for busy "
		       "work issued after the fence",
	[FT_HISTORY] = "wait() on a fence 10000 fences old, then on one 5000 "
		       "old, never waited for, returns WEFT_OK once the work "
		       "before each has completed",
	[FT_UNKNOWN] = "wait() on a token no fence returned is refused with "
		       "WEFT_E_INVALID and a message",
	[FT_AGAIN] = "waiting twice, or on an older token, returns WEFT_OK",
	[FT_COUNTED] = "each wait() counts one fence wait; fence() and wait() "
		       "count no sync",
};

/* Busy work, x += 1, then fence() at once: it returns before the busy work
 * could have completed; more fences and a step: tokens increase, and the
 * fences count no sync. */
static void nowait_try(weft__ct *t, void *arg)
{
	weft_buf *x = weft__ct_guarded(t, FN, 0);
	weft_launch l = weft__ct_launch(CF_K_INC, FN, x, NULL);
	weft_stats a = { .struct_size = 0 }, b = { .struct_size = 0 };
	uint64_t tok[3] = { 0, 0, 0 };
	weft__ct_timed c;

	(void)arg;
	if (!x || weft__ct_busy(t) || weft__ct_step(t, &l, 1, 1))
		goto release;
	weft__ct_nowait_begin(&c);
	if (weft__ct_fence(t, &tok[0]) ||
	    !weft__ct_nowait_end(t, &c,
				 "fence() right after busy work and a step",
				 "fence() never waits"))
		goto release;
	if (weft__ct_stats(t, &a) || weft__ct_fence(t, &tok[1]) ||
	    weft__ct_step(t, &l, 1, 1) || weft__ct_fence(t, &tok[2]) ||
	    weft__ct_stats(t, &b))
		goto release;
	weft__ct_expect(t, tok[0] > 0 && tok[1] > tok[0] && tok[2] > tok[1],
			"tokens %llu, %llu, %llu do not increase from 1 or "
			"more",
			(unsigned long long)tok[0], (unsigned long long)tok[1],
			(unsigned long long)tok[2]);
	weft__ct_expect(t, DELTA(a, b, syncs) == 0, "syncs grew by %llu",
			DELTA(a, b, syncs));
release:
	weft__ct_sync(t);
	weft__ct_free(t, x);
}

/* Busy work, then two async reads into r1 (of y, then of x), a fence, a
 * launch and another async read into r2: wait() delivers r1 (x before the
 * launch; the read of y landed first). Issued while the busy work runs,
 * so that a wait() that does not wait finds them pending. */
static void reads_try(weft__ct *t, void *arg)
{
	size_t bytes = (FN + 2 * CF_GUARD) * 4;
	uint32_t *r1 = weft__ct_xmalloc(t, bytes);
	uint32_t *r2 = r1 ? weft__ct_xmalloc(t, bytes) : NULL;
	weft_buf *x = r2 ? weft__ct_counting(t, FN, 500) : NULL;
	weft_buf *y = x ? weft__ct_counting(t, FN, 9000) : NULL;
	weft_launch l = weft__ct_launch(CF_K_INC, FN, x, NULL);
	uint64_t f = 0;

	(void)arg;
	if (!y || t->why[0])
		goto release;
	memset(r1, 0xA5, bytes);
	memset(r2, 0xA5, bytes);
	if (weft__ct_busy(t) ||
	    weft__ct_read(t, r1, y, 0, bytes, WEFT_XFER_ASYNC) ||
	    weft__ct_read(t, r1, x, 0, bytes, WEFT_XFER_ASYNC) ||
	    weft__ct_fence(t, &f) || weft__ct_step(t, &l, 1, 1) ||
	    weft__ct_read(t, r2, x, 0, bytes, WEFT_XFER_ASYNC))
		goto release;
	weft__ct_busy_check(t); /* the reads are still queued */
	if (!weft__ct_wait(t, f))
		weft__ct_words_affine(t, r1 + CF_GUARD, FN, 500, 1,
				      "the read before the fence");
release:
	weft__ct_sync(t);
	weft__ct_free(t, x);
	weft__ct_free(t, y);
	free(r1);
	free(r2);
}

/* An async read of x into r1, a fence, then busy work, x += 1 and an async
 * read into r2: wait() on the fence returns before the busy work could
 * have completed (nolater) with r1 filled; sync() then gives r2 the state
 * after the launch (later). */
static void later_try(weft__ct *t, int nolater)
{
	size_t bytes = (FN + 2 * CF_GUARD) * 4;
	uint32_t *r1 = weft__ct_xmalloc(t, bytes);
	uint32_t *r2 = r1 ? weft__ct_xmalloc(t, bytes) : NULL;
	weft_buf *x = r2 ? weft__ct_counting(t, FN, 500) : NULL;
	weft_launch l = weft__ct_launch(CF_K_INC, FN, x, NULL);
	uint64_t f = 0;
	weft__ct_timed c;

	if (!x || t->why[0])
		goto release;
	memset(r1, 0xA5, bytes);
	memset(r2, 0xA5, bytes);
	if (weft__ct_read(t, r1, x, 0, bytes, WEFT_XFER_ASYNC) ||
	    weft__ct_fence(t, &f) || weft__ct_busy(t) ||
	    weft__ct_step(t, &l, 1, 1) ||
	    weft__ct_read(t, r2, x, 0, bytes, WEFT_XFER_ASYNC))
		goto release;
	weft__ct_nowait_begin(&c);
	if (weft__ct_wait(t, f) ||
	    (nolater &&
	     !weft__ct_nowait_end(t, &c,
				  "wait() on a fence issued before the busy "
				  "work",
				  "wait() does not wait for work issued after "
				  "its fence")))
		goto release;
	if (nolater) {
		weft__ct_words_affine(t, r1 + CF_GUARD, FN, 500, 1,
				      "the read before the fence, when wait() "
				      "returned");
	} else if (!weft__ct_sync(t)) {
		weft__ct_words_affine(t, r2 + CF_GUARD, FN, 501, 1,
				      "the read after the launch");
	}
release:
	weft__ct_sync(t);
	weft__ct_free(t, x);
	free(r1);
	free(r2);
}

static void later_wait_try(weft__ct *t, void *arg)
{
	(void)arg;
	later_try(t, 0);
}

static void nolater_try(weft__ct *t, void *arg)
{
	(void)arg;
	later_try(t, 1);
}

/* Fences between the reads the test waits for: a backend keeping the
 * last few hundred or thousand fences has long forgotten the first. */
#define HISTORY_FENCES 5000u

/* Issue n fences; 0 when they all returned WEFT_OK. */
static int fences(weft__ct *t, uint32_t n)
{
	uint64_t tok = 0;

	for (uint32_t k = 0; k < n; k++)
		if (weft__ct_fence(t, &tok))
			return -1;
	return 0;
}

/* Busy work, x += 1, an async read of x into r1, fence f1, 5000 fences,
 * x += 1, a read into r2, fence fm, 5000 fences; then wait(f1) fills r1
 * (501 + i) and wait(fm) fills r2 (502 + i): neither token was waited for,
 * and both are older than many a backend's fence history. */
static void history_try(weft__ct *t, void *arg)
{
	size_t bytes = (FN + 2 * CF_GUARD) * 4;
	uint32_t *r1 = weft__ct_xmalloc(t, bytes);
	uint32_t *r2 = r1 ? weft__ct_xmalloc(t, bytes) : NULL;
	weft_buf *x = r2 ? weft__ct_counting(t, FN, 500) : NULL;
	weft_launch l = weft__ct_launch(CF_K_INC, FN, x, NULL);
	uint64_t f1 = 0, fm = 0;

	(void)arg;
	if (!x || t->why[0])
		goto release;
	memset(r1, 0xA5, bytes);
	memset(r2, 0xA5, bytes);
	if (weft__ct_busy(t) || weft__ct_step(t, &l, 1, 1) ||
	    weft__ct_read(t, r1, x, 0, bytes, WEFT_XFER_ASYNC) ||
	    weft__ct_fence(t, &f1) || fences(t, HISTORY_FENCES) ||
	    weft__ct_step(t, &l, 1, 1) ||
	    weft__ct_read(t, r2, x, 0, bytes, WEFT_XFER_ASYNC) ||
	    weft__ct_fence(t, &fm) || fences(t, HISTORY_FENCES))
		goto release;
	weft__ct_busy_check(t); /* the first read is still queued */
	if (!weft__ct_wait(t, f1) &&
	    weft__ct_words_affine(t, r1 + CF_GUARD, FN, 501, 1,
				  "wait() on a fence 10001 fences old "
				  "returned before the async read issued "
				  "before it had landed (a fence older than "
				  "the backend's fence history must still be "
				  "waited for): that read") &&
	    !weft__ct_wait(t, fm))
		weft__ct_words_affine(t, r2 + CF_GUARD, FN, 502, 1,
				      "wait() on a fence 5000 fences old, "
				      "never waited for, returned before the "
				      "async read issued before it had landed: "
				      "that read");
release:
	weft__ct_sync(t);
	weft__ct_free(t, x);
	free(r1);
	free(r2);
}

/* Unknown tokens are refused, with a message; known ones may be waited
 * for again. Counted: every successful wait() in fence_waits, none of
 * fence() and wait() in syncs. */
static void fence_tokens_known(weft__ct *t)
{
	weft_stats a = { .struct_size = 0 }, b = { .struct_size = 0 };
	uint64_t f = 0, g = 0;
	weft_status st;

	weft__ct_begin(t, "%s", fence_tests[FT_UNKNOWN]);
	if (!weft__ct_fence(t, &f)) {
		t->err.msg[0] = '\0';
		st = t->vt->wait(t->dev, f + 1000, &t->err);
		weft__ct_expect(t, st == WEFT_E_INVALID,
				"wait(%llu), the last fence being %llu, "
				"returned %s",
				(unsigned long long)(f + 1000),
				(unsigned long long)f, weft_status_str(st));
		weft__ct_expect(t, t->err.msg[0] != '\0',
				"the refusal has no message");
	}
	weft__ct_end(t);
	weft__ct_begin(t, "%s", fence_tests[FT_AGAIN]);
	if (!weft__ct_fence(t, &g) && !weft__ct_wait(t, g) &&
	    !weft__ct_wait(t, g))
		weft__ct_wait(t, f);
	weft__ct_end(t);
	weft__ct_begin(t, "%s", fence_tests[FT_COUNTED]);
	if (!weft__ct_stats(t, &a) && !weft__ct_fence(t, &f) &&
	    !weft__ct_wait(t, f) && !weft__ct_wait(t, f) &&
	    !weft__ct_fence(t, &g) && !weft__ct_wait(t, g) &&
	    !weft__ct_stats(t, &b)) {
		weft__ct_expect(t, DELTA(a, b, fence_waits) == 3,
				"3 waits made, fence_waits grew by %llu",
				DELTA(a, b, fence_waits));
		weft__ct_expect(t, DELTA(a, b, syncs) == 0,
				"syncs grew by %llu", DELTA(a, b, syncs));
	}
	weft__ct_end(t);
}

void weft__ct_group_fence(weft__ct *t)
{
	const weft_backend *vt = t->vt;

	if (!weft__ct_has_fences(t)) {
		for (int i = 0; i < FT_N; i++) {
			weft__ct_begin(t, "%s", fence_tests[i]);
			weft__ct_skip(t,
				      "no fence() and wait() (%s): the core "
				      "uses sync() instead",
				      vt->struct_size < WEFT_BACKEND_V1_1_SIZE
					      ? "a vtable older than ABI 1.1"
					      : "left NULL");
		}
		return;
	}
	weft__ct_overlap_test(t, fence_tests[FT_NOWAIT], nowait_try, NULL);
	weft__ct_overlap_test(t, fence_tests[FT_READS], reads_try, NULL);
	weft__ct_overlap_test(t, fence_tests[FT_LATER], later_wait_try, NULL);
	weft__ct_overlap_test(t, fence_tests[FT_NOLATER], nolater_try, NULL);
	weft__ct_overlap_test(t, fence_tests[FT_HISTORY], history_try, NULL);
	fence_tokens_known(t);
}
