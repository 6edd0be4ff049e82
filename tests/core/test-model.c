/*
 * tests/core/test-model.c - the SEIR model run for real through the loader and
 * the OpenMP backend, as any model is: determinism across thread counts
 * and repeated runs, seeds that matter, beta 0, conservation, output
 * stride, counters, and parameter errors. (What is particular to SEIR's
 * epidemiology is in tests/models/test-seir.c.) Then the output pipeline
 * (core/run/pipeline.c): the daily CSV is byte for byte what output() alone
 * gives (a test-only model that runs SEIR's collect() and emit()
 * synchronously from output()), on OpenMP and OpenCL, for several
 * [output] every, with fences and without; a slow writer; a failing
 * emit() and one that calls what it may not. Last, the core's access to a
 * backend's native() (ABI 1.2), and its refusal when there is none.
 */
#include "internal.h"

#include <dirent.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run/sim.h"
#include "tap.h"

/* How a run is made: another model than the registry's SEIR (same name
 * and keys), a backend without fences as far as the core knows. */
typedef struct run_how {
	const weft_model *model;
	int no_fences;
} run_how;

/* Run seir with the given overrides (NULL-terminated); on success return
 * the daily CSV text, on failure NULL with the error in *msg. */
static char *run_how_seir(const char *name, const run_how *how,
			  const char *const *sets, weft_stats *stats, char *msg,
			  size_t msg_size)
{
	char dir[512], set[600], path[600];
	weft_context *ctx = NULL;
	weft_config *cfg = NULL;
	weft_sim *sim = NULL;
	char *csv = NULL;

	snprintf(dir, sizeof dir, "%s/%s", tap_tmpdir(), name);
	snprintf(set, sizeof set, "output.directory=%s", dir);
	if (weft_context_new(&ctx) || weft_config_new(ctx, &cfg) ||
	    weft_config_set(ctx, cfg, set) ||
	    weft_config_set(ctx, cfg, "simulation.steps=60") ||
	    weft_config_set(ctx, cfg, "seir.population=random") ||
	    weft_config_set(ctx, cfg, "seir.agents=5000"))
		goto done;
	for (; sets && *sets; sets++)
		if (weft_config_set(ctx, cfg, *sets))
			goto done;
	if (weft__sim_open_model(ctx, cfg, how ? how->model : NULL, &sim))
		goto done;
	if (how && how->no_fences)
		sim->pipe.fences = 0;
	if (weft_sim_step(sim, 1000) || weft_sim_finish(sim))
		goto done;
	if (stats && weft_sim_stats(sim, stats))
		goto done;
	snprintf(path, sizeof path, "%s/daily.csv", dir);
	csv = tap_read_file(path, NULL);
done:
	snprintf(msg, msg_size, "%s", weft_context_error(ctx));
	weft_sim_close(sim);
	weft_config_free(cfg);
	weft_context_free(ctx);
	return csv;
}

static char *run_seir(const char *name, const char *const *sets,
		      weft_stats *stats, char *msg, size_t msg_size)
{
	return run_how_seir(name, NULL, sets, stats, msg, msg_size);
}

/* Column col (0 = day) of every data row, summed. */
static long long column_sum(const char *csv, int col, int *rows)
{
	long long sum = 0;
	const char *line = strchr(csv, '\n');
	*rows = 0;
	while (line && line[1]) {
		const char *p = line + 1;
		for (int c = 0; c < col; c++)
			p = strchr(p, ',') + 1;
		sum += atoll(p);
		(*rows)++;
		line = strchr(line + 1, '\n');
	}
	return sum;
}

/* S+E+I_asym+I_sym+R+D equals the population on every row, and the
 * cumulative count is the previous one plus the day's new infections. */
static int conserved(const char *csv, long long n)
{
	const char *line = strchr(csv, '\n');
	long long cum_before = -1;
	while (line && line[1]) {
		long long d, s, e, ia, is, r, dead, x, xd, cum, vac;
		if (sscanf(line + 1,
			   "%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,"
			   "%lld",
			   &d, &s, &e, &ia, &is, &r, &dead, &x, &xd, &cum,
			   &vac) != 11 ||
		    s + e + ia + is + r + dead != n ||
		    (cum_before >= 0 && cum != cum_before + x))
			return 0;
		cum_before = cum;
		line = strchr(line + 1, '\n');
	}
	return 1;
}

