/*
 * plugins/common/stats.h - the counters every first-party backend keeps
 * (weft_stats, counted the same way everywhere), the clock of their
 * per-phase times, and the two replies bounded by the caller's
 * struct_size: stats() and probe().
 */
#ifndef WEFT_PLUGIN_STATS_H
#define WEFT_PLUGIN_STATS_H

#include <stdint.h>
#include <time.h>
#include <weft/backend.h>

#include "program.h"

/* Monotonic clock in nanoseconds, for the per-phase times. */
static inline uint64_t weft__clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A transfer of bytes in direction dir, issued at t0 (weft__clock_ns()):
 * counted, its bytes added, its time added to the transfer phase. */
void weft__stats_xfer(weft_stats *st, enum weft_dir dir, size_t bytes,
		      uint64_t t0);

/* step(): n_steps steps of n_launches launches each, issued since t0;
 * the time goes to the kernel phase. */
void weft__stats_step(weft_stats *st, uint64_t n_steps, uint32_t n_launches,
		      uint64_t t0);

/* stats(): copy a backend's counters st (NULL: no device) into out, as far
 * as the caller's out->struct_size reaches (and st's size), leaving
 * out->struct_size as it was. WEFT_E_INVALID when st or out is NULL. */
weft_status weft__stats_copy(weft_stats *out, const weft_stats *st);

/* probe(): hand the answer p to the caller's out, as far as its
 * (possibly older) layout reaches; p->struct_size becomes the caller's. */
void weft__probe_copy(weft_probe *out, weft_probe *p);
/* mem_info()'s answer into out, only what out->struct_size covers (at
 * least the 1.3 layout: weft__chk_mem_info checked it). */
void weft__mem_info_copy(weft_mem_info *out, const weft_mem_info *mi);
/* A device whose buffers are host memory: host = 1, total the machine's
 * physical memory, free left to the core (MemAvailable). */
void weft__mem_info_host(weft_mem_info *mi);

/* ---- per-kernel counters (kernel_stats(), ABI 1.5) ----------------------
 *
 * A program's counters are pg->kstat (program.h), zero when it is loaded.
 * Launches are counted when they are issued; a backend that runs work
 * later times a launch through handles of its runtime (an OpenCL event, a
 * pair of CUDA events) kept in a bounded ring until the launch is known
 * complete, and harvested, oldest first, where the backend may look
 * without waiting (sync(), wait(), kernel_stats()). */

/* Count n_steps runs of the launch list launches[0..n) (validated). */
void weft__kstats_count(struct weft__prog *pg, const weft_launch *launches,
			uint32_t n, uint64_t n_steps);
/* One timed launch of kernel k that took ns. */
static inline void weft__kstats_time(struct weft__prog *pg, uint32_t k,
				     uint64_t ns)
{
	pg->kstat[k].time_ns += ns;
	pg->kstat[k].timed++;
}
/* kernel_stats(): pg's counters into out[0..n), once dev, pg and out are
 * there and n is pg's kernel count; a message "BACKEND: ..." otherwise. */
weft_status weft__kstats_get(const char *backend, const void *dev,
			     const struct weft__prog *pg, weft_kernel_stat *out,
			     uint32_t n, weft_error *err);

/* How a backend asks about the handles of a timed launch: done() gives 1
 * and the launch's device time in *ns when it has completed (never
 * waiting), 0 while it has not, -1 when it cannot tell (the launch stays
 * untimed); release() frees the handles. ctx is the backend's device. */
typedef struct weft__ktimer {
	int (*done)(void *ctx, void *a, void *b, uint64_t *ns);
	void (*release)(void *ctx, void *a, void *b);
	void *ctx;
} weft__ktimer;

/* A launch being timed: its program (NULL once that was unloaded), its
 * kernel and its handles. */
struct weft__kpending {
	struct weft__prog *pg;
	uint32_t kernel;
	void *a, *b;
};

/* The launches being timed, oldest first, at most cap of them. */
typedef struct weft__kring {
	struct weft__kpending *e;
	size_t cap, head, n;
} weft__kring;

/* Room for cap launches; -1 when out of host memory. */
int weft__kring_init(weft__kring *r, size_t cap);
/* Release every handle kept, then the ring. */
void weft__kring_free(weft__kring *r, const weft__ktimer *t);
static inline int weft__kring_full(const weft__kring *r)
{
	return r->n == r->cap;
}
/* Keep a launch of kernel k of pg (the ring is not full). */
void weft__kring_push(weft__kring *r, struct weft__prog *pg, uint32_t k,
		      void *a, void *b);
/* Add the time of the completed launches, oldest first, up to the first
 * one not complete (one in-order queue: the later ones are not either),
 * and release them. Never waits. */
void weft__kring_harvest(weft__kring *r, const weft__ktimer *t);
/* pg is being unloaded: release its launches' handles (their time is
 * lost with its counters). */
void weft__kring_forget(weft__kring *r, const weft__ktimer *t,
			const struct weft__prog *pg);

#endif /* WEFT_PLUGIN_STATS_H */
