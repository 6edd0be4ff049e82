/*
 * core/config/config.c - the configuration: a schema of declared keys (the
 * core's own sections, and one section per model, declared by the model's
 * plugin), "--set section.key=value" overrides, checks across keys, and
 * typed access. INI files are read in config_file.c, model sections found
 * in config_model.c, the Markdown reference written in config_ref.c.
 *
 * A value is kept as validated text together with where it came from
 * ("astoria.ini:12", "--set seir.beta" or "default"), so that a later
 * error about values that are valid alone but not together can still name
 * the file and line. Messages name FILE:LINE, the section and the key, and
 * suggest the closest valid name.
 */
#include "config/cfg.h"

#include <ctype.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* 2^53 - 1: the largest integer that the schema's double bounds hold. */
#define INT53_MAX 9007199254740991.0

/* ---- the core's sections ------------------------------------------------ */

static const weft_key_desc simulation_keys[] = {
	{ "model", WEFT_KEY_STRING, "seir", 0, 0, NULL,
	  "the model to run, by name: the plugin weft-model-NAME.so found in "
	  "the model search path ([model] plugin_path, $WEFT_MODEL_PATH, the "
	  "installed plugin directory); its parameters are read from the "
	  "section of the same name" },
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
	  "leave name at auto when you set it. A relative path is taken from "
	  "the INI file's directory (from the current directory with --set)" },
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
	  "~/.cache/weft), off disables the cache. A relative path is taken "
	  "from the current directory" },
	{ "profile", WEFT_KEY_BOOL, "false", 0, 0, NULL,
	  "time every kernel launch, for the per-kernel counters (launches, "
	  "time) that `weft run --stats` prints (--stats sets it). Costs a "
	  "little per launch, and the CUDA backend replays no graphs while "
	  "profiling" },
	{ "plugin_path", WEFT_KEY_STRING, "", 0, 0, NULL,
	  "':'-separated directories searched for weft-backend-NAME.so before "
	  "$WEFT_PLUGIN_PATH and the installed plugin directory. Relative "
	  "ones are taken from the INI file's directory (plugin_path = . is "
	  "that directory; from the current directory with --set)" },
};

static const weft_key_desc checkpoint_keys[] = {
	{ "every", WEFT_KEY_INT, "0", 0, 1000000000, NULL,
	  "write a checkpoint after every this many steps (0: none): the "
	  "model's state, the step reached, the outputs so far and the "
	  "configuration's hash, into [checkpoint] directory, replacing the "
	  "previous checkpoint in one step. `weft run CONFIG --resume DIR` "
	  "continues from it and gives the outputs an uninterrupted run gives, "
	  "on any backend. With checkpoints on, `weft run` stopped by SIGINT, "
	  "SIGTERM or SIGHUP between steps writes one at the step reached "
	  "before it exits. Each costs one wait for the device; its files are "
	  "written while the next steps run. The model must declare its state "
	  "(seir, cartpole and sir do; `weft check` says when one does not)" },
	{ "directory", WEFT_KEY_STRING, "", 0, 0, NULL,
	  "where checkpoints are written: a directory holding the last one; "
	  "empty takes [output] directory followed by .checkpoint "
	  "(weft-out.checkpoint). Relative to the current directory, as "
	  "[output] directory is, and outside it. A second run writing into it "
	  "is refused while one is running" },
};

static const weft_key_desc model_keys[] = {
	{ "plugin", WEFT_KEY_STRING, "", 0, 0, NULL,
	  "path of a model plugin file (weft-model-NAME.so) to load instead "
	  "of searching by name; [simulation] model is then NAME, or left "
	  "unset. A relative path is taken from the INI file's directory "
	  "(from the current directory with --set)" },
	{ "plugin_path", WEFT_KEY_STRING, "", 0, 0, NULL,
	  "':'-separated directories searched for weft-model-NAME.so before "
	  "$WEFT_MODEL_PATH and the installed plugin directory. Relative ones "
	  "are taken from the INI file's directory (plugin_path = . is that "
	  "directory; from the current directory with --set)" },
};

