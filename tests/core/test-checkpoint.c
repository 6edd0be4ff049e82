/*
 * tests/core/test-checkpoint.c - checkpoints and resume through the library
 * (core/run/checkpoint.c, checkpoint_file.c, resume.c, config_hash.c), on the
 * OpenMP backend: for SEIR, CartPole and the template (SIR), a run stopped
 * at a step that is not an output point, checkpointed on 1 thread and
 * resumed on 2, ends with every buffer (state digests) and every output
 * byte for byte as an uninterrupted run's; [checkpoint] every costs one
 * sync per checkpoint and cuts no chunk short of its outputs; and each
 * refusal says why in one line: another configuration (the key and both
 * values named), another model, another weft version, another format, a
 * truncated or damaged manifest, a damaged state.bin or output copy, a
 * population file changed under the checkpoint, a missing directory, a
 * model that cannot be checkpointed, a directory inside the output
 * directory, and a second run writing into the same directory.
 * tests/core/test-checkpoint-cli.sh covers the weft command: other backends,
 * kill -9 while a checkpoint is written, SIGTERM.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "run/checkpoint.h"
#include "tap.h"

static weft_context *ctx;

/* What a run left: its state and its output files. */
typedef struct outcome {
	weft_digest *digest;
	size_t n;
	char *name[4], *data[4];
	size_t len[4];
	weft_stats stats;
} outcome;

static void outcome_free(outcome *o)
{
	weft_digest_free(o->digest);
	for (size_t i = 0; i < o->n; i++) {
		free(o->name[i]);
		free(o->data[i]);
	}
	memset(o, 0, sizeof *o);
}

/* A configuration: model, output directory TMP/tag, checkpoint directory
 * TMP/tag-ck (or ck), the model's small settings, then more. */
static weft_config *make_cfg(const char *model, const char *tag, const char *ck,
			     const char *const *sets, const char *const *more)
{
	weft_config *cfg = NULL;
	char set[700];

	if (weft_config_new(ctx, &cfg))
		return NULL;
	snprintf(set, sizeof set, "simulation.model=%s", model);
	if (weft_config_set(ctx, cfg, set) ||
	    weft_config_set(ctx, cfg, "output.plot=none"))
		goto fail;
	snprintf(set, sizeof set, "output.directory=%s/%s", tap_tmpdir(), tag);
	if (weft_config_set(ctx, cfg, set))
		goto fail;
	if (ck)
		snprintf(set, sizeof set, "checkpoint.directory=%s", ck);
	else
		snprintf(set, sizeof set, "checkpoint.directory=%s/%s-ck",
			 tap_tmpdir(), tag);
	if (weft_config_set(ctx, cfg, set))
		goto fail;
	for (; sets && *sets; sets++)
		if (weft_config_set(ctx, cfg, *sets))
			goto fail;
	for (; more && *more; more++)
		if (weft_config_set(ctx, cfg, *more))
			goto fail;
	return cfg;
fail:
	tap_diag("configuration: %s", weft_context_error(ctx));
	weft_config_free(cfg);
	return NULL;
}

/* Step sim to its end, keep its digest, finish, keep its outputs. */
static int finish_run(weft_sim *sim, outcome *o)
{
	o->stats.struct_size = sizeof o->stats;
	if (weft_sim_step(sim, weft_sim_steps_total(sim)) ||
	    weft_sim_digest(sim, &o->digest) || weft_sim_finish(sim) ||
	    weft_sim_stats(sim, &o->stats))
		return 0;
	for (size_t i = 0; i < weft_sim_output_count(sim) && i < 4; i++) {
		const char *path = weft_sim_output_at(sim, i);
		o->name[i] = strdup(strrchr(path, '/') + 1);
		o->data[i] = tap_read_file(path, &o->len[i]);
		o->n++;
	}
	return 1;
}

