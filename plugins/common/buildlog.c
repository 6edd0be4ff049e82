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
