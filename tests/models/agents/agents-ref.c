/*
 * agents-ref.c - the plain C reference of the population test model
 * (agents-test.c): the same decisions (agents_test_shared.h), applied one
 * agent after another, with arrays that grow as needed.
 *
 *   agents-ref SEED STEPS INITIAL MAX_CHILDREN DEATH CAPACITY DIR
 *
 * writes DIR/steps.csv and DIR/agents.csv as the model writes them with
 * [output] every = 1, or, when the population would need more than
 * CAPACITY slots, prints "overflow STEP NEED" (the first step at which
 * count + births exceeds it, and the most slots any births stage up to
 * the end of that step needed) and writes nothing.
 */
#include <stdio.h>
#include <stdlib.h>

#include <weft/kernel_host.h>
#include <weft/kernel.h>

#include "agents_test_shared.h"

int main(int argc, char **argv)
{
	at_params p = { 0 };
	unsigned long long seed;
	uint32_t steps, n, cap, next;
	uint32_t *ids = NULL, *vals = NULL, *nids = NULL, *nvals = NULL;
	int rc = 0;
	double death, thr;
	char path[4096];
	FILE *f, *g;

	if (argc != 8)
		return 2;
	seed = strtoull(argv[1], NULL, 0);
	steps = (uint32_t)strtoul(argv[2], NULL, 0);
	n = next = (uint32_t)strtoul(argv[3], NULL, 0);
	p.max_children = (uint32_t)strtoul(argv[4], NULL, 0);
	death = strtod(argv[5], NULL);
	cap = (uint32_t)strtoul(argv[6], NULL, 0);
	p.seed_lo = (uint32_t)seed;
	p.seed_hi = (uint32_t)(seed >> 32);
	thr = death * 4294967296.0;
	p.death_thr = thr >= 4294967295.0 ? 0xFFFFFFFFu : (uint32_t)thr;
	ids = malloc(4 * (size_t)cap);
	vals = malloc(4 * (size_t)cap);
	nids = malloc(4 * (size_t)cap * (p.max_children + 1));
	nvals = malloc(4 * (size_t)cap * (p.max_children + 1));
	if (!ids || !vals || !nids || !nvals) {
		rc = 3;
		goto free_arrays;
	}
	for (uint32_t i = 0; i < n; i++)
		ids[i] = vals[i] = i;
	snprintf(path, sizeof path, "%s/steps.csv", argv[7]);
	f = fopen(path, "w");
	if (!f) {
		rc = 4;
		goto free_arrays;
	}
	fprintf(f, "step,count,next_id\n0,%u,%u\n", n, n);
	for (uint32_t t = 0; t < steps; t++) {
		uint32_t m = 0, born = 0, k;

		/* Survivors in order, each followed by nothing: children come
		 * after every parent, in parent order. */
		for (uint32_t i = 0; i < n; i++)
			born += at_children(&p, t, ids[i]);
		if ((uint64_t)n + born > cap) {
			printf("overflow %u %llu\n", t + 1,
			       (unsigned long long)n + born);
			fclose(f);
			goto free_arrays;
		}
		for (uint32_t i = 0; i < n; i++)
			if (at_survives(&p, t, ids[i])) {
				nids[m] = ids[i];
				nvals[m++] = vals[i];
			}
		k = next;
		for (uint32_t i = 0; i < n; i++)
			for (uint32_t c = 0; c < at_children(&p, t, ids[i]);
			     c++) {
				nids[m] = k++;
				nvals[m++] = at_child_value(vals[i], c);
			}
		next = k;
		n = m;
		for (uint32_t i = 0; i < n; i++) {
			ids[i] = nids[i];
			vals[i] = nvals[i];
		}
		fprintf(f, "%u,%u,%u\n", t + 1, n, next);
	}
	fclose(f);
	snprintf(path, sizeof path, "%s/agents.csv", argv[7]);
	g = fopen(path, "w");
	if (!g) {
		rc = 4;
		goto free_arrays;
	}
	fprintf(g, "id,value\n");
	for (uint32_t i = 0; i < n; i++)
		fprintf(g, "%u,%u\n", ids[i], vals[i]);
	fclose(g);
free_arrays:
	free(nvals);
	free(nids);
	free(vals);
	free(ids);
	return rc;
}
