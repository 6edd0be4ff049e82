/*
 * core/plugin/isolate.c - looking at a plugin without letting it touch this
 * process: its file is read as ELF first (elf.c: refused there, none of its
 * code runs anywhere), then a fork()ed child loads it, checks its entry and,
 * for a backend, calls its probe, and hands the outcome back through shared
 * memory. A child that crashes or does not answer in time (5 s, or
 * $WEFT_PROBE_TIMEOUT seconds) becomes a reason ("probe crashed with
 * SIGSEGV", "probe did not answer in 5 s") like any other, and the parent
 * has loaded nothing: listings and `auto` never load the plugins they pass
 * over, and a plugin's constructors (and probe) run in this process only
 * for the one plugin used (weft__plugin_attach).
 *
 * WEFT_PROBE_TIMEOUT=0 loads and probes in this process instead (for
 * debuggers, and for programs that must not fork).
 *
 * GPU drivers do not survive fork(): once this process has started one
 * (a backend used here, or a library such as PyTorch or CuPy), a child's
 * probe of any plugin over that driver says the device cannot start
 * ("initialization error" from CUDA, no device from NVIDIA's OpenCL). So
 * when the child's probe says no and such a driver may be running here,
 * the probe is asked again in this process (driver_here()). A child that
 * crashed or hung is not asked again: isolation still holds for those.
 */
#include "plugin/plugin.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define ISOLATE_TIMEOUT_S 5.0

/* Backends loaded into this process (weft__plugin_attach): any of them
 * may have started a driver that a fork()ed child cannot use. */
static atomic_int attached_here;

/* What the child hands back (an anonymous shared mapping). */
typedef struct isolate_result {
	volatile int at;   /* the stage under way */
	volatile int done; /* the fields below are complete */
	char stage[16];	   /* "" when usable */
	char reason[WEFT__MSG_MAX];
	weft_probe probe;
	char summary[sizeof(((weft__plugin *)0)->summary)];
	char version[sizeof(((weft__plugin *)0)->version)];
	char env[WEFT__ENV_TEXT_MAX]; /* a model's env text, "" for none */
} isolate_result;

weft_status weft__probe_timeout(weft_context *ctx, double *out)
{
	const char *text = getenv("WEFT_PROBE_TIMEOUT");
	char *end;
	double v;

	*out = ISOLATE_TIMEOUT_S;
	if (!text || !text[0])
		return WEFT_OK;
	v = strtod(text, &end);
	if (*end || !(v >= 0.0) || v > 86400.0)
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "WEFT_PROBE_TIMEOUT = '%s': expected the "
				  "seconds a plugin's probe may take (a "
				  "number up to 86400), or 0 to probe in this "
				  "process",
				  text);
	*out = v;
	return WEFT_OK;
}

/* ---- the child ------------------------------------------------------------
 */

static void isolate_copy(char *dst, size_t size, const char *src)
{
	weft__fmt(dst, size, "%s", src ? src : "");
}

