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

  --scenario satellites: laser-measles' satellites_scenario (a core of
      100 000 agents and 9 towns of 20 000 to 30 000 around it, within
      200 km; the function's defaults: 500 000, and 29 towns of 100 000 to
      150 000), the exposed seeded in the core, InfectionProcess at its
      defaults (its gravity mixing over 10 patches), 1000 seeds for the
      stored band, which then also has each patch's arrival day (the
      first its agents ever infected reach 50: mean, sd, seeds). --network
      FILE writes laser-measles' own migration matrix (the mixer's
      migration_matrix) for weft's network_file; weft mixes the infectious
      through it as laser-measles does (mixing_form = infectious). The
      path in the band's weft line is @BANDDIR@/ and the file's name.
  --scenario single_patch: single_patch_scenario (100 000 agents), with
      --vital CBR,CDR (VitalDynamicsProcess, first in the list: it sizes
      the agents' arrays; weft's cbr, cdr and cdr_mode = measles) or --sia
      DAY,EFFICACY (SIACalendarProcess; weft's sia).
  --constant-pop CBR (any scenario): ConstantPopProcess, first in the
      list, births replacing deaths at that crude birth rate (weft's cbr
      with constant_population = true).
  --importation RATE (any scenario): ImportationPressureProcess, last in
      the list, imports at that crude rate per 1000 a year (weft's
      importation_pressure); with --infections 0 no agent is seeded
      (no InfectionSeedingProcess) and importation starts the epidemic.
"""
import argparse
import math
import os
import sys

os.environ.setdefault("NUMBA_NUM_THREADS", "1")


SATELLITES = dict(core_population=100_000, satellite_population=20_000, n_towns=10)


def scenario(name):
    from laser.measles.scenarios.synthetic import satellites_scenario, two_patch_scenario

    from laser.measles.scenarios.synthetic import single_patch_scenario

    if name == "satellites":
        return satellites_scenario(**SATELLITES)
    return single_patch_scenario() if name == "single_patch" else two_patch_scenario()


def params_for_scenario(beta, infections, season, vital, pops, network):
    """weft's keys for the satellites and single-patch examples: the
    two-patch keys' durations and seasonality, laser-measles' populations,
    its network (network, a file name next to the band; None: one patch)
    mixing the infectious, and with vital (CBR, CDR) births at its
    lambda_birth ((1 + cbr/1000)^(1/365) - 1: cbr_mode laser) and deaths at
    its mu_death ((1 + cdr/1000)^(1/365) - 1: cdr_mode measles)."""
    keep = ("exposed_duration", "exposed_min", "infectious_duration", "infectious_min",
            "force_after_progression", "seasonality_factor", "seasonality_phase", "beta")
    base = [s for s in params_for_weft(beta, infections, season) if s.split("=")[0][len("patches."):] in keep]
    base += [
        "patches.populations=%s" % ",".join(str(int(p)) for p in pops),
        "patches.initial_infected=0",
        "patches.initial_exposed=%d%s" % (infections, ",0" * (len(pops) - 1)),
    ]
    if network:
        base += ["patches.network_file=@BANDDIR@/%s" % os.path.basename(network),
                 "patches.mixing_form=infectious"]
    if vital:
        base += ["patches.cbr=%r" % vital[0], "patches.cdr=%r" % vital[1], "patches.cdr_mode=measles"]
    return base


def write_network(path, sc):
    """laser-measles' migration matrix for the scenario, as InfectionProcess
    builds it (its default mixer), a row per source patch, in full
    precision."""
    from laser.measles.abm import ABMModel, ABMParams, components
    import laser.measles as lm

    model = ABMModel(scenario=sc, params=ABMParams(num_ticks=1, seed=1, start_time="2000-01", show_progress=False))
    model.components = [lm.create_component(components.InfectionProcess, components.InfectionParams())]
    inf = [c for c in model.instances if type(c).__name__ == "InfectionProcess"][0]
    m = inf.transmission.params.mixer.migration_matrix
    with open(path, "w") as f:
        f.write("laser-measles migration matrix (InfectionParams' default GravityMixing): "
                "a row per source patch and a column per destination\n")
        for row in m:
            f.write(",".join("%.17g" % x for x in row) + "\n")


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


def run(seed, days, beta, infections, season, out, name="two_patch", vital=None, sia=None,
        constpop=None, importation=None):
    import numpy as np
    import laser.measles as lm
    from laser.measles.abm import ABMModel, ABMParams, components
    from laser.measles.base import BasePhase

    rows = []

    class Record(BasePhase):
        """First in the list: the counts at the start of each tick."""

        def __call__(self, model, tick):
            rows.append(np.array(model.patches.states, dtype=np.int64).copy())

        def _initialize(self, model):
            pass

    params = ABMParams(num_ticks=days, seed=seed, start_time="2000-01", show_progress=False)
    model = ABMModel(scenario=scenario(name), params=params)
    comps = [Record]
    if infections:
        comps.append(lm.create_component(components.InfectionSeedingProcess,
                                         components.InfectionSeedingParams(
                                             num_infections=infections)))
    comps.append(lm.create_component(components.InfectionProcess,
                                     components.InfectionParams(
                                         beta=beta, seasonality=season[0],
                                         season_start=season[1])))
    if sia:
        # SIACalendarProcess: its day's date (the model's dates start at
        # 2000-01-01, a day a tick) for every patch (its own group); it
        # draws from numpy's global generator, seeded here.
        import datetime
        import polars as pl

        np.random.seed(seed)
        ids = model.scenario["id"].to_list()
        when = datetime.datetime(2000, 1, 1) + datetime.timedelta(days=int(sia[0]))
        sched = pl.DataFrame({"id": ids, "date": [when] * len(ids)})
        comps.insert(1, lm.create_component(components.SIACalendarProcess,
                                            components.SIACalendarParams(
                                                sia_efficacy=sia[1], sia_schedule=sched)))
    if vital:
        # First after Record: VitalDynamicsProcess sizes the agents' arrays
        # for the births to come, which the processes after it then use.
        comps.insert(1, lm.create_component(components.VitalDynamicsProcess,
                                            components.VitalDynamicsParams(
                                                crude_birth_rate=vital[0],
                                                crude_death_rate=vital[1])))
    if importation:
        comps.append(lm.create_component(components.ImportationPressureProcess,
                                         components.ImportationPressureParams(
                                             crude_importation_rate=importation)))
    if constpop:
        # First after Record too: it sizes the agents' arrays (to the
        # agents at day 0: its newborns take the dead's places).
        comps.insert(1, lm.create_component(components.ConstantPopProcess,
                                            components.ConstantPopParams(
                                                crude_birth_rate=constpop)))
    model.components = comps
    model.run()
    rows.append(np.array(model.patches.states, dtype=np.int64).copy())
    with open(os.path.join(out, "measles-%03d.csv" % seed), "w") as f:
        f.write("day,patch,S,E,I,R\n")
        for t, st in enumerate(rows):
            for p in range(st.shape[1]):
                f.write("%d,%d,%d,%d,%d,%d\n" % ((t, p) + tuple(st[:, p])))


ARRIVAL = 50  # agents ever infected (E + I + R) that mark an arrival


def write_band(path, out, seeds, days, beta, infections, season, weft,
               what="its tutorial's two_patch_scenario (100000 and 50000 agents)",
               arrival=False):
    """The band of the seeds' CSVs in out, with what made it and weft's
    options for the same example (weft, one line) as comments; with
    arrival, a comment line per patch too: the mean and standard deviation
    over the seeds of the first day its agents ever infected reach ARRIVAL,
    and the seeds in which they do (bench/arrival-check.awk)."""
    import glob
    from importlib.metadata import version
    import numpy as np

    files = sorted(glob.glob(os.path.join(out, "measles-*.csv")))
    a = np.array([np.loadtxt(f, delimiter=",", skiprows=1, dtype=np.int64) for f in files])
    with open(path, "w") as f:
        f.write("# laser-measles %s ABM, %s, InfectionProcess's defaults, beta "
                "%r, seasonality A,S %g,%g; %d exposed seeded in patch 0; %d "
                "days; seeds %s; 5%%/95%% percentiles and mean per day and "
                "patch (bench/laser-measles-compare.sh --fresh)\n"
                % (version("laser-measles"), what, beta, season[0], season[1],
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
        if not arrival:
            return
        # a: seeds x rows (day-major, then patch) x day,patch,S,E,I,R
        npatch = int(a[0, :, 1].max()) + 1
        f.write("# arrival: the first day a patch's E + I + R reaches %d: "
                "patch, mean, sd, seeds that reach it\n" % ARRIVAL)
        for p in range(npatch):
            rows = a[:, a[0, :, 1] == p, :]
            hit = rows[:, :, 3:6].sum(axis=2) >= ARRIVAL
            ok = hit.any(axis=1)
            d = rows[ok, :, 0][np.arange(ok.sum()), hit[ok].argmax(axis=1)]
            f.write("# arrival,%d,%.4f,%.4f,%d\n" % (p, d.mean(), d.std(ddof=1), ok.sum()))


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
    ap.add_argument("--scenario", choices=("two_patch", "satellites", "single_patch"),
                    default="two_patch",
                    help="two_patch (the tutorial's), satellites (10 patches) or "
                    "single_patch (100 000 agents)")
    ap.add_argument("--vital", help="CBR,CDR: VitalDynamicsProcess with these crude "
                    "birth and death rates (its defaults are 20,8); one patch only")
    ap.add_argument("--sia", help="DAY,EFFICACY: SIACalendarProcess, a campaign in every "
                    "patch on that day immunizing that share of the susceptible "
                    "(weft's sia)")
    ap.add_argument("--constant-pop", type=float, metavar="CBR",
                    help="ConstantPopProcess at this crude birth rate: births "
                    "replace deaths (weft's constant_population)")
    ap.add_argument("--importation", type=float, metavar="RATE",
                    help="ImportationPressureProcess at this crude rate per 1000 a "
                    "year (weft's importation_pressure)")
    ap.add_argument("--network", help="--scenario satellites: write laser-measles' "
                    "migration matrix to this file (needed)")
    a = ap.parse_args()
    season = tuple(float(x) for x in a.season.split(","))
    vital, what = None, None
    if a.vital and a.scenario != "single_patch":
        # laser-measles 1.0's ABM: VitalDynamicsProcess re-sizes the
        # agents' frame after the model placed them, and every agent
        # ends up in patch 0 (its patch counts then wrap below zero).
        ap.error("--vital: with one patch only (laser-measles' "
                 "VitalDynamicsProcess puts every agent in patch 0)")
    if a.vital:
        vital = tuple(float(x) for x in a.vital.split(","))
    sia = None
    if a.sia:
        sia = (int(a.sia.split(",")[0]), float(a.sia.split(",")[1]))
    if sia and a.scenario == "two_patch":
        ap.error("--sia: with --scenario satellites or single_patch")
    if a.scenario != "two_patch":
        if a.scenario == "satellites" and not a.network:
            ap.error("--scenario satellites needs --network FILE")
        sc = scenario(a.scenario)
        if a.scenario == "satellites":
            write_network(a.network, sc)
        opts = params_for_scenario(a.beta, a.infections, season, vital, sc["pop"].to_list(),
                                   a.network if a.scenario == "satellites" else None)
        what = ("%s(%s) (%d patch%s, %d agents)%s"
                % (a.scenario + "_scenario",
                   ", ".join("%s=%r" % kv for kv in SATELLITES.items()) if a.scenario == "satellites" else "",
                   len(sc), "es" if len(sc) > 1 else "", sc["pop"].sum(),
                   ", VitalDynamicsProcess (crude birth and death rates %g and %g)" % vital if vital else ""))
        if sia:
            what += ", SIACalendarProcess (day %d, sia_efficacy %g)" % sia
            opts.append("patches.sia=day=%d coverage=%r" % sia)
    else:
        opts = params_for_weft(a.beta, a.infections, season)
    if a.constant_pop:
        opts += ["patches.cbr=%r" % a.constant_pop, "patches.constant_population=true"]
        cp = ", ConstantPopProcess (crude birth rate %g)" % a.constant_pop
        what = (what + cp if what else
                "its tutorial's two_patch_scenario (100000 and 50000 agents)" + cp)
    if a.importation:
        opts += ["patches.importation_pressure=%r" % a.importation]
        ip = ", ImportationPressureProcess (crude importation rate %g)" % a.importation
        what = (what + ip if what else
                "its tutorial's two_patch_scenario (100000 and 50000 agents)" + ip)
    weft = " ".join("--set " + s for s in opts)
    if a.print_weft:
        print(weft)
        return 0
    lo, _, hi = a.seeds.partition("-")
    os.makedirs(a.out, exist_ok=True)
    for seed in range(int(lo), int(hi or lo) + 1):
        run(seed, a.days, a.beta, a.infections, season, a.out, a.scenario, vital, sia,
            a.constant_pop, a.importation)
    if a.band:
        if what:
            write_band(a.band, a.out, a.seeds, a.days, a.beta, a.infections, season, weft, what,
                       arrival=a.scenario == "satellites")
        else:
            write_band(a.band, a.out, a.seeds, a.days, a.beta, a.infections, season, weft)
    return 0


if __name__ == "__main__":
    sys.exit(main())
