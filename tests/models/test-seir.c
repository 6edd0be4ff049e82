/*
 * tests/models/test-seir.c - the SEIR model's epidemiology and guarantees, run
 * for real through the loader on the OpenMP backend (and OpenCL where it
 * is available), `population = random`:
 *
 *  - final size: an SIR-like run (fixed latent and infectious periods, no
 *    symptoms, no deaths, everyone equally susceptible) with R0 = 2, on a
 *    static random network (mean degree 20; for a Poisson degree
 *    distribution the final size obeys the same equation, Newman 2002,
 *    with R0 = k T and T = 1 - (1 - beta)^D) and with contacts drawn
 *    afresh every day (mass action, R0 = c beta D), reaches the attack
 *    rate R of R = 1 - exp(-R0 R), 0.7968, within 0.03, for three seeds;
 *  - early growth: with contacts drawn daily, R0 = 2.5, latent 2 days and
 *    infectious 4, the growth rate r of cumulative infections between 1 %
 *    and 5 % of agents is within 10 % of the r of the discrete renewal
 *    equation 1 = (R0 / D) sum_{s=L}^{L+D-1} exp(-r s), and R0 estimated
 *    from the renewal equation (new infections over the infection
 *    pressure of earlier ones, times S/N) over the first 3 % is within 5 %
 *    of 2.5, for three seeds;
 *  - the frontier (active list) and processing every agent give
 *    byte-identical daily CSVs, with every feature on; so do 1 and 2
 *    threads, a repeated run, and OpenCL;
 *  - beta 0 gives no spread; closing the only stored layer removes every
 *    transmission, closing an empty one changes nothing; vaccinating
 *    everyone before the seeds become infectious (efficacy 1) stops the
 *    epidemic; deaths follow death_prob;
 *  - severe courses: fixed stages give new_severe, new_critical, the
 *    hospital and ICU counts and deaths on exactly their days; with
 *    limited beds no more agents are ever in them than there are, those
 *    in them plus those over capacity are the agents severe (critical) on
 *    the device, and with no bed at all no_hosp_factor and no_icu_factor
 *    multiply the chances of critical and death (and change nothing
 *    while beds are unlimited);
 *  - bad parameters fail with FILE:LINE, the key, the value and why.
 */

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weft/weft.h>

#include "tap.h"

/* One day of daily.csv. */
typedef struct row {
	long long day, s, e, ia, is, r, d, new_inf, new_d, cum, vac;
	long long new_sev, new_crit, hosp, icu, over_h, over_i, full;
	long long new_tests, new_diag, diag, new_quar, n_quar;
} row;

typedef struct run {
	char *csv;
	row *rows;
	int n_rows;
	weft_status st;
	char msg[2048];
	uint64_t digest; /* the hashes of every device buffer, combined */
	/* Agents in I_sym by the stage of their course (state bits 3-5),
	 * and the dead by age band (the age byte's high four bits), at the
	 * end, read from the device. */
	long long stage[8];
	long long dead_by_band[16];
	/* Care bytes: agents by campaign and doses, the vaccinated by age
	 * bin, the agents by age bin. */
	long long care[4][4], vac_by_bin[16], by_bin[16];
	char *by_age; /* by_age.csv, when written */
	/* With testing: the words after the active set's bitmap (the
	 * diagnosis words, then with tracing the quarantine words), and the
	 * stored contacts (CSR rows and columns). */
	uint32_t *tt, *csr_rows, *cols;
	size_t n_tt, n_rows_csr;
} run;

static void run_free(run *r)
{
	free(r->by_age);
	free(r->tt);
	free(r->csr_rows);
	free(r->cols);
	free(r->csv);
	free(r->rows);
	memset(r, 0, sizeof *r);
}

static void parse_rows(run *r)
{
	const char *line = strchr(r->csv, '\n');

	r->rows = calloc(strlen(r->csv) / 20 + 2, sizeof *r->rows);
	while (r->rows && line && line[1]) {
		row *w = &r->rows[r->n_rows];
		if (sscanf(line + 1,
			   "%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,"
			   "%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,"
			   "%lld,%lld,%lld",
			   &w->day, &w->s, &w->e, &w->ia, &w->is, &w->r, &w->d,
			   &w->new_inf, &w->new_d, &w->cum, &w->vac,
			   &w->new_sev, &w->new_crit, &w->hosp, &w->icu,
			   &w->over_h, &w->over_i, &w->full, &w->new_tests,
			   &w->new_diag, &w->diag, &w->new_quar,
			   &w->n_quar) != 23)
			break;
		r->n_rows++;
		line = strchr(line + 1, '\n');
	}
}

/* Every device buffer of the model, hashed, combined into one word. */
static weft_status state_digest(weft_sim *sim, run *r)
{
	weft_digest *d = NULL;
	weft_status st = weft_sim_digest(sim, &d);

	for (size_t i = 0; !st && i < weft_digest_count(d); i++)
		r->digest = r->digest * 1099511628211ull ^
			    weft_digest_at(d, i)->hash;
	weft_digest_free(d);
	return st;
}

/* A device buffer of the model, by name, into new memory. */
static unsigned char *read_buffer(weft_sim *sim, const char *name,
				  size_t *bytes)
{
	weft_sim_buffer *b = weft_sim_buffer_find(sim, name);
	weft_buffer_info bi = { .struct_size = sizeof bi };
	unsigned char *out;

	if (!b || weft_sim_buffer_info(b, &bi) ||
	    !(out = malloc(bi.bytes ? bi.bytes : 1)))
		return NULL;
	if (weft_sim_read(sim, out, b, 0, bi.bytes, 0)) {
		free(out);
		return NULL;
	}
	*bytes = bi.bytes;
	return out;
}

/* The agents in I_sym (3, 4) by their stage (bits 3-5 of the state), and
 * the dead (6) by their age band. */
static weft_status count_stages(weft_sim *sim, run *r)
{
	size_t n = 0, n_age = 0;
	unsigned char *st = read_buffer(sim, "state", &n);
	unsigned char *age = read_buffer(sim, "age bins", &n_age);
	unsigned char *care = weft_sim_buffer_find(sim, "care")
				      ? read_buffer(sim, "care", &n_age)
				      : NULL;
	weft_status rc = st && age && n == n_age ? WEFT_OK : WEFT_E_INTERNAL;

	for (size_t i = 0; !rc && i < n; i++) {
		if ((st[i] & 7) == 3 || (st[i] & 7) == 4)
			r->stage[(st[i] >> 3) & 7]++;
		if ((st[i] & 7) == 6)
			r->dead_by_band[age[i] >> 4]++;
		r->by_bin[age[i] & 15]++;
		if (care && care[i]) {
			r->care[(care[i] >> 2) & 3][care[i] & 3]++;
			r->vac_by_bin[age[i] & 15]++;
		}
	}
	free(care);
	free(st);
	free(age);
	return rc;
}

/* With testing (the active set's buffer longer than its bitmap): the
 * words after the bitmap, and the stored contacts. */
static weft_status read_testing(weft_sim *sim, run *r)
{
	size_t n = 0, bytes = 0, words, rb = 0, cb = 0;
	unsigned char *bits = read_buffer(sim, "active set", &bytes);

	for (int b = 0; b < 16; b++)
		n += (size_t)r->by_bin[b];
	words = (n + 31) / 32;
	if (!bits)
		return WEFT_E_INTERNAL;
	if (bytes > words * 4) {
		r->n_tt = bytes / 4 - words;
		r->tt = malloc(r->n_tt * 4);
		if (r->tt)
			memcpy(r->tt, bits + words * 4, r->n_tt * 4);
		r->csr_rows = (uint32_t *)read_buffer(sim, "contact rows", &rb);
		r->cols = (uint32_t *)read_buffer(sim, "contacts", &cb);
		r->n_rows_csr = rb / 4;
	}
	free(bits);
	return !r->n_tt || (r->tt && r->csr_rows && r->cols) ? WEFT_OK
							     : WEFT_E_INTERNAL;
}

/* Run seir with `base` then `sets` (NULL-terminated) applied to a config
 * loaded from ini (or the defaults); the result in *r. */
static void run_seir(run *r, const char *name, const char *ini,
		     const char *const *base, const char *const *sets)
{
	char dir[512], set[600], path[600];
	weft_context *ctx = NULL;
	weft_config *cfg = NULL;
	weft_sim *sim = NULL;

	memset(r, 0, sizeof *r);
	snprintf(dir, sizeof dir, "%s/%s", tap_tmpdir(), name);
	snprintf(set, sizeof set, "output.directory=%s", dir);
	if ((r->st = weft_context_new(&ctx)) ||
	    (r->st = ini ? weft_config_load(ctx, ini, &cfg)
			 : weft_config_new(ctx, &cfg)) ||
	    (r->st = weft_config_set(ctx, cfg, set)))
		goto done;
	for (; base && *base; base++)
		if ((r->st = weft_config_set(ctx, cfg, *base)))
			goto done;
	for (; sets && *sets; sets++)
		if ((r->st = weft_config_set(ctx, cfg, *sets)))
			goto done;
	if ((r->st = weft_sim_open(ctx, cfg, &sim)) ||
	    (r->st = weft_sim_step(sim, 1000000)) ||
	    (r->st = weft_sim_finish(sim)) || (r->st = state_digest(sim, r)) ||
	    (r->st = count_stages(sim, r)) || (r->st = read_testing(sim, r)))
		goto done;
	snprintf(path, sizeof path, "%s/daily.csv", dir);
	r->csv = tap_read_file(path, NULL);
	if (r->csv)
		parse_rows(r);
	snprintf(path, sizeof path, "%s/by_age.csv", dir);
	r->by_age = tap_read_file(path, NULL);
done:
	snprintf(r->msg, sizeof r->msg, "%s", weft_context_error(ctx));
	weft_sim_close(sim);
	weft_config_free(cfg);
	weft_context_free(ctx);
}

static const row *last_row(const run *r)
{
	static const row none = { .day = -1 };
	return r->n_rows ? &r->rows[r->n_rows - 1] : &none;
}

/* An SIR-like course: no symptoms, no deaths, uniform susceptibility. */
#define SIR_LIKE                                                           \
	"seir.population=random", "seir.symp_prob=0", "seir.deaths=false", \
		"seir.susceptibility=1", "seir.asym_factor=1",             \
		"seir.beta_community=1"

/* ---- final size ---------------------------------------------------------- */

/* The attack rate R of R = 1 - exp(-R0 R) (R > 0). */
static double final_size(double r0)
{
	double r = 0.5;

	for (int i = 0; i < 200; i++)
		r = 1.0 - exp(-r0 * r);
	return r;
}

