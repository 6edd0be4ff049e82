/*
 * tests/core/test-loader.c - the plugin loader: discovery order and shadowing,
 * each load stage with its message, selection ("auto", explicit names, no
 * fallback, typo hints, names that are paths), the public listing, and
 * isolation: files refused before any of their code runs (ELF checks),
 * probes in a child process that may crash or hang, named backends that
 * load one plugin, and constructors that run in this process only for the
 * plugin used.
 *
 * Plugins come from $WEFT_TEST_PLUGINS (the fake plugins of
 * tests/plugins/fake.c), $WEFT_TEST_ISOLATE (those that crash or hang) and
 * from temporary directories of symlinks to them; $WEFT_PLUGIN_PATH is set
 * or unset here so that the real OpenMP plugin never takes part. Probe and
 * constructor logs ("NAME PID" lines) tell which code ran, and where.
 */
#include "internal.h"

#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"

static weft_context ctx;
static const char *plugins; /* $WEFT_TEST_PLUGINS */
static char tmp[512];
static char garbage_dir[600]; /* holds weft-backend-garbage.so, a text file */
static int installed;	      /* plugins in WEFT_PLUGINDIR join every scan */

static const char *const broken[] = { "nosymbol", "abi2",   "small",
				      "misnamed", "noname", "nullfn" };
#define N_BROKEN (sizeof broken / sizeof broken[0])

/* ---- helpers ------------------------------------------------------------- */

static void fmt(char *buf, size_t size, const char *f, const char *a,
		const char *b)
{
	snprintf(buf, size, f, a, b);
}

static void make_dir(const char *path)
{
	if (mkdir(path, 0755) != 0)
		tap_bail("cannot create %s", path);
}

/* dir/weft-backend-NAME.so -> $WEFT_TEST_PLUGINS/weft-backend-NAME.so */
static void link_plugin(const char *dir, const char *name)
{
	char target[1024], link[1024];

	snprintf(target, sizeof target, "%s/weft-backend-%s.so", plugins, name);
	snprintf(link, sizeof link, "%s/weft-backend-%s.so", dir, name);
	if (symlink(target, link) != 0)
		tap_bail("cannot link %s", link);
}

/* Plugins already installed in WEFT_PLUGINDIR are searched last by every
 * scan; checks whose outcome they could change are skipped. */
static int count_installed(void)
{
	DIR *d = opendir(WEFT_PLUGINDIR);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		n += strncmp(e->d_name, "weft-backend-", 13) == 0;
	closedir(d);
	return n;
}

static void skip_installed(int n)
{
	tap_skip(n, "plugins installed in %s take part", WEFT_PLUGINDIR);
}

static weft__plugin *find(weft__plugin_set *set, const char *name)
{
	for (size_t i = 0; set && i < set->n; i++)
		if (!set->items[i].shadowed &&
		    strcmp(set->items[i].name, name) == 0)
			return &set->items[i];
	return NULL;
}

/* 1 when the dynamic loader still has path mapped. */
static int is_loaded(const char *path)
{
	void *dl = dlopen(path, RTLD_NOW | RTLD_NOLOAD);

	if (!dl)
		return 0;
	dlclose(dl);
	return 1;
}

static weft__plugin_set *scan(const char *path)
{
	weft__plugin_set *set = NULL;
	weft_status st = weft__plugins_scan(&ctx, path, &set);

	if (st != WEFT_OK || !set)
		tap_bail("scan of %s failed: %s", path, ctx.msg);
	return set;
}

/* ---- one broken plugin per load stage ------------------------------------ */

static void check_stage(weft__plugin_set *set, const char *name,
			const char *stage, const char *reason)
{
	weft__plugin *p = find(set, name);
	char what[256];

	snprintf(what, sizeof what, "%s fails at stage %s", name, stage);
	if (!tap_ok(p && p->stage && !strcmp(p->stage, stage), "%s", what)) {
		tap_diag("stage: %s", p && p->stage ? p->stage : "(none)");
		tap_skip(2, "%s was not refused", name);
		return;
	}
	tap_diag("%s: %s: %s", p->path, p->stage, p->reason);
	snprintf(what, sizeof what, "%s: reason names the cause", name);
	tap_contains(p->reason, reason, what);
	tap_ok(!p->dl && !p->entry && !is_loaded(p->path),
	       "%s: refused (in a child), never loaded in this process", name);
}

