/*
 * models/seir/population.c - the population's parameters (the [seir]
 * keys of population_keys.h), the synthetic generator (households,
 * schools, workplaces, community) and the random graph.
 *
 * Every random choice is a Philox draw keyed by the population seed and
 * indexed by what it decides (agent, household, workplace, group and draw
 * number), made on one thread: the same parameters give the same
 * population byte for byte, on any machine, whatever the backend or
 * thread count of the run that uses it. models/seir/populations.md describes
 * the construction and its defaults.
 */

#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "population_build.h"
#include "population_keys.h"

static const weft_key_desc pop_keys[] = { SEIR_POPULATION_KEYS };
#define POP_N_KEYS (sizeof pop_keys / sizeof pop_keys[0])

/* ---- distributions ------------------------------------------------------ */

static const char *pop_skip(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* An unsigned integer of at most 9 digits at *p; 0 when there is none. */
static int pop_uint(const char **p, uint32_t *v)
{
	const char *s = pop_skip(*p);
	uint32_t x = 0, n = 0;

	for (; *s >= '0' && *s <= '9' && n < 10; s++, n++)
		x = x * 10 + (uint32_t)(*s - '0');
	if (n == 0 || n > 9)
		return 0;
	*v = x;
	*p = pop_skip(s);
	return 1;
}

/* One "LO-HI:W" or "V:W" bin ending at ',' or the end. */
static int pop_bin(const char **p, uint32_t *lo, uint32_t *hi, double *w)
{
	char *end;

	if (!pop_uint(p, lo))
		return 0;
	*hi = *lo;
	if (**p == '-') {
		(*p)++;
		if (!pop_uint(p, hi))
			return 0;
	}
	if (**p != ':')
		return 0;
	errno = 0;
	*w = strtod(*p + 1, &end);
	if (end == *p + 1 || errno || !(*w >= 0 && *w < 1e300))
		return 0;
	*p = pop_skip(end);
	return **p == ',' || **p == '\0';
}

static weft_status pop_bin_check(const seir_pop_bins *b, uint32_t min,
				 uint32_t max, int len, const char *item,
				 char *err, size_t err_size)
{
	uint32_t i = b->n;

	if (b->lo[i] > b->hi[i])
		snprintf(err, err_size, "'%.*s': %u is above %u", len, item,
			 b->lo[i], b->hi[i]);
	else if (b->lo[i] < min || b->hi[i] > max)
		snprintf(err, err_size, "'%.*s': values must lie in %u-%u", len,
			 item, min, max);
	else
		return WEFT_OK;
	return WEFT_E_CONFIG;
}

weft_status weft__seir_pop_bins_parse(const char *text, uint32_t min,
				      uint32_t max, seir_pop_bins *out,
				      char *err, size_t err_size)
{
	const char *p = text;
	double total = 0;

	memset(out, 0, sizeof *out);
	for (;;) {
		const char *item = pop_skip(p);
		uint32_t i = out->n;
		int len = (int)strcspn(item, ",");
		if (i == SEIR_POP_MAX_BINS) {
			snprintf(err, err_size, "more than %d bins",
				 SEIR_POP_MAX_BINS);
			return WEFT_E_CONFIG;
		}
		if (!pop_bin(&p, &out->lo[i], &out->hi[i], &out->w[i])) {
			snprintf(err, err_size,
				 "'%.*s' is not a bin LO-HI:WEIGHT or "
				 "VALUE:WEIGHT",
				 len, item);
			return WEFT_E_CONFIG;
		}
		if (pop_bin_check(out, min, max, len, item, err, err_size))
			return WEFT_E_CONFIG;
		total += out->w[out->n++];
		if (*p++ == '\0')
			break;
	}
	if (total > 0)
		return WEFT_OK;
	snprintf(err, err_size, "the weights sum to 0");
	return WEFT_E_CONFIG;
}

/* ---- parameters -------------------------------------------------------- */

/* The three distributions, with the values each may hold. */
static weft_status pop_set_bins(const char *key, const char *text,
				seir_pop_params *pp, char *err, size_t err_size)
{
	if (strcmp(key, "ages") == 0)
		return weft__seir_pop_bins_parse(text, 0, 120, &pp->ages, err,
						 err_size);
	if (strcmp(key, "household_sizes") == 0)
		return weft__seir_pop_bins_parse(
			text, 1, 100, &pp->household_sizes, err, err_size);
	pp->work_one_group = strcmp(text, "all") == 0;
	return weft__seir_pop_bins_parse(pp->work_one_group ? "1:1" : text, 1,
					 1000000, &pp->workplace_sizes, err,
					 err_size);
}

/* The field of an INT key, NULL for the others. */
static uint32_t *pop_int_field(seir_pop_params *pp, const char *key)
{
	static const struct {
		const char *key;
		size_t offset;
	} f[] = {
		{ "agents", offsetof(seir_pop_params, agents) },
		{ "contacts", offsetof(seir_pop_params, contacts) },
		{ "school_age_min", offsetof(seir_pop_params, school_age_min) },
		{ "school_age_max", offsetof(seir_pop_params, school_age_max) },
		{ "school_size", offsetof(seir_pop_params, school_size) },
		{ "school_contacts",
		  offsetof(seir_pop_params, school_contacts) },
		{ "work_age_min", offsetof(seir_pop_params, work_age_min) },
		{ "work_age_max", offsetof(seir_pop_params, work_age_max) },
		{ "work_contacts", offsetof(seir_pop_params, work_contacts) },
		{ "community_contacts",
		  offsetof(seir_pop_params, community_contacts) },
		{ "household_max", offsetof(seir_pop_params, household_max) },
	};
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		if (strcmp(key, f[i].key) == 0)
			return (uint32_t *)((char *)pp + f[i].offset);
	return NULL;
}

/* ENUM and STRING keys. */
static weft_status pop_set_text(const char *key, const char *text,
				seir_pop_params *pp, char *err, size_t err_size)
{
	char *dst = strcmp(key, "agents_file") == 0  ? pp->agents_file
		    : strcmp(key, "edges_file") == 0 ? pp->edges_file
						     : NULL;
	if (strcmp(key, "population") == 0)
		pp->kind = strcmp(text, "random") == 0 ? SEIR_POP_RANDOM
			   : strcmp(text, "csv") == 0  ? SEIR_POP_CSV
						       : SEIR_POP_SYNTHETIC;
	else if (strcmp(key, "duplicate_edges") == 0)
		pp->duplicate_error = strcmp(text, "error") == 0;
	else if (dst)
		snprintf(dst, SEIR_POP_PATH_MAX, "%s", text);
	else
		return pop_set_bins(key, text, pp, err, err_size);
	return WEFT_OK;
}

/* One key's value (already validated by the configuration) into pp; INT
 * and BOOL keys come as iv, REAL as rv, the others as text. */
static weft_status pop_set(const weft_key_desc *d, int64_t iv, double rv,
			   const char *text, seir_pop_params *pp, char *err,
			   size_t err_size)
{
	static const char *const beta[SEIR_MAX_LAYERS] = {
		"beta_home", "beta_school", "beta_work", "beta_community"
	};
	uint32_t *field = pop_int_field(pp, d->name);

	if (strcmp(d->name, "population_seed") == 0)
		pp->seed = (uint64_t)iv;
	else if (strcmp(d->name, "community_daily") == 0)
		pp->community_daily = iv != 0;
	else if (field)
		*field = (uint32_t)iv;
	else if (d->type == WEFT_KEY_REAL)
		for (int l = 0; l < SEIR_MAX_LAYERS; l++)
			if (strcmp(d->name, beta[l]) == 0)
				pp->layer_beta[l] = rv;
	if (d->type == WEFT_KEY_STRING || d->type == WEFT_KEY_ENUM)
		return pop_set_text(d->name, text, pp, err, err_size);
	return WEFT_OK;
}

void weft__seir_population_defaults(seir_pop_params *pp)
{
	char err[256];

	memset(pp, 0, sizeof *pp);
	for (size_t i = 0; i < POP_N_KEYS; i++) {
		const weft_key_desc *d = &pop_keys[i];
		int64_t iv = d->type == WEFT_KEY_BOOL
				     ? strcmp(d->def, "true") == 0
				     : strtoll(d->def, NULL, 10);
		/* The defaults are valid: tests/models/test-population.c checks
		 * that they parse. */
		(void)pop_set(d, iv, strtod(d->def, NULL), d->def, pp, err,
			      sizeof err);
	}
	snprintf(pp->agents_where, sizeof pp->agents_where, "default");
}

/* A relative path is taken from the directory of the INI file that set
 * the key (where = "DIR/FILE.ini:LINE"), else from the current one. */
int weft__seir_pop_resolve(char *path, const char *where)
{
	char tmp[SEIR_POP_PATH_MAX];
	const char *colon = where ? strrchr(where, ':') : NULL, *slash;

	if (!path[0] || path[0] == '/' || !colon || colon == where ||
	    !colon[1] || strspn(colon + 1, "0123456789") != strlen(colon + 1))
		return 1;
	for (slash = colon; slash > where && slash[-1] != '/'; slash--)
		;
	if (slash == where)
		return 1;
	if ((size_t)snprintf(tmp, sizeof tmp, "%.*s%s", (int)(slash - where),
			     where, path) >= sizeof tmp)
		return 0;
	memcpy(path, tmp, sizeof tmp);
	return 1;
}

static weft_status pop_check(weft_model_ctx *mc, seir_pop_params *pp)
{
	if (pp->school_age_min > pp->school_age_max)
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"%s: school_age_min = %u is above school_age_max = %u "
			"(%s)",
			weft_model_where(mc, "school_age_min"),
			pp->school_age_min, pp->school_age_max,
			weft_model_where(mc, "school_age_max"));
	if (pp->work_age_min > pp->work_age_max)
		return weft_model_fail(
			mc, WEFT_E_CONFIG,
			"%s: work_age_min = %u is above work_age_max = %u (%s)",
			weft_model_where(mc, "work_age_min"), pp->work_age_min,
			pp->work_age_max, weft_model_where(mc, "work_age_max"));
	if (pp->kind == SEIR_POP_CSV && !pp->agents_file[0])
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "%s: population = csv needs agents_file",
				       weft_model_where(mc, "population"));
	if (!weft__seir_pop_resolve(pp->agents_file,
				    weft_model_where(mc, "agents_file")) ||
	    !weft__seir_pop_resolve(pp->edges_file,
				    weft_model_where(mc, "edges_file")))
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "a population file's path is longer "
				       "than %d bytes",
				       SEIR_POP_PATH_MAX - 1);
	return WEFT_OK;
}

