/*
 * plugins/common/cache.h - compiled programs on disk, for the backends
 * that compile kernels at run time, written once: the key's hashing, the
 * entry's file and format, creating the directory, reading an entry and
 * writing one so that readers see a whole entry or none.
 *
 * An entry is the file DIR/BACKEND-KEY.EXT (opencl-KEY.bin,
 * cuda-KEY.cubin), KEY being the XXH3-128 hash (xxHash used header-only,
 * XXH_INLINE_ALL: no run-time library) of the backend's name, the
 * backend ABI, weft's version, and whatever the backend adds: everything
 * that could change the compiled code (program text, compiler options
 * and version, device, driver). The file is a 48-byte header (magic
 * "WEFTKC01", format, payload size, XXH3-64 checksum of the payload, the
 * key) followed by the payload, the backend's compiled code, as it gave
 * it to weft__cache_store.
 *
 * An entry is written to a temporary file in the same directory
 * (.BACKEND-XXXXXX) and renamed into place; the last writer wins, with
 * the same content. No fsync: an entry torn by a crash fails the checks.
 * A missing, short, foreign or damaged entry reads as missing, and is
 * overwritten when the backend stores the program it compiled instead.
 * The directory and its parents are created with mode 0700. A cache
 * never fails a run: every failure here only means "not cached".
 *
 * Nothing here depends on a backend's API (no OpenCL or CUDA header).
 */
#ifndef WEFT_PLUGIN_CACHE_H
#define WEFT_PLUGIN_CACHE_H

#include <stddef.h>
#include <stdint.h>

typedef struct weft__cache_key {
	uint8_t b[16]; /* XXH3-128 digest, canonical (big-endian) form */
} weft__cache_key;

/* Computing a key: begin, add each input (in a fixed order, each with
 * its length, so that no two inputs hash the same bytes), end. */
typedef struct weft__cache_hash weft__cache_hash;

/* NULL when out of memory; the other calls accept it, and end() then
 * fails. */
weft__cache_hash *weft__cache_hash_begin(const char *backend);
void weft__cache_hash_bytes(weft__cache_hash *h, const void *p, size_t n);
void weft__cache_hash_str(weft__cache_hash *h, const char *s);
void weft__cache_hash_int(weft__cache_hash *h, int64_t v);
/* Frees h; 0 when *key was computed. */
int weft__cache_hash_end(weft__cache_hash *h, weft__cache_key *key);

/* The payload of DIR/BACKEND-KEY.EXT (malloc()ed, its size in *size), or
 * NULL when dir is NULL or the entry is missing or damaged. */
void *weft__cache_load(const char *dir, const char *backend, const char *ext,
		       const weft__cache_key *key, size_t *size);

/* Store a payload of size bytes (> 0) as DIR/BACKEND-KEY.EXT, creating
 * dir when missing. 0 on success, -1 otherwise (callers ignore it). */
int weft__cache_store(const char *dir, const char *backend, const char *ext,
		      const weft__cache_key *key, const void *data,
		      size_t size);

#endif /* WEFT_PLUGIN_CACHE_H */
