#!/usr/bin/env python3
"""bench/validate/covasim_validate.py - weft's epidemic against Covasim's
seed-to-seed range: the validation of examples/covasim-random.ini and
covasim-hybrid.ini.

    covasim_validate.py compare COVASIM_CSV WEFT_CSV [PLOT.png]
    covasim_validate.py bands COVASIM_CSV OUT_CSV

Both CSVs hold pop,agents,seed,day,new_infections,infectious,cumulative,
deaths, one row per day per seed (bench/covasim_run.py writes Covasim's,
bench/validate/covasim-validate.sh weft's). For each population type and size:

- Covasim's band: the 5th and 95th percentiles over its seeds (numpy's
  linear interpolation), day by day, of new infections, infectious agents
  (prevalence), cumulative infections and cumulative deaths, and of the
  final outcomes: attack rate, peak prevalence, its day, deaths;
- weft's mean over its seeds, of the same curves and outcomes.

compare prints, per curve, the days on which weft's mean lies inside
Covasim's band, and each outcome's mean against the band; it passes
(exit 0) when every outcome's mean is inside and each curve's mean is
inside on at least 95 % of the days (days where the band is [0, 0] count
as inside when weft's mean is below 0.5). With PLOT.png it draws the
curves (matplotlib): Covasim's band and median, weft's mean and band.

bands writes the reference that tests/models/test-seir-covasim.sh compares with
(tests/data/covasim-bands.csv): per population and size, one row per day
with the band of each curve, then rows "final" with the outcomes' bands.
"""
import csv
import sys
from collections import defaultdict

import numpy as np

class Spec:
    """What a comparison reads and checks: the CSV's columns after
    pop,agents,seed,day; the curves compared day by day; the outcomes and
    how a run gives them; the plot's panels (curve -> column, None: not
    drawn) and a word for its titles."""

    def __init__(self, columns, curves, finals, finals_of, panels, title=""):
        self.columns, self.curves = columns, curves
        self.finals, self.finals_of = finals, finals_of
        self.panels, self.title = panels, title


CURVES = ("new_infections", "infectious", "cumulative", "deaths")
FINALS = ("attack", "peak_prevalence", "peak_day", "deaths")
MIN_INSIDE = 0.95


def finals(run, n):
    inf = run["infectious"]
    return {"attack": run["cumulative"][-1] / n,
            "peak_prevalence": inf.max() / n,
            "peak_day": float(inf.argmax()),
            "deaths": run["deaths"][-1]}


# The presets' validation: cumulative infections checked, not drawn.
BASE = Spec(CURVES, CURVES, FINALS, finals,
            {"new_infections": 0, "infectious": 1, "deaths": 2})


def load(path, spec=BASE):
    """{(pop, agents): {seed: {column: array by day}}}"""
    runs = defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))
    cols = spec.columns
    with open(path, newline="", encoding="ascii") as f:
        for row in csv.reader(f):
            if not row or row[0] == "pop":
                continue
            pop, n, seed, day = row[0], int(row[1]), int(row[2]), int(row[3])
            for c, v in zip(cols, row[4:4 + len(cols)]):
                runs[(pop, n)][seed][c][day] = float(v)
    return {key: {s: {c: np.array([d[c][k] for k in sorted(d[c])])
                      for c in cols} for s, d in seeds.items()}
            for key, seeds in runs.items()}


def stack(seeds, what):
    return np.array([s[what] for s in seeds.values()])


def band(values):
    return np.percentile(values, 5, axis=0), np.percentile(values, 95, axis=0)


def inside(mean, lo, hi):
    return ((mean >= lo) & (mean <= hi)) | ((hi == 0) & (mean < 0.5))


def draw(ax, x, lo, hi, med, wf, mean, title):
    ax.fill_between(x, lo, hi, color="tab:blue", alpha=0.25,
                    label="Covasim 5-95 %")
    ax.plot(x, med, color="tab:blue", lw=1, label="Covasim median")
    wlo, whi = band(wf)
    ax.plot(x, mean, color="tab:red", lw=1.5, label="weft mean")
    ax.plot(x, wlo, color="tab:red", lw=0.5, ls="--", label="weft 5-95 %")
    ax.plot(x, whi, color="tab:red", lw=0.5, ls="--")
    ax.set_title(title, fontsize=9)
    ax.set_xlabel("day", fontsize=8)
    ax.tick_params(labelsize=7)


