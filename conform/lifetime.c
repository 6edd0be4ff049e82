/*
 * conform/lifetime.c - conformance group lifetime: what the caller may
 * release while work it issued is still queued (weft/backend.h,
 * "Lifetime and ordering", rules 1 to 3): buffers (free), programs
 * (unload_program), the launch array of step() and the device (close).
 *
 * Every test queues busy work first (busy.c), then the work the release
 * could disturb, checks that the release is called while all of it is
 * surely still queued (weft__ct_busy_check() right before a call that may
 * wait, as free(), unload_program() and close() may; right after one that
 * must not), then waits and compares with what running everything in
 * issue order gives. A backend that runs work when it is issued passes
 * trivially; one with a queue passes only if it keeps the promises
 * (tests/plugins/async.c and its broken variants show both).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "conform.h"

/* Words of the buffers the tests use. */
#define LN     1000u
#define LBYTES (((size_t)LN + 2 * CF_GUARD) * 4)
/* The messages name the sizes. */
_Static_assert(LBYTES == 4256 && CF_GUARD * 4 == 128,
	       "the messages' sizes (4256 bytes, 4000 at offset 128)");
/* Host memory no transfer has written. */
#define UNTOUCHED 0x5A5A5A5Au
/* How long after close() returned its host memory is watched, in busy
 * durations (enough for the busy work, the launch and the read to end on
 * a loaded machine). */
#define CLOSE_WATCH 3u

/* A control block holding count in its count word and other in the word
 * after the step counter's table (the two counts an extent may be read
 * from). */
static weft_buf *count_block(weft__ct *t, uint32_t count, uint32_t other)
{
	uint32_t ctl[CF_CTL_WORDS] = { 0 };
	weft_buf *c = weft__ct_alloc(t, sizeof ctl);

	ctl[CF_CTL_COUNT] = count;
	ctl[CF_CTL_TABLE] = other;
	if (c && weft__ct_write(t, c, 0, ctl, sizeof ctl, 0)) {
		weft__ct_free(t, c);
		c = NULL;
	}
	return c;
}

/* The guarded buffer w of LN words holds times in its first n words and
 * 0 in the others; what names the launch that bumped it. */
static int bumped(weft__ct *t, weft_buf *w, uint32_t n, uint32_t times,
		  const char *what)
{
	uint32_t *data = weft__ct_xmalloc(t, (size_t)LN * 4);
	uint32_t i = 0;

	if (!data || weft__ct_guards(t, w, LN, data)) {
		free(data);
		return 0;
	}
	while (i < LN && data[i] == (i < n ? times : 0))
		i++;
	if (i < LN)
		weft__ct_expect(t, 0,
				"%s: word %u (%s its count, %u) is %u, want %u",
				what, (unsigned)i, i < n ? "under" : "past",
				(unsigned)n, (unsigned)data[i],
				(unsigned)(i < n ? times : 0));
	free(data);
	return i == LN;
}

/* ---- free() under queued launches ---------------------------------------- */

/* y = 2y + x three times and w bumped three times over a device-side count
 * held in ctl; x and ctl are freed as soon as step() returns, and a buffer
 * of x's size written at once, as a pool would hand x's memory on. */
