"""weft.run, weft.check, weft.backends, weft.models and the exceptions."""
import os

import numpy as np
import pytest

import weft
from conftest import need


SMALL = {"seir.agents": 3000, "simulation.steps": 30, "output.plot": "none",
         "backend.name": "openmp"}


def test_listings():
    found = weft.backends()
    # a copy installed elsewhere on the path is listed too, shadowed
    names = {b.name: b for b in found if not b.shadowed}
    for b in found:
        if b.shadowed:
            assert b.state == "unavailable" and "shadowed by" in b.reason
            assert names[b.name].path in b.reason
    assert names["openmp"].state == "available"
    assert names["openmp"].score > 0
    assert {"cuda", "opencl", "openmp"} <= set(names)
    models = {m.name: m for m in weft.models() if m.state != "shadowed"}
    assert models["seir"].state == "available"
    assert models["cartpole"].summary
    assert weft.library_version() == weft.__version__


def test_run_seir(astoria, tmp_path):
    r = weft.run(astoria, overrides=SMALL, output=tmp_path)
    assert r.model == "seir" and r.backend == "openmp" and r.steps == 30
    assert r.summary["agents"].startswith("3000")
    assert set(r.outputs) >= {"daily.csv", "summary.txt"}
    daily = r.tables["daily"]
    assert isinstance(daily, weft.Table)
    assert daily.dtype.names[:3] == ("day", "S", "E")
    assert len(daily) == 31 and daily["day"][-1] == 30
    assert np.issubdtype(daily["S"].dtype, np.integer)
    assert (daily["S"] + daily["E"] + daily["I_asym"] + daily["I_sym"] +
            daily["R"] + daily["D"] == 3000).all()
    # zero synchronisations inside step(n): the drain at the end, and one
    # more for the campaign summary's read of the care bytes at the finish
    assert r.counters["syncs"] == 2 and r.counters["steps"] == 30
    with open(r.outputs["daily.csv"]) as f:
        assert f.read().count("\n") == 32


def test_syncs_outside_steps(astoria, tmp_path):
    # syncs do not grow with the steps: none inside step(n)
    longer = weft.run(astoria, overrides={**SMALL, "simulation.steps": 60},
                      output=tmp_path / "60")
    assert longer.counters["syncs"] == 2 and longer.counters["steps"] == 60
    # without a vaccination campaign the finish reads no state: one sync
    plain = weft.run(astoria, overrides={**SMALL, "seir.vaccine_doses": 0},
                     output=tmp_path / "plain")
    assert plain.counters["syncs"] == 1


def test_run_to_pandas(astoria, tmp_path):
    need("pandas", "Table.to_pandas")
    r = weft.run(astoria, overrides=SMALL, output=tmp_path)
    df = r.tables["daily"].to_pandas()
    assert list(df.columns[:2]) == ["day", "S"] and len(df) == 31


def test_same_seed_same_run(astoria, tmp_path):
    a = weft.run(astoria, overrides=SMALL, output=tmp_path / "a")
    b = weft.run(astoria, overrides=dict(SMALL, **{"backend.threads": 1}),
                 output=tmp_path / "b")
    c = weft.run(astoria, overrides=SMALL, seed=5, output=tmp_path / "c")
    # byte for byte (Rt is empty, NaN in the table, where there is too
    # little to estimate it, and NaN never equals itself)
    def text(r):
        with open(r.outputs["daily.csv"]) as f:
            return f.read()
    assert text(a) == text(b)
    assert text(a) != text(c)
    assert (a.tables["daily"]["E"] == b.tables["daily"]["E"]).all()


def test_overrides_forms(astoria, tmp_path):
    sets = ["%s=%s" % kv for kv in SMALL.items()]
    r = weft.run(astoria, overrides=sets, output=tmp_path)
    assert r.steps == 30
    with pytest.raises(TypeError, match="not one string"):
        weft.run(astoria, overrides="seir.agents=5")
    with pytest.raises(TypeError, match="section.key"):
        weft.run(astoria, overrides={"agents": 5})


