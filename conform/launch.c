/*
 * conform/launch.c - conformance groups about step(): launches run and
 * touch exactly their extent (guard), run in order n times (step), read
 * device-side extents when they execute (device-extent), and the
 * counters count exactly what was issued, with no synchronisation inside
 * step() (counters).
 *
 * Every buffer a kernel writes is guarded (shared.h): CF_GUARD
 * words on each side that no launch may touch.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "conform.h"

/* A one-word parameter buffer holding v. */
static weft_buf *param(weft__ct *t, uint32_t v)
{
	weft_buf *p = weft__ct_alloc(t, 4);

	if (p && weft__ct_write(t, p, 0, &v, 4, 0) != 0) {
		weft__ct_free(t, p);
		return NULL;
	}
	return p;
}

/* data[i] == want(i) for i < n, or the first difference is recorded. */
static int words_are(weft__ct *t, const uint32_t *data, const uint32_t *want,
		     uint32_t n, const char *what)
{
	for (uint32_t i = 0; i < n; i++)
		if (data[i] != want[i])
			return weft__ct_expect(
				t, 0, "%s: item %u is %u, want %u", what,
				(unsigned)i, (unsigned)data[i],
				(unsigned)want[i]);
	return 1;
}

/* ---- guard --------------------------------------------------------------- */

/* Launches of cf_items, which counts the items that run and writes nothing
 * else: a backend running items past the extent (a last chunk, block or
 * work-group not cut at the extent) is named here, before a launch that
 * writes spills past its buffer's data. On devices whose kernels check
 * the extent themselves (CF_PAST_EXTENT), items past it count nothing. */
static void guard_items(weft__ct *t)
{
	static const uint32_t extents[] = { 1, 63, 1000, 4097 };
	weft_buf *c;

	weft__ct_begin(t, "launches of extent 1, 63, 1000 and 4097 run exactly "
			  "that many items (counted by cf_items, before any "
			  "launch writes memory)");
	c = weft__ct_alloc(t, 4);
	for (size_t i = 0;
	     c && i < sizeof extents / sizeof extents[0] && !t->why[0]; i++) {
		weft_launch l =
			weft__ct_launch(CF_K_ITEMS, extents[i], c, NULL);
		uint32_t zero = 0, ran = 0;

		if (!weft__ct_write(t, c, 0, &zero, 4, 0) &&
		    !weft__ct_step(t, &l, 1, 1) && !weft__ct_sync(t) &&
		    !weft__ct_read(t, &ran, c, 0, 4, 0))
			weft__ct_expect(
				t, ran == extents[i],
				"a launch of extent %u ran %u items%s",
				(unsigned)extents[i], (unsigned)ran,
				ran > extents[i]
					? ": items past the extent ran, "
					  "and would write past the "
					  "data of the launch's buffers"
					: "");
	}
	weft__ct_free(t, c);
	weft__ct_end(t);
}

/* cf_fill over a guarded buffer of cap words, with the extent given by
 * the launch (count NULL) or read from the device (*count). */
static void guard_fill(weft__ct *t, uint32_t cap, const uint32_t *count)
{
	uint32_t ran = count && *count < cap ? *count : cap;
	uint32_t *data = weft__ct_xmalloc(t, (size_t)cap * 4 + 4);
	uint32_t *want = weft__ct_xmalloc(t, (size_t)cap * 4 + 4);
	weft_buf *b = want ? weft__ct_guarded(t, cap, 0xEEEEEEEEu) : NULL;
	weft_buf *p = b ? param(t, 1000) : NULL;
	weft_buf *ctl = NULL;
	weft_launch l = weft__ct_launch(CF_K_FILL, cap, p, b);

	if (p && count && (ctl = weft__ct_alloc(t, CF_CTL_WORDS * 4)) &&
	    !weft__ct_write(t, ctl, CF_CTL_COUNT * 4, count, 4, 0)) {
		l.extent_buf = ctl;
		l.extent_offset = CF_CTL_COUNT * 4;
	}
	if (p && !t->why[0] && !weft__ct_step(t, &l, 1, 1) &&
	    !weft__ct_sync(t) && !weft__ct_guards(t, b, cap, data)) {
		for (uint32_t i = 0; i < cap; i++)
			want[i] = i < ran ? 1000 + i : 0xEEEEEEEEu;
		words_are(t, data, want, cap, "the buffer");
	}
	weft__ct_free(t, b);
	weft__ct_free(t, p);
	weft__ct_free(t, ctl);
	free(data);
	free(want);
}

