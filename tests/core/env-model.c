/*
 * tests/core/env-model.c - a small environment model (weft/env.h) for the
 * core's tests of the protocol (tests/core/test-env.c, test-env-cli.sh),
 * built only by `make check`. One source, compiled once per plugin; the
 * -D flags in tests/core/env.am choose what each copy is called and how
 * it is broken ($WEFT_EM_SPACES, read by setup(), breaks the spaces of
 * any copy: low_above_high, discrete_f32, box_no_dims, unknown_kind,
 * twice; $WEFT_EM_VIEWS breaks its call of weft_model_env_views:
 * before_spaces, null_book, outside, overlap; $WEFT_EM_INFO its info
 * field: missing, protocol, mask, twice, rows, elsewhere, too_many,
 * over_obs):
 *
 *   EM_ID      the NAME of its file weft-model-NAME.so (required)
 *   EM_BREAK   0: intact; else one of the EM_* below
 *
 * Intact, it declares everything the protocol asks for with
 * weft_model_env_views (what act writes in one buffer), with an
 * observation Box f32 [4] and a Discrete(2) action (i32), and one info
 * field, "lives" (i32 [n], in io after final_obs); its finish()
 * reports the bookkeeping setup() uploaded (environment i: i + 1
 * episodes ended, returns summed 1.25 i + 0.25) with
 * weft_model_env_summary. Its lists count steps with the loader tests'
 * kernel (tests/models/broken-model.wk): the core checks only that the
 * views and lists exist, with their dtypes and shapes. Its ids:
 * EnvGood-v0 (reward threshold 150.5) and "Envtest/NAME-v1" (none).
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weft/model.h>

#include "bm_kernels.h"

#define EM_NO_SPACES  1	 /* setup() never calls weft_model_env_spaces */
#define EM_NO_VIEW    2	 /* no view final_obs */
#define EM_DTYPE      3	 /* terminated is u32 */
#define EM_SHAPE      4	 /* obs is [n, 3] */
#define EM_NO_LIST    5	 /* no list reset_some */
#define EM_BAD_ID     6	 /* an id with a space and no version */
#define EM_DUP_ID     7	 /* one id twice */
#define EM_AUTORESET  8	 /* the autoreset key lacks "disabled" */
#define EM_COUNT_REAL 9	 /* the count key is REAL */
#define EM_THRESHOLD  10 /* EnvGood-v0's reward threshold is infinite */
#define EM_OLD_ENV                                       \
	11 /* built as for model ABI 1.8: its env struct \
	    * ends before reward_thresholds */

#ifndef EM_BREAK
#define EM_BREAK 0
#endif

static const weft_key_desc em_keys[] = {
	{ "envs", EM_BREAK == EM_COUNT_REAL ? WEFT_KEY_REAL : WEFT_KEY_INT, "4",
	  1, 1024, NULL, "number of environments" },
	{ "autoreset", WEFT_KEY_ENUM, "next_step", 0, 0,
	  EM_BREAK == EM_AUTORESET ? "next_step|same_step"
				   : WEFT_AUTORESET_CHOICES,
	  "when an ended episode begins again" },
	{ "precision", WEFT_KEY_ENUM, "f32", 0, 0, "f32|f64",
	  "the precision of the dynamics" },
};

static const weft_env_id em_ids[] = {
	{ EM_BREAK == EM_BAD_ID ? "Env Good" : "EnvGood-v0", NULL,
	  "a test environment", 200 },
	{ EM_BREAK == EM_DUP_ID ? "EnvGood-v0" : "Envtest/" EM_ID "-v1",
	  EM_ID ".precision=f64\n" EM_ID ".envs=2", "the same, in f64", 0 },
};

/* EnvGood-v0 counts as solved at 150.5, the other has no threshold. A
 * model built for 1.8 has no reward_thresholds: struct_size stops before
 * it, and the loader must not read what lies there. */
static const double em_thresholds[] = { EM_BREAK == EM_THRESHOLD ? INFINITY
								 : 150.5,
					NAN };

