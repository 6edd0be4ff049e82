"""DLPack into JAX (CPU): jax.dlpack.from_dlpack and jnp.from_dlpack of
every result view and the action buffer. XLA imports host memory without
a copy only where it is aligned to 64 bytes; elsewhere from_dlpack copies
(and copy=False says why). Either way the values are the numpy views'."""
import numpy as np
import pytest

from conftest import need

NAMES = ("obs", "reward", "terminated", "truncated", "final_obs", "actions")


def _first(d):
    nat = d.native
    return nat["handle"] + nat["offset"]


def _numpy(d):
    return np.asarray(d)  # the buffer protocol: the view itself


def _import(jax, how, d):
    """(array, zero_copy) of d through `how`, asking first for no copy;
    a refusal must be JAX's alignment rule, and then the copy is taken."""
    f = jax.dlpack.from_dlpack if how == "jax.dlpack" else \
        jax.numpy.from_dlpack
    try:
        x = f(d, copy=False)
    except ValueError as e:
        assert "not aligned" in str(e), str(e)
        assert _first(d) % 64, "%s at %#x is 64-byte aligned: %s" % (
            d.name, _first(d), e)
        return f(d), False
    assert x.unsafe_buffer_pointer() == _first(d), d.name
    return x, True


@pytest.mark.parametrize("id,n_actions,kw", [
    ("CartPole-v1", 2, {"autoreset_mode": "same_step"}),
    ("Acrobot-v1", 3, {"max_episode_steps": 5})])
@pytest.mark.parametrize("how", ["jax.dlpack", "jnp"])
def test_jax_from_dlpack(id, n_actions, kw, how):
    jax = need("jax", "the DLPack tests with JAX")
    import weft.envs as E

    if id not in E.ids():
        pytest.skip("%s is not installed" % id)
    env = E.make(id, 8, backend="openmp", **kw)
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    zero = {}
    for k in range(12):
        env.step(rng.integers(0, n_actions, 8))
        for name in NAMES:
            d = env.device_array(name)
            x, zero_copy = _import(jax, how, d)
            ref = _numpy(d)
            assert x.shape == ref.shape and x.dtype == ref.dtype, name
            np.testing.assert_array_equal(np.asarray(x), ref,
                                          err_msg="%s step %d" % (name, k))
            zero.setdefault(name, (x, zero_copy))
    # the buffers start 64-byte aligned: obs (at offset 0) and the
    # actions come without a copy, and show the latest step
    assert zero["obs"][1] and zero["actions"][1]
    if id == "CartPole-v1":
        # every region of CartPole's packed buffer begins at a multiple
        # of 64 bytes (models/cartpole/cartpole.md): no view is copied
        copied = [name for name, (x, zc) in zero.items() if not zc]
        assert not copied, copied
    for name, (x, zero_copy) in zero.items():
        if zero_copy:
            np.testing.assert_array_equal(np.asarray(x),
                                          _numpy(env.device_array(name)))
    env.close()
