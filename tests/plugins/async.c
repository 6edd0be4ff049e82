/*
 * tests/plugins/async.c - a backend whose queue really is asynchronous, for
 * tests/plugins/test-conform-async.sh: the template backend (plugins/template/
 * template.c, compiled in with its entry renamed) with every operation
 * enqueued to a worker thread that runs it later.
 *
 * Each command is due ASYNC_DELAY_US microseconds after it is issued; the
 * worker sleeps until then, unless the host waits for it (a blocking
 * transfer, sync(), wait(), close()), which makes it and everything before
 * it due at once. So launches, transfers, frees and unloads really do run
 * after the call that issued them returned, in issue order, while the
 * caller goes on. What the caller gives is honoured as backend.h's
 * "Lifetime and ordering" rules say:
 *
 *  - step() copies the launch list (the caller may change it at once);
 *    so does step_replicas(), with the layouts, checked as the template
 *    checks them;
 *  - the host memory of a write, asynchronous or not, is read when the
 *    write runs (the caller's promise, rule 5, is what keeps it valid);
 *    a read fills its host memory when it runs;
 *  - free() and unload_program() take the buffer or program out of the
 *    device's lists at once (so that it cannot be used again), and enqueue
 *    its release: queued work still finds it;
 *  - a blocking transfer waits until the worker has run it.
 *
 * Checks, counters and everything the caller's thread touches stay on the
 * caller's thread; the worker touches only buffer memory, the host memory
 * of transfers, and the kernels it runs, so nothing but the queue needs a
 * lock.
 *
 * tests/plugins/conform-async.am builds it as weft-backend-async.so, which must
 * pass the whole conformance suite, and once per -D flag below as a
 * variant that breaks one rule, which the named group must catch:
 *
 *   ASYNC_FREE_EARLY      free: the memory is released (its contents
 *                         overwritten) at once, under queued work that
 *                         still reads it                     -> lifetime
 *   ASYNC_UNLOAD_EARLY    unload_program: the queued launches of the
 *                         program are dropped                -> lifetime
 *   ASYNC_LAUNCH_BYREF    step: the caller's launch array is read when the
 *                         launches run, not copied            -> lifetime
 *   ASYNC_FREE_XFER       free: released at once (overwritten, its queued
 *                         transfers dropped) when no queued launch binds
 *                         the buffer: transfers are ignored  -> lifetime
 *   ASYNC_FREE_TWICE      free: a second free() of a buffer whose release
 *                         is still queued is counted again    -> lifetime
 *   ASYNC_UNLOAD_FREE     unload_program: the program is released at once
 *                         and its memory goes to the next program loaded,
 *                         whose kernels its queued launches run
 *                                                             -> lifetime
 *   ASYNC_EXTENT_BYREF    step: the list is copied, but extent_buf and
 *                         extent_offset are read through the caller's
 *                         array when the launches run         -> lifetime
 *   ASYNC_CLOSE_EARLY     close: every buffer is released (overwritten)
 *                         before the queue drains             -> lifetime
 *   ASYNC_CLOSE_LATE      close: returns before the queue drains (the
 *                         worker is detached, not joined): queued reads
 *                         land in host memory afterwards      -> lifetime
 *   ASYNC_READ_NOWAIT     read: a blocking read copies the bytes at once,
 *                         before the queued work ran          -> ordering
 *   ASYNC_WRITE_NOWAIT    write: a blocking write lands at once, before
 *                         queued launches that should see the old
 *                         bytes                               -> ordering
 *   ASYNC_WRITE_LATE      write: an asynchronous write is held back until
 *                         the next operation is issued, but a fence does
 *                         not count: wait() on a later fence returns
 *                         before it has read the host memory  -> ordering
 *   ASYNC_COPY_NOWAIT     copy: a blocking copy runs at once on the
 *                         caller's thread, before the queue   -> ordering
 *   ASYNC_READ_LATE       read: an asynchronous read is staged and
 *                         delivered into the caller's memory at the next
 *                         sync() only, not by wait()          -> fence
 *   ASYNC_FENCE_HISTORY   wait: only the last 64 fences are remembered; a
 *                         wait() on an older one returns at once, as if
 *                         it had completed                    -> fence
 *   ASYNC_REPLICA_OVERFLOW step_replicas: the bound r * stride + size <=
 *                         the buffer's size is computed in wrapping
 *                         64-bit arithmetic                   -> replicas
 *   ASYNC_FENCE_WAITS     fence: waits for everything issued before it,
 *                         as sync() does                      -> fence
 *   ASYNC_WAIT_ALL        wait: waits for everything issued, also after
 *                         the fence                           -> fence
 *   ASYNC_SHORT_ALLOC     alloc: buffers of more than 64 bytes are carved
 *                         side by side from a pool, each one 64-byte
 *                         granule shorter than asked, so that its last
 *                         bytes are the next buffer's first -> alloc
 *   ASYNC_CHUNK_OVERRUN   step: a launch runs its items in chunks of 64,
 *                         the last chunk to the next multiple of 64 past
 *                         the extent                          -> guard
 *   ASYNC_ONE_LIST        close: the buffers of every open device are
 *                         kept as one list, and close() of any device
 *                         frees them all (counted as frees of their
 *                         devices)                            -> open
 *   ASYNC_MEMINFO_SYNC    mem_info: waits for the queue first  -> open
 *   ASYNC_MEMINFO_SHORT   mem_info: accepts any struct_size and writes
 *                         the whole struct                    -> open
 *   ASYNC_MEMINFO_KIB     mem_info: sizes in KiB, not bytes    -> open
 *   ASYNC_STEP_WAITS      step: waits for the queue before queueing
 *                         more                                -> step
 *   ASYNC_NATIVE_WAITS    native: waits for the queue first    -> native
 *   ASYNC_SPIN_WAIT       every wait spins on the caller's CPU (not a
 *                         broken rule: with ASYNC_FENCE_WAITS or
 *                         ASYNC_MEMINFO_SYNC, a wait that costs CPU
 *                         time is caught as one that blocks)
 *
 * The variants are built with no delay (ASYNC_DELAY_US=0): the worker
 * runs each command as soon as it reaches it, the queue hardest to catch
 * out. The suite catches them all the same, on every run and under load,
 * because its tests queue busy work ahead of the operation under test
 * (conform/busy.c). The variants are listed, with the test point that
 * catches each, in tests/plugins/conform-async-*.am.
 */
