/*
 * tests/plugins/test-opencl.c - what is particular to the OpenCL backend:
 * choosing the platform and device, compiling the portable dialect (and
 * reporting a broken build), the on-disk binary cache, transfers through the
 * pinned staging area, native() (the cl_mem, used through a queue of the test's
 * own), step() without host synchronisation, extents read on the
 * device, and step_replicas() (each replica's bytes those of the replica
 * run alone; shared buffers; thousands of replicas). (What every backend must
 * do is the conformance suite's.)
 *
 * The plugin is the built weft-backend-opencl.so, found in
 * $WEFT_PLUGIN_PATH or else in $WEFT_BUILDDIR/plugins/opencl/.libs, and
 * loaded through the core's loader (tests/plugins/backend-drive.c).
 * Without an OpenCL platform the whole file is skipped with the probe's
 * reason.
 *
 * The test kernels are written here in the portable dialect, as a model
 * writes its own, after the text of weft/kernel.h (the program text is
 * self-contained); the host computes what they must produce with the host
 * prelude.
 */
#include "internal.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <weft/kernel_host.h>
#include <weft/kernel.h>

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "backend-drive.h"
#include "tap.h"

/* ---- test kernels, in the portable dialect ------------------------------- */

static const char kernels_text[] =
	"/* x[i] += 1 */\n"
	"WEFT_KERNEL(add_one)\n"
	"{\n"
	"	WEFT_BUF(weft_u32, x, 0);\n"
	"	if (WEFT_GID >= WEFT_EXTENT)\n"
	"		return;\n"
	"	x[WEFT_GID] += 1u;\n"
	"}\n"
	"/* c[2] += c[3]: a count that a later launch reads on the device */\n"
	"WEFT_KERNEL(bump_count)\n"
	"{\n"
	"	WEFT_BUF(weft_u32, c, 0);\n"
	"	if (WEFT_GID == 0)\n"
	"		c[2] += c[3];\n"
	"}\n"
	"/* info[0] counts items run, info[1] items past the extent;\n"
	" * seen[i] counts runs of item i; info[2] = the extent seen */\n"
	"WEFT_KERNEL(mark)\n"
	"{\n"
	"	WEFT_BUF(weft_u32, seen, 0);\n"
	"	WEFT_BUF(weft_u32, info, 1);\n"
	"	weft_atomic_add_u32(&info[0], 1u);\n"
	"	if (WEFT_GID >= WEFT_EXTENT)\n"
	"		weft_atomic_add_u32(&info[1], 1u);\n"
	"	else\n"
	"		seen[WEFT_GID] += 1u;\n"
	"	WEFT_STORE_RELAXED(&info[2], WEFT_EXTENT);\n"
	"}\n"
	"/* out[i] = a Philox draw; sum[0] += its low byte; exactly one item\n"
	" * wins the compare-and-swap of sum[1] (sum[2] counts winners) */\n"
	"WEFT_KERNEL(philox_mix)\n"
	"{\n"
	"	WEFT_BUF(weft_u32, out, 0);\n"
	"	WEFT_BUF(weft_u32, sum, 1);\n"
	"	weft_rand4 r = weft_philox(42u, 0u, WEFT_GID, 7u, 0u, 0u);\n"
	"	out[WEFT_GID] = r.v[0];\n"
	"	weft_atomic_add_u32(&sum[0], r.v[1] & 0xffu);\n"
	"	if (weft_atomic_cas_u32(&sum[1], 0u, WEFT_GID + 1u) == 0u)\n"
	"		weft_atomic_add_u32(&sum[2], 1u);\n"
	"}\n";

enum { K_ADD_ONE, K_BUMP, K_MARK, K_MIX };

/* Names only: the OpenCL backend compiles the source, no host build. */
static const weft_kernel_desc test_kernels[] = {
	{ "add_one", NULL },
	{ "bump_count", NULL },
	{ "mark", NULL },
	{ "philox_mix", NULL },
};

static char *program_text; /* weft/kernel.h, then kernels_text */

static weft_program_desc program_desc(const char *name, const char *text)
{
	weft_program_desc d = {
		.struct_size = sizeof d,
		.name = name,
		.source = text,
		.source_len = strlen(text),
		.kernels = test_kernels,
		.n_kernels = sizeof test_kernels / sizeof test_kernels[0],
	};
	return d;
}

/* ---- helpers (the rest: backend-drive.h) --------------------------------- */

static char dev_name[256];	/* device 0, from the probe */
static char platform_name[256]; /* its platform */

static char *concat(const char *a, const char *b)
{
	char *s = xcalloc(strlen(a) + strlen(b) + 1, 1);

	strcpy(s, a);
	strcat(s, b);
	return s;
}

static weft__plugin *load_plugin(weft_context *ctx)
{
	char path[4096];

	if (!find_plugin("opencl", path, sizeof path))
		tap_skip_all("the OpenCL backend is not built (no %s)", path);
	return load_backend(ctx, path, 1);
}

static weft_device_config config(int device, const char *match,
				 const char *platform, const char *cache)
{
	weft_device_config cfg = { .struct_size = sizeof cfg,
				   .device = device,
				   .cache_dir = cache,
				   .device_match = match,
				   .platform = platform };
	return cfg;
}

static weft_device *open_cfg(weft_device_config cfg)
{
	return open_or_bail(&cfg);
}

static weft_device *open_dev(const char *cache)
{
	return open_cfg(config(0, NULL, NULL, cache));
}

static weft_program *load(weft_device *dev, const char *name, const char *text)
{
	weft_program_desc d = program_desc(name, text);

	return load_or_bail(dev, &d);
}

/* Bytes that do not repeat with any power-of-two period (a chunk read
 * into the wrong place shows). */
static void fill_aperiodic(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(((i + seed) * 0x9E3779B97F4A7C15ull) >> 56);
}

/* ---- probe and device selection ------------------------------------------ */

