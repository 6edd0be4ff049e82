#!/usr/bin/env python3
"""bench/calibrate-covasim.py - the same fitting problem side by side:
Covasim 3.1's cv.Calibration and weft.calibrate fit beta to data that
Covasim made; wall time to reach the same likelihood, and the fitted
values. docs/calibration.md ("Side by side with Covasim") and
docs/benchmarks.md quote its numbers.

    # weft importable here (with optuna); Covasim's own environment:
    python bench/calibrate-covasim.py            # 20,000 agents, 40 trials
    python bench/calibrate-covasim.py --pop-size 5000 --trials 20 --seeds 1

The data: one Covasim 3.1 simulation (pop_type 'random', --pop-size
agents, --days days, beta --beta, rand_seed --data-seed, 20 initial
infections, no waning, as bench/covasim_run.py), its cumulative
infections cum_infections on days 1 ... --days, written as CSV (date,
day, cum_infections, new_infections; --keep DIR keeps it).

Three calibrations of beta in --range, --trials trials each, Optuna's TPE
sampler (its defaults, seeded with the calibration seed), one process on
one core each (taskset -c --cpu), one after the other:

  covasim   cv.Calibration(sim, calib_pars={'beta': [0.016, LOW, HIGH]},
            fit_args=..., total_trials=T, n_workers=1, db_name in a
            temporary directory): one simulation a trial (rand_seed 100 +
            seed, not the data's), scored by Covasim's cv.Fit on
            cum_infections with normalize=False, use_squared=True: the
            sum of squared errors (Covasim's default mismatch, normalised
            absolute error, ranks trials differently);
  weft R=1  weft.calibrate(examples/covasim-random.ini, replicas=1):
            one run a trial (seed = the calibration seed), scored by
            Normal('cum_infections', 'cumulative') (the Normal NLL of
            maximum-likelihood variance);
  weft R=8  the same with replicas=8, combine='mean': one batched ensemble
            of 8 runs a trial, scored on their mean curve.

Both objectives rank trials alike (the Normal NLL of maximum-likelihood
variance is 0.5 log(2 pi SSE / n) + 0.5), and TPE uses only the ranks, so
both sides optimise the same thing. Each side records, for every trial,
its simulated cum_infections curve (the mean over the replicas for
R=8) and the wall time since the calibration call began; this script
then scores every trial of every side with ONE objective: the Normal NLL
(maximum-likelihood variance, mean over the days) of the data given that
curve, and reports it with its RMSE = exp(NLL - 0.5 log(2 pi e)). A level
"within x %" is RMSE <= (1 + x) x the best RMSE of covasim and weft R=1
(the sides with one simulation a trial) in that seed, i.e. NLL <= best +
log(1 + x); "of own best": the same from the side's own best. Each
side's own objective is checked against this one (a warning when they
differ).

Not timed: imports, and a small warm-up simulation on each side before
the calibration (Covasim's numba functions load from their cache or
compile on first use; weft loads its model plugin). Timed: from the call
of calib.calibrate() / weft.calibrate() to the end of each trial's
simulation (Covasim's study creation in its SQLite file included; its
"before" and "after" simulations, run after the trials, are not).

Options: --covasim-python (default: what bench/covasim-venv.sh prints;
Optuna must be installed there: pip install optuna), weft in the
interpreter running this script. The table is printed; --json FILE
writes every trial (--report FILE prints its table again).
"""
import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
CONFIG = os.path.join(TOP, "examples", "covasim-random.ini")
LEVELS = (0.25, 0.05, 0.01)
OWN_LEVELS = (0.05, 0.01)
SIDES = ("covasim", "weft R=1", "weft R=8")


# ---- in Covasim's interpreter ----------------------------------------------

def covasim_pars(a, seed, beta):
    return dict(pop_type="random", pop_size=a.pop_size, n_days=a.days,
                pop_infected=20, rand_seed=seed, rescale=False,
                use_waning=False, beta=beta, verbose=0)


