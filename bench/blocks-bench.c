/*
 * bench/blocks-bench.c - weft's building blocks (weft/blocks.h) timed
 * through a backend's vtable, beside a memcpy of the same bytes, printed
 * as "key=value" lines for bench/blocks.sh.
 *
 *   blocks-bench PLUGIN.so THREADS N REPEATS
 *
 * On N random elements (N up to 2^32 - 1; the inputs are seeded, the same
 * in every run): scan_u32 (exclusive, in != out), sort_u32 (u32 keys,
 * values 0..N-1: the stable permutation and the sorted keys, in place)
 * and compact_u32 (u8 flags, each set with probability 1/2). Each block
 * is one step() of its launches and a sync(), its inputs written again
 * before each repeat (not timed), after one run that is not timed (the
 * buffers' pages mapped); the time printed is the median of REPEATS. The
 * results of the last repeat are checked against a plain C computation, so that
 * a wrong block is not timed as a fast one.
 *
 * memcpy: the median of REPEATS copies of 4 N bytes by the C library in
 * this process, one thread: its read + write bytes per second is the
 * machine's copy bandwidth for one core, what the blocks are compared
 * with.
 *
 * Lines: ms_scan_u32=, ms_sort_u32=, ms_compact_u32=, ms_memcpy=,
 * copy_gbs= (8 N bytes / memcpy's time), kept= (compaction's count).
 */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <weft/backend.h>
#include <weft/blocks.h>

#include "bb_kernels.h"

static const weft_backend *vt;
static weft_error err;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, const char *why)
{
	fprintf(stderr, "blocks-bench: %s: %s\n", what, why);
	exit(1);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of host memory", "malloc");
	return p;
}

static void load(const char *path)
{
	void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!dl)
		die(path, dlerror());
	vt = dlsym(dl, WEFT_BACKEND_ENTRY_SYMBOL);
	if (!vt || vt->abi_major != WEFT_BACKEND_ABI_MAJOR)
		die(path, "not a weft backend of ABI 1");
}

static weft_buf *alloc(weft_device *dev, size_t n)
{
	weft_buf *b = NULL;

	if (vt->alloc(dev, n, &b, &err) != WEFT_OK)
		die("alloc", err.msg);
	return b;
}

static void put(weft_device *dev, weft_buf *b, const void *p, size_t n)
{
	if (vt->write(dev, b, 0, p, n, 0, &err) != WEFT_OK)
		die("write", err.msg);
}

static void get_at(weft_device *dev, void *p, weft_buf *b, size_t off, size_t n)
{
	if (vt->read(dev, p, b, off, n, 0, &err) != WEFT_OK)
		die("read", err.msg);
}

static void get(weft_device *dev, void *p, weft_buf *b, size_t n)
{
	get_at(dev, p, b, 0, n);
}

/* One step of the launches and a sync: seconds. */
static double timed(weft_device *dev, weft_program *prog, const weft_launch *l,
		    uint32_t n)
{
	double t0 = now_s();

	if (vt->step(dev, prog, l, n, 1, &err) != WEFT_OK)
		die("step", err.msg);
	if (vt->sync(dev, &err) != WEFT_OK)
		die("sync", err.msg);
	return now_s() - t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *t, int n)
{
	qsort(t, (size_t)n, sizeof *t, cmp_double);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

static uint64_t rng(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15u);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
	return z ^ (z >> 31);
}

typedef struct bench {
	weft_device *dev;
	weft_program *prog;
	uint32_t n;
	int repeats;
	uint32_t *x, *h; /* random input, host results */
	uint8_t *f;	 /* flags */
	weft_buf *count, *scratch, *a, *b, *c, *d, *fb;
	weft_launch l[WEFT_BLOCKS_MAX_LAUNCHES];
} bench;

static void check(int ok, const char *what)
{
	if (!ok)
		die(what, "the result differs from the C reference");
}

static double run_scan(bench *B)
{
	double t[B->repeats];
	uint32_t nl = weft_blocks_scan_u32(B->l, BB_K_WEFT_BLOCKS, B->a, B->b,
					   B->count, 0, B->scratch, B->n, 0);

	put(B->dev, B->a, B->x, (size_t)B->n * 4);
	timed(B->dev, B->prog, B->l, nl);
	for (int r = 0; r < B->repeats; r++)
		t[r] = timed(B->dev, B->prog, B->l, nl);
	get(B->dev, B->h, B->b, (size_t)B->n * 4);
	for (uint32_t i = 0, acc = 0; i < B->n; acc += B->x[i++])
		check(B->h[i] == acc, "scan_u32");
	return median(t, B->repeats);
}

static double run_sort(bench *B)
{
	double t[B->repeats];
	uint32_t *idx = xmalloc((size_t)B->n * 4 + 4);
	uint32_t nl =
		weft_blocks_sort_u32(B->l, BB_K_WEFT_BLOCKS, B->a, B->b, B->c,
				     B->d, B->count, 0, B->scratch, B->n);

	for (uint32_t i = 0; i < B->n; i++)
		idx[i] = i;
	for (int r = -1; r < B->repeats; r++) {
		put(B->dev, B->a, B->x, (size_t)B->n * 4);
		put(B->dev, B->b, idx, (size_t)B->n * 4);
		t[r < 0 ? 0 : r] = timed(B->dev, B->prog, B->l, nl);
	}
	get(B->dev, B->h, B->a, (size_t)B->n * 4);
	get(B->dev, idx, B->b, (size_t)B->n * 4);
	for (uint32_t i = 0; i < B->n; i++) {
		check(B->h[i] == B->x[idx[i]], "sort_u32: keys and values");
		check(!i || B->h[i - 1] < B->h[i] ||
			      (B->h[i - 1] == B->h[i] && idx[i - 1] < idx[i]),
		      "sort_u32: ascending and stable");
	}
	free(idx);
	return median(t, B->repeats);
}

