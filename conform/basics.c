/*
 * conform/basics.c - conformance groups about the entry, probe() and
 * open(), and about calls a backend must refuse: bad arguments
 * (invalid-args) and allocations no device can serve (oversize).
 *
 * A refused call must return an error status (never WEFT_OK, never
 * crash), write a message, and change nothing: the counters and the
 * contents of every buffer are checked after each one.
 */
#include "config.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conform.h"

/* ---- entry --------------------------------------------------------------- */

/* Non-empty, printable, one line. */
static int good_text(const char *s)
{
	if (!s || !s[0])
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20)
			return 0;
	return 1;
}

static void entry_text(weft__ct *t, const char *field, const char *value)
{
	weft__ct_begin(t, "%s is a non-empty one-line string", field);
	weft__ct_expect(t, good_text(value), "%s is %s%s%s", field,
			value ? "\"" : "NULL", value ? value : "",
			value ? "\"" : "");
	weft__ct_end(t);
}

void weft__ct_group_entry(weft__ct *t)
{
	const weft_backend *vt = t->vt;
	const char *name = vt->name;

	weft__ct_begin(t, "name is made of a-z, 0-9, '_' and '-' and matches "
			  "the file name");
	weft__ct_expect(t,
			name && name[0] &&
				strspn(name, "abcdefghijklmnopqrstuvwxyz"
					     "0123456789_-") == strlen(name),
			"name is \"%s\"", name ? name : "(NULL)");
	weft__ct_expect(t, strcmp(name, t->name) == 0,
			"name \"%s\", file named for \"%s\"", name, t->name);
	weft__ct_end(t);
	entry_text(t, "version", vt->version);
	entry_text(t, "description", vt->description);

	weft__ct_begin(t,
		       "abi_major is %d, the major version of this weft's "
		       "backend ABI",
		       WEFT_BACKEND_ABI_MAJOR);
	weft__ct_expect(t, vt->abi_major == WEFT_BACKEND_ABI_MAJOR,
			"abi_major is %u", (unsigned)vt->abi_major);
	weft__ct_end(t);

	weft__ct_begin(t,
		       "struct_size covers the 1.0 vtable (%zu bytes) and "
		       "is a whole number of pointers",
		       (size_t)WEFT_BACKEND_V1_0_SIZE);
	weft__ct_expect(t,
			vt->struct_size >= WEFT_BACKEND_V1_0_SIZE &&
				vt->struct_size % sizeof(void *) == 0,
			"struct_size is %u", (unsigned)vt->struct_size);
	weft__ct_end(t);
}

/* ---- probe --------------------------------------------------------------- */