static void check_stages(weft__plugin_set *set)
{
	char small[128];

	snprintf(small, sizeof small,
		 "entry struct is 24 bytes, ABI 1.0 needs at least %zu",
		 (size_t)WEFT_BACKEND_V1_0_SIZE);
	check_stage(set, "garbage", "open", "invalid ELF header");
	check_stage(set, "nosymbol", "symbol",
		    WEFT_BACKEND_ENTRY_SYMBOL " is not exported (a backend "
					      "exports its table with "
					      "WEFT_BACKEND_ENTRY)");
	check_stage(set, "abi2", "version",
		    "built for backend ABI 2.0, this weft expects 1.x");
	check_stage(set, "small", "version", small);
	check_stage(set, "misnamed", "version", "'othername'");
	check_stage(set, "noname", "version", "no name");
	check_stage(set, "nullfn", "version", "no stats function");
	check_stage(set, "unavail", "probe", "no fake device (test plugin)");
}

static void check_good(weft__plugin_set *set)
{
	weft__plugin *good = find(set, "fakegood");
	weft__plugin *best = find(set, "fakebest");

	tap_ok(good && !good->stage && good->probe.available,
	       "fakegood is available");
	TAP_EQ_INT(good ? good->probe.score : -1, 10, "fakegood score");
	tap_contains(good ? good->probe.devices : NULL, "1 fake device",
		     "fakegood: the probe's devices are kept");
	tap_ok(best && !best->stage,
	       "a plugin for a newer minor ABI (1.7) is accepted");
	tap_ok(good && !good->dl && !is_loaded(good->path) && best &&
		       !is_loaded(best->path),
	       "a scan loads no plugin into this process");
}

/* How many "NAME PID" lines of a log name name, and how many of those
 * were written by this process. */
static int log_count(const char *log, const char *name, int *here)
{
	char *text = tap_read_file(log, NULL);
	char want[128];
	int n = 0;

	*here = 0;
	snprintf(want, sizeof want, "%s ", name);
	for (char *l = text; l && *l;
	     l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		if (strncmp(l, want, strlen(want)) != 0)
			continue;
		n++;
		*here += atol(l + strlen(want)) == (long)getpid();
	}
	free(text);
	return n;
}

/* Lines of a log. */
static int log_lines(const char *log)
{
	char *text = tap_read_file(log, NULL);
	int n = 0;

	for (char *c = text; c && *c; c++)
		n += *c == '\n';
	free(text);
	return n;
}

/* Only plugins that passed every check may have run any code, and that
 * in a child. */
static void check_probe_log(const char *log)
{
	int here, ran = 0, here_good, here_unavail;

	tap_ok(log_count(log, "fakegood", &here_good) == 1 && !here_good,
	       "fakegood's probe ran once, in a child process");
	tap_ok(log_count(log, "unavail", &here_unavail) == 1 && !here_unavail,
	       "unavail's probe ran once, in a child process");
	for (size_t i = 0; i < N_BROKEN; i++)
		ran += log_count(log, broken[i], &here);
	tap_ok(!ran, "no function of a plugin refused at open, symbol or "
		     "version was called");
}

/* Constructors: a file refused as ELF never ran any; the others ran only
 * in children. */
static void check_ctor_log(const char *log)
{
	int here, n, in_parent = 0;

	tap_ok(log_count(log, "nosymbol", &here) == 0,
	       "the constructor of a file without an exported entry never "
	       "ran (refused before dlopen)");
	n = log_count(log, "abi2", &here);
	tap_ok(n == 1 && !here,
	       "the constructor of a plugin refused at version ran in a child "
	       "only");
	for (size_t i = 0; i < N_BROKEN; i++) {
		log_count(log, broken[i], &here);
		in_parent += here;
	}
	log_count(log, "fakegood", &here);
	in_parent += here;
	log_count(log, "unavail", &here);
	tap_ok(!in_parent && !here,
	       "a scan runs no plugin's constructor in this process");
}

/* ---- discovery ----------------------------------------------------------- */

