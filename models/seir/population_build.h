/*
 * models/seir/population_build.h - what the population's files share
 * (population.c, population_csr.c, population_csv.c): the host's Philox
 * draws, the two-pass CSR builder and the group contact generator.
 */
#ifndef WEFT_SEIR_POPULATION_BUILD_H
#define WEFT_SEIR_POPULATION_BUILD_H

#include <stdint.h>
#include <weft/kernel_host.h>
/* weft/kernel.h is the kernel dialect's Philox, compiled here for the
 * host after its prelude. */
#include <weft/kernel.h>

#include "population.h"

/* Purposes of the population's draws (counter word 3), apart from the
 * kernels' (seir_shared.h). */
#define SEIR_POP_P_RANDOM    101u
#define SEIR_POP_P_HOUSEHOLD 201u /* size of household h */
#define SEIR_POP_P_AGE	     202u /* age of agent i */
#define SEIR_POP_P_SHUFFLE   203u /* order of the workers */
#define SEIR_POP_P_WORKPLACE 204u /* size of workplace w */
#define SEIR_POP_P_EDGES     210u /* + layer: contacts within groups */

static inline weft_rand4 weft__pop_draw(uint64_t seed, uint32_t c0, uint32_t c1,
					uint32_t c2, uint32_t purpose)
{
	return weft_philox((uint32_t)seed, (uint32_t)(seed >> 32), c0, c1, c2,
			   purpose);
}

/* Uniform integer in [0, n) from a 32-bit draw (Lemire's multiply-shift;
 * the bias is below n / 2^32). */
static inline uint32_t weft__pop_below(uint32_t draw, uint32_t n)
{
	return (uint32_t)(((uint64_t)draw * n) >> 32);
}

/* A distribution prepared for drawing: bin i is taken when a 32-bit draw
 * is below cum[i] (cumulative thresholds; the last is 2^32). */
typedef struct seir_pop_sampler {
	uint32_t n;
	uint64_t cum[SEIR_POP_MAX_BINS];
	uint32_t lo[SEIR_POP_MAX_BINS], span[SEIR_POP_MAX_BINS];
} seir_pop_sampler;

void weft__pop_sampler_init(seir_pop_sampler *s, const seir_pop_bins *b);
/* A value from two 32-bit draws: one picks the bin, one the value. */
uint32_t weft__pop_sample(const seir_pop_sampler *s, uint32_t d0, uint32_t d1);

/* ---- the two-pass CSR builder ------------------------------------------ */

/* Where a generator's edges go: the first pass counts the entries of each
 * row, the second writes them. A generator must emit the same edges, in
 * the same order, in both passes.
 *
 * Entries go through buckets of 2^SEIR_POP_BUCKET_SHIFT consecutive
 * agents (all of them when counting, unweighted ones when filling): an
 * entry is appended to its row's bucket, and a full bucket is written out
 * at once, into rows that lie together in memory. Random contacts over
 * millions of agents then cost a cache miss per bucket line rather than
 * two per entry. The order of entries within a row changes, but rows are
 * sorted at the end. */
#define SEIR_POP_BUCKET_SHIFT 13  /* 8192 agents per bucket */
#define SEIR_POP_BUCKET_CAP   512 /* entries held per bucket */

typedef struct seir_pop_sink {
	int fill;	  /* 0: count, 1: write */
	uint64_t emitted; /* undirected edges emitted */
	uint32_t *row;	  /* count pass: degree of agent i in row[i + 1] */
	uint32_t *cursor; /* fill pass: next free entry of each row */
	uint32_t *col;
	uint16_t *weight; /* NULL when the layer is unweighted */
	uint64_t *bucket; /* (row << 32 | neighbour), CAP per bucket */
	uint32_t *bucket_len;
	/* The run, asked whether it was cancelled whenever a bucket is
	 * written out: stop is then set, and generators stop at their next
	 * weft__pop_full(). NULL: never cancelled. */
	const weft_model_ctx *mc;
	int stop;
} seir_pop_sink;

/* Write out bucket b (population_csr.c). */
void weft__pop_flush(seir_pop_sink *s, uint32_t b);
/* 1 once the run was cancelled (and stop set): for generators that write
 * no buckets (weighted layers), every 65536 edges. */
int weft__pop_cancelled(seir_pop_sink *s);

static inline void weft__pop_push(seir_pop_sink *s, uint32_t i, uint32_t j)
{
	uint32_t b = i >> SEIR_POP_BUCKET_SHIFT;
	uint32_t len = s->bucket_len[b];

	s->bucket[(size_t)b * SEIR_POP_BUCKET_CAP + len] =
		(uint64_t)i << 32 | j;
	s->bucket_len[b] = ++len;
	if (len == SEIR_POP_BUCKET_CAP)
		weft__pop_flush(s, b);
}

