/*
 * core/run/resume.c - continuing a run from a checkpoint (weft_sim_resume,
 * weft_checkpoint_check; the format is checkpoint_file.c's).
 *
 * In this order, each refusal one line naming the directory and why:
 *   1. the checkpoint is read whole through a descriptor of its directory
 *      (a run replacing it meanwhile cannot mix two checkpoints): the
 *      manifest's format, its end line and checksum, then this weft's
 *      version, the model's name, version and ABI, the configuration
 *      (the first key that differs is named); then the bytes of state.bin
 *      and the output copies, as the manifest gives them, against the
 *      host's memory (memory.c's weft__mem_host(), as a run's estimate);
 *      only then are they read: their sizes and checksums;
 *   2. the run is opened as any run is: setup() builds everything again
 *      (nothing of setup is skipped: its results are what a checkpoint
 *      does not hold);
 *   3. the buffers must be those the checkpointed run had (names, sizes,
 *      which are state), and those that are not state must hash as they
 *      did there (an input file that changed, or a model that changes a
 *      buffer it did not declare, is refused);
 *   4. the state is written back: buffers (weft_sim_write, any backend),
 *      host state, the rows of each series, the outputs' contents, the
 *      step and the output chunks counted so far.
 */
#include "run/sim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "run/checkpoint.h"
#include "run/validate.h"

/* A checkpoint read into memory. */
typedef struct ckpt_loaded {
	const char *dir;
	weft__ckpt_manifest m;
	char *state;
	size_t state_bytes;
	char **out; /* per output entry of m, in order */
	size_t *out_len;
} ckpt_loaded;

static void ckpt_loaded_free(ckpt_loaded *l)
{
	for (size_t i = 0; l->out && i < l->m.n; i++)
		free(l->out[i]);
	free(l->out);
	free(l->out_len);
	free(l->state);
	weft__ckpt_manifest_free(&l->m);
}

/* ---- reading ------------------------------------------------------------- */

/* Exactly size bytes of fd into new memory, then its end: 0, or -1 when
 * it holds fewer or more (it changed since its fstat()), or errno. One
 * allocation, of the size checked against the manifest. */
