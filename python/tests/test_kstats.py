"""Per-kernel counters and the step time of a run (RunResult.counters
["kernels"], RunResult.step_seconds): the model template's SIR model,
whose step launches sir_step and sir_tick once each."""
import os

import pytest

import weft
from weft import _weft
from conftest import TOP

SIR = os.path.join(TOP, "models", "template", "sir.ini")
STEPS = 23
SMALL = {"simulation.steps": STEPS, "output.plot": "none",
         "output.every": 5, "sir.width": 64, "sir.height": 64}


def run_sir(tmp_path, backend, profile):
    return weft.run(SIR, overrides=SMALL, backend=backend,
                    output=tmp_path, profile=profile)


@pytest.mark.parametrize("profile", [True, False])
def test_kernels_counted_exactly(tmp_path, profile):
    r = run_sir(tmp_path, "openmp", profile)
    kernels = r.counters["kernels"]
    assert set(kernels) == {"sir_step", "sir_tick"}
    for name, k in kernels.items():
        assert k["launches"] == STEPS, name
        if profile:
            assert k["timed"] == STEPS and k["seconds"] > 0, name
        else:
            assert k["timed"] == 0 and k["seconds"] == 0, name
    # the backend's own counter agrees with the sum over kernels
    assert r.counters["launches"] == 2 * STEPS


def test_step_seconds(tmp_path):
    r = run_sir(tmp_path, "openmp", True)
    assert r.step_seconds > 0
    # on a host backend a launch is done when step() returns: the steps'
    # time holds all the kernels' time
    busy = sum(k["seconds"] for k in r.counters["kernels"].values())
    assert r.step_seconds >= busy


def test_opencl_step_time_covers_the_work(tmp_path, backends):
    if "opencl" not in backends:
        pytest.skip("the OpenCL backend is not available here")
    overrides = dict(SMALL, **{"sir.width": 512, "sir.height": 512,
                               "output.every": STEPS})
    r = weft.run(SIR, overrides=overrides, backend="opencl",
                 output=tmp_path, profile=True)
    kernels = r.counters["kernels"]
    assert all(k["launches"] == STEPS and k["timed"] == STEPS
               for k in kernels.values())
    busy = sum(k["seconds"] for k in kernels.values())
    assert busy > 0 and r.step_seconds >= busy


def test_sim_counters_before_and_after(tmp_path):
    sets = ["%s=%s" % kv for kv in SMALL.items()] + [
        "backend.name=openmp", "backend.profile=true",
        "output.directory=%s" % tmp_path]
    sim = _weft.Sim(SIR, sets)
    try:
        before = sim.kernel_stats()
        assert all(k["launches"] == 0 for k in before.values())
        assert sim.times()["steps"] == 0
        sim.step(7)
        after = sim.kernel_stats()
        assert all(k["launches"] == 7 for k in after.values())
        t = sim.times()
        assert t["steps"] == 7 and t["seconds"] > 0
    finally:
        sim.close()
