/*
 * conform/driver.c - the conformance suite's driver (weft_conform_run):
 * options, the list of groups, one fork()ed child per group, and the TAP
 * it prints.
 *
 * The driver never loads the plugin itself: GPU drivers do not survive a
 * fork(), so every child loads it afresh, and a first child (the load
 * step) finds out whether it loads at all and whether its probe says it
 * can run here. Each child writes protocol lines (conform.h) to a pipe;
 * the driver numbers the results as they come and turns a child killed by
 * a signal, or still running after the timeout (then killed), into one
 * failed test naming the test that was under way, followed by a
 * diagnostic saying what runs next: the other groups still run. The
 * groups whose outcome can depend on timing (lifetime, ordering, fence) run
 * opt->repeat times, each run in its own child, their lines labelled
 * "GROUP (run r of K)". The plan ("1..N") is printed last, once the count
 * is known.
 */
#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conform.h"

#define DEFAULT_TIMEOUT_S 120u
#define MAX_REPEAT	  1000u

static const weft__ct_group groups[] = {
	{ "entry", "the entry's name, version, description, size and ABI", 0,
	  weft__ct_group_entry },
	{ "probe", "available, score in range, only looks, fills only its size",
	  0, weft__ct_group_probe },
	{ "open", "the default device opens, a missing one is refused, close",
	  0, weft__ct_group_open },
	{ "alloc", "0 bytes to 64 MiB, distinct handles, free(NULL), counters",
	  WEFT__CT_DEVICE, weft__ct_group_alloc },
	{ "align", "every buffer is 64-byte aligned where kernels see it",
	  WEFT__CT_DEVICE | WEFT__CT_PROGRAM, weft__ct_group_align },
	{ "transfer",
	  "round trips of every direction, size and offset; memmove",
	  WEFT__CT_DEVICE, weft__ct_group_transfer },
	{ "async-order", "asynchronous work is observed in issue order",
	  WEFT__CT_DEVICE | WEFT__CT_PROGRAM, weft__ct_group_async },
	{ "invalid-args", "bad arguments are refused, say why, change nothing",
	  WEFT__CT_DEVICE | WEFT__CT_PROGRAM, weft__ct_group_invalid },
	{ "oversize", "impossible allocations fail naming the bytes; no harm",
	  WEFT__CT_DEVICE, weft__ct_group_oversize },
	{ "guard", "launches write nothing past their extent",
	  WEFT__CT_DEVICE | WEFT__CT_PROGRAM, weft__ct_group_guard },
	{ "step", "a step's launches run in order, n times",
	  WEFT__CT_DEVICE | WEFT__CT_PROGRAM, weft__ct_group_step },
	{ "device-extent", "extents read on the device when the launch runs",
	  WEFT__CT_DEVICE | WEFT__CT_PROGRAM, weft__ct_group_extent },
	{ "counters", "launches, steps, transfers and syncs counted exactly",
	  WEFT__CT_DEVICE | WEFT__CT_PROGRAM, weft__ct_group_counters },
	{ "fence",
	  "wait() on a fence delivers earlier async reads; tokens; counted",
	  WEFT__CT_DEVICE | WEFT__CT_PROGRAM, weft__ct_group_fence },
	{ "native",
	  "native() describes a buffer's memory, stably; host memory is it",
	  WEFT__CT_DEVICE | WEFT__CT_PROGRAM, weft__ct_group_native },
	{ "replicas",
	  "step_replicas() gives each replica what step() gives it alone",
	  WEFT__CT_DEVICE | WEFT__CT_PROGRAM, weft__ct_group_replicas },
	{ "lifetime",
	  "buffers, programs and launch lists released under queued work",
	  WEFT__CT_DEVICE | WEFT__CT_PROGRAM, weft__ct_group_lifetime },
	{ "ordering",
	  "blocking transfers wait for earlier work; async write memory",
	  WEFT__CT_DEVICE | WEFT__CT_PROGRAM, weft__ct_group_ordering },
	{ "kernel-stats",
	  "launches per kernel counted exactly; timed when profiling", 0,
	  weft__ct_group_kstats },
	{ "floats",
	  "f32 and f64 arithmetic, sqrt, conversions: the host's bits",
	  WEFT__CT_DEVICE | WEFT__CT_PROGRAM, weft__ct_group_floats },
	{ "blocks",
	  "scans, reductions, sort, compaction, histogram: bit for bit",
	  WEFT__CT_DEVICE | WEFT__CT_PROGRAM, weft__ct_group_blocks },
	{ "math", "weft/math.h's f64 and f32 functions: the host's bits",
	  WEFT__CT_DEVICE | WEFT__CT_PROGRAM, weft__ct_group_math },
	{ "models",
	  "every model gives the reference backend's state and outputs, "
	  "also resumed from a checkpoint; an environment model's act and "
	  "reset_some give the reference's results, step by step",
	  0, weft__ct_group_models },
};
#define N_GROUPS (sizeof groups / sizeof groups[0])

