/*
 * plugins/common/pool.c - the size-class pool and the live-buffer list
 * (pool.h).
 */
#include "config.h"

#include "pool.h"
#include "stats.h"

void weft__pool_init(weft__pool *p, const weft__pool_ops *ops, void *dev,
		     weft_stats *st)
{
	*p = (weft__pool){ .ops = ops, .dev = dev, .st = st };
}

/* Index of the highest set bit; x > 0. */
static unsigned floor_log2(size_t x)
{
	return 63u - (unsigned)__builtin_clzll((unsigned long long)x);
}

unsigned weft__pool_class(size_t bytes)
{
	unsigned p;
	size_t step, q;

	if (bytes <= WEFT__POOL_SMALL_MAX)
		return bytes ? (unsigned)((bytes - 1) / WEFT__POOL_GRAIN) : 0;
	p = floor_log2(bytes - 1); /* 2^p < bytes <= 2^(p+1), p >= 12 */
	step = (size_t)1 << (p - 2);
	q = (bytes - ((size_t)1 << p) + step - 1) / step; /* 1..4 */
	return WEFT__POOL_SMALL_CLASSES + 4 * (p - 12) + (unsigned)q - 1;
}

/* The inverse of weft__pool_class(). */
size_t weft__pool_class_bytes(unsigned cls)
{
	unsigned j, p;

	if (cls < WEFT__POOL_SMALL_CLASSES)
		return (size_t)(cls + 1) * WEFT__POOL_GRAIN;
	j = cls - WEFT__POOL_SMALL_CLASSES;
	p = 12 + j / 4;
	return ((size_t)1 << p) + ((size_t)(j % 4 + 1) << (p - 2));
}

/* A pooled block of class cls that holds at least bytes (a backend may
 * have cut a block below its class's size). */
static struct weft__pool_buf *take(weft__pool *p, unsigned cls, size_t bytes)
{
	struct weft__pool_buf **at = &p->free[cls];

	for (; *at; at = &(*at)->next) {
		struct weft__pool_buf *b = *at;

		if (b->block < bytes)
			continue;
		*at = b->next;
		b->pooled = 0;
		b->next = NULL;
		return b;
	}
	return NULL;
}

static void live_push(weft__pool *p, struct weft__pool_buf *b)
{
	b->prev = NULL;
	b->next = p->live;
	if (p->live)
		p->live->prev = b;
	p->live = b;
}

static void live_unlink(weft__pool *p, struct weft__pool_buf *b)
{
	if (b->prev)
		b->prev->next = b->next;
	else
		p->live = b->next;
	if (b->next)
		b->next->prev = b->prev;
	b->prev = b->next = NULL;
}

weft_status weft__pool_alloc(weft__pool *p, size_t bytes,
			     struct weft__pool_buf **out, weft_error *err)
{
	uint64_t t0 = weft__clock_ns();
	unsigned cls = weft__pool_class(bytes);
	struct weft__pool_buf *b = take(p, cls, bytes);
	weft_status st;

	if (b) {
		p->st->pool_reuses++;
	} else {
		st = p->ops->create(p->dev, bytes, weft__pool_class_bytes(cls),
				    &b, err);
		if (st != WEFT_OK)
			return st;
		b->cls = cls;
		b->pooled = 0;
		p->st->allocs++;
	}
	b->size = bytes;
	live_push(p, b);
	p->st->bytes_in_use += bytes;
	if (p->st->bytes_in_use > p->st->bytes_peak)
		p->st->bytes_peak = p->st->bytes_in_use;
	*out = b;
	p->st->time_ns[WEFT_PHASE_ALLOC] += weft__clock_ns() - t0;
	return WEFT_OK;
}

void weft__pool_free(weft__pool *p, struct weft__pool_buf *b)
{
	uint64_t t0 = weft__clock_ns();

	if (!b || b->pooled)
		return;
	live_unlink(p, b);
	p->st->bytes_in_use -= b->size;
	p->st->frees++;
	b->pooled = 1;
	b->next = p->free[b->cls];
	p->free[b->cls] = b;
	p->st->time_ns[WEFT_PHASE_ALLOC] += weft__clock_ns() - t0;
}

int weft__pool_empty(const weft__pool *p)
{
	for (unsigned c = 0; c < WEFT__POOL_CLASSES; c++)
		if (p->free[c])
			return 0;
	return 1;
}

void weft__pool_drain(weft__pool *p)
{
	for (unsigned c = 0; c < WEFT__POOL_CLASSES; c++) {
		while (p->free[c]) {
			struct weft__pool_buf *b = p->free[c];

			p->free[c] = b->next;
			p->ops->destroy(p->dev, b);
		}
	}
}

void weft__pool_close(weft__pool *p)
{
	while (p->live)
		weft__pool_free(p, p->live);
	weft__pool_drain(p);
}
