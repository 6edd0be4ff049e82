/*
 * tests/fuzz/fuzz-config-load.c - libFuzzer harness for the configuration
 * layer: weft_config_load() on the input as the bytes of an INI file, then
 * what a run asks of a configuration that loaded (validation, values).
 * Model sections are checked against the model plugins on
 * $WEFT_MODEL_PATH. Built and run by `make check-sanitize`
 * (tests/sanitize/run.sh), with tests/fuzz/keep-models.c; seeds in
 * tests/fuzz/config-load/ and examples/.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include <weft/weft.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a file: one memory-backed file, rewritten every time. */
static const char *as_file(const uint8_t *data, size_t size)
{
	static char path[64];
	static int fd = -1;

	if (fd < 0) {
		fd = memfd_create("fuzz.ini", 0);
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (fd < 0 || ftruncate(fd, 0) != 0 ||
	    pwrite(fd, data, size, 0) != (ssize_t)size)
		return NULL;
	return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[][2] = {
		{ "simulation", "model" }, { "simulation", "steps" },
		{ "backend", "name" },	   { "output", "directory" },
		{ "seir", "agents" },	   { "cartpole", "envs" },
	};
	const char *path = as_file(data, size);
	weft_context *ctx = NULL;
	weft_config *cfg = NULL;

	if (!path || weft_context_new(&ctx) != WEFT_OK)
		return 0;
	if (weft_config_load(ctx, path, &cfg) == WEFT_OK) {
		(void)weft_config_validate(ctx, cfg);
		for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
			(void)weft_config_get(cfg, keys[i][0], keys[i][1]);
	}
	weft_config_free(cfg);
	weft_context_free(ctx);
	return 0;
}
