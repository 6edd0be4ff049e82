/*
 * core/config.c - the configuration: a schema of declared keys (the core's
 * own sections and one section per model), INI files read with inih,
 * "--set section.key=value" overrides, checks across keys, and the Markdown
 * reference of every key (docs/config.md).
 *
 * A value is kept as validated text together with where it came from
 * ("astoria.ini:12", "--set seir.beta" or "default"), so that a later
 * error about values that are valid alone but not together can still name
 * the file and line. Reading stops at the first error; its message names
 * FILE:LINE, the section and the key, and suggests the closest valid name.
 */
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* 2^53 - 1: the largest integer that the schema's double bounds hold. */
#define INT53_MAX 9007199254740991.0

/* Room for "FILE:LINE" or "--set section.key" in messages. */
#define WHERE_MAX 512

#define BOOL_SPELLINGS "true/false, yes/no, on/off or 1/0"

/* ---- the core's sections ------------------------------------------------ */

static const weft_key_desc simulation_keys[] = {
	{ "model", WEFT_KEY_STRING, "seir", 0, 0, NULL,
	  "the model to run; its parameters are read from the section of the "
	  "same name" },
	{ "steps", WEFT_KEY_INT, "120", 1, 1000000000, NULL,
	  "steps to run; one step is one day for epidemic models" },
	{ "seed", WEFT_KEY_INT, "1", 0, INT53_MAX, NULL,
	  "seed of every random stream: the same seed gives the same results "
	  "on every backend and thread count" },
};

static const weft_key_desc backend_keys[] = {
	{ "name", WEFT_KEY_STRING, "auto", 0, 0, NULL,
	  "backend to run on, by name (openmp, opencl, cuda, ...); auto takes "
	  "the best available one. A backend named explicitly never falls back "
	  "to another: if it cannot run, the run fails and says why" },
	{ "plugin", WEFT_KEY_STRING, "", 0, 0, NULL,
	  "path of a backend plugin file to load instead of searching by name; "
	  "leave name at auto when you set it" },
	{ "device", WEFT_KEY_STRING, "", 0, 0, NULL,
	  "device on the backend: an index (0, 1, ...) or a case-insensitive "
	  "substring of the device's name (as `weft backends` lists it); "
	  "empty takes the backend's default device" },
	{ "platform", WEFT_KEY_STRING, "", 0, 0, NULL,
	  "OpenCL platform: an index or a case-insensitive substring of its "
	  "name or vendor; empty searches every platform. Backends without "
	  "platforms refuse any other value" },
	{ "threads", WEFT_KEY_INT, "0", 0, 4096, NULL,
	  "host threads for CPU backends; 0 takes OMP_NUM_THREADS, or all "
	  "cores when it is unset" },
	{ "cache_dir", WEFT_KEY_STRING, "", 0, 0, NULL,
	  "directory where backends that compile kernels at run time keep "
	  "compiled programs; empty takes $XDG_CACHE_HOME/weft (or "
	  "~/.cache/weft), off disables the cache" },
	{ "plugin_path", WEFT_KEY_STRING, "", 0, 0, NULL,
	  "':'-separated directories searched for weft-backend-NAME.so before "
	  "$WEFT_PLUGIN_PATH and the installed plugin directory" },
};

static const weft_key_desc output_keys[] = {
	{ "directory", WEFT_KEY_STRING, "weft-out", 0, 0, NULL,
	  "directory the results are written to; files appear there only "
	  "once the run has completed" },
	{ "every", WEFT_KEY_INT, "1", 1, 1000000000, NULL,
	  "results are read back from the device every this many steps; also "
	  "the row stride of per-step CSV files" },
	{ "csv", WEFT_KEY_BOOL, "true", 0, 0, NULL,
	  "write the model's per-step CSV" },
	{ "summary", WEFT_KEY_BOOL, "true", 0, 0, NULL, "write summary.txt" },
	{ "plot", WEFT_KEY_ENUM, "png", 0, 0, "png|svg|none",
	  "draw the model's curves from its CSV with gnuplot (900 wide): a "
	  "gnuplot script NAME.gp beside NAME.csv, and the image NAME.png or "
	  "NAME.svg; needs csv = true. A plot never fails a run: when gnuplot "
	  "is not on PATH or fails, a 'plot' line of the summary says why, "
	  "and the CSV and the script are written as usual" },
};

struct core_section {
	const char *name;
	const char *about;
	const weft_key_desc *keys;
	size_t n_keys;
};

static const struct core_section core_sections[] = {
	{ "simulation", "What to run and for how long.", simulation_keys,
	  N_OF(simulation_keys) },
	{ "backend",
	  "Where to run: the backend plugin, its device and threads.",
	  backend_keys, N_OF(backend_keys) },
	{ "output",
	  "What to write, where, and how often results are read "
	  "back from the device.",
	  output_keys, N_OF(output_keys) },
};

/* ---- the configuration -------------------------------------------------- */

struct cfg_value {
	char *text;  /* validated text; NULL while the default holds */
	char *where; /* "FILE:LINE" or "--set section.key"; NULL: default */
	int line;    /* line of the file being loaded; 0 when not set there */
};

struct cfg_section {
	const char *name;
	const char *about;	 /* one sentence, for the reference */
	const weft_model *model; /* NULL for the core's sections */
	const weft_key_desc *keys;
	size_t n_keys;
	const char **key_names; /* keys[i].name, for weft__closest() */
	struct cfg_value *vals;
};

