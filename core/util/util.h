/*
 * core/util/util.h - the bottom layer of the core: the context and its
 * messages, strings and paths, child processes, ELF checks. Everything
 * in core/ may include it; it includes nothing of core/ but the build's
 * config.h.
 */
#ifndef WEFT_UTIL_H
#define WEFT_UTIL_H

#include "config.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/types.h>
#include <weft/backend.h>
#include <weft/distribute.h>
#include <weft/harness.h>
#include <weft/model.h>
#include <weft/weft.h>

#define WEFT__MSG_MAX 2048

struct weft_context {
	char msg[WEFT__MSG_MAX];
	/* Set by weft_context_cancel(), from any thread or a signal
	 * handler (lock-free: context.c asserts it). */
	atomic_int cancelled;
	/* weft_context_set_progress(): called by weft__progress(). */
	weft_progress_fn progress;
	void *progress_user;
};

/* ---- util.c ------------------------------------------------------------- */

/* weft_status_str(): the status in words. */
const char *weft__status_str(weft_status st);
/* Set the context's message and return st. */
weft_status weft__fail(weft_context *ctx, weft_status st, const char *fmt, ...)
	WEFT_PRINTF(3, 4);
weft_status weft__vfail(weft_context *ctx, weft_status st, const char *fmt,
			va_list ap);
/* Bounded formatting into a fixed buffer; always NUL-terminates. */
void weft__fmt(char *buf, size_t size, const char *fmt, ...) WEFT_PRINTF(3, 4);
/* Append to a NUL-terminated message, cutting what does not fit. */
void weft__msg_add(char *buf, size_t size, const char *fmt, ...)
	WEFT_PRINTF(3, 4);
char *weft__strdup(const char *s);
/* text[0..len) with control characters and DEL written as \xNN, so
 * that raw bytes of a value never reach a terminal; cut to fit. */
void weft__escape(char *buf, size_t size, const char *text, size_t len);
/* "FILE:LINE: [section] key = value", or "[section] key = value (the
 * default)" when where is "default" or NULL: the start of a message about
 * a key's value. */
void weft__where_key(char *buf, size_t size, const char *where,
		     const char *section, const char *key, const char *value);
/* "dir/file", without doubling a trailing slash; NULL when out of
 * memory. */
char *weft__path_join(const char *dir, const char *file);
/* a followed by b in new memory; NULL when out of memory. */
char *weft__strcat(const char *a, const char *b);
/* A path formatted into buf[size] (a path buffer: PATH_MAX, the most a
 * path given to the system may hold). When it does not fit, buf is ""
 * and WEFT_E_INVALID says so, naming it by its start and end and its
 * length: "WHAT /tmp/aaa...aaa/runs/base/101 (4,123 bytes): too long, a
 * path holds at most 4,095 bytes". Never a cut path. */
weft_status weft__fmt_path(weft_context *ctx, char *buf, size_t size,
			   const char *what, const char *fmt, ...)
	WEFT_PRINTF(5, 6);
/* path for a message: whole when short, else its first and last bytes
 * around "..." and its length, "/tmp/aaa...aaa/out (4,012 bytes)";
 * control characters escaped. */
void weft__path_shown(char *buf, size_t size, const char *path);
/* Edit distance, capped (returns cap when greater). */
size_t weft__edit_distance(const char *a, const char *b, size_t cap);
/* The candidate closest to word, or NULL when none is close enough to be
 * a plausible typo. */
const char *weft__closest(const char *word, const char *const *cands, size_t n);

/* rm -r path, not following symbolic links; what cannot be removed
 * stays. */
void weft__rm_tree(const char *path);
/* Open path (relative to the directory dfd, or AT_FDCWD) to read it,
 * when it is a regular file of at most max_bytes (UINT64_MAX: no bound):
 * *fd (blocking, close-on-exec) and its size in *size. A FIFO, a device,
 * a socket or a directory is refused without being read, and a FIFO
 * with no writer without waiting for one (it is opened O_NONBLOCK). The
 * messages name the file as shown ("configuration file a.ini"): "cannot
 * open SHOWN: REASON", "SHOWN is a FIFO (named pipe), not a regular file:
 * ...", "cannot read SHOWN: Is a directory", "SHOWN has N bytes, more
 * than the MAX it may hold"; WEFT_E_IO, with errno open()'s when the open
 * failed, else 0 (so that ENOENT can be told apart). */
