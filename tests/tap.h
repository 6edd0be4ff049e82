/*
 * tests/tap.h - a small TAP producer for weft's tests (read by Automake's
 * tap-driver.sh). Each check prints "ok N - name" or "not ok N - name" with
 * a diagnostic; tap_done() prints the plan and returns the exit status.
 */
#ifndef WEFT_TAP_H
#define WEFT_TAP_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Record one check; returns cond so callers can stop on failure. */
int tap_ok(int cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Print a diagnostic line ("# ..."). */
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Skip the whole test file: "1..0 # SKIP reason" and exit 0. */
void tap_skip_all(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
/* Record n skipped checks with a reason. */
void tap_skip(int n, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Abort the test file with "Bail out!" (for broken test setup). */
void tap_bail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
/* Print the plan; returns 0 when every check passed, 1 otherwise. */
int tap_done(void);

/* Compare two integers once each (arguments are evaluated once). */
int tap_eq_int(int64_t got, int64_t want, const char *name);
#define TAP_EQ_INT(got, want, name) \
	tap_eq_int((int64_t)(got), (int64_t)(want), (name))

/* Helpers shared by tests: a fresh temporary directory (removed at exit
 * when the test passed) and whole-file reading. */
const char *tap_tmpdir(void);
char *tap_read_file(const char *path, size_t *len);
int tap_write_file(const char *path, const char *text);
/* 1 when haystack contains needle; prints both as diagnostics otherwise. */
int tap_contains(const char *haystack, const char *needle, const char *name);

#endif
