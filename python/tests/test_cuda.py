"""The CUDA backend's device arrays with PyTorch (and CuPy): tensors over
weft's device memory through DLPack, no copy; a policy on the GPU writing
the actions in place, each step equal byte for byte to the same actions
given from the host on OpenMP; the stream of the policy waited for. Most
need a GPU: skipped where the CUDA backend or torch's CUDA is not
available (.ci/gpu-check.sh --steps python runs them on a GPU machine).
The first tests run without one, on the CUDA plugin built against the
stand-in runtime (tests/plugins/cuda-mock.c, built by make check with CUDA)."""
import sys

import numpy as np
import pytest

from weft.envs import CartPoleVectorEnv
from conftest import need, use_cuda_standin

N = 1 << 16  # enough environments that a policy's kernels take a while


@pytest.fixture(scope="module")
def torch():
    t = need("torch", "the CUDA tests with PyTorch")
    if not t.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    return t


@pytest.fixture
def pair(backends, torch):
    if "cuda" not in backends:
        pytest.skip("the CUDA backend is not available here")
    a = CartPoleVectorEnv(N, backend="cuda")
    b = CartPoleVectorEnv(N, backend="openmp")
    a.reset(seed=7)
    b.reset(seed=7)
    yield a, b
    a.close()
    b.close()


@pytest.fixture
def standin(monkeypatch):
    """CUDA environments on the stand-in runtime (its device memory is
    host memory: DLPack consumers cannot use it, weft's logic runs)."""
    use_cuda_standin(monkeypatch, "no CUDA stand-in in this build")
    calls = []

    class Stream:
        def __init__(self, who, device):
            self.who, self.device = who, device

        def synchronize(self):
            calls.append((self.who, self.device))

    class Device:  # cupy.cuda.Device(n) as a context
        def __init__(self, n):
            self.n = n

        def __enter__(self):
            Cupy.cuda.device = self.n

        def __exit__(self, *exc):
            Cupy.cuda.device = None

    class TorchCuda:
        @staticmethod
        def is_initialized():
            return True

        @staticmethod
        def current_stream(device=None):
            return Stream("torch", device)

    class Torch:
        cuda = TorchCuda

    class CupyCuda:
        device = None

        @staticmethod
        def get_current_stream():
            return Stream("cupy", CupyCuda.device)

    CupyCuda.Device = Device

    class Cupy:
        cuda = CupyCuda

    monkeypatch.setitem(sys.modules, "torch", Torch)
    monkeypatch.setitem(sys.modules, "cupy", Cupy)
    a = CartPoleVectorEnv(64, backend="cuda")
    b = CartPoleVectorEnv(64, backend="openmp")
    a.reset(seed=1)
    b.reset(seed=1)
    yield a, b, calls
    a.close()
    b.close()


def test_standin_arrays_are_cuda_memory(standin):
    a, _, _ = standin
    assert a.backend == "cuda" and not a.zero_copy
    d = a.device_array("actions")
    assert d.native["kind"] == "cuda" and d.native["handle"] != 0
    assert d.__dlpack_device__() == (2, d.native["device"])


def test_standin_step_device_waits_for_the_current_streams(standin):
    a, b, calls = standin
    x = np.random.default_rng(4).integers(0, 2, 64).astype(np.uint8)
    for _ in range(20):
        assert a.step(x)[0].tobytes() == b.step(x)[0].tobytes()
    assert calls == []  # host actions: no other stream is involved
    # the action buffer holds the last host actions: step with them again
    ra = a.step_device()
    assert calls == [("torch", 0), ("cupy", 0)]
    assert ra[0].tobytes() == b.step(x)[0].tobytes()
    s = type("S", (), {"synchronize": lambda self: calls.append("given")})
    a.step_device(stream=s())
    assert calls[2:] == ["given"]  # that stream, and no other


def _policy(torch, obs, w):
    """Actions from the observations, queued on torch's current stream
    behind about 20 ms of GPU time (torch.cuda._sleep, where it exists):
    a step_device() that did not wait for that stream would read the
    actions before they are written."""
    sleep = getattr(torch.cuda, "_sleep", None)
    if sleep is not None:
        sleep(40_000_000)
    return (torch.tanh(obs @ w)[:, 0] > 0).to(torch.uint8)


