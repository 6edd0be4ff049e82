/*
 * core/run/plot.c - [output] plot: the model's curves, drawn by gnuplot.
 *
 * After the model's finish(), while every output is still a temporary
 * file, the core writes NAME.gp beside the CSV the model's weft_plot_desc
 * names (a gnuplot script the user can run again) and runs
 *
 *     gnuplot -c TMP/.NAME.gp.XXXXXX TMP/.NAME.csv.XXXXXX TMP/.NAME.png.XXXXXX
 *
 * with posix_spawn(): no shell, the paths are arguments, never text of a
 * command. The image is kept only when gnuplot exits with status 0 and
 * wrote something; it is then committed with the other outputs, so a
 * failed or interrupted run leaves no plot either.
 *
 * A plot never fails a run. gnuplot missing from PATH, failing to start,
 * exiting with an error or killed becomes a "plot" line of the summary
 * saying why (with gnuplot's own messages), and the CSV and the script are
 * written as usual. What does fail the run is a mistake of the model (a
 * column that its CSV does not have) and failing to write the script.
 */
#include "run/sim.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define WEFT__PLOT_WIDTH      900
#define WEFT__PLOT_HEIGHT     500
#define WEFT__PLOT_HEIGHT_TWO 800 /* with a second panel */

/* What plotting one CSV needs, and the outputs it opened. */
typedef struct weft__plot {
	weft_sim *sim;
	const weft_plot_desc *pd;
	const char *format; /* "png" or "svg" */
	char base[128];	    /* pd->csv without ".csv": "daily" */
	char *header;	    /* the CSV's first line, owned */
	weft_output *csv, *script, *image;
} weft__plot;

/* ---- the descriptor and the CSV's columns ------------------------------- */

/* The second panel's curves, when the descriptor has them. */
static uint32_t weft__plot_n2(const weft_plot_desc *pd)
{
	if (pd->struct_size < offsetof(weft_plot_desc, n_curves2) +
				      sizeof pd->n_curves2 ||
	    !pd->curves2)
		return 0;
	return pd->n_curves2;
}

static const weft_plot_desc *weft__plot_desc(const weft_model *m)
{
	if (m->struct_size < offsetof(weft_model, plot) + sizeof m->plot)
		return NULL;
	return m->plot;
}

static weft_status weft__plot_bad(weft__plot *p, const char *fmt, ...)
	WEFT_PRINTF(2, 3);

/* A mistake in the model's plot descriptor: fails the run. */
static weft_status weft__plot_bad(weft__plot *p, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return weft__model_fail(&p->sim->mc, WEFT_E_MODEL, "its plot of %s: %s",
				p->pd->csv ? p->pd->csv : "(no CSV)", what);
}

/* p->base from pd->csv, and the checks that make the names usable. */
static weft_status weft__plot_names(weft__plot *p)
{
	const char *csv = p->pd->csv ? p->pd->csv : "";
	size_t n = strlen(csv);

	if (n > 4 && strcmp(csv + n - 4, ".csv") == 0)
		n -= 4;
	if (n == 0 || n >= sizeof p->base)
		return weft__plot_bad(p, "'%s' is not a CSV file name", csv);
	memcpy(p->base, csv, n);
	p->base[n] = '\0';
	if (!p->pd->x || p->pd->n_curves == 0 || !p->pd->curves)
		return weft__plot_bad(p, "no x column or no curves");
	return WEFT_OK;
}

/* The longest header line of a CSV that is plotted. */
#define WEFT__PLOT_HEADER_MAX 65536

/* Read the first line of the CSV, as written so far. */
static weft_status weft__plot_header(weft__plot *p)
{
	const char *path = weft__output_tmp(p->csv);
	weft_status st;
	FILE *f;
	int got;

	if ((st = weft__output_flush(p->csv)))
		return st;
	if (!(p->header = malloc(WEFT__PLOT_HEADER_MAX)))
		return weft__fail(p->sim->ctx, WEFT_E_NOMEM, "out of memory");
	f = fopen(path, "r");
	if (!f)
		return weft__fail(p->sim->ctx, WEFT_E_IO, "cannot read %s: %s",
				  path, strerror(errno));
	got = fgets(p->header, WEFT__PLOT_HEADER_MAX, f) != NULL;
	fclose(f);
	if (!got || !p->header[0])
		return weft__plot_bad(p, "the CSV has no header line");
	if (!strchr(p->header, '\n'))
		return weft__plot_bad(p,
				      "the CSV's header line is longer than "
				      "%d bytes",
				      WEFT__PLOT_HEADER_MAX - 2);
	p->header[strcspn(p->header, "\r\n")] = '\0';
	return WEFT_OK;
}

