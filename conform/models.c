/*
 * conform/models.c - the conformance group `models`.
 *
 * Checking a backend: every model plugin found runs on the candidate
 * backend and on the reference backend (openmp unless told otherwise) with
 * its conformance configuration (weft_model.conform_sets) and a fixed
 * seed, through the public run API. Their final states are compared
 * buffer by buffer (state digests: bit for bit, or within the declared
 * tolerance for f32 buffers), and so are their output files, byte for
 * byte. A repeated run on the candidate must give identical digests. When
 * the candidate is the reference, 1 thread is compared with 2. A model
 * that declares its state (model ABI 1.2) is also checkpointed halfway on
 * the reference and resumed on the candidate, and must end as the
 * candidate's own run did.
 *
 * Checking a model (`weft conform weft-model-NAME.so`, options.model): the
 * model's table (summary, every key documented, a conformance
 * configuration that runs in seconds), then the same comparison on every
 * backend available, each against the reference.
 *
 * Either way an environment model (model ABI 1.5) is also driven through
 * its protocol's lists, act and reset_some, in each autoreset mode, and
 * its results compared step by step (models_env, below).
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <weft/env.h>
#include <weft/model.h>

#include "conform.h"
#include "rng.h"

/* A model to run: its plugin file and its conformance configuration. */
typedef struct mmodel {
	char name[128];
	char path[PATH_MAX]; /* absolute */
	char *sets;	     /* conform_sets, owned (may be NULL) */
	int checkpoints;     /* it declares its state (model ABI 1.2) */
	/* an environment model's autoreset key (model ABI 1.5), else "" */
	char autoreset_key[128];
} mmodel;

#define CONFORM_SEED "20240601"

/* A backend to run models on. */
typedef struct mbackend {
	char path[PATH_MAX]; /* absolute */
	char name[128];
	char label[160]; /* how messages name it */
	int threads;	 /* [backend] threads, 0: the default */
	int candidate;	 /* gets the --device and --platform options */
} mbackend;

/* What one run left: its state and its output files. */
typedef struct mrun {
	weft_digest *digest;
	size_t n_files;
	char *file_name[8];
	char *file_data[8];
	size_t file_len[8];
} mrun;

static void mrun_free(mrun *r)
{
	weft_digest_free(r->digest);
	for (size_t i = 0; i < r->n_files; i++) {
		free(r->file_name[i]);
		free(r->file_data[i]);
	}
	memset(r, 0, sizeof *r);
}

/* ---- running a model ----------------------------------------------------- */

static char *read_whole(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *data = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (data = malloc((size_t)n + 1)) &&
	    fread(data, 1, (size_t)n, f) == (size_t)n) {
		*len = (size_t)n;
	} else {
		free(data);
		data = NULL;
	}
	fclose(f);
	return data;
}

/* Apply "section.key=value" lines (newline-separated). */
static weft_status apply_sets(weft_context *ctx, weft_config *cfg,
			      const char *sets)
{
	char line[512];
	weft_status st = WEFT_OK;

	for (const char *s = sets; s && *s && st == WEFT_OK; s += *s == '\n') {
		size_t n = strcspn(s, "\n");

		weft__ct_fmt(line, sizeof line, "%.*s", (int)n, s);
		if (line[strspn(line, " \t")])
			st = weft_config_set(ctx, cfg, line);
		s += n;
	}
	return st;
}

static weft_status model_config(weft__ct *t, weft_context *ctx, const mmodel *m,
				const mbackend *b, const char *dir,
				weft_config **cfg)
{
	char sets[3 * PATH_MAX + 512];
	weft_status st;

	weft__ct_fmt(sets, sizeof sets,
		     "model.plugin=%s\nsimulation.seed=" CONFORM_SEED "\n"
		     "output.directory=%s\noutput.every=7\n"
		     "output.summary=true\noutput.plot=none\n"
		     "backend.plugin=%s\nbackend.cache_dir=%s/cache\n"
		     "backend.threads=%d\n",
		     m->path, dir, b->path, t->scratch, b->threads);
	if ((st = weft_config_new(ctx, cfg)) ||
	    (st = apply_sets(ctx, *cfg, sets)))
		return st;
	if (b->candidate && t->opt->device && t->opt->device[0]) {
		weft__ct_fmt(sets, sizeof sets, "backend.device=%s",
			     t->opt->device);
		if ((st = weft_config_set(ctx, *cfg, sets)))
			return st;
	}
	if (b->candidate && t->opt->platform && t->opt->platform[0]) {
		weft__ct_fmt(sets, sizeof sets, "backend.platform=%s",
			     t->opt->platform);
		if ((st = weft_config_set(ctx, *cfg, sets)))
			return st;
	}
	return apply_sets(ctx, *cfg, m->sets);
}

static weft_status keep_outputs(weft_context *ctx, weft_sim *sim, mrun *r)
{
	for (size_t i = 0; i < weft_sim_output_count(sim) && i < 8; i++) {
		const char *path = weft_sim_output_at(sim, i);
		const char *base = strrchr(path, '/');

		r->file_name[i] = strdup(base ? base + 1 : path);
		r->file_data[i] = read_whole(path, &r->file_len[i]);
		r->n_files++;
		if (!r->file_name[i] || !r->file_data[i])
			return weft_context_fail(ctx, WEFT_E_IO,
						 "cannot read the output %s",
						 path);
	}
	return WEFT_OK;
}

