/*
 * weft/agents.h - the host side of weft's populations (docs/agents.md):
 * agents with a capacity and a live count on the device, born with
 * deterministic identities and removed by stable compaction, and the
 * error a population that runs out of capacity makes.
 *
 * The kernels are in weft/agents.wk (which includes weft/blocks.wk), in
 * the model's kernel file; weft-wk numbers them after the blocks, the
 * first being weft_agents (NAME_K_WEFT_AGENTS). The helpers below take
 * `first` = NAME_K_WEFT_BLOCKS and `afirst` = NAME_K_WEFT_AGENTS, write
 * their launches to l[0], l[1], ... and return how many they wrote.
 *
 *     setup():    weft_agents_open(mc, &s->sheep, "sheep", "[m]
 * sheep_capacity", cap, n0, n0);   then upload the fields the step:   the model
 * writes nchild[] (births) or alive[] (deaths), n += weft_agents_births(l + n,
 * B, A, &s->sheep);
 *                 ... the model's birth kernel (weft_agents_child()) ...
 *                 n += weft_agents_births_end(l + n, A, &s->sheep);
 *                 n += weft_agents_deaths(l + n, B, A, &s->sheep, fields, k);
 *     collect():  weft_agents_collect(mc, &s->sheep, slot);
 *     emit():     weft_agents_check(mc, &s->sheep, slot);
 *     teardown(): weft_agents_close(mc, &s->sheep);
 *
 * Header-only, static inline; uses weft/model.h.
 */
#ifndef WEFT_AGENTS_H
#define WEFT_AGENTS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weft/blocks.h>
#include <weft/model.h>

