/*
 * plugins/opencl/cache.c - compiled programs on disk, so that a run does
 * not wait for the OpenCL compiler when nothing changed.
 *
 * The key is XXH3-128 (Debian's libxxhash) of everything that can change
 * the binary: the program text (prelude, #line, the model's source), the
 * build options, the device name and version, the driver version, the
 * platform name and version, and the plugin's ABI and version. An entry
 * is the file CACHE_DIR/opencl-KEY.bin:
 *
 *   "WEFTOCL1"  8 bytes
 *   key        16 bytes
 *   size        8 bytes   bytes of the binary that follow
 *   check       8 bytes   XXH3-64 of the binary
 *   binary      size bytes, as clGetProgramInfo(CL_PROGRAM_BINARIES) gave it
 *
 * Loading checks all of it; an entry that is short, corrupt, for another
 * key, or that the driver refuses is treated as missing: the program is
 * compiled and the entry written again. An entry is written to a unique
 * temporary file in the same directory (mkstemp) and renamed into place,
 * so a parallel run sees the whole entry or none; the last writer wins,
 * with the same content. No fsync: a torn entry after a crash fails the
 * checks and is rebuilt. The directory is created (mode 0700) when
 * missing. No cache failure ever fails a load.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "priv.h"

#define MAGIC	   "WEFTOCL1"
#define HEADER	   (8 + 16 + 8 + 8)
#define MAX_BINARY ((uint64_t)1 << 30)

/* Feed one field: its length, then its bytes, so that fields cannot run
 * into each other. */
static void feed(XXH3_state_t *s, const void *p, size_t n)
{
	uint64_t len = n;

	XXH3_128bits_update(s, &len, sizeof len);
	XXH3_128bits_update(s, p, n);
}

static void feed_str(XXH3_state_t *s, const char *text)
{
	feed(s, text, strlen(text));
}

int weft__ocl_cache_key(const weft_device *dev, const char *const *texts,
			const size_t *lens, unsigned n_texts,
			weft__ocl_key *key)
{
	const struct weft__ocl_names *nm = &dev->names;
	XXH3_state_t *s = XXH3_createState();
	XXH128_canonical_t c;
	char abi[64];

	if (!s || XXH3_128bits_reset(s) != XXH_OK) {
		XXH3_freeState(s);
		return -1;
	}
	snprintf(abi, sizeof abi, "weft-opencl %s ABI %d.%d", PACKAGE_VERSION,
		 WEFT_BACKEND_ABI_MAJOR, WEFT_BACKEND_ABI_MINOR);
	feed_str(s, abi);
	for (unsigned i = 0; i < n_texts; i++)
		feed(s, texts[i], lens[i]);
	feed_str(s, weft__ocl_build_options);
	feed_str(s, nm->device);
	feed_str(s, nm->device_version);
	feed_str(s, nm->driver_version);
	feed_str(s, nm->platform);
	feed_str(s, nm->platform_version);
	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(s));
	XXH3_freeState(s);
	memcpy(key->b, c.digest, sizeof key->b);
	return 0;
}

/* DIR/PREFIXopencl-KEY.bin[SUFFIX]; 0 when it fits. */
static int entry_path(const weft_device *dev, const weft__ocl_key *key,
		      const char *prefix, const char *suffix, char *out,
		      size_t size)
{
	char hex[33];
	int n;

	for (int i = 0; i < 16; i++)
		snprintf(hex + 2 * i, 3, "%02x", key->b[i]);
	n = snprintf(out, size, "%s/%sopencl-%s.bin%s", dev->cache_dir, prefix,
		     hex, suffix);
	return n > 0 && (size_t)n < size ? 0 : -1;
}

/* ---- loading ----------------------------------------------------------- */

/* The whole file, when it is no larger than an entry can be. */
static unsigned char *read_entry(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	unsigned char *data = NULL;
	struct stat sb;
	size_t got = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    sb.st_size < HEADER || (uint64_t)sb.st_size > MAX_BINARY + HEADER)
		goto close_fd;
	data = malloc((size_t)sb.st_size);
	while (data && got < (size_t)sb.st_size) {
		ssize_t n = read(fd, data + got, (size_t)sb.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) { /* an error, or shorter than it said */
			free(data);
			data = NULL;
			break;
		}
		got += (size_t)n;
	}
	*len = got;
