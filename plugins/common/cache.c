/*
 * plugins/common/cache.c - compiled programs on disk (cache.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <weft/backend.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "cache.h"

#define MAGIC  "WEFTKC01"
#define FORMAT 1u
/* Larger entries are not believed. */
#define MAX_PAYLOAD ((uint64_t)1 << 30)

struct header {
	char magic[8];
	uint32_t format;
	uint32_t reserved;
	uint64_t size; /* bytes of payload after the header */
	uint64_t sum;  /* XXH3_64bits of them */
	uint8_t key[16];
};

/* ---- keys ---------------------------------------------------------------- */

struct weft__cache_hash {
	XXH3_state_t s;
};

weft__cache_hash *weft__cache_hash_begin(const char *backend)
{
	/* The state is 64-byte aligned, which malloc() does not promise. */
	weft__cache_hash *h =
		aligned_alloc(_Alignof(weft__cache_hash), sizeof *h);

	if (!h)
		return NULL;
	XXH3_INITSTATE(&h->s);
	(void)XXH3_128bits_reset(&h->s);
	weft__cache_hash_str(h, "weft cache");
	weft__cache_hash_str(h, backend);
	weft__cache_hash_int(h, WEFT_BACKEND_ABI_MAJOR);
	weft__cache_hash_int(h, WEFT_BACKEND_ABI_MINOR);
	weft__cache_hash_str(h, PACKAGE_VERSION);
	return h;
}

void weft__cache_hash_bytes(weft__cache_hash *h, const void *p, size_t n)
{
	uint64_t n64 = n;

	if (!h)
		return;
	(void)XXH3_128bits_update(&h->s, &n64, sizeof n64);
	(void)XXH3_128bits_update(&h->s, p, n);
}

void weft__cache_hash_str(weft__cache_hash *h, const char *s)
{
	weft__cache_hash_bytes(h, s, strlen(s));
}

void weft__cache_hash_int(weft__cache_hash *h, int64_t v)
{
	weft__cache_hash_bytes(h, &v, sizeof v);
}

int weft__cache_hash_end(weft__cache_hash *h, weft__cache_key *key)
{
	XXH128_canonical_t canon;

	if (!h)
		return -1;
	XXH128_canonicalFromHash(&canon, XXH3_128bits_digest(&h->s));
	memcpy(key->b, canon.digest, sizeof key->b);
	free(h);
	return 0;
}

/* ---- entries ------------------------------------------------------------- */

/* DIR/BACKEND-KEY.EXT; -1 when it does not fit. */
static int entry_path(const char *dir, const char *backend, const char *ext,
		      const weft__cache_key *key, char *out, size_t size)
{
	char hex[2 * sizeof key->b + 1];
	int n;

	for (size_t i = 0; i < sizeof key->b; i++)
		snprintf(hex + 2 * i, 3, "%02x", key->b[i]);
	n = snprintf(out, size, "%s/%s-%s%s", dir, backend, hex, ext);
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
static void *read_entry(int fd, const weft__cache_key *key, size_t *size)
{
	struct header h;
	struct stat sb;
	void *data;

	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    sb.st_size < (off_t)sizeof h || read_all(fd, &h, sizeof h) != 0)
		return NULL;
	if (memcmp(h.magic, MAGIC, sizeof h.magic) != 0 || h.format != FORMAT ||
	    memcmp(h.key, key->b, sizeof h.key) != 0 || h.size == 0 ||
	    h.size > MAX_PAYLOAD || (uint64_t)sb.st_size - sizeof h != h.size)
		return NULL;
	data = malloc((size_t)h.size);
	if (!data)
		return NULL;
	if (read_all(fd, data, (size_t)h.size) != 0 ||
	    XXH3_64bits(data, (size_t)h.size) != h.sum) {
		free(data);
		return NULL;
	}
	*size = (size_t)h.size;
	return data;
}

void *weft__cache_load(const char *dir, const char *backend, const char *ext,
		       const weft__cache_key *key, size_t *size)
{
	char path[4096];
	void *data;
	int fd;

	*size = 0;
	if (!dir || entry_path(dir, backend, ext, key, path, sizeof path) != 0)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	data = read_entry(fd, key, size);
	close(fd);
	return data;
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

static int write_entry(int fd, const weft__cache_key *key, const void *data,
		       size_t size)
{
	struct header h;

	memset(&h, 0, sizeof h);
	memcpy(h.magic, MAGIC, sizeof h.magic);
	h.format = FORMAT;
	h.size = size;
	h.sum = XXH3_64bits(data, size);
	memcpy(h.key, key->b, sizeof h.key);
	return write_all(fd, &h, sizeof h) || write_all(fd, data, size);
}

int weft__cache_store(const char *dir, const char *backend, const char *ext,
		      const weft__cache_key *key, const void *data, size_t size)
{
	char path[4096], tmp[4096];
	int fd, n, bad;

	if (!dir || size == 0 || size > MAX_PAYLOAD ||
	    entry_path(dir, backend, ext, key, path, sizeof path) != 0 ||
	    make_dirs(dir) != 0)
		return -1;
	n = snprintf(tmp, sizeof tmp, "%s/.%s-XXXXXX", dir, backend);
	if (n < 0 || (size_t)n >= sizeof tmp)
		return -1;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -1;
	bad = write_entry(fd, key, data, size);
	bad |= close(fd);
	if (bad || rename(tmp, path) != 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}