/* The checkpoint of model m's runs: SCRATCH/NAME-ck. */
static void model_ckpt_dir(const weft__ct *t, const mmodel *m, char *buf,
			   size_t size)
{
	weft__ct_fmt(buf, size, "%s/%s-ck", t->scratch, m->name);
}

/* Run model m on backend b halfway and write a checkpoint there; its step
 * in *step, or the reason it failed to why. */
static int model_halfway(weft__ct *t, const mmodel *m, const mbackend *b,
			 uint64_t *step, char *why, size_t why_size)
{
	char dir[PATH_MAX], ck[PATH_MAX], set[PATH_MAX + 32];
	weft_context *ctx = NULL;
	weft_config *cfg = NULL;
	weft_sim *sim = NULL;
	weft_status st = WEFT_E_NOMEM;

	weft__ct_fmt(dir, sizeof dir, "%s/%s-half", t->scratch, m->name);
	model_ckpt_dir(t, m, ck, sizeof ck);
	weft__ct_fmt(set, sizeof set, "checkpoint.directory=%s", ck);
	weft__ct_phase(t, "checkpointing %s halfway on %s", m->name, b->label);
	if (weft_context_new(&ctx) == WEFT_OK &&
	    (st = model_config(t, ctx, m, b, dir, &cfg)) == WEFT_OK &&
	    (st = weft_config_set(ctx, cfg, set)) == WEFT_OK &&
	    (st = weft_sim_open(ctx, cfg, &sim)) == WEFT_OK &&
	    (st = weft_sim_step(sim, weft_sim_steps_total(sim) / 2)) ==
		    WEFT_OK &&
	    (st = weft_sim_checkpoint(sim)) == WEFT_OK)
		*step = weft_sim_steps_done(sim);
	if (st)
		weft__ct_fmt(why, why_size, "%s",
			     ctx ? weft_context_error(ctx) : "out of memory");
	weft_sim_close(sim);
	weft_config_free(cfg);
	weft_context_free(ctx);
	return st ? -1 : 0;
}

/* Run model m on backend b to its end, from the start or from the
 * checkpoint in resume; its state and outputs go to r, or the reason it
 * failed to why. 0 when it ran, 1 when the open refused the device
 * (WEFT_E_UNSUPPORTED: it lacks what the model's program needs; why says
 * what), -1 when it failed. */
static int model_run(weft__ct *t, const mmodel *m, const mbackend *b,
		     const char *tag, const char *resume, mrun *r, char *why,
		     size_t why_size)
{
	char dir[PATH_MAX];
	weft_context *ctx = NULL;
	weft_config *cfg = NULL;
	weft_sim *sim = NULL;
	int unsupported = 0;
	weft_status st;

	memset(r, 0, sizeof *r);
	weft__ct_fmt(dir, sizeof dir, "%s/%s-%s", t->scratch, m->name, tag);
	weft__ct_phase(t, "running %s on %s", m->name, b->label);
	if (weft_context_new(&ctx) != WEFT_OK) {
		weft__ct_fmt(why, why_size, "out of memory");
		return -1;
	}
	if ((st = model_config(t, ctx, m, b, dir, &cfg)))
		goto close;
	st = resume ? weft_sim_resume(ctx, cfg, resume, &sim)
		    : weft_sim_open(ctx, cfg, &sim);
	unsupported = st == WEFT_E_UNSUPPORTED;
	if (st || (st = weft_sim_finish(sim)) ||
	    (st = weft_sim_digest(sim, &r->digest)))
		goto close;
	st = keep_outputs(ctx, sim, r);
close:
	if (st)
		weft__ct_fmt(why, why_size, "%s", weft_context_error(ctx));
	weft_sim_close(sim);
	weft_config_free(cfg);
	weft_context_free(ctx);
	return unsupported ? 1 : st ? -1 : 0;
}

/* ---- comparing runs ------------------------------------------------------ */

/* An f32 buffer within tolerance; the first element outside is recorded. */
static int same_f32(weft__ct *t, const char *model, const weft_digest_buf *g,
		    const weft_digest_buf *w, const char *label)
{
	for (size_t i = 0; i + 4 <= g->bytes; i += 4) {
		float a, b;

		memcpy(&a, g->data + i, 4);
		memcpy(&b, w->data + i, 4);
		if ((isnan(a) && isnan(b)) || fabs((double)a - b) <= w->abs_tol)
			continue;
		return weft__ct_expect(t, 0,
				       "%s buffer '%s' differs from %s at "
				       "element %zu by more than %g (got %.9g, "
				       "want %.9g)",
				       model, g->name, label, i / 4, w->abs_tol,
				       (double)a, (double)b);
	}
	return 1;
}