struct weft_config {
	struct cfg_section *secs; /* the core's sections, then the models' */
	const char **sec_names;
	size_t n_secs;
};

static weft_status section_init(struct cfg_section *s, size_t i)
{
	size_t n_core = N_OF(core_sections);

	if (i < n_core) {
		s->name = core_sections[i].name;
		s->about = core_sections[i].about;
		s->keys = core_sections[i].keys;
		s->n_keys = core_sections[i].n_keys;
	} else {
		s->model = weft__models[i - n_core];
		s->name = s->model->name;
		s->about = s->model->summary;
		s->keys = s->model->keys;
		s->n_keys = s->model->n_keys;
	}
	/* One spare element: calloc(0) may return NULL. */
	s->key_names = calloc(s->n_keys + 1, sizeof *s->key_names);
	s->vals = calloc(s->n_keys + 1, sizeof *s->vals);
	if (!s->key_names || !s->vals)
		return WEFT_E_NOMEM;
	for (size_t k = 0; k < s->n_keys; k++)
		s->key_names[k] = s->keys[k].name;
	return WEFT_OK;
}

weft_status weft_config_new(weft_context *ctx, weft_config **out)
{
	weft_config *cfg;

	if (!out)
		return weft__fail(ctx, WEFT_E_INVALID,
				  "weft_config_new: out is NULL");
	*out = NULL;
	cfg = calloc(1, sizeof *cfg);
	if (!cfg)
		goto no_memory;
	cfg->n_secs = N_OF(core_sections) + weft__n_models;
	cfg->secs = calloc(cfg->n_secs, sizeof *cfg->secs);
	cfg->sec_names = calloc(cfg->n_secs, sizeof *cfg->sec_names);
	if (!cfg->secs || !cfg->sec_names)
		goto free_config;
	for (size_t i = 0; i < cfg->n_secs; i++) {
		if (section_init(&cfg->secs[i], i) != WEFT_OK)
			goto free_config;
		cfg->sec_names[i] = cfg->secs[i].name;
	}
	*out = cfg;
	return WEFT_OK;

free_config:
	weft_config_free(cfg);
no_memory:
	return weft__fail(ctx, WEFT_E_NOMEM,
			  "out of memory creating a configuration");
}

void weft_config_free(weft_config *cfg)
{
	if (!cfg)
		return;
	for (size_t i = 0; cfg->secs && i < cfg->n_secs; i++) {
		struct cfg_section *s = &cfg->secs[i];
		for (size_t k = 0; s->vals && k < s->n_keys; k++) {
			free(s->vals[k].text);
			free(s->vals[k].where);
		}
		free(s->vals);
		free(s->key_names);
	}
	free(cfg->secs);
	free(cfg->sec_names);
	free(cfg);
}

/* ---- lookups ------------------------------------------------------------ */

static struct cfg_section *find_section(const weft_config *cfg,
					const char *name)
{
	for (size_t i = 0; i < cfg->n_secs; i++)
		if (strcmp(cfg->secs[i].name, name) == 0)
			return &cfg->secs[i];
	return NULL;
}

/* Index of key in s, or -1. */
static long find_key(const struct cfg_section *s, const char *key)
{
	for (size_t k = 0; k < s->n_keys; k++)
		if (strcmp(s->keys[k].name, key) == 0)
			return (long)k;
	return -1;
}

/* The first section that declares key, or NULL. */
static const struct cfg_section *section_of_key(const weft_config *cfg,
						const char *key)
{
	for (size_t i = 0; i < cfg->n_secs; i++)
		if (find_key(&cfg->secs[i], key) >= 0)
			return &cfg->secs[i];
	return NULL;
}

/* The value of a declared key, or NULL; *d receives its declaration. */
static const struct cfg_value *find_value(const weft_config *cfg,
					  const char *section, const char *key,
					  const weft_key_desc **d)
{
	const struct cfg_section *s;
	long k;

	if (!cfg || !section || !key)
		return NULL;
	s = find_section(cfg, section);
	if (!s || (k = find_key(s, key)) < 0)
		return NULL;
	*d = &s->keys[k];
	return &s->vals[k];
}

static const char *value_text(const weft_config *cfg, const char *section,
			      const char *key)
{
	const weft_key_desc *d;
	const struct cfg_value *v = find_value(cfg, section, key, &d);

	if (!v)
		return NULL;
	return v->text ? v->text : d->def;
}

/* ---- parsing single values ---------------------------------------------- */

/* strtod() in the C locale whatever the application chose: a config file
 * means the same thing everywhere. */
static double parse_real(const char *s, char **end)
{
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	double v;

	errno = 0;
	if (c == (locale_t)0)
		return strtod(s, end);
	v = strtod_l(s, end, c);
	freelocale(c);
	return v;
}

/* 1 when s is a boolean spelling, with its value in *b. */
static int parse_bool(const char *s, int *b)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };

	for (size_t i = 0; i < N_OF(yes); i++) {
		if (strcasecmp(s, yes[i]) == 0 || strcasecmp(s, no[i]) == 0) {
			*b = strcasecmp(s, yes[i]) == 0;
			return 1;
		}
	}
	return 0;
}

