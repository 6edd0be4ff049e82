/*
 * weft/space.h - the host side of weft's continuous space kit
 * (docs/space.md): the parameter block, buffer sizes, and helpers that
 * append a rebuild's launches to a model's launch list.
 *
 * The kernels are in weft/space.wk, which the model's kernel file includes
 * (`#include <weft/space.wk>`, which includes weft/blocks.wk); weft-wk
 * numbers them in file order with the model's own, the first being
 * weft_space (NAME_K_WEFT_SPACE), and blocks' first weft_blocks
 * (NAME_K_WEFT_BLOCKS). The helpers take both indexes:
 *
 *     n += weft_space_rebuild(l + n, M_K_WEFT_SPACE, M_K_WEFT_BLOCKS,
 *                             s->space, s->nx, s->ny, s->nz, &s->bins,
 *                             src, dst, 4);
 *
 * Every per-agent launch reads the agent count on the device from word
 * count_index of `count` (clamped to capacity). Results are the same bits
 * on every backend and thread count. Header-only, static inline.
 */
#ifndef WEFT_SPACE_H
#define WEFT_SPACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <weft/blocks.h>
#include <weft/program.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The parameter block's words, as in weft/space.wk. */
#define WEFT_SPACE_P_DIMS      0u
#define WEFT_SPACE_P_WRAP      1u
#define WEFT_SPACE_P_N	       2u /* cells along x, y, z */
#define WEFT_SPACE_P_CELLS     5u
#define WEFT_SPACE_P_MIN       6u /* f32 bits, x y z */
#define WEFT_SPACE_P_CW	       9u /* f32 bits */
#define WEFT_SPACE_P_WIDTH     12u
#define WEFT_SPACE_P_RADIUS    15u
#define WEFT_SPACE_P_WORDS     16u
#define WEFT_SPACE_PARAM_BYTES (4u * WEFT_SPACE_P_WORDS)

/* The most cells a space may have (the scan's count word index). */
#define WEFT_SPACE_MAX_CELLS ((1u << 30) - 2u)

/* The kernels of weft/space.wk, in file order, counted from
 * NAME_K_WEFT_SPACE. */
enum weft_space_kernel {
	WEFT_SPACE_K_KEYS, /* weft_space */
	WEFT_SPACE_K_CLEAR,
	WEFT_SPACE_K_COUNT,
	WEFT_SPACE_K_SCATTER,
	WEFT_SPACE_K_CANON,
	WEFT_SPACE_K_GATHER,
	WEFT_SPACE_N_KERNELS
};

/* Launches the helpers append. */
#define WEFT_SPACE_BIN_LAUNCHES (4u + WEFT_BLOCKS_SCAN_LAUNCHES)
#define WEFT_SPACE_REBUILD_LAUNCHES(n_fields) \
	(1u + WEFT_SPACE_BIN_LAUNCHES + (n_fields))

/* A space as the model describes it. */
typedef struct weft_space_desc {
	uint32_t dims; /* 2 or 3 */
	int wrap;      /* 1: a torus; 0: walls */
	float min[3], max[3];
	float radius; /* the interaction radius: a cell is at least this wide */
} weft_space_desc;

static inline uint32_t weft_space__f32_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static inline int weft_space__finite(float f)
{
	return f == f && f - f == 0.0f;
}

/* The most cells along one axis: the cell widths' margin below grows
 * with the cell index and would make a cell more than a third wider than
 * the radius past this. */
#define WEFT_SPACE_MAX_AXIS_CELLS (1u << 20)

/* f32 rounding's margin of a cell width: delta = (n + 2) 2^-22 for n
 * cells along the axis. A cell's coordinate is floor(fl(fl(v - min) /
 * cw)): the subtraction and the division each err by at most 2^-24 of
 * their result, so two positions whose offsets D_i < D_j differ by at most
 * r (1 + 2^-23) (a computed distance below r, the minimum image's two
 * roundings included) give coordinates q_j - q_i <= r (1 + 2^-23) / cw +
 * (D_i + D_j)(2^-23 + 2^-48) / cw, with D_i + D_j < 2 n cw where a pair two
 * cells apart could lie. With cw >= r / (1 - delta) that is at most 1 -
 * delta + 2^-23 + n 2^-22 (1 + 2^-25) < 1 for n below 2^25, so such a pair
 * is never two cells apart. */
static inline double weft_space__margin(uint64_t n)
{
	return 1.0 - (double)(n + 2) * (1.0 / 4194304.0);
}

/* The smallest f32 at least v (v positive, below FLT_MAX). */
static inline float weft_space__f32_up(double v)
{
	float f = (float)v;
	uint32_t u;

	if ((double)f < v) {
		memcpy(&u, &f, 4);
		u++;
		memcpy(&f, &u, 4);
	}
	return f;
}

/* weft_space_params' message about axis `a`: a per-thread buffer. */
#if defined(__cplusplus)
#define WEFT_SPACE__TLS thread_local
#else
#define WEFT_SPACE__TLS _Thread_local
#endif
static inline const char *weft_space__axis_msg(uint32_t a, const char *what,
					       double v1, double v2)
{
	static WEFT_SPACE__TLS char msg[200];

	snprintf(msg, sizeof msg, what, "xyz"[a], v1, v2);
	return msg;
}

