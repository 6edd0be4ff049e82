/*
 * plugins/cuda/priv.h - what the CUDA backend's files share.
 *
 * The backend drives one NVIDIA GPU through the CUDA runtime, linked
 * statically (libcudart_static), so that the plugin loads on a machine
 * without a driver: the runtime looks for libcuda.so.1 at its first call
 * and reports cudaErrorInsufficientDriver or cudaErrorNoDevice, which the
 * probe turns into its reason. Kernels are the model's portable source,
 * compiled at load_program() by NVRTC (dlopen()ed, compile.c) after the
 * CUDA prelude of the dialect (prelude.c), cached on disk (cache.c) and
 * loaded with the runtime's library management (cudaLibraryLoadData).
 * What the first-party backends share (argument checks, messages,
 * counters, the memory pool, program names, the disk cache) is
 * plugins/common.
 *
 * One in-order queue over two streams: kernels and device-to-device
 * copies run on a compute stream, transfers to and from the host on a copy
 * stream. An operation is ordered after every earlier one it could
 * conflict with (plugin.c, "Ordering"): a copy-stream operation after the
 * compute stream's tail; a compute-stream operation after the copy
 * stream's tail only when one of its buffers has a copy-stream operation
 * that the compute stream is not yet ordered after (a write into it, or a
 * read from it the operation could overwrite). A snapshot read on the copy
 * stream thus overlaps the next steps, and the results are those of one
 * in-order queue.
 *
 * A device is used from one host thread at a time; every entry point makes
 * the device's ordinal current for the calling thread first (the runtime's
 * current device is per thread).
 *
 * Functions shared between files are named weft__cuda_* and hidden by
 * -fvisibility=hidden; the plugin exports only weft_backend_entry.
 */
#ifndef WEFT_CUDA_PRIV_H
#define WEFT_CUDA_PRIV_H

#include <cuda_runtime_api.h>
#include <nvrtc.h>
#include <stddef.h>
#include <stdint.h>
#include <weft/backend.h>

#include "../common/cache.h"
#include "../common/check.h"
#include "../common/error.h"
#include "../common/pool.h"
#include "../common/program.h"
#include "../common/stats.h"

/* Threads per block of every launch; the prelude's __launch_bounds__ is
 * generated from it (prelude.c). */
#define WEFT__CUDA_BLOCK 256
/* Most blocks per multiprocessor a launch gets; larger extents are covered
 * by the kernels' grid-stride loop. */
#define WEFT__CUDA_BLOCKS_PER_SM 32
/* Steps captured in the unrolled graph that step(n) replays n / UNROLL
 * times (launch.c); the remaining n % UNROLL steps replay a one-step
 * graph. */
#define WEFT__CUDA_GRAPH_UNROLL 8
/* Smallest pinned staging block (transfer.c). */
#define WEFT__CUDA_STAGE_MIN ((size_t)64 * 1024)
/* Fences kept by token (plugin.c); waiting on an older one waits on the
 * fence that took its place, FENCES tokens later. */
#define WEFT__CUDA_FENCES 16

/* The two streams: every operation goes to one of them. */
enum { WEFT__CUDA_COMPUTE = 0, WEFT__CUDA_COPY = 1, WEFT__CUDA_STREAMS = 2 };

/* A device allocation: live or pooled (plugins/common/pool.h; the device
 * memory is given back only at close or when cudaMalloc fails). */
struct weft_buf {
	struct weft__pool_buf pb;
	void *ptr; /* device memory, 256-byte aligned */
	/* The last copy-stream operations on the block, by their number on
	 * that stream (0: none); kept when the block is pooled and reused,
	 * since queued work may still touch it. */
	uint64_t copy_wrote; /* a host-to-device write into it */
	uint64_t copy_read;  /* a device-to-host read from it */
};

/* The single kernel parameter, passed by value. The prelude (prelude.c)
 * declares the same layout in CUDA C++: 12 buffer pointers, then the
 * device-side extent: xcap items, or min(xcap, xbuf[xoff]) when xdyn;
 * then the replicas (step_replicas(); step() runs 1 with strides 0):
 * replica r sees buffer k at b[k] + r * stride[k] bytes and its count at
 * xbuf[xoff + r * xstride]. No padding, so that records compare with
 * memcmp. */
