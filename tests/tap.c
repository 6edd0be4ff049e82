/*
 * tests/tap.c - implementation of the TAP helper.
 */
#define _GNU_SOURCE
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int tap_n;
static int tap_failed;
static char tap_dir[256];

static void tap_vline(const char *prefix, const char *fmt, va_list ap)
{
	fputs(prefix, stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	fflush(stdout);
}

int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;
	tap_n++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	tap_vline("", fmt, ap);
	va_end(ap);
	if (!cond)
		tap_failed++;
	return cond;
}

int tap_eq_int(int64_t got, int64_t want, const char *name)
{
	return tap_ok(got == want, "%s (got %lld, want %lld)", name,
		      (long long)got, (long long)want);
}

void tap_diag(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tap_vline("# ", fmt, ap);
	va_end(ap);
}

void tap_skip_all(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tap_vline("1..0 # SKIP ", fmt, ap);
	va_end(ap);
	exit(0);
}

void tap_skip(int n, const char *fmt, ...)
{
	char reason[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof reason, fmt, ap);
	va_end(ap);
	for (int i = 0; i < n; i++)
		printf("ok %d # SKIP %s\n", ++tap_n, reason);
	fflush(stdout);
}

void tap_bail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tap_vline("Bail out! ", fmt, ap);
	va_end(ap);
	exit(1);
}

static void tap_cleanup(void)
{
	char cmd[300];
	if (!tap_dir[0] || tap_failed || getenv("WEFT_KEEP_TMP"))
		return;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tap_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tap_dir);
}

int tap_done(void)
{
	printf("1..%d\n", tap_n);
	fflush(stdout);
	return tap_failed ? 1 : 0;
}

const char *tap_tmpdir(void)
{
	if (tap_dir[0])
		return tap_dir;
	const char *base = getenv("TMPDIR");
	snprintf(tap_dir, sizeof tap_dir, "%s/weft-test-XXXXXX",
		 base ? base : "/tmp");
	if (!mkdtemp(tap_dir))
		tap_bail("cannot create a temporary directory under %s",
			 base ? base : "/tmp");
	atexit(tap_cleanup);
	return tap_dir;
}

char *tap_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;
	if (!f)
		return NULL;
	do {
		if (n + 4096 + 1 > cap) {
			cap = (n + 4096 + 1) * 2;
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, 4096, f);
		n += got;
	} while (got > 0);
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

int tap_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t n = strlen(text);
	int bad = fwrite(text, 1, n, f) != n;
	return (fclose(f) != 0 || bad) ? -1 : 0;
}

int tap_contains(const char *haystack, const char *needle, const char *name)
{
	int ok = haystack && strstr(haystack, needle) != NULL;
	if (!tap_ok(ok, "%s", name)) {
		tap_diag("expected to contain: %s", needle);
		tap_diag("got: %s", haystack ? haystack : "(null)");
	}
	return ok;
}