static const weft_key_desc output_keys[] = {
	{ "directory", WEFT_KEY_STRING, "weft-out", 0, 0, NULL,
	  "directory the results are written to, relative to the current "
	  "directory (where the run is started, not the INI file's). A run "
	  "replaces it as a whole, in one step, once it has completed: it "
	  "holds the files of one run, and files put there by hand are "
	  "carried over (subdirectories are refused). A second run into it "
	  "is refused while one is running" },
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

static const weft_key_desc ensemble_keys[] = {
	{ "runs", WEFT_KEY_INT, "1", 1, 10000, NULL,
	  "runs of every scenario (and sweep point), with the seeds "
	  "[simulation] seed, seed + 1, ...: setting it, or writing a [sweep] "
	  "or a [scenario NAME] section, makes the file an ensemble. `weft "
	  "run` runs them all and writes, per scenario, the mean, standard "
	  "deviation and quantiles of every aggregated column per step "
	  "(SCENARIO.csv), a summary across scenarios (summary.csv) and band "
	  "plots (docs/ensembles.md). [sweep] holds section.key = "
	  "v1, v2, ... lists or start:stop:step ranges (their cartesian "
	  "product); each [scenario NAME] holds section.key = value "
	  "overrides; with both, every scenario runs every sweep point. At "
	  "most 10000 runs in all" },
	{ "keep_runs", WEFT_KEY_BOOL, "true", 0, 0, NULL,
	  "keep every run's own outputs in runs/SCENARIO/SEED/ of the output "
	  "directory; false keeps the aggregates only" },
	{ "batch", WEFT_KEY_INT, "1", 1, 4096, NULL,
	  "step the runs of a scenario this many at a time as one batch of "
	  "replicas on one device: one launch of each kernel for all of "
	  "them, so that many small runs keep a GPU (or every core) busy. "
	  "Every run's outputs and the aggregates are byte for byte those of "
	  "batch = 1. The batch's memory is this many times a run's; a "
	  "backend without batched replicas (backend ABI 1.4 "
	  "step_replicas()) runs them one after another, and summary.txt "
	  "says so (docs/ensembles.md, \"Batched replicas\"). Under weft-mpi "
	  "a batch is the unit of work a rank is given" },
};

/* The core's sections, in the reference's order (models.c lists their
 * names for the models' check: no model may take one). */
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
	{ "model",
	  "Where the model plugin comes from, when it is not an installed "
	  "one.",
	  model_keys, N_OF(model_keys) },
	{ "checkpoint",
	  "Saving a run's state as it goes, to resume it after an "
	  "interruption (`weft run CONFIG --resume DIR`).",
	  checkpoint_keys, N_OF(checkpoint_keys) },
	{ "ensemble",
	  "Many runs of one model: seeds, [sweep] and [scenario NAME] "
	  "sections, and their aggregates.",
	  ensemble_keys, N_OF(ensemble_keys) },
	{ "calibration",
	  "Fitting parameters to data with `weft calibrate` "
	  "(docs/calibration.md); `weft run` ignores it, `weft check` checks "
	  "it. Besides the keys below it holds the parameters, one line each, "
	  "param.SECTION.KEY = LOW .. HIGH, followed by log for a log scale "
	  "(param.seir.beta = 0.004 .. 0.03: a float, or an int for an "
	  "integer key), and the likelihood components, component.NAME = KIND "
	  "DATA[, DATA] [~ MODEL[, MODEL]] [weight=W] [sigma2=S], KIND normal, "
	  "binomial, beta_binomial, gamma_poisson or dirichlet_multinomial, "
	  "DATA the data's columns, MODEL expressions of the output table's "
	  "columns, numbers, cum() and diff() joined by + and - "
	  "(component.cases = normal cases ~ cum(new_infections))",
	  NULL, 0 },
};

/* After any value or section changed: the options parsed again, the
 * selected model and validation's record forgotten (below). */
static void cfg_changed(struct cfg_table *t);

/* ---- the configuration -------------------------------------------------- */