weft_status weft__open_regular(weft_context *ctx, int dfd, const char *path,
			       const char *shown, uint64_t max_bytes, int *fd,
			       uint64_t *size);
/* Monotonic clock in nanoseconds. */
uint64_t weft__now_ns(void);

/* ---- hooks.c or nohooks.c: test hooks --------------------------------------
 */

/* A test hook: the value of the environment variable WEFT_TEST_<name>
 * ("COMMIT_KILL": WEFT_TEST_COMMIT_KILL) in a library configured with
 * --enable-test-hooks, NULL when it is unset; NULL always in a release
 * build (core/util/nohooks.c). Every hook goes through it: no other
 * file reads a WEFT_TEST_ variable or names one. */
const char *weft__test_hook(const char *name);

/* ---- context.c ------------------------------------------------------------
 */

/* weft_context_error(): the last message ("no context" when ctx is
 * NULL). */
const char *weft__context_error(const weft_context *ctx);
/* Report progress to ctx's callback, if any (ctx may be NULL). */
void weft__progress(weft_context *ctx, const char *what, uint64_t done,
		    uint64_t total);
/* 1 when ctx (may be NULL) was cancelled. */
int weft__cancelled(const weft_context *ctx);
/* WEFT_E_CANCELLED, with "cancelled while WHAT" as the message. */
weft_status weft__cancel_fail(weft_context *ctx, const char *fmt, ...)
	WEFT_PRINTF(2, 3);

/* ---- elf.c ----------------------------------------------------------------
 */

/* 0 when path is an ELF shared object this process can load that exports
 * symbol as data; otherwise -1, with the loader's stage ("open" or
 * "symbol") in *stage and why in why. Runs none of the file's code. */
int weft__elf_check(const char *path, const char *symbol, const char **stage,
		    char *why, size_t why_size);

/* ---- child.c ---------------------------------------------------------------
 */

/* How a child waited for by weft__child_wait() ended. */
typedef enum weft__child_end {
	WEFT__CHILD_DONE,      /* it exited or was killed: see *status */
	WEFT__CHILD_TIMEOUT,   /* it ran past its time and was killed */
	WEFT__CHILD_CANCELLED, /* ctx was cancelled; it was killed */
} weft__child_end;

/* Wait for child pid: read fd (a pipe whose write end only the child
 * holds, so that it closes when the child ends, crashed or not) until its
 * end, keeping what fits in out (NUL-terminated; out may be NULL), then
 * reap it. The child is killed with SIGKILL once it has run timeout_s
 * seconds, or as soon as ctx is cancelled. Closes fd. */
weft__child_end weft__child_wait(const weft_context *ctx, pid_t pid, int fd,
				 double timeout_s, char *out, size_t size,
				 int *status);
/* "SIGSEGV", or "signal N", for messages. */
void weft__signal_name(int sig, char *buf, size_t size);

/* ---- value.c: a text value against its declaration -------------------- */

#define WEFT__BOOL_SPELLINGS "true/false, yes/no, on/off or 1/0"

/* strtod() in the C locale whatever the application chose. */
double weft__parse_real(const char *s, char **end);
/* 1 when s is a boolean spelling, with its value in *b. */
int weft__parse_bool(const char *s, int *b);
/* The choices of an ENUM key, split at '|'. */
struct weft__choices {
	char buf[512];
	const char *name[64];
	size_t n;
};
void weft__choices_split(const char *list, struct weft__choices *c);
/* "; did you mean 'steps'?" when a name is close to word, else
 * "; <label> a, b, c" listing every valid name. */
void weft__suggest(char *buf, size_t size, const char *word,
		   const char *const *names, size_t n, const char *l,
		   const char *r, const char *label);
/* Check text against its declaration; on failure sets
 * "WHERE: [SECTION] KEY = TEXT: what is wrong" and returns
 * WEFT_E_CONFIG. */
weft_status weft__value_check(weft_context *ctx, const char *where,
			      const char *section, const weft_key_desc *d,
			      const char *text);

#endif /* WEFT_UTIL_H */
