"""Bad calls to weft.envs.make's environments (and to a run's step
count) raise ValueError or TypeError naming the argument and what is
expected, and change nothing."""
import copy
import os
import shutil
import threading

import numpy as np
import pytest

from conftest import need

gym = need("gymnasium", "weft.envs.make builds gymnasium vector environments")

import weft  # noqa: E402
import weft.envs as E  # noqa: E402

IDS = E.ids()
pytestmark = pytest.mark.skipif("CartPole-v1" not in IDS,
                                reason="CartPole-v1 is not on the protocol "
                                "here (ids: %s)" % ", ".join(IDS))


@pytest.fixture
def env():
    e = E.make("CartPole-v1", 4)
    yield e
    e.close()


def test_step_before_reset(env):
    with pytest.raises(ValueError, match=r"step\(\) before reset\(\): "
                       r"call reset\(\) first"):
        env.step(np.zeros(4, np.int64))
    env.reset(seed=0)
    env.step(np.zeros(4, np.int64))


@pytest.mark.parametrize("seed", ["x", 3.7, True, b"1",
                                  {1: 2, 3: 4, 5: 6, 7: 8}, {1, 2, 3, 4}])
def test_seed_of_the_wrong_type(env, seed):
    with pytest.raises(TypeError, match=r"seed must be None, an int, or a "
                       r"list of 4 entries \(each an int or None\); got %s"
                       % type(seed).__name__) as e:
        env.reset(seed=seed)
    assert "or None, or None" not in str(e.value)


def test_seed_list(env):
    with pytest.raises(ValueError, match=r"seed: a list of 3 seeds for 4 "
                       r"environments; expected one per environment"):
        env.reset(seed=[1, 2, 3])
    with pytest.raises(TypeError, match=r"seed\[2\] must be an int or None, "
                       r"got float 2.5"):
        env.reset(seed=[1, 2, 2.5, None])
    with pytest.raises(ValueError, match=r"seed\[0\] must be in 0 \.\. "
                       r"2\*\*64 - 1, got -1"):
        env.reset(seed=[-1, 2, 3, 4])
    with pytest.raises(ValueError, match=r"seed must be an int in 0 \.\. "
                       r"2\*\*64 - num_envs, got -5"):
        env.reset(seed=-5)
    # numpy's fixed-width ints are taken as the numbers they are: seeds
    # past 2**64 - 1 refused, not wrapped round to 0
    with pytest.raises(ValueError, match=r"seed must be an int in 0 \.\. "
                       r"2\*\*64 - num_envs, got 18446744073709551615"):
        env.reset(seed=np.uint64(2**64 - 1))
    env.reset(seed=np.int8(127))
    assert env.np_random_seed == 127


def test_reset_mask(env):
    with pytest.raises(ValueError, match=r"options\['reset_mask'\] must be a "
                       r"bool array of shape \(4,\), got int64 of shape"):
        env.reset(options={"reset_mask": np.ones(4, np.int64)})
    with pytest.raises(TypeError, match="options must be a dict or None"):
        env.reset(options=[1])


@pytest.mark.parametrize("options, named", [
    ({"reset_mak": np.ones(4, bool)}, r"key 'reset_mak'"),
    ({"seed": 3, "reset_mask": np.ones(4, bool)}, r"key 'seed'"),
    ({"a": 1, 2: 0}, r"keys 'a', 2"),
])
def test_reset_options_unknown_keys(env, options, named):
    env.reset(seed=0)
    before = env.reset(seed=1)[0].copy()
    with pytest.raises(ValueError, match=r"options: unknown %s; reset\(\) "
                       r"accepts 'reset_mask'$" % named):
        env.reset(seed=2, options=options)
    # nothing was reset
    np.testing.assert_array_equal(env.reset(options={
        "reset_mask": np.zeros(4, bool)})[0], before)
    env.reset(options={})
    env.reset(options={"reset_mask": np.ones(4, bool)})


