/*
 * plugins/common/pool.h - device allocations served from a pool of freed
 * blocks, and the device's list of live buffers: the memory bookkeeping
 * of every first-party backend, written once.
 *
 * A request is rounded up to a size class: a multiple of 64 bytes up to
 * 4 KiB, then four classes per power of two (so at most a fifth of a
 * block goes unused). A freed buffer keeps its native block and waits on
 * its class's free list; the next allocation of that class takes it back
 * without asking the device (counted in pool_reuses rather than allocs).
 * Every live buffer is on the pool's live list, so that close can free
 * them all; a buffer freed twice is ignored the second time.
 *
 * The backend owns the native memory. Its struct weft_buf holds a struct
 * weft__pool_buf named pb (anywhere in it: WEFT__POOL_BUF_OF finds the
 * struct around it), and two hooks make and release the native block:
 *
 *   create   a new buffer whose block holds at least the request: its
 *            class's size, or less where the device cannot give that
 *            much (the backend sets pb->block). It may call
 *            weft__pool_drain first, when pooled blocks are what stands
 *            in the way, and writes its own message on failure.
 *   destroy  give a pooled buffer's block back to the device and free
 *            the buffer.
 *
 * The pool keeps allocs, pool_reuses, frees, bytes_in_use (the bytes
 * callers asked for, the same on every backend, not the classes'
 * rounding), bytes_peak and the allocation phase's time in the device's
 * weft_stats. It takes no lock: a device is used from one thread at a
 * time.
 */
#ifndef WEFT_PLUGIN_POOL_H
#define WEFT_PLUGIN_POOL_H

#include <stddef.h>
#include <stdint.h>
#include <weft/backend.h>

/* The size classes: 64-byte steps up to 4 KiB, then four per power of
 * two up to 2^63. WEFT__POOL_MAX is the largest request a class holds;
 * backends refuse larger ones with their own message first. */
#define WEFT__POOL_GRAIN	 64
#define WEFT__POOL_SMALL_MAX	 4096
#define WEFT__POOL_SMALL_CLASSES (WEFT__POOL_SMALL_MAX / WEFT__POOL_GRAIN)
#define WEFT__POOL_CLASSES	 (WEFT__POOL_SMALL_CLASSES + 4 * (64 - 12))
#define WEFT__POOL_MAX		 (SIZE_MAX / 2)

/* What the pool knows of a buffer. While live it is on the live list;
 * once freed it waits on its class's free list (pooled). */
struct weft__pool_buf {
	size_t size;		     /* bytes the caller asked for */
	size_t block;		     /* bytes of the native block */
	unsigned cls;		     /* size class of the block */
	int pooled;		     /* 1 while on a free list */
	struct weft__pool_buf *prev; /* live list (unused while pooled) */
	struct weft__pool_buf *next; /* live list, or free list if pooled */
};

/* The backend's struct weft_buf (TYPE) around its member pb. */
#define WEFT__POOL_BUF_OF(TYPE, p) \
	((TYPE *)weft__pool_outer((p), offsetof(TYPE, pb)))
static inline void *weft__pool_outer(struct weft__pool_buf *pb, size_t offset)
{
	return (char *)pb - offset;
}

typedef struct weft__pool_ops {
	/* A new buffer for a request of bytes (<= WEFT__POOL_MAX), whose
	 * class's blocks have block bytes; (*out)->block set by the backend
	 * (at least bytes). The other fields are the pool's. */
	weft_status (*create)(void *dev, size_t bytes, size_t block,
			      struct weft__pool_buf **out, weft_error *err);
	/* Release a pooled buffer: its native block, then the buffer. */
	void (*destroy)(void *dev, struct weft__pool_buf *pb);
} weft__pool_ops;

typedef struct weft__pool {
	const weft__pool_ops *ops;
	void *dev;	/* handed to the hooks */
	weft_stats *st; /* the device's counters */
	struct weft__pool_buf *live;
	struct weft__pool_buf *free[WEFT__POOL_CLASSES];
} weft__pool;

/* An empty pool for the device dev, counting into st (open). */
void weft__pool_init(weft__pool *p, const weft__pool_ops *ops, void *dev,
		     weft_stats *st);

/* The size class of a request (bytes <= WEFT__POOL_MAX), and the block
 * size of a class. */
unsigned weft__pool_class(size_t bytes);
size_t weft__pool_class_bytes(unsigned cls);

/* alloc(): a pooled block of the request's class that holds it, else a
 * new one from the create hook. */
weft_status weft__pool_alloc(weft__pool *p, size_t bytes,
			     struct weft__pool_buf **out, weft_error *err);

/* free(): the buffer goes back to its class's free list; NULL or an
 * already pooled buffer is ignored (free() cannot report errors). */
void weft__pool_free(weft__pool *p, struct weft__pool_buf *pb);

/* 1 when no block is pooled. */
int weft__pool_empty(const weft__pool *p);

/* Give every pooled block back to the device (destroy hook). */
void weft__pool_drain(weft__pool *p);

/* Free every live buffer, then drain (close). */
void weft__pool_close(weft__pool *p);

#endif /* WEFT_PLUGIN_POOL_H */
