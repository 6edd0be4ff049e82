/*
 * core/config/config_calib.c - the [calibration] section: what `weft
 * calibrate` fits (docs/calibration.md, "INI: weft calibrate").
 *
 * Its declared keys (data, trials, ...) are checked as any key is. Two
 * families of keys are not declared but written by the user, as [sweep]
 * names its keys: `param.SECTION.KEY = LOW .. HIGH [log]`, a key of the
 * core or of the model to calibrate, and `component.NAME = KIND DATA[,
 * DATA] [~ MODEL[, MODEL]] [weight=W] [sigma2=S]`, a likelihood
 * component. Their syntax is checked as the file is read, their keys once
 * the whole file is (a model's section may come later), and everything
 * else `weft calibrate` needs (the data file's columns, the model) by
 * weft__config_calibration(), which hands the settings over as JSON. The
 * lines are kept in the section's lines, in the file's order.
 */
#include "config/cfg.h"

#include "config/calib.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* 2^53 - 1, as config.c's. */
#define CALIB_INT53 9007199254740991.0
/* The most data columns of one component. */
#define CALIB_MAX_COLS 16

const weft_key_desc weft__calibration_keys[] = {
	{ "data", WEFT_KEY_STRING, "", 0, 0, NULL,
	  "the observed data for `weft calibrate`: a CSV file with a header "
	  "line, a time column (time, or the first of day, step and t) and "
	  "the columns the components name. A relative path is taken from "
	  "the INI file's directory (from the current directory with --set)" },
	{ "time", WEFT_KEY_STRING, "", 0, 0, NULL,
	  "the data's time column, matched to the same column of the model's "
	  "output table; empty takes the first of day, step and t" },
	{ "table", WEFT_KEY_STRING, "", 0, 0, NULL,
	  "the output table to compare with (its CSV name without .csv, e.g. "
	  "daily); empty takes the first table holding every column used, "
	  "daily first" },
	{ "trials", WEFT_KEY_INT, "20", 0, 1000000, NULL,
	  "trials to run (each a parameter set Optuna proposes); with a "
	  "storage holding the study, trials added to it (0: only load it)" },
	{ "replicas", WEFT_KEY_INT, "1", 1, 4096, NULL,
	  "runs per trial, as one batched ensemble with the seeds "
	  "[simulation] seed, seed + 1, ...: the same in every trial" },
	{ "sampler", WEFT_KEY_ENUM, "tpe", 0, 0, "tpe|cmaes|random",
	  "Optuna's sampler, seeded with [simulation] seed (cmaes needs the "
	  "cmaes package)" },
	{ "combine", WEFT_KEY_ENUM, "replicas", 0, 0, "replicas|mean",
	  "replicas: score each replica and average their NLLs; mean: score "
	  "the replicas' mean" },
	{ "storage", WEFT_KEY_STRING, "", 0, 0, NULL,
	  "an Optuna storage URL (sqlite:///calib.db) to keep the study in, "
	  "so that it can be resumed and shared; empty: in memory" },
	{ "study_name", WEFT_KEY_STRING, "weft-calibration", 0, 0, NULL,
	  "the study's name in storage" },
};
const size_t weft__n_calibration_keys = N_OF(weft__calibration_keys);

/* ---- the lines' syntax ----------------------------------------------------
 */

/* A parameter line, parsed. */
struct calib_param {
	char sec[64], key[64];
	char low_text[48], high_text[48]; /* as written */
	double low, high;
	int log;
};

/* A component line, parsed: the texts point into buf. */
struct calib_comp {
	char buf[512];
	const char *name;
	int kind; /* index in kinds[] */
	const char *data[CALIB_MAX_COLS], *model[CALIB_MAX_COLS];
	size_t n_data, n_model;
	double weight, sigma2; /* sigma2: NAN when not given */
};

/* Component kinds: the INI's name (case and '_' ignored), the Python
 * class, the data columns (0: two or more). */
static const struct {
	const char *name, *cls;
	size_t cols;
} kinds[] = {
	{ "normal", "Normal", 1 },
	{ "binomial", "Binomial", 2 },
	{ "beta_binomial", "BetaBinomial", 2 },
	{ "gamma_poisson", "GammaPoisson", 2 },
	{ "dirichlet_multinomial", "DirichletMultinomial", 0 },
};

