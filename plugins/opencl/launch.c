/*
 * plugins/opencl/launch.c - programs and step(): loading a model's
 * program and enqueueing its kernels.
 *
 * load_program() builds one cl_program from the model's portable source
 * (compile.c: behind the prelude, from the on-disk cache when an entry
 * matches) and creates a cl_kernel for each kernel the descriptor names.
 * Host builds of kernels (host_fn) are not used: only kernel names are
 * needed.
 *
 * step() validates the whole launch list first, so that a bad list fails
 * without enqueueing anything, then enqueues n_steps repetitions of it on
 * the in-order queue and flushes, without waiting for anything. A kernel's
 * arguments are set when the launch using it changes, so a list repeated
 * n times sets them once per step() call (OpenCL captures arguments at
 * enqueue time). Each launch starts min(capacity, max_items) work items
 * (rounded up to a multiple of 64), which loop over the extent computed on
 * the device (see prelude.c); a capacity of 0 enqueues nothing.
 *
 * step_replicas() is the same loop over a list with replica layouts: each
 * launch is one NDRange of two dimensions, items by replicas, whose
 * second dimension is the replica (prelude.c shifts the buffers and the
 * count by it); the items per replica are cut so that all replicas
 * together start about max_items. step() passes no layouts: one replica,
 * every stride 0.
 *
 * Every launch of a list is counted for its kernel (kernel_stats()). On a
 * device opened with WEFT_DEVICE_PROFILE, the queue profiles and each
 * launch keeps its event in a bounded ring; sync(), wait() and
 * kernel_stats() take the completed ones' CL_PROFILING_COMMAND_START/END
 * and release them, never waiting. A launch enqueued while the ring is
 * full (more than TIMED_MAX launches since the host last looked) first
 * flushes the queue and harvests what has completed; if nothing has, it
 * runs untimed (weft_kernel_stat.timed tells). Every TIMED_FLUSH timed
 * launches the queue is flushed and the ring harvested in any case, so
 * that a long step() keeps the ring from filling while the device keeps
 * up.
 */
#include "config.h"

#include <stdio.h>

#include "priv.h"

/* Kernel arguments: 12 buffers, then the extent's count buffer, the
 * count's index in it (in words), the capacity, whether the count is read
 * at all, the 12 buffers' replica strides (bytes) and the count's (in
 * words). */
#define ARG_XBUF   (WEFT_KERNEL_MAX_BUFS)
#define ARG_XIDX   (WEFT_KERNEL_MAX_BUFS + 1)
#define ARG_XCAP   (WEFT_KERNEL_MAX_BUFS + 2)
#define ARG_XDYN   (WEFT_KERNEL_MAX_BUFS + 3)
#define ARG_STRIDE (WEFT_KERNEL_MAX_BUFS + 4)
#define ARG_XS	   (2 * WEFT_KERNEL_MAX_BUFS + 4)

/* Launches whose events are kept for timing, at most. */
#define TIMED_MAX 4096
/* Timed launches between two flushes and harvests inside a long step():
 * the device starts on them, and the ones it has finished free their
 * place in the ring, without waiting. */
#define TIMED_FLUSH 256

/* ---- programs ------------------------------------------------------------ */

#define PROG_OF(p) WEFT__PROG_OF(weft_program, p)

static void program_free(weft_program *prog)
{
	for (uint32_t k = 0; k < prog->pg.n_kernels; k++)
		if (prog->kernels[k].k)
			clReleaseKernel(prog->kernels[k].k);
	if (prog->prog)
		clReleaseProgram(prog->prog);
	weft__prog_free(&prog->pg);
}

/* "program 'P' has no kernel 'K' (it defines: a;b)" */
static weft_status no_kernel(weft_device *dev, const weft_program *prog,
			     const char *name, cl_int rc, weft_error *err)
{
	char names[256] = "?";

	if (rc != CL_INVALID_KERNEL_NAME)
		return weft__ocl_cl_fail(dev, err, "clCreateKernel", rc,
					 "kernel '%s' of program '%s'", name,
					 prog->pg.name);
	if (clGetProgramInfo(prog->prog, CL_PROGRAM_KERNEL_NAMES, sizeof names,
			     names, NULL) != CL_SUCCESS)
		snprintf(names, sizeof names, "?");
	return weft__ocl_fail(err, WEFT_E_INVALID,
			      "program '%s' has no kernel '%s' on device '%s' "
			      "(it defines: %s)",
			      prog->pg.name, name, dev->names.device, names);
}

