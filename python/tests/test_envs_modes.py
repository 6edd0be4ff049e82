"""Each autoreset mode of weft.envs.make against gymnasium.vector.
SyncVectorEnv in that mode, bit for bit, for the ids whose f64 physics
are Gymnasium's (CartPole-v1, MountainCar-v0, MountainCarContinuous-v0,
Pendulum-v1; see models/*/*.md), across many episode ends, terminations
and truncations both.

weft draws its first states with its own generator (not numpy's PCG64),
so Gymnasium is put into weft's state (env.unwrapped.state from weft's
"state" view, as bench/gym-compare.py does) wherever an episode begins:
after reset(), after SAME_STEP's in-step reset, after NEXT_STEP's reset
step, after DISABLED's reset(options={"reset_mask": ...}). CartPole then
runs freely (its f64 step is Gymnasium's bit for bit, state included);
the others are put into weft's state before every step too, because
their pages allow a rare 1-ulp state difference where glibc's sin/cos
misround (float32 hides it in the observation). Everything a step
returns is compared: obs, reward, terminated, truncated and, in
SAME_STEP, final_obs/final_info and their masks."""
import numpy as np
import pytest

from conftest import need

gym = need("gymnasium", "the reference is Gymnasium's SyncVectorEnv")
from gymnasium.vector import AutoresetMode  # noqa: E402

import weft.envs as E  # noqa: E402

IDS = E.ids()
N = 6
MODES = {"next_step": AutoresetMode.NEXT_STEP,
         "same_step": AutoresetMode.SAME_STEP,
         "disabled": AutoresetMode.DISABLED}


# ---- per id: episode length, steps, policy, what a first and a terminal
# observation look like ----------------------------------------------------

def _cartpole_actions(obs, t, rng):
    """Envs 0-2 balance (5 % flips: they reach the time limit), 3-5
    push at random (they fall)."""
    a = (obs[:, 2] + 0.5 * obs[:, 3] + 0.01 * obs[:, 1] > 0).astype(np.int64)
    a = np.where(rng.random(N) < 0.05, 1 - a, a)
    a[3:] = rng.integers(0, 2, N - 3)
    return a


def _energy_actions(obs, t, rng):
    """Envs 0-3 push the way the car moves (they reach the goal), 4-5 at
    random (they reach the time limit)."""
    a = np.where(obs[:, 1] >= 0, 2, 0).astype(np.int64)
    a[4:] = rng.integers(0, 3, N - 4)
    return a


def _energy_forces(obs, t, rng):
    f = np.float32(1.0) - np.float32(0.25) * np.float32(t % 3)
    a = np.where(obs[:, 1] >= 0, f, -f).astype(np.float32)
    a[4:] = rng.uniform(-1.5, 1.5, N - 4)  # clipped by both
    return a.reshape(N, 1)


def _torques(obs, t, rng):
    return rng.uniform(-2.5, 2.5, (N, 1)).astype(np.float32)


_THETA = 12 * 2 * np.pi / 360

CASES = {
    # max_episode_steps, steps, resync every step, actions, first state ok,
    # terminal observation ok
    "CartPole-v1": dict(
        max_steps=40, steps=260, resync=False, actions=_cartpole_actions,
        first=lambda s: (np.abs(s) <= 0.05).all(axis=-1),
        terminal=lambda o: (np.abs(o[:, 0]) > 2.4) | (np.abs(o[:, 2]) >
                                                      _THETA)),
    "MountainCar-v0": dict(
        max_steps=130, steps=300, resync=True, actions=_energy_actions,
        first=lambda s: (s[:, 0] >= -0.6) & (s[:, 0] < -0.4) & (s[:, 1] == 0),
        terminal=lambda o: (o[:, 0] >= 0.5) & (o[:, 1] >= 0)),
    "MountainCarContinuous-v0": dict(
        max_steps=115, steps=260, resync=True, actions=_energy_forces,
        first=lambda s: (s[:, 0] >= -0.6) & (s[:, 0] < -0.4) & (s[:, 1] == 0),
        terminal=lambda o: (o[:, 0] >= np.float32(0.45)) & (o[:, 1] >= 0)),
    "Pendulum-v1": dict(
        max_steps=25, steps=90, resync=True, actions=_torques,
        first=lambda s: (np.abs(s[:, 0]) <= np.pi) & (np.abs(s[:, 1]) <= 1),
        terminal=None),  # never terminates: truncations only
}


