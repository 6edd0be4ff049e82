/*
 * python/src/_weft.c - weft._weft, the C extension of the Python package:
 * libweft's public API (weft/weft.h) and CartPole's (weft/cartpole.h), no
 * ctypes. The Python modules (weft/__init__.py, weft/envs.py) build the
 * user-facing API on the few types here:
 *
 *   Sim        one run (weft_sim_open/step/finish/close): steps in chunks
 *              with the GIL released, Python's signals checked between
 *              chunks, so Ctrl-C raises KeyboardInterrupt and, since
 *              outputs are committed only by finish(), replaces nothing;
 *   CartPole   weft_cartpole_*: host actions from any buffer or DLPack
 *              producer of integers, device actions, resets with seeds,
 *              states; it exports the packed result as a read-only buffer,
 *              the device's own memory on host backends, so numpy views
 *              of it are made once and never copied;
 *   DeviceArray one array of the packed result or the action buffer where
 *              it lies, for DLPack (__dlpack__, __dlpack_device__);
 *   backends(), models(), check(), version().
 *
 * Errors: every failing weft_status raises the class of weft.errors for
 * its family with the context's message (the C message, unchanged).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <ctype.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <weft/cartpole.h>
#include <weft/weft.h>

/* ---- DLPack (the stable C ABI of dlpack.h, v0.8, written out) ---------- */

enum { DL_CPU = 1, DL_CUDA = 2, DL_CUDA_HOST = 3 };
enum { DL_INT = 0, DL_UINT = 1, DL_FLOAT = 2, DL_BOOL = 6 };

typedef struct {
	int32_t device_type, device_id;
} dl_device;

typedef struct {
	uint8_t code, bits;
	uint16_t lanes;
} dl_dtype;

typedef struct {
	void *data;
	dl_device device;
	int32_t ndim;
	dl_dtype dtype;
	int64_t *shape, *strides;
	uint64_t byte_offset;
} dl_tensor;

typedef struct dl_managed {
	dl_tensor t;
	void *manager_ctx;
	void (*deleter)(struct dl_managed *self);
} dl_managed;

/* DLPack 1.0's versioned tensor, for consumers that ask for it
 * (max_version >= (1, 0)): it says read-only, which the legacy one cannot,
 * so numpy makes the action buffer writable and the results not. */
#define DL_FLAG_READ_ONLY 1u
typedef struct dl_managed_v1 {
	uint32_t major, minor;
	void *manager_ctx;
	void (*deleter)(struct dl_managed_v1 *self);
	uint64_t flags;
	dl_tensor t;
} dl_managed_v1;

/* ---- errors ------------------------------------------------------------ */

/* weft.errors' classes, by -status (WEFT_OK unused). */
#define N_STATUS 11
static PyObject *error_class[N_STATUS];

static PyObject *raise_status(weft_status st, const char *msg)
{
	int k = -(int)st;
	PyObject *cls = k > 0 && k < N_STATUS ? error_class[k] : NULL;
	PyObject *exc;

	if (st == WEFT_E_CANCELLED) {
		/* Only a SIGINT cancels a call from Python (cancel_guard). */
		PyErr_SetNone(PyExc_KeyboardInterrupt);
		return NULL;
	}
	if (!cls)
		cls = error_class[-WEFT_E_INTERNAL];
	exc = PyObject_CallFunction(
		cls, "si", msg && msg[0] ? msg : weft_status_str(st), (int)st);
	if (exc) {
		PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
		Py_DECREF(exc);
	}
	return NULL;
}

static PyObject *raise_ctx(weft_context *ctx, weft_status st)
{
	return raise_status(st, ctx ? weft_context_error(ctx) : "");
}

static int load_errors(void)
{
	static const char *const names[N_STATUS] = {
		NULL,
		"InvalidArgumentError",
		"OutOfMemoryError",
		"FileError",
		"ConfigError",
		"PluginError",
		"BackendError",
		"DeviceError",
		"ModelError",
		"UnsupportedError",
		"InternalError",
	};
	PyObject *mod = PyImport_ImportModule("weft.errors");

	if (!mod)
		return -1;
	for (int k = 1; k < N_STATUS; k++)
		if (!(error_class[k] = PyObject_GetAttrString(mod, names[k]))) {
			Py_DECREF(mod);
			return -1;
		}
	Py_DECREF(mod);
	return 0;
}

/* ---- Ctrl-C during a long call ------------------------------------------ */

/*
 * Setup (a population built, kernels compiled) and the finish (outputs
 * written, a plot drawn) are single libweft calls that can take seconds.
 * While one runs with the GIL released on the main thread, and SIGINT is
 * Python's default handler, a SIGINT cancels it through
 * weft_context_cancel() (async-signal-safe): the call returns
 * WEFT_E_CANCELLED promptly, having committed nothing, and it is raised as
 * KeyboardInterrupt. Python's handler is put back when the call returns.
 * Elsewhere (another thread, a handler of the user's) SIGINT is left alone.
 */
static weft_context *volatile sigint_ctx;

static void on_sigint(int sig)
{
	weft_context *ctx = sigint_ctx;

	(void)sig;
	if (ctx)
		weft_context_cancel(ctx);
}

typedef struct cancel_guard {
	int armed;
	struct sigaction old;
} cancel_guard;

/* 1 when SIGINT is Python's default handler and this is the main thread. */
static int sigint_is_default(void)
{
	PyObject *sig = PyImport_ImportModule("signal");
	PyObject *thr = PyImport_ImportModule("threading");
	PyObject *h = NULL, *dflt = NULL, *cur = NULL, *main = NULL;
	int yes = 0;

	if (sig && thr) {
		h = PyObject_CallMethod(sig, "getsignal", "i", SIGINT);
		dflt = PyObject_GetAttrString(sig, "default_int_handler");
		cur = PyObject_CallMethod(thr, "current_thread", NULL);
		main = PyObject_CallMethod(thr, "main_thread", NULL);
		yes = h && dflt && cur && main && h == dflt && cur == main;
	}
	Py_XDECREF(h);
	Py_XDECREF(dflt);
	Py_XDECREF(cur);
	Py_XDECREF(main);
	Py_XDECREF(sig);
	Py_XDECREF(thr);
	PyErr_Clear();
	return yes;
}

/* Before releasing the GIL: SIGINT cancels ctx's call, when it may. */
static void guard_arm(cancel_guard *g, weft_context *ctx)
{
	struct sigaction sa;

	g->armed = 0;
	if (!sigint_is_default())
		return;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigint_ctx = ctx;
	if (sigaction(SIGINT, &sa, &g->old) == 0)
		g->armed = 1;
	else
		sigint_ctx = NULL;
}

/* After the call, GIL held: Python's handler back, the flag cleared so the
 * object can still be closed. */
static void guard_disarm(cancel_guard *g, weft_context *ctx)
{
	if (!g->armed)
		return;
	sigaction(SIGINT, &g->old, NULL);
	sigint_ctx = NULL;
	weft_context_reset_cancel(ctx);
}

/* ---- configurations ---------------------------------------------------- */

/* text[0..n) into buf, control characters as \xNN (as weft's messages
 * show them), cut to what fits. */
static void escape_into(char *buf, size_t size, const char *text, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n && k + 5 < size; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c < 0x20 || c == 0x7f)
			k += (size_t)snprintf(buf + k, size - k, "\\x%02x", c);
		else
			buf[k++] = (char)c;
	}
	buf[k] = '\0';
}

/* text[0..n) without the white space around it (what weft_config_set()
 * trims): *start and *len. */
static void trimmed(const char *text, size_t n, const char **start, size_t *len)
{
	while (n > 0 && isspace((unsigned char)*text))
		text++, n--;
	while (n > 0 && isspace((unsigned char)text[n - 1]))
		n--;
	*start = text;
	*len = n;
}

/* One "section.key=value" override as a C string, its whole length: a NUL
 * byte in it, which a C string would silently cut off (writing to ./a for
 * output.directory = "a\0b"), raises ConfigError naming the key, as
 * weft_config_set() refuses every other control character and as a
 * configuration file refuses a NUL byte. */
