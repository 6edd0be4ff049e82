/*
 * conform/replicas.c - conformance group replicas: the optional
 * step_replicas() of ABI 1.4 (weft/backend.h), which runs R replicas of
 * each launch of a list as one launch of its kernel: batched replicas of a
 * model, each replica's memory a part of one buffer per role.
 *
 * The list, run by every test, is [count, inc, mad, bump, fill, bump]
 * (conform.wk), so that later launches read what earlier ones wrote and
 * the counts they wrote:
 *   0 cf_count(ctl)           writes this step's count into ctl
 *   1 cf_inc(x)               capacity items
 *   2 cf_mad(y, x)            reads x; ctl's count, per replica
 *   3 cf_bump(z)              ctl's count, per replica
 *   4 cf_fill(p, w)           p shared by all replicas (stride 0, read
 *                             only); a count the host wrote, one word per
 *                             replica 4 bytes apart
 *   5 cf_bump(w)              reads w; one count shared by all replicas
 *                             (extent_stride 0)
 * Each role's strides differ, and leave padding after each part that no
 * replica may write. Counts differ between replicas and steps, and include
 * 0 and counts past the capacity (up to UINT32_MAX). The result of every
 * replica, all its parts compared byte for byte (guard words included),
 * must be what step() gives on separate buffers of its own, run the same
 * number of steps.
 *
 * Bad layouts (a stride that is not a multiple of 64, a count's stride
 * that is not a multiple of 4, the last replica past a buffer's end, 0
 * replicas, no layouts, and a stride and a count's stride of 2^62 with 5
 * replicas, whose bounds wrap to 0 in 64-bit arithmetic) are refused with
 * WEFT_E_INVALID and a message,
 * with nothing run, transferred or counted: the bad layout is always in a
 * launch after launches that write, whose memory must stay as it was.
 * step_replicas() counts as step() does, one launch per launch of the list
 * whatever the number of replicas, and never synchronises.
 *
 * A plugin without step_replicas() (a vtable older than 1.4, or NULL) has
 * every test skipped: the core then runs a model's replicas one after
 * another.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "conform.h"

/* The memory of one replica, by role: four guarded data buffers, the
 * control block of cf_count and the count of the fill launch; then what all
 * replicas share (stride 0): the fill's parameter, and a count word at byte
 * 4 (byte 0 holds UINT32_MAX, what a backend ignoring extent_offset
 * reads). */
enum { RP_X, RP_Y, RP_Z, RP_W, RP_CTL, RP_CNT, RP_ROLES };
enum { RP_P = RP_ROLES, RP_SHARED, RP_ALL };

static const char *const role_names[RP_ROLES] = {
	"x", "y", "z", "w", "the control block", "the fill's count",
};

/* The launches of the list, each naming the roles it binds. */
static const struct rp_launch {
	uint32_t kernel;
	uint32_t n_bufs;
	int slot[2];
	int one;	       /* extent 1 rather than the capacity */
	int count;	       /* role holding a device-side count, or -1 */
	uint32_t count_offset; /* where in it */
} rp_list[] = {
	{ CF_K_COUNT, 1, { RP_CTL, 0 }, 1, -1, 0 },
	{ CF_K_INC, 1, { RP_X, 0 }, 0, -1, 0 },
	{ CF_K_MAD, 2, { RP_Y, RP_X }, 0, RP_CTL, CF_CTL_COUNT * 4 },
	{ CF_K_BUMP, 1, { RP_Z, 0 }, 0, RP_CTL, CF_CTL_COUNT * 4 },
	{ CF_K_FILL, 2, { RP_P, RP_W }, 0, RP_CNT, 0 },
	{ CF_K_BUMP, 1, { RP_W, 0 }, 0, RP_SHARED, 4 },
};
#define RP_N (sizeof rp_list / sizeof rp_list[0])

/* The bytes of the padding after each replica's part, which no replica
 * may write. */
#define RP_PAD 0xC5

/* One test's buffers: each role once for the whole batch (the replicas'
 * parts end to end, `stride` bytes apart) and once per replica (sep), and
 * what the host wrote into the batch's buffers (image). */
