/*
 * tests/models/space-test.c - weft's continuous space kit (weft/space.h,
 * weft/space.wk) through a backend's vtable, checked against a plain C
 * reference: the cells' first entries, the permutation in (cell, slot)
 * order, the gathered fields, and for every agent the candidates the
 * iterator visits (the agents of the distinct cells around it) and the
 * agents within the radius (an O(N^2) loop), exactly.
 *
 *   space-test PLUGIN.so THREADS
 *
 * Cases: walls with agents outside the box, tori of 1, 2 and 3 cells
 * along an axis (and more), 2-D and 3-D, counts 0, 1 and thousands below
 * the capacity; pairs placed where f32 rounding at a cell's edge could
 * put neighbours two cells apart; a torus position just below max whose
 * offset rounds to the box's width (the iterator's shift is checked
 * too). Each case rebuilds twice (the second time from the gathered,
 * bin-ordered fields, as a model does each step). weft_space_params'
 * refusals are checked by their messages first. Prints "ok
 * CASE" lines and exits 1 at the first difference.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/backend.h>
#include <weft/space.h>

#include "st_kernels.h"
#include "vt-drive.h"

static uint64_t rng_s = 99;

static double urand(void)
{
	uint64_t z = (rng_s += 0x9E3779B97F4A7C15u);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
	return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

static float bits_f(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

/* The C reference of weft_space_coord. */
static uint32_t ref_coord(const uint32_t *p, uint32_t a, float v)
{
	uint32_t n = p[WEFT_SPACE_P_N + a];
	float q = (v - bits_f(p[WEFT_SPACE_P_MIN + a])) /
		  bits_f(p[WEFT_SPACE_P_CW + a]);
	long f;

	if (q >= 0.0f && q < (float)n)
		return (uint32_t)q < n ? (uint32_t)q : n - 1;
	if (!p[WEFT_SPACE_P_WRAP])
		return q >= 0.0f ? n - 1 : 0;
	f = (long)floorf(q);
	f %= (long)n;
	return (uint32_t)(f < 0 ? f + (long)n : f);
}

static float ref_delta(const uint32_t *p, uint32_t a, float x, float y)
{
	float d = y - x, w = bits_f(p[WEFT_SPACE_P_WIDTH + a]);

	if (!p[WEFT_SPACE_P_WRAP])
		return d;
	if (d > 0.5f * w)
		d -= w;
	else if (d < -0.5f * w)
		d += w;
	return d;
}

/* Floats in order: a u32 key that sorts as the float does, and back. */
static uint32_t f_key(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u & 0x80000000u ? ~u : u | 0x80000000u;
}

static float key_f(uint32_t k)
{
	return bits_f(k & 0x80000000u ? k & 0x7fffffffu : ~k);
}

/* The first float of [lo, hi] binned into cell c or above along axis a
 * (ref_coord is monotone there), or hi. */
static float cell_start(const uint32_t *p, uint32_t a, float lo, float hi,
			uint32_t c)
{
	uint32_t b = f_key(lo), e = f_key(hi);

	while (b < e) {
		uint32_t m = b + (e - b) / 2;

		if (ref_coord(p, a, key_f(m)) >= c)
			e = m;
		else
			b = m + 1;
	}
	return key_f(b);
}

typedef struct tcase {
	const char *name;
	weft_space_desc d;
	uint32_t n, cap;
	double outside; /* fraction of agents placed outside the box */
	/* when set: overwrites the first agents' positions (after the random
	 * ones), given the parameter block */
	void (*place)(const struct tcase *c, const uint32_t *p, float **pos);
} tcase;

/* Pairs along x at cell edges, where f32 rounding of (v - min) / cw could
 * put two agents less than a radius apart two cells apart: the last float
 * of cell c and the first of cell c + 2 for every c, and the pair a
 * reviewer found with boids' walls. y (and z) the same for all. */
