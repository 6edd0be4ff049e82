/*
 * plugins/openmp/launch.c - programs and step(): running a program's host
 * kernels over the device's threads.
 *
 * A program is the list of kernels a program descriptor hands over, each
 * with its host build (a function running work items begin..end-1). A
 * launch runs one kernel over [0, extent), split into one contiguous chunk
 * per thread, the same chunks for every launch of that extent (a static
 * schedule: no per-item overhead, and kernels see no scheduling effects).
 * Small launches run inline, where starting threads would cost more than
 * the work.
 *
 * step() validates the whole launch list first, so that a bad list fails
 * without running anything, then executes it n_steps times in order. It
 * keeps the list it checked, with each launch's arguments resolved (the
 * plan): a model's step() hands the same list every time, and checking
 * and resolving a hundred launches cost more than running them when the
 * agents are few. The plan is used again only for the same bytes of
 * launches, the same program and no buffer allocated or freed since. Being
 * eager, it never has anything to wait for, and never syncs. It counts the
 * launches of each kernel (kernel_stats()) and, on a device opened with
 * WEFT_DEVICE_PROFILE, times each launch with the monotonic clock: the
 * launch has completed when it returns.
 *
 * step_replicas() runs each launch for R replicas as one parallel region:
 * the items of all replicas, replica after replica, cut into one
 * contiguous chunk per thread; a thread's chunk may span replicas, each
 * part run with that replica's arguments (its buffers shifted by its
 * strides, its own count).
 */
#include "config.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "priv.h"

/* Least work items per thread for which a launch is split across threads. */
#define MIN_ITEMS_PER_THREAD 1024u

#define PROG_OF(p) WEFT__PROG_OF(weft_program, p)

/* Copy what the descriptor says: it need not outlive load_program(). */
static weft_program *program_copy(const weft_program_desc *desc)
{
	weft_program *prog = WEFT__PROG_NEW(weft_program, fns, desc);

	for (uint32_t k = 0; prog && k < desc->n_kernels; k++)
		prog->fns[k] = desc->kernels[k].host_fn;
	return prog;
}

weft_status weft__omp_load_program(weft_device *dev,
				   const weft_program_desc *desc,
				   weft_program **out, weft_error *err)
{
	uint64_t t0 = weft__clock_ns();
	weft_program *prog;
	weft_status st;

	st = weft__chk_load(&weft__omp_chk, dev, desc, out, 1, NULL, err);
	if (st != WEFT_OK)
		return st;
	prog = program_copy(desc);
	if (!prog)
		return weft__omp_fail(err, WEFT_E_NOMEM,
				      "device 0: out of host memory loading "
				      "program '%s' (%u kernels)",
				      desc->name, (unsigned)desc->n_kernels);
	weft__prog_link(&dev->programs, &prog->pg);
	*out = prog;
	dev->st.time_ns[WEFT_PHASE_LOAD] += weft__clock_ns() - t0;
	return WEFT_OK;
}

/* Drop the plans of prog (NULL: every plan). */
static void plans_drop(weft_device *dev, const weft_program *prog)
{
	for (unsigned k = 0; k < WEFT__OMP_PLANS; k++) {
		struct weft__omp_plan *p = &dev->plans[k];

		if (prog && p->prog != prog)
			continue;
		free(p->copy);
		free(p->items);
		memset(p, 0, sizeof *p);
	}
}

void weft__omp_unload_program(weft_device *dev, weft_program *prog)
{
	if (!dev || !prog)
		return;
	plans_drop(dev, prog);
	dev->buf_gen++;
	weft__prog_unlink(&dev->programs, &prog->pg);
	weft__prog_free(&prog->pg);
}

void weft__omp_programs_release(weft_device *dev)
{
	while (dev->programs)
		weft__omp_unload_program(dev, PROG_OF(dev->programs));
	plans_drop(dev, NULL);
}

/* Run fn over [0, ka->extent) in one contiguous chunk per thread of the
 * team the machine's load leaves room for (team.c). */
static void run_kernel(weft_device *dev, weft_host_kernel_fn fn,
		       const weft_kargs *ka)
{
	uint32_t n = ka->extent;
	uint32_t nt = n / MIN_ITEMS_PER_THREAD;

	if (nt > 1) {
		uint32_t team = (uint32_t)weft__omp_team(dev);

		nt = nt < team ? nt : team;
	}
	if (nt <= 1) {
		if (n)
			fn(ka, 0, n);
		return;
	}
#pragma omp parallel num_threads((int)nt)
	{
		uint64_t k = (uint64_t)omp_get_num_threads();
		uint64_t t = (uint64_t)omp_get_thread_num();
		uint32_t begin = (uint32_t)(n * t / k);
		uint32_t end = (uint32_t)(n * (t + 1) / k);

		if (begin < end)
			fn(ka, begin, end);
	}
}

