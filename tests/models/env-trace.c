/*
 * tests/models/env-trace.c - records a trace of any environment model
 * (weft/env.h) for the agreement harness bench/gym-compare.py, through
 * weft.h's public run API alone:
 *
 *   env-trace [--id ID] [--envs N] [--autoreset MODE] [--precision P]
 *             [--set section.key=value ...] --steps T [--action-seed S]
 *             [--reset-seed S] [--action-space SPEC] --out DIR
 *
 * --id selects the model serving Gymnasium's id ID among the available
 * ones (weft_env_list_scan: [simulation] model and the id's settings);
 * --envs, --autoreset (next_step|same_step|disabled) and --precision
 * (f32|f64) set the model's keys for those, whatever their names; --set
 * comes after them all. Without --id, --set names the model
 * (simulation.model=NAME) and its keys.
 *
 * It resets every environment (reset_some: WEFT_ENV_SEEDED with seed
 * S + i when --reset-seed is given, WEFT_ENV_NEXT otherwise), then for T
 * steps draws actions with its own generator (splitmix64 from
 * --action-seed: Discrete uniform integers in [start, start + n), Box
 * uniform f32 in [low, high]), writes them to the actions view and
 * launches act. It records the view `state` before each step, the
 * actions, and after the step obs, reward, terminated, truncated,
 * final_obs and state; also the observation and state right after the
 * reset (reset_obs, reset_state). A model that fills its state view on
 * demand has a list "state" doing it: launched before each read.
 *
 * DIR gets one raw little-endian file per field, FIELD.bin, in C order
 * with the step first ([T, n, ...]; reset_* have no step axis), and
 * DIR/meta.json with each field's dtype and shape, n, T, the model, the
 * settings given, the spaces, the autoreset mode and the precision.
 *
 * The action space comes from weft_sim_env(). --action-space
 * (discrete:N:START or box:LOW:HIGH, one bound for every element) names
 * the one the caller expects (Gymnasium's): a model that declares
 * another fails the trace with both named.
 *
 * Exit status 0 when the trace is written; 1 with a message on stderr
 * naming what failed and where; 2 for a usage error.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <weft/weft.h>

#define MAX_SETS 64

typedef struct options {
	const char *sets[MAX_SETS];
	int n_sets;
	uint64_t steps;
	uint64_t action_seed;
	uint64_t reset_seed;
	int seeded;
	const char *action_space; /* --action-space, or NULL */
	const char *out;
	const char *id, *envs, *autoreset, *precision; /* or NULL */
} options;

/* The action space as the trace draws from it. */
typedef struct action_space {
	int discrete;
	int64_t n, start;   /* Discrete */
	size_t count;	    /* elements per environment (1 for Discrete) */
	double *low, *high; /* Box: count bounds each */
	char desc[160];	    /* for messages (a Box: element 0's bounds) */
	char json[160];	    /* meta.json's "action_space" (the same) */
} action_space;

/* One recorded field: the view it copies, bytes per record, and its
 * file. */
typedef struct field {
	const char *name;
	const char *view;
	weft_array a;
	size_t bytes;
	int per_step; /* 1: [T, ...view's shape]; 0: the view's shape */
	FILE *f;
	char path[4096];
} field;

enum {
	F_STATE_BEFORE,
	F_ACTIONS,
	F_OBS,
	F_REWARD,
	F_TERMINATED,
	F_TRUNCATED,
	F_FINAL_OBS,
	F_STATE_AFTER,
	F_RESET_OBS,
	F_RESET_STATE,
	N_FIELDS
};

static const struct {
	const char *name, *view;
	int per_step;
} field_spec[N_FIELDS] = {
	{ "state_before", "state", 1 },
	{ "actions", "actions", 1 },
	{ "obs", "obs", 1 },
	{ "reward", "reward", 1 },
	{ "terminated", "terminated", 1 },
	{ "truncated", "truncated", 1 },
	{ "final_obs", "final_obs", 1 },
	{ "state_after", "state", 1 },
	{ "reset_obs", "obs", 0 },
	{ "reset_state", "state", 0 },
};

