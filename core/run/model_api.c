/*
 * core/run/model_api.c - what a model may ask of the core (weft/model.h):
 * parameters, device memory, transfers, the step's launches, outputs and
 * summary lines. Each call forwards to the backend and names, on failure,
 * the model, the buffer and the bytes involved.
 *
 * emit() runs on the output writer thread (pipeline.c) with the writer's
 * model context: failures go to the writer's error context, and whatever
 * would reach the backend or change the run is refused there.
 *
 * Every call into the backend is recorded as one (util/crash.h), so that
 * a crash inside it names the backend's plugin file and the function. A
 * model's check() runs in a child process (as the plugins' probes do,
 * plugin/isolate.c): a check() that crashes or calls exit() becomes a
 * message naming the plugin and the hook, and a check() that does not
 * return is killed when the work is cancelled.
 */
#include "run/sim.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/crash.h"

void weft__mc_init(weft_model_ctx *mc, weft_sim *sim, int writer)
{
	mc->sim = sim;
	mc->writer = writer;
	mc->cfg = sim->cfg;
	mc->model = sim->model;
	mc->ctx = writer ? &sim->pipe.w.ctx : sim->ctx;
}

/* ---- check(), in a child ------------------------------------------------ */

/* The file of the model's plugin, for messages. */
static const char *weft__model_file(const weft_model *model)
{
	const char *file = weft__crash_file(model);

	return file ? file : "(a file not found)";
}

/* The model's check() in this process, whose plugin is file; setup: a
 * call of the setup phase (util/crash.h), which a child's is not. */
static weft_status weft__model_check_here(weft_context *ctx,
					  const weft_config *cfg,
					  const weft_model *model,
					  const char *file, int setup)
{
	weft_model_ctx mc = { .cfg = cfg, .model = model, .ctx = ctx };
	weft__in_plugin at;
	weft_status st;

	weft__crash_set(&at, "model", file, "check()", setup);
	st = model->check(&mc);
	weft__crash_clear(&at);
	return weft__mc_end(&mc, st);
}

/* The child: check() and its verdict, "STATUS\nMESSAGE", into fd. It
 * takes no lock that another thread of the parent may have held at the
 * fork (the plugin's file was found before it). */
static void weft__model_check_child(weft_context *ctx, const weft_config *cfg,
				    const weft_model *model, const char *file,
				    int fd)
{
	char out[WEFT__MSG_MAX + 32];
	weft_status st;
	size_t n, done = 0;
	ssize_t w;

	/* Never outlive the parent; keep standard output, which the parent
	 * prints to, free of the plugin's chatter. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	dup2(STDERR_FILENO, STDOUT_FILENO);
	ctx->msg[0] = '\0';
	st = weft__model_check_here(ctx, cfg, model, file, 0);
	weft__fmt(out, sizeof out, "%d\n%s", (int)st, st ? ctx->msg : "");
	n = strlen(out);
	while (done < n &&
	       ((w = write(fd, out + done, n - done)) > 0 || errno == EINTR))
		done += w > 0 ? (size_t)w : 0;
}

/* The child's end, as the run's verdict: its check()'s own, or what
 * became of the child. */
static weft_status weft__model_check_end(weft_context *ctx,
					 const weft_model *model,
					 const char *file, weft__child_end end,
					 int status, const char *out)
{
	char sig[32], *msg;
	long v;

	if (end == WEFT__CHILD_CANCELLED)
		return weft__cancel_fail(ctx,
					 "checking the parameters of "
					 "model %s (its check() was killed)",
					 model->name);
	if (WIFSIGNALED(status)) {
		weft__signal_name(WTERMSIG(status), sig, sizeof sig);
		return weft__fail(ctx, WEFT_E_MODEL,
				  "crashed with %s in model plugin %s, check() "
				  "(run in a child process, which it took "
				  "down alone)",
				  sig, file);
	}
	v = strtol(out, &msg, 10);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || msg == out ||
	    *msg != '\n')
		return weft__fail(ctx, WEFT_E_MODEL,
				  "model plugin %s, check(): the process "
				  "exited with status %d before check() "
				  "returned (a plugin must not call exit())",
				  file,
				  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	if (v == WEFT_OK)
		return WEFT_OK;
	return weft__fail(ctx, (weft_status)v, "%s", msg + 1);
}

/* check() in a child process; ctx's cancellation kills it. */
static weft_status weft__model_check_fork(weft_context *ctx,
					  const weft_config *cfg,
					  const weft_model *model,
					  const char *file)
{
	char out[WEFT__MSG_MAX + 32];
	weft__child_end end;
	int fds[2], status;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) != 0)
		return weft__fail(ctx, WEFT_E_NOMEM,
				  "cannot check model %s: pipe: %s",
				  model->name, strerror(errno));
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		weft__model_check_child(ctx, cfg, model, file, fds[1]);
		_exit(0);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return weft__fail(ctx, WEFT_E_NOMEM,
				  "cannot check model %s: fork: %s",
				  model->name, strerror(errno));
	}
	/* No time limit: a check() that does not return is the user's to
	 * stop (a signal to the weft command cancels, and kills it). */
	end = weft__child_wait(ctx, pid, fds[0], 86400.0 * 365, out, sizeof out,
			       &status);
	return weft__model_check_end(ctx, model, file, end, status, out);
}

weft_status weft__model_check(weft_context *ctx, const weft_config *cfg,
			      const weft_model *model)
{
	double timeout;
	weft_status st;

	if (model->struct_size < WEFT_MODEL_V1_1_SIZE || !model->check)
		return WEFT_OK;
	if (weft__cancelled(ctx))
		return weft__cancel_fail(ctx,
					 "checking the parameters of "
					 "model %s",
					 model->name);
	/* WEFT_PROBE_TIMEOUT=0: plugins' code in this process (debuggers,
	 * programs that must not fork). */
	if ((st = weft__probe_timeout(ctx, &timeout)))
		return st;
	if (timeout == 0.0)
		return weft__model_check_here(ctx, cfg, model,
					      weft__model_file(model), 1);
	return weft__model_check_fork(ctx, cfg, model, weft__model_file(model));
}