struct rp {
	uint32_t replicas, cap;
	size_t bytes[RP_ALL];	 /* of one replica's part (shared: unused) */
	uint64_t stride[RP_ALL]; /* shared: 0 */
	unsigned char *image[RP_ROLES];
	weft_buf *batch[RP_ROLES];
	weft_buf *shared[RP_ALL - RP_ROLES];
	weft_buf **sep; /* [r * RP_ROLES + role]; NULL when not wanted */
};

static size_t batch_bytes(const struct rp *s, int role)
{
	return (size_t)(s->replicas - 1) * s->stride[role] + s->bytes[role];
}

static uint64_t round64(size_t n)
{
	return ((uint64_t)n + 63u) / 64u * 64u;
}

/* Sizes and strides: each data role's stride 64 bytes more than the
 * last's, so that a backend using one slot's stride for another is
 * caught; the fill's counts packed 4 bytes apart. */
static void rp_sizes(struct rp *s, uint32_t replicas, uint32_t cap)
{
	memset(s, 0, sizeof *s);
	s->replicas = replicas;
	s->cap = cap;
	for (int role = RP_X; role <= RP_W; role++) {
		s->bytes[role] = ((size_t)cap + 2 * CF_GUARD) * 4;
		s->stride[role] =
			round64(s->bytes[role]) + 64u * (unsigned)role;
	}
	s->bytes[RP_CTL] = CF_CTL_WORDS * 4;
	s->stride[RP_CTL] = round64(s->bytes[RP_CTL]);
	s->bytes[RP_CNT] = 4;
	s->stride[RP_CNT] = 4;
}

/* Entry j of cf_count's table: 0, counts past the capacity, and others. */
static uint32_t table_entry(uint32_t cap, uint32_t j)
{
	const uint32_t t[CF_CTL_TABLE_LEN] = {
		0, 1,	    17, cap,	 cap + 50, cap / 2 + 3, 33, UINT32_MAX,
		2, cap - 1, 5,	cap / 3, 0,	   64,		65, cap + 1,
	};

	return t[j];
}

/* The count of replica r's fill: 0, past the capacity, and others. */
static uint32_t fill_count(uint32_t cap, uint32_t r)
{
	const uint32_t c[5] = { 37, 0, cap + 50, cap, UINT32_MAX };

	return c[r % 5];
}

/* Replica r's part of a role, as the host writes it. */
static void part_init(const struct rp *s, int role, uint32_t r,
		      unsigned char *p)
{
	uint32_t w[CF_CTL_WORDS] = { 0 };

	if (role <= RP_W) {
		weft__ct_pattern(p, s->bytes[role], 1000u * (unsigned)role + r);
		return;
	}
	if (role == RP_CNT) {
		w[0] = fill_count(s->cap, r);
	} else {
		w[CF_CTL_STEP] = 3u * r; /* replicas start apart in the table */
		w[CF_CTL_COUNT] = s->cap; /* stale until cf_count runs */
		for (uint32_t j = 0; j < CF_CTL_TABLE_LEN; j++)
			w[CF_CTL_TABLE + j] = table_entry(s->cap, j);
	}
	memcpy(p, w, s->bytes[role]);
}

static weft_buf *buf_of(const struct rp *s, int role, int r)
{
	if (role >= RP_ROLES)
		return s->shared[role - RP_ROLES];
	return r < 0 ? s->batch[role] : s->sep[(size_t)r * RP_ROLES + role];
}

/* The list for replica r on its own buffers, or (r < 0) for the batch,
 * with its layouts. */