/* Replica r's arguments of launch l (lay NULL: r is 0, nothing shifted).
 * The extent is read from the device when the launch executes: an earlier
 * launch of the same step may have just written it. */
static inline void launch_args(const weft_launch *l,
			       const weft_replica_layout *lay, uint32_t r,
			       weft_kargs *ka)
{
	memset(ka, 0, sizeof *ka);
	ka->extent = l->extent;
	if (l->extent_buf) {
		const char *at = l->extent_buf->ptr;
		uint32_t count;

		at += l->extent_offset + (lay ? r * lay->extent_stride : 0);
		memcpy(&count, at, sizeof count);
		if (count < ka->extent)
			ka->extent = count;
	}
	for (uint32_t k = 0; k < l->n_bufs; k++)
		ka->buf[k] = (char *)l->bufs[k]->ptr +
			     (lay ? r * lay->stride[k] : 0);
}

static void run_launch(weft_device *dev, weft_program *prog,
		       const weft_launch *l)
{
	uint64_t t0 = dev->profile ? weft__clock_ns() : 0;
	weft_kargs ka;

	launch_args(l, NULL, 0, &ka);
	run_kernel(dev, prog->fns[l->kernel], &ka);
	if (dev->profile)
		weft__kstats_time(&prog->pg, l->kernel, weft__clock_ns() - t0);
}

/* Items [begin, end) of the replicas' items laid end to end (first[r] is
 * where replica r's start; first[replicas] the total). */
static void run_span(weft_host_kernel_fn fn, const weft_kargs *ka,
		     const uint64_t *first, uint32_t replicas, uint64_t begin,
		     uint64_t end)
{
	uint32_t r = 0;

	while (r + 1 < replicas && first[r + 1] <= begin)
		r++;
	for (; r < replicas && first[r] < end; r++) {
		uint64_t b = begin > first[r] ? begin : first[r];
		uint64_t e = end < first[r + 1] ? end : first[r + 1];

		if (b < e)
			fn(&ka[r], (uint32_t)(b - first[r]),
			   (uint32_t)(e - first[r]));
	}
}

/* One launch for all replicas: ka[r] and first[] are the caller's
 * scratch, replicas and replicas + 1 long. */
static void run_replicas(weft_device *dev, const weft_program *prog,
			 const weft_launch *l, const weft_replica_layout *lay,
			 uint32_t replicas, weft_kargs *ka, uint64_t *first)
{
	weft_host_kernel_fn fn = prog->fns[l->kernel];
	uint64_t n, nt;

	first[0] = 0;
	for (uint32_t r = 0; r < replicas; r++) {
		launch_args(l, lay, r, &ka[r]);
		first[r + 1] = first[r] + ka[r].extent;
	}
	n = first[replicas];
	nt = n / MIN_ITEMS_PER_THREAD;
	if (nt > 1) {
		uint64_t team = (uint64_t)weft__omp_team(dev);

		nt = nt < team ? nt : team;
	}
	if (nt <= 1) {
		run_span(fn, ka, first, replicas, 0, n);
		return;
	}
#pragma omp parallel num_threads((int)nt)
	{
		uint64_t k = (uint64_t)omp_get_num_threads();
		uint64_t t = (uint64_t)omp_get_thread_num();

		run_span(fn, ka, first, replicas, n * t / k, n * (t + 1) / k);
	}
}

/* The plan of this list, checked, for this program; NULL when there is
 * none. */
static struct weft__omp_plan *plan_find(weft_device *dev,
					const weft_program *prog,
					const weft_launch *launches, uint32_t n)
{
	for (unsigned k = 0; k < WEFT__OMP_PLANS; k++) {
		struct weft__omp_plan *p = &dev->plans[k];

		if (p->n == n && n && p->prog == prog &&
		    p->gen == dev->buf_gen &&
		    memcmp(p->copy, launches, n * sizeof *launches) == 0)
			return p;
	}
	return NULL;
}

/* Room for n launches in plan p, whose entry is emptied. */
static int plan_room(struct weft__omp_plan *p, uint32_t n)
{
	weft_launch *copy;
	struct weft__omp_item *items;

	p->n = 0;
	p->prog = NULL;
	if (n <= p->cap)
		return 0;
	copy = realloc(p->copy, n * sizeof *copy);
	if (copy)
		p->copy = copy;
	items = copy ? realloc(p->items, n * sizeof *items) : NULL;
	if (items)
		p->items = items;
	if (!copy || !items)
		return -1;
	p->cap = n;
	return 0;
}

/* The plan of a list just checked, in the entry whose turn it is; NULL
 * (each launch resolved as it runs) for an empty list or when there is
 * no memory for it. */
