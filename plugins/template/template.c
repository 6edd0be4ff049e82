/*
 * template.c - the smallest correct weft backend: start your own from it.
 *
 * To make it yours:
 *  1. copy this file and Makefile.example into a directory of your own
 *     (an installed weft keeps both in `pkg-config --variable=pkgdatadir
 *     weft`/template);
 *  2. choose a NAME made of a-z, 0-9, _ and -: set .name in the entry at the
 *     end of this file, NAME in the Makefile (the loader requires the file
 *     weft-backend-NAME.so to carry that name) and the "template: " prefix
 *     of tpl_fail() (messages start with the backend's name);
 *  3. `make && make conform` builds the plugin and runs `weft conform` on
 *     it: every promise below is checked, one TAP line each;
 *  4. replace the bodies one at a time (keep each function's promise; the
 *     comment above it says which) and run `make conform` after each.
 *
 * What it is: a single-threaded host backend. Device memory is host memory,
 * and every operation runs to completion in the calling thread when it is
 * issued. That is one in-order queue trivially: WEFT_XFER_ASYNC is the same
 * as a blocking transfer, step() never has anything to wait for, and sync()
 * and wait() only count (fence() only numbers). Kernels are the host builds
 * a model hands over (host_fn); no compiler runs. There is no memory pool
 * (pool_reuses stays 0): every alloc() asks the system, every free() gives
 * back. plugins/openmp in weft's sources shows a pool and threads on top of
 * the same shape.
 *
 * It includes only <weft/backend.h> and system headers, and everything but
 * the entry is static: build with -fvisibility=hidden so that the entry,
 * weft_backend_entry, is the only exported symbol.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, sysconf, strdup */
#endif

#include <weft/backend.h>

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TPL_ALIGN 64 /* buffer alignment backend.h promises */

/* A device allocation. The device keeps the live ones in a list, so that
 * close() can release what the caller did not free and a freed handle is
 * recognised (by address) rather than used. */
struct weft_buf {
	void *ptr;   /* TPL_ALIGN-aligned host memory */
	size_t size; /* bytes asked for: bounds are checked against it */
	struct weft_buf *next;
};

struct tpl_kernel {
	char *name; /* for messages */
	weft_host_kernel_fn fn;
	weft_kernel_stat stat; /* kernel_stats(): zero when loaded */
};

/* A loaded program: a copy of what its descriptor said. */
struct weft_program {
	char *name;
	struct tpl_kernel *kernels;
	uint32_t n_kernels;
	struct weft_program *next;
};

/* All state lives in the device: a process may open several. */
struct weft_device {
	uint64_t host_bytes; /* physical memory: no allocation can exceed it */
	struct weft_buf *bufs;
	struct weft_program *programs;
	uint64_t fences; /* token of the last fence(); 0 before the first */
	int profile;	 /* WEFT_DEVICE_PROFILE: time every launch */
	weft_stats st;
};

/* ---- helpers ------------------------------------------------------------ */

/* Write "template: ..." into err (which may be NULL); return st. */
static weft_status tpl_fail(weft_error *err, weft_status st, const char *fmt,
			    ...) WEFT_PRINTF(3, 4);
static weft_status tpl_fail(weft_error *err, weft_status st, const char *fmt,
			    ...)
{
	va_list ap;
	int n;

	if (!err)
		return st;
	n = snprintf(err->msg, sizeof err->msg, "template: ");
	va_start(ap, fmt);
	vsnprintf(err->msg + n, sizeof err->msg - (size_t)n, fmt, ap);
	va_end(ap);
	return st;
}

/* Monotonic nanoseconds, for the time per phase. */
static uint64_t tpl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- probe, open, close ------------------------------------------------- */

/* Looks only, changes nothing. Available everywhere, with score 1 so that
 * `backend = auto` prefers any real backend. Fills only the caller's
 * struct_size bytes, which may be fewer than this header's. */
static weft_status tpl_probe(weft_probe *out)
{
	weft_probe p;
	size_t n;

	if (!out)
		return WEFT_E_INVALID;
	memset(&p, 0, sizeof p);
	p.struct_size = out->struct_size;
	p.available = 1;
	p.score = 1;
	snprintf(p.devices, sizeof p.devices, "host CPU, 1 thread");
	n = out->struct_size < sizeof p ? out->struct_size : sizeof p;
	memcpy(out, &p, n);
	return WEFT_OK;
}

/* The one device is "host": does `want` name it (substring, any case)? */
static int tpl_name_matches(const char *want)
{
	char low[5];
	size_t n = strlen(want);

	if (n >= sizeof low)
		return 0;
	for (size_t i = 0; i <= n; i++)
		low[i] = (char)tolower((unsigned char)want[i]);
	return strstr("host", low) != NULL;
}

