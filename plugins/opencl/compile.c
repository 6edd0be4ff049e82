/*
 * plugins/opencl/compile.c - building a model's portable source as OpenCL
 * C at run time.
 *
 * A program is built from three strings: the prelude (prelude.c), a
 * #line directive naming the program (so that compiler messages give the
 * program's name and the lines of its own source), and the model's
 * source. The binary comes from the on-disk cache when an entry matches
 * (cache.c); otherwise the driver compiles it (clBuildProgram with
 * weft__ocl_build_options) and the binary is cached. A build that fails
 * reports the lines of the build log that say what is wrong.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Lines worth showing from a build log: from the first that says
 * "error", without the source excerpts and carets, joined by " | ". */
static void log_excerpt(const char *log, char *out, size_t size)
{
	const char *start = strstr(log, "error");
	size_t n = 0;

	out[0] = '\0';
	if (!start)
		start = log;
	while (start > log && start[-1] != '\n')
		start--;
	for (const char *line = start; *line && n + 1 < size;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		size_t lead = strspn(line, " \t^~");

		if (lead < len && strstr(line, ": ") && len) {
			n += (size_t)snprintf(out + n, size - n, "%s%.*s",
					      n ? " | " : "", (int)len, line);
			if (n >= size)
				n = size - 1;
		}
		line = end ? end + 1 : line + len;
	}
	if (!out[0])
		snprintf(out, size, "(the compiler left no log)");
}

static weft_status build_failed(weft_device *dev, cl_program p,
				const char *name, cl_int rc, weft_error *err)
{
	char excerpt[WEFT_ERROR_MAX];
	size_t len = 0;
	char *log = NULL;

	if (clGetProgramBuildInfo(p, dev->id, CL_PROGRAM_BUILD_LOG, 0, NULL,
				  &len) == CL_SUCCESS &&
	    len > 0)
		log = malloc(len + 1);
	if (log && clGetProgramBuildInfo(p, dev->id, CL_PROGRAM_BUILD_LOG, len,
					 log, NULL) == CL_SUCCESS)
		log[len] = '\0';
	else if (log)
		log[0] = '\0';
	log_excerpt(log ? log : "", excerpt, sizeof excerpt);
	free(log);
	return weft__ocl_fail(
		err,
		rc == CL_BUILD_PROGRAM_FAILURE ? WEFT_E_INVALID : WEFT_E_DEVICE,
		"program '%s' failed to build for device '%s' "
		"(clBuildProgram: %s): %s",
		name, dev->names.device, weft__ocl_err_name(rc), excerpt);
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
	rc = clBuildProgram(p, 1, &dev->id, weft__ocl_build_options, NULL,
			    NULL);
	if (rc != CL_SUCCESS) {
		weft_status st = build_failed(dev, p, name, rc, err);

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
