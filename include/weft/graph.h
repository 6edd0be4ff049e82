/*
 * weft/graph.h - the host side of weft's contact-graph kit
 * (docs/graph.md): fills the skip tables that weft/graph.wk's sampling
 * reads on the device, and turns probabilities into its Q28 chances.
 *
 * The kernel helpers are in weft/graph.wk (no kernels: nothing to launch
 * or number); this header includes it through the host prelude
 * (weft/kernel_host.h), so host code shares its constants and
 * weft_graph_tables, and may call the same helpers (tests, references).
 * Header-only, static inline; the tables use libm (link with -lm).
 */
#ifndef WEFT_GRAPH_H
#define WEFT_GRAPH_H

#include <math.h>
#include <stdint.h>
#include <weft/kernel_host.h>

#include <weft/graph.wk>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest k whose rate is at least pc (the rates decrease): a binary
 * search, the definition weft_graph_level() shortens. */
static inline uint32_t weft_graph__level_ref(const uint32_t *lvl_q28,
					     uint64_t pc)
{
	uint32_t lo = 0, hi = WEFT_GRAPH_LEVELS - 1;

	while (lo < hi) {
		uint32_t mid = (lo + hi + 1) / 2;
		if (lvl_q28[mid] >= pc)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* Fill the skip tables: the candidate rates round(2^28 2^(-k/16)), their
 * -log2(1 - q) in Q48, log2(1 + i / WEFT_GRAPH_LOG_STEPS) in Q30, and
 * weft_graph_level's first guesses: for each octave e and slice s of the
 * Q28 rates, the level of the slice's largest rate (the slice holds the pc
 * in [2^e, 2^(e+1)) with (pc - 2^e) 2^B / 2^e = s, B =
 * WEFT_GRAPH_LVL_BITS). The same tables for every model and run: a model
 * may fill them once, into its parameter block. */
static inline void weft_graph_tables_init(weft_graph_tables *t)
{
	for (int k = 0; k < WEFT_GRAPH_LEVELS; k++) {
		double q = floor(ldexp(1.0, 28) * pow(2.0, -k / 16.0) + 0.5);
		double l =
			k == 0 ? 0.0 : -log1p(-q / ldexp(1.0, 28)) / log(2.0);
		uint64_t lq = (uint64_t)floor(ldexp(l, 48) + 0.5);
		t->lvl_q28[k] = (uint32_t)q;
		t->lvl_log[k][0] = (uint32_t)lq;
		t->lvl_log[k][1] = (uint32_t)(lq >> 32);
	}
	for (int i = 0; i <= WEFT_GRAPH_LOG_STEPS; i++)
		t->log2_q30[i] = (uint32_t)floor(
			ldexp(log2(1.0 + (double)i / WEFT_GRAPH_LOG_STEPS),
			      30) +
			0.5);
	for (uint32_t e = 0; e < WEFT_GRAPH_LVL_OCTAVES; e++) {
		for (uint32_t s = 0; s < 1u << WEFT_GRAPH_LVL_BITS; s++) {
			uint64_t top = ((uint64_t)(s + 1) << e) - 1;
			uint64_t pc = ((uint64_t)1 << e) +
				      (top >> WEFT_GRAPH_LVL_BITS);

			if (pc > WEFT_GRAPH_Q28_ONE)
				pc = WEFT_GRAPH_Q28_ONE;
			t->lvl_start[e << WEFT_GRAPH_LVL_BITS | s] =
				weft_graph__level_ref(t->lvl_q28, pc);
		}
	}
}

/* A probability as a Q28 chance (p times 2^28, rounded to nearest): 0 for
 * p <= 0 (or NaN), WEFT_GRAPH_Q28_ONE (certain) for p >= 1. The smallest
 * chance above 0 is 2^-28, about 3.7e-9. */
static inline uint32_t weft_graph_q28(double p)
{
	double t;

	if (!(p > 0.0))
		return 0u;
	if (p >= 1.0)
		return WEFT_GRAPH_Q28_ONE;
	t = floor(p * 268435456.0 + 0.5);
	return (uint32_t)t;
}

#ifdef __cplusplus
}
#endif

#endif /* WEFT_GRAPH_H */
