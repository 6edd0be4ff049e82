/*
 * plugins/cuda/launch.c - programs and step(): compiling a model's kernels
 * and enqueueing its launches, replayed as CUDA graphs.
 *
 * load_program() compiles the prelude and the model's portable source
 * with NVRTC for the device's architecture (compile.c), or takes the
 * CUBIN from the on-disk cache (cache.c), loads it with
 * cudaLibraryLoadData and finds every kernel by name
 * (cudaLibraryGetKernel). Kernel handles are launched with
 * cudaLaunchKernel, which accepts a cudaKernel_t cast to const void *
 * (so documented in cuda_runtime_api.h; the library API is CUDA 12's).
 *
 * step() validates the whole launch list first (a bad list enqueues
 * nothing), resolves it into records (kernel, grid, the one by-value
 * parameter), orders the compute stream after the copy stream when a
 * buffer of the list (bound or extent) has a copy-stream operation it is
 * not ordered after (checked once per call, whatever n_steps), then:
 *
 *  - with graphs (the default): the records are captured once from the
 *    compute stream into a one-step graph, and into a graph of
 *    WEFT__CUDA_GRAPH_UNROLL steps when n_steps reaches that many;
 *    step(n) launches the unrolled graph n / UNROLL times and the
 *    one-step graph n % UNROLL times. The graphs are kept with the
 *    program and captured again only when the records differ from the
 *    ones they were captured from (another kernel, buffer, extent or
 *    extent buffer), and die with the program;
 *  - with WEFT_CUDA_GRAPHS=0: n_steps x n_launches cudaLaunchKernel
 *    calls.
 *
 * Neither waits for the device: there is no synchronisation call in
 * step(). (The driver itself blocks a launch when about a thousand
 * launches are already queued.) time_ns[KERNEL] is the host time spent
 * enqueueing, not the GPU's execution time, which shows up in sync().
 *
 * The grid is ceil(capacity / 256) blocks of 256 threads, at most 32
 * blocks per multiprocessor; the kernels' grid-stride loop covers the
 * rest. A launch whose capacity is 0 runs nothing.
 *
 * kernel_stats(): every launch of a list is counted for its kernel. On a
 * device opened with WEFT_DEVICE_PROFILE, graphs are off (a graph's
 * replay cannot be timed per kernel) and each launch runs between two
 * timing events recorded on the compute stream; the pair is kept in a
 * bounded ring (TIMED_MAX launches) until sync(), wait() or
 * kernel_stats() finds it complete (cudaEventQuery, never waiting) and
 * adds cudaEventElapsedTime. A launch issued while the ring is full of
 * launches not yet complete runs untimed (weft_kernel_stat.timed).
 *
 * step_replicas() is the same path with replica layouts: a launch's
 * record carries every replica's strides, and its grid has a row of
 * blocks per replica (at most 65535 rows, each running every 65535th
 * replica, prelude.c), the blocks per row cut so that all rows together
 * stay within 32 blocks per multiprocessor (at least one each). Graphs
 * are captured and replayed as for step(); a record differs when a
 * stride or the number of replicas does, and is captured again.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "priv.h"

/* Launches whose event pairs are kept for timing, at most. */
#define TIMED_MAX 4096

/* ---- programs ------------------------------------------------------------ */

static void graph_reset(struct weft__cuda_graph *g)
{
	/* An executable graph still running is freed when it completes. */
	if (g->one)
		(void)cudaGraphExecDestroy(g->one);
	if (g->many)
		(void)cudaGraphExecDestroy(g->many);
	free(g->recs);
	memset(g, 0, sizeof *g);
}

#define PROG_OF(p) WEFT__PROG_OF(weft_program, p)

/* The device is idle or the program's kernels never ran. */
static void program_free(weft_program *prog)
{
	graph_reset(&prog->graph);
	if (prog->lib)
		(void)cudaLibraryUnload(prog->lib);
	weft__prog_free(&prog->pg);
}

