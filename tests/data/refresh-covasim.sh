#!/bin/sh
# tests/data/refresh-covasim.sh - how tests/data/covasim-bands.csv, the
# reference of tests/models/test-seir-covasim.sh, is made: Covasim 3.1 from PyPI
# (bench/covasim-venv.sh) runs examples/covasim-random.ini's and
# covasim-hybrid.ini's epidemics, seeds 1-20, at 37,518 agents, 120 days
# (bench/covasim_run.py, about 2 minutes), and
# bench/validate/covasim_validate.py writes the 5th and 95th percentiles
# over the seeds of each daily curve and final outcome. From the top of the
# source tree, with a weft built in _build (the runs of weft that
# bench/validate/covasim-validate.sh compares are a check, not part of the
# reference):
#
#   tests/data/refresh-covasim.sh [WEFT]
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
weft=${1:-$top/_build/cli/weft}
BANDS=$top/tests/data/covasim-bands.csv \
	"$top/bench/validate/covasim-validate.sh" "$weft" 37518 "random hybrid" 20