weft_status weft__seir_population_params(weft_model_ctx *mc,
					 seir_pop_params *pp, int network)
{
	char err[512];
	weft_status st;

	memset(pp, 0, sizeof *pp);
	pp->mc = mc;
	for (size_t i = 0; i < POP_N_KEYS; i++) {
		const weft_key_desc *d = &pop_keys[i];
		const char *text = weft_model_string(mc, d->name);
		int64_t iv = d->type == WEFT_KEY_BOOL
				     ? weft_model_bool(mc, d->name)
				     : weft_model_int(mc, d->name);
		if (pop_set(d, iv, weft_model_real(mc, d->name), text, pp, err,
			    sizeof err))
			return weft_model_fail(mc, WEFT_E_CONFIG,
					       "%s: [seir] %s = %s: %s",
					       weft_model_where(mc, d->name),
					       d->name, text, err);
	}
	if (pp->seed == 0)
		pp->seed = weft_model_seed(mc);
	pp->agents_declared =
		strcmp(weft_model_where(mc, "agents"), "default") != 0;
	snprintf(pp->agents_where, sizeof pp->agents_where, "%s",
		 weft_model_where(mc, "agents"));
	if ((st = pop_check(mc, pp)))
		return st;
	return weft__seir_patches_params(mc, pp, network);
}

