#!/usr/bin/env python3
"""bench/minatar-compare.py - weft's MinAtar model step by step against
gymnax's (gymnax.environments.minatar), from the same states with the same
actions: Breakout, Asterix, Freeway and Space Invaders (--game).

tests/models/minatar-drive (trace mode) runs weft's model with uniformly
random actions, autoreset disabled and ended environments reset through
reset_some, and writes one record per environment step: the state before
(weft's `state` view row and the bookkeeping's time), the action, the
observation, reward and flags after, and the state after; and one record
per reset (the first state). This script builds gymnax's EnvState from
each state before, steps it with gymnax's step_env (vmapped over every
record at once) and counts the records whose observation, reward,
terminated, truncated and next state are identical; each reset must be
one of gymnax's two first states.

Sticky actions: gymnax has none. With --sticky 0 (the default) weft
applies the action given; with --sticky P > 0 weft repeats its last
action with probability P from its own counter-based draws, which no
other implementation reproduces; the comparison then replays the action
weft applied (byte 8 of its state after the step) and reports how often
it differed from the one given (expected P * 2/3).

Random decisions (Asterix's spawns, Freeway's car speeds and
directions): weft draws them from its own counter-based stream; the
comparison gives gymnax the same outcomes by replacing, while gymnax's
step is traced, the jax.random functions its module calls (split,
choice, randint, permutation) with ones that return weft's outcomes,
carried in the `key` argument of step_env (one row per record): Asterix's
lr and gold, and a permutation whose second entry is weft's slot (gymnax
takes the first free slot of a random permutation, skipping its first
entry); Freeway's new speeds and directions (read from weft's cars after
the step). The rest of gymnax's step runs unchanged.

Usage: minatar-compare.py --drive PATH [--game G] [--envs N] [--steps T]
       [--seed S] [--sticky P] [--max-steps M] [--backend NAME]
       [--min-episodes E] [--policy random|track|follow] [--no-ramping]
Exit status 0 when every compared record is identical (and at least E
episodes ended), 1 otherwise, 77 when gymnax or jax cannot be imported.
"""
import argparse
import os
import subprocess
import sys
import tempfile

STATE = 128
OBS = 400
CHANNELS = {"breakout": 4, "asterix": 4, "freeway": 7, "space_invaders": 6,
            "seaquest": 10}
MAX_STEPS = {"breakout": 1000, "asterix": 1000, "freeway": 2500,
             "space_invaders": 1000, "seaquest": 1000}


def record_dtype(np, OBS=OBS):
    return np.dtype([
        ("s0", np.uint8, STATE), ("time", "<u4"), ("action", np.uint8),
        ("obs", np.uint8, OBS), ("reward", "<f4"), ("term", np.uint8),
        ("trunc", np.uint8), ("s1", np.uint8, STATE), ("reset", np.uint8),
    ])


def gymnax_version():
    try:
        from importlib.metadata import version
        return version("gymnax")
    except Exception:
        return "?"


