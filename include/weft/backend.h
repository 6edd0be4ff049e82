/*
 * weft/backend.h - the plugin ABI: everything a backend author needs, and
 * nothing an application needs. The types a backend shares with models
 * (buffers, programs, launches) are in weft/program.h, included here; a
 * harness that loads a backend plugin itself (the conformance suite, a
 * backend author's own tests) does it through weft/harness.h.
 *
 * A backend is a shared object named weft-backend-NAME.so that exports one
 * data symbol, WEFT_BACKEND_ENTRY_SYMBOL, of type `const weft_backend`.
 * The loader reads abi_major, abi_minor and struct_size from it and refuses
 * the plugin before calling any of its functions when they do not match.
 *
 * Rules every backend follows (`weft conform PLUGIN` checks them, and
 * every model's results against the OpenMP backend's;
 * docs/conformance.md):
 *  - every function returns a weft_status and, on failure, writes a message
 *    naming what failed (device, bytes, kernel) into the weft_error it was
 *    given; it never prints, exits or aborts;
 *  - operations on one device are executed in the order they were issued
 *    (one in-order queue); WEFT_XFER_ASYNC transfers may complete later but
 *    are observed in issue order after sync();
 *  - step() enqueues work and never waits for the device;
 *  - lifetimes and host memory, for a backend that runs work later (see
 *    "Lifetime and ordering" below);
 *  - fence() marks a point in the queue and never waits; wait() on its
 *    token returns once everything issued before the fence (asynchronous
 *    reads included, their host memory filled) has completed, without
 *    waiting for what was issued after it (ABI 1.1, optional);
 *  - native() says where a buffer's bytes live (host address, CUDA device
 *    pointer, cl_mem), never waits and never changes (ABI 1.2, optional);
 *  - mem_info() says how much memory the device has and has free, or that
 *    its memory is the host's (ABI 1.3, optional);
 *  - step_replicas() runs R replicas of each launch of a list as one
 *    launch, replica r's buffers starting r strides into the launch's
 *    buffers (ABI 1.4, optional; batched replicas of a model);
 *  - caps() says what the device computes exactly (hardware double,
 *    correctly rounded f32 division and square root, subnormals, 64-bit
 *    atomics), so that the core refuses a program that needs more, with
 *    the reason (ABI 1.5, optional);
 *  - kernel_stats() gives launches and time per kernel of a program (ABI
 *    1.5, optional; timed only when the device was opened with
 *    WEFT_DEVICE_PROFILE);
 *  - a backend contains no model-specific code: it runs whatever program
 *    a model hands it (portable source for run-time compilers, host
 *    function pointers for host backends).
 *
 * Lifetime and ordering. A backend may run the work it is given later, on
 * a queue (a driver's, or a thread of its own), as long as the results are
 * those of running each operation, in issue order, when it was issued.
 * What a caller may do meanwhile, and what it may count on (`weft conform`
 * groups lifetime and ordering; docs/writing-a-backend.md explains each):
 *  1. What a call is given is the caller's again when it returns: the
 *     launch array of step(), the configuration of open(), the descriptor
 *     of load_program() and the strings and kernel table it points to. A
 *     backend that runs work later copies what it needs. The exceptions
 *     are the host memory of WEFT_XFER_ASYNC transfers (5, 6) and the
 *     kernels' host builds (host_fn), which stay callable until the device
 *     is closed.
 *  2. free() and unload_program() may be called while queued work still
 *     uses the buffer or the program (a launch binding the buffer or
 *     reading its count, a transfer or copy from or into it, a launch of
 *     the program). That work completes as if they had been called after
 *     it: the backend keeps the memory and the kernels until then, or
 *     waits. When the memory goes to a later alloc(), the old work's
 *     accesses come before every operation on the new buffer (one
 *     in-order queue gives this; a backend with two queues must order
 *     them, as the CUDA backend does).
 *  3. close() may be called with work queued: everything issued completes
 *     before anything is released. Asynchronous reads that no sync() or
 *     wait() delivered may be delivered or dropped; no host memory is
 *     written after close() returns.
 *  4. A blocking transfer (flags 0) of one byte or more returns once it has
 *     completed after everything issued before it: a blocking read gives
 *     the bytes every earlier launch and transfer left; later operations
 *     see a blocking write or copy. (A 0-byte transfer moves nothing and
 *     need not wait. The host memory of earlier asynchronous reads is
 *     filled at sync() or wait(), not by a blocking transfer.)
 *  5. The host memory an asynchronous write reads from may be read by the
 *     backend until sync(), wait() on a fence issued after the write, or a
 *     later blocking transfer has returned; the caller leaves it unchanged
 *     until then, and may reuse it at once afterwards.
 *  6. The host memory an asynchronous read fills is filled when sync(), or
 *     wait() on a fence issued after the read, returns; the caller neither
 *     reads nor writes it until then, and the backend does not write it
 *     afterwards.
 *
 * The ABI grows only by appending fields; the minor version counts appends.
 */
