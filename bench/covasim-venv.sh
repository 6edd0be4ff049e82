#!/bin/sh
# bench/covasim-venv.sh - the Python environment of the Covasim comparison:
# a virtual environment with Covasim 3.1.x from PyPI (and what the
# comparison scripts import: numpy, which Covasim brings).
#
#   bench/covasim-venv.sh [VENV]
#
# VENV defaults to _bench/venv at the top of the tree. Prints the path of
# its python. Nothing is installed when the environment already imports
# covasim 3.1.x. Covasim compiles its numba functions on first use: the
# first simulation of a new environment is slower.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
exec sh "$top/bench/pypi-venv.sh" "${1:-$top/_bench/venv}" \
	"${COVASIM_SPEC:-covasim>=3.1,<3.2}" covasim 3.1.