/* "0: NAME (PLATFORM, TYPE); 1: ..." -> NAME and PLATFORM of device 0. */
static void parse_first_device(const char *devices)
{
	const char *end = strchr(devices, ';');
	const char *open = NULL, *comma;
	size_t len = end ? (size_t)(end - devices) : strlen(devices);

	for (const char *p = devices; p < devices + len; p++)
		if (p[0] == ' ' && p[1] == '(')
			open = p;
	if (strncmp(devices, "0: ", 3) != 0 || !open)
		tap_bail("cannot read device 0 from the probe: %s", devices);
	snprintf(dev_name, sizeof dev_name, "%.*s", (int)(open - devices - 3),
		 devices + 3);
	comma = strchr(open, ',');
	if (!comma)
		tap_bail("no platform in the probe: %s", devices);
	snprintf(platform_name, sizeof platform_name, "%.*s",
		 (int)(comma - open - 2), open + 2);
}

static void test_probe(const weft__plugin *p)
{
	weft_probe pr;
	int gpu;

	memset(&pr, 0xff, sizeof pr);
	pr.struct_size = sizeof pr;
	is(vt->probe(&pr), WEFT_OK, "probe succeeds");
	tap_ok(pr.available == 1 && pr.reason[0] == '\0',
	       "probe: available, no reason");
	tap_ok(memchr(pr.devices, '\0', sizeof pr.devices) != NULL,
	       "probe: the device list is a string within its 256 bytes");
	tap_contains(pr.devices, "0: ", "probe lists device 0");
	gpu = strstr(pr.devices, "GPU)") != NULL;
	is(pr.score, gpu ? 600 : 50,
	   gpu ? "probe: a GPU scores 600"
	       : "probe: CPU devices only score 50, below OpenMP's 100");
	tap_ok(strcmp(p->name, "opencl") == 0 &&
		       strcmp(vt->name, "opencl") == 0,
	       "the entry is named opencl");
	parse_first_device(pr.devices);
	tap_diag("device 0: '%s' on platform '%s'", dev_name, platform_name);
}

/* The device a handle is on, as its messages name it: asks for more than
 * any device allows. */
static void device_of(weft_device *dev, char *out, size_t size)
{
	weft_buf *b = NULL;
	const char *at, *end;

	out[0] = '\0';
	if (vt->alloc(dev, SIZE_MAX / 4, &b, &err) != WEFT_E_NOMEM)
		return;
	at = strstr(err.msg, "on device '");
	end = at ? strchr(at + 11, '\'') : NULL;
	if (end)
		snprintf(out, size, "%.*s", (int)(end - at - 11), at + 11);
}

/* Opens with cfg; 1 when it opened device 0. */
static int opens_device0(weft_device_config cfg, const char *what)
{
	weft_device *dev = NULL;
	char name[256];
	int ok;

	if (vt->open(&cfg, &dev, &err) != WEFT_OK) {
		tap_ok(0, "%s", what);
		tap_diag("%s", err.msg);
		return 0;
	}
	device_of(dev, name, sizeof name);
	ok = tap_ok(strcmp(name, dev_name) == 0, "%s", what);
	if (!ok)
		tap_diag("opened '%s'", name);
	vt->close(dev);
	return ok;
}

static void refused(weft_device_config cfg, const char *what,
		    const char *needle)
{
	weft_device *dev = (weft_device *)&cfg;

	is(vt->open(&cfg, &dev, &err), WEFT_E_INVALID, what);
	tap_contains(err.msg, needle, "  ...naming what was asked");
	tap_ok(dev == NULL, "  ...and handing out no device");
}

/* A case-changed piece of s: selection ignores case. */
static void swapped_piece(const char *s, size_t from, size_t n, char *out)
{
	size_t len = strlen(s);

	if (from > len)
		from = len;
	snprintf(out, n + 1, "%s", s + from);
	for (char *p = out; *p; p++)
		*p = (char)(*p >= 'a' && *p <= 'z'   ? *p - 32
			    : *p >= 'A' && *p <= 'Z' ? *p + 32
						     : *p);
}

static void test_select(void)
{
	char piece[64], list[300];
	weft_device_config v10;

	opens_device0(config(-1, NULL, NULL, NULL), "the default device opens");
	opens_device0(config(0, NULL, NULL, NULL), "device 0 by index");
	swapped_piece(dev_name, 2, 6, piece);
	opens_device0(config(-1, piece, NULL, NULL),
		      "device by a name substring, any case");
	opens_device0(config(0, NULL, "0", NULL), "platform 0 by index");
	swapped_piece(platform_name, 1, 5, piece);
	opens_device0(config(-1, NULL, piece, NULL),
		      "platform by a name substring, any case");
	snprintf(list, sizeof list, "0: %s", dev_name);
	refused(config(99, NULL, NULL, NULL), "device 99 is refused",
		"opencl: device 99 does not exist: ");
	tap_contains(err.msg, list, "  ...listing the devices there are");
	refused(config(-1, "no-such-device-xyz", NULL, NULL),
		"an unknown device name is refused",
		"no device named like 'no-such-device-xyz': ");
	tap_contains(err.msg, list, "  ...listing the devices there are");
	refused(config(-1, NULL, "15", NULL), "platform 15 is refused",
		"platform 15 does not exist: ");
	tap_contains(err.msg, platform_name,
		     "  ...listing the platforms there are");
	refused(config(-1, NULL, "no-such-vendor", NULL),
		"an unknown platform name is refused",
		"no platform named like 'no-such-vendor'");
	refused(config(-2, NULL, NULL, NULL), "device -2 is refused",
		"device -2");
	/* A 1.0 caller's configuration ends before device_match/platform. */
	v10 = config(0, "no-such-device-xyz", "no-such-vendor", NULL);
	v10.struct_size = WEFT_DEVICE_CONFIG_V1_0_SIZE;
	opens_device0(v10, "fields past a 1.0 struct_size are not read");
}

/* ---- programs ------------------------------------------------------------ */