/* The choices of an ENUM key, split at '|'. */
struct choices {
	char buf[512];
	const char *name[64];
	size_t n;
};

static void split_choices(const char *list, struct choices *c)
{
	char *save = NULL;

	c->n = 0;
	weft__fmt(c->buf, sizeof c->buf, "%s", list ? list : "");
	for (char *p = strtok_r(c->buf, "|", &save); p && c->n < N_OF(c->name);
	     p = strtok_r(NULL, "|", &save))
		c->name[c->n++] = p;
}

/* "a, b, c" with each name between l and r. */
static void join(char *buf, size_t size, const char *const *names, size_t n,
		 const char *l, const char *r)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < size; i++) {
		int k = snprintf(buf + used, size - used, "%s%s%s%s",
				 i ? ", " : "", l, names[i], r);
		if (k < 0)
			break;
		used += (size_t)k;
	}
}

/* "; did you mean 'steps'?" when a name is close to word, else
 * "; <label> a, b, c" listing every valid name. */
static void suggest(char *buf, size_t size, const char *word,
		    const char *const *names, size_t n, const char *l,
		    const char *r, const char *label)
{
	const char *best = weft__closest(word, names, n);
	char list[WEFT__MSG_MAX / 2];

	if (best) {
		weft__fmt(buf, size, "; did you mean %s%s%s?", l, best, r);
		return;
	}
	join(list, sizeof list, names, n, l, r);
	weft__fmt(buf, size, "; %s %s", label, list);
}

/* What a key accepts: "an integer from 1 to 1000000000". */
static void describe(const weft_key_desc *d, char *buf, size_t size)
{
	struct choices c;
	char list[sizeof c.buf * 2];

	switch (d->type) {
	case WEFT_KEY_INT:
		weft__fmt(buf, size, "an integer from %lld to %lld",
			  (long long)d->min, (long long)d->max);
		return;
	case WEFT_KEY_REAL:
		weft__fmt(buf, size, "a finite real number from %.15g to %.15g",
			  d->min, d->max);
		return;
	case WEFT_KEY_BOOL:
		weft__fmt(buf, size, "a boolean (%s)", BOOL_SPELLINGS);
		return;
	case WEFT_KEY_ENUM:
		split_choices(d->choices, &c);
		join(list, sizeof list, c.name, c.n, "", "");
		weft__fmt(buf, size, "one of: %s", list);
		return;
	case WEFT_KEY_STRING: weft__fmt(buf, size, "text"); return;
	}
	weft__fmt(buf, size, "a value of unknown type %d", (int)d->type);
}

/* 1 when the whole of s reads as a real number. */
static int is_real(const char *s)
{
	char *end;
	parse_real(s, &end);
	return end != s && *end == '\0';
}

static int check_int(const weft_key_desc *d, const char *text, char *why,
		     size_t size)
{
	char accepts[128];
	char *end;
	long long v;

	describe(d, accepts, sizeof accepts);
	errno = 0;
	v = strtoll(text, &end, 10);
	if (end == text || isspace((unsigned char)*text))
		weft__fmt(why, size, "expected %s", accepts);
	else if (errno == ERANGE)
		weft__fmt(why, size,
			  "integer overflow (it does not fit in 64 "
			  "bits); expected %s",
			  accepts);
	else if (*end && is_real(text))
		weft__fmt(why, size, "expected an integer, not a real number");
	else if (*end)
		weft__fmt(why, size,
			  "trailing characters '%s' after the "
			  "integer %.*s",
			  end, (int)(end - text), text);
	else if ((double)v < d->min || (double)v > d->max)
		weft__fmt(why, size, "out of range: expected %s", accepts);
	else
		return 1;
	return 0;
}

static int check_real(const weft_key_desc *d, const char *text, char *why,
		      size_t size)
{
	char accepts[128];
	char *end;
	double v;

	describe(d, accepts, sizeof accepts);
	v = parse_real(text, &end);
	if (end == text || isspace((unsigned char)*text))
		weft__fmt(why, size, "expected %s", accepts);
	else if (*end)
		weft__fmt(why, size,
			  "trailing characters '%s' after the "
			  "number %.*s",
			  end, (int)(end - text), text);
	else if (!isfinite(v))
		weft__fmt(why, size, "not a finite number; expected %s",
			  accepts);
	else if (v < d->min || v > d->max)
		weft__fmt(why, size, "out of range: expected %s", accepts);
	else
		return 1;
	return 0;
}

static int check_enum(const weft_key_desc *d, const char *text, char *why,
		      size_t size)
{
	char accepts[sizeof(struct choices) * 2];
	char hint[WEFT__MSG_MAX / 2];
	struct choices c;

	split_choices(d->choices, &c);
	for (size_t i = 0; i < c.n; i++)
		if (strcmp(c.name[i], text) == 0)
			return 1;
	describe(d, accepts, sizeof accepts);
	hint[0] = '\0';
	if (weft__closest(text, c.name, c.n))
		suggest(hint, sizeof hint, text, c.name, c.n, "'", "'", "");
	weft__fmt(why, size, "expected %s%s", accepts, hint);
	return 0;
}

/* Check text against its declaration; on failure the message reads
 * "WHERE: [SECTION] KEY = TEXT: what is wrong". Not static: the tests
 * call it for the key types no section declares yet (ENUM). */
