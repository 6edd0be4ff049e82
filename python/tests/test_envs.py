"""weft.envs.make: any environment model of the protocol (weft/env.h) as
a gymnasium.vector.VectorEnv: spaces from the declared ones, seeding as
SyncVectorEnv, the three autoreset modes checked against SyncVectorEnv of
Gymnasium's own CartPole-v1 for their structure (the states differ:
Philox against numpy's generator; test_envs_modes.py compares every mode
bit for bit from weft's states), Gymnasium's vector wrappers, and
gymnasium.make_vec("weft/ID")."""
import numpy as np
import pytest

from conftest import need

gym = need("gymnasium", "weft.envs.make builds gymnasium vector environments")
from gymnasium.vector import AutoresetMode  # noqa: E402

import weft  # noqa: E402
import weft.envs as E  # noqa: E402
from weft import _weft  # noqa: E402

IDS = E.ids()
N = 6


def _skip_unless(id):
    if id not in IDS:
        pytest.skip("%s is not among the installed environment models (%s)"
                    % (id, ", ".join(IDS)))


@pytest.fixture(params=IDS)
def env_id(request):
    return request.param


def test_ids_and_entries():
    entries = weft._weft.envs()
    assert [e["id"] for e in entries] == sorted(IDS) == IDS
    for e in entries:
        section = e["count_key"].split(".")[0]
        assert e["autoreset_key"].startswith(section + ".")
        assert e["model"] and e["path"]


def test_spaces_are_gymnasiums(env_id):
    env = E.make(env_id, N)
    try:
        ref = gym.make(env_id)
    except Exception as e:  # an id Gymnasium itself does not have
        pytest.skip("gymnasium has no %s (%s)" % (env_id, e))
    so, sa = env.single_observation_space, env.single_action_space
    ro, ra = ref.observation_space, ref.action_space
    assert type(so) is type(ro) and so.shape == ro.shape
    assert so.dtype == ro.dtype == np.float32
    np.testing.assert_array_equal(so.low, ro.low)
    np.testing.assert_array_equal(so.high, ro.high)
    assert type(sa) is type(ra) and sa.shape == ra.shape
    if isinstance(ra, gym.spaces.Discrete):
        assert (sa.n, sa.start) == (ra.n, ra.start)
        assert isinstance(env.action_space, gym.spaces.MultiDiscrete)
        assert env.action_space.shape == (N,)
    else:
        np.testing.assert_array_equal(sa.low, ra.low)
        np.testing.assert_array_equal(sa.high, ra.high)
        assert env.action_space.shape == (N,) + ra.shape
    assert env.observation_space.shape == (N,) + ro.shape
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    env.close()


def test_seeds_as_sync_vector_env(env_id):
    """reset(seed=s) seeds environment i with s + i; a seed gives the same
    episode whatever the environment's index; None: the next episode."""
    a = E.make(env_id, N)
    b = E.make(env_id, N)
    obs_a = a.reset(seed=40)[0].copy()
    obs_b = b.reset(seed=[None, None, 40, 41, None, 45])[0]
    np.testing.assert_array_equal(obs_b[2], obs_a[0])
    np.testing.assert_array_equal(obs_b[3], obs_a[1])
    np.testing.assert_array_equal(obs_b[5], obs_a[5])
    again = a.reset(seed=40)[0]
    np.testing.assert_array_equal(again, obs_a)
    nxt = a.reset()[0]
    # the next episodes differ, where first states are drawn at all
    # (MinAtar's Asterix, Seaquest and Space Invaders start the same way
    # every time)
    if any(not np.array_equal(obs_a[0], obs_a[i]) for i in range(1, N)):
        assert not np.array_equal(nxt, obs_a)
    # reset_mask: only those
    before = a.step(a.action_space.sample())[0].copy()
    mask = np.zeros(N, dtype=bool)
    mask[1] = True
    obs = a.reset(seed=40, options={"reset_mask": mask})[0]
    np.testing.assert_array_equal(obs[1], obs_a[1])
    np.testing.assert_array_equal(obs[0], before[0])
    a.close()
    b.close()


