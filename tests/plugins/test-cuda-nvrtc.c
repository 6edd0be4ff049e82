/*
 * tests/plugins/test-cuda-nvrtc.c - the parts of the CUDA backend that need no
 * GPU: the built plugin (exports, probe, open without a device), the CUDA
 * prelude compiled by NVRTC with the SEIR source and with a kernel using
 * every name of the dialect, compiler errors, and the on-disk cache.
 *
 * plugins/cuda/prelude.c, compile.c and cache.c are compiled into this
 * test with plugins/common (they make no CUDA runtime call). The NVRTC
 * checks are skipped when libnvrtc cannot be loaded; the probe checks
 * accept both a machine without a GPU ("no CUDA driver", "no CUDA
 * device") and one with a GPU.
 */
#include "config.h"

#include <dlfcn.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <weft/model.h>

#include "priv.h"
#include "tap.h"

/* core/internal.h: the model (for the names of its kernels). */
#include "seir_kernels.h"

static const char *plugin_path(char *buf, size_t size)
{
	const char *dir = getenv("WEFT_BUILDDIR");

	snprintf(buf, size, "%s/plugins/cuda/.libs/weft-backend-cuda.so",
		 dir ? dir : ".");
	return buf;
}

/* ---- the plugin file ------------------------------------------------------
 */

static void test_open_unavailable(const weft_backend *vt, const char *reason)
{
	weft_device_config cfg = { .struct_size = sizeof cfg, .device = -1 };
	weft_device *dev = (weft_device *)&cfg;
	weft_error err = { "" };

	TAP_EQ_INT(vt->open(&cfg, &dev, &err), WEFT_E_UNAVAILABLE,
		   "open without a usable device is WEFT_E_UNAVAILABLE");
	tap_ok(dev == NULL, "a failed open leaves no device");
	tap_contains(err.msg, reason, "open gives the probe's reason");
}

static void test_probe(const weft_backend *vt)
{
	weft_probe p = { .struct_size = sizeof p };
	weft_probe small = { .struct_size = offsetof(weft_probe, score) };

	TAP_EQ_INT(vt->probe(&p), WEFT_OK, "probe returns WEFT_OK");
	if (p.available) {
		tap_diag("a CUDA device is present: %s", p.devices);
		TAP_EQ_INT(p.score, 900,
			   "an available CUDA backend scores 900");
		tap_ok(strncmp(p.devices, "0: ", 3) == 0 &&
			       strstr(p.devices, "(sm_") &&
			       strstr(p.devices, " GiB"),
		       "devices read like '0: NAME (sm_XY, N GiB)'");
		tap_skip(3, "a CUDA device is present");
	} else {
		tap_diag("probe: %s", p.reason);
		TAP_EQ_INT(p.score, 0, "an unavailable backend scores 0");
		tap_ok(strncmp(p.reason, "no CUDA driver (libcuda.so.1 ", 29) ==
				       0 ||
			       strcmp(p.reason, "no CUDA device") == 0,
		       "the reason is 'no CUDA driver (...)' or 'no CUDA "
		       "device'");
		test_open_unavailable(vt, p.reason);
	}
	small.score = -7;
	vt->probe(&small);
	TAP_EQ_INT(small.score, -7,
		   "probe fills only the caller's struct_size");
}

static void test_plugin(void)
{
	char path[4096];
	void *dl =
		dlopen(plugin_path(path, sizeof path), RTLD_NOW | RTLD_LOCAL);
	const weft_backend *vt;

	if (!tap_ok(dl != NULL, "the plugin loads without a GPU driver")) {
		tap_diag("%s", dlerror());
		return;
	}
	vt = dlsym(dl, WEFT_BACKEND_ENTRY_SYMBOL);
	tap_ok(vt && vt->abi_major == WEFT_BACKEND_ABI_MAJOR &&
		       vt->struct_size == sizeof(weft_backend) &&
		       strcmp(vt->name, "cuda") == 0,
	       "it exports the entry, ABI 1, named cuda");
	tap_ok(!dlsym(dl, "cudaGetDeviceCount") &&
		       !dlsym(dl, "weft__cuda_alloc") &&
		       !dlsym(dl, "XXH3_128bits"),
	       "the static runtime and internal functions are not exported");
	if (vt)
		test_probe(vt);
	dlclose(dl);
}

/* ---- NVRTC ----------------------------------------------------------------
 */

/* Every name of the dialect, and the device side of the parameter layout
 * asserted in priv.h (NVRTC has no offsetof without headers: 12 pointers,
 * then a pointer and four words in 120 bytes, then 13 64-bit words in 224,
 * fixes the offsets). Compiled after weft/kernel.h, as models' sources
 * are. */