static void rp_lists(const struct rp *s, int r, weft_launch *l,
		     weft_replica_layout *lay)
{
	for (size_t i = 0; i < RP_N; i++) {
		const struct rp_launch *d = &rp_list[i];

		memset(&l[i], 0, sizeof l[i]);
		memset(&lay[i], 0, sizeof lay[i]);
		l[i].kernel = d->kernel;
		l[i].n_bufs = d->n_bufs;
		l[i].extent = d->one ? 1 : s->cap;
		for (uint32_t k = 0; k < d->n_bufs; k++) {
			l[i].bufs[k] = buf_of(s, d->slot[k], r);
			lay[i].stride[k] = s->stride[d->slot[k]];
		}
		if (d->count >= 0) {
			l[i].extent_buf = buf_of(s, d->count, r);
			l[i].extent_offset = d->count_offset;
			lay[i].extent_stride = s->stride[d->count];
		}
	}
}

/* Allocate and write the shared buffers, the batch's (image: padding,
 * then every replica's part) and, when sep is wanted, every replica's
 * own. Returns 0, or -1 with the reason recorded. */
static int rp_setup(weft__ct *t, struct rp *s, int want_sep)
{
	const uint32_t p = 1000, shared[2] = { UINT32_MAX, s->cap / 3 + 1 };

	if (want_sep)
		s->sep = calloc((size_t)s->replicas * RP_ROLES, sizeof *s->sep);
	if (want_sep && !weft__ct_expect(t, s->sep != NULL, "out of memory"))
		return -1;
	if ((s->shared[0] = weft__ct_alloc(t, sizeof p)))
		weft__ct_write(t, s->shared[0], 0, &p, sizeof p, 0);
	if (!t->why[0] && (s->shared[1] = weft__ct_alloc(t, sizeof shared)))
		weft__ct_write(t, s->shared[1], 0, shared, sizeof shared, 0);
	for (int role = 0; role < RP_ROLES && !t->why[0]; role++) {
		size_t n = batch_bytes(s, role);

		s->image[role] = weft__ct_xmalloc(t, n);
		if (!s->image[role])
			return -1;
		memset(s->image[role], RP_PAD, n);
		for (uint32_t r = 0; r < s->replicas; r++)
			part_init(s, role, r,
				  s->image[role] + r * s->stride[role]);
		if ((s->batch[role] = weft__ct_alloc(t, n)))
			weft__ct_write(t, s->batch[role], 0, s->image[role], n,
				       0);
		for (uint32_t r = 0; want_sep && r < s->replicas && !t->why[0];
		     r++) {
			weft_buf **b = &s->sep[(size_t)r * RP_ROLES + role];

			if ((*b = weft__ct_alloc(t, s->bytes[role])))
				weft__ct_write(t, *b, 0,
					       s->image[role] +
						       r * s->stride[role],
					       s->bytes[role], 0);
		}
	}
	return t->why[0] ? -1 : 0;
}

static void rp_teardown(weft__ct *t, struct rp *s)
{
	for (int role = 0; role < RP_ROLES; role++) {
		weft__ct_free(t, s->batch[role]);
		free(s->image[role]);
		for (uint32_t r = 0; s->sep && r < s->replicas; r++)
			weft__ct_free(t, s->sep[(size_t)r * RP_ROLES + role]);
	}
	for (int i = 0; i < RP_ALL - RP_ROLES; i++)
		weft__ct_free(t, s->shared[i]);
	free(s->sep);
}

/* got holds the batch's buffer of a role: each replica's part equals its
 * own buffer (read into want), the padding after it what the host wrote. */
static void compare_role(weft__ct *t, const struct rp *s, int role,
			 const unsigned char *got, unsigned char *want)
{
	size_t bytes = s->bytes[role];

	for (uint32_t r = 0; r < s->replicas && !t->why[0]; r++) {
		const unsigned char *part = got + r * s->stride[role];
		size_t at, pad;

		if (weft__ct_read(t, want, s->sep[(size_t)r * RP_ROLES + role],
				  0, bytes, 0))
			return;
		at = weft__ct_first_diff(part, want, bytes);
		weft__ct_expect(t, at == bytes,
				"replica %u, %s: byte %zu (word %zu) is 0x%02x "
				"where step() on its own buffers gives 0x%02x",
				(unsigned)r, role_names[role], at, at / 4,
				at < bytes ? (unsigned)part[at] : 0u,
				at < bytes ? (unsigned)want[at] : 0u);
		if (r + 1 == s->replicas || t->why[0])
			continue;
		pad = s->stride[role] - bytes;
		at = weft__ct_first_diff(
			part + bytes,
			s->image[role] + r * s->stride[role] + bytes, pad);
		weft__ct_expect(t, at == pad,
				"%s: byte %zu of the padding after replica "
				"%u's part (at byte %zu of the buffer) was "
				"written",
				role_names[role], at, (unsigned)r,
				(size_t)(r * s->stride[role] + bytes + at));
	}
}