static int same_buffer(weft__ct *t, const char *model, const weft_digest_buf *g,
		       const weft_digest_buf *w, const char *label, int exact)
{
	size_t i = 0;

	if (g->bytes != w->bytes || strcmp(g->name, w->name) != 0)
		return weft__ct_expect(
			t, 0,
			"%s buffer '%s' (%zu bytes) stands where "
			"%s has '%s' (%zu bytes)",
			model, g->name, g->bytes, label, w->name, w->bytes);
	if (g->hash == w->hash)
		return 1;
	if (w->is_f32 && !exact)
		return same_f32(t, model, g, w, label);
	while (i < g->bytes && g->data[i] == w->data[i])
		i++;
	return weft__ct_expect(t, 0,
			       "%s buffer '%s' differs from %s at byte %zu "
			       "(got %u, want %u)",
			       model, g->name, label, i,
			       i < g->bytes ? g->data[i] : 0u,
			       i < g->bytes ? w->data[i] : 0u);
}

static void same_state(weft__ct *t, const char *model, const mrun *got,
		       const mrun *want, const char *label, int exact)
{
	const weft_digest *g = got->digest, *w = want->digest;
	size_t gn = weft_digest_count(g), wn = weft_digest_count(w);

	weft__ct_expect(t, gn == wn, "%s allocated %zu buffers here, %zu on %s",
			model, gn, wn, label);
	for (size_t i = 0; i < gn && i < wn; i++)
		if (!same_buffer(t, model, weft_digest_at(g, i),
				 weft_digest_at(w, i), label, exact))
			return;
}

static void same_outputs(weft__ct *t, const char *model, const mrun *got,
			 const mrun *want, const char *label)
{
	weft__ct_expect(t, got->n_files == want->n_files,
			"%s wrote %zu output files here, %zu on %s", model,
			got->n_files, want->n_files, label);
	for (size_t i = 0; i < got->n_files && i < want->n_files; i++) {
		size_t n = got->file_len[i], j = 0;
		const char *a = got->file_data[i], *b = want->file_data[i];

		if (n == want->file_len[i] && memcmp(a, b, n) == 0)
			continue;
		while (j < n && j < want->file_len[i] && a[j] == b[j])
			j++;
		weft__ct_expect(t, 0,
				"%s output %s differs from %s's at byte %zu "
				"(%zu and %zu bytes)",
				model, got->file_name[i], label, j, n,
				want->file_len[i]);
		return;
	}
}

/* "daily.csv, summary.txt" */
static void file_list(const mrun *r, char *buf, size_t size)
{
	buf[0] = '\0';
	for (size_t i = 0; i < r->n_files; i++)
		weft__ct_fmt(buf + strlen(buf), size - strlen(buf), "%s%s",
			     i ? ", " : "", r->file_name[i]);
}

/* ---- the group ----------------------------------------------------------- */

/* The reference backend, resolved as the options ask: a path or a name. */
static int reference(weft__ct *t, mbackend *ref, char *why, size_t why_size)
{
	const char *want = t->opt->reference && t->opt->reference[0]
				   ? t->opt->reference
				   : "openmp";
	weft_conform_options o = *t->opt;
	weft__ct r;
	int unavailable;

	memset(&r, 0, sizeof r);
	o.plugin = want;
	r.opt = &o;
	r.ctx = t->ctx;
	if (weft__ct_load(&r, &unavailable, why, why_size) != WEFT_OK) {
		weft__ct_fmt(why, why_size,
			     "reference backend %s cannot be used: "
			     "%s",
			     want, weft_context_error(t->ctx));
		weft__ct_unload(&r);
		return -1;
	}
	weft__ct_fmt(ref->name, sizeof ref->name, "%s", r.vt->name);
	if (!realpath(weft_backend_plugin_path(r.plugin), ref->path))
		weft__ct_fmt(ref->path, sizeof ref->path, "%s",
			     weft_backend_plugin_path(r.plugin));
	weft__ct_unload(&r);
	return 0;
}

/* The runs of one model: candidate, reference, candidate again. */
typedef struct mtrio {
	const mmodel *m;
	const mbackend *cand, *ref; /* ref NULL: none could be loaded */
	mrun a, b, c, d;
	int ok_a, ok_b, ok_c, ok_d; /* model_run()'s: 0 when it ran */
	char why[CT_MSG_MAX];
	/* Why a run was refused for a capability its device lacks (ok_a
	 * or ok_b 1): the tests that need it skip, saying so. */
	char lacks[CT_MSG_MAX];
} mtrio;

/* A run's test: passed, failed, or skipped when the open refused the
 * device for a capability the model needs (the floats and math groups
 * skip in that case too). */
static void models_expect_run(weft__ct *t, mtrio *r, int ok)
{
	if (ok == 1) {
		weft__ct_fmt(r->lacks, sizeof r->lacks, "%s", r->why);
		weft__ct_skip(t, "%s", r->why);
		return;
	}
	weft__ct_expect(t, ok == 0, "%s", r->why);
	weft__ct_end(t);
}

static void models_run_both(weft__ct *t, mtrio *r, const char *ref_why)
{
	weft__ct_begin(t,
		       "%s runs to its end on %s (conformance "
		       "configuration, seed " CONFORM_SEED ")",
		       r->m->name, r->cand->label);
	r->ok_a = model_run(t, r->m, r->cand, "a", NULL, &r->a, r->why,
			    sizeof r->why);
	models_expect_run(t, r, r->ok_a);

	weft__ct_begin(t, "%s runs to its end on %s", r->m->name,
		       r->ref ? r->ref->label : "the reference backend");
	if (!r->ref) {
		weft__ct_skip(t, "%s", ref_why);
		return;
	}
	r->ok_b = model_run(t, r->m, r->ref, "b", NULL, &r->b, r->why,
			    sizeof r->why);
	models_expect_run(t, r, r->ok_b);
}

