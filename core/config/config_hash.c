/*
 * core/config/config_hash.c - the configuration as a checkpoint records it: the
 * keys that must be the same for a run to resume from it, in canonical
 * form, and their hash.
 *
 * Included: every key of [simulation] (model, steps, seed), [output] every
 * and csv (which rows the outputs hold, and whether there are any), and
 * every key of the selected model's section, defaults included. Left out,
 * since a resumed run may change them: [backend] (another backend, device
 * or thread count gives the same results), [checkpoint], [output]
 * directory, summary and plot (written at the end, from the state), and
 * [model] (where the plugin is found; the model's name and version are
 * checked on their own). Values are written as the run reads them: integers
 * in decimal, reals in the fewest digits that read back as the same
 * double (at most 17), booleans as true or false,
 * so that "beta = 0.05" and "beta = 5e-2" hash alike.
 */
#include "config/cfg.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* The keys of [output] that outputs so far depend on. */
static int canon_output_key(const char *key)
{
	return strcmp(key, "every") == 0 || strcmp(key, "csv") == 0;
}

/* The shortest of %.15g, %.16g and %.17g that reads back as v: 0.05, not
 * 0.050000000000000003 (in the C locale, as the configuration reads). */
static void canon_real(char *buf, size_t size, double v)
{
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	locale_t old = c ? uselocale(c) : (locale_t)0;

	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, size, "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (c) {
		uselocale(old);
		freelocale(c);
	}
}

/* "section.key=value\n", the value in canonical form. */
static void canon_key(FILE *f, const weft_config *cfg, const char *section,
		      const weft_key_desc *d)
{
	const char *text;
	char shown[WEFT__MSG_MAX];

	switch (d->type) {
	case WEFT_KEY_INT:
		fprintf(f, "%s.%s=%lld\n", section, d->name,
			(long long)weft__config_int(cfg, section, d->name));
		return;
	case WEFT_KEY_REAL:
		canon_real(shown, sizeof shown,
			   weft__config_real(cfg, section, d->name));
		fprintf(f, "%s.%s=%s\n", section, d->name, shown);
		return;
	case WEFT_KEY_BOOL:
		fprintf(f, "%s.%s=%s\n", section, d->name,
			weft__config_bool(cfg, section, d->name) ? "true"
								 : "false");
		return;
	default:
		text = weft__config_str(cfg, section, d->name);
		weft__escape(shown, sizeof shown, text, strlen(text));
		fprintf(f, "%s.%s=%s\n", section, d->name, shown);
	}
}

static void canon_section(FILE *f, const weft_config *cfg,
			  const struct cfg_section *s, int only_output)
{
	for (size_t k = 0; k < s->n_keys; k++)
		if (!only_output || canon_output_key(s->keys[k].name))
			canon_key(f, cfg, s->name, &s->keys[k]);
}

weft_status weft__config_canonical(weft_context *ctx, const weft_config *cfg,
				   char **text, char *hash)
{
	struct cfg_section *model;
	size_t len = 0;
	XXH128_hash_t h;
	weft_status st;
	FILE *f;

	*text = NULL;
	if ((st = weft__cfg_selected_model(ctx, cfg, &model)))
		return st;
	if (!(f = open_memstream(text, &len)))
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	canon_section(f, cfg, weft__cfg_find(cfg, "simulation"), 0);
	canon_section(f, cfg, weft__cfg_find(cfg, "output"), 1);
	canon_section(f, cfg, model, 0);
	if (fclose(f) != 0 || !*text) {
		free(*text);
		*text = NULL;
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	}
	h = XXH3_128bits(*text, len);
	snprintf(hash, 33, "%016llx%016llx", (unsigned long long)h.high64,
		 (unsigned long long)h.low64);
	return WEFT_OK;
}
