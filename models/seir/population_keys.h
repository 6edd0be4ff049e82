/*
 * models/seir/population_keys.h - the [seir] keys of the population, put
 * first in the model's key table (SEIR_POPULATION_KEYS).
 *
 * TEMPORARY: the populations module replaces this file at merge. The shim
 * (population_shim.c) implements `population = random` only; its default
 * is `random` so that the tree runs before the merge (the module's is
 * `synthetic`).
 */
#ifndef SEIR_POPULATION_KEYS_H
#define SEIR_POPULATION_KEYS_H

#define SEIR_POPULATION_KEYS                                                  \
	{ "population",                                                       \
	  WEFT_KEY_ENUM,                                                      \
	  "random",                                                           \
	  0,                                                                  \
	  0,                                                                  \
	  "synthetic|random|csv",                                             \
	  "how the population is made: synthetic (households, schools, "      \
	  "workplaces, community), random (one random contact layer) or csv " \
	  "(agents_file and edges_file)" },                                   \
		{ "agents",                                                   \
		  WEFT_KEY_INT,                                               \
		  "37518",                                                    \
		  1,                                                          \
		  2000000000,                                                 \
		  NULL,                                                       \
		  "number of agents (synthetic and random populations)" },    \
		{ "population_seed",                                          \
		  WEFT_KEY_INT,                                               \
		  "0",                                                        \
		  0,                                                          \
		  9007199254740991.0,                                         \
		  NULL,                                                       \
		  "seed of the population; 0 uses [simulation] seed, so "     \
		  "ensembles over seeds can share one population by setting " \
		  "it" },                                                     \
		{ "contacts",                                                 \
		  WEFT_KEY_INT,                                               \
		  "10",                                                       \
		  0,                                                          \
		  1000,                                                       \
		  NULL,                                                       \
		  "random population: mean number of contacts per agent (a "  \
		  "random symmetric layer without self-loops or repeated "    \
		  "pairs, stored as the community layer), or contacts drawn " \
		  "each day with community_daily" },                          \
		{ "household_sizes",                                          \
		  WEFT_KEY_STRING,                                            \
		  "",                                                         \
		  0,                                                          \
		  0,                                                          \
		  NULL,                                                       \
		  "synthetic population: distribution of household sizes" },  \
		{ "ages",                                                     \
		  WEFT_KEY_STRING,                                            \
		  "",                                                         \
		  0,                                                          \
		  0,                                                          \
		  NULL,                                                       \
		  "synthetic population: age distribution (random: uniform "  \
		  "0 to 89)" },                                               \
		{ "school_contacts",                                          \
		  WEFT_KEY_INT,                                               \
		  "20",                                                       \
		  0,                                                          \
		  1000,                                                       \
		  NULL,                                                       \
		  "synthetic population: contacts per pupil in the school "   \
		  "layer" },                                                  \
		{ "work_contacts",                                            \
		  WEFT_KEY_INT,                                               \
		  "16",                                                       \
		  0,                                                          \
		  1000,                                                       \
		  NULL,                                                       \
		  "synthetic population: contacts per worker in the work "    \
		  "layer" },                                                  \
		{ "community_contacts",                                       \
		  WEFT_KEY_INT,                                               \
		  "20",                                                       \
		  0,                                                          \
		  1000,                                                       \
		  NULL,                                                       \
		  "synthetic population: contacts per agent in the "          \
		  "community layer" },                                        \
		{ "community_daily",                                          \
		  WEFT_KEY_BOOL,                                              \
		  "false",                                                    \
		  0,                                                          \
		  0,                                                          \
		  NULL,                                                       \
		  "draw community contacts afresh every day on the device "   \
		  "instead of storing a fixed layer" },                       \
		{ "beta_home",                                                \
		  WEFT_KEY_REAL,                                              \
		  "3.0",                                                      \
		  0,                                                          \
		  15,                                                         \
		  NULL,                                                       \
		  "relative transmission weight of the home layer" },         \
		{ "beta_school",                                              \
		  WEFT_KEY_REAL,                                              \
		  "0.6",                                                      \
		  0,                                                          \
		  15,                                                         \
		  NULL,                                                       \
		  "relative transmission weight of the school layer" },       \
		{ "beta_work",                                                \
		  WEFT_KEY_REAL,                                              \
		  "0.6",                                                      \
		  0,                                                          \
		  15,                                                         \
		  NULL,                                                       \
		  "relative transmission weight of the work layer" },         \
		{ "beta_community",                                           \
		  WEFT_KEY_REAL,                                              \
		  "1.0",                                                      \
		  0,                                                          \
		  15,                                                         \
		  NULL,                                                       \
		  "relative transmission weight of the community layer" },    \
		{ "agents_file",                                              \
		  WEFT_KEY_STRING,                                            \
		  "",                                                         \
		  0,                                                          \
		  0,                                                          \
		  NULL,                                                       \
		  "csv population: agents (id, age)" },                       \
		{ "edges_file",                                               \
		  WEFT_KEY_STRING,                                            \
		  "",                                                         \
		  0,                                                          \
		  0,                                                          \
		  NULL,                                                       \
		  "csv population: contacts (a, b, layer[, weight])" },       \
	{                                                                     \
		"duplicate_edges", WEFT_KEY_ENUM, "error", 0, 0,              \
			"error|merge",                                        \
			"csv population: what a repeated contact is"          \
	}

#endif /* SEIR_POPULATION_KEYS_H */
