/*
 * python/src/_weft.c - weft._weft, the C extension of the Python package:
 * libweft's public API (weft/weft.h), no ctypes, and no code of any one
 * model. The Python modules (weft/__init__.py, weft/envs.py) build the
 * user-facing API on the few types here:
 *
 *   Sim        one run (weft_sim_open/step/finish/close): steps in chunks
 *              with the GIL released, Python's signals checked between
 *              chunks, so Ctrl-C raises KeyboardInterrupt and, since
 *              outputs are committed only by finish(), replaces nothing;
 *   Env        a run of any environment model (weft/env.h) driven through
 *              the protocol's views and lists: steps with host actions
 *              (one asynchronous write from a staging buffer, one launch
 *              of "act", one read of the results or, on a host backend,
 *              none: it exports the device's own memory, so numpy views of
 *              it are made once and never copied), resets with seeds, and
 *              generic operations on any declared view or list (launch,
 *              read, write), on which weft/envs.py writes what a model
 *              offers beyond the protocol (CartPole's states);
 *   DeviceArray one declared view where it lies, for DLPack (__dlpack__,
 *              __dlpack_device__) and, on host backends, the buffer
 *              protocol;
 *   backends(), models(), envs(), check(), ensemble(), version().
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
#define DL_FLAG_IS_COPIED 2u
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

/* ---- an output directory held ------------------------------------------ */

/* lock_dir(path) -> a capsule holding weft_dir_lock_take()'s lock, which
 * unlock_dir() (or the capsule's end) releases. */
#define DIR_LOCK_CAPSULE "weft._weft.dir_lock"

typedef struct dir_lock_box {
	weft_dir_lock *lock;
} dir_lock_box;

static void dir_lock_free(PyObject *cap)
{
	dir_lock_box *b = PyCapsule_GetPointer(cap, DIR_LOCK_CAPSULE);

	if (!b)
		return;
	weft_dir_lock_release(b->lock);
	PyMem_Free(b);
}

static PyObject *py_lock_dir(PyObject *self, PyObject *args)
{
	const char *path;
	weft_context *ctx;
	dir_lock_box *b;
	weft_status st;
	PyObject *cap;

	(void)self;
	if (!PyArg_ParseTuple(args, "s", &path))
		return NULL;
	if (!(b = PyMem_Calloc(1, sizeof *b)))
		return PyErr_NoMemory();
	if (weft_context_new(&ctx)) {
		PyMem_Free(b);
		return PyErr_NoMemory();
	}
	st = weft_dir_lock_take(ctx, path, &b->lock);
	if (st != WEFT_OK) {
		raise_ctx(ctx, st);
		weft_context_free(ctx);
		PyMem_Free(b);
		return NULL;
	}
	weft_context_free(ctx);
	cap = PyCapsule_New(b, DIR_LOCK_CAPSULE, dir_lock_free);
	if (!cap) {
		weft_dir_lock_release(b->lock);
		PyMem_Free(b);
	}
	return cap;
}