static void check_discovery(weft__plugin_set *set, const char *missing)
{
	size_t ours = 0, sorted = 1;
	const char *prev = "";

	tap_contains(set->searched, missing,
		     "a missing directory is listed as searched");
	tap_contains(set->searched, plugins, "the given directory is searched");
	tap_contains(set->searched, WEFT_PLUGINDIR,
		     "the installed plugin directory is searched last");
	for (size_t i = 0; i < set->n; i++) {
		const char *path = set->items[i].path;
		if (strncmp(path, plugins, strlen(plugins)) != 0)
			continue;
		ours++;
		sorted &= strcmp(prev, path) < 0;
		prev = path;
	}
	TAP_EQ_INT(ours, 10, "every fake plugin is found");
	tap_ok(sorted, "plugins of one directory are in name order");
	tap_ok(find(set, "garbage") && !find(set, "Upper") && !find(set, "") &&
		       !find(set, "dotted"),
	       "only files named weft-backend-NAME.so are plugins");
}

static void write_garbage(void)
{
	static const char *const decoys[] = { "weft-backend-Upper.so",
					      "weft-backend-.so",
					      "weft-backend-dotted.so.1",
					      "notaplugin.so" };
	char path[1024];

	snprintf(garbage_dir, sizeof garbage_dir, "%s/garbage", tmp);
	make_dir(garbage_dir);
	snprintf(path, sizeof path, "%s/weft-backend-garbage.so", garbage_dir);
	if (tap_write_file(path,
			   "This is a text file, not a shared object; "
			   "dlopen() must refuse it with a reason.\n") != 0)
		tap_bail("cannot write %s", path);
	for (size_t i = 0; i < 4; i++) {
		snprintf(path, sizeof path, "%s/%s", garbage_dir, decoys[i]);
		if (tap_write_file(path, "decoy\n") != 0)
			tap_bail("cannot write %s", path);
	}
}

/* ---- selection ----------------------------------------------------------- */

static void check_select_auto(weft__plugin_set *set)
{
	weft__plugin *p = NULL;
	weft_status st = weft__plugins_select(&ctx, set, "auto", &p);

	if (installed) {
		skip_installed(1);
		return;
	}
	tap_ok(st == WEFT_OK && p && strcmp(p->name, "fakebest") == 0,
	       "auto passes over broken and unavailable plugins and picks "
	       "the highest score (got %s)",
	       p ? p->name : ctx.msg);
}

static void check_select_named(weft__plugin_set *set)
{
	weft__plugin *p = NULL;
	weft_status st;

	st = weft__plugins_select(&ctx, set, "fakegood", &p);
	tap_ok(st == WEFT_OK && p == find(set, "fakegood"),
	       "an explicit name picks that plugin, even with a lower score");
	tap_ok(p && p->entry && is_loaded(p->path),
	       "the plugin picked is loaded into this process");

	st = weft__plugins_select(&ctx, set, "unavail", &p);
	TAP_EQ_INT(st, WEFT_E_UNAVAILABLE, "explicit unavailable: status");
	tap_ok(p == NULL, "explicit unavailable: no fallback to another");
	tap_contains(ctx.msg, "backend 'unavail' is not available: ",
		     "explicit unavailable: says so");
	tap_contains(ctx.msg, "weft-backend-unavail.so: probe: no fake device",
		     "explicit unavailable: path, stage and reason");
	tap_contains(ctx.msg, "fakebest (score 20)",
		     "explicit unavailable: lists what is available");

	st = weft__plugins_select(&ctx, set, "abi2", &p);
	TAP_EQ_INT(st, WEFT_E_PLUGIN, "explicit broken: status");
	tap_contains(ctx.msg,
		     "weft-backend-abi2.so: version: built for "
		     "backend ABI 2.0",
		     "explicit broken: path, stage, reason");
}

static void check_select_errors(weft__plugin_set *set)
{
	weft__plugin *p = NULL;
	weft_status st;

	st = weft__plugins_select(&ctx, set, "fakegod", &p);
	TAP_EQ_INT(st, WEFT_E_PLUGIN, "unknown name: status");
	tap_contains(ctx.msg,
		     "no backend named 'fakegod'; did you mean "
		     "'fakegood'?",
		     "unknown name: suggests the closest");
	tap_contains(ctx.msg, "available: ", "unknown name: lists available");
	tap_contains(ctx.msg, plugins, "unknown name: lists the directories");

	st = weft__plugins_select(&ctx, set, "cuda", &p);
	tap_ok(st == WEFT_E_PLUGIN &&
		       strstr(ctx.msg, strcmp(WEFT_BUILT_CUDA, "yes") == 0
					       ? "was not found"
					       : "(not built: "),
	       "a backend of ours not found: says whether it was built");

	weft__plugins_select(&ctx, set, "zzzzzzzzzzzz", &p);
	tap_ok(!strstr(ctx.msg, "did you mean"),
	       "no suggestion when nothing is close");

	st = weft__plugins_select(&ctx, set, "./weft-backend-fakegood.so", &p);
	tap_ok(st != WEFT_OK && !p, "a name with '/' is refused");
	tap_contains(ctx.msg, "[backend] plugin = PATH",
		     "a name with '/' is never a path: says how to give one");

	st = weft__plugins_select(&ctx, set, "weft-backend-fakegood.so", &p);
	tap_ok(st != WEFT_OK && !p, "a file name without '/' is refused");
	tap_contains(ctx.msg,
		     "'weft-backend-fakegood.so' is a file name, not a backend "
		     "name; give a plugin file as a path, such as "
		     "./weft-backend-fakegood.so",
		     "a file name is never looked up: says to give a path");
}