static const char dialect_src[] =
	"#ifndef WEFT_TARGET_CUDA\n#error no target\n#endif\n"
	"static_assert(sizeof(weft__cuda_args) == 224, \"size\");\n"
	"static_assert(sizeof(((weft__cuda_args *)0)->b) == 96 &&\n"
	"  sizeof(((weft__cuda_args *)0)->xbuf) == 8 &&\n"
	"  sizeof(((weft__cuda_args *)0)->stride) == 96 &&\n"
	"  sizeof(((weft__cuda_args *)0)->xstride) == 8, \"layout\");\n"
	"static_assert(sizeof(weft_u8) == 1 && sizeof(weft_u16) == 2 &&\n"
	"  sizeof(weft_u32) == 4 && sizeof(weft_i32) == 4 &&\n"
	"  sizeof(weft_u64) == 8 && sizeof(weft_f32) == 4 &&\n"
	"  sizeof(weft_i64) == 8 && sizeof(weft_f64) == 8, \"types\");\n"
	"static_assert(WEFT_HAS_F64 == 1, \"f64\");\n"
	"WEFT_CONST weft_f64 tab[2] = { 0.5, 0.25 };\n"
	"WEFT_FN weft_u32 twice(weft_u32 x) { return 2 * x; }\n"
	"WEFT_KERNEL(every_name)\n"
	"{\n"
	"  WEFT_BUF(weft_u32, w, 0);\n"
	"  WEFT_BUF(const weft_u8, b, 1);\n"
	"  WEFT_BUF(weft_f32, f, 11);\n"
	"  WEFT_GLOBAL weft_u32 *p = w + 4;\n"
	"  weft_u32 i = WEFT_GID;\n"
	"  weft_rand4 r;\n"
	"  if (i >= WEFT_EXTENT) return;\n"
	"  r = weft_philox(1u, 2u, i, 0u, 0u, 0u);\n"
	"  weft_atomic_add_u32(&w[0], twice(WEFT_MULHI32(r.v[0], r.v[1])));\n"
	"  (void)weft_atomic_cas_u32(&w[1], 0u, "
	"(weft_u32)WEFT_LOAD_RELAXED(&b[i]));\n"
	"  WEFT_STORE_RELAXED(&p[i], (weft_u32)(weft_i32)-1);\n"
	"  f[i] = (weft_f32)(weft_u64)i * 0.5f;\n"
	"  {\n"
	"    WEFT_BUF(weft_u64, q, 2);\n"
	"    weft_f64 d = weft_u64_as_f64(q[i]) * tab[i & 1];\n"
	"    weft_i64 s = (weft_i64)d;\n"
	"    q[i] = weft_f64_as_u64(WEFT_SQRT_F64(d)) + (weft_u64)s;\n"
	"    w[i] = weft_f32_as_u32(WEFT_SQRT_F32(weft_u32_as_f32(w[i])));\n"
	"    (void)weft_atomic_add_u64(&q[0], 1ull);\n"
	"    (void)weft_atomic_max_u32(&w[2], i);\n"
	"    (void)weft_atomic_min_u32(&w[3], i);\n"
	"  }\n"
	"}\n";

static weft_status compile(const struct weft__cuda_nvrtc *nv, const char *name,
			   const char *src, int major, int minor, void **cubin,
			   size_t *size, weft_error *err)
{
	char *text = weft__cuda_program_text(name, src, strlen(src), NULL);
	weft_status st;

	if (!text)
		tap_bail("out of memory");
	st = weft__cuda_compile(nv, name, text, major, minor,
				"device 0 (test, sm_XY)", cubin, size, err);
	free(text);
	return st;
}

static int has(const void *bin, size_t n, const char *s)
{
	return memmem(bin, n, s, strlen(s)) != NULL;
}

static void test_seir(const struct weft__cuda_nvrtc *nv, int major, int minor)
{
	weft_error err = { "" };
	void *cubin = NULL;
	size_t n = 0;
	weft_status st = compile(nv, "seir", seir_program.source, major, minor,
				 &cubin, &n, &err);

	if (!tap_ok(st == WEFT_OK, "the SEIR source compiles for sm_%d%d",
		    major, minor))
		tap_diag("%s", err.msg);
	tap_ok(cubin && n > 4 && memcmp(cubin, "\177ELF", 4) == 0,
	       "sm_%d%d: the result is a CUBIN (ELF)", major, minor);
	const weft_program_desc *pd = &seir_program;
	int all = cubin != NULL;
	for (uint32_t k = 0; k < pd->n_kernels; k++)
		all = all && has(cubin, n, pd->kernels[k].name);
	tap_ok(all, "sm_%d%d: it holds the %u kernels under their names", major,
	       minor, pd->n_kernels);
	free(cubin);
}

