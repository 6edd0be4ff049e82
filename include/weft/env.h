/*
 * weft/env.h - the environment protocol: what a model declares to be a
 * batch of reinforcement-learning environments that any application (the
 * Python package's weft.envs.make, Gymnasium's make_vec, a C program)
 * drives the same way, with no code of its own for that model.
 *
 * A model is an environment model when its descriptor has `env` (model
 * ABI 1.5, weft/model.h): the ids it serves (Gymnasium's, "Acrobot-v1"),
 * each with the settings that select it, and three of its keys: the
 * number of environments, the autoreset mode and, optionally, the
 * precision. Its setup() then declares the two spaces
 * (weft_model_env_spaces) and, by the protocol's names, these views
 * (weft_model_array) and launch lists (weft_model_add_list); the core
 * checks every one of them after setup() and refuses the run with a
 * message naming what is missing or mis-shaped. With n environments, O
 * the observation's shape and A the action's (() for Discrete):
 *
 *   view        dtype               shape     written by
 *   obs         observation's       [n, O]    act, reset_some
 *   reward      f32 or f64          [n]       act (reset_some: 0)
 *   terminated  u8 (0 or 1)         [n]       act (reset_some: 0)
 *   truncated   u8 (0 or 1)         [n]       act (reset_some: 0)
 *   final_obs   observation's       [n, O]    act, SAME_STEP: the last
 *                                             observation of an episode
 *                                             that ended in this step
 *   actions     action's            [n, A]    the application
 *   reset_mask  u8                  [n]       the application
 *   reset_seed  u64                 [n]       the application
 *
 * and, optionally, its info fields: views of its own, [n] or [n, ...]
 * of any dtype, in the buffer of obs, that act writes (and reset_some,
 * for the environments it resets), declared with weft_model_array and
 * named with weft_model_env_info: Gymnasium's info[name] of every step
 * and reset (where SAME_STEP began a new episode, the view keeps the
 * ended step's values, which an application gives in final_info).
 *
 *   list        what it does, for every environment i
 *   act         one step with actions[i], autoreset as the mode says
 *               (weft_autoreset below; the dialect's helpers for it are
 *               in weft/env.wk)
 *   reset_some  reset_mask[i] = WEFT_ENV_KEEP: nothing, its observation
 *               stays; WEFT_ENV_NEXT: a new episode, the next of its own
 *               sequence; WEFT_ENV_SEEDED: a new episode drawn from
 *               reset_seed[i] alone (its sequence restarts there, so
 *               that episodes depend on the seed, not on i). A reset
 *               environment has reward 0, terminated and truncated 0
 *               and no autoreset pending.
 *
 * Everything the act list writes should lie in one buffer, in one span
 * (obs, reward, terminated, truncated, final_obs), so that a device
 * backend brings a step's results back in one read; on a host backend
 * the application reads them where they are. Environment i's draws come
 * from its own key and episode number (weft/env.wk), never from thread
 * timing: every backend and thread count gives the same bits.
 *
 * Applications find environment models with weft_env_list_scan() and
 * a run's spaces with weft_sim_env() (weft/weft.h).
 */
#ifndef WEFT_ENV_H
#define WEFT_ENV_H

#include <weft/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What reset_some does for environment i (reset_mask[i]). */
#define WEFT_ENV_KEEP	0u
#define WEFT_ENV_NEXT	1u
#define WEFT_ENV_SEEDED 2u

/* The bookkeeping buffer of weft/env.wk (view "env_book", u32
 * [WEFT_ENV_WORDS, n]: word w of environment i at w * n + i), as host
 * code reads it: WEFT_ENV_ENDED counts the episodes ended, WEFT_ENV_SUM
 * holds their returns summed (f32 bits). The same values as env.wk's:
 * both must agree (tests/core/test-env.c compares them). */
#define WEFT_ENV_ENDED 8u
#define WEFT_ENV_SUM   9u
#define WEFT_ENV_WORDS 10u

/* Autoreset modes, as Gymnasium 1.x's AutoresetMode names them; the
 * model's autoreset key takes them as next_step|same_step|disabled.
 *   NEXT_STEP  an episode that ends in step t reports its last
 *              observation there; step t + 1 ignores that
 *              environment's action and begins its next episode
 *              (reward 0, terminated and truncated 0).
 *   SAME_STEP  an episode that ends in step t begins its next one in
 *              the same step: obs is the new episode's first
 *              observation, final_obs the ended one's last.
 *   DISABLED   nothing is reset by act: the application resets ended
 *              environments through reset_some. */