struct weft__cuda_args {
	void *b[WEFT_KERNEL_MAX_BUFS];
	const uint32_t *xbuf;
	uint32_t xoff; /* index of the count in xbuf, in 32-bit words */
	uint32_t xcap;
	uint32_t xdyn;
	uint32_t replicas;		       /* at least 1 */
	uint64_t stride[WEFT_KERNEL_MAX_BUFS]; /* bytes per replica */
	uint64_t xstride; /* the count's, in 32-bit words */
};
/* The prelude's copy must match: tests/plugins/test-cuda-nvrtc.c compiles the
 * same assertions on the device side. */
_Static_assert(sizeof(struct weft__cuda_args) == 224 &&
		       offsetof(struct weft__cuda_args, xbuf) == 96 &&
		       offsetof(struct weft__cuda_args, xoff) == 104 &&
		       offsetof(struct weft__cuda_args, replicas) == 116 &&
		       offsetof(struct weft__cuda_args, stride) == 120 &&
		       offsetof(struct weft__cuda_args, xstride) == 216,
	       "struct weft__cuda_args has the prelude's layout");
/* The most block rows of a grid (gridDim.y): more replicas than this are
 * run by the rows in turn (prelude.c). */
#define WEFT__CUDA_MAX_GRID_Y 65535u

/* One launch of a step, resolved to what the GPU is given. Records are
 * compared with memcmp to decide whether a captured graph still applies,
 * so every byte of them is written. */
struct weft__cuda_rec {
	cudaKernel_t fn;
	uint32_t grid;	 /* blocks per replica row; 0: nothing to run */
	uint32_t grid_y; /* replica rows, at least 1 */
	struct weft__cuda_args a;
};

/* The graphs of the last launch list a program was stepped with. */
struct weft__cuda_graph {
	struct weft__cuda_rec *recs; /* the list they were captured from */
	uint32_t n_recs;
	cudaGraphExec_t one;  /* one step */
	cudaGraphExec_t many; /* WEFT__CUDA_GRAPH_UNROLL steps, made when
			       * first needed */
};

/* A loaded program: its names (plugins/common/program.h), the library
 * its CUBIN was loaded as, a kernel handle per kernel, and its graphs. */
struct weft_program {
	struct weft__prog pg;
	cudaLibrary_t lib;
	struct weft__cuda_graph graph;
	cudaKernel_t fns[]; /* pg.n_kernels */
};

/* A pinned host block for one asynchronous transfer (transfer.c). */
struct weft__cuda_stage {
	void *host;	  /* cudaMallocHost memory */
	size_t cap;	  /* its size */
	cudaEvent_t done; /* recorded after the transfer that uses it */
	void *dst;	  /* reads: where sync() copies the bytes */
	size_t bytes;	  /* bytes of the transfer */
	int is_read;	  /* 1: read, delivered at sync() or wait() */
	int recorded;	  /* done was recorded after this transfer (else
			   * it still shows an earlier one) */
	uint64_t op;	  /* its number on the copy stream */
	struct weft__cuda_stage *next;
};

/* A fence: an event at the tail of each stream, and how many operations
 * each stream had been given then. */
struct weft__cuda_fence {
	uint64_t token;
	cudaEvent_t ev[2]; /* ev[s] is only ever recorded on stream s */
	uint64_t ops[2];
	int live; /* recorded and not yet waited for */
};

/* NVRTC, dlopen()ed at the first load_program() (compile.c). */
typedef nvrtcResult (*weft__nvrtc_create_fn)(nvrtcProgram *, const char *,
					     const char *, int,
					     const char *const *,
					     const char *const *);
typedef nvrtcResult (*weft__nvrtc_compile_fn)(nvrtcProgram, int,
					      const char *const *);
typedef nvrtcResult (*weft__nvrtc_destroy_fn)(nvrtcProgram *);
typedef nvrtcResult (*weft__nvrtc_size_fn)(nvrtcProgram, size_t *);
typedef nvrtcResult (*weft__nvrtc_get_fn)(nvrtcProgram, char *);
typedef nvrtcResult (*weft__nvrtc_version_fn)(int *, int *);
typedef const char *(*weft__nvrtc_error_fn)(nvrtcResult);

