#!/usr/bin/env python3
"""band-figure.py - a validation's figure: a peer's seed-to-seed band with
its mean, and weft's mean over its seeds, from the files the comparison
scripts check (bench/laser-compare.sh, bench/laser-measles-compare.sh,
bench/starsim-demog.sh with --figure).

    band-figure.py --band BAND --out PNG [--peer NAME] [--title T] FILE...

BAND is a stored band (tests/data/*-band.csv), in one of three forms:

  day,S_lo,S_hi,S_mean,...             a band per state and day
                                       (FILEs: weft's counts.csv, day,S,E,I,R)
  day,patch,S_lo,S_hi,S_mean,...       the same per patch (FILEs: patches.csv,
                                       day,patch,S,E,I,R); a panel per patch
  what,day,lo,hi,mean                  what = pop (the living) or a<AGE>
                                       (the living aged AGE up to the next
                                       bin) (FILEs: counts.csv and ages.csv)

Each panel shades the peer's 5-95 % band, dashes its mean and draws
weft's mean over the FILEs (one per seed). Needs numpy and matplotlib.
"""
import argparse
import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use(os.environ.get("MPLBACKEND", "Agg"))
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

COLORS = {"S": "#1f77b4", "E": "#ff7f0e", "I": "#d62728", "R": "#2ca02c"}


def rows(path):
    """The rows of a CSV file as dicts, its comment lines (#) skipped."""
    with open(path, newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def weft_means(files, key):
    """Mean over files of each numeric column, by key(row)."""
    acc = defaultdict(lambda: defaultdict(float))
    n = defaultdict(lambda: defaultdict(int))
    for path in files:
        for r in rows(path):
            k = key(r)
            for c, v in r.items():
                if c not in ("day", "patch") and v not in (None, ""):
                    acc[k][c] += float(v)
                    n[k][c] += 1
    return {k: {c: acc[k][c] / n[k][c] for c in acc[k]} for k in acc}


def state_panel(ax, days, band, mean, states, peer):
    """One panel of the states over the days: band, peer mean, weft mean."""
    for s in states:
        c = COLORS.get(s)
        ax.fill_between(days, band[s + "_lo"], band[s + "_hi"], color=c, alpha=0.25, lw=0)
        ax.plot(days, band[s + "_mean"], "--", color=c, lw=1)
        ax.plot(days, [mean.get(d, {}).get(s, np.nan) for d in days], color=c, lw=1.5, label=s)
    ax.set_xlabel("day")
    ax.set_ylabel("agents")
    ax.legend(title=f"weft mean (line), {peer} mean (dashes) and 5-95 % band", fontsize=8,
              title_fontsize=8, ncol=len(states))


def states_of(header):
    return [c[:-3] for c in header if c.endswith("_lo")]


def by_day(band_rows, header):
    """The band as arrays by column, and its days."""
    days = [int(float(r["day"])) for r in band_rows]
    return days, {c: np.array([float(r[c]) for r in band_rows]) for c in header if c != "day"}


def figure_states(band_rows, header, files, peer, title, out):
    days, band = by_day(band_rows, header)
    mean = weft_means(files, lambda r: int(float(r["day"])))
    fig, ax = plt.subplots(figsize=(9, 5))
    state_panel(ax, days, band, mean, states_of(header), peer)
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def figure_patches(band_rows, header, files, peer, title, out):
    patches = sorted({int(r["patch"]) for r in band_rows})
    mean = weft_means(files, lambda r: (int(r["patch"]), int(float(r["day"]))))
    fig, axes = plt.subplots(len(patches), 1, figsize=(9, 4 * len(patches)), squeeze=False)
    for ax, p in zip(axes[:, 0], patches):
        pr = [r for r in band_rows if int(r["patch"]) == p]
        days, band = by_day(pr, [c for c in header if c != "patch"])
        pm = {d: v for (q, d), v in mean.items() if q == p}
        state_panel(ax, days, band, pm, states_of(header), peer)
        ax.set_title(f"{title}: patch {p}")
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def figure_demography(band_rows, files, peer, title, out):
    # The living are the "pop" rows; a band of births by age of mother
    # has "born0" at day 0 instead (Starsim's burn-in's babies, which the
    # check leaves out too), so its curve begins at year 1.
    pop = [r for r in band_rows if r["what"] == "pop"]
    ages = [r for r in band_rows if r["what"].startswith("a")]
    counts = [f for f in files if os.path.basename(f).startswith("counts")]
    agef = [f for f in files if os.path.basename(f).startswith("ages")]
    living = defaultdict(list)
    for path in counts:
        for r in rows(path):
            living[int(r["day"])].append(sum(float(r[s]) for s in "SEIR"))
    fig, axes = plt.subplots(1, 2, figsize=(13, 5))
    ax = axes[0]
    d = np.array([int(r["day"]) for r in pop]) / 365
    ax.fill_between(d, [float(r["lo"]) for r in pop], [float(r["hi"]) for r in pop],
                    color="#1f77b4", alpha=0.25, lw=0, label=f"{peer} 5-95 %")
    ax.plot(d, [float(r["mean"]) for r in pop], "--", color="#1f77b4", lw=1, label=f"{peer} mean")
    ax.plot(d, [np.mean(living[int(r["day"])]) if living[int(r["day"])] else np.nan for r in pop],
            color="#1f77b4", lw=1.5, label="weft mean")
    ax.set_xlabel("year")
    ax.set_ylabel("living agents")
    ax.set_title(f"{title}: the living")
    ax.legend(fontsize=8)
    ax = axes[1]
    if ages:
        last = max(int(r["day"]) for r in ages)
        la = sorted((r for r in ages if int(r["day"]) == last), key=lambda r: int(r["what"][1:]))
        x = [int(r["what"][1:]) for r in la]
        wm = weft_means(agef, lambda r: int(float(r["day"]))).get(last, {})
        ax.fill_between(x, [float(r["lo"]) for r in la], [float(r["hi"]) for r in la],
                        color="#2ca02c", alpha=0.25, lw=0, step="mid", label=f"{peer} 5-95 %")
        ax.plot(x, [float(r["mean"]) for r in la], "--", color="#2ca02c", lw=1, label=f"{peer} mean")
        ax.plot(x, [wm.get(r["what"], np.nan) for r in la], "o-", color="#2ca02c", ms=3,
                lw=1.5, label="weft mean")
        ax.set_xlabel("age bin (lower edge, years)")
        ax.set_ylabel("living agents in the bin")
        ax.set_title(f"{title}: ages after {last / 365:.0f} years")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--band", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--peer", default="the peer")
    ap.add_argument("--title", default="")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    band_rows = rows(a.band)
    if not band_rows:
        sys.exit(f"{a.band}: no rows")
    header = list(band_rows[0].keys())
    title = a.title or os.path.basename(a.band)
    states = [c for c in header if c not in ("day", "patch")]
    if header[0] == "what":
        figure_demography(band_rows, a.files, a.peer, title, a.out)
    elif header[0] != "day" or not states or not all(
            c.rsplit("_", 1)[-1] in ("lo", "hi", "mean") for c in states):
        sys.exit(f"{a.band}: a band of columns {','.join(header[:4])},... is not one of "
                 "day,S_lo,..., day,patch,S_lo,... or what,day,lo,hi,mean")
    elif header[1] == "patch":
        figure_patches(band_rows, header, a.files, a.peer, title, a.out)
    else:
        figure_states(band_rows, header, a.files, a.peer, title, a.out)
    print(a.out)


if __name__ == "__main__":
    main()