/* Fields appended in ABI 1.1 are read only when struct_size covers them. */
static weft_status tpl_check_config(const weft_device_config *cfg,
				    weft_error *err)
{
	int v11;

	if (!cfg || cfg->struct_size < WEFT_DEVICE_CONFIG_V1_0_SIZE)
		return tpl_fail(err, WEFT_E_INVALID,
				"open: device configuration %s (at least %zu "
				"bytes expected)",
				cfg ? "too short" : "is NULL",
				(size_t)WEFT_DEVICE_CONFIG_V1_0_SIZE);
	v11 = cfg->struct_size >= WEFT_DEVICE_CONFIG_V1_1_SIZE;
	if (cfg->device != -1 && cfg->device != 0)
		return tpl_fail(err, WEFT_E_INVALID,
				"device %d does not exist (the host is device "
				"0)",
				cfg->device);
	if (cfg->threads < 0)
		return tpl_fail(err, WEFT_E_INVALID,
				"device 0: threads must be 0 or more, not %d",
				cfg->threads);
	if (v11 && cfg->platform && cfg->platform[0])
		return tpl_fail(err, WEFT_E_INVALID,
				"platform '%s': this backend has no platforms "
				"(leave platform empty)",
				cfg->platform);
	if (v11 && cfg->device_match && !tpl_name_matches(cfg->device_match))
		return tpl_fail(err, WEFT_E_INVALID,
				"no device named like '%s': the only device is "
				"'host' (index 0)",
				cfg->device_match);
	return WEFT_OK;
}

/* Physical memory, or UINT64_MAX when the system does not say. */
static uint64_t tpl_host_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || page <= 0)
		return UINT64_MAX;
	return (uint64_t)pages * (uint64_t)page;
}

/* Opens device 0 (or -1, the default) after checking the whole config;
 * threads > 0 is accepted and ignored: this backend runs on one. */
static weft_status tpl_open(const weft_device_config *cfg, weft_device **out,
			    weft_error *err)
{
	weft_device *dev;
	weft_status st;

	if (!out)
		return tpl_fail(err, WEFT_E_INVALID,
				"open: no place for the device");
	*out = NULL;
	st = tpl_check_config(cfg, err);
	if (st != WEFT_OK)
		return st;
	dev = calloc(1, sizeof *dev);
	if (!dev)
		return tpl_fail(err, WEFT_E_NOMEM,
				"device 0: cannot allocate %zu bytes for the "
				"device",
				sizeof *dev);
	dev->host_bytes = tpl_host_bytes();
	dev->st.struct_size = sizeof dev->st;
	/* ABI 1.5: flags exist only when the caller's layout has them. */
	dev->profile = cfg->struct_size >= WEFT_DEVICE_CONFIG_V1_5_SIZE &&
		       (cfg->flags & WEFT_DEVICE_PROFILE);
	*out = dev;
	return WEFT_OK;
}

static void tpl_free(weft_device *dev, weft_buf *buf);
static void tpl_unload_program(weft_device *dev, weft_program *prog);

/* Releases everything the device still holds; close(NULL) does nothing. */
static void tpl_close(weft_device *dev)
{
	if (!dev)
		return;
	while (dev->programs)
		tpl_unload_program(dev, dev->programs);
	while (dev->bufs)
		tpl_free(dev, dev->bufs);
	free(dev);
}

/* ---- memory ------------------------------------------------------------- */

/* 64-byte aligned; 0 bytes gives a valid, distinct handle; more than the
 * machine holds is refused at once, naming the bytes. Counts allocs and
 * bytes asked for (in use, peak). */
static weft_status tpl_alloc(weft_device *dev, size_t bytes, weft_buf **out,
			     weft_error *err)
{
	uint64_t t0 = tpl_now_ns();
	size_t rounded;
	weft_buf *b;

	if (!dev || !out)
		return tpl_fail(err, WEFT_E_INVALID, "alloc: no %s",
				dev ? "place for the buffer" : "device");
	*out = NULL;
	if ((uint64_t)bytes > dev->host_bytes || bytes > SIZE_MAX - TPL_ALIGN)
		return tpl_fail(err, WEFT_E_NOMEM,
				"cannot allocate %zu bytes on device 0 (host "
				"memory, %llu bytes in total)",
				bytes, (unsigned long long)dev->host_bytes);
	/* aligned_alloc() wants a multiple of the alignment; 0 bytes would
	 * give no distinct handle. */
	rounded = bytes ? (bytes + TPL_ALIGN - 1) / TPL_ALIGN * TPL_ALIGN
			: TPL_ALIGN;
	b = calloc(1, sizeof *b);
	if (b)
		b->ptr = aligned_alloc(TPL_ALIGN, rounded);
	if (!b || !b->ptr) {
		free(b);
		return tpl_fail(err, WEFT_E_NOMEM,
				"cannot allocate %zu bytes on device 0: the "
				"system allocator failed",
				bytes);
	}
	b->size = bytes;
	b->next = dev->bufs;
	dev->bufs = b;
	dev->st.allocs++;
	dev->st.bytes_in_use += bytes;
	if (dev->st.bytes_in_use > dev->st.bytes_peak)
		dev->st.bytes_peak = dev->st.bytes_in_use;
	*out = b;
	dev->st.time_ns[WEFT_PHASE_ALLOC] += tpl_now_ns() - t0;
	return WEFT_OK;
}

