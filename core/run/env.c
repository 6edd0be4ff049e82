/*
 * core/run/env.c - the environment protocol (weft/env.h) in a run: after
 * an environment model's setup(), the check that it declared its spaces
 * and the protocol's views and lists with the dtypes and shapes the
 * protocol gives them; and weft_sim_env(), what the run declared, for
 * applications. The spaces themselves are declared through
 * weft_model_env_spaces() (model_api.c); the descriptor's env is checked
 * by the loader (plugin/models.c).
 */
#include "run/sim.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The model's env descriptor (ABI 1.5), or NULL. */
static const weft_env_model *weft__env_of(const weft_model *m)
{
	return m->struct_size >= WEFT_MODEL_V1_5_SIZE ? m->env : NULL;
}

/* "f32", "u8", ... */
static const char *weft__dtype_name(uint32_t t)
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
	}
	return "an unknown dtype";
}

/* "[8, 4]" into buf. */
static void weft__shape_text(char *buf, size_t size, uint32_t ndim,
			     const int64_t *shape)
{
	weft__fmt(buf, size, "[");
	for (uint32_t d = 0; d < ndim; d++)
		weft__msg_add(buf, size, "%s%" PRId64, d ? ", " : "", shape[d]);
	weft__msg_add(buf, size, "]");
}

/* The protocol's views that weft__sim_env_check() checks. */
#define WEFT__ENV_VIEWS 8

/* What a protocol view must be: one dtype (or f32 and f64 both, for
 * the reward: dtype2), ndim dimensions of shape. */
typedef struct weft__env_view {
	const char *name;
	uint32_t dtype, dtype2;
	uint32_t ndim;
	int64_t shape[WEFT_ARRAY_MAX_DIMS];
} weft__env_view;

/* [n] followed by the space's shape (nothing for Discrete). */
static void weft__env_view_shape(weft__env_view *v, const char *name, int64_t n,
				 const weft_env_space *s)
{
	memset(v, 0, sizeof *v);
	v->name = name;
	v->dtype = v->dtype2 = s->dtype;
	v->shape[0] = n;
	v->ndim = 1;
	if (s->kind == WEFT_SPACE_BOX)
		for (uint32_t d = 0; d < s->ndim; d++)
			v->shape[v->ndim++] = s->shape[d];
}

static void weft__env_view_flat(weft__env_view *v, const char *name, int64_t n,
				uint32_t dtype, uint32_t dtype2)
{
	memset(v, 0, sizeof *v);
	v->name = name;
	v->dtype = dtype;
	v->dtype2 = dtype2;
	v->ndim = 1;
	v->shape[0] = n;
}

static const weft__sim_array *weft__env_array(const weft_sim *sim,
					      const char *name)
{
	long k = weft__sim_array_index(sim, name);

	return k >= 0 ? &sim->arrays[k] : NULL;
}

/* The view the model declared under v's name is v. */
static weft_status weft__env_check_view(weft_sim *sim, const weft__env_view *v)
{
	const weft__sim_array *a = weft__env_array(sim, v->name);
	char want[160], got[96], dt[16];

	weft__shape_text(got, sizeof got, v->ndim, v->shape);
	if (v->dtype2 != v->dtype)
		weft__fmt(dt, sizeof dt, "%s or %s", weft__dtype_name(v->dtype),
			  weft__dtype_name(v->dtype2));
	else
		weft__fmt(dt, sizeof dt, "%s", weft__dtype_name(v->dtype));
	weft__fmt(want, sizeof want, "%s %s", dt, got);
	if (!a)
		return weft__model_fail(&sim->mc, WEFT_E_MODEL,
					"the environment protocol's view "
					"'%s' is missing: expected %s "
					"(weft_model_array in setup())",
					v->name, want);
	if ((a->dtype == v->dtype || a->dtype == v->dtype2) &&
	    a->ndim == v->ndim &&
	    memcmp(a->shape, v->shape, v->ndim * sizeof *v->shape) == 0)
		return WEFT_OK;
	weft__shape_text(got, sizeof got, a->ndim, a->shape);
	return weft__model_fail(&sim->mc, WEFT_E_MODEL,
				"the environment protocol's view '%s' is "
				"%s %s, expected %s",
				v->name, weft__dtype_name(a->dtype), got, want);
}

/* Every info field lies in the buffer of obs (what act writes, read in
 * one go). */
static weft_status weft__env_check_info(weft_sim *sim)
{
	const weft__sim_array *obs = weft__env_array(sim, "obs");

	for (uint32_t i = 0; i < sim->n_env_info; i++) {
		const weft__sim_array *a = &sim->arrays[sim->env_info[i]];

		if (a->b != obs->b)
			return weft__model_fail(
				&sim->mc, WEFT_E_MODEL,
				"the info field '%s' lies outside the buffer "
				"of obs: an environment's results (obs, "
				"reward, ..., its info fields) are one "
				"buffer's, read in one go",
				a->name);
	}
	return WEFT_OK;
}

/* The bytes view a spans in its buffer. */
static size_t weft__env_bytes(const weft__sim_array *a)
{
	size_t bytes = WEFT_DTYPE_BYTES(a->dtype);

	for (uint32_t d = 0; d < a->ndim; d++)
		bytes *= (size_t)a->shape[d];
	return bytes;
}

/* No two of the protocol's views, info fields included, share a byte:
 * each is written on its own (reward over obs would be read back as
 * observations). v: the protocol's views, already checked to exist. */