typedef struct trace {
	weft_context *ctx;
	weft_config *cfg;
	weft_sim *sim;
	field fs[N_FIELDS];
	weft_array mask, seed;
	unsigned char *buf[N_FIELDS];
	action_space space;
	weft_env_info info;
	int64_t n;
	/* Every setting applied, in order, for meta.json. */
	char sets[MAX_SETS][512];
	int n_sets;
	uint32_t max_episode_steps; /* --id's, 0 without */
	/* A model whose state view is filled on demand (CartPole) has a
	 * list "state" that packs it: launched before each read. */
	int pack_state;
	uint32_t pack_list;
} trace;

static void usage(FILE *f)
{
	fputs("usage: env-trace [--id ID] [--envs N] [--autoreset MODE]\n"
	      "                 [--precision f32|f64]\n"
	      "                 [--set section.key=value ...] --steps T\n"
	      "                 [--action-seed S] [--reset-seed S]\n"
	      "                 [--action-space "
	      "discrete:N:START|box:LOW:HIGH]\n"
	      "                 --out DIR\n",
	      f);
}

static int fail(const char *fmt, ...) WEFT_PRINTF(1, 2);
static int fail(const char *fmt, ...)
{
	va_list ap;

	fputs("env-trace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

/* A weft call failed: what we were doing, and the library's message. */
static int fail_weft(weft_context *ctx, const char *what)
{
	return fail("%s: %s", what, weft_context_error(ctx));
}

static int parse_u64(const char *opt, const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	if (!s || !*s || *s == '-')
		goto bad;
	*out = strtoull(s, &end, 10);
	if (errno || *end)
		goto bad;
	return 0;
bad:
	fprintf(stderr,
		"env-trace: %s: expected a non-negative integer, got "
		"'%s'\n",
		opt, s ? s : "");
	return 2;
}

static int parse_options(int argc, char **argv, options *o)
{
	int rc;

	memset(o, 0, sizeof *o);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			exit(0);
		}
		if (!v) {
			fprintf(stderr, "env-trace: %s: missing value\n", a);
			usage(stderr);
			return 2;
		}
		i++;
		if (!strcmp(a, "--set")) {
			if (o->n_sets == MAX_SETS) {
				fprintf(stderr,
					"env-trace: --set: more than %d "
					"settings\n",
					MAX_SETS);
				return 2;
			}
			o->sets[o->n_sets++] = v;
		} else if (!strcmp(a, "--steps")) {
			if ((rc = parse_u64(a, v, &o->steps)))
				return rc;
		} else if (!strcmp(a, "--action-seed")) {
			if ((rc = parse_u64(a, v, &o->action_seed)))
				return rc;
		} else if (!strcmp(a, "--reset-seed")) {
			if ((rc = parse_u64(a, v, &o->reset_seed)))
				return rc;
			o->seeded = 1;
		} else if (!strcmp(a, "--action-space")) {
			o->action_space = v;
		} else if (!strcmp(a, "--out")) {
			o->out = v;
		} else if (!strcmp(a, "--id")) {
			o->id = v;
		} else if (!strcmp(a, "--envs")) {
			o->envs = v;
		} else if (!strcmp(a, "--autoreset")) {
			o->autoreset = v;
		} else if (!strcmp(a, "--precision")) {
			o->precision = v;
		} else {
			fprintf(stderr, "env-trace: unknown option '%s'\n", a);
			usage(stderr);
			return 2;
		}
	}
	if (!o->out || !o->steps) {
		fprintf(stderr, "env-trace: --out and --steps (> 0) are "
				"required\n");
		usage(stderr);
		return 2;
	}
	return 0;
}

/* ---- the action generator: splitmix64, the same on every host -------- */

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* Uniform in [0, bound) without modulo bias (bound >= 1). */
static uint64_t draw_below(uint64_t *s, uint64_t bound)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % bound, x;

	do
		x = splitmix64(s);
	while (x >= limit);
	return x % bound;
}

/* Uniform f32 in [low, high]: 24 random bits spread over the interval in
 * double, rounded to f32 and kept inside the bounds. */
