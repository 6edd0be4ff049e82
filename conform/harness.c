/*
 * conform/harness.c - what runs inside a conformance group's child:
 * the protocol lines it writes to the driver, loading the plugin under
 * test through the real loader, opening its device, and vtable calls that
 * record why the current test fails.
 *
 * A test is begun with its promise ("alloc: 0 bytes gives ..."), which is
 * written to the driver at once: if the plugin crashes or hangs, the
 * driver names the test that was under way. Checks record the first
 * reason the test fails; weft__ct_end() reports it.
 *
 * The harness also keeps its own view of the buffers it allocated: a
 * handle given twice or memory that overlaps a live buffer's fails the
 * test that allocated it, and the guard words of live guarded buffers are
 * checked after every test, so that a short allocation or a launch past
 * its extent is named by the suite before glibc or a signal notices.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "conform.h"

/* ---- helpers
 * ----------------------------------------------------------------- */

void weft__ct_fmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

uint64_t weft__ct_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- protocol ------------------------------------------------------------ */

static void guards_check_all(weft__ct *t);

void weft__ct_line(FILE *out, char kind, const char *text)
{
	fputc(kind, out);
	fputc(' ', out);
	for (const char *p = text; *p; p++)
		fputc(*p == '\n' || *p == '\r' ? ' ' : *p, out);
	fputc('\n', out);
	fflush(out); /* the driver must see it before a crash */
}

static void vline(weft__ct *t, char kind, const char *prefix, const char *fmt,
		  va_list ap)
{
	char text[1024];
	int n = snprintf(text, sizeof text, "%s", prefix);

	vsnprintf(text + n, sizeof text - (size_t)n, fmt, ap);
	weft__ct_line(t->out, kind, text);
}

void weft__ct_phase(weft__ct *t, const char *fmt, ...)
{
	char prefix[64];
	va_list ap;

	weft__ct_fmt(prefix, sizeof prefix, "%s: ", t->group);
	va_start(ap, fmt);
	vline(t, 'S', prefix, fmt, ap);
	va_end(ap);
}

void weft__ct_begin(weft__ct *t, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(t->desc, sizeof t->desc, "%s: ", t->group);

	va_start(ap, fmt);
	vsnprintf(t->desc + n, sizeof t->desc - (size_t)n, fmt, ap);
	va_end(ap);
	t->why[0] = '\0';
	weft__ct_line(t->out, 'S', t->desc);
}

int weft__ct_expect(weft__ct *t, int cond, const char *fmt, ...)
{
	va_list ap;

	if (cond || t->why[0])
		return cond;
	va_start(ap, fmt);
	vsnprintf(t->why, sizeof t->why, fmt, ap);
	va_end(ap);
	if (!t->why[0])
		weft__ct_fmt(t->why, sizeof t->why, "failed");
	return cond;
}

int weft__ct_end(weft__ct *t)
{
	int ok;

	guards_check_all(t);
	ok = !t->why[0];

	weft__ct_line(t->out, ok ? 'O' : 'N', t->desc);
	if (!ok) {
		weft__ct_line(t->out, 'D', t->why);
		t->n_failed++;
	}
	t->why[0] = '\0';
	return ok;
}

int weft__ct_end_quiet(weft__ct *t)
{
	guards_check_all(t);
	return t->why[0] ? weft__ct_end(t) : 1;
}

void weft__ct_skip(weft__ct *t, const char *fmt, ...)
{
	char text[1600];
	va_list ap;
	int n = snprintf(text, sizeof text, "%s # SKIP ", t->desc);

	if (!t->why[0]) { /* a guard broken meanwhile fails it instead */
		guards_check_all(t);
		if (t->why[0]) {
			weft__ct_end(t);
			return;
		}
	}
	va_start(ap, fmt);
	vsnprintf(text + n, sizeof text - (size_t)n, fmt, ap);
	va_end(ap);
	weft__ct_line(t->out, 'O', text);
	t->why[0] = '\0';
}