def test_model_path():
    with pytest.raises(TypeError, match=r"model_path must be None, a str of "
                       r"':'-separated directories, a path or a list of "
                       r"them; got int"):
        E.make("CartPole-v1", 2, model_path=3)
    with pytest.raises(TypeError, match=r"model_path: each directory must be "
                       r"a str or a path, got int 3"):
        E.ids(model_path=["/tmp", 3])
    # a directory without models adds nothing, and takes nothing away
    assert E.ids(model_path="/nonexistent-weft-dir") == IDS
    E.make("CartPole-v1", 2, model_path="/nonexistent-weft-dir").close()


def test_overrides_that_change_the_count():
    with pytest.raises(ValueError, match=r"overrides: 'cartpole.envs=5' would "
                       r"make 5 environments, but num_envs is 8: pass "
                       r"num_envs=5 instead"):
        E.make("CartPole-v1", 8, overrides=["cartpole.envs=5"])
    with pytest.raises(ValueError, match="would make 5 environments"):
        E.make("CartPole-v1", 8, overrides={"cartpole.envs": 5})
    E.make("CartPole-v1", 8, overrides=["cartpole.envs=8"]).close()


def test_actions(env):
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"actions have shape \(3,\); "
                       r"expected \(4,\) \(one per environment\)"):
        env.step(np.zeros(3, np.int64))
    with pytest.raises(ValueError, match=r"actions have shape \(4, 1\)"):
        env.step(np.zeros((4, 1), np.int64))
    with pytest.raises(TypeError, match=r"actions must be integers "
                       r"\(Discrete\(2, start=0\)\); got dtype float64"):
        env.step(np.zeros(4))
    with pytest.raises(ValueError, match=r"actions\[2\] is 2, out of range: "
                       r"expected 0 \.\. 1 \(Discrete\(2, start=0\)\); "
                       r"nothing was sent"):
        env.step(np.array([0, 1, 2, 0]))
    with pytest.raises(ValueError, match=r"actions\[0\] is -1, out of range"):
        env.step([-1, 0, 0, 0])
    with pytest.raises(TypeError, match="actions must be integers"):
        env.step(["a", "b", "c", "d"])
    env.step([1, 0, True, np.int8(1)])
    # every integer dtype is range-checked as it is converted (in C)
    for dt in (np.int8, np.int16, np.int32, np.int64, np.uint16,
               np.uint32, np.uint64):
        with pytest.raises(ValueError, match=r"actions\[3\] is 7, out of "
                           r"range: expected 0 \.\. 1"):
            env.step(np.array([0, 1, 1, 7], dt))
        env.step(np.array([0, 1, 1, 0], dt))
    with pytest.raises(ValueError, match=r"actions\[1\] is -128, out of "
                       r"range"):
        env.step(np.array([0, -128, 0, 0], np.int8))
    with pytest.raises(ValueError, match=r"actions\[0\] is "
                       r"18446744073709551615, out of range"):
        env.step(np.array([2**64 - 1, 0, 0, 0], np.uint64))
    # the extremes of int64 and uint8, one element each, found by the
    # arithmetic range test of the vectorised conversion
    for bad, dt in ((-2**63, np.int64), (2**63 - 1, np.int64),
                    (2, np.int64), (255, np.uint8), (2**32 - 1, np.uint32)):
        acts = np.zeros(4, dt)
        acts[2] = bad
        with pytest.raises(ValueError, match=rf"actions\[2\] is {bad}, "
                           r"out of range"):
            env.step(acts)
    # byte-swapped integers are converted (in Python) as before
    env.step(np.array([0, 1, 1, 0], ">i8"))


def test_raw_step_names_actions(env):
    """The C extension's own step(): an argument that is no buffer is
    refused naming actions (a negative int is no step count)."""
    for bad, what in ((-1, "int"), (1.5, "float"), ([1, 0], "list"),
                      ("ab", "str"), (object(), "object")):
        with pytest.raises(TypeError, match=r"^actions: expected a buffer "
                           r"\(a C-contiguous numpy array of the action "
                           r"space's dtype.*\), got %s$" % what):
            env._c.step(bad)


