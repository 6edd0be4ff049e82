/*
 * models/seir/population.h - the populations of the SEIR model: agents
 * with ages and a contact network stored as CSR per contact layer (home,
 * school, work, community), never dense.
 *
 * A population is a pure function of its parameters (seir_pop_params):
 * built once on the host, single-threaded, from counter-based Philox
 * draws keyed by the population seed, so the same parameters give the
 * same population byte for byte whatever the backend or thread count.
 * Three kinds (models/seir/populations.md):
 *   synthetic  households, schools, workplaces and a community layer,
 *              with defaults close to Covasim's hybrid population;
 *   random     one random symmetric graph (today's Astoria network),
 *              stored as the community layer;
 *   csv        agents and edges read from CSV files.
 */
#ifndef WEFT_SEIR_POPULATION_H
#define WEFT_SEIR_POPULATION_H

#include <stddef.h>
#include <stdint.h>
#include <weft/model.h>

#define SEIR_MAX_LAYERS 4
enum seir_layer_id {
	SEIR_L_HOME = 0,
	SEIR_L_SCHOOL = 1,
	SEIR_L_WORK = 2,
	SEIR_L_COMMUNITY = 3
};

typedef struct seir_csr {
	uint64_t n_edges; /* stored (directed) entries of col */
	uint32_t *row;	  /* n_agents + 1 entries, never NULL */
	uint32_t *col;	  /* n_edges entries (at least one allocated, so
			   * never NULL), each row sorted ascending */
	uint16_t *weight; /* n_edges, edge weight x 1000 (1000 = 1.0), or
			   * NULL when every edge weighs 1 */
} seir_csr;

typedef struct seir_population {
	uint32_t n_agents;
	uint8_t *age; /* years, 0..120, n_agents entries */
	/* Stored, symmetric (both directions stored), no self-loops, no
	 * duplicate pairs within a layer; a layer with n_edges 0 has row
	 * all 0. */
	seir_csr layer[SEIR_MAX_LAYERS];
	/* > 0: the community layer is NOT stored; each agent has this many
	 * community contacts per day, drawn on the device by the kernel from
	 * the counter-based generator (models/seir/populations.md); 0:
	 * layer[SEIR_L_COMMUNITY] is stored (or empty). */
	uint32_t community_daily;
	/* Relative transmission weight per layer (Covasim's beta_layer),
	 * from the beta_* keys; all 1 for population = random. */
	double layer_beta[SEIR_MAX_LAYERS];
} seir_population;

/* ---- parameters --------------------------------------------------------- */

typedef enum seir_pop_kind {
	SEIR_POP_SYNTHETIC = 0,
	SEIR_POP_RANDOM = 1,
	SEIR_POP_CSV = 2
} seir_pop_kind;

#define SEIR_POP_MAX_BINS 32
#define SEIR_POP_PATH_MAX 4096
/* The longest line (bytes, its end excluded) of a population CSV file:
 * longer ones are refused at their line, so memory stays bounded. */
#define SEIR_POP_LINE_MAX 4096

/* A discrete distribution over integer values (ages, household sizes,
 * workplace sizes) written "LO-HI:WEIGHT, ..." or "V:WEIGHT, ...": bin i
 * holds lo[i]..hi[i] (inclusive, uniform within the bin) with relative
 * weight w[i]; weights need not sum to 1. */
typedef struct seir_pop_bins {
	uint32_t n;
	uint32_t lo[SEIR_POP_MAX_BINS], hi[SEIR_POP_MAX_BINS];
	double w[SEIR_POP_MAX_BINS];
} seir_pop_bins;

/* The patches of a population ([seir] patch_file; spatial.c): agents are
 * numbered patch by patch, patch q holding agents start[q] ..
 * start[q + 1] - 1; its households, schools and workplaces lie within
 * it, and each community contact of one of its agents goes to patch r
 * with the share of the migration network (weft/patches.h), within q
 * with what the row leaves. n 0: no patches. */
#define SEIR_MAX_PATCHES 65536u
#define SEIR_MAX_MIX	 4096u /* patches a network mixes */
typedef struct seir_patches {
	uint32_t n;
	uint32_t *start; /* n + 1 */
	uint32_t *pops;	 /* n */
	uint32_t *seeds; /* initial infections per patch, or NULL */
	/* cum[q * n + r]: a 32-bit draw below it picks a destination up to
	 * r for a community contact of patch q; NULL: every contact stays
	 * in its patch. */
	uint64_t *cum;
	/* The share of community contacts that the network sends to other
	 * patches (the patches' row sums weighted by their agents), and
	 * once built, the stored community entries and those between
	 * patches (weft__seir_patches_mixing). */
	double share;
	uint64_t entries, cross;
	/* 1: the community mixes between patches (cum is made, or with
	 * weft__seir_population_params' network 0 would be). */
	int mixes;
} seir_patches;