void weft__ct_diag(weft__ct *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(t, 'D', "", fmt, ap);
	va_end(ap);
}

/* ---- loading the candidate ----------------------------------------------- */

void weft__ct_name_of_path(const char *path, char *name, size_t size)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	if (strncmp(base, "weft-backend-", 13) == 0)
		base += 13;
	n = strcspn(base, ".");
	weft__ct_fmt(name, size, "%.*s", (int)n, base);
}

/* A backend weft ships that configure did not build cannot run here
 * either: `weft backends` lists it as missing, "not built: REASON". */
static int not_built(const char *name, const char *plugin_path, char *why,
		     size_t why_size)
{
	weft_backend_list *l = NULL;
	weft_context *ctx = NULL;
	int found = 0;

	if (weft_context_new(&ctx) != WEFT_OK ||
	    weft_backends_scan(ctx, plugin_path, &l) != WEFT_OK) {
		weft_context_free(ctx);
		return 0;
	}
	for (size_t i = 0; !found && i < weft_backend_list_count(l); i++) {
		const weft_backend_info *b = weft_backend_list_at(l, i);
		if (strcmp(b->name, name) == 0 &&
		    strcmp(b->state, "missing") == 0 &&
		    strncmp(b->reason, "not built", 9) == 0) {
			weft__ct_fmt(why, why_size, "%s\t%s", name, b->reason);
			found = 1;
		}
	}
	weft_backend_list_free(l);
	weft_context_free(ctx);
	return found;
}

/* Through the loader a run uses (by name: discovery and selection), keeping
 * a plugin whose probe says no, to report why. */
weft_status weft__ct_load(weft__ct *t, int *unavailable, char *why,
			  size_t why_size)
{
	const weft_probe *pr;
	weft_status st;

	*unavailable = 0;
	why[0] = '\0';
	st = weft_backend_plugin_open(t->ctx, t->opt->plugin,
				      t->opt->plugin_path,
				      WEFT_PLUGIN_KEEP_UNAVAILABLE, &t->plugin);
	if (st == WEFT_E_PLUGIN && !strchr(t->opt->plugin, '/'))
		*unavailable = not_built(t->opt->plugin, t->opt->plugin_path,
					 why, why_size);
	if (st != WEFT_OK)
		return st;
	weft__ct_name_of_path(weft_backend_plugin_path(t->plugin), t->name,
			      sizeof t->name);
	t->vt = weft_backend_plugin_table(t->plugin);
	pr = weft_backend_plugin_probe(t->plugin);
	if (!pr->available) {
		weft__ct_fmt(why, why_size, "%s\t%s", t->name,
			     pr->reason[0] ? pr->reason : "unavailable");
		*unavailable = 1;
		return weft_context_fail(t->ctx, WEFT_E_UNAVAILABLE, "%s: %s",
					 t->name, pr->reason);
	}
	return WEFT_OK;
}

void weft__ct_unload(weft__ct *t)
{
	weft_backend_plugin_close(t->plugin);
	t->plugin = NULL;
	t->vt = NULL;
}

/* ---- the device ---------------------------------------------------------- */

void weft__ct_device_config(const weft__ct *t, weft_device_config *dc,
			    char *cache, size_t cache_size)
{
	const char *dev = t->opt->device ? t->opt->device : "";
	char *end;
	long v;

	memset(dc, 0, sizeof *dc);
	dc->struct_size = sizeof *dc;
	dc->device = -1;
	/* As [backend] device: digits are an index, anything else a name. */
	v = strtol(dev, &end, 10);
	if (dev[0] >= '0' && dev[0] <= '9' && *end == '\0' && v <= INT_MAX)
		dc->device = (int)v;
	else if (dev[0])
		dc->device_match = dev;
	if (t->opt->platform && t->opt->platform[0])
		dc->platform = t->opt->platform;
	/* Shared by the groups' children: compile once, load from cache. */
	weft__ct_fmt(cache, cache_size, "%s/cache", t->scratch);
	dc->cache_dir = cache;
}