def test_integer_actions_same_steps(env):
    """Actions of any integer dtype step as the same actions in uint8."""
    twin = E.make("CartPole-v1", 4, backend="openmp")
    env.reset(seed=5)
    twin.reset(seed=5)
    rng = np.random.default_rng(1)
    for dt in (np.int64, np.int32, np.uint16, np.int8) * 5:
        a = rng.integers(0, 2, 4)
        for u, v in zip(env.step(a.astype(dt))[:4],
                        twin.step(a.astype(np.uint8))[:4]):
            assert u.tobytes() == v.tobytes()
    twin.close()


def test_unknown_id():
    with pytest.raises(ValueError, match=r"id: no environment 'Nope-v0' "
                       r"among the installed models; the ids are: "
                       + ", ".join(IDS)):
        E.make("Nope-v0")
    with pytest.raises(TypeError, match="id must be a str"):
        E.make(3)


def test_unknown_id_names_models_that_did_not_load(tmp_path):
    """An id whose plugin did not load is not listed; the error says
    which plugin did not load and why (the loader's stage and reason),
    and register() warns of it."""
    build = os.environ.get("WEFT_BUILD_DIR", "")
    src = os.path.join(build, "tests", "models", "broken-models", ".libs",
                       "weft-model-abi2.so")
    if not build or not os.path.exists(src):
        pytest.skip("the loader tests' plugins are not built (make check)")
    shutil.copy(src, tmp_path / "weft-model-abi2.so")
    with pytest.raises(ValueError, match=r"models that did not load: .*"
                       r"weft-model-abi2\.so \(version: built for model "
                       r"ABI 2\.\d+, this weft expects 1\.x\)"):
        E.make("Nope-v0", 2, model_path=str(tmp_path))
    with pytest.warns(RuntimeWarning, match=r"did not load, its ids are "
                      r"not registered: .*weft-model-abi2\.so"):
        assert E.register(str(tmp_path)) == []


def test_other_arguments():
    with pytest.raises(ValueError, match=r"num_envs must be a positive int, "
                       r"got 0"):
        E.make("CartPole-v1", 0)
    with pytest.raises(ValueError, match=r"num_envs must be a positive int, "
                       r"got 2.0"):
        E.make("CartPole-v1", 2.0)
    with pytest.raises(ValueError, match=r"autoreset_mode must be a gymnasium "
                       r"AutoresetMode or one of 'next_step', 'same_step', "
                       r"'disabled'; got 'sometimes'"):
        E.make("CartPole-v1", 2, autoreset_mode="sometimes")
    with pytest.raises(ValueError, match=r"precision must be 'f32' or 'f64', "
                       r"got 'f16'"):
        E.make("CartPole-v1", 2, precision="f16")
    with pytest.raises(ValueError, match=r"max_episode_steps must be a "
                       r"positive int \(None: the id's\), got -1"):
        E.make("CartPole-v1", 2, max_episode_steps=-1)
    # a keyword the model does not have is a TypeError, as a function's
    # unexpected keyword argument is (the message says what there is)
    with pytest.raises(TypeError, match=r"unexpected keyword argument "
                       r"'nope': --set cartpole.nope: unknown key 'nope'"):
        E.make("CartPole-v1", 2, nope=3)
    with pytest.raises(TypeError, match=r"unexpected keyword argument "
                       r"'foo'"):
        gym.make_vec("weft/CartPole-v1", 2, foo=1)
    # a bad value of a key the model has is a ValueError (ConfigError)
    with pytest.raises(ValueError, match=r"--set cartpole.policy: "
                       r"\[cartpole\] policy = bogus: expected one of"):
        E.make("CartPole-v1", 2, policy="bogus")
    # a bad override or configuration value is a ValueError (ConfigError)
    with pytest.raises(ValueError, match=r"unknown key 'bogus'"):
        E.make("CartPole-v1", 2, overrides=["cartpole.bogus=1"])
    with pytest.raises(ValueError, match=r"backend: no backend named "
                       r"'nope'"):
        E.make("CartPole-v1", 2, backend="nope")
    with pytest.raises(TypeError, match=r"backend must be a str"):
        E.make("CartPole-v1", 2, backend=3)
    with pytest.raises(TypeError, match=r"copy must be a bool, got str"):
        E.make("CartPole-v1", 2, copy="no")
    with pytest.raises(ValueError, match="threads must be a positive int"):
        E.make("CartPole-v1", 2, threads=0)