#ifndef WEFT_BACKEND_H
#define WEFT_BACKEND_H

#include <weft/common.h>
#include <weft/program.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WEFT_BACKEND_ABI_MAJOR	  1
#define WEFT_BACKEND_ABI_MINOR	  5
#define WEFT_BACKEND_ENTRY_SYMBOL "weft_backend_entry"

/* Export the entry of a plugin; everything else in a plugin is static:
 *   WEFT_BACKEND_ENTRY = { .abi_major = WEFT_BACKEND_ABI_MAJOR, ... };  */
#define WEFT_BACKEND_ENTRY                                               \
	WEFT_EXPORT extern const struct weft_backend weft_backend_entry; \
	const struct weft_backend weft_backend_entry

/* An opened device, the backend's own. Buffers (weft_buf), programs
 * (weft_program), their descriptors and launches are in weft/program.h,
 * which models share. */
typedef struct weft_device weft_device;

/* Result of probe(): must have no side effects beyond looking. */
typedef struct weft_probe {
	uint32_t struct_size; /* set by the caller */
	int available;	      /* 1 when open() can be expected to succeed */
	int score;	      /* 0..1000, higher is preferred by `auto` */
	char reason[256];     /* why not available (empty when available) */
	char devices[256];    /* what was seen, e.g. "2 CPU threads" */
} weft_probe;

/* What the [backend] section asks for. */
typedef struct weft_device_config {
	uint32_t struct_size;
	int device;	       /* device index, -1 for the backend's default */
	int threads;	       /* host threads, 0 for the backend's default */
	const char *cache_dir; /* directory for compiled kernels, created by
				* the backend when missing; NULL: no cache */
	/* ABI 1.1 (read only when struct_size covers them): */
	const char *device_match; /* case-insensitive substring of the device
				   * name when the device is chosen by name
				   * (device is then -1); NULL otherwise */
	const char *platform;	  /* [backend] platform as written: an index
				   * or a name substring; NULL or "" for the
				   * default. Backends without platforms
				   * refuse anything else */
	/* ABI 1.5 (read only when struct_size covers it): */
	uint32_t flags; /* WEFT_DEVICE_* */
} weft_device_config;

/* weft_device_config.flags (ABI 1.5). */
/* Time each kernel (kernel_stats()): may cost a little per launch, so it
 * is asked for only by --stats and profiling callers. */
#define WEFT_DEVICE_PROFILE 0x1u

/* ---- capabilities (ABI 1.5) -------------------------------------------- */

/* What caps() reports: how the device computes, so that a program's needs
 * (weft_program_desc.needs, the same WEFT_CAP_* bits, which weft-wk
 * derives from the kernel source) are checked before it is loaded.
 * A backend without caps() is taken to offer WEFT_CAP_F32_EXACT and
 * WEFT_CAP_SUBNORMAL only: what the dialect asked of every backend, and
 * the conformance suite checked, before caps(). */
#define WEFT_CAP_F64                                      \
	0x1u /* hardware binary64: + - * / sqrt correctly \
	      * rounded, never contracted (weft_f64,      \
	      * WEFT_HAS_F64 1 in its prelude) */
#define WEFT_CAP_F32_EXACT                               \
	0x2u /* binary32 + - * / sqrt correctly rounded, \
	      * never contracted into fused multiply-add */
#define WEFT_CAP_SUBNORMAL                                           \
	0x4u		       /* subnormal f32 and f64 operands and \
				* results kept, not flushed to zero */
#define WEFT_CAP_ATOMIC64 0x8u /* weft_atomic_add_u64 */

