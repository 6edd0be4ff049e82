/*
 * models/seir/population_csr.c - contact layers as CSR: the two-pass
 * builder (count, prefix sums, fill through per-block buckets, then sort
 * and deduplicate each row) and the contacts within groups (households,
 * schools, workplaces, the community), drawn from Philox keyed by group
 * and draw number.
 *
 * Nothing here depends on the order of work or on threads: a generator
 * emits the same edges in the same order in both passes, and each row is
 * sorted at the end, so the layer is a function of the edge set alone.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "population_build.h"

/* ---- distributions ------------------------------------------------------ */

void weft__pop_sampler_init(seir_pop_sampler *s, const seir_pop_bins *b)
{
	double total = 0, run = 0;

	memset(s, 0, sizeof *s);
	for (uint32_t i = 0; i < b->n; i++)
		total += b->w[i];
	s->n = b->n;
	for (uint32_t i = 0; i < b->n; i++) {
		run += b->w[i];
		s->cum[i] = (uint64_t)(run / total * 4294967296.0);
		s->lo[i] = b->lo[i];
		s->span[i] = b->hi[i] - b->lo[i] + 1;
	}
	if (b->n)
		s->cum[b->n - 1] = 4294967296ull;
}

uint32_t weft__pop_sample(const seir_pop_sampler *s, uint32_t d0, uint32_t d1)
{
	uint32_t i = 0;

	while (i + 1 < s->n && d0 >= s->cum[i])
		i++;
	return s->lo[i] + weft__pop_below(d1, s->span[i]);
}

/* ---- the builder ----------------------------------------------------------
 */

static int pop_cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return (a > b) - (a < b);
}

static int pop_cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return (a > b) - (a < b);
}

/* Rows are short (a household, a class, 20 community contacts): insertion
 * sort, and qsort for the long ones. */