/* Every replica of the batch against step() on its own buffers. */
static void rp_compare(weft__ct *t, const struct rp *s)
{
	for (int role = 0; role < RP_ROLES && !t->why[0]; role++) {
		size_t n = batch_bytes(s, role);
		unsigned char *got = weft__ct_xmalloc(t, n);
		unsigned char *want =
			got ? weft__ct_xmalloc(t, s->bytes[role]) : NULL;

		if (want && !weft__ct_read(t, got, s->batch[role], 0, n, 0))
			compare_role(t, s, role, got, want);
		free(got);
		free(want);
	}
}

/* The batch stepped by step_replicas() calls of calls[0], calls[1], ...
 * against each replica stepped by one step() of their sum. */
static void rp_same(weft__ct *t, uint32_t replicas, uint32_t cap,
		    const uint64_t *calls, size_t n_calls)
{
	weft_launch l[RP_N];
	weft_replica_layout lay[RP_N];
	uint64_t total = 0;
	struct rp s;

	rp_sizes(&s, replicas, cap);
	for (size_t c = 0; c < n_calls; c++)
		total += calls[c];
	if (rp_setup(t, &s, 1) == 0) {
		for (uint32_t r = 0; r < replicas && !t->why[0]; r++) {
			rp_lists(&s, (int)r, l, lay);
			weft__ct_step(t, l, RP_N, total);
		}
		rp_lists(&s, -1, l, lay);
		for (size_t c = 0; c < n_calls && !t->why[0]; c++)
			weft__ct_step_replicas(t, l, lay, RP_N, replicas,
					       calls[c]);
		if (!t->why[0] && !weft__ct_sync(t))
			rp_compare(t, &s);
	}
	rp_teardown(t, &s);
}

/* ---- bad layouts --------------------------------------------------------- */

enum bad {
	BAD_STRIDE,
	BAD_COUNT_STRIDE,
	BAD_PAST_END,
	BAD_COUNT_PAST_END,
	BAD_ZERO,
	BAD_NULL,
	BAD_WRAP,
	BAD_COUNT_WRAP,
	BAD_N
};

static const char *const bad_names[BAD_N] = {
	[BAD_STRIDE] = "a stride that is not a multiple of 64 (w's, in "
		       "launch 4)",
	[BAD_COUNT_STRIDE] = "a count's stride that is not a multiple of 4 "
			     "(launch 4)",
	[BAD_PAST_END] = "one replica more than the buffers hold",
	[BAD_COUNT_PAST_END] = "a count's stride that puts the last "
			       "replica's count past its buffer (launch 2)",
	[BAD_ZERO] = "0 replicas",
	[BAD_NULL] = "NULL layouts",
	[BAD_WRAP] = "w's stride 2^62 with 5 replicas (launch 4), whose "
		     "bound 4 x 2^62 wraps to 0 in 64 bits,",
	[BAD_COUNT_WRAP] = "a count's stride 2^62 with 5 replicas (launch 2), "
			   "whose bound 4 x 2^62 wraps to 0 in 64 bits,",
};

/* Replicas of each bad case: 5 where the last one's offset, 4 x 2^62, is
 * 2^64. */
static uint32_t bad_replicas(enum bad bad)
{
	return bad == BAD_WRAP || bad == BAD_COUNT_WRAP ? 5 : 3;
}

