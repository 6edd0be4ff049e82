/*
 * plugins/openmp/plugin.c - the OpenMP backend's entry point: probe,
 * open/close, sync, fences and the counters.
 *
 * The host is the one device (index 0). How many threads a parallel region
 * uses is a property of the opened device (num_threads clauses), never of
 * the process: omp_set_num_threads() would change it for the application
 * and for other devices too.
 *
 * The runtime's worker threads outlive the parallel regions that started
 * them, so the plugin is linked with -z nodelete (local.mk): unloading it,
 * and the runtime with it, would crash those threads.
 */
#include "config.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "priv.h"

/* Where the default thread count comes from, for the probe's description. */
static const char *threads_source(void)
{
	return getenv("OMP_NUM_THREADS") ? "OMP_NUM_THREADS" : "cores";
}

/* Only looks: omp_get_max_threads() reads the runtime's settings, which
 * honour OMP_NUM_THREADS, without starting any thread. */
static weft_status omp_probe(weft_probe *out)
{
	weft_probe p;
	int n;

	if (!out)
		return WEFT_E_INVALID;
	memset(&p, 0, sizeof p);
	n = omp_get_max_threads();
	if (n >= 1) {
		p.available = 1;
		p.score = 100; /* below any GPU backend that is available */
		snprintf(p.devices, sizeof p.devices,
			 "host CPU, %d OpenMP thread%s (%s)", n,
			 n == 1 ? "" : "s", threads_source());
	} else {
		snprintf(p.reason, sizeof p.reason,
			 "the OpenMP runtime offers no thread");
	}
	weft__probe_copy(out, &p);
	return WEFT_OK;
}

/* Physical memory: no allocation larger than this can succeed. */
static uint64_t host_memory_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES);
	long page = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || page <= 0)
		return UINT64_MAX; /* unknown: let the allocator decide */
	return (uint64_t)pages * (uint64_t)page;
}

/* A device name substring matches the one device, "host", ignoring case. */
static int weft__omp_name_matches(const char *want)
{
	static const char name[] = "host";
	size_t n = strlen(want);

	for (size_t i = 0; n <= 4 && i + n <= 4; i++)
		if (strncasecmp(name + i, want, n) == 0)
			return 1;
	return 0;
}

/* What only this backend refuses; weft__chk_open() checked the rest. */
static weft_status check_config(const weft_device_config *cfg, weft_error *err)
{
	if (cfg->device != -1 && cfg->device != 0)
		return weft__omp_fail(
			err, WEFT_E_INVALID,
			"device %d does not exist (the host is device 0)",
			cfg->device);
	if (cfg->struct_size >= WEFT_DEVICE_CONFIG_V1_1_SIZE && cfg->platform &&
	    cfg->platform[0])
		return weft__omp_fail(err, WEFT_E_INVALID,
				      "platform '%s': the OpenMP backend has "
				      "no platforms (leave platform empty)",
				      cfg->platform);
	if (cfg->struct_size >= WEFT_DEVICE_CONFIG_V1_1_SIZE &&
	    cfg->device_match && !weft__omp_name_matches(cfg->device_match))
		return weft__omp_fail(err, WEFT_E_INVALID,
				      "no device named like '%s': the only "
				      "device is 'host' (index 0)",
				      cfg->device_match);
	if (cfg->threads < 0)
		return weft__omp_fail(err, WEFT_E_INVALID,
				      "device 0: threads must be 0 (the "
				      "default) or more, not %d",
				      cfg->threads);
	return WEFT_OK;
}

static weft_status omp_open(const weft_device_config *cfg, weft_device **out,
			    weft_error *err)
{
	weft_device *dev;
	weft_status st;

	if ((st = weft__chk_open(&weft__omp_chk, cfg, out, err)) ||
	    (st = check_config(cfg, err)))
		return st;
	dev = calloc(1, sizeof *dev);
	if (!dev)
		return weft__omp_fail(err, WEFT_E_NOMEM,
				      "device 0: cannot allocate %zu bytes of "
				      "host memory for the device",
				      sizeof *dev);
	dev->threads = cfg->threads > 0 ? cfg->threads : omp_get_max_threads();
	if (dev->threads < 1)
		dev->threads = 1;
	weft__omp_team_init(dev);
	dev->host_bytes = host_memory_bytes();
	weft__omp_memory_init(dev);
	dev->profile = cfg->struct_size >= WEFT_DEVICE_CONFIG_V1_5_SIZE &&
		       (cfg->flags & WEFT_DEVICE_PROFILE);
	dev->st.struct_size = sizeof dev->st;
	*out = dev;
	return WEFT_OK;
}