static PyObject *py_unlock_dir(PyObject *self, PyObject *cap)
{
	dir_lock_box *b = PyCapsule_GetPointer(cap, DIR_LOCK_CAPSULE);

	(void)self;
	if (!b)
		return NULL;
	weft_dir_lock_release(b->lock);
	b->lock = NULL;
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

/* A count of steps from a Python int, refused with ValueError naming the
 * argument when negative or too large (PyArg's "K" would take -1 as
 * 2^64 - 1) and TypeError when not an integer; 0 (with an exception) on
 * error, else the count plus one. */
static unsigned long long step_count(PyObject *o, const char *what)
{
	unsigned long long n;
	int overflow = 0;
	long long v;

	if (!PyIndex_Check(o) || PyBool_Check(o)) {
		PyErr_Format(
			PyExc_TypeError,
			"%s: the number of steps must be an int, got %.100s",
			what, Py_TYPE(o)->tp_name);
		return 0;
	}
	v = PyLong_AsLongLongAndOverflow(o, &overflow);
	if (v == -1 && PyErr_Occurred())
		return 0;
	if (overflow || v < 0) {
		PyErr_Format(PyExc_ValueError,
			     "%s: the number of steps must be between 0 and "
			     "%lld, got %S",
			     what, (long long)INT64_MAX, o);
		return 0;
	}
	n = (unsigned long long)v;
	return n + 1;
}

/* n steps, in chunks that double while one takes under 50 ms (as `weft
 * run` does): the GIL is released during each chunk and Python's signal
 * handlers run between chunks, so Ctrl-C raises KeyboardInterrupt within
 * about 100 ms. Chunking does not change results. */
static PyObject *Sim_step(SimObject *s, PyObject *args)
{
	unsigned long long n, done = 0, chunk = 1;
	weft_status st = WEFT_OK;
	PyObject *o;

	if (!PyArg_ParseTuple(args, "O", &o) || !(n = step_count(o, "n")) ||
	    !sim_ready(s))
		return NULL;
	n--; /* step_count() gives the count plus one */
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

/* ---- DeviceArray: one array where it lies, for DLPack ------------------ */

/* What a DeviceArray's owner (an Env) does for it: the owner is pinned (its
 * memory kept) while the array lives. */
static int owner_ready(PyObject *owner);
static void owner_pin(PyObject *owner, int delta);
static const char *owner_backend(PyObject *owner);

typedef struct {
	PyObject_HEAD PyObject *owner; /* pinned while this lives */
	weft_native mem;	       /* the buffer it lies in */
	size_t offset; /* bytes from mem's start (+ mem.offset) */
	size_t bytes;
	uint32_t dtype; /* a weft_dtype */
	uint32_t ndim;
	int64_t shape[WEFT_ARRAY_MAX_DIMS], strides[WEFT_ARRAY_MAX_DIMS];
	Py_ssize_t bshape[WEFT_ARRAY_MAX_DIMS], bstrides[WEFT_ARRAY_MAX_DIMS];
	int writable; /* the action buffer; results are for reading */
	char name[64];
} DeviceArrayObject;

static PyTypeObject DeviceArrayType;

/* A DeviceArray of owner, name, over mem at offset (dtype, C-order shape
 * and element strides as given). */
static PyObject *da_new(PyObject *owner, const char *name,
			const weft_native *mem, size_t offset, size_t bytes,
			uint32_t dtype, uint32_t ndim, const int64_t *shape,
			const int64_t *strides)
{
	DeviceArrayObject *d =
		PyObject_New(DeviceArrayObject, &DeviceArrayType);

	if (!d)
		return NULL;
	d->mem = *mem;
	d->offset = offset;
	d->bytes = bytes;
	d->dtype = dtype;
	d->ndim = ndim > WEFT_ARRAY_MAX_DIMS ? WEFT_ARRAY_MAX_DIMS : ndim;
	for (uint32_t k = 0; k < d->ndim; k++) {
		d->shape[k] = shape[k];
		d->strides[k] = strides[k];
		d->bshape[k] = (Py_ssize_t)shape[k];
		d->bstrides[k] = (Py_ssize_t)(strides[k] *
					      (int64_t)WEFT_DTYPE_BYTES(dtype));
	}
	d->writable = strcmp(name, "actions") == 0;
	snprintf(d->name, sizeof d->name, "%s", name);
	Py_INCREF(owner);
	d->owner = owner;
	owner_pin(owner, 1);
	return (PyObject *)d;
}

static void DeviceArray_dealloc(DeviceArrayObject *d)
{
	if (d->owner) {
		owner_pin(d->owner, -1);
		Py_DECREF(d->owner);
	}
	PyObject_Free(d);
}

/* The first element's address: DLPack's data, with byte_offset 0 (some
 * consumers, torch 1.13 among them, ignore byte_offset). */
static void *da_data(const DeviceArrayObject *d)
{
	return (char *)d->mem.handle + d->mem.offset + d->offset;
}

/* DLPack device type of the array, or -1 with BufferError (OpenCL). */
static int da_device(DeviceArrayObject *d, int32_t *id)
{
	*id = d->mem.device;
	if (d->mem.kind == WEFT_NATIVE_HOST) {
		*id = 0;
		return DL_CPU;
	}
	if (d->mem.kind == WEFT_NATIVE_CUDA)
		return DL_CUDA;
	PyErr_Format(PyExc_BufferError,
		     "the '%s' array is OpenCL memory (a cl_mem of backend "
		     "%s): it cannot be a DLPack tensor, since DLPack "
		     "describes memory by a pointer its consumer can address "
		     "and a cl_mem is an opaque handle that no framework "
		     "imports; use .native (the cl_mem and its offset) with "
		     "PyOpenCL, or the numpy arrays step() returns",
		     d->name, owner_backend(d->owner));
	return -1;
}

/* The tensor and what it points to, in one allocation: the legacy and
 * the versioned struct (only one is handed out), shape and strides, and,
 * for copy=True, the copy (after the struct; else copy is NULL and owner
 * keeps the array's memory). */
typedef struct {
	dl_managed m;
	dl_managed_v1 v;
	int64_t shape[WEFT_ARRAY_MAX_DIMS], strides[WEFT_ARRAY_MAX_DIMS];
	PyObject *owner;
	char *copy;
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

/* o as a tuple of two ints into v (clamped to long), or TypeError naming
 * what and saying what it should be. */
static int da_pair(PyObject *o, const char *what, const char *want, long v[2])
{
	int over;

	if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) != 2 ||
	    !PyLong_Check(PyTuple_GET_ITEM(o, 0)) ||
	    !PyLong_Check(PyTuple_GET_ITEM(o, 1))) {
		PyErr_Format(PyExc_TypeError,
			     "%s: expected None or %s, got %.100s %R", what,
			     want, Py_TYPE(o)->tp_name, o);
		return -1;
	}
	for (int k = 0; k < 2; k++) {
		v[k] = PyLong_AsLongAndOverflow(PyTuple_GET_ITEM(o, k), &over);
		if (over)
			v[k] = over > 0 ? LONG_MAX : LONG_MIN;
		else if (v[k] == -1 && PyErr_Occurred())
			return -1;
	}
	return 0;
}

/* max_version: 1 for a versioned capsule (>= (1, 0)), 0 for a legacy one
 * (None or below), -1 with TypeError (not a tuple of two ints). */
static int da_max_version(PyObject *maxv)
{
	long v[2];

	if (maxv == Py_None)
		return 0;
	if (da_pair(maxv, "max_version", "a (major, minor) tuple of two ints",
		    v))
		return -1;
	return v[0] >= 1;
}

/* copy: 1 (True), 0 (False or None: no copy; the array is always
 * exported where it lies), -1 with TypeError. */
static int da_copy_arg(PyObject *copy)
{
	if (copy == Py_True)
		return 1;
	if (copy == Py_False || copy == Py_None)
		return 0;
	PyErr_Format(PyExc_TypeError,
		     "copy: expected True, False or None, got %.100s %R",
		     Py_TYPE(copy)->tp_name, copy);
	return -1;
}

/* dl_device: None or the array's own device (type, id); another one is
 * a BufferError (weft moves no array across devices), a malformed one a
 * TypeError. */
static int da_check_device(DeviceArrayObject *d, PyObject *dev, int type,
			   int32_t id)
{
	long v[2];

	if (dev == Py_None)
		return 0;
	if (da_pair(dev, "dl_device",
		    "a (device type, device id) tuple of two ints, as "
		    "__dlpack_device__() gives it",
		    v))
		return -1;
	if (v[0] == type && v[1] == id)
		return 0;
	PyErr_Format(PyExc_BufferError,
		     "dl_device=%R: the '%s' array is %s memory, device (%d, "
		     "%d) (__dlpack_device__()); weft exports an array only "
		     "on its own device, moving none across devices",
		     dev, d->name, type == DL_CPU ? "host" : "CUDA", type,
		     (int)id);
	return -1;
}

/* stream: None on the host (no streams there, as the standard says);
 * on CUDA None or a stream as the standard numbers them (-1: no
 * synchronization, 1 or 2: a default stream, > 2: a cudaStream_t). No
 * stream needs waiting for: the data is complete once the step returned (it
 * waited for its fence). */
static int da_check_stream(PyObject *stream, int type)
{
	long long s;

	if (stream == Py_None)
		return 0;
	if (type == DL_CPU) {
		PyErr_Format(PyExc_ValueError,
			     "stream: host memory has no streams, so only "
			     "None is accepted, got %.100s %R",
			     Py_TYPE(stream)->tp_name, stream);
		return -1;
	}
	if (!PyLong_Check(stream)) {
		PyErr_Format(PyExc_TypeError,
			     "stream: expected None or an int (a CUDA stream, "
			     "1 or 2 for a default one, -1 for none), got "
			     "%.100s %R",
			     Py_TYPE(stream)->tp_name, stream);
		return -1;
	}
	s = PyLong_AsLongLong(stream);
	if (s == -1 && PyErr_Occurred())
		return -1;
	if (s >= 1 || s == -1)
		return 0;
	PyErr_Format(PyExc_ValueError,
		     "stream: %lld is not a CUDA stream for DLPack (0 is "
		     "ambiguous: 1 is the legacy default stream, 2 the "
		     "per-thread one, -1 none)",
		     s);
	return -1;
}

/* The number of elements of d. */
static size_t da_count(const DeviceArrayObject *d)
{
	size_t n = 1;

	for (uint32_t k = 0; k < d->ndim; k++)
		n *= (size_t)d->shape[k];
	return n;
}

/* 1 when d's elements lie one after another in C order. */
static int da_contiguous(const DeviceArrayObject *d)
{
	int64_t want = 1;

	for (uint32_t k = d->ndim; k-- > 0;) {
		if (d->shape[k] != 1 && d->strides[k] != want)
			return 0;
		want *= d->shape[k];
	}
	return 1;
}

/* d's elements (host memory), in C order, into dst. */
static void da_copy_into(const DeviceArrayObject *d, char *dst)
{
	size_t n = da_count(d), es = WEFT_DTYPE_BYTES(d->dtype);
	const char *src = da_data(d);

	if (da_contiguous(d)) {
		memcpy(dst, src, n * es);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		size_t r = i;
		int64_t off = 0;

		for (uint32_t k = d->ndim; k-- > 0;) {
			off += (int64_t)(r % (size_t)d->shape[k]) *
			       d->strides[k];
			r /= (size_t)d->shape[k];
		}
		memcpy(dst + i * es, src + off * (int64_t)es, es);
	}
}

/* The managed tensor's allocation: one that keeps d (and its memory), or,
 * for copy=True, one holding a copy (64-byte aligned) of d's elements;
 * NULL with BufferError (device memory: weft copies host arrays only) or
 * MemoryError. */
static da_managed *da_alloc(DeviceArrayObject *d, int copy, int type)
{
	size_t room = copy ? da_count(d) * WEFT_DTYPE_BYTES(d->dtype) + 64 : 0;
	da_managed *x;

	if (copy && type != DL_CPU) {
		PyErr_Format(PyExc_BufferError,
			     "copy=True: the '%s' array is CUDA memory and "
			     "weft copies host arrays only; export it where "
			     "it lies (copy=None) and copy the tensor",
			     d->name);
		return NULL;
	}
	if (!(x = PyMem_RawCalloc(1, sizeof *x + room)))
		return (da_managed *)PyErr_NoMemory();
	if (copy) {
		x->copy = (char *)(((uintptr_t)(x + 1) + 63) & ~(uintptr_t)63);
		da_copy_into(d, x->copy);
		return x;
	}
	x->owner = (PyObject *)d;
	Py_INCREF(d);
	return x;
}

static void da_fill(DeviceArrayObject *d, da_managed *x, dl_tensor *t, int type,
		    int32_t id)
{
	int64_t step = 1;

	for (uint32_t k = d->ndim; k-- > 0;) {
		x->shape[k] = d->shape[k];
		x->strides[k] = x->copy ? step : d->strides[k];
		step *= d->shape[k];
	}
	t->data = x->copy ? (void *)x->copy : da_data(d);
	t->byte_offset = 0;
	t->device.device_type = type;
	t->device.device_id = id;
	t->ndim = (int32_t)d->ndim;
	/* weft_dtype's class numbers are DLPack's: 0 int, 1 uint, 2 float */
	t->dtype.code = (uint8_t)(d->dtype >> 8);
	t->dtype.bits = (uint8_t)(d->dtype & 0xffu);
	t->dtype.lanes = 1;
	t->shape = x->shape;
	t->strides = x->strides;
}

/* x as a capsule: versioned ("dltensor_versioned", DLPack 1.0) or legacy
 * ("dltensor"). A consumer renames the capsule it takes ("used_..."),
 * and then calls the deleter itself; da_capsule_free only frees one that
 * was never taken. */
static PyObject *da_capsule(DeviceArrayObject *d, da_managed *x, int v1,
			    int type, int32_t id)
{
	PyObject *cap;

	if (v1) {
		da_fill(d, x, &x->v.t, type, id);
		x->v.major = 1;
		x->v.minor = 0;
		x->v.deleter = da_deleter_v1;
		/* the results are for reading, the actions for writing, a
		 * copy is the consumer's own */
		x->v.flags = x->copy	   ? DL_FLAG_IS_COPIED
			     : d->writable ? 0
					   : DL_FLAG_READ_ONLY;
		cap = PyCapsule_New(&x->v, "dltensor_versioned",
				    da_capsule_free);
	} else {
		da_fill(d, x, &x->m.t, type, id);
		x->m.deleter = da_deleter;
		cap = PyCapsule_New(&x->m, "dltensor", da_capsule_free);
	}
	if (!cap)
		da_free(x);
	return cap;
}

/* __dlpack__(*, stream, max_version, dl_device, copy) as the Python array
 * API standard has it: the arguments' types are checked first (TypeError
 * naming the argument), then what the array can do (BufferError). */
static PyObject *DeviceArray_dlpack(DeviceArrayObject *d, PyObject *args,
				    PyObject *kw)
{
	static char *kwlist[] = { "stream", "max_version", "dl_device", "copy",
				  NULL };
	PyObject *stream = Py_None, *maxv = Py_None, *dev = Py_None;
	PyObject *copy = Py_None;
	da_managed *x;
	int32_t id;
	int type, v1, want_copy;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|$OOOO", kwlist, &stream,
					 &maxv, &dev, &copy))
		return NULL;
	if ((v1 = da_max_version(maxv)) < 0 ||
	    (want_copy = da_copy_arg(copy)) < 0)
		return NULL;
	if (!owner_ready(d->owner) || (type = da_device(d, &id)) < 0)
		return NULL;
	if (da_check_device(d, dev, type, id) || da_check_stream(stream, type))
		return NULL;
	if (!(x = da_alloc(d, want_copy, type)))
		return NULL;
	return da_capsule(d, x, v1, type, id);
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
			     d->mem.kind <= 3 ? kinds[d->mem.kind] : "?",
			     "device", (int)d->mem.device, "handle",
			     (unsigned long long)(uintptr_t)d->mem.handle,
			     "offset", (Py_ssize_t)(d->mem.offset + d->offset),
			     "nbytes", (Py_ssize_t)d->bytes, "buffer_bytes",
			     (Py_ssize_t)d->mem.bytes);
}