int weft__cfg_calib_is_line(const struct cfg_section *s, const char *key)
{
	return !s->plugin && strcmp(s->name, "calibration") == 0 &&
	       (strncmp(key, "param.", 6) == 0 ||
		strncmp(key, "component.", 10) == 0);
}

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/* A finite number, the whole text. */
static int read_real(const char *text, double *out)
{
	char *end;

	if (!*text || isspace((unsigned char)*text))
		return 0;
	*out = strtod(text, &end);
	return *end == '\0' && isfinite(*out);
}

static weft_status param_syntax(weft_context *ctx, const char *where,
				const char *key, const char *value)
{
	return weft__fail(ctx, WEFT_E_CONFIG,
			  "%s: [calibration] %s = %s: expected LOW .. HIGH, "
			  "optionally followed by log (param.seir.beta = "
			  "0.004 .. 0.03)",
			  where, key, value);
}

/* "param.SECTION.KEY" into p->sec and p->key. */
static weft_status param_key(weft_context *ctx, const char *where,
			     const char *key, struct calib_param *p)
{
	const char *name = key + 6, *dot = strchr(name, '.');

	if (!dot || dot == name || !dot[1] || strchr(dot + 1, '.') ||
	    (size_t)(dot - name) >= sizeof p->sec ||
	    strlen(dot + 1) >= sizeof p->key)
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s: [calibration] %s: expected "
				  "param.SECTION.KEY, the key to calibrate "
				  "(param.seir.beta)",
				  where, key);
	weft__fmt(p->sec, sizeof p->sec, "%.*s", (int)(dot - name), name);
	weft__fmt(p->key, sizeof p->key, "%s", dot + 1);
	return WEFT_OK;
}

static weft_status parse_param(weft_context *ctx, const char *where,
			       const char *key, const char *value,
			       struct calib_param *p)
{
	char buf[256], *lo, *hi, *word, *save = NULL;
	weft_status st;

	memset(p, 0, sizeof *p);
	if ((st = param_key(ctx, where, key, p)))
		return st;
	weft__fmt(buf, sizeof buf, "%s", value);
	if (!(hi = strstr(buf, "..")))
		return param_syntax(ctx, where, key, value);
	*hi = '\0';
	lo = trim(buf);
	word = strtok_r(hi + 2, " \t", &save);
	if (!read_real(lo, &p->low) || !word || !read_real(word, &p->high) ||
	    strlen(lo) >= sizeof p->low_text ||
	    strlen(word) >= sizeof p->high_text)
		return param_syntax(ctx, where, key, value);
	weft__fmt(p->low_text, sizeof p->low_text, "%s", lo);
	weft__fmt(p->high_text, sizeof p->high_text, "%s", word);
	while ((word = strtok_r(NULL, " \t", &save))) {
		if (strcmp(word, "log") != 0 || p->log)
			return param_syntax(ctx, where, key, value);
		p->log = 1;
	}
	if (!(p->low < p->high))
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s: [calibration] %s = %s: LOW (%s) must be "
				  "below HIGH (%s)",
				  where, key, value, p->low_text, p->high_text);
	if (p->log && p->low <= 0)
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s: [calibration] %s = %s: a log-scale "
				  "parameter needs LOW > 0",
				  where, key, value);
	return WEFT_OK;
}

/* ---- model expressions (as weft.calib_components.Expression) ------------- */

struct xp {
	const char *p;
	char why[128];
};

static void xp_space(struct xp *x)
{
	while (isspace((unsigned char)*x->p))
		x->p++;
}

static int xp_fail(struct xp *x, const char *why)
{
	if (!x->why[0])
		weft__fmt(x->why, sizeof x->why, "%s", why);
	return 0;
}

static void xp_number(struct xp *x)
{
	const char *p = x->p;

	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			;
	if ((*p == 'e' || *p == 'E') &&
	    (isdigit((unsigned char)p[1]) ||
	     ((p[1] == '+' || p[1] == '-') && isdigit((unsigned char)p[2]))))
		for (p += 2; isdigit((unsigned char)*p); p++)
			;
	x->p = p;
}

static int xp_sum(struct xp *x);

