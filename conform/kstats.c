/*
 * conform/kstats.c - conformance group kernel-stats: the optional
 * kernel_stats() of ABI 1.5 (weft/backend.h), a program's counters per
 * kernel.
 *
 * On a device opened without WEFT_DEVICE_PROFILE: a program just loaded
 * counts nothing; after step() and step_replicas() each kernel's launches
 * are exactly those issued (a replicated launch counts once), with no
 * time; loading the program again starts from zero; a count that is not
 * the program's number of kernels is refused with a message. On a device
 * opened with WEFT_DEVICE_PROFILE: once sync() has returned, every launch
 * that ran is timed and each kernel's time is above zero.
 *
 * The group opens its own devices (one plain, one profiling), so it needs
 * nothing opened by the driver.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "conform.h"

/* Items per launch: enough work for a timer to see. */
#define KS_N 4096u

/* The vtable has kernel_stats() (ABI 1.5, non-NULL). */
static int has_kstats(const weft__ct *t)
{
	return t->vt->struct_size >= WEFT_BACKEND_V1_5_SIZE &&
	       t->vt->kernel_stats;
}

/* Open a device as the options ask, with these flags, and load the
 * suite's program on it: t->dev and t->prog, or a reason recorded. */
static int ks_open(weft__ct *t, uint32_t flags)
{
	weft_device_config dc;
	char cache[PATH_MAX];
	weft_status st;

	weft__ct_device_config(t, &dc, cache, sizeof cache);
	dc.flags = flags;
	st = t->vt->open(&dc, &t->dev, &t->err);
	if (st != WEFT_OK || !t->dev) {
		t->dev = NULL;
		weft__ct_expect(t, 0, "open(flags 0x%x) returned %s: %s",
				(unsigned)flags, weft_status_str(st),
				t->err.msg);
		return -1;
	}
	t->prog = weft__ct_program(t);
	return t->prog ? 0 : -1;
}

static void ks_close(weft__ct *t)
{
	if (t->prog)
		t->vt->unload_program(t->dev, t->prog);
	if (t->dev)
		t->vt->close(t->dev);
	t->prog = NULL;
	t->dev = NULL;
}

/* kernel_stats() of t->prog into ks (cf_program's kernel count); -1 with
 * the reason recorded when it fails. */
static int ks_get(weft__ct *t, weft_kernel_stat *ks)
{
	weft_status st;

	memset(ks, 0xEE, cf_program.n_kernels * sizeof *ks);
	t->err.msg[0] = '\0';
	st = t->vt->kernel_stats(t->dev, t->prog, ks, cf_program.n_kernels,
				 &t->err);
	if (st == WEFT_OK)
		return 0;
	weft__ct_expect(t, 0, "kernel_stats() returned %s: %s",
			weft_status_str(st),
			t->err.msg[0] ? t->err.msg : "(no message)");
	return -1;
}

/* Kernel k counted `launches` launches, and, untimed, no time. */
static void expect_count(weft__ct *t, const weft_kernel_stat *ks, uint32_t k,
			 uint64_t launches, int timed)
{
	const char *name = cf_program.kernels[k].name;

	weft__ct_expect(t, ks[k].launches == launches,
			"kernel %s: %llu launches counted, %llu issued", name,
			(unsigned long long)ks[k].launches,
			(unsigned long long)launches);
	if (!timed)
		weft__ct_expect(t, ks[k].time_ns == 0 && ks[k].timed == 0,
				"kernel %s: time %llu ns over %llu launches "
				"on a device opened without "
				"WEFT_DEVICE_PROFILE",
				name, (unsigned long long)ks[k].time_ns,
				(unsigned long long)ks[k].timed);
}

/* Every kernel but the ones named by `issued` (launches per kernel) has
 * counted nothing. */
static void expect_counts(weft__ct *t, const weft_kernel_stat *ks,
			  const uint64_t *issued)
{
	for (uint32_t k = 0; k < cf_program.n_kernels; k++)
		expect_count(t, ks, k, issued[k], 0);
}

