/*
 * core/run/checkpoint.c - taking a run's checkpoints ([checkpoint] every,
 * weft_sim_checkpoint()) and writing them while the next steps run.
 *
 * A checkpoint is taken between chunks of steps, where weft_sim_step() has
 * enqueued everything up to the step reached, on the main thread:
 *   1. the output pipeline settles: the chunk pending is waited for and
 *      handed over, and the writer has emitted every chunk collected, so
 *      the output files and the model's host state are those of the step
 *      reached;
 *   2. one sync() (the checkpoint's only wait for the device; steps never
 *      wait);
 *   3. the first checkpoint of a run hashes every buffer that is not state
 *      (what setup() built: a resume checks that setup() built the same);
 *   4. the state buffers are read (weft_sim_read, any backend), the host
 *      state and the output files copied, and the manifest made.
 * A thread of its own then writes the files into the checkpoint
 * directory's new set and commits it (outdir.c: fsync, one exchange), and
 * the steps go on. The next checkpoint, weft_sim_finish() and
 * weft_sim_close() wait for it; its failure fails the run, which leaves
 * the previous checkpoint in place.
 */
#include "run/sim.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/checkpoint.h"

/* ---- configuration ------------------------------------------------------- */

int weft__model_checkpoints(const weft_model *m)
{
	return m->struct_size >= WEFT_MODEL_V1_2_SIZE && m->checkpoints;
}

/* dir without trailing slashes, as a length. */
static size_t ckpt_trimmed(const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return n;
}

char *weft__ckpt_dir(const weft_config *cfg)
{
	const char *dir = weft__config_opts(cfg)->checkpoint.directory;
	const char *out = weft__config_opts(cfg)->output.directory;
	size_t n = ckpt_trimmed(out);
	char *path;

	if (dir[0])
		return weft__strdup(dir);
	if (!(path = malloc(n + sizeof ".checkpoint")))
		return NULL;
	memcpy(path, out, n);
	memcpy(path + n, ".checkpoint", sizeof ".checkpoint");
	return path;
}

/* 1 when a, as a path, is b or lies inside it. */
static int ckpt_inside(const char *a, const char *b)
{
	size_t na = ckpt_trimmed(a), nb = ckpt_trimmed(b);

	return na >= nb && strncmp(a, b, nb) == 0 &&
	       (na == nb || a[nb] == '/' || (nb == 1 && b[0] == '/'));
}

/* path made absolute, in new memory: its longest part that exists
 * resolved (symbolic links, "." and ".."), the rest appended with "."
 * and ".." taken as written. So two names of one directory compare
 * equal, whether or not it exists yet. NULL when out of memory. */
static char *ckpt_resolve(const char *path)
{
	char *head = weft__strdup(path), *real = NULL, *out;
	size_t cut = strlen(path);

	while (head && !(real = realpath(head, NULL))) {
		char *slash = strrchr(head, '/');
		if (!slash || slash == head) {
			/* nothing of it exists: relative to "." or "/" */
			real = realpath(slash ? "/" : ".", NULL);
			cut = slash ? 1 : 0;
			break;
		}
		*slash = '\0';
		cut = (size_t)(slash - head);
	}
	free(head);
	if (!real)
		return NULL;
	out = malloc(strlen(real) + strlen(path + cut) + 2);
	if (out)
		strcpy(out, real);
	for (const char *p = path + cut; out && *p;) {
		size_t n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			char *slash = strrchr(out, '/');
			slash[slash == out] = '\0';
		} else if (n && !(n == 1 && p[0] == '.')) {
			size_t len = strlen(out);
			if (out[len - 1] != '/')
				out[len++] = '/';
			memcpy(out + len, p, n);
			out[len + n] = '\0';
		}
		p += n + (p[n] == '/');
	}
	free(real);
	return out;
}

/* The checkpoint directory dir and the output directory out are the same
 * directory, or one lies inside the other: the words for it ("is",
 * "lies inside", "holds"), or NULL when they lie apart. */
