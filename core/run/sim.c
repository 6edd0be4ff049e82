/*
 * core/run/sim.c - a run: backend, device, model, steps and outputs.
 *
 * The core is the only place where a model meets a backend: the model
 * declares buffers, uploads and a launch list through weft/model.h; the
 * core forwards them to the backend's vtable, adding what each call was
 * for to any error message. Outputs go through the model's output(), or
 * through collect() and emit() and the output pipeline (pipeline.c); the
 * plot, after the model's finish(), through plot.c.
 */
#include "run/sim.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "run/checkpoint.h"
#include "run/validate.h"
#include "util/crash.h"

/* ---- calls into plugins ---------------------------------------------------
 */

/* Into the run's backend (util/crash.h: a crash names its plugin file and
 * the function); setup: a call of the setup phase, before the first
 * step. */
static void weft__sim_in_backend(const weft_sim *sim, weft__in_plugin *at,
				 const char *hook, int setup)
{
	weft__crash_set(at, "backend", sim->plugin ? sim->plugin->path : NULL,
			hook, setup);
}

/* Into the run's model. */
static void weft__sim_in_model(const weft_sim *sim, weft__in_plugin *at,
			       const char *hook, int setup)
{
	weft__crash_set(at, "model", sim->model_file, hook, setup);
}

/* ---- backend choice ------------------------------------------------------ */

/* The backend plugin p (loaded) is the run's. */
static void weft__sim_use_plugin(weft_sim *sim, weft__plugin *p)
{
	sim->plugin = p;
	sim->vt = WEFT__BACKEND(p);
	sim->has_fences = sim->vt->struct_size >= WEFT_BACKEND_V1_1_SIZE &&
			  sim->vt->fence && sim->vt->wait;
}

weft_status weft__sim_choose_backend(weft_context *ctx, const weft_config *cfg,
				     weft__plugin_set **set, weft__plugin **own,
				     weft__plugin **out)
{
	const weft__opts *o = weft__config_opts(cfg);
	weft_status st;

	if (!o->backend.plugin[0])
		return weft__backend_choose(ctx, o->backend.plugin_path,
					    o->backend.name, 0, set, own, out);
	st = weft__plugin_load_path(ctx, o->backend.plugin, own);
	*out = *own;
	return st;
}

static weft_status weft__sim_pick_backend(weft_sim *sim)
{
	weft_status st;

	st = weft__sim_choose_backend(sim->ctx, sim->cfg, &sim->plugins,
				      &sim->own_plugin, &sim->plugin);
	if (st == WEFT_OK)
		weft__sim_use_plugin(sim, sim->plugin);
	return st;
}

void weft__sim_device_config(const weft_config *cfg, weft_device_config *dc)
{
	const weft__opts *o = weft__config_opts(cfg);
	const char *text = o->backend.device;
	char *end;
	long v;

	memset(dc, 0, sizeof *dc);
	dc->struct_size = sizeof *dc;
	dc->threads = (int)o->backend.threads;
	dc->platform = o->backend.platform[0] ? o->backend.platform : NULL;
	/* [backend] device: digits are an index, anything else a name
	 * substring. */
	dc->device = -1;
	if (!text[0])
		return;
	v = strtol(text, &end, 10);
	if (*end == '\0' && text[0] >= '0' && text[0] <= '9' && v <= INT_MAX)
		dc->device = (int)v;
	else
		dc->device_match = text;
}

/* [backend] cache_dir: "" is the XDG cache location, "off" no cache. */
static weft_status weft__sim_cache_dir(weft_sim *sim, const char **out)
{
	const char *text = weft__config_opts(sim->cfg)->backend.cache_dir;
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	*out = NULL;
	/* Resolved afresh at each device open (auto may open several). */
	free(sim->cache_dir);
	sim->cache_dir = NULL;
	if (strcmp(text, "off") == 0)
		return WEFT_OK;
	if (text[0]) {
		*out = text;
		return WEFT_OK;
	}
	if (xdg && xdg[0] == '/')
		sim->cache_dir = weft__strcat(xdg, "/weft");
	else if (home && home[0])
		sim->cache_dir = weft__strcat(home, "/.cache/weft");
	else
		return WEFT_OK; /* nowhere to cache: compile every time */
	if (!sim->cache_dir)
		return weft__fail(sim->ctx, WEFT_E_NOMEM, "out of memory");
	*out = sim->cache_dir;
	return WEFT_OK;
}