/* N = 7 steps of {inc, bump, inc} and M = 5 steps of {mad} (one of them
 * of extent 0): exactly 14 inc, 7 bump, 5 mad. */
static void ks_counts(weft__ct *t, weft_buf *x, weft_buf *y, weft_buf *ctl,
		      weft_kernel_stat *ks, uint64_t *issued)
{
	weft_launch a[3] = { weft__ct_launch(CF_K_INC, 100, x, NULL),
			     weft__ct_launch(CF_K_BUMP, 100, x, NULL),
			     weft__ct_launch(CF_K_INC, 100, x, NULL) };
	weft_launch b[2] = { weft__ct_launch(CF_K_MAD, 100, y, x),
			     weft__ct_launch(CF_K_MAD, 0, y, x) };

	a[1].extent_buf = ctl;
	a[1].extent_offset = CF_CTL_COUNT * 4;
	weft__ct_begin(t, "after 7 steps of {inc, bump, inc} "
			  "and 4 + 1 launches of mad (one of extent 0), "
			  "launches are 14, 7 and 5, untimed");
	if (!weft__ct_step(t, a, 3, 7) && !weft__ct_step(t, b, 1, 4) &&
	    !weft__ct_step(t, &b[1], 1, 1) && !ks_get(t, ks)) {
		issued[CF_K_INC] += 14;
		issued[CF_K_BUMP] += 7;
		issued[CF_K_MAD] += 5;
		expect_counts(t, ks, issued);
	}
	weft__ct_end(t);
}

/* step_replicas() of {inc} for 3 replicas, 4 steps: 4 launches. */
static void ks_replicas(weft__ct *t, weft_buf *z, weft_kernel_stat *ks,
			uint64_t *issued)
{
	weft_launch l = weft__ct_launch(CF_K_INC, 64, z, NULL);
	weft_replica_layout lay;

	memset(&lay, 0, sizeof lay);
	lay.stride[0] = 64 * 4;
	weft__ct_begin(t, "4 steps of step_replicas() with 3 "
			  "replicas count 4 launches");
	if (!weft__ct_has_replicas(t)) {
		weft__ct_skip(t, "no step_replicas() (ABI 1.4, optional)");
		return;
	}
	if (!weft__ct_step_replicas(t, &l, &lay, 1, 3, 4) && !ks_get(t, ks)) {
		issued[CF_K_INC] += 4;
		expect_counts(t, ks, issued);
	}
	weft__ct_end(t);
}

/* A count other than the program's kernels is refused, with a message. */
static void ks_refused(weft__ct *t)
{
	uint32_t n = cf_program.n_kernels + 1;
	weft_kernel_stat *ks = weft__ct_xmalloc(t, n * sizeof *ks);
	weft_status st;

	weft__ct_begin(t, "n other than the program's kernel "
			  "count is refused, with a message");
	if (ks) {
		t->err.msg[0] = '\0';
		st = t->vt->kernel_stats(t->dev, t->prog, ks, n, &t->err);
		weft__ct_expect(t, st == WEFT_E_INVALID,
				"kernel_stats(n = %u) returned %s, not "
				"WEFT_E_INVALID",
				(unsigned)n, weft_status_str(st));
		weft__ct_expect(t, t->err.msg[0] != '\0',
				"kernel_stats(n = %u) was refused without a "
				"message",
				(unsigned)n);
	}
	free(ks);
	weft__ct_end(t);
}

/* Unloaded and loaded again: every counter starts from zero. */
static void ks_reload(weft__ct *t, weft_kernel_stat *ks, uint64_t *issued)
{
	weft__ct_begin(t, "a program loaded again counts from "
			  "zero");
	t->vt->unload_program(t->dev, t->prog);
	t->prog = weft__ct_program(t);
	if (t->prog && !ks_get(t, ks)) {
		memset(issued, 0, cf_program.n_kernels * sizeof *issued);
		expect_counts(t, ks, issued);
	}
	weft__ct_end(t);
}