static PyObject *DeviceArray_shape(DeviceArrayObject *d, void *closure)
{
	PyObject *t = PyTuple_New(d->ndim);

	(void)closure;
	for (uint32_t k = 0; t && k < d->ndim; k++) {
		PyObject *v = PyLong_FromLongLong((long long)d->shape[k]);

		if (!v) {
			Py_CLEAR(t);
			break;
		}
		PyTuple_SET_ITEM(t, k, v);
	}
	return t;
}

/* numpy's name of a weft_dtype. */
static const char *dtype_name(uint32_t dtype)
{
	switch (dtype) {
	case WEFT_DTYPE_I8: return "int8";
	case WEFT_DTYPE_I16: return "int16";
	case WEFT_DTYPE_I32: return "int32";
	case WEFT_DTYPE_I64: return "int64";
	case WEFT_DTYPE_U8: return "uint8";
	case WEFT_DTYPE_U16: return "uint16";
	case WEFT_DTYPE_U32: return "uint32";
	case WEFT_DTYPE_U64: return "uint64";
	case WEFT_DTYPE_F32: return "float32";
	case WEFT_DTYPE_F64: return "float64";
	}
	return "?";
}

/* The buffer protocol's format of a weft_dtype (fixed sizes). */
static const char *dtype_format(uint32_t dtype)
{
	switch (dtype) {
	case WEFT_DTYPE_I8: return "b";
	case WEFT_DTYPE_I16: return "=h";
	case WEFT_DTYPE_I32: return "=i";
	case WEFT_DTYPE_I64: return "=q";
	case WEFT_DTYPE_U8: return "B";
	case WEFT_DTYPE_U16: return "=H";
	case WEFT_DTYPE_U32: return "=I";
	case WEFT_DTYPE_U64: return "=Q";
	case WEFT_DTYPE_F32: return "=f";
	case WEFT_DTYPE_F64: return "=d";
	}
	return "B";
}

static PyObject *DeviceArray_dtype(DeviceArrayObject *d, void *closure)
{
	(void)closure;
	return PyUnicode_FromString(dtype_name(d->dtype));
}

static PyObject *DeviceArray_name(DeviceArrayObject *d, void *closure)
{
	(void)closure;
	return PyUnicode_FromString(d->name);
}

/* Host memory as a buffer (np.asarray(a)): writable for the action
 * buffer, so that actions are written in place with any numpy (numpy
 * 1.26's from_dlpack makes read-only arrays). Device memory has none. */
static int DeviceArray_getbuffer(DeviceArrayObject *d, Py_buffer *view,
				 int flags)
{
	if (d->mem.kind != WEFT_NATIVE_HOST) {
		PyErr_Format(PyExc_BufferError,
			     "the '%s' array is device memory of backend %s, "
			     "not host memory: use DLPack (torch.from_dlpack) "
			     "or the arrays step() returns",
			     d->name, owner_backend(d->owner));
		return -1;
	}
	if (!owner_ready(d->owner))
		return -1;
	if ((flags & PyBUF_WRITABLE) && !d->writable) {
		PyErr_Format(PyExc_BufferError,
			     "the '%s' array is for reading; only 'actions' "
			     "is writable",
			     d->name);
		return -1;
	}
	view->obj = (PyObject *)d;
	Py_INCREF(d);
	view->buf = da_data(d);
	view->len = (Py_ssize_t)d->bytes;
	view->readonly = !d->writable;
	view->itemsize = (Py_ssize_t)WEFT_DTYPE_BYTES(d->dtype);
	view->format =
		(flags & PyBUF_FORMAT) ? (char *)dtype_format(d->dtype) : NULL;
	view->ndim = (int)d->ndim;
	view->shape = (flags & PyBUF_ND) ? d->bshape : NULL;
	view->strides = (flags & PyBUF_STRIDES) ? d->bstrides : NULL;
	view->suboffsets = NULL;
	view->internal = NULL;
	return 0;
}

static PyBufferProcs DeviceArray_as_buffer = {
	.bf_getbuffer = (getbufferproc)DeviceArray_getbuffer,
};

static PyMethodDef DeviceArray_methods[] = {
	{ "__dlpack__", (PyCFunction)(void (*)(void))DeviceArray_dlpack,
	  METH_VARARGS | METH_KEYWORDS,
	  "__dlpack__(*, stream=None, max_version=None, dl_device=None, "
	  "copy=None): a DLPack capsule of the array where it lies (data at "
	  "the first element, byte_offset 0), or of a copy (copy=True, host "
	  "arrays); versioned for max_version >= (1, 0)" },
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
	.tp_doc = "an array of environments' results (or their action "
		  "buffer) where it lies, for DLPack consumers and, on host "
		  "backends, the buffer protocol",
	.tp_dealloc = (destructor)DeviceArray_dealloc,
	.tp_methods = DeviceArray_methods,
	.tp_getset = DeviceArray_getset,
	.tp_as_buffer = &DeviceArray_as_buffer,
};

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

/* ---- Env: any environment model (weft/env.h) -------------------------- */

/* The protocol's views: the results act writes (obs .. final_obs), then
 * what the application writes. More results (views the model declares
 * besides, such as CartPole's final_return) follow obs .. final_obs in
 * res[] when Env() is given their names. */
enum {
	EV_OBS,
	EV_REWARD,
	EV_TERM,
	EV_TRUNC,
	EV_FINAL,
	EV_ACTIONS,
	EV_MASK,
	EV_SEED,
	EV_N,
	EV_RESULTS = EV_ACTIONS /* the first that is not a result */
};
static const char *const ev_names[EV_N] = {
	"obs",	     "reward",	"terminated", "truncated",
	"final_obs", "actions", "reset_mask", "reset_seed",
};

typedef struct {
	PyObject_HEAD weft_context *ctx;
	weft_config *cfg;
	weft_sim *sim;
	weft_env_info info;
	weft_array v[EV_N];
	uint32_t act, reset_some; /* the lists */
	/* The results res[0 .. n_res): obs .. final_obs, then the extra
	 * ones. When they lie in one buffer, the span [span_off, span_off +
	 * span_bytes) of it, read in one go (or, on a host backend, not
	 * read: io points into it); otherwise each view is read into own_io
	 * at at[k]. */
	weft_array *res;
	size_t *at; /* each result view's offset in io */
	uint32_t n_res;
	weft_sim_buffer *span;
	size_t span_off, span_bytes;
	int host; /* io is the device's own memory */
	uint8_t *io, *own_io;
	/* Staging for asynchronous writes: actions, reset mask, seeds. The
	 * host memory of an async write stays untouched until the fence
	 * wait (or blocking read) that ends every call. */
	uint8_t *stage;
	size_t stage_mask, stage_seed;
	Py_ssize_t pins; /* buffer exports and DeviceArrays alive */
	int closed, busy;
} EnvObject;

