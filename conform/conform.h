/*
 * conform/conform.h - what the conformance suite's files share.
 *
 *   driver.c    the driver: options, groups, one fork()ed child per group,
 *               its pipe, timeouts, and the TAP it prints
 *   harness.c   what runs in a child: the protocol lines it writes,
 *               loading the plugin, opening the device, and vtable calls
 *               that record why a test fails
 *   basics.c    groups entry, probe, open, invalid-args, oversize
 *   memory.c    groups alloc, align, transfer, async-order
 *   launch.c    groups guard (past the extent, and past the end of an
 *               allocation into its neighbours), step, device-extent,
 *               counters
 *   fence.c     group fence: fence() and wait(), when present
 *   native.c    group native: native(), when present
 *   replicas.c  group replicas: step_replicas(), when present, against
 *               step() per replica; bad layouts; counters
 *   busy.c      busy work queued ahead of the operation a lifetime or
 *               ordering test is about, and tries repeated until the
 *               operation surely overlapped it
 *   lifetime.c  group lifetime: what may be released under queued work
 *   ordering.c  group ordering: what blocking transfers and waits promise
 *   kstats.c    group kernel-stats: kernel_stats(), when present, on a
 *               plain and a profiling device
 *   blocks.c    group blocks: weft/blocks.wk's blocks against a C
 *               reference
 *   floats.c    group floats: f32 and f64 arithmetic, square roots,
 *               conversions and bit casts against the host builds
 *   math.c      group math: weft/math.h's functions (conform/math.wk)
 *               against their host build, bit for bit
 *   rng.h       the random inputs of blocks.c, floats.c and math.c
 *               (splitmix64)
 *   models.c    group models: every model, candidate against the
 *               reference, by state digest, and checkpointed on the
 *               reference and resumed on the candidate; or one model
 *               plugin run on every backend (weft_conform_options.model)
 *   conform.wk  the suite's kernels; weft-wk makes cf_kernels.c and
 *               cf_kernels.h from it in the build tree (the host builds,
 *               the source text, the program descriptor cf_program and
 *               the launch helpers)
 *   shared.h    what the kernels and the host code share (the guard
 *               words, the extent control block)
 *   weft_conform.h  the suite's entry, for the weft command
 *
 * The suite is a client of libweft's public headers only: weft/weft.h for
 * runs, weft/harness.h for loading plugins as a run would
 * (weft_backend_plugin_open, weft_model_plugin_open), weft/backend.h for
 * a backend plugin's table, weft/model.h for a model plugin's table
 * (models.c).
 *
 * A child writes one line per event to the driver (a pipe, or a temporary
 * file when groups are not isolated); the driver numbers the results:
 *   S text    a test (or phase) started: named if the child dies now
 *   O text    ok
 *   N text    not ok
 *   D text    diagnostic of the result before
 *   E         the group ran to its end
 * and, from the load step only:
 *   P name\tversion\tpath   the plugin loaded and is available
 *   L message               it could not be loaded
 *   X name\treason          it loaded, and its probe says unavailable
 */
#ifndef WEFT_CONFORM_H
#define WEFT_CONFORM_H

#include <stdint.h>
#include <stdio.h>
#include <weft/backend.h>
#include <weft/harness.h>
#include <weft/weft.h>

#include "weft_conform.h"

#include "cf_kernels.h"
#include "shared.h"

/* harness.c: one buffer the suite allocated and has not freed (its view of
 * allocations, checked at each alloc and after each test). */
typedef struct weft__ct_rec {
	weft_buf *buf;
	weft_device *dev; /* the device it was allocated on */
	size_t bytes;
	uint32_t id;	      /* #id: the group's id-th allocation, from 1 */
	uint32_t guard_n;     /* a guarded buffer of guard_n words (the guards
			       * are checked after each test); 0: not, or no
			       * longer, checked */
	int has_range;	      /* native() gave an address range: */
	uint32_t kind;	      /* its weft_native_kind, */
	int32_t ndev;	      /* device, */
	const void *space;    /* the cl_mem (OpenCL), NULL for addresses */
	uintptr_t begin, end; /* and [begin, end) in that space */
	char where[96];	      /* the test under way when it was allocated */
} weft__ct_rec;

/* Buffers the suite tracks at once; more are allocated untracked. */
#define CT_MAX_RECS 512

