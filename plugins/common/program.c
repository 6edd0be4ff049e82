/*
 * plugins/common/program.c - a loaded program's names and the device's
 * program list (program.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "program.h"

static int copy_names(struct weft__prog *pg, const weft_program_desc *desc)
{
	pg->name = strdup(desc->name);
	pg->kernel_names = calloc(desc->n_kernels, sizeof *pg->kernel_names);
	pg->kstat = calloc(desc->n_kernels ? desc->n_kernels : 1,
			   sizeof *pg->kstat);
	if (!pg->name || !pg->kernel_names || !pg->kstat)
		return -1;
	pg->n_kernels = desc->n_kernels;
	for (uint32_t k = 0; k < desc->n_kernels; k++) {
		pg->kernel_names[k] = strdup(desc->kernels[k].name);
		if (!pg->kernel_names[k])
			return -1;
	}
	return 0;
}

void *weft__prog_new(size_t size, size_t pg_offset, size_t kernels_offset,
		     size_t kernel_size, const weft_program_desc *desc)
{
	size_t need = kernels_offset + (size_t)desc->n_kernels * kernel_size;
	struct weft__prog *pg;
	char *block;

	if (kernel_size &&
	    desc->n_kernels > (SIZE_MAX - kernels_offset) / kernel_size)
		return NULL;
	block = calloc(1, need > size ? need : size);
	if (!block)
		return NULL;
	pg = (struct weft__prog *)(void *)(block + pg_offset);
	pg->offset = pg_offset;
	if (copy_names(pg, desc) != 0) {
		weft__prog_free(pg);
		return NULL;
	}
	return block;
}

void weft__prog_free(struct weft__prog *pg)
{
	if (pg->kernel_names) {
		for (uint32_t k = 0; k < pg->n_kernels; k++)
			free(pg->kernel_names[k]);
		free(pg->kernel_names);
	}
	free(pg->kstat);
	free(pg->name);
	free(weft__prog_outer(pg));
}

void weft__prog_link(struct weft__prog **head, struct weft__prog *pg)
{
	pg->prev = NULL;
	pg->next = *head;
	if (*head)
		(*head)->prev = pg;
	*head = pg;
}

void weft__prog_unlink(struct weft__prog **head, struct weft__prog *pg)
{
	if (pg->prev)
		pg->prev->next = pg->next;
	else
		*head = pg->next;
	if (pg->next)
		pg->next->prev = pg->prev;
	pg->prev = pg->next = NULL;
}