static PyTypeObject EnvType;

static void env_free(EnvObject *e)
{
	weft_sim_close(e->sim);
	e->sim = NULL;
	weft_config_free(e->cfg);
	e->cfg = NULL;
	PyMem_Free(e->own_io);
	e->own_io = NULL;
	PyMem_Free(e->stage);
	e->stage = NULL;
	PyMem_Free(e->res);
	e->res = NULL;
	PyMem_Free(e->at);
	e->at = NULL;
	e->io = NULL;
}

static void Env_dealloc(EnvObject *e)
{
	env_free(e);
	weft_context_free(e->ctx);
	Py_TYPE(e)->tp_free((PyObject *)e);
}

static int env_ready(EnvObject *e)
{
	/* a call after close() is a bad call (ValueError), as a closed
	 * file's are; one while another thread steps is not */
	if (!e->sim || e->closed) {
		PyErr_SetString(error_class[-WEFT_E_INVALID],
				"the environments are closed");
		return 0;
	}
	if (e->busy) {
		PyErr_SetString(PyExc_RuntimeError,
				"the environments are in use by another "
				"thread");
		return 0;
	}
	return 1;
}

/* Bring the results where io is: a fence wait for a host backend's own
 * memory, else one read of the span (or one per view). */
static weft_status env_results(EnvObject *e)
{
	uint64_t token;
	weft_status st;

	if (e->host) {
		if ((st = weft_sim_fence(e->sim, &token)))
			return st;
		return weft_sim_wait(e->sim, token);
	}
	if (e->span)
		return weft_sim_read(e->sim, e->io, e->span, e->span_off,
				     e->span_bytes, 0);
	for (uint32_t k = 0; k < e->n_res; k++)
		if ((st = weft_sim_read(e->sim, e->io + e->at[k],
					e->res[k].buffer, e->res[k].offset,
					e->res[k].bytes, 0)))
			return st;
	return WEFT_OK;
}

/* Where the results lie (one span of one buffer?) and where io is. */
static int env_locate_io(EnvObject *e)
{
	size_t lo = (size_t)-1, hi = 0, total = 0;
	int one = 1;

	for (uint32_t k = 0; k < e->n_res; k++) {
		const weft_array *a = &e->res[k];

		one &= a->buffer == e->res[0].buffer;
		lo = a->offset < lo ? a->offset : lo;
		hi = a->offset + a->bytes > hi ? a->offset + a->bytes : hi;
		e->at[k] = total;
		total += (a->bytes + 7) & ~(size_t)7;
	}
	if (one) {
		e->span = e->res[0].buffer;
		e->span_off = lo;
		e->span_bytes = hi - lo;
		for (uint32_t k = 0; k < e->n_res; k++)
			e->at[k] = e->res[k].offset - lo;
		total = hi - lo;
	}
	if (one && e->v[0].mem.kind == WEFT_NATIVE_HOST && e->v[0].mem.handle) {
		e->host = 1;
		e->io = (uint8_t *)e->v[0].mem.handle + e->v[0].mem.offset + lo;
		return 0;
	}
	if (!(e->own_io = PyMem_Calloc(total ? total : 1, 1))) {
		PyErr_NoMemory();
		return -1;
	}
	e->io = e->own_io;
	return 0;
}

/* The protocol's views and lists, by name (the core checked them). */
static weft_status env_find(EnvObject *e)
{
	weft_status st;

	e->info.struct_size = sizeof e->info;
	if ((st = weft_sim_env(e->sim, &e->info)))
		return st;
	for (int k = 0; k < EV_N; k++) {
		e->v[k].struct_size = sizeof e->v[k];
		if ((st = weft_sim_array_find(e->sim, ev_names[k], &e->v[k])))
			return st;
	}
	if ((st = weft_sim_list(e->sim, "act", &e->act)))
		return st;
	return weft_sim_list(e->sim, "reset_some", &e->reset_some);
}

static int env_view(EnvObject *e, const char *name, weft_array *a);

/* Whether name is one of the results res[0 .. k). */
static int env_result_has(const EnvObject *e, uint32_t k, const char *name)
{
	for (uint32_t j = 0; j < k; j++)
		if (strcmp(e->res[j].name, name) == 0)
			return 1;
	return 0;
}

/* The results: obs .. final_obs, then the views named in `more` (a
 * sequence of str, or None), then the model's info fields
 * (weft_model_env_info) not among them, each brought back with every
 * call as they are. */
static int env_results_of(EnvObject *e, PyObject *more)
{
	PyObject *seq = NULL;
	Py_ssize_t extra = 0;
	uint32_t k = EV_RESULTS;
	int r = -1;

	if (more != Py_None) {
		if (!(seq = PySequence_Fast(more, "results must be a sequence "
						  "of view names")))
			return -1;
		extra = PySequence_Fast_GET_SIZE(seq);
	}
	e->n_res = (uint32_t)(EV_RESULTS + extra) + e->info.n_info;
	e->res = PyMem_Calloc(e->n_res, sizeof *e->res);
	e->at = PyMem_Calloc(e->n_res, sizeof *e->at);
	if (!e->res || !e->at) {
		PyErr_NoMemory();
		goto drop;
	}
	for (int j = 0; j < EV_RESULTS; j++)
		e->res[j] = e->v[j];
	for (Py_ssize_t j = 0; j < extra; j++) {
		PyObject *o = PySequence_Fast_GET_ITEM(seq, j);
		const char *name =
			PyUnicode_Check(o) ? PyUnicode_AsUTF8(o) : NULL;

		if (!name) {
			if (!PyErr_Occurred())
				PyErr_Format(PyExc_TypeError,
					     "results[%zd] must be a view's "
					     "name (str), got %.100s",
					     j, Py_TYPE(o)->tp_name);
			goto drop;
		}
		if (env_view(e, name, &e->res[k++]))
			goto drop;
	}
	for (uint32_t j = 0; j < e->info.n_info; j++)
		if (!env_result_has(e, k, e->info.info[j]) &&
		    env_view(e, e->info.info[j], &e->res[k++]))
			goto drop;
	e->n_res = k;
	r = 0;
drop:
	Py_XDECREF(seq);
	return r;
}

static int Env_init(EnvObject *e, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "sets", "results", NULL };
	PyObject *sets, *more = Py_None;
	cancel_guard g;
	weft_status st;
	size_t n;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O", kwlist, &sets, &more))
		return -1;
	if (e->ctx || weft_context_new(&e->ctx)) {
		PyErr_SetString(PyExc_RuntimeError, "Env initialised twice");
		return -1;
	}
	if (!(e->cfg = make_config(e->ctx, NULL, sets, 0)))
		return -1;
	/* As in Sim_init: a Ctrl-C cancels the setup. */
	guard_arm(&g, e->ctx);
	Py_BEGIN_ALLOW_THREADS st = weft_sim_open(e->ctx, e->cfg, &e->sim);
	Py_END_ALLOW_THREADS guard_disarm(&g, e->ctx);
	if (st == WEFT_OK)
		st = env_find(e);
	if (st) {
		raise_ctx(e->ctx, st);
		return -1;
	}
	n = e->info.num_envs;
	e->stage_mask = (e->v[EV_ACTIONS].bytes + 7) & ~(size_t)7;
	e->stage_seed = e->stage_mask + ((n + 7) & ~(size_t)7);
	if (!(e->stage = PyMem_Calloc(e->stage_seed + 8 * n + 8, 1))) {
		PyErr_NoMemory();
		return -1;
	}
	if (env_results_of(e, more) || env_locate_io(e))
		return -1;
	if ((st = env_results(e))) {
		raise_ctx(e->ctx, st);
		return -1;
	}
	return 0;
}

/* What env_launch() writes before the launch: the staged actions, reset
 * mask, seeds. */
enum { EW_ACTIONS = 1, EW_MASK = 2, EW_SEEDS = 4 };

/* The staged writes (asynchronous: the stage stays untouched until
 * env_results() has waited), `reps` launches of `list`, its results. */
