#!/usr/bin/env python3
"""bench/covasim_multisim.py - the Covasim side of bench/ensemble-scaling.sh:
an ensemble of RUNS simulations of one population (seeds 1..RUNS) as
Covasim's MultiSim runs it, on N_CPUS processes, with the parameters of
bench/covasim_run.py (weft's Covasim presets: every agent simulated, no
waning, 20 initial infections).

    covasim_multisim.py POP_TYPE POP_SIZE DAYS RUNS N_CPUS

Prints: runs n_cpus wall_s (msim.run() alone, populations built inside as
MultiSim does) and the mean attack rate, the same quantity weft's
ensemble summary reports as attack_rate_pct.
"""
import os
import sys
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import covasim as cv  # noqa: E402


def main():
    pop_type, pop_size, days = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    runs, n_cpus = int(sys.argv[4]), int(sys.argv[5])
    pars = dict(pop_type=pop_type, pop_size=pop_size, n_days=days,
                pop_infected=20, rescale=False, use_waning=False,
                verbose=0)
    # One Sim per seed, as weft's seeds 1..RUNS (a MultiSim made from
    # one base Sim with n_runs failed in its workers here: 'people' None).
    sims = [cv.Sim(pars, rand_seed=seed) for seed in range(1, runs + 1)]
    msim = cv.MultiSim(sims)
    t0 = time.perf_counter()
    msim.run(n_cpus=n_cpus)
    wall = time.perf_counter() - t0
    attack = [s.results['cum_infections'][-1] / pop_size for s in msim.sims]
    print(f"{runs} {n_cpus} {wall:.2f} {100 * sum(attack) / len(attack):.2f}")


if __name__ == "__main__":
    main()
