/*
 * tests/test-seir.c - the SEIR model's epidemiology and guarantees, run
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
 *  - bad parameters fail with FILE:LINE, the key, the value and why.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weft/weft.h>

#include "tap.h"

/* One day of daily.csv. */
typedef struct row {
	long long day, s, e, ia, is, r, d, new_inf, new_d, cum, vac;
} row;

typedef struct run {
	char *csv;
	row *rows;
	int n_rows;
	weft_status st;
	char msg[2048];
	uint64_t digest; /* the hashes of every device buffer, combined */
} run;

static void run_free(run *r)
{
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
			   "%lld",
			   &w->day, &w->s, &w->e, &w->ia, &w->is, &w->r, &w->d,
			   &w->new_inf, &w->new_d, &w->cum, &w->vac) != 11)
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
	    (r->st = weft_sim_finish(sim)) || (r->st = state_digest(sim, r)))
		goto done;
	snprintf(path, sizeof path, "%s/daily.csv", dir);
	r->csv = tap_read_file(path, NULL);
	if (r->csv)
		parse_rows(r);
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
		tap_skip(3, "OpenCL is not available here");
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

/* ---- errors -------------------------------------------------------------- */

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
}

int main(void)
{
	test_errors();
	test_no_spread();
	test_deaths();
	test_identical();
	test_count_work();
	test_crowded();
	test_opencl();
	test_final_size();
	test_growth();
	return tap_done();
}
