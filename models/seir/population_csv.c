/*
 * models/seir/population_csv.c - a real population from CSV files: the
 * agents (id, age, and optional household, school and work ids) and an
 * optional edge list (source, target, layer, optional weight).
 *
 * Households become cliques; schools and workplaces become cliques when
 * small (at most school_contacts / work_contacts + 1 members) and random
 * contacts within the group otherwise, as in the synthetic population;
 * the edges file adds contacts to any layer. Every error names the file
 * and line ("people.csv:12: ..."); models/seir/populations.md lists them.
 */

#include <stdio.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "population_build.h"

#define POP_MAX_FIELDS 8
#define POP_NONE       UINT64_MAX /* no group */
#define POP_ID_MAX     9223372036854775807ull
/* The most agents (the kernels index them with 32 bits, and [seir]
 * agents allows as many) and edges (a layer holds at most 2^32 - 1
 * entries, two per edge, and there are four) a file may hold. */
#define POP_AGENTS_MAX 2000000000ull
#define POP_EDGES_MAX  (2ull * UINT32_MAX)

/* ---- reading lines and fields ------------------------------------------ */

/* A population file is read line by line, twice (the rows are counted
 * first, so that every array is allocated once, to its size), and its
 * memory is bounded whatever the file holds: a line longer than
 * SEIR_POP_LINE_MAX is refused, and so is a NUL byte (/dev/zero), at their
 * line. */
typedef struct pop_file {
	const char *path;
	const char *what; /* "agents file", for messages */
	FILE *fp;
	char text[SEIR_POP_LINE_MAX + 2]; /* the current line, NUL-terminated */
	uint32_t line;			  /* number of the current line */
	int n;				  /* fields of the current line */
	char *f[POP_MAX_FIELDS];	  /* the fields, trimmed */
	char *err;			  /* where failures are described */
	size_t err_size;
} pop_file;

static weft_status pop_fail(const pop_file *f, const char *fmt, ...)
	WEFT_PRINTF(2, 3);

/* "FILE:LINE: what", the status of a bad file. */
static weft_status pop_fail(const pop_file *f, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	snprintf(f->err, f->err_size, "%s:%u: %s", f->path, f->line, what);
	return WEFT_E_CONFIG;
}

/* What a file that is not regular is: "a FIFO", for messages. Core's
 * words (util.c), which a model, seeing only weft/model.h, cannot call. */
static const char *pop_file_kind(mode_t mode)
{
	return S_ISFIFO(mode)	? "a FIFO (named pipe)"
	       : S_ISCHR(mode)	? "a character device"
	       : S_ISBLK(mode)	? "a block device"
	       : S_ISSOCK(mode) ? "a socket"
	       : S_ISDIR(mode)	? "a directory"
				: "a special file";
}

static weft_status pop_file_fail(const pop_file *f, weft_status st,
				 const char *verb, const char *fmt, ...)
	WEFT_PRINTF(4, 5);

/* "VERBthe WHAT 'PATH'TAIL" (VERB "" or "cannot open ", TAIL from fmt), the
 * status st of a file refused as a whole: the message names no line. */
static weft_status pop_file_fail(const pop_file *f, weft_status st,
				 const char *verb, const char *fmt, ...)
{
	char tail[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tail, sizeof tail, fmt, ap);
	va_end(ap);
	snprintf(f->err, f->err_size, "%sthe %s '%s'%s", verb, f->what, f->path,
		 tail);
	return st;
}

static weft_status pop_not_regular(const pop_file *f, mode_t mode)
{
	return pop_file_fail(f, WEFT_E_CONFIG, "",
			     " is %s, not a regular file: give the path of a "
			     "CSV file",
			     pop_file_kind(mode));
}

/* A population file is a regular file: a FIFO with no writer would be
 * waited on for ever, a device read without end. It is refused before
 * it is opened, and again by the descriptor's fstat() should it have
 * been replaced meanwhile (opened without blocking, then made
 * blocking). */
static weft_status pop_open_regular(pop_file *f)
{
	struct stat sb;
	int fd, flags, err;

	if (stat(f->path, &sb) == 0 && !S_ISREG(sb.st_mode))
		return pop_not_regular(f, sb.st_mode);
	fd = open(f->path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		close(fd);
		return pop_not_regular(f, sb.st_mode);
	}
	if (fd >= 0 && (flags = fcntl(fd, F_GETFL)) >= 0 &&
	    fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 &&
	    (f->fp = fdopen(fd, "rb")))
		return WEFT_OK;
	err = errno;
	if (fd >= 0)
		close(fd);
	return pop_file_fail(f, WEFT_E_IO, "cannot open ", ": %s",
			     strerror(err));
}

static weft_status pop_open(pop_file *f, const char *path, const char *what,
			    char *err, size_t err_size)
{
	memset(f, 0, sizeof *f);
	f->path = path;
	f->what = what;
	f->err = err;
	f->err_size = err_size;
	return pop_open_regular(f);
}

static void pop_close(pop_file *f)
{
	if (f->fp)
		fclose(f->fp);
	f->fp = NULL;
}