static weft_status weft__sim_open_device(weft_sim *sim)
{
	weft_device_config dc;
	weft_error err = { { 0 } };
	weft__in_plugin at;
	weft_status st;

	weft__sim_device_config(sim->cfg, &dc);
	if (weft__config_opts(sim->cfg)->backend.profile)
		dc.flags |= WEFT_DEVICE_PROFILE;
	if ((st = weft__sim_cache_dir(sim, &dc.cache_dir)))
		return st;
	weft__sim_in_backend(sim, &at, "open()", 1);
	st = sim->vt->open(&dc, &sim->dev, &err);
	weft__crash_clear(&at);
	if (st)
		return weft__fail(sim->ctx, st, "%s: open-device: %s",
				  sim->plugin->path,
				  err.msg[0] ? err.msg : weft__status_str(st));
	return WEFT_OK;
}

static weft_status weft__sim_go_on(weft_sim *sim, const char *doing);

/* Under `backend = auto`, a backend whose device lacks what the model's
 * program needs (weft__backend_meets_needs) is passed over for the next
 * one auto would take, whose device is opened in turn; when none fits,
 * WEFT_E_UNSUPPORTED says what each one lacked. A backend chosen by name
 * or path is refused when its program is loaded
 * (weft__backend_check_needs). */
static weft_status weft__sim_fit_needs(weft_sim *sim)
{
	const char *name = weft__config_opts(sim->cfg)->backend.name;
	const weft_program_desc *pd = sim->model->program;
	char why[1024], needs[400], tried[WEFT__MSG_MAX] = "";
	weft__in_plugin at;
	weft__plugin *next;
	weft_status st;

	if (!sim->plugins || strcmp(name, "auto") != 0)
		return WEFT_OK;
	while (!weft__backend_meets_needs(sim->vt, sim->dev, pd, why,
					  sizeof why)) {
		weft__msg_add(tried, sizeof tried, "%sbackend %s (%s) has %s",
			      tried[0] ? "; " : "", sim->plugin->name,
			      sim->plugin->path, why);
		weft__sim_in_backend(sim, &at, "close()", 1);
		sim->vt->close(sim->dev);
		weft__crash_clear(&at);
		sim->dev = NULL;
		for (;;) {
			st = weft__plugins_auto_next(sim->ctx, sim->plugins,
						     sim->plugin, &next);
			if (st || !next)
				break;
			weft__sim_use_plugin(sim, next);
			if ((st = weft__sim_go_on(sim, "opening the device")))
				return st;
			if (weft__sim_open_device(sim) == WEFT_OK)
				break;
			/* A device that does not open is passed over too. */
			weft__msg_add(tried, sizeof tried, "%sbackend %s: %s",
				      tried[0] ? "; " : "", next->name,
				      sim->ctx->msg);
		}
		if (st)
			return st;
		if (!next) {
			weft__backend_needs_list(pd, needs, sizeof needs);
			return weft__fail(
				sim->ctx, WEFT_E_UNSUPPORTED,
				"model '%s' needs %s, and no backend found "
				"has it (backend = auto): %s",
				sim->model->name, needs, tried);
		}
	}
	return WEFT_OK;
}

static weft_status weft__sim_load_program(weft_sim *sim)
{
	weft_program_desc pd = *sim->model->program;
	weft_error err = { { 0 } };
	weft__in_plugin at;
	weft_status st;

	if (pd.source && pd.source_len == 0)
		pd.source_len = strlen(pd.source);
	st = weft__backend_check_needs(sim->ctx, sim->model->name,
				       sim->plugin->path, sim->vt, sim->dev,
				       &pd);
	if (st)
		return st;
	weft__sim_in_backend(sim, &at, "load_program()", 1);
	st = sim->vt->load_program(sim->dev, &pd, &sim->prog, &err);
	weft__crash_clear(&at);
	if (st)
		return weft__fail(sim->ctx, st,
				  "loading the kernels of model '%s': %s",
				  pd.name, err.msg);
	return WEFT_OK;
}

/* ---- outputs --------------------------------------------------------- */

/* The output directory: checked, locked, and the new set made. */
static weft_status weft__sim_outputs_prepare(weft_sim *sim)
{
	return weft__outputs_prepare(
		sim->ctx, &sim->outputs, sim->outdir,
		weft__config_where(sim->cfg, "output", "directory"));
}

/* A run whose configuration writes nothing ([output] csv and summary
 * false: the CartPole API's) prepares the output directory only if its
 * model opens a file nonetheless, and otherwise never touches it. */
weft_status weft__sim_output_open(weft_sim *sim, const char *name,
				  weft_output **out)
{
	weft_status st;

	if (!sim->outputs.tmp && (st = weft__sim_outputs_prepare(sim)))
		return st;
	return weft__output_open(sim->ctx, &sim->outputs, name, out);
}

/* ---- open, step, finish, close -------------------------------------- */

