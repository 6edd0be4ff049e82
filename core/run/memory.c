/*
 * core/run/memory.c - bounded memory: the model's estimate of the memory a
 * run needs (model ABI 1.3, estimate()), what the host and the device
 * have for it, and the check that refuses a run that does not fit before
 * anything is allocated, with the bytes needed, what needs them (the
 * keys that drive each part) and the bytes available.
 *
 * The host has MemAvailable (/proc/meminfo; $WEFT_MEM_AVAILABLE instead,
 * for tests), or less when the process is limited: its address-space
 * limit (ulimit -v) less what it has mapped, the limits of its cgroups
 * (v2's memory.max less memory.current, v1's memory.limit_in_bytes less
 * memory.usage_in_bytes, its own cgroup's and those above it, the use less
 * the inactive page cache of memory.stat). A device has
 * what its backend's mem_info() (backend ABI 1.3) says is free
 * ($WEFT_DEVICE_MEM_AVAILABLE instead); a device whose memory is the host's
 * (OpenMP, a CPU OpenCL device) adds its buffers to the host's bytes.
 * Validation gives the run's verdict: when it depends on the device, it opens
 * the run's device to ask it. docs/memory.md.
 */
#include "run/sim.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "run/validate.h"

/* ---- the estimate ---------------------------------------------------------
 */

static uint64_t weft__add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

weft_status weft_model_estimate_add(weft_model_estimate *est, const char *what,
				    const char *keys, uint64_t host_bytes,
				    uint64_t device_bytes)
{
	weft__mem_part *p;

	if (!est || !what)
		return WEFT_E_INVALID;
	/* Past the last place, parts are counted in the last one. */
	p = &est->part[est->n < WEFT__MEM_PARTS ? est->n++
						: WEFT__MEM_PARTS - 1];
	if (p->what[0]) {
		weft__fmt(p->what, sizeof p->what, "other parts");
		p->keys[0] = '\0';
	} else {
		weft__fmt(p->what, sizeof p->what, "%s", what);
		weft__fmt(p->keys, sizeof p->keys, "%s", keys ? keys : "");
	}
	p->host = weft__add_sat(p->host, host_bytes);
	p->device = weft__add_sat(p->device, device_bytes);
	est->host = weft__add_sat(est->host, host_bytes);
	est->device = weft__add_sat(est->device, device_bytes);
	return WEFT_OK;
}

weft_status weft_model_estimate_setup(weft_model_estimate *est,
				      const char *what, const char *keys,
				      uint64_t host_bytes)
{
	if (!est || !what)
		return WEFT_E_INVALID;
	if (host_bytes <= est->setup.host)
		return WEFT_OK; /* the largest is the one held */
	weft__fmt(est->setup.what, sizeof est->setup.what, "%s", what);
	weft__fmt(est->setup.keys, sizeof est->setup.keys, "%s",
		  keys ? keys : "");
	est->setup.host = host_bytes;
	return WEFT_OK;
}

uint64_t weft_model_rows_bytes(const weft_model_ctx *mc, size_t row_bytes,
			       uint64_t slot_rows)
{
	uint64_t slots = weft__model_output_slots(mc);

	if (slot_rows && row_bytes > UINT64_MAX / slots / slot_rows)
		return UINT64_MAX;
	return slots * slot_rows * row_bytes;
}

weft_status weft__mem_estimate(weft_context *ctx, const weft_config *cfg,
			       const weft_model *model,
			       weft_model_estimate *est)
{
	weft_model_ctx mc = { .cfg = cfg, .model = model, .ctx = ctx };

	memset(est, 0, sizeof *est);
	if (model->struct_size < WEFT_MODEL_V1_3_SIZE || !model->estimate)
		return WEFT_OK;
	if (weft__cancelled(ctx))
		return weft__cancel_fail(
			ctx, "estimating the memory of model %s", model->name);
	est->known = 1;
	return weft__mc_end(&mc, model->estimate(&mc, est));
}

/* ---- what the host has ----------------------------------------------------
 */

