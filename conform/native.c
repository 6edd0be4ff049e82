/*
 * conform/native.c - conformance group native: the optional native()
 * of ABI 1.2 (weft/backend.h), through which an application hands a
 * buffer's memory to another library without a copy.
 *
 * What is portable is checked on every kind: a live buffer's answer has a
 * known kind, a non-NULL handle and the buffer's bytes; it is the same at
 * every call and differs between buffers; native() changes no counter and
 * fills no more than the caller's struct_size, refusing one too small and
 * NULL arguments with a message. Host memory (WEFT_NATIVE_HOST) is also
 * read and written through the handle: what write() and a launch wrote is
 * there after sync(), and what is written there is what read() gives and
 * what a later launch sees. Device memory (CUDA, OpenCL) cannot be reached
 * from the suite, which links no GPU runtime: those tests are skipped. A
 * plugin without native() (a vtable older than 1.2, or NULL) has every
 * test skipped: the core then says the backend exposes no native buffers.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "conform.h"

/* Words of the buffer the host-memory tests use. */
#define NN 1000u

/* The group's tests, also listed when they are skipped. */
enum {
	NT_FILLS,
	NT_STABLE,
	NT_COUNTS,
	NT_NOWAIT,
	NT_SIZE,
	NT_INVALID,
	NT_HOST,
	NT_N
};
static const char *const native_tests[NT_N] = {
	[NT_FILLS] = "a live buffer of 0, 1, 4097 and 1 MiB bytes has a "
		     "known kind, a non-NULL handle and its bytes",
	[NT_STABLE] = "the same buffer gives the same answer at every call; "
		      "distinct buffers give distinct memory",
	[NT_COUNTS] = "native() transfers, launches and counts nothing",
	[NT_NOWAIT] = "native() never waits: it returns while busy work "
		      "queued before it, and a launch on the buffer, still "
		      "run",
	[NT_SIZE] = "a larger weft_native is filled only up to the 1.2 "
		    "layout, keeping its struct_size; a smaller one is "
		    "refused with WEFT_E_INVALID",
	[NT_INVALID] = "a NULL device, buffer or answer is refused with "
		       "WEFT_E_INVALID and a message",
	[NT_HOST] = "host memory: what write() and a launch wrote is read "
		    "through the handle after sync(), and what is written "
		    "through it is what read() and a later launch see",
};

static const char *kind_name(uint32_t kind)
{
	switch (kind) {
	case WEFT_NATIVE_HOST: return "host";
	case WEFT_NATIVE_CUDA: return "CUDA";
	case WEFT_NATIVE_OPENCL: return "OpenCL";
	}
	return NULL;
}

static void check_answer(weft__ct *t, const weft_native *n, size_t bytes)
{
	weft__ct_expect(t, kind_name(n->kind) != NULL,
			"%zu-byte buffer: unknown kind %u", bytes,
			(unsigned)n->kind);
	weft__ct_expect(t, n->handle != NULL, "%zu-byte buffer: NULL handle",
			bytes);
	weft__ct_expect(t, n->bytes == bytes, "%zu-byte buffer: bytes is %zu",
			bytes, n->bytes);
	weft__ct_expect(t, n->device >= 0, "%zu-byte buffer: device %d", bytes,
			(int)n->device);
	weft__ct_expect(t, n->struct_size == sizeof *n,
			"struct_size changed from %zu to %u", sizeof *n,
			(unsigned)n->struct_size);
}

static int same_answer(const weft_native *a, const weft_native *b)
{
	return a->kind == b->kind && a->device == b->device &&
	       a->handle == b->handle && a->offset == b->offset &&
	       a->bytes == b->bytes;
}

/* Known kind, handle, bytes; the same at a second call; buffers that
 * differ in handle or offset. */
static void native_fills(weft__ct *t)
{
	static const size_t sizes[] = { 0, 1, 4097, 1u << 20 };
	enum { NS = sizeof sizes / sizeof sizes[0] };
	weft_buf *b[NS] = { NULL };
	weft_native n[NS], again;
	int got = 0; /* buffers with an answer */

	weft__ct_begin(t, "%s", native_tests[NT_FILLS]);
	for (int i = 0; i < NS; i++, got++) {
		if (!(b[i] = weft__ct_alloc(t, sizes[i])) ||
		    weft__ct_native(t, b[i], &n[i]))
			break;
		check_answer(t, &n[i], sizes[i]);
	}
	if (!t->why[0])
		weft__ct_diag(t, "kind %s, device %d", kind_name(n[0].kind),
			      (int)n[0].device);
	weft__ct_end(t);
	weft__ct_begin(t, "%s", native_tests[NT_STABLE]);
	weft__ct_expect(t, got == NS, "native() failed (see above)");
	for (int i = 0; i < got && !t->why[0]; i++) {
		if (weft__ct_native(t, b[i], &again))
			break;
		weft__ct_expect(t, same_answer(&n[i], &again),
				"%zu-byte buffer: the second answer differs "
				"(handle %p offset %zu, then %p offset %zu)",
				sizes[i], n[i].handle, n[i].offset,
				again.handle, again.offset);
		for (int j = 0; j < i; j++)
			weft__ct_expect(t,
					n[i].handle != n[j].handle ||
						n[i].offset != n[j].offset,
					"the %zu- and %zu-byte buffers have "
					"the same memory",
					sizes[j], sizes[i]);
	}
	weft__ct_end(t);
	for (int i = 0; i < NS; i++)
		weft__ct_free(t, b[i]);
}

