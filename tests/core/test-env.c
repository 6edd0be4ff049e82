/*
 * tests/core/test-env.c - the environment protocol in the core
 * (weft/env.h): the loader refuses a broken env table and the run a
 * broken setup(), each with its exact message; weft_sim_env() says what
 * a run declared, weft_env_list_*() which ids the available models
 * serve; weft_model_env_views() refuses a wrong call and
 * weft_model_env_summary() reports the bookkeeping; weft/env.h's
 * bookkeeping constants are weft/env.wk's. The models are
 * tests/core/env-model.c's copies (tests/core/env.am).
 */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weft/weft.h>

#include "tap.h"

static weft_context *ctx;
static char good_dir[512], models_dir[512];

/* A run of the plugin at path with the sets (NULL-terminated); NULL
 * when it did not open (the message in ctx). */
static weft_sim *open_plugin(const char *path, const char *const *sets,
			     weft_config **cfg)
{
	char set[1200];
	weft_sim *sim = NULL;

	snprintf(set, sizeof set, "output.directory=%s/out", tap_tmpdir());
	if (weft_config_new(ctx, cfg) || weft_config_set(ctx, *cfg, set) ||
	    weft_config_set(ctx, *cfg, "output.plot=none") ||
	    weft_config_set(ctx, *cfg, "output.csv=false") ||
	    weft_config_set(ctx, *cfg, "simulation.steps=1"))
		return NULL;
	snprintf(set, sizeof set, "model.plugin=%s", path);
	if (weft_config_set(ctx, *cfg, set))
		return NULL;
	for (; sets && *sets; sets++)
		if (weft_config_set(ctx, *cfg, *sets))
			return NULL;
	if (weft_sim_open(ctx, *cfg, &sim))
		return NULL;
	return sim;
}

static void so_path(char *buf, size_t size, const char *dir, const char *name)
{
	snprintf(buf, size, "%s/weft-model-%s.so", dir, name);
}

/* The broken copy `name` fails to open with exactly `want` ("%s" in it
 * is the plugin's path). */
static void refused(const char *name, const char *want, const char *what)
{
	char path[700], msg[2048];
	weft_config *cfg = NULL;
	weft_sim *sim;

	so_path(path, sizeof path, models_dir, name);
	snprintf(msg, sizeof msg, want, path);
	sim = open_plugin(path, NULL, &cfg);
	if (!tap_ok(!sim && strcmp(weft_context_error(ctx), msg) == 0, "%s",
		    what)) {
		tap_diag("got:  %s",
			 sim ? "(opened)" : weft_context_error(ctx));
		tap_diag("want: %s", msg);
	}
	weft_sim_close(sim);
	weft_config_free(cfg);
}

static void test_broken(void)
{
	refused("em_nospaces",
		"model em_nospaces: an environment model must call "
		"weft_model_env_spaces() in setup()",
		"missing spaces");
	refused("em_noview",
		"model em_noview: the environment protocol's view "
		"'final_obs' is missing: expected f32 [4, 4] "
		"(weft_model_array in setup())",
		"missing view");
	refused("em_dtype",
		"model em_dtype: the environment protocol's view "
		"'terminated' is u32 [4], expected u8 [4]",
		"wrong dtype");
	refused("em_shape",
		"model em_shape: the environment protocol's view 'obs' is "
		"f32 [4, 3], expected f32 [4, 4]",
		"wrong shape");
	refused("em_nolist",
		"model em_nolist: the environment protocol's launch list "
		"'reset_some' is missing (weft_model_add_list in setup())",
		"missing list");
	refused("em_badid",
		"--set model.plugin: [model] plugin = %s: check: env id 0 'Env "
		"Good' is not an environment id: "
		"expected [A-Za-z0-9_./-]+ ending in -v and a version number "
		"(\"Name-v1\")",
		"bad id");
	refused("em_dupid",
		"--set model.plugin: [model] plugin = %s: check: env id "
		"'EnvGood-v0' is declared twice by model "
		"em_dupid",
		"duplicate id");
	refused("em_autoreset",
		"--set model.plugin: [model] plugin = %s: check: env's "
		"autoreset_key [em_autoreset] autoreset has "
		"choices 'next_step|same_step', expected exactly "
		"'next_step|same_step|disabled'",
		"autoreset key with the wrong choices");
	refused("em_count",
		"--set model.plugin: [model] plugin = %s: check: env's "
		"count_key [em_count] envs is of type REAL, "
		"expected INT",
		"count key not INT");
	refused("em_threshold",
		"--set model.plugin: [model] plugin = %s: check: env id "
		"'EnvGood-v0': reward threshold inf is not finite (NAN for "
		"none)",
		"reward threshold infinite");
}