/* WEFT_E_CANCELLED, saying what the run was doing, once its context was
 * cancelled; WEFT_OK otherwise, after reporting the phase that starts
 * (weft_context_set_progress). */
static weft_status weft__sim_go_on(weft_sim *sim, const char *doing)
{
	if (!weft__cancelled(sim->ctx)) {
		weft__progress(sim->ctx, doing, 0, 0);
		return WEFT_OK;
	}
	return weft__cancel_fail(sim->ctx, "%s (model %s)", doing,
				 sim->model->name);
}

/* lists[0], "step": set by the model's setup (weft_model_set_step). */
static weft_status weft__sim_lists_init(weft_sim *sim)
{
	sim->lists = calloc(1, sizeof *sim->lists);
	if (!sim->lists || !(sim->lists[0].name = weft__strdup("step")))
		return weft__fail(sim->ctx, WEFT_E_NOMEM, "out of memory");
	sim->n_lists = 1;
	return WEFT_OK;
}

/* What every run sets first: its model, lists, lengths and outputs' place. */
static weft_status weft__sim_init(weft_sim *sim)
{
	if (!sim->model)
		sim->model = weft__config_model(sim->cfg);
	if (!sim->model)
		return weft__fail(sim->ctx, WEFT_E_INTERNAL,
				  "the configuration's model was not found");
	sim->model_file = weft__crash_file(sim->model);
	sim->steps_total =
		(uint64_t)weft__config_opts(sim->cfg)->simulation.steps;
	sim->every = (uint64_t)weft__config_opts(sim->cfg)->output.every;
	sim->collect_points = 1;
	if (sim->model->struct_size >= WEFT_MODEL_V1_7_SIZE &&
	    sim->model->collect && sim->model->collect_points > 1)
		sim->collect_points = sim->model->collect_points;
	sim->outdir = weft__config_opts(sim->cfg)->output.directory;
	weft__mc_init(&sim->mc, sim, 0);
	return weft__sim_lists_init(sim);
}

/* The output directory, when the configuration writes: before any work
 * that takes time, so that a second run into it is refused at once. */
static weft_status weft__sim_outputs_early(weft_sim *sim)
{
	weft_status st = weft__sim_go_on(sim, "preparing the output directory");

	if (st == WEFT_OK && weft__config_writes(sim->cfg))
		st = weft__sim_outputs_prepare(sim);
	return st;
}

/* The backend, the device and the model's kernels, for one run or (a
 * batch's, replicas > 0) for `replicas` runs whose replicas prepare their
 * own output directories. The output directory after the backend's probe,
 * whose child must not inherit the directory's lock. */
static weft_status weft__sim_backend(weft_sim *sim, uint32_t replicas)
{
	weft_model_estimate est;
	weft_status st;

	if ((st = weft__sim_go_on(sim, "loading the backend")) ||
	    (st = weft__sim_pick_backend(sim)) ||
	    (!replicas && (st = weft__sim_outputs_early(sim))) ||
	    (st = weft__sim_go_on(sim, "opening the device")) ||
	    (st = weft__sim_open_device(sim)) ||
	    (st = weft__sim_fit_needs(sim)) ||
	    (st = weft__validate_model(sim->ctx, sim->cfg, sim->valid,
				       sim->model, &est)) ||
	    (st = weft__sim_go_on(sim, "checking the device's memory")) ||
	    (st = weft__mem_fits(sim->ctx, sim->model->name, &est, sim->vt,
				 sim->dev, replicas ? replicas : 1)) ||
	    (st = weft__sim_go_on(sim, "loading the kernels")))
		return st;
	return weft__sim_load_program(sim);
}

/* The model's setup, the output pipeline and the checkpoints. */
static weft_status weft__sim_model_setup(weft_sim *sim)
{
	weft__in_plugin at;
	weft_status st;

	if ((st = weft__sim_go_on(sim, "setting the model up")))
		return st;
	sim->in_setup = 1;
	weft__sim_in_model(sim, &at, "setup()", 1);
	st = sim->model->setup(&sim->mc, &sim->mstate);
	weft__crash_clear(&at);
	st = weft__mc_end(&sim->mc, st);
	sim->in_setup = 0;
	if (st == WEFT_OK && WEFT__SIM_STEP(sim)->n == 0)
		st = weft__model_fail(&sim->mc, WEFT_E_MODEL,
				      "setup declared no step launches: call "
				      "weft_model_set_step() in setup() with "
				      "what a step of `weft run` launches (an "
				      "environment model too: its own "
				      "policy's step)");
	if (st == WEFT_OK)
		st = weft__sim_env_check(sim);
	if (st == WEFT_OK)
		st = weft__sim_go_on(sim, "starting the output writer");
	if (st == WEFT_OK)
		st = weft__pipe_start(sim);
	if (st == WEFT_OK)
		st = weft__ckpt_start(sim);
	return st;
}

