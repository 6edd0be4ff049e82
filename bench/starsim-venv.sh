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
venv=${1:-$top/_bench/starsim-venv}
spec=${STARSIM_SPEC:-starsim>=3.7,<3.8}
if [ -x "$venv/bin/python" ] &&
	"$venv/bin/python" -c 'import starsim, sys; sys.exit(not starsim.__version__.startswith("3.7."))' > /dev/null 2>&1; then
	echo "$venv/bin/python"
	exit 0
fi
python3 -m venv "$venv" >&2
"$venv/bin/pip" install -q --no-cache-dir --disable-pip-version-check "$spec" >&2
"$venv/bin/python" -c 'import starsim; print("starsim", starsim.__version__)' >&2
echo "$venv/bin/python"