/* The intact copy with its setup() broken by $var = how (var:
 * WEFT_EM_SPACES, WEFT_EM_VIEWS or WEFT_EM_INFO, env-model.c) fails to open
 * with exactly want. */
static void bad_setup(const char *var, const char *how, const char *want)
{
	char path[700];
	weft_config *cfg = NULL;
	weft_sim *sim;

	so_path(path, sizeof path, good_dir, "envgood");
	setenv(var, how, 1);
	sim = open_plugin(path, NULL, &cfg);
	unsetenv(var);
	if (!tap_ok(!sim && strcmp(weft_context_error(ctx), want) == 0,
		    "%s refuses %s",
		    strcmp(var, "WEFT_EM_VIEWS") == 0 ? "weft_model_env_views"
		    : strcmp(var, "WEFT_EM_INFO") == 0
			    ? "weft_model_env_info"
			    : "weft_model_env_spaces",
		    how)) {
		tap_diag("got:  %s",
			 sim ? "(opened)" : weft_context_error(ctx));
		tap_diag("want: %s", want);
	}
	weft_sim_close(sim);
	weft_config_free(cfg);
}

static void bad_spaces(const char *how, const char *want)
{
	bad_setup("WEFT_EM_SPACES", how, want);
}

static void test_spaces(void)
{
	bad_spaces("low_above_high",
		   "model envgood: weft_model_env_spaces: the observation "
		   "space's bounds at element 2 are low = 1, high = 0.42: "
		   "expected low <= high, neither NaN");
	bad_spaces("discrete_f32",
		   "model envgood: weft_model_env_spaces: the action space is "
		   "Discrete: expected an integer dtype");
	bad_spaces("box_no_dims",
		   "model envgood: weft_model_env_spaces: the observation "
		   "space is a Box: expected 1 to 3 dimensions, each at "
		   "least 1");
	bad_spaces("unknown_kind",
		   "model envgood: weft_model_env_spaces: the action space "
		   "has an unknown kind (7): expected WEFT_SPACE_BOX or "
		   "WEFT_SPACE_DISCRETE");
	bad_spaces("twice", "model envgood: weft_model_env_spaces called "
			    "twice: the spaces are declared once");
}

static void test_views(void)
{
	bad_setup("WEFT_EM_VIEWS", "before_spaces",
		  "model envgood: weft_model_env_views called before "
		  "weft_model_env_spaces(): the views' shapes come from the "
		  "spaces");
	bad_setup("WEFT_EM_VIEWS", "null_book",
		  "model envgood: weft_model_env_views: view 'env_book' has "
		  "no buffer (NULL)");
	bad_setup("WEFT_EM_VIEWS", "outside",
		  "model envgood: view 'final_obs': 16 elements of 4 bytes at "
		  "offset 184 do not lie, aligned, in 'io' (184 bytes)");
	bad_setup("WEFT_EM_VIEWS", "overlap",
		  "model envgood: the environment protocol's views 'obs' "
		  "(bytes 0 to 64 of buffer 'io') and 'reward' (bytes 4 to "
		  "20) overlap: each needs bytes of its own (their offsets "
		  "in weft_model_array or weft_env_views, or a dtype that "
		  "made one larger)");
}