#define weft_backend_entry weft__template_inner
#include "../../plugins/template/template.c"
#undef weft_backend_entry

#include <pthread.h>
#include <sched.h>

#ifndef ASYNC_NAME
#error "ASYNC_NAME must name the plugin (weft-backend-ASYNC_NAME.so)"
#endif
#ifndef ASYNC_DELAY_US
#define ASYNC_DELAY_US 1000
#endif

enum async_kind {
	CMD_WRITE,
	CMD_READ,
	CMD_COPY,
	CMD_STEP,
	CMD_FREE,
	CMD_UNLOAD,
};

/* One queued operation. */
struct async_cmd {
	enum async_kind kind;
	uint64_t seq;	 /* issue number, from 1 */
	uint64_t due_ns; /* when the worker may run it unhurried */
	struct async_cmd *next;
	weft_buf *buf, *src; /* transfers: the device buffer(s); CMD_FREE */
	size_t offset, src_offset, bytes;
	const void *from; /* write: the caller's memory */
	void *to;	  /* read: the caller's memory */
	weft_program *prog;
	const weft_launch *launches; /* step: the list it runs */
	weft_launch *owned;	     /* step: its copy (freed with it) */
	uint32_t n_launches;
	uint64_t n_steps;
	/* step_replicas: the layouts (in owned, after the launches) and the
	 * replicas of each launch; NULL and 0 for step() */
	const weft_replica_layout *layouts;
	uint32_t replicas;
#ifdef ASYNC_EXTENT_BYREF
	const weft_launch *caller; /* step: the caller's list (the bug) */
#endif
};

/* The device handed to callers: the template's device and the queue. */
struct async_dev {
	weft_device *inner; /* buffers, programs, counters: caller's thread */
	pthread_t worker;
	pthread_mutex_t mu;
	pthread_cond_t work; /* a command was queued, or made due */
	pthread_cond_t done; /* a command completed */
	struct async_cmd *head, *tail;
	uint64_t issued;    /* seq of the last command queued */
	uint64_t completed; /* seq of the last command run */
	uint64_t hurry;	    /* commands up to this seq are due now */
	int stop;
	uint64_t
		*fence_seq; /* fence_seq[t - 1]: issued when fence t was made */
	uint64_t n_fences, cap_fences;
#ifdef ASYNC_WRITE_LATE
	struct async_cmd *held; /* async writes held back (a list) */
#endif
#ifdef ASYNC_READ_LATE
	struct async_staged *staged; /* async reads to deliver at sync() */
#endif
#ifdef ASYNC_UNLOAD_FREE
	weft_program *spare; /* released programs, for the next load */
#endif
#ifdef ASYNC_CLOSE_LATE
	int late; /* close() returned at once: the worker releases */
#endif
};

#define AD(dev) ((struct async_dev *)(void *)(dev))

/* ---- ASYNC_SHORT_ALLOC: buffers side by side, each a granule short ----- */

#ifdef ASYNC_SHORT_ALLOC
#define ASYNC_POOL_BYTES ((size_t)64 << 20)
static char *async_pool; /* buffers of more than 64 bytes, side by side */
static size_t async_pool_used;

static int async_in_pool(const void *p)
{
	return async_pool && (const char *)p >= async_pool &&
	       (const char *)p < async_pool + ASYNC_POOL_BYTES;
}

/* The pool's next bytes, one 64-byte granule fewer than bytes rounded up
 * to 64 (the bug), counted as the template counts a buffer. */
static weft_status async_short_alloc(weft_device *inner, size_t bytes,
				     weft_buf **out, weft_error *err)
{
	size_t take = (bytes + 63) / 64 * 64 - 64;
	weft_status st;

	if (!async_pool)
		async_pool = aligned_alloc(64, ASYNC_POOL_BYTES);
	if (!inner || bytes <= 64 || !async_pool ||
	    async_pool_used + bytes > ASYNC_POOL_BYTES)
		return tpl_alloc(inner, bytes, out, err);
	if ((st = tpl_alloc(inner, 0, out, err)) != WEFT_OK)
		return st; /* the handle, counted */
	free((*out)->ptr);
	(*out)->ptr = async_pool + async_pool_used;
	(*out)->size = bytes;
	async_pool_used += take;
	inner->st.bytes_in_use += bytes;
	if (inner->st.bytes_in_use > inner->st.bytes_peak)
		inner->st.bytes_peak = inner->st.bytes_in_use;
	return WEFT_OK;
}

/* Pool memory is never given back: the template's release (close())
 * finds NULL in its place. */
static void async_pool_forget(weft_device *inner)
{
	for (weft_buf *b = inner->bufs; b; b = b->next)
		if (async_in_pool(b->ptr))
			b->ptr = NULL;
}
#define ASYNC_ALLOC(inner, n, out, err) async_short_alloc(inner, n, out, err)
#define ASYNC_RELEASE(p)		(async_in_pool(p) ? (void)0 : free(p))
#define ASYNC_POOL_FORGET(inner)	async_pool_forget(inner)
#else
#define ASYNC_ALLOC(inner, n, out, err) tpl_alloc(inner, n, out, err)
#define ASYNC_RELEASE(p)		free(p)
#define ASYNC_POOL_FORGET(inner)	((void)(inner))
#endif

/* ---- ASYNC_ONE_LIST: every device's buffers released as one list ------- */

#ifdef ASYNC_ONE_LIST
#define ASYNC_MAX_DEVS 16
static weft_device *async_devs[ASYNC_MAX_DEVS]; /* open template devices */

static void async_list_add(weft_device *inner)
{
	for (int i = 0; i < ASYNC_MAX_DEVS; i++)
		if (!async_devs[i]) {
			async_devs[i] = inner;
			return;
		}
}

/* close() of any device releases the buffers of every open device (the
 * bug), counted as frees of their devices. */
static void async_list_close(weft_device *inner)
{
	for (int i = 0; i < ASYNC_MAX_DEVS; i++) {
		weft_device *d = async_devs[i];

		if (d == inner)
			async_devs[i] = NULL;
		while (d && d->bufs)
			tpl_free(d, d->bufs);
	}
}
#define ASYNC_LIST_ADD(inner)	async_list_add(inner)
#define ASYNC_LIST_CLOSE(inner) async_list_close(inner)
#else
#define ASYNC_LIST_ADD(inner)	((void)(inner))
#define ASYNC_LIST_CLOSE(inner) ((void)(inner))
#endif

/* ---- the queue ---------------------------------------------------------- */

