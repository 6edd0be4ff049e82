/*
 * mpi/weft-mpi.c - an ensemble's runs spread over MPI ranks:
 *
 *   mpirun -n K weft-mpi run ENSEMBLE.ini [--set section.key=value]...
 *   mpirun -n K weft-mpi check ENSEMBLE.ini
 *
 * On weft's public API only (weft.h's ensembles, spread over processes
 * with weft/distribute.h). Every rank reads and validates the file; rank
 * 0 locks the output directory and makes the set the runs are written
 * into (weft_ensemble_begin), and every other rank
 * writes its runs' outputs there (weft_ensemble_attach: a directory all
 * ranks see, as on one machine or a shared filesystem). Rank 0 is a
 * dynamic work queue: it hands out run indices, two to a rank at first
 * and one for each result it gets back, so that a rank has its next run
 * at hand while it reports the last; it runs runs itself between
 * answering (with one rank, it runs them all, as `weft run` does). The
 * work is a batch of runs: [ensemble] batch runs of a scenario stepped
 * together (weft_ensemble_batch_at, weft_ensemble_run_batch), one run
 * when batch is 1. A batch's results (each run's series, or its failure)
 * go to rank 0 in one message, each as the bytes of weft_ensemble_result();
 * rank 0 aggregates them in run order (weft_ensemble_finish), so the
 * aggregates are the same bytes for any K and any batch.
 *
 * Devices: with [backend] device empty and Open MPI's local rank known
 * (OMPI_COMM_WORLD_LOCAL_RANK), a rank uses device LOCAL_RANK mod D of
 * the backend, D the devices its probe lists, when there is more than
 * one.
 *
 * A run that fails is reported with its scenario and seed; the others
 * still run, and the exit status is 1. A rank that dies ends the job:
 * Open MPI's mpirun terminates every process when one exits abnormally
 * (its default), so rank 0 never waits forever for a dead rank.
 */
#include "config.h"

#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weft/distribute.h>
#include <weft/weft.h>

#include "ensemble-print.h"

/* rank 0 -> a rank: int64 first run and count (-1, 0: no more) */
#define TAG_WORK 1
/* a rank -> rank 0: int64 first run (-1: hello) and count, the results */
#define TAG_RESULT 2

typedef struct mpi_run {
	weft_context *ctx;
	weft_config *cfg;
	weft_ensemble *e;
	int rank, size;
	int64_t next; /* rank 0: the next run to hand out */
	size_t in;    /* rank 0: results in */
	int hellos;   /* rank 0: ranks that asked for work */
} mpi_run;

static int usage(void)
{
	fprintf(stderr, "usage: mpirun -n K weft-mpi run|check CONFIG "
			"[--set section.key=value]...\n");
	return 2;
}

/* ---- devices --------------------------------------------------------- */

/* The devices a probe lists ("0: NAME; 1: NAME"): its "N:" entries. */
static int count_devices(const char *devices)
{
	int n = 0;

	for (const char *p = devices; p && *p; p++)
		if ((p == devices || p[-1] == ' ') && *p >= '0' && *p <= '9' &&
		    p[strspn(p, "0123456789")] == ':')
			n++;
	return n;
}

/* backend.device = LOCAL_RANK mod D (docs above). */
static weft_status pick_device(mpi_run *m)
{
	const char *local = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
	const char *name = weft_config_get(m->cfg, "backend", "name");
	const char *dev = weft_config_get(m->cfg, "backend", "device");
	const weft_backend_info *best = NULL;
	weft_backend_list *l;
	char set[64];
	int d;

	if (!local || (dev && *dev) ||
	    weft_backends_scan(
		    m->ctx, weft_config_get(m->cfg, "backend", "plugin_path"),
		    &l) != WEFT_OK)
		return WEFT_OK;
	for (size_t i = 0; i < weft_backend_list_count(l); i++) {
		const weft_backend_info *b = weft_backend_list_at(l, i);
		if (strcmp(b->state, "available") != 0 || b->shadowed)
			continue;
		if (strcmp(name, "auto") == 0 ? !best || b->score > best->score
					      : strcmp(b->name, name) == 0)
			best = b;
	}
	d = best ? count_devices(best->devices) : 0;
	weft_backend_list_free(l);
	if (d <= 1)
		return WEFT_OK;
	snprintf(set, sizeof set, "backend.device=%d", atoi(local) % d);
	return weft_config_set(m->ctx, m->cfg, set);
}