typedef struct weft_device_caps {
	uint32_t struct_size; /* set by the caller */
	uint32_t caps;	      /* WEFT_CAP_* the device has */
	/* One line per missing capability worth explaining, e.g. "no
	 * cl_khr_fp64 (CL_DEVICE_DOUBLE_FP_CONFIG is 0)"; "" when none. */
	char detail[256];
} weft_device_caps;

/* ---- per-kernel counters (ABI 1.5) ------------------------------------- */

typedef struct weft_kernel_stat {
	uint64_t launches; /* launches of this kernel executed or enqueued
			    * (a step_replicas() launch counts once) */
	uint64_t time_ns;  /* device time of the completed ones; 0 unless the
			    * device was opened with WEFT_DEVICE_PROFILE */
	uint64_t timed;	   /* launches whose time is in time_ns: those that
			    * completed and were timed (a backend that
			    * bounds what it keeps to time launches may
			    * leave some untimed); 0 without profiling */
} weft_kernel_stat;

/* What mem_info() reports (ABI 1.3): the device's memory, so that the core
 * can refuse a run that does not fit before the model allocates anything
 * (docs/memory.md). Grows by appending; fill only what
 * struct_size covers. */
typedef struct weft_mem_info {
	uint32_t struct_size; /* set by the caller */
	int host;	      /* 1: buffers are host memory (a CPU device), and
			       * the core checks them against the host's
			       * MemAvailable together with the model's host
			       * bytes; the byte counts below may be 0 */
	uint64_t total_bytes; /* the device's memory, 0 when unknown */
	uint64_t free_bytes;  /* free for new buffers now: what the driver
			       * says, or the total less what this device
			       * holds when it cannot say; 0 when unknown */
} weft_mem_info;

/* ---- replicas (ABI 1.4) ------------------------------------------------ */

/* How the replicas of one launch of step_replicas() find their memory.
 * Replica r (0 <= r < replicas) of a launch runs the launch's kernel with
 * bound buffer k starting at byte r * stride[k] of bufs[k] (stride 0: all
 * replicas see the whole buffer, unshifted), and, when the launch has an
 * extent_buf, its item count is
 *
 *     min(extent, *(uint32_t *)(extent_buf + extent_offset
 *                               + r * extent_stride))
 *
 * read when the launch executes. Strides are multiples of 64 (a replica's
 * part keeps the alignment a buffer has), extent_stride a multiple of 4;
 * r * stride[k] stays inside bufs[k] for every r < replicas, and so does
 * the last replica's count word. */
typedef struct weft_replica_layout {
	uint64_t stride[WEFT_KERNEL_MAX_BUFS]; /* bytes per replica, by slot */
	uint64_t extent_stride;		       /* bytes per replica */
} weft_replica_layout;

/* ---- transfers -------------------------------------------------------- */

/* WEFT_XFER_ASYNC (weft/common.h): return before completion; see sync()
 * and wait(), and rules 4 to 6 above for the host memory involved. */

/* ---- the vtable --------------------------------------------------------- */

