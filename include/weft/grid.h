/*
 * weft/grid.h - the host side of weft's grid spaces (docs/grid.md):
 * per-cell agent lists rebuilt from each agent's cell with weft/space.h's
 * bin stage. The dialect side (neighbourhoods, the choice of a
 * neighbour) is in weft/grid.wk, which the model's kernel file includes;
 * weft-wk numbers its kernel weft_grid (NAME_K_WEFT_GRID) after those of
 * weft/space.wk (NAME_K_WEFT_SPACE) and weft/blocks.wk
 * (NAME_K_WEFT_BLOCKS).
 *
 *     weft_space_bins b = { keys, starts, cursor, perm, scratch,
 *                           count, count_index, capacity, width * height };
 *     n += weft_grid_lists(l + n, M_K_WEFT_GRID, M_K_WEFT_SPACE,
 *                          M_K_WEFT_BLOCKS, s->cell, &b);
 *
 * after which a kernel finds the agents of cell c at perm[starts[c] ..
 * starts[c + 1]), in slot order. Header-only, static inline.
 */
#ifndef WEFT_GRID_H
#define WEFT_GRID_H

#include <weft/space.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WEFT_GRID_VON_NEUMANN 4u
#define WEFT_GRID_MOORE	      8u
#define WEFT_GRID_NONE	      0xFFFFFFFFu

/* The kernels of weft/grid.wk, from NAME_K_WEFT_GRID. */
enum weft_grid_kernel { WEFT_GRID_K_KEYS, WEFT_GRID_N_KERNELS };

#define WEFT_GRID_LISTS_LAUNCHES (1u + WEFT_SPACE_BIN_LAUNCHES)

/* Device bytes of the lists of `capacity` agents on `cells` cells. */
static inline uint64_t weft_grid_lists_bytes(uint32_t capacity, uint32_t cells)
{
	return 2 * (uint64_t)weft_space_keys_bytes(capacity) +
	       2 * (uint64_t)weft_space_starts_bytes(cells) +
	       weft_space_scan_scratch_bytes(cells);
}

/* The per-cell lists of the agents whose cell is cell[i] (u32, below
 * b->n_cells), for i below the count word of b: keys from the cells,
 * then the bin stage. WEFT_GRID_LISTS_LAUNCHES launches. */
static inline uint32_t weft_grid_lists(weft_launch *l, uint32_t gfirst,
				       uint32_t sfirst, uint32_t bfirst,
				       weft_buf *cell, const weft_space_bins *b)
{
	memset(l, 0, sizeof *l);
	l[0].kernel = gfirst + WEFT_GRID_K_KEYS;
	l[0].n_bufs = 2;
	l[0].bufs[0] = cell;
	l[0].bufs[1] = b->keys;
	l[0].extent = b->capacity;
	l[0].extent_buf = b->count;
	l[0].extent_offset = 4 * b->count_index;
	return 1 + weft_space_bin_keys(l + 1, sfirst, bfirst, b);
}

#ifdef __cplusplus
}
#endif

#endif /* WEFT_GRID_H */
