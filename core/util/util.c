/*
 * core/util/util.c - error messages, strings and the clock, for the whole core.
 */
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <ftw.h>
#include <unistd.h>

const char *weft_status_str(weft_status st)
{
	return weft__status_str(st);
}

const char *weft__status_str(weft_status st)
{
	switch (st) {
	case WEFT_OK: return "ok";
	case WEFT_E_INVALID: return "invalid argument";
	case WEFT_E_NOMEM: return "out of memory";
	case WEFT_E_IO: return "input/output error";
	case WEFT_E_CONFIG: return "configuration error";
	case WEFT_E_PLUGIN: return "plugin error";
	case WEFT_E_UNAVAILABLE: return "backend unavailable";
	case WEFT_E_DEVICE: return "device error";
	case WEFT_E_MODEL: return "model error";
	case WEFT_E_UNSUPPORTED: return "not supported";
	case WEFT_E_INTERNAL: return "internal error";
	case WEFT_E_CANCELLED: return "cancelled";
	}
	return "unknown status";
}

/* Formatted into a copy first: callers may wrap the context's own message
 * ("%s: [model] plugin = %s", where, weft_context_error(ctx)), and
 * vsnprintf() from a buffer into itself is undefined (glibc overwrote the
 * start of the message while still reading it). */
weft_status weft__vfail(weft_context *ctx, weft_status st, const char *fmt,
			va_list ap)
{
	char msg[WEFT__MSG_MAX];

	if (ctx) {
		vsnprintf(msg, sizeof msg, fmt, ap);
		memcpy(ctx->msg, msg, strlen(msg) + 1);
	}
	return st;
}

weft_status weft__fail(weft_context *ctx, weft_status st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	weft__vfail(ctx, st, fmt, ap);
	va_end(ap);
	return st;
}

void weft__fmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

void weft__msg_add(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	if (len + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

char *weft__strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

void weft__escape(char *buf, size_t size, const char *text, size_t len)
{
	size_t n = 0;

	if (!size)
		return;
	for (size_t i = 0; i < len && n + 5 < size; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c < 0x20 || c == 0x7f)
			n += (size_t)snprintf(buf + n, size - n, "\\x%02x", c);
		else
			buf[n++] = (char)c;
	}
	buf[n] = '\0';
}

void weft__where_key(char *buf, size_t size, const char *where,
		     const char *section, const char *key, const char *value)
{
	char shown[WEFT__MSG_MAX / 4];

	weft__escape(shown, sizeof shown, value, strlen(value));
	if (!where || strcmp(where, "default") == 0)
		weft__fmt(buf, size, "[%s] %s = %s (the default)", section, key,
			  shown);
	else
		weft__fmt(buf, size, "%s: [%s] %s = %s", where, section, key,
			  shown);
}

char *weft__path_join(const char *dir, const char *file)
{
	size_t dl = strlen(dir);
	const char *sep = dl > 0 && dir[dl - 1] == '/' ? "" : "/";
	size_t n = dl + strlen(sep) + strlen(file) + 1;
	char *path = malloc(n);

	if (path)
		snprintf(path, n, "%s%s%s", dir, sep, file);
	return path;
}

/* n with its thousands grouped: "4,012". */
static void util_grouped(char *buf, size_t size, size_t n)
{
	char digits[32];
	int len = snprintf(digits, sizeof digits, "%zu", n);
	size_t o = 0;

	for (int i = 0; i < len && o + 2 < size; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
}

void weft__path_shown(char *buf, size_t size, const char *path)
{
	enum { HEAD = 48, TAIL = 32 };
	size_t len = strlen(path);
	char head[HEAD * 4 + 1], tail[TAIL * 4 + 1], bytes[32];

	if (len <= HEAD + TAIL + 3) {
		weft__escape(buf, size, path, len);
		return;
	}
	weft__escape(head, sizeof head, path, HEAD);
	weft__escape(tail, sizeof tail, path + len - TAIL, TAIL);
	util_grouped(bytes, sizeof bytes, len);
	weft__fmt(buf, size, "%s...%s (%s bytes)", head, tail, bytes);
}

weft_status weft__fmt_path(weft_context *ctx, char *buf, size_t size,
			   const char *what, const char *fmt, ...)
{
	char shown[400], most[32];
	char *whole = NULL;
	va_list ap, again;
	int n;

	va_start(ap, fmt);
	va_copy(again, ap);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < size) {
		va_end(again);
		return WEFT_OK;
	}
	/* The whole path, to name it by its end too. */
	if (n > 0 && (whole = malloc((size_t)n + 1)))
		vsnprintf(whole, (size_t)n + 1, fmt, again);
	va_end(again);
	weft__path_shown(shown, sizeof shown, whole ? whole : buf);
	free(whole);
	if (size)
		buf[0] = '\0';
	util_grouped(most, sizeof most, size ? size - 1 : 0);
	return weft__fail(ctx, WEFT_E_INVALID,
			  "%s %s: too long, a path holds at most %s bytes",
			  what, shown, most);
}

char *weft__strcat(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	char *d = malloc(na + nb + 1);

	if (!d)
		return NULL;
	memcpy(d, a, na);
	memcpy(d + na, b, nb + 1);
	return d;
}

size_t weft__edit_distance(const char *a, const char *b, size_t cap)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[64];

	/* Long words are never typos of each other in our vocabularies. */
	if (lb >= sizeof row / sizeof row[0] || la >= 64)
		return cap;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0], best;
		row[0] = i;
		best = row[0];
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
			size_t v = diag + cost;
			if (row[j] + 1 < v)
				v = row[j] + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			diag = up;
			if (v < best)
				best = v;
		}
		if (best >= cap)
			return cap;
	}
	return row[lb] < cap ? row[lb] : cap;
}

