/*
 * cli/weft.c - the weft command: run, check, backends, models,
 * config-reference, conform. All work is done by libweft through weft/weft.h;
 * this file parses arguments, shows progress and prints results.
 *
 * Exit status: 0 success, 1 the work failed (message on stderr), 2 bad
 * command line, 128 + N when stopped by signal N (SIGINT, SIGTERM, SIGHUP)
 * before its outputs were committed (130 for SIGINT; no output file
 * replaced or half-written).
 *
 * Signals (run and check): SIGINT, SIGTERM and SIGHUP are blocked in every
 * thread and taken by a thread of their own (sigwait), so no plugin that
 * installs handlers can take them away. The first cancels the work
 * (weft_context_cancel: libweft stops at its next check, commits nothing);
 * a second one ends the process at once, by that signal. SIGQUIT is taken
 * the same way and ends the process at once with its default action (a
 * core dump), whatever handler a backend's runtime installed.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <weft/model.h>
#include <weft/weft.h>

#include "weft_conform.h"

#define EXIT_USAGE 2

/* The signal that cancelled the work (0: none), set by the signal
 * thread. */
static atomic_int interrupted;

static const char usage_text[] =
	"usage: weft run CONFIG [--set SECTION.KEY=VALUE]... "
	"[--quiet] [--stats]\n"
	"       weft check CONFIG [--set SECTION.KEY=VALUE]...\n"
	"       weft backends [--plugin-path DIRS]\n"
	"       weft models [--model-path DIRS] [MODEL]\n"
	"       weft config-reference\n"
	"       weft conform [--device=D] [--platform=P] "
	"[--reference=NAME|PATH]\n"
	"                    [--only=G1,G2] [--timeout=S] "
	"[--plugin-path=DIRS]\n"
	"                    [--model-path=DIRS] PLUGIN\n"
	"       weft conform --list\n"
	"       weft --version | --help\n"
	"\n"
	"  run               run the simulation CONFIG describes; write its\n"
	"                    outputs under [output] directory\n"
	"  check             validate CONFIG (and overrides) without running\n"
	"  backends          list every backend plugin found, with its state\n"
	"                    and, for the unusable ones, the reason\n"
	"  models            list every model plugin found (or only MODEL),\n"
	"                    with its state and, for the unusable ones, the\n"
	"                    reason\n"
	"  config-reference  print the reference of every INI key (Markdown)\n"
	"  conform           run the conformance suite against PLUGIN (a path\n"
	"                    to weft-backend-NAME.so, or a backend name; or a\n"
	"                    path to weft-model-NAME.so: the model on every\n"
	"                    backend available) and print TAP; exit 0 when\n"
	"                    all passed or were skipped\n"
	"\n"
	"  --set S.K=V       override key K of section S, "
	"checked like the file\n"
	"  --quiet           no progress line\n"
	"  --stats           print the backend's counters after the run\n"
	"\n"
	"  conform options:\n"
	"  --device=D        device index or name substring, as [backend] "
	"device\n"
	"  --platform=P      platform, as [backend] platform\n"
	"  --reference=B     backend whose model results must be matched\n"
	"                    (default openmp)\n"
	"  --only=G1,G2      run only these groups (see --list)\n"
	"  --timeout=S       seconds a group may take (default 120)\n"
	"  --list            list the groups and what each checks\n"
	"  --plugin-path=D   more directories to search for backends by name\n"
	"  --model-path=D    more directories to search for models\n"
	"  --model=M         check model M (a name or a path) instead\n"
	"\n"
	"See weft(1) and docs/config.md.\n";

static void die_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "weft: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see 'weft --help')\n");
	exit(EXIT_USAGE);
}

/* A failure: its message, and the exit status. Work ended by a signal
 * exits with 128 + its number. */
