/*
 * core/util/value.c - one text value against its declaration (a
 * weft_key_desc): integers, reals, booleans, choices, with messages that
 * say what the key accepts and suggest the closest choice. The
 * configuration checks every value with it, and the plugin loader a
 * model's declared defaults.
 */
#include "util/util.h"

#include <ctype.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* strtod() in the C locale whatever the application chose: a config file
 * means the same thing everywhere. */
double weft__parse_real(const char *s, char **end)
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
int weft__parse_bool(const char *s, int *b)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };

	for (size_t i = 0; i < (sizeof yes / sizeof yes[0]); i++) {
		if (strcasecmp(s, yes[i]) == 0 || strcasecmp(s, no[i]) == 0) {
			*b = strcasecmp(s, yes[i]) == 0;
			return 1;
		}
	}
	return 0;
}

/* The choices of an ENUM key, split at '|'. */
void weft__choices_split(const char *list, struct weft__choices *c)
{
	char *save = NULL;

	c->n = 0;
	weft__fmt(c->buf, sizeof c->buf, "%s", list ? list : "");
	for (char *p = strtok_r(c->buf, "|", &save);
	     p && c->n < (sizeof c->name / sizeof c->name[0]);
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
void weft__suggest(char *buf, size_t size, const char *word,
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
	struct weft__choices c;
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
		weft__fmt(buf, size, "a boolean (%s)", WEFT__BOOL_SPELLINGS);
		return;
	case WEFT_KEY_ENUM:
		weft__choices_split(d->choices, &c);
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
	weft__parse_real(s, &end);
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
	v = weft__parse_real(text, &end);
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
	char accepts[sizeof(struct weft__choices) * 2];
	char hint[WEFT__MSG_MAX / 2];
	struct weft__choices c;

	weft__choices_split(d->choices, &c);
	for (size_t i = 0; i < c.n; i++)
		if (strcmp(c.name[i], text) == 0)
			return 1;
	describe(d, accepts, sizeof accepts);
	hint[0] = '\0';
	if (weft__closest(text, c.name, c.n))
		weft__suggest(hint, sizeof hint, text, c.name, c.n, "'", "'",
			      "");
	weft__fmt(why, size, "expected %s%s", accepts, hint);
	return 0;
}

/* Check text against its declaration; on failure the message reads
 * "WHERE: [SECTION] KEY = TEXT: what is wrong". */
weft_status weft__value_check(weft_context *ctx, const char *where,
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
	else if (d->type == WEFT_KEY_BOOL && !(ok = weft__parse_bool(text, &b)))
		weft__fmt(why, sizeof why, "expected a boolean: %s",
			  WEFT__BOOL_SPELLINGS);
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