size_t weft_conform_group_count(void)
{
	return N_GROUPS;
}

weft_status weft_conform_group_info(size_t i, const char **name,
				    const char **summary)
{
	if (i >= N_GROUPS || !name || !summary)
		return WEFT_E_INVALID;
	*name = groups[i].name;
	*summary = groups[i].summary;
	return WEFT_OK;
}

/* ---- the driver's state -------------------------------------------------- */

typedef struct drv {
	const weft_conform_options *opt;
	weft_context *ctx;
	FILE *tap;
	char scratch[PATH_MAX];
	unsigned timeout_s;
	unsigned n, failed; /* results printed, failed ones */
	const char *group;  /* the group whose child runs */
	unsigned runs;	    /* how many times it runs; 0: the load step */
	char label[96];	    /* how its results start: "GROUP", or "GROUP
			     * (run r of K)" when repeated */
	char next[96];	    /* the label of the child after it; "": none */
	char last[1024];    /* the last test or phase it started */
	int ended;	    /* it reported the end of its group */
	char load_kind;	    /* 'P', 'L' or 'X' from the load step */
	char load_text[CT_MSG_MAX];
	char line[8192]; /* a protocol line being received */
	size_t line_len;
} drv;

/* A result line: a text starting "GROUP:" is printed with the child's
 * label instead of the group's name (the run of a repeated group). */
static void drv_result(drv *d, const char *status, const char *text)
{
	size_t n = strlen(d->group);

	if (strncmp(text, d->group, n) == 0 && text[n] == ':')
		fprintf(d->tap, "%s %u - %s%s\n", status, ++d->n, d->label,
			text + n);
	else
		fprintf(d->tap, "%s %u - %s\n", status, ++d->n, text);
}

/* One protocol line from a child. */
static void drv_line(drv *d, const char *line)
{
	const char *text = line[0] && line[1] == ' ' ? line + 2 : "";

	switch (line[0]) {
	case 'S': weft__ct_fmt(d->last, sizeof d->last, "%s", text); break;
	case 'O': drv_result(d, "ok", text); break;
	case 'N':
		d->failed++;
		drv_result(d, "not ok", text);
		break;
	case 'D': fprintf(d->tap, "# %s\n", text); break;
	case 'E': d->ended = 1; break;
	case 'P':
	case 'L':
	case 'X':
		d->load_kind = line[0];
		weft__ct_fmt(d->load_text, sizeof d->load_text, "%s", text);
		break;
	}
	fflush(d->tap);
}

/* Bytes from a child's pipe, cut into lines (over-long ones truncated). */
static void drv_feed(drv *d, const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			d->line[d->line_len] = '\0';
			drv_line(d, d->line);
			d->line_len = 0;
		} else if (d->line_len + 1 < sizeof d->line) {
			d->line[d->line_len++] = buf[i];
		}
	}
}