/* State of one group's child. */
typedef struct weft__ct {
	const weft_conform_options *opt;
	const char *group;   /* name of the group under way */
	const char *scratch; /* temporary directory owned by the driver */
	FILE *out;	     /* protocol lines for the driver */
	weft_context *ctx;
	weft_backend_plugin *plugin; /* the candidate, loaded */
	char name[128];		     /* NAME of its weft-backend-NAME.so */
	const weft_backend *vt;
	weft_device *dev;
	weft_program *prog;
	weft_error err;
	char desc[512]; /* "group: promise" of the test under way */
	char why[1024]; /* first reason it fails; "" while it passes */
	int n_failed;
	/* busy.c: the busy work queued ahead of an operation under test */
	weft_buf *busy_param, *busy_out; /* cf_spin's rounds, its result */
	uint32_t busy_iters;		 /* rounds lasting busy_ns; 0: not yet
					  * calibrated */
	uint32_t busy_param_n;		 /* rounds busy_param holds */
	uint64_t busy_ns;		 /* the shortest of three timed runs */
	uint64_t busy_t0;		 /* when the last busy step() began */
	int busy_at_issue;	/* that step() ran the work before returning */
	int busy_runs_at_issue; /* calibration: three runs ran at issue */
	int busy_failed;	/* its calibration failed (reported once) */
	int busy_try;		/* weft__ct_overlap()'s try: busy work << try */
	int busy_missed;	/* an operation came after the busy work could
				 * have completed */
	/* harness.c: the live buffers weft__ct_alloc() gave (unordered) */
	weft__ct_rec recs[CT_MAX_RECS];
	uint32_t n_recs;
	uint32_t n_allocs; /* allocations so far: the next #id - 1 */
} weft__ct;

/* What a group needs opened before it runs. */
enum { WEFT__CT_DEVICE = 1, WEFT__CT_PROGRAM = 2 };

typedef struct weft__ct_group {
	const char *name;
	const char *summary;
	int needs;
	void (*run)(weft__ct *t);
} weft__ct_group;

/* Longest message the suite keeps. */
#define CT_MSG_MAX 2048

/* ---- harness.c: helpers ----------------------------------------------------
 */

/* Bounded formatting into a fixed buffer; always NUL-terminates. */
void weft__ct_fmt(char *buf, size_t size, const char *fmt, ...)
	WEFT_PRINTF(3, 4);
/* Monotonic clock in nanoseconds. */
uint64_t weft__ct_now_ns(void);
/* NAME of .../weft-backend-NAME.so (or of the file, without ".so"). */
void weft__ct_name_of_path(const char *path, char *name, size_t size);

/* ---- harness.c: protocol
 * ----------------------------------------------------- */

/* Name what is under way, for the driver's message if the child dies. */
void weft__ct_phase(weft__ct *t, const char *fmt, ...) WEFT_PRINTF(2, 3);
/* Start the test "GROUP: promise". */
void weft__ct_begin(weft__ct *t, const char *fmt, ...) WEFT_PRINTF(2, 3);
/* Fail the current test with a reason unless cond (the first reason is
 * kept); returns cond. */
int weft__ct_expect(weft__ct *t, int cond, const char *fmt, ...)
	WEFT_PRINTF(3, 4);
/* Report the current test: ok unless a reason was recorded. Returns 1
 * when it passed. */
int weft__ct_end(weft__ct *t);
/* For setup steps: report the current test only when it failed. Returns
 * 1 when it passed. */
int weft__ct_end_quiet(weft__ct *t);
/* Report the current test as skipped. */
void weft__ct_skip(weft__ct *t, const char *fmt, ...) WEFT_PRINTF(2, 3);
/* A diagnostic line, printed after the next result. */
void weft__ct_diag(weft__ct *t, const char *fmt, ...) WEFT_PRINTF(2, 3);
/* Write one protocol line: kind, then text (newlines made spaces). */
void weft__ct_line(FILE *out, char kind, const char *text);

/* ---- harness.c: the plugin and its device ------------------------ */

/* Load opt->plugin as the driver's load step does; on failure the
 * context's message says why and *unavailable tells a probe's "no" (the
 * reason in why) from a plugin that cannot be loaded. */
weft_status weft__ct_load(weft__ct *t, int *unavailable, char *why,
			  size_t why_size);