def test_arrays_are_cuda_tensors_without_a_copy(pair, torch):
    a, _ = pair
    for name, dtype, shape in (("obs", torch.float32, (N, 4)),
                               ("reward", torch.float32, (N,)),
                               ("terminated", torch.uint8, (N,)),
                               ("actions", torch.uint8, (N,))):
        d = a.device_array(name)
        assert d.__dlpack_device__() == (2, d.native["device"])
        t = torch.from_dlpack(d)
        assert t.is_cuda and t.dtype == dtype and tuple(t.shape) == shape
        assert t.data_ptr() == d.native["handle"] + d.native["offset"]
    obs, *_ = a.step(np.ones(N, np.uint8))
    t = torch.from_dlpack(a.device_array("obs"))
    assert t.cpu().numpy().tobytes() == obs.tobytes()


def test_policy_on_the_gpu_matches_host_actions(pair, torch):
    a, b = pair
    obs_t = torch.from_dlpack(a.device_array("obs"))
    act_t = torch.from_dlpack(a.device_array("actions"))
    w = torch.randn(4, 64, device=obs_t.device,
                    generator=torch.Generator(obs_t.device).manual_seed(0))
    h2d = a.counters()["transfers_h2d"]
    for step in range(200):
        act_t.copy_(_policy(torch, obs_t, w))  # queued on torch's stream
        ra = a.step_device()  # waits for it
        x = act_t.cpu().numpy()  # what the step must have read
        rb = b.step(x)
        for u, v in zip(ra[:4], rb[:4]):
            assert u.tobytes() == v.tobytes(), "step %d" % step
    assert a.counters()["transfers_h2d"] == h2d  # no action uploaded


def test_an_explicit_stream_is_waited_for(pair, torch):
    a, b = pair
    obs_t = torch.from_dlpack(a.device_array("obs"))
    act_t = torch.from_dlpack(a.device_array("actions"))
    w = torch.ones(4, 64, device=obs_t.device)
    s = torch.cuda.Stream(device=obs_t.device)
    for step in range(50):
        s.wait_stream(torch.cuda.current_stream(obs_t.device))
        with torch.cuda.stream(s):
            act_t.copy_(_policy(torch, obs_t, w))
        ra = a.step_device(stream=s)
        rb = b.step(act_t.cpu().numpy())
        assert ra[0].tobytes() == rb[0].tobytes(), "step %d" % step


def test_the_call_alone_does_not_wait(pair, torch):
    # the control: weft's own stream does not wait for torch's, so the
    # tests above fail if step_device() stops waiting for it
    if getattr(torch.cuda, "_sleep", None) is None:
        pytest.skip("torch.cuda._sleep is not in this torch")
    a, b = pair
    act_t = torch.from_dlpack(a.device_array("actions"))
    act_t.zero_()
    torch.cuda.synchronize()
    torch.cuda._sleep(40_000_000)
    act_t.fill_(1)
    ra = a._c.step(None)  # the C call: reads the actions at once
    raced = a._obs.tobytes()
    torch.cuda.synchronize()
    assert raced != b.step(np.ones(N, np.uint8))[0].tobytes()
    del ra


def test_cupy_policy(pair):
    cp = need("cupy", "the CUDA tests with CuPy")
    a, b = pair
    obs = cp.from_dlpack(a.device_array("obs"))
    act = cp.from_dlpack(a.device_array("actions"))
    for step in range(50):
        act[:] = (obs[:, 2] + 0.5 * obs[:, 3] > 0).astype(cp.uint8)
        ra = a.step_device()
        rb = b.step(cp.asnumpy(act))
        assert ra[0].tobytes() == rb[0].tobytes(), "step %d" % step


def test_tensors_outlive_close(backends, torch):
    if "cuda" not in backends:
        pytest.skip("the CUDA backend is not available here")
    env = CartPoleVectorEnv(1024, backend="cuda")
    env.reset(seed=0)
    t = torch.from_dlpack(env.device_array("obs"))
    first = t.clone()
    env.close()
    torch.cuda.synchronize()
    assert torch.equal(t, first)  # the memory is still weft's, not freed
    del t