static void test_final_size(void)
{
	/* R0 = 2: static network, k = 20, D = 5, T = 0.1, beta = 1 -
	 * 0.9^(1/5); daily contacts, c = 20, D = 5, beta = 0.02. */
	static const char *base[] = { SIR_LIKE,
				      "seir.agents=20000",
				      "seir.contacts=20",
				      "seir.latent_duration=fixed(2)",
				      "seir.asym_duration=fixed(5)",
				      "seir.initial_infected=20",
				      "simulation.steps=200",
				      "output.every=50",
				      NULL };
	double want = final_size(2.0);
	char seed[64], name[64];

	tap_diag("final size for R0 = 2: %.4f", want);
	for (int k = 0; k < 2; k++)
		for (int s = 1; s <= 3; s++) {
			const char *sets[] = {
				k ? "seir.beta=0.02" : "seir.beta=0.0208516",
				seed, k ? "seir.community_daily=true" : NULL,
				NULL
			};
			run r;
			double got;

			snprintf(seed, sizeof seed, "simulation.seed=%d", s);
			snprintf(name, sizeof name, "final-%d-%d", k, s);
			run_seir(&r, name, NULL, base, sets);
			got = last_row(&r)->cum / 20000.0;
			if (!tap_ok(r.st == WEFT_OK &&
					    fabs(got - want) <= 0.03 &&
					    last_row(&r)->e +
							    last_row(&r)->ia ==
						    0,
				    "final size, %s, seed %d: attack rate %.4f "
				    "within 0.03 of %.4f, epidemic over",
				    k ? "daily contacts" : "static network", s,
				    got, want))
				tap_diag("%s", r.msg);
			run_free(&r);
		}
}

/* ---- early growth -------------------------------------------------------- */

#define GROWTH_N  400000
#define GROWTH_R0 2.5
#define GROWTH_L  2
#define GROWTH_D  4

/* r of 1 = (R0 / D) sum_{s=L}^{L+D-1} exp(-r s), by bisection. */
static double growth_rate(void)
{
	double lo = 0.0, hi = 2.0;

	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2.0, sum = 0.0;
		for (int s = GROWTH_L; s < GROWTH_L + GROWTH_D; s++)
			sum += exp(-mid * s);
		if (GROWTH_R0 / GROWTH_D * sum > 1.0)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Least-squares slope of log(cumulative - seeds) over the days whose
 * cumulative infections (seeds excluded) are 1 % to 5 % of agents. */
static double fitted_rate(const run *r, long long seeds, int *points)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;

	*points = 0;
	for (int i = 0; i < r->n_rows; i++) {
		long long c = r->rows[i].cum - seeds;
		double x = (double)r->rows[i].day, y;
		if (c < GROWTH_N / 100 || c > GROWTH_N / 20)
			continue;
		y = log((double)c);
		sx += x, sy += y, sxx += x * x, sxy += x * y;
		(*points)++;
	}
	return (*points * sxy - sx * sy) / (*points * sxx - sx * sx);
}

/* New infections over their expected number from earlier infections
 * (generation interval uniform on days L..L+D-1), times S/N, summed over
 * the days before 3 % are infected. */
static double renewal_r0(const run *r, long long seeds)
{
	double num = 0.0, den = 0.0;

	for (int t = 1; t < r->n_rows && r->rows[t].cum <= GROWTH_N * 3 / 100;
	     t++) {
		double pressure = 0.0;
		for (int s = GROWTH_L; s < GROWTH_L + GROWTH_D && s <= t; s++)
			pressure +=
				(t - s == 0 ? (double)seeds
					    : (double)r->rows[t - s].new_inf) /
				GROWTH_D;
		num += (double)r->rows[t].new_inf;
		den += pressure * r->rows[t - 1].s / GROWTH_N;
	}
	return num / den;
}

static void test_growth(void)
{
	/* c = 10 daily contacts, beta = R0 / (c D). */
	static const char *base[] = { SIR_LIKE,
				      "seir.agents=400000",
				      "seir.contacts=10",
				      "seir.community_daily=true",
				      "seir.beta=0.0625",
				      "seir.latent_duration=fixed(2)",
				      "seir.asym_duration=fixed(4)",
				      "seir.initial_infected=100",
				      "simulation.steps=22",
				      NULL };
	double want = growth_rate();
	char seed[64], name[64];

	tap_diag("growth rate for R0 = 2.5, L = 2, D = 4: r = %.4f a day",
		 want);
	for (int s = 1; s <= 3; s++) {
		const char *sets[] = { seed, NULL };
		int points;
		double got, r0;
		run r;

		snprintf(seed, sizeof seed, "simulation.seed=%d", s);
		snprintf(name, sizeof name, "growth-%d", s);
		run_seir(&r, name, NULL, base, sets);
		if (r.st)
			tap_diag("%s", r.msg);
		got = r.st ? 0.0 : fitted_rate(&r, 100, &points);
		r0 = r.st ? 0.0 : renewal_r0(&r, 100);
		tap_ok(r.st == WEFT_OK && points >= 4 &&
			       fabs(got / want - 1.0) <= 0.10,
		       "seed %d: growth rate %.4f within 10 %% of %.4f (%d "
		       "days fitted)",
		       s, got, want, r.st ? 0 : points);
		tap_ok(fabs(r0 / GROWTH_R0 - 1.0) <= 0.05,
		       "seed %d: R0 from the renewal equation %.3f within 5 %% "
		       "of 2.5",
		       s, r0);
		run_free(&r);
	}
}

/* ---- identical results --------------------------------------------------- */

/* Every feature on, over a stored layer and over daily contacts. */
static const char *const all_on[] = {
	"seir.population=random",
	"seir.agents=8000",
	"seir.contacts=12",
	"seir.beta=0.07",
	"seir.beta_community=1",
	"seir.initial_infected=30",
	"seir.death_prob=0.05",
	"seir.rel_trans_dispersion=0.45",
	"seir.interventions=community 15-25 0.5, all 30-35 0.7",
	"seir.isolation_prob=0.6",
	"seir.isolation_start=8",
	"seir.vaccine_doses=120",
	"seir.vaccine_start=6",
	"seir.vaccine_priority=oldest",
	"seir.n_beds_hosp=4",
	"seir.n_beds_icu=1",
	"seir.age_bands=0-17, 18-64, 65+",
	"seir.vaccine_campaigns=days=10-40 doses=90 coverage=0.5 ages=50+ "
	"second=7 symptoms=0.5 severe=0.8",
	"simulation.steps=60",
	NULL
};

static void same_csv(const run *a, const run *b, const char *what)
{
	if (!tap_ok(a->csv && b->csv && strcmp(a->csv, b->csv) == 0, "%s",
		    what))
		tap_diag("%s / %s", a->msg, b->msg);
}

static void test_identical(void)
{
	static const char *daily[] = { "seir.community_daily=true", NULL };
	static const char *full[] = { "seir.frontier=false", NULL };
	static const char *daily_full[] = { "seir.community_daily=true",
					    "seir.frontier=false", NULL };
	static const char *t1[] = { "backend.threads=1", NULL };
	static const char *t2[] = { "backend.threads=2", NULL };
	static const char *seed2[] = { "simulation.seed=2", NULL };
	run a, b, c, d;

	run_seir(&a, "front", NULL, all_on, t2);
	run_seir(&b, "full", NULL, all_on, full);
	tap_ok(a.n_rows == 61 && last_row(&a)->cum > 500 &&
		       last_row(&a)->d > 0 && last_row(&a)->vac > 0,
	       "every feature on: %lld infected, %lld dead, %lld vaccinated",
	       last_row(&a)->cum, last_row(&a)->d, last_row(&a)->vac);
	same_csv(&a, &b,
		 "frontier and every agent: byte-identical CSV "
		 "(stored layer)");
	run_free(&b);
	run_seir(&b, "t1", NULL, all_on, t1);
	same_csv(&a, &b, "1 and 2 threads: byte-identical CSV");
	tap_ok(a.digest == b.digest && a.digest != 0,
	       "  ...and every device buffer identical");
	run_free(&b);
	run_seir(&b, "again", NULL, all_on, t2);
	same_csv(&a, &b, "a repeated run: byte-identical CSV");
	run_free(&b);
	run_seir(&b, "seed2", NULL, all_on, seed2);
	tap_ok(a.csv && b.csv && strcmp(a.csv, b.csv) != 0,
	       "another seed differs");
	run_seir(&c, "daily", NULL, all_on, daily);
	run_seir(&d, "daily-full", NULL, all_on, daily_full);
	tap_ok(c.n_rows == 61 && last_row(&c)->cum > 500,
	       "daily contacts spread (%lld infected)", last_row(&c)->cum);
	same_csv(&c, &d,
		 "frontier and every agent: byte-identical CSV "
		 "(daily contacts)");
	run_free(&a);
	run_free(&b);
	run_free(&c);
	run_free(&d);
}

/* count_work: the same CSV; every infectious agent-day draws when every
 * agent transmits (no dispersion), fewer with Covasim's dispersion; every
 * transmission is a candidate. The counts are read from summary.txt. */
static int work_counted(const char *name, unsigned long long *walk,
			unsigned long long *cand)
{
	char path[600], *txt, *at;
	int got = 0;

	snprintf(path, sizeof path, "%s/%s/summary.txt", tap_tmpdir(), name);
	txt = tap_read_file(path, NULL);
	at = txt ? strstr(txt, "work counted: ") : NULL;
	if (at)
		got = sscanf(at, "work counted: %llu infectors drew, %llu",
			     walk, cand) == 2;
	free(txt);
	return got;
}

static long long infectious_days(const run *r)
{
	long long n = 0;

	for (int i = 1; i < r->n_rows; i++)
		n += r->rows[i].ia + r->rows[i].is;
	return n;
}

static void test_count_work(void)
{
	static const char *no_disp[] = { "seir.rel_trans_dispersion=0",
					 "seir.count_work=true", NULL };
	static const char *count[] = { "seir.count_work=true", NULL };
	unsigned long long walk = 0, cand = 0;
	run a, b;
	int got;

	run_seir(&a, "nocount", NULL, all_on, NULL);
	run_seir(&b, "count", NULL, all_on, count);
	same_csv(&a, &b, "count_work: byte-identical CSV");
	got = work_counted("count", &walk, &cand);
	tap_ok(got && walk > 0 &&
		       walk < (unsigned long long)infectious_days(&b) &&
		       cand >= (unsigned long long)(last_row(&b)->cum - 30),
	       "count_work, dispersion 0.45: %llu of %lld infectious "
	       "agent-days drew (class 0 does not), %llu candidates for %lld "
	       "transmissions",
	       walk, infectious_days(&b), cand, last_row(&b)->cum - 30);
	run_free(&a);
	run_free(&b);
	run_seir(&b, "count-nodisp", NULL, all_on, no_disp);
	got = work_counted("count-nodisp", &walk, &cand);
	tap_ok(got && walk == (unsigned long long)infectious_days(&b),
	       "count_work, no dispersion: every infectious agent-day drew "
	       "(%llu, %lld)",
	       walk, infectious_days(&b));
	run_free(&b);
}