static const weft_env_model em_env = {
	.struct_size = EM_BREAK == EM_OLD_ENV
			       ? offsetof(weft_env_model, reward_thresholds)
			       : sizeof(weft_env_model),
	.count_key = "envs",
	.autoreset_key = "autoreset",
	.precision_key = "precision",
	.ids = em_ids,
	.n_ids = 2,
	.reward_thresholds = em_thresholds,
};

typedef struct em_state {
	weft_buf *add, *count, *io, *act, *mask, *seed, *book;
} em_state;

/* Byte offsets in the io buffer, each view 8-aligned, for n
 * environments: what act writes. */
enum { EM_OBS, EM_REWARD, EM_TERM, EM_TRUNC, EM_FINAL, EM_INFO, EM_VIEWS };

static size_t em_layout(size_t n, size_t off[EM_VIEWS])
{
	static const size_t bytes[EM_VIEWS] = { 16, 4, 4, 1, 16, 4 };
	size_t at = 0;

	for (int v = 0; v < EM_VIEWS; v++) {
		off[v] = at;
		at += (bytes[v] * n + 7) / 8 * 8;
	}
	return at;
}

static weft_status em_spaces(weft_model_ctx *mc)
{
	static const double low[4] = { -4.8, -1e30, -0.42, -1e30 };
	static const double high[4] = { 4.8, 1e30, 0.42, 1e30 };
	weft_env_space obs = { .struct_size = sizeof obs,
			       .kind = WEFT_SPACE_BOX,
			       .dtype = WEFT_DTYPE_F32,
			       .ndim = 1,
			       .shape = { 4 },
			       .low = low,
			       .high = high };
	weft_env_space act = { .struct_size = sizeof act,
			       .kind = WEFT_SPACE_DISCRETE,
			       .dtype = WEFT_DTYPE_I32,
			       .n = 2 };

	const char *bad = getenv("WEFT_EM_SPACES");
	static const double inverted[4] = { 0, 0, 1, 0 };
	weft_status st;

	if (EM_BREAK == EM_NO_SPACES)
		return WEFT_OK;
	/* $WEFT_EM_SPACES breaks the spaces of any copy (test-env.c). */
	if (bad && strcmp(bad, "low_above_high") == 0)
		obs.low = inverted;
	if (bad && strcmp(bad, "discrete_f32") == 0)
		act.dtype = WEFT_DTYPE_F32;
	if (bad && strcmp(bad, "box_no_dims") == 0)
		obs.ndim = 0;
	if (bad && strcmp(bad, "unknown_kind") == 0)
		act.kind = 7;
	st = weft_model_env_spaces(mc, &obs, &act);
	if (st == WEFT_OK && bad && strcmp(bad, "twice") == 0)
		st = weft_model_env_spaces(mc, &obs, &act);
	return st;
}

/* The copies that break the views (and em_nospaces, which cannot call
 * weft_model_env_views) declare the first four by hand, one of them
 * wrong (em_shape, em_dtype), and stop before final_obs (em_noview):
 * the core's check after setup() refuses them. */
static weft_status em_views_by_hand(weft_model_ctx *mc, em_state *s, int64_t n,
				    const size_t off[EM_VIEWS])
{
	int64_t vec[2] = { n, EM_BREAK == EM_SHAPE ? 3 : 4 }, one[1] = { n };
	weft_status st;

	if ((st = weft_model_array(mc, "obs", s->io, off[EM_OBS],
				   WEFT_DTYPE_F32, 2, vec)) ||
	    (st = weft_model_array(mc, "reward", s->io, off[EM_REWARD],
				   WEFT_DTYPE_F32, 1, one)) ||
	    (st = weft_model_array(mc, "terminated", s->io, off[EM_TERM],
				   EM_BREAK == EM_DTYPE ? WEFT_DTYPE_U32
							: WEFT_DTYPE_U8,
				   1, one)))
		return st;
	return weft_model_array(mc, "truncated", s->io, off[EM_TRUNC],
				WEFT_DTYPE_U8, 1, one);
}