/* ---- guard: the end of an allocation ---------------------------------- */

/* Buffers filled to their last word: CF_GUARD words of guard, then the
 * words a launch writes, and nothing after them. Their sizes cross the
 * pool's size classes and leave every remainder modulo 64 bytes. */
static const uint32_t end_words[] = { 1, 7, 33, 64, 100, 1000, 4097, 65537 };
#define N_END (sizeof end_words / sizeof end_words[0])

/* What word i of buffer k holds before the launches (guards included):
 * different in every word of every buffer. */
static uint32_t end_canary(size_t k, uint32_t i)
{
	return 0x5EC00000u ^ ((uint32_t)k << 26) ^ (i * 0x9E3779B1u);
}

/* What the launch over buffer k writes into its word CF_GUARD + i. */
static uint32_t end_base(size_t k)
{
	return ((uint32_t)k + 1u) << 20;
}

static size_t end_bytes(size_t k)
{
	return ((size_t)CF_GUARD + end_words[k]) * 4;
}

/* Allocate the buffers one after the other (where a backend places them
 * side by side, each is its neighbour's guard) and write their canaries;
 * then one parameter word per buffer. */
static int end_setup(weft__ct *t, weft_buf **b, weft_buf **p)
{
	uint32_t *h = weft__ct_xmalloc(t, end_bytes(N_END - 1));

	for (size_t k = 0; h && k < N_END && !t->why[0]; k++)
		b[k] = weft__ct_alloc(t, end_bytes(k));
	for (size_t k = 0; h && k < N_END && !t->why[0]; k++) {
		for (uint32_t i = 0; i < CF_GUARD + end_words[k]; i++)
			h[i] = end_canary(k, i);
		weft__ct_write(t, b[k], 0, h, end_bytes(k), 0);
	}
	for (size_t k = 0; h && k < N_END && !t->why[0]; k++) {
		uint32_t base = end_base(k);

		if ((p[k] = weft__ct_alloc(t, 4)))
			weft__ct_write(t, p[k], 0, &base, 4, 0);
	}
	free(h);
	return t->why[0] ? -1 : 0;
}

/* Buffer k after the launches: its guard, then base + i to its end. */
static int end_check(weft__ct *t, weft_buf *b, size_t k, uint32_t *h)
{
	uint32_t n = end_words[k];

	if (weft__ct_read(t, h, b, 0, end_bytes(k), 0))
		return -1;
	for (uint32_t i = 0; i < CF_GUARD; i++)
		if (h[i] != end_canary(k, i))
			return !weft__ct_expect(
				t, 0,
				"buffer %zu (%zu bytes): its word %u, before "
				"the words its launch writes, is 0x%08x, not "
				"its canary 0x%08x: a write past the end of "
				"another allocation landed in it",
				k, end_bytes(k), (unsigned)i, (unsigned)h[i],
				(unsigned)end_canary(k, i));
	return weft__ct_words_affine(t, h + CF_GUARD, n, end_base(k), 1,
				     "a buffer filled to its end") -
	       1;
}

/* Where native() says a buffer's bytes are: host and CUDA memory in one
 * address space, OpenCL memory in its cl_mem (space). */
struct end_range {
	const void *space;
	uintptr_t begin, end;
};

