#!/bin/sh
# bench/laser-measles-venv.sh - the Python environment of the laser-measles
# comparison (bench/laser-measles-compare.sh): a virtual environment with
# IDM's laser-measles 1.0.0 from PyPI (and what it brings: laser-core,
# numpy, numba, polars).
#
#   bench/laser-measles-venv.sh [VENV]
#
# VENV defaults to _bench/measles-venv at the top of the tree. Prints the
# path of its python. Nothing is installed when the environment already
# imports laser.measles 1.0.0. laser-measles compiles its numba functions
# on first use: the first simulation of a new environment is slower.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
exec sh "$top/bench/pypi-venv.sh" "${1:-$top/_bench/measles-venv}" \
	"${LASER_MEASLES_SPEC:-laser-measles==1.0.0}" laser-measles 1.0.0 laser.measles.abm
