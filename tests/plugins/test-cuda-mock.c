/*
 * tests/plugins/test-cuda-mock.c - the CUDA backend's host logic, on a machine
 * without a GPU: the plugin's sources built against tests/plugins/cuda-mock.c
 * (a stand-in for the CUDA runtime that executes queued work late and in a
 * random order across streams, and aborts on misuse), loaded from
 * $WEFT_BUILDDIR/tests/plugins/cuda-mock/.libs/weft-backend-cuda.so
 * (tests/plugins/backend-drive.c).
 *
 * Checked: probe and open (devices, names, old devices), transfers (round
 * trips, issue order across the two streams, staging, memmove copies,
 * bounds), the pool and out-of-memory messages, programs (NVRTC compiles
 * for real; the mock runs the host builds of the same kernels), step()
 * with graph capture, replay and re-capture, device-side extents, plain
 * launches with WEFT_CUDA_GRAPHS=0, the kernel cache, fences, native()
 * (the device pointer), the overlap of copy-stream reads with later
 * launches (cross-stream waits only where a buffer needs one, seen through
 * the mock's hooks), step_replicas() (each replica's bytes those of the
 * replica run alone, graphs captured and replayed as for step(), the grid's
 * replica rows, more replicas than the 65535 rows), and SEIR end to end
 * giving byte for byte the OpenMP backend's daily.csv.
 *
 * What the mock cannot check is the GPU itself: the CUBIN's code, the real
 * runtime's semantics, timings. .ci/gpu-check.sh runs on a GPU.
 */
#include "internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend-drive.h"
#include "tap.h"

/* The mock's hooks (tests/plugins/cuda-mock.c), found in the plugin. Streams
 * are slots in creation order: the one device open has its compute stream in
 * slot 0 and its copy stream in slot 1. */
enum { COMPUTE = 0, COPY = 1 };
/* cudaErrorIllegalAddress (this file does not include the CUDA headers) */
enum { CUDA_ILLEGAL_ADDRESS = 700 };
static unsigned long (*mock_waits)(int waiter, int signaler);
static void (*mock_hold)(int slot, int on);
static int (*mock_settle)(int slot);
static void (*mock_fail_records)(int n, int e);
static void (*mock_fail_pinned)(int n);
static void (*mock_last_grid)(unsigned *g);

/* The test kernels, in the dialect: NVRTC compiles them; the mock runs
 * its host builds of the same names. */
static const char test_source[] = "WEFT_KERNEL(add_one)\n"
				  "{\n"
				  "  WEFT_BUF(weft_u32, x, 0);\n"
				  "  x[WEFT_GID] += 1;\n"
				  "}\n"
				  "WEFT_KERNEL(bump_count)\n"
				  "{\n"
				  "  WEFT_BUF(weft_u32, c, 0);\n"
				  "  if (WEFT_GID == 0)\n"
				  "    c[1] += c[0];\n"
				  "}\n";

enum { K_ADD_ONE, K_BUMP };

static const weft_kernel_desc test_kernels[] = { { "add_one", NULL },
						 { "bump_count", NULL } };

static const weft_program_desc test_program = {
	.struct_size = sizeof(weft_program_desc),
	.name = "cuda_test",
	.source = test_source,
	.source_len = sizeof test_source - 1,
	.kernels = test_kernels,
	.n_kernels = 2,
};

/* ---- helpers (the rest: backend-drive.h) --------------------------------- */

static const char *mock_dir(void)
{
	static char dir[4096];
	const char *b = getenv("WEFT_BUILDDIR");

	snprintf(dir, sizeof dir, "%s/tests/plugins/cuda-mock/.libs",
		 b ? b : ".");
	return dir;
}

static weft_device *open_cfg(const char *cache_dir)
{
	weft_device_config cfg = { .struct_size = sizeof cfg,
				   .device = -1,
				   .cache_dir = cache_dir };

	return open_or_bail(&cfg);
}

static weft_program *load_test_program(weft_device *dev)
{
	return load_or_bail(dev, &test_program);
}

/* ---- probe and open --------------------------------------------------------
 */

static void test_probe(void)
{
	weft_probe p = { .struct_size = sizeof p };

	is(vt->probe(&p), WEFT_OK, "probe succeeds");
	tap_ok(p.available && p.score == 900, "available, score 900");
	tap_contains(p.devices, "0: Mock GPU 0 (sm_90, 0 GiB)",
		     "devices: index, name, architecture, memory");
	setenv("WEFT_MOCK_CUDA_DEVICES", "0", 1);
	vt->probe(&p);
	tap_ok(!p.available && strcmp(p.reason, "no CUDA device") == 0,
	       "no device: 'no CUDA device'");
	setenv("WEFT_MOCK_CUDA_DEVICES", "-1", 1);
	vt->probe(&p);
	tap_ok(!p.available && strstr(p.reason, "initialization error") &&
		       strstr(p.reason, "fork()"),
	       "an initialisation error suggests a fork: %s", p.reason);
	setenv("WEFT_MOCK_CUDA_DEVICES", "1", 1);
	setenv("WEFT_MOCK_CUDA_CC", "61", 1);
	vt->probe(&p);
	tap_ok(!p.available && strstr(p.reason, "compute capability 7.") &&
		       strstr(p.devices, "sm_61, 0 GiB, too old"),
	       "an sm_61 device is seen and refused: %s", p.reason);
	unsetenv("WEFT_MOCK_CUDA_CC");
}

static void expect_open_fails(weft_device_config *cfg, weft_status want,
			      const char *what, const char *needle)
{
	weft_device *dev = (weft_device *)cfg;

	is(vt->open(cfg, &dev, &err), want, what);
	tap_contains(err.msg, needle, "  ...and says so");
	tap_ok(dev == NULL, "  ...leaving no device");
}

/* The minimum named (sm_70, or sm_75 when built with CUDA 13, whose NVRTC
 * dropped sm_70 and sm_72) opens; below it, with CUDA 13, sm_72 does not. */
static void test_open_min_cc(weft_device_config *cfg)
{
	const char *at = strstr(err.msg, "needs sm_");
	weft_device *dev = NULL;
	char cc[16];
	int min = at ? atoi(at + 9) : 0, opened;

	tap_ok(min == 70 || min == 75,
	       "the minimum named is sm_70 or sm_75 "
	       "(sm_%d)",
	       min);
	snprintf(cc, sizeof cc, "%d", min);
	setenv("WEFT_MOCK_CUDA_CC", cc, 1);
	opened = vt->open(cfg, &dev, &err) == WEFT_OK;
	tap_ok(opened, "  ...an sm_%d device opens%s%s", min,
	       opened ? "" : ": ", opened ? "" : err.msg);
	if (dev)
		vt->close(dev);
	if (min == 75) {
		setenv("WEFT_MOCK_CUDA_CC", "72", 1);
		expect_open_fails(cfg, WEFT_E_UNAVAILABLE,
				  "an sm_72 device (CUDA 13)",
				  "is sm_72; weft's CUDA backend needs sm_75");
	} else {
		tap_skip(3, "sm_72 is supported by this build's toolkit");
	}
}