void weft__ct_unload(weft__ct *t);
/* The device configuration the options ask for. */
void weft__ct_device_config(const weft__ct *t, weft_device_config *dc,
			    char *cache, size_t cache_size);
/* Open a device as the options ask (NULL on failure, reason recorded). */
weft_device *weft__ct_open(weft__ct *t);
/* Load the suite's program on t->dev (NULL on failure, reason recorded). */
weft_program *weft__ct_program(weft__ct *t);

/* ---- harness.c: vtable calls on t->dev --------------------------- */
/* Each records the backend's message as the reason the current test fails,
 * and returns 0 on success, -1 on failure (NULL for alloc). */

/* alloc() records the buffer in the suite's view of allocations, after
 * checking (before anything is written to it) that its handle is no live
 * buffer's and, where native() gives addresses, that its memory overlaps
 * no live buffer's; free() forgets it. */
weft_buf *weft__ct_alloc(weft__ct *t, size_t bytes);
void weft__ct_free(weft__ct *t, weft_buf *b);
/* Forget every buffer of dev, then close it (a device closed while it
 * holds buffers the suite allocated must be closed through this). */
void weft__ct_close_device(weft__ct *t, weft_device *dev);
/* The suite's record of b on t->dev (NULL when untracked). */
const weft__ct_rec *weft__ct_rec_of(const weft__ct *t, const weft_buf *b);
int weft__ct_write(weft__ct *t, weft_buf *b, size_t off, const void *src,
		   size_t bytes, unsigned flags);
int weft__ct_read(weft__ct *t, void *dst, weft_buf *b, size_t off, size_t bytes,
		  unsigned flags);
int weft__ct_copy(weft__ct *t, weft_buf *dst, size_t dst_off, weft_buf *src,
		  size_t src_off, size_t bytes, unsigned flags);
int weft__ct_sync(weft__ct *t);
int weft__ct_step(weft__ct *t, const weft_launch *l, uint32_t n,
		  uint64_t n_steps);
int weft__ct_stats(weft__ct *t, weft_stats *s);
/* The vtable has fence() and wait() (ABI 1.1, both non-NULL). */
int weft__ct_has_fences(const weft__ct *t);
int weft__ct_fence(weft__ct *t, uint64_t *token);
int weft__ct_wait(weft__ct *t, uint64_t token);
/* The vtable has native() (ABI 1.2, non-NULL); native() of b into *out
 * (its struct_size set to the whole struct). */
int weft__ct_has_native(const weft__ct *t);
int weft__ct_native(weft__ct *t, weft_buf *b, weft_native *out);
/* The vtable has step_replicas() (ABI 1.4, non-NULL); a call of it. */
int weft__ct_has_replicas(const weft__ct *t);
int weft__ct_step_replicas(weft__ct *t, const weft_launch *l,
			   const weft_replica_layout *layouts, uint32_t n,
			   uint32_t replicas, uint64_t n_steps);

/* A launch of kernel over extent items, binding b0 (and b1 unless NULL). */
weft_launch weft__ct_launch(uint32_t kernel, uint32_t extent, weft_buf *b0,
			    weft_buf *b1);

/* A buffer of CF_GUARD + n + CF_GUARD words: guards hold their pattern,
 * the n words `fill`. While it lives, its guard words are read back after
 * every test (weft__ct_end, _end_quiet, _skip): a guard that changed
 * fails that test, naming the buffer, the offset and the bytes. A write
 * or copy through the harness that puts other bytes over them ends the
 * checks of that buffer. */
weft_buf *weft__ct_guarded(weft__ct *t, uint32_t n, uint32_t fill);
/* Download a guarded buffer of n words; check every guard word (recording
 * the first one overwritten) and copy the n words to data (may be NULL).
 * Returns 0 when every guard holds. */
int weft__ct_guards(weft__ct *t, weft_buf *b, uint32_t n, uint32_t *data);
/* Guard word k (0 .. 2 * CF_GUARD - 1) of every guarded buffer. */
uint32_t weft__ct_guard_word(uint32_t k);
/* A guarded buffer of n words holding base + i in word i (blocking
 * transfers). */
weft_buf *weft__ct_counting(weft__ct *t, uint32_t n, uint32_t base);
/* got[i] == base + mul * i for i < n (modulo 2^32), or the first word
 * that differs is recorded as the reason, named by what. Returns 1 when
 * all hold. */