def role_data(a):
    import covasim as cv
    sim = cv.Sim(covasim_pars(a, a.data_seed, a.beta))
    sim.run()
    r = sim.results
    with open(a.out, "w") as f:
        f.write("date,day,cum_infections,new_infections\n")
        for d in range(1, a.days + 1):
            f.write("%d,%d,%d,%d\n" % (d, d, r["cum_infections"][d],
                                       r["new_infections"][d]))
    json.dump({"covasim": cv.__version__}, sys.stdout)


def role_covasim(a):
    import covasim as cv
    import optuna
    # Covasim's worker loads the study without a sampler: Optuna's default
    # TPESampler(), unseeded. Seed it (nothing else changes) so that a run
    # can be repeated, and both sides draw the same startup trials.
    tpe_init = optuna.samplers.TPESampler.__init__

    def seeded(self, *args, **kw):
        kw.setdefault("seed", a.seed)
        tpe_init(self, *args, **kw)
    optuna.samplers.TPESampler.__init__ = seeded

    t = time.perf_counter()
    cv.Sim(covasim_pars(a, 1, 0.016) | dict(pop_size=2000, n_days=20)).run()
    warm = time.perf_counter() - t
    recs = []
    t0 = [None]

    def custom_fn(sim, calib_pars):
        # Record each simulation's curve when it finalises (the objective
        # is computed from the same results just after).
        finalize = sim.finalize

        def recorded(*args, **kw):
            out = finalize(*args, **kw)
            recs.append((time.perf_counter() - t0[0],
                         float(sim["beta"]),
                         [float(v) for v in
                          sim.results["cum_infections"].values]))
            return out
        sim.finalize = recorded
        return sim

    with tempfile.TemporaryDirectory(prefix="covasim-calib-") as tmp:
        sim = cv.Sim(covasim_pars(a, 100 + a.seed, 0.016), datafile=a.data)
        calib = cv.Calibration(
            sim, calib_pars={"beta": [0.016, a.low, a.high]},
            fit_args=dict(keys=["cum_infections"], normalize=False,
                          use_squared=True),
            custom_fn=custom_fn, total_trials=a.trials, n_workers=1,
            db_name=os.path.join(tmp, "covasim_calibration.db"),
            verbose=False)
        t0[0] = time.perf_counter()
        calib.calibrate(verbose=False)
    # the study's database is gone (keep_db=False); calib.df keeps the
    # trials' mismatches, in the order of the trials
    own = [float(v) for v in calib.df["mismatch"]]
    json.dump({"covasim": cv.__version__, "optuna": optuna.__version__,
               "warmup_s": warm, "elapsed_s": calib.elapsed,
               "best": dict(calib.best_pars),
               "trials": [{"t": r[0], "beta": r[1], "curve": r[2][1:],
                           "own": v} for r, v in zip(recs, own)]},
              open(a.json_out, "w"))


# ---- in weft's interpreter -------------------------------------------------

def role_weft(a):
    import numpy as np
    import optuna
    import weft
    from weft.calib_components import Normal
    wc = sys.modules["weft.calibrate"]

    base = {"seir.agents": a.pop_size, "simulation.steps": a.days}
    t = time.perf_counter()
    with tempfile.TemporaryDirectory() as out:
        weft.run(CONFIG, output=out, overrides={
            "seir.agents": 2000, "simulation.steps": 20,
            "output.plot": "none"})
    warm = time.perf_counter() - t
    data = np.genfromtxt(a.data, delimiter=",", names=True)
    recs = []
    t0 = [None]
    simulate = wc._Objective.simulate

    def recorded(self, values):
        reps, failed = simulate(self, values)
        recs.append((time.perf_counter() - t0[0], values["seir.beta"],
                     np.mean([r["cumulative"] for r in reps],
                             axis=0).tolist() if reps else None))
        return reps, failed
    wc._Objective.simulate = recorded
    t0[0] = time.perf_counter()
    res = weft.calibrate(
        CONFIG, data={"day": data["day"],
                      "cum_infections": data["cum_infections"]},
        parameters={"seir.beta": (a.low, a.high)},
        components=[Normal("cum_infections", "cumulative")],
        trials=a.trials, replicas=a.replicas, combine="mean", seed=a.seed,
        overrides=base)
    trials = sorted(res.study.trials, key=lambda t: t.number)
    json.dump({"weft": weft.__version__ if hasattr(weft, "__version__")
               else "", "optuna": optuna.__version__, "warmup_s": warm,
               "elapsed_s": res.elapsed, "best": res.best_params,
               "trials": [{"t": r[0], "beta": r[1], "curve": r[2],
                           "own": tr.value}
                          for r, tr in zip(recs, trials)]},
              open(a.json_out, "w"))