/* Threads of this process, -1 when /proc cannot tell. */
static int thread_count(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static weft_status probe_once(weft__ct *t, weft_probe *p)
{
	memset(p, 0, sizeof *p);
	p->struct_size = sizeof *p;
	return t->vt->probe(p);
}

static void probe_small(weft__ct *t)
{
	unsigned char raw[sizeof(weft_probe) + 64];
	size_t size = offsetof(weft_probe, reason);
	weft_probe *p = (weft_probe *)(void *)raw;
	weft_status st;

	weft__ct_begin(t,
		       "a caller's smaller weft_probe (%zu bytes) is filled "
		       "only up to its struct_size",
		       size);
	memset(raw, 0x5A, sizeof raw);
	p->struct_size = (uint32_t)size;
	st = t->vt->probe(p);
	weft__ct_expect(t, st == WEFT_OK, "probe returned %s",
			weft_status_str(st));
	for (size_t i = size; i < sizeof raw; i++)
		if (!weft__ct_expect(t, raw[i] == 0x5A,
				     "byte %zu (past struct_size %zu) was "
				     "written",
				     i, size))
			break;
	weft__ct_expect(t, p->available == 1 || p->available == 0,
			"available is %d", p->available);
	weft__ct_end(t);
}

void weft__ct_group_probe(weft__ct *t)
{
	weft_probe a, b;
	weft_status sa, sb;
	int before = thread_count(), after;

	weft__ct_begin(t, "returns WEFT_OK, available, with no reason");
	sa = probe_once(t, &a);
	weft__ct_expect(t, sa == WEFT_OK, "probe returned %s",
			weft_status_str(sa));
	weft__ct_expect(t, a.available == 1, "available is %d", a.available);
	weft__ct_expect(t, a.reason[0] == '\0', "reason is \"%.*s\"",
			(int)sizeof a.reason, a.reason);
	weft__ct_end(t);

	weft__ct_begin(t, "score is within 0..1000");
	weft__ct_expect(t, a.score >= 0 && a.score <= 1000, "score is %d",
			a.score);
	weft__ct_end(t);

	weft__ct_begin(t, "probing twice gives the same answer");
	sb = probe_once(t, &b);
	weft__ct_expect(t, sa == sb && memcmp(&a, &b, sizeof a) == 0,
			"first: available %d score %d devices \"%.64s\"; "
			"second: available %d score %d devices \"%.64s\"",
			a.available, a.score, a.devices, b.available, b.score,
			b.devices);
	weft__ct_end(t);

	weft__ct_begin(t, "only looks: starts no thread");
	after = thread_count();
	if (before < 0) {
		weft__ct_skip(t, "/proc/self/task is not readable");
	} else {
		weft__ct_expect(t, after == before,
				"%d threads before probing, %d after", before,
				after);
		weft__ct_end(t);
	}
	probe_small(t);
}

/* ---- open ---------------------------------------------------------------- */

static weft_device *open_with(weft__ct *t, weft_device_config *dc,
			      weft_status *st)
{
	weft_device *dev = NULL;

	t->err.msg[0] = '\0';
	*st = t->vt->open(dc, &dev, &t->err);
	return *st == WEFT_OK ? dev : NULL;
}

static void open_refused(weft__ct *t, weft_device_config *dc, const char *what)
{
	weft_device *dev;
	weft_status st;

	weft__ct_begin(t,
		       "%s is refused with WEFT_E_INVALID or "
		       "WEFT_E_UNAVAILABLE and a message",
		       what);
	dev = open_with(t, dc, &st);
	weft__ct_expect(t, st == WEFT_E_INVALID || st == WEFT_E_UNAVAILABLE,
			"open returned %s", weft_status_str(st));
	weft__ct_expect(t, t->err.msg[0] != '\0', "no message");
	if (dev)
		t->vt->close(dev);
	weft__ct_end(t);
}

/* Every counter of a fresh device is 0. */
static void open_fresh_counters(weft__ct *t, weft_device *dev)
{
	weft_stats s, zero;

	weft__ct_begin(t, "a new device's counters are all 0");
	memset(&s, 0xFF, sizeof s);
	s.struct_size = sizeof s;
	weft__ct_expect(t, t->vt->stats(dev, &s) == WEFT_OK, "stats() failed");
	memset(&zero, 0, sizeof zero);
	zero.struct_size = sizeof zero;
	memset(zero.time_ns, 0, sizeof zero.time_ns);
	memcpy(s.time_ns, zero.time_ns, sizeof s.time_ns);
	weft__ct_counters_moved(t, &zero, &s, "a new device");
	weft__ct_expect(t, s.syncs == 0 && s.bytes_peak == 0,
			"syncs %llu, bytes_peak %llu",
			(unsigned long long)s.syncs,
			(unsigned long long)s.bytes_peak);
	weft__ct_end(t);
}

/* mem_info() (ABI 1.3, optional): the device's memory, within the
 * caller's struct_size, counting nothing. */
static void open_mem_info(weft__ct *t, weft_device *dev)
{
	const weft_backend *vt = t->vt;
	struct {
		weft_mem_info mi;
		unsigned char tail[64];
	} x;
	weft_stats a = { .struct_size = sizeof a };
	weft_stats b = { .struct_size = sizeof b };
	const unsigned char *past = (const unsigned char *)&x;
	weft_status st;
	int kept = 1;

	weft__ct_begin(t, "mem_info() (1.3) says the device's memory is the "
			  "host's, or gives free bytes no more than its "
			  "total; fills only what struct_size covers; refuses "
			  "a NULL answer with a message; counts nothing");
	if (vt->struct_size < WEFT_BACKEND_V1_3_SIZE || !vt->mem_info) {
		weft__ct_skip(t,
			      "no mem_info() (%s): the core checks a model's "
			      "estimate against the host alone",
			      vt->struct_size < WEFT_BACKEND_V1_3_SIZE
				      ? "a vtable older than ABI 1.3"
				      : "left NULL");
		return;
	}
	vt->stats(dev, &a);
	memset(&x, 0xA5, sizeof x);
	x.mi.struct_size = (uint32_t)WEFT_MEM_INFO_V1_3_SIZE;
	st = vt->mem_info(dev, &x.mi, &t->err);
	weft__ct_expect(t, st == WEFT_OK, "mem_info() returned %s: %s",
			weft_status_str(st), t->err.msg);
	for (size_t i = WEFT_MEM_INFO_V1_3_SIZE; i < sizeof x; i++)
		kept = kept && past[i] == 0xA5;
	weft__ct_expect(t, kept && x.mi.struct_size == WEFT_MEM_INFO_V1_3_SIZE,
			"wrote past the caller's struct_size, or changed it");
	weft__ct_expect(t,
			x.mi.host == 1 ||
				(x.mi.host == 0 && x.mi.total_bytes > 0 &&
				 x.mi.free_bytes <= x.mi.total_bytes),
			"host %d, free %llu of %llu bytes", x.mi.host,
			(unsigned long long)x.mi.free_bytes,
			(unsigned long long)x.mi.total_bytes);
	t->err.msg[0] = '\0';
	st = vt->mem_info(dev, NULL, &t->err);
	weft__ct_expect(t, st != WEFT_OK && t->err.msg[0],
			"a NULL answer gave %s, message '%s'",
			weft_status_str(st), t->err.msg);
	vt->stats(dev, &b);
	weft__ct_counters_moved(t, &a, &b, "mem_info()");
	weft__ct_end(t);
}

/* ---- open: mem_info() never waits, refuses a short struct, plausible
 * sizes ------------------------------------------------------------------ */

#define MIB ((size_t)1 << 20)

static int has_mem_info(const weft__ct *t)
{
	return t->vt->struct_size >= WEFT_BACKEND_V1_3_SIZE && t->vt->mem_info;
}

/* mem_info() of t->dev into *mi (the whole struct); -1 with the reason
 * recorded when it fails. */
static int mi_get(weft__ct *t, weft_mem_info *mi)
{
	weft_status st;

	memset(mi, 0, sizeof *mi);
	mi->struct_size = sizeof *mi;
	t->err.msg[0] = '\0';
	st = t->vt->mem_info(t->dev, mi, &t->err);
	return weft__ct_expect(t, st == WEFT_OK, "mem_info() returned %s: %s",
			       weft_status_str(st), t->err.msg)
		       ? 0
		       : -1;
}

/* One try: busy work queued, then mem_info() at once, which must return
 * before the busy work could have completed (weft__ct_nowait_end()), then
 * sync(). */
static void mi_nowait_try(weft__ct *t, void *arg)
{
	weft__ct_timed c;
	weft_mem_info mi;

	(void)arg;
	if (weft__ct_busy(t))
		return;
	weft__ct_nowait_begin(&c);
	if (!mi_get(t, &mi))
		weft__ct_nowait_end(t, &c, "mem_info()",
				    "mem_info() never waits");
	weft__ct_sync(t);
}

static void mi_nowait(weft__ct *t)
{
	weft__ct_overlap_test(t,
			      "mem_info() never waits: it returns while queued "
			      "work (busy work ahead of it) still runs",
			      mi_nowait_try, NULL);
}

/* A struct_size of size (below WEFT_MEM_INFO_V1_3_SIZE) is refused, and
 * nothing is written. */
static void mi_short_one(weft__ct *t, size_t size)
{
	struct {
		weft_mem_info mi;
		unsigned char tail[32];
	} x;
	const unsigned char *raw = (const unsigned char *)&x;
	weft_status st;

	memset(&x, 0xA5, sizeof x);
	x.mi.struct_size = (uint32_t)size;
	t->err.msg[0] = '\0';
	st = t->vt->mem_info(t->dev, &x.mi, &t->err);
	weft__ct_expect(t, st == WEFT_E_INVALID,
			"mem_info() with struct_size %zu (below "
			"WEFT_MEM_INFO_V1_3_SIZE, %zu) returned %s",
			size, (size_t)WEFT_MEM_INFO_V1_3_SIZE,
			weft_status_str(st));
	weft__ct_expect(t, st == WEFT_OK || t->err.msg[0],
			"mem_info() with struct_size %zu refused it with no "
			"message",
			size);
	weft__ct_expect(t, x.mi.struct_size == size,
			"mem_info() changed struct_size from %zu to %u", size,
			(unsigned)x.mi.struct_size);
	for (size_t i = sizeof x.mi.struct_size; i < sizeof x; i++)
		if (!weft__ct_expect(t, raw[i] == 0xA5,
				     "mem_info() with struct_size %zu wrote "
				     "byte %zu (0x%02x), past the caller's "
				     "struct",
				     size, i, raw[i]))
			break;
}

static void mi_short(weft__ct *t)
{
	weft__ct_begin(t,
		       "mem_info() refuses a struct_size below "
		       "WEFT_MEM_INFO_V1_3_SIZE (%zu bytes) with "
		       "WEFT_E_INVALID and a message, writing nothing",
		       (size_t)WEFT_MEM_INFO_V1_3_SIZE);
	mi_short_one(t, WEFT_MEM_INFO_V1_3_SIZE - sizeof(uint64_t));
	mi_short_one(t, sizeof(uint32_t));
	weft__ct_end(t);
}

/* Bytes the suite holds on t->dev (its live buffers). */
static uint64_t mi_held(const weft__ct *t)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < t->n_recs; i++)
		if (t->recs[i].dev == t->dev)
			n += t->recs[i].bytes;
	return n;
}

