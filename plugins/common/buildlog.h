/*
 * plugins/common/buildlog.h - a run-time compiler's log when a program
 * fails to build (OpenCL's clBuildProgram, CUDA's NVRTC), shown whole:
 * the whole log goes to a file, and the error names the file and quotes
 * the log's diagnostics that fit in it, each line whole, errors first.
 *
 * weft-wk puts #line directives in the program text, so the diagnostics
 * name the kernel file's lines (seir.wk:37:5: error: ...); for a compiler
 * that ignores them, weft__build_log_reline() maps its lines.
 */
#ifndef WEFT_PLUGIN_BUILDLOG_H
#define WEFT_PLUGIN_BUILDLOG_H

#include <weft/backend.h>

/* Write "BACKEND: HEAD (whole log: PATH): DIAG | DIAG ... (+N more)" into
 * err, HEAD formatted from fmt, the log saved to a new file
 * ${TMPDIR:-/tmp}/weft-PROGRAM-BACKEND-XXXXXX.log (when log holds
 * anything); returns st. */
weft_status weft__build_failed(const char *backend, weft_error *err,
			       weft_status st, const char *program,
			       const char *log, const char *fmt, ...)
	WEFT_PRINTF(6, 7);

/* A copy of log (malloc'ed) in which every "<kernel>:L:" reads
 * "FILE:N:", FILE and N what the #line directives of the program text
 * (texts[0..n), joined as the compiler joins them) say of its line L: for
 * compilers that ignore #line and number the whole text (NVIDIA's
 * OpenCL). NULL when log holds no such reference after a directive, or
 * without memory: then log is right as it is. */
char *weft__build_log_reline(const char *log, const char *const *texts,
			     const size_t *lens, unsigned n);

/* The diagnostic lines of log (those that say error, warning or note),
 * errors first, each either whole or not at all, joined by " | ", into
 * out[size]; the number left out in *left. For tests. */
void weft__build_log_excerpt(const char *log, char *out, size_t size,
			     unsigned *left);

#endif /* WEFT_PLUGIN_BUILDLOG_H */
