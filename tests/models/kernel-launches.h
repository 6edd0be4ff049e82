/*
 * tests/models/kernel-launches.h - how often a run launched one of its
 * kernels, for the tests that check which kernel a launch list runs (the
 * environment models' vectorised f32 act kernels).
 */
#ifndef WEFT_TEST_KERNEL_LAUNCHES_H
#define WEFT_TEST_KERNEL_LAUNCHES_H

#include <weft/weft.h>

/* How many times the run's kernel called name has been launched
 * (weft_sim_kernel_stats); -1 when the backend keeps no per-kernel
 * counters or the program has no such kernel. */
long long sim_launches(weft_sim *sim, const char *name);

#endif