static const char *set_text(PyObject *o)
{
	char key[256], shown[256], msg[768];
	const char *a, *nul, *eq, *k, *v;
	size_t klen, vlen;
	Py_ssize_t n;

	if (!(a = PyUnicode_AsUTF8AndSize(o, &n)))
		return NULL;
	if (!(nul = memchr(a, '\0', (size_t)n)))
		return a;
	eq = memchr(a, '=', (size_t)n);
	trimmed(a, eq ? (size_t)(eq - a) : (size_t)n, &k, &klen);
	escape_into(key, sizeof key, k, klen);
	if (!eq || nul < eq) {
		snprintf(msg, sizeof msg,
			 "--set '%s': a NUL byte (\\x00) in the key at column "
			 "%zu: a configuration holds text only",
			 key, (size_t)(nul - k) + 1);
	} else {
		trimmed(eq + 1, (size_t)(a + n - eq - 1), &v, &vlen);
		escape_into(shown, sizeof shown, v, (size_t)(nul - v));
		snprintf(msg, sizeof msg,
			 "--set %s: a NUL byte (\\x00) at column %zu: '%s': a "
			 "configuration holds text only",
			 key, (size_t)(nul - v) + 1, shown);
	}
	raise_status(WEFT_E_CONFIG, msg);
	return NULL;
}

/* A configuration from an INI file (path may be None) and a sequence of
 * "section.key=value" strings, validated. */
static weft_config *make_config(weft_context *ctx, PyObject *path,
				PyObject *sets, int validate)
{
	weft_config *cfg = NULL;
	PyObject *seq = NULL;
	weft_status st;

	if (path && path != Py_None) {
		PyObject *b;

		if (!PyUnicode_FSConverter(path, &b))
			return NULL;
		st = weft_config_load(ctx, PyBytes_AS_STRING(b), &cfg);
		Py_DECREF(b);
	} else {
		st = weft_config_new(ctx, &cfg);
	}
	if (st)
		goto fail;
	seq = PySequence_Fast(sets, "sets must be a sequence of strings");
	if (!seq)
		goto free_cfg;
	for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
		const char *a = set_text(PySequence_Fast_GET_ITEM(seq, i));

		if (!a)
			goto free_cfg;
		if ((st = weft_config_set(ctx, cfg, a)))
			goto fail;
	}
	if (validate && (st = weft_config_validate(ctx, cfg)))
		goto fail;
	Py_DECREF(seq);
	return cfg;
fail:
	raise_ctx(ctx, st);
free_cfg:
	Py_XDECREF(seq);
	weft_config_free(cfg);
	return NULL;
}

static PyObject *py_check(PyObject *self, PyObject *args)
{
	PyObject *path, *sets;
	weft_context *ctx;
	weft_config *cfg;

	(void)self;
	if (!PyArg_ParseTuple(args, "OO", &path, &sets))
		return NULL;
	if (weft_context_new(&ctx))
		return PyErr_NoMemory();
	cfg = make_config(ctx, path, sets, 1);
	weft_config_free(cfg);
	weft_context_free(ctx);
	if (!cfg)
		return NULL;
	Py_RETURN_NONE;
}

/* ---- listings ---------------------------------------------------------- */

/* A list of the n items item(l, i) makes. */
static PyObject *to_list(const void *l, size_t n,
			 PyObject *(*item)(const void *l, size_t i))
{
	PyObject *out = PyList_New(0);

	for (size_t i = 0; out && i < n; i++) {
		PyObject *d = item(l, i);

		if (!d || PyList_Append(out, d))
			Py_CLEAR(out);
		Py_XDECREF(d);
	}
	return out;
}

static PyObject *backend_item(const void *l, size_t i)
{
	const weft_backend_info *b = weft_backend_list_at(l, i);

	return Py_BuildValue("{s:s,s:s,s:s,s:s,s:s,s:s,s:i,s:O}", "name",
			     b->name, "path", b->path, "state", b->state,
			     "stage", b->stage ? b->stage : "", "reason",
			     b->reason, "devices", b->devices ? b->devices : "",
			     "score", b->score, "shadowed",
			     b->shadowed ? Py_True : Py_False);
}

static PyObject *model_item(const void *l, size_t i)
{
	const weft_model_info *m = weft_model_list_at(l, i);

	return Py_BuildValue("{s:s,s:s,s:s,s:s,s:s,s:s,s:s}", "name", m->name,
			     "path", m->path, "state", m->state, "stage",
			     m->stage ? m->stage : "", "reason", m->reason,
			     "summary", m->summary, "version", m->version);
}

static PyObject *py_backends(PyObject *self, PyObject *args)
{
	const char *path = NULL;
	weft_backend_list *l = NULL;
	weft_context *ctx;
	PyObject *out;
	weft_status st;

	(void)self;
	if (!PyArg_ParseTuple(args, "|z", &path))
		return NULL;
	if (weft_context_new(&ctx))
		return PyErr_NoMemory();
	Py_BEGIN_ALLOW_THREADS st = weft_backends_scan(ctx, path, &l);
	Py_END_ALLOW_THREADS out =
		st ? raise_ctx(ctx, st)
		   : to_list(l, weft_backend_list_count(l), backend_item);
	weft_backend_list_free(l);
	weft_context_free(ctx);
	return out;
}

static PyObject *py_models(PyObject *self, PyObject *args)
{
	const char *path = NULL;
	weft_model_list *l = NULL;
	weft_context *ctx;
	PyObject *out;
	weft_status st;

	(void)self;
	if (!PyArg_ParseTuple(args, "|z", &path))
		return NULL;
	if (weft_context_new(&ctx))
		return PyErr_NoMemory();
	Py_BEGIN_ALLOW_THREADS st = weft_models_scan(ctx, path, &l);
	Py_END_ALLOW_THREADS out =
		st ? raise_ctx(ctx, st)
		   : to_list(l, weft_model_list_count(l), model_item);
	weft_model_list_free(l);
	weft_context_free(ctx);
	return out;
}

static PyObject *stats_dict(const weft_stats *s)
{
	static const char *const dirs[] = { "h2d", "d2h", "d2d" };
	static const char *const phases[] = { "alloc", "transfer", "load",
					      "kernel", "sync" };
	PyObject *d = Py_BuildValue(
		"{s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K}",
		"allocs", s->allocs, "pool_reuses", s->pool_reuses, "frees",
		s->frees, "bytes_in_use", s->bytes_in_use, "bytes_peak",
		s->bytes_peak, "launches", s->launches, "steps", s->steps,
		"syncs", s->syncs, "fence_waits", s->fence_waits, "cache_hits",
		s->cache_hits, "cache_misses", s->cache_misses,
		"graph_launches", s->graph_launches, "xfer_waits",
		s->xfer_waits, "staging_allocs", s->staging_allocs);
	char key[40];

	for (int k = 0; d && k < WEFT_DIR_COUNT; k++) {
		PyObject *c = PyLong_FromUnsignedLongLong(s->xfer_count[k]);
		PyObject *b = PyLong_FromUnsignedLongLong(s->xfer_bytes[k]);

		snprintf(key, sizeof key, "transfers_%s", dirs[k]);
		if (!c || !b || PyDict_SetItemString(d, key, c))
			Py_CLEAR(d);
		snprintf(key, sizeof key, "bytes_%s", dirs[k]);
		if (d && PyDict_SetItemString(d, key, b))
			Py_CLEAR(d);
		Py_XDECREF(c);
		Py_XDECREF(b);
	}
	for (int k = 0; d && k < WEFT_PHASE_COUNT; k++) {
		PyObject *t = PyFloat_FromDouble((double)s->time_ns[k] * 1e-9);

		snprintf(key, sizeof key, "seconds_%s", phases[k]);
		if (!t || PyDict_SetItemString(d, key, t))
			Py_CLEAR(d);
		Py_XDECREF(t);
	}
	return d;
}

/* ---- Sim: one run ------------------------------------------------------ */

