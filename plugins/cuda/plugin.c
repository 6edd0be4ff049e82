/*
 * plugins/cuda/plugin.c - the CUDA backend's entry point: probe,
 * open/close, sync, fences, the counters, and the helpers every file uses
 * (CUDA error messages, the current device, ordering between the two
 * streams). Which device, and what it is, is device.c.
 *
 * The plugin links the CUDA runtime statically and never links libcuda:
 * on a machine without the NVIDIA driver it loads, and its probe says
 * "no CUDA driver (...)". The driver starts threads of its own, so the
 * plugin is linked with -z nodelete (local.mk) and never unmapped.
 *
 * Environment: WEFT_CUDA_GRAPHS=0 makes step() issue plain launches
 * instead of replaying CUDA graphs (read when a device is opened).
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "priv.h"

/* A fault inside a kernel is reported by whichever call comes next, so
 * the operation named may not be the culprit. */
static const char *weft__cuda_sticky_hint(cudaError_t e)
{
	switch (e) {
	case cudaErrorIllegalAddress:
	case cudaErrorLaunchFailure:
	case cudaErrorIllegalInstruction:
	case cudaErrorMisalignedAddress:
	case cudaErrorInvalidAddressSpace:
	case cudaErrorInvalidPc:
	case cudaErrorHardwareStackError:
	case cudaErrorAssert:
		return " (the context is lost; a kernel launched earlier may "
		       "have faulted: run it again under compute-sanitizer or "
		       "with CUDA_LAUNCH_BLOCKING=1 to find which)";
	default: return "";
	}
}

weft_status weft__cuda_check(const weft_device *dev, cudaError_t e,
			     weft_error *err, const char *fmt, ...)
{
	weft_status st;
	va_list ap;

	if (e == cudaSuccess)
		return WEFT_OK;
	/* Errors that are not sticky stay as the "last error" otherwise. */
	(void)cudaGetLastError();
	st = e == cudaErrorMemoryAllocation ? WEFT_E_NOMEM : WEFT_E_DEVICE;
	va_start(ap, fmt);
	weft__verrf("cuda", err, st, fmt, ap);
	va_end(ap);
	weft__err_append(err, " on %s: %s: %s%s",
			 dev ? dev->where : "the CUDA runtime",
			 cudaGetErrorName(e), cudaGetErrorString(e),
			 weft__cuda_sticky_hint(e));
	return st;
}

weft_status weft__cuda_enter(const weft_device *dev, weft_error *err)
{
	return weft__cuda_check(dev, cudaSetDevice(dev->ordinal), err,
				"making the device current");
}

/* ---- ordering between the two streams ---------------------------------
 *
 * The ABI promises one in-order queue. Every pair of operations that could
 * conflict (touch the same buffer, one of them writing) must run in issue
 * order; operations on one stream do. Across streams:
 *  - an operation on the copy stream (write from or read into the host)
 *    waits for the compute stream's tail whenever the compute stream has
 *    work the copy stream is not ordered after: it may touch what any
 *    launch touches, conservatively;
 *  - an operation on the compute stream (launches, device-to-device
 *    copies) waits for the copy stream's tail only when one of its buffers
 *    has a copy-stream operation it is not ordered after: a write into it,
 *    or a read from it that the operation could overwrite
 *    (weft__cuda_hazard). A read of a snapshot buffer therefore overlaps
 *    the next steps, which do not bind it.
 * A stream waits on an event recorded at the other stream's tail; the host
 * waiting for a fence, a blocking transfer or a sync also orders the
 * streams after what it saw complete (after[]).
 */

/* Stream s waits for everything issued on the other stream so far. */
static weft_status order_after_other(weft_device *dev, int s, weft_error *err)
{
	int o = !s;
	weft_status st = weft__cuda_check(
		dev, cudaEventRecord(dev->tail[o], dev->stream[o]), err,
		"recording a stream's tail");

	if (st == WEFT_OK)
		st = weft__cuda_check(
			dev,
			cudaStreamWaitEvent(dev->stream[s], dev->tail[o], 0),
			err, "ordering the %s stream after the %s stream",
			s == WEFT__CUDA_COMPUTE ? "compute" : "copy",
			o == WEFT__CUDA_COMPUTE ? "compute" : "copy");
	if (st == WEFT_OK)
		dev->after[s] = dev->ops[o];
	return st;
}