static struct weft__omp_plan *plan_make(weft_device *dev,
					const weft_program *prog,
					const weft_launch *launches, uint32_t n)
{
	struct weft__omp_plan *p = &dev->plans[dev->plan_next];

	if (n == 0 || plan_room(p, n))
		return NULL;
	dev->plan_next = (dev->plan_next + 1) % WEFT__OMP_PLANS;
	memcpy(p->copy, launches, n * sizeof *launches);
	for (uint32_t i = 0; i < n; i++) {
		const weft_launch *l = &launches[i];
		struct weft__omp_item *it = &p->items[i];

		launch_args(l, NULL, 0, &it->ka);
		it->fn = prog->fns[l->kernel];
		it->kernel = l->kernel;
		it->extent = l->extent;
		it->count = l->extent_buf ? (const char *)l->extent_buf->ptr +
						    l->extent_offset
					  : NULL;
	}
	p->prog = prog;
	p->n = n;
	p->gen = dev->buf_gen;
	return p;
}

/* The plan's launches, n_steps times: each one's extent, with the count
 * read now (an earlier launch of the step may have written it). A launch
 * too small to share runs here, without run_kernel's team decision: most
 * launches of a small model are. */
static void plan_run(weft_device *dev, weft_program *prog,
		     const struct weft__omp_plan *p, uint64_t n_steps)
{
	struct weft__omp_item *items = p->items, *it;
	struct weft__omp_item *end = items + p->n;
	uint32_t e, count;

	for (uint64_t s = 0; s < n_steps; s++)
		for (it = items; it < end; it++) {
			uint64_t t0 = dev->profile ? weft__clock_ns() : 0;

			e = it->extent;
			if (it->count) {
				memcpy(&count, it->count, sizeof count);
				e = count < e ? count : e;
			}
			it->ka.extent = e;
			if (e >= 2 * MIN_ITEMS_PER_THREAD)
				run_kernel(dev, it->fn, &it->ka);
			else if (e)
				it->fn(&it->ka, 0, e);
			if (dev->profile)
				weft__kstats_time(&prog->pg, it->kernel,
						  weft__clock_ns() - t0);
		}
}

weft_status weft__omp_step(weft_device *dev, weft_program *prog,
			   const weft_launch *launches, uint32_t n_launches,
			   uint64_t n_steps, weft_error *err)
{
	uint64_t t0 = weft__clock_ns();
	struct weft__omp_plan *p =
		dev && prog && launches
			? plan_find(dev, prog, launches, n_launches)
			: NULL;
	weft_status st;

	if (!p) {
		st = weft__chk_step(&weft__omp_chk, dev, prog, launches,
				    n_launches, err);
		if (st != WEFT_OK)
			return st;
		p = plan_make(dev, prog, launches, n_launches);
	}
	if (p)
		plan_run(dev, prog, p, n_steps);
	else
		for (uint64_t s = 0; s < n_steps; s++)
			for (uint32_t i = 0; i < n_launches; i++)
				run_launch(dev, prog, &launches[i]);
	weft__kstats_count(&prog->pg, launches, n_launches, n_steps);
	weft__stats_step(&dev->st, n_steps, n_launches, t0);
	return WEFT_OK;
}

weft_status weft__omp_step_replicas(weft_device *dev, weft_program *prog,
				    const weft_launch *launches,
				    const weft_replica_layout *layouts,
				    uint32_t n_launches, uint32_t replicas,
				    uint64_t n_steps, weft_error *err)
{
	uint64_t t0 = weft__clock_ns();
	weft_kargs *ka;
	uint64_t *first;
	weft_status st;

	st = weft__chk_step_replicas(&weft__omp_chk, dev, prog, launches,
				     layouts, n_launches, replicas, err);
	if (st != WEFT_OK)
		return st;
	ka = malloc(replicas * sizeof *ka);
	first = malloc((replicas + (size_t)1) * sizeof *first);
	if (!ka || !first) {
		free(ka);
		free(first);
		return weft__omp_fail(err, WEFT_E_NOMEM,
				      "device 0: out of host memory for the "
				      "arguments of %u replicas",
				      (unsigned)replicas);
	}
	for (uint64_t s = 0; s < n_steps; s++)
		for (uint32_t i = 0; i < n_launches; i++) {
			uint64_t t1 = dev->profile ? weft__clock_ns() : 0;

			run_replicas(dev, prog, &launches[i], &layouts[i],
				     replicas, ka, first);
			if (dev->profile)
				weft__kstats_time(&prog->pg, launches[i].kernel,
						  weft__clock_ns() - t1);
		}
	weft__kstats_count(&prog->pg, launches, n_launches, n_steps);
	free(first);
	free(ka);
	weft__stats_step(&dev->st, n_steps, n_launches, t0);
	return WEFT_OK;
}

weft_status weft__omp_kernel_stats(weft_device *dev, weft_program *prog,
				   weft_kernel_stat *out, uint32_t n,
				   weft_error *err)
{
	return weft__kstats_get("openmp", dev, prog ? &prog->pg : NULL, out, n,
				err);
}