typedef struct {
	PyObject_HEAD weft_context *ctx;
	weft_config *cfg;
	weft_sim *sim;
	int busy; /* a call with the GIL released is under way */
} SimObject;

static void sim_release(SimObject *s)
{
	weft_sim_close(s->sim); /* outputs not committed are removed */
	s->sim = NULL;
	weft_config_free(s->cfg);
	s->cfg = NULL;
}

static void Sim_dealloc(SimObject *s)
{
	sim_release(s);
	weft_context_free(s->ctx);
	Py_TYPE(s)->tp_free((PyObject *)s);
}

static int Sim_init(SimObject *s, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "config", "sets", NULL };
	PyObject *path, *sets;
	cancel_guard g;
	weft_status st;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO", kwlist, &path, &sets))
		return -1;
	if (s->ctx || weft_context_new(&s->ctx)) {
		PyErr_SetString(PyExc_RuntimeError, "Sim initialised twice");
		return -1;
	}
	if (!(s->cfg = make_config(s->ctx, path, sets, 0)))
		return -1;
	/* Setup runs with the GIL released; a Ctrl-C cancels it. */
	s->busy = 1;
	guard_arm(&g, s->ctx);
	Py_BEGIN_ALLOW_THREADS st = weft_sim_open(s->ctx, s->cfg, &s->sim);
	Py_END_ALLOW_THREADS s->busy = 0;
	guard_disarm(&g, s->ctx);
	if (st) {
		raise_ctx(s->ctx, st);
		return -1;
	}
	if (PyErr_CheckSignals() < 0) {
		sim_release(s);
		return -1;
	}
	return 0;
}

static int sim_ready(SimObject *s)
{
	if (!s->sim) {
		PyErr_SetString(PyExc_RuntimeError, "the run is closed");
		return 0;
	}
	if (s->busy) {
		PyErr_SetString(PyExc_RuntimeError,
				"the run is in use by another thread");
		return 0;
	}
	return 1;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* n steps, in chunks that double while one takes under 50 ms (as `weft
 * run` does): the GIL is released during each chunk and Python's signal
 * handlers run between chunks, so Ctrl-C raises KeyboardInterrupt within
 * about 100 ms. Chunking does not change results. */
static PyObject *Sim_step(SimObject *s, PyObject *args)
{
	unsigned long long n, done = 0, chunk = 1;
	weft_status st = WEFT_OK;

	if (!PyArg_ParseTuple(args, "K", &n) || !sim_ready(s))
		return NULL;
	while (done < n) {
		unsigned long long k = n - done < chunk ? n - done : chunk;
		double t0 = now_s();

		s->busy = 1;
		Py_BEGIN_ALLOW_THREADS st = weft_sim_step(s->sim, k);
		Py_END_ALLOW_THREADS s->busy = 0;
		if (st)
			return raise_ctx(s->ctx, st);
		done += k;
		if (PyErr_CheckSignals() < 0)
			return NULL;
		if (now_s() - t0 < 0.05 && chunk < (1ull << 40))
			chunk *= 2;
	}
	Py_RETURN_NONE;
}

static PyObject *Sim_finish(SimObject *s, PyObject *unused)
{
	cancel_guard g;
	weft_status st;

	(void)unused;
	if (!sim_ready(s))
		return NULL;
	s->busy = 1;
	guard_arm(&g, s->ctx);
	Py_BEGIN_ALLOW_THREADS st = weft_sim_finish(s->sim);
	Py_END_ALLOW_THREADS s->busy = 0;
	guard_disarm(&g, s->ctx);
	if (st)
		return raise_ctx(s->ctx, st);
	Py_RETURN_NONE;
}

static PyObject *Sim_close(SimObject *s, PyObject *unused)
{
	(void)unused;
	if (s->busy) {
		PyErr_SetString(PyExc_RuntimeError,
				"the run is in use by another thread");
		return NULL;
	}
	sim_release(s);
	Py_RETURN_NONE;
}

static PyObject *Sim_summary(SimObject *s, PyObject *unused)
{
	PyObject *l;

	(void)unused;
	if (!sim_ready(s) || !(l = PyList_New(0)))
		return NULL;
	for (size_t i = 0; i < weft_sim_summary_count(s->sim); i++) {
		const char *k, *v;
		PyObject *t;

		weft_sim_summary_at(s->sim, i, &k, &v);
		t = Py_BuildValue("(ss)", k, v);
		if (!t || PyList_Append(l, t)) {
			Py_XDECREF(t);
			Py_DECREF(l);
			return NULL;
		}
		Py_DECREF(t);
	}
	return l;
}

static PyObject *Sim_outputs(SimObject *s, PyObject *unused)
{
	PyObject *l;

	(void)unused;
	if (!sim_ready(s) || !(l = PyList_New(0)))
		return NULL;
	for (size_t i = 0; i < weft_sim_output_count(s->sim); i++) {
		PyObject *p = PyUnicode_DecodeFSDefault(
			weft_sim_output_at(s->sim, i));

		if (!p || PyList_Append(l, p)) {
			Py_XDECREF(p);
			Py_DECREF(l);
			return NULL;
		}
		Py_DECREF(p);
	}
	return l;
}

static PyObject *Sim_stats(SimObject *s, PyObject *unused)
{
	weft_stats st = { .struct_size = sizeof st };
	weft_status r;

	(void)unused;
	if (!sim_ready(s))
		return NULL;
	if ((r = weft_sim_stats(s->sim, &st)))
		return raise_ctx(s->ctx, r);
	return stats_dict(&st);
}

/* {"name": {"launches": n, "seconds": t, "timed": k}} of one row. */
static int kernel_item(PyObject *d, const weft_kernel_stats_row *r)
{
	PyObject *v = Py_BuildValue("{s:K,s:d,s:K}", "launches",
				    (unsigned long long)r->launches, "seconds",
				    (double)r->time_ns * 1e-9, "timed",
				    (unsigned long long)r->timed);
	int rc = v ? PyDict_SetItemString(d, r->name, v) : -1;

	Py_XDECREF(v);
	return rc;
}

/* Per-kernel counters: a dict by kernel name, in the program's order;
 * None when the backend keeps none (weft_sim_kernel_stats). */
static PyObject *Sim_kernel_stats(SimObject *s, PyObject *unused)
{
	weft_kernel_stats_row *rows;
	PyObject *d;
	size_t n = 0;
	weft_status r;

	(void)unused;
	if (!sim_ready(s))
		return NULL;
	r = weft_sim_kernel_stats(s->sim, NULL, 0, &n);
	if (r == WEFT_E_UNSUPPORTED)
		Py_RETURN_NONE;
	if (r)
		return raise_ctx(s->ctx, r);
	rows = calloc(n ? n : 1, sizeof *rows);
	if (!rows)
		return PyErr_NoMemory();
	if ((r = weft_sim_kernel_stats(s->sim, rows, n, &n))) {
		free(rows);
		return raise_ctx(s->ctx, r);
	}
	d = PyDict_New();
	for (size_t k = 0; d && k < n; k++)
		if (kernel_item(d, &rows[k]))
			Py_CLEAR(d);
	free(rows);
	return d;
}

/* The steps' time (weft_sim_times_get). */
static PyObject *Sim_times(SimObject *s, PyObject *unused)
{
	weft_sim_times t = { .struct_size = sizeof t };
	weft_status r;

	(void)unused;
	if (!sim_ready(s))
		return NULL;
	if ((r = weft_sim_times_get(s->sim, &t)))
		return raise_ctx(s->ctx, r);
	return Py_BuildValue("{s:K,s:d,s:O,s:d}", "steps",
			     (unsigned long long)t.steps, "seconds",
			     (double)t.steps_ns * 1e-9, "complete",
			     t.complete ? Py_True : Py_False, "outputs_seconds",
			     (double)t.outputs_ns * 1e-9);
}

static PyObject *Sim_info(SimObject *s, PyObject *unused)
{
	(void)unused;
	if (!sim_ready(s))
		return NULL;
	return Py_BuildValue(
		"{s:s,s:s,s:K,s:K}", "backend", weft_sim_backend(s->sim),
		"model", weft_sim_model(s->sim), "steps_done",
		(unsigned long long)weft_sim_steps_done(s->sim), "steps_total",
		(unsigned long long)weft_sim_steps_total(s->sim));
}

static PyMethodDef Sim_methods[] = {
	{ "step", (PyCFunction)Sim_step, METH_VARARGS,
	  "step(n): n steps, interruptible between chunks" },
	{ "finish", (PyCFunction)Sim_finish, METH_NOARGS,
	  "finish(): final outputs, summary, commit every output" },
	{ "close", (PyCFunction)Sim_close, METH_NOARGS,
	  "close(): free the run; outputs not committed are removed" },
	{ "summary", (PyCFunction)Sim_summary, METH_NOARGS,
	  "summary(): [(key, value)]" },
	{ "outputs", (PyCFunction)Sim_outputs, METH_NOARGS,
	  "outputs(): paths of the files committed" },
	{ "stats", (PyCFunction)Sim_stats, METH_NOARGS,
	  "stats(): the backend's counters" },
	{ "kernel_stats", (PyCFunction)Sim_kernel_stats, METH_NOARGS,
	  "kernel_stats(): {kernel: {launches, seconds, timed}}, or None "
	  "when the backend keeps no per-kernel counters" },
	{ "times", (PyCFunction)Sim_times, METH_NOARGS,
	  "times(): the steps' time: steps, seconds (to the completion of "
	  "their work), complete, outputs_seconds" },
	{ "info", (PyCFunction)Sim_info, METH_NOARGS,
	  "info(): backend, model, steps done and total" },
	{ NULL, NULL, 0, NULL },
};

static PyTypeObject SimType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "weft._weft.Sim",
	.tp_basicsize = sizeof(SimObject),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Sim(config, sets): one run of a model (weft_sim_*)",
	.tp_new = PyType_GenericNew,
	.tp_init = (initproc)Sim_init,
	.tp_dealloc = (destructor)Sim_dealloc,
	.tp_methods = Sim_methods,
};

