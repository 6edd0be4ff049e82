/*
 * cli/weft-calibrate.c - `weft calibrate CONFIG`: fit the parameters of
 * CONFIG's [calibration] section to its data (docs/calibration.md, "INI:
 * weft calibrate").
 *
 * libweft reads and checks the configuration and the section (every
 * error names FILE:LINE and the key) and hands the settings over as one
 * JSON object (weft__config_calibration(), core/config/calib.h); the
 * Python package runs the calibration (weft.calibrate, with Optuna): a
 * Python interpreter ($WEFT_PYTHON, else python3 on PATH) runs a short
 * bootstrap that imports weft and optuna, saying which one it cannot
 * import, then weft.__main__'s `calibrate`, which reads the JSON on its
 * standard input and the --set overrides as arguments. SIGINT, SIGTERM
 * and SIGHUP sent to this process are passed on to the interpreter (a
 * terminal's reach it directly), whose exit status becomes this
 * command's.
 */
#include "config.h"

#include "weft-calibrate.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../core/config/calib.h"

#define EXIT_USAGE 2

/* The interpreter's bootstrap: sys.argv[1] names the interpreter as it
 * was found, the rest are weft.__main__'s arguments. */
static const char bootstrap[] =
	"import sys\n"
	"def _no(m, hint, e):\n"
	"    sys.stderr.write('weft calibrate: %s cannot import %s (%s): "
	"%s\\n' % (sys.argv[1], m, hint, e))\n"
	"    sys.exit(1)\n"
	"try:\n"
	"    import weft\n"
	"except ImportError as e:\n"
	"    _no('weft', 'install the Python package: ./quickstart python', "
	"e)\n"
	"try:\n"
	"    import optuna\n"
	"except ImportError as e:\n"
	"    _no('optuna', 'pip install optuna, or pip install "
	"\"weft[calibration]\"', e)\n"
	"try:\n"
	"    from weft.__main__ import main\n"
	"except ImportError as e:\n"
	"    _no('weft.__main__', 'its weft package predates weft calibrate: "
	"install this one: ./quickstart python', e)\n"
	"sys.exit(main(['calibrate'] + sys.argv[2:]))\n";

/* The interpreter's pid while it runs, for the signal handler. */
static volatile sig_atomic_t child_pid;

/* A signal sent to this process alone (kill PID: SI_USER) is passed on;
 * one from the terminal (Ctrl-C) reached the whole process group, the
 * interpreter included, already. */
static void pass_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (child_pid > 0 && si && si->si_code == SI_USER)
		kill((pid_t)child_pid, sig);
}

typedef struct calib_opts {
	const char *config;
	const char **sets; /* --set, then --trials and --storage as sets */
	int n_sets;
	char trials[64];
	char *storage;
} calib_opts;

static void usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "weft: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see 'weft calibrate --help')\n");
	exit(EXIT_USAGE);
}

/* The value of option name at argv[*i] ("--name V" or "--name=V"), or
 * NULL when argv[*i] is another argument. */
static const char *opt_arg(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(argv[*i], name, n) != 0)
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n])
		return NULL;
	if (*i + 1 >= argc)
		usage("%s needs a value", name);
	return argv[++*i];
}

static void parse_trials(calib_opts *o, const char *v)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (!*v || *end || errno || n < 0 || n > 1000000)
		usage("--trials '%s': expected a whole number from 0 to "
		      "1000000",
		      v);
	snprintf(o->trials, sizeof o->trials, "calibration.trials=%ld", n);
	o->sets[o->n_sets++] = o->trials;
}

static void parse_opts(int argc, char **argv, calib_opts *o)
{
	const char *v;

	o->sets = calloc((size_t)argc + 2, sizeof *o->sets);
	if (!o->sets)
		usage("%s", "out of memory");
	for (int i = 2; i < argc; i++) {
		if ((v = opt_arg(argc, argv, &i, "--set")))
			o->sets[o->n_sets++] = v;
		else if ((v = opt_arg(argc, argv, &i, "--trials")))
			parse_trials(o, v);
		else if ((v = opt_arg(argc, argv, &i, "--storage"))) {
			free(o->storage);
			o->storage = malloc(strlen(v) + 32);
			if (!o->storage)
				usage("%s", "out of memory");
			sprintf(o->storage, "calibration.storage=%s", v);
			o->sets[o->n_sets++] = o->storage;
		} else if (argv[i][0] == '-' && argv[i][1])
			usage("unknown option '%s'", argv[i]);
		else if (!o->config)
			o->config = argv[i];
		else
			usage("unexpected argument '%s'", argv[i]);
	}
	if (!o->config)
		usage("%s needs a CONFIG file", "calibrate");
}

static int failed(weft_context *ctx)
{
	fprintf(stderr, "weft: %s\n", weft_context_error(ctx));
	return EXIT_FAILURE;
}

/* The configuration with the overrides, validated; its settings as JSON
 * in *json. 0, or the exit status. */