/* Load a CUBIN; the driver keeps its own copy. */
static weft_status library_load(weft_device *dev, weft_program *prog,
				const void *cubin, weft_error *err)
{
	return weft__cuda_check(dev,
				cudaLibraryLoadData(&prog->lib, cubin, NULL,
						    NULL, 0, NULL, NULL, 0),
				err, "loading the compiled program '%s'",
				prog->pg.name);
}

/* Load kernel k into the device's context now (cudaFuncGetAttributes
 * does), rather than lazily at its first launch, which may be inside a
 * graph capture; and check that it runs blocks of WEFT__CUDA_BLOCK. */
static weft_status kernel_ready(weft_device *dev, const weft_program *prog,
				uint32_t k, weft_error *err)
{
	const char *name = prog->pg.kernel_names[k];
	struct cudaFuncAttributes attr;
	weft_status st;

	st = weft__cuda_check(
		dev, cudaFuncGetAttributes(&attr, (const void *)prog->fns[k]),
		err, "loading kernel '%s' of program '%s'", name,
		prog->pg.name);
	if (st == WEFT_OK && attr.maxThreadsPerBlock < WEFT__CUDA_BLOCK)
		return weft__cuda_fail(err, WEFT_E_DEVICE,
				       "kernel '%s' of program '%s' runs at "
				       "most %d threads per block on %s, "
				       "fewer than the %d weft launches",
				       name, prog->pg.name,
				       attr.maxThreadsPerBlock, dev->where,
				       WEFT__CUDA_BLOCK);
	return st;
}

static weft_status find_kernels(weft_device *dev, weft_program *prog,
				weft_error *err)
{
	weft_status st;

	for (uint32_t k = 0; k < prog->pg.n_kernels; k++) {
		const char *name = prog->pg.kernel_names[k];
		cudaError_t e =
			cudaLibraryGetKernel(&prog->fns[k], prog->lib, name);

		if (e == cudaErrorSymbolNotFound) {
			(void)cudaGetLastError();
			return weft__cuda_fail(err, WEFT_E_INVALID,
					       "program '%s' has no kernel "
					       "'%s' (no WEFT_KERNEL(%s) in "
					       "its source)",
					       prog->pg.name, name, name);
		}
		if (e != cudaSuccess)
			return weft__cuda_check(
				dev, e, err,
				"finding kernel '%s' of program "
				"'%s'",
				name, prog->pg.name);
		st = kernel_ready(dev, prog, k, err);
		if (st != WEFT_OK)
			return st;
	}
	return WEFT_OK;
}

/* 0 when the key was computed. */
static int key_of(const weft_device *dev, const char *text, size_t text_len,
		  weft__cuda_key *key)
{
	const char *opts[WEFT__CUDA_MAX_OPTS];
	char arch[32];
	weft__cuda_key_in in = {
		.text = text,
		.text_len = text_len,
		.opts = opts,
		.n_opts = weft__cuda_options(dev->cc_major, dev->cc_minor, arch,
					     opts),
		.nvrtc_major = dev->nvrtc.major,
		.nvrtc_minor = dev->nvrtc.minor,
		.device_name = dev->name,
		.cc_major = dev->cc_major,
		.cc_minor = dev->cc_minor,
		.driver_version = dev->driver_version,
	};

	return weft__cuda_cache_key(&in, key);
}

/* From the cache: 1 when a cached CUBIN loaded, 0 when there is none (or
 * it is unusable: then it is overwritten after compiling). */
static int load_cached(weft_device *dev, weft_program *prog,
		       const weft__cuda_key *key)
{
	size_t size;
	void *cubin = weft__cuda_cache_load(dev->cache_dir, key, &size);
	int ok = cubin && library_load(dev, prog, cubin, NULL) == WEFT_OK;

	if (cubin && !ok)
		prog->lib = NULL;
	free(cubin);
	return ok;
}

/* Compile with NVRTC and load; store the CUBIN under key (NULL: no
 * cache). */