weft_status weft__cuda_order_copy(weft_device *dev, uint64_t *op,
				  weft_error *err)
{
	weft_status st = WEFT_OK;

	if (dev->ops[WEFT__CUDA_COMPUTE] > dev->after[WEFT__CUDA_COPY])
		st = order_after_other(dev, WEFT__CUDA_COPY, err);
	if (st == WEFT_OK)
		*op = ++dev->ops[WEFT__CUDA_COPY];
	return st;
}

int weft__cuda_hazard(const weft_device *dev, const weft_buf *b, int writes)
{
	uint64_t seen = dev->after[WEFT__CUDA_COMPUTE];

	return b && (b->copy_wrote > seen || (writes && b->copy_read > seen));
}

weft_status weft__cuda_order_compute(weft_device *dev, int wait,
				     weft_error *err)
{
	weft_status st = WEFT_OK;

	if (wait && dev->ops[WEFT__CUDA_COPY] > dev->after[WEFT__CUDA_COMPUTE])
		st = order_after_other(dev, WEFT__CUDA_COMPUTE, err);
	if (st == WEFT_OK)
		dev->ops[WEFT__CUDA_COMPUTE]++;
	return st;
}

void weft__cuda_seen(weft_device *dev, int s)
{
	if (dev->after[!s] < dev->ops[s])
		dev->after[!s] = dev->ops[s];
}

weft_status weft__cuda_drain(weft_device *dev, weft_error *err)
{
	weft_status st = WEFT_OK, st2;

	for (int s = 0; s < WEFT__CUDA_STREAMS; s++) {
		st2 = weft__cuda_check(
			dev, cudaStreamSynchronize(dev->stream[s]), err,
			"waiting for the %s stream",
			s == WEFT__CUDA_COMPUTE ? "compute" : "copy");
		if (st == WEFT_OK)
			st = st2;
	}
	if (st == WEFT_OK) {
		weft__cuda_seen(dev, WEFT__CUDA_COMPUTE);
		weft__cuda_seen(dev, WEFT__CUDA_COPY);
		dev->done_fence = dev->last_fence;
	}
	return st;
}

/* ---- probe --------------------------------------------------------------- */

/* cudaGetDeviceCount starts the driver (no context is created). */
static weft_status cuda_probe(weft_probe *out)
{
	weft_probe p;

	if (!out)
		return WEFT_E_INVALID;
	memset(&p, 0, sizeof p);
	weft__cuda_survey(&p.available, &p.score, p.reason, sizeof p.reason,
			  p.devices, sizeof p.devices);
	weft__probe_copy(out, &p);
	return WEFT_OK;
}

/* ---- open / close -------------------------------------------------------- */

/* What only this backend refuses; weft__chk_open() checked the rest. */
static weft_status check_config(const weft_device_config *cfg, weft_error *err)
{
	if (cfg->device < -1)
		return weft__cuda_fail(err, WEFT_E_INVALID,
				       "device %d does not exist", cfg->device);
	if (cfg->struct_size >= WEFT_DEVICE_CONFIG_V1_1_SIZE && cfg->platform &&
	    cfg->platform[0])
		return weft__cuda_fail(err, WEFT_E_INVALID,
				       "platform '%s': the CUDA backend has no "
				       "platforms (leave platform empty)",
				       cfg->platform);
	if (cfg->threads < 0)
		return weft__cuda_fail(err, WEFT_E_INVALID,
				       "threads must be 0 (the default) or "
				       "more, not %d",
				       cfg->threads);
	return WEFT_OK;
}

/* Streams and events; the device is current. */
static weft_status create_queues(weft_device *dev, weft_error *err)
{
	weft_status st = WEFT_OK;

	for (int s = 0; s < WEFT__CUDA_STREAMS && st == WEFT_OK; s++) {
		st = weft__cuda_check(
			dev,
			cudaStreamCreateWithFlags(&dev->stream[s],
						  cudaStreamNonBlocking),
			err, "creating a stream");
		if (st == WEFT_OK)
			st = weft__cuda_check(
				dev,
				cudaEventCreateWithFlags(
					&dev->tail[s], cudaEventDisableTiming),
				err, "creating an event");
	}
	for (int s = 0; s < WEFT__CUDA_STREAMS && st == WEFT_OK; s++)
		st = weft__cuda_check(
			dev,
			cudaEventCreateWithFlags(&dev->xfer_done[s],
						 cudaEventDisableTiming),
			err, "creating an event");
	return st;
}