static void async_deadline(uint64_t ns, struct timespec *ts)
{
	ts->tv_sec = (time_t)(ns / 1000000000u);
	ts->tv_nsec = (long)(ns % 1000000000u);
}

/* Run a step_replicas() command: each launch `replicas` times, replica r's
 * buffers and count shifted as its layout says (the template's
 * tpl_run_replica). A launch of extent 0 runs no items, and its count need
 * not be read. */
static void async_run_replicas(const struct async_cmd *c)
{
	for (uint64_t s = 0; s < c->n_steps; s++)
		for (uint32_t i = 0; i < c->n_launches; i++)
			for (uint32_t r = 0;
			     c->launches[i].extent && r < c->replicas; r++)
				tpl_run_replica(c->prog, &c->launches[i],
						&c->layouts[i], r);
}

#ifdef ASYNC_CHUNK_OVERRUN
/* One launch of step() in chunks of 64 items, the last chunk not cut at
 * the extent (the bug); a device-side count read as the template reads
 * it. */
static void async_run_chunks(const weft_program *p, const weft_launch *l)
{
	weft_kargs ka;

	memset(&ka, 0, sizeof ka);
	ka.extent = l->extent;
	if (l->extent_buf) {
		uint32_t count;

		memcpy(&count,
		       (const char *)l->extent_buf->ptr + l->extent_offset,
		       sizeof count);
		ka.extent = count < ka.extent ? count : ka.extent;
	}
	for (uint32_t k = 0; k < l->n_bufs; k++)
		ka.buf[k] = l->bufs[k]->ptr;
	for (uint32_t b = 0; b < ka.extent; b += 64)
		p->kernels[l->kernel].fn(&ka, b, b + 64);
}
#define ASYNC_RUN_LAUNCH(p, l) async_run_chunks(p, l)
#else
#define ASYNC_RUN_LAUNCH(p, l) tpl_run_launch(p, l)
#endif

#ifdef ASYNC_EXTENT_BYREF
/* The bug: launch i as copied, but its count's buffer and offset read
 * through the caller's array, now. */
static const weft_launch *async_extent_byref(const struct async_cmd *c,
					     uint32_t i, weft_launch *l)
{
	*l = c->launches[i];
	l->extent_buf = c->caller[i].extent_buf;
	l->extent_offset = c->caller[i].extent_offset;
	return l;
}
#define ASYNC_LAUNCH_OF(c, i) async_extent_byref(c, i, &(weft_launch){ 0 })
#else
#define ASYNC_LAUNCH_OF(c, i) (&(c)->launches[i])
#endif

/* Run one command on the worker thread. */
static void async_run(struct async_cmd *c)
{
	switch (c->kind) {
	case CMD_WRITE:
		if (c->bytes)
			memcpy((char *)c->buf->ptr + c->offset, c->from,
			       c->bytes);
		break;
	case CMD_READ:
		if (c->bytes)
			memcpy(c->to, (const char *)c->buf->ptr + c->offset,
			       c->bytes);
		break;
	case CMD_COPY:
		if (c->bytes)
			memmove((char *)c->buf->ptr + c->offset,
				(const char *)c->src->ptr + c->src_offset,
				c->bytes);
		break;
	case CMD_STEP:
		if (c->layouts) {
			async_run_replicas(c);
			break;
		}
		for (uint64_t s = 0; s < c->n_steps; s++)
			for (uint32_t i = 0; i < c->n_launches; i++)
				ASYNC_RUN_LAUNCH(c->prog,
						 ASYNC_LAUNCH_OF(c, i));
		break;
	case CMD_FREE:
		ASYNC_RELEASE(c->buf->ptr);
		free(c->buf);
		break;
	case CMD_UNLOAD: tpl_program_destroy(c->prog); break;
	}
}

/* The next command, once it is due (NULL when stopping with none left).
 * Called and returns with the lock held. */
static struct async_cmd *async_next(struct async_dev *ad)
{
	for (;;) {
		struct async_cmd *c = ad->head;
		struct timespec ts;

		if (!c) {
			if (ad->stop)
				return NULL;
			pthread_cond_wait(&ad->work, &ad->mu);
			continue;
		}
		if (c->seq <= ad->hurry || tpl_now_ns() >= c->due_ns) {
			ad->head = c->next;
			if (!ad->head)
				ad->tail = NULL;
			return c;
		}
		async_deadline(c->due_ns, &ts);
		pthread_cond_timedwait(&ad->work, &ad->mu, &ts);
	}
}

#ifdef ASYNC_CLOSE_LATE
/* The bug's end: the worker, left to itself by close(), releases the
 * device once it has drained the queue. */
static void async_late_release(struct async_dev *ad)
{
	pthread_cond_destroy(&ad->done);
	pthread_cond_destroy(&ad->work);
	pthread_mutex_destroy(&ad->mu);
	tpl_close(ad->inner);
	free(ad->fence_seq);
	free(ad);
}
#endif

static void *async_worker(void *arg)
{
	struct async_dev *ad = arg;
	struct async_cmd *c;

	pthread_mutex_lock(&ad->mu);
	while ((c = async_next(ad))) {
		pthread_mutex_unlock(&ad->mu);
		async_run(c);
		free(c->owned);
		pthread_mutex_lock(&ad->mu);
		ad->completed = c->seq;
		pthread_cond_broadcast(&ad->done);
		free(c);
	}
#ifdef ASYNC_CLOSE_LATE
	if (ad->late) { /* close() did not wait: release here */
		pthread_mutex_unlock(&ad->mu);
		async_late_release(ad);
		return NULL;
	}
#endif
	pthread_mutex_unlock(&ad->mu);
	return NULL;
}

/* Queue a command (which the caller allocated and filled). */
static void async_push(struct async_dev *ad, struct async_cmd *c)
{
	pthread_mutex_lock(&ad->mu);
	c->seq = ++ad->issued;
	c->due_ns = tpl_now_ns() + (uint64_t)ASYNC_DELAY_US * 1000u;
	c->next = NULL;
	if (ad->tail)
		ad->tail->next = c;
	else
		ad->head = c;
	ad->tail = c;
	pthread_cond_signal(&ad->work);
	pthread_mutex_unlock(&ad->mu);
}