static int ckpt_read_exact(int fd, uint64_t size, char **data, size_t *len)
{
	size_t n = 0;
	char *buf, more;
	ssize_t got;

	if (size >= SIZE_MAX || !(buf = malloc((size_t)size + 1)))
		return ENOMEM;
	while (n < size) {
		got = read(fd, buf + n, (size_t)size - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	while ((got = read(fd, &more, 1)) < 0 && errno == EINTR)
		;
	if (n < size || got != 0) {
		int err = got < 0 ? errno : -1;
		free(buf);
		return err;
	}
	buf[n] = '\0';
	*data = buf;
	*len = n;
	return 0;
}

/* The file name of dir (a descriptor), whole: a regular file of exactly
 * *want bytes (the manifest's size for it), or of at most max when want
 * is NULL, checked before any of it is read. */
static weft_status ckpt_read_file(weft_context *ctx, const char *dir, int dfd,
				  const char *name, const uint64_t *want,
				  uint64_t max, char **data, size_t *len)
{
	char shown[WEFT__MSG_MAX / 2];
	uint64_t size;
	weft_status st;
	int fd, err;

	weft__fmt(shown, sizeof shown, "checkpoint file %s/%s", dir, name);
	st = weft__open_regular(ctx, dfd, name, shown, max, &fd, &size);
	if (st && errno == ENOENT && strcmp(name, WEFT__CKPT_MANIFEST) == 0)
		return weft__fail(ctx, WEFT_E_IO,
				  "checkpoint %s holds no " WEFT__CKPT_MANIFEST
				  ": it is not a checkpoint directory, or no "
				  "checkpoint was written into it",
				  dir);
	if (st)
		return st;
	if (want && size != *want) {
		close(fd);
		return weft__fail(ctx, WEFT_E_IO,
				  "checkpoint %s: %s has %llu bytes, its "
				  "manifest says %llu: the checkpoint is "
				  "damaged (%s?)",
				  dir, name, (unsigned long long)size,
				  (unsigned long long)*want,
				  size < *want ? "truncated" : "replaced");
	}
	err = ckpt_read_exact(fd, size, data, len);
	close(fd);
	if (err == -1)
		return weft__fail(ctx, WEFT_E_IO,
				  "checkpoint %s: %s changed while it was "
				  "read (another process writes it?)",
				  dir, name);
	if (err)
		return weft__fail(ctx, WEFT_E_IO,
				  "checkpoint %s: cannot read %s (%llu "
				  "bytes): %s",
				  dir, name, (unsigned long long)size,
				  strerror(err));
	return WEFT_OK;
}

/* One output's copy, named by the manifest's (escaped) name: an escaped
 * name would not be the file's, so those are refused. */
static weft_status ckpt_read_output(weft_context *ctx, ckpt_loaded *l, int dfd,
				    size_t i)
{
	const weft__ckpt_entry *e = &l->m.e[i];
	char *name = weft__strcat(WEFT__CKPT_OUTPUT, e->name);
	weft_status st;

	if (!name)
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	st = ckpt_read_file(ctx, l->dir, dfd, name, &e->bytes, UINT64_MAX,
			    &l->out[i], &l->out_len[i]);
	free(name);
	return st;
}

/* A part of the checkpoint matches its checksum. */
static weft_status ckpt_sum(weft_context *ctx, const char *dir,
			    const char *what, const char *name,
			    const void *data, size_t bytes, uint64_t hash)
{
	if (XXH3_64bits(data, bytes) == hash)
		return WEFT_OK;
	return weft__fail(ctx, WEFT_E_IO,
			  "checkpoint %s: %s '%s' (%zu bytes) does not match "
			  "its checksum: the checkpoint is damaged",
			  dir, what, name, bytes);
}

/* state.bin: its size, and each buffer's and host state's checksum. */
static weft_status ckpt_check_state(weft_context *ctx, const ckpt_loaded *l)
{
	weft_status st = WEFT_OK;

	if (l->state_bytes != l->m.state_bytes)
		return weft__fail(ctx, WEFT_E_IO,
				  "checkpoint %s: " WEFT__CKPT_STATE
				  " has %zu bytes, its manifest says %llu: the "
				  "checkpoint is damaged (truncated?)",
				  l->dir, l->state_bytes,
				  (unsigned long long)l->m.state_bytes);
	for (size_t i = 0; i < l->m.n && st == WEFT_OK; i++) {
		const weft__ckpt_entry *e = &l->m.e[i];
		if (e->kind == 'o' || (e->kind == 'b' && !e->is_state))
			continue;
		if (e->offset > l->state_bytes ||
		    e->bytes > l->state_bytes - e->offset)
			return weft__fail(ctx, WEFT_E_IO,
					  "checkpoint %s: '%s' lies "
					  "outside " WEFT__CKPT_STATE
					  ": the checkpoint is damaged",
					  l->dir, e->name);
		st = ckpt_sum(ctx, l->dir,
			      e->kind == 'b' ? "buffer" : "host state", e->name,
			      l->state + e->offset, e->bytes, e->hash);
	}
	return st;
}

/* checkpoint.txt, read and parsed. */
static weft_status ckpt_read_manifest(weft_context *ctx, ckpt_loaded *l,
				      int dfd)
{
	size_t len = 0;
	char *text = NULL;
	weft_status st;

	st = ckpt_read_file(ctx, l->dir, dfd, WEFT__CKPT_MANIFEST, NULL,
			    WEFT__CKPT_MANIFEST_MAX, &text, &len);
	if (st == WEFT_OK)
		st = weft__ckpt_manifest_read(ctx, l->dir, text, len, &l->m);
	free(text);
	return st;
}

/* What reading the state and the output copies will hold, the sizes the
 * manifest gives, against what the host has: a checkpoint of a larger
 * run (or a manifest that claims 64 GiB) is refused, not OOM-killed. */
static weft_status ckpt_check_memory(weft_context *ctx, const ckpt_loaded *l)
{
	uint64_t outputs = 0, need;
	size_t n_out = 0;
	char what[WEFT__MSG_MAX / 2], parts[160];

	for (size_t i = 0; i < l->m.n; i++)
		if (l->m.e[i].kind == 'o') {
			outputs = l->m.e[i].bytes > UINT64_MAX - outputs
					  ? UINT64_MAX
					  : outputs + l->m.e[i].bytes;
			n_out++;
		}
	need = l->m.state_bytes > UINT64_MAX - outputs
		       ? UINT64_MAX
		       : l->m.state_bytes + outputs;
	weft__fmt(what, sizeof what, "checkpoint %s", l->dir);
	weft__fmt(parts, sizeof parts,
		  "%llu for " WEFT__CKPT_STATE ", %llu for %zu output "
		  "cop%s, as its manifest says",
		  (unsigned long long)l->m.state_bytes,
		  (unsigned long long)outputs, n_out, n_out == 1 ? "y" : "ies");
	return weft__mem_host_has(ctx, need, what, parts,
				  "resume it where there is more memory");
}

/* state.bin and the output copies, their sizes the manifest's, checked
 * before they are read: a device or a file of another size is never
 * allocated for. */
static weft_status ckpt_read_data(weft_context *ctx, ckpt_loaded *l, int dfd)
{
	weft_status st;

	st = ckpt_read_file(ctx, l->dir, dfd, WEFT__CKPT_STATE,
			    &l->m.state_bytes, UINT64_MAX, &l->state,
			    &l->state_bytes);
	if (st == WEFT_OK) {
		l->out = calloc(l->m.n + 1, sizeof *l->out);
		l->out_len = calloc(l->m.n + 1, sizeof *l->out_len);
		if (!l->out || !l->out_len)
			st = weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	}
	for (size_t i = 0; st == WEFT_OK && i < l->m.n; i++)
		if (l->m.e[i].kind == 'o' &&
		    (st = ckpt_read_output(ctx, l, dfd, i)) == WEFT_OK)
			st = ckpt_sum(ctx, l->dir, "output", l->m.e[i].name,
				      l->out[i], l->out_len[i], l->m.e[i].hash);
	return st;
}

/* ---- checking it against this weft and this configuration ---------------- */

/* The first key whose value differs, as "[seir] beta is 0.06 here (FILE:12)
 * and 0.05 in the checkpoint". */
static void ckpt_config_diff(const weft_config *cfg, const char *here,
			     const char *there, char *buf, size_t size)
{
	const char *a = here, *b = there;

	while (*a && *b) {
		size_t na = strcspn(a, "\n"), nb = strcspn(b, "\n");
		size_t ka = strcspn(a, "="), kb = strcspn(b, "=");
		char section[128], key[128];

		if (na != nb || memcmp(a, b, na) != 0) {
			if (ka != kb || memcmp(a, b, ka) != 0) {
				weft__fmt(buf, size,
					  "it has %.*s where this one has %.*s "
					  "(keys of another model version?)",
					  (int)nb, b, (int)na, a);
				return;
			}
			sscanf(a, "%127[^.].%127[^=]", section, key);
			weft__fmt(buf, size,
				  "[%s] %s is %.*s here (%s) and %.*s in the "
				  "checkpoint",
				  section, key, (int)(na - ka - 1), a + ka + 1,
				  weft__config_where(cfg, section, key),
				  (int)(nb - kb - 1), b + kb + 1);
			return;
		}
		a += na + (a[na] == '\n');
		b += nb + (b[nb] == '\n');
	}
	weft__fmt(buf, size, "%s",
		  *a ? "this one has more keys"
		     : "the checkpoint has more keys");
}

static weft_status ckpt_check_config(weft_context *ctx, const weft_config *cfg,
				     const ckpt_loaded *l)
{
	char *text = NULL, hash[33], diff[WEFT__MSG_MAX / 2];
	weft_status st = weft__config_canonical(ctx, cfg, &text, hash);

	if (st == WEFT_OK && strcmp(hash, l->m.config_hash) != 0) {
		ckpt_config_diff(cfg, text, l->m.config, diff, sizeof diff);
		st = weft__fail(ctx, WEFT_E_CONFIG,
				"checkpoint %s was written for another "
				"configuration: %s (the keys that must match: "
				"[simulation], [output] every and csv, and "
				"every key of [%s])",
				l->dir, diff, weft__config_model(cfg)->name);
	}
	free(text);
	return st;
}

static weft_status ckpt_check_model(weft_context *ctx, const weft_config *cfg,
				    const ckpt_loaded *l)
{
	const weft_model *m = weft__config_model(cfg);
	const weft__ckpt_manifest *k = &l->m;
	char version[256];

	weft__escape(version, sizeof version, m->version, strlen(m->version));
	if (strcmp(k->model, m->name) != 0 || strcmp(k->version, version) != 0)
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "checkpoint %s is of model %s (version %s); "
				  "this configuration runs model %s (version "
				  "%s, %s)",
				  l->dir, k->model, k->version, m->name,
				  version, weft__config_model_path(cfg));
	if (k->abi_major != m->abi_major || k->abi_minor != m->abi_minor)
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "checkpoint %s is of model %s built for "
				  "model ABI %u.%u; %s is built for %u.%u",
				  l->dir, k->model, k->abi_major, k->abi_minor,
				  weft__config_model_path(cfg), m->abi_major,
				  m->abi_minor);
	if (!weft__model_checkpoints(m))
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "model %s (%s) cannot be checkpointed or "
				  "resumed: it does not declare its state",
				  m->name, weft__config_model_path(cfg));
	return WEFT_OK;
}

