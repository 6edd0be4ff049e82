/*
 * plugins/opencl/compile.c - building a model's portable source as OpenCL
 * C at run time.
 *
 * A program is built from three strings: the prelude (prelude.c), a
 * #line directive naming the program (so that compiler messages give the
 * program's name and the lines of its own source), and the model's
 * source. The binary comes from the on-disk cache when an entry matches
 * (cache.c); otherwise the driver compiles it (clBuildProgram with the
 * device's options, dev->build_options) and the binary is cached. A build
 * that fails saves its whole build log to a file and reports the file
 * and the log's diagnostics that fit in the error.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/buildlog.h"
#include "priv.h"

/* `#line 1 "NAME"`, so that compiler messages give the program's name and
 * the lines of its own source. Characters that could end the string are
 * replaced. */
static void line_directive(const char *name, char *out, size_t size)
{
	size_t n = (size_t)snprintf(out, size, "#line 1 \"");

	for (; *name && n + 4 < size; name++)
		out[n++] = (*name == '"' || *name == '\\' ||
			    (unsigned char)*name < ' ')
				   ? '_'
				   : *name;
	snprintf(out + n, size - n, "\"\n");
}

/* The build log, saved whole to a file that the error names, and its
 * diagnostics quoted (../common/buildlog.h): the program text's #line
 * directives make them name the kernel file's lines, or, where the
 * compiler ignores them (NVIDIA's "<kernel>:195:2:"), the log is
 * rewritten to say what they say. */
static weft_status build_failed(weft_device *dev, cl_program p,
				const char *name, const char *const *texts,
				const size_t *lens, unsigned n, cl_int rc,
				weft_error *err)
{
	size_t len = 0;
	char *log = NULL, *relined = NULL;
	weft_status st;

	if (clGetProgramBuildInfo(p, dev->id, CL_PROGRAM_BUILD_LOG, 0, NULL,
				  &len) == CL_SUCCESS &&
	    len > 0)
		log = malloc(len + 1);
	if (log && clGetProgramBuildInfo(p, dev->id, CL_PROGRAM_BUILD_LOG, len,
					 log, NULL) == CL_SUCCESS)
		log[len] = '\0';
	else if (log)
		log[0] = '\0';
	if (log)
		relined = weft__build_log_reline(log, texts, lens, n);
	st = weft__build_failed(
		"opencl", err,
		rc == CL_BUILD_PROGRAM_FAILURE ? WEFT_E_INVALID : WEFT_E_DEVICE,
		name, relined ? relined : log,
		"program '%s' failed to build for device '%s' "
		"(clBuildProgram: %s)",
		name, dev->names.device, weft__ocl_err_name(rc));
	free(relined);
	free(log);
	return st;
}

static weft_status compile(weft_device *dev, const char *name,
			   const char *const *texts, const size_t *lens,
			   unsigned n, cl_program *out, weft_error *err)
{
	cl_program p;
	cl_int rc;

	p = clCreateProgramWithSource(dev->ctx, n, (const char **)texts, lens,
				      &rc);
	if (!p)
		return weft__ocl_cl_fail(dev, err, "clCreateProgramWithSource",
					 rc, "program '%s'", name);
	rc = clBuildProgram(p, 1, &dev->id, dev->build_options, NULL, NULL);
	if (rc != CL_SUCCESS) {
		weft_status st =
			build_failed(dev, p, name, texts, lens, n, rc, err);

		clReleaseProgram(p);
		return st;
	}
	*out = p;
	return WEFT_OK;
}

weft_status weft__ocl_build(weft_device *dev, const weft_program_desc *desc,
			    cl_program *out, weft_error *err)
{
	char line[256];
	const char *texts[3];
	size_t lens[3];
	weft__cache_key key;
	int keyed = 0;
	weft_status st;

	line_directive(desc->name, line, sizeof line);
	texts[0] = weft__ocl_prelude, lens[0] = strlen(weft__ocl_prelude);
	texts[1] = line, lens[1] = strlen(line);
	texts[2] = desc->source;
	lens[2] = desc->source_len ? desc->source_len : strlen(desc->source);
	if (dev->cache_dir)
		keyed = weft__ocl_cache_key(dev, texts, lens, 3, &key) == 0;
	if (keyed && (*out = weft__ocl_cache_load(dev, &key))) {
		dev->st.cache_hits++;
		return WEFT_OK;
	}
	st = compile(dev, desc->name, texts, lens, 3, out, err);
	if (st != WEFT_OK)
		return st;
	dev->st.cache_misses++;
	if (keyed)
		weft__ocl_cache_store(dev, &key, *out);
	return WEFT_OK;
}
