#!/bin/sh
# bench/seir-prevalence.sh - what a day of SEIR costs at low and high
# prevalence, with the frontier (the active list) and without it (every
# agent processed); prints a Markdown table.
#
#   bench/seir-prevalence.sh [WEFT] [AGENTS] [REPEATS] [THREADS]
#
# WEFT defaults to cli/weft in the build tree (with the OpenMP plugin
# found through WEFT_PLUGIN_PATH, which the script sets when unset),
# AGENTS to 1000000, REPEATS to 3, THREADS to 0 (every core). A random population with 12 stored
# contacts per agent; a fraction of the agents is exposed on day 0 with a
# latent period of 1 day and an infectious period of 120, and beta is so
# small (1e-6) that prevalence stays where it was put: every day does the
# same work. Each cell is the best of REPEATS runs of 20 days: the
# backend's kernel time (`weft run --stats`) per day. The population build
# and the uploads are not counted.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
weft=${1:-$top/cli/weft}
agents=${2:-1000000}
repeats=${3:-3}
threads=${4:-0}
: "${WEFT_PLUGIN_PATH:=$top/plugins/openmp/.libs}"
export WEFT_PLUGIN_PATH
cfg=$(mktemp "${TMPDIR:-/tmp}/weft-bench-XXXXXX.ini")
out=$(mktemp -d "${TMPDIR:-/tmp}/weft-bench-XXXXXX")
trap 'rm -rf "$cfg" "$out"' EXIT
cat > "$cfg" <<INI
[simulation]
model = seir
steps = 20
seed = 1
[backend]
name = openmp
threads = $threads
[output]
directory = $out
every = 20
plot = none
[seir]
population = random
agents = $agents
contacts = 12
beta = 0.000001
beta_community = 1
symp_prob = 0
deaths = false
latent_duration = fixed(1)
asym_duration = fixed(120)
INI

# day_ms FRACTION FRONTIER: best kernel time per day, in ms.
day_ms() {
	best=999999
	for r in $(seq "$repeats"); do
		"$weft" run "$cfg" --quiet --stats \
			--set "seir.initial_fraction=$1" \
			--set "seir.frontier=$2" > "$out/log"
		k=$(awk '$1 == "kernel" { print $2 / 20 }' "$out/log")
		best=$(echo "$k $best" | awk '{ print ($1 < $2) ? $1 : $2 }')
	done
	echo "$best"
}

mem=$("$weft" run "$cfg" --set seir.initial_fraction=0.001 |
	sed -n 's/^  device memory *//p')
echo "$agents agents, 12 contacts each, OpenMP, threads = $threads ($(nproc) cores)"
echo "device memory: $mem"
echo
echo "| prevalence | frontier: ms/day | every agent: ms/day |"
echo "|---:|---:|---:|"
for f in 0.001 0.01 0.1; do
	a=$(day_ms "$f" true)
	b=$(day_ms "$f" false)
	echo "$f $a $b" | awk '{ printf "| %g %% | %.3f | %.3f |\n", $1 * 100, $2, $3 }'
done
