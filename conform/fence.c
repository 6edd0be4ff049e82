/*
 * conform/fence.c - conformance group fence: the optional fence() and
 * wait() of ABI 1.1 (weft/backend.h), which the core's output pipeline uses
 * to wait for one chunk's snapshot reads while the next chunk runs.
 *
 * What is portable is checked: fence() returns WEFT_OK and increasing
 * tokens, also right after a long step() (that it does not wait cannot be
 * seen on a backend that runs work as it is issued); wait() makes the
 * asynchronous reads issued before its fence visible, in issue order;
 * later work is not required to have run, nor to have not run (only the
 * results after a final sync() are checked); an unknown token is refused
 * with a message; waits are counted in fence_waits and neither fence()
 * nor wait() in syncs. A plugin without them (a 1.0 vtable, or NULL
 * functions) has every test skipped: the core then uses sync().
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "conform.h"

#define DELTA(a, b, f) ((unsigned long long)((b).f - (a).f))

/* Words of the buffers the tests read back. */
#define FN 1000u

/* The group's tests, also listed when they are skipped. */
enum { FT_TOKENS, FT_READS, FT_LATER, FT_UNKNOWN, FT_AGAIN, FT_COUNTED, FT_N };
static const char *const fence_tests[FT_N] = {
	[FT_TOKENS] = "a fence right after step(1000) returns WEFT_OK, "
		      "without a sync, and tokens increase",
	[FT_READS] = "wait(token) makes the async reads issued before the "
		     "fence visible, in issue order",
	[FT_LATER] = "after wait(), later work completes at sync() with the "
		     "results of the queue's order",
	[FT_UNKNOWN] = "wait() on a token no fence returned is refused with "
		       "WEFT_E_INVALID and a message",
	[FT_AGAIN] = "waiting twice, or on an older token, returns WEFT_OK",
	[FT_COUNTED] = "each wait() counts one fence wait; fence() and wait() "
		       "count no sync",
};

static void fence_tokens(weft__ct *t)
{
	weft_buf *x = weft__ct_guarded(t, FN, 0);
	weft_launch l = weft__ct_launch(CF_K_INC, FN, x, NULL);
	weft_stats a = { .struct_size = 0 }, b = { .struct_size = 0 };
	uint64_t tok[3] = { 0, 0, 0 };

	weft__ct_begin(t, "%s", fence_tests[FT_TOKENS]);
	if (x && !weft__ct_stats(t, &a) && !weft__ct_step(t, &l, 1, 1000) &&
	    !weft__ct_fence(t, &tok[0]) && !weft__ct_fence(t, &tok[1]) &&
	    !weft__ct_step(t, &l, 1, 1) && !weft__ct_fence(t, &tok[2]) &&
	    !weft__ct_stats(t, &b)) {
		weft__ct_expect(
			t, tok[0] > 0 && tok[1] > tok[0] && tok[2] > tok[1],
			"tokens %llu, %llu, %llu do not increase from "
			"1 or more",
			(unsigned long long)tok[0], (unsigned long long)tok[1],
			(unsigned long long)tok[2]);
		weft__ct_expect(t, DELTA(a, b, syncs) == 0,
				"syncs grew by %llu", DELTA(a, b, syncs));
	}
	weft__ct_end(t);
	weft__ct_free(t, x);
}

/* An async read before the fence, a launch and another async read after
 * it: wait() delivers the first (the state before the launch); sync()
 * then delivers the second (after it). Reads issued before the fence into
 * the same host bytes land in issue order. */
static void fence_reads(weft__ct *t)
{
	size_t bytes = (FN + 2 * CF_GUARD) * 4;
	uint32_t *r1 = weft__ct_xmalloc(t, bytes);
	uint32_t *r2 = weft__ct_xmalloc(t, bytes);
	weft_buf *x = r2 ? weft__ct_counting(t, FN, 500) : NULL;
	weft_buf *y = x ? weft__ct_counting(t, FN, 9000) : NULL;
	weft_launch l = weft__ct_launch(CF_K_INC, FN, x, NULL);
	uint64_t f = 0;

	weft__ct_begin(t, "%s", fence_tests[FT_READS]);
	if (y && !t->why[0]) {
		memset(r1, 0xA5, bytes);
		memset(r2, 0xA5, bytes);
		if (!weft__ct_read(t, r1, y, 0, bytes, WEFT_XFER_ASYNC) &&
		    !weft__ct_read(t, r1, x, 0, bytes, WEFT_XFER_ASYNC) &&
		    !weft__ct_fence(t, &f) && !weft__ct_step(t, &l, 1, 1) &&
		    !weft__ct_read(t, r2, x, 0, bytes, WEFT_XFER_ASYNC) &&
		    !weft__ct_wait(t, f))
			weft__ct_words_affine(t, r1 + CF_GUARD, FN, 500, 1,
					      "the read before the fence");
	}
	weft__ct_end(t);
	weft__ct_begin(t, "%s", fence_tests[FT_LATER]);
	if (y && !t->why[0] && !weft__ct_sync(t))
		weft__ct_words_affine(t, r2 + CF_GUARD, FN, 501, 1,
				      "the read after the launch");
	weft__ct_end(t);
	weft__ct_free(t, x);
	weft__ct_free(t, y);
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
	fence_tokens(t);
	fence_reads(t);
	fence_tokens_known(t);
}