static double run_compact(bench *B, uint32_t *kept)
{
	double t[B->repeats];
	uint32_t nl, k = 0, out_count = 0;

	nl = weft_blocks_compact_u32(B->l, BB_K_WEFT_BLOCKS, B->fb, B->a, B->b,
				     B->count, 0, B->scratch, B->n, B->count,
				     1);
	put(B->dev, B->a, B->x, (size_t)B->n * 4);
	put(B->dev, B->fb, B->f, B->n);
	for (int r = -1; r < B->repeats; r++)
		t[r < 0 ? 0 : r] = timed(B->dev, B->prog, B->l, nl);
	get(B->dev, B->h, B->b, (size_t)B->n * 4);
	get_at(B->dev, &out_count, B->count, 4, 4); /* word 1 */
	for (uint32_t i = 0; i < B->n; i++)
		if (B->f[i])
			check(B->h[k++] == B->x[i], "compact_u32");
	check(out_count == k, "compact_u32: its count");
	*kept = k;
	return median(t, B->repeats);
}

/* Where the copy escapes to, so that it is made. */
static void *volatile copy_sink;

static double run_memcpy(bench *B)
{
	double t[B->repeats];
	uint32_t *dst = xmalloc((size_t)B->n * 4 + 4);

	memset(dst, 1, (size_t)B->n * 4); /* pages mapped before timing */
	for (int r = -1; r < B->repeats; r++) {
		double t0 = now_s();

		memcpy(dst, B->x, (size_t)B->n * 4);
		t[r < 0 ? 0 : r] = now_s() - t0;
		copy_sink = dst;
	}
	check(dst[B->n / 2] == B->x[B->n / 2], "memcpy");
	free(dst);
	return median(t, B->repeats);
}

int main(int argc, char **argv)
{
	weft_device_config cfg = { .struct_size = sizeof cfg, .device = -1 };
	weft_program_desc desc = bb_program;
	bench B = { .repeats = 5 };
	uint64_t s = 12345;
	uint32_t kept = 0, two[2];
	double ms_scan, ms_sort, ms_compact, t_copy;

	if (argc != 5) {
		fprintf(stderr,
			"usage: blocks-bench PLUGIN.so THREADS N REPEATS\n");
		return 2;
	}
	cfg.threads = atoi(argv[2]);
	B.n = (uint32_t)strtoul(argv[3], NULL, 10);
	B.repeats = atoi(argv[4]);
	if (B.n == 0 || B.repeats < 1)
		die("arguments", "N and REPEATS must be at least 1");
	load(argv[1]);
	if (vt->open(&cfg, &B.dev, &err) != WEFT_OK)
		die("open", err.msg);
	desc.source_len = strlen(desc.source);
	if (vt->load_program(B.dev, &desc, &B.prog, &err) != WEFT_OK)
		die("load_program", err.msg);
	B.x = xmalloc((size_t)B.n * 4);
	B.h = xmalloc((size_t)B.n * 4);
	B.f = xmalloc(B.n);
	for (uint32_t i = 0; i < B.n; i++) {
		uint64_t r = rng(&s);

		B.x[i] = (uint32_t)r;
		B.f[i] = (uint8_t)((r >> 40) & 1u);
	}
	B.count = alloc(B.dev, 8);
	two[0] = B.n;
	two[1] = 0;
	put(B.dev, B.count, two, 8);
	B.scratch = alloc(B.dev, weft_blocks_sort_scratch_bytes(B.n) >
						 weft_blocks_scratch_bytes(B.n)
					 ? weft_blocks_sort_scratch_bytes(B.n)
					 : weft_blocks_scratch_bytes(B.n));
	B.a = alloc(B.dev, (size_t)B.n * 4);
	B.b = alloc(B.dev, (size_t)B.n * 4);
	B.c = alloc(B.dev, (size_t)B.n * 4);
	B.d = alloc(B.dev, (size_t)B.n * 4);
	B.fb = alloc(B.dev, B.n);
	ms_scan = run_scan(&B) * 1e3;
	ms_sort = run_sort(&B) * 1e3;
	ms_compact = run_compact(&B, &kept) * 1e3;
	t_copy = run_memcpy(&B);
	printf("n=%u\nms_scan_u32=%.3f\nms_sort_u32=%.3f\nms_compact_u32=%.3f\n"
	       "kept=%u\nms_memcpy=%.3f\ncopy_gbs=%.3f\n",
	       (unsigned)B.n, ms_scan, ms_sort, ms_compact, (unsigned)kept,
	       t_copy * 1e3, 8.0 * B.n / t_copy / 1e9);
	/* Everything released, so that the sanitizer build's leak check
	 * (make check-sanitize runs this through tests/plugins/test-blocks.sh)
	 * sees no leak. */
	vt->free(B.dev, B.count);
	vt->free(B.dev, B.scratch);
	vt->free(B.dev, B.a);
	vt->free(B.dev, B.b);
	vt->free(B.dev, B.c);
	vt->free(B.dev, B.d);
	vt->free(B.dev, B.fb);
	vt->unload_program(B.dev, B.prog);
	vt->close(B.dev);
	free(B.x);
	free(B.h);
	free(B.f);
	return 0;
}