/* A new run of cfg (model NULL: the configuration's), not set up yet. */
static weft_status weft__sim_new(weft_context *ctx, const weft_config *cfg,
				 const weft_model *model, weft_sim **out)
{
	const weft__valid *valid;
	weft_status st;

	if (!ctx || !cfg || !out)
		return weft__fail(ctx, WEFT_E_INVALID,
				  "weft_sim_open: NULL argument");
	*out = NULL;
	if ((st = weft__validate(ctx, cfg, &valid)))
		return st;
	*out = calloc(1, sizeof **out);
	if (!*out)
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	(*out)->ctx = ctx;
	(*out)->cfg = cfg;
	(*out)->valid = valid;
	(*out)->model = model;
	(*out)->tm.done_at = UINT64_MAX; /* no wait seen yet */
	return weft__sim_init(*out);
}

/* The end of an open: the run in *out, or closed on failure. */
static weft_status weft__sim_opened(weft_sim *sim, weft_status st,
				    weft_sim **out)
{
	*out = NULL;
	/* Validation's record belongs to the configuration, which may change
	 * (and free it) once the run is open: only the open reads it. */
	sim->valid = NULL;
	if (st) {
		weft__sim_close(sim);
		return st;
	}
	*out = sim;
	return WEFT_OK;
}

weft_status weft_sim_open(weft_context *ctx, const weft_config *cfg,
			  weft_sim **out)
{
	return weft__sim_open_model(ctx, cfg, NULL, out);
}

weft_status weft__sim_open_model(weft_context *ctx, const weft_config *cfg,
				 const weft_model *model, weft_sim **out)
{
	weft_sim *sim = NULL;
	weft_status st = weft__sim_new(ctx, cfg, model, &sim);

	if (st == WEFT_OK && (st = weft__sim_backend(sim, 0)) == WEFT_OK)
		st = weft__sim_model_setup(sim);
	return sim ? weft__sim_opened(sim, st, out) : st;
}

weft_status weft__sim_open_base(weft_context *ctx, const weft_config *cfg,
				const weft_model *model, uint32_t replicas,
				weft_sim **out)
{
	weft_sim *sim = NULL;
	weft_status st = weft__sim_new(ctx, cfg, model, &sim);

	if (st == WEFT_OK)
		st = weft__sim_backend(sim, replicas);
	return sim ? weft__sim_opened(sim, st, out) : st;
}

weft_status weft__sim_open_replica(weft_context *ctx, const weft_config *cfg,
				   const weft_sim *base, const weft_backend *vt,
				   weft_device *dev, weft_sim **out)
{
	weft_sim *sim = NULL;
	weft_status st = weft__sim_new(ctx, cfg, base->model, &sim);

	if (st == WEFT_OK) {
		sim->batched = 1;
		sim->plugin = base->plugin;
		sim->vt = vt;
		sim->dev = dev;
		st = weft__sim_outputs_early(sim);
	}
	/* A model other than the one validation checked: its check(). */
	if (st == WEFT_OK && sim->model != sim->valid->model)
		st = weft__model_check(ctx, cfg, sim->model);
	if (st == WEFT_OK)
		st = weft__sim_model_setup(sim);
	return sim ? weft__sim_opened(sim, st, out) : st;
}

static weft_status weft__sim_enqueue(weft_sim *sim, uint64_t n)
{
	weft_error err = { { 0 } };
	const weft__sim_list *step = WEFT__SIM_STEP(sim);
	weft__in_plugin at;
	weft_status st;

	if (!sim->tm.t0) {
		sim->tm.t0 = weft__now_ns();
		sim->tm.from = sim->steps_done;
	}
	weft__sim_in_backend(sim, &at, "step() (the model's kernels)", 0);
	st = sim->vt->step(sim->dev, sim->prog, step->l, step->n, n, &err);
	weft__crash_clear(&at);
	sim->tm.t_enq = weft__now_ns();
	if (st)
		return weft__fail(sim->ctx, st, "step %llu: %s",
				  (unsigned long long)sim->steps_done + 1,
				  err.msg);
	return WEFT_OK;
}

void weft__sim_waited(weft_sim *sim, uint64_t t0, uint64_t upto)
{
	sim->tm.waits_ns += weft__now_ns() - t0;
	if (sim->tm.t0 && upto == sim->steps_done &&
	    sim->tm.done_at != sim->steps_done) {
		sim->tm.t_done = weft__now_ns();
		sim->tm.done_at = sim->steps_done;
	}
}