weft_device *weft__ct_open(weft__ct *t)
{
	weft_device_config dc;
	weft_device *dev = NULL;
	char cache[PATH_MAX];
	weft_status st;

	weft__ct_device_config(t, &dc, cache, sizeof cache);
	st = t->vt->open(&dc, &dev, &t->err);
	if (st != WEFT_OK || !dev) {
		weft__ct_expect(t, 0, "open() returned %s: %s",
				weft_status_str(st), t->err.msg);
		return NULL;
	}
	return dev;
}

weft_program *weft__ct_program(weft__ct *t)
{
	weft_program_desc pd = cf_program;
	weft_program *prog = NULL;
	weft_status st;

	pd.name = "conform"; /* its cache key and messages */

	st = t->vt->load_program(t->dev, &pd, &prog, &t->err);
	if (st != WEFT_OK || !prog) {
		weft__ct_expect(t, 0, "load_program(conform) returned %s: %s",
				weft_status_str(st), t->err.msg);
		return NULL;
	}
	return prog;
}

/* ---- vtable calls -------------------------------------------------------- */

static int called(weft__ct *t, weft_status st, const char *what)
{
	if (st == WEFT_OK)
		return 0;
	weft__ct_expect(t, 0, "%s returned %s: %s", what, weft_status_str(st),
			t->err.msg[0] ? t->err.msg : "(no message)");
	return -1;
}

/* ---- the suite's view of its allocations --------------------------------
 *
 * Every buffer weft__ct_alloc() gives is recorded until weft__ct_free():
 * its handle, bytes, the test it was allocated in and, where native()
 * gives them, the addresses of its memory. A new buffer is checked against
 * the live ones before anything is written to it: a handle given twice, or
 * memory that overlaps a live buffer's (an allocation shorter than asked,
 * or memory handed out twice), is named here, before a kernel or a write
 * spills into a neighbour and glibc or a signal notices. */

static weft__ct_rec *rec_find(weft__ct *t, const weft_device *dev,
			      const weft_buf *b)
{
	for (uint32_t i = 0; i < t->n_recs; i++)
		if (t->recs[i].buf == b && t->recs[i].dev == dev)
			return &t->recs[i];
	return NULL;
}

const weft__ct_rec *weft__ct_rec_of(const weft__ct *t, const weft_buf *b)
{
	for (uint32_t i = 0; i < t->n_recs; i++)
		if (t->recs[i].buf == b && t->recs[i].dev == t->dev)
			return &t->recs[i];
	return NULL;
}

static void rec_drop(weft__ct *t, weft__ct_rec *r)
{
	*r = t->recs[--t->n_recs];
}

/* Where native() says r's memory is: an address range (host and CUDA
 * memory), or a range of a cl_mem (OpenCL). Nothing when native() is
 * missing or fails (the group native checks it). */
static void rec_range(weft__ct *t, weft__ct_rec *r)
{
	weft_native n;
	weft_error err;

	r->has_range = 0;
	if (!weft__ct_has_native(t))
		return;
	memset(&n, 0, sizeof n);
	n.struct_size = sizeof n;
	err.msg[0] = '\0';
	if (t->vt->native(t->dev, r->buf, &n, &err) != WEFT_OK || !n.handle)
		return;
	r->kind = n.kind;
	r->ndev = n.device;
	if (n.kind == WEFT_NATIVE_HOST || n.kind == WEFT_NATIVE_CUDA) {
		r->space = NULL;
		r->begin = (uintptr_t)n.handle + n.offset;
	} else if (n.kind == WEFT_NATIVE_OPENCL) {
		r->space = n.handle;
		r->begin = n.offset;
	} else {
		return;
	}
	r->end = r->begin + r->bytes;
	r->has_range = 1;
}

/* a and b lie in one space: host memory is one, a CUDA device's memory
 * one per device, an OpenCL buffer one per cl_mem. */