static weft_status env_issue(EnvObject *e, uint32_t list, uint64_t reps,
			     unsigned writes)
{
	const weft_array *act = &e->v[EV_ACTIONS], *mask = &e->v[EV_MASK];
	const weft_array *seed = &e->v[EV_SEED];
	size_t n = e->info.num_envs;
	weft_status st;

	if ((writes & EW_ACTIONS) &&
	    (st = weft_sim_write(e->sim, act->buffer, act->offset, e->stage,
				 act->bytes, WEFT_XFER_ASYNC)))
		return st;
	if ((writes & EW_MASK) &&
	    (st = weft_sim_write(e->sim, mask->buffer, mask->offset,
				 e->stage + e->stage_mask, n, WEFT_XFER_ASYNC)))
		return st;
	if ((writes & EW_SEEDS) &&
	    (st = weft_sim_write(e->sim, seed->buffer, seed->offset,
				 e->stage + e->stage_seed, 8 * n,
				 WEFT_XFER_ASYNC)))
		return st;
	if (reps && (st = weft_sim_launch(e->sim, list, reps)))
		return st;
	return env_results(e);
}

/* env_issue() with the GIL released. */
static PyObject *env_launch(EnvObject *e, uint32_t list, uint64_t reps,
			    unsigned writes)
{
	weft_status st;

	e->busy = 1;
	Py_BEGIN_ALLOW_THREADS st = env_issue(e, list, reps, writes);
	Py_END_ALLOW_THREADS e->busy = 0;
	if (st)
		return raise_ctx(e->ctx, st);
	Py_RETURN_NONE;
}

/* Element k of an integer array of weft_dtype dtype, as a long long
 * (u64 above LLONG_MAX as LLONG_MAX: out of any Discrete range). */
static long long int_at(const void *p, uint32_t dtype, size_t k)
{
	switch (dtype) {
	case WEFT_DTYPE_I8: return ((const int8_t *)p)[k];
	case WEFT_DTYPE_I16: return ((const int16_t *)p)[k];
	case WEFT_DTYPE_I32: return ((const int32_t *)p)[k];
	case WEFT_DTYPE_I64: return ((const int64_t *)p)[k];
	case WEFT_DTYPE_U8: return ((const uint8_t *)p)[k];
	case WEFT_DTYPE_U16: return ((const uint16_t *)p)[k];
	case WEFT_DTYPE_U32: return ((const uint32_t *)p)[k];
	case WEFT_DTYPE_U64: {
		uint64_t v = ((const uint64_t *)p)[k];

		return v > (uint64_t)INT64_MAX ? INT64_MAX : (long long)v;
	}
	}
	return 0;
}

/* v, within the range of integer dtype `dtype`, stored as element k. */
static void int_put(void *p, uint32_t dtype, size_t k, long long v)
{
	switch (dtype) {
	case WEFT_DTYPE_I8: ((int8_t *)p)[k] = (int8_t)v; break;
	case WEFT_DTYPE_I16: ((int16_t *)p)[k] = (int16_t)v; break;
	case WEFT_DTYPE_I32: ((int32_t *)p)[k] = (int32_t)v; break;
	case WEFT_DTYPE_I64: ((int64_t *)p)[k] = (int64_t)v; break;
	case WEFT_DTYPE_U8: ((uint8_t *)p)[k] = (uint8_t)v; break;
	case WEFT_DTYPE_U16: ((uint16_t *)p)[k] = (uint16_t)v; break;
	case WEFT_DTYPE_U32: ((uint32_t *)p)[k] = (uint32_t)v; break;
	case WEFT_DTYPE_U64: ((uint64_t *)p)[k] = (uint64_t)v; break;
	}
}

/* The dtype of a buffer's elements from its struct-module format
 * (native or little-endian, as numpy gives on this host): an integer
 * type, float32 or float64; 0 for others (bools, records, float16, long
 * double). */
static uint32_t dtype_of(const Py_buffer *b)
{
	const char *f = b->format ? b->format : "B";
	unsigned bits = 8u * (unsigned)b->itemsize;

	if (*f == '@' || *f == '=' || *f == '<')
		f++;
	if (!f[0] || f[1])
		return 0;
	if ((f[0] == 'f' && bits == 32) || (f[0] == 'd' && bits == 64))
		return bits == 32 ? WEFT_DTYPE_F32 : WEFT_DTYPE_F64;
	if (!strchr("bBhHiIlLqQ", f[0]) ||
	    (bits != 8 && bits != 16 && bits != 32 && bits != 64))
		return 0;
	return (islower((unsigned char)f[0]) ? 0u : 1u << 8) | bits;
}

/* A Discrete action view's integer dtype (0: a Box's actions). */
static uint32_t env_discrete_dtype(const EnvObject *e)
{
	const weft_array *a = &e->v[EV_ACTIONS];

	if (e->info.action.kind != WEFT_SPACE_DISCRETE || (a->dtype >> 8) == 2)
		return 0;
	return a->dtype;
}

/* The count integers of type TF at p checked within [lo, hi] (else jump
 * to out_of_range with k at the first that is not) and stored at d as
 * integers of vbytes bytes (their low bytes: two's complement, whatever
 * the view's signedness). One loop without an exit, which the compiler
 * vectorises (SSE2 has no 64-bit compare, so the test is arithmetic):
 * v - lo, as a 64-bit unsigned u, is at most span = hi - lo (< 2^63) where
 * neither u nor span - u has its top bit set. */
#define WEFT_PY_STAGE_AS(TF, TD)                                             \
	do {                                                                 \
		const TF *restrict q = p;                                    \
		TD *restrict o = d;                                          \
		uint64_t span = (uint64_t)(hi - lo), bits = 0, u;            \
		for (k = 0; k < count; k++) {                                \
			u = (uint64_t)(long long)q[k] - (uint64_t)lo;        \
			bits |= u | (span - u);                              \
			o[k] = (TD)(long long)q[k];                          \
		}                                                            \
		if (bits >> 63) {                                            \
			for (k = 0;                                          \
			     (long long)q[k] >= lo && (long long)q[k] <= hi; \
			     k++)                                            \
				;                                            \
			goto out_of_range;                                   \
		}                                                            \
	} while (0)
#define WEFT_PY_STAGE(TF)                               \
	do {                                            \
		if (vbytes == 1)                        \
			WEFT_PY_STAGE_AS(TF, uint8_t);  \
		else if (vbytes == 2)                   \
			WEFT_PY_STAGE_AS(TF, uint16_t); \
		else if (vbytes == 4)                   \
			WEFT_PY_STAGE_AS(TF, uint32_t); \
		else                                    \
			WEFT_PY_STAGE_AS(TF, uint64_t); \
	} while (0)

/* Discrete actions, count integers of dtype `from` at p, within [start,
 * start + n) (else ValueError naming the first that is not, weft/envs.py's
 * message; the stage may hold part of them, and nothing is sent), stored
 * in the stage as the action view's dtype: one pass, whatever integer type
 * the policy gave. */
static int env_stage_discrete(EnvObject *e, const void *p, uint32_t from)
{
	const weft_env_space *sp = &e->info.action;
	const weft_array *a = &e->v[EV_ACTIONS];
	unsigned vbytes = WEFT_DTYPE_BYTES(a->dtype);
	size_t count = a->bytes / vbytes, k = 0;
	long long lo = (long long)sp->start, hi = lo + (long long)sp->n - 1;
	void *d = e->stage;

	switch (from) {
	case WEFT_DTYPE_I8: WEFT_PY_STAGE(int8_t); break;
	case WEFT_DTYPE_I16: WEFT_PY_STAGE(int16_t); break;
	case WEFT_DTYPE_I32: WEFT_PY_STAGE(int32_t); break;
	case WEFT_DTYPE_I64: WEFT_PY_STAGE(int64_t); break;
	case WEFT_DTYPE_U8: WEFT_PY_STAGE(uint8_t); break;
	case WEFT_DTYPE_U16: WEFT_PY_STAGE(uint16_t); break;
	case WEFT_DTYPE_U32: WEFT_PY_STAGE(uint32_t); break;
	default: /* u64: above INT64_MAX is out of any range (int_at) */
		for (k = 0; k < count; k++) {
			long long v = int_at(p, from, k);

			if (v < lo || v > hi)
				goto out_of_range;
			int_put(d, a->dtype, k, v);
		}
	}
	return 0;
out_of_range:
	if (from == WEFT_DTYPE_U64)
		PyErr_Format(error_class[-WEFT_E_INVALID],
			     "actions[%zu] is %llu, out of range: expected "
			     "%lld .. %lld (Discrete(%lld, start=%lld)); "
			     "nothing was sent",
			     k, (unsigned long long)((const uint64_t *)p)[k],
			     lo, hi, (long long)sp->n, lo);
	else
		PyErr_Format(error_class[-WEFT_E_INVALID],
			     "actions[%zu] is %lld, out of range: expected "
			     "%lld .. %lld (Discrete(%lld, start=%lld)); "
			     "nothing was sent",
			     k, int_at(p, from, k), lo, hi, (long long)sp->n,
			     lo);
	return -1;
}
#undef WEFT_PY_STAGE
#undef WEFT_PY_STAGE_AS