weft_status weft__config_check(weft_context *ctx, const char *where,
			       const char *section, const weft_key_desc *d,
			       const char *text);
weft_status weft__config_check(weft_context *ctx, const char *where,
			       const char *section, const weft_key_desc *d,
			       const char *text)
{
	char why[WEFT__MSG_MAX / 2];
	int ok = 1, b;

	if (!*text && d->type != WEFT_KEY_STRING) {
		describe(d, why, sizeof why);
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s: [%s] %s has an empty value; expected %s",
				  where, section, d->name, why);
	}
	if (d->type == WEFT_KEY_INT)
		ok = check_int(d, text, why, sizeof why);
	else if (d->type == WEFT_KEY_REAL)
		ok = check_real(d, text, why, sizeof why);
	else if (d->type == WEFT_KEY_BOOL && !(ok = parse_bool(text, &b)))
		weft__fmt(why, sizeof why, "expected a boolean: %s",
			  BOOL_SPELLINGS);
	else if (d->type == WEFT_KEY_ENUM)
		ok = check_enum(d, text, why, sizeof why);
	if (ok)
		return WEFT_OK;
	/* "steps = 10 # ten": only ';' starts a comment after a value. */
	return weft__fail(ctx, WEFT_E_CONFIG, "%s: [%s] %s = %s: %s%s", where,
			  section, d->name, text, why,
			  strchr(text, '#')
				  ? " (a comment after a value starts "
				    "with ' ;', not '#')"
				  : "");
}

/* ---- errors shared by files and --set ----------------------------------- */

static weft_status unknown_section(weft_context *ctx, const weft_config *cfg,
				   const char *where, const char *name)
{
	char hint[WEFT__MSG_MAX / 2];

	suggest(hint, sizeof hint, name, cfg->sec_names, cfg->n_secs, "[", "]",
		"sections are");
	return weft__fail(ctx, WEFT_E_CONFIG, "%s: unknown section [%s]%s",
			  where, name, hint);
}

static weft_status unknown_key(weft_context *ctx, const weft_config *cfg,
			       const char *where, const struct cfg_section *s,
			       const char *key)
{
	const struct cfg_section *other = section_of_key(cfg, key);
	char hint[WEFT__MSG_MAX / 2];
	char label[128];

	weft__fmt(label, sizeof label, "keys of [%s] are", s->name);
	if (other && !weft__closest(key, s->key_names, s->n_keys))
		weft__fmt(hint, sizeof hint, "; '%s' belongs in [%s]", key,
			  other->name);
	else
		suggest(hint, sizeof hint, key, s->key_names, s->n_keys, "'",
			"'", label);
	return weft__fail(ctx, WEFT_E_CONFIG, "%s: unknown key '%s' in [%s]%s",
			  where, key, s->name, hint);
}

/* Replace a value and its origin. */
static weft_status store(weft_context *ctx, const struct cfg_section *s,
			 size_t k, const char *text, const char *where)
{
	struct cfg_value *v = &s->vals[k];
	char *t = weft__strdup(text);
	char *w = weft__strdup(where);

	if (!t || !w) {
		free(t);
		free(w);
		return weft__fail(ctx, WEFT_E_NOMEM,
				  "%s: out of memory storing [%s] %s", where,
				  s->name, s->keys[k].name);
	}
	free(v->text);
	free(v->where);
	v->text = t;
	v->where = w;
	return WEFT_OK;
}

/* ---- reading a file ----------------------------------------------------- */

/* State shared by the line reader and the key handler. The reader sees
 * every physical line first: it counts lines (Debian's inih passes no line
 * numbers), refuses lines inih would split, and checks the syntax and the
 * section headers, so that every error names its line. */
struct load {
	weft_context *ctx;
	weft_config *cfg;
	const char *path;
	FILE *f;
	char *buf; /* getline()'s buffer */
	size_t cap;
	int line;		   /* physical lines read */
	int fail_line;		   /* line of the first error */
	weft_status st;		   /* WEFT_OK until the first error */
	struct cfg_section *sec;   /* section of the last header, or NULL */
	const weft_key_desc *prev; /* last key set since that header */
	int prev_line;
};

static const char *skip_space(const char *p)
{
	while (*p && isspace((unsigned char)*p))
		p++;
	return p;
}

/* Where inih stops looking for one of chars: at one of them, at an
 * inline comment (';' after a blank) or at the end. */
static const char *find_stop(const char *s, const char *chars)
{
	int was_space = 0;

	while (*s && !strchr(chars, *s) && !(was_space && *s == ';')) {
		was_space = isspace((unsigned char)*s);
		s++;
	}
	return s;
}

/* The line without its end of line, for messages. */
static int shown_len(const char *p)
{
	return (int)strcspn(p, "\r\n");
}