static void test_open(void)
{
	weft_device_config cfg = { .struct_size = sizeof cfg, .device = 3 };

	expect_open_fails(&cfg, WEFT_E_INVALID, "device 3 is refused",
			  "cuda: device 3 does not exist (1 CUDA device");
	cfg.device = -1;
	cfg.device_match = "h100";
	expect_open_fails(&cfg, WEFT_E_INVALID, "a name matching nothing",
			  "no device named like 'h100' (devices: 0: Mock");
	cfg.device_match = NULL;
	cfg.platform = "1";
	expect_open_fails(&cfg, WEFT_E_INVALID, "a platform is refused",
			  "the CUDA backend has no platforms");
	cfg.platform = NULL;
	setenv("WEFT_MOCK_CUDA_CC", "61", 1);
	expect_open_fails(&cfg, WEFT_E_UNAVAILABLE, "an sm_61 device",
			  "device 0 (Mock GPU 0) is sm_61; weft's CUDA "
			  "backend needs sm_7");
	test_open_min_cc(&cfg);
	unsetenv("WEFT_MOCK_CUDA_CC");
	cfg.device_match = "MOCK gpu";
	{
		weft_device *dev = NULL;

		is(vt->open(&cfg, &dev, &err), WEFT_OK,
		   "a device chosen by name, ignoring case");
		vt->close(dev);
	}
	vt->close(NULL);
}

/* ---- transfers -------------------------------------------------------------
 */

static void round_trip(weft_device *dev, size_t n, unsigned flags)
{
	size_t na = n + 13 + 3;
	uint8_t *src = xcalloc(n, 1), *back = xcalloc(na, 1);
	uint8_t *zero = xcalloc(na, 1), *want = xcalloc(na, 1);
	weft_buf *a = alloc_or_bail(dev, na), *b = alloc_or_bail(dev, na);
	int ok;

	fill_pattern(src, n, (unsigned)n);
	memcpy(want + 13, src, n);
	put(dev, a, 0, zero, na);
	put(dev, b, 0, zero, na);
	ok = vt->write(dev, a, 13, src, n, flags, &err) == WEFT_OK &&
	     vt->copy(dev, b, 0, a, 0, na, flags, &err) == WEFT_OK &&
	     vt->read(dev, back, b, 0, na, flags, &err) == WEFT_OK &&
	     vt->sync(dev, &err) == WEFT_OK;
	tap_ok(ok && memcmp(back, want, na) == 0,
	       "%s write, copy, read of %zu bytes",
	       flags ? "async" : "blocking", n);
	vt->free(dev, a);
	vt->free(dev, b);
	free(src), free(back), free(zero), free(want);
}

static void test_round_trips(weft_device *dev)
{
	static const size_t sizes[] = {
		0, 1, 3, 4095, (1u << 20) + 7, (3u << 20) + 1
	};
	weft_stats s0 = stats_of(dev), s1;

	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		round_trip(dev, sizes[i], 0);
		round_trip(dev, sizes[i], WEFT_XFER_ASYNC);
	}
	s1 = stats_of(dev);
	is(s1.xfer_count[WEFT_DIR_H2D] - s0.xfer_count[WEFT_DIR_H2D], 36,
	   "host->device transfers counted, 0 bytes included");
	is(s1.xfer_count[WEFT_DIR_D2D] - s0.xfer_count[WEFT_DIR_D2D], 12,
	   "device->device transfers counted");
	is(s1.syncs - s0.syncs, 12, "syncs count sync() calls only");
	/* 2 zero-fills per round trip, and the blocking round trips'
	 * write, copy and read (not the 0-byte write) */
	is(s1.xfer_waits - s0.xfer_waits, 12 * 2 + 6 * 3 - 1,
	   "blocking transfers wait for themselves (xfer_waits)");
}

/* Overlapping asynchronous writes, a copy and a read, issued on the copy
 * stream between launches on the compute stream, land in issue order;
 * repeated, since the mock interleaves the streams at random. */
static void test_issue_order(weft_device *dev, weft_program *prog)
{
	enum { N = 256 };
	uint32_t zero[N] = { 0 }, got[N], want[N], ones[N], c[2] = { 0, 0 };
	weft_buf *b = alloc_or_bail(dev, sizeof zero);
	weft_buf *cb = alloc_or_bail(dev, sizeof c);
	weft_launch inc = {
		.kernel = K_ADD_ONE, .n_bufs = 1, .bufs = { b }, .extent = N
	};
	unsigned A = WEFT_XFER_ASYNC;
	int ok = 1;

	for (int i = 0; i < N; i++)
		ones[i] = 100;
	for (int round = 0; round < 25 && ok; round++) {
		ok = vt->write(dev, b, 0, zero, sizeof zero, A, &err) == 0 &&
		     vt->step(dev, prog, &inc, 1, 2, &err) == 0 &&
		     vt->write(dev, b, 64, ones, 256, A, &err) == 0 &&
		     vt->step(dev, prog, &inc, 1, 1, &err) == 0 &&
		     vt->copy(dev, b, 512, b, 0, 128, A, &err) == 0 &&
		     vt->write(dev, cb, 0, c, sizeof c, A, &err) == 0 &&
		     vt->step(dev, prog, &inc, 1, 1, &err) == 0 &&
		     vt->read(dev, got, b, 0, sizeof got, A, &err) == 0 &&
		     vt->step(dev, prog, &inc, 1, 5, &err) == 0 &&
		     vt->sync(dev, &err) == 0;
		for (int i = 0; i < N; i++)
			want[i] = 2 + 1 + 1;
		for (int i = 16; i < 80; i++)
			want[i] = 100 + 1 + 1;
		/* copied after one launch, then one more launch: what
		 * words 0..31 read at the end */
		for (int i = 128; i < 160; i++)
			want[i] = want[i - 128];
		ok &= memcmp(got, want, sizeof want) == 0;
	}
	tap_ok(ok, "writes, launches, copies and reads on two streams are "
		   "observed in issue order (25 random interleavings)");
	if (!ok)
		tap_diag("%s", err.msg);
	vt->free(dev, b);
	vt->free(dev, cb);
}

