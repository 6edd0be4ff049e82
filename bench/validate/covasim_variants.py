#!/usr/bin/env python3
"""bench/validate/covasim_variants.py - weft's epidemic with variants and
cross-immunity ([seir] waning = true and variants: alpha and delta after
the initial "wild" one, examples/covasim-variants.ini) against Covasim's
(use_waning=True, cv.variant('alpha'), cv.variant('delta')) seed-to-seed
range, day by day: the comparison of bench/validate/covasim_validate.py
with new reinfections and each variant's new infections in place of
prevalence.

    covasim_variants.py compare COVASIM_CSV WEFT_CSV [PLOT.png]
    covasim_variants.py bands COVASIM_CSV OUT_CSV

Both CSVs hold pop,agents,seed,day,new_infections,infectious,cumulative,
deaths,new_reinfections,new_infections_wild,new_infections_alpha,
new_infections_delta, one row per day per seed (bench/covasim_run.py
--variants writes Covasim's, bench/validate/covasim-variants.sh weft's).
compare prints, per curve (new infections, new reinfections, cumulative
infections, cumulative deaths, new infections of each variant), the days
on which weft's mean over its seeds lies inside Covasim's 5-95 % band
(days where the band is [0, 0] count as inside when weft's mean is below
0.5), and the outcomes of covasim_validate.py (attack rate, i.e.
infections per agent, peak prevalence, its day, deaths) with the total
reinfections and each variant's total infections; it passes (exit 0)
when each curve's mean is inside on at least 95 % of the days and every
outcome's mean is inside its band. bands writes the reference of
tests/data/covasim-variants-bands.csv: per population and size, a row per
day with the band of each curve, then a row "final" with the outcomes'
bands.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import covasim_validate as cvv  # noqa: E402

VARIANTS = ("wild", "alpha", "delta")
BY_VARIANT = tuple(f"new_infections_{v}" for v in VARIANTS)
COLUMNS = ("new_infections", "infectious", "cumulative", "deaths",
           "new_reinfections") + BY_VARIANT
CURVES = ("new_infections", "new_reinfections", "cumulative",
          "deaths") + BY_VARIANT
TOTALS = tuple(f"infections_{v}" for v in VARIANTS)


def finals(run, n):
    f = cvv.finals(run, n)
    f["reinfections"] = run["new_reinfections"].sum()
    for total, column in zip(TOTALS, BY_VARIANT):
        f[total] = run[column].sum()
    return f


VARIANT_SPEC = cvv.Spec(COLUMNS, CURVES,
                        cvv.FINALS + ("reinfections",) + TOTALS, finals,
                        {c: i for i, c in enumerate(CURVES)}, ", variants")

if __name__ == "__main__":
    sys.exit(cvv.main(VARIANT_SPEC, __doc__))