static void test_determinism(void)
{
	static const char *t1[] = { "backend.threads=1", NULL };
	static const char *t2[] = { "backend.threads=2", NULL };
	static const char *seed2[] = { "simulation.seed=2", NULL };
	char msg[WEFT__MSG_MAX];
	char *a = run_seir("t1", t1, NULL, msg, sizeof msg);
	char *b = run_seir("t2", t2, NULL, msg, sizeof msg);
	char *c = run_seir("t2again", t2, NULL, msg, sizeof msg);
	char *d = run_seir("seed2", seed2, NULL, msg, sizeof msg);
	int rows;

	if (!tap_ok(a && b && c && d, "four runs succeed"))
		tap_diag("%s", msg);
	tap_ok(a && b && strcmp(a, b) == 0,
	       "1 and 2 threads give byte-identical daily CSV");
	tap_ok(b && c && strcmp(b, c) == 0, "a repeated run is identical");
	tap_ok(a && d && strcmp(a, d) != 0, "a different seed differs");
	tap_ok(a && column_sum(a, 7, &rows) > 100,
	       "the epidemic spreads (more than 100 new infections)");
	TAP_EQ_INT(a ? (column_sum(a, 0, &rows), rows) : 0, 61,
		   "one row per day plus day 0");
	tap_ok(a && conserved(a, 5000),
	       "S+E+I_asym+I_sym+R+D = agents and cumulative counts add up "
	       "on every row");
	free(a);
	free(b);
	free(c);
	free(d);
}

static void test_beta_zero(void)
{
	static const char *sets[] = { "seir.beta=0",
				      "seir.initial_infected=50",
				      "seir.latent_duration=fixed(3)",
				      "seir.asym_duration=fixed(5)",
				      "seir.sym_duration=fixed(5)",
				      "seir.deaths=false",
				      NULL };
	char msg[WEFT__MSG_MAX];
	char *csv = run_seir("beta0", sets, NULL, msg, sizeof msg);
	int rows;

	tap_ok(csv != NULL, "beta 0 runs");
	TAP_EQ_INT(csv ? column_sum(csv, 7, &rows) : -1, 0,
		   "beta 0 gives no new infections");
	tap_ok(csv && strstr(csv, "\n60,4950,0,0,0,50,0,0,0,50,0,0,0,0,0,0,0,0,"
				  "0,0,0,0,"),
	       "beta 0: the 50 seeds recover and nobody else is touched");
	free(csv);
}

static void test_every_and_counters(void)
{
	static const char *sets[] = { "output.every=7", NULL };
	char msg[WEFT__MSG_MAX];
	weft_stats s = { .struct_size = sizeof s };
	char *csv = run_seir("every7", sets, &s, msg, sizeof msg);
	int rows;

	tap_ok(csv != NULL, "output.every = 7 runs");
	/* Days 0, 7, ..., 56 and the last day, 60. */
	TAP_EQ_INT(csv ? (column_sum(csv, 0, &rows), rows) : 0, 10,
		   "rows every 7 days plus the last day");
	tap_ok(csv && strstr(csv, "\n56,") && strstr(csv, "\n60,") &&
		       !strstr(csv, "\n55,"),
	       "rows are days 56 and 60, not 55");
	TAP_EQ_INT(s.steps, 60, "the backend counted 60 steps");
	TAP_EQ_INT(s.launches, 420,
		   "seven launches per step (the frontier: credit, progress, "
		   "transmit, three for the list, tally)");
	/* One snapshot (copy, async read) and one fence wait per output
	 * chunk; one sync at the end; none inside step(n). */
	TAP_EQ_INT(s.fence_waits, 9,
		   "one fence wait per output chunk, none inside steps");
	TAP_EQ_INT(s.syncs, 1, "one sync, at the end of the run");
	TAP_EQ_INT(s.xfer_count[WEFT_DIR_D2D], 9,
		   "one snapshot copy per chunk");
	/* And with the last chunk, the reproduction numbers' counts, the
	 * states and the timers (models/seir/repro.c). */
	TAP_EQ_INT(s.xfer_count[WEFT_DIR_D2H], 9 + 3,
		   "one snapshot read per chunk, three more with the last");
	tap_ok(s.xfer_count[WEFT_DIR_H2D] >= 5, "state was uploaded");
	free(csv);
}

