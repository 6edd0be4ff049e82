/*
 * core/run/checkpoint_file.c - the format of a checkpoint (checkpoint.h): the
 * layout of the run's buffers with the hashes of those setup() makes, and
 * the manifest, checkpoint.txt, written and read back.
 *
 * The manifest is text, one fact a line, the first word naming it:
 *
 *   weft-checkpoint 1                 the format
 *   weft 0.1.0                        the weft that wrote it
 *   byte-order little-endian          of state.bin
 *   model seir 1.2 0.1.0              name, model ABI, its own version
 *   backend openmp                    where it was taken (any resumes it)
 *   step 20 40                        steps done, of the run's steps
 *   chunks 20                         output chunks collected
 *   config-hash HEX32                 XXH3-128 of the config lines
 *   config simulation.model=seir      ... (config_hash.c)
 *   state-bytes 37518                 the size of state.bin
 *   buffer state BYTES OFFSET HASH NAME   saved at OFFSET of state.bin
 *   buffer setup BYTES 0 HASH NAME        as setup() leaves it
 *   host BYTES OFFSET HASH NAME           declared host memory
 *   rows READ                             per row series
 *   output BYTES HASH NAME                output.NAME
 *   end HASH                          XXH3-64 of every byte before it
 *
 * Buffers come in allocation order, host state in declaration order, row
 * series and outputs in opening order: a resumed run's setup() makes them
 * in the same order. Hashes are XXH3-64 in 16 hexadecimal digits; names
 * are escaped (weft__escape), so every fact is one line.
 */
#include "run/sim.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "run/checkpoint.h"

/* Bytes read at a time when a buffer is hashed, so that hashing a large
 * contact network needs no copy of it. */
#define CKPT_HASH_CHUNK ((size_t)16 << 20)

int weft__ckpt_little_endian(void)
{
	const uint32_t one = 1;
	unsigned char first;

	memcpy(&first, &one, 1);
	return first == 1;
}

int weft__ckpt_slurp(int fd, size_t max, char **data, size_t *len)
{
	size_t cap = 0, n = 0;
	char *buf = NULL, *grown;
	ssize_t got = 1;
	int err = 0;

	while (!err && got != 0) {
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			if (!(grown = realloc(buf, cap + 1)))
				err = ENOMEM;
			buf = grown ? grown : buf;
			if (err)
				break;
		}
		got = read(fd, buf + n, cap - n);
		if (got < 0 && errno != EINTR)
			err = errno;
		n += got > 0 ? (size_t)got : 0;
		if (n > max)
			err = EFBIG;
	}
	if (err) {
		free(buf);
		return err;
	}
	buf[n] = '\0';
	*data = buf;
	*len = n;
	return 0;
}

/* ---- the layout of the buffers ------------------------------------------- */

void weft__ckpt_layout_free(weft__ckpt_layout *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->b[i].name);
	free(l->b);
	l->b = NULL;
	l->n = 0;
}

/* XXH3-64 of a whole buffer, read a chunk at a time. */
static weft_status ckpt_hash_buffer(weft_sim *sim, weft_sim_buffer *b,
				    size_t bytes, unsigned char *chunk,
				    uint64_t *hash)
{
	XXH3_state_t *h = XXH3_createState();
	weft_status st = WEFT_OK;

	if (!h)
		return weft__fail(sim->ctx, WEFT_E_NOMEM, "out of memory");
	XXH3_64bits_reset(h);
	for (size_t at = 0; at < bytes && st == WEFT_OK;) {
		size_t n = bytes - at < CKPT_HASH_CHUNK ? bytes - at
							: CKPT_HASH_CHUNK;
		st = weft__sim_read(sim, chunk, b, at, n, 0);
		if (st == WEFT_OK)
			XXH3_64bits_update(h, chunk, n);
		at += n;
	}
	*hash = XXH3_64bits_digest(h);
	XXH3_freeState(h);
	return st;
}