static int fail(weft_context *ctx)
{
	int sig = atomic_load(&interrupted);

	if (sig && weft_context_cancelled(ctx)) {
		fprintf(stderr, "\nweft: interrupted by %s: %s\n",
			sig == SIGINT	? "SIGINT"
			: sig == SIGHUP ? "SIGHUP"
					: "SIGTERM",
			weft_context_error(ctx));
		return 128 + sig;
	}
	fprintf(stderr, "weft: %s\n", weft_context_error(ctx));
	return EXIT_FAILURE;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- signals ---------------------------------------------------------- */

static sigset_t caught; /* SIGINT, SIGTERM, SIGHUP, SIGQUIT */

/* End the process by sig's default action (termination, or SIGQUIT's
 * core dump), from the signal thread. */
static void die_by(int sig)
{
	sigset_t one;

	signal(sig, SIG_DFL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	raise(sig);
	_exit(128 + sig);
}

static void *signal_thread(void *arg)
{
	weft_context *ctx = arg;
	int sig;

	for (;;) {
		if (sigwait(&caught, &sig) != 0)
			continue;
		if (sig == SIGQUIT || atomic_load(&interrupted))
			die_by(sig); /* SIGQUIT, or a second signal */
		atomic_store(&interrupted, sig);
		weft_context_cancel(ctx);
	}
	return NULL;
}

/* Before any other thread exists (backends', the output writer), so that
 * all inherit the mask. */
static void catch_signals(weft_context *ctx)
{
	pthread_t th;

	sigemptyset(&caught);
	sigaddset(&caught, SIGINT);
	sigaddset(&caught, SIGTERM);
	sigaddset(&caught, SIGHUP);
	sigaddset(&caught, SIGQUIT);
	pthread_sigmask(SIG_BLOCK, &caught, NULL);
	if (pthread_create(&th, NULL, signal_thread, ctx) == 0)
		pthread_detach(th);
	else
		pthread_sigmask(SIG_UNBLOCK, &caught, NULL);
}

/* ---- run and check -------------------------------------------------- */

typedef struct run_opts {
	const char *config;
	const char **sets;
	int n_sets;
	int quiet, stats;
} run_opts;

static void parse_run_opts(int argc, char **argv, run_opts *o, int is_run)
{
	o->sets = calloc((size_t)argc, sizeof *o->sets);
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--set") == 0 && i + 1 < argc)
			o->sets[o->n_sets++] = argv[++i];
		else if (strncmp(argv[i], "--set=", 6) == 0)
			o->sets[o->n_sets++] = argv[i] + 6;
		else if (is_run && strcmp(argv[i], "--quiet") == 0)
			o->quiet = 1;
		else if (is_run && strcmp(argv[i], "--stats") == 0)
			o->stats = 1;
		else if (strcmp(argv[i], "--set") == 0)
			die_usage("%s needs SECTION.KEY=VALUE", argv[i]);
		else if (argv[i][0] == '-' && argv[i][1])
			die_usage("unknown option '%s'", argv[i]);
		else if (!o->config)
			o->config = argv[i];
		else
			die_usage("unexpected argument '%s'", argv[i]);
	}
	if (!o->config)
		die_usage("%s needs a CONFIG file", argv[1]);
}

/* 0, or the command's exit status. */
static int load_config(weft_context *ctx, const run_opts *o, weft_config **cfg)
{
	weft_status st;

	if (weft_config_load(ctx, o->config, cfg))
		return fail(ctx);
	for (int i = 0; i < o->n_sets; i++) {
		st = weft_config_set(ctx, *cfg, o->sets[i]);
		if (st == WEFT_E_INVALID)
			die_usage("%s", weft_context_error(ctx));
		if (st)
			return fail(ctx);
	}
	return weft_config_validate(ctx, *cfg) ? fail(ctx) : 0;
}

static void show_progress(const weft_sim *sim, double t0)
{
	uint64_t done = weft_sim_steps_done(sim);
	uint64_t total = weft_sim_steps_total(sim);
	double el = now_s() - t0;
	double rate = el > 0 ? (double)done / el : 0;
	double eta = rate > 0 ? (double)(total - done) / rate : 0;

	fprintf(stderr, "\r\033[K  step %llu/%llu  %.0f steps/s  ETA %.1f s",
		(unsigned long long)done, (unsigned long long)total, rate, eta);
	fflush(stderr);
}

/* The steps of the next chunk, after one of n steps that took t seconds
 * and one before it of n_prev steps (0: none) that took t_prev: a chunk
 * should take under 50 ms, and the cost of a step can grow fast (early in
 * an epidemic, tenfold in 16 steps), so the next chunk's steps are assumed
 * to cost as much more than the last's as those cost more than the ones
 * before: twice as many when that still fits, and otherwise halved until
 * it fits, down to 1. (Noise in the times of short chunks only makes a
 * chunk smaller than it could be, until the next one is measured.) */
static uint64_t next_chunk(uint64_t n, double t, uint64_t n_prev, double t_prev)
{
	const double most = 0.05;
	double cost = t / (double)n, growth = 1.0;
	uint64_t k = n;

	if (n_prev && t_prev > 0.0 && cost > t_prev / (double)n_prev)
		growth = cost / (t_prev / (double)n_prev);
	if (2.0 * t * growth * growth < most && n < (1u << 30))
		return 2 * n;
	while (k > 1 && (double)k * cost * growth > most)
		k /= 2;
	return k;
}

/* Step in chunks (next_chunk) so that the progress line moves and a
 * signal is seen between chunks, within about 50 ms: with a backend that
 * steps on the host, libweft checks for cancellation between calls. */
static weft_status step_all(weft_sim *sim, int progress, double t0)
{
	uint64_t chunk = 1, last = 0;
	double t_last = 0.0;
	weft_status st = WEFT_OK;

	while (weft_sim_steps_done(sim) < weft_sim_steps_total(sim)) {
		double t = now_s();
		uint64_t n;
		if ((st = weft_sim_step(sim, chunk)))
			return st;
		if (progress)
			show_progress(sim, t0);
		t = now_s() - t;
		n = next_chunk(chunk, t, last, t_last);
		last = chunk;
		t_last = t;
		chunk = n;
	}
	if (progress)
		fprintf(stderr, "\r\033[K");
	return st;
}

/* Wall times of a run's phases, in seconds. */
typedef struct run_times {
	double open;   /* weft_sim_open: population, upload, kernels */
	double steps;  /* the step loop */
	double finish; /* the last outputs, the plot, renames */
} run_times;

static void print_summary(const weft_sim *sim, const run_times *t)
{
	uint64_t steps = weft_sim_steps_done(sim);
	const char *k, *v;

	printf("weft: %s on %s\n", weft_sim_model(sim), weft_sim_backend(sim));
	printf("  %-20s %llu in %.3f s (%.0f steps/s)\n", "steps",
	       (unsigned long long)steps, t->steps,
	       t->steps > 0 ? (double)steps / t->steps : 0.0);
	printf("  %-20s setup %.3f s, steps %.3f s, finish %.3f s\n",
	       "wall time", t->open, t->steps, t->finish);
	for (size_t i = 0; i < weft_sim_summary_count(sim); i++)
		if (weft_sim_summary_at(sim, i, &k, &v) == WEFT_OK)
			printf("  %-20s %s\n", k, v);
	for (size_t i = 0; i < weft_sim_output_count(sim); i++)
		printf("  %-20s %s\n", i ? "" : "outputs",
		       weft_sim_output_at(sim, i));
}

static void print_stats(weft_sim *sim)
{
	static const char *dirs[] = { "host->device", "device->host",
				      "device->device" };
	static const char *phases[] = { "alloc", "transfer", "load", "kernel",
					"sync" };
	weft_stats s = { .struct_size = sizeof s };

	if (weft_sim_stats(sim, &s))
		return;
	printf("backend counters (%s):\n", weft_sim_backend(sim));
	printf("  %-20s %llu (pool reuses %llu, frees %llu, peak %llu bytes)\n",
	       "allocations", (unsigned long long)s.allocs,
	       (unsigned long long)s.pool_reuses, (unsigned long long)s.frees,
	       (unsigned long long)s.bytes_peak);
	for (int d = 0; d < WEFT_DIR_COUNT; d++)
		printf("  %-20s %llu transfers, %llu bytes\n", dirs[d],
		       (unsigned long long)s.xfer_count[d],
		       (unsigned long long)s.xfer_bytes[d]);
	printf("  %-20s %llu launches, %llu steps, %llu syncs, %llu fence "
	       "waits\n",
	       "work", (unsigned long long)s.launches,
	       (unsigned long long)s.steps, (unsigned long long)s.syncs,
	       (unsigned long long)s.fence_waits);
	printf("  %-20s %llu hits, %llu misses\n", "program cache",
	       (unsigned long long)s.cache_hits,
	       (unsigned long long)s.cache_misses);
	printf("  %-20s %llu captured, %llu launched\n", "step graphs",
	       (unsigned long long)s.graph_captures,
	       (unsigned long long)s.graph_launches);
	printf("  %-20s %llu blocks, %llu reuses; %llu transfer waits\n",
	       "pinned staging", (unsigned long long)s.staging_allocs,
	       (unsigned long long)s.staging_reuses,
	       (unsigned long long)s.xfer_waits);
	for (int p = 0; p < WEFT_PHASE_COUNT; p++)
		printf("  %-20s %.3f ms\n", phases[p],
		       (double)s.time_ns[p] / 1e6);
}

static int run_sim(weft_context *ctx, weft_config *cfg, const run_opts *o)
{
	int progress = !o->quiet && isatty(STDERR_FILENO);
	double t0 = now_s(), t1, t2;
	weft_sim *sim = NULL;
	weft_status st = weft_sim_open(ctx, cfg, &sim);
	run_times times;
	int rc;

	t1 = now_s();
	if (st == WEFT_OK)
		st = step_all(sim, progress, t1);
	t2 = now_s();
	/* A signal stops the run at libweft's next check, up to the commit
	 * of the outputs, which then completes. */
	if (st == WEFT_OK)
		st = weft_sim_finish(sim);
	if (st) {
		if (progress)
			fprintf(stderr, "\r\033[K");
		rc = fail(ctx);
		weft_sim_close(sim);
		return rc;
	}
	times = (run_times){ t1 - t0, t2 - t1, now_s() - t2 };
	print_summary(sim, &times);
	if (o->stats)
		print_stats(sim);
	weft_sim_close(sim);
	return EXIT_SUCCESS;
}

static int cmd_run(weft_context *ctx, int argc, char **argv, int is_run)
{
	run_opts o = { 0 };
	weft_config *cfg = NULL;
	int rc;

	parse_run_opts(argc, argv, &o, is_run);
	rc = load_config(ctx, &o, &cfg);
	if (rc == 0 && !is_run)
		printf("%s: ok\n", o.config);
	else if (rc == 0)
		rc = run_sim(ctx, cfg, &o);
	weft_config_free(cfg);
	free(o.sets);
	return rc;
}

/* ---- listings -------------------------------------------------------- */

static int cmd_backends(weft_context *ctx, int argc, char **argv)
{
	const char *path = NULL;
	weft_backend_list *l = NULL;

	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--plugin-path") == 0 && i + 1 < argc)
			path = argv[++i];
		else
			die_usage("unexpected argument '%s'", argv[i]);
	}
	if (weft_backends_scan(ctx, path, &l))
		return fail(ctx);
	for (size_t i = 0; i < weft_backend_list_count(l); i++) {
		const weft_backend_info *b = weft_backend_list_at(l, i);
		printf("%-10s %-12s", b->name,
		       b->shadowed ? "shadowed" : b->state);
		if (b->path[0])
			printf(" %s", b->path);
		if (b->stage && b->stage[0])
			printf("\n           %s: %s", b->stage, b->reason);
		else if (b->reason[0])
			printf("\n           %s", b->reason);
		else if (b->devices[0])
			printf("\n           score %d; %s", b->score,
			       b->devices);
		printf("\n");
	}
	weft_backend_list_free(l);
	return EXIT_SUCCESS;
}

