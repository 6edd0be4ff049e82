/*
 * core/loader.c - find backend plugins, load them, check their version
 * before any of their code runs, probe them, and pick one.
 *
 * A plugin is a file weft-backend-NAME.so exporting the data symbol
 * WEFT_BACKEND_ENTRY_SYMBOL. Loading goes through fixed stages, and a
 * failure at any of them is recorded with the path, the stage and the
 * system's or the plugin's reason:
 *
 *   open     dlopen() failed (or the file name is not a plugin's name)
 *   symbol   the entry symbol is not exported
 *   version  ABI major, entry size, name or a 1.0 function does not match
 *   probe    the plugin says it cannot run here
 *
 * A plugin refused at open, symbol or version is unloaded at once and none
 * of its functions is ever called. A plugin refused by its probe stays
 * loaded (its table is valid) until the set is freed.
 */
#include "internal.h"

#include <dirent.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define PLUGIN_PREFIX	  "weft-backend-"
#define PLUGIN_SUFFIX	  ".so"
#define PLUGIN_NAME_CHARS "abcdefghijklmnopqrstuvwxyz0123456789_-"

/* Backends this project ships, with configure's verdict on each: "yes" or
 * "no (reason)". `weft backends` reports the ones it did not find. */
static const struct {
	const char *name;
	const char *built;
} first_party[] = {
	{ "openmp", WEFT_BUILT_OPENMP },
	{ "opencl", WEFT_BUILT_OPENCL },
	{ "cuda", WEFT_BUILT_CUDA },
};
#define N_FIRST_PARTY (sizeof first_party / sizeof first_party[0])

static int plugin_refuse(weft__plugin *p, const char *stage, const char *fmt,
			 ...) WEFT_PRINTF(3, 4);
static void msg_add(char *buf, size_t size, const char *fmt, ...)
	WEFT_PRINTF(3, 4);

/* ---- names and paths ----------------------------------------------------- */

/* Length of NAME when file is exactly weft-backend-NAME.so with NAME made
 * of [a-z0-9_-]; 0 when file is not a plugin's name. */
static size_t plugin_name_len(const char *file)
{
	size_t pre = strlen(PLUGIN_PREFIX), suf = strlen(PLUGIN_SUFFIX);
	size_t len = strlen(file);
	size_t n;

	if (len <= pre + suf || strncmp(file, PLUGIN_PREFIX, pre) != 0 ||
	    strcmp(file + len - suf, PLUGIN_SUFFIX) != 0)
		return 0;
	n = len - pre - suf;
	return strspn(file + pre, PLUGIN_NAME_CHARS) == n ? n : 0;
}

/* "dir/file", without doubling a trailing slash; NULL when out of memory. */
static char *path_join(const char *dir, const char *file)
{
	size_t dl = strlen(dir);
	const char *sep = dl > 0 && dir[dl - 1] == '/' ? "" : "/";
	size_t n = dl + strlen(sep) + strlen(file) + 1;
	char *path = malloc(n);

	if (path)
		snprintf(path, n, "%s%s%s", dir, sep, file);
	return path;
}

