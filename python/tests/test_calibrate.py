"""weft.calibrate (python/weft/calibrate.py) and its likelihood components
(python/weft/calib_components.py): the log-pmfs against closed forms
computed here with math alone, the model expressions, the argument
errors, and a calibration that recovers SEIR's beta from data made by
weft with a known beta (docs/calibration.md, "Validation"). The
calibrations skip, saying why, without optuna."""
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import weft
from weft import calib_components as cc
from weft.calib_components import (BetaBinomial, Binomial,
                                   DirichletMultinomial, GammaPoisson, Normal)

from conftest import EXAMPLES, need

CONFIG = os.path.join(EXAMPLES, "covasim-random.ini")
SMALL = {"seir.agents": 3000, "simulation.steps": 90}
TRUE_BETA = 0.012


def optuna():
    return need("optuna", "weft.calibrate runs Optuna studies")


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    """Daily new and cumulative infections of one run at beta 0.012 (seed
    999, not one of the calibration's seeds), days 1 to 90."""
    out = tmp_path_factory.mktemp("truth")
    r = weft.run(CONFIG, backend="openmp", seed=999, output=str(out),
                 overrides=dict(SMALL, **{"seir.beta": TRUE_BETA,
                                          "output.plot": "none"}))
    d = r.tables["daily"]
    return {"day": d["day"][1:], "cases": d["new_infections"][1:],
            "infected": d["cumulative"][1:]}


# ---- log-densities against closed forms ------------------------------------

def test_normal_logpdf():
    for x, mu, s2 in ((1.0, 0.0, 1.0), (3.5, 2.0, 0.25), (-4, 10, 9)):
        ref = math.log(math.exp(-(x - mu) ** 2 / (2 * s2))
                       / math.sqrt(2 * math.pi * s2))
        assert cc.normal_logpdf(x, mu, s2) == pytest.approx(ref, rel=1e-12)


def test_binom_logpmf():
    for k, n, p in ((0, 10, 0.3), (3, 10, 0.3), (10, 10, 0.9), (7, 50, .2)):
        ref = math.log(math.comb(n, k) * p ** k * (1 - p) ** (n - k))
        assert cc.binom_logpmf(k, n, p) == pytest.approx(ref, rel=1e-12)
    assert cc.binom_logpmf(0, 5, 0.0) == 0.0          # 0 log 0 = 0
    assert cc.binom_logpmf(2, 5, 0.0) == -math.inf
    assert cc.binom_logpmf(6, 5, 0.5) == -math.inf
    ks = np.arange(21)
    assert np.exp(cc.binom_logpmf(ks, 20, 0.37)).sum() == pytest.approx(1)


def _beta_int(a, b):
    return (math.factorial(a - 1) * math.factorial(b - 1)
            / math.factorial(a + b - 1))


def test_betabinom_logpmf():
    for k, n, a, b in ((0, 10, 1, 1), (4, 10, 3, 5), (9, 12, 7, 2)):
        ref = math.log(math.comb(n, k) * _beta_int(k + a, n - k + b)
                       / _beta_int(a, b))
        assert cc.betabinom_logpmf(k, n, a, b) == pytest.approx(ref,
                                                                rel=1e-10)
    # Beta(1, 1): every k of n equally likely
    assert cc.betabinom_logpmf(3, 9, 1, 1) == pytest.approx(-math.log(10))
    ks = np.arange(31)
    assert np.exp(cc.betabinom_logpmf(ks, 30, 2.5, 7.1)).sum() == \
        pytest.approx(1)


def test_nbinom_logpmf():
    for k, r, p in ((0, 1, 0.4), (5, 1, 0.4), (3, 4, 0.25), (12, 7, .6)):
        ref = math.log(math.comb(k + r - 1, k) * p ** r * (1 - p) ** k)
        assert cc.nbinom_logpmf(k, r, p) == pytest.approx(ref, rel=1e-10)
    ks = np.arange(400)
    assert np.exp(cc.nbinom_logpmf(ks, 3.3, 0.2)).sum() == pytest.approx(1)


