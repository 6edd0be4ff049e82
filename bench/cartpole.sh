#!/bin/sh
# bench/cartpole.sh - environment steps per second of the CartPole model on
# each backend given, with host actions, with the on-device policy and
# with actions from device memory, and of its Python peers (Gymnasium's
# vector environments, EnvPool) on the same machine; results for
# docs/benchmarks.md.
#
#   bench/cartpole.sh [BUILDDIR] [SECONDS] [PYTHON]
#
# BUILDDIR (.) holds bench/cartpole-bench (built by `make check`) and the
# plugins; SECONDS (0.5) is the time per point; PYTHON (python3) must have
# gymnasium, numpy and envpool (pip install gymnasium envpool), else the
# peers are skipped. Backends: openmp with 1 and 2 threads, opencl; set
# CARTPOLE_BACKENDS="openmp:1 openmp:2 opencl:0 cuda:0" to change them, and
# CARTPOLE_SIZES to change the sizes (8 256 4096 65536 1048576).
# Prints "key=value" lines (see bench/cartpole-bench.c and
# bench/cartpole_gym.py).
set -u
build=${1:-.}
secs=${2:-0.5}
python=${3:-python3}
here=$(cd "$(dirname "$0")" && pwd)
backends=${CARTPOLE_BACKENDS:-openmp:1 openmp:2 opencl:0}
sizes=${CARTPOLE_SIZES:-8 256 4096 65536 1048576}
WEFT_PLUGIN_PATH="$build/plugins/openmp/.libs:$build/plugins/opencl/.libs:$build/plugins/cuda/.libs"
# The build's CartPole model (a plugin since models became plugins).
WEFT_MODEL_PATH="$build/models/cartpole/.libs${WEFT_MODEL_PATH:+:$WEFT_MODEL_PATH}"
export WEFT_PLUGIN_PATH WEFT_MODEL_PATH

echo "# $(date -u '+%Y-%m-%d %H:%M UTC') $(uname -srm); $(nproc) CPUs:" \
	"$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
for b in $backends; do
	for mode in policy host device; do
		"$build/bench/cartpole-bench" "${b%%:*}" "${b#*:}" $mode \
			$sizes -t "$secs"
	done
done
if "$python" -c 'import gymnasium, numpy' 2>/dev/null; then
	"$python" "$here/cartpole_gym.py" -s "$secs" \
		-n "$(echo $sizes | tr ' ' ',')"
else
	echo "# peers skipped: $python has no gymnasium/numpy"
fi
