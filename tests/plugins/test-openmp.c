/*
 * tests/plugins/test-openmp.c - the OpenMP backend through its vtable:
 * transfers (round trips, ordering, bounds), the memory pool and its limits,
 * programs and step() (device-side extents, no syncs inside step, thread
 * counts), argument checking, the team a parallel region gets on a busy machine
 * and the counters.
 *
 * The plugin is the built weft-backend-openmp.so, found in
 * $WEFT_PLUGIN_PATH or else in $WEFT_BUILDDIR/plugins/openmp/.libs,
 * loaded (and at the end unloaded) by the core's loader
 * (tests/plugins/backend-drive.c); the kernels are written here in the
 * host dialect, as a model's are.
 */
#include "internal.h"

#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <weft/kernel_host.h>
#include <weft/kernel.h>

#include "backend-drive.h"
#include "tap.h"

/* ---- test kernels -------------------------------------------------------- */

/* x[i] += 1 */
WEFT_KERNEL(add_one)
{
	WEFT_BUF(weft_u32, x, 0);
	x[WEFT_GID] += 1;
}

/* c[1] += c[0]: a count computed on the device, read by a later launch. */
WEFT_KERNEL(bump_count)
{
	WEFT_BUF(weft_u32, c, 0);
	if (WEFT_GID == 0)
		c[1] += c[0];
}

/* out[0] = address of buffer 0 modulo 64 (host dialect only: buffers are
 * opaque handles, so only a kernel can see where they are). */
WEFT_KERNEL(align_of)
{
	WEFT_BUF(weft_u8, a, 0);
	WEFT_BUF(weft_u32, out, 1);
	out[0] = (weft_u32)((uintptr_t)a % 64);
}

/* out[i] = a Philox draw; sum[0] += its low byte (atomically). */
WEFT_KERNEL(mix)
{
	WEFT_BUF(weft_u32, out, 0);
	WEFT_BUF(weft_u32, sum, 1);
	weft_rand4 r = weft_philox(42, 0, WEFT_GID, 7, 0, 0);
	out[WEFT_GID] = r.v[0];
	weft_atomic_add_u32(&sum[0], r.v[1] & 0xff);
}

/* x[i + 1] = 1: one word past the extent (a kernel with a bug, for the
 * sanitizer test). */
WEFT_KERNEL(past_end)
{
	WEFT_BUF(weft_u32, x, 0);
	x[WEFT_GID + 1] = 1;
}

/* Records how the backend split the launch: log[0] counts the calls, then
 * (begin, end) pairs. */
static void chunk_log(const weft_kargs *ka, uint32_t begin, uint32_t end)
{
	uint32_t *log = ka->buf[0];
	uint32_t slot = __atomic_fetch_add(&log[0], 1, __ATOMIC_RELAXED);

	if (slot < 16) {
		log[1 + 2 * slot] = begin;
		log[2 + 2 * slot] = end;
	}
}

enum { K_ADD_ONE, K_BUMP, K_ALIGN, K_MIX, K_CHUNKS, K_PAST_END };

static const weft_kernel_desc test_kernels[] = {
	{ "add_one", add_one },	    { "bump_count", bump_count },
	{ "align_of", align_of },   { "mix", mix },
	{ "chunk_log", chunk_log }, { "past_end", past_end },
};

static const weft_program_desc test_program = {
	.struct_size = sizeof(weft_program_desc),
	.name = "openmp_test",
	.source = "",
	.kernels = test_kernels,
	.n_kernels = sizeof test_kernels / sizeof test_kernels[0],
};

/* ---- helpers (the rest: backend-drive.h) --------------------------------- */

static weft__plugin *load_plugin(weft_context *ctx)
{
	char path[4096];

	find_plugin("openmp", path, sizeof path);
	return load_backend(ctx, path, 0);
}

static weft_device *open_dev(int device, int threads)
{
	weft_device_config cfg = { .struct_size = sizeof cfg,
				   .device = device,
				   .threads = threads };

	return open_or_bail(&cfg);
}

static weft_program *load_test_program(weft_device *dev)
{
	return load_or_bail(dev, &test_program);
}

