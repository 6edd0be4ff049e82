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
 *   ASYNC_READ_NOWAIT     read: a blocking read copies the bytes at once,
 *                         before the queued work ran          -> ordering
 *   ASYNC_WRITE_NOWAIT    write: a blocking write lands at once, before
 *                         queued launches that should see the old
 *                         bytes                               -> ordering
 *   ASYNC_WRITE_LATE      write: an asynchronous write is held back until
 *                         the next operation is issued, but a fence does
 *                         not count: wait() on a later fence returns
 *                         before it has read the host memory  -> ordering
 *
 * The variants are built with a delay of 10 s, so that nothing runs before
 * the host waits for it: what they break is then seen deterministically,
 * however busy the machine.
 */
#define weft_backend_entry weft__template_inner
#include "../../plugins/template/template.c"
#undef weft_backend_entry

#include <pthread.h>

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
};

#define AD(dev) ((struct async_dev *)(void *)(dev))

/* ---- the queue ---------------------------------------------------------- */

static void async_deadline(uint64_t ns, struct timespec *ts)
{
	ts->tv_sec = (time_t)(ns / 1000000000u);
	ts->tv_nsec = (long)(ns % 1000000000u);
}

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
		for (uint64_t s = 0; s < c->n_steps; s++)
			for (uint32_t i = 0; i < c->n_launches; i++)
				tpl_run_launch(c->prog, &c->launches[i]);
		break;
	case CMD_FREE:
		free(c->buf->ptr);
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

/* ---- open, close -------------------------------------------------------- */

static void async_close(weft_device *dev)
{
	struct async_dev *ad = AD(dev);

	if (!ad)
		return;
	ASYNC_FLUSH_HELD(ad);
	pthread_mutex_lock(&ad->mu);
	ad->stop = 1;
	ad->hurry = ad->issued; /* everything issued completes first */
	pthread_cond_signal(&ad->work);
	pthread_mutex_unlock(&ad->mu);
	pthread_join(ad->worker, NULL);
	pthread_cond_destroy(&ad->done);
	pthread_cond_destroy(&ad->work);
	pthread_mutex_destroy(&ad->mu);
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
	return tpl_alloc(dev ? AD(dev)->inner : NULL, bytes, out, err);
}

/* Out of the live list now (as tpl_free counts it); the memory goes when
 * the queue reaches the release. */
static void async_free(weft_device *dev, weft_buf *buf)
{
	struct async_dev *ad = AD(dev);
	struct async_cmd *c;

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
	c->buf = buf;
	async_push(ad, c);
}

static weft_status async_native(weft_device *dev, weft_buf *buf,
				weft_native *out, weft_error *err)
{
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
 * ASYNC_READ_NOWAIT and ASYNC_WRITE_NOWAIT. */
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
	return async_issue(ad, c, flags, WEFT_DIR_D2D, t0);
}

/* ---- programs ------------------------------------------------------------ */

static weft_status async_load_program(weft_device *dev,
				      const weft_program_desc *desc,
				      weft_program **out, weft_error *err)
{
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

/* The list is checked whole on the caller's thread (a bad one queues
 * nothing), then copied into the command. */
static weft_status async_step(weft_device *dev, weft_program *prog,
			      const weft_launch *launches, uint32_t n_launches,
			      uint64_t n_steps, weft_error *err)
{
	struct async_dev *ad = AD(dev);
	uint64_t t0 = tpl_now_ns();
	struct async_cmd *c;

	if (!ad || !prog)
		return tpl_fail(err, WEFT_E_INVALID, "step: no %s",
				ad ? "program" : "device");
	if (!launches && n_launches)
		return tpl_fail(err, WEFT_E_INVALID,
				"step: %u launches but the list is NULL",
				(unsigned)n_launches);
	for (uint32_t i = 0; i < n_launches; i++)
		if (tpl_check_launch(ad->inner, prog, i, &launches[i], err) !=
		    WEFT_OK)
			return WEFT_E_INVALID;
	if (!(c = async_cmd_new(CMD_STEP, err)))
		return WEFT_E_NOMEM;
	c->owned = malloc(n_launches ? n_launches * sizeof *launches : 1);
	if (!c->owned) {
		free(c);
		return tpl_fail(err, WEFT_E_NOMEM,
				"step: out of host memory for %u launches",
				(unsigned)n_launches);
	}
	if (n_launches)
		memcpy(c->owned, launches, n_launches * sizeof *launches);
	c->launches = c->owned;
#ifdef ASYNC_LAUNCH_BYREF
	c->launches = launches; /* the caller's array, read when run */
#endif
	c->prog = prog;
	c->n_launches = n_launches;
	c->n_steps = n_steps;
	ASYNC_FLUSH_HELD(ad);
	async_push(ad, c);
	ad->inner->st.steps += n_steps;
	ad->inner->st.launches += n_steps * n_launches;
	ad->inner->st.time_ns[WEFT_PHASE_KERNEL] += tpl_now_ns() - t0;
	return WEFT_OK;
}

static weft_status async_sync(weft_device *dev, weft_error *err)
{
	struct async_dev *ad = AD(dev);
	uint64_t t0 = tpl_now_ns();

	if (!ad)
		return tpl_fail(err, WEFT_E_INVALID, "sync: no device");
	ASYNC_FLUSH_HELD(ad);
	async_wait_for(ad, ad->issued);
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
	async_wait_for(ad, ad->fence_seq[token - 1]);
	ad->inner->st.fence_waits++;
	ad->inner->st.time_ns[WEFT_PHASE_SYNC] += tpl_now_ns() - t0;
	return WEFT_OK;
}

static weft_status async_stats(weft_device *dev, weft_stats *out)
{
	return tpl_stats(dev ? AD(dev)->inner : NULL, out);
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
	.mem_info = tpl_mem_info,
	.caps = tpl_caps, /* host builds: every capability */
};