static void test_staging(weft_device *dev)
{
	uint8_t src[1000], got[1000], orig[1000];
	weft_buf *b = alloc_or_bail(dev, sizeof src);
	weft_stats s0, s1;

	fill_pattern(src, sizeof src, 7);
	memcpy(orig, src, sizeof src);
	vt->sync(dev, &err);
	s0 = stats_of(dev);
	vt->write(dev, b, 0, src, sizeof src, WEFT_XFER_ASYNC, &err);
	memset(src, 0, sizeof src); /* reused before sync */
	memset(got, 0xee, sizeof got);
	vt->read(dev, got, b, 0, sizeof got, WEFT_XFER_ASYNC, &err);
	tap_ok(got[0] == 0xee && got[999] == 0xee,
	       "an async read is delivered at sync(), not before");
	vt->sync(dev, &err);
	tap_ok(memcmp(got, orig, sizeof got) == 0,
	       "an async write copied the caller's bytes when issued");
	for (int i = 0; i < 10; i++) {
		vt->write(dev, b, 0, orig, sizeof orig, WEFT_XFER_ASYNC, &err);
		vt->read(dev, got, b, 0, sizeof got, WEFT_XFER_ASYNC, &err);
		vt->sync(dev, &err);
	}
	s1 = stats_of(dev);
	tap_ok(s1.staging_allocs - s0.staging_allocs <= 2 &&
		       s1.staging_allocs - s0.staging_allocs +
				       s1.staging_reuses - s0.staging_reuses ==
			       22,
	       "pinned staging blocks are reused (allocs %llu, reuses %llu)",
	       (unsigned long long)(s1.staging_allocs - s0.staging_allocs),
	       (unsigned long long)(s1.staging_reuses - s0.staging_reuses));
	vt->free(dev, b);
}

/* A staging block whose event could not be recorded still shows the
 * event of its previous transfer, complete: it must not be reused while
 * its own copy is queued. */
static void test_staging_unrecorded(weft_device *dev)
{
	/* Larger than any block staged before: no spare block fits. */
	enum { N = 12u << 20 };
	uint8_t *a = xcalloc(4, N), *b = a + N, *c = b + N, *got = c + N;
	weft_buf *x = alloc_or_bail(dev, N);
	weft_buf *y = alloc_or_bail(dev, N);
	weft_status st;
	int ok;

	fill_pattern(a, N, 1);
	fill_pattern(b, N, 2);
	fill_pattern(c, N, 3);
	ok = vt->write(dev, x, 0, a, N, WEFT_XFER_ASYNC, &err) == WEFT_OK &&
	     vt->sync(dev, &err) == WEFT_OK;
	mock_hold(COPY, 1);
	mock_fail_records(1, 0);
	st = vt->write(dev, x, 0, b, N, WEFT_XFER_ASYNC, &err);
	tap_ok(ok && st == WEFT_E_DEVICE,
	       "an async write whose event cannot be recorded fails (%s)",
	       err.msg);
	tap_ok(strstr(err.msg, "recording its event") != NULL,
	       "  ...saying so");
	ok = vt->write(dev, y, 0, c, N, WEFT_XFER_ASYNC, &err) == WEFT_OK;
	mock_hold(COPY, 0);
	ok = ok && vt->sync(dev, &err) == WEFT_OK;
	get(dev, got, x, 0, N);
	tap_ok(ok && memcmp(got, b, N) == 0,
	       "  ...and its staging block is not reused for the next write "
	       "while its copy is queued (%s)",
	       memcmp(got, c, N) == 0 ? "it was: x got y's bytes"
				      : "x holds its own bytes");
	get(dev, got, y, 0, N);
	tap_ok(memcmp(got, c, N) == 0, "  ...the next write lands");
	/* A kernel's fault shows at the next call, whatever it is. */
	mock_fail_records(1, CUDA_ILLEGAL_ADDRESS);
	st = vt->write(dev, x, 0, b, 16, WEFT_XFER_ASYNC, &err);
	ok = vt->sync(dev, &err) == WEFT_OK;
	tap_ok(st == WEFT_E_DEVICE &&
		       strstr(err.msg, "cudaErrorIllegalAddress") != NULL &&
		       strstr(err.msg, "a kernel launched earlier") != NULL,
	       "an illegal address reported by another call says that a "
	       "kernel launched earlier may be the cause (%s)",
	       err.msg);
	vt->free(dev, x);
	vt->free(dev, y);
	free(a);
}

/* Without pinned memory for staging, asynchronous transfers run blocking
 * from and into the caller's memory instead of failing. */
static void test_staging_no_pinned(weft_device *dev)
{
	enum { N = 20u << 20 }; /* larger than any block staged before */
	uint8_t *a = xcalloc(2, N), *got = a + N;
	weft_buf *x = alloc_or_bail(dev, N);
	weft_stats s0, s1;
	int ok;

	fill_pattern(a, N, 9);
	vt->sync(dev, &err);
	s0 = stats_of(dev);
	mock_fail_pinned(2);
	ok = vt->write(dev, x, 0, a, N, WEFT_XFER_ASYNC, &err) == WEFT_OK;
	memset(a, 0, N); /* the caller may reuse it at once */
	ok = ok &&
	     vt->read(dev, got, x, 0, N, WEFT_XFER_ASYNC, &err) == WEFT_OK;
	s1 = stats_of(dev);
	mock_fail_pinned(0);
	fill_pattern(a, N, 9);
	tap_ok(ok && memcmp(got, a, N) == 0,
	       "with no pinned memory to be had, an async write and read of "
	       "20 MiB work, blocking (%s)",
	       ok ? "read delivered at once" : err.msg);
	tap_ok(s1.staging_allocs == s0.staging_allocs &&
		       s1.xfer_waits == s0.xfer_waits + 2,
	       "  ...staging nothing, counted as 2 transfer waits (%llu)",
	       (unsigned long long)(s1.xfer_waits - s0.xfer_waits));
	vt->free(dev, x);
	free(a);
}

static void test_overlap_copy(weft_device *dev)
{
	size_t n = (1u << 20) + 100, len = 1u << 20;
	uint8_t *host = xcalloc(n, 1), *got = xcalloc(n, 1);
	weft_buf *b = alloc_or_bail(dev, n);

	fill_pattern(host, n, 9);
	put(dev, b, 0, host, n);
	is(vt->copy(dev, b, 37, b, 0, len, WEFT_XFER_ASYNC, &err), WEFT_OK,
	   "overlapping async copy upwards");
	is(vt->copy(dev, b, 0, b, 41, len, 0, &err), WEFT_OK,
	   "overlapping copy downwards");
	memmove(host + 37, host, len);
	memmove(host, host + 41, len);
	get(dev, got, b, 0, n);
	tap_ok(memcmp(got, host, n) == 0, "both act as memmove");
	vt->free(dev, b);
	free(host), free(got);
}

static void test_bounds(weft_device *dev)
{
	uint8_t host[100] = { 1 };
	weft_buf *b = alloc_or_bail(dev, 100);
	weft_stats s0 = stats_of(dev);

	is(vt->write(dev, b, 100, host, 1, 0, &err), WEFT_E_INVALID,
	   "a write past the end is refused");
	tap_contains(err.msg,
		     "cuda: write of 1 bytes at offset 100 is outside the "
		     "destination buffer of 100 bytes",
		     "  ...naming offset and sizes");
	is(vt->read(dev, host, b, SIZE_MAX, 2, 0, &err), WEFT_E_INVALID,
	   "an overflowing offset is refused");
	is(vt->copy(dev, b, 0, b, 0, 1, 0x10, &err), WEFT_E_INVALID,
	   "unknown flags are refused");
	is(vt->write(dev, b, 0, NULL, 1, 0, &err), WEFT_E_INVALID,
	   "a NULL host pointer is refused");
	tap_ok(memcmp(stats_of(dev).xfer_count, s0.xfer_count,
		      sizeof s0.xfer_count) == 0,
	       "refused transfers are not counted");
	vt->free(dev, b);
}