static weft_status weft__env_check_apart(weft_sim *sim, const weft__env_view *v)
{
	const weft__sim_array *a[WEFT__ENV_VIEWS + WEFT_ENV_MAX_INFO];
	size_t n = 0;

	for (size_t i = 0; i < WEFT__ENV_VIEWS; i++)
		a[n++] = weft__env_array(sim, v[i].name);
	for (uint32_t i = 0; i < sim->n_env_info; i++)
		a[n++] = &sim->arrays[sim->env_info[i]];
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			size_t i0 = a[i]->offset,
			       i1 = i0 + weft__env_bytes(a[i]);
			size_t j0 = a[j]->offset,
			       j1 = j0 + weft__env_bytes(a[j]);

			if (a[i]->b != a[j]->b || i1 <= j0 || j1 <= i0)
				continue;
			return weft__model_fail(
				&sim->mc, WEFT_E_MODEL,
				"the environment protocol's views '%s' (bytes "
				"%zu to %zu of buffer '%s') and '%s' (bytes "
				"%zu to %zu) overlap: each needs bytes of its "
				"own (their offsets in weft_model_array or "
				"weft_env_views, or a dtype that made one "
				"larger)",
				a[i]->name, i0, i1, a[i]->b->name, a[j]->name,
				j0, j1);
		}
	return WEFT_OK;
}

weft_status weft__sim_env_check(weft_sim *sim)
{
	static const char *const lists[] = { "act", "reset_some" };
	const weft_env_model *env = weft__env_of(sim->model);
	weft__env_view v[WEFT__ENV_VIEWS];
	int64_t n;
	weft_status st;

	if (!env)
		return WEFT_OK;
	if (!sim->has_env_spaces)
		return weft__model_fail(&sim->mc, WEFT_E_MODEL,
					"an environment model must call "
					"weft_model_env_spaces() in setup()");
	n = weft__config_int(sim->cfg, sim->model->name, env->count_key);
	weft__env_view_shape(&v[0], "obs", n, &sim->env_obs);
	weft__env_view_flat(&v[1], "reward", n, WEFT_DTYPE_F32, WEFT_DTYPE_F64);
	weft__env_view_flat(&v[2], "terminated", n, WEFT_DTYPE_U8,
			    WEFT_DTYPE_U8);
	weft__env_view_flat(&v[3], "truncated", n, WEFT_DTYPE_U8,
			    WEFT_DTYPE_U8);
	weft__env_view_shape(&v[4], "final_obs", n, &sim->env_obs);
	weft__env_view_shape(&v[5], "actions", n, &sim->env_act);
	weft__env_view_flat(&v[6], "reset_mask", n, WEFT_DTYPE_U8,
			    WEFT_DTYPE_U8);
	weft__env_view_flat(&v[7], "reset_seed", n, WEFT_DTYPE_U64,
			    WEFT_DTYPE_U64);
	for (size_t i = 0; i < sizeof v / sizeof *v; i++)
		if ((st = weft__env_check_view(sim, &v[i])))
			return st;
	if ((st = weft__env_check_info(sim)))
		return st;
	if ((st = weft__env_check_apart(sim, v)))
		return st;
	for (size_t i = 0; i < sizeof lists / sizeof *lists; i++)
		if (weft__sim_list_find(sim, lists[i]) < 0)
			return weft__model_fail(&sim->mc, WEFT_E_MODEL,
						"the environment protocol's "
						"launch list '%s' is missing "
						"(weft_model_add_list in "
						"setup())",
						lists[i]);
	return WEFT_OK;
}

/* The index of value among the '|'-separated choices, or -1. */
static int weft__choice_index(const char *choices, const char *value)
{
	size_t len = strlen(value);
	int i = 0;

	for (const char *s = choices; *s; i++) {
		size_t n = strcspn(s, "|");

		if (n == len && strncmp(s, value, n) == 0)
			return i;
		s += n + (s[n] == '|');
	}
	return -1;
}

weft_status weft_sim_env(const weft_sim *sim, weft_env_info *out)
{
	const weft_env_model *env;
	weft_env_info full;
	const char *mode, *prec;
	int64_t n;
	int i;

	if (!sim || !out || out->struct_size < sizeof(uint32_t))
		return WEFT_E_INVALID;
	env = weft__env_of(sim->model);
	if (!env || !sim->has_env_spaces)
		return weft__fail(sim->ctx, WEFT_E_INVALID,
				  "weft_sim_env: model %s is not an "
				  "environment model (its descriptor has no "
				  "env, weft/env.h)",
				  sim->model->name);
	memset(&full, 0, sizeof full);
	n = weft__config_int(sim->cfg, sim->model->name, env->count_key);
	mode = weft__config_str(sim->cfg, sim->model->name, env->autoreset_key);
	prec = env->precision_key ? weft__config_str(sim->cfg, sim->model->name,
						     env->precision_key)
				  : "f32";
	i = weft__choice_index(WEFT_AUTORESET_CHOICES, mode);
	full.num_envs = n > 0 && n <= UINT32_MAX ? (uint32_t)n : 0;
	full.autoreset = i >= 0 ? (uint32_t)i : WEFT_AUTORESET_NEXT_STEP;
	full.precision = strcmp(prec, "f64") == 0 ? 64 : 32;
	full.observation = sim->env_obs;
	full.action = sim->env_act;
	full.n_info = sim->n_env_info;
	for (uint32_t k = 0; k < sim->n_env_info; k++)
		full.info[k] = sim->arrays[sim->env_info[k]].name;
	full.struct_size = out->struct_size < sizeof full
				   ? out->struct_size
				   : (uint32_t)sizeof full;
	memcpy(out, &full, full.struct_size);
	return WEFT_OK;
}