def compare_breakout(a, np, jax, jnp, rec=None):
    """rec: the trace's records (record_dtype), or None: minatar-drive's,
    run here (python/tests/test_minatar_agreement.py passes its own)."""
    from gymnax.environments.minatar import breakout
    if rec is None:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "trace.bin")
            cmd = [a.drive, "trace", path, str(a.envs), str(a.steps),
                   str(a.seed), repr(a.sticky), str(a.max_steps), a.backend,
                   a.policy]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode:
                print("minatar-drive failed:", r.stderr.strip())
                return 1
            rec = np.fromfile(path, dtype=record_dtype(np))

    env = breakout.MinBreakout()
    params = env.default_params.replace(max_steps_in_episode=a.max_steps
                                        if a.max_steps else 2**30)

    def to_state(s, time):
        s = jnp.asarray(s, dtype=jnp.int32)
        return breakout.EnvState(
            ball_y=s[:, 1], ball_x=s[:, 0], ball_dir=s[:, 2], pos=s[:, 3],
            brick_map=s[:, 16:116].reshape(-1, 10, 10).astype(jnp.float32),
            strike=s[:, 4].astype(bool), last_y=s[:, 6], last_x=s[:, 5],
            time=jnp.asarray(time, dtype=jnp.int32),
            terminal=s[:, 7].astype(bool))

    def fields(st):
        return np.stack([np.asarray(st.ball_x), np.asarray(st.ball_y),
                         np.asarray(st.ball_dir), np.asarray(st.pos),
                         np.asarray(st.strike).astype(np.int32),
                         np.asarray(st.last_x), np.asarray(st.last_y),
                         np.asarray(st.terminal).astype(np.int32)],
                        axis=1), np.asarray(st.brick_map)

    # Resets: one of gymnax's two first states.
    resets = rec[rec["reset"] == 1]
    firsts = {}
    for k in range(64):
        _, st = env.reset_env(jax.random.PRNGKey(k), params)
        firsts[int(st.ball_x)] = st
        if len(firsts) == 2:
            break
    reset_ok = 0
    for side, st in firsts.items():
        sel = resets[resets["s0"][:, 0] == side]
        f, bricks = fields(jax.tree.map(lambda x: jnp.asarray(x)[None], st))
        w = to_state(sel["s0"], np.zeros(len(sel)))
        wf, wb = fields(w)
        same = (wf == f).all(1) & (wb == bricks).all((1, 2)) & \
               (sel["s0"][:, 8] == 0)
        reset_ok += int(same.sum())
    sides = (resets["s0"][:, 0] == 9).mean() if len(resets) else 0

    # Steps.
    steps = rec[rec["reset"] == 0]
    given = steps["action"].astype(np.int32)
    applied = steps["s1"][:, 8].astype(np.int32)
    action = applied if a.sticky > 0 else given
    st0 = to_state(steps["s0"], steps["time"])
    step = jax.jit(jax.vmap(lambda s, act: env.step_env(
        jax.random.PRNGKey(0), s, act, params), in_axes=(0, 0)))
    obs, st1, reward, term, _ = step(st0, jnp.asarray(action))
    trunc = np.asarray(env.is_truncated(st1, params))
    obs = np.asarray(obs).reshape(len(steps), OBS).astype(np.uint8)
    gf, gb = fields(st1)
    wf, wb = fields(to_state(steps["s1"], steps["time"] + 1))
    # A terminal state stepped again: not in these traces (disabled mode
    # resets every ended environment).
    same_obs = (obs == steps["obs"]).all(1)
    same_rew = np.asarray(reward) == steps["reward"]
    same_term = np.asarray(term).astype(np.uint8) == steps["term"]
    same_trunc = trunc.astype(np.uint8) == steps["trunc"]
    same_state = (gf == wf).all(1) & (gb == wb).all((1, 2))
    same = same_obs & same_rew & same_term & same_trunc & same_state
    episodes = int((steps["term"] | steps["trunc"]).sum())
    n = len(steps)

    def pct(m):
        return f"{100.0 * m.sum() / max(n, 1):.4f} % ({int(m.sum())}/{n})"

    print(f"weft MinAtar Breakout vs gymnax {gymnax_version()}: "
          f"{a.envs} envs x {a.steps} steps, seed {a.seed}, sticky "
          f"{a.sticky}, max_episode_steps {a.max_steps}, backend "
          f"{a.backend}, policy {a.policy}")
    print(f"  episodes ended         {episodes} "
          f"({int(steps['term'].sum())} terminated, "
          f"{int(steps['trunc'].sum())} truncated), "
          f"mean return {steps['reward'].sum() / max(episodes, 1):.4f}")
    print(f"  resets                 {reset_ok}/{len(resets)} equal to "
          f"gymnax's first state of that side; ball starts in column 9: "
          f"{100 * sides:.1f} %")
    print(f"  identical observations {pct(same_obs)}")
    print(f"  identical rewards      {pct(same_rew)}")
    print(f"  identical terminated   {pct(same_term)}")
    print(f"  identical truncated    {pct(same_trunc)}")
    print(f"  identical next states  {pct(same_state)}")
    print(f"  identical steps        {pct(same)}")
    b0 = steps["s0"][:, 16:116].sum(1, dtype=np.int32)
    b1 = steps["s1"][:, 16:116].sum(1, dtype=np.int32)
    print(f"  coverage               {int((b1 > b0).sum())} brick refills, "
          f"{int((steps['s0'][:, 4] & steps['s1'][:, 4]).sum())} steps "
          f"through a second brick (strike), "
          f"{int(steps['reward'].sum())} bricks hit, longest episode "
          f"{int(steps['time'].max()) + 1 if n else 0} steps")
    if a.sticky > 0:
        print(f"  sticky: applied != given in "
              f"{100.0 * (applied != given).mean():.3f} % of steps "
              f"(uniform random actions: expected "
              f"{100 * a.sticky * 2 / 3:.3f} %)")
    bad = np.nonzero(~same)[0][:5]
    for k in bad:
        print(f"  first differences: record {k}: action {action[k]}, "
              f"state {steps['s0'][k][:9]} -> weft {steps['s1'][k][:9]} "
              f"gymnax {gf[k]}, reward {steps['reward'][k]} vs "
              f"{np.asarray(reward)[k]}")
    good = same.all() and reset_ok == len(resets) and \
        episodes >= a.min_episodes
    return 0 if good else 1



