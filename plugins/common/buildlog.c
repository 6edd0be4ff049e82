/*
 * plugins/common/buildlog.c - a failed build's log, shown whole
 * (buildlog.h).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buildlog.h"
#include "error.h"

/* Room kept for " (+N more)" after the quoted lines. */
#define MORE_ROOM 16

/* Whether the line s[0..n) is a compiler diagnostic, and an error: clang's
 * "file:3:5: error: ...", NVRTC's "file(3): error: ...", or a bare
 * "error: ...". 0 not one, 1 a warning or note, 2 an error. */
static int diagnostic(const char *s, size_t n)
{
	static const char *const kinds[] = { "error", "fatal error", "warning",
					     "note" };

	for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
		size_t kl = strlen(kinds[k]);

		for (size_t i = 0; i + kl < n; i++) {
			if (strncmp(s + i, kinds[k], kl) || s[i + kl] != ':')
				continue;
			if (i == 0 ||
			    (i >= 2 && s[i - 1] == ' ' && s[i - 2] == ':'))
				return k < 2 ? 2 : 1;
		}
	}
	return 0;
}

void weft__build_log_excerpt(const char *log, char *out, size_t size,
			     unsigned *left)
{
	size_t len = 0;

	*left = 0;
	out[0] = '\0';
	for (int want = 2; want >= 1; want--) {
		for (const char *p = log; *p;) {
			const char *eol = strchr(p, '\n');
			size_t n = eol ? (size_t)(eol - p) : strlen(p);
			size_t sep = len ? 3 : 0;

			while (n && (p[n - 1] == '\r' || p[n - 1] == ' '))
				n--;
			if (diagnostic(p, n) == want) {
				if (len + sep + n + 1 <= size) {
					snprintf(out + len, size - len,
						 "%s%.*s", sep ? " | " : "",
						 (int)n, p);
					len += sep + n;
				} else {
					(*left)++;
				}
			}
			p = eol ? eol + 1 : p + strlen(p);
		}
	}
}

/* ---- lines of a compiler that ignores #line --------------------------- */

/* A #line directive of the program text: the text's line after it (at,
 * 1-based) is line num of file. */
typedef struct line_mark {
	unsigned long at, num;
	const char *file; /* into the text; NULL: the one before */
	size_t file_len;
} line_mark;

/* Whether line s[0..n) is `#line NUM ["FILE"]`; fills m but m->at. */
static int line_directive(const char *s, size_t n, line_mark *m)
{
	const char *e = s + n, *q, *end;

	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	if (s == e || *s++ != '#')
		return 0;
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	if (e - s < 5 || strncmp(s, "line", 4) != 0 ||
	    (s[4] != ' ' && s[4] != '\t'))
		return 0;
	s += 5;
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	/* The digits within the line (a text need not end in a NUL). */
	m->num = 0;
	for (end = s; end < e && *end >= '0' && *end <= '9'; end++)
		m->num = m->num * 10 + (unsigned long)(*end - '0');
	if (end == s)
		return 0;
	m->file = NULL;
	m->file_len = 0;
	q = memchr(end, '"', (size_t)(e - end));
	if (q) {
		const char *close = memchr(q + 1, '"', (size_t)(e - q - 1));

		if (close) {
			m->file = q + 1;
			m->file_len = (size_t)(close - q - 1);
		}
	}
	return 1;
}

/* The #line directives of the joined texts, in order; *count of them.
 * A directive split between two texts is not seen (weft's are not). */
static line_mark *line_marks(const char *const *texts, const size_t *lens,
			     unsigned n, size_t *count)
{
	line_mark *marks = NULL, m;
	size_t cap = 0;
	unsigned long line = 1;
	const char *file = NULL;
	size_t file_len = 0;

	*count = 0;
	for (unsigned t = 0; t < n; t++) {
		const char *s = texts[t], *e = s + lens[t];

		while (s < e) {
			const char *eol = memchr(s, '\n', (size_t)(e - s));
			size_t len = eol ? (size_t)(eol - s) : (size_t)(e - s);

			if (line_directive(s, len, &m)) {
				if (*count == cap) {
					line_mark *more = realloc(
						marks,
						(cap = cap ? 2 * cap : 16) *
							sizeof *marks);
					if (!more) {
						free(marks);
						return NULL;
					}
					marks = more;
				}
				if (m.file)
					file = m.file, file_len = m.file_len;
				m.file = file, m.file_len = file_len;
				m.at = line + 1;
				marks[(*count)++] = m;
			}
			if (!eol)
				break;
			line++;
			s = eol + 1;
		}
	}
	return marks;
}

/* The mark that covers line L (the last one at or before it), or NULL. */
static const line_mark *line_mark_of(const line_mark *marks, size_t count,
				     unsigned long l)
{
	const line_mark *found = NULL;

	for (size_t i = 0; i < count && marks[i].at <= l; i++)
		found = &marks[i];
	return found && found->file ? found : NULL;
}

