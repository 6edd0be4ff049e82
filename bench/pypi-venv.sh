#!/bin/sh
# bench/pypi-venv.sh - a peer's Python environment from PyPI, made once:
# what bench/covasim-venv.sh, bench/laser-measles-venv.sh and
# bench/starsim-venv.sh call with their peer.
#
#   bench/pypi-venv.sh VENV SPEC DIST PREFIX [MODULE]
#
# If VENV's python already has the distribution DIST at a version that
# starts with PREFIX and imports MODULE (default DIST), nothing is
# installed; otherwise VENV is made (python3 -m venv) and pip installs
# SPEC into it. Prints the path of VENV's python; pip's and the version's
# lines go to standard error.
set -eu
venv=$1 spec=$2 dist=$3 prefix=$4 module=${5:-$3}
check="import sys, $module; from importlib.metadata import version; sys.exit(not version('$dist').startswith('$prefix'))"
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "$check" > /dev/null 2>&1; then
	echo "$venv/bin/python"
	exit 0
fi
python3 -m venv "$venv" >&2
"$venv/bin/pip" install -q --no-cache-dir --disable-pip-version-check "$spec" >&2
"$venv/bin/python" -c "$check" ||
	{ echo "pypi-venv.sh: $spec did not give $dist $prefix* importing $module" >&2; exit 1; }
"$venv/bin/python" -c "from importlib.metadata import version; print('$dist', version('$dist'))" >&2
echo "$venv/bin/python"