/* This weft, the model and the configuration against the manifest's. */
static weft_status ckpt_check_manifest(weft_context *ctx,
				       const weft_config *cfg,
				       const ckpt_loaded *l)
{
	weft_status st;

	if (strcmp(l->m.weft, PACKAGE_VERSION) != 0)
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "checkpoint %s was written by weft %s; this "
				  "is weft %s: resume it with weft %s",
				  l->dir, l->m.weft, PACKAGE_VERSION,
				  l->m.weft);
	if ((st = ckpt_check_model(ctx, cfg, l)))
		return st;
	return ckpt_check_config(ctx, cfg, l);
}

/* Everything that can be checked before a run is opened: the manifest
 * against this weft, model and configuration, then what its state needs
 * against the host's memory, before state.bin and the outputs are read. */
static weft_status ckpt_load(weft_context *ctx, const weft_config *cfg,
			     const char *dir, ckpt_loaded *l)
{
	int dfd;
	weft_status st;

	memset(l, 0, sizeof *l);
	l->dir = dir;
	if ((st = weft__validate_cfg(ctx, cfg)))
		return st;
	if (!weft__ckpt_little_endian())
		return weft__fail(ctx, WEFT_E_UNSUPPORTED,
				  "checkpoint %s: checkpoints are "
				  "little-endian; this host is not",
				  dir);
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return weft__fail(ctx, WEFT_E_IO, "checkpoint %s: %s", dir,
				  strerror(errno));
	st = ckpt_read_manifest(ctx, l, dfd);
	if (st == WEFT_OK)
		st = ckpt_check_manifest(ctx, cfg, l);
	if (st == WEFT_OK)
		st = ckpt_check_memory(ctx, l);
	if (st == WEFT_OK)
		st = ckpt_read_data(ctx, l, dfd);
	close(dfd);
	if (st == WEFT_OK)
		st = ckpt_check_state(ctx, l);
	return st;
}