weft_status weft__mc_end(weft_model_ctx *mc, weft_status st)
{
	const weft_model *m = mc->model;
	const char *names[256];
	char hint[WEFT__MSG_MAX / 2];
	size_t n = 0;

	if (!mc->undeclared[0])
		return st;
	if (st != WEFT_OK) {
		mc->undeclared[0] = '\0';
		return st;
	}
	for (size_t k = 0; k < m->n_keys && n < 256; k++)
		names[n++] = m->keys[k].name;
	if (n)
		weft__suggest(hint, sizeof hint, mc->undeclared, names, n, "'",
			      "'", "its keys:");
	else
		weft__fmt(hint, sizeof hint, "; it declares no keys");
	st = weft__fail(mc->ctx, WEFT_E_MODEL,
			"model %s read [%s] %s, a key it does not declare "
			"(a model reads only the keys of its descriptor's "
			"keys[])%s",
			m->name, m->name, mc->undeclared, hint);
	mc->undeclared[0] = '\0';
	return st;
}

/* key, when the model declares it; otherwise the first such key is
 * recorded for weft__mc_end() and the getters read the type's zero. */
static const char *weft__mc_key(const weft_model_ctx *mc, const char *key)
{
	weft_model_ctx *own = (weft_model_ctx *)mc;

	if (weft__config_has(mc->cfg, mc->model->name, key ? key : ""))
		return key;
	if (!own->undeclared[0])
		weft__fmt(own->undeclared, sizeof own->undeclared, "%s",
			  key ? key : "(NULL)");
	return NULL;
}

weft_status weft_model_fail(weft_model_ctx *mc, weft_status st, const char *fmt,
			    ...)
{
	va_list ap;

	va_start(ap, fmt);
	st = weft__model_vfail(mc, st, fmt, ap);
	va_end(ap);
	return st;
}

weft_status weft__model_fail(weft_model_ctx *mc, weft_status st,
			     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	st = weft__model_vfail(mc, st, fmt, ap);
	va_end(ap);
	return st;
}

weft_status weft__model_vfail(weft_model_ctx *mc, weft_status st,
			      const char *fmt, va_list ap)
{
	char msg[WEFT__MSG_MAX];

	vsnprintf(msg, sizeof msg, fmt, ap);
	return weft__fail(mc->ctx, st, "model %s: %s", mc->model->name, msg);
}

int weft_model_cancelled(const weft_model_ctx *mc)
{
	if (!mc)
		return 0;
	/* The writer's context only keeps its messages: the run's is the
	 * one weft_context_cancel() was given. */
	return weft__cancelled(mc->sim ? mc->sim->ctx : mc->ctx);
}

/* [a-z0-9_]+, for the names applications look lists and views up by. */
static int weft__is_name(const char *s)
{
	return s && *s &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(s);
}

void weft_model_progress(const weft_model_ctx *mc, const char *what,
			 uint64_t done, uint64_t total)
{
	char line[256];

	/* The writer thread must not call the application's callback
	 * while the main thread may; check() has no run. */
	if (!mc || !mc->sim || mc->writer || !what)
		return;
	weft__fmt(line, sizeof line, "model %s: %s", mc->model->name, what);
	weft__progress(mc->sim->ctx, line, done, total);
}

/* Calls that reach the backend or change the run: not for emit(), and
 * not for check(), which has no run. */
static weft_status weft__mc_main(weft_model_ctx *mc, const char *what)
{
	if (!mc->sim)
		return weft__model_fail(
			mc, WEFT_E_INVALID,
			"%s called from check(), which may only "
			"read parameters",
			what);
	if (!mc->writer)
		return WEFT_OK;
	return weft__model_fail(mc, WEFT_E_INVALID,
				"%s called from emit(), which may only write "
				"outputs from host memory",
				what);
}

int64_t weft_model_int(const weft_model_ctx *mc, const char *key)
{
	const char *k = weft__mc_key(mc, key);

	return k ? weft__config_int(mc->cfg, mc->model->name, k) : 0;
}

double weft_model_real(const weft_model_ctx *mc, const char *key)
{
	const char *k = weft__mc_key(mc, key);

	return k ? weft__config_real(mc->cfg, mc->model->name, k) : 0.0;
}

int weft_model_bool(const weft_model_ctx *mc, const char *key)
{
	const char *k = weft__mc_key(mc, key);

	return k ? weft__config_bool(mc->cfg, mc->model->name, k) : 0;
}

const char *weft_model_string(const weft_model_ctx *mc, const char *key)
{
	const char *k = weft__mc_key(mc, key);

	return k ? weft__config_str(mc->cfg, mc->model->name, k) : "";
}

const char *weft_model_where(const weft_model_ctx *mc, const char *key)
{
	const char *k = weft__mc_key(mc, key);

	return k ? weft__config_where(mc->cfg, mc->model->name, k) : NULL;
}

uint64_t weft_model_seed(const weft_model_ctx *mc)
{
	return (uint64_t)weft__config_opts(mc->cfg)->simulation.seed;
}

uint64_t weft_model_steps(const weft_model_ctx *mc)
{
	return (uint64_t)weft__config_opts(mc->cfg)->simulation.steps;
}

uint64_t weft_model_output_every(const weft_model_ctx *mc)
{
	return (uint64_t)weft__config_opts(mc->cfg)->output.every;
}

unsigned weft_model_output_slots(const weft_model_ctx *mc)
{
	return weft__model_output_slots(mc);
}

unsigned weft__model_output_slots(const weft_model_ctx *mc)
{
	(void)mc;
	return WEFT__SIM_SLOTS;
}

int weft_model_want_csv(const weft_model_ctx *mc)
{
	return weft__config_opts(mc->cfg)->output.csv;
}

/* The run's backend is called (util/crash.h): hook names the function;
 * a call from setup() is one of the setup phase. */
static void weft__mc_backend(weft_model_ctx *mc, weft__in_plugin *at,
			     const char *hook)
{
	weft_sim *sim = mc->sim;

	weft__crash_set(at, "backend", sim->plugin ? sim->plugin->path : NULL,
			hook, sim->in_setup);
}

weft_status weft_model_alloc(weft_model_ctx *mc, const char *what, size_t bytes,
			     weft_buf **out)
{
	return weft__model_alloc(mc, what, bytes, out);
}

