/*
 * core/plugin/envs.c - the environment ids of the available models
 * (weft_env_list_*, weft/weft.h; `weft envs`). Found by the scan that
 * `weft models` makes: each model's check, in a child, writes its env
 * table as text (weft__plugin.env, models.c), which is read back here,
 * so that listing the ids loads no model into this process. The first
 * model on the path wins an id, as it wins a name; the list is sorted
 * by id.
 */
#include "plugin/plugin.h"

#include <stdlib.h>
#include <string.h>

struct weft_env_list {
	weft_env_entry *items;
	size_t n;
	char **strings; /* everything the entries point to */
	size_t n_strings;
};

/* A copy of s[0..n) owned by l, or NULL. */
static const char *list_str(weft_env_list *l, const char *s, size_t n)
{
	char **grown = realloc(l->strings, (l->n_strings + 1) * sizeof *grown);
	char *c;

	if (!grown)
		return NULL;
	l->strings = grown;
	if (!(c = strndup(s, n)))
		return NULL;
	grown[l->n_strings++] = c;
	return c;
}

/* Field i of a record of length len ('\x1f'-separated): start and
 * length. */
static void field(const char *rec, size_t len, int i, const char **s, size_t *n)
{
	const char *end = rec + len;

	*s = rec;
	for (; i > 0 && *s < end; i--) {
		const char *fs = memchr(*s, WEFT__ENV_FS, (size_t)(end - *s));
		*s = fs ? fs + 1 : end;
	}
	*n = strcspn(*s, "\x1f\x1e");
	if (*s + *n > end)
		*n = (size_t)(end - *s);
}

/* "section.key" for a key of the model's section ("" for none). */
static const char *section_key(weft_env_list *l, const char *model,
			       const char *key, size_t n)
{
	size_t len = strlen(model) + n + 2;
	char *buf;
	const char *c;

	if (n == 0)
		return list_str(l, "", 0);
	if (!(buf = malloc(len)))
		return NULL;
	snprintf(buf, len, "%s.%.*s", model, (int)n, key);
	c = list_str(l, buf, len - 1);
	free(buf);
	return c;
}

static int have_id(const weft_env_list *l, const char *id, size_t n)
{
	for (size_t i = 0; i < l->n; i++)
		if (strlen(l->items[i].id) == n &&
		    strncmp(l->items[i].id, id, n) == 0)
			return 1;
	return 0;
}

/* One id record of a model whose model, path and keys are e0's; a
 * duplicate of an id listed already is skipped. -1 for want of memory. */
static int add_id(weft_env_list *l, const weft_env_entry *e0, const char *rec,
		  size_t len)
{
	weft_env_entry *grown, *e;
	const char *s;
	size_t n;

	field(rec, len, 0, &s, &n);
	if (have_id(l, s, n))
		return 0;
	grown = realloc(l->items, (l->n + 1) * sizeof *grown);
	if (!grown)
		return -1;
	l->items = grown;
	e = &grown[l->n];
	*e = *e0;
	e->id = list_str(l, s, n);
	field(rec, len, 1, &s, &n);
	e->max_episode_steps = (uint32_t)strtoul(s, NULL, 10);
	field(rec, len, 2, &s, &n);
	e->summary = list_str(l, s, n);
	field(rec, len, 3, &s, &n);
	e->sets = list_str(l, s, n);
	field(rec, len, 4, &s, &n);
	e->has_reward_threshold = n > 0;
	e->reward_threshold = n > 0 ? strtod(s, NULL) : 0.0;
	if (!e->id || !e->summary || !e->sets)
		return -1;
	l->n++;
	return 0;
}

/* Every id of an available model p. -1 for want of memory. */
static int add_model(weft_env_list *l, const weft__plugin *p)
{
	weft_env_entry e0 = { 0 };
	const char *text = p->env, *rec = text, *s;
	size_t len, n;

	len = strcspn(rec, "\x1e");
	e0.model = list_str(l, p->name, strlen(p->name));
	e0.path = list_str(l, p->path, strlen(p->path));
	field(rec, len, 0, &s, &n);
	e0.count_key = section_key(l, p->name, s, n);
	field(rec, len, 1, &s, &n);
	e0.autoreset_key = section_key(l, p->name, s, n);
	field(rec, len, 2, &s, &n);
	e0.precision_key = section_key(l, p->name, s, n);
	if (!e0.model || !e0.path || !e0.count_key || !e0.autoreset_key ||
	    !e0.precision_key)
		return -1;
	while (rec[len] == WEFT__ENV_RS) {
		rec += len + 1;
		len = strcspn(rec, "\x1e");
		if (add_id(l, &e0, rec, len))
			return -1;
	}
	return 0;
}

static int by_id(const void *a, const void *b)
{
	return strcmp(((const weft_env_entry *)a)->id,
		      ((const weft_env_entry *)b)->id);
}

weft_status weft_env_list_scan(weft_context *ctx, const char *model_path,
			       weft_env_list **out)
{
	weft__plugin_set *set;
	weft_env_list *l;
	weft_status st;

	if (!out)
		return weft__fail(ctx, WEFT_E_INVALID,
				  "weft_env_list_scan: out is NULL");
	*out = NULL;
	if ((st = weft__plugins_scan_kind(ctx, &weft__model_kind, model_path,
					  &set)))
		return st;
	l = calloc(1, sizeof *l);
	for (size_t i = 0; l && i < set->n; i++) {
		const weft__plugin *p = &set->items[i];

		if (p->stage || p->shadowed || !p->env)
			continue;
		if (add_model(l, p)) {
			weft_env_list_free(l);
			l = NULL;
		}
	}
	weft__plugins_free(set);
	if (!l)
		return weft__fail(ctx, WEFT_E_NOMEM,
				  "out of memory listing environments");
	if (l->n)
		qsort(l->items, l->n, sizeof *l->items, by_id);
	*out = l;
	return WEFT_OK;
}

size_t weft_env_list_count(const weft_env_list *l)
{
	return l ? l->n : 0;
}

const weft_env_entry *weft_env_list_at(const weft_env_list *l, size_t i)
{
	return l && i < l->n ? &l->items[i] : NULL;
}

const weft_env_entry *weft_env_list_find(const weft_env_list *l, const char *id)
{
	for (size_t i = 0; l && id && i < l->n; i++)
		if (strcmp(l->items[i].id, id) == 0)
			return &l->items[i];
	return NULL;
}

void weft_env_list_free(weft_env_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n_strings; i++)
		free(l->strings[i]);
	free(l->strings);
	free(l->items);
	free(l);
}