static int xp_close(struct xp *x, const char *after)
{
	char why[64];

	xp_space(x);
	if (*x->p == ')') {
		x->p++;
		return 1;
	}
	weft__fmt(why, sizeof why, "missing ')'%s%s", *after ? " after " : "",
		  after);
	return xp_fail(x, why);
}

static int xp_term(struct xp *x)
{
	char name[64], why[96];
	size_t n = 0;

	xp_space(x);
	if (isdigit((unsigned char)*x->p) ||
	    (*x->p == '.' && isdigit((unsigned char)x->p[1]))) {
		xp_number(x);
		return 1;
	}
	if (*x->p == '(') {
		x->p++;
		return xp_sum(x) && xp_close(x, "");
	}
	if (!isalpha((unsigned char)*x->p) && *x->p != '_')
		return xp_fail(x, *x->p ? "unexpected character"
					: "it ends too early");
	while (isalnum((unsigned char)x->p[n]) || x->p[n] == '_')
		n++;
	weft__fmt(name, sizeof name, "%.*s", (int)n, x->p);
	x->p += n;
	xp_space(x);
	if (*x->p != '(')
		return 1;
	if (strcmp(name, "cum") != 0 && strcmp(name, "diff") != 0) {
		weft__fmt(why, sizeof why,
			  "unknown function '%s' (cum and diff are known)",
			  name);
		return xp_fail(x, why);
	}
	x->p++;
	weft__fmt(why, sizeof why, "%s(", name);
	return xp_sum(x) && xp_close(x, why);
}

static int xp_sum(struct xp *x)
{
	xp_space(x);
	if (*x->p == '-')
		x->p++;
	if (!xp_term(x))
		return 0;
	for (xp_space(x); *x->p == '+' || *x->p == '-'; xp_space(x)) {
		x->p++;
		if (!xp_term(x))
			return 0;
	}
	return 1;
}

static weft_status check_expr(weft_context *ctx, const char *where,
			      const char *key, const char *text)
{
	struct xp x = { .p = text };

	if (xp_sum(&x)) {
		xp_space(&x);
		if (!*x.p)
			return WEFT_OK;
		xp_fail(&x, "unexpected text");
	}
	return weft__fail(ctx, WEFT_E_CONFIG,
			  "%s: [calibration] %s: model expression '%s': %s at "
			  "'%s' (expected output columns, numbers, cum(...) "
			  "and diff(...) joined by + and -)",
			  where, key, text, x.why, x.p);
}

/* ---- component lines ------------------------------------------------------
 */

static int kind_is(const char *word, const char *name)
{
	for (; *word; word++, name++) {
		if (*name == '_' && *word != '_')
			name++;
		if (tolower((unsigned char)*word) != *name)
			return 0;
	}
	return *name == '\0';
}

static weft_status comp_syntax(weft_context *ctx, const char *where,
			       const char *key, const char *value,
			       const char *why)
{
	return weft__fail(ctx, WEFT_E_CONFIG,
			  "%s: [calibration] %s = %s: %s (expected KIND DATA[, "
			  "DATA] [~ MODEL[, MODEL]] [weight=W] [sigma2=S], "
			  "e.g. component.cases = normal cases ~ "
			  "cum(new_infections))",
			  where, key, value, why);
}