/* ---- setting up ---------------------------------------------------------- */

/* Load, override, validate, expand: every rank the same. */
static weft_status open_all(mpi_run *m, int argc, char **argv)
{
	weft_status st;

	if ((st = weft_config_load(m->ctx, argv[2], &m->cfg)))
		return st;
	for (int i = 3; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--set") == 0 && i + 1 < argc)
			a = argv[++i];
		else if (strncmp(a, "--set=", 6) == 0)
			a += 6;
		else
			return weft_context_fail(m->ctx, WEFT_E_INVALID,
						 "unknown argument '%s'", a);
		if ((st = weft_config_set(m->ctx, m->cfg, a)))
			return st;
	}
	if (!weft_config_is_ensemble(m->cfg))
		return weft_context_fail(m->ctx, WEFT_E_CONFIG,
					 "%s is not an ensemble (no [ensemble] "
					 "runs, [sweep] or [scenario NAME]): "
					 "run it with weft run",
					 argv[2]);
	if ((st = pick_device(m)))
		return st;
	return weft_ensemble_open(m->ctx, m->cfg, &m->e);
}

/* Whether every rank succeeded. Rank 0 says why it failed; another
 * rank, only when rank 0 did not fail (a plugin missing on its node). */
static int all_ok(mpi_run *m, weft_status st)
{
	int ok = st == WEFT_OK, ok0 = ok, all = 0;

	MPI_Bcast(&ok0, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (!ok && m->rank == 0)
		fprintf(stderr, "weft-mpi: %s\n", weft_context_error(m->ctx));
	else if (!ok && ok0)
		fprintf(stderr, "weft-mpi: rank %d: %s\n", m->rank,
			weft_context_error(m->ctx));
	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	return all;
}

/* Rank 0 begins the set; the others attach to it. The stage is sent in
 * a path's buffer: one longer (which the system would not have made) is
 * an error, never sent cut. */
static weft_status share_stage(mpi_run *m)
{
	weft_status st = m->rank == 0 ? weft_ensemble_begin(m->e) : WEFT_OK;
	const char *mine = m->rank == 0 ? weft_ensemble_stage(m->e) : "";
	char stage[PATH_MAX] = "";
	int ok;

	if (st == WEFT_OK && strlen(mine) >= sizeof stage)
		st = weft_context_fail(m->ctx, WEFT_E_INVALID,
				       "the ensemble's stage %.60s... is %zu "
				       "bytes; a path holds at most %zu",
				       mine, strlen(mine), sizeof stage - 1);
	ok = st == WEFT_OK;

	MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (!ok)
		return m->rank == 0 ? st
				    : weft_context_fail(m->ctx, WEFT_E_IO,
							"rank 0 could not "
							"begin the ensemble");
	if (m->rank == 0)
		memcpy(stage, mine, strlen(mine) + 1);
	MPI_Bcast(stage, sizeof stage, MPI_CHAR, 0, MPI_COMM_WORLD);
	return m->rank == 0 ? WEFT_OK : weft_ensemble_attach(m->e, stage);
}

/* ---- rank 0: the queue -----------------------------------------------------
 */

/* Hand out the next batch of runs ({first, count}; {-1, 0}: no more). */
static void give_work(mpi_run *m, int to)
{
	int64_t w[2] = { -1, 0 };

	if (m->next < (int64_t)weft_ensemble_run_count(m->e)) {
		w[0] = m->next;
		w[1] = (int64_t)weft_ensemble_batch_at(m->e, (size_t)m->next);
		m->next += w[1];
	}
	MPI_Send(w, 2, MPI_INT64_T, to, TAG_WORK, MPI_COMM_WORLD);
}

/* A batch's results as sent (send_results): first, count, then per run
 * its bytes' length and its bytes. */
static weft_status add_results(mpi_run *m, const unsigned char *buf,
			       size_t bytes)
{
	int64_t h[2];
	size_t at = sizeof h;
	weft_status st = WEFT_OK;

	if (bytes < sizeof h)
		return weft_context_fail(m->ctx, WEFT_E_INVALID,
					 "a message of %zu bytes that is not "
					 "a batch's results",
					 bytes);
	memcpy(h, buf, sizeof h);
	for (int64_t j = 0; st == WEFT_OK && j < h[1]; j++) {
		uint64_t len;

		if (bytes - at < sizeof len)
			break;
		memcpy(&len, buf + at, sizeof len);
		at += sizeof len;
		if (bytes - at < len)
			break;
		st = weft_ensemble_add_result(m->e, (size_t)(h[0] + j),
					      buf + at, (size_t)len);
		at += (size_t)len;
		m->in++;
	}
	if (st == WEFT_OK && at != bytes)
		st = weft_context_fail(m->ctx, WEFT_E_INVALID,
				       "the results of runs %lld to %lld came "
				       "truncated (%zu bytes)",
				       (long long)h[0] + 1,
				       (long long)(h[0] + h[1]), bytes);
	return st;
}

/* Take one message (a hello or a batch's results) and answer it. */
static weft_status serve_one(mpi_run *m, const MPI_Status *probe)
{
	unsigned char *buf;
	int bytes;
	int64_t first;
	weft_status st = WEFT_OK;

	MPI_Get_count(probe, MPI_BYTE, &bytes);
	buf = malloc(bytes > 0 ? (size_t)bytes : 1);
	if (!buf)
		return weft_context_fail(m->ctx, WEFT_E_NOMEM, "out of memory");
	MPI_Recv(buf, bytes, MPI_BYTE, probe->MPI_SOURCE, TAG_RESULT,
		 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	memcpy(&first, buf, sizeof first);
	if (first < 0) {
		m->hellos++;
		give_work(m, probe->MPI_SOURCE);
	} else {
		st = add_results(m, buf, (size_t)bytes);
	}
	free(buf);
	give_work(m, probe->MPI_SOURCE);
	return st;
}

/* Answer what has arrived (wait: until something has). */
static weft_status serve(mpi_run *m, int wait)
{
	MPI_Status probe;
	int there = 0;
	weft_status st = WEFT_OK;

	for (;;) {
		if (wait && !there)
			MPI_Probe(MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD,
				  &probe);
		else
			MPI_Iprobe(MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD,
				   &there, &probe);
		if (!wait && !there)
			return st;
		if ((st = serve_one(m, &probe)))
			return st;
		if (wait)
			return st;
	}
}

static weft_status run_root(mpi_run *m)
{
	size_t n = weft_ensemble_run_count(m->e);
	weft_status st = WEFT_OK;

	while (st == WEFT_OK && m->next < (int64_t)n) {
		size_t i = (size_t)m->next;
		size_t k = weft_ensemble_batch_at(m->e, i);

		m->next += (int64_t)k;
		st = weft_ensemble_run_batch(m->e, i, k);
		m->in += st == WEFT_OK ? k : 0;
		if (st == WEFT_OK)
			st = serve(m, 0);
	}
	while (st == WEFT_OK && (m->in < n || m->hellos < m->size - 1))
		st = serve(m, 1);
	return st;
}

/* ---- the other ranks
 * ---------------------------------------------------------- */

/* Hello: first -1, count 0, nothing more. */
static void send_hello(void)
{
	int64_t h[2] = { -1, 0 };

	MPI_Send(h, (int)sizeof h, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
}

/* Runs first .. first + count - 1's results, in one message. */
static weft_status send_results(mpi_run *m, int64_t first, int64_t count)
{
	int64_t h[2] = { first, count };
	unsigned char *buf = malloc(sizeof h), *grown;
	size_t at = sizeof h;
	weft_status st = WEFT_OK;

	if (!buf)
		return weft_context_fail(m->ctx, WEFT_E_NOMEM, "out of memory");
	memcpy(buf, h, sizeof h);
	for (int64_t j = 0; st == WEFT_OK && j < count; j++) {
		const void *data;
		size_t bytes;
		uint64_t len;

		if ((st = weft_ensemble_result(m->e, (size_t)(first + j), &data,
					       &bytes)))
			break;
		if (!(grown = realloc(buf, at + sizeof len + bytes))) {
			st = weft_context_fail(m->ctx, WEFT_E_NOMEM,
					       "out of memory");
			break;
		}
		buf = grown;
		len = bytes;
		memcpy(buf + at, &len, sizeof len);
		memcpy(buf + at + sizeof len, data, bytes);
		at += sizeof len + bytes;
	}
	if (st == WEFT_OK)
		MPI_Send(buf, (int)at, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
	free(buf);
	return st;
}

static void recv_work(int64_t w[2])
{
	MPI_Recv(w, 2, MPI_INT64_T, 0, TAG_WORK, MPI_COMM_WORLD,
		 MPI_STATUS_IGNORE);
}

/* Hello (two batches come back), then the results of each batch (one
 * comes back each); after the first -1, the answer to the last results is
 * -1 too. */
static weft_status run_worker(mpi_run *m)
{
	int64_t w[2];
	weft_status st = WEFT_OK;

	send_hello();
	recv_work(w);
	while (st == WEFT_OK && w[0] >= 0) {
		st = weft_ensemble_run_batch(m->e, (size_t)w[0], (size_t)w[1]);
		if (st == WEFT_OK)
			st = send_results(m, w[0], w[1]);
		recv_work(w);
	}
	if (st == WEFT_OK)
		recv_work(w);
	return st;
}

/* ---- what rank 0 prints
 * --------------------------------------------------------- */

static int report(mpi_run *m, double seconds)
{
	char title[64];

	snprintf(title, sizeof title, "ensemble on %d ranks in %.3f s", m->size,
		 seconds);
	return weft_print_ensemble(m->e, "weft-mpi", title);
}

static int run(mpi_run *m)
{
	double t0 = MPI_Wtime();
	weft_status st = share_stage(m);

	if (!all_ok(m, st))
		return 1;
	st = m->rank == 0 ? run_root(m) : run_worker(m);
	if (st == WEFT_OK && m->rank == 0)
		st = weft_ensemble_finish(m->e);
	if (st) {
		fprintf(stderr, "weft-mpi: rank %d: %s\n", m->rank,
			weft_context_error(m->ctx));
		MPI_Abort(MPI_COMM_WORLD, 1);
		return 1;
	}
	return m->rank == 0 ? report(m, MPI_Wtime() - t0) : 0;
}

static int check(mpi_run *m, const char *path)
{
	size_t n = weft_ensemble_scenario_count(m->e);

	if (m->rank)
		return 0;
	printf("%s: ok on %d ranks\n", path, m->size);
	printf("  %-20s %zu runs: %zu scenario%s x %zu seeds\n", "ensemble",
	       weft_ensemble_run_count(m->e), n, n == 1 ? "" : "s",
	       weft_ensemble_run_count(m->e) / n);
	return 0;
}

int main(int argc, char **argv)
{
	mpi_run m = { 0 };
	int rc;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &m.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &m.size);
	if (argc < 3 ||
	    (strcmp(argv[1], "run") != 0 && strcmp(argv[1], "check") != 0)) {
		rc = m.rank == 0 ? usage() : 2;
		goto finalize;
	}
	if (weft_context_new(&m.ctx)) {
		rc = 1;
		goto finalize;
	}
	if (!all_ok(&m, open_all(&m, argc, argv)))
		rc = 1;
	else if (strcmp(argv[1], "check") == 0)
		rc = check(&m, argv[2]);
	else
		rc = run(&m);
	weft_ensemble_close(m.e);
	weft_config_free(m.cfg);
	weft_context_free(m.ctx);
finalize:
	MPI_Finalize();
	return rc;
}