/* The plain device: counts, replicas, refusals, reloading. */
static void ks_plain(weft__ct *t, weft_kernel_stat *ks, uint64_t *issued)
{
	weft_buf *x, *y, *z, *ctl = NULL;
	uint32_t count = 60;

	weft__ct_begin(t, "a program just loaded has counted "
			  "nothing");
	if (ks_open(t, 0) == 0 && ks_get(t, ks) == 0)
		expect_counts(t, ks, issued);
	if (!weft__ct_end(t) || !t->prog)
		return;
	x = weft__ct_counting(t, 100, 0);
	y = x ? weft__ct_counting(t, 100, 7) : NULL;
	z = y ? weft__ct_counting(t, 3 * 64, 0) : NULL;
	if (z && (ctl = weft__ct_alloc(t, CF_CTL_WORDS * 4)) &&
	    weft__ct_write(t, ctl, CF_CTL_COUNT * 4, &count, 4, 0) == 0) {
		ks_counts(t, x, y, ctl, ks, issued);
		ks_replicas(t, z, ks, issued);
		ks_refused(t);
		ks_reload(t, ks, issued);
	}
	weft__ct_free(t, ctl);
	weft__ct_free(t, z);
	weft__ct_free(t, y);
	weft__ct_free(t, x);
}

/* The profiling device: 10 steps of {inc, mad} over KS_N items, then
 * sync(): 10 launches each, all timed, each kernel's time above 0. */
static void ks_profiled(weft__ct *t, weft_kernel_stat *ks)
{
	weft_buf *x = NULL, *y = NULL;
	weft_launch l[2];

	weft__ct_begin(t, "with WEFT_DEVICE_PROFILE, after 10 "
			  "steps of {inc, mad} and sync(), each kernel has 10 "
			  "launches, all timed, time > 0");
	if (ks_open(t, WEFT_DEVICE_PROFILE) == 0 &&
	    (x = weft__ct_counting(t, KS_N, 0)) &&
	    (y = weft__ct_counting(t, KS_N, 3))) {
		l[0] = weft__ct_launch(CF_K_INC, KS_N, x, NULL);
		l[1] = weft__ct_launch(CF_K_MAD, KS_N, y, x);
		if (!weft__ct_step(t, l, 2, 10) && !weft__ct_sync(t) &&
		    !ks_get(t, ks)) {
			for (uint32_t i = 0; i < 2; i++) {
				uint32_t k = l[i].kernel;
				const char *name = cf_program.kernels[k].name;

				expect_count(t, ks, k, 10, 1);
				weft__ct_expect(
					t, ks[k].timed == 10,
					"kernel %s: %llu of 10 launches "
					"timed after sync()",
					name, (unsigned long long)ks[k].timed);
				weft__ct_expect(t, ks[k].time_ns > 0,
						"kernel %s: time 0 after 10 "
						"launches of %u items",
						name, KS_N);
			}
		}
	}
	weft__ct_free(t, y);
	weft__ct_free(t, x);
	weft__ct_end(t);
}

void weft__ct_group_kstats(weft__ct *t)
{
	uint32_t n = cf_program.n_kernels;
	weft_kernel_stat *ks;
	uint64_t *issued;

	if (!has_kstats(t)) {
		weft__ct_begin(t, "per-kernel counters");
		weft__ct_skip(t, "no kernel_stats() (ABI 1.5, optional)");
		return;
	}
	ks = weft__ct_xmalloc(t, n * sizeof *ks);
	issued = weft__ct_xmalloc(t, n * sizeof *issued);
	if (ks && issued) {
		memset(issued, 0, n * sizeof *issued);
		ks_plain(t, ks, issued);
		ks_close(t);
		ks_profiled(t, ks);
		ks_close(t);
	}
	free(issued);
	free(ks);
}
