#!/usr/bin/env python3
"""bench/laser_measles_run.py - IDM's laser-measles 1.0.0 agent-based model
(laser.measles.abm) on its own introductory example, for
bench/laser-measles-compare.sh.

The example is the ABM tutorial's (docs/tutorials/tut_abm_intro.py):
two_patch_scenario() (100 000 and 50 000 agents at 40N 4E and 34N 10E,
no vaccination) with InfectionSeedingProcess (1 infection, exposed, in the
largest patch) and InfectionProcess at its defaults (beta 1, exposed
lognormal of mean 6 and sd 2, infectious gamma of mean 8 and sd 2,
gravity mixing with mixing_scale 0.001 and distance_exponent 1.5, no
seasonality), 365 days.

  laser_measles_run.py --seeds 1-20 --out DIR [--days N] [--beta B]
      one CSV per seed, DIR/measles-SEED.csv: day,patch,S,E,I,R (day 0 the
      state after the seeding, day t after t ticks)
  laser_measles_run.py --seeds 1-20 --out DIR --band FILE [...]
      the same, then FILE: laser-measles' seed band, per day and patch
      the 5 % and 95 % percentiles and the mean over the seeds of S, E, I
      and R (day,patch,S_lo,S_hi,S_mean,...,R_mean), after two comment
      lines: what it is, and "# weft: " and weft's --set options for the
      same example (bench/laser-measles-compare.sh --fresh and
      --band-only)
  laser_measles_run.py --print-weft
      weft's --set options for the same example (models/patches)
"""
import argparse
import math
import os
import sys

os.environ.setdefault("NUMBA_NUM_THREADS", "1")


def params_for_weft(beta, infections=1, season=(0.0, 0.0), exp_mu=6.0, exp_sigma=2.0, inf_mean=8.0, inf_sigma=2.0,
                    k=0.001):
    """weft's keys for the example. The exposed lognormal is given by its
    mean and sd (TransmissionParams.mu_underlying, sigma_underlying give
    the underlying normal's); the infectious gamma by mean and sd
    (DiseaseParams.inf_shape, inf_scale). The mixing: laser-measles'
    force in patch j is beta (sum_i I_i mix[i][j]) / N_j, mix the
    migration matrix with 1 - its row sums on the diagonal
    (BaseMixing.get_mixing_matrix); GravityMixing.get_migration_matrix
    scales column j of k p_j^b / d^c by k / (row j's sum), so that with
    two patches mix[0][1] = k N_1 / N_0 and mix[1][0] = k N_0 / N_1.
    weft's transfer f_j + sum_i f_i net[i][j] - f_j sum_l net[j][l]
    (f_i = beta I_i / N_i) gives the same flow, beta I_i mix[i][j] / N_j,
    with net[i][j] = mix[i][j] N_i / N_j = k both ways: gravity with
    a = b = c = 0. What stays in patch j differs by
    k |N_i / N_j - 1| (1 - k against laser-measles' 1 - mix[j][i]): at
    most k when the two populations are within a factor of 2. Seasonality: its
    1 + A sin(2 pi (t - s) / 365) is weft's cosine 1 + A cos(2 pi (t -
    p) / 365) with p = s + 365 / 4."""
    mu = math.log(exp_mu ** 2 / math.sqrt(exp_mu ** 2 + exp_sigma ** 2))
    sigma = math.sqrt(math.log(1 + (exp_sigma / exp_mu) ** 2))
    shape = (inf_mean / inf_sigma) ** 2
    scale = inf_sigma ** 2 / inf_mean
    return [
        "patches.populations=100000,50000",
        "patches.latitudes=40,34",
        "patches.longitudes=4,10",
        "patches.initial_infected=0",
        "patches.initial_exposed=%d,0" % infections,
        "patches.beta=%r" % beta,
        "patches.exposed_duration=lognormal(%r,%r)" % (mu, sigma),
        "patches.exposed_min=1",
        "patches.infectious_duration=gamma(%r,%r)" % (shape, scale),
        "patches.infectious_min=1",
        "patches.gravity_k=%r" % k,
        "patches.gravity_a=0",
        "patches.gravity_b=0",
        "patches.gravity_c=0",
        "patches.force_after_progression=true",
        "patches.seasonality_factor=%r" % season[0],
        "patches.seasonality_phase=%r" % (season[1] + 365 / 4),
    ]