def test_closed(env):
    env.reset(seed=0)
    with pytest.raises(TypeError, match="cannot be copied"):
        copy.copy(env)
    with pytest.raises(TypeError, match="cannot be copied"):
        copy.deepcopy(env)
    env.close()
    with pytest.raises(ValueError, match="closed"):
        env.step([0, 0, 0, 0])
    for call in (env.reset, env.read_state, lambda: env.device_array("obs"),
                 env.counters, env.render, env.step_device):
        with pytest.raises(ValueError, match="closed"):
            call()
    env.close()  # twice: nothing more


def test_close_refused_while_stepping():
    """close() from another thread while a step runs is refused, and the
    environments stay whole: they step on, and close afterwards."""
    env = E.make("CartPole-v1", 65536, threads=1)
    env.reset(seed=0)
    a = np.zeros(65536, np.int64)
    stop, errors, refused = threading.Event(), [], 0

    def steps():
        try:
            while not stop.is_set():
                env.step(a)
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    t = threading.Thread(target=steps)
    t.start()
    try:
        for _ in range(2000):
            try:
                env.close()
                break
            except RuntimeError as e:
                assert "in use by another thread" in str(e)
                assert not env.closed
                refused += 1
    finally:
        stop.set()
        t.join()
    if not env.closed:
        assert refused > 0
        env.step(a)
        env.close()
    assert env.closed
    assert not [e for e in errors if "closed" not in str(e)], errors


def test_disabled_mode_refuses_ended_environments():
    """In DISABLED mode an environment whose episode ended must be reset
    before the next step (SyncVectorEnv asserts so): the step is
    refused naming them, and a reset of those (or of all) lets it go."""
    env = E.make("CartPole-v1", 2, autoreset_mode="disabled")
    env.reset(seed=0)
    for _ in range(500):
        obs, rew, term, trunc, _ = env.step(np.ones(2, np.int64))
        if (term | trunc).any():
            break
    ended = term | trunc
    assert ended.any()
    names = ", ".join(str(i) for i in np.flatnonzero(ended))
    with pytest.raises(ValueError, match=r"step\(\): environments? %s "
                       r"ended in the last step and ha(s|ve) not been reset"
                       % names):
        env.step(np.ones(2, np.int64))
    keep = ~ended.copy()
    if keep.any():  # a reset of the others does not do
        env.reset(options={"reset_mask": keep})
        with pytest.raises(ValueError, match="not been reset"):
            env.step(np.ones(2, np.int64))
    # the terminated view itself as the mask (the reset clears it)
    assert not trunc.any()
    _, info = env.reset(options={"reset_mask": term})
    obs, rew, term, trunc, _ = env.step(np.ones(2, np.int64))
    assert not (term | trunc).any() and (rew == 1).all()
    env.close()


def test_box_actions_finite_as_stored():
    """A Box action finite as float64 but not as the float32 the model
    takes (1e39) is refused, without numpy's overflow warning."""
    if "MountainCarContinuous-v0" not in IDS:
        pytest.skip("MountainCarContinuous-v0 is not installed here")
    env = E.make("MountainCarContinuous-v0", 3)
    env.reset(seed=0)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"actions of environment 1 are "
                           r"not finite as float32"):
            env.step(np.array([[0.0], [1e39], [0.0]]))
    env.step(np.array([[0.0], [1e30 * 0], [0.5]]))
    env.close()