/* The first size - 1 bytes of a small file (/proc, /sys), NUL-terminated;
 * 0 when it cannot be read. */
static int weft__read_small(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	return n > 0;
}

/* A decimal number of bytes, with nothing after it but blanks. */
static int weft__parse_bytes(const char *text, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (text[0] < '0' || text[0] > '9')
		return 0;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno)
		return 0;
	while (*end == ' ' || *end == '\t' || *end == '\n')
		end++;
	if (*end)
		return 0;
	*out = v;
	return 1;
}

/* "MemAvailable:  N kB" of /proc/meminfo, in bytes. */
static int weft__meminfo(uint64_t *out)
{
	char text[4096], *p;
	unsigned long long kb;

	if (!weft__read_small("/proc/meminfo", text, sizeof text) ||
	    !(p = strstr(text, "MemAvailable:")) ||
	    sscanf(p + 13, "%llu", &kb) != 1)
		return 0;
	*out = kb > UINT64_MAX / 1024 ? UINT64_MAX : kb * 1024;
	return 1;
}

/* The address space the limit (ulimit -v) leaves: the limit less the
 * process's virtual size. */
static int weft__as_left(uint64_t *out)
{
	struct rlimit rl;
	char text[256];
	unsigned long long pages;
	uint64_t mapped;

	if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
	    !weft__read_small("/proc/self/statm", text, sizeof text) ||
	    sscanf(text, "%llu", &pages) != 1)
		return 0;
	mapped = (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
	*out = rl.rlim_cur > mapped ? rl.rlim_cur - mapped : 0;
	return 1;
}

/* "1.5 GiB", "12.0 MiB", "800 bytes". */
static void weft__human(char *buf, size_t size, uint64_t bytes)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB",
					    "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	int u = -1;

	while (v >= 1024.0 && u < 5) {
		v /= 1024.0;
		u++;
	}
	if (u < 0)
		weft__fmt(buf, size, "%llu bytes", (unsigned long long)bytes);
	else
		weft__fmt(buf, size, "%.1f %s", v, unit[u]);
}

/* The lowest of what limits the host's (or the device's) memory: from
 * says which ("MemAvailable", "what the cgroup v1 limit of FILE, 4.0 GiB,
 * leaves"). */
static void weft__avail_min(weft__mem_avail *a, uint64_t bytes,
			    const char *from)
{
	if (a->known && a->bytes <= bytes)
		return;
	a->known = 1;
	a->bytes = bytes;
	weft__fmt(a->from, sizeof a->from, "%s", from);
}

/* ---- the cgroups' limits --------------------------------------------------
 *
 * A process's memory is limited by its cgroup and by every cgroup above
 * it, in cgroup v2 (memory.max, memory.current, in the unified hierarchy
 * at /sys/fs/cgroup) as in cgroup v1 (memory.limit_in_bytes,
 * memory.usage_in_bytes, in the memory controller's hierarchy at
 * /sys/fs/cgroup/memory). /proc/self/cgroup names the process's cgroup in
 * each: "0::/PATH" (v2), "N:CONTROLLERS:/PATH" (v1, CONTROLLERS holding
 * "memory"). Walking from that cgroup up to the hierarchy's root also
 * finds the limit of a container whose own cgroup is mounted as the
 * root (a PATH that does not exist below the mount point).
 */

/* A cgroup file's path: WEFT_TEST_CGROUP_ROOT (a directory holding a
 * fake proc/self/cgroup and sys/fs/cgroup, for tests) before it. */
static void weft__cg_path(char *buf, size_t size, const char *path)
{
	const char *root = weft__test_hook("CGROUP_ROOT");

	weft__fmt(buf, size, "%s%s", root ? root : "", path);
}

/* Values of v1's memory.limit_in_bytes this large mean no limit (the
 * kernel's "unlimited", PAGE_COUNTER_MAX pages, rounded down to a page). */
#define WEFT__CG1_UNLIMITED 9223372036854771712ull

/* One hierarchy's files: its mount point, the files of the limit and of
 * what is used, the key of memory.stat that counts the inactive page
 * cache in that use, and its name in messages. */