/* ---- what a child runs --------------------------------------------------- */

static void load_step(weft__ct *t)
{
	char why[CT_MSG_MAX], text[CT_MSG_MAX + 512];
	int unavailable;
	weft_status st;

	weft__ct_phase(t, "loading %s", t->opt->plugin);
	st = weft__ct_load(t, &unavailable, why, sizeof why);
	if (st == WEFT_OK) {
		weft__ct_fmt(text, sizeof text, "%s\t%s\t%s", t->vt->name,
			     t->vt->version ? t->vt->version : "(no version)",
			     weft_backend_plugin_path(t->plugin));
		weft__ct_line(t->out, 'P', text);
	} else if (unavailable) {
		weft__ct_line(t->out, 'X', why);
	} else {
		weft__ct_line(t->out, 'L', weft_context_error(t->ctx));
	}
	weft__ct_unload(t);
}

/* Load the plugin, open what the group needs, run it, close. Setup is
 * reported only when it fails. */
static void run_group(weft__ct *t, const weft__ct_group *g)
{
	char why[CT_MSG_MAX];
	int unavailable;

	weft__ct_begin(t, "setup: the plugin loads%s%s",
		       g->needs & WEFT__CT_DEVICE ? ", its device opens" : "",
		       g->needs & WEFT__CT_PROGRAM
			       ? " and loads the suite's kernels"
			       : "");
	if (weft__ct_load(t, &unavailable, why, sizeof why) != WEFT_OK) {
		weft__ct_expect(t, 0, "%s", weft_context_error(t->ctx));
		goto unload;
	}
	if (g->needs & WEFT__CT_DEVICE)
		t->dev = weft__ct_open(t);
	if (t->dev && (g->needs & WEFT__CT_PROGRAM))
		t->prog = weft__ct_program(t);
	if (t->why[0]) {
		weft__ct_end(t);
		goto close;
	}
	g->run(t);
close:
	weft__ct_busy_release(t);
	if (t->prog) {
		weft__ct_phase(t, "unloading the suite's kernels");
		t->vt->unload_program(t->dev, t->prog);
	}
	if (t->dev) {
		weft__ct_phase(t, "closing the device");
		t->vt->close(t->dev);
	}
unload:
	if (t->why[0])
		weft__ct_end(t);
	weft__ct_unload(t);
}

/* The body of a child (or of an in-process run): g NULL is the load step. */
static void child_body(const drv *d, const weft__ct_group *g, FILE *out)
{
	weft_context *ctx = NULL;
	weft__ct t;

	memset(&t, 0, sizeof t);
	t.opt = d->opt;
	t.group = g ? g->name : "load";
	t.scratch = d->scratch;
	t.out = out;
	if (weft_context_new(&ctx) != WEFT_OK) {
		weft__ct_line(out, 'L', "out of memory");
		return;
	}
	t.ctx = ctx;
	if (g)
		run_group(&t, g);
	else
		load_step(&t);
	weft__ct_line(out, 'E', "");
	weft_context_free(ctx);
}

/* ---- running a child ----------------------------------------------------- */

static const char *signal_name(int sig)
{
	static const struct {
		int sig;
		const char *name;
	} names[] = {
		{ SIGSEGV, "SIGSEGV" },	    { SIGBUS, "SIGBUS" },
		{ SIGILL, "SIGILL" },	    { SIGFPE, "SIGFPE" },
		{ SIGABRT, "SIGABRT" },	    { SIGKILL, "SIGKILL" },
		{ SIGTERM, "SIGTERM" },	    { SIGINT, "SIGINT" },
		{ SIGHUP, "SIGHUP" },	    { SIGQUIT, "SIGQUIT" },
		{ SIGPIPE, "SIGPIPE" },	    { SIGALRM, "SIGALRM" },
		{ SIGTRAP, "SIGTRAP" },	    { SIGSYS, "SIGSYS" },
		{ SIGXCPU, "SIGXCPU" },	    { SIGXFSZ, "SIGXFSZ" },
		{ SIGUSR1, "SIGUSR1" },	    { SIGUSR2, "SIGUSR2" },
		{ SIGVTALRM, "SIGVTALRM" }, { SIGPROF, "SIGPROF" },
	};

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].sig == sig)
			return names[i].name;
	return NULL;
}