/* weft/kernel.h followed by src, as embed.sh builds a model's text. */
static char *with_kernel_h(const char *src)
{
	const char *top = getenv("WEFT_SRCDIR");
	char path[4096], *kh, *all;
	size_t n = 0;

	snprintf(path, sizeof path, "%s/include/weft/kernel.h",
		 top ? top : ".");
	kh = tap_read_file(path, &n);
	if (!kh)
		tap_bail("cannot read %s", path);
	all = malloc(n + strlen(src) + 1);
	if (!all)
		tap_bail("out of memory");
	memcpy(all, kh, n);
	strcpy(all + n, src);
	free(kh);
	return all;
}

static void test_dialect(const struct weft__cuda_nvrtc *nv)
{
	weft_error err = { "" };
	void *cubin = NULL;
	size_t n = 0;
	char *src = with_kernel_h(dialect_src);
	weft_status st = compile(nv, "dialect", src, 9, 0, &cubin, &n, &err);

	free(src);
	if (!tap_ok(st == WEFT_OK,
		    "every name of the dialect compiles, and the parameter "
		    "layout matches the host's"))
		tap_diag("%s", err.msg);
	tap_ok(cubin && has(cubin, n, "every_name"),
	       "extern \"C\" keeps the kernel's name");
	free(cubin);
}

static void test_errors(const struct weft__cuda_nvrtc *nv)
{
	static const char bad[] = "WEFT_KERNEL(bad)\n"
				  "{\n"
				  "  undefined_thing = 1;\n"
				  "}\n";
	weft_error err = { "" };
	void *cubin = (void *)bad;
	size_t n = 1;
	weft_status st = compile(nv, "broken", bad, 9, 0, &cubin, &n, &err);

	TAP_EQ_INT(st, WEFT_E_MODEL, "a compilation error is WEFT_E_MODEL");
	tap_ok(cubin == NULL && n == 0, "and gives no CUBIN");
	tap_contains(err.msg, "program 'broken' does not compile for device 0",
		     "the message names the program and the device");
	tap_contains(err.msg, "broken(3): error",
		     "it quotes the log at the "
		     "source's line, not the "
		     "prelude's");
	tap_contains(err.msg, "undefined_thing", "it names the culprit");
	st = compile(nv, "old", "", 1, 0, &cubin, &n, &err);
	tap_ok(st == WEFT_E_DEVICE && strstr(err.msg, "--gpu-architecture"),
	       "an architecture NVRTC does not know is refused: %s", err.msg);
}

static void test_nvrtc(void)
{
	struct weft__cuda_nvrtc nv;
	weft_error err = { "" };

	memset(&nv, 0, sizeof nv);
	if (weft__cuda_nvrtc_open(&nv, &err) != WEFT_OK) {
		tap_diag("%s", err.msg);
		tap_skip(15, "NVRTC cannot be loaded here");
		return;
	}
	tap_diag("NVRTC %d.%d from %s", nv.major, nv.minor, nv.path);
	test_seir(&nv, 9, 0);
	test_seir(&nv, 7, 5);
	test_dialect(&nv);
	test_errors(&nv);
	weft__cuda_nvrtc_close(&nv);
	tap_ok(nv.dl == NULL, "NVRTC is unloaded");
}

/* The options that make f32 and f64 arithmetic IEEE, operation by
 * operation (docs/backend-cuda.md), whatever NVRTC's defaults. */
static void test_options(void)
{
	static const char *const want[] = { "--fmad=false", "--prec-div=true",
					    "--prec-sqrt=true", "--ftz=false" };
	const char *opts[WEFT__CUDA_MAX_OPTS];
	char arch[32];
	int n = weft__cuda_options(9, 0, arch, opts);

	for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
		int found = 0;

		for (int i = 0; i < n; i++)
			found |= strcmp(opts[i], want[w]) == 0;
		tap_ok(found, "NVRTC is given %s", want[w]);
	}
	for (int i = 0; i < n; i++)
		tap_ok(!strstr(opts[i], "fast-math") &&
			       strcmp(opts[i], "--ftz=true") != 0 &&
			       strcmp(opts[i], "--fmad=true") != 0,
		       "option %s is not a fast-math one", opts[i]);
}

