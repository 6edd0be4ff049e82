"""Device arrays through DLPack: numpy and torch, zero copy on the CPU;
actions written in place by a torch policy, then step_device(); OpenCL's
refusal, said clearly."""
import sys

import numpy as np
import pytest

from weft.envs import CartPoleVectorEnv
from conftest import need


def _addr(a):
    return a.__array_interface__["data"][0]


@pytest.fixture
def pair():
    a = CartPoleVectorEnv(16, backend="openmp")
    b = CartPoleVectorEnv(16, backend="openmp")
    a.reset(seed=3)
    b.reset(seed=3)
    yield a, b
    a.close()
    b.close()


def test_numpy_from_dlpack_is_the_view(pair):
    env, _ = pair
    obs, _ = env.reset(seed=1)
    d = env.device_array("obs")
    assert d.__dlpack_device__() == (1, 0)
    assert d.shape == (16, 4) and d.dtype == "float32"
    x = np.from_dlpack(d)
    assert _addr(x) == _addr(obs) and x.shape == (16, 4)
    env.step(np.ones(16, np.uint8))
    assert (x == obs).all()
    for name, dtype in (("reward", np.float32), ("terminated", np.uint8),
                        ("final_obs", np.float32), ("actions", np.uint8)):
        assert np.from_dlpack(env.device_array(name)).dtype == dtype
    with pytest.raises(ValueError, match="no view named 'nope'"):
        env.device_array("nope")


@pytest.mark.parametrize("how", ["buffer", "dlpack"])
def test_numpy_actions_in_place(pair, how):
    """np.asarray(device_array("actions")) (the buffer protocol) is
    writable with any numpy; np.from_dlpack's array is with numpy 2 (1.26
    makes every DLPack import read-only)."""
    a, b = pair
    if how == "dlpack":
        act = np.from_dlpack(a.device_array("actions"))
        if not act.flags.writeable:
            assert np.lib.NumpyVersion(np.__version__) < "2.0.0"
            pytest.skip("numpy %s imports DLPack read-only" % np.__version__)
    else:
        act = np.asarray(a.device_array("actions"))
    rng = np.random.default_rng(0)
    for _ in range(100):
        x = rng.integers(0, 2, 16).astype(np.uint8)
        act[:] = x
        ra = a.step_device()
        rb = b.step(x)
        for u, v in zip(ra[:4], rb[:4]):
            assert u.tobytes() == v.tobytes()


def test_torch_round_trip_and_policy(pair):
    torch = need("torch", "the DLPack tests with PyTorch")
    a, b = pair
    obs_t = torch.from_dlpack(a.device_array("obs"))
    act_t = torch.from_dlpack(a.device_array("actions"))
    assert obs_t.data_ptr() == _addr(a.step(np.zeros(16, np.uint8))[0])
    b.step(np.zeros(16, np.uint8))
    assert act_t.dtype == torch.uint8 and obs_t.dtype == torch.float32
    w = torch.tensor([0.0, 0.1, 1.0, 0.5])
    for _ in range(200):
        want = (obs_t @ w > 0).to(torch.uint8)  # a policy on the device
        x = want.numpy().copy()
        act_t.copy_(want)  # written in place: no transfer
        ra = a.step_device()
        rb = b.step(x)
        assert ra[0].tobytes() == rb[0].tobytes()
        assert (ra[2] == rb[2]).all()
    c = a.counters()
    assert c["transfers_h2d"] == b.counters()["transfers_h2d"] - 200


def test_torch_tensors_as_actions(pair):
    torch = need("torch", "the DLPack tests with PyTorch")
    a, b = pair
    x = np.random.default_rng(2).integers(0, 2, 16)
    for dt in (torch.int64, torch.int32, torch.int16, torch.uint8,
               torch.bool):
        t = torch.from_numpy(x).to(dt)[:]  # no buffer protocol: DLPack
        assert a.step(t)[0].tobytes() == b.step(x)[0].tobytes()
    assert a.step(torch.from_numpy(np.tile(x, 2))[::2])[0].tobytes() == \
        b.step(np.tile(x, 2)[::2])[0].tobytes()  # strided
    with pytest.raises(TypeError, match="integers"):
        a.step(torch.ones(16, dtype=torch.float32))
    with pytest.raises(ValueError, match="shape"):
        a.step(torch.ones(15, dtype=torch.int64))
    with pytest.raises(ValueError, match=r"actions\[3\] is 5"):
        a.step(torch.tensor([0, 0, 0, 5] + [0] * 12))


