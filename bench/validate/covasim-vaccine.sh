#!/bin/sh
# bench/validate/covasim-vaccine.sh - weft's epidemic with variants and a
# vaccine with NAbs against Covasim's: SEEDS seeds of weft
# (examples/covasim-vaccine.ini: Covasim's random population, waning
# immunity, alpha imported on day 60 and delta on day 150, 10 agents
# each, Pfizer's doses to the oldest from day 30, DAYS days, one thread)
# against Covasim 3.1's seeds 1 to SEEDS at the same size (use_waning=True,
# the same variants, cv.vaccinate_num('pfizer', sequence='age'),
# rescale=False), compared day by day by
# bench/validate/covasim_vaccine.py (new infections, new reinfections,
# cumulative infections and deaths, each variant's new infections:
# weft's mean inside Covasim's 5-95 % band; a plot with PLOT set). Both
# sides give round(0.3 x SIZE / 21) first doses a day for 21 days (about
# 30 % of the agents; Covasim's second doses take the same daily quota for
# the next 21 days), and the agents vaccinated and fully vaccinated at
# the end are printed, mean over the seeds, for each side.
#
#   bench/validate/covasim-vaccine.sh [WEFT] [SIZE] [SEEDS] [DAYS]
#
# WEFT defaults to _inst/bin/weft; SIZE to 200000; SEEDS to 20; DAYS to
# 360. Covasim's runs are kept in _bench/ref (cv-vaccine-SIZE-DAYS-SEEDS.csv,
# made once by bench/covasim_run.py --vaccine: about half a minute a seed
# at 200,000 agents); weft's go to _bench/val-vaccine.
exec sh "$(dirname "$0")/covasim-scenario.sh" vaccine "$@"