def test_results_are_writable_arrays(env_id):
    env = E.make(env_id, N)
    obs, _ = env.reset(seed=0)
    o, r, te, tr, _ = env.step(env.action_space.sample())
    for x in (o, r, te, tr):
        assert isinstance(x, np.ndarray) and x.flags.writeable
    assert te.dtype == tr.dtype == np.bool_
    assert o.shape == env.observation_space.shape and r.shape == (N,)
    c = E.make(env_id, N, copy=True)
    o1, _ = c.reset(seed=0)
    o2 = c.step(c.action_space.sample())[0]
    assert not np.shares_memory(o1, o2)
    env.close()
    c.close()


def test_each_step_its_own_info(env_id):
    """Where a step has nothing but the views to return (NEXT_STEP, no
    info fields, no copies), each step still gets a dict of its own: what
    a caller adds to one step's info is not in the next one's."""
    env = E.make(env_id, N)
    env.reset(seed=0)
    first = env.step(env.action_space.sample())
    first[4]["seen"] = True
    second = env.step(env.action_space.sample())
    assert "seen" not in second[4] and second[4] is not first[4]
    assert all(a is b for a, b in zip(first[:4], second[:4]))  # the views
    env.close()
    with pytest.raises(ValueError, match="closed"):
        env.step(env.action_space.sample())


# ---- the autoreset modes against SyncVectorEnv --------------------------

def _run(env, steps, actions):
    out = []
    env.reset(seed=7)
    for t in range(steps):
        o, r, te, tr, info = env.step(actions(t))
        out.append((o.copy(), np.asarray(r, dtype=np.float64).copy(),
                    te.copy(), tr.copy(), info))
    return out


_GYM_MODE = {"next_step": AutoresetMode.NEXT_STEP,
             "same_step": AutoresetMode.SAME_STEP,
             "disabled": AutoresetMode.DISABLED}


def _cartpole_pair(mode):
    _skip_unless("CartPole-v1")
    w = E.make("CartPole-v1", N, autoreset_mode=mode)
    g = gym.vector.SyncVectorEnv(
        [lambda: gym.make("CartPole-v1") for _ in range(N)],
        autoreset_mode=_GYM_MODE.get(mode, mode))
    return w, g


def _fresh(o):
    """A CartPole-v1 reset observation: every component in +-0.05."""
    return (np.abs(o) <= 0.05).all(axis=-1)


def _pushes(t):
    return np.full(N, t // 3 % 2, dtype=np.int64)  # ends within ~30 steps


def check_next_step(out):
    ends = 0
    for t in range(1, len(out)):
        o, r, te, tr, info = out[t]
        po, _, pte, ptr, _ = out[t - 1]
        was = pte | ptr
        assert "final_obs" not in info
        # the ending step's observation is the terminal one (past
        # CartPole's bounds, not a first observation); the reset comes
        # with the next step
        assert ((np.abs(po[pte][:, 0]) > 2.4) |
                (np.abs(po[pte][:, 2]) > 12 * 2 * np.pi / 360)).all()
        assert not _fresh(po[pte]).any()
        # the step after an end: the next episode's first observation,
        # reward 0, not ended
        assert (r[was] == 0).all() and not (te | tr)[was].any()
        assert _fresh(o[was]).all()
        assert (r[~was] == 1).all()
        ends += int(was.sum())
    assert ends > 0
    return ends


def check_same_step(out):
    ends = 0
    for o, r, te, tr, info in out:
        ended = te | tr
        assert (r == 1).all()
        if not ended.any():
            assert info == {}
            continue
        ends += int(ended.sum())
        assert set(info) == {"final_obs", "_final_obs", "final_info",
                             "_final_info"}
        assert info["final_obs"].dtype == object
        assert (info["_final_obs"] == ended).all()
        assert (info["_final_info"] == ended).all()
        for i in range(N):
            f = info["final_obs"][i]
            if ended[i]:
                assert f.shape == (4,) and f.dtype == np.float32
                assert abs(f[2]) > 0.2094 or abs(f[0]) > 2.4
                assert _fresh(o[i])  # the new episode's first
            else:
                assert f is None
    assert ends > 0
    return ends


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, "next_step"])
def test_next_step_as_sync_vector_env(mode):
    w, g = _cartpole_pair(mode)
    assert w.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    check_next_step(_run(g, 120, _pushes))
    check_next_step(_run(w, 120, _pushes))
    w.close()


