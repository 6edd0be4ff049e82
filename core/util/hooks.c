/*
 * core/util/hooks.c - the test hooks of a build configured with
 * --enable-test-hooks (make check's): weft__test_hook(NAME) is the value of
 * the environment variable WEFT_TEST_NAME. Tests set them to make the
 * library fail on purpose where nothing else can (kill itself at a point
 * of a commit, fail an ensemble's run). A release build compiles
 * core/util/nohooks.c in this file's place (core/local.mk), so that the
 * library it installs reads none of these variables and holds none of
 * their names (tests/core/test-hooks.sh checks it).
 */
#include "util/util.h"

#include <stdlib.h>

const char *weft__test_hook(const char *name)
{
	char var[64];
	int n = snprintf(var, sizeof var, "WEFT_TEST_%s", name);

	return n > 0 && (size_t)n < sizeof var ? getenv(var) : NULL;
}