/* Wait until the command seq (and all before it) has run. */
static void async_wait_for(struct async_dev *ad, uint64_t seq)
{
	pthread_mutex_lock(&ad->mu);
	if (ad->hurry < seq) {
		ad->hurry = seq;
		pthread_cond_signal(&ad->work);
	}
#ifdef ASYNC_SPIN_WAIT
	/* Spins on the CPU, as CUDA's and NVIDIA OpenCL's waits do. */
	while (ad->completed < seq) {
		pthread_mutex_unlock(&ad->mu);
		sched_yield();
		pthread_mutex_lock(&ad->mu);
	}
#endif
	while (ad->completed < seq)
		pthread_cond_wait(&ad->done, &ad->mu);
	pthread_mutex_unlock(&ad->mu);
}

static struct async_cmd *async_cmd_new(enum async_kind kind, weft_error *err)
{
	struct async_cmd *c = calloc(1, sizeof *c);

	if (!c)
		tpl_fail(err, WEFT_E_NOMEM,
			 "out of host memory for a queued command");
	else
		c->kind = kind;
	return c;
}

/* ---- ASYNC_WRITE_LATE: async writes held back --------------------------- */

#ifdef ASYNC_WRITE_LATE
/* Queue the held writes, oldest first. */
static void async_flush_held(struct async_dev *ad)
{
	while (ad->held) {
		struct async_cmd *c = ad->held;

		ad->held = c->next;
		async_push(ad, c);
	}
}

static void async_hold(struct async_dev *ad, struct async_cmd *c)
{
	struct async_cmd **at = &ad->held;

	while (*at)
		at = &(*at)->next;
	c->next = NULL;
	*at = c;
}
#define ASYNC_FLUSH_HELD(ad) async_flush_held(ad)
#else
#define ASYNC_FLUSH_HELD(ad) ((void)(ad))
#endif

/* ---- ASYNC_READ_LATE: async reads delivered at sync() only -------------- */

#ifdef ASYNC_READ_LATE
/* An async read's staging memory, which the worker fills, and the
 * caller's memory it is delivered into. */
struct async_staged {
	void *to, *staging;
	size_t bytes;
	struct async_staged *next;
};

/* Point the async read c at staging memory of its own, delivered by the
 * next sync(): wait() does not deliver it (the bug). */
static weft_status async_stage(struct async_dev *ad, struct async_cmd *c,
			       weft_error *err)
{
	struct async_staged *s = calloc(1, sizeof *s), **at = &ad->staged;

	if (!s || !(s->staging = malloc(c->bytes ? c->bytes : 1))) {
		free(s);
		return tpl_fail(err, WEFT_E_NOMEM,
				"read: out of host memory for staging");
	}
	s->to = c->to;
	s->bytes = c->bytes;
	c->to = s->staging;
	while (*at)
		at = &(*at)->next;
	*at = s;
	return WEFT_OK;
}

/* Deliver the staged reads, oldest first (the queue has run them), or
 * drop them (at close()). */
static void async_deliver(struct async_dev *ad, int deliver)
{
	while (ad->staged) {
		struct async_staged *s = ad->staged;

		ad->staged = s->next;
		if (deliver && s->bytes)
			memcpy(s->to, s->staging, s->bytes);
		free(s->staging);
		free(s);
	}
}
#define ASYNC_DELIVER(ad, deliver) async_deliver(ad, deliver)
#else
#define ASYNC_DELIVER(ad, deliver) ((void)(ad), (void)(deliver))
#endif

/* ---- open, close -------------------------------------------------------- */

#ifdef ASYNC_CLOSE_EARLY
/* The bug: every buffer released before the queue drains, its memory
 * overwritten (with zeros) as memory handed back may be; the memory goes
 * with the device, after the queue (the process's heap stays intact). */
static void async_close_early(struct async_dev *ad)
{
	for (weft_buf *b = ad->inner->bufs; b; b = b->next)
		memset(b->ptr, 0, b->size);
}
#endif

#ifdef ASYNC_CLOSE_LATE
/* The bug: with work queued, close() returns at once and leaves the
 * worker to drain the queue (queued reads land afterwards) and release
 * the device. Returns 1 when it did. */
static int async_close_late(struct async_dev *ad)
{
	int late;

	pthread_mutex_lock(&ad->mu);
	late = ad->completed < ad->issued;
	if (late) {
		ad->late = ad->stop = 1;
		ad->hurry = ad->issued;
		pthread_detach(ad->worker);
		pthread_cond_signal(&ad->work);
	}
	pthread_mutex_unlock(&ad->mu);
	return late; /* ad is the worker's now */
}
#endif

#ifdef ASYNC_UNLOAD_FREE
static void async_spares_destroy(struct async_dev *ad)
{
	while (ad->spare) {
		weft_program *p = ad->spare;

		ad->spare = p->next;
		tpl_program_destroy(p);
	}
}
#endif

static void async_close(weft_device *dev)
{
	struct async_dev *ad = AD(dev);

	if (!ad)
		return;
	ASYNC_FLUSH_HELD(ad);
#ifdef ASYNC_CLOSE_EARLY
	async_close_early(ad);
#endif
#ifdef ASYNC_CLOSE_LATE
	if (async_close_late(ad))
		return;
#endif
	pthread_mutex_lock(&ad->mu);
	ad->stop = 1;
	ad->hurry = ad->issued; /* everything issued completes first */
	pthread_cond_signal(&ad->work);
	pthread_mutex_unlock(&ad->mu);
	pthread_join(ad->worker, NULL);
#ifdef ASYNC_UNLOAD_FREE
	async_spares_destroy(ad);
#endif
	ASYNC_DELIVER(ad, 0);
	pthread_cond_destroy(&ad->done);
	pthread_cond_destroy(&ad->work);
	pthread_mutex_destroy(&ad->mu);
	ASYNC_POOL_FORGET(ad->inner);
	ASYNC_LIST_CLOSE(ad->inner);
	tpl_close(ad->inner);
	free(ad->fence_seq);
	free(ad);
}

static weft_status async_start(struct async_dev *ad, weft_error *err)
{
	pthread_condattr_t ca;
	int rc;

	pthread_mutex_init(&ad->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&ad->work, &ca);
	pthread_condattr_destroy(&ca);
	pthread_cond_init(&ad->done, NULL);
	rc = pthread_create(&ad->worker, NULL, async_worker, ad);
	if (rc == 0)
		return WEFT_OK;
	pthread_cond_destroy(&ad->done);
	pthread_cond_destroy(&ad->work);
	pthread_mutex_destroy(&ad->mu);
	return tpl_fail(err, WEFT_E_DEVICE,
			"device 0: cannot start the queue's thread: %s",
			strerror(rc));
}

