#!/usr/bin/env python3
"""tests/core/ensemble_ref.py OUTDIR SCENARIO SEEDS...: recompute SCENARIO.csv
of an ensemble from its per-run CSVs (OUTDIR/runs/SCENARIO/SEED/CSV) with
a straightforward reference: statistics.mean, statistics.stdev (sample,
ddof = 1) and statistics.quantiles(method='inclusive'), which is numpy's
default 'linear' quantile. Prints the number of values compared; exits 1
at the first that differs by more than 1e-12 relative (the reference's
arithmetic differs from numpy's in the last bits)."""
import csv
import math
import statistics
import sys

outdir, scen, csvname = sys.argv[1], sys.argv[2], sys.argv[3]
seeds = sys.argv[4:]
runs = []
for s in seeds:
    with open(f"{outdir}/runs/{scen}/{s}/{csvname}") as f:
        runs.append(list(csv.reader(f)))
with open(f"{outdir}/{scen}.csv") as f:
    agg = list(csv.reader(f))
header = runs[0][0]
names = header[1:]
want_header = [header[0]] + [f"{c}_{s}" for c in names for s in
                             ("mean", "std", "q05", "q25", "q50", "q75",
                              "q95")]
if agg[0] != want_header:
    sys.exit(f"header differs: {agg[0][:8]} vs {want_header[:8]}")
n = 0
for row in range(1, len(runs[0])):
    got = agg[row]
    if got[0] != runs[0][row][0]:
        sys.exit(f"row {row}: x {got[0]} vs {runs[0][row][0]}")
    for j in range(1, len(header)):
        # a run's empty cell (no value) is left out, as numpy's nan*
        v = [float(r[row][j]) for r in runs if r[row][j] != ""]
        if len(v) >= 2:
            q = statistics.quantiles(v, n=20, method="inclusive")
            ref = [statistics.mean(v), statistics.stdev(v), q[0], q[4],
                   q[9], q[14], q[18]]
        elif v:
            ref = [v[0], math.nan] + [v[0]] * 5
        else:
            ref = [math.nan] * 7
        mine = [float(x) for x in got[1 + 7 * (j - 1):8 + 7 * (j - 1)]]
        for k, (a, b) in enumerate(zip(mine, ref)):
            tol = 1e-12 * max(1.0, abs(b)) if b == b else 0.0
            if (a != a) != (b != b) or abs(a - b) > tol:
                sys.exit(f"{scen}.csv row {row} column {header[j]} "
                         f"stat {k}: {a!r} vs reference {b!r}")
            n += 1
print(n)
