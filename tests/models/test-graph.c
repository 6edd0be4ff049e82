/*
 * tests/models/test-graph.c - weft's contact-graph kit (weft/graph.h,
 * weft/graph.wk) through a backend's vtable, checked against a plain C
 * reference: a CSR graph of 40 nodes with 9 rows each (degrees 0, 1, 2,
 * 3, 7, 31, 100, 1000, 8191, 8192, 8193, 20000 and 100000: both sides of
 * the skip's shortcut at 2^13), every row walked by tests/models/
 * graph-test.wk with its slot's chance: 0, 2^-28 (the smallest), about
 * 1e-6 and 1e-4, 0.1, 0.5, 0.9, 1 and above 1. For every row the places
 * visited (each flag), their count, the candidates and the sum of the visited
 * neighbours' ids equal the reference's exactly; the reference walks by
 * the definitions (the level by a scan of the rates, each skip a full
 * division capped by the places left, no shortcut). Then, per chance,
 * the places visited over all rows are within 6 standard deviations of
 * the chance times the places (all of them at 1 and above, none at 0).
 * Also the host helpers: weft_graph_q28 and the tables' first entries.
 *
 *   test-graph PLUGIN.so THREADS
 *
 * Prints "ok ..." lines and exits 1 at the first difference.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/backend.h>
#include <weft/graph.h>
#include <weft/kernel.h>

#include "gt_kernels.h"
#include "vt-drive.h"

#define N_NODES	   40u
#define N_SLOTS	   9u
#define N_ROWS	   (N_NODES * N_SLOTS)
#define GT_PURPOSE 7u
#define SEED_LO	   0x5eedu
#define SEED_HI	   42u

/* Each slot's chance (Q28): 0, 2^-28 (the smallest), about 1e-6 and
 * 1e-4, 0.1, 0.5, 0.9, 1 and above 1. */
static const uint32_t chance[N_SLOTS] = {
	0u,	    1u,		268u,
	26844u,	    26843546u,	134217728u,
	241591910u, 268435456u, 268435456u + 12345u,
};
static const uint32_t degrees[] = { 0,	  1,	2,    3,    7,	   31,	  100,
				    1000, 8191, 8192, 8193, 20000, 100000 };
#define N_DEGREES (sizeof degrees / sizeof *degrees)

/* ---- the reference: skip sampling by its definitions ------------------- */

/* The largest k whose rate is at least pc, by scanning the rates. */
static uint32_t ref_level(const weft_graph_tables *t, uint32_t pc)
{
	uint32_t k = 0;

	while (k + 1 < WEFT_GRAPH_LEVELS && t->lvl_q28[k + 1] >= pc)
		k++;
	return k;
}

/* -log2((draw + 1) / 2^32) in Q48: (32 - e) - log2(mantissa), the
 * mantissa's log2 interpolated linearly in the table. */
static uint64_t ref_neglog2(const weft_graph_tables *t, uint32_t draw)
{
	uint64_t x = (uint64_t)draw + 1, frac, lm;
	uint32_t e = 0, i, f;

	if (x == (uint64_t)1 << 32)
		return 0;
	while (x >> (e + 1))
		e++;
	frac = ((x << 32) >> e) & 0xFFFFFFFFu; /* the fraction, Q32 */
	i = (uint32_t)(frac >> 22);
	f = (uint32_t)(frac & ((1u << 22) - 1));
	lm = t->log2_q30[i] +
	     (((uint64_t)(t->log2_q30[i + 1] - t->log2_q30[i]) * f) >> 22);
	return (((uint64_t)(32 - e) << 30) - lm) << 18;
}

/* The skip: floor(-log2(u) / -log2(1 - q_k)), capped at left. */
static uint32_t ref_skip(const weft_graph_tables *t, uint32_t k, uint32_t draw,
			 uint32_t left)
{
	uint64_t lk = t->lvl_log[k][0] | (uint64_t)t->lvl_log[k][1] << 32;
	uint64_t g = ref_neglog2(t, draw) / lk;

	return g < left ? (uint32_t)g : left;
}

