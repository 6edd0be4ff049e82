#!/usr/bin/env python3
"""bench/starsim-demog.py - Starsim's demography, the band that weft's
patch model's ages and mortality by age are checked against
(models/patches/patches.md, "Ages and mortality by age").

Runs Starsim (pip install starsim; checked with 3.7.2) with no disease:
ss.People with the age pyramid (PYRAMID, age,value: lower bin edges in
years and counts, Starsim's age_data), ss.Births(birth_rate=ss.peryear(CBR))
and ss.Deaths(death_rate=DEATHS: age,value, deaths per 1000 per year by
age bin), dt = 1 day, for SEEDS seeds, and writes the 5-95 % band over the
seeds (and their mean) of
  pop,DAY      the living agents after DAY days (every POP_EVERY days)
  a<AGE>,DAY   the living agents in the pyramid's bin of lower edge AGE
               after DAY days (every AGE_EVERY days, day 0 included)
as CSV lines what,day,lo,hi,mean into OUT.

With --fertility FILE (age,value: births per 1000 women a year by
age bin, lower edges in years, a last row of value 0 giving the upper
edge, weft's fertility_rates) births come from ss.Pregnancy instead of
ss.Births: the table is handed to Starsim as one-year age groups (Starsim
reads an AgeGrp as one year wide when it is the last), its other
parameters Starsim's defaults (pregnancies of 32 to 42 weeks, mothers 15
to 50, half the babies girls, burn-in). Starsim's unborn are agents of
negative age that it counts among the living; here they are left out of
both pop and the age bins, which count the born only; day 0's born,
the agents and the babies of Starsim's burn-in, are born0 (weft's
burn-in makes no babies, so day 0's population is not compared).

usage: starsim-demog.py OUT PYRAMID DEATHS [--agents N] [--years Y]
       [--cbr X] [--fertility FILE] [--seeds S] [--pop-every D]
       [--age-every D]
"""
import argparse
import sys

import numpy as np
import pandas as pd
import starsim as ss


class AgeTally(ss.Analyzer):
    """Counts the living by age bin every `every` days."""

    def __init__(self, edges, every, **kw):
        super().__init__(**kw)
        self.edges = np.asarray(edges, float)
        self.every = every
        self.rows = {}

    def step(self):
        day = self.ti + 1  # after ti + 1 steps of one day
        if day % self.every:
            return
        ppl = self.sim.people
        age = ppl.age[ppl.alive.uids]
        age = age[age >= 0]  # the born (Starsim's unborn have age < 0)
        self.rows[day] = np.bincount(
            np.clip(np.digitize(age, self.edges) - 1, 0, len(self.edges) - 1),
            minlength=len(self.edges))


def fertility_groups(path):
    """weft's fertility_rates table as Starsim's ASFR data: a row per year
    of age of each bin (Starsim takes its last AgeGrp as one year wide)."""
    t = pd.read_csv(path)
    ages, rates = list(t['age']), list(t['value'])
    if rates[-1] != 0:
        ages.append(ages[-1] + 1)  # weft too reads the last bin one year wide
        rates.append(0.0)
    rows = []
    for k in range(len(ages) - 1):
        for y in range(int(ages[k]), int(ages[k + 1])):
            rows.append((2000, y, float(rates[k])))
    return pd.DataFrame(rows, columns=['Time', 'AgeGrp', 'ASFR'])


class BornTally(ss.Analyzer):
    """The born living (Starsim counts its unborn among n_alive) every
    `every` days."""

    def __init__(self, every, **kw):
        super().__init__(**kw)
        self.every = every
        self.rows = {}

    def step(self):
        day = self.ti + 1
        if day % self.every:
            return
        ppl = self.sim.people
        self.rows[day] = int((ppl.age[ppl.alive.uids] >= 0).sum())


def one(seed, a, pyr, deaths, edges):
    ppl = ss.People(a.agents, age_data=pyr)
    dr = deaths.assign(Time=2000)
    tally = AgeTally(edges, a.age_every)
    born = BornTally(a.pop_every)
    if a.fertility:
        births = ss.Pregnancy(fertility_rate=fertility_groups(a.fertility))
    else:
        births = ss.Births(birth_rate=ss.peryear(a.cbr))
    sim = ss.Sim(people=ppl, n_agents=a.agents,
                 demographics=[births,
                               ss.Deaths(death_rate=dr, metadata=dict(
                                   data_cols=dict(year='Time', age='age',
                                                  value='value')))],
                 analyzers=[tally, born], start=0, stop=ss.years(a.years),
                 dt=ss.days(1), rand_seed=seed, verbose=0)
    sim.init()
    age = sim.people.age[sim.people.alive.uids]
    age = age[age >= 0]
    age0 = np.bincount(np.clip(np.digitize(age, edges) - 1, 0,
                               len(edges) - 1), minlength=len(edges))
    sim.run()
    out = {}
    for d, n in sim.analyzers[1].rows.items():
        out[('pop', d)] = n
    # Day 0's born: with ss.Pregnancy, the agents and the babies of its
    # burn-in (weft's burn-in adds none), kept apart from the living
    # compared (born0, which bench/starsim-demog.sh does not check).
    out[('born0' if a.fertility else 'pop', 0)] = len(age)
    an = sim.analyzers[0]
    for k, e in enumerate(edges):
        out[('a%g' % e, 0)] = age0[k]
        for d, row in an.rows.items():
            out[('a%g' % e, d)] = row[k]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out')
    ap.add_argument('pyramid')
    ap.add_argument('deaths')
    ap.add_argument('--agents', type=int, default=10000)
    ap.add_argument('--years', type=int, default=20)
    ap.add_argument('--cbr', type=float, default=30)
    ap.add_argument('--fertility', default=None)
    ap.add_argument('--seeds', type=int, default=20)
    ap.add_argument('--pop-every', type=int, default=365)
    ap.add_argument('--age-every', type=int, default=1825)
    a = ap.parse_args()
    pyr = pd.read_csv(a.pyramid)
    deaths = pd.read_csv(a.deaths)
    # The output bins: the pyramid's, less a last row of 0 (its upper edge).
    edges = list(pyr['age'])
    if pyr['value'].iloc[-1] == 0:
        edges = edges[:-1]
    runs = []
    for s in range(1, a.seeds + 1):
        runs.append(one(s, a, pyr, deaths, edges))
        print('seed %d done' % s, file=sys.stderr)
    keys = sorted(runs[0], key=lambda k: (k[0] != 'pop', k[0], k[1]))
    with open(a.out, 'w') as f:
        f.write('# Starsim %s, %d agents, %d years, %s, %d seeds, '
                'dt 1 day: bench/starsim-demog.py %s\n' %
                (ss.__version__, a.agents, a.years,
                 'ss.Pregnancy' if a.fertility else 'cbr %g' % a.cbr, a.seeds,
                 ' '.join(sys.argv[1:])))
        f.write('what,day,lo,hi,mean\n')
        for k in keys:
            v = np.array([r[k] for r in runs], float)
            f.write('%s,%d,%g,%g,%.6g\n' % (k[0], k[1], np.percentile(v, 5),
                                            np.percentile(v, 95), v.mean()))


if __name__ == '__main__':
    main()