/* text split at commas into out[], each trimmed and not empty. */
static int split_list(char *text, const char **out, size_t *n)
{
	char *save = NULL, *item;

	*n = 0;
	if (!*trim(text) || text[strlen(text) - 1] == ',')
		return 0;
	for (item = strtok_r(text, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		if (*n == CALIB_MAX_COLS || !*(item = trim(item)))
			return 0;
		out[(*n)++] = item;
	}
	return *n > 0;
}

/* The weight=W and sigma2=S words: read and blanked out of buf. */
static weft_status comp_options(weft_context *ctx, const char *where,
				const char *key, const char *value,
				struct calib_comp *c)
{
	char *eq;

	c->weight = 1;
	c->sigma2 = NAN;
	while ((eq = strchr(c->buf, '='))) {
		char *start = eq, *end = eq, save;
		double *to, v;
		while (start > c->buf && !isspace((unsigned char)start[-1]))
			start--;
		while (*end && !isspace((unsigned char)*end))
			end++;
		save = *end;
		*end = '\0';
		to = strncmp(start, "weight=", 7) == 0	 ? &c->weight
		     : strncmp(start, "sigma2=", 7) == 0 ? &c->sigma2
							 : NULL;
		if (!to)
			return comp_syntax(ctx, where, key, value,
					   "unknown option (weight=W and "
					   "sigma2=S are known)");
		if (!read_real(eq + 1, &v) || v < 0 || (to == &c->sigma2 && !v))
			return comp_syntax(ctx, where, key, value,
					   to == &c->weight
						   ? "weight is a number >= 0"
						   : "sigma2 is a number > 0");
		*to = v;
		*end = save;
		memset(start, ' ', (size_t)(end - start));
	}
	return WEFT_OK;
}

static weft_status comp_sigma2(weft_context *ctx, const char *where,
			       const char *key, const char *value,
			       const struct calib_comp *c)
{
	if (!isnan(c->sigma2) && c->kind != 0)
		return comp_syntax(ctx, where, key, value,
				   "sigma2 is for normal components only");
	return WEFT_OK;
}

static weft_status comp_kind(weft_context *ctx, const char *where,
			     const char *key, const char *value,
			     struct calib_comp *c, char **rest)
{
	char *word = trim(c->buf), *end = word;
	char why[256] = "unknown component kind '";

	while (*end && !isspace((unsigned char)*end))
		end++;
	if (*end)
		*end++ = '\0';
	*rest = end;
	for (size_t i = 0; i < N_OF(kinds); i++)
		if (kind_is(word, kinds[i].name)) {
			c->kind = (int)i;
			return WEFT_OK;
		}
	strncat(why, word, 64);
	strcat(why, "': one of");
	for (size_t i = 0; i < N_OF(kinds); i++)
		strcat(strcat(why, i ? ", " : " "), kinds[i].name);
	return comp_syntax(ctx, where, key, value, why);
}

static weft_status comp_columns(weft_context *ctx, const char *where,
				const char *key, const char *value,
				struct calib_comp *c, char *rest)
{
	char *tilde = strchr(rest, '~');
	size_t want = kinds[c->kind].cols;
	char why[160];

	if (tilde)
		*tilde = '\0';
	if (!split_list(rest, c->data, &c->n_data))
		return comp_syntax(ctx, where, key, value,
				   "no data column, or an empty one");
	for (size_t i = 0; i < c->n_data; i++)
		if (strchr(c->data[i], '~') || strpbrk(c->data[i], " \t"))
			return comp_syntax(ctx, where, key, value,
					   "a data column is one word");
	if (want ? c->n_data != want : c->n_data < 2) {
		weft__fmt(why, sizeof why, "%s takes %s data column%s, got %zu",
			  kinds[c->kind].name,
			  want == 1 ? "one"
			  : want    ? "two"
				    : "two or more",
			  want == 1 ? "" : "s", c->n_data);
		return comp_syntax(ctx, where, key, value, why);
	}
	if (!tilde) {
		memcpy(c->model, c->data, sizeof c->model);
		c->n_model = c->n_data;
		return WEFT_OK;
	}
	if (strchr(tilde + 1, '~') ||
	    !split_list(tilde + 1, c->model, &c->n_model))
		return comp_syntax(ctx, where, key, value,
				   "one '~', then a model expression per "
				   "data column");
	if (c->n_model != c->n_data) {
		weft__fmt(why, sizeof why,
			  "%zu data columns but %zu model expressions",
			  c->n_data, c->n_model);
		return comp_syntax(ctx, where, key, value, why);
	}
	for (size_t i = 0; i < c->n_model; i++) {
		weft_status st = check_expr(ctx, where, key, c->model[i]);
		if (st)
			return st;
	}
	return WEFT_OK;
}

static weft_status parse_comp(weft_context *ctx, const char *where,
			      const char *key, const char *value,
			      struct calib_comp *c)
{
	const char *name = key + 10;
	char *rest;
	weft_status st;

	memset(c, 0, sizeof *c);
	c->name = name;
	if (!*name || strspn(name, "abcdefghijklmnopqrstuvwxyz"
				   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
			      strlen(name))
		return weft__fail(
			ctx, WEFT_E_CONFIG,
			"%s: [calibration] %s: expected "
			"component.NAME, NAME of letters, digits, '_' "
			"or '-' (component.cases)",
			where, key);
	if (strlen(value) >= sizeof c->buf)
		return comp_syntax(ctx, where, key, value, "too long");
	weft__fmt(c->buf, sizeof c->buf, "%s", value);
	if (!*trim(c->buf))
		return comp_syntax(ctx, where, key, value, "empty");
	if ((st = comp_options(ctx, where, key, value, c)) ||
	    (st = comp_kind(ctx, where, key, value, c, &rest)) ||
	    (st = comp_sigma2(ctx, where, key, value, c)))
		return st;
	return comp_columns(ctx, where, key, value, c, rest);
}

/* ---- keeping the lines ----------------------------------------------------
 */

/* "FILE:LINE" of a file's line, "--set calibration.KEY" of an override. */
static void line_where(const weft_config *cfg, const struct cfg_raw *r,
		       char *where, size_t size)
{
	if (r->line && cfg->t->path)
		weft__fmt(where, size, "%s:%d", cfg->t->path, r->line);
	else
		weft__fmt(where, size, "--set calibration.%s", r->key);
}

/* The section and declaration of a parameter's key; the key checked. */
static weft_status param_target(weft_context *ctx, const weft_config *cfg,
				const char *where, const char *key,
				const struct calib_param *p,
				const weft_key_desc **out)
{
	const struct cfg_section *s = weft__cfg_find(cfg, p->sec);
	char at[WHERE_MAX + 128];
	long k;

	if (s && s->pending)
		s = NULL;
	if (!s)
		s = weft__cfg_model_lookup(cfg, p->sec);
	if (!s || strcmp(p->sec, "calibration") == 0)
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s: [calibration] %s: no section [%s] to "
				  "calibrate: a key of the core or of a model "
				  "(param.seir.beta)",
				  where, key, p->sec);
	weft__fmt(at, sizeof at, "%s: [calibration] %s", where, key);
	if ((k = weft__cfg_find_key(s, p->key)) < 0)
		return weft__cfg_unknown_key(ctx, cfg, at, s, p->key);
	*out = &s->keys[k];
	if ((*out)->type != WEFT_KEY_INT && (*out)->type != WEFT_KEY_REAL)
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s: [calibration] %s: [%s] %s is not a "
				  "number; only integer and real keys can be "
				  "calibrated",
				  where, key, p->sec, p->key);
	return WEFT_OK;
}