#ifdef __cplusplus
extern "C" {
#endif

/* As in weft/agents.wk. */
#define WEFT_AGENTS_CTL_WORDS 16u
#define WEFT_AGENTS_COUNT     0u
#define WEFT_AGENTS_NEXT      1u
#define WEFT_AGENTS_CAP	      2u
#define WEFT_AGENTS_NEED      3u
#define WEFT_AGENTS_OVER      4u
#define WEFT_AGENTS_STEP      5u
#define WEFT_AGENTS_BASE      6u
#define WEFT_AGENTS_BIRTHS    7u
#define WEFT_AGENTS_ID0	      8u
#define WEFT_AGENTS_NEW	      9u
#define WEFT_AGENTS_KEPT      10u
#define WEFT_AGENTS_DIED      11u

/* The kernels of weft/agents.wk, in file order, from NAME_K_WEFT_AGENTS. */
enum weft_agents_kernel {
	WEFT_AGENTS_K_PLAN, /* weft_agents */
	WEFT_AGENTS_K_BORN,
	WEFT_AGENTS_K_SPAWN_COPY,
	WEFT_AGENTS_K_SPAWN_IDS,
	WEFT_AGENTS_K_GATHER,
	WEFT_AGENTS_K_PUT,
	WEFT_AGENTS_K_DIED,
	WEFT_AGENTS_N_KERNELS
};

/* Launches of the stages: births (scan and plan), births_end, and deaths
 * of a population of f fields. */
#define WEFT_AGENTS_BIRTHS_LAUNCHES	(WEFT_BLOCKS_SCAN_LAUNCHES + 1u)
#define WEFT_AGENTS_BIRTHS_END_LAUNCHES 1u
#define WEFT_AGENTS_DEATHS_LAUNCHES(f) \
	(WEFT_BLOCKS_COMPACT_LAUNCHES + 2u * (uint32_t)(f) + 1u)

/* A population: its name and the key that sets its capacity (for the
 * error), its device buffers and the host copies of its control block,
 * one per output slot. */
typedef struct weft_agents_pop {
	char name[48];
	char key[80];
	uint32_t capacity;
	weft_buf *ctl;	   /* u32[WEFT_AGENTS_CTL_WORDS] */
	weft_buf *nchild;  /* u32 per slot: children this stage (the model's) */
	weft_buf *offs;	   /* u32 per slot: exclusive scan of nchild */
	weft_buf *alive;   /* u8 per slot: 0 = dies this stage (the model's) */
	weft_buf *keep;	   /* u32 per slot: the survivors' slots */
	weft_buf *tmp;	   /* u32 per slot: a gathered field */
	weft_buf *scratch; /* the blocks' scratch */
	uint32_t *host;	   /* WEFT_AGENTS_CTL_WORDS per output slot */
	unsigned slots;
} weft_agents_pop;

/* Device bytes of a population of `fields` u32 fields, for estimate(). */
static inline uint64_t weft_agents_bytes(uint32_t capacity, uint32_t fields)
{
	return (uint64_t)capacity *
		       (4u * (uint64_t)fields + 4 + 4 + 1 + 4 + 4) +
	       weft_blocks_scratch_bytes(capacity) + 4 * WEFT_AGENTS_CTL_WORDS;
}

/* weft_model_alloc() of `bytes`, uploaded as zeros from z. */
static inline weft_status weft_agents__buf(weft_model_ctx *mc, const char *pop,
					   const char *what, size_t bytes,
					   const void *z, weft_buf **out)
{
	char name[96];
	weft_status st;

	snprintf(name, sizeof name, "%s %s", pop, what);
	if ((st = weft_model_alloc(mc, name, bytes, out)) ||
	    (st = weft_model_upload(mc, *out, 0, z, bytes)))
		return st;
	return weft_model_state(mc, *out);
}

/* setup(): a population named `name` of `capacity` slots whose capacity
 * is set by `key` ("[wolf_sheep] sheep_capacity"), with `count` agents
 * live at step 0 and `next_id` the next identity. Allocates and zeroes
 * its buffers and declares them checkpoint state (the model allocates,
 * fills and declares its fields, capacity u32 words each). */
static inline weft_status weft_agents_open(weft_model_ctx *mc,
					   weft_agents_pop *p, const char *name,
					   const char *key, uint32_t capacity,
					   uint32_t count, uint32_t next_id)
{
	uint32_t ctl[WEFT_AGENTS_CTL_WORDS] = { 0 };
	size_t bytes = 4 * (size_t)capacity, sb;
	void *z;
	weft_status st;

	memset(p, 0, sizeof *p);
	snprintf(p->name, sizeof p->name, "%s", name);
	snprintf(p->key, sizeof p->key, "%s", key);
	p->capacity = capacity;
	if (count > capacity)
		return weft_model_fail(mc, WEFT_E_CONFIG,
				       "population '%s': %u agents at step 0 "
				       "do not fit its capacity of %u: raise "
				       "%s",
				       name, count, capacity, key);
	p->slots = weft_model_output_slots(mc);
	p->host = calloc(p->slots, sizeof ctl);
	sb = weft_blocks_scratch_bytes(capacity);
	z = calloc(1, bytes > sb ? bytes : sb);
	if (!p->host || !z) {
		free(z);
		return weft_model_fail(mc, WEFT_E_NOMEM,
				       "population '%s': cannot allocate host "
				       "memory for %u slots",
				       name, capacity);
	}
	ctl[WEFT_AGENTS_COUNT] = count;
	ctl[WEFT_AGENTS_NEXT] = next_id;
	ctl[WEFT_AGENTS_CAP] = capacity;
	if (!(st = weft_agents__buf(mc, name, "ctl", sizeof ctl, ctl,
				    &p->ctl)) &&
	    !(st = weft_agents__buf(mc, name, "nchild", bytes, z,
				    &p->nchild)) &&
	    !(st = weft_agents__buf(mc, name, "offs", bytes, z, &p->offs)) &&
	    !(st = weft_agents__buf(mc, name, "alive", capacity, z,
				    &p->alive)) &&
	    !(st = weft_agents__buf(mc, name, "keep", bytes, z, &p->keep)) &&
	    !(st = weft_agents__buf(mc, name, "tmp", bytes, z, &p->tmp)))
		st = weft_agents__buf(mc, name, "scratch", sb, z, &p->scratch);
	free(z);
	return st;
}

/* teardown(): the buffers and host copies (a zeroed pop is fine). */
static inline void weft_agents_close(weft_model_ctx *mc, weft_agents_pop *p)
{
	weft_model_free(mc, p->scratch);
	weft_model_free(mc, p->tmp);
	weft_model_free(mc, p->keep);
	weft_model_free(mc, p->alive);
	weft_model_free(mc, p->offs);
	weft_model_free(mc, p->nchild);
	weft_model_free(mc, p->ctl);
	free(p->host);
	memset(p, 0, sizeof *p);
}

static inline weft_launch weft_agents__launch(uint32_t kernel, uint32_t extent,
					      weft_buf *count, uint32_t word)
{
	weft_launch l;

	memset(&l, 0, sizeof l);
	l.kernel = kernel;
	l.extent = extent;
	if (count) {
		l.extent_buf = count;
		l.extent_offset = 4 * word;
	}
	return l;
}

/* Births, first half: offs = the exclusive scan of nchild over the live
 * agents, then the stage's plan and the capacity check. The model's
 * kernel wrote nchild[i] for every live i before these launches. */
static inline uint32_t weft_agents_births(weft_launch *l, uint32_t first,
					  uint32_t afirst,
					  const weft_agents_pop *p)
{
	uint32_t n = weft_blocks_scan_u32(l, first, p->nchild, p->offs, p->ctl,
					  WEFT_AGENTS_COUNT, p->scratch,
					  p->capacity, 0);

	l[n] = weft_agents__launch(afirst + WEFT_AGENTS_K_PLAN, 1, NULL, 0);
	l[n].n_bufs = 3;
	l[n].bufs[0] = p->ctl;
	l[n].bufs[1] = p->nchild;
	l[n].bufs[2] = p->offs;
	return n + 1;
}

/* A launch over the parents (extent: the live count before the births):
 * the model's own birth kernel is launched so, or these. */
static inline weft_launch weft_agents_over_parents(uint32_t kernel,
						   const weft_agents_pop *p)
{
	return weft_agents__launch(kernel, p->capacity, p->ctl,
				   WEFT_AGENTS_COUNT);
}

/* Births: every child gets its parent's value of `field` (1 launch). */
static inline uint32_t weft_agents_spawn_copy(weft_launch *l, uint32_t afirst,
					      const weft_agents_pop *p,
					      weft_buf *field)
{
	l[0] = weft_agents_over_parents(afirst + WEFT_AGENTS_K_SPAWN_COPY, p);
	l[0].n_bufs = 4;
	l[0].bufs[0] = p->ctl;
	l[0].bufs[1] = p->nchild;
	l[0].bufs[2] = p->offs;
	l[0].bufs[3] = field;
	return 1;
}

/* Births: every child's identity into `ids` (1 launch). */
static inline uint32_t weft_agents_spawn_ids(weft_launch *l, uint32_t afirst,
					     const weft_agents_pop *p,
					     weft_buf *ids)
{
	l[0] = weft_agents_over_parents(afirst + WEFT_AGENTS_K_SPAWN_IDS, p);
	l[0].n_bufs = 4;
	l[0].bufs[0] = p->ctl;
	l[0].bufs[1] = p->nchild;
	l[0].bufs[2] = p->offs;
	l[0].bufs[3] = ids;
	return 1;
}

/* Births, last: the count and the next identity advance (1 launch). */
static inline uint32_t weft_agents_births_end(weft_launch *l, uint32_t afirst,
					      const weft_agents_pop *p)
{
	l[0] = weft_agents__launch(afirst + WEFT_AGENTS_K_BORN, 1, NULL, 0);
	l[0].n_bufs = 1;
	l[0].bufs[0] = p->ctl;
	return 1;
}

/* Deaths: the live agents whose alive flag is 0 removed, the survivors
 * kept in their order, each of the n_fields fields moved with them, the
 * count updated on the device. The model's kernel wrote alive[i] for
 * every live i before these launches. */
static inline uint32_t weft_agents_deaths(weft_launch *l, uint32_t first,
					  uint32_t afirst,
					  const weft_agents_pop *p,
					  weft_buf *const *fields,
					  uint32_t n_fields)
{
	uint32_t n = weft_blocks_compact_index(
		l, first, p->alive, p->keep, p->ctl, WEFT_AGENTS_COUNT,
		p->scratch, p->capacity, p->ctl, WEFT_AGENTS_KEPT);

	for (uint32_t f = 0; f < n_fields; f++) {
		l[n] = weft_agents__launch(afirst + WEFT_AGENTS_K_GATHER,
					   p->capacity, p->ctl,
					   WEFT_AGENTS_KEPT);
		l[n].n_bufs = 3;
		l[n].bufs[0] = p->keep;
		l[n].bufs[1] = fields[f];
		l[n].bufs[2] = p->tmp;
		n++;
		l[n] = weft_agents__launch(afirst + WEFT_AGENTS_K_PUT,
					   p->capacity, p->ctl,
					   WEFT_AGENTS_KEPT);
		l[n].n_bufs = 2;
		l[n].bufs[0] = p->tmp;
		l[n].bufs[1] = fields[f];
		n++;
	}
	l[n] = weft_agents__launch(afirst + WEFT_AGENTS_K_DIED, 1, NULL, 0);
	l[n].n_bufs = 1;
	l[n].bufs[0] = p->ctl;
	return n + 1;
}

/* collect(): read the control block into the slot's host copy (never
 * waits); emit() of the slot checks it. */
static inline weft_status weft_agents_collect(weft_model_ctx *mc,
					      weft_agents_pop *p, unsigned slot)
{
	return weft_model_download_async(
		mc, p->host + (size_t)(slot % p->slots) * WEFT_AGENTS_CTL_WORDS,
		p->ctl, 0, 4 * WEFT_AGENTS_CTL_WORDS);
}

/* The slot's copy of the control block (after emit() was called). */
static inline const uint32_t *weft_agents_host(const weft_agents_pop *p,
					       unsigned slot)
{
	return p->host + (size_t)(slot % p->slots) * WEFT_AGENTS_CTL_WORDS;
}

/* emit(): the run fails when the population ran out of capacity by the
 * end of the slot's chunk (steps_done), naming it, the step, the slots it
 * needed and the key to raise. */
static inline weft_status weft_agents_check(weft_model_ctx *mc,
					    const weft_agents_pop *p,
					    unsigned slot, uint64_t steps_done)
{
	const uint32_t *c = weft_agents_host(p, slot);

	if (!c[WEFT_AGENTS_OVER])
		return WEFT_OK;
	return weft_model_fail(
		mc, WEFT_E_MODEL,
		"population '%s' ran out of capacity at step %u (seen after "
		"step %llu): its births needed %u slots, %s = %u; raise %s to "
		"at least %u",
		p->name, c[WEFT_AGENTS_OVER], (unsigned long long)steps_done,
		c[WEFT_AGENTS_NEED], p->key, p->capacity, p->key,
		c[WEFT_AGENTS_NEED]);
}

#ifdef __cplusplus
}
#endif

#endif /* WEFT_AGENTS_H */