/* The count floats of type TF at p stored at d as float32, each tested
 * for being finite as a float32 (exponent bits not all ones: 1e39 is
 * not): one loop without an exit, which the compiler vectorises; then k
 * at the first that is not, and a jump to not_finite. */
#define WEFT_PY_BOX_AS(TF)                                                   \
	do {                                                                 \
		const TF *restrict q = p;                                    \
		float *restrict o = d, v;                                    \
		uint32_t u, bad = 0;                                         \
		for (k = 0; k < count; k++) {                                \
			v = (float)q[k];                                     \
			memcpy(&u, &v, sizeof u);                            \
			bad |= (uint32_t)((u & 0x7f800000u) == 0x7f800000u); \
			o[k] = v;                                            \
		}                                                            \
		if (bad) {                                                   \
			for (k = 0;; k++) {                                  \
				memcpy(&u, &o[k], sizeof u);                 \
				if ((u & 0x7f800000u) == 0x7f800000u)        \
					break;                               \
			}                                                    \
			goto not_finite;                                     \
		}                                                            \
	} while (0)

/* Box actions of a float32 view (every Box of the environments here):
 * count floats of dtype `from` at p (the buffer of object o) converted to
 * float32 in the stage and checked finite there (else ValueError naming the
 * first environment that is not, weft/envs.py's message, with o's row where o
 * has rows; the stage may hold part of them, and nothing is sent): one pass,
 * from float32 or float64, in place of numpy's conversion, sum and test. */
static int env_stage_box(EnvObject *e, PyObject *o, const void *p,
			 uint32_t from)
{
	const weft_array *a = &e->v[EV_ACTIONS];
	size_t count = a->bytes / WEFT_DTYPE_BYTES(a->dtype), k = 0;
	void *d = e->stage;
	PyObject *row, *text;
	const char *utf8;

	if (from == WEFT_DTYPE_F32)
		WEFT_PY_BOX_AS(float);
	else
		WEFT_PY_BOX_AS(double);
	return 0;
not_finite:
	k /= count / e->info.num_envs; /* the environment (count > 0 here) */
	row = PySequence_Check(o) ? PySequence_GetItem(o, (Py_ssize_t)k) : NULL;
	text = row ? PyObject_Str(row) : NULL;
	utf8 = text ? PyUnicode_AsUTF8(text) : NULL;
	PyErr_Clear(); /* a row that cannot be shown is left out */
	PyErr_Format(error_class[-WEFT_E_INVALID],
		     "actions of environment %zu are not finite as "
		     "float32%s%s%s; nothing was sent",
		     k, utf8 ? " (" : "", utf8 ? utf8 : "", utf8 ? ")" : "");
	Py_XDECREF(text);
	Py_XDECREF(row);
	return -1;
}
#undef WEFT_PY_BOX_AS

/* The actions of step() into the stage: a C-contiguous buffer of one
 * element per action: for a Discrete space, of any integer type (numpy's
 * int64 from a policy's argmax included), converted and range-checked
 * here in one pass; for a float32 Box, float32 or float64, converted
 * and checked finite in one pass; else of the view's dtype and bytes
 * (weft/envs.py converted and checked them). */
static int env_stage_actions(EnvObject *e, PyObject *o)
{
	const weft_array *a = &e->v[EV_ACTIONS];
	size_t count = a->bytes / WEFT_DTYPE_BYTES(a->dtype);
	uint32_t view = env_discrete_dtype(e), from;
	int box_f = !view && a->dtype == WEFT_DTYPE_F32;
	const void *src;
	void *tmp = NULL;
	Py_buffer b;
	int rc = 0;

	if (!PyObject_CheckBuffer(o)) {
		PyErr_Format(PyExc_TypeError,
			     "actions: expected a buffer (a C-contiguous numpy "
			     "array of the action space's dtype, or of any "
			     "integer dtype for a Discrete space, one action "
			     "per environment), got %.100s",
			     Py_TYPE(o)->tp_name);
		return -1;
	}
	if (PyObject_GetBuffer(o, &b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT))
		return -1;
	/* integers for a Discrete view, floats for a float32 Box's */
	from = dtype_of(&b);
	if ((view ? (from >> 8) == 2 : !box_f || (from >> 8) != 2) ||
	    b.len != (Py_ssize_t)(count * WEFT_DTYPE_BYTES(from)))
		from = 0;
	src = b.buf;
	if (from && (uintptr_t)src % WEFT_DTYPE_BYTES(from)) {
		/* elements not at their alignment (a view at an odd offset
		 * into bytes): read from an aligned copy */
		if (!(tmp = PyMem_Malloc((size_t)b.len))) {
			rc = (PyErr_NoMemory(), -1);
			goto release_buffer;
		}
		src = memcpy(tmp, b.buf, (size_t)b.len);
	}
	if (from && view)
		rc = env_stage_discrete(e, src, from);
	else if (from)
		rc = env_stage_box(e, o, src, from);
	else if (!view && !box_f && b.len == (Py_ssize_t)a->bytes)
		memcpy(e->stage, b.buf, a->bytes);
	else
		rc = (PyErr_Format(
			      error_class[-WEFT_E_INVALID],
			      "actions: %zd bytes of format '%s', "
			      "expected %zu %s",
			      b.len, b.format ? b.format : "B", count,
			      view    ? "integers"
			      : box_f ? "float32 or float64 values"
				      : "values of the action view's dtype"),
		      -1);
	PyMem_Free(tmp);
release_buffer:
	PyBuffer_Release(&b);
	return rc;
}

/* step(actions): actions as env_stage_actions() takes them, or None: the
 * actions already in the device's action buffer (device_array). */
static PyObject *Env_step(EnvObject *e, PyObject *o)
{
	if (!env_ready(e))
		return NULL;
	if (o == Py_None)
		return env_launch(e, e->act, 1, 0);
	if (env_stage_actions(e, o))
		return NULL;
	return env_launch(e, e->act, 1, EW_ACTIONS);
}

/* reset_some(mask: u8[n] of WEFT_ENV_*, seeds: u64[n] or None) */
static PyObject *Env_reset_some(EnvObject *e, PyObject *args)
{
	PyObject *mask, *seeds;
	Py_buffer m, s;
	size_t n;

	if (!PyArg_ParseTuple(args, "OO", &mask, &seeds) || !env_ready(e))
		return NULL;
	n = e->info.num_envs;
	if (get_items(mask, &m, (Py_ssize_t)n, "reset mask"))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		uint8_t w = ((const uint8_t *)m.buf)[i];

		if (w > WEFT_ENV_SEEDED ||
		    (w == WEFT_ENV_SEEDED && seeds == Py_None)) {
			PyBuffer_Release(&m);
			return PyErr_Format(
				PyExc_ValueError,
				"reset mask: environment %zu has %u; expected "
				"0 (keep), 1 (next episode) or 2 (seeded, "
				"with seeds given)",
				i, (unsigned)w);
		}
	}
	memcpy(e->stage + e->stage_mask, m.buf, n);
	PyBuffer_Release(&m);
	if (seeds != Py_None) {
		if (get_items(seeds, &s, 8 * (Py_ssize_t)n, "seeds"))
			return NULL;
		memcpy(e->stage + e->stage_seed, s.buf, 8 * n);
		PyBuffer_Release(&s);
	}
	return env_launch(e, e->reset_some, 1,
			  EW_MASK | (seeds != Py_None ? EW_SEEDS : 0));
}

static PyObject *tuple_of(const int64_t *v, uint32_t n)
{
	PyObject *t = PyTuple_New(n);

	for (uint32_t k = 0; t && k < n; k++) {
		PyObject *x = PyLong_FromLongLong((long long)v[k]);

		if (!x) {
			Py_CLEAR(t);
			break;
		}
		PyTuple_SET_ITEM(t, k, x);
	}
	return t;
}

