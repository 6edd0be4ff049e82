/*
 * core/plugin/backends.c - backend plugins (weft-backend-NAME.so): the checks
 * of their table before any of their code runs, the probe, the choice of one by
 * name or by score, `weft backends`' listing, and the loading API for harnesses
 * (weft/harness.h).
 *
 * A plugin refused by its probe stays loaded (its table is valid) until
 * the set is freed.
 */
#include "plugin/plugin.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int backend_check(weft__plugin *p);
static void backend_probe(weft__plugin *p);

const weft__plugin_kind weft__backend_kind = {
	.noun = "backend",
	.prefix = "weft-backend-",
	.env = "WEFT_PLUGIN_PATH",
	.symbol = WEFT_BACKEND_ENTRY_SYMBOL,
	.entry_macro = "WEFT_BACKEND_ENTRY",
	.check = backend_check,
	.probe = backend_probe,
};

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

/* ---- the checks and the probe -------------------------------------------- */

/* Every function of the 1.0 table must be there: the core calls them
 * without checking. */
static int stage_functions(weft__plugin *p)
{
#define FN(f)                     \
	{                         \
#f, vt->f != NULL \
	}
	const weft_backend *vt = WEFT__BACKEND(p);
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
			return weft__plugin_refuse(
				p, "version",
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
	const weft_backend *vt = WEFT__BACKEND(p);

	if (vt->abi_major != WEFT_BACKEND_ABI_MAJOR)
		return weft__plugin_refuse(
			p, "version",
			"built for backend ABI %" PRIu32 ".%" PRIu32
			", this weft expects %d.x",
			vt->abi_major, vt->abi_minor, WEFT_BACKEND_ABI_MAJOR);
	if (vt->struct_size < WEFT_BACKEND_V1_0_SIZE)
		return weft__plugin_refuse(
			p, "version",
			"entry struct is %" PRIu32 " bytes, ABI "
			"1.0 needs at least %zu",
			vt->struct_size, (size_t)WEFT_BACKEND_V1_0_SIZE);
	if (!vt->name)
		return weft__plugin_refuse(
			p, "version", "entry has no name (NULL), expected '%s'",
			p->name);
	if (strcmp(vt->name, p->name) != 0)
		return weft__plugin_refuse(
			p, "version",
			"entry is named '%.64s', but the file is "
			"named for '%s'",
			vt->name, p->name);
	return stage_functions(p);
}

/* The first plugin code that runs. */
static void backend_probe(weft__plugin *p)
{
	weft_probe *pr = &p->probe;
	weft_status st;

	memset(pr, 0, sizeof *pr);
	pr->struct_size = sizeof *pr;
	st = WEFT__BACKEND(p)->probe(pr);
	pr->reason[sizeof pr->reason - 1] = '\0';
	pr->devices[sizeof pr->devices - 1] = '\0';
	pr->score = pr->score < 0 ? 0 : pr->score > 1000 ? 1000 : pr->score;
	if (st != WEFT_OK) {
		/* A broken probe is a "no", with its status in the reason
		 * (weft_backend_plugin_probe() hands this out). */
		char reason[sizeof pr->reason];

		weft__fmt(reason, sizeof reason, "%s%s%s", pr->reason,
			  pr->reason[0] ? " - " : "", weft__status_str(st));
		memcpy(pr->reason, reason, sizeof reason);
		pr->available = 0;
	}
	if (!pr->available)
		weft__plugin_refuse(
			p, "probe", "%s",
			pr->reason[0]
				? pr->reason
				: "not available (the probe gave no reason)");
}

static int backend_check(weft__plugin *p)
{
	return stage_version(p);
}

/* ---- discovery --------------------------------------------------------------
 */

weft_status weft__plugins_scan(weft_context *ctx, const char *plugin_path,
			       weft__plugin_set **out)
{
	return weft__plugins_scan_kind(ctx, &weft__backend_kind, plugin_path,
				       out);
}

weft_status weft__plugin_load_path(weft_context *ctx, const char *path,
				   weft__plugin **out)
{
	return weft__plugin_open_path(ctx, &weft__backend_kind, path, 0, out);
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
			weft__msg_add(buf, size, "%s%s (score %d)",
				      buf[0] ? ", " : "", p->name,
				      p->probe.score);
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
			weft__msg_add(buf, size, "%s%s: %s: %s",
				      buf[0] ? "; " : "", p->path,
				      p->stage ? p->stage : "available",
				      p->stage ? p->reason : p->probe.devices);
	}
	if (!buf[0])
		weft__fmt(buf, size, "no weft-backend-NAME.so found");
}