static void free_launch_try(weft__ct *t, void *arg)
{
	weft_buf *x = weft__ct_counting(t, LN, 500);
	weft_buf *y = x ? weft__ct_guarded(t, LN, 0) : NULL;
	weft_buf *w = y ? weft__ct_guarded(t, LN, 0) : NULL;
	weft_buf *ctl = w ? count_block(t, 37, 0) : NULL;
	weft_buf *next = NULL;
	weft_launch l[2] = { weft__ct_launch(CF_K_MAD, LN, y, x),
			     weft__ct_launch(CF_K_BUMP, LN, w, NULL) };

	(void)arg;
	l[1].extent_buf = ctl;
	l[1].extent_offset = CF_CTL_COUNT * 4;
	if (!ctl || weft__ct_busy(t) || weft__ct_step(t, l, 2, 3))
		goto release;
	weft__ct_busy_check(t);
	weft__ct_free(t, x);
	weft__ct_free(t, ctl);
	x = ctl = NULL;
	next = weft__ct_guarded(t, LN, 0xDEADBEEFu);
	if (next && !weft__ct_sync(t) &&
	    weft__ct_holds(t, y, LN, 3500, 7,
			   "y after three queued launches of y = 2y + x, x "
			   "(buffer 1, 4256 bytes) freed as soon as step() "
			   "returned: the launches must see x's contents "
			   "(rule 2)") &&
	    bumped(t, w, 37, 3,
		   "w, bumped three times over a count in a control block "
		   "freed as soon as step() returned (rule 2)"))
		weft__ct_holds(t, next, LN, 0xDEADBEEFu, 0,
			       "a buffer of x's size allocated and written "
			       "right after x was freed: the freed buffer's "
			       "queued launches must come before it (rule 2)");
release:
	weft__ct_free(t, next);
	weft__ct_free(t, x);
	weft__ct_free(t, ctl);
	weft__ct_free(t, y);
	weft__ct_free(t, w);
}

/* ---- free() under queued transfers only --------------------------------- */

/* Four buffers used by queued transfers only, no launch: a copied from,
 * b copied into (from s) then out of, c read into host memory, d written
 * from host memory then copied out of; all four freed at once. */
struct xfer {
	uint32_t *hr, *hw; /* host memory of the async read and write */
	weft_buf *a, *b, *c, *d, *s, *za, *zb, *zd, *next;
};

static int xfer_setup(weft__ct *t, struct xfer *x)
{
	memset(x, 0, sizeof *x);
	x->hr = weft__ct_xmalloc(t, LBYTES);
	x->hw = x->hr ? weft__ct_xmalloc(t, LBYTES) : NULL;
	if (!x->hw || !(x->a = weft__ct_counting(t, LN, 500)) ||
	    !(x->b = weft__ct_guarded(t, LN, 0)) ||
	    !(x->c = weft__ct_counting(t, LN, 700)) ||
	    !(x->d = weft__ct_guarded(t, LN, 0)) ||
	    !(x->s = weft__ct_counting(t, LN, 600)) ||
	    !(x->za = weft__ct_guarded(t, LN, 0)) ||
	    !(x->zb = weft__ct_guarded(t, LN, 0)) ||
	    !(x->zd = weft__ct_guarded(t, LN, 0)) ||
	    weft__ct_read(t, x->hw, x->d, 0, LBYTES, 0))
		return -1;
	for (uint32_t i = 0; i < LN; i++)
		x->hw[CF_GUARD + i] = 800u + i;
	memset(x->hr, 0x5A, LBYTES);
	return 0;
}

static void xfer_release(weft__ct *t, struct xfer *x)
{
	weft_buf *all[] = { x->a,  x->b,  x->c,	 x->d,	 x->s,
			    x->za, x->zb, x->zd, x->next };

	for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
		weft__ct_free(t, all[k]);
	free(x->hr);
	free(x->hw);
}

static void xfer_check(weft__ct *t, struct xfer *x)
{
	static const char *what[] = {
		"the async copy from buffer a (4000 bytes at offset 128), "
		"freed right after: a transfer from a freed buffer must see "
		"its contents (rule 2)",
		"the async copy out of buffer b (4000 bytes at offset 128), "
		"queued after an async copy into b and freed right after: "
		"both must run on b's memory (rule 2)",
		"the host memory of an async read of buffer c (4256 bytes), "
		"freed right after, at sync(): the read must see c's "
		"contents (rule 2)",
		"the async copy out of buffer d (4000 bytes at offset 128), "
		"queued after an async write into d and freed right after: "
		"both must run on d's memory (rule 2)",
	};

	if (weft__ct_sync(t) ||
	    !weft__ct_holds(t, x->za, LN, 500, 1, what[0]) ||
	    !weft__ct_holds(t, x->zb, LN, 600, 1, what[1]) ||
	    !weft__ct_words_affine(t, x->hr + CF_GUARD, LN, 700, 1, what[2]) ||
	    !weft__ct_holds(t, x->zd, LN, 800, 1, what[3]))
		return;
	weft__ct_holds(t, x->next, LN, 0xDEADBEEFu, 0,
		       "a buffer of their size allocated and written right "
		       "after a, b, c and d were freed: their queued "
		       "transfers must come before it (rule 2)");
}

