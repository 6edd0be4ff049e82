/*
 * models/seir/waning_keys.h - the [seir] keys of waning immunity and
 * reinfection (waning.c; Covasim 3.1's use_waning, its defaults from
 * covasim/parameters.py make_pars), for the end of the SEIR model's key
 * table (initializers by population_keys.h's SEIR_POP_KEY).
 */
#ifndef WEFT_SEIR_WANING_KEYS_H
#define WEFT_SEIR_WANING_KEYS_H

#include "population_keys.h"

#define SEIR_WANING_KEYS                                                       \
	SEIR_POP_KEY("waning", WEFT_KEY_BOOL, "false", 0, 0, NULL,             \
		     "waning immunity and reinfection as Covasim's "           \
		     "use_waning for one variant: recovered agents become "    \
		     "susceptible again, protected by neutralising "           \
		     "antibodies that rise and wane (models/seir/seir.md); "   \
		     "false: infected once (Covasim's use_waning=False)"),     \
		SEIR_POP_KEY("nab_init", WEFT_KEY_STRING, "0, 2", 0, 0, NULL,  \
			     "with waning: mean and standard deviation of "    \
			     "log2 of the peak NAb level after a first "       \
			     "infection, a normal law (Covasim nab_init)"),    \
		SEIR_POP_KEY("nab_decay", WEFT_KEY_STRING,                     \
			     "21, 0.0138629436, 150, 0.0027725887, 365", 0, 0, \
			     NULL,                                             \
			     "with waning: NAb kinetics, Covasim's "           \
			     "nab_growth_decay: growth_time (days), "          \
			     "decay_rate1, decay_time1, decay_rate2, "         \
			     "decay_time2 (Covasim nab_decay: ln 2 / 50, "     \
			     "ln 2 / 250)"),                                   \
		SEIR_POP_KEY("nab_boost", WEFT_KEY_REAL, "1.5", 1, 100, NULL,  \
			     "with waning: factor on the peak NAb level at "   \
			     "each reinfection (Covasim nab_boost)"),          \
		SEIR_POP_KEY("nab_eff", WEFT_KEY_STRING,                       \
			     "1.08, 1.812, 0.967, -0.739, 0.038, -0.014, "     \
			     "0.079",                                          \
			     0, 0, NULL,                                       \
			     "with waning: NAbs to efficacy (Covasim "         \
			     "nab_eff): alpha_inf, alpha_inf_diff, "           \
			     "beta_inf, alpha_symp_inf, beta_symp_inf, "       \
			     "alpha_sev_symp, beta_sev_symp"),                 \
		SEIR_POP_KEY("rel_imm_symp", WEFT_KEY_STRING, "0.85, 1, 1.5",  \
			     0, 0, NULL,                                       \
			     "with waning: relative initial NAbs after an "    \
			     "asymptomatic, mild and severe first infection "  \
			     "(Covasim rel_imm_symp)"),                        \
		SEIR_POP_KEY("trans_redux", WEFT_KEY_REAL, "0.59", 0, 1, NULL, \
			     "with waning: transmissibility of an agent "      \
			     "from its first reinfection on (Covasim "         \
			     "trans_redux)"),                                  \
		SEIR_POP_KEY(                                                  \
			"variants", WEFT_KEY_STRING, "", 0, 0, NULL,           \
			"with waning: variants imported on their days, "       \
			"as Covasim's cv.variant: entries 'variant=LABEL "     \
			"day=D imports=N' separated by commas, with "          \
			"optional rel_beta, rel_symp_prob, "                   \
			"rel_severe_prob, rel_crit_prob, rel_death_prob, "     \
			"and patch=P (with patch_file: the imports drawn "     \
			"among patch P's agents); "                            \
			"alpha, beta, gamma and delta take Covasim's "         \
			"get_variant_pars and get_cross_immunity, other "      \
			"labels 1 (models/seir/seir.md); empty: the "          \
			"seeds' variant alone"),                               \
		SEIR_POP_KEY("variant_immunity", WEFT_KEY_STRING, "", 0, 0,    \
			     NULL,                                             \
			     "with variants: Covasim's immunity matrix, rows " \
			     "by the new infection's variant, columns by the " \
			     "last one's (wild first, then the variants in "   \
			     "order), rows separated by ';' and values by "    \
			     "','; empty: Covasim's get_cross_immunity, 1 "    \
			     "for other labels")

#endif /* WEFT_SEIR_WANING_KEYS_H */
