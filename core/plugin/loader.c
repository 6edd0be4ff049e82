/*
 * core/plugin/loader.c - plugin files of every kind (backends, models): their
 * names, the directories searched, loading through fixed stages, and
 * discovery. What a kind checks and how a backend is probed and chosen is
 * in backends.c and models.c; this file knows no kind.
 *
 * A plugin is a file PREFIX-NAME.so (weft-backend-openmp.so,
 * weft-model-seir.so) exporting one data symbol, its entry. Loading goes
 * through fixed stages, and a failure at any of them is recorded with the
 * path, the stage and the system's or the plugin's reason:
 *
 *   open     dlopen() failed (or the file name is not a plugin's name, or
 *            the file or its directory can be written by others: see
 *            "directories others can write" below)
 *   symbol   the entry symbol is not exported
 *   version  ABI major, entry size or name does not match
 *   check    the entry's contents are unusable (kind-specific: missing
 *            functions, bad keys, kernels without signatures)
 *   probe    a backend says it cannot run here
 *
 * A plugin refused at open, symbol, version or check is unloaded at once
 * and none of its functions is ever called.
 */
#include "plugin/plugin.h"

#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PLUGIN_SUFFIX	  ".so"
#define PLUGIN_NAME_CHARS "abcdefghijklmnopqrstuvwxyz0123456789_-"
#define UNSAFE_DIRS_ENV	  "WEFT_ALLOW_UNSAFE_PLUGIN_DIRS"

/* ---- names and paths ----------------------------------------------------- */

size_t weft__plugin_name_len(const weft__plugin_kind *kind, const char *file)
{
	size_t pre = strlen(kind->prefix), suf = strlen(PLUGIN_SUFFIX);
	size_t len = strlen(file);
	size_t n;

	if (len <= pre + suf || strncmp(file, kind->prefix, pre) != 0 ||
	    strcmp(file + len - suf, PLUGIN_SUFFIX) != 0)
		return 0;
	n = len - pre - suf;
	return strspn(file + pre, PLUGIN_NAME_CHARS) == n ? n : 0;
}

/* ---- directories others can write ----------------------------------------
 *
 * Loading a plugin runs its code (its constructors first), so a plugin
 * that someone else could have put or replaced is refused before dlopen(),
 * as ld.so's secure mode refuses such libraries. The file and its
 * directory must not be writable by others (a directory may be when it is
 * sticky, like /tmp: nobody can then replace a file of ours there), and
 * must be owned by a trusted user:
 *
 *   - this process's user (its effective uid) or root;
 *   - the owner of the directory that holds libweft (found with dladdr()):
 *     whoever could replace a plugin of theirs could replace libweft
 *     itself, which runs in this process already (a shared install made
 *     by a non-root admin: HPC module trees, group installs);
 *   - for the installation's own plugin directory (WEFT_PLUGINDIR), any
 *     owner of that directory, and that owner for the files in it, for
 *     the same reason.
 *
 * Write permission for the group is not looked at: a group that can write
 * a directory is trusted as its owner is (group-shared installs work that
 * way). Both the path as given and the file it resolves to (through
 * symbolic links) are looked at. $WEFT_ALLOW_UNSAFE_PLUGIN_DIRS=1 loads
 * such plugins anyway.
 */

/* 1 when $WEFT_ALLOW_UNSAFE_PLUGIN_DIRS is set to anything but "" or
 * "0". */
static int unsafe_allowed(void)
{
	const char *v = getenv(UNSAFE_DIRS_ENV);

	return v && v[0] && strcmp(v, "0") != 0;
}

/* The installation's plugin directory, searched last (a test build may
 * name another with WEFT_TEST_PLUGINDIR, to test an installed directory
 * owned by someone else). */
static const char *install_plugindir(void)
{
	const char *v = weft__test_hook("PLUGINDIR");

	return v && v[0] ? v : WEFT_PLUGINDIR;
}

/* The users trusted besides root, and the installed plugin directory. */
struct trust {
	uid_t me;	  /* the effective uid */
	uid_t lib_owner;  /* owner of libweft's directory, or root */
	struct stat inst; /* the installed plugin directory */
	int have_inst;
};