static int end_range_of(weft__ct *t, weft_buf *b, struct end_range *r)
{
	weft_native n;

	if (weft__ct_native(t, b, &n))
		return -1;
	r->space = n.kind == WEFT_NATIVE_OPENCL ? n.handle : NULL;
	r->begin = (r->space ? 0 : (uintptr_t)n.handle) + n.offset;
	r->end = r->begin + n.bytes;
	return 0;
}

/* The buffers' memory, as native() gives it, is disjoint. */
static void guard_disjoint(weft__ct *t, weft_buf **b, weft_buf **p)
{
	struct end_range r[2 * N_END];
	weft_buf *all[2 * N_END];

	weft__ct_begin(t,
		       "live buffers do not share memory: the ranges "
		       "native() gives for those %zu buffers and their "
		       "parameters are disjoint",
		       N_END);
	if (!weft__ct_has_native(t)) {
		weft__ct_skip(t, "no native()");
		return;
	}
	for (size_t k = 0; k < N_END; k++) {
		all[k] = b[k];
		all[N_END + k] = p[k];
	}
	for (size_t i = 0; i < 2 * N_END && !t->why[0]; i++)
		if (weft__ct_expect(t, all[i] != NULL, "setup failed (above)"))
			end_range_of(t, all[i], &r[i]);
	for (size_t i = 0; i < 2 * N_END && !t->why[0]; i++)
		for (size_t j = 0; j < i; j++)
			weft__ct_expect(
				t,
				r[i].space != r[j].space ||
					r[i].end <= r[j].begin ||
					r[j].end <= r[i].begin,
				"buffers %zu and %zu (of %zu and %zu "
				"bytes) overlap by %zu bytes",
				j, i, (size_t)(r[j].end - r[j].begin),
				(size_t)(r[i].end - r[i].begin),
				(size_t)((r[i].end < r[j].end ? r[i].end
							      : r[j].end) -
					 (r[i].begin > r[j].begin
						  ? r[i].begin
						  : r[j].begin)));
	weft__ct_end(t);
}

/* Every buffer filled to its last word by one launch of a step: no write
 * reaches another buffer. */
static void guard_ends(weft__ct *t)
{
	weft_buf *b[N_END] = { NULL }, *p[N_END] = { NULL };
	weft_launch l[N_END];
	uint32_t *h = weft__ct_xmalloc(t, end_bytes(N_END - 1));

	weft__ct_begin(t,
		       "launches that fill %zu buffers (%zu to %zu bytes, "
		       "allocated in a row) to their last word write "
		       "nothing into the others",
		       N_END, end_bytes(0), end_bytes(N_END - 1));
	if (h && !end_setup(t, b, p)) {
		for (size_t k = 0; k < N_END; k++) {
			l[k] = weft__ct_launch(CF_K_FILL, end_words[k], p[k],
					       b[k]);
		}
		if (!weft__ct_step(t, l, N_END, 1) && !weft__ct_sync(t))
			for (size_t k = 0; k < N_END && !t->why[0]; k++)
				end_check(t, b[k], k, h);
	}
	weft__ct_end(t);
	guard_disjoint(t, b, p);
	for (size_t k = 0; k < N_END; k++) {
		weft__ct_free(t, b[k]);
		weft__ct_free(t, p[k]);
	}
	free(h);
}

void weft__ct_group_guard(weft__ct *t)
{
	static const uint32_t extents[] = {
		0, 1, 63, 64, 65, 1000, 4097, 100003
	};
	uint32_t count;

	guard_items(t);
	for (size_t i = 0; i < sizeof extents / sizeof extents[0]; i++) {
		weft__ct_begin(t,
			       "a launch of extent %u writes its %u items "
			       "and no guard word around them",
			       (unsigned)extents[i], (unsigned)extents[i]);
		guard_fill(t, extents[i], NULL);
		weft__ct_end(t);
	}
	count = 37;
	weft__ct_begin(t, "a device-side count of 37 with capacity 100 writes "
			  "37 items and no guard word");
	guard_fill(t, 100, &count);
	weft__ct_end(t);
	count = 150;
	weft__ct_begin(t, "a device-side count of 150 with capacity 100 is "
			  "clamped: 100 items, no guard word");
	guard_fill(t, 100, &count);
	weft__ct_end(t);
	guard_ends(t);
}

