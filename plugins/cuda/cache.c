/*
 * plugins/cuda/cache.c - compiled programs (CUBINs) on disk.
 *
 * An entry is the file CACHE_DIR/cuda-KEY.cubin, KEY being the XXH3-128
 * hash (Debian's libxxhash, used header-only: XXH_INLINE_ALL, so the
 * plugin needs no libxxhash at run time) of everything the CUBIN depends
 * on: the program text (prelude included), the NVRTC options and
 * version, the device's name and compute capability, the driver version,
 * and the plugin's ABI and version. The file is a header (magic, format,
 * payload size, XXH3-64 checksum of the payload, the key) followed by the
 * CUBIN.
 *
 * Entries are written to a temporary file in the same directory and
 * renamed into place, so a reader sees a whole entry or none. A short,
 * foreign or damaged entry reads as missing and is overwritten by the
 * next compilation. Cache failures are never errors: the caller compiles
 * instead, and a failed store is ignored.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "priv.h"

#define MAGIC  "WEFTCUBN"
#define FORMAT 1u
/* Larger entries are not believed. */
#define MAX_CUBIN ((uint64_t)1 << 30)

struct header {
	char magic[8];
	uint32_t format;
	uint32_t reserved;
	uint64_t size; /* bytes of CUBIN after the header */
	uint64_t sum;  /* XXH3_64bits of them */
	uint8_t key[16];
};

/* Length-prefixed, so that no two inputs hash the same bytes. */
static void feed(XXH3_state_t *s, const void *p, size_t n)
{
	uint64_t n64 = n;

	(void)XXH3_128bits_update(s, &n64, sizeof n64);
	(void)XXH3_128bits_update(s, p, n);
}

static void feed_str(XXH3_state_t *s, const char *str)
{
	feed(s, str, strlen(str));
}

static void feed_int(XXH3_state_t *s, int64_t v)
{
	feed(s, &v, sizeof v);
}

void weft__cuda_cache_key(const weft__cuda_key_in *in, weft__cuda_key *key)
{
	XXH3_state_t s;
	XXH128_canonical_t canon;

	XXH3_INITSTATE(&s);
	(void)XXH3_128bits_reset(&s);
	feed_str(&s, "weft cuda cache");
	feed_int(&s, WEFT_BACKEND_ABI_MAJOR);
	feed_int(&s, WEFT_BACKEND_ABI_MINOR);
	feed_str(&s, PACKAGE_VERSION);
	feed(&s, in->text, in->text_len);
	feed_int(&s, in->n_opts);
	for (int i = 0; i < in->n_opts; i++)
		feed_str(&s, in->opts[i]);
	feed_int(&s, in->nvrtc_major);
	feed_int(&s, in->nvrtc_minor);
	feed_str(&s, in->device_name);
	feed_int(&s, in->cc_major);
	feed_int(&s, in->cc_minor);
	feed_int(&s, in->driver_version);
	XXH128_canonicalFromHash(&canon, XXH3_128bits_digest(&s));
	memcpy(key->b, canon.digest, sizeof key->b);
}

/* DIR/cuda-KEY.cubin; -1 when it does not fit. */
static int entry_path(const char *dir, const weft__cuda_key *key, char *out,
		      size_t size)
{
	char hex[2 * sizeof key->b + 1];
	int n;

	for (size_t i = 0; i < sizeof key->b; i++)
		snprintf(hex + 2 * i, 3, "%02x", key->b[i]);
	n = snprintf(out, size, "%s/cuda-%s.cubin", dir, hex);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* Read exactly n bytes; -1 on error or end of file. */
static int read_all(int fd, void *buf, size_t n)
{
	char *p = buf;

	while (n) {
		ssize_t r = read(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static int write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The payload of an open entry when its header and checksum hold. */
static void *read_entry(int fd, const weft__cuda_key *key, size_t *size)
{
	struct header h;
	struct stat sb;
	void *bin;

	if (fstat(fd, &sb) != 0 || sb.st_size < (off_t)sizeof h ||
	    read_all(fd, &h, sizeof h) != 0)
		return NULL;
	if (memcmp(h.magic, MAGIC, sizeof h.magic) != 0 || h.format != FORMAT ||
	    memcmp(h.key, key->b, sizeof h.key) != 0 || h.size == 0 ||
	    h.size > MAX_CUBIN || (uint64_t)sb.st_size - sizeof h != h.size)
		return NULL;
	bin = malloc((size_t)h.size);
	if (!bin)
		return NULL;
	if (read_all(fd, bin, (size_t)h.size) != 0 ||
	    XXH3_64bits(bin, (size_t)h.size) != h.sum) {
		free(bin);
		return NULL;
	}
	*size = (size_t)h.size;
	return bin;
}

void *weft__cuda_cache_load(const char *dir, const weft__cuda_key *key,
			    size_t *size)
{
	char path[4096];
	void *bin;
	int fd;

	*size = 0;
	if (!dir || entry_path(dir, key, path, sizeof path) != 0)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	bin = read_entry(fd, key, size);
	close(fd);
	return bin;
}

/* mkdir -p with mode 0700 for what it creates; 0 when dir is a
 * directory at the end. */
static int make_dirs(const char *dir)
{
	char path[4096];
	struct stat sb;
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
		if (i < n)
			path[i] = '/';
	}
	return stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode) ? 0 : -1;
}

int weft__cuda_cache_store(const char *dir, const weft__cuda_key *key,
			   const void *cubin, size_t size)
{
	char path[4096], tmp[4096];
	struct header h;
	int fd, n;

	if (!dir || size == 0 || size > MAX_CUBIN ||
	    entry_path(dir, key, path, sizeof path) != 0 || make_dirs(dir) != 0)
		return -1;
	n = snprintf(tmp, sizeof tmp, "%s/.cuda-XXXXXX", dir);
	if (n < 0 || (size_t)n >= sizeof tmp)
		return -1;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -1;
	memset(&h, 0, sizeof h);
	memcpy(h.magic, MAGIC, sizeof h.magic);
	h.format = FORMAT;
	h.size = size;
	h.sum = XXH3_64bits(cubin, size);
	memcpy(h.key, key->b, sizeof h.key);
	if (write_all(fd, &h, sizeof h) != 0 ||
	    write_all(fd, cubin, size) != 0) {
		close(fd);
		goto remove_tmp;
	}
	if (close(fd) != 0 || rename(tmp, path) != 0)
		goto remove_tmp;
	return 0;

remove_tmp:
	unlink(tmp);
	return -1;
}