/* gnuplot's `using` expression for "A" or "A+B": "2", or "($4+$5)". */
static weft_status weft__plot_using(weft__plot *p, const char *columns,
				    char *out, size_t size)
{
	int many = strchr(columns, '+') != NULL;
	const char *c = columns;
	size_t used = 0;

	for (;;) {
		size_t len = strcspn(c, "+");
		unsigned idx = weft__plot_column(p->header, c, len);
		if (len == 0 || idx == 0)
			return weft__plot_bad(p,
					      "column '%.*s' (of '%s') is not "
					      "in its header '%s'",
					      (int)len, c, columns, p->header);
		used += (size_t)snprintf(
			out + used, size - used, many ? "%s$%u" : "%s%u",
			c == columns ? (many ? "(" : "") : "+", idx);
		if (used >= size)
			return weft__plot_bad(p, "'%s' has too many columns",
					      columns);
		c += len;
		if (!*c++)
			break;
	}
	if (many &&
	    (used += (size_t)snprintf(out + used, size - used, ")")) >= size)
		return weft__plot_bad(p, "'%s' has too many columns", columns);
	return WEFT_OK;
}

/* ---- the script -------------------------------------------------------- */

/* s as a gnuplot single-quoted string: '' stands for ', and nothing else
 * is special; control characters become blanks. */
static void weft__plot_quote(char *out, size_t size, const char *s)
{
	size_t n = 0;

	out[n++] = '\'';
	for (; s && *s && n + 3 < size; s++) {
		if (*s == '\'')
			out[n++] = '\'';
		out[n++] = (unsigned char)*s < ' ' ? ' ' : *s;
	}
	out[n++] = '\'';
	out[n] = '\0';
}

static int weft__plot_is_color(const char *c)
{
	if (c[0] != '#' || strlen(c) != 7)
		return 0;
	for (int i = 1; i < 7; i++)
		if (!strchr("0123456789abcdefABCDEF", c[i]))
			return 0;
	return 1;
}

/* Where the data come from and go to: the arguments of `gnuplot -c`,
 * else the files beside the script. */
static weft_status weft__plot_script_head(weft__plot *p, const char *image)
{
	char csv[160], img[160];

	weft__plot_quote(csv, sizeof csv, p->pd->csv);
	weft__plot_quote(img, sizeof img, image);
	return weft__output_printf(
		p->script,
		"# %s.gp: the curves of %s, written by weft %s for the "
		"model %s.\n"
		"# In this directory, `gnuplot %s.gp` draws %s again, and\n"
		"# `gnuplot -c %s.gp DATA.csv IMAGE` draws another run's "
		"CSV.\n"
		"data = ARGC >= 1 ? ARG1 : %s\n"
		"image = ARGC >= 2 ? ARG2 : %s\n",
		p->base, p->pd->csv, PACKAGE_VERSION, p->sim->model->name,
		p->base, image, p->base, csv, img);
}

/* pngcairo draws smoother lines than png (libgd); either may be missing
 * from a gnuplot build. */
static weft_status weft__plot_script_terminal(weft__plot *p)
{
	int w = WEFT__PLOT_WIDTH, h = weft__plot_n2(p->pd)
					      ? WEFT__PLOT_HEIGHT_TWO
					      : WEFT__PLOT_HEIGHT;

	if (strcmp(p->format, "svg") == 0)
		return weft__output_printf(
			p->script,
			"set terminal svg size %d,%d dynamic "
			"noenhanced\n",
			w, h);
	return weft__output_printf(
		p->script,
		"if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
		"\tset terminal pngcairo size %d,%d noenhanced\n"
		"} else {\n"
		"\tset terminal png size %d,%d noenhanced\n"
		"}\n",
		w, h, w, h);
}

