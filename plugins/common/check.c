/*
 * plugins/common/check.c - the backend ABI's argument checks, shared by the
 * first-party backends (check.h).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "check.h"
#include "error.h"
#include "pool.h"
#include "program.h"

weft_status weft__chk_fail(const weft__chk_ops *ops, weft_error *err,
			   weft_status st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	st = weft__verrf(ops->backend, err, st, fmt, ap);
	va_end(ap);
	return st;
}

/* The common parts of a backend's buffers and programs. */
static const struct weft__pool_buf *pb_of(const weft__chk_ops *ops,
					  const weft_buf *b)
{
	return (const void *)((const char *)b + ops->buf_pb);
}

static const struct weft__prog *pg_of(const weft__chk_ops *ops,
				      const weft_program *prog)
{
	return (const void *)((const char *)prog + ops->prog_pg);
}

/* "OP: no device", or "OP: no WHAT" for a missing place for an answer. */
static weft_status no_arg(const weft__chk_ops *ops, const char *op,
			  const void *dev, const char *what, weft_error *err)
{
	return weft__chk_fail(ops, err, WEFT_E_INVALID, "%s: no %s", op,
			      dev ? what : "device");
}

/* ---- devices and fences -------------------------------------------------- */

weft_status weft__chk_open(const weft__chk_ops *ops,
			   const weft_device_config *cfg, weft_device **out,
			   weft_error *err)
{
	if (!out)
		return weft__chk_fail(ops, err, WEFT_E_INVALID,
				      "open: no place for the device");
	*out = NULL;
	if (!cfg)
		return weft__chk_fail(ops, err, WEFT_E_INVALID,
				      "open: no device configuration");
	if (cfg->struct_size < WEFT_DEVICE_CONFIG_V1_0_SIZE)
		return weft__chk_fail(ops, err, WEFT_E_INVALID,
				      "open: device configuration has "
				      "struct_size %u, expected at least %zu",
				      (unsigned)cfg->struct_size,
				      (size_t)WEFT_DEVICE_CONFIG_V1_0_SIZE);
	return WEFT_OK;
}

weft_status weft__chk_fence(const weft__chk_ops *ops, const void *dev,
			    const uint64_t *token, weft_error *err)
{
	if (dev && token)
		return WEFT_OK;
	return no_arg(ops, "fence", dev, "place for the token", err);
}

weft_status weft__chk_wait(const weft__chk_ops *ops, const void *dev,
			   uint64_t token, uint64_t last, weft_error *err)
{
	if (!dev)
		return no_arg(ops, "wait", dev, "", err);
	if (token != 0 && token <= last)
		return WEFT_OK;
	return weft__chk_fail(ops, err, WEFT_E_INVALID,
			      "wait: token %llu was not returned by fence() "
			      "(the last fence is %llu)",
			      (unsigned long long)token,
			      (unsigned long long)last);
}

/* ---- buffers ------------------------------------------------------------- */

weft_status weft__chk_alloc(const weft__chk_ops *ops, const void *dev,
			    weft_buf **out, weft_error *err)
{
	if (out)
		*out = NULL;
	if (dev && out)
		return WEFT_OK;
	return no_arg(ops, "alloc", dev, "place for the buffer", err);
}

weft_status weft__chk_native(const weft__chk_ops *ops, const void *dev,
			     const weft_buf *b, const weft_native *out,
			     weft_error *err)
{
	if (!dev)
		return no_arg(ops, "native", dev, "", err);
	if (!b)
		return weft__chk_fail(ops, err, WEFT_E_INVALID,
				      "native: no buffer");
	if (pb_of(ops, b)->pooled)
		return weft__chk_fail(ops, err, WEFT_E_INVALID,
				      "native: the buffer was freed");
	if (!out)
		return weft__chk_fail(ops, err, WEFT_E_INVALID,
				      "native: no place for the answer");
	if (out->struct_size >= WEFT_NATIVE_V1_2_SIZE)
		return WEFT_OK;
	return weft__chk_fail(ops, err, WEFT_E_INVALID,
			      "native: weft_native has struct_size %u, "
			      "expected at least %zu",
			      (unsigned)out->struct_size,
			      (size_t)WEFT_NATIVE_V1_2_SIZE);
}

/* ---- transfers ----------------------------------------------------------- */

