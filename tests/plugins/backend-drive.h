/*
 * tests/plugins/backend-drive.h - driving one backend plugin through its
 * vtable from a C test (test-openmp, test-opencl, test-cuda-mock): the
 * plugin loaded by the core's loader, and calls that stop the test (TAP
 * "Bail out!", tests/tap.h) when a step that is not under test fails, so
 * that the tests' own checks are about what they test.
 *
 * The backend under test is vt, set by load_backend(); every call made
 * through these helpers leaves the backend's message in err.
 */
#ifndef WEFT_TEST_BACKEND_DRIVE_H
#define WEFT_TEST_BACKEND_DRIVE_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

extern const weft_backend *vt;
extern weft_error err;

/* ---- the plugin ---------------------------------------------------------- */

/* The path of weft-backend-NAME.so: in the first $WEFT_PLUGIN_PATH entry
 * that holds it, else in $WEFT_BUILDDIR/plugins/NAME/.libs. Returns 1
 * when that file exists (path is set either way). */
int find_plugin(const char *name, char *path, size_t size);

/* Load the plugin at path through the core's loader and make it the
 * backend under test (vt). A plugin that cannot be loaded stops the test;
 * one whose probe says it is unavailable skips the whole test with the
 * probe's reason when skip_unavailable, else stops it too. */
weft__plugin *load_backend(weft_context *ctx, const char *path,
			   int skip_unavailable);

/* ---- calls that must succeed --------------------------------------------- */

weft_device *open_or_bail(const weft_device_config *cfg);
weft_stats stats_of(weft_device *dev);
weft_buf *alloc_or_bail(weft_device *dev, size_t bytes);
/* Blocking write and read of bytes at off. */
void put(weft_device *dev, weft_buf *b, size_t off, const void *src,
	 size_t bytes);
void get(weft_device *dev, void *dst, weft_buf *b, size_t off, size_t bytes);
/* The first bytes of b set to 0 (a blocking write). */
void zero(weft_device *dev, weft_buf *b, size_t bytes);
weft_program *load_or_bail(weft_device *dev, const weft_program_desc *desc);
/* step(): n launches, steps times. */
void run(weft_device *dev, weft_program *prog, const weft_launch *l, uint32_t n,
	 uint64_t steps);

/* ---- host side ----------------------------------------------------------- */

/* TAP_EQ_INT, its arguments evaluated once. */
int is(int64_t got, int64_t want, const char *name);
/* calloc() that stops the test when out of memory (n = 0 allocates). */
void *xcalloc(size_t n, size_t size);
/* p[i] = i * 131 + seed (mod 256). */
void fill_pattern(uint8_t *p, size_t n, unsigned seed);

#endif