struct weft__cuda_nvrtc {
	void *dl;	  /* NULL while not loaded */
	char path[160];	  /* the name it was loaded as */
	int major, minor; /* nvrtcVersion() */
	weft__nvrtc_create_fn create;
	weft__nvrtc_compile_fn compile;
	weft__nvrtc_destroy_fn destroy;
	weft__nvrtc_size_fn log_size;
	weft__nvrtc_get_fn log;
	weft__nvrtc_size_fn cubin_size;
	weft__nvrtc_get_fn cubin;
	weft__nvrtc_version_fn version;
	weft__nvrtc_error_fn error_string;
};

struct weft_device {
	int ordinal;
	char name[256];
	int cc_major, cc_minor;
	int sm_count;
	int driver_version;
	char where[320]; /* "device 0 (NAME, sm_90)", for messages */
	cudaStream_t stream[WEFT__CUDA_STREAMS];
	cudaEvent_t tail[WEFT__CUDA_STREAMS]; /* recorded for stream waits */
	/* Ordering (plugin.c): ops[s] numbers the operations issued on
	 * stream s; stream s is ordered after operations 1..after[s] of the
	 * other stream (it waited on their tail, or the host saw them
	 * complete). */
	uint64_t ops[WEFT__CUDA_STREAMS];
	uint64_t after[WEFT__CUDA_STREAMS];
	cudaEvent_t xfer_done[WEFT__CUDA_STREAMS]; /* blocking transfers wait
						    * on the one of their
						    * stream */
	struct weft__cuda_fence fences[WEFT__CUDA_FENCES]; /* by token */
	uint64_t last_fence;				   /* 0: none yet */
	uint64_t done_fence; /* fences up to this one have completed */
	int use_graphs;	     /* WEFT_CUDA_GRAPHS != "0" */
	char *cache_dir;     /* NULL: no on-disk cache */
	struct weft__cuda_nvrtc nvrtc;
	weft__pool pool; /* live buffers and freed blocks */
	void *scratch;	 /* device memory for overlapping copies */
	size_t scratch_size;
	struct weft__cuda_stage *stage_free;		   /* idle blocks */
	struct weft__cuda_stage *inflight, *inflight_tail; /* issue order */
	struct weft__prog *programs;
	/* WEFT_DEVICE_PROFILE: every launch runs between two timing events,
	 * kept in `timing` (launch.c) until harvested; graphs are off. */
	int profile;
	weft__kring timing;
	weft_stats st;
};

/* Write "cuda: ..." into err (which may be NULL); returns st. */
#define weft__cuda_fail(err, st, ...) \
	weft__errf("cuda", (err), (st), __VA_ARGS__)

/* ---- plugin.c ------------------------------------------------------------ */

/* WEFT_OK when e is cudaSuccess; otherwise clears the runtime's last error
 * and writes "cuda: WHAT on DEVICE: cudaErrorX: text", returning
 * WEFT_E_NOMEM for allocation failures and WEFT_E_DEVICE otherwise. */
weft_status weft__cuda_check(const weft_device *dev, cudaError_t e,
			     weft_error *err, const char *fmt, ...)
	WEFT_PRINTF(4, 5);
/* Make the device current for the calling thread. */
weft_status weft__cuda_enter(const weft_device *dev, weft_error *err);
/* Before issuing on the copy stream: order it after everything issued on
 * the compute stream (an event wait, only when there is work it is not yet
 * ordered after), and number the operation (*op, for the buffers it
 * touches and staging blocks). */
weft_status weft__cuda_order_copy(weft_device *dev, uint64_t *op,
				  weft_error *err);
/* Whether an operation on the compute stream that reads b, and also writes
 * it when `writes`, must wait for the copy stream: b has a copy-stream
 * write, or (when writes) read, that the compute stream is not ordered
 * after yet. */