/* Back to the first line, for the second pass. */
static weft_status pop_rewind(pop_file *f)
{
	if (fseek(f->fp, 0, SEEK_SET) == 0) {
		f->line = 0;
		return WEFT_OK;
	}
	return pop_file_fail(f, WEFT_E_IO, "cannot read ",
			     " a second time (%s): give a regular file",
			     strerror(errno));
}

/* The next physical line into f->text, without its end (LF or CRLF; a
 * last line may have none): 1, 0 at the end of the file, or a failure
 * with its message in f->err: -1 for what the file holds, -2 for a read
 * error (pop_status). */
static int pop_getline(pop_file *f)
{
	size_t n = 0;
	int c;

	if (f->line == UINT32_MAX) {
		pop_fail(f, "more than %u lines", UINT32_MAX);
		return -1;
	}
	while ((c = getc_unlocked(f->fp)) != EOF && c != '\n') {
		if (n == SEIR_POP_LINE_MAX) {
			f->line++;
			pop_fail(f,
				 "line longer than %d bytes, the most a line "
				 "of a population file may hold",
				 SEIR_POP_LINE_MAX);
			return -1;
		}
		if (c == '\0') {
			f->line++;
			pop_fail(f,
				 "a NUL byte at column %zu: a population file "
				 "holds text",
				 n + 1);
			return -1;
		}
		f->text[n++] = (char)c;
	}
	if (c == EOF && ferror(f->fp)) {
		pop_file_fail(f, WEFT_E_IO, "cannot read ", ": %s",
			      strerror(errno));
		return -2;
	}
	if (c == EOF && n == 0)
		return 0;
	f->line++;
	if (n > 0 && f->text[n - 1] == '\r')
		n--;
	f->text[n] = '\0';
	/* A UTF-8 byte order mark, as spreadsheets write. */
	if (f->line == 1 && !memcmp(f->text, "\xef\xbb\xbf", 3))
		memmove(f->text, f->text + 3, n - 2);
	return 1;
}

/* The status of a failed pop_getline(). */
static weft_status pop_status(int got)
{
	return got == -2 ? WEFT_E_IO : WEFT_E_CONFIG;
}

/* Whether the current line is blank (skipped, but counted in line
 * numbers). */
static int pop_blank(const pop_file *f)
{
	return f->text[strspn(f->text, " \t")] == '\0';
}

/* The first pass: the rows (lines that are not blank) after the header,
 * at most max; more is refused at the first row too many. declared:
 * what declares max ("[seir] agents = 300 (town.ini:4)"), or NULL when
 * it is the most a run may have. noun: "agents", "edges". */
static weft_status pop_count(pop_file *f, uint64_t max, const char *noun,
			     const char *declared, uint64_t *rows)
{
	int header = 0, got;

	*rows = 0;
	while ((got = pop_getline(f)) > 0) {
		if (pop_blank(f))
			continue;
		if (!header) {
			header = 1;
			continue;
		}
		if (*rows == max && declared)
			return pop_fail(f, "more %s than %s", noun, declared);
		if (*rows == max)
			return pop_fail(f,
					"more than %llu %s, the most a run "
					"may have",
					(unsigned long long)max, noun);
		++*rows;
	}
	if (got < 0)
		return pop_status(got);
	return pop_rewind(f);
}

static char *pop_trim(char *s, char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	*end = '\0';
	return s;
}

/* Cut line into comma-separated fields; n counts them all, f keeps the
 * first POP_MAX_FIELDS. */
static void pop_split(pop_file *f, char *line)
{
	f->n = 0;
	for (;;) {
		char *comma = strchr(line, ',');
		char *end = comma ? comma : line + strlen(line);
		char *field = pop_trim(line, end);
		if (f->n < POP_MAX_FIELDS)
			f->f[f->n] = field;
		f->n++;
		if (!comma)
			return;
		line = comma + 1;
	}
}

/* The next line that is not blank, split into fields: 1, 0 at the end,
 * or pop_getline()'s failure. */
static int pop_next(pop_file *f)
{
	int got;

	while ((got = pop_getline(f)) > 0)
		if (!pop_blank(f)) {
			pop_split(f, f->text);
			return 1;
		}
	return got;
}

/* ---- values ---------------------------------------------------------------
 */

/* A decimal integer 0..max; -1 when s is not one, -2 when above max. */
static int pop_u64(const char *s, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (x > (max - (uint64_t)(*s - '0')) / 10)
			return -2;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return 0;
}

/* A whole number written as a float, "5.0" or "12.000": what pandas
 * writes for an integer column that has missing values (it holds them
 * as float64, NaN for the missing ones). */
static int pop_float_int(const char *s)
{
	size_t digits = strspn(s, "0123456789");

	return digits > 0 && s[digits] == '.' && s[digits + 1] == '0' &&
	       s[digits + 1 + strspn(s + digits + 1, "0")] == '\0';
}

/* The message for a whole number written as "5.0" in column col. */
static weft_status pop_float_fail(const pop_file *f, const char *what,
				  const char *col, const char *value)
{
	return pop_fail(f,
			"%s '%s' is written as a float: pandas does that to "
			"an integer column with missing values; write it as "
			"integers, df['%s'] = df['%s'].astype('Int64') "
			"(astype(int) when none is missing), then "
			"df.to_csv(path, index=False)",
			what, value, col, col);
}