def test_dirmult_logpmf():
    # alpha all ones: every composition of n into K parts equally likely
    x = np.array([2, 0, 5, 1])
    assert cc.dirmult_logpmf(x, np.ones(4)) == pytest.approx(
        -math.log(math.comb(8 + 3, 3)))
    # two categories: the beta-binomial
    assert cc.dirmult_logpmf([4, 6], [3, 5]) == pytest.approx(
        cc.betabinom_logpmf(4, 10, 3, 5))
    # rows on the first axis
    got = cc.dirmult_logpmf(np.array([[1, 2, 3], [0, 0, 6]]),
                            np.array([2.0, 1.0, 4.0]))
    assert got.shape == (2,)
    assert got[1] == pytest.approx(
        math.lgamma(7) + math.lgamma(7) - math.lgamma(13)
        + math.lgamma(10) - math.lgamma(4) - math.lgamma(7))


# ---- components: Starsim's reduction ---------------------------------------

def test_normal_component():
    e = np.array([1.0, 2.0, 4.0])
    a = np.array([1.5, 2.0, 3.0])
    s2 = np.mean((e - a) ** 2)                       # maximum likelihood
    c = Normal("obs", "x")
    assert c.score((e,), [(a,)]) == pytest.approx(
        0.5 * math.log(2 * math.pi * s2) + 0.5)
    c = Normal("obs", "x", sigma2=2.0, weight=3)
    ref = 3 * np.mean(0.5 * np.log(4 * math.pi) + (e - a) ** 2 / 4)
    assert c.score((e,), [(a,)]) == pytest.approx(ref)
    # replicas: the mean of each replica's NLL, or the NLL of their mean
    b = a + 1
    one = [Normal("obs", "x", sigma2=1.0).score((e,), [(v,)]) for v in (a, b)]
    c = Normal("obs", "x", sigma2=1.0)
    assert c.score((e,), [(a,), (b,)]) == pytest.approx(np.mean(one))
    assert c.score((e,), [(a,), (b,)], "mean") == pytest.approx(
        c.score((e,), [((a + b) / 2,)]))
    assert Normal("obs", weight=0).score((e,), [(a * np.nan,)]) == 0


def test_binomial_components():
    x, n = np.array([3.0, 0.0]), np.array([10.0, 4.0])
    ax, an = np.array([20.0, 5.0]), np.array([100.0, 50.0])
    ref = -np.mean([math.log(math.comb(10, 3) * .2 ** 3 * .8 ** 7),
                    math.log(.9 ** 4)])
    assert Binomial(("x", "n"), ("a", "b")).score((x, n), [(ax, an)]) == \
        pytest.approx(ref)
    ref = -np.mean(cc.betabinom_logpmf(x, n, ax + 1, an - ax + 1))
    assert BetaBinomial(("x", "n"), ("a", "b")).score(
        (x, n), [(ax, an)]) == pytest.approx(ref)
    # model trials 0: no proportion, an infinite NLL
    assert Binomial(("x", "n"), ("a", "b")).score(
        (x, n), [(ax, np.array([0.0, 50.0]))]) == math.inf


def test_gamma_poisson_component():
    x, n = np.array([4.0]), np.array([2.0])
    ax, an = np.array([9.0]), np.array([3.0])
    # Gamma(1 + 9, 1 + 3) rate; 4 events in 2: NB(r = 10, p = 4 / 6)
    p = 4 / 6
    ref = -math.log(math.comb(4 + 10 - 1, 4) * p ** 10 * (1 - p) ** 4)
    assert GammaPoisson(("x", "n"), ("a", "b")).score(
        (x, n), [(ax, an)]) == pytest.approx(ref)


def test_dirichlet_multinomial_component():
    obs = (np.array([1.0]), np.array([2.0]), np.array([3.0]))
    sim = (np.array([0.0]), np.array([0.0]), np.array([0.0]))
    assert DirichletMultinomial(["a", "b", "c"]).score(obs, [sim]) == \
        pytest.approx(math.log(math.comb(6 + 2, 2)))


# ---- model expressions -----------------------------------------------------