static weft_status scan_header(struct load *ld, const char *p)
{
	const char *end = find_stop(p + 1, "]");
	const char *name = skip_space(p + 1), *rest;
	size_t len;
	char sec[128];

	if (*end != ']')
		return weft__fail(ld->ctx, WEFT_E_CONFIG,
				  "%s:%d: section header %.*s has no closing "
				  "']'",
				  ld->path, ld->line, shown_len(p), p);
	for (len = (size_t)(end - name);
	     len && isspace((unsigned char)name[len - 1]); len--)
		;
	weft__fmt(sec, sizeof sec, "%.*s", (int)len, name);
	rest = skip_space(end + 1);
	if (*rest && *rest != ';' && *rest != '#')
		return weft__fail(ld->ctx, WEFT_E_CONFIG,
				  "%s:%d: unexpected text '%.*s' after [%s]; "
				  "put each key on its own line",
				  ld->path, ld->line, shown_len(rest), rest,
				  sec);
	ld->sec = find_section(ld->cfg, sec);
	ld->prev = NULL;
	if (!ld->sec) {
		char where[WHERE_MAX];
		weft__fmt(where, sizeof where, "%s:%d", ld->path, ld->line);
		return unknown_section(ld->ctx, ld->cfg, where, sec);
	}
	return WEFT_OK;
}