/* Is b a buffer of this device, allocated and not yet freed? Compares
 * addresses only, so a freed or foreign handle is never dereferenced (a
 * stale handle whose address a new buffer reuses cannot be told apart).
 * The walk costs one step per live buffer; a backend with a pool can mark
 * freed handles instead, as plugins/openmp does. */
static int tpl_live(const weft_device *dev, const weft_buf *b)
{
	for (const weft_buf *x = dev->bufs; x; x = x->next)
		if (x == b)
			return 1;
	return 0;
}

/* free(dev, NULL) does nothing; nor does freeing a buffer twice (free
 * cannot report an error). Counts frees. */
static void tpl_free(weft_device *dev, weft_buf *buf)
{
	uint64_t t0 = tpl_now_ns();

	if (!dev)
		return;
	for (weft_buf **p = &dev->bufs; *p; p = &(*p)->next) {
		if (*p != buf)
			continue;
		*p = buf->next;
		dev->st.bytes_in_use -= buf->size;
		dev->st.frees++;
		free(buf->ptr);
		free(buf);
		dev->st.time_ns[WEFT_PHASE_ALLOC] += tpl_now_ns() - t0;
		return;
	}
}

/* ABI 1.2, optional: where the buffer's bytes are, so that an application
 * can hand them to another library without a copy. Here they are host
 * memory on device 0; a GPU backend reports its device pointer or memory
 * object (WEFT_NATIVE_CUDA, WEFT_NATIVE_OPENCL). Never waits or counts;
 * the same buffer gives the same answer until it is freed. Fills only the
 * fields of the first layout, which a caller's struct_size must cover. */
static weft_status tpl_native(weft_device *dev, weft_buf *buf, weft_native *out,
			      weft_error *err)
{
	if (!dev)
		return tpl_fail(err, WEFT_E_INVALID, "native: no device");
	if (!buf || !tpl_live(dev, buf))
		return tpl_fail(err, WEFT_E_INVALID, "native: %s",
				buf ? "the buffer was freed or is not this "
				      "device's"
				    : "the buffer is NULL");
	if (!out || out->struct_size < WEFT_NATIVE_V1_2_SIZE)
		return tpl_fail(err, WEFT_E_INVALID,
				"native: %s (at least %zu bytes expected)",
				out ? "weft_native too short"
				    : "no place for the answer",
				(size_t)WEFT_NATIVE_V1_2_SIZE);
	out->kind = WEFT_NATIVE_HOST;
	out->device = 0;
	out->handle = buf->ptr;
	out->offset = 0;
	out->bytes = buf->size;
	return WEFT_OK;
}

/* ABI 1.3, optional: the device's memory, so that the core can refuse a
 * run that does not fit before the model allocates anything. Here
 * buffers are host memory (host = 1): the core checks them, with the
 * model's host memory, against the host's MemAvailable. A GPU backend
 * sets host = 0 and reports its total and free bytes (what its driver
 * says, e.g. cudaMemGetInfo). Fills only what out->struct_size covers. */
static weft_status tpl_mem_info(weft_device *dev, weft_mem_info *out,
				weft_error *err)
{
	weft_mem_info mi = { .struct_size = sizeof mi, .host = 1 };
	size_t hdr = sizeof out->struct_size;

	if (!dev)
		return tpl_fail(err, WEFT_E_INVALID, "mem_info: no device");
	if (!out || out->struct_size < WEFT_MEM_INFO_V1_3_SIZE)
		return tpl_fail(err, WEFT_E_INVALID,
				"mem_info: %s (at least %zu bytes expected)",
				out ? "weft_mem_info too short"
				    : "no place for the answer",
				(size_t)WEFT_MEM_INFO_V1_3_SIZE);
	memcpy((char *)out + hdr, (const char *)&mi + hdr,
	       (out->struct_size < sizeof mi ? out->struct_size : sizeof mi) -
		       hdr);
	return WEFT_OK;
}

/* ---- transfers ---------------------------------------------------------- */

/* What every transfer checks before touching anything, so that a refused
 * transfer changes nothing and is not counted: known flags, and offset +
 * bytes inside the buffer (tested without overflowing). */
static weft_status tpl_check(const weft_device *dev, const char *op,
			     unsigned flags, const weft_buf *b, size_t offset,
			     size_t bytes, weft_error *err)
{
	unsigned unknown = flags & ~(unsigned)WEFT_XFER_ASYNC;

	if (unknown)
		return tpl_fail(err, WEFT_E_INVALID,
				"%s: unknown transfer flags 0x%x", op, unknown);
	if (!b || !tpl_live(dev, b))
		return tpl_fail(err, WEFT_E_INVALID, "%s: %s", op,
				b ? "the buffer was freed or is not this "
				    "device's"
				  : "the buffer is NULL");
	if (offset <= b->size && bytes <= b->size - offset)
		return WEFT_OK;
	return tpl_fail(err, WEFT_E_INVALID,
			"%s: %zu bytes at offset %zu do not fit in a buffer "
			"of %zu bytes",
			op, bytes, offset, b->size);
}