/* Outputs after a chunk: collect() and the pipeline, when the model has
 * outputs between steps. */
static weft_status weft__sim_output(weft_sim *sim)
{
	return sim->pipe.on ? weft__pipe_chunk(sim) : WEFT_OK;
}

/* After a chunk: its outputs at an output point, a checkpoint when one is
 * due, their host time counted apart from the steps'. */
static weft_status weft__sim_between(weft_sim *sim)
{
	uint64_t t0 = weft__now_ns(), waits = sim->tm.waits_ns;
	weft_status st = WEFT_OK;

	if (sim->steps_done % sim->every == 0 ||
	    sim->steps_done == sim->steps_total)
		st = weft__sim_output(sim);
	if (st == WEFT_OK && weft__ckpt_due(sim))
		st = weft__ckpt_take(sim, 0);
	sim->tm.outputs_ns += weft__now_ns() - t0 - (sim->tm.waits_ns - waits);
	return st;
}

/* Steps to the next output point that collects (every collect_points-th
 * one), or to the next checkpoint when it comes first. */
static uint64_t weft__sim_chunk(const weft_sim *sim)
{
	uint64_t span = sim->every, chunk;
	uint64_t ck = sim->ckpt ? sim->ckpt->every : 0;

	if (sim->collect_points > 1 &&
	    sim->every <= UINT64_MAX / sim->collect_points)
		span = sim->every * sim->collect_points;
	chunk = span - sim->steps_done % span;

	if (ck && ck - sim->steps_done % ck < chunk)
		chunk = ck - sim->steps_done % ck;
	return chunk;
}

/* Enqueue in chunks that end on multiples of [output] every, so outputs
 * are read between chunks and never inside one, and of [checkpoint]
 * every, where checkpoints are taken. */
weft_status weft_sim_step(weft_sim *sim, uint64_t n)
{
	if (!sim)
		return WEFT_E_INVALID;
	return weft__sim_step(sim, n);
}

weft_status weft__sim_step(weft_sim *sim, uint64_t n)
{
	weft_status st;

	if (n > sim->steps_total - sim->steps_done)
		n = sim->steps_total - sim->steps_done;
	while (n > 0) {
		uint64_t chunk = weft__sim_chunk(sim);
		if (weft__cancelled(sim->ctx))
			return weft__cancel_fail(
				sim->ctx, "stepping (%llu of %llu steps done)",
				(unsigned long long)sim->steps_done,
				(unsigned long long)sim->steps_total);
		if (chunk > n)
			chunk = n;
		if ((st = weft__sim_enqueue(sim, chunk)))
			return st;
		sim->steps_done += chunk;
		n -= chunk;
		if ((st = weft__sim_between(sim)))
			return st;
	}
	return WEFT_OK;
}

uint64_t weft_sim_steps_done(const weft_sim *sim)
{
	return sim ? sim->steps_done : 0;
}

uint64_t weft_sim_steps_total(const weft_sim *sim)
{
	return sim ? sim->steps_total : 0;
}

/* What cleaning up the output directory left behind, as a summary line. */
static weft_status weft__sim_note(weft_sim *sim)
{
	weft_status st = WEFT_OK;

	if (sim->outputs.note[0])
		st = weft__model_summary(&sim->mc, "leftovers", "%s",
					 sim->outputs.note);
	sim->outputs.note[0] = '\0';
	return st;
}

static weft_status weft__sim_write_summary(weft_sim *sim)
{
	weft_output *o;
	weft_status st;

	if (!weft__config_opts(sim->cfg)->output.summary)
		return WEFT_OK;
	st = weft__sim_output_open(sim, "summary.txt", &o);
	for (size_t i = 0; st == WEFT_OK && i < sim->n_summary; i++)
		st = weft__output_printf(o, "%s: %s\n", sim->summary[i].key,
					 sim->summary[i].value);
	return st;
}

/* The model's finish(). */
static weft_status weft__sim_model_finish(weft_sim *sim)
{
	weft__in_plugin at;
	weft_status st;

	weft__sim_in_model(sim, &at, "finish()", 0);
	st = sim->model->finish(&sim->mc, sim->mstate);
	weft__crash_clear(&at);
	return weft__mc_end(&sim->mc, st);
}

weft_status weft_sim_finish(weft_sim *sim)
{
	if (!sim)
		return WEFT_E_INVALID;
	return weft__sim_finish(sim);
}