static int load(weft_context *ctx, const calib_opts *o, weft_config **cfg,
		char **json)
{
	weft_status st;

	if (weft_config_load(ctx, o->config, cfg))
		return failed(ctx);
	for (int i = 0; i < o->n_sets; i++) {
		st = weft_config_set(ctx, *cfg, o->sets[i]);
		if (st == WEFT_E_INVALID)
			usage("%s", weft_context_error(ctx));
		if (st)
			return failed(ctx);
	}
	if (weft_config_validate(ctx, *cfg) ||
	    weft__config_calibration(ctx, *cfg, json))
		return failed(ctx);
	if (!*json) {
		fprintf(stderr,
			"weft: %s has no [calibration] section: weft "
			"calibrate needs one, with data, param.SECTION.KEY "
			"and component.NAME lines (docs/calibration.md)\n",
			o->config);
		return EXIT_FAILURE;
	}
	return 0;
}

/* The interpreter: $WEFT_PYTHON, else python3 (on PATH). */
static const char *python(void)
{
	const char *p = getenv("WEFT_PYTHON");

	return p && *p ? p : "python3";
}

/* In the child: the JSON on standard input, then the interpreter. */
static void exec_python(int in, const calib_opts *o)
{
	const char *py = python();
	const char **av = calloc((size_t)o->n_sets * 2 + 6, sizeof *av);
	int n = 0;

	if (!av || dup2(in, STDIN_FILENO) < 0) {
		perror("weft calibrate: cannot start Python");
		_exit(127);
	}
	close(in);
	av[n++] = py;
	av[n++] = "-c";
	av[n++] = bootstrap;
	av[n++] = py;
	for (int i = 0; i < o->n_sets; i++) {
		av[n++] = "--set";
		av[n++] = o->sets[i];
	}
	execvp(py, (char *const *)av);
	fprintf(stderr,
		"weft calibrate: cannot run the Python interpreter %s (%s; "
		"set WEFT_PYTHON to one that has the weft package and "
		"optuna): %s\n",
		py,
		getenv("WEFT_PYTHON") && *getenv("WEFT_PYTHON")
			? "$WEFT_PYTHON"
			: "python3 on PATH",
		strerror(errno));
	free(av);
	_exit(127);
}

/* The whole JSON into fd, then closed. 0 when written. */
static int write_all(int fd, const char *text)
{
	size_t len = strlen(text), done = 0;

	while (done < len) {
		ssize_t k = write(fd, text + done, len - done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		done += (size_t)k;
	}
	close(fd);
	return done == len ? 0 : -1;
}

/* The interpreter's exit status, as this command's. */
static int wait_python(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("weft calibrate: waitpid");
			return EXIT_FAILURE;
		}
	child_pid = 0;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	if (WEXITSTATUS(status) == 127)
		return EXIT_FAILURE; /* could not be run: said so */
	return WEXITSTATUS(status);
}

/* SIGINT, SIGTERM and SIGHUP, in a set. */
static void passed_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}

/* The interpreter started, reading the settings from a pipe. The passed
 * signals are blocked from before fork() until their handlers know the
 * child (in the parent) or have their default actions back (in the
 * child): one that arrives in between waits, and reaches the
 * interpreter, instead of ending weft and leaving it orphaned. */
static int run_python(const calib_opts *o, const char *json)
{
	struct sigaction sa = { .sa_sigaction = pass_signal,
				.sa_flags = SA_SIGINFO };
	sigset_t passed, old;
	int fds[2];
	pid_t pid;

	signal(SIGPIPE, SIG_IGN); /* an interpreter that fails at once */
	passed_signals(&passed);
	sigprocmask(SIG_BLOCK, &passed, &old);
	if (pipe(fds) < 0 || (pid = fork()) < 0) {
		perror("weft calibrate: cannot start Python");
		sigprocmask(SIG_SETMASK, &old, NULL);
		return EXIT_FAILURE;
	}
	if (pid == 0) {
		close(fds[1]);
		/* Python turns SIGINT into KeyboardInterrupt only when it
		 * starts with the default action (a background job of a
		 * shell ignores it). */
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		exec_python(fds[0], o);
	}
	close(fds[0]);
	child_pid = pid;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	write_all(fds[1], json); /* a failure is the interpreter's to say */
	return wait_python(pid);
}

int weft_cli_calibrate(weft_context *ctx, int argc, char **argv)
{
	calib_opts o = { 0 };
	weft_config *cfg = NULL;
	char *json = NULL;
	int rc;

	parse_opts(argc, argv, &o);
	rc = load(ctx, &o, &cfg, &json);
	weft_config_free(cfg);
	if (rc == 0) {
		fflush(stdout);
		rc = run_python(&o, json);
	}
	free(json);
	free(o.storage);
	free(o.sets);
	return rc;
}

int weft_cli_calibration_check(weft_context *ctx, const weft_config *cfg,
			       int *present)
{
	char *json = NULL;

	*present = 0;
	if (weft__config_calibration(ctx, cfg, &json))
		return 1;
	*present = json != NULL;
	free(json);
	return 0;
}
