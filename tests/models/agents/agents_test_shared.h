/*
 * agents_test_shared.h - what the population test model (agents-test.wk,
 * agents-test.c) and its plain C reference (agents-ref.c) share: the
 * decisions of each agent at each step, from counter-based draws.
 * Written in the kernel dialect.
 */
#ifndef AGENTS_TEST_SHARED_H
#define AGENTS_TEST_SHARED_H

#define AT_PURPOSE 7u

/* The parameter block. */
typedef struct at_params {
	weft_u32 seed_lo, seed_hi;
	weft_u32 max_children; /* 0 .. max_children children per step */
	weft_u32 death_thr;    /* dies when a draw is below it */
	weft_u32 reserved[4];
} at_params;

/* Children of agent `id` at the step that starts with t steps done. */
WEFT_FN weft_u32 at_children(WEFT_GLOBAL const at_params *p, weft_u32 t,
			     weft_u32 id)
{
	weft_rand4 r =
		weft_philox(p->seed_lo, p->seed_hi, t, id, 0u, AT_PURPOSE);

	return WEFT_MULHI32(r.v[0], p->max_children + 1u);
}

/* Whether agent `id` survives that step (its children always do). */
WEFT_FN int at_survives(WEFT_GLOBAL const at_params *p, weft_u32 t, weft_u32 id)
{
	weft_rand4 r =
		weft_philox(p->seed_lo, p->seed_hi, t, id, 0u, AT_PURPOSE);

	return r.v[1] >= p->death_thr;
}

/* A child's value: its parent's times 3, plus its index among its
 * siblings and 1 (mod 2^32). */
WEFT_FN weft_u32 at_child_value(weft_u32 parent_value, weft_u32 c)
{
	return parent_value * 3u + c + 1u;
}

#endif