static void place_edges(const tcase *c, const uint32_t *p, float **pos)
{
	float lo = c->d.min[0], hi = c->d.max[0];
	uint32_t nx = p[WEFT_SPACE_P_N], k = 0;

	for (uint32_t a = 1; a < c->d.dims; a++)
		for (uint32_t i = 0; i < c->n; i++)
			pos[a][i] = c->d.min[a] + 0.25f;
	for (uint32_t cell = 0; cell + 2 < nx && k + 4 <= c->n; cell++) {
		float s1 = cell_start(p, 0, lo, hi, cell + 1);
		float s2 = cell_start(p, 0, lo, hi, cell + 2);

		pos[0][k++] = key_f(f_key(s1) - 1); /* nextdown: cell c */
		pos[0][k++] = s2;
		pos[0][k++] = s1;
		pos[0][k++] = key_f(f_key(s2) + 1);
	}
	if (k + 2 <= c->n && lo == -0.5f && hi == 0.5f) {
		pos[0][k++] = -0.100000009f;
		pos[0][k++] = -0.0500000268f;
	}
	while (k < c->n) /* the rest: spread over the box */
		pos[0][k++] = lo + (hi - lo) * (float)urand();
}

/* A torus whose box edge rounds: fl(0.49999997 - -0.5) = 1 = the width,
 * which used to wrap into cell 0 and give the iterator's shift for cell
 * n - 1 wrong by the width; with neighbours either side of the seam. */
static void place_seam(const tcase *c, const uint32_t *p, float **pos)
{
	static const float xs[] = { 0.49999997f, 0.47f,	 -0.49f, -0.5f,
				    0.4999999f,	 0.455f, -0.46f, 0.49999997f };

	(void)p;
	for (uint32_t i = 0; i < sizeof xs / sizeof xs[0] && i < c->n; i++) {
		pos[0][i] = xs[i];
		pos[1][i] = i == 7 ? 0.49999997f : 0.01f * (float)i;
	}
}