static int same_space(const weft__ct_rec *a, const weft__ct_rec *b)
{
	return a->has_range && b->has_range && a->kind == b->kind &&
	       a->space == b->space &&
	       (a->kind == WEFT_NATIVE_HOST || a->ndev == b->ndev);
}

/* The new buffer r overlaps no live buffer's memory. */
static void rec_check_overlap(weft__ct *t, const weft__ct_rec *r)
{
	for (uint32_t i = 0; i < t->n_recs; i++) {
		const weft__ct_rec *o = &t->recs[i];
		uintptr_t lo, hi;

		if (o == r || !r->bytes || !o->bytes || !same_space(r, o) ||
		    r->begin >= o->end || o->begin >= r->end)
			continue;
		lo = r->begin > o->begin ? r->begin : o->begin;
		hi = r->end < o->end ? r->end : o->end;
		weft__ct_expect(t, 0,
				"alloc(%zu) gave memory at %s0x%llx that "
				"overlaps buffer #%u (%zu bytes, from "
				"\"%s\"): bytes %zu..%zu of #%u - an "
				"allocation shorter than asked, or memory "
				"handed out twice",
				r->bytes,
				r->space ? "an offset into a cl_mem, " : "",
				(unsigned long long)r->begin, o->id, o->bytes,
				o->where, (size_t)(lo - o->begin),
				(size_t)(hi - o->begin - 1), o->id);
		return;
	}
}

/* Record b, allocated on t->dev, after checking it against the live
 * buffers. */
static void rec_add(weft__ct *t, weft_buf *b, size_t bytes)
{
	const weft__ct_rec *same = rec_find(t, t->dev, b);
	weft__ct_rec *r;

	t->n_allocs++;
	if (same) {
		weft__ct_expect(t, 0,
				"alloc(%zu) returned the handle of live buffer "
				"#%u (%zu bytes, from \"%s\"): one handle for "
				"two buffers",
				bytes, same->id, same->bytes, same->where);
		return;
	}
	if (t->n_recs == CT_MAX_RECS)
		return; /* untracked */
	r = &t->recs[t->n_recs++];
	memset(r, 0, sizeof *r);
	r->buf = b;
	r->dev = t->dev;
	r->bytes = bytes;
	r->id = t->n_allocs;
	weft__ct_fmt(r->where, sizeof r->where, "%s", t->desc);
	rec_range(t, r);
	rec_check_overlap(t, r);
}

weft_buf *weft__ct_alloc(weft__ct *t, size_t bytes)
{
	weft_buf *b = NULL;
	char what[64];

	t->err.msg[0] = '\0';
	weft__ct_fmt(what, sizeof what, "alloc(%zu)", bytes);
	if (called(t, t->vt->alloc(t->dev, bytes, &b, &t->err), what))
		return NULL;
	weft__ct_expect(t, b != NULL, "%s succeeded with a NULL handle", what);
	if (b)
		rec_add(t, b, bytes);
	return b;
}

void weft__ct_free(weft__ct *t, weft_buf *b)
{
	weft__ct_rec *r = b ? rec_find(t, t->dev, b) : NULL;

	if (r)
		rec_drop(t, r);
	if (b)
		t->vt->free(t->dev, b);
}

void weft__ct_close_device(weft__ct *t, weft_device *dev)
{
	for (uint32_t i = t->n_recs; i-- > 0;)
		if (t->recs[i].dev == dev)
			rec_drop(t, &t->recs[i]);
	if (dev)
		t->vt->close(dev);
}

/* ---- guard words of live guarded buffers ---------------------------------
 *
 * After each test the guard words of every live guarded buffer of t->dev
 * are read back (two small blocking reads each). A write through the
 * harness that puts other bytes over a buffer's guard words (the suite's
 * own choice) ends the checks of that buffer. */

/* Guard byte `at` of r (at < CF_GUARD * 4, or past its words), as
 * weft__ct_guarded() wrote it. */