static void isolate_child(weft__plugin *p, isolate_result *r)
{
	/* Never outlive the parent (a hung probe would keep running), and
	 * keep standard output, which the parent may be printing a listing
	 * or TAP to, free of the plugin's chatter. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	dup2(STDERR_FILENO, STDOUT_FILENO);
	weft__plugin_load_here(p, 1, &r->at);
	isolate_copy(r->stage, sizeof r->stage, p->stage);
	isolate_copy(r->reason, sizeof r->reason, p->reason);
	r->probe = p->probe;
	isolate_copy(r->summary, sizeof r->summary, p->summary);
	isolate_copy(r->version, sizeof r->version, p->version);
	isolate_copy(r->env, sizeof r->env, p->env);
	r->done = 1;
}

/* ---- the parent -----------------------------------------------------------
 */

static const char *const isolate_stages[] = { "open", "symbol", "version",
					      "check", "probe" };

/* The child's outcome into p. */
static void isolate_take(weft__plugin *p, isolate_result *r)
{
	r->stage[sizeof r->stage - 1] = '\0';
	r->reason[sizeof r->reason - 1] = '\0';
	r->summary[sizeof r->summary - 1] = '\0';
	r->version[sizeof r->version - 1] = '\0';
	r->env[sizeof r->env - 1] = '\0';
	p->probe = r->probe;
	free(p->env);
	p->env = r->env[0] ? weft__strdup(r->env) : NULL;
	isolate_copy(p->summary, sizeof p->summary, r->summary);
	isolate_copy(p->version, sizeof p->version, r->version);
	for (size_t i = 0; i < sizeof isolate_stages / sizeof *isolate_stages;
	     i++)
		if (strcmp(r->stage, isolate_stages[i]) == 0)
			weft__plugin_refuse(p, isolate_stages[i], "%s",
					    r->reason);
}

/* Why the child gave no outcome: it crashed, exited or hung at r->at. */
static void isolate_failed(weft__plugin *p, const isolate_result *r,
			   weft__child_end end, int status, double timeout)
{
	static const char *const doing[] = { "", "loading it",
					     "looking up its entry",
					     "checking its entry", "probe" };
	static const char *const stage[] = { "open", "open", "symbol",
					     "version", "probe" };
	int at = r->at >= WEFT__AT_OPEN && r->at <= WEFT__AT_PROBE
			 ? r->at
			 : WEFT__AT_OPEN;
	char sig[32];

	weft__signal_name(WIFSIGNALED(status) ? WTERMSIG(status) : 0, sig,
			  sizeof sig);
	if (end == WEFT__CHILD_TIMEOUT)
		weft__plugin_refuse(
			p, stage[at], "%s did not %s in %g s%s", doing[at],
			at == WEFT__AT_PROBE ? "answer" : "finish", timeout,
			at == WEFT__AT_OPEN ? " (a constructor hangs?)"
					    : " (WEFT_PROBE_TIMEOUT)");
	else if (WIFSIGNALED(status))
		weft__plugin_refuse(
			p, stage[at], "%s crashed with %s%s", doing[at], sig,
			at == WEFT__AT_OPEN
				? " (in a constructor of the plugin or "
				  "of a library it links)"
				: "");
	else
		weft__plugin_refuse(p, stage[at],
				    "%s: the process exited with status %d (a "
				    "plugin must not call exit())",
				    doing[at], WEXITSTATUS(status));
}

/* Whether a driver that a fork()ed child cannot use may be running in
 * this process: a plugin was loaded here, or a GPU driver library was
 * (by another library: PyTorch, CuPy). RTLD_NOLOAD opens nothing. */
static int driver_here(void)
{
	static const char *const drivers[] = {
		"libcuda.so.1",		 /* NVIDIA CUDA driver */
		"libnvidia-opencl.so.1", /* NVIDIA OpenCL */
		"libamdhip64.so",	 /* AMD HIP */
		"libhsa-runtime64.so.1", /* AMD ROCm (its OpenCL too) */
	};

	if (atomic_load(&attached_here) > 0)
		return 1;
	for (size_t i = 0; i < sizeof drivers / sizeof drivers[0]; i++) {
		void *dl = dlopen(drivers[i], RTLD_LAZY | RTLD_NOLOAD);

		if (dl) {
			dlclose(dl);
			return 1;
		}
	}
	return 0;
}

/* The child's probe returned no (it did not crash or hang): ask again
 * here when a driver running in this process may be why (the file
 * header). p is then loaded here. */
static void isolate_reprobe(weft__plugin *p)
{
	if (!p->stage || strcmp(p->stage, "probe") != 0 || !driver_here())
		return;
	p->stage = NULL;
	p->reason[0] = '\0';
	weft__plugin_load_here(p, 1, NULL);
	if (p->dl)
		atomic_fetch_add(&attached_here, 1);
}

static weft_status isolate_fork(weft_context *ctx, weft__plugin *p,
				isolate_result *r, double timeout)
{
	weft__child_end end;
	int fds[2], status;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) != 0)
		return weft__fail(ctx, WEFT_E_NOMEM,
				  "cannot probe %s: pipe: %s", p->path,
				  strerror(errno));
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		isolate_child(p, r);
		_exit(0);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return weft__fail(ctx, WEFT_E_NOMEM,
				  "cannot probe %s: fork: %s", p->path,
				  strerror(errno));
	}
	end = weft__child_wait(ctx, pid, fds[0], timeout, NULL, 0, &status);
	if (end == WEFT__CHILD_CANCELLED)
		return weft__cancel_fail(ctx, "loading %s", p->path);
	if (end == WEFT__CHILD_DONE && r->done && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0) {
		isolate_take(p, r);
		isolate_reprobe(p);
	} else
		isolate_failed(p, r, end, status, timeout);
	return WEFT_OK;
}

weft_status weft__plugin_inspect(weft_context *ctx, weft__plugin *p,
				 double timeout)
{
	isolate_result *r;
	const char *stage;
	weft_status st;

	if (weft__elf_check(p->path, p->kind->symbol, &stage, p->reason,
			    sizeof p->reason) != 0) {
		p->stage = stage;
		if (strcmp(stage, "symbol") == 0)
			weft__msg_add(p->reason, sizeof p->reason,
				      " (a %s exports its table with %s)",
				      p->kind->noun, p->kind->entry_macro);
		return WEFT_OK;
	}
	if (timeout == 0.0) {
		weft__plugin_load_here(p, 1, NULL);
		return WEFT_OK;
	}
	r = mmap(NULL, sizeof *r, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED)
		return weft__fail(ctx, WEFT_E_NOMEM, "cannot probe %s: %s",
				  p->path, strerror(errno));
	st = isolate_fork(ctx, p, r, timeout);
	munmap(r, sizeof *r);
	return st;
}

weft_status weft__plugin_attach(weft__plugin *p)
{
	/* The plugin used is probed again here, just before it is opened:
	 * what a probe sets up (a driver's threads) is in place as it always
	 * was, and its answer now is the one kept. */
	if (!p->dl && !p->shadowed) {
		p->stage = NULL;
		weft__plugin_load_here(p, 1, NULL);
		if (p->dl && p->kind->probe)
			atomic_fetch_add(&attached_here, 1);
	}
	return p->dl && !p->stage ? WEFT_OK : weft__plugin_status(p);
}
