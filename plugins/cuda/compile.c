/*
 * plugins/cuda/compile.c - compiling a model's portable source with NVRTC:
 * the program text (the prelude of prelude.c, a #line directive naming
 * the program, the model's source), NVRTC's options, loading NVRTC, and
 * turning its log into an error (the whole log saved to a file).
 *
 * NVRTC is not linked: it is dlopen()ed when the first program is loaded,
 * so that the plugin loads (and probes) without it. This file makes no
 * CUDA runtime call, so that tests can compile programs on a machine
 * without a GPU (tests/plugins/test-cuda-nvrtc.c).
 */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/buildlog.h"
#include "priv.h"

int weft__cuda_options(int cc_major, int cc_minor, char arch[32],
		       const char *opts[WEFT__CUDA_MAX_OPTS])
{
	int n = 0;

	snprintf(arch, 32, "--gpu-architecture=sm_%d%d", cc_major, cc_minor);
	opts[n++] = arch;
	opts[n++] = "--std=c++17";
	opts[n++] = "-default-device";
	/* IEEE arithmetic, operation by operation, as on the host (built
	 * with -ffp-contract=off) and in OpenCL (FP_CONTRACT OFF): no fused
	 * multiply-add, correctly rounded division and square root, and
	 * subnormals kept. Each is NVRTC's default but --fmad, and each is
	 * given so that no default can change the results. */
	opts[n++] = "--fmad=false";
	opts[n++] = "--prec-div=true";
	opts[n++] = "--prec-sqrt=true";
	opts[n++] = "--ftz=false";
	/* Source lines in compute-sanitizer's reports. */
	opts[n++] = "--generate-line-info";
	return n;
}

/* The program name as a #line file name: letters, digits, '_', '-', '.'. */
static void line_name(const char *name, char *out, size_t size)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < size; i++) {
		char c = name[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '_' || c == '-' ||
			 c == '.';

		out[i] = ok ? c : '_';
	}
	out[i] = '\0';
}

char *weft__cuda_program_text(const char *name, const char *source, size_t len,
			      size_t *text_len)
{
	char file[64], line[96];
	size_t pre = weft__cuda_prelude_len, ln;
	char *text;

	line_name(name, file, sizeof file);
	ln = (size_t)snprintf(line, sizeof line, "#line 1 \"%s\"\n", file);
	if (len > SIZE_MAX - pre - ln - 2)
		return NULL;
	text = malloc(pre + ln + len + 2);
	if (!text)
		return NULL;
	memcpy(text, weft__cuda_prelude, pre);
	memcpy(text + pre, line, ln);
	memcpy(text + pre + ln, source, len);
	text[pre + ln + len] = '\n';
	text[pre + ln + len + 1] = '\0';
	if (text_len)
		*text_len = pre + ln + len + 1;
	return text;
}

/* ---- loading NVRTC ------------------------------------------------------- */

/* POSIX guarantees that dlsym()'s void * converts to a function pointer. */
#define BIND(field, type, name)                 \
	do {                                    \
		void *p_ = dlsym(nv->dl, name); \
		missing |= p_ == NULL;          \
		nv->field = (type)p_;           \
	} while (0)

static int bind(struct weft__cuda_nvrtc *nv)
{
	int missing = 0;

	BIND(create, weft__nvrtc_create_fn, "nvrtcCreateProgram");
	BIND(compile, weft__nvrtc_compile_fn, "nvrtcCompileProgram");
	BIND(destroy, weft__nvrtc_destroy_fn, "nvrtcDestroyProgram");
	BIND(log_size, weft__nvrtc_size_fn, "nvrtcGetProgramLogSize");
	BIND(log, weft__nvrtc_get_fn, "nvrtcGetProgramLog");
	BIND(cubin_size, weft__nvrtc_size_fn, "nvrtcGetCUBINSize");
	BIND(cubin, weft__nvrtc_get_fn, "nvrtcGetCUBIN");
	BIND(version, weft__nvrtc_version_fn, "nvrtcVersion");
	BIND(error_string, weft__nvrtc_error_fn, "nvrtcGetErrorString");
	return missing ? -1 : 0;
}

/* Candidates, best first: the soname of the toolkit the plugin was built
 * with, the other majors weft knows, then the same names in the
 * toolkit's library directory (for machines where it is not on the
 * loader's path). */
static int candidates(char names[][160], int max)
{
	static const int majors[] = { 13, 12 };
	int own = CUDART_VERSION / 1000, n = 0;

	snprintf(names[n++], 160, "libnvrtc.so.%d", own);
	for (size_t i = 0; i < sizeof majors / sizeof majors[0]; i++)
		if (majors[i] != own && n < max)
			snprintf(names[n++], 160, "libnvrtc.so.%d", majors[i]);
	for (int i = 0, k = n; i < k && n < max; i++)
		snprintf(names[n++], 160, "%s/%s", WEFT_CUDA_LIBDIR, names[i]);
	return n;
}