def test_overrides_refuse_nul_and_control_characters(astoria, tmp_path,
                                                      monkeypatch):
    # A NUL byte must not cut the value short (output.directory "a\0b"
    # would write to ./a); it and every other control character is
    # refused, naming the key, as a configuration file refuses them.
    monkeypatch.chdir(tmp_path)
    for value, what in (("a\x00b", r"a NUL byte \(\\x00\) at column 2"),
                        ("a\x01b", r"a control character \(\\x01\)")):
        for how in ({"output.directory": value},
                    ["output.directory = " + value]):
            sets = (dict(SMALL, **how) if isinstance(how, dict)
                    else ["%s=%s" % kv for kv in SMALL.items()] + how)
            with pytest.raises(weft.ConfigError,
                               match=r"^--set output\.directory: " + what):
                weft.run(astoria, overrides=sets)
            with pytest.raises(weft.ConfigError, match="output.directory"):
                weft.check(astoria, overrides=how)
            with pytest.raises(weft.ConfigError, match="output.directory"):
                weft.run_ensemble(astoria, overrides=how, runs=2)
    with pytest.raises(weft.ConfigError, match=r"in the key") as e:
        weft.run(astoria, overrides={"output.dir\x00ectory": "x"})
    assert "output.dir\\x00ectory" in str(e.value)
    assert os.listdir(tmp_path) == []


def test_check(astoria, tmp_path):
    weft.check(astoria)
    bad = tmp_path / "bad.ini"
    bad.write_text("[simulation]\nmodel = seir\nstepz = 3\n")
    with pytest.raises(weft.ConfigError) as e:
        weft.check(str(bad))
    assert "bad.ini:3" in str(e.value) and "steps" in str(e.value)
    assert e.value.status == -4
    with pytest.raises(weft.ConfigError, match="agents"):
        weft.check(astoria, overrides={"seir.agents": -1})


def test_errors_carry_the_c_message(astoria, tmp_path):
    with pytest.raises(weft.WeftError) as e:
        weft.run(astoria, backend="nosuch", output=tmp_path)
    assert isinstance(e.value, (weft.PluginError, weft.BackendError))
    assert "nosuch" in str(e.value) and "openmp" in str(e.value)
    with pytest.raises(weft.ConfigError, match="no such file|cannot"):
        weft.run(str(tmp_path / "missing.ini"))
    with pytest.raises(weft.ConfigError) as e:
        weft.run(astoria, overrides=dict(SMALL, **{"seir.agents": 10,
                                                    "seir.initial_infected":
                                                    20}), output=tmp_path)
    assert "initial_infected" in str(e.value)


def test_exception_families():
    assert issubclass(weft.InvalidArgumentError, ValueError)
    assert issubclass(weft.ConfigError, ValueError)
    assert issubclass(weft.OutOfMemoryError, MemoryError)
    assert issubclass(weft.FileError, OSError)
    for cls in (weft.ConfigError, weft.PluginError, weft.BackendError,
                weft.DeviceError, weft.ModelError, weft.UnsupportedError,
                weft.InternalError, weft.FileError):
        assert issubclass(cls, weft.WeftError)
    assert len({c.status for c in weft.WeftError.__subclasses__()}) == 10
    assert str(weft.FileError("disk full", -3)) == "disk full"


def test_failed_run_replaces_nothing(astoria, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "daily.csv").write_text("earlier\n")
    with pytest.raises(weft.ConfigError):
        weft.run(astoria, overrides=dict(SMALL, **{"seir.agents": 10,
                                                    "seir.initial_infected":
                                                    20}), output=out)
    assert (out / "daily.csv").read_text() == "earlier\n"
    assert sorted(os.listdir(out)) == ["daily.csv"]