/* The effective uid (a test build may pretend another one with
 * WEFT_TEST_PLUGIN_EUID, to test files owned by someone else without
 * root). */
static uid_t trusted_uid(void)
{
	const char *v = weft__test_hook("PLUGIN_EUID");
	char *end;
	unsigned long u;

	if (v && v[0]) {
		u = strtoul(v, &end, 10);
		if (!*end)
			return (uid_t)u;
	}
	return geteuid();
}

/* The directory of path (a copy), "." when it has none. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return weft__strdup(".");
	return strndup(path, slash == path ? 1 : (size_t)(slash - path));
}

/* The owner of the directory holding the object this code is in (libweft,
 * or a program linking it statically), through symbolic links; root when
 * it cannot be found (root is trusted anyway). A test build may name
 * that directory with WEFT_TEST_PLUGIN_LIBDIR. */
static uid_t lib_dir_owner(void)
{
	const char *hook = weft__test_hook("PLUGIN_LIBDIR");
	char real[PATH_MAX];
	Dl_info info;
	struct stat st;
	char *dir;
	int found;

	if (hook && hook[0])
		return stat(hook, &st) == 0 ? st.st_uid : 0;
	if (!dladdr((void *)lib_dir_owner, &info) || !info.dli_fname ||
	    !realpath(info.dli_fname, real) || !(dir = dir_of(real)))
		return 0;
	found = stat(dir, &st) == 0;
	free(dir);
	return found ? st.st_uid : 0;
}

static void trust_init(struct trust *t)
{
	t->me = trusted_uid();
	t->lib_owner = lib_dir_owner();
	t->have_inst = stat(install_plugindir(), &t->inst) == 0;
}

/* 1 when st is the installed plugin directory. */
static int is_install_dir(const struct trust *t, const struct stat *st)
{
	return t->have_inst && st->st_dev == t->inst.st_dev &&
	       st->st_ino == t->inst.st_ino;
}

/* 1 when uid is this user, root or the owner of libweft's directory. */
static int trusted_owner(const struct trust *t, uid_t uid)
{
	return uid == t->me || uid == 0 || uid == t->lib_owner;
}

/* Nonzero, with why, when path, whose status is st, is owned by someone
 * not trusted. dir is the status of its directory for a file, NULL for a
 * directory. */
static int unsafe_owner(const struct trust *t, const char *path,
			const struct stat *st, const struct stat *dir,
			char *why, size_t size)
{
	const struct stat *install = dir ? dir : st;
	char also[64] = "";

	if (trusted_owner(t, st->st_uid) ||
	    (is_install_dir(t, install) && st->st_uid == install->st_uid))
		return 0;
	if (t->lib_owner != 0 && t->lib_owner != t->me)
		weft__fmt(also, sizeof also, ", weft's installer (uid %lu)",
			  (unsigned long)t->lib_owner);
	weft__fmt(why, size,
		  "%s is owned by uid %lu, not by you (uid %lu)%s or root: %s "
		  "could be replaced by its owner; move it to a directory of "
		  "yours, or set " UNSAFE_DIRS_ENV "=1",
		  path, (unsigned long)st->st_uid, (unsigned long)t->me, also,
		  dir ? "the plugin" : "a plugin there");
	return 1;
}

/* Nonzero, with why, when path, whose status is st, is writable by others
 * (a sticky directory excepted); is_dir when it is a directory. */
static int unsafe_mode(const char *path, const struct stat *st, int is_dir,
		       char *why, size_t size)
{
	unsigned mode = (unsigned)st->st_mode & 07777;

	if (!(mode & S_IWOTH) || (is_dir && (mode & S_ISVTX)))
		return 0;
	weft__fmt(why, size,
		  "%s is writable by others (mode %04o): %s could be replaced "
		  "by anyone; fix with chmod o-w %s, or set " UNSAFE_DIRS_ENV
		  "=1",
		  path, mode, is_dir ? "a plugin there" : "the plugin", path);
	return 1;
}

/* Nonzero, with why, when the directory of path is unsafe; its status in
 * *st (st_ino 0 when it cannot be looked at: that is left to dlopen() to
 * report). */