static void test_build_errors(weft_device *dev)
{
	char *bad = concat(program_text, "WEFT_KERNEL(broken)\n{\n"
					 "\tundeclared_thing = 1;\n}\n");
	weft_program_desc d = program_desc("brokenprog", bad);
	weft_kernel_desc missing[] = { { "add_one", NULL },
				       { "no_such_kernel", NULL } };
	weft_program *prog = (weft_program *)&d;

	is(vt->load_program(dev, &d, &prog, &err), WEFT_E_INVALID,
	   "a source that does not compile is refused");
	tap_contains(err.msg, "program 'brokenprog' failed to build",
		     "  ...naming the program");
	tap_contains(err.msg, dev_name, "  ...and the device");
	tap_contains(err.msg, "undeclared_thing",
		     "  ...with the compiler's error from the build log");
	tap_contains(err.msg, "brokenprog:", "  ...located in the program");
	tap_diag("%s", err.msg);
	tap_ok(prog == NULL, "  ...and no program handed out");
	d = program_desc("missing", program_text);
	d.kernels = missing;
	d.n_kernels = 2;
	is(vt->load_program(dev, &d, &prog, &err), WEFT_E_INVALID,
	   "a kernel the source lacks is refused");
	tap_contains(err.msg,
		     "program 'missing' has no kernel "
		     "'no_such_kernel'",
		     "  ...naming it");
	d.source = NULL;
	is(vt->load_program(dev, &d, &prog, &err), WEFT_E_INVALID,
	   "a program without source is refused");
	free(bad);
}

/* The Philox draws and the atomics, against the host build of kernel.h. */
static void check_mix(weft_device *dev, weft_program *prog, const char *what)
{
	enum { N = 4096 };
	uint32_t *out = xcalloc(N, 4), sum[3], want = 0;
	weft_buf *bo = alloc_or_bail(dev, N * 4), *bs = alloc_or_bail(dev, 12);
	weft_launch l = {
		.kernel = K_MIX, .n_bufs = 2, .bufs = { bo, bs }, .extent = N
	};
	int same = 1;

	zero(dev, bs, 12);
	run(dev, prog, &l, 1, 1);
	get(dev, out, bo, 0, N * 4);
	get(dev, sum, bs, 0, 12);
	for (uint32_t i = 0; i < N; i++) {
		weft_rand4 r = weft_philox(42, 0, i, 7, 0, 0);

		same &= out[i] == r.v[0];
		want += r.v[1] & 0xff;
	}
	tap_ok(same && sum[0] == want,
	       "%s: Philox draws and atomic sums equal the host build's", what);
	tap_ok(sum[2] == 1 && sum[1] >= 1 && sum[1] <= N,
	       "%s: one compare-and-swap wins (got %u winners)", what,
	       (unsigned)sum[2]);
	vt->free(dev, bo);
	vt->free(dev, bs);
	free(out);
}

/* ---- the binary cache -----------------------------------------------------
 */

/* Entries of dir: *bins counts opencl-*.bin, the return value everything. */
static int list_cache(const char *dir, int *bins, char *first, size_t size)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int all = 0;

	*bins = 0;
	if (first)
		first[0] = '\0';
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		all++;
		if (!strncmp(e->d_name, "opencl-", 7) && n > 11 &&
		    !strcmp(e->d_name + n - 4, ".bin")) {
			if (!*bins && first)
				snprintf(first, size, "%s/%s", dir, e->d_name);
			(*bins)++;
		}
	}
	closedir(d);
	return all;
}

/* Load the test program on a fresh device; the cache counters it gave. */
static void cached_load(const char *dir, const char *text, uint64_t *hits,
			uint64_t *misses)
{
	weft_device *dev = open_dev(dir);
	weft_program *prog = load(dev, "cachetest", text);
	weft_stats s = stats_of(dev);

	*hits = s.cache_hits;
	*misses = s.cache_misses;
	check_mix(dev, prog,
		  *hits ? "loaded from the cache" : "compiled from source");
	vt->close(dev); /* the program with it */
}

static void corrupt(const char *path, int truncate_it)
{
	size_t len = 0;
	char *data = tap_read_file(path, &len);
	FILE *f = fopen(path, "wb");

	if (!data || !f)
		tap_bail("cannot rewrite %s", path);
	if (!truncate_it)
		for (size_t i = len / 2; i < len / 2 + 16 && i < len; i++)
			data[i] = (char)~data[i]; /* same size, other bytes */
	fwrite(data, 1, truncate_it ? len / 3 : len, f);
	fclose(f);
	free(data);
}

static int file_size(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 ? (int)sb.st_size : -1;
}

static void test_cache_corrupt(const char *dir, const char *entry)
{
	uint64_t hits, misses;
	int size = file_size(entry), bins;

	if (size <= 0) {
		tap_skip(5, "no cache entry to corrupt");
		return;
	}
	corrupt(entry, 1);
	cached_load(dir, program_text, &hits, &misses);
	tap_ok(hits == 0 && misses == 1, "a truncated entry is ignored");
	tap_ok(file_size(entry) == size, "  ...and written again");
	corrupt(entry, 0);
	cached_load(dir, program_text, &hits, &misses);
	tap_ok(hits == 0 && misses == 1, "an entry with garbage is ignored");
	cached_load(dir, program_text, &hits, &misses);
	tap_ok(hits == 1 && misses == 0, "  ...and the rewritten one is used");
	is(list_cache(dir, &bins, NULL, 0), 1, "  ...still one entry");
}

