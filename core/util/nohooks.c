/*
 * core/util/nohooks.c - the test hooks of a release build: none.
 * weft__test_hook() is always NULL, so the code behind a hook never runs;
 * a build configured with --enable-test-hooks compiles core/util/hooks.c
 * instead (core/local.mk).
 */
#include "util/util.h"

const char *weft__test_hook(const char *name)
{
	(void)name;
	return NULL;
}
