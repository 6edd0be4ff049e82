"""The DLPack tests (test_dlpack.py) under numpy 1.26, the last numpy 1:
its np.from_dlpack takes the legacy protocol and makes every import
read-only, where numpy 2 asks for the versioned one (max_version) and
keeps it writable. They run in a child process of the virtual
environment ./quickstart test makes for them, _venv-numpy1 (numpy 1.26,
pytest and gymnasium), or of $WEFT_TEST_NUMPY1_PYTHON, with the weft
package under test (its extension uses CPython's C API alone, no numpy
ABI: the same CPython minor version is all it needs)."""
import os
import subprocess
import sys

import pytest

import weft
from _child import child_env, probe
from conftest import TOP

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = os.environ.get("WEFT_TEST_NUMPY1_PYTHON",
                        os.path.join(TOP, "_venv-numpy1", "bin", "python"))


def test_dlpack_tests_pass_under_numpy_1_26(tmp_path):
    env = child_env(tmp_path)
    numpy_v, _, suffix = probe(
        PYTHON, ("numpy", "pytest"), env,
        "./quickstart test makes it: numpy 1.26, pytest and gymnasium",
        "./quickstart test installs them")
    assert numpy_v.startswith("1.26."), \
        "%s has numpy %s, not 1.26" % (PYTHON, numpy_v)
    if not weft._weft.__file__.endswith(suffix):
        pytest.skip("weft's extension %s is not built for %s (%s)"
                    % (os.path.basename(weft._weft.__file__), PYTHON,
                       suffix))
    # The test files' own directory on the path too: conftest, _child.
    env["PYTHONPATH"] += os.pathsep + HERE
    p = subprocess.run(
        [PYTHON, "-s", "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
         "--rootdir", str(tmp_path), os.path.join(HERE, "test_dlpack.py")],
        capture_output=True, text=True, env=env, timeout=600, cwd=tmp_path)
    sys.stdout.write(p.stdout[-4000:])
    assert p.returncode == 0, "test_dlpack.py under numpy %s failed:\n%s%s" % (
        numpy_v, p.stdout[-6000:], p.stderr[-2000:])
    # Every test ran or was skipped for a reason numpy 1.26 gives, never
    # for want of the package under test.
    assert " passed" in p.stdout
    assert "No module named 'weft'" not in p.stdout
