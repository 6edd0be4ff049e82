/*
 * core/run/model_rows.c - a model's row series read back through output
 * snapshots: the device appends fixed-size rows to a buffer as it steps
 * (SEIR's daily counts, CartPole's episode statistics); collect() copies
 * the rows not read yet into the slot's region of a snapshot buffer and
 * reads them back, asynchronously, into host memory at their own place;
 * emit() then sees them there. Chunks' rows are disjoint in host memory,
 * so no two slots share it, and the next steps (which bind the series,
 * not the snapshot) overlap the read.
 *
 * For checkpoints both buffers are state, the run keeps a list of the
 * series open (sim->rows) so that a checkpoint records how many rows were
 * collected, and a resume reads those rows back into host memory.
 */
#include "run/sim.h"

#include <stdlib.h>
#include <string.h>

struct weft_model_rows {
	weft_buf *series, *snap;
	unsigned char *host;
	size_t row_bytes;
	uint64_t slot_cap;		 /* rows per snapshot region */
	uint64_t read;			 /* rows 0..read-1 are collected */
	uint64_t *slot_first, *slot_end; /* per slot */
};

/* The snapshot buffer, zeroed so that every byte is defined (state
 * digests compare it). */
static weft_status weft__rows_snap(weft_model_ctx *mc, weft_model_rows *r,
				   unsigned slots)
{
	size_t bytes = (size_t)slots * r->slot_cap * r->row_bytes;
	void *zero = calloc(1, bytes ? bytes : 1);
	weft_status st;

	if (!zero)
		return weft__model_fail(mc, WEFT_E_NOMEM,
					"cannot allocate %zu bytes for output "
					"snapshots",
					bytes);
	st = weft__model_alloc(mc, "series snapshots", bytes, &r->snap);
	if (st == WEFT_OK)
		st = weft__model_upload(mc, r->snap, 0, zero, bytes);
	free(zero);
	return st;
}

/* Both buffers are state, and the run knows the series for its
 * checkpoints. */
static weft_status weft__rows_register(weft_model_ctx *mc, weft_model_rows *r)
{
	weft_sim *sim = mc->sim;
	weft_model_rows **grown;
	weft_status st;

	if ((st = weft__model_state(mc, r->series)) ||
	    (st = weft__model_state(mc, r->snap)))
		return st;
	grown = realloc(sim->rows, (sim->n_rows + 1) * sizeof *grown);
	if (!grown)
		return weft__model_fail(mc, WEFT_E_NOMEM, "out of memory");
	sim->rows = grown;
	grown[sim->n_rows++] = r;
	return WEFT_OK;
}

/* Forget r in the run's list (closing it). */
static void weft__rows_unregister(weft_sim *sim, const weft_model_rows *r)
{
	size_t i;

	for (i = 0; i < sim->n_rows && sim->rows[i] != r; i++)
		;
	if (i == sim->n_rows)
		return;
	memmove(&sim->rows[i], &sim->rows[i + 1],
		(sim->n_rows - i - 1) * sizeof *sim->rows);
	sim->n_rows--;
}

weft_status weft_model_rows_open(weft_model_ctx *mc, weft_buf *series,
				 void *host, size_t row_bytes,
				 uint64_t slot_rows, weft_model_rows **out)
{
	unsigned slots = weft__model_output_slots(mc);
	weft_model_rows *r = calloc(1, sizeof *r);
	weft_status st;

	*out = NULL;
	if (r) {
		r->slot_first = calloc(slots, sizeof *r->slot_first);
		r->slot_end = calloc(slots, sizeof *r->slot_end);
	}
	if (!r || !r->slot_first || !r->slot_end) {
		weft_model_rows_close(mc, r);
		return weft__model_fail(mc, WEFT_E_NOMEM,
					"cannot allocate the output slots");
	}
	r->series = series;
	r->host = host;
	r->row_bytes = row_bytes;
	r->slot_cap = slot_rows;
	if ((st = weft__rows_snap(mc, r, slots)) ||
	    (st = weft__rows_register(mc, r))) {
		weft_model_rows_close(mc, r);
		return st;
	}
	*out = r;
	return WEFT_OK;
}

uint64_t weft_model_rows_due(uint64_t steps_done, uint64_t every,
			     uint64_t last_step, uint64_t first,
			     uint64_t n_rows)
{
	uint64_t rows = first + (every ? steps_done / every : 0);

	if (steps_done == last_step && every && steps_done % every != 0)
		rows++;
	return rows < n_rows ? rows : n_rows;
}

weft_status weft_model_rows_collect(weft_model_ctx *mc, weft_model_rows *r,
				    unsigned slot, uint64_t end)
{
	uint64_t first = r->read, n = end > first ? end - first : 0;
	size_t region = (size_t)slot * r->slot_cap * r->row_bytes;
	weft_status st;

	r->slot_first[slot] = r->slot_end[slot] = first;
	if (n == 0)
		return WEFT_OK;
	if (n > r->slot_cap)
		return weft__model_fail(mc, WEFT_E_INTERNAL,
					"rows %llu to %llu do not fit a "
					"snapshot region of %llu rows",
					(unsigned long long)first,
					(unsigned long long)end - 1,
					(unsigned long long)r->slot_cap);
	if ((st = weft__model_copy(mc, r->snap, region, r->series,
				   first * r->row_bytes, n * r->row_bytes)) ||
	    (st = weft__model_download_async(mc, r->host + first * r->row_bytes,
					     r->snap, region,
					     n * r->row_bytes)))
		return st;
	r->slot_end[slot] = end;
	r->read = end;
	return WEFT_OK;
}

void weft_model_rows_slot(const weft_model_rows *r, unsigned slot,
			  uint64_t *first, uint64_t *end)
{
	*first = r->slot_first[slot];
	*end = r->slot_end[slot];
}

uint64_t weft_model_rows_read(const weft_model_rows *r)
{
	return r ? weft__model_rows_read(r) : 0;
}

uint64_t weft__model_rows_read(const weft_model_rows *r)
{
	return r->read;
}

weft_status weft__rows_restore(weft_model_ctx *mc, weft_model_rows *r,
			       uint64_t read)
{
	const weft__sim_buf *b = weft__sim_buf_find(mc->sim, r->series);
	uint64_t cap = b ? b->bytes / r->row_bytes : 0;

	if (read > cap)
		return weft__model_fail(mc, WEFT_E_INTERNAL,
					"a checkpoint's %llu rows collected do "
					"not fit the series of %llu rows",
					(unsigned long long)read,
					(unsigned long long)cap);
	r->read = read;
	if (read == 0)
		return WEFT_OK;
	return weft__model_download(mc, r->host, r->series, 0,
				    read * r->row_bytes);
}

void weft_model_rows_close(weft_model_ctx *mc, weft_model_rows *r)
{
	if (!r)
		return;
	if (mc->sim)
		weft__rows_unregister(mc->sim, r);
	if (r->snap)
		weft__model_free(mc, r->snap);
	free(r->slot_first);
	free(r->slot_end);
	free(r);
}