typedef struct weft__cg_kind {
	const char *mount, *limit, *usage, *inactive, *name;
} weft__cg_kind;

static const weft__cg_kind weft__cg_v2 = { "/sys/fs/cgroup", "memory.max",
					   "memory.current", "inactive_file",
					   "cgroup v2" };
/* v1's total_inactive_file counts the cgroups below, as its
 * memory.usage_in_bytes does; its inactive_file the cgroup's own. */
static const weft__cg_kind weft__cg_v1 = { "/sys/fs/cgroup/memory",
					   "memory.limit_in_bytes",
					   "memory.usage_in_bytes",
					   "total_inactive_file", "cgroup v1" };

/* The value of key in the memory.stat of cgroup dir ("KEY N" lines): 0
 * when the file or the key is not there. */
static uint64_t weft__cg_stat(const weft__cg_kind *k, const char *dir,
			      const char *key)
{
	char file[WEFT__MEM_PATH], path[WEFT__MEM_PATH], text[16384];
	size_t n = strlen(key);
	unsigned long long v;

	weft__fmt(file, sizeof file, "%s%s/memory.stat", k->mount, dir);
	weft__cg_path(path, sizeof path, file);
	if (!weft__read_small(path, text, sizeof text))
		return 0;
	for (const char *line = text; *line;) {
		if (strncmp(line, key, n) == 0 && line[n] == ' ' &&
		    sscanf(line + n + 1, "%llu", &v) == 1)
			return v;
		line += strcspn(line, "\n");
		line += *line == '\n';
	}
	return 0;
}

/* The limit of cgroup dir (a directory below the mount point), when it
 * has one: its limit less what it uses, into a when that is the lowest.
 * What it uses is its working set, as docker and the kubelet count it:
 * the usage less the inactive page cache charged to it, which the kernel
 * reclaims before it would kill anything (a cgroup whose usage is mostly
 * files read earlier still has room). */
static void weft__cg_level(weft__mem_avail *a, const weft__cg_kind *k,
			   const char *dir)
{
	char file[WEFT__MEM_PATH], path[WEFT__MEM_PATH], value[64], h[32];
	char from[sizeof a->from];
	uint64_t max, used = 0, cache;

	weft__fmt(file, sizeof file, "%s%s/%s", k->mount, dir, k->usage);
	weft__cg_path(path, sizeof path, file);
	if (weft__read_small(path, value, sizeof value))
		(void)weft__parse_bytes(value, &used); /* unknown: 0 */
	if (used) {
		cache = weft__cg_stat(k, dir, k->inactive);
		used = cache < used ? used - cache : 0;
	}
	weft__fmt(file, sizeof file, "%s%s/%s", k->mount, dir, k->limit);
	weft__cg_path(path, sizeof path, file);
	if (!weft__read_small(path, value, sizeof value) ||
	    !weft__parse_bytes(value, &max) || /* v2's "max": no limit */
	    (k == &weft__cg_v1 && max >= WEFT__CG1_UNLIMITED))
		return;
	weft__human(h, sizeof h, max);
	weft__fmt(from, sizeof from, "what the %s limit of %s, %s, leaves",
		  k->name, path, h);
	weft__avail_min(a, max > used ? max - used : 0, from);
}

/* The limits of cgroup `cgroup` ("/a/b") and of every cgroup above it. */
static void weft__cg_walk(weft__mem_avail *a, const weft__cg_kind *k,
			  const char *cgroup)
{
	char dir[WEFT__MEM_PATH];
	char *slash;

	weft__fmt(dir, sizeof dir, "%s", cgroup);
	for (;;) {
		/* "/a/b/" and "/" end without their slash: the root is "". */
		size_t n = strlen(dir);
		if (n && dir[n - 1] == '/')
			dir[n - 1] = '\0';
		weft__cg_level(a, k, dir);
		if (!dir[0] || !(slash = strrchr(dir, '/')))
			return;
		*slash = '\0';
	}
}