weft_status weft_checkpoint_check(weft_context *ctx, const weft_config *cfg,
				  const char *dir, uint64_t *step)
{
	ckpt_loaded l;
	weft_status st;

	if (!ctx || !cfg || !dir)
		return weft__fail(ctx, WEFT_E_INVALID,
				  "weft_checkpoint_check: NULL argument");
	st = ckpt_load(ctx, cfg, dir, &l);
	if (st == WEFT_OK && step)
		*step = l.m.step;
	ckpt_loaded_free(&l);
	return st;
}

/* ---- checking the run setup() built -------------------------------------- */

/* Buffer i of the run against entry e: name, size, whether state, and the
 * hash of one that is not. */
static weft_status ckpt_match_buf(weft_sim *sim, const ckpt_loaded *l,
				  const weft__ckpt_buf *b,
				  const weft__ckpt_entry *e)
{
	if (!e || strcmp(e->name, b->name) != 0 || e->bytes != b->bytes ||
	    e->is_state != b->is_state)
		return weft__fail(sim->ctx, WEFT_E_MODEL,
				  "checkpoint %s: model %s's setup() made "
				  "buffer '%s' (%zu bytes, %s) where the "
				  "checkpointed run had '%s' (%llu bytes, %s)",
				  l->dir, sim->model->name, b->name, b->bytes,
				  b->is_state ? "state" : "not state",
				  e ? e->name : "none",
				  e ? (unsigned long long)e->bytes : 0ull,
				  e && e->is_state ? "state" : "not state");
	if (b->is_state || b->hash == e->hash)
		return WEFT_OK;
	return weft__fail(sim->ctx, WEFT_E_MODEL,
			  "checkpoint %s: buffer '%s' (%zu bytes) as setup() "
			  "built it differs from the checkpointed run's: an "
			  "input of the model changed (a population file?), "
			  "or the model changes the buffer in its steps "
			  "without declaring it state (weft_model_state)",
			  l->dir, b->name, b->bytes);
}