/* A bound, as written, checked as a value of the key (an integer key's
 * bounds must be whole). */
static weft_status check_bound(weft_context *ctx, const char *where,
			       const char *key, const char *which,
			       const char *sec, const weft_key_desc *d,
			       const char *text)
{
	char at[WHERE_MAX + 128];

	weft__fmt(at, sizeof at, "%s: [calibration] %s: %s", where, key, which);
	return weft__value_check(ctx, at, sec, d, text);
}

static weft_status check_param(weft_context *ctx, const weft_config *cfg,
			       const char *where, const char *key,
			       const char *value, struct calib_param *p)
{
	const weft_key_desc *d;
	weft_status st;

	if ((st = parse_param(ctx, where, key, value, p)) ||
	    (st = param_target(ctx, cfg, where, key, p, &d)) ||
	    (st = check_bound(ctx, where, key, "LOW", p->sec, d,
			      p->low_text)) ||
	    (st = check_bound(ctx, where, key, "HIGH", p->sec, d,
			      p->high_text)))
		return st;
	return WEFT_OK;
}

weft_status weft__cfg_calib_line(weft_context *ctx, const weft_config *cfg,
				 struct cfg_section *s, const char *where,
				 int line, const char *key, const char *value)
{
	struct calib_param p;
	struct calib_comp *c;
	struct cfg_raw *grown, *r = NULL;
	weft_status st;

	if (strncmp(key, "param.", 6) == 0)
		st = line ? parse_param(ctx, where, key, value, &p)
			  : check_param(ctx, cfg, where, key, value, &p);
	else if (!(c = malloc(sizeof *c)))
		st = weft__fail(ctx, WEFT_E_NOMEM, "%s: out of memory", where);
	else {
		st = parse_comp(ctx, where, key, value, c);
		free(c);
	}
	if (st)
		return st;
	for (size_t i = 0; i < s->n_lines; i++)
		if (strcmp(s->lines[i].key, key) == 0)
			r = &s->lines[i];
	if (r && line && r->line)
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s: [calibration] %s is set twice (first at "
				  "line %d); remove one",
				  where, key, r->line);
	if (!r) {
		grown = realloc(s->lines, (s->n_lines + 1) * sizeof *grown);
		if (!grown)
			return weft__fail(ctx, WEFT_E_NOMEM,
					  "%s: out of memory", where);
		s->lines = grown;
		r = &grown[s->n_lines++];
		*r = (struct cfg_raw){ weft__strdup(key), NULL, 0 };
	}
	free(r->value);
	r->value = weft__strdup(value);
	r->line = line;
	if (!r->key || !r->value)
		return weft__fail(ctx, WEFT_E_NOMEM, "%s: out of memory",
				  where);
	return WEFT_OK;
}