/* No counter moves, no sync is counted. */
static void native_counts(weft__ct *t)
{
	weft_stats a = { .struct_size = 0 }, b = { .struct_size = 0 };
	weft_buf *x = weft__ct_alloc(t, 4096);
	weft_native n;

	weft__ct_begin(t, "%s", native_tests[NT_COUNTS]);
	if (x && !weft__ct_stats(t, &a) && !weft__ct_native(t, x, &n) &&
	    !weft__ct_native(t, x, &n) && !weft__ct_stats(t, &b) &&
	    !weft__ct_counters_moved(t, &a, &b, "native()"))
		weft__ct_expect(
			t, a.syncs == b.syncs && a.fence_waits == b.fence_waits,
			"native() counted %llu syncs and %llu fence "
			"waits",
			(unsigned long long)(b.syncs - a.syncs),
			(unsigned long long)(b.fence_waits - a.fence_waits));
	weft__ct_end(t);
	weft__ct_free(t, x);
}

/* A caller's struct from a newer header: bytes past the 1.2 layout stay
 * as they were, and so does struct_size. One from before 1.2 cannot
 * exist: refused, nothing past its size written. */
static void native_size(weft__ct *t)
{
	enum { BIG = 256 };
	unsigned char big[BIG], before[BIG];
	weft_buf *x = weft__ct_alloc(t, 100);
	weft_native *n = (weft_native *)(void *)big;
	uint32_t small = (uint32_t)WEFT_NATIVE_V1_2_SIZE - 1;
	weft_status st;

	weft__ct_begin(t, "%s", native_tests[NT_SIZE]);
	if (x) {
		weft__ct_pattern(big, BIG, 7);
		n->struct_size = BIG;
		memcpy(before, big, BIG);
		t->err.msg[0] = '\0';
		st = t->vt->native(t->dev, x, n, &t->err);
		weft__ct_expect(t, st == WEFT_OK,
				"a %d-byte weft_native: native() returned %s: "
				"%s",
				BIG, weft_status_str(st), t->err.msg);
		weft__ct_expect(t, n->struct_size == BIG,
				"struct_size changed from %d to %u", BIG,
				(unsigned)n->struct_size);
		weft__ct_expect(t,
				memcmp(big + WEFT_NATIVE_V1_2_SIZE,
				       before + WEFT_NATIVE_V1_2_SIZE,
				       BIG - WEFT_NATIVE_V1_2_SIZE) == 0,
				"bytes past the 1.2 layout (%zu) were written",
				(size_t)WEFT_NATIVE_V1_2_SIZE);
		weft__ct_expect(t, n->bytes == 100, "bytes is %zu, want 100",
				n->bytes);
		memcpy(big, before, BIG);
		n->struct_size = small;
		t->err.msg[0] = '\0';
		st = t->vt->native(t->dev, x, n, &t->err);
		weft__ct_expect(t, st == WEFT_E_INVALID,
				"struct_size %u: native() returned %s",
				(unsigned)small, weft_status_str(st));
		weft__ct_expect(t, t->err.msg[0] != '\0',
				"struct_size %u: the refusal has no message",
				(unsigned)small);
		weft__ct_expect(
			t,
			memcmp(big + small, before + small, BIG - small) == 0,
			"struct_size %u: bytes past it were written",
			(unsigned)small);
	}
	weft__ct_end(t);
	weft__ct_free(t, x);
}

/* One refusal: the status and a message. */
static void refused(weft__ct *t, weft_device *dev, weft_buf *b,
		    weft_native *out, const char *what)
{
	weft_status st;

	t->err.msg[0] = '\0';
	st = t->vt->native(dev, b, out, &t->err);
	weft__ct_expect(t, st == WEFT_E_INVALID, "%s: native() returned %s",
			what, weft_status_str(st));
	weft__ct_expect(t, t->err.msg[0] != '\0',
			"%s: the refusal has no message", what);
}