/* An async copy of the LN words of src into dst (not the guards, so that
 * wrong bytes are named by the words they land in). */
static int xfer_copy(weft__ct *t, weft_buf *dst, weft_buf *src)
{
	return weft__ct_copy(t, dst, CF_GUARD * 4, src, CF_GUARD * 4,
			     (size_t)LN * 4, WEFT_XFER_ASYNC);
}

static void free_xfer_try(weft__ct *t, void *arg)
{
	struct xfer x;

	(void)arg;
	if (xfer_setup(t, &x) || weft__ct_busy(t) || xfer_copy(t, x.za, x.a) ||
	    xfer_copy(t, x.b, x.s) || xfer_copy(t, x.zb, x.b) ||
	    weft__ct_read(t, x.hr, x.c, 0, LBYTES, WEFT_XFER_ASYNC) ||
	    weft__ct_write(t, x.d, 0, x.hw, LBYTES, WEFT_XFER_ASYNC) ||
	    xfer_copy(t, x.zd, x.d))
		goto release;
	weft__ct_busy_check(t);
	weft__ct_free(t, x.a);
	weft__ct_free(t, x.b);
	weft__ct_free(t, x.c);
	weft__ct_free(t, x.d);
	x.a = x.b = x.c = x.d = NULL;
	x.next = weft__ct_guarded(t, LN, 0xDEADBEEFu);
	if (x.next)
		xfer_check(t, &x);
release:
	weft__ct_sync(t); /* nothing queued still writes host memory */
	xfer_release(t, &x);
}

/* ---- free() counted once ------------------------------------------------- */

/* x, bound to a queued launch, freed twice: one free and its bytes are
 * counted at once, nothing more by the second free() nor by the release
 * when the queue reaches it. */
static void free_count_check(weft__ct *t, const weft_stats *s0,
			     const weft_stats *s1, const weft_stats *s2)
{
	if (!weft__ct_expect(
		    t,
		    s1->frees == s0->frees + 1 &&
			    s1->bytes_in_use + LBYTES == s0->bytes_in_use,
		    "free() of a %zu-byte buffer bound to a queued launch, "
		    "then free() of it again (its release still queued), "
		    "counted %llu frees and %lld bytes at once, want 1 and "
		    "%zu: a free is counted once, and a buffer freed twice is "
		    "ignored the second time",
		    LBYTES, (unsigned long long)(s1->frees - s0->frees),
		    (long long)(s0->bytes_in_use - s1->bytes_in_use), LBYTES))
		return;
	weft__ct_expect(
		t,
		s2->frees == s1->frees && s2->bytes_in_use == s1->bytes_in_use,
		"after sync(), when the queue had released a buffer "
		"freed under a queued launch, frees went from %llu to "
		"%llu and bytes_in_use from %llu to %llu: the free "
		"was counted again when the release ran",
		(unsigned long long)s1->frees, (unsigned long long)s2->frees,
		(unsigned long long)s1->bytes_in_use,
		(unsigned long long)s2->bytes_in_use);
}

