/*
 * plugins/common/check.h - the argument checks of the backend ABI that
 * every first-party backend makes, written once: the device and the
 * places for answers, device configurations, fence tokens, transfer
 * flags, ranges and host pointers, native() requests, program
 * descriptors and launch lists. Each check returns WEFT_E_INVALID with a
 * message "BACKEND: what is wrong" and changes nothing (but *out, set to
 * NULL where there is one).
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

/* What the checks need to know of a backend: its name, and where the
 * common parts of its buffers and programs are (pool.h, program.h). */
typedef struct weft__chk_ops {
	const char *backend; /* message prefix: "openmp" */
	size_t buf_pb;	     /* offsetof(struct weft_buf, pb) */
	size_t prog_pg;	     /* offsetof(struct weft_program, pg) */
} weft__chk_ops;

/* Define `const weft__chk_ops NAME` for the backend BACKEND, whose struct
 * weft_buf holds a struct weft__pool_buf pb and whose struct weft_program
 * holds a struct weft__prog pg, as every first-party backend's do. Used
 * once, in the backend's plugin.c (priv.h declares NAME). */
#define WEFT__CHK_OPS(NAME, BACKEND)                                         \
	const weft__chk_ops NAME = { BACKEND, offsetof(struct weft_buf, pb), \
				     offsetof(struct weft_program, pg) }

/* Write "BACKEND: " and the message into err (which may be NULL). */
weft_status weft__chk_fail(const weft__chk_ops *ops, weft_error *err,
			   weft_status st, const char *fmt, ...)
	WEFT_PRINTF(4, 5);

/* open(): a place for the device (*out set to NULL), a configuration
 * whose struct_size covers at least the 1.0 layout. */
weft_status weft__chk_open(const weft__chk_ops *ops,
			   const weft_device_config *cfg, weft_device **out,
			   weft_error *err);

/* fence(): a device and a place for the token. wait(): a device, and a
 * token that fence() returned (last: the device's last token, 0 for
 * none). */
weft_status weft__chk_fence(const weft__chk_ops *ops, const void *dev,
			    const uint64_t *token, weft_error *err);
weft_status weft__chk_wait(const weft__chk_ops *ops, const void *dev,
			   uint64_t token, uint64_t last, weft_error *err);

/* alloc(): a device and a place for the buffer (*out set to NULL). */
weft_status weft__chk_alloc(const weft__chk_ops *ops, const void *dev,
			    weft_buf **out, weft_error *err);

/* mem_info(): a device, and a weft_mem_info whose struct_size covers the
 * 1.3 layout. */
weft_status weft__chk_mem_info(const weft__chk_ops *ops, const void *dev,
			       const weft_mem_info *out, weft_error *err);
/* native(): a device, a live buffer, and a weft_native whose struct_size
 * covers at least the 1.2 layout. */
weft_status weft__chk_native(const weft__chk_ops *ops, const void *dev,
			     const weft_buf *b, const weft_native *out,
			     weft_error *err);

/* Transfers, before anything is issued or counted: a device, known
 * flags, [offset, offset + bytes) inside each buffer without
 * overflowing, a host pointer unless bytes is 0. */
weft_status weft__chk_write(const weft__chk_ops *ops, const void *dev,
			    const weft_buf *dst, size_t offset, const void *src,
			    size_t bytes, unsigned flags, weft_error *err);
weft_status weft__chk_read(const weft__chk_ops *ops, const void *dev,
			   const void *dst, const weft_buf *src, size_t offset,
			   size_t bytes, unsigned flags, weft_error *err);
weft_status weft__chk_copy(const weft__chk_ops *ops, const void *dev,
			   const weft_buf *dst, size_t dst_offset,
			   const weft_buf *src, size_t src_offset, size_t bytes,
			   unsigned flags, weft_error *err);

/* load_program(): a device, a place for the program (*out set to NULL),
 * and a descriptor with struct_size, a name, kernels with names, and a
 * host build of each (need_host) or the portable source (need_source:
 * the message says why, e.g. "compiled at run time"). */
weft_status weft__chk_load(const weft__chk_ops *ops, const void *dev,
			   const weft_program_desc *desc, weft_program **out,
			   int need_host, const char *need_source,
			   weft_error *err);

/* step(): a device, a program, and the whole launch list, before
 * anything runs: kernel indexes, at most WEFT_KERNEL_MAX_BUFS bound
 * buffers, none NULL or freed, extent offsets that are multiples of 4
 * and leave a count inside the buffer. */
weft_status weft__chk_step(const weft__chk_ops *ops, const void *dev,
			   const weft_program *prog,
			   const weft_launch *launches, uint32_t n,
			   weft_error *err);
/* step_replicas(): step()'s checks, at least one replica, and every
 * layout's strides (multiples of 64, of 4 for the count) keeping the last
 * replica's part inside its buffer. */
weft_status weft__chk_step_replicas(const weft__chk_ops *ops, const void *dev,
				    const weft_program *prog,
				    const weft_launch *launches,
				    const weft_replica_layout *layouts,
				    uint32_t n, uint32_t replicas,
				    weft_error *err);

#endif /* WEFT_PLUGIN_CHECK_H */