/* ---- CartPole ---------------------------------------------------------- */

typedef struct {
	PyObject_HEAD weft_context *ctx;
	weft_config *cfg;
	weft_cartpole *env;
	uint32_t n;
	weft_cartpole_layout lay;
	int host;	  /* the packed result is host memory (zero copy) */
	uint8_t *io;	  /* the packed result the buffer exports */
	uint8_t *own_io;  /* a host copy when the device's is not host */
	uint8_t *actions; /* staging for converted actions */
	Py_ssize_t pins;  /* buffer exports and DeviceArrays alive */
	int closed, busy;
} CartPoleObject;

static void cp_free_env(CartPoleObject *c)
{
	weft_cartpole_close(c->env);
	c->env = NULL;
	weft_config_free(c->cfg);
	c->cfg = NULL;
	PyMem_Free(c->own_io);
	c->own_io = NULL;
	PyMem_Free(c->actions);
	c->actions = NULL;
	c->io = NULL;
}

static void CartPole_dealloc(CartPoleObject *c)
{
	cp_free_env(c);
	weft_context_free(c->ctx);
	Py_TYPE(c)->tp_free((PyObject *)c);
}

/* Where the packed result lies: on a host backend its own memory, which
 * the numpy views read after each step's fence wait; elsewhere a host
 * copy read at each step. */
static int cp_locate_io(CartPoleObject *c)
{
	weft_cartpole_array a = { .struct_size = sizeof a };
	weft_status st;

	st = weft_cartpole_device_array(c->env, WEFT_CARTPOLE_PACKED, &a);
	if (st == WEFT_OK && a.mem.kind == WEFT_NATIVE_HOST) {
		c->host = 1;
		c->io = (uint8_t *)a.mem.handle + a.mem.offset + a.offset;
		return 0;
	}
	c->own_io =
		PyMem_Calloc(c->lay.total_bytes ? c->lay.total_bytes : 1, 1);
	if (!c->own_io) {
		PyErr_NoMemory();
		return -1;
	}
	c->io = c->own_io;
	/* The first observations, as the views will show them. */
	st = weft_cartpole_read(c->env, c->io, 0, c->lay.total_bytes);
	if (st) {
		raise_ctx(c->ctx, st);
		return -1;
	}
	return 0;
}

static int CartPole_init(CartPoleObject *c, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "sets", NULL };
	PyObject *sets;
	cancel_guard g;
	weft_status st;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O", kwlist, &sets))
		return -1;
	if (c->ctx || weft_context_new(&c->ctx)) {
		PyErr_SetString(PyExc_RuntimeError,
				"CartPole initialised twice");
		return -1;
	}
	if (!(c->cfg = make_config(c->ctx, NULL, sets, 0)))
		return -1;
	/* As in Sim_init: a Ctrl-C cancels the setup. */
	guard_arm(&g, c->ctx);
	Py_BEGIN_ALLOW_THREADS st = weft_cartpole_open(c->ctx, c->cfg, &c->env);
	Py_END_ALLOW_THREADS guard_disarm(&g, c->ctx);
	if (st) {
		raise_ctx(c->ctx, st);
		return -1;
	}
	c->n = weft_cartpole_count(c->env);
	weft_cartpole_layout_of(c->n, &c->lay);
	if (!(c->actions = PyMem_Malloc(c->n ? c->n : 1))) {
		PyErr_NoMemory();
		return -1;
	}
	return cp_locate_io(c);
}

static int cp_ready(CartPoleObject *c)
{
	if (!c->env || c->closed) {
		PyErr_SetString(PyExc_RuntimeError,
				"the environments are closed");
		return 0;
	}
	if (c->busy) {
		PyErr_SetString(PyExc_RuntimeError,
				"the environments are in use by another "
				"thread");
		return 0;
	}
	return 1;
}

/* Make the step's results visible where the views read them: a fence
 * wait for the device's own host memory (no copy), else a read of the
 * whole packed result into the host copy. */
static weft_status cp_results(CartPoleObject *c)
{
	uint64_t token;
	weft_status st;

	if (!c->host)
		return weft_cartpole_read(c->env, c->io, 0, c->lay.total_bytes);
	if ((st = weft_cartpole_fence(c->env, &token)))
		return st;
	return weft_cartpole_wait(c->env, token);
}

/* The environments whose episode ended in the last step (terminated or
 * truncated), as a tuple of indexes: () on most steps. */
static PyObject *cp_ended(CartPoleObject *c)
{
	const uint8_t *term = c->io + c->lay.terminated;
	const uint8_t *trunc = c->io + c->lay.truncated;
	Py_ssize_t k = 0;
	PyObject *t;

	for (uint32_t i = 0; i < c->n; i++)
		k += term[i] | trunc[i];
	if (!(t = PyTuple_New(k)) || k == 0)
		return t;
	k = 0;
	for (uint32_t i = 0; i < c->n; i++) {
		PyObject *v;

		if (!(term[i] | trunc[i]))
			continue;
		if (!(v = PyLong_FromUnsignedLong(i))) {
			Py_DECREF(t);
			return NULL;
		}
		PyTuple_SET_ITEM(t, k++, v);
	}
	return t;
}

/* One element of an integer array of `bits` bits, signed or not, as an
 * action; -1 when it is not 0 or 1 (the caller names it). */
static int cp_action_at(const char *p, int bits, int is_signed)
{
	long long v;

	switch (bits) {
	case 8: v = is_signed ? *(const int8_t *)p : *(const uint8_t *)p; break;
	case 16:
		v = is_signed ? *(const int16_t *)p : *(const uint16_t *)p;
		break;
	case 32:
		v = is_signed ? *(const int32_t *)p : *(const uint32_t *)p;
		break;
	default:
		v = is_signed ? *(const int64_t *)p
			      : (long long)(*(const uint64_t *)p > 1
						    ? 2
						    : *(const uint64_t *)p);
		break;
	}
	return v == 0 || v == 1 ? (int)v : (v < 0 ? -2 : 2);
}

/* Copy n actions of `bits` bits, stride `stride` bytes, into the staging
 * buffer, refusing values other than 0 and 1. */