/* Info fields (weft_model_env_info): what is refused, and where. */
static void test_info(void)
{
	bad_setup("WEFT_EM_INFO", "missing",
		  "model envgood: weft_model_env_info: no view 'lives': "
		  "declare it with weft_model_array first");
	bad_setup("WEFT_EM_INFO", "protocol",
		  "model envgood: weft_model_env_info: 'reward' is one of the "
		  "protocol's views, not an info field");
	bad_setup("WEFT_EM_INFO", "mask",
		  "model envgood: weft_model_env_info: '_lives' would clash "
		  "with Gymnasium's own info keys (final_info, and '_' + "
		  "name: a field's mask)");
	bad_setup("WEFT_EM_INFO", "twice",
		  "model envgood: weft_model_env_info: 'lives' is named "
		  "twice");
	bad_setup("WEFT_EM_INFO", "rows",
		  "model envgood: weft_model_env_info: view 'lives' has 5 "
		  "rows, expected one per environment (4)");
	bad_setup("WEFT_EM_INFO", "too_many",
		  "model envgood: weft_model_env_info: 'more7' would be info "
		  "field 9, the most is 8 (WEFT_ENV_MAX_INFO)");
	bad_setup("WEFT_EM_INFO", "elsewhere",
		  "model envgood: the info field 'lives' lies outside the "
		  "buffer of obs: an environment's results (obs, reward, ..., "
		  "its info fields) are one buffer's, read in one go");
	bad_setup("WEFT_EM_INFO", "over_obs",
		  "model envgood: the environment protocol's views 'obs' "
		  "(bytes 0 to 64 of buffer 'io') and 'lives' (bytes 0 to "
		  "16) overlap: each needs bytes of its own (their offsets "
		  "in weft_model_array or weft_env_views, or a dtype that "
		  "made one larger)");
}

/* The summary line key of sim, or NULL. */
static const char *summary_of(const weft_sim *sim, const char *key)
{
	const char *k, *v;

	for (size_t i = 0; i < weft_sim_summary_count(sim); i++)
		if (weft_sim_summary_at(sim, i, &k, &v) == WEFT_OK &&
		    strcmp(k, key) == 0)
			return v;
	return NULL;
}

/* envgood's bookkeeping (env-model.c's em_book): 1 + 2 + 3 + 4
 * episodes ended, returns 0.25 + 1.5 + 2.75 + 4 = 8.5. */
static void test_summary(void)
{
	char path[700];
	weft_config *cfg = NULL;
	weft_sim *sim;
	const char *ended, *mean;

	so_path(path, sizeof path, good_dir, "envgood");
	sim = open_plugin(path, NULL, &cfg);
	if (!sim || weft_sim_step(sim, 1) || weft_sim_finish(sim)) {
		tap_ok(0, "envgood runs a step and finishes");
		tap_diag("%s", weft_context_error(ctx));
	}
	ended = sim ? summary_of(sim, "episodes ended") : NULL;
	mean = sim ? summary_of(sim, "mean return") : NULL;
	tap_ok(ended && strcmp(ended, "10") == 0 && mean &&
		       strcmp(mean, "0.8500") == 0,
	       "weft_model_env_summary: episodes ended %s, mean return %s",
	       ended ? ended : "(none)", mean ? mean : "(none)");
	weft_sim_close(sim);
	weft_config_free(cfg);
}

/* weft/env.wk's #define NAME VALUE, or -1. */
static long wk_define(const char *text, const char *name)
{
	char pat[64];
	const char *at;

	snprintf(pat, sizeof pat, "#define %s", name);
	at = strstr(text, pat);
	if (!at)
		return -1;
	at += strlen(pat);
	if (*at != ' ' && *at != '\t')
		return -1;
	return strtol(at, NULL, 10);
}

/* weft/env.h's bookkeeping constants for host code are weft/env.wk's. */
static void test_constants(void)
{
	const char *src = getenv("WEFT_SRCDIR");
	char path[600], text[16384];
	size_t got = 0;
	FILE *f;

	snprintf(path, sizeof path, "%s/include/weft/env.wk", src ? src : ".");
	f = fopen(path, "r");
	if (f) {
		got = fread(text, 1, sizeof text - 1, f);
		fclose(f);
	}
	text[got] = 0;
	tap_ok(got > 0 && wk_define(text, "WEFT_ENV_WORDS") == WEFT_ENV_WORDS &&
		       wk_define(text, "WEFT_ENV_ENDED") == WEFT_ENV_ENDED &&
		       wk_define(text, "WEFT_ENV_SUM") == WEFT_ENV_SUM,
	       "weft/env.h's WEFT_ENV_WORDS, _ENDED, _SUM are %s's", path);
}