static void free_count_try(weft__ct *t, void *arg)
{
	weft_buf *x = weft__ct_counting(t, LN, 100);
	weft_launch l = weft__ct_launch(CF_K_INC, LN, x, NULL);
	weft_stats s0, s1, s2;

	(void)arg;
	/* Calibrated before counting: calibration allocates. */
	if (!x || (!t->busy_iters && (weft__ct_busy(t) || weft__ct_sync(t))) ||
	    weft__ct_stats(t, &s0) || weft__ct_busy(t) ||
	    weft__ct_step(t, &l, 1, 1)) {
		weft__ct_free(t, x);
		return;
	}
	weft__ct_busy_check(t);
	weft__ct_free(t, x);
	weft__ct_free(t, x);
	if (!weft__ct_stats(t, &s1) && !weft__ct_sync(t) &&
	    !weft__ct_stats(t, &s2))
		free_count_check(t, &s0, &s1, &s2);
}

/* ---- unload_program() ---------------------------------------------------- */

/* The suite's program with cf_add1000 where it has cf_inc: loaded right
 * after a copy of the suite's program was unloaded, it is where a
 * backend's allocator puts the kernel table it has just been given
 * back. */
static weft_program *load_add1000(weft__ct *t)
{
	weft_program_desc pd = cf_program;
	weft_kernel_desc *k =
		weft__ct_xmalloc(t, (size_t)cf_program.n_kernels * sizeof *k);
	weft_program *prog = NULL;
	weft_status st;

	if (!k)
		return NULL;
	memcpy(k, cf_program.kernels, (size_t)cf_program.n_kernels * sizeof *k);
	k[CF_K_INC] = cf_program.kernels[CF_K_ADD1000];
	pd.kernels = k;
	pd.name = "conform";
	st = t->vt->load_program(t->dev, &pd, &prog, &t->err);
	free(k);
	if (st == WEFT_OK && prog)
		return prog;
	weft__ct_expect(t, 0,
			"load_program(conform, cf_add1000 as kernel %u) "
			"returned %s: %s",
			(unsigned)CF_K_INC, weft_status_str(st), t->err.msg);
	return NULL;
}

/* x += 1 five times by a second copy of the suite's program, unloaded as
 * soon as step() returned; with reload, the program with cf_add1000 in
 * cf_inc's place is loaded right after. */
static void unload_try(weft__ct *t, void *arg)
{
	int reload = *(const int *)arg;
	weft_program *keep = t->prog, *other, *next = NULL;
	weft_buf *x = weft__ct_counting(t, LN, 100);
	weft_launch l = weft__ct_launch(CF_K_INC, LN, x, NULL);
	uint32_t *got = x ? weft__ct_xmalloc(t, (size_t)LN * 4) : NULL;

	other = got ? weft__ct_program(t) : NULL;
	if (!other || weft__ct_busy(t))
		goto release;
	t->prog = other;
	weft__ct_step(t, &l, 1, 5);
	t->prog = keep;
	weft__ct_busy_check(t);
	t->vt->unload_program(t->dev, other);
	other = NULL;
	next = reload ? load_add1000(t) : NULL;
	if (t->why[0] || weft__ct_sync(t) || weft__ct_guards(t, x, LN, got))
		goto release;
	if (reload && got[0] >= 1100u)
		weft__ct_expect(
			t, 0,
			"x (buffer 0) is %u, want 105, after five queued "
			"launches of cf_inc from a program unloaded "
			"as soon as step() returned: they ran "
			"cf_add1000, the kernel at that index in a "
			"program loaded right after the unload, so "
			"the unloaded program's kernel table was "
			"released and handed on before its queued "
			"launches ran (rule 2)",
			(unsigned)got[0]);
	else
		weft__ct_words_affine(t, got, LN, 105, 1,
				      "x after five queued launches of cf_inc "
				      "from a program unloaded as soon as "
				      "step() returned: they must run to "
				      "completion with its kernels (rule 2)");
release:
	if (other)
		t->vt->unload_program(t->dev, other);
	if (next)
		t->vt->unload_program(t->dev, next);
	weft__ct_free(t, x);
	free(got);
}

/* ---- the launch array ---------------------------------------------------- */

/* step() with a list in the caller's memory, changed as soon as step()
 * returns to bind another buffer. */