static void section_free(struct cfg_section *s)
{
	if (!s)
		return;
	for (size_t k = 0; s->vals && k < s->n_keys; k++) {
		free(s->vals[k].text);
		free(s->vals[k].where);
	}
	for (size_t i = 0; i < s->n_raw; i++) {
		free(s->raw[i].key);
		free(s->raw[i].value);
	}
	free(s->raw);
	for (size_t i = 0; i < s->n_lines; i++) {
		free(s->lines[i].key);
		free(s->lines[i].value);
	}
	free(s->lines);
	free(s->vals);
	free(s->key_names);
	weft__plugin_free(s->plugin);
	free(s->name);
	free(s);
}

static void ens_section_free(struct cfg_ens_section *e)
{
	for (size_t j = 0; j < e->n_raw; j++) {
		free(e->raw[j].key);
		free(e->raw[j].value);
	}
	free(e->raw);
	free(e->name);
}

weft_status weft__cfg_set_keys(struct cfg_section *s, const weft_key_desc *keys,
			       size_t n_keys)
{
	s->keys = keys;
	s->n_keys = n_keys;
	/* One spare element: calloc(0) may return NULL. */
	s->key_names = calloc(n_keys + 1, sizeof *s->key_names);
	s->vals = calloc(n_keys + 1, sizeof *s->vals);
	if (!s->key_names || !s->vals)
		return WEFT_E_NOMEM;
	for (size_t k = 0; k < n_keys; k++)
		s->key_names[k] = keys[k].name;
	if (s->t)
		cfg_changed(s->t);
	return WEFT_OK;
}

struct cfg_section *weft__cfg_add(const weft_config *cfg, const char *name)
{
	struct cfg_table *t = cfg->t;
	struct cfg_section **grown, *s;

	grown = realloc(t->secs, (t->n_secs + 1) * sizeof *grown);
	if (!grown)
		return NULL;
	t->secs = grown;
	s = calloc(1, sizeof *s);
	if (!s || !(s->name = weft__strdup(name))) {
		free(s);
		return NULL;
	}
	s->t = t;
	t->secs[t->n_secs++] = s;
	return s;
}

weft_status weft__config_new(weft_context *ctx, weft_config **out)
{
	weft_config *cfg;

	if (!out)
		return weft__fail(ctx, WEFT_E_INVALID,
				  "weft_config_new: out is NULL");
	*out = NULL;
	cfg = calloc(1, sizeof *cfg);
	if (!cfg || !(cfg->t = calloc(1, sizeof *cfg->t)))
		goto free_config;
	for (size_t i = 0; i < N_OF(core_sections); i++) {
		struct cfg_section *s =
			weft__cfg_add(cfg, core_sections[i].name);
		const weft_key_desc *keys = core_sections[i].keys;
		size_t n_keys = core_sections[i].n_keys;
		if (!keys) { /* [calibration]: config_calib.c's */
			keys = weft__calibration_keys;
			n_keys = weft__n_calibration_keys;
		}
		if (!s || weft__cfg_set_keys(s, keys, n_keys))
			goto free_config;
		s->about = core_sections[i].about;
	}
	cfg_changed(cfg->t);
	*out = cfg;
	return WEFT_OK;

free_config:
	weft__config_free(cfg);
	return weft__fail(ctx, WEFT_E_NOMEM,
			  "out of memory creating a configuration");
}

void weft__config_free(weft_config *cfg)
{
	if (!cfg)
		return;
	if (cfg->t) {
		for (size_t i = 0; i < cfg->t->n_secs; i++)
			section_free(cfg->t->secs[i]);
		free(cfg->t->secs);
		free(cfg->t->own_model_path);
		for (size_t i = 0; i < cfg->t->n_ens; i++)
			ens_section_free(&cfg->t->ens[i]);
		free(cfg->t->ens);
		free(cfg->t->path);
		free(cfg->t->valid);
		free(cfg->t);
	}
	free(cfg);
}

weft_status weft_config_new(weft_context *ctx, weft_config **out)
{
	return weft__config_new(ctx, out);
}

void weft_config_free(weft_config *cfg)
{
	weft__config_free(cfg);
}

/* ---- lookups ------------------------------------------------------------ */

struct cfg_section *weft__cfg_find(const weft_config *cfg, const char *name)
{
	for (size_t i = 0; cfg && i < cfg->t->n_secs; i++)
		if (strcmp(cfg->t->secs[i]->name, name) == 0)
			return cfg->t->secs[i];
	return NULL;
}

