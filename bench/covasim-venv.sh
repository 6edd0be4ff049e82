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
venv=${1:-$top/_bench/venv}
spec=${COVASIM_SPEC:-covasim>=3.1,<3.2}
if [ -x "$venv/bin/python" ] &&
	"$venv/bin/python" -c 'import covasim, sys; sys.exit(not covasim.__version__.startswith("3.1."))' > /dev/null 2>&1; then
	echo "$venv/bin/python"
	exit 0
fi
python3 -m venv "$venv" >&2
"$venv/bin/pip" install -q --disable-pip-version-check "$spec" >&2
"$venv/bin/python" -c 'import covasim; print("covasim", covasim.__version__)' >&2
echo "$venv/bin/python"