/* ---- memory ----------------------------------------------------------------
 */

static void test_memory(void)
{
	weft_device *dev = open_cfg(NULL);
	weft_buf *a = alloc_or_bail(dev, 1000), *b, *big = NULL;
	weft_stats s;

	vt->free(dev, a);
	b = alloc_or_bail(dev, 1010);
	s = stats_of(dev);
	tap_ok(s.allocs == 1 && s.pool_reuses == 1 && s.frees == 1,
	       "alloc/free/alloc of one class: one cudaMalloc, one reuse");
	vt->free(dev, b);
	vt->free(dev, b);
	is(stats_of(dev).frees, 2, "a double free is ignored");
	is(vt->alloc(dev, (size_t)1 << 62, &big, &err), WEFT_E_NOMEM,
	   "an impossible size is refused");
	tap_contains(err.msg,
		     "cuda: device 0 (Mock GPU 0): cannot allocate "
		     "4611686018427387904 bytes (",
		     "  ...naming device and bytes");
	is(vt->alloc(dev, (size_t)300 << 20, &big, &err), WEFT_E_NOMEM,
	   "more than the free device memory is refused");
	tap_contains(err.msg, "cannot allocate 314572800 bytes (",
		     "  ...with the free bytes");
	a = alloc_or_bail(dev, (size_t)120 << 20);
	vt->free(dev, a);
	tap_ok(vt->alloc(dev, (size_t)200 << 20, &big, &err) == WEFT_OK,
	       "pooled blocks are given back when an allocation needs the "
	       "room");
	vt->free(dev, big);
	vt->close(dev);
}

/* ---- programs and step -----------------------------------------------------
 */

static void test_load_errors(weft_device *dev)
{
	weft_kernel_desc kd[] = { { "add_one", NULL }, { "nope", NULL } };
	weft_program_desc d = test_program;
	weft_program *prog = (weft_program *)&d;

	d.kernels = kd;
	is(vt->load_program(dev, &d, &prog, &err), WEFT_E_INVALID,
	   "a kernel missing from the source is refused");
	tap_contains(err.msg, "program 'cuda_test' has no kernel 'nope'",
		     "  ...by name");
	tap_ok(prog == NULL, "  ...leaving no program");
	d = test_program;
	d.name = "typo";
	d.source = "WEFT_KERNEL(add_one) { oops; }\n";
	d.source_len = strlen(d.source);
	d.n_kernels = 1;
	is(vt->load_program(dev, &d, &prog, &err), WEFT_E_MODEL,
	   "a source that does not compile is WEFT_E_MODEL");
	tap_contains(err.msg,
		     "program 'typo' does not compile for device 0 (Mock GPU "
		     "0, sm_90)",
		     "  ...naming program and device");
	tap_contains(err.msg, "typo(1): error", "  ...quoting the log");
	d.source = NULL;
	is(vt->load_program(dev, &d, &prog, &err), WEFT_E_INVALID,
	   "a program without source is refused");
}

static void test_step_graphs(weft_device *dev, weft_program *prog)
{
	const uint32_t n = 100003;
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
	   "step(3) of another list");
	is(vt->step(dev, prog, twice, 2, 20, &err), WEFT_OK,
	   "step(20) of that list");
	s1 = stats_of(dev);
	is(s1.syncs - s0.syncs, 0, "no sync inside step()");
	is(s1.launches - s0.launches, 5 + 6 + 40,
	   "launches = n_steps * n_launches, replays included");
	is(s1.steps - s0.steps, 28, "steps counted");
	is(s1.graph_captures - s0.graph_captures, 3,
	   "captures: one per list, and the unrolled graph once");
	is(s1.graph_launches - s0.graph_launches, 5 + 3 + 20 / 8 + 20 % 8,
	   "graph launches: 8 steps per unrolled graph, 1 per other");
	get(dev, x, b, 0, (size_t)n * 4);
	for (uint32_t i = 0; i < n && ok; i++)
		ok = x[i] == i + 51;
	tap_ok(ok, "every item got +51");
	vt->free(dev, b);
	free(x);
}

/* A graph holds buffer addresses: another buffer must be captured
 * again, and the results land in it. */
static void test_recapture(weft_device *dev, weft_program *prog)
{
	uint32_t v[64] = { 0 }, a_got[64], b_got[64];
	weft_buf *a = alloc_or_bail(dev, sizeof v);
	weft_buf *b = alloc_or_bail(dev, sizeof v);
	weft_launch l = {
		.kernel = K_ADD_ONE, .n_bufs = 1, .bufs = { a }, .extent = 64
	};
	uint64_t caps = stats_of(dev).graph_captures;

	put(dev, a, 0, v, sizeof v);
	put(dev, b, 0, v, sizeof v);
	vt->step(dev, prog, &l, 1, 2, &err);
	vt->step(dev, prog, &l, 1, 1, &err);
	l.bufs[0] = b;
	vt->step(dev, prog, &l, 1, 1, &err);
	l.extent = 32;
	vt->step(dev, prog, &l, 1, 1, &err);
	get(dev, a_got, a, 0, sizeof v);
	get(dev, b_got, b, 0, sizeof v);
	tap_ok(a_got[0] == 3 && a_got[63] == 3 && b_got[0] == 2 &&
		       b_got[31] == 2 && b_got[32] == 1 && b_got[63] == 1,
	       "another buffer or extent is captured again and used");
	is(stats_of(dev).graph_captures - caps, 3,
	   "captured again only when the list changed");
	vt->free(dev, a);
	vt->free(dev, b);
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
	       "the count written by an earlier launch of the step is read "
	       "when the launch runs");
	cnt[0] = 0, cnt[1] = 1000;
	put(dev, c, 0, cnt, sizeof cnt);
	l[1].extent = 50;
	vt->step(dev, prog, l, 2, 1, &err);
	get(dev, marks, m, 0, sizeof marks);
	for (int i = 0; i < 50; i++)
		want[i]++;
	tap_ok(memcmp(marks, want, sizeof want) == 0,
	       "the extent is min(capacity, count)");
	vt->free(dev, c);
	vt->free(dev, m);
}

static void test_invalid_launch(weft_device *dev, weft_program *prog)
{
	uint32_t zero[16] = { 0 }, got[16];
	weft_buf *x = alloc_or_bail(dev, sizeof zero);
	weft_buf *e = alloc_or_bail(dev, 8);
	weft_launch l[2] = { { .kernel = K_ADD_ONE,
			       .n_bufs = 1,
			       .bufs = { x },
			       .extent = 16 },
			     { .kernel = K_ADD_ONE,
			       .n_bufs = 1,
			       .bufs = { x },
			       .extent = 16,
			       .extent_buf = e,
			       .extent_offset = 8 } };
	uint64_t launches = stats_of(dev).launches;

	put(dev, x, 0, zero, sizeof zero);
	is(vt->step(dev, prog, l, 2, 4, &err), WEFT_E_INVALID,
	   "a list with a bad second launch is refused");
	tap_contains(err.msg,
		     "launch 1 of program 'cuda_test' (kernel 'add_one'): "
		     "extent offset 8 leaves no 4-byte count",
		     "  ...naming launch, program and kernel");
	get(dev, got, x, 0, sizeof got);
	tap_ok(memcmp(got, zero, sizeof zero) == 0 &&
		       stats_of(dev).launches == launches,
	       "  ...and nothing ran");
	vt->free(dev, x);
	vt->free(dev, e);
}