def run_drive(a, np, game):
    ob = 100 * CHANNELS[game]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "trace.bin")
        cmd = [a.drive, "trace", path, str(a.envs), str(a.steps),
               str(a.seed), repr(a.sticky), str(a.max_steps), a.backend,
               a.policy, game, "false" if a.no_ramping else "true"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            print("minatar-drive failed:", r.stderr.strip())
            return None
        return np.fromfile(path, dtype=record_dtype(np, ob))


class JaxShim:
    """The `jax` a gymnax module sees while its step is traced: jax
    itself, but with `random` replaced (weft's outcomes from the key)."""

    def __init__(self, jax, rnd):
        self._jax = jax
        self.random = rnd

    def __getattr__(self, name):
        return getattr(self._jax, name)


def asterix_game(np, jax, jnp, mod, a):
    """Asterix: state, fields, replay keys and first states."""

    class Rand:
        # key: [lr, gold, perm[8], sub]; split sets sub.
        @staticmethod
        def split(key, num=2):
            return jnp.stack([key.at[-1].set(j) for j in range(num)])

        @staticmethod
        def choice(key, arr, shape=(), replace=True, p=None):
            return key[key[-1]]

        @staticmethod
        def permutation(key, x, axis=0, independent=False):
            return key[2:10]

    def entities(s):
        e = np.zeros((len(s), 8, 5), dtype=np.int32)
        for j in range(8):
            b = 16 + 4 * j
            f = s[:, b + 3].astype(np.int32)
            e[:, j, 0] = s[:, b] * f
            e[:, j, 1] = (j + 1) * f
            e[:, j, 2] = s[:, b + 1] * f
            e[:, j, 3] = s[:, b + 2] * f
            e[:, j, 4] = f
        return e

    def to_state(s, time):
        i = s.astype(np.int32)
        return mod.EnvState(
            player_x=i[:, 0], player_y=i[:, 1], shot_timer=i[:, 2],
            spawn_speed=i[:, 3], spawn_timer=i[:, 4], move_speed=i[:, 5],
            move_timer=i[:, 6], ramp_timer=s[:, 7].view(np.int8).astype(np.int32),
            ramp_index=i[:, 9], entities=jnp.asarray(entities(s)),
            time=jnp.asarray(time, dtype=jnp.int32),
            terminal=s[:, 10].astype(bool))

    def fields(st):
        sc = [st.player_x, st.player_y, st.shot_timer, st.spawn_speed,
              st.spawn_timer, st.move_speed, st.move_timer, st.ramp_timer,
              st.ramp_index, st.terminal]
        sc = np.stack([np.asarray(v).astype(np.int32) for v in sc], axis=1)
        return np.concatenate([sc, np.asarray(st.entities).reshape(len(sc), -1)], 1)

    def keys(s0, s1):
        n = len(s0)
        k = np.zeros((n, 11), dtype=np.int32)
        k[:, 0] = s1[:, 12] & 1
        k[:, 1] = s1[:, 12] >> 1
        slot = s1[:, 11].astype(np.int32) - 1
        perm = np.tile(np.arange(8, dtype=np.int32), (n, 1))
        has = slot >= 0
        for r in np.nonzero(has)[0]:
            sl = slot[r]
            rest = [x for x in range(8) if x not in (sl, (sl + 1) % 8)]
            perm[r] = [(sl + 1) % 8, sl] + rest
        k[:, 2:10] = perm
        return k

    params = mod.MinAsterix().default_params.replace(ramping=not a.no_ramping)

    def resets_ok(rs):
        _, st = mod.MinAsterix().reset_env(jax.random.PRNGKey(0), params)
        f = fields(jax.tree.map(lambda x: jnp.asarray(x)[None], st))
        w = fields(to_state(rs, np.zeros(len(rs))))
        return (w == f).all(1) & (rs[:, 8] == 0), ""

    def special(s0, s1):
        # A spawn with all eight slots full: MinAtar (and weft) spawn
        # nothing; gymnax overwrites a slot with an empty entity.
        full = (s0[:, 4] == 0) & (s1[:, 11] == 0) & \
            (s0[:, [19, 23, 27, 31, 35, 39, 43, 47]].sum(1) == 8)
        return {"spawns with all 8 slots full (gymnax removes an entity)": full}

    def coverage(s0, s1, rew):
        return (f"{int((s0[:, 4] == 0).sum())} spawns "
                f"({int((s1[:, 12] >> 1).sum())} gold), "
                f"{int(rew.sum())} gold taken, "
                f"{int((s1[:, 9] > s0[:, 9]).sum())} ramps, "
                f"highest ramp_index {int(s1[:, 9].max()) if len(s1) else 0}")

    return mod.MinAsterix(), params, to_state, fields, keys, Rand, \
        resets_ok, special, coverage


def freeway_game(np, jax, jnp, mod, a):
    class Rand:
        # key: [speeds[8], dirs[8], sub].
        @staticmethod
        def split(key, num=2):
            return jnp.stack([key.at[-1].set(j) for j in range(num)])

        @staticmethod
        def randint(key, shape=(), minval=0, maxval=1, dtype=None):
            return key[0:8]

        @staticmethod
        def choice(key, arr, shape=(), replace=True, p=None):
            return key[8:16]

    def cars(s):
        c = s[:, 16:48].reshape(-1, 8, 4).astype(np.int32)
        c[:, :, 3] = s[:, 16:48].reshape(-1, 8, 4)[:, :, 3].view(np.int8)
        return c

    def to_state(s, time):
        return mod.EnvState(
            pos=s[:, 0].astype(np.int32), cars=jnp.asarray(cars(s)),
            move_timer=s[:, 1].astype(np.int32),
            time=jnp.asarray(time, dtype=jnp.int32),
            terminal=s[:, 4].astype(bool))

    def fields(st):
        sc = np.stack([np.asarray(v).astype(np.int32) for v in
                       [st.pos, st.move_timer, st.terminal]], axis=1)
        return np.concatenate([sc, np.asarray(st.cars).reshape(len(sc), -1)], 1)

    def keys(s0, s1):
        sp = cars(s1)[:, :, 3]
        k = np.zeros((len(s0), 17), dtype=np.int32)
        k[:, 0:8] = np.abs(sp)
        k[:, 8:16] = np.sign(sp)
        return k

    params = mod.MinFreeway().default_params

    def resets_ok(rs):
        c = cars(rs)
        sp = c[:, :, 3]
        tt = rs[:, 2].astype(np.int32) | (rs[:, 3].astype(np.int32) << 8)
        ok = (rs[:, 0] == 9) & (rs[:, 1] == 3) & (rs[:, 4] == 0) & \
            (tt == 2500) & (rs[:, 8] == 0) & (c[:, :, 0] == 0).all(1) & \
            (c[:, :, 1] == np.arange(1, 9)).all(1) & \
            (c[:, :, 2] == np.abs(sp)).all(1) & \
            (np.abs(sp) >= 1).all(1) & (np.abs(sp) <= 5).all(1)
        hist = np.bincount(np.abs(sp).ravel(), minlength=6)[1:]
        note = (f"speeds 1..5: {' '.join(f'{100 * h / max(hist.sum(), 1):.1f}%' for h in hist)}"
                f", moving right {100 * (sp > 0).mean():.1f} %")
        return ok, note

    def special(s0, s1):
        return {}

    def coverage(s0, s1, rew):
        return f"{int(rew.sum())} crossings (cars randomized)"

    return mod.MinFreeway(), params, to_state, fields, keys, Rand, \
        resets_ok, special, coverage


def space_invaders_game(np, jax, jnp, mod, a):
    def rows(s, off):
        r = s[:, off:off + 20].reshape(-1, 10, 2).astype(np.int32)
        m = r[:, :, 0] | (r[:, :, 1] << 8)
        return ((m[:, :, None] >> np.arange(10)) & 1).astype(np.float32)

    ramping = not a.no_ramping

    def to_state(s, time):
        i = s.astype(np.int32)
        n = len(s)
        return mod.EnvState(
            pos=i[:, 0], f_bullet_map=jnp.asarray(rows(s, 36)),
            e_bullet_map=jnp.asarray(rows(s, 56)),
            alien_map=jnp.asarray(rows(s, 16)),
            alien_dir=s[:, 1].view(np.int8).astype(np.int32),
            enemy_move_interval=i[:, 2], alien_move_timer=i[:, 3],
            alien_shot_timer=i[:, 4], ramp_index=i[:, 5], shot_timer=i[:, 6],
            ramping=np.full(n, ramping), time=jnp.asarray(time, dtype=jnp.int32),
            terminal=s[:, 7].astype(bool))

    def fields(st):
        sc = np.stack([np.asarray(v).astype(np.int32) for v in
                       [st.pos, st.alien_dir, st.enemy_move_interval,
                        st.alien_move_timer, st.alien_shot_timer,
                        st.ramp_index, st.shot_timer, st.terminal]], axis=1)
        maps = [np.asarray(m).reshape(len(sc), -1).astype(np.int32) for m in
                [st.alien_map, st.f_bullet_map, st.e_bullet_map]]
        return np.concatenate([sc] + maps, 1)

    def keys(s0, s1):
        return np.zeros((len(s0), 2), dtype=np.uint32)

    params = mod.MinSpaceInvaders().default_params

    def resets_ok(rs):
        _, st = mod.MinSpaceInvaders().reset_env(jax.random.PRNGKey(0), params)
        f = fields(jax.tree.map(lambda x: jnp.asarray(x)[None], st))
        w = fields(to_state(rs, np.zeros(len(rs))))
        return (w == f).all(1) & (rs[:, 8] == 0), ""

    def special(s0, s1):
        return {}

    def coverage(s0, s1, rew):
        n0 = np.unpackbits(s0[:, 16:36], axis=1).sum(1)
        n1 = np.unpackbits(s1[:, 16:36], axis=1).sum(1)
        return (f"{int(rew.sum())} aliens shot, "
                f"{int(((n1 == 24) & (n0 != 24)).sum())} waves refilled, "
                f"{int((s1[:, 5] > s0[:, 5]).sum())} ramps, "
                f"{int((s1[:, 1] != s0[:, 1]).sum())} turns")

    return mod.MinSpaceInvaders(), params, to_state, fields, keys, None, \
        resets_ok, special, coverage


def seaquest_game(np, jax, jnp, mod, a):
    from gymnax.environments.minatar import seaquest_helpers as helpers
    cap = helpers.MAX_ENTITIES

    class Rand:
        # key: [enemy lr, enemy is_sub, enemy y, diver lr, diver y, path];
        # path 1 at the root, 10 p + j for the j-th key split from p.
        @staticmethod
        def split(key, num=2):
            return jnp.stack([key.at[-1].set(key[-1] * 10 + j)
                              for j in range(num)])

        @staticmethod
        def uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0):
            return jnp.array([jnp.where(key[0] != 0, 0.25, 0.75),
                              jnp.where(key[1] != 0, 0.1, 0.9)])

        @staticmethod
        def randint(key, shape=(), minval=0, maxval=1, dtype=None):
            return jnp.where(key[-1] == 101, key[2], key[4])

        @staticmethod
        def bernoulli(key, p=0.5, shape=None):
            return key[3] != 0

    lists = {  # name: (count byte, first byte, fields)
        "f_bullets": (15, 24, 3), "e_bullets": (16, 32, 3),
        "e_fish": (17, 56, 4), "e_subs": (18, 84, 5), "divers": (19, 104, 4)}
    counts = {"f_bullets": "f_bullet_count", "e_bullets": "e_bullet_count",
              "e_fish": "e_fish_count", "e_subs": "e_subs_count",
              "divers": "divers_count"}

    def entities(s, name):
        cnt, first, nf = lists[name]
        n = len(s)
        out = np.zeros((n, cap, nf), dtype=np.int32)
        b0 = s[:, first:first + 28:2].astype(np.int32)
        b1 = s[:, first + 1:first + 28:2].astype(np.int32)
        m = (b0.shape[1])
        c = s[:, cnt].astype(np.int32)
        live = np.arange(m)[None, :] < c[:, None]
        vals = [b0 & 15, b0 >> 4, b1 & 1, (b1 >> 1) & 7, b1 >> 4][:nf]
        for f, v in enumerate(vals):
            out[:, :m, f] = np.where(live, v, 0)
        return out

    ramping = not a.no_ramping

    def to_state(s, time):
        i = s.astype(np.int32)
        ox = (i[:, 0] | (i[:, 1] << 8)).astype(np.uint16).view(np.int16)
        kw = {name: jnp.asarray(entities(s, name)) for name in lists}
        kw.update({counts[name]: i[:, lists[name][0]] for name in lists})
        return mod.EnvState(
            oxygen=ox.astype(np.int32), sub_x=i[:, 2], sub_y=i[:, 3],
            sub_or=s[:, 4].astype(bool),
            diver_count=s[:, 5].view(np.int8).astype(np.int32),
            e_spawn_speed=i[:, 6], e_spawn_timer=i[:, 7],
            d_spawn_timer=i[:, 9], move_speed=i[:, 10], ramp_index=i[:, 11],
            shot_timer=i[:, 12], surface=s[:, 13].astype(bool),
            time=jnp.asarray(time, dtype=jnp.int32),
            terminal=s[:, 14].astype(bool), **kw)

    def fields(st):
        sc = np.stack([np.asarray(v).astype(np.int32) for v in
                       [st.oxygen, st.sub_x, st.sub_y, st.sub_or,
                        st.diver_count, st.e_spawn_speed, st.e_spawn_timer,
                        st.d_spawn_timer, st.move_speed, st.ramp_index,
                        st.shot_timer, st.surface, st.terminal]], axis=1)
        parts = [sc]
        for name in lists:
            c = np.asarray(getattr(st, counts[name])).astype(np.int32)
            e = np.asarray(getattr(st, name))[:, :16].astype(np.int32)
            live = np.arange(16)[None, :] < c[:, None]
            e = np.where(live[:, :, None], e, 0)
            if name == "e_bullets":
                # MinAtar appends subs' shots last sub first, gymnax
                # first sub first: the same bullets, another order.
                code = e[:, :, 0] * 100 + e[:, :, 1] * 10 + e[:, :, 2]
                code = np.where(live, code, 10**6)
                e = np.take_along_axis(e, np.argsort(code, 1)[:, :, None], 1)
            parts += [c[:, None], e.reshape(len(sc), -1)]
        return np.concatenate(parts, 1)

    def keys(s0, s1):
        k = np.zeros((len(s0), 6), dtype=np.int32)
        e, d = s1[:, 21].astype(np.int32), s1[:, 22].astype(np.int32)
        k[:, 0] = e & 1
        k[:, 1] = (e >> 1) & 1
        k[:, 2] = np.where(e != 0, (e >> 2) & 15, 1)
        k[:, 3] = d & 1
        k[:, 4] = np.where(d != 0, (d >> 1) & 15, 1)
        k[:, 5] = 1
        return k

    params = mod.MinSeaquest().default_params.replace(ramping=ramping)

    def resets_ok(rs):
        _, st = mod.MinSeaquest().reset_env(jax.random.PRNGKey(0), params)
        f = fields(jax.tree.map(lambda x: jnp.asarray(x)[None], st))
        w = fields(to_state(rs, np.zeros(len(rs))))
        return (w == f).all(1) & (rs[:, 8] == 0), ""

    def special(s0, s1):
        no_divers = (s1[:, 14] == 1) & (s1[:, 3] == 0) & (s0[:, 13] == 0) & \
            (s1[:, 5] == 0) & (s1[:, 13] == 0)
        return {
            "surfacing with no diver (the end; gymnax also refills oxygen, "
            "ramps, sets diver_count -1)": no_divers,
            "a sub shot dead fires as it dies (MinAtar; gymnax: no shot)":
                s1[:, 23] > 0,
            "an entity dropped, list full (weft's capacity)":
                s1[:, 20] > s0[:, 20]}

    def coverage(s0, s1, rew):
        ox0 = s0[:, 0].astype(np.int32) | (s0[:, 1].astype(np.int32) << 8)
        surf = (s0[:, 13] == 0) & (s1[:, 13] == 1)
        dc0 = s0[:, 5].view(np.int8)
        dc1 = s1[:, 5].view(np.int8)
        return (f"{int(rew.sum())} reward, {int(surf.sum())} surfacings "
                f"with divers ({int((surf & (dc0 == 6)).sum())} with 6), "
                f"{int((dc1 > dc0).sum())} diver pick-ups, "
                f"{int((s1[:, 11] > s0[:, 11]).sum())} ramps, "
                f"most enemies {int((s1[:, 17] + s1[:, 18]).max())}, "
                f"most enemy bullets {int(s1[:, 16].max())}, "
                f"{int((s1[:, 21] != 0).sum())} enemy and "
                f"{int((s1[:, 22] != 0).sum())} diver spawns, lowest "
                f"oxygen {int(ox0.min())}")

    return mod.MinSeaquest(), params, to_state, fields, keys, Rand, \
        resets_ok, special, coverage


