/*
 * core/ensemble/ensemble_plot.c - an ensemble's plots ([output] plot): per
 * scenario SCENARIO.png, the median of each band column with its 25-75 %
 * and 5-95 % bands; compare.png, one column's median and 5-95 % band for
 * every scenario. Each is a gnuplot script beside its image, drawn from
 * the aggregated CSVs of the same directory (`gnuplot SCENARIO.gp` there
 * draws it again). As for a run, a plot never fails the ensemble: gnuplot
 * missing or failing is a "plot" line of the summary.
 */
#include "config/cfg.h"

#include <stdlib.h>
#include <string.h>

#include "ensemble/ensemble.h"

#define ENS_STATS 7 /* mean, std, q05, q25, q50, q75, q95 */

static const char *const ens_colors[] = { "#1f77b4", "#d62728", "#2ca02c",
					  "#ff7f0e", "#9467bd", "#8c564b",
					  "#e377c2", "#17becf" };
#define ENS_NCOLORS (sizeof ens_colors / sizeof *ens_colors)

/* The 1-based column of stat s (0 mean ... 6 q95) of the aggregated
 * column `name` in SCENARIO.csv (x is column 1); 0 when not there. */
static unsigned ens_plot_col(const weft_ensemble *e, const char *header,
			     const char *name, size_t len, int s)
{
	const char *list = e->columns ? e->columns : header;
	unsigned j = 0;

	for (const char *p = list;;) {
		size_t n = strcspn(p, ",");
		if (!(n == strlen(e->x) && strncmp(p, e->x, n) == 0)) {
			if (n == len && strncmp(p, name, len) == 0)
				return 2 + j * ENS_STATS + (unsigned)s;
			j++;
		}
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

static weft_status ens_plot_head(weft_output *o, const char *base,
				 const char *format, const char *title,
				 const char *xlabel)
{
	if (strcmp(format, "svg") == 0)
		return weft__output_printf(
			o,
			"# %s.gp, written by weft %s: in this directory, "
			"`gnuplot %s.gp` draws %s.svg again.\n"
			"dir = ARGC >= 1 ? ARG1 : '.'\n"
			"set terminal svg size 900,560 dynamic noenhanced\n"
			"set output dir.'/%s.svg'\n"
			"set datafile separator ','\n"
			"set title '%s'\nset xlabel '%s'\n"
			"set key outside right top\n",
			base, PACKAGE_VERSION, base, base, base, title, xlabel);
	return weft__output_printf(
		o,
		"# %s.gp, written by weft %s: in this directory, `gnuplot "
		"%s.gp` draws %s.png again.\n"
		"dir = ARGC >= 1 ? ARG1 : '.'\n"
		"if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
		"\tset terminal pngcairo size 900,560 noenhanced\n"
		"} else {\n"
		"\tset terminal png size 900,560 noenhanced\n"
		"}\n"
		"set output dir.'/%s.png'\n"
		"set datafile separator ','\n"
		"set title '%s'\nset xlabel '%s'\n"
		"set key outside right top\n",
		base, PACKAGE_VERSION, base, base, base, title, xlabel);
}

/* One band of one column of csv: 5-95 % and 25-75 % filled, the median
 * a line titled label. */
static weft_status ens_plot_band(weft_output *o, int first, const char *csv,
				 unsigned x, unsigned q05, const char *color,
				 const char *label, int inner)
{
	weft_status st = weft__output_printf(
		o,
		"%s dir.'/%s' every ::1 using %u:%u:%u with filledcurves "
		"fs transparent solid 0.15 noborder lc rgb '%s' notitle",
		first ? "plot" : ", \\\n    ", csv, x, q05, q05 + 4, color);

	if (st == WEFT_OK && inner)
		st = weft__output_printf(
			o,
			", \\\n     dir.'/%s' every ::1 using %u:%u:%u with "
			"filledcurves fs transparent solid 0.3 noborder lc "
			"rgb '%s' notitle",
			csv, x, q05 + 1, q05 + 3, color);
	if (st == WEFT_OK)
		st = weft__output_printf(
			o,
			", \\\n     dir.'/%s' every ::1 using %u:%u with lines "
			"lw 2 lc rgb '%s' title '%s'",
			csv, x, q05 + 2, color, label);
	return st;
}

/* Draw base.gp with gnuplot into base.FORMAT, or say why not. */
static weft_status ens_plot_draw(weft_ensemble *e, const char *gnuplot,
				 weft_output *script, const char *base,
				 const char *format)
{
	char name[1100], why[400] = "";
	char *argv[5];
	weft_output *img;
	weft_status st;
	int rc;

	weft__fmt(name, sizeof name, "%s.%s", base, format);
	if ((st = weft__output_flush(script)) ||
	    (st = weft__output_open(e->ctx, &e->out, name, &img)))
		return st;
	argv[0] = (char *)"gnuplot";
	argv[1] = (char *)"-c";
	argv[2] = (char *)weft__output_tmp(script);
	argv[3] = e->out.tmp;
	argv[4] = NULL;
	if (!gnuplot)
		weft__fmt(why, sizeof why,
			  "gnuplot not found on PATH (install it, e.g. apt "
			  "install gnuplot-nox)");
	else if ((rc = weft__plot_gnuplot(e->ctx, gnuplot, argv, why,
					  sizeof why)) == WEFT_E_CANCELLED)
		return weft__cancel_fail(e->ctx, "drawing the ensemble's "
						 "plots (gnuplot was killed)");
	if (!why[0])
		return WEFT_OK;
	weft__outputs_drop(&e->out, img);
	return weft__ens_summary(e, "plot", "%s not drawn: %s", name, why);
}

/* SCENARIO.gp: the band columns of group g. */
static weft_status ens_plot_group(weft_ensemble *e, const char *gnuplot,
				  const char *format, size_t g)
{
	const char *label = e->groups[g].label;
	const char *header = e->res[g * e->per_group].header;
	const char *bands = e->bands	 ? e->bands
			    : e->columns ? e->columns
					 : header;
	char name[1100], csv[1100], title[1400];
	weft_output *o;
	weft_status st;
	int n = 0;

	weft__fmt(name, sizeof name, "%s.gp", label);
	weft__fmt(csv, sizeof csv, "%s.csv", label);
	weft__fmt(title, sizeof title,
		  "%s: median, 25-75 %% and 5-95 %% of %zu runs", label,
		  e->per_group);
	if ((st = weft__output_open(e->ctx, &e->out, name, &o)) ||
	    (st = ens_plot_head(o, label, format, title, e->x)))
		return st;
	for (const char *p = bands; st == WEFT_OK && n < 4;) {
		size_t len = strcspn(p, ",");
		unsigned q05 = ens_plot_col(e, header, p, len, 2);
		char col[128];
		weft__fmt(col, sizeof col, "%.*s", (int)len, p);
		if (q05)
			st = ens_plot_band(o, n == 0, csv, 1, q05,
					   ens_colors[n % ENS_NCOLORS], col, 1);
		n += q05 != 0;
		if (!p[len])
			break;
		p += len + 1;
	}
	if (st == WEFT_OK)
		st = weft__output_printf(o, "\n");
	weft__fmt(name, sizeof name, "%s", label);
	return st ? st : ens_plot_draw(e, gnuplot, o, name, format);
}

/* compare.gp: the compared column of every scenario with aggregates. */
static weft_status ens_plot_compare(weft_ensemble *e, const char *gnuplot,
				    const char *format)
{
	const char *header = NULL, *col;
	char title[256], csv[1100];
	weft_output *o;
	weft_status st;
	int n = 0;

	for (size_t g = 0; !header && g < e->n_groups; g++)
		if (!e->groups[g].failed)
			header = e->res[g * e->per_group].header;
	col = e->compare   ? e->compare
	      : e->bands   ? e->bands
	      : e->columns ? e->columns
			   : NULL;
	if (!header)
		return WEFT_OK;
	if (!col) /* the first column that is not x */
		col = strncmp(header, e->x, strlen(e->x)) == 0
			      ? header + strcspn(header, ",") +
					(header[strcspn(header, ",")] != 0)
			      : header;
	weft__fmt(title, sizeof title,
		  "%.*s: median and 5-95 %% of %zu runs per scenario",
		  (int)strcspn(col, ","), col, e->per_group);
	if ((st = weft__output_open(e->ctx, &e->out, "compare.gp", &o)) ||
	    (st = ens_plot_head(o, "compare", format, title, e->x)))
		return st;
	for (size_t g = 0; st == WEFT_OK && g < e->n_groups; g++) {
		unsigned q05 =
			ens_plot_col(e, header, col, strcspn(col, ","), 2);
		if (e->groups[g].failed || !q05)
			continue;
		weft__fmt(csv, sizeof csv, "%s.csv", e->groups[g].label);
		st = ens_plot_band(o, n == 0, csv, 1, q05,
				   ens_colors[n % ENS_NCOLORS],
				   e->groups[g].label, 0);
		n++;
	}
	if (st == WEFT_OK)
		st = weft__output_printf(o, "\n");
	return st ? st : ens_plot_draw(e, gnuplot, o, "compare", format);
}

weft_status weft__ens_plots(weft_ensemble *e)
{
	const char *format = weft__config_opts(e->base)->output.plot;
	char *gnuplot = NULL;
	weft_status st;

	if (strcmp(format, "none") == 0)
		return WEFT_OK;
	/* gnuplot reads the aggregated CSVs written so far. */
	for (weft_output *o = e->out.head; o; o = weft__output_next(o))
		if ((st = weft__output_flush(o)))
			return st;
	if ((st = weft__plot_find(e->ctx, "gnuplot", &gnuplot)))
		return st;
	for (size_t g = 0; st == WEFT_OK && g < e->n_groups; g++)
		if (!e->groups[g].failed)
			st = ens_plot_group(e, gnuplot, format, g);
	if (st == WEFT_OK)
		st = ens_plot_compare(e, gnuplot, format);
	free(gnuplot);
	return st;
}