static const char *ckpt_overlap(const char *dir, const char *out)
{
	char *d = ckpt_resolve(dir), *o = ckpt_resolve(out);
	const char *how = NULL;

	if (!d || !o) /* out of memory: as written */
		how = ckpt_inside(dir, out)   ? "is, or lies inside,"
		      : ckpt_inside(out, dir) ? "holds"
					      : NULL;
	else if (strcmp(d, o) == 0)
		how = "is";
	else if (ckpt_inside(d, o))
		how = "lies inside,";
	else if (ckpt_inside(o, d))
		how = "holds";
	free(d);
	free(o);
	return how;
}

static weft_status ckpt_validate_model(weft_context *ctx,
				       const weft_config *cfg,
				       const weft_model *m)
{
	if (weft__model_checkpoints(m))
		return WEFT_OK;
	return weft__fail(
		ctx, WEFT_E_CONFIG,
		"%s: [checkpoint] every = %lld: model %s (%s) cannot be "
		"checkpointed: %s; set every = 0",
		weft__config_where(cfg, "checkpoint", "every"),
		(long long)weft__config_opts(cfg)->checkpoint.every, m->name,
		weft__config_model_path(cfg),
		m->struct_size < WEFT_MODEL_V1_2_SIZE
			? "its plugin is built for a model ABI older than "
			  "1.2, which added checkpoints"
			: "it does not declare its state (its descriptor's "
			  "checkpoints is 0)");
}

weft_status weft__ckpt_validate(weft_context *ctx, const weft_config *cfg,
				const weft_model *model)
{
	const char *out = weft__config_opts(cfg)->output.directory;
	char *dir = weft__ckpt_dir(cfg);
	const char *how;
	weft_status st = WEFT_OK;

	if (!dir)
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	if ((how = ckpt_overlap(dir, out)))
		st = weft__fail(
			ctx, WEFT_E_CONFIG,
			"%s: [checkpoint] directory = %s %s [output] "
			"directory = %s (%s), and a run replaces each as a "
			"whole: choose two directories apart (by default "
			"the checkpoint directory is the output directory's "
			"name with .checkpoint appended)",
			weft__config_where(cfg, "checkpoint", "directory"), dir,
			how, out,
			weft__config_where(cfg, "output", "directory"));
	if (st == WEFT_OK && weft__config_opts(cfg)->checkpoint.every > 0)
		st = ckpt_validate_model(ctx, cfg, model);
	if (st == WEFT_OK && weft__config_opts(cfg)->checkpoint.every > 0)
		st = weft__outputs_check(
			ctx, "checkpoint", dir,
			weft__config_where(cfg, "checkpoint", "directory"));
	free(dir);
	return st;
}

/* ---- the run's checkpoints ----------------------------------------------- */

weft__ckpt *weft__ckpt_get(weft_sim *sim)
{
	weft__ckpt *c = sim->ckpt;

	if (c)
		return c;
	if (!(c = calloc(1, sizeof *c)) ||
	    !(c->dir = weft__ckpt_dir(sim->cfg))) {
		free(c);
		weft__fail(sim->ctx, WEFT_E_NOMEM, "out of memory");
		return NULL;
	}
	c->every = (uint64_t)weft__config_opts(sim->cfg)->checkpoint.every;
	c->set.lock_fd = -1;
	c->set.tail = &c->set.head;
	c->set.section = "checkpoint";
	sim->ckpt = c;
	return c;
}

/* The model declared what a checkpoint saves. */
static weft_status ckpt_can(weft_sim *sim)
{
	if (!weft__model_checkpoints(sim->model))
		return weft__fail(sim->ctx, WEFT_E_UNSUPPORTED,
				  "model %s cannot be checkpointed: it does "
				  "not declare its state (model ABI 1.2's "
				  "checkpoints)",
				  sim->model->name);
	for (size_t i = 0; i < sim->n_bufs; i++)
		if (sim->bufs[i]->is_state)
			return WEFT_OK;
	if (sim->n_hosts)
		return WEFT_OK;
	return weft__fail(sim->ctx, WEFT_E_MODEL,
			  "model %s: its descriptor says it can be "
			  "checkpointed, but its setup() declared no state "
			  "(weft_model_state, weft_model_state_host)",
			  sim->model->name);
}

