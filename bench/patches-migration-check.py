#!/usr/bin/env python3
"""bench/patches-migration-check.py - weft's migration networks (the patch
model's [patches] migration, models/patches/patches.md) against LASER's
functions (laser_core.migration: distance, gravity, radiation,
competing_destinations, stouffer, row_normalizer).

    bench/patches-migration-check.py [--build BUILD] [--python-only]
                                     [--reference OUT.csv] [--patches CSV]

For a set of patches (a 4 x 3 grid, with exact ties in distance, and 8
scattered patches of unequal populations, tests/data/patches-migration.csv),
weft runs one day with network_output = true for each case of
tests/data/patches-migration-cases.txt (each model, with and without
include_home, with LASER's default exponents and others) and its
network.csv is compared entry by entry with LASER's: the model's function
on LASER's distance matrix, its rows scaled down to max_rowsum in double
precision as row_normalizer's formula says (network * max_rowsum /
rowsum for a row over it), or with network_float32 = true LASER's
row_normalizer's own output, float32. Printed per case: the largest relative
difference (|weft - LASER| / max(|LASER|, tiny)) and the largest absolute
one; and, apart, how far LASER's own row_normalizer output, which it
rounds to float32, lies from the double-precision one. Exit status 0
when every case is within MAX_REL (default 1e-12), 1 otherwise.

--reference OUT.csv writes LASER's networks of the cases (case, source,
destination, value, %.17g; row-normalised in double, or as
row_normalizer does with network_float32) for make check (tests/models/
test-patches-migration.sh compares weft with the stored
tests/data/patches-migration-ref.csv without LASER). Needs a Python with
laser-core (LASER_PYTHON, e.g. /tmp/venv-f/bin/python; laser-generic 1.1.0
brings laser-core 1.0.5) and, without --python-only, a built tree (BUILD,
default _build): its cli/weft, the openmp plugin and the patch model.
"""
import argparse
import csv
import os
import subprocess
import sys
import tempfile

import numpy as np

try:
    from laser.core import migration as lm
except ImportError:  # older laser-core
    from laser_core import migration as lm

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PATCHES = os.path.join(TOP, "tests", "data", "patches-migration.csv")
MAX_ROWSUM = 0.09375

CASES = os.path.join(TOP, "tests", "data", "patches-migration-cases.txt")
# weft's keys and defaults for LASER's arguments.
ARGS = {"k": ("gravity_k", 500.0), "a": ("gravity_a", 1.0),
        "b": ("gravity_b", 1.0), "c": ("gravity_c", 2.0),
        "delta": ("migration_delta", 0.0),
        "include_home": ("migration_include_home", "false")}
USES = {"gravity": "kabc", "radiation": ["k", "include_home"],
        "competing_destinations": ["k", "a", "b", "c", "delta"],
        "stouffer": ["k", "a", "b", "include_home"]}


def read_cases(path):
    """(name, {key: value}) per line of the cases file."""
    cases = []
    with open(path) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                name, *kv = line.split()
                cases.append((name, dict(x.split("=", 1) for x in kv)))
    return cases


def laser_call(settings, pops, dist):
    """The network of laser_core.migration's function that the settings
    name, with their parameters (weft's defaults for the others)."""
    model = settings.get("migration", "gravity")
    kw = {}
    for arg in USES[model]:
        key, default = ARGS[arg]
        v = settings.get(key, default)
        kw[arg] = (v == "true") if arg == "include_home" else float(v)
    return getattr(lm, model)(pops, dist, **kw)


def read_patches(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    pops = np.array([float(r["population"]) for r in rows])
    lat = np.array([float(r["latitude"]) for r in rows])
    lon = np.array([float(r["longitude"]) for r in rows])
    return pops, lat, lon


def laser_network(settings, pops, lat, lon):
    """LASER's network and its row-normalised forms: double (the formula)
    and row_normalizer's own (float32)."""
    d = lm.distance(lat, lon, lat, lon)
    net = laser_call(settings, pops, d)
    sums = net.sum(axis=1)
    over = sums > MAX_ROWSUM
    dbl = net.copy()
    dbl[over] = net[over] * MAX_ROWSUM / sums[over, np.newaxis]
    return dbl, lm.row_normalizer(net, MAX_ROWSUM)


def weft_network(build, settings, out, patches):
    cmd = [os.path.join(build, "cli", "weft"), "run", "--quiet",
           os.path.join(TOP, "examples", "patches.ini"),
           "--set", "backend.name=openmp", "--set", "backend.threads=1",
           "--set", "output.plot=none", "--set", "output.directory=" + out,
           "--set", "simulation.steps=1",
           "--set", "patches.patch_file=" + patches,
           "--set", "patches.initial_infected=1",
           "--set", "patches.network_output=true"]
    for k, v in settings.items():
        cmd += ["--set", "patches.%s=%s" % (k, v)]
    env = dict(os.environ,
               WEFT_MODEL_PATH=os.path.join(build, "models", "patches", ".libs"),
               WEFT_PLUGIN_PATH=os.path.join(build, "plugins", "openmp", ".libs"))
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "network.csv")) as f:
        rows = list(csv.reader(f))[1:]
    return np.array([[float(x) for x in r[1:]] for r in rows])


def rel(a, b):
    scale = np.maximum(np.abs(b), 1e-300)
    return float(np.max(np.abs(a - b) / scale)), float(np.max(np.abs(a - b)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(TOP, "_build"))
    ap.add_argument("--python-only", action="store_true",
                    help="LASER's side only (with --reference)")
    ap.add_argument("--reference", help="write LASER's networks here")
    ap.add_argument("--patches", default=PATCHES,
                    help="another patch file (id,population,latitude,longitude)")
    args = ap.parse_args()
    limit = float(os.environ.get("MAX_REL", "1e-12"))
    pops, lat, lon = read_patches(args.patches)
    worst, ref = 0.0, []
    with tempfile.TemporaryDirectory() as tmp:
        for name, settings in read_cases(CASES):
            dbl, f32 = laser_network(settings, pops, lat, lon)
            # network_float32: weft rounds as row_normalizer does.
            f32 = f32.astype(np.float64)
            want = f32 if settings.get("network_float32") == "true" else dbl
            for i in range(len(pops)):
                for j in range(len(pops)):
                    ref.append((name, i, j, want[i, j]))
            r32, _ = rel(f32, dbl)
            if args.python_only:
                print("%-15s LASER's row_normalizer (float32) vs double: "
                      "max rel %.3g" % (name, r32))
                continue
            w = weft_network(args.build, settings, os.path.join(tmp, name),
                             args.patches)
            r, a = rel(w, want)
            worst = max(worst, r)
            print("%-15s weft vs LASER: max rel %.3g, max abs %.3g "
                  "(LASER's float32 row_normalizer vs double: max rel %.3g)"
                  % (name, r, a, r32))
    if args.reference:
        with open(args.reference, "w") as f:
            f.write("case,source,destination,value\n")
            for name, i, j, v in ref:
                f.write("%s,%d,%d,%.17g\n" % (name, i, j, v))
    if args.python_only:
        return 0
    print("largest relative difference %.3g: %s (limit %g)"
          % (worst, "pass" if worst <= limit else "FAIL", limit))
    return 0 if worst <= limit else 1


if __name__ == "__main__":
    sys.exit(main())