static float draw_f32(uint64_t *s, double low, double high)
{
	double u = (double)(splitmix64(s) >> 40) / (double)((1u << 24) - 1);
	float x = (float)(low + (high - low) * u);

	if (x < low)
		x = nextafterf(x, INFINITY);
	if (x > high)
		x = nextafterf(x, -INFINITY);
	return x;
}

/* ---- dtypes ----------------------------------------------------------- */

static const char *dtype_name(uint32_t t)
{
	switch (t) {
	case WEFT_DTYPE_I8: return "i8";
	case WEFT_DTYPE_I16: return "i16";
	case WEFT_DTYPE_I32: return "i32";
	case WEFT_DTYPE_I64: return "i64";
	case WEFT_DTYPE_U8: return "u8";
	case WEFT_DTYPE_U16: return "u16";
	case WEFT_DTYPE_U32: return "u32";
	case WEFT_DTYPE_U64: return "u64";
	case WEFT_DTYPE_F32: return "f32";
	case WEFT_DTYPE_F64: return "f64";
	default: return NULL;
	}
}

/* Store integer or real v as element i of an array of dtype t. */
static void store_int(void *p, size_t i, uint32_t t, int64_t v)
{
	switch (t) {
	case WEFT_DTYPE_I8: ((int8_t *)p)[i] = (int8_t)v; break;
	case WEFT_DTYPE_I16: ((int16_t *)p)[i] = (int16_t)v; break;
	case WEFT_DTYPE_I32: ((int32_t *)p)[i] = (int32_t)v; break;
	case WEFT_DTYPE_I64: ((int64_t *)p)[i] = v; break;
	case WEFT_DTYPE_U8: ((uint8_t *)p)[i] = (uint8_t)v; break;
	case WEFT_DTYPE_U16: ((uint16_t *)p)[i] = (uint16_t)v; break;
	case WEFT_DTYPE_U32: ((uint32_t *)p)[i] = (uint32_t)v; break;
	case WEFT_DTYPE_U64: ((uint64_t *)p)[i] = (uint64_t)v; break;
	default: break;
	}
}

static int dtype_is_int(uint32_t t)
{
	return t != WEFT_DTYPE_F32 && t != WEFT_DTYPE_F64;
}

/* ---- the action space ------------------------------------------------- */

static void space_describe(action_space *sp)
{
	if (sp->discrete) {
		snprintf(sp->desc, sizeof sp->desc,
			 "Discrete(%" PRId64 ", start=%" PRId64 ")", sp->n,
			 sp->start);
		snprintf(sp->json, sizeof sp->json,
			 "{\"kind\": \"discrete\", \"n\": %" PRId64
			 ", \"start\": %" PRId64 "}",
			 sp->n, sp->start);
		return;
	}
	snprintf(sp->desc, sizeof sp->desc, "Box(%.17g, %.17g, %zu elements)",
		 sp->low[0], sp->high[0], sp->count);
	snprintf(sp->json, sizeof sp->json,
		 "{\"kind\": \"box\", \"low\": %.17g, \"high\": %.17g, "
		 "\"count\": %zu}",
		 sp->low[0], sp->high[0], sp->count);
}

/* --action-space SPEC, for count elements per environment. */
static int space_parse(const char *spec, size_t count, action_space *sp)
{
	char kind[16];
	double a, b;
	char extra;

	if (sscanf(spec, "%15[a-z]:%lf:%lf%c", kind, &a, &b, &extra) != 3)
		goto bad;
	if (!strcmp(kind, "discrete")) {
		if (a < 1 || a != floor(a) || b != floor(b))
			goto bad;
		sp->discrete = 1;
		sp->n = (int64_t)a;
		sp->start = (int64_t)b;
		sp->count = 1;
	} else if (!strcmp(kind, "box")) {
		if (!(a <= b) || !isfinite(a) || !isfinite(b))
			goto bad;
		sp->count = count;
		sp->low = malloc(count * sizeof *sp->low);
		sp->high = malloc(count * sizeof *sp->high);
		if (!sp->low || !sp->high)
			return fail("--action-space: out of memory");
		for (size_t i = 0; i < count; i++)
			sp->low[i] = a, sp->high[i] = b;
	} else {
		goto bad;
	}
	space_describe(sp);
	return 0;
bad:
	return fail("--action-space '%s': expected discrete:N:START (N >= 1) "
		    "or box:LOW:HIGH (finite, LOW <= HIGH)",
		    spec);
}