/* Allocate 64 MiB on t->dev and write it in full. */
static weft_buf *mi_fill(weft__ct *t)
{
	unsigned char *h = weft__ct_xmalloc(t, MIB);
	weft_buf *b = h ? weft__ct_alloc(t, 64 * MIB) : NULL;

	if (b)
		memset(h, 0x5C, MIB);
	for (size_t k = 0; b && k < 64 && !t->why[0]; k++)
		weft__ct_write(t, b, k * MIB, h, MIB, 0);
	free(h);
	return b;
}

/* host = 1: sizes are 0, or the host's: at least 64 MiB, at most twice
 * its RAM. */
static void mi_host_sizes(weft__ct *t, const weft_mem_info *mi)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	uint64_t ram = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page
					     : UINT64_MAX / 2;

	if (!mi->total_bytes && !mi->free_bytes)
		return; /* host memory, sizes left to the core */
	weft__ct_expect(t, mi->total_bytes >= 64 * MIB,
			"host 1 with total_bytes %llu: less than 64 MiB - "
			"%s",
			(unsigned long long)mi->total_bytes,
			mi->total_bytes * 1024 >= ram / 2
				? "1024 times too small: a size in KiB, not "
				  "bytes"
				: "not a host's memory");
	weft__ct_expect(t, mi->total_bytes <= 2 * ram,
			"host 1 with total_bytes %llu: more than twice the "
			"host's %llu bytes of RAM",
			(unsigned long long)mi->total_bytes,
			(unsigned long long)ram);
	weft__ct_expect(t, mi->free_bytes <= mi->total_bytes,
			"free_bytes %llu above total_bytes %llu",
			(unsigned long long)mi->free_bytes,
			(unsigned long long)mi->total_bytes);
}

/* free_bytes dropped by at least 32 MiB when 64 MiB were allocated and
 * written (0, unknown, is not checked). */
