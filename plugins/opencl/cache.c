/*
 * plugins/opencl/cache.c - compiled programs on disk, so that a run does
 * not wait for the OpenCL compiler when nothing changed.
 *
 * The entries, their format, and how they are read and written are
 * plugins/common/cache.h: CACHE_DIR/opencl-KEY.bin holds the binary that
 * clGetProgramInfo(CL_PROGRAM_BINARIES) gave. What is this backend's own
 * is what goes into the key and how a binary becomes a program. The key
 * adds to the backend's name, ABI and version everything that can change
 * the binary: the program text (prelude, #line, the model's source), the
 * build options, the device name and version, the driver version, and
 * the platform name and version. An entry the driver refuses
 * (clCreateProgramWithBinary or clBuildProgram fails) is treated as
 * missing: the program is compiled and the entry written again. No cache
 * failure ever fails a load.
 */
#include "config.h"

#include <stdlib.h>

#include "priv.h"

/* Entries are CACHE_DIR/opencl-KEY.bin. */
#define ENTRY_EXT ".bin"

int weft__ocl_cache_key(const weft_device *dev, const char *const *texts,
			const size_t *lens, unsigned n_texts,
			weft__cache_key *key)
{
	const struct weft__ocl_names *nm = &dev->names;
	weft__cache_hash *h = weft__cache_hash_begin("opencl");

	for (unsigned i = 0; i < n_texts; i++)
		weft__cache_hash_bytes(h, texts[i], lens[i]);
	weft__cache_hash_str(h, dev->build_options);
	weft__cache_hash_str(h, nm->device);
	weft__cache_hash_str(h, nm->device_version);
	weft__cache_hash_str(h, nm->driver_version);
	weft__cache_hash_str(h, nm->platform);
	weft__cache_hash_str(h, nm->platform_version);
	return weft__cache_hash_end(h, key);
}

cl_program weft__ocl_cache_load(weft_device *dev, const weft__cache_key *key)
{
	size_t len = 0;
	unsigned char *bin = weft__cache_load(dev->cache_dir, "opencl",
					      ENTRY_EXT, key, &len);
	const unsigned char *cbin = bin;
	cl_program prog = NULL;
	cl_int rc, bin_rc;

	if (!bin)
		return NULL;
	prog = clCreateProgramWithBinary(dev->ctx, 1, &dev->id, &len, &cbin,
					 &bin_rc, &rc);
	free(bin);
	if (!prog)
		return NULL;
	if (bin_rc != CL_SUCCESS ||
	    clBuildProgram(prog, 1, &dev->id, dev->build_options, NULL, NULL) !=
		    CL_SUCCESS) {
		clReleaseProgram(prog);
		return NULL;
	}
	return prog;
}

/* The program's binary for the device (malloc'ed), or NULL. */
static unsigned char *program_binary(cl_program prog, size_t *len)
{
	unsigned char *bin;
	size_t size = 0;

	if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size,
			     NULL) != CL_SUCCESS ||
	    size == 0)
		return NULL;
	bin = malloc(size);
	if (!bin)
		return NULL;
	if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin,
			     NULL) != CL_SUCCESS) {
		free(bin);
		return NULL;
	}
	*len = size;
	return bin;
}

void weft__ocl_cache_store(weft_device *dev, const weft__cache_key *key,
			   cl_program prog)
{
	size_t len = 0;
	unsigned char *bin = program_binary(prog, &len);

	if (bin)
		(void)weft__cache_store(dev->cache_dir, "opencl", ENTRY_EXT,
					key, bin, len);
	free(bin);
}