/* Every transfer issued is counted, 0 bytes included. */
static void tpl_count(weft_device *dev, enum weft_dir dir, size_t bytes,
		      uint64_t t0)
{
	dev->st.xfer_count[dir]++;
	dev->st.xfer_bytes[dir] += bytes;
	dev->st.time_ns[WEFT_PHASE_TRANSFER] += tpl_now_ns() - t0;
}

/* Host to device: complete when it returns, with or without ASYNC. A NULL
 * host pointer is refused unless no byte moves. */
static weft_status tpl_write(weft_device *dev, weft_buf *dst, size_t offset,
			     const void *src, size_t bytes, unsigned flags,
			     weft_error *err)
{
	uint64_t t0 = tpl_now_ns();
	weft_status st;

	if (!dev || (!src && bytes))
		return tpl_fail(err, WEFT_E_INVALID, "write of %zu bytes: %s",
				bytes,
				dev ? "the host pointer is NULL" : "no device");
	st = tpl_check(dev, "write", flags, dst, offset, bytes, err);
	if (st != WEFT_OK)
		return st;
	if (bytes)
		memcpy((char *)dst->ptr + offset, src, bytes);
	tpl_count(dev, WEFT_DIR_H2D, bytes, t0);
	return WEFT_OK;
}

/* Device to host, the same way. */
static weft_status tpl_read(weft_device *dev, void *dst, weft_buf *src,
			    size_t offset, size_t bytes, unsigned flags,
			    weft_error *err)
{
	uint64_t t0 = tpl_now_ns();
	weft_status st;

	if (!dev || (!dst && bytes))
		return tpl_fail(err, WEFT_E_INVALID, "read of %zu bytes: %s",
				bytes,
				dev ? "the host pointer is NULL" : "no device");
	st = tpl_check(dev, "read", flags, src, offset, bytes, err);
	if (st != WEFT_OK)
		return st;
	if (bytes)
		memcpy(dst, (const char *)src->ptr + offset, bytes);
	tpl_count(dev, WEFT_DIR_D2H, bytes, t0);
	return WEFT_OK;
}

/* Device to device; within one buffer it behaves like memmove(). */
static weft_status tpl_copy(weft_device *dev, weft_buf *dst, size_t dst_offset,
			    weft_buf *src, size_t src_offset, size_t bytes,
			    unsigned flags, weft_error *err)
{
	uint64_t t0 = tpl_now_ns();
	weft_status st;

	if (!dev)
		return tpl_fail(err, WEFT_E_INVALID, "copy: no device");
	st = tpl_check(dev, "copy source", flags, src, src_offset, bytes, err);
	if (st == WEFT_OK)
		st = tpl_check(dev, "copy destination", flags, dst, dst_offset,
			       bytes, err);
	if (st != WEFT_OK)
		return st;
	if (bytes)
		memmove((char *)dst->ptr + dst_offset,
			(const char *)src->ptr + src_offset, bytes);
	tpl_count(dev, WEFT_DIR_D2D, bytes, t0);
	return WEFT_OK;
}

/* ---- programs ----------------------------------------------------------- */

static void tpl_program_destroy(weft_program *prog)
{
	for (uint32_t k = 0; prog->kernels && k < prog->n_kernels; k++)
		free(prog->kernels[k].name);
	free(prog->kernels);
	free(prog->name);
	free(prog);
}

/* A descriptor this backend can run: 1.0 layout or newer, a name, and a
 * host build for every kernel. */
static weft_status tpl_check_desc(const weft_program_desc *d, weft_error *err)
{
	if (!d || d->struct_size < WEFT_PROGRAM_DESC_V1_0_SIZE || !d->name)
		return tpl_fail(err, WEFT_E_INVALID,
				"load_program: program descriptor %s",
				!d	   ? "is NULL"
				: !d->name ? "has no name"
					   : "too short (struct_size)");
	if (d->n_kernels == 0 || !d->kernels)
		return tpl_fail(err, WEFT_E_INVALID,
				"program '%s' has no kernels", d->name);
	for (uint32_t k = 0; k < d->n_kernels; k++) {
		const weft_kernel_desc *kd = &d->kernels[k];

		if (!kd->name)
			return tpl_fail(err, WEFT_E_INVALID,
					"kernel %u of program '%s' has no name",
					(unsigned)k, d->name);
		if (!kd->host_fn)
			return tpl_fail(err, WEFT_E_INVALID,
					"kernel '%s' of program '%s' has no "
					"host build (host_fn)",
					kd->name, d->name);
	}
	return WEFT_OK;
}

