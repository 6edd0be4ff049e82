#!/bin/sh
# bench/seir-profile.sh - where a day of SEIR goes, kernel by kernel: the
# hybrid Covasim preset (examples/covasim-hybrid.ini) at AGENTS agents with
# a share FRACTION of them infectious on day 1 (exposed on day 0 with a
# latent period of 1 day), DAYS days on one OpenMP thread, under `perf
# record`. Prints the step loop's time per day (`weft run`'s "steps"),
# each day's infectious agents and new infections, the candidates skip
# sampling walked (the summary's count), and each kernel's share of the
# samples taken in the kernels (the population build, which dominates the
# process, is left out).
#
#   bench/seir-profile.sh [BUILD] [AGENTS] [FRACTIONS] [DAYS]
#
# BUILD defaults to _build; AGENTS to 1000000; FRACTIONS to "0.01 0.1";
# DAYS to 2 (prevalence moves little in 2 days).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/_build}
agents=${2:-1000000}
fractions=${3:-0.01 0.1}
days=${4:-2}
out=$(mktemp -d "${TMPDIR:-/tmp}/weft-prof-XXXXXX")
trap 'rm -rf "$out"' EXIT
export WEFT_PLUGIN_PATH=$build/plugins/openmp/.libs
export WEFT_MODEL_PATH=$build/models/seir/.libs
# The preset without its initial_infected (initial_fraction is set).
grep -v '^initial_infected' "$top/examples/covasim-hybrid.ini" > "$out/h.ini"
for f in $fractions; do
	perf record -q -F 20000 -o "$out/perf.data" "$build/cli/weft" run \
		"$out/h.ini" --set "seir.agents=$agents" \
		--set "simulation.steps=$days" --set "seir.initial_fraction=$f" \
		--set "seir.latent_duration=fixed(1)" --set backend.name=openmp \
		--set backend.threads=1 --set "output.directory=$out/o" \
		--set output.every=1 --set output.plot=none > "$out/log" 2>&1
	awk -v d="$days" -v f="$f" -v n="$agents" '$1 == "wall" && $2 == "time" {
		printf "## %d agents, %g infectious on day 1: %.2f ms a day (steps %.3f s)\n",
		       n, f, 1000 * ($7 + $10) / d, $7 + $10 }' "$out/log"
	awk -F, 'NR > 1 { printf "day %d: infectious %d, new infections %d\n", $1, $4 + $5, $8 }' \
		"$out/o/daily.csv"
	grep -E "candidates walked|contacts stored" "$out/log" | sed 's/^ */  /'
	perf report -q -i "$out/perf.data" --no-children --sort symbol 2>/dev/null |
		awk '$3 ~ /^seir_/ { p[$3] = $1 + 0; t += $1 } END {
			for (k in p) printf "  %-16s %5.1f %% of the kernels\n", k, 100 * p[k] / t }' |
		sort -k2 -rn
	echo
done
