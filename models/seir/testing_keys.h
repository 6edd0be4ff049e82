/*
 * models/seir/testing_keys.h - the [seir] keys of testing, contact
 * tracing and quarantine (testing.c; Covasim's test_prob and
 * contact_tracing, their defaults), for the end of the SEIR model's key
 * table (initializers by population_keys.h's SEIR_POP_KEY).
 */
#ifndef WEFT_SEIR_TESTING_KEYS_H
#define WEFT_SEIR_TESTING_KEYS_H

#include "population_keys.h"

#define SEIR_TESTING_KEYS                                                      \
	SEIR_POP_KEY("test_daily", WEFT_KEY_INT, "0", 0, 2000000000, NULL,     \
		     "testing by number: tests a day, to agents "              \
		     "chosen without replacement by their odds "               \
		     "(Covasim test_num daily_tests; not with "                \
		     "the test_*_prob keys); 0: none"),                        \
		SEIR_POP_KEY("test_symp_odds", WEFT_KEY_REAL, "100", 0, 1000,  \
			     NULL,                                             \
			     "testing by number: odds of a symptomatic "       \
			     "agent to be tested, relative to others "         \
			     "(Covasim test_num symp_test)"),                  \
		SEIR_POP_KEY("test_quar_odds", WEFT_KEY_REAL, "1", 0, 1000,    \
			     NULL,                                             \
			     "testing by number: odds of an agent on "         \
			     "the day after it entered quarantine "            \
			     "(Covasim test_num quar_test)"),                  \
		SEIR_POP_KEY("test_symp_prob", WEFT_KEY_REAL, "0", 0, 1, NULL, \
			     "testing: daily probability that a "              \
			     "symptomatic agent not yet diagnosed is "         \
			     "tested (Covasim test_prob symp_prob); "          \
			     "testing is on when this or another "             \
			     "test_*_prob is above 0"),                        \
		SEIR_POP_KEY("test_asymp_prob", WEFT_KEY_REAL, "0", 0, 1,      \
			     NULL,                                             \
			     "testing: daily probability that an agent"        \
			     " without symptoms is tested (Covasim "           \
			     "asymp_prob); above 0 the test kernel "           \
			     "runs over every agent, not the active "          \
			     "list"),                                          \
		SEIR_POP_KEY("test_symp_quar_prob", WEFT_KEY_REAL, "-1", -1,   \
			     1, NULL,                                          \
			     "testing: the probability for a "                 \
			     "symptomatic agent on the day after it "          \
			     "entered quarantine (Covasim "                    \
			     "symp_quar_prob, quar_policy 'start'); "          \
			     "-1: test_symp_prob"),                            \
		SEIR_POP_KEY("test_asymp_quar_prob", WEFT_KEY_REAL, "-1", -1,  \
			     1, NULL,                                          \
			     "testing: the probability for an agent "          \
			     "without symptoms on the day after it "           \
			     "entered quarantine (Covasim "                    \
			     "asymp_quar_prob); -1: test_asymp_prob"),         \
		SEIR_POP_KEY("test_sensitivity", WEFT_KEY_REAL, "1", 0, 1,     \
			     NULL,                                             \
			     "testing: probability that an infectious "        \
			     "agent tests positive (Covasim "                  \
			     "sensitivity)"),                                  \
		SEIR_POP_KEY("test_loss_prob", WEFT_KEY_REAL, "0", 0, 1, NULL, \
			     "testing: probability that a positive "           \
			     "test is lost to follow-up (never "               \
			     "diagnosed; Covasim loss_prob)"),                 \
		SEIR_POP_KEY("test_delay", WEFT_KEY_INT, "0", 0, 365, NULL,    \
			     "testing: days from a positive test to "          \
			     "the diagnosis (Covasim test_delay)"),            \
		SEIR_POP_KEY("test_start", WEFT_KEY_INT, "0", 0, 65000, NULL,  \
			     "testing: first day of testing (Covasim "         \
			     "start_day)"),                                    \
		SEIR_POP_KEY("test_end", WEFT_KEY_INT, "-1", -1, 65000, NULL,  \
			     "testing: last day of testing; -1: to the"        \
			     " end (Covasim end_day)"),                        \
		SEIR_POP_KEY("test_interventions", WEFT_KEY_STRING, "", 0, 0,  \
			     NULL,                                             \
			     "more testing interventions, after the "          \
			     "test_* keys' (Covasim's list of test_prob "      \
			     "and test_num): entries separated by "            \
			     "commas, each days=FIRST-LAST (or FIRST-) "       \
			     "and symp=, asymp=, symp_quar=, "                 \
			     "asymp_quar= (by probability) or daily=, "        \
			     "symp_odds=, quar_odds= (by number; one "         \
			     "in a run), with sensitivity=, loss=, "           \
			     "delay= (default: the test_* keys')"),            \
		SEIR_POP_KEY("diagnosed_factor", WEFT_KEY_STRING, "", 0, 0,    \
			     NULL,                                             \
			     "transmission left to a diagnosed agent, "        \
			     "who isolates from its diagnosis on "             \
			     "(Covasim iso_factor): one value, or four"        \
			     " for home, school, work, community, 0 to"        \
			     " 1; empty: isolation_factor on every "           \
			     "layer"),                                         \
		SEIR_POP_KEY("trace_probs", WEFT_KEY_STRING, "", 0, 0, NULL,   \
			     "contact tracing: probability that a "            \
			     "contact of an agent diagnosed that day "         \
			     "is traced (Covasim contact_tracing "             \
			     "trace_probs, whose default is 1), one "          \
			     "value or four for home, school, work, "          \
			     "community (stored layers only); empty: "         \
			     "no tracing"),                                    \
		SEIR_POP_KEY("trace_time", WEFT_KEY_STRING, "0", 0, 0, NULL,   \
			     "contact tracing: days from the diagnosis"        \
			     " to the traced contact's quarantine "            \
			     "(Covasim trace_time), one whole number "         \
			     "or four by layer, each below "                   \
			     "quar_period"),                                   \
		SEIR_POP_KEY("trace_start", WEFT_KEY_INT, "0", 0, 65000, NULL, \
			     "contact tracing: first day (Covasim "            \
			     "start_day)"),                                    \
		SEIR_POP_KEY("trace_end", WEFT_KEY_INT, "-1", -1, 65000, NULL, \
			     "contact tracing: last day; -1: to the "          \
			     "end (Covasim end_day)"),                         \
		SEIR_POP_KEY("quar_period", WEFT_KEY_INT, "14", 1, 1000, NULL, \
			     "days of quarantine from the diagnosis of"        \
			     " the contact who was traced (Covasim "           \
			     "quar_period)"),                                  \
		SEIR_POP_KEY("quar_factor", WEFT_KEY_STRING, "0.3", 0, 0,      \
			     NULL,                                             \
			     "transmission and susceptibility left to "        \
			     "an agent in quarantine (Covasim "                \
			     "quar_factor; 0.3 is its random "                 \
			     "population's, its hybrid one's is 0.6, "         \
			     "0.2, 0.2, 0.2): one value or four for "          \
			     "home, school, work, community, 0 to 1")

#endif