/* Many infectors reaching the same agents on the same day: who claims
 * whom must not depend on timing, or the active list's layout would. */
static const char *const crowded[] = { "seir.population=random",
				       "seir.agents=3000",
				       "seir.contacts=40",
				       "seir.community_daily=true",
				       "seir.beta=0.3",
				       "seir.beta_community=1",
				       "seir.initial_infected=300",
				       "seir.latent_duration=fixed(1)",
				       "simulation.steps=25",
				       NULL };

static void test_crowded(void)
{
	static const char *t1[] = { "backend.threads=1", NULL };
	static const char *t2[] = { "backend.threads=2", NULL };
	run a, b;

	run_seir(&a, "crowd1", NULL, crowded, t1);
	for (int i = 0; i < 3; i++) {
		run_seir(&b, "crowd2", NULL, crowded, t2);
		tap_ok(a.digest == b.digest && a.digest != 0 &&
			       strcmp(a.csv, b.csv) == 0,
		       "crowded contacts, 1 and 2 threads (run %d): every "
		       "device buffer identical, the active list included",
		       i + 1);
		run_free(&b);
	}
	run_free(&a);
}

/* Testing by probability over the active list, and tracing (testing by
 * number is in the conformance configuration). */
static const char *const tt_ocl[] = { "seir.population=random",
				      "seir.agents=8000",
				      "seir.contacts=12",
				      "seir.beta=0.06",
				      "seir.initial_infected=30",
				      "seir.test_symp_prob=0.4",
				      "seir.test_delay=1",
				      "seir.trace_probs=0.8",
				      "seir.trace_time=1",
				      "simulation.steps=60",
				      NULL };

static void test_opencl(void)
{
	static const char *omp[] = { "backend.name=openmp", NULL };
	const char *dir = getenv("WEFT_BUILDDIR");
	char path[600];
	const char *ocl[] = { "backend.name=opencl", path, NULL };
	run a, b;

	snprintf(path, sizeof path,
		 "backend.plugin_path=%s/plugins/opencl/.libs",
		 dir ? dir : ".");
	run_seir(&b, "opencl", NULL, all_on, ocl);
	if (b.st == WEFT_E_UNAVAILABLE || b.st == WEFT_E_PLUGIN) {
		tap_skip(4, "OpenCL is not available here");
		run_free(&b);
		return;
	}
	run_seir(&a, "openmp", NULL, all_on, omp);
	same_csv(&a, &b, "OpenCL and OpenMP: byte-identical CSV");
	tap_ok(a.digest == b.digest && a.digest != 0,
	       "  ...and every device buffer identical");
	run_free(&a);
	run_free(&b);
	run_seir(&a, "crowd-omp", NULL, crowded, omp);
	run_seir(&b, "crowd-ocl", NULL, crowded, ocl);
	tap_ok(a.digest == b.digest && a.digest != 0 && a.csv && b.csv &&
		       strcmp(a.csv, b.csv) == 0,
	       "crowded contacts on OpenCL and OpenMP: every device buffer "
	       "identical");
	run_free(&a);
	run_free(&b);
	run_seir(&a, "tt-omp", NULL, tt_ocl, omp);
	run_seir(&b, "tt-ocl", NULL, tt_ocl, ocl);
	tap_ok(a.digest == b.digest && a.digest != 0 && a.csv && b.csv &&
		       strcmp(a.csv, b.csv) == 0 && last_row(&a)->diag > 0,
	       "testing the symptomatic and tracing on OpenCL and OpenMP: "
	       "every device buffer identical");
	run_free(&a);
	run_free(&b);
}

/* ---- no spread ----------------------------------------------------------- */

static long long new_infections(const run *r)
{
	long long sum = 0;
	for (int i = 0; i < r->n_rows; i++)
		sum += r->rows[i].new_inf;
	return sum;
}

static const char *const small[] = {
	"seir.population=random", "seir.agents=5000",
	"seir.contacts=12",	  "seir.beta=0.08",
	"seir.beta_community=1",  "seir.initial_infected=30",
	"simulation.steps=60",	  NULL
};

static void test_no_spread(void)
{
	static const char *beta0[] = { "seir.beta=0", NULL };
	static const char *closed[] = { "seir.interventions=community 1-1000 0",
					NULL };
	static const char *other[] = { "seir.interventions=school+work+home "
				       "1-1000 0",
				       NULL };
	static const char *vacc[] = { "seir.vaccine_doses=5000",
				      "seir.vaccine_efficacy=1",
				      "seir.latent_duration=fixed(2)", NULL };
	static const char *vacc0[] = { "seir.vaccine_doses=5000",
				       "seir.vaccine_efficacy=0",
				       "seir.latent_duration=fixed(2)", NULL };
	run base, r;

	run_seir(&base, "base", NULL, small, NULL);
	tap_ok(new_infections(&base) > 1000,
	       "the baseline spreads (%lld new infections)",
	       new_infections(&base));
	run_seir(&r, "beta0", NULL, small, beta0);
	tap_ok(r.n_rows == 61 && new_infections(&r) == 0 &&
		       last_row(&r)->cum == 30,
	       "beta 0: no new infection, 30 infected in all");
	run_free(&r);
	run_seir(&r, "closed", NULL, small, closed);
	tap_ok(r.n_rows == 61 && new_infections(&r) == 0,
	       "the only layer closed: no transmission");
	run_free(&r);
	run_seir(&r, "other", NULL, small, other);
	same_csv(&base, &r, "closing the empty layers changes nothing");
	run_free(&r);
	run_seir(&r, "vacc", NULL, small, vacc);
	tap_ok(r.n_rows == 61 && new_infections(&r) == 0 &&
		       r.rows[1].vac == 5000 && last_row(&r)->vac == 5000,
	       "everyone vaccinated on day 1 (efficacy 1), before the seeds "
	       "are infectious: no transmission");
	run_free(&r);
	run_seir(&r, "vacc0", NULL, small, vacc0);
	tap_ok(r.n_rows == 61 && new_infections(&r) > 1000,
	       "  ...with efficacy 0 the epidemic spreads (%lld)",
	       new_infections(&r));
	run_free(&r);
	run_free(&base);
}

static void test_deaths(void)
{
	static const char *none[] = { "seir.deaths=false", NULL };
	static const char *all[] = { "seir.symp_prob=1", "seir.death_prob=1",
				     NULL };
	run r;
	long long dead = 0;

	run_seir(&r, "nodeaths", NULL, small, none);
	tap_ok(r.n_rows == 61 && last_row(&r)->d == 0,
	       "deaths = false: nobody dies");
	run_free(&r);
	run_seir(&r, "alldie", NULL, small, all);
	for (int i = 0; i < r.n_rows; i++)
		dead += r.rows[i].new_d;
	tap_ok(r.n_rows == 61 && last_row(&r)->ia == 0 &&
		       last_row(&r)->r == 0 && dead == last_row(&r)->d &&
		       dead > 0,
	       "symp_prob = death_prob = 1: every case that ends is a death "
	       "(%lld), counted in new_deaths",
	       dead);
	run_free(&r);
}

/* ---- severe courses and hospital capacity ----------------------------------
 */

/* 50 seeds, no transmission, everyone symptomatic and on one severe
 * path with fixed stages: the days of each change are exact. */
#define SEVERE_COURSE                                                \
	"seir.population=random", "seir.agents=2000", "seir.beta=0", \
		"seir.initial_infected=50", "seir.symp_prob=1",      \
		"seir.latent_duration=fixed(2)", "simulation.steps=14"

/* Every row: new_severe, new_critical, hospitalised, icu, new_deaths as
 * wanted on `day` (others 0); want[] by day. */
static int course_is(const run *r, const long long *sev, const long long *crit,
		     const long long *hosp, const long long *icu,
		     const long long *dead)
{
	for (int d = 0; d < r->n_rows; d++) {
		const row *w = &r->rows[d];
		if (w->new_sev != sev[d] || w->new_crit != crit[d] ||
		    w->hosp != hosp[d] || w->icu != icu[d] ||
		    w->new_d != dead[d] || w->over_h || w->over_i) {
			tap_diag("day %d: new_severe %lld new_critical %lld "
				 "hospitalised %lld icu %lld new_deaths %lld",
				 d, w->new_sev, w->new_crit, w->hosp, w->icu,
				 w->new_d);
			return 0;
		}
	}
	return r->n_rows == 15;
}

static void test_severe_delays(void)
{
	/* Onset on day 2; severe 1 + 2 days later (day 5), recovering 4
	 * days after that (day 9). */
	static const char *severe[] = {
		SEVERE_COURSE,
		"seir.severe_prob=1",
		"seir.critical_prob=0",
		"seir.death_prob=0",
		"seir.severe_duration=fixed(1) + fixed(2) + fixed(4)",
		NULL
	};
	/* Severe on day 3, critical on day 5, recovering on day 8. */
	static const char *critical[] = {
		SEVERE_COURSE,
		"seir.severe_prob=1",
		"seir.critical_prob=1",
		"seir.death_prob=0",
		"seir.critical_duration=fixed(1) + fixed(2) + fixed(3)",
		NULL
	};
	/* Severe on day 3, critical on day 4, dead on day 6. */
	static const char *death[] = {
		SEVERE_COURSE, "seir.severe_prob=1", "seir.death_prob=1",
		"seir.death_duration=fixed(1) + fixed(1) + fixed(2)", NULL
	};
	long long z[15] = { 0 }, sev[15] = { 0 }, crit[15] = { 0 },
		  hosp[15] = { 0 }, icu[15] = { 0 }, dead[15] = { 0 };
	run r;

	run_seir(&r, "sev-severe", NULL, severe, NULL);
	sev[5] = 50;
	for (int d = 5; d < 9; d++)
		hosp[d] = 50;
	if (!tap_ok(r.st == WEFT_OK && course_is(&r, sev, z, hosp, z, z) &&
			    last_row(&r)->r == 50,
		    "severe path fixed(1) + fixed(2) + fixed(4): severe on "
		    "day 5 exactly (onset on day 2), in hospital days 5-8, "
		    "recovered on day 9"))
		tap_diag("%s", r.msg);
	run_free(&r);

	memset(sev, 0, sizeof sev);
	memset(hosp, 0, sizeof hosp);
	run_seir(&r, "sev-critical", NULL, critical, NULL);
	sev[3] = 50;
	crit[5] = 50;
	for (int d = 3; d < 8; d++)
		hosp[d] = 50;
	for (int d = 5; d < 8; d++)
		icu[d] = 50;
	tap_ok(r.st == WEFT_OK && course_is(&r, sev, crit, hosp, icu, z) &&
		       last_row(&r)->r == 50,
	       "critical path fixed(1) + fixed(2) + fixed(3): severe on day "
	       "3, critical on day 5, in ICU days 5-7 (counted in hospital "
	       "too), recovered on day 8");
	run_free(&r);

	memset(sev, 0, sizeof sev);
	memset(crit, 0, sizeof crit);
	memset(hosp, 0, sizeof hosp);
	memset(icu, 0, sizeof icu);
	run_seir(&r, "sev-death", NULL, death, NULL);
	sev[3] = 50;
	crit[4] = 50;
	dead[6] = 50;
	hosp[3] = hosp[4] = hosp[5] = 50;
	icu[4] = icu[5] = 50;
	tap_ok(r.st == WEFT_OK && course_is(&r, sev, crit, hosp, icu, dead) &&
		       last_row(&r)->d == 50,
	       "death path fixed(1) + fixed(1) + fixed(2): severe on day 3, "
	       "critical on day 4, dead on day 6");
	run_free(&r);
}