/* Row `slot` of node a: its places from start, deg of them. */
static void ref_walk(const weft_graph_tables *t, const uint32_t *cols,
		     uint32_t start, uint32_t deg, uint32_t a, uint32_t slot,
		     uint8_t *visit, uint32_t out[3])
{
	uint64_t p = chance[slot];
	uint32_t k, pos, c;

	out[0] = out[1] = out[2] = 0;
	if (p == 0 || deg == 0)
		return;
	k = ref_level(t, p < WEFT_GRAPH_Q28_ONE ? (uint32_t)p
						: WEFT_GRAPH_Q28_ONE);
	pos = k ? ref_skip(t, k,
			   weft_philox(SEED_LO, SEED_HI, slot, a, 0, GT_PURPOSE)
				   .v[0],
			   deg)
		: 0;
	for (c = 1; pos < deg; c++) {
		weft_rand4 r =
			weft_philox(SEED_LO, SEED_HI, slot, a, c, GT_PURPOSE);
		int acc = p >= WEFT_GRAPH_Q28_ONE ||
			  (uint64_t)r.v[0] * t->lvl_q28[k] < p << 32;

		out[1]++;
		if (acc) {
			visit[start + pos] = 1;
			out[0]++;
			out[2] += cols[start + pos];
		}
		pos++;
		if (k)
			pos += ref_skip(t, k, r.v[1], deg - pos);
	}
}

/* ---- the case ----------------------------------------------------------- */

static void host_checks(const weft_graph_tables *t)
{
	if (sizeof *t != 13200)
		die("weft_graph_tables", "not the 13,200 bytes docs/graph.md "
					 "says");
	if (t->lvl_q28[0] != WEFT_GRAPH_Q28_ONE ||
	    t->lvl_q28[16] != WEFT_GRAPH_Q28_ONE / 2 || t->lvl_log[0][0] != 0 ||
	    t->lvl_log[0][1] != 0 || t->lvl_log[16][0] != 0 ||
	    t->lvl_log[16][1] != 1u << 16 || t->log2_q30[0] != 0 ||
	    t->log2_q30[WEFT_GRAPH_LOG_STEPS] != 1u << 30)
		die("weft_graph_tables_init",
		    "q_0 = 1, q_16 = 1/2 and -log2(1 - 1/2) = 1, log2(1) = 0 "
		    "and log2(2) = 1 not in the tables");
	for (uint32_t k = 1; k < WEFT_GRAPH_LEVELS; k++)
		if (t->lvl_q28[k] > t->lvl_q28[k - 1] || t->lvl_q28[k] == 0)
			die("weft_graph_tables_init",
			    "the rates increase somewhere, or reach 0");
	if (weft_graph_q28(0.0) != 0 || weft_graph_q28(-1.0) != 0 ||
	    weft_graph_q28(NAN) != 0 ||
	    weft_graph_q28(1.0) != WEFT_GRAPH_Q28_ONE ||
	    weft_graph_q28(7.0) != WEFT_GRAPH_Q28_ONE ||
	    weft_graph_q28(0.5) != WEFT_GRAPH_Q28_ONE / 2 ||
	    weft_graph_q28(1e-9) != 0 || weft_graph_q28(3e-9) != 1 ||
	    weft_graph_q28(0.1) != 26843546u)
		die("weft_graph_q28", "a probability's Q28 chance is wrong");
	printf("ok host: tables and weft_graph_q28\n");
}