static weft_status async_open(const weft_device_config *cfg, weft_device **out,
			      weft_error *err)
{
	struct async_dev *ad;
	weft_status st;

	st = tpl_open(cfg, out, err);
	if (st != WEFT_OK)
		return st;
	ad = calloc(1, sizeof *ad);
	if (!ad) {
		st = tpl_fail(err, WEFT_E_NOMEM,
			      "device 0: out of host memory for the queue");
		goto close_inner;
	}
	ad->inner = *out;
	if ((st = async_start(ad, err)) != WEFT_OK)
		goto free_queue;
	ASYNC_LIST_ADD(ad->inner);
	*out = (weft_device *)(void *)ad;
	return WEFT_OK;

free_queue:
	free(ad);
close_inner:
	tpl_close(*out);
	*out = NULL;
	return st;
}

/* ---- memory ------------------------------------------------------------- */

static weft_status async_alloc(weft_device *dev, size_t bytes, weft_buf **out,
			       weft_error *err)
{
	return ASYNC_ALLOC(dev ? AD(dev)->inner : NULL, bytes, out, err);
}

#ifdef ASYNC_FREE_XFER
/* Does a queued launch bind buf, or read its count there? */
static int async_bound(struct async_dev *ad, const weft_buf *buf)
{
	int found = 0;

	pthread_mutex_lock(&ad->mu);
	for (struct async_cmd *q = ad->head; q; q = q->next)
		for (uint32_t i = 0; q->kind == CMD_STEP && i < q->n_launches;
		     i++) {
			const weft_launch *l = &q->launches[i];

			found |= l->extent_buf == buf;
			for (uint32_t k = 0; k < l->n_bufs; k++)
				found |= l->bufs[k] == buf;
		}
	pthread_mutex_unlock(&ad->mu);
	return found;
}

/* The bug: unless a queued launch uses it, the buffer is released at
 * once, as if transfers did not count: overwritten (its next owner's
 * bytes), and its queued transfers find no memory of its own (emptied). */
static void async_release_now(struct async_dev *ad, weft_buf *buf)
{
	if (async_bound(ad, buf))
		return;
	pthread_mutex_lock(&ad->mu);
	for (struct async_cmd *q = ad->head; q; q = q->next)
		if (q->kind <= CMD_COPY && (q->buf == buf || q->src == buf))
			q->bytes = 0;
	memset(buf->ptr, 0xDB, buf->size);
	pthread_mutex_unlock(&ad->mu);
}
#endif

#ifdef ASYNC_FREE_TWICE
/* The bug: a buffer freed again while its release is still queued is
 * counted again. */
static void async_count_again(struct async_dev *ad, weft_buf *buf)
{
	int queued = 0;

	pthread_mutex_lock(&ad->mu);
	for (struct async_cmd *q = ad->head; q; q = q->next)
		queued |= q->kind == CMD_FREE && q->buf == buf;
	pthread_mutex_unlock(&ad->mu);
	if (!queued)
		return;
	ad->inner->st.bytes_in_use -= buf->size;
	ad->inner->st.frees++;
}
#endif

/* Out of the live list now (as tpl_free counts it); the memory goes when
 * the queue reaches the release. */
static void async_free(weft_device *dev, weft_buf *buf)
{
	struct async_dev *ad = AD(dev);
	struct async_cmd *c;

#ifdef ASYNC_FREE_TWICE
	if (ad && buf && !tpl_live(ad->inner, buf))
		async_count_again(ad, buf);
#endif
	if (!ad || !buf || !tpl_live(ad->inner, buf))
		return;
	c = async_cmd_new(CMD_FREE, NULL);
	if (!c) { /* no queue entry: wait, then release here */
		async_wait_for(ad, ad->issued);
		tpl_free(ad->inner, buf);
		return;
	}
	for (weft_buf **p = &ad->inner->bufs; *p; p = &(*p)->next)
		if (*p == buf) {
			*p = buf->next;
			break;
		}
	ad->inner->st.bytes_in_use -= buf->size;
	ad->inner->st.frees++;
#ifdef ASYNC_FREE_EARLY
	/* Given back at once: the next owner's bytes land on it. */
	memset(buf->ptr, 0xDB, buf->size);
#endif
#ifdef ASYNC_FREE_XFER
	async_release_now(ad, buf);
#endif
	c->buf = buf;
	async_push(ad, c);
}

static weft_status async_native(weft_device *dev, weft_buf *buf,
				weft_native *out, weft_error *err)
{
#ifdef ASYNC_NATIVE_WAITS
	/* Waits for the queue, so that the memory holds its latest bytes. */
	if (dev)
		async_wait_for(AD(dev), AD(dev)->issued);
#endif
	return tpl_native(dev ? AD(dev)->inner : NULL, buf, out, err);
}

/* ---- transfers ------------------------------------------------------------
 */

/* Queue a transfer command; a blocking one waits until it has run. Once
 * queued, the command is the worker's (it may run and be freed at once). */
static weft_status async_issue(struct async_dev *ad, struct async_cmd *c,
			       unsigned flags, enum weft_dir dir, uint64_t t0)
{
	size_t bytes = c->bytes;

	ASYNC_FLUSH_HELD(ad);
#ifdef ASYNC_WRITE_LATE
	if (c->kind == CMD_WRITE && (flags & WEFT_XFER_ASYNC))
		async_hold(ad, c);
	else
#endif
		async_push(ad, c);
	if (!(flags & WEFT_XFER_ASYNC))
		async_wait_for(ad, ad->issued);
	tpl_count(ad->inner, dir, bytes, t0);
	return WEFT_OK;
}

/* The blocking transfers that jump the queue: none, but in the variants
 * ASYNC_READ_NOWAIT, ASYNC_WRITE_NOWAIT and ASYNC_COPY_NOWAIT. */
#ifdef ASYNC_COPY_NOWAIT
#define ASYNC_COPY_AT_ONCE 1
#else
#define ASYNC_COPY_AT_ONCE 0
#endif
#ifdef ASYNC_READ_NOWAIT
#define ASYNC_READ_AT_ONCE 1
#else
#define ASYNC_READ_AT_ONCE 0
#endif
#ifdef ASYNC_WRITE_NOWAIT
#define ASYNC_WRITE_AT_ONCE 1
#else
#define ASYNC_WRITE_AT_ONCE 0
#endif