static weft_status check_flags(const weft__chk_ops *ops, const char *op,
			       unsigned flags, weft_error *err)
{
	if ((flags & ~(unsigned)WEFT_XFER_ASYNC) == 0)
		return WEFT_OK;
	return weft__chk_fail(ops, err, WEFT_E_INVALID,
			      "%s: unknown transfer flags 0x%x", op,
			      flags & ~(unsigned)WEFT_XFER_ASYNC);
}

/* [offset, offset + bytes) inside b, without overflowing; role names the
 * buffer ("source", "destination"). */
static weft_status check_range(const weft__chk_ops *ops, const char *op,
			       const char *role, const weft_buf *b,
			       size_t offset, size_t bytes, weft_error *err)
{
	size_t size;

	if (!b)
		return weft__chk_fail(ops, err, WEFT_E_INVALID,
				      "%s: no %s buffer", op, role);
	if (pb_of(ops, b)->pooled)
		return weft__chk_fail(ops, err, WEFT_E_INVALID,
				      "%s: the %s buffer was freed", op, role);
	size = pb_of(ops, b)->size;
	if (offset <= size && bytes <= size - offset)
		return WEFT_OK;
	return weft__chk_fail(ops, err, WEFT_E_INVALID,
			      "%s of %zu bytes at offset %zu is outside the %s "
			      "buffer of %zu bytes",
			      op, bytes, offset, role, size);
}

static weft_status check_host(const weft__chk_ops *ops, const char *op,
			      const char *role, const void *p, size_t bytes,
			      weft_error *err)
{
	if (p || bytes == 0)
		return WEFT_OK;
	return weft__chk_fail(ops, err, WEFT_E_INVALID,
			      "%s of %zu bytes: the host %s pointer is NULL",
			      op, bytes, role);
}

weft_status weft__chk_write(const weft__chk_ops *ops, const void *dev,
			    const weft_buf *dst, size_t offset, const void *src,
			    size_t bytes, unsigned flags, weft_error *err)
{
	weft_status st;

	if (!dev)
		return no_arg(ops, "write", dev, "", err);
	if ((st = check_flags(ops, "write", flags, err)) ||
	    (st = check_range(ops, "write", "destination", dst, offset, bytes,
			      err)))
		return st;
	return check_host(ops, "write", "source", src, bytes, err);
}

weft_status weft__chk_read(const weft__chk_ops *ops, const void *dev,
			   const void *dst, const weft_buf *src, size_t offset,
			   size_t bytes, unsigned flags, weft_error *err)
{
	weft_status st;

	if (!dev)
		return no_arg(ops, "read", dev, "", err);
	if ((st = check_flags(ops, "read", flags, err)) ||
	    (st = check_range(ops, "read", "source", src, offset, bytes, err)))
		return st;
	return check_host(ops, "read", "destination", dst, bytes, err);
}

weft_status weft__chk_copy(const weft__chk_ops *ops, const void *dev,
			   const weft_buf *dst, size_t dst_offset,
			   const weft_buf *src, size_t src_offset, size_t bytes,
			   unsigned flags, weft_error *err)
{
	weft_status st;

	if (!dev)
		return no_arg(ops, "copy", dev, "", err);
	if ((st = check_flags(ops, "copy", flags, err)) ||
	    (st = check_range(ops, "copy", "source", src, src_offset, bytes,
			      err)))
		return st;
	return check_range(ops, "copy", "destination", dst, dst_offset, bytes,
			   err);
}

/* ---- programs ------------------------------------------------------------ */

static weft_status check_kernels(const weft__chk_ops *ops,
				 const weft_program_desc *desc, int need_host,
				 weft_error *err)
{
	if (desc->n_kernels == 0 || !desc->kernels)
		return weft__chk_fail(ops, err, WEFT_E_INVALID,
				      "program '%s' has no kernels",
				      desc->name);
	for (uint32_t k = 0; k < desc->n_kernels; k++) {
		const weft_kernel_desc *kd = &desc->kernels[k];

		if (!kd->name || !kd->name[0])
			return weft__chk_fail(
				ops, err, WEFT_E_INVALID,
				"kernel %u of program '%s' has no name",
				(unsigned)k, desc->name);
		if (need_host && !kd->host_fn)
			return weft__chk_fail(
				ops, err, WEFT_E_INVALID,
				"kernel '%s' of program '%s' has no host build",
				kd->name, desc->name);
	}
	return WEFT_OK;
}