/* An epidemic with many severe courses, for capacity. */
static const char *const crowded_hospitals[] = {
	"seir.population=random",  "seir.agents=20000",
	"seir.contacts=12",	   "seir.beta=0.08",
	"seir.beta_community=1",   "seir.initial_infected=40",
	"seir.symp_prob=1",	   "seir.severe_prob=0.4",
	"seir.critical_prob=0.04", "seir.death_prob=0.01",
	"simulation.steps=90",	   NULL
};

static long long sum_of(const run *r, size_t field)
{
	long long sum = 0;

	for (int d = 0; d < r->n_rows; d++)
		sum += *(const long long *)((const char *)&r->rows[d] + field);
	return sum;
}

#define SUM(r, f) sum_of(r, offsetof(row, f))

static void test_capacity(void)
{
	static const char *beds[] = { "seir.n_beds_hosp=60",
				      "seir.n_beds_icu=6", NULL };
	run r;
	int within = 1, over_h = 0, over_i = 0;
	const row *l;

	run_seir(&r, "capacity", NULL, crowded_hospitals, beds);
	for (int d = 0; d < r.n_rows; d++) {
		within &= r.rows[d].hosp <= 60 && r.rows[d].icu <= 6 &&
			  r.rows[d].icu <= r.rows[d].hosp + r.rows[d].over_h;
		over_h += r.rows[d].over_h > 0;
		over_i += r.rows[d].over_i > 0;
	}
	l = last_row(&r);
	if (!tap_ok(r.st == WEFT_OK && r.n_rows == 91 && within && over_h > 5 &&
			    over_i > 5,
		    "60 hospital and 6 ICU beds: never more in them, over "
		    "capacity on %d and %d days",
		    over_h, over_i))
		tap_diag("%s", r.msg);
	tap_ok(l->hosp + l->over_h == r.stage[2] + r.stage[4] + r.stage[5] &&
		       l->icu + l->over_i == r.stage[5] &&
		       l->hosp + l->over_h > 0,
	       "conserved: hospitalised + over_hosp (%lld) are the agents "
	       "severe or critical on the device, icu + over_icu (%lld) the "
	       "critical ones",
	       l->hosp + l->over_h, l->icu + l->over_i);
	tap_ok(SUM(&r, new_sev) >= SUM(&r, new_crit) &&
		       SUM(&r, new_crit) >= SUM(&r, new_d) &&
		       SUM(&r, new_d) == l->d,
	       "every death was critical, every critical severe (%lld >= "
	       "%lld >= %lld)",
	       SUM(&r, new_sev), SUM(&r, new_crit), SUM(&r, new_d));
	run_free(&r);
}

/* With no hospital bed at all, everyone infected once someone is severe
 * becomes critical no_hosp_factor times as often given severe; with no
 * ICU bed, dies no_icu_factor times as often given critical. */
static void test_capacity_factors(void)
{
	static const char *unlimited[] = { NULL };
	static const char *factor[] = { "seir.no_hosp_factor=3",
					"seir.no_icu_factor=2", NULL };
	static const char *full[] = { "seir.n_beds_hosp=0", "seir.n_beds_icu=0",
				      "seir.no_hosp_factor=3",
				      "seir.no_icu_factor=2", NULL };
	run a, b, c;
	double crit_a, crit_c, death_a, death_c;

	run_seir(&a, "factor-none", NULL, crowded_hospitals, unlimited);
	run_seir(&b, "factor-unlimited", NULL, crowded_hospitals, factor);
	run_seir(&c, "factor-full", NULL, crowded_hospitals, full);
	same_csv(&a, &b,
		 "unlimited beds: the factors change nothing (byte-identical "
		 "CSV)");
	crit_a = (double)SUM(&a, new_crit) / (double)SUM(&a, new_sev);
	crit_c = (double)SUM(&c, new_crit) / (double)SUM(&c, new_sev);
	death_a = (double)SUM(&a, new_d) / (double)SUM(&a, new_crit);
	death_c = (double)SUM(&c, new_d) / (double)SUM(&c, new_crit);
	tap_ok(fabs(crit_a - 0.1) < 0.02 && crit_c / crit_a > 2.5 &&
		       crit_c / crit_a < 3.3,
	       "no hospital bed: critical given severe %.3f, %.2f times "
	       "the %.3f with beds (no_hosp_factor 3; those infected before "
	       "anyone was severe keep 1)",
	       crit_c, crit_c / crit_a, crit_a);
	tap_ok(fabs(death_a - 0.25) < 0.07 && death_c / death_a > 1.6 &&
		       death_c / death_a < 2.3,
	       "no ICU bed: death given critical %.3f, %.2f times the %.3f "
	       "with beds (no_icu_factor 2)",
	       death_c, death_c / death_a, death_a);
	run_free(&a);
	run_free(&b);
	run_free(&c);
}

/* ---- outputs by age --------------------------------------------------------
 */

/* The bands' columns of by_age.csv summed per measure, row by row, and
 * compared with daily.csv's; the deaths of each band in all, into dead. */
static int by_age_adds_up(const run *r, int bands, long long dead[16])
{
	const char *line = r->by_age ? strchr(r->by_age, '\n') : NULL;
	int rows = 0;

	memset(dead, 0, 16 * sizeof *dead);
	for (; line && line[1] && rows < r->n_rows; rows++) {
		long long v[1 + 4 * 16], sum[4] = { 0 };
		const row *w = &r->rows[rows];
		const char *f = line + 1;
		for (int i = 0; i < 1 + 4 * bands; i++) {
			v[i] = strtoll(f, NULL, 10);
			f = strchr(f, ',');
			f = f ? f + 1 : "";
		}
		for (int m = 0; m < 4; m++)
			for (int k = 0; k < bands; k++)
				sum[m] += v[1 + m * bands + k];
		for (int k = 0; k < bands; k++)
			dead[k] += v[1 + 3 * bands + k];
		if (v[0] != w->day || sum[0] != w->new_inf ||
		    sum[1] != w->new_sev || sum[2] != w->new_crit ||
		    sum[3] != w->new_d) {
			tap_diag("day %lld: bands %lld %lld %lld %lld, daily "
				 "%lld %lld %lld %lld",
				 v[0], sum[0], sum[1], sum[2], sum[3],
				 w->new_inf, w->new_sev, w->new_crit, w->new_d);
			return 0;
		}
		line = strchr(line + 1, '\n');
	}
	return rows == r->n_rows;
}

static void test_by_age(void)
{
	static const char *bands[] = { "seir.age_bands=0-9, 10-39, 40-69, "
				       "70+",
				       "seir.death_prob=0.05",
				       "seir.n_beds_hosp=20", NULL };
	long long dead[16];
	run r;
	int same = 1;

	run_seir(&r, "by-age", NULL, crowded_hospitals, bands);
	if (!tap_ok(r.st == WEFT_OK && r.by_age &&
			    !strncmp(r.by_age,
				     "day,new_infections_0to9,"
				     "new_infections_10to39,"
				     "new_infections_40to69,"
				     "new_infections_70plus,new_severe_0to9,",
				     80),
		    "age_bands: by_age.csv, its columns named by measure and "
		    "band"))
		tap_diag("%s", r.msg);
	tap_ok(by_age_adds_up(&r, 4, dead),
	       "every row: the bands' new infections, severe, critical and "
	       "deaths add up to daily.csv's");
	for (int k = 0; k < 4; k++)
		same &= dead[k] == r.dead_by_band[k];
	tap_ok(same && dead[3] > 0 &&
		       r.dead_by_band[0] + r.dead_by_band[1] +
				       r.dead_by_band[2] + r.dead_by_band[3] ==
			       last_row(&r)->d,
	       "each band's deaths are the dead of that band on the device "
	       "(%lld, %lld, %lld, %lld)",
	       r.dead_by_band[0], r.dead_by_band[1], r.dead_by_band[2],
	       r.dead_by_band[3]);
	run_free(&r);
	run_seir(&r, "no-bands", NULL, crowded_hospitals, NULL);
	tap_ok(r.st == WEFT_OK && r.by_age == NULL,
	       "without age_bands, no by_age.csv");
	run_free(&r);
}

/* ---- vaccination campaigns -------------------------------------------------
 */

static const char *const vacc_base[] = {
	"seir.population=random", "seir.agents=20000",
	"seir.contacts=12",	  "seir.beta=0.05",
	"seir.beta_community=1",  "seir.initial_infected=40",
	"simulation.steps=80",	  NULL
};

/* The over-50s (age bins 5 to 9) at the end: *group of them, *inside
 * vaccinated, and *outside the younger vaccinated. */
static void vacc_over50(const run *r, long long *group, long long *inside,
			long long *outside)
{
	*group = *inside = *outside = 0;
	for (int b = 0; b < 10; b++) {
		*group += b >= 5 ? r->by_bin[b] : 0;
		*inside += b >= 5 ? r->vac_by_bin[b] : 0;
		*outside += b < 5 ? r->vac_by_bin[b] : 0;
	}
}

/* Whether every day's fully vaccinated are the vaccinated of `days`
 * days before (second doses exactly that many days after the first). */
static int second_after(const run *r, int days)
{
	int ok = 1;

	for (int d = 0; d < r->n_rows; d++)
		ok &= r->rows[d].full ==
		      (d >= days ? r->rows[d - days].vac : 0);
	return ok;
}