/* A blocking transfer done at once, on the caller's thread. */
static weft_status async_at_once(struct async_dev *ad, struct async_cmd *c,
				 enum weft_dir dir, uint64_t t0)
{
	async_run(c);
	tpl_count(ad->inner, dir, c->bytes, t0);
	free(c);
	return WEFT_OK;
}

/* A write (from the host memory from) or a read (into to) of buf,
 * checked as the template checks it, then queued. */
static weft_status async_host_xfer(weft_device *dev, int writes, weft_buf *buf,
				   size_t offset, const void *from, void *to,
				   size_t bytes, unsigned flags,
				   weft_error *err)
{
	struct async_dev *ad = AD(dev);
	uint64_t t0 = tpl_now_ns();
	const char *op = writes ? "write" : "read";
	struct async_cmd *c;
	weft_status st;

	if (!ad || ((writes ? !from : !to) && bytes))
		return tpl_fail(err, WEFT_E_INVALID, "%s of %zu bytes: %s", op,
				bytes,
				ad ? "the host pointer is NULL" : "no device");
	st = tpl_check(ad->inner, op, flags, buf, offset, bytes, err);
	if (st != WEFT_OK ||
	    !(c = async_cmd_new(writes ? CMD_WRITE : CMD_READ, err)))
		return st != WEFT_OK ? st : WEFT_E_NOMEM;
	c->buf = buf;
	c->offset = offset;
	c->from = from;
	c->to = to;
	c->bytes = bytes;
#ifdef ASYNC_READ_LATE
	if (!writes && (flags & WEFT_XFER_ASYNC) &&
	    (st = async_stage(ad, c, err)) != WEFT_OK) {
		free(c);
		return st;
	}
#endif
	if (!(flags & WEFT_XFER_ASYNC) &&
	    (writes ? ASYNC_WRITE_AT_ONCE : ASYNC_READ_AT_ONCE))
		return async_at_once(ad, c,
				     writes ? WEFT_DIR_H2D : WEFT_DIR_D2H, t0);
	return async_issue(ad, c, flags, writes ? WEFT_DIR_H2D : WEFT_DIR_D2H,
			   t0);
}

static weft_status async_write(weft_device *dev, weft_buf *dst, size_t offset,
			       const void *src, size_t bytes, unsigned flags,
			       weft_error *err)
{
	return async_host_xfer(dev, 1, dst, offset, src, NULL, bytes, flags,
			       err);
}

static weft_status async_read(weft_device *dev, void *dst, weft_buf *src,
			      size_t offset, size_t bytes, unsigned flags,
			      weft_error *err)
{
	return async_host_xfer(dev, 0, src, offset, NULL, dst, bytes, flags,
			       err);
}

static weft_status async_copy(weft_device *dev, weft_buf *dst,
			      size_t dst_offset, weft_buf *src,
			      size_t src_offset, size_t bytes, unsigned flags,
			      weft_error *err)
{
	struct async_dev *ad = AD(dev);
	uint64_t t0 = tpl_now_ns();
	struct async_cmd *c;
	weft_status st;

	if (!ad)
		return tpl_fail(err, WEFT_E_INVALID, "copy: no device");
	st = tpl_check(ad->inner, "copy source", flags, src, src_offset, bytes,
		       err);
	if (st == WEFT_OK)
		st = tpl_check(ad->inner, "copy destination", flags, dst,
			       dst_offset, bytes, err);
	if (st != WEFT_OK || !(c = async_cmd_new(CMD_COPY, err)))
		return st != WEFT_OK ? st : WEFT_E_NOMEM;
	c->buf = dst;
	c->offset = dst_offset;
	c->src = src;
	c->src_offset = src_offset;
	c->bytes = bytes;
	if (!(flags & WEFT_XFER_ASYNC) && ASYNC_COPY_AT_ONCE)
		return async_at_once(ad, c, WEFT_DIR_D2D, t0);
	return async_issue(ad, c, flags, WEFT_DIR_D2D, t0);
}

/* ---- programs ------------------------------------------------------------ */

#ifdef ASYNC_UNLOAD_FREE
/* The bug, continued: a program loaded moves into the memory of one
 * released with as many kernels (as an allocator hands a freed block to
 * the next request of its size): the released program's queued launches
 * run the new program's kernels. */
static void async_reuse(struct async_dev *ad, weft_program **out)
{
	weft_program *old = ad->spare, *p = *out, was;

	if (!old || old->n_kernels != p->n_kernels)
		return;
	ad->spare = old->next;
	was = *old;
	*old = *p;
	*p = was;
	ad->inner->programs = old; /* p was the list's head */
	tpl_program_destroy(p);	   /* the released program's tables */
	*out = old;
}
#endif

static weft_status async_load_program(weft_device *dev,
				      const weft_program_desc *desc,
				      weft_program **out, weft_error *err)
{
#ifdef ASYNC_UNLOAD_FREE
	weft_status st =
		tpl_load_program(dev ? AD(dev)->inner : NULL, desc, out, err);

	if (st == WEFT_OK)
		async_reuse(AD(dev), out);
	return st;
#endif
	return tpl_load_program(dev ? AD(dev)->inner : NULL, desc, out, err);
}

/* Out of the device's list now; destroyed when the queue reaches it. */
static void async_unload_program(weft_device *dev, weft_program *prog)
{
	struct async_dev *ad = AD(dev);
	weft_program **p;
	struct async_cmd *c;

	if (!ad || !prog)
		return;
	for (p = &ad->inner->programs; *p && *p != prog; p = &(*p)->next)
		;
	if (!*p)
		return;
	c = async_cmd_new(CMD_UNLOAD, NULL);
	if (!c) { /* no queue entry: wait, then unload here */
		async_wait_for(ad, ad->issued);
		tpl_unload_program(ad->inner, prog);
		return;
	}
	*p = prog->next;
#ifdef ASYNC_UNLOAD_FREE
	/* The bug: released at once, not when the queue reaches it; its
	 * memory is kept (not freed) for the next program loaded. */
	free(c);
	prog->next = ad->spare;
	ad->spare = prog;
	return;
#endif
#ifdef ASYNC_UNLOAD_EARLY
	/* The program's queued launches are dropped with it. */
	pthread_mutex_lock(&ad->mu);
	for (struct async_cmd *q = ad->head; q; q = q->next)
		if (q->kind == CMD_STEP && q->prog == prog)
			q->n_steps = 0;
	pthread_mutex_unlock(&ad->mu);
#endif
	c->prog = prog;
	async_push(ad, c);
}