static void test_cache(void)
{
	char dir[4096], entry[4200];
	uint64_t hits, misses;
	struct stat sb;
	char *changed;
	int bins;

	snprintf(dir, sizeof dir, "%s/cache/deeper", tap_tmpdir());
	cached_load(dir, program_text, &hits, &misses);
	tap_ok(hits == 0 && misses == 1,
	       "first load: a cache miss (hits %llu, misses %llu)",
	       (unsigned long long)hits, (unsigned long long)misses);
	tap_ok(stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode) &&
		       (sb.st_mode & 0777) == 0700,
	       "the missing cache directory is created, mode 0700");
	is(list_cache(dir, &bins, entry, sizeof entry), 1,
	   "  ...holding exactly one file");
	is(bins, 1, "  ...an opencl-KEY.bin entry (no temporary file)");
	cached_load(dir, program_text, &hits, &misses);
	tap_ok(hits == 1 && misses == 0,
	       "a fresh device loads it from the cache");
	test_cache_corrupt(dir, entry);
	changed = concat(program_text, "/* one more line */\n");
	cached_load(dir, changed, &hits, &misses);
	tap_ok(hits == 0 && misses == 1, "a changed source is a miss");
	is(list_cache(dir, &bins, NULL, 0), 2,
	   "  ...under another key: two entries, nothing else");
	is(bins, 2, "  ...both entries");
	cached_load(NULL, program_text, &hits, &misses);
	tap_ok(hits == 0 && misses == 1, "without cache_dir: compiled");
	cached_load(NULL, program_text, &hits, &misses);
	tap_ok(hits == 0 && misses == 1, "  ...every time");
	is(list_cache(dir, &bins, NULL, 0), 2, "  ...and nothing written");
	free(changed);
}

/* ---- capabilities ----------------------------------------------------------
 */

/* A kernel using weft_f64 (guarded or not) and the 64-bit atomic. */
static const char f64_text[] =
	"#if WEFT_HAS_F64\n"
	"WEFT_FN weft_f64 twice(weft_f64 x) { return x + x; }\n"
	"#endif\n"
	"WEFT_KERNEL(f64_user)\n{\n"
	"\tWEFT_BUF(weft_u64, p, 0);\n"
	"\tif (WEFT_GID >= WEFT_EXTENT) return;\n"
	"#if WEFT_HAS_F64\n"
	"\tp[WEFT_GID] = "
	"weft_f64_as_u64(twice(weft_u64_as_f64(p[WEFT_GID])));\n"
	"#endif\n"
	"#if WEFT_HAS_ATOMIC64\n"
	"\t(void)weft_atomic_add_u64(&p[0], 1);\n"
	"#endif\n"
	"}\n";

static weft_device_caps caps_of(weft_device *dev)
{
	weft_device_caps c = { .struct_size = sizeof c };

	if (vt->caps(dev, &c, &err) != WEFT_OK)
		tap_bail("caps: %s", err.msg);
	return c;
}

/* caps() from the device's queries; WEFT_OPENCL_NO_FP64 takes f64 away,
 * in caps(), in the prelude (weft_f64 undefined) and in the cache key. */
static void test_caps(weft_device *dev)
{
	weft_device_caps c = caps_of(dev), n, small;
	char *guarded = concat(program_text, f64_text);
	char *bare = concat(program_text,
			    "WEFT_KERNEL(use_f64)\n{ weft_f64 x = 1.0; "
			    "(void)x; }\n");
	weft_program_desc d = program_desc("guarded", guarded);
	weft_kernel_desc one[] = { { "use_f64", NULL } };
	weft_program *prog = NULL;
	weft_device *nofp64;

	tap_diag("caps 0x%x; %s", (unsigned)c.caps,
		 c.detail[0] ? c.detail : "nothing missing");
	tap_ok(vt->struct_size >= WEFT_BACKEND_V1_5_SIZE && vt->caps,
	       "the backend has caps() (ABI 1.5)");
	tap_ok((c.detail[0] == '\0') ==
		       (c.caps == (WEFT_CAP_F64 | WEFT_CAP_F32_EXACT |
				   WEFT_CAP_SUBNORMAL | WEFT_CAP_ATOMIC64)),
	       "the detail is empty exactly when nothing is missing");
	memset(&small, 0x5A, sizeof small);
	small.struct_size = sizeof small.struct_size;
	is(vt->caps(dev, &small, &err), WEFT_OK,
	   "caps() with only the size field fills nothing");
	tap_ok(small.caps == 0x5A5A5A5Au, "  ...and writes nothing past it");
	setenv("WEFT_OPENCL_NO_FP64", "1", 1);
	nofp64 = open_dev(NULL);
	unsetenv("WEFT_OPENCL_NO_FP64");
	n = caps_of(nofp64);
	tap_ok(!(n.caps & WEFT_CAP_F64) &&
		       (n.caps | WEFT_CAP_F64) == (c.caps | WEFT_CAP_F64),
	       "WEFT_OPENCL_NO_FP64=1: no WEFT_CAP_F64, the rest unchanged");
	tap_contains(n.detail, "no cl_khr_fp64 (WEFT_OPENCL_NO_FP64 is set)",
		     "  ...and the detail says why");
	tap_contains(n.detail, dev_name, "  ...naming the device");
	prog = load(nofp64, "guarded", guarded);
	tap_ok(prog != NULL, "  ...code under #if WEFT_HAS_F64 builds there");
	d = program_desc("bare", bare);
	d.kernels = one;
	d.n_kernels = 1;
	prog = NULL;
	is(vt->load_program(nofp64, &d, &prog, &err), WEFT_E_INVALID,
	   "  ...and weft_f64 outside it does not");
	tap_contains(err.msg, "weft_f64", "  ...the log names weft_f64");
	if (c.caps & WEFT_CAP_F64) {
		prog = load(dev, "bare", bare);
		tap_ok(prog != NULL, "with fp64 the same source builds");
		vt->unload_program(dev, prog);
	} else {
		tap_skip(1, "the device has no fp64");
	}
	vt->close(nofp64);
	free(guarded);
	free(bare);
}

/* Devices with and without fp64 build with other options: other keys. */
static void test_cache_options(void)
{
	char dir[4096];
	uint64_t hits, misses;
	int bins;

	snprintf(dir, sizeof dir, "%s/cache-fp64", tap_tmpdir());
	cached_load(dir, program_text, &hits, &misses);
	setenv("WEFT_OPENCL_NO_FP64", "1", 1);
	cached_load(dir, program_text, &hits, &misses);
	tap_ok(hits == 0 && misses == 1,
	       "the same source on a device without fp64 is a cache miss");
	cached_load(dir, program_text, &hits, &misses);
	unsetenv("WEFT_OPENCL_NO_FP64");
	tap_ok(hits == 1 && misses == 0, "  ...then a hit");
	is(list_cache(dir, &bins, NULL, 0), 2,
	   "  ...two entries, one per set of build options");
}