static void mi_drop(weft__ct *t, const weft_mem_info *a, const weft_mem_info *b)
{
	uint64_t drop = a->free_bytes > b->free_bytes
				? a->free_bytes - b->free_bytes
				: 0;

	if (!a->free_bytes || !b->free_bytes)
		return;
	weft__ct_expect(t, drop >= 32 * MIB,
			"free_bytes went from %llu to %llu when 64 MiB were "
			"allocated and written: it dropped by %llu bytes, "
			"not the 32 MiB or more expected%s",
			(unsigned long long)a->free_bytes,
			(unsigned long long)b->free_bytes,
			(unsigned long long)drop,
			drop * 1024 >= 32 * MIB && drop * 1024 <= 128 * MIB
				? " - 1024 times too little: sizes in KiB, "
				  "not bytes"
				: "");
}

/* host = 0: free no more than total, total no less than the suite holds
 * on the device, before and after 64 MiB more. */
static void mi_device_sizes(weft__ct *t, const weft_mem_info *mi)
{
	weft_mem_info after;
	weft_buf *b;
	uint64_t held;

	weft__ct_expect(t, mi->free_bytes <= mi->total_bytes,
			"free_bytes %llu above total_bytes %llu",
			(unsigned long long)mi->free_bytes,
			(unsigned long long)mi->total_bytes);
	b = mi_fill(t);
	held = mi_held(t);
	if (b && !t->why[0] && !mi_get(t, &after)) {
		mi_drop(t, mi, &after);
		weft__ct_expect(t, after.total_bytes >= held,
				"total_bytes %llu is less than the %llu bytes "
				"the suite holds on the device%s",
				(unsigned long long)after.total_bytes,
				(unsigned long long)held,
				after.total_bytes * 1024 >= held
					? " - sizes in KiB, not bytes?"
					: "");
		weft__ct_expect(t, after.free_bytes <= after.total_bytes,
				"free_bytes %llu above total_bytes %llu with "
				"64 MiB allocated",
				(unsigned long long)after.free_bytes,
				(unsigned long long)after.total_bytes);
	}
	weft__ct_free(t, b);
}

static void mi_sizes(weft__ct *t)
{
	weft_mem_info mi;

	weft__ct_begin(t, "mem_info() gives plausible sizes: with host 1, "
			  "0 or at least 64 MiB and at most twice the host's "
			  "RAM; with host 0, total_bytes no less than the "
			  "suite holds there, and free_bytes dropping by 32 "
			  "MiB or more when 64 MiB are allocated and written "
			  "(unless 0, unknown)");
	if (!mi_get(t, &mi)) {
		if (mi.host)
			mi_host_sizes(t, &mi);
		else
			mi_device_sizes(t, &mi);
	}
	weft__ct_end(t);
}

/* The tests of mem_info() that need the suite's program (the busy work),
 * on dev. */
static void open_mem_info_more(weft__ct *t, weft_device *dev)
{
	static const char *tests[] = {
		"mem_info() never waits",
		"mem_info() refuses a short struct_size",
		"mem_info() gives plausible sizes",
	};

	if (!has_mem_info(t)) {
		for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
			weft__ct_begin(t, "%s", tests[i]);
			weft__ct_skip(t, "no mem_info() (ABI 1.3, optional)");
		}
		return;
	}
	weft__ct_begin(t, "setup: the suite's kernels load on the default "
			  "device (busy work)");
	t->dev = dev;
	t->prog = weft__ct_program(t);
	if (weft__ct_end_quiet(t)) {
		mi_nowait(t);
		mi_short(t);
		mi_sizes(t);
	}
	weft__ct_busy_release(t);
	if (t->prog)
		t->vt->unload_program(t->dev, t->prog);
	t->prog = NULL;
	t->dev = NULL;
}

/* ---- open: two devices --------------------------------------------------- */

static const size_t two_first[] = { 3000, 5000, 7000 }; /* 15000 bytes */
static const size_t two_second[] = { 6000, 10000 };	/* 16000 bytes */
#define N_TWO_FIRST  (sizeof two_first / sizeof two_first[0])
#define N_TWO_SECOND (sizeof two_second / sizeof two_second[0])

/* Allocate n buffers of sizes[] on t->dev, each written in full with the
 * pattern seed + k. */
static void two_fill(weft__ct *t, weft_buf **b, const size_t *sizes, size_t n,
		     unsigned seed)
{
	unsigned char *h = weft__ct_xmalloc(t, 10000);

	for (size_t k = 0; h && k < n && !t->why[0]; k++) {
		b[k] = weft__ct_alloc(t, sizes[k]);
		weft__ct_pattern(h, sizes[k], seed + (unsigned)k);
		if (b[k])
			weft__ct_write(t, b[k], 0, h, sizes[k], 0);
	}
	free(h);
}

/* t->dev counts n allocations of `bytes` bytes in all (what names it). */
static void two_counts(weft__ct *t, size_t n, size_t bytes, const char *what)
{
	weft_stats s;

	if (weft__ct_stats(t, &s))
		return;
	weft__ct_expect(
		t, s.allocs + s.pool_reuses == n && s.bytes_in_use == bytes,
		"the %s device counts %llu allocations and %llu bytes "
		"in use; it made %zu, of %zu bytes",
		what, (unsigned long long)(s.allocs + s.pool_reuses),
		(unsigned long long)s.bytes_in_use, n, bytes);
}