/* The whole run, uninterrupted. */
static int run_full(const char *model, const char *tag, const char *const *sets,
		    const char *const *more, outcome *o)
{
	weft_config *cfg = make_cfg(model, tag, NULL, sets, more);
	weft_sim *sim = NULL;
	int ok = cfg && weft_sim_open(ctx, cfg, &sim) == WEFT_OK &&
		 finish_run(sim, o);

	if (!ok)
		tap_diag("%s: %s", tag, weft_context_error(ctx));
	weft_sim_close(sim);
	weft_config_free(cfg);
	return ok;
}

/* A run stopped after k steps with a checkpoint there (into ck), closed
 * without finishing. */
static int run_part(const char *model, const char *tag, const char *ck,
		    const char *const *sets, const char *const *more,
		    uint64_t k)
{
	weft_config *cfg = make_cfg(model, tag, ck, sets, more);
	weft_sim *sim = NULL;
	int ok = cfg && weft_sim_open(ctx, cfg, &sim) == WEFT_OK &&
		 weft_sim_step(sim, k) == WEFT_OK &&
		 weft_sim_checkpoint(sim) == WEFT_OK;

	if (!ok)
		tap_diag("%s: %s", tag, weft_context_error(ctx));
	weft_sim_close(sim);
	weft_config_free(cfg);
	return ok;
}

/* Resume from ck and run to the end; WEFT_OK and the outcome, or the
 * refusal (its message in the context). */
static weft_status run_resume(const char *model, const char *tag,
			      const char *ck, const char *const *sets,
			      const char *const *more, outcome *o,
			      uint64_t *from)
{
	weft_config *cfg = make_cfg(model, tag, NULL, sets, more);
	weft_sim *sim = NULL;
	weft_status st =
		cfg ? weft_sim_resume(ctx, cfg, ck, &sim) : WEFT_E_CONFIG;

	if (st == WEFT_OK && from)
		*from = weft_sim_steps_done(sim);
	if (st == WEFT_OK && o && !finish_run(sim, o))
		st = WEFT_E_INTERNAL;
	weft_sim_close(sim);
	weft_config_free(cfg);
	return st;
}

/* ---- byte for byte ------------------------------------------------------- */