/* ---- transfers through the staging area -----------------------------------
 */

/* Larger than the 8 MiB staging area: blocking and asynchronous round
 * trips at an odd offset. */
static void test_big_transfers(weft_device *dev)
{
	size_t n = (size_t)19 << 20 | 12345, off = 77;
	uint8_t *src = xcalloc(n, 1), *back = xcalloc(n, 1);
	weft_buf *b = alloc_or_bail(dev, n + off);
	weft_stats s0 = stats_of(dev), s1;

	fill_aperiodic(src, n, 5);
	put(dev, b, off, src, n);
	get(dev, back, b, off, n);
	tap_ok(memcmp(src, back, n) == 0,
	       "blocking round trip of %zu bytes through the staging area", n);
	fill_aperiodic(src, n, 6);
	memset(back, 0, n);
	tap_ok(vt->write(dev, b, off, src, n, WEFT_XFER_ASYNC, &err) ==
			       WEFT_OK &&
		       vt->read(dev, back, b, off, n, WEFT_XFER_ASYNC, &err) ==
			       WEFT_OK &&
		       vt->sync(dev, &err) == WEFT_OK &&
		       memcmp(src, back, n) == 0,
	       "asynchronous round trip of %zu bytes", n);
	s1 = stats_of(dev);
	tap_ok(s1.xfer_count[WEFT_DIR_H2D] - s0.xfer_count[WEFT_DIR_H2D] == 2 &&
		       s1.xfer_bytes[WEFT_DIR_D2H] -
				       s0.xfer_bytes[WEFT_DIR_D2H] ==
			       2 * n,
	       "  ...counted as two transfers each way");
	vt->free(dev, b);
	free(src);
	free(back);
}

/* ---- native(): the cl_mem, used by another OpenCL client ------------------
 */

/* A queue of our own on the context and device of a cl_mem. */
static cl_command_queue queue_for(cl_mem mem)
{
	cl_context c = NULL;
	cl_device_id d = NULL;
	cl_int rc = clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof c, &c, NULL);

	if (rc == CL_SUCCESS)
		rc = clGetContextInfo(c, CL_CONTEXT_DEVICES, sizeof d, &d,
				      NULL);
	return rc == CL_SUCCESS ? clCreateCommandQueue(c, d, 0, &rc) : NULL;
}

/* What weft wrote is read through the cl_mem by a queue of the caller's on
 * its context; what that queue writes there, complete before weft's next
 * operation, is what weft reads. */
static void test_native(weft_device *dev)
{
	enum { N = 100000 };
	uint8_t *a = xcalloc(N, 1), *b = xcalloc(N, 1);
	weft_buf *buf = alloc_or_bail(dev, N);
	weft_native n = { .struct_size = sizeof n }, m = n;
	cl_command_queue q = NULL;
	size_t size = 0;
	int ok;

	fill_aperiodic(a, N, 21);
	put(dev, buf, 0, a, N);
	ok = vt->native(dev, buf, &n, &err) == WEFT_OK &&
	     vt->native(dev, buf, &m, &err) == WEFT_OK;
	tap_ok(ok && n.kind == WEFT_NATIVE_OPENCL && n.handle &&
		       n.device == 0 && n.offset == 0 && n.bytes == N &&
		       memcmp(&n, &m, sizeof n) == 0,
	       "native(): the buffer's cl_mem, device 0, %zu bytes, the "
	       "same twice (%s)",
	       n.bytes, ok ? "" : err.msg);
	ok = ok &&
	     clGetMemObjectInfo((cl_mem)n.handle, CL_MEM_SIZE, sizeof size,
				&size, NULL) == CL_SUCCESS &&
	     size >= N && (q = queue_for((cl_mem)n.handle)) != NULL &&
	     clEnqueueReadBuffer(q, (cl_mem)n.handle, CL_TRUE, n.offset, N, b,
				 0, NULL, NULL) == CL_SUCCESS;
	tap_ok(ok && memcmp(a, b, N) == 0,
	       "another queue on the cl_mem's context reads what weft wrote");
	fill_aperiodic(a, N, 22);
	ok = ok &&
	     clEnqueueWriteBuffer(q, (cl_mem)n.handle, CL_TRUE, n.offset, N, a,
				  0, NULL, NULL) == CL_SUCCESS &&
	     clFinish(q) == CL_SUCCESS;
	memset(b, 0, N);
	ok = ok && vt->read(dev, b, buf, 0, N, 0, &err) == WEFT_OK;
	tap_ok(ok && memcmp(a, b, N) == 0,
	       "what it writes there, finished, is what weft reads");
	if (q)
		clReleaseCommandQueue(q);
	vt->free(dev, buf);
	free(a);
	free(b);
}

/* Many asynchronous reads that together overflow the staging area, some
 * into the same host bytes: after sync() each holds what the last read
 * issued for it says. */