/* An id (agent or group), 0..2^63 - 1; col is its column, for the
 * message about pandas' floats. */
static weft_status pop_id_in(const pop_file *f, int field, const char *what,
			     const char *col, uint64_t *v)
{
	int r = pop_u64(f->f[field], POP_ID_MAX, v);

	if (r == -1 && pop_float_int(f->f[field]))
		return pop_float_fail(f, what, col, f->f[field]);
	if (r == -1)
		return pop_fail(f, "%s '%s' is not a non-negative integer",
				what, f->f[field]);
	if (r == -2)
		return pop_fail(f, "%s %s is out of range 0-%llu", what,
				f->f[field], POP_ID_MAX);
	return WEFT_OK;
}

/* An id in the column named what. */
static weft_status pop_id(const pop_file *f, int field, const char *what,
			  uint64_t *v)
{
	return pop_id_in(f, field, what, what, v);
}

/* ---- the header ------------------------------------------------------------
 */

typedef struct pop_columns {
	const char *const *names; /* known columns; the first n_required are
				   * required */
	int n_names, n_required;
	int at[POP_MAX_FIELDS]; /* field of each known column, or -1 */
	int n;			/* fields of every row */
} pop_columns;

static void pop_list(char *buf, size_t size, const pop_columns *c, int n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s",
					 i ? ", " : "", c->names[i]);
}

static weft_status pop_header(pop_file *f, pop_columns *c)
{
	char list[128];
	int got;

	pop_list(list, sizeof list, c, c->n_names);
	for (int i = 0; i < POP_MAX_FIELDS; i++)
		c->at[i] = -1;
	if ((got = pop_next(f)) < 0)
		return pop_status(got);
	if (got == 0) {
		f->line = 1;
		return pop_fail(f,
				"empty file: expected a header line naming "
				"the columns (%s)",
				list);
	}
	if (f->n > POP_MAX_FIELDS)
		return pop_fail(f,
				"%d columns in the header; the columns are %s",
				f->n, list);
	for (int j = 0; j < f->n; j++) {
		int i = 0;
		if (!f->f[j][0])
			return pop_fail(f,
					"column %d of the header has no name: "
					"a pandas index, written by "
					"df.to_csv(path); write the file "
					"without it, df.to_csv(path, "
					"index=False)",
					j + 1);
		if (!strncmp(f->f[j], "Unnamed: ", 9))
			return pop_fail(f,
					"column %d of the header is '%s': a "
					"pandas index read back as a column; "
					"drop it, df = df.drop(columns='%s') "
					"(or read with pd.read_csv(path, "
					"index_col=0)), then df.to_csv(path, "
					"index=False)",
					j + 1, f->f[j], f->f[j]);
		while (i < c->n_names && strcmp(f->f[j], c->names[i]) != 0)
			i++;
		if (i == c->n_names)
			return pop_fail(f,
					"unknown column '%s' (the columns "
					"are %s)",
					f->f[j], list);
		if (c->at[i] >= 0)
			return pop_fail(f, "column '%s' appears twice",
					f->f[j]);
		c->at[i] = j;
	}
	c->n = f->n;
	pop_list(list, sizeof list, c, c->n_required);
	for (int i = 0; i < c->n_required; i++)
		if (c->at[i] < 0)
			return pop_fail(f, "no column '%s' (required: %s)",
					c->names[i], list);
	return WEFT_OK;
}

static weft_status pop_row(const pop_file *f, const pop_columns *c)
{
	if (f->n == c->n)
		return WEFT_OK;
	return pop_fail(f, "%d field%s, but the header has %d", f->n,
			f->n == 1 ? "" : "s", c->n);
}

/* ---- a map from 63-bit ids to indexes (open addressing) --------------------
 */

typedef struct pop_map {
	uint64_t *key;
	uint32_t *val; /* UINT32_MAX: empty slot */
	uint64_t mask;
} pop_map;

static int pop_map_init(pop_map *m, uint64_t count)
{
	uint64_t cap = 16;

	while (cap < 2 * count)
		cap *= 2;
	m->mask = cap - 1;
	m->key = malloc(cap * sizeof *m->key);
	m->val = malloc(cap * sizeof *m->val);
	if (m->val)
		memset(m->val, 0xff, cap * sizeof *m->val);
	return m->key && m->val;
}

static void pop_map_free(pop_map *m)
{
	free(m->key);
	free(m->val);
}