static void test_campaign_coverage(void)
{
	/* 60 % of the over-50s (age bins 5 to 9), 300 first doses a day,
	 * the second 21 days later; nobody dies, so no place is lost. */
	static const char *camp[] = { "seir.vaccine_campaigns=days=3- "
				      "doses=300 coverage=0.6 ages=50+ "
				      "priority=oldest second=21",
				      "seir.deaths=false", NULL };
	long long group, inside, outside, target;
	int within = 1, second;
	run r;

	run_seir(&r, "campaign", NULL, vacc_base, camp);
	vacc_over50(&r, &group, &inside, &outside);
	target = (long long)floor(0.6 * group + 0.5);
	for (int d = 0; d < r.n_rows; d++)
		within &= r.rows[d].vac <= target;
	second = second_after(&r, 21);
	if (!tap_ok(r.st == WEFT_OK && r.n_rows == 81 && within &&
			    inside == target && outside == 0 &&
			    last_row(&r)->vac == target,
		    "coverage 0.6 of the over-50s: %lld of %lld vaccinated, "
		    "never more than %lld, nobody younger",
		    inside, group, target))
		tap_diag("%s", r.msg);
	tap_ok(second && last_row(&r)->full > 0 &&
		       r.care[0][2] == last_row(&r)->full &&
		       r.care[0][1] + r.care[0][2] == last_row(&r)->vac,
	       "second doses exactly 21 days after the first: "
	       "fully_vaccinated on day d is vaccinated on day d - 21 (%lld "
	       "with both doses, as the device's care bytes say)",
	       last_row(&r)->full);
	run_free(&r);
}

static void test_campaign_efficacy(void)
{
	/* Everyone vaccinated on day 1, before any onset (latent >= 1 day):
	 * the 40 index cases, exposed before their dose, take their chances
	 * without it (Covasim decides them at exposure); everyone exposed
	 * later has the dose's full effect. */
	static const char *no_symptoms[] = {
		"seir.vaccine_campaigns=days=1-1 doses=20000 efficacy=0 "
		"symptoms=1",
		"seir.symp_prob=1", NULL
	};
	static const char *no_severe[] = {
		"seir.vaccine_campaigns=days=1-1 doses=20000 efficacy=0 "
		"severe=1",
		"seir.symp_prob=1", "seir.severe_prob=0.5", NULL
	};
	long long max_is = 0, sev = 0;
	run r;

	run_seir(&r, "ve-symp", NULL, vacc_base, no_symptoms);
	for (int d = 0; d < r.n_rows; d++)
		max_is = r.rows[d].is > max_is ? r.rows[d].is : max_is;
	if (!tap_ok(r.st == WEFT_OK && r.n_rows > 1 && r.rows[1].vac == 20000 &&
			    last_row(&r)->cum > 1000 && max_is > 0 &&
			    max_is <= 40,
		    "efficacy 1 against symptoms (0 against infection): %lld "
		    "infected, symptomatic (symp_prob = 1) only the 40 index "
		    "cases, dosed in their latency (at most %lld at once)",
		    last_row(&r)->cum, max_is))
		tap_diag("%s", r.msg);
	run_free(&r);
	run_seir(&r, "ve-sev", NULL, vacc_base, no_severe);
	max_is = 0;
	for (int d = 0; d < r.n_rows; d++) {
		max_is = r.rows[d].is > max_is ? r.rows[d].is : max_is;
		sev += r.rows[d].new_sev;
	}
	tap_ok(r.st == WEFT_OK && max_is > 100 && sev > 0 && sev <= 40,
	       "efficacy 1 against severe disease: symptomatic (up to %lld "
	       "at once), severe (severe_prob = 0.5) only among the 40 index "
	       "cases dosed in their latency (%lld)",
	       max_is, sev);
	run_free(&r);
}

static void test_campaign_chance(void)
{
	/* Covasim's vaccinate_prob: half of the over-50s not yet vaccinated
	 * on each of days 3 and 4 (three quarters in all), their second
	 * doses 10 days after each first; nobody dies. A chance of 1 on one
	 * day vaccinates the whole group that day. */
	static const char *half[] = { "seir.vaccine_campaigns=days=3-4 "
				      "prob=0.5 ages=50+ second=10",
				      "seir.deaths=false", NULL };
	static const char *all[] = { "seir.vaccine_campaigns=days=6-6 prob=1 "
				     "ages=50+",
				     NULL };
	long long group, d3, d4, inside, outside;
	int second;
	run r;

	run_seir(&r, "chance", NULL, vacc_base, half);
	vacc_over50(&r, &group, &inside, &outside);
	d3 = r.n_rows > 4 ? r.rows[3].vac : -1; /* day 3's row */
	d4 = r.n_rows > 4 ? r.rows[4].vac - r.rows[3].vac : -1;
	second = second_after(&r, 10);
	/* Binomial: within 5 standard deviations. */
	if (!tap_ok(r.st == WEFT_OK && r.n_rows == 81 && outside == 0 &&
			    r.rows[2].vac == 0 &&
			    (d3 - group / 2.0) * (d3 - group / 2.0) <
				    25 * group / 4.0 &&
			    (d4 - (group - d3) / 2.0) *
					    (d4 - (group - d3) / 2.0) <
				    25 * (group - d3) / 4.0 &&
			    last_row(&r)->vac == inside && inside == d3 + d4,
		    "prob=0.5 on days 3 and 4: %lld then %lld of %lld "
		    "over-50s (half, then half of the rest), nobody younger",
		    d3, d4, group))
		tap_diag("%s", r.msg);
	tap_ok(r.st == WEFT_OK && r.n_rows == 81 && inside > 1000 && second &&
		       last_row(&r)->full == inside,
	       "by chance, second doses exactly 10 days after each first: "
	       "fully_vaccinated on day d is vaccinated on day d - 10 (%lld)",
	       last_row(&r)->full);
	run_free(&r);
	run_seir(&r, "chance1", NULL, vacc_base, all);
	vacc_over50(&r, &group, &inside, &outside);
	tap_ok(r.st == WEFT_OK && r.n_rows > 7 && r.rows[5].vac == 0 &&
		       r.rows[6].vac == inside && inside + 60 >= group &&
		       inside <= group,
	       "prob=1 on day 6: the over-50s alive vaccinated that day (%lld "
	       "of %lld)",
	       inside, group);
	run_free(&r);
}

static void test_campaign_chance_more(void)
{
	/* A campaign by number gives every over-50 its one dose on day 2;
	 * one by chance over the same group, after it (chance 1 on day 2,
	 * a second dose 3 days later), then gives none: no first dose to
	 * another campaign's agent, and no second either (their trial of
	 * day 2 succeeded, but their dose is not this campaign's). */
	static const char *other[] = {
		"seir.vaccine_campaigns=days=2-2 doses=20000 ages=50+, "
		"days=2-2 prob=1 ages=50+ second=3",
		"seir.deaths=false", NULL
	};
	/* Coverage 0.5 by chance 1: the group's order cut at half. */
	static const char *half[] = { "seir.vaccine_campaigns=days=4-4 prob=1 "
				      "ages=50+ coverage=0.5",
				      "seir.deaths=false", NULL };
	/* Open-ended days and a second dose 2 days later, under the
	 * epidemic. */
	static const char *open[] = { "seir.vaccine_campaigns=days=3- "
				      "prob=0.05 ages=50+ second=2",
				      "seir.deaths=false", NULL };
	long long group, inside, outside;
	run r;

	run_seir(&r, "chance-other", NULL, vacc_base, other);
	vacc_over50(&r, &group, &inside, &outside);
	tap_ok(r.st == WEFT_OK && r.n_rows == 81 && inside == group &&
		       r.care[0][1] == group &&
		       r.care[1][1] + r.care[1][2] == 0 &&
		       last_row(&r)->full == group,
	       "a campaign by chance after one by number over the same group: "
	       "%lld agents with the first's dose, %lld first and %lld second "
	       "doses of its own (none), fully vaccinated %lld",
	       r.care[0][1], r.care[1][1], r.care[1][2], last_row(&r)->full);
	run_free(&r);
	run_seir(&r, "chance-half", NULL, vacc_base, half);
	vacc_over50(&r, &group, &inside, &outside);
	tap_ok(r.st == WEFT_OK && r.n_rows == 81 &&
		       inside == (long long)floor(0.5 * group + 0.5) &&
		       outside == 0,
	       "prob=1 with coverage=0.5: %lld of %lld over-50s, the order "
	       "cut at half",
	       inside, group);
	run_free(&r);
	run_seir(&r, "chance-open", NULL, vacc_base, open);
	vacc_over50(&r, &group, &inside, &outside);
	tap_ok(r.st == WEFT_OK && r.n_rows == 81 && inside > group / 2 &&
		       second_after(&r, 2) && last_row(&r)->cum > 1000,
	       "days=3- by chance 0.05 under an epidemic: %lld of %lld "
	       "over-50s vaccinated by day 80, each second dose 2 days "
	       "after its first",
	       inside, group);
	run_free(&r);
}

static void test_campaigns_several(void)
{
	/* The over-60s, and everyone (the over-65s first): an agent gets
	 * doses from one campaign only; a place of the first whose agent
	 * the second reached earlier is lost (9 days x 200 places). */
	static const char *two[] = {
		"seir.vaccine_campaigns=days=2-10 doses=200 ages=60+ "
		"priority=oldest, days=5- doses=150 priority=65+/18-64",
		NULL
	};
	long long on_device = 0;
	run r;

	run_seir(&r, "campaigns", NULL, vacc_base, two);
	for (int c = 0; c < 4; c++)
		for (int d = 1; d < 4; d++)
			on_device += r.care[c][d];
	if (!tap_ok(r.st == WEFT_OK && r.care[0][1] <= 1800 &&
			    r.care[0][1] > 1500 && r.care[1][1] > 5000 &&
			    r.care[0][2] == 0 &&
			    r.care[0][3] + r.care[1][3] == 0 &&
			    on_device == last_row(&r)->vac &&
			    r.care[2][1] + r.care[3][1] == 0,
		    "two campaigns: %lld over-60s from the first (of its 1800 "
		    "places), %lld from the second, one dose each, as many "
		    "as daily.csv's vaccinated (%lld)",
		    r.care[0][1], r.care[1][1], last_row(&r)->vac))
		tap_diag(
			"%s; care %lld %lld %lld %lld / %lld %lld; device %lld",
			r.msg, r.care[0][1], r.care[0][2], r.care[1][1],
			r.care[1][2], r.care[2][1], r.care[3][1], on_device);
	run_free(&r);
}

