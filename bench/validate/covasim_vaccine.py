#!/usr/bin/env python3
"""bench/validate/covasim_vaccine.py - weft's epidemic with variants and
a vaccine with NAbs ([seir] waning = true, variants alpha and delta,
vaccine_campaigns with vaccine=pfizer: examples/covasim-vaccine.ini)
against Covasim's (use_waning=True, cv.variant('alpha'),
cv.variant('delta'), cv.vaccinate_num('pfizer', sequence='age'))
seed-to-seed range, day by day: the comparison of
bench/validate/covasim_variants.py, its curves and outcomes.

    covasim_vaccine.py compare COVASIM_CSV WEFT_CSV [PLOT.png]
    covasim_vaccine.py bands COVASIM_CSV OUT_CSV

Both CSVs hold covasim_variants.py's columns (pop,agents,seed,day,
new_infections,infectious,cumulative,deaths,new_reinfections,
new_infections_wild,new_infections_alpha,new_infections_delta) followed
by vaccinated and fully_vaccinated (agents with a first dose, with every
dose, so far), one row per day per seed (bench/covasim_run.py --vaccine
writes Covasim's, bench/validate/covasim-vaccine.sh weft's). compare
prints, per curve (new infections, new reinfections, cumulative
infections, cumulative deaths, new infections of each variant), the days
on which weft's mean over its seeds lies inside Covasim's 5-95 % band
(days where the band is [0, 0] count as inside when weft's mean is below
0.5), and the outcomes (attack rate, i.e. infections per agent, peak
prevalence, its day, deaths, the total reinfections and each variant's
total infections) against their bands; it passes (exit 0) when each
curve's mean is inside on at least 95 % of the days and every outcome's
mean is inside its band. The vaccination counts are read, not compared:
bench/validate/covasim-vaccine.sh prints them.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import covasim_validate as cvv  # noqa: E402
import covasim_variants as cvvar  # noqa: E402

COLUMNS = cvvar.COLUMNS + ("vaccinated", "fully_vaccinated")
# The plot's panels: every curve but the cumulative infections.
PANELS = {c: i for i, c in enumerate(c for c in cvvar.CURVES
                                     if c != "cumulative")}

VACCINE_SPEC = cvv.Spec(COLUMNS, cvvar.CURVES,
                        cvv.FINALS + ("reinfections",) + cvvar.TOTALS,
                        cvvar.finals,
                        PANELS, ", Pfizer")

if __name__ == "__main__":
    sys.exit(cvv.main(VACCINE_SPEC, __doc__))
