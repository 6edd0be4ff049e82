"""Every environment of the build (weft.envs.ids(): CartPole, Acrobot,
MountainCar, MountainCarContinuous, Pendulum and the MinAtar games) on
the CUDA backend against the same on OpenMP, step for step and byte for
byte: observations, rewards, terminated, truncated and the state, in
each precision the model has; on a GPU also through its device arrays,
a policy in PyTorch writing the actions in place (step_device()).

On a machine with a GPU the CUDA backend itself runs them
(.ci/gpu-check.sh --steps python); elsewhere the CUDA plugin built
against the stand-in runtime (tests/plugins/cuda-mock.c), where NVRTC
compiles each model's kernels as for a GPU and their host builds run,
with the stand-in's streams executing queued work in a random order; a
build without CUDA skips them."""
import numpy as np
import pytest

import weft.envs
from conftest import need, use_cuda_standin

N = 70  # a block of 64 environments and a tail of 6
STEPS = 60
LIMIT = 25  # max_episode_steps: episodes end, and begin, within STEPS


@pytest.fixture
def cuda(backends, monkeypatch):
    """'device' where the CUDA backend runs on a GPU here, else 'stand-in'
    with the stand-in's plugin first on the plugin path."""
    if "cuda" in backends:
        return "device"
    use_cuda_standin(monkeypatch, "neither a CUDA device nor the CUDA "
                     "stand-in")
    return "stand-in"


def _pair(env_id, precision, **kw):
    """The environments on cuda and on openmp; None where precision is
    given and the model has no precision key."""
    extra = {"precision": precision} if precision else {}
    try:
        b = weft.envs.make(env_id, N, backend="openmp", **extra, **kw)
    except ValueError:
        if precision:
            return None
        raise
    try:
        a = weft.envs.make(env_id, N, backend="cuda", **extra, **kw)
    except BaseException:
        b.close()
        raise
    assert (a.backend, b.backend) == ("cuda", "openmp")
    return a, b


def _actions(env, rng):
    """Random actions of env's declared action space, drawn with numpy
    (gymnasium's spaces need not be installed)."""
    sp, dt = env._act_space, env._act_dtype
    if sp["kind"] == "discrete":
        return rng.integers(sp["start"], sp["start"] + sp["n"],
                            size=env.num_envs).astype(dt)
    shape = (env.num_envs,) + tuple(sp["shape"])
    return rng.uniform(sp["low"], sp["high"], size=shape).astype(dt)


def _same(ra, rb, what):
    for name, u, v in zip(("obs", "reward", "terminated", "truncated"),
                          ra[:4], rb[:4]):
        u, v = np.asarray(u), np.asarray(v)
        assert u.dtype == v.dtype and u.shape == v.shape, (what, name)
        assert u.tobytes() == v.tobytes(), (what, name)


def _steps(a, b, what):
    oa, _ = a.reset(seed=11)
    ob, _ = b.reset(seed=11)
    assert oa.tobytes() == ob.tobytes(), what
    rng = np.random.default_rng(12)
    ended = 0
    for step in range(STEPS):
        act = _actions(b, rng)
        ra, rb = a.step(act), b.step(act)
        _same(ra, rb, "%s, step %d" % (what, step))
        ended += int(np.count_nonzero(np.asarray(rb[2]) | np.asarray(rb[3])))
    assert ended, what  # the kernels' ends and resets ran
    if "state" in a.views():
        assert a.read("state").tobytes() == b.read("state").tobytes(), what


@pytest.mark.parametrize("env_id", weft.envs.ids())
def test_steps_match_openmp(cuda, env_id):
    # each precision where the model has the key, else its only one
    pairs = [_pair(env_id, p, max_episode_steps=LIMIT)
             for p in ("f32", "f64")]
    if pairs == [None, None]:
        pairs = [_pair(env_id, None, max_episode_steps=LIMIT)]
    for pair in filter(None, pairs):
        a, b = pair
        try:
            _steps(a, b, "%s, precision %s" % (env_id, a.precision))
        finally:
            a.close()
            b.close()


@pytest.mark.parametrize("env_id", ["Acrobot-v1", "MinAtar/Breakout-v1"])
def test_same_step_final_obs_match_openmp(cuda, env_id):
    a, b = _pair(env_id, None, autoreset_mode="same_step",
                 max_episode_steps=7)
    try:
        a.reset(seed=3)
        b.reset(seed=3)
        rng = np.random.default_rng(4)
        ended = 0
        for step in range(20):
            act = _actions(b, rng)
            ra, rb = a.step(act), b.step(act)
            _same(ra, rb, "%s step %d" % (env_id, step))
            fa, fb = ra[4].get("final_obs"), rb[4].get("final_obs")
            assert (fa is None) == (fb is None)
            if fa is not None:
                ended += 1
                for x, y in zip(fa, fb):
                    assert (x is None) == (y is None)
                    if x is not None:
                        assert x.tobytes() == y.tobytes()
        assert ended  # episodes of 7 steps ended in 20
    finally:
        a.close()
        b.close()


def test_policy_on_the_gpu_matches_host_actions(cuda):
    if cuda != "device":
        pytest.skip("the stand-in's device memory is host memory, which "
                    "DLPack consumers cannot take for CUDA memory")
    torch = need("torch", "the CUDA tests with PyTorch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    for env_id in weft.envs.ids():
        _gpu_policy(torch, env_id)


def _gpu_policy(torch, env_id):
    """Actions written into the device array by torch, stepped with
    step_device(); the same actions from the host on OpenMP."""
    a, b = _pair(env_id, None)
    try:
        a.reset(seed=5)
        b.reset(seed=5)
        act_t = torch.from_dlpack(a.device_array("actions"))
        obs_t = torch.from_dlpack(a.device_array("obs"))
        assert act_t.is_cuda and obs_t.is_cuda
        rng = np.random.default_rng(6)
        for step in range(STEPS):
            act = _actions(b, rng)
            act_t.copy_(torch.from_numpy(act).to(act_t.device))
            assert act_t.cpu().numpy().tobytes() == act.tobytes()
            ra = a.step_device()
            rb = b.step(act)
            _same(ra, rb, "%s step %d" % (env_id, step))
            assert obs_t.cpu().numpy().tobytes() == \
                np.asarray(rb[0]).tobytes()
    finally:
        a.close()
        b.close()
