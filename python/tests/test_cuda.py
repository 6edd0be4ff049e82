"""The CUDA backend's device arrays with PyTorch (and CuPy): tensors over
weft's device memory through DLPack, no copy; a policy on the GPU writing
the actions in place, each step equal byte for byte to the same actions
given from the host on OpenMP; the stream of the policy waited for. Needs
a GPU: skipped where the CUDA backend or torch's CUDA is not available
(bench/gpu-check.sh --steps python runs these on a GPU machine)."""
import numpy as np
import pytest

from weft.envs import CartPoleVectorEnv
from conftest import need

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
    ra = a._c.step_device()  # the C call: reads the actions at once
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