def _alt(a):
    """Different actions of the same space (for NEXT_STEP's reset step,
    which must ignore them)."""
    if a.dtype.kind == "f":
        return (-a - np.float32(0.5)).astype(np.float32)
    return 1 - np.minimum(a, 1)  # 0 <-> 1 (2 -> 0)


class _Ref:
    """One of SyncVectorEnv's environments, put into weft's states."""

    def __init__(self, wrapped, dtypes):
        self.u = wrapped.unwrapped
        self.reset_dtype, self.step_dtype = dtypes
        self.obs_of = (getattr(self.u, "_get_ob", None)
                       or getattr(self.u, "_get_obs", None)
                       or (lambda: np.array(self.u.state, dtype=np.float32)))

    def set_state(self, s, first):
        # the dtype Gymnasium's own state has there (MountainCarContinuous
        # keeps float64 after reset, float32 after a step; its next step
        # computes in that type)
        self.u.state = np.array(s, dtype=self.reset_dtype if first
                                else self.step_dtype)
        if hasattr(self.u, "steps_beyond_terminated"):
            self.u.steps_beyond_terminated = None

    def obs(self):
        return np.asarray(self.obs_of(), dtype=np.float32)

    def state(self):
        return np.asarray(self.u.state, dtype=np.float64)


def _state_dtypes(env_id):
    u = gym.make(env_id).unwrapped
    u.reset(seed=0)
    first = np.asarray(u.state).dtype
    sp = u.action_space
    u.step(int(sp.start) if isinstance(sp, gym.spaces.Discrete)
           else ((sp.low + sp.high) / 2).astype(sp.dtype))
    return first, np.asarray(u.state).dtype


def _same(x, y, what):
    x, y = np.asarray(x), np.asarray(y)
    assert x.dtype == y.dtype and x.shape == y.shape, what
    assert x.tobytes() == y.tobytes(), "%s:\nweft %r\ngym  %r" % (what, x, y)


def _pair(env_id, mode, cfg):
    if env_id not in IDS:
        pytest.skip("%s is not installed here" % env_id)
    kw = dict(autoreset_mode=mode, max_episode_steps=cfg["max_steps"],
              precision="f64")
    w = E.make(env_id, N, **kw)
    twin = E.make(env_id, N, **kw) if mode == "next_step" else None
    g = gym.vector.SyncVectorEnv(
        [lambda: gym.make(env_id, max_episode_steps=cfg["max_steps"])
         for _ in range(N)], autoreset_mode=MODES[mode])
    return w, twin, g


