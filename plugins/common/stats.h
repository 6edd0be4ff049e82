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

#endif /* WEFT_PLUGIN_STATS_H */