weft_status weft__cfg_calib_check(weft_context *ctx, const weft_config *cfg)
{
	const struct cfg_section *s = weft__cfg_find(cfg, "calibration");
	char where[WHERE_MAX];
	struct calib_param p;
	weft_status st;

	for (size_t i = 0; s && i < s->n_lines; i++) {
		const struct cfg_raw *r = &s->lines[i];
		if (strncmp(r->key, "param.", 6) != 0)
			continue;
		line_where(cfg, r, where, sizeof where);
		if ((st = check_param(ctx, cfg, where, r->key, r->value, &p)))
			return st;
	}
	return WEFT_OK;
}

/* ---- the data file's header -----------------------------------------------
 */

struct header {
	char line[4096];
	const char *col[256];
	size_t n;
};

static weft_status read_header(weft_context *ctx, const char *where,
			       const char *path, struct header *h)
{
	FILE *f = fopen(path, "r");
	char *save = NULL, *col;

	if (!f)
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s: [calibration] data = %s: cannot open "
				  "it: %s",
				  where, path, strerror(errno));
	h->n = 0;
	if (!fgets(h->line, sizeof h->line, f))
		h->line[0] = '\0';
	fclose(f);
	h->line[strcspn(h->line, "\r\n")] = '\0';
	for (col = strtok_r(h->line, ",", &save); col && h->n < N_OF(h->col);
	     col = strtok_r(NULL, ",", &save)) {
		col = trim(col);
		if (*col == '"' && strlen(col) > 1 &&
		    col[strlen(col) - 1] == '"') {
			col[strlen(col) - 1] = '\0';
			col++;
		}
		h->col[h->n++] = col;
	}
	if (!h->n)
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s: [calibration] data = %s: no header line "
				  "(the names of its columns)",
				  where, path);
	return WEFT_OK;
}

static int has_col(const struct header *h, const char *name)
{
	for (size_t i = 0; i < h->n; i++)
		if (strcmp(h->col[i], name) == 0)
			return 1;
	return 0;
}

/* "a, b, c" of the header, for messages. */
static void header_list(const struct header *h, char *out, size_t size)
{
	out[0] = '\0';
	for (size_t i = 0; i < h->n && strlen(out) + 8 < size; i++) {
		strncat(out, i ? ", " : "", size - strlen(out) - 1);
		strncat(out, h->col[i], size - strlen(out) - 1);
	}
}

static weft_status check_time_col(weft_context *ctx, const weft_config *cfg,
				  const char *path, const struct header *h)
{
	const char *time = weft__config_str(cfg, "calibration", "time");
	static const char *const names[] = { "day", "step", "t" };
	char cols[512];

	if (*time && has_col(h, time))
		return WEFT_OK;
	for (size_t i = 0; !*time && i < N_OF(names); i++)
		if (has_col(h, names[i]))
			return WEFT_OK;
	header_list(h, cols, sizeof cols);
	if (*time)
		return weft__fail(
			ctx, WEFT_E_CONFIG,
			"%s: [calibration] time = %s: %s has no "
			"column '%s' (its columns: %s)",
			weft__config_where(cfg, "calibration", "time"), time,
			path, time, cols);
	return weft__fail(ctx, WEFT_E_CONFIG,
			  "%s: [calibration] data = %s: no time column: "
			  "expected one of day, step, t (or [calibration] time "
			  "= NAME); its columns: %s",
			  weft__config_where(cfg, "calibration", "data"), path,
			  cols);
}

