"""The environment models against Gymnasium's reference environments, at
small sizes: bench/gym-compare.py --check for each id (the build's
tests/models/env-trace records the model, Gymnasium replays it; the
thresholds are the script's THRESHOLDS), as tests/models/
test-gym-agreement.sh does in make check. First the harness itself, on a
trace that Gymnasium makes of itself.

The build is the one the package was built against (weft._paths.BUILD_DIR,
or $WEFT_BUILD_DIR); env-trace is built there by make check."""
import os
import subprocess
import sys

import pytest

from conftest import TOP, need

SCRIPT = os.path.join(TOP, "bench", "gym-compare.py")
IDS = ["CartPole-v1", "Acrobot-v1", "MountainCar-v0",
       "MountainCarContinuous-v0", "Pendulum-v1"]


def compare(*args):
    """gym-compare.py with this interpreter: (exit status, output)."""
    p = subprocess.run([sys.executable, SCRIPT] + list(args),
                       capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


@pytest.fixture(scope="module")
def gymnasium():
    need("numpy", "the agreement harness compares arrays with it")
    return need("gymnasium", "the reference environments are Gymnasium's")


@pytest.fixture(scope="module")
def build():
    from weft import _paths

    d = os.environ.get("WEFT_BUILD_DIR") or _paths.BUILD_DIR
    if not d:
        pytest.skip("the weft package was not built against a build tree "
                    "(no BUILD_DIR; set WEFT_BUILD_DIR)")
    tracer = os.path.join(d, "tests", "models", "env-trace")
    if not os.path.exists(tracer):
        pytest.skip("%s is not built (make -C %s check, or make "
                    "tests/models/env-trace)" % (tracer, d))
    return d


def test_harness_on_gymnasiums_own_trace(gymnasium, tmp_path):
    trace = str(tmp_path / "self")
    rc, out = compare("CartPole-v1", "--gym-trace", trace, "--envs", "4",
                      "--steps", "100")
    assert rc == 0, out
    rc, out = compare("CartPole-v1", "--trace", trace, "--require-identical",
                      "1", "--max-ulp", "0", "--min-same-ends", "1")
    assert rc == 0, out
    assert "100.00% (400 of 400)" in out


def test_harness_catches_one_ulp(gymnasium, tmp_path):
    trace = str(tmp_path / "nudged")
    rc, out = compare("CartPole-v1", "--gym-trace", trace, "--envs", "4",
                      "--steps", "100", "--perturb", "2")
    assert rc == 0, out
    rc, out = compare("CartPole-v1", "--trace", trace, "--require-identical",
                      "1", "--max-ulp", "0")
    assert rc == 1, out
    assert "(398 of 400)" in out
    assert "FAIL (one-step bit-identical; one-step obs max ulp (f32))" in out
    rc, out = compare("CartPole-v1", "--trace", trace, "--max-obs-diff", "0",
                      "--require-state-identical", "1", "--max-state-diff",
                      "0")
    assert rc == 1, out
    assert ("FAIL (one-step obs max |diff|; state after step bit-identical "
            "(float64); state after step max |diff|)") in out


@pytest.mark.parametrize("env_id", IDS)
def test_model_agrees_with_gymnasium(gymnasium, build, env_id):
    rc, out = compare(env_id, "--build", build, "--envs", "24",
                      "--episodes", "20", "--check")
    if rc == 77:
        pytest.skip(out.strip().splitlines()[0])
    assert rc == 0, out