static uint64_t pop_hash(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t pop_map_slot(const pop_map *m, uint64_t key)
{
	uint64_t i = pop_hash(key) & m->mask;
	while (m->val[i] != UINT32_MAX && m->key[i] != key)
		i = (i + 1) & m->mask;
	return i;
}

static uint32_t pop_map_get(const pop_map *m, uint64_t key)
{
	return m->val[pop_map_slot(m, key)];
}

/* Insert key -> val unless present; returns the value it had, or
 * UINT32_MAX when it is new. */
static uint32_t pop_map_put(pop_map *m, uint64_t key, uint32_t val)
{
	uint64_t i = pop_map_slot(m, key);
	uint32_t old = m->val[i];

	if (old == UINT32_MAX) {
		m->key[i] = key;
		m->val[i] = val;
	}
	return old;
}

/* ---- the agents file
 * --------------------------------------------------------- */

static const char *const pop_agent_cols[] = { "id", "age", "household",
					      "school", "work" };

typedef struct pop_agents {
	uint32_t n;
	uint64_t *id;	/* as in the file */
	uint32_t *line; /* where each was defined */
	uint8_t *age;
	uint64_t *group[3]; /* household, school, work ids (POP_NONE), or
			     * NULL without the column */
	pop_map map;	    /* id -> index */
} pop_agents;

static void pop_agents_free(pop_agents *a)
{
	free(a->id);
	free(a->line);
	free(a->age);
	for (int g = 0; g < 3; g++)
		free(a->group[g]);
	pop_map_free(&a->map);
}

static weft_status pop_agents_alloc(pop_agents *a, const pop_columns *c,
				    uint64_t rows, char *err, size_t err_size)
{
	int ok = pop_map_init(&a->map, rows);

	a->id = malloc(rows * sizeof *a->id);
	a->line = malloc(rows * sizeof *a->line);
	a->age = malloc(rows);
	ok = ok && a->id && a->line && a->age;
	for (int g = 0; g < 3; g++)
		if (c->at[2 + g] >= 0) {
			a->group[g] = malloc(rows * sizeof *a->group[g]);
			ok = ok && a->group[g];
		}
	if (ok)
		return WEFT_OK;
	snprintf(err, err_size, "cannot allocate host memory for %llu agents",
		 (unsigned long long)rows);
	return WEFT_E_NOMEM;
}

static weft_status pop_age(const pop_file *f, int field, uint8_t *age)
{
	uint64_t v = 0;
	int r = pop_u64(f->f[field], 1000, &v);

	if (r == -1 && pop_float_int(f->f[field]))
		return pop_float_fail(f, "age", "age", f->f[field]);
	if (r == -1)
		return pop_fail(f, "age '%s' is not a whole number of years",
				f->f[field]);
	if (r == -2 || v > 120)
		return pop_fail(f, "age %s is out of range 0-120", f->f[field]);
	*age = (uint8_t)v;
	return WEFT_OK;
}

/* One row: id (new), age, groups (an empty field is no group). */
static weft_status pop_agent(pop_file *f, const pop_columns *c, pop_agents *a)
{
	uint32_t i = a->n, first;
	weft_status st;

	if ((st = pop_row(f, c)) ||
	    (st = pop_id(f, c->at[0], "id", &a->id[i])) ||
	    (st = pop_age(f, c->at[1], &a->age[i])))
		return st;
	for (int g = 0; g < 3; g++) {
		int at = c->at[2 + g];
		if (at < 0)
			continue;
		a->group[g][i] = POP_NONE;
		if (f->f[at][0] && (st = pop_id(f, at, pop_agent_cols[2 + g],
						&a->group[g][i])))
			return st;
	}
	first = pop_map_put(&a->map, a->id[i], i);
	if (first != UINT32_MAX)
		return pop_fail(f, "duplicate agent id %llu (first at line %u)",
				(unsigned long long)a->id[i], a->line[first]);
	a->line[i] = f->line;
	a->n++;
	return WEFT_OK;
}

/* The agents file: counted (at most the agents declared, when [seir]
 * agents is set), then read into arrays of that size. */
static weft_status pop_agents_read(const seir_pop_params *pp, pop_agents *a,
				   char *err, size_t err_size)
{
	pop_columns c = { pop_agent_cols, 5, 2, { 0 }, 0 };
	char declared[200];
	uint64_t rows;
	pop_file f;
	weft_status st;
	int got;

	memset(a, 0, sizeof *a);
	if ((st = pop_open(&f, pp->agents_file, "agents file", err, err_size)))
		return st;
	snprintf(declared, sizeof declared, "[seir] agents = %u (%s)",
		 pp->agents, pp->agents_where);
	if ((st = pop_count(
		     &f, pp->agents_declared ? pp->agents : POP_AGENTS_MAX,
		     "agents", pp->agents_declared ? declared : NULL, &rows)) ||
	    (st = pop_header(&f, &c)) ||
	    (st = pop_agents_alloc(a, &c, rows, err, err_size)))
		goto close_file;
	while ((got = pop_next(&f)) > 0)
		if ((st = pop_agent(&f, &c, a)))
			goto close_file;
	if (got < 0)
		st = pop_status(got);
	else if (a->n == 0)
		st = pop_fail(&f, "no agents after the header");
	else if (pp->agents_declared && a->n != pp->agents)
		st = pop_fail(&f, "%u agent%s, but %s", a->n,
			      a->n == 1 ? "" : "s", declared);
close_file:
	pop_close(&f);
	return st;
}

/* ---- groups: households, schools, workplaces ------------------------------
 */

/* Agents sharing a group id become one group; groups in order of first
 * appearance, members in file order (a counting sort). */
static weft_status pop_groups_of(const uint64_t *gid, uint32_t n,
				 seir_pop_groups *gr, uint32_t **start,
				 uint32_t **member)
{
	pop_map m;
	uint32_t *g_of = malloc((size_t)n * sizeof *g_of + 1), count = 0;
	weft_status st = WEFT_E_NOMEM;

	*start = malloc(((size_t)n + 2) * sizeof **start);
	*member = malloc((size_t)n * sizeof **member + 1);
	if (!pop_map_init(&m, n) || !g_of || !*start || !*member)
		goto free_map;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t old = gid[i] == POP_NONE
				       ? UINT32_MAX - 1
				       : pop_map_put(&m, gid[i], count);
		g_of[i] = old == UINT32_MAX ? count++ : old;
	}
	memset(*start, 0, ((size_t)count + 2) * sizeof **start);
	for (uint32_t i = 0; i < n; i++)
		if (g_of[i] != UINT32_MAX - 1)
			(*start)[g_of[i] + 2]++;
	for (uint32_t g = 0; g < count; g++)
		(*start)[g + 2] += (*start)[g + 1];
	for (uint32_t i = 0; i < n; i++)
		if (g_of[i] != UINT32_MAX - 1)
			(*member)[(*start)[g_of[i] + 1]++] = i;
	gr->n_groups = count;
	gr->start = *start;
	gr->member = *member;
	st = WEFT_OK;
free_map:
	free(g_of);
	pop_map_free(&m);
	return st;
}

