/*
 * bench/partition-graph.c - the contact graph that the SEIR model puts on
 * the device, read back through libweft's public API, for
 * bench/partition_cut.py to partition (docs/scaling.md).
 *
 *   partition-graph CONFIG OUTPREFIX [SECTION.KEY=VALUE ...]
 *
 * Opens a run of CONFIG (with the assignments applied, as `weft run
 * --set` does), reads the model's buffers "contact rows" (an agent's row
 * offsets of every stored layer together: n x layers + 1 u32) and
 * "contacts" (the u32 columns), steps one day so that the summary names
 * the stored layers and the device memory, and writes
 *
 *   OUTPREFIX.rows, OUTPREFIX.cols   the two buffers as they are
 *   OUTPREFIX.txt                    agents, layers (in slot order), the
 *                                    daily community contacts, seconds,
 *                                    and the summary's lines
 *
 * Checks that every layer's entries add up to the summary's count and
 * that the graph is symmetric (each stored contact in both directions),
 * and fails with a one-line message otherwise.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <weft/weft.h>

#define MAX_LAYERS 4

typedef struct graph {
	uint32_t n, n_layers;
	char layer[MAX_LAYERS][16];
	uint64_t layer_count[MAX_LAYERS];
	uint32_t community_daily;
	size_t rows_bytes, cols_bytes;
	uint32_t *rows, *cols;
} graph;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int fail(const char *what, const char *why)
{
	fprintf(stderr, "partition-graph: %s: %s\n", what, why);
	return 1;
}

/* A model buffer read whole into fresh host memory. */
static weft_status read_buffer(weft_context *ctx, weft_sim *sim,
			       const char *name, uint32_t **out, size_t *bytes)
{
	weft_sim_buffer *b = weft_sim_buffer_find(sim, name);
	weft_buffer_info info = { .struct_size = sizeof info };
	weft_status st;

	if (!b)
		return weft_context_fail(ctx, WEFT_E_INVALID,
					 "the model has no buffer '%s'", name);
	if ((st = weft_sim_buffer_info(b, &info)))
		return st;
	*out = malloc(info.bytes ? info.bytes : 1);
	if (!*out)
		return weft_context_fail(ctx, WEFT_E_NOMEM,
					 "cannot allocate %zu bytes for '%s'",
					 info.bytes, name);
	*bytes = info.bytes;
	return weft_sim_read(sim, *out, b, 0, info.bytes, 0);
}

/* The stored layers, in slot order, from the summary's "contacts stored"
 * line ("home 123, school 0, work 456, community 0 (mean degree ...)"):
 * the layers with entries are the ones the model stores. */
static int parse_layers(graph *g, const char *line)
{
	const char *p = line;
	char name[16];
	unsigned long long count;
	int used;

	g->n_layers = 0;
	while (sscanf(p, " %15[a-z] %llu%n", name, &count, &used) == 2) {
		if (count && g->n_layers < MAX_LAYERS) {
			strcpy(g->layer[g->n_layers], name);
			g->layer_count[g->n_layers++] = count;
		}
		p += used;
		if (*p != ',')
			break;
		p++;
	}
	return g->n_layers ? 0 : -1;
}

/* Each layer's entries against the summary, and symmetry: for every
 * entry (a, b) of a layer, b's row of that layer holds a. Rows are
 * sorted (models/seir/populations.md), so a binary search. */
static int check_graph(const graph *g)
{
	uint32_t L = g->n_layers;
	uint64_t seen[MAX_LAYERS] = { 0 };

	if (g->rows_bytes != ((size_t)g->n * L + 1) * 4 ||
	    g->rows[(size_t)g->n * L] * 4ull != g->cols_bytes)
		return fail("contact rows", "size does not match the agents, "
					    "layers and contacts");
	for (uint32_t a = 0; a < g->n; a++)
		for (uint32_t l = 0; l < L; l++) {
			size_t r = (size_t)a * L + l;
			seen[l] += g->rows[r + 1] - g->rows[r];
			for (uint32_t e = g->rows[r]; e < g->rows[r + 1]; e++) {
				uint32_t b = g->cols[e];
				size_t s = (size_t)b * L + l;
				uint32_t lo = g->rows[s], hi = g->rows[s + 1];
				while (lo < hi) {
					uint32_t mid = lo + (hi - lo) / 2;
					if (g->cols[mid] < a)
						lo = mid + 1;
					else
						hi = mid;
				}
				if (b >= g->n || lo == g->rows[s + 1] ||
				    g->cols[lo] != a)
					return fail(g->layer[l],
						    "a contact is not stored "
						    "in both directions");
			}
		}
	for (uint32_t l = 0; l < L; l++)
		if (seen[l] != g->layer_count[l])
			return fail(g->layer[l], "entries differ from the "
						 "summary's count");
	return 0;
}