static int cp_convert(CartPoleObject *c, const char *base, Py_ssize_t stride,
		      int bits, int is_signed)
{
	for (uint32_t i = 0; i < c->n; i++) {
		int a = cp_action_at(base + (Py_ssize_t)i * stride, bits,
				     is_signed);

		if (a < 0 || a > 1) {
			PyErr_Format(error_class[-WEFT_E_INVALID],
				     "action of environment %u is out of "
				     "range (%s; 0: push left, 1: push "
				     "right); nothing was sent",
				     (unsigned)i, a < 0 ? "negative" : "> 1");
			return -1;
		}
		c->actions[i] = (uint8_t)a;
	}
	return 0;
}

/* The element type of a buffer's struct format: bits and signedness of
 * an integer (or bool), 0 when it is something else. */
static int fmt_int_bits(const char *f, int *is_signed)
{
	if (f && (*f == '@' || *f == '=' || *f == '<'))
		f++;
	if (!f || !f[0] || f[1])
		return 0;
	*is_signed = strchr("bhilq", f[0]) != NULL;
	switch (f[0]) {
	case 'b':
	case 'B':
	case '?': return 8;
	case 'h':
	case 'H': return 16;
	case 'i':
	case 'I': return 32;
	case 'l':
	case 'L': return (int)(8 * sizeof(long));
	case 'q':
	case 'Q': return 64;
	}
	return 0;
}

static int cp_shape_error(CartPoleObject *c, Py_ssize_t ndim,
			  const Py_ssize_t *shape)
{
	PyErr_Format(error_class[-WEFT_E_INVALID],
		     "actions have shape %s%zd%s; these CartPole environments "
		     "are %u: expected shape (%u,)",
		     ndim == 1 ? "(" : "", ndim >= 1 ? shape[0] : (Py_ssize_t)0,
		     ndim == 1 ? ",)" : " (and more dimensions)",
		     (unsigned)c->n, (unsigned)c->n);
	return -1;
}

/* Actions from an object with the buffer protocol (numpy, array, bytes):
 * 1 when taken (*src points at n valid u8 actions), 0 when the object has
 * no buffer, -1 on error. */
static int cp_actions_buffer(CartPoleObject *c, PyObject *o,
			     const uint8_t **src)
{
	Py_buffer b;
	int bits, is_signed, r = -1;

	if (PyObject_GetBuffer(o, &b, PyBUF_RECORDS_RO)) {
		PyErr_Clear();
		return 0;
	}
	bits = fmt_int_bits(b.format, &is_signed);
	if (!bits) {
		PyErr_Format(error_class[-WEFT_E_INVALID],
			     "actions must be integers (0 or 1); got a buffer "
			     "of format '%s'",
			     b.format ? b.format : "B");
		goto release;
	}
	if (b.ndim != 1 || b.shape[0] != (Py_ssize_t)c->n) {
		cp_shape_error(c, b.ndim, b.shape);
		goto release;
	}
	if (bits == 8 && !is_signed && b.strides[0] == 1) {
		/* weft_cartpole_step checks and copies them itself */
		memcpy(c->actions, b.buf, c->n);
	} else if (cp_convert(c, b.buf, b.strides[0], bits, is_signed)) {
		goto release;
	}
	*src = c->actions;
	r = 1;
release:
	PyBuffer_Release(&b);
	return r;
}

/* Actions from a DLPack producer on the CPU (a torch tensor, a JAX
 * array): its capsule is consumed and its deleter called at once. */
static int cp_actions_dlpack(CartPoleObject *c, PyObject *o,
			     const uint8_t **src)
{
	PyObject *cap = PyObject_CallMethod(o, "__dlpack__", NULL);
	dl_managed *m;
	dl_tensor *t;
	int r = -1;

	if (!cap)
		return -1;
	m = PyCapsule_GetPointer(cap, "dltensor");
	if (!m)
		goto drop;
	t = &m->t;
	if (t->device.device_type != DL_CPU &&
	    t->device.device_type != DL_CUDA_HOST) {
		PyErr_Format(error_class[-WEFT_E_INVALID],
			     "actions are on DLPack device type %d (%d): "
			     "step() takes host memory; write device actions "
			     "into device_array('actions') and call "
			     "step_device()",
			     (int)t->device.device_type,
			     (int)t->device.device_id);
	} else if ((t->dtype.code != DL_INT && t->dtype.code != DL_UINT &&
		    t->dtype.code != DL_BOOL) ||
		   t->dtype.lanes != 1 ||
		   (t->dtype.bits != 8 && t->dtype.bits != 16 &&
		    t->dtype.bits != 32 && t->dtype.bits != 64)) {
		PyErr_Format(error_class[-WEFT_E_INVALID],
			     "actions must be integers (0 or 1); got DLPack "
			     "type code %d, %d bits",
			     (int)t->dtype.code, (int)t->dtype.bits);
	} else if (t->ndim != 1 || t->shape[0] != (int64_t)c->n) {
		Py_ssize_t s0 = t->ndim >= 1 ? (Py_ssize_t)t->shape[0] : 0;

		cp_shape_error(c, t->ndim, &s0);
	} else {
		Py_ssize_t stride =
			(t->strides ? (Py_ssize_t)t->strides[0] : 1) *
			(t->dtype.bits / 8);

		r = cp_convert(c, (const char *)t->data + t->byte_offset,
			       stride, t->dtype.bits, t->dtype.code == DL_INT)
			    ? -1
			    : 1;
		*src = c->actions;
	}
	PyCapsule_SetName(cap, "used_dltensor");
	if (m->deleter)
		m->deleter(m);
drop:
	Py_DECREF(cap);
	return r;
}

static PyObject *CartPole_step(CartPoleObject *c, PyObject *o)
{
	const uint8_t *src = NULL;
	weft_status st;
	int r;

	if (!cp_ready(c))
		return NULL;
	r = cp_actions_buffer(c, o, &src);
	if (r == 0 && PyObject_HasAttrString(o, "__dlpack__"))
		r = cp_actions_dlpack(c, o, &src);
	if (r == 0)
		PyErr_Format(error_class[-WEFT_E_INVALID],
			     "actions must be an array of %u integers (numpy, "
			     "or any DLPack producer); got %.200s",
			     (unsigned)c->n, Py_TYPE(o)->tp_name);
	if (r <= 0)
		return NULL;
	/* At small N the call is shorter than releasing the GIL. */
	st = weft_cartpole_step(c->env, src, 1, NULL, 0);
	if (st == WEFT_OK)
		st = cp_results(c);
	if (st)
		return raise_ctx(c->ctx, st);
	return cp_ended(c);
}

static PyObject *CartPole_step_device(CartPoleObject *c, PyObject *unused)
{
	weft_status st;

	(void)unused;
	if (!cp_ready(c))
		return NULL;
	st = weft_cartpole_step_device(c->env, NULL, 0);
	if (st == WEFT_OK)
		st = cp_results(c);
	if (st)
		return raise_ctx(c->ctx, st);
	return cp_ended(c);
}

/* A read-only buffer of n items of `size` bytes from obj, or an error
 * naming `what`. */
static int get_items(PyObject *obj, Py_buffer *b, Py_ssize_t len,
		     const char *what)
{
	if (PyObject_GetBuffer(obj, b, PyBUF_C_CONTIGUOUS))
		return -1;
	if (b->len != len) {
		PyErr_Format(error_class[-WEFT_E_INVALID],
			     "%s: %zd bytes, expected %zd", what, b->len, len);
		PyBuffer_Release(b);
		return -1;
	}
	return 0;
}