static int same_digest(const outcome *a, const outcome *b, const char *what)
{
	size_t n = weft_digest_count(a->digest);

	if (!tap_ok(n && n == weft_digest_count(b->digest),
		    "%s: as many buffers (%zu)", what, n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		const weft_digest_buf *x = weft_digest_at(a->digest, i);
		const weft_digest_buf *y = weft_digest_at(b->digest, i);
		if (x->bytes != y->bytes || x->hash != y->hash) {
			tap_ok(0, "%s: buffer '%s' differs", what, x->name);
			return 0;
		}
	}
	return tap_ok(1, "%s: every buffer (%zu) byte for byte", what, n);
}

static int same_outputs(const outcome *a, const outcome *b, const char *what)
{
	int same = a->n > 0 && a->n == b->n;

	for (size_t i = 0; same && i < a->n; i++)
		same = strcmp(a->name[i], b->name[i]) == 0 && a->data[i] &&
		       b->data[i] && a->len[i] == b->len[i] &&
		       memcmp(a->data[i], b->data[i], a->len[i]) == 0;
	for (size_t i = 0; !same && i < a->n && i < b->n; i++)
		tap_diag("%s: %zu bytes, %zu resumed", a->name[i], a->len[i],
			 b->len[i]);
	return tap_ok(same, "%s: its %zu outputs byte for byte (%s%s)", what,
		      a->n, a->n ? a->name[0] : "", a->n > 1 ? ", ..." : "");
}

/* ---- resumed runs -------------------------------------------------------- */

typedef struct model_case {
	const char *model;
	const char *sets[16];
	uint64_t k; /* the step to stop at: not an output point */
} model_case;

/* Each stops after what its summary reports from the rows before the
 * checkpoint (SEIR's peak on day 35, SIR's at step 12, CartPole's
 * episodes of about 20 steps), so that those must come back too. */
static const model_case cases[] = {
	{ "seir",
	  { "seir.population=random", "seir.agents=3000", "seir.beta=0.15",
	    "simulation.steps=60", "output.every=4", "seir.death_prob=0.05",
	    "seir.rel_trans_dispersion=0.45", "seir.viral_load=true",
	    "seir.interventions=all 8-20 0.5", "seir.isolation_prob=0.5",
	    "seir.vaccine_doses=60", "seir.vaccine_start=5", NULL },
	  41 },
	{ "cartpole",
	  { "cartpole.envs=300", "cartpole.policy=random",
	    "simulation.steps=200", "output.every=30", NULL },
	  77 },
	{ "sir",
	  { "sir.width=24", "sir.height=20", "sir.beta=0.5",
	    "simulation.steps=50", "output.every=4", NULL },
	  21 },
};

static void test_resumed(const model_case *c)
{
	static const char *const t1[] = { "backend.threads=1", NULL };
	static const char *const t2[] = { "backend.threads=2", NULL };
	char full[64], part[64], ck[600], what[128];
	outcome a = { 0 }, b = { 0 };
	uint64_t from = 0;
	weft_status st;

	snprintf(full, sizeof full, "%s-full", c->model);
	snprintf(part, sizeof part, "%s-part", c->model);
	snprintf(ck, sizeof ck, "%s/%s-ck", tap_tmpdir(), part);
	if (!tap_ok(run_full(c->model, full, c->sets, t1, &a),
		    "%s runs uninterrupted", c->model) ||
	    !tap_ok(run_part(c->model, part, NULL, c->sets, t1, c->k),
		    "%s: %llu steps on 1 thread, then a checkpoint", c->model,
		    (unsigned long long)c->k)) {
		outcome_free(&a);
		return;
	}
	st = run_resume(c->model, part, ck, c->sets, t2, &b, &from);
	tap_ok(st == WEFT_OK && from == c->k,
	       "%s resumes from step %llu on 2 threads (%s)", c->model,
	       (unsigned long long)from, st ? weft_context_error(ctx) : "ok");
	snprintf(what, sizeof what, "%s resumed at step %llu", c->model,
		 (unsigned long long)c->k);
	if (st == WEFT_OK) {
		same_digest(&a, &b, what);
		same_outputs(&a, &b, what);
	}
	outcome_free(&a);
	outcome_free(&b);
}

/* [checkpoint] every: one sync per checkpoint besides the run's one at the
 * end, no fence wait more than the outputs' own, the last checkpoint at
 * the last multiple before the end, and the outputs unchanged. */
static void test_every(void)
{
	static const char *const sets[] = { "seir.population=random",
					    "seir.agents=2000",
					    "simulation.steps=40",
					    "output.every=7", NULL };
	static const char *const on[] = { "checkpoint.every=10", NULL };
	weft_checkpoint_info info = { .struct_size = sizeof info };
	weft_config *cfg = make_cfg("seir", "every", NULL, sets, on);
	outcome plain = { 0 }, with = { 0 };
	weft_sim *sim = NULL;

	if (!tap_ok(cfg && weft_sim_open(ctx, cfg, &sim) == WEFT_OK &&
			    finish_run(sim, &with) &&
			    weft_sim_checkpoint_info(sim, &info) == WEFT_OK,
		    "a run with [checkpoint] every = 10") ||
	    !tap_ok(run_full("seir", "every-plain", sets, NULL, &plain),
		    "the same run without")) {
		weft_sim_close(sim);
		weft_config_free(cfg);
		outcome_free(&with);
		return;
	}
	TAP_EQ_INT(info.written, 3, "3 checkpoints written in 40 steps");
	TAP_EQ_INT(info.last_step, 30, "the last at step 30");
	TAP_EQ_INT(with.stats.syncs, plain.stats.syncs + 3,
		   "one sync per checkpoint, none other");
	TAP_EQ_INT(with.stats.fence_waits, plain.stats.fence_waits,
		   "no fence wait more than the outputs' own");
	TAP_EQ_INT(with.stats.steps, 40, "40 steps, none repeated");
	same_outputs(&plain, &with, "with checkpoints");
	same_digest(&plain, &with, "with checkpoints");
	weft_sim_close(sim);
	weft_config_free(cfg);
	outcome_free(&plain);
	outcome_free(&with);
}

/* ---- refusals ------------------------------------------------------------ */

static const char *const small[] = { "seir.population=random",
				     "seir.agents=1500", "simulation.steps=20",
				     NULL };

/* The checkpoint every refusal below starts from: seir at step 10. */
static char refuse_ck[600];

/* A copy of the good checkpoint at TMP/name, its path in out. */
static int ck_copy(const char *name, char *out, size_t size)
{
	char cmd[2000];

	snprintf(out, size, "%s/%s", tap_tmpdir(), name);
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s' '%s'", out,
		 refuse_ck, out);
	return system(cmd) == 0;
}