/* ---- replicas (step_replicas, ABI 1.4) ---------------------------------- */

enum { REP_R = 5, REP_CAP = 100, REP_STEPS = 11 };
/* A replica's marks: REP_CAP words, rounded up to 64 bytes. */
#define REP_MARKS ((REP_CAP * 4 + 63) / 64 * 64)

/* test_device_extent's list: c holds a count increment (word 0) and the
 * count (word 1) that the second launch reads on the device. */
static void rep_list(weft_launch l[2], weft_buf *c, weft_buf *m)
{
	memset(l, 0, 2 * sizeof *l);
	l[0] = (weft_launch){
		.kernel = K_BUMP, .n_bufs = 1, .bufs = { c }, .extent = 1
	};
	l[1] = (weft_launch){ .kernel = K_ADD_ONE,
			      .n_bufs = 1,
			      .bufs = { m },
			      .extent = REP_CAP,
			      .extent_buf = c,
			      .extent_offset = 4 };
}

/* Replica r's count: 10 r, growing by 5 + 3 r a step (the last ones reach
 * the capacity). */
static void rep_counts(uint32_t r, uint32_t c[16])
{
	memset(c, 0, 64);
	c[0] = 5 + 3 * r;
	c[1] = 10 * r;
}

/* Replica r alone, through step(): its count part and marks into out. */
static void rep_alone(weft_device *dev, weft_program *prog, uint32_t r,
		      uint8_t *out)
{
	uint32_t c[16];
	uint8_t zero[REP_MARKS] = { 0 };
	weft_buf *bc = alloc_or_bail(dev, 64), *bm = alloc_or_bail(dev, 448);
	weft_launch l[2];

	rep_counts(r, c);
	put(dev, bc, 0, c, 64);
	put(dev, bm, 0, zero, REP_MARKS);
	rep_list(l, bc, bm);
	run(dev, prog, l, 2, REP_STEPS);
	get(dev, out, bc, 0, 64);
	get(dev, out + 64, bm, 0, REP_MARKS);
	vt->free(dev, bc);
	vt->free(dev, bm);
}

static void test_replicas(weft_device *dev, weft_program *prog)
{
	const size_t part = 64 + REP_MARKS;
	uint8_t *alone = xcalloc(REP_R, part), *got = xcalloc(REP_R, part);
	uint8_t zero[REP_R * REP_MARKS] = { 0 };
	uint32_t c[16 * REP_R];
	weft_buf *bc = alloc_or_bail(dev, 64 * REP_R);
	weft_buf *bm = alloc_or_bail(dev, REP_MARKS * REP_R);
	weft_replica_layout lay[2] = { { .stride = { 64 } },
				       { .stride = { REP_MARKS },
					 .extent_stride = 64 } };
	weft_launch l[2];
	unsigned grid[3];
	weft_stats s0, s1;

	for (uint32_t r = 0; r < REP_R; r++) {
		rep_counts(r, &c[16 * r]);
		rep_alone(dev, prog, r, alone + r * part);
	}
	put(dev, bc, 0, c, sizeof c);
	put(dev, bm, 0, zero, sizeof zero);
	rep_list(l, bc, bm);
	s0 = stats_of(dev);
	is(vt->step_replicas(dev, prog, l, lay, 2, REP_R, REP_STEPS, &err),
	   WEFT_OK, "step_replicas: 5 replicas, 11 steps");
	s1 = stats_of(dev);
	mock_last_grid(grid);
	tap_ok(grid[0] == 1 && grid[1] == REP_R && grid[2] == REP_R,
	       "  ...a row of blocks per replica (grid %u x %u, %u replicas)",
	       grid[0], grid[1], grid[2]);
	is(s1.launches - s0.launches, 2 * REP_STEPS,
	   "  ...one launch per list entry and step, whatever the replicas");
	is(s1.syncs - s0.syncs, 0, "  ...no synchronisation");
	is(s1.graph_captures - s0.graph_captures, 2,
	   "  ...captured as step() captures: one step, and 8 unrolled");
	is(s1.graph_launches - s0.graph_launches, 1 + 3,
	   "  ...and replayed as step() replays them");
	for (uint32_t r = 0; r < REP_R; r++) {
		get(dev, got + r * part, bc, 64 * r, 64);
		get(dev, got + r * part + 64, bm, REP_MARKS * r, REP_MARKS);
	}
	tap_ok(memcmp(got, alone, REP_R * part) == 0,
	       "  ...every replica's bytes are those of the replica run "
	       "alone");
	vt->step_replicas(dev, prog, l, lay, 2, REP_R, 1, &err);
	is(stats_of(dev).graph_captures - s1.graph_captures, 0,
	   "the same replicas again: the graph is replayed");
	vt->step_replicas(dev, prog, l, lay, 2, REP_R - 1, 1, &err);
	lay[1].extent_stride = 0;
	vt->step_replicas(dev, prog, l, lay, 2, REP_R - 1, 1, &err);
	is(stats_of(dev).graph_captures - s1.graph_captures, 2,
	   "other replicas or strides: captured again");
	vt->free(dev, bc);
	vt->free(dev, bm);
	free(alone);
	free(got);
}

/* Replicas of a launch of 10 items in 64-byte parts: each part gets +n
 * in its first 10 words and nothing else, whatever the grid. */
static void many_replicas(weft_device *dev, weft_program *prog,
			  uint32_t replicas, uint32_t extent, uint64_t stride,
			  const unsigned want_grid[2])
{
	size_t bytes = (size_t)replicas * stride;
	uint32_t *x = xcalloc(bytes, 1);
	weft_buf *b = alloc_or_bail(dev, bytes);
	weft_launch l = { .kernel = K_ADD_ONE,
			  .n_bufs = 1,
			  .bufs = { b },
			  .extent = extent };
	weft_replica_layout lay = { .stride = { stride } };
	unsigned grid[3];
	int ok = 1;

	put(dev, b, 0, x, bytes);
	is(vt->step_replicas(dev, prog, &l, &lay, 1, replicas, 2, &err),
	   WEFT_OK, "step_replicas(2)");
	mock_last_grid(grid);
	tap_ok(grid[0] == want_grid[0] && grid[1] == want_grid[1] &&
		       grid[2] == replicas,
	       "  ...%u replicas of %u items: grid %u x %u (want %u x %u)",
	       replicas, extent, grid[0], grid[1], want_grid[0], want_grid[1]);
	get(dev, x, b, 0, bytes);
	for (size_t i = 0; i < bytes / 4 && ok; i++)
		ok = x[i] == (i % (stride / 4) < extent ? 2u : 0u);
	tap_ok(ok, "  ...every replica's items ran twice, nothing else");
	vt->free(dev, b);
	free(x);
}