static void test_async_reads(weft_device *dev)
{
	enum { PIECE = 300000, N = 40 };
	size_t n = (size_t)PIECE * N;
	uint8_t *src = xcalloc(n, 1), *dst = xcalloc(n, 1);
	uint8_t *same = xcalloc(PIECE, 1), *big = xcalloc(n, 1);
	weft_buf *b = alloc_or_bail(dev, n);
	int ok = 1;

	fill_aperiodic(src, n, 11);
	put(dev, b, 0, src, n);
	for (size_t i = 0; i < N && ok; i++)
		ok = vt->read(dev, dst + i * PIECE, b, i * PIECE, PIECE,
			      WEFT_XFER_ASYNC, &err) == WEFT_OK &&
		     vt->read(dev, same, b, i * PIECE, PIECE, WEFT_XFER_ASYNC,
			      &err) == WEFT_OK;
	/* A read too large for the area, into bytes a staged read targets. */
	ok = ok &&
	     vt->read(dev, same, b, 0, PIECE, WEFT_XFER_ASYNC, &err) ==
		     WEFT_OK &&
	     vt->read(dev, big, b, 0, n, WEFT_XFER_ASYNC, &err) == WEFT_OK &&
	     vt->read(dev, big, b, PIECE, PIECE, WEFT_XFER_ASYNC, &err) ==
		     WEFT_OK &&
	     vt->sync(dev, &err) == WEFT_OK;
	tap_ok(ok && memcmp(dst, src, n) == 0,
	       "%d asynchronous reads (%zu bytes, more than the staging area) "
	       "complete at sync()",
	       2 * N, 2 * n);
	tap_ok(memcmp(same, src, PIECE) == 0,
	       "reads into the same host bytes land in issue order");
	tap_ok(memcmp(big, src + PIECE, PIECE) == 0 &&
		       memcmp(big + PIECE, src + PIECE, n - PIECE) == 0,
	       "  ...also when a large read comes between staged ones");
	vt->free(dev, b);
	free(src), free(dst), free(same), free(big);
}

/* Overlapping copies within one buffer behave like memmove(). */
static void test_overlap_copy(weft_device *dev)
{
	size_t n = 100000, len = 60000;
	uint8_t *host = xcalloc(n, 1), *got = xcalloc(n, 1);
	weft_buf *b = alloc_or_bail(dev, n);

	fill_aperiodic(host, n, 9);
	put(dev, b, 0, host, n);
	is(vt->copy(dev, b, 37, b, 0, len, 0, &err), WEFT_OK,
	   "overlapping copy within one buffer");
	memmove(host + 37, host, len);
	get(dev, got, b, 0, n);
	tap_ok(memcmp(got, host, n) == 0, "  ...acts as memmove");
	vt->free(dev, b);
	free(host), free(got);
}

/* ---- memory ---------------------------------------------------------------
 */

static void test_memory(weft_device *dev)
{
	weft_stats s0 = stats_of(dev), s;
	weft_buf *a = alloc_or_bail(dev, 1000), *b, *z1, *z2;
	weft_buf *huge = (weft_buf *)&err;

	vt->free(dev, a);
	b = alloc_or_bail(dev, 1010); /* the same 1024-byte class */
	s = stats_of(dev);
	tap_ok(s.allocs == s0.allocs + 1 && s.pool_reuses == s0.pool_reuses + 1,
	       "free then alloc of the same class reuses the pooled buffer");
	z1 = alloc_or_bail(dev, 0);
	z2 = alloc_or_bail(dev, 0);
	tap_ok(z1 && z2 && z1 != z2, "0-byte allocations: distinct handles");
	is(vt->alloc(dev, SIZE_MAX / 4, &huge, &err), WEFT_E_NOMEM,
	   "more than the device's largest allocation is refused");
	tap_contains(err.msg, "cannot allocate 4611686018427387903 bytes",
		     "  ...naming the bytes");
	tap_contains(err.msg, "largest allocation is ", "  ...the limit");
	tap_contains(err.msg, dev_name, "  ...and the device");
	tap_ok(huge == NULL, "  ...handing out nothing");
	vt->free(dev, b);
	vt->free(dev, z1);
	vt->free(dev, z2);
	vt->free(dev, NULL);
	s = stats_of(dev);
	tap_ok(s.bytes_in_use == s0.bytes_in_use &&
		       s.bytes_peak >= s0.bytes_in_use + 1010,
	       "bytes in use and peak counted");
}

/* ---- step -----------------------------------------------------------------
 */

static void test_step_no_sync(weft_device *dev, weft_program *prog)
{
	enum { N = 1000, STEPS = 1000 };
	uint32_t x[N];
	weft_buf *b = alloc_or_bail(dev, sizeof x);
	weft_launch l = {
		.kernel = K_ADD_ONE, .n_bufs = 1, .bufs = { b }, .extent = N
	};
	weft_stats s0, s1;
	int ok = 1;

	zero(dev, b, sizeof x);
	s0 = stats_of(dev);
	is(vt->step(dev, prog, &l, 1, STEPS, &err), WEFT_OK, "step(1000)");
	s1 = stats_of(dev);
	is(s1.syncs - s0.syncs, 0, "no synchronisation inside step(1000)");
	is(s1.launches - s0.launches, STEPS, "1000 launches counted");
	is(s1.steps - s0.steps, STEPS, "1000 steps counted");
	is(vt->sync(dev, &err), WEFT_OK, "sync");
	is(stats_of(dev).syncs - s1.syncs, 1, "  ...counted");
	get(dev, x, b, 0, sizeof x);
	for (int i = 0; i < N; i++)
		ok &= x[i] == STEPS;
	tap_ok(ok, "every item ran 1000 times, in order");
	vt->free(dev, b);
}

/* A count on the device (capacity 10^6, count 50), then a count that a
 * launch of the same step changes: work items never see gid >= extent. */