long weft__cfg_find_key(const struct cfg_section *s, const char *key)
{
	for (size_t k = 0; k < s->n_keys; k++)
		if (strcmp(s->keys[k].name, key) == 0)
			return (long)k;
	return -1;
}

struct cfg_section *weft__cfg_section_of_key(const weft_config *cfg,
					     const char *key)
{
	struct cfg_section *model;

	for (size_t i = 0; i < cfg->t->n_secs; i++)
		if (weft__cfg_find_key(cfg->t->secs[i], key) >= 0)
			return cfg->t->secs[i];
	/* The selected model's keys, for "'agents' belongs in [seir]". */
	model = weft__cfg_model_lookup(
		cfg, weft__config_opts(cfg)->simulation.model);
	return model && weft__cfg_find_key(model, key) >= 0 ? model : NULL;
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
	s = weft__cfg_find(cfg, section);
	if (!s || s->pending || (k = weft__cfg_find_key(s, key)) < 0)
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

/* ---- errors shared by files and --set ----------------------------------- */

/* The sections there could be: the configuration's and the model
 * plugins found; "; did you mean [seir]?" or the list. Returns 1 when it
 * suggests a name. */
static int section_hint(const weft_config *cfg, const char *name, char *hint,
			size_t size)
{
	const char *names[WEFT__NAMES_MAX + 16];
	char *searched = weft__cfg_model_search_path(cfg);
	weft__names models = { .n = 0 };
	size_t n = 0;

	for (size_t i = 0; i < cfg->t->n_secs && n < 16; i++)
		if (!cfg->t->secs[i]->pending)
			names[n++] = cfg->t->secs[i]->name;
	if (searched)
		weft__plugin_names(&weft__model_kind, searched, &models);
	for (size_t i = 0; i < models.n; i++)
		if (!weft__cfg_find(cfg, models.name[i]))
			names[n++] = models.name[i];
	weft__suggest(hint, size, name, names, n, "[", "]", "sections are");
	weft__names_free(&models);
	free(searched);
	return strncmp(hint, "; did you mean", 14) == 0;
}

weft_status weft__cfg_unknown_section(weft_context *ctx, const weft_config *cfg,
				      const char *where, const char *name,
				      const char *why)
{
	char hint[WEFT__MSG_MAX / 2];

	/* Where models were looked for matters only when no name is close:
	 * a misspelt [simulation] is not a missing model. */
	if (section_hint(cfg, name, hint, sizeof hint))
		why = NULL;
	return weft__fail(ctx, WEFT_E_CONFIG, "%s: unknown section [%s]%s%s",
			  where, name, why ? why : "", hint);
}

weft_status weft__cfg_unknown_key(weft_context *ctx, const weft_config *cfg,
				  const char *where,
				  const struct cfg_section *s, const char *key)
{
	const struct cfg_section *other = weft__cfg_section_of_key(cfg, key);
	char hint[WEFT__MSG_MAX / 2];
	char label[128];

	weft__fmt(label, sizeof label, "keys of [%s] are", s->name);
	if (other && !weft__closest(key, s->key_names, s->n_keys))
		weft__fmt(hint, sizeof hint, "; '%s' belongs in [%s]", key,
			  other->name);
	else
		weft__suggest(hint, sizeof hint, key, s->key_names, s->n_keys,
			      "'", "'", label);
	return weft__fail(ctx, WEFT_E_CONFIG, "%s: unknown key '%s' in [%s]%s",
			  where, key, s->name, hint);
}

weft_status weft__cfg_store(weft_context *ctx, struct cfg_section *s, size_t k,
			    const char *text, const char *where)
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
	cfg_changed(s->t);
	return WEFT_OK;
}

/* ---- --set overrides ---------------------------------------------------- */

static char *trim(char *s)
{
	char *end;

	while (*s && isspace((unsigned char)*s))
		s++;
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
		bare_key ? weft__cfg_section_of_key(cfg, bare_key) : NULL;
	char hint[256] = "";

	if (home)
		weft__fmt(hint, sizeof hint, "; did you mean %s.%s?",
			  home->name, bare_key);
	return weft__fail(ctx, WEFT_E_INVALID,
			  "--set '%s': expected section.key=value (for "
			  "example simulation.steps=200)%s",
			  assignment, hint);
}