static void pop_sort_u32(uint32_t *v, uint32_t n)
{
	if (n > 32) {
		qsort(v, n, sizeof *v, pop_cmp_u32);
		return;
	}
	for (uint32_t i = 1; i < n; i++) {
		uint32_t x = v[i], j = i;
		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

static void pop_sort_u64(uint64_t *v, uint32_t n)
{
	if (n > 32) {
		qsort(v, n, sizeof *v, pop_cmp_u64);
		return;
	}
	for (uint32_t i = 1; i < n; i++) {
		uint64_t x = v[i];
		uint32_t j = i;
		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* Sort each row and drop repeated neighbours, compacting row and col. */
static uint64_t pop_dedup(uint32_t n, uint32_t *row, uint32_t *col)
{
	uint64_t w = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t begin = row[i], end = row[i + 1];
		pop_sort_u32(col + begin, end - begin);
		row[i] = (uint32_t)w;
		for (uint32_t e = begin; e < end; e++)
			if (e == begin || col[e] != col[e - 1])
				col[w++] = col[e];
	}
	row[n] = (uint32_t)w;
	return w;
}

/* The same with weights: each row sorted as (neighbour, weight) keys in
 * tmp, so that the last of a run of one neighbour has the largest weight. */
static uint64_t pop_dedup_weighted(uint32_t n, uint32_t *row, uint32_t *col,
				   uint16_t *wt, uint64_t *tmp)
{
	uint64_t w = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t begin = row[i], end = row[i + 1], len = end - begin;
		for (uint32_t e = 0; e < len; e++)
			tmp[e] = (uint64_t)col[begin + e] << 16 | wt[begin + e];
		pop_sort_u64(tmp, len);
		row[i] = (uint32_t)w;
		for (uint32_t e = 0; e < len; e++) {
			if (e + 1 < len && tmp[e + 1] >> 16 == tmp[e] >> 16)
				continue;
			col[w] = (uint32_t)(tmp[e] >> 16);
			wt[w++] = (uint16_t)tmp[e];
		}
	}
	row[n] = (uint32_t)w;
	return w;
}

static uint32_t pop_max_row(uint32_t n, const uint32_t *row)
{
	uint32_t m = 0;
	for (uint32_t i = 0; i < n; i++)
		if (row[i + 1] - row[i] > m)
			m = row[i + 1] - row[i];
	return m;
}

/* Degrees to offsets; 0 when the layer would overflow 32-bit offsets. */
static int pop_prefix(uint32_t n, uint32_t *row, uint64_t emitted)
{
	if (2 * emitted > UINT32_MAX)
		return 0;
	for (uint32_t i = 0; i < n; i++)
		row[i + 1] += row[i];
	return 1;
}

/* Sort and deduplicate; drop the weights when every edge weighs 1. */
static weft_status pop_finish(uint32_t n, seir_csr *l, char *err,
			      size_t err_size)
{
	uint64_t *tmp;

	if (!l->weight) {
		l->n_edges = pop_dedup(n, l->row, l->col);
		return WEFT_OK;
	}
	tmp = malloc(((size_t)pop_max_row(n, l->row) + 1) * sizeof *tmp);
	if (!tmp) {
		snprintf(err, err_size, "cannot allocate a row of weights");
		return WEFT_E_NOMEM;
	}
	l->n_edges = pop_dedup_weighted(n, l->row, l->col, l->weight, tmp);
	free(tmp);
	for (uint64_t e = 0; e < l->n_edges; e++)
		if (l->weight[e] != 1000)
			return WEFT_OK;
	free(l->weight);
	l->weight = NULL;
	return WEFT_OK;
}

static weft_status pop_nomem(char *err, size_t err_size, const char *what,
			     uint64_t bytes)
{
	snprintf(err, err_size,
		 "cannot allocate %llu bytes of host memory for the %s layer",
		 (unsigned long long)bytes, what);
	return WEFT_E_NOMEM;
}

int weft__pop_cancelled(seir_pop_sink *s)
{
	if (!s->stop && weft_model_cancelled(s->mc))
		s->stop = 1;
	return s->stop;
}

void weft__pop_flush(seir_pop_sink *s, uint32_t b)
{
	const uint64_t *e = s->bucket + (size_t)b * SEIR_POP_BUCKET_CAP;
	uint32_t len = s->bucket_len[b];

	if (!s->fill)
		for (uint32_t k = 0; k < len; k++)
			s->row[(e[k] >> 32) + 1]++;
	else
		for (uint32_t k = 0; k < len; k++)
			s->col[s->cursor[e[k] >> 32]++] = (uint32_t)e[k];
	s->bucket_len[b] = 0;
	weft__pop_cancelled(s);
}

static weft_status pop_cancelled(char *err, size_t err_size, const char *what)
{
	snprintf(err, err_size, "cancelled while building the %s layer", what);
	return WEFT_E_CANCELLED;
}

/* The run's progress line: pass k (from 1) of a layer's three. */
static void pop_progress(const seir_pop_sink *s, const char *what,
			 const char *doing, uint64_t k)
{
	char line[128];

	snprintf(line, sizeof line, "building the %s layer: %s", what, doing);
	weft_model_progress(s->mc, line, k, 3);
}

/* One pass of the generator, then what its buckets still hold. */
static void pop_pass(uint32_t n, seir_pop_gen_fn gen, const void *arg,
		     seir_pop_sink *s)
{
	s->emitted = 0;
	gen(arg, s);
	for (uint32_t b = 0; b <= n >> SEIR_POP_BUCKET_SHIFT; b++)
		weft__pop_flush(s, b);
}

/* Second pass: offsets to cursors, generate again into col. */
static weft_status pop_fill(uint32_t n, seir_pop_gen_fn gen, const void *arg,
			    int weighted, const char *what, seir_csr *l,
			    seir_pop_sink *s, char *err, size_t err_size)
{
	uint64_t entries = l->row[n];

	l->col = malloc((size_t)(entries + 1) * sizeof *l->col);
	l->weight = weighted ? malloc((size_t)(entries + 1) * 2) : NULL;
	s->cursor = malloc((size_t)n * sizeof *s->cursor + 1);
	if (!l->col || (weighted && !l->weight) || !s->cursor) {
		free(s->cursor);
		return pop_nomem(err, err_size, what,
				 entries * (weighted ? 6 : 4) + 4ull * n);
	}
	memcpy(s->cursor, l->row, (size_t)n * sizeof *s->cursor);
	s->fill = 1;
	s->col = l->col;
	s->weight = l->weight;
	pop_pass(n, gen, arg, s);
	free(s->cursor);
	return WEFT_OK;
}

/* Count, check, fill, sort and deduplicate. */
static weft_status pop_passes(uint32_t n, seir_pop_gen_fn gen, const void *arg,
			      int weighted, const char *what, seir_csr *out,
			      seir_pop_sink *s, char *err, size_t err_size)
{
	weft_status st;

	s->row = out->row;
	pop_progress(s, what, "counting contacts", 1);
	pop_pass(n, gen, arg, s);
	if (s->stop)
		return pop_cancelled(err, err_size, what);
	if (!pop_prefix(n, out->row, s->emitted)) {
		snprintf(err, err_size,
			 "the %s layer has more than the 2^32 - 1 contacts a "
			 "contact layer can index; lower the agents or the "
			 "contacts",
			 what);
		return WEFT_E_CONFIG;
	}
	pop_progress(s, what, "storing contacts", 2);
	if ((st = pop_fill(n, gen, arg, weighted, what, out, s, err, err_size)))
		return st;
	if (s->stop)
		return pop_cancelled(err, err_size, what);
	pop_progress(s, what, "sorting contacts", 3);
	return pop_finish(n, out, err, err_size);
}

weft_status weft__pop_layer_build(const weft_model_ctx *mc, uint32_t n,
				  seir_pop_gen_fn gen, const void *arg,
				  int weighted, const char *what, seir_csr *out,
				  char *err, size_t err_size)
{
	size_t buckets = ((size_t)n >> SEIR_POP_BUCKET_SHIFT) + 1;
	seir_pop_sink s = { .mc = mc };
	weft_status st = WEFT_E_NOMEM;

	memset(out, 0, sizeof *out);
	out->row = calloc((size_t)n + 1, sizeof *out->row);
	s.bucket = malloc(buckets * SEIR_POP_BUCKET_CAP * sizeof *s.bucket);
	s.bucket_len = calloc(buckets, sizeof *s.bucket_len);
	if (!out->row || !s.bucket || !s.bucket_len)
		pop_nomem(err, err_size, what,
			  4ull * (n + 1) + buckets * SEIR_POP_BUCKET_CAP * 8);
	else
		st = pop_passes(n, gen, arg, weighted, what, out, &s, err,
				err_size);
	free(s.bucket_len);
	free(s.bucket);
	if (st)
		weft__pop_layer_free(out);
	return st;
}

weft_status weft__pop_layer_empty(uint32_t n, seir_csr *out, char *err,
				  size_t err_size)
{
	memset(out, 0, sizeof *out);
	out->row = calloc((size_t)n + 1, sizeof *out->row);
	out->col = calloc(1, sizeof *out->col);
	if (out->row && out->col)
		return WEFT_OK;
	weft__pop_layer_free(out);
	return pop_nomem(err, err_size, "empty", 4ull * (n + 2));
}

void weft__pop_layer_free(seir_csr *l)
{
	free(l->row);
	free(l->col);
	free(l->weight);
	memset(l, 0, sizeof *l);
}

/* ---- contacts within groups ---------------------------------------------- */

/* -ln(1 - x) / x = sum of x^j / (j + 1) over j >= 0, for x = num / den
 * below 1/2, as a fraction of 2^32 (so at least 2^32). */
static uint64_t pop_log_ratio(uint64_t num, uint64_t den)
{
	uint64_t x = (num << 32) / den, f = 1ull << 32, pw = x;

	for (uint32_t j = 1; pw; j++) {
		f += pw / (j + 1);
		pw = (pw * x) >> 32;
	}
	return f;
}

uint64_t weft__pop_draws_for(uint64_t d, uint32_t contacts, uint32_t k)
{
	/* A pair is missed by all of the m draws of its two members with
	 * probability (1 - 1/(k-1))^(2m/k); d of the p = k(k-1)/2 pairs
	 * are hit on average when m = (k/2) ln(1 - x) / ln(1 - 1/(k-1)),
	 * x = contacts / (k - 1), that is m = d F(x) / F(1/(k-1)) with
	 * F(x) = -ln(1 - x) / x. */
	uint64_t fx = pop_log_ratio(contacts, k - 1) >> 12;
	uint64_t fy = pop_log_ratio(1, k - 1) >> 12;

	return (d * fx + fy / 2) / fy;
}

/* Cumulative thresholds of Poisson(mean): the count k is the first
 * whose cum[k] exceeds a 32-bit draw; the table ends where the tail is
 * below 2^-32 (the last entry 2^32). Returns the entries. */
#define POP_POISSON_MAX 1600
static uint32_t pop_poisson_table(double mean, uint64_t *cum)
{
	double sum = 0.0, lm = log(mean);
	uint32_t k;

	for (k = 0; k + 1 < POP_POISSON_MAX; k++) {
		sum += exp(-mean + k * lm - lgamma(k + 1.0));
		cum[k] = (uint64_t)floor(sum * 4294967296.0 + 0.5);
		if (cum[k] >= 4294967296ull || (k > mean && 1.0 - sum < 1e-12))
			break;
	}
	cum[k] = 4294967296ull;
	return k + 1;
}

/* The first of len cumulative thresholds that exceeds a 32-bit draw
 * (the last is 2^32). */
static uint32_t pop_first_above(const uint64_t *cum, uint32_t len,
				uint32_t draw)
{
	uint32_t lo = 0, hi = len - 1;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (draw < cum[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Covasim's count of partners a member draws (make_random_contacts):
 * round(P / 2) for a Poisson P, halves rounded to even as numpy does. */
static uint32_t pop_partners(const uint64_t *cum, uint32_t len, uint32_t draw)
{
	uint32_t lo = pop_first_above(cum, len, draw);

	if (lo % 2 == 0)
		return lo / 2;
	return (lo / 2) % 2 == 0 ? lo / 2 : lo / 2 + 1;
}

static uint32_t pop_member(const seir_pop_groups *gr, uint32_t g, uint32_t i)
{
	uint32_t at = gr->start[g] + i;
	return gr->member ? gr->member[at] : at;
}

static void pop_clique(const seir_pop_groups *gr, uint32_t g, uint32_t k,
		       seir_pop_sink *s)
{
	for (uint32_t i = 0; i < k; i++) {
		uint32_t a = pop_member(gr, g, i);
		for (uint32_t j = i + 1; j < k; j++)
			weft__pop_emit(s, a, pop_member(gr, g, j), 1000);
	}
}

/* Dense groups (contacts >= (k - 1) / 2): each pair is a contact with
 * probability contacts / (k - 1), one 32-bit draw per pair. */
static void pop_bernoulli(const seir_pop_groups *gr, uint32_t g, uint32_t k,
			  seir_pop_sink *s)
{
	uint64_t t = ((uint64_t)gr->contacts << 32) / (k - 1);
	uint32_t p = 0;
	weft_rand4 r = { { 0 } };

	for (uint32_t i = 0; i < k; i++)
		for (uint32_t j = i + 1; j < k; j++, p++) {
			if (p % 4 == 0)
				r = weft__pop_draw(gr->seed, g, p / 4, 0,
						   gr->purpose);
			if (r.v[p % 4] < t)
				weft__pop_emit(s, pop_member(gr, g, i),
					       pop_member(gr, g, j), 1000);
		}
}

/* The patch a community contact of patch q goes to, from a 32-bit draw
 * (the first whose cumulative share exceeds it). */
static uint32_t pop_dest(const seir_patches *pt, uint32_t q, uint32_t draw)
{
	return pop_first_above(pt->cum + (size_t)q * pt->n, pt->n, draw);
}

/* Member a's partner from draw: another member of group g (k of them),
 * or with patches that mix (the draw dest picking the patch) any agent
 * of another patch. UINT32_MAX: none (a patch of one). */
static uint32_t pop_partner(const seir_pop_groups *gr, uint32_t g, uint32_t k,
			    uint32_t a, uint32_t draw, uint32_t dest)
{
	uint32_t b;

	if (gr->mix) {
		const seir_patches *pt = gr->mix;
		uint32_t r = pop_dest(pt, g, dest);

		if (r != g)
			return pt->start[r] +
			       weft__pop_below(draw, pt->pops[r]);
		if (k < 2)
			return UINT32_MAX;
	}
	b = weft__pop_below(draw, k - 1);
	b += b >= a;
	return pop_member(gr, g, b);
}

/* Sparse groups, as Covasim's make_random_contacts draws them: each
 * member in turn draws round(P / 2) partners (P Poisson) uniformly among
 * the other members, half of its contacts drawn by itself and half by
 * others. A pair drawn twice is one contact (the builder merges
 * repeats), so P's mean is contacts raised by as much as gives contacts
 * distinct partners on average (weft__pop_draws_for): by about contacts
 * / (2 k), 1e-5 in a group of a million (Covasim keeps both draws
 * instead). Member a draws Philox(seed; g, a, c, purpose): lane 0 of c
 * = 0 its count, the other lanes of c = 0, 1, ... its partners; with
 * patches that mix, lane t % 4 of c = 2^31 + t / 4 the patch of partner
 * t (in a patch too small for the raise, P's mean is contacts). One end
 * of every write is sequential, which halves the cache misses of large
 * groups. */
static void pop_sparse(const seir_pop_groups *gr, uint32_t g, uint32_t k,
		       seir_pop_sink *s)
{
	uint64_t cum[POP_POISSON_MAX], d = (uint64_t)k * gr->contacts;
	uint32_t len = pop_poisson_table(
		2ull * gr->contacts < k - 1
			? (double)gr->contacts *
				  (double)weft__pop_draws_for(d, gr->contacts,
							      k) /
				  (double)d
			: (double)gr->contacts,
		cum);

	for (uint32_t a = 0; a < k; a++) {
		uint32_t ma = pop_member(gr, g, a);
		weft_rand4 r = weft__pop_draw(gr->seed, g, a, 0, gr->purpose);
		weft_rand4 q = { { 0 } };
		uint32_t m = pop_partners(cum, len, r.v[0]);

		for (uint32_t t = 1; t <= m; t++) {
			uint32_t b;
			if (t % 4 == 0)
				r = weft__pop_draw(gr->seed, g, a, t / 4,
						   gr->purpose);
			if (gr->mix && (t == 1 || t % 4 == 0))
				q = weft__pop_draw(gr->seed, g, a,
						   0x80000000u | t / 4,
						   gr->purpose);
			b = pop_partner(gr, g, k, a, r.v[t % 4], q.v[t % 4]);
			if (b != UINT32_MAX)
				weft__pop_emit(s, ma, b, 1000);
		}
		if (a % 65536 == 0 && weft__pop_full(s))
			return;
	}
}

void weft__pop_group_edges(const seir_pop_groups *gr, uint32_t g,
			   seir_pop_sink *s)
{
	uint32_t k = gr->start[g + 1] - gr->start[g];

	if (gr->mix && k > 0 && gr->contacts > 0) {
		pop_sparse(gr, g, k, s);
		return;
	}
	if (k < 2 || (gr->contacts == 0 && !gr->clique))
		return;
	if (gr->clique || k - 1 <= gr->contacts)
		pop_clique(gr, g, k, s);
	else if (2ull * gr->contacts >= k - 1)
		pop_bernoulli(gr, g, k, s);
	else
		pop_sparse(gr, g, k, s);
}

static uint64_t pop_group_pairs(const seir_pop_groups *gr, uint32_t g)
{
	uint64_t k = gr->start[g + 1] - gr->start[g];

	if (gr->mix)
		return (k * gr->contacts + 1) / 2;
	if (k < 2 || (gr->contacts == 0 && !gr->clique))
		return 0;
	if (gr->clique || k - 1 <= gr->contacts)
		return k * (k - 1) / 2;
	return (k * gr->contacts + 1) / 2;
}

weft_status weft__pop_groups_check(const seir_pop_groups *gr, const char *what,
				   char *err, size_t err_size)
{
	uint64_t pairs = 0;

	for (uint32_t g = 0; g < gr->n_groups; g++)
		pairs += pop_group_pairs(gr, g);
	if (pairs <= SEIR_POP_MAX_PAIRS)
		return WEFT_OK;
	snprintf(err, err_size,
		 "the %s layer would have about %llu contacts, more than "
		 "the 2^32 - 1 a contact layer can index; lower the agents "
		 "or the contacts",
		 what, (unsigned long long)(2 * pairs));
	return WEFT_E_CONFIG;
}

void weft__pop_gen_groups(const void *groups, seir_pop_sink *s)
{
	const seir_pop_groups *gr = groups;

	for (uint32_t g = 0; g < gr->n_groups && !weft__pop_full(s); g++)
		weft__pop_group_edges(gr, g, s);
}
