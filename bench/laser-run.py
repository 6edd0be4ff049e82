#!/usr/bin/env python3
"""bench/laser-run.py - LASER (laser-generic 1.1) one-patch SEIR example,
as its tests/test_seir.py test_single builds it: one node, 100 000 agents,
10 infectious at day 0, R0 = 1.386, beta = R0 / 7, exposed durations
gamma(shape 4.5, scale 1.0), infectious durations normal(7, 2), 365 days,
components [Susceptible, Recovered, Infectious, Exposed, Transmission].

  laser-run.py --seeds 1-20 --agents 100000 --days 365 --out DIR
      writes DIR/laser-SEED.csv (day,S,E,I,R) for each seed;
  laser-run.py --bench --agents 1000000 --days 365
      prints the seconds of model.run(), wall and CPU, of 3 runs (--reps)
      after a warm-up run of the same set-up at 10 000 agents that
      compiles numba's kernels; with --grid MxN the grid's patches
      scaled to --agents in all, with --cbr and --cdr births and deaths.
  laser-run.py --cbr 30 --cdr 10 ...
      births and deaths per 1000 per year (BirthsByCBR, MortalityByCDR),
      for every use here;
  laser-run.py --season 0.3,60 --seeds 1-20 --out DIR
      the same with LASER's seasonality (Transmission's seasonality, a
      ValuesMap.from_timeseries of 1 + 0.3 cos(2 pi (t - 60) / 365));
  laser-run.py --grid 3x3 --seeds 1-20 --out DIR
      the same disease on a grid of patches (grid()) mixed through LASER's
      gravity network: DIR/laser-SEED.csv with day,patch,S,E,I,R;
      with --agents N its populations scaled to N agents in all
      (scaled());
  laser-run.py --grid 3x3 [--agents N] --print-weft
      the [patches] keys of that grid for weft, one --set per line.
Run it with LASER's Python (a venv with laser-generic==1.1.0).
"""
import argparse
import os
import sys
import time

import numpy as np


def grid(m, n):
    """A grid of m x n patches 0.2 degrees apart (about 22 km) from
    (40 N, 100 W), row by row; populations 20 000, 30 000, ... 60 000 by
    turns; 10 infectious in patch 0 only. Returns (pops, lats, lons,
    infected)."""
    pops, lats, lons, inf = [], [], [], []
    for i in range(m):
        for j in range(n):
            k = i * n + j
            pops.append(20000 + 10000 * (k % 5))
            lats.append(40.0 + 0.2 * i)
            lons.append(-100.0 + 0.2 * j)
            inf.append(10 if k == 0 else 0)
    return pops, lats, lons, inf