static weft_status check_program(const weft__chk_ops *ops,
				 const weft_program_desc *desc, int need_host,
				 const char *need_source, weft_error *err)
{
	if (!desc)
		return weft__chk_fail(ops, err, WEFT_E_INVALID,
				      "load_program: no program descriptor");
	if (desc->struct_size < WEFT_PROGRAM_DESC_V1_0_SIZE)
		return weft__chk_fail(ops, err, WEFT_E_INVALID,
				      "load_program: program descriptor has "
				      "struct_size %u, expected at least %zu",
				      (unsigned)desc->struct_size,
				      (size_t)WEFT_PROGRAM_DESC_V1_0_SIZE);
	if (!desc->name)
		return weft__chk_fail(ops, err, WEFT_E_INVALID,
				      "load_program: the program has no name");
	if (need_source && !desc->source)
		return weft__chk_fail(ops, err, WEFT_E_INVALID,
				      "program '%s' has no source: %s",
				      desc->name, need_source);
	return check_kernels(ops, desc, need_host, err);
}

weft_status weft__chk_load(const weft__chk_ops *ops, const void *dev,
			   const weft_program_desc *desc, weft_program **out,
			   int need_host, const char *need_source,
			   weft_error *err)
{
	if (!dev || !out)
		return no_arg(ops, "load_program", dev, "place for the program",
			      err);
	*out = NULL;
	return check_program(ops, desc, need_host, need_source, err);
}

/* ---- launch lists -------------------------------------------------------- */

/* Buffer k of launch i (k < 0: its extent buffer) is bound and live. */
static weft_status check_bound(const weft__chk_ops *ops,
			       const struct weft__prog *pg, uint32_t i,
			       const char *kname, int k, const weft_buf *b,
			       weft_error *err)
{
	char role[32];

	if (b && !pb_of(ops, b)->pooled)
		return WEFT_OK;
	if (k < 0)
		snprintf(role, sizeof role, "the extent buffer");
	else
		snprintf(role, sizeof role, "buffer %d", k);
	return weft__chk_fail(ops, err, WEFT_E_INVALID,
			      "launch %u of program '%s' (kernel '%s'): %s %s",
			      (unsigned)i, pg->name, kname, role,
			      b ? "was freed" : "is NULL");
}

static weft_status check_extent_buf(const weft__chk_ops *ops,
				    const struct weft__prog *pg, uint32_t i,
				    const char *kname, const weft_launch *l,
				    weft_error *err)
{
	weft_status st = check_bound(ops, pg, i, kname, -1, l->extent_buf, err);
	size_t size;

	if (st != WEFT_OK)
		return st;
	size = pb_of(ops, l->extent_buf)->size;
	if (l->extent_offset % sizeof(uint32_t) == 0 &&
	    size >= sizeof(uint32_t) &&
	    l->extent_offset <= size - sizeof(uint32_t))
		return WEFT_OK;
	return weft__chk_fail(
		ops, err, WEFT_E_INVALID,
		"launch %u of program '%s' (kernel '%s'): extent offset %u %s "
		"(the extent buffer has %zu bytes)",
		(unsigned)i, pg->name, kname, (unsigned)l->extent_offset,
		l->extent_offset % sizeof(uint32_t)
			? "is not a multiple of 4"
			: "leaves no 4-byte count inside the buffer",
		size);
}

static weft_status check_launch(const weft__chk_ops *ops,
				const struct weft__prog *pg, uint32_t i,
				const weft_launch *l, weft_error *err)
{
	const char *kname;

	if (l->kernel >= pg->n_kernels)
		return weft__chk_fail(
			ops, err, WEFT_E_INVALID,
			"launch %u of program '%s': kernel index %u is out of "
			"range (the program has %u kernels)",
			(unsigned)i, pg->name, (unsigned)l->kernel,
			(unsigned)pg->n_kernels);
	kname = pg->kernel_names[l->kernel];
	if (l->n_bufs > WEFT_KERNEL_MAX_BUFS)
		return weft__chk_fail(
			ops, err, WEFT_E_INVALID,
			"launch %u of program '%s' (kernel '%s'): %u buffers "
			"bound, at most %d allowed",
			(unsigned)i, pg->name, kname, (unsigned)l->n_bufs,
			WEFT_KERNEL_MAX_BUFS);
	for (uint32_t k = 0; k < l->n_bufs; k++)
		if (check_bound(ops, pg, i, kname, (int)k, l->bufs[k], err))
			return WEFT_E_INVALID;
	if (l->extent_buf)
		return check_extent_buf(ops, pg, i, kname, l, err);
	return WEFT_OK;
}

