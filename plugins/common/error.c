/*
 * plugins/common/error.c - the backends' error messages (error.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "error.h"

weft_status weft__verrf(const char *backend, weft_error *err, weft_status st,
			const char *fmt, va_list ap)
{
	int n;

	if (!err)
		return st;
	n = snprintf(err->msg, sizeof err->msg, "%s: ", backend);
	if (n < 0 || (size_t)n >= sizeof err->msg)
		return st;
	vsnprintf(err->msg + n, sizeof err->msg - (size_t)n, fmt, ap);
	return st;
}

weft_status weft__errf(const char *backend, weft_error *err, weft_status st,
		       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	st = weft__verrf(backend, err, st, fmt, ap);
	va_end(ap);
	return st;
}

void weft__err_vappend(weft_error *err, const char *fmt, va_list ap)
{
	size_t n;

	if (!err)
		return;
	n = strnlen(err->msg, sizeof err->msg);
	if (n + 1 < sizeof err->msg)
		vsnprintf(err->msg + n, sizeof err->msg - n, fmt, ap);
}

void weft__err_append(weft_error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	weft__err_vappend(err, fmt, ap);
	va_end(ap);
}