static void run_case(const tcase *c)
{
	uint32_t p[WEFT_SPACE_P_WORDS], cells, n = c->n, cap = c->cap, dims;
	const char *bad = weft_space_params(&c->d, p, &cells);
	float *pos[3], *got[3];
	uint32_t *id, *keys, *starts, *perm, *rstarts, *rperm, *out, *gid,
		*fill;
	weft_buf *bp, *bpos[3], *bsort[3], *bid, *bids, *bcount, *out_b;
	weft_space_bins b;
	weft_launch l[64];
	weft_buf *src[4], *dst[4];
	uint32_t nl, one[2] = { n, 0 };

	if (bad)
		die(c->name, bad);
	dims = c->d.dims;
	for (int a = 0; a < 3; a++) {
		pos[a] = xcalloc(4 * (size_t)cap);
		got[a] = xcalloc(4 * (size_t)cap);
	}
	id = xcalloc(4 * (size_t)cap);
	gid = xcalloc(4 * (size_t)cap);
	keys = xcalloc(4 * (size_t)cap);
	perm = xcalloc(4 * (size_t)cap);
	rperm = xcalloc(4 * (size_t)cap);
	out = xcalloc(12 * (size_t)cap);
	starts = xcalloc(4 * ((size_t)cells + 1));
	rstarts = xcalloc(4 * ((size_t)cells + 1));
	fill = xcalloc(4 * ((size_t)cells + 1));
	for (uint32_t i = 0; i < cap; i++) {
		int out_of = urand() < c->outside;

		for (uint32_t a = 0; a < dims; a++) {
			double lo = c->d.min[a], w = c->d.max[a] - lo;
			double u = out_of ? -0.4 + 1.8 * urand() : urand();

			pos[a][i] = (float)(lo + w * u);
			if (c->d.wrap && pos[a][i] >= c->d.max[a] && !out_of)
				pos[a][i] = c->d.min[a];
		}
		id[i] = i;
	}
	if (c->place)
		c->place(c, p, pos);
	bp = alloc(sizeof p);
	put(bp, p, sizeof p);
	bcount = alloc(8);
	put(bcount, one, 8);
	for (int a = 0; a < 3; a++) {
		bpos[a] = alloc(4 * (size_t)cap);
		bsort[a] = alloc(4 * (size_t)cap);
		put(bpos[a], pos[a], 4 * (size_t)cap);
	}
	bid = alloc(4 * (size_t)cap);
	bids = alloc(4 * (size_t)cap);
	put(bid, id, 4 * (size_t)cap);
	out_b = alloc(12 * (size_t)cap);
	b = (weft_space_bins){ .keys = alloc(weft_space_keys_bytes(cap)),
			       .starts = alloc(weft_space_starts_bytes(cells)),
			       .cursor = alloc(weft_space_starts_bytes(cells)),
			       .perm = alloc(weft_space_keys_bytes(cap)),
			       .scratch = alloc(
				       weft_space_scan_scratch_bytes(cells)),
			       .count = bcount,
			       .count_index = 0,
			       .capacity = cap,
			       .n_cells = cells };
	for (int round = 0; round < 2; round++) {
		weft_buf *from[4] = { bpos[0], bpos[1], bpos[2], bid };
		weft_buf *to[4] = { bsort[0], bsort[1], bsort[2], bids };

		/* round 1: from the gathered (bin-ordered) fields back */
		for (int f = 0; f < 4; f++) {
			src[f] = round ? to[f] : from[f];
			dst[f] = round ? from[f] : to[f];
		}
		nl = weft_space_rebuild(
			l, ST_K_WEFT_SPACE, ST_K_WEFT_BLOCKS, bp, src[0],
			src[1], dims == 3 ? src[2] : NULL, &b, src, dst, 4);
		l[nl] = st_neighbours_launch(
			(st_neighbours_bufs){ .params = bp,
					      .starts = b.starts,
					      .x = dst[0],
					      .y = dst[1],
					      .z = dst[2],
					      .out = out_b },
			cap);
		l[nl].extent_buf = bcount;
		nl++;
		if (vt->step(dev, prog, l, nl, 1, &err) != WEFT_OK ||
		    vt->sync(dev, &err) != WEFT_OK)
			die("step", err.msg);
		/* reference from the inputs of this round */
		float *in[3];

		for (int a = 0; a < 3; a++)
			in[a] = round ? got[a] : pos[a];
		memset(rstarts, 0, 4 * ((size_t)cells + 1));
		for (uint32_t i = 0; i < n; i++) {
			uint32_t k =
				ref_coord(p, 0, in[0][i]) +
				p[WEFT_SPACE_P_N] *
					(ref_coord(p, 1, in[1][i]) +
					 p[WEFT_SPACE_P_N + 1] *
						 (dims == 3
							  ? ref_coord(p, 2,
								      in[2][i])
							  : 0));
			keys[i] = k;
			rstarts[k + 1]++;
		}
		for (uint32_t k = 0; k < cells; k++)
			rstarts[k + 1] += rstarts[k];
		memcpy(fill, rstarts, 4 * ((size_t)cells + 1));
		for (uint32_t i = 0; i < n; i++)
			rperm[fill[keys[i]]++] = i;
		get(starts, b.starts, 4 * ((size_t)cells + 1));
		get(perm, b.perm, 4 * (size_t)n);
		if (memcmp(starts, rstarts, 4 * ((size_t)cells + 1)))
			die(c->name, "starts differ from the reference");
		if (memcmp(perm, rperm, 4 * (size_t)n))
			die(c->name, "the permutation differs from (cell, "
				     "slot) order");
		float *nxt[3];
		uint32_t *prev_id = round ? gid : id;
		uint32_t *new_id = xcalloc(4 * (size_t)cap);

		for (int a = 0; a < 3; a++) {
			nxt[a] = xcalloc(4 * (size_t)cap);
			get(nxt[a], dst[a], 4 * (size_t)n);
			for (uint32_t k = 0; k < n; k++)
				if (a < (int)dims &&
				    memcmp(&nxt[a][k], &in[a][rperm[k]], 4))
					die(c->name, "a gathered position "
						     "differs");
		}
		get(new_id, dst[3], 4 * (size_t)n);
		for (uint32_t k = 0; k < n; k++)
			if (new_id[k] != prev_id[rperm[k]])
				die(c->name, "a gathered id differs");
		/* neighbours: brute force within the radius; candidates =
		 * agents of the distinct cells within one of the centre's */
		get(out, out_b, 12 * (size_t)n);
		float r = c->d.radius;

		for (uint32_t k = 0; k < n; k++) {
			uint32_t near = 0, cand = 0, ck[3], cj[3];

			for (uint32_t a = 0; a < 3; a++)
				ck[a] = a < dims ? ref_coord(p, a, nxt[a][k])
						 : 0;
			for (uint32_t j = 0; j < n; j++) {
				float dd[3] = { 0, 0, 0 };
				int adj = 1;

				for (uint32_t a = 0; a < 3; a++) {
					uint32_t m = p[WEFT_SPACE_P_N + a], dc;

					cj[a] = a < dims ? ref_coord(p, a,
								     nxt[a][j])
							 : 0;
					dc = cj[a] > ck[a] ? cj[a] - ck[a]
							   : ck[a] - cj[a];
					if (p[WEFT_SPACE_P_WRAP] && m - dc < dc)
						dc = m - dc;
					adj &= dc <= 1;
					if (a < dims)
						dd[a] = ref_delta(p, a,
								  nxt[a][k],
								  nxt[a][j]);
				}
				cand += adj;
				if (j != k &&
				    sqrtf(dd[0] * dd[0] + dd[1] * dd[1] +
					  dd[2] * dd[2]) < r) {
					near++;
					if (!adj)
						die(c->name,
						    "a neighbour within the "
						    "radius is not in an "
						    "adjacent cell");
				}
			}
			if (out[3 * k] != cand || out[3 * k + 1] != near ||
			    out[3 * k + 2] != 0) {
				fprintf(stderr,
					"space-test: %s: agent %u: %u "
					"candidates, %u near, %u with a wrong "
					"shift; reference %u, %u, 0\n",
					c->name, k, out[3 * k], out[3 * k + 1],
					out[3 * k + 2], cand, near);
				exit(1);
			}
		}
		for (int a = 0; a < 3; a++) {
			memcpy(got[a], nxt[a], 4 * (size_t)cap);
			free(nxt[a]);
		}
		memcpy(gid, new_id, 4 * (size_t)cap);
		free(new_id);
	}
	printf("ok %s (%u agents, %u cells)\n", c->name, n, cells);
	for (int a = 0; a < 3; a++) {
		vt->free(dev, bpos[a]);
		vt->free(dev, bsort[a]);
		free(pos[a]);
		free(got[a]);
	}
	vt->free(dev, bp);
	vt->free(dev, bcount);
	vt->free(dev, bid);
	vt->free(dev, bids);
	vt->free(dev, out_b);
	vt->free(dev, b.keys);
	vt->free(dev, b.starts);
	vt->free(dev, b.cursor);
	vt->free(dev, b.perm);
	vt->free(dev, b.scratch);
	free(id);
	free(gid);
	free(keys);
	free(perm);
	free(rperm);
	free(out);
	free(starts);
	free(rstarts);
	free(fill);
}