/* ---- step ---------------------------------------------------------------- */

#define STEP_N 1000u

/* x[i] += 1, then y[i] = 2 y[i] + x[i], n times from x = i, y = 3i + 1. */
static void step_expected(uint64_t n, uint32_t *x, uint32_t *y)
{
	for (uint32_t i = 0; i < STEP_N; i++) {
		x[i] = i;
		y[i] = 3u * i + 1u;
		for (uint64_t s = 0; s < n; s++) {
			x[i] += 1u;
			y[i] = 2u * y[i] + x[i];
		}
	}
}

/* Run the two-launch list as step() calls of calls[0], calls[1], ... */
static void step_run(weft__ct *t, const uint64_t *calls, size_t n_calls)
{
	uint32_t *hx = weft__ct_xmalloc(t, STEP_N * 8);
	uint32_t *hy = hx ? hx + STEP_N : NULL;
	uint32_t *gx = weft__ct_xmalloc(t, STEP_N * 8);
	uint32_t *gy = gx ? gx + STEP_N : NULL;
	weft_buf *x = gx && hx ? weft__ct_guarded(t, STEP_N, 0) : NULL;
	weft_buf *y = x ? weft__ct_guarded(t, STEP_N, 0) : NULL;
	weft_launch l[2] = { weft__ct_launch(CF_K_INC, STEP_N, x, NULL),
			     weft__ct_launch(CF_K_MAD, STEP_N, y, x) };
	uint64_t total = 0;

	if (y) {
		step_expected(0, hx, hy);
		if (!weft__ct_write(t, x, CF_GUARD * 4, hx, STEP_N * 4, 0))
			weft__ct_write(t, y, CF_GUARD * 4, hy, STEP_N * 4, 0);
	}
	for (size_t c = 0; y && c < n_calls && !t->why[0]; c++) {
		weft__ct_step(t, l, 2, calls[c]);
		total += calls[c];
	}
	if (y && !t->why[0] && !weft__ct_sync(t) &&
	    !weft__ct_guards(t, x, STEP_N, gx) &&
	    !weft__ct_guards(t, y, STEP_N, gy)) {
		step_expected(total, hx, hy);
		if (words_are(t, gx, hx, STEP_N, "x"))
			words_are(t, gy, hy, STEP_N, "y");
	}
	weft__ct_free(t, x);
	weft__ct_free(t, y);
	free(hx);
	free(gx);
}

static void step_atomic(weft__ct *t)
{
	enum { N = 100003 };
	uint32_t zero = 0, got = 0;
	weft_buf *c;
	weft_launch l;

	weft__ct_begin(t, "atomic adds from %u work items all land", N);
	c = weft__ct_alloc(t, 4);
	l = weft__ct_launch(CF_K_ATOMIC, N, c, NULL);
	if (c && !weft__ct_write(t, c, 0, &zero, 4, 0) &&
	    !weft__ct_step(t, &l, 1, 3) && !weft__ct_sync(t) &&
	    !weft__ct_read(t, &got, c, 0, 4, 0))
		weft__ct_expect(t, got == 3u * N, "counted %u, want %u",
				(unsigned)got, 3u * N);
	weft__ct_free(t, c);
	weft__ct_end(t);
}

/* Busy work, then step(100) of x += 1 at once: step() returns before the
 * busy work could have completed; x holds 100 + i after sync(). */
