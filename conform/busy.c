/*
 * conform/busy.c - busy work queued ahead of the operation a lifetime or
 * ordering test is about, so that the operation surely overlaps queued
 * work on a backend that runs work later, whatever the machine's load.
 *
 * The busy work is one launch of cf_spin (conform.wk), calibrated once per
 * group to last about BUSY_TARGET_NS: the shortest of three timed runs is
 * its duration d. A test calls weft__ct_busy() right before the operation
 * under test and weft__ct_busy_check() right after issuing it (or after
 * it returned, for the calls that must never wait). On a backend that
 * returned from the busy step() quickly, the busy work cannot have
 * completed before d / 4 has passed since step() was called (it may run
 * faster than when it was calibrated, if the machine's load changed, but
 * not four times faster): an operation issued within d / 4 overlapped it
 * for sure. If it was not (the host thread was descheduled longer than
 * that), weft__ct_overlap() runs the test again
 * with the busy work doubled, up to BUSY_TRIES times, so that no test
 * passes only because the queue was quick. A backend that ran the busy
 * step() at issue runs work as it is issued: there is no queue to
 * overlap, and the test stands as it ran. It ran it at issue when step()
 * took half of d or more and the caller's thread spent a quarter of d of
 * CPU time in it (the host backends run a one-item launch on the caller's
 * thread); a step() that took long because the thread was descheduled (a
 * wake-up of the backend's own thread preempting it, under load) spent
 * none. So does a backend that ran it on the caller's thread during a
 * later call (the CUDA backend on the stand-in runtime of
 * tests/plugins/cuda-mock.c, which makes progress at every call): an
 * operation that came late is not a miss when the caller's thread spent a
 * quarter of d or more of CPU time since the busy step() was called. A
 * call that waits by blocking spends next to none, and a host thread
 * descheduled spends none: those are misses. When the three timed runs
 * of the calibration all ran at issue, the backend has no queue (the
 * host backends): its tests get a busy launch of one round, which keeps
 * their sequence of calls and saves the busy time.
 *
 * A call that must never wait (fence(), mem_info(), wait() on a fence
 * issued before the busy work) is timed between weft__ct_nowait_begin()
 * and weft__ct_nowait_end(), by the wall clock and by its thread's CPU
 * time: one that blocked until the busy work had run waited for the
 * queue, and on the last try the test fails saying so.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conform.h"

#define BUSY_TARGET_NS 20000000u /* 20 ms */
#define BUSY_TRIES     WEFT__CT_BUSY_TRIES
#define BUSY_MAX_ITERS 0x40000000u

/* CPU time of the calling thread at the last busy step() (one group runs
 * per process, on one thread). */
static uint64_t busy_cpu0;

/* CPU time the calling thread has spent, in nanoseconds. */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Where cf_spin's item 0 ends after n rounds (conform.wk). */
static uint32_t spin_host(uint32_t n)
{
	uint32_t x = 0x9E3779B9u;

	for (uint32_t k = 0; k < n; k++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
	}
	return x;
}

/* Set the rounds of the busy launch (a blocking write, before any timed
 * window). */
static int busy_set_iters(weft__ct *t, uint32_t n)
{
	if (t->busy_param_n == n)
		return 0;
	if (weft__ct_write(t, t->busy_param, 0, &n, sizeof n, 0))
		return -1;
	t->busy_param_n = n;
	return 0;
}

/* One busy launch of n rounds, run to completion: its wall time. Waited
 * for with sync(), not a blocking read: the ordering group tests that
 * blocking transfers wait, and a backend whose blocking read does not
 * would make the busy work seem to take no time. */
/* One busy launch of n rounds, run to completion: its wall time, and
 * whether step() ran it before returning, on the caller's thread (step()
 * took half of it or more, a quarter of it on this thread's CPU). */
static int busy_time(weft__ct *t, uint32_t n, uint64_t *ns, int *at_issue)
{
	weft_launch l =
		weft__ct_launch(CF_K_SPIN, 1, t->busy_param, t->busy_out);
	uint64_t t0, t1, cpu0, cpu1;

	if (busy_set_iters(t, n))
		return -1;
	cpu0 = thread_cpu_ns();
	t0 = weft__ct_now_ns();
	if (weft__ct_step(t, &l, 1, 1))
		return -1;
	t1 = weft__ct_now_ns();
	cpu1 = thread_cpu_ns();
	if (weft__ct_sync(t))
		return -1;
	*ns = weft__ct_now_ns() - t0;
	*at_issue = t1 - t0 >= *ns / 2 && cpu1 - cpu0 >= *ns / 4;
	return 0;
}

