"""Common random numbers in ensembles: two scenarios that differ by a small
intervention (isolation_prob 0.5 against 0.55 from day 21, the ensemble
example's Astoria population at 5,000 agents, 90 days, 10 seeds), compared
seed by seed. An ensemble that compares scenarios turns SEIR's crn mode on
by default; the variance across seeds of the difference in cumulative
infections is then at least 100 times smaller than with independent seeds
(bench/crn.sh measured 587 at this size) and at least 4 times smaller than
the same seeds without the mode (measured 19); the deaths' ratio at least
10 (measured 84). models/seir/seir.md, "Common random numbers"."""
import csv
import os

import numpy as np
import pytest

import weft

SEEDS = 10
TOP = os.path.join(os.path.dirname(__file__), "..", "..")


def _seir_section():
    """examples/ensemble.ini's [seir] lines up to its first scenario, but
    its agents."""
    with open(os.path.join(TOP, "examples", "ensemble.ini")) as f:
        text = f.read()
    start = text.index("\n[seir]\n") + 1
    lines = text[start:text.index("\n[scenario", start)].splitlines()
    return "\n".join(ln for ln in lines if not ln.startswith("agents"))


def _ini(tmp_path, name, scenarios, seed, crn=None):
    """An ensemble of SEEDS runs per scenario from `seed` on; scenario b
    isolates 55 % of the symptomatic; [seir] crn as given (None: unset)."""
    body = ["[simulation]", "model = seir", "steps = 90", "seed = %d" % seed,
            "[backend]", "name = openmp", "threads = 1",
            "[output]", "plot = none",
            "[ensemble]", "runs = %d" % SEEDS,
            _seir_section(), "agents = 5000"]
    if crn is not None:
        body.append("crn = %s" % crn)
    for sc in scenarios:
        body.append("[scenario %s]" % sc)
        if sc == "b":
            body.append("seir.isolation_prob = 0.55")
    p = tmp_path / (name + ".ini")
    p.write_text("\n".join(body) + "\n")
    return str(p)


def _finals(out, scenario, seed):
    """(cumulative infections, deaths) on the last day of each run of
    `scenario`, in seed order."""
    rows = []
    for s in range(seed, seed + SEEDS):
        with open(os.path.join(out, "runs", scenario, str(s),
                               "daily.csv")) as f:
            last = list(csv.DictReader(f))[-1]
        rows.append((float(last["cumulative"]), float(last["D"])))
    return np.array(rows)


def _run(tmp_path, name, scenarios, seed, crn=None):
    out = tmp_path / name
    e = weft.run_ensemble(_ini(tmp_path, name, scenarios, seed, crn),
                          output=out)
    assert e.failed == []
    return e, str(out)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("crn")
    seed = 20200301
    paired, pdir = _run(tmp, "paired", ["a", "b"], seed)
    plain, ndir = _run(tmp, "plain", ["a", "b"], seed, crn="false")
    indep, idir = _run(tmp, "indep", ["b"], seed + 1000, crn="true")
    return {
        "summary": paired.summary, "plain_summary": plain.summary,
        "indep_summary": indep.summary,
        "a": _finals(pdir, "a", seed), "b": _finals(pdir, "b", seed),
        "plain_a": _finals(ndir, "a", seed),
        "plain_b": _finals(ndir, "b", seed),
        "indep_b": _finals(idir, "b", seed + 1000),
    }


def test_compared_scenarios_get_common_random_numbers(runs):
    assert runs["summary"]["crn"].startswith("seir.crn = true in every run")
    # set in the file: kept, and nothing said
    assert "crn" not in runs["plain_summary"]
    # one scenario compares nothing
    assert "crn" not in runs["indep_summary"]


def test_variance_of_the_paired_difference(runs):
    paired = np.var(runs["b"] - runs["a"], axis=0, ddof=1)
    indep = np.var(runs["indep_b"] - runs["a"], axis=0, ddof=1)
    plain = np.var(runs["plain_b"] - runs["plain_a"], axis=0, ddof=1)
    infections, deaths = indep / paired
    assert infections >= 100, (paired, indep)
    assert deaths >= 10, (paired, indep)
    assert plain[0] / paired[0] >= 4, (paired, plain)