/* ---- scans over temporary directories ------------------------------------ */

static void check_nothing_available(void)
{
	char dir[600], empty[600], want[1024];
	weft__plugin_set *set;
	weft__plugin *p = NULL;
	weft_status st;

	if (installed) {
		skip_installed(5);
		return;
	}
	fmt(dir, sizeof dir, "%s/%s", tmp, "broken");
	make_dir(dir);
	link_plugin(dir, "abi2");
	link_plugin(dir, "unavail");
	set = scan(dir);
	st = weft__plugins_select(&ctx, set, "auto", &p);
	TAP_EQ_INT(st, WEFT_E_UNAVAILABLE, "auto with none available: status");
	tap_contains(ctx.msg, "weft-backend-abi2.so: version: built for",
		     "auto with none available: lists each failure");
	tap_contains(ctx.msg, "weft-backend-unavail.so: probe: no fake device",
		     "auto with none available: lists each probe's reason");
	fmt(want, sizeof want, "searched %s", dir, NULL);
	tap_contains(ctx.msg, want, "auto with none available: directories");
	weft__plugins_free(set);

	fmt(empty, sizeof empty, "%s/%s", tmp, "empty");
	make_dir(empty);
	set = scan(empty);
	st = weft__plugins_select(&ctx, set, "auto", &p);
	tap_ok(st == WEFT_E_PLUGIN &&
		       strstr(ctx.msg, "no weft-backend-NAME.so found"),
	       "auto with no plugin at all: WEFT_E_PLUGIN, says none found");
	weft__plugins_free(set);
}

static void check_shadow_set(weft__plugin_set *set, const char *a,
			     const char *b, const char *what)
{
	weft__plugin *first = find(set, "fakegood"), *shadow = NULL;
	size_t n = 0;

	for (size_t i = 0; i < set->n; i++) {
		n += strcmp(set->items[i].name, "fakegood") == 0;
		if (set->items[i].shadowed)
			shadow = &set->items[i];
	}
	tap_ok(first && strncmp(first->path, a, strlen(a)) == 0 &&
		       !first->stage,
	       "%s: the first directory's plugin wins", what);
	tap_ok(n == 2 && shadow && strncmp(shadow->path, b, strlen(b)) == 0 &&
		       !shadow->dl && strstr(shadow->reason, "shadowed by "),
	       "%s: the later one is kept, shadowed and not loaded", what);
}

static void check_shadowing(void)
{
	char a[600], b[600], path[1300];
	weft__plugin_set *set;
	weft__plugin *p = NULL;

	fmt(a, sizeof a, "%s/%s", tmp, "a");
	fmt(b, sizeof b, "%s/%s", tmp, "b");
	make_dir(a);
	make_dir(b);
	link_plugin(a, "fakegood");
	link_plugin(a, "faketie");
	link_plugin(b, "fakegood");
	link_plugin(b, "fakebest");

	fmt(path, sizeof path, "%s:%s", a, b);
	set = scan(path);
	check_shadow_set(set, a, b, "plugin_path a:b");
	if (installed) {
		skip_installed(1);
	} else {
		weft__plugins_select(&ctx, set, "auto", &p);
		tap_ok(p && strcmp(p->name, "faketie") == 0,
		       "auto: equal scores go to the first found (got %s)",
		       p ? p->name : ctx.msg);
	}
	weft__plugins_free(set);

	setenv("WEFT_PLUGIN_PATH", b, 1);
	set = scan(a);
	check_shadow_set(set, a, b, "plugin_path before $WEFT_PLUGIN_PATH");
	weft__plugins_free(set);

	fmt(path, sizeof path, "%s:%s", b, a);
	setenv("WEFT_PLUGIN_PATH", path, 1);
	set = scan(NULL);
	check_shadow_set(set, b, a, "$WEFT_PLUGIN_PATH b:a");
	weft__plugins_free(set);
	unsetenv("WEFT_PLUGIN_PATH");

	fmt(path, sizeof path, "%s::%s/", a, a);
	set = scan(path);
	tap_ok(find(set, "fakegood") && set->n == 2,
	       "a directory given twice is searched once");
	weft__plugins_free(set);
}