static int unsafe_dir_of(const struct trust *t, const char *path,
			 struct stat *st, char *why, size_t size)
{
	char *dir = dir_of(path);
	int bad = 0;

	if (!dir) {
		weft__fmt(why, size, "out of memory");
		return 1;
	}
	if (stat(dir, st) == 0)
		bad = unsafe_owner(t, dir, st, NULL, why, size) ||
		      unsafe_mode(dir, st, 1, why, size);
	else
		memset(st, 0, sizeof *st);
	free(dir);
	return bad;
}

/* Nonzero, with why, when the plugin file at path, or its directory, or
 * the file it resolves to and that one's directory, could be replaced by
 * someone not trusted. A file that does not exist is left to dlopen() to
 * report. */
static int plugin_path_unsafe(const char *path, char *why, size_t size)
{
	char real[PATH_MAX];
	struct stat st, dir;
	struct trust t;

	trust_init(&t);
	if (unsafe_dir_of(&t, path, &dir, why, size))
		return 1;
	if (!realpath(path, real) || stat(real, &st) != 0)
		return 0;
	if (unsafe_dir_of(&t, real, &dir, why, size))
		return 1;
	return unsafe_owner(&t, real, &st, &dir, why, size) ||
	       unsafe_mode(real, &st, 0, why, size);
}

/* Refuse p at its open stage when its file is unsafe (and that is not
 * allowed): before any ELF reading or dlopen(), so none of its code runs
 * anywhere. Returns -1 when refused. */
static int refuse_unsafe(weft__plugin *p)
{
	char why[WEFT__MSG_MAX];

	if (unsafe_allowed() || !plugin_path_unsafe(p->path, why, sizeof why))
		return 0;
	return weft__plugin_refuse(p, "open", "%s", why);
}

/* ---- loading one plugin -------------------------------------------------- */

int weft__plugin_refuse(weft__plugin *p, const char *stage, const char *fmt,
			...)
{
	va_list ap;

	p->stage = stage;
	va_start(ap, fmt);
	vsnprintf(p->reason, sizeof p->reason, fmt, ap);
	va_end(ap);
	return -1;
}

/* dlerror()'s text, without the file name it starts with: the messages
 * built from it name the path already. */
static const char *dl_reason(const char *path)
{
	const char *e = dlerror();
	size_t n = strlen(path);

	if (!e)
		return "unknown dynamic loader error";
	if (strncmp(e, path, n) == 0 && strncmp(e + n, ": ", 2) == 0)
		return e + n + 2;
	return e;
}

static int stage_open(weft__plugin *p)
{
	if (refuse_unsafe(p))
		return -1;
	p->dl = dlopen(p->path, RTLD_NOW | RTLD_LOCAL);
	if (!p->dl)
		return weft__plugin_refuse(p, "open", "%s", dl_reason(p->path));
	return 0;
}

static int stage_symbol(weft__plugin *p)
{
	dlerror(); /* clear a stale error so the one below is ours */
	p->entry = dlsym(p->dl, p->kind->symbol);
	if (!p->entry)
		return weft__plugin_refuse(p, "symbol",
					   "%s (a %s exports its table with "
					   "%s)",
					   dl_reason(p->path), p->kind->noun,
					   p->kind->entry_macro);
	return 0;
}

/* Record the stage under way for a parent watching (isolate.c). */
static void set_at(volatile int *at, int stage)
{
	if (at)
		*at = stage;
}

void weft__plugin_load_here(weft__plugin *p, int probe, volatile int *at)
{
	int refused;

	set_at(at, WEFT__AT_OPEN);
	refused = stage_open(p);
	if (!refused) {
		set_at(at, WEFT__AT_SYMBOL);
		refused = stage_symbol(p);
	}
	if (!refused) {
		set_at(at, WEFT__AT_CHECK);
		refused = p->kind->check(p);
	}
	if (refused) {
		/* Refused before any plugin function ran: unload it. */
		if (p->dl)
			dlclose(p->dl);
		p->dl = NULL;
		p->entry = NULL;
		return;
	}
	set_at(at, WEFT__AT_PROBE);
	if (probe && p->kind->probe)
		p->kind->probe(p);
}