/* What was under way, without the group's name it starts with. */
static const char *drv_during(const drv *d)
{
	size_t n = strlen(d->group);

	if (!d->last[0])
		return "start-up";
	if (strncmp(d->last, d->group, n) == 0 && d->last[n] == ':' &&
	    d->last[n + 1] == ' ')
		return d->last + n + 2;
	return d->last;
}

/* After a child that did not end normally: one diagnostic saying what
 * the suite does next. */
static void drv_report_next(drv *d, int timed_out)
{
	char killed[128] = "";

	if (timed_out)
		weft__ct_fmt(killed, sizeof killed,
			     "its child was killed with SIGKILL after %u s "
			     "(--timeout gives each group more); ",
			     d->timeout_s);
	if (!d->runs)
		fprintf(d->tap,
			"# %sno group runs: the load step must end to tell "
			"whether the plugin loads and can run here\n",
			killed);
	else if (d->next[0])
		fprintf(d->tap,
			"# %sthe rest of group %s did not run; the suite goes "
			"on with group %s\n",
			killed, d->label, d->next);
	else
		fprintf(d->tap,
			"# %sthe rest of group %s did not run; it was the last "
			"group to run\n",
			killed, d->label);
}

/* A child that did not end its group normally: one failed test naming
 * the test or phase under way. */
static void drv_report_end(drv *d, int status, int timed_out)
{
	char what[128];

	if (timed_out)
		weft__ct_fmt(what, sizeof what, "did not finish in %u s",
			     d->timeout_s);
	else if (WIFSIGNALED(status) && signal_name(WTERMSIG(status)))
		weft__ct_fmt(what, sizeof what, "crashed with %s",
			     signal_name(WTERMSIG(status)));
	else if (WIFSIGNALED(status))
		weft__ct_fmt(what, sizeof what, "crashed with signal %d",
			     WTERMSIG(status));
	else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
		weft__ct_fmt(what, sizeof what, "exited with status %d",
			     WEXITSTATUS(status));
	else if (!d->ended)
		weft__ct_fmt(what, sizeof what,
			     "exited with status 0 before its end");
	else
		return;
	d->failed++;
	fprintf(d->tap, "not ok %u - %s: %s in \"%s\"\n", ++d->n, d->label,
		what, drv_during(d));
	drv_report_next(d, timed_out);
	fflush(d->tap);
}

static int ms_left(uint64_t deadline)
{
	uint64_t now = weft__ct_now_ns();

	if (now >= deadline)
		return 0;
	return (int)((deadline - now) / 1000000u) + 1;
}

/* Wait for the child, killing it at the deadline; returns 1 when it had
 * to be killed. */
static int drv_wait(pid_t pid, uint64_t deadline, int *status)
{
	int killed = 0;

	for (;;) {
		pid_t r = waitpid(pid, status, killed ? 0 : WNOHANG);
		if (r == pid)
			return killed;
		if (r < 0 && errno != EINTR)
			return killed;
		if (r == 0 && ms_left(deadline) == 0) {
			kill(pid, SIGKILL);
			killed = 1;
		} else if (r == 0) {
			poll(NULL, 0, 5);
		}
	}
}

