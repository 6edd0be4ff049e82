/*
 * cli/weft.c - the weft command: run, check, calibrate (weft-calibrate.c),
 * backends, models, envs, config-reference, conform. All work is done by
 * libweft through weft/weft.h (and weft/harness.h, to say why a model named on
 * the command line cannot be loaded); this file parses arguments, shows
 * progress and prints results.
 *
 * Exit status: 0 success, 1 the work failed (message on stderr), 2 bad
 * command line, 128 + N when stopped by signal N (SIGINT, SIGTERM, SIGHUP)
 * before its outputs were committed (130 for SIGINT; no output file
 * replaced or half-written). A run with checkpoints on ([checkpoint]
 * every) that a signal stops between steps first writes a checkpoint at
 * the step reached; `weft run CONFIG --resume DIR` continues it.
 *
 * Signals (run and check): SIGINT, SIGTERM and SIGHUP are blocked in every
 * thread and taken by a thread of their own (sigwait), so no plugin that
 * installs handlers can take them away. The first cancels the work
 * (weft_context_cancel: libweft stops at its next check, commits nothing);
 * a second one ends the process at once, by that signal. SIGQUIT is taken
 * the same way and ends the process at once with its default action (a
 * core dump), whatever handler a backend's runtime installed. When the
 * first comes while a plugin's call of the setup phase (a model's setup(),
 * a backend's load_program()) is under way and that call has not returned
 * STOP_WAIT_S later, nothing can stop it and nothing is lost by ending the
 * process: it ends by the signal then, saying so.
 *
 * Crashes (every command): a fatal signal (SIGSEGV, SIGBUS, SIGFPE,
 * SIGILL, SIGABRT) prints one line naming the signal and, when it came
 * inside a plugin's code, the plugin file and the hook
 * ("weft: crashed with SIGSEGV in model plugin PATH, setup()"), then
 * ends the process by that signal (128 + its number). libweft records
 * which plugin call is under way (core/util/crash.h, the one internal
 * header this file includes: weft__crash_where(), weft__crash_setup_call()).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <weft/backend.h>
#include <weft/harness.h>
#include <weft/weft.h>

#include "../core/util/crash.h"
#include "ensemble-print.h"
#include "weft-calibrate.h"
#include "weft_conform.h"

#define EXIT_USAGE 2

/* The signal that cancelled the work (0: none), set by the signal
 * thread. */
static atomic_int interrupted;

/* Each command's help: its synopsis, what it does and its options, as
 * docs/weft.1 describes them (tests/cli/test-cli.sh checks that every option
 * of the man page's synopsis is in the command's help). `weft --help`
 * prints every synopsis; `weft COMMAND --help` (or `weft help COMMAND`)
 * one command's whole help. */
typedef struct help_entry {
	const char *name;
	const char *synopsis; /* after "weft " */
	const char *text;     /* what it does, then its options */
} help_entry;