static unsigned char guard_byte(const weft__ct_rec *r, size_t at)
{
	size_t g = (size_t)CF_GUARD * 4, tail = g + (size_t)r->guard_n * 4;
	size_t k = at < g ? at / 4 : CF_GUARD + (at - tail) / 4;
	uint32_t w = weft__ct_guard_word((uint32_t)k);
	unsigned char wb[4];

	memcpy(wb, &w, 4);
	return wb[at % 4];
}

/* Does writing src[0..bytes) at off put other bytes over r's guards? */
static int over_guards(const weft__ct_rec *r, size_t off,
		       const unsigned char *src, size_t bytes)
{
	size_t g = (size_t)CF_GUARD * 4, tail = g + (size_t)r->guard_n * 4;

	for (size_t i = 0; i < bytes; i++) {
		size_t at = off + i;

		if (at >= g && at < tail) {
			i += tail - at - 1; /* the data words */
			continue;
		}
		if (at >= tail + g)
			break;
		if (src[i] != guard_byte(r, at))
			return 1;
	}
	return 0;
}

static int reaches_guards(const weft__ct_rec *r, size_t off, size_t bytes)
{
	size_t g = (size_t)CF_GUARD * 4, tail = g + (size_t)r->guard_n * 4;

	return bytes && (off < g || off + bytes > tail);
}

/* A successful write of src to b at off. */
static void guards_written(weft__ct *t, weft_buf *b, size_t off,
			   const void *src, size_t bytes)
{
	weft__ct_rec *r = rec_find(t, t->dev, b);

	if (r && r->guard_n && reaches_guards(r, off, bytes) &&
	    over_guards(r, off, src, bytes))
		r->guard_n = 0;
}

/* A successful copy into dst at dst_off: guards copied onto the same
 * guards of a buffer of the same layout stay guards. */
static void guards_copied(weft__ct *t, weft_buf *dst, size_t dst_off,
			  weft_buf *src, size_t src_off, size_t bytes)
{
	weft__ct_rec *r = rec_find(t, t->dev, dst);
	const weft__ct_rec *s = rec_find(t, t->dev, src);

	if (r && r->guard_n && reaches_guards(r, dst_off, bytes) &&
	    !(s && s->guard_n == r->guard_n && src_off == dst_off))
		r->guard_n = 0;
}

/* Read one block of r's guard words (before its data, or after) and name
 * the words that changed. */
static void guard_block(weft__ct *t, weft__ct_rec *r, int after)
{
	uint32_t got[CF_GUARD];
	size_t off = after ? ((size_t)CF_GUARD + r->guard_n) * 4 : 0;
	char hex[64] = "";
	weft_error err;
	int first = -1, last = -1;

	err.msg[0] = '\0';
	if (t->vt->read(r->dev, got, r->buf, off, sizeof got, 0, &err) !=
	    WEFT_OK)
		return; /* the test's own checks say why reads fail */
	for (uint32_t k = 0; k < CF_GUARD; k++)
		if (got[k] != weft__ct_guard_word(after * CF_GUARD + k)) {
			first = first < 0 ? (int)k : first;
			last = (int)k;
		}
	if (first < 0)
		return;
	for (int k = first; k <= last && k < first + 4; k++) {
		size_t n = strlen(hex);
		weft__ct_fmt(hex + n, sizeof hex - n, "%s0x%08x", n ? " " : "",
			     (unsigned)got[k]);
	}
	weft__ct_expect(t, 0,
			"buffer #%u (%zu bytes: %u data word%s between %u "
			"guard words on each side; from \"%s\") lost its "
			"guard %s its data: bytes %zu..%zu now hold %s%s - a "
			"write %s",
			r->id, r->bytes, (unsigned)r->guard_n,
			r->guard_n == 1 ? "" : "s", CF_GUARD, r->where,
			after ? "after" : "before", off + (size_t)first * 4,
			off + (size_t)last * 4 + 3, hex,
			last - first >= 4 ? " ..." : "",
			after ? "past the end of its data (a launch past its "
				"extent, or a neighbour's memory)"
			      : "before the start of its data (a "
				"neighbour's write spilling into it)");
	r->guard_n = 0; /* reported once */
}