weft_status weft__ckpt_layout_take(weft_sim *sim, weft__ckpt_layout *out)
{
	unsigned char *chunk = malloc(CKPT_HASH_CHUNK);
	weft_status st = WEFT_OK;

	out->n = 0;
	out->b = calloc(sim->n_bufs + 1, sizeof *out->b);
	if (!chunk || !out->b) {
		free(chunk);
		return weft__fail(sim->ctx, WEFT_E_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < sim->n_bufs && st == WEFT_OK; i++) {
		const weft__sim_buf *sb = sim->bufs[i];
		weft__ckpt_buf *b = &out->b[out->n++];
		char name[512];

		weft__escape(name, sizeof name, sb->name, strlen(sb->name));
		b->bytes = sb->bytes;
		b->is_state = sb->is_state;
		if (!(b->name = weft__strdup(name)))
			st = weft__fail(sim->ctx, WEFT_E_NOMEM,
					"out of memory");
		else if (!b->is_state)
			st = ckpt_hash_buffer(sim, sim->bufs[i], sb->bytes,
					      chunk, &b->hash);
	}
	free(chunk);
	return st;
}

/* ---- writing the manifest ------------------------------------------------ */

void weft__ckpt_job_free(weft__ckpt_job *job)
{
	for (size_t i = 0; i < job->n_out; i++) {
		free(job->out_name[i]);
		free(job->out_data[i]);
	}
	free(job->out_name);
	free(job->out_data);
	free(job->out_len);
	free(job->manifest);
	free(job->state);
	memset(job, 0, sizeof *job);
}

/* The header: versions, model, step, configuration. */
static weft_status ckpt_write_head(weft_sim *sim, FILE *f, uint64_t step)
{
	const weft_model *m = sim->model;
	char *config = NULL, hash[33], version[256];
	weft_status st;

	if ((st = weft__config_canonical(sim->ctx, sim->cfg, &config, hash)))
		return st;
	weft__escape(version, sizeof version, m->version, strlen(m->version));
	fprintf(f,
		"weft-checkpoint %u\nweft %s\nbyte-order little-endian\n"
		"model %s %u.%u %s\nbackend %s\nstep %llu %llu\nchunks %llu\n"
		"config-hash %s\n",
		WEFT__CKPT_FORMAT, PACKAGE_VERSION, m->name, m->abi_major,
		m->abi_minor, version, sim->vt->name, (unsigned long long)step,
		(unsigned long long)sim->steps_total,
		(unsigned long long)sim->pipe.next, hash);
	for (char *line = config, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		fprintf(f, "config %.*s\n", (int)(nl - line), line);
	}
	free(config);
	return WEFT_OK;
}

/* Buffers and host state, their bytes hashed where job->state holds them
 * (buffers, then host memory, in the order of the run's lists). */
static void ckpt_write_state(const weft_sim *sim, FILE *f,
			     const weft__ckpt_job *job)
{
	const weft__ckpt_layout *l = &sim->ckpt->layout;
	size_t at = 0;

	fprintf(f, "state-bytes %zu\n", job->state_bytes);
	for (size_t i = 0; i < l->n; i++) {
		const weft__ckpt_buf *b = &l->b[i];
		uint64_t hash = b->is_state
					? XXH3_64bits(job->state + at, b->bytes)
					: b->hash;
		fprintf(f, "buffer %s %zu %zu %016llx %s\n",
			b->is_state ? "state" : "setup", b->bytes,
			b->is_state ? at : 0, (unsigned long long)hash,
			b->name);
		at += b->is_state ? b->bytes : 0;
	}
	for (size_t i = 0; i < sim->n_hosts; i++) {
		const weft__sim_host *h = &sim->hosts[i];
		fprintf(f, "host %zu %zu %016llx %s\n", h->bytes, at,
			(unsigned long long)XXH3_64bits(job->state + at,
							h->bytes),
			h->name);
		at += h->bytes;
	}
}

static void ckpt_write_tail(const weft_sim *sim, FILE *f,
			    const weft__ckpt_job *job)
{
	char name[512];

	for (size_t i = 0; i < sim->n_rows; i++)
		fprintf(f, "rows %llu\n",
			(unsigned long long)weft__model_rows_read(
				sim->rows[i]));
	for (size_t i = 0; i < job->n_out; i++) {
		weft__escape(name, sizeof name, job->out_name[i],
			     strlen(job->out_name[i]));
		fprintf(f, "output %zu %016llx %s\n", job->out_len[i],
			(unsigned long long)XXH3_64bits(job->out_data[i],
							job->out_len[i]),
			name);
	}
}

weft_status weft__ckpt_manifest_write(weft_sim *sim, weft__ckpt_job *job)
{
	size_t len = 0;
	weft_status st;
	FILE *f = open_memstream(&job->manifest, &len);

	if (!f)
		return weft__fail(sim->ctx, WEFT_E_NOMEM, "out of memory");
	st = ckpt_write_head(sim, f, job->step);
	if (st == WEFT_OK) {
		ckpt_write_state(sim, f, job);
		ckpt_write_tail(sim, f, job);
	}
	/* The hash of everything before the end line: a manifest cut short
	 * has no end line, a damaged one does not match it. */
	if (fflush(f) != 0 || !job->manifest)
		st = st ? st
			: weft__fail(sim->ctx, WEFT_E_NOMEM, "out of memory");
	else
		fprintf(f, "end %016llx\n",
			(unsigned long long)XXH3_64bits(job->manifest, len));
	if (fclose(f) != 0 && st == WEFT_OK)
		st = weft__fail(sim->ctx, WEFT_E_NOMEM, "out of memory");
	job->manifest_len = len;
	return st;
}

/* ---- reading it back ----------------------------------------------------- */

void weft__ckpt_manifest_free(weft__ckpt_manifest *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->e[i].name);
	free(m->e);
	free(m->rows);
	free(m->weft);
	free(m->model);
	free(m->version);
	free(m->backend);
	free(m->config_hash);
	free(m->config);
	memset(m, 0, sizeof *m);
}

