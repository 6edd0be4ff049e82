#!/bin/sh
# bench/starsim-venv.sh - the Python environment of the Starsim
# comparisons (bench/starsim-demog.sh, bench/starsim-diseases.sh): a
# virtual environment with Starsim 3.7.x from PyPI (it brings numpy,
# pandas and sciris).
#
#   bench/starsim-venv.sh [VENV]
#
# VENV defaults to _bench/starsim-venv at the top of the tree. Prints the
# path of its python. Nothing is installed when the environment already
# imports starsim 3.7.x.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
exec sh "$top/bench/pypi-venv.sh" "${1:-$top/_bench/starsim-venv}" \
	"${STARSIM_SPEC:-starsim>=3.7,<3.8}" starsim 3.7.