/* 1 when a v1 line's controllers ("cpu,memory") hold "memory". */
static int weft__cg_has_memory(const char *controllers, size_t len)
{
	const char *p = controllers, *end = controllers + len;

	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		size_t n = (size_t)((comma ? comma : end) - p);
		if (n == 6 && memcmp(p, "memory", 6) == 0)
			return 1;
		p += n + 1;
	}
	return 0;
}

/* One line of /proc/self/cgroup, "ID:CONTROLLERS:PATH": the hierarchy
 * whose memory it names (v2's, or v1's memory controller's), walked. */
static void weft__cg_line(weft__mem_avail *a, char *line)
{
	char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

	if (!c2 || c2[1] != '/')
		return;
	if (c2 == c1 + 1 && strncmp(line, "0:", 2) == 0)
		weft__cg_walk(a, &weft__cg_v2, c2 + 1);
	else if (weft__cg_has_memory(c1 + 1, (size_t)(c2 - c1 - 1)))
		weft__cg_walk(a, &weft__cg_v1, c2 + 1);
}

/* The lowest of what the process's cgroups leave, v1 and v2. */
static void weft__cgroup_left(weft__mem_avail *a)
{
	char text[8192], path[WEFT__MEM_PATH];
	char *line, *save = NULL;

	weft__cg_path(path, sizeof path, "/proc/self/cgroup");
	if (!weft__read_small(path, text, sizeof text))
		return;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		weft__cg_line(a, line);
}

/* An environment variable holding bytes: 1 when set (in *out), 0 when
 * not, -1 (and a message) when it is not a number of bytes. */
static int weft__env_bytes(weft_context *ctx, const char *name, uint64_t *out)
{
	const char *text = getenv(name);

	if (!text || !text[0])
		return 0;
	if (weft__parse_bytes(text, out))
		return 1;
	weft__fail(ctx, WEFT_E_CONFIG,
		   "%s=%.40s is not a number of bytes (a decimal integer)",
		   name, text);
	return -1;
}

/* $name, bytes that replace what the machine reports, into out: 1 when
 * set, 0 when not, -1 (and a message) when not a number of bytes. */
static int weft__mem_env(weft_context *ctx, const char *name,
			 weft__mem_avail *out)
{
	uint64_t v;
	int env = weft__env_bytes(ctx, name, &v);

	if (env > 0)
		weft__avail_min(out, v, name);
	return env;
}

weft_status weft__mem_host(weft_context *ctx, weft__mem_avail *out)
{
	uint64_t v;
	int env;

	memset(out, 0, sizeof *out);
	if ((env = weft__mem_env(ctx, "WEFT_MEM_AVAILABLE", out)) < 0)
		return WEFT_E_CONFIG;
	if (env == 0 && weft__meminfo(&v))
		weft__avail_min(out, v, "MemAvailable");
	weft__cgroup_left(out);
	if (weft__as_left(&v))
		weft__avail_min(out, v,
				"what the address-space limit (ulimit -v) "
				"leaves");
	return WEFT_OK;
}

/* ---- what the device has --------------------------------------------------
 */

weft_status weft__mem_device(weft_context *ctx, const weft_backend *vt,
			     weft_device *dev, weft__mem_avail *out)
{
	weft_mem_info mi = { .struct_size = sizeof mi };
	weft_error err = { { 0 } };
	weft_status st;
	int env;

	memset(out, 0, sizeof *out);
	if ((env = weft__mem_env(ctx, "WEFT_DEVICE_MEM_AVAILABLE", out)) < 0)
		return WEFT_E_CONFIG;
	if (env > 0)
		return WEFT_OK;
	if (vt->struct_size < WEFT_BACKEND_V1_3_SIZE || !vt->mem_info)
		return WEFT_OK; /* a backend older than 1.3: not checked */
	st = vt->mem_info(dev, &mi, &err);
	if (st)
		return weft__fail(ctx, st, "backend %s: mem_info: %s", vt->name,
				  err.msg[0] ? err.msg : weft__status_str(st));
	out->host = mi.host;
	if (!mi.host && mi.free_bytes)
		weft__avail_min(out, mi.free_bytes, "free");
	out->total = mi.total_bytes;
	return WEFT_OK;
}