static void test_many_replicas(weft_device *dev, weft_program *prog)
{
	/* 4 multiprocessors of the mock: at most 128 blocks in all, and at
	 * least one per row. */
	const unsigned wide[2] = { 128 / 3, 3 }, tall[2] = { 1, 65535 };

	many_replicas(dev, prog, 3, 100000, 400000, wide);
	many_replicas(dev, prog, 70000, 10, 64, tall);
}

static void test_plain_launches(void)
{
	weft_device *dev;
	weft_program *prog;
	uint32_t v[300] = { 0 };
	weft_buf *b;
	weft_launch l = { .kernel = K_ADD_ONE, .n_bufs = 1, .extent = 300 };
	weft_stats s;

	setenv("WEFT_CUDA_GRAPHS", "0", 1);
	dev = open_cfg(NULL);
	unsetenv("WEFT_CUDA_GRAPHS");
	prog = load_test_program(dev);
	b = l.bufs[0] = alloc_or_bail(dev, sizeof v);
	put(dev, b, 0, v, sizeof v);
	is(vt->step(dev, prog, &l, 1, 17, &err), WEFT_OK,
	   "WEFT_CUDA_GRAPHS=0: step(17)");
	get(dev, v, b, 0, sizeof v);
	s = stats_of(dev);
	tap_ok(v[0] == 17 && v[299] == 17 && s.graph_captures == 0 &&
		       s.graph_launches == 0 && s.launches == 17,
	       "  ...plain launches, no graph");
	{
		weft_replica_layout lay = { .stride = { 0 } };

		l.extent = 70; /* 3 replicas of 70 words, 448 bytes apart */
		lay.stride[0] = 448;
		is(vt->step_replicas(dev, prog, &l, &lay, 1, 3, 2, &err),
		   WEFT_OK, "WEFT_CUDA_GRAPHS=0: step_replicas(2)");
		get(dev, v, b, 0, sizeof v);
		tap_ok(v[0] == 19 && v[69] == 19 && v[70] == 17 &&
			       v[112] == 19 && v[224] == 19 && v[293] == 19 &&
			       v[294] == 17 && v[299] == 17 &&
			       stats_of(dev).graph_captures == 0,
		       "  ...each replica's part, plain launches");
	}
	vt->free(dev, b);
	vt->unload_program(dev, prog);
	vt->close(dev);
}

/* A profiled step that fails partway (the second launch's timing event
 * cannot be recorded) counts the launch it enqueued before: a kernel is
 * never timed more often than it was launched. The first launch runs
 * nothing (extent 0), so it is timed at once. */
static void test_partial_step_counts(void)
{
	weft_device_config cfg = { .struct_size = sizeof cfg,
				   .device = -1,
				   .flags = WEFT_DEVICE_PROFILE };
	weft_device *dev = open_or_bail(&cfg);
	weft_program *prog = load_test_program(dev);
	uint32_t v[4] = { 0 };
	weft_buf *b = alloc_or_bail(dev, sizeof v);
	weft_launch l[2] = {
		{ .kernel = K_ADD_ONE, .n_bufs = 1, .extent = 0 },
		{ .kernel = K_ADD_ONE, .n_bufs = 1, .extent = 4 },
	};
	weft_kernel_stat ks[2];
	weft_stats s;
	weft_status st;

	l[0].bufs[0] = l[1].bufs[0] = b;
	put(dev, b, 0, v, sizeof v);
	mock_fail_records(1, 0);
	st = vt->step(dev, prog, l, 2, 3, &err);
	tap_ok(st == WEFT_E_DEVICE,
	       "a profiled step whose second launch cannot be timed fails (%s)",
	       err.msg);
	memset(ks, 0, sizeof ks);
	is(vt->kernel_stats(dev, prog, ks, 2, &err), WEFT_OK,
	   "  kernel_stats()");
	s = stats_of(dev);
	tap_ok(ks[K_ADD_ONE].launches == 1 && ks[K_ADD_ONE].timed == 1 &&
		       s.launches == 1 && s.steps == 0,
	       "  ...counts the launch enqueued before it: %llu launched, "
	       "%llu timed, %llu in the device's counters, %llu steps",
	       (unsigned long long)ks[K_ADD_ONE].launches,
	       (unsigned long long)ks[K_ADD_ONE].timed,
	       (unsigned long long)s.launches, (unsigned long long)s.steps);
	vt->free(dev, b);
	vt->unload_program(dev, prog);
	vt->close(dev);
}

static void test_cache(void)
{
	char dir[4096];
	weft_device *dev;
	weft_program *p1 = NULL, *p2 = NULL, *p3 = NULL;
	weft_stats s;
	struct stat sb;

	snprintf(dir, sizeof dir, "%s/kcache/cuda", tap_tmpdir());
	dev = open_cfg(dir);
	p1 = load_test_program(dev);
	vt->unload_program(dev, p1);
	p2 = load_test_program(dev);
	s = stats_of(dev);
	tap_ok(s.cache_misses == 1 && s.cache_hits == 1,
	       "compiled once, then loaded from the cache");
	tap_ok(stat(dir, &sb) == 0 && (sb.st_mode & 0777) == 0700,
	       "the cache directory is created, mode 0700");
	p3 = load_test_program(dev);
	s = stats_of(dev);
	is(s.cache_hits, 2, "two programs of one source both hit");
	vt->unload_program(dev, p2);
	vt->unload_program(dev, p3);
	vt->close(dev);
}

/* ---- fences and overlap ---------------------------------------------------
 */

static void test_fences(weft_device *dev)
{
	uint8_t v[256], got[256];
	weft_buf *b = alloc_or_bail(dev, sizeof v);
	weft_stats s0 = stats_of(dev), s1;
	uint64_t t1 = 0, t2 = 0;

	fill_pattern(v, sizeof v, 3);
	memset(got, 0, sizeof got);
	put(dev, b, 0, v, sizeof v);
	tap_ok(vt->read(dev, got, b, 0, sizeof got, WEFT_XFER_ASYNC, &err) ==
			       WEFT_OK &&
		       vt->fence(dev, &t1, &err) == WEFT_OK &&
		       vt->fence(dev, &t2, &err) == WEFT_OK && t2 > t1 &&
		       t1 > 0,
	       "fence() gives increasing tokens (%llu, %llu)",
	       (unsigned long long)t1, (unsigned long long)t2);
	tap_ok(vt->wait(dev, t1, &err) == WEFT_OK &&
		       memcmp(got, v, sizeof v) == 0,
	       "wait() delivers an async read issued before the fence");
	is(vt->wait(dev, t2 + 1, &err), WEFT_E_INVALID,
	   "wait() on a token not issued is refused");
	tap_contains(err.msg, "token", "  ...saying so");
	is(vt->wait(dev, t1, &err), WEFT_OK, "waiting twice is fine");
	s1 = stats_of(dev);
	tap_ok(s1.fence_waits - s0.fence_waits == 2 && s1.syncs == s0.syncs,
	       "fence waits counted (%llu), syncs not",
	       (unsigned long long)(s1.fence_waits - s0.fence_waits));
	vt->free(dev, b);
}