weft_status weft__model_alloc(weft_model_ctx *mc, const char *what,
			      size_t bytes, weft_buf **out)
{
	weft_sim *sim = mc->sim;
	weft_error err = { { 0 } };
	weft__in_plugin at;
	weft_status st;

	if ((st = weft__mc_main(mc, "weft_model_alloc")))
		return st;
	weft__mc_backend(mc, &at, "alloc()");
	st = sim->vt->alloc(sim->dev, bytes, out, &err);
	weft__crash_clear(&at);
	if (st)
		return weft__model_fail(mc, st, "allocating %s (%zu bytes): %s",
					what, bytes, err.msg);
	/* Recorded for state digests (the conformance suite). */
	st = weft__sim_buf_add(sim, what, *out, bytes);
	if (st) {
		weft__mc_backend(mc, &at, "free()");
		sim->vt->free(sim->dev, *out);
		weft__crash_clear(&at);
		*out = NULL;
		return weft__model_fail(mc, st, "allocating %s: out of memory",
					what);
	}
	return WEFT_OK;
}

void weft_model_free(weft_model_ctx *mc, weft_buf *buf)
{
	weft__model_free(mc, buf);
}

void weft__model_free(weft_model_ctx *mc, weft_buf *buf)
{
	weft__in_plugin at;

	if (!buf || weft__mc_main(mc, "weft_model_free"))
		return;
	weft__sim_buf_drop(mc->sim, buf);
	weft__mc_backend(mc, &at, "free()");
	mc->sim->vt->free(mc->sim->dev, buf);
	weft__crash_clear(&at);
}

weft_status weft_model_buffer_tolerance(weft_model_ctx *mc, weft_buf *buf,
					double abs_tol)
{
	weft__sim_buf *b;

	if (weft__mc_main(mc, "weft_model_buffer_tolerance"))
		return WEFT_E_INVALID;
	b = weft__sim_buf_find(mc->sim, buf);
	if (!b)
		return weft__model_fail(mc, WEFT_E_INVALID,
					"buffer tolerance: the buffer was not "
					"allocated with weft_model_alloc");
	if (b->bytes % sizeof(float) != 0)
		return weft__model_fail(mc, WEFT_E_INVALID,
					"buffer tolerance: buffer '%s' has %zu "
					"bytes, not a whole number of f32 "
					"elements",
					b->name, b->bytes);
	if (!(abs_tol >= 0.0) || abs_tol > 1e300)
		return weft__model_fail(
			mc, WEFT_E_INVALID,
			"buffer tolerance: %g for buffer '%s' is "
			"not a finite tolerance >= 0",
			abs_tol, b->name);
	b->is_f32 = 1;
	b->abs_tol = abs_tol;
	return WEFT_OK;
}

/* Declarations of state: in setup() only, on the main thread. */
static weft_status weft__mc_setup(weft_model_ctx *mc, const char *what)
{
	weft_status st = weft__mc_main(mc, what);

	if (st || mc->sim->in_setup)
		return st;
	return weft__model_fail(mc, WEFT_E_INVALID,
				"%s called outside setup(): the state is "
				"declared once, before the first step",
				what);
}

weft_status weft_model_state(weft_model_ctx *mc, weft_buf *buf)
{
	return weft__model_state(mc, buf);
}

weft_status weft__model_state(weft_model_ctx *mc, weft_buf *buf)
{
	weft__sim_buf *b;
	weft_status st;

	if ((st = weft__mc_setup(mc, "weft_model_state")))
		return st;
	if (!(b = weft__sim_buf_find(mc->sim, buf)))
		return weft__model_fail(mc, WEFT_E_INVALID,
					"weft_model_state: the buffer was not "
					"allocated with weft_model_alloc");
	b->is_state = 1;
	return WEFT_OK;
}

weft_status weft_model_state_host(weft_model_ctx *mc, const char *name,
				  void *data, size_t bytes)
{
	weft_sim *sim = mc->sim;
	weft__sim_host *grown;
	weft_status st;

	if ((st = weft__mc_setup(mc, "weft_model_state_host")))
		return st;
	if (!weft__is_name(name) || (!data && bytes))
		return weft__model_fail(
			mc, WEFT_E_INVALID, "weft_model_state_host: %s",
			!weft__is_name(name) ? "the name is not a name (a-z, "
					       "0-9 and '_')"
					     : "no memory for its bytes");
	for (size_t i = 0; i < sim->n_hosts; i++)
		if (strcmp(sim->hosts[i].name, name) == 0)
			return weft__model_fail(mc, WEFT_E_INVALID,
						"host state '%s' is declared "
						"twice",
						name);
	grown = realloc(sim->hosts, (sim->n_hosts + 1) * sizeof *grown);
	if (!grown)
		return weft__model_fail(mc, WEFT_E_NOMEM, "out of memory");
	sim->hosts = grown;
	grown[sim->n_hosts] =
		(weft__sim_host){ weft__strdup(name), data, bytes };
	if (!grown[sim->n_hosts].name)
		return weft__model_fail(mc, WEFT_E_NOMEM, "out of memory");
	sim->n_hosts++;
	return WEFT_OK;
}

weft_status weft_model_upload(weft_model_ctx *mc, weft_buf *dst, size_t offset,
			      const void *src, size_t bytes)
{
	return weft__model_upload(mc, dst, offset, src, bytes);
}

weft_status weft__model_upload(weft_model_ctx *mc, weft_buf *dst, size_t offset,
			       const void *src, size_t bytes)
{
	weft_sim *sim = mc->sim;
	weft_error err = { { 0 } };
	uint64_t t0;
	weft__in_plugin at;
	weft_status st;

	if ((st = weft__mc_main(mc, "weft_model_upload")))
		return st;
	t0 = weft__now_ns();
	weft__mc_backend(mc, &at, "write()");
	st = sim->vt->write(sim->dev, dst, offset, src, bytes, 0, &err);
	weft__crash_clear(&at);
	if (st)
		return weft__model_fail(mc, st, "uploading %zu bytes: %s",
					bytes, err.msg);
	if (bytes) /* a blocking transfer: everything before it completed */
		weft__sim_waited(sim, t0, sim->steps_done);
	return WEFT_OK;
}

/* A read followed by a sync: models call it between chunks of steps only
 * (from setup, output and finish), never inside step(). */