/* One undirected edge a-b (a != b) of weight w x 1000. */
static inline void weft__pop_emit(seir_pop_sink *s, uint32_t a, uint32_t b,
				  uint16_t w)
{
	uint32_t ea, eb;

	s->emitted++;
	if (!s->weight) {
		weft__pop_push(s, a, b);
		weft__pop_push(s, b, a);
		return;
	}
	if (!s->fill) {
		s->row[a + 1]++;
		s->row[b + 1]++;
		return;
	}
	ea = s->cursor[a]++;
	eb = s->cursor[b]++;
	s->col[ea] = b;
	s->col[eb] = a;
	s->weight[ea] = s->weight[eb] = w;
}

/* More undirected edges than a layer can index (2^32 - 1 entries): the
 * count pass may stop early once it is reached, the layer is refused. */
#define SEIR_POP_MAX_PAIRS (UINT32_MAX / 2)

static inline int weft__pop_full(const seir_pop_sink *s)
{
	return s->stop || (!s->fill && s->emitted > SEIR_POP_MAX_PAIRS);
}

typedef void (*seir_pop_gen_fn)(const void *arg, seir_pop_sink *s);

/* Build one layer over n agents from a generator run twice: count, prefix
 * sums, fill, then sort each row and drop repeated pairs (keeping the
 * largest weight). weighted: keep weights (dropped again when all are
 * 1000). what names the layer in messages. WEFT_E_CANCELLED when mc's
 * run is cancelled meanwhile. */
weft_status weft__pop_layer_build(const weft_model_ctx *mc, uint32_t n,
				  seir_pop_gen_fn gen, const void *arg,
				  int weighted, const char *what, seir_csr *out,
				  char *err, size_t err_size);
/* An empty layer: row all 0, one col entry allocated. */
weft_status weft__pop_layer_empty(uint32_t n, seir_csr *out, char *err,
				  size_t err_size);
void weft__pop_layer_free(seir_csr *l);

/* ---- contacts within groups --------------------------------------------- */

/* Disjoint groups of agents: group g is member[start[g]..start[g+1]-1]
 * (member NULL: the agents start[g]..start[g+1]-1 themselves). A group of
 * k agents is a clique when clique is set or k - 1 <= contacts; else each
 * member gets contacts contacts on average, at random within the group
 * (draws keyed by seed, group and purpose; in large groups as Covasim's
 * make_random_contacts draws them). */
typedef struct seir_pop_groups {
	uint32_t n_groups;
	const uint32_t *start;
	const uint32_t *member;
	uint32_t contacts;
	int clique;
	uint64_t seed;
	uint32_t purpose;
	/* Patches that mix (the groups being the patches, member NULL):
	 * each contact's patch drawn from mix->cum, every group sparse
	 * (population.c's community with patch_file); NULL: none. */
	const seir_patches *mix;
} seir_pop_groups;

/* Refuse groups whose expected contacts overflow a layer, before any
 * draw (what names the layer). */
weft_status weft__pop_groups_check(const seir_pop_groups *gr, const char *what,
				   char *err, size_t err_size);
/* A seir_pop_gen_fn over a seir_pop_groups (edges of weight 1). */
void weft__pop_gen_groups(const void *groups, seir_pop_sink *s);
/* Emit the contacts of group g only (for generators that combine groups
 * with other edges). */
void weft__pop_group_edges(const seir_pop_groups *gr, uint32_t g,
			   seir_pop_sink *s);

/* Draws that give d distinct pairs on average in a group of k where
 * contacts / (k - 1) < 1/2, in integer arithmetic so that every host
 * computes the same count. */
uint64_t weft__pop_draws_for(uint64_t d, uint32_t contacts, uint32_t k);

/* ---- csv ----------------------------------------------------------------- */

weft_status weft__seir_population_csv(const seir_pop_params *pp,
				      seir_population *pop, char *err,
				      size_t err_size);

/* What the start of a population file (its header and up to 64 KiB of
 * rows) says about the whole, for the estimate: the rows, estimated from
 * the file's size and the sample's mean row (exact when the sample is
 * the whole file), and what the rows hold. */
typedef struct seir_pop_sample {
	uint64_t rows;
	int columns; /* of the header */
	/* agents: the share of rows in a household, a school, a workplace
	 * (share[0..2]); edges: the share of rows of each layer. */
	double share[SEIR_MAX_LAYERS];
	/* agents: the mean of (size - 1) over the members of households,
	 * schools, workplaces (population_csv.c says how). */
	double group[3];
	int weighted[SEIR_MAX_LAYERS]; /* edges: a weight other than 1 */
} seir_pop_sample;

/* Reads the header and the sample (edges: the edges file's columns),
 * with the same checks and messages as the build. */
weft_status weft__pop_csv_sample(const char *path, int edges,
				 seir_pop_sample *out, char *err,
				 size_t err_size);

#endif /* WEFT_SEIR_POPULATION_BUILD_H */