/* Candidate against reference: state, then outputs. */
static void models_compare(weft__ct *t, mtrio *r)
{
	const char *name = r->m->name, *skip = NULL;
	const char *label = r->ref ? r->ref->label : "the reference";
	char files[256];

	if (!r->ref)
		skip = "no reference backend";
	else if (r->ok_a == 1 || r->ok_b == 1)
		skip = r->lacks;
	else if (r->ok_a != 0 || r->ok_b != 0)
		skip = "a run failed";
	weft__ct_begin(t, "%s state on %s equals that on %s, buffer by buffer",
		       name, r->cand->label, label);
	if (skip) {
		weft__ct_skip(t, "%s", skip);
	} else {
		same_state(t, name, &r->a, &r->b, label, 0);
		weft__ct_end(t);
	}
	weft__ct_begin(t, "%s outputs on %s equal those on %s byte for byte",
		       name, r->cand->label, label);
	if (skip) {
		weft__ct_skip(t, "%s", skip);
		return;
	}
	same_outputs(t, name, &r->a, &r->b, label);
	weft__ct_end(t);
	file_list(&r->a, files, sizeof files);
	weft__ct_diag(t, "%s outputs compared: %s", name, files);
}

/* The candidate again: the same state and outputs, bit for bit. */
static void models_repeat(weft__ct *t, mtrio *r)
{
	weft__ct_begin(t,
		       "a repeated run of %s on %s gives identical state "
		       "digests and outputs",
		       r->m->name, r->cand->label);
	if (r->ok_a != 0) {
		weft__ct_skip(t, "%s",
			      r->ok_a == 1 ? r->lacks : "the first run failed");
		return;
	}
	r->ok_c = model_run(t, r->m, r->cand, "c", NULL, &r->c, r->why,
			    sizeof r->why);
	if (weft__ct_expect(t, r->ok_c == 0, "%s", r->why)) {
		same_state(t, r->m->name, &r->c, &r->a, "the first run", 1);
		same_outputs(t, r->m->name, &r->c, &r->a, "the first run");
	}
	weft__ct_end(t);
}

/* Checkpointed halfway on the reference, resumed on the candidate: the
 * candidate's own end, its state (within the f32 tolerances: the first
 * half ran on the reference) and its outputs byte for byte. Checks that
 * the backend reads and writes a model's state faithfully, and that the
 * model declared all of it. */
static void models_resume(weft__ct *t, mtrio *r)
{
	const char *name = r->m->name, *skip = NULL;
	char ck[PATH_MAX];
	uint64_t step = 0;

	weft__ct_begin(t,
		       "%s checkpointed halfway on %s and resumed on %s ends "
		       "as its run on %s, state and outputs",
		       name, r->ref ? r->ref->label : "the reference",
		       r->cand->label, r->cand->label);
	if (!r->m->checkpoints)
		skip = "it does not declare its state (model ABI 1.2's "
		       "checkpoints)";
	else if (!r->ref)
		skip = "no reference backend";
	else if (r->ok_a == 1 || r->ok_b == 1)
		skip = r->lacks;
	else if (r->ok_a != 0)
		skip = "its run failed";
	if (skip) {
		weft__ct_skip(t, "%s", skip);
		return;
	}
	model_ckpt_dir(t, r->m, ck, sizeof ck);
	r->ok_d = model_halfway(t, r->m, r->ref, &step, r->why, sizeof r->why);
	if (r->ok_d == 0)
		r->ok_d = model_run(t, r->m, r->cand, "d", ck, &r->d, r->why,
				    sizeof r->why);
	if (weft__ct_expect(t, r->ok_d == 0, "%s", r->why)) {
		same_state(t, name, &r->d, &r->a, r->cand->label, 0);
		same_outputs(t, name, &r->d, &r->a, r->cand->label);
	}
	weft__ct_end(t);
	weft__ct_diag(t, "%s resumed from step %llu", name,
		      (unsigned long long)step);
}

static void models_one(weft__ct *t, const mmodel *m, const mbackend *cand,
		       const mbackend *ref, const char *ref_why)
{
	mtrio *r = calloc(1, sizeof *r);

	weft__ct_begin(t, "%s: setup", m->name);
	if (!weft__ct_expect(t, r != NULL, "out of memory")) {
		weft__ct_end(t);
		return;
	}
	r->m = m;
	r->cand = cand;
	r->ref = ref;
	r->ok_a = r->ok_b = r->ok_c = r->ok_d = -1;
	models_run_both(t, r, ref_why);
	models_compare(t, r);
	models_repeat(t, r);
	models_resume(t, r);
	mrun_free(&r->a);
	mrun_free(&r->b);
	mrun_free(&r->c);
	mrun_free(&r->d);
	free(r);
}

/* ---- an environment model's protocol (weft/env.h) --------------------------
 *
 * `weft run` launches an environment model's own step (its policy); its
 * protocol's lists, act and reset_some, are what applications launch. In
 * each autoreset mode the candidate and the reference run the same
 * sequence: every environment reset with a seed of its own, then
 * ENV_STEPS steps of act with actions drawn by the suite's generator
 * within the action space, a masked reset_some halfway (some environments
 * to their next episode, some seeded anew) and, in disabled mode, the
 * environments that ended reset before the next step, as an application
 * must. After the first reset and after each step every result view and
 * the bookkeeping are digested; the two runs must agree at every step,
 * and the first difference is named (mode, step, view).
 */

