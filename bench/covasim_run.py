#!/usr/bin/env python3
"""bench/covasim_run.py - run Covasim 3.1 simulations the way weft's
Covasim presets run (examples/covasim-random.ini, covasim-hybrid.ini), for
timing and for the validation of weft's epidemic against Covasim's.

    covasim_run.py [--waning] POP_TYPE POP_SIZE DAYS SEEDS [SERIES_CSV]

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

Covasim runs as the presets assume: every agent simulated
(rescale=False), no waning immunity (use_waning=False: a recovered agent
is not infected again, as in weft), 20 initial infections, its defaults
otherwise. Numba's functions run on one thread (Covasim's default
numba_parallel = none; NUMBA_NUM_THREADS=1 is set as well).
"""
import os
import sys
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import covasim as cv  # noqa: E402


def run_one(pop_type, pop_size, days, seed, waning=False):
    pars = dict(pop_type=pop_type, pop_size=pop_size, n_days=days,
                pop_infected=20, rand_seed=seed, rescale=False,
                use_waning=waning, verbose=0)
    sim = cv.Sim(pars)
    t0 = time.perf_counter()
    sim.initialize()
    t1 = time.perf_counter()
    sim.run()
    t2 = time.perf_counter()
    return sim, t1 - t0, t2 - t1


def series_rows(sim, pop_type, pop_size, seed, waning=False):
    r = sim.results
    for d in range(len(r['t'])):
        extra = f",{int(r['new_reinfections'][d])}" if waning else ""
        yield (f"{pop_type},{pop_size},{seed},{d},"
               f"{int(r['new_infections'][d])},{int(r['n_infectious'][d])},"
               f"{int(r['cum_infections'][d])},{int(r['cum_deaths'][d])}"
               f"{extra}\n")


def main():
    args = [a for a in sys.argv[1:] if a != "--waning"]
    waning = len(args) < len(sys.argv) - 1
    pop_type, pop_size, days = args[0], int(args[1]), int(args[2])
    first, _, last = args[3].partition("-")
    seeds = range(int(first), int(last or first) + 1)
    out = args[4] if len(args) > 4 else None
    run_one(pop_type, 2000, 10, 0, waning)  # loads numba; untimed
    for seed in seeds:
        sim, init_s, run_s = run_one(pop_type, pop_size, days, seed, waning)
        r = sim.results
        inf = r['n_infectious'][:]
        peak = int(inf.argmax())
        print(f"{pop_type} {pop_size} {days} {seed} {init_s:.3f} {run_s:.3f} "
              f"{r['cum_infections'][-1] / pop_size:.4f} {peak} "
              f"{inf[peak] / pop_size:.4f} {int(r['cum_deaths'][-1])}",
              flush=True)
        if out:
            with open(out, "a", encoding="ascii") as f:
                f.writelines(series_rows(sim, pop_type, pop_size, seed,
                                         waning))


if __name__ == "__main__":
    main()
