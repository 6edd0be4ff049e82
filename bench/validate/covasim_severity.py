#!/usr/bin/env python3
"""bench/validate/covasim_severity.py - hospital load with limited beds,
weft against Covasim 3.1 (the validation scenarios of the SEIR model's
severity, testing, tracing and vaccination: "baseline with severity",
"testing by probability with isolation" and "testing plus tracing plus
quarantine", "a two-dose vaccination campaign to 60 % coverage of the
over-50s"): Covasim's random population (examples/covasim-random.ini's
settings) with n_beds_hosp and n_beds_icu, and the scenario's
interventions, seed by seed, and the comparison of weft's mean curves
with Covasim's seed-to-seed band.

    covasim_severity.py run AGENTS DAYS SEEDS BEDS_HOSP BEDS_ICU OUT_CSV [SCENARIO]
    covasim_severity.py compare COVASIM_CSV WEFT_CSV
    covasim_severity.py sets SCENARIO
    covasim_severity.py time AGENTS DAYS SEED BEDS_HOSP BEDS_ICU SCENARIO
    covasim_severity.py plot OUT_PNG LABEL COVASIM_CSV WEFT_CSV [LABEL ...]

run writes Covasim's rows seed,day,new_infections,severe,critical,deaths,
diagnoses (severe: Covasim's n_severe, agents severe or critical;
critical: n_critical; deaths and diagnoses: cumulative), SEEDS one seed
or FIRST-LAST. SCENARIO: severity (the default: no intervention),
testing (SCENARIOS below: cv.test_prob), tracing (cv.test_prob and
cv.contact_tracing), vaccine (a two-dose campaign: weft's
vaccine_campaigns on its side, cv.simple_vaccine given weft's allocation
on Covasim's; see Campaign) or all (tracing and vaccine together).
bench/validate/covasim-severity.sh writes weft's the same way
(severe = hospitalised + over_hosp, critical = icu + over_icu, deaths =
D, diagnoses = diagnosed) with the same interventions in weft's keys
(WEFT_SETS).

sets prints the scenario's weft keys, one `section.key=value` a line.
time runs one seed and prints "init_s run_s attack" (sim.initialize()
and sim.run(), after an untimed small simulation has loaded Covasim's
numba functions); SCENARIO none is Covasim's defaults (no interventions,
unlimited beds: BEDS_HOSP and BEDS_ICU are ignored).

plot draws, for each LABEL (a row), the curves of new infections,
agents severe, critical, deaths and diagnoses: Covasim's 5-95 % band
and median against weft's mean.

compare prints, per curve, the days on which weft's mean over its seeds
lies inside Covasim's 5-95 % band (numpy percentiles over Covasim's
seeds), and the final outcomes (attack rate, peak severe, peak critical,
deaths) against their bands; it passes (exit 0) when every outcome is
inside and each curve is inside on at least 95 % of the days (a band of
[0, 0] counts as inside when weft's mean is below 0.5).
"""
import csv
import os
import sys
from collections import defaultdict

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

CURVES = ("new_infections", "severe", "critical", "deaths", "diagnoses")

# The scenarios' interventions on Covasim's side, and the same in weft's
# keys (printed by `covasim_severity.py sets SCENARIO` for
# bench/validate/covasim-severity.sh). Covasim's defaults for its random
# population are weft's: iso_factor 0.2 (weft's isolation_factor, which
# diagnosed_factor takes by default), quar_factor 0.3, quar_period 14.
TEST = dict(symp_prob=0.2, asymp_prob=0.002, test_delay=1)
TRACE = dict(trace_probs=0.5, trace_time=1)
WEFT_SETS = {
    "none": [],
    "severity": [],
    "testing": ["seir.test_symp_prob=0.2", "seir.test_asymp_prob=0.002",
                "seir.test_delay=1"],
    "tracing": ["seir.test_symp_prob=0.2", "seir.test_asymp_prob=0.002",
                "seir.test_delay=1", "seir.trace_probs=0.5",
                "seir.trace_time=1"],
}


# The vaccination scenario: from day 30, 2,000 first doses a day to the
# over-50s in a random order until 60 % of them have one, a second dose
# 21 days after the first; efficacy against infection and against
# symptoms 0.6 after both doses, half of that after the first (weft's
# vaccine_first_dose), none against severe disease beyond what fewer
# symptoms give (cv.simple_vaccine has no severe-disease effect).
VAX = dict(start=30, doses=2000, coverage=0.6, min_age=50, second=21,
           efficacy=0.6, first=0.5)
WEFT_SETS["vaccine"] = [
    "seir.vaccine_campaigns=days={start}- doses={doses} coverage={coverage}"
    " ages={min_age}+ second={second} efficacy={efficacy}"
    " symptoms={efficacy} severe=0 first={first}".format(**VAX)]
