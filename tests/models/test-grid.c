/*
 * tests/models/test-grid.c - the dialect helpers of weft/grid.wk, compiled
 * for the host as a kernel's host build is: the k-th cell of von Neumann
 * and Moore neighbourhoods on tori and walled grids against offsets
 * applied by hand (one at a time, weft_grid_neighbor(), and all at once,
 * weft_grid_neighbors()), and weft_grid_pick()'s choice among the qualifying
 * neighbours (each set bit equally often, none when no bit is set).
 */
#include <stdint.h>
#include <stdio.h>

#include <weft/kernel_host.h>
/* The kit's two-argument form (weft-wk numbers the slots in a model); the
 * kernels are not run here. */
#undef WEFT_BUF
#define WEFT_BUF(T, name) T *name = (T *)weft__ka->buf[0]
#include <weft/kernel.h>

#pragma GCC diagnostic ignored "-Wunused-function"
#include <weft/grid.wk>

#include "tap.h"

static const int vn[4][2] = { { 0, -1 }, { -1, 0 }, { 1, 0 }, { 0, 1 } };
static const int mo[8][2] = { { -1, -1 }, { 0, -1 }, { 1, -1 }, { -1, 0 },
			      { 1, 0 },	  { -1, 1 }, { 0, 1 },	{ 1, 1 } };

/* The neighbour by hand: x + dx, y + dy wrapped or refused. */
static uint32_t by_hand(int w, int h, int wrap, uint32_t c, int dx, int dy)
{
	int x = (int)(c % (uint32_t)w) + dx, y = (int)(c / (uint32_t)w) + dy;

	if (wrap) {
		x = (x + w) % w;
		y = (y + h) % h;
	} else if (x < 0 || y < 0 || x >= w || y >= h) {
		return WEFT_GRID_NONE;
	}
	return (uint32_t)(y * w + x);
}

/* weft_grid_neighbors() gives the cells weft_grid_neighbor() gives. */
static int check_all(int w, int h, int wrap, uint32_t c)
{
	uint32_t nb[8];
	int bad = 0;

	weft_grid_neighbors((uint32_t)w, (uint32_t)h, (uint32_t)wrap, c,
			    WEFT_GRID_VON_NEUMANN, nb);
	for (uint32_t k = 0; k < 4; k++)
		bad += nb[k] != by_hand(w, h, wrap, c, vn[k][0], vn[k][1]);
	weft_grid_neighbors((uint32_t)w, (uint32_t)h, (uint32_t)wrap, c,
			    WEFT_GRID_MOORE, nb);
	for (uint32_t k = 0; k < 8; k++)
		bad += nb[k] != by_hand(w, h, wrap, c, mo[k][0], mo[k][1]);
	return bad;
}

static int check_grid(int w, int h, int wrap)
{
	int bad = 0;

	for (uint32_t c = 0; c < (uint32_t)(w * h); c++) {
		for (uint32_t k = 0; k < 4; k++)
			bad += weft_grid_neighbor((uint32_t)w, (uint32_t)h,
						  (uint32_t)wrap, c,
						  WEFT_GRID_VON_NEUMANN, k) !=
			       by_hand(w, h, wrap, c, vn[k][0], vn[k][1]);
		for (uint32_t k = 0; k < 8; k++)
			bad += weft_grid_neighbor((uint32_t)w, (uint32_t)h,
						  (uint32_t)wrap, c,
						  WEFT_GRID_MOORE, k) !=
			       by_hand(w, h, wrap, c, mo[k][0], mo[k][1]);
		bad += check_all(w, h, wrap, c);
	}
	return bad;
}

int main(void)
{
	static const int sizes[][2] = {
		{ 20, 20 }, { 7, 3 }, { 1, 5 }, { 2, 2 }, { 3, 1 }
	};
	uint32_t hits[8] = { 0 }, n = 1u << 16, lo = n, hi = 0;

	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		for (int wrap = 0; wrap < 2; wrap++)
			TAP_EQ_INT(check_grid(sizes[i][0], sizes[i][1], wrap),
				   0,
				   wrap ? "torus: every neighbour as by hand"
					: "walls: every neighbour as by hand");
	TAP_EQ_INT(weft_grid_pick(0u, 12345u), WEFT_GRID_NONE,
		   "pick: no qualifying neighbour gives WEFT_GRID_NONE");
	TAP_EQ_INT(
		weft_grid_pick(0x4u, 0xFFFFFFFFu), 2,
		"pick: one qualifying neighbour is chosen whatever the draw");
	/* Bits 1, 3, 6: draws spread evenly over 2^32 pick each n / 3
	 * times, give or take two. */
	for (uint32_t d = 0; d < n; d++)
		hits[weft_grid_pick(0x4Au, d * (0xFFFFFFFFu / n))]++;
	for (uint32_t k = 0; k < 8; k++)
		if (k == 1 || k == 3 || k == 6) {
			lo = hits[k] < lo ? hits[k] : lo;
			hi = hits[k] > hi ? hits[k] : hi;
		}
	tap_ok(hits[0] + hits[2] + hits[4] + hits[5] + hits[7] == 0 &&
		       hi - lo <= 2,
	       "pick: only the set bits, each a third of the draws (%u..%u)",
	       lo, hi);
	TAP_EQ_INT(weft_grid_pick(0xFFu, 0u), 0,
		   "pick: the smallest draw takes the first set bit");
	TAP_EQ_INT(weft_grid_pick(0xFFu, 0xFFFFFFFFu), 7,
		   "pick: the largest draw takes the last set bit");
	return tap_done();
}
