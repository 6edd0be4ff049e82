/*
 * cli/ensemble-print.h - what the weft command and weft-mpi print of an
 * ensemble that ran: its summary and files on standard output, its failed
 * runs on standard error. On the public API (weft.h) only.
 */
#ifndef WEFT_ENSEMBLE_PRINT_H
#define WEFT_ENSEMBLE_PRINT_H

#include <weft/weft.h>

/* "PROG: TITLE", the summary lines, the outputs; then, when runs failed,
 * a line per failed run (scenario, seed, message) on standard error.
 * Returns the exit status: 0, or 1 when a run failed. */
int weft_print_ensemble(const weft_ensemble *e, const char *prog,
			const char *title);

#endif
