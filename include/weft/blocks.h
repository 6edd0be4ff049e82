/*
 * weft/blocks.h - the host side of weft's parallel building blocks
 * (docs/blocks.md): scratch sizes, and helpers that append a block's
 * launches to a model's launch list.
 *
 * The kernels are in weft/blocks.wk, which the model's kernel file
 * includes (`#include <weft/blocks.wk>`); weft-wk numbers them in file
 * order with the model's own, the first being weft_blocks
 * (NAME_K_WEFT_BLOCKS in the model's NAME_kernels.h). Each helper takes
 * that index as `first`, writes the block's launches to l[0], l[1], ...
 * and returns how many it wrote (at most WEFT_BLOCKS_MAX_LAUNCHES):
 *
 *     n += weft_blocks_scan_u32(l + n, SIR_K_WEFT_BLOCKS, s->x, s->y,
 *                               s->count, 0, s->scratch, cap, 0);
 *
 * Every block reads its element count on the device from word
 * `count_index` of the buffer `count` when its launches run (clamped to
 * `capacity`, the most elements its buffers hold), so an earlier launch
 * of the same step may compute it. Results are the same bits on every
 * backend and thread count. Header-only, static inline: nothing to link.
 */
#ifndef WEFT_BLOCKS_H
#define WEFT_BLOCKS_H

#include <stddef.h>
#include <stdint.h>
#include <weft/program.h>