/* ---- errors -------------------------------------------------------------- */

/* ---- testing, contact tracing and quarantine -------------------------------
 */

static const char *const tt_base[] = {
	"seir.population=random", "seir.agents=20000",
	"seir.contacts=12",	  "seir.beta=0.05",
	"seir.beta_community=1",  "seir.initial_infected=40",
	"simulation.steps=80",	  NULL
};

/* Whether two runs' daily.csv agree on the epidemic's columns (those
 * before new_tests). */
static int same_epidemic(const run *a, const run *b)
{
	if (!a->n_rows || a->n_rows != b->n_rows)
		return 0;
	for (int d = 0; d < a->n_rows; d++)
		if (memcmp(&a->rows[d], &b->rows[d],
			   offsetof(row, new_tests)) != 0)
			return 0;
	return 1;
}

static void test_testing_counts(void)
{
	/* A diagnosis delay of 3 days: each positive test is counted on its
	 * day, and its diagnosis word says that day plus 3. */
	static const char *delay[] = {
		"seir.test_symp_prob=0.3", "seir.test_asymp_prob=0.01",
		"seir.test_delay=3", "seir.age_bands=0-29, 30-59, 60+", NULL
	};
	static const char *sure[] = { "seir.test_symp_prob=1",
				      "seir.diagnosed_factor=1", NULL };
	static const char *blind[] = { "seir.test_symp_prob=1",
				       "seir.test_sensitivity=0", NULL };
	long long by_day[128] = { 0 }, cum = 0, marked = 0;
	int exact = 1, sums = 1, bands = 1;
	run r, n, b;

	run_seir(&r, "test-delay", NULL, tt_base, delay);
	for (size_t a = 0; r.st == WEFT_OK && a < r.n_tt; a++)
		if (r.tt[a]) {
			marked++;
			if (r.tt[a] - 1 >= 3 && r.tt[a] - 1 - 3 < 128)
				by_day[r.tt[a] - 1 - 3]++;
			else
				exact = 0;
		}
	for (int d = 0; d < r.n_rows; d++) {
		cum += r.rows[d].new_diag;
		exact &= by_day[r.rows[d].day] == r.rows[d].new_diag;
		sums &= r.rows[d].diag == cum &&
			r.rows[d].new_diag <= r.rows[d].new_tests;
	}
	if (!tap_ok(r.st == WEFT_OK && r.n_rows == 81 && cum > 100 && exact,
		    "test_delay 3: every diagnosis word is its test's day plus "
		    "3, day by day as new_diagnoses counts them (%lld)",
		    cum))
		tap_diag("%s", r.msg);
	tap_ok(sums && marked == cum && last_row(&r)->new_tests > 0,
	       "diagnosed is the sum of new_diagnoses, at most the tests of "
	       "each day, and as many agents carry a diagnosis (%lld)",
	       marked);
	for (const char *line = r.by_age ? strchr(r.by_age, '\n') : NULL;
	     line && line[1]; line = strchr(line + 1, '\n')) {
		long long v[1 + 5 * 3];
		const char *f = line + 1;
		for (int i = 0; i < 1 + 5 * 3; i++) {
			v[i] = strtoll(f, NULL, 10);
			f = strchr(f, ',');
			f = f ? f + 1 : "";
		}
		bands &= v[0] < r.n_rows &&
			 v[13] + v[14] + v[15] == r.rows[v[0]].new_diag;
	}
	tap_ok(r.by_age && bands &&
		       strstr(r.by_age, ",new_diagnoses_0to29,"
					"new_diagnoses_30to59,"
					"new_diagnoses_60plus\n"),
	       "by_age.csv: the bands' new diagnoses add up to daily.csv's");
	run_free(&r);

	/* Testing that isolates nobody (diagnosed_factor 1) changes nothing
	 * of the epidemic; every symptomatic agent is tested on its first
	 * day and is positive: one test per diagnosis. */
	run_seir(&n, "test-none", NULL, tt_base, NULL);
	run_seir(&r, "test-sure", NULL, tt_base, sure);
	exact = 1;
	for (int d = 0; d < r.n_rows; d++)
		exact &= r.rows[d].new_tests == r.rows[d].new_diag;
	tap_ok(r.st == WEFT_OK && same_epidemic(&n, &r) &&
		       last_row(&r)->diag > 100 && exact,
	       "diagnosed_factor 1: the epidemic's columns as without "
	       "testing; symptomatic agents tested with certainty: %lld "
	       "tests, each positive",
	       last_row(&r)->diag);
	run_seir(&b, "test-blind", NULL, tt_base, blind);
	tap_ok(b.st == WEFT_OK && last_row(&b)->diag == 0 &&
		       b.rows[40].new_tests > 0 && same_epidemic(&n, &b),
	       "sensitivity 0: tests, no diagnosis");
	run_free(&b);
	run_free(&r);
	run_free(&n);
}

static void test_testing_number(void)
{
	static const char *num[] = { "seir.test_daily=500", "seir.test_delay=1",
				     "seir.test_start=5", NULL };
	static const char *num_full[] = { "seir.test_daily=500",
					  "seir.test_delay=1",
					  "seir.test_start=5",
					  "seir.frontier=false", NULL };
	static const char *even[] = { "seir.test_daily=500",
				      "seir.test_delay=1", "seir.test_start=5",
				      "seir.test_symp_odds=1", NULL };
	int exact = 1;
	run a, b;

	run_seir(&a, "tnum", NULL, tt_base, num);
	for (int d = 0; d < a.n_rows; d++)
		exact &= a.rows[d].new_tests == (d >= 5 ? 500 : 0);
	if (!tap_ok(a.st == WEFT_OK && a.n_rows == 81 && exact &&
			    last_row(&a)->diag > 0,
		    "test_daily 500 from day 5: 500 tests every day, %lld "
		    "positive",
		    last_row(&a)->diag))
		tap_diag("%s", a.msg);
	run_seir(&b, "tnum-full", NULL, tt_base, num_full);
	tap_ok(a.csv && b.csv && !strcmp(a.csv, b.csv),
	       "  ...the same CSV over every agent as with the frontier");
	run_free(&b);
	run_seir(&b, "tnum-even", NULL, tt_base, even);
	tap_ok(b.st == WEFT_OK && a.rows[30].cum < b.rows[30].cum &&
		       a.rows[30].diag * b.rows[30].cum >
			       3 * b.rows[30].diag * a.rows[30].cum,
	       "symptomatic odds 100 find more of the infected than odds 1 "
	       "(%lld of %lld against %lld of %lld by day 30), and isolate "
	       "them",
	       a.rows[30].diag, a.rows[30].cum, b.rows[30].diag,
	       b.rows[30].cum);
	run_free(&a);
	run_free(&b);
}

/* Several testing interventions (test_interventions): an entry alone is
 * the test_* keys' intervention (the same draws: intervention 0);
 * successive ones test on their own days; overlapping ones each test
 * (Covasim's list of interventions), a positive test diagnosing once. */
static void test_testing_several(void)
{
	static const char *keys[] = { "seir.test_symp_prob=0.3",
				      "seir.test_asymp_prob=0.01",
				      "seir.test_delay=2", NULL };
	static const char *entry[] = {
		"seir.test_interventions=days=0- symp=0.3 asymp=0.01 delay=2",
		NULL
	};
	static const char *split[] = {
		"seir.test_symp_prob=1", "seir.test_end=29",
		"seir.test_interventions=days=30-49 daily=500, days=50- "
		"symp=0.2 sensitivity=0",
		NULL
	};
	static const char *overlap[] = {
		"seir.test_symp_prob=1",
		"seir.test_interventions=days=10- daily=300 delay=1",
		"seir.age_bands=0-29, 30+", NULL
	};
	static const char *overlap_full[] = {
		"seir.test_symp_prob=1",
		"seir.test_interventions=days=10- daily=300 delay=1",
		"seir.age_bands=0-29, 30+",
		"seir.frontier=false",
		"backend.threads=1",
		NULL
	};
	int exact = 1, over = 1, more = 0;
	long long cum = 0, marked = 0;
	run a, b;

	run_seir(&a, "tiv-keys", NULL, tt_base, keys);
	run_seir(&b, "tiv-entry", NULL, tt_base, entry);
	if (!tap_ok(a.st == WEFT_OK && b.st == WEFT_OK && a.csv && b.csv &&
			    !strcmp(a.csv, b.csv) && last_row(&a)->diag > 0,
		    "test_interventions: one entry is the test_* keys' "
		    "intervention, byte for byte"))
		tap_diag("%s", b.msg);
	run_free(&a);
	run_free(&b);

	/* Days 0-29: every symptomatic agent, each positive; 30-49: 500 a
	 * day by number; from 50: tests that find nobody. */
	run_seir(&a, "tiv-split", NULL, tt_base, split);
	for (int d = 0; d < a.n_rows; d++) {
		const row *w = &a.rows[d];
		if (d < 30)
			exact &= w->new_tests == w->new_diag;
		else if (d < 50)
			exact &= w->new_tests == 500;
		else
			exact &= w->new_diag == 0;
		more |= d >= 50 && w->new_tests > 0;
	}
	if (!tap_ok(a.st == WEFT_OK && a.n_rows == 81 && exact && more &&
			    a.rows[29].diag > 0,
		    "three interventions in turn: each tests on its own days "
		    "only, by its own rules"))
		tap_diag("%s", a.msg);
	run_free(&a);

	/* Overlapping: from day 10 the symptomatic ones and 300 more a day;
	 * every diagnosis word counted once. */
	run_seir(&a, "tiv-overlap", NULL, tt_base, overlap);
	/* The diagnosis words (the selection's keys follow them). */
	for (size_t i = 0; a.st == WEFT_OK && i < 20000 && i < a.n_tt; i++)
		marked += a.tt[i] != 0;
	for (int d = 0; d < a.n_rows; d++) {
		cum += a.rows[d].new_diag;
		over &= d < 10 || a.rows[d].new_tests >= 300;
	}
	if (!tap_ok(a.st == WEFT_OK && a.n_rows == 81 && over && cum > 0 &&
			    marked == cum && last_row(&a)->diag == cum &&
			    a.rows[40].new_tests > 300,
		    "overlapping interventions both test (over 300 a day from "
		    "day 10); each infected agent is diagnosed once (%lld)",
		    cum))
		tap_diag("%s", a.msg);
	run_seir(&b, "tiv-overlap-full", NULL, tt_base, overlap_full);
	tap_ok(a.csv && b.csv && !strcmp(a.csv, b.csv) && a.by_age &&
		       b.by_age && !strcmp(a.by_age, b.by_age),
	       "  ...byte-identical CSVs over every agent on 1 thread as "
	       "over the frontier on the default threads");
	run_free(&a);
	run_free(&b);
}