/* The guards of every live guarded buffer of t->dev still hold. */
static void guards_check_all(weft__ct *t)
{
	for (uint32_t i = 0; i < t->n_recs; i++) {
		weft__ct_rec *r = &t->recs[i];

		if (!r->guard_n || r->dev != t->dev || !t->dev)
			continue;
		guard_block(t, r, 0);
		if (r->guard_n)
			guard_block(t, r, 1);
	}
}

int weft__ct_write(weft__ct *t, weft_buf *b, size_t off, const void *src,
		   size_t bytes, unsigned flags)
{
	char what[96];

	t->err.msg[0] = '\0';
	weft__ct_fmt(what, sizeof what, "write(%zu bytes at offset %zu%s)",
		     bytes, off, flags & WEFT_XFER_ASYNC ? ", async" : "");
	if (called(t, t->vt->write(t->dev, b, off, src, bytes, flags, &t->err),
		   what))
		return -1;
	guards_written(t, b, off, src, bytes);
	return 0;
}

int weft__ct_read(weft__ct *t, void *dst, weft_buf *b, size_t off, size_t bytes,
		  unsigned flags)
{
	char what[96];

	t->err.msg[0] = '\0';
	weft__ct_fmt(what, sizeof what, "read(%zu bytes at offset %zu%s)",
		     bytes, off, flags & WEFT_XFER_ASYNC ? ", async" : "");
	return called(t,
		      t->vt->read(t->dev, dst, b, off, bytes, flags, &t->err),
		      what);
}

int weft__ct_copy(weft__ct *t, weft_buf *dst, size_t dst_off, weft_buf *src,
		  size_t src_off, size_t bytes, unsigned flags)
{
	char what[128];

	t->err.msg[0] = '\0';
	weft__ct_fmt(what, sizeof what,
		     "copy(%zu bytes from offset %zu to %zu%s)", bytes, src_off,
		     dst_off, flags & WEFT_XFER_ASYNC ? ", async" : "");
	if (called(t,
		   t->vt->copy(t->dev, dst, dst_off, src, src_off, bytes, flags,
			       &t->err),
		   what))
		return -1;
	guards_copied(t, dst, dst_off, src, src_off, bytes);
	return 0;
}

int weft__ct_sync(weft__ct *t)
{
	t->err.msg[0] = '\0';
	return called(t, t->vt->sync(t->dev, &t->err), "sync()");
}

int weft__ct_step(weft__ct *t, const weft_launch *l, uint32_t n,
		  uint64_t n_steps)
{
	char what[64];

	t->err.msg[0] = '\0';
	weft__ct_fmt(what, sizeof what, "step(%u launches, %llu steps)",
		     (unsigned)n, (unsigned long long)n_steps);
	return called(t, t->vt->step(t->dev, t->prog, l, n, n_steps, &t->err),
		      what);
}

int weft__ct_has_fences(const weft__ct *t)
{
	return t->vt->struct_size >= WEFT_BACKEND_V1_1_SIZE && t->vt->fence &&
	       t->vt->wait;
}

int weft__ct_fence(weft__ct *t, uint64_t *token)
{
	t->err.msg[0] = '\0';
	*token = 0;
	return called(t, t->vt->fence(t->dev, token, &t->err), "fence()");
}

int weft__ct_wait(weft__ct *t, uint64_t token)
{
	char what[48];

	t->err.msg[0] = '\0';
	weft__ct_fmt(what, sizeof what, "wait(%llu)",
		     (unsigned long long)token);
	return called(t, t->vt->wait(t->dev, token, &t->err), what);
}

int weft__ct_has_native(const weft__ct *t)
{
	return t->vt->struct_size >= WEFT_BACKEND_V1_2_SIZE && t->vt->native;
}