/* The directory locked, and a new set to write into. */
static weft_status ckpt_prepare(weft_sim *sim, weft__ckpt *c)
{
	weft_status st;

	if (c->prepared)
		return WEFT_OK;
	st = weft__outputs_prepare(
		sim->ctx, &c->set, c->dir,
		weft__config_where(sim->cfg, "checkpoint", "directory"));
	c->set.section = "checkpoint"; /* kept through a failed prepare */
	c->prepared = st == WEFT_OK;
	return st;
}

weft_status weft__ckpt_start(weft_sim *sim)
{
	weft__ckpt *c;
	weft_status st;

	if (weft__config_opts(sim->cfg)->checkpoint.every == 0)
		return WEFT_OK;
	if (!(c = weft__ckpt_get(sim)))
		return WEFT_E_NOMEM;
	if ((st = ckpt_can(sim)))
		return st;
	return ckpt_prepare(sim, c);
}

int weft__ckpt_due(const weft_sim *sim)
{
	const weft__ckpt *c = sim->ckpt;

	return c && c->every && sim->steps_done % c->every == 0 &&
	       sim->steps_done < sim->steps_total;
}

/* ---- copying the state out ----------------------------------------------- */

/* The state buffers, then the host state, into job->state. */
static weft_status ckpt_copy_state(weft_sim *sim, weft__ckpt_job *job)
{
	size_t total = 0, at = 0;
	weft_status st = WEFT_OK;

	for (size_t i = 0; i < sim->n_bufs; i++)
		total += sim->bufs[i]->is_state ? sim->bufs[i]->bytes : 0;
	for (size_t i = 0; i < sim->n_hosts; i++)
		total += sim->hosts[i].bytes;
	if (!(job->state = malloc(total ? total : 1)))
		return weft__fail(sim->ctx, WEFT_E_NOMEM,
				  "cannot allocate %zu bytes of host memory "
				  "for the state",
				  total);
	job->state_bytes = total;
	for (size_t i = 0; i < sim->n_bufs && st == WEFT_OK; i++) {
		weft__sim_buf *b = sim->bufs[i];
		if (!b->is_state)
			continue;
		st = weft__sim_read(sim, job->state + at, b, 0, b->bytes, 0);
		at += b->bytes;
	}
	for (size_t i = 0; i < sim->n_hosts && st == WEFT_OK; i++) {
		memcpy(job->state + at, sim->hosts[i].data,
		       sim->hosts[i].bytes);
		at += sim->hosts[i].bytes;
	}
	return st;
}

/* One output file as written so far (the writer is idle). */
static weft_status ckpt_copy_output(weft_sim *sim, weft_output *o,
				    weft__ckpt_job *job)
{
	size_t i = job->n_out;
	int fd, err = 0;

	job->out_name[i] = weft__strdup(weft__output_name(o));
	if (!job->out_name[i])
		return weft__fail(sim->ctx, WEFT_E_NOMEM, "out of memory");
	job->n_out++;
	if (weft__output_flush(o))
		return WEFT_E_IO;
	fd = open(weft__output_tmp(o), O_RDONLY | O_CLOEXEC);
	err = fd < 0 ? errno
		     : weft__ckpt_slurp(fd, SIZE_MAX, &job->out_data[i],
					&job->out_len[i]);
	if (fd >= 0)
		close(fd);
	if (err)
		return weft__fail(sim->ctx, WEFT_E_IO, "cannot read %s: %s",
				  weft__output_tmp(o), strerror(err));
	return WEFT_OK;
}

static weft_status ckpt_copy_outputs(weft_sim *sim, weft__ckpt_job *job)
{
	size_t n = 0;
	weft_status st = WEFT_OK;

	for (weft_output *o = sim->outputs.head; o; o = weft__output_next(o))
		n++;
	job->out_name = calloc(n + 1, sizeof *job->out_name);
	job->out_data = calloc(n + 1, sizeof *job->out_data);
	job->out_len = calloc(n + 1, sizeof *job->out_len);
	if (!job->out_name || !job->out_data || !job->out_len)
		return weft__fail(sim->ctx, WEFT_E_NOMEM, "out of memory");
	for (weft_output *o = sim->outputs.head; o && st == WEFT_OK;
	     o = weft__output_next(o))
		st = ckpt_copy_output(sim, o, job);
	return st;
}