char *weft__build_log_reline(const char *log, const char *const *texts,
			     const size_t *lens, unsigned n)
{
	static const char tag[] = "<kernel>:";
	size_t count, cap = strlen(log) + 1, len = 0, changed = 0;
	line_mark *marks = line_marks(texts, lens, n, &count);
	char *out = marks ? malloc(cap) : NULL;

	for (const char *p = log; out && *p;) {
		const char *hit = strstr(p, tag), *num, *file = NULL;
		const line_mark *m = NULL;
		unsigned long l = 0;
		char *end = NULL, buf[32];
		size_t keep, add = 0, file_len = 0;

		if (hit) {
			num = hit + sizeof tag - 1;
			l = strtoul(num, &end, 10);
			if (end != num && *end == ':')
				m = line_mark_of(marks, count, l);
		}
		keep = m ? (size_t)(hit - p)
			 : (hit ? (size_t)(hit - p) + 1 : strlen(p));
		if (m) {
			file = m->file, file_len = m->file_len;
			add = file_len + (size_t)snprintf(buf, sizeof buf,
							  ":%lu",
							  m->num + (l - m->at));
		}
		if (len + keep + add + 1 > cap) {
			char *more =
				realloc(out, cap = 2 * (len + keep + add + 1));

			if (!more) {
				free(out);
				out = NULL;
				break;
			}
			out = more;
		}
		memcpy(out + len, p, keep);
		len += keep;
		p += keep;
		if (m) {
			memcpy(out + len, file, file_len);
			memcpy(out + len + file_len, buf, add - file_len);
			len += add;
			p = end;
			changed++;
		}
	}
	free(marks);
	if (out && !changed) {
		free(out);
		return NULL;
	}
	if (out)
		out[len] = '\0';
	return out;
}

/* The program's name as part of a file name: [A-Za-z0-9_-], at most 32. */
static void file_part(const char *name, char *out, size_t size)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < size && i < 32; i++) {
		char c = name[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '_' || c == '-';

		out[i] = ok ? c : '_';
	}
	out[i] = '\0';
}

/* The log into a new file; its path in path[size], or a note saying why
 * there is none. 0 when saved. */
static int save_log(const char *backend, const char *program, const char *log,
		    char *path, size_t size)
{
	const char *dir = getenv("TMPDIR");
	char part[40];
	size_t n = strlen(log);
	int fd, e;
	FILE *f;

	if (!dir || !dir[0])
		dir = "/tmp";
	file_part(program, part, sizeof part);
	if ((size_t)snprintf(path, size, "%s/weft-%s-%s-XXXXXX.log", dir, part,
			     backend) >= size) {
		snprintf(path, size, "not saved: TMPDIR is too long");
		return -1;
	}
	fd = mkstemps(path, 4);
	if (fd < 0) {
		e = errno;
		snprintf(path, size, "not saved: %s/: %s", dir, strerror(e));
		return -1;
	}
	f = fdopen(fd, "w");
	if (!f) {
		e = errno;
		close(fd);
		goto remove_file;
	}
	if (fwrite(log, 1, n, f) != n ||
	    (n && log[n - 1] != '\n' && fputc('\n', f) == EOF)) {
		e = errno;
		fclose(f);
		goto remove_file;
	}
	if (fclose(f) != 0) {
		e = errno;
		goto remove_file;
	}
	return 0;

remove_file: /* ours, made by mkstemps above */
	remove(path);
	snprintf(path, size, "not saved: %s", strerror(e));
	return -1;
}

weft_status weft__build_failed(const char *backend, weft_error *err,
			       weft_status st, const char *program,
			       const char *log, const char *fmt, ...)
{
	char head[WEFT_ERROR_MAX], path[WEFT_ERROR_MAX / 2];
	char lines[WEFT_ERROR_MAX];
	size_t room, used;
	unsigned left = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(head, sizeof head, fmt, ap);
	va_end(ap);
	if (!log || !log[0])
		return weft__errf(backend, err, st,
				  "%s: the compiler left no log", head);
	save_log(backend, program, log, path, sizeof path);
	/* What the quoted lines may take: the message less "BACKEND: ",
	 * the head, " (whole log: PATH): " and room for " (+N more)". */
	used = strlen(backend) + 2 + strlen(head) + strlen(" (whole log: ") +
	       strlen(path) + strlen("): ") + MORE_ROOM + 1;
	room = used < WEFT_ERROR_MAX ? WEFT_ERROR_MAX - used : 0;
	if (room > sizeof lines)
		room = sizeof lines;
	if (room)
		weft__build_log_excerpt(log, lines, room, &left);
	else
		lines[0] = '\0';
	if (!lines[0] && !left)
		snprintf(lines, sizeof lines, "no line of it says error");
	if (left)
		return weft__errf(backend, err, st,
				  "%s (whole log: %s): %s%s(+%u more)", head,
				  path, lines, lines[0] ? " " : "", left);
	return weft__errf(backend, err, st, "%s (whole log: %s): %s", head,
			  path, lines);
}