int weft__ct_native(weft__ct *t, weft_buf *b, weft_native *out)
{
	memset(out, 0, sizeof *out);
	out->struct_size = sizeof *out;
	t->err.msg[0] = '\0';
	return called(t, t->vt->native(t->dev, b, out, &t->err), "native()");
}

int weft__ct_has_replicas(const weft__ct *t)
{
	return t->vt->struct_size >= WEFT_BACKEND_V1_4_SIZE &&
	       t->vt->step_replicas;
}

int weft__ct_step_replicas(weft__ct *t, const weft_launch *l,
			   const weft_replica_layout *layouts, uint32_t n,
			   uint32_t replicas, uint64_t n_steps)
{
	char what[96];

	t->err.msg[0] = '\0';
	weft__ct_fmt(what, sizeof what,
		     "step_replicas(%u launches, %u replicas, %llu steps)",
		     (unsigned)n, (unsigned)replicas,
		     (unsigned long long)n_steps);
	return called(t,
		      t->vt->step_replicas(t->dev, t->prog, l, layouts, n,
					   replicas, n_steps, &t->err),
		      what);
}

int weft__ct_stats(weft__ct *t, weft_stats *s)
{
	weft_status st;

	memset(s, 0, sizeof *s);
	s->struct_size = sizeof *s;
	st = t->vt->stats(t->dev, s);
	if (st != WEFT_OK)
		weft__ct_expect(t, 0, "stats() returned %s",
				weft_status_str(st));
	return st == WEFT_OK ? 0 : -1;
}

weft_launch weft__ct_launch(uint32_t kernel, uint32_t extent, weft_buf *b0,
			    weft_buf *b1)
{
	weft_launch l;

	memset(&l, 0, sizeof l);
	l.kernel = kernel;
	l.extent = extent;
	l.bufs[0] = b0;
	l.bufs[1] = b1;
	l.n_bufs = b1 ? 2 : 1;
	return l;
}

/* ---- guarded buffers ----------------------------------------------------- */

uint32_t weft__ct_guard_word(uint32_t k)
{
	return 0xA5C30000u ^ (k * 0x9E37u);
}

void *weft__ct_xmalloc(weft__ct *t, size_t bytes)
{
	void *p = malloc(bytes ? bytes : 1);

	weft__ct_expect(t, p != NULL,
			"cannot allocate %zu bytes of host "
			"memory for the test",
			bytes);
	return p;
}

weft_buf *weft__ct_guarded(weft__ct *t, uint32_t n, uint32_t fill)
{
	size_t words = (size_t)n + 2 * CF_GUARD;
	uint32_t *h = weft__ct_xmalloc(t, words * 4);
	weft_buf *b = h ? weft__ct_alloc(t, words * 4) : NULL;
	weft__ct_rec *r;

	if (b) {
		for (uint32_t k = 0; k < CF_GUARD; k++) {
			h[k] = weft__ct_guard_word(k);
			h[CF_GUARD + n + k] = weft__ct_guard_word(CF_GUARD + k);
		}
		for (uint32_t i = 0; i < n; i++)
			h[CF_GUARD + i] = fill;
		if (weft__ct_write(t, b, 0, h, words * 4, 0) != 0) {
			weft__ct_free(t, b);
			b = NULL;
		}
	}
	if (b && (r = rec_find(t, t->dev, b)))
		r->guard_n = n; /* checked after each test from now on */
	free(h);
	return b;
}

