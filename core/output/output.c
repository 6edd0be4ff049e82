/*
 * core/output/output.c - the files of a run's output set.
 *
 * Each output is written under its own name into the run's new set, a
 * directory beside the output directory (outdir.c), which replaces the
 * output directory as a whole once the run has completed: an interrupted
 * or failed run leaves every earlier file as it was and no new one.
 */
#include "output/output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct weft_output {
	weft_context *ctx; /* where write errors go (but see below) */
	char *name;	   /* NAME */
	char *path;	   /* final name, DIR/NAME */
	char *tmp;	   /* where it is written until commit, TMP/NAME */
	FILE *f;
	weft_output *next;
};

/* The calling thread's own error context, when it has one: the output
 * writer thread (pipeline.c) writes outputs while the main thread may be
 * reporting into the run's context, so its write errors go here. */
static _Thread_local weft_context *weft__thread_ctx;

void weft__output_thread_ctx(weft_context *ctx)
{
	weft__thread_ctx = ctx;
}

static weft_context *weft__output_ctx(const weft_output *o)
{
	return weft__thread_ctx ? weft__thread_ctx : o->ctx;
}

static void weft__output_free(weft_output *o)
{
	if (o->f)
		fclose(o->f);
	free(o->name);
	free(o->tmp);
	free(o->path);
	free(o);
}

/* A plain file name: not empty, no '/', not hidden (the set's own hidden
 * names are the manifest's), no control character. */
static int weft__output_name_ok(const char *name)
{
	if (!name[0] || name[0] == '.' || strchr(name, '/'))
		return 0;
	for (const char *c = name; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return 0;
	return 1;
}

/* The file itself: created new (an output opened twice is a mistake),
 * with the mode any new file gets (0666 less the umask). The message
 * names the file as the user will find it, DIR/NAME, and then where it
 * is written first; a long path is shown cut, so that the reason stays
 * in it. */
static weft_status weft__output_create(weft_context *ctx, weft_output *o)
{
	int fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	int err = errno;
	char shown[400], tmp[400];

	if (fd < 0) {
		weft__path_shown(shown, sizeof shown, o->path);
		weft__path_shown(tmp, sizeof tmp, o->tmp);
		return weft__fail(
			ctx, WEFT_E_IO,
			"cannot create %s: %s%s (a run writes it "
			"first into its new set, as %s)",
			shown, strerror(err),
			err == EEXIST ? " (an output opened twice)" : "", tmp);
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		close(fd);
		unlink(o->tmp);
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory opening %s",
				  o->tmp);
	}
	return WEFT_OK;
}

weft_status weft__output_open(weft_context *ctx, weft__outputs *set,
			      const char *name, weft_output **out)
{
	weft_output *o;
	weft_status st;

	if (!weft__output_name_ok(name))
		return weft__fail(ctx, WEFT_E_INVALID,
				  "output name '%s' must be a plain file name "
				  "(no '/', not starting with '.')",
				  name);
	if (!set->tmp)
		return weft__fail(ctx, WEFT_E_INTERNAL,
				  "output %s opened outside a run", name);
	o = calloc(1, sizeof *o);
	if (!o || !(o->name = weft__strdup(name)) ||
	    !(o->path = weft__path_join(set->dir, name)) ||
	    !(o->tmp = weft__path_join(set->tmp, name))) {
		if (o)
			weft__output_free(o);
		return weft__fail(ctx, WEFT_E_NOMEM,
				  "out of memory opening %s/%s", set->dir,
				  name);
	}
	o->ctx = ctx;
	if ((st = weft__output_create(ctx, o))) {
		weft__output_free(o);
		return st;
	}
	*set->tail = o;
	set->tail = &o->next;
	*out = o;
	return WEFT_OK;
}

weft_status weft_output_write(weft_output *o, const void *data, size_t bytes)
{
	return weft__output_write(o, data, bytes);
}

weft_status weft__output_write(weft_output *o, const void *data, size_t bytes)
{
	if (fwrite(data, 1, bytes, o->f) != bytes)
		return weft__fail(weft__output_ctx(o), WEFT_E_IO,
				  "cannot write %s: %s", o->tmp,
				  strerror(errno));
	return WEFT_OK;
}

weft_status weft_output_printf(weft_output *o, const char *fmt, ...)
{
	weft_status st;
	va_list ap;

	va_start(ap, fmt);
	st = weft__output_vprintf(o, fmt, ap);
	va_end(ap);
	return st;
}

weft_status weft__output_printf(weft_output *o, const char *fmt, ...)
{
	weft_status st;
	va_list ap;

	va_start(ap, fmt);
	st = weft__output_vprintf(o, fmt, ap);
	va_end(ap);
	return st;
}

weft_status weft__output_vprintf(weft_output *o, const char *fmt, va_list ap)
{
	if (vfprintf(o->f, fmt, ap) < 0)
		return weft__fail(weft__output_ctx(o), WEFT_E_IO,
				  "cannot write %s: %s", o->tmp,
				  strerror(errno));
	return WEFT_OK;
}

weft_status weft__output_replace(weft_output *o, const void *data, size_t bytes)
{
	if (fflush(o->f) != 0 || ftruncate(fileno(o->f), 0) != 0 ||
	    fseek(o->f, 0, SEEK_SET) != 0)
		return weft__fail(o->ctx, WEFT_E_IO, "cannot rewrite %s: %s",
				  o->tmp, strerror(errno));
	return weft__output_write(o, data, bytes);
}

weft_status weft__output_close(weft_output *o)
{
	int err = 0;

	if (!o->f)
		return WEFT_OK;
	if (fflush(o->f) != 0 || fsync(fileno(o->f)) != 0)
		err = errno;
	if (fclose(o->f) != 0 && !err)
		err = errno;
	o->f = NULL;
	if (err)
		return weft__fail(o->ctx, WEFT_E_IO, "cannot write %s: %s",
				  o->tmp, strerror(err));
	return WEFT_OK;
}

void weft__outputs_free_files(weft__outputs *set)
{
	while (set->head) {
		weft_output *o = set->head;
		set->head = o->next;
		weft__output_free(o);
	}
	set->tail = &set->head;
}

const char *weft__output_path(const weft_output *o)
{
	return o->path;
}

const char *weft__output_name(const weft_output *o)
{
	return o->name;
}

weft_output *weft__output_next(const weft_output *o)
{
	return o->next;
}

weft_output *weft__outputs_find(const weft__outputs *set, const char *name)
{
	for (weft_output *o = set->head; o; o = o->next)
		if (strcmp(o->name, name) == 0)
			return o;
	return NULL;
}

weft_status weft__output_flush(weft_output *o)
{
	if (fflush(o->f) != 0)
		return weft__fail(weft__output_ctx(o), WEFT_E_IO,
				  "cannot write %s: %s", o->tmp,
				  strerror(errno));
	return WEFT_OK;
}

const char *weft__output_tmp(const weft_output *o)
{
	return o->tmp;
}

void weft__outputs_drop(weft__outputs *set, weft_output *o)
{
	for (weft_output **p = &set->head; *p; p = &(*p)->next) {
		if (*p != o)
			continue;
		*p = o->next;
		if (set->tail == &o->next)
			set->tail = p;
		unlink(o->tmp);
		weft__output_free(o);
		return;
	}
}