/* ---- the edges file
 * ---------------------------------------------------------- */

static const char *const pop_edge_cols[] = { "source", "target", "layer",
					     "weight" };

typedef struct pop_edges {
	uint64_t n;
	uint32_t *a, *b, *line;
	uint16_t *w;
	uint8_t *layer;
	int weighted[SEIR_MAX_LAYERS]; /* some weight is not 1 */
} pop_edges;

static void pop_edges_free(pop_edges *e)
{
	free(e->a);
	free(e->b);
	free(e->line);
	free(e->w);
	free(e->layer);
}

static const char *const pop_layer_names[SEIR_MAX_LAYERS] = { "home", "school",
							      "work",
							      "community" };

static int pop_layer_of(const char *s)
{
	static const char *const names[] = { "home",	  "school", "work",
					     "community", "h",	    "s",
					     "w",	  "c" };
	for (int i = 0; i < 8; i++)
		if (strcmp(s, names[i]) == 0)
			return i % SEIR_MAX_LAYERS;
	return -1;
}

/* weight in (0, 65.535], rounded to thousandths (at least 0.001); an
 * empty field is 1. */
static weft_status pop_weight(const pop_file *f, int field, uint16_t *w)
{
	const char *s = field < 0 ? "" : f->f[field];
	char *end;
	double v = *s ? strtod(s, &end) : 1.0;

	if (*s && (*end || !isfinite(v)))
		return pop_fail(f, "weight '%s' is not a number", s);
	if (v <= 0)
		return pop_fail(f, "weight %s is not above 0", s);
	if (v > 65.535)
		return pop_fail(f, "weight %s is above 65.535, the largest", s);
	v = floor(v * 1000 + 0.5);
	*w = (uint16_t)(v < 1 ? 1 : v);
	return WEFT_OK;
}

/* The agent of column col (source or target, at field). */
static weft_status pop_endpoint(const pop_file *f, int field, const char *col,
				const pop_agents *ag, const char *agents_path,
				uint32_t *out)
{
	uint64_t id;
	weft_status st = pop_id_in(f, field, "agent id", col, &id);

	if (st)
		return st;
	*out = pop_map_get(&ag->map, id);
	if (*out != UINT32_MAX)
		return WEFT_OK;
	return pop_fail(f, "unknown agent id %llu (not in %s)",
			(unsigned long long)id, agents_path);
}

static weft_status pop_edge(const pop_file *f, const pop_columns *c,
			    const pop_agents *ag, const seir_pop_params *pp,
			    pop_edges *e)
{
	uint64_t i = e->n;
	int layer;
	weft_status st;

	if ((st = pop_row(f, c)) ||
	    (st = pop_endpoint(f, c->at[0], "source", ag, pp->agents_file,
			       &e->a[i])) ||
	    (st = pop_endpoint(f, c->at[1], "target", ag, pp->agents_file,
			       &e->b[i])))
		return st;
	if ((layer = pop_layer_of(f->f[c->at[2]])) < 0)
		return pop_fail(f,
				"unknown layer '%s' (home, school, work, "
				"community or h, s, w, c)",
				f->f[c->at[2]]);
	if (e->a[i] == e->b[i])
		return pop_fail(f, "self-loop: agent %s in contact with itself",
				f->f[c->at[0]]);
	if (layer == SEIR_L_COMMUNITY && pp->community_daily)
		return pop_fail(f,
				"a community edge, but community_daily = true "
				"draws the community layer anew every day; "
				"set community_daily = false to store it");
	if ((st = pop_weight(f, c->at[3], &e->w[i])))
		return st;
	e->layer[i] = (uint8_t)layer;
	e->line[i] = f->line;
	e->weighted[layer] |= e->w[i] != 1000;
	e->n++;
	return WEFT_OK;
}