/* 1 when p[0..n) are all v. */
static int all_bytes(const uint8_t *p, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

/* ---- entry, probe, open -------------------------------------------------- */

static void test_entry(const weft__plugin *p)
{
	tap_ok(p->probe.available, "the loader's probe finds it available");
	is(vt->abi_major, WEFT_BACKEND_ABI_MAJOR, "entry: ABI major");
	is(vt->struct_size, sizeof(weft_backend), "entry: struct_size");
	tap_ok(vt->name && strcmp(vt->name, "openmp") == 0,
	       "entry: named openmp");
}

static void test_probe(void)
{
	weft_probe p;

	memset(&p, 0xff, sizeof p);
	p.struct_size = sizeof p;
	is(vt->probe(&p), WEFT_OK, "probe succeeds");
	tap_ok(p.available == 1 && p.score == 100,
	       "probe: available with score 100 (got %d, %d)", p.available,
	       p.score);
	tap_contains(p.devices, "OpenMP thread", "probe describes the threads");
	is(vt->probe(NULL), WEFT_E_INVALID, "probe(NULL) is refused");
}

static void test_open(void)
{
	weft_device_config cfg = { .struct_size = sizeof cfg, .device = 3 };
	weft_device *dev = (weft_device *)&cfg;

	is(vt->open(&cfg, &dev, &err), WEFT_E_INVALID, "device 3 is refused");
	tap_contains(err.msg, "openmp: device 3 does not exist",
		     "the refusal names the device");
	tap_ok(dev == NULL, "no device handed out on failure");
	cfg.device = 0;
	cfg.threads = -2;
	is(vt->open(&cfg, &dev, &err), WEFT_E_INVALID,
	   "negative thread count is refused");
	cfg.threads = 0;
	cfg.struct_size = 0;
	is(vt->open(&cfg, &dev, &err), WEFT_E_INVALID,
	   "a config without struct_size is refused");
	is(vt->open(NULL, &dev, &err), WEFT_E_INVALID,
	   "a NULL config is refused");
	cfg.struct_size = sizeof cfg;
	is(vt->open(&cfg, NULL, &err), WEFT_E_INVALID,
	   "a NULL out pointer is refused");
	vt->close(open_dev(-1, 0)); /* the default device opens */
	vt->close(NULL);
}

/* ---- transfers ----------------------------------------------------------- */

enum { H2D_OFF = 13, D2D_OFF = 5, PAD = 3 };

/* Write a pattern into a zeroed buffer at an offset, read the whole buffer
 * back; copy it into another buffer at another offset and read that. */
static void round_trip(weft_device *dev, size_t n, unsigned flags,
		       uint64_t *calls, uint64_t *bytes)
{
	size_t na = n + H2D_OFF + PAD, nb = n + D2D_OFF + PAD;
	uint8_t *src = xcalloc(n, 1), *back = xcalloc(na, 1);
	uint8_t *zero = xcalloc(na, 1);
	weft_buf *a = alloc_or_bail(dev, na), *b = alloc_or_bail(dev, nb);
	const char *mode = flags ? "async" : "blocking";
	int ok;

	fill_pattern(src, n, (unsigned)n);
	put(dev, a, 0, zero, na);
	put(dev, b, 0, zero, nb);
	ok = vt->write(dev, a, H2D_OFF, src, n, flags, &err) == WEFT_OK &&
	     vt->read(dev, back, a, 0, na, flags, &err) == WEFT_OK &&
	     vt->sync(dev, &err) == WEFT_OK;
	tap_ok(ok && all_bytes(back, H2D_OFF, 0) &&
		       memcmp(back + H2D_OFF, src, n) == 0 &&
		       all_bytes(back + H2D_OFF + n, PAD, 0),
	       "%s host->device->host of %zu bytes at offset %d", mode, n,
	       H2D_OFF);
	memset(back, 0xee, na);
	ok = vt->copy(dev, b, D2D_OFF, a, H2D_OFF, n, flags, &err) == WEFT_OK &&
	     vt->read(dev, back, b, 0, nb, flags, &err) == WEFT_OK &&
	     vt->sync(dev, &err) == WEFT_OK;
	tap_ok(ok && all_bytes(back, D2D_OFF, 0) &&
		       memcmp(back + D2D_OFF, src, n) == 0 &&
		       all_bytes(back + D2D_OFF + n, PAD, 0),
	       "%s device->device of %zu bytes at offsets %d->%d", mode, n,
	       H2D_OFF, D2D_OFF);
	calls[WEFT_DIR_H2D] += 3, bytes[WEFT_DIR_H2D] += na + nb + n;
	calls[WEFT_DIR_D2H] += 2, bytes[WEFT_DIR_D2H] += na + nb;
	calls[WEFT_DIR_D2D] += 1, bytes[WEFT_DIR_D2D] += n;
	vt->free(dev, a);
	vt->free(dev, b);
	free(src), free(back), free(zero);
}

static void test_round_trips(weft_device *dev)
{
	static const size_t sizes[] = {
		0, 1, 3, 4095, 4097, (1u << 20) + 7, (2u << 20) + 1
	};
	uint64_t calls[WEFT_DIR_COUNT] = { 0 }, bytes[WEFT_DIR_COUNT] = { 0 };
	weft_stats s0 = stats_of(dev), s1;
	int counted = 1;

	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		round_trip(dev, sizes[i], 0, calls, bytes);
		round_trip(dev, sizes[i], WEFT_XFER_ASYNC, calls, bytes);
	}
	s1 = stats_of(dev);
	for (int d = 0; d < WEFT_DIR_COUNT; d++)
		counted &= s1.xfer_count[d] - s0.xfer_count[d] == calls[d] &&
			   s1.xfer_bytes[d] - s0.xfer_bytes[d] == bytes[d];
	tap_ok(counted, "transfers and bytes counted per direction");
	tap_ok(s1.time_ns[WEFT_PHASE_TRANSFER] >
		       s0.time_ns[WEFT_PHASE_TRANSFER],
	       "transfer time is counted");
}