/* The first device's buffers still hold their patterns (seed 60 + k). */
static void two_kept(weft__ct *t, weft_buf **b)
{
	unsigned char *h = weft__ct_xmalloc(t, 10000);
	unsigned char *got = weft__ct_xmalloc(t, 10000);

	for (size_t k = 0; got && h && k < N_TWO_FIRST && !t->why[0]; k++) {
		const weft__ct_rec *r = weft__ct_rec_of(t, b[k]);
		size_t n = two_first[k], i;

		weft__ct_pattern(h, n, 60 + (unsigned)k);
		if (weft__ct_read(t, got, b[k], 0, n, 0))
			break;
		i = weft__ct_first_diff(got, h, n);
		weft__ct_expect(t, i == n,
				"buffer #%u of the first device (%zu bytes): "
				"byte %zu is 0x%02x, want 0x%02x, after the "
				"second device was closed",
				r ? r->id : 0, n, i, i < n ? got[i] : 0,
				i < n ? h[i] : 0);
	}
	free(h);
	free(got);
}

/* Two devices at once: each counts only its own buffers, and closing the
 * second leaves the first's buffers and counters alone (a backend that
 * keeps every device's buffers in one list releases them all). */
static void open_two(weft__ct *t, weft_device_config *dc)
{
	weft_device *saved = t->dev, *a, *b;
	weft_buf *ba[N_TWO_FIRST] = { 0 }, *bb[N_TWO_SECOND] = { 0 };
	weft_stats sa, sa2;
	weft_status st;

	weft__ct_begin(t, "two devices open at once keep their buffers apart: "
			  "each counts only its own (allocs, bytes_in_use), "
			  "and closing the second leaves the first's buffers "
			  "and counters as they were");
	a = open_with(t, dc, &st);
	weft__ct_expect(t, a != NULL, "first open: %s: %s", weft_status_str(st),
			t->err.msg);
	b = a ? open_with(t, dc, &st) : NULL;
	weft__ct_expect(t, !a || b != NULL, "second open: %s: %s",
			weft_status_str(st), t->err.msg);
	if (a && b) {
		t->dev = a;
		two_fill(t, ba, two_first, N_TWO_FIRST, 60);
		t->dev = b;
		two_fill(t, bb, two_second, N_TWO_SECOND, 70);
		two_counts(t, N_TWO_SECOND, 16000, "second");
		t->dev = a;
		two_counts(t, N_TWO_FIRST, 15000, "first");
		if (!t->why[0] && !weft__ct_stats(t, &sa)) {
			weft__ct_phase(t, "closing the second of two devices");
			weft__ct_close_device(t, b);
			b = NULL;
			if (!weft__ct_stats(t, &sa2) &&
			    !weft__ct_counters_moved(
				    t, &sa, &sa2,
				    "on the first device, closing the second"))
				two_kept(t, ba);
		}
		for (size_t k = 0; k < N_TWO_FIRST; k++)
			weft__ct_free(t, ba[k]);
	}
	weft__ct_close_device(t, b);
	weft__ct_close_device(t, a);
	t->dev = saved;
	weft__ct_end(t);
}

/* close() releases what the device still holds. */
static void open_close_busy(weft__ct *t, weft_device_config *dc)
{
	weft_device *saved = t->dev;
	weft_status st;

	weft__ct_begin(t, "close() releases a device that still holds "
			  "buffers and a program");
	t->dev = open_with(t, dc, &st);
	weft__ct_expect(t, t->dev != NULL, "open: %s: %s", weft_status_str(st),
			t->err.msg);
	if (t->dev) {
		weft__ct_alloc(t, 0);
		weft__ct_alloc(t, 100);
		weft__ct_alloc(t, 70000);
		weft__ct_program(t);
		weft__ct_phase(t, "closing a device that holds buffers");
		weft__ct_close_device(t, t->dev);
	}
	t->dev = saved;
	weft__ct_end(t);
}

void weft__ct_group_open(weft__ct *t)
{
	weft_device_config dc, bad;
	char cache[PATH_MAX];
	weft_device *dev;
	weft_status st;

	weft__ct_device_config(t, &dc, cache, sizeof cache);
	bad = dc;
	bad.device = -1;
	bad.device_match = NULL;
	weft__ct_begin(t, "the default device (-1) opens");
	dev = open_with(t, &bad, &st);
	weft__ct_expect(t, dev != NULL, "open returned %s: %s",
			weft_status_str(st), t->err.msg);
	weft__ct_end(t);
	if (dev) {
		open_fresh_counters(t, dev);
		open_mem_info(t, dev);
		open_mem_info_more(t, dev);
		weft__ct_phase(t, "closing the default device");
		t->vt->close(dev);
	}
	bad.device = 1023;
	open_refused(t, &bad, "device index 1023, which does not exist,");
	bad.device = -1;
	bad.device_match = "no-such-device-name-q7z";
	open_refused(t, &bad, "a device name that matches no device");
	bad.device_match = NULL;

	weft__ct_begin(t, "a 1.0-sized device configuration (without "
			  "device_match and platform) is accepted");
	bad.struct_size = (uint32_t)WEFT_DEVICE_CONFIG_V1_0_SIZE;
	dev = open_with(t, &bad, &st);
	weft__ct_expect(t, dev != NULL, "open returned %s: %s",
			weft_status_str(st), t->err.msg);
	if (dev)
		t->vt->close(dev);
	weft__ct_end(t);
	open_two(t, &dc);
	open_close_busy(t, &dc);
}

