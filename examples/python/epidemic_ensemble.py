#!/usr/bin/env python3
"""examples/python/epidemic_ensemble.py - an ensemble of 20 runs of the
Astoria epidemic (examples/astoria.ini), one per seed, with their mean
and 90 % band of infectious agents, exposed and cumulative infections
per day, plotted with matplotlib.

    python examples/python/epidemic_ensemble.py [--runs 20] [--out ensemble.png]
        [--set seir.agents=100000 ...] [--backend openmp]

Each run is weft.run(): the daily table comes back as a numpy structured
array, so the ensemble is a stack of columns, with no CSV glue. Needs
numpy and matplotlib (pip install matplotlib); 20 runs take about
1.2 s on a 2-core AMD EPYC VM.
"""
import argparse
import os
import tempfile
import time

import numpy as np

import weft

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIG = os.path.join(HERE, "..", "astoria.ini")


def ensemble(runs, overrides, backend):
    """The daily tables of `runs` runs, seeds 1..runs."""
    tables = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(1, runs + 1):
            r = weft.run(CONFIG, seed=seed, backend=backend,
                         output=os.path.join(tmp, "seed-%d" % seed),
                         overrides=dict(overrides, **{"output.plot": "none"}))
            tables.append(r.tables["daily"])
    return tables


def band(tables, column):
    """Mean and the 5th and 95th percentiles across runs, per day."""
    cols = column.split("+")
    v = np.stack([sum(t[c].astype(float) for c in cols) for t in tables])
    return v.mean(axis=0), np.percentile(v, 5, axis=0), \
        np.percentile(v, 95, axis=0)


def plot(tables, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    day = tables[0]["day"]
    fig, ax = plt.subplots(figsize=(9, 5))
    for column, label, colour in (("I_asym+I_sym", "infectious", "#d62728"),
                                  ("E", "exposed", "#ff7f0e"),
                                  ("new_infections", "new infections",
                                   "#1f77b4")):
        mean, lo, hi = band(tables, column)
        ax.fill_between(day, lo, hi, color=colour, alpha=0.25,
                        label="%s, 90 %% of runs" % label)
        ax.plot(day, mean, color=colour, label="%s, mean" % label)
    ax.set_xlabel("day")
    ax.set_ylabel("agents")
    ax.set_title("Astoria, %d seeds: mean and 90 %% band" % len(tables))
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=100)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--out", default="ensemble.png")
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--set", action="append", default=[],
                    help="section.key=value, as weft run --set")
    a = ap.parse_args()
    overrides = dict(s.split("=", 1) for s in a.set)
    t0 = time.perf_counter()
    tables = ensemble(a.runs, overrides, a.backend)
    final = np.array([t["cumulative"][-1] for t in tables], dtype=float)
    print("%d runs in %.1f s; infected in all: mean %.0f, 90 %% of runs "
          "within %.0f..%.0f" % (a.runs, time.perf_counter() - t0,
                                 final.mean(), *np.percentile(final, [5, 95])))
    plot(tables, a.out)
    print("wrote", a.out)


if __name__ == "__main__":
    main()