void weft__seir_patches_free(seir_patches *pt);
/* The community layer's entries, and those between patches, into pt. */
void weft__seir_patches_mixing(seir_patches *pt, const seir_csr *community);

/* Parameters, parsed from the [seir] keys (population_keys.h) by
 * weft__seir_population_params(), or filled by tests. */
typedef struct seir_pop_params {
	seir_pop_kind kind;
	uint32_t agents;   /* synthetic and random; ignored for csv */
	uint64_t seed;	   /* resolved: population_seed, or [simulation]
			    * seed when population_seed is 0 */
	uint32_t contacts; /* random: mean degree (pairs drawn n*c/2) */
	seir_pop_bins household_sizes, ages, workplace_sizes;
	int work_one_group; /* workplace_sizes = all: one workplace */
	uint32_t school_age_min, school_age_max; /* inclusive, years */
	uint32_t school_size;	  /* agents per school group; 0: one group */
	uint32_t school_contacts; /* mean degree within a school group */
	uint32_t work_age_min, work_age_max; /* inclusive, years */
	uint32_t work_contacts;	     /* mean degree within a workplace */
	uint32_t community_contacts; /* mean community degree */
	int community_daily;	     /* draw the community layer daily */
	double layer_beta[SEIR_MAX_LAYERS];
	char agents_file[SEIR_POP_PATH_MAX]; /* csv: resolved paths */
	char edges_file[SEIR_POP_PATH_MAX];  /* "" when none */
	int duplicate_error; /* duplicate_edges = error (else merge) */
	/* csv: [seir] agents set (not its default) declares the rows of
	 * agents_file, a limit while reading and a count to match; where
	 * it was set, for messages. */
	int agents_declared;
	char agents_where[128];
	uint32_t household_max; /* csv: most members of a household */
	/* The run, whose cancellation the builders check (NULL: none). */
	const weft_model_ctx *mc;
	/* The patches (n 0: none); weft__seir_population_params allocates
	 * them, weft__seir_patches_free frees them. */
	seir_patches patches;
} seir_pop_params;

/* Read every key of SEIR_POPULATION_KEYS from the model's section; file
 * names relative to the INI file's directory. */
weft_status weft__seir_population_params(weft_model_ctx *mc,
					 seir_pop_params *pp, int network);
/* [seir] patch_file and the migration keys into pp->patches, pp->agents
 * their sum (spatial.c; after the other population keys); network 0:
 * the keys and the file checked, the network between the patches not
 * made (the memory estimate's). */
weft_status weft__seir_patches_params(weft_model_ctx *mc, seir_pop_params *pp,
				      int network);
/* A path resolved against the directory of the INI file that set it
 * (where: "FILE:LINE"): 1, or 0 when it does not fit. */
int weft__seir_pop_resolve(char *path, const char *where);
/* The same parameters from the keys' declared defaults, without a run
 * (seed as population_seed's default: 0; set it before building). */
void weft__seir_population_defaults(seir_pop_params *pp);
/* Parse a distribution ("LO-HI:W, ..."); values must lie in min..max.
 * On failure err says what is wrong and WEFT_E_CONFIG is returned. */
weft_status weft__seir_pop_bins_parse(const char *text, uint32_t min,
				      uint32_t max, seir_pop_bins *out,
				      char *err, size_t err_size);

/* The size of the population the params give, before it is built: for
 * the model's memory estimate (population_size.c). synthetic and random
 * from the parameters; csv from the files' sizes and first rows (their
 * header checked: a missing or bad file fails as the build would). */
typedef struct seir_pop_size {
	uint64_t agents;
	uint64_t entries[SEIR_MAX_LAYERS]; /* stored, both directions */
	int weighted;			   /* some stored weight is not 1 */
	uint64_t contact_bytes; /* host bytes of the layers' columns */
	uint64_t pop_bytes;	/* host bytes of the built population */
	uint64_t build_bytes;	/* host bytes the build holds at its peak */
} seir_pop_size;

weft_status weft__seir_population_size(const seir_pop_params *pp,
				       seir_pop_size *out, char *err,
				       size_t err_size);

/* Pure: the same params give the same population, byte for byte. On
 * failure *pop is left empty and err gets a message, "FILE:LINE: what"
 * for errors in population files. */
weft_status weft__seir_population_build(const seir_pop_params *pp,
					seir_population *pop, char *err,
					size_t err_size);
void weft__seir_population_free(seir_population *pop);

#endif /* WEFT_SEIR_POPULATION_H */