static void step_nowait_try(weft__ct *t, void *arg)
{
	weft_buf *x = weft__ct_counting(t, 1000, 0);
	weft_launch l = weft__ct_launch(CF_K_INC, 1000, x, NULL);
	weft__ct_timed c;

	(void)arg;
	if (!x || weft__ct_busy(t))
		goto release;
	weft__ct_nowait_begin(&c);
	if (weft__ct_step(t, &l, 1, 100) ||
	    !weft__ct_nowait_end(t, &c, "step(100) right after busy work",
				 "step() enqueues work and never waits for "
				 "the device"))
		goto release;
	if (!weft__ct_sync(t))
		weft__ct_holds(t, x, 1000, 100, 1,
			       "x after step(100) of x += 1");
release:
	weft__ct_free(t, x);
}

void weft__ct_group_step(weft__ct *t)
{
	static const uint64_t ns[] = { 1, 2, 7, 100 };
	static const uint64_t split[] = { 3, 4, 1, 0, 2 };
	static const uint64_t none[] = { 0 };

	for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
		weft__ct_begin(t,
			       "step(%llu) of [x += 1, y = 2y + x] runs the "
			       "two launches in order %llu times",
			       (unsigned long long)ns[i],
			       (unsigned long long)ns[i]);
		step_run(t, &ns[i], 1);
		weft__ct_end(t);
	}
	weft__ct_begin(t, "step(3), step(4), step(1), step(0), step(2) give "
			  "the result of step(10)");
	step_run(t, split, sizeof split / sizeof split[0]);
	weft__ct_end(t);
	weft__ct_begin(t, "n_steps = 0 does nothing");
	step_run(t, none, 1);
	weft__ct_end(t);
	step_atomic(t);
	weft__ct_overlap_test(t,
			      "step() never waits: it returns while busy work "
			      "queued before it still runs",
			      step_nowait_try, NULL);
}

/* ---- device-extent ------------------------------------------------------- */

#define EXT_CAP 64u

/* One launch of cf_bump with capacity EXT_CAP and the count written to
 * the device by the host. */
static void extent_host_count(weft__ct *t, uint32_t count)
{
	uint32_t data[EXT_CAP], want[EXT_CAP];
	uint32_t ctl[CF_CTL_WORDS] = { 0 };
	weft_buf *b = weft__ct_guarded(t, EXT_CAP, 0);
	weft_buf *c = b ? weft__ct_alloc(t, sizeof ctl) : NULL;
	weft_launch l = weft__ct_launch(CF_K_BUMP, EXT_CAP, b, NULL);
	uint32_t ran = count < EXT_CAP ? count : EXT_CAP;

	ctl[CF_CTL_STEP] = EXT_CAP; /* what an extent_offset of 0 reads */
	ctl[CF_CTL_COUNT] = count;
	l.extent_buf = c;
	l.extent_offset = CF_CTL_COUNT * 4;
	if (c && !weft__ct_write(t, c, 0, ctl, sizeof ctl, 0) &&
	    !weft__ct_step(t, &l, 1, 1) && !weft__ct_sync(t) &&
	    !weft__ct_guards(t, b, EXT_CAP, data)) {
		for (uint32_t i = 0; i < EXT_CAP; i++)
			want[i] = i < ran;
		words_are(t, data, want, EXT_CAP, "items run (1) and not (0)");
	}
	weft__ct_free(t, b);
	weft__ct_free(t, c);
}

/* The counts of one step(n) call, each written on the device by the
 * launch before the one that reads it. */