const char *weft__closest(const char *word, const char *const *cands, size_t n)
{
	const char *best = NULL;
	size_t len = strlen(word);
	/* Allow about a third of the word to be wrong, at least one edit. */
	size_t best_d = len / 3 + 2;

	for (size_t i = 0; i < n; i++) {
		size_t d = weft__edit_distance(word, cands[i], best_d);
		if (d < best_d) {
			best_d = d;
			best = cands[i];
		}
	}
	return best;
}

uint64_t weft__now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- rm -r ----------------------------------------------------------------
 */

static int rm_one(const char *path, const struct stat *sb, int type,
		  struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

void weft__rm_tree(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- opening a file to read ---------------------------------------------
 */

/* What a file that is not regular is: "a FIFO", for messages. */
static const char *util_file_kind(mode_t mode)
{
	return S_ISFIFO(mode)	? "a FIFO (named pipe)"
	       : S_ISCHR(mode)	? "a character device"
	       : S_ISBLK(mode)	? "a block device"
	       : S_ISSOCK(mode) ? "a socket"
	       : S_ISDIR(mode)	? "a directory"
				: "a special file";
}

/* The refusal of a file that is not regular (a directory as the system
 * words it: "Is a directory"). */
static weft_status util_not_regular(weft_context *ctx, const char *shown,
				    mode_t mode)
{
	if (S_ISDIR(mode))
		return weft__fail(ctx, WEFT_E_IO, "cannot read %s: %s", shown,
				  strerror(EISDIR));
	return weft__fail(ctx, WEFT_E_IO,
			  "%s is %s, not a regular file: weft reads its "
			  "inputs from regular files only",
			  shown, util_file_kind(mode));
}

/* The open descriptor f, regular, of at most max_bytes, made blocking
 * again; closed when refused. */
static weft_status util_check_open(weft_context *ctx, int f, const char *shown,
				   uint64_t max_bytes, uint64_t *size)
{
	struct stat sb;
	int flags;

	if (fstat(f, &sb) != 0 || (flags = fcntl(f, F_GETFL)) < 0 ||
	    fcntl(f, F_SETFL, flags & ~O_NONBLOCK) != 0) {
		int err = errno;
		close(f);
		return weft__fail(ctx, WEFT_E_IO, "cannot read %s: %s", shown,
				  strerror(err));
	}
	if (!S_ISREG(sb.st_mode)) {
		close(f);
		return util_not_regular(ctx, shown, sb.st_mode);
	}
	if ((uint64_t)sb.st_size > max_bytes) {
		close(f);
		return weft__fail(ctx, WEFT_E_IO,
				  "%s has %llu bytes, more than the %llu it "
				  "may hold",
				  shown, (unsigned long long)sb.st_size,
				  (unsigned long long)max_bytes);
	}
	*size = (uint64_t)sb.st_size;
	return WEFT_OK;
}

weft_status weft__open_regular(weft_context *ctx, int dfd, const char *path,
			       const char *shown, uint64_t max_bytes, int *fd,
			       uint64_t *size)
{
	struct stat sb;
	weft_status st;
	int f, err;

	*fd = -1;
	*size = 0;
	/* Refused before it is opened when it can be: opening a device may
	 * do something (a tape rewinds). */
	if (fstatat(dfd, path, &sb, 0) == 0 && !S_ISREG(sb.st_mode)) {
		st = util_not_regular(ctx, shown, sb.st_mode);
		errno = 0;
		return st;
	}
	/* O_NONBLOCK: a FIFO put there meanwhile is opened at once, even
	 * with no writer, and refused by its fstat(). */
	f = openat(dfd, path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (f < 0) {
		err = errno;
		weft__fail(ctx, WEFT_E_IO, "cannot open %s: %s", shown,
			   strerror(err));
		errno = err;
		return WEFT_E_IO;
	}
	if ((st = util_check_open(ctx, f, shown, max_bytes, size)) == WEFT_OK)
		*fd = f;
	errno = 0;
	return st;
}

/* ---- memory handed to applications (weft/weft.h) ------------------------- */

/* What the library allocates for a caller (weft_config_reference()'s text)
 * comes from this library's malloc(); the caller frees it here, so that an
 * application with another allocator never mixes them. */
void weft_free(void *p)
{
	free(p);
}