#define ENV_STEPS  40
#define ENV_NVIEWS 6

static const char *const env_views[ENV_NVIEWS] = { "obs",	 "reward",
						   "terminated", "truncated",
						   "final_obs",	 "env_book" };

/* One protocol run: its context, configuration and simulation, the views
 * and lists it drives, a host buffer as large as the largest of them
 * (what is read, the actions and the seeds written), the reset mask (or
 * the environments that ended), and the digests h[k][v] of view v after
 * step k (0: after the first reset). */
typedef struct erun {
	weft_context *ctx;
	weft_config *cfg;
	weft_sim *sim;
	weft_env_info info;
	weft_array v[ENV_NVIEWS], actions, mask, seed;
	uint32_t act, reset_some;
	unsigned char *host, *ended;
	size_t host_bytes;
	uint64_t h[ENV_STEPS + 1][ENV_NVIEWS];
} erun;

/* FNV-1a of n bytes. */
static uint64_t env_digest(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3u;
	return h;
}

static void erun_close(erun *e)
{
	weft_sim_close(e->sim);
	weft_config_free(e->cfg);
	weft_context_free(e->ctx);
	free(e->host);
	free(e->ended);
	memset(e, 0, sizeof *e);
}

static weft_status env_find(erun *e, const char *name, weft_array *a)
{
	a->struct_size = sizeof *a;
	return weft_sim_array_find(e->sim, name, a);
}

/* Open model m on backend b in autoreset mode `mode` and find what the
 * protocol's runs use. */
static weft_status env_open(weft__ct *t, const mmodel *m, const mbackend *b,
			    const char *mode, erun *e)
{
	char dir[PATH_MAX], set[400];
	weft_status st;

	/* each run's own directory: the two, on two backends or thread
	 * counts, are open together */
	weft__ct_fmt(dir, sizeof dir, "%s/%s-env-%s-%s-%d", t->scratch, m->name,
		     mode, b->name, b->threads);
	weft__ct_fmt(set, sizeof set, "%s.%s=%s", m->name, m->autoreset_key,
		     mode);
	if ((st = weft_context_new(&e->ctx)))
		return st;
	if ((st = model_config(t, e->ctx, m, b, dir, &e->cfg)) ||
	    (st = weft_config_set(e->ctx, e->cfg, set)) ||
	    (st = weft_sim_open(e->ctx, e->cfg, &e->sim)))
		return st;
	e->info.struct_size = sizeof e->info;
	if ((st = weft_sim_env(e->sim, &e->info)))
		return st;
	for (int k = 0; k < ENV_NVIEWS; k++) {
		if ((st = env_find(e, env_views[k], &e->v[k])))
			return st;
		if (e->v[k].bytes > e->host_bytes)
			e->host_bytes = e->v[k].bytes;
	}
	if ((st = env_find(e, "actions", &e->actions)) ||
	    (st = env_find(e, "reset_mask", &e->mask)) ||
	    (st = env_find(e, "reset_seed", &e->seed)) ||
	    (st = weft_sim_list(e->sim, "act", &e->act)) ||
	    (st = weft_sim_list(e->sim, "reset_some", &e->reset_some)))
		return st;
	if (e->actions.bytes > e->host_bytes)
		e->host_bytes = e->actions.bytes;
	if (e->seed.bytes > e->host_bytes)
		e->host_bytes = e->seed.bytes;
	e->host = calloc(1, e->host_bytes);
	e->ended = calloc(1, e->info.num_envs);
	if (!e->host || !e->ended)
		return weft_context_fail(e->ctx, WEFT_E_NOMEM, "out of memory");
	return WEFT_OK;
}

/* Store v, a number within the view's dtype, as element i of p. */
static void env_put(void *p, uint32_t dtype, size_t i, double v)
{
	switch (dtype) {
	case WEFT_DTYPE_F32: ((float *)p)[i] = (float)v; break;
	case WEFT_DTYPE_F64: ((double *)p)[i] = v; break;
	case WEFT_DTYPE_I8: ((int8_t *)p)[i] = (int8_t)v; break;
	case WEFT_DTYPE_U8: ((uint8_t *)p)[i] = (uint8_t)v; break;
	case WEFT_DTYPE_I16: ((int16_t *)p)[i] = (int16_t)v; break;
	case WEFT_DTYPE_U16: ((uint16_t *)p)[i] = (uint16_t)v; break;
	case WEFT_DTYPE_I32: ((int32_t *)p)[i] = (int32_t)v; break;
	case WEFT_DTYPE_U32: ((uint32_t *)p)[i] = (uint32_t)v; break;
	case WEFT_DTYPE_I64: ((int64_t *)p)[i] = (int64_t)v; break;
	default: ((uint64_t *)p)[i] = (uint64_t)v; break;
	}
}

/* A Box's finite bound of element j, or NaN. */
static double env_bound(const double *b, size_t j)
{
	return b && isfinite(b[j]) ? b[j] : NAN;
}