static void launch_bufs_try(weft__ct *t, void *arg)
{
	weft_buf *x = weft__ct_counting(t, LN, 100);
	weft_buf *z = x ? weft__ct_counting(t, LN, 7000) : NULL;
	weft_launch *l = z ? weft__ct_xmalloc(t, 2 * sizeof *l) : NULL;

	(void)arg;
	if (!l || weft__ct_busy(t))
		goto release;
	l[0] = l[1] = weft__ct_launch(CF_K_INC, LN, x, NULL);
	if (weft__ct_step(t, l, 2, 4))
		goto release;
	l[0] = l[1] = weft__ct_launch(CF_K_INC, LN, z, NULL);
	weft__ct_busy_check(t);
	if (!weft__ct_sync(t) &&
	    weft__ct_holds(t, z, LN, 7000, 1,
			   "z, put in bufs[0] of the list given to step() only "
			   "once step() had returned, was written: the queued "
			   "launches must bind the buffers the list held when "
			   "step() was called (rule 1)"))
		weft__ct_holds(t, x, LN, 108, 1,
			       "x after step(4) of two increments of it "
			       "(bufs[0] of the list given to step())");
release:
	free(l);
	weft__ct_free(t, x);
	weft__ct_free(t, z);
}

/* Two device-extent launches whose counts (37) are in c1; as soon as
 * step() returns, the first one's extent_offset is moved to the word of
 * c1 that holds 200, the second one's extent_buf to c2, which holds 200
 * at the same offset. */
static void launch_extent_try(weft__ct *t, void *arg)
{
	weft_buf *w1 = weft__ct_guarded(t, LN, 0);
	weft_buf *w2 = w1 ? weft__ct_guarded(t, LN, 0) : NULL;
	weft_buf *c1 = w2 ? count_block(t, 37, 200) : NULL;
	weft_buf *c2 = c1 ? count_block(t, 200, 37) : NULL;
	weft_launch *l = c2 ? weft__ct_xmalloc(t, 2 * sizeof *l) : NULL;

	(void)arg;
	if (!l || weft__ct_busy(t))
		goto release;
	l[0] = weft__ct_launch(CF_K_BUMP, LN, w1, NULL);
	l[1] = weft__ct_launch(CF_K_BUMP, LN, w2, NULL);
	l[0].extent_buf = l[1].extent_buf = c1;
	l[0].extent_offset = l[1].extent_offset = CF_CTL_COUNT * 4;
	if (weft__ct_step(t, l, 2, 3))
		goto release;
	l[0].extent_offset = CF_CTL_TABLE * 4;
	l[1].extent_buf = c2;
	weft__ct_busy_check(t);
	if (!weft__ct_sync(t) &&
	    bumped(t, w1, 37, 3,
		   "w1, bumped three times over the count at extent_offset "
		   "8 of its extent_buf; the list's extent_offset was set to "
		   "16 (a count of 200) once step() had returned, and the "
		   "launches must read the count where the list said when "
		   "step() was called (rule 1)"))
		bumped(t, w2, 37, 3,
		       "w2, bumped three times over the count in its "
		       "extent_buf; the list's extent_buf was set to another "
		       "buffer (a count of 200) once step() had returned, and "
		       "the launches must read the count where the list said "
		       "when step() was called (rule 1)");
release:
	free(l);
	weft__ct_free(t, w1);
	weft__ct_free(t, w2);
	weft__ct_free(t, c1);
	weft__ct_free(t, c2);
}

/* ---- close() ------------------------------------------------------------- */

/* What the suite's vtable calls and busy work use; swapped to run them on
 * a second device. */
struct ct_on {
	weft_device *dev;
	weft_program *prog;
	weft_buf *busy_param, *busy_out;
	uint32_t busy_param_n;
};

