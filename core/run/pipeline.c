/*
 * core/run/pipeline.c - the output pipeline: strided snapshots read back while
 * the next steps run, written by a writer thread that the step loop does
 * not wait for (unless every slot is in flight).
 *
 * For a model with collect() and emit() (weft/model.h), after chunk c of
 * steps (one per [output] every) has been enqueued, the main thread
 *   1. takes slot c % WEFT__SIM_SLOTS, waiting only while the writer has
 *      not yet emitted chunk c - WEFT__SIM_SLOTS, the last one to use it;
 *   2. calls collect(c, slot), which enqueues device-to-device copies into
 *      the model's snapshot buffers and asynchronous reads into the slot's
 *      host memory;
 *   3. marks fence f_c after them;
 *   4. waits for f_{c-1}, whose reads ran while chunk c was queued, and
 *      hands chunk c - 1 to the writer.
 * The device thus works on chunk c while the host waits for chunk c - 1
 * and the writer formats c - 1 or c - 2. With a backend that has no
 * fences, a sync() follows collect() and the chunk is handed over at once.
 * At the end the last chunk is waited for and handed over, the writer
 * emits what is left, one sync() waits for everything and the writer is
 * joined, before the model's finish(). A checkpoint settles the pipeline
 * the same way, but leaves the writer running.
 *
 * A chunk whose emit() is cheap is not handed over: when the writer has
 * nothing queued and emit() has cost less than waking a thread would
 * (its running mean under WEFT__EMIT_INLINE_NS), the main thread emits it
 * itself, with the writer's model and error contexts, as the writer
 * would have. A run writing a short row every step (wolf-sheep's counts,
 * 150 agents) then pays no thread hand-over per step; an expensive
 * emit() still runs beside the steps.
 *
 * The writer calls emit() in chunk order with a model context of its own:
 * its failures (weft_model_fail, failed weft_output_* writes) go to its own
 * error context, never to the run's, which the main thread may be writing.
 * The main thread makes the first of them the run's failure when it next
 * takes a slot, hands a chunk over or drains. The writer blocks every
 * signal, so SIGINT and SIGTERM reach the main thread, which stops between
 * chunks; weft_sim_close() then stops and joins the writer before the
 * model's state is torn down.
 *
 * A replica of a batch (core/run/batch.c) has no writer thread: a batch may
 * hold thousands. The batch collects every replica's chunk, then settles
 * each: the first settle's sync() waits for all of their reads (the
 * replica view syncs the device once), and emit() runs on the main thread
 * with the writer's model context, its failures in the writer's context.
 */
#include "run/sim.h"
#include "util/crash.h"

#include <signal.h>
#include <string.h>

/* ---- the writer thread --------------------------------------------------- */

/* Below this running mean of emit()'s cost (ns), the main thread emits a
 * chunk itself when the writer is idle: about what waking the writer
 * (a futex system call, and a context switch where both threads share a
 * core) costs. */
#define WEFT__EMIT_INLINE_NS 5000u

/* emit() of chunk c with the writer's model context, attributed to the
 * model if it crashes; its cost goes into *ns (the caller folds it into
 * the running mean under the lock). */
static weft_status weft__emit(weft_sim *sim, const weft__chunk *c, uint64_t *ns)
{
	weft__writer *w = &sim->pipe.w;
	uint64_t t0 = weft__now_ns();
	weft__in_plugin at;
	weft_status st;

	weft__crash_set(&at, "model", sim->model_file, "emit()", 0);
	st = sim->model->emit(&w->mc, sim->mstate, c->steps_done, c->slot);
	weft__crash_clear(&at);
	*ns = weft__now_ns() - t0;
	return st;
}

/* Chunk emitted (under mu): counted, its cost in the running mean (1/8
 * weight), the first failure kept. The writer then tells the main thread,
 * which may be waiting; the main thread's own emits tell nobody (the
 * writer, idle, waits for chunks, not for this). */
