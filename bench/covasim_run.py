#!/usr/bin/env python3
"""bench/covasim_run.py - run Covasim 3.1 simulations the way weft's
Covasim presets run (examples/covasim-random.ini, covasim-hybrid.ini), for
timing and for the validation of weft's epidemic against Covasim's.

    covasim_run.py [--waning | --variants SPEC]
                   [--no-dispersion | --weft-classes]
                   POP_TYPE POP_SIZE DAYS SEEDS [SERIES_CSV]

SEEDS is one seed or a range FIRST-LAST. For each seed one line is
printed: pop_type pop_size days seed init_s run_s attack_rate peak_day
peak_prevalence deaths, where run_s is sim.run() alone (the population is
built in init_s: the same split as weft's "steps" time) and the attack
rate is the share of agents ever infected, the 20 seeds included. With
SERIES_CSV every day of every seed is appended to that file as
pop,agents,seed,day,new_infections,infectious,cumulative,deaths (agents
in each state at the end of the day, as weft's daily.csv counts them).

Before the first timed seed a small simulation of the same population
type runs untimed: Covasim's numba functions load from their cache (or
compile) on first use, which would otherwise count in the first run.

With --waning Covasim runs with its waning immunity (use_waning=True,
one variant, no vaccine: examples/covasim-waning.ini's comparison) and
each line of SERIES_CSV ends with the day's new_reinfections.

With --variants SPEC (e.g. alpha:30:10,delta:150:10: LABEL:DAY:IMPORTS,
comma-separated) Covasim runs as with --waning plus those variants
(cv.variant(LABEL, days=DAY, n_imports=IMPORTS), with Covasim's own
parameters and cross-immunity of its alpha, beta, gamma, delta:
examples/covasim-variants.ini's comparison), and each line of SERIES_CSV
ends with the day's new_reinfections and then its new infections of each
variant (results['variant']['new_infections_by_variant']), the initial
"wild" one first.

With --no-dispersion every agent's transmissibility is 1 (beta_dist a
constant, where Covasim draws it from a negative binomial of dispersion
0.45): weft's rel_trans_dispersion = 0.

With --weft-classes each agent's transmissibility is instead one of
weft's 256 equally likely classes of that negative binomial (each its
class's mean between the quantiles c/256 and (c+1)/256, scaled to average
1: models/seir/seir.md, "Individual transmissibility"), the class drawn
for each agent uniformly (numpy's default_rng(seed + 12345)) after
sim.initialize(): Covasim with weft's transmissibility and its own
everything else.

With --vaccine VACCINE:FIRST-LAST:DOSES (e.g. pfizer:30-50:2857; implies
--waning) Covasim gets cv.vaccinate_num(VACCINE, num_doses=F,
sequence='age'): F gives DOSES a day from day FIRST to LAST plus the
vaccine's interval (Covasim's get_vaccine_dose_pars: 21 days for Pfizer),
0 otherwise. Covasim's second doses, scheduled an interval after the
first, come first in a day's quota, so the days after LAST give the
second doses and (almost) no new first doses: weft's campaign
'days=FIRST-LAST doses=DOSES priority=oldest vaccine=VACCINE', its second
doses an interval later (examples/covasim-vaccine.ini's comparison).
Each line of SERIES_CSV then ends with the agents vaccinated so far (a
first dose, cum_vaccinated) and those with every dose (cum_doses -
cum_vaccinated for a two-dose vaccine), as weft's daily.csv columns
vaccinated and fully_vaccinated count them, and each printed line with
"vaccinated N doses M".

With --vaccine-prob VACCINE:FIRST-LAST:PROB (e.g. pfizer:30-50:0.0168;
implies --waning) Covasim gets cv.vaccinate_prob(VACCINE,
days=FIRST..LAST, prob=PROB) instead: each day each agent not yet
vaccinated gets a first dose with chance PROB, its second an interval
later: weft's campaign 'days=FIRST-LAST prob=PROB vaccine=VACCINE'.

Covasim runs as the presets assume: every agent simulated
(rescale=False), no waning immunity (use_waning=False: a recovered agent
is not infected again, as in weft), 20 initial infections, its defaults
otherwise. Numba's functions run on one thread (Covasim's default
numba_parallel = none; NUMBA_NUM_THREADS=1 is set as well).
"""
import math
import os
import sys
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import covasim as cv  # noqa: E402
import numpy as np  # noqa: E402


def parse_variants(spec):
    """LABEL:DAY:IMPORTS,... -> [(label, day, imports)]"""
    out = []
    for entry in spec.split(","):
        label, day, imports = entry.split(":")
        out.append((label, int(day), int(imports)))
    return out


def parse_vaccine(spec, by_chance=False):
    """VACCINE:FIRST-LAST:DOSES -> (vaccine, first, last, doses, None), or
    with by_chance VACCINE:FIRST-LAST:PROB -> (vaccine, first, last, None,
    prob)"""
    vaccine, days, x = spec.split(":")
    first, _, last = days.partition("-")
    if not last:
        sys.exit("covasim_run.py: %s: give the last day (FIRST-LAST)" % spec)
    if by_chance:
        return vaccine, int(first), int(last), None, float(x)
    return vaccine, int(first), int(last), int(x), None


def vaccination(vaccine):
    """cv.vaccinate_num for parse_vaccine's tuple: its doses a day from
    first to last plus the vaccine's interval (the second doses)."""
    name, first, last, doses, prob = vaccine
    if prob is not None:
        return cv.vaccinate_prob(name, days=np.arange(first, last + 1), prob=prob)
    interval = cv.parameters.get_vaccine_dose_pars()[name]["interval"] or 0

    def num_doses(sim):
        return doses if first <= sim.t <= last + interval else 0
    return cv.vaccinate_num(name, num_doses=num_doses, sequence="age")