close_fd:
	close(fd);
	return data;
}

/* The binary inside an entry, after checking everything around it. */
static const unsigned char *entry_binary(const unsigned char *data, size_t len,
					 const weft__ocl_key *key,
					 size_t *bin_len)
{
	uint64_t size, check;

	if (len < HEADER || memcmp(data, MAGIC, 8) != 0 ||
	    memcmp(data + 8, key->b, 16) != 0)
		return NULL;
	memcpy(&size, data + 24, 8);
	memcpy(&check, data + 32, 8);
	if (size == 0 || size != len - HEADER ||
	    XXH3_64bits(data + HEADER, (size_t)size) != check)
		return NULL;
	*bin_len = (size_t)size;
	return data + HEADER;
}

cl_program weft__ocl_cache_load(weft_device *dev, const weft__ocl_key *key)
{
	const unsigned char *bin;
	unsigned char *data;
	char path[4096];
	size_t len = 0, bin_len = 0;
	cl_program prog = NULL;
	cl_int rc, bin_rc;

	if (entry_path(dev, key, "", "", path, sizeof path) != 0)
		return NULL;
	data = read_entry(path, &len);
	if (!data)
		return NULL;
	bin = entry_binary(data, len, key, &bin_len);
	if (bin)
		prog = clCreateProgramWithBinary(dev->ctx, 1, &dev->id,
						 &bin_len, &bin, &bin_rc, &rc);
	free(data);
	if (!prog)
		return NULL;
	if (bin_rc != CL_SUCCESS ||
	    clBuildProgram(prog, 1, &dev->id, weft__ocl_build_options, NULL,
			   NULL) != CL_SUCCESS) {
		clReleaseProgram(prog);
		return NULL;
	}
	return prog;
}

/* ---- storing ------------------------------------------------------------- */

/* mkdir -p, new directories with mode 0700. */
static int make_dirs(const char *dir)
{
	char path[4096];
	size_t n = strlen(dir);

	if (n == 0 || n >= sizeof path)
		return -1;
	memcpy(path, dir, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		path[i] = '\0';
		if (mkdir(path, 0700) != 0 && errno != EEXIST)
			return -1;
		path[i] = i < n ? '/' : '\0';
	}
	return 0;
}

/* The program's binary for the device (malloc'ed), or NULL. */
static unsigned char *program_binary(const weft_device *dev, cl_program prog,
				     size_t *len)
{
	unsigned char *bin;
	size_t size = 0;

	(void)dev;
	if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size,
			     NULL) != CL_SUCCESS ||
	    size == 0 || size > MAX_BINARY)
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

static int write_all(int fd, const void *p, size_t n)
{
	const unsigned char *at = p;

	while (n) {
		ssize_t w = write(fd, at, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		at += w;
		n -= (size_t)w;
	}
	return 0;
}

static int write_entry(int fd, const weft__ocl_key *key,
		       const unsigned char *bin, size_t len)
{
	unsigned char head[HEADER];
	uint64_t size = len, check = XXH3_64bits(bin, len);

	memcpy(head, MAGIC, 8);
	memcpy(head + 8, key->b, 16);
	memcpy(head + 24, &size, 8);
	memcpy(head + 32, &check, 8);
	return write_all(fd, head, sizeof head) || write_all(fd, bin, len);
}

void weft__ocl_cache_store(weft_device *dev, const weft__ocl_key *key,
			   cl_program prog)
{
	char tmp[4096], path[4096];
	unsigned char *bin;
	size_t len = 0;
	int fd, bad;

	if (entry_path(dev, key, "", "", path, sizeof path) != 0 ||
	    entry_path(dev, key, ".", ".XXXXXX", tmp, sizeof tmp) != 0 ||
	    make_dirs(dev->cache_dir) != 0)
		return;
	bin = program_binary(dev, prog, &len);
	if (!bin)
		return;
	fd = mkstemp(tmp);
	if (fd >= 0) {
		bad = write_entry(fd, key, bin, len);
		bad |= close(fd);
		if (bad || rename(tmp, path) != 0)
			unlink(tmp);
	}
	free(bin);
}