/* A manifest being parsed: where the failure message goes and which line
 * is read. */
typedef struct ckpt_parse {
	weft_context *ctx;
	const char *what;
	unsigned line;
	weft__ckpt_manifest *m;
	size_t config_len;
} ckpt_parse;

static weft_status ckpt_bad(ckpt_parse *p, const char *why)
{
	return weft__fail(p->ctx, WEFT_E_IO,
			  "checkpoint %s: " WEFT__CKPT_MANIFEST
			  " line %u: %s: the checkpoint is damaged",
			  p->what, p->line, why);
}

/* A decimal number and the space or end after it; *s moves past both. */
static int ckpt_num(const char **s, uint64_t *v)
{
	char *end;

	if (**s < '0' || **s > '9')
		return 0;
	*v = strtoull(*s, &end, 10);
	if (*end != ' ' && *end != '\0')
		return 0;
	*s = *end ? end + 1 : end;
	return 1;
}

/* 16 hexadecimal digits and the space or end after them. */
static int ckpt_hex(const char **s, uint64_t *v)
{
	char digits[17];

	if (strspn(*s, "0123456789abcdef") != 16 ||
	    ((*s)[16] != ' ' && (*s)[16] != '\0'))
		return 0;
	memcpy(digits, *s, 16);
	digits[16] = '\0';
	*v = strtoull(digits, NULL, 16);
	*s += (*s)[16] ? 17 : 16;
	return 1;
}

static weft_status ckpt_add_entry(ckpt_parse *p, const weft__ckpt_entry *e)
{
	weft__ckpt_manifest *m = p->m;
	weft__ckpt_entry *grown = realloc(m->e, (m->n + 1) * sizeof *grown);

	if (!grown)
		return weft__fail(p->ctx, WEFT_E_NOMEM, "out of memory");
	m->e = grown;
	grown[m->n] = *e;
	if (!(grown[m->n].name = weft__strdup(e->name)))
		return weft__fail(p->ctx, WEFT_E_NOMEM, "out of memory");
	m->n++;
	return WEFT_OK;
}

/* "buffer state|setup BYTES OFFSET HASH NAME", "host BYTES OFFSET HASH
 * NAME", "output BYTES HASH NAME". */
static weft_status ckpt_entry(ckpt_parse *p, char kind, const char *s)
{
	weft__ckpt_entry e = { .kind = kind };
	int ok = 1;

	if (kind == 'b') {
		e.is_state = strncmp(s, "state ", 6) == 0;
		ok = e.is_state || strncmp(s, "setup ", 6) == 0;
		s += 6;
	}
	ok = ok && ckpt_num(&s, &e.bytes) &&
	     (kind == 'o' || ckpt_num(&s, &e.offset)) && ckpt_hex(&s, &e.hash);
	if (!ok || !*s)
		return ckpt_bad(p, "a malformed entry");
	e.name = (char *)s;
	return ckpt_add_entry(p, &e);
}

static weft_status ckpt_rows(ckpt_parse *p, const char *s)
{
	weft__ckpt_manifest *m = p->m;
	uint64_t *grown, v;

	if (!ckpt_num(&s, &v) || *s)
		return ckpt_bad(p, "a malformed rows line");
	grown = realloc(m->rows, (m->n_rows + 1) * sizeof *grown);
	if (!grown)
		return weft__fail(p->ctx, WEFT_E_NOMEM, "out of memory");
	m->rows = grown;
	grown[m->n_rows++] = v;
	return WEFT_OK;
}