static weft_status em_views(weft_model_ctx *mc, em_state *s, int64_t n)
{
	const char *bad = getenv("WEFT_EM_VIEWS");
	size_t off[EM_VIEWS], bytes = em_layout((size_t)n, off);
	weft_env_views v = {
		.struct_size = sizeof v,
		.reward_dtype = WEFT_DTYPE_F32,
		.io = s->io,
		.obs = off[EM_OBS],
		.reward = off[EM_REWARD],
		.terminated = off[EM_TERM],
		.truncated = off[EM_TRUNC],
		.final_obs = off[EM_FINAL],
		.actions = s->act,
		.reset_mask = s->mask,
		.reset_seed = s->seed,
		.env_book = s->book,
	};

	if (EM_BREAK == EM_NO_SPACES || EM_BREAK == EM_NO_VIEW ||
	    EM_BREAK == EM_DTYPE || EM_BREAK == EM_SHAPE)
		return em_views_by_hand(mc, s, n, off);
	/* $WEFT_EM_VIEWS breaks the call of any copy (test-env.c). */
	if (bad && strcmp(bad, "null_book") == 0)
		v.env_book = NULL;
	if (bad && strcmp(bad, "outside") == 0)
		v.final_obs = bytes;
	if (bad && strcmp(bad, "overlap") == 0)
		v.reward = off[EM_OBS] + 4u; /* over obs, aligned */
	return weft_model_env_views(mc, &v);
}

/* The info field "lives", i32 [n] in io; $WEFT_EM_INFO breaks it. */
static weft_status em_info(weft_model_ctx *mc, em_state *s, int64_t n)
{
	const char *bad = getenv("WEFT_EM_INFO");
	size_t off[EM_VIEWS];
	int64_t rows = bad && strcmp(bad, "rows") == 0 ? n + 1 : n;
	weft_buf *in = bad && strcmp(bad, "elsewhere") == 0 ? s->count : s->io;
	weft_status st;
	char name[16];

	em_layout((size_t)n, off);
	if (bad && (strcmp(bad, "rows") == 0 || strcmp(bad, "over_obs") == 0))
		off[EM_INFO] = 0; /* [n + 1] fits there, over obs */
	if (bad && strcmp(bad, "missing") == 0)
		return weft_model_env_info(mc, "lives");
	if (bad && strcmp(bad, "protocol") == 0)
		return weft_model_env_info(mc, "reward");
	if (bad && strcmp(bad, "mask") == 0)
		return weft_model_array(mc, "_lives", s->io, off[EM_INFO],
					WEFT_DTYPE_I32, 1, &n)
			       ? WEFT_E_MODEL
			       : weft_model_env_info(mc, "_lives");
	if ((st = weft_model_array(mc, "lives", in,
				   in == s->io ? off[EM_INFO] : 0,
				   WEFT_DTYPE_I32, 1, &rows)) ||
	    (st = weft_model_env_info(mc, "lives")))
		return st;
	if (bad && strcmp(bad, "twice") == 0)
		return weft_model_env_info(mc, "lives");
	for (int k = 0;
	     bad && strcmp(bad, "too_many") == 0 && k < WEFT_ENV_MAX_INFO;
	     k++) {
		snprintf(name, sizeof name, "more%d", k);
		if ((st = weft_model_array(mc, name, s->io, off[EM_INFO],
					   WEFT_DTYPE_I32, 1, &n)) ||
		    (st = weft_model_env_info(mc, name)))
			return st;
	}
	return WEFT_OK;
}

/* The bookkeeping (weft/env.wk), as finish() reports it: environment i
 * ended i + 1 episodes, their returns summed 1.25 i + 0.25 (f32 bits). */
