"""DLPack into the system Python's PyTorch: Debian bookworm's python3-torch
(1.13.1) with Debian's numpy, which ignores DLPack's byte_offset. weft hands
out the data pointer at each array's first element with byte_offset 0;
with a base pointer and an offset, torch 1.13 read the observations'
memory for every view (reward, terminated, ... all started at obs[0]).

Debian's torch imports only in /usr/bin/python3 (CPython 3.11, with
Debian's numpy), not in a virtual environment, so the checks run there in
a child process, with PYTHONPATH at the weft package under test (its
extension is plain CPython C API: it needs the same CPython minor version
and no numpy ABI). $WEFT_TEST_SYSTEM_PYTHON names another interpreter.
"""
import os
import subprocess
import sys

import pytest

import weft
from _child import child_env, probe

PYTHON = os.environ.get("WEFT_TEST_SYSTEM_PYTHON", "/usr/bin/python3")

# Runs in the system Python: every view of two environments' results
# through torch.from_dlpack, torch.utils.dlpack.from_dlpack and the raw
# capsule, element for element against the numpy views, step after step.
SCRIPT = r'''
import sys
import numpy as np
import torch
import torch.utils.dlpack
import weft.envs as E

NAMES = ("obs", "reward", "terminated", "truncated", "final_obs")


def addr(a):
    return a.__array_interface__["data"][0]


def importers():
    return (("torch.from_dlpack", torch.from_dlpack),
            ("torch.utils.dlpack.from_dlpack",
             torch.utils.dlpack.from_dlpack),
            ("a capsule", lambda d: torch.utils.dlpack.from_dlpack(
                d.__dlpack__())))


def numpy_views(env, res):
    """The numpy arrays step() returned (res), or after reset() the
    buffer protocol's views; final_obs is always the latter."""
    views = {n: np.asarray(env.device_array(n)) for n in NAMES}
    if res is not None:
        views.update(zip(NAMES, res[:4]))
    return views


def check(env, tensors, res, where):
    views = numpy_views(env, res)
    for name in NAMES:
        ref = views[name]
        for how, t in tensors[name]:
            what = "%s %s %s via %s" % (env.id, where, name, how)
            assert tuple(t.shape) == ref.shape, (what, tuple(t.shape),
                                                 ref.shape)
            assert t.data_ptr() == addr(ref), \
                "%s: tensor at %#x, numpy view at %#x" % (
                    what, t.data_ptr(), addr(ref))
            got = t.numpy()
            want = ref.view(np.uint8) if ref.dtype == np.bool_ else ref
            assert got.dtype == want.dtype, (what, got.dtype, want.dtype)
            bad = np.flatnonzero(got.reshape(-1) != want.reshape(-1))
            assert bad.size == 0, "%s: element %d is %r, numpy has %r" % (
                what, bad[0], got.reshape(-1)[bad[0]],
                want.reshape(-1)[bad[0]])


def run(id, n_actions, steps, **kw):
    env = E.make(id, 8, backend="openmp", **kw)
    env.reset(seed=7)
    tensors = {n: [(how, f(env.device_array(n))) for how, f in importers()]
               for n in NAMES}
    check(env, tensors, None, "after reset")
    rng = np.random.default_rng(1)
    first = tensors["obs"][0][1].clone()
    ends = rewards = 0
    for k in range(steps):
        before = {n: tensors[n][0][1].clone() for n in NAMES}
        res = env.step(rng.integers(0, n_actions, 8))
        check(env, tensors, res, "after step %d" % (k + 1))
        # the tensors made once follow the steps (zero copy): obs changes
        assert not torch.equal(before["obs"], tensors["obs"][0][1]), \
            "%s step %d: obs tensor unchanged" % (id, k + 1)
        ends += int(res[2].sum() + res[3].sum())
        rewards += int((res[1] != 0).sum())
    assert not torch.equal(first, tensors["obs"][0][1])
    assert ends > 0 and rewards > 0, (id, ends, rewards)
    env.close()
    return ends


def policy_in_place():
    """A REINFORCE-style loop: a linear policy on the obs tensor writes
    the action tensor (weft's buffer) in place, step_device() steps with
    it; a twin stepped with numpy actions agrees and the reward tensor
    sums what the numpy rewards sum."""
    a = E.make("CartPole-v1", 8, backend="openmp",
               autoreset_mode="same_step")
    b = E.make("CartPole-v1", 8, backend="openmp",
               autoreset_mode="same_step")
    a.reset(seed=3)
    b.reset(seed=3)
    obs_t = torch.from_dlpack(a.device_array("obs"))
    act_t = torch.from_dlpack(a.device_array("actions"))
    rew_t = torch.from_dlpack(a.device_array("reward"))
    term_t = torch.from_dlpack(a.device_array("terminated"))
    w = torch.tensor([0.0, 0.1, 1.0, 0.5])
    total_t = total_np = 0.0
    for k in range(200):
        want = (obs_t @ w > 0).to(torch.uint8)
        act_t.copy_(want)
        ra = a.step_device()
        rb = b.step(want.numpy().copy())
        assert ra[0].tobytes() == rb[0].tobytes(), "policy step %d" % k
        assert (term_t.numpy() == rb[2].view(np.uint8)).all()
        total_t += float(rew_t.sum())
        total_np += float(rb[1].sum())
    assert total_t == total_np == 1600.0, (total_t, total_np)
    a.close()
    b.close()


run("CartPole-v1", 2, 60, autoreset_mode="same_step")
run("Acrobot-v1", 3, 12, max_episode_steps=5)
policy_in_place()
print("torch", torch.__version__, "numpy", np.__version__, "ok")
'''


def test_system_torch_reads_every_view(tmp_path):
    env = child_env(tmp_path)
    torch_v, numpy_v, suffix = probe(
        PYTHON, ("torch", "numpy"), env,
        "the system Python that Debian's python3-torch needs",
        "apt-get install python3-torch (./quickstart python does)")
    ext = weft._weft.__file__
    if not ext.endswith(suffix):
        pytest.skip("weft's extension %s is not built for %s (%s): build "
                    "it with that CPython" % (os.path.basename(ext), PYTHON,
                                              suffix))
    p = subprocess.run([PYTHON, "-s", "-c", SCRIPT], capture_output=True,
                       text=True, env=env, timeout=600)
    assert p.returncode == 0, "%s (torch %s, numpy %s) failed:\n%s%s" % (
        PYTHON, torch_v, numpy_v, p.stdout, p.stderr[-4000:])
    assert p.stdout.strip().endswith("ok")
    sys.stdout.write(p.stdout)
