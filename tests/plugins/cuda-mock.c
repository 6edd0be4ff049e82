/*
 * tests/plugins/cuda-mock.c - a stand-in for the CUDA runtime, linked into a
 * test build of the CUDA plugin (tests/plugins/cuda-mock/weft-backend-cuda.so),
 * so that the plugin's host logic runs on a machine without a GPU: streams,
 * events, ordering between the streams, pinned staging, the memory pool,
 * graph capture and replay, program loading (NVRTC still compiles; the
 * CUBIN is checked, then the kernel is looked up here by name).
 *
 * The mock device is deliberately adversarial, so that a missing
 * dependency shows up as a wrong result rather than passing by luck:
 *  - work is queued per stream and executed later, a few operations at a
 *    time at every runtime call, picking at random among the streams
 *    whose next operation may run (WEFT_MOCK_SEED seeds it);
 *  - a copy from pinned memory reads it when it executes, a kernel reads
 *    its device-side count when it executes;
 *  - freeing device or pinned memory, or unloading a library, while work
 *    is queued, capturing anything but launches, out-of-range and
 *    overlapping copies abort the process with a message.
 * Kernels run on the host: the portable kernels of the tests, SEIR and the
 * environment models compiled with kernel_host.h, given the extent the CUDA
 * prelude would compute from struct weft__cuda_args, once per replica (block
 * row y runs replicas y, y + gridDim.y, ..., with the buffers and the count
 * shifted by the replica's strides), rows in a random order; a grid with more
 * rows than replicas or than 65535 aborts.
 *
 * Test hooks (exported, tests/plugins/cuda.am; streams are named by their slot,
 * in creation order: a device opened when no other is open has its
 * compute stream in slot 0 and its copy stream in slot 1):
 *  - weft_mock_waits(w, s): how many times stream w was made to wait on
 *    an event recorded on stream s (cudaStreamWaitEvent), so far;
 *  - weft_mock_hold(s, on): while held, nothing on stream s runs (a slow
 *    transfer); a call that must wait for it then aborts as a deadlock;
 *  - weft_mock_settle(s): run whatever can run; the operations still
 *    queued on stream s;
 *  - weft_mock_fail_records(n, e): the next n cudaEventRecord calls fail
 *    with error e (0: cudaErrorInvalidResourceHandle) and record nothing;
 *  - weft_mock_fail_pinned(n): the next n cudaMallocHost calls fail
 *    (cudaErrorMemoryAllocation);
 *  - weft_mock_last_grid(g): the grid (x, y) and the replicas of the
 *    last cudaLaunchKernel call, captured or not, in g[0..2].
 *
 * Environment: WEFT_MOCK_CUDA_DEVICES (1; -1: an initialisation error),
 * WEFT_MOCK_CUDA_CC (90),
 * WEFT_MOCK_CUDA_MEM (bytes of device memory, 256 MiB), WEFT_MOCK_SEED.
 * This is test code: it prints and aborts.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "priv.h"

#include <weft/kernel_host.h>
#include <weft/kernel.h>

#include "seir_kernels.h"
#include "cartpole_kernels.h"
#include "acrobot_kernels.h"
#include "mountain_car_kernels.h"
#include "pendulum_kernels.h"
#include "minatar_kernels.h"

/* The conformance suite's program (conform/cf_kernels.c, compiled into
 * the mock), so that `weft conform` can run on the mock plugin. */
extern const weft_program_desc cf_program;

/* ---- test kernels (as in tests/plugins/test-openmp.c) ---------------------
 */

WEFT_KERNEL(add_one)
{
	WEFT_BUF(weft_u32, x, 0);
	x[WEFT_GID] += 1;
}

WEFT_KERNEL(bump_count)
{
	WEFT_BUF(weft_u32, c, 0);
	if (WEFT_GID == 0)
		c[1] += c[0];
}

WEFT_KERNEL(tick)
{
	WEFT_BUF(weft_u32, c, 0);
	if (WEFT_GID == 0)
		c[0] += 1;
}

