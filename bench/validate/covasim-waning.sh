#!/bin/sh
# bench/validate/covasim-waning.sh - weft's epidemic with waning immunity
# and reinfection against Covasim's: SEEDS seeds of weft
# (examples/covasim-waning.ini: Covasim's random population, [seir]
# waning = true, DAYS days, one thread) against Covasim 3.1's seeds 1 to
# SEEDS at the same size (use_waning=True, one variant, no vaccine,
# rescale=False), compared day by day by
# bench/validate/covasim_waning.py (new infections, new reinfections,
# cumulative infections and deaths: weft's mean inside Covasim's 5-95 %
# band; a plot with PLOT set).
#
#   bench/validate/covasim-waning.sh [WEFT] [SIZE] [SEEDS] [DAYS]
#
# WEFT defaults to _inst/bin/weft; SIZE to 200000; SEEDS to 20; DAYS to
# 360. Covasim's runs are kept in _bench/ref (cv-waning-SIZE-DAYS-SEEDS.csv,
# made once by bench/covasim_run.py --waning: about a minute a seed at
# 200,000 agents); weft's go to _bench/val-waning. With BANDS=FILE
# Covasim's bands are written as the reference of
# tests/models/test-seir-waning.sh.
exec sh "$(dirname "$0")/covasim-scenario.sh" waning "$@"