weft_status weft_model_download(weft_model_ctx *mc, void *dst, weft_buf *src,
				size_t offset, size_t bytes)
{
	return weft__model_download(mc, dst, src, offset, bytes);
}

weft_status weft__model_download(weft_model_ctx *mc, void *dst, weft_buf *src,
				 size_t offset, size_t bytes)
{
	weft_sim *sim = mc->sim;
	weft_error err = { { 0 } };
	uint64_t t0;
	weft__in_plugin at;
	weft_status st;

	if ((st = weft__mc_main(mc, "weft_model_download")))
		return st;
	t0 = weft__now_ns();
	weft__mc_backend(mc, &at, "read()");
	st = sim->vt->read(sim->dev, dst, src, offset, bytes, WEFT_XFER_ASYNC,
			   &err);
	at.hook = "sync()";
	if (st == WEFT_OK)
		st = sim->vt->sync(sim->dev, &err);
	weft__crash_clear(&at);
	if (st)
		return weft__model_fail(mc, st, "downloading %zu bytes: %s",
					bytes, err.msg);
	weft__sim_waited(sim, t0, sim->steps_done);
	return WEFT_OK;
}

/* The name a buffer was allocated under, for messages. */
static const char *weft__buf_name(weft_sim *sim, weft_buf *buf)
{
	const weft__sim_buf *b = weft__sim_buf_find(sim, buf);

	return b ? b->name : "a buffer not from weft_model_alloc";
}

weft_status weft_model_copy(weft_model_ctx *mc, weft_buf *dst,
			    size_t dst_offset, weft_buf *src, size_t src_offset,
			    size_t bytes)
{
	return weft__model_copy(mc, dst, dst_offset, src, src_offset, bytes);
}

weft_status weft__model_copy(weft_model_ctx *mc, weft_buf *dst,
			     size_t dst_offset, weft_buf *src,
			     size_t src_offset, size_t bytes)
{
	weft_sim *sim = mc->sim;
	weft_error err = { { 0 } };
	weft__in_plugin at;
	weft_status st;

	if ((st = weft__mc_main(mc, "weft_model_copy")))
		return st;
	weft__mc_backend(mc, &at, "copy()");
	st = sim->vt->copy(sim->dev, dst, dst_offset, src, src_offset, bytes,
			   WEFT_XFER_ASYNC, &err);
	weft__crash_clear(&at);
	if (st)
		return weft__model_fail(
			mc, st,
			"copying %zu bytes from %s (offset %zu) "
			"to %s (offset %zu): %s",
			bytes, weft__buf_name(sim, src), src_offset,
			weft__buf_name(sim, dst), dst_offset, err.msg);
	return WEFT_OK;
}

/* Completed by the pipeline's wait (or sync) before emit() sees dst. */
weft_status weft_model_download_async(weft_model_ctx *mc, void *dst,
				      weft_buf *src, size_t offset,
				      size_t bytes)
{
	return weft__model_download_async(mc, dst, src, offset, bytes);
}

weft_status weft__model_download_async(weft_model_ctx *mc, void *dst,
				       weft_buf *src, size_t offset,
				       size_t bytes)
{
	weft_sim *sim = mc->sim;
	weft_error err = { { 0 } };
	weft__in_plugin at;
	weft_status st;

	if ((st = weft__mc_main(mc, "weft_model_download_async")))
		return st;
	weft__mc_backend(mc, &at, "read()");
	st = sim->vt->read(sim->dev, dst, src, offset, bytes, WEFT_XFER_ASYNC,
			   &err);
	weft__crash_clear(&at);
	if (st)
		return weft__model_fail(mc, st,
					"reading %zu bytes of %s (offset %zu) "
					"back: %s",
					bytes, weft__buf_name(sim, src), offset,
					err.msg);
	return WEFT_OK;
}

/* Launch i of list `list` against its kernel's signature: a kernel of the
 * program, as many buffers as it declares, none NULL. */
static weft_status weft__check_launch(weft_model_ctx *mc, const char *list,
				      const weft_launch *l, uint32_t i)
{
	const weft_model *m = mc->sim->model;
	const weft_kernel_sig *sig;

	if (l->kernel >= m->program->n_kernels)
		return weft__model_fail(mc, WEFT_E_INVALID,
					"launch list '%s', launch %u: kernel "
					"%u does not exist (the program has "
					"%u)",
					list, i, l->kernel,
					m->program->n_kernels);
	sig = &m->sigs[l->kernel];
	if (l->n_bufs != sig->n_bufs)
		return weft__model_fail(mc, WEFT_E_INVALID,
					"launch list '%s', launch %u (%s): "
					"binds %u buffers, the kernel declares "
					"%u",
					list, i, sig->kernel, l->n_bufs,
					sig->n_bufs);
	for (uint32_t k = 0; k < sig->n_bufs; k++)
		if (!l->bufs[k])
			return weft__model_fail(
				mc, WEFT_E_INVALID,
				"launch list '%s', launch %u "
				"(%s): buffer '%s' (slot %u) is "
				"not bound",
				list, i, sig->kernel, sig->bufs[k], k);
	return WEFT_OK;
}

/* Check and copy n launches into list (its old launches freed). */
static weft_status weft__set_list(weft_model_ctx *mc, weft__sim_list *list,
				  const weft_launch *l, uint32_t n)
{
	weft_launch *copy;
	weft_status st;

	if (n && !l)
		return weft__model_fail(mc, WEFT_E_INVALID,
					"launch list '%s': %u launches, no "
					"array",
					list->name, n);
	for (uint32_t i = 0; i < n; i++)
		if ((st = weft__check_launch(mc, list->name, &l[i], i)))
			return st;
	copy = malloc((size_t)n * sizeof *copy + 1);
	if (!copy)
		return weft__model_fail(mc, WEFT_E_NOMEM, "out of memory");
	if (n)
		memcpy(copy, l, (size_t)n * sizeof *copy);
	free(list->l);
	list->l = copy;
	list->n = n;
	return WEFT_OK;
}

weft_status weft_model_set_step(weft_model_ctx *mc, const weft_launch *l,
				uint32_t n)
{
	if (weft__mc_main(mc, "weft_model_set_step"))
		return WEFT_E_INVALID;
	return weft__set_list(mc, WEFT__SIM_STEP(mc->sim), l, n);
}