WEFT_SETS["all"] = WEFT_SETS["tracing"] + WEFT_SETS["vaccine"]
# The same campaign against infection alone (no effect on symptoms): the
# control that shows where weft's and Covasim's vaccines differ (weft
# decides symptoms at onset with the doses then, Covasim at exposure).
WEFT_SETS["vaccine-inf"] = [WEFT_SETS["vaccine"][0].replace(
    "symptoms={efficacy}".format(**VAX), "symptoms=0")]


class Campaign:
    """weft's campaign allocation (models/seir/seir.md, "Vaccination
    campaigns") as a cv.simple_vaccine subtarget: the group's agents in a
    random order, cut at round(coverage x group); on day d the places
    (d - start) x doses ... + doses - 1 get a first dose and the places
    second days earlier their second, the dead skipped (their dose lost),
    a second dose only to an agent who had the first."""

    def __init__(self, seed):
        self.seed, self.order, self.had_first = seed, None, None

    def days(self, n_days):
        p = VAX
        return [d for d in range(n_days + 1)
                if d >= p["start"]] if p["start"] <= n_days else []

    def __call__(self, sim):
        import numpy as np
        p = VAX
        if self.order is None:
            group = np.flatnonzero(sim.people.age >= p["min_age"])
            rng = np.random.default_rng(self.seed)
            cut = int(np.floor(p["coverage"] * len(group) + 0.5))
            self.order = rng.permutation(group)[:cut]
            self.had_first = np.zeros(sim.n, dtype=bool)
        picks = []
        k = sim.t - p["start"]
        first = self.order[max(k, 0) * p["doses"]:(k + 1) * p["doses"]] \
            if k >= 0 else self.order[:0]
        first = first[~sim.people.dead[first]]
        self.had_first[first] = True
        picks.append(first)
        k2 = k - p["second"]
        if k2 >= 0:
            sec = self.order[k2 * p["doses"]:(k2 + 1) * p["doses"]]
            picks.append(sec[self.had_first[sec] & ~sim.people.dead[sec]])
        inds = np.concatenate(picks)
        return {"inds": inds, "vals": np.ones(len(inds))}


def vaccine(seed, n_days, symptoms=True):
    """cv.simple_vaccine with the campaign's allocation: the first dose
    multiplies susceptibility and the chance of symptoms by 1 - first x
    efficacy, the second by what takes them to 1 - efficacy (weft's
    "what the doses leave"), through simple_vaccine's per-dose
    `cumulative` factors."""
    import covasim as cv
    e, f = VAX["efficacy"], VAX["first"]
    second = (1 - (1 - e) / (1 - f * e)) / e
    c = Campaign(seed)
    return cv.simple_vaccine(days=c.days(n_days), prob=0.0,
                             rel_sus=1 - e, rel_symp=1 - e if symptoms else 1,
                             subtarget=c, cumulative=[f, second])


def interventions(scenario, seed=0, days=0):
    import covasim as cv
    if scenario == "severity":
        return []
    if scenario == "testing":
        return [cv.test_prob(**TEST)]
    if scenario == "vaccine":
        return [vaccine(seed, days)]
    if scenario == "vaccine-inf":
        return [vaccine(seed, days, symptoms=False)]
    tt = [cv.test_prob(**TEST), cv.contact_tracing(**TRACE)]
    return tt + [vaccine(seed, days)] if scenario == "all" else tt


def make_sim(agents, days, seed, beds_hosp, beds_icu, scenario):
    import covasim as cv
    pars = dict(pop_type="random", pop_size=agents, n_days=days,
                pop_infected=20, rand_seed=seed, rescale=False,
                use_waning=False, verbose=0)
    if scenario != "none":
        pars.update(n_beds_hosp=beds_hosp, n_beds_icu=beds_icu,
                    interventions=interventions(scenario, seed, days))
    return cv.Sim(pars)


def time_one(agents, days, seed, beds_hosp, beds_icu, scenario):
    import time
    make_sim(2000, 10, 0, 10, 5, scenario).run()  # numba's cache; untimed
    sim = make_sim(agents, days, seed, beds_hosp, beds_icu, scenario)
    t0 = time.perf_counter()
    sim.initialize()
    t1 = time.perf_counter()
    sim.run()
    t2 = time.perf_counter()
    r = sim.results
    print(f"{t1 - t0:.3f} {t2 - t1:.3f} "
          f"{100 * r['cum_infections'][-1] / agents:.2f}")


def run(agents, days, seeds, beds_hosp, beds_icu, out, scenario):
    first, _, last = seeds.partition("-")
    with open(out, "w", encoding="ascii") as f:
        f.write("seed,day," + ",".join(CURVES) + "\n")
        for seed in range(int(first), int(last or first) + 1):
            sim = make_sim(agents, days, seed, beds_hosp, beds_icu, scenario)
            sim.run()
            r = sim.results
            for d in range(len(r["t"])):
                f.write(f"{seed},{d},{int(r['new_infections'][d])},"
                        f"{int(r['n_severe'][d])},{int(r['n_critical'][d])},"
                        f"{int(r['cum_deaths'][d])},"
                        f"{int(r['cum_diagnoses'][d])}\n")