static void ct_swap(weft__ct *t, struct ct_on *o)
{
	struct ct_on was = { t->dev, t->prog, t->busy_param, t->busy_out,
			     t->busy_param_n };

	t->dev = o->dev;
	t->prog = o->prog;
	t->busy_param = o->busy_param;
	t->busy_out = o->busy_out;
	t->busy_param_n = o->busy_param_n;
	*o = was;
}

/* The first word of the n words at p that differs from want (n if none). */
static size_t first_not(const uint32_t *p, size_t n, uint32_t want)
{
	size_t i = 0;

	while (i < n && p[i] == want)
		i++;
	return i;
}

/* Word j of x once the queued launch has run (x = 101 + i, guarded). */
static uint32_t close_want(size_t j)
{
	if (j < CF_GUARD)
		return weft__ct_guard_word((uint32_t)j);
	if (j < CF_GUARD + LN)
		return 101u + (uint32_t)(j - CF_GUARD);
	return weft__ct_guard_word((uint32_t)(j - LN));
}

/* The first word of h (LBYTES) that is not what the queued work left:
 * x's words first, then the guards; LBYTES / 4 when none. */
static size_t close_first_wrong(const uint32_t *h)
{
	for (size_t j = CF_GUARD; j < CF_GUARD + LN; j++)
		if (h[j] != close_want(j))
			return j;
	for (size_t j = 0; j < LBYTES / 4; j++)
		if (h[j] != close_want(j))
			return j;
	return LBYTES / 4;
}

/* The host memory h of an async read of x (LBYTES) is untouched, or holds
 * what the queued work left. */
static void close_delivered(weft__ct *t, const uint32_t *h)
{
	size_t n = LBYTES / 4, j;

	if (first_not(h, n, UNTOUCHED) == n)
		return;
	j = close_first_wrong(h);
	weft__ct_expect(t, j == n,
			"an async read of x (4256 bytes) issued right before "
			"close() left 0x%08x in host memory at byte %zu of x, "
			"neither untouched (0x%08x) nor what the queued launch "
			"left (0x%08x): close() released x before the work "
			"queued on it completed (rule 3: everything issued "
			"completes before anything is released)",
			(unsigned)(j < n ? h[j] : 0), j * 4,
			(unsigned)UNTOUCHED,
			(unsigned)(j < n ? close_want(j) : 0));
}

/* Watch h for CLOSE_WATCH busy durations after close() returned at t0:
 * nothing may write it. */
static void close_watch(weft__ct *t, const uint32_t *h, const uint32_t *snap,
			uint64_t t0)
{
	/* One duration where the busy work ran at issue (nothing queued). */
	uint64_t k = t->busy_at_issue ? 1 : CLOSE_WATCH;
	uint64_t until = t0 + ((t->busy_ns << t->busy_try) * k);
	struct timespec ms = { 0, 1000000 };

	for (;;) {
		uint64_t now = weft__ct_now_ns();
		size_t i = 0;

		while (i < LBYTES / 4 && h[i] == snap[i])
			i++;
		if (i < LBYTES / 4) {
			weft__ct_expect(
				t, 0,
				"the host memory of an async read of "
				"x (4256 bytes) issued right before "
				"close() changed %llu ms after close() "
				"returned (byte %zu became 0x%08x): no "
				"host memory may be written after "
				"close() returns (rule 3)",
				(unsigned long long)((now - t0) / 1000000u),
				i * 4, (unsigned)h[i]);
			return;
		}
		if (now >= until)
			return;
		nanosleep(&ms, NULL);
	}
}

/* close() was called at t1 and returned at t2; the host memory of the
 * read was copied at t3. When close() returned at once (it did not wait
 * for the queue) but that copy may have come after the busy work and the
 * read had completed, a read landing after close() returned cannot be
 * told from one before: the try is missed. */
static void close_seen(weft__ct *t, uint64_t t1, uint64_t t2, uint64_t t3)
{
	uint64_t d = t->busy_ns << t->busy_try;

	if (!t->busy_at_issue && t2 - t1 < d / 2 && t3 - t->busy_t0 >= d / 4)
		t->busy_missed = 1;
}