/* reset(which: bytes-like u8[n] or None, seeds: u64[n] or None) */
static PyObject *CartPole_reset(CartPoleObject *c, PyObject *args)
{
	PyObject *which, *seeds;
	Py_buffer w = { 0 }, s = { 0 };
	weft_status st;

	if (!PyArg_ParseTuple(args, "OO", &which, &seeds) || !cp_ready(c))
		return NULL;
	if (which != Py_None && get_items(which, &w, c->n, "reset mask"))
		return NULL;
	if (seeds != Py_None &&
	    get_items(seeds, &s, 8 * (Py_ssize_t)c->n, "seeds")) {
		PyBuffer_Release(&w);
		return NULL;
	}
	st = weft_cartpole_reset_some(c->env, w.buf, s.buf, NULL);
	PyBuffer_Release(&w);
	PyBuffer_Release(&s);
	if (st == WEFT_OK)
		st = cp_results(c);
	if (st)
		return raise_ctx(c->ctx, st);
	Py_RETURN_NONE;
}

/* get_state(out: writable float64[n][4] buffer) */
static PyObject *CartPole_get_state(CartPoleObject *c, PyObject *out)
{
	Py_buffer b;
	weft_status st;

	if (!cp_ready(c))
		return NULL;
	if (PyObject_GetBuffer(out, &b, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE))
		return NULL;
	if (b.len != 32 * (Py_ssize_t)c->n) {
		PyBuffer_Release(&b);
		PyErr_SetString(PyExc_ValueError, "get_state: wrong size");
		return NULL;
	}
	st = weft_cartpole_get_state(c->env, b.buf);
	PyBuffer_Release(&b);
	if (st)
		return raise_ctx(c->ctx, st);
	Py_RETURN_NONE;
}

/* set_state(which: u8[n] or None, state: float64[n][4]) */
static PyObject *CartPole_set_state(CartPoleObject *c, PyObject *args)
{
	PyObject *which, *state;
	Py_buffer w = { 0 }, s;
	weft_status st;

	if (!PyArg_ParseTuple(args, "OO", &which, &state) || !cp_ready(c))
		return NULL;
	if (get_items(state, &s, 32 * (Py_ssize_t)c->n, "state"))
		return NULL;
	if (which != Py_None && get_items(which, &w, c->n, "mask")) {
		PyBuffer_Release(&s);
		return NULL;
	}
	st = weft_cartpole_set_state(c->env, w.buf, s.buf, NULL);
	PyBuffer_Release(&w);
	PyBuffer_Release(&s);
	if (st == WEFT_OK)
		st = cp_results(c);
	if (st)
		return raise_ctx(c->ctx, st);
	Py_RETURN_NONE;
}

static PyObject *CartPole_episode_stats(CartPoleObject *c, PyObject *unused)
{
	weft_cartpole_episode_stats s = { .struct_size = sizeof s };
	weft_status st;

	(void)unused;
	if (!cp_ready(c))
		return NULL;
	if ((st = weft_cartpole_stats(c->env, &s)))
		return raise_ctx(c->ctx, st);
	return Py_BuildValue(
		"{s:K,s:K,s:d,s:d,s:K,s:d,s:d}", "env_steps",
		(unsigned long long)s.env_steps, "episodes",
		(unsigned long long)s.episodes, "mean_return", s.mean_return,
		"max_return", s.max_return, "recent_episodes",
		(unsigned long long)s.recent_episodes, "recent_mean_return",
		s.recent_mean_return, "recent_max_return", s.recent_max_return);
}

static PyObject *CartPole_counters(CartPoleObject *c, PyObject *unused)
{
	weft_stats s = { .struct_size = sizeof s };
	weft_status st;

	(void)unused;
	if (!cp_ready(c))
		return NULL;
	if ((st = weft_cartpole_counters(c->env, &s)))
		return raise_ctx(c->ctx, st);
	return stats_dict(&s);
}

static PyObject *CartPole_close(CartPoleObject *c, PyObject *unused)
{
	(void)unused;
	if (c->busy) {
		PyErr_SetString(PyExc_RuntimeError,
				"the environments are in use by another "
				"thread");
		return NULL;
	}
	c->closed = 1;
	/* Views and DLPack tensors keep the memory until they are gone. */
	if (c->pins == 0)
		cp_free_env(c);
	Py_RETURN_NONE;
}

static PyObject *CartPole_info(CartPoleObject *c, PyObject *unused)
{
	const weft_cartpole_layout *l = &c->lay;

	(void)unused;
	if (!cp_ready(c))
		return NULL;
	return Py_BuildValue(
		"{s:I,s:s,s:I,s:O,s:n,s:n,s:n,s:n,s:n,s:n,s:n}", "n", c->n,
		"backend", weft_cartpole_backend(c->env), "precision",
		weft_cartpole_precision(c->env), "zero_copy",
		c->host ? Py_True : Py_False, "obs", (Py_ssize_t)l->obs,
		"reward", (Py_ssize_t)l->reward, "terminated",
		(Py_ssize_t)l->terminated, "truncated",
		(Py_ssize_t)l->truncated, "final_obs", (Py_ssize_t)l->final_obs,
		"final_return", (Py_ssize_t)l->final_return, "total_bytes",
		(Py_ssize_t)l->total_bytes);
}

/* The packed result, read-only, for numpy.frombuffer: the device's own
 * memory on host backends. The export pins the environments. */
static int CartPole_getbuffer(CartPoleObject *c, Py_buffer *view, int flags)
{
	if (!c->io) {
		PyErr_SetString(PyExc_BufferError,
				"the environments are closed");
		return -1;
	}
	if (PyBuffer_FillInfo(view, (PyObject *)c, c->io,
			      (Py_ssize_t)c->lay.total_bytes, 1, flags))
		return -1;
	c->pins++;
	return 0;
}

static void CartPole_releasebuffer(CartPoleObject *c, Py_buffer *view)
{
	(void)view;
	c->pins--;
}

static PyBufferProcs CartPole_as_buffer = {
	.bf_getbuffer = (getbufferproc)CartPole_getbuffer,
	.bf_releasebuffer = (releasebufferproc)CartPole_releasebuffer,
};

static PyObject *CartPole_device_array(CartPoleObject *c, PyObject *args);

static PyMethodDef CartPole_methods[] = {
	{ "step", (PyCFunction)CartPole_step, METH_O,
	  "step(actions): one step with host actions; the indexes of "
	  "the environments whose episode ended" },
	{ "step_device", (PyCFunction)CartPole_step_device, METH_NOARGS,
	  "step_device(): one step with the actions in the device buffer" },
	{ "reset", (PyCFunction)CartPole_reset, METH_VARARGS,
	  "reset(which, seeds): weft_cartpole_reset_some" },
	{ "get_state", (PyCFunction)CartPole_get_state, METH_O,
	  "get_state(out): float64 [n][4] into out" },
	{ "set_state", (PyCFunction)CartPole_set_state, METH_VARARGS,
	  "set_state(which, state)" },
	{ "episode_stats", (PyCFunction)CartPole_episode_stats, METH_NOARGS,
	  "episode statistics reduced on the device" },
	{ "counters", (PyCFunction)CartPole_counters, METH_NOARGS,
	  "the backend's counters" },
	{ "device_array", (PyCFunction)CartPole_device_array, METH_VARARGS,
	  "device_array(field): a DeviceArray" },
	{ "info", (PyCFunction)CartPole_info, METH_NOARGS,
	  "count, backend, precision, layout" },
	{ "close", (PyCFunction)CartPole_close, METH_NOARGS, "close()" },
	{ NULL, NULL, 0, NULL },
};

static PyTypeObject CartPoleType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "weft._weft.CartPole",
	.tp_basicsize = sizeof(CartPoleObject),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "CartPole(sets): weft_cartpole_open and its calls",
	.tp_new = PyType_GenericNew,
	.tp_init = (initproc)CartPole_init,
	.tp_dealloc = (destructor)CartPole_dealloc,
	.tp_methods = CartPole_methods,
	.tp_as_buffer = &CartPole_as_buffer,
};

/* ---- DeviceArray: one array where it lies, for DLPack ------------------ */

typedef struct {
	PyObject_HEAD CartPoleObject *env; /* pinned while this lives */
	weft_cartpole_array a;
	const char *name;
} DeviceArrayObject;

static const char *const field_names[] = {
	"obs",	     "reward",	     "terminated", "truncated",
	"final_obs", "final_return", "packed",	   "actions",
};