weft_status weft_model_plot(weft_model_ctx *mc, const weft_plot_desc *pd)
{
	if (weft__mc_main(mc, "weft_model_plot"))
		return WEFT_E_INVALID;
	return weft__sim_plot_add(mc->sim, pd);
}

weft_status weft_model_add_list(weft_model_ctx *mc, const char *name,
				const weft_launch *l, uint32_t n)
{
	weft_sim *sim = mc->sim;
	weft__sim_list *grown;
	long index;
	weft_status st;

	if (weft__mc_main(mc, "weft_model_add_list"))
		return WEFT_E_INVALID;
	if (!weft__is_name(name))
		return weft__model_fail(mc, WEFT_E_INVALID,
					"launch list name '%s' is not a name "
					"(a-z, 0-9 and '_')",
					name ? name : "(NULL)");
	if ((index = weft__sim_list_find(sim, name)) >= 0)
		return weft__model_fail(mc, WEFT_E_INVALID,
					"launch list '%s' is declared twice%s",
					name,
					index == 0 ? " ('step' is the step's "
						     "own list)"
						   : "");
	grown = realloc(sim->lists, (sim->n_lists + 1) * sizeof *grown);
	if (!grown)
		return weft__model_fail(mc, WEFT_E_NOMEM, "out of memory");
	sim->lists = grown;
	grown[sim->n_lists] = (weft__sim_list){ weft__strdup(name), NULL, 0 };
	if (!grown[sim->n_lists].name)
		return weft__model_fail(mc, WEFT_E_NOMEM, "out of memory");
	st = weft__set_list(mc, &grown[sim->n_lists], l, n);
	if (st) {
		free(grown[sim->n_lists].name);
		return st;
	}
	sim->n_lists++;
	return WEFT_OK;
}

/* The view's element count, in *elems; 0 when a dimension is negative or
 * the product overflows. */
static int weft__array_elems(uint32_t ndim, const int64_t *shape,
			     uint64_t *elems)
{
	*elems = 1;
	for (uint32_t d = 0; d < ndim; d++) {
		if (shape[d] < 0 ||
		    (shape[d] && *elems > UINT64_MAX / (uint64_t)shape[d]))
			return 0;
		*elems *= (uint64_t)shape[d];
	}
	return 1;
}

static int weft__dtype_known(uint32_t t)
{
	switch (t) {
	case WEFT_DTYPE_I8:
	case WEFT_DTYPE_I16:
	case WEFT_DTYPE_I32:
	case WEFT_DTYPE_I64:
	case WEFT_DTYPE_U8:
	case WEFT_DTYPE_U16:
	case WEFT_DTYPE_U32:
	case WEFT_DTYPE_U64:
	case WEFT_DTYPE_F32:
	case WEFT_DTYPE_F64: return 1;
	}
	return 0;
}

/* The view lies in the buffer, with a known type and a sane shape. */
static weft_status weft__check_array(weft_model_ctx *mc, const char *name,
				     const weft__sim_buf *b, size_t offset,
				     weft_dtype dtype, uint32_t ndim,
				     const int64_t *shape)
{
	uint64_t elems;

	if (!b)
		return weft__model_fail(mc, WEFT_E_INVALID,
					"view '%s': the buffer was not "
					"allocated with weft_model_alloc",
					name);
	if (!weft__dtype_known((uint32_t)dtype) || ndim == 0 ||
	    ndim > WEFT_ARRAY_MAX_DIMS || !shape ||
	    !weft__array_elems(ndim, shape, &elems))
		return weft__model_fail(mc, WEFT_E_INVALID,
					"view '%s' of '%s': %s", name, b->name,
					!weft__dtype_known((uint32_t)dtype)
						? "unknown dtype"
						: "needs 1 to 4 dimensions, "
						  "none negative");
	if (offset > b->bytes ||
	    elems > (b->bytes - offset) / WEFT_DTYPE_BYTES(dtype) ||
	    offset % WEFT_DTYPE_BYTES(dtype))
		return weft__model_fail(mc, WEFT_E_INVALID,
					"view '%s': %llu elements of %u bytes "
					"at offset %zu do not lie, aligned, in "
					"'%s' (%zu bytes)",
					name, (unsigned long long)elems,
					WEFT_DTYPE_BYTES(dtype), offset,
					b->name, b->bytes);
	return WEFT_OK;
}

weft_status weft_model_array(weft_model_ctx *mc, const char *name,
			     weft_buf *buf, size_t offset, weft_dtype dtype,
			     uint32_t ndim, const int64_t *shape)
{
	weft_sim *sim = mc->sim;
	weft__sim_array *grown, *a;
	weft__sim_buf *b;
	weft_status st;

	if (weft__mc_main(mc, "weft_model_array"))
		return WEFT_E_INVALID;
	b = weft__sim_buf_find(sim, buf);
	if (!weft__is_name(name))
		return weft__model_fail(mc, WEFT_E_INVALID,
					"view name '%s' is not a name (a-z, "
					"0-9 and '_')",
					name ? name : "(NULL)");
	if (weft__sim_array_index(sim, name) >= 0)
		return weft__model_fail(mc, WEFT_E_INVALID,
					"view '%s' is declared twice", name);
	if ((st = weft__check_array(mc, name, b, offset, dtype, ndim, shape)))
		return st;
	grown = realloc(sim->arrays, (sim->n_arrays + 1) * sizeof *grown);
	if (!grown)
		return weft__model_fail(mc, WEFT_E_NOMEM, "out of memory");
	sim->arrays = grown;
	a = &grown[sim->n_arrays];
	memset(a, 0, sizeof *a);
	if (!(a->name = weft__strdup(name)))
		return weft__model_fail(mc, WEFT_E_NOMEM, "out of memory");
	a->b = b;
	a->offset = offset;
	a->dtype = (uint32_t)dtype;
	a->ndim = ndim;
	memcpy(a->shape, shape, ndim * sizeof *shape);
	sim->n_arrays++;
	return WEFT_OK;
}

weft_status weft_model_output_open(weft_model_ctx *mc, const char *filename,
				   weft_output **out)
{
	weft_sim *sim = mc->sim;

	if (weft__mc_main(mc, "weft_model_output_open"))
		return WEFT_E_INVALID;
	return weft__sim_output_open(sim, filename, out);
}

