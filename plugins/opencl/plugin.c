/*
 * plugins/opencl/plugin.c - the OpenCL backend's entry point: probe,
 * open/close, sync, fences, the counters and error messages.
 *
 * open() picks a platform and a device (device.c), creates a context with
 * one in-order command queue, a small dummy buffer for kernel arguments no
 * launch binds, and the pinned staging area (transfer.c). `threads` is
 * ignored: an OpenCL driver schedules its own work items.
 *
 * The plugin is linked with -z nodelete (local.mk): OpenCL drivers (PoCL's
 * worker threads, GPU drivers' callback threads) outlive the devices that
 * started them, and unmapping the ICD loader under them would crash.
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "priv.h"

#define CL_ERR(x)     \
	{             \
		x, #x \
	}
static const struct {
	cl_int code;
	const char *name;
} cl_errors[] = {
	CL_ERR(CL_SUCCESS),
	CL_ERR(CL_DEVICE_NOT_FOUND),
	CL_ERR(CL_DEVICE_NOT_AVAILABLE),
	CL_ERR(CL_COMPILER_NOT_AVAILABLE),
	CL_ERR(CL_MEM_OBJECT_ALLOCATION_FAILURE),
	CL_ERR(CL_OUT_OF_RESOURCES),
	CL_ERR(CL_OUT_OF_HOST_MEMORY),
	CL_ERR(CL_PROFILING_INFO_NOT_AVAILABLE),
	CL_ERR(CL_MEM_COPY_OVERLAP),
	CL_ERR(CL_IMAGE_FORMAT_MISMATCH),
	CL_ERR(CL_IMAGE_FORMAT_NOT_SUPPORTED),
	CL_ERR(CL_BUILD_PROGRAM_FAILURE),
	CL_ERR(CL_MAP_FAILURE),
	CL_ERR(CL_MISALIGNED_SUB_BUFFER_OFFSET),
	CL_ERR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
	CL_ERR(CL_COMPILE_PROGRAM_FAILURE),
	CL_ERR(CL_LINKER_NOT_AVAILABLE),
	CL_ERR(CL_LINK_PROGRAM_FAILURE),
	CL_ERR(CL_DEVICE_PARTITION_FAILED),
	CL_ERR(CL_KERNEL_ARG_INFO_NOT_AVAILABLE),
	CL_ERR(CL_INVALID_VALUE),
	CL_ERR(CL_INVALID_DEVICE_TYPE),
	CL_ERR(CL_INVALID_PLATFORM),
	CL_ERR(CL_INVALID_DEVICE),
	CL_ERR(CL_INVALID_CONTEXT),
	CL_ERR(CL_INVALID_QUEUE_PROPERTIES),
	CL_ERR(CL_INVALID_COMMAND_QUEUE),
	CL_ERR(CL_INVALID_HOST_PTR),
	CL_ERR(CL_INVALID_MEM_OBJECT),
	CL_ERR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR),
	CL_ERR(CL_INVALID_IMAGE_SIZE),
	CL_ERR(CL_INVALID_SAMPLER),
	CL_ERR(CL_INVALID_BINARY),
	CL_ERR(CL_INVALID_BUILD_OPTIONS),
	CL_ERR(CL_INVALID_PROGRAM),
	CL_ERR(CL_INVALID_PROGRAM_EXECUTABLE),
	CL_ERR(CL_INVALID_KERNEL_NAME),
	CL_ERR(CL_INVALID_KERNEL_DEFINITION),
	CL_ERR(CL_INVALID_KERNEL),
	CL_ERR(CL_INVALID_ARG_INDEX),
	CL_ERR(CL_INVALID_ARG_VALUE),
	CL_ERR(CL_INVALID_ARG_SIZE),
	CL_ERR(CL_INVALID_KERNEL_ARGS),
	CL_ERR(CL_INVALID_WORK_DIMENSION),
	CL_ERR(CL_INVALID_WORK_GROUP_SIZE),
	CL_ERR(CL_INVALID_WORK_ITEM_SIZE),
	CL_ERR(CL_INVALID_GLOBAL_OFFSET),
	CL_ERR(CL_INVALID_EVENT_WAIT_LIST),
	CL_ERR(CL_INVALID_EVENT),
	CL_ERR(CL_INVALID_OPERATION),
	CL_ERR(CL_INVALID_GL_OBJECT),
	CL_ERR(CL_INVALID_BUFFER_SIZE),
	CL_ERR(CL_INVALID_MIP_LEVEL),
	CL_ERR(CL_INVALID_GLOBAL_WORK_SIZE),
	CL_ERR(CL_INVALID_PROPERTY),
	CL_ERR(CL_INVALID_IMAGE_DESCRIPTOR),
	CL_ERR(CL_INVALID_COMPILER_OPTIONS),
	CL_ERR(CL_INVALID_LINKER_OPTIONS),
	CL_ERR(CL_INVALID_DEVICE_PARTITION_COUNT),
	{ -1001, "CL_PLATFORM_NOT_FOUND_KHR" },
};
#undef CL_ERR

const char *weft__ocl_err_name(cl_int code)
{
	for (size_t i = 0; i < sizeof cl_errors / sizeof cl_errors[0]; i++)
		if (cl_errors[i].code == code)
			return cl_errors[i].name;
	return "unknown OpenCL error";
}

weft_status weft__ocl_cl_fail(const weft_device *dev, weft_error *err,
			      const char *call, cl_int code, const char *fmt,
			      ...)
{
	weft_status st = WEFT_E_DEVICE;
	va_list ap;

	if (code == CL_OUT_OF_HOST_MEMORY ||
	    code == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
	    code == CL_OUT_OF_RESOURCES)
		st = WEFT_E_NOMEM;
	weft__ocl_fail(err, st, "device '%s': %s failed: %s (%d): ",
		       dev ? dev->names.device : "?", call,
		       weft__ocl_err_name(code), (int)code);
	va_start(ap, fmt);
	weft__err_vappend(err, fmt, ap);
	va_end(ap);
	return st;
}

/* Only looks: lists platforms and devices, creates no context. */
static weft_status ocl_probe(weft_probe *out)
{
	weft_probe p;

	if (!out)
		return WEFT_E_INVALID;
	memset(&p, 0, sizeof p);
	weft__ocl_survey(&p.available, &p.score, p.reason, sizeof p.reason,
			 p.devices, sizeof p.devices);
	weft__probe_copy(out, &p);
	return WEFT_OK;
}