static void weft__emitted(weft__writer *w, weft_status st, uint64_t ns)
{
	w->emitted++;
	w->emit_ns = w->emit_ns - w->emit_ns / 8 + ns / 8;
	if (st != WEFT_OK && w->failed == WEFT_OK)
		w->failed = st;
}

static void *weft__writer_main(void *arg)
{
	weft_sim *sim = arg;
	weft__writer *w = &sim->pipe.w;

	weft__output_thread_ctx(&w->ctx);
	pthread_mutex_lock(&w->mu);
	for (;;) {
		weft__chunk c;
		weft_status st = WEFT_OK;
		uint64_t ns = w->emit_ns;

		while (w->count == 0 && !w->quit)
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->count == 0)
			break; /* told to quit, and nothing left */
		c = w->queue[w->head];
		if (w->failed == WEFT_OK && !w->abandon) {
			pthread_mutex_unlock(&w->mu);
			st = weft__emit(sim, &c, &ns);
			pthread_mutex_lock(&w->mu);
		}
		w->head = (w->head + 1) % WEFT__SIM_SLOTS;
		w->count--;
		weft__emitted(w, st, ns);
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	weft__output_thread_ctx(NULL);
	return NULL;
}

/* The writer's failure, made the run's. Called once `failed` was seen set
 * under the lock: the writer emits nothing more, so its message is stable. */
static weft_status weft__writer_failure(weft_sim *sim, weft_status st)
{
	const weft__writer *w = &sim->pipe.w;

	if (w->ctx.msg[0])
		return weft__fail(sim->ctx, st, "%s", w->ctx.msg);
	return weft__fail(sim->ctx, st,
			  "model %s: emit() failed (%s) without saying why",
			  sim->model->name, weft__status_str(st));
}

/* Wait until the writer has emitted n chunks, or failed. */
static weft_status weft__writer_wait(weft_sim *sim, uint64_t n)
{
	weft__writer *w = &sim->pipe.w;
	weft_status st;

	pthread_mutex_lock(&w->mu);
	while (w->failed == WEFT_OK && w->emitted < n)
		pthread_cond_wait(&w->cv, &w->mu);
	st = w->failed;
	pthread_mutex_unlock(&w->mu);
	return st == WEFT_OK ? WEFT_OK : weft__writer_failure(sim, st);
}

/* Wait until chunk c may use its slot: the chunk that used it before,
 * c - WEFT__SIM_SLOTS, has been emitted. */
static weft_status weft__writer_slot(weft_sim *sim, uint64_t c)
{
	return weft__writer_wait(
		sim, c + 1 > WEFT__SIM_SLOTS ? c + 1 - WEFT__SIM_SLOTS : 0);
}

/* Emit chunk c on the main thread, as the writer would: called with mu
 * held and nothing queued, so no emit() runs on the writer meanwhile and
 * chunks stay in order; returns with mu held. */
static weft_status weft__emit_inline(weft_sim *sim, const weft__chunk *c)
{
	weft__writer *w = &sim->pipe.w;
	weft_status st;
	uint64_t ns;

	pthread_mutex_unlock(&w->mu);
	weft__output_thread_ctx(&w->ctx);
	st = weft__emit(sim, c, &ns);
	weft__output_thread_ctx(NULL);
	pthread_mutex_lock(&w->mu);
	weft__emitted(w, st, ns);
	return w->failed;
}

/* A chunk whose host memory is filled: emitted here when the writer is
 * idle and emit() is cheap, else queued for the writer. The queue has a
 * place for every slot, and slots are taken before chunks are handed, so
 * this does not wait in practice; the loop only keeps the queue bounded. */
