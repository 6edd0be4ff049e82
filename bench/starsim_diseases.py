#!/usr/bin/env python3
"""bench/starsim_diseases.py - Starsim with births, deaths and two
diseases, the reference of bench/starsim-diseases.sh (weft's patch model
with diseases = 2, models/patches/patches.md, "Two diseases").

The sim (pip install starsim; checked with 3.7.2): AGENTS agents,
ss.Births(birth_rate=ss.peryear(CBR)), ss.Deaths(death_rate=ss.peryear(CDR)),
two ss.SEIR diseases with constant durations (dur_exp, dur_inf in days),
beta as ss.probperday(BETA) and no deaths from disease (p_death 0), each
seeded with INIT exposed agents (uids 0 .. INIT-1), transmitted through one
ss.MixingPool of every living agent (beta 1, one effective contact each:
a susceptible agent is infected with chance BETA x the infectious' share
of the living), dt = 1 day, for DAYS days.

  starsim_diseases.py band OUT [options]
      SEEDS seeds (1..SEEDS); writes OUT: comment lines, a header, then a
      row per day and disease (1, 2): day,disease, then for S, E, I, R
      the 5 % and 95 % percentiles and the mean over the seeds (the
      format of bench/band-check.awk with keys=2). Day d is Starsim's
      result index d, the state weft's row of day d holds. The second
      comment line, "# weft: ...", has weft's --set options for the same
      sim (examples/patches-two-diseases.ini with them).
  starsim_diseases.py time [options]
      one run (seed 1); prints "starsim wall_s cpu_s peak_rss_mib" for
      the whole sim (construction, init and run).
"""
import argparse
import os
import resource
import sys
import time

import numpy as np
import starsim as ss


def seed_first(k):
    """init_prev: exposed at day 0 are the agents of uids 0 .. k-1."""
    return ss.bernoulli(
        p=lambda self, sim, uids: (np.asarray(uids) < k).astype(float))


def make(a, seed):
    d1 = ss.SEIR(name='seir1', beta=ss.probperday(a.beta1),
                 init_prev=seed_first(a.init1),
                 dur_exp=ss.constant(ss.days(a.exp1)),
                 dur_inf=ss.constant(ss.days(a.inf1)),
                 p_death=ss.bernoulli(p=0))
    d2 = ss.SEIR(name='seir2', beta=ss.probperday(a.beta2),
                 init_prev=seed_first(a.init2),
                 dur_exp=ss.constant(ss.days(a.exp2)),
                 dur_inf=ss.constant(ss.days(a.inf2)),
                 p_death=ss.bernoulli(p=0))
    pool = ss.MixingPool(diseases=['seir1', 'seir2'], beta=1.0,
                         n_contacts=ss.constant(1))
    return ss.Sim(n_agents=a.agents, start=0, dur=ss.days(a.days),
                  dt=ss.days(1), rand_seed=seed, diseases=[d1, d2],
                  networks=pool,
                  demographics=[ss.Births(birth_rate=ss.peryear(a.cbr)),
                                ss.Deaths(death_rate=ss.peryear(a.cdr))],
                  verbose=0)


def one(a, seed):
    """[day][disease][S, E, I, R] of one run."""
    sim = make(a, seed)
    sim.run()
    out = []
    for name in ('seir1', 'seir2'):
        r = sim.results[name]
        out.append(np.stack([np.asarray(r[k]) for k in
                             ('n_susceptible', 'n_exposed', 'n_infectious',
                              'n_recovered')], axis=1))
    return np.stack(out, axis=1)


def weft_sets(a):
    """weft's options (on examples/patches-two-diseases.ini) for a."""
    sets = [('patches.populations', a.agents), ('simulation.steps', a.days),
            ('patches.cbr', a.cbr), ('patches.cdr', a.cdr),
            ('patches.beta', a.beta1),
            ('patches.exposed_duration', 'constant(%d)' % a.exp1),
            ('patches.infectious_duration', 'constant(%d)' % a.inf1),
            ('patches.initial_exposed', a.init1),
            ('patches.beta_2', a.beta2),
            ('patches.exposed_duration_2', 'constant(%d)' % a.exp2),
            ('patches.infectious_duration_2', 'constant(%d)' % a.inf2),
            ('patches.initial_exposed_2', a.init2)]
    return ' '.join('--set %s=%s' % (k, v) for k, v in sets)


def band(a):
    runs = np.stack([one(a, s) for s in range(1, a.seeds + 1)])
    lo = np.percentile(runs, 5, axis=0)
    hi = np.percentile(runs, 95, axis=0)
    mean = runs.mean(axis=0)
    with open(a.out, 'w') as f:
        f.write('# Starsim %s, %d seeds: %s\n' % (
            ss.__version__, a.seeds, ' '.join(
                os.path.basename(x) if x == a.out else x
                for x in sys.argv[1:])))
        f.write('# weft: %s\n' % weft_sets(a))
        f.write('day,disease' + ''.join(
            ',%s_lo,%s_hi,%s_mean' % (c, c, c) for c in 'SEIR') + '\n')
        for d in range(runs.shape[1]):
            for k in range(2):
                f.write('%d,%d' % (d, k + 1) + ''.join(
                    ',%.2f,%.2f,%.4f' % (lo[d, k, c], hi[d, k, c],
                                         mean[d, k, c])
                    for c in range(4)) + '\n')


def timed(a):
    w0, c0 = time.perf_counter(), time.process_time()
    sim = make(a, 1)
    sim.run()
    w, c = time.perf_counter() - w0, time.process_time() - c0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print('starsim %.3f %.3f %.0f' % (w, c, rss))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('mode', choices=('band', 'time'))
    ap.add_argument('out', nargs='?')
    ap.add_argument('--agents', type=int, default=20000)
    ap.add_argument('--days', type=int, default=200)
    ap.add_argument('--seeds', type=int, default=20)
    ap.add_argument('--cbr', type=float, default=30)
    ap.add_argument('--cdr', type=float, default=10)
    ap.add_argument('--beta1', type=float, default=0.3)
    ap.add_argument('--exp1', type=int, default=3)
    ap.add_argument('--inf1', type=int, default=7)
    ap.add_argument('--init1', type=int, default=20)
    ap.add_argument('--beta2', type=float, default=0.2)
    ap.add_argument('--exp2', type=int, default=2)
    ap.add_argument('--inf2', type=int, default=9)
    ap.add_argument('--init2', type=int, default=20)
    a = ap.parse_args()
    if a.mode == 'band':
        if not a.out:
            ap.error('band needs OUT')
        band(a)
    else:
        timed(a)


if __name__ == '__main__':
    main()