static const struct {
	const char *name;
	weft_host_kernel_fn fn;
} registry[] = {
	{ "add_one", add_one },
	{ "bump_count", bump_count },
	{ "tick", tick },
};

/* A kernel of program p named name. */
static int program_find(const weft_program_desc *p, const char *name,
			const char **found, weft_host_kernel_fn *fn)
{
	for (uint32_t i = 0; i < p->n_kernels; i++)
		if (strcmp(p->kernels[i].name, name) == 0) {
			*found = p->kernels[i].name;
			*fn = p->kernels[i].host_fn;
			return 1;
		}
	return 0;
}

/* The programs compiled into the mock. */
static const weft_program_desc *const programs[] = {
	&seir_program,	       &cartpole_program, &acrobot_program,
	&mountain_car_program, &pendulum_program, &minatar_program,
	&cf_program,
};

/* A kernel of the tests', SEIR's, an environment model's (CartPole,
 * Acrobot, MountainCar, Pendulum, MinAtar) or the conformance suite's
 * program (their *_kernels.c, compiled into the mock): its host build runs
 * in place of the device's. */
static int registry_find(const char *name, const char **found,
			 weft_host_kernel_fn *fn)
{
	for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
		if (strcmp(registry[i].name, name) == 0) {
			*found = registry[i].name;
			*fn = registry[i].fn;
			return 1;
		}
	for (size_t i = 0; i < sizeof programs / sizeof programs[0]; i++)
		if (program_find(programs[i], name, found, fn))
			return 1;
	return 0;
}

/* ---- the mock's state ------------------------------------------------------
 */

#define MAX_STREAMS 64
#define MAX_BLOCKS  4096

enum op_kind { OP_COPY, OP_KERNEL, OP_RECORD, OP_WAIT };

struct CUlib_st {
	int alive;
};

struct CUkern_st {
	const char *name;
	weft_host_kernel_fn fn;
	struct CUlib_st *lib;
};

struct op {
	enum op_kind kind;
	struct op *next;
	/* copy */
	void *dst;
	const void *src;
	size_t n;
	void *owned; /* a copy of pageable source bytes */
	/* kernel */
	struct CUkern_st *k;
	struct weft__cuda_args a;
	unsigned grid, grid_y, block;
	/* record, wait */
	struct CUevent_st *ev;
	uint64_t id; /* record: its id; wait: the record waited for */
};

struct CUevent_st {
	struct CUstream_st *stream; /* where it is recorded, always */
	uint64_t last;		    /* id of its latest record */
	uint64_t done;		    /* id of its latest executed record */
};

struct CUstream_st {
	struct op *head, *tail;
	int capturing;
	struct op *cap_head, *cap_tail;
};

struct CUgraph_st {
	struct op *ops;
};

struct CUgraphExec_st {
	struct op *ops;
};

struct block {
	char *p;
	size_t n;
	int pinned;
};

static struct CUstream_st *streams[MAX_STREAMS];
static unsigned long cross_waits[MAX_STREAMS][MAX_STREAMS];
static int held[MAX_STREAMS];
static struct block blocks[MAX_BLOCKS];
static size_t mem_used;
static uint64_t next_id = 1, rng;
static cudaError_t last_error;
static unsigned last_grid[3]; /* x, y, replicas of the last launch */

static void fail(const char *what)
{
	fprintf(stderr, "cuda-mock: %s\n", what);
	abort();
}

static long env_long(const char *name, long def)
{
	const char *v = getenv(name);

	return v && *v ? strtol(v, NULL, 10) : def;
}