static weft_status scan_line(struct load *ld)
{
	const char *p = ld->buf;
	int indented;

	if (ld->line == 1 && strncmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3; /* UTF-8 byte order mark */
	indented = isspace((unsigned char)*p);
	p = skip_space(p);
	if (!*p || *p == ';' || *p == '#')
		return WEFT_OK; /* blank line or comment */
	/* inih reads an indented line after a key as more of its value. */
	if (indented && ld->prev)
		return weft__fail(ld->ctx, WEFT_E_CONFIG,
				  "%s:%d: indented line '%.*s' would continue "
				  "the value of [%s] %s (line %d); values fit "
				  "on one line: remove the indentation",
				  ld->path, ld->line, shown_len(p), p,
				  ld->sec->name, ld->prev->name, ld->prev_line);
	if (*p == '[')
		return scan_header(ld, p);
	if (*find_stop(p, "=:") == '\0')
		return weft__fail(ld->ctx, WEFT_E_CONFIG,
				  "%s:%d: syntax error: '%.*s' is not "
				  "'key = value', a [section] header or a "
				  "comment",
				  ld->path, ld->line, shown_len(p), p);
	return WEFT_OK;
}

/* inih's reader: one physical line per call. */
static char *read_line(char *str, int num, void *stream)
{
	struct load *ld = stream;
	size_t max = num > 3 ? (size_t)num - 3 : 0; /* room for \r\n\0 */
	size_t text;
	ssize_t len;

	if (ld->st != WEFT_OK)
		return NULL; /* stop inih at the first error */
	errno = 0;
	len = getline(&ld->buf, &ld->cap, ld->f);
	if (len < 0) {
		if (ferror(ld->f)) {
			ld->fail_line = ld->line + 1;
			ld->st = weft__fail(ld->ctx, WEFT_E_CONFIG,
					    "cannot read %s: %s", ld->path,
					    strerror(errno));
		}
		return NULL;
	}
	ld->line++;
	text = (size_t)len;
	if (text && ld->buf[text - 1] == '\n')
		text--;
	if (text && ld->buf[text - 1] == '\r')
		text--;
	if (text > max)
		ld->st = weft__fail(ld->ctx, WEFT_E_CONFIG,
				    "%s:%d: line too long (%zu characters; "
				    "lines may have at most %zu)",
				    ld->path, ld->line, text, max);
	else
		ld->st = scan_line(ld);
	if (ld->st != WEFT_OK) {
		ld->fail_line = ld->line;
		return NULL;
	}
	memcpy(str, ld->buf, (size_t)len + 1);
	return str;
}

static weft_status load_key(struct load *ld, const char *key, const char *value)
{
	const struct cfg_section *s = ld->sec, *home;
	char where[WHERE_MAX];
	weft_status st;
	long k;

	weft__fmt(where, sizeof where, "%s:%d", ld->path, ld->line);
	if (!*key)
		return weft__fail(ld->ctx, WEFT_E_CONFIG,
				  "%s: missing key name before '='", where);
	if (!s) {
		home = section_of_key(ld->cfg, key);
		return weft__fail(ld->ctx, WEFT_E_CONFIG,
				  "%s: key '%s' is outside any section; put it "
				  "under a [section] header%s%s%s",
				  where, key, home ? " such as [" : "",
				  home ? home->name : "", home ? "]" : "");
	}
	if ((k = find_key(s, key)) < 0)
		return unknown_key(ld->ctx, ld->cfg, where, s, key);
	if (s->vals[k].line)
		return weft__fail(ld->ctx, WEFT_E_CONFIG,
				  "%s: [%s] %s is set twice (first at %s:%d); "
				  "remove one",
				  where, s->name, key, ld->path,
				  s->vals[k].line);
	st = weft__config_check(ld->ctx, where, s->name, &s->keys[k], value);
	if (st == WEFT_OK)
		st = store(ld->ctx, s, (size_t)k, value, where);
	if (st != WEFT_OK)
		return st;
	s->vals[k].line = ld->line;
	ld->prev = &s->keys[k];
	ld->prev_line = ld->line;
	return WEFT_OK;
}

/* inih's handler; the section is the one the reader tracked. */
static int on_key(void *user, const char *section, const char *key,
		  const char *value)
{
	struct load *ld = user;

	(void)section;
	if (ld->st == WEFT_OK)
		ld->st = load_key(ld, key, value);
	if (ld->st == WEFT_OK)
		return 1;
	if (!ld->fail_line)
		ld->fail_line = ld->line;
	return 0;
}

static weft_status parse_file(weft_context *ctx, weft_config *cfg,
			      const char *path, FILE *f)
{
	struct load ld = { .ctx = ctx, .cfg = cfg, .path = path, .f = f };
	int rc = ini_parse_stream(read_line, &ld, on_key, &ld);

	free(ld.buf);
	/* inih reports the line of the first error, ours or its own. */
	if (ld.st != WEFT_OK && (rc <= 0 || rc >= ld.fail_line))
		return ld.st;
	if (rc > 0)
		return weft__fail(ctx, WEFT_E_CONFIG, "%s:%d: syntax error",
				  path, rc);
	if (rc < 0)
		return weft__fail(ctx, WEFT_E_NOMEM,
				  "%s: out of memory while parsing", path);
	return WEFT_OK;
}

weft_status weft_config_load(weft_context *ctx, const char *path,
			     weft_config **out)
{
	weft_config *cfg;
	weft_status st;
	FILE *f;

	if (!path || !out)
		return weft__fail(ctx, WEFT_E_INVALID,
				  "weft_config_load: path or out is NULL");
	*out = NULL;
	st = weft_config_new(ctx, &cfg);
	if (st != WEFT_OK)
		return st;
	f = fopen(path, "rb");
	if (!f) {
		st = weft__fail(ctx, WEFT_E_CONFIG,
				"cannot open configuration file %s: %s", path,
				strerror(errno));
		goto free_config;
	}
	st = parse_file(ctx, cfg, path, f);
	fclose(f);
	if (st != WEFT_OK)
		goto free_config;
	*out = cfg;
	return WEFT_OK;

free_config:
	weft_config_free(cfg);
	return st;
}

/* ---- --set overrides ---------------------------------------------------- */

static char *trim(char *s)
{
	char *end;

	s = (char *)skip_space(s);
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/* No '=' or no '.': say what is expected, and which section a bare key
 * name belongs to. */
static weft_status malformed(weft_context *ctx, const weft_config *cfg,
			     const char *assignment, const char *bare_key)
{
	const struct cfg_section *home =
		bare_key ? section_of_key(cfg, bare_key) : NULL;
	char hint[256] = "";

	if (home)
		weft__fmt(hint, sizeof hint, "; did you mean %s.%s?",
			  home->name, bare_key);
	return weft__fail(ctx, WEFT_E_CONFIG,
			  "--set '%s': expected section.key=value (for "
			  "example simulation.steps=200)%s",
			  assignment, hint);
}

static weft_status set_value(weft_context *ctx, weft_config *cfg,
			     const char *section, const char *key,
			     const char *value)
{
	struct cfg_section *s = find_section(cfg, section);
	char where[WHERE_MAX];
	weft_status st;
	long k;

	weft__fmt(where, sizeof where, "--set %s.%s", section, key);
	if (!s)
		return unknown_section(ctx, cfg, where, section);
	if ((k = find_key(s, key)) < 0)
		return unknown_key(ctx, cfg, where, s, key);
	st = weft__config_check(ctx, where, s->name, &s->keys[k], value);
	if (st != WEFT_OK)
		return st;
	return store(ctx, s, (size_t)k, value, where);
}

weft_status weft_config_set(weft_context *ctx, weft_config *cfg,
			    const char *assignment)
{
	char *copy, *eq, *dot, *name;
	weft_status st;

	if (!cfg || !assignment)
		return weft__fail(ctx, WEFT_E_INVALID,
				  "weft_config_set: cfg or assignment is NULL");
	copy = weft__strdup(assignment);
	if (!copy)
		return weft__fail(ctx, WEFT_E_NOMEM,
				  "--set '%s': out of memory", assignment);
	eq = strchr(copy, '=');
	if (!eq) {
		st = malformed(ctx, cfg, assignment, trim(copy));
		goto free_copy;
	}
	*eq = '\0';
	name = trim(copy);
	dot = strchr(name, '.');
	if (!dot) {
		st = malformed(ctx, cfg, assignment, name);
		goto free_copy;
	}
	*dot = '\0';
	st = set_value(ctx, cfg, trim(name), trim(dot + 1), trim(eq + 1));
free_copy:
	free(copy);
	return st;
}

/* ---- checks across keys ------------------------------------------------- */

static const char *where_of(const weft_config *cfg, const char *section,
			    const char *key)
{
	const char *w = weft__config_where(cfg, section, key);
	return w ? w : "default";
}

static weft_status validate_model(weft_context *ctx, const weft_config *cfg)
{
	const char *model = weft__config_str(cfg, "simulation", "model");
	const char *const *names = cfg->sec_names + N_OF(core_sections);
	char hint[WEFT__MSG_MAX / 2];

	if (weft__model_find(model))
		return WEFT_OK;
	suggest(hint, sizeof hint, model, names, weft__n_models, "'", "'",
		"models are");
	return weft__fail(ctx, WEFT_E_CONFIG,
			  "%s: [simulation] model = %s: no such model%s",
			  where_of(cfg, "simulation", "model"), model, hint);
}

/* Backend names are [a-z0-9_-]+: a name is looked up as
 * weft-backend-NAME.so in the plugin directories, never taken as a path. */
static int is_backend_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || *s == '-'))
			return 0;
	return 1;
}

