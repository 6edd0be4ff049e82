/*
 * tests/models/nvrtc-check.h - what the models' NVRTC tests share
 * (test-cartpole-nvrtc, test-wolf-sheep-nvrtc, test-minatar-nvrtc,
 * test-env-nvrtc, ...):
 * a model's kernel source compiled by NVRTC with the CUDA backend's
 * prelude and options, for the oldest and a recent architecture, and
 * every kernel of the program found in the CUBIN. plugins/cuda/compile.c
 * makes no CUDA runtime call and is compiled into the test.
 */
#ifndef WEFT_TEST_NVRTC_CHECK_H
#define WEFT_TEST_NVRTC_CHECK_H

#include <weft/program.h>

/* The whole test (TAP): skipped when libnvrtc cannot be loaded; what
 * names the model in the tests' names. Returns tap_done()'s status. */
int nvrtc_check(const weft_program_desc *prog, const char *what);

/* The same for n programs, progs[k] named whats[k] in the tests' names. */
int nvrtc_check_all(const weft_program_desc *const *progs,
		    const char *const *whats, int n);

#endif