def compare_game(a, np, jax, jnp, rec=None):
    """rec: as compare_breakout's."""
    import importlib
    mod = importlib.import_module("gymnax.environments.minatar." + a.game)
    build = {"asterix": asterix_game, "freeway": freeway_game,
             "space_invaders": space_invaders_game,
             "seaquest": seaquest_game}[a.game]
    env, params, to_state, fields, keys, rand, resets_ok, special, \
        coverage = build(np, jax, jnp, mod, a)
    params = params.replace(max_steps_in_episode=a.max_steps
                            if a.max_steps else 2**30)
    if rec is None:
        rec = run_drive(a, np, a.game)
    if rec is None:
        return 1
    ob = 100 * CHANNELS[a.game]

    resets = rec[rec["reset"] == 1]
    rok, rnote = resets_ok(resets["s0"])
    if a.game in ("space_invaders", "seaquest") and a.policy == "follow":
        # minatar-drive planted these first states (Space Invaders: one
        # row of aliens; Seaquest: one row down, 6 divers aboard).
        rok = np.ones(len(resets), dtype=bool)
        rnote = "(planted by the follow policy)"
    steps = rec[rec["reset"] == 0]
    n = len(steps)
    given = steps["action"].astype(np.int32)
    applied = steps["s1"][:, 8].astype(np.int32)
    action = applied if a.sticky > 0 else given
    s0, s1 = steps["s0"], steps["s1"]
    k = keys(s0, s1)
    if rand is not None:
        mod.jax = JaxShim(jax, rand)
    # In chunks: gymnax's Seaquest holds 100 entities of each kind.
    chunk = 4096
    parts = []
    try:
        step = jax.jit(jax.vmap(lambda key, s, act: env.step_env(
            key, s, act, params)))
        for c in range(0, n, chunk):
            sl = slice(c, min(n, c + chunk))
            o, st1, rw, tm, _ = step(jnp.asarray(k[sl]),
                                     to_state(s0[sl], steps["time"][sl]),
                                     jnp.asarray(action[sl]))
            parts.append((np.asarray(o).reshape(-1, ob).astype(np.uint8),
                          np.asarray(rw), np.asarray(tm),
                          np.asarray(env.is_truncated(st1, params)),
                          fields(st1),
                          fields(to_state(s1[sl], steps["time"][sl] + 1))))
    finally:
        mod.jax = jax
    obs, reward, term, trunc, gf, wf = (
        np.concatenate([p[j] for p in parts]) if parts else np.zeros(0)
        for j in range(6))
    same_obs = (obs == steps["obs"]).all(1)
    same_rew = np.asarray(reward) == steps["reward"]
    same_term = np.asarray(term).astype(np.uint8) == steps["term"]
    same_trunc = trunc.astype(np.uint8) == steps["trunc"]
    same_state = (gf == wf).all(1)
    same = same_obs & same_rew & same_term & same_trunc & same_state
    episodes = int((steps["term"] | steps["trunc"]).sum())

    def pct(m):
        return f"{100.0 * m.sum() / max(n, 1):.4f} % ({int(m.sum())}/{n})"

    print(f"weft MinAtar {a.game} vs gymnax {gymnax_version()}: "
          f"{a.envs} envs x {a.steps} steps, seed {a.seed}, sticky "
          f"{a.sticky}, max_episode_steps {a.max_steps}, ramping "
          f"{not a.no_ramping}, backend {a.backend}, policy {a.policy}")
    print(f"  episodes ended         {episodes} "
          f"({int(steps['term'].sum())} terminated, "
          f"{int(steps['trunc'].sum())} truncated), "
          f"mean return {steps['reward'].sum() / max(episodes, 1):.4f}")
    print(f"  resets                 {int(rok.sum())}/{len(resets)} valid "
          f"first states {rnote}")
    print(f"  identical observations {pct(same_obs)}")
    print(f"  identical rewards      {pct(same_rew)}")
    print(f"  identical terminated   {pct(same_term)}")
    print(f"  identical truncated    {pct(same_trunc)}")
    print(f"  identical next states  {pct(same_state)}")
    print(f"  identical steps        {pct(same)}")
    print(f"  coverage               {coverage(s0, s1, steps['reward'])}, "
          f"longest episode {int(steps['time'].max()) + 1 if n else 0} steps")
    known = np.zeros(n, dtype=bool)
    for what, m in special(s0, s1).items():
        known |= m
        print(f"  {what}: {int(m.sum())} steps, {int((m & ~same).sum())} "
              f"of them different")
    if known.any():
        rest = ~known
        print(f"  identical steps, those aside "
              f"{100.0 * same[rest].sum() / max(rest.sum(), 1):.4f} % "
              f"({int(same[rest].sum())}/{int(rest.sum())})")
    if a.sticky > 0:
        print(f"  sticky: applied != given in "
              f"{100.0 * (applied != given).mean():.3f} % of steps "
              f"(uniform random actions: expected "
              f"{100 * a.sticky * (1 - 1 / env.num_actions):.3f} %)")
    for r in np.nonzero(~same & ~known)[0][:5]:
        print(f"  first differences: record {r}: action {action[r]}, "
              f"state {s0[r][:16]} -> weft {s1[r][:16]}; fields differ at "
              f"{np.nonzero(gf[r] != wf[r])[0][:8]}, obs differ at "
              f"{np.nonzero(obs[r] != steps['obs'][r])[0][:8]}, reward "
              f"{steps['reward'][r]} vs {np.asarray(reward)[r]}")
    good = (same | known).all() and rok.all() and episodes >= a.min_episodes
    return 0 if good else 1


