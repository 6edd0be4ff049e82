/*
 * core/config_file.c - reading a configuration from an INI file with
 * inih.
 *
 * A line reader in front of inih sees every physical line first: it counts
 * lines (Debian's inih passes no line numbers), refuses lines inih would
 * split or misread, and checks the syntax and the section headers, so
 * that every error names its line. A section that is neither the core's
 * nor a model's already known is pending until the whole file is read
 * (config_model.c): its model may depend on [model] keys further down.
 */
#include "cfg.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdlib.h>
#include <string.h>

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
	int line;		 /* physical lines read */
	int fail_line;		 /* line of the first error */
	weft_status st;		 /* WEFT_OK until the first error */
	struct cfg_section *sec; /* section of the last header, or NULL */
	const char *prev; /* name of the last key set since that header */
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

/* The section a header names: known, or pending until the file is read
 * (a model's, config_model.c). */
static weft_status open_section(struct load *ld, const char *name)
{
	char where[WHERE_MAX];

	ld->sec = weft__cfg_find(ld->cfg, name);
	if (ld->sec)
		return WEFT_OK;
	weft__fmt(where, sizeof where, "%s:%d", ld->path, ld->line);
	if (!name[0] ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_-") !=
		    strlen(name))
		return weft__cfg_unknown_section(ld->ctx, ld->cfg, where, name,
						 NULL);
	ld->sec = weft__cfg_add(ld->cfg, name);
	if (!ld->sec)
		return weft__fail(ld->ctx, WEFT_E_NOMEM, "%s: out of memory",
				  where);
	ld->sec->pending = 1;
	ld->sec->header_line = ld->line;
	return WEFT_OK;
}

/* Keep a line of a pending section for later. */
static weft_status keep_raw(struct load *ld, const char *key, const char *value)
{
	struct cfg_section *s = ld->sec;
	struct cfg_raw *grown;

	grown = realloc(s->raw, (s->n_raw + 1) * sizeof *grown);
	if (!grown)
		return weft__fail(ld->ctx, WEFT_E_NOMEM, "%s:%d: out of memory",
				  ld->path, ld->line);
	s->raw = grown;
	grown[s->n_raw] = (struct cfg_raw){ weft__strdup(key),
					    weft__strdup(value), ld->line };
	if (!grown[s->n_raw].key || !grown[s->n_raw].value) {
		free(grown[s->n_raw].key);
		free(grown[s->n_raw].value);
		return weft__fail(ld->ctx, WEFT_E_NOMEM, "%s:%d: out of memory",
				  ld->path, ld->line);
	}
	s->n_raw++;
	return WEFT_OK;
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
	ld->prev = NULL;
	return open_section(ld, sec);
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
				  ld->sec->name, ld->prev, ld->prev_line);
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

weft_status weft__cfg_load_key(weft_context *ctx, const weft_config *cfg,
			       const char *path, int line,
			       struct cfg_section *s, const char *key,
			       const char *value)
{
	char where[WHERE_MAX];
	weft_status st;
	long k;

	weft__fmt(where, sizeof where, "%s:%d", path, line);
	if ((k = weft__cfg_find_key(s, key)) < 0)
		return weft__cfg_unknown_key(ctx, cfg, where, s, key);
	if (s->vals[k].line)
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s: [%s] %s is set twice (first at %s:%d); "
				  "remove one",
				  where, s->name, key, path, s->vals[k].line);
	st = weft__config_check(ctx, where, s->name, &s->keys[k], value);
	if (st == WEFT_OK)
		st = weft__cfg_store(ctx, s, (size_t)k, value, where);
	if (st == WEFT_OK)
		s->vals[k].line = line;
	return st;
}

static weft_status load_key(struct load *ld, const char *key, const char *value)
{
	const struct cfg_section *home;
	struct cfg_section *s = ld->sec;
	char where[WHERE_MAX];
	weft_status st;

	weft__fmt(where, sizeof where, "%s:%d", ld->path, ld->line);
	if (!*key)
		return weft__fail(ld->ctx, WEFT_E_CONFIG,
				  "%s: missing key name before '='", where);
	if (!s) {
		home = weft__cfg_section_of_key(ld->cfg, key);
		return weft__fail(ld->ctx, WEFT_E_CONFIG,
				  "%s: key '%s' is outside any section; put it "
				  "under a [section] header%s%s%s",
				  where, key, home ? " such as [" : "",
				  home ? home->name : "", home ? "]" : "");
	}
	if (s->pending) {
		st = keep_raw(ld, key, value);
		ld->prev = st == WEFT_OK ? s->raw[s->n_raw - 1].key : NULL;
		ld->prev_line = ld->line;
		return st;
	}
	st = weft__cfg_load_key(ld->ctx, ld->cfg, ld->path, ld->line, s, key,
				value);
	if (st != WEFT_OK)
		return st;
	ld->prev = s->keys[weft__cfg_find_key(s, key)].name;
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
	if (st == WEFT_OK)
		st = weft__cfg_resolve_pending(ctx, cfg, path);
	if (st != WEFT_OK)
		goto free_config;
	*out = cfg;
	return WEFT_OK;

free_config:
	weft_config_free(cfg);
	return st;
}