/* The layout taken before (at the first checkpoint, or on resume after
 * setup) still describes the run's buffers: a model that allocated or
 * freed one since gets a new one. */
static int ckpt_layout_current(const weft_sim *sim, const weft__ckpt *c)
{
	if (!c->have_layout || c->layout.n != sim->n_bufs)
		return 0;
	for (size_t i = 0; i < sim->n_bufs; i++)
		if (c->layout.b[i].bytes != sim->bufs[i]->bytes ||
		    c->layout.b[i].is_state != sim->bufs[i]->is_state)
			return 0;
	return 1;
}

/* Everything a checkpoint at the step reached holds, into job. */
static weft_status ckpt_copy(weft_sim *sim, weft__ckpt *c, weft__ckpt_job *job)
{
	weft_status st;

	if ((st = weft__pipe_settle(sim)) || (st = weft__sim_sync(sim)))
		return st;
	if (!ckpt_layout_current(sim, c)) {
		weft__ckpt_layout_free(&c->layout);
		if ((st = weft__ckpt_layout_take(sim, &c->layout)))
			return st;
		c->have_layout = 1;
	}
	job->step = sim->steps_done;
	if ((st = ckpt_copy_state(sim, job)) ||
	    (st = ckpt_copy_outputs(sim, job)))
		return st;
	return weft__ckpt_manifest_write(sim, job);
}

/* ---- writing it ---------------------------------------------------------- */

/* Test hook CHECKPOINT_KILL=N (util.h: weft__test_hook) kills the process
 * with SIGKILL halfway through writing state.bin of the run's N-th
 * checkpoint, so that tests can check that the previous one stays
 * whole. */
static int ckpt_kill_now(const weft__ckpt *c)
{
	const char *v = weft__test_hook("CHECKPOINT_KILL");

	return v && (unsigned)atoi(v) == c->seq;
}

/* One file of the new set; with kill, the process dies halfway. */
static weft_status ckpt_file(weft__ckpt *c, const char *name, const void *data,
			     size_t bytes, int kill)
{
	weft_output *o;
	weft_status st = weft__output_open(&c->tctx, &c->set, name, &o);

	if (st == WEFT_OK && kill) {
		weft__output_write(o, data, bytes / 2);
		weft__output_flush(o);
		raise(SIGKILL);
	}
	if (st == WEFT_OK)
		st = weft__output_write(o, data, bytes);
	return st;
}

/* The next checkpoint's new set, the failed one's removed; st, the
 * write's status, is kept over renewing's. */
static weft_status ckpt_renew(weft__ckpt *c, weft_status st)
{
	weft_context scratch = { .msg = "" };
	weft_status rst =
		weft__outputs_renew(st ? &scratch : &c->tctx, &c->set);

	return st ? st : rst;
}

static weft_status ckpt_write(weft__ckpt *c)
{
	const weft__ckpt_job *job = &c->job;
	weft_status st;

	st = ckpt_file(c, WEFT__CKPT_STATE, job->state, job->state_bytes,
		       ckpt_kill_now(c));
	for (size_t i = 0; st == WEFT_OK && i < job->n_out; i++) {
		char *name = weft__strcat(WEFT__CKPT_OUTPUT, job->out_name[i]);

		st = name ? ckpt_file(c, name, job->out_data[i],
				      job->out_len[i], 0)
			  : weft__fail(&c->tctx, WEFT_E_NOMEM, "out of memory");
		free(name);
	}
	if (st == WEFT_OK)
		st = ckpt_file(c, WEFT__CKPT_MANIFEST, job->manifest,
			       job->manifest_len, 0);
	if (st == WEFT_OK)
		st = weft__outputs_commit(&c->tctx, &c->set);
	return ckpt_renew(c, st);
}

static void *ckpt_main(void *arg)
{
	weft__ckpt *c = arg;

	c->status = ckpt_write(c);
	return NULL;
}

/* Write c->job on a thread of its own, which blocks every signal (the
 * main thread takes them); where no thread can be made, here. */