def test_expressions():
    cols = {"a": np.array([1.0, 2, 3, 4]), "b": np.array([10.0, 0, 0, 1])}
    ev = lambda t: cc.Expression(t).evaluate(cols)  # noqa: E731
    assert ev("a").tolist() == [1, 2, 3, 4]
    assert ev("a + b").tolist() == [11, 2, 3, 5]
    assert ev("a - b - 1").tolist() == [-10, 1, 2, 2]
    assert ev("-a + 2.5").tolist() == [1.5, 0.5, -0.5, -1.5]
    assert ev("cum(a)").tolist() == [1, 3, 6, 10]
    assert ev("diff(cum(a))").tolist() == [1, 2, 3, 4]
    assert ev("diff(a)").tolist() == [1, 1, 1, 1]
    assert ev("cum(a + b) - (a)").tolist() == [10, 11, 13, 17]
    assert cc.Expression("cum(x) + y - x").columns == ["x", "y"]
    assert cc.Expression("3000").evaluate({}, 2).tolist() == [3000, 3000]
    for bad in ("a +", "cum(a", "log(a)", "a * b", "a b", ")", "2e"):
        with pytest.raises(ValueError, match="model expression"):
            cc.Expression(bad)
    with pytest.raises(TypeError, match="model expression"):
        cc.Expression("")


def test_component_arguments():
    with pytest.raises(TypeError, match="Binomial\\(data=...\\): 2 column"):
        Binomial("x")
    with pytest.raises(TypeError, match="Normal\\(data=...\\)"):
        Normal(3)
    with pytest.raises(ValueError, match="weight"):
        Normal("x", weight=-1)
    with pytest.raises(ValueError, match="sigma2"):
        Normal("x", sigma2=0)
    with pytest.raises(ValueError, match="two or more"):
        DirichletMultinomial(["x"])
    with pytest.raises(TypeError, match="model=..."):
        GammaPoisson(("x", "n"), ("a",))


# ---- argument errors (before Optuna is needed) -----------------------------

DATA = {"day": [1, 2, 3], "cases": [1, 2, 3]}


def call(**kw):
    args = dict(data=DATA, parameters={"seir.beta": (0.005, 0.03)},
                components=[Normal("cases", "new_infections")], trials=1,
                overrides=SMALL, backend="openmp")
    args.update(kw)
    return weft.calibrate(CONFIG, **args)