static weft_status weft__writer_hand(weft_sim *sim, const weft__chunk *c)
{
	weft__writer *w = &sim->pipe.w;
	weft_status st;

	pthread_mutex_lock(&w->mu);
	while (w->failed == WEFT_OK && w->count == WEFT__SIM_SLOTS)
		pthread_cond_wait(&w->cv, &w->mu);
	st = w->failed;
	if (st == WEFT_OK && w->count == 0 &&
	    w->emit_ns < WEFT__EMIT_INLINE_NS) {
		st = weft__emit_inline(sim, c);
	} else if (st == WEFT_OK) {
		w->queue[(w->head + w->count) % WEFT__SIM_SLOTS] = *c;
		w->count++;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return st == WEFT_OK ? WEFT_OK : weft__writer_failure(sim, st);
}

/* No more chunks: the writer emits what is queued (nothing, when
 * abandon) and ends. Returns the status of its first failed emit(). */
static weft_status weft__writer_join(weft_sim *sim, int abandon)
{
	weft__writer *w = &sim->pipe.w;

	if (!w->started)
		return WEFT_OK;
	pthread_mutex_lock(&w->mu);
	w->quit = 1;
	w->abandon |= abandon;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	w->started = 0;
	return w->failed;
}

/* The writer blocks every signal: the main thread takes them, and a
 * signal handler never runs in the middle of emit(). */
static weft_status weft__writer_start(weft_sim *sim)
{
	weft__writer *w = &sim->pipe.w;
	sigset_t all, old;
	int rc;

	weft__mc_init(&w->mc, sim, 1);
	if ((rc = pthread_mutex_init(&w->mu, NULL)) != 0)
		goto fail;
	if ((rc = pthread_cond_init(&w->cv, NULL)) != 0) {
		pthread_mutex_destroy(&w->mu);
		goto fail;
	}
	w->ready = 1;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = pthread_create(&w->thread, NULL, weft__writer_main, sim);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		goto fail;
	w->started = 1;
	return WEFT_OK;
fail:
	return weft__fail(sim->ctx, WEFT_E_NOMEM,
			  "model %s: cannot start the output writer thread: %s",
			  sim->model->name, strerror(rc));
}

/* ---- the main thread's side ------------------------------------------- */

weft_status weft__pipe_start(weft_sim *sim)
{
	const weft_model *m = sim->model;
	weft__pipe *p = &sim->pipe;

	/* A model without collect() and emit() has no outputs between
	 * steps (the loader made sure it has both or neither). */
	if (!m->collect || !m->emit)
		return WEFT_OK;
	p->on = 1;
	p->fences = sim->has_fences;
	if (sim->batched) {
		weft__mc_init(&p->w.mc, sim, 1);
		return WEFT_OK;
	}
	return weft__writer_start(sim);
}

/* Wait for the device (the fallback, and the end of the run). */
static weft_status weft__pipe_sync(weft_sim *sim)
{
	weft_error err = { { 0 } };
	uint64_t t0 = weft__now_ns();
	weft_status st = sim->vt->sync(sim->dev, &err);

	if (st)
		return weft__fail(sim->ctx, st,
				  "outputs after step %llu: sync: %s",
				  (unsigned long long)sim->steps_done, err.msg);
	sim->pipe.unsynced = 0;
	weft__sim_waited(sim, t0, sim->steps_done);
	return WEFT_OK;
}

/* Wait for the pending chunk's fence, then hand it to the writer. */
static weft_status weft__pipe_hand_pending(weft_sim *sim)
{
	weft__pipe *p = &sim->pipe;
	weft_error err = { { 0 } };
	uint64_t t0 = weft__now_ns();
	weft_status st = sim->vt->wait(sim->dev, p->pending.token, &err);

	if (st)
		return weft__fail(
			sim->ctx, st, "outputs after step %llu: wait: %s",
			(unsigned long long)p->pending.steps_done, err.msg);
	weft__sim_waited(sim, t0, p->pending.steps_done);
	p->has_pending = 0;
	return weft__writer_hand(sim, &p->pending);
}

/* A batched replica's collected chunk: its reads waited for (one sync
 * for the whole batch), then emitted on this thread. */
static weft_status weft__pipe_emit_here(weft_sim *sim)
{
	weft__pipe *p = &sim->pipe;
	weft_status st;
	uint64_t ns;

	p->has_pending = 0;
	if ((st = weft__pipe_sync(sim)))
		return st;
	weft__output_thread_ctx(&p->w.ctx);
	st = weft__emit(sim, &p->pending, &ns);
	weft__output_thread_ctx(NULL);
	p->w.emitted++;
	return st == WEFT_OK ? WEFT_OK : weft__writer_failure(sim, st);
}

weft_status weft__pipe_chunk(weft_sim *sim)
{
	weft__pipe *p = &sim->pipe;
	weft__chunk c = { .steps_done = sim->steps_done,
			  .slot = (unsigned)(p->next % WEFT__SIM_SLOTS) };
	weft_error err = { { 0 } };
	weft__in_plugin at;
	weft_status st;

	if (!sim->batched && (st = weft__writer_slot(sim, p->next)))
		return st;
	p->unsynced = 1;
	weft__crash_set(&at, "model", sim->model_file, "collect()", 0);
	st = sim->model->collect(&sim->mc, sim->mstate, c.steps_done, c.slot);
	weft__crash_clear(&at);
	if (st)
		return st;
	p->next++;
	if (sim->batched) {
		p->pending = c;
		p->has_pending = 1;
		return WEFT_OK;
	}
	if (!p->fences)
		return (st = weft__pipe_sync(sim)) ? st
						   : weft__writer_hand(sim, &c);
	st = sim->vt->fence(sim->dev, &c.token, &err);
	if (st)
		return weft__fail(sim->ctx, st,
				  "outputs after step %llu: fence: %s",
				  (unsigned long long)c.steps_done, err.msg);
	if (p->has_pending && (st = weft__pipe_hand_pending(sim)))
		return st;
	p->pending = c;
	p->has_pending = 1;
	return WEFT_OK;
}

weft_status weft__pipe_settle(weft_sim *sim)
{
	weft__pipe *p = &sim->pipe;
	weft_status st;

	if (!p->on)
		return WEFT_OK;
	if (sim->batched)
		return p->has_pending ? weft__pipe_emit_here(sim) : WEFT_OK;
	if (p->has_pending && (st = weft__pipe_hand_pending(sim)))
		return st;
	return weft__writer_wait(sim, p->next);
}

weft_status weft__pipe_drain(weft_sim *sim)
{
	weft_status st;

	if (!sim->pipe.on)
		return WEFT_OK;
	if ((st = weft__pipe_settle(sim)) || (st = weft__pipe_sync(sim)))
		return st;
	st = weft__writer_join(sim, 0);
	return st == WEFT_OK ? WEFT_OK : weft__writer_failure(sim, st);
}

void weft__pipe_resume(weft_sim *sim, uint64_t chunks)
{
	weft__pipe *p = &sim->pipe;

	if (!p->on)
		return;
	pthread_mutex_lock(&p->w.mu);
	p->next = chunks;
	p->w.emitted = chunks;
	pthread_mutex_unlock(&p->w.mu);
}

void weft__pipe_stop(weft_sim *sim)
{
	weft__pipe *p = &sim->pipe;
	weft__writer *w = &p->w;

	if (!p->on)
		return;
	/* Its failure, if any, is not reported: the run already failed or
	 * was interrupted, and the context holds why. */
	(void)weft__writer_join(sim, 1);
	/* Reads may still be filling the model's memory: let them land
	 * before teardown frees it. */
	if (p->unsynced && sim->dev) {
		weft_error err;
		(void)sim->vt->sync(sim->dev, &err);
		p->unsynced = 0;
	}
	if (w->ready) {
		pthread_cond_destroy(&w->cv);
		pthread_mutex_destroy(&w->mu);
		w->ready = 0;
	}
	p->on = 0;
}
