#!/usr/bin/env python3
"""bench/covasim_severity.py - hospital load with limited beds, weft against
Covasim 3.1 (issue 17's validation scenarios "baseline with severity",
"testing by probability with isolation" and "testing plus tracing plus
quarantine"): Covasim's random population (examples/covasim-random.ini's
settings) with n_beds_hosp and n_beds_icu, and the scenario's
interventions, seed by seed, and the comparison of weft's mean curves
with Covasim's seed-to-seed band.

    covasim_severity.py run AGENTS DAYS SEEDS BEDS_HOSP BEDS_ICU OUT_CSV [SCENARIO]
    covasim_severity.py compare COVASIM_CSV WEFT_CSV

run writes Covasim's rows seed,day,new_infections,severe,critical,deaths,
diagnoses (severe: Covasim's n_severe, agents severe or critical;
critical: n_critical; deaths and diagnoses: cumulative), SEEDS one seed
or FIRST-LAST. SCENARIO: severity (the default: no intervention),
testing (SCENARIOS below: cv.test_prob) or tracing (cv.test_prob and
cv.contact_tracing). bench/covasim-severity.sh writes weft's the same way
(severe = hospitalised + over_hosp, critical = icu + over_icu, deaths =
D, diagnoses = diagnosed) with the same interventions in weft's keys
(WEFT_SETS).

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
# bench/covasim-severity.sh). Covasim's defaults for its random
# population are weft's: iso_factor 0.2 (weft's isolation_factor, which
# diagnosed_factor takes by default), quar_factor 0.3, quar_period 14.
TEST = dict(symp_prob=0.2, asymp_prob=0.002, test_delay=1)
TRACE = dict(trace_probs=0.5, trace_time=1)
WEFT_SETS = {
    "severity": [],
    "testing": ["seir.test_symp_prob=0.2", "seir.test_asymp_prob=0.002",
                "seir.test_delay=1"],
    "tracing": ["seir.test_symp_prob=0.2", "seir.test_asymp_prob=0.002",
                "seir.test_delay=1", "seir.trace_probs=0.5",
                "seir.trace_time=1"],
}


def interventions(scenario):
    import covasim as cv
    if scenario == "severity":
        return []
    if scenario == "testing":
        return [cv.test_prob(**TEST)]
    return [cv.test_prob(**TEST), cv.contact_tracing(**TRACE)]


def run(agents, days, seeds, beds_hosp, beds_icu, out, scenario):
    import covasim as cv
    first, _, last = seeds.partition("-")
    with open(out, "w", encoding="ascii") as f:
        f.write("seed,day," + ",".join(CURVES) + "\n")
        for seed in range(int(first), int(last or first) + 1):
            sim = cv.Sim(dict(pop_type="random", pop_size=agents,
                              n_days=days, pop_infected=20, rand_seed=seed,
                              rescale=False, use_waning=False, verbose=0,
                              n_beds_hosp=beds_hosp, n_beds_icu=beds_icu,
                              interventions=interventions(scenario)))
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


def main():
    if len(sys.argv) in (8, 9) and sys.argv[1] == "run":
        run(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4],
            int(sys.argv[5]), int(sys.argv[6]), sys.argv[7],
            sys.argv[8] if len(sys.argv) == 9 else "severity")
        return 0
    if len(sys.argv) == 3 and sys.argv[1] == "sets":
        print(" ".join(WEFT_SETS[sys.argv[2]]))
        return 0
    if len(sys.argv) == 4 and sys.argv[1] == "compare":
        return 0 if compare(sys.argv[2], sys.argv[3]) else 1
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