static void print_model(const weft_model_info *m)
{
	printf("%-10s %-10s %s\n", m->name, m->state, m->path);
	if (m->stage[0])
		printf("           %s: %s\n", m->stage, m->reason);
	else if (m->reason[0])
		printf("           %s\n", m->reason);
	else
		printf("           %s (version %s)\n", m->summary, m->version);
}

/* MODEL of `weft models MODEL` was not found: the loader's own message
 * says where it looked and what is there ("did you mean 'seir'?"). */
static int unknown_model(weft_context *ctx, const char *name, const char *path)
{
	weft_model_plugin *mp = NULL;

	if (strchr(name, '/')) {
		fprintf(stderr,
			"weft: models takes a model name, not a path ('%s'); "
			"'weft conform %s' checks a plugin file\n",
			name, name);
		return EXIT_FAILURE;
	}
	if (weft_model_plugin_open(ctx, name, path, &mp) != WEFT_OK)
		return fail(ctx);
	/* Installed since the listing was made. */
	weft_model_plugin_close(mp);
	fprintf(stderr,
		"weft: no model plugin named '%s' (see 'weft models')\n", name);
	return EXIT_FAILURE;
}

static int cmd_models(weft_context *ctx, int argc, char **argv)
{
	const char *path = NULL, *only = NULL;
	weft_model_list *l = NULL;
	int found = 0;

	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--model-path") == 0 && i + 1 < argc)
			path = argv[++i];
		else if (argv[i][0] != '-' && !only)
			only = argv[i];
		else
			die_usage("unexpected argument '%s'", argv[i]);
	}
	if (weft_models_scan(ctx, path, &l))
		return fail(ctx);
	for (size_t i = 0; i < weft_model_list_count(l); i++) {
		const weft_model_info *m = weft_model_list_at(l, i);
		if (only && strcmp(only, m->name) != 0)
			continue;
		print_model(m);
		found = 1;
	}
	weft_model_list_free(l);
	if (only && !found)
		return unknown_model(ctx, only, path);
	return EXIT_SUCCESS;
}