/* ---- the check ------------------------------------------------------------
 */

/* Bytes of part p: its host bytes (which = 'h'), device bytes ('d'), or
 * both ('b', a device in host memory). */
static uint64_t weft__part_bytes(const weft__mem_part *p, int which)
{
	if (which == 'h')
		return p->host;
	if (which == 'd')
		return p->device;
	return weft__add_sat(p->host, p->device);
}

/* "12.0 MiB for agents ([seir] agents = 37518)" after buf's text. */
static void weft__part_add(char *buf, size_t size, const weft__mem_part *p,
			   uint64_t bytes)
{
	char h[32];

	weft__human(h, sizeof h, bytes);
	weft__msg_add(buf, size, "%s%s for %s%s%s%s", buf[0] ? ", " : "", h,
		      p->what, p->keys[0] ? " (" : "", p->keys,
		      p->keys[0] ? ")" : "");
}

void weft__mem_parts(const weft_model_estimate *est, int which, char *buf,
		     size_t size)
{
	buf[0] = '\0';
	for (unsigned i = 0; i < est->n; i++) {
		uint64_t b = weft__part_bytes(&est->part[i], which);
		if (b)
			weft__part_add(buf, size, &est->part[i], b);
	}
}

uint64_t weft__mem_need(const weft_model_estimate *est, int which)
{
	uint64_t later = which == 'b'	? weft__add_sat(est->host, est->device)
			 : which == 'd' ? est->device
					: est->host;

	return which != 'd' && est->setup.host > later ? est->setup.host
						       : later;
}

/* The parts of what weft__mem_need() counts: setup's alone when it is
 * the larger. */
static void weft__mem_need_parts(const weft_model_estimate *est, int which,
				 char *buf, size_t size)
{
	buf[0] = '\0';
	if (which != 'd' && weft__mem_need(est, which) == est->setup.host &&
	    est->setup.host)
		weft__part_add(buf, size, &est->setup, est->setup.host);
	else
		weft__mem_parts(est, which, buf, size);
}

/* "needs N bytes of KIND memory (PARTS), AVAILABLE": the run fails. */
static weft_status weft__mem_refuse(weft_context *ctx, const char *model,
				    const weft_model_estimate *est, int which,
				    uint64_t need, const char *kind,
				    const char *avail)
{
	char parts[WEFT__MSG_MAX / 2], h[32];

	weft__mem_need_parts(est, which, parts, sizeof parts);
	weft__human(h, sizeof h, need);
	return weft__fail(ctx, WEFT_E_NOMEM,
			  "model %s needs %llu bytes (%s) of %s memory (%s), "
			  "%s; lower the keys named, or run where there is "
			  "more memory",
			  model, (unsigned long long)need, h, kind, parts,
			  avail);
}

/* "MemAvailable is M bytes (1.2 GiB)". */
static void weft__avail_text(char *buf, size_t size, const weft__mem_avail *a,
			     const char *what)
{
	char h[32];

	weft__human(h, sizeof h, a->bytes);
	weft__fmt(buf, size, "%s%s is %llu bytes", what ? what : "", a->from,
		  (unsigned long long)a->bytes);
	if (a->bytes >= 1024)
		weft__msg_add(buf, size, " (%s)", h);
}

weft_status weft__mem_check_host(weft_context *ctx, const char *model,
				 const weft_model_estimate *est,
				 const weft__mem_avail *host, int with_device,
				 const char *backend)
{
	uint64_t need = weft__mem_need(est, with_device ? 'b' : 'h');
	char avail[sizeof host->from + 160];

	if (!est->known || !host->known || need <= host->bytes)
		return WEFT_OK;
	weft__avail_text(avail, sizeof avail, host, NULL);
	if (with_device)
		weft__msg_add(avail, sizeof avail,
			      " (backend %s keeps its buffers in host memory)",
			      backend);
	return weft__mem_refuse(ctx, model, est, with_device ? 'b' : 'h', need,
				"host", avail);
}