def test_same_step_as_sync_vector_env():
    w, g = _cartpole_pair(AutoresetMode.SAME_STEP)
    assert w.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    gout, wout = _run(g, 120, _pushes), _run(w, 120, _pushes)
    check_same_step(gout)
    check_same_step(wout)
    # final_obs entries are copies: the next step leaves them be
    for o, r, te, tr, info in wout:
        if info:
            kept = [f.copy() for f in info["final_obs"] if f is not None]
            w.step(_pushes(0))
            now = [f for f in info["final_obs"] if f is not None]
            for x, y in zip(kept, now):
                np.testing.assert_array_equal(x, y)
            break
    w.close()


def test_disabled_as_sync_vector_env():
    w, g = _cartpole_pair("disabled")
    assert w.metadata["autoreset_mode"] == AutoresetMode.DISABLED
    for env in (g, w):
        env.reset(seed=3)
        resets = 0
        for t in range(120):
            o, r, te, tr, info = env.step(_pushes(t))
            assert "final_obs" not in info and (r == 1).all()
            ended = te | tr
            if ended.any():
                keep = o.copy()
                o2, _ = env.reset(options={"reset_mask": ended})
                assert _fresh(o2[ended]).all()
                np.testing.assert_array_equal(o2[~ended], keep[~ended])
                resets += 1
        assert resets > 0
    w.close()


# ---- Gymnasium's wrappers ----------------------------------------------

@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_wrappers(env_id, mode):
    """ClipReward, NormalizeObservation, TransformObservation (Gymnasium
    refuses its observation wrappers in SAME_STEP mode, for SyncVectorEnv
    too) and RecordEpisodeStatistics over a weft env."""
    from gymnasium.wrappers import vector as V

    # episodes short enough that random actions end some in 250 steps
    env = E.make(env_id, N, autoreset_mode=mode, max_episode_steps=50)
    if mode == "next_step":
        inner = V.NormalizeObservation(V.TransformObservation(
            env, lambda o: o * 2, env.observation_space))
    else:  # Gymnasium's observation wrappers refuse SAME_STEP
        for wrap in (lambda e: V.NormalizeObservation(e),
                     lambda e: V.TransformObservation(
                         e, lambda o: o * 2, e.observation_space)):
            # Gymnasium 1.4 raises a ValueError naming autoreset_mode,
            # 1.3 (what EnvPool's and gymnax's pins install) asserts
            with pytest.raises((ValueError, AssertionError)):
                wrap(env)
        inner = env
    w = V.RecordEpisodeStatistics(V.ClipReward(inner, -0.5, 0.5))
    w.reset(seed=0)
    episodes = 0
    for _ in range(250):
        o, r, te, tr, info = w.step(w.action_space.sample())
        assert o.shape == env.observation_space.shape
        assert (r >= -0.5).all() and (r <= 0.5).all()
        if "episode" in info:
            episodes += int(info["_episode"].sum())
            assert (info["episode"]["l"][info["_episode"]] > 0).all()
    assert episodes > 0
    w.close()


def test_box_actions(env_id):
    env = E.make(env_id, N)
    if not isinstance(env.single_action_space, gym.spaces.Box):
        pytest.skip("%s has discrete actions" % env_id)
    env.reset(seed=0)
    a = np.zeros(env.action_space.shape, dtype=np.float64)
    a[0] = 1e6  # out of bounds: the model clips, as Gymnasium's does
    env.step(a)
    env.step(a.tolist())
    with pytest.raises(ValueError, match="not finite"):
        a[1] = np.nan
        env.step(a)
    env.close()


