/*
 * tests/fuzz/keep-models.c - the model plugins, kept mapped for the
 * configuration fuzzers. A configuration loads the plugin of every model
 * section it reads and closes it when freed; libFuzzer keeps the coverage
 * counters of every instrumented module it has seen, and would read those
 * of a plugin unmapped by dlclose(). Opening each plugin once more, never
 * to be closed, keeps the loader's dlclose() from unmapping it; linked
 * into both configuration fuzzers, it is their LLVMFuzzerInitialize.
 */
#include "config.h"

#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_model_file(const char *name)
{
	size_t n = strlen(name);

	return strncmp(name, "weft-model-", 11) == 0 && n > 14 &&
	       strcmp(name + n - 3, ".so") == 0;
}

static void keep_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];

	while (d && (e = readdir(d))) {
		if (!is_model_file(e->d_name))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		(void)dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	}
	if (d)
		closedir(d);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *list = getenv("WEFT_MODEL_PATH");
	char *copy = list ? strdup(list) : NULL, *dir, *save = NULL;

	for (dir = copy ? strtok_r(copy, ":", &save) : NULL; dir;
	     dir = strtok_r(NULL, ":", &save))
		keep_dir(dir);
	free(copy);
	(void)argc;
	(void)argv;
	return 0;
}