/* ---- the settings as JSON ---------------------------------------------------
 */

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

/* "key": "text", or null when text is empty. */
static void json_opt(FILE *f, const char *key, const char *text)
{
	fprintf(f, "\"%s\": ", key);
	if (*text)
		json_str(f, text);
	else
		fputs("null", f);
	fputs(", ", f);
}

static void json_param(FILE *f, const struct calib_param *p,
		       const weft_key_desc *d, int first)
{
	fprintf(f,
		"%s{\"key\": \"%s.%s\", \"low\": %.17g, \"high\": %.17g, "
		"\"log\": %s, \"type\": \"%s\"}",
		first ? "" : ", ", p->sec, p->key, p->low, p->high,
		p->log ? "true" : "false",
		d->type == WEFT_KEY_INT ? "int" : "float");
}

static void json_comp(FILE *f, const struct calib_comp *c, int first)
{
	fprintf(f, "%s{\"name\": ", first ? "" : ", ");
	json_str(f, c->name);
	fprintf(f, ", \"kind\": \"%s\", \"data\": [", kinds[c->kind].cls);
	for (size_t i = 0; i < c->n_data; i++) {
		fputs(i ? ", " : "", f);
		json_str(f, c->data[i]);
	}
	fputs("], \"model\": [", f);
	for (size_t i = 0; i < c->n_model; i++) {
		fputs(i ? ", " : "", f);
		json_str(f, c->model[i]);
	}
	fprintf(f, "], \"weight\": %.17g, \"sigma2\": ", c->weight);
	if (isnan(c->sigma2))
		fputs("null}", f);
	else
		fprintf(f, "%.17g}", c->sigma2);
}

/* A parameter for `weft calibrate`: checked, of the core or the model. */
static weft_status emit_param(weft_context *ctx, const weft_config *cfg,
			      const struct cfg_raw *r, const char *model,
			      FILE *f, int first)
{
	char where[WHERE_MAX];
	struct calib_param p;
	const weft_key_desc *d;
	weft_status st;

	line_where(cfg, r, where, sizeof where);
	if ((st = check_param(ctx, cfg, where, r->key, r->value, &p)) ||
	    (st = param_target(ctx, cfg, where, r->key, &p, &d)))
		return st;
	if (!weft__is_core_section(p.sec) && strcmp(p.sec, model) != 0)
		return weft__fail(
			ctx, WEFT_E_CONFIG,
			"%s: [calibration] %s: the configuration runs "
			"the model %s, not %s: calibrate keys of [%s] "
			"or of the core",
			where, r->key, model, p.sec, model);
	json_param(f, &p, d, first);
	return WEFT_OK;
}

static weft_status emit_comp(weft_context *ctx, const weft_config *cfg,
			     const struct cfg_raw *r, const char *path,
			     const struct header *h, FILE *f, int first)
{
	char where[WHERE_MAX], cols[512];
	struct calib_comp *c = malloc(sizeof *c);
	weft_status st;

	if (!c)
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	line_where(cfg, r, where, sizeof where);
	st = parse_comp(ctx, where, r->key, r->value, c);
	for (size_t i = 0; st == WEFT_OK && i < c->n_data; i++)
		if (!has_col(h, c->data[i])) {
			header_list(h, cols, sizeof cols);
			st = weft__fail(ctx, WEFT_E_CONFIG,
					"%s: [calibration] %s: data column "
					"'%s' is not in %s (its columns: %s)",
					where, r->key, c->data[i], path, cols);
		}
	if (st == WEFT_OK)
		json_comp(f, c, first);
	free(c);
	return st;
}

static weft_status emit_lines(weft_context *ctx, const weft_config *cfg,
			      const struct cfg_section *s, const char *path,
			      FILE *f)
{
	struct cfg_section *m;
	struct header *h;
	size_t n[2] = { 0, 0 };
	weft_status st;

	if ((st = weft__cfg_selected_model(ctx, cfg, &m)))
		return st;
	fputs("\"parameters\": [", f);
	for (size_t i = 0; st == WEFT_OK && i < s->n_lines; i++)
		if (s->lines[i].key[0] == 'p')
			st = emit_param(ctx, cfg, &s->lines[i], m->name, f,
					!n[0]++);
	if (st || !(h = malloc(sizeof *h)))
		return st ? st : weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	st = read_header(ctx, weft__config_where(cfg, "calibration", "data"),
			 path, h);
	if (st == WEFT_OK)
		st = check_time_col(ctx, cfg, path, h);
	fputs("], \"components\": [", f);
	for (size_t i = 0; st == WEFT_OK && i < s->n_lines; i++)
		if (s->lines[i].key[0] == 'c')
			st = emit_comp(ctx, cfg, &s->lines[i], path, h, f,
				       !n[1]++);
	fputs("]", f);
	free(h);
	return st;
}