class Tape:
    """MinAtar's Env.random for one step: returns weft's outcomes."""

    def __init__(self, values):
        self.values = list(values)

    def rand(self, *shape):
        return self.values.pop(0)

    def randint(self, low, high=None, size=None):
        return self.values.pop(0)


def minatar_codec(np, game):
    """To and from MinAtar's Env attributes for weft's row (bytes 0-19 and
    the lists; 8 and weft's own records excluded), and the random tape of
    a step from weft's row after it."""
    i8 = lambda b: b - 256 if b >= 128 else b

    def sq_list(s, cnt, first, nf):
        out = []
        for j in range(s[cnt]):
            b0, b1 = int(s[first + 2 * j]), int(s[first + 2 * j + 1])
            e = [b0 & 15, b0 >> 4, bool(b1 & 1), (b1 >> 1) & 7, b1 >> 4]
            out.append(e[:nf])
        return out

    if game == "seaquest":
        L = [("f_bullets", 15, 24, 3), ("e_bullets", 16, 32, 3),
             ("e_fish", 17, 56, 4), ("e_subs", 18, 84, 5),
             ("divers", 19, 104, 4)]

        def load(env, s):
            env.oxygen = i8(int(s[1])) * 256 + int(s[0]) if s[1] >= 128 \
                else int(s[0]) | int(s[1]) << 8
            env.sub_x, env.sub_y = int(s[2]), int(s[3])
            env.sub_or = bool(s[4])
            env.diver_count = i8(int(s[5]))
            env.e_spawn_speed, env.e_spawn_timer = int(s[6]), int(s[7])
            env.d_spawn_timer, env.move_speed = int(s[9]), int(s[10])
            env.ramp_index, env.shot_timer = int(s[11]), int(s[12])
            env.surface, env.terminal = bool(s[13]), bool(s[14])
            for name, cnt, first, nf in L:
                setattr(env, name, sq_list(s, cnt, first, nf))

        def save(env):
            s = np.zeros(128, dtype=np.uint8)
            s[0], s[1] = env.oxygen & 255, (env.oxygen >> 8) & 255
            s[2], s[3], s[4] = env.sub_x, env.sub_y, int(env.sub_or)
            s[5] = env.diver_count & 255
            s[6], s[7] = env.e_spawn_speed, env.e_spawn_timer
            s[9], s[10] = env.d_spawn_timer, env.move_speed
            s[11], s[12] = env.ramp_index, env.shot_timer
            s[13], s[14] = int(env.surface), int(env.terminal)
            for name, cnt, first, nf in L:
                lst = getattr(env, name)
                s[cnt] = len(lst)
                for j, e in enumerate(lst):
                    e = list(e) + [0] * (5 - len(e))
                    s[first + 2 * j] = e[0] | e[1] << 4
                    s[first + 2 * j + 1] = int(e[2]) | e[3] << 1 | e[4] << 4
            return s

        def tape(s0, s1):
            v = []
            if s1[21]:
                e = int(s1[21])
                v += [0.25 if e & 1 else 0.75, 0.1 if e & 2 else 0.9,
                      (e >> 2) & 15]
            if s1[22]:
                d = int(s1[22])
                v += [0.25 if d & 1 else 0.75, (d >> 1) & 15]
            return v
        mask = [k for k in range(128) if k != 8 and not 20 <= k <= 23]
        return load, save, tape, mask, [0, 1, 2, 3, 4, 5]

    if game == "asterix":
        def load(env, s):
            env.player_x, env.player_y = int(s[0]), int(s[1])
            env.shot_timer, env.spawn_speed = int(s[2]), int(s[3])
            env.spawn_timer, env.move_speed = int(s[4]), int(s[5])
            env.move_timer, env.ramp_timer = int(s[6]), i8(int(s[7]))
            env.ramp_index, env.terminal = int(s[9]), bool(s[10])
            env.entities = [None] * 8
            for j in range(8):
                b = 16 + 4 * j
                if s[b + 3]:
                    env.entities[j] = [int(s[b]), j + 1, bool(s[b + 1]),
                                       bool(s[b + 2])]

        def save(env):
            s = np.zeros(128, dtype=np.uint8)
            s[0], s[1], s[2] = env.player_x, env.player_y, env.shot_timer
            s[3], s[4] = env.spawn_speed, env.spawn_timer
            s[5], s[6] = env.move_speed, env.move_timer
            s[7], s[9] = env.ramp_timer & 255, env.ramp_index
            s[10] = int(env.terminal)
            for j, e in enumerate(env.entities):
                if e is not None:
                    s[16 + 4 * j:20 + 4 * j] = [e[0], int(e[2]), int(e[3]), 1]
            return s

        def tape(s0, s1):
            if s0[4] != 0:
                return []
            k = int(s1[12])
            v = [0.25 if k & 1 else 0.75, 0.1 if k & 2 else 0.9]
            if s1[11]:
                slot = int(s1[11]) - 1
                v.append(sum(1 for j in range(slot) if not s0[19 + 4 * j]))
            return v
        mask = [k for k in range(128) if k not in (8, 11, 12)]
        return load, save, tape, mask, [0, 1, 2, 3, 4]

    if game == "space_invaders":
        def maps(s, off):
            r = [int(s[off + 2 * y]) | int(s[off + 2 * y + 1]) << 8
                 for y in range(10)]
            return np.array([[(r[y] >> x) & 1 for x in range(10)]
                             for y in range(10)], dtype=float)

        def load(env, s):
            env.pos, env.alien_dir = int(s[0]), i8(int(s[1]))
            env.enemy_move_interval, env.alien_move_timer = int(s[2]), int(s[3])
            env.alien_shot_timer, env.ramp_index = int(s[4]), int(s[5])
            env.shot_timer, env.terminal = int(s[6]), bool(s[7])
            env.alien_map = maps(s, 16)
            env.f_bullet_map = maps(s, 36)
            env.e_bullet_map = maps(s, 56)

        def save(env):
            s = np.zeros(128, dtype=np.uint8)
            s[0], s[1] = env.pos, env.alien_dir & 255
            s[2], s[3] = env.enemy_move_interval, env.alien_move_timer
            s[4], s[5] = env.alien_shot_timer, env.ramp_index
            s[6], s[7] = env.shot_timer, int(env.terminal)
            for off, m in ((16, env.alien_map), (36, env.f_bullet_map),
                           (56, env.e_bullet_map)):
                for y in range(10):
                    r = sum(1 << x for x in range(10) if m[y, x])
                    s[off + 2 * y], s[off + 2 * y + 1] = r & 255, r >> 8
            return s

        mask = [k for k in range(128) if k != 8]
        return load, save, lambda s0, s1: [], mask, [0, 1, 3, 5]

    # freeway
    def load(env, s):
        env.pos, env.move_timer = int(s[0]), int(s[1])
        tt = int(s[2]) | int(s[3]) << 8
        env.terminate_timer = tt - 65536 if tt >= 32768 else tt
        env.terminal = bool(s[4])
        env.cars = [[int(s[16 + 4 * j]), int(s[17 + 4 * j]),
                     int(s[18 + 4 * j]), i8(int(s[19 + 4 * j]))]
                    for j in range(8)]

    def save(env):
        s = np.zeros(128, dtype=np.uint8)
        s[0], s[1] = env.pos, env.move_timer
        s[2], s[3] = env.terminate_timer & 255, (env.terminate_timer >> 8) & 255
        s[4] = int(env.terminal)
        for j, c in enumerate(env.cars):
            s[16 + 4 * j:20 + 4 * j] = [c[0], c[1], c[2], c[3] & 255]
        return s

    class FwTape(Tape):
        def randint(self, low, high=None, size=None):
            return np.array(self.values[0])

        def rand(self, *shape):
            return np.array(self.values[1])

    def tape(s0, s1):
        sp = [i8(int(s1[19 + 4 * j])) for j in range(8)]
        return FwTape([[abs(v) for v in sp],
                       [0.75 if v > 0 else 0.25 for v in sp]])
    mask = [k for k in range(128) if k != 8]
    return load, save, tape, mask, [0, 2, 4]