/* Copies the descriptor (it need not outlive this call). */
static weft_status tpl_load_program(weft_device *dev,
				    const weft_program_desc *desc,
				    weft_program **out, weft_error *err)
{
	uint64_t t0 = tpl_now_ns();
	weft_program *p;
	weft_status st;

	if (!dev || !out)
		return tpl_fail(err, WEFT_E_INVALID, "load_program: no %s",
				dev ? "place for the program" : "device");
	*out = NULL;
	st = tpl_check_desc(desc, err);
	if (st != WEFT_OK)
		return st;
	p = calloc(1, sizeof *p);
	if (!p)
		goto nomem;
	p->name = strdup(desc->name);
	p->kernels = calloc(desc->n_kernels, sizeof *p->kernels);
	if (!p->name || !p->kernels)
		goto destroy_program;
	p->n_kernels = desc->n_kernels;
	for (uint32_t k = 0; k < desc->n_kernels; k++) {
		p->kernels[k].fn = desc->kernels[k].host_fn;
		p->kernels[k].name = strdup(desc->kernels[k].name);
		if (!p->kernels[k].name)
			goto destroy_program;
	}
	p->next = dev->programs;
	dev->programs = p;
	*out = p;
	dev->st.time_ns[WEFT_PHASE_LOAD] += tpl_now_ns() - t0;
	return WEFT_OK;

destroy_program:
	tpl_program_destroy(p);
nomem:
	return tpl_fail(err, WEFT_E_NOMEM,
			"device 0: out of host memory loading program '%s'",
			desc->name);
}

/* unload_program(dev, NULL) does nothing, nor does unloading twice. */
static void tpl_unload_program(weft_device *dev, weft_program *prog)
{
	if (!dev)
		return;
	for (weft_program **p = &dev->programs; *p; p = &(*p)->next) {
		if (*p == prog) {
			*p = prog->next;
			tpl_program_destroy(prog);
			return;
		}
	}
}

/* ---- step --------------------------------------------------------------- */

/* A buffer a launch binds (k < 0: the extent buffer) is live here. */
static weft_status tpl_check_bound(const weft_device *dev, uint32_t i,
				   const char *kernel, int k, const weft_buf *b,
				   weft_error *err)
{
	char role[32] = "the extent buffer";

	if (b && tpl_live(dev, b))
		return WEFT_OK;
	if (k >= 0)
		snprintf(role, sizeof role, "buffer %d", k);
	return tpl_fail(err, WEFT_E_INVALID, "launch %u (kernel '%s'): %s %s",
			(unsigned)i, kernel, role,
			b ? "was freed or is not this device's" : "is NULL");
}

/* One launch the program can run: a kernel it has, at most
 * WEFT_KERNEL_MAX_BUFS live buffers, and a 4-byte count at a multiple of 4
 * inside the extent buffer. */
static weft_status tpl_check_launch(const weft_device *dev,
				    const weft_program *p, uint32_t i,
				    const weft_launch *l, weft_error *err)
{
	const weft_buf *eb = l->extent_buf;
	const char *kernel;

	if (l->kernel >= p->n_kernels)
		return tpl_fail(err, WEFT_E_INVALID,
				"launch %u of program '%s': kernel index %u "
				"is out of range (the program has %u)",
				(unsigned)i, p->name, (unsigned)l->kernel,
				(unsigned)p->n_kernels);
	kernel = p->kernels[l->kernel].name;
	if (l->n_bufs > WEFT_KERNEL_MAX_BUFS)
		return tpl_fail(err, WEFT_E_INVALID,
				"launch %u (kernel '%s'): %u buffers bound, at "
				"most %d allowed",
				(unsigned)i, kernel, (unsigned)l->n_bufs,
				WEFT_KERNEL_MAX_BUFS);
	for (uint32_t k = 0; k < l->n_bufs; k++)
		if (tpl_check_bound(dev, i, kernel, (int)k, l->bufs[k], err) !=
		    WEFT_OK)
			return WEFT_E_INVALID;
	if (!eb)
		return WEFT_OK;
	if (tpl_check_bound(dev, i, kernel, -1, eb, err) != WEFT_OK)
		return WEFT_E_INVALID;
	if (l->extent_offset % 4 == 0 && eb->size >= 4 &&
	    l->extent_offset <= eb->size - 4)
		return WEFT_OK;
	return tpl_fail(err, WEFT_E_INVALID,
			"launch %u (kernel '%s'): no 4-byte count at extent "
			"offset %u of a %zu-byte buffer (the offset must be a "
			"multiple of 4)",
			(unsigned)i, kernel, (unsigned)l->extent_offset,
			eb->size);
}

/* Runs replica r of one launch over [0, extent); a device-side count is
 * read now, when the launch executes (an earlier launch may have just
 * written it). Replica r's buffers start r strides in, and its count is r
 * count-strides further, as its layout says (step_replicas()); without a
 * layout (lay NULL) nothing is shifted. */
static void tpl_run_replica(const weft_program *p, const weft_launch *l,
			    const weft_replica_layout *lay, uint32_t r)
{
	weft_kargs ka;

	memset(&ka, 0, sizeof ka);
	ka.extent = l->extent;
	if (l->extent_buf) {
		uint64_t at =
			l->extent_offset + (lay ? r * lay->extent_stride : 0);
		uint32_t count;

		memcpy(&count, (const char *)l->extent_buf->ptr + at,
		       sizeof count);
		if (count < ka.extent)
			ka.extent = count;
	}
	for (uint32_t k = 0; k < l->n_bufs; k++)
		ka.buf[k] = (char *)l->bufs[k]->ptr +
			    (lay ? r * lay->stride[k] : 0);
	if (ka.extent)
		p->kernels[l->kernel].fn(&ka, 0, ka.extent);
}