static void destroy_queues(weft_device *dev)
{
	for (int s = 0; s < WEFT__CUDA_STREAMS; s++) {
		if (dev->tail[s])
			cudaEventDestroy(dev->tail[s]);
		if (dev->xfer_done[s])
			cudaEventDestroy(dev->xfer_done[s]);
		for (int f = 0; f < WEFT__CUDA_FENCES; f++)
			if (dev->fences[f].ev[s])
				cudaEventDestroy(dev->fences[f].ev[s]);
		if (dev->stream[s])
			cudaStreamDestroy(dev->stream[s]);
	}
}

static weft_status
copy_cache_dir(weft_device *dev, const weft_device_config *cfg, weft_error *err)
{
	if (!cfg->cache_dir || !cfg->cache_dir[0])
		return WEFT_OK;
	dev->cache_dir = strdup(cfg->cache_dir);
	if (!dev->cache_dir)
		return weft__cuda_fail(err, WEFT_E_NOMEM,
				       "%s: out of host memory", dev->where);
	return WEFT_OK;
}

static void cuda_close(weft_device *dev);

static weft_status cuda_open(const weft_device_config *cfg, weft_device **out,
			     weft_error *err)
{
	const char *graphs = getenv("WEFT_CUDA_GRAPHS");
	weft_device *dev;
	weft_status st;

	if ((st = weft__chk_open(&weft__cuda_chk, cfg, out, err)) ||
	    (st = check_config(cfg, err)))
		return st;
	dev = calloc(1, sizeof *dev);
	if (!dev)
		return weft__cuda_fail(err, WEFT_E_NOMEM,
				       "open: out of host memory");
	dev->st.struct_size = sizeof dev->st;
	dev->use_graphs = !(graphs && strcmp(graphs, "0") == 0);
	/* A graph replays its launches as one: no per-kernel timing. */
	dev->profile = cfg->struct_size >= WEFT_DEVICE_CONFIG_V1_5_SIZE &&
		       (cfg->flags & WEFT_DEVICE_PROFILE);
	if (dev->profile)
		dev->use_graphs = 0;
	weft__cuda_memory_init(dev);
	if ((st = weft__cuda_timing_open(dev, err)) ||
	    (st = weft__cuda_select(cfg, &dev->ordinal, err)) ||
	    (st = weft__cuda_describe(dev, err)) ||
	    (st = weft__cuda_enter(dev, err)) ||
	    (st = create_queues(dev, err)) ||
	    (st = copy_cache_dir(dev, cfg, err))) {
		cuda_close(dev);
		return st;
	}
	*out = dev;
	return WEFT_OK;
}

/* Waits for the device, then releases everything it holds. */
static void cuda_close(weft_device *dev)
{
	if (!dev)
		return;
	if (dev->stream[0] && weft__cuda_enter(dev, NULL) == WEFT_OK)
		(void)weft__cuda_drain(dev, NULL);
	weft__cuda_timing_close(dev);
	weft__cuda_programs_release(dev);
	weft__cuda_stage_release(dev);
	weft__cuda_memory_release(dev);
	destroy_queues(dev);
	weft__cuda_nvrtc_close(&dev->nvrtc);
	free(dev->cache_dir);
	free(dev);
}

/* ---- sync / stats -------------------------------------------------------- */

static weft_status cuda_sync(weft_device *dev, weft_error *err)
{
	uint64_t t0 = weft__clock_ns();
	weft_status st;

	if (!dev)
		return weft__cuda_fail(err, WEFT_E_INVALID, "sync: no device");
	dev->st.syncs++;
	st = weft__cuda_enter(dev, err);
	if (st == WEFT_OK) {
		st = weft__cuda_drain(dev, err);
		/* After a device failure the staged bytes mean nothing: the
		 * blocks are recycled, the callers' memory is left alone. */
		weft__cuda_stage_complete(dev, st == WEFT_OK);
		weft__cuda_timing_harvest(dev);
	}
	dev->st.time_ns[WEFT_PHASE_SYNC] += weft__clock_ns() - t0;
	return st;
}

/* ---- fences -------------------------------------------------------------- */

/* Record the fence's event at the tail of each stream (created at its
 * first use). */