int weft__ct_words_affine(weft__ct *t, const uint32_t *got, uint32_t n,
			  uint32_t base, uint32_t mul, const char *what);
/* The guarded buffer b of n words (read blocking) keeps its guards and
 * holds base + mul * i in word i. Returns 1 when it does. */
int weft__ct_holds(weft__ct *t, weft_buf *b, uint32_t n, uint32_t base,
		   uint32_t mul, const char *what);

/* Counters that a refused call must not change differ between a and b:
 * records which (prefixed with what) and returns 1. */
int weft__ct_counters_moved(weft__ct *t, const weft_stats *a,
			    const weft_stats *b, const char *what);

void *weft__ct_xmalloc(weft__ct *t, size_t bytes);
/* Fill p with bytes depending on seed. */
void weft__ct_pattern(void *p, size_t n, unsigned seed);
/* The first byte where a and b differ, or n. */
size_t weft__ct_first_diff(const unsigned char *a, const unsigned char *b,
			   size_t n);

/* ---- busy.c: overlapping queued work ------------------------------------ */

/* Tries of weft__ct_overlap(): the busy work doubles at each. */
#define WEFT__CT_BUSY_TRIES 4

/* Queue the busy work (calibrated at the first call; the failure is
 * recorded). Returns 0 when it was queued. */
int weft__ct_busy(weft__ct *t);
/* Call right after issuing the operation under test (or after it
 * returned, for a call that must never wait): returns 1 when it surely
 * overlapped the busy work, else marks the try as missed. */
int weft__ct_busy_check(weft__ct *t);
/* Run try_fn (which calls weft__ct_busy() and weft__ct_busy_check()) until
 * a try overlapped its busy work or failed; with the busy work doubled at
 * each try, at most 4 tries, after which the test fails. */
void weft__ct_overlap(weft__ct *t, void (*try_fn)(weft__ct *t, void *arg),
		      void *arg);
/* One test "GROUP: promise" whose tries are try_fn (weft__ct_overlap()). */
void weft__ct_overlap_test(weft__ct *t, const char *promise,
			   void (*try_fn)(weft__ct *t, void *arg), void *arg);

/* A call that must never wait, made right after busy work was queued: when
 * it was made and when it returned, by the wall clock and by its thread's
 * CPU time. */
typedef struct weft__ct_timed {
	uint64_t t0, c0; /* made */
	uint64_t t1, c1; /* returned */
} weft__ct_timed;

/* Right before the call. */
void weft__ct_nowait_begin(weft__ct_timed *c);
/* Right after it returned: 1 when it surely returned without waiting for
 * the busy work (or the backend runs work at issue). Else the try is
 * missed, and on the last try the test fails with "CALL took N ms (M ms of
 * it on its thread's CPU), right after busy work of D ms was queued, on
 * the last of 4 tries with the busy work doubled: it waited for the queue
 * (RULE)". */
int weft__ct_nowait_end(weft__ct *t, weft__ct_timed *c, const char *call,
			const char *rule);
/* Free the busy work's buffers (before the program and device go). */
void weft__ct_busy_release(weft__ct *t);

/* ---- the groups ---------------------------------------------------------- */

void weft__ct_group_entry(weft__ct *t);
void weft__ct_group_probe(weft__ct *t);
void weft__ct_group_open(weft__ct *t);
void weft__ct_group_alloc(weft__ct *t);
void weft__ct_group_align(weft__ct *t);
void weft__ct_group_transfer(weft__ct *t);
void weft__ct_group_async(weft__ct *t);
void weft__ct_group_invalid(weft__ct *t);
void weft__ct_group_oversize(weft__ct *t);
void weft__ct_group_guard(weft__ct *t);
void weft__ct_group_step(weft__ct *t);
void weft__ct_group_extent(weft__ct *t);
void weft__ct_group_counters(weft__ct *t);
void weft__ct_group_fence(weft__ct *t);
void weft__ct_group_native(weft__ct *t);
void weft__ct_group_replicas(weft__ct *t);
void weft__ct_group_lifetime(weft__ct *t);
void weft__ct_group_ordering(weft__ct *t);
void weft__ct_group_kstats(weft__ct *t);
void weft__ct_group_blocks(weft__ct *t);
void weft__ct_group_floats(weft__ct *t);
void weft__ct_group_math(weft__ct *t);
void weft__ct_group_models(weft__ct *t);

#endif /* WEFT_CONFORM_H */