/* Runs one launch of step(). */
static void tpl_run_launch(const weft_program *p, const weft_launch *l)
{
	tpl_run_replica(p, l, NULL, 0);
}

/* Runs one launch of step() (lay NULL) or of step_replicas() (every
 * replica), counted for its kernel and, on a profiling device, timed:
 * here a launch has completed when it returns, so the host clock around
 * it is its time. A backend that runs work later times it on its queue
 * (an event before and after) and adds the time once it has completed. */
static void tpl_launch(weft_device *dev, weft_program *p, const weft_launch *l,
		       const weft_replica_layout *lay, uint32_t replicas)
{
	weft_kernel_stat *ks = &p->kernels[l->kernel].stat;
	uint64_t t0 = dev->profile ? tpl_now_ns() : 0;

	if (!lay)
		tpl_run_launch(p, l);
	for (uint32_t r = 0; lay && r < replicas; r++)
		tpl_run_replica(p, l, lay, r);
	ks->launches++;
	if (dev->profile) {
		ks->time_ns += tpl_now_ns() - t0;
		ks->timed++;
	}
}

/* What step() and step_replicas() check before running anything: a
 * device, a program, and launches it can run. */
static weft_status tpl_check_list(const weft_device *dev,
				  const weft_program *prog, const char *op,
				  const weft_launch *launches,
				  uint32_t n_launches, weft_error *err)
{
	if (!dev || !prog)
		return tpl_fail(err, WEFT_E_INVALID, "%s: no %s", op,
				dev ? "program" : "device");
	if (!launches && n_launches)
		return tpl_fail(err, WEFT_E_INVALID,
				"%s: %u launches but the list is NULL", op,
				(unsigned)n_launches);
	for (uint32_t i = 0; i < n_launches; i++)
		if (tpl_check_launch(dev, prog, i, &launches[i], err) !=
		    WEFT_OK)
			return WEFT_E_INVALID;
	return WEFT_OK;
}

/* Validates the whole list before running anything, then runs it n_steps
 * times in order. Never syncs. Counts steps and launches. */
static weft_status tpl_step(weft_device *dev, weft_program *prog,
			    const weft_launch *launches, uint32_t n_launches,
			    uint64_t n_steps, weft_error *err)
{
	uint64_t t0 = tpl_now_ns();
	weft_status st;

	st = tpl_check_list(dev, prog, "step", launches, n_launches, err);
	if (st != WEFT_OK)
		return st;
	for (uint64_t s = 0; s < n_steps; s++)
		for (uint32_t i = 0; i < n_launches; i++)
			tpl_launch(dev, prog, &launches[i], NULL, 1);
	dev->st.steps += n_steps;
	dev->st.launches += n_steps * n_launches;
	dev->st.time_ns[WEFT_PHASE_KERNEL] += tpl_now_ns() - t0;
	return WEFT_OK;
}

/* ---- replicas (ABI 1.4) ------------------------------------------------- */

/* One stride of launch i's layout: a multiple of `align` (64 for a bound
 * buffer, so that every replica's part keeps the buffer's alignment; 4 for
 * the count), and small enough that the last replica's part starts inside
 * the buffer, or for the count, that its 4 bytes at `start` fit. Stride 0
 * (every replica sees the same memory) always fits. */
static weft_status tpl_check_stride(uint32_t i, const char *kernel,
				    const char *role, const weft_buf *b,
				    uint64_t start, uint64_t need,
				    uint64_t stride, uint64_t align,
				    uint32_t replicas, weft_error *err)
{
	uint64_t last = replicas - 1;
	uint64_t room = b->size >= start + need ? b->size - start - need : 0;

	if (stride % align)
		return tpl_fail(err, WEFT_E_INVALID,
				"launch %u (kernel '%s'): %s's stride %llu is "
				"not a multiple of %llu",
				(unsigned)i, kernel, role,
				(unsigned long long)stride,
				(unsigned long long)align);
	if (stride == 0 || last == 0 ||
	    (b->size >= start + need && last <= room / stride))
		return WEFT_OK;
	return tpl_fail(err, WEFT_E_INVALID,
			"launch %u (kernel '%s'): %s's stride %llu puts "
			"replica %u past the end of its %zu-byte buffer",
			(unsigned)i, kernel, role, (unsigned long long)stride,
			(unsigned)last, b->size);
}