static int write_file(const char *prefix, const char *ext, const void *p,
		      size_t bytes)
{
	char path[4096];
	FILE *f;
	int bad;

	snprintf(path, sizeof path, "%s.%s", prefix, ext);
	f = fopen(path, "wb");
	if (!f)
		return fail(path, "cannot open for writing");
	bad = fwrite(p, 1, bytes, f) != bytes;
	bad |= fclose(f) != 0;
	return bad ? fail(path, "cannot write") : 0;
}

static int write_header(const char *prefix, const graph *g, weft_sim *sim,
			double secs)
{
	char path[4096];
	FILE *f;
	const char *key, *value;

	snprintf(path, sizeof path, "%s.txt", prefix);
	f = fopen(path, "w");
	if (!f)
		return fail(path, "cannot open for writing");
	fprintf(f, "agents %" PRIu32 "\nlayers", g->n);
	for (uint32_t l = 0; l < g->n_layers; l++)
		fprintf(f, " %s", g->layer[l]);
	fprintf(f, "\ncommunity_daily %" PRIu32 "\nbuild_seconds %.2f\n",
		g->community_daily, secs);
	for (size_t i = 0; i < weft_sim_summary_count(sim); i++)
		if (!weft_sim_summary_at(sim, i, &key, &value))
			fprintf(f, "summary %s: %s\n", key, value);
	return fclose(f) ? fail(path, "cannot write") : 0;
}

static int write_all(const char *prefix, const graph *g, weft_sim *sim,
		     double secs)
{
	return write_file(prefix, "rows", g->rows, g->rows_bytes) ||
	       write_file(prefix, "cols", g->cols, g->cols_bytes) ||
	       write_header(prefix, g, sim, secs);
}

/* Open, read the buffers, run a day for the summary. */
static weft_status dump(weft_context *ctx, weft_config *cfg, graph *g,
			weft_sim **sim, double *secs)
{
	const char *key, *value;
	double t0 = now_s();
	weft_status st;

	if ((st = weft_sim_open(ctx, cfg, sim)))
		return st;
	*secs = now_s() - t0;
	if ((st = read_buffer(ctx, *sim, "contact rows", &g->rows,
			      &g->rows_bytes)) ||
	    (st = read_buffer(ctx, *sim, "contacts", &g->cols,
			      &g->cols_bytes)) ||
	    (st = weft_sim_step(*sim, 1)) || (st = weft_sim_finish(*sim)))
		return st;
	for (size_t i = 0; i < weft_sim_summary_count(*sim); i++) {
		if (weft_sim_summary_at(*sim, i, &key, &value))
			continue;
		if (!strcmp(key, "agents"))
			g->n = (uint32_t)strtoul(value, NULL, 10);
		else if (!strcmp(key, "community contacts"))
			g->community_daily = (uint32_t)strtoul(value, NULL, 10);
		else if (!strcmp(key, "contacts stored") &&
			 parse_layers(g, value))
			return weft_context_fail(ctx, WEFT_E_INVALID,
						 "summary 'contacts stored: "
						 "%s': no stored layer",
						 value);
	}
	return WEFT_OK;
}

int main(int argc, char **argv)
{
	weft_context *ctx = NULL;
	weft_config *cfg = NULL;
	weft_sim *sim = NULL;
	graph g = { 0 };
	double secs = 0;
	int rc = 1;

	if (argc < 3) {
		fprintf(stderr, "usage: partition-graph CONFIG OUTPREFIX "
				"[SECTION.KEY=VALUE ...]\n");
		return 2;
	}
	if (weft_context_new(&ctx))
		return fail("weft_context_new", "out of memory");
	if (weft_config_load(ctx, argv[1], &cfg))
		goto free_context;
	for (int i = 3; i < argc; i++)
		if (weft_config_set(ctx, cfg, argv[i]))
			goto free_config;
	if (dump(ctx, cfg, &g, &sim, &secs))
		goto close_sim;
	rc = check_graph(&g) || write_all(argv[2], &g, sim, secs);
close_sim:
	weft_sim_close(sim);
	free(g.rows);
	free(g.cols);
free_config:
	weft_config_free(cfg);
free_context:
	if (rc && weft_context_error(ctx)[0])
		fprintf(stderr, "partition-graph: %s\n",
			weft_context_error(ctx));
	weft_context_free(ctx);
	return rc;
}
