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
 * without running anything, then executes it n_steps times in order. Being
 * eager, it never has anything to wait for, and never syncs.
 */
#include "config.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "priv.h"

/* Least work items per thread for which a launch is split across threads. */
#define MIN_ITEMS_PER_THREAD 1024u

static void program_free(weft_program *prog)
{
	if (prog->kernels) {
		for (uint32_t k = 0; k < prog->n_kernels; k++)
			free(prog->kernels[k].name);
		free(prog->kernels);
	}
	free(prog->name);
	free(prog);
}

static weft_status check_kernels(const weft_program_desc *desc, weft_error *err)
{
	if (desc->n_kernels == 0 || !desc->kernels)
		return weft__omp_fail(err, WEFT_E_INVALID,
				      "program '%s' has no kernels",
				      desc->name);
	for (uint32_t k = 0; k < desc->n_kernels; k++) {
		const weft_kernel_desc *kd = &desc->kernels[k];

		if (!kd->name)
			return weft__omp_fail(
				err, WEFT_E_INVALID,
				"kernel %u of program '%s' has no name",
				(unsigned)k, desc->name);
		if (!kd->host_fn)
			return weft__omp_fail(
				err, WEFT_E_INVALID,
				"kernel '%s' of program '%s' has no host build",
				kd->name, desc->name);
	}
	return WEFT_OK;
}

static weft_status check_desc(const weft_program_desc *desc, weft_error *err)
{
	if (!desc)
		return weft__omp_fail(err, WEFT_E_INVALID,
				      "load_program: no program descriptor");
	if (desc->struct_size < WEFT_PROGRAM_DESC_V1_0_SIZE)
		return weft__omp_fail(err, WEFT_E_INVALID,
				      "load_program: program descriptor has "
				      "struct_size %u, expected at least %zu",
				      (unsigned)desc->struct_size,
				      sizeof *desc);
	if (!desc->name)
		return weft__omp_fail(err, WEFT_E_INVALID,
				      "load_program: the program has no name");
	return check_kernels(desc, err);
}

/* Copy what the descriptor says: it need not outlive load_program(). */
static weft_program *program_copy(const weft_program_desc *desc)
{
	weft_program *prog = calloc(1, sizeof *prog);

	if (!prog)
		return NULL;
	prog->name = strdup(desc->name);
	prog->kernels = calloc(desc->n_kernels, sizeof *prog->kernels);
	if (!prog->name || !prog->kernels)
		goto free_program;
	prog->n_kernels = desc->n_kernels;
	for (uint32_t k = 0; k < desc->n_kernels; k++) {
		prog->kernels[k].fn = desc->kernels[k].host_fn;
		prog->kernels[k].name = strdup(desc->kernels[k].name);
		if (!prog->kernels[k].name)
			goto free_program;
	}
	return prog;

free_program:
	program_free(prog);
	return NULL;
}

weft_status weft__omp_load_program(weft_device *dev,
				   const weft_program_desc *desc,
				   weft_program **out, weft_error *err)
{
	uint64_t t0 = weft__omp_now_ns();
	weft_program *prog;
	weft_status st;

	if (!dev || !out)
		return weft__omp_fail(err, WEFT_E_INVALID,
				      "load_program: no %s",
				      dev ? "place for the program" : "device");
	*out = NULL;
	st = check_desc(desc, err);
	if (st != WEFT_OK)
		return st;
	prog = program_copy(desc);
	if (!prog)
		return weft__omp_fail(err, WEFT_E_NOMEM,
				      "device 0: out of host memory loading "
				      "program '%s' (%u kernels)",
				      desc->name, (unsigned)desc->n_kernels);
	prog->next = dev->programs;
	if (dev->programs)
		dev->programs->prev = prog;
	dev->programs = prog;
	*out = prog;
	dev->st.time_ns[WEFT_PHASE_LOAD] += weft__omp_now_ns() - t0;
	return WEFT_OK;
}

void weft__omp_unload_program(weft_device *dev, weft_program *prog)
{
	if (!dev || !prog)
		return;
	if (prog->prev)
		prog->prev->next = prog->next;
	else
		dev->programs = prog->next;
	if (prog->next)
		prog->next->prev = prog->prev;
	program_free(prog);
}

void weft__omp_programs_release(weft_device *dev)
{
	while (dev->programs)
		weft__omp_unload_program(dev, dev->programs);
}

/* A buffer a launch binds (k < 0: the extent buffer): present and not
 * freed. */
static weft_status check_bound(const weft_program *prog, uint32_t i,
			       const char *kname, int k, const weft_buf *b,
			       weft_error *err)
{
	char role[32];

	if (b && !b->pooled)
		return WEFT_OK;
	if (k < 0)
		snprintf(role, sizeof role, "the extent buffer");
	else
		snprintf(role, sizeof role, "buffer %d", k);
	return weft__omp_fail(err, WEFT_E_INVALID,
			      "launch %u of program '%s' (kernel '%s'): %s %s",
			      (unsigned)i, prog->name, kname, role,
			      b ? "was freed" : "is NULL");
}