static weft_status ckpt_config(ckpt_parse *p, const char *s)
{
	weft__ckpt_manifest *m = p->m;
	size_t n = strlen(s);
	char *grown = realloc(m->config, p->config_len + n + 2);

	if (!grown)
		return weft__fail(p->ctx, WEFT_E_NOMEM, "out of memory");
	m->config = grown;
	memcpy(grown + p->config_len, s, n);
	p->config_len += n;
	grown[p->config_len++] = '\n';
	grown[p->config_len] = '\0';
	return WEFT_OK;
}

static weft_status ckpt_model(ckpt_parse *p, const char *s)
{
	weft__ckpt_manifest *m = p->m;
	size_t n = strcspn(s, " ");
	unsigned major, minor;
	int used = 0;

	if (!n || s[n] != ' ' ||
	    sscanf(s + n + 1, "%u.%u %n", &major, &minor, &used) != 2 || !used)
		return ckpt_bad(p, "a malformed model line");
	free(m->model);
	free(m->version);
	m->model = strndup(s, n);
	m->version = weft__strdup(s + n + 1 + used);
	m->abi_major = major;
	m->abi_minor = minor;
	return m->model && m->version
		       ? WEFT_OK
		       : weft__fail(p->ctx, WEFT_E_NOMEM, "out of memory");
}

/* A copy of s into *field (replacing what was there). */
static weft_status ckpt_text(ckpt_parse *p, char **field, const char *s)
{
	free(*field);
	if (!(*field = weft__strdup(s)))
		return weft__fail(p->ctx, WEFT_E_NOMEM, "out of memory");
	return WEFT_OK;
}

static weft_status ckpt_numbers(ckpt_parse *p, const char *s, uint64_t *a,
				uint64_t *b)
{
	if (!ckpt_num(&s, a) || (b && !ckpt_num(&s, b)) || *s)
		return ckpt_bad(p, "a malformed number");
	return WEFT_OK;
}

static weft_status ckpt_hash_line(ckpt_parse *p, const char *s)
{
	if (strlen(s) != 32 || strspn(s, "0123456789abcdef") != 32)
		return ckpt_bad(p, "a malformed config-hash");
	return ckpt_text(p, &p->m->config_hash, s);
}

static weft_status ckpt_byte_order(ckpt_parse *p, const char *s)
{
	if (strcmp(s, "little-endian") == 0)
		return WEFT_OK;
	return weft__fail(p->ctx, WEFT_E_IO,
			  "checkpoint %s holds %s state; this weft reads "
			  "little-endian checkpoints only",
			  p->what, s);
}

/* One line, its first word naming what it says. */
static weft_status ckpt_line(ckpt_parse *p, const char *key, const char *s)
{
	weft__ckpt_manifest *m = p->m;

	if (strcmp(key, "weft") == 0)
		return ckpt_text(p, &m->weft, s);
	if (strcmp(key, "byte-order") == 0)
		return ckpt_byte_order(p, s);
	if (strcmp(key, "model") == 0)
		return ckpt_model(p, s);
	if (strcmp(key, "backend") == 0)
		return ckpt_text(p, &m->backend, s);
	if (strcmp(key, "step") == 0)
		return ckpt_numbers(p, s, &m->step, &m->steps_total);
	if (strcmp(key, "chunks") == 0)
		return ckpt_numbers(p, s, &m->chunks, NULL);
	if (strcmp(key, "config-hash") == 0)
		return ckpt_hash_line(p, s);
	if (strcmp(key, "config") == 0)
		return ckpt_config(p, s);
	if (strcmp(key, "state-bytes") == 0)
		return ckpt_numbers(p, s, &m->state_bytes, NULL);
	if (strcmp(key, "buffer") == 0 || strcmp(key, "host") == 0 ||
	    strcmp(key, "output") == 0)
		return ckpt_entry(p, key[0], s);
	if (strcmp(key, "rows") == 0)
		return ckpt_rows(p, s);
	return ckpt_bad(p, "an unknown line");
}

/* The first line: the format, checked before anything else, so that a
 * newer format is refused as such rather than as damage. */
