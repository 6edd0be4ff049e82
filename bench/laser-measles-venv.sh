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
venv=${1:-$top/_bench/measles-venv}
spec=${LASER_MEASLES_SPEC:-laser-measles==1.0.0}
if [ -x "$venv/bin/python" ] &&
	"$venv/bin/python" -c 'import sys; from importlib.metadata import version; import laser.measles.abm; sys.exit(version("laser-measles") != "1.0.0")' > /dev/null 2>&1; then
	echo "$venv/bin/python"
	exit 0
fi
python3 -m venv "$venv" >&2
"$venv/bin/pip" install -q --disable-pip-version-check "$spec" >&2
"$venv/bin/python" -c 'from importlib.metadata import version; print("laser-measles", version("laser-measles"))' >&2
echo "$venv/bin/python"