static void test_param_errors(void)
{
	static const char *too_many[] = { "seir.agents=100",
					  "seir.initial_infected=101", NULL };
	char msg[WEFT__MSG_MAX];
	char *csv = run_seir("bad", too_many, NULL, msg, sizeof msg);

	tap_ok(csv == NULL, "initial_infected > agents is refused");
	tap_contains(msg, "initial_infected = 101 exceeds agents = 100",
		     "the message names both keys and values");
}

/* ---- the output pipeline ------------------------------------------------- */

static const weft_model *seir;
static weft_model_plugin *seir_plugin; /* loaded once, for the tests' models */

/* SEIR with a sync (a 4-byte download) after every collect(): every chunk
 * complete before the next steps are enqueued, the way outputs were read
 * before the pipeline overlapped them. */
typedef struct legacy_state {
	void *inner;
	weft_buf *word;
} legacy_state;

static weft_status legacy_setup(weft_model_ctx *mc, void **out)
{
	legacy_state *l = calloc(1, sizeof *l);
	weft_status st;

	if (!l)
		return weft_model_fail(mc, WEFT_E_NOMEM, "out of memory");
	*out = l;
	if ((st = seir->setup(mc, &l->inner)))
		return st;
	return weft_model_alloc(mc, "legacy word", 4, &l->word);
}

static weft_status legacy_collect(weft_model_ctx *mc, void *state,
				  uint64_t steps_done, unsigned slot)
{
	legacy_state *l = state;
	uint32_t w;
	weft_status st = seir->collect(mc, l->inner, steps_done, slot);

	if (st == WEFT_OK)
		st = weft_model_download(mc, &w, l->word, 0, sizeof w);
	return st;
}

static weft_status legacy_emit(weft_model_ctx *mc, void *state,
			       uint64_t steps_done, unsigned slot)
{
	return seir->emit(mc, ((legacy_state *)state)->inner, steps_done, slot);
}

static weft_status legacy_finish(weft_model_ctx *mc, void *state)
{
	return seir->finish(mc, ((legacy_state *)state)->inner);
}

static void legacy_teardown(weft_model_ctx *mc, void *state)
{
	legacy_state *l = state;

	weft_model_free(mc, l->word);
	if (l->inner)
		seir->teardown(mc, l->inner);
	free(l);
}

/* emit() variants: slow, failing from day 28 on, or calling
 * weft_model_summary, which emit() may not. */
static weft_status slow_emit(weft_model_ctx *mc, void *state,
			     uint64_t steps_done, unsigned slot)
{
	struct timespec ts = { 0, 3000000 };

	nanosleep(&ts, NULL);
	return seir->emit(mc, state, steps_done, slot);
}

static weft_status failing_emit(weft_model_ctx *mc, void *state,
				uint64_t steps_done, unsigned slot)
{
	if (steps_done >= 28)
		return weft_model_fail(mc, WEFT_E_IO,
				       "injected failure writing day %llu",
				       (unsigned long long)steps_done);
	return seir->emit(mc, state, steps_done, slot);
}

static weft_status summary_emit(weft_model_ctx *mc, void *state,
				uint64_t steps_done, unsigned slot)
{
	weft_status st = weft_model_summary(mc, "day", "%llu",
					    (unsigned long long)steps_done);

	return st ? st : seir->emit(mc, state, steps_done, slot);
}

/* emit() that counts where it runs: on the run's (main) thread, or on
 * the output writer's; the slow one sleeps as slow_emit does. */
static pthread_t main_thread;
static int emits_main, emits_writer;

static void count_emit(void)
{
	if (pthread_equal(pthread_self(), main_thread))
		emits_main++;
	else
		emits_writer++;
}

static weft_status counted_emit(weft_model_ctx *mc, void *state,
				uint64_t steps_done, unsigned slot)
{
	count_emit();
	return seir->emit(mc, state, steps_done, slot);
}