def run(seed, days, beta, infections, season, out):
    import numpy as np
    import laser.measles as lm
    from laser.measles.abm import ABMModel, ABMParams, components
    from laser.measles.base import BasePhase
    from laser.measles.scenarios.synthetic import two_patch_scenario

    rows = []

    class Record(BasePhase):
        """First in the list: the counts at the start of each tick."""

        def __call__(self, model, tick):
            rows.append(np.array(model.patches.states, dtype=np.int64).copy())

        def _initialize(self, model):
            pass

    params = ABMParams(num_ticks=days, seed=seed, start_time="2000-01", show_progress=False)
    model = ABMModel(scenario=two_patch_scenario(), params=params)
    model.components = [
        Record,
        lm.create_component(components.InfectionSeedingProcess,
                            components.InfectionSeedingParams(
                                num_infections=infections)),
        lm.create_component(components.InfectionProcess,
                            components.InfectionParams(
                                beta=beta, seasonality=season[0],
                                season_start=season[1])),
    ]
    model.run()
    rows.append(np.array(model.patches.states, dtype=np.int64).copy())
    with open(os.path.join(out, "measles-%03d.csv" % seed), "w") as f:
        f.write("day,patch,S,E,I,R\n")
        for t, st in enumerate(rows):
            for p in range(st.shape[1]):
                f.write("%d,%d,%d,%d,%d,%d\n" % ((t, p) + tuple(st[:, p])))


def write_band(path, out, seeds, days, beta, infections, season, weft):
    """The band of the seeds' CSVs in out, with what made it and weft's
    options for the same example (weft, one line) as comments."""
    import glob
    from importlib.metadata import version
    import numpy as np

    files = sorted(glob.glob(os.path.join(out, "measles-*.csv")))
    a = np.array([np.loadtxt(f, delimiter=",", skiprows=1, dtype=np.int64) for f in files])
    with open(path, "w") as f:
        f.write("# laser-measles %s ABM, its tutorial's two_patch_scenario "
                "(100000 and 50000 agents), InfectionProcess's defaults, beta "
                "%r, seasonality A,S %g,%g; %d exposed seeded in patch 0; %d "
                "days; seeds %s; 5%%/95%% percentiles and mean per day and "
                "patch (bench/laser-measles-compare.sh --fresh)\n"
                % (version("laser-measles"), beta, season[0], season[1],
                   infections, days, seeds))
        f.write("# weft: %s\n" % weft)
        f.write("day,patch,S_lo,S_hi,S_mean,E_lo,E_hi,E_mean,I_lo,I_hi,"
                "I_mean,R_lo,R_hi,R_mean\n")
        for r in range(a.shape[1]):
            row = ["%d" % a[0, r, 0], "%d" % a[0, r, 1]]
            for k in range(2, 6):
                x = a[:, r, k]
                row += ["%.2f" % np.percentile(x, 5), "%.2f" % np.percentile(x, 95), "%.2f" % x.mean()]
            f.write(",".join(row) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", default="1-20")
    ap.add_argument("--days", type=int, default=365)
    ap.add_argument("--beta", type=float, default=1.0)
    ap.add_argument("--infections", type=int, default=1,
                    help="exposed agents seeded in the larger patch "
                    "(InfectionSeedingParams.num_infections; the "
                    "tutorial's default 1)")
    ap.add_argument("--season", default="0,0",
                    help="A,S: InfectionParams' seasonality and "
                    "season_start (default none)")
    ap.add_argument("--out", default=".")
    ap.add_argument("--band", help="write the seeds' band to this file")
    ap.add_argument("--print-weft", action="store_true")
    a = ap.parse_args()
    season = tuple(float(x) for x in a.season.split(","))
    weft = " ".join("--set " + s for s in params_for_weft(a.beta, a.infections, season))
    if a.print_weft:
        print(weft)
        return 0
    lo, _, hi = a.seeds.partition("-")
    os.makedirs(a.out, exist_ok=True)
    for seed in range(int(lo), int(hi or lo) + 1):
        run(seed, a.days, a.beta, a.infections, season, a.out)
    if a.band:
        write_band(a.band, a.out, a.seeds, a.days, a.beta, a.infections, season, weft)
    return 0


if __name__ == "__main__":
    sys.exit(main())