weft_status weft__mem_check_device(weft_context *ctx, const char *model,
				   const weft_model_estimate *est,
				   const weft__mem_avail *dev,
				   const char *backend)
{
	char avail[sizeof dev->from + 160], what[96], h[32];

	if (!est->known || !dev->known || est->device <= dev->bytes)
		return WEFT_OK;
	weft__fmt(what, sizeof what, "backend %s's device: ", backend);
	weft__avail_text(avail, sizeof avail, dev, what);
	if (dev->total) {
		weft__human(h, sizeof h, dev->total);
		weft__msg_add(avail, sizeof avail, " of %llu (%s)",
			      (unsigned long long)dev->total, h);
	}
	return weft__mem_refuse(ctx, model, est, 'd', est->device, "device",
				avail);
}

weft_status weft__mem_host_has(weft_context *ctx, uint64_t need,
			       const char *what, const char *parts,
			       const char *todo)
{
	char avail[sizeof((weft__mem_avail *)0)->from + 160], h[32];
	weft__mem_avail host;
	weft_status st;

	if ((st = weft__mem_host(ctx, &host)) || !host.known ||
	    need <= host.bytes)
		return st;
	weft__avail_text(avail, sizeof avail, &host, NULL);
	weft__human(h, sizeof h, need);
	return weft__fail(
		ctx, WEFT_E_NOMEM,
		"%s needs %llu bytes (%s) of host memory (%s), %s; %s", what,
		(unsigned long long)need, h, parts, avail, todo);
}

static uint64_t weft__mul_sat(uint64_t a, uint64_t n)
{
	return n && a > UINT64_MAX / n ? UINT64_MAX : a * n;
}

/* n replicas of p: each holds its host bytes and, until the batch's
 * buffers are allocated, its device bytes staged in host memory. */
static void weft__part_times(weft__mem_part *p, uint64_t n)
{
	p->host = weft__mul_sat(weft__add_sat(p->host, p->device), n);
	p->device = weft__mul_sat(p->device, n);
}

/* The estimate of a batch of n replicas. */
static void weft__est_times(weft_model_estimate *est, uint64_t n)
{
	if (n < 2)
		return;
	for (unsigned i = 0; i < est->n; i++)
		weft__part_times(&est->part[i], n);
	weft__part_times(&est->setup, n);
	est->host = weft__mul_sat(weft__add_sat(est->host, est->device), n);
	est->device = weft__mul_sat(est->device, n);
}

/* "a batch of N replicas: " before the message of a refusal. */
static weft_status weft__mem_batch_fail(weft_context *ctx, weft_status st,
					uint32_t n)
{
	char msg[WEFT__MSG_MAX];

	if (n < 2 || st != WEFT_E_NOMEM)
		return st;
	weft__fmt(msg, sizeof msg, "%s", weft__context_error(ctx));
	return weft__fail(ctx, st, "a batch of %u replicas: %s", n, msg);
}

weft_status weft__mem_fits(weft_context *ctx, const char *model,
			   const weft_model_estimate *estimate,
			   const weft_backend *vt, weft_device *dev,
			   uint32_t replicas)
{
	weft_model_estimate est = *estimate;
	weft__mem_avail host, devmem = { 0 };
	weft_status st;

	if (!est.known)
		return WEFT_OK;
	if ((st = weft__mem_host(ctx, &host)) ||
	    (vt && (st = weft__mem_device(ctx, vt, dev, &devmem))))
		return st;
	weft__est_times(&est, replicas);
	st = weft__mem_check_host(ctx, model, &est, &host, devmem.host,
				  vt ? vt->name : "");
	if (st == WEFT_OK)
		st = weft__mem_check_device(ctx, model, &est, &devmem,
					    vt ? vt->name : "");
	return weft__mem_batch_fail(ctx, st, replicas);
}

/* ---- validation's verdict ------------------------------------------------
 */

/* weft__mem_fits() on the device of the backend the run would use, its
 * verdict in *decided's case (1): 0 when there is no such device here. */