def compare_one(key, cv_seeds, wf_seeds, ax_row=None, spec=BASE):
    pop, n = key
    ok = True
    print(f"{pop}, {n} agents{spec.title}: Covasim {len(cv_seeds)} seeds, "
          f"weft {len(wf_seeds)} seeds")
    days = min(len(next(iter(cv_seeds.values()))["cumulative"]),
               len(next(iter(wf_seeds.values()))["cumulative"]))
    for c in spec.curves:
        lo, hi = band(stack(cv_seeds, c)[:, :days])
        wf = stack(wf_seeds, c)[:, :days]
        mean = wf.mean(axis=0)
        ins = inside(mean, lo, hi)
        frac = ins.mean()
        ok &= frac >= MIN_INSIDE
        out = [d for d in range(days) if not ins[d]]
        print(f"  {c:16s} mean inside Covasim's 5-95 % band on {ins.sum()} "
              f"of {days} days ({100 * frac:.1f} %)"
              + (f"; outside on days {out[:8]}{' ...' if len(out) > 8 else ''}"
                 if out else ""))
        if ax_row is not None and spec.panels.get(c) is not None:
            draw(ax_row[spec.panels[c]], np.arange(days), lo, hi,
                 np.median(stack(cv_seeds, c)[:, :days], axis=0), wf, mean,
                 f"{pop}, {n:,} agents{spec.title}: {c.replace('_', ' ')}")
    cf = [spec.finals_of(r, n) for r in cv_seeds.values()]
    wf = [spec.finals_of(r, n) for r in wf_seeds.values()]
    for f in spec.finals:
        lo, hi = band(np.array([x[f] for x in cf]))
        m = np.mean([x[f] for x in wf])
        good = lo <= m <= hi
        ok &= good
        print(f"  {f:16s} weft mean {m:10.4f}  Covasim 5-95 % "
              f"[{lo:.4f}, {hi:.4f}]  {'inside' if good else 'OUTSIDE'}")
    return ok


def compare(cv_path, wf_path, plot=None, spec=BASE):
    cv, wf = load(cv_path, spec), load(wf_path, spec)
    keys = sorted(set(cv) & set(wf))
    axes = None
    if plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        cols = max(spec.panels.values()) + 1
        fig, axes = plt.subplots(len(keys), cols,
                                 figsize=(3.6 * cols + 0.2, 2.7 * len(keys)),
                                 squeeze=False)
    ok = True
    for i, key in enumerate(keys):
        ok &= compare_one(key, cv[key], wf[key],
                          axes[i] if axes is not None else None, spec)
    if plot:
        axes[0][0].legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(plot, dpi=80)
    print("PASS" if ok and keys else "FAIL")
    return 0 if ok and keys else 1


def bands(cv_path, out, spec=BASE):
    cv = load(cv_path, spec)
    with open(out, "w", encoding="ascii") as f:
        f.write("pop,agents,day," + ",".join(
            f"{c}_lo,{c}_hi" for c in spec.curves) + "\n")
        for (pop, n), seeds in sorted(cv.items()):
            b = [band(stack(seeds, c)) for c in spec.curves]
            for d in range(len(b[0][0])):
                f.write(f"{pop},{n},{d}," + ",".join(
                    f"{lo[d]:.2f},{hi[d]:.2f}" for lo, hi in b) + "\n")
            fin = [spec.finals_of(r, n) for r in seeds.values()]
            lohi = [band(np.array([x[k] for x in fin])) for k in spec.finals]
            f.write(f"{pop},{n},final," + ",".join(
                f"{lo:.6g},{hi:.6g}" for lo, hi in lohi) + "\n")


def main(spec=BASE, doc=__doc__):
    if len(sys.argv) >= 4 and sys.argv[1] == "compare":
        return compare(sys.argv[2], sys.argv[3],
                       sys.argv[4] if len(sys.argv) > 4 else None, spec)
    if len(sys.argv) == 4 and sys.argv[1] == "bands":
        bands(sys.argv[2], sys.argv[3], spec)
        return 0
    print(doc, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