static const tcase cases[] = {
	{ "3-D walls, 10% outside the box",
	  { 3, 0, { 0, 0, 0 }, { 10, 10, 10 }, 2.0f },
	  3000,
	  3100,
	  0.1,
	  NULL },
	{ "2-D walls, width not a multiple of the radius",
	  { 2, 0, { -3, 1 }, { 17, 12.5f }, 1.5f },
	  2000,
	  2000,
	  0.05,
	  NULL },
	{ "3-D torus, 5 cells per axis",
	  { 3, 1, { 0, 0, 0 }, { 10, 10, 10 }, 2.0f },
	  3000,
	  3001,
	  0.02,
	  NULL },
	{ "3-D torus of 1, 2 and 3 cells",
	  { 3, 1, { 0, 0, 0 }, { 1.5f, 2.5f, 3.2f }, 1.0f },
	  400,
	  401,
	  0.0,
	  NULL },
	{ "2-D torus of 2 x 1 cells",
	  { 2, 1, { 0, 0 }, { 2.0f, 1.0f }, 1.0f },
	  100,
	  100,
	  0.0,
	  NULL },
	{ "2-D torus of 7 x 5 cells, width not a multiple",
	  { 2, 1, { 0, 0 }, { 7.7f, 5.9f }, 1.05f },
	  1500,
	  1600,
	  0.0,
	  NULL },
	{ "3-D walls, one agent",
	  { 3, 0, { 0, 0, 0 }, { 4, 4, 4 }, 1.0f },
	  1,
	  10,
	  0.0,
	  NULL },
	{ "2-D torus, no agents",
	  { 2, 1, { 0, 0 }, { 4, 4 }, 1.0f },
	  0,
	  10,
	  0.0,
	  NULL },
	{ "3-D walls, 1 cell",
	  { 3, 0, { 0, 0, 0 }, { 1, 1, 1 }, 2.0f },
	  50,
	  60,
	  0.3,
	  NULL },
	{ "2-D walls, pairs at cell edges (boids' box)",
	  { 2, 0, { -0.5f, -0.5f }, { 0.5f, 0.5f }, 0.05f },
	  100,
	  100,
	  0.0,
	  place_edges },
	{ "3-D walls, pairs at cell edges, width not a multiple",
	  { 3, 0, { -3, 1, 0 }, { 17, 12.5f, 2 }, 1.5f },
	  120,
	  120,
	  0.0,
	  place_edges },
	{ "2-D torus, pairs at cell edges, cells as wide as the radius",
	  { 2, 1, { -0.5f, -0.5f }, { 0.5f, 0.5f }, 0.049999997f },
	  60,
	  60,
	  0.0,
	  place_edges },
	{ "2-D torus, a position that rounds onto the box's edge",
	  { 2, 1, { -0.5f, -0.5f }, { 0.5f, 0.5f }, 0.049f },
	  200,
	  200,
	  0.0,
	  place_seam },
};