weft_status weft__plugin_status(const weft__plugin *p)
{
	return strcmp(p->stage, "probe") == 0 ? WEFT_E_UNAVAILABLE
					      : WEFT_E_PLUGIN;
}

/* Free what p owns, not p itself. */
static void plugin_clear(weft__plugin *p)
{
	if (p->dl)
		dlclose(p->dl);
	free(p->name);
	free(p->path);
	free(p->env);
}

void weft__plugin_free(weft__plugin *p)
{
	if (!p)
		return;
	plugin_clear(p);
	free(p);
}

/* Inspect p in a child, then load it here when it is usable (or, with
 * keep_unavailable, refused only by its probe). */
static weft_status plugin_inspect_attach(weft_context *ctx, weft__plugin *p,
					 int keep_unavailable)
{
	double timeout;
	weft_status st;

	if (refuse_unsafe(p))
		return WEFT_OK;
	if ((st = weft__probe_timeout(ctx, &timeout)) ||
	    (st = weft__plugin_inspect(ctx, p, timeout)))
		return st;
	if (!p->stage || (keep_unavailable && strcmp(p->stage, "probe") == 0))
		weft__plugin_attach(p);
	return WEFT_OK;
}

/* Name and path of a plugin given by path. A path without '/' gets "./"
 * so that dlopen() opens that file and does not search the library path. */
static int plugin_init_path(weft__plugin *p, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	p->path =
		base == path ? weft__path_join(".", path) : weft__strdup(path);
	n = weft__plugin_name_len(p->kind, base);
	p->name = n ? strndup(base + strlen(p->kind->prefix), n)
		    : weft__strdup(base);
	if (!p->path || !p->name)
		return -1;
	if (!n)
		weft__plugin_refuse(p, "open",
				    "the file name must be %sNAME.so, NAME "
				    "made of a-z, 0-9, '_' and '-'",
				    p->kind->prefix);
	return 0;
}

weft_status weft__plugin_open_path(weft_context *ctx,
				   const weft__plugin_kind *kind,
				   const char *path, int keep_failed,
				   weft__plugin **out)
{
	weft__plugin *p;
	weft_status st;

	*out = NULL;
	if (!path || !path[0])
		return weft__fail(ctx, WEFT_E_INVALID,
				  "no %s plugin path given", kind->noun);
	p = calloc(1, sizeof *p);
	if (p)
		p->kind = kind;
	if (!p || plugin_init_path(p, path) != 0) {
		weft__plugin_free(p);
		return weft__fail(ctx, WEFT_E_NOMEM,
				  "out of memory loading plugin %s", path);
	}
	if (!p->stage && (st = plugin_inspect_attach(ctx, p, keep_failed))) {
		weft__plugin_free(p);
		return st;
	}
	if (p->stage && !(keep_failed && p->entry)) {
		st = weft__fail(ctx, weft__plugin_status(p), "%s: %s: %s",
				p->path, p->stage, p->reason);
		weft__plugin_free(p);
		return st;
	}
	*out = p;
	return WEFT_OK;
}

/* ---- the directories searched -------------------------------------------- */

/* 1 when the ":"-separated list holds the directory dir[0..n). */
static int dirs_have(const char *list, const char *dir, size_t n)
{
	for (const char *s = list; *s; s += *s == ':') {
		size_t m = strcspn(s, ":");
		if (m == n && memcmp(s, dir, n) == 0)
			return 1;
		s += m;
	}
	return 0;
}

/* Append the directories of path to list, without trailing slashes,
 * skipping empty and repeated ones (a directory searched twice would
 * shadow itself). */
static void dirs_add(char *list, const char *path)
{
	for (const char *s = path; *s; s += *s == ':') {
		size_t len = strcspn(s, ":"), n = len;
		while (n > 1 && s[n - 1] == '/')
			n--;
		if (n > 0 && !dirs_have(list, s, n)) {
			if (list[0])
				strcat(list, ":");
			strncat(list, s, n);
		}
		s += len;
	}
}

