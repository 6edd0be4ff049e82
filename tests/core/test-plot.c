/*
 * tests/core/test-plot.c - [output] plot (core/run/plot.c): runs of SEIR and
 * CartPole on the OpenMP backend that draw their curves with gnuplot, as
 * PNG and SVG, and the script beside the CSV that draws them again; then
 * everything that must not fail a run: no gnuplot on PATH, a gnuplot that
 * fails, is killed (with the signals the caller blocked unblocked) or
 * draws nothing, each a "plot" summary line with the CSV as without a
 * plot. Last, the mistakes that are errors: a bad plot value (file:line),
 * an explicit plot without the CSV, and a model whose plot names a column
 * its CSV does not have. The checks that need gnuplot are skipped without
 * it.
 */
#include "internal.h"

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/sim.h"
#include "tap.h"

typedef struct run {
	weft_status st;
	char msg[WEFT__MSG_MAX];
	char note[600]; /* the "plot" summary line; "" when there is none */
	char dir[512];
} run;

static void note_of(const weft_sim *sim, run *r)
{
	const char *k, *v;

	r->note[0] = '\0';
	for (size_t i = 0; i < weft_sim_summary_count(sim); i++)
		if (weft_sim_summary_at(sim, i, &k, &v) == WEFT_OK &&
		    strcmp(k, "plot") == 0)
			snprintf(r->note, sizeof r->note, "%s", v);
}

/* Run model (NULL: the registry's) with SEIR's small defaults and sets
 * (NULL-terminated) into TMP/name, to the end. */
static void run_in(run *r, const char *name, const weft_model *model,
		   const char *const *sets)
{
	char set[600];
	weft_context *ctx = NULL;
	weft_config *cfg = NULL;
	weft_sim *sim = NULL;

	memset(r, 0, sizeof *r);
	snprintf(r->dir, sizeof r->dir, "%s/%s", tap_tmpdir(), name);
	snprintf(set, sizeof set, "output.directory=%s", r->dir);
	if ((r->st = weft_context_new(&ctx)))
		tap_bail("out of memory");
	if ((r->st = weft_config_new(ctx, &cfg)) ||
	    (r->st = weft_config_set(ctx, cfg, set)) ||
	    (r->st = weft_config_set(ctx, cfg, "simulation.steps=30")) ||
	    (r->st = weft_config_set(ctx, cfg, "seir.population=random")) ||
	    (r->st = weft_config_set(ctx, cfg, "seir.agents=3000")))
		goto done;
	for (; sets && *sets; sets++)
		if ((r->st = weft_config_set(ctx, cfg, *sets)))
			goto done;
	if ((r->st = weft__sim_open_model(ctx, cfg, model, &sim)) ||
	    (r->st = weft_sim_finish(sim)))
		goto done;
	note_of(sim, r);
done:
	snprintf(r->msg, sizeof r->msg, "%s", weft_context_error(ctx));
	weft_sim_close(sim);
	weft_config_free(cfg);
	weft_context_free(ctx);
}

static char *file_in(const run *r, const char *name, size_t *len)
{
	char path[700];

	snprintf(path, sizeof path, "%s/%s", r->dir, name);
	return tap_read_file(path, len);
}

static int exists_in(const run *r, const char *name)
{
	char path[700];

	snprintf(path, sizeof path, "%s/%s", r->dir, name);
	return access(path, F_OK) == 0;
}

/* Hidden files of dir other than allowed (NULL: none), each a diag. */
static int hidden_in(const char *dir, const char *allowed)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		if (e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 &&
		    strcmp(e->d_name, "..") != 0 &&
		    !(allowed && strstr(e->d_name, allowed))) {
			tap_diag("left: %s/%s", dir, e->d_name);
			n++;
		}
	if (d)
		closedir(d);
	return n;
}

/* No temporary file left in the run's directory (its manifest,
 * .weft-outputs, is the set's), and no set beside it. */