static void ckpt_spawn(weft__ckpt *c)
{
	sigset_t all, old;
	int rc;

	c->tctx.msg[0] = '\0';
	c->status = WEFT_OK;
	c->has_job = 1;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = pthread_create(&c->thread, NULL, ckpt_main, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	c->busy = rc == 0;
	if (!c->busy)
		c->status = ckpt_write(c);
}

/* A failure while taking the checkpoint at sim's step: its message
 * prefixed with what was being done. */
static weft_status ckpt_fail(weft_sim *sim, weft_status st, uint64_t step,
			     const char *msg)
{
	char copy[WEFT__MSG_MAX];

	weft__fmt(copy, sizeof copy, "%s", msg);
	return weft__fail(sim->ctx, st, "checkpoint at step %llu into %s: %s",
			  (unsigned long long)step, sim->ckpt->dir, copy);
}

weft_status weft__ckpt_join(weft_sim *sim)
{
	weft__ckpt *c = sim->ckpt;
	uint64_t step;

	if (!c || !c->has_job)
		return WEFT_OK;
	if (c->busy)
		pthread_join(c->thread, NULL);
	c->busy = 0;
	c->has_job = 0;
	step = c->job.step;
	weft__ckpt_job_free(&c->job);
	if (c->status != WEFT_OK)
		return ckpt_fail(sim, c->status, step, c->tctx.msg);
	c->written++;
	c->last_step = step;
	return WEFT_OK;
}

weft_status weft__ckpt_take(weft_sim *sim, int wait)
{
	weft__ckpt *c = weft__ckpt_get(sim);
	weft_status st;

	if (!c)
		return WEFT_E_NOMEM;
	if ((st = weft__ckpt_join(sim)) || (st = ckpt_can(sim)))
		return st;
	if (!weft__ckpt_little_endian())
		return weft__fail(sim->ctx, WEFT_E_UNSUPPORTED,
				  "checkpoints are little-endian; this host "
				  "is not");
	if ((st = ckpt_prepare(sim, c)) || (st = ckpt_copy(sim, c, &c->job))) {
		weft__ckpt_job_free(&c->job);
		return ckpt_fail(sim, st, sim->steps_done, sim->ctx->msg);
	}
	c->seq++;
	ckpt_spawn(c);
	return wait ? weft__ckpt_join(sim) : WEFT_OK;
}

void weft__ckpt_close(weft_sim *sim)
{
	weft__ckpt *c = sim->ckpt;

	if (!c)
		return;
	(void)weft__ckpt_join(sim); /* it completes; the run has failed */
	weft__outputs_discard(&c->set);
	weft__ckpt_layout_free(&c->layout);
	free(c->dir);
	free(c->resumed_dir);
	free(c);
	sim->ckpt = NULL;
}

/* ---- the application's calls --------------------------------------------- */

weft_status weft_sim_checkpoint(weft_sim *sim)
{
	if (!sim)
		return WEFT_E_INVALID;
	if (sim->finished)
		return weft__fail(sim->ctx, WEFT_E_INVALID,
				  "weft_sim_checkpoint: the run has finished "
				  "(weft_sim_finish): nothing is left to "
				  "resume");
	return weft__ckpt_take(sim, 1);
}

weft_status weft_sim_checkpoint_info(const weft_sim *sim,
				     weft_checkpoint_info *out)
{
	const weft__ckpt *c = sim ? sim->ckpt : NULL;
	weft_checkpoint_info full = { .dir = "", .resumed_dir = "" };
	uint32_t size;

	if (!sim || !out || out->struct_size < sizeof(uint32_t))
		return WEFT_E_INVALID;
	if (c) {
		full.dir = c->dir;
		full.every = c->every;
		full.written = c->written;
		full.last_step = c->last_step;
		full.resumed_from = c->resumed_from;
		full.resumed_dir = c->resumed_dir ? c->resumed_dir : "";
	}
	size = out->struct_size < sizeof full ? out->struct_size
					      : (uint32_t)sizeof full;
	full.struct_size = size;
	memcpy(out, &full, size);
	return WEFT_OK;
}