weft_status weft__cuda_nvrtc_open(struct weft__cuda_nvrtc *nv, weft_error *err)
{
	char names[8][160], why[200] = "", tried[200] = "";
	size_t len = 0;
	int n;

	if (nv->dl)
		return WEFT_OK;
	n = candidates(names, 8);
	for (int i = 0; i < n && !nv->dl; i++) {
		/* Never unmapped: NVRTC's static state would leak at every
		 * dlclose() and be built again at the next dlopen(). */
		nv->dl =
			dlopen(names[i], RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
		if (nv->dl)
			snprintf(nv->path, sizeof nv->path, "%s", names[i]);
		else if (i == 0)
			snprintf(why, sizeof why, "%s", dlerror());
		if (!strchr(names[i], '/') && len < sizeof tried)
			len += (size_t)snprintf(tried + len, sizeof tried - len,
						"%s%s", len ? ", " : "",
						names[i]);
	}
	if (!nv->dl)
		return weft__cuda_fail(err, WEFT_E_UNAVAILABLE,
				       "cannot load NVRTC, the CUDA run-time "
				       "compiler (tried %s, on the loader's "
				       "path and in %s): %s; install it or add "
				       "its directory to LD_LIBRARY_PATH",
				       tried, WEFT_CUDA_LIBDIR, why);
	if (bind(nv) != 0 || nv->version(&nv->major, &nv->minor) != 0) {
		char path[sizeof nv->path];

		snprintf(path, sizeof path, "%s", nv->path);
		weft__cuda_nvrtc_close(nv);
		return weft__cuda_fail(err, WEFT_E_UNAVAILABLE,
				       "%s is not a usable NVRTC (a function "
				       "is missing or nvrtcVersion failed)",
				       path);
	}
	return WEFT_OK;
}

void weft__cuda_nvrtc_close(struct weft__cuda_nvrtc *nv)
{
	if (nv->dl)
		dlclose(nv->dl);
	memset(nv, 0, sizeof *nv);
}

/* ---- compiling ----------------------------------------------------------- */

/* NVRTC's log, saved whole to a file that the error names, and its
 * diagnostics quoted (../common/buildlog.h): the program text's #line
 * directives make them name the kernel file's lines. */
static weft_status compile_failed(const struct weft__cuda_nvrtc *nv,
				  nvrtcProgram prog, nvrtcResult r,
				  const char *prog_name, const char *where,
				  weft_error *err)
{
	size_t size = 0;
	char *log = NULL;
	weft_status st;

	if (nv->log_size(prog, &size) == NVRTC_SUCCESS && size > 1 &&
	    (log = malloc(size)) && nv->log(prog, log) == NVRTC_SUCCESS)
		log[size - 1] = '\0';
	else if (log)
		log[0] = '\0';
	/* A compilation error is the model's; anything else (an option
	 * NVRTC does not know, such as a newer architecture) is not. */
	st = weft__build_failed(
		"cuda", err,
		r == NVRTC_ERROR_COMPILATION ? WEFT_E_MODEL : WEFT_E_DEVICE,
		prog_name, log,
		"program '%s' does not compile for %s (NVRTC %d.%d, %s)",
		prog_name, where, nv->major, nv->minor, nv->error_string(r));
	free(log);
	return st;
}

static weft_status get_cubin(const struct weft__cuda_nvrtc *nv,
			     nvrtcProgram prog, const char *prog_name,
			     void **cubin, size_t *cubin_size, weft_error *err)
{
	size_t size = 0;
	void *bin;
	nvrtcResult r = nv->cubin_size(prog, &size);

	if (r != NVRTC_SUCCESS || size == 0)
		return weft__cuda_fail(err, WEFT_E_DEVICE,
				       "program '%s': NVRTC gave no CUBIN: %s",
				       prog_name, nv->error_string(r));
	bin = malloc(size);
	if (!bin)
		return weft__cuda_fail(err, WEFT_E_NOMEM,
				       "program '%s': no host memory for a "
				       "CUBIN of %zu bytes",
				       prog_name, size);
	r = nv->cubin(prog, bin);
	if (r != NVRTC_SUCCESS) {
		free(bin);
		return weft__cuda_fail(err, WEFT_E_DEVICE,
				       "program '%s': reading the CUBIN: %s",
				       prog_name, nv->error_string(r));
	}
	*cubin = bin;
	*cubin_size = size;
	return WEFT_OK;
}

weft_status weft__cuda_compile(const struct weft__cuda_nvrtc *nv,
			       const char *prog_name, const char *text,
			       int cc_major, int cc_minor, const char *where,
			       void **cubin, size_t *cubin_size,
			       weft_error *err)
{
	const char *opts[WEFT__CUDA_MAX_OPTS];
	char arch[32];
	nvrtcProgram prog = NULL;
	int n_opts = weft__cuda_options(cc_major, cc_minor, arch, opts);
	weft_status st;
	nvrtcResult r;

	*cubin = NULL;
	*cubin_size = 0;
	/* The prelude's lines are reported under this name, the model's
	 * under the program's (the #line directive). */
	r = nv->create(&prog, text, "weft-cuda-prelude", 0, NULL, NULL);
	if (r != NVRTC_SUCCESS)
		return weft__cuda_fail(err, WEFT_E_NOMEM,
				       "program '%s': nvrtcCreateProgram: %s",
				       prog_name, nv->error_string(r));
	r = nv->compile(prog, n_opts, opts);
	if (r != NVRTC_SUCCESS)
		st = compile_failed(nv, prog, r, prog_name, where, err);
	else
		st = get_cubin(nv, prog, prog_name, cubin, cubin_size, err);
	nv->destroy(&prog);
	return st;
}