static int no_temporaries(const run *r)
{
	char parent[700];

	snprintf(parent, sizeof parent, "%s", r->dir);
	*strrchr(parent, '/') = '\0';
	return access(r->dir, F_OK) == 0 &&
	       !hidden_in(r->dir, ".weft-outputs") &&
	       !hidden_in(parent, ".weft-lock");
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* A PNG file: the signature, then an IHDR chunk of width x height. */
static int is_png(const char *path, uint32_t width, uint32_t height)
{
	size_t len = 0;
	unsigned char *d = (unsigned char *)tap_read_file(path, &len);
	int ok = d && len > 33 && memcmp(d, "\x89PNG\r\n\x1a\n", 8) == 0 &&
		 memcmp(d + 12, "IHDR", 4) == 0 && be32(d + 16) == width &&
		 be32(d + 20) == height;

	if (!ok)
		tap_diag("%s: %zu bytes, not a %ux%u PNG", path, len, width,
			 height);
	free(d);
	return ok;
}

/* SEIR's plot has two panels (900x800), CartPole's one (900x500). */
static int is_png_in(const run *r, const char *name, uint32_t height)
{
	char path[700];

	snprintf(path, sizeof path, "%s/%s", r->dir, name);
	return is_png(path, 900, height);
}

/* The CSV of run r is byte for byte the CSV of the run without a plot. */
static int same_csv(const run *r, const char *want)
{
	char *got = file_in(r, "daily.csv", NULL);
	int same = got && want && strcmp(got, want) == 0;

	free(got);
	return same;
}

/* ---- with gnuplot ---------------------------------------------------------
 */

/* The key stands right of the plot area, placed at screen X just right
 * of the area's end (gnuplot's "outside" key let long titles run back
 * over the plot), with room for titles of `chars` characters (about 8.5
 * pixels each, 100 for the samples, of 900). */
static void key_beside(const char *gp, int chars, const char *what)
{
	const char *k = gp ? strstr(gp, "set key at screen ") : NULL;
	const char *m = gp ? strstr(gp, "set rmargin at screen ") : NULL;
	double x = k ? atof(k + 18) : 0, right = m ? atof(m + 22) : 1;

	if (!tap_ok(k && m && x > right && x - right < 0.03 &&
			    right <= 1.0 - (8.5 * chars + 100) / 900 + 0.006 &&
			    strstr(k, "left top vertical Left reverse"),
		    "%s: the key is right of the plot area, with room for "
		    "its longest title (%d characters)",
		    what, chars))
		tap_diag("key at %g, plot area ends at %g", x, right);
}

static void test_png(const char *csv)
{
	static const char *const sets[] = { "output.plot=png", NULL };
	char *gp, cmd[800];
	run r;

	run_in(&r, "png", NULL, sets);
	if (!tap_ok(r.st == WEFT_OK, "a run with plot = png succeeds"))
		tap_diag("%s", r.msg);
	tap_ok(is_png_in(&r, "daily.png", 800),
	       "daily.png is a 900x800 PNG (signature and IHDR)");
	tap_ok(r.note[0] == '\0', "no 'plot' summary line when it was drawn");
	if (r.note[0])
		tap_diag("plot: %s", r.note);
	tap_ok(same_csv(&r, csv), "daily.csv is what a run without a plot "
				  "writes");
	tap_ok(no_temporaries(&r), "no temporary file is left");
	gp = file_in(&r, "daily.gp", NULL);
	tap_ok(gp && strstr(gp, "'daily.csv'") && strstr(gp, "'daily.png'") &&
		       strstr(gp, "using 1:($4+$5)") &&
		       strstr(gp, "title 'susceptible (S)'"),
	       "daily.gp plots daily.csv's columns by number, I_asym + I_sym "
	       "summed, into daily.png");
	key_beside(gp, (int)strlen("infectious (I_asym + I_sym)"), "SEIR");
	free(gp);

	/* The user's way: gnuplot daily.gp, in the directory. */
	snprintf(cmd, sizeof cmd,
		 "cd '%s' && rm -f daily.png && gnuplot daily.gp", r.dir);
	tap_ok(system(cmd) == 0 && is_png_in(&r, "daily.png", 800),
	       "'gnuplot daily.gp' in the output directory draws daily.png "
	       "again");
}

/* A plot the model adds at setup (weft_model_plot): SEIR's by age, a
 * curve per configured band, drawn after daily.png. */
static void test_added_plot(void)
{
	static const char *const sets[] = { "output.plot=png",
					    "seir.age_bands=0-17, 18-64, 65+",
					    NULL };
	char *gp;
	run r;

	run_in(&r, "added", NULL, sets);
	if (!tap_ok(r.st == WEFT_OK && r.note[0] == '\0',
		    "a run with age bands draws its plots"))
		tap_diag("%s %s", r.msg, r.note);
	tap_ok(is_png_in(&r, "daily.png", 800) &&
		       is_png_in(&r, "by_age.png", 800),
	       "daily.png, and by_age.png, the plot SEIR added at setup "
	       "(900x800: two panels)");
	gp = file_in(&r, "by_age.gp", NULL);
	tap_ok(gp && strstr(gp, "'by_age.csv'") &&
		       strstr(gp, "title 'aged 65+'") &&
		       strstr(gp, "title 'aged 0-17'"),
	       "from by_age.gp, a curve per band");
	free(gp);
	tap_ok(no_temporaries(&r), "no temporary file is left");
}

static void test_svg(void)
{
	static const char *const sets[] = { "output.plot=svg", NULL };
	char *svg;
	run r;

	run_in(&r, "svg", NULL, sets);
	tap_ok(r.st == WEFT_OK, "a run with plot = svg succeeds");
	svg = file_in(&r, "daily.svg", NULL);
	tap_ok(svg && strncmp(svg, "<?xml", 5) == 0 && strstr(svg, "<svg") &&
		       strstr(svg, "</svg>") &&
		       strstr(svg, "viewBox=\"0 0 900 800\"") &&
		       strstr(svg, "susceptible (S)") &&
		       strstr(svg, "new infections that day"),
	       "daily.svg is a whole 900x800 SVG with both panels' titles");
	tap_ok(!exists_in(&r, "daily.png"), "and no PNG");
	free(svg);
}

static void test_cartpole(void)
{
	static const char *const sets[] = { "simulation.model=cartpole",
					    "simulation.steps=200",
					    "cartpole.envs=256",
					    "output.every=20", NULL };
	char *gp;
	run r;

	run_in(&r, "cartpole", NULL, sets);
	if (!tap_ok(r.st == WEFT_OK, "a CartPole run succeeds"))
		tap_diag("%s", r.msg);
	tap_ok(is_png_in(&r, "episodes.png", 500),
	       "CartPole plots episodes.csv into episodes.png");
	gp = file_in(&r, "episodes.gp", NULL);
	tap_ok(gp && strstr(gp, "'episodes.csv'") != NULL,
	       "from the script episodes.gp");
	key_beside(gp, 30, "CartPole");
	free(gp);
	gp = file_in(&r, "episodes.csv", NULL);
	tap_ok(gp && strstr(gp, "\n20,0,,,0,\n") != NULL,
	       "no episode ended by step 20: no mean or longest return (empty "
	       "fields, no point plotted), not 0");
	free(gp);
}

/* ---- without gnuplot, or with a broken one ------------------------------ */

static void test_no_gnuplot(const char *csv, const char *empty_dir)
{
	static const char *const sets[] = { "output.plot=png", NULL };
	char *summary;
	run r;

	setenv("PATH", empty_dir, 1);
	run_in(&r, "nognuplot", NULL, sets);
	if (!tap_ok(r.st == WEFT_OK, "without gnuplot on PATH, plot = png "
				     "still succeeds"))
		tap_diag("%s", r.msg);
	tap_ok(same_csv(&r, csv), "with the same daily.csv");
	tap_contains(r.note, "not drawn: gnuplot not found on PATH",
		     "the 'plot' summary line says gnuplot was not found");
	tap_contains(r.note, "daily.gp", "and where the script is");
	summary = file_in(&r, "summary.txt", NULL);
	tap_contains(summary ? summary : "", "plot: not drawn: gnuplot",
		     "summary.txt has it too");
	free(summary);
	tap_ok(exists_in(&r, "daily.gp") && !exists_in(&r, "daily.png"),
	       "the script is written, no image");
	tap_ok(no_temporaries(&r), "no temporary file is left");
}

/* A gnuplot that runs body (a shell script), first on PATH. */
static void fake_gnuplot(const char *bin, const char *body)
{
	char path[600], text[800];

	snprintf(path, sizeof path, "%s/gnuplot", bin);
	snprintf(text, sizeof text, "#!/bin/sh\n%s\n", body);
	if (tap_write_file(path, text) != 0 || chmod(path, 0755) != 0)
		tap_bail("cannot write %s", path);
	setenv("PATH", bin, 1);
}

static void test_broken_gnuplot(const char *csv, const char *bin)
{
	static const char *const sets[] = { "output.plot=png", NULL };
	sigset_t term, old;
	run r;

	fake_gnuplot(bin, "echo 'gnuplot> plot data' >&2\n"
			  "echo '            ^' >&2\n"
			  "echo 'line 21: no such file' >&2\nexit 3");
	run_in(&r, "failing", NULL, sets);
	tap_ok(r.st == WEFT_OK && same_csv(&r, csv),
	       "a gnuplot that fails does not fail the run, nor change the "
	       "CSV");
	tap_contains(r.note,
		     "exited with status 3: gnuplot> plot data / "
		     "line 21: no such file",
		     "the note gives gnuplot's status and messages, without "
		     "the caret line");
	tap_ok(!exists_in(&r, "daily.png") && exists_in(&r, "daily.gp") &&
		       no_temporaries(&r),
	       "no image is kept, the script is");

	/* weft run blocks SIGINT and SIGTERM while it finishes; gnuplot
	 * must not inherit that. */
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, &old);
	fake_gnuplot(bin, "kill -TERM $$\nexit 0");
	run_in(&r, "killed", NULL, sets);
	sigprocmask(SIG_SETMASK, &old, NULL);
	tap_ok(r.st == WEFT_OK, "a gnuplot killed by a signal does not fail "
				"the run");
	tap_contains(r.note, "killed by signal 15",
		     "the note names the signal (SIGTERM, blocked in weft, "
		     "not in gnuplot)");

	fake_gnuplot(bin, "exit 0");
	run_in(&r, "silent", NULL, sets);
	tap_ok(r.st == WEFT_OK, "a gnuplot that draws nothing does not fail "
				"the run");
	tap_contains(r.note, "exited with status 0 but wrote no image",
		     "the note says no image was written");
	tap_ok(!exists_in(&r, "daily.png"), "and the empty image is not kept");
}