/* The longest title in the key, in characters. */
static size_t weft__plot_longest(const weft_plot_curve *c, uint32_t n,
				 size_t most)
{
	for (uint32_t i = 0; i < n; i++) {
		const char *t = c[i].label ? c[i].label : c[i].columns;
		size_t len = t ? strlen(t) : 0;
		most = len > most ? len : most;
	}
	return most;
}

/* Where the plot area ends (a fraction of the width): the key stands to
 * its right, placed there (gnuplot's own "outside" key lets long titles
 * run back over the plot), its samples first and its titles left-aligned
 * after them, so the longest title decides the room it takes (about 8.5
 * pixels a character, 100 for the sample and the gaps), never less than
 * half the width for the plot. */
static double weft__plot_right(const weft_plot_desc *pd)
{
	size_t chars = weft__plot_longest(pd->curves, pd->n_curves, 0);
	double key;

	if (weft__plot_n2(pd))
		chars = weft__plot_longest(pd->curves2, pd->n_curves2, chars);
	key = (8.5 * (double)chars + 100.0) / WEFT__PLOT_WIDTH;
	return key > 0.5 ? 0.5 : key < 0.15 ? 0.85 : 1.0 - key;
}

/* The title over the image (a multiplot's, with two panels), the axes
 * both panels share, and the key outside the plot area, on its right. */
static weft_status weft__plot_script_axes(weft__plot *p)
{
	double right = weft__plot_right(p->pd);
	char title[300], xl[160];

	weft__plot_quote(title, sizeof title, p->pd->title);
	weft__plot_quote(xl, sizeof xl, p->pd->xlabel);
	return weft__output_printf(p->script,
				   "set output image\n"
				   "set datafile separator comma\n"
				   "%s %s\n"
				   "set xlabel %s\n"
				   "set grid\n"
				   "set key at screen %.2f, graph 1 left top "
				   "vertical Left reverse\n"
				   "set lmargin 10\n"
				   "set rmargin at screen %.2f\n"
				   "set autoscale xfix\n",
				   weft__plot_n2(p->pd)
					   ? "set multiplot layout 2,1 title"
					   : "set title",
				   title, xl, right + 0.02, right);
}

/* One panel: its y label, then one `data using X:Y with lines ... title
 * ...` per curve; the header line, not being numbers, is skipped by
 * gnuplot. */
static weft_status weft__plot_script_curves(weft__plot *p, const char *ylabel,
					    const weft_plot_curve *curves,
					    uint32_t n)
{
	char x[64], y[256], label[200], color[40];
	weft_status st;

	if ((st = weft__plot_using(p, p->pd->x, x, sizeof x)))
		return st;
	weft__plot_quote(label, sizeof label, ylabel ? ylabel : "");
	if ((st = weft__output_printf(p->script, "set ylabel %s\n", label)))
		return st;
	for (uint32_t i = 0; i < n; i++) {
		const weft_plot_curve *c = &curves[i];
		if ((st = weft__plot_using(p, c->columns ? c->columns : "", y,
					   sizeof y)))
			return st;
		if (c->color && !weft__plot_is_color(c->color))
			return weft__plot_bad(p, "colour '%s' is not #rrggbb",
					      c->color);
		weft__fmt(color, sizeof color, " linecolor rgb '%s'",
			  c->color ? c->color : "");
		weft__plot_quote(label, sizeof label,
				 c->label ? c->label : c->columns);
		st = weft__output_printf(p->script,
					 "%s data using %s:%s with lines "
					 "linewidth 2%s title %s%s\n",
					 i == 0 ? "plot" : "    ", x, y,
					 c->color ? color : "", label,
					 i + 1 < n ? ", \\" : "");
		if (st)
			return st;
	}
	return WEFT_OK;
}

static weft_status weft__plot_script(weft__plot *p)
{
	char name[160];
	weft_status st;

	weft__fmt(name, sizeof name, "%s.gp", p->base);
	if ((st = weft__sim_output_open(p->sim, name, &p->script)))
		return st;
	weft__fmt(name, sizeof name, "%s.%s", p->base, p->format);
	if ((st = weft__plot_script_head(p, name)) ||
	    (st = weft__plot_script_terminal(p)) ||
	    (st = weft__plot_script_axes(p)) ||
	    (st = weft__plot_script_curves(p, p->pd->ylabel, p->pd->curves,
					   p->pd->n_curves)))
		return st;
	if (weft__plot_n2(p->pd) &&
	    ((st = weft__plot_script_curves(p, p->pd->ylabel2, p->pd->curves2,
					    weft__plot_n2(p->pd))) ||
	     (st = weft__output_printf(p->script, "unset multiplot\n"))))
		return st;
	return weft__output_flush(p->script);
}