/* The entries of kind `kind`, in order: the i-th, or NULL. */
static const weft__ckpt_entry *ckpt_entry_at(const weft__ckpt_manifest *m,
					     char kind, size_t i)
{
	for (size_t k = 0; k < m->n; k++)
		if (m->e[k].kind == kind && i-- == 0)
			return &m->e[k];
	return NULL;
}

static size_t ckpt_count(const weft__ckpt_manifest *m, char kind)
{
	size_t n = 0;

	for (size_t k = 0; k < m->n; k++)
		n += m->e[k].kind == kind;
	return n;
}

/* The layout of the run setup() built (its hashes kept for the run's own
 * checkpoints) against the checkpoint's. */
static weft_status ckpt_match_layout(weft_sim *sim, const ckpt_loaded *l)
{
	weft__ckpt *c = weft__ckpt_get(sim);
	weft_status st;

	if (!c)
		return WEFT_E_NOMEM;
	if ((st = weft__ckpt_layout_take(sim, &c->layout)))
		return st;
	c->have_layout = 1;
	for (size_t i = 0; i < c->layout.n; i++)
		if ((st = ckpt_match_buf(sim, l, &c->layout.b[i],
					 ckpt_entry_at(&l->m, 'b', i))))
			return st;
	if (ckpt_count(&l->m, 'b') != c->layout.n)
		return weft__fail(sim->ctx, WEFT_E_MODEL,
				  "checkpoint %s has %zu buffers; model %s's "
				  "setup() made %zu",
				  l->dir, ckpt_count(&l->m, 'b'),
				  sim->model->name, c->layout.n);
	return WEFT_OK;
}

/* The host state, the row series and the outputs of the run against the
 * checkpoint's. */
static weft_status ckpt_match_rest(weft_sim *sim, const ckpt_loaded *l)
{
	size_t n_out = 0, i;
	const weft__ckpt_entry *e;

	for (i = 0; i < sim->n_hosts; i++)
		if (!(e = ckpt_entry_at(&l->m, 'h', i)) ||
		    strcmp(e->name, sim->hosts[i].name) != 0 ||
		    e->bytes != sim->hosts[i].bytes)
			break;
	if (i < sim->n_hosts || ckpt_count(&l->m, 'h') != sim->n_hosts ||
	    l->m.n_rows != sim->n_rows)
		return weft__fail(sim->ctx, WEFT_E_MODEL,
				  "checkpoint %s: model %s declared other "
				  "host state or row series than the "
				  "checkpointed run did",
				  l->dir, sim->model->name);
	for (weft_output *o = sim->outputs.head; o; o = weft__output_next(o))
		if (!(e = ckpt_entry_at(&l->m, 'o', n_out++)) ||
		    strcmp(e->name, weft__output_name(o)) != 0)
			return weft__fail(
				sim->ctx, WEFT_E_MODEL,
				"checkpoint %s has no copy of output %s, which "
				"this run's setup() opened (the model opens "
				"its outputs in setup(), or it cannot resume)",
				l->dir, weft__output_name(o));
	if (ckpt_count(&l->m, 'o') != n_out)
		return weft__fail(sim->ctx, WEFT_E_MODEL,
				  "checkpoint %s holds %zu outputs; this run's "
				  "setup() opened %zu",
				  l->dir, ckpt_count(&l->m, 'o'), n_out);
	return WEFT_OK;
}