weft_status weft__sim_finish(weft_sim *sim)
{
	weft_status st;

	if (sim->steps_done < sim->steps_total &&
	    (st = weft__sim_step(sim, sim->steps_total - sim->steps_done)))
		return st;
	sim->finished = 1;
	/* Every output emitted and the writer joined before finish(), the
	 * last checkpoint written. Up to the commit, a cancellation leaves
	 * the outputs as they were. */
	if ((st = weft__ckpt_join(sim)) || (st = weft__pipe_drain(sim)) ||
	    (st = weft__sim_go_on(sim, "finishing")) ||
	    (st = weft__sim_model_finish(sim)) ||
	    (st = weft__sim_go_on(sim, "finishing")) ||
	    (st = weft__sim_plot(sim)) || (st = weft__sim_note(sim)) ||
	    (st = weft__sim_write_summary(sim)) ||
	    (st = weft__sim_go_on(sim, "finishing")) ||
	    (sim->outputs.tmp &&
	     (st = weft__outputs_commit(sim->ctx, &sim->outputs))))
		return st;
	return weft__sim_note(sim);
}

void weft_sim_close(weft_sim *sim)
{
	weft__sim_close(sim);
}

/* The model's teardown(), the program unloaded, the device closed. */
static void weft__sim_plugins_close(weft_sim *sim)
{
	weft__in_plugin at;

	if (sim->model && sim->mstate) {
		weft__sim_in_model(sim, &at, "teardown()", 0);
		sim->model->teardown(&sim->mc, sim->mstate);
		weft__crash_clear(&at);
	}
	weft__outputs_discard(&sim->outputs);
	weft__sim_in_backend(sim, &at, "unload_program()", 0);
	if (sim->prog)
		sim->vt->unload_program(sim->dev, sim->prog);
	at.hook = "close()";
	if (sim->dev)
		sim->vt->close(sim->dev);
	weft__crash_clear(&at);
}

void weft__sim_close(weft_sim *sim)
{
	if (!sim)
		return;
	weft__pipe_stop(sim);
	weft__ckpt_close(sim);
	weft__sim_plugins_close(sim);
	weft__plugins_free(sim->plugins);
	weft__plugin_free(sim->own_plugin);
	for (size_t i = 0; i < sim->n_summary; i++) {
		free(sim->summary[i].key);
		free(sim->summary[i].value);
	}
	free(sim->summary);
	for (size_t i = 0; i < sim->n_bufs; i++) {
		free(sim->bufs[i]->name);
		free(sim->bufs[i]);
	}
	free(sim->bufs);
	for (size_t i = 0; i < sim->n_hosts; i++)
		free(sim->hosts[i].name);
	free(sim->hosts);
	free(sim->rows);
	for (uint32_t i = 0; i < sim->n_lists; i++) {
		free(sim->lists[i].name);
		free(sim->lists[i].l);
	}
	free(sim->lists);
	for (size_t i = 0; i < sim->n_arrays; i++)
		free(sim->arrays[i].name);
	free(sim->arrays);
	for (size_t i = 0; i < 4; i++)
		free(sim->env_bounds[i]);
	weft__sim_plots_free(sim);
	free(sim->cache_dir);
	free(sim);
}

/* ---- queries ------------------------------------------------------------- */

const char *weft_sim_backend(const weft_sim *sim)
{
	return sim && sim->vt ? sim->vt->name : "";
}

const char *weft_sim_model(const weft_sim *sim)
{
	return sim && sim->model ? sim->model->name : "";
}

weft_status weft_sim_stats(weft_sim *sim, weft_stats *out)
{
	weft__in_plugin at;
	weft_status st;

	if (!sim || !out || out->struct_size < sizeof(uint32_t))
		return WEFT_E_INVALID;
	weft__sim_in_backend(sim, &at, "stats()", 0);
	st = sim->vt->stats(sim->dev, out);
	weft__crash_clear(&at);
	return st;
}

/* The backend has no kernel_stats(): why, for the message. */
static const char *weft__sim_no_kstats(const weft_backend *vt)
{
	if (vt->struct_size < WEFT_BACKEND_V1_5_SIZE)
		return "built for a backend ABI older than 1.5, which added "
		       "kernel_stats()";
	return "it has no kernel_stats()";
}