/* ---- step, sync, fences, stats ------------------------------------------- */

/* A command that runs the (checked) list n_steps times: the launches
 * copied into a block it owns, with `extra` bytes after them (the layouts
 * of step_replicas()). NULL when out of memory (the reason in err). */
static struct async_cmd *async_step_cmd(const char *op, weft_program *prog,
					const weft_launch *launches,
					uint32_t n_launches, uint64_t n_steps,
					size_t extra, weft_error *err)
{
	size_t lb = (size_t)n_launches * sizeof *launches;
	struct async_cmd *c = async_cmd_new(CMD_STEP, err);

	if (!c)
		return NULL;
	c->owned = malloc(lb + extra + 1);
	if (!c->owned) {
		free(c);
		tpl_fail(err, WEFT_E_NOMEM,
			 "%s: out of host memory for %u launches", op,
			 (unsigned)n_launches);
		return NULL;
	}
	if (n_launches)
		memcpy(c->owned, launches, lb);
	c->launches = c->owned;
	c->prog = prog;
	c->n_launches = n_launches;
	c->n_steps = n_steps;
	return c;
}

/* Queue the step command c, counted as the template counts step(): the
 * kernel time is the caller's, from t0. */
static weft_status async_step_queue(struct async_dev *ad, struct async_cmd *c,
				    uint64_t t0)
{
	/* Read before the push: then the worker runs and frees c. */
	uint64_t n_steps = c->n_steps, n_launches = c->n_launches;

	ASYNC_FLUSH_HELD(ad);
	async_push(ad, c);
	ad->inner->st.steps += n_steps;
	ad->inner->st.launches += n_steps * n_launches;
	ad->inner->st.time_ns[WEFT_PHASE_KERNEL] += tpl_now_ns() - t0;
	return WEFT_OK;
}

/* The list is checked whole on the caller's thread, as the template checks
 * it (a bad one queues nothing), then copied into the command. */
static weft_status async_step(weft_device *dev, weft_program *prog,
			      const weft_launch *launches, uint32_t n_launches,
			      uint64_t n_steps, weft_error *err)
{
	struct async_dev *ad = AD(dev);
	uint64_t t0 = tpl_now_ns();
	struct async_cmd *c;
	weft_status st;

	st = tpl_check_list(ad ? ad->inner : NULL, prog, "step", launches,
			    n_launches, err);
	if (st != WEFT_OK)
		return st;
	c = async_step_cmd("step", prog, launches, n_launches, n_steps, 0, err);
	if (!c)
		return WEFT_E_NOMEM;
#ifdef ASYNC_LAUNCH_BYREF
	c->launches = launches; /* the caller's array, read when run */
#endif
#ifdef ASYNC_EXTENT_BYREF
	c->caller = launches; /* kept: its extents are read when run */
#endif
#ifdef ASYNC_STEP_WAITS
	/* Waits for the queue before queueing more (a backend bounding its
	 * queue's length by draining it). */
	async_wait_for(ad, ad->issued);
#endif
	return async_step_queue(ad, c, t0);
}

/* ---- replicas (ABI 1.4) ------------------------------------------------- */

#ifdef ASYNC_REPLICA_OVERFLOW
/* The bug: the last replica's end, r * stride + size, computed in wrapping
 * 64-bit arithmetic (a stride of 2^62 with 5 replicas ends at 0 + size). */
static weft_status async_check_layout(const weft_program *p, uint32_t i,
				      const weft_launch *l,
				      const weft_replica_layout *lay,
				      uint32_t replicas, weft_error *err)
{
	const weft_buf *eb = l->extent_buf;
	uint64_t last = replicas - 1;
	int bad = 0;

	for (uint32_t k = 0; k < l->n_bufs; k++)
		bad |= lay->stride[k] % TPL_ALIGN != 0 ||
		       (lay->stride[k] &&
			last * lay->stride[k] + 1 > l->bufs[k]->size);
	if (eb)
		bad |= lay->extent_stride % 4 != 0 ||
		       l->extent_offset + last * lay->extent_stride + 4 >
			       eb->size;
	if (!bad)
		return WEFT_OK;
	return tpl_fail(err, WEFT_E_INVALID,
			"launch %u (kernel '%s'): a stride puts replica %u "
			"past the end of its buffer",
			(unsigned)i, p->kernels[l->kernel].name,
			(unsigned)last);
}
#define ASYNC_CHECK_LAYOUT async_check_layout
#else
#define ASYNC_CHECK_LAYOUT tpl_check_layout
#endif

/* The launches, then the layouts, in one block that the command owns. */
_Static_assert(sizeof(weft_launch) % _Alignof(weft_replica_layout) == 0,
	       "layouts placed after the launches are aligned");

/* The list and its layouts are checked whole on the caller's thread, as
 * the template checks them (a bad one queues nothing), then copied into a
 * command that runs each launch `replicas` times. */
static weft_status async_step_replicas(weft_device *dev, weft_program *prog,
				       const weft_launch *launches,
				       const weft_replica_layout *layouts,
				       uint32_t n_launches, uint32_t replicas,
				       uint64_t n_steps, weft_error *err)
{
	struct async_dev *ad = AD(dev);
	size_t lb = (size_t)n_launches * sizeof *launches;
	size_t yb = (size_t)n_launches * sizeof *layouts;
	uint64_t t0 = tpl_now_ns();
	struct async_cmd *c;
	weft_status st;

	st = tpl_check_replicas(ad ? ad->inner : NULL, prog, launches, layouts,
				n_launches, replicas, ASYNC_CHECK_LAYOUT, err);
	if (st != WEFT_OK)
		return st;
	c = async_step_cmd("step_replicas", prog, launches, n_launches, n_steps,
			   yb, err);
	if (!c)
		return WEFT_E_NOMEM;
	if (n_launches)
		memcpy((char *)c->owned + lb, layouts, yb);
	c->layouts =
		(const weft_replica_layout *)(void *)((char *)c->owned + lb);
	c->replicas = replicas;
	return async_step_queue(ad, c, t0);
}

static weft_status async_sync(weft_device *dev, weft_error *err)
{
	struct async_dev *ad = AD(dev);
	uint64_t t0 = tpl_now_ns();

	if (!ad)
		return tpl_fail(err, WEFT_E_INVALID, "sync: no device");
	ASYNC_FLUSH_HELD(ad);
	async_wait_for(ad, ad->issued);
	ASYNC_DELIVER(ad, 1);
	ad->inner->st.syncs++;
	ad->inner->st.time_ns[WEFT_PHASE_SYNC] += tpl_now_ns() - t0;
	return WEFT_OK;
}