static weft_status pop_edges_alloc(pop_edges *e, uint64_t rows, char *err,
				   size_t err_size)
{
	e->a = malloc(rows * sizeof *e->a);
	e->b = malloc(rows * sizeof *e->b);
	e->line = malloc(rows * sizeof *e->line);
	e->w = malloc(rows * sizeof *e->w);
	e->layer = malloc(rows);
	if (e->a && e->b && e->line && e->w && e->layer)
		return WEFT_OK;
	snprintf(err, err_size, "cannot allocate host memory for %llu edges",
		 (unsigned long long)rows);
	return WEFT_E_NOMEM;
}

/* ---- duplicate edges
 * --------------------------------------------------------- */

typedef struct pop_pair {
	uint64_t key; /* layer, smaller index, larger index */
	uint64_t edge;
} pop_pair;

static int pop_cmp_pair(const void *x, const void *y)
{
	const pop_pair *a = x, *b = y;
	if (a->key != b->key)
		return (a->key > b->key) - (a->key < b->key);
	return (a->edge > b->edge) - (a->edge < b->edge);
}

/* duplicate_edges = error: the earliest line that repeats an earlier
 * pair of the same layer (in either direction). */
static weft_status pop_no_duplicates(const pop_file *f, const pop_edges *e,
				     const pop_agents *ag, char *err,
				     size_t err_size)
{
	pop_pair *p = malloc((size_t)e->n * sizeof *p + 1);
	uint64_t dup = UINT64_MAX, first = 0;
	pop_file at = *f;

	if (!p) {
		snprintf(err, err_size,
			 "cannot allocate host memory for "
			 "checking %llu edges",
			 (unsigned long long)e->n);
		return WEFT_E_NOMEM;
	}
	for (uint64_t i = 0; i < e->n; i++) {
		uint64_t lo = e->a[i] < e->b[i] ? e->a[i] : e->b[i];
		uint64_t hi = e->a[i] ^ e->b[i] ^ lo;
		p[i].key = (uint64_t)e->layer[i] << 62 | lo << 31 | hi;
		p[i].edge = i;
	}
	qsort(p, (size_t)e->n, sizeof *p, pop_cmp_pair);
	for (uint64_t i = 1; i < e->n; i++)
		if (p[i].key == p[i - 1].key && p[i].edge < dup) {
			uint64_t j = i - 1;
			while (j > 0 && p[j - 1].key == p[i].key)
				j--;
			dup = p[i].edge;
			first = p[j].edge;
		}
	free(p);
	if (dup == UINT64_MAX)
		return WEFT_OK;
	at.line = e->line[dup];
	return pop_fail(&at,
			"duplicate edge %llu-%llu in layer %s (first at line "
			"%u; duplicate_edges = error)",
			(unsigned long long)ag->id[e->a[dup]],
			(unsigned long long)ag->id[e->b[dup]],
			pop_layer_names[e->layer[dup]], e->line[first]);
}

static weft_status pop_edges_read(const seir_pop_params *pp,
				  const pop_agents *ag, pop_edges *e, char *err,
				  size_t err_size)
{
	pop_columns c = { pop_edge_cols, 4, 3, { 0 }, 0 };
	uint64_t rows;
	pop_file f;
	weft_status st;
	int got;

	memset(e, 0, sizeof *e);
	if (!pp->edges_file[0])
		return WEFT_OK;
	if ((st = pop_open(&f, pp->edges_file, "edges file", err, err_size)))
		return st;
	if ((st = pop_count(&f, POP_EDGES_MAX, "edges", NULL, &rows)) ||
	    (st = pop_header(&f, &c)) ||
	    (st = pop_edges_alloc(e, rows, err, err_size)))
		goto close_file;
	while ((got = pop_next(&f)) > 0)
		if ((st = pop_edge(&f, &c, ag, pp, e)))
			goto close_file;
	if (got < 0)
		st = pop_status(got);
	else if (pp->duplicate_error)
		st = pop_no_duplicates(&f, e, ag, err, err_size);
close_file:
	pop_close(&f);
	return st;
}

/* ---- the layers ------------------------------------------------------------
 */

typedef struct pop_csv_layer {
	const seir_pop_groups *gr; /* NULL: no groups in this layer */
	const pop_edges *e;
	uint8_t layer;
} pop_csv_layer;

/* The groups' contacts, then the file's edges of this layer. */
static void pop_gen_csv(const void *arg, seir_pop_sink *s)
{
	const pop_csv_layer *cl = arg;

	if (cl->gr)
		weft__pop_gen_groups(cl->gr, s);
	for (uint64_t i = 0; i < cl->e->n; i++)
		if (i % 65536 == 0 && weft__pop_cancelled(s))
			return;
		else if (cl->e->layer[i] == cl->layer)
			weft__pop_emit(s, cl->e->a[i], cl->e->b[i],
				       cl->e->w[i]);
}

/* Households are cliques (s members store s (s - 1) contacts): one of
 * more than household_max members is refused at the line of its first
 * member past the limit, the earliest such line of the file. */
