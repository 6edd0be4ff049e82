/*
 * plugins/common/program.h - what every first-party backend keeps of a
 * loaded program, written once: copies of the descriptor's name and
 * kernel names (the descriptor need not outlive load_program()), and the
 * device's list of loaded programs, which close unloads.
 *
 * The backend's struct weft_program holds a struct weft__prog named pg
 * (WEFT__PROG_OF finds the struct around it) beside its native handles,
 * and ends with a flexible array of what it keeps per kernel (a kernel's
 * index is the same there and in pg.kernel_names). WEFT__PROG_NEW
 * allocates the whole of it.
 */
#ifndef WEFT_PLUGIN_PROGRAM_H
#define WEFT_PLUGIN_PROGRAM_H

#include <stddef.h>
#include <stdint.h>
#include <weft/backend.h>

struct weft__prog {
	char *name;
	char **kernel_names; /* n_kernels names */
	uint32_t n_kernels;
	weft_kernel_stat *kstat; /* n_kernels counters (kernel_stats()),
				  * zero when loaded (stats.h) */
	size_t offset;		 /* where it is in the backend's program */
	struct weft__prog *prev, *next; /* the device's program list */
};

/* The backend's struct weft_program (TYPE) around its member pg. */
#define WEFT__PROG_OF(TYPE, p) ((TYPE *)weft__prog_outer(p))
static inline void *weft__prog_outer(struct weft__prog *pg)
{
	return (char *)pg - pg->offset;
}

/* A new, zeroed TYPE (the backend's struct weft_program) for desc, with
 * room for desc->n_kernels elements of its last member, the flexible
 * array KERNELS, and pg holding copies of desc's names; NULL when out of
 * host memory. desc is one weft__chk_load() accepted. */
#define WEFT__PROG_NEW(TYPE, KERNELS, desc)                       \
	((TYPE *)weft__prog_new(sizeof(TYPE), offsetof(TYPE, pg), \
				offsetof(TYPE, KERNELS),          \
				sizeof(((TYPE *)0)->KERNELS[0]), (desc)))
void *weft__prog_new(size_t size, size_t pg_offset, size_t kernels_offset,
		     size_t kernel_size, const weft_program_desc *desc);
/* Free what WEFT__PROG_NEW allocated, once the backend has released the
 * native handles it holds: pg's copies, then the program itself. */
void weft__prog_free(struct weft__prog *pg);

/* Add pg to the front of the device's list *head; take it off. */
void weft__prog_link(struct weft__prog **head, struct weft__prog *pg);
void weft__prog_unlink(struct weft__prog **head, struct weft__prog *pg);

#endif /* WEFT_PLUGIN_PROGRAM_H */
