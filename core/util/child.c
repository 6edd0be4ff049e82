/*
 * core/util/child.c - waiting for a child process with a time limit: the
 * plugins' probes (loader.c) and gnuplot (plot.c).
 *
 * The child holds the only write end of a pipe, which closes when it
 * exits, crashes or is killed: the parent sleeps in poll() on the read end,
 * waking every 20 ms to look at the context's cancellation, and kills the
 * child (SIGKILL) once its time is up or the context was cancelled. No
 * signal handler is involved (the library installs none).
 */
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHILD_TICK_MS 20

static void child_kill(pid_t pid, int *status)
{
	kill(pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
}

/* Milliseconds to the deadline (at most a tick), 0 when it has passed. */
static int child_left_ms(uint64_t deadline)
{
	uint64_t now = weft__now_ns();

	if (now >= deadline)
		return 0;
	return deadline - now > CHILD_TICK_MS * 1000000ull
		       ? CHILD_TICK_MS
		       : (int)((deadline - now) / 1000000u) + 1;
}

/* Keep what fits of a read in out[0..size), NUL-terminated. */
static void child_keep(char *out, size_t size, size_t *n, const char *buf,
		       size_t got)
{
	size_t take;

	if (!out || !size)
		return;
	take = *n + 1 < size ? size - 1 - *n : 0;
	take = take < got ? take : got;
	memcpy(out + *n, buf, take);
	*n += take;
	out[*n] = '\0';
}

/* Read what is there (fd is non-blocking once the child has ended). */
static int child_read(int fd, char *out, size_t size, size_t *n)
{
	char buf[4096];
	ssize_t got = read(fd, buf, sizeof buf);

	if (got > 0)
		child_keep(out, size, n, buf, (size_t)got);
	return got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)
		       ? -1
		       : (int)(got > 0);
}

weft__child_end weft__child_wait(const weft_context *ctx, pid_t pid, int fd,
				 double timeout_s, char *out, size_t size,
				 int *status)
{
	uint64_t deadline = weft__now_ns() + (uint64_t)(timeout_s * 1e9);
	struct timespec tick = { 0, 1000000 };
	struct pollfd p = { .fd = fd, .events = POLLIN };
	weft__child_end end = WEFT__CHILD_DONE;
	size_t n = 0;
	int eof = 0, ms;

	if (out && size)
		out[0] = '\0';
	*status = 0;
	for (;;) {
		if (weft__cancelled(ctx) ||
		    (ms = child_left_ms(deadline)) == 0) {
			end = weft__cancelled(ctx) ? WEFT__CHILD_CANCELLED
						   : WEFT__CHILD_TIMEOUT;
			child_kill(pid, status);
			break;
		}
		/* Until the pipe closes, sleep in poll(); then, while the
		 * child is still ending, in short ticks. */
		if (!eof && poll(&p, 1, ms) > 0)
			eof = child_read(fd, out, size, &n) < 0;
		else if (eof)
			nanosleep(&tick, NULL);
		if (waitpid(pid, status, WNOHANG) == pid) {
			/* A process it started may hold the pipe: read
			 * only what is there. */
			fcntl(fd, F_SETFL, O_NONBLOCK);
			while (!eof && child_read(fd, out, size, &n) > 0)
				;
			break;
		}
	}
	close(fd);
	return end;
}

void weft__signal_name(int sig, char *buf, size_t size)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		weft__fmt(buf, size, "SIG%s", abbrev);
	else
		weft__fmt(buf, size, "signal %d", sig);
}