static void test_device_extent(weft_device *dev, weft_program *prog)
{
	enum { CAP = 1000000 };
	uint32_t c[4] = { 0, 0, 50, 0 }, info[3], *seen = xcalloc(CAP, 4);
	weft_buf *bc = alloc_or_bail(dev, 16), *bi = alloc_or_bail(dev, 12);
	weft_buf *bs = alloc_or_bail(dev, (size_t)CAP * 4);
	weft_launch l[2] = {
		{ .kernel = K_BUMP, .n_bufs = 1, .bufs = { bc }, .extent = 1 },
		{ .kernel = K_MARK,
		  .n_bufs = 2,
		  .bufs = { bs, bi },
		  .extent = CAP,
		  .extent_buf = bc,
		  .extent_offset = 8 },
	};
	int ok = 1;

	put(dev, bc, 0, c, sizeof c);
	zero(dev, bi, sizeof info);
	zero(dev, bs, (size_t)CAP * 4);
	run(dev, prog, &l[1], 1, 1);
	get(dev, info, bi, 0, sizeof info);
	tap_ok(info[0] == 50 && info[1] == 0 && info[2] == 50,
	       "a device-side count of 50 under a capacity of 10^6 runs 50 "
	       "items (ran %u, %u past the extent, extent %u)",
	       (unsigned)info[0], (unsigned)info[1], (unsigned)info[2]);
	c[2] = 10, c[3] = 5; /* counts 15, 20, 25 over three steps */
	put(dev, bc, 0, c, sizeof c);
	zero(dev, bi, sizeof info);
	zero(dev, bs, (size_t)CAP * 4);
	run(dev, prog, l, 2, 3);
	get(dev, info, bi, 0, sizeof info);
	get(dev, seen, bs, 0, 100 * 4);
	for (uint32_t i = 0; i < 100; i++)
		ok &= seen[i] == (i < 15 ? 3u : i < 20 ? 2u : i < 25 ? 1u : 0u);
	tap_ok(ok && info[0] == 60 && info[1] == 0 && info[2] == 25,
	       "a count written by an earlier launch is read on the device");
	vt->free(dev, bc), vt->free(dev, bi), vt->free(dev, bs);
	free(seen);
}

/* A bad launch anywhere in the list: nothing is enqueued. */
static void test_bad_list(weft_device *dev, weft_program *prog)
{
	uint32_t x[4] = { 1, 2, 3, 4 }, got[4];
	weft_buf *b = alloc_or_bail(dev, sizeof x);
	weft_launch l[2] = {
		{ .kernel = K_ADD_ONE,
		  .n_bufs = 1,
		  .bufs = { b },
		  .extent = 4 },
		{ .kernel = K_MARK,
		  .n_bufs = 2,
		  .bufs = { b, b },
		  .extent = 4,
		  .extent_buf = b,
		  .extent_offset = 2 },
	};
	weft_stats s0;

	put(dev, b, 0, x, sizeof x);
	s0 = stats_of(dev);
	is(vt->step(dev, prog, l, 2, 5, &err), WEFT_E_INVALID,
	   "a misaligned extent offset in launch 1 is refused");
	tap_contains(err.msg, "launch 1 of program", "  ...naming the launch");
	l[1].extent_offset = 0;
	l[1].kernel = 9;
	is(vt->step(dev, prog, l, 2, 5, &err), WEFT_E_INVALID,
	   "a kernel index out of range is refused");
	get(dev, got, b, 0, sizeof got);
	tap_ok(memcmp(got, x, sizeof x) == 0 &&
		       stats_of(dev).launches == s0.launches,
	       "  ...and launch 0 was not enqueued");
	vt->free(dev, b);
}

/* ---- replicas (step_replicas, ABI 1.4) ----------------------------------
 */

enum { REP_R = 7, REP_CAP = 100, REP_STEPS = 3 };
/* Replica r's seen[] part: REP_CAP words rounded up to 64 bytes. */
#define REP_SEEN ((REP_CAP * 4 + 63) / 64 * 64)

/* The list of test_device_extent for one replica or for REP_R: c (a
 * 64-byte part per replica) holds the count at word 2 and its increment
 * at word 3; seen[] and info[] are per replica. */
static void rep_list(weft_launch l[2], weft_buf *c, weft_buf *seen,
		     weft_buf *info)
{
	memset(l, 0, 2 * sizeof *l);
	l[0] = (weft_launch){
		.kernel = K_BUMP, .n_bufs = 1, .bufs = { c }, .extent = 1
	};
	l[1] = (weft_launch){ .kernel = K_MARK,
			      .n_bufs = 2,
			      .bufs = { seen, info },
			      .extent = REP_CAP,
			      .extent_buf = c,
			      .extent_offset = 8 };
}

/* Replica r's count starts at 10 + 13 r and grows by r + 1 a step: the
 * last ones reach the capacity. */
static void rep_counts(uint32_t r, uint32_t c[16])
{
	memset(c, 0, 64);
	c[2] = 10 + 13 * r;
	c[3] = r + 1;
}

/* Replica r alone, through step(): its c, seen and info, 64 + REP_SEEN +
 * 64 bytes into out. */
static void rep_alone(weft_device *dev, weft_program *prog, uint32_t r,
		      uint8_t *out)
{
	uint32_t c[16];
	weft_buf *bc = alloc_or_bail(dev, 64),
		 *bs = alloc_or_bail(dev, REP_SEEN);
	weft_buf *bi = alloc_or_bail(dev, 64);
	weft_launch l[2];

	rep_counts(r, c);
	put(dev, bc, 0, c, 64);
	zero(dev, bs, REP_SEEN);
	zero(dev, bi, 64);
	rep_list(l, bc, bs, bi);
	run(dev, prog, l, 2, REP_STEPS);
	get(dev, out, bc, 0, 64);
	get(dev, out + 64, bs, 0, REP_SEEN);
	get(dev, out + 64 + REP_SEEN, bi, 0, 64);
	vt->free(dev, bc), vt->free(dev, bs), vt->free(dev, bi);
}

/* REP_R replicas as one launch per list entry: each replica's bytes are
 * those of the replica run alone, and what a replica sees is its own
 * count (capped by the capacity). */