/* ---- invalid-args -------------------------------------------------------- */

/* The buffers every refused call could touch, and what they must hold. */
typedef struct inv {
	weft_buf *b, *c, *p, *ctl; /* data, copy target, params, counts */
	uint32_t b_want[64 + 2 * CF_GUARD];
	unsigned char c_want[512];
	weft_stats before;
} inv;

#define INV_WORDS 64u
#define INV_BYTES ((INV_WORDS + 2 * CF_GUARD) * 4)

static int inv_setup(weft__ct *t, inv *v)
{
	uint32_t base = 7;

	weft__ct_begin(t, "setup: buffers for the refused calls");
	v->b = weft__ct_guarded(t, INV_WORDS, 0x11111111u);
	v->c = weft__ct_alloc(t, sizeof v->c_want);
	v->p = weft__ct_alloc(t, 16);
	v->ctl = weft__ct_alloc(t, 16);
	weft__ct_pattern(v->c_want, sizeof v->c_want, 3);
	if (v->c && v->p && v->ctl &&
	    !weft__ct_write(t, v->c, 0, v->c_want, sizeof v->c_want, 0) &&
	    !weft__ct_write(t, v->p, 0, &base, 4, 0))
		weft__ct_write(t, v->ctl, 0, &base, 4, 0);
	if (weft__ct_guards(t, v->b, INV_WORDS, v->b_want + CF_GUARD) == 0)
		for (uint32_t k = 0; k < CF_GUARD; k++) {
			v->b_want[k] = weft__ct_guard_word(k);
			v->b_want[CF_GUARD + INV_WORDS + k] =
				weft__ct_guard_word(CF_GUARD + k);
		}
	if (!t->why[0])
		return 0;
	weft__ct_end(t);
	return -1;
}

static void inv_before(weft__ct *t, inv *v)
{
	weft__ct_stats(t, &v->before);
	memset(&t->err, 0, sizeof t->err);
}

/* "write()" from the text of the call "vt->write(dev, ...)". */
static void call_name(const char *text, char *name, size_t size)
{
	const char *paren = strchr(text, '('), *start = paren;

	while (start && start > text &&
	       (start[-1] == '_' || (start[-1] >= 'a' && start[-1] <= 'z')))
		start--;
	weft__ct_fmt(name, size, "%.*s()", paren ? (int)(paren - start) : 0,
		     start ? start : "");
}

/* The call just made was refused, said why, and changed nothing. */
static void inv_after(weft__ct *t, inv *v, weft_status st, const char *text)
{
	uint32_t b_now[64 + 2 * CF_GUARD];
	unsigned char c_now[512];
	weft_stats after;
	char call[32];

	call_name(text, call, sizeof call);
	weft__ct_expect(t, st != WEFT_OK, "%s returned WEFT_OK", call);
	weft__ct_expect(t, t->err.msg[0] != '\0',
			"%s returned %s without a message", call,
			weft_status_str(st));
	weft__ct_stats(t, &after);
	weft__ct_counters_moved(t, &v->before, &after, call);
	if (weft__ct_read(t, b_now, v->b, 0, INV_BYTES, 0) == 0)
		weft__ct_expect(t, memcmp(b_now, v->b_want, INV_BYTES) == 0,
				"%s changed a buffer's contents", call);
	if (weft__ct_read(t, c_now, v->c, 0, sizeof c_now, 0) == 0)
		weft__ct_expect(t, memcmp(c_now, v->c_want, sizeof c_now) == 0,
				"%s changed a buffer's contents", call);
	weft__ct_end(t);
}