@pytest.mark.parametrize("kw, exc, msg", [
    ({"parameters": {"seir.betta": (0.1, 0.2)}}, ValueError,
     r"parameters\['seir.betta'\]: .*unknown key 'betta'"),
    ({"parameters": {"beta": (0.1, 0.2)}}, TypeError, "'section.key'"),
    ({"parameters": {"seir.beta": (0.2, 0.1)}}, ValueError,
     "low must be below high"),
    ({"parameters": {"seir.beta": (0.0, 2.0)}}, ValueError,
     r"parameters\['seir.beta'\]: .*beta = 2"),
    ({"parameters": {"seir.beta": 0.1}}, TypeError, r"\(low, high\)"),
    ({"parameters": {"seir.beta": (0.0, 0.1, 0.2)}}, TypeError,
     r"\(low, high\)"),
    ({"parameters": {"seir.beta": ("a", 0.1)}}, TypeError,
     "low must be a finite number"),
    ({"parameters": {"seir.beta": {"low": 0, "high": .1, "log": True}}},
     ValueError, "log-scale parameter needs low > 0"),
    ({"parameters": {"seir.beta": {"low": .01, "hi": .1}}}, ValueError,
     "unknown entries"),
    ({"parameters": {"seir.initial_infected": (1.5, 9)},
      "overrides": None}, ValueError, None),
    ({"parameters": {"seir.beta": {"low": .01, "high": .1,
                                   "type": "int"}}}, ValueError,
     "whole bounds"),
    ({"parameters": {}}, TypeError, "non-empty dict"),
    ({"overrides": dict(SMALL, **{"seir.beta": 0.01})}, ValueError,
     "also in overrides"),
    ({"components": []}, TypeError, "components"),
    ({"components": ["cases"]}, TypeError, "not a weft.calib_components"),
    ({"components": [Normal("deaths", "D")]}, ValueError,
     "data: no column 'deaths' \\(component Normal 'deaths'\\)"),
    ({"components": [Normal("cases"), Normal("cases", "I_sym")]},
     ValueError, "share the name"),
    ({"data": {"cases": [1, 2]}}, ValueError, "no time column"),
    ({"data": {"day": [1, 2.5], "cases": [1, 2]}}, ValueError,
     "'day' must hold whole numbers"),
    ({"data": {"day": [1, 1], "cases": [1, 2]}}, ValueError, "repeats"),
    ({"data": {"day": [1, 2], "cases": [1, np.nan]}}, ValueError,
     "'cases' .*non-finite"),
    ({"data": {"day": [1, 2], "n": [1, 2], "x": [3, 1]}, "components": [
        Binomial(("x", "n"), ("a", "b"))]}, ValueError,
     "'x', 'n' \\(Binomial 'x\\+n'\\): successes above trials"),
    ({"data": {"day": [1, 2], "n": [1, 2], "x": [0.5, 1]}, "components": [
        Binomial(("x", "n"), ("a", "b"))]}, ValueError, "whole numbers"),
    ({"data": "/nonexistent/cases.csv"}, ValueError, "no such CSV file"),
    ({"data": {"day": [1, 2], "cases": ["a", "b"]}}, ValueError,
     "column 'cases' \\(component Normal 'cases'\\) must hold one "
     "number a row"),
    ({"data": {"day": ["x", "y"], "cases": [1, 2]}}, ValueError,
     "column 'day' must hold whole numbers >= 0 .*not text"),
    ({"data": {"day": [1, 2], "cases": [1, 2, 3]}}, ValueError,
     "differ in length"),
    ({"data": [1, 2, 3]}, TypeError, "data: a CSV path"),
    ({"time": "step"}, ValueError, "no column 'step' \\(time='step'\\)"),
    ({"trials": -1}, ValueError, "trials"),
    ({"replicas": 0}, ValueError, "replicas"),
    ({"sampler": "grid"}, ValueError, "sampler: one of tpe, cmaes, random"),
    ({"sampler": 3}, TypeError, "sampler"),
    ({"combine": "median"}, ValueError, "combine: one of replicas, mean"),
    ({"processes": 2}, ValueError, "storage"),
    ({"storage": 3}, TypeError, "storage"),
])
def test_bad_arguments(kw, exc, msg):
    with pytest.raises(exc, match=msg):
        call(**kw)


