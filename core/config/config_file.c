/*
 * core/config/config_file.c - reading a configuration from an INI file with
 * inih.
 *
 * A line reader in front of inih sees every physical line first: it counts
 * lines (Debian's inih passes no line numbers), refuses lines inih would
 * split or misread, and checks the syntax and the section headers, so
 * that every error names its line. A section that is neither the core's
 * nor a model's already known is pending until the whole file is read
 * (config_model.c): its model may depend on [model] keys further down.
 */
#include "config/cfg.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- reading a file ----------------------------------------------------- */

/* The most bytes a configuration file may hold: a run is described in a
 * few kilobytes, and a file that goes on (/dev/zero, a log given by
 * mistake) is refused at once, with memory bounded, rather than read. */
#define CONFIG_MAX_BYTES (1u << 20)

/* State shared by the line reader and the key handler. The reader sees
 * every physical line first: it counts lines (Debian's inih passes no line
 * numbers), refuses lines inih would split, and checks the syntax and the
 * section headers, so that every error names its line. */
struct load {
	weft_context *ctx;
	weft_config *cfg;
	const char *path;
	FILE *f;
	char *buf;	/* the line read, as much as inih's buffer takes */
	int line;	/* physical lines read */
	size_t bytes;	/* bytes read, ends of lines included */
	int fail_line;	/* line of the first error */
	weft_status st; /* WEFT_OK until the first error */
	struct cfg_section *sec; /* section of the last header, or NULL */
	size_t ens;		 /* or 1 + its index in cfg->t->ens: a
				  * [sweep] or [scenario NAME] */
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

/* Keep a line for later: of a pending section, or of a [sweep] or
 * [scenario NAME]. */
static weft_status keep_line(struct load *ld, struct cfg_raw **raw,
			     size_t *n_raw, const char *key, const char *value)
{
	struct cfg_raw *grown;

	grown = realloc(*raw, (*n_raw + 1) * sizeof *grown);
	if (!grown)
		return weft__fail(ld->ctx, WEFT_E_NOMEM, "%s:%d: out of memory",
				  ld->path, ld->line);
	*raw = grown;
	grown[*n_raw] = (struct cfg_raw){ weft__strdup(key),
					  weft__strdup(value), ld->line };
	if (!grown[*n_raw].key || !grown[*n_raw].value) {
		free(grown[*n_raw].key);
		free(grown[*n_raw].value);
		return weft__fail(ld->ctx, WEFT_E_NOMEM, "%s:%d: out of memory",
				  ld->path, ld->line);
	}
	(*n_raw)++;
	return WEFT_OK;
}

static weft_status keep_raw(struct load *ld, const char *key, const char *value)
{
	return keep_line(ld, &ld->sec->raw, &ld->sec->n_raw, key, value);
}

/* [sweep], or [scenario NAME]: NAME names directories and files of the
 * ensemble's outputs. */
static int is_ens_header(const char *name)
{
	return strcmp(name, "sweep") == 0 ||
	       (strncmp(name, "scenario", 8) == 0 &&
		(name[8] == '\0' || isspace((unsigned char)name[8])));
}

static weft_status check_scenario_name(struct load *ld, const char *name)
{
	static const char *const taken[] = { "summary", "compare", "runs",
					     "differences" };
	size_t len = strlen(name);

	if (!len || len > 64 ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyz"
			 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != len)
		return weft__fail(ld->ctx, WEFT_E_CONFIG,
				  "%s:%d: [scenario %s]: a scenario needs a "
				  "name of 1 to 64 letters, digits, '_' or "
				  "'-' ([scenario school-closure]): it names "
				  "its files",
				  ld->path, ld->line, name);
	for (size_t i = 0; i < sizeof taken / sizeof *taken; i++)
		if (strcmp(name, taken[i]) == 0)
			return weft__fail(ld->ctx, WEFT_E_CONFIG,
					  "%s:%d: [scenario %s]: '%s' names "
					  "one of the ensemble's own outputs "
					  "(summary, compare, runs, "
					  "differences); choose "
					  "another name",
					  ld->path, ld->line, name, name);
	return WEFT_OK;
}

static weft_status open_ens_section(struct load *ld, const char *header)
{
	struct cfg_table *t = ld->cfg->t;
	int sweep = strcmp(header, "sweep") == 0;
	const char *name = sweep ? header : skip_space(header + 8);
	struct cfg_ens_section *grown;
	weft_status st;

	ld->sec = NULL;
	if (!sweep && (st = check_scenario_name(ld, name)))
		return st;
	for (size_t i = 0; i < t->n_ens; i++)
		if (t->ens[i].is_sweep == sweep &&
		    strcmp(t->ens[i].name, name) == 0)
			return weft__fail(ld->ctx, WEFT_E_CONFIG,
					  "%s:%d: [%s] appears twice (first at "
					  "line %d); %s",
					  ld->path, ld->line, header,
					  t->ens[i].header_line,
					  sweep ? "put its keys under one "
						  "[sweep]"
						: "scenario names are unique");
	grown = realloc(t->ens, (t->n_ens + 1) * sizeof *grown);
	if (!grown)
		return weft__fail(ld->ctx, WEFT_E_NOMEM, "%s:%d: out of memory",
				  ld->path, ld->line);
	t->ens = grown;
	grown[t->n_ens] = (struct cfg_ens_section){
		.name = weft__strdup(name),
		.is_sweep = sweep,
		.header_line = ld->line,
	};
	if (!grown[t->n_ens].name)
		return weft__fail(ld->ctx, WEFT_E_NOMEM, "%s:%d: out of memory",
				  ld->path, ld->line);
	ld->ens = ++t->n_ens;
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
	ld->ens = 0;
	if (is_ens_header(sec))
		return open_ens_section(ld, sec);
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

/* A byte a configuration may not hold: a control character other than a
 * tab (and the end of line), or DEL. */
static int is_control(int c)
{
	return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f;
}

/* "FILE:LINE: ... at column C: 'TEXT'", TEXT the line up to the byte
 * and escaped, so that raw bytes never reach a terminal. */
static weft_status bad_byte(struct load *ld, size_t kept, size_t col, int c)
{
	char shown[WEFT__MSG_MAX / 4];

	weft__escape(shown, sizeof shown, ld->buf, kept);
	return weft__fail(ld->ctx, WEFT_E_CONFIG,
			  "%s:%d: %s (\\x%02x) at column %zu: '%s': a "
			  "configuration holds text only",
			  ld->path, ld->line + 1,
			  c == 0 ? "a NUL byte" : "a control character", c, col,
			  shown);
}

/* The next byte of the file; EOF at its end, or (ld->st set) past
 * CONFIG_MAX_BYTES. */
static int next_byte(struct load *ld)
{
	int c = getc(ld->f);

	if (c == EOF || ++ld->bytes <= CONFIG_MAX_BYTES)
		return c;
	ld->st = weft__fail(ld->ctx, WEFT_E_CONFIG,
			    "%s:%d: the file goes on past %u bytes, the most a "
			    "configuration may hold; is it the right file?",
			    ld->path, ld->line + 1, CONFIG_MAX_BYTES);
	return EOF;
}

/* The next physical line into ld->buf (room bytes: what fits of it, and
 * a NUL), *text its length without the end of line (bytes past the room
 * are counted, not kept). 1 for a line, 0 at the end of the file, -1 on a
 * read error, a control character, a file too large or a cancellation
 * (ld->st says which). Memory stays bounded whatever the line's length. */
static int next_line(struct load *ld, size_t room, size_t *text)
{
	size_t n = 0;
	int c = EOF;

	while ((c = next_byte(ld)) != EOF && c != '\n') {
		int next = c == '\r' ? next_byte(ld) : EOF;
		if (ld->st != WEFT_OK)
			return -1;
		if (c == '\r' && next == '\n') {
			c = next; /* CRLF */
			break;
		}
		if (c == '\r' || is_control(c)) {
			ld->st =
				bad_byte(ld, n < room ? n : room - 1, n + 1, c);
			return -1;
		}
		if (n + 1 < room)
			ld->buf[n] = (char)c;
		if (++n % 65536 == 0 && weft__cancelled(ld->ctx)) {
			ld->st = weft__cancel_fail(ld->ctx, "reading %s",
						   ld->path);
			return -1;
		}
	}
	if (ld->st != WEFT_OK)
		return -1;
	if (c == EOF && ferror(ld->f)) {
		ld->st =
			weft__fail(ld->ctx, WEFT_E_CONFIG, "cannot read %s: %s",
				   ld->path, strerror(errno));
		return -1;
	}
	ld->buf[n < room ? n : room - 1] = '\0';
	*text = n;
	return n > 0 || c == '\n';
}

/* inih's reader: one physical line per call. */
static char *read_line(char *str, int num, void *stream)
{
	struct load *ld = stream;
	size_t max = num > 3 ? (size_t)num - 3 : 0; /* room for \r\n\0 */
	size_t text;
	int got;

	if (ld->st != WEFT_OK)
		return NULL; /* stop inih at the first error */
	if (!ld->buf && !(ld->buf = malloc((size_t)num))) {
		ld->st = weft__fail(ld->ctx, WEFT_E_NOMEM, "%s: out of memory",
				    ld->path);
		return NULL;
	}
	errno = 0;
	got = next_line(ld, (size_t)num, &text);
	if (got <= 0) {
		if (got < 0)
			ld->fail_line = ld->line + 1;
		return NULL;
	}
	ld->line++;
	/* Between lines (reading one may have waited, on a pipe). */
	if (weft__cancelled(ld->ctx))
		ld->st = weft__cancel_fail(ld->ctx, "reading %s (line %d)",
					   ld->path, ld->line);
	else if (text > max)
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
	memcpy(str, ld->buf, text);
	str[text] = '\n';
	str[text + 1] = '\0';
	return str;
}

/* ---- paths relative to the file ------------------------------------------ */

/* Keys that name inputs (plugin files and directories to search, the
 * data [calibration] fits): their
 * relative paths are taken from the INI file's directory, so that a
 * configuration and its plugins can move together. Outputs ([output]
 * directory, [backend] cache_dir) go where the run is started. */
static int is_path_key(const struct cfg_section *s, const char *key)
{
	if (s->plugin)
		return 0;
	if (strcmp(s->name, "calibration") == 0)
		return strcmp(key, "data") == 0;
	return (strcmp(s->name, "backend") == 0 ||
		strcmp(s->name, "model") == 0) &&
	       (strcmp(key, "plugin") == 0 || strcmp(key, "plugin_path") == 0);
}

/* One path (of len bytes) from dir: as it is when absolute or empty; dir
 * for "."; else dir/path. Appended to out (of size bytes). */
/* Append to out what fmt makes: 1, or 0 when it does not fit whole. */
static int add_text(char *out, size_t size, const char *fmt, ...)
	WEFT_PRINTF(3, 4);
static int add_text(char *out, size_t size, const char *fmt, ...)
{
	size_t used = strlen(out);
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(out + used, size - used, fmt, ap);
	va_end(ap);
	return k >= 0 && (size_t)k < size - used;
}

/* path[0..len) taken from dir, appended to out: 0 when it does not fit. */
static int add_path(char *out, size_t size, const char *dir, const char *path,
		    size_t len)
{
	while (len > 2 && path[0] == '.' && path[1] == '/') {
		path += 2; /* "./x.so" is "x.so" */
		len -= 2;
	}
	if (!len || path[0] == '/')
		return add_text(out, size, "%.*s", (int)len, path);
	if (len == 1 && path[0] == '.')
		return add_text(out, size, "%s", dir);
	return add_text(out, size, "%s/%.*s", dir, (int)len, path);
}

/* value of key as read from file: relative paths taken from the file's
 * directory (each of a ':'-separated list), into out. A [model] plugin
 * that is a bare model name stays as it is (validation says what to
 * write instead). 0 when the result does not fit in out (never cut). */
static int resolve_paths(const char *file, const struct cfg_section *s,
			 const char *key, const char *value, char *out,
			 size_t size)
{
	const char *slash = strrchr(file, '/');
	char dir[WEFT__MSG_MAX] = "";
	int list = strcmp(key, "plugin_path") == 0;

	out[0] = '\0';
	if (!slash || !is_path_key(s, key) ||
	    (!list && !strchr(value, '/') &&
	     strcmp(s->name, "calibration") != 0 &&
	     strspn(value, "abcdefghijklmnopqrstuvwxyz0123456789_") ==
		     strlen(value)))
		return add_text(out, size, "%s", value);
	if (!add_text(dir, sizeof dir, "%.*s",
		      slash == file ? 1 : (int)(slash - file), file))
		return 0;
	for (const char *p = value;; p++) {
		size_t n = list ? strcspn(p, ":") : strlen(p);
		if (!add_path(out, size, dir, p, n))
			return 0;
		p += n;
		if (!*p)
			return 1;
		if (!add_text(out, size, ":"))
			return 0;
	}
}

weft_status weft__cfg_load_key(weft_context *ctx, const weft_config *cfg,
			       const char *path, int line,
			       struct cfg_section *s, const char *key,
			       const char *raw)
{
	char where[WHERE_MAX], value[WEFT__MSG_MAX];
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
	if (!resolve_paths(path, s, key, raw, value, sizeof value)) {
		char shown[160];
		weft__path_shown(shown, sizeof shown, raw);
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s: [%s] %s = %s: longer than %zu bytes%s",
				  where, s->name, key, shown, sizeof value - 1,
				  is_path_key(s, key) ? " once taken from the "
							"file's directory"
						      : "");
	}
	st = weft__value_check(ctx, where, s->name, &s->keys[k], value);
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
	if (ld->ens) {
		struct cfg_ens_section *e = &ld->cfg->t->ens[ld->ens - 1];
		return keep_line(ld, &e->raw, &e->n_raw, key, value);
	}
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
	if (weft__cfg_calib_is_line(s, key)) {
		st = weft__cfg_calib_line(ld->ctx, ld->cfg, s, where, ld->line,
					  key, value);
		ld->prev = NULL;
		for (size_t i = 0; st == WEFT_OK && i < s->n_lines; i++)
			if (strcmp(s->lines[i].key, key) == 0)
				ld->prev = s->lines[i].key;
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

/* The file at path, to read: a regular file only, so that a FIFO with no
 * writer (or a device) is refused at once rather than waited on. Its size
 * is bounded as it is read (next_byte()), naming the line past the
 * bound. */
static weft_status config_open(weft_context *ctx, const char *path, FILE **f)
{
	char shown[WEFT__MSG_MAX / 2];
	uint64_t size;
	int fd;

	weft__fmt(shown, sizeof shown, "configuration file %s", path);
	/* A file that cannot be read is the configuration's error. */
	if (weft__open_regular(ctx, AT_FDCWD, path, shown, UINT64_MAX, &fd,
			       &size))
		return WEFT_E_CONFIG;
	if ((*f = fdopen(fd, "rb")))
		return WEFT_OK;
	close(fd);
	return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
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
	st = weft__config_new(ctx, &cfg);
	if (st != WEFT_OK)
		return st;
	if ((st = config_open(ctx, path, &f)))
		goto free_config;
	cfg->t->path = weft__strdup(path);
	st = cfg->t->path ? parse_file(ctx, cfg, path, f)
			  : weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	fclose(f);
	if (st == WEFT_OK)
		st = weft__cfg_resolve_pending(ctx, cfg, path);
	if (st == WEFT_OK)
		st = weft__cfg_calib_check(ctx, cfg);
	if (st != WEFT_OK)
		goto free_config;
	*out = cfg;
	return WEFT_OK;

free_config:
	weft__config_free(cfg);
	return st;
}