/* The cells along axis a of width w (> 0), and their width (*cw). */
static inline const char *weft_space__axis(const weft_space_desc *d, uint32_t a,
					   float w, uint32_t *n, float *cw)
{
	double r = d->radius, q = (double)w / r;
	uint64_t m;

	if (q > (double)WEFT_SPACE_MAX_AXIS_CELLS)
		return weft_space__axis_msg(a,
					    "too many cells along %c: a box "
					    "%.9g wide over a radius "
					    "of %.9g makes more than 1048576; "
					    "make the radius larger",
					    w, r);
	m = (uint64_t)q;
	if (!d->wrap) {
		/* walls: ceil(w / cw) cells, cw = r / margin(ceil(w / r)) */
		m += (double)m < q;
		*cw = weft_space__f32_up(r / weft_space__margin(m ? m : 1));
		q = (double)w / (double)*cw;
		m = (uint64_t)q;
		m += (double)m < q;
		*n = m ? (uint32_t)m : 1u;
		return NULL;
	}
	/* torus: floor(w / r) cells (at least 1), w / n / margin(n) wide, so
	 * at least r / margin(n), and a position in [min, max) has
	 * fl(fl(v - min) / cw) < n: it is never binned into cell 0 by
	 * rounding up to the box's width (n cw covers a little more than
	 * the box; the last cell is that much narrower) */
	while (m > 1 && (double)w / (double)m < r)
		m--;
	*n = m ? (uint32_t)m : 1u;
	*cw = weft_space__f32_up((double)w / *n / weft_space__margin(*n));
	return NULL;
}

/* The parameter block of a space: words[WEFT_SPACE_P_WORDS], to upload
 * into a buffer of WEFT_SPACE_PARAM_BYTES. Cells are a little wider than
 * the radius, by a relative margin (n + 2) 2^-22 for n cells along the
 * axis that covers f32 rounding (weft_space__margin), so that a neighbour
 * within the radius is never more than one cell away. With walls an axis
 * has ceil((max - min) / cw) cells of width cw = radius / (1 - margin) (at
 * least 1; positions outside the box go to the nearest edge cell); on a
 * torus floor((max - min) / radius) cells (at least 1) of width (max -
 * min) / n / (1 - margin): n of them cover a little more than the box, and
 * positions in [min, max) are in cells 0 .. n - 1 without wrapping. At
 * most WEFT_SPACE_MAX_AXIS_CELLS along an axis. NULL on success, else
 * what is wrong (a sentence, in a per-thread buffer where it names an
 * axis and values, valid until the thread's next call). *n_cells: the
 * cells in all. */
static inline const char *weft_space_params(const weft_space_desc *d,
					    uint32_t *words, uint32_t *n_cells)
{
	uint64_t cells = 1;
	const char *why;

	memset(words, 0, 4 * WEFT_SPACE_P_WORDS);
	if (d->dims != 2 && d->dims != 3)
		return "dims must be 2 or 3";
	if (!(d->radius > 0.0f) || !weft_space__finite(d->radius))
		return "the radius must be positive and finite";
	words[WEFT_SPACE_P_DIMS] = d->dims;
	words[WEFT_SPACE_P_WRAP] = d->wrap ? 1u : 0u;
	for (uint32_t a = 0; a < 3; a++) {
		float w = a < d->dims ? d->max[a] - d->min[a] : d->radius;
		float cw = d->radius, mn = a < d->dims ? d->min[a] : 0.0f;
		uint32_t n = 1;

		if (a < d->dims && (!(w > 0.0f) || !weft_space__finite(w) ||
				    !weft_space__finite(mn)))
			return weft_space__axis_msg(
				a,
				"the box along %c needs min < max, both "
				"finite (min %.9g, max %.9g)",
				d->min[a], d->max[a]);
		if (a < d->dims && (why = weft_space__axis(d, a, w, &n, &cw)))
			return why;
		cells *= n;
		if (cells > WEFT_SPACE_MAX_CELLS)
			return "too many cells: the radius is too small for "
			       "the box";
		words[WEFT_SPACE_P_N + a] = n;
		words[WEFT_SPACE_P_MIN + a] = weft_space__f32_bits(mn);
		words[WEFT_SPACE_P_CW + a] = weft_space__f32_bits(cw);
		words[WEFT_SPACE_P_WIDTH + a] = weft_space__f32_bits(w);
	}
	words[WEFT_SPACE_P_CELLS] = (uint32_t)cells;
	words[WEFT_SPACE_P_RADIUS] = weft_space__f32_bits(d->radius);
	*n_cells = (uint32_t)cells;
	return NULL;
}

