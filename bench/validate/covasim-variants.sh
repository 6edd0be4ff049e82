#!/bin/sh
# bench/validate/covasim-variants.sh - weft's epidemic with variants and
# cross-immunity against Covasim's: SEEDS seeds of weft
# (examples/covasim-variants.ini: Covasim's random population, [seir]
# waning = true, alpha imported on day 30 and delta on day 150, 10 agents
# each, DAYS days, one thread) against Covasim 3.1's seeds 1 to SEEDS at
# the same size (use_waning=True, cv.variant('alpha', days=30,
# n_imports=10), cv.variant('delta', days=150, n_imports=10), no vaccine,
# rescale=False), compared day by day by
# bench/validate/covasim_variants.py (new infections, new reinfections,
# cumulative infections, deaths and each variant's new infections:
# weft's mean inside Covasim's 5-95 % band; a plot with PLOT set).
#
#   bench/validate/covasim-variants.sh [WEFT] [SIZE] [SEEDS] [DAYS]
#
# WEFT defaults to _inst/bin/weft; SIZE to 200000; SEEDS to 20; DAYS to
# 360. Covasim's runs are kept in _bench/ref
# (cv-variants-SIZE-DAYS-SEEDS.csv, made once by bench/covasim_run.py
# --variants: about 20 s a seed at 200,000 agents); weft's go to
# _bench/val-variants. With BANDS=FILE Covasim's bands are written as
# the reference of tests/data/covasim-variants-bands.csv.
exec sh "$(dirname "$0")/covasim-scenario.sh" variants "$@"