static weft_status pop_household_max(const seir_pop_params *pp,
				     const seir_pop_groups *gr,
				     const pop_agents *ag, char *err,
				     size_t err_size)
{
	uint32_t past = UINT32_MAX, g_past = 0;

	for (uint32_t g = 0; g < gr->n_groups; g++) {
		uint32_t at = gr->start[g] + pp->household_max;
		if (at < gr->start[g + 1] && gr->member[at] < past) {
			past = gr->member[at];
			g_past = g;
		}
	}
	if (past == UINT32_MAX)
		return WEFT_OK;
	snprintf(err, err_size,
		 "%s:%u: household %llu has more than %u members, the most "
		 "[seir] household_max allows (its first member is at line "
		 "%u)",
		 pp->agents_file, ag->line[past],
		 (unsigned long long)ag->group[SEIR_L_HOME][past],
		 pp->household_max, ag->line[gr->member[gr->start[g_past]]]);
	return WEFT_E_CONFIG;
}

static weft_status pop_csv_layer_build(const seir_pop_params *pp,
				       seir_population *pop, int layer,
				       const pop_agents *ag, const pop_edges *e,
				       char *err, size_t err_size)
{
	const uint64_t *gid =
		layer < SEIR_L_COMMUNITY ? ag->group[layer] : NULL;
	const uint32_t contacts[] = { 0, pp->school_contacts, pp->work_contacts,
				      pp->community_contacts };
	uint32_t *start = NULL, *member = NULL, all[2] = { 0, pop->n_agents };
	seir_pop_groups gr = { 0 };
	pop_csv_layer cl = { NULL, e, (uint8_t)layer };
	weft_status st = WEFT_OK;

	gr.contacts = contacts[layer];
	gr.clique = layer == SEIR_L_HOME;
	gr.seed = pp->seed;
	gr.purpose = SEIR_POP_P_EDGES + (uint32_t)layer;
	if (gid &&
	    (st = pop_groups_of(gid, pop->n_agents, &gr, &start, &member))) {
		snprintf(err, err_size, "cannot allocate the %s groups",
			 pop_layer_names[layer]);
		goto free_groups;
	}
	if (layer == SEIR_L_COMMUNITY) {
		gr.n_groups = 1;
		gr.start = all;
	}
	cl.gr = gid || layer == SEIR_L_COMMUNITY ? &gr : NULL;
	if (gid && layer == SEIR_L_HOME &&
	    (st = pop_household_max(pp, &gr, ag, err, err_size)))
		goto free_groups;
	if (cl.gr && (st = weft__pop_groups_check(cl.gr, pop_layer_names[layer],
						  err, err_size)))
		goto free_groups;
	st = weft__pop_layer_build(pp->mc, pop->n_agents, pop_gen_csv, &cl,
				   e->weighted[layer], pop_layer_names[layer],
				   &pop->layer[layer], err, err_size);
free_groups:
	free(member);
	free(start);
	return st;
}

static weft_status pop_csv_layers(const seir_pop_params *pp,
				  seir_population *pop, const pop_agents *ag,
				  const pop_edges *e, char *err,
				  size_t err_size)
{
	weft_status st;

	for (int l = 0; l < SEIR_L_COMMUNITY; l++)
		if ((st = pop_csv_layer_build(pp, pop, l, ag, e, err,
					      err_size)))
			return st;
	if (!pp->community_daily)
		return pop_csv_layer_build(pp, pop, SEIR_L_COMMUNITY, ag, e,
					   err, err_size);
	pop->community_daily = pp->community_contacts;
	return weft__pop_layer_empty(
		pop->n_agents, &pop->layer[SEIR_L_COMMUNITY], err, err_size);
}

weft_status weft__seir_population_csv(const seir_pop_params *pp,
				      seir_population *pop, char *err,
				      size_t err_size)
{
	pop_agents ag;
	pop_edges e;
	weft_status st;

	if (!pp->agents_file[0]) {
		snprintf(err, err_size, "population = csv needs agents_file");
		return WEFT_E_CONFIG;
	}
	memset(&e, 0, sizeof e);
	if ((st = pop_agents_read(pp, &ag, err, err_size)) ||
	    (st = pop_edges_read(pp, &ag, &e, err, err_size)))
		goto free_all;
	pop->n_agents = ag.n;
	pop->age = ag.age;
	ag.age = NULL;
	memcpy(pop->layer_beta, pp->layer_beta, sizeof pop->layer_beta);
	st = pop_csv_layers(pp, pop, &ag, &e, err, err_size);
free_all:
	pop_edges_free(&e);
	pop_agents_free(&ag);
	return st;
}

/* ---- the start of a file, for the estimate --------------------------------
 */

/* Rows and bytes read for a sample: enough for a mean row length, few
 * enough to read at once whatever the file's size. */
#define POP_SAMPLE_BYTES (64u << 10)
#define POP_SAMPLE_ROWS	 4096u

/* A sampled member of a group: the group's id and the member's row. */
typedef struct pop_member {
	uint64_t id;
	uint32_t row;
} pop_member;

static int pop_cmp_member(const void *x, const void *y)
{
	const pop_member *a = x, *b = y;
	if (a->id != b->id)
		return (a->id > b->id) - (a->id < b->id);
	return (a->row > b->row) - (a->row < b->row);
}

