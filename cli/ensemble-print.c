/*
 * cli/ensemble-print.c - an ensemble's report, shared by the weft command
 * (cli/weft.c) and weft-mpi (mpi/weft-mpi.c).
 */
#include "ensemble-print.h"

#include <inttypes.h>
#include <stdio.h>

static int print_failures(const weft_ensemble *e, const char *prog)
{
	size_t n = weft_ensemble_failed_count(e), idx;
	const char *msg, *scen;
	uint64_t seed;

	fprintf(stderr,
		"%s: %zu of %zu runs failed (the others' results were "
		"written):\n",
		prog, n, weft_ensemble_run_count(e));
	for (size_t k = 0; k < n; k++)
		if (weft_ensemble_failed_at(e, k, &idx, &msg) == WEFT_OK &&
		    weft_ensemble_run_info(e, idx, &scen, &seed) == WEFT_OK)
			fprintf(stderr,
				"%s: run %zu (scenario %s, seed %" PRIu64
				"): %s\n",
				prog, idx, scen, seed, msg);
	return 1;
}

int weft_print_ensemble(const weft_ensemble *e, const char *prog,
			const char *title)
{
	const char *k, *v;

	printf("%s: %s\n", prog, title);
	for (size_t i = 0; i < weft_ensemble_summary_count(e); i++)
		if (weft_ensemble_summary_at(e, i, &k, &v) == WEFT_OK)
			printf("  %-20s %s\n", k, v);
	for (size_t i = 0; i < weft_ensemble_output_count(e); i++)
		printf("  %-20s %s\n", i ? "" : "outputs",
		       weft_ensemble_output_at(e, i));
	fflush(stdout);
	return weft_ensemble_failed_count(e) ? print_failures(e, prog) : 0;
}