static weft_status compile_and_load(weft_device *dev, weft_program *prog,
				    const char *text, const weft__cuda_key *key,
				    weft_error *err)
{
	void *cubin = NULL;
	size_t size = 0;
	weft_status st = weft__cuda_compile(&dev->nvrtc, prog->pg.name, text,
					    dev->cc_major, dev->cc_minor,
					    dev->where, &cubin, &size, err);

	if (st == WEFT_OK)
		st = library_load(dev, prog, cubin, err);
	if (st == WEFT_OK && key)
		(void)weft__cuda_cache_store(dev->cache_dir, key, cubin, size);
	free(cubin);
	return st;
}

/* prog->lib from the cache or from NVRTC. */
static weft_status build(weft_device *dev, weft_program *prog,
			 const weft_program_desc *desc, weft_error *err)
{
	size_t len = desc->source_len ? desc->source_len : strlen(desc->source);
	size_t text_len = 0;
	char *text = weft__cuda_program_text(desc->name, desc->source, len,
					     &text_len);
	weft__cuda_key key;
	int keyed;
	weft_status st;

	if (!text)
		return weft__cuda_fail(err, WEFT_E_NOMEM,
				       "program '%s': out of host memory for "
				       "%zu bytes of source",
				       desc->name, len);
	st = weft__cuda_nvrtc_open(&dev->nvrtc, err);
	if (st == WEFT_OK) {
		keyed = dev->cache_dir &&
			key_of(dev, text, text_len, &key) == 0;
		if (keyed && load_cached(dev, prog, &key)) {
			dev->st.cache_hits++;
		} else {
			st = compile_and_load(dev, prog, text,
					      keyed ? &key : NULL, err);
			dev->st.cache_misses++;
		}
	}
	free(text);
	return st;
}

weft_status weft__cuda_load_program(weft_device *dev,
				    const weft_program_desc *desc,
				    weft_program **out, weft_error *err)
{
	uint64_t t0 = weft__clock_ns();
	weft_program *prog;
	weft_status st;

	if ((st = weft__chk_load(&weft__cuda_chk, dev, desc, out, 0,
				 "the CUDA backend compiles it at run time",
				 err)) ||
	    (st = weft__cuda_enter(dev, err)))
		return st;
	prog = WEFT__PROG_NEW(weft_program, fns, desc);
	if (!prog)
		return weft__cuda_fail(err, WEFT_E_NOMEM,
				       "%s: out of host memory loading program "
				       "'%s' (%u kernels)",
				       dev->where, desc->name,
				       (unsigned)desc->n_kernels);
	if ((st = build(dev, prog, desc, err)) ||
	    (st = find_kernels(dev, prog, err))) {
		program_free(prog);
		return st;
	}
	weft__prog_link(&dev->programs, &prog->pg);
	*out = prog;
	dev->st.time_ns[WEFT_PHASE_LOAD] += weft__clock_ns() - t0;
	return WEFT_OK;
}

/* ---- timing ---------------------------------------------------------------
 */

/* 1 and the time between the pair's events once both have completed, 0
 * before, -1 when the runtime cannot tell. Never waits. */
static int pair_done(void *ctx, void *a, void *b, uint64_t *ns)
{
	cudaError_t e = cudaEventQuery((cudaEvent_t)b);
	float ms = 0;

	(void)ctx;
	if (e == cudaErrorNotReady) {
		(void)cudaGetLastError(); /* not an error: clear it */
		return 0;
	}
	if (e != cudaSuccess ||
	    cudaEventElapsedTime(&ms, (cudaEvent_t)a, (cudaEvent_t)b) !=
		    cudaSuccess) {
		(void)cudaGetLastError();
		return -1;
	}
	*ns = ms > 0 ? (uint64_t)((double)ms * 1e6) : 0;
	return 1;
}

static void pair_release(void *ctx, void *a, void *b)
{
	(void)ctx;
	(void)cudaEventDestroy((cudaEvent_t)a);
	(void)cudaEventDestroy((cudaEvent_t)b);
}

static const weft__ktimer *timer(void)
{
	static const weft__ktimer t = { pair_done, pair_release, NULL };

	return &t;
}