static void test_testing_isolation(void)
{
	static const char *iso[] = { "seir.test_symp_prob=1",
				     "seir.symp_prob=1",
				     "seir.diagnosed_factor=0", NULL };
	static const char *half[] = { "seir.test_symp_prob=1",
				      "seir.symp_prob=1",
				      "seir.diagnosed_factor=0.5", NULL };
	static const char *none[] = { "seir.symp_prob=1", NULL };
	run a, b, c;

	run_seir(&a, "iso-none", NULL, tt_base, none);
	run_seir(&b, "iso-half", NULL, tt_base, half);
	run_seir(&c, "iso-full", NULL, tt_base, iso);
	tap_ok(a.st == WEFT_OK && b.st == WEFT_OK && c.st == WEFT_OK &&
		       last_row(&a)->cum > last_row(&b)->cum &&
		       last_row(&b)->cum > last_row(&c)->cum,
	       "diagnosed agents isolate: %lld infected without testing, "
	       "%lld with diagnosed_factor 0.5, %lld with 0",
	       last_row(&a)->cum, last_row(&b)->cum, last_row(&c)->cum);
	run_free(&a);
	run_free(&b);
	run_free(&c);
}

/* Whether some contact of j (the CSR of a single stored layer) has the
 * diagnosis day `day` (a diagnosis word of day + 1). */
static int contact_diagnosed_on(const run *r, size_t n, uint32_t j,
				uint32_t day)
{
	for (uint32_t k = r->csr_rows[j]; k < r->csr_rows[j + 1]; k++)
		if (r->cols[k] < n && r->tt[r->cols[k]] == day + 1)
			return 1;
	return 0;
}

static void test_tracing(void)
{
	static const char *trace[] = {
		"seir.test_symp_prob=0.5", "seir.test_delay=1",
		"seir.trace_probs=1",	   "seir.trace_time=2",
		"seir.quar_period=10",	   NULL
	};
	static const char *quar0[] = { "seir.test_symp_prob=0.5",
				       "seir.trace_probs=1",
				       "seir.quar_factor=0", NULL };
	static const char *quar1[] = { "seir.test_symp_prob=0.5",
				       "seir.trace_probs=1",
				       "seir.quar_factor=1", NULL };
	static const char *full[] = { "seir.test_symp_prob=0.5",
				      "seir.test_asymp_prob=0.02",
				      "seir.trace_probs=0.6",
				      "seir.trace_time=1",
				      "seir.test_delay=2",
				      "seir.frontier=false",
				      NULL };
	static const char *trace_full[] = { "seir.test_symp_prob=0.5",
					    "seir.test_delay=1",
					    "seir.trace_probs=1",
					    "seir.trace_time=2",
					    "seir.quar_period=10",
					    "seir.frontier=false",
					    NULL };
	static const char *front_t1[] = { "seir.test_symp_prob=0.5",
					  "seir.test_asymp_prob=0.02",
					  "seir.trace_probs=0.6",
					  "seir.trace_time=1",
					  "seir.test_delay=2",
					  "backend.threads=1",
					  NULL };
	static const char *front[] = { "seir.test_symp_prob=0.5",
				       "seir.test_asymp_prob=0.02",
				       "seir.trace_probs=0.6",
				       "seir.trace_time=1",
				       "seir.test_delay=2",
				       "backend.threads=2",
				       NULL };
	long long quarantined = 0, notified = 0, bad_start = 0, bad_end = 0;
	long long conserved = 1;
	size_t n;
	run r, a, b;

	run_seir(&r, "trace", NULL, tt_base, trace);
	n = r.n_tt / 2;
	for (size_t j = 0; r.st == WEFT_OK && j < n; j++) {
		uint32_t q = r.tt[n + j], s = q & 0xFFFF, e = q >> 16;
		if (!q)
			continue;
		quarantined++;
		/* From the earliest notification 2 days after a contact's
		 * diagnosis, to 10 days after the latest. */
		bad_start += s < 2 || !contact_diagnosed_on(&r, n, j, s - 2);
		bad_end += e < 10 || e - s < 8 ||
			   !contact_diagnosed_on(&r, n, j, e - 10);
	}
	for (int d = 0; d < r.n_rows; d++) {
		const row *w = &r.rows[d];
		notified += w->new_quar;
		conserved &= w->s + w->e + w->ia + w->is + w->r + w->d == 20000;
	}
	if (!tap_ok(r.st == WEFT_OK && quarantined > 100 && bad_start == 0,
		    "tracing reaches only real contacts, exactly trace_time "
		    "2 days after their diagnosis (%lld quarantined; %lld "
		    "not)",
		    quarantined, bad_start))
		tap_diag("%s", r.msg);
	tap_ok(bad_end == 0 && conserved && notified >= quarantined,
	       "a quarantine ends quar_period 10 days after the diagnosis "
	       "that caused it (%lld not); states conserved; %lld "
	       "quarantines counted",
	       bad_end, notified);
	run_free(&r);

	run_seir(&a, "quar1", NULL, tt_base, quar1);
	run_seir(&b, "quar0", NULL, tt_base, quar0);
	tap_ok(a.st == WEFT_OK && b.st == WEFT_OK &&
		       last_row(&a)->cum > last_row(&b)->cum &&
		       last_row(&b)->new_quar + b.rows[60].new_quar > 0,
	       "quarantine protects: %lld infected with quar_factor 1, %lld "
	       "with 0",
	       last_row(&a)->cum, last_row(&b)->cum);
	run_free(&a);
	run_free(&b);

	run_seir(&a, "tt-front", NULL, tt_base, front);
	run_seir(&b, "tt-full", NULL, tt_base, full);
	tap_ok(a.st == WEFT_OK && last_row(&a)->diag > 0 &&
		       last_row(&a)->new_tests > last_row(&a)->new_diag &&
		       a.csv && b.csv && !strcmp(a.csv, b.csv),
	       "testing everyone and tracing: frontier and every agent give "
	       "byte-identical CSVs");
	run_free(&b);
	run_seir(&b, "tt-t1", NULL, tt_base, front_t1);
	tap_ok(b.csv && a.csv && !strcmp(a.csv, b.csv) &&
		       a.digest == b.digest && a.digest != 0,
	       "  ...and 1 and 2 threads every device buffer");
	run_free(&b);
	run_seir(&b, "tt-sym", NULL, tt_base, trace);
	run_seir(&r, "tt-sym-full", NULL, tt_base, trace_full);
	tap_ok(b.csv && r.csv && !strcmp(b.csv, r.csv),
	       "testing the symptomatic (over the active list) and tracing: "
	       "frontier and every agent give byte-identical CSVs");
	run_free(&r);
	run_free(&a);
	run_free(&b);
}

/* n_quarantined against a recount: the model stepped one day at a time,
 * its quarantine and diagnosis words read after each day, and the agents
 * counted whose words put them in quarantine that day (within the
 * quarantine's days, not diagnosed; seir_quarantined), with trace_time
 * 0 and 2, a diagnosis delay that ends quarantines early, and testing
 * without symptoms over every agent. */
static long long quar_recount(const uint32_t *w, size_t n, long long day)
{
	long long c = 0;

	for (size_t j = 0; j < n; j++) {
		uint32_t q = w[n + j], dg = w[j];
		c += day >= (q & 0xFFFF) && day < (q >> 16) &&
		     !(dg != 0 && dg - 1 <= day);
	}
	return c;
}

static void quar_stepped(const char *name, const char *const *sets,
			 int notified_today)
{
	char dir[512], set[600], path[600];
	weft_context *ctx = NULL;
	weft_config *cfg = NULL;
	weft_sim *sim = NULL;
	long long brute[64] = { 0 }, peak = 0;
	int days = 0, same = 1, sums = 1;
	size_t n = 4000, bytes = 0;
	run r;

	memset(&r, 0, sizeof r);
	snprintf(dir, sizeof dir, "%s/%s", tap_tmpdir(), name);
	snprintf(set, sizeof set, "output.directory=%s", dir);
	if ((r.st = weft_context_new(&ctx)) ||
	    (r.st = weft_config_new(ctx, &cfg)) ||
	    (r.st = weft_config_set(ctx, cfg, set)))
		goto done;
	for (; *sets; sets++)
		if ((r.st = weft_config_set(ctx, cfg, *sets)))
			goto done;
	if ((r.st = weft_sim_open(ctx, cfg, &sim)))
		goto done;
	for (days = 1; days <= 50; days++) {
		unsigned char *b;
		if ((r.st = weft_sim_step(sim, 1)))
			goto done;
		b = read_buffer(sim, "active set", &bytes);
		if (!b || bytes < ((n + 31) / 32 + 2 * n) * 4) {
			free(b);
			r.st = WEFT_E_INTERNAL;
			goto done;
		}
		brute[days] = quar_recount((const uint32_t *)b + (n + 31) / 32,
					   n, days);
		free(b);
	}
	r.st = weft_sim_finish(sim);
done:
	snprintf(r.msg, sizeof r.msg, "%s", weft_context_error(ctx));
	weft_sim_close(sim);
	weft_config_free(cfg);
	weft_context_free(ctx);
	snprintf(path, sizeof path, "%s/daily.csv", dir);
	if (r.st == WEFT_OK && (r.csv = tap_read_file(path, NULL)))
		parse_rows(&r);
	for (int d = 1; d < r.n_rows && d <= 50; d++) {
		same &= r.rows[d].n_quar == brute[d];
		sums &= !notified_today ||
			r.rows[d].n_quar - r.rows[d - 1].n_quar <=
				r.rows[d].new_quar;
		peak = brute[d] > peak ? brute[d] : peak;
	}
	if (!tap_ok(r.st == WEFT_OK && r.n_rows == 51 && same && peak > 50,
		    "%s: n_quarantined is the recount of the quarantine "
		    "words, day by day (peak %lld)",
		    name, peak))
		tap_diag("%s", r.msg);
	tap_ok(sums && r.n_rows && r.rows[0].n_quar == 0, "  ...0 on day 0%s",
	       notified_today ? "; with trace_time 0 "
				"it grows by at most new_quarantined a day"
			      : "");
	run_free(&r);
}