/* weft_space_params' refusals: each names the axis and the values. */
static void check_refusals(void)
{
	static const struct {
		weft_space_desc d;
		const char *want;
	} r[] = {
		{ { 2, 0, { 0, 0 }, { 1, 0 }, 0.1f },
		  "the box along y needs min < max, both finite (min 0, max "
		  "0)" },
		{ { 3, 1, { 0, 0, 5 }, { 1, 1, 4 }, 0.1f },
		  "the box along z needs min < max, both finite (min 5, max "
		  "4)" },
		{ { 2, 0, { 0, 0 }, { 2097152, 1 }, 1.0f },
		  "too many cells along x: a box 2097152 wide over a radius of "
		  "1 makes more than 1048576; make the radius larger" },
		{ { 2, 1, { 0, 0 }, { 1, 4194304 }, 1.0f },
		  "too many cells along y: a box 4194304 wide over a radius of "
		  "1 makes more than 1048576; make the radius larger" },
	};
	uint32_t w[WEFT_SPACE_P_WORDS], cells;

	for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
		const char *why = weft_space_params(&r[i].d, w, &cells);

		if (!why || strcmp(why, r[i].want)) {
			fprintf(stderr,
				"space-test: weft_space_params case %zu: "
				"\"%s\", want \"%s\"\n",
				i, why ? why : "(accepted)", r[i].want);
			exit(1);
		}
	}
	printf("ok weft_space_params refusals name the axis and values\n");
}

int main(int argc, char **argv)
{
	check_refusals();
	vt_open("space-test", argc, argv, st_program);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		run_case(&cases[i]);
	vt_close();
	return 0;
}