/* ---- choices and mistakes --------------------------------------------------
 */

static void test_none(void)
{
	static const char *const none[] = { "output.plot=none", NULL };
	static const char *const no_csv[] = { "output.csv=false", NULL };
	static const char *const both[] = { "output.csv=false",
					    "output.plot=svg", NULL };
	run r;

	run_in(&r, "none", NULL, none);
	tap_ok(r.st == WEFT_OK && exists_in(&r, "daily.csv") &&
		       !exists_in(&r, "daily.gp") &&
		       !exists_in(&r, "daily.png") && !r.note[0],
	       "plot = none: the CSV, no script, no image, no note");
	run_in(&r, "nocsv", NULL, no_csv);
	tap_ok(r.st == WEFT_OK && !exists_in(&r, "daily.gp") && !r.note[0],
	       "csv = false with the default plot: nothing plotted, no note");
	run_in(&r, "nocsv-plot", NULL, both);
	tap_ok(r.st == WEFT_E_CONFIG, "csv = false with plot = svg set is a "
				      "configuration error");
	tap_contains(r.msg,
		     "--set output.plot: [output] plot = svg needs the "
		     "CSV, but [output] csv = false (--set output.csv)",
		     "naming both keys and where they were set");
}

static void test_bad_value(void)
{
	char path[600];
	weft_context *ctx = NULL;
	weft_config *cfg = NULL;
	weft_status st;

	snprintf(path, sizeof path, "%s/bad.ini", tap_tmpdir());
	tap_write_file(path, "[simulation]\nsteps = 5\n\n[output]\n"
			     "csv = true\nplot = jpeg\n");
	if (weft_context_new(&ctx))
		tap_bail("out of memory");
	st = weft_config_load(ctx, path, &cfg);
	tap_ok(st == WEFT_E_CONFIG, "plot = jpeg is refused");
	tap_contains(weft_context_error(ctx), "bad.ini:6: [output] plot = jpeg",
		     "naming the file, line, section and key");
	tap_contains(weft_context_error(ctx), "png", "and listing the choices");
	weft_config_free(cfg);
	weft_context_free(ctx);
}