typedef struct weft_backend {
	/* Header, identical in every ABI version. */
	uint32_t
		abi_major; /* WEFT_BACKEND_ABI_MAJOR the plugin was built for */
	uint32_t
		abi_minor; /* WEFT_BACKEND_ABI_MINOR the plugin was built for */
	uint32_t struct_size; /* sizeof(weft_backend) the plugin was built with
			       */
	const char *name;     /* must equal NAME in weft-backend-NAME.so */
	const char *version;  /* the plugin's own version string */
	const char *description;

	weft_status (*probe)(weft_probe *out);
	weft_status (*open)(const weft_device_config *cfg, weft_device **out,
			    weft_error *err);
	/* Completes what was issued, then releases everything (rule 3). */
	void (*close)(weft_device *dev);

	/* bytes may be 0 (a valid, distinct handle). Buffers are aligned to at
	 * least 64 bytes. free(NULL) does nothing; free() may be called while
	 * queued work uses the buffer, which then completes as if it had not
	 * been (rule 2 above). free() is counted (frees, bytes_in_use) when it
	 * is called, once; a buffer freed twice is ignored the second time,
	 * and not counted. */
	weft_status (*alloc)(weft_device *dev, size_t bytes, weft_buf **out,
			     weft_error *err);
	void (*free)(weft_device *dev, weft_buf *buf);

	weft_status (*write)(weft_device *dev, weft_buf *dst, size_t offset,
			     const void *src, size_t bytes, unsigned flags,
			     weft_error *err);
	weft_status (*read)(weft_device *dev, void *dst, weft_buf *src,
			    size_t offset, size_t bytes, unsigned flags,
			    weft_error *err);
	weft_status (*copy)(weft_device *dev, weft_buf *dst, size_t dst_offset,
			    weft_buf *src, size_t src_offset, size_t bytes,
			    unsigned flags, weft_error *err);

	/* desc and what it points to may be freed when this returns. */
	weft_status (*load_program)(weft_device *dev,
				    const weft_program_desc *desc,
				    weft_program **out, weft_error *err);
	/* May be called while launches of prog are queued; they complete
	 * with its kernels (rule 2 above). */
	void (*unload_program)(weft_device *dev, weft_program *prog);

	/* Enqueue n_steps repetitions of the launch list, in order. Never
	 * waits for the device. The caller may change or free the launch
	 * array as soon as this returns (rule 1 above). */
	weft_status (*step)(weft_device *dev, weft_program *prog,
			    const weft_launch *launches, uint32_t n_launches,
			    uint64_t n_steps, weft_error *err);
	/* Wait until everything issued so far has completed; the host memory
	 * of every asynchronous read issued so far is filled. */
	weft_status (*sync)(weft_device *dev, weft_error *err);
	weft_status (*stats)(weft_device *dev, weft_stats *out);

	/* ABI 1.1, optional (the core checks struct_size and NULL, and uses
	 * sync() without them): fences, so that the host can wait for part
	 * of the queue while later work runs.
	 *
	 * Mark the point after everything issued so far and return its token
	 * in *token. Never waits for the device. Tokens increase by at least
	 * 1 from one fence to the next (the first is at least 1). */
	weft_status (*fence)(weft_device *dev, uint64_t *token,
			     weft_error *err);
	/* Return when everything issued before the fence `token` has
	 * completed: its launches and transfers, and the asynchronous reads
	 * issued before it, whose host memory is then filled (in issue
	 * order). Does not wait for work issued after the fence, nor require
	 * that it has not run. Waiting on a token twice, or on one older than
	 * a token already waited for, returns at once. A token no fence has
	 * returned yet is WEFT_E_INVALID, with a message. Counted in
	 * fence_waits, not in syncs. */
	weft_status (*wait)(weft_device *dev, uint64_t token, weft_error *err);

	/* ABI 1.2, optional (the core checks struct_size and NULL, and
	 * reports that the backend does not expose native buffers without
	 * it): the buffer's memory in the terms of the runtime that holds it
	 * (weft_native, weft/common.h), for handing to another library
	 * without a copy. out->struct_size is set by the caller (at least
	 * WEFT_NATIVE_V1_2_SIZE); fill only what it covers, and leave it.
	 * The same buffer gives the same answer at every call, until it is
	 * freed. Never waits, transfers or counts anything.
	 *
	 * The memory holds what the queue's operations wrote once they have
	 * completed: after sync(), or wait() on a fence issued after them.
	 * Whoever uses it must be done with it (reads and writes complete)
	 * before the next operation that touches the buffer is issued, and
	 * writes made through it are seen by operations issued after that. */
	weft_status (*native)(weft_device *dev, weft_buf *buf, weft_native *out,
			      weft_error *err);

	/* ABI 1.3, optional (the core checks struct_size and NULL, and
	 * checks the model's estimate against the device only when it is
	 * there): the device's memory (weft_mem_info). out->struct_size is
	 * set by the caller; fill only what it covers, and leave it. Never
	 * waits, transfers or counts anything. */
	weft_status (*mem_info)(weft_device *dev, weft_mem_info *out,
				weft_error *err);

	/* ABI 1.4, optional (the core checks struct_size and NULL; without
	 * it, a model's replicas run one after another, not batched):
	 * batched replicas. Enqueue n_steps repetitions of the launch list,
	 * in order, where launch i runs `replicas` times as one launch of
	 * its kernel: replica r binds its buffers and reads its count as
	 * layouts[i] says (weft_replica_layout above). The replicas of one
	 * launch are independent (they may run in any order, or at once),
	 * and all of them complete before launch i + 1 starts, as launches
	 * do in step(). With replicas = 1 it is step(). The whole list is
	 * validated before anything is enqueued (strides, bounds, counts):
	 * a bad list fails with nothing run. Counted as step() counts: one
	 * launch per launch of the list, whatever `replicas`. Never waits;
	 * the caller may change or free both arrays when it returns. */
	weft_status (*step_replicas)(weft_device *dev, weft_program *prog,
				     const weft_launch *launches,
				     const weft_replica_layout *layouts,
				     uint32_t n_launches, uint32_t replicas,
				     uint64_t n_steps, weft_error *err);

	/* ABI 1.5, optional (the core checks struct_size and NULL; without
	 * caps(), a device is taken to have WEFT_CAP_F32_EXACT and
	 * WEFT_CAP_SUBNORMAL only, and a program that needs more is refused;
	 * without kernel_stats(), --stats shows no per-kernel lines).
	 *
	 * What the device computes exactly (weft_device_caps). out->struct_size
	 * is set by the caller; fill only what it covers. Never waits. */
	weft_status (*caps)(weft_device *dev, weft_device_caps *out,
			    weft_error *err);
	/* Counters of prog's kernels since it was loaded, out[k] for kernel k
	 * of its descriptor, n = its n_kernels. Time covers launches that have
	 * completed: a caller that wants all of it calls sync() first. Never
	 * waits. */
	weft_status (*kernel_stats)(weft_device *dev, weft_program *prog,
				    weft_kernel_stat *out, uint32_t n,
				    weft_error *err);
} weft_backend;