/* A Box's bounds as a list of floats (None for +-inf everywhere). */
static PyObject *bounds_of(const double *b, size_t count)
{
	PyObject *l;

	if (!b)
		Py_RETURN_NONE;
	if (!(l = PyList_New((Py_ssize_t)count)))
		return NULL;
	for (size_t k = 0; k < count; k++) {
		PyObject *x = PyFloat_FromDouble(b[k]);

		if (!x) {
			Py_DECREF(l);
			return NULL;
		}
		PyList_SET_ITEM(l, (Py_ssize_t)k, x);
	}
	return l;
}

static PyObject *space_dict(const weft_env_space *s)
{
	size_t count = 1;
	uint32_t nd = s->ndim > WEFT_ENV_MAX_DIMS ? WEFT_ENV_MAX_DIMS : s->ndim;
	PyObject *shape, *low, *high, *d;

	for (uint32_t k = 0; k < nd; k++)
		count *= (size_t)s->shape[k];
	shape = tuple_of(s->shape, nd);
	low = bounds_of(s->low, count);
	high = bounds_of(s->high, count);
	d = shape && low && high
		    ? Py_BuildValue("{s:s,s:s,s:O,s:O,s:O,s:L,s:L}", "kind",
				    s->kind == WEFT_SPACE_DISCRETE ? "discrete"
								   : "box",
				    "dtype", dtype_name(s->dtype), "shape",
				    shape, "low", low, "high", high, "n",
				    (long long)s->n, "start",
				    (long long)s->start)
		    : NULL;
	Py_XDECREF(shape);
	Py_XDECREF(low);
	Py_XDECREF(high);
	return d;
}

static size_t env_io_bytes(const EnvObject *e);

/* The run's spaces, mode, info fields and where each result view is in
 * the buffer this object exports: {name: (offset, dtype, shape)}. */
static PyObject *Env_info(EnvObject *e, PyObject *unused)
{
	static const char *const modes[] = { "next_step", "same_step",
					     "disabled" };
	PyObject *views, *obs = NULL, *act = NULL, *fields = NULL, *d = NULL;

	(void)unused;
	if (!env_ready(e) || !(views = PyDict_New()))
		return NULL;
	for (uint32_t k = 0; k < e->n_res; k++) {
		const weft_array *a = &e->res[k];
		PyObject *shape = tuple_of(a->shape, a->ndim);
		PyObject *t =
			shape ? Py_BuildValue("(nsO)", (Py_ssize_t)e->at[k],
					      dtype_name(a->dtype), shape)
			      : NULL;

		Py_XDECREF(shape);
		if (!t || PyDict_SetItemString(views, a->name, t)) {
			Py_XDECREF(t);
			goto done;
		}
		Py_DECREF(t);
	}
	if (!(obs = space_dict(&e->info.observation)) ||
	    !(act = space_dict(&e->info.action)) ||
	    !(fields = PyTuple_New((Py_ssize_t)e->info.n_info)))
		goto done;
	for (uint32_t k = 0; k < e->info.n_info; k++) {
		PyObject *name = PyUnicode_FromString(e->info.info[k]);

		if (!name)
			goto done;
		PyTuple_SET_ITEM(fields, (Py_ssize_t)k, name);
	}
	d = Py_BuildValue(
		"{s:I,s:s,s:I,s:s,s:s,s:O,s:O,s:O,s:O,s:O,s:n,s:s,s:(n)}",
		"num_envs", e->info.num_envs, "autoreset",
		e->info.autoreset <= 2 ? modes[e->info.autoreset] : "?",
		"precision", e->info.precision, "backend",
		weft_sim_backend(e->sim), "model", weft_sim_model(e->sim),
		"zero_copy", e->host ? Py_True : Py_False, "observation", obs,
		"action", act, "views", views, "info_fields", fields,
		"io_bytes", (Py_ssize_t)env_io_bytes(e), "actions_dtype",
		dtype_name(e->v[EV_ACTIONS].dtype), "actions_bytes",
		(Py_ssize_t)e->v[EV_ACTIONS].bytes);
done:
	Py_DECREF(views);
	Py_XDECREF(obs);
	Py_XDECREF(act);
	Py_XDECREF(fields);
	return d;
}

/* The size of io: the span, or the per-view copies. */
static size_t env_io_bytes(const EnvObject *e)
{
	const weft_array *last = &e->res[e->n_res - 1];

	if (e->span)
		return e->span_bytes;
	return e->at[e->n_res - 1] + last->bytes;
}

/* The results, writable (Gymnasium's wrappers may change them in place;
 * the next step overwrites them): the device's own memory on a host
 * backend. The export pins the environments. */
static int Env_getbuffer(EnvObject *e, Py_buffer *view, int flags)
{
	if (!e->io) {
		PyErr_SetString(PyExc_BufferError,
				"the environments are closed");
		return -1;
	}
	if (PyBuffer_FillInfo(view, (PyObject *)e, e->io,
			      (Py_ssize_t)env_io_bytes(e), 0, flags))
		return -1;
	e->pins++;
	return 0;
}

static void Env_releasebuffer(EnvObject *e, Py_buffer *view)
{
	(void)view;
	if (--e->pins == 0 && e->closed)
		env_free(e);
}

static PyBufferProcs Env_as_buffer = {
	.bf_getbuffer = (getbufferproc)Env_getbuffer,
	.bf_releasebuffer = (releasebufferproc)Env_releasebuffer,
};

/* device_array(name): any view the model declared ("obs", "actions",
 * "state", "env_book", ...) where it lies. */
static PyObject *Env_device_array(EnvObject *e, PyObject *args)
{
	weft_array a = { .struct_size = sizeof a };
	const char *name;
	weft_status st;

	if (!PyArg_ParseTuple(args, "s", &name) || !env_ready(e))
		return NULL;
	if ((st = weft_sim_array_find(e->sim, name, &a)))
		return raise_ctx(e->ctx, st);
	return da_new((PyObject *)e, name, &a.mem, a.offset, a.bytes, a.dtype,
		      a.ndim, a.shape, a.strides);
}

/* launch(name, n=1): n repetitions of the declared launch list `name`
 * ("policy", "state", "set_state", ...), then the results brought back
 * as after a step. */
static PyObject *Env_launch(EnvObject *e, PyObject *args)
{
	const char *name;
	long long reps = 1;
	uint32_t list;
	weft_status st;

	if (!PyArg_ParseTuple(args, "s|L", &name, &reps) || !env_ready(e))
		return NULL;
	if (reps < 0)
		return PyErr_Format(PyExc_ValueError,
				    "launch('%s', n): n must be >= 0, got %lld",
				    name, reps);
	if ((st = weft_sim_list(e->sim, name, &list)))
		return raise_ctx(e->ctx, st);
	return env_launch(e, list, (uint64_t)reps, 0);
}

/* has_list(name): whether the model declared a launch list `name`. */
static PyObject *Env_has_list(EnvObject *e, PyObject *args)
{
	const char *name;
	uint32_t list;

	if (!PyArg_ParseTuple(args, "s", &name) || !env_ready(e))
		return NULL;
	return PyBool_FromLong(weft_sim_list(e->sim, name, &list) == WEFT_OK);
}

/* The declared view `name`, or the run's error naming the views. */
static int env_view(EnvObject *e, const char *name, weft_array *a)
{
	weft_status st;

	a->struct_size = sizeof *a;
	if ((st = weft_sim_array_find(e->sim, name, a))) {
		raise_ctx(e->ctx, st);
		return -1;
	}
	return 0;
}

/* A blocking transfer of view a's bytes to or from host memory p, with
 * the GIL released. */
static PyObject *env_transfer(EnvObject *e, const weft_array *a, void *p,
			      int to_device)
{
	weft_status st;

	e->busy = 1;
	Py_BEGIN_ALLOW_THREADS st =
		to_device ? weft_sim_write(e->sim, a->buffer, a->offset, p,
					   a->bytes, 0)
			  : weft_sim_read(e->sim, p, a->buffer, a->offset,
					  a->bytes, 0);
	Py_END_ALLOW_THREADS e->busy = 0;
	if (st)
		return raise_ctx(e->ctx, st);
	Py_RETURN_NONE;
}

/* read(name, out): the declared view's bytes (after everything issued)
 * into out, a writable C-contiguous buffer of exactly its size. */
static PyObject *Env_read(EnvObject *e, PyObject *args)
{
	weft_array a;
	const char *name;
	PyObject *out, *r;
	Py_buffer b;

	if (!PyArg_ParseTuple(args, "sO", &name, &out) || !env_ready(e) ||
	    env_view(e, name, &a))
		return NULL;
	if (PyObject_GetBuffer(out, &b, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE))
		return NULL;
	if (b.len != (Py_ssize_t)a.bytes) {
		PyBuffer_Release(&b);
		return PyErr_Format(error_class[-WEFT_E_INVALID],
				    "read('%s'): out has %zd bytes; the view "
				    "has %zu",
				    name, b.len, a.bytes);
	}
	r = env_transfer(e, &a, b.buf, 0);
	PyBuffer_Release(&b);
	return r;
}