static weft_status record_fence(weft_device *dev, struct weft__cuda_fence *f,
				weft_error *err)
{
	weft_status st = WEFT_OK;

	for (int s = 0; s < WEFT__CUDA_STREAMS && st == WEFT_OK; s++) {
		if (!f->ev[s])
			st = weft__cuda_check(
				dev,
				cudaEventCreateWithFlags(
					&f->ev[s], cudaEventDisableTiming),
				err, "fence: creating an event");
		if (st == WEFT_OK)
			st = weft__cuda_check(
				dev, cudaEventRecord(f->ev[s], dev->stream[s]),
				err, "fence: recording an event");
		f->ops[s] = dev->ops[s];
	}
	return st;
}

/* Never waits. A fence WEFT__CUDA_FENCES tokens older than this one gives
 * it its place (its events are recorded again): waiting on that older
 * token then waits on this fence, which covers it. */
static weft_status cuda_fence(weft_device *dev, uint64_t *token,
			      weft_error *err)
{
	struct weft__cuda_fence *f;
	weft_status st;

	if ((st = weft__chk_fence(&weft__cuda_chk, dev, token, err)))
		return st;
	f = &dev->fences[(dev->last_fence + 1) % WEFT__CUDA_FENCES];
	if ((st = weft__cuda_enter(dev, err)) ||
	    (st = record_fence(dev, f, err)))
		return st;
	f->token = ++dev->last_fence;
	f->live = 1;
	*token = f->token;
	return WEFT_OK;
}

/* Wait for the fence's events, then deliver the staged reads issued
 * before it; later work on either stream goes on. */
static weft_status wait_fence(weft_device *dev, uint64_t token, weft_error *err)
{
	struct weft__cuda_fence *f = &dev->fences[token % WEFT__CUDA_FENCES];
	weft_status st = WEFT_OK;

	if (token <= dev->done_fence || !f->live)
		return WEFT_OK;
	for (int s = 0; s < WEFT__CUDA_STREAMS && st == WEFT_OK; s++)
		st = weft__cuda_check(dev, cudaEventSynchronize(f->ev[s]), err,
				      "waiting for fence %llu",
				      (unsigned long long)f->token);
	if (st != WEFT_OK)
		return st;
	for (int s = 0; s < WEFT__CUDA_STREAMS; s++)
		if (dev->after[!s] < f->ops[s])
			dev->after[!s] = f->ops[s];
	weft__cuda_stage_complete_to(dev, f->ops[WEFT__CUDA_COPY]);
	f->live = 0;
	dev->done_fence = f->token;
	return WEFT_OK;
}

static weft_status cuda_wait(weft_device *dev, uint64_t token, weft_error *err)
{
	uint64_t t0 = weft__clock_ns();
	weft_status st = weft__chk_wait(&weft__cuda_chk, dev, token,
					dev ? dev->last_fence : 0, err);

	if (st != WEFT_OK)
		return st;
	dev->st.fence_waits++;
	st = weft__cuda_enter(dev, err);
	if (st == WEFT_OK)
		st = wait_fence(dev, token, err);
	if (st == WEFT_OK)
		weft__cuda_timing_harvest(dev);
	dev->st.time_ns[WEFT_PHASE_SYNC] += weft__clock_ns() - t0;
	return st;
}

static weft_status cuda_stats(weft_device *dev, weft_stats *out)
{
	return weft__stats_copy(out, dev ? &dev->st : NULL);
}

WEFT__CHK_OPS(weft__cuda_chk, "cuda");

WEFT_BACKEND_ENTRY = {
	.abi_major = WEFT_BACKEND_ABI_MAJOR,
	.abi_minor = WEFT_BACKEND_ABI_MINOR,
	.struct_size = sizeof(weft_backend),
	.name = "cuda",
	.version = PACKAGE_VERSION,
	.description = "NVIDIA GPUs through CUDA (kernels compiled by NVRTC)",
	.probe = cuda_probe,
	.open = cuda_open,
	.close = cuda_close,
	.alloc = weft__cuda_alloc,
	.free = weft__cuda_free,
	.write = weft__cuda_write,
	.read = weft__cuda_read,
	.copy = weft__cuda_copy,
	.load_program = weft__cuda_load_program,
	.unload_program = weft__cuda_unload_program,
	.step = weft__cuda_step,
	.sync = cuda_sync,
	.stats = cuda_stats,
	.fence = cuda_fence,
	.wait = cuda_wait,
	.native = weft__cuda_native,
	.mem_info = weft__cuda_mem_info,
	.step_replicas = weft__cuda_step_replicas,
	.caps = weft__cuda_caps,
	.kernel_stats = weft__cuda_kernel_stats,
};