def test_make_vec():
    for id in IDS:
        assert E.gym_id(id) in gym.registry
    assert E.gym_id("MinAtar/Breakout-v1") == "weft/MinAtar-Breakout-v1"
    env = gym.make_vec("weft/" + IDS[0], num_envs=8)
    assert env.num_envs == 8 and env.unwrapped.id == IDS[0]
    env.reset(seed=1)
    env.step(env.action_space.sample())
    env.close()
    env = gym.make_vec("weft/" + IDS[0], num_envs=3,
                       autoreset_mode=AutoresetMode.SAME_STEP)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    env.close()
    # each id's spec has its truncation and reward threshold, as
    # Gymnasium's own ids do (the same values where Gymnasium has the
    # id), and make_vec's max_episode_steps= sets the truncation
    for e in _weft.envs(None):
        spec = gym.spec(E.gym_id(e["id"]))
        assert spec.max_episode_steps == (e["max_episode_steps"] or None)
        assert spec.reward_threshold == e["reward_threshold"]
        theirs = gym.registry.get(e["id"])
        if theirs is not None and str(theirs.entry_point).startswith(
                "gymnasium.envs."):
            assert (spec.max_episode_steps, spec.reward_threshold) == \
                (theirs.max_episode_steps, theirs.reward_threshold), e["id"]
    if "CartPole-v1" in IDS:
        assert gym.spec("weft/CartPole-v1").max_episode_steps == \
            gym.spec("CartPole-v1").max_episode_steps == 500
        env = gym.make_vec("weft/CartPole-v1", 2, max_episode_steps=3)
        assert env.spec.max_episode_steps == 500
        env.reset(seed=0)
        for _ in range(3):
            *_, trunc, _ = env.step(np.ones(2, np.int64))
        assert trunc.all()
        env.close()


def test_device_arrays_and_step_device(env_id):
    a, b = E.make(env_id, N), E.make(env_id, N)
    a.reset(seed=5)
    b.reset(seed=5)
    if a.device_array("actions").native["kind"] != "host":
        pytest.skip("not a host backend")
    act = np.asarray(a.device_array("actions"))
    assert act.flags.writeable
    for _ in range(20):
        x = b.action_space.sample()
        act[...] = x.reshape(act.shape)
        ra, rb = a.step_device(), b.step(x)
        for u, v in zip(ra[:4], rb[:4]):
            assert u.tobytes() == v.tobytes()
    a.close()
    b.close()


def test_one_transfer_each_way_per_step(env_id, backends):
    """A step is one write of the actions, one launch and either a fence
    wait (host backend: the arrays are its memory, no read) or one read
    of the whole result span; every backend gives the same bits."""
    envs = {b: E.make(env_id, 16, backend=b, autoreset_mode="same_step")
            for b in ("openmp", "opencl") if b in backends}
    for env in envs.values():
        env.reset(seed=3)
    before = {b: e.counters() for b, e in envs.items()}
    for _ in range(25):
        x = next(iter(envs.values())).action_space.sample()
        out = [e.step(x) for e in envs.values()]
        for r in out[1:]:
            for u, v in zip(out[0][:4], r[:4]):
                assert u.tobytes() == v.tobytes()
    for b, e in envs.items():
        c = e.counters()
        d = {k: c[k] - before[b][k] for k in c}
        assert d["launches"] == 25 and d["transfers_h2d"] == 25
        if e.zero_copy:
            assert d["transfers_d2h"] == 0 and d["fence_waits"] == 25
        else:
            assert d["transfers_d2h"] == 25
        e.close()


def test_model_keys_and_max_episode_steps():
    _skip_unless("Pendulum-v1")
    env = E.make("Pendulum-v1", 3, max_episode_steps=5, g=9.81)
    env.reset(seed=0)
    for t in range(5):
        tr = env.step(np.zeros((3, 1), np.float32))[3]
    assert tr.all()
    env.close()


def test_torch_tensors_as_actions(env_id):
    torch = need("torch", "actions from a DLPack producer")
    a, b = E.make(env_id, N), E.make(env_id, N)
    a.reset(seed=9)
    b.reset(seed=9)
    for _ in range(10):
        x = b.action_space.sample()
        t = torch.from_numpy(np.asarray(x, dtype=np.float32
                                        if x.dtype.kind == "f" else np.int64))
        ra, rb = a.step(t), b.step(x)
        assert ra[0].tobytes() == rb[0].tobytes()
    a.close()
    b.close()
