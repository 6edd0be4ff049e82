/*
 * tests/test-model.c - the SEIR model run for real through the loader and
 * the OpenMP backend, as any model is: determinism across thread counts
 * and repeated runs, seeds that matter, beta 0, conservation, output
 * stride, counters, and parameter errors. (What is particular to SEIR's
 * epidemiology is in tests/test-seir.c.)
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "tap.h"

/* Run seir with the given overrides (NULL-terminated); on success return
 * the daily CSV text, on failure NULL with the error in *msg. */
static char *run_seir(const char *name, const char *const *sets,
		      weft_stats *stats, char *msg, size_t msg_size)
{
	char dir[512], set[600], path[600];
	weft_context *ctx = NULL;
	weft_config *cfg = NULL;
	weft_sim *sim = NULL;
	char *csv = NULL;

	snprintf(dir, sizeof dir, "%s/%s", tap_tmpdir(), name);
	snprintf(set, sizeof set, "output.directory=%s", dir);
	if (weft_context_new(&ctx) || weft_config_new(ctx, &cfg) ||
	    weft_config_set(ctx, cfg, set) ||
	    weft_config_set(ctx, cfg, "simulation.steps=60") ||
	    weft_config_set(ctx, cfg, "seir.population=random") ||
	    weft_config_set(ctx, cfg, "seir.agents=5000"))
		goto done;
	for (; sets && *sets; sets++)
		if (weft_config_set(ctx, cfg, *sets))
			goto done;
	if (weft_sim_open(ctx, cfg, &sim) || weft_sim_step(sim, 1000) ||
	    weft_sim_finish(sim))
		goto done;
	if (stats && weft_sim_stats(sim, stats))
		goto done;
	snprintf(path, sizeof path, "%s/daily.csv", dir);
	csv = tap_read_file(path, NULL);
done:
	snprintf(msg, msg_size, "%s", weft_context_error(ctx));
	weft_sim_close(sim);
	weft_config_free(cfg);
	weft_context_free(ctx);
	return csv;
}

/* Column col (0 = day) of every data row, summed. */
static long long column_sum(const char *csv, int col, int *rows)
{
	long long sum = 0;
	const char *line = strchr(csv, '\n');
	*rows = 0;
	while (line && line[1]) {
		const char *p = line + 1;
		for (int c = 0; c < col; c++)
			p = strchr(p, ',') + 1;
		sum += atoll(p);
		(*rows)++;
		line = strchr(line + 1, '\n');
	}
	return sum;
}

/* S+E+I_asym+I_sym+R+D equals the population on every row, and the
 * cumulative count is the previous one plus the day's new infections. */
static int conserved(const char *csv, long long n)
{
	const char *line = strchr(csv, '\n');
	long long cum_before = -1;
	while (line && line[1]) {
		long long d, s, e, ia, is, r, dead, x, xd, cum, vac;
		if (sscanf(line + 1,
			   "%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,"
			   "%lld",
			   &d, &s, &e, &ia, &is, &r, &dead, &x, &xd, &cum,
			   &vac) != 11 ||
		    s + e + ia + is + r + dead != n ||
		    (cum_before >= 0 && cum != cum_before + x))
			return 0;
		cum_before = cum;
		line = strchr(line + 1, '\n');
	}
	return 1;
}

static void test_determinism(void)
{
	static const char *t1[] = { "backend.threads=1", NULL };
	static const char *t2[] = { "backend.threads=2", NULL };
	static const char *seed2[] = { "simulation.seed=2", NULL };
	char msg[WEFT__MSG_MAX];
	char *a = run_seir("t1", t1, NULL, msg, sizeof msg);
	char *b = run_seir("t2", t2, NULL, msg, sizeof msg);
	char *c = run_seir("t2again", t2, NULL, msg, sizeof msg);
	char *d = run_seir("seed2", seed2, NULL, msg, sizeof msg);
	int rows;

	if (!tap_ok(a && b && c && d, "four runs succeed"))
		tap_diag("%s", msg);
	tap_ok(a && b && strcmp(a, b) == 0,
	       "1 and 2 threads give byte-identical daily CSV");
	tap_ok(b && c && strcmp(b, c) == 0, "a repeated run is identical");
	tap_ok(a && d && strcmp(a, d) != 0, "a different seed differs");
	tap_ok(a && column_sum(a, 7, &rows) > 100,
	       "the epidemic spreads (more than 100 new infections)");
	TAP_EQ_INT(a ? (column_sum(a, 0, &rows), rows) : 0, 61,
		   "one row per day plus day 0");
	tap_ok(a && conserved(a, 5000),
	       "S+E+I_asym+I_sym+R+D = agents and cumulative counts add up "
	       "on every row");
	free(a);
	free(b);
	free(c);
	free(d);
}

static void test_beta_zero(void)
{
	static const char *sets[] = { "seir.beta=0",
				      "seir.initial_infected=50",
				      "seir.latent_duration=fixed(3)",
				      "seir.asym_duration=fixed(5)",
				      "seir.sym_duration=fixed(5)",
				      "seir.deaths=false",
				      NULL };
	char msg[WEFT__MSG_MAX];
	char *csv = run_seir("beta0", sets, NULL, msg, sizeof msg);
	int rows;

	tap_ok(csv != NULL, "beta 0 runs");
	TAP_EQ_INT(csv ? column_sum(csv, 7, &rows) : -1, 0,
		   "beta 0 gives no new infections");
	tap_ok(csv && strstr(csv, "\n60,4950,0,0,0,50,0,0,0,50,0\n"),
	       "beta 0: the 50 seeds recover and nobody else is touched");
	free(csv);
}

static void test_every_and_counters(void)
{
	static const char *sets[] = { "output.every=7", NULL };
	char msg[WEFT__MSG_MAX];
	weft_stats s = { .struct_size = sizeof s };
	char *csv = run_seir("every7", sets, &s, msg, sizeof msg);
	int rows;

	tap_ok(csv != NULL, "output.every = 7 runs");
	/* Days 0, 7, ..., 56 and the last day, 60. */
	TAP_EQ_INT(csv ? (column_sum(csv, 0, &rows), rows) : 0, 10,
		   "rows every 7 days plus the last day");
	tap_ok(csv && strstr(csv, "\n56,") && strstr(csv, "\n60,") &&
		       !strstr(csv, "\n55,"),
	       "rows are days 56 and 60, not 55");
	TAP_EQ_INT(s.steps, 60, "the backend counted 60 steps");
	TAP_EQ_INT(s.launches, 540, "nine launches per step (the frontier)");
	/* One download (read + sync) per output, none inside step(n). */
	TAP_EQ_INT(s.syncs, 9, "one sync per output chunk, none inside steps");
	tap_ok(s.xfer_count[WEFT_DIR_H2D] >= 5, "state was uploaded");
	free(csv);
}

static void test_param_errors(void)
{
	static const char *too_many[] = { "seir.agents=100",
					  "seir.initial_infected=101", NULL };
	char msg[WEFT__MSG_MAX];
	char *csv = run_seir("bad", too_many, NULL, msg, sizeof msg);

	tap_ok(csv == NULL, "initial_infected > agents is refused");
	tap_contains(msg, "initial_infected = 101 exceeds agents = 100",
		     "the message names both keys and values");
}

int main(void)
{
	test_determinism();
	test_beta_zero();
	test_every_and_counters();
	test_param_errors();
	return tap_done();
}