def test_dlpack_keeps_memory_alive():
    torch = need("torch", "the DLPack tests with PyTorch")
    env = CartPoleVectorEnv(4, backend="openmp")
    env.reset(seed=0)
    t = torch.from_dlpack(env.device_array("obs"))
    first = t.clone()
    env.close()
    assert (t == first).all()  # still valid after close()
    del env


def test_opencl_says_why(backends):
    if "opencl" not in backends:
        pytest.skip("OpenCL is not available here")
    env = CartPoleVectorEnv(4, backend="opencl")
    env.reset(seed=0)
    d = env.device_array("obs")
    with pytest.raises(BufferError, match="OpenCL memory.*cannot be a DLPack"):
        np.from_dlpack(d)
    nat = d.native
    assert nat["kind"] == "opencl" and nat["handle"] != 0
    assert not env.zero_copy
    o = env.step([1, 0, 1, 0])[0]
    assert o.shape == (4, 4)  # numpy arrays read back to the host
    env.close()


class _Stream:
    """A stand-in for torch.cuda.Stream: counts synchronize() calls."""

    def __init__(self):
        self.calls = 0

    def synchronize(self):
        self.calls += 1


def test_step_device_waits_for_the_given_stream(pair):
    a, b = pair
    s = _Stream()
    np.asarray(a.device_array("actions"))[:] = 1
    ra = a.step_device(stream=s)
    assert s.calls == 1
    assert ra[0].tobytes() == b.step(np.ones(16, np.uint8))[0].tobytes()
    with pytest.raises(TypeError, match="synchronize"):
        a.step_device(stream=3)
    assert s.calls == 1


def test_step_device_on_the_host_waits_for_no_stream(pair, monkeypatch):
    # a host backend's arrays are not CUDA memory: no library's current
    # stream is asked for (a stand-in torch that fails if it is)
    class Cuda:
        @staticmethod
        def is_initialized():
            return True

        @staticmethod
        def current_stream(device=None):
            raise AssertionError("asked for a CUDA stream on the host")

    class Torch:
        cuda = Cuda

    monkeypatch.setitem(sys.modules, "torch", Torch)
    a, b = pair
    np.asarray(a.device_array("actions"))[:] = 0
    assert a.step_device()[0].tobytes() == \
        b.step(np.zeros(16, np.uint8))[0].tobytes()


# ---- the capsule itself: data at the first element, byte_offset 0 -------

def _capsule_tensor(cap, versioned):
    """(data, byte_offset, flags) of a DLPack capsule, read with ctypes
    (the test's own reading; the extension uses none)."""
    import ctypes

    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    name = b"dltensor_versioned" if versioned else b"dltensor"
    p = get(cap, name)
    flags = None
    if versioned:  # major, minor (u32), manager_ctx, deleter, flags (u64)
        flags = ctypes.c_uint64.from_address(p + 8 + 2 * 8).value
        p += 8 + 2 * 8 + 8
    data = ctypes.c_void_p.from_address(p).value
    # data, device (2 x i32), ndim (i32), dtype (4 bytes), shape, strides
    byte_offset = ctypes.c_uint64.from_address(p + 8 + 8 + 4 + 4 + 8 + 8)
    return data, byte_offset.value, flags


def _check_capsules(arr):
    nat = arr.native
    first = nat["handle"] + nat["offset"]
    data, off, _ = _capsule_tensor(arr.__dlpack__(), False)
    assert (data, off) == (first, 0)  # torch 1.13 ignores byte_offset
    data, off, flags = _capsule_tensor(arr.__dlpack__(max_version=(1, 0)),
                                       True)
    assert (data, off) == (first, 0)
    assert flags == (0 if arr.name == "actions" else 1)  # READ_ONLY
    assert arr.__dlpack_device__() == (1, 0)