/* ---- one file by path ---------------------------------------------------- */

static void check_load_path_fails(const char *path, weft_status want,
				  const char *stage_reason, const char *what)
{
	static weft__plugin sentinel;
	weft__plugin *p = &sentinel; /* must be reset to NULL */
	weft_status st = weft__plugin_load_path(&ctx, path, &p);
	char want_msg[1024];

	TAP_EQ_INT(st, want, what);
	tap_ok(p == NULL, "%s: no plugin returned", what);
	snprintf(want_msg, sizeof want_msg, "%s: %s", path, stage_reason);
	tap_contains(ctx.msg, want_msg, what);
}

static void check_load_path(void)
{
	char path[1024], cwd[1024];
	weft__plugin *p = NULL;
	weft_status st;

	snprintf(path, sizeof path, "%s/nowhere/weft-backend-nope.so", tmp);
	check_load_path_fails(path, WEFT_E_PLUGIN,
			      "open: cannot open shared object file",
			      "load_path of a nonexistent file");
	snprintf(path, sizeof path, "%s/weft-backend-abi2.so", plugins);
	check_load_path_fails(path, WEFT_E_PLUGIN,
			      "version: built for backend ABI 2.0",
			      "load_path of an ABI 2 plugin");
	snprintf(path, sizeof path, "%s/weft-backend-unavail.so", plugins);
	check_load_path_fails(path, WEFT_E_UNAVAILABLE,
			      "probe: no fake "
			      "device",
			      "load_path of an unavailable plugin");
	snprintf(cwd, sizeof cwd, "%s/weft-backend-fakegood.so", plugins);
	snprintf(path, sizeof path, "%s/libfake.so", tmp);
	if (symlink(cwd, path) != 0)
		tap_bail("cannot link %s", path);
	check_load_path_fails(path, WEFT_E_PLUGIN,
			      "open: the file name must "
			      "be weft-backend-NAME.so",
			      "load_path of a file "
			      "not named like a plugin");

	snprintf(path, sizeof path, "%s/weft-backend-fakegood.so", plugins);
	st = weft__plugin_load_path(&ctx, path, &p);
	tap_ok(st == WEFT_OK && p && strcmp(p->name, "fakegood") == 0 &&
		       p->probe.available && p->probe.score == 10 && p->entry,
	       "load_path of a good plugin probes it and loads it");
	weft__plugin_free(p);

	/* A bare file name is a file in the current directory, not a
	 * library for dlopen() to search for. */
	p = NULL;
	if (!getcwd(cwd, sizeof cwd) || chdir(plugins) != 0)
		tap_bail("cannot change to %s", plugins);
	st = weft__plugin_load_path(&ctx, "weft-backend-fakegood.so", &p);
	tap_ok(st == WEFT_OK && p &&
		       strcmp(p->path, "./weft-backend-fakegood.so") == 0,
	       "load_path of a bare file name opens ./FILE (%s)",
	       st == WEFT_OK ? "ok" : ctx.msg);
	weft__plugin_free(p);
	if (chdir(cwd) != 0)
		tap_bail("cannot change back to %s", cwd);
}

/* ---- the public listing -------------------------------------------------- */

static const weft_backend_info *info(const weft_backend_list *l,
				     const char *name)
{
	for (size_t i = 0; i < weft_backend_list_count(l); i++) {
		const weft_backend_info *b = weft_backend_list_at(l, i);
		if (strcmp(b->name, name) == 0 && !b->shadowed)
			return b;
	}
	return NULL;
}

static int is_state(const weft_backend_info *b, const char *state,
		    const char *stage)
{
	return b && strcmp(b->state, state) == 0 &&
	       strcmp(b->stage, stage) == 0;
}

/* A first-party backend not found: configure's verdict is "yes" or
 * "no (reason)"; expect what that verdict means. */