/* The range actions of element j are drawn from: the space's bounds; 2
 * beyond the other where one is infinite; -1 to 1 where both are. */
static void env_range(const weft_env_space *a, size_t j, double *lo, double *hi)
{
	*lo = env_bound(a->low, j);
	*hi = env_bound(a->high, j);
	if (isnan(*lo) && isnan(*hi))
		*lo = -1.0, *hi = 1.0;
	else if (isnan(*lo))
		*lo = *hi - 2.0;
	else if (isnan(*hi))
		*hi = *lo + 2.0;
}

/* Every environment's action of step k, drawn within the action space
 * (the same on every run: the generator is seeded with k), written. */
static weft_status env_actions(erun *e, uint64_t k)
{
	const weft_env_space *a = &e->info.action;
	size_t n = e->actions.bytes / WEFT_DTYPE_BYTES(e->actions.dtype);
	uint64_t r = k * 0x9E3779B97F4A7C15u + 1u;

	for (size_t i = 0; i < n; i++) {
		uint64_t x = weft__ct_rng(&r);
		size_t j = i % (n / e->info.num_envs);

		if (a->kind == WEFT_SPACE_DISCRETE) {
			env_put(e->host, e->actions.dtype, i,
				(double)(a->start +
					 (int64_t)(x % (uint64_t)a->n)));
		} else {
			double lo, hi;

			env_range(a, j, &lo, &hi);
			env_put(e->host, e->actions.dtype, i,
				lo + (hi - lo) * (double)(x >> 11) * 0x1p-53);
		}
	}
	return weft_sim_write(e->sim, e->actions.buffer, e->actions.offset,
			      e->host, e->actions.bytes, 0);
}

/* reset_some with the mask e->ended as it stands (0 keep, 1 WEFT_ENV_NEXT,
 * 2 seeded), to which `mixed` adds every third environment (1) and every
 * fifth (2), each seed from `salt` and the environment's index; nothing
 * is launched where no environment is reset. The mask is left in
 * e->ended. */
static weft_status env_reset(erun *e, int mixed, uint64_t salt)
{
	uint32_t n = e->info.num_envs;
	uint64_t *seed = (uint64_t *)e->host;
	unsigned char *mask = e->ended;
	int any = 0;
	weft_status st;

	for (uint32_t i = 0; i < n; i++) {
		seed[i] = salt * 1000003u + i;
		if (mixed && i % 3 == 0)
			mask[i] = 1;
		if (mixed && i % 5 == 0)
			mask[i] = 2;
		any |= mask[i] != 0;
	}
	if (!any)
		return WEFT_OK;
	if ((st = weft_sim_write(e->sim, e->seed.buffer, e->seed.offset, seed,
				 e->seed.bytes, 0)) ||
	    (st = weft_sim_write(e->sim, e->mask.buffer, e->mask.offset, mask,
				 e->mask.bytes, 0)))
		return st;
	return weft_sim_launch(e->sim, e->reset_some, 1);
}

/* The digests of every view after step k; ended[] from its flags. */
static weft_status env_record(erun *e, int k)
{
	uint32_t n = e->info.num_envs;
	weft_status st;

	memset(e->ended, 0, n);
	for (int v = 0; v < ENV_NVIEWS; v++) {
		if ((st = weft_sim_read(e->sim, e->host, e->v[v].buffer,
					e->v[v].offset, e->v[v].bytes, 0)))
			return st;
		e->h[k][v] = env_digest(e->host, e->v[v].bytes);
		if (v == 2 || v == 3) /* terminated, truncated */
			for (uint32_t i = 0; i < n; i++)
				e->ended[i] |= e->host[i] != 0;
	}
	return WEFT_OK;
}

/* The sequence of one mode (above), digested into e->h. */
static weft_status env_drive(erun *e, int disabled)
{
	weft_status st;

	memset(e->ended, 2, e->info.num_envs); /* every one seeded */
	if ((st = env_reset(e, 0, 1)) || (st = env_record(e, 0)))
		return st;
	for (int k = 1; k <= ENV_STEPS; k++) {
		if (!disabled)
			memset(e->ended, 0, e->info.num_envs);
		if ((st = env_reset(e, k == ENV_STEPS / 2, (uint64_t)k + 1)) ||
		    (st = env_actions(e, (uint64_t)k)) ||
		    (st = weft_sim_launch(e->sim, e->act, 1)) ||
		    (st = env_record(e, k)))
			return st;
	}
	return WEFT_OK;
}

/* Run model m's protocol in `mode` on backend b into e; 0, or -1 with
 * the reason in why. */
static int env_run(weft__ct *t, const mmodel *m, const mbackend *b,
		   const char *mode, erun *e, char *why, size_t why_size)
{
	weft_status st;

	weft__ct_phase(t, "stepping %s's act (autoreset %s) on %s", m->name,
		       mode, b->label);
	st = env_open(t, m, b, mode, e);
	if (st == WEFT_OK)
		st = env_drive(e, strcmp(mode, "disabled") == 0);
	if (st)
		weft__ct_fmt(why, why_size, "on %s: %s", b->label,
			     e->ctx ? weft_context_error(e->ctx)
				    : "out of memory");
	return st ? -1 : 0;
}