/* On a second device: busy work, x += 1, an async read of x into host
 * memory of the suite's own mapping (a late write cannot reach the heap;
 * it stays mapped, as a backend that writes after close() may still),
 * then close() at once. */
static void close_try(weft__ct *t, void *arg)
{
	struct ct_on on = { 0 };
	uint32_t *h, snap[LBYTES / 4];
	weft_buf *x;
	weft_launch l;
	uint64_t t1, t2;

	(void)arg;
	/* Calibrated on t->dev first: the second device gets its rounds. */
	if (!t->busy_iters && (weft__ct_busy(t) || weft__ct_sync(t)))
		return;
	h = mmap(NULL, LBYTES, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!weft__ct_expect(t, h != MAP_FAILED,
			     "cannot map %zu bytes of host memory for the "
			     "test",
			     LBYTES))
		return;
	memset(h, 0x5A, LBYTES);
	on.dev = weft__ct_open(t);
	if (!on.dev)
		return;
	ct_swap(t, &on);
	t->prog = weft__ct_program(t);
	t->busy_param = t->prog ? weft__ct_alloc(t, 64) : NULL;
	t->busy_out = t->busy_param ? weft__ct_guarded(t, 33, 0) : NULL;
	x = t->busy_out ? weft__ct_counting(t, LN, 100) : NULL;
	l = weft__ct_launch(CF_K_INC, LN, x, NULL);
	if (x && !weft__ct_busy(t) && !weft__ct_step(t, &l, 1, 1) &&
	    !weft__ct_read(t, h, x, 0, LBYTES, WEFT_XFER_ASYNC))
		weft__ct_busy_check(t);
	t1 = weft__ct_now_ns();
	/* and everything on it, forgotten by the suite's view of its
	 * allocations (a retry's buffers may take their memory) */
	weft__ct_close_device(t, t->dev);
	t2 = weft__ct_now_ns();
	ct_swap(t, &on);
	if (t->why[0])
		return;
	memcpy(snap, h, LBYTES);
	close_seen(t, t1, t2, weft__ct_now_ns());
	close_watch(t, h, snap, t2);
	if (!t->why[0])
		close_delivered(t, h);
}

/* ---- the group ------------------------------------------------------------
 */

void weft__ct_group_lifetime(weft__ct *t)
{
	static int plain = 0, reload = 1;

	weft__ct_overlap_test(
		t,
		"free() while queued launches use the buffer (bound, "
		"or holding their device-side count): they see its "
		"contents",
		free_launch_try, NULL);

	weft__ct_overlap_test(
		t,
		"free() while only queued transfers use the buffer "
		"(an async copy from it, a copy into it, a read of "
		"it, a write into it): they complete on its memory",
		free_xfer_try, NULL);

	weft__ct_overlap_test(
		t,
		"free() with queued work counts one free and the "
		"buffer's bytes once, at once and after sync(); a "
		"second free() of it is ignored",
		free_count_try, NULL);

	weft__ct_overlap_test(
		t,
		"unload_program() while launches of the program are "
		"queued: they run to completion",
		unload_try, &plain);

	weft__ct_overlap_test(
		t,
		"unload_program() releases the program's kernels "
		"only after its queued launches: a program loaded "
		"right after does not replace them",
		unload_try, &reload);

	weft__ct_overlap_test(
		t,
		"the launch list may be changed or freed as soon as "
		"step() returns: the launches bind the buffers it "
		"held",
		launch_bufs_try, NULL);

	weft__ct_overlap_test(
		t,
		"the launch list may be changed or freed as soon as "
		"step() returns: device-extent launches read their "
		"count where its extent_buf and extent_offset said",
		launch_extent_try, NULL);

	weft__ct_overlap_test(
		t,
		"close() with work queued: everything issued "
		"completes before anything is released, and no host "
		"memory is written after close() returns",
		close_try, NULL);
}