/* Find the rounds that last about BUSY_TARGET_NS, and check the result. */
static int busy_calibrate(weft__ct *t)
{
	uint32_t n = 1u << 16, word = 0;
	uint64_t ns = 0, best = UINT64_MAX;
	int at_issue = 0, all_at_issue = 1;

	weft__ct_phase(t, "calibrating the busy work");
	t->busy_param = weft__ct_alloc(t, 64);
	/* 33 words: a backend running the one-item launch over a whole chunk
	 * of 64 writes into the buffer's own words and tail guard, which the
	 * guard check names, never past the buffer. */
	t->busy_out = t->busy_param ? weft__ct_guarded(t, 33, 0) : NULL;
	if (!t->busy_out)
		return -1;
	for (;;) {
		if (busy_time(t, n, &ns, &at_issue))
			return -1;
		if (ns >= BUSY_TARGET_NS / 8 || n >= BUSY_MAX_ITERS / 2)
			break;
		n *= 2;
	}
	/* Scaled to the target, and again while the shortest of three runs
	 * falls short of half of it: a run the load slowed down (the one the
	 * doubling stopped at) makes the first estimate too small. */
	for (int round = 0; round < 3; round++) {
		if (ns < BUSY_TARGET_NS) {
			uint64_t scaled =
				(uint64_t)n * BUSY_TARGET_NS / (ns ? ns : 1);
			n = scaled > BUSY_MAX_ITERS ? BUSY_MAX_ITERS
						    : (uint32_t)scaled;
		}
		best = UINT64_MAX;
		all_at_issue = 1;
		for (int i = 0; i < 3; i++) {
			if (busy_time(t, n, &ns, &at_issue))
				return -1;
			best = ns < best ? ns : best;
			all_at_issue &= at_issue;
		}
		if (best >= BUSY_TARGET_NS / 2 || n >= BUSY_MAX_ITERS)
			break;
		ns = best;
	}
	if (weft__ct_read(t, &word, t->busy_out, CF_GUARD * 4, 4, 0))
		return -1;
	if (!weft__ct_expect(t, word == spin_host(n),
			     "the suite's busy kernel (cf_spin, %u rounds) "
			     "gave 0x%08x, want 0x%08x",
			     (unsigned)n, (unsigned)word,
			     (unsigned)spin_host(n)))
		return -1;
	t->busy_iters = n;
	t->busy_ns = best;
	/* Three runs in a row ran at issue: a backend with no queue, which
	 * the tests need not keep busy (it saves the busy time per test). */
	t->busy_runs_at_issue = all_at_issue;
	return 0;
}

int weft__ct_busy(weft__ct *t)
{
	/* Static: a backend that keeps the caller's launch array and reads
	 * it when the launch runs (a broken one) must still find the busy
	 * launch there, so that the test under way names what it does
	 * wrong, rather than the child crashing on a dead stack frame. */
	static weft_launch l;
	uint64_t n, t1;

	if (t->busy_failed)
		return !weft__ct_expect(t, 0,
					"no busy work: its calibration failed "
					"earlier in this group");
	if (!t->busy_iters && busy_calibrate(t)) {
		t->busy_failed = 1; /* once: not again at every test */
		return -1;
	}
	if (t->busy_runs_at_issue) {
		/* No queue to overlap: one round keeps the tests' sequence of
		 * calls without their time. */
		l = weft__ct_launch(CF_K_SPIN, 1, t->busy_param, t->busy_out);
		t->busy_at_issue = 1;
		t->busy_t0 = weft__ct_now_ns();
		return busy_set_iters(t, 1) || weft__ct_step(t, &l, 1, 1) ? -1
									  : 0;
	}
	n = (uint64_t)t->busy_iters << t->busy_try;
	if (busy_set_iters(t,
			   n > BUSY_MAX_ITERS ? BUSY_MAX_ITERS : (uint32_t)n))
		return -1;
	l = weft__ct_launch(CF_K_SPIN, 1, t->busy_param, t->busy_out);
	busy_cpu0 = thread_cpu_ns();
	t->busy_t0 = weft__ct_now_ns();
	if (weft__ct_step(t, &l, 1, 1))
		return -1;
	t1 = weft__ct_now_ns();
	t->busy_at_issue = t1 - t->busy_t0 >= t->busy_ns / 2 &&
			   thread_cpu_ns() - busy_cpu0 >= t->busy_ns / 4;
	return 0;
}

