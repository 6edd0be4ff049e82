"""render() of every installed id with render_mode="rgb_array", as
Gymnasium's SyncVectorEnv.render() gives frames: a tuple of num_envs
uint8 (H, W, 3) arrays (weft/render.py's sizes: Gymnasium's for classic
control, 10 x MINATAR_CELL square for MinAtar), each a picture (not one
colour), each its environment's (drawn from its state and observation
of now: it changes as the environment steps), each a fresh array that a
later render() leaves be."""
import numpy as np
import pytest

import weft.envs as E
from conftest import need

gym = need("gymnasium", "weft.envs.make builds gymnasium vector environments")
render = pytest.importorskip("weft.render",
                             reason="weft/render.py is not there")

IDS = E.ids()
N = 3
SIZES = {"CartPole-v1": (400, 600), "MountainCar-v0": (400, 600),
         "MountainCarContinuous-v0": (400, 600), "Acrobot-v1": (500, 500),
         "Pendulum-v1": (500, 500)}


def _size(env_id):
    if env_id.startswith("MinAtar/"):
        c = 10 * render.MINATAR_CELL
        return (c, c)
    return SIZES.get(env_id)


def _actions(env, t):
    """Deterministic actions that move every id's picture: MountainCar
    pushed right (the car rolls), the others the action space's draws."""
    if env.id.startswith("MountainCar"):
        return np.full(env.action_space.shape, 2 if env.id ==
                       "MountainCar-v0" else 1.0, env.action_space.dtype)
    return env.action_space.sample()


def _check_frames(env, frames, what):
    assert isinstance(frames, tuple) and len(frames) == env.num_envs, what
    want = _size(env.id)
    for i, f in enumerate(frames):
        assert isinstance(f, np.ndarray), what
        assert f.dtype == np.uint8 and f.ndim == 3 and f.shape[2] == 3, \
            (what, f.dtype, f.shape)
        if want is not None:
            assert f.shape[:2] == want, (what, f.shape)
        # a picture, not one colour: at least two colours
        flat = f.reshape(-1, 3)
        assert (flat != flat[0]).any(axis=1).any(), (what, i, flat[0])


@pytest.mark.parametrize("env_id", IDS)
def test_render_every_id(env_id):
    env = E.make(env_id, N, render_mode="rgb_array")
    assert env.render_mode == "rgb_array"
    assert env.metadata["render_modes"] == ["rgb_array"]
    if not env_id.startswith("MinAtar/"):
        # Gymnasium's own frame rate, which SyncVectorEnv's metadata has
        gym_env = gym.make(env_id)
        assert env.metadata["render_fps"] == \
            gym_env.metadata["render_fps"], env_id
        gym_env.close()
    else:
        assert "render_fps" not in env.metadata
    env.action_space.seed(5)
    obs, _ = env.reset(seed=3)
    first = env.render()
    _check_frames(env, first, "after reset")
    kept = [f.copy() for f in first]
    for t in range(15):
        obs, *_ = env.step(_actions(env, t))
    now = env.render()
    _check_frames(env, now, "after 15 steps")
    for i in range(N):
        # the frames of the first render() are not overwritten by the next
        assert first[i].tobytes() == kept[i].tobytes(), i
        assert not np.shares_memory(first[i], now[i])
        # the picture moved with its environment
        assert now[i].tobytes() != kept[i].tobytes(), (env_id, i)
    # each frame is its environment's, drawn from its state (where the
    # model declares one) and observation of now
    state = env.read_state() if "state" in env.views() else None
    for i in range(N):
        want = render.frame(env_id, None if state is None else state[i],
                            obs[i])
        assert now[i].tobytes() == want.tobytes(), i
    if env_id.startswith("MinAtar/"):
        # each cell one colour, black exactly where no channel is set
        cell = render.MINATAR_CELL
        for i in range(N):
            cells = now[i].reshape(10, cell, 10, cell, 3)
            assert (cells == cells[:, :1, :, :1]).all()
            black = (cells[:, 0, :, 0] == 0).all(axis=-1)
            assert (black == ~(obs[i] != 0).any(axis=-1)).all(), i
    env.close()


@pytest.mark.parametrize("env_id", IDS)
def test_make_vec_render_every_id(env_id):
    gym = need("gymnasium", "gymnasium.make_vec")
    env = gym.make_vec(E.gym_id(env_id), num_envs=2,
                       render_mode="rgb_array")
    env.reset(seed=0)
    env.step(env.action_space.sample())
    frames = env.render()
    assert len(frames) == 2
    assert all(f.dtype == np.uint8 and f.ndim == 3 and f.shape[2] == 3
               for f in frames)
    env.close()