def scaled(g, agents):
    """Grid g with its populations scaled to agents in all: each
    floor(pop x agents / total), the remainder one more each to the
    first patches; the infected stay (at most a patch's agents)."""
    pops, lats, lons, inf = g
    total = sum(pops)
    new = [p * agents // total for p in pops]
    for k in range(agents - sum(new)):
        new[k % len(new)] += 1
    return new, lats, lons, [min(i, p) for i, p in zip(inf, new)]


def grid_of(spec, agents=None):
    """The grid of --grid MxN (None for one patch), scaled to agents in
    all when agents is given."""
    if not spec:
        return None
    gm, _, gn = spec.partition("x")
    g = grid(int(gm), int(gn))
    return scaled(g, agents) if agents else g


def build(agents, days, seed, init_infected=10, r0=1.386, infdur=7.0,
          patches=None, cbr=0.0, cdr=0.0, season=None):
    import geopandas as gpd
    import laser.core.distributions as dists
    from laser.core import PropertySet
    from laser.generic import SEIR, Model
    from shapely.geometry import Point

    if patches is None:
        patches = ([agents], [0.0], [0.0], [init_infected])
    pops, lats, lons, inf = patches
    scenario = gpd.GeoDataFrame(
        {"nodeid": list(range(len(pops))), "population": pops},
        geometry=[Point(x, y) for x, y in zip(lons, lats)], crs="EPSG:4326")
    scenario["I"] = inf
    scenario["S"] = scenario["population"] - scenario["I"]
    scenario["E"] = 0
    scenario["R"] = 0
    params = PropertySet({"nticks": days, "beta": r0 / infdur, "seed": seed})
    vitals = cbr > 0 or cdr > 0
    if vitals:
        from laser.generic.utils import ValuesMap
        from laser.generic.vitaldynamics import BirthsByCBR, MortalityByCDR
        births = ValuesMap.from_scalar(cbr, days, len(pops)).values
        deaths = ValuesMap.from_scalar(cdr, days, len(pops)).values
        model = Model(scenario, params, birthrates=births)
    else:
        model = Model(scenario, params)
    expdist = dists.gamma(shape=4.5, scale=1.0)
    infdist = dists.normal(loc=infdur, scale=2)
    s = SEIR.Susceptible(model)
    e = SEIR.Exposed(model, expdist, infdist)
    i = SEIR.Infectious(model, infdist)
    r = SEIR.Recovered(model)
    if season:
        # Seasonality: the Transmission's multiplier of beta by day,
        # 1 + a cos(2 pi (t - phase) / 365) (weft's seasonality_factor
        # and seasonality_phase), one series for every node.
        from laser.generic.utils import ValuesMap
        amp, phase = season
        t = np.arange(days)
        m = (1 + amp * np.cos(2 * np.pi * (t - phase) / 365)).astype(np.float32)
        tx = SEIR.Transmission(model, expdist,
                               seasonality=ValuesMap.from_timeseries(m, len(pops)))
    else:
        tx = SEIR.Transmission(model, expdist)
    model.components = [s, r, i, e, tx]
    if vitals:
        # Mortality before births: BirthsByCBR takes "tomorrow's"
        # population, after the deaths.
        model.components = [s, r, i, e, tx, MortalityByCDR(model, deaths),
                            BirthsByCBR(model, births, None, track=False)]
    return model


def seeds(spec):
    a, _, b = spec.partition("-")
    return range(int(a), int(b or a) + 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="1-20")
    ap.add_argument("--agents", type=int, default=None,
                    help="agents (default 100000); with --grid the total "
                    "the grid's populations are scaled to (default: "
                    "grid()'s own)")
    ap.add_argument("--days", type=int, default=365)
    ap.add_argument("--out", default=".")
    ap.add_argument("--bench", action="store_true")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--grid", default="",
                    help="MxN: a grid of patches (grid()), LASER's gravity "
                    "network with its defaults; writes day,patch,S,E,I,R")
    ap.add_argument("--print-weft", action="store_true")
    ap.add_argument("--cbr", type=float, default=0.0,
                    help="births per 1000 per year (BirthsByCBR)")
    ap.add_argument("--cdr", type=float, default=0.0,
                    help="deaths per 1000 per year (MortalityByCDR)")
    ap.add_argument("--season", default="",
                    help="A,P: seasonality 1 + A cos(2 pi (t - P) / 365) "
                    "(Transmission's seasonality)")
    a = ap.parse_args()
    season = tuple(float(x) for x in a.season.split(",")) if a.season else None
    if a.print_weft:
        g = grid_of(a.grid, a.agents)
        for key, v in zip(("populations", "latitudes", "longitudes",
                           "initial_infected"), g):
            print("--set\npatches.%s=%s" % (key, ",".join(str(x) for x in v)))
        return 0
    os.environ.setdefault("TQDM_DISABLE", "1")
    agents = a.agents or 100000
    vitals = {"cbr": a.cbr, "cdr": a.cdr}
    if a.bench:
        # The warm-up compiles numba's kernels for this set-up: the same
        # components (and patches) at 10 000 agents, 5 days.
        build(10000, 5, 1, patches=grid_of(a.grid, 10000), **vitals).run()
        g = grid_of(a.grid, agents)
        for rep in range(a.reps):
            m = build(agents, a.days, 1000 + rep, patches=g, **vitals)
            t, c = time.perf_counter(), time.process_time()
            m.run()
            print("laser %d agents %d days %.3f s wall %.3f s cpu" %
                  (agents, a.days, time.perf_counter() - t,
                   time.process_time() - c), flush=True)
        return 0
    os.makedirs(a.out, exist_ok=True)
    if a.grid:
        g = grid_of(a.grid, a.agents)
        for sd in seeds(a.seeds):
            m = build(0, a.days, sd, patches=g, **vitals)
            m.run()
            n = m.nodes
            with open(os.path.join(a.out, "laser-%d.csv" % sd), "w") as f:
                f.write("day,patch,S,E,I,R\n")
                for t in range(a.days + 1):
                    for p in range(len(g[0])):
                        f.write("%d,%d,%d,%d,%d,%d\n" % (
                            t, p, n.S[t, p], n.E[t, p], n.I[t, p], n.R[t, p]))
        return 0
    for sd in seeds(a.seeds):
        m = build(agents, a.days, sd, season=season, **vitals)
        m.run()
        n = m.nodes
        with open(os.path.join(a.out, "laser-%d.csv" % sd), "w") as f:
            f.write("day,S,E,I,R\n")
            for t in range(a.days + 1):
                f.write("%d,%d,%d,%d,%d\n" % (t, n.S[t].sum(), n.E[t].sum(),
                                              n.I[t].sum(), n.R[t].sum()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