def test_without_optuna(tmp_path):
    """import weft works without optuna; weft.calibrate says what to
    install (checked in a child Python where optuna cannot be imported)."""
    script = (
        "import sys; sys.modules['optuna'] = None\n"
        "import weft\n"
        "from weft.calib_components import Normal\n"
        "try:\n"
        "    weft.calibrate(%r, data={'day': [1], 'c': [1]},\n"
        "        parameters={'seir.beta': (0.01, 0.02)},\n"
        "        components=[Normal('c', 'new_infections')])\n"
        "except ImportError as e:\n"
        "    print(e)\n" % CONFIG)
    p = subprocess.run([sys.executable, "-c", script], capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stderr
    assert "pip install optuna" in p.stdout


# ---- calibrations (optuna) -------------------------------------------------

def test_misaligned_and_missing_columns(synthetic):
    optuna()
    bad = dict(synthetic, day=synthetic["day"] + 10)     # days 11 to 100
    with pytest.raises(ValueError, match="data: day 91, 92, 93, 94, 95 "
                       "... not in the model's daily.csv, which has day "
                       "0 to 90"):
        call(data=bad, components=[Normal("cases", "new_infections")])
    with pytest.raises(ValueError, match="no output table has the columns "
                       "day, new_infectoins.*not found: new_infectoins"):
        call(data=synthetic, components=[Normal("cases",
                                                "new_infectoins")])
    with pytest.raises(ValueError, match="table='nothere'"):
        call(data=synthetic, table="nothere")


def test_recovers_beta(synthetic, tmp_path):
    """20 TPE trials of 4 replicas (one batched ensemble each) find beta
    within 0.0015 of the true 0.012 from the cumulative infections."""
    optuna()
    res = weft.calibrate(
        CONFIG, data=synthetic, parameters={"seir.beta": (0.004, 0.03)},
        components=[Normal("infected", "cumulative")], trials=20,
        replicas=4, seed=1, overrides=SMALL, backend="openmp")
    assert len(res.study.trials) == 20
    assert abs(res.best_params["seir.beta"] - TRUE_BETA) < 0.0015, res
    tab = res.trials
    assert tab.dtype.names == ("number", "value", "state", "seconds",
                               "seir.beta")
    assert tab["value"].min() == res.best_value
    assert set(tab["state"]) == {"COMPLETE"}
    fit = res.fit()
    assert fit["infected"]["model"].shape == (4, 1, 90)
    assert fit["total"] == pytest.approx(res.best_value)
    if _has("matplotlib"):
        res.plot_fit(str(tmp_path / "fit.png"))
        res.plot_params(str(tmp_path / "params.png"))
        assert (tmp_path / "fit.png").stat().st_size > 0
        assert (tmp_path / "params.png").stat().st_size > 0


def _has(module):
    try:
        __import__(module)
        return True
    except ImportError:
        return False


def test_resume_from_sqlite(synthetic, tmp_path):
    """4 trials, then 4 more on the same storage: one study of 8; an int
    parameter stays an int; a CSV path as data, with a text column."""
    optuna()
    csv = tmp_path / "cases.csv"
    with open(csv, "w") as f:
        f.write("date,day,cases\n")          # a text column: not used
        for d, c in zip(synthetic["day"], synthetic["cases"]):
            f.write("2020-d%d,%d,%d\n" % (d, d, c))
    kw = dict(data=str(csv), parameters={
        "seir.beta": {"low": 0.004, "high": 0.03, "log": True},
        "seir.initial_infected": (5, 40)},
        components=[Normal("cases", "new_infections")],
        trials=4, replicas=2, seed=3, overrides=SMALL, backend="openmp",
        storage="sqlite:///%s" % (tmp_path / "calib.db"),
        study_name="resume", sampler="random")
    first = weft.calibrate(CONFIG, **kw)
    assert len(first.study.trials) == 4
    second = weft.calibrate(CONFIG, **kw)
    assert len(second.study.trials) == 8
    assert [t.number for t in second.study.trials] == list(range(8))
    assert second.best_value <= first.best_value
    assert isinstance(second.best_params["seir.initial_infected"], int)
    # a third call with trials=0 only loads the study
    assert len(weft.calibrate(CONFIG, **dict(kw, trials=0)).trials) == 8


def test_processes_share_a_study(synthetic, tmp_path):
    """processes=2: two spawned workers add their trials to one study."""
    optuna()
    res = weft.calibrate(
        CONFIG, data=synthetic, parameters={"seir.beta": (0.004, 0.03)},
        components=[Normal("cases", "new_infections")], trials=4,
        replicas=2, seed=5, overrides=SMALL, backend="openmp",
        storage="sqlite:///%s" % (tmp_path / "shared.db"), processes=2)
    assert len(res.study.trials) == 4
    assert set(res.trials["state"]) == {"COMPLETE"}


def test_cmaes_threads_dataframe(synthetic):
    """sampler="cmaes", two Optuna threads, data as a pandas DataFrame,
    combine="mean", a BetaBinomial of the infected among the agents."""
    optuna()
    need("cmaes", "Optuna's CmaEsSampler uses it")
    pd = need("pandas", "data as a DataFrame")
    df = pd.DataFrame({"day": synthetic["day"],
                       "infected": synthetic["infected"],
                       "agents": np.full(len(synthetic["day"]), 3000)})
    res = weft.calibrate(
        CONFIG, data=df, parameters={"seir.beta": (0.004, 0.03)},
        components=[BetaBinomial(("infected", "agents"),
                                 ("cumulative", "3000"))],
        trials=4, replicas=2, seed=7, overrides=SMALL, backend="openmp",
        sampler="cmaes", n_jobs=2, combine="mean")
    assert len(res.trials) == 4
    assert np.isfinite(res.best_value)