weft_status weft__cuda_timing_open(weft_device *dev, weft_error *err)
{
	if (!dev->profile || weft__kring_init(&dev->timing, TIMED_MAX) == 0)
		return WEFT_OK;
	return weft__cuda_fail(err, WEFT_E_NOMEM,
			       "open: out of host memory for timing %d "
			       "launches",
			       TIMED_MAX);
}

void weft__cuda_timing_harvest(weft_device *dev)
{
	if (dev->profile)
		weft__kring_harvest(&dev->timing, timer());
}

void weft__cuda_timing_close(weft_device *dev)
{
	weft__cuda_timing_harvest(dev);
	if (dev->profile)
		weft__kring_free(&dev->timing, timer());
}

weft_status weft__cuda_kernel_stats(weft_device *dev, weft_program *prog,
				    weft_kernel_stat *out, uint32_t n,
				    weft_error *err)
{
	if (dev && weft__cuda_enter(dev, NULL) == WEFT_OK)
		weft__cuda_timing_harvest(dev);
	return weft__kstats_get("cuda", dev, prog ? &prog->pg : NULL, out, n,
				err);
}

/* A pair of timing events for the next launch, or both NULL when the ring
 * stays full after a harvest or events cannot be created (the launch then
 * runs untimed). Never waits. */
static void timing_pair(weft_device *dev, cudaEvent_t *a, cudaEvent_t *b)
{
	*a = *b = NULL;
	if (weft__kring_full(&dev->timing))
		weft__kring_harvest(&dev->timing, timer());
	if (weft__kring_full(&dev->timing))
		return;
	if (cudaEventCreateWithFlags(a, cudaEventDefault) != cudaSuccess ||
	    cudaEventCreateWithFlags(b, cudaEventDefault) != cudaSuccess) {
		(void)cudaGetLastError();
		if (*a)
			(void)cudaEventDestroy(*a);
		*a = *b = NULL;
	}
}

/* Waits for the device first: queued launches and graphs may still use
 * the program's kernels. */
void weft__cuda_unload_program(weft_device *dev, weft_program *prog)
{
	if (!dev || !prog)
		return;
	if (weft__cuda_enter(dev, NULL) == WEFT_OK)
		(void)weft__cuda_drain(dev, NULL);
	weft__cuda_timing_harvest(dev);
	if (dev->profile)
		weft__kring_forget(&dev->timing, timer(), &prog->pg);
	weft__prog_unlink(&dev->programs, &prog->pg);
	program_free(prog);
}

/* The streams are idle (close). */
void weft__cuda_programs_release(weft_device *dev)
{
	while (dev->programs) {
		weft_program *prog = PROG_OF(dev->programs);

		weft__prog_unlink(&dev->programs, &prog->pg);
		program_free(prog);
	}
}

/* ---- resolving and enqueueing ------------------------------------------- */

/* Blocks per replica row, for `rows` rows. */
static uint32_t grid_for(const weft_device *dev, uint32_t capacity,
			 uint32_t rows)
{
	uint64_t blocks =
		((uint64_t)capacity + WEFT__CUDA_BLOCK - 1) / WEFT__CUDA_BLOCK;
	uint64_t most = (uint64_t)dev->sm_count * WEFT__CUDA_BLOCKS_PER_SM;

	most = most / rows ? most / rows : 1;
	return (uint32_t)(blocks < most ? blocks : most);
}

/* Replica strides of a record (lay NULL: step(), one replica). */
static void resolve_replicas(struct weft__cuda_rec *r, const weft_launch *l,
			     const weft_replica_layout *lay, uint32_t replicas)
{
	r->a.replicas = replicas;
	r->grid_y = replicas < WEFT__CUDA_MAX_GRID_Y ? replicas
						     : WEFT__CUDA_MAX_GRID_Y;
	if (!lay)
		return;
	for (uint32_t k = 0; k < l->n_bufs; k++)
		r->a.stride[k] = lay->stride[k];
	if (l->extent_buf)
		r->a.xstride = lay->extent_stride / sizeof(uint32_t);
}

/* Records for a validated list (malloc()ed, every byte written), with
 * layouts for `replicas` replicas (NULL: step()); the number of launches
 * that run something goes to *active. */