static void extent_in_step(weft__ct *t)
{
	static const uint32_t table[] = { 0, 1,	 17,	  EXT_CAP + 50,
					  5, 33, EXT_CAP, 2 };
	const uint32_t n = sizeof table / sizeof table[0];
	uint32_t data[EXT_CAP], want[EXT_CAP] = { 0 };
	uint32_t ctl[CF_CTL_WORDS] = { 0 };
	weft_buf *b = weft__ct_guarded(t, EXT_CAP, 0);
	weft_buf *c = b ? weft__ct_alloc(t, sizeof ctl) : NULL;
	weft_launch l[2] = { weft__ct_launch(CF_K_COUNT, 1, c, NULL),
			     weft__ct_launch(CF_K_BUMP, EXT_CAP, b, NULL) };

	l[1].extent_buf = c;
	l[1].extent_offset = CF_CTL_COUNT * 4;
	ctl[CF_CTL_COUNT] = EXT_CAP; /* stale: what a host-side read sees */
	memcpy(ctl + CF_CTL_TABLE, table, sizeof table);
	for (uint32_t s = 0; s < n; s++)
		for (uint32_t i = 0; i < EXT_CAP && i < table[s]; i++)
			want[i]++;
	if (c && !weft__ct_write(t, c, 0, ctl, sizeof ctl, 0) &&
	    !weft__ct_step(t, l, 2, n) && !weft__ct_sync(t) &&
	    !weft__ct_guards(t, b, EXT_CAP, data))
		words_are(t, data, want, EXT_CAP, "steps that ran each item");
	weft__ct_free(t, b);
	weft__ct_free(t, c);
}

void weft__ct_group_extent(weft__ct *t)
{
	static const uint32_t counts[] = { 0,	    1,		 17,
					   EXT_CAP, EXT_CAP + 1, UINT32_MAX };

	for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
		weft__ct_begin(t,
			       "a count of %u at extent_offset 8, capacity "
			       "%u, runs min(count, capacity) items",
			       (unsigned)counts[i], EXT_CAP);
		extent_host_count(t, counts[i]);
		weft__ct_end(t);
	}
	weft__ct_begin(t,
		       "counts written by an earlier launch of the same "
		       "step (0, 1, 17, %u, 5, 33, %u, 2 in one step(8)) "
		       "are read when the launch runs",
		       EXT_CAP + 50, EXT_CAP);
	extent_in_step(t);
	weft__ct_end(t);
}

/* ---- counters ------------------------------------------------------------ */

#define DELTA(a, b, f) ((unsigned long long)((b).f - (a).f))

/* step(n) of a 3-launch list counts n steps, 3n launches, no sync. */
static void counters_step(weft__ct *t, weft_buf *x, weft_buf *ctl)
{
	weft_launch l[3] = { weft__ct_launch(CF_K_INC, 100, x, NULL),
			     weft__ct_launch(CF_K_COUNT, 1, ctl, NULL),
			     weft__ct_launch(CF_K_BUMP, 100, x, NULL) };
	weft_stats a = { .struct_size = 0 }, b = { .struct_size = 0 };

	l[2].extent_buf = ctl;
	l[2].extent_offset = CF_CTL_COUNT * 4;
	weft__ct_begin(t, "step(1000) of 3 launches counts 1000 steps and "
			  "3000 launches (count-0 launches included)");
	if (!weft__ct_stats(t, &a) && !weft__ct_step(t, l, 3, 1000) &&
	    !weft__ct_stats(t, &b)) {
		weft__ct_expect(t, DELTA(a, b, steps) == 1000,
				"steps grew by %llu", DELTA(a, b, steps));
		weft__ct_expect(t, DELTA(a, b, launches) == 3000,
				"launches grew by %llu", DELTA(a, b, launches));
	}
	weft__ct_end(t);
	weft__ct_begin(t, "step(1000) makes zero synchronisations");
	weft__ct_expect(t, DELTA(a, b, syncs) == 0,
			"syncs grew by %llu inside step()", DELTA(a, b, syncs));
	weft__ct_end(t);
	weft__ct_begin(t, "each sync() counts one synchronisation");
	if (!weft__ct_stats(t, &a) && !weft__ct_sync(t) && !weft__ct_sync(t) &&
	    !weft__ct_sync(t) && !weft__ct_stats(t, &b))
		weft__ct_expect(t, DELTA(a, b, syncs) == 3,
				"3 syncs made, syncs grew by %llu",
				DELTA(a, b, syncs));
	weft__ct_end(t);
}