/* Asynchronous transfers to overlapping ranges land in issue order. */
static void test_async_order(weft_device *dev)
{
	enum { N = 256 };
	uint8_t want[N] = { 0 }, got[N], ones[N], twos[N], fours[N];
	weft_buf *b = alloc_or_bail(dev, N), *c = alloc_or_bail(dev, N);
	unsigned A = WEFT_XFER_ASYNC;
	weft_stats s0 = stats_of(dev);
	int ok;

	memset(ones, 1, N), memset(twos, 2, N), memset(fours, 4, N);
	put(dev, b, 0, want, N);
	put(dev, c, 0, fours, N);
	ok = vt->write(dev, b, 0, ones, 100, A, &err) == WEFT_OK &&
	     vt->write(dev, b, 50, twos, 100, A, &err) == WEFT_OK &&
	     vt->write(dev, b, 75, (const uint8_t[5]){ 3, 3, 3, 3, 3 }, 5, A,
		       &err) == WEFT_OK &&
	     vt->copy(dev, b, 140, c, 0, 20, A, &err) == WEFT_OK &&
	     vt->sync(dev, &err) == WEFT_OK &&
	     vt->read(dev, got, b, 0, N, A, &err) == WEFT_OK &&
	     vt->sync(dev, &err) == WEFT_OK;
	memset(want, 1, 100), memset(want + 50, 2, 100);
	memset(want + 75, 3, 5), memset(want + 140, 4, 20);
	tap_ok(ok && memcmp(got, want, N) == 0,
	       "overlapping async transfers are observed in issue order");
	is(stats_of(dev).syncs - s0.syncs, 2, "each sync is counted");
	vt->free(dev, b);
	vt->free(dev, c);
}

/* Overlapping copies within one buffer behave like memmove(). */
static void test_overlap_copy(weft_device *dev)
{
	size_t n = (2u << 20) + 100, len = 2u << 20;
	uint8_t *host = xcalloc(n, 1), *got = xcalloc(n, 1);
	weft_buf *b = alloc_or_bail(dev, n);

	fill_pattern(host, n, 9);
	put(dev, b, 0, host, n);
	is(vt->copy(dev, b, 37, b, 0, len, 0, &err), WEFT_OK,
	   "overlapping copy within one buffer, upwards");
	memmove(host + 37, host, len);
	get(dev, got, b, 0, n);
	tap_ok(memcmp(got, host, n) == 0, "  ...acts as memmove");
	is(vt->copy(dev, b, 0, b, 41, len, 0, &err), WEFT_OK,
	   "overlapping copy within one buffer, downwards");
	memmove(host, host + 41, len);
	get(dev, got, b, 0, n);
	tap_ok(memcmp(got, host, n) == 0, "  ...acts as memmove");
	vt->free(dev, b);
	free(host), free(got);
}

static void expect_invalid(weft_status st, const char *what, const char *needle)
{
	is(st, WEFT_E_INVALID, what);
	if (needle)
		tap_contains(err.msg, needle, "  ...and the message says so");
}

static void test_bounds(weft_device *dev)
{
	uint8_t host[128], got[100];
	weft_buf *b = alloc_or_bail(dev, 100), *c = alloc_or_bail(dev, 10);
	weft_stats s0, s1;

	fill_pattern(host, 100, 1);
	put(dev, b, 0, host, 100);
	s0 = stats_of(dev);
	expect_invalid(vt->write(dev, b, 100, host, 1, 0, &err),
		       "write 1 byte at the end is refused",
		       "write of 1 bytes at offset 100 is outside the "
		       "destination buffer of 100 bytes");
	expect_invalid(vt->write(dev, b, 0, host, 101, 0, &err),
		       "write larger than the buffer is refused", NULL);
	expect_invalid(vt->write(dev, b, SIZE_MAX, host, 2, 0, &err),
		       "write at an offset that overflows is refused", NULL);
	expect_invalid(vt->read(dev, got, b, 95, 10, WEFT_XFER_ASYNC, &err),
		       "read past the end is refused", "offset 95");
	expect_invalid(vt->copy(dev, c, 0, b, 95, 10, 0, &err),
		       "copy from past the source's end is refused", "source");
	expect_invalid(vt->copy(dev, c, 1, b, 0, 10, 0, &err),
		       "copy past the destination's end is refused",
		       "destination buffer of 10 bytes");
	expect_invalid(vt->write(dev, b, 0, NULL, 4, 0, &err),
		       "NULL host source is refused", "NULL");
	expect_invalid(vt->read(dev, got, NULL, 0, 4, 0, &err),
		       "NULL buffer is refused", NULL);
	expect_invalid(vt->write(dev, b, 0, host, 4, 0x80, &err),
		       "unknown flags are refused", "0x80");
	expect_invalid(vt->write(NULL, b, 0, host, 4, 0, &err),
		       "NULL device is refused", NULL);
	s1 = stats_of(dev);
	tap_ok(memcmp(s1.xfer_count, s0.xfer_count, sizeof s0.xfer_count) == 0,
	       "refused transfers are not counted");
	is(vt->write(dev, b, 100, NULL, 0, 0, &err), WEFT_OK,
	   "0 bytes at the end, from NULL, is valid");
	get(dev, got, b, 0, 100);
	tap_ok(memcmp(got, host, 100) == 0,
	       "refused transfers left the buffer unchanged");
	vt->free(dev, b);
	vt->free(dev, c);
}

