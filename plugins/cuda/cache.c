/*
 * plugins/cuda/cache.c - compiled programs (CUBINs) on disk.
 *
 * The entries, their format, and how they are read and written are
 * plugins/common/cache.h: CACHE_DIR/cuda-KEY.cubin holds the CUBIN NVRTC
 * gave. What is this backend's own is what goes into the key: beside the
 * backend's name, ABI and version, everything the CUBIN depends on (the
 * program text, prelude included, the NVRTC options and version, the
 * device's name and compute capability, the driver version). A CUBIN the
 * driver refuses is treated as missing by the caller (launch.c), which
 * compiles and stores it again. This file makes no CUDA runtime call
 * (tests link it alone).
 */
#include "config.h"

#include "priv.h"

/* Entries are CACHE_DIR/cuda-KEY.cubin. */
#define ENTRY_EXT ".cubin"

int weft__cuda_cache_key(const weft__cuda_key_in *in, weft__cuda_key *key)
{
	weft__cache_hash *h = weft__cache_hash_begin("cuda");

	weft__cache_hash_bytes(h, in->text, in->text_len);
	weft__cache_hash_int(h, in->n_opts);
	for (int i = 0; i < in->n_opts; i++)
		weft__cache_hash_str(h, in->opts[i]);
	weft__cache_hash_int(h, in->nvrtc_major);
	weft__cache_hash_int(h, in->nvrtc_minor);
	weft__cache_hash_str(h, in->device_name);
	weft__cache_hash_int(h, in->cc_major);
	weft__cache_hash_int(h, in->cc_minor);
	weft__cache_hash_int(h, in->driver_version);
	return weft__cache_hash_end(h, key);
}

void *weft__cuda_cache_load(const char *dir, const weft__cuda_key *key,
			    size_t *size)
{
	return weft__cache_load(dir, "cuda", ENTRY_EXT, key, size);
}

int weft__cuda_cache_store(const char *dir, const weft__cuda_key *key,
			   const void *cubin, size_t size)
{
	return weft__cache_store(dir, "cuda", ENTRY_EXT, key, cubin, size);
}
