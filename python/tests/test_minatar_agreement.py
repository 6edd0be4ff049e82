"""The MinAtar model (models/minatar) against its references, step by step:
gymnax's MinAtar (gymnax.environments.minatar) for Breakout, Asterix,
Freeway, Space Invaders and Seaquest, and MinAtar's own Env
(minatar.environments.<game>.Env) for Asterix, Freeway, Space Invaders
and Seaquest, as tests/models/test-minatar.sh does in make check.

weft is driven here through the package itself, as minatar-drive's trace
mode drives it through libweft: weft.envs.make(..., autoreset_mode=
"disabled"), the declared "state" view read before and after each step
(read_state) with the step's time from "env_book", and every ended
environment reset with reset(options={"reset_mask": ...}). The records are
those bench/minatar-compare.py reads from minatar-drive, and its own
comparison (compare_breakout, compare_game, compare_minatar, imported from
the source tree) builds each reference state from the state before, steps
it with the same action (the one weft applied, sticky actions included)
and weft's random outcomes, and requires the observation, reward, flags
and whole next state identical; each reset must be a reference first
state. Where gymnax is known to differ from MinAtar (Seaquest's surfacing
with no diver), the script counts those steps apart, and MinAtar's Env is
the reference for them. Each trace must end episodes (terminated and,
against gymnax, truncated), so that the test cannot pass vacuously; the
last tests check that the comparison catches one byte of observation and
one reward changed."""
import argparse
import importlib.util
import os

import pytest

from conftest import TOP, available_backends

SCRIPT = os.path.join(TOP, "bench", "minatar-compare.py")
IDS = {"breakout": "MinAtar/Breakout-v1", "asterix": "MinAtar/Asterix-v1",
       "freeway": "MinAtar/Freeway-v1",
       "space_invaders": "MinAtar/SpaceInvaders-v1",
       "seaquest": "MinAtar/Seaquest-v1"}
# The minimal action sets' sizes (MinAtar's minimal_action_set()).
ACTIONS = {"breakout": 3, "asterix": 5, "freeway": 3, "space_invaders": 4,
           "seaquest": 6}
# A trace's "busy" action (minatar-drive's md_busy): Freeway up, Space
# Invaders and Seaquest fire (Asterix: up or down, drawn).
BUSY = {"freeway": 1, "space_invaders": 3, "seaquest": 5}

# Against gymnax: (envs, steps, seed, sticky, max_episode_steps, policy).
# Sticky actions: gymnax has none; the applied action is replayed.
GYMNAX = {
    "breakout": (64, 100, 4, 0.1, 40, "track"),
    "asterix": (64, 100, 6, 0.1, 60, "random"),
    "freeway": (64, 100, 6, 0.1, 60, "track"),
    "space_invaders": (64, 100, 6, 0.1, 60, "follow"),
    "seaquest": (64, 100, 6, 0.0, 60, "follow"),
}
# Against MinAtar's Env (in Python: fewer steps). Freeway's first states
# get terminate_timer 40 (MinAtar's own end, otherwise at step 2501) and
# no truncation, so that it terminates here; Seaquest follows (6 divers
# aboard, going up), for the surfacings where gymnax differs.
MINATAR = {
    "asterix": (16, 150, 8, 0.1, 1000, "track"),
    "freeway": (16, 150, 8, 0.1, 0, "track"),
    "space_invaders": (16, 150, 8, 0.1, 1000, "track"),
    "seaquest": (16, 150, 8, 0.1, 1000, "follow"),
}


@pytest.fixture(scope="module")
def np():
    return pytest.importorskip(
        "numpy", reason="numpy is not installed (the records are numpy "
        "arrays)")