/* ---- memory -------------------------------------------------------------- */

static void test_pool(void)
{
	weft_device *dev = open_dev(0, 1);
	weft_buf *a = alloc_or_bail(dev, 1000), *b, *c;
	weft_stats s;

	vt->free(dev, a);
	b = alloc_or_bail(dev, 1000);
	s = stats_of(dev);
	tap_ok(s.allocs == 1 && s.pool_reuses == 1 && s.frees == 1,
	       "alloc/free/alloc: one system allocation, one reuse (allocs "
	       "%llu, reuses %llu)",
	       (unsigned long long)s.allocs, (unsigned long long)s.pool_reuses);
	vt->free(dev, b);
	b = alloc_or_bail(dev, 1010); /* same 1024-byte class */
	c = alloc_or_bail(dev, 5000); /* another class */
	s = stats_of(dev);
	tap_ok(s.allocs == 2 && s.pool_reuses == 2,
	       "a request of the same class reuses, another class allocates");
	is(s.bytes_in_use, 6010, "bytes in use");
	vt->free(dev, c);
	vt->free(dev, b);
	vt->free(dev, b); /* ignored: already freed */
	s = stats_of(dev);
	is(s.bytes_in_use, 0, "nothing in use after freeing");
	is(s.bytes_peak, 6010, "peak bytes");
	is(s.frees, 4, "frees counted, a double free ignored");
	vt->close(dev);
}

static void test_alloc_limits(weft_device *dev)
{
	weft_buf *z1 = NULL, *z2 = NULL, *big = (weft_buf *)&err;
	uint64_t frees = stats_of(dev).frees;

	tap_ok(vt->alloc(dev, 0, &z1, &err) == WEFT_OK &&
		       vt->alloc(dev, 0, &z2, &err) == WEFT_OK && z1 && z2 &&
		       z1 != z2,
	       "0-byte allocations are valid, distinct handles");
	is(vt->write(dev, z1, 0, NULL, 0, 0, &err), WEFT_OK,
	   "0-byte write to a 0-byte buffer");
	expect_invalid(vt->write(dev, z1, 0, &err, 1, 0, &err),
		       "1-byte write to a 0-byte buffer is refused", NULL);
	is(vt->alloc(dev, (size_t)1 << 62, &big, &err), WEFT_E_NOMEM,
	   "an allocation larger than the host is refused");
	tap_contains(err.msg,
		     "cannot allocate 4611686018427387904 bytes on device 0",
		     "the message names the bytes and the device");
	tap_ok(big == NULL, "no buffer handed out on failure");
	expect_invalid(vt->alloc(dev, 8, NULL, &err), "alloc into NULL", NULL);
	expect_invalid(vt->alloc(NULL, 8, &big, &err), "alloc on NULL device",
		       NULL);
	vt->free(dev, NULL);
	vt->free(NULL, z1);
	is(stats_of(dev).frees, frees, "free(NULL) does nothing");
	vt->free(dev, z1);
	vt->free(dev, z2);
}

/* Buffers are 64-byte aligned, whatever their size class. */
static void test_alignment(weft_device *dev, weft_program *prog)
{
	static const size_t sizes[] = { 0, 1, 100, 4097, 70000 };
	weft_buf *out = alloc_or_bail(dev, 4);
	int aligned = 1;

	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		weft_buf *b = alloc_or_bail(dev, sizes[i]);
		weft_launch l = { .kernel = K_ALIGN,
				  .n_bufs = 2,
				  .bufs = { b, out },
				  .extent = 1 };
		uint32_t mod = 99;

		if (vt->step(dev, prog, &l, 1, 1, &err) != WEFT_OK)
			tap_diag("step: %s", err.msg);
		get(dev, &mod, out, 0, 4);
		if (mod != 0)
			tap_diag("buffer of %zu bytes: address %% 64 = %u",
				 sizes[i], (unsigned)mod);
		aligned &= mod == 0;
		vt->free(dev, b);
	}
	tap_ok(aligned, "buffers are 64-byte aligned");
	vt->free(dev, out);
}