@pytest.mark.parametrize("precision", ["f32", "f64"])
def test_box_actions_one_pass(precision):
    """float32 and float64 Box actions of the right shape go to the
    extension as they are (converted and checked finite there in one
    pass): the same steps as numpy's conversion and the other forms
    (lists, float16, a strided array, integers), and a NaN, an infinity or
    a float64 beyond float32 named by its environment and its row."""
    if "Pendulum-v1" not in IDS:
        pytest.skip("Pendulum-v1 is not installed here")
    n = 37
    store = "float32"  # the action view's dtype in either precision
    rng = np.random.default_rng(5)
    # multiples of 1/16 (the same in float16, float32 and float64)
    acts = [rng.integers(-40, 41, (n, 1)) / 16.0 for _ in range(6)]
    acts[2][3] = 1000.0  # clipped by the model
    # and random float64s, which float32 rounds (not float16: its own)
    acts += [rng.uniform(-2.5, 2.5, (n, 1)) for _ in range(3)]
    wide = np.zeros((n, 2))

    def unaligned(a):  # C-contiguous, at an odd address
        raw = np.zeros(a.nbytes + 1, np.uint8)
        b = np.frombuffer(raw.data, a.dtype, a.size, 1).reshape(a.shape)
        b[...] = a
        assert not b.flags.aligned and b.flags.c_contiguous
        return b

    fast = [lambda a: a,                            # float64
            lambda a: a.astype(np.float32),         # float32
            lambda a: unaligned(a),
            lambda a: unaligned(a.astype(np.float32))]
    slow = [lambda a: np.float16(a) if (a * 16 % 1 == 0).all() else a,
            lambda a: a.tolist(),                   # a list
            lambda a: (wide.__setitem__((slice(None), 0), a[:, 0]),
                       wide[:, :1])[1]]             # strided

    def run(form, through_numpy):
        env = E.make("Pendulum-v1", n, precision=precision)
        env.reset(seed=3)
        if not through_numpy:  # the extension converts these itself
            env._actions = None
        out = []
        for a in acts:
            obs, rew = env.step(form(a))[:2]
            out.append((obs.copy(), rew.copy()))
        env.close()
        return out

    ref = run(lambda a: a.astype(store), True)  # numpy's conversion
    for form, through_numpy in [(f, False) for f in fast] + \
            [(f, True) for f in slow]:
        for (o0, r0), (o, r) in zip(ref, run(form, through_numpy)):
            np.testing.assert_array_equal(o, o0)
            np.testing.assert_array_equal(r, r0)
    env = E.make("Pendulum-v1", n, precision=precision)
    env.reset(seed=3)
    bad = [(np.float32, 4, np.nan), (np.float64, 36, -np.inf),
           (np.float32, 0, np.inf), (np.float64, 17, 1e39)]
    for dtype, i, v in bad:
        a = np.zeros((n, 1), dtype)
        a[i] = v
        a[i + 1:] = np.nan  # the first is named
        with pytest.raises(weft.InvalidArgumentError,
                           match=r"actions of environment %d are not finite "
                           r"as %s \(\[.*\]\); nothing was sent"
                           % (i, store)):
            env.step(a)
    # 3.4e38 is finite as float32: taken (and clipped)
    env.step(np.full((n, 1), 3.4e38))
    env.close()


def test_set_state_env_ids():
    env = E.CartPoleVectorEnv(4)
    env.reset(seed=0)
    with pytest.raises(TypeError, match=r"env_ids must be integers "
                       r"\(environment indices\), got dtype float64"):
        env.set_state(np.zeros((1, 4)), env_ids=[1.7])
    with pytest.raises(ValueError, match=r"env_ids: environment 1 is given "
                       r"more than once"):
        env.set_state(np.zeros((3, 4)), env_ids=[1, 0, 1])
    env.set_state(np.zeros((2, 4)), env_ids=np.array([3, 1], np.uint8))
    env.set_state(np.zeros((0, 4)), env_ids=[])  # none: nothing set
    env.close()


def test_sim_step_count(tmp_path):
    """A run's step count: -1 is refused, not taken as 2**64 - 1."""
    top = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    sim = weft._weft.Sim(os.path.join(top, "examples", "astoria.ini"),
                         ["output.plot=none", "output.directory=%s"
                          % tmp_path, "simulation.steps=3",
                          "seir.agents=1000"])
    with pytest.raises(ValueError, match=r"n: the number of steps must be "
                       r"between 0 and 9223372036854775807, got -1"):
        sim.step(-1)
    with pytest.raises(ValueError, match="got 18446744073709551616"):
        sim.step(2**64)
    with pytest.raises(TypeError, match=r"n: the number of steps must be an "
                       r"int, got float"):
        sim.step(1.5)
    sim.step(0)
    sim.step(3)
    sim.close()