static weft_status counted_slow_emit(weft_model_ctx *mc, void *state,
				     uint64_t steps_done, unsigned slot)
{
	count_emit();
	return slow_emit(mc, state, steps_done, slot);
}

static weft_model legacy_model, slow_model, failing_model, summary_model;
static weft_model counted_model, counted_slow_model;

static void make_models(void)
{
	static weft_context *ctx;

	if (weft_context_new(&ctx) ||
	    weft_model_plugin_open(ctx, "seir", NULL, &seir_plugin))
		tap_bail("cannot load the seir model plugin: %s",
			 weft_context_error(ctx));
	seir = weft_model_plugin_table(seir_plugin);
	if (!seir->collect || !seir->emit)
		tap_bail("seir has no collect() and emit()");
	legacy_model = *seir;
	legacy_model.setup = legacy_setup;
	legacy_model.finish = legacy_finish;
	legacy_model.teardown = legacy_teardown;
	legacy_model.collect = legacy_collect;
	legacy_model.emit = legacy_emit;
	slow_model = failing_model = summary_model = *seir;
	slow_model.emit = slow_emit;
	failing_model.emit = failing_emit;
	summary_model.emit = summary_emit;
	counted_model = counted_slow_model = *seir;
	counted_model.emit = counted_emit;
	counted_slow_model.emit = counted_slow_emit;
}

/* The backend `name` is built here and available. */
static int backend_available(const char *name, const char *dir)
{
	weft_context *ctx = NULL;
	weft_backend_list *l = NULL;
	int ok = 0;

	if (weft_context_new(&ctx) == WEFT_OK &&
	    weft_backends_scan(ctx, dir, &l) == WEFT_OK)
		for (size_t i = 0; i < weft_backend_list_count(l); i++) {
			const weft_backend_info *b = weft_backend_list_at(l, i);
			ok |= strcmp(b->name, name) == 0 &&
			      strcmp(b->state, "available") == 0;
		}
	weft_backend_list_free(l);
	weft_context_free(ctx);
	return ok;
}

/* The pipeline's CSV equals output()'s, for one backend and stride; the
 * pipelined CSV (kept for comparing backends) goes to *out. */
static void same_as_output(const char *backend, const char *plugin_path,
			   int every, char **out)
{
	char name[64], set_every[64], set_name[64], set_path[4200];
	char msg[WEFT__MSG_MAX];
	const char *sets[] = { set_every, set_name, set_path, NULL };
	run_how legacy = { .model = &legacy_model };
	weft_stats s = { .struct_size = sizeof s };
	char *a, *b;

	snprintf(set_every, sizeof set_every, "output.every=%d", every);
	snprintf(set_name, sizeof set_name, "backend.name=%s", backend);
	snprintf(set_path, sizeof set_path, "backend.plugin_path=%s",
		 plugin_path);
	snprintf(name, sizeof name, "pipe-%s-%d", backend, every);
	a = run_how_seir(name, NULL, sets, &s, msg, sizeof msg);
	if (!a)
		tap_diag("%s", msg);
	snprintf(name, sizeof name, "output-%s-%d", backend, every);
	b = run_how_seir(name, &legacy, sets, NULL, msg, sizeof msg);
	if (!b)
		tap_diag("%s", msg);
	tap_ok(a && b && strcmp(a, b) == 0 && strchr(a, '\n') != NULL,
	       "%s, every %d: the pipelined daily.csv is output()'s, byte "
	       "for byte",
	       backend, every);
	tap_ok(s.fence_waits >= 1 && s.syncs == 1,
	       "  ...with %llu fence waits and %llu sync",
	       (unsigned long long)s.fence_waits, (unsigned long long)s.syncs);
	free(b);
	*out = a;
}

