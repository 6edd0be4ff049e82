#!/bin/sh
# bench/mesa-venv.sh - the Python environment of the Wolf-Sheep comparison
# with Mesa: a virtual environment with Mesa 3.5.x from PyPI (and what the
# comparison scripts import: numpy and pandas, which Mesa brings; networkx,
# which Mesa imports; matplotlib for the plot).
#
#   bench/mesa-venv.sh [VENV]
#
# VENV defaults to _bench/mesa-venv at the top of the tree. Prints the path
# of its python. Nothing is installed when the environment already imports
# mesa 3.5.x. Mesa 3.5 requires Python 3.12 or newer: the environment is
# made with MESA_PYTHON when set, else the first of python3.13, python3.12
# (on PATH, or in pyenv's versions) that runs and is at least 3.12.
# MESA_SPEC overrides the requirement (default "mesa[network]>=3.5,<3.6":
# Mesa 3.5 imports networkx on import but lists it only as an extra).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
venv=${1:-$top/_bench/mesa-venv}
spec=${MESA_SPEC:-mesa[network]>=3.5,<3.6}
if [ -x "$venv/bin/python" ] &&
	"$venv/bin/python" -c 'import mesa, sys; sys.exit(not mesa.__version__.startswith("3.5."))' > /dev/null 2>&1; then
	echo "$venv/bin/python"
	exit 0
fi

# py_ok PYTHON: true when PYTHON runs and is Python 3.12 or newer
py_ok() {
	"$1" -c 'import sys; sys.exit(sys.version_info < (3, 12))' > /dev/null 2>&1
}

base=${MESA_PYTHON:-}
if [ -z "$base" ]; then
	pyenv_root=${PYENV_ROOT:-$HOME/.pyenv}
	for p in python3.13 python3.12 python3 \
		"$pyenv_root"/versions/3.13*/bin/python3 "$pyenv_root"/versions/3.12*/bin/python3; do
		if py_ok "$p"; then
			base=$p
			break
		fi
	done
fi
if [ -z "$base" ] || ! py_ok "$base"; then
	echo "mesa-venv.sh: Mesa 3.5 needs Python >= 3.12 and none was found (set MESA_PYTHON)" >&2
	exit 1
fi
"$base" -m venv "$venv" >&2
"$venv/bin/pip" install -q --disable-pip-version-check "$spec" pandas matplotlib >&2
"$venv/bin/python" -c 'import mesa; print("mesa", mesa.__version__)' >&2
echo "$venv/bin/python"