static const help_entry helps[] = {
	{ "run",
	  "run CONFIG [--set SECTION.KEY=VALUE]... [--resume DIR] [--quiet]\n"
	  "                [--progress] [--stats]",
	  "Run the simulation CONFIG describes: check it and the overrides,\n"
	  "load the backend, set the model up, run every step and write the\n"
	  "outputs under [output] directory, renamed into place only when the\n"
	  "whole run has succeeded. Prints the model, the backend, the steps\n"
	  "and their rate, the wall time of setup, steps and finish, the\n"
	  "model's summary and the output files.\n"
	  "\n"
	  "  --set S.K=V   override key K of section S, checked like the file\n"
	  "                (also --set=S.K=V; repeatable, the last one wins)\n"
	  "  --resume DIR  continue the run from the checkpoint in DIR\n"
	  "                ([checkpoint] every writes them)\n"
	  "  --quiet       no progress on standard error\n"
	  "  --progress    progress lines on standard error even when it is\n"
	  "                not a terminal (setup phases, then steps)\n"
	  "  --stats       print the backend's counters after the run\n"
	  "\n"
	  "Progress: on a terminal, one line on standard error that is\n"
	  "rewritten, during setup (what it is doing: building the\n"
	  "population, uploading, compiling) and then over the steps. When\n"
	  "standard error is not a terminal, nothing unless the setup takes\n"
	  "over 5 s: then a line per setup phase from then on.\n" },
	{ "check", "check CONFIG [--set SECTION.KEY=VALUE]... [--resume DIR]",
	  "Validate CONFIG and the overrides without running anything: every\n"
	  "key's type and range, the checks across keys, and the model's own\n"
	  "checks of its parameters; print 'CONFIG: ok' and the memory the\n"
	  "run needs beside what the host has.\n"
	  "\n"
	  "  --set S.K=V   override key K of section S, checked like the "
	  "file\n"
	  "  --resume DIR  also check that DIR holds a checkpoint of this\n"
	  "                configuration that run --resume would take\n"
	  "\n"
	  "A [calibration] section is checked as 'weft calibrate' checks "
	  "it.\n" },
	{ "calibrate",
	  "calibrate CONFIG [--set SECTION.KEY=VALUE]... [--trials N]\n"
	  "                [--storage URL]",
	  "Fit the parameters of CONFIG's [calibration] section to its data\n"
	  "(docs/calibration.md): check the configuration and the section,\n"
	  "then run the calibration with the weft Python package and Optuna\n"
	  "in a Python interpreter ($WEFT_PYTHON, else python3 on PATH). It\n"
	  "prints a line per trial and the best parameters, and writes\n"
	  "best.ini (the best values as an INI file), trials.csv (one row a\n"
	  "trial), fit.png and params.png (with matplotlib) and\n"
	  "calibration.txt into [output] directory, locked as a run locks\n"
	  "it; whatever else the directory holds stays.\n"
	  "\n"
	  "  --set S.K=V    override key K of section S, checked like the\n"
	  "                 file, for every trial (calibration.K: the\n"
	  "                 section's own keys and lines)\n"
	  "  --trials N     run N trials ([calibration] trials)\n"
	  "  --storage URL  keep the study in URL, e.g. sqlite:///calib.db,\n"
	  "                 to resume it later ([calibration] storage)\n" },
	{ "backends", "backends [--verbose] [--plugin-path DIRS]",
	  "List every backend plugin found, in search order, with its state\n"
	  "(available, unavailable, failed, shadowed, missing) and, for the\n"
	  "unusable ones, the load stage and the reason.\n"
	  "\n"
	  "  --verbose           also open each available backend's default\n"
	  "                      device and list what it computes exactly:\n"
	  "                      f64, f32-exact, subnormal, atomic64, and why\n"
	  "                      any is missing\n"
	  "  --plugin-path DIRS  colon-separated directories searched "
	  "first\n" },
	{ "models", "models [--model-path DIRS] [MODEL]",
	  "List every model plugin found (or only MODEL) with its path and\n"
	  "state, its summary and version or, for the unusable ones, the load\n"
	  "stage and the reason.\n"
	  "\n"
	  "  --model-path DIRS   colon-separated directories searched "
	  "first\n" },
	{ "envs", "envs [--model-path DIRS]",
	  "List every environment id the available models serve (weft/env.h,\n"
	  "docs/environments.md), sorted by id: the model that serves it,\n"
	  "Gymnasium's max_episode_steps for it (- for none) and its summary.\n"
	  "The first model on the search path wins an id, as it wins a name.\n"
	  "\n"
	  "  --model-path DIRS   colon-separated directories searched "
	  "first\n" },
	{ "config-reference", "config-reference",
	  "Print the reference of every configuration key, with its type,\n"
	  "default, accepted values and meaning, as Markdown "
	  "(docs/config.md).\n" },
	{ "conform",
	  "conform [--device=D] [--platform=P] [--reference=NAME|PATH]\n"
	  "                    [--only=G1,G2] [--timeout=S] [--repeat=K]\n"
	  "                    [--plugin-path=DIRS] [--model-path=DIRS] "
	  "[--model=M]\n"
	  "                    PLUGIN\n"
	  "       weft conform --list",
	  "Run the conformance suite against PLUGIN (a path to\n"
	  "weft-backend-NAME.so, or a backend name) and print TAP; exit 0 "
	  "when\n"
	  "every test passed or was skipped. A path to weft-model-NAME.so (or\n"
	  "--model=M) checks that model instead, on every backend available.\n"
	  "\n"
	  "  --device=D        device index or name substring, as [backend] "
	  "device\n"
	  "  --platform=P      platform, as [backend] platform\n"
	  "  --reference=B     backend whose model results must be matched\n"
	  "                    (default openmp)\n"
	  "  --only=G1,G2      run only these groups (see --list)\n"
	  "  --timeout=S       seconds a group may take (default 120); a "
	  "group\n"
	  "                    that dies or hangs is one failed test, and "
	  "the\n"
	  "                    other groups still run\n"
	  "  --repeat=K        run the groups whose outcome can depend on "
	  "timing\n"
	  "                    (lifetime, ordering, fence) K times (1 to "
	  "1000), each\n"
	  "                    run in a child of its own\n"
	  "  --plugin-path=D   more directories to search for backends by "
	  "name\n"
	  "  --model-path=D    more directories to search for models\n"
	  "  --model=M         check model M (a name or a path) instead\n"
	  "  --list            list the groups and what each checks\n" },
};

#define N_HELPS (sizeof helps / sizeof helps[0])

/* `weft --help`: every command's synopsis and one line each. */
static void print_usage(FILE *out)
{
	fputs("usage: ", out);
	for (size_t i = 0; i < N_HELPS; i++)
		fprintf(out, "%sweft %s\n", i ? "       " : "",
			helps[i].synopsis);
	fputs("       weft help COMMAND | COMMAND --help\n"
	      "       weft --version | --help\n"
	      "\n"
	      "  run               run the simulation CONFIG describes; write "
	      "its\n"
	      "                    outputs under [output] directory\n"
	      "  check             validate CONFIG (and overrides) without "
	      "running\n"
	      "  calibrate         fit CONFIG's [calibration] parameters to "
	      "its data\n"
	      "                    (with the Python package and Optuna)\n"
	      "  backends          list every backend plugin found, with its "
	      "state\n"
	      "                    and, for the unusable ones, the reason\n"
	      "  models            list every model plugin found (or only "
	      "MODEL),\n"
	      "                    with its state and, for the unusable ones, "
	      "the\n"
	      "                    reason\n"
	      "  envs              list every environment id the available "
	      "models\n"
	      "                    serve, with its model and summary\n"
	      "  config-reference  print the reference of every INI key "
	      "(Markdown)\n"
	      "  conform           run the conformance suite against PLUGIN (a "
	      "path\n"
	      "                    to weft-backend-NAME.so, or a backend name; "
	      "or a\n"
	      "                    path to weft-model-NAME.so: the model on "
	      "every\n"
	      "                    backend available) and print TAP\n"
	      "\n"
	      "'weft COMMAND --help' describes a command and its options.\n"
	      "See weft(1) and docs/config.md.\n",
	      out);
}

static const help_entry *find_help(const char *name)
{
	for (size_t i = 0; i < N_HELPS; i++)
		if (strcmp(helps[i].name, name) == 0)
			return &helps[i];
	return NULL;
}

static int print_help(const help_entry *h)
{
	printf("usage: weft %s\n\n%s\nSee weft(1).\n", h->synopsis, h->text);
	return EXIT_SUCCESS;
}

static int is_help(const char *arg)
{
	return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

/* `weft COMMAND ... --help ...`: the help of COMMAND, whatever else the
 * line holds (so that adding --help to a failing command line shows the
 * help rather than the failure). */
static int wants_help(int argc, char **argv)
{
	for (int i = 2; i < argc; i++)
		if (is_help(argv[i]))
			return 1;
	return 0;
}

static void die_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "weft: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see 'weft --help')\n");
	exit(EXIT_USAGE);
}

/* The name of a signal that cancels the work. */
static const char *signal_word(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGHUP ? "SIGHUP" : "SIGTERM";
}

/* A failure: its message, and the exit status. Work ended by a signal
 * exits with 128 + its number. */
