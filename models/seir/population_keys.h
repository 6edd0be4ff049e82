/*
 * models/seir/population_keys.h - the [seir] keys of the population
 * (population.h), as weft_key_desc initializers for the start of the SEIR
 * model's key table:
 *
 *   static const weft_key_desc seir_keys[] = { SEIR_POPULATION_KEYS, ... };
 *
 * The help texts end up in docs/config.md; models/seir/populations.md explains
 * the defaults and their sources.
 */
#ifndef WEFT_SEIR_POPULATION_KEYS_H
#define WEFT_SEIR_POPULATION_KEYS_H

/* US 2020 Census, 10-year age bins (percent of residents, rounded). */
#define SEIR_POP_DEFAULT_AGES                                        \
	"0-9:11.8, 10-19:13.1, 20-29:13.1, 30-39:13.4, 40-49:12.2, " \
	"50-59:12.8, 60-69:11.8, 70-79:7.3, 80-99:3.8"
/* US households by size, Current Population Survey 2020 (percent of
 * households; 7 or more spread over 7-9). */
#define SEIR_POP_DEFAULT_HOUSEHOLDS \
	"1:28.2, 2:34.9, 3:15.1, 4:12.6, 5:5.7, 6:2.2, 7-9:1.3"
/* US establishments by employment size class, County Business Patterns
 * (percent of establishments, rounded). */
#define SEIR_POP_DEFAULT_WORKPLACES                              \
	"1-4:54.4, 5-9:18.9, 10-19:12.6, 20-49:8.8, 50-99:2.9, " \
	"100-249:1.7, 250-499:0.4, 500-999:0.2, 1000-4999:0.1"

/* One weft_key_desc initializer. */
#define SEIR_POP_KEY(name, type, def, min, max, choices, help) \
	{                                                      \
		name, type, def, min, max, choices, help       \
	}

#define SEIR_POP_K_POPULATION                                            \
	SEIR_POP_KEY("population", WEFT_KEY_ENUM, "synthetic", 0, 0,     \
		     "synthetic|random|csv",                             \
		     "where the agents and their contacts come from: "   \
		     "synthetic (households, schools, workplaces and a " \
		     "community layer, close to Covasim's hybrid "       \
		     "population), random (one random contact graph of " \
		     "mean degree `contacts`, stored as the community "  \
		     "layer) or csv (agents_file and edges_file); see "  \
		     "models/seir/populations.md")
#define SEIR_POP_K_AGENTS                                                  \
	SEIR_POP_KEY("agents", WEFT_KEY_INT, "37518", 1, 2000000000, NULL, \
		     "number of agents (synthetic and random); with "      \
		     "population = csv, one per row of agents_file: when " \
		     "set, the file must hold exactly that many, and a "   \
		     "row past them is refused at its line")
#define SEIR_POP_K_SEED                                             \
	SEIR_POP_KEY("population_seed", WEFT_KEY_INT, "0", 0,       \
		     9007199254740991.0, NULL,                      \
		     "seed of the population; 0 uses [simulation] " \
		     "seed, so ensembles over seeds can share one " \
		     "population by setting it")
#define SEIR_POP_K_CONTACTS                                           \
	SEIR_POP_KEY("contacts", WEFT_KEY_INT, "10", 0, 1000, NULL,   \
		     "population = random: mean contacts per agent; " \
		     "each agent draws round(P / 2) partners, P "     \
		     "Poisson of mean contacts (Covasim's random "    \
		     "layer), repeated pairs merged")
#define SEIR_POP_K_AGES                                                    \
	SEIR_POP_KEY("ages", WEFT_KEY_STRING, SEIR_POP_DEFAULT_AGES, 0, 0, \
		     NULL,                                                 \
		     "age distribution (synthetic): comma-separated "      \
		     "LO-HI:WEIGHT bins of ages in years (0-120), "        \
		     "uniform within a bin, weights relative; default: "   \
		     "US 2020 Census")