/* The first step k and view v whose digests differ; 0 when none does. */
static int env_differ(const erun *a, const erun *b, int *k, int *v)
{
	for (*k = 0; *k <= ENV_STEPS; (*k)++)
		for (*v = 0; *v < ENV_NVIEWS; (*v)++)
			if (a->h[*k][*v] != b->h[*k][*v])
				return 1;
	return 0;
}

/* An environment model's protocol on the candidate against the
 * reference, in each autoreset mode. */
static void models_env(weft__ct *t, const mmodel *m, const mbackend *cand,
		       const mbackend *ref, const char *ref_why)
{
	static const char *const modes[] = { "next_step", "same_step",
					     "disabled" };
	char why[CT_MSG_MAX];

	if (!m->autoreset_key[0])
		return;
	for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
		erun *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
		char when[32];
		int k, v;

		weft__ct_begin(t,
			       "%s: act and reset_some on %s equal those on "
			       "%s at every step, view by view (autoreset %s)",
			       m->name, cand->label,
			       ref ? ref->label : "the reference", modes[i]);
		if (!ref)
			weft__ct_skip(t, "%s", ref_why);
		else if (weft__ct_expect(t, a && b, "out of memory") &&
			 weft__ct_expect(t,
					 env_run(t, m, cand, modes[i], a, why,
						 sizeof why) == 0 &&
						 env_run(t, m, ref, modes[i], b,
							 why, sizeof why) == 0,
					 "%s", why) &&
			 env_differ(a, b, &k, &v)) {
			if (k)
				weft__ct_fmt(when, sizeof when, "act step %d",
					     k);
			else
				weft__ct_fmt(when, sizeof when,
					     "the first reset_some");
			weft__ct_expect(t, 0,
					"view '%s' after %s (of %d, %u "
					"environments) differs from that on "
					"%s",
					env_views[v], when, ENV_STEPS,
					a->info.num_envs, ref->label);
		}
		if (ref)
			weft__ct_end(t);
		if (a)
			erun_close(a);
		if (b)
			erun_close(b);
		free(a);
		free(b);
	}
}

/* ---- the models and the backends ------------------------------------------
 */

static void mmodel_free(mmodel *m)
{
	free(m->sets);
	m->sets = NULL;
}

/* Load a model plugin (by path or name) as a run would, and keep what the
 * runs need: its absolute path and its conformance configuration. */
static weft_status mmodel_load(weft__ct *t, const char *spec, mmodel *m,
			       weft_model_plugin **keep)
{
	weft_model_plugin *mp = NULL;
	const weft_model *tab;
	weft_status st;

	memset(m, 0, sizeof *m);
	st = weft_model_plugin_open(t->ctx, spec, t->opt->model_path, &mp);
	if (st)
		return st;
	tab = weft_model_plugin_table(mp);
	weft__ct_fmt(m->name, sizeof m->name, "%s", tab->name);
	if (!realpath(weft_model_plugin_path(mp), m->path))
		weft__ct_fmt(m->path, sizeof m->path, "%s",
			     weft_model_plugin_path(mp));
	m->checkpoints =
		tab->struct_size >= WEFT_MODEL_V1_2_SIZE && tab->checkpoints;
	if (tab->struct_size >= WEFT_MODEL_V1_5_SIZE && tab->env)
		weft__ct_fmt(m->autoreset_key, sizeof m->autoreset_key, "%s",
			     tab->env->autoreset_key);
	if (tab->conform_sets && !(m->sets = strdup(tab->conform_sets)))
		st = weft_context_fail(t->ctx, WEFT_E_NOMEM, "out of memory");
	if (keep && st == WEFT_OK)
		*keep = mp;
	else
		weft_model_plugin_close(mp);
	return st;
}

/* The candidate (the plugin under test) and the reference, labelled. */
static int pair_backends(weft__ct *t, mbackend *cand, mbackend *ref, char *why,
			 size_t why_size)
{
	int have_ref;

	memset(cand, 0, sizeof *cand);
	memset(ref, 0, sizeof *ref);
	if (!realpath(weft_backend_plugin_path(t->plugin), cand->path))
		weft__ct_fmt(cand->path, sizeof cand->path, "%s",
			     weft_backend_plugin_path(t->plugin));
	weft__ct_fmt(cand->name, sizeof cand->name, "%s", t->vt->name);
	cand->candidate = 1;
	have_ref = reference(t, ref, why, why_size) == 0;
	if (have_ref && strcmp(ref->name, cand->name) == 0) {
		/* The reference itself: threads must not matter. */
		cand->threads = 1;
		*ref = *cand;
		ref->threads = 2;
		weft__ct_fmt(cand->label, sizeof cand->label,
			     "%s with 1 thread", cand->name);
		weft__ct_fmt(ref->label, sizeof ref->label, "%s with 2 threads",
			     ref->name);
	} else {
		weft__ct_fmt(cand->label, sizeof cand->label, "%s", cand->name);
		weft__ct_fmt(ref->label, sizeof ref->label, "%s", ref->name);
	}
	return have_ref;
}