static weft_status device_info(weft_device *dev, cl_device_info what,
			       const char *name, void *out, size_t size,
			       weft_error *err)
{
	cl_int rc = clGetDeviceInfo(dev->id, what, size, out, NULL);

	if (rc == CL_SUCCESS)
		return WEFT_OK;
	return weft__ocl_cl_fail(dev, err, "clGetDeviceInfo", rc, "reading %s",
				 name);
}

/* Names for messages and cache keys; sizes and limits. */
static weft_status read_properties(weft_device *dev, weft_error *err)
{
	struct weft__ocl_names *nm = &dev->names;
	cl_device_type type = 0;
	cl_uint align = 0, units = 0;
	weft_status st;

	weft__ocl_device_str(dev->id, CL_DEVICE_NAME, nm->device,
			     sizeof nm->device);
	weft__ocl_device_str(dev->id, CL_DEVICE_VERSION, nm->device_version,
			     sizeof nm->device_version);
	weft__ocl_device_str(dev->id, CL_DRIVER_VERSION, nm->driver_version,
			     sizeof nm->driver_version);
	weft__ocl_platform_str(dev->platform, CL_PLATFORM_NAME, nm->platform,
			       sizeof nm->platform);
	weft__ocl_platform_str(dev->platform, CL_PLATFORM_VERSION,
			       nm->platform_version,
			       sizeof nm->platform_version);
	if ((st = device_info(dev, CL_DEVICE_TYPE, "its type", &type,
			      sizeof type, err)) ||
	    (st = device_info(dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN,
			      "its buffer alignment", &align, sizeof align,
			      err)) ||
	    (st = device_info(dev, CL_DEVICE_MAX_COMPUTE_UNITS,
			      "its compute units", &units, sizeof units,
			      err)) ||
	    (st = device_info(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
			      "its largest allocation", &dev->max_alloc,
			      sizeof dev->max_alloc, err)) ||
	    (st = device_info(dev, CL_DEVICE_GLOBAL_MEM_SIZE,
			      "its global memory", &dev->global_mem,
			      sizeof dev->global_mem, err)))
		return st;
	if (align < WEFT__OCL_MIN_ALIGN_BITS)
		return weft__ocl_fail(err, WEFT_E_UNAVAILABLE,
				      "device '%s' aligns buffers to %u bits; "
				      "weft needs at least %d (64 bytes)",
				      nm->device, (unsigned)align,
				      WEFT__OCL_MIN_ALIGN_BITS);
	dev->is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
	/* Enough items to fill the device; more only add scheduling. */
	dev->max_items =
		(size_t)(units ? units : 1) * (dev->is_gpu ? 2048 : 1024);
	return WEFT_OK;
}