weft_status weft_sim_kernel_stats(weft_sim *sim, weft_kernel_stats_row *rows,
				  size_t cap, size_t *n)
{
	const weft_program_desc *pd;
	weft_kernel_stat *ks;
	weft_error err = { { 0 } };
	weft__in_plugin at;
	weft_status st;

	if (!sim || !n || (!rows && cap))
		return sim ? weft__fail(sim->ctx, WEFT_E_INVALID,
					"weft_sim_kernel_stats: no %s",
					n ? "rows" : "place for the count")
			   : WEFT_E_INVALID;
	if (sim->vt->struct_size < WEFT_BACKEND_V1_5_SIZE ||
	    !sim->vt->kernel_stats)
		return weft__fail(sim->ctx, WEFT_E_UNSUPPORTED,
				  "backend %s keeps no per-kernel counters "
				  "(%s: %s)",
				  sim->vt->name, sim->plugin->path,
				  weft__sim_no_kstats(sim->vt));
	pd = sim->model->program;
	ks = calloc(pd->n_kernels ? pd->n_kernels : 1, sizeof *ks);
	if (!ks)
		return weft__fail(sim->ctx, WEFT_E_NOMEM, "out of memory");
	weft__sim_in_backend(sim, &at, "kernel_stats()", 0);
	st = sim->vt->kernel_stats(sim->dev, sim->prog, ks, pd->n_kernels,
				   &err);
	weft__crash_clear(&at);
	for (size_t k = 0; st == WEFT_OK && k < pd->n_kernels && k < cap; k++)
		rows[k] = (weft_kernel_stats_row){
			.name = pd->kernels[k].name,
			.launches = ks[k].launches,
			.time_ns = ks[k].time_ns,
			.timed = ks[k].timed,
		};
	free(ks);
	if (st)
		return weft__fail(sim->ctx, st, "per-kernel counters: %s",
				  err.msg);
	*n = pd->n_kernels;
	return WEFT_OK;
}

weft_status weft_sim_times_get(const weft_sim *sim, weft_sim_times *out)
{
	weft_sim_times full = { .struct_size = sizeof full };
	uint32_t size;

	if (!sim || !out || out->struct_size < sizeof(uint32_t))
		return WEFT_E_INVALID;
	if (sim->tm.t0) {
		full.steps = sim->steps_done - sim->tm.from;
		full.complete = sim->tm.done_at == sim->steps_done;
		full.steps_ns =
			(full.complete ? sim->tm.t_done : sim->tm.t_enq) -
			sim->tm.t0;
		full.outputs_ns = sim->tm.outputs_ns;
	}
	size = out->struct_size < sizeof full ? out->struct_size
					      : (uint32_t)sizeof full;
	memcpy((char *)out + sizeof(uint32_t),
	       (const char *)&full + sizeof(uint32_t), size - sizeof(uint32_t));
	return WEFT_OK;
}

weft_status weft__sim_native(weft_sim *sim, weft_buf *buf, const char *what,
			     weft_native *out)
{
	const weft_backend *vt = sim->vt;
	weft_error err = { { 0 } };
	weft__in_plugin at;
	weft_status st;

	if (vt->struct_size < WEFT_BACKEND_V1_2_SIZE || !vt->native)
		return weft__fail(
			sim->ctx, WEFT_E_UNSUPPORTED,
			"%s: backend %s does not expose native buffers (%s: "
			"%s)",
			what, vt->name, sim->plugin->path,
			vt->struct_size < WEFT_BACKEND_V1_2_SIZE
				? "built for a backend ABI older than 1.2, "
				  "which added native()"
				: "its native() is NULL");
	out->struct_size = sizeof *out;
	weft__sim_in_backend(sim, &at, "native()", 0);
	st = vt->native(sim->dev, buf, out, &err);
	weft__crash_clear(&at);
	if (st)
		return weft__fail(sim->ctx, st, "%s: %s", what, err.msg);
	return WEFT_OK;
}

size_t weft_sim_summary_count(const weft_sim *sim)
{
	return sim ? sim->n_summary : 0;
}

weft_status weft_sim_summary_at(const weft_sim *sim, size_t i, const char **key,
				const char **value)
{
	if (!sim || i >= sim->n_summary || !key || !value)
		return WEFT_E_INVALID;
	*key = sim->summary[i].key;
	*value = sim->summary[i].value;
	return WEFT_OK;
}

size_t weft_sim_output_count(const weft_sim *sim)
{
	size_t n = 0;
	if (!sim || !sim->outputs.committed)
		return 0;
	for (const weft_output *o = sim->outputs.head; o;
	     o = weft__output_next(o))
		n++;
	return n;
}

const char *weft_sim_output_at(const weft_sim *sim, size_t i)
{
	const weft_output *o =
		sim && sim->outputs.committed ? sim->outputs.head : NULL;
	for (; o && i > 0; i--)
		o = weft__output_next(o);
	return o ? weft__output_path(o) : NULL;
}

/* ---- model buffers and state digests ------------------------------------- */

weft_status weft__sim_buf_add(weft_sim *sim, const char *name, weft_buf *buf,
			      size_t bytes)
{
	weft__sim_buf **grown, *b = calloc(1, sizeof *b);

	if (b)
		b->name = weft__strdup(name ? name : "");
	grown = b && b->name
			? realloc(sim->bufs, (sim->n_bufs + 1) * sizeof *grown)
			: NULL;
	if (!grown) {
		if (b)
			free(b->name);
		free(b);
		return weft__fail(sim->ctx, WEFT_E_NOMEM, "out of memory");
	}
	sim->bufs = grown;
	b->buf = buf;
	b->bytes = bytes;
	grown[sim->n_bufs++] = b;
	return WEFT_OK;
}