static void test_pipeline_same_rows(void)
{
	static const int every[] = { 1, 7, 120 };
	const char *b = getenv("WEFT_BUILDDIR");
	char omp[4096], ocl[4096];
	int have_ocl;

	snprintf(omp, sizeof omp, "%s/plugins/openmp/.libs", b ? b : ".");
	snprintf(ocl, sizeof ocl, "%s/plugins/opencl/.libs", b ? b : ".");
	have_ocl = backend_available("opencl", ocl);
	for (size_t i = 0; i < sizeof every / sizeof every[0]; i++) {
		char *x = NULL, *y = NULL;

		same_as_output("openmp", omp, every[i], &x);
		if (have_ocl) {
			same_as_output("opencl", ocl, every[i], &y);
			tap_ok(x && y && strcmp(x, y) == 0,
			       "every %d: OpenCL's daily.csv is OpenMP's",
			       every[i]);
		} else {
			tap_skip(3, "the OpenCL backend is not available");
		}
		free(x);
		free(y);
	}
}

/* Without fences (a 1.0 backend), a sync() per chunk; the same rows. */
static void test_pipeline_no_fences(void)
{
	static const char *sets[] = { "output.every=7", NULL };
	run_how no_fences = { .no_fences = 1 };
	weft_stats s = { .struct_size = sizeof s };
	char msg[WEFT__MSG_MAX];
	char *a = run_how_seir("fenced", NULL, sets, NULL, msg, sizeof msg);
	char *b =
		run_how_seir("nofence", &no_fences, sets, &s, msg, sizeof msg);

	tap_ok(a && b && strcmp(a, b) == 0,
	       "without fences: the same daily.csv");
	tap_ok(s.syncs == 10 && s.fence_waits == 0,
	       "  ...with a sync per chunk and one at the end (%llu syncs, "
	       "%llu fence waits)",
	       (unsigned long long)s.syncs, (unsigned long long)s.fence_waits);
	free(a);
	free(b);
}

/* A writer slower than the steps: the loop waits for slots, the rows are
 * the same. */
static void test_pipeline_slow_writer(void)
{
	static const char *sets[] = { "output.every=1", NULL };
	run_how slow = { .model = &slow_model };
	char msg[WEFT__MSG_MAX];
	char *a = run_how_seir("fast", NULL, sets, NULL, msg, sizeof msg);
	char *b = run_how_seir("slow", &slow, sets, NULL, msg, sizeof msg);

	tap_ok(a && b && strcmp(a, b) == 0,
	       "a slow emit(): the same daily.csv");
	free(a);
	free(b);
}

/* Where emit() runs: a cheap one on the run's thread while the writer has
 * nothing queued (no thread hand-over per chunk), an expensive one (3 ms)
 * on the writer's after the first, whose cost the run did not know yet;
 * the rows are the same either way. */
static void test_pipeline_emit_thread(void)
{
	static const char *sets[] = { "output.every=1", NULL };
	run_how counted = { .model = &counted_model };
	run_how counted_slow = { .model = &counted_slow_model };
	char msg[WEFT__MSG_MAX];
	char *a = run_how_seir("plain", NULL, sets, NULL, msg, sizeof msg);
	char *b, *c;
	int main_fast, writer_fast;

	main_thread = pthread_self();
	emits_main = emits_writer = 0;
	b = run_how_seir("counted", &counted, sets, NULL, msg, sizeof msg);
	main_fast = emits_main;
	writer_fast = emits_writer;
	emits_main = emits_writer = 0;
	c = run_how_seir("counted_slow", &counted_slow, sets, NULL, msg,
			 sizeof msg);
	tap_ok(a && b && c && strcmp(a, b) == 0 && strcmp(a, c) == 0,
	       "emit() on either thread: the same daily.csv");
	tap_ok(main_fast > 0,
	       "a cheap emit() runs on the run's thread (%d of %d chunks)",
	       main_fast, main_fast + writer_fast);
	tap_ok(emits_main <= 1 && emits_writer > 1,
	       "a 3 ms emit() runs on the writer after the first (%d on the "
	       "run's thread, %d on the writer's)",
	       emits_main, emits_writer);
	free(a);
	free(b);
	free(c);
}

/* Whether the run's directory is empty (or missing); a file found there
 * goes to seen, for the message. */
static int dir_is_empty(const char *name, char *seen, size_t seen_size)
{
	char dir[600];
	DIR *d;
	struct dirent *e;
	int n = 0;

	snprintf(dir, sizeof dir, "%s/%s", tap_tmpdir(), name);
	seen[0] = '\0';
	if (!(d = opendir(dir)))
		return 1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(seen, seen_size, "%s", e->d_name);
			n++;
		}
	closedir(d);
	return n == 0;
}

