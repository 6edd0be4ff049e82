/*
 * core/run/memory.h - bounded memory (memory.c): a model's estimate of the
 * memory a run needs, what the host and the device have, and the checks
 * that refuse a run that does not fit before anything is allocated.
 */
#ifndef WEFT_MEMORY_H
#define WEFT_MEMORY_H

#include "config/conf.h"

/* Parts an estimate names; more are counted together in the last. */
#define WEFT__MEM_PARTS 12

typedef struct weft__mem_part {
	char what[64];	/* "agents" */
	char keys[160]; /* "[seir] agents = 37518" */
	uint64_t host, device;
} weft__mem_part;

struct weft_model_estimate {
	int known; /* the model has estimate() (model ABI 1.3) */
	unsigned n;
	weft__mem_part part[WEFT__MEM_PARTS];
	uint64_t host, device; /* the sums, saturated */
	/* weft_model_estimate_setup(): host memory held before any device
	 * buffer (host 0 when none; device always 0). */
	weft__mem_part setup;
};

/* The longest path of a cgroup file weft reads. */
#define WEFT__MEM_PATH 1024

/* What the host (or a device) has for a run. */
typedef struct weft__mem_avail {
	int known;	/* bytes is meaningful */
	uint64_t bytes; /* the lowest of the limits */
	/* Which: "MemAvailable", "what the cgroup v1 limit of FILE, 4.0
	 * GiB, leaves", ... */
	char from[WEFT__MEM_PATH + 64];
	int host;	/* a device whose memory is the host's */
	uint64_t total; /* a device's memory, 0 when unknown */
} weft__mem_avail;

/* The model's estimate() on cfg (est->known is 0 for a model without
 * one: an older ABI). */
weft_status weft__mem_estimate(weft_context *ctx, const weft_config *cfg,
			       const weft_model *model,
			       weft_model_estimate *est);
/* MemAvailable ($WEFT_MEM_AVAILABLE instead), lowered by the
 * address-space limit (ulimit -v) and by the limits of the process's
 * cgroups, v1 and v2, its own and those above it; WEFT_E_CONFIG when the
 * variable is not a number. */
weft_status weft__mem_host(weft_context *ctx, weft__mem_avail *out);
/* WEFT_E_NOMEM, "WHAT needs N bytes (1.0 GiB) of host memory (PARTS),
 * MemAvailable is A bytes (...); TODO", when need bytes, read whole into
 * memory (a checkpoint's state), are more than weft__mem_host() says the
 * host has; WEFT_OK when they fit or it is not known. */
weft_status weft__mem_host_has(weft_context *ctx, uint64_t need,
			       const char *what, const char *parts,
			       const char *todo);
/* The device's free memory, from the backend's mem_info() (ABI 1.3;
 * $WEFT_DEVICE_MEM_AVAILABLE instead); unknown (known 0) without it. */
weft_status weft__mem_device(weft_context *ctx, const weft_backend *vt,
			     weft_device *dev, weft__mem_avail *out);
/* WEFT_E_NOMEM, "model M needs N bytes of host memory (PARTS),
 * MemAvailable is A", when the model's host bytes (and its device bytes,
 * with_device: a device in host memory, of that backend) exceed what the
 * host has. */
weft_status weft__mem_check_host(weft_context *ctx, const char *model,
				 const weft_model_estimate *est,
				 const weft__mem_avail *host, int with_device,
				 const char *backend);
/* The same for the device's bytes against what it has free. */
weft_status weft__mem_check_device(weft_context *ctx, const char *model,
				   const weft_model_estimate *est,
				   const weft__mem_avail *dev,
				   const char *backend);
/* Model `model`'s estimate est (validation's) against the host (vt
 * NULL: before a device is open, the host bytes alone) or against the
 * host and the open device dev of backend vt, for a batch of `replicas`
 * runs on one device (batch.c: replicas times the estimate, the staged
 * buffers of their setups counting in the host's bytes, the message
 * saying so). */
weft_status weft__mem_fits(weft_context *ctx, const char *model,
			   const weft_model_estimate *est,
			   const weft_backend *vt, weft_device *dev,
			   uint32_t replicas);
/* Validation's verdict on the memory of a run of cfg with model's
 * estimate est: weft__mem_fits() on the host alone and, when the host's
 * and the device's bytes together do not fit the host (so that the
 * verdict depends on the device), weft__mem_fits() on the device of the
 * backend the run would use, opened here and closed: the run's own
 * verdict, message included. Without a device here (the backend cannot
 * be loaded or opened, or lacks what the program needs), the run decides
 * once its device is open. */
weft_status weft__mem_fits_config(weft_context *ctx, const weft_config *cfg,
				  const weft_model *model,
				  const weft_model_estimate *est);
/* The bytes a run needs of the host (which 'h'), of the device ('d'), or
 * of the host with the device's buffers in it ('b'): setup's early host
 * memory when it is the larger. */
uint64_t weft__mem_need(const weft_model_estimate *est, int which);
/* "12.0 MiB for agents ([seir] agents = 37518), ..." of the host bytes
 * (which 'h'), device bytes ('d') or both ('b'). */
void weft__mem_parts(const weft_model_estimate *est, int which, char *buf,
		     size_t size);

#endif