@pytest.fixture(scope="module")
def cmp(np):
    """bench/minatar-compare.py, imported from the source tree."""
    if not os.path.exists(SCRIPT):
        pytest.skip("%s is not in this tree" % SCRIPT)
    spec = importlib.util.spec_from_file_location("minatar_compare", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def openmp():
    import weft.envs

    if "openmp" not in available_backends():
        pytest.skip("the openmp backend is not available")
    if "MinAtar/Breakout-v1" not in weft.envs.ids():
        pytest.skip("the minatar model is not built (no MinAtar ids)")
    return "openmp"


@pytest.fixture(scope="module")
def gymnax():
    jax = pytest.importorskip(
        "jax", reason="jax is not installed (gymnax, the reference, runs "
        "on it; pip install -r python/requirements-test.txt)")
    pytest.importorskip(
        "gymnax.environments.minatar", reason="gymnax is not installed "
        "(the reference is gymnax's MinAtar; pip install -r "
        "python/requirements-test.txt)")
    return jax


@pytest.fixture(scope="module")
def minatar():
    return pytest.importorskip(
        "minatar.environments", reason="minatar is not installed (the "
        "reference where gymnax differs is MinAtar's own Env; pip install "
        "-r python/requirements-test.txt)")


# ---- weft driven through the package: minatar-drive's trace records ----

def si_danger(s, x):
    """An enemy bullet on rows 5 to 8 of column x (Space Invaders)."""
    return any((int(s[56 + 2 * y]) | int(s[57 + 2 * y]) << 8) >> x & 1
               for y in range(5, 9))


def si_follow(s):
    """minatar-drive's Space Invaders follow policy: fire under an alien,
    else towards the nearest column holding one, aiming ahead; step
    aside from enemy bullets."""
    pos, best = int(s[0]), -1
    rows = [int(s[16 + 2 * y]) | int(s[17 + 2 * y]) << 8 for y in range(10)]
    for x in range(10):
        if any(r >> x & 1 for r in rows) and (
                best < 0 or abs(x - pos) < abs(best - pos)):
            best = x
    if si_danger(s, pos):
        return 2 if pos < 9 and not si_danger(s, pos + 1) else 1
    if best >= 0:
        low = max(y for y in range(10) if rows[y] >> best & 1)
        count = sum(bin(r).count("1") for r in rows)
        period = min(count, int(s[2]))
        best += (-1 if s[1] == 255 else 1) * ((9 - low) // period)
        best = min(max(best, 0), 9)
    if best < 0 or best == pos:
        return 3
    if si_danger(s, pos - 1 if best < pos else pos + 1):
        return 3
    return 1 if best < pos else 2


def policy(np, game, name, s, rng):
    """The actions for states s (one row each): uniform; track (Breakout:
    towards the ball 15 times in 16; the others: the busy action 3 times
    in 4); follow (Space Invaders: si_follow; Seaquest: up 3 times in 4
    with 6 divers aboard)."""
    n = len(s)
    act = rng.integers(0, ACTIONS[game], n)
    if name == "track" and game == "breakout":
        toward = np.where(s[:, 0] < s[:, 3], 1,
                          np.where(s[:, 0] > s[:, 3], 2, 0))
        act = np.where(rng.integers(0, 16, n) != 0, toward, act)
    elif name == "follow" and game == "space_invaders":
        act = np.array([si_follow(r) for r in s])
    elif name == "follow" and game == "seaquest":
        up = (s[:, 5] == 6) & (rng.integers(0, 4, n) != 0)
        act = np.where(up, 2, act)
    elif name == "track":
        busy = 2 + 2 * rng.integers(0, 2, n) if game == "asterix" \
            else BUSY[game]
        act = np.where(rng.integers(0, 4, n) != 0, busy, act)
    return act.astype(np.uint8)


def plant(game, name, reference, s, mask):
    """First states changed through the state view (minatar-drive's
    md_plant): Space Invaders' follow keeps only the lowest row of aliens
    (waves cleared, ramps); Seaquest's begins one row down with 6 divers
    aboard (full loads surfaced); Freeway against MinAtar's Env: its
    terminate_timer 40. Returns whether anything was planted."""
    if game == "space_invaders" and name == "follow":
        s[mask, 16:22] = 0
    elif game == "seaquest" and name == "follow":
        s[mask, 3], s[mask, 5], s[mask, 13] = 1, 6, 0
    elif game == "freeway" and reference == "minatar":
        s[mask, 2], s[mask, 3] = 40, 0
    else:
        return False
    return True


def trace(np, cmp, backend, game, envs, steps, seed, sticky, max_steps,
          name, reference="gymnax"):
    """weft's trace as minatar-drive writes it: one record per environment
    step (state before, time, action, obs, reward, flags, state after)
    and one per reset (the first state), of cmp.record_dtype."""
    import weft.envs

    overrides = {"simulation.seed": seed,
                 "minatar.max_episode_steps": max_steps}
    env = weft.envs.make(IDS[game], envs, backend=backend,
                         autoreset_mode="disabled", overrides=overrides,
                         repeat_action_probability=sticky,
                         difficulty_ramping="true")
    dt = cmp.record_dtype(np, 100 * cmp.CHANNELS[game])
    rng = np.random.default_rng(seed)
    out = []

    def resets(mask):
        s = env.read_state()
        if plant(game, name, reference, s, mask):
            env.write("state", s)
        r = np.zeros(int(mask.sum()), dtype=dt)
        r["s0"] = r["s1"] = s[mask]
        r["reset"] = 1
        out.append(r)

    try:
        env.reset(seed=seed)
        resets(np.ones(envs, dtype=bool))
        for _ in range(steps):
            s0 = env.read_state()
            time = env.read("env_book")[5]
            act = policy(np, game, name, s0, rng)
            obs, reward, term, trunc, _ = env.step(act)
            r = np.zeros(envs, dtype=dt)
            r["s0"], r["time"], r["action"] = s0, time, act
            r["obs"] = obs.reshape(envs, -1)
            r["reward"], r["term"], r["trunc"] = reward, term, trunc
            r["s1"] = env.read_state()
            out.append(r)
            ended = (r["term"] | r["trunc"]).astype(bool)
            if ended.any():
                env.reset(options={"reset_mask": ended})
                resets(ended)
    finally:
        env.close()
    return np.concatenate(out)


def args(game, envs, steps, seed, sticky, max_steps, name, **kw):
    """minatar-compare.py's arguments for this trace (--drive unused)."""
    a = argparse.Namespace(
        drive=None, game=game, envs=envs, steps=steps, seed=seed,
        sticky=sticky, max_steps=max_steps, backend="openmp",
        min_episodes=0, no_ramping=False, policy=name, reference="gymnax",
        limit=0)
    for k, v in kw.items():
        setattr(a, k, v)
    return a


def compare_gymnax(np, jax, cmp, a, rec):
    import jax.numpy as jnp

    with jax.default_device(jax.devices("cpu")[0]):
        if a.game == "breakout":
            return cmp.compare_breakout(a, np, jax, jnp, rec=rec)
        return cmp.compare_game(a, np, jax, jnp, rec=rec)


def ends(rec):
    """Steps, terminated, truncated, episodes ended, resets."""
    steps = rec[rec["reset"] == 0]
    return (len(steps), int(steps["term"].sum()), int(steps["trunc"].sum()),
            int((steps["term"] | steps["trunc"]).sum()),
            int((rec["reset"] == 1).sum()))


def no_diver_surfacings(rec):
    """Seaquest's steps that surface with no diver aboard (the end; gymnax
    also refills oxygen, ramps and sets diver_count -1): minatar-compare's
    own test of them."""
    st = rec[rec["reset"] == 0]
    s0, s1 = st["s0"], st["s1"]
    return int(((s1[:, 14] == 1) & (s1[:, 3] == 0) & (s0[:, 13] == 0) &
                (s1[:, 5] == 0) & (s1[:, 13] == 0)).sum())


_traces = {}


def cached_trace(np, cmp, backend, game, reference):
    key = (game, reference)
    if key not in _traces:
        conf = (GYMNAX if reference == "gymnax" else MINATAR)[game]
        _traces[key] = trace(np, cmp, backend, game, *conf,
                             reference=reference)
    return _traces[key]


# ---- the tests ------------------------------------------------------------

@pytest.mark.parametrize("game", list(GYMNAX))
def test_equals_gymnax_step_by_step(game, np, cmp, openmp, gymnax, capsys):
    envs, steps, seed, sticky, max_steps, name = GYMNAX[game]
    rec = cached_trace(np, cmp, openmp, game, "gymnax")
    n, term, trunc, episodes, resets = ends(rec)
    assert n == envs * steps
    # episodes end inside the trace, both ways (Freeway: gymnax's never
    # terminates), and their next episodes are compared too
    assert trunc > 0 and (term > 0 or game == "freeway"), (term, trunc)
    assert resets == envs + episodes
    rc = compare_gymnax(np, gymnax, cmp, args(game, *GYMNAX[game]), rec)
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "(%d/%d)" % (n, n) in out or "those aside" in out, out


@pytest.mark.parametrize("game", list(MINATAR))
def test_equals_minatar_env_step_by_step(game, np, cmp, openmp, minatar,
                                         capsys):
    envs, steps, seed, sticky, max_steps, name = MINATAR[game]
    rec = cached_trace(np, cmp, openmp, game, "minatar")
    n, term, trunc, episodes, resets = ends(rec)
    assert n == envs * steps
    assert term > 0, "no episode terminated in %d steps" % n
    assert resets == envs + episodes
    if game == "seaquest":  # where gymnax differs, MinAtar is the reference
        assert no_diver_surfacings(rec) > 0
    a = args(game, *MINATAR[game], reference="minatar")
    rc = cmp.compare_minatar(a, np, rec=rec)
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "identical steps        100.0000 %% (%d/%d)" % (n, n) in out, out


def corrupted(np, rec):
    """rec with one observation byte of one step record flipped and the
    reward of another changed; and those two records' indices among the
    steps."""
    rec = rec.copy()
    steps = np.nonzero(rec["reset"] == 0)[0]
    i, j = steps[len(steps) // 3], steps[len(steps) // 2]
    rec["obs"][i, 7] ^= 1
    rec["reward"][j] += 1
    return rec


def test_minatar_comparison_catches_one_byte(np, cmp, openmp, minatar,
                                             capsys):
    rec = corrupted(np, cached_trace(np, cmp, openmp, "asterix", "minatar"))
    n = int((rec["reset"] == 0).sum())
    a = args("asterix", *MINATAR["asterix"], reference="minatar")
    rc = cmp.compare_minatar(a, np, rec=rec)
    out = capsys.readouterr().out
    assert rc == 1, out
    assert "identical observations 99." in out and "(%d/%d)" % (n - 1, n) \
        in out, out
    assert "identical steps        99." in out and "(%d/%d)" % (n - 2, n) \
        in out, out


def test_gymnax_comparison_catches_one_byte(np, cmp, openmp, gymnax,
                                            capsys):
    rec = corrupted(np, cached_trace(np, cmp, openmp, "breakout", "gymnax"))
    n = int((rec["reset"] == 0).sum())
    a = args("breakout", *GYMNAX["breakout"])
    rc = compare_gymnax(np, gymnax, cmp, a, rec)
    out = capsys.readouterr().out
    assert rc == 1, out
    assert "identical observations 99." in out, out
    assert "identical rewards      99." in out, out
    assert "identical steps        99." in out and "(%d/%d)" % (n - 2, n) \
        in out, out