/* write(name, data): data (a C-contiguous buffer of exactly the view's
 * size) into the declared view, in order after everything issued. */
static PyObject *Env_write(EnvObject *e, PyObject *args)
{
	weft_array a;
	const char *name;
	PyObject *data, *r;
	Py_buffer b;
	char what[160];

	if (!PyArg_ParseTuple(args, "sO", &name, &data) || !env_ready(e) ||
	    env_view(e, name, &a))
		return NULL;
	snprintf(what, sizeof what, "write('%s')", name);
	if (get_items(data, &b, (Py_ssize_t)a.bytes, what))
		return NULL;
	r = env_transfer(e, &a, b.buf, 1);
	PyBuffer_Release(&b);
	return r;
}

/* views(): every declared view, {name: (dtype, shape)}. */
static PyObject *Env_views(EnvObject *e, PyObject *unused)
{
	size_t count;
	PyObject *d;

	(void)unused;
	if (!env_ready(e) || !(d = PyDict_New()))
		return NULL;
	count = weft_sim_array_count(e->sim);
	for (size_t i = 0; i < count; i++) {
		weft_array a = { .struct_size = sizeof a };
		PyObject *shape, *t;
		weft_status st;

		if ((st = weft_sim_array_at(e->sim, i, &a))) {
			Py_DECREF(d);
			return raise_ctx(e->ctx, st);
		}
		shape = tuple_of(a.shape, a.ndim);
		t = shape ? Py_BuildValue("(sO)", dtype_name(a.dtype), shape)
			  : NULL;
		Py_XDECREF(shape);
		if (!t || PyDict_SetItemString(d, a.name, t)) {
			Py_XDECREF(t);
			Py_DECREF(d);
			return NULL;
		}
		Py_DECREF(t);
	}
	return d;
}

static PyObject *Env_counters(EnvObject *e, PyObject *unused)
{
	weft_stats s = { .struct_size = sizeof s };
	weft_status st;

	(void)unused;
	if (!env_ready(e))
		return NULL;
	if ((st = weft_sim_stats(e->sim, &s)))
		return raise_ctx(e->ctx, st);
	return stats_dict(&s);
}

static PyObject *Env_close(EnvObject *e, PyObject *unused)
{
	(void)unused;
	if (e->busy) {
		PyErr_SetString(PyExc_RuntimeError,
				"the environments are in use by another "
				"thread");
		return NULL;
	}
	e->closed = 1;
	/* Views and DLPack tensors keep the memory until they are gone. */
	if (e->pins == 0)
		env_free(e);
	Py_RETURN_NONE;
}

static PyMethodDef Env_methods[] = {
	{ "step", (PyCFunction)Env_step, METH_O,
	  "step(actions): write the actions (a buffer of the action view's "
	  "bytes; None: those in the device's buffer), launch act, bring "
	  "the results back" },
	{ "reset_some", (PyCFunction)Env_reset_some, METH_VARARGS,
	  "reset_some(mask, seeds): mask u8[n] (0 keep, 1 next, 2 seeded), "
	  "seeds u64[n] or None" },
	{ "info", (PyCFunction)Env_info, METH_NOARGS,
	  "num_envs, autoreset, precision, spaces, result layout" },
	{ "device_array", (PyCFunction)Env_device_array, METH_VARARGS,
	  "device_array(name): a DeviceArray of a declared view" },
	{ "launch", (PyCFunction)Env_launch, METH_VARARGS,
	  "launch(name, n=1): n repetitions of a declared launch list, "
	  "then the results brought back" },
	{ "has_list", (PyCFunction)Env_has_list, METH_VARARGS,
	  "has_list(name): whether the model declared that launch list" },
	{ "read", (PyCFunction)Env_read, METH_VARARGS,
	  "read(name, out): a declared view's bytes into out (writable, "
	  "C-contiguous, exactly its size)" },
	{ "write", (PyCFunction)Env_write, METH_VARARGS,
	  "write(name, data): data (exactly the view's size) into a "
	  "declared view" },
	{ "views", (PyCFunction)Env_views, METH_NOARGS,
	  "every declared view: {name: (dtype, shape)}" },
	{ "counters", (PyCFunction)Env_counters, METH_NOARGS,
	  "the backend's counters" },
	{ "close", (PyCFunction)Env_close, METH_NOARGS, "close()" },
	{ NULL, NULL, 0, NULL },
};

static PyTypeObject EnvType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "weft._weft.Env",
	.tp_basicsize = sizeof(EnvObject),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Env(sets, results=None): a run of an environment model "
		  "(weft/env.h) driven through the protocol's views and "
		  "lists; results: more declared views brought back with "
		  "every step",
	.tp_new = PyType_GenericNew,
	.tp_init = (initproc)Env_init,
	.tp_dealloc = (destructor)Env_dealloc,
	.tp_methods = Env_methods,
	.tp_as_buffer = &Env_as_buffer,
};

/* ---- DeviceArray owners ------------------------------------------------ */

static int owner_ready(PyObject *owner)
{
	return env_ready((EnvObject *)owner);
}

static void owner_pin(PyObject *owner, int delta)
{
	EnvObject *e = (EnvObject *)owner;

	e->pins += delta;
	if (e->closed && e->pins == 0)
		env_free(e);
}

static const char *owner_backend(PyObject *owner)
{
	EnvObject *e = (EnvObject *)owner;

	return e->sim ? weft_sim_backend(e->sim) : "?";
}

/* envs(model_path=None): every environment id of the available models. */
static PyObject *env_item(const void *l, size_t i)
{
	const weft_env_entry *x = weft_env_list_at(l, i);
	PyObject *thr;

	if (x->has_reward_threshold)
		thr = PyFloat_FromDouble(x->reward_threshold);
	else {
		Py_INCREF(Py_None);
		thr = Py_None;
	}
	if (!thr)
		return NULL;
	/* N: the dict takes the threshold's reference. */
	return Py_BuildValue(
		"{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:I,s:N}", "id", x->id,
		"model", x->model, "path", x->path, "sets",
		x->sets ? x->sets : "", "summary", x->summary ? x->summary : "",
		"count_key", x->count_key, "autoreset_key", x->autoreset_key,
		"precision_key", x->precision_key ? x->precision_key : "",
		"max_episode_steps", x->max_episode_steps, "reward_threshold",
		thr);
}

static PyObject *py_envs(PyObject *self, PyObject *args)
{
	const char *path = NULL;
	weft_env_list *l = NULL;
	weft_context *ctx;
	PyObject *out;
	weft_status st;

	(void)self;
	if (!PyArg_ParseTuple(args, "|z", &path))
		return NULL;
	if (weft_context_new(&ctx))
		return PyErr_NoMemory();
	Py_BEGIN_ALLOW_THREADS st = weft_env_list_scan(ctx, path, &l);
	Py_END_ALLOW_THREADS out =
		st ? raise_ctx(ctx, st)
		   : to_list(l, weft_env_list_count(l), env_item);
	weft_env_list_free(l);
	weft_context_free(ctx);
	return out;
}

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
	{ "envs", py_envs, METH_VARARGS,
	  "envs(model_path=None): every environment id of the available "
	  "models (weft_env_list_scan), sorted by id" },
	{ "check", py_check, METH_VARARGS,
	  "check(config, sets): load and validate a configuration" },
	{ "ensemble", py_ensemble, METH_VARARGS,
	  "ensemble(config, sets): run an ensemble; what it left" },
	{ "lock_dir", py_lock_dir, METH_VARARGS,
	  "lock_dir(path): hold an output directory as weft's runs do "
	  "(weft_dir_lock_take); a handle for unlock_dir" },
	{ "unlock_dir", py_unlock_dir, METH_O,
	  "unlock_dir(handle): release lock_dir's lock (once; later calls "
	  "do nothing)" },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT,
	"weft._weft",
	"libweft's API for the weft package (see weft/__init__.py)",
	-1,
	module_methods,
	NULL,
	NULL,
	NULL,
	NULL,
};

PyMODINIT_FUNC PyInit__weft(void)
{
	PyTypeObject *types[] = { &SimType, &DeviceArrayType, &EnvType };
	const char *names[] = { "Sim", "DeviceArray", "Env" };
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
