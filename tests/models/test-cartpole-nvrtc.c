/*
 * tests/models/test-cartpole-nvrtc.c - the CartPole kernel source compiled by
 * NVRTC with the CUDA backend's prelude and options (--fmad=false), for
 * the oldest and a recent architecture: what can be checked of the model
 * on CUDA without a GPU. plugins/cuda/compile.c makes no CUDA runtime call
 * and is compiled into the test. Skipped when libnvrtc cannot be loaded.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "priv.h"
#include "tap.h"

#include "cartpole_kernels.h"

static int has(const void *bin, size_t n, const char *s)
{
	return memmem(bin, n, s, strlen(s)) != NULL;
}

static void compile_for(const struct weft__cuda_nvrtc *nv, int major, int minor)
{
	static const char *const kernels[] = {
		"cartpole_act",	  "cartpole_policy", "cartpole_pack",
		"cartpole_reset", "cartpole_reduce", "cartpole_total",
	};
	char *text =
		weft__cuda_program_text("cartpole", cartpole_program.source,
					cartpole_program.source_len, NULL);
	weft_error err = { "" };
	void *cubin = NULL;
	size_t n = 0;
	int all = 1;

	if (!text)
		tap_bail("out of memory");
	if (!tap_ok(weft__cuda_compile(nv, "cartpole", text, major, minor,
				       "device 0 (test)", &cubin, &n,
				       &err) == WEFT_OK,
		    "the CartPole source compiles for sm_%d%d", major, minor))
		tap_diag("%s", err.msg);
	for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++)
		all = all && cubin && has(cubin, n, kernels[k]);
	tap_ok(all, "sm_%d%d: the CUBIN holds the six kernels", major, minor);
	free(cubin);
	free(text);
}

int main(void)
{
	struct weft__cuda_nvrtc nv;
	weft_error err = { "" };

	memset(&nv, 0, sizeof nv);
	if (weft__cuda_nvrtc_open(&nv, &err) != WEFT_OK)
		tap_skip_all("NVRTC cannot be loaded here: %s", err.msg);
	tap_diag("NVRTC %d.%d from %s", nv.major, nv.minor, nv.path);
	compile_for(&nv, 9, 0);
	compile_for(&nv, 7, 5);
	weft__cuda_nvrtc_close(&nv);
	return tap_done();
}
