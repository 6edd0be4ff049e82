/*
 * core/context.c - the context: the home of the last error message.
 */
#include "internal.h"

#include <stdlib.h>

weft_status weft_context_new(weft_context **out)
{
	if (!out)
		return WEFT_E_INVALID;
	*out = calloc(1, sizeof **out);
	return *out ? WEFT_OK : WEFT_E_NOMEM;
}

void weft_context_free(weft_context *ctx)
{
	free(ctx);
}

const char *weft_context_error(const weft_context *ctx)
{
	return ctx ? ctx->msg : "no context";
}

weft_status weft_context_fail(weft_context *ctx, weft_status st,
			      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	weft__vfail(ctx, st, fmt, ap);
	va_end(ap);
	return st;
}