static void omp_close(weft_device *dev)
{
	if (!dev)
		return;
	weft__omp_programs_release(dev);
	weft__omp_memory_release(dev);
	free(dev);
}

/* Every operation completed when it was issued: nothing to wait for, but the
 * wait is still counted, so that tests can assert how often callers wait.
 * No time is spent, so none is measured: two clock reads would cost more
 * than the rest of a small host-action step's sync (the sync phase of the
 * counters stays 0 on this backend). */
static weft_status omp_sync(weft_device *dev, weft_error *err)
{
	if (!dev)
		return weft__omp_fail(err, WEFT_E_INVALID, "sync: no device");
	dev->st.syncs++;
	return WEFT_OK;
}

/* Everything issued has completed already: a fence is a number. Tokens
 * count fences, so that wait() can refuse one not issued yet. */
static weft_status omp_fence(weft_device *dev, uint64_t *token, weft_error *err)
{
	weft_status st = weft__chk_fence(&weft__omp_chk, dev, token, err);

	if (st != WEFT_OK)
		return st;
	*token = ++dev->fences;
	return WEFT_OK;
}

/* Nothing to wait for once the token is known; counted like sync(), and
 * likewise not timed. */
static weft_status omp_wait(weft_device *dev, uint64_t token, weft_error *err)
{
	weft_status st = weft__chk_wait(&weft__omp_chk, dev, token,
					dev ? dev->fences : 0, err);

	if (st != WEFT_OK)
		return st;
	dev->st.fence_waits++;
	return WEFT_OK;
}

static weft_status omp_stats(weft_device *dev, weft_stats *out)
{
	return weft__stats_copy(out, dev ? &dev->st : NULL);
}

/* Buffers are host memory: the core checks them against MemAvailable. */
static weft_status omp_mem_info(weft_device *dev, weft_mem_info *out,
				weft_error *err)
{
	weft_status st = weft__chk_mem_info(&weft__omp_chk, dev, out, err);
	weft_mem_info mi;

	if (st != WEFT_OK)
		return st;
	weft__mem_info_host(&mi);
	weft__mem_info_copy(out, &mi);
	return WEFT_OK;
}

/* Every capability: the kernels are the model's host builds, C compiled
 * with -ffp-contract=off for x86-64 or AArch64 (IEEE binary32 and
 * binary64, subnormals kept unless the process sets flush-to-zero), and
 * 64-bit atomics are __atomic builtins. */
static weft_status omp_caps(weft_device *dev, weft_device_caps *out,
			    weft_error *err)
{
	weft_device_caps c = { .struct_size = sizeof c };
	size_t hdr = sizeof out->struct_size;

	if (!dev || !out || out->struct_size < hdr)
		return weft__omp_fail(err, WEFT_E_INVALID, "caps: %s",
				      !dev   ? "no device"
				      : !out ? "weft_device_caps is NULL"
					     : "weft_device_caps too "
					       "short");
	c.caps = WEFT_CAP_F64 | WEFT_CAP_F32_EXACT | WEFT_CAP_SUBNORMAL |
		 WEFT_CAP_ATOMIC64;
	memcpy((char *)out + hdr, (const char *)&c + hdr,
	       (out->struct_size < sizeof c ? out->struct_size : sizeof c) -
		       hdr);
	return WEFT_OK;
}

WEFT__CHK_OPS(weft__omp_chk, "openmp");

WEFT_BACKEND_ENTRY = {
	.abi_major = WEFT_BACKEND_ABI_MAJOR,
	.abi_minor = WEFT_BACKEND_ABI_MINOR,
	.struct_size = sizeof(weft_backend),
	.name = "openmp",
	.version = PACKAGE_VERSION,
	.description = "host CPU threads through OpenMP",
	.probe = omp_probe,
	.open = omp_open,
	.close = omp_close,
	.alloc = weft__omp_alloc,
	.free = weft__omp_free,
	.write = weft__omp_write,
	.read = weft__omp_read,
	.copy = weft__omp_copy,
	.load_program = weft__omp_load_program,
	.unload_program = weft__omp_unload_program,
	.step = weft__omp_step,
	.sync = omp_sync,
	.stats = omp_stats,
	.fence = omp_fence,
	.wait = omp_wait,
	.native = weft__omp_native,
	.mem_info = omp_mem_info,
	.step_replicas = weft__omp_step_replicas,
	.caps = omp_caps,
	.kernel_stats = weft__omp_kernel_stats,
};
