/*
 * core/output/output.h - a run's outputs as one set (output.c: the files,
 * outdir.c: the directory, its lock and the commit), and running gnuplot
 * (gnuplot.c), for the run and ensemble layers above.
 *
 * A run writes its files into a new directory beside the output directory
 * and replaces the output directory by it in one step when it completes
 * (docs/output-commit.md): the output directory holds the old set or the
 * new one, never a mix.
 */
#ifndef WEFT_OUTPUT_H
#define WEFT_OUTPUT_H

#include "util/util.h"

/* The hidden names beside and inside an output directory DIR (PARENT/BASE):
 *   PARENT/.BASE.weft-lock         the lock a run holds (flock), its pid;
 *                                  removed when the run ends
 *   PARENT/.BASE.weft-new-XXXXXX   the set a run is writing
 *   PARENT/.BASE.weft-old-XXXXXX   a replaced set, being removed
 *   DIR/.weft-outputs              the manifest: ".kind KIND", the files
 *                                  of the set, then "." */
#define WEFT__OUT_LOCK	   ".weft-lock"
#define WEFT__OUT_NEW	   ".weft-new-"
#define WEFT__OUT_OLD	   ".weft-old-"
#define WEFT__OUT_MANIFEST ".weft-outputs"
#define WEFT__OUT_KIND	   ".kind " /* a file name never starts with '.' */

/* The kinds of set, as flags (a check may accept several). A manifest
 * says which one it lists; one without a kind line (written before kinds
 * were) is outputs, unless it lists a checkpoint's checkpoint.txt
 * and state.bin (a checkpoint) or an ensemble's tree "runs" (an
 * ensemble). weft replaces a directory only when it is absent, holds no
 * manifest (its files, which weft did not write, are carried over, but
 * for those named as a file of the new set, which replaces them) or
 * holds a set its key may hold: the output directory a run's or an
 * ensemble's outputs (either replaces either), the checkpoint directory
 * a checkpoint. */
#define WEFT__SET_OUTPUTS    1u /* a run's outputs */
#define WEFT__SET_CHECKPOINT 2u /* a checkpoint */
#define WEFT__SET_ENSEMBLE   4u /* an ensemble's outputs and runs */

typedef struct weft__outputs {
	weft_output *head;   /* in the order they were opened */
	weft_output **tail;  /* where the next one is linked */
	char *dir;	     /* as configured (listed paths, messages) */
	char *real;	     /* the directory replaced (symlink resolved) */
	char *parent, *base; /* real's parent and last component */
	char *tmp;	     /* the new set, PARENT/.BASE.weft-new-XXXXXX */
	int lock_fd;	     /* PARENT/.BASE.weft-lock, held; -1 */
	int committed;	     /* the new set is in place */
	char note[512];	     /* what cleaning up left, for the summary */
	/* The configuration section whose directory this is, for messages:
	 * "output" (NULL), or "checkpoint" (a checkpoint is a set too). */
	const char *section;
	/* A subdirectory of the set ("runs": an ensemble's runs), listed
	 * in the manifest and removed with the set; NULL: none. A set with
	 * a tree is an ensemble's (WEFT__SET_ENSEMBLE); one of section
	 * "checkpoint" a checkpoint; any other a run's outputs. */
	const char *tree;
} weft__outputs;

/* ---- outdir.c: the directory ----------------------------------------------
 */

/* What can be told about dir without writing anything: not the current
 * directory or one of its parents, a directory when it exists, not a
 * mount point, its manifest (if any) a regular file of bounded size, no
 * set of another kind than a [section] directory holds (checkpoint: a
 * checkpoint; output: a run's or an ensemble's outputs), no
 * subdirectory (a set is files), writable, and its parent too. where
 * names the origin of the key [section] directory (section NULL:
 * "output"). */
weft_status weft__outputs_check(weft_context *ctx, const char *section,
				const char *dir, const char *where);
/* Check dir, create its parents, take its lock (refusing a second run
 * into it), put back what a killed commit left aside (and check dir
 * again), remove what killed runs left, and make the directory the new
 * set is written to. */
weft_status weft__outputs_prepare(weft_context *ctx, weft__outputs *set,
				  const char *dir, const char *where);
/* Close every file (a failure replaces nothing), write the manifest,
 * carry over the files of the output directory that weft did not write,
 * and put the new set in place of the old one in one step. Once that step
 * is taken the commit completes; before it, a cancellation of ctx leaves
 * the old set. */
weft_status weft__outputs_commit(weft_context *ctx, weft__outputs *set);
/* After a commit (or a failed one), a new set to write the next one into;
 * the lock is kept. For checkpoints, which commit again and again. */
weft_status weft__outputs_renew(weft_context *ctx, weft__outputs *set);
/* Close every file; remove the new set unless it was committed; remove
 * the lock file and release the lock; free the records. */
void weft__outputs_discard(weft__outputs *set);

/* ---- output.c: the files -------------------------------------------------
 */

/* A new file NAME of the set (a plain name, not hidden). */
weft_status weft__output_open(weft_context *ctx, weft__outputs *set,
			      const char *name, weft_output **out);
/* Its contents replaced by data (a resumed run: the output as it was at
 * the checkpoint); it is then written on from there. */
weft_status weft__output_replace(weft_output *o, const void *data,
				 size_t bytes);
/* weft_output_write() and weft_output_printf(), for the core. */
weft_status weft__output_write(weft_output *o, const void *data, size_t bytes);
weft_status weft__output_printf(weft_output *o, const char *fmt, ...)
	WEFT_PRINTF(2, 3);
weft_status weft__output_vprintf(weft_output *o, const char *fmt, va_list ap)
	WEFT_PRINTF(2, 0);
/* Flush to disk and close (at commit). */
weft_status weft__output_close(weft_output *o);
/* Its final path, DIR/NAME, and its name. */
const char *weft__output_path(const weft_output *o);
const char *weft__output_name(const weft_output *o);
/* Send write errors raised on the calling thread to ctx instead of the
 * run's context (NULL: back to the run's). For the output writer thread. */
void weft__output_thread_ctx(weft_context *ctx);
weft_output *weft__output_next(const weft_output *o);
/* The open file of set named name, or NULL. */
weft_output *weft__outputs_find(const weft__outputs *set, const char *name);
/* Write what is buffered, so another process can read the file. */
weft_status weft__output_flush(weft_output *o);
/* Where an open output is written until commit (in the new set). */
const char *weft__output_tmp(const weft_output *o);
/* Close o, delete its file and forget it: it will not be committed. */
void weft__outputs_drop(weft__outputs *set, weft_output *o);
/* Close and free every record (files stay where they are). */
void weft__outputs_free_files(weft__outputs *set);

/* ---- plot.c: running gnuplot (runs' plots, ensembles' plots) ------------ */

/* The first executable file called name in $PATH, in new memory; *out
 * stays NULL when there is none. */
weft_status weft__plot_find(weft_context *ctx, const char *name, char **out);
/* 1-based index of the column called name[0..len) in a CSV header line,
 * or 0. */
unsigned weft__plot_column(const char *header, const char *name, size_t len);
/* Run gnuplot with argv and wait for it, up to $WEFT_GNUPLOT_TIMEOUT: 0
 * when it exited with status 0, -1 with why it did not draw in why,
 * WEFT_E_CANCELLED (gnuplot killed) when ctx was cancelled meanwhile. */
int weft__plot_gnuplot(weft_context *ctx, const char *gnuplot,
		       char *const argv[], char *why, size_t size);

#endif