static unsigned rnd(unsigned n)
{
	if (!rng)
		rng = (uint64_t)env_long("WEFT_MOCK_SEED", 1) * 2654435761u + 1;
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static cudaError_t ret(cudaError_t e)
{
	if (e != cudaSuccess)
		last_error = e;
	return e;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		fail("out of host memory");
	return p;
}

/* Libraries and kernel handles live as long as the mock, so that a launch
 * of a kernel whose library was unloaded is caught through them: kept
 * here, and freed when the mock is unloaded (nothing is left for the
 * leak checker of a sanitizer build). */
static void **kept;
static size_t n_kept, cap_kept;

static void *xcalloc_kept(size_t size)
{
	if (n_kept == cap_kept) {
		cap_kept = cap_kept ? 2 * cap_kept : 64;
		kept = realloc(kept, cap_kept * sizeof *kept);
		if (!kept)
			fail("out of host memory");
	}
	return kept[n_kept++] = xcalloc(1, size);
}

__attribute__((destructor)) static void free_kept(void)
{
	for (size_t i = 0; i < n_kept; i++)
		free(kept[i]);
	free(kept);
}

/* ---- memory
 * ------------------------------------------------------------------ */

static struct block *find_block(const void *p, size_t n, int pinned)
{
	const char *c = p;

	for (int i = 0; i < MAX_BLOCKS; i++) {
		struct block *b = &blocks[i];

		if (b->p && b->pinned == pinned && c >= b->p &&
		    c <= b->p + b->n) {
			if (n > (size_t)(b->p + b->n - c))
				fail("an access runs past the end of a block");
			return b;
		}
	}
	return NULL;
}

static int pending(void)
{
	for (int i = 0; i < MAX_STREAMS; i++)
		if (streams[i] && streams[i]->head)
			return 1;
	return 0;
}

static cudaError_t block_new(void **out, size_t n, int pinned)
{
	long limit = env_long("WEFT_MOCK_CUDA_MEM", 256l << 20);

	for (int i = 0; i < MAX_BLOCKS; i++) {
		if (blocks[i].p)
			continue;
		if (!pinned && n > (size_t)limit - mem_used)
			return ret(cudaErrorMemoryAllocation);
		blocks[i].p = aligned_alloc(256, (n + 255) / 256 * 256 + 256);
		if (!blocks[i].p)
			return ret(cudaErrorMemoryAllocation);
		blocks[i].n = n;
		blocks[i].pinned = pinned;
		mem_used += pinned ? 0 : n;
		*out = blocks[i].p;
		return cudaSuccess;
	}
	fail("too many blocks");
	return cudaErrorUnknown;
}

static cudaError_t block_free(void *p, int pinned)
{
	struct block *b = p ? find_block(p, 0, pinned) : NULL;

	if (!p)
		return cudaSuccess;
	if (!b || b->p != p)
		fail("freeing what was not allocated");
	if (pending())
		fail("freeing memory while work is queued");
	mem_used -= pinned ? 0 : b->n;
	free(b->p);
	memset(b, 0, sizeof *b);
	return cudaSuccess;
}

/* ---- queues
 * ------------------------------------------------------------------- */

static int ready(const struct op *o)
{
	return o->kind != OP_WAIT || o->id == 0 || o->ev->done >= o->id;
}

/* Replica r of a launch, as the prelude runs it: the buffers shifted by r
 * strides, the count read r * xstride words after xoff. */
static void run_replica(const struct op *o, uint32_t r)
{
	const struct weft__cuda_args *a = &o->a;
	weft_kargs ka;
	uint32_t n = a->xcap;

	if (a->xdyn) {
		const uint32_t *at = a->xbuf + a->xoff + r * a->xstride;

		if (!find_block(at, 4, 0))
			fail("the extent count is not in device memory");
		if (*at < n)
			n = *at;
	}
	memset(&ka, 0, sizeof ka);
	for (int k = 0; k < WEFT_KERNEL_MAX_BUFS; k++)
		ka.buf[k] = a->b[k] ? (char *)a->b[k] + r * a->stride[k] : NULL;
	ka.extent = n;
	if (n)
		o->k->fn(&ka, 0, n);
}

/* Block row y runs replicas y, y + grid_y, ... (prelude.c); the rows run
 * in an order of their own, from a random one on. */
static void run_kernel(struct op *o)
{
	unsigned first;

	if (!o->k->lib->alive)
		fail("a kernel of an unloaded library runs");
	if (o->block != WEFT__CUDA_BLOCK || o->grid == 0 ||
	    o->grid > (o->a.xcap + o->block - 1) / o->block)
		fail("a launch has a bad grid");
	if (o->a.replicas == 0 || o->grid_y == 0 || o->grid_y > 65535 ||
	    o->grid_y > o->a.replicas)
		fail("a launch has a bad grid for its replicas");
	first = rnd(o->grid_y);
	for (unsigned i = 0; i < o->grid_y; i++) {
		unsigned y = (first + i) % o->grid_y;

		for (uint32_t r = y; r < o->a.replicas; r += o->grid_y)
			run_replica(o, r);
	}
}

static void execute(struct op *o)
{
	switch (o->kind) {
	case OP_COPY:
		memmove(o->dst, o->owned ? o->owned : o->src, o->n);
		break;
	case OP_KERNEL: run_kernel(o); break;
	case OP_RECORD: o->ev->done = o->id; break;
	case OP_WAIT: break;
	}
	free(o->owned);
	free(o);
}

/* Run one operation that may run, chosen at random; 0 when none may. */
static int run_one(void)
{
	struct CUstream_st *can[MAX_STREAMS];
	int n = 0;

	for (int i = 0; i < MAX_STREAMS; i++)
		if (streams[i] && streams[i]->head && !held[i] &&
		    ready(streams[i]->head))
			can[n++] = streams[i];
	if (n == 0)
		return 0;
	{
		struct CUstream_st *s = can[rnd((unsigned)n)];
		struct op *o = s->head;

		s->head = o->next;
		if (!s->head)
			s->tail = NULL;
		execute(o);
	}
	return 1;
}

/* The device makes a little progress at the calls that may take time on
 * a real driver (allocations, transfers, queries): never in
 * cudaSetDevice(), cudaEventRecord() or a launch, which return at once
 * there, so that a backend's step(), fence() and mem_info() return while
 * the work queued before them still waits, as on a GPU (the conformance
 * suite checks that they never wait). */
static void progress(void)
{
	for (unsigned k = rnd(3); k > 0 && run_one(); k--)
		;
}

static void run_until(int (*done)(const void *), const void *arg)
{
	while (!done(arg))
		if (!run_one())
			fail("deadlock: waiting for work that cannot run");
}

static void push(struct CUstream_st *s, struct op *o)
{
	o->next = NULL;
	if (s->capturing) {
		if (o->kind != OP_KERNEL)
			fail("only launches may be captured");
		if (s->cap_tail)
			s->cap_tail->next = o;
		else
			s->cap_head = o;
		s->cap_tail = o;
		return;
	}
	if (s->tail)
		s->tail->next = o;
	else
		s->head = o;
	s->tail = o;
}

static struct op *new_op(enum op_kind kind)
{
	struct op *o = xcalloc(1, sizeof *o);

	o->kind = kind;
	return o;
}

static int slot_of(const struct CUstream_st *s)
{
	for (int i = 0; i < MAX_STREAMS; i++)
		if (s && streams[i] == s)
			return i;
	return -1;
}

static int known_stream(const struct CUstream_st *s)
{
	return slot_of(s) >= 0;
}

/* ---- test hooks ------------------------------------------------------------
 */

WEFT_EXPORT unsigned long weft_mock_waits(int waiter, int signaler);
WEFT_EXPORT void weft_mock_hold(int slot, int on);
WEFT_EXPORT int weft_mock_settle(int slot);
WEFT_EXPORT void weft_mock_fail_records(int n, int e);
WEFT_EXPORT void weft_mock_fail_pinned(int n);
WEFT_EXPORT void weft_mock_last_grid(unsigned *g);

void weft_mock_last_grid(unsigned *g)
{
	memcpy(g, last_grid, sizeof last_grid);
}

static int pinned_to_fail;

void weft_mock_fail_pinned(int n)
{
	pinned_to_fail = n;
}

static int records_to_fail;
static cudaError_t record_error;

void weft_mock_fail_records(int n, int e)
{
	records_to_fail = n;
	record_error = e ? (cudaError_t)e : cudaErrorInvalidResourceHandle;
}

unsigned long weft_mock_waits(int waiter, int signaler)
{
	if (waiter < 0 || waiter >= MAX_STREAMS || signaler < 0 ||
	    signaler >= MAX_STREAMS)
		fail("weft_mock_waits: no such stream slot");
	return cross_waits[waiter][signaler];
}

void weft_mock_hold(int slot, int on)
{
	if (slot < 0 || slot >= MAX_STREAMS)
		fail("weft_mock_hold: no such stream slot");
	held[slot] = on;
}

int weft_mock_settle(int slot)
{
	int n = 0;

	while (run_one())
		;
	if (slot < 0 || slot >= MAX_STREAMS || !streams[slot])
		fail("weft_mock_settle: no such stream");
	for (const struct op *o = streams[slot]->head; o; o = o->next)
		n++;
	return n;
}

/* ---- the runtime API
 * ------------------------------------------------------------ */

cudaError_t cudaGetLastError(void)
{
	cudaError_t e = last_error;

	last_error = cudaSuccess;
	return e;
}

const char *cudaGetErrorName(cudaError_t e)
{
	switch (e) {
	case cudaSuccess: return "cudaSuccess";
	case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
	case cudaErrorNoDevice: return "cudaErrorNoDevice";
	case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
	case cudaErrorSymbolNotFound: return "cudaErrorSymbolNotFound";
	case cudaErrorNotReady: return "cudaErrorNotReady";
	case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
	default: return "cudaErrorUnknown";
	}
}

const char *cudaGetErrorString(cudaError_t e)
{
	return e == cudaSuccess			   ? "no error"
	       : e == cudaErrorInitializationError ? "initialization error"
						   : "mock error";
}

/* The process that started the mock CUDA: as with the real runtime, a
 * process fork()ed after its parent started CUDA cannot start it again. */
static pid_t started_in;

/* WEFT_MOCK_CUDA_DEVICES=-1: what a process fork()ed after its parent
 * started CUDA gets (and gets without it, as with the real runtime). */
cudaError_t cudaGetDeviceCount(int *n)
{
	if (started_in && started_in != getpid()) {
		*n = 0;
		return ret(cudaErrorInitializationError);
	}
	started_in = getpid();
	*n = (int)env_long("WEFT_MOCK_CUDA_DEVICES", 1);
	if (*n < 0) {
		*n = 0;
		return ret(cudaErrorInitializationError);
	}
	return *n ? cudaSuccess : ret(cudaErrorNoDevice);
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int device)
{
	long cc = env_long("WEFT_MOCK_CUDA_CC", 90);
	int n;

	if (cudaGetDeviceCount(&n) != cudaSuccess || device < 0 || device >= n)
		return ret(cudaErrorInvalidDevice);
	memset(p, 0, sizeof *p);
	snprintf(p->name, sizeof p->name, "Mock GPU %d", device);
	p->major = (int)(cc / 10);
	p->minor = (int)(cc % 10);
	p->multiProcessorCount = 4;
	p->totalGlobalMem = (size_t)env_long("WEFT_MOCK_CUDA_MEM", 256l << 20);
	return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *v)
{
	*v = 13000;
	return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
	int n;

	if (cudaGetDeviceCount(&n) != cudaSuccess || device < 0 || device >= n)
		return ret(cudaErrorInvalidDevice);
	return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *avail, size_t *total)
{
	*total = (size_t)env_long("WEFT_MOCK_CUDA_MEM", 256l << 20);
	*avail = *total - mem_used;
	return cudaSuccess;
}

cudaError_t cudaMalloc(void **p, size_t n)
{
	progress();
	return block_new(p, n, 0);
}

cudaError_t cudaFree(void *p)
{
	return block_free(p, 0);
}

cudaError_t cudaMallocHost(void **p, size_t n)
{
	if (pinned_to_fail > 0) {
		pinned_to_fail--;
		return cudaErrorMemoryAllocation;
	}
	return block_new(p, n, 1);
}

cudaError_t cudaFreeHost(void *p)
{
	return block_free(p, 1);
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags)
{
	if (flags != cudaStreamNonBlocking)
		fail("streams are non-blocking");
	for (int i = 0; i < MAX_STREAMS; i++)
		if (!streams[i]) {
			*s = streams[i] = xcalloc(1, sizeof **s);
			return cudaSuccess;
		}
	fail("too many streams");
	return cudaErrorUnknown;
}

cudaError_t cudaStreamDestroy(cudaStream_t s)
{
	for (int i = 0; i < MAX_STREAMS; i++)
		if (streams[i] == s) {
			if (s->head || s->capturing)
				fail("destroying a busy stream");
			free(s);
			streams[i] = NULL;
			held[i] = 0;
			memset(cross_waits[i], 0, sizeof cross_waits[i]);
			for (int w = 0; w < MAX_STREAMS; w++)
				cross_waits[w][i] = 0;
			return cudaSuccess;
		}
	fail("destroying an unknown stream");
	return cudaErrorUnknown;
}

static int stream_empty(const void *s)
{
	return ((const struct CUstream_st *)s)->head == NULL;
}

cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
	if (!known_stream(s) || s->capturing)
		fail("synchronising an unknown or capturing stream");
	run_until(stream_empty, s);
	return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags)
{
	(void)flags;
	*e = xcalloc(1, sizeof **e);
	return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t e)
{
	free(e);
	return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
	struct op *o;

	if (records_to_fail > 0) {
		records_to_fail--;
		return record_error;
	}
	o = new_op(OP_RECORD);

	if (!known_stream(s))
		fail("recording on an unknown stream");
	if (e->stream && e->stream != s)
		fail("an event recorded on two streams");
	e->stream = s;
	o->ev = e;
	o->id = e->last = next_id++;
	push(s, o);
	return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags)
{
	struct op *o = new_op(OP_WAIT);

	if (flags || !known_stream(s))
		fail("bad cudaStreamWaitEvent");
	o->ev = e;
	o->id = e->last;
	if (e->stream && e->stream != s)
		cross_waits[slot_of(s)][slot_of(e->stream)]++;
	push(s, o);
	return cudaSuccess;
}