weft__sim_buf *weft__sim_buf_find(weft_sim *sim, weft_buf *buf)
{
	for (size_t i = 0; buf && i < sim->n_bufs; i++)
		if (sim->bufs[i]->buf == buf)
			return sim->bufs[i];
	return NULL;
}

/* Keeps the allocation order of the others. Views of the buffer go with
 * it. */
void weft__sim_buf_drop(weft_sim *sim, weft_buf *buf)
{
	weft__sim_buf *b = weft__sim_buf_find(sim, buf);
	size_t i, j = 0;

	if (!b)
		return;
	for (i = 0; i < sim->n_arrays; i++) {
		if (sim->arrays[i].b == b)
			free(sim->arrays[i].name);
		else
			sim->arrays[j++] = sim->arrays[i];
	}
	sim->n_arrays = j;
	for (i = 0; sim->bufs[i] != b; i++)
		;
	memmove(&sim->bufs[i], &sim->bufs[i + 1],
		(sim->n_bufs - i - 1) * sizeof *sim->bufs);
	sim->n_bufs--;
	free(b->name);
	free(b);
}

/* ---- state digests ----------------------------------------------------------
 */

struct weft_digest {
	weft_digest_buf *bufs; /* in allocation order; names and data owned */
	size_t n;
};

void weft_digest_free(weft_digest *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++) {
		free((char *)d->bufs[i].name);
		free((unsigned char *)d->bufs[i].data);
	}
	free(d->bufs);
	free(d);
}

size_t weft_digest_count(const weft_digest *d)
{
	return d ? d->n : 0;
}

const weft_digest_buf *weft_digest_at(const weft_digest *d, size_t i)
{
	return d && i < d->n ? &d->bufs[i] : NULL;
}

/* Download one model buffer into d (blocking) and hash it. */
static weft_status weft__sim_digest_one(weft_sim *sim, const weft__sim_buf *b,
					weft_digest_buf *d)
{
	weft_error err = { { 0 } };
	unsigned char *data = malloc(b->bytes ? b->bytes : 1);
	weft__in_plugin at;
	uint64_t t0;
	weft_status st;

	d->name = weft__strdup(b->name);
	d->data = data;
	if (!d->name || !data)
		return weft__fail(sim->ctx, WEFT_E_NOMEM,
				  "digest of buffer '%s': cannot allocate %zu "
				  "bytes of host memory",
				  b->name, b->bytes);
	d->bytes = b->bytes;
	d->is_f32 = b->is_f32;
	d->abs_tol = b->abs_tol;
	t0 = weft__now_ns();
	weft__sim_in_backend(sim, &at, "read()", 0);
	st = sim->vt->read(sim->dev, data, b->buf, 0, b->bytes, 0, &err);
	weft__crash_clear(&at);
	if (st)
		return weft__fail(sim->ctx, st,
				  "digest of buffer '%s' (%zu bytes): %s",
				  b->name, b->bytes, err.msg);
	if (b->bytes) /* a blocking transfer */
		weft__sim_waited(sim, t0, sim->steps_done);
	d->hash = XXH3_64bits(data, b->bytes);
	return WEFT_OK;
}

weft_status weft_sim_digest(weft_sim *sim, weft_digest **out)
{
	weft_error err = { { 0 } };
	weft__in_plugin at;
	weft_digest *d;
	uint64_t t0;
	weft_status st;

	if (!sim || !out)
		return WEFT_E_INVALID;
	*out = NULL;
	t0 = weft__now_ns();
	weft__sim_in_backend(sim, &at, "sync()", 0);
	st = sim->vt->sync(sim->dev, &err);
	weft__crash_clear(&at);
	if (st)
		return weft__fail(sim->ctx, st, "digest: sync: %s", err.msg);
	weft__sim_waited(sim, t0, sim->steps_done);
	d = calloc(1, sizeof *d);
	if (d)
		d->bufs = calloc(sim->n_bufs + 1, sizeof *d->bufs);
	if (!d || !d->bufs) {
		free(d);
		return weft__fail(sim->ctx, WEFT_E_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < sim->n_bufs; i++) {
		d->n++;
		st = weft__sim_digest_one(sim, sim->bufs[i], &d->bufs[i]);
		if (st) {
			weft_digest_free(d);
			return st;
		}
	}
	*out = d;
	return WEFT_OK;
}
