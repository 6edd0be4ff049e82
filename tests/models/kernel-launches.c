/*
 * tests/models/kernel-launches.c - sim_launches(): a kernel's launch
 * count from libweft's per-kernel counters.
 */
#include "config.h"

#include <string.h>

#include "kernel-launches.h"

/* More rows than any model of the tree has kernels. */
#define MAX_KERNELS 64

long long sim_launches(weft_sim *sim, const char *name)
{
	weft_kernel_stats_row rows[MAX_KERNELS];
	size_t n = 0;

	if (weft_sim_kernel_stats(sim, rows, MAX_KERNELS, &n))
		return -1;
	for (size_t k = 0; k < n && k < MAX_KERNELS; k++)
		if (strcmp(rows[k].name, name) == 0)
			return (long long)rows[k].launches;
	return -1;
}