static void check_missing(const weft_backend_list *l, const char *name,
			  const char *built)
{
	const weft_backend_info *b = info(l, name);
	char want[1024];

	if (b && strcmp(b->state, "missing") != 0) {
		tap_skip(2, "a %s plugin is installed", name);
		return;
	}
	tap_ok(b && strcmp(b->path, "") == 0, "%s: listed as missing", name);
	if (strcmp(built, "yes") == 0)
		snprintf(want, sizeof want, "no weft-backend-%s.so in %s", name,
			 plugins);
	else
		snprintf(want, sizeof want, "not built: %.*s",
			 (int)strlen(built) - 5, built + 4);
	tap_contains(b ? b->reason : NULL, want, "missing: says why");
}

static void check_public(void)
{
	weft_backend_list *l = NULL;
	const weft_backend_info *b;
	char path[1300];
	weft_status st;

	snprintf(path, sizeof path, "%s:%s/a:%s/b", plugins, tmp, tmp);
	st = weft_backends_scan(&ctx, path, &l);
	tap_ok(st == WEFT_OK && l, "weft_backends_scan succeeds");
	b = info(l, "fakegood");
	tap_ok(is_state(b, "available", "") && !strcmp(b->reason, "") &&
		       !strcmp(b->devices, "1 fake device") && b->score == 10,
	       "public: fakegood is available, with devices and score");
	tap_ok(is_state(info(l, "unavail"), "unavailable", "probe") &&
		       strstr(info(l, "unavail")->reason, "no fake device"),
	       "public: a probe that says no is unavailable, with reason");
	tap_ok(is_state(info(l, "abi2"), "failed", "version"),
	       "public: a refused plugin is failed, with its stage");
	tap_ok(is_state(info(l, "nosymbol"), "failed", "symbol"),
	       "public: a plugin without entry is failed at symbol");
	b = NULL;
	for (size_t i = 0; i < weft_backend_list_count(l); i++)
		if (weft_backend_list_at(l, i)->shadowed)
			b = weft_backend_list_at(l, i);
	tap_ok(b && strstr(b->reason, "shadowed by "),
	       "public: shadowed plugins are listed, with their winner");
	check_missing(l, "openmp", WEFT_BUILT_OPENMP);
	check_missing(l, "opencl", WEFT_BUILT_OPENCL);
	check_missing(l, "cuda", WEFT_BUILT_CUDA);
	tap_ok(weft_backend_list_at(l, weft_backend_list_count(l)) == NULL,
	       "public: past the end is NULL");
	weft_backend_list_free(l);
}

/* ---- isolation ----------------------------------------------------------- */

static double seconds_since(uint64_t t0)
{
	return (double)(weft__now_ns() - t0) / 1e9;
}

/* Probes that crash or hang, a constructor that crashes: each a reason,
 * and this process goes on. */
static void check_isolation(const char *isolate)
{
	weft__plugin_set *set;
	weft__plugin *p = NULL, *own = NULL;
	weft_model_list *ml = NULL;
	const weft_model_info *mi;
	char path[1300];
	uint64_t t0 = weft__now_ns();
	weft_status st;

	setenv("WEFT_PROBE_TIMEOUT", "1", 1);
	set = scan(isolate);
	check_stage(set, "crashprobe", "probe", "probe crashed with SIGSEGV");
	check_stage(set, "hangprobe", "probe", "probe did not answer in 1 s");
	check_stage(set, "crashctor", "open",
		    "loading it crashed with SIGSEGV (in a constructor");
	tap_ok(seconds_since(t0) < 4.0,
	       "a hung probe costs its time limit, no more (%.2f s)",
	       seconds_since(t0));
	weft__plugins_free(set);

	snprintf(path, sizeof path, "%s:%s", isolate, plugins);
	st = weft__backend_choose(&ctx, path, "auto", 0, &set, &own, &p);
	tap_ok(st == WEFT_OK && p && strcmp(p->name, "fakebest") == 0,
	       "auto passes over probes that crash or hang (got %s)",
	       p ? p->name : ctx.msg);
	weft__plugins_free(set);

	st = weft_models_scan(&ctx, isolate, &ml);
	mi = st == WEFT_OK ? weft_model_list_at(ml, 0) : NULL;
	tap_ok(mi && strcmp(mi->name, "crashctor") == 0 &&
		       strcmp(mi->state, "failed") == 0 &&
		       strcmp(mi->stage, "open") == 0 &&
		       strstr(mi->reason, "crashed with SIGSEGV"),
	       "a model plugin whose constructor crashes is listed as failed, "
	       "open: crashed");
	tap_ok(weft_model_list_count(ml) > 1,
	       "and the models after it are listed");
	weft_model_list_free(ml);
}