static int event_done(const void *e)
{
	const struct CUevent_st *ev = e;

	return ev->done >= ev->last;
}

cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
	run_until(event_done, e);
	return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t e)
{
	progress();
	return event_done(e) ? cudaSuccess : cudaErrorNotReady;
}

/* The mock keeps no clock: two completed events are 1 us apart. */
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
	if (!event_done(a) || !event_done(b))
		return cudaErrorNotReady;
	*ms = 0.001f;
	return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n,
			    enum cudaMemcpyKind kind, cudaStream_t s)
{
	int to_dev = kind == cudaMemcpyHostToDevice ||
		     kind == cudaMemcpyDeviceToDevice;
	int from_dev = kind == cudaMemcpyDeviceToHost ||
		       kind == cudaMemcpyDeviceToDevice;
	int pageable_src = !from_dev && !find_block(src, n, 1);
	int pageable_dst = !to_dev && !find_block(dst, n, 1);
	struct op *o = new_op(OP_COPY);

	progress();
	if (!known_stream(s) || (to_dev && !find_block(dst, n, 0)) ||
	    (from_dev && !find_block(src, n, 0)))
		fail("a copy to or from memory that is not the device's");
	if ((const char *)dst < (const char *)src + n &&
	    (const char *)src < (const char *)dst + n && n)
		fail("cudaMemcpyAsync of overlapping ranges (undefined)");
	o->dst = dst;
	o->src = src;
	o->n = n;
	if (pageable_src) { /* the driver stages pageable bytes at once */
		o->owned = xcalloc(1, n);
		memcpy(o->owned, src, n);
	}
	push(s, o);
	if (pageable_dst) { /* and returns when a pageable read is done */
		struct CUevent_st ev = { s, next_id, 0 };
		struct op *r = new_op(OP_RECORD);

		r->ev = &ev;
		r->id = next_id++;
		push(s, r);
		run_until(event_done, &ev);
	}
	return cudaSuccess;
}