static void run(void)
{
	static weft_graph_tables t;
	uint32_t params[3 + N_SLOTS] = { SEED_LO, SEED_HI, N_SLOTS };
	uint32_t *rows, *cols, *out, *rout, total;
	uint8_t *visit, *rvisit;
	uint64_t seen[N_SLOTS] = { 0 }, places[N_SLOTS] = { 0 }, z = 12345;
	weft_buf *bp, *bt, *brows, *bcols, *bvisit, *bout;
	weft_launch l;

	weft_graph_tables_init(&t);
	host_checks(&t);
	memcpy(params + 3, chance, sizeof chance);
	rows = xcalloc(4 * ((size_t)N_ROWS + 1));
	for (uint32_t r = 0; r < N_ROWS; r++) {
		uint32_t a = r / N_SLOTS, s = r % N_SLOTS;
		rows[r + 1] = rows[r] + degrees[(a * 5 + s * 3) % N_DEGREES];
	}
	total = rows[N_ROWS];
	cols = xcalloc(4 * (size_t)total);
	for (uint32_t i = 0; i < total; i++) { /* splitmix64 */
		uint64_t x = (z += 0x9E3779B97F4A7C15u);
		x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9u;
		x = (x ^ (x >> 27)) * 0x94D049BB133111EBu;
		cols[i] = (uint32_t)((x ^ (x >> 31)) % 1000003u);
	}
	visit = xcalloc(total);
	rvisit = xcalloc(total);
	out = xcalloc(12 * (size_t)N_ROWS);
	rout = xcalloc(12 * (size_t)N_ROWS);
	bp = alloc(sizeof params);
	put(bp, params, sizeof params);
	bt = alloc(sizeof t);
	put(bt, &t, sizeof t);
	brows = alloc(4 * ((size_t)N_ROWS + 1));
	put(brows, rows, 4 * ((size_t)N_ROWS + 1));
	bcols = alloc(4 * (size_t)total);
	put(bcols, cols, 4 * (size_t)total);
	bvisit = alloc(total);
	put(bvisit, visit, total);
	bout = alloc(12 * (size_t)N_ROWS);
	l = gt_walk_launch((gt_walk_bufs){ .params = bp,
					   .tables = bt,
					   .rows = brows,
					   .cols = bcols,
					   .visit = bvisit,
					   .out = bout },
			   N_ROWS);
	if (vt->step(dev, prog, &l, 1, 1, &err) != WEFT_OK ||
	    vt->sync(dev, &err) != WEFT_OK)
		die("step", err.msg);
	get(visit, bvisit, total);
	get(out, bout, 12 * (size_t)N_ROWS);
	for (uint32_t r = 0; r < N_ROWS; r++) {
		uint32_t a = r / N_SLOTS, s = r % N_SLOTS;
		uint32_t deg = rows[r + 1] - rows[r];

		ref_walk(&t, cols, rows[r], deg, a, s, rvisit, rout + 3 * r);
		if (memcmp(out + 3 * r, rout + 3 * r, 12) ||
		    memcmp(visit + rows[r], rvisit + rows[r], deg)) {
			fprintf(stderr,
				"test-graph: node %u, slot %u (degree %u, "
				"chance %u/2^28): %u visited, %u candidates, "
				"id sum %u; reference %u, %u, %u%s\n",
				a, s, deg, chance[s], out[3 * r],
				out[3 * r + 1], out[3 * r + 2], rout[3 * r],
				rout[3 * r + 1], rout[3 * r + 2],
				memcmp(visit + rows[r], rvisit + rows[r], deg)
					? " (the visited places differ)"
					: "");
			exit(1);
		}
		seen[s] += out[3 * r];
		places[s] += deg;
	}
	printf("ok %u rows (%u places): visited places, counts, candidates "
	       "and neighbours equal the reference\n",
	       N_ROWS, total);
	for (uint32_t s = 0; s < N_SLOTS; s++) {
		double p = chance[s] >= WEFT_GRAPH_Q28_ONE
				   ? 1.0
				   : chance[s] / 268435456.0,
		       n = (double)places[s];
		double sd = sqrt(n * p * (1 - p));

		if (fabs((double)seen[s] - n * p) > 6 * sd + 1e-9 ||
		    (p == 1.0 && seen[s] != places[s]) ||
		    (p == 0.0 && seen[s] != 0)) {
			fprintf(stderr,
				"test-graph: chance %g: %llu of %llu places "
				"visited, expected %.1f (sd %.1f)\n",
				p, (unsigned long long)seen[s],
				(unsigned long long)places[s], n * p, sd);
			exit(1);
		}
		printf("ok chance %g: %llu of %llu places visited (expected "
		       "%.1f)\n",
		       p, (unsigned long long)seen[s],
		       (unsigned long long)places[s], n * p);
	}
	vt->free(dev, bp);
	vt->free(dev, bt);
	vt->free(dev, brows);
	vt->free(dev, bcols);
	vt->free(dev, bvisit);
	vt->free(dev, bout);
	free(rows);
	free(cols);
	free(visit);
	free(rvisit);
	free(out);
	free(rout);
}

int main(int argc, char **argv)
{
	vt_open("test-graph", argc, argv, gt_program);
	run();
	vt_close();
	return 0;
}