def test_capsule_points_at_the_first_element(pair):
    env, _ = pair
    for name in ("reward", "terminated", "final_obs", "actions"):
        d = env.device_array(name)
        assert d.native["offset"] > 0 or name == "actions"
        _check_capsules(d)
        x = np.from_dlpack(d)
        assert _addr(x) == d.native["handle"] + d.native["offset"]


def test_generic_env_capsules_and_writable_actions():
    need("gymnasium", "weft.envs.make")
    import weft.envs as E

    if not E.ids():
        pytest.skip("no environment models installed")
    env = E.make(E.ids()[0], 8, backend="openmp")
    env.reset(seed=0)
    o, r = env.step(env.action_space.sample())[:2]
    for name in ("obs", "reward", "truncated", "actions"):
        _check_capsules(env.device_array(name))
    np.testing.assert_array_equal(np.from_dlpack(env.device_array("reward")),
                                  r)
    # numpy 1.26's from_dlpack makes read-only arrays: the buffer protocol
    # gives a writable one of the action buffer, whatever numpy
    act = np.asarray(env.device_array("actions"))
    assert act.flags.writeable and not np.asarray(
        env.device_array("obs")).flags.writeable
    import ctypes
    with pytest.raises((BufferError, TypeError), match="writable"):
        ctypes.c_uint8.from_buffer(env.device_array("obs"))
    ctypes.c_uint8.from_buffer(env.device_array("actions"))
    env.close()


def test_torch_reads_the_right_element(pair):
    torch = need("torch", "the DLPack tests with PyTorch")
    env, _ = pair
    env.reset(seed=2)
    r = env.step(np.ones(16, np.uint8))[1]
    t = torch.from_dlpack(env.device_array("reward"))
    assert t.data_ptr() == _addr(r)
    assert (t.numpy() == r).all()


# ---- __dlpack__'s arguments, as the Python array API standard has them --

class _Producer:
    """Hands a consumer the capsule it was made with (kept here, so that
    the test sees what the consumer did to it)."""

    def __init__(self, cap):
        self.cap = cap

    def __dlpack__(self, **kw):
        return self.cap

    def __dlpack_device__(self):
        return (1, 0)


def _np_takes(versioned):
    """Whether this numpy's from_dlpack takes the capsule: numpy 1 takes
    the legacy one only."""
    return not versioned or np.lib.NumpyVersion(np.__version__) >= "2.0.0"


def _capsule_name(cap):
    import ctypes

    get = ctypes.pythonapi.PyCapsule_GetName
    get.restype = ctypes.c_char_p
    get.argtypes = [ctypes.py_object]
    return get(cap).decode()


def test_dl_device_own_device_only(pair):
    import enum

    class Dev(enum.IntEnum):
        kDLCPU = 1
        kDLCUDA = 2

    env, _ = pair
    d = env.device_array("obs")
    first = d.native["handle"] + d.native["offset"]
    for dev in ((1, 0), (Dev.kDLCPU, 0), d.__dlpack_device__()):
        assert _capsule_tensor(d.__dlpack__(dl_device=dev), False)[0] == \
            first
    # a host array asked for CUDA (or another CPU): it cannot be exported
    for dev in ((2, 0), (Dev.kDLCUDA, 0), (1, 1)):
        with pytest.raises(BufferError, match=r"dl_device=.*host memory, "
                           r"device \(1, 0\)"):
            d.__dlpack__(dl_device=dev)
        with pytest.raises(BufferError, match="dl_device"):
            d.__dlpack__(dl_device=dev, copy=True)
    for dev in ("cpu", (1,), (1, 0, 0), [1, 0], (1.0, 0)):
        with pytest.raises(TypeError, match="^dl_device: expected None or "
                           "a .device type, device id. tuple"):
            d.__dlpack__(dl_device=dev)
    if np.lib.NumpyVersion(np.__version__) >= "2.1.0":
        x = np.from_dlpack(d, device="cpu")  # passes dl_device=(1, 0)
        assert _addr(x) == first


