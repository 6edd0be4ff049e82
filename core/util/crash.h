/*
 * core/util/crash.h - which plugin's code is running (crash.c): the core
 * records, around each call into a plugin, the plugin file and the hook,
 * so that the weft command can name them when that code crashes (a fatal
 * signal: cli/weft.c's handler) or does not return after a SIGINT (its
 * signal thread). Plain C and <weft/common.h> only: the weft command
 * includes this header too, for the two functions libweft exports to it
 * (weft__crash_where(), weft__crash_setup_call()), which are no part of
 * the public interface.
 */
#ifndef WEFT_CRASH_H
#define WEFT_CRASH_H

#include <stddef.h>
#include <stdint.h>
#include <weft/common.h>

/* One call into a plugin, in the caller's frame from weft__crash_set()
 * to weft__crash_clear(). Calls nest: a backend's alloc() inside a
 * model's setup() is the innermost, and names the backend. */
typedef struct weft__in_plugin {
	const char *kind; /* "model", "backend" */
	const char *path; /* the plugin file */
	const char *hook; /* "setup()", "step()" */
	/* Nothing a run keeps is under way (the hooks before its first
	 * step): the weft command may end the process on the first signal
	 * when such a call does not return. */
	int setup;
	const struct weft__in_plugin *outer; /* the call this one is in */
} weft__in_plugin;

/* The calling thread enters plugin code: kind's plugin at path (NULL:
 * unknown), its hook. at lives until weft__crash_clear(at). */
void weft__crash_set(weft__in_plugin *at, const char *kind, const char *path,
		     const char *hook, int setup);
/* The call at returned: the thread is back in the call at was in. */
void weft__crash_clear(const weft__in_plugin *at);
/* The file of the shared object that holds addr (a model's descriptor:
 * its plugin), or NULL; valid while that object is loaded. */
const char *weft__crash_file(const void *addr);

/* For the weft command. The innermost plugin call under way in the
 * calling thread, or else the outermost one entered last by any thread
 * (a backend's worker thread runs the model's kernels inside the main
 * thread's step()), NULL when none: async-signal-safe, for a handler of
 * a fatal signal. */
WEFT_EXPORT const weft__in_plugin *weft__crash_where(void);
/* The setup call under way (weft__in_plugin.setup) that was entered
 * last, in any thread: "model plugin PATH, setup()" into buf, and a
 * number that changes whenever such a call is entered or returns (0 and
 * "" when none is under way). */
WEFT_EXPORT uint64_t weft__crash_setup_call(char *buf, size_t size);

#endif /* WEFT_CRASH_H */
