#!/bin/sh
# bench/validate/seir-r0.sh - [seir] r0 at scale: the calibrated beta,
# what the calibration costs, and the R0 that runs measure (the mean
# secondary infections of the index cases) against the request; prints a
# Markdown table (docs/benchmarks.md keeps its results).
#
#   bench/validate/seir-r0.sh [WEFT] [AGENTS] [SEEDS] [RUNS] [PRESET]
#
# WEFT defaults to _build/cli/weft (with the build tree's OpenMP plugin
# and seir model), AGENTS to 1000000, SEEDS (index cases a run) to 2000,
# RUNS (simulation seeds 1..RUNS, each its own population) to 3, PRESET
# to covasim-hybrid (examples/PRESET.ini: Covasim's course, homes, school,
# work and community stored; covasim-random for random contacts). For r0
# = 1.5 and 3: each run's calibrated beta and R0 of its index cases (50
# days, enough for their courses); the mean over the runs and its error
# against r0; and the calibration's cost, the setup's wall time with r0
# less the setup's with the calibrated beta given (the same population;
# both estimate R0 once for the summary).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
weft=${1:-$top/_build/cli/weft}
agents=${2:-1000000}
seeds=${3:-2000}
runs=${4:-3}
preset=${5:-covasim-hybrid}
tree=$(dirname "$weft")/..
if [ -d "$tree/plugins/openmp/.libs" ]; then
	: "${WEFT_PLUGIN_PATH:=$tree/plugins/openmp/.libs}"
	: "${WEFT_MODEL_PATH:=$tree/models/seir/.libs}"
	export WEFT_PLUGIN_PATH WEFT_MODEL_PATH
fi
cfg=$(mktemp "${TMPDIR:-/tmp}/weft-bench-XXXXXX.ini")
out=$(mktemp -d "${TMPDIR:-/tmp}/weft-bench-XXXXXX")
trap 'rm -rf "$cfg" "$out"' EXIT
# The preset without its beta and its initial infections.
grep -v '^beta\|^initial_infected\|^initial_fraction' \
	"$top/examples/$preset.ini" > "$cfg"
common="--set backend.name=openmp --set simulation.steps=50
	--set output.csv=false --set output.plot=none
	--set output.directory=$out --set seir.agents=$agents
	--set seir.initial_infected=$seeds"

# setup_s LOG: the setup's wall time, in seconds.
setup_s() { sed -n 's/^  wall time *setup \([0-9.]*\) s.*/\1/p' "$1"; }

echo "$agents agents, $preset.ini, $seeds index cases a run, $runs runs, OpenMP ($(nproc) cores)"
echo
echo "| r0 | run | beta | R0 of the index cases | setup with r0 (s) | with beta (s) |"
echo "|---:|---:|---:|---:|---:|---:|"
for r0 in 1.5 3; do
	: > "$out/means"
	for seed in $(seq "$runs"); do
		"$weft" run "$cfg" $common --set "simulation.seed=$seed" \
			--set "seir.r0=$r0" > "$out/r0.log" 2>&1
		beta=$(sed -n 's/^  beta calibrated *\([0-9.]*\) .*/\1/p' "$out/r0.log")
		m=$(sed -n 's/^  R0 of the index cases *\([0-9.]*\) +- \([0-9.]*\).*/\1 \2/p' "$out/r0.log")
		"$weft" run "$cfg" $common --set "simulation.seed=$seed" \
			--set "seir.beta=$beta" > "$out/beta.log" 2>&1
		echo "$m" >> "$out/means"
		echo "| $r0 | $seed | $beta | $(echo "$m" | awk '{ print $1 " +- " $2 }') | $(setup_s "$out/r0.log") | $(setup_s "$out/beta.log") |"
	done
	awk -v r0="$r0" '{ s += $1; v += $2 * $2; n++ }
		END { m = s / n; printf "| %s | mean | | %.4f +- %.4f (%+.2f %%) | | |\n",
			r0, m, sqrt(v) / n, 100 * (m - r0) / r0 }' "$out/means"
done