static void test_sim_env(void)
{
	static const char *const sets[] = { "envgood.envs=3",
					    "envgood.autoreset=same_step",
					    "envgood.precision=f64", NULL };
	char path[700];
	weft_config *cfg = NULL;
	weft_env_info info = { .struct_size = sizeof info };
	weft_env_info part;
	weft_array lives;
	weft_sim *sim;

	so_path(path, sizeof path, good_dir, "envgood");
	sim = open_plugin(path, NULL, &cfg);
	if (!tap_ok(sim != NULL, "the intact environment model opens"))
		tap_diag("%s", weft_context_error(ctx));
	tap_ok(sim && weft_sim_env(sim, &info) == WEFT_OK &&
		       info.num_envs == 4 &&
		       info.autoreset == WEFT_AUTORESET_NEXT_STEP &&
		       info.precision == 32,
	       "weft_sim_env: the defaults (4 envs, next_step, f32)");
	tap_ok(sim && info.observation.kind == WEFT_SPACE_BOX &&
		       info.observation.dtype == WEFT_DTYPE_F32 &&
		       info.observation.ndim == 1 &&
		       info.observation.shape[0] == 4 && info.observation.low &&
		       info.observation.high &&
		       info.observation.low[0] == -4.8 &&
		       info.observation.high[2] == 0.42,
	       "weft_sim_env: the observation space, bounds copied");
	tap_ok(sim && info.action.kind == WEFT_SPACE_DISCRETE &&
		       info.action.dtype == WEFT_DTYPE_I32 &&
		       info.action.n == 2 && info.action.start == 0 &&
		       !info.action.low,
	       "weft_sim_env: the action space");
	tap_ok(sim && info.n_info == 1 && info.info[0] &&
		       strcmp(info.info[0], "lives") == 0,
	       "weft_sim_env: the info field 'lives'");
	lives.struct_size = sizeof lives;
	tap_ok(sim && weft_sim_array_find(sim, "lives", &lives) == WEFT_OK &&
		       lives.dtype == WEFT_DTYPE_I32 && lives.ndim == 1 &&
		       lives.shape[0] == 4,
	       "...a view of its own: i32 [4]");
	/* A caller built against a shorter weft_env_info. */
	memset(&part, 0xab, sizeof part);
	part.struct_size = offsetof(weft_env_info, observation);
	tap_ok(sim && weft_sim_env(sim, &part) == WEFT_OK &&
		       part.struct_size ==
			       offsetof(weft_env_info, observation) &&
		       part.num_envs == 4 &&
		       part.observation.kind == 0xababababu,
	       "weft_sim_env fills only what struct_size covers");
	weft_sim_close(sim);
	weft_config_free(cfg);

	sim = open_plugin(path, sets, &cfg);
	tap_ok(sim && weft_sim_env(sim, &info) == WEFT_OK &&
		       info.num_envs == 3 &&
		       info.autoreset == WEFT_AUTORESET_SAME_STEP &&
		       info.precision == 64,
	       "weft_sim_env: envs, autoreset and precision from the keys");
	weft_sim_close(sim);
	weft_config_free(cfg);
}

static void test_not_env(void)
{
	char path[700];
	const char *dir = getenv("WEFT_BUILDDIR");
	weft_config *cfg = NULL;
	weft_env_info info = { .struct_size = sizeof info };
	weft_sim *sim;
	weft_status st;

	snprintf(path, sizeof path,
		 "%s/tests/models/broken-models/.libs/weft-model-intact.so",
		 dir ? dir : ".");
	sim = open_plugin(path, NULL, &cfg);
	if (!sim) {
		tap_skip(1, "the loader tests' model does not open: %s",
			 weft_context_error(ctx));
	} else {
		st = weft_sim_env(sim, &info);
		tap_ok(st == WEFT_E_INVALID &&
			       strcmp(weft_context_error(ctx),
				      "weft_sim_env: model intact is not an "
				      "environment model (its descriptor has "
				      "no env, weft/env.h)") == 0,
		       "weft_sim_env refuses a model that is not an "
		       "environment model");
		tap_diag("%s", weft_context_error(ctx));
	}
	weft_sim_close(sim);
	weft_config_free(cfg);
}

/* A model built for model ABI 1.8: its env struct ends before
 * reward_thresholds, which the loader does not read (the model's
 * source has them, as if the struct went on past its size). */
static void test_list_old(void)
{
	char dir[600];
	weft_env_list *l = NULL;
	const weft_env_entry *e0, *e1;
	const char *b = getenv("WEFT_BUILDDIR");

	snprintf(dir, sizeof dir, "%s/tests/core/env-old/.libs", b ? b : ".");
	if (!tap_ok(weft_env_list_scan(ctx, dir, &l) == WEFT_OK,
		    "weft_env_list_scan of a model built for model ABI 1.8"))
		tap_diag("%s", weft_context_error(ctx));
	e0 = weft_env_list_find(l, "EnvGood-v0");
	e1 = weft_env_list_find(l, "Envtest/envold-v1");
	tap_ok(e0 && e1 && strcmp(e0->model, "envold") == 0 &&
		       strcmp(e1->model, "envold") == 0 &&
		       e0->max_episode_steps == 200 &&
		       !e0->has_reward_threshold && !e1->has_reward_threshold,
	       "its ids, without reward thresholds");
	weft_env_list_free(l);
}