int weft__ct_guards(weft__ct *t, weft_buf *b, uint32_t n, uint32_t *data)
{
	size_t words = (size_t)n + 2 * CF_GUARD;
	uint32_t *h = weft__ct_xmalloc(t, words * 4);
	int bad = -1;

	if (!h || weft__ct_read(t, h, b, 0, words * 4, 0) != 0) {
		free(h);
		return -1;
	}
	for (uint32_t k = 0; bad < 0 && k < 2 * CF_GUARD; k++) {
		size_t at = k < CF_GUARD ? k : n + k;
		if (h[at] != weft__ct_guard_word(k)) {
			weft__ct_expect(t, 0,
					"guard word %zu (%s the %u words "
					"written) was overwritten: 0x%08x",
					at, k < CF_GUARD ? "before" : "after",
					(unsigned)n, (unsigned)h[at]);
			bad = (int)k;
		}
	}
	if (data)
		memcpy(data, h + CF_GUARD, (size_t)n * 4);
	free(h);
	return bad < 0 ? 0 : -1;
}

weft_buf *weft__ct_counting(weft__ct *t, uint32_t n, uint32_t base)
{
	size_t bytes = ((size_t)n + 2 * CF_GUARD) * 4;
	uint32_t *h = weft__ct_xmalloc(t, bytes);
	weft_buf *b = h ? weft__ct_guarded(t, n, 0) : NULL;

	if (b && !weft__ct_read(t, h, b, 0, bytes, 0)) {
		for (uint32_t i = 0; i < n; i++)
			h[CF_GUARD + i] = base + i;
		weft__ct_write(t, b, 0, h, bytes, 0);
	}
	free(h);
	return b;
}

int weft__ct_words_affine(weft__ct *t, const uint32_t *got, uint32_t n,
			  uint32_t base, uint32_t mul, const char *what)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t want = base + mul * i;

		if (got[i] != want)
			return weft__ct_expect(
				t, 0, "%s: word %u is %u, want %u", what,
				(unsigned)i, (unsigned)got[i], (unsigned)want);
	}
	return 1;
}

int weft__ct_holds(weft__ct *t, weft_buf *b, uint32_t n, uint32_t base,
		   uint32_t mul, const char *what)
{
	uint32_t *data = weft__ct_xmalloc(t, (size_t)n * 4);
	int ok = data && !weft__ct_guards(t, b, n, data) &&
		 weft__ct_words_affine(t, data, n, base, mul, what);

	free(data);
	return ok;
}

/* ---- counters ------------------------------------------------------------ */

int weft__ct_counters_moved(weft__ct *t, const weft_stats *a,
			    const weft_stats *b, const char *what)
{
	static const char *dir[] = { "H2D", "D2H", "D2D" };

#define MOVED(f, name)                                                         \
	if (a->f != b->f)                                                      \
	return !weft__ct_expect(t, 0, "%s changed %s from %llu to %llu", what, \
				name, (unsigned long long)a->f,                \
				(unsigned long long)b->f)
	MOVED(allocs, "allocs");
	MOVED(pool_reuses, "pool_reuses");
	MOVED(frees, "frees");
	MOVED(bytes_in_use, "bytes_in_use");
	MOVED(launches, "launches");
	MOVED(steps, "steps");
#undef MOVED
	for (int d = 0; d < WEFT_DIR_COUNT; d++)
		if (a->xfer_count[d] != b->xfer_count[d] ||
		    a->xfer_bytes[d] != b->xfer_bytes[d])
			return !weft__ct_expect(
				t, 0,
				"%s changed the %s transfer counters from %llu "
				"(%llu bytes) to %llu (%llu bytes)",
				what, dir[d],
				(unsigned long long)a->xfer_count[d],
				(unsigned long long)a->xfer_bytes[d],
				(unsigned long long)b->xfer_count[d],
				(unsigned long long)b->xfer_bytes[d]);
	return 0;
}

size_t weft__ct_first_diff(const unsigned char *a, const unsigned char *b,
			   size_t n)
{
	size_t i = 0;

	while (i < n && a[i] == b[i])
		i++;
	return i;
}

void weft__ct_pattern(void *p, size_t n, unsigned seed)
{
	unsigned char *c = p;
	uint32_t x = seed * 2654435761u + 12345u;

	for (size_t i = 0; i < n; i++) {
		x = x * 1664525u + 1013904223u;
		c[i] = (unsigned char)(x >> 24);
	}
}