/* The generic "bin by key" stage's buffers (every u32 words):
 *   keys     capacity words: each agent's bin, below n_cells (the input;
 *            weft_space_rebuild writes it from positions);
 *   starts   n_cells + 1 words: bin c's agents are perm[starts[c] ..
 *            starts[c + 1]) after the stage; starts[n_cells] = the count;
 *   cursor   n_cells + 1 words of scratch (per-bin fill, and the scan's
 *            element count in its last word);
 *   perm     capacity words: the agents' slots in (bin, slot) order;
 *   scratch  weft_blocks_scratch_bytes(n_cells + 1) bytes for the scan;
 *   count, count_index: the agent count, a u32 word on the device. */
typedef struct weft_space_bins {
	weft_buf *keys, *starts, *cursor, *perm, *scratch;
	weft_buf *count;
	uint32_t count_index;
	uint32_t capacity; /* agents the buffers hold */
	uint32_t n_cells;  /* bins, at most WEFT_SPACE_MAX_CELLS */
} weft_space_bins;

/* Bytes of each buffer of weft_space_bins. */
static inline size_t weft_space_keys_bytes(uint32_t capacity)
{
	return 4 * (size_t)(capacity ? capacity : 1);
}

static inline size_t weft_space_starts_bytes(uint32_t n_cells)
{
	return 4 * ((size_t)n_cells + 1);
}

static inline size_t weft_space_scan_scratch_bytes(uint32_t n_cells)
{
	return weft_blocks_scratch_bytes(n_cells + 1);
}

/* A launch over the agents: capacity items, the count read on the device. */
static inline weft_launch weft_space__per_agent(weft_launch l,
						const weft_space_bins *b)
{
	l.extent = b->capacity;
	l.extent_buf = b->count;
	l.extent_offset = 4 * b->count_index;
	return l;
}

/* The generic stage: from keys (one per agent, below n_cells), the bins'
 * counts (atomic adds), starts (weft_blocks_scan_u32 over n_cells + 1
 * entries), the agents scattered into perm through an atomic cursor per
 * bin, then each bin's entries sorted by slot (by the agent that took the
 * bin's first entry), so perm is in (bin, slot) order whatever the
 * timing. The keys are as they were after it. Appends
 * WEFT_SPACE_BIN_LAUNCHES launches; `first` is NAME_K_WEFT_SPACE,
 * `blocks_first` NAME_K_WEFT_BLOCKS. */
static inline uint32_t weft_space_bin_keys(weft_launch *l, uint32_t first,
					   uint32_t blocks_first,
					   const weft_space_bins *b)
{
	uint32_t n = 0;

	l[n++] = weft_blocks__launch(first + WEFT_SPACE_K_CLEAR, b->n_cells + 1,
				     2, b->starts, b->cursor, NULL, NULL, NULL);
	l[n++] = weft_space__per_agent(
		weft_blocks__launch(first + WEFT_SPACE_K_COUNT, 0, 2, b->keys,
				    b->starts, NULL, NULL, NULL),
		b);
	n += weft_blocks_scan_u32(l + n, blocks_first, b->starts, b->starts,
				  b->cursor, b->n_cells, b->scratch,
				  b->n_cells + 1, 0);
	l[n++] = weft_space__per_agent(
		weft_blocks__launch(first + WEFT_SPACE_K_SCATTER, 0, 4, b->keys,
				    b->starts, b->cursor, b->perm, NULL),
		b);
	l[n++] = weft_space__per_agent(
		weft_blocks__launch(first + WEFT_SPACE_K_CANON, 0, 3, b->keys,
				    b->starts, b->perm, NULL, NULL),
		b);
	return n;
}

/* dst[k] = src[perm[k]] for k below the count: one field of u32 words
 * (an f32 field's bits) into bin order. dst must not be src. 1 launch. */
static inline uint32_t weft_space_gather(weft_launch *l, uint32_t first,
					 const weft_space_bins *b,
					 weft_buf *src, weft_buf *dst)
{
	l[0] = weft_space__per_agent(
		weft_blocks__launch(first + WEFT_SPACE_K_GATHER, 0, 3, b->perm,
				    src, dst, NULL, NULL),
		b);
	return 1;
}

/* A rebuild: each agent's cell from its f32 position (x, y, z; z NULL in
 * 2-D) into b->keys, the generic stage, then every field src[f] gathered
 * into dst[f] in bin order. `params` holds the parameter block
 * (weft_space_params). Appends WEFT_SPACE_REBUILD_LAUNCHES(n_fields). */
static inline uint32_t
weft_space_rebuild(weft_launch *l, uint32_t first, uint32_t blocks_first,
		   weft_buf *params, weft_buf *x, weft_buf *y, weft_buf *z,
		   const weft_space_bins *b, weft_buf *const *src,
		   weft_buf *const *dst, uint32_t n_fields)
{
	uint32_t n = 0;

	l[n++] = weft_space__per_agent(
		weft_blocks__launch(first + WEFT_SPACE_K_KEYS, 0, 5, params, x,
				    y, z ? z : y, b->keys),
		b);
	n += weft_space_bin_keys(l + n, first, blocks_first, b);
	for (uint32_t f = 0; f < n_fields; f++)
		n += weft_space_gather(l + n, first, b, src[f], dst[f]);
	return n;
}

#ifdef __cplusplus
}
#endif

#endif /* WEFT_SPACE_H */