static weft_status create_queue(weft_device *dev, weft_error *err)
{
	cl_context_properties props[] = { CL_CONTEXT_PLATFORM,
					  (cl_context_properties)dev->platform,
					  0 };
	cl_int rc;

	dev->ctx = clCreateContext(props, 1, &dev->id, NULL, NULL, &rc);
	if (!dev->ctx)
		return weft__ocl_cl_fail(dev, err, "clCreateContext", rc,
					 "on platform '%s'",
					 dev->names.platform);
	/* In order: the one queue of weft/backend.h; profiling only when
	 * kernels are timed (WEFT_DEVICE_PROFILE). */
	dev->queue = clCreateCommandQueue(
		dev->ctx, dev->id, dev->profile ? CL_QUEUE_PROFILING_ENABLE : 0,
		&rc);
	if (!dev->queue)
		return weft__ocl_cl_fail(dev, err, "clCreateCommandQueue", rc,
					 "in-order queue");
	dev->dummy = clCreateBuffer(dev->ctx, CL_MEM_READ_WRITE,
				    WEFT__OCL_GRAIN, NULL, &rc);
	if (!dev->dummy)
		return weft__ocl_cl_fail(dev, err, "clCreateBuffer", rc,
					 "%d bytes for unbound arguments",
					 WEFT__OCL_GRAIN);
	return WEFT_OK;
}

static void ocl_close(weft_device *dev)
{
	if (!dev)
		return;
	/* Nothing may still write into host memory or buffers freed below. */
	if (dev->queue)
		clFinish(dev->queue);
	weft__ocl_timing_close(dev);
	for (int i = 0; i < WEFT__OCL_FENCES; i++)
		if (dev->fences[i].ev)
			clReleaseEvent(dev->fences[i].ev);
	weft__ocl_programs_release(dev);
	weft__ocl_memory_release(dev);
	weft__ocl_stage_close(dev);
	if (dev->dummy)
		clReleaseMemObject(dev->dummy);
	if (dev->queue)
		clReleaseCommandQueue(dev->queue);
	if (dev->ctx)
		clReleaseContext(dev->ctx);
	free(dev->pending);
	free(dev->cache_dir);
	free(dev);
}

static weft_status open_device(weft_device *dev, const weft_device_config *cfg,
			       weft_error *err)
{
	weft_status st;

	st = weft__ocl_select(cfg, &dev->platform, &dev->id, &dev->index, err);
	if (st == WEFT_OK)
		st = read_properties(dev, err);
	if (st == WEFT_OK)
		st = weft__ocl_read_caps(dev, err);
	if (st == WEFT_OK)
		st = create_queue(dev, err);
	if (st == WEFT_OK)
		st = weft__ocl_stage_open(dev, err);
	if (st == WEFT_OK && cfg->cache_dir && cfg->cache_dir[0]) {
		dev->cache_dir = strdup(cfg->cache_dir);
		if (!dev->cache_dir)
			st = weft__ocl_fail(err, WEFT_E_NOMEM,
					    "open: out of host memory");
	}
	return st;
}

static weft_status ocl_open(const weft_device_config *cfg, weft_device **out,
			    weft_error *err)
{
	weft_device *dev;
	weft_status st;

	st = weft__chk_open(&weft__ocl_chk, cfg, out, err);
	if (st != WEFT_OK)
		return st;
	dev = calloc(1, sizeof *dev);
	if (!dev)
		return weft__ocl_fail(err, WEFT_E_NOMEM,
				      "open: cannot allocate %zu bytes of "
				      "host memory for the device",
				      sizeof *dev);
	dev->st.struct_size = sizeof dev->st;
	dev->profile = cfg->struct_size >= WEFT_DEVICE_CONFIG_V1_5_SIZE &&
		       (cfg->flags & WEFT_DEVICE_PROFILE);
	weft__ocl_memory_init(dev);
	st = weft__ocl_timing_open(dev, err);
	if (st == WEFT_OK)
		st = open_device(dev, cfg, err);
	if (st != WEFT_OK) {
		ocl_close(dev);
		return st;
	}
	*out = dev;
	return WEFT_OK;
}

weft_status weft__ocl_finish(weft_device *dev, const char *why, weft_error *err)
{
	cl_int rc = clFinish(dev->queue);

	if (rc != CL_SUCCESS)
		return weft__ocl_cl_fail(dev, err, "clFinish", rc, "%s", why);
	weft__ocl_complete_staged(dev, UINT64_MAX);
	dev->done_fence = dev->last_fence;
	return WEFT_OK;
}