/* Resuming seir (with more) from ck is refused with a message holding
 * want, in one line. */
static void refused(const char *ck, const char *const *more, const char *want,
		    const char *what)
{
	weft_status st =
		run_resume("seir", "refused", ck, small, more, NULL, NULL);
	const char *msg = weft_context_error(ctx);

	if (!tap_ok(st != WEFT_OK && strstr(msg, want) && !strchr(msg, '\n'),
		    "refused: %s", what))
		tap_diag("status %d, message: %s (want '%s')", st, msg, want);
	else
		tap_diag("%s", msg);
}

/* Edit file name of dir: the first occurrence of from becomes to. */
static int edit(const char *dir, const char *name, const char *from,
		const char *to)
{
	char path[700];
	size_t len;
	char *text, *at, *out;
	int ok;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	text = tap_read_file(path, &len);
	at = text ? strstr(text, from) : NULL;
	if (!at) {
		free(text);
		return 0;
	}
	out = malloc(len + strlen(to) + 1);
	sprintf(out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	ok = tap_write_file(path, out) == 0;
	free(text);
	free(out);
	return ok;
}

/* The manifest's end line made right again after an edit. */
static int rehash(const char *dir)
{
	char path[700], line[64];
	size_t len;
	char *text, *end;
	int ok;

	snprintf(path, sizeof path, "%s/" WEFT__CKPT_MANIFEST, dir);
	if (!(text = tap_read_file(path, &len)) ||
	    !(end = strstr(text, "\nend "))) {
		free(text);
		return 0;
	}
	end[1] = '\0';
	snprintf(line, sizeof line, "end %016llx\n",
		 (unsigned long long)XXH3_64bits(text, strlen(text)));
	text = realloc(text, strlen(text) + strlen(line) + 1);
	strcat(text, line);
	ok = tap_write_file(path, text) == 0;
	free(text);
	return ok;
}

/* Flip the byte at offset of file name of dir, or cut the file there. */
static int damage(const char *dir, const char *name, long offset, int cut)
{
	char path[700];
	FILE *f;
	int c, ok;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (cut)
		return truncate(path, offset) == 0;
	if (!(f = fopen(path, "r+b")) || fseek(f, offset, SEEK_SET) ||
	    (c = fgetc(f)) == EOF) {
		if (f)
			fclose(f);
		return 0;
	}
	fseek(f, offset, SEEK_SET);
	ok = fputc(c ^ 0x5a, f) != EOF;
	return fclose(f) == 0 && ok;
}

/* A copy of the good checkpoint damaged one way, and what resuming from
 * it must say. */
typedef struct damaged {
	const char *name;
	const char *file;
	const char *from, *to; /* an edit, with the end line made right */
	long offset;	       /* else: a byte flipped there, */
	int cut;	       /* or the file cut there */
	int rehash;
	const char *want, *what;
} damaged;

static const damaged damages[] = {
	{ "version", WEFT__CKPT_MANIFEST, "\nweft " PACKAGE_VERSION "\n",
	  "\nweft 0.0.9\n", 0, 0, 1,
	  "was written by weft 0.0.9; this is weft " PACKAGE_VERSION,
	  "another weft version" },
	{ "format", WEFT__CKPT_MANIFEST, "weft-checkpoint 1\n",
	  "weft-checkpoint 2\n", 0, 0, 0, "is in format 2; this weft",
	  "a checkpoint from a future format" },
	{ "cut", WEFT__CKPT_MANIFEST, NULL, NULL, 900, 1, 0,
	  "checkpoint.txt is truncated", "a truncated manifest" },
	{ "manifest", WEFT__CKPT_MANIFEST, "seir.agents=1500",
	  "seir.agents=1501", 0, 0, 0,
	  "checkpoint.txt does not match its checksum", "an edited manifest" },
	{ "flip", WEFT__CKPT_STATE, NULL, NULL, 700, 0, 0,
	  "buffer 'state' (1500 bytes) does not match its checksum",
	  "a flipped byte in state.bin (the buffer named)" },
	{ "short", WEFT__CKPT_STATE, NULL, NULL, 100, 1, 0,
	  "state.bin has 100 bytes, its manifest says",
	  "a truncated state.bin" },
	{ "csv", WEFT__CKPT_OUTPUT "daily.csv", NULL, NULL, 70, 0, 0,
	  "output 'daily.csv'", "a damaged copy of daily.csv" },
};

static void test_damaged(void)
{
	char ck[700];
	int ok = 1;

	for (size_t i = 0; i < sizeof damages / sizeof damages[0]; i++) {
		const damaged *d = &damages[i];
		ok &= ck_copy(d->name, ck, sizeof ck) &&
		      (d->from ? edit(ck, d->file, d->from, d->to)
			       : damage(ck, d->file, d->offset, d->cut)) &&
		      (!d->rehash || rehash(ck));
		refused(ck, NULL, d->want, d->what);
	}
	tap_ok(ok, "the damaged copies were made");
}

static void test_refusals(void)
{
	static const char *const beta[] = { "seir.beta=0.06", NULL };
	static const char *const cp[] = { "simulation.model=cartpole", NULL };
	char ck[700];

	snprintf(refuse_ck, sizeof refuse_ck, "%s/good-ck", tap_tmpdir());
	if (!tap_ok(run_part("seir", "good", refuse_ck, small, NULL, 10),
		    "a checkpoint of seir at step 10 to refuse"))
		return;
	if (!tap_ok(run_resume("seir", "good-again", refuse_ck, small, NULL,
			       NULL, NULL) == WEFT_OK,
		    "it resumes as it is"))
		tap_diag("%s", weft_context_error(ctx));
	refused(refuse_ck, beta,
		"[seir] beta is 0.06 here (--set seir.beta) and 0.05 in the "
		"checkpoint",
		"another beta, named with both values");
	refused(refuse_ck, cp, "is of model seir (version",
		"a configuration of another model");
	snprintf(ck, sizeof ck, "%s/sir-ck", tap_tmpdir());
	tap_ok(run_part("sir", "sir", ck, cases[2].sets, NULL, 5),
	       "a checkpoint of sir");
	refused(ck, NULL, "is of model sir (version",
		"a checkpoint of another model");
	test_damaged();
	snprintf(ck, sizeof ck, "%s/nowhere", tap_tmpdir());
	refused(ck, NULL, "nowhere: No such file or directory",
		"a directory that does not exist");
	refused(tap_tmpdir(), NULL, "holds no checkpoint.txt",
		"a directory that holds no checkpoint");
}

/* A population file changed under the checkpoint: setup() rebuilds other
 * buffers, and the resume names the first. */
static void test_changed_input(void)
{
	char agents[700], edges[700], a[800], e[800], ck[700];
	const char *src = getenv("WEFT_SRCDIR");
	const char *sets[] = { "seir.population=csv", a, e,
			       "simulation.steps=12", NULL };
	int ok;

	snprintf(agents, sizeof agents, "%s/agents.csv", tap_tmpdir());
	snprintf(edges, sizeof edges, "%s/edges.csv", tap_tmpdir());
	snprintf(a, sizeof a, "seir.agents_file=%s", agents);
	snprintf(e, sizeof e, "seir.edges_file=%s", edges);
	snprintf(ck, sizeof ck, "%s/town-ck", tap_tmpdir());
	snprintf(agents, sizeof agents,
		 "cp '%s/examples/population/agents.csv' '%s' && cp "
		 "'%s/examples/population/edges.csv' '%s'",
		 src ? src : "..", tap_tmpdir(), src ? src : "..",
		 tap_tmpdir());
	ok = system(agents) == 0 && run_part("seir", "town", ck, sets, NULL, 6);
	if (!tap_ok(ok, "a checkpoint of seir on a population from CSV"))
		return;
	tap_ok(run_resume("seir", "town2", ck, sets, NULL, NULL, NULL) ==
		       WEFT_OK,
	       "it resumes while the files are unchanged");
	ok = edit(tap_tmpdir(), "agents.csv", "\n10001,21,", "\n10001,61,");
	tap_ok(ok, "an age changed in agents.csv");
	if (run_resume("seir", "town3", ck, sets, NULL, NULL, NULL) == WEFT_OK)
		tap_ok(0, "refused: a changed population file");
	else
		tap_ok(tap_contains(weft_context_error(ctx),
				    "buffer 'age bins' (320 bytes) as setup() "
				    "built it differs from the checkpointed "
				    "run's",
				    "message"),
		       "refused: a changed population file, the buffer "
		       "named");
}

/* Configurations that cannot checkpoint, caught by validation (so `weft
 * check` sees them), and a directory another run writes into. */
static void test_config(void)
{
	static const char *const in_out[] = { "checkpoint.every=5", NULL };
	weft_model old = { .name = "old",
			   .version = "1",
			   .struct_size = (uint32_t)WEFT_MODEL_V1_1_SIZE };
	weft_config *cfg = make_cfg("seir", "inside", "", small, in_out);
	weft_sim *a = NULL, *b = NULL;
	char ck[700];

	/* Validation finds the configuration's model first, whose plugin
	 * the message names. */
	tap_ok(cfg && weft_config_validate(ctx, cfg) == WEFT_OK &&
		       weft__ckpt_validate(ctx, cfg, &old) == WEFT_E_CONFIG &&
		       tap_contains(weft_context_error(ctx), "model old (/",
				    "message") &&
		       tap_contains(weft_context_error(ctx),
				    "model ABI older than 1.2", "message"),
	       "every > 0 for a model built before checkpoints is refused");
	weft_config_free(cfg);
	snprintf(ck, sizeof ck, "%s/inside/ck", tap_tmpdir());
	cfg = make_cfg("seir", "inside", ck, small, in_out);
	tap_ok(cfg && weft_config_validate(ctx, cfg) == WEFT_E_CONFIG &&
		       tap_contains(weft_context_error(ctx),
				    "lies inside, [output] directory",
				    "message"),
	       "a checkpoint directory inside the output directory is "
	       "refused");
	weft_config_free(cfg);
	snprintf(ck, sizeof ck, "%s/shared-ck", tap_tmpdir());
	cfg = make_cfg("seir", "first", ck, small, in_out);
	if (cfg && weft_sim_open(ctx, cfg, &a) == WEFT_OK) {
		weft_config *cfg2 =
			make_cfg("seir", "second", ck, small, in_out);
		tap_ok(cfg2 && weft_sim_open(ctx, cfg2, &b) != WEFT_OK &&
			       tap_contains(weft_context_error(ctx),
					    "checkpoint directory",
					    "message") &&
			       tap_contains(weft_context_error(ctx),
					    "is in use by another run",
					    "message"),
		       "a second run writing into the same checkpoint "
		       "directory is refused");
		weft_sim_close(b);
		weft_config_free(cfg2);
	} else {
		tap_ok(0, "a run with checkpoints: %s",
		       weft_context_error(ctx));
	}
	weft_sim_close(a);
	weft_config_free(cfg);
}

int main(void)
{
	if (weft_context_new(&ctx))
		tap_bail("no context");
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		test_resumed(&cases[i]);
	test_every();
	test_refusals();
	test_changed_input();
	test_config();
	weft_context_free(ctx);
	return tap_done();
}