static int cmd_reference(weft_context *ctx)
{
	char *md = NULL;
	if (weft_config_reference(ctx, &md))
		return fail(ctx);
	fputs(md, stdout);
	free(md);
	return EXIT_SUCCESS;
}

/* ---- conform ---------------------------------------------------------- */

/* "--NAME=VALUE" or "--NAME VALUE" at argv[*i]: the value, else NULL. */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);
	const char *a = argv[*i];

	if (strncmp(a, name, n) != 0)
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n] != '\0')
		return NULL;
	if (*i + 1 >= argc)
		die_usage("%s needs a value", name);
	return argv[++*i];
}

static unsigned parse_timeout(const char *text)
{
	char *end;
	unsigned long v = strtoul(text, &end, 10);

	if (!text[0] || *end || text[0] == '-' || v == 0 || v > 86400)
		die_usage("--timeout needs a number of seconds (1 to 86400), "
			  "not '%s'",
			  text);
	return (unsigned)v;
}

/* A file weft-model-*.so: `weft conform` checks the model. Given without
 * a '/', the loader says to give it as a path (a model plugin is never
 * opened from the current directory by its bare file name). */
static int is_model_file(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return strncmp(base, "weft-model-", 11) == 0;
}

static void parse_conform_opts(int argc, char **argv, weft_conform_options *o,
			       int *list)
{
	const char *v;

	for (int i = 2; i < argc; i++) {
		if ((v = opt_value(argc, argv, &i, "--device")))
			o->device = v;
		else if ((v = opt_value(argc, argv, &i, "--platform")))
			o->platform = v;
		else if ((v = opt_value(argc, argv, &i, "--reference")))
			o->reference = v;
		else if ((v = opt_value(argc, argv, &i, "--only")))
			o->only = v;
		else if ((v = opt_value(argc, argv, &i, "--timeout")))
			o->timeout_s = parse_timeout(v);
		else if ((v = opt_value(argc, argv, &i, "--plugin-path")))
			o->plugin_path = v;
		else if ((v = opt_value(argc, argv, &i, "--model-path")))
			o->model_path = v;
		else if ((v = opt_value(argc, argv, &i, "--model")))
			o->model = v;
		else if (strcmp(argv[i], "--list") == 0)
			*list = 1;
		else if (argv[i][0] == '-' && argv[i][1])
			die_usage("unknown option '%s'", argv[i]);
		else if (!o->plugin)
			o->plugin = argv[i];
		else
			die_usage("unexpected argument '%s'", argv[i]);
	}
	if (o->plugin && is_model_file(o->plugin)) {
		if (o->model)
			die_usage("give one model: --model or a "
				  "weft-model-NAME.so, not both ('%s')",
				  o->plugin);
		o->model = o->plugin;
		o->plugin = NULL;
	}
	/* A model's check runs against the reference backend. */
	if (o->model && !o->plugin)
		o->plugin = o->reference ? o->reference : "openmp";
	if (!o->plugin && !*list)
		die_usage("%s needs a PLUGIN: a path to weft-backend-NAME.so "
			  "or weft-model-NAME.so, or a backend name",
			  argv[1]);
}

