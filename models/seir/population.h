/*
 * models/seir/population.h - the population that SEIR runs on: ages and
 * contact layers (CSR), built on the host from [seir] keys and uploaded
 * once by the model.
 *
 * TEMPORARY (models/seir/population_shim.c): the populations module
 * replaces this header, population_keys.h and the shim at merge; the
 * model depends only on what is declared here.
 */
#ifndef SEIR_POPULATION_H
#define SEIR_POPULATION_H

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
	uint64_t n_edges;
	uint32_t *row;	  /* n_agents + 1 */
	uint32_t *col;	  /* n_edges */
	uint16_t *weight; /* n_edges, edge weight x 1000 (1000 = 1.0), or
			   * NULL: every edge weighs 1 */
} seir_csr;

typedef struct seir_population {
	uint32_t n_agents;
	uint8_t *age;			 /* years, 0..120 */
	seir_csr layer[SEIR_MAX_LAYERS]; /* symmetric, no self-loops, no
					  * duplicates within a layer */
	/* > 0: community NOT stored; each infectious agent draws this many
	 * community contacts per day on the device (the model's kernel:
	 * contact k of agent i on day d = Philox(seed, d, i, k,
	 * PURPOSE_COMMUNITY) mod n, skipping i itself; not symmetric);
	 * 0: layer[SEIR_L_COMMUNITY] is stored (or empty) */
	uint32_t community_daily;
	/* relative transmission weight per layer (Covasim beta_layer) */
	double layer_beta[SEIR_MAX_LAYERS];
} seir_population;

/* The shim's parameters (the populations module defines its own). */
typedef struct seir_pop_params {
	int kind; /* 1: random; the shim refuses the others at params */
	uint32_t agents;
	uint32_t contacts;
	int community_daily;
	uint64_t seed;
	double layer_beta[SEIR_MAX_LAYERS];
	char contacts_where[160];
} seir_pop_params;

weft_status weft__seir_population_params(weft_model_ctx *mc,
					 seir_pop_params *pp);
weft_status weft__seir_population_build(const seir_pop_params *pp,
					seir_population *pop, char *err,
					size_t err_size);
void weft__seir_population_free(seir_population *pop);

#endif /* SEIR_POPULATION_H */