static void emit_keys(FILE *f, const weft_config *cfg)
{
	const char *c = "calibration";

	fputs("{\"config\": ", f);
	json_str(f, cfg->t->path ? cfg->t->path : "");
	fputs(", \"data\": ", f);
	json_str(f, weft__config_str(cfg, c, "data"));
	fputs(", ", f);
	json_opt(f, "time", weft__config_str(cfg, c, "time"));
	json_opt(f, "table", weft__config_str(cfg, c, "table"));
	json_opt(f, "storage", weft__config_str(cfg, c, "storage"));
	fprintf(f,
		"\"trials\": %lld, \"replicas\": %lld, \"seed\": %llu, "
		"\"sampler\": \"%s\", \"combine\": \"%s\", \"study_name\": ",
		(long long)weft__config_int(cfg, c, "trials"),
		(long long)weft__config_int(cfg, c, "replicas"),
		(unsigned long long)weft__config_opts(cfg)->simulation.seed,
		weft__config_str(cfg, c, "sampler"),
		weft__config_str(cfg, c, "combine"));
	json_str(f, weft__config_str(cfg, c, "study_name"));
	fputs(", \"output\": ", f);
	json_str(f, weft__config_opts(cfg)->output.directory);
	fputs(", ", f);
}

/* What `weft calibrate` needs besides the lines' syntax. */
static weft_status check_needs(weft_context *ctx, const weft_config *cfg,
			       const struct cfg_section *s)
{
	const char *file = cfg->t->path ? cfg->t->path : "the configuration";
	size_t n[2] = { 0, 0 };

	for (size_t i = 0; i < s->n_lines; i++)
		n[s->lines[i].key[0] == 'c']++;
	if (!*weft__config_str(cfg, "calibration", "data"))
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s: [calibration] data is not set: the "
				  "observed data to fit, a CSV file (data = "
				  "cases.csv)",
				  file);
	if (!n[0] || !n[1])
		return weft__fail(
			ctx, WEFT_E_CONFIG,
			"%s: [calibration] has no %s line: give at "
			"least one (%s)",
			file, !n[0] ? "param.SECTION.KEY" : "component.NAME",
			!n[0] ? "param.seir.beta = 0.004 .. 0.03"
			      : "component.cases = normal cases ~ "
				"new_infections");
	return WEFT_OK;
}

/* 1 when the configuration has a [calibration] section: a line or a key
 * set. */
static int has_calibration(const struct cfg_section *s)
{
	if (!s)
		return 0;
	for (size_t k = 0; k < s->n_keys; k++)
		if (s->vals[k].text)
			return 1;
	return s->n_lines > 0;
}

weft_status weft__config_calibration(weft_context *ctx, const weft_config *cfg,
				     char **json)
{
	const struct cfg_section *s;
	char *text = NULL;
	size_t len = 0;
	weft_status st;
	FILE *f;

	if (!cfg || !json)
		return weft__fail(ctx, WEFT_E_INVALID,
				  "weft__config_calibration: cfg or json is "
				  "NULL");
	*json = NULL;
	s = weft__cfg_find(cfg, "calibration");
	if (!has_calibration(s))
		return WEFT_OK;
	if ((st = check_needs(ctx, cfg, s)))
		return st;
	if (!(f = open_memstream(&text, &len)))
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	emit_keys(f, cfg);
	st = emit_lines(ctx, cfg, s,
			weft__config_str(cfg, "calibration", "data"), f);
	fputs("}\n", f);
	if (fclose(f) != 0 && st == WEFT_OK)
		st = weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	if (st != WEFT_OK) {
		free(text);
		return st;
	}
	*json = text;
	return WEFT_OK;
}