static int cmd_conform(weft_context *ctx, int argc, char **argv)
{
	weft_conform_options o = { .struct_size = sizeof o, .isolate = 1 };
	const char *name, *summary;
	int list = 0, failed = 0;
	weft_status st;

	parse_conform_opts(argc, argv, &o, &list);
	if (list) {
		for (size_t i = 0; i < weft_conform_group_count(); i++)
			if (weft_conform_group_info(i, &name, &summary) ==
			    WEFT_OK)
				printf("%-14s %s\n", name, summary);
		return EXIT_SUCCESS;
	}
	/* The children that run the groups die with the command (signals
	 * keep their default actions). */
	st = weft_conform_run(ctx, &o, stdout, &failed);
	if (st == WEFT_E_INVALID) {
		fprintf(stderr, "weft: %s (see 'weft --help')\n",
			weft_context_error(ctx));
		return EXIT_USAGE;
	}
	if (st)
		return fail(ctx);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* Everything printed reached standard output (a full disk, a closed
 * pipe, /dev/full are failures, not a silent success). */
static int check_stdout(int rc)
{
	int bad = fflush(stdout) != 0 || ferror(stdout);

	if (!bad)
		return rc;
	fprintf(stderr, "weft: cannot write standard output: %s%s\n",
		strerror(errno),
		rc == EXIT_SUCCESS ? " (the work itself succeeded)" : "");
	return rc == EXIT_SUCCESS ? EXIT_FAILURE : rc;
}

static int dispatch(weft_context *ctx, int argc, char **argv)
{
	const char *cmd = argv[1];

	if (strcmp(cmd, "run") == 0)
		return cmd_run(ctx, argc, argv, 1);
	if (strcmp(cmd, "check") == 0)
		return cmd_run(ctx, argc, argv, 0);
	if (strcmp(cmd, "backends") == 0)
		return cmd_backends(ctx, argc, argv);
	if (strcmp(cmd, "models") == 0)
		return cmd_models(ctx, argc, argv);
	if (strcmp(cmd, "config-reference") == 0)
		return cmd_reference(ctx);
	if (strcmp(cmd, "conform") == 0)
		return cmd_conform(ctx, argc, argv);
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
		unsigned major, minor;
		weft_backend_abi(&major, &minor);
		printf("weft %s (backend ABI %u.%u, model ABI %d.%d)\n",
		       weft_version(), major, minor, WEFT_MODEL_ABI_MAJOR,
		       WEFT_MODEL_ABI_MINOR);
		return EXIT_SUCCESS;
	}
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0 ||
	    strcmp(cmd, "-h") == 0) {
		fputs(usage_text, stdout);
		return EXIT_SUCCESS;
	}
	die_usage("unknown command '%s'", cmd);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	weft_context *ctx = NULL;
	int rc;

	if (argc < 2) {
		fputs(usage_text, stderr);
		return EXIT_USAGE;
	}
	if (weft_context_new(&ctx) != WEFT_OK) {
		fprintf(stderr, "weft: out of memory\n");
		return EXIT_FAILURE;
	}
	/* The commands that take long; the others end by a signal's
	 * default action (conform's children die with it). */
	if (strcmp(argv[1], "run") == 0 || strcmp(argv[1], "check") == 0)
		catch_signals(ctx);
	rc = dispatch(ctx, argc, argv);
	rc = check_stdout(rc);
	weft_context_free(ctx);
	return rc;
}