/* Run CALL as the test DESC (a format and its arguments). */
#define REFUSED(CALL, ...)                      \
	do {                                    \
		weft__ct_begin(t, __VA_ARGS__); \
		inv_before(t, v);               \
		inv_after(t, v, (CALL), #CALL); \
	} while (0)

static void inv_null_device(weft__ct *t, inv *v)
{
	const weft_backend *vt = t->vt;
	weft_program_desc pd = cf_program;
	weft_launch l = weft__ct_launch(CF_K_FILL, 4, v->p, v->b);
	weft_buf *out = NULL;
	weft_program *prog = NULL;
	char host[16] = { 0 };
	weft_stats s = { .struct_size = sizeof s };

	pd.name = "conform";
	REFUSED(vt->alloc(NULL, 16, &out, &t->err), "alloc with a NULL device");
	REFUSED(vt->write(NULL, v->b, 0, host, 16, 0, &t->err),
		"write with a NULL device");
	REFUSED(vt->read(NULL, host, v->b, 0, 16, 0, &t->err),
		"read with a NULL device");
	REFUSED(vt->copy(NULL, v->c, 0, v->b, 0, 16, 0, &t->err),
		"copy with a NULL device");
	REFUSED(vt->load_program(NULL, &pd, &prog, &t->err),
		"load_program with a NULL device");
	REFUSED(vt->step(NULL, t->prog, &l, 1, 1, &t->err),
		"step with a NULL device");
	REFUSED(vt->sync(NULL, &t->err), "sync with a NULL device");
	weft__ct_begin(t, "stats with a NULL device returns an error");
	weft__ct_expect(t, vt->stats(NULL, &s) != WEFT_OK,
			"stats(NULL) returned WEFT_OK");
	weft__ct_end(t);
	REFUSED(vt->alloc(t->dev, 16, NULL, &t->err),
		"alloc with a NULL out pointer");
	REFUSED(vt->load_program(t->dev, &pd, NULL, &t->err),
		"load_program with a NULL out pointer");
	REFUSED(vt->load_program(t->dev, NULL, &prog, &t->err),
		"load_program with a NULL descriptor");
	pd.n_kernels = 0;
	REFUSED(vt->load_program(t->dev, &pd, &prog, &t->err),
		"load_program with no kernels (n_kernels 0)");
	pd.n_kernels = 3;
	pd.kernels = NULL;
	REFUSED(vt->load_program(t->dev, &pd, &prog, &t->err),
		"load_program with 3 kernels announced and a NULL list");
}

static void inv_transfers(weft__ct *t, inv *v)
{
	const weft_backend *vt = t->vt;
	weft_device *dev = t->dev;
	char host[64] = { 0 };
	unsigned bad = 1u << 7 | 1u << 30;

	REFUSED(vt->write(dev, NULL, 0, host, 16, 0, &t->err),
		"write to a NULL buffer");
	REFUSED(vt->read(dev, host, NULL, 0, 16, 0, &t->err),
		"read from a NULL buffer");
	REFUSED(vt->copy(dev, NULL, 0, v->b, 0, 16, 0, &t->err),
		"copy to a NULL buffer");
	REFUSED(vt->copy(dev, v->c, 0, NULL, 0, 16, 0, &t->err),
		"copy from a NULL buffer");
	REFUSED(vt->write(dev, v->b, INV_BYTES - 10, host, 16, 0, &t->err),
		"write of 16 bytes at offset %u of a %u-byte buffer (past the "
		"end)",
		INV_BYTES - 10, INV_BYTES);
	REFUSED(vt->write(dev, v->b, INV_BYTES + 1, host, 0, 0, &t->err),
		"write of 0 bytes at an offset past the end");
	REFUSED(vt->read(dev, host, v->b, INV_BYTES - 8, 9, 0, &t->err),
		"read of 9 bytes at offset %u of a %u-byte buffer (past the "
		"end)",
		INV_BYTES - 8, INV_BYTES);
	REFUSED(vt->copy(dev, v->c, 0, v->b, INV_BYTES - 4, 8, 0, &t->err),
		"copy whose source range ends past its buffer");
	REFUSED(vt->copy(dev, v->c, 510, v->b, 0, 8, 0, &t->err),
		"copy whose destination range ends past its buffer");
	REFUSED(vt->write(dev, v->b, SIZE_MAX, host, 2, 0, &t->err),
		"write at offset SIZE_MAX (offset + bytes overflows)");
	REFUSED(vt->write(dev, v->b, 8, host, SIZE_MAX, 0, &t->err),
		"write of SIZE_MAX bytes at offset 8 (offset + bytes "
		"overflows)");
	REFUSED(vt->read(dev, host, v->b, SIZE_MAX - 1, 4, 0, &t->err),
		"read at offset SIZE_MAX - 1 (offset + bytes overflows)");
	REFUSED(vt->copy(dev, v->c, 0, v->b, SIZE_MAX, 2, 0, &t->err),
		"copy from offset SIZE_MAX (offset + bytes overflows)");
	REFUSED(vt->write(dev, v->b, 0, host, 16, bad, &t->err),
		"write with unknown flag bits 0x%x", bad);
	REFUSED(vt->read(dev, host, v->b, 0, 16, bad | WEFT_XFER_ASYNC,
			 &t->err),
		"read with unknown flag bits 0x%x", bad);
	REFUSED(vt->copy(dev, v->c, 0, v->b, 0, 16, bad, &t->err),
		"copy with unknown flag bits 0x%x", bad);
	REFUSED(vt->write(dev, v->b, 0, NULL, 16, 0, &t->err),
		"write of 16 bytes from a NULL host pointer");
	REFUSED(vt->read(dev, NULL, v->b, 0, 16, 0, &t->err),
		"read of 16 bytes into a NULL host pointer");
}

/* A valid first launch (it would change b) and a bad second one: the
 * whole list is refused and nothing runs. */
static void inv_launch(weft__ct *t, inv *v, weft_launch bad, const char *what)
{
	weft_launch l[2];

	l[0] = weft__ct_launch(CF_K_FILL, INV_WORDS, v->p, v->b);
	l[1] = bad;
	REFUSED(t->vt->step(t->dev, t->prog, l, 2, 3, &t->err),
		"step with %s (after a valid launch) runs nothing", what);
}

/* A backend may keep what it checked of a launch list for the next step()
 * with the same list: a list changed in place since must be checked
 * again. A valid list (on a buffer of its own) is stepped, then the same
 * array gets a launch on b and a bad one: refused, and b untouched. */
static void inv_changed_list(weft__ct *t, inv *v)
{
	weft_buf *x;
	weft_launch l[2];
	weft_status st;

	weft__ct_begin(t, "setup: a valid list stepped before it changes");
	x = weft__ct_guarded(t, INV_WORDS, 0x22222222u);
	if (!x) {
		weft__ct_end(t);
		return;
	}
	l[0] = l[1] = weft__ct_launch(CF_K_FILL, INV_WORDS, v->p, x);
	st = t->vt->step(t->dev, t->prog, l, 2, 1, &t->err);
	if (st == WEFT_OK)
		st = t->vt->sync(t->dev, &t->err);
	weft__ct_expect(t, st == WEFT_OK, "the valid list: %s", t->err.msg);
	weft__ct_end(t);
	l[0] = weft__ct_launch(CF_K_FILL, INV_WORDS, v->p, v->b);
	l[1].kernel = CF_N_KERNELS;
	REFUSED(t->vt->step(t->dev, t->prog, l, 2, 1, &t->err),
		"step of the same list changed in place (a kernel index out "
		"of range after a valid launch) runs nothing");
	REFUSED(t->vt->step(t->dev, t->prog, NULL, 2, 1, &t->err),
		"step with 2 launches announced and a NULL list, right after "
		"a list of 2 (no buffer allocated or freed since)");
	weft__ct_free(t, x);
}

static void inv_launches(weft__ct *t, inv *v)
{
	weft_launch ok = weft__ct_launch(CF_K_FILL, INV_WORDS, v->p, v->b);
	weft_launch l;

	l = ok;
	l.kernel = CF_N_KERNELS;
	inv_launch(t, v, l, "a kernel index out of range (7 of 7 kernels)");
	l.kernel = UINT32_MAX;
	inv_launch(t, v, l, "kernel index UINT32_MAX");
	l = ok;
	l.n_bufs = WEFT_KERNEL_MAX_BUFS + 1;
	for (int k = 2; k < WEFT_KERNEL_MAX_BUFS; k++)
		l.bufs[k] = v->c;
	inv_launch(t, v, l, "n_bufs 13 (more than WEFT_KERNEL_MAX_BUFS)");
	l = ok;
	l.n_bufs = 3;
	l.bufs[1] = NULL;
	l.bufs[2] = v->c;
	inv_launch(t, v, l, "a NULL buffer among the bound ones");
	l = ok;
	l.extent_buf = v->ctl;
	l.extent_offset = 2;
	inv_launch(t, v, l, "extent_offset 2 (not a multiple of 4)");
	l.extent_offset = 16;
	inv_launch(t, v, l, "extent_offset 16 of a 16-byte extent buffer");
	l.extent_offset = 0xFFFFFFFCu;
	inv_launch(t, v, l, "extent_offset 0xfffffffc (outside the buffer)");
	inv_changed_list(t, v);
	REFUSED(t->vt->step(t->dev, NULL, &ok, 1, 1, &t->err),
		"step with a NULL program");
	REFUSED(t->vt->step(t->dev, t->prog, NULL, 2, 1, &t->err),
		"step with 2 launches announced and a NULL list");
}

void weft__ct_group_invalid(weft__ct *t)
{
	inv *v = calloc(1, sizeof *v);

	if (!v || inv_setup(t, v) == 0) {
		inv_null_device(t, v);
		inv_transfers(t, v);
		inv_launches(t, v);
	}
	if (v) {
		weft__ct_free(t, v->b);
		weft__ct_free(t, v->c);
		weft__ct_free(t, v->p);
		weft__ct_free(t, v->ctl);
	}
	free(v);
}

/* ---- oversize ------------------------------------------------------------ */

static void oversize_one(weft__ct *t, size_t bytes, const char *name)
{
	weft_stats a, b;
	weft_buf *buf = NULL;
	char digits[32];
	weft_status st;

	weft__ct_fmt(digits, sizeof digits, "%zu", bytes);
	weft__ct_begin(t,
		       "allocating %s bytes fails with WEFT_E_NOMEM or "
		       "WEFT_E_INVALID, the message naming %s bytes",
		       name, digits);
	weft__ct_stats(t, &a);
	memset(&t->err, 0, sizeof t->err);
	st = t->vt->alloc(t->dev, bytes, &buf, &t->err);
	weft__ct_expect(t, st == WEFT_E_NOMEM || st == WEFT_E_INVALID,
			"alloc returned %s", weft_status_str(st));
	weft__ct_expect(t, strstr(t->err.msg, digits) != NULL,
			"message \"%s\" does not contain %s", t->err.msg,
			digits);
	weft__ct_stats(t, &b);
	weft__ct_counters_moved(t, &a, &b, "the refused allocation");
	if (st == WEFT_OK)
		t->vt->free(t->dev, buf);
	weft__ct_end(t);
}

void weft__ct_group_oversize(weft__ct *t)
{
	const size_t mib = (size_t)1 << 20;
	unsigned char *h = NULL, *back = NULL;
	weft_buf *b;

	oversize_one(t, SIZE_MAX / 2, "SIZE_MAX/2");
	oversize_one(t, (size_t)1 << 50, "2^50");
	oversize_one(t, SIZE_MAX, "SIZE_MAX");

	weft__ct_begin(t, "the device still works afterwards (1 MiB round "
			  "trip)");
	h = weft__ct_xmalloc(t, mib);
	back = weft__ct_xmalloc(t, mib);
	b = h && back ? weft__ct_alloc(t, mib) : NULL;
	if (b) {
		weft__ct_pattern(h, mib, 11);
		if (!weft__ct_write(t, b, 0, h, mib, 0) &&
		    !weft__ct_read(t, back, b, 0, mib, 0))
			weft__ct_expect(t, memcmp(h, back, mib) == 0,
					"the bytes read differ from those "
					"written");
		weft__ct_free(t, b);
	}
	free(h);
	free(back);
	weft__ct_end(t);
}