/* The space weft_sim_env() reports. */
static int space_from_library(const weft_env_space *s, action_space *sp)
{
	size_t count = 1;

	if (s->kind == WEFT_SPACE_DISCRETE) {
		sp->discrete = 1;
		sp->n = s->n;
		sp->start = s->start;
		sp->count = 1;
		space_describe(sp);
		return 0;
	}
	if (s->kind != WEFT_SPACE_BOX)
		return fail("weft_sim_env: action space kind %u is neither Box "
			    "nor Discrete",
			    s->kind);
	for (uint32_t d = 0; d < s->ndim; d++)
		count *= (size_t)s->shape[d];
	sp->count = count;
	sp->low = malloc(count * sizeof *sp->low);
	sp->high = malloc(count * sizeof *sp->high);
	if (!sp->low || !sp->high)
		return fail("action space: out of memory");
	for (size_t i = 0; i < count; i++) {
		sp->low[i] = s->low ? s->low[i] : -INFINITY;
		sp->high[i] = s->high ? s->high[i] : INFINITY;
		if (!isfinite(sp->low[i]) || !isfinite(sp->high[i]))
			return fail("action space: Box element %zu is "
				    "unbounded ([%g, %g]): uniform actions "
				    "need finite bounds",
				    i, sp->low[i], sp->high[i]);
	}
	space_describe(sp);
	return 0;
}

static int space_same(const action_space *a, const action_space *b)
{
	if (a->discrete != b->discrete || a->count != b->count)
		return 0;
	if (a->discrete)
		return a->n == b->n && a->start == b->start;
	for (size_t i = 0; i < a->count; i++)
		if (a->low[i] != b->low[i] || a->high[i] != b->high[i])
			return 0;
	return 1;
}

/* The action space: weft's, checked against --action-space when given.
 * act is the actions view. */
static int space_get(weft_sim *sim, const options *o, const weft_env_info *info,
		     const weft_array *act, action_space *sp)
{
	action_space want = { 0 };
	size_t count = 1;
	int rc, same;

	for (uint32_t d = 1; d < act->ndim; d++)
		count *= (size_t)act->shape[d];
	if ((rc = space_from_library(&info->action, sp)))
		return rc;
	if (o->action_space) {
		if ((rc = space_parse(o->action_space, count, &want)))
			return rc;
		same = space_same(sp, &want);
		free(want.low);
		free(want.high);
		if (!same)
			return fail("action space: model '%s' declares %s, "
				    "--action-space expects %s",
				    weft_sim_model(sim), sp->desc, want.desc);
	}
	if (sp->count != count)
		return fail("view 'actions': %zu elements per environment, the "
			    "action space %s has %zu",
			    count, sp->desc, sp->count);
	if (sp->discrete != dtype_is_int(act->dtype))
		return fail("view 'actions': dtype %s does not hold %s actions",
			    dtype_name(act->dtype), sp->desc);
	return 0;
}

/* Step t's actions for n environments into buf (the actions view's
 * dtype). */
static void draw_actions(const action_space *sp, uint32_t dtype, size_t n,
			 uint64_t *rng, void *buf)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < sp->count; k++) {
			size_t at = i * sp->count + k;

			if (sp->discrete) {
				int64_t v = sp->start +
					    (int64_t)draw_below(
						    rng, (uint64_t)sp->n);
				store_int(buf, at, dtype, v);
			} else if (dtype == WEFT_DTYPE_F32) {
				((float *)buf)[at] =
					draw_f32(rng, sp->low[k], sp->high[k]);
			} else {
				((double *)buf)[at] = (double)draw_f32(
					rng, sp->low[k], sp->high[k]);
			}
		}
}

/* ---- views and files -------------------------------------------------- */

