/*
 * plugins/common/check.h - the argument checks of the backend ABI that
 * every first-party backend makes, written once: transfer flags, ranges
 * and host pointers, native() requests, program descriptors and launch
 * lists (and stats()'s bounded copy of the counters). Each check
 * returns WEFT_E_INVALID with a message "BACKEND: what is wrong" and
 * changes nothing.
 *
 * Linked into each plugin as a hidden convenience library; nothing here is
 * exported. The template backend (plugins/template) keeps its own copy on
 * purpose: a third party sees only the installed <weft/backend.h>.
 */
#ifndef WEFT_PLUGIN_CHECK_H
#define WEFT_PLUGIN_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <weft/backend.h>

/* What the checks need to know of a backend's buffers and programs. */
typedef struct weft__chk_ops {
	const char *backend; /* message prefix: "openmp" */
	/* 1 when b was freed (is back in the pool); b is never NULL. */
	int (*freed)(const weft_buf *b);
	size_t (*size)(const weft_buf *b); /* bytes asked for at alloc */
	const char *(*program_name)(const weft_program *prog);
	uint32_t (*n_kernels)(const weft_program *prog);
	const char *(*kernel_name)(const weft_program *prog, uint32_t k);
} weft__chk_ops;

/* Define `const weft__chk_ops NAME` for a backend whose struct weft_buf
 * has `size` and `pooled`, and whose struct weft_program has `name`,
 * `n_kernels` and `kernels[k].name`, as every first-party backend's do.
 * Used once, in the backend's plugin.c (priv.h declares NAME). */
#define WEFT__CHK_OPS(NAME, BACKEND)                                       \
	static int NAME##_freed(const weft_buf *b)                         \
	{                                                                  \
		return b->pooled;                                          \
	}                                                                  \
	static size_t NAME##_size(const weft_buf *b)                       \
	{                                                                  \
		return b->size;                                            \
	}                                                                  \
	static const char *NAME##_pname(const weft_program *p)             \
	{                                                                  \
		return p->name;                                            \
	}                                                                  \
	static uint32_t NAME##_nk(const weft_program *p)                   \
	{                                                                  \
		return p->n_kernels;                                       \
	}                                                                  \
	static const char *NAME##_kname(const weft_program *p, uint32_t k) \
	{                                                                  \
		return p->kernels[k].name;                                 \
	}                                                                  \
	const weft__chk_ops NAME = {                                       \
		BACKEND,      NAME##_freed, NAME##_size,                   \
		NAME##_pname, NAME##_nk,    NAME##_kname                   \
	}

/* Write "BACKEND: " and the message into err (which may be NULL). */
weft_status weft__chk_fail(const weft__chk_ops *ops, weft_error *err,
			   weft_status st, const char *fmt, ...)
	WEFT_PRINTF(4, 5);

/* A transfer: known flags; [offset, offset + bytes) inside b, without
 * overflowing; a host pointer unless bytes is 0. op is "write", "read" or
 * "copy"; role names the buffer or pointer ("source", "destination"). */
weft_status weft__chk_flags(const weft__chk_ops *ops, const char *op,
			    unsigned flags, weft_error *err);
weft_status weft__chk_range(const weft__chk_ops *ops, const char *op,
			    const char *role, const weft_buf *b, size_t offset,
			    size_t bytes, weft_error *err);
weft_status weft__chk_host(const weft__chk_ops *ops, const char *op,
			   const char *role, const void *p, size_t bytes,
			   weft_error *err);

/* stats(): copy a backend's counters st into out, as far as the caller's
 * out->struct_size reaches (and st's size), leaving out->struct_size as
 * it was. */
void weft__stats_copy(weft_stats *out, const weft_stats *st);

/* native(): a live buffer, and a weft_native whose struct_size covers at
 * least the 1.2 layout. */
weft_status weft__chk_native(const weft__chk_ops *ops, const weft_buf *b,
			     const weft_native *out, weft_error *err);

/* What load_program() needs of a descriptor: struct_size, a name, kernels
 * with names, and a host build of each (need_host) or the portable source
 * (need_source: the message says why, e.g. "compiled at run time"). */
weft_status weft__chk_program(const weft__chk_ops *ops,
			      const weft_program_desc *desc, int need_host,
			      const char *need_source, weft_error *err);

/* The whole launch list of step(), before anything runs: kernel indexes,
 * at most WEFT_KERNEL_MAX_BUFS bound buffers, none NULL or freed, extent
 * offsets that are multiples of 4 and leave a count inside the buffer. */
weft_status weft__chk_launches(const weft__chk_ops *ops,
			       const weft_program *prog,
			       const weft_launch *launches, uint32_t n,
			       weft_error *err);

#endif /* WEFT_PLUGIN_CHECK_H */