static weft_status create_kernels(weft_device *dev, weft_program *prog,
				  weft_error *err)
{
	for (uint32_t k = 0; k < prog->pg.n_kernels; k++) {
		struct weft__ocl_kernel *kn = &prog->kernels[k];
		const char *name = prog->pg.kernel_names[k];
		cl_int rc;

		kn->k = clCreateKernel(prog->prog, name, &rc);
		if (!kn->k)
			return no_kernel(dev, prog, name, rc, err);
		kn->set_for = -1;
	}
	return WEFT_OK;
}

static weft_status program_new(weft_device *dev, const weft_program_desc *desc,
			       weft_program **out, weft_error *err)
{
	weft_program *prog = WEFT__PROG_NEW(weft_program, kernels, desc);
	weft_status st;

	if (!prog)
		return weft__ocl_fail(err, WEFT_E_NOMEM,
				      "device '%s': out of host memory loading "
				      "program '%s'",
				      dev->names.device, desc->name);
	st = weft__ocl_build(dev, desc, &prog->prog, err);
	if (st == WEFT_OK)
		st = create_kernels(dev, prog, err);
	if (st != WEFT_OK) {
		program_free(prog);
		return st;
	}
	*out = prog;
	return WEFT_OK;
}

weft_status weft__ocl_load_program(weft_device *dev,
				   const weft_program_desc *desc,
				   weft_program **out, weft_error *err)
{
	uint64_t t0 = weft__clock_ns();
	weft_program *prog = NULL;
	weft_status st;

	st = weft__chk_load(&weft__ocl_chk, dev, desc, out, 0,
			    "the OpenCL backend compiles the portable source",
			    err);
	if (st != WEFT_OK)
		return st;
	st = program_new(dev, desc, &prog, err);
	dev->st.time_ns[WEFT_PHASE_LOAD] += weft__clock_ns() - t0;
	if (st != WEFT_OK)
		return st;
	weft__prog_link(&dev->programs, &prog->pg);
	*out = prog;
	return WEFT_OK;
}

static const weft__ktimer *timer(weft_device *dev);

void weft__ocl_unload_program(weft_device *dev, weft_program *prog)
{
	if (!dev || !prog)
		return;
	if (dev->profile)
		weft__kring_forget(&dev->timing, timer(dev), &prog->pg);
	weft__prog_unlink(&dev->programs, &prog->pg);
	program_free(prog);
}

void weft__ocl_programs_release(weft_device *dev)
{
	while (dev->programs)
		weft__ocl_unload_program(dev, PROG_OF(dev->programs));
}

/* ---- timing ---------------------------------------------------------------
 */

/* 1 and the launch's time once its event has completed, 0 before, -1 when
 * the event failed or has no profiling information. Never waits. */
static int event_done(void *ctx, void *a, void *b, uint64_t *ns)
{
	cl_event ev = a;
	cl_ulong t0 = 0, t1 = 0;
	cl_int status;

	(void)ctx;
	(void)b;
	if (clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status,
			   &status, NULL) != CL_SUCCESS ||
	    status < 0)
		return -1;
	if (status != CL_COMPLETE)
		return 0;
	if (clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0,
				    &t0, NULL) != CL_SUCCESS ||
	    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1,
				    &t1, NULL) != CL_SUCCESS)
		return -1;
	*ns = t1 > t0 ? t1 - t0 : 0;
	return 1;
}

static void event_release(void *ctx, void *a, void *b)
{
	(void)ctx;
	(void)b;
	clReleaseEvent((cl_event)a);
}

static const weft__ktimer *timer(weft_device *dev)
{
	static const weft__ktimer t = { event_done, event_release, NULL };

	(void)dev;
	return &t;
}

weft_status weft__ocl_timing_open(weft_device *dev, weft_error *err)
{
	if (!dev->profile || weft__kring_init(&dev->timing, TIMED_MAX) == 0)
		return WEFT_OK;
	return weft__ocl_fail(err, WEFT_E_NOMEM,
			      "device '%s': out of host memory for timing "
			      "%d launches",
			      dev->names.device, TIMED_MAX);
}

