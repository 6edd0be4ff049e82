"""CartPoleVectorEnv.episode_statistics()'s longest return: max_return and
recent_max_return, as weft_cartpole_stats gives them, from the model's
"stats" list and "control" view; checked against the returns of the
episodes step() ended (final_return where terminated or truncated).
It fails where max_return is missing (a model without the view, or
episode_statistics() without it)."""
import numpy as np
import pytest

from weft.envs import CartPoleVectorEnv


def _steps(env, rng, n):
    """n steps of random actions: the longest episode they ended."""
    longest = 0
    for _ in range(n):
        _, _, term, trunc, _ = env.step(rng.integers(0, 2, env.num_envs))
        ended = term | trunc
        if ended.any():
            longest = max(longest, int(env.final_return[ended].max()))
    return longest


@pytest.mark.parametrize("backend", ["openmp", "opencl"])
@pytest.mark.parametrize("precision", ["f32", "f64"])
def test_max_return_of_steps_and_policy_steps(backend, precision,
                                              backends):
    if backend not in backends:
        pytest.skip("the %s backend is not available here" % backend)
    env = CartPoleVectorEnv(16, backend=backend, precision=precision,
                            max_episode_steps=100)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    first = _steps(env, rng, 200)
    st = env.episode_statistics()
    assert first > 0 and st["episodes"] > 0
    assert st["max_return"] == st["recent_max_return"] == first
    # the next interval's episodes: its own maximum, the overall one kept
    second = _steps(env, rng, 20)
    st = env.episode_statistics()
    assert 0 < second < first  # (these seeds)
    assert st["recent_max_return"] == second and st["max_return"] == first
    st = env.episode_statistics()  # nothing ended since
    assert st["recent_episodes"] == 0 and st["recent_max_return"] == 0.0
    assert st["max_return"] == first
    # the on-device linear policy's episodes count too: truncated at 100
    env.policy_steps(150)
    st = env.episode_statistics()
    assert st["recent_episodes"] > 0 and st["recent_max_return"] == 100.0
    assert st["max_return"] == 100.0
    env.close()