static struct weft__cuda_rec *
resolve(const weft_device *dev, const weft_program *prog,
	const weft_launch *launches, const weft_replica_layout *layouts,
	uint32_t n, uint32_t replicas, uint32_t *active)
{
	struct weft__cuda_rec *recs = calloc(n, sizeof *recs);

	*active = 0;
	for (uint32_t i = 0; recs && i < n; i++) {
		const weft_launch *l = &launches[i];
		struct weft__cuda_rec *r = &recs[i];

		r->fn = prog->fns[l->kernel];
		for (uint32_t k = 0; k < l->n_bufs; k++)
			r->a.b[k] = l->bufs[k]->ptr;
		r->a.xcap = l->extent;
		if (l->extent_buf) {
			r->a.xbuf = l->extent_buf->ptr;
			r->a.xoff =
				l->extent_offset / (uint32_t)sizeof(uint32_t);
			r->a.xdyn = 1;
		}
		resolve_replicas(r, l, layouts ? &layouts[i] : NULL, replicas);
		r->grid = grid_for(dev, l->extent, r->grid_y);
		*active += r->grid != 0;
	}
	return recs;
}

static cudaError_t launch_rec(struct weft__cuda_rec *r, cudaStream_t s)
{
	dim3 grid = { r->grid, r->grid_y, 1 };
	dim3 block = { WEFT__CUDA_BLOCK, 1, 1 };
	void *params[1] = { &r->a };

	if (r->grid == 0)
		return cudaSuccess;
	return cudaLaunchKernel((const void *)r->fn, grid, block, params, 0, s);
}

/* Enqueue one step's launches; 0 or the first failure. *enq (when not
 * NULL): the launches enqueued, all n unless one failed. */
static cudaError_t launch_list(struct weft__cuda_rec *recs, uint32_t n,
			       cudaStream_t s, uint32_t *enq)
{
	cudaError_t e = cudaSuccess;
	uint32_t i;

	for (i = 0; i < n && e == cudaSuccess; i++)
		e = launch_rec(&recs[i], s);
	if (enq)
		*enq = e == cudaSuccess ? n : i - 1;
	return e;
}

/* Enqueue one step's launches, each between two timing events kept in
 * the device's ring; 0 or the first failure. *enq: the launches
 * enqueued (a launch that failed is not; one whose closing event failed
 * is, untimed), so that no more are timed than counted. */
static cudaError_t launch_list_timed(weft_device *dev, weft_program *prog,
				     const weft_launch *launches,
				     struct weft__cuda_rec *recs, uint32_t n,
				     cudaStream_t s, uint32_t *enq)
{
	cudaError_t e = cudaSuccess;

	*enq = 0;
	for (uint32_t i = 0; i < n && e == cudaSuccess; i++) {
		cudaEvent_t a = NULL, b = NULL;

		if (recs[i].grid)
			timing_pair(dev, &a, &b);
		if (a)
			e = cudaEventRecord(a, s);
		if (e == cudaSuccess) {
			e = launch_rec(&recs[i], s);
			*enq += e == cudaSuccess;
		}
		if (e == cudaSuccess && b)
			e = cudaEventRecord(b, s);
		if (e == cudaSuccess && a)
			weft__kring_push(&dev->timing, &prog->pg,
					 launches[i].kernel, a, b);
		else if (a)
			pair_release(NULL, a, b);
		if (e == cudaSuccess && !recs[i].grid) /* ran nothing */
			weft__kstats_time(&prog->pg, launches[i].kernel, 0);
	}
	return e;
}

/* *done: the whole steps enqueued; *part: the launches of the step that
 * failed enqueued before it did. */