cudaError_t cudaLibraryLoadData(cudaLibrary_t *lib, const void *code,
				enum cudaJitOption *jo, void **jv, unsigned njo,
				enum cudaLibraryOption *lo, void **lv,
				unsigned nlo)
{
	(void)jo, (void)jv, (void)lo, (void)lv;
	if (memcmp(code, "\177ELF", 4) != 0 || njo || nlo)
		fail("cudaLibraryLoadData is given no CUBIN, or options");
	*lib = xcalloc_kept(sizeof **lib);
	(*lib)->alive = 1;
	return cudaSuccess;
}

cudaError_t cudaLibraryGetKernel(cudaKernel_t *k, cudaLibrary_t lib,
				 const char *name)
{
	const char *found;
	weft_host_kernel_fn fn;

	if (!registry_find(name, &found, &fn))
		return ret(cudaErrorSymbolNotFound);
	*k = xcalloc_kept(sizeof **k);
	(*k)->name = found;
	(*k)->fn = fn;
	(*k)->lib = lib;
	return cudaSuccess;
}

cudaError_t cudaLibraryUnload(cudaLibrary_t lib)
{
	if (pending())
		fail("unloading a library while work is queued");
	lib->alive = 0; /* kept: kernel handles point to it */
	return cudaSuccess;
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr,
				  const void *func)
{
	memset(attr, 0, sizeof *attr);
	attr->maxThreadsPerBlock = func ? 1024 : 0;
	return cudaSuccess;
}

cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block,
			     void **args, size_t shared, cudaStream_t s)
{
	struct op *o = new_op(OP_KERNEL);

	if (!known_stream(s) || shared || grid.z != 1 || block.y != 1 ||
	    block.z != 1)
		fail("a bad launch");
	o->k = (struct CUkern_st *)(uintptr_t)func;
	if (!o->k->lib->alive)
		fail("launching a kernel of an unloaded library");
	memcpy(&o->a, args[0], sizeof o->a);
	o->grid = grid.x;
	o->grid_y = grid.y;
	o->block = block.x;
	last_grid[0] = grid.x, last_grid[1] = grid.y;
	last_grid[2] = o->a.replicas;
	push(s, o);
	return cudaSuccess;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t s,
				   enum cudaStreamCaptureMode mode)
{
	if (!known_stream(s) || s->capturing ||
	    mode != cudaStreamCaptureModeThreadLocal)
		fail("a bad capture");
	s->capturing = 1;
	s->cap_head = s->cap_tail = NULL;
	return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *g)
{
	if (!s->capturing)
		fail("ending a capture that did not begin");
	s->capturing = 0;
	*g = xcalloc(1, sizeof **g);
	(*g)->ops = s->cap_head;
	s->cap_head = s->cap_tail = NULL;
	return cudaSuccess;
}

static struct op *copy_ops(const struct op *o)
{
	struct op *head = NULL, **tail = &head;

	for (; o; o = o->next) {
		*tail = xcalloc(1, sizeof **tail);
		**tail = *o;
		(*tail)->next = NULL;
		tail = &(*tail)->next;
	}
	return head;
}

static void free_ops(struct op *o)
{
	while (o) {
		struct op *next = o->next;

		free(o);
		o = next;
	}
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t g,
				 unsigned long long flags)
{
	if (flags || !g->ops)
		fail("instantiating an empty graph, or with flags");
	*exec = xcalloc(1, sizeof **exec);
	(*exec)->ops = copy_ops(g->ops);
	return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t g)
{
	free_ops(g->ops);
	free(g);
	return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec)
{
	free_ops(exec->ops); /* queued launches are copies */
	free(exec);
	return cudaSuccess;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t s)
{
	struct op *ops = copy_ops(exec->ops);

	if (!known_stream(s) || s->capturing)
		fail("a bad graph launch");
	while (ops) {
		struct op *next = ops->next;

		if (!ops->k->lib->alive)
			fail("a graph launches a kernel of an unloaded "
			     "library");
		push(s, ops);
		ops = next;
	}
	return cudaSuccess;
}