static void test_pipeline_failures(void)
{
	static const char *sets[] = { "output.every=7", NULL };
	run_how failing = { .model = &failing_model };
	run_how summary = { .model = &summary_model };
	char msg[WEFT__MSG_MAX], seen[256];
	char *csv =
		run_how_seir("emitfail", &failing, sets, NULL, msg, sizeof msg);
	int empty = dir_is_empty("emitfail", seen, sizeof seen);

	tap_ok(csv == NULL, "a failing emit() fails the run");
	tap_contains(msg, "model seir: injected failure writing day 28",
		     "  ...with its message");
	tap_ok(empty, "  ...and nothing is committed or left behind (%s)",
	       seen[0] ? seen : "the directory is empty");
	free(csv);
	csv = run_how_seir("emitsummary", &summary, sets, NULL, msg,
			   sizeof msg);
	tap_ok(csv == NULL, "an emit() that adds a summary line fails the run");
	tap_contains(msg, "weft_model_summary called from emit()",
		     "  ...saying what emit() may not call");
	free(csv);
}

/* The core's access to native(): the backend's answer for a model buffer,
 * and a clear refusal when the backend has none (a 1.1 vtable, or NULL). */
static void test_native(void)
{
	char dir[512], set[600];
	weft_context *ctx = NULL;
	weft_config *cfg = NULL;
	weft_sim *sim = NULL;
	weft_native n = { .struct_size = 0 };
	weft_backend old;
	const weft_backend *vt;
	int ok;

	snprintf(dir, sizeof dir, "%s/native", tap_tmpdir());
	snprintf(set, sizeof set, "output.directory=%s", dir);
	ok = weft_context_new(&ctx) == 0 && weft_config_new(ctx, &cfg) == 0 &&
	     weft_config_set(ctx, cfg, set) == 0 &&
	     weft_config_set(ctx, cfg, "seir.population=random") == 0 &&
	     weft_config_set(ctx, cfg, "seir.agents=500") == 0 &&
	     weft_sim_open(ctx, cfg, &sim) == 0 && sim->n_bufs > 0;
	ok = ok && weft__sim_native(sim, sim->bufs[0]->buf, "test", &n) == 0;
	tap_ok(ok && n.kind == WEFT_NATIVE_HOST && n.handle &&
		       n.bytes == sim->bufs[0]->bytes,
	       "native() of openmp: host memory of the buffer's %zu bytes (%s)",
	       n.bytes, weft_context_error(ctx));
	if (ok) {
		vt = sim->vt;
		old = *vt;
		old.struct_size = (uint32_t)WEFT_BACKEND_V1_1_SIZE;
		sim->vt = &old;
		tap_ok(weft__sim_native(sim, sim->bufs[0]->buf, "test", &n) ==
			       WEFT_E_UNSUPPORTED,
		       "a 1.1 vtable: WEFT_E_UNSUPPORTED");
		tap_contains(weft_context_error(ctx),
			     "test: backend openmp does not expose native "
			     "buffers",
			     "  ...naming the backend");
		tap_contains(weft_context_error(ctx), "older than 1.2",
			     "  ...and why");
		old.struct_size = (uint32_t)sizeof old;
		old.native = NULL;
		tap_ok(weft__sim_native(sim, sim->bufs[0]->buf, "test", &n) ==
				       WEFT_E_UNSUPPORTED &&
			       strstr(weft_context_error(ctx),
				      "native() is NULL"),
		       "a NULL native(): WEFT_E_UNSUPPORTED, saying so");
		sim->vt = vt;
	} else {
		tap_skip(4, "the run did not open");
	}
	weft_sim_close(sim);
	weft_config_free(cfg);
	weft_context_free(ctx);
}

int main(void)
{
	test_determinism();
	test_beta_zero();
	test_every_and_counters();
	test_param_errors();
	make_models();
	test_pipeline_same_rows();
	test_pipeline_no_fences();
	test_pipeline_slow_writer();
	test_pipeline_emit_thread();
	test_pipeline_failures();
	test_native();
	return tap_done();
}
