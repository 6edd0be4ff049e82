"""Running part of the package's tests under another Python (the system
Python's Debian torch, a virtual environment with numpy 1.26): the
weft package under test, and nothing else of this environment, on the
child's path."""
import os
import subprocess

import pytest

import weft


def child_env(top):
    """The environment of a child process: PYTHONPATH at `top`, a
    directory holding only a link to the weft package under test (the
    package may lie in this venv's site-packages, whose numpy and torch
    must not be seen there), plus any extra directories given."""
    link = os.path.join(str(top), "weft")
    if not os.path.lexists(link):
        os.symlink(os.path.dirname(os.path.abspath(weft.__file__)), link)
    env = dict(os.environ)
    for k in ("PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE"):
        env.pop(k, None)
    env["PYTHONPATH"] = str(top)
    env["PYTHONNOUSERSITE"] = "1"
    return env


def probe(python, modules, env, absent, lacking):
    """The versions of `modules` (names) in the interpreter `python`,
    then its extension suffix; a skip saying `absent` when there is no
    such interpreter, `lacking` (with the import's error) when it has
    not every module."""
    if not os.access(python, os.X_OK):
        pytest.skip("%s is not here (%s)" % (python, absent))
    code = "import sysconfig, %s; " % ", ".join(modules) + "".join(
        "print(%s.__version__); " % m for m in modules) + \
        "print(sysconfig.get_config_var('EXT_SUFFIX'))"
    p = subprocess.run([python, "-s", "-c", code], capture_output=True,
                       text=True, env=env, timeout=300)
    if p.returncode:
        last = (p.stderr.strip().splitlines() or ["?"])[-1]
        pytest.skip("%s has not %s (%s): %s"
                    % (python, " and ".join(modules), last, lacking))
    return p.stdout.split()