def load(path):
    """{seed: {curve: [value by day]}}"""
    runs = defaultdict(lambda: defaultdict(dict))
    with open(path, newline="", encoding="ascii") as f:
        for row in csv.DictReader(f):
            for c in CURVES:
                runs[int(row["seed"])][c][int(row["day"])] = float(row[c])
    return {s: {c: [d[c][k] for k in sorted(d[c])] for c in CURVES}
            for s, d in runs.items()}


def outcomes(run_):
    return {"infected": sum(run_["new_infections"]),
            "peak severe": max(run_["severe"]),
            "peak critical": max(run_["critical"]),
            "deaths": run_["deaths"][-1],
            "diagnosed": run_["diagnoses"][-1]}


def inside(v, lo, hi):
    return lo <= v <= hi or (hi == 0 and v < 0.5)


def compare(cv_path, wf_path):
    import numpy as np
    cvr, wfr = load(cv_path), load(wf_path)
    ok = True
    for c in CURVES:
        cv_a = np.array([r[c] for r in cvr.values()])
        wf_m = np.array([r[c] for r in wfr.values()]).mean(axis=0)
        n = min(cv_a.shape[1], len(wf_m))
        lo, hi = np.percentile(cv_a[:, :n], [5, 95], axis=0)
        good = sum(inside(wf_m[d], lo[d], hi[d]) for d in range(n))
        ok &= good >= 0.95 * n
        print(f"{c:15s} weft's mean inside Covasim's 5-95 % band on "
              f"{good} of {n} days")
    cv_o = [outcomes(r) for r in cvr.values()]
    wf_o = [outcomes(r) for r in wfr.values()]
    for k in cv_o[0]:
        lo, hi = np.percentile([o[k] for o in cv_o], [5, 95])
        m = float(np.mean([o[k] for o in wf_o]))
        ok &= inside(m, lo, hi)
        print(f"{k:15s} weft {m:10.1f}  Covasim [{lo:.1f}, {hi:.1f}] "
              f"{'inside' if inside(m, lo, hi) else 'OUTSIDE'}")
    return ok


def plot(out, triples):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    rows = len(triples)
    fig, axes = plt.subplots(rows, len(CURVES), figsize=(3.2 * len(CURVES),
                                                         2.4 * rows),
                             squeeze=False)
    for i, (label, cv_path, wf_path) in enumerate(triples):
        cvr, wfr = load(cv_path), load(wf_path)
        for j, c in enumerate(CURVES):
            ax = axes[i][j]
            a = np.array([r[c] for r in cvr.values()])
            m = np.array([r[c] for r in wfr.values()]).mean(axis=0)
            lo, med, hi = np.percentile(a, [5, 50, 95], axis=0)
            d = np.arange(a.shape[1])
            ax.fill_between(d, lo, hi, color="tab:blue", alpha=0.3,
                            label="Covasim 5-95 %")
            ax.plot(d, med, color="tab:blue", lw=1, label="Covasim median")
            ax.plot(np.arange(len(m)), m, color="tab:red", lw=1,
                    label="weft mean")
            if i == 0:
                ax.set_title(c.replace("_", " "), fontsize=9)
            if j == 0:
                ax.set_ylabel(label, fontsize=9)
            ax.tick_params(labelsize=7)
    axes[0][0].legend(fontsize=6, loc="upper left")
    fig.tight_layout()
    fig.savefig(out, dpi=90)


def main():
    if len(sys.argv) in (8, 9) and sys.argv[1] == "run":
        run(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4],
            int(sys.argv[5]), int(sys.argv[6]), sys.argv[7],
            sys.argv[8] if len(sys.argv) == 9 else "severity")
        return 0
    if len(sys.argv) == 8 and sys.argv[1] == "time":
        time_one(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]),
                 int(sys.argv[5]), int(sys.argv[6]), sys.argv[7])
        return 0
    if len(sys.argv) == 3 and sys.argv[1] == "sets":
        for kv in WEFT_SETS[sys.argv[2]]:
            print(kv)
        return 0
    if len(sys.argv) >= 6 and sys.argv[1] == "plot" and \
            (len(sys.argv) - 3) % 3 == 0:
        a = sys.argv[3:]
        plot(sys.argv[2], [tuple(a[k:k + 3]) for k in range(0, len(a), 3)])
        return 0
    if len(sys.argv) == 4 and sys.argv[1] == "compare":
        return 0 if compare(sys.argv[2], sys.argv[3]) else 1
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
