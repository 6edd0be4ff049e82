/*
 * core/output/gnuplot.c - running gnuplot for the plots of a run
 * (run/plot.c) and of an ensemble (ensemble/ensemble_plot.c): finding it
 * in $PATH, spawning it with posix_spawn() (no shell: the paths are
 * arguments, never text of a command), waiting for it with a time limit
 * ($WEFT_GNUPLOT_TIMEOUT) and saying why it did not draw; and the column
 * of a CSV header both plots read.
 */
#include "output/output.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* 1-based index of the column called name[0..len) in the header, or 0. */
unsigned weft__plot_column(const char *header, const char *name, size_t len)
{
	unsigned i = 1;

	for (const char *f = header;; i++) {
		size_t flen = strcspn(f, ",");
		if (flen == len && strncmp(f, name, len) == 0)
			return i;
		if (!f[flen])
			return 0;
		f += flen + 1;
	}
}

/* The first executable file called name in $PATH (an empty entry is the
 * current directory), in new memory; *out stays NULL when there is none. */
weft_status weft__plot_find(weft_context *ctx, const char *name, char **out)
{
	const char *path = getenv("PATH");
	struct stat sb;

	*out = NULL;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *dir = path;;) {
		size_t len = strcspn(dir, ":");
		size_t n = len + strlen(name) + 3;
		char *cand = malloc(n);
		if (!cand)
			return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
		snprintf(cand, n, "%.*s/%s", len ? (int)len : 1,
			 len ? dir : ".", name);
		if (stat(cand, &sb) == 0 && S_ISREG(sb.st_mode) &&
		    access(cand, X_OK) == 0) {
			*out = cand;
			return WEFT_OK;
		}
		free(cand);
		if (!dir[len])
			return WEFT_OK;
		dir += len + 1;
	}
}

/* Start prog with argv: standard input from /dev/null, standard output
 * and error into out_fd (a pipe's write end, which only the child keeps),
 * no signal blocked (the caller's thread may block some) and the default
 * action for those a caller may have set to be ignored. Returns 0 or an
 * errno value. */
static int weft__plot_spawn(const char *prog, char *const argv[], int out_fd,
			    pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, dfl;
	int rc;

	if ((rc = posix_spawn_file_actions_init(&fa)))
		return rc;
	if ((rc = posix_spawnattr_init(&at)))
		goto destroy_actions;
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	sigaddset(&dfl, SIGPIPE);
	if ((rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null",
						   O_RDONLY, 0)) ||
	    (rc = posix_spawn_file_actions_adddup2(&fa, out_fd, 1)) ||
	    (rc = posix_spawn_file_actions_adddup2(&fa, out_fd, 2)) ||
	    (rc = posix_spawnattr_setsigmask(&at, &none)) ||
	    (rc = posix_spawnattr_setsigdefault(&at, &dfl)) ||
	    (rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK |
							POSIX_SPAWN_SETSIGDEF)))
		goto destroy_attr;
	rc = posix_spawn(pid, prog, &fa, &at, argv, environ);
destroy_attr:
	posix_spawnattr_destroy(&at);
destroy_actions:
	posix_spawn_file_actions_destroy(&fa);
	return rc;
}

/* gnuplot's messages on one line: blank lines and the lines that only
 * point at a column (spaces and '^') are left out. */
static void weft__plot_messages(const char *text, char *out, size_t size)
{
	size_t n = 0;

	out[0] = '\0';
	for (const char *line = text; *line && n + 1 < size;) {
		size_t len = strcspn(line, "\r\n");
		size_t lead = strspn(line, " \t");
		if (strspn(line, " \t^") < len)
			n += (size_t)snprintf(out + n, size - n, "%s%.*s",
					      n ? " / " : "", (int)(len - lead),
					      line + lead);
		line += len;
		line += strspn(line, "\r\n");
	}
}

/* $WEFT_GNUPLOT_TIMEOUT: the seconds gnuplot may take (60 by default). */
static double weft__plot_timeout(void)
{
	const char *text = getenv("WEFT_GNUPLOT_TIMEOUT");
	char *end;
	double v = text && text[0] ? strtod(text, &end) : 0.0;

	return text && text[0] && !*end && v > 0.0 && v <= 86400.0 ? v : 60.0;
}

/* Why the child gnuplot drew nothing, into why (unchanged when it exited
 * with status 0). */
static void weft__plot_why(const char *gnuplot, weft__child_end end, int status,
			   double timeout, const char *msgs, char *why,
			   size_t size)
{
	char sig[32];

	if (end == WEFT__CHILD_TIMEOUT)
		weft__fmt(why, size,
			  "%s did not finish in %g s and was killed "
			  "(WEFT_GNUPLOT_TIMEOUT)",
			  gnuplot, timeout);
	else if (WIFSIGNALED(status)) {
		weft__signal_name(WTERMSIG(status), sig, sizeof sig);
		weft__fmt(why, size, "%s was killed by signal %d (%s)%s%s",
			  gnuplot, WTERMSIG(status), sig, msgs[0] ? ": " : "",
			  msgs);
	} else if (WEXITSTATUS(status) != 0)
		weft__fmt(why, size, "%s exited with status %d%s%s", gnuplot,
			  WEXITSTATUS(status), msgs[0] ? ": " : "", msgs);
}

/* Run gnuplot and wait for it, up to its time limit: 0 when it exited
 * with status 0, -1 with why it did not draw in why, WEFT_E_CANCELLED
 * (gnuplot killed) when the run was cancelled meanwhile. */
int weft__plot_gnuplot(weft_context *ctx, const char *gnuplot,
		       char *const argv[], char *why, size_t size)
{
	char text[2048], msgs[320];
	double timeout = weft__plot_timeout();
	weft__child_end end;
	int fds[2], rc, status;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) != 0) {
		weft__fmt(why, size,
			  "cannot make a pipe for gnuplot's messages: %s",
			  strerror(errno));
		return -1;
	}
	rc = weft__plot_spawn(gnuplot, argv, fds[1], &pid);
	close(fds[1]);
	if (rc) {
		close(fds[0]);
		weft__fmt(why, size, "cannot run %s: %s", gnuplot,
			  strerror(rc));
		return -1;
	}
	end = weft__child_wait(ctx, pid, fds[0], timeout, text, sizeof text,
			       &status);
	if (end == WEFT__CHILD_CANCELLED)
		return WEFT_E_CANCELLED;
	weft__plot_messages(text, msgs, sizeof msgs);
	weft__plot_why(gnuplot, end, status, timeout, msgs, why, size);
	return why[0] ? -1 : 0;
}