/* Read the child's lines until it closes the pipe or the deadline. */
static void drv_collect(drv *d, int fd, pid_t pid)
{
	uint64_t deadline =
		weft__ct_now_ns() + (uint64_t)d->timeout_s * 1000000000u;
	int status = 0, killed = 0;
	char buf[4096];

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int left = ms_left(deadline), r;
		ssize_t n;

		if (left == 0)
			break;
		r = poll(&p, 1, left);
		if (r <= 0)
			continue; /* EINTR, or the deadline: looked at above */
		n = read(fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		drv_feed(d, buf, (size_t)n);
	}
	killed = drv_wait(pid, deadline, &status);
	if (d->line_len) /* a last line without its newline */
		drv_feed(d, "\n", 1);
	drv_report_end(d, status, killed);
}

static weft_status drv_fork(drv *d, const weft__ct_group *g)
{
	int fds[2];
	pid_t pid;

	if (pipe(fds) != 0)
		return weft_context_fail(d->ctx, WEFT_E_IO,
					 "conform: cannot create a pipe: %s",
					 strerror(errno));
	fflush(d->tap);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return weft_context_fail(
			d->ctx, WEFT_E_IO,
			"conform: cannot fork a child for group %s: "
			"%s",
			d->group, strerror(errno));
	}
	if (pid == 0) {
		FILE *out;

		close(fds[0]);
		/* Whatever the plugin prints stays out of the TAP stream. */
		dup2(STDERR_FILENO, STDOUT_FILENO);
		out = fdopen(fds[1], "w");
		if (!out)
			_exit(127);
		/* A backstop, should the driver be gone. */
		alarm(d->timeout_s + 30);
		child_body(d, g, out);
		fclose(out);
		_exit(0);
	}
	close(fds[1]);
	drv_collect(d, fds[0], pid);
	close(fds[0]);
	return WEFT_OK;
}

/* isolate = 0: the same body in this process, through a temporary file. */
static weft_status drv_inline(drv *d, const weft__ct_group *g)
{
	FILE *f = tmpfile();
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!f)
		return weft_context_fail(
			d->ctx, WEFT_E_IO,
			"conform: cannot create a temporary file: %s",
			strerror(errno));
	child_body(d, g, f);
	rewind(f);
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		drv_line(d, line);
	}
	free(line);
	fclose(f);
	return WEFT_OK;
}

/* The groups about work that runs later, whose outcome could depend on
 * timing: --repeat runs them again. */
static int timing_group(const weft__ct_group *g)
{
	return strcmp(g->name, "lifetime") == 0 ||
	       strcmp(g->name, "ordering") == 0 ||
	       strcmp(g->name, "fence") == 0;
}

/* How many times group g runs: each run is a child of its own. */
static unsigned group_runs(const drv *d, const weft__ct_group *g)
{
	return timing_group(g) && d->opt->repeat > 1 ? d->opt->repeat : 1;
}

/* "GROUP", or "GROUP (run r of K)" when it runs more than once. */
static void group_label(char *buf, size_t size, const char *name, unsigned run,
			unsigned runs)
{
	if (runs > 1)
		weft__ct_fmt(buf, size, "%s (run %u of %u)", name, run, runs);
	else
		weft__ct_fmt(buf, size, "%s", name);
}

/* Run the load step (g NULL; runs 0) or run `run` of `runs` of a group,
 * each in a child of its own. */
static weft_status drv_run(drv *d, const weft__ct_group *g, unsigned run,
			   unsigned runs)
{
	d->group = g ? g->name : "load";
	d->runs = runs;
	group_label(d->label, sizeof d->label, d->group, run, runs);
	d->last[0] = '\0';
	d->ended = 0;
	d->line_len = 0;
	return d->opt->isolate ? drv_fork(d, g) : drv_inline(d, g);
}

/* ---- options ------------------------------------------------------------- */

static const weft__ct_group *group_find(const char *name, size_t n)
{
	for (size_t i = 0; i < N_GROUPS; i++)
		if (strlen(groups[i].name) == n &&
		    strncmp(groups[i].name, name, n) == 0)
			return &groups[i];
	return NULL;
}