/* native() (ABI 1.2): the buffer's device pointer on device 0, the same
 * at every call; in the mock device memory is host memory, so the bytes a
 * launch wrote can be seen there once a fence after it was waited for. */
static void test_native(weft_device *dev, weft_program *prog)
{
	uint32_t v[64];
	weft_buf *b = alloc_or_bail(dev, sizeof v);
	weft_native n = { .struct_size = sizeof n }, m = n;
	weft_launch l = { .kernel = K_ADD_ONE, .n_bufs = 1, .extent = 64 };
	weft_stats s0, s1;
	uint64_t t = 0;
	int ok, same = 1;

	l.bufs[0] = b;
	for (uint32_t i = 0; i < 64; i++)
		v[i] = 10 * i;
	put(dev, b, 0, v, sizeof v);
	s0 = stats_of(dev);
	ok = vt->native(dev, b, &n, &err) == WEFT_OK &&
	     vt->native(dev, b, &m, &err) == WEFT_OK;
	s1 = stats_of(dev);
	tap_ok(ok && n.kind == WEFT_NATIVE_CUDA && n.device == 0 && n.handle &&
		       n.offset == 0 && n.bytes == sizeof v &&
		       memcmp(&n, &m, sizeof n) == 0,
	       "native(): a CUDA device pointer on device 0, %zu bytes, the "
	       "same twice (%s)",
	       n.bytes, ok ? "" : err.msg);
	tap_ok(s1.syncs == s0.syncs && s1.xfer_waits == s0.xfer_waits &&
		       s1.fence_waits == s0.fence_waits,
	       "native() waits for nothing");
	ok = ok && vt->step(dev, prog, &l, 1, 2, &err) == WEFT_OK &&
	     vt->fence(dev, &t, &err) == WEFT_OK &&
	     vt->wait(dev, t, &err) == WEFT_OK;
	for (uint32_t i = 0; ok && i < 64; i++)
		same &= ((const uint32_t *)n.handle)[i] == 10 * i + 2;
	tap_ok(ok && same,
	       "after a fence wait the device pointer holds what the "
	       "launches wrote");
	is(vt->native(dev, NULL, &n, &err), WEFT_E_INVALID,
	   "native() of a NULL buffer is refused");
	tap_contains(err.msg, "cuda: native: no buffer", "  ...saying so");
	vt->free(dev, b);
}

/* The snapshot pattern of the output pipeline: step, copy the state into a
 * snapshot buffer S, read S back asynchronously, step again. With the copy
 * stream held (a slow read), the later launches still run: they do not
 * bind S, so they do not wait for the read; the read still gets the state
 * as it was when it was issued. */
static void test_overlap_read(weft_device *dev, weft_program *prog)
{
	enum { N = 512 };
	uint32_t zero[N] = { 0 }, snap[N], x[N];
	weft_buf *xb = alloc_or_bail(dev, sizeof zero);
	weft_buf *sb = alloc_or_bail(dev, sizeof zero);
	weft_launch inc = {
		.kernel = K_ADD_ONE, .n_bufs = 1, .bufs = { xb }, .extent = N
	};
	unsigned long w0;
	uint64_t f = 0;
	int queued, ok = 1;

	put(dev, xb, 0, zero, sizeof zero);
	put(dev, sb, 0, zero, sizeof zero);
	memset(snap, 0xee, sizeof snap);
	ok &= vt->step(dev, prog, &inc, 1, 1, &err) == WEFT_OK &&
	      vt->copy(dev, sb, 0, xb, 0, sizeof zero, WEFT_XFER_ASYNC, &err) ==
		      WEFT_OK;
	/* Held before the read is issued: the read cannot have run. */
	w0 = mock_waits(COMPUTE, COPY);
	mock_hold(COPY, 1);
	ok &= vt->read(dev, snap, sb, 0, sizeof snap, WEFT_XFER_ASYNC, &err) ==
		      WEFT_OK &&
	      vt->fence(dev, &f, &err) == WEFT_OK &&
	      vt->step(dev, prog, &inc, 1, 3, &err) == WEFT_OK;
	queued = mock_settle(COMPUTE);
	tap_ok(ok && mock_waits(COMPUTE, COPY) == w0 && queued == 0,
	       "later launches not binding S do not wait for the read of S "
	       "(%lu new compute-on-copy waits, %d launches still queued "
	       "with the copy stream held)",
	       mock_waits(COMPUTE, COPY) - w0, queued);
	tap_ok(mock_settle(COPY) > 0, "  ...while the read had not run");
	mock_hold(COPY, 0);
	ok = vt->wait(dev, f, &err) == WEFT_OK;
	get(dev, x, xb, 0, sizeof x);
	tap_ok(ok && snap[0] == 1 && snap[N - 1] == 1 && x[0] == 4 &&
		       x[N - 1] == 4,
	       "the read got the state after one step (%u), the state went "
	       "on to four (%u): the eager order's results",
	       (unsigned)snap[0], (unsigned)x[0]);
	vt->free(dev, xb);
	vt->free(dev, sb);
}

/* The hazards that do need a wait: a launch that binds S after an async
 * read of S (it would overwrite what the read has not read yet), and a
 * device-to-device copy from a buffer with a pending async write. */
static void test_overlap_hazards(weft_device *dev, weft_program *prog)
{
	enum { N = 256 };
	uint32_t v[N], snap[N], got[N];
	weft_buf *sb = alloc_or_bail(dev, sizeof v);
	weft_buf *db = alloc_or_bail(dev, sizeof v);
	weft_launch inc = {
		.kernel = K_ADD_ONE, .n_bufs = 1, .bufs = { sb }, .extent = N
	};
	unsigned long w0;
	int queued, ok;

	for (int i = 0; i < N; i++)
		v[i] = 7;
	put(dev, sb, 0, v, sizeof v);
	w0 = mock_waits(COMPUTE, COPY);
	mock_hold(COPY, 1);
	ok = vt->read(dev, snap, sb, 0, sizeof snap, WEFT_XFER_ASYNC, &err) ==
		     WEFT_OK &&
	     vt->step(dev, prog, &inc, 1, 1, &err) == WEFT_OK;
	queued = mock_settle(COMPUTE);
	tap_ok(ok && mock_waits(COMPUTE, COPY) == w0 + 1 && queued > 0,
	       "a launch binding S after an async read of S waits for it (%lu "
	       "wait, %d operations queued behind it)",
	       mock_waits(COMPUTE, COPY) - w0, queued);
	mock_hold(COPY, 0);
	ok = vt->sync(dev, &err) == WEFT_OK;
	get(dev, got, sb, 0, sizeof got);
	tap_ok(ok && snap[0] == 7 && snap[N - 1] == 7 && got[0] == 8,
	       "  ...the read got the value before the launch (%u), the "
	       "launch ran after (%u)",
	       (unsigned)snap[0], (unsigned)got[0]);
	for (int i = 0; i < N; i++)
		v[i] = 100u + (uint32_t)i;
	w0 = mock_waits(COMPUTE, COPY);
	mock_hold(COPY, 1);
	ok = vt->write(dev, sb, 0, v, sizeof v, WEFT_XFER_ASYNC, &err) ==
		     WEFT_OK &&
	     vt->copy(dev, db, 0, sb, 0, sizeof v, WEFT_XFER_ASYNC, &err) ==
		     WEFT_OK;
	queued = mock_settle(COMPUTE);
	tap_ok(ok && mock_waits(COMPUTE, COPY) == w0 + 1 && queued > 0,
	       "a device-to-device copy from a buffer with a pending async "
	       "write waits for it");
	mock_hold(COPY, 0);
	get(dev, got, db, 0, sizeof got);
	tap_ok(memcmp(got, v, sizeof v) == 0, "  ...and copies what it wrote");
	vt->free(dev, sb);
	vt->free(dev, db);
}