static weft_status ocl_sync(weft_device *dev, weft_error *err)
{
	uint64_t t0 = weft__clock_ns();
	weft_status st;

	if (!dev)
		return weft__ocl_fail(err, WEFT_E_INVALID, "sync: no device");
	st = weft__ocl_finish(dev, "sync", err);
	weft__ocl_timing_harvest(dev);
	dev->st.syncs++;
	dev->st.time_ns[WEFT_PHASE_SYNC] += weft__clock_ns() - t0;
	return st;
}

/* A marker after everything enqueued so far, kept by token with the count
 * of staged transfers before it. The queue is flushed, so that the device
 * starts on the work (a flush does not wait). A fence WEFT__OCL_FENCES
 * tokens older than this one gives it its place: waiting on that older
 * token then waits on this fence, which covers it. */
static weft_status ocl_fence(weft_device *dev, uint64_t *token, weft_error *err)
{
	struct weft__ocl_fence *f;
	cl_event ev = NULL;
	cl_int rc;

	if (weft__chk_fence(&weft__ocl_chk, dev, token, err))
		return WEFT_E_INVALID;
	rc = clEnqueueMarkerWithWaitList(dev->queue, 0, NULL, &ev);
	if (rc == CL_SUCCESS)
		rc = clFlush(dev->queue);
	if (rc != CL_SUCCESS) {
		if (ev)
			clReleaseEvent(ev);
		return weft__ocl_cl_fail(dev, err,
					 "clEnqueueMarkerWithWaitList", rc,
					 "fence after %llu fences",
					 (unsigned long long)dev->last_fence);
	}
	f = &dev->fences[(dev->last_fence + 1) % WEFT__OCL_FENCES];
	if (f->ev)
		clReleaseEvent(f->ev);
	f->ev = ev;
	f->token = ++dev->last_fence;
	f->seq = dev->staged;
	*token = f->token;
	return WEFT_OK;
}

/* Wait for the fence's marker, then complete the staged transfers issued
 * before it (reads copied out in issue order); later work goes on. */
static weft_status wait_fence(weft_device *dev, uint64_t token, weft_error *err)
{
	struct weft__ocl_fence *f = &dev->fences[token % WEFT__OCL_FENCES];
	cl_int rc;

	if (token <= dev->done_fence)
		return WEFT_OK;
	rc = clWaitForEvents(1, &f->ev);
	if (rc != CL_SUCCESS)
		return weft__ocl_cl_fail(dev, err, "clWaitForEvents", rc,
					 "waiting for fence %llu",
					 (unsigned long long)token);
	weft__ocl_complete_staged(dev, f->seq);
	clReleaseEvent(f->ev);
	f->ev = NULL;
	dev->done_fence = f->token;
	return WEFT_OK;
}

static weft_status ocl_wait(weft_device *dev, uint64_t token, weft_error *err)
{
	uint64_t t0 = weft__clock_ns();
	weft_status st = weft__chk_wait(&weft__ocl_chk, dev, token,
					dev ? dev->last_fence : 0, err);

	if (st != WEFT_OK)
		return st;
	st = wait_fence(dev, token, err);
	weft__ocl_timing_harvest(dev);
	dev->st.fence_waits++;
	dev->st.time_ns[WEFT_PHASE_SYNC] += weft__clock_ns() - t0;
	return st;
}

static weft_status ocl_stats(weft_device *dev, weft_stats *out)
{
	return weft__stats_copy(out, dev ? &dev->st : NULL);
}

WEFT__CHK_OPS(weft__ocl_chk, "opencl");

WEFT_BACKEND_ENTRY = {
	.abi_major = WEFT_BACKEND_ABI_MAJOR,
	.abi_minor = WEFT_BACKEND_ABI_MINOR,
	.struct_size = sizeof(weft_backend),
	.name = "opencl",
	.version = PACKAGE_VERSION,
	.description = "OpenCL 1.2 devices through the ICD loader",
	.probe = ocl_probe,
	.open = ocl_open,
	.close = ocl_close,
	.alloc = weft__ocl_alloc,
	.free = weft__ocl_free,
	.write = weft__ocl_write,
	.read = weft__ocl_read,
	.copy = weft__ocl_copy,
	.load_program = weft__ocl_load_program,
	.unload_program = weft__ocl_unload_program,
	.step = weft__ocl_step,
	.sync = ocl_sync,
	.stats = ocl_stats,
	.fence = ocl_fence,
	.wait = ocl_wait,
	.native = weft__ocl_native,
	.mem_info = weft__ocl_mem_info,
	.kernel_stats = weft__ocl_kernel_stats,
	.step_replicas = weft__ocl_step_replicas,
	.caps = weft__ocl_caps,
};