int weft__cuda_hazard(const weft_device *dev, const weft_buf *b, int writes);
/* Before issuing on the compute stream: order it after everything issued
 * on the copy stream when `wait` (some buffer had a hazard), and count the
 * operation. */
weft_status weft__cuda_order_compute(weft_device *dev, int wait,
				     weft_error *err);
/* The host saw every operation issued on stream s complete (a blocking
 * transfer's own event): neither stream need wait for them. */
void weft__cuda_seen(weft_device *dev, int s);
/* Wait for both streams (not counted). */
weft_status weft__cuda_drain(weft_device *dev, weft_error *err);

/* ---- device.c ------------------------------------------------------------ */

/* What probe() reports: every device, the usable ones (compute capability
 * high enough), or why CUDA cannot run. */
void weft__cuda_survey(int *available, int *score, char *reason,
		       size_t reason_size, char *devices, size_t devices_size);
/* The ordinal of the device cfg asks for (an index or, with ABI 1.1, a
 * name); a message naming what was asked and what exists when there is
 * none. */
weft_status weft__cuda_select(const weft_device_config *cfg, int *ordinal,
			      weft_error *err);
/* Name, compute capability, multiprocessors and driver version of
 * dev->ordinal, and dev->where for messages; refuses a device older than
 * the kernels are built for. */
weft_status weft__cuda_describe(weft_device *dev, weft_error *err);
/* caps() (ABI 1.5): every capability (device.c). */
weft_status weft__cuda_caps(weft_device *dev, weft_device_caps *out,
			    weft_error *err);

/* ---- memory.c ------------------------------------------------------------ */

/* An empty pool for a device being opened. */
void weft__cuda_memory_init(weft_device *dev);
weft_status weft__cuda_alloc(weft_device *dev, size_t bytes, weft_buf **out,
			     weft_error *err);
void weft__cuda_free(weft_device *dev, weft_buf *buf);
/* native(): the buffer's device pointer (ABI 1.2). */
weft_status weft__cuda_mem_info(weft_device *dev, weft_mem_info *out,
				weft_error *err);
weft_status weft__cuda_native(weft_device *dev, weft_buf *buf, weft_native *out,
			      weft_error *err);
/* Device memory for the staging of an overlapping copy (at least bytes). */
weft_status weft__cuda_scratch(weft_device *dev, size_t bytes, void **out,
			       weft_error *err);
/* Release every buffer, live or pooled, and the scratch memory (close). */
void weft__cuda_memory_release(weft_device *dev);

/* ---- transfer.c ---------------------------------------------------------- */

weft_status weft__cuda_write(weft_device *dev, weft_buf *dst, size_t offset,
			     const void *src, size_t bytes, unsigned flags,
			     weft_error *err);
weft_status weft__cuda_read(weft_device *dev, void *dst, weft_buf *src,
			    size_t offset, size_t bytes, unsigned flags,
			    weft_error *err);
weft_status weft__cuda_copy(weft_device *dev, weft_buf *dst, size_t dst_offset,
			    weft_buf *src, size_t src_offset, size_t bytes,
			    unsigned flags, weft_error *err);
/* After both streams were synchronised: deliver pending reads in issue
 * order and return every staging block to the free list. */
void weft__cuda_stage_complete(weft_device *dev, int deliver);
/* After copy-stream operations 1..op completed: deliver the pending reads
 * among them in issue order, and free their staging blocks. */
void weft__cuda_stage_complete_to(weft_device *dev, uint64_t op);
/* Free every staging block (close; the streams are idle). */
void weft__cuda_stage_release(weft_device *dev);

/* ---- launch.c ------------------------------------------------------------ */

weft_status weft__cuda_load_program(weft_device *dev,
				    const weft_program_desc *desc,
				    weft_program **out, weft_error *err);
void weft__cuda_unload_program(weft_device *dev, weft_program *prog);
weft_status weft__cuda_step(weft_device *dev, weft_program *prog,
			    const weft_launch *launches, uint32_t n_launches,
			    uint64_t n_steps, weft_error *err);
weft_status weft__cuda_step_replicas(weft_device *dev, weft_program *prog,
				     const weft_launch *launches,
				     const weft_replica_layout *layouts,
				     uint32_t n_launches, uint32_t replicas,
				     uint64_t n_steps, weft_error *err);