void weft__ocl_timing_harvest(weft_device *dev)
{
	if (dev->profile)
		weft__kring_harvest(&dev->timing, timer(dev));
}

void weft__ocl_timing_close(weft_device *dev)
{
	weft__ocl_timing_harvest(dev);
	if (dev->profile)
		weft__kring_free(&dev->timing, timer(dev));
}

weft_status weft__ocl_kernel_stats(weft_device *dev, weft_program *prog,
				   weft_kernel_stat *out, uint32_t n,
				   weft_error *err)
{
	if (dev)
		weft__ocl_timing_harvest(dev);
	return weft__kstats_get("opencl", dev, prog ? &prog->pg : NULL, out, n,
				err);
}

/* Where the event of a launch of a timed device goes: NULL when the
 * device does not profile, or when the ring stays full after a flush and
 * a harvest (the launch then runs untimed). Never waits. */
static cl_event *timing_slot(weft_device *dev, cl_event *ev)
{
	if (!dev->profile)
		return NULL;
	if (++dev->timing_issued % TIMED_FLUSH == 0 ||
	    weft__kring_full(&dev->timing)) {
		clFlush(dev->queue);
		weft__kring_harvest(&dev->timing, timer(dev));
	}
	return weft__kring_full(&dev->timing) ? NULL : ev;
}

/* ---- enqueueing -----------------------------------------------------------
 */

/* The replica strides of a launch (lay NULL: all 0). */
static cl_int set_strides(cl_kernel k, const weft_replica_layout *lay)
{
	cl_ulong xs = lay ? lay->extent_stride / sizeof(cl_uint) : 0;
	cl_int rc = CL_SUCCESS;

	for (cl_uint a = 0; a < WEFT_KERNEL_MAX_BUFS && rc == CL_SUCCESS; a++) {
		cl_ulong s = lay ? lay->stride[a] : 0;

		rc = clSetKernelArg(k, ARG_STRIDE + a, sizeof s, &s);
	}
	if (rc == CL_SUCCESS)
		rc = clSetKernelArg(k, ARG_XS, sizeof xs, &xs);
	return rc;
}

static cl_int set_args(const weft_device *dev, cl_kernel k,
		       const weft_launch *l, const weft_replica_layout *lay)
{
	cl_uint xidx = l->extent_offset / (cl_uint)sizeof(cl_uint);
	cl_uint xcap = l->extent, xdyn = l->extent_buf != NULL;
	cl_mem xbuf = l->extent_buf ? l->extent_buf->mem : dev->dummy;
	cl_int rc = CL_SUCCESS;

	for (cl_uint a = 0; a < WEFT_KERNEL_MAX_BUFS && rc == CL_SUCCESS; a++) {
		cl_mem m = a < l->n_bufs ? l->bufs[a]->mem : dev->dummy;

		rc = clSetKernelArg(k, a, sizeof m, &m);
	}
	if (rc == CL_SUCCESS)
		rc = clSetKernelArg(k, ARG_XBUF, sizeof xbuf, &xbuf);
	if (rc == CL_SUCCESS)
		rc = clSetKernelArg(k, ARG_XIDX, sizeof xidx, &xidx);
	if (rc == CL_SUCCESS)
		rc = clSetKernelArg(k, ARG_XCAP, sizeof xcap, &xcap);
	if (rc == CL_SUCCESS)
		rc = clSetKernelArg(k, ARG_XDYN, sizeof xdyn, &xdyn);
	if (rc == CL_SUCCESS)
		rc = set_strides(k, lay);
	return rc;
}

/* Work items to start per replica: enough for all replicas together to
 * fill the device (at least 64 each), never more than the capacity needs
 * (rounded up to a multiple of 64). */
static size_t global_size(const weft_device *dev, uint32_t capacity,
			  uint32_t replicas)
{
	size_t most = dev->max_items / replicas;
	size_t n;

	if (most < 64)
		most = 64;
	n = capacity < most ? capacity : most;

	if (n > 64)
		n = (n + 63) & ~(size_t)63;
	return n;
}

/* Launch i of the list, for `replicas` replicas laid out as lay says
 * (NULL: one replica). */