weft_status weft_model_summary(weft_model_ctx *mc, const char *key,
			       const char *fmt, ...)
{
	weft_status st;
	va_list ap;

	va_start(ap, fmt);
	st = weft__model_vsummary(mc, key, fmt, ap);
	va_end(ap);
	return st;
}

weft_status weft__model_summary(weft_model_ctx *mc, const char *key,
				const char *fmt, ...)
{
	weft_status st;
	va_list ap;

	va_start(ap, fmt);
	st = weft__model_vsummary(mc, key, fmt, ap);
	va_end(ap);
	return st;
}

weft_status weft__model_vsummary(weft_model_ctx *mc, const char *key,
				 const char *fmt, va_list ap)
{
	weft_sim *sim = mc->sim;
	char value[512];
	weft__summary_line *grown;

	if (weft__mc_main(mc, "weft_model_summary"))
		return WEFT_E_INVALID;
	vsnprintf(value, sizeof value, fmt, ap);
	grown = realloc(sim->summary, (sim->n_summary + 1) * sizeof *grown);
	if (!grown)
		return weft__model_fail(mc, WEFT_E_NOMEM, "out of memory");
	sim->summary = grown;
	grown[sim->n_summary].key = weft__strdup(key);
	grown[sim->n_summary].value = weft__strdup(value);
	if (!grown[sim->n_summary].key || !grown[sim->n_summary].value) {
		free(grown[sim->n_summary].key);
		free(grown[sim->n_summary].value);
		return weft__model_fail(mc, WEFT_E_NOMEM, "out of memory");
	}
	sim->n_summary++;
	return WEFT_OK;
}

/* ---- environments (weft/env.h) ------------------------------------------ */

/* The model's env descriptor (ABI 1.5), or NULL. */
static const weft_env_model *weft__mc_env(const weft_model_ctx *mc)
{
	const weft_model *m = mc->model;

	return m->struct_size >= WEFT_MODEL_V1_5_SIZE ? m->env : NULL;
}

static int weft__dtype_integer(uint32_t t)
{
	return weft__dtype_known(t) && (t >> 8) != 2u;
}

/* A Box's bounds: each low <= high, none NaN; elems of them. */
static weft_status weft__check_bounds(weft_model_ctx *mc, const char *which,
				      const double *low, const double *high,
				      uint64_t elems)
{
	for (uint64_t i = 0; i < elems; i++) {
		double lo = low ? low[i] : -HUGE_VAL;
		double hi = high ? high[i] : HUGE_VAL;

		if (lo != lo || hi != hi || lo > hi)
			return weft__model_fail(
				mc, WEFT_E_INVALID,
				"weft_model_env_spaces: the %s space's "
				"bounds at element %llu are low = %g, high = "
				"%g: expected low <= high, neither NaN",
				which, (unsigned long long)i, lo, hi);
	}
	return WEFT_OK;
}

/* One space: a known kind and dtype, a shape that fits its kind, sane
 * bounds; *elems its element count (1 for Discrete). */
static weft_status weft__check_space(weft_model_ctx *mc, const char *which,
				     const weft_env_space *s, uint64_t *elems)
{
	if (!s || s->struct_size < sizeof *s)
		return weft__model_fail(
			mc, WEFT_E_INVALID,
			"weft_model_env_spaces: the %s space is %s", which,
			!s ? "NULL"
			   : "too short (struct_size below "
			     "sizeof(weft_env_space))");
	if (!weft__dtype_known(s->dtype))
		return weft__model_fail(mc, WEFT_E_INVALID,
					"weft_model_env_spaces: the %s space "
					"has an unknown dtype (%u)",
					which, s->dtype);
	*elems = 1;
	if (s->kind == WEFT_SPACE_DISCRETE) {
		if (s->ndim != 0 || s->n < 1 || !weft__dtype_integer(s->dtype))
			return weft__model_fail(
				mc, WEFT_E_INVALID,
				"weft_model_env_spaces: the %s space is "
				"Discrete: %s",
				which,
				s->ndim != 0 ? "expected ndim 0 (a scalar)"
				: s->n < 1   ? "expected n >= 1"
					     : "expected an integer dtype");
		return WEFT_OK;
	}
	if (s->kind != WEFT_SPACE_BOX)
		return weft__model_fail(mc, WEFT_E_INVALID,
					"weft_model_env_spaces: the %s space "
					"has an unknown kind (%u): expected "
					"WEFT_SPACE_BOX or WEFT_SPACE_DISCRETE",
					which, s->kind);
	if (s->ndim < 1 || s->ndim > WEFT_ENV_MAX_DIMS ||
	    !weft__array_elems(s->ndim, s->shape, elems) || *elems == 0 ||
	    *elems > ((uint64_t)1 << 32))
		return weft__model_fail(mc, WEFT_E_INVALID,
					"weft_model_env_spaces: the %s space "
					"is a Box: expected 1 to %d "
					"dimensions, each at least 1",
					which, WEFT_ENV_MAX_DIMS);
	return weft__check_bounds(mc, which, s->low, s->high, *elems);
}

/* A copy of elems bounds (NULL for NULL) into *out. */
static int weft__copy_bounds(const double *src, uint64_t elems, double **out)
{
	*out = NULL;
	if (!src)
		return 0;
	*out = malloc((size_t)elems * sizeof **out);
	if (!*out)
		return -1;
	memcpy(*out, src, (size_t)elems * sizeof **out);
	return 0;
}

/* What the env functions refuse first: a call outside setup(), or by a
 * model whose descriptor has no env. */
static weft_status weft__mc_env_setup(weft_model_ctx *mc, const char *fn)
{
	weft_status st;

	if ((st = weft__mc_setup(mc, fn)))
		return st;
	if (!weft__mc_env(mc))
		return weft__model_fail(mc, WEFT_E_INVALID,
					"%s called, but the model's "
					"descriptor has no env (model ABI "
					"1.5): it is not an environment model",
					fn);
	return WEFT_OK;
}