int weft__ct_busy_check(weft__ct *t)
{
	uint64_t d = t->busy_ns << t->busy_try;

	/* Within d / 4: the busy work may run faster than when it was
	 * calibrated (the load changed), but not four times faster. */
	if (!t->busy_at_issue && weft__ct_now_ns() - t->busy_t0 >= d / 4) {
		if (thread_cpu_ns() - busy_cpu0 >= d / 4)
			t->busy_at_issue = 1; /* it ran on this thread */
		else
			t->busy_missed = 1;
	}
	return !t->busy_missed;
}

void weft__ct_overlap(weft__ct *t, void (*try_fn)(weft__ct *t, void *arg),
		      void *arg)
{
	for (t->busy_try = 0; t->busy_try < BUSY_TRIES; t->busy_try++) {
		t->busy_missed = 0;
		try_fn(t, arg);
		if (t->why[0] || !t->busy_missed)
			break;
	}
	if (t->busy_try == BUSY_TRIES)
		weft__ct_expect(t, 0,
				"the operation under test could not be issued "
				"while busy work (%llu ms, doubled %d times) "
				"was queued: the host thread was held up "
				"longer than that each time",
				(unsigned long long)(t->busy_ns / 1000000u),
				BUSY_TRIES - 1);
	t->busy_try = 0;
	t->busy_missed = 0;
}

void weft__ct_overlap_test(weft__ct *t, const char *promise,
			   void (*try_fn)(weft__ct *t, void *arg), void *arg)
{
	weft__ct_begin(t, "%s", promise);
	weft__ct_overlap(t, try_fn, arg);
	weft__ct_end(t);
}

/* ---- calls that must never wait ---------------------------------------- */

void weft__ct_nowait_begin(weft__ct_timed *c)
{
	c->c0 = thread_cpu_ns();
	c->t0 = weft__ct_now_ns();
	c->t1 = c->c1 = 0;
}

/* The busy work lasts about d, and more than d / 2 however the machine's
 * load changes. A call made d / 4 or more after it was queued is too late
 * to tell: weft__ct_busy_check() decides (a miss, unless the backend ran
 * the busy work on this thread meanwhile). One made earlier that returned
 * within d / 4 did not wait. One that took d / 4 or more waited for the
 * queue - blocked, or spinning on its thread's CPU, as CUDA's and NVIDIA
 * OpenCL's waits do by default, so the CPU time it spent does not excuse
 * it - or was descheduled that long: a miss, and when the last try misses
 * too, the test fails naming the call and the rule. */
int weft__ct_nowait_end(weft__ct *t, weft__ct_timed *c, const char *call,
			const char *rule)
{
	uint64_t d = t->busy_ns << t->busy_try, took, cpu;

	c->t1 = weft__ct_now_ns();
	c->c1 = thread_cpu_ns();
	took = c->t1 - c->t0;
	cpu = c->c1 - c->c0;
	if (t->busy_at_issue)
		return 1;
	if (c->t0 - t->busy_t0 >= d / 4) /* too late to tell */
		return weft__ct_busy_check(t);
	if (took < d / 4)
		return 1;
	t->busy_missed = 1;
	if (t->busy_try == BUSY_TRIES - 1)
		weft__ct_expect(t, 0,
				"%s took %llu ms (%llu ms of it on its "
				"thread's CPU), right after busy work of %llu "
				"ms was queued, on the last of %d tries with "
				"the busy work doubled: it waited for the "
				"queue (%s)",
				call, (unsigned long long)(took / 1000000u),
				(unsigned long long)(cpu / 1000000u),
				(unsigned long long)(d / 1000000u), BUSY_TRIES,
				rule);
	return 0;
}

void weft__ct_busy_release(weft__ct *t)
{
	weft__ct_free(t, t->busy_param);
	weft__ct_free(t, t->busy_out);
	t->busy_param = t->busy_out = NULL;
	t->busy_iters = 0;
	t->busy_param_n = 0;
	t->busy_failed = 0;
}
