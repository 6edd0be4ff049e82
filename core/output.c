/*
 * core/output.c - output files that are complete or absent.
 *
 * Each output is written to a hidden temporary file in the output
 * directory and renamed into place when the run commits: an interrupted or
 * failed run leaves every earlier file as it was and no partial new one.
 */
#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"

struct weft_output {
	weft_context *ctx; /* where write errors go (but see below) */
	char *path;	   /* final name */
	char *tmp;	   /* where it is written until commit */
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

static mode_t weft__umask(void)
{
	mode_t m = umask(022);
	umask(m);
	return m;
}

/* mkdir -p: create dir and its missing parents. */
static weft_status weft__mkdirs(weft_context *ctx, const char *dir)
{
	char *p = weft__strdup(dir);
	struct stat sb;
	weft_status st = WEFT_OK;

	if (!p)
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	for (char *s = p + 1;; s++) {
		char c = *s;
		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST) {
			st = weft__fail(ctx, WEFT_E_IO,
					"cannot create output directory %s: %s",
					p, strerror(errno));
			break;
		}
		*s = c;
		if (c == '\0')
			break;
	}
	free(p);
	if (st == WEFT_OK && (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)))
		st = weft__fail(ctx, WEFT_E_IO,
				"output directory %s exists and is not a "
				"directory",
				dir);
	return st;
}

weft_status weft__outputs_prepare(weft_context *ctx, const char *dir)
{
	weft_status st = weft__mkdirs(ctx, dir);
	if (st)
		return st;
	if (access(dir, W_OK | X_OK) != 0)
		return weft__fail(ctx, WEFT_E_IO,
				  "output directory %s is not writable: %s",
				  dir, strerror(errno));
	return WEFT_OK;
}

static void weft__output_free(weft_output *o)
{
	if (o->f)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	free(o);
}

weft_status weft__output_open(weft_context *ctx, weft__outputs *set,
			      const char *dir, const char *name,
			      weft_output **out)
{
	weft_output *o;
	int fd;
	size_t n = strlen(dir) + strlen(name) + 32;

	if (!name[0] || strchr(name, '/') || name[0] == '.')
		return weft__fail(ctx, WEFT_E_INVALID,
				  "output name '%s' must be a plain file name",
				  name);
	o = calloc(1, sizeof *o);
	if (!o || !(o->path = malloc(n)) || !(o->tmp = malloc(n)))
		goto fail_nomem;
	o->ctx = ctx;
	snprintf(o->path, n, "%s/%s", dir, name);
	snprintf(o->tmp, n, "%s/.%s.XXXXXX", dir, name);
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		weft__fail(ctx, WEFT_E_IO, "cannot create %s: %s", o->tmp,
			   strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		weft__output_free(o);
		return WEFT_E_IO;
	}
	/* mkstemp makes the file private; give it the mode any new file
	 * would have. */
	fchmod(fd, 0666 & ~weft__umask());
	o->f = fdopen(fd, "w");
	if (!o->f) {
		close(fd);
		goto fail_nomem;
	}
	o->next = set->head;
	set->head = o;
	*out = o;
	return WEFT_OK;
fail_nomem:
	if (o)
		weft__output_free(o);
	return weft__fail(ctx, WEFT_E_NOMEM, "out of memory opening %s/%s", dir,
			  name);
}

weft_status weft_output_write(weft_output *o, const void *data, size_t bytes)
{
	if (fwrite(data, 1, bytes, o->f) != bytes)
		return weft__fail(weft__output_ctx(o), WEFT_E_IO,
				  "cannot write %s: %s", o->tmp,
				  strerror(errno));
	return WEFT_OK;
}

weft_status weft_output_printf(weft_output *o, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vfprintf(o->f, fmt, ap);
	va_end(ap);
	if (r < 0)
		return weft__fail(weft__output_ctx(o), WEFT_E_IO,
				  "cannot write %s: %s", o->tmp,
				  strerror(errno));
	return WEFT_OK;
}

/* Flush to disk and close; the file stays under its temporary name. */
static weft_status weft__output_close(weft_output *o)
{
	int err = 0;

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

/* Close every file first, rename only when all closed cleanly: a full disk
 * discovered on the last file leaves no new file in place. */
weft_status weft__outputs_commit(weft__outputs *set, weft__outputs *done)
{
	weft_status st;

	for (weft_output *o = set->head; o; o = o->next)
		if ((st = weft__output_close(o)))
			return st;
	while (set->head) {
		weft_output *o = set->head;
		if (rename(o->tmp, o->path) != 0)
			return weft__fail(o->ctx, WEFT_E_IO,
					  "cannot rename %s to %s: %s", o->tmp,
					  o->path, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		set->head = o->next;
		o->next = done->head;
		done->head = o;
	}
	return WEFT_OK;
}

void weft__outputs_discard(weft__outputs *set)
{
	while (set->head) {
		weft_output *o = set->head;
		set->head = o->next;
		weft__output_free(o);
	}
}

const char *weft__output_path(const weft_output *o)
{
	return o->path;
}

weft_output *weft__output_next(const weft_output *o)
{
	return o->next;
}

weft_output *weft__outputs_find(const weft__outputs *set, const char *name)
{
	size_t n = strlen(name);

	for (weft_output *o = set->head; o; o = o->next) {
		size_t len = strlen(o->path);
		if (len > n && o->path[len - n - 1] == '/' &&
		    strcmp(o->path + len - n, name) == 0)
			return o;
	}
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
		if (*p == o) {
			*p = o->next;
			weft__output_free(o);
			return;
		}
	}
}