#define SEIR_POP_K_HOUSEHOLDS                                           \
	SEIR_POP_KEY("household_sizes", WEFT_KEY_STRING,                \
		     SEIR_POP_DEFAULT_HOUSEHOLDS, 0, 0, NULL,           \
		     "household size distribution (synthetic): "        \
		     "SIZE:WEIGHT or LO-HI:WEIGHT bins (sizes 1-100), " \
		     "weights relative, per household; everyone in a "  \
		     "household is in contact (home layer); default: "  \
		     "US Current Population Survey 2020")
#define SEIR_POP_K_SCHOOL_MIN                                           \
	SEIR_POP_KEY("school_age_min", WEFT_KEY_INT, "6", 0, 120, NULL, \
		     "youngest age (years) in the school layer "        \
		     "(Covasim: 6)")
#define SEIR_POP_K_SCHOOL_MAX                                            \
	SEIR_POP_KEY("school_age_max", WEFT_KEY_INT, "21", 0, 120, NULL, \
		     "oldest age (years) in the school layer (Covasim: " \
		     "under 22)")
#define SEIR_POP_K_SCHOOL_SIZE                                             \
	SEIR_POP_KEY("school_size", WEFT_KEY_INT, "100", 0, 1000000, NULL, \
		     "agents per school group (synthetic): the "           \
		     "school-age agents, sorted by age, are cut into "     \
		     "groups of about this size (one grade of a "          \
		     "school); 0: one group of them all (Covasim's "       \
		     "hybrid)")
#define SEIR_POP_K_SCHOOL_CONTACTS                                         \
	SEIR_POP_KEY("school_contacts", WEFT_KEY_INT, "20", 0, 1000, NULL, \
		     "mean contacts per agent within a school group "      \
		     "(Covasim's hybrid: 20); a group of at most "         \
		     "school_contacts + 1 agents is a clique")
#define SEIR_POP_K_WORK_MIN                                              \
	SEIR_POP_KEY("work_age_min", WEFT_KEY_INT, "22", 0, 120, NULL,   \
		     "youngest age (years) in the work layer (Covasim: " \
		     "22)")
#define SEIR_POP_K_WORK_MAX                                            \
	SEIR_POP_KEY("work_age_max", WEFT_KEY_INT, "64", 0, 120, NULL, \
		     "oldest age (years) in the work layer (Covasim: " \
		     "under 65)")
#define SEIR_POP_K_WORKPLACES                                         \
	SEIR_POP_KEY("workplace_sizes", WEFT_KEY_STRING,              \
		     SEIR_POP_DEFAULT_WORKPLACES, 0, 0, NULL,         \
		     "workplace size distribution (synthetic): "      \
		     "LO-HI:WEIGHT bins of sizes in agents "          \
		     "(1-1000000), weights relative, per workplace, " \
		     "or all: one workplace of everyone (Covasim's "  \
		     "hybrid); everyone of working age works; "       \
		     "default: US County Business Patterns")
#define SEIR_POP_K_WORK_CONTACTS                                         \
	SEIR_POP_KEY("work_contacts", WEFT_KEY_INT, "16", 0, 1000, NULL, \
		     "mean contacts per agent within a workplace "       \
		     "(Covasim's hybrid: 16); a workplace of at most "   \
		     "work_contacts + 1 agents is a clique")
#define SEIR_POP_K_COMMUNITY                                                  \
	SEIR_POP_KEY("community_contacts", WEFT_KEY_INT, "20", 0, 1000, NULL, \
		     "mean community contacts per agent (Covasim "            \
		     "hybrid: 20), between any two agents: per day "          \
		     "when community_daily, else the mean degree of "         \
		     "the stored community layer")
#define SEIR_POP_K_DAILY                                                    \
	SEIR_POP_KEY("community_daily", WEFT_KEY_BOOL, "false", 0, 0, NULL, \
		     "draw the community contacts (community_contacts; "    \
		     "contacts for population = random) anew every day on " \
		     "the device instead of storing a fixed layer, as "     \
		     "Covasim's dynamic layers do; saves 8 bytes per "      \
		     "contact")
#define SEIR_POP_K_BETA_HOME                                           \
	SEIR_POP_KEY("beta_home", WEFT_KEY_REAL, "3.0", 0, 1000, NULL, \
		     "relative transmission weight of the home layer " \
		     "(Covasim's hybrid beta_layer h: 3.0)")