/* Open the image, run gnuplot -c SCRIPT DATA IMAGE on the temporary
 * files; keep the image when gnuplot drew one, else say why in why. */
static weft_status weft__plot_draw(weft__plot *p, const char *gnuplot,
				   char *why, size_t size)
{
	char name[160];
	char *argv[6];
	struct stat sb;
	weft_status st;
	int rc;

	weft__fmt(name, sizeof name, "%s.%s", p->base, p->format);
	if ((st = weft__sim_output_open(p->sim, name, &p->image)))
		return st;
	argv[0] = (char *)"gnuplot";
	argv[1] = (char *)"-c";
	argv[2] = (char *)weft__output_tmp(p->script);
	argv[3] = (char *)weft__output_tmp(p->csv);
	argv[4] = (char *)weft__output_tmp(p->image);
	argv[5] = NULL;
	rc = weft__plot_gnuplot(p->sim->ctx, gnuplot, argv, why, size);
	if (rc == WEFT_E_CANCELLED)
		return weft__cancel_fail(p->sim->ctx,
					 "drawing the plot (gnuplot was "
					 "killed)");
	if (rc == 0 && (stat(argv[4], &sb) != 0 || sb.st_size == 0))
		weft__fmt(why, size,
			  "%s exited with status 0 but wrote no "
			  "image",
			  gnuplot);
	if (why[0]) {
		weft__outputs_drop(&p->sim->outputs, p->image);
		p->image = NULL;
	}
	return WEFT_OK;
}

/* The summary line of a plot not drawn. */
static weft_status weft__plot_note(weft__plot *p, const char *why)
{
	return weft__model_summary(&p->sim->mc, "plot",
				   "not drawn: %s; the script is %s/%s.gp", why,
				   p->sim->outdir, p->base);
}

static weft_status weft__plot_run(weft__plot *p)
{
	char why[400] = "";
	char *gnuplot = NULL;
	weft_status st;

	if ((st = weft__plot_names(p)) || (st = weft__plot_header(p)) ||
	    (st = weft__plot_script(p)) ||
	    (st = weft__plot_find(p->sim->ctx, "gnuplot", &gnuplot)))
		return st;
	if (!gnuplot)
		weft__fmt(why, sizeof why,
			  "gnuplot not found on PATH "
			  "(install it, e.g. apt install "
			  "gnuplot-nox)");
	else
		st = weft__plot_draw(p, gnuplot, why, sizeof why);
	free(gnuplot);
	if (st == WEFT_OK && why[0])
		st = weft__plot_note(p, why);
	return st;
}

/* One plot, from the CSV output pd names. */
static weft_status weft__plot_one(weft_sim *sim, const weft_plot_desc *pd,
				  const char *format)
{
	weft__plot p = { .sim = sim, .pd = pd, .format = format };
	weft_status st;

	p.csv = pd->csv ? weft__outputs_find(&sim->outputs, pd->csv) : NULL;
	if (!p.csv)
		return weft__plot_bad(&p, "the model did not open that file");
	st = weft__plot_run(&p);
	free(p.header);
	return st;
}

weft_status weft__sim_plot(weft_sim *sim)
{
	const char *format = weft__config_opts(sim->cfg)->output.plot;
	const weft_plot_desc *pd = weft__plot_desc(sim->model);
	weft_status st = WEFT_OK;

	/* Drawn from the CSV: nothing to draw without it (the default plot
	 * with csv = false; an explicit one is refused by validation). */
	if (strcmp(format, "none") == 0 ||
	    !weft__config_opts(sim->cfg)->output.csv)
		return WEFT_OK;
	if (pd)
		st = weft__plot_one(sim, pd, format);
	for (size_t i = 0; st == WEFT_OK && i < sim->n_plots; i++)
		st = weft__plot_one(sim, sim->plots[i], format);
	return st;
}

/* ---- plots added at setup (weft_model_plot) ------------------------------ */

