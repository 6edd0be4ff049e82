/*
 * plugins/common/error.h - the error messages of the first-party
 * backends, written once: "BACKEND: what failed and where" into a
 * weft_error, returning the status the caller passes on.
 *
 * Each backend names its own formatter after itself in its priv.h, as a
 * macro over weft__errf (weft__omp_fail(err, st, ...) is
 * weft__errf("openmp", err, st, ...)), so that its messages keep its name.
 * A NULL err is allowed everywhere: the status is still returned.
 */
#ifndef WEFT_PLUGIN_ERROR_H
#define WEFT_PLUGIN_ERROR_H

#include <stdarg.h>
#include <weft/backend.h>

/* Write "BACKEND: " and the message into err; returns st. */
weft_status weft__errf(const char *backend, weft_error *err, weft_status st,
		       const char *fmt, ...) WEFT_PRINTF(4, 5);
weft_status weft__verrf(const char *backend, weft_error *err, weft_status st,
			const char *fmt, va_list ap) WEFT_PRINTF(4, 0);

/* Append to err's message as much as fits (a call's error name after
 * what the caller was doing, for instance). */
void weft__err_append(weft_error *err, const char *fmt, ...) WEFT_PRINTF(2, 3);
void weft__err_vappend(weft_error *err, const char *fmt, va_list ap)
	WEFT_PRINTF(2, 0);

#endif /* WEFT_PLUGIN_ERROR_H */
