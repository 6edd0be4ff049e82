#!/bin/sh
# bench/seir-prevalence.sh - what a day of SEIR costs at low and high
# prevalence, with the frontier (the active list) and without it (every
# agent processed); prints a Markdown table.
#
#   bench/seir-prevalence.sh [WEFT] [AGENTS] [REPEATS] [THREADS] [KEY=VALUE...]
#
# WEFT defaults to _build/cli/weft (the OpenMP plugin and the seir model
# of the build tree WEFT is in are found through WEFT_PLUGIN_PATH and
# WEFT_MODEL_PATH, which the script sets when unset; an installed weft
# finds its own), AGENTS to 1000000, REPEATS to 3, THREADS to
# 0 (every core); each KEY=VALUE after them is one more --set (testing and
# tracing on, say: seir.test_symp_prob=0.1 seir.trace_probs=1; the four
# first arguments must then be given). The Covasim hybrid preset (examples/covasim-hybrid.ini:
# homes, one school, one workplace and the community stored, 35.5
# contacts per agent, Covasim's beta and course); a share of the agents is
# exposed on day 0 with a latent period of 1 day, so that on day 1 exactly
# that share is infectious and transmits at Covasim's rates. Each cell is
# the best of REPEATS runs of that one day: the time the day's kernels
# ran, as the backend counts it (`weft run --stats`, "kernel"), to the
# microsecond: the step loop's wall time (`weft run`'s "steps", whose
# OpenMP launches run the kernels before they return) is printed to the
# millisecond only, a day at 0.1 % takes about one, and the finish (the
# outputs written and committed, tens of milliseconds) is no part of a
# day. The population build and the uploads are not counted.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
weft=${1:-$top/_build/cli/weft}
agents=${2:-1000000}
repeats=${3:-3}
threads=${4:-0}
[ $# -gt 4 ] && shift 4 || set --
extra=""
for kv in "$@"; do
	extra="$extra --set $kv"
done
tree=$(dirname "$weft")/..
if [ -d "$tree/plugins/openmp/.libs" ]; then
	: "${WEFT_PLUGIN_PATH:=$tree/plugins/openmp/.libs}"
	: "${WEFT_MODEL_PATH:=$tree/models/seir/.libs}"
	export WEFT_PLUGIN_PATH WEFT_MODEL_PATH
fi

cfg=$(mktemp "${TMPDIR:-/tmp}/weft-bench-XXXXXX.ini")
out=$(mktemp -d "${TMPDIR:-/tmp}/weft-bench-XXXXXX")
trap 'rm -rf "$cfg" "$out"' EXIT
# The preset without its initial_infected (initial_fraction is set).
grep -v '^initial_infected' "$(dirname "$0")/../examples/covasim-hybrid.ini" > "$cfg"
# The run's settings (no blanks in them: expanded unquoted).
common="--set simulation.steps=1 --set backend.name=openmp
	--set backend.threads=$threads --set output.directory=$out
	--set output.every=1 --set output.plot=none --set seir.agents=$agents
	--set seir.latent_duration=fixed(1)$extra"

# day_ms FRACTION FRONTIER: the day's best kernel time, in ms.
day_ms() {
	best=999999
	for r in $(seq "$repeats"); do
		"$weft" run "$cfg" --quiet --stats $common \
			--set "seir.initial_fraction=$1" \
			--set "seir.frontier=$2" > "$out/log"
		k=$(awk '$1 == "kernel" && $3 == "ms" { print $2 }' "$out/log")
		best=$(echo "$k $best" | awk '{ print ($1 < $2) ? $1 : $2 }')
	done
	echo "$best"
}

mem=$("$weft" run "$cfg" $common --set seir.initial_fraction=0.001 |
	sed -n 's/^  device memory *//p')
echo "$agents agents, covasim-hybrid.ini, OpenMP, threads = $threads ($(nproc) cores)${extra:+, with$extra}"
echo "device memory: $mem"
echo
echo "| prevalence | frontier: ms/day | every agent: ms/day |"
echo "|---:|---:|---:|"
for f in 0.001 0.01 0.1; do
	a=$(day_ms "$f" true)
	b=$(day_ms "$f" false)
	echo "$f $a $b" | awk '{ printf "| %g %% | %.3f | %.3f |\n", $1 * 100, $2, $3 }'
done