static weft_status check_extent_buf(const weft_program *prog, uint32_t i,
				    const char *kname, const weft_launch *l,
				    weft_error *err)
{
	weft_status st = check_bound(prog, i, kname, -1, l->extent_buf, err);

	if (st != WEFT_OK)
		return st;
	if (l->extent_offset % sizeof(uint32_t) == 0 &&
	    l->extent_buf->size >= sizeof(uint32_t) &&
	    l->extent_offset <= l->extent_buf->size - sizeof(uint32_t))
		return WEFT_OK;
	return weft__omp_fail(
		err, WEFT_E_INVALID,
		"launch %u of program '%s' (kernel '%s'): extent offset %u %s "
		"(the extent buffer has %zu bytes)",
		(unsigned)i, prog->name, kname, (unsigned)l->extent_offset,
		l->extent_offset % sizeof(uint32_t)
			? "is not a multiple of 4"
			: "leaves no 4-byte count inside the buffer",
		l->extent_buf->size);
}

static weft_status check_launch(const weft_program *prog, uint32_t i,
				const weft_launch *l, weft_error *err)
{
	const char *kname;

	if (l->kernel >= prog->n_kernels)
		return weft__omp_fail(
			err, WEFT_E_INVALID,
			"launch %u of program '%s': kernel index %u is out of "
			"range (the program has %u kernels)",
			(unsigned)i, prog->name, (unsigned)l->kernel,
			(unsigned)prog->n_kernels);
	kname = prog->kernels[l->kernel].name;
	if (l->n_bufs > WEFT_KERNEL_MAX_BUFS)
		return weft__omp_fail(
			err, WEFT_E_INVALID,
			"launch %u of program '%s' (kernel '%s'): %u buffers "
			"bound, at most %d allowed",
			(unsigned)i, prog->name, kname, (unsigned)l->n_bufs,
			WEFT_KERNEL_MAX_BUFS);
	for (uint32_t k = 0; k < l->n_bufs; k++)
		if (check_bound(prog, i, kname, (int)k, l->bufs[k], err) !=
		    WEFT_OK)
			return WEFT_E_INVALID;
	if (l->extent_buf)
		return check_extent_buf(prog, i, kname, l, err);
	return WEFT_OK;
}

/* Run fn over [0, ka->extent) in one contiguous chunk per thread. */
static void run_kernel(const weft_device *dev, weft_host_kernel_fn fn,
		       const weft_kargs *ka)
{
	uint32_t n = ka->extent;
	uint32_t nt = n / MIN_ITEMS_PER_THREAD;

	if (nt > (uint32_t)dev->threads)
		nt = (uint32_t)dev->threads;
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

/* The extent is read from the device when the launch executes: an earlier
 * launch of the same step may have just written it. */
static void run_launch(const weft_device *dev, const weft_program *prog,
		       const weft_launch *l)
{
	weft_kargs ka;

	memset(&ka, 0, sizeof ka);
	ka.extent = l->extent;
	if (l->extent_buf) {
		const char *at = l->extent_buf->ptr;
		uint32_t count;

		memcpy(&count, at + l->extent_offset, sizeof count);
		if (count < ka.extent)
			ka.extent = count;
	}
	for (uint32_t k = 0; k < l->n_bufs; k++)
		ka.buf[k] = l->bufs[k]->ptr;
	run_kernel(dev, prog->kernels[l->kernel].fn, &ka);
}

weft_status weft__omp_step(weft_device *dev, weft_program *prog,
			   const weft_launch *launches, uint32_t n_launches,
			   uint64_t n_steps, weft_error *err)
{
	uint64_t t0 = weft__omp_now_ns();

	if (!dev || !prog)
		return weft__omp_fail(err, WEFT_E_INVALID, "step: no %s",
				      dev ? "program" : "device");
	if (!launches && n_launches)
		return weft__omp_fail(err, WEFT_E_INVALID,
				      "step: %u launches announced but the "
				      "launch list is NULL",
				      (unsigned)n_launches);
	for (uint32_t i = 0; i < n_launches; i++)
		if (check_launch(prog, i, &launches[i], err) != WEFT_OK)
			return WEFT_E_INVALID;
	for (uint64_t s = 0; s < n_steps; s++)
		for (uint32_t i = 0; i < n_launches; i++)
			run_launch(dev, prog, &launches[i]);
	dev->st.steps += n_steps;
	dev->st.launches += n_steps * n_launches;
	dev->st.time_ns[WEFT_PHASE_KERNEL] += weft__omp_now_ns() - t0;
	return WEFT_OK;
}
