#!/usr/bin/env python3
"""bench/validate/covasim_waning.py - weft's epidemic with waning immunity
and reinfection ([seir] waning = true, examples/covasim-waning.ini)
against Covasim's (use_waning=True) seed-to-seed range, day by day: the
comparison of bench/validate/covasim_validate.py with new reinfections
in place of prevalence.

    covasim_waning.py compare COVASIM_CSV WEFT_CSV [PLOT.png]
    covasim_waning.py bands COVASIM_CSV OUT_CSV

Both CSVs hold pop,agents,seed,day,new_infections,infectious,cumulative,
deaths,new_reinfections, one row per day per seed (bench/covasim_run.py
--waning writes Covasim's, bench/validate/covasim-waning.sh weft's).
compare prints, per curve (new infections, new reinfections, cumulative
infections, cumulative deaths), the days on which weft's mean over its
seeds lies inside Covasim's 5-95 % band (days where the band is [0, 0]
count as inside when weft's mean is below 0.5), and the outcomes of
covasim_validate.py (attack rate, i.e. infections per agent, peak
prevalence, its day, deaths) with the total reinfections; it passes
(exit 0) when each curve's mean is inside on at least 95 % of the days
and every outcome's mean is inside its band. bands writes the reference
of tests/models/test-seir-waning.sh: per population and size, a row per
day with the band of each curve, then a row "final" with the outcomes'
bands.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import covasim_validate as cvv  # noqa: E402

COLUMNS = ("new_infections", "infectious", "cumulative", "deaths",
           "new_reinfections")
CURVES = ("new_infections", "new_reinfections", "cumulative", "deaths")


def finals(run, n):
    f = cvv.finals(run, n)
    f["reinfections"] = run["new_reinfections"].sum()
    return f


WANING = cvv.Spec(COLUMNS, CURVES, cvv.FINALS + ("reinfections",), finals,
                  {c: i for i, c in enumerate(CURVES)}, ", waning")

if __name__ == "__main__":
    sys.exit(cvv.main(WANING, __doc__))