/* ---- programs and step --------------------------------------------------- */

static void test_load_errors(weft_device *dev)
{
	weft_kernel_desc kd[] = { { "add_one", add_one }, { "nobuild", NULL } };
	weft_program_desc d = { .struct_size = sizeof d,
				.name = "broken",
				.kernels = kd,
				.n_kernels = 2 };
	weft_program *prog = (weft_program *)&d;

	expect_invalid(vt->load_program(dev, &d, &prog, &err),
		       "a kernel without host build is refused",
		       "openmp: kernel 'nobuild' of program 'broken' has no "
		       "host build");
	tap_ok(prog == NULL, "no program handed out on failure");
	d.n_kernels = 0;
	expect_invalid(vt->load_program(dev, &d, &prog, &err),
		       "a program without kernels is refused", "no kernels");
	expect_invalid(vt->load_program(dev, NULL, &prog, &err),
		       "a NULL program descriptor is refused", NULL);
}

static void test_step_add(weft_device *dev, weft_program *prog)
{
	const uint32_t n = 1000003;
	uint32_t *x = xcalloc(n, 4);
	weft_buf *b = alloc_or_bail(dev, (size_t)n * 4);
	weft_launch l = {
		.kernel = K_ADD_ONE, .n_bufs = 1, .bufs = { b }, .extent = n
	};
	weft_launch twice[2] = { l, l };
	weft_stats s0, s1;
	int ok = 1;

	for (uint32_t i = 0; i < n; i++)
		x[i] = i;
	put(dev, b, 0, x, (size_t)n * 4);
	s0 = stats_of(dev);
	is(vt->step(dev, prog, &l, 1, 5, &err), WEFT_OK, "step(5)");
	is(vt->step(dev, prog, twice, 2, 3, &err), WEFT_OK,
	   "step(3) of two launches");
	s1 = stats_of(dev);
	is(s1.syncs - s0.syncs, 0, "no sync inside step()");
	is(s1.launches - s0.launches, 5 * 1 + 3 * 2,
	   "launches = n_steps * n_launches");
	is(s1.steps - s0.steps, 8, "steps counted");
	get(dev, x, b, 0, (size_t)n * 4);
	for (uint32_t i = 0; i < n && ok; i++)
		ok = x[i] == i + 11;
	tap_ok(ok, "every one of %u items got +11", (unsigned)n);
	is(vt->sync(dev, &err), WEFT_OK, "sync");
	is(stats_of(dev).syncs - s1.syncs, 1, "sync is counted");
	vt->free(dev, b);
	free(x);
}

/* Launch B reads its extent from a count that launch A of the same step
 * has just written: step s touches the first 10 * s items. */
static void test_device_extent(weft_device *dev, weft_program *prog)
{
	uint32_t cnt[2] = { 10, 0 }, marks[100] = { 0 }, want[100] = { 0 };
	weft_buf *c = alloc_or_bail(dev, sizeof cnt);
	weft_buf *m = alloc_or_bail(dev, sizeof marks);
	weft_launch l[2] = {
		{ .kernel = K_BUMP, .n_bufs = 1, .bufs = { c }, .extent = 1 },
		{ .kernel = K_ADD_ONE,
		  .n_bufs = 1,
		  .bufs = { m },
		  .extent = 100,
		  .extent_buf = c,
		  .extent_offset = 4 },
	};

	put(dev, c, 0, cnt, sizeof cnt);
	put(dev, m, 0, marks, sizeof marks);
	is(vt->step(dev, prog, l, 2, 3, &err), WEFT_OK,
	   "step with a device-side extent");
	get(dev, marks, m, 0, sizeof marks);
	for (int i = 0; i < 30; i++)
		want[i] = i < 10 ? 3 : i < 20 ? 2 : 1;
	tap_ok(memcmp(marks, want, sizeof want) == 0,
	       "the extent written by an earlier launch of the step is "
	       "honoured");
	/* A count above the capacity is cut to the capacity. */
	cnt[0] = 0, cnt[1] = 1000;
	put(dev, c, 0, cnt, sizeof cnt);
	l[1].extent = 50;
	is(vt->step(dev, prog, l, 2, 1, &err), WEFT_OK,
	   "step with a count above the capacity");
	get(dev, marks, m, 0, sizeof marks);
	for (int i = 0; i < 50; i++)
		want[i]++;
	tap_ok(memcmp(marks, want, sizeof want) == 0,
	       "the extent is min(capacity, count)");
	vt->free(dev, c);
	vt->free(dev, m);
}