/* The view `name`, C-contiguous, with n environments first. */
static int view_get(weft_context *ctx, weft_sim *sim, const char *name,
		    int64_t n, weft_array *a)
{
	int64_t stride = 1;

	memset(a, 0, sizeof *a);
	a->struct_size = sizeof *a;
	if (weft_sim_array_find(sim, name, a)) {
		char what[96];

		snprintf(what, sizeof what, "model '%s': view '%s'",
			 weft_sim_model(sim), name);
		return fail_weft(ctx, what);
	}
	if (!dtype_name(a->dtype))
		return fail("view '%s': unknown dtype %u", name, a->dtype);
	if (a->ndim < 1 || a->shape[0] != n)
		return fail("view '%s': shape's first axis is not the %" PRId64
			    " environments",
			    name, n);
	for (uint32_t d = a->ndim; d-- > 0;) {
		if (a->shape[d] > 1 && a->strides[d] != stride)
			return fail("view '%s': not C-contiguous (axis %u "
				    "stride %" PRId64 ", expected %" PRId64 ")",
				    name, d, a->strides[d], stride);
		stride *= a->shape[d];
	}
	return 0;
}

static int read_view(weft_context *ctx, weft_sim *sim, const weft_array *a,
		     void *dst)
{
	char what[96];

	if (!weft_sim_read(sim, dst, a->buffer, a->offset, a->bytes, 0))
		return 0;
	snprintf(what, sizeof what, "reading view '%s' (%zu bytes)", a->name,
		 a->bytes);
	return fail_weft(ctx, what);
}

static int write_view(weft_context *ctx, weft_sim *sim, const weft_array *a,
		      const void *src)
{
	char what[96];

	if (!weft_sim_write(sim, a->buffer, a->offset, src, a->bytes, 0))
		return 0;
	snprintf(what, sizeof what, "writing view '%s' (%zu bytes)", a->name,
		 a->bytes);
	return fail_weft(ctx, what);
}

static int launch(weft_context *ctx, weft_sim *sim, const char *list)
{
	uint32_t index;
	char what[96];

	snprintf(what, sizeof what, "model '%s': list '%s'",
		 weft_sim_model(sim), list);
	if (weft_sim_list(sim, list, &index) || weft_sim_launch(sim, index, 1))
		return fail_weft(ctx, what);
	return 0;
}

static int record(field *f, const void *data)
{
	if (fwrite(data, 1, f->bytes, f->f) == f->bytes)
		return 0;
	return fail("%s: %s", f->path, strerror(errno));
}

static int fields_open(const char *dir, field *fs)
{
	for (int i = 0; i < N_FIELDS; i++) {
		snprintf(fs[i].path, sizeof fs[i].path, "%s/%s.bin", dir,
			 fs[i].name);
		if (!(fs[i].f = fopen(fs[i].path, "wb")))
			return fail("%s: %s", fs[i].path, strerror(errno));
	}
	return 0;
}

static int fields_close(field *fs)
{
	int rc = 0;

	for (int i = 0; i < N_FIELDS; i++) {
		if (fs[i].f && fclose(fs[i].f) && !rc)
			rc = fail("%s: %s", fs[i].path, strerror(errno));
		fs[i].f = NULL;
	}
	return rc;
}

