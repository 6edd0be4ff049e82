"""The generic Env's operations on a model's declared views and launch
lists (views, read, write, launch), CartPoleVectorEnv's extras written
with them (states, final_return, on-device policy steps, episode
statistics), steps that allocate nothing, and render()."""
import gc
import sys
import tracemalloc
import types

import numpy as np
import pytest

import weft
import weft.envs as E
from weft.envs import CartPoleVectorEnv
from conftest import need

IDS = E.ids()


def _skip_unless(env_id):
    if env_id not in IDS:
        pytest.skip("%s is not installed here (ids: %s)"
                    % (env_id, ", ".join(IDS)))


def test_no_model_specific_type():
    """CartPole is driven by the generic Env alone: the extension has no
    type of its own for it."""
    assert not hasattr(weft._weft, "CartPole")
    assert isinstance(CartPoleVectorEnv(2, backend="openmp")._c,
                      weft._weft.Env)


def test_views_read_write_launch():
    _skip_unless("CartPole-v1")
    env = E.make("CartPole-v1", 4, backend="openmp",
                 autoreset_mode="same_step")
    obs, _ = env.reset(seed=0)
    v = env.views()
    assert v["state"] == ("float32", (4, 4))
    assert v["env_book"][0] == "uint32" and v["actions"] == ("uint8", (4,))
    env.launch("state")  # packs the state into the "state" view
    s = env.read("state")
    assert s.dtype == np.float32 and s.shape == (4, 4)
    assert s.tobytes() == obs.tobytes()  # f32: the observation is the state
    assert not np.shares_memory(s, obs)  # a copy
    new = np.tile(np.float32([0.1, -0.2, 0.05, 0.3]), (4, 1))
    env.write("state", new)
    env.write("reset_mask", [0, 1, 1, 0])
    env.launch("set_state")
    assert obs[1:3].tobytes() == new[1:3].tobytes()  # the views show it
    assert obs[0].tobytes() == s[0].tobytes()
    env.launch("state")
    assert env.read("state")[2].tobytes() == new[2].tobytes()
    with pytest.raises(ValueError, match="declares no view 'nope'; its "
                       "views: obs, reward"):
        env.read("nope")
    with pytest.raises(ValueError, match="no launch list named 'nope'"):
        env.launch("nope")
    with pytest.raises(ValueError, match=r"shape \(3,\); the view has "
                       r"shape \(4, 4\)"):
        env.write("state", np.zeros(3))
    with pytest.raises(ValueError, match="n must be an int >= 0"):
        env.launch("state", -1)
    env.launch("state", 0)  # nothing
    env.close()
    with pytest.raises(ValueError, match="closed"):
        env.read("state")


def test_final_return_and_statistics():
    """final_return (a result view brought back with every step) holds
    each ended episode's return; episode_statistics() (from the
    bookkeeping view env_book) counts the same episodes and returns."""
    env = CartPoleVectorEnv(8, backend="openmp")
    env.reset(seed=0)
    assert env.episode_statistics()["episodes"] == 0
    t = np.zeros(8, int)
    ended = returns = 0.0
    for _ in range(300):
        o, r, term, trunc, info = env.step(np.ones(8, np.uint8))
        t += 1
        done = np.flatnonzero(term | trunc)
        assert (env.final_return[done] == t[done]).all()
        ended += len(done)
        returns += t[done].sum()
        t[done] = 0
    st = env.episode_statistics()
    assert st["episodes"] == ended > 50
    assert st["mean_return"] == pytest.approx(returns / ended)
    assert st["recent_episodes"] == ended and st["env_steps"] == 2400
    again = env.episode_statistics()
    assert again["recent_episodes"] == 0 and again["episodes"] == ended
    env.close()


def test_policy_steps():
    """The model's on-device policy ("policy" list): 1,000 steps as one
    launch, nothing sent; its episodes count in the statistics and the
    observations show the states it left."""
    env = CartPoleVectorEnv(64, backend="openmp")
    env.reset(seed=1)
    c0 = env.counters()
    obs = env.policy_steps(1000)
    c = env.counters()
    assert c["transfers_h2d"] == c0["transfers_h2d"]
    assert obs.tobytes() == env.get_state().tobytes()
    st = env.episode_statistics()
    assert st["env_steps"] == 64000 and st["episodes"] >= 128
    assert 100 < st["mean_return"] < 500
    env.close()


def test_generic_statistics_of_any_model():
    _skip_unless("Pendulum-v1")
    env = E.make("Pendulum-v1", 3, backend="openmp", max_episode_steps=5)
    env.reset(seed=0)
    for _ in range(12):  # NEXT_STEP: 5 steps, a reset step, 5 steps, ...
        env.step(np.zeros((3, 1), np.float32))
    st = env.episode_statistics()
    assert st["episodes"] == 6 and st["env_steps"] == 36
    assert st["mean_return"] < 0  # Pendulum's costs
    env.close()


def test_one_read_per_step_with_final_return(backends):
    """On OpenCL a CartPoleVectorEnv step is one write and one read (the
    results and final_return in one span); every bit as OpenMP's."""
    if "opencl" not in backends:
        pytest.skip("OpenCL is not available here")
    a = CartPoleVectorEnv(16, backend="opencl")
    b = CartPoleVectorEnv(16, backend="openmp")
    assert not a.zero_copy and b.zero_copy
    a.reset(seed=5)
    b.reset(seed=5)
    before = a.counters()
    rng = np.random.default_rng(0)
    for _ in range(40):
        x = rng.integers(0, 2, 16)
        for u, v in zip(a.step(x)[:4], b.step(x)[:4]):
            assert u.tobytes() == v.tobytes()
        assert a.final_return.tobytes() == b.final_return.tobytes()
    c = a.counters()
    assert c["transfers_h2d"] - before["transfers_h2d"] == 40
    assert c["transfers_d2h"] - before["transfers_d2h"] == 40
    a.close()
    b.close()


