"""Ctrl-C during weft.run and weft.run_ensemble: KeyboardInterrupt within
a chunk of steps (or a cancelled setup or ensemble), and no output
replaced (outputs are committed only when a run finishes)."""
import os
import signal
import subprocess
import sys
import time

def _script(call):
    """A program that makes `call` (weft's, taking the output directory
    as sys.argv[1]), saying when it started and whether it was
    interrupted (exit 130) or finished."""
    return r"""
import sys, weft
print("started", flush=True)
try:
    CALL
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(130)
print("finished", flush=True)
""".replace("CALL", call)


SCRIPT = _script(
    'weft.run(model="cartpole", backend="openmp", output=sys.argv[1], '
    'overrides={"cartpole.envs": 100000, "simulation.steps": 10**7, '
    '"output.every": 1000, "output.plot": "none"})')


def interrupted(tmp_path, script, earlier, after):
    """Run script with an output directory holding only `earlier`, send
    SIGINT `after` seconds after it started; the seconds it took to stop.
    The script must say it was interrupted, exit 130 and replace nothing."""
    out = tmp_path / "out"
    out.mkdir()
    (out / earlier).write_text("earlier\n")
    p = subprocess.Popen([sys.executable, "-c", script, str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    assert p.stdout.readline().strip() == "started"
    time.sleep(after)
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    stdout, stderr = p.communicate(timeout=60)
    took = time.monotonic() - t0
    assert "interrupted" in stdout, stderr
    assert p.returncode == 130
    assert (out / earlier).read_text() == "earlier\n"
    assert sorted(os.listdir(out)) == [earlier]
    return took


def test_ctrl_c_raises_and_replaces_nothing(tmp_path):
    took = interrupted(tmp_path, SCRIPT, "episodes.csv", 1.5)  # stepping
    assert took < 5, "took %.1f s to stop" % took


SETUP_SCRIPT = _script(
    'weft.run(model="seir", backend="openmp", output=sys.argv[1], '
    'overrides={"seir.agents": 4000000, "simulation.steps": 1, '
    '"output.plot": "none"})')


def test_ctrl_c_cancels_a_long_setup(tmp_path):
    """A population of 4 million takes seconds to build: Ctrl-C during it
    cancels the build (weft_context_cancel), rather than being raised
    only once setup has ended."""
    took = interrupted(tmp_path, SETUP_SCRIPT, "daily.csv", 1.0)
    assert took < 3, "took %.1f s to stop the setup" % took


ENSEMBLE_SCRIPT = _script(
    'weft.run_ensemble(model="seir", backend="openmp", output=sys.argv[1], '
    'runs=1000, overrides={"seir.agents": 20000, "simulation.steps": 60, '
    '"output.plot": "none"})')


def test_ctrl_c_cancels_an_ensemble(tmp_path):
    """An ensemble is one libweft call: Ctrl-C cancels it between (or
    inside) runs, and the set it was writing is removed."""
    took = interrupted(tmp_path, ENSEMBLE_SCRIPT, "summary.txt", 1.5)
    assert took < 3, "took %.1f s to stop the ensemble" % took