# ---- the comparison --------------------------------------------------------

def nll(data, curve):
    """Mean Normal NLL of data given curve, variance the mean square of
    the residuals (maximum likelihood)."""
    n = len(data)
    s2 = max(sum((d - c) ** 2 for d, c in zip(data, curve)) / n, 1e-300)
    return 0.5 * math.log(2 * math.pi * s2) + 0.5


def rmse(v):
    return math.exp(v - 0.5 * math.log(2 * math.pi * math.e))


def covasim_python(a):
    if a.covasim_python:
        return a.covasim_python
    out = subprocess.run([os.path.join(HERE, "covasim-venv.sh")],
                         check=True, capture_output=True, text=True)
    return out.stdout.strip().splitlines()[-1]


def pinned(cmd, cpu):
    if cpu is not None and cpu != "" and shutil.which("taskset"):
        return ["taskset", "-c", str(cpu)] + cmd
    return cmd


def uptime():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def common_args(a):
    return ["--pop-size", str(a.pop_size), "--days", str(a.days),
            "--beta", str(a.beta), "--data-seed", str(a.data_seed),
            "--range", str(a.low), str(a.high), "--trials", str(a.trials)]


def run_side(a, side, python, seed, data, work):
    out = os.path.join(work, "%s-%d.json" % (side.replace(" ", "").replace(
        "=", ""), seed))
    cmd = [python, os.path.abspath(__file__)] + common_args(a) + [
        "--seed", str(seed), "--data", data, "--json-out", out]
    if side == "covasim":
        cmd += ["--role", "covasim"]
    else:
        cmd += ["--role", "weft", "--replicas", side.split("=")[1]]
    env = dict(os.environ, OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="1")
    load = uptime()
    t = time.perf_counter()
    p = subprocess.run(pinned(cmd, a.cpu), env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    wall = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit("bench/calibrate-covasim.py: the %s calibration (seed %d) "
                 "failed (exit status %d):\n%s"
                 % (side, seed, p.returncode, p.stdout[-3000:]))
    with open(out) as f:
        r = json.load(f)
    r["load"] = load
    r["process_s"] = wall
    return r


def first_reach(trials, level):
    for tr in trials:
        if tr["obj"] <= level:
            return tr["t"], tr["n"]
    return None, None


def med(v):
    v = [x for x in v if x is not None]
    return statistics.median(v) if v else None


def fmt(v, f="%.1f"):
    return "-" if v is None else f % v


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pop-size", type=int, default=20000)
    ap.add_argument("--days", type=int, default=120)
    ap.add_argument("--beta", type=float, default=0.012,
                    help="the data's beta (default 0.012)")
    ap.add_argument("--data-seed", type=int, default=1)
    ap.add_argument("--range", type=float, nargs=2, default=(0.004, 0.03),
                    metavar=("LOW", "HIGH"), help="beta's search range")
    ap.add_argument("--trials", type=int, default=40)
    ap.add_argument("--seeds", type=int, default=3,
                    help="calibration seeds 1 ... N (default 3)")
    ap.add_argument("--sides", default=",".join(SIDES),
                    help="which of %s (comma-separated)" % ", ".join(SIDES))
    ap.add_argument("--cpu", default="0",
                    help="taskset -c CPU for each calibration ('' for "
                         "none; default 0)")
    ap.add_argument("--covasim-python", default=None,
                    help="Covasim 3.1's interpreter (default: what "
                         "bench/covasim-venv.sh prints)")
    ap.add_argument("--keep", default=None, metavar="DIR",
                    help="keep the data CSV and each side's JSON in DIR")
    ap.add_argument("--json", default=None, metavar="FILE",
                    help="write the summary and every trial to FILE")
    # internal: the work of one process
    ap.add_argument("--role", choices=("data", "covasim", "weft"),
                    help=argparse.SUPPRESS)
    ap.add_argument("--seed", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--replicas", type=int, default=1,
                    help=argparse.SUPPRESS)
    ap.add_argument("--data", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    ap.add_argument("--json-out", help=argparse.SUPPRESS)
    ap.add_argument("--report", default=None, metavar="FILE",
                    help="print the table of a --json FILE again")
    a = ap.parse_args()
    a.low, a.high = a.range
    if a.report:
        with open(a.report) as f:
            saved = json.load(f)
        runs = saved["runs"]
        return report(a, list(runs), runs)
    if a.role == "data":
        return role_data(a)
    if a.role == "covasim":
        return role_covasim(a)
    if a.role == "weft":
        return role_weft(a)

    sides = [s.strip() for s in a.sides.split(",") if s.strip()]
    for s in sides:
        if s != "covasim" and not (s.startswith("weft R=") and
                                   s[7:].isdigit()):
            sys.exit("--sides: covasim or 'weft R=N', got %r" % s)
    cpy = covasim_python(a)
    need = [(cpy, "import covasim, optuna", "Covasim's (--covasim-python,"
             " bench/covasim-venv.sh; then PYTHON -m pip install optuna)"),
            (sys.executable, "import weft, optuna", "weft's (this one: "
             "python/ built, pip install optuna)")]
    for py, code, what in need:
        p = subprocess.run([py, "-c", code], capture_output=True, text=True)
        if p.returncode != 0:
            err = p.stderr.strip().splitlines()
            sys.exit("bench/calibrate-covasim.py: %s cannot %s (%s); it is "
                     "%s interpreter" % (py, code, err[-1] if err else
                                         "failed", what))
    work = a.keep or tempfile.mkdtemp(prefix="calibrate-covasim-")
    os.makedirs(work, exist_ok=True)
    try:
        data = os.path.join(work, "data.csv")
        p = subprocess.run([cpy, os.path.abspath(__file__), "--role", "data",
                            "--out", data] + common_args(a),
                           capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit("bench/calibrate-covasim.py: Covasim's data run failed "
                     "(%s):\n%s" % (cpy, p.stderr[-3000:]))
        covasim_version = json.loads(p.stdout.strip().splitlines()[-1])[
            "covasim"]
        with open(data) as f:
            f.readline()
            obs = [float(line.split(",")[2]) for line in f]
        print("data: Covasim %s, pop_type random, %d agents, %d days, beta "
              "%g, rand_seed %d; cum_infections on days 1-%d (final %d)"
              % (covasim_version, a.pop_size, a.days, a.beta, a.data_seed,
                 a.days, obs[-1]))
        print("fit: beta in [%g, %g], %d trials, TPE; taskset -c %s; "
              "calibration seeds 1-%d" % (a.low, a.high, a.trials,
                                          a.cpu or "(none)", a.seeds))
        sys.stdout.flush()
        runs = {s: [] for s in sides}
        for seed in range(1, a.seeds + 1):
            for side in sides:
                py = cpy if side == "covasim" else sys.executable
                r = run_side(a, side, py, seed, data, work)
                for i, tr in enumerate(r["trials"]):
                    tr["n"] = i + 1
                    tr["obj"] = nll(obs, tr["curve"])
                own = [tr["own"] if side != "covasim" else
                       0.5 * math.log(2 * math.pi * max(tr["own"], 1e-300) /
                                      len(obs)) + 0.5
                       for tr in r["trials"]]
                r["own_diff"] = max(abs(o - tr["obj"]) for o, tr in
                                    zip(own, r["trials"]))
                if r["own_diff"] > 1e-6:
                    print("warning: the %s side's own objective differs "
                          "from this script's by up to %g"
                          % (side, r["own_diff"]), file=sys.stderr)
                best = min(r["trials"], key=lambda tr: tr["obj"])
                r["best_trial"] = best
                r["seed"] = seed
                runs[side].append(r)
                print("seed %d %-9s load %s: best beta %.5f, NLL %.4f (RMSE "
                      "%.1f), %d trials in %.1f s (%.2f s a trial; warm-up "
                      "%.1f s untimed; own objective vs this one: %.1g)"
                      % (seed, side, r["load"], best["beta"], best["obj"],
                         rmse(best["obj"]), len(r["trials"]),
                         r["trials"][-1]["t"],
                         r["trials"][-1]["t"] / len(r["trials"]),
                         r["warmup_s"], r["own_diff"]))
                sys.stdout.flush()
        report(a, sides, runs)
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"args": vars(a), "data": obs, "runs": runs}, f)
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


def report(a, sides, runs):
    # the levels: from the best of the one-simulation-a-trial sides
    ref_sides = [s for s in sides if s in ("covasim", "weft R=1")] or sides
    rows = []
    for s in sides:
        per = {"best beta": [], "best NLL": [], "RMSE": [], "s/trial": [],
               "total s": []}
        reach = {x: [] for x in LEVELS + tuple(("own", x)
                                               for x in OWN_LEVELS)}
        for i, r in enumerate(runs[s]):
            ref = min(runs[q][i]["best_trial"]["obj"] for q in ref_sides)
            b = r["best_trial"]
            per["best beta"].append(b["beta"])
            per["best NLL"].append(b["obj"])
            per["RMSE"].append(rmse(b["obj"]))
            tot = r["trials"][-1]["t"]
            per["total s"].append(tot)
            per["s/trial"].append(tot / len(r["trials"]))
            for x in LEVELS:
                t, n = first_reach(r["trials"], ref + math.log1p(x))
                reach[x].append((t, n))
            for x in OWN_LEVELS:
                t, n = first_reach(r["trials"], b["obj"] + math.log1p(x))
                reach[("own", x)].append((t, n))
        rows.append((s, per, reach))
    n = len(runs[sides[0]])
    print()
    print("Medians over %d calibration seed%s; the times to a level (s, "
          "and the trial) per seed, '-' when not reached; a level: within "
          "x %% of the best RMSE of %s in that seed, or of the side's own "
          "best:" % (n, "s" if n > 1 else "", " and ".join(ref_sides)))
    head = ["side", "best beta", "best NLL", "RMSE", "s/trial", "total s"] + [
        "to %g %%" % (100 * x) for x in LEVELS] + [
        "to %g %% of own best" % (100 * x) for x in OWN_LEVELS]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" for _ in head) + "|")
    for s, per, reach in rows:
        cells = [s, fmt(med(per["best beta"]), "%.5f"),
                 fmt(med(per["best NLL"]), "%.3f"),
                 fmt(med(per["RMSE"]), "%.1f"),
                 fmt(med(per["s/trial"]), "%.2f"),
                 fmt(med(per["total s"]), "%.1f")]
        for x in LEVELS + tuple(("own", x) for x in OWN_LEVELS):
            cells.append(", ".join("-" if t is None else "%.1f (%d)" % (t, k)
                                   for t, k in reach[x]))
        print("| " + " | ".join(cells) + " |")
    print()
    print("Per seed: best beta, RMSE, total s:")
    for s, per, reach in rows:
        print("  %-9s %s" % (s, "; ".join(
            "%.5f, %.1f, %.1f" % v for v in
            zip(per["best beta"], per["RMSE"], per["total s"]))))


if __name__ == "__main__":
    main()