def _begin(w, refs, cfg, which, obs, what):
    """Episodes begin in `which`: weft's first states are first states,
    its observations are Gymnasium's of them, and Gymnasium is put into
    them."""
    idx = np.flatnonzero(which)
    if not len(idx):
        return
    st = w.read_state()
    assert cfg["first"](st[idx]).all(), (what, st[idx])
    for i in idx:
        refs[i].set_state(st[i], first=True)
        _same(obs[i], refs[i].obs(), "%s: env %d's first observation"
              % (what, i))


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("env_id", list(CASES))
def test_mode_bit_for_bit_as_sync_vector_env(env_id, mode):
    cfg = CASES[env_id]
    w, twin, g = _pair(env_id, mode, cfg)
    assert w.metadata["autoreset_mode"] == MODES[mode]
    refs = [_Ref(e, _state_dtypes(env_id)) for e in g.envs]
    rng = np.random.default_rng(2024)

    obs, _ = w.reset(seed=11)
    g.reset(seed=11)
    if twin is not None:
        _same(twin.reset(seed=11)[0], obs, "twin's reset")
    _begin(w, refs, cfg, np.ones(N, bool), obs, "reset")
    first = np.ones(N, bool)      # envs at an episode's first state
    pending = np.zeros(N, bool)   # NEXT_STEP: ended at the previous step
    terms = truncs = resets = 0
    for t in range(cfg["steps"]):
        if cfg["resync"]:
            st = w.read_state()
            for i in np.flatnonzero(~pending):
                refs[i].set_state(st[i], first=first[i])
        a = cfg["actions"](obs, t, rng)
        obs, r, te, tr, info = w.step(a)
        go, gr, gte, gtr, ginfo = g.step(a)
        at = "%s %s step %d" % (env_id, mode, t)
        _same(te, gte, at + ": terminated")
        _same(tr, gtr, at + ": truncated")
        _same(r, gr.astype(r.dtype), at + ": reward")
        ended = te | tr
        terms += int(te.sum())
        truncs += int(tr.sum())
        live = ~pending
        # every observation of a stepped env (the ending step's included)
        # is Gymnasium's; SAME_STEP's ended envs show the next episode's
        if mode == "same_step":
            _same(obs[live & ~ended], go[live & ~ended], at + ": obs")
        else:
            _same(obs[live], go[live], at + ": obs")
        if not cfg["resync"]:  # CartPole: the f64 state too, bit for bit
            st = w.read_state()
            stepped = live & ~ended if mode == "same_step" else live
            for i in np.flatnonzero(stepped):
                _same(st[i], refs[i].state(), at + ": env %d state" % i)

        if mode == "next_step":
            assert info == {} and "final_obs" not in ginfo
            # the reset step: the action ignored, reward 0, not ended,
            # the next episode's first observation
            assert (r[pending] == 0).all() and not ended[pending].any()
            _begin(w, refs, cfg, pending, obs, at)
            resets += int(pending.sum())
            t_obs, t_r, t_te, t_tr, _ = twin.step(np.where(
                pending.reshape((N,) + (1,) * (a.ndim - 1)), _alt(a), a))
            for x, y, name in ((t_obs, obs, "obs"), (t_r, r, "reward"),
                               (t_te, te, "terminated"),
                               (t_tr, tr, "truncated")):
                _same(x, y, at + ": the twin given other actions at reset "
                      "steps: " + name)
            # the ending step's observation is the terminal one (it is
            # Gymnasium's, above, and it is past the termination bounds),
            # not the next episode's first
            if cfg["terminal"] is not None:
                assert cfg["terminal"](obs[te]).all(), (at, obs[te])
            first = pending.copy()
            pending = ended.copy()
        elif mode == "same_step":
            if not ended.any():
                assert info == {} and ginfo == {}
            else:
                assert set(info) == {"final_obs", "_final_obs",
                                     "final_info", "_final_info"}
                assert set(ginfo) >= set(info)
                _same(info["_final_obs"], ended, at + ": _final_obs")
                _same(info["_final_obs"], ginfo["_final_obs"], at)
                _same(info["_final_info"], ginfo["_final_info"], at)
                assert info["final_obs"].dtype == object
                for i in range(N):
                    f = info["final_obs"][i]
                    if not ended[i]:
                        assert f is None
                        continue
                    _same(f, ginfo["final_obs"][i],
                          at + ": env %d's final_obs" % i)
                assert info["final_info"] == ginfo["final_info"] == {}
                if cfg["terminal"] is not None:
                    fin = np.stack([info["final_obs"][i]
                                    for i in np.flatnonzero(te)]) \
                        if te.any() else np.zeros((0,) + obs.shape[1:])
                    assert cfg["terminal"](fin).all(), (at, fin)
                _begin(w, refs, cfg, ended, obs, at)
                resets += int(ended.sum())
            first = ended.copy()
        else:  # disabled: the caller resets the ended envs
            assert info == {} and "final_obs" not in ginfo
            if cfg["terminal"] is not None:
                assert cfg["terminal"](obs[te]).all(), (at, obs[te])
            first[:] = False
            mask = ended.copy()
            if t % 23 == 22:  # now and then an env in mid-episode too
                mask[t % N] = True
            if mask.any():
                keep = obs.copy()
                obs, winfo = w.reset(options={"reset_mask": mask.copy()})
                go, _ = g.reset(options={"reset_mask": mask.copy()})
                assert winfo == {}
                _same(obs[~mask], keep[~mask], at + ": envs kept")
                _same(obs[~mask], go[~mask], at + ": envs kept (gym)")
                _begin(w, refs, cfg, mask, obs, at + " reset_mask")
                resets += int(ended.sum())
                first = mask
    # episodes ended in every way this id has, and were begun again
    assert truncs >= 3, (terms, truncs)
    if cfg["terminal"] is not None:
        assert terms >= 3, (terms, truncs)
    assert resets >= terms + truncs - N, (resets, terms, truncs)
    for e in (w, twin, g):
        if e is not None:
            e.close()