static void test_list(void)
{
	char path[1200], so[700];
	weft_env_list *l = NULL;
	const weft_env_entry *e;
	size_t n, sorted = 1, ours = 0;

	snprintf(path, sizeof path, "%s:%s", good_dir, models_dir);
	if (!tap_ok(weft_env_list_scan(ctx, path, &l) == WEFT_OK,
		    "weft_env_list_scan"))
		tap_diag("%s", weft_context_error(ctx));
	n = weft_env_list_count(l);
	/* envgood's two ids, and each broken-in-setup copy's own id (their
	 * EnvGood-v0 is envgood's, found first); the copies refused at the
	 * check stage serve nothing. Models of $WEFT_MODEL_PATH may add
	 * theirs. */
	for (size_t i = 0; i < n; i++)
		ours += strncmp(weft_env_list_at(l, i)->path, good_dir,
				strlen(good_dir)) == 0 ||
			strncmp(weft_env_list_at(l, i)->path, models_dir,
				strlen(models_dir)) == 0;
	TAP_EQ_INT(ours, 7, "every id of the available models, once");
	for (size_t i = 1; i < n; i++)
		sorted &= strcmp(weft_env_list_at(l, i - 1)->id,
				 weft_env_list_at(l, i)->id) < 0;
	tap_ok(sorted && n && weft_env_list_at(l, n) == NULL,
	       "sorted by id; at(count) is NULL");
	e = weft_env_list_find(l, "EnvGood-v0");
	so_path(so, sizeof so, good_dir, "envgood");
	tap_ok(e && strcmp(e->model, "envgood") == 0 &&
		       strcmp(e->path, so) == 0 &&
		       strcmp(e->count_key, "envgood.envs") == 0 &&
		       strcmp(e->autoreset_key, "envgood.autoreset") == 0 &&
		       strcmp(e->precision_key, "envgood.precision") == 0 &&
		       strcmp(e->sets, "") == 0 &&
		       strcmp(e->summary, "a test environment") == 0 &&
		       e->max_episode_steps == 200 &&
		       e->has_reward_threshold == 1 &&
		       e->reward_threshold == 150.5,
	       "EnvGood-v0: the first model on the path, its keys, its "
	       "reward threshold");
	e = weft_env_list_find(l, "Envtest/envgood-v1");
	tap_ok(e &&
		       strcmp(e->sets,
			      "envgood.precision=f64\nenvgood.envs=2") == 0 &&
		       strcmp(e->summary, "the same, in f64") == 0 &&
		       e->max_episode_steps == 0 && !e->has_reward_threshold,
	       "Envtest/envgood-v1: its sets, no reward threshold");
	tap_ok(!weft_env_list_find(l, "Envtest/em_badid-v1") &&
		       !weft_env_list_find(l, "Nothing-v0"),
	       "no ids of refused models, none of unknown ids");
	weft_env_list_free(l);

	snprintf(path, sizeof path, "%s:%s", models_dir, good_dir);
	l = NULL;
	e = weft_env_list_scan(ctx, path, &l) == WEFT_OK
		    ? weft_env_list_find(l, "EnvGood-v0")
		    : NULL;
	tap_ok(e && strcmp(e->model, "em_dtype") == 0,
	       "the first model on the path wins an id (%s)",
	       e ? e->model : "none");
	weft_env_list_free(l);
	weft_env_list_free(NULL);
	test_list_old();
}

int main(void)
{
	const char *b = getenv("WEFT_BUILDDIR");

	if (weft_context_new(&ctx))
		tap_bail("no context");
	snprintf(good_dir, sizeof good_dir, "%s/tests/core/env-good/.libs",
		 b ? b : ".");
	snprintf(models_dir, sizeof models_dir,
		 "%s/tests/core/env-models/.libs", b ? b : ".");
	test_broken();
	test_spaces();
	test_views();
	test_info();
	test_summary();
	test_constants();
	test_sim_env();
	test_not_env();
	test_list();
	weft_context_free(ctx);
	return tap_done();
}