static weft_status step_plain(weft_device *dev, weft_program *prog,
			      const weft_launch *launches,
			      struct weft__cuda_rec *recs, uint32_t n,
			      uint64_t n_steps, uint64_t *done, uint32_t *part,
			      weft_error *err)
{
	cudaStream_t s = dev->stream[WEFT__CUDA_COMPUTE];
	cudaError_t e = cudaSuccess;
	uint32_t enq = 0;

	while (*done < n_steps && e == cudaSuccess) {
		e = dev->profile ? launch_list_timed(dev, prog, launches, recs,
						     n, s, &enq)
				 : launch_list(recs, n, s, &enq);
		*done += e == cudaSuccess;
	}
	*part = e == cudaSuccess ? 0 : enq;
	return weft__cuda_check(dev, e, err,
				"launching step %llu of %llu of program '%s'",
				(unsigned long long)*done + 1,
				(unsigned long long)n_steps, prog->pg.name);
}

/* Capture reps steps of recs from the compute stream and instantiate. */
static weft_status capture(weft_device *dev, const weft_program *prog,
			   struct weft__cuda_rec *recs, uint32_t n,
			   uint32_t reps, cudaGraphExec_t *out, weft_error *err)
{
	cudaStream_t s = dev->stream[WEFT__CUDA_COMPUTE];
	cudaGraph_t graph = NULL;
	cudaError_t e, e_end;

	*out = NULL;
	e = cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
	if (e == cudaSuccess) {
		for (uint32_t r = 0; r < reps && e == cudaSuccess; r++)
			e = launch_list(recs, n, s, NULL);
		/* Always end the capture, even after a failed launch. */
		e_end = cudaStreamEndCapture(s, &graph);
		if (e == cudaSuccess)
			e = e_end;
	}
	if (e == cudaSuccess)
		e = cudaGraphInstantiate(out, graph, 0);
	if (graph)
		(void)cudaGraphDestroy(graph);
	if (e != cudaSuccess)
		*out = NULL;
	else
		dev->st.graph_captures++;
	return weft__cuda_check(dev, e, err,
				"capturing %u step%s of program '%s' (%u "
				"launches each) as a CUDA graph",
				(unsigned)reps, reps == 1 ? "" : "s",
				prog->pg.name, (unsigned)n);
}

/* The graphs for recs: kept when recs are what they were captured from,
 * else dropped. Takes ownership of recs. */
static void graph_select(struct weft__cuda_graph *g,
			 struct weft__cuda_rec *recs, uint32_t n)
{
	if (g->recs && g->n_recs == n &&
	    memcmp(g->recs, recs, n * sizeof *recs) == 0) {
		free(recs);
		return;
	}
	graph_reset(g);
	g->recs = recs;
	g->n_recs = n;
}

static weft_status launch_graph(weft_device *dev, const weft_program *prog,
				cudaGraphExec_t exec, uint64_t steps,
				uint64_t *done, uint64_t n_steps,
				weft_error *err)
{
	weft_status st = weft__cuda_check(
		dev, cudaGraphLaunch(exec, dev->stream[WEFT__CUDA_COMPUTE]),
		err, "launching the graph of step %llu of %llu of program '%s'",
		(unsigned long long)*done + 1, (unsigned long long)n_steps,
		prog->pg.name);

	if (st == WEFT_OK) {
		*done += steps;
		dev->st.graph_launches++;
	}
	return st;
}

static weft_status step_graphs(weft_device *dev, weft_program *prog,
			       struct weft__cuda_rec *recs, uint32_t n,
			       uint64_t n_steps, uint64_t *done,
			       weft_error *err)
{
	struct weft__cuda_graph *g = &prog->graph;
	const uint32_t u = WEFT__CUDA_GRAPH_UNROLL;
	weft_status st = WEFT_OK;

	graph_select(g, recs, n);
	if (!g->one)
		st = capture(dev, prog, g->recs, n, 1, &g->one, err);
	if (st == WEFT_OK && n_steps >= u && !g->many)
		st = capture(dev, prog, g->recs, n, u, &g->many, err);
	while (st == WEFT_OK && n_steps - *done >= u)
		st = launch_graph(dev, prog, g->many, u, done, n_steps, err);
	while (st == WEFT_OK && *done < n_steps)
		st = launch_graph(dev, prog, g->one, 1, done, n_steps, err);
	return st;
}

/* Whether a launch of the list must wait for the copy stream: kernels may
 * read and write every bound buffer; the extent buffer is read. */
