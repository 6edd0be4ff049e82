/*
 * core/util/crash.c - which plugin's code is running (crash.h).
 *
 * Each thread keeps a pointer to its innermost plugin call (thread-local,
 * one store a call and one a return), which a handler of a fatal signal
 * reads in the thread that crashed; a thread that made no call (a
 * backend's worker running the model's kernels) reads the outermost call
 * made last by any thread. The calls of the setup phase are also
 * copied, under a mutex, into one process-wide record with a serial
 * number, which the weft command's signal thread reads to tell a call
 * that does not return from one that returns.
 */
#include "config.h"

#include "util/crash.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static _Thread_local const weft__in_plugin *volatile crash_now;
/* The outermost plugin call that a thread made last, for a crash in a
 * thread that made none itself: a backend's worker thread running the
 * model's kernels during a step(). */
static _Atomic(const weft__in_plugin *) crash_any;

static pthread_mutex_t setup_mu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t setup_serial; /* under setup_mu */
static char setup_call[4200]; /* under setup_mu; "" when none */

/* The setup record becomes at (NULL or not a setup call: none). */
static void crash_setup_record(const weft__in_plugin *at)
{
	pthread_mutex_lock(&setup_mu);
	if (at && at->setup)
		snprintf(setup_call, sizeof setup_call, "%s plugin %s, %s",
			 at->kind, at->path ? at->path : "(unknown file)",
			 at->hook);
	else
		setup_call[0] = '\0';
	setup_serial++;
	pthread_mutex_unlock(&setup_mu);
}

void weft__crash_set(weft__in_plugin *at, const char *kind, const char *path,
		     const char *hook, int setup)
{
	at->kind = kind;
	at->path = path;
	at->hook = hook;
	at->setup = setup;
	at->outer = crash_now;
	crash_now = at;
	if (!at->outer)
		atomic_store(&crash_any, at);
	if (setup)
		crash_setup_record(at);
}

void weft__crash_clear(const weft__in_plugin *at)
{
	const weft__in_plugin *was = at;

	crash_now = at->outer;
	if (!at->outer)
		atomic_compare_exchange_strong(&crash_any, &was, NULL);
	if (at->setup)
		crash_setup_record(at->outer);
}

const char *weft__crash_file(const void *addr)
{
	Dl_info info;

	if (!addr || !dladdr(addr, &info) || !info.dli_fname ||
	    !info.dli_fname[0])
		return NULL;
	return info.dli_fname;
}

const weft__in_plugin *weft__crash_where(void)
{
	const weft__in_plugin *at = crash_now;

	return at ? at : atomic_load(&crash_any);
}

uint64_t weft__crash_setup_call(char *buf, size_t size)
{
	uint64_t serial;

	pthread_mutex_lock(&setup_mu);
	serial = setup_call[0] ? setup_serial : 0;
	if (size)
		snprintf(buf, size, "%s", setup_call);
	pthread_mutex_unlock(&setup_mu);
	return serial;
}
