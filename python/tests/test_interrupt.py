"""Ctrl-C during weft.run: KeyboardInterrupt within a chunk of steps, and
no output replaced (outputs are committed only when a run finishes)."""
import os
import signal
import subprocess
import sys
import time

SCRIPT = r"""
import sys, weft
print("started", flush=True)
try:
    weft.run(model="cartpole", backend="openmp", output=sys.argv[1],
             overrides={"cartpole.envs": 100000, "simulation.steps": 10**7,
                        "output.every": 1000, "output.plot": "none"})
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(130)
print("finished", flush=True)
"""


def test_ctrl_c_raises_and_replaces_nothing(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "episodes.csv").write_text("earlier\n")
    p = subprocess.Popen([sys.executable, "-c", SCRIPT, str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    assert p.stdout.readline().strip() == "started"
    time.sleep(1.5)  # setup done, stepping
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    stdout, stderr = p.communicate(timeout=30)
    took = time.monotonic() - t0
    assert "interrupted" in stdout, stderr
    assert p.returncode == 130
    assert took < 5, "took %.1f s to stop" % took
    assert (out / "episodes.csv").read_text() == "earlier\n"
    assert sorted(os.listdir(out)) == ["episodes.csv"]


SETUP_SCRIPT = r"""
import sys, weft
print("started", flush=True)
try:
    weft.run(model="seir", backend="openmp", output=sys.argv[1],
             overrides={"seir.agents": 4000000, "simulation.steps": 1,
                        "output.plot": "none"})
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(130)
print("finished", flush=True)
"""


def test_ctrl_c_cancels_a_long_setup(tmp_path):
    """A population of 4 million takes seconds to build: Ctrl-C during it
    cancels the build (weft_context_cancel), rather than being raised
    only once setup has ended."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "daily.csv").write_text("earlier\n")
    p = subprocess.Popen([sys.executable, "-c", SETUP_SCRIPT, str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    assert p.stdout.readline().strip() == "started"
    time.sleep(1.0)  # importing done, building the population
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    stdout, stderr = p.communicate(timeout=60)
    took = time.monotonic() - t0
    assert "interrupted" in stdout, stderr
    assert p.returncode == 130
    assert took < 3, "took %.1f s to stop the setup" % took
    assert (out / "daily.csv").read_text() == "earlier\n"
    assert sorted(os.listdir(out)) == ["daily.csv"]