static weft_status unknown_group(weft_context *ctx, const char *s, size_t n)
{
	const char *names[N_GROUPS], *hint;
	char word[64], list[512] = "";

	for (size_t i = 0; i < N_GROUPS; i++) {
		names[i] = groups[i].name;
		weft__ct_fmt(list + strlen(list), sizeof list - strlen(list),
			     "%s%s", i ? ", " : "", groups[i].name);
	}
	weft__ct_fmt(word, sizeof word, "%.*s", (int)n, s);
	/* A group that begins like the word: "fenc", "transfers". */
	hint = NULL;
	for (size_t i = 0; !hint && n >= 3 && i < N_GROUPS; i++)
		if (strncmp(names[i], word, 3) == 0)
			hint = names[i];
	return weft_context_fail(
		ctx, WEFT_E_INVALID,
		"no conformance group named '%s'%s%s%s (groups: %s)", word,
		hint ? "; did you mean '" : "", hint ? hint : "",
		hint ? "'?" : "", list);
}

/* Mark the groups `only` names (all when NULL or empty). */
static weft_status select_groups(weft_context *ctx, const char *only,
				 int *selected)
{
	int any = 0;

	for (size_t i = 0; i < N_GROUPS; i++)
		selected[i] = !only;
	for (const char *s = only; s && *s; s += *s == ',') {
		size_t n = strcspn(s, ",");
		const weft__ct_group *g = group_find(s, n);

		if (n && !g)
			return unknown_group(ctx, s, n);
		if (g) {
			selected[g - groups] = 1;
			any = 1;
		}
		s += n;
	}
	if (only && !any)
		for (size_t i = 0; i < N_GROUPS; i++)
			selected[i] = 1;
	return WEFT_OK;
}

static weft_status check_options(weft_context *ctx,
				 const weft_conform_options *opt, FILE *tap,
				 int *n_failed)
{
	if (!opt || !tap || !n_failed)
		return weft_context_fail(ctx, WEFT_E_INVALID,
					 "weft_conform_run: NULL argument");
	if (opt->struct_size < sizeof *opt)
		return weft_context_fail(
			ctx, WEFT_E_INVALID,
			"weft_conform_run: options struct_size %u, "
			"expected %zu",
			(unsigned)opt->struct_size, sizeof *opt);
	if (opt->repeat > MAX_REPEAT)
		return weft_context_fail(
			ctx, WEFT_E_INVALID,
			"weft_conform_run: repeat %u is out of range: 0 to %u "
			"(0 and 1: each group runs once)",
			opt->repeat, MAX_REPEAT);
	if (!opt->plugin || !opt->plugin[0])
		return weft_context_fail(
			ctx, WEFT_E_INVALID,
			"no plugin given: a path to "
			"weft-backend-NAME.so or a backend name");
	return WEFT_OK;
}

/* ---- the scratch directory ----------------------------------------------- */

static weft_status scratch_make(drv *d)
{
	const char *base = getenv("TMPDIR");

	if (!base || base[0] != '/')
		base = "/tmp";
	weft__ct_fmt(d->scratch, sizeof d->scratch, "%s/weft-conform-XXXXXX",
		     base);
	if (!mkdtemp(d->scratch))
		return weft_context_fail(d->ctx, WEFT_E_IO,
					 "conform: cannot create a temporary "
					 "directory under %s: %s",
					 base, strerror(errno));
	return WEFT_OK;
}