/* Every stride of launch i's layout (tpl_check_stride). */
static weft_status tpl_check_layout(const weft_program *p, uint32_t i,
				    const weft_launch *l,
				    const weft_replica_layout *lay,
				    uint32_t replicas, weft_error *err)
{
	const char *kernel = p->kernels[l->kernel].name;
	char role[32];

	for (uint32_t k = 0; k < l->n_bufs; k++) {
		snprintf(role, sizeof role, "buffer %u", (unsigned)k);
		if (tpl_check_stride(i, kernel, role, l->bufs[k], 0, 1,
				     lay->stride[k], TPL_ALIGN, replicas, err))
			return WEFT_E_INVALID;
	}
	if (!l->extent_buf)
		return WEFT_OK;
	return tpl_check_stride(i, kernel, "the count", l->extent_buf,
				l->extent_offset, 4, lay->extent_stride, 4,
				replicas, err);
}

/* A check of launch i's layout: tpl_check_layout (a test backend that
 * includes this file may pass a broken one of its own). */
typedef weft_status tpl_layout_check(const weft_program *p, uint32_t i,
				     const weft_launch *l,
				     const weft_replica_layout *lay,
				     uint32_t replicas, weft_error *err);

/* What step_replicas() checks before running anything: the list
 * (tpl_check_list), a replica count, layouts, and each launch's layout
 * (check). */
static weft_status tpl_check_replicas(const weft_device *dev,
				      const weft_program *prog,
				      const weft_launch *launches,
				      const weft_replica_layout *layouts,
				      uint32_t n_launches, uint32_t replicas,
				      tpl_layout_check *check, weft_error *err)
{
	weft_status st;

	st = tpl_check_list(dev, prog, "step_replicas", launches, n_launches,
			    err);
	if (st != WEFT_OK)
		return st;
	if (replicas == 0 || (!layouts && n_launches))
		return tpl_fail(err, WEFT_E_INVALID, "step_replicas: %s",
				replicas ? "the layouts are NULL"
					 : "0 replicas");
	for (uint32_t i = 0; i < n_launches; i++)
		if (check(prog, i, &launches[i], &layouts[i], replicas, err))
			return WEFT_E_INVALID;
	return WEFT_OK;
}

/* ABI 1.4, optional: batched replicas of a model. Runs the list n_steps
 * times like step(), each launch as `replicas` launches of its kernel,
 * replica r's buffers and count shifted by layouts[i] (tpl_run_replica).
 * Here the replicas of a launch run one after the other; a parallel
 * backend runs them as one launch: plugins/openmp spreads all replicas'
 * items over its threads in one parallel region, the OpenCL and CUDA
 * backends give the replica a grid dimension of its own. The whole list
 * is checked before anything runs; counted as step() counts (one launch
 * per launch of the list, whatever the number of replicas). */
static weft_status tpl_step_replicas(weft_device *dev, weft_program *prog,
				     const weft_launch *launches,
				     const weft_replica_layout *layouts,
				     uint32_t n_launches, uint32_t replicas,
				     uint64_t n_steps, weft_error *err)
{
	uint64_t t0 = tpl_now_ns();
	weft_status st;

	st = tpl_check_replicas(dev, prog, launches, layouts, n_launches,
				replicas, tpl_check_layout, err);
	if (st != WEFT_OK)
		return st;
	for (uint64_t s = 0; s < n_steps; s++)
		for (uint32_t i = 0; i < n_launches; i++)
			tpl_launch(dev, prog, &launches[i], &layouts[i],
				   replicas);
	dev->st.steps += n_steps;
	dev->st.launches += n_steps * n_launches;
	dev->st.time_ns[WEFT_PHASE_KERNEL] += tpl_now_ns() - t0;
	return WEFT_OK;
}

/* ---- sync, fences, stats ------------------------------------------------ */

/* Everything completed when issued: nothing to wait for, but every call is
 * counted, so that callers' waits can be checked. */
static weft_status tpl_sync(weft_device *dev, weft_error *err)
{
	uint64_t t0 = tpl_now_ns();

	if (!dev)
		return tpl_fail(err, WEFT_E_INVALID, "sync: no device");
	dev->st.syncs++;
	dev->st.time_ns[WEFT_PHASE_SYNC] += tpl_now_ns() - t0;
	return WEFT_OK;
}

/* Marks the point after everything issued so far; never waits. Here every
 * operation completed when it was issued, so a fence is only a number:
 * the count of fences, which lets wait() refuse a token not issued yet. A
 * queued backend records a marker (an event) here and keeps it by token. */
static weft_status tpl_fence(weft_device *dev, uint64_t *token, weft_error *err)
{
	if (!dev || !token)
		return tpl_fail(err, WEFT_E_INVALID, "fence: no %s",
				dev ? "place for the token" : "device");
	*token = ++dev->fences;
	return WEFT_OK;
}

/* Returns once everything issued before the fence `token` has completed,
 * asynchronous reads included (their host memory filled), without waiting
 * for later work: here that was so when the fence returned. A token no
 * fence returned is refused. Counted in fence_waits, not in syncs. */