weft_status weft_model_env_spaces(weft_model_ctx *mc, const weft_env_space *obs,
				  const weft_env_space *action)
{
	weft_sim *sim = mc ? mc->sim : NULL;
	uint64_t n_obs, n_act;
	double *b[4] = { NULL, NULL, NULL, NULL };
	weft_status st;

	if (!mc)
		return WEFT_E_INVALID;
	if ((st = weft__mc_env_setup(mc, "weft_model_env_spaces")))
		return st;
	sim = mc->sim;
	if (sim->has_env_spaces)
		return weft__model_fail(mc, WEFT_E_INVALID,
					"weft_model_env_spaces called twice: "
					"the spaces are declared once");
	if ((st = weft__check_space(mc, "observation", obs, &n_obs)) ||
	    (st = weft__check_space(mc, "action", action, &n_act)))
		return st;
	if (obs->kind == WEFT_SPACE_BOX &&
	    (weft__copy_bounds(obs->low, n_obs, &b[0]) ||
	     weft__copy_bounds(obs->high, n_obs, &b[1])))
		goto nomem;
	if (action->kind == WEFT_SPACE_BOX &&
	    (weft__copy_bounds(action->low, n_act, &b[2]) ||
	     weft__copy_bounds(action->high, n_act, &b[3])))
		goto nomem;
	memcpy(&sim->env_obs, obs, sizeof sim->env_obs);
	memcpy(&sim->env_act, action, sizeof sim->env_act);
	sim->env_obs.struct_size = sim->env_act.struct_size =
		(uint32_t)sizeof sim->env_obs;
	sim->env_obs.low = b[0];
	sim->env_obs.high = b[1];
	sim->env_act.low = b[2];
	sim->env_act.high = b[3];
	memcpy(sim->env_bounds, b, sizeof b);
	sim->has_env_spaces = 1;
	return WEFT_OK;

nomem:
	for (size_t i = 0; i < 4; i++)
		free(b[i]);
	return weft__model_fail(mc, WEFT_E_NOMEM,
				"weft_model_env_spaces: out of memory");
}

/* The number of environments: the model's count key (weft/env.h). */
static int64_t weft__mc_envs(const weft_model_ctx *mc)
{
	return weft__config_int(mc->sim->cfg, mc->model->name,
				weft__mc_env(mc)->count_key);
}

/* One view of the protocol, named in the message when buf is NULL. */
static weft_status weft__env_view(weft_model_ctx *mc, const char *name,
				  weft_buf *buf, size_t offset, uint32_t dtype,
				  uint32_t ndim, const int64_t *shape)
{
	if (!buf)
		return weft__model_fail(mc, WEFT_E_INVALID,
					"weft_model_env_views: view '%s' has "
					"no buffer (NULL)",
					name);
	return weft_model_array(mc, name, buf, offset, (weft_dtype)dtype, ndim,
				shape);
}

/* [n] followed by the space's shape (nothing for Discrete) into shape;
 * the number of dimensions. */
static uint32_t weft__env_shape(int64_t n, const weft_env_space *s,
				int64_t shape[WEFT_ARRAY_MAX_DIMS])
{
	uint32_t ndim = 1;

	shape[0] = n;
	if (s->kind == WEFT_SPACE_BOX)
		for (uint32_t d = 0; d < s->ndim; d++)
			shape[ndim++] = s->shape[d];
	return ndim;
}

/* What weft_model_env_views refuses before declaring anything. */
static weft_status weft__env_views_check(weft_model_ctx *mc,
					 const weft_env_views *v)
{
	if (!v || v->struct_size < sizeof *v)
		return weft__model_fail(
			mc, WEFT_E_INVALID,
			"weft_model_env_views: the views are %s",
			!v ? "NULL"
			   : "too short (struct_size below "
			     "sizeof(weft_env_views))");
	if (!mc->sim->has_env_spaces)
		return weft__model_fail(mc, WEFT_E_INVALID,
					"weft_model_env_views called before "
					"weft_model_env_spaces(): the views' "
					"shapes come from the spaces");
	if (v->reward_dtype != WEFT_DTYPE_F32 &&
	    v->reward_dtype != WEFT_DTYPE_F64)
		return weft__model_fail(mc, WEFT_E_INVALID,
					"weft_model_env_views: view 'reward': "
					"reward_dtype must be WEFT_DTYPE_F32 "
					"or WEFT_DTYPE_F64");
	if (v->state && v->state_k < 1)
		return weft__model_fail(mc, WEFT_E_INVALID,
					"weft_model_env_views: view 'state': "
					"state_k is %lld, expected at least 1",
					(long long)v->state_k);
	return WEFT_OK;
}

weft_status weft_model_env_views(weft_model_ctx *mc, const weft_env_views *v)
{
	const weft_env_space *obs, *act;
	int64_t n, so[WEFT_ARRAY_MAX_DIMS], sa[WEFT_ARRAY_MAX_DIMS], st2[2];
	int64_t book[2] = { WEFT_ENV_WORDS, 0 };
	uint32_t no, na;
	weft_status st;

	if (!mc)
		return WEFT_E_INVALID;
	if ((st = weft__mc_env_setup(mc, "weft_model_env_views")))
		return st;
	if ((st = weft__env_views_check(mc, v)))
		return st;
	obs = &mc->sim->env_obs;
	act = &mc->sim->env_act;
	n = weft__mc_envs(mc);
	no = weft__env_shape(n, obs, so);
	na = weft__env_shape(n, act, sa);
	book[1] = st2[0] = n;
	st2[1] = v->state_k;
	if ((st = weft__env_view(mc, "obs", v->io, v->obs, obs->dtype, no,
				 so)) ||
	    (st = weft__env_view(mc, "reward", v->io, v->reward,
				 v->reward_dtype, 1, &n)) ||
	    (st = weft__env_view(mc, "terminated", v->io, v->terminated,
				 WEFT_DTYPE_U8, 1, &n)) ||
	    (st = weft__env_view(mc, "truncated", v->io, v->truncated,
				 WEFT_DTYPE_U8, 1, &n)) ||
	    (st = weft__env_view(mc, "final_obs", v->io, v->final_obs,
				 obs->dtype, no, so)) ||
	    (st = weft__env_view(mc, "actions", v->actions, 0, act->dtype, na,
				 sa)) ||
	    (st = weft__env_view(mc, "reset_mask", v->reset_mask, 0,
				 WEFT_DTYPE_U8, 1, &n)) ||
	    (st = weft__env_view(mc, "reset_seed", v->reset_seed, 0,
				 WEFT_DTYPE_U64, 1, &n)) ||
	    (v->state && (st = weft__env_view(mc, "state", v->state, 0,
					      v->state_dtype, 2, st2))))
		return st;
	return weft__env_view(mc, "env_book", v->env_book, 0, WEFT_DTYPE_U32, 2,
			      book);
}