static void native_invalid(weft__ct *t)
{
	weft_buf *x = weft__ct_alloc(t, 64);
	weft_native n = { .struct_size = sizeof n };

	weft__ct_begin(t, "%s", native_tests[NT_INVALID]);
	if (x) {
		refused(t, NULL, x, &n, "a NULL device");
		refused(t, t->dev, NULL, &n, "a NULL buffer");
		refused(t, t->dev, x, NULL, "a NULL answer");
	}
	weft__ct_end(t);
	weft__ct_free(t, x);
}

/* Words CF_GUARD .. CF_GUARD + NN - 1 of got hold base + i. */
static int words_are(weft__ct *t, const uint32_t *got, uint32_t base,
		     const char *what)
{
	for (uint32_t i = 0; i < NN; i++)
		if (!weft__ct_expect(t, got[CF_GUARD + i] == base + i,
				     "%s: word %u is %u, want %u", what,
				     (unsigned)i, (unsigned)got[CF_GUARD + i],
				     (unsigned)(base + i)))
			return 0;
	return 1;
}

/* Write base + i, increment on the device, sync: the handle shows
 * base + 1 + i. Write base2 + i through it: read() gives that, and a
 * launch then makes it base2 + 1 + i. */
static void host_round_trip(weft__ct *t, weft_buf *x, uint32_t *p, uint32_t *h)
{
	size_t bytes = (NN + 2 * CF_GUARD) * 4;
	weft_launch l = weft__ct_launch(CF_K_INC, NN, x, NULL);

	if (weft__ct_read(t, h, x, 0, bytes, 0))
		return;
	for (uint32_t i = 0; i < NN; i++)
		h[CF_GUARD + i] = 700 + i;
	if (weft__ct_write(t, x, 0, h, bytes, WEFT_XFER_ASYNC) ||
	    weft__ct_step(t, &l, 1, 1) || weft__ct_sync(t) ||
	    !words_are(t, p, 701,
		       "through the handle after write, launch "
		       "and sync"))
		return;
	for (uint32_t i = 0; i < NN; i++)
		p[CF_GUARD + i] = 5000 + i;
	memset(h, 0, bytes);
	if (weft__ct_read(t, h, x, 0, bytes, 0) ||
	    !words_are(t, h, 5000, "read() after writing through the handle"))
		return;
	if (weft__ct_step(t, &l, 1, 1) || weft__ct_sync(t) ||
	    weft__ct_read(t, h, x, 0, bytes, 0))
		return;
	words_are(t, h, 5001, "a launch after writing through the handle");
}

static void native_host(weft__ct *t)
{
	size_t bytes = (NN + 2 * CF_GUARD) * 4;
	uint32_t *h = weft__ct_xmalloc(t, bytes);
	weft_buf *x = h ? weft__ct_guarded(t, NN, 0) : NULL;
	weft_native n;

	weft__ct_begin(t, "%s", native_tests[NT_HOST]);
	if (!x || weft__ct_native(t, x, &n)) {
		weft__ct_end(t);
	} else if (n.kind != WEFT_NATIVE_HOST) {
		weft__ct_skip(t,
			      "%s memory cannot be reached from the suite, "
			      "which links no GPU runtime",
			      kind_name(n.kind) ? kind_name(n.kind)
						: "unknown");
	} else {
		host_round_trip(t, x, (uint32_t *)((char *)n.handle + n.offset),
				h);
		weft__ct_end(t);
	}
	weft__ct_free(t, x);
	free(h);
}

/* Busy work, x += 1, then native() of x at once: it returns before the
 * busy work could have completed. */
static void nowait_try(weft__ct *t, void *arg)
{
	weft_buf *x = weft__ct_guarded(t, NN, 0);
	weft_launch l = weft__ct_launch(CF_K_INC, NN, x, NULL);
	weft__ct_timed c;
	weft_native n;

	(void)arg;
	if (!x || weft__ct_busy(t) || weft__ct_step(t, &l, 1, 1))
		goto release;
	weft__ct_nowait_begin(&c);
	if (!weft__ct_native(t, x, &n))
		weft__ct_nowait_end(t, &c,
				    "native() of a buffer a queued launch "
				    "writes, right after busy work",
				    "native() never waits");
release:
	weft__ct_sync(t);
	weft__ct_free(t, x);
}

void weft__ct_group_native(weft__ct *t)
{
	const weft_backend *vt = t->vt;

	if (!weft__ct_has_native(t)) {
		for (int i = 0; i < NT_N; i++) {
			weft__ct_begin(t, "%s", native_tests[i]);
			weft__ct_skip(t,
				      "no native() (%s): the core reports "
				      "that the backend exposes no native "
				      "buffers",
				      vt->struct_size < WEFT_BACKEND_V1_2_SIZE
					      ? "a vtable older than ABI 1.2"
					      : "left NULL");
		}
		return;
	}
	native_fills(t);
	native_counts(t);
	weft__ct_overlap_test(t, native_tests[NT_NOWAIT], nowait_try, NULL);
	native_size(t);
	native_invalid(t);
	native_host(t);
}