/* ---- the synthetic population -------------------------------------------- */

static void pop_ages(const seir_pop_params *pp, uint32_t n, uint8_t *age)
{
	seir_pop_sampler s;

	weft__pop_sampler_init(&s, &pp->ages);
	for (uint32_t i = 0; i < n; i++) {
		weft_rand4 r =
			weft__pop_draw(pp->seed, i, 0, 0, SEIR_POP_P_AGE);
		age[i] = (uint8_t)weft__pop_sample(&s, r.v[0], r.v[1]);
	}
}

/* Cut count agents into groups of sizes drawn from bins (purpose keyed by
 * group number), a group cut short where a patch ends (ends: the end of
 * each patch of n_ends, ascending; NULL: one patch of count); start gets
 * n_groups + 1 entries (room for count + n_ends + 1). */
static uint32_t pop_cut(const seir_pop_bins *bins, uint64_t seed,
			uint32_t purpose, uint32_t count, const uint32_t *ends,
			uint32_t n_ends, uint32_t *start)
{
	seir_pop_sampler s;
	uint32_t g = 0, at = 0, e = 0;

	weft__pop_sampler_init(&s, bins);
	while (at < count) {
		weft_rand4 r = weft__pop_draw(seed, g, 0, 0, purpose);
		uint32_t size = weft__pop_sample(&s, r.v[0], r.v[1]), end;

		while (ends && e < n_ends && ends[e] <= at)
			e++;
		end = ends && e < n_ends ? ends[e] : count;
		start[g++] = at;
		at = size < end - at ? at + size : end;
	}
	start[g] = count;
	return g;
}