static weft_status validate_backend(weft_context *ctx, const weft_config *cfg)
{
	const char *name = weft__config_str(cfg, "backend", "name");
	const char *plugin = weft__config_str(cfg, "backend", "plugin");

	if (!is_backend_name(name))
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s: [backend] name = %s is not a backend "
				  "name (names use only a-z, 0-9, '_' and "
				  "'-'); give a plugin file with [backend] "
				  "plugin = PATH",
				  where_of(cfg, "backend", "name"), name);
	if (strcmp(name, "auto") != 0 && *plugin)
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s: [backend] plugin = %s conflicts with "
				  "[backend] name = %s (%s): give a backend "
				  "name or a plugin file, not both; leave name "
				  "= auto to load the plugin",
				  where_of(cfg, "backend", "plugin"), plugin,
				  name, where_of(cfg, "backend", "name"));
	return WEFT_OK;
}

/* A plot is drawn from the CSV: asking for one without it is a mistake,
 * but the default (png) quietly draws nothing when csv = false. */
static weft_status validate_output(weft_context *ctx, const weft_config *cfg)
{
	const char *plot = weft__config_str(cfg, "output", "plot");
	const char *where = where_of(cfg, "output", "plot");

	if (!*weft__config_str(cfg, "output", "directory"))
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s: [output] directory is empty; name a "
				  "directory, or . for the current one",
				  where_of(cfg, "output", "directory"));
	if (strcmp(plot, "none") != 0 && strcmp(where, "default") != 0 &&
	    !weft__config_bool(cfg, "output", "csv"))
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s: [output] plot = %s needs the CSV, but "
				  "[output] csv = false (%s); set csv = true, "
				  "or plot = none",
				  where, plot, where_of(cfg, "output", "csv"));
	return WEFT_OK;
}

weft_status weft_config_validate(weft_context *ctx, const weft_config *cfg)
{
	weft_status st;

	if (!cfg)
		return weft__fail(ctx, WEFT_E_INVALID,
				  "weft_config_validate: cfg is NULL");
	st = validate_model(ctx, cfg);
	if (st == WEFT_OK)
		st = validate_backend(ctx, cfg);
	if (st == WEFT_OK)
		st = validate_output(ctx, cfg);
	return st;
}

/* ---- getters ------------------------------------------------------------ */

const char *weft_config_get(const weft_config *cfg, const char *section,
			    const char *key)
{
	return value_text(cfg, section, key);
}

int64_t weft__config_int(const weft_config *c, const char *section,
			 const char *key)
{
	const char *t = value_text(c, section, key);
	return t ? (int64_t)strtoll(t, NULL, 10) : 0;
}

double weft__config_real(const weft_config *c, const char *section,
			 const char *key)
{
	const char *t = value_text(c, section, key);
	return t ? parse_real(t, NULL) : 0.0;
}

int weft__config_bool(const weft_config *c, const char *section,
		      const char *key)
{
	const char *t = value_text(c, section, key);
	int b = 0;

	if (t)
		parse_bool(t, &b);
	return b;
}

const char *weft__config_str(const weft_config *c, const char *section,
			     const char *key)
{
	const char *t = value_text(c, section, key);
	return t ? t : "";
}

const char *weft__config_where(const weft_config *c, const char *section,
			       const char *key)
{
	const weft_key_desc *d;
	const struct cfg_value *v = find_value(c, section, key, &d);

	if (!v)
		return NULL;
	return v->where ? v->where : "default";
}

/* ---- the reference (docs/config.md) ------------------------------------- */

static const char reference_intro[] =
	"# Configuration reference\n"
	"\n"
	"weft reads the description of a run from one INI file, as in\n"
	"`weft run astoria.ini`: which model to run and for how many steps,\n"
	"which backend to run it on, what to write, and the parameters of\n"
	"the model. Every key is optional and takes the default listed below\n"
	"when it is left out, so an empty file runs the default model with\n"
	"its default parameters on the best available backend. Every value\n"
	"is checked when the file is read, and the first problem stops the\n"
	"run with a message naming the file, the line, the section and the\n"
	"key, for example\n"
	"`astoria.ini:12: [simulation] steps = ten: expected an integer from 1 "
	"to 1000000000`.\n"
	"\n"
	"## Syntax\n"
	"\n"
	"- A section starts with its name in square brackets, such as\n"
	"  `[simulation]`, and its keys follow as `key = value`, one per\n"
	"  line. A section may appear more than once (its keys are merged),\n"
	"  but each key may be set only once.\n"
	"- Lines starting with `;` or `#` are comments. After a value, a `;`\n"
	"  preceded by a blank starts a comment; a `#` there is part of the\n"
	"  value.\n"
	"- A line holds at most 197 characters, and a value fits on its\n"
	"  line: an indented line after a key is an error, not more of its\n"
	"  value.\n"
	"- Integers are decimal. Real numbers must be finite: `nan` and `inf`\n"
	"  are refused. Booleans are written " BOOL_SPELLINGS ", in any\n"
	"  case. Text is taken as written, without quotes; blanks around it\n"
	"  are dropped.\n"
	"- Files may use LF or CRLF line endings and may start with a UTF-8\n"
	"  byte order mark.\n"
	"- `--set section.key=value` on the command line overrides one key of\n"
	"  the file, with the same checks; messages about it name it as\n"
	"  `--set section.key`.\n"
	"\n";