/* SEIR with another plot descriptor, or a layout without one. */
static void test_model_mistakes(const weft_model *seir)
{
	static const weft_plot_curve bad_curve[] = { { "S+Q", "S and Q",
						       NULL } };
	static const weft_plot_desc bad = {
		.struct_size = sizeof(weft_plot_desc),
		.csv = "daily.csv",
		.x = "day",
		.curves = bad_curve,
		.n_curves = 1,
	};
	weft_model m = *seir;
	run r;

	m.plot = &bad;
	run_in(&r, "badcolumn", &m, NULL);
	tap_ok(r.st == WEFT_E_MODEL, "a plot of a column the CSV lacks fails "
				     "the run (a model's mistake)");
	tap_contains(r.msg,
		     "model seir: its plot of daily.csv: column 'Q' "
		     "(of 'S+Q') is not in its header 'day,S,",
		     "naming the model, the CSV and the column");
	tap_ok(!exists_in(&r, "daily.csv"), "and committing nothing");

	m.struct_size = (uint32_t)offsetof(weft_model, plot);
	run_in(&r, "oldlayout", &m, NULL);
	tap_ok(r.st == WEFT_OK && !exists_in(&r, "daily.gp"),
	       "a descriptor too short to hold plot has none");
}

/* The model's table as its plugin has it (kept loaded while it runs). */
static void test_model_mistakes_of(const char *name)
{
	weft_model_plugin *p = NULL;
	weft_context *ctx = NULL;

	if (weft_context_new(&ctx) ||
	    weft_model_plugin_open(ctx, name, NULL, &p))
		tap_bail("cannot load the %s model plugin: %s", name,
			 weft_context_error(ctx));
	test_model_mistakes(weft_model_plugin_table(p));
	weft_model_plugin_close(p);
	weft_context_free(ctx);
}

int main(void)
{
	const char *path = getenv("PATH");
	char *saved = weft__strdup(path ? path : "/usr/bin:/bin");
	char empty[600], *csv;
	int have = system("command -v gnuplot > /dev/null 2>&1") == 0;
	static const char *const none[] = { "output.plot=none", NULL };
	run r;

	run_in(&r, "reference", NULL, none);
	csv = file_in(&r, "daily.csv", NULL);
	if (r.st || !csv)
		tap_bail("the run without a plot failed: %s", r.msg);
	if (have) {
		test_png(csv);
		test_svg();
		test_added_plot();
		test_cartpole();
	} else {
		tap_skip(13, "gnuplot is not on PATH");
	}
	snprintf(empty, sizeof empty, "%s/bin", tap_tmpdir());
	if (mkdir(empty, 0755) != 0)
		tap_bail("cannot create %s", empty);
	test_no_gnuplot(csv, empty);
	test_broken_gnuplot(csv, empty);
	setenv("PATH", saved, 1);
	test_none();
	test_bad_value();
	test_model_mistakes_of("seir");
	free(csv);
	free(saved);
	return tap_done();
}
