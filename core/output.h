/*
 * core/output.h - atomic output files (core/output.c), for sim.c.
 */
#ifndef WEFT_OUTPUT_H
#define WEFT_OUTPUT_H

#include "internal.h"

typedef struct weft__outputs {
	weft_output *head;
} weft__outputs;

/* Create the output directory (and parents) and check it is writable. */
weft_status weft__outputs_prepare(weft_context *ctx, const char *dir);
weft_status weft__output_open(weft_context *ctx, weft__outputs *set,
			      const char *dir, const char *name,
			      weft_output **out);
/* Move every file of set into place; committed ones move to done. */
weft_status weft__outputs_commit(weft__outputs *set, weft__outputs *done);
/* Close and delete every uncommitted file; free committed records. */
void weft__outputs_discard(weft__outputs *set);
const char *weft__output_path(const weft_output *o);
/* Send write errors raised on the calling thread to ctx instead of the
 * run's context (NULL: back to the run's). For the output writer thread. */
void weft__output_thread_ctx(weft_context *ctx);
weft_output *weft__output_next(const weft_output *o);
/* The open file of set named name, or NULL. */
weft_output *weft__outputs_find(const weft__outputs *set, const char *name);
/* Write what is buffered, so another process can read the file. */
weft_status weft__output_flush(weft_output *o);
/* The temporary file an open output is written to until commit. */
const char *weft__output_tmp(const weft_output *o);
/* Close o, delete its temporary file and forget it: it will not be
 * committed. */
void weft__outputs_drop(weft__outputs *set, weft_output *o);

#endif