/* A fence is the issue number of the last command queued before it. */
static weft_status async_fence(weft_device *dev, uint64_t *token,
			       weft_error *err)
{
	struct async_dev *ad = AD(dev);
	uint64_t *grown;

	if (!ad || !token)
		return tpl_fail(err, WEFT_E_INVALID, "fence: no %s",
				ad ? "place for the token" : "device");
	if (ad->n_fences == ad->cap_fences) {
		size_t cap = ad->cap_fences ? 2 * ad->cap_fences : 64;

		grown = realloc(ad->fence_seq, cap * sizeof *grown);
		if (!grown)
			return tpl_fail(err, WEFT_E_NOMEM,
					"fence: out of host memory for %zu "
					"fences",
					cap);
		ad->fence_seq = grown;
		ad->cap_fences = cap;
	}
	ad->fence_seq[ad->n_fences++] = ad->issued;
#ifdef ASYNC_FENCE_WAITS
	async_wait_for(ad, ad->issued); /* a fence that waits */
#endif
	*token = ad->n_fences;
	return WEFT_OK;
}

static weft_status async_wait(weft_device *dev, uint64_t token, weft_error *err)
{
	struct async_dev *ad = AD(dev);
	uint64_t t0 = tpl_now_ns();

	if (!ad)
		return tpl_fail(err, WEFT_E_INVALID, "wait: no device");
	if (token == 0 || token > ad->n_fences)
		return tpl_fail(err, WEFT_E_INVALID,
				"wait: token %llu was not returned by fence() "
				"(the last fence is %llu)",
				(unsigned long long)token,
				(unsigned long long)ad->n_fences);
#ifdef ASYNC_FENCE_HISTORY
	/* A ring of the last 64 fences: an older one is taken as done. */
	if (ad->n_fences - token >= 64)
		goto counted;
#endif
#ifdef ASYNC_WAIT_ALL
	async_wait_for(ad, ad->issued); /* later work too */
#endif
	async_wait_for(ad, ad->fence_seq[token - 1]);
#ifdef ASYNC_FENCE_HISTORY
counted:
#endif
	ad->inner->st.fence_waits++;
	ad->inner->st.time_ns[WEFT_PHASE_SYNC] += tpl_now_ns() - t0;
	return WEFT_OK;
}

static weft_status async_stats(weft_device *dev, weft_stats *out)
{
	return tpl_stats(dev ? AD(dev)->inner : NULL, out);
}

/* ---- mem_info ------------------------------------------------------------ */

/* The broken variants: one that waits for the queue, one that takes any
 * struct_size and writes the whole struct, one that counts in KiB. */
#ifdef ASYNC_MEMINFO_SYNC
#define ASYNC_MEMINFO_WAIT(ad) async_wait_for(ad, (ad)->issued)
#else
#define ASYNC_MEMINFO_WAIT(ad) ((void)(ad))
#endif
#ifdef ASYNC_MEMINFO_SHORT
#define ASYNC_MEMINFO_FITS(size) ((void)(size), 1)
#define ASYNC_MEMINFO_FILL(size) sizeof(weft_mem_info)
#else
#define ASYNC_MEMINFO_FITS(size) ((size) >= WEFT_MEM_INFO_V1_3_SIZE)
#define ASYNC_MEMINFO_FILL(size) \
	((size) < sizeof(weft_mem_info) ? (size) : sizeof(weft_mem_info))
#endif
#ifdef ASYNC_MEMINFO_KIB
#define ASYNC_MEM_UNIT 1024u
#else
#define ASYNC_MEM_UNIT 1u
#endif

/* Reported as a GPU backend whose driver has no free-memory query would:
 * host = 0, the host's RAM as the total, and the total less what the
 * device holds as free; so the suite's checks of device sizes run on a
 * correct backend too. Never waits; fills only what struct_size covers. */
static weft_status async_mem_info(weft_device *dev, weft_mem_info *out,
				  weft_error *err)
{
	struct async_dev *ad = AD(dev);
	weft_mem_info mi = { .struct_size = sizeof mi, .host = 0 };
	size_t hdr = sizeof out->struct_size;
	uint64_t used;

	if (!ad)
		return tpl_fail(err, WEFT_E_INVALID, "mem_info: no device");
	if (!out || !ASYNC_MEMINFO_FITS(out->struct_size))
		return tpl_fail(err, WEFT_E_INVALID,
				"mem_info: %s (at least %zu bytes expected)",
				out ? "weft_mem_info too short"
				    : "no place for the answer",
				(size_t)WEFT_MEM_INFO_V1_3_SIZE);
	ASYNC_MEMINFO_WAIT(ad);
	mi.total_bytes = ad->inner->host_bytes / ASYNC_MEM_UNIT;
	used = ad->inner->st.bytes_in_use / ASYNC_MEM_UNIT;
	mi.free_bytes = mi.total_bytes > used ? mi.total_bytes - used : 0;
	memcpy((char *)out + hdr, (const char *)&mi + hdr,
	       ASYNC_MEMINFO_FILL(out->struct_size) - hdr);
	return WEFT_OK;
}

#ifdef ASYNC_WHAT
#define ASYNC_DESCRIPTION "the template on a worker thread's queue, " ASYNC_WHAT
#else
#define ASYNC_DESCRIPTION "the template on a worker thread's queue"
#endif

WEFT_BACKEND_ENTRY = {
	.abi_major = WEFT_BACKEND_ABI_MAJOR,
	.abi_minor = WEFT_BACKEND_ABI_MINOR,
	.struct_size = sizeof(weft_backend),
	.name = ASYNC_NAME,
	.version = "1.0",
	.description = ASYNC_DESCRIPTION,
	.probe = tpl_probe,
	.open = async_open,
	.close = async_close,
	.alloc = async_alloc,
	.free = async_free,
	.write = async_write,
	.read = async_read,
	.copy = async_copy,
	.load_program = async_load_program,
	.unload_program = async_unload_program,
	.step = async_step,
	.sync = async_sync,
	.stats = async_stats,
	.fence = async_fence,
	.wait = async_wait,
	.native = async_native,
	.mem_info = async_mem_info,
	.step_replicas = async_step_replicas,
	.caps = tpl_caps, /* host builds: every capability */
};