/* Control characters (and DEL) have no place in a configuration: their
 * first one, with what precedes it escaped. */
static weft_status text_only(weft_context *ctx, const char *where,
			     const char *text)
{
	char shown[WEFT__MSG_MAX / 4];
	size_t n = 0;

	while (text[n] && (unsigned char)text[n] >= 0x20 &&
	       (unsigned char)text[n] != 0x7f)
		n++;
	if (!text[n])
		return WEFT_OK;
	weft__escape(shown, sizeof shown, text, n);
	return weft__fail(ctx, WEFT_E_CONFIG,
			  "%s: a control character (\\x%02x) at column %zu: "
			  "'%s': a configuration holds text only",
			  where, (unsigned char)text[n], n + 1, shown);
}

static weft_status set_value(weft_context *ctx, weft_config *cfg,
			     const char *section, const char *key,
			     const char *value)
{
	struct cfg_section *s = weft__cfg_find(cfg, section);
	char where[WHERE_MAX];
	weft_status st;
	long k;

	if ((st = text_only(ctx, "--set", section)) ||
	    (st = text_only(ctx, "--set", key)))
		return st;
	weft__fmt(where, sizeof where, "--set %s.%s", section, key);
	if ((st = text_only(ctx, where, value)))
		return st;
	if (!s && (st = weft__cfg_model_section(ctx, cfg, where, section, &s)))
		return st;
	if (weft__cfg_calib_is_line(s, key))
		return weft__cfg_calib_line(ctx, cfg, s, where, 0, key, value);
	if ((k = weft__cfg_find_key(s, key)) < 0)
		return weft__cfg_unknown_key(ctx, cfg, where, s, key);
	st = weft__value_check(ctx, where, s->name, &s->keys[k], value);
	if (st != WEFT_OK)
		return st;
	return weft__cfg_store(ctx, s, (size_t)k, value, where);
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

const char *weft__cfg_where_of(const weft_config *cfg, const char *section,
			       const char *key)
{
	const char *w = weft__config_where(cfg, section, key);
	return w ? w : "default";
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
	const char *name = weft__config_opts(cfg)->backend.name;
	const char *plugin = weft__config_opts(cfg)->backend.plugin;

	if (!is_backend_name(name))
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s: [backend] name = %s is not a backend "
				  "name (names use only a-z, 0-9, '_' and "
				  "'-'); give a plugin file with [backend] "
				  "plugin = PATH",
				  weft__cfg_where_of(cfg, "backend", "name"),
				  name);
	if (strcmp(name, "auto") != 0 && *plugin)
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s: [backend] plugin = %s conflicts with "
				  "[backend] name = %s (%s): give a backend "
				  "name or a plugin file, not both; leave name "
				  "= auto to load the plugin",
				  weft__cfg_where_of(cfg, "backend", "plugin"),
				  plugin, name,
				  weft__cfg_where_of(cfg, "backend", "name"));
	return WEFT_OK;
}

/* A plot is drawn from the CSV: asking for one without it is a mistake,
 * but the default (png) quietly draws nothing when csv = false. */
static weft_status validate_output(weft_context *ctx, const weft_config *cfg)
{
	const char *plot = weft__config_opts(cfg)->output.plot;
	const char *where = weft__cfg_where_of(cfg, "output", "plot");

	if (!*weft__config_opts(cfg)->output.directory)
		return weft__fail(
			ctx, WEFT_E_CONFIG,
			"%s: [output] directory is empty; name a "
			"directory, or . for the current one",
			weft__cfg_where_of(cfg, "output", "directory"));
	if (strcmp(plot, "none") != 0 && strcmp(where, "default") != 0 &&
	    !weft__config_opts(cfg)->output.csv)
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s: [output] plot = %s needs the CSV, but "
				  "[output] csv = false (%s); set csv = true, "
				  "or plot = none",
				  where, plot,
				  weft__cfg_where_of(cfg, "output", "csv"));
	return WEFT_OK;
}