static void *cancel_later(void *arg)
{
	struct timespec ts = { 0, 200000000 };

	nanosleep(&ts, NULL);
	weft_context_cancel(arg);
	return NULL;
}

/* A cancellation ends the wait for a hung probe at once. */
static void check_cancel(const char *isolate)
{
	weft_context *c = NULL;
	weft__plugin_set *set = NULL;
	pthread_t th;
	uint64_t t0;
	weft_status st;

	setenv("WEFT_PROBE_TIMEOUT", "30", 1);
	if (weft_context_new(&c) || pthread_create(&th, NULL, cancel_later, c))
		tap_bail("cannot start the cancelling thread");
	t0 = weft__now_ns();
	st = weft__plugins_scan(c, isolate, &set);
	pthread_join(th, NULL);
	TAP_EQ_INT(st, WEFT_E_CANCELLED, "a cancelled scan: status");
	tap_ok(seconds_since(t0) < 2.0 && !set,
	       "a cancelled scan returns at once (%.2f s), probes killed",
	       seconds_since(t0));
	tap_contains(weft_context_error(c), "cancelled while loading ",
		     "a cancelled scan says what it was doing");
	weft_context_free(c);
	unsetenv("WEFT_PROBE_TIMEOUT");
}

/* A backend named explicitly: only its file is looked at and loaded. */
static void check_named_only(const char *plog, const char *clog)
{
	weft__plugin_set *set = NULL;
	weft__plugin *p = NULL, *own = NULL;
	int here, n;
	weft_status st;

	tap_write_file(plog, "");
	tap_write_file(clog, "");
	st = weft__backend_choose(&ctx, plugins, "fakegood", 0, &set, &own, &p);
	tap_ok(st == WEFT_OK && p == own && !set && p->entry,
	       "a named backend is loaded alone, without a scan");
	n = log_count(plog, "fakegood", &here);
	tap_ok(n == 2 && here == 1 && log_lines(plog) == 2,
	       "no other plugin's probe ran; its own in a child, then here");
	n = log_count(clog, "fakegood", &here);
	tap_ok(n == 2 && here == 1 && log_lines(clog) == 2,
	       "no other plugin's constructor ran; its own in a child, then "
	       "here");
	weft__plugin_free(own);

	st = weft__backend_choose(&ctx, plugins, "unavail", 0, &set, &own, &p);
	tap_ok(st == WEFT_E_UNAVAILABLE && !p &&
		       strstr(ctx.msg, "probe: no fake device") &&
		       strstr(ctx.msg, "available: "),
	       "a named backend that cannot run: why, and what is available");
	weft__plugins_free(set);
}

/* An ELF header taken from this program, with one field changed, as
 * weft-backend-NAME.so in dir. */
static void write_elf(const char *dir, const char *name, int field)
{
	ElfW(Ehdr) eh;
	char path[1024];
	FILE *f = fopen("/proc/self/exe", "rb");

	if (!f || fread(&eh, sizeof eh, 1, f) != 1)
		tap_bail("cannot read this program's ELF header");
	fclose(f);
	eh.e_type = ET_DYN;
	eh.e_shnum = 0;
	if (field == 1)
		eh.e_ident[EI_CLASS] = eh.e_ident[EI_CLASS] == ELFCLASS64
					       ? ELFCLASS32
					       : ELFCLASS64;
	else if (field == 2)
		eh.e_type = ET_REL;
	else if (field == 3)
		eh.e_machine = 0x7777;
	snprintf(path, sizeof path, "%s/weft-backend-%s.so", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(&eh, sizeof eh, 1, f) != 1 || fclose(f) != 0)
		tap_bail("cannot write %s", path);
}

static void check_elf_one(const char *dir, const char *name, const char *stage,
			  const char *reason)
{
	char path[1024], want[1200];
	weft__plugin *p = NULL;

	snprintf(path, sizeof path, "%s/weft-backend-%s.so", dir, name);
	snprintf(want, sizeof want, "%s: %s: %s", path, stage, reason);
	weft__plugin_load_path(&ctx, path, &p);
	tap_ok(!p && strstr(ctx.msg, want), "ELF: %s: refused: %s", name,
	       reason);
	if (p || !strstr(ctx.msg, want))
		tap_diag("got: %s", ctx.msg);
}