static int remove_entry(const char *path, const struct stat *sb, int flag,
			struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void scratch_remove(drv *d)
{
	nftw(d->scratch, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- the run ------------------------------------------------------------- */

/* The label of what runs after run `run` of group i, into d->next ("" when
 * nothing does). */
static void drv_next(drv *d, const int *selected, size_t i, unsigned run)
{
	unsigned runs = group_runs(d, &groups[i]);

	d->next[0] = '\0';
	if (run < runs) {
		group_label(d->next, sizeof d->next, groups[i].name, run + 1,
			    runs);
		return;
	}
	for (size_t j = i + 1; j < N_GROUPS; j++)
		if (selected[j]) {
			group_label(d->next, sizeof d->next, groups[j].name, 1,
				    group_runs(d, &groups[j]));
			return;
		}
}

/* With --repeat: a diagnostic naming the groups it repeats. */
static void drv_repeat_note(drv *d, const int *selected)
{
	char list[128] = "";
	unsigned n = 0;

	for (size_t i = 0; i < N_GROUPS; i++)
		if (selected[i] && group_runs(d, &groups[i]) > 1)
			weft__ct_fmt(list + strlen(list),
				     sizeof list - strlen(list), "%s%s",
				     n++ ? " and " : "", groups[i].name);
	if (n)
		fprintf(d->tap,
			"# %s run%s %u times (--repeat), each run in a child "
			"of its own\n",
			list, n == 1 ? "s" : "", d->opt->repeat);
}

/* After the load step: skip, fail, or run the selected groups. */
static weft_status drv_groups(drv *d, const int *selected)
{
	char *tab, *tab2;
	weft_status st = WEFT_OK;

	if (d->load_kind == 'X') {
		tab = strchr(d->load_text, '\t');
		if (tab)
			*tab = '\0';
		fprintf(d->tap, "1..0 # SKIP %s: %s\n", d->load_text,
			tab ? tab + 1 : "unavailable");
		return WEFT_OK;
	}
	if (d->load_kind != 'P') {
		if (d->load_kind == 'L') {
			d->failed++;
			fprintf(d->tap, "not ok %u - load: %s\n", ++d->n,
				d->load_text);
		}
		fprintf(d->tap, "1..%u\n", d->n);
		return WEFT_OK;
	}
	tab = strchr(d->load_text, '\t');
	tab2 = tab ? strchr(tab + 1, '\t') : NULL;
	if (tab && tab2) {
		*tab = *tab2 = '\0';
		if (d->opt->model && d->opt->model[0])
			fprintf(d->tap,
				"# weft conform: model %s, against backend "
				"%s %s (%s)\n",
				d->opt->model, d->load_text, tab + 1, tab2 + 1);
		else
			fprintf(d->tap, "# weft conform: backend %s %s (%s)\n",
				d->load_text, tab + 1, tab2 + 1);
	}
	drv_repeat_note(d, selected);
	for (size_t i = 0; st == WEFT_OK && i < N_GROUPS; i++) {
		unsigned runs = selected[i] ? group_runs(d, &groups[i]) : 0;

		for (unsigned r = 1; st == WEFT_OK && r <= runs; r++) {
			drv_next(d, selected, i, r);
			st = drv_run(d, &groups[i], r, runs);
		}
	}
	fprintf(d->tap, "1..%u\n", d->n);
	return st;
}

weft_status weft_conform_run(weft_context *ctx, const weft_conform_options *opt,
			     FILE *tap, int *n_failed)
{
	int selected[N_GROUPS];
	drv *d;
	weft_status st;

	if ((st = check_options(ctx, opt, tap, n_failed)) ||
	    (st = select_groups(
		     ctx, opt->model && opt->model[0] ? "models" : opt->only,
		     selected)))
		return st;
	*n_failed = 0;
	d = calloc(1, sizeof *d);
	if (!d)
		return weft_context_fail(ctx, WEFT_E_NOMEM, "out of memory");
	d->opt = opt;
	d->ctx = ctx;
	d->tap = tap;
	d->timeout_s = opt->timeout_s ? opt->timeout_s : DEFAULT_TIMEOUT_S;
	if ((st = scratch_make(d)))
		goto free_driver;
	st = drv_run(d, NULL, 0, 0);
	if (st == WEFT_OK)
		st = drv_groups(d, selected);
	fflush(tap);
	*n_failed = (int)d->failed;
	scratch_remove(d);
free_driver:
	free(d);
	return st;
}
