/*
 * plugins/openmp/team.c - how many of the device's threads a parallel
 * region uses now, on a machine that other processes share.
 *
 * A parallel region is a fork and a join: every thread of the team must
 * reach the join before the launch is done. When another process keeps a
 * core busy, a thread of ours that shares that core waits for the
 * scheduler's next time slice (milliseconds), while the others spin at the
 * join: on two cores with one of them taken, CartPole's short launches ran
 * 5 to 18 times slower at 2 threads than at 1. So the team is sized by the
 * cores other processes leave free, measured over the last tenth of a
 * second: the machine's busy time (/proc/stat: user, nice, system, irq,
 * softirq, steal) less this process's own CPU time, per second of wall
 * time, is the number of cores others used. The team is the device's
 * threads, or the free cores rounded to the nearest whole (at least 1)
 * when fewer. Results do not change: kernels give the same results on any
 * number of threads (the determinism rules of the kernel dialect).
 *
 * The first estimate, at open, is the number of runnable tasks in
 * /proc/loadavg other than the caller. OMP_DYNAMIC=false in the
 * environment (OpenMP's "do not adjust the number of threads") keeps the
 * team at the device's threads, as does a system without /proc.
 *
 * libgomp reads its spin-wait settings (OMP_WAIT_POLICY, GOMP_SPINCOUNT)
 * once, when it is loaded, which is when this plugin is: before any of its
 * code runs, so the plugin cannot change them without changing the whole
 * process's environment first. A smaller team makes them matter less:
 * threads left out of the team sleep once their spin count runs out.
 */
#include "config.h"

#include <sched.h> /* CPU_COUNT, sched_getaffinity (_GNU_SOURCE: config.h) */
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "priv.h"

/* How long a measurement lasts: /proc/stat counts in ticks (10 ms). */
#define TEAM_PERIOD_NS 100000000u

static uint64_t process_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The machine's busy time in ns (all CPUs), from /proc/stat's first line. */
static int machine_busy_ns(uint64_t *ns)
{
	unsigned long long v[8] = { 0 };
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/stat", "r");
	int n;

	if (!f)
		return -1;
	/* cpu user nice system idle iowait irq softirq steal */
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 7 || hz <= 0)
		return -1;
	*ns = (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) *
	      (1000000000ull / (unsigned long long)hz);
	return 0;
}

/* Tasks runnable now, from /proc/loadavg's fourth field ("2/131"). */
static int runnable_now(void)
{
	FILE *f = fopen("/proc/loadavg", "r");
	double a, b, c;
	int running = -1, total;

	if (!f)
		return -1;
	if (fscanf(f, "%lf %lf %lf %d/%d", &a, &b, &c, &running, &total) != 5)
		running = -1;
	fclose(f);
	return running;
}

static int cpus_usable(void)
{
	cpu_set_t set;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	int n = online > 0 ? (int)online : 1;

	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof set, &set) == 0 &&
	    CPU_COUNT(&set) > 0 && CPU_COUNT(&set) < n)
		n = CPU_COUNT(&set);
	return n;
}

static int team_for(int threads, int cpus, double others)
{
	double free_cores = (double)cpus - others;
	int n = (int)(free_cores + 0.5);

	if (n > threads)
		n = threads;
	return n < 1 ? 1 : n;
}

void weft__omp_team_init(weft_device *dev)
{
	struct weft__omp_team *tm = &dev->team;
	const char *dyn = getenv("OMP_DYNAMIC");
	int running;

	tm->size = dev->threads;
	tm->adapt = dev->threads > 1 && !(dyn && strcasecmp(dyn, "false") == 0);
	if (!tm->adapt)
		return;
	tm->cpus = cpus_usable();
	tm->wall_ns = weft__clock_ns();
	tm->own_ns = process_cpu_ns();
	if (machine_busy_ns(&tm->busy_ns) != 0) {
		tm->adapt = 0; /* no /proc: the device's threads, always */
		return;
	}
	running = runnable_now();
	if (running >= 1)
		tm->size =
			team_for(dev->threads, tm->cpus, (double)(running - 1));
}

/* Measure the cores others used since the last look; set the team. */
static void team_measure(weft_device *dev, uint64_t now)
{
	struct weft__omp_team *tm = &dev->team;
	uint64_t own = process_cpu_ns(), busy;
	double others;

	if (machine_busy_ns(&busy) != 0)
		return;
	others = ((double)(busy - tm->busy_ns) - (double)(own - tm->own_ns)) /
		 (double)(now - tm->wall_ns);
	tm->size = team_for(dev->threads, tm->cpus, others);
	tm->wall_ns = now;
	tm->own_ns = own;
	tm->busy_ns = busy;
}

int weft__omp_team(weft_device *dev)
{
	struct weft__omp_team *tm = &dev->team;
	uint64_t now;

	if (!tm->adapt)
		return dev->threads;
	now = weft__clock_ns();
	if (now - tm->wall_ns >= TEAM_PERIOD_NS)
		team_measure(dev, now);
	return tm->size;
}