static void test_replicas(weft_device *dev, weft_program *prog)
{
	const size_t part = 64 + REP_SEEN + 64;
	uint8_t *alone = xcalloc(REP_R, part), *got = xcalloc(REP_R, part);
	uint32_t c[16 * REP_R];
	weft_buf *bc = alloc_or_bail(dev, 64 * REP_R);
	weft_buf *bs = alloc_or_bail(dev, (size_t)REP_SEEN * REP_R);
	weft_buf *bi = alloc_or_bail(dev, 64 * REP_R);
	weft_replica_layout lay[2] = { { .stride = { 64 } },
				       { .stride = { REP_SEEN, 64 },
					 .extent_stride = 64 } };
	weft_launch l[2];
	weft_stats s0, s1;
	int ok = 1;

	for (uint32_t r = 0; r < REP_R; r++) {
		rep_counts(r, &c[16 * r]);
		rep_alone(dev, prog, r, alone + r * part);
	}
	put(dev, bc, 0, c, sizeof c);
	zero(dev, bs, (size_t)REP_SEEN * REP_R);
	zero(dev, bi, 64 * REP_R);
	rep_list(l, bc, bs, bi);
	s0 = stats_of(dev);
	is(vt->step_replicas(dev, prog, l, lay, 2, REP_R, REP_STEPS, &err),
	   WEFT_OK, "step_replicas: 7 replicas, 3 steps");
	s1 = stats_of(dev);
	is(s1.launches - s0.launches, 2 * REP_STEPS,
	   "  ...one launch per list entry and step, whatever the replicas");
	is(s1.syncs - s0.syncs, 0, "  ...no synchronisation");
	for (uint32_t r = 0; r < REP_R; r++) {
		get(dev, got + r * part, bc, 64 * r, 64);
		get(dev, got + r * part + 64, bs, (size_t)REP_SEEN * r,
		    REP_SEEN);
		get(dev, got + r * part + 64 + REP_SEEN, bi, 64 * r, 64);
	}
	for (uint32_t r = 0; r < REP_R; r++) {
		const uint32_t *info =
			(const uint32_t *)(alone + r * part + 64 + REP_SEEN);
		uint32_t want = c[16 * r + 2] + REP_STEPS * c[16 * r + 3];

		ok &= info[2] == (want < REP_CAP ? want : REP_CAP);
	}
	tap_ok(ok, "  ...each replica alone ends at its own count");
	tap_ok(memcmp(got, alone, REP_R * part) == 0,
	       "  ...every replica's bytes are those of the replica run "
	       "alone");
	vt->free(dev, bc), vt->free(dev, bs), vt->free(dev, bi);
	free(alone), free(got);
}

/* Stride 0: every replica sees the whole buffer (info[0] counts the items
 * of all replicas); and thousands of replicas in one launch. */
static void test_replicas_shared(weft_device *dev, weft_program *prog)
{
	enum { MANY = 3000, N = 10 };
	uint32_t *x = xcalloc(MANY, 64), info[3];
	weft_buf *bx = alloc_or_bail(dev, (size_t)MANY * 64);
	weft_buf *bs = alloc_or_bail(dev, (size_t)MANY * 64);
	weft_buf *bi = alloc_or_bail(dev, 64);
	weft_launch add = {
		.kernel = K_ADD_ONE, .n_bufs = 1, .bufs = { bx }, .extent = N
	};
	weft_launch mark = {
		.kernel = K_MARK, .n_bufs = 2, .bufs = { bs, bi }, .extent = N
	};
	weft_replica_layout lay_add = { .stride = { 64 } };
	weft_replica_layout lay_mark = { .stride = { 64, 0 } };
	int ok = 1;

	zero(dev, bx, (size_t)MANY * 64);
	zero(dev, bs, (size_t)MANY * 64);
	zero(dev, bi, 64);
	is(vt->step_replicas(dev, prog, &mark, &lay_mark, 1, 5, 2, &err),
	   WEFT_OK, "step_replicas with a shared buffer (stride 0)");
	get(dev, info, bi, 0, sizeof info);
	is(info[0], 5 * 2 * N, "  ...every replica's items counted in it");
	is(vt->step_replicas(dev, prog, &add, &lay_add, 1, MANY, 4, &err),
	   WEFT_OK, "step_replicas: 3000 replicas");
	get(dev, x, bx, 0, (size_t)MANY * 64);
	for (uint32_t i = 0; i < MANY * 16; i++)
		ok &= x[i] == (i % 16 < N ? 4u : 0u);
	tap_ok(ok, "  ...each of their items ran 4 times");
	lay_add.stride[0] = 96;
	is(vt->step_replicas(dev, prog, &add, &lay_add, 1, 3, 1, &err),
	   WEFT_E_INVALID, "a stride that is not a multiple of 64 is refused");
	tap_contains(err.msg, "launch 0 of program 'opencl_test'",
		     "  ...naming the launch");
	vt->free(dev, bx), vt->free(dev, bs), vt->free(dev, bi);
	free(x);
}

/* ---- the program text ------------------------------------------------------
 */

static char *read_kernel_h(void)
{
	const char *src = getenv("WEFT_SRCDIR");
	char path[4096];
	char *text;

	snprintf(path, sizeof path, "%s/include/weft/kernel.h",
		 src ? src : ".");
	text = tap_read_file(path, NULL);
	if (!text)
		tap_bail("cannot read %s", path);
	return text;
}

int main(void)
{
	weft_context *ctx;
	weft__plugin *plugin;
	weft_program *prog;
	weft_device *dev;
	char *kernel_h;

	if (weft_context_new(&ctx) != WEFT_OK)
		tap_bail("no context");
	plugin = load_plugin(ctx);
	kernel_h = read_kernel_h();
	program_text = concat(kernel_h, kernels_text);
	test_probe(plugin);
	test_select();
	dev = open_dev(NULL);
	test_build_errors(dev);
	prog = load(dev, "opencl_test", program_text);
	check_mix(dev, prog, "portable kernels");
	test_memory(dev);
	test_big_transfers(dev);
	test_async_reads(dev);
	test_overlap_copy(dev);
	test_native(dev);
	test_step_no_sync(dev, prog);
	test_device_extent(dev, prog);
	test_bad_list(dev, prog);
	test_replicas(dev, prog);
	test_replicas_shared(dev, prog);
	test_cache();
	test_caps(dev);
	test_cache_options();
	/* Left loaded and allocated on purpose: close releases everything
	 * (valgrind checks). */
	alloc_or_bail(dev, 1234);
	vt->close(dev);
	weft__plugin_free(plugin);
	weft_context_free(ctx);
	free(program_text);
	free(kernel_h);
	return tap_done();
}