/* ---- restoring ----------------------------------------------------------- */

static weft_status ckpt_restore_state(weft_sim *sim, const ckpt_loaded *l)
{
	weft_status st = WEFT_OK;
	size_t k = 0;

	for (size_t i = 0; i < sim->n_bufs && st == WEFT_OK; i++) {
		const weft__ckpt_entry *e = ckpt_entry_at(&l->m, 'b', i);
		if (e->is_state)
			st = weft__sim_write(sim, sim->bufs[i], 0,
					     l->state + e->offset, e->bytes, 0);
	}
	for (size_t i = 0; i < sim->n_hosts; i++) {
		const weft__ckpt_entry *e = ckpt_entry_at(&l->m, 'h', i);
		memcpy(sim->hosts[i].data, l->state + e->offset, e->bytes);
	}
	for (size_t i = 0; i < sim->n_rows && st == WEFT_OK; i++)
		st = weft__rows_restore(&sim->mc, sim->rows[i], l->m.rows[i]);
	for (weft_output *o = sim->outputs.head; o && st == WEFT_OK;
	     o = weft__output_next(o), k++) {
		const weft__ckpt_entry *e = ckpt_entry_at(&l->m, 'o', k);
		size_t at = (size_t)(e - l->m.e);
		st = weft__output_replace(o, l->out[at], l->out_len[at]);
	}
	return st;
}

/* The step and the output chunks counted: the next chunk collects into
 * the slot an uninterrupted run would use. */
static weft_status ckpt_restore_run(weft_sim *sim, const ckpt_loaded *l)
{
	weft__ckpt *c = sim->ckpt;

	if (l->m.step > sim->steps_total ||
	    l->m.steps_total != sim->steps_total)
		return weft__fail(sim->ctx, WEFT_E_INTERNAL,
				  "checkpoint %s: step %llu of %llu does not "
				  "fit this run of %llu steps",
				  l->dir, (unsigned long long)l->m.step,
				  (unsigned long long)l->m.steps_total,
				  (unsigned long long)sim->steps_total);
	sim->steps_done = l->m.step;
	weft__pipe_resume(sim, l->m.chunks);
	c->resumed_from = l->m.step;
	if (!(c->resumed_dir = weft__strdup(l->dir)))
		return weft__fail(sim->ctx, WEFT_E_NOMEM, "out of memory");
	return weft__sim_sync(sim);
}

weft_status weft_sim_resume(weft_context *ctx, const weft_config *cfg,
			    const char *dir, weft_sim **out)
{
	ckpt_loaded l;
	weft_sim *sim = NULL;
	weft_status st;

	if (!ctx || !cfg || !dir || !out)
		return weft__fail(ctx, WEFT_E_INVALID,
				  "weft_sim_resume: NULL argument");
	*out = NULL;
	if ((st = ckpt_load(ctx, cfg, dir, &l)) == WEFT_OK &&
	    (st = weft__sim_open_model(ctx, cfg, NULL, &sim)) == WEFT_OK &&
	    (st = ckpt_match_layout(sim, &l)) == WEFT_OK &&
	    (st = ckpt_match_rest(sim, &l)) == WEFT_OK &&
	    (st = ckpt_restore_state(sim, &l)) == WEFT_OK)
		st = ckpt_restore_run(sim, &l);
	ckpt_loaded_free(&l);
	if (st) {
		weft__sim_close(sim);
		return st;
	}
	*out = sim;
	return WEFT_OK;
}
