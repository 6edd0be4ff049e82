"""bench/calibrate-recovery.py - does weft.calibrate recover a parameter
that made the data? SEIR (examples/covasim-random.ini) at a known beta
makes the data (one run per data seed, seeds 1000, 1001, ...: not the
calibration's); weft.calibrate fits beta (and, with --initial, the int
initial_infected) to it; prints, per data seed, the true and recovered
values, an interval, the trials and the wall time, then the recovered
values' mean and spread over the data seeds. docs/calibration.md
("Validation") quotes its numbers.

    . _venv/bin/activate            # weft and optuna (pip install optuna)
    python bench/calibrate-recovery.py                  # 20,000 agents
    python bench/calibrate-recovery.py --agents 3000 --days 90 --trials 20

The interval: the range of the values of the 5 best trials (a rough
picture of how flat the objective is near its minimum; the spread over
the data seeds is the honest measure of the uncertainty). The data: daily
new infections or the cumulative infected (--data), from day 1, compared
with a Normal component of maximum-likelihood variance.
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIG = os.path.join(os.path.dirname(HERE), "examples",
                      "covasim-random.ini")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agents", type=int, default=20000)
    ap.add_argument("--days", type=int, default=120)
    ap.add_argument("--beta", type=float, default=0.012,
                    help="the true beta (default 0.012)")
    ap.add_argument("--initial", type=int, default=0,
                    help="also fit initial_infected in [5, 60], true "
                         "value this (0: not fitted; the config's 20)")
    ap.add_argument("--range", type=float, nargs=2, default=(0.004, 0.03),
                    metavar=("LOW", "HIGH"), help="beta's search range")
    ap.add_argument("--trials", type=int, default=40)
    ap.add_argument("--replicas", type=int, default=8)
    ap.add_argument("--data-seeds", type=int, default=3)
    ap.add_argument("--data", choices=("cum", "daily"), default="cum")
    ap.add_argument("--sampler", default="tpe",
                    choices=("tpe", "cmaes", "random"))
    ap.add_argument("--backend", default=None)
    a = ap.parse_args()

    import weft
    from weft.calib_components import Normal

    base = {"seir.agents": a.agents, "simulation.steps": a.days}
    truth = {"seir.beta": a.beta}
    params = {"seir.beta": tuple(a.range)}
    if a.initial:
        truth["seir.initial_infected"] = a.initial
        params["seir.initial_infected"] = (5, 60)
    column = "cumulative" if a.data == "cum" else "new_infections"
    print("SEIR covasim-random, %d agents, %d days, data: %s from day 1; "
          "%d trials (%s) of %d replicas; backend %s"
          % (a.agents, a.days, column, a.trials, a.sampler, a.replicas,
             a.backend or "auto"))
    found = {k: [] for k in params}
    for i in range(a.data_seeds):
        seed = 1000 + i
        with tempfile.TemporaryDirectory() as out:
            r = weft.run(CONFIG, seed=seed, output=out, backend=a.backend,
                         overrides=dict(base, **truth,
                                        **{"output.plot": "none"}))
            d = r.tables["daily"]
        data = {"day": d["day"][1:], "obs": d[column][1:]}
        t0 = time.perf_counter()
        res = weft.calibrate(CONFIG, data=data, parameters=params,
                             components=[Normal("obs", column)],
                             trials=a.trials, replicas=a.replicas, seed=1,
                             sampler=a.sampler, overrides=base,
                             backend=a.backend)
        wall = time.perf_counter() - t0
        tab = res.trials
        near = np.zeros(len(tab), bool)
        near[np.argsort(tab["value"])[:5]] = True
        for k in params:
            found[k].append(res.best_params[k])
            print("data seed %d: %s true %g recovered %.5g interval "
                  "[%.5g, %.5g] (best %d of %d trials), best objective %.4f, "
                  "%.1f s (%.2f s a trial)"
                  % (seed, k, truth[k], res.best_params[k],
                     tab[k][near].min(), tab[k][near].max(), near.sum(),
                     len(tab), res.best_value, wall, wall / a.trials))
        sys.stdout.flush()
    for k, v in found.items():
        sd = statistics.stdev(v) if len(v) > 1 else float("nan")
        print("%s: true %g; recovered mean %.5g, sd %.2g over %d data "
              "seeds (error of the mean %+.1f %%)"
              % (k, truth[k], np.mean(v), sd, len(v),
                 100 * (np.mean(v) - truth[k]) / truth[k]))


if __name__ == "__main__":
    main()
