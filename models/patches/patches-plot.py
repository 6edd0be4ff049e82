#!/usr/bin/env python3
"""patches-plot.py - per-patch plots of the patch and SEIR models (models/patches/patches.md, models/seir/seir.md).

    patches-plot.py OUTDIR [--patch-file CSV | --ini INI] [--out DIR]

OUTDIR is a run's [output] directory: the patch model's with [patches]
patch_series = true (its infectious.csv and incidence.csv), or the SEIR
model's with [seir] patch_file (its by_patch.csv: new infections and
deaths). They are drawn as patch-by-day heatmaps into heatmap.png. With
--patch-file (the model's patch CSV: a latitude and longitude, or lat
and lon, column) or --ini (the run's INI file: its patch_file, or the
patch model's latitudes and longitudes), the patches are drawn as a map
at their coordinates, coloured by attack rate and sized by population,
into map.png: the share of a patch's living agents no longer
susceptible on patches.csv's last day, or for SEIR its infections after
day 0 over its population (the patch file's). Needs numpy and
matplotlib.
"""
import argparse
import csv
import os
import sys

import matplotlib

matplotlib.use(os.environ.get("MPLBACKEND", "Agg"))
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def wide(path):
    """A wide table (day, p0, p1, ...): the days and a patch x day matrix."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if len(rows) < 2 or rows[0][0] != "day":
        sys.exit(f"{path}: not a table of day,p0,p1,... (patch_series = true)")
    data = np.array([[float(x) for x in r] for r in rows[1:] if r], dtype=float)
    return data[:, 0], data[:, 1:].T


def long_form(path, column):
    """A long table (day, patch, ...; SEIR's by_patch.csv): the days and a
    patch x day matrix of one column."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows or column not in rows[0] or "patch" not in rows[0]:
        sys.exit(f"{path}: not a table of day,patch,{column},...")
    days = sorted({int(r["day"]) for r in rows})
    at = {d: k for k, d in enumerate(days)}
    m = np.zeros((max(int(r["patch"]) for r in rows) + 1, len(days)))
    for r in rows:
        m[int(r["patch"]), at[int(r["day"])]] = float(r[column])
    return np.array(days, dtype=float), m


def panels_of(outdir):
    """The heatmaps' panels: (title, days, matrix) each."""
    bp = os.path.join(outdir, "by_patch.csv")
    if not os.path.exists(os.path.join(outdir, "infectious.csv")) and os.path.exists(bp):
        return [(label, *long_form(bp, col))
                for col, label in (("new_infections", "new infections"), ("new_deaths", "deaths"))]
    names = [("infectious.csv", "infectious")]
    if os.path.exists(os.path.join(outdir, "incidence.csv")):
        names.append(("incidence.csv", "new infections"))
    return [(label, *wide(os.path.join(outdir, name))) for name, label in names]


def heatmap(outdir, out):
    panels = panels_of(outdir)
    fig, axes = plt.subplots(len(panels), 1, figsize=(10, 3.5 * len(panels)), squeeze=False)
    for ax, (label, days, m) in zip(axes[:, 0], panels):
        im = ax.imshow(m, aspect="auto", origin="lower", interpolation="nearest",
                       extent=(days[0] - 0.5, days[-1] + 0.5, -0.5, m.shape[0] - 0.5),
                       cmap="magma")
        ax.set_xlabel("day")
        ax.set_ylabel("patch")
        ax.set_title(f"{label} by patch and day")
        fig.colorbar(im, ax=ax, label=label)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def coords(path):
    """A patch file's longitudes, latitudes and populations."""
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f, skipinitialspace=True) if any(v.strip() for v in r.values() if v)]
    def col(r, *names):
        for n in names:
            if n in r and r[n].strip():
                return float(r[n])
        sys.exit(f"{path}: no column {' or '.join(names)}")
    return (np.array([col(r, "longitude", "lon") for r in rows]),
            np.array([col(r, "latitude", "lat") for r in rows]),
            np.array([col(r, "population") for r in rows]))


def ini_coords(path):
    """The coordinates an INI file's [patches] gives: patch_file's, or
    latitudes and longitudes."""
    import configparser

    cp = configparser.ConfigParser(inline_comment_prefixes=(";", "#"))
    cp.read(path)
    for name in ("patches", "seir"):
        sec = cp[name] if cp.has_section(name) else {}
        if sec.get("patch_file", "").strip():
            return coords(os.path.join(os.path.dirname(path), sec["patch_file"].strip()))
    sec = cp["patches"] if cp.has_section("patches") else {}
    try:
        lat = [float(x) for x in sec["latitudes"].split(",")]
        lon = [float(x) for x in sec["longitudes"].split(",")]
    except (KeyError, ValueError):
        sys.exit(f"{path}: no patch_file in [patches] or [seir], nor [patches] latitudes and longitudes")
    return np.array(lon), np.array(lat), None


def attack(outdir, pops):
    """Each patch's attack rate and living agents on patches.csv's last day,
    or (SEIR) its infections after day 0 in by_patch.csv over pops."""
    if not os.path.exists(os.path.join(outdir, "patches.csv")):
        if pops is None:
            sys.exit(f"{outdir}: by_patch.csv's map needs the patch file's populations")
        days, m = long_form(os.path.join(outdir, "by_patch.csv"), "new_infections")
        return np.where(pops > 0, m.sum(axis=1) / np.maximum(pops, 1), 0.0), pops
    last, rows = None, {}
    with open(os.path.join(outdir, "patches.csv"), newline="") as f:
        for r in csv.DictReader(f):
            d = int(r["day"])
            if last is None or d > last:
                last, rows = d, {}
            if d == last:
                rows[int(r["patch"])] = [int(r[k]) for k in "SEIR"]
    n = max(rows) + 1
    att, pop = np.zeros(n), np.zeros(n)
    for j, (s, e, i, r) in rows.items():
        pop[j] = s + e + i + r
        att[j] = (e + i + r) / pop[j] if pop[j] else 0.0
    return att, pop


def draw_map(outdir, patch_file, ini, out):
    lon, lat, pops = coords(patch_file) if patch_file else ini_coords(ini)
    att, pop = attack(outdir, pops)
    if len(lon) != len(att):
        sys.exit(f"{patch_file or ini}: {len(lon)} patches, patches.csv {len(att)}")
    fig, ax = plt.subplots(figsize=(7, 6))
    size = 20 + 300 * pop / max(pop.max(), 1)
    sc = ax.scatter(lon, lat, c=att, s=size, cmap="viridis", edgecolors="k", linewidths=0.3)
    fig.colorbar(sc, ax=ax, label="attack rate")
    ax.set_xlabel("longitude")
    ax.set_ylabel("latitude")
    ax.set_title("attack rate by patch (size: population)")
    ax.set_aspect(1 / max(np.cos(np.radians(np.mean(lat))), 0.1))
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--patch-file", help="the patch CSV, for the map")
    ap.add_argument("--ini", help="the run's INI file, for the map")
    ap.add_argument("--out", help="where the PNGs go (default: OUTDIR)")
    a = ap.parse_args()
    out = a.out or a.outdir
    heatmap(a.outdir, os.path.join(out, "heatmap.png"))
    print(os.path.join(out, "heatmap.png"))
    if a.patch_file or a.ini:
        draw_map(a.outdir, a.patch_file, a.ini, os.path.join(out, "map.png"))
        print(os.path.join(out, "map.png"))


if __name__ == "__main__":
    main()
