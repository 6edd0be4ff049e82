/*
 * plugins/common/check.c - the backend ABI's argument checks, shared by the
 * first-party backends (check.h).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

weft_status weft__chk_fail(const weft__chk_ops *ops, weft_error *err,
			   weft_status st, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err)
		return st;
	n = snprintf(err->msg, sizeof err->msg, "%s: ", ops->backend);
	if (n < 0 || (size_t)n >= sizeof err->msg)
		return st;
	va_start(ap, fmt);
	vsnprintf(err->msg + n, sizeof err->msg - (size_t)n, fmt, ap);
	va_end(ap);
	return st;
}

/* ---- transfers ----------------------------------------------------------- */

weft_status weft__chk_flags(const weft__chk_ops *ops, const char *op,
			    unsigned flags, weft_error *err)
{
	if ((flags & ~(unsigned)WEFT_XFER_ASYNC) == 0)
		return WEFT_OK;
	return weft__chk_fail(ops, err, WEFT_E_INVALID,
			      "%s: unknown transfer flags 0x%x", op,
			      flags & ~(unsigned)WEFT_XFER_ASYNC);
}

weft_status weft__chk_range(const weft__chk_ops *ops, const char *op,
			    const char *role, const weft_buf *b, size_t offset,
			    size_t bytes, weft_error *err)
{
	size_t size;

	if (!b)
		return weft__chk_fail(ops, err, WEFT_E_INVALID,
				      "%s: no %s buffer", op, role);
	if (ops->freed(b))
		return weft__chk_fail(ops, err, WEFT_E_INVALID,
				      "%s: the %s buffer was freed", op, role);
	size = ops->size(b);
	if (offset <= size && bytes <= size - offset)
		return WEFT_OK;
	return weft__chk_fail(ops, err, WEFT_E_INVALID,
			      "%s of %zu bytes at offset %zu is outside the %s "
			      "buffer of %zu bytes",
			      op, bytes, offset, role, size);
}

weft_status weft__chk_host(const weft__chk_ops *ops, const char *op,
			   const char *role, const void *p, size_t bytes,
			   weft_error *err)
{
	if (p || bytes == 0)
		return WEFT_OK;
	return weft__chk_fail(ops, err, WEFT_E_INVALID,
			      "%s of %zu bytes: the host %s pointer is NULL",
			      op, bytes, role);
}

weft_status weft__chk_native(const weft__chk_ops *ops, const weft_buf *b,
			     const weft_native *out, weft_error *err)
{
	if (!b)
		return weft__chk_fail(ops, err, WEFT_E_INVALID,
				      "native: no buffer");
	if (ops->freed(b))
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

weft_status weft__chk_program(const weft__chk_ops *ops,
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

/* ---- launch lists -------------------------------------------------------- */

/* Buffer k of launch i (k < 0: its extent buffer) is bound and live. */
static weft_status check_bound(const weft__chk_ops *ops,
			       const weft_program *prog, uint32_t i,
			       const char *kname, int k, const weft_buf *b,
			       weft_error *err)
{
	char role[32];

	if (b && !ops->freed(b))
		return WEFT_OK;
	if (k < 0)
		snprintf(role, sizeof role, "the extent buffer");
	else
		snprintf(role, sizeof role, "buffer %d", k);
	return weft__chk_fail(ops, err, WEFT_E_INVALID,
			      "launch %u of program '%s' (kernel '%s'): %s %s",
			      (unsigned)i, ops->program_name(prog), kname, role,
			      b ? "was freed" : "is NULL");
}

static weft_status check_extent_buf(const weft__chk_ops *ops,
				    const weft_program *prog, uint32_t i,
				    const char *kname, const weft_launch *l,
				    weft_error *err)
{
	weft_status st =
		check_bound(ops, prog, i, kname, -1, l->extent_buf, err);
	size_t size;

	if (st != WEFT_OK)
		return st;
	size = ops->size(l->extent_buf);
	if (l->extent_offset % sizeof(uint32_t) == 0 &&
	    size >= sizeof(uint32_t) &&
	    l->extent_offset <= size - sizeof(uint32_t))
		return WEFT_OK;
	return weft__chk_fail(
		ops, err, WEFT_E_INVALID,
		"launch %u of program '%s' (kernel '%s'): extent offset %u %s "
		"(the extent buffer has %zu bytes)",
		(unsigned)i, ops->program_name(prog), kname,
		(unsigned)l->extent_offset,
		l->extent_offset % sizeof(uint32_t)
			? "is not a multiple of 4"
			: "leaves no 4-byte count inside the buffer",
		size);
}

static weft_status check_launch(const weft__chk_ops *ops,
				const weft_program *prog, uint32_t i,
				const weft_launch *l, weft_error *err)
{
	const char *pname = ops->program_name(prog), *kname;
	uint32_t n_kernels = ops->n_kernels(prog);

	if (l->kernel >= n_kernels)
		return weft__chk_fail(
			ops, err, WEFT_E_INVALID,
			"launch %u of program '%s': kernel index %u is out of "
			"range (the program has %u kernels)",
			(unsigned)i, pname, (unsigned)l->kernel,
			(unsigned)n_kernels);
	kname = ops->kernel_name(prog, l->kernel);
	if (l->n_bufs > WEFT_KERNEL_MAX_BUFS)
		return weft__chk_fail(
			ops, err, WEFT_E_INVALID,
			"launch %u of program '%s' (kernel '%s'): %u buffers "
			"bound, at most %d allowed",
			(unsigned)i, pname, kname, (unsigned)l->n_bufs,
			WEFT_KERNEL_MAX_BUFS);
	for (uint32_t k = 0; k < l->n_bufs; k++)
		if (check_bound(ops, prog, i, kname, (int)k, l->bufs[k], err))
			return WEFT_E_INVALID;
	if (l->extent_buf)
		return check_extent_buf(ops, prog, i, kname, l, err);
	return WEFT_OK;
}

weft_status weft__chk_launches(const weft__chk_ops *ops,
			       const weft_program *prog,
			       const weft_launch *launches, uint32_t n,
			       weft_error *err)
{
	if (!launches && n)
		return weft__chk_fail(ops, err, WEFT_E_INVALID,
				      "step: %u launches announced but the "
				      "launch list is NULL",
				      (unsigned)n);
	for (uint32_t i = 0; i < n; i++)
		if (check_launch(ops, prog, i, &launches[i], err) != WEFT_OK)
			return WEFT_E_INVALID;
	return WEFT_OK;
}

void weft__stats_copy(weft_stats *out, const weft_stats *st)
{
	size_t hdr = sizeof out->struct_size;
	size_t size =
		out->struct_size < sizeof *st ? out->struct_size : sizeof *st;

	if (size > hdr)
		memcpy((char *)out + hdr, (const char *)st + hdr, size - hdr);
}