#define SEIR_POP_K_BETA_SCHOOL                                           \
	SEIR_POP_KEY("beta_school", WEFT_KEY_REAL, "0.6", 0, 1000, NULL, \
		     "relative transmission weight of the school layer " \
		     "(Covasim's hybrid beta_layer s: 0.6)")
#define SEIR_POP_K_BETA_WORK                                           \
	SEIR_POP_KEY("beta_work", WEFT_KEY_REAL, "0.6", 0, 1000, NULL, \
		     "relative transmission weight of the work layer " \
		     "(Covasim's hybrid beta_layer w: 0.6)")
#define SEIR_POP_K_BETA_COMMUNITY                                           \
	SEIR_POP_KEY("beta_community", WEFT_KEY_REAL, "0.3", 0, 1000, NULL, \
		     "relative transmission weight of the community "       \
		     "layer (Covasim's hybrid beta_layer c: 0.3); "         \
		     "population = random gives its single layer "          \
		     "weight 1 whatever the beta_* keys say")
#define SEIR_POP_K_AGENTS_FILE                                          \
	SEIR_POP_KEY("agents_file", WEFT_KEY_STRING, "", 0, 0, NULL,    \
		     "population = csv: the agents, columns id, age "   \
		     "and optionally household, school, work, under a " \
		     "header row, lines of at most 4096 bytes; a "      \
		     "relative path is taken from the INI file's "      \
		     "directory")
#define SEIR_POP_K_EDGES_FILE                                        \
	SEIR_POP_KEY("edges_file", WEFT_KEY_STRING, "", 0, 0, NULL,  \
		     "population = csv: optional contacts, columns " \
		     "source, target, layer and optionally weight, " \
		     "under a header row, lines of at most 4096 "    \
		     "bytes; a relative path is taken from the INI " \
		     "file's directory")
#define SEIR_POP_K_DUPLICATES                                          \
	SEIR_POP_KEY("duplicate_edges", WEFT_KEY_ENUM, "merge", 0, 0,  \
		     "merge|error",                                    \
		     "a pair listed more than once in edges_file (in " \
		     "either direction, in the same layer): merge "    \
		     "keeps one edge with the largest weight, error "  \
		     "rejects the file naming both lines")

#define SEIR_POP_K_HOUSEHOLD_MAX                                             \
	SEIR_POP_KEY("household_max", WEFT_KEY_INT, "1000", 1, 100000, NULL, \
		     "population = csv: the most members a household of "    \
		     "agents_file may have (a household is a clique: s "     \
		     "members store s (s - 1) contacts); a larger one is "   \
		     "refused at the line of its first member past the "     \
		     "limit")

/* Every key, in the order of docs/config.md. */
#define SEIR_POPULATION_KEYS                                                  \
	SEIR_POP_K_POPULATION, SEIR_POP_K_AGENTS, SEIR_POP_K_SEED,            \
		SEIR_POP_K_CONTACTS, SEIR_POP_K_AGES, SEIR_POP_K_HOUSEHOLDS,  \
		SEIR_POP_K_SCHOOL_MIN, SEIR_POP_K_SCHOOL_MAX,                 \
		SEIR_POP_K_SCHOOL_SIZE, SEIR_POP_K_SCHOOL_CONTACTS,           \
		SEIR_POP_K_WORK_MIN, SEIR_POP_K_WORK_MAX,                     \
		SEIR_POP_K_WORKPLACES, SEIR_POP_K_WORK_CONTACTS,              \
		SEIR_POP_K_COMMUNITY, SEIR_POP_K_DAILY, SEIR_POP_K_BETA_HOME, \
		SEIR_POP_K_BETA_SCHOOL, SEIR_POP_K_BETA_WORK,                 \
		SEIR_POP_K_BETA_COMMUNITY, SEIR_POP_K_AGENTS_FILE,            \
		SEIR_POP_K_EDGES_FILE, SEIR_POP_K_DUPLICATES,                 \
		SEIR_POP_K_HOUSEHOLD_MAX

#endif /* WEFT_SEIR_POPULATION_KEYS_H */