def compare_minatar(a, np, rec=None):
    """Every step of the trace replayed in MinAtar's own Env (its
    minatar/environments/<game>.py), from weft's state, with weft's random
    outcomes: observation, reward, terminal and the whole next state.
    rec: as compare_breakout's."""
    import importlib
    mod = importlib.import_module("minatar.environments." + a.game)
    load, save, tape, mask, full = minatar_codec(np, a.game)
    if rec is None:
        rec = run_drive(a, np, a.game)
    if rec is None:
        return 1
    steps = rec[rec["reset"] == 0]
    if a.limit:
        steps = steps[:a.limit]
    n, ob = len(steps), 100 * CHANNELS[a.game]
    env = mod.Env(ramping=not a.no_ramping)
    same_obs = np.zeros(n, bool)
    same_rew = np.zeros(n, bool)
    same_term = np.zeros(n, bool)
    same_state = np.zeros(n, bool)
    for r in range(n):
        s0, s1 = steps["s0"][r], steps["s1"][r]
        load(env, s0)
        t = tape(s0, s1)
        env.random = t if isinstance(t, Tape) else Tape(t)
        rew, term = env.act(full[int(s1[8])])
        same_obs[r] = (env.state().reshape(ob).astype(np.uint8) ==
                       steps["obs"][r]).all()
        same_rew[r] = float(rew) == float(steps["reward"][r])
        same_term[r] = bool(term) == bool(steps["term"][r])
        same_state[r] = (save(env)[mask] == s1[mask]).all()
    same = same_obs & same_rew & same_term & same_state

    def pct(m):
        return f"{100.0 * m.sum() / max(n, 1):.4f} % ({int(m.sum())}/{n})"

    print(f"weft MinAtar {a.game} vs MinAtar's own Env: {a.envs} envs x "
          f"{a.steps} steps, seed {a.seed}, sticky {a.sticky} (applied "
          f"actions replayed), ramping {not a.no_ramping}, policy {a.policy}")
    print(f"  episodes ended         {int(steps['term'].sum())} terminated")
    print(f"  identical observations {pct(same_obs)}")
    print(f"  identical rewards      {pct(same_rew)}")
    print(f"  identical terminals    {pct(same_term)}")
    print(f"  identical next states  {pct(same_state)}")
    print(f"  identical steps        {pct(same)}")
    for r in np.nonzero(~same)[0][:5]:
        print(f"  first differences: record {r}: state {steps['s0'][r][:24]}")
    return 0 if same.all() else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--drive", required=True)
    ap.add_argument("--game", choices=sorted(CHANNELS), default="breakout")
    ap.add_argument("--envs", type=int, default=256)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sticky", type=float, default=0.0)
    ap.add_argument("--max-steps", type=int, default=None,
                    help="truncation (default: gymnax's for the game)")
    ap.add_argument("--backend", default="openmp")
    ap.add_argument("--min-episodes", type=int, default=0)
    ap.add_argument("--no-ramping", action="store_true",
                    help="difficulty_ramping = false (gymnax: ramping "
                    "False in Asterix's params, in Space Invaders' state)")
    ap.add_argument("--policy", choices=["random", "track", "follow"], default="random",
                    help="the trace's actions: uniform, or (Breakout) "
                    "towards the ball 15 times in 16 (longer episodes), "
                    "or always (follow: bricks cleared and refilled); "
                    "(other games) track: 3 times in 4 up (Freeway), "
                    "fire (Space Invaders, Seaquest), up or down "
                    "(Asterix); follow: planted first states (Space "
                    "Invaders: one row of aliens, shot aiming ahead: waves "
                    "cleared, the difficulty ramping; Seaquest: 6 divers "
                    "aboard one row down, going up: full loads surfaced)")
    ap.add_argument("--reference", choices=["gymnax", "minatar"],
                    default="gymnax", help="gymnax's step (default) or "
                    "MinAtar's own Env (not Breakout)")
    ap.add_argument("--limit", type=int, default=0,
                    help="--reference minatar: compare at most this many "
                    "steps (MinAtar runs in Python)")
    a = ap.parse_args()
    if a.max_steps is None:
        a.max_steps = MAX_STEPS[a.game]
    if a.reference == "minatar" and a.game != "breakout":
        try:
            import numpy as np
            import minatar.environments  # noqa: F401
        except ImportError as e:
            print(f"SKIP: minatar not importable ({e})")
            return 77
        return compare_minatar(a, np)
    try:
        import numpy as np
        import jax
        import jax.numpy as jnp
        import gymnax.environments.minatar  # noqa: F401
    except ImportError as e:
        print(f"SKIP: gymnax/jax not importable ({e})")
        return 77
    jax.config.update("jax_platform_name", "cpu")
    if a.game == "breakout":
        return compare_breakout(a, np, jax, jnp)
    return compare_game(a, np, jax, jnp)


if __name__ == "__main__":
    sys.exit(main())