/* Sizes of the first published layouts. A struct with a struct_size field
 * may grow by appending; readers accept anything at least this large and
 * use only the fields that fit (never compare with sizeof of their own
 * header, which may be newer than the other side's). */
#define WEFT_DEVICE_CONFIG_V1_0_SIZE \
	(offsetof(weft_device_config, cache_dir) + sizeof(const char *))
#define WEFT_DEVICE_CONFIG_V1_1_SIZE \
	(offsetof(weft_device_config, platform) + sizeof(const char *))
/* Size of the first published vtable: the loader refuses anything smaller. */
#define WEFT_BACKEND_V1_0_SIZE \
	(offsetof(weft_backend, stats) + sizeof(void (*)(void)))
/* The 1.1 vtable, with fence() and wait(): a caller uses them only when
 * struct_size is at least this and both are non-NULL. */
#define WEFT_BACKEND_V1_1_SIZE \
	(offsetof(weft_backend, wait) + sizeof(void (*)(void)))
/* The 1.2 vtable, with native(): a caller uses it only when struct_size is
 * at least this and it is non-NULL. */
#define WEFT_BACKEND_V1_2_SIZE \
	(offsetof(weft_backend, native) + sizeof(void (*)(void)))

/* The 1.3 vtable, with mem_info(): a caller uses it only when struct_size
 * is at least this and it is non-NULL. */
#define WEFT_BACKEND_V1_3_SIZE \
	(offsetof(weft_backend, mem_info) + sizeof(void (*)(void)))
/* The 1.4 vtable, with step_replicas(): a caller uses it only when
 * struct_size is at least this and it is non-NULL. */
#define WEFT_BACKEND_V1_4_SIZE \
	(offsetof(weft_backend, step_replicas) + sizeof(void (*)(void)))
/* The 1.5 vtable, with caps() and kernel_stats(): a caller uses each only
 * when struct_size is at least this and it is non-NULL. */
#define WEFT_BACKEND_V1_5_SIZE \
	(offsetof(weft_backend, kernel_stats) + sizeof(void (*)(void)))
/* The 1.5 device configuration, with flags. */
#define WEFT_DEVICE_CONFIG_V1_5_SIZE \
	(offsetof(weft_device_config, flags) + sizeof(uint32_t))
/* The first published layout of weft_mem_info. */
#define WEFT_MEM_INFO_V1_3_SIZE \
	(offsetof(weft_mem_info, free_bytes) + sizeof(uint64_t))

#ifdef __cplusplus
}
#endif

#endif /* WEFT_BACKEND_H */