/* A large device-side extent on a threaded device. */
static void test_device_extent_threads(weft_device *dev, weft_program *prog)
{
	const uint32_t cap = 100000, count = 5000;
	uint32_t *x = xcalloc(cap, 4);
	weft_buf *c = alloc_or_bail(dev, 64), *b = alloc_or_bail(dev, cap * 4);
	weft_launch l = { .kernel = K_ADD_ONE,
			  .n_bufs = 1,
			  .bufs = { b },
			  .extent = cap,
			  .extent_buf = c,
			  .extent_offset = 60 };
	uint32_t i = 0;

	put(dev, b, 0, x, cap * 4);
	put(dev, c, 60, &count, 4);
	is(vt->step(dev, prog, &l, 1, 2, &err), WEFT_OK,
	   "threaded step with a device-side extent");
	get(dev, x, b, 0, cap * 4);
	while (i < cap && x[i] == (i < count ? 2u : 0u))
		i++;
	tap_ok(i == cap, "exactly %u of %u items touched (first wrong: %u)",
	       (unsigned)count, (unsigned)cap, (unsigned)i);
	vt->free(dev, c);
	vt->free(dev, b);
	free(x);
}

/* Each variant makes the second launch of a list invalid: step() must
 * refuse the list without running the valid first launch. */
static void bad_launch(weft_device *dev, weft_program *prog, weft_buf *x,
		       weft_launch bad, const char *what, const char *needle)
{
	weft_launch l[2] = { { .kernel = K_ADD_ONE,
			       .n_bufs = 1,
			       .bufs = { x },
			       .extent = 16 },
			     bad };
	uint32_t got[16];
	uint64_t launches = stats_of(dev).launches;
	int unchanged = 1;

	expect_invalid(vt->step(dev, prog, l, 2, 4, &err), what, needle);
	get(dev, got, x, 0, sizeof got);
	for (int i = 0; i < 16; i++)
		unchanged &= got[i] == 0;
	tap_ok(unchanged && stats_of(dev).launches == launches,
	       "  ...and nothing ran");
}

static void test_invalid_launches(weft_device *dev, weft_program *prog)
{
	uint32_t zero[16] = { 0 };
	weft_buf *x = alloc_or_bail(dev, sizeof zero);
	weft_buf *e = alloc_or_bail(dev, 8);
	weft_launch ok = {
		.kernel = K_ADD_ONE, .n_bufs = 1, .bufs = { x }, .extent = 1
	};
	weft_launch l;

	put(dev, x, 0, zero, sizeof zero);
	l = ok, l.kernel = 99;
	bad_launch(dev, prog, x, l, "kernel index out of range",
		   "kernel index 99");
	l = ok, l.n_bufs = WEFT_KERNEL_MAX_BUFS + 1;
	bad_launch(dev, prog, x, l, "too many buffers", "13 buffers");
	l = ok, l.bufs[0] = NULL;
	bad_launch(dev, prog, x, l, "NULL buffer", "buffer 0 is NULL");
	l = ok, l.extent_buf = e, l.extent_offset = 2;
	bad_launch(dev, prog, x, l, "extent offset not a multiple of 4",
		   "not a multiple of 4");
	l = ok, l.extent_buf = e, l.extent_offset = 8;
	bad_launch(dev, prog, x, l, "extent offset past the buffer",
		   "extent buffer has 8 bytes");
	expect_invalid(vt->step(dev, NULL, &ok, 1, 1, &err),
		       "step without a program is refused", NULL);
	expect_invalid(vt->step(dev, prog, NULL, 1, 1, &err),
		       "step with a NULL launch list is refused", NULL);
	vt->free(dev, x);
	vt->free(dev, e);
}

/* Run chunk_log over n items; returns the number of calls and checks the
 * chunks tile [0, n) in order. */
static uint32_t chunks_of(weft_device *dev, weft_program *prog, uint32_t n,
			  int *tiled)
{
	uint32_t log[33] = { 0 };
	weft_buf *b = alloc_or_bail(dev, sizeof log);
	weft_launch l = {
		.kernel = K_CHUNKS, .n_bufs = 1, .bufs = { b }, .extent = n
	};
	uint32_t at = 0;

	put(dev, b, 0, log, sizeof log);
	if (vt->step(dev, prog, &l, 1, 1, &err) != WEFT_OK)
		tap_diag("step: %s", err.msg);
	get(dev, log, b, 0, sizeof log);
	/* Calls run concurrently: sort the chunks by their start. */
	for (uint32_t k = 0; k < log[0] && k < 16; k++)
		for (uint32_t j = 0; j < log[0] && j < 16; j++)
			if (log[1 + 2 * j] == at) {
				at = log[2 + 2 * j];
				break;
			}
	*tiled = at == n;
	vt->free(dev, b);
	return log[0];
}