/* What a backend that accepts the case got wrong, after the status. */
static const char *const bad_why[BAD_N] = {
	[BAD_WRAP] = ": replica 4 of w starts 2^64 bytes in (4 x 2^62), far "
		     "past its buffer; a bound computed as r * stride + size "
		     "in 64 bits wraps to 0 + size and passes",
	[BAD_COUNT_WRAP] = ": replica 4's count is 2^64 bytes in (4 x 2^62), "
			   "far past its buffer; a bound computed as "
			   "offset + r * stride + 4 in 64 bits wraps and "
			   "passes",
};

/* The batch's buffers still hold what the host wrote. */
static void rp_untouched(weft__ct *t, const struct rp *s)
{
	for (int role = 0; role < RP_ROLES && !t->why[0]; role++) {
		size_t n = batch_bytes(s, role), at;
		unsigned char *got = weft__ct_xmalloc(t, n);

		if (got && !weft__ct_read(t, got, s->batch[role], 0, n, 0)) {
			at = weft__ct_first_diff(got, s->image[role], n);
			weft__ct_expect(t, at == n,
					"%s: byte %zu changed: launches ran "
					"before the list was refused",
					role_names[role], at);
		}
		free(got);
	}
}

static void rp_refused(weft__ct *t, struct rp *s, enum bad bad)
{
	weft_launch l[RP_N];
	weft_replica_layout lay[RP_N];
	const weft_replica_layout *layouts = lay;
	uint32_t replicas = s->replicas;
	char msg[sizeof t->err.msg];
	weft_stats a, b;
	weft_status st;

	rp_lists(s, -1, l, lay);
	switch (bad) {
	case BAD_STRIDE: lay[4].stride[1] -= 32; break;
	case BAD_COUNT_STRIDE: lay[4].extent_stride = 2; break;
	case BAD_PAST_END: replicas++; break;
	case BAD_COUNT_PAST_END: lay[2].extent_stride *= 2; break;
	case BAD_ZERO: replicas = 0; break;
	/* Strides whose bounds wrap, on launches of extent 0: a backend that
	 * accepts them runs those launches without touching memory (no item,
	 * no count needed), and the launches before them show. */
	case BAD_WRAP:
		lay[4].stride[1] = (uint64_t)1 << 62;
		l[4].extent = 0;
		break;
	case BAD_COUNT_WRAP:
		lay[2].extent_stride = (uint64_t)1 << 62;
		l[2].extent = 0;
		break;
	default: layouts = NULL; break;
	}
	if (weft__ct_stats(t, &a))
		return;
	t->err.msg[0] = '\0';
	st = t->vt->step_replicas(t->dev, t->prog, l, layouts, RP_N, replicas,
				  1, &t->err);
	weft__ct_expect(t, st == WEFT_E_INVALID,
			"step_replicas() returned %s, not WEFT_E_INVALID%s",
			weft_status_str(st), bad_why[bad] ? bad_why[bad] : "");
	weft__ct_expect(t, t->err.msg[0] != '\0', "the refusal has no message");
	memcpy(msg, t->err.msg, sizeof msg);
	if (!weft__ct_sync(t) && !weft__ct_stats(t, &b) &&
	    !weft__ct_counters_moved(t, &a, &b, "the refused call"))
		rp_untouched(t, s);
	if (msg[0] && !t->why[0])
		weft__ct_diag(t, "%s", msg);
}

/* ---- counters ------------------------------------------------------------ */

static void rp_counted(weft__ct *t)
{
	weft_launch l[RP_N];
	weft_replica_layout lay[RP_N];
	weft_stats a, b;
	struct rp s;

	rp_sizes(&s, 5, 100);
	if (rp_setup(t, &s, 0) == 0 && !weft__ct_stats(t, &a)) {
		rp_lists(&s, -1, l, lay);
		if (!weft__ct_step_replicas(t, l, lay, RP_N, 5, 100) &&
		    !weft__ct_stats(t, &b)) {
			weft__ct_expect(
				t, b.steps - a.steps == 100,
				"steps grew by %llu",
				(unsigned long long)(b.steps - a.steps));
			weft__ct_expect(
				t, b.launches - a.launches == 100 * RP_N,
				"launches grew by %llu, not %llu",
				(unsigned long long)(b.launches - a.launches),
				(unsigned long long)(100 * RP_N));
			weft__ct_expect(
				t, b.syncs == a.syncs,
				"syncs grew by %llu inside "
				"step_replicas()",
				(unsigned long long)(b.syncs - a.syncs));
		}
	}
	rp_teardown(t, &s);
}