static weft_status em_book(weft_model_ctx *mc, em_state *s, int64_t n)
{
	size_t bytes = (size_t)WEFT_ENV_WORDS * 4u * (size_t)n;
	uint32_t *book = calloc(1, bytes);
	weft_status st;

	if (!book)
		return weft_model_fail(mc, WEFT_E_NOMEM, "out of memory");
	for (int64_t i = 0; i < n; i++) {
		float f = 1.25f * (float)i + 0.25f;

		book[WEFT_ENV_ENDED * n + i] = (uint32_t)i + 1u;
		memcpy(&book[WEFT_ENV_SUM * n + i], &f, sizeof f);
	}
	st = weft_model_upload(mc, s->book, 0, book, bytes);
	free(book);
	return st;
}

static weft_status em_alloc(weft_model_ctx *mc, em_state *s, size_t n)
{
	size_t off[EM_VIEWS];
	weft_status st;

	if ((st = weft_model_alloc(mc, "add", 4, &s->add)) ||
	    (st = weft_model_alloc(mc, "count", 4 * n, &s->count)) ||
	    (st = weft_model_alloc(mc, "io", em_layout(n, off), &s->io)) ||
	    (st = weft_model_alloc(mc, "actions", 4 * n, &s->act)) ||
	    (st = weft_model_alloc(mc, "mask", n, &s->mask)) ||
	    (st = weft_model_alloc(mc, "seed", 8 * n, &s->seed)))
		return st;
	return weft_model_alloc(mc, "env_book", WEFT_ENV_WORDS * 4u * n,
				&s->book);
}

static weft_status em_setup(weft_model_ctx *mc, void **out)
{
	em_state *s = calloc(1, sizeof *s);
	int64_t n = weft_model_int(mc, "envs");
	const char *bad = getenv("WEFT_EM_VIEWS");
	int early = bad && strcmp(bad, "before_spaces") == 0;
	uint32_t one = 1;
	weft_launch l;
	weft_status st;

	if (!s)
		return weft_model_fail(mc, WEFT_E_NOMEM, "out of memory");
	*out = s;
	if ((st = em_alloc(mc, s, (size_t)n)) ||
	    (st = weft_model_upload(mc, s->add, 0, &one, 4)) ||
	    (st = em_book(mc, s, n)))
		return st;
	l = bm_tick_launch((bm_tick_bufs){ .add = s->add, .count = s->count },
			   (uint32_t)n);
	if ((st = weft_model_set_step(mc, &l, 1)) ||
	    (st = weft_model_add_list(mc, "act", &l, 1)) ||
	    (EM_BREAK != EM_NO_LIST &&
	     (st = weft_model_add_list(mc, "reset_some", &l, 1))) ||
	    (early && (st = em_views(mc, s, n))) || (st = em_spaces(mc)) ||
	    (st = em_views(mc, s, n)))
		return st;
	return EM_BREAK == 0 ? em_info(mc, s, n) : WEFT_OK;
}

static weft_status em_finish(weft_model_ctx *mc, void *state)
{
	em_state *s = state;

	return weft_model_env_summary(mc, s->book);
}

static void em_teardown(weft_model_ctx *mc, void *state)
{
	em_state *s = state;

	if (!s)
		return;
	weft_model_free(mc, s->add);
	weft_model_free(mc, s->count);
	weft_model_free(mc, s->io);
	weft_model_free(mc, s->act);
	weft_model_free(mc, s->mask);
	weft_model_free(mc, s->seed);
	weft_model_free(mc, s->book);
	free(s);
}

WEFT_MODEL_ENTRY = {
	.abi_major = WEFT_MODEL_ABI_MAJOR,
	.abi_minor = EM_BREAK == EM_OLD_ENV ? 8 : WEFT_MODEL_ABI_MINOR,
	.struct_size = sizeof(weft_model),
	.name = EM_ID,
	.version = "0",
	.summary = "an environment model for the protocol's tests",
	.keys = em_keys,
	.n_keys = sizeof em_keys / sizeof em_keys[0],
	.program = &bm_program,
	.sigs = bm_sigs,
	.setup = em_setup,
	.finish = em_finish,
	.teardown = em_teardown,
	.env = &em_env,
};