static int list_hazard(const weft_device *dev, const weft_launch *launches,
		       uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		const weft_launch *l = &launches[i];

		if (weft__cuda_hazard(dev, l->extent_buf, 0))
			return 1;
		for (uint32_t k = 0; k < l->n_bufs; k++)
			if (weft__cuda_hazard(dev, l->bufs[k], 1))
				return 1;
	}
	return 0;
}

/* Enqueue a validated list n_steps times, for `replicas` replicas laid
 * out as layouts say (NULL: step()); *done counts the whole steps
 * enqueued, *part the launches of a step that failed partway. */
static weft_status enqueue(weft_device *dev, weft_program *prog,
			   const weft_launch *launches,
			   const weft_replica_layout *layouts, uint32_t n,
			   uint32_t replicas, uint64_t n_steps, uint64_t *done,
			   uint32_t *part, weft_error *err)
{
	uint32_t active = 0;
	struct weft__cuda_rec *recs =
		resolve(dev, prog, launches, layouts, n, replicas, &active);
	weft_status st;

	if (!recs)
		return weft__cuda_fail(err, WEFT_E_NOMEM,
				       "step: out of host memory for %u "
				       "launches",
				       (unsigned)n);
	if (active == 0) { /* every capacity is 0: nothing to run */
		for (uint32_t i = 0; dev->profile && i < n; i++)
			prog->pg.kstat[launches[i].kernel].timed += n_steps;
		free(recs);
		*done = n_steps;
		return WEFT_OK;
	}
	st = weft__cuda_order_compute(dev, list_hazard(dev, launches, n), err);
	if (st != WEFT_OK) {
		free(recs);
		return st;
	}
	if (dev->use_graphs)
		return step_graphs(dev, prog, recs, n, n_steps, done, err);
	st = step_plain(dev, prog, launches, recs, n, n_steps, done, part, err);
	free(recs);
	return st;
}

/* A validated list: enqueued, and counted. */
static weft_status step_list(weft_device *dev, weft_program *prog,
			     const weft_launch *launches,
			     const weft_replica_layout *layouts,
			     uint32_t n_launches, uint32_t replicas,
			     uint64_t n_steps, uint64_t t0, weft_error *err)
{
	uint64_t done = 0;
	uint32_t part = 0;
	weft_status st = WEFT_OK;

	if (n_steps && n_launches) {
		st = weft__cuda_enter(dev, err);
		if (st == WEFT_OK)
			st = enqueue(dev, prog, launches, layouts, n_launches,
				     replicas, n_steps, &done, &part, err);
	} else {
		done = n_steps;
	}
	/* What was enqueued, a step that failed partway included: never
	 * fewer launches than were timed. */
	weft__kstats_count(&prog->pg, launches, n_launches, done);
	weft__kstats_count(&prog->pg, launches, part, 1);
	weft__stats_step(&dev->st, done, n_launches, t0);
	dev->st.launches += part;
	return st;
}

weft_status weft__cuda_step(weft_device *dev, weft_program *prog,
			    const weft_launch *launches, uint32_t n_launches,
			    uint64_t n_steps, weft_error *err)
{
	uint64_t t0 = weft__clock_ns();
	weft_status st;

	st = weft__chk_step(&weft__cuda_chk, dev, prog, launches, n_launches,
			    err);
	if (st != WEFT_OK)
		return st;
	return step_list(dev, prog, launches, NULL, n_launches, 1, n_steps, t0,
			 err);
}

weft_status weft__cuda_step_replicas(weft_device *dev, weft_program *prog,
				     const weft_launch *launches,
				     const weft_replica_layout *layouts,
				     uint32_t n_launches, uint32_t replicas,
				     uint64_t n_steps, weft_error *err)
{
	uint64_t t0 = weft__clock_ns();
	weft_status st;

	st = weft__chk_step_replicas(&weft__cuda_chk, dev, prog, launches,
				     layouts, n_launches, replicas, err);
	if (st != WEFT_OK)
		return st;
	return step_list(dev, prog, launches, layouts, n_launches, replicas,
			 n_steps, t0, err);
}