/* Whether name is one of the protocol's own views (weft/env.h). */
static int weft__env_protocol_name(const char *name)
{
	static const char *const names[] = {
		"obs",	   "reward",	 "terminated", "truncated", "final_obs",
		"actions", "reset_mask", "reset_seed", "env_book",  "state",
	};

	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (strcmp(names[i], name) == 0)
			return 1;
	return 0;
}

/* What weft_model_env_info refuses of the view at index k (-1: none). */
static weft_status weft__env_info_check(weft_model_ctx *mc, const char *name,
					long k)
{
	const weft_sim *sim = mc->sim;
	int64_t n = weft__mc_envs(mc);

	if (k < 0)
		return weft__model_fail(mc, WEFT_E_INVALID,
					"weft_model_env_info: no view '%s': "
					"declare it with weft_model_array "
					"first",
					name ? name : "(NULL)");
	if (weft__env_protocol_name(name))
		return weft__model_fail(mc, WEFT_E_INVALID,
					"weft_model_env_info: '%s' is one of "
					"the protocol's views, not an info "
					"field",
					name);
	if (name[0] == '_' || strcmp(name, "final_info") == 0)
		return weft__model_fail(mc, WEFT_E_INVALID,
					"weft_model_env_info: '%s' would clash "
					"with Gymnasium's own info keys "
					"(final_info, and '_' + name: a "
					"field's mask)",
					name);
	for (uint32_t i = 0; i < sim->n_env_info; i++)
		if (sim->env_info[i] == (uint32_t)k)
			return weft__model_fail(mc, WEFT_E_INVALID,
						"weft_model_env_info: '%s' is "
						"named twice",
						name);
	if (sim->n_env_info == WEFT_ENV_MAX_INFO)
		return weft__model_fail(mc, WEFT_E_INVALID,
					"weft_model_env_info: '%s' would be "
					"info field %d, the most is %d "
					"(WEFT_ENV_MAX_INFO)",
					name, WEFT_ENV_MAX_INFO + 1,
					WEFT_ENV_MAX_INFO);
	if (sim->arrays[k].shape[0] != n)
		return weft__model_fail(
			mc, WEFT_E_INVALID,
			"weft_model_env_info: view '%s' has "
			"%lld rows, expected one per "
			"environment (%lld)",
			name, (long long)sim->arrays[k].shape[0], (long long)n);
	return WEFT_OK;
}

weft_status weft_model_env_info(weft_model_ctx *mc, const char *name)
{
	weft_sim *sim;
	weft_status st;
	long k;

	if (!mc)
		return WEFT_E_INVALID;
	if ((st = weft__mc_env_setup(mc, "weft_model_env_info")))
		return st;
	sim = mc->sim;
	k = weft__sim_array_index(sim, name);
	if ((st = weft__env_info_check(mc, name, k)))
		return st;
	sim->env_info[sim->n_env_info++] = (uint32_t)k;
	return WEFT_OK;
}

/* weft_model_env_summary reads the words ENDED and SUM in one download. */
_Static_assert(WEFT_ENV_SUM == WEFT_ENV_ENDED + 1u,
	       "WEFT_ENV_SUM follows WEFT_ENV_ENDED (weft/env.wk)");

/* Episodes ended and their returns summed, in environment order, from
 * the words ENDED and SUM (f32 bits) of the bookkeeping. */
static void weft__env_totals(const uint32_t *words, size_t n, uint64_t *ended,
			     double *sum)
{
	*ended = 0;
	*sum = 0.0;
	for (size_t i = 0; i < n; i++) {
		float f;

		memcpy(&f, &words[n + i], sizeof f);
		*ended += words[i];
		*sum += (double)f;
	}
}

weft_status weft_model_env_summary(weft_model_ctx *mc, weft_buf *env_book)
{
	const weft__sim_buf *b;
	uint32_t *words;
	uint64_t ended;
	double sum;
	size_t n, need;
	weft_status st;

	if (!mc)
		return WEFT_E_INVALID;
	if ((st = weft__mc_main(mc, "weft_model_env_summary")))
		return st;
	if (!weft__mc_env(mc))
		return weft__model_fail(mc, WEFT_E_INVALID,
					"weft_model_env_summary called, but "
					"the model's descriptor has no env "
					"(model ABI 1.5): it is not an "
					"environment model");
	n = (size_t)weft__mc_envs(mc);
	need = (size_t)WEFT_ENV_WORDS * 4u * n;
	b = env_book ? weft__sim_buf_find(mc->sim, env_book) : NULL;
	if (!b || b->bytes < need)
		return weft__model_fail(
			mc, WEFT_E_INVALID,
			"weft_model_env_summary: the bookkeeping buffer "
			"'%s' is %s: expected u32 [%u, %zu] (%zu bytes, "
			"weft/env.wk)",
			b ? b->name : "env_book",
			!env_book ? "NULL"
			: !b	  ? "not allocated with weft_model_alloc"
				  : "too small",
			WEFT_ENV_WORDS, n, need);
	if (!(words = malloc(2 * 4u * n + 4u)))
		return weft__model_fail(mc, WEFT_E_NOMEM,
					"weft_model_env_summary: out of "
					"memory for the bookkeeping of %zu "
					"environments",
					n);
	st = weft__model_download(mc, words, env_book,
				  (size_t)WEFT_ENV_ENDED * 4u * n, 2 * 4u * n);
	if (st == WEFT_OK) {
		weft__env_totals(words, n, &ended, &sum);
		if (!(st = weft__model_summary(mc, "episodes ended", "%llu",
					       (unsigned long long)ended)))
			st = weft__model_summary(mc, "mean return", "%.4f",
						 ended ? sum / (double)ended
						       : 0.0);
	}
	free(words);
	return st;
}
