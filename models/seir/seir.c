/* models/seir/seir.c - placeholder, being written. */
#include "internal.h"
#include "seir.h"

static const weft_key_desc seir_keys[] = {
	{"agents", WEFT_KEY_INT, "37518", 1, 2000000000, NULL,
	 "number of agents in the synthetic population"},
	{"contacts", WEFT_KEY_INT, "10", 0, 1000, NULL,
	 "mean number of contacts per agent (the contact layer is symmetric)"},
	{"beta", WEFT_KEY_REAL, "0.05", 0, 1, NULL,
	 "probability that an infectious agent infects one susceptible contact in one day"},
	{"latent_days", WEFT_KEY_INT, "3", 1, 255, NULL,
	 "days an exposed agent stays exposed before becoming infectious"},
	{"infectious_days", WEFT_KEY_INT, "5", 1, 255, NULL,
	 "days an infectious agent stays infectious before recovering"},
	{"initial_infected", WEFT_KEY_INT, "10", 0, 2000000000, NULL,
	 "agents infectious on day 0 (at most agents)"},
	{"population_seed", WEFT_KEY_INT, "0", 0, 9007199254740991.0, NULL,
	 "seed of the synthetic population; 0 uses [simulation] seed"},
};

const weft_model weft__model_seir = {
	.abi_version = WEFT_MODEL_ABI,
	.struct_size = sizeof(weft_model),
	.name = "seir",
	.summary = "SEIR epidemic on a synthetic contact network (CSR), integer-day timers",
	.keys = seir_keys,
	.n_keys = sizeof seir_keys / sizeof seir_keys[0],
};