static PyTypeObject DeviceArrayType;

static PyObject *CartPole_device_array(CartPoleObject *c, PyObject *args)
{
	const char *name;
	DeviceArrayObject *d;
	weft_status st;
	int f = -1;

	if (!PyArg_ParseTuple(args, "s", &name) || !cp_ready(c))
		return NULL;
	for (int k = 0; k < 8; k++)
		if (strcmp(name, field_names[k]) == 0)
			f = k;
	if (f < 0)
		return PyErr_Format(error_class[-WEFT_E_INVALID],
				    "no array '%s' (obs, reward, terminated, "
				    "truncated, final_obs, final_return, "
				    "packed, actions)",
				    name);
	d = PyObject_New(DeviceArrayObject, &DeviceArrayType);
	if (!d)
		return NULL;
	d->a.struct_size = sizeof d->a;
	st = weft_cartpole_device_array(c->env, (weft_cartpole_field)f, &d->a);
	if (st) {
		d->env = NULL;
		Py_DECREF(d);
		return raise_ctx(c->ctx, st);
	}
	Py_INCREF(c);
	d->env = c;
	d->name = field_names[f];
	c->pins++;
	return (PyObject *)d;
}

static void DeviceArray_dealloc(DeviceArrayObject *d)
{
	if (d->env) {
		d->env->pins--;
		if (d->env->closed && d->env->pins == 0)
			cp_free_env(d->env);
		Py_DECREF(d->env);
	}
	PyObject_Free(d);
}

/* DLPack device type of the array, or -1 with BufferError (OpenCL). */
static int da_device(DeviceArrayObject *d, int32_t *id)
{
	*id = d->a.mem.device;
	if (d->a.mem.kind == WEFT_NATIVE_HOST) {
		*id = 0;
		return DL_CPU;
	}
	if (d->a.mem.kind == WEFT_NATIVE_CUDA)
		return DL_CUDA;
	PyErr_Format(PyExc_BufferError,
		     "the '%s' array is OpenCL memory (a cl_mem of backend "
		     "%s): it cannot be a DLPack tensor, since DLPack "
		     "describes memory by a pointer its consumer can address "
		     "and a cl_mem is an opaque handle that no framework "
		     "imports; use .native (the cl_mem and its offset) with "
		     "PyOpenCL, or the numpy arrays step() returns",
		     d->name, weft_cartpole_backend(d->env->env));
	return -1;
}

/* The tensor and what it points to, in one allocation: the legacy and
 * the versioned struct (only one is handed out), shape and strides. */
typedef struct {
	dl_managed m;
	dl_managed_v1 v;
	int64_t shape[2], strides[2];
	PyObject *owner;
} da_managed;

static void da_free(da_managed *x)
{
	PyGILState_STATE g = PyGILState_Ensure();

	Py_XDECREF(x->owner);
	PyGILState_Release(g);
	PyMem_RawFree(x);
}

static void da_deleter(dl_managed *m)
{
	da_free((da_managed *)m);
}

static void da_deleter_v1(dl_managed_v1 *v)
{
	da_free((da_managed *)((char *)v - offsetof(da_managed, v)));
}

static void da_capsule_free(PyObject *cap)
{
	if (PyCapsule_IsValid(cap, "dltensor")) {
		dl_managed *m = PyCapsule_GetPointer(cap, "dltensor");

		m->deleter(m);
	} else if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
		dl_managed_v1 *v =
			PyCapsule_GetPointer(cap, "dltensor_versioned");

		v->deleter(v);
	} /* else consumed: the consumer calls the deleter */
}

/* max_version is None or a (major, minor) tuple: 1 when >= (1, 0). */
static int da_wants_v1(PyObject *maxv)
{
	long major;

	if (maxv == Py_None || !PyTuple_Check(maxv) ||
	    PyTuple_GET_SIZE(maxv) < 1)
		return 0;
	major = PyLong_AsLong(PyTuple_GET_ITEM(maxv, 0));
	if (major == -1 && PyErr_Occurred()) {
		PyErr_Clear();
		return 0;
	}
	return major >= 1;
}

static void da_fill(DeviceArrayObject *d, da_managed *x, dl_tensor *t, int type,
		    int32_t id)
{
	for (uint32_t k = 0; k < d->a.ndim && k < 2; k++) {
		x->shape[k] = d->a.shape[k];
		x->strides[k] = d->a.strides[k];
	}
	t->data = (char *)d->a.mem.handle + d->a.mem.offset;
	t->byte_offset = d->a.offset;
	t->device.device_type = type;
	t->device.device_id = id;
	t->ndim = (int32_t)d->a.ndim;
	t->dtype.code = d->a.dtype == WEFT_CARTPOLE_F32 ? DL_FLOAT : DL_UINT;
	t->dtype.bits = d->a.dtype == WEFT_CARTPOLE_F32 ? 32 : 8;
	t->dtype.lanes = 1;
	t->shape = x->shape;
	t->strides = x->strides;
}

static PyObject *DeviceArray_dlpack(DeviceArrayObject *d, PyObject *args,
				    PyObject *kw)
{
	static char *kwlist[] = { "stream", "max_version", "dl_device", "copy",
				  NULL };
	PyObject *stream = Py_None, *maxv = Py_None, *dev = Py_None;
	PyObject *copy = Py_None, *cap;
	da_managed *x;
	int32_t id;
	int type;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|$OOOO", kwlist, &stream,
					 &maxv, &dev, &copy))
		return NULL;
	if (!cp_ready(d->env) || (type = da_device(d, &id)) < 0)
		return NULL;
	if (copy == Py_True) {
		PyErr_SetString(PyExc_BufferError,
				"copy=True: weft hands out its arrays where "
				"they lie; copy the tensor instead");
		return NULL;
	}
	/* The data is complete once the step returned (it waited for its
	 * fence), so no stream needs to wait. */
	if (!(x = PyMem_RawCalloc(1, sizeof *x)))
		return PyErr_NoMemory();
	x->owner = (PyObject *)d;
	Py_INCREF(d);
	if (da_wants_v1(maxv)) {
		da_fill(d, x, &x->v.t, type, id);
		x->v.major = 1;
		x->v.minor = 0;
		x->v.deleter = da_deleter_v1;
		/* the results are for reading; the actions for writing */
		x->v.flags = strcmp(d->name, "actions") ? DL_FLAG_READ_ONLY : 0;
		cap = PyCapsule_New(&x->v, "dltensor_versioned",
				    da_capsule_free);
		if (!cap)
			da_free(x);
		return cap;
	}
	da_fill(d, x, &x->m.t, type, id);
	x->m.deleter = da_deleter;
	cap = PyCapsule_New(&x->m, "dltensor", da_capsule_free);
	if (!cap)
		da_free(x);
	return cap;
}

static PyObject *DeviceArray_dlpack_device(DeviceArrayObject *d,
					   PyObject *unused)
{
	int32_t id;
	int type;

	(void)unused;
	if ((type = da_device(d, &id)) < 0)
		return NULL;
	return Py_BuildValue("(ii)", type, (int)id);
}

static PyObject *DeviceArray_native(DeviceArrayObject *d, void *closure)
{
	static const char *const kinds[] = { "", "host", "cuda", "opencl" };

	(void)closure;
	return Py_BuildValue("{s:s,s:i,s:K,s:n,s:n,s:n}", "kind",
			     d->a.mem.kind <= 3 ? kinds[d->a.mem.kind] : "?",
			     "device", (int)d->a.mem.device, "handle",
			     (unsigned long long)(uintptr_t)d->a.mem.handle,
			     "offset",
			     (Py_ssize_t)(d->a.mem.offset + d->a.offset),
			     "nbytes", (Py_ssize_t)d->a.bytes, "buffer_bytes",
			     (Py_ssize_t)d->a.mem.bytes);
}

static PyObject *DeviceArray_shape(DeviceArrayObject *d, void *closure)
{
	(void)closure;
	if (d->a.ndim == 2)
		return Py_BuildValue("(LL)", (long long)d->a.shape[0],
				     (long long)d->a.shape[1]);
	return Py_BuildValue("(L)", (long long)d->a.shape[0]);
}