static int fail(weft_context *ctx)
{
	int sig = atomic_load(&interrupted);

	if (sig && weft_context_cancelled(ctx)) {
		fprintf(stderr, "\nweft: interrupted by %s: %s\n",
			signal_word(sig), weft_context_error(ctx));
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

static sem_t signal_thread_up;

/* How long a plugin's call of the setup phase may go on after the first
 * signal before the process ends without it: a model's setup() that looks
 * at weft_model_cancelled() returns well within it. */
#define STOP_WAIT_S 0.5

/* After the first signal sig, from the signal thread: when a plugin's
 * call of the setup phase was under way and is still the same call
 * STOP_WAIT_S later, end the process by sig, saying which call does not
 * return. Nothing a run keeps is under way then: its new output set is
 * left for the next run to remove, as after a SIGKILL. A second signal
 * meanwhile ends the process at once. */
static void stop_if_stuck(int sig)
{
	char call[4200];
	uint64_t serial = weft__crash_setup_call(call, sizeof call);
	double until = now_s() + STOP_WAIT_S, left;
	struct timespec wait;
	int again;

	if (!serial)
		return;
	while ((left = until - now_s()) > 0) {
		uint64_t now;

		wait.tv_sec = (time_t)left;
		wait.tv_nsec = (long)((left - (double)wait.tv_sec) * 1e9);
		again = sigtimedwait(&caught, NULL, &wait);
		if (again > 0)
			die_by(again); /* a second signal, or SIGQUIT */
		now = weft__crash_setup_call(NULL, 0);
		if (!now)
			return; /* it returned: the work stops as usual */
		if (now != serial) {
			/* Another call of the setup phase (a backend's,
			 * inside the model's setup()): still going, so the
			 * wait starts again for it. */
			serial = now;
			until = now_s() + STOP_WAIT_S;
		}
	}
	if (weft__crash_setup_call(call, sizeof call) != serial)
		return;
	fprintf(stderr,
		"\nweft: interrupted by %s during %s, which did not return "
		"within %.1f s: stopped without it (the output directory is "
		"as it was)\n",
		signal_word(sig), call, STOP_WAIT_S);
	die_by(sig);
}

static void *signal_thread(void *arg)
{
	weft_context *ctx = arg;
	int sig;

	sem_post(&signal_thread_up);
	for (;;) {
		if (sigwait(&caught, &sig) != 0)
			continue;
		if (sig == SIGQUIT || atomic_load(&interrupted))
			die_by(sig); /* SIGQUIT, or a second signal */
		atomic_store(&interrupted, sig);
		weft_context_cancel(ctx);
		stop_if_stuck(sig);
	}
	return NULL;
}

/* Before any other thread exists (backends', the output writer), so that
 * all inherit the mask. Returns once the thread runs: a thread still
 * starting may hold a lock of the C library's (or of a sanitizer's
 * runtime) that a child forked then (a plugin's isolated load) would
 * inherit locked, and hang on. */
static void catch_signals(weft_context *ctx)
{
	pthread_t th;

	sigemptyset(&caught);
	sigaddset(&caught, SIGINT);
	sigaddset(&caught, SIGTERM);
	sigaddset(&caught, SIGHUP);
	sigaddset(&caught, SIGQUIT);
	pthread_sigmask(SIG_BLOCK, &caught, NULL);
	if (sem_init(&signal_thread_up, 0, 0) == 0 &&
	    pthread_create(&th, NULL, signal_thread, ctx) == 0) {
		pthread_detach(th);
		while (sem_wait(&signal_thread_up) != 0 && errno == EINTR)
			;
	} else {
		pthread_sigmask(SIG_UNBLOCK, &caught, NULL);
	}
}

/* ---- crashes -------------------------------------------------------- */

static const int crash_sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
static const char *const crash_names[] = { "SIGSEGV", "SIGBUS", "SIGFPE",
					   "SIGILL", "SIGABRT" };
#define N_CRASH_SIGS (sizeof crash_sigs / sizeof crash_sigs[0])

static struct sigaction crash_old[N_CRASH_SIGS]; /* the actions before */
static pid_t crash_pid; /* this process: a fork()ed child says nothing */
static int crash_tty;	/* standard error is a terminal (progress line) */
/* Where the handler runs, so that a stack overflow is reported too. */
static char crash_stack[1 << 16] __attribute__((aligned(16)));

/* s appended to buf[0..n), within size; the new length. */
static size_t crash_add(char *buf, size_t n, size_t size, const char *s)
{
	while (s && *s && n + 1 < size)
		buf[n++] = *s++;
	return n;
}

/* A fatal signal: one line, with async-signal-safe calls only, then the
 * action there was before (the default: the process ends by the signal;
 * or a sanitizer's handler). A fault happens again when the handler
 * returns; a signal sent (kill, abort()) is raised again. */
static void on_crash(int sig, siginfo_t *si, void *uc)
{
	const weft__in_plugin *at;
	char line[4400];
	size_t n = 0, i = 0;
	ssize_t w;

	(void)uc;
	while (i < N_CRASH_SIGS && crash_sigs[i] != sig)
		i++;
	if (i == N_CRASH_SIGS)
		return;
	if (getpid() == crash_pid) {
		at = weft__crash_where();
		n = crash_add(line, n, sizeof line,
			      crash_tty ? "\r\033[K" : "");
		n = crash_add(line, n, sizeof line, "weft: crashed with ");
		n = crash_add(line, n, sizeof line, crash_names[i]);
		if (at) {
			n = crash_add(line, n, sizeof line, " in ");
			n = crash_add(line, n, sizeof line, at->kind);
			n = crash_add(line, n, sizeof line, " plugin ");
			n = crash_add(line, n, sizeof line,
				      at->path ? at->path : "(file unknown)");
			n = crash_add(line, n, sizeof line, ", ");
			n = crash_add(line, n, sizeof line, at->hook);
		}
		n = crash_add(line, n, sizeof line, "\n");
		w = write(STDERR_FILENO, line, n);
		(void)w;
	}
	sigaction(sig, &crash_old[i], NULL);
	if (si->si_code <= 0)
		raise(sig);
}

/* The handler of fatal signals, on a stack of its own. */
static void catch_crashes(void)
{
	struct sigaction sa = { .sa_sigaction = on_crash };
	stack_t ss = { .ss_sp = crash_stack, .ss_size = sizeof crash_stack };

	crash_pid = getpid();
	crash_tty = isatty(STDERR_FILENO);
	(void)weft__crash_where(); /* bound now, not in the handler */
	sigaltstack(&ss, NULL);
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < N_CRASH_SIGS; i++)
		sigaction(crash_sigs[i], &sa, &crash_old[i]);
}

/* ---- run and check -------------------------------------------------- */

typedef struct run_opts {
	const char *config;
	const char **sets;
	int n_sets;
	int quiet, progress, stats;
	const char *resume; /* --resume DIR */
} run_opts;

static void parse_run_opts(int argc, char **argv, run_opts *o, int is_run)
{
	o->sets = calloc((size_t)argc, sizeof *o->sets);
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--set") == 0 && i + 1 < argc)
			o->sets[o->n_sets++] = argv[++i];
		else if (strncmp(argv[i], "--set=", 6) == 0)
			o->sets[o->n_sets++] = argv[i] + 6;
		else if (strcmp(argv[i], "--resume") == 0 && i + 1 < argc)
			o->resume = argv[++i];
		else if (strncmp(argv[i], "--resume=", 9) == 0 && argv[i][9])
			o->resume = argv[i] + 9;
		else if (strcmp(argv[i], "--resume") == 0 ||
			 strcmp(argv[i], "--resume=") == 0)
			die_usage("%s needs a checkpoint DIR", "--resume");
		else if (is_run && strcmp(argv[i], "--quiet") == 0)
			o->quiet = 1;
		else if (is_run && strcmp(argv[i], "--stats") == 0)
			o->stats = 1;
		else if (is_run && strcmp(argv[i], "--progress") == 0)
			o->progress = 1;
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

/* Whether a --set names key (SECTION.KEY, then '=' after any blanks). */
static int sets_key(const run_opts *o, const char *key)
{
	size_t n = strlen(key);

	for (int i = 0; i < o->n_sets; i++) {
		const char *s = o->sets[i];

		s += strspn(s, " \t");
		if (strncmp(s, key, n) != 0)
			continue;
		s += n;
		if (s[strspn(s, " \t")] == '=')
			return 1;
	}
	return 0;
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
	/* --stats times every kernel: the device profiles, unless a --set
	 * says backend.profile (false: the counters of a run as it is run
	 * without --stats, CUDA's graphs replayed). */
	if (o->stats && !sets_key(o, "backend.profile") &&
	    weft_config_set(ctx, *cfg, "backend.profile=true"))
		return fail(ctx);
	return weft_config_validate(ctx, *cfg) ? fail(ctx) : 0;
}

/* ---- progress ------------------------------------------------------- */

/* How progress is shown on standard error. */
typedef enum progress_mode {
	PROGRESS_NONE,	 /* --quiet */
	PROGRESS_TTY,	 /* a terminal: one line, rewritten in place */
	PROGRESS_LINES,	 /* --progress, not a terminal: plain lines */
	PROGRESS_IF_SLOW /* not a terminal: setup lines after 5 s only */
} progress_mode;

/* Lines (not a terminal) at most this often, and a setup quiet until it
 * has taken this long without --progress. */
#define PROGRESS_LINE_S 5.0

typedef struct progress {
	progress_mode mode;
	double t0;	 /* when the phase shown started (setup, steps) */
	double last;	 /* when something was last shown */
	char what[96];	 /* the setup phase last shown */
	int on_terminal; /* a line is on the terminal, to be cleared */
} progress;

static progress_mode progress_choose(const run_opts *o)
{
	if (o->quiet)
		return PROGRESS_NONE;
	if (isatty(STDERR_FILENO))
		return PROGRESS_TTY;
	return o->progress ? PROGRESS_LINES : PROGRESS_IF_SLOW;
}

/* Clear the terminal's progress line, if one is shown. */
static void progress_clear(progress *p)
{
	if (!p->on_terminal)
		return;
	fprintf(stderr, "\r\033[K");
	fflush(stderr);
	p->on_terminal = 0;
}

/* libweft's report of a setup phase (weft_context_set_progress): on a
 * terminal, the line rewritten at most every 50 ms; otherwise a line per
 * new phase, or every PROGRESS_LINE_S on one phase, once the setup has
 * taken PROGRESS_LINE_S (at once with --progress). */
static void progress_setup(void *user, const char *what, uint64_t done,
			   uint64_t total)
{
	progress *p = user;
	double t = now_s(), el = t - p->t0;
	int same = strncmp(p->what, what, sizeof p->what - 1) == 0;
	char count[64] = "";

	if (p->mode == PROGRESS_NONE ||
	    (p->mode == PROGRESS_IF_SLOW && el < PROGRESS_LINE_S))
		return;
	if (p->mode == PROGRESS_TTY ? t - p->last < 0.05 && same
				    : same && t - p->last < PROGRESS_LINE_S)
		return;
	if (total)
		snprintf(count, sizeof count, " (%llu of %llu)",
			 (unsigned long long)done, (unsigned long long)total);
	snprintf(p->what, sizeof p->what, "%s", what);
	if (p->mode == PROGRESS_TTY) {
		fprintf(stderr, "\r\033[K  setup %.1f s: %.60s%s", el, what,
			count);
		p->on_terminal = 1;
	} else {
		fprintf(stderr, "weft: setup %.1f s: %s%s\n", el, what, count);
	}
	fflush(stderr);
	p->last = t;
}

/* The steps: on a terminal after every chunk, otherwise (--progress) a
 * line every PROGRESS_LINE_S. */
static void progress_steps(progress *p, const weft_sim *sim)
{
	uint64_t done = weft_sim_steps_done(sim);
	uint64_t total = weft_sim_steps_total(sim);
	double t = now_s(), el = t - p->t0;
	double rate = el > 0 ? (double)done / el : 0;
	double eta = rate > 0 ? (double)(total - done) / rate : 0;

	if (p->mode == PROGRESS_TTY) {
		fprintf(stderr,
			"\r\033[K  step %llu/%llu  %.0f steps/s  ETA %.1f s",
			(unsigned long long)done, (unsigned long long)total,
			rate, eta);
		p->on_terminal = 1;
	} else if (p->mode == PROGRESS_LINES &&
		   t - p->last >= PROGRESS_LINE_S) {
		fprintf(stderr,
			"weft: step %llu/%llu  %.0f steps/s  ETA %.1f s\n",
			(unsigned long long)done, (unsigned long long)total,
			rate, eta);
		p->last = t;
	} else {
		return;
	}
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
static weft_status step_all(weft_sim *sim, progress *p)
{
	uint64_t chunk = 1, last = 0;
	double t_last = 0.0;
	weft_status st = WEFT_OK;

	p->t0 = p->last = now_s();
	while (weft_sim_steps_done(sim) < weft_sim_steps_total(sim)) {
		double t = now_s();
		uint64_t n;
		if ((st = weft_sim_step(sim, chunk)))
			return st;
		progress_steps(p, sim);
		t = now_s() - t;
		n = next_chunk(chunk, t, last, t_last);
		last = chunk;
		t_last = t;
		chunk = n;
	}
	progress_clear(p);
	return st;
}

/* Wall times of a run's phases, in seconds. */
typedef struct run_times {
	double open;	/* weft_sim_open: population, upload, kernels */
	double steps;	/* the steps: from the first enqueue to the
			 * completion of their work (weft_sim_times) */
	double outputs; /* outputs and checkpoints between chunks, part of
			 * steps */
	int waited;	/* steps ends where their work was seen complete */
	double finish;	/* the rest: the last outputs, the plot, renames */
	uint64_t from;	/* the step it started at (a resumed run's) */
} run_times;

/* Where the run came from and what it left, when checkpoints were in
 * play. */
static void print_checkpoints(const weft_sim *sim)
{
	weft_checkpoint_info c = { .struct_size = sizeof c };

	if (weft_sim_checkpoint_info(sim, &c) != WEFT_OK)
		return;
	if (c.resumed_dir[0])
		printf("  %-20s from %s at step %llu\n", "resumed",
		       c.resumed_dir, (unsigned long long)c.resumed_from);
	if (c.written)
		printf("  %-20s %llu written to %s, the last at step %llu\n",
		       "checkpoints", (unsigned long long)c.written, c.dir,
		       (unsigned long long)c.last_step);
}

static void print_summary(const weft_sim *sim, const run_times *t)
{
	uint64_t steps = weft_sim_steps_done(sim) - t->from;
	const char *k, *v;

	printf("weft: %s on %s\n", weft_sim_model(sim), weft_sim_backend(sim));
	print_checkpoints(sim);
	printf("  %-20s %llu in %.3f s (%.0f steps/s)\n", "steps",
	       (unsigned long long)steps, t->steps,
	       t->steps > 0 ? (double)steps / t->steps : 0.0);
	printf("  %-20s setup %.3f s, steps %.3f s, finish %.3f s\n",
	       "wall time", t->open, t->steps, t->finish);
	if (t->outputs > 0)
		printf("  %-20s %.3f s of the steps' time on the host\n",
		       "outputs between", t->outputs);
	if (steps && !t->waited)
		printf("  %-20s the steps' time ends at their last enqueue: "
		       "nothing waited for their work\n",
		       "");
	for (size_t i = 0; i < weft_sim_summary_count(sim); i++)
		if (weft_sim_summary_at(sim, i, &k, &v) == WEFT_OK)
			printf("  %-20s %s\n", k, v);
	for (size_t i = 0; i < weft_sim_output_count(sim); i++)
		printf("  %-20s %s\n", i ? "" : "outputs",
		       weft_sim_output_at(sim, i));
}

/* qsort order of kernel rows: the most time first, then the most
 * launches, then by name. */
static int kernel_row_cmp(const void *a, const void *b)
{
	const weft_kernel_stats_row *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? 1 : -1;
	if (x->launches != y->launches)
		return x->launches < y->launches ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* One kernel: launches, total time, share of all kernels' time, mean time
 * per timed launch (and how many were timed when not all were). */
static void print_kernel_row(const weft_kernel_stats_row *r, uint64_t total)
{
	char timed[48] = "";

	if (r->timed != r->launches)
		snprintf(timed, sizeof timed, " (%llu timed)",
			 (unsigned long long)r->timed);
	printf("  %-20s %10llu %12.3f %6.1f %% %12.3f%s\n", r->name,
	       (unsigned long long)r->launches, (double)r->time_ns / 1e6,
	       total ? 100.0 * (double)r->time_ns / (double)total : 0.0,
	       r->timed ? (double)r->time_ns / (double)r->timed / 1e3 : 0.0,
	       timed);
}

/* Per-kernel counters after the backend's, sorted by time. */
static void print_kernel_stats(weft_context *ctx, weft_sim *sim)
{
	weft_kernel_stats_row *rows;
	uint64_t total = 0;
	size_t n = 0;

	if (weft_sim_kernel_stats(sim, NULL, 0, &n) != WEFT_OK) {
		printf("per-kernel counters: none (%s)\n",
		       weft_context_error(ctx));
		return;
	}
	rows = calloc(n ? n : 1, sizeof *rows);
	if (!rows || weft_sim_kernel_stats(sim, rows, n, &n) != WEFT_OK) {
		free(rows);
		printf("per-kernel counters: none (out of memory)\n");
		return;
	}
	for (size_t k = 0; k < n; k++)
		total += rows[k].time_ns;
	qsort(rows, n, sizeof *rows, kernel_row_cmp);
	printf("per-kernel counters (%s, %zu kernels, by time):\n",
	       weft_sim_backend(sim), n);
	printf("  %-20s %10s %12s %8s %12s\n", "kernel", "launches", "time ms",
	       "share", "mean us");
	for (size_t k = 0; k < n; k++)
		print_kernel_row(&rows[k], total);
	free(rows);
}

static void print_stats(weft_context *ctx, weft_sim *sim)
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
	print_kernel_stats(ctx, sim);
}

/* A run with checkpoints on that a signal stopped between steps: keep the
 * steps done in a checkpoint at the step reached (the second signal still
 * ends the process at once), and say so in the run's one-line failure. */
static void checkpoint_on_stop(weft_context *ctx, weft_sim *sim,
			       const run_opts *o)
{
	weft_checkpoint_info c = { .struct_size = sizeof c };
	char why[2048], more[2048];

	snprintf(why, sizeof why, "%s", weft_context_error(ctx));
	if (weft_sim_checkpoint_info(sim, &c) != WEFT_OK || c.every == 0)
		return;
	if (weft_sim_checkpoint(sim) == WEFT_OK) {
		weft_context_fail(ctx, WEFT_E_CANCELLED,
				  "%s; checkpoint at step %llu written to %s "
				  "('weft run %s --resume %s' continues)",
				  why,
				  (unsigned long long)weft_sim_steps_done(sim),
				  c.dir, o->config, c.dir);
		return;
	}
	snprintf(more, sizeof more, "%s", weft_context_error(ctx));
	weft_context_fail(ctx, WEFT_E_CANCELLED, "%s; %s", why, more);
}

/* The phases' wall times: setup until t1; the steps as libweft measured
 * them, from the first enqueue to the wait that saw their work complete
 * (t2 - t1, the loop that enqueued them, when it has none); finish the
 * rest. */
static void run_times_fill(run_times *t, const weft_sim *sim, double t0,
			   double t1, double t2)
{
	weft_sim_times tm = { .struct_size = sizeof tm };
	double end = now_s();

	t->open = t1 - t0;
	t->steps = t2 - t1;
	t->outputs = 0;
	t->waited = 1;
	if (weft_sim_times_get(sim, &tm) == WEFT_OK && tm.steps) {
		t->steps = (double)tm.steps_ns / 1e9;
		t->outputs = (double)tm.outputs_ns / 1e9;
		t->waited = tm.complete;
	}
	t->finish = end - t1 - t->steps;
	if (t->finish < 0)
		t->finish = 0;
}

static int run_sim(weft_context *ctx, weft_config *cfg, const run_opts *o)
{
	progress p = { .mode = progress_choose(o), .t0 = now_s() };
	double t0 = p.t0, t1, t2;
	weft_sim *sim = NULL;
	weft_status st;
	run_times times;
	int rc;

	weft_context_set_progress(ctx, progress_setup, &p);
	st = o->resume ? weft_sim_resume(ctx, cfg, o->resume, &sim)
		       : weft_sim_open(ctx, cfg, &sim);
	weft_context_set_progress(ctx, NULL, NULL);
	progress_clear(&p);
	t1 = now_s();
	times.from = sim ? weft_sim_steps_done(sim) : 0;
	if (st == WEFT_OK)
		st = step_all(sim, &p);
	if (st == WEFT_E_CANCELLED && sim)
		checkpoint_on_stop(ctx, sim, o);
	t2 = now_s();
	/* A signal stops the run at libweft's next check, up to the commit
	 * of the outputs, which then completes. */
	if (st == WEFT_OK)
		st = weft_sim_finish(sim);
	if (st) {
		progress_clear(&p);
		rc = fail(ctx);
		weft_sim_close(sim);
		return rc;
	}
	run_times_fill(&times, sim, t0, t1, t2);
	print_summary(sim, &times);
	if (o->stats)
		print_stats(ctx, sim);
	weft_sim_close(sim);
	return EXIT_SUCCESS;
}

/* "12.5 MiB" */
static void human_bytes(char *buf, size_t size, uint64_t bytes)
{
	static const char *const unit[] = { "bytes", "KiB", "MiB",
					    "GiB",   "TiB", "PiB" };
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024.0 && u < 5) {
		v /= 1024.0;
		u++;
	}
	snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

/* `weft check`: ok (with --resume, DIR holds a checkpoint it can resume
 * from), and the memory the run would need (its model's estimate) beside
 * what the host has. */
static int print_check(weft_context *ctx, const weft_config *cfg,
		       const run_opts *o)
{
	weft_estimate e = { .struct_size = sizeof e };
	char host[32], dev[32], avail[32];
	uint64_t step = 0;

	if (weft_config_estimate(ctx, cfg, &e) ||
	    (o->resume && weft_checkpoint_check(ctx, cfg, o->resume, &step)))
		return fail(ctx);
	if (o->resume)
		printf("%s: ok; %s: a checkpoint at step %llu it can resume "
		       "from\n",
		       o->config, o->resume, (unsigned long long)step);
	else
		printf("%s: ok\n", o->config);
	if (!e.known) {
		printf("  %-20s not estimated (the model's plugin is older "
		       "than model ABI 1.3)\n",
		       "memory");
		return EXIT_SUCCESS;
	}
	human_bytes(host, sizeof host, e.host_bytes);
	human_bytes(dev, sizeof dev, e.device_bytes);
	printf("  %-20s %s of host memory (%llu bytes), %s of device memory "
	       "(%llu bytes)\n",
	       "memory", host, (unsigned long long)e.host_bytes, dev,
	       (unsigned long long)e.device_bytes);
	printf("  %-20s %s\n", "", e.parts);
	human_bytes(dev, sizeof dev, e.shared_bytes);
	printf("  %-20s %s (%llu bytes) on a backend whose device memory is "
	       "host memory\n",
	       "", dev, (unsigned long long)e.shared_bytes);
	if (!e.host_available)
		return EXIT_SUCCESS;
	human_bytes(avail, sizeof avail, e.host_available);
	printf("  %-20s %s: %s (%llu bytes)\n", "", e.available_from, avail,
	       (unsigned long long)e.host_available);
	if (e.shared_bytes > e.host_available)
		printf("  %-20s the run needs more than %s with its device "
		       "buffers in host memory: weft run refuses it on such "
		       "a backend\n",
		       "note", e.available_from);
	return EXIT_SUCCESS;
}

/* ---- ensembles ------------------------------------------------------ */

/* `weft check` of an ensemble: every run validated, and its expansion. */
static int print_ensemble_check(weft_context *ctx, const weft_config *cfg,
				const run_opts *o)
{
	weft_ensemble *e;
	size_t n;

	if (weft_ensemble_open(ctx, cfg, &e))
		return fail(ctx);
	n = weft_ensemble_scenario_count(e);
	printf("%s: ok\n", o->config);
	printf("  %-20s %zu runs: %zu scenario%s x %zu seeds\n", "ensemble",
	       weft_ensemble_run_count(e), n, n == 1 ? "" : "s",
	       weft_ensemble_run_count(e) / n);
	for (size_t i = 0; i < n; i++)
		printf("  %-20s %s\n", i ? "" : "scenarios",
		       weft_ensemble_scenario_at(e, i));
	if (weft_ensemble_crn_key(e))
		printf("  %-20s %s = true in every run (common random "
		       "numbers, the default when runs are compared)\n",
		       "crn", weft_ensemble_crn_key(e));
	if (weft_ensemble_crn_refused(e))
		printf("  %-20s the model's common random numbers are off in "
		       "every run: with them, %s\n",
		       "crn", weft_ensemble_crn_refused(e));
	weft_ensemble_close(e);
	return EXIT_SUCCESS;
}

/* An ensemble's progress: which run, not each run's setup phases. */
static void progress_ensemble(void *user, const char *what, uint64_t done,
			      uint64_t total)
{
	progress *p = user;

	if (strncmp(what, "ensemble:", 9) != 0 ||
	    (p->mode != PROGRESS_TTY && p->what[0] &&
	     now_s() - p->last < PROGRESS_LINE_S))
		return;
	progress_setup(user, what, done, total);
}

static int run_ensemble(weft_context *ctx, const weft_config *cfg,
			const run_opts *o)
{
	progress p = { .mode = progress_choose(o), .t0 = now_s() };
	weft_ensemble *e = NULL;
	char title[64];
	weft_status st;
	int rc;

	if (o->resume)
		die_usage("%s", "--resume: an ensemble does not resume (it "
				"is run again)");
	weft_context_set_progress(ctx, progress_ensemble, &p);
	st = weft_ensemble_open(ctx, cfg, &e);
	if (st == WEFT_OK)
		st = weft_ensemble_run(e);
	weft_context_set_progress(ctx, NULL, NULL);
	progress_clear(&p);
	if (st) {
		rc = fail(ctx);
		weft_ensemble_close(e);
		return rc;
	}
	snprintf(title, sizeof title, "ensemble in %.3f s", now_s() - p.t0);
	rc = weft_print_ensemble(e, "weft", title);
	weft_ensemble_close(e);
	return rc;
}

static int cmd_run(weft_context *ctx, int argc, char **argv, int is_run)
{
	run_opts o = { 0 };
	weft_config *cfg = NULL;
	int rc, calibration = 0;

	parse_run_opts(argc, argv, &o, is_run);
	rc = load_config(ctx, &o, &cfg);
	if (rc == 0 && !is_run &&
	    weft_cli_calibration_check(ctx, cfg, &calibration))
		rc = fail(ctx);
	if (rc == 0 && weft_config_is_ensemble(cfg))
		rc = is_run ? run_ensemble(ctx, cfg, &o)
			    : print_ensemble_check(ctx, cfg, &o);
	else if (rc == 0 && !is_run)
		rc = print_check(ctx, cfg, &o);
	else if (rc == 0)
		rc = run_sim(ctx, cfg, &o);
	if (rc == 0 && calibration)
		printf("  %-20s %s trials x %s replicas: weft calibrate %s "
		       "runs them\n",
		       "calibration",
		       weft_config_get(cfg, "calibration", "trials"),
		       weft_config_get(cfg, "calibration", "replicas"),
		       o.config);
	weft_config_free(cfg);
	free(o.sets);
	return rc;
}

/* ---- listings -------------------------------------------------------- */

/* "f64 f32-exact subnormal atomic64" of caps, "none" without any. */
static void caps_words(uint32_t caps, char *buf, size_t size)
{
	static const struct {
		uint32_t bit;
		const char *word;
	} words[] = { { WEFT_CAP_F64, "f64" },
		      { WEFT_CAP_F32_EXACT, "f32-exact" },
		      { WEFT_CAP_SUBNORMAL, "subnormal" },
		      { WEFT_CAP_ATOMIC64, "atomic64" } };
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof words / sizeof words[0] && n < size; i++)
		if (caps & words[i].bit)
			n += (size_t)snprintf(buf + n, size - n, "%s%s",
					      n ? " " : "", words[i].word);
	if (!buf[0])
		snprintf(buf, size, "none");
}

/* The capabilities of the default device of the backend plugin at path
 * (`weft backends --verbose`), or why they cannot be read, into out. */
static void backend_caps(weft_context *ctx, const char *path, char *out,
			 size_t size)
{
	weft_device_config dc = { .struct_size = sizeof dc, .device = -1 };
	weft_device_caps c = { .struct_size = sizeof c };
	weft_backend_plugin *bp = NULL;
	const weft_backend *vt;
	weft_device *dev = NULL;
	weft_error err = { { 0 } };
	char words[96];

	if (weft_backend_plugin_open(ctx, path, NULL, 0, &bp) != WEFT_OK) {
		snprintf(out, size, "unknown (%s)", weft_context_error(ctx));
		return;
	}
	vt = weft_backend_plugin_table(bp);
	if (vt->struct_size < WEFT_BACKEND_V1_5_SIZE || !vt->caps)
		snprintf(out, size, "none (no caps(), backend ABI 1.5)");
	else if (vt->open(&dc, &dev, &err) != WEFT_OK)
		snprintf(out, size, "unknown (opening its default device: %s)",
			 err.msg);
	else if (vt->caps(dev, &c, &err) != WEFT_OK)
		snprintf(out, size, "unknown (caps(): %s)", err.msg);
	else {
		c.detail[sizeof c.detail - 1] = '\0';
		caps_words(c.caps, words, sizeof words);
		snprintf(out, size, "%s%s%s", words,
			 c.detail[0] ? "; missing: " : "", c.detail);
	}
	if (dev)
		vt->close(dev);
	weft_backend_plugin_close(bp);
}

static int cmd_backends(weft_context *ctx, int argc, char **argv)
{
	const char *path = NULL;
	weft_backend_list *l = NULL;
	int verbose = 0;

	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--plugin-path") == 0 && i + 1 < argc)
			path = argv[++i];
		else if (strcmp(argv[i], "--verbose") == 0)
			verbose = 1;
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
		if (verbose && !b->shadowed &&
		    strcmp(b->state, "available") == 0) {
			char caps[512];

			backend_caps(ctx, b->path, caps, sizeof caps);
			printf("\n           caps: %s", caps);
		}
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

/* `weft envs`: one line an id, in columns as wide as their widest. */
static int cmd_envs(weft_context *ctx, int argc, char **argv)
{
	const char *path = NULL;
	weft_env_list *l = NULL;
	int w_id = 2, w_model = 5, w_steps = 9, w_thr = 9;

	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--model-path") == 0 && i + 1 < argc)
			path = argv[++i];
		else
			die_usage("unexpected argument '%s'", argv[i]);
	}
	if (weft_env_list_scan(ctx, path, &l))
		return fail(ctx);
	for (size_t i = 0; i < weft_env_list_count(l); i++) {
		const weft_env_entry *e = weft_env_list_at(l, i);
		int a = (int)strlen(e->id), b = (int)strlen(e->model);

		w_id = a > w_id ? a : w_id;
		w_model = b > w_model ? b : w_model;
		if (e->max_episode_steps) {
			int c = snprintf(NULL, 0, "%u",
					 (unsigned)e->max_episode_steps);

			w_steps = c > w_steps ? c : w_steps;
		}
		if (e->has_reward_threshold) {
			int c = snprintf(NULL, 0, "%.9g", e->reward_threshold);

			w_thr = c > w_thr ? c : w_thr;
		}
	}
	printf("%-*s  %-*s  %-*s  %-*s  %s\n", w_id, "ID", w_model, "MODEL",
	       w_steps, "MAX STEPS", w_thr, "THRESHOLD", "SUMMARY");
	for (size_t i = 0; i < weft_env_list_count(l); i++) {
		const weft_env_entry *e = weft_env_list_at(l, i);
		char steps[16] = "-", thr[32] = "-";

		if (e->max_episode_steps)
			snprintf(steps, sizeof steps, "%u",
				 (unsigned)e->max_episode_steps);
		if (e->has_reward_threshold)
			snprintf(thr, sizeof thr, "%.9g", e->reward_threshold);
		printf("%-*s  %-*s  %-*s  %-*s  %s\n", w_id, e->id, w_model,
		       e->model, w_steps, steps, w_thr, thr, e->summary);
	}
	weft_env_list_free(l);
	return EXIT_SUCCESS;
}

static int cmd_reference(weft_context *ctx)
{
	char *md = NULL;
	if (weft_config_reference(ctx, &md))
		return fail(ctx);
	fputs(md, stdout);
	weft_free(md);
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

/* The value of option: a whole number of `what` from 1 to max, else a
 * usage error naming the option. */
static unsigned parse_count(const char *option, const char *text,
			    const char *what, unsigned long max)
{
	char *end, fmt[96];
	unsigned long v = strtoul(text, &end, 10);

	if (!text[0] || *end || text[0] == '-' || v == 0 || v > max) {
		snprintf(fmt, sizeof fmt,
			 "%s needs a number of %s (1 to %lu), not '%%s'",
			 option, what, max);
		die_usage(fmt, text);
	}
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
			o->timeout_s =
				parse_count("--timeout", v, "seconds", 86400);
		else if ((v = opt_value(argc, argv, &i, "--repeat")))
			o->repeat = parse_count("--repeat", v, "runs", 1000);
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

/* `weft help [COMMAND]`. */
static int cmd_help(int argc, char **argv)
{
	const help_entry *h;

	if (argc < 3) {
		print_usage(stdout);
		return EXIT_SUCCESS;
	}
	if (argc > 3)
		die_usage("unexpected argument '%s'", argv[3]);
	if (!(h = find_help(argv[2])))
		die_usage("no command '%s' to describe", argv[2]);
	return print_help(h);
}

static int dispatch(weft_context *ctx, int argc, char **argv)
{
	const char *cmd = argv[1];
	const help_entry *h = find_help(cmd);

	if (h && wants_help(argc, argv))
		return print_help(h);
	if (strcmp(cmd, "run") == 0)
		return cmd_run(ctx, argc, argv, 1);
	if (strcmp(cmd, "check") == 0)
		return cmd_run(ctx, argc, argv, 0);
	if (strcmp(cmd, "calibrate") == 0)
		return weft_cli_calibrate(ctx, argc, argv);
	if (strcmp(cmd, "backends") == 0)
		return cmd_backends(ctx, argc, argv);
	if (strcmp(cmd, "models") == 0)
		return cmd_models(ctx, argc, argv);
	if (strcmp(cmd, "envs") == 0)
		return cmd_envs(ctx, argc, argv);
	if (strcmp(cmd, "config-reference") == 0)
		return cmd_reference(ctx);
	if (strcmp(cmd, "conform") == 0)
		return cmd_conform(ctx, argc, argv);
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
		unsigned major, minor, mmajor, mminor;
		weft_backend_abi(&major, &minor);
		weft_model_abi(&mmajor, &mminor);
		printf("weft %s (backend ABI %u.%u, model ABI %u.%u)\n",
		       weft_version(), major, minor, mmajor, mminor);
		return EXIT_SUCCESS;
	}
	if (strcmp(cmd, "help") == 0)
		return cmd_help(argc, argv);
	if (is_help(cmd)) {
		print_usage(stdout);
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
		print_usage(stderr);
		return EXIT_USAGE;
	}
	catch_crashes();
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
