/*
 * plugins/openmp/priv.h - what the OpenMP backend's files share.
 *
 * The backend runs on the host: device memory is host memory, and every
 * operation (transfer or kernel launch) is executed eagerly, in the calling
 * thread, when it is issued. That satisfies the one in-order queue of
 * weft/backend.h trivially, makes WEFT_XFER_ASYNC mean the same as a
 * blocking transfer and leaves sync() nothing to wait for.
 *
 * A device is used from one host thread at a time; OpenMP threads are
 * started only inside a transfer or a launch and have finished when it
 * returns, so the counters need no locking.
 *
 * This backend is also the example third-party backends follow: it includes
 * only <weft/backend.h>, system headers, <omp.h> and what the first-party
 * backends share in plugins/common (argument checks, messages, counters,
 * the memory pool, program names). Functions shared between its files are
 * named weft__omp_* and hidden by -fvisibility=hidden; the plugin exports
 * only weft_backend_entry.
 */
#ifndef WEFT_OPENMP_PRIV_H
#define WEFT_OPENMP_PRIV_H

#include <stddef.h>
#include <stdint.h>
#include <weft/backend.h>

#include "../common/check.h"
#include "../common/error.h"
#include "../common/pool.h"
#include "../common/program.h"
#include "../common/stats.h"

/* Buffer alignment: a cache line, and what backend.h promises. */
#define WEFT__OMP_ALIGN 64

/* A device allocation: host memory, pooled (plugins/common/pool.h). */
struct weft_buf {
	struct weft__pool_buf pb; /* size, size class, live or pooled */
	void *ptr;		  /* WEFT__OMP_ALIGN-aligned host memory */
};

/* A loaded program: its names (plugins/common/program.h) and the host
 * build of each kernel. */
struct weft_program {
	struct weft__prog pg;
	weft_host_kernel_fn fns[]; /* pg.n_kernels */
};

/* How many of the device's threads parallel regions use now (team.c):
 * the cores other processes leave free, measured every 100 ms. */
struct weft__omp_team {
	int adapt; /* 0: always the device's threads (OMP_DYNAMIC=false) */
	int size;  /* threads a region uses now */
	int cpus;  /* CPUs this process may run on */
	uint64_t wall_ns, own_ns, busy_ns; /* the last measurement's start:
					    * clock, this process's CPU time,
					    * the machine's busy time */
};

/* One launch of the plan below: its kernel, its arguments resolved (the
 * buffers' host memory), its extent and where its count word is. */
struct weft__omp_item {
	weft_host_kernel_fn fn;
	const char *count; /* the count word, NULL for the extent alone */
	uint32_t extent;
	uint32_t kernel;
	weft_kargs ka;
};

/* A launch list step() checked, with its launches resolved: a later
 * step() with the same program, the same bytes of launches and no buffer
 * allocated or freed since (the generation) runs the items without
 * checking and resolving every launch again. */
struct weft__omp_plan {
	const weft_program *prog;
	uint64_t gen;	   /* the device's buf_gen when it was made */
	uint32_t n;	   /* launches (0: an empty entry) */
	uint32_t cap;	   /* launches copy and items hold */
	weft_launch *copy; /* the launches as checked */
	struct weft__omp_item *items;
};

/* Plans kept: a run steps one list, an environment two or three (reset,
 * step, their lists) in turn. */
#define WEFT__OMP_PLANS 4

struct weft_device {
	int threads; /* OpenMP threads per parallel region, at most */
	struct weft__omp_team team;
	uint64_t host_bytes; /* physical memory, the allocation limit */
	weft__pool pool;     /* live buffers and freed blocks */
	struct weft__prog *programs;
	uint64_t fences; /* token of the last fence() (0: none yet) */
	int profile;	 /* WEFT_DEVICE_PROFILE: time each launch */
	weft_stats st;
	uint64_t buf_gen; /* bumped by every alloc, free and program unload */
	struct weft__omp_plan plans[WEFT__OMP_PLANS];
	unsigned plan_next; /* the entry the next new plan replaces */
};

/* Write "openmp: ..." into err (which may be NULL); returns st. */
#define weft__omp_fail(err, st, ...) \
	weft__errf("openmp", (err), (st), __VA_ARGS__)

/* memory.c */
/* An empty pool for a device being opened. */
void weft__omp_memory_init(weft_device *dev);
weft_status weft__omp_alloc(weft_device *dev, size_t bytes, weft_buf **out,
			    weft_error *err);
void weft__omp_free(weft_device *dev, weft_buf *buf);
/* native(): the buffer's host memory (ABI 1.2). */
weft_status weft__omp_native(weft_device *dev, weft_buf *buf, weft_native *out,
			     weft_error *err);
/* Release every buffer, live or pooled (close). */
void weft__omp_memory_release(weft_device *dev);

/* transfer.c */
weft_status weft__omp_write(weft_device *dev, weft_buf *dst, size_t offset,
			    const void *src, size_t bytes, unsigned flags,
			    weft_error *err);
weft_status weft__omp_read(weft_device *dev, void *dst, weft_buf *src,
			   size_t offset, size_t bytes, unsigned flags,
			   weft_error *err);
weft_status weft__omp_copy(weft_device *dev, weft_buf *dst, size_t dst_offset,
			   weft_buf *src, size_t src_offset, size_t bytes,
			   unsigned flags, weft_error *err);

/* launch.c */
weft_status weft__omp_load_program(weft_device *dev,
				   const weft_program_desc *desc,
				   weft_program **out, weft_error *err);
void weft__omp_unload_program(weft_device *dev, weft_program *prog);
weft_status weft__omp_step(weft_device *dev, weft_program *prog,
			   const weft_launch *launches, uint32_t n_launches,
			   uint64_t n_steps, weft_error *err);
weft_status weft__omp_step_replicas(weft_device *dev, weft_program *prog,
				    const weft_launch *launches,
				    const weft_replica_layout *layouts,
				    uint32_t n_launches, uint32_t replicas,
				    uint64_t n_steps, weft_error *err);
/* Unload every program still loaded (close), and drop the plans. */
void weft__omp_programs_release(weft_device *dev);
/* kernel_stats() (ABI 1.5): launches always, host time of each launch
 * when the device was opened with WEFT_DEVICE_PROFILE. */
weft_status weft__omp_kernel_stats(weft_device *dev, weft_program *prog,
				   weft_kernel_stat *out, uint32_t n,
				   weft_error *err);

/* team.c */
/* Decide whether the team adapts to the machine's load, and its first
 * size (open). */
void weft__omp_team_init(weft_device *dev);
/* Threads for a parallel region now (1 .. dev->threads). */
int weft__omp_team(weft_device *dev);

/* plugin.c: the shared argument checks (plugins/common/check.h). */
extern const weft__chk_ops weft__omp_chk;

#endif /* WEFT_OPENMP_PRIV_H */