weft_status weft__config_check_core(weft_context *ctx, const weft_config *cfg)
{
	weft_status st = validate_backend(ctx, cfg);

	return st ? st : validate_output(ctx, cfg);
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
	return t ? weft__parse_real(t, NULL) : 0.0;
}

int weft__config_bool(const weft_config *c, const char *section,
		      const char *key)
{
	const char *t = value_text(c, section, key);
	int b = 0;

	if (t)
		weft__parse_bool(t, &b);
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

int weft__config_writes(const weft_config *c)
{
	return weft__config_opts(c)->output.csv ||
	       weft__config_opts(c)->output.summary;
}

int weft__config_is_ensemble(const weft_config *c)
{
	const char *w = c ? weft__config_where(c, "ensemble", "runs") : 0;

	return c && ((w && strcmp(w, "default") != 0) || c->t->n_ens);
}

int weft__config_has(const weft_config *c, const char *section, const char *key)
{
	const weft_key_desc *d;

	return find_value(c, section, key, &d) != NULL;
}

/* The selected model's section when the configuration holds it already:
 * the one validation found, else [model] plugin's, else the section
 * named by [simulation] model once its plugin was found. Loads nothing. */
static const struct cfg_section *selected(const weft_config *cfg)
{
	const struct cfg_section *s;

	if (!cfg)
		return NULL;
	if (cfg->t->model)
		return cfg->t->model;
	if (cfg->t->own_model)
		return cfg->t->own_model;
	s = weft__cfg_find(cfg, cfg->t->opts.simulation.model);
	return s && !s->pending && s->plugin ? s : NULL;
}

const weft_model *weft__config_model(const weft_config *cfg)
{
	const struct cfg_section *s = selected(cfg);

	return s ? WEFT__MODEL(s->plugin) : NULL;
}

const char *weft__config_model_path(const weft_config *cfg)
{
	const struct cfg_section *s = selected(cfg);

	return s ? s->plugin->path : "";
}

weft_status weft__config_select(weft_context *ctx, const weft_config *cfg,
				const weft_model **out)
{
	struct cfg_section *s;
	weft_status st = weft__cfg_selected_model(ctx, cfg, &s);

	*out = NULL;
	if (st)
		return st;
	cfg->t->model = s;
	*out = WEFT__MODEL(s->plugin);
	return WEFT_OK;
}

/* ---- the core's options, parsed ------------------------------------------ */

const weft__opts *weft__config_opts(const weft_config *c)
{
	return &c->t->opts;
}

/* The text of a core key, "" when its section is not there yet (while
 * the configuration is being made). */
static const char *opt_text(const weft_config *c, const char *section,
			    const char *key)
{
	const char *t = value_text(c, section, key);
	return t ? t : "";
}

static int opt_bool(const weft_config *c, const char *section, const char *key)
{
	int b = 0;

	weft__parse_bool(opt_text(c, section, key), &b);
	return b;
}

#define OPT_U64(c, s, k) ((uint64_t)strtoull(opt_text(c, s, k), NULL, 10))
#define OPT_U32(c, s, k) ((uint32_t)strtoul(opt_text(c, s, k), NULL, 10))

static void opts_parse(const weft_config *c, weft__opts *o)
{
	o->simulation.model = opt_text(c, "simulation", "model");
	o->simulation.steps = OPT_U64(c, "simulation", "steps");
	o->simulation.seed = OPT_U64(c, "simulation", "seed");
	o->backend.name = opt_text(c, "backend", "name");
	o->backend.plugin = opt_text(c, "backend", "plugin");
	o->backend.device = opt_text(c, "backend", "device");
	o->backend.platform = opt_text(c, "backend", "platform");
	o->backend.cache_dir = opt_text(c, "backend", "cache_dir");
	o->backend.plugin_path = opt_text(c, "backend", "plugin_path");
	o->backend.threads = OPT_U32(c, "backend", "threads");
	o->backend.profile = opt_bool(c, "backend", "profile");
	o->output.directory = opt_text(c, "output", "directory");
	o->output.plot = opt_text(c, "output", "plot");
	o->output.every = OPT_U64(c, "output", "every");
	o->output.csv = opt_bool(c, "output", "csv");
	o->output.summary = opt_bool(c, "output", "summary");
	o->model.plugin = opt_text(c, "model", "plugin");
	o->model.plugin_path = opt_text(c, "model", "plugin_path");
	o->checkpoint.every = OPT_U64(c, "checkpoint", "every");
	o->checkpoint.directory = opt_text(c, "checkpoint", "directory");
	o->ensemble.runs = OPT_U32(c, "ensemble", "runs");
	o->ensemble.batch = OPT_U32(c, "ensemble", "batch");
	o->ensemble.keep_runs = opt_bool(c, "ensemble", "keep_runs");
}

static void cfg_changed(struct cfg_table *t)
{
	weft_config c = { .t = t };

	opts_parse(&c, &t->opts);
	t->model = NULL;
	free(t->valid);
	t->valid = NULL;
}

void *weft__config_valid(const weft_config *c)
{
	return c->t->valid;
}

void weft__config_keep_valid(const weft_config *c, void *valid)
{
	free(c->t->valid);
	c->t->valid = valid;
}

/* ---- copies (ensemble_plan.c) -------------------------------------------- */

/* The values set in s, with their origins, into d (the same keys). */
static weft_status dup_values(weft_context *ctx, struct cfg_section *d,
			      const struct cfg_section *s)
{
	weft_status st = WEFT_OK;

	for (size_t k = 0; st == WEFT_OK && k < s->n_keys; k++)
		if (s->vals[k].text)
			st = weft__cfg_store(ctx, d, k, s->vals[k].text,
					     s->vals[k].where);
	return st;
}

static weft_status dup_raw(struct cfg_raw **out, const struct cfg_raw *raw,
			   size_t n)
{
	*out = calloc(n + 1, sizeof **out);
	if (!*out)
		return WEFT_E_NOMEM;
	for (size_t i = 0; i < n; i++) {
		(*out)[i] = (struct cfg_raw){ weft__strdup(raw[i].key),
					      weft__strdup(raw[i].value),
					      raw[i].line };
		if (!(*out)[i].key || !(*out)[i].value)
			return WEFT_E_NOMEM;
	}
	return WEFT_OK;
}

/* The file's name and its [sweep] and [scenario] sections. */
static weft_status dup_ens(struct cfg_table *d, const struct cfg_table *s)
{
	if (s->path && !(d->path = weft__strdup(s->path)))
		return WEFT_E_NOMEM;
	d->ens = calloc(s->n_ens + 1, sizeof *d->ens);
	if (!d->ens)
		return WEFT_E_NOMEM;
	for (size_t i = 0; i < s->n_ens; i++, d->n_ens++) {
		d->ens[i] = s->ens[i];
		d->ens[i].raw = NULL;
		d->ens[i].name = weft__strdup(s->ens[i].name);
		if (!d->ens[i].name ||
		    dup_raw(&d->ens[i].raw, s->ens[i].raw, s->ens[i].n_raw))
			return WEFT_E_NOMEM;
	}
	return WEFT_OK;
}

weft_status weft__config_dup(weft_context *ctx, const weft_config *cfg,
			     weft_config **out)
{
	weft_config *c;
	weft_status st;

	*out = NULL;
	if ((st = weft__config_new(ctx, &c)))
		return st;
	/* The core's sections come first: [model] plugin is known before
	 * the model's section is looked for. */
	for (size_t i = 0; st == WEFT_OK && i < cfg->t->n_secs; i++) {
		const struct cfg_section *s = cfg->t->secs[i];
		struct cfg_section *d = weft__cfg_find(c, s->name);
		if (s->pending)
			continue;
		if (!d)
			st = weft__cfg_model_section(ctx, c, "the ensemble",
						     s->name, &d);
		if (st == WEFT_OK)
			st = dup_values(ctx, d, s);
	}
	if (st == WEFT_OK && dup_ens(c->t, cfg->t) != WEFT_OK)
		st = weft__fail(ctx, WEFT_E_NOMEM,
				"out of memory copying a configuration");
	if (st != WEFT_OK) {
		weft__config_free(c);
		return st;
	}
	*out = c;
	return WEFT_OK;
}