static PyObject *DeviceArray_dtype(DeviceArrayObject *d, void *closure)
{
	(void)closure;
	return PyUnicode_FromString(d->a.dtype == WEFT_CARTPOLE_F32 ? "float32"
								    : "uint8");
}

static PyObject *DeviceArray_name(DeviceArrayObject *d, void *closure)
{
	(void)closure;
	return PyUnicode_FromString(d->name);
}

static PyMethodDef DeviceArray_methods[] = {
	{ "__dlpack__", (PyCFunction)(void (*)(void))DeviceArray_dlpack,
	  METH_VARARGS | METH_KEYWORDS,
	  "__dlpack__(*, stream=None, max_version=None, dl_device=None, "
	  "copy=None): a DLPack capsule of the array, no copy" },
	{ "__dlpack_device__", (PyCFunction)DeviceArray_dlpack_device,
	  METH_NOARGS, "(device type, device id) as DLPack numbers them" },
	{ NULL, NULL, 0, NULL },
};

static PyGetSetDef DeviceArray_getset[] = {
	{ "native", (getter)DeviceArray_native, NULL,
	  "where the array lies: kind, device, handle, byte offset", NULL },
	{ "shape", (getter)DeviceArray_shape, NULL, "shape", NULL },
	{ "dtype", (getter)DeviceArray_dtype, NULL, "element type", NULL },
	{ "name", (getter)DeviceArray_name, NULL, "which array", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyTypeObject DeviceArrayType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "weft._weft.DeviceArray",
	.tp_basicsize = sizeof(DeviceArrayObject),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "an array of CartPole's packed result (or its action "
		  "buffer) where it lies, for DLPack consumers",
	.tp_dealloc = (destructor)DeviceArray_dealloc,
	.tp_methods = DeviceArray_methods,
	.tp_getset = DeviceArray_getset,
};

/* ---- the module -------------------------------------------------------- */

/* ---- ensembles ----------------------------------------------------------- */

/* What an ensemble left, as a dict: scenarios, runs, summary ((key,
 * value) pairs), outputs (paths) and failed ((index, scenario, seed,
 * message) tuples). */
static PyObject *ens_result(weft_ensemble *e)
{
	size_t n_sum = weft_ensemble_summary_count(e);
	size_t n_out = weft_ensemble_output_count(e);
	size_t n_sc = weft_ensemble_scenario_count(e);
	size_t n_fail = weft_ensemble_failed_count(e);
	PyObject *sc = PyList_New((Py_ssize_t)n_sc);
	PyObject *sum = PyList_New((Py_ssize_t)n_sum);
	PyObject *out = PyList_New((Py_ssize_t)n_out);
	PyObject *fail = PyList_New((Py_ssize_t)n_fail), *d = NULL;

	if (!sc || !sum || !out || !fail)
		goto drop;
	for (size_t i = 0; i < n_sc; i++)
		PyList_SET_ITEM(
			sc, i,
			PyUnicode_FromString(weft_ensemble_scenario_at(e, i)));
	for (size_t i = 0; i < n_sum; i++) {
		const char *k = "", *v = "";

		weft_ensemble_summary_at(e, i, &k, &v);
		PyList_SET_ITEM(sum, i, Py_BuildValue("(ss)", k, v));
	}
	for (size_t i = 0; i < n_out; i++)
		PyList_SET_ITEM(out, i,
				PyUnicode_DecodeFSDefault(
					weft_ensemble_output_at(e, i)));
	for (size_t k = 0; k < n_fail; k++) {
		const char *msg = "", *label = "";
		uint64_t seed = 0;
		size_t idx = 0;

		weft_ensemble_failed_at(e, k, &idx, &msg);
		weft_ensemble_run_info(e, idx, &label, &seed);
		PyList_SET_ITEM(fail, k,
				Py_BuildValue("(nsKs)", (Py_ssize_t)idx, label,
					      (unsigned long long)seed, msg));
	}
	if (!PyErr_Occurred())
		d = Py_BuildValue(
			"{s:O,s:n,s:O,s:O,s:O}", "scenarios", sc, "runs",
			(Py_ssize_t)weft_ensemble_run_count(e), "summary", sum,
			"outputs", out, "failed", fail);
drop:
	Py_XDECREF(sc);
	Py_XDECREF(sum);
	Py_XDECREF(out);
	Py_XDECREF(fail);
	return d;
}

/* ensemble(config, sets): weft_ensemble_run() with the GIL released
 * (Ctrl-C cancels it, committing nothing), and what it left. */
static PyObject *py_ensemble(PyObject *self, PyObject *args)
{
	PyObject *path, *sets, *res = NULL;
	weft_ensemble *e = NULL;
	weft_context *ctx;
	weft_config *cfg;
	cancel_guard g;
	weft_status st;

	(void)self;
	if (!PyArg_ParseTuple(args, "OO", &path, &sets))
		return NULL;
	if (weft_context_new(&ctx))
		return PyErr_NoMemory();
	if (!(cfg = make_config(ctx, path, sets, 1)))
		goto free_ctx;
	if (!weft_config_is_ensemble(cfg)) {
		/* the file as given (str or os.PathLike), or none */
		PyObject *fs = path == Py_None ? NULL : PyOS_FSPath(path);
		const char *name =
			fs && PyUnicode_Check(fs) ? PyUnicode_AsUTF8(fs) : NULL;
		char msg[1200];

		snprintf(msg, sizeof msg,
			 "%s is not an ensemble: no [ensemble] runs, [sweep] "
			 "or [scenario NAME] (set ensemble.runs, or use "
			 "weft.run for one run)",
			 name ? name : "the configuration");
		Py_XDECREF(fs);
		PyErr_Clear();
		raise_status(WEFT_E_CONFIG, msg);
		goto free_cfg;
	}
	if ((st = weft_ensemble_open(ctx, cfg, &e))) {
		raise_ctx(ctx, st);
		goto free_cfg;
	}
	guard_arm(&g, ctx);
	Py_BEGIN_ALLOW_THREADS st = weft_ensemble_run(e);
	Py_END_ALLOW_THREADS guard_disarm(&g, ctx);
	if (st)
		raise_ctx(ctx, st);
	else
		res = ens_result(e);
	weft_ensemble_close(e);
free_cfg:
	weft_config_free(cfg);
free_ctx:
	weft_context_free(ctx);
	return res;
}

static PyObject *py_version(PyObject *self, PyObject *unused)
{
	(void)self;
	(void)unused;
	return PyUnicode_FromString(weft_version());
}

static PyMethodDef module_methods[] = {
	{ "version", py_version, METH_NOARGS, "libweft's version" },
	{ "backends", py_backends, METH_VARARGS,
	  "backends(plugin_path=None): every backend plugin found" },
	{ "models", py_models, METH_VARARGS,
	  "models(model_path=None): every model plugin found" },
	{ "check", py_check, METH_VARARGS,
	  "check(config, sets): load and validate a configuration" },
	{ "ensemble", py_ensemble, METH_VARARGS,
	  "ensemble(config, sets): run an ensemble; what it left" },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT,
	"weft._weft",
	"libweft's API for the weft package (see weft/__init__.py)",
	-1,
	module_methods,
};

PyMODINIT_FUNC PyInit__weft(void)
{
	PyTypeObject *types[] = { &SimType, &CartPoleType, &DeviceArrayType };
	const char *names[] = { "Sim", "CartPole", "DeviceArray" };
	PyObject *m;

	if (load_errors())
		return NULL;
	for (int k = 0; k < 3; k++)
		if (PyType_Ready(types[k]))
			return NULL;
	if (!(m = PyModule_Create(&module_def)))
		return NULL;
	for (int k = 0; k < 3; k++) {
		Py_INCREF(types[k]);
		if (PyModule_AddObject(m, names[k], (PyObject *)types[k])) {
			Py_DECREF(types[k]);
			Py_DECREF(m);
			return NULL;
		}
	}
	return m;
}
