"""`weft calibrate CONFIG` end to end (docs/calibration.md, "INI: weft
calibrate"): the weft command of the build tree the package was built
against ($WEFT_BUILD_DIR, else the package's BUILD_DIR) checks the
[calibration] section and runs this interpreter's weft.calibrate on it.
A small SEIR (examples/covasim-random.ini at 3,000 agents, 60 days), its
data one run of weft itself at beta = 0.012; 6 trials of 2 replicas.
tests/cli/test-calibrate.sh has the section's errors."""
import configparser
import csv
import math
import os
import subprocess
import sys

import pytest

import weft
from conftest import EXAMPLES, need

SETS = ["seir.agents=3000", "simulation.steps=60", "output.plot=none"]


@pytest.fixture(scope="module")
def weft_cmd():
    need("optuna", "weft calibrate runs weft.calibrate, which needs it")
    from weft import _paths
    d = os.environ.get("WEFT_BUILD_DIR") or _paths.BUILD_DIR
    if not d or not os.path.exists(os.path.join(d, "cli", "weft")):
        pytest.skip("no built weft command (the package was not built "
                    "against a build tree; set WEFT_BUILD_DIR)")
    return os.path.join(d, "cli", "weft")


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    """covasim-random.ini with a [calibration] section, and its data."""
    d = tmp_path_factory.mktemp("calibrate-cli")
    r = weft.run(os.path.join(EXAMPLES, "covasim-random.ini"),
                 overrides=dict(s.split("=", 1) for s in SETS) | {
                     "seir.beta": 0.012, "simulation.seed": 1000,
                     "output.directory": str(d / "data-run")})
    daily = r.tables["daily"]
    with open(d / "cases.csv", "w") as f:
        f.write("day,infected\n")
        for day, cum in zip(daily["day"], daily["cumulative"]):
            if day > 0 and day % 2 == 0:
                f.write("%d,%d\n" % (day, cum))
    with open(os.path.join(EXAMPLES, "covasim-random.ini")) as f:
        text = f.read()
    text += ("\n[calibration]\ndata = cases.csv\ntrials = 6\nreplicas = 2\n"
             "param.seir.beta = 0.004 .. 0.03\n"
             "component.infected = normal infected ~ cumulative\n")
    (d / "calib.ini").write_text(text)
    return d


def calibrate(weft_cmd, cwd, *args):
    env = dict(os.environ)
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(weft.__file__)))
    env["PYTHONPATH"] = pkg + os.pathsep + env.get("PYTHONPATH", "")
    env["WEFT_PYTHON"] = sys.executable
    cmd = [weft_cmd, "calibrate", "calib.ini"]
    for s in SETS:
        cmd += ["--set", s]
    return subprocess.run(cmd + list(args), cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def read_trials(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def test_calibrate_writes_its_outputs(weft_cmd, config):
    out = config / "out"
    p = calibrate(weft_cmd, config, "--set", "output.directory=%s" % out)
    assert p.returncode == 0, p.stderr
    assert "6 trials x 2 replicas, seir.beta in [0.004, 0.03]" in p.stdout
    assert "best: seir.beta = " in p.stdout
    assert p.stderr.count("Trial ") == 6          # Optuna's line a trial
    rows = read_trials(out / "trials.csv")
    assert len(rows) == 6
    assert list(rows[0]) == ["number", "value", "state", "seconds",
                             "seir.beta"]
    assert all(r["state"] == "COMPLETE" for r in rows)
    best = min(rows, key=lambda r: float(r["value"]))
    ini = configparser.ConfigParser()
    ini.read(out / "best.ini")
    beta = float(ini["seir"]["beta"])
    assert 0.004 <= beta <= 0.03
    assert math.isclose(beta, float(best["seir.beta"]), rel_tol=1e-9)
    summary = (out / "calibration.txt").read_text()
    assert "best seir.beta: " in summary and "replicas: 2" in summary
    assert "\ndata: cases.csv\n" in summary     # from the INI's directory
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert "matplotlib is not installed" in summary
    else:
        assert (out / "fit.png").stat().st_size > 0
        assert (out / "params.png").stat().st_size > 0
    # The same again replaces its own files and nothing else: a file of
    # the user's and a run's outputs in the directory stay as they were.
    (out / "mine.txt").write_text("x")
    (out / "summary.txt").write_text("a run's summary")
    p = calibrate(weft_cmd, config, "--set", "output.directory=%s" % out,
                  "--trials", "1")
    assert p.returncode == 0, p.stderr
    assert (out / "mine.txt").read_text() == "x"
    assert (out / "summary.txt").read_text() == "a run's summary"
    assert len(read_trials(out / "trials.csv")) == 1
    assert not [f for f in os.listdir(config) if "calibrate-" in f]
    assert not [f for f in os.listdir(config) if f.endswith("weft-lock")]


def test_calibrate_refuses_a_directory_in_use(weft_cmd, config):
    """A directory another weft process holds (its lock, as `weft run`
    takes it) is refused, naming the process; nothing is written."""
    import fcntl
    out = config / "out-busy"
    out.mkdir()
    lock = config / ".out-busy.weft-lock"
    with open(lock, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        f.write("4242\n")
        f.flush()
        p = calibrate(weft_cmd, config, "--set",
                      "output.directory=%s" % out, "--trials", "1")
    assert p.returncode == 1
    assert "is in use by another run (pid 4242" in p.stderr, p.stderr
    assert os.listdir(out) == []


def test_calibrate_resumes_a_stored_study(weft_cmd, config):
    out = config / "out-stored"
    url = "sqlite:///%s" % (config / "calib.db")
    for n in ("3", "2"):
        p = calibrate(weft_cmd, config, "--storage", url, "--trials", n,
                      "--set", "output.directory=%s" % out)
        assert p.returncode == 0, p.stderr
    assert len(read_trials(out / "trials.csv")) == 5


def test_calibrate_failure_is_one_message(weft_cmd, config):
    # The data's days 32 to 60 are not rows of a 30-day run: found by
    # the first trial, in Python; exit status 1 and weft's message.
    p = calibrate(weft_cmd, config, "--set", "simulation.steps=30",
                  "--set", "output.directory=%s" % (config / "out-bad"))
    assert p.returncode == 1
    assert "weft calibrate: calib.ini: data: day 32, 34" in p.stderr
    assert "not in the model's daily.csv, which has day 0 to 30" in p.stderr
    assert not (config / "out-bad").exists()