typedef enum weft_autoreset {
	WEFT_AUTORESET_NEXT_STEP = 0,
	WEFT_AUTORESET_SAME_STEP = 1,
	WEFT_AUTORESET_DISABLED = 2
} weft_autoreset;

#define WEFT_AUTORESET_CHOICES "next_step|same_step|disabled"

typedef enum weft_space_kind {
	WEFT_SPACE_BOX = 1,	/* Gymnasium's Box: bounded reals or ints */
	WEFT_SPACE_DISCRETE = 2 /* Discrete(n, start): one integer */
} weft_space_kind;

#define WEFT_ENV_MAX_DIMS 3

/* The most info fields (weft_model_env_info) an environment model
 * declares. */
#define WEFT_ENV_MAX_INFO 8

/* One environment's observation or action space. Grows only by appending
 * fields; the core reads those that struct_size covers. */
typedef struct weft_env_space {
	uint32_t struct_size; /* sizeof(weft_env_space) */
	uint32_t kind;	      /* a weft_space_kind */
	uint32_t dtype;	      /* a weft_dtype: the element type */
	uint32_t ndim;	      /* 0 for Discrete (a scalar) */
	int64_t shape[WEFT_ENV_MAX_DIMS];
	/* Box: the bounds, one per element in C order, or NULL for -inf
	 * (low) or +inf (high) everywhere. Copied by
	 * weft_model_env_spaces(). */
	const double *low, *high;
	/* Discrete: the values start, start + 1, ..., start + n - 1. */
	int64_t n, start;
} weft_env_space;

/* One environment id a model serves. */
typedef struct weft_env_id {
	/* Gymnasium's id, [A-Za-z0-9_./-]+ with a version, "Acrobot-v1",
	 * "MinAtar/Breakout-v1"; unique among installed models. */
	const char *id;
	/* '\n'-separated section.key=value settings that select it
	 * ("mountain_car.continuous=true"), or NULL. */
	const char *sets;
	const char *summary; /* one line for `weft envs` */
	/* Gymnasium's max_episode_steps for the id (its truncation), 0 for
	 * none: documentation for applications; the model applies it
	 * through its own keys and sets. */
	uint32_t max_episode_steps;
} weft_env_id;

/* The descriptor's `env` (model ABI 1.5). The loader checks that the
 * keys exist in the model's section with these types: count_key INT
 * (the number of environments), autoreset_key ENUM with exactly
 * WEFT_AUTORESET_CHOICES, precision_key ENUM with choices "f32|f64" (or
 * NULL for a model with one precision); ids valid and unique;
 * reward_thresholds (1.9), when set, none infinite. Grows only by
 * appending fields. */
typedef struct weft_env_model {
	uint32_t struct_size; /* sizeof(weft_env_model) */
	const char *count_key;
	const char *autoreset_key;
	const char *precision_key;
	const weft_env_id *ids;
	uint32_t n_ids;
	/* Model ABI 1.9 (read where struct_size covers it): Gymnasium's
	 * reward_threshold of each id, the mean return at which it counts
	 * as solved (CartPole-v1: 475), n_ids values in the order of ids,
	 * NAN (<math.h>) for an id without one (Pendulum-v1's None); or NULL
	 * for none at all. Documentation for applications, as
	 * max_episode_steps. An array beside ids, not a field of
	 * weft_env_id: ids is an array, whose elements cannot grow without
	 * moving those after them for a weft built before. */
	const double *reward_thresholds;
} weft_env_model;

/* weft_env_model's first published layout (model ABI 1.5), and the 1.9
 * one, which appended reward_thresholds. */
#define WEFT_ENV_MODEL_V1_5_SIZE \
	(offsetof(weft_env_model, n_ids) + sizeof(uint32_t))
#define WEFT_ENV_MODEL_V1_9_SIZE \
	(offsetof(weft_env_model, reward_thresholds) + sizeof(const double *))

#ifdef __cplusplus
}
#endif

#endif /* WEFT_ENV_H */