/* Unload every program still loaded (close). */
void weft__cuda_programs_release(weft_device *dev);
/* Per-kernel timing (WEFT_DEVICE_PROFILE): room for the launches' events
 * (open; nothing without profiling), harvest the completed ones (never
 * waits: sync(), wait(), kernel_stats()), release them all (close, once
 * the device is idle). */
weft_status weft__cuda_timing_open(weft_device *dev, weft_error *err);
void weft__cuda_timing_harvest(weft_device *dev);
void weft__cuda_timing_close(weft_device *dev);
/* kernel_stats() (ABI 1.5). */
weft_status weft__cuda_kernel_stats(weft_device *dev, weft_program *prog,
				    weft_kernel_stat *out, uint32_t n,
				    weft_error *err);

/* ---- prelude.c ----------------------------------------------------------- */

/* The CUDA C++ definition of the kernel dialect, and its length. */
extern const char weft__cuda_prelude[];
extern const size_t weft__cuda_prelude_len;

/* ---- compile.c: no CUDA runtime calls (tests link it alone) -------------- */

/* Most NVRTC options weft__cuda_options() returns. */
#define WEFT__CUDA_MAX_OPTS 12
/* The options for a device of compute capability major.minor; arch holds
 * the --gpu-architecture option, which opts[] points into. */
int weft__cuda_options(int cc_major, int cc_minor, char arch[32],
		       const char *opts[WEFT__CUDA_MAX_OPTS]);
/* The prelude, a #line directive naming the program, and the source:
 * what NVRTC compiles. malloc()ed and NUL-terminated; NULL when out of
 * memory. */
char *weft__cuda_program_text(const char *name, const char *source, size_t len,
			      size_t *text_len);
/* dlopen() NVRTC: the soname of the runtime's major version first, then
 * other sonames and the toolkit's library directory. */
weft_status weft__cuda_nvrtc_open(struct weft__cuda_nvrtc *nv, weft_error *err);
void weft__cuda_nvrtc_close(struct weft__cuda_nvrtc *nv);
/* Compile text (from weft__cuda_program_text) into a CUBIN for
 * sm_<cc_major><cc_minor>; where names the device in messages. The CUBIN
 * is malloc()ed. */
weft_status weft__cuda_compile(const struct weft__cuda_nvrtc *nv,
			       const char *prog_name, const char *text,
			       int cc_major, int cc_minor, const char *where,
			       void **cubin, size_t *cubin_size,
			       weft_error *err);

/* ---- cache.c: no CUDA runtime calls -------------------------------------- */

/* Compiled CUBINs on disk, CACHE_DIR/cuda-KEY.cubin (plugins/common/cache.h;
 * failures are never errors: a miss compiles). */
typedef weft__cache_key weft__cuda_key;

/* What a cached CUBIN depends on. */
typedef struct weft__cuda_key_in {
	const char *text; /* prelude + source */
	size_t text_len;
	const char *const *opts;
	int n_opts;
	int nvrtc_major, nvrtc_minor;
	const char *device_name;
	int cc_major, cc_minor;
	int driver_version;
} weft__cuda_key_in;

/* 0 when the key was computed. */
int weft__cuda_cache_key(const weft__cuda_key_in *in, weft__cuda_key *key);
/* The cached CUBIN for key in dir (malloc()ed), or NULL when there is
 * none or it is damaged (short, wrong header, wrong checksum). */
void *weft__cuda_cache_load(const char *dir, const weft__cuda_key *key,
			    size_t *size);
/* Store a CUBIN: create dir (mode 0700, parents included) when missing,
 * write a temporary file in it and rename it into place. Returns 0 on
 * success, -1 otherwise; callers ignore failures (a cache never fails a
 * run). */
int weft__cuda_cache_store(const char *dir, const weft__cuda_key *key,
			   const void *cubin, size_t size);

/* plugin.c: the shared argument checks (plugins/common/check.h). */
extern const weft__chk_ops weft__cuda_chk;

#endif /* WEFT_CUDA_PRIV_H */