/* The agents first..end - 1 aged lo..hi, by age then index (a counting
 * sort). */
static uint32_t pop_by_age(const uint8_t *age, uint32_t first, uint32_t end,
			   uint32_t lo, uint32_t hi, uint32_t *out)
{
	uint32_t at[122] = { 0 }, count = 0;

	for (uint32_t i = first; i < end; i++)
		if (age[i] >= lo && age[i] <= hi)
			at[age[i] + 1]++;
	for (uint32_t a = 0; a <= 120; a++)
		at[a + 1] += at[a];
	for (uint32_t i = first; i < end; i++)
		if (age[i] >= lo && age[i] <= hi) {
			out[at[age[i]]++] = i;
			count++;
		}
	return count;
}

/* Fisher-Yates, the i-th swap keyed by i and the patch. */
static void pop_shuffle(uint64_t seed, uint32_t patch, uint32_t *v,
			uint32_t count)
{
	for (uint32_t i = count; i > 1; i--) {
		weft_rand4 r = weft__pop_draw(seed, i - 1, patch, 0,
					      SEIR_POP_P_SHUFFLE);
		uint32_t j = weft__pop_below(r.v[0], i), t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
}

/* Scratch arrays of the synthetic build. */
typedef struct pop_scratch {
	uint32_t *member; /* school or work members */
	uint32_t *start;  /* group offsets, n + patches + 2 entries */
	uint32_t *ends;	  /* workers up to each patch's end */
} pop_scratch;

static weft_status pop_groups_layer(const seir_pop_params *pp,
				    seir_population *pop, int layer,
				    seir_pop_groups *gr, char *err,
				    size_t err_size)
{
	static const char *const names[SEIR_MAX_LAYERS] = { "home", "school",
							    "work",
							    "community" };
	weft_status st;

	gr->seed = pp->seed;
	gr->purpose = SEIR_POP_P_EDGES + (uint32_t)layer;
	if ((st = weft__pop_groups_check(gr, names[layer], err, err_size)))
		return st;
	return weft__pop_layer_build(pp->mc, pop->n_agents,
				     weft__pop_gen_groups, gr, 0, names[layer],
				     &pop->layer[layer], err, err_size);
}

static weft_status pop_home(const seir_pop_params *pp, seir_population *pop,
			    pop_scratch *sc, char *err, size_t err_size)
{
	const seir_patches *pt = &pp->patches;
	seir_pop_groups gr = { 0 };

	gr.n_groups = pop_cut(&pp->household_sizes, pp->seed,
			      SEIR_POP_P_HOUSEHOLD, pop->n_agents,
			      pt->n ? pt->start + 1 : NULL, pt->n, sc->start);
	gr.start = sc->start;
	gr.clique = 1;
	return pop_groups_layer(pp, pop, SEIR_L_HOME, &gr, err, err_size);
}

/* The agents of patch q: first..*end - 1 (everyone without patches). */
static uint32_t pop_patch(const seir_pop_params *pp, uint32_t q, uint32_t *end)
{
	const seir_patches *pt = &pp->patches;

	*end = pt->n ? pt->start[q + 1] : pp->agents;
	return pt->n ? pt->start[q] : 0;
}

/* School-age agents by age, in groups of about school_size, within each
 * patch. */
static weft_status pop_school(const seir_pop_params *pp, seir_population *pop,
			      pop_scratch *sc, char *err, size_t err_size)
{
	seir_pop_groups gr = { 0 };
	uint32_t P = pp->patches.n ? pp->patches.n : 1, count = 0, g = 0;

	for (uint32_t q = 0; q < P; q++) {
		uint32_t end, first = pop_patch(pp, q, &end);
		uint32_t c =
			pop_by_age(pop->age, first, end, pp->school_age_min,
				   pp->school_age_max, sc->member + count);
		/* school_size 0: one school of everyone, as Covasim's
		 * hybrid. */
		uint32_t gq = pp->school_size
				      ? (uint32_t)((c + pp->school_size / 2) /
						   pp->school_size)
				      : 1;

		if (gq == 0 || c == 0)
			gq = c ? 1 : 0;
		for (uint32_t j = 0; j < gq; j++)
			sc->start[g + j] =
				count + (uint32_t)((uint64_t)j * c / gq);
		g += gq;
		count += c;
	}
	sc->start[g] = count;
	gr.n_groups = g;
	gr.start = sc->start;
	gr.member = sc->member;
	gr.contacts = pp->school_contacts;
	return pop_groups_layer(pp, pop, SEIR_L_SCHOOL, &gr, err, err_size);
}

/* Working-age agents of each patch in random order, cut into
 * workplaces. */
static weft_status pop_work(const seir_pop_params *pp, seir_population *pop,
			    pop_scratch *sc, char *err, size_t err_size)
{
	seir_pop_groups gr = { 0 };
	uint32_t P = pp->patches.n ? pp->patches.n : 1, count = 0;

	for (uint32_t q = 0; q < P; q++) {
		uint32_t end, first = pop_patch(pp, q, &end), c = count;

		for (uint32_t i = first; i < end; i++)
			if (pop->age[i] >= pp->work_age_min &&
			    pop->age[i] <= pp->work_age_max)
				sc->member[count++] = i;
		pop_shuffle(pp->seed, q, sc->member + c, count - c);
		sc->ends[q] = count;
	}
	gr.n_groups =
		pop_cut(&pp->workplace_sizes, pp->seed, SEIR_POP_P_WORKPLACE,
			count, sc->ends, P, sc->start);
	if (pp->work_one_group) { /* one workplace a patch, as Covasim's
				   * hybrid */
		gr.n_groups = 0;
		for (uint32_t q = 0; q < P; q++)
			if (sc->ends[q] > (q ? sc->ends[q - 1] : 0)) {
				sc->start[gr.n_groups++] =
					q ? sc->ends[q - 1] : 0;
				sc->start[gr.n_groups] = sc->ends[q];
			}
	}
	gr.start = sc->start;
	gr.member = sc->member;
	gr.contacts = pp->work_contacts;
	return pop_groups_layer(pp, pop, SEIR_L_WORK, &gr, err, err_size);
}

/* A random graph of mean degree `contacts` over everyone, or with
 * patches over each patch, contacts crossing patches along the network
 * (seir_pop_groups' mix). */
static void pop_random_groups(const seir_pop_params *pp, uint32_t contacts,
			      uint32_t *start, seir_pop_groups *gr)
{
	const seir_patches *pt = &pp->patches;

	gr->contacts = contacts;
	if (pt->n > 1) {
		gr->n_groups = pt->n;
		gr->start = pt->start;
		gr->mix = pt->cum ? pt : NULL;
		return;
	}
	start[0] = 0;
	start[1] = pp->agents;
	gr->n_groups = 1;
	gr->start = start;
}

/* Synthetic and csv: drawn daily on the device, or stored as a random
 * graph over everyone with mean degree community_contacts. */
static weft_status pop_community(const seir_pop_params *pp,
				 seir_population *pop, char *err,
				 size_t err_size)
{
	uint32_t start[2];
	seir_pop_groups gr = { 0 };

	if (pp->community_daily) {
		pop->community_daily = pp->community_contacts;
		return weft__pop_layer_empty(pop->n_agents,
					     &pop->layer[SEIR_L_COMMUNITY], err,
					     err_size);
	}
	pop_random_groups(pp, pp->community_contacts, start, &gr);
	return pop_groups_layer(pp, pop, SEIR_L_COMMUNITY, &gr, err, err_size);
}

static weft_status pop_nomem(char *err, size_t err_size, uint64_t bytes)
{
	snprintf(err, err_size,
		 "cannot allocate %llu bytes of host memory for the "
		 "population",
		 (unsigned long long)bytes);
	return WEFT_E_NOMEM;
}

static weft_status pop_synthetic(const seir_pop_params *pp,
				 seir_population *pop, char *err,
				 size_t err_size)
{
	uint32_t n = pp->agents;
	pop_scratch sc;
	weft_status st;

	pop->n_agents = n;
	pop->age = malloc(n ? n : 1);
	sc.member = malloc(((size_t)n + 1) * sizeof *sc.member);
	sc.start = malloc(((size_t)n + pp->patches.n + 2) * sizeof *sc.start);
	sc.ends = malloc(((size_t)pp->patches.n + 1) * sizeof *sc.ends);
	if (!pop->age || !sc.member || !sc.start || !sc.ends) {
		st = pop_nomem(err, err_size, 9ull * n);
		goto free_scratch;
	}
	pop_ages(pp, n, pop->age);
	if ((st = pop_home(pp, pop, &sc, err, err_size)) ||
	    (st = pop_school(pp, pop, &sc, err, err_size)) ||
	    (st = pop_work(pp, pop, &sc, err, err_size)))
		goto free_scratch;
	st = pop_community(pp, pop, err, err_size);
	memcpy(pop->layer_beta, pp->layer_beta, sizeof pop->layer_beta);
free_scratch:
	free(sc.ends);
	free(sc.start);
	free(sc.member);
	return st;
}

/* ---- the random graph --------------------------------------------------- */

/* One group of everyone with mean degree `contacts`: Covasim's random
 * layer (make_random_contacts), drawn daily on the device instead with
 * community_daily. */
static weft_status pop_random(const seir_pop_params *pp, seir_population *pop,
			      char *err, size_t err_size)
{
	uint32_t start[2];
	seir_pop_groups gr = { 0 };
	weft_status st;

	pop->n_agents = pp->agents;
	pop->age = malloc(pp->agents ? pp->agents : 1);
	if (!pop->age)
		return pop_nomem(err, err_size, pp->agents);
	pop_ages(pp, pp->agents, pop->age);
	for (int l = 0; l < SEIR_MAX_LAYERS; l++)
		pop->layer_beta[l] = 1.0;
	for (int l = 0; l < SEIR_L_COMMUNITY; l++)
		if ((st = weft__pop_layer_empty(pop->n_agents, &pop->layer[l],
						err, err_size)))
			return st;
	if (pp->community_daily) {
		/* Well mixed: `contacts` partners drawn every day on the
		 * device, nothing stored. */
		pop->community_daily = pp->contacts;
		return weft__pop_layer_empty(pop->n_agents,
					     &pop->layer[SEIR_L_COMMUNITY], err,
					     err_size);
	}
	pop_random_groups(pp, pp->contacts, start, &gr);
	gr.seed = pp->seed;
	gr.purpose = SEIR_POP_P_RANDOM;
	if ((st = weft__pop_groups_check(&gr, "random", err, err_size)))
		return st;
	return weft__pop_layer_build(
		pp->mc, pop->n_agents, weft__pop_gen_groups, &gr, 0, "random",
		&pop->layer[SEIR_L_COMMUNITY], err, err_size);
}

/* ---- building ------------------------------------------------------------ */

weft_status weft__seir_population_build(const seir_pop_params *pp,
					seir_population *pop, char *err,
					size_t err_size)
{
	weft_status st;

	memset(pop, 0, sizeof *pop);
	if (err_size)
		err[0] = '\0';
	switch (pp->kind) {
	case SEIR_POP_RANDOM: st = pop_random(pp, pop, err, err_size); break;
	case SEIR_POP_CSV:
		st = weft__seir_population_csv(pp, pop, err, err_size);
		break;
	default: st = pop_synthetic(pp, pop, err, err_size); break;
	}
	if (st)
		weft__seir_population_free(pop);
	return st;
}

void weft__seir_population_free(seir_population *pop)
{
	for (int l = 0; l < SEIR_MAX_LAYERS; l++)
		weft__pop_layer_free(&pop->layer[l]);
	free(pop->age);
	memset(pop, 0, sizeof *pop);
}