def weft_classes(k, n=256):
    """weft's n classes of Covasim's beta_dist, a negative binomial of mean
    100 and dispersion k times 0.01: class c is the distribution's mean
    between its quantiles c/n and (c+1)/n (its probabilities walked in
    order, a value's mass split between the classes it straddles), the
    classes scaled to average exactly 1."""
    p = k / (100.0 + k)
    px = math.exp(k * math.log(p))  # P(X = 0)
    sums, width, mass, c, x = [0.0] * n, 1.0 / n, 0.0, 0, 0.0
    while c < n and x < 1e7:
        left = px
        while left > 0 and c < n:
            take = width - mass if mass + left > width else left
            sums[c] += take * x * 0.01
            mass += take
            left -= take
            if mass >= width * (1 - 1e-12):
                c, mass = c + 1, 0.0
        px *= (x + k) * (1 - p) / (x + 1)
        x += 1
        if px < 1e-300 and x > 100:
            break
    total = sum(sums)
    return np.array([v / (width * total) for v in sums])


def run_one(pop_type, pop_size, days, seed, waning=False, variants=None,
            vaccine=None, dispersion="covasim"):
    pars = dict(pop_type=pop_type, pop_size=pop_size, n_days=days,
                pop_infected=20, rand_seed=seed, rescale=False,
                use_waning=waning, verbose=0)
    if dispersion == "none":
        # every agent's transmissibility 1 (weft's rel_trans_dispersion = 0)
        pars["beta_dist"] = dict(dist="uniform", par1=1.0, par2=1.0)
    if variants:
        pars["variants"] = [cv.variant(label, days=day, n_imports=imports)
                            for label, day, imports in variants]
    if vaccine:
        pars["interventions"] = [vaccination(vaccine)]
    sim = cv.Sim(pars)
    t0 = time.perf_counter()
    sim.initialize()
    if dispersion == "classes":
        rng = np.random.default_rng(seed + 12345)
        table = weft_classes(0.45)
        sim.people.rel_trans[:] = table[rng.integers(0, len(table),
                                                     size=len(sim.people))]
    t1 = time.perf_counter()
    sim.run()
    t2 = time.perf_counter()
    return sim, t1 - t0, t2 - t1


def series_rows(sim, pop_type, pop_size, seed, waning=False,
                variants=False, vaccine=False):
    r = sim.results
    by_variant = (r['variant']['new_infections_by_variant'].values
                  if variants else None)
    for d in range(len(r['t'])):
        extra = f",{int(r['new_reinfections'][d])}" if waning else ""
        if by_variant is not None:
            extra += "".join(f",{int(v[d])}" for v in by_variant)
        if vaccine:
            vacc = int(r['cum_vaccinated'][d])
            extra += f",{vacc},{int(r['cum_doses'][d]) - vacc}"
        yield (f"{pop_type},{pop_size},{seed},{d},"
               f"{int(r['new_infections'][d])},{int(r['n_infectious'][d])},"
               f"{int(r['cum_infections'][d])},{int(r['cum_deaths'][d])}"
               f"{extra}\n")


def main():
    args = sys.argv[1:]
    variants = vaccine = None
    if "--variants" in args:
        i = args.index("--variants")
        variants = parse_variants(args[i + 1])
        del args[i:i + 2]
    if "--vaccine" in args:
        i = args.index("--vaccine")
        vaccine = parse_vaccine(args[i + 1])
        del args[i:i + 2]
    if "--vaccine-prob" in args:
        if vaccine is not None:
            sys.exit("covasim_run.py: --vaccine and --vaccine-prob: give one")
        i = args.index("--vaccine-prob")
        vaccine = parse_vaccine(args[i + 1], by_chance=True)
        del args[i:i + 2]
    waning = ("--waning" in args or variants is not None
              or vaccine is not None)
    dispersion = ("none" if "--no-dispersion" in args else
                  "classes" if "--weft-classes" in args else "covasim")
    args = [a for a in args
            if a not in ("--waning", "--no-dispersion", "--weft-classes")]
    pop_type, pop_size, days = args[0], int(args[1]), int(args[2])
    first, _, last = args[3].partition("-")
    seeds = range(int(first), int(last or first) + 1)
    out = args[4] if len(args) > 4 else None
    # loads numba; untimed
    run_one(pop_type, 2000, 10, 0, waning, variants, vaccine, dispersion)
    for seed in seeds:
        sim, init_s, run_s = run_one(pop_type, pop_size, days, seed, waning,
                                     variants, vaccine, dispersion)
        r = sim.results
        inf = r['n_infectious'][:]
        peak = int(inf.argmax())
        vx = (f" vaccinated {int(r['cum_vaccinated'][-1])} "
              f"doses {int(r['cum_doses'][-1])}" if vaccine else "")
        print(f"{pop_type} {pop_size} {days} {seed} {init_s:.3f} {run_s:.3f} "
              f"{r['cum_infections'][-1] / pop_size:.4f} {peak} "
              f"{inf[peak] / pop_size:.4f} {int(r['cum_deaths'][-1])}{vx}",
              flush=True)
        if out:
            with open(out, "a", encoding="ascii") as f:
                f.writelines(series_rows(sim, pop_type, pop_size, seed,
                                         waning, variants is not None,
                                         vaccine is not None))


if __name__ == "__main__":
    main()
