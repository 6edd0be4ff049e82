"""The learning examples learn (examples/python): ppo.py reaches a short
form of its target on CartPole-v1 and Acrobot-v1 within a time limit
(the full targets, 475 and -100, take up to a few minutes: docs/python.md),
reinforce_cartpole.py solves CartPole, and ppo.py exits 1 when it does not
reach its target. Each example runs as its own process, as a user runs it;
its output is shown when it fails."""
import os
import subprocess
import sys

import pytest

import weft
from conftest import EXAMPLES, need

PYTHON_EXAMPLES = os.path.join(EXAMPLES, "python")
# the examples import weft from where these tests do
PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(
    weft.__file__)))
# importing torch and starting up, on a loaded machine, outside the
# examples' own time limits
STARTUP_S = 120


def run_example(name, args, limit_s):
    need("torch", "the learning examples use it")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [PACKAGE_DIR] + [p for p in [env.get("PYTHONPATH")] if p])
    try:
        p = subprocess.run(
            [sys.executable, os.path.join(PYTHON_EXAMPLES, name)] + args,
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, timeout=limit_s + STARTUP_S)
    except subprocess.TimeoutExpired as e:
        pytest.fail("%s %s: still running after %d s\n%s" % (
            name, " ".join(args), limit_s + STARTUP_S, e.stdout or ""))
    return p.returncode, p.stdout


def need_env(env_id):
    import weft.envs
    if env_id not in weft.envs.ids():
        pytest.skip("%s is not among the installed environments (%s)" % (
            env_id, ", ".join(weft.envs.ids())))


@pytest.mark.parametrize("env_id,target,limit_s", [
    ("CartPole-v1", 150, 90),
    ("Acrobot-v1", -150, 120),
])
def test_ppo_learns(env_id, target, limit_s):
    need_env(env_id)
    rc, out = run_example("ppo.py", [
        "--env-id", env_id, "--target", str(target),
        "--time-limit", str(limit_s), "--seed", "1"], limit_s)
    assert rc == 0 and "solved:" in out, \
        "ppo.py did not reach %s on %s within %d s (exit %d):\n%s" % (
            target, env_id, limit_s, rc, out)


def test_ppo_fails_when_it_does_not_learn():
    need_env("CartPole-v1")
    rc, out = run_example("ppo.py", [
        "--env-id", "CartPole-v1", "--target", "150",
        "--total-timesteps", "2048", "--time-limit", "60"], 60)
    assert rc == 1 and "not solved:" in out, \
        "ppo.py with 2048 steps: exit %d, expected 1:\n%s" % (rc, out)


def test_reinforce_cartpole_solves():
    need_env("CartPole-v1")
    rc, out = run_example("reinforce_cartpole.py", ["--minutes", "1.5"], 90)
    assert rc == 0 and "solved:" in out, \
        "reinforce_cartpole.py did not solve CartPole in 1.5 minutes " \
        "(exit %d):\n%s" % (rc, out)