/* Transfers counted per direction: count and bytes, exactly as issued. */
static void counters_xfer(weft__ct *t, weft_buf *x, weft_buf *y)
{
	static const char *dir[] = { "H2D", "D2H", "D2D" };
	const unsigned long long want_n[3] = { 3, 2, 2 };
	const unsigned long long want_b[3] = { 100 + 0 + 4097, 7 + 4096,
					       1 + 65536 };
	unsigned char *h = weft__ct_xmalloc(t, 65536);
	weft_stats a = { .struct_size = 0 }, b = { .struct_size = 0 };

	weft__ct_begin(t, "transfers are counted per direction, count and "
			  "bytes, exactly as issued (0-byte and async ones "
			  "included)");
	if (h && !weft__ct_stats(t, &a) &&
	    !weft__ct_write(t, x, 0, h, 100, 0) &&
	    !weft__ct_write(t, x, 5, h, 0, 0) &&
	    !weft__ct_write(t, y, 3, h, 4097, WEFT_XFER_ASYNC) &&
	    !weft__ct_read(t, h, x, 1, 7, 0) &&
	    !weft__ct_read(t, h, y, 0, 4096, WEFT_XFER_ASYNC) &&
	    !weft__ct_copy(t, y, 9, x, 0, 1, 0) &&
	    !weft__ct_copy(t, y, 0, x, 0, 65536, WEFT_XFER_ASYNC) &&
	    !weft__ct_sync(t) && !weft__ct_stats(t, &b))
		for (int d = 0; d < WEFT_DIR_COUNT; d++)
			weft__ct_expect(
				t,
				DELTA(a, b, xfer_count[d]) == want_n[d] &&
					DELTA(a, b, xfer_bytes[d]) == want_b[d],
				"%s: %llu transfers of %llu bytes "
				"counted, %llu of %llu issued",
				dir[d], DELTA(a, b, xfer_count[d]),
				DELTA(a, b, xfer_bytes[d]), want_n[d],
				want_b[d]);
	free(h);
	weft__ct_end(t);
}

/* A caller built for ABI 1.0 passes a smaller weft_stats. */
static void counters_small(weft__ct *t)
{
	unsigned char raw[sizeof(weft_stats) + 64];
	size_t size = offsetof(weft_stats, cache_hits);
	weft_stats *s = (weft_stats *)(void *)raw;
	weft_status st;

	weft__ct_begin(t,
		       "a 1.0-sized weft_stats (%zu bytes) is filled only "
		       "up to its struct_size, which stays as set",
		       size);
	memset(raw, 0x5A, sizeof raw);
	s->struct_size = (uint32_t)size;
	st = t->vt->stats(t->dev, s);
	weft__ct_expect(t, st == WEFT_OK, "stats returned %s",
			weft_status_str(st));
	weft__ct_expect(t, s->struct_size == size, "struct_size became %u",
			(unsigned)s->struct_size);
	for (size_t i = size; i < sizeof raw; i++)
		if (!weft__ct_expect(t, raw[i] == 0x5A,
				     "byte %zu (past struct_size %zu) was "
				     "written",
				     i, size))
			break;
	weft__ct_end(t);
}

void weft__ct_group_counters(weft__ct *t)
{
	uint32_t ctl[CF_CTL_WORDS] = { 0 };
	weft_buf *x, *y, *c;

	weft__ct_begin(t, "setup: buffers for counting");
	x = weft__ct_guarded(t, 65536, 0);
	y = weft__ct_guarded(t, 65536, 0);
	c = weft__ct_alloc(t, sizeof ctl);
	if (c)
		weft__ct_write(t, c, 0, ctl, sizeof ctl, 0);
	if (!t->why[0]) {
		counters_step(t, x, c);
		counters_xfer(t, x, y);
		counters_small(t);
	} else {
		weft__ct_end(t);
	}
	weft__ct_free(t, x);
	weft__ct_free(t, y);
	weft__ct_free(t, c);
}