def test_max_version_picks_the_capsule(pair):
    env, _ = pair
    d = env.device_array("reward")
    for mv, name in ((None, "dltensor"), ((0, 8), "dltensor"),
                     ((1, 0), "dltensor_versioned"),
                     ((1, 3), "dltensor_versioned"),
                     ((2, 0), "dltensor_versioned"),
                     ((2**70, 0), "dltensor_versioned")):
        assert _capsule_name(d.__dlpack__(max_version=mv)) == name, mv
    v = d.__dlpack__(max_version=(1, 0))
    import ctypes
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    p = get(v, b"dltensor_versioned")
    assert (ctypes.c_uint32.from_address(p).value,
            ctypes.c_uint32.from_address(p + 4).value) == (1, 0)
    for mv in ("x", 1, (1,), (1, 0, 0), [1, 0], (1, "0"), (1.0, 0)):
        with pytest.raises(TypeError, match="^max_version: expected None "
                           r"or a \(major, minor\) tuple of two ints, got"):
            d.__dlpack__(max_version=mv)


@pytest.mark.parametrize("versioned", [False, True])
def test_capsule_names_and_deleters(pair, versioned):
    """A capsule nobody took frees its tensor (the array's reference)
    when it goes; one a consumer took is renamed "used_..." and freed by
    the consumer's deleter, when the consumer's array goes."""
    env, _ = pair
    d = env.device_array("obs")
    mv = (1, 0) if versioned else None
    name = "dltensor_versioned" if versioned else "dltensor"
    r0 = sys.getrefcount(d)
    cap = d.__dlpack__(max_version=mv)
    assert _capsule_name(cap) == name and sys.getrefcount(d) == r0 + 1
    del cap
    assert sys.getrefcount(d) == r0
    if not _np_takes(versioned):
        pytest.skip("numpy %s takes no versioned capsule" % np.__version__)
    p = _Producer(d.__dlpack__(max_version=mv))
    x = np.from_dlpack(p)
    assert _capsule_name(p.cap) == "used_" + name
    del p  # the capsule goes: it frees nothing
    assert sys.getrefcount(d) == r0 + 1
    assert (x == np.asarray(d)).all()
    del x  # numpy's deleter frees it
    assert sys.getrefcount(d) == r0


def test_copy_true_exports_a_copy(pair):
    env, _ = pair
    env.step(np.ones(16, np.uint8))
    for name in ("obs", "reward", "terminated", "final_obs", "actions"):
        d = env.device_array(name)
        first = d.native["handle"] + d.native["offset"]
        r0 = sys.getrefcount(d)
        for versioned in (False, True):
            cap = d.__dlpack__(copy=True,
                               max_version=(1, 0) if versioned else None)
            data, off, flags = _capsule_tensor(cap, versioned)
            assert data != first and data % 64 == 0 and off == 0
            if versioned:
                assert flags == 2  # IS_COPIED, not READ_ONLY
            assert sys.getrefcount(d) == r0  # the copy needs no array
            if not _np_takes(versioned):
                continue
            x = np.from_dlpack(_Producer(cap))
            assert _addr(x) == data and x.flags.c_contiguous
            np.testing.assert_array_equal(x, np.asarray(d))
        # copy=False and copy=None never copy
        for copy in (False, None):
            assert _capsule_tensor(d.__dlpack__(copy=copy), False)[0] == \
                first
    d = env.device_array("obs")
    kept = np.from_dlpack(_Producer(d.__dlpack__(copy=True)))
    before = kept.copy()
    env.step(np.zeros(16, np.uint8))
    assert (kept == before).all() and not (np.asarray(d) == before).all()
    for copy in (1, 0, "yes"):
        with pytest.raises(TypeError, match="^copy: expected True, False "
                           "or None"):
            d.__dlpack__(copy=copy)
    if np.lib.NumpyVersion(np.__version__) >= "2.1.0":
        x = np.from_dlpack(d, copy=True)
        assert _addr(x) != _addr(np.asarray(d)) and x.flags.writeable
        assert _addr(np.from_dlpack(d, copy=False)) == \
            d.native["handle"] + d.native["offset"]


def test_host_arrays_take_no_stream(pair):
    """On the CPU only stream=None is accepted (the standard)."""
    env, _ = pair
    d = env.device_array("obs")
    d.__dlpack__(stream=None)
    for s in (1, 2, -1, 0, "s"):
        with pytest.raises(ValueError, match="^stream: host memory has no "
                           "streams, so only None is accepted"):
            d.__dlpack__(stream=s)