static void check_elf(void)
{
	char dir[600];

	snprintf(dir, sizeof dir, "%s/elf", tmp);
	make_dir(dir);
	write_elf(dir, "class", 1);
	write_elf(dir, "rel", 2);
	write_elf(dir, "machine", 3);
	write_elf(dir, "nosections", 0);
	check_elf_one(dir, "class", "open",
		      sizeof(void *) == 8
			      ? "it is a 32-bit ELF object; this weft is 64-bit"
			      : "it is a 64-bit ELF object; this weft is "
				"32-bit");
	check_elf_one(dir, "rel", "open",
		      "it is an ELF object file (.o), not a shared object");
	check_elf_one(dir, "machine", "open",
		      "it is built for another machine (ELF machine 30583)");
	check_elf_one(dir, "nosections", "symbol",
		      "it has no section headers to find its dynamic symbols");
}

/* WEFT_PROBE_TIMEOUT=0 probes in this process; a bad value is an error. */
static void check_timeout_env(const char *plog)
{
	weft__plugin_set *set = NULL;
	weft__plugin *p = NULL;
	char path[1024];
	int here;
	weft_status st;

	tap_write_file(plog, "");
	setenv("WEFT_PROBE_TIMEOUT", "0", 1);
	snprintf(path, sizeof path, "%s/weft-backend-fakegood.so", plugins);
	st = weft__plugin_load_path(&ctx, path, &p);
	tap_ok(st == WEFT_OK && log_count(plog, "fakegood", &here) == 1 &&
		       here == 1,
	       "WEFT_PROBE_TIMEOUT=0: the probe runs in this process");
	weft__plugin_free(p);
	setenv("WEFT_PROBE_TIMEOUT", "soon", 1);
	st = weft__plugins_scan(&ctx, plugins, &set);
	tap_ok(st == WEFT_E_CONFIG && !set &&
		       strstr(ctx.msg, "WEFT_PROBE_TIMEOUT = 'soon': expected "
				       "the seconds"),
	       "a WEFT_PROBE_TIMEOUT that is not a number is refused, named");
	unsetenv("WEFT_PROBE_TIMEOUT");
}

int main(void)
{
	char path[2048], log[600], clog[600], missing[600];
	const char *isolate = getenv("WEFT_TEST_ISOLATE");
	weft__plugin_set *set;

	plugins = getenv("WEFT_TEST_PLUGINS");
	if (!plugins)
		tap_skip_all("WEFT_TEST_PLUGINS is not set (make check sets "
			     "it)");
	snprintf(tmp, sizeof tmp, "%s", tap_tmpdir());
	installed = count_installed();
	unsetenv("WEFT_PLUGIN_PATH");
	write_garbage();

	fmt(log, sizeof log, "%s/%s", tmp, "probe.log");
	fmt(clog, sizeof clog, "%s/%s", tmp, "ctor.log");
	setenv("WEFT_FAKE_PROBE_LOG", log, 1);
	setenv("WEFT_FAKE_CTOR_LOG", clog, 1);
	fmt(missing, sizeof missing, "%s/%s", tmp, "no-such-dir");
	snprintf(path, sizeof path, "%s:%s:%s", missing, plugins, garbage_dir);
	set = scan(path);
	check_discovery(set, missing);
	check_stages(set);
	check_good(set);
	check_probe_log(log);
	check_ctor_log(clog);
	check_select_auto(set);
	check_select_named(set);
	check_select_errors(set);
	snprintf(path, sizeof path, "%s/weft-backend-fakegood.so", plugins);
	weft__plugins_free(set);
	tap_ok(!is_loaded(path), "freeing the set unloads its plugins");
	check_named_only(log, clog);
	check_timeout_env(log);
	unsetenv("WEFT_FAKE_PROBE_LOG");
	unsetenv("WEFT_FAKE_CTOR_LOG");
	check_elf();
	if (isolate) {
		check_isolation(isolate);
		check_cancel(isolate);
	} else {
		tap_skip(16, "WEFT_TEST_ISOLATE is not set");
	}

	check_nothing_available();
	check_shadowing();
	check_load_path();
	check_public();
	return tap_done();
}
