/*
 * tests/models/env-drive.c - an environment model's run through
 * libweft's run API for the model tests (see env-drive.h).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env-drive.h"
#include "tap.h"

void run_new(run *r, const char *backend)
{
	memset(r, 0, sizeof *r);
	r->backend = backend;
	if (weft_context_new(&r->ctx) || weft_config_new(r->ctx, &r->cfg))
		tap_bail("out of memory");
}

void run_set(run *r, const char *set)
{
	if (weft_config_set(r->ctx, r->cfg, set))
		tap_bail("config %s: %s", set, weft_context_error(r->ctx));
}

void run_setf(run *r, const char *fmt, ...)
{
	char set[800];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(set, sizeof set, fmt, ap);
	va_end(ap);
	run_set(r, set);
}

void run_sets(run *r, const char *const *sets)
{
	for (; sets && *sets; sets++)
		run_set(r, *sets);
}

void run_backend(run *r, const char *backend)
{
	const char *dir = getenv("WEFT_BUILDDIR");

	run_setf(r, "backend.name=%s", backend);
	run_setf(r, "backend.plugin_path=%s/plugins/%s/.libs", dir ? dir : ".",
		 backend);
}

void run_close(run *r)
{
	weft_sim_close(r->sim);
	weft_config_free(r->cfg);
	weft_context_free(r->ctx);
	memset(r, 0, sizeof *r);
}

void run_find(run *r, const char *name, weft_array *a)
{
	a->struct_size = sizeof *a;
	if (weft_sim_array_find(r->sim, name, a))
		tap_bail("view %s: %s", name, weft_context_error(r->ctx));
}

int run_start(run *r)
{
	if (weft_sim_open(r->ctx, r->cfg, &r->sim)) {
		if (r->backend && strcmp(r->backend, "openmp") != 0)
			return 0;
		tap_bail("weft_sim_open: %s", weft_context_error(r->ctx));
	}
	run_find(r, "obs", &r->obs);
	run_find(r, "reward", &r->reward);
	run_find(r, "terminated", &r->term);
	run_find(r, "truncated", &r->trunc);
	run_find(r, "final_obs", &r->final_obs);
	run_find(r, "actions", &r->actions);
	run_find(r, "reset_mask", &r->mask);
	run_find(r, "reset_seed", &r->seed);
	run_find(r, "state", &r->state);
	run_find(r, "env_book", &r->book);
	r->f64 = r->state.dtype == WEFT_DTYPE_F64;
	if (weft_sim_list(r->sim, "act", &r->act) ||
	    weft_sim_list(r->sim, "reset_some", &r->reset_some))
		tap_bail("launch lists: %s", weft_context_error(r->ctx));
	return 1;
}

void run_get(run *r, const weft_array *a, void *dst)
{
	if (weft_sim_read(r->sim, dst, a->buffer, a->offset, a->bytes, 0))
		tap_bail("reading %s: %s", a->name, weft_context_error(r->ctx));
}

void run_put(run *r, const weft_array *a, const void *src)
{
	if (weft_sim_write(r->sim, a->buffer, a->offset, src, a->bytes, 0))
		tap_bail("writing %s: %s", a->name, weft_context_error(r->ctx));
}

void run_launch(run *r, uint32_t list)
{
	if (weft_sim_launch(r->sim, list, 1) || weft_sim_sync(r->sim))
		tap_bail("launch: %s", weft_context_error(r->ctx));
}

int skipped(run *r, int n, const char *what)
{
	tap_skip(n, "%s on %s: %s", what, r->backend,
		 weft_context_error(r->ctx));
	run_close(r);
	return 1;
}