/* Load the plugin chosen (scans load none) into this process. */
static weft_status plugin_take(weft_context *ctx, weft__plugin *p,
			       weft__plugin **out)
{
	weft_status st = weft__plugin_attach(p);

	if (st != WEFT_OK)
		return weft__fail(ctx, st, "%s: %s: %s", p->path, p->stage,
				  p->reason);
	*out = p;
	return WEFT_OK;
}

/* The usable plugins in the order `auto` tries them: by score, highest
 * first, the first found first on ties. The one after `after` (NULL: the
 * first), or NULL. */
static weft__plugin *auto_rank_next(weft__plugin_set *set,
				    const weft__plugin *after)
{
	weft__plugin *best = NULL;

	for (size_t i = 0; i < set->n; i++) {
		weft__plugin *p = &set->items[i];
		if (!plugin_usable(p))
			continue;
		if (after &&
		    (p->probe.score > after->probe.score ||
		     (p->probe.score == after->probe.score && p <= after)))
			continue; /* tried already */
		if (!best || p->probe.score > best->probe.score)
			best = p;
	}
	return best;
}

weft_status weft__plugins_auto_next(weft_context *ctx, weft__plugin_set *set,
				    const weft__plugin *after,
				    weft__plugin **out)
{
	weft__plugin *p = auto_rank_next(set, after);

	*out = NULL;
	return p ? plugin_take(ctx, p, out) : WEFT_OK;
}

/* The available plugin with the highest score, the first found on ties.
 * With none, WEFT_E_UNAVAILABLE when some plugin loaded and its probe said
 * no, WEFT_E_PLUGIN when none got that far. */
static weft_status select_auto(weft_context *ctx, weft__plugin_set *set,
			       weft__plugin **out)
{
	weft_status st = WEFT_E_PLUGIN;
	char found[WEFT__MSG_MAX];
	weft__plugin *best = auto_rank_next(set, NULL);

	for (size_t i = 0; i < set->n; i++) {
		weft__plugin *p = &set->items[i];
		if (!p->shadowed && p->stage && strcmp(p->stage, "probe") == 0)
			st = WEFT_E_UNAVAILABLE;
	}
	if (best)
		return plugin_take(ctx, best, out);
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
	weft__plugin *p = weft__plugins_find(set, name);
	char avail[WEFT__MSG_MAX];

	if (!p)
		return select_missing(ctx, set, name);
	if (p->stage) {
		describe_available(set, avail, sizeof avail);
		return weft__fail(ctx, weft__plugin_status(p),
				  "backend '%s' is not available: %s: %s: %s; "
				  "available: %s",
				  name, p->path, p->stage, p->reason, avail);
	}
	return plugin_take(ctx, p, out);
}

/* A name, not a path ("./weft-backend-x.so") nor a file name
 * ("weft-backend-x.so", which is never opened from the current
 * directory). */
static weft_status check_name(weft_context *ctx, const char *name)
{
	size_t len = name ? strlen(name) : 0;

	if (!len)
		return weft__fail(ctx, WEFT_E_INVALID, "no backend name given");
	if (strchr(name, '/'))
		return weft__fail(ctx, WEFT_E_INVALID,
				  "backend '%s' looks like a path; a backend "
				  "is chosen by name (e.g. 'auto' or "
				  "'openmp'); to load a plugin file, set "
				  "[backend] plugin = PATH",
				  name);
	if (len > 3 && strcmp(name + len - 3, ".so") == 0)
		return weft__fail(ctx, WEFT_E_INVALID,
				  "'%s' is a file name, not a backend name; "
				  "give a plugin file as a path, such as ./%s",
				  name, name);
	return WEFT_OK;
}

weft_status weft__plugins_select(weft_context *ctx, weft__plugin_set *set,
				 const char *name, weft__plugin **out)
{
	weft_status st;

	*out = NULL;
	if (!set)
		return weft__fail(ctx, WEFT_E_INVALID, "no backend set given");
	if ((st = check_name(ctx, name)))
		return st;
	if (strcmp(name, "auto") == 0)
		return select_auto(ctx, set, out);
	return select_named(ctx, set, name, out);
}