/* The mean of (size - 1) over the members of a group column, from the m
 * sampled members of the `members` the whole file holds. When the
 * file lists groups together (the sampled members of most groups lie in
 * a run of rows), the groups seen are whole: their pairs over their
 * members. Otherwise the sample is taken as a random one: the pairs in
 * it that share a group, scaled by the pairs there are, give it. */
static double pop_sample_group(pop_member *v, uint32_t m, double members)
{
	double pairs = 0, near = 0, cliques = 0;

	if (m < 2)
		return 0;
	qsort(v, m, sizeof *v, pop_cmp_member);
	for (uint32_t i = 0, j; i < m; i = j) {
		double k;
		for (j = i; j < m && v[j].id == v[i].id; j++)
			;
		k = j - i;
		pairs += k * (k - 1) / 2;
		cliques += k * (k - 1);
		if (v[j - 1].row - v[i].row + 1 <= 2 * k)
			near += k * (k - 1) / 2;
	}
	if (2 * near >= pairs)
		return cliques / m;
	return pairs * members / ((double)m * (m - 1) / 2);
}

/* One sampled row of the agents or the edges file: its groups (agents)
 * or its layer and weight (edges). */
static void pop_sample_row(const pop_file *f, const pop_columns *c, int edges,
			   seir_pop_sample *out, pop_member *g[3], uint32_t *m,
			   uint32_t row)
{
	int layer;
	uint64_t id;

	if (f->n != c->n)
		return; /* the run will say what is wrong with it */
	if (edges) {
		layer = pop_layer_of(f->f[c->at[2]]);
		if (layer < 0)
			return;
		out->share[layer]++;
		out->weighted[layer] |= c->at[3] >= 0 && f->f[c->at[3]][0] &&
					strcmp(f->f[c->at[3]], "1") != 0;
		return;
	}
	for (int k = 0; k < 3; k++)
		if (c->at[2 + k] >= 0 &&
		    pop_u64(f->f[c->at[2 + k]], POP_ID_MAX, &id) == 0) {
			g[k][m[k]++] = (pop_member){ id, row };
			out->share[k]++;
		}
}

/* Rows of the whole file from the mean row of the sample and of the
 * file's last POP_SAMPLE_BYTES (ids and group numbers tend to grow along
 * a file, and their digits with them). The tail's lines are only
 * counted; a failure to read it leaves the head's mean. */
static uint64_t pop_sample_rows(pop_file *f, long header_end, long sample_end,
				uint32_t rows, int whole)
{
	double bytes = (double)(sample_end - header_end), n = rows;
	struct stat sb;
	long from;
	int got;

	if (whole || rows == 0 || fstat(fileno(f->fp), &sb) != 0 ||
	    sample_end <= header_end)
		return rows;
	from = sb.st_size - (long)POP_SAMPLE_BYTES;
	if (from > sample_end && fseek(f->fp, from, SEEK_SET) == 0 &&
	    pop_getline(f) > 0) {
		long start = ftell(f->fp);
		uint32_t tail = 0;
		while ((got = pop_getline(f)) > 0)
			tail += !pop_blank(f);
		if (got == 0 && tail > 0) {
			bytes += (double)(sb.st_size - start);
			n += tail;
		}
	}
	return (uint64_t)ceil((double)(sb.st_size - header_end) * n / bytes);
}

weft_status weft__pop_csv_sample(const char *path, int edges,
				 seir_pop_sample *out, char *err,
				 size_t err_size)
{
	pop_columns c = { edges ? pop_edge_cols : pop_agent_cols,
			  edges ? 4 : 5,
			  edges ? 3 : 2,
			  { 0 },
			  0 };
	pop_member *g[3] = { NULL, NULL, NULL };
	uint32_t rows = 0, m[3] = { 0, 0, 0 };
	long header_end;
	pop_file f;
	weft_status st;
	int got = 0;

	memset(out, 0, sizeof *out);
	for (int k = 0; k < 3; k++)
		if (!(g[k] = malloc(POP_SAMPLE_ROWS * sizeof *g[k]))) {
			snprintf(err, err_size,
				 "cannot allocate host memory for a sample");
			st = WEFT_E_NOMEM;
			goto free_sample;
		}
	if ((st = pop_open(&f, path, edges ? "edges file" : "agents file", err,
			   err_size)))
		goto free_sample;
	if ((st = pop_header(&f, &c)))
		goto close_file;
	header_end = ftell(f.fp);
	while (rows < POP_SAMPLE_ROWS &&
	       ftell(f.fp) - header_end < (long)POP_SAMPLE_BYTES &&
	       (got = pop_next(&f)) > 0)
		pop_sample_row(&f, &c, edges, out, g, m, rows++);
	if (got < 0) {
		st = pop_status(got);
		goto close_file;
	}
	out->columns = c.n;
	out->rows =
		pop_sample_rows(&f, header_end, ftell(f.fp), rows, got == 0);
	for (int l = 0; l < SEIR_MAX_LAYERS; l++)
		out->share[l] = rows ? out->share[l] / rows : 0;
	for (int k = 0; k < 3 && !edges; k++)
		out->group[k] = pop_sample_group(
			g[k], m[k], out->share[k] * (double)out->rows);
close_file:
	pop_close(&f);
free_sample:
	for (int k = 0; k < 3; k++)
		free(g[k]);
	return st;
}