static weft_status tpl_wait(weft_device *dev, uint64_t token, weft_error *err)
{
	uint64_t t0 = tpl_now_ns();

	if (!dev)
		return tpl_fail(err, WEFT_E_INVALID, "wait: no device");
	if (token == 0 || token > dev->fences)
		return tpl_fail(err, WEFT_E_INVALID,
				"wait: token %llu was not returned by fence() "
				"(the last fence is %llu)",
				(unsigned long long)token,
				(unsigned long long)dev->fences);
	dev->st.fence_waits++;
	dev->st.time_ns[WEFT_PHASE_SYNC] += tpl_now_ns() - t0;
	return WEFT_OK;
}

/* ABI 1.5, optional: what the device computes exactly (WEFT_CAP_*, see
 * docs/backend-abi.md for what each bit promises), so that the core
 * refuses a program that needs more before loading it. This backend runs
 * the model's host builds, C compiled with -ffp-contract=off: IEEE
 * binary32 and binary64, subnormals kept, 64-bit atomics. A GPU backend
 * reads its device, clears what it lacks and says why in detail ("no
 * cl_khr_fp64"). Fills only what out->struct_size covers. */
static weft_status tpl_caps(weft_device *dev, weft_device_caps *out,
			    weft_error *err)
{
	weft_device_caps c = { .struct_size = sizeof c };
	size_t hdr = sizeof out->struct_size;

	if (!dev)
		return tpl_fail(err, WEFT_E_INVALID, "caps: no device");
	if (!out || out->struct_size < hdr)
		return tpl_fail(err, WEFT_E_INVALID, "caps: %s",
				out ? "weft_device_caps too short"
				    : "no place for the answer");
	c.caps = WEFT_CAP_F64 | WEFT_CAP_F32_EXACT | WEFT_CAP_SUBNORMAL |
		 WEFT_CAP_ATOMIC64;
	memcpy((char *)out + hdr, (const char *)&c + hdr,
	       (out->struct_size < sizeof c ? out->struct_size : sizeof c) -
		       hdr);
	return WEFT_OK;
}

/* Copies the counters that fit the caller's struct_size (an older caller's
 * struct is smaller), leaving struct_size as the caller set it. */
static weft_status tpl_stats(weft_device *dev, weft_stats *out)
{
	size_t hdr = sizeof out->struct_size, n;

	if (!dev || !out)
		return WEFT_E_INVALID;
	n = out->struct_size < sizeof dev->st ? out->struct_size
					      : sizeof dev->st;
	if (n > hdr)
		memcpy((char *)out + hdr, (const char *)&dev->st + hdr,
		       n - hdr);
	return WEFT_OK;
}

/* ABI 1.5, optional: counters of prog's kernels since it was loaded, out[k]
 * for its kernel k. Never waits (a queued backend adds the time of the
 * launches it finds complete, and says nothing of the others). */
static weft_status tpl_kernel_stats(weft_device *dev, weft_program *prog,
				    weft_kernel_stat *out, uint32_t n,
				    weft_error *err)
{
	if (!dev || !prog || (!out && n))
		return tpl_fail(err, WEFT_E_INVALID, "kernel_stats: no %s",
				!dev	? "device"
				: !prog ? "program"
					: "output");
	if (n != prog->n_kernels)
		return tpl_fail(err, WEFT_E_INVALID,
				"kernel_stats: program '%s' has %u kernels, "
				"not %u",
				prog->name, (unsigned)prog->n_kernels,
				(unsigned)n);
	for (uint32_t k = 0; k < n; k++)
		out[k] = prog->kernels[k].stat;
	return WEFT_OK;
}

/* The one exported symbol. .name must equal NAME in weft-backend-NAME.so. */
WEFT_BACKEND_ENTRY = {
	.abi_major = WEFT_BACKEND_ABI_MAJOR,
	.abi_minor = WEFT_BACKEND_ABI_MINOR,
	.struct_size = sizeof(weft_backend),
	.name = "template",
	.version = "1.0",
	.description = "single-threaded host backend: the starting point",
	.probe = tpl_probe,
	.open = tpl_open,
	.close = tpl_close,
	.alloc = tpl_alloc,
	.free = tpl_free,
	.write = tpl_write,
	.read = tpl_read,
	.copy = tpl_copy,
	.load_program = tpl_load_program,
	.unload_program = tpl_unload_program,
	.step = tpl_step,
	.sync = tpl_sync,
	.stats = tpl_stats,
	.fence = tpl_fence,   /* ABI 1.1, optional: leave out (NULL) to have */
	.wait = tpl_wait,     /* the core use sync() instead */
	.native = tpl_native, /* ABI 1.2, optional: NULL if your memory
			       * cannot be handed out */
	.mem_info = tpl_mem_info, /* ABI 1.3, optional: NULL to leave the
				   * device's memory unchecked */
	.step_replicas = tpl_step_replicas, /* ABI 1.4, optional: NULL to
					     * have the core run replicas
					     * one after another */
	.kernel_stats = tpl_kernel_stats,   /* ABI 1.5, optional: NULL when
					     * you keep no per-kernel counters */
	.caps = tpl_caps, /* ABI 1.5, optional: NULL means exact f32 with
			   * subnormals only: programs that need doubles or
			   * 64-bit atomics are refused */
};
