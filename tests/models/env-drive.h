/*
 * tests/models/env-drive.h - what the C tests of the environment models
 * (test-acrobot, test-pendulum, test-cartpole-env) share: a run opened
 * through libweft's run API alone from --set strings, its protocol views
 * and launch lists found by name (weft/env.h), and calls that end the
 * test with "Bail out!" (tap_bail) when a step that is not under test
 * fails.
 */
#ifndef WEFT_TEST_ENV_DRIVE_H
#define WEFT_TEST_ENV_DRIVE_H

#include <stdint.h>

#include <weft/weft.h>

/* A run of an environment model: its context, configuration and
 * simulation, the backend it was asked for, the protocol's views and its
 * "act" and "reset_some" lists (set by run_start()); f64 when the state
 * is in double precision; pack_state for a test that finds the model's
 * "state" list itself. */
typedef struct run {
	weft_context *ctx;
	weft_config *cfg;
	weft_sim *sim;
	const char *backend;
	int f64;
	weft_array obs, reward, term, trunc, final_obs, actions, mask, seed;
	weft_array state, book;
	uint32_t act, reset_some, pack_state;
} run;

/* Clear r, note backend (NULL for openmp) and make a context and an
 * empty configuration; bails out when out of memory. */
void run_new(run *r, const char *backend);
/* Apply one --set string ("SECTION.KEY=VALUE"); bails out on error. */
void run_set(run *r, const char *set);
/* run_set() of the string that printf() makes of fmt and its arguments. */
void run_setf(run *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* run_set() of each string of sets (NULL-terminated; sets may be NULL). */
void run_sets(run *r, const char *const *sets);
/* backend.name=BACKEND, its plugin from this build ($WEFT_BUILDDIR, "."
 * when unset). */
void run_backend(run *r, const char *backend);
/* Open the simulation of the configuration, find the protocol's views
 * and the "act" and "reset_some" lists. 0 when it cannot open on a
 * backend other than openmp (the context says why: skipped() reports
 * it); bails out otherwise. */
int run_start(run *r);
/* Close the run and clear r. */
void run_close(run *r);

/* The view called name into a; bails out when there is none. */
void run_find(run *r, const char *name, weft_array *a);
/* Blocking read and write of the whole view a; bail out on error. */
void run_get(run *r, const weft_array *a, void *dst);
void run_put(run *r, const weft_array *a, const void *src);
/* Launch list once and wait for it; bails out on error. */
void run_launch(run *r, uint32_t list);

/* Skip n tests of `what` on a backend that does not run here, saying
 * why, and close the run; returns 1. */
int skipped(run *r, int n, const char *what);

#endif