weft_status weft__chk_step(const weft__chk_ops *ops, const void *dev,
			   const weft_program *prog,
			   const weft_launch *launches, uint32_t n,
			   weft_error *err)
{
	if (!dev || !prog)
		return no_arg(ops, "step", dev, "program", err);
	if (!launches && n)
		return weft__chk_fail(ops, err, WEFT_E_INVALID,
				      "step: %u launches announced but the "
				      "launch list is NULL",
				      (unsigned)n);
	for (uint32_t i = 0; i < n; i++)
		if (check_launch(ops, pg_of(ops, prog), i, &launches[i], err))
			return WEFT_E_INVALID;
	return WEFT_OK;
}

/* Slot k (k < 0: the count word) of launch i: replicas parts of `stride`
 * bytes, the last one starting inside the buffer (and, for the count,
 * holding its 4 bytes). */
static weft_status check_stride(const weft__chk_ops *ops,
				const struct weft__prog *pg, uint32_t i,
				const weft_launch *l, int k, uint64_t stride,
				uint32_t replicas, weft_error *err)
{
	const weft_buf *b = k < 0 ? l->extent_buf : l->bufs[k];
	uint64_t size = pb_of(ops, b)->size, align = k < 0 ? 4 : 64;
	uint64_t start = k < 0 ? l->extent_offset : 0, need = k < 0 ? 4 : 1;
	uint64_t last = (uint64_t)(replicas - 1);
	char role[32];

	if (stride % align == 0 &&
	    (stride == 0 || last == 0 ||
	     (last <= (UINT64_MAX - start - need) / stride &&
	      start + last * stride + need <= size)))
		return WEFT_OK;
	if (k < 0)
		snprintf(role, sizeof role, "the count's stride");
	else
		snprintf(role, sizeof role, "buffer %d's stride", k);
	return weft__chk_fail(
		ops, err, WEFT_E_INVALID,
		"launch %u of program '%s' (kernel '%s'): %s %llu %s (%u "
		"replicas, the buffer has %llu bytes)",
		(unsigned)i, pg->name, pg->kernel_names[l->kernel], role,
		(unsigned long long)stride,
		stride % align ? (k < 0 ? "is not a multiple of 4"
					: "is not a multiple of 64")
			       : "puts the last replica past the buffer's end",
		(unsigned)replicas, (unsigned long long)size);
}

weft_status weft__chk_step_replicas(const weft__chk_ops *ops, const void *dev,
				    const weft_program *prog,
				    const weft_launch *launches,
				    const weft_replica_layout *layouts,
				    uint32_t n, uint32_t replicas,
				    weft_error *err)
{
	weft_status st = weft__chk_step(ops, dev, prog, launches, n, err);
	const struct weft__prog *pg;

	if (st != WEFT_OK)
		return st;
	if (replicas == 0 || (!layouts && n))
		return weft__chk_fail(
			ops, err, WEFT_E_INVALID, "step_replicas: %s",
			replicas ? "the layouts are NULL" : "0 replicas");
	pg = pg_of(ops, prog);
	for (uint32_t i = 0; i < n; i++) {
		const weft_launch *l = &launches[i];

		for (uint32_t k = 0; k < l->n_bufs; k++)
			if (check_stride(ops, pg, i, l, (int)k,
					 layouts[i].stride[k], replicas, err))
				return WEFT_E_INVALID;
		if (l->extent_buf &&
		    check_stride(ops, pg, i, l, -1, layouts[i].extent_stride,
				 replicas, err))
			return WEFT_E_INVALID;
	}
	return WEFT_OK;
}

weft_status weft__chk_mem_info(const weft__chk_ops *ops, const void *dev,
			       const weft_mem_info *out, weft_error *err)
{
	if (!dev)
		return no_arg(ops, "mem_info", dev, "", err);
	if (!out)
		return weft__chk_fail(ops, err, WEFT_E_INVALID,
				      "mem_info: no place for the answer");
	if (out->struct_size >= WEFT_MEM_INFO_V1_3_SIZE)
		return WEFT_OK;
	return weft__chk_fail(ops, err, WEFT_E_INVALID,
			      "mem_info: weft_mem_info has struct_size %u, "
			      "expected at least %zu",
			      (unsigned)out->struct_size,
			      (size_t)WEFT_MEM_INFO_V1_3_SIZE);
}
