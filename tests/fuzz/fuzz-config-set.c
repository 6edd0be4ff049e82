/*
 * tests/fuzz/fuzz-config-set.c - libFuzzer harness for the configuration
 * layer: each line of the input given to weft_config_set() as a
 * "section.key=value" assignment (as `--set` does), in order, on one
 * configuration, then validated. Built and run by `make check-sanitize`
 * (tests/sanitize/run.sh), with tests/fuzz/keep-models.c; seeds in
 * tests/fuzz/config-set/.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <weft/weft.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *line, *next;
	weft_context *ctx = NULL;
	weft_config *cfg = NULL;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (weft_context_new(&ctx) != WEFT_OK ||
	    weft_config_new(ctx, &cfg) != WEFT_OK)
		goto free_all;
	for (line = text; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		(void)weft_config_set(ctx, cfg, line);
	}
	(void)weft_config_validate(ctx, cfg);
free_all:
	weft_config_free(cfg);
	weft_context_free(ctx);
	free(text);
	return 0;
}