/* ---- the group ----------------------------------------------------------- */

/* The group's tests, also listed when they are skipped. */
enum {
	RT_SMALL,
	RT_MANY,
	RT_WIDE,
	RT_SPLIT,
	RT_ONE,
	RT_BAD,
	RT_COUNTED = RT_BAD + BAD_N,
	RT_N
};

static const char *const same_tests[RT_BAD] = {
	[RT_SMALL] = "5 replicas of 200 items, 7 steps: every replica's "
		     "memory is byte-identical to step() on its own buffers, "
		     "the padding between parts untouched",
	[RT_MANY] = "64 replicas of 37 items, 3 steps: byte-identical to "
		    "step() per replica",
	[RT_WIDE] = "3 replicas of 5000 items, 2 steps: byte-identical to "
		    "step() per replica",
	[RT_SPLIT] = "5 replicas: step_replicas() of 3, 0 and 4 steps gives "
		     "step() of 7",
	[RT_ONE] = "1 replica: step_replicas() is step()",
};

static const char *const counted_test =
	"step_replicas(100) of 6 launches on 5 replicas counts 100 steps "
	"and 600 launches, and no synchronisation";

static void begin_bad(weft__ct *t, int bad)
{
	weft__ct_begin(t,
		       "%s is refused with a message; nothing runs, nothing "
		       "is counted",
		       bad_names[bad]);
}

static void rp_skip_all(weft__ct *t)
{
	const char *why = t->vt->struct_size < WEFT_BACKEND_V1_4_SIZE
				  ? "a vtable older than ABI 1.4"
				  : "left NULL";

	for (int i = 0; i < RT_N; i++) {
		if (i < RT_BAD)
			weft__ct_begin(t, "%s", same_tests[i]);
		else if (i < RT_COUNTED)
			begin_bad(t, i - RT_BAD);
		else
			weft__ct_begin(t, "%s", counted_test);
		weft__ct_skip(t,
			      "no step_replicas() (%s): the core runs a "
			      "model's replicas one after another",
			      why);
	}
}

/* The comparisons with step(): replicas, items, and the step_replicas()
 * calls (of calls[0], calls[1], ... steps). */
static const struct rp_case {
	uint32_t replicas, cap;
	uint64_t calls[3];
	size_t n_calls;
} rp_cases[RT_BAD] = {
	[RT_SMALL] = { 5, 200, { 7 }, 1 },
	[RT_MANY] = { 64, 37, { 3 }, 1 },
	[RT_WIDE] = { 3, 5000, { 2 }, 1 },
	[RT_SPLIT] = { 5, 200, { 3, 0, 4 }, 3 },
	[RT_ONE] = { 1, 200, { 7 }, 1 },
};

void weft__ct_group_replicas(weft__ct *t)
{
	struct rp s;

	if (!weft__ct_has_replicas(t)) {
		rp_skip_all(t);
		return;
	}
	for (int i = 0; i < RT_BAD; i++) {
		const struct rp_case *c = &rp_cases[i];

		weft__ct_begin(t, "%s", same_tests[i]);
		rp_same(t, c->replicas, c->cap, c->calls, c->n_calls);
		weft__ct_end(t);
	}
	for (int bad = 0; bad < BAD_N; bad++) {
		begin_bad(t, bad);
		rp_sizes(&s, bad_replicas((enum bad)bad), 100);
		if (rp_setup(t, &s, 0) == 0)
			rp_refused(t, &s, (enum bad)bad);
		rp_teardown(t, &s);
		weft__ct_end(t);
	}
	weft__ct_begin(t, "%s", counted_test);
	rp_counted(t);
	weft__ct_end(t);
}