static weft_status enqueue_launch(weft_device *dev, weft_program *prog,
				  uint32_t i, const weft_launch *l,
				  const weft_replica_layout *lay,
				  uint32_t replicas, weft_error *err)
{
	struct weft__ocl_kernel *kn = &prog->kernels[l->kernel];
	const char *kname = prog->pg.kernel_names[l->kernel];
	cl_event ev = NULL, *evp;
	size_t gsize[2];
	cl_int rc;

	if (kn->set_for != (int64_t)i) {
		rc = set_args(dev, kn->k, l, lay);
		if (rc != CL_SUCCESS)
			return weft__ocl_cl_fail(dev, err, "clSetKernelArg", rc,
						 "launch %u of program '%s' "
						 "(kernel '%s')",
						 (unsigned)i, prog->pg.name,
						 kname);
		kn->set_for = i;
	}
	if (l->extent == 0) {
		if (dev->profile) /* nothing runs: it took no time */
			weft__kstats_time(&prog->pg, l->kernel, 0);
		return WEFT_OK;
	}
	gsize[0] = global_size(dev, l->extent, replicas);
	gsize[1] = replicas;
	evp = timing_slot(dev, &ev);
	rc = clEnqueueNDRangeKernel(dev->queue, kn->k, 2, NULL, gsize, NULL, 0,
				    NULL, evp);
	if (rc == CL_SUCCESS && ev)
		weft__kring_push(&dev->timing, &prog->pg, l->kernel, ev, NULL);
	if (rc != CL_SUCCESS)
		return weft__ocl_cl_fail(dev, err, "clEnqueueNDRangeKernel", rc,
					 "launch %u of program '%s' (kernel "
					 "'%s', %zu work items, %u replica(s))",
					 (unsigned)i, prog->pg.name, kname,
					 gsize[0], (unsigned)replicas);
	return WEFT_OK;
}

/* Enqueue a validated list n_steps times (layouts NULL: step()). */
static weft_status enqueue_list(weft_device *dev, weft_program *prog,
				const weft_launch *launches,
				const weft_replica_layout *layouts,
				uint32_t n_launches, uint32_t replicas,
				uint64_t n_steps, weft_error *err)
{
	uint64_t t0 = weft__clock_ns(), done = 0;
	uint32_t part = 0; /* launches of step done + 1 enqueued */
	weft_status st = WEFT_OK;
	cl_int rc;

	for (uint32_t k = 0; k < prog->pg.n_kernels; k++)
		prog->kernels[k].set_for = -1;
	for (; done < n_steps && st == WEFT_OK; done += st == WEFT_OK)
		for (part = 0; part < n_launches && st == WEFT_OK;
		     part += st == WEFT_OK)
			st = enqueue_launch(dev, prog, part, &launches[part],
					    layouts ? &layouts[part] : NULL,
					    replicas, err);
	if (st == WEFT_OK)
		part = 0;
	/* Start the work without waiting for it. */
	rc = clFlush(dev->queue);
	if (st == WEFT_OK && rc != CL_SUCCESS)
		st = weft__ocl_cl_fail(dev, err, "clFlush", rc, "after step");
	/* What was enqueued, a step that failed partway included: never
	 * fewer launches than were timed. */
	weft__kstats_count(&prog->pg, launches, n_launches, done);
	weft__kstats_count(&prog->pg, launches, part, 1);
	weft__stats_step(&dev->st, done, n_launches, t0);
	dev->st.launches += part;
	return st;
}

weft_status weft__ocl_step(weft_device *dev, weft_program *prog,
			   const weft_launch *launches, uint32_t n_launches,
			   uint64_t n_steps, weft_error *err)
{
	weft_status st;

	st = weft__chk_step(&weft__ocl_chk, dev, prog, launches, n_launches,
			    err);
	if (st != WEFT_OK)
		return st;
	return enqueue_list(dev, prog, launches, NULL, n_launches, 1, n_steps,
			    err);
}

weft_status weft__ocl_step_replicas(weft_device *dev, weft_program *prog,
				    const weft_launch *launches,
				    const weft_replica_layout *layouts,
				    uint32_t n_launches, uint32_t replicas,
				    uint64_t n_steps, weft_error *err)
{
	weft_status st;

	st = weft__chk_step_replicas(&weft__ocl_chk, dev, prog, launches,
				     layouts, n_launches, replicas, err);
	if (st != WEFT_OK)
		return st;
	return enqueue_list(dev, prog, launches, layouts, n_launches, replicas,
			    n_steps, err);
}