static void test_text(void)
{
	size_t len = 0;
	char *t = weft__cuda_program_text("my model", "X\nY", 3, &len);

	tap_ok(t && strstr(t, "#define WEFT_KERNEL(name)") &&
		       strstr(t, "\n#line 1 \"my_model\"\nX\nY\n") &&
		       len == strlen(t),
	       "program text: prelude, #line with a safe name, source");
	free(t);
}

/* ---- the cache -------------------------------------------------------------
 */

static weft__cuda_key key_with(int what)
{
	const char *opts[2] = { "--gpu-architecture=sm_90", "--std=c++17" };
	const char *opts2[2] = { "--gpu-architecture=sm_90", "--std=c++14" };
	weft__cuda_key_in in = {
		.text = "source",
		.text_len = 6,
		.opts = what == 1 ? opts2 : opts,
		.n_opts = 2,
		.nvrtc_major = 13,
		.nvrtc_minor = what == 2 ? 1 : 0,
		.device_name = what == 3 ? "NVIDIA H200" : "NVIDIA H100",
		.cc_major = 9,
		.cc_minor = 0,
		.driver_version = what == 4 ? 13010 : 13000,
	};
	weft__cuda_key k;

	if (what == 5)
		in.text = "sourcf";
	weft__cuda_cache_key(&in, &k);
	return k;
}

static void test_keys(void)
{
	weft__cuda_key a = key_with(0), b = key_with(0);
	int differ = 1;

	tap_ok(memcmp(&a, &b, sizeof a) == 0, "the same inputs give one key");
	for (int w = 1; w <= 5; w++) {
		weft__cuda_key k = key_with(w);

		differ &= memcmp(&a, &k, sizeof a) != 0;
	}
	tap_ok(differ, "text, options, NVRTC, device and driver each change "
		       "the key");
}

/* The only file in dir; 0 when there are others (temporary files). */
static int single_entry(const char *dir, char *path, size_t size)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			n++;
			snprintf(path, size, "%s/%s", dir, e->d_name);
		}
	closedir(d);
	return n == 1;
}

static int rewrite(const char *path, long offset, int truncate_there)
{
	FILE *f = fopen(path, "r+b");
	int c;

	if (!f)
		return -1;
	if (truncate_there) {
		fclose(f);
		return truncate(path, offset);
	}
	fseek(f, offset, SEEK_SET);
	c = fgetc(f);
	fseek(f, offset, SEEK_SET);
	fputc(c ^ 0x5a, f);
	return fclose(f);
}

static void test_cache(void)
{
	char dir[4096], entry[4096];
	static const char bin[] = "\177ELF pretend CUBIN";
	weft__cuda_key k = key_with(0), other = key_with(3);
	struct stat sb;
	size_t n = 0;
	void *got;

	snprintf(dir, sizeof dir, "%s/cache/weft", tap_tmpdir());
	tap_ok(weft__cuda_cache_load(dir, &k, &n) == NULL && n == 0,
	       "nothing cached in a missing directory");
	TAP_EQ_INT(weft__cuda_cache_store(dir, &k, bin, sizeof bin), 0,
		   "store creates the directory and an entry");
	tap_ok(stat(dir, &sb) == 0 && (sb.st_mode & 0777) == 0700,
	       "the directory is created with mode 0700");
	tap_ok(single_entry(dir, entry, sizeof entry) &&
		       strstr(entry, "/cuda-") && strstr(entry, ".cubin"),
	       "one entry, cuda-KEY.cubin, and no temporary file left");
	got = weft__cuda_cache_load(dir, &k, &n);
	tap_ok(got && n == sizeof bin && memcmp(got, bin, n) == 0,
	       "the entry reads back");
	free(got);
	tap_ok(weft__cuda_cache_load(dir, &other, &n) == NULL,
	       "another key finds nothing");
	rewrite(entry, 60, 0);
	tap_ok(weft__cuda_cache_load(dir, &k, &n) == NULL,
	       "a damaged payload reads as missing");
	TAP_EQ_INT(weft__cuda_cache_store(dir, &k, bin, sizeof bin), 0,
		   "and is overwritten");
	got = weft__cuda_cache_load(dir, &k, &n);
	tap_ok(got != NULL, "the rewritten entry reads back");
	free(got);
	rewrite(entry, 30, 1);
	tap_ok(weft__cuda_cache_load(dir, &k, &n) == NULL,
	       "a short entry reads as missing");
	tap_ok(weft__cuda_cache_store("/proc/weft-no-such/dir", &k, bin,
				      sizeof bin) == -1,
	       "a directory that cannot be made fails the store, quietly");
}

int main(void)
{
	test_plugin();
	test_text();
	test_options();
	test_nvrtc();
	test_keys();
	test_cache();
	return tap_done();
}