static weft_status weft__mem_fits_device(weft_context *ctx,
					 const weft_config *cfg,
					 const weft_model *model,
					 const weft_model_estimate *est,
					 int *decided)
{
	weft_device_config dc;
	weft__plugin_set *set = NULL;
	weft__plugin *own = NULL, *p = NULL;
	const weft_backend *vt = NULL;
	weft_device *dev = NULL;
	weft_error err = { { 0 } };
	char why[512];
	weft_status st;

	*decided = 0;
	weft__sim_device_config(cfg, &dc);
	if ((st = weft__sim_choose_backend(ctx, cfg, &set, &own, &p)))
		goto release_plugins;
	vt = WEFT__BACKEND(p);
	if ((st = vt->open(&dc, &dev, &err)))
		goto release_plugins;
	if (weft__backend_meets_needs(vt, dev, model->program, why,
				      sizeof why)) {
		*decided = 1;
		st = weft__mem_fits(ctx, model->name, est, vt, dev, 1);
	}
	vt->close(dev);
release_plugins:
	weft__plugins_free(set);
	weft__plugin_free(own);
	return st;
}

weft_status weft__mem_fits_config(weft_context *ctx, const weft_config *cfg,
				  const weft_model *model,
				  const weft_model_estimate *est)
{
	char msg[WEFT__MSG_MAX];
	weft__mem_avail host;
	weft_status st;
	int decided;

	if ((st = weft__mem_fits(ctx, model->name, est, NULL, NULL, 1)) ||
	    !est->known || (st = weft__mem_host(ctx, &host)) || !host.known ||
	    weft__mem_need(est, 'b') <= host.bytes)
		return st;
	/* Whether the run fits depends on its device: ask it. What goes
	 * wrong in asking is the run's to say, once it opens the device. */
	weft__fmt(msg, sizeof msg, "%s", weft__context_error(ctx));
	st = weft__mem_fits_device(ctx, cfg, model, est, &decided);
	if (decided || st == WEFT_E_CANCELLED)
		return st;
	if (ctx)
		weft__fmt(ctx->msg, sizeof ctx->msg, "%s", msg);
	return WEFT_OK;
}

/* ---- weft check's report ------------------------------------------------- */

weft_status weft_config_estimate(weft_context *ctx, const weft_config *cfg,
				 weft_estimate *out)
{
	/* What available_from points to, until the next call in this
	 * thread. */
	static _Thread_local char from[sizeof((weft__mem_avail *)0)->from];
	weft_estimate full = { .struct_size = sizeof full };
	const weft__valid *v = cfg ? weft__config_valid(cfg) : NULL;
	weft__mem_avail host;
	weft_status st;

	if (!cfg || !out || out->struct_size < sizeof(uint32_t))
		return weft__fail(ctx, WEFT_E_INVALID,
				  "weft_config_estimate: NULL argument, or "
				  "struct_size not set");
	if (!v)
		return weft__fail(ctx, WEFT_E_INVALID,
				  "weft_config_estimate: the configuration "
				  "was not validated since it last changed "
				  "(weft_config_validate)");
	if ((st = weft__mem_host(ctx, &host)))
		return st;
	full.known = v->est.known;
	full.host_bytes = weft__mem_need(&v->est, 'h');
	full.device_bytes = v->est.device;
	full.shared_bytes = weft__mem_need(&v->est, 'b');
	full.host_available = host.known ? host.bytes : 0;
	weft__fmt(from, sizeof from, "%s", host.known ? host.from : "");
	full.available_from = from;
	weft__mem_parts(&v->est, 'b', full.parts, sizeof full.parts);
	if (v->est.setup.host) {
		weft__msg_add(full.parts, sizeof full.parts, "; before that, ");
		weft__part_add(full.parts + strlen(full.parts),
			       sizeof full.parts - strlen(full.parts),
			       &v->est.setup, v->est.setup.host);
	}
	full.struct_size =
		out->struct_size < sizeof full ? out->struct_size : sizeof full;
	memcpy(out, &full, full.struct_size);
	return WEFT_OK;
}