static void test_thread_split(weft_device *d1, weft_program *p1,
			      weft_device *d2, weft_program *p2)
{
	uint32_t calls;
	int tiled;

	calls = chunks_of(d1, p1, 100000, &tiled);
	is(calls, 1, "threads=1: one chunk");
	tap_ok(tiled, "  ...covering every item");
	calls = chunks_of(d2, p2, 1000, &tiled);
	is(calls, 1, "threads=2, small extent: run inline");
	if (getenv("OMP_THREAD_LIMIT")) {
		tap_skip(2, "the OpenMP environment may limit threads");
		return;
	}
	calls = chunks_of(d2, p2, 100000, &tiled);
	is(calls, 2, "threads=2: two chunks");
	tap_ok(tiled, "  ...contiguous, covering every item once");
}

static void run_mix(weft_device *dev, weft_program *prog, uint32_t n,
		    uint32_t *out, uint32_t *sum)
{
	weft_buf *o = alloc_or_bail(dev, (size_t)n * 4);
	weft_buf *s = alloc_or_bail(dev, 4);
	weft_launch l = {
		.kernel = K_MIX, .n_bufs = 2, .bufs = { o, s }, .extent = n
	};

	*sum = 0;
	put(dev, s, 0, sum, 4);
	if (vt->step(dev, prog, &l, 1, 1, &err) != WEFT_OK)
		tap_diag("step: %s", err.msg);
	get(dev, out, o, 0, (size_t)n * 4);
	get(dev, sum, s, 0, 4);
	vt->free(dev, o);
	vt->free(dev, s);
}

static void test_thread_results(weft_device *d1, weft_program *p1,
				weft_device *d2, weft_program *p2)
{
	const uint32_t n = 300007;
	uint32_t *a = xcalloc(n, 4), *b = xcalloc(n, 4), sa, sb;

	run_mix(d1, p1, n, a, &sa);
	run_mix(d2, p2, n, b, &sb);
	tap_ok(memcmp(a, b, (size_t)n * 4) == 0 && a[0] != a[1],
	       "threads=1 and threads=2 give identical items");
	tap_ok(sa == sb && sa != 0, "  ...and identical atomic sums (%u, %u)",
	       (unsigned)sa, (unsigned)sb);
	free(a), free(b);
}

/* ---- the team on a shared machine ------------------------------------------
 */

/* Keep every CPU but one busy: children spinning until killed (or for
 * 30 s at most, should this test die first). */
static int busy_start(pid_t *pids, int most)
{
	cpu_set_t set;
	int cpus = 1, n = 0;

	if (sched_getaffinity(0, sizeof set, &set) == 0)
		cpus = CPU_COUNT(&set);
	for (; n < cpus - 1 && n < most; n++) {
		pids[n] = fork();
		if (pids[n] == 0) {
			alarm(30);
			for (volatile unsigned long x = 0;; x++)
				;
		}
		if (pids[n] < 0)
			break;
	}
	return n;
}