static void test_quarantined_count(void)
{
	static const char *const base[] = { "seir.population=random",
					    "seir.agents=4000",
					    "seir.contacts=12",
					    "seir.beta=0.08",
					    "seir.beta_community=1",
					    "seir.initial_infected=40",
					    "simulation.steps=50",
					    "seir.test_symp_prob=0.5",
					    "seir.trace_probs=0.8",
					    "seir.quar_period=7",
					    NULL };
	static const char *const t2[] = {
		"seir.population=random",    "seir.agents=4000",
		"seir.contacts=12",	     "seir.beta=0.08",
		"seir.beta_community=1",     "seir.initial_infected=40",
		"simulation.steps=50",	     "seir.test_symp_prob=0.5",
		"seir.test_asymp_prob=0.05", "seir.test_delay=2",
		"seir.trace_probs=0.8",	     "seir.trace_time=2",
		"seir.quar_period=7",	     NULL
	};
	static const char *const none[] = { "seir.test_symp_prob=0.5", NULL };
	long long zero = 0;
	char path[600];
	char *stepped;
	run a, b;

	quar_stepped("nquar-t0", base, 1);
	quar_stepped("nquar-t2", t2, 0);
	/* One run in one go: the same daily.csv as stepping a day at a
	 * time. */
	run_seir(&a, "nquar-go", NULL, t2, NULL);
	snprintf(path, sizeof path, "%s/nquar-t2/daily.csv", tap_tmpdir());
	stepped = tap_read_file(path, NULL);
	tap_ok(a.st == WEFT_OK && a.n_rows == 51 && a.csv && stepped &&
		       strcmp(a.csv, stepped) == 0,
	       "n_quarantined: one run of 50 days writes the daily.csv of "
	       "50 steps of one day");
	free(stepped);
	run_seir(&b, "nquar-none", NULL, tt_base, none);
	for (int d = 0; d < b.n_rows; d++)
		zero += b.rows[d].n_quar != 0;
	tap_ok(b.st == WEFT_OK && b.n_rows == 81 && zero == 0,
	       "n_quarantined: 0 every day without tracing");
	run_free(&a);
	run_free(&b);
}

static void bad_ini(const char *key_line, const char *const *sets,
		    const char *want)
{
	char path[600], text[800];
	run r;

	snprintf(path, sizeof path, "%s/bad.ini", tap_tmpdir());
	snprintf(text, sizeof text,
		 "[simulation]\nsteps = 5\n[seir]\npopulation = random\n"
		 "agents = 500\n%s\n",
		 key_line);
	if (tap_write_file(path, text))
		tap_bail("cannot write %s", path);
	run_seir(&r, "bad", path, NULL, sets);
	tap_ok(r.st == WEFT_E_CONFIG, "'%s' is refused", key_line);
	tap_contains(r.msg, want, "  ...with FILE:LINE, key, value and why");
	run_free(&r);
}

static void test_errors(void)
{
	static const char *fraction[] = { "seir.initial_fraction=0.1", NULL };
	static const char *start10[] = { "seir.test_start=10", NULL };
	static const char *symp[] = { "seir.test_symp_prob=0.1", NULL };
	static const char *symp_daily[] = { "seir.test_daily=10", NULL };
	static const char *symp_long[] = { "seir.test_symp_prob=0.1",
					   "simulation.steps=65530", NULL };

	bad_ini("latent_duration = gamma(3)", NULL,
		"/bad.ini:6: [seir] latent_duration = gamma(3): "
		"expected gamma(MEAN, SD): 2 numbers");
	bad_ini("sym_duration = weibull(3, 1)", NULL,
		"bad.ini:6: [seir] sym_duration = weibull(3, 1): unknown "
		"distribution 'weibull'");
	bad_ini("death_duration = fixed(500)", NULL,
		"bad.ini:6: [seir] death_duration = fixed(500): fixed(DAYS): "
		"DAYS must be a whole number from 1 to 120");
	bad_ini("interventions = school 30-90 0, wrk 1-5 0.5", NULL,
		"bad.ini:6: [seir] interventions = school 30-90 0, wrk 1-5 "
		"0.5: 'wrk 1-5 0.5': unknown layer 'wrk'");
	bad_ini("interventions = all 50-40 0.5", NULL,
		"bad.ini:6: [seir] interventions = all 50-40 0.5: 'all 50-40 "
		"0.5': the last day 40 comes before the first 50");
	bad_ini("symp_prob = 0.5, 0.6", NULL,
		"bad.ini:6: [seir] symp_prob = 0.5, 0.6: 2 values; expected 1 "
		"(every age) or 10");
	bad_ini("initial_infected = 20", fraction,
		"/bad.ini:6: initial_infected and --set "
		"seir.initial_fraction: initial_fraction are both set; set one "
		"of them");
	bad_ini("initial_infected = 501", NULL,
		"bad.ini:6: initial_infected = 501 exceeds agents = 500");
	bad_ini("vaccine_campaigns = days=5-90 dose=300", NULL,
		"bad.ini:6: [seir] vaccine_campaigns = days=5-90 dose=300: "
		"'days=5-90 dose=300': unknown setting 'dose' (days, doses, "
		"prob, coverage, ages, priority, second, vaccine, efficacy, "
		"symptoms, severe, first)");
	bad_ini("vaccine_campaigns = days=5-90 doses=300 coverage=1.5", NULL,
		"'days=5-90 doses=300 coverage=1.5': bad value of coverage: "
		"expected a number from 0 to 1");
	bad_ini("vaccine_campaigns = days=5- doses=30 ages=old", NULL,
		"'days=5- doses=30 ages=old': bad value of ages: expected "
		"LO-HI or LO+ (whole years, 0 to 120)");
	bad_ini("vaccine_campaigns = doses=300", NULL,
		"'doses=300': needs days=FIRST-LAST and one of doses=N (first "
		"doses a day) and prob=F (each agent's daily chance)");
	bad_ini("vaccine_campaigns = days=5-9 doses=300 prob=0.1", NULL,
		"'days=5-9 doses=300 prob=0.1': doses= and prob= both given: a "
		"campaign gives its doses by number or by chance");
	bad_ini("vaccine_campaigns = days=5-9 prob=0", NULL,
		"'days=5-9 prob=0': bad value of prob: expected a daily chance "
		"above 0, at most 1");
	bad_ini("vaccine_campaigns = days=5-9 prob=0.1 priority=oldest", NULL,
		"'days=5-9 prob=0.1 priority=oldest': prob= gives every agent "
		"of the group its chance each day, in no order: not with "
		"priority=oldest or bands");
	bad_ini("age_bands = 0-17, 20-64, 65+", NULL,
		"bad.ini:6: [seir] age_bands = 0-17, 20-64, 65+: '20-64': "
		"bands must run from 0 upwards without gaps or overlaps (this "
		"one should start at 18)");
	bad_ini("age_bands = 0-17, 18-64", NULL,
		"bad.ini:6: [seir] age_bands = 0-17, 18-64: the bands end at "
		"64: the last must reach 120 (say '18+')");
	bad_ini("test_daily = 100", symp,
		"bad.ini:6: [seir] test_daily = 100: testing by number and by "
		"probability (test_symp_prob, test_asymp_prob) in one run; "
		"choose one");
	bad_ini("trace_probs = 0.5", NULL,
		"bad.ini:6: [seir] trace_probs = 0.5: tracing follows "
		"diagnoses, and there is no testing");
	bad_ini("trace_probs = 0.5, 0.2", NULL,
		"bad.ini:6: [seir] trace_probs = 0.5, 0.2: 2 values; expected "
		"1 (every layer) or 4 (home, school, work, community)");
	bad_ini("trace_time = 14", NULL,
		"bad.ini:6: [seir] trace_time = 14: 14 days is not below "
		"quar_period = 14");
	bad_ini("quar_factor = 0.3, high", NULL,
		"bad.ini:6: [seir] quar_factor = 0.3, high: value 2: expected "
		"a number from 0 to 1");
	bad_ini("test_end = 3", start10,
		"bad.ini:6: [seir] test_end = 3 comes before --set "
		"seir.test_start: test_start = 10");
	bad_ini("quar_period = 14", symp_long,
		"bad.ini:6: [seir] quar_period = 14 with 65530 steps and "
		"testing: quarantines keep days in 16 bits, so steps + "
		"test_delay (the longest delay of the testing interventions, "
		"0) + quar_period must be at most 65534");
	bad_ini("test_interventions = days=5- symp=2", NULL,
		"bad.ini:6: [seir] test_interventions = days=5- symp=2: "
		"'days=5- symp=2': bad value of symp: expected a number from "
		"0 to 1");
	bad_ini("test_interventions = days=5- symp=0.1, days=9 daily=10", NULL,
		"bad.ini:6: [seir] test_interventions = days=5- symp=0.1, "
		"days=9 daily=10: 'days=9 daily=10': bad value of days: "
		"expected FIRST-LAST or FIRST- (whole days from 0 to 65000)");
	bad_ini("test_interventions = days=5- rate=0.1", NULL,
		"'days=5- rate=0.1': unknown setting 'rate' (days, symp, "
		"asymp, symp_quar, asymp_quar, daily, symp_odds, quar_odds, "
		"sensitivity, loss, delay)");
	bad_ini("test_interventions = symp=0.1", NULL,
		"'symp=0.1': needs days=FIRST-LAST or days=FIRST-");
	bad_ini("test_interventions = days=1- delay=2", NULL,
		"'days=1- delay=2': tests nobody: needs daily=N, or a chance "
		"above 0 (symp, asymp, symp_quar, asymp_quar)");
	bad_ini("test_interventions = days=1- daily=5 symp=0.1", NULL,
		"'days=1- daily=5 symp=0.1': testing by number (daily) and by "
		"probability (symp, asymp, symp_quar, asymp_quar) in one "
		"entry; choose one");
	bad_ini("test_interventions = days=1- daily=5, days=9- daily=7", NULL,
		"bad.ini:6: [seir] test_interventions = days=1- daily=5, "
		"days=9- daily=7: 'days=9- daily=7': a second testing "
		"intervention by number (daily); at most one in a run");
	bad_ini("test_interventions = days=1- daily=5", symp_daily,
		"'days=1- daily=5': a second testing intervention by number");
	bad_ini("age_bands = 0-17, old", NULL,
		"bad.ini:6: [seir] age_bands = 0-17, old: 'old': expected a "
		"band LO-HI or LO+ (whole years, 0 to 120)");
}

int main(void)
{
	test_errors();
	test_no_spread();
	test_deaths();
	test_severe_delays();
	test_capacity();
	test_capacity_factors();
	test_by_age();
	test_campaign_coverage();
	test_campaign_efficacy();
	test_campaign_chance();
	test_campaign_chance_more();
	test_campaigns_several();
	test_testing_counts();
	test_testing_isolation();
	test_testing_number();
	test_testing_several();
	test_tracing();
	test_quarantined_count();
	test_identical();
	test_count_work();
	test_crowded();
	test_opencl();
	test_final_size();
	test_growth();
	return tap_done();
}
