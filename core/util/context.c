/*
 * core/util/context.c - the context: the home of the last error message, the
 * cancellation flag that long operations check, and the progress callback
 * they report to.
 */
#include "util/util.h"

#include <stdlib.h>

/* weft_context_cancel() must be async-signal-safe. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "atomic int is not lock-free");

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
	return weft__context_error(ctx);
}

const char *weft__context_error(const weft_context *ctx)
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

void weft_context_cancel(weft_context *ctx)
{
	/* Lock-free atomic store: async-signal-safe. */
	if (ctx)
		atomic_store(&ctx->cancelled, 1);
}

int weft_context_cancelled(const weft_context *ctx)
{
	return weft__cancelled(ctx);
}

void weft_context_reset_cancel(weft_context *ctx)
{
	if (ctx)
		atomic_store(&ctx->cancelled, 0);
}

void weft_context_set_progress(weft_context *ctx, weft_progress_fn fn,
			       void *user)
{
	if (!ctx)
		return;
	ctx->progress = fn;
	ctx->progress_user = user;
}

void weft__progress(weft_context *ctx, const char *what, uint64_t done,
		    uint64_t total)
{
	if (ctx && ctx->progress)
		ctx->progress(ctx->progress_user, what, done, total);
}

int weft__cancelled(const weft_context *ctx)
{
	/* A const object may still be read atomically: the flag is the one
	 * member other threads write. */
	return ctx && atomic_load((atomic_int *)&ctx->cancelled) != 0;
}

weft_status weft__cancel_fail(weft_context *ctx, const char *fmt, ...)
{
	char what[WEFT__MSG_MAX / 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return weft__fail(ctx, WEFT_E_CANCELLED, "cancelled while %s", what);
}
