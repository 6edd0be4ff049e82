#!/usr/bin/env python3
"""bench/covasim_run.py - time one Covasim 3.x simulation, for comparison
with weft's SEIR model on the same population size and days.

    covasim_run.py POP_TYPE POP_SIZE DAYS SEED

Prints one line: pop_type pop_size days init_s run_s attack_rate, where
run_s is sim.run() alone (population building is in init_s), the same
split weft's "steps" time makes. Rescaling is off (rescale=False), so every
agent is simulated, as in weft, and waning immunity is off
(use_waning=False; Covasim 3 turns it on by default), so a recovered agent
is not infected again, as in weft's SEIR model. The attack rate is the
share of agents ever infected (seeds included).
"""
import sys
import time

import covasim as cv


def main():
    pop_type, pop_size, days, seed = sys.argv[1], int(sys.argv[2]), \
        int(sys.argv[3]), int(sys.argv[4])
    pars = dict(pop_type=pop_type, pop_size=pop_size, n_days=days,
                pop_infected=20, rand_seed=seed, rescale=False,
                use_waning=False, verbose=0)
    sim = cv.Sim(pars)
    t0 = time.perf_counter()
    sim.initialize()
    t1 = time.perf_counter()
    sim.run()
    t2 = time.perf_counter()
    attack = sim.results['cum_infections'][-1] / pop_size
    print(f"{pop_type} {pop_size} {days} {t1 - t0:.3f} {t2 - t1:.3f} "
          f"{attack:.4f}")


if __name__ == "__main__":
    main()