/* A backend's check: every available model. */
static void models_of_backend(weft__ct *t)
{
	weft_model_list *l = NULL;
	mbackend cand, ref;
	char why[CT_MSG_MAX];
	int have_ref = pair_backends(t, &cand, &ref, why, sizeof why);

	weft__ct_begin(t, "model plugins are found");
	if (weft_models_scan(t->ctx, t->opt->model_path, &l) != WEFT_OK)
		weft__ct_expect(t, 0, "%s", weft_context_error(t->ctx));
	weft__ct_end_quiet(t);
	for (size_t i = 0; i < weft_model_list_count(l); i++) {
		const weft_model_info *mi = weft_model_list_at(l, i);
		mmodel m;

		if (strcmp(mi->state, "available") != 0)
			continue;
		weft__ct_begin(t, "%s: its plugin loads", mi->name);
		if (weft__ct_expect(
			    t, mmodel_load(t, mi->path, &m, NULL) == WEFT_OK,
			    "%s", weft_context_error(t->ctx)) &&
		    weft__ct_end_quiet(t)) {
			models_one(t, &m, &cand, have_ref ? &ref : NULL, why);
			models_env(t, &m, &cand, have_ref ? &ref : NULL, why);
		}
		mmodel_free(&m);
	}
	weft_model_list_free(l);
}

/* A model's own table: what a user of it needs besides its kernels. */
static void model_table(weft__ct *t, const weft_model *m)
{
	weft__ct_begin(t, "%s: a one-line summary and a version", m->name);
	weft__ct_expect(t, m->summary[0] && !strchr(m->summary, '\n'),
			"summary \"%s\"", m->summary);
	weft__ct_expect(t, m->version[0], "no version");
	weft__ct_end(t);
	weft__ct_begin(t,
		       "%s: every key is documented (a help of a few words; "
		       "choices for enums)",
		       m->name);
	for (uint32_t k = 0; k < m->n_keys; k++) {
		const weft_key_desc *d = &m->keys[k];
		const char *sp = strchr(d->help, ' ');
		weft__ct_expect(t, sp && strchr(sp + 1, ' '),
				"[%s] %s: help \"%s\" is not a sentence",
				m->name, d->name, d->help);
	}
	weft__ct_end(t);
	weft__ct_begin(t, "%s: a conformance configuration (conform_sets)",
		       m->name);
	weft__ct_expect(t, m->conform_sets && m->conform_sets[0],
			"conform_sets is empty: the suite would run the "
			"defaults, which may take long");
	weft__ct_end(t);
}

/* Every available backend but the reference, as candidates. */
static void model_on_backends(weft__ct *t, const mmodel *m, const mbackend *ref,
			      const char *ref_why)
{
	weft_backend_list *l = NULL;
	int any = 0;

	if (weft_backends_scan(t->ctx, t->opt->plugin_path, &l) != WEFT_OK)
		return;
	for (size_t i = 0; i < weft_backend_list_count(l); i++) {
		const weft_backend_info *b = weft_backend_list_at(l, i);
		mbackend cand;

		if (strcmp(b->state, "available") != 0 ||
		    (ref && strcmp(b->name, ref->name) == 0))
			continue;
		memset(&cand, 0, sizeof cand);
		if (!realpath(b->path, cand.path))
			weft__ct_fmt(cand.path, sizeof cand.path, "%s",
				     b->path);
		weft__ct_fmt(cand.name, sizeof cand.name, "%s", b->name);
		weft__ct_fmt(cand.label, sizeof cand.label, "%s", b->name);
		models_one(t, m, &cand, ref, ref_why);
		models_env(t, m, &cand, ref, ref_why);
		any = 1;
	}
	weft_backend_list_free(l);
	weft__ct_diag(t, "%s: %s", m->name,
		      any ? "compared on every available backend"
			  : "no backend other than the reference is "
			    "available here");
}

/* A model's check (options.model): its table, the reference with 1 and 2
 * threads (timed: the configuration must be fast), then every other
 * backend against the reference. */
static void models_of_model(weft__ct *t)
{
	weft_model_plugin *mp = NULL;
	mbackend cand, ref;
	char why[CT_MSG_MAX];
	uint64_t t0;
	mmodel m;
	int have_ref;

	weft__ct_begin(t, "%s loads as a model plugin (name, ABI, table)",
		       t->opt->model);
	if (!weft__ct_expect(t, mmodel_load(t, t->opt->model, &m, &mp) == 0,
			     "%s", weft_context_error(t->ctx))) {
		weft__ct_end(t);
		return;
	}
	weft__ct_end(t);
	model_table(t, weft_model_plugin_table(mp));
	have_ref = pair_backends(t, &cand, &ref, why, sizeof why);
	t0 = weft__ct_now_ns();
	models_one(t, &m, &cand, have_ref ? &ref : NULL, why);
	weft__ct_begin(t,
		       "%s: the conformance configuration runs in under "
		       "60 s on %s",
		       m.name, cand.name);
	weft__ct_expect(t, weft__ct_now_ns() - t0 < 60000000000ull,
			"five runs took %.1f s",
			(double)(weft__ct_now_ns() - t0) / 1e9);
	weft__ct_end(t);
	models_env(t, &m, &cand, have_ref ? &ref : NULL, why);
	if (have_ref)
		model_on_backends(t, &m, &ref, why);
	mmodel_free(&m);
	weft_model_plugin_close(mp);
}

void weft__ct_group_models(weft__ct *t)
{
	if (t->opt->model && t->opt->model[0])
		models_of_model(t);
	else
		models_of_backend(t);
}
