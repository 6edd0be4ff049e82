/*
 * plugins/common/stats.c - the backends' counters and bounded replies
 * (stats.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "stats.h"

void weft__stats_xfer(weft_stats *st, enum weft_dir dir, size_t bytes,
		      uint64_t t0)
{
	st->xfer_count[dir]++;
	st->xfer_bytes[dir] += bytes;
	st->time_ns[WEFT_PHASE_TRANSFER] += weft__clock_ns() - t0;
}

void weft__stats_step(weft_stats *st, uint64_t n_steps, uint32_t n_launches,
		      uint64_t t0)
{
	st->steps += n_steps;
	st->launches += n_steps * n_launches;
	st->time_ns[WEFT_PHASE_KERNEL] += weft__clock_ns() - t0;
}

weft_status weft__stats_copy(weft_stats *out, const weft_stats *st)
{
	size_t hdr = sizeof out->struct_size;
	size_t size;

	if (!out || !st)
		return WEFT_E_INVALID;
	size = out->struct_size < sizeof *st ? out->struct_size : sizeof *st;
	if (size > hdr)
		memcpy((char *)out + hdr, (const char *)st + hdr, size - hdr);
	return WEFT_OK;
}

void weft__probe_copy(weft_probe *out, weft_probe *p)
{
	uint32_t size =
		out->struct_size < sizeof *p ? out->struct_size : sizeof *p;

	p->struct_size = out->struct_size;
	memcpy(out, p, size);
}

void weft__mem_info_copy(weft_mem_info *out, const weft_mem_info *mi)
{
	size_t hdr = sizeof out->struct_size;
	size_t size =
		out->struct_size < sizeof *mi ? out->struct_size : sizeof *mi;

	memcpy((char *)out + hdr, (const char *)mi + hdr, size - hdr);
}

void weft__mem_info_host(weft_mem_info *mi)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);

	memset(mi, 0, sizeof *mi);
	mi->struct_size = sizeof *mi;
	mi->host = 1;
	if (pages > 0 && page > 0)
		mi->total_bytes = (uint64_t)pages * (uint64_t)page;
}

/* ---- per-kernel counters ------------------------------------------------ */

void weft__kstats_count(struct weft__prog *pg, const weft_launch *launches,
			uint32_t n, uint64_t n_steps)
{
	for (uint32_t i = 0; i < n; i++)
		pg->kstat[launches[i].kernel].launches += n_steps;
}

weft_status weft__kstats_get(const char *backend, const void *dev,
			     const struct weft__prog *pg, weft_kernel_stat *out,
			     uint32_t n, weft_error *err)
{
	if (!dev || !pg || (!out && n))
		return weft__errf(backend, err, WEFT_E_INVALID,
				  "kernel_stats: no %s",
				  !dev	? "device"
				  : !pg ? "program"
					: "output");
	if (n != pg->n_kernels)
		return weft__errf(backend, err, WEFT_E_INVALID,
				  "kernel_stats: program '%s' has %u kernels, "
				  "not %u",
				  pg->name, (unsigned)pg->n_kernels,
				  (unsigned)n);
	if (n)
		memcpy(out, pg->kstat, n * sizeof *out);
	return WEFT_OK;
}

int weft__kring_init(weft__kring *r, size_t cap)
{
	r->e = calloc(cap, sizeof *r->e);
	r->cap = r->e ? cap : 0;
	r->head = r->n = 0;
	return r->e ? 0 : -1;
}

void weft__kring_free(weft__kring *r, const weft__ktimer *t)
{
	weft__kring_forget(r, t, NULL);
	free(r->e);
	r->e = NULL;
	r->cap = r->head = r->n = 0;
}

void weft__kring_push(weft__kring *r, struct weft__prog *pg, uint32_t k,
		      void *a, void *b)
{
	struct weft__kpending *p = &r->e[(r->head + r->n) % r->cap];

	p->pg = pg;
	p->kernel = k;
	p->a = a;
	p->b = b;
	r->n++;
}

void weft__kring_harvest(weft__kring *r, const weft__ktimer *t)
{
	while (r->n) {
		struct weft__kpending *p = &r->e[r->head];
		uint64_t ns = 0;
		int done = p->pg ? t->done(t->ctx, p->a, p->b, &ns) : 1;

		if (done == 0)
			return;
		if (p->pg) {
			if (done > 0)
				weft__kstats_time(p->pg, p->kernel, ns);
			t->release(t->ctx, p->a, p->b);
		}
		r->head = (r->head + 1) % r->cap;
		r->n--;
	}
}

void weft__kring_forget(weft__kring *r, const weft__ktimer *t,
			const struct weft__prog *pg)
{
	for (size_t i = 0; i < r->n; i++) {
		struct weft__kpending *p = &r->e[(r->head + i) % r->cap];

		if (p->pg && (!pg || p->pg == pg)) {
			t->release(t->ctx, p->a, p->b);
			p->pg = NULL;
		}
	}
	if (!pg)
		r->head = r->n = 0;
}