/* A copy of s, or NULL for NULL (and when out of memory). */
static char *weft__plot_dup(const char *s)
{
	return s ? weft__strdup(s) : NULL;
}

/* Curves copied into new memory, their strings too; NULL when out of
 * memory. */
static weft_plot_curve *weft__plot_curves_copy(const weft_plot_curve *c,
					       uint32_t n, int *ok)
{
	weft_plot_curve *out = calloc(n ? n : 1, sizeof *out);

	for (uint32_t i = 0; out && i < n; i++) {
		out[i].columns = weft__plot_dup(c[i].columns);
		out[i].label = weft__plot_dup(c[i].label);
		out[i].color = weft__plot_dup(c[i].color);
		*ok &= (!c[i].columns || out[i].columns) &&
		       (!c[i].label || out[i].label) &&
		       (!c[i].color || out[i].color);
	}
	*ok &= out != NULL;
	return out;
}

static void weft__plot_curves_free(const weft_plot_curve *c, uint32_t n)
{
	for (uint32_t i = 0; c && i < n; i++) {
		free((char *)c[i].columns);
		free((char *)c[i].label);
		free((char *)c[i].color);
	}
	free((weft_plot_curve *)c);
}

static void weft__plot_desc_free(weft_plot_desc *d)
{
	if (!d)
		return;
	free((char *)d->csv);
	free((char *)d->title);
	free((char *)d->x);
	free((char *)d->xlabel);
	free((char *)d->ylabel);
	free((char *)d->ylabel2);
	weft__plot_curves_free(d->curves, d->n_curves);
	weft__plot_curves_free(d->curves2, d->n_curves2);
	free(d);
}

/* A deep copy of pd in this core's layout (fields beyond pd's struct_size
 * left empty); NULL when out of memory. */
static weft_plot_desc *weft__plot_desc_copy(const weft_plot_desc *pd)
{
	weft_plot_desc *d = calloc(1, sizeof *d);
	uint32_t n2 = weft__plot_n2(pd);
	int ok = d != NULL;

	if (!d)
		return NULL;
	d->struct_size = sizeof *d;
	d->csv = weft__plot_dup(pd->csv);
	d->title = weft__plot_dup(pd->title);
	d->x = weft__plot_dup(pd->x);
	d->xlabel = weft__plot_dup(pd->xlabel);
	d->ylabel = weft__plot_dup(pd->ylabel);
	d->curves = weft__plot_curves_copy(pd->curves, pd->n_curves, &ok);
	d->n_curves = pd->n_curves;
	if (n2) {
		d->ylabel2 = weft__plot_dup(pd->ylabel2);
		d->curves2 = weft__plot_curves_copy(pd->curves2, n2, &ok);
		d->n_curves2 = n2;
	}
	if (ok && (!pd->csv || d->csv) && (!pd->title || d->title) &&
	    (!pd->x || d->x) && (!pd->xlabel || d->xlabel) &&
	    (!pd->ylabel || d->ylabel) && (!n2 || !pd->ylabel2 || d->ylabel2))
		return d;
	weft__plot_desc_free(d);
	return NULL;
}

weft_status weft__sim_plot_add(weft_sim *sim, const weft_plot_desc *pd)
{
	weft_plot_desc **grown;
	weft_plot_desc *d;

	if (!pd || pd->struct_size < offsetof(weft_plot_desc, n_curves) +
					     sizeof pd->n_curves)
		return weft__model_fail(
			&sim->mc, WEFT_E_INVALID, "weft_model_plot: %s",
			pd ? "struct_size too small for a plot" : "NULL plot");
	grown = realloc(sim->plots, (sim->n_plots + 1) * sizeof *grown);
	if (!grown)
		return weft__model_fail(&sim->mc, WEFT_E_NOMEM,
					"out of memory");
	sim->plots = grown;
	if (!(d = weft__plot_desc_copy(pd)))
		return weft__model_fail(&sim->mc, WEFT_E_NOMEM,
					"out of memory");
	sim->plots[sim->n_plots++] = d;
	return WEFT_OK;
}

void weft__sim_plots_free(weft_sim *sim)
{
	for (size_t i = 0; i < sim->n_plots; i++)
		weft__plot_desc_free(sim->plots[i]);
	free(sim->plots);
	sim->plots = NULL;
	sim->n_plots = 0;
}