#ifdef __cplusplus
extern "C" {
#endif

/* As in weft/blocks.wk. */
#define WEFT_BLOCKS_TILE  4096u /* elements one work item handles */
#define WEFT_BLOCKS_HDR	  16u	/* header words at the start of scratch */
#define WEFT_BLOCKS_RADIX 256u	/* digits of one sort pass (8 bits) */

#define WEFT_BLOCKS_OP_SUM	0u
#define WEFT_BLOCKS_OP_MIN	1u
#define WEFT_BLOCKS_OP_MAX	2u
#define WEFT_BLOCKS_F_INCLUSIVE 0x10u
#define WEFT_BLOCKS_F_INDEX	0x20u

/* The kernels of weft/blocks.wk, in file order, counted from
 * NAME_K_WEFT_BLOCKS. */
enum weft_blocks_kernel {
	WEFT_BLOCKS_K_BEGIN, /* weft_blocks */
	WEFT_BLOCKS_K_N,
	WEFT_BLOCKS_K_SORT_NEXT,
	WEFT_BLOCKS_K_TILES_U32,
	WEFT_BLOCKS_K_TILES_U64,
	WEFT_BLOCKS_K_TILES_L1,
	WEFT_BLOCKS_K_TOP_SCAN,
	WEFT_BLOCKS_K_TOP_U32,
	WEFT_BLOCKS_K_TOP_U64,
	WEFT_BLOCKS_K_DOWN_L1,
	WEFT_BLOCKS_K_DOWN_U32,
	WEFT_BLOCKS_K_DOWN_U64,
	WEFT_BLOCKS_K_TILES_F32,
	WEFT_BLOCKS_K_TILES_L1_F32,
	WEFT_BLOCKS_K_TOP_F32,
	WEFT_BLOCKS_K_TILES_F64,
	WEFT_BLOCKS_K_TILES_L1_F64,
	WEFT_BLOCKS_K_TOP_F64,
	WEFT_BLOCKS_K_DIGITS_U32,
	WEFT_BLOCKS_K_DIGITS_U64,
	WEFT_BLOCKS_K_SORT_COLUMNS,
	WEFT_BLOCKS_K_SORT_BASES,
	WEFT_BLOCKS_K_SCATTER_U32,
	WEFT_BLOCKS_K_SCATTER_U64,
	WEFT_BLOCKS_K_FLAGS,
	WEFT_BLOCKS_K_COMPACT,
	WEFT_BLOCKS_K_TOTAL,
	WEFT_BLOCKS_K_HIST_CLEAR,
	WEFT_BLOCKS_K_HIST,
	WEFT_BLOCKS_K_SCAN1_U32,
	WEFT_BLOCKS_K_SCAN1_U64,
	WEFT_BLOCKS_K_LEVELS1,
	WEFT_BLOCKS_N_KERNELS
};

/* Launches each block appends, at most. */
#define WEFT_BLOCKS_SCAN_LAUNCHES      7u
#define WEFT_BLOCKS_REDUCE_LAUNCHES    5u
#define WEFT_BLOCKS_COMPACT_LAUNCHES   8u
#define WEFT_BLOCKS_HISTOGRAM_LAUNCHES 4u
#define WEFT_BLOCKS_SORT_U32_LAUNCHES  (2u + 4u * 5u)
#define WEFT_BLOCKS_SORT_U64_LAUNCHES  (2u + 8u * 5u)
#define WEFT_BLOCKS_MAX_LAUNCHES       WEFT_BLOCKS_SORT_U64_LAUNCHES

/* ---- scratch sizes ---------------------------------------------------- */

/* Tiles of WEFT_BLOCKS_TILE elements over len. */
static inline uint32_t weft_blocks_tiles(uint64_t len)
{
	return (uint32_t)((len + WEFT_BLOCKS_TILE - 1) / WEFT_BLOCKS_TILE);
}

/* Header, then level 1 and level 2 partials (8 bytes each) for an array
 * of len elements placed at word `at`. */
static inline size_t weft_blocks__levels(uint64_t len, uint64_t at)
{
	uint64_t t1 = weft_blocks_tiles(len);

	return (size_t)(4 * (at + (at & 1)) + 8 * (t1 + weft_blocks_tiles(t1)));
}

/* Bytes of scratch for a scan, reduction, compaction or histogram of up
 * to capacity elements. */
static inline size_t weft_blocks_scratch_bytes(uint32_t capacity)
{
	return weft_blocks__levels(capacity, WEFT_BLOCKS_HDR);
}

/* Bytes of scratch for a sort of up to capacity keys: the header, a row
 * of RADIX digit counts per tile, the digits' totals. */
static inline size_t weft_blocks_sort_scratch_bytes(uint32_t capacity)
{
	return 4 * ((size_t)WEFT_BLOCKS_HDR +
		    (size_t)WEFT_BLOCKS_RADIX * weft_blocks_tiles(capacity) +
		    WEFT_BLOCKS_RADIX);
}

/* ---- launches ----------------------------------------------------------- */

/* A launch of kernel over extent items with n_bufs of b0..b4 (weft/space.h
 * builds its launches with it too). */
static inline weft_launch weft_blocks__launch(uint32_t kernel, uint32_t extent,
					      uint32_t n_bufs, weft_buf *b0,
					      weft_buf *b1, weft_buf *b2,
					      weft_buf *b3, weft_buf *b4)
{
	weft_launch l = { .kernel = kernel,
			  .n_bufs = n_bufs,
			  .bufs = { b0, b1, b2, b3, b4 },
			  .extent = extent };

	return l;
}

#define WEFT_BLOCKS__L(k, extent, nb, ...)                             \
	weft_blocks__launch(first + WEFT_BLOCKS_K_##k, (extent), (nb), \
			    __VA_ARGS__)

/* Every block starts so: a fresh header holding `flags` (passed as the
 * extent of a launch whose item 0 reads it), then the live count read on
 * the device from count[count_index], clamped to the capacity. */
static inline uint32_t weft_blocks__start(weft_launch *l, uint32_t first,
					  uint32_t flags, weft_buf *count,
					  uint32_t count_index,
					  weft_buf *scratch, uint32_t capacity)
{
	l[0] = WEFT_BLOCKS__L(BEGIN, flags + 1, 1, scratch, NULL, NULL, NULL,
			      NULL);
	l[1] = WEFT_BLOCKS__L(N, capacity, 1, scratch, NULL, NULL, NULL, NULL);
	l[1].extent_buf = count;
	l[1].extent_offset = 4 * count_index;
	return 2;
}

/* The scan of the partials of an array of up to len elements: level 2
 * from level 1, level 2 scanned, level 1 made offsets (3 launches after
 * the level 1 partials are in place); when level 1 fits one tile (len up
 * to 2^24 elements), level 1 scanned by one launch. */
static inline uint32_t weft_blocks__levels_scan(weft_launch *l, uint32_t first,
						weft_buf *scratch, uint64_t len)
{
	uint32_t t2 = weft_blocks_tiles(weft_blocks_tiles(len));

	if (t2 <= 1) {
		l[0] = WEFT_BLOCKS__L(LEVELS1, 1, 1, scratch, NULL, NULL, NULL,
				      NULL);
		return 1;
	}
	l[0] = WEFT_BLOCKS__L(TILES_L1, t2, 1, scratch, NULL, NULL, NULL, NULL);
	l[1] = WEFT_BLOCKS__L(TOP_SCAN, 1, 1, scratch, NULL, NULL, NULL, NULL);
	l[2] = WEFT_BLOCKS__L(DOWN_L1, t2, 1, scratch, NULL, NULL, NULL, NULL);
	return 3;
}

/* ---- scans ------------------------------------------------------------- */

/* A scan of u32 (wide = 0) or u64 (wide = 1) elements: each tile's sum,
 * the partials scanned, each tile scanned from its offset into out; when
 * the capacity fits one tile, that tile scanned in one pass by one launch
 * (3 launches in all). */
static inline uint32_t weft_blocks__scan(weft_launch *l, uint32_t first,
					 int wide, weft_buf *in, weft_buf *out,
					 weft_buf *count, uint32_t count_index,
					 weft_buf *scratch, uint32_t capacity,
					 int inclusive)
{
	uint32_t n, t1 = weft_blocks_tiles(capacity);

	n = weft_blocks__start(l, first,
			       inclusive ? WEFT_BLOCKS_F_INCLUSIVE : 0u, count,
			       count_index, scratch, capacity);
	if (capacity <= WEFT_BLOCKS_TILE) {
		l[n++] = weft_blocks__launch(
			first + (wide ? WEFT_BLOCKS_K_SCAN1_U64
				      : WEFT_BLOCKS_K_SCAN1_U32),
			1, 3, scratch, in, out, NULL, NULL);
		return n;
	}
	l[n++] = weft_blocks__launch(first + (wide ? WEFT_BLOCKS_K_TILES_U64
						   : WEFT_BLOCKS_K_TILES_U32),
				     t1, 2, scratch, in, NULL, NULL, NULL);
	n += weft_blocks__levels_scan(l + n, first, scratch, capacity);
	l[n++] = weft_blocks__launch(first + (wide ? WEFT_BLOCKS_K_DOWN_U64
						   : WEFT_BLOCKS_K_DOWN_U32),
				     t1, 3, scratch, in, out, NULL, NULL);
	return n;
}

/* out[i] = in[0] + ... + in[i - 1] (exclusive), or + in[i] (inclusive),
 * modulo 2^32, for i below the count. in and out may be the same buffer.
 * Scratch: weft_blocks_scratch_bytes(capacity). */
static inline uint32_t
weft_blocks_scan_u32(weft_launch *l, uint32_t first, weft_buf *in,
		     weft_buf *out, weft_buf *count, uint32_t count_index,
		     weft_buf *scratch, uint32_t capacity, int inclusive)
{
	return weft_blocks__scan(l, first, 0, in, out, count, count_index,
				 scratch, capacity, inclusive);
}

/* The same on u64 elements, modulo 2^64. */
static inline uint32_t
weft_blocks_scan_u64(weft_launch *l, uint32_t first, weft_buf *in,
		     weft_buf *out, weft_buf *count, uint32_t count_index,
		     weft_buf *scratch, uint32_t capacity, int inclusive)
{
	return weft_blocks__scan(l, first, 1, in, out, count, count_index,
				 scratch, capacity, inclusive);
}

/* ---- reductions ---------------------------------------------------------- */

/* A reduction: level 1 by `tiles`, level 2 by `tiles_l1`, and `top` writes
 * result[result_index]. */
static inline uint32_t
weft_blocks__reduce(weft_launch *l, uint32_t first, uint32_t op, uint32_t tiles,
		    uint32_t tiles_l1, uint32_t top, weft_buf *in,
		    weft_buf *count, uint32_t count_index, weft_buf *scratch,
		    uint32_t capacity, weft_buf *result, uint32_t result_index)
{
	uint32_t n, t1 = weft_blocks_tiles(capacity);

	n = weft_blocks__start(l, first, op, count, count_index, scratch,
			       capacity);
	l[n++] = weft_blocks__launch(first + tiles, t1, 2, scratch, in, NULL,
				     NULL, NULL);
	l[n++] = weft_blocks__launch(first + tiles_l1, weft_blocks_tiles(t1), 1,
				     scratch, NULL, NULL, NULL, NULL);
	l[n++] = weft_blocks__launch(first + top, result_index + 1, 2, scratch,
				     result, NULL, NULL, NULL);
	return n;
}

/* result[result_index] (u64) = the sum of the u32 elements, exact below
 * 2^64. */
static inline uint32_t
weft_blocks_sum_u32(weft_launch *l, uint32_t first, weft_buf *in,
		    weft_buf *count, uint32_t count_index, weft_buf *scratch,
		    uint32_t capacity, weft_buf *result, uint32_t result_index)
{
	return weft_blocks__reduce(
		l, first, WEFT_BLOCKS_OP_SUM, WEFT_BLOCKS_K_TILES_U32,
		WEFT_BLOCKS_K_TILES_L1, WEFT_BLOCKS_K_TOP_U64, in, count,
		count_index, scratch, capacity, result, result_index);
}

/* result[result_index] (u32) = the least (op WEFT_BLOCKS_OP_MIN; 2^32 - 1
 * for no elements) or the greatest (WEFT_BLOCKS_OP_MAX; 0) u32 element. */
static inline uint32_t
weft_blocks_minmax_u32(weft_launch *l, uint32_t first, uint32_t op,
		       weft_buf *in, weft_buf *count, uint32_t count_index,
		       weft_buf *scratch, uint32_t capacity, weft_buf *result,
		       uint32_t result_index)
{
	return weft_blocks__reduce(
		l, first, op, WEFT_BLOCKS_K_TILES_U32, WEFT_BLOCKS_K_TILES_L1,
		WEFT_BLOCKS_K_TOP_U32, in, count, count_index, scratch,
		capacity, result, result_index);
}

/* result[result_index] (u64) = the sum modulo 2^64 (WEFT_BLOCKS_OP_SUM),
 * least (MIN) or greatest (MAX) of the u64 elements. */
static inline uint32_t
weft_blocks_reduce_u64(weft_launch *l, uint32_t first, uint32_t op,
		       weft_buf *in, weft_buf *count, uint32_t count_index,
		       weft_buf *scratch, uint32_t capacity, weft_buf *result,
		       uint32_t result_index)
{
	return weft_blocks__reduce(
		l, first, op, WEFT_BLOCKS_K_TILES_U64, WEFT_BLOCKS_K_TILES_L1,
		WEFT_BLOCKS_K_TOP_U64, in, count, count_index, scratch,
		capacity, result, result_index);
}

/* result[result_index] (f32) = the sum of the f32 elements in the fixed
 * order of docs/blocks.md (each tile in index order, then the tiles'
 * sums in order, at two levels), each addition rounded to nearest. */
static inline uint32_t
weft_blocks_sum_f32(weft_launch *l, uint32_t first, weft_buf *in,
		    weft_buf *count, uint32_t count_index, weft_buf *scratch,
		    uint32_t capacity, weft_buf *result, uint32_t result_index)
{
	return weft_blocks__reduce(
		l, first, WEFT_BLOCKS_OP_SUM, WEFT_BLOCKS_K_TILES_F32,
		WEFT_BLOCKS_K_TILES_L1_F32, WEFT_BLOCKS_K_TOP_F32, in, count,
		count_index, scratch, capacity, result, result_index);
}

/* The same for f64 elements and an f64 result. */
static inline uint32_t
weft_blocks_sum_f64(weft_launch *l, uint32_t first, weft_buf *in,
		    weft_buf *count, uint32_t count_index, weft_buf *scratch,
		    uint32_t capacity, weft_buf *result, uint32_t result_index)
{
	return weft_blocks__reduce(
		l, first, WEFT_BLOCKS_OP_SUM, WEFT_BLOCKS_K_TILES_F64,
		WEFT_BLOCKS_K_TILES_L1_F64, WEFT_BLOCKS_K_TOP_F64, in, count,
		count_index, scratch, capacity, result, result_index);
}

/* ---- stable radix sort by key ------------------------------------------ */

/* One pass of 8 bits: each tile's digit counts of src, their prefix sums
 * down the tiles per digit, the digits' bases, the stable scatter to dst,
 * the next digit. */
static inline uint32_t
weft_blocks__sort_pass(weft_launch *l, uint32_t first, int wide,
		       weft_buf *src_k, weft_buf *src_v, weft_buf *dst_k,
		       weft_buf *dst_v, weft_buf *scratch, uint32_t capacity)
{
	uint32_t t1 = weft_blocks_tiles(capacity);

	l[0] = weft_blocks__launch(first + (wide ? WEFT_BLOCKS_K_DIGITS_U64
						 : WEFT_BLOCKS_K_DIGITS_U32),
				   t1, 2, scratch, src_k, NULL, NULL, NULL);
	l[1] = WEFT_BLOCKS__L(SORT_COLUMNS, WEFT_BLOCKS_RADIX, 1, scratch, NULL,
			      NULL, NULL, NULL);
	l[2] = WEFT_BLOCKS__L(SORT_BASES, 1, 1, scratch, NULL, NULL, NULL,
			      NULL);
	l[3] = weft_blocks__launch(first + (wide ? WEFT_BLOCKS_K_SCATTER_U64
						 : WEFT_BLOCKS_K_SCATTER_U32),
				   t1, 5, scratch, src_k, src_v, dst_k, dst_v);
	l[4] = WEFT_BLOCKS__L(SORT_NEXT, 1, 1, scratch, NULL, NULL, NULL, NULL);
	return 5;
}

static inline uint32_t weft_blocks__sort(weft_launch *l, uint32_t first,
					 int wide, weft_buf *keys,
					 weft_buf *vals, weft_buf *keys_tmp,
					 weft_buf *vals_tmp, weft_buf *count,
					 uint32_t count_index,
					 weft_buf *scratch, uint32_t capacity)
{
	uint32_t n, passes = wide ? 8u : 4u;

	n = weft_blocks__start(l, first, WEFT_BLOCKS_OP_SUM, count, count_index,
			       scratch, capacity);
	for (uint32_t p = 0; p < passes; p++)
		n += p % 2 ? weft_blocks__sort_pass(l + n, first, wide,
						    keys_tmp, vals_tmp, keys,
						    vals, scratch, capacity)
			   : weft_blocks__sort_pass(l + n, first, wide, keys,
						    vals, keys_tmp, vals_tmp,
						    scratch, capacity);
	return n;
}

/* Sort (keys, vals) by key, ascending and stable (equal keys keep their
 * order), in place: u32 keys and u32 values, each pass moving them to
 * keys_tmp/vals_tmp and back (4 passes of 8 bits). Every buffer holds
 * capacity elements; scratch: weft_blocks_sort_scratch_bytes(capacity).
 * Values = 0, 1, ... give the permutation (numpy's argsort(kind="stable")). */
static inline uint32_t
weft_blocks_sort_u32(weft_launch *l, uint32_t first, weft_buf *keys,
		     weft_buf *vals, weft_buf *keys_tmp, weft_buf *vals_tmp,
		     weft_buf *count, uint32_t count_index, weft_buf *scratch,
		     uint32_t capacity)
{
	return weft_blocks__sort(l, first, 0, keys, vals, keys_tmp, vals_tmp,
				 count, count_index, scratch, capacity);
}

/* The same with u64 keys (8 passes). */
static inline uint32_t
weft_blocks_sort_u64(weft_launch *l, uint32_t first, weft_buf *keys,
		     weft_buf *vals, weft_buf *keys_tmp, weft_buf *vals_tmp,
		     weft_buf *count, uint32_t count_index, weft_buf *scratch,
		     uint32_t capacity)
{
	return weft_blocks__sort(l, first, 1, keys, vals, keys_tmp, vals_tmp,
				 count, count_index, scratch, capacity);
}

/* ---- stable compaction by flag --------------------------------------------
 */

static inline uint32_t
weft_blocks__compact(weft_launch *l, uint32_t first, uint32_t flags_word,
		     weft_buf *flags, weft_buf *in, weft_buf *out,
		     weft_buf *count, uint32_t count_index, weft_buf *scratch,
		     uint32_t capacity, weft_buf *out_count,
		     uint32_t out_count_index)
{
	uint32_t n, t1 = weft_blocks_tiles(capacity);

	n = weft_blocks__start(l, first, flags_word, count, count_index,
			       scratch, capacity);
	l[n++] = WEFT_BLOCKS__L(FLAGS, t1, 2, scratch, flags, NULL, NULL, NULL);
	n += weft_blocks__levels_scan(l + n, first, scratch, capacity);
	l[n++] = WEFT_BLOCKS__L(COMPACT, t1, 4, scratch, flags, in, out, NULL);
	l[n++] = WEFT_BLOCKS__L(TOTAL, out_count_index + 1, 2, scratch,
				out_count, NULL, NULL, NULL);
	return n;
}

/* out[0 .. k) = the u32 elements in[i] whose u8 flags[i] is not 0, in
 * order; out_count[out_count_index] = k, a word later launches of the step
 * can use as their extent_buf. out holds capacity elements and must not
 * be in. Scratch: weft_blocks_scratch_bytes(capacity). */
static inline uint32_t weft_blocks_compact_u32(
	weft_launch *l, uint32_t first, weft_buf *flags, weft_buf *in,
	weft_buf *out, weft_buf *count, uint32_t count_index, weft_buf *scratch,
	uint32_t capacity, weft_buf *out_count, uint32_t out_count_index)
{
	return weft_blocks__compact(l, first, 0u, flags, in, out, count,
				    count_index, scratch, capacity, out_count,
				    out_count_index);
}

/* The same, writing the indexes i of the flagged elements: the list of
 * the elements a later launch should visit. */
static inline uint32_t
weft_blocks_compact_index(weft_launch *l, uint32_t first, weft_buf *flags,
			  weft_buf *out, weft_buf *count, uint32_t count_index,
			  weft_buf *scratch, uint32_t capacity,
			  weft_buf *out_count, uint32_t out_count_index)
{
	return weft_blocks__compact(l, first, WEFT_BLOCKS_F_INDEX, flags, flags,
				    out, count, count_index, scratch, capacity,
				    out_count, out_count_index);
}

/* ---- histogram ------------------------------------------------------------
 */

/* bins[b] = the number of u32 elements equal to b, for b < n_bins (bins
 * holds n_bins u32 words; elements >= n_bins are not counted). Scratch:
 * weft_blocks_scratch_bytes(capacity). */
static inline uint32_t weft_blocks_histogram(weft_launch *l, uint32_t first,
					     weft_buf *in, weft_buf *bins,
					     uint32_t n_bins, weft_buf *count,
					     uint32_t count_index,
					     weft_buf *scratch,
					     uint32_t capacity)
{
	uint32_t n;

	n = weft_blocks__start(l, first, 0u, count, count_index, scratch,
			       capacity);
	l[n++] = WEFT_BLOCKS__L(HIST_CLEAR, n_bins, 2, scratch, bins, NULL,
				NULL, NULL);
	l[n++] = WEFT_BLOCKS__L(HIST, weft_blocks_tiles(capacity), 3, scratch,
				in, bins, NULL, NULL);
	return n;
}

#undef WEFT_BLOCKS__L

#ifdef __cplusplus
}
#endif

#endif /* WEFT_BLOCKS_H */