char *weft__plugin_search_path(const weft__plugin_kind *kind,
			       const char *user_path)
{
	const char *parts[] = { user_path, getenv(kind->env),
				install_plugindir() };
	size_t cap = 1;
	char *list;

	for (size_t i = 0; i < 3; i++)
		cap += parts[i] ? strlen(parts[i]) + 1 : 0;
	list = malloc(cap);
	if (!list)
		return NULL;
	list[0] = '\0';
	for (size_t i = 0; i < 3; i++)
		if (parts[i])
			dirs_add(list, parts[i]);
	return list;
}

/* The file names of one kind's plugins in dir, in byte order (not the
 * locale's: discovery must not depend on LC_COLLATE). -1 when dir cannot
 * be read. */
static const weft__plugin_kind *scan_kind;

static int is_plugin_file(const struct dirent *e)
{
	return weft__plugin_name_len(scan_kind, e->d_name) > 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int list_dir(const weft__plugin_kind *kind, const char *dir,
		    struct dirent ***ents)
{
	/* scandir's filter takes no argument; the kind is fixed for the
	 * call, and the library is not scanning from two threads at once
	 * for two kinds (configurations are made on one thread). */
	scan_kind = kind;
	return scandir(dir, ents, is_plugin_file, by_name);
}

/* Call fn for every directory of a ":"-separated list; stops at the first
 * nonzero return and returns it. */
static int each_dir(const char *list, int (*fn)(void *, const char *),
		    void *arg)
{
	int rc = 0;

	for (const char *s = list; *s && rc == 0; s += *s == ':') {
		size_t n = strcspn(s, ":");
		char *dir = strndup(s, n);

		rc = dir ? fn(arg, dir) : -1;
		free(dir);
		s += n;
	}
	return rc;
}

/* ---- discovery of every plugin of a kind --------------------------------- */

/* A new, zeroed plugin at the end of the set. */
static weft__plugin *set_add(weft__plugin_set *set)
{
	weft__plugin *items;

	items = realloc(set->items, (set->n + 1) * sizeof *items);
	if (!items)
		return NULL;
	set->items = items;
	memset(&items[set->n], 0, sizeof *items);
	items[set->n].kind = set->kind;
	return &items[set->n++];
}

weft__plugin *weft__plugins_find(weft__plugin_set *set, const char *name)
{
	for (size_t i = 0; set && i < set->n; i++)
		if (!set->items[i].shadowed &&
		    strcmp(set->items[i].name, name) == 0)
			return &set->items[i];
	return NULL;
}

static int scan_file(weft__plugin_set *set, const char *dir, const char *file)
{
	const weft__plugin_kind *kind = set->kind;
	weft__plugin *p, *first;

	p = set_add(set);
	if (!p)
		return -1;
	p->name = strndup(file + strlen(kind->prefix),
			  weft__plugin_name_len(kind, file));
	p->path = weft__path_join(dir, file);
	if (!p->name || !p->path)
		return -1;
	first = weft__plugins_find(set, p->name);
	if (first != p) {
		/* Kept, not loaded, so that listings can show it. */
		p->shadowed = 1;
		weft__fmt(p->reason, sizeof p->reason, "shadowed by %s",
			  first->path);
		return 0;
	}
	/* Refused here when others could replace it; else looked at in a
	 * child: a scan loads nothing here. */
	if (refuse_unsafe(p))
		return 0;
	set->st = weft__plugin_inspect(set->ctx, p, set->timeout);
	return set->st == WEFT_OK ? 0 : -1;
}

static int scan_dir(void *arg, const char *dir)
{
	weft__plugin_set *set = arg;
	struct dirent **ents;
	int n, rc = 0;

	n = list_dir(set->kind, dir, &ents);
	if (n < 0)
		return 0; /* missing or unreadable: skipped silently */
	for (int i = 0; i < n; i++) {
		if (rc == 0)
			rc = scan_file(set, dir, ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
	return rc;
}

weft_status weft__plugins_scan_kind(weft_context *ctx,
				    const weft__plugin_kind *kind,
				    const char *user_path,
				    weft__plugin_set **out)
{
	weft__plugin_set *set;

	weft_status st;

	*out = NULL;
	set = calloc(1, sizeof *set);
	if (!set)
		goto nomem;
	set->kind = kind;
	set->ctx = ctx;
	if ((st = weft__probe_timeout(ctx, &set->timeout))) {
		weft__plugins_free(set);
		return st;
	}
	if (!(set->searched = weft__plugin_search_path(kind, user_path)) ||
	    each_dir(set->searched, scan_dir, set) != 0) {
		st = set->st;
		weft__plugins_free(set);
		if (st != WEFT_OK)
			return st;
		goto nomem;
	}
	set->ctx = NULL;
	*out = set;
	return WEFT_OK;

nomem:
	return weft__fail(ctx, WEFT_E_NOMEM,
			  "out of memory while scanning for %s plugins",
			  kind->noun);
}

void weft__plugins_free(weft__plugin_set *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < set->n; i++)
		plugin_clear(&set->items[i]);
	free(set->items);
	free(set->searched);
	free(set);
}

/* ---- finding one plugin by name ------------------------------------------ */

struct find {
	const weft__plugin_kind *kind;
	const char *name;
	char *path; /* the first file of that name */
};

static int find_in_dir(void *arg, const char *dir)
{
	struct find *f = arg;
	size_t n = strlen(f->kind->prefix) + strlen(f->name) + 4;
	char *file = malloc(n);

	if (!file)
		return -1;
	snprintf(file, n, "%s%s" PLUGIN_SUFFIX, f->kind->prefix, f->name);
	f->path = weft__path_join(dir, file);
	free(file);
	if (!f->path)
		return -1;
	if (access(f->path, F_OK) == 0)
		return 1;
	free(f->path);
	f->path = NULL;
	return 0;
}

weft_status weft__plugin_find(weft_context *ctx, const weft__plugin_kind *kind,
			      const char *searched, const char *name,
			      weft__plugin **out)
{
	struct find f = { .kind = kind, .name = name };
	weft__plugin *p;
	weft_status st;
	int rc;

	*out = NULL;
	rc = each_dir(searched, find_in_dir, &f);
	if (rc < 0)
		return weft__fail(ctx, WEFT_E_NOMEM,
				  "out of memory looking for %s%s.so",
				  kind->prefix, name);
	if (rc == 0)
		return WEFT_OK; /* none: *out stays NULL */
	p = calloc(1, sizeof *p);
	if (!p || !(p->name = weft__strdup(name))) {
		free(p);
		free(f.path);
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	}
	p->kind = kind;
	p->path = f.path;
	if ((st = plugin_inspect_attach(ctx, p, 0))) {
		weft__plugin_free(p);
		return st;
	}
	*out = p;
	return WEFT_OK;
}

/* ---- names of the plugins there are, for suggestions ----------------------
 */

struct names {
	const weft__plugin_kind *kind;
	weft__names *out;
};

static int names_in_dir(void *arg, const char *dir)
{
	struct names *nm = arg;
	struct dirent **ents;
	int n, rc = 0;

	n = list_dir(nm->kind, dir, &ents);
	for (int i = 0; i < n; i++) {
		const char *file = ents[i]->d_name;
		size_t len = weft__plugin_name_len(nm->kind, file);
		weft__names *o = nm->out;

		if (rc == 0 && o->n < WEFT__NAMES_MAX) {
			o->name[o->n] =
				strndup(file + strlen(nm->kind->prefix), len);
			rc = o->name[o->n] ? 0 : -1;
			o->n += rc == 0;
		}
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
	return rc;
}

void weft__plugin_names(const weft__plugin_kind *kind, const char *searched,
			weft__names *out)
{
	struct names nm = { kind, out };

	out->n = 0;
	each_dir(searched, names_in_dir, &nm);
}

void weft__names_free(weft__names *names)
{
	for (size_t i = 0; i < names->n; i++)
		free(names->name[i]);
	names->n = 0;
}

void weft__names_join(const weft__names *names, char *buf, size_t size)
{
	buf[0] = '\0';
	for (size_t i = 0; i < names->n; i++)
		weft__msg_add(buf, size, "%s%s", i ? ", " : "", names->name[i]);
	if (!buf[0])
		weft__fmt(buf, size, "none");
}
