"""weft.run_ensemble: an ensemble from Python (Covasim's MultiSim): its
aggregates are those of the runs done one by one with weft.run, batched
or not; a failed run is a value, not an exception; bad configurations
raise with file and line."""
import numpy as np
import pytest

import weft

SMALL = {"seir.agents": 2000, "seir.population": "random",
         "seir.initial_infected": 20, "simulation.steps": 25,
         "output.plot": "none", "backend.name": "openmp",
         "backend.threads": 1}


def _ini(tmp_path, extra=""):
    p = tmp_path / "ens.ini"
    p.write_text("[simulation]\nmodel = seir\nseed = 11\n"
                 "[ensemble]\nruns = 4\n"
                 "[sweep]\nseir.beta = 0.02, 0.03\n" + extra)
    return str(p)


def test_aggregates_are_the_runs_one_by_one(tmp_path):
    e = weft.run_ensemble(_ini(tmp_path), overrides=SMALL,
                          output=tmp_path / "ens")
    assert e.runs == 8 and e.failed == []
    assert e.scenarios == ["seir.beta=0.02", "seir.beta=0.03"]
    assert e.summary["runs"].startswith("8 (2 scenarios x 4 seeds)")
    # two sweep points are compared: common random numbers in every run
    assert e.summary["crn"].startswith("seir.crn = true in every run")
    assert set(e.tables) == {"seir.beta=0.02", "seir.beta=0.03", "summary",
                             "differences"}
    assert list(e.tables["summary"]["scenario"]) == e.scenarios
    # the later scenario minus the first, paired seed by seed: its mean is
    # the difference of the means, inside its 95 % interval
    d = e.tables["differences"]
    assert list(d["scenario"]) == ["seir.beta=0.03"]
    assert list(d["baseline"]) == ["seir.beta=0.02"]
    m = e.tables["summary"]["attack_rate_pct_mean"].astype(float)
    dm = float(d["attack_rate_pct_diff_mean"][0])
    assert dm == pytest.approx(m[1] - m[0], rel=1e-12, abs=1e-12)
    assert (float(d["attack_rate_pct_diff_ci95_lo"][0]) <= dm
            <= float(d["attack_rate_pct_diff_ci95_hi"][0]))
    for beta in ("0.02", "0.03"):
        daily = [weft.run(overrides=dict(SMALL, **{"seir.beta": beta,
                                                   "seir.crn": "true"}),
                          model="seir", seed=s,
                          output=tmp_path / ("r%s-%d" % (beta, s))
                          ).tables["daily"] for s in range(11, 15)]
        agg = e.tables["seir.beta=" + beta]
        assert len(agg) == len(daily[0])
        for col in ("I_sym", "cumulative", "new_infections"):
            runs = np.stack([d[col].astype(float) for d in daily])
            np.testing.assert_allclose(agg[col + "_mean"], runs.mean(0),
                                       rtol=1e-12)
            np.testing.assert_allclose(agg[col + "_std"],
                                       runs.std(0, ddof=1), rtol=1e-9,
                                       atol=1e-12)


def test_batched_is_the_same(tmp_path):
    one = weft.run_ensemble(_ini(tmp_path), overrides=SMALL,
                            output=tmp_path / "one")
    two = weft.run_ensemble(_ini(tmp_path), overrides=SMALL, batch=4,
                            output=tmp_path / "bat")
    assert "stepped together on backend openmp" in two.summary["batch"]
    assert "batch" not in one.summary
    for name in one.tables:
        assert one.tables[name].tobytes() == two.tables[name].tobytes()
    for f in ("seir.beta=0.02.csv", "summary.csv"):
        with open(one.outputs[f], "rb") as a, open(two.outputs[f], "rb") as b:
            assert a.read() == b.read()


def _test_hooks():
    """Whether the libweft this process loaded reads the test hooks
    (configure --enable-test-hooks): only such a library names its
    WEFT_TEST_ variables."""
    with open("/proc/self/maps") as f:
        libs = {line.split()[-1] for line in f if "/libweft.so" in line}
    for path in libs:
        with open(path, "rb") as lib:
            if b"WEFT_TEST_" in lib.read():
                return True
    return False


@pytest.mark.skipif(not _test_hooks(), reason="the library is built "
                    "without --enable-test-hooks")
def test_a_failed_run_is_a_value(tmp_path, monkeypatch):
    monkeypatch.setenv("WEFT_TEST_ENSEMBLE_FAIL", "5")
    e = weft.run_ensemble(_ini(tmp_path), overrides=SMALL,
                          output=tmp_path / "f")
    assert [(f.index, f.scenario, f.seed) for f in e.failed] == \
        [(5, "seir.beta=0.03", 12)]
    assert "test hook ENSEMBLE_FAIL" in e.failed[0].message
    assert "seir.beta=0.02" in e.tables  # the other scenario's, written
    assert "seir.beta=0.03" not in e.tables


def test_errors(tmp_path):
    with pytest.raises(weft.ConfigError, match="not an ensemble"):
        weft.run_ensemble(overrides=SMALL, model="seir",
                          output=tmp_path / "x")
    single = tmp_path / "single.ini"  # a pathlib.Path, named
    single.write_text("[simulation]\nmodel = seir\n")
    with pytest.raises(weft.ConfigError, match=r"single\.ini is not an"):
        weft.run_ensemble(single, overrides=SMALL, output=tmp_path / "s")
    bad = _ini(tmp_path, "[seir]\nagents = many\n")
    with pytest.raises(weft.ConfigError, match=r"ens\.ini:\d+.*agents"):
        weft.run_ensemble(bad, output=tmp_path / "y")
    with pytest.raises(weft.ConfigError, match="batch"):
        weft.run_ensemble(_ini(tmp_path), overrides=SMALL, batch=0,
                          output=tmp_path / "z")
    assert not (tmp_path / "x").exists() and not (tmp_path / "z").exists()