static weft_status ckpt_format(ckpt_parse *p, const char *text, size_t len)
{
	unsigned format = 0;
	int used = 0;

	if (len < 17 || strncmp(text, "weft-checkpoint ", 16) != 0 ||
	    sscanf(text + 16, "%u%n", &format, &used) != 1 ||
	    text[16 + used] != '\n')
		return weft__fail(p->ctx, WEFT_E_IO,
				  "checkpoint %s: " WEFT__CKPT_MANIFEST
				  " does not start with 'weft-checkpoint "
				  "FORMAT': not a checkpoint of weft's",
				  p->what);
	p->m->format = format;
	if (format != WEFT__CKPT_FORMAT)
		return weft__fail(p->ctx, WEFT_E_IO,
				  "checkpoint %s is in format %u; this weft "
				  "(%s) reads format %u: resume it with the "
				  "weft that wrote it",
				  p->what, format, PACKAGE_VERSION,
				  WEFT__CKPT_FORMAT);
	return WEFT_OK;
}

/* The end line and its hash over the rest: *len becomes the length of
 * the lines before it. */
static weft_status ckpt_end(ckpt_parse *p, const char *text, size_t *len)
{
	const char *end = NULL, *s;
	uint64_t want;

	for (size_t i = *len; i-- > 0;)
		if (text[i] == '\n' && i + 5 < *len &&
		    strncmp(text + i + 1, "end ", 4) == 0) {
			end = text + i + 1;
			break;
		}
	s = end ? end + 4 : NULL;
	if (!end || *len == 0 || text[*len - 1] != '\n' ||
	    (size_t)(text + *len - s) != 17 ||
	    strspn(s, "0123456789abcdef") != 16)
		return weft__fail(p->ctx, WEFT_E_IO,
				  "checkpoint %s: " WEFT__CKPT_MANIFEST
				  " is truncated (it does not end with its "
				  "'end' line): the checkpoint is damaged",
				  p->what);
	want = strtoull(s, NULL, 16);
	*len = (size_t)(end - text);
	if (XXH3_64bits(text, *len) != want)
		return weft__fail(p->ctx, WEFT_E_IO,
				  "checkpoint %s: " WEFT__CKPT_MANIFEST
				  " does not match its checksum: the "
				  "checkpoint is damaged",
				  p->what);
	return WEFT_OK;
}

/* Every line but the first and the end one. */
static weft_status ckpt_lines(ckpt_parse *p, const char *text, size_t len)
{
	const char *at = memchr(text, '\n', len) + 1, *stop = text + len;
	char line[WEFT__MSG_MAX * 2];
	weft_status st = WEFT_OK;

	p->line = 1;
	while (st == WEFT_OK && at < stop) {
		const char *nl = memchr(at, '\n', (size_t)(stop - at));
		size_t n = (size_t)(nl - at), k;

		p->line++;
		if (n >= sizeof line || memchr(at, '\0', n))
			return ckpt_bad(p, "an overlong or binary line");
		memcpy(line, at, n);
		line[n] = '\0';
		k = strcspn(line, " ");
		if (line[k] != ' ')
			return ckpt_bad(p, "a line with a single word");
		line[k] = '\0';
		st = ckpt_line(p, line, line + k + 1);
		at = nl + 1;
	}
	return st;
}

static weft_status ckpt_complete(ckpt_parse *p)
{
	const weft__ckpt_manifest *m = p->m;
	const char *missing = !m->weft		? "weft"
			      : !m->model	? "model"
			      : !m->backend	? "backend"
			      : !m->steps_total ? "step"
			      : !m->config_hash ? "config-hash"
			      : !m->config	? "config"
						: NULL;

	if (!missing)
		return WEFT_OK;
	return weft__fail(p->ctx, WEFT_E_IO,
			  "checkpoint %s: " WEFT__CKPT_MANIFEST
			  " has no '%s' line: the checkpoint is damaged",
			  p->what, missing);
}

weft_status weft__ckpt_manifest_read(weft_context *ctx, const char *what,
				     const char *text, size_t len,
				     weft__ckpt_manifest *m)
{
	ckpt_parse p = { .ctx = ctx, .what = what, .m = m };
	weft_status st;

	memset(m, 0, sizeof *m);
	if ((st = ckpt_format(&p, text, len)) ||
	    (st = ckpt_end(&p, text, &len)) || (st = ckpt_lines(&p, text, len)))
		return st;
	return ckpt_complete(&p);
}