static const char reference_models[] =
	"## Model parameters\n"
	"\n"
	"Each model has a section named after it. Only the section of the\n"
	"model chosen by `[simulation] model` is used, but every model's\n"
	"section is checked, so a file may keep the parameters of several\n"
	"models.\n"
	"\n";

static const char reference_example[] =
	"## Example\n"
	"\n"
	"```ini\n"
	"; astoria.ini: a small SEIR outbreak\n"
	"[simulation]\n"
	"model = seir\n"
	"steps = 180\n"
	"seed = 42\n"
	"\n"
	"[backend]\n"
	"name = auto ; or openmp, opencl, cuda\n"
	"\n"
	"[output]\n"
	"directory = astoria-out\n"
	"every = 7\n"
	"plot = svg ; or png, none\n"
	"\n"
	"[seir]\n"
	"agents = 100000\n"
	"beta = 0.04\n"
	"```\n"
	"\n"
	"*This file is generated by `weft config-reference` from the keys\n"
	"declared in the sources; change those, not this file.*\n";

static const char *type_name(weft_key_type t)
{
	switch (t) {
	case WEFT_KEY_INT: return "integer";
	case WEFT_KEY_REAL: return "real";
	case WEFT_KEY_BOOL: return "boolean";
	case WEFT_KEY_STRING: return "text";
	case WEFT_KEY_ENUM: return "choice";
	}
	return "unknown";
}

/* Table cell text: '|' would end the cell. */
static void md_cell(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else
			fputc(*s == '\n' ? ' ' : *s, f);
	}
}

/* The two text keys that weft_config_validate() restricts. */
static int md_accepts_special(FILE *f, const struct cfg_section *s,
			      const weft_key_desc *d)
{
	if (strcmp(s->name, "simulation") == 0 &&
	    strcmp(d->name, "model") == 0) {
		fputs("a model:", f);
		for (size_t i = 0; i < weft__n_models; i++)
			fprintf(f, "%s `%s`", i ? "," : "",
				weft__models[i]->name);
		return 1;
	}
	if (strcmp(s->name, "backend") == 0 && strcmp(d->name, "name") == 0) {
		fputs("`auto` or a name of a-z, 0-9, `_` and `-`", f);
		return 1;
	}
	return 0;
}

static void md_accepts(FILE *f, const struct cfg_section *s,
		       const weft_key_desc *d)
{
	struct choices c;

	if (md_accepts_special(f, s, d))
		return;
	switch (d->type) {
	case WEFT_KEY_INT:
		fprintf(f, "%lld to %lld", (long long)d->min,
			(long long)d->max);
		break;
	case WEFT_KEY_REAL: fprintf(f, "%.15g to %.15g", d->min, d->max); break;
	case WEFT_KEY_BOOL: fputs("true or false", f); break;
	case WEFT_KEY_ENUM:
		split_choices(d->choices, &c);
		for (size_t i = 0; i < c.n; i++)
			fprintf(f, "%s`%s`", i ? ", " : "", c.name[i]);
		break;
	case WEFT_KEY_STRING: fputs("any text", f); break;
	}
}

static void md_section(FILE *f, const struct cfg_section *s)
{
	if (s->model)
		fprintf(f,
			"### [%s]\n\nParameters of the model `%s`: ", s->name,
			s->name);
	else
		fprintf(f, "## [%s]\n\n", s->name);
	md_cell(f, s->about ? s->about : "");
	fputs(s->model ? ".\n\n" : "\n\n", f);
	fputs("| Key | Type | Default | Accepted | Meaning |\n"
	      "| --- | --- | --- | --- | --- |\n",
	      f);
	for (size_t k = 0; k < s->n_keys; k++) {
		const weft_key_desc *d = &s->keys[k];
		fprintf(f, "| `%s` | %s | ", d->name, type_name(d->type));
		if (*d->def)
			fprintf(f, "`%s`", d->def);
		else
			fputs("(empty)", f);
		fputs(" | ", f);
		md_accepts(f, s, d);
		fputs(" | ", f);
		md_cell(f, d->help ? d->help : "");
		fputs(" |\n", f);
	}
	fputc('\n', f);
}

static void md_write(FILE *f, const weft_config *cfg)
{
	size_t n_core = N_OF(core_sections);

	fputs(reference_intro, f);
	for (size_t i = 0; i < cfg->n_secs; i++) {
		if (i == n_core)
			fputs(reference_models, f);
		md_section(f, &cfg->secs[i]);
	}
	fputs(reference_example, f);
}

weft_status weft_config_reference(weft_context *ctx, char **markdown)
{
	weft_config *cfg;
	weft_status st;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int bad;

	if (!markdown)
		return weft__fail(ctx, WEFT_E_INVALID,
				  "weft_config_reference: markdown is NULL");
	*markdown = NULL;
	st = weft_config_new(ctx, &cfg);
	if (st != WEFT_OK)
		return st;
	f = open_memstream(&text, &len);
	if (!f)
		goto no_memory;
	md_write(f, cfg);
	bad = ferror(f);
	if (fclose(f) != 0 || bad)
		goto free_text;
	weft_config_free(cfg);
	*markdown = text;
	return WEFT_OK;

free_text:
	free(text);
no_memory:
	weft_config_free(cfg);
	return weft__fail(ctx, WEFT_E_NOMEM,
			  "out of memory writing the configuration reference");
}