/* ---- SEIR end to end
 * --------------------------------------------------------- */

static char *run_seir(const char *name, const char *backend, int agents,
		      weft_stats *st)
{
	char dir[512], set[4200], path[600], *csv = NULL;
	weft_context *ctx = NULL;
	weft_config *cfg = NULL;
	weft_sim *sim = NULL;

	snprintf(dir, sizeof dir, "%s/%s", tap_tmpdir(), name);
	if (weft_context_new(&ctx) || weft_config_new(ctx, &cfg))
		goto done;
	snprintf(set, sizeof set, "output.directory=%s", dir);
	if (weft_config_set(ctx, cfg, set))
		goto done;
	snprintf(set, sizeof set, "backend.name=%s", backend);
	if (weft_config_set(ctx, cfg, set))
		goto done;
	snprintf(set, sizeof set, "backend.plugin_path=%s", mock_dir());
	if (weft_config_set(ctx, cfg, set))
		goto done;
	snprintf(set, sizeof set, "backend.cache_dir=%s/kc", tap_tmpdir());
	if (weft_config_set(ctx, cfg, set))
		goto done;
	snprintf(set, sizeof set, "seir.agents=%d", agents);
	if (weft_config_set(ctx, cfg, set) ||
	    weft_config_set(ctx, cfg, "simulation.steps=60") ||
	    weft_config_set(ctx, cfg, "output.every=7") ||
	    weft_sim_open(ctx, cfg, &sim) || weft_sim_step(sim, 11) ||
	    weft_sim_step(sim, 1000) || weft_sim_finish(sim) ||
	    weft_sim_stats(sim, st))
		goto done;
	snprintf(path, sizeof path, "%s/daily.csv", dir);
	csv = tap_read_file(path, NULL);
done:
	if (!csv)
		tap_diag("%s: %s", name, weft_context_error(ctx));
	weft_sim_close(sim);
	weft_config_free(cfg);
	weft_context_free(ctx);
	return csv;
}

static void seir_matches(const char *tag, int agents, int graphs)
{
	weft_stats so = { .struct_size = sizeof so };
	weft_stats sc = { .struct_size = sizeof sc };
	char name[64];
	char *o, *c;

	snprintf(name, sizeof name, "%s-openmp", tag);
	o = run_seir(name, "openmp", agents, &so);
	snprintf(name, sizeof name, "%s-cuda", tag);
	c = run_seir(name, "cuda", agents, &sc);
	tap_ok(o && c && strcmp(o, c) == 0 &&
		       strchr(o, '\n') != strrchr(o, '\n'),
	       "SEIR, %d agents, %s: daily.csv identical to OpenMP's", agents,
	       tag);
	tap_ok(sc.launches == 420 && sc.steps == 60 && sc.syncs == 1 &&
		       sc.fence_waits == 9 &&
		       (sc.graph_captures >= 1) == graphs,
	       "  ...420 launches (7 a day), 60 steps, 9 fence waits (one per "
	       "output) "
	       "and 1 sync (%llu, %llu), graphs (%llu captures, %llu "
	       "launches)",
	       (unsigned long long)sc.fence_waits, (unsigned long long)sc.syncs,
	       (unsigned long long)sc.graph_captures,
	       (unsigned long long)sc.graph_launches);
	free(o);
	free(c);
}

int main(void)
{
	weft_context *ctx = NULL;
	weft__plugin *p = NULL;
	char path[4200];
	weft_device *dev;
	weft_program *prog = NULL;

	snprintf(path, sizeof path, "%s/weft-backend-cuda.so", mock_dir());
	if (weft_context_new(&ctx) != WEFT_OK)
		tap_bail("no context");
	p = load_backend(ctx, path, 0);
	*(void **)&mock_waits = dlsym(p->dl, "weft_mock_waits");
	*(void **)&mock_hold = dlsym(p->dl, "weft_mock_hold");
	*(void **)&mock_settle = dlsym(p->dl, "weft_mock_settle");
	*(void **)&mock_fail_records = dlsym(p->dl, "weft_mock_fail_records");
	*(void **)&mock_fail_pinned = dlsym(p->dl, "weft_mock_fail_pinned");
	*(void **)&mock_last_grid = dlsym(p->dl, "weft_mock_last_grid");
	if (!mock_waits || !mock_hold || !mock_settle || !mock_last_grid)
		tap_bail("the mock's hooks are not exported: %s", dlerror());
	dev = open_cfg(NULL);
	if (vt->load_program(dev, &test_program, &prog, &err) ==
	    WEFT_E_UNAVAILABLE)
		tap_skip_all("%s", err.msg); /* NVRTC cannot be loaded */
	vt->unload_program(dev, prog);
	vt->close(dev);
	test_probe();
	test_open();
	dev = open_cfg(NULL);
	test_round_trips(dev);
	prog = load_test_program(dev);
	test_issue_order(dev, prog);
	test_staging(dev);
	test_staging_unrecorded(dev);
	test_staging_no_pinned(dev);
	test_overlap_copy(dev);
	test_bounds(dev);
	test_load_errors(dev);
	test_step_graphs(dev, prog);
	test_recapture(dev, prog);
	test_device_extent(dev, prog);
	test_invalid_launch(dev, prog);
	test_replicas(dev, prog);
	test_many_replicas(dev, prog);
	test_fences(dev);
	test_native(dev, prog);
	test_overlap_read(dev, prog);
	test_overlap_hazards(dev, prog);
	vt->unload_program(dev, prog);
	vt->close(dev);
	test_memory();
	test_plain_launches();
	test_partial_step_counts();
	test_cache();
	seir_matches("graphs", 5000, 1);
	seir_matches("grid-stride", 40000, 1);
	setenv("WEFT_CUDA_GRAPHS", "0", 1);
	seir_matches("plain", 5000, 0);
	unsetenv("WEFT_CUDA_GRAPHS");
	weft__plugin_free(p);
	weft_context_free(ctx);
	return tap_done();
}