/* A JSON string: the characters of s, escaped. */
static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned)(unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static int write_meta(const options *o, const trace *tr)
{
	static const char *const modes[] = { "next_step", "same_step",
					     "disabled" };
	const weft_env_info *info = &tr->info;
	const field *fs = tr->fs;
	char path[4096];
	FILE *f;

	snprintf(path, sizeof path, "%s/meta.json", o->out);
	if (!(f = fopen(path, "w")))
		return fail("%s: %s", path, strerror(errno));
	fprintf(f, "{\n  \"format\": \"weft-env-trace 1\",\n  \"id\": ");
	if (o->id)
		json_string(f, o->id);
	else
		fputs("null", f);
	fprintf(f, ",\n  \"model\": ");
	json_string(f, weft_sim_model(tr->sim));
	fprintf(f, ",\n  \"backend\": ");
	json_string(f, weft_sim_backend(tr->sim));
	fprintf(f, ",\n  \"n\": %" PRId64 ",\n  \"T\": %" PRIu64 ",\n", tr->n,
		o->steps);
	fprintf(f, "  \"max_episode_steps\": %u,\n", tr->max_episode_steps);
	fprintf(f, "  \"action_seed\": %" PRIu64 ",\n", o->action_seed);
	if (o->seeded)
		fprintf(f, "  \"reset_seed\": %" PRIu64 ",\n", o->reset_seed);
	else
		fprintf(f, "  \"reset_seed\": null,\n");
	fprintf(f, "  \"keys\": [");
	for (int i = 0; i < tr->n_sets; i++) {
		fputs(i ? ", " : "", f);
		json_string(f, tr->sets[i]);
	}
	fprintf(f, "],\n  \"action_space\": %s,\n", tr->space.json);
	fprintf(f, "  \"autoreset\": \"%s\",\n",
		info->autoreset < 3 ? modes[info->autoreset] : "?");
	fprintf(f, "  \"precision\": %u,\n", info->precision);
	fprintf(f, "  \"fields\": {\n");
	for (int i = 0; i < N_FIELDS; i++) {
		fprintf(f,
			"    \"%s\": {\"file\": \"%s.bin\", \"dtype\": "
			"\"%s\", \"shape\": [",
			fs[i].name, fs[i].name, dtype_name(fs[i].a.dtype));
		if (fs[i].per_step)
			fprintf(f, "%" PRIu64 ", ", o->steps);
		for (uint32_t d = 0; d < fs[i].a.ndim; d++)
			fprintf(f, "%s%" PRId64, d ? ", " : "",
				fs[i].a.shape[d]);
		fprintf(f, "]}%s\n", i + 1 < N_FIELDS ? "," : "");
	}
	fprintf(f, "  }\n}\n");
	if (ferror(f) | fclose(f))
		return fail("%s: write failed", path);
	return 0;
}

/* ---- the run ---------------------------------------------------------- */

/* Apply "section.key=value" (what names the option it came from). */
static int apply(trace *tr, const char *what, const char *fmt, ...)
	WEFT_PRINTF(3, 4);
static int apply(trace *tr, const char *what, const char *fmt, ...)
{
	char *set;
	va_list ap;
	int len;

	if (tr->n_sets == MAX_SETS)
		return fail("%s: more than %d settings", what, MAX_SETS);
	set = tr->sets[tr->n_sets];
	va_start(ap, fmt);
	len = vsnprintf(set, sizeof tr->sets[0], fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof tr->sets[0])
		return fail("%s: setting longer than %zu bytes", what,
			    sizeof tr->sets[0] - 1);
	/* The library's message names the key (as --set KEY); say where
	 * a setting of our own came from. */
	if (weft_config_set(tr->ctx, tr->cfg, set))
		return strcmp(what, "--set")
			       ? fail_weft(tr->ctx, what)
			       : fail("%s", weft_context_error(tr->ctx));
	tr->n_sets++;
	return 0;
}

/* --id and the options that set its model's keys. */
static int apply_id(trace *tr, const options *o)
{
	weft_env_list *l = NULL;
	const weft_env_entry *e;
	const char *s, *nl;
	int rc = 0;

	if (!o->id) {
		if (o->envs || o->autoreset || o->precision)
			return fail("--envs, --autoreset and --precision need "
				    "--id (the model's key names come with "
				    "it)");
		return 0;
	}
	if (weft_env_list_scan(tr->ctx, NULL, &l))
		return fail_weft(tr->ctx, "--id: listing the environment ids");
	if (!(e = weft_env_list_find(l, o->id))) {
		fprintf(stderr,
			"env-trace: --id %s: no available model serves "
			"it (ids:",
			o->id);
		for (size_t i = 0; i < weft_env_list_count(l); i++)
			fprintf(stderr, " %s", weft_env_list_at(l, i)->id);
		fprintf(stderr, "%s; WEFT_MODEL_PATH)\n",
			weft_env_list_count(l) ? "" : " none");
		rc = 1;
		goto free_list;
	}
	tr->max_episode_steps = e->max_episode_steps;
	if ((rc = apply(tr, "--id", "simulation.model=%s", e->model)))
		goto free_list;
	for (s = e->sets; *s; s = *nl ? nl + 1 : nl) {
		nl = s + strcspn(s, "\n");
		if (nl > s &&
		    (rc = apply(tr, "--id", "%.*s", (int)(nl - s), s)))
			goto free_list;
	}
	if (o->envs &&
	    (rc = apply(tr, "--envs", "%s=%s", e->count_key, o->envs)))
		goto free_list;
	if (o->autoreset && (rc = apply(tr, "--autoreset", "%s=%s",
					e->autoreset_key, o->autoreset)))
		goto free_list;
	if (o->precision && !*e->precision_key) {
		rc = fail("--precision: model '%s' (%s) has one precision",
			  e->model, o->id);
		goto free_list;
	}
	if (o->precision && (rc = apply(tr, "--precision", "%s=%s",
					e->precision_key, o->precision)))
		goto free_list;
free_list:
	weft_env_list_free(l);
	return rc;
}

static int configure(trace *tr, const options *o)
{
	int rc;

	if (weft_context_new(&tr->ctx))
		return fail("out of memory creating a context");
	if (weft_config_new(tr->ctx, &tr->cfg))
		return fail_weft(tr->ctx, "configuration");
	/* No outputs of the run's own (--set may change that). */
	if ((rc = apply(tr, "defaults", "output.csv=false")) ||
	    (rc = apply(tr, "defaults", "output.summary=false")) ||
	    (rc = apply(tr, "defaults", "output.plot=none")) ||
	    (rc = apply(tr, "--out", "output.directory=%s", o->out)) ||
	    (rc = apply_id(tr, o)))
		return rc;
	for (int i = 0; i < o->n_sets; i++)
		if ((rc = apply(tr, "--set", "%s", o->sets[i])))
			return rc;
	if (weft_sim_open(tr->ctx, tr->cfg, &tr->sim))
		return fail_weft(tr->ctx, "opening the run");
	return 0;
}

static int find_views(trace *tr, const options *o)
{
	field *fs = tr->fs;
	int rc;

	tr->info.struct_size = sizeof tr->info;
	if (weft_sim_env(tr->sim, &tr->info))
		return fail_weft(tr->ctx, "the run's environment");
	tr->n = tr->info.num_envs;
	tr->pack_state =
		weft_sim_list(tr->sim, "state", &tr->pack_list) == WEFT_OK;
	for (int i = 0; i < N_FIELDS; i++) {
		fs[i].name = field_spec[i].name;
		fs[i].view = field_spec[i].view;
		fs[i].per_step = field_spec[i].per_step;
		if ((rc = view_get(tr->ctx, tr->sim, fs[i].view, tr->n,
				   &fs[i].a)))
			return rc;
		fs[i].bytes = fs[i].a.bytes;
		if (!(tr->buf[i] = calloc(1, fs[i].bytes)))
			return fail("out of memory for field '%s'", fs[i].name);
	}
	if ((rc = view_get(tr->ctx, tr->sim, "reset_mask", tr->n, &tr->mask)) ||
	    (rc = view_get(tr->ctx, tr->sim, "reset_seed", tr->n, &tr->seed)))
		return rc;
	if (tr->mask.dtype != WEFT_DTYPE_U8 || tr->seed.dtype != WEFT_DTYPE_U64)
		return fail("views 'reset_mask' (%s) and 'reset_seed' (%s): "
			    "expected u8 and u64",
			    dtype_name(tr->mask.dtype),
			    dtype_name(tr->seed.dtype));
	return space_get(tr->sim, o, &tr->info, &fs[F_ACTIONS].a, &tr->space);
}

/* reset_some for every environment: seeded S + i, or the next episode. */
static int reset_all(trace *tr, const options *o)
{
	size_t n = (size_t)tr->n;
	uint8_t *mask = malloc(n);
	uint64_t *seed = calloc(n, sizeof *seed);
	int rc = 0;

	if (!mask || !seed) {
		rc = fail("out of memory for the reset");
		goto free_reset;
	}
	for (size_t i = 0; i < n; i++) {
		mask[i] = o->seeded ? WEFT_ENV_SEEDED : WEFT_ENV_NEXT;
		seed[i] = o->reset_seed + i;
	}
	if ((rc = write_view(tr->ctx, tr->sim, &tr->mask, mask)) ||
	    (rc = write_view(tr->ctx, tr->sim, &tr->seed, seed)) ||
	    (rc = launch(tr->ctx, tr->sim, "reset_some")))
		goto free_reset;
	if (weft_sim_sync(tr->sim))
		rc = fail_weft(tr->ctx, "reset_some");
free_reset:
	free(mask);
	free(seed);
	return rc;
}

/* Read field i's view into its buffer and append it to its file (the
 * state packed first where the model has a list for that). */
static int capture(trace *tr, int i)
{
	int rc;

	if (tr->pack_state && !strcmp(tr->fs[i].view, "state") &&
	    weft_sim_launch(tr->sim, tr->pack_list, 1))
		return fail_weft(tr->ctx, "list 'state' (packing the state)");
	rc = read_view(tr->ctx, tr->sim, &tr->fs[i].a, tr->buf[i]);
	return rc ? rc : record(&tr->fs[i], tr->buf[i]);
}

static int run_steps(trace *tr, const options *o)
{
	uint64_t rng = o->action_seed;
	int rc;

	if ((rc = capture(tr, F_RESET_OBS)) ||
	    (rc = capture(tr, F_RESET_STATE)))
		return rc;
	for (uint64_t t = 0; t < o->steps; t++) {
		field *act = &tr->fs[F_ACTIONS];

		draw_actions(&tr->space, act->a.dtype, (size_t)tr->n, &rng,
			     tr->buf[F_ACTIONS]);
		if ((rc = capture(tr, F_STATE_BEFORE)) ||
		    (rc = write_view(tr->ctx, tr->sim, &act->a,
				     tr->buf[F_ACTIONS])) ||
		    (rc = record(act, tr->buf[F_ACTIONS])) ||
		    (rc = launch(tr->ctx, tr->sim, "act")))
			return rc;
		if (weft_sim_sync(tr->sim)) {
			char what[64];

			snprintf(what, sizeof what, "act, step %" PRIu64, t);
			return fail_weft(tr->ctx, what);
		}
		for (int i = F_OBS; i <= F_STATE_AFTER; i++)
			if ((rc = capture(tr, i)))
				return rc;
	}
	return 0;
}

static void trace_free(trace *tr)
{
	fields_close(tr->fs);
	for (int i = 0; i < N_FIELDS; i++)
		free(tr->buf[i]);
	free(tr->space.low);
	free(tr->space.high);
	weft_sim_close(tr->sim);
	weft_config_free(tr->cfg);
	weft_context_free(tr->ctx);
}

int main(int argc, char **argv)
{
	const uint16_t one = 1;
	trace tr = { 0 };
	options o;
	int rc;

	if ((rc = parse_options(argc, argv, &o)))
		return rc;
	if (*(const uint8_t *)&one != 1)
		return fail("this host is big-endian: the trace's files are "
			    "little-endian");
	if (mkdir(o.out, 0777) && errno != EEXIST)
		return fail("--out %s: %s", o.out, strerror(errno));
	if ((rc = configure(&tr, &o)) || (rc = find_views(&tr, &o)) ||
	    (rc = fields_open(o.out, tr.fs)) || (rc = reset_all(&tr, &o)) ||
	    (rc = run_steps(&tr, &o)) || (rc = fields_close(tr.fs)) ||
	    (rc = write_meta(&o, &tr)))
		goto free_trace;
	printf("env-trace: %s, %" PRId64 " environments, %" PRIu64
	       " steps, actions %s, into %s\n",
	       weft_sim_model(tr.sim), tr.n, o.steps, tr.space.desc, o.out);
free_trace:
	trace_free(&tr);
	return rc;
}
