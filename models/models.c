/*
 * models/models.c - the registry of models compiled into libweft.
 * Adding a model adds one line here and one include in models/local.mk;
 * no backend changes.
 */
#include "internal.h"

#include <string.h>

extern const weft_model weft__model_seir;
extern const weft_model weft__model_cartpole;

const weft_model *const weft__models[] = {
	&weft__model_seir,
	&weft__model_cartpole,
};
const size_t weft__n_models = sizeof weft__models / sizeof weft__models[0];

const weft_model *weft__model_find(const char *name)
{
	for (size_t i = 0; i < weft__n_models; i++)
		if (strcmp(weft__models[i]->name, name) == 0)
			return weft__models[i];
	return NULL;
}

size_t weft_model_count(void)
{
	return weft__n_models;
}

weft_status weft_model_info(size_t i, const char **name, const char **summary)
{
	if (i >= weft__n_models || !name || !summary)
		return WEFT_E_INVALID;
	*name = weft__models[i]->name;
	*summary = weft__models[i]->summary;
	return WEFT_OK;
}
