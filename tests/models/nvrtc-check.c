/*
 * tests/models/nvrtc-check.c - a model's kernel source through NVRTC
 * (see nvrtc-check.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "priv.h"
#include "tap.h"

#include "nvrtc-check.h"

static int has(const void *bin, size_t n, const char *s)
{
	return memmem(bin, n, s, strlen(s)) != NULL;
}

static void compile_for(const struct weft__cuda_nvrtc *nv,
			const weft_program_desc *prog, const char *what,
			int major, int minor)
{
	char *text = weft__cuda_program_text(prog->name, prog->source,
					     prog->source_len, NULL);
	weft_error err = { "" };
	void *cubin = NULL;
	size_t n = 0;
	uint32_t missing = 0;

	if (!text)
		tap_bail("out of memory");
	if (!tap_ok(weft__cuda_compile(nv, prog->name, text, major, minor,
				       "device 0 (test)", &cubin, &n,
				       &err) == WEFT_OK,
		    "the %s source compiles for sm_%d%d", what, major, minor))
		tap_diag("%s", err.msg);
	for (uint32_t k = 0; k < prog->n_kernels; k++)
		if (!cubin || !has(cubin, n, prog->kernels[k].name)) {
			missing++;
			tap_diag("no kernel %s", prog->kernels[k].name);
		}
	tap_ok(missing == 0, "sm_%d%d: the CUBIN holds all %u kernels", major,
	       minor, prog->n_kernels);
	free(cubin);
	free(text);
}

int nvrtc_check_all(const weft_program_desc *const *progs,
		    const char *const *whats, int n)
{
	struct weft__cuda_nvrtc nv;
	weft_error err = { "" };

	memset(&nv, 0, sizeof nv);
	if (weft__cuda_nvrtc_open(&nv, &err) != WEFT_OK)
		tap_skip_all("NVRTC cannot be loaded here: %s", err.msg);
	tap_diag("NVRTC %d.%d from %s", nv.major, nv.minor, nv.path);
	for (int k = 0; k < n; k++) {
		compile_for(&nv, progs[k], whats[k], 9, 0);
		compile_for(&nv, progs[k], whats[k], 7, 5);
	}
	weft__cuda_nvrtc_close(&nv);
	return tap_done();
}

int nvrtc_check(const weft_program_desc *prog, const char *what)
{
	return nvrtc_check_all(&prog, &what, 1);
}