static void busy_stop(pid_t *pids, int n)
{
	for (int i = 0; i < n; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
}

/* Launches of 100000 items (chunk_log) until one runs on a single thread,
 * for 3 s at most; returns the threads of the last one. */
static uint32_t team_under_load(weft_device *dev, weft_program *prog)
{
	uint64_t until = weft__now_ns() + 3000000000u;
	uint32_t calls;
	int tiled;

	do
		calls = chunks_of(dev, prog, 100000, &tiled);
	while (calls > 1 && weft__now_ns() < until);
	return calls;
}

/* With every CPU but one kept busy by other processes, a device of 2
 * threads runs its launches on 1 (within a few tenths of a second); with
 * OMP_DYNAMIC=false in the environment when it was opened, on 2. */
static void test_team(void)
{
	weft_device *adapt, *fixed;
	weft_program *pa, *pf;
	pid_t pids[64];
	int n;

	if (getenv("OMP_THREAD_LIMIT")) {
		tap_skip(2, "the OpenMP environment may limit threads");
		return;
	}
	fixed = open_dev(0, 2); /* OMP_DYNAMIC=false, set by main() */
	unsetenv("OMP_DYNAMIC");
	adapt = open_dev(0, 2);
	setenv("OMP_DYNAMIC", "false", 1);
	pa = load_test_program(adapt);
	pf = load_test_program(fixed);
	n = busy_start(pids, 64);
	if (n == 0) {
		tap_skip(2, "one CPU: nothing to share");
	} else {
		int tiled;

		is(team_under_load(adapt, pa), 1,
		   "2 threads, every other CPU busy: launches run on 1");
		is(chunks_of(fixed, pf, 100000, &tiled), 2,
		   "  ...but on 2 when opened with OMP_DYNAMIC=false");
	}
	busy_stop(pids, n);
	vt->unload_program(adapt, pa);
	vt->unload_program(fixed, pf);
	vt->close(adapt);
	vt->close(fixed);
}

/* ---- sanitizer builds: guard regions
 * ----------------------------------------- */

/* AddressSanitizer's (sanitizer/asan_interface.h): NULL unless this is a
 * sanitizer build (make check-sanitize). */
int __asan_address_is_poisoned(void const volatile *addr) __attribute__((weak));

static unsigned char *host_of(weft_device *dev, weft_buf *b)
{
	weft_native n = { .struct_size = sizeof n };

	if (vt->native(dev, b, &n, &err) != WEFT_OK)
		tap_bail("native: %s", err.msg);
	return (unsigned char *)n.handle + n.offset;
}

/* A child runs past_end over a buffer of 1025 words: its last item writes
 * the word after the buffer, inside the pool block (5120 bytes). */
static int overrun_in_child(weft_device *dev, weft_program *prog)
{
	weft_buf *b = alloc_or_bail(dev, 1025 * 4);
	weft_launch l = {
		.kernel = K_PAST_END, .n_bufs = 1, .bufs = { b }, .extent = 1025
	};
	int status = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		/* ASan's report goes to stderr; TAP stays clean. */
		vt->step(dev, prog, &l, 1, 1, &err);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		tap_bail("fork for the overrun test failed");
	vt->free(dev, b);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* The bytes of a pool block past the request, and freed blocks, are
 * poisoned, so that AddressSanitizer reports a kernel writing there. */
static void test_guard_regions(weft_device *dev, weft_program *prog)
{
	weft_buf *b;
	unsigned char *p;

	if (!__asan_address_is_poisoned) {
		tap_skip(5, "not a sanitizer build (make check-sanitize)");
		return;
	}
	b = alloc_or_bail(dev, 4100);
	p = host_of(dev, b);
	tap_ok(!__asan_address_is_poisoned(p) &&
		       !__asan_address_is_poisoned(p + 4099),
	       "a 4100-byte buffer's bytes are addressable");
	tap_ok(__asan_address_is_poisoned(p + 4100) &&
		       __asan_address_is_poisoned(p + 5119),
	       "  ...the rest of its 5120-byte block is poisoned");
	vt->free(dev, b);
	tap_ok(__asan_address_is_poisoned(p), "  ...and all of it once freed");
	b = alloc_or_bail(dev, 4200);
	tap_ok(host_of(dev, b) == p && !__asan_address_is_poisoned(p + 4199) &&
		       __asan_address_is_poisoned(p + 4200),
	       "a request of the same class reuses it, poisoned past 4200");
	vt->free(dev, b);
	tap_ok(!overrun_in_child(dev, prog),
	       "a kernel writing one word past its buffer is reported (the "
	       "child stops)");
}

/* ---- counters ------------------------------------------------------------ */

static void test_stats(weft_device *dev)
{
	weft_stats full = stats_of(dev), part;

	memset(&part, 0xab, sizeof part);
	part.struct_size = offsetof(weft_stats, frees);
	is(vt->stats(dev, &part), WEFT_OK, "stats into an older layout");
	tap_ok(part.struct_size == offsetof(weft_stats, frees) &&
		       part.allocs == full.allocs &&
		       part.pool_reuses == full.pool_reuses &&
		       part.frees == 0xababababababababull,
	       "only the caller's struct_size is filled");
	is(vt->stats(NULL, &part), WEFT_E_INVALID,
	   "stats without a device is refused");
	is(vt->sync(NULL, &err), WEFT_E_INVALID,
	   "sync without a device is refused");
}

int main(void)
{
	weft_device *dev, *d1;
	weft_program *prog, *p1;
	weft_context *ctx;
	weft__plugin *plugin;

	/* The thread-count tests need the team fixed at the thread count
	 * (test_team opens its adaptive device without this). */
	setenv("OMP_DYNAMIC", "false", 1);
	if (weft_context_new(&ctx) != WEFT_OK)
		tap_bail("no context");
	plugin = load_plugin(ctx);
	test_entry(plugin);
	test_probe();
	test_open();
	dev = open_dev(0, 2);
	d1 = open_dev(-1, 1);
	test_round_trips(dev);
	test_async_order(dev);
	test_overlap_copy(dev);
	test_bounds(dev);
	test_pool();
	test_alloc_limits(dev);
	test_load_errors(dev);
	prog = load_test_program(dev);
	p1 = load_test_program(d1);
	test_alignment(dev, prog);
	test_step_add(dev, prog);
	test_device_extent(dev, prog);
	test_device_extent_threads(dev, prog);
	test_invalid_launches(dev, prog);
	test_thread_split(d1, p1, dev, prog);
	test_thread_results(d1, p1, dev, prog);
	test_team();
	test_guard_regions(dev, prog);
	test_stats(dev);
	/* Left loaded and allocated on purpose: close releases everything
	 * (valgrind checks). */
	alloc_or_bail(d1, 1234);
	vt->close(d1);
	vt->unload_program(dev, prog);
	vt->close(dev);
	weft__plugin_free(plugin); /* dlclose() after threads ran */
	weft_context_free(ctx);
	return tap_done();
}