/* Append to a message, cutting what does not fit. */
static void msg_add(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	if (len + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

/* ---- loading one plugin -------------------------------------------------- */

/* Record why p cannot be used; returns -1 so stages can `return` it. */
static int plugin_refuse(weft__plugin *p, const char *stage, const char *fmt,
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
	p->dl = dlopen(p->path, RTLD_NOW | RTLD_LOCAL);
	if (!p->dl)
		return plugin_refuse(p, "open", "%s", dl_reason(p->path));
	return 0;
}

static int stage_symbol(weft__plugin *p)
{
	dlerror(); /* clear a stale error so the one below is ours */
	p->vt = dlsym(p->dl, WEFT_BACKEND_ENTRY_SYMBOL);
	if (!p->vt)
		return plugin_refuse(p, "symbol",
				     "%s (a backend exports its table with "
				     "WEFT_BACKEND_ENTRY)",
				     dl_reason(p->path));
	return 0;
}

/* Every function of the 1.0 table must be there: the core calls them
 * without checking. */
static int stage_functions(weft__plugin *p)
{
#define FN(f)                     \
	{                         \
#f, vt->f != NULL \
	}
	const weft_backend *vt = p->vt;
	const struct {
		const char *name;
		int present;
	} fns[] = {
		FN(probe),	  FN(open),	      FN(close), FN(alloc),
		FN(free),	  FN(write),	      FN(read),	 FN(copy),
		FN(load_program), FN(unload_program), FN(step),	 FN(sync),
		FN(stats),
	};
#undef FN

	for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
		if (!fns[i].present)
			return plugin_refuse(p, "version",
					     "entry has no %s function (NULL); "
					     "backend ABI 1.0 requires every "
					     "function",
					     fns[i].name);
	return 0;
}

/* Read only the header first: a table from another ABI may be laid out
 * differently, and a short one must not be read past its end. */
static int stage_version(weft__plugin *p)
{
	const weft_backend *vt = p->vt;

	if (vt->abi_major != WEFT_BACKEND_ABI_MAJOR)
		return plugin_refuse(p, "version",
				     "built for backend ABI %" PRIu32
				     ".%" PRIu32 ", this weft expects %d.x",
				     vt->abi_major, vt->abi_minor,
				     WEFT_BACKEND_ABI_MAJOR);
	if (vt->struct_size < WEFT_BACKEND_V1_0_SIZE)
		return plugin_refuse(p, "version",
				     "entry struct is %" PRIu32 " bytes, ABI "
				     "1.0 needs at least %zu",
				     vt->struct_size,
				     (size_t)WEFT_BACKEND_V1_0_SIZE);
	if (!vt->name)
		return plugin_refuse(p, "version",
				     "entry has no name (NULL), expected '%s'",
				     p->name);
	if (strcmp(vt->name, p->name) != 0)
		return plugin_refuse(p, "version",
				     "entry is named '%.64s', but the file is "
				     "named for '%s'",
				     vt->name, p->name);
	return stage_functions(p);
}

/* The first plugin code that runs. */
static void stage_probe(weft__plugin *p)
{
	weft_probe *pr = &p->probe;
	weft_status st;

	memset(pr, 0, sizeof *pr);
	pr->struct_size = sizeof *pr;
	st = p->vt->probe(pr);
	pr->reason[sizeof pr->reason - 1] = '\0';
	pr->devices[sizeof pr->devices - 1] = '\0';
	pr->score = pr->score < 0 ? 0 : pr->score > 1000 ? 1000 : pr->score;
	if (st != WEFT_OK)
		plugin_refuse(p, "probe", "%s%s%s", pr->reason,
			      pr->reason[0] ? " - " : "", weft_status_str(st));
	else if (!pr->available)
		plugin_refuse(
			p, "probe", "%s",
			pr->reason[0]
				? pr->reason
				: "not available (the probe gave no reason)");
}

/* Take p (name and path set) through every stage; the outcome is recorded
 * in p. */
static void plugin_load(weft__plugin *p)
{
	if (stage_open(p) || stage_symbol(p) || stage_version(p)) {
		/* Refused before any plugin function ran: unload it. */
		if (p->dl)
			dlclose(p->dl);
		p->dl = NULL;
		p->vt = NULL;
		return;
	}
	stage_probe(p);
}

static weft_status plugin_status(const weft__plugin *p)
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
}

/* For a plugin from weft__plugin_load_path() only; plugins in a set are
 * freed with the set. */
void weft__plugin_free(weft__plugin *p)
{
	if (!p)
		return;
	plugin_clear(p);
	free(p);
}

/* Name and path of a plugin given by path. A path without '/' gets "./"
 * so that dlopen() opens that file and does not search the library path. */
static int plugin_init_path(weft__plugin *p, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	p->path = base == path ? path_join(".", path) : weft__strdup(path);
	n = plugin_name_len(base);
	p->name = n ? strndup(base + strlen(PLUGIN_PREFIX), n)
		    : weft__strdup(base);
	if (!p->path || !p->name)
		return -1;
	if (!n)
		plugin_refuse(p, "open",
			      "the file name must be "
			      "weft-backend-NAME.so, NAME made of a-z, 0-9, "
			      "'_' and '-'");
	return 0;
}

weft_status weft__plugin_load_path(weft_context *ctx, const char *path,
				   weft__plugin **out)
{
	weft__plugin *p;
	weft_status st;

	*out = NULL;
	if (!path || !path[0])
		return weft__fail(ctx, WEFT_E_INVALID, "no plugin path given");
	p = calloc(1, sizeof *p);
	if (!p || plugin_init_path(p, path) != 0) {
		weft__plugin_free(p);
		return weft__fail(ctx, WEFT_E_NOMEM,
				  "out of memory loading plugin %s", path);
	}
	if (!p->stage)
		plugin_load(p);
	if (p->stage) {
		st = weft__fail(ctx, plugin_status(p), "%s: %s: %s", p->path,
				p->stage, p->reason);
		weft__plugin_free(p);
		return st;
	}
	*out = p;
	return WEFT_OK;
}

/* ---- discovery ----------------------------------------------------------- */

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

/* The directories to search, in order, joined by ':'. */
static char *search_path(const char *plugin_path)
{
	const char *parts[] = { plugin_path, getenv("WEFT_PLUGIN_PATH"),
				WEFT_PLUGINDIR };
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

static int is_plugin_file(const struct dirent *e)
{
	return plugin_name_len(e->d_name) > 0;
}

/* Byte order, not the locale's: discovery must not depend on LC_COLLATE. */
static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* A new, zeroed plugin at the end of the set. */
static weft__plugin *set_add(weft__plugin_set *set)
{
	weft__plugin *items;

	items = realloc(set->items, (set->n + 1) * sizeof *items);
	if (!items)
		return NULL;
	set->items = items;
	memset(&items[set->n], 0, sizeof *items);
	return &items[set->n++];
}

/* The first plugin of that name: the one that is not shadowed. */
static weft__plugin *set_find(weft__plugin_set *set, const char *name)
{
	for (size_t i = 0; i < set->n; i++)
		if (!set->items[i].shadowed &&
		    strcmp(set->items[i].name, name) == 0)
			return &set->items[i];
	return NULL;
}

static weft_status scan_file(weft__plugin_set *set, const char *dir,
			     const char *file)
{
	weft__plugin *p, *first;

	p = set_add(set);
	if (!p)
		return WEFT_E_NOMEM;
	p->name = strndup(file + strlen(PLUGIN_PREFIX), plugin_name_len(file));
	p->path = path_join(dir, file);
	if (!p->name || !p->path)
		return WEFT_E_NOMEM;
	first = set_find(set, p->name);
	if (first != p) {
		/* Kept, not loaded, so that `weft backends` can show it. */
		p->shadowed = 1;
		weft__fmt(p->reason, sizeof p->reason, "shadowed by %s",
			  first->path);
		return WEFT_OK;
	}
	plugin_load(p);
	return WEFT_OK;
}

static weft_status scan_dir(weft__plugin_set *set, const char *dir)
{
	struct dirent **ents;
	weft_status st = WEFT_OK;
	int n;

	n = scandir(dir, &ents, is_plugin_file, by_name);
	if (n < 0)
		return WEFT_OK; /* missing or unreadable: skipped silently */
	for (int i = 0; i < n; i++) {
		if (st == WEFT_OK)
			st = scan_file(set, dir, ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
	return st;
}

weft_status weft__plugins_scan(weft_context *ctx, const char *plugin_path,
			       weft__plugin_set **out)
{
	weft__plugin_set *set;
	weft_status st = WEFT_OK;
	const char *s;

	*out = NULL;
	set = calloc(1, sizeof *set);
	if (!set || !(set->searched = search_path(plugin_path)))
		goto free_set;
	for (s = set->searched; *s && st == WEFT_OK; s += *s == ':') {
		size_t n = strcspn(s, ":");
		char *dir = strndup(s, n);

		st = dir ? scan_dir(set, dir) : WEFT_E_NOMEM;
		free(dir);
		s += n;
	}
	if (st != WEFT_OK)
		goto free_set;
	*out = set;
	return WEFT_OK;

free_set:
	weft__plugins_free(set);
	return weft__fail(ctx, WEFT_E_NOMEM,
			  "out of memory while scanning for backend plugins");
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

/* Why a first-party backend was not found: configure's verdict
 * "no (reason)" when it was not built, else where it was looked for. */
static char *missing_reason(const char *name, const char *built,
			    const char *searched)
{
	char buf[WEFT__MSG_MAX];
	size_t n;

	if (strcmp(built, "yes") == 0) {
		weft__fmt(buf, sizeof buf, "no weft-backend-%s.so in %s", name,
			  searched);
		return weft__strdup(buf);
	}
	if (strncmp(built, "no (", 4) == 0) {
		built += 4;
		n = strlen(built);
		n -= n > 0 && built[n - 1] == ')';
	} else {
		n = strlen(built);
	}
	weft__fmt(buf, sizeof buf, "not built: %.*s", (int)n, built);
	return weft__strdup(buf);
}

/* ---- selection ----------------------------------------------------------- */

static int plugin_usable(const weft__plugin *p)
{
	return !p->shadowed && !p->stage;
}

/* "openmp (score 50), fake (score 10)", or "none". */
static void describe_available(const weft__plugin_set *set, char *buf,
			       size_t size)
{
	buf[0] = '\0';
	for (size_t i = 0; i < set->n; i++) {
		const weft__plugin *p = &set->items[i];
		if (plugin_usable(p))
			msg_add(buf, size, "%s%s (score %d)",
				buf[0] ? ", " : "", p->name, p->probe.score);
	}
	if (!buf[0])
		weft__fmt(buf, size, "none");
}

/* "PATH: STAGE: REASON; ..." for every plugin found and not shadowed. */
static void describe_found(const weft__plugin_set *set, char *buf, size_t size)
{
	buf[0] = '\0';
	for (size_t i = 0; i < set->n; i++) {
		const weft__plugin *p = &set->items[i];
		if (!p->shadowed)
			msg_add(buf, size, "%s%s: %s: %s", buf[0] ? "; " : "",
				p->path, p->stage ? p->stage : "available",
				p->stage ? p->reason : p->probe.devices);
	}
	if (!buf[0])
		weft__fmt(buf, size, "no weft-backend-NAME.so found");
}

/* The available plugin with the highest score, the first found on ties.
 * With none, WEFT_E_UNAVAILABLE when some plugin loaded and its probe said
 * no, WEFT_E_PLUGIN when none got that far. */
static weft_status select_auto(weft_context *ctx, weft__plugin_set *set,
			       weft__plugin **out)
{
	weft_status st = WEFT_E_PLUGIN;
	char found[WEFT__MSG_MAX];
	weft__plugin *best = NULL;

	for (size_t i = 0; i < set->n; i++) {
		weft__plugin *p = &set->items[i];
		if (plugin_usable(p) &&
		    (!best || p->probe.score > best->probe.score))
			best = p;
		if (!p->shadowed && p->stage && strcmp(p->stage, "probe") == 0)
			st = WEFT_E_UNAVAILABLE;
	}
	if (best) {
		*out = best;
		return WEFT_OK;
	}
	describe_found(set, found, sizeof found);
	return weft__fail(ctx, st,
			  "no backend is available (backend = auto): "
			  "%s; searched %s",
			  found, set->searched);
}

/* Why a backend this project ships was not found; NULL for other names
 * (and when out of memory). The caller lists the directories searched. */
static char *first_party_reason(const char *name, const char *searched)
{
	for (size_t k = 0; k < N_FIRST_PARTY; k++) {
		if (strcmp(first_party[k].name, name) != 0)
			continue;
		if (strcmp(first_party[k].built, "yes") == 0)
			return weft__strdup("built with this weft, but its "
					    "plugin file was not found");
		return missing_reason(name, first_party[k].built, searched);
	}
	return NULL;
}

/* No plugin has that name: say why when it is one of ours, else suggest
 * the closest name found. */
static weft_status select_missing(weft_context *ctx, weft__plugin_set *set,
				  const char *name)
{
	char avail[WEFT__MSG_MAX];
	char *ours = first_party_reason(name, set->searched);
	const char **names;
	const char *hint = NULL;
	size_t n = 0;

	names = malloc((set->n + 1) * sizeof *names);
	for (size_t i = 0; names && i < set->n; i++)
		if (!set->items[i].shadowed)
			names[n++] = set->items[i].name;
	if (names && !ours)
		hint = weft__closest(name, names, n);
	describe_available(set, avail, sizeof avail);
	weft__fail(ctx, WEFT_E_PLUGIN,
		   "no backend named '%s'%s%s%s; %s%s%savailable: %s; "
		   "searched %s",
		   name, ours ? " (" : "", ours ? ours : "", ours ? ")" : "",
		   hint ? "did you mean '" : "", hint ? hint : "",
		   hint ? "'? " : "", avail, set->searched);
	free(names);
	free(ours);
	return WEFT_E_PLUGIN;
}

/* An explicit name never falls back to another backend. */
static weft_status select_named(weft_context *ctx, weft__plugin_set *set,
				const char *name, weft__plugin **out)
{
	weft__plugin *p = set_find(set, name);
	char avail[WEFT__MSG_MAX];

	if (!p)
		return select_missing(ctx, set, name);
	if (p->stage) {
		describe_available(set, avail, sizeof avail);
		return weft__fail(ctx, plugin_status(p),
				  "backend '%s' is not available: %s: %s: %s; "
				  "available: %s",
				  name, p->path, p->stage, p->reason, avail);
	}
	*out = p;
	return WEFT_OK;
}

weft_status weft__plugins_select(weft_context *ctx, weft__plugin_set *set,
				 const char *name, weft__plugin **out)
{
	*out = NULL;
	if (!set || !name || !name[0])
		return weft__fail(ctx, WEFT_E_INVALID, "no backend name given");
	if (strchr(name, '/'))
		return weft__fail(ctx, WEFT_E_INVALID,
				  "backend '%s' looks like a path; a backend "
				  "is chosen by name (e.g. 'auto' or "
				  "'openmp'); to load a plugin file, set "
				  "[backend] plugin = PATH",
				  name);
	if (strcmp(name, "auto") == 0)
		return select_auto(ctx, set, out);
	return select_named(ctx, set, name, out);
}

/* ---- the public listing -------------------------------------------------- */

struct weft_backend_list {
	weft__plugin_set *set;
	weft_backend_info *items;
	size_t n;
	char *missing[N_FIRST_PARTY]; /* reasons of the "missing" entries */
};

static void info_from_plugin(weft_backend_info *info, const weft__plugin *p)
{
	info->name = p->name;
	info->path = p->path;
	info->stage = p->stage ? p->stage : "";
	info->reason = p->stage || p->shadowed ? p->reason : "";
	info->devices = p->probe.devices;
	info->score = p->probe.score;
	info->shadowed = p->shadowed;
	if (p->shadowed || (p->stage && strcmp(p->stage, "probe") == 0))
		info->state = "unavailable";
	else
		info->state = p->stage ? "failed" : "available";
}

static int list_add_missing(weft_backend_list *l, size_t k)
{
	weft_backend_info *info = &l->items[l->n];

	l->missing[k] = missing_reason(first_party[k].name,
				       first_party[k].built, l->set->searched);
	if (!l->missing[k])
		return -1;
	*info = (weft_backend_info){
		.name = first_party[k].name,
		.path = "",
		.state = "missing",
		.stage = "",
		.reason = l->missing[k],
		.devices = "",
	};
	l->n++;
	return 0;
}

weft_status weft_backends_scan(weft_context *ctx, const char *plugin_path,
			       weft_backend_list **out)
{
	weft_backend_list *l;
	weft_status st;

	*out = NULL;
	l = calloc(1, sizeof *l);
	if (!l)
		goto nomem;
	st = weft__plugins_scan(ctx, plugin_path, &l->set);
	if (st != WEFT_OK) {
		weft_backend_list_free(l);
		return st;
	}
	l->items = calloc(l->set->n + N_FIRST_PARTY, sizeof *l->items);
	if (!l->items)
		goto free_list;
	for (size_t i = 0; i < l->set->n; i++)
		info_from_plugin(&l->items[l->n++], &l->set->items[i]);
	for (size_t k = 0; k < N_FIRST_PARTY; k++)
		if (!set_find(l->set, first_party[k].name) &&
		    list_add_missing(l, k) != 0)
			goto free_list;
	*out = l;
	return WEFT_OK;

free_list:
	weft_backend_list_free(l);
nomem:
	return weft__fail(ctx, WEFT_E_NOMEM,
			  "out of memory while listing backends");
}

size_t weft_backend_list_count(const weft_backend_list *l)
{
	return l ? l->n : 0;
}

const weft_backend_info *weft_backend_list_at(const weft_backend_list *l,
					      size_t i)
{
	return l && i < l->n ? &l->items[i] : NULL;
}

void weft_backend_list_free(weft_backend_list *l)
{
	if (!l)
		return;
	for (size_t k = 0; k < N_FIRST_PARTY; k++)
		free(l->missing[k]);
	free(l->items);
	weft__plugins_free(l->set);
	free(l);
}
