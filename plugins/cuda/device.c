/*
 * plugins/cuda/device.c - CUDA devices: what probe() reports, which device
 * open() takes, and what it reads of it.
 *
 * Devices are the runtime's ordinals (CUDA_VISIBLE_DEVICES applies).
 * Listing them starts the driver (cudaGetDeviceCount) but creates no
 * context. A device older than the kernels are built for (MIN_CC) is
 * listed as "too old" and refused by open().
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "priv.h"

/* The oldest compute capability the kernels are built for, as major * 10
 * + minor: 7.0, or 7.5 with a CUDA 13 toolkit, whose NVRTC no longer
 * compiles for sm_70 and sm_72. */
#define MIN_CC (CUDART_VERSION >= 13000 ? 75 : 70)

/* Why CUDA cannot run, from cudaGetDeviceCount's error. */
static void unavailable_reason(cudaError_t e, char *out, size_t size)
{
	if (e == cudaErrorInsufficientDriver)
		snprintf(out, size,
			 "no CUDA driver (libcuda.so.1 not found or too old: "
			 "%s)",
			 cudaGetErrorString(e));
	else if (e == cudaErrorNoDevice || e == cudaSuccess)
		snprintf(out, size, "no CUDA device");
	else if (e == cudaErrorInitializationError)
		snprintf(out, size,
			 "the CUDA runtime cannot start: %s (as in a process "
			 "fork()ed after its parent started CUDA: start CUDA "
			 "after fork(), or exec())",
			 cudaGetErrorString(e));
	else
		snprintf(out, size, "the CUDA runtime cannot start: %s: %s",
			 cudaGetErrorName(e), cudaGetErrorString(e));
	(void)cudaGetLastError();
}

/* "0: NAME (sm_90, 79 GiB)" into out; -1 when the device cannot be read. */
static int describe_device(int i, char *out, size_t size, int *usable)
{
	struct cudaDeviceProp prop;

	if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) {
		(void)cudaGetLastError();
		return -1;
	}
	*usable = prop.major * 10 + prop.minor >= MIN_CC;
	snprintf(out, size, "%d: %s (sm_%d%d, %llu GiB%s)", i, prop.name,
		 prop.major, prop.minor,
		 (unsigned long long)(prop.totalGlobalMem >> 30),
		 *usable ? "" : ", too old");
	return 0;
}

/* Every device, "; "-separated, as much as fits; counts the usable ones. */
static int list_devices(int n, char *out, size_t size)
{
	int usable_count = 0;
	size_t len = 0;

	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		char one[300];
		int usable = 0;

		if (describe_device(i, one, sizeof one, &usable) != 0)
			snprintf(one, sizeof one, "%d: (unreadable)", i);
		usable_count += usable;
		if (len < size)
			len += (size_t)snprintf(out + len, size - len, "%s%s",
						i ? "; " : "", one);
	}
	return usable_count;
}

void weft__cuda_survey(int *available, int *score, char *reason,
		       size_t reason_size, char *devices, size_t devices_size)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);

	if (e != cudaSuccess || n <= 0) {
		unavailable_reason(e, reason, reason_size);
	} else if (list_devices(n, devices, devices_size) == 0) {
		snprintf(reason, reason_size,
			 "no CUDA device of compute capability %d.%d or newer",
			 MIN_CC / 10, MIN_CC % 10);
	} else {
		*available = 1;
		*score = 900;
	}
}

/* The first device whose name contains want, ignoring case. */
static weft_status match_device(const char *want, int n, int *ordinal,
				weft_error *err)
{
	char list[256];

	for (int i = 0; i < n; i++) {
		struct cudaDeviceProp prop;

		if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) {
			(void)cudaGetLastError();
			continue;
		}
		if (strcasestr(prop.name, want)) {
			*ordinal = i;
			return WEFT_OK;
		}
	}
	list_devices(n, list, sizeof list);
	return weft__cuda_fail(err, WEFT_E_INVALID,
			       "no device named like '%s' (devices: %s)", want,
			       list);
}

weft_status weft__cuda_select(const weft_device_config *cfg, int *ordinal,
			      weft_error *err)
{
	char reason[256];
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);

	if (e != cudaSuccess || n <= 0) {
		unavailable_reason(e, reason, sizeof reason);
		return weft__cuda_fail(err, WEFT_E_UNAVAILABLE, "%s", reason);
	}
	if (cfg->device == -1 &&
	    cfg->struct_size >= WEFT_DEVICE_CONFIG_V1_1_SIZE &&
	    cfg->device_match)
		return match_device(cfg->device_match, n, ordinal, err);
	*ordinal = cfg->device == -1 ? 0 : cfg->device;
	if (*ordinal >= n)
		return weft__cuda_fail(err, WEFT_E_INVALID,
				       "device %d does not exist (%d CUDA "
				       "device%s, numbered from 0)",
				       *ordinal, n, n == 1 ? "" : "s");
	return WEFT_OK;
}

weft_status weft__cuda_describe(weft_device *dev, weft_error *err)
{
	struct cudaDeviceProp prop;
	weft_status st;

	st = weft__cuda_check(
		NULL, cudaGetDeviceProperties(&prop, dev->ordinal), err,
		"reading the properties of device %d", dev->ordinal);
	if (st != WEFT_OK)
		return st;
	snprintf(dev->name, sizeof dev->name, "%s", prop.name);
	dev->cc_major = prop.major;
	dev->cc_minor = prop.minor;
	dev->sm_count =
		prop.multiProcessorCount > 0 ? prop.multiProcessorCount : 1;
	snprintf(dev->where, sizeof dev->where, "device %d (%s, sm_%d%d)",
		 dev->ordinal, dev->name, dev->cc_major, dev->cc_minor);
	if (dev->cc_major * 10 + dev->cc_minor < MIN_CC)
		return weft__cuda_fail(err, WEFT_E_UNAVAILABLE,
				       "device %d (%s) is sm_%d%d; weft's CUDA "
				       "backend needs sm_%d or newer",
				       dev->ordinal, dev->name, dev->cc_major,
				       dev->cc_minor, MIN_CC);
	return weft__cuda_check(NULL,
				cudaDriverGetVersion(&dev->driver_version), err,
				"reading the driver version");
}

weft_status weft__cuda_caps(weft_device *dev, weft_device_caps *out,
			    weft_error *err)
{
	size_t hdr = sizeof out->struct_size, n;
	weft_device_caps c = { .struct_size = sizeof c };

	if (!dev)
		return weft__cuda_fail(err, WEFT_E_INVALID, "caps: no device");
	if (!out || out->struct_size < hdr)
		return weft__cuda_fail(err, WEFT_E_INVALID,
				       "caps: weft_device_caps %s",
				       out ? "too short" : "is NULL");
	/* Every device of MIN_CC or newer has binary64, 64-bit atomicAdd,
	 * and, with compile.c's options, IEEE + - * / sqrt (no contraction,
	 * no flush to zero). */
	c.caps = WEFT_CAP_F64 | WEFT_CAP_F32_EXACT | WEFT_CAP_SUBNORMAL |
		 WEFT_CAP_ATOMIC64;
	n = out->struct_size < sizeof c ? out->struct_size : sizeof c;
	memcpy((char *)out + hdr, (const char *)&c + hdr, n - hdr);
	return WEFT_OK;
}