/* A named backend: only the first weft-backend-NAME.so of the search path
 * is looked at and loaded. When it is missing or unusable, every plugin
 * is probed (in children) for the message: what is available, and the
 * closest name. keep_unavailable: a plugin refused by its probe is loaded
 * anyway (for harnesses that report why). */
static weft_status choose_named(weft_context *ctx, const char *plugin_path,
				const char *name, int keep_unavailable,
				weft__plugin_set **set, weft__plugin **own,
				weft__plugin **out)
{
	char *searched =
		weft__plugin_search_path(&weft__backend_kind, plugin_path);
	weft__plugin *p = NULL;
	weft_status st;

	if (!searched)
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	st = weft__plugin_find(ctx, &weft__backend_kind, searched, name, &p);
	free(searched);
	if (st == WEFT_OK && p &&
	    (!p->stage || (keep_unavailable && p->entry))) {
		*own = *out = p;
		return WEFT_OK;
	}
	weft__plugin_free(p);
	if (st == WEFT_OK)
		st = weft__plugins_scan(ctx, plugin_path, set);
	/* Usually fails, saying why; usable now if the file changed. */
	return st == WEFT_OK ? select_named(ctx, *set, name, out) : st;
}

weft_status weft__backend_choose(weft_context *ctx, const char *plugin_path,
				 const char *name, int keep_unavailable,
				 weft__plugin_set **set, weft__plugin **own,
				 weft__plugin **out)
{
	weft_status st;

	*set = NULL;
	*own = NULL;
	*out = NULL;
	if ((st = check_name(ctx, name)))
		return st;
	if (strcmp(name, "auto") != 0) {
		return choose_named(ctx, plugin_path, name, keep_unavailable,
				    set, own, out);
	}
	if ((st = weft__plugins_scan(ctx, plugin_path, set)))
		return st;
	return select_auto(ctx, *set, out);
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
		if (!weft__plugins_find(l->set, first_party[k].name) &&
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

/* ---- loading for harnesses (weft/harness.h) --------------------------------
 */

struct weft_backend_plugin {
	weft__plugin_set *set; /* when found by name */
	weft__plugin *own;     /* when given by path */
	weft__plugin *p;       /* the one */
};

/* By name, as a run chooses; a probe's no is kept when asked. */
static weft_status plugin_open_name(weft_context *ctx, weft_backend_plugin *bp,
				    const char *spec, const char *plugin_path,
				    unsigned flags)
{
	return weft__backend_choose(ctx, plugin_path, spec,
				    (flags & WEFT_PLUGIN_KEEP_UNAVAILABLE) != 0,
				    &bp->set, &bp->own, &bp->p);
}

weft_status weft_backend_plugin_open(weft_context *ctx, const char *spec,
				     const char *plugin_path, unsigned flags,
				     weft_backend_plugin **out)
{
	weft_backend_plugin *bp;
	weft_status st;

	if (!spec || !out)
		return weft__fail(ctx, WEFT_E_INVALID,
				  "weft_backend_plugin_open: NULL argument");
	*out = NULL;
	bp = calloc(1, sizeof *bp);
	if (!bp)
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	if (strchr(spec, '/')) {
		st = weft__plugin_open_path(
			ctx, &weft__backend_kind, spec,
			(flags & WEFT_PLUGIN_KEEP_UNAVAILABLE) != 0, &bp->own);
		bp->p = bp->own;
	} else {
		st = plugin_open_name(ctx, bp, spec, plugin_path, flags);
	}
	if (st != WEFT_OK) {
		weft_backend_plugin_close(bp);
		return st;
	}
	*out = bp;
	return WEFT_OK;
}

const weft_backend *weft_backend_plugin_table(const weft_backend_plugin *bp)
{
	return bp ? WEFT__BACKEND(bp->p) : NULL;
}

const char *weft_backend_plugin_path(const weft_backend_plugin *bp)
{
	return bp ? bp->p->path : "";
}

const weft_probe *weft_backend_plugin_probe(const weft_backend_plugin *bp)
{
	return bp ? &bp->p->probe : NULL;
}

void weft_backend_plugin_close(weft_backend_plugin *bp)
{
	if (!bp)
		return;
	weft__plugin_free(bp->own);
	weft__plugins_free(bp->set);
	free(bp);
}

/* ---- a program's needs --------------------------------------------------- */

static const struct {
	uint32_t bit;
	const char *what;
} cap_names[] = {
	{ WEFT_CAP_F64, "hardware double (WEFT_CAP_F64)" },
	{ WEFT_CAP_F32_EXACT,
	  "correctly rounded, uncontracted f32 (WEFT_CAP_F32_EXACT)" },
	{ WEFT_CAP_SUBNORMAL, "subnormal floats (WEFT_CAP_SUBNORMAL)" },
	{ WEFT_CAP_ATOMIC64, "64-bit atomics (WEFT_CAP_ATOMIC64)" },
};

/* "A and B" of the capabilities in caps (unknown bits in hex). */
static void caps_list(uint32_t caps, char *buf, size_t size)
{
	size_t n = 0, left = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof cap_names / sizeof cap_names[0]; i++)
		left += (caps & cap_names[i].bit) != 0;
	for (size_t i = 0;
	     i < sizeof cap_names / sizeof cap_names[0] && n < size; i++) {
		if (!(caps & cap_names[i].bit))
			continue;
		left--;
		n += (size_t)snprintf(buf + n, size - n, "%s%s",
				      cap_names[i].what,
				      !left	  ? ""
				      : left == 1 ? " and "
						  : ", ");
		caps &= ~cap_names[i].bit;
	}
	if (caps && n < size)
		snprintf(buf + n, size - n, "%sunknown capability bits %#x",
			 n ? " and " : "", (unsigned)caps);
}

/* The device's capabilities, and why some are missing; 0 and a reason
 * when the backend has no caps() or it fails. */
static uint32_t device_caps(const weft_backend *vt, weft_device *dev,
			    char *detail, size_t size)
{
	weft_device_caps c = { .struct_size = sizeof c };
	weft_error err = { { 0 } };
	weft_status st;

	/* Before caps() the dialect had floats but no doubles and no 64-bit
	 * atomics, and the conformance suite checked a backend's f32 against
	 * the host's bit for bit: a backend that does not report is taken to
	 * have what it was checked for, and nothing newer. */
	if (vt->struct_size < WEFT_BACKEND_V1_5_SIZE || !vt->caps) {
		snprintf(detail, size,
			 "the backend does not report capabilities (no caps(), "
			 "backend ABI 1.5), so it is taken to have only exact "
			 "f32 with subnormals");
		return WEFT_CAP_F32_EXACT | WEFT_CAP_SUBNORMAL;
	}
	st = vt->caps(dev, &c, &err);
	if (st != WEFT_OK) {
		snprintf(detail, size, "caps() failed: %s",
			 err.msg[0] ? err.msg : weft__status_str(st));
		return 0;
	}
	c.detail[sizeof c.detail - 1] = '\0';
	snprintf(detail, size, "%s",
		 c.detail[0] ? c.detail : "no reason given");
	return c.caps;
}

/* What pd needs (ABI 1.5; 0 for older descriptions). */
static uint32_t program_needs(const weft_program_desc *pd)
{
	if (!pd || pd->struct_size < WEFT_PROGRAM_DESC_V1_5_SIZE)
		return 0;
	return pd->needs;
}

void weft__backend_needs_list(const weft_program_desc *pd, char *buf,
			      size_t size)
{
	caps_list(program_needs(pd), buf, size);
}

int weft__backend_meets_needs(const weft_backend *vt, weft_device *dev,
			      const weft_program_desc *pd, char *why,
			      size_t size)
{
	char detail[512], missing[400];
	uint32_t want = program_needs(pd), have;

	if (size)
		why[0] = '\0';
	if (!want)
		return 1;
	have = device_caps(vt, dev, detail, sizeof detail);
	if (!(want & ~have))
		return 1;
	caps_list(want & ~have, missing, sizeof missing);
	if (size)
		snprintf(why, size, "no %s on its device: %s", missing, detail);
	return 0;
}

weft_status weft__backend_check_needs(weft_context *ctx, const char *model,
				      const char *path, const weft_backend *vt,
				      weft_device *dev,
				      const weft_program_desc *pd)
{
	char why[1024], needs[400];

	if (weft__backend_meets_needs(vt, dev, pd, why, sizeof why))
		return WEFT_OK;
	weft__backend_needs_list(pd, needs, sizeof needs);
	return weft__fail(ctx, WEFT_E_UNSUPPORTED,
			  "model '%s' needs %s; backend %s (%s) has %s",
			  model	     ? model
			  : pd->name ? pd->name
				     : "?",
			  needs, vt->name ? vt->name : "?", path ? path : "?",
			  why);
}