def _steady_steps(env, actions, steps, ended_of):
    """(largest transient allocation of a step that ended no episode,
    memory kept over all steps), in bytes, by tracemalloc."""
    for _ in range(20):  # warm up: caches, first calls
        env.step(actions)
    gc.collect()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        worst = 0
        for _ in range(steps):
            tracemalloc.reset_peak()
            cur0 = tracemalloc.get_traced_memory()[0]
            out = env.step(actions)
            peak = tracemalloc.get_traced_memory()[1]
            if not ended_of(out):
                worst = max(worst, peak - cur0)
            del out
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    return worst, kept


@pytest.mark.parametrize("how,dtype", [("cartpole", np.uint8),
                                       ("make", np.uint8),
                                       ("make", np.int64),
                                       ("make", np.int32)])
def test_steps_allocate_nothing_of_their_size(how, dtype):
    """A step allocates no array of the environments' size (16,384
    environments: any such array would be 16 KiB or more), whatever the
    integer dtype of the actions (numpy's int64, as a policy's argmax
    gives them, is converted and range-checked by the extension in one
    pass, not by a converted copy); what remains is constant: a few small
    Python objects (the result tuple, the info dict, an int) and numpy's
    reduction of the episode ends, and nothing is kept."""
    n = 16384
    if how == "cartpole":
        env = CartPoleVectorEnv(n, backend="openmp")
        env.set_state(np.zeros((n, 4)))
    else:
        _skip_unless("CartPole-v1")
        env = E.make("CartPole-v1", n, backend="openmp")
        env.reset(seed=0)
    actions = np.zeros(n, dtype)
    actions[::2] = 1
    worst, kept = _steady_steps(env, actions, 200,
                                lambda out: (out[2] | out[3]).any())
    assert worst < 4096, worst
    assert kept < 1024, kept
    env.close()


# ---- render() ---------------------------------------------------------------

def test_render_modes():
    _skip_unless("CartPole-v1")
    with pytest.raises(ValueError, match="render_mode must be None or "
                       "'rgb_array'.*got 'human'"):
        E.make("CartPole-v1", 2, render_mode="human")
    with pytest.raises(ValueError, match="render_mode"):
        CartPoleVectorEnv(2, render_mode="ansi")
    env = E.make("CartPole-v1", 2, backend="openmp")
    assert env.metadata["render_modes"] == ["rgb_array"]
    assert env.render_mode is None
    env.reset(seed=0)
    with pytest.raises(ValueError, match="render_mode=None"):
        env.render()
    env.close()


def test_render_calls_frame_with_each_state_and_observation(monkeypatch):
    """The wiring, with a stand-in for weft.render: one frame per
    environment, from the "state" view (packed by the "state" list) and
    the observation."""
    calls = []

    def frame(env_id, state, obs):
        calls.append((env_id, np.array(state), np.array(obs)))
        return np.full((4, 6, 3), len(calls), np.uint8)

    stub = types.ModuleType("weft.render")
    stub.frame = frame
    stub.supported_ids = lambda: ("CartPole-v1", "MinAtar/*")
    monkeypatch.setitem(sys.modules, "weft.render", stub)
    monkeypatch.setattr(weft, "render", stub, raising=False)
    env = CartPoleVectorEnv(3, backend="openmp", render_mode="rgb_array")
    assert env.render_mode == "rgb_array"
    obs, _ = env.reset(seed=4)
    env.step([1, 0, 1])
    frames = env.render()
    assert isinstance(frames, tuple) and len(frames) == 3
    assert [f[0, 0, 0] for f in frames] == [1, 2, 3]
    state = env.get_state()
    for i, (env_id, s, o) in enumerate(calls):
        assert env_id == "CartPole-v1"
        assert s.tobytes() == state[i].tobytes()
        assert o.tobytes() == obs[i].tobytes()
    if "Pendulum-v1" in IDS:
        with pytest.raises(ValueError, match="no renderer for Pendulum-v1"):
            E.make("Pendulum-v1", 2, render_mode="rgb_array")
    env.close()


def test_render_frames():
    render = pytest.importorskip(
        "weft.render", reason="weft/render.py is not there yet")
    _skip_unless("CartPole-v1")
    env = E.make("CartPole-v1", 2, backend="openmp",
                 render_mode="rgb_array")
    env.reset(seed=0)
    env.step([1, 1])
    frames = env.render()
    assert len(frames) == 2
    for i, f in enumerate(frames):
        assert f.dtype == np.uint8 and f.shape == (400, 600, 3)
        want = render.frame("CartPole-v1", env.read_state()[i], None)
        assert f.tobytes() == want.tobytes()
    env.close()
    if "Pendulum-v1" in IDS:  # a state view and no "state" list
        env = E.make("Pendulum-v1", 2, backend="openmp",
                     render_mode="rgb_array")
        env.reset(seed=0)
        f = env.render()
        assert len(f) == 2 and f[0].shape == (500, 500, 3)
        env.close()


def test_gymnasium_make_vec_render_mode():
    gym = need("gymnasium", "gymnasium.make_vec")
    pytest.importorskip("weft.render", reason="weft/render.py is not there")
    _skip_unless("CartPole-v1")
    env = gym.make_vec("weft/CartPole-v1", num_envs=2,
                       render_mode="rgb_array")
    env.reset(seed=0)
    assert env.render_mode == "rgb_array"
    assert len(env.render()) == 2
    env.close()
