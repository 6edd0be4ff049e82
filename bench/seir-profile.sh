#!/bin/sh
# bench/seir-profile.sh - where a day of SEIR goes, kernel by kernel: the
# hybrid Covasim preset (examples/covasim-hybrid.ini) at AGENTS agents with
# a share FRACTION of them made infectious on day 1 (exposed on day 0 with a
# latent period of 1 day), DAYS days on one OpenMP thread, under `perf
# record`; prints the kernel time per day (`weft run --stats`), the share
# of each kernel in the samples of the step loop (population build
# excluded), and the day's work: infectious agents, stored contacts of
# theirs, expected candidates and Philox draws, transmissions.
#
#   bench/seir-profile.sh [BUILD] [AGENTS] [FRACTIONS] [DAYS]
#
# BUILD defaults to _build; AGENTS to 1000000; FRACTIONS to "0.01 0.1";
# DAYS to 3 (prevalence moves little in 3 days).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/_build}
agents=${2:-1000000}
fractions=${3:-0.01 0.1}
days=${4:-3}
out=$(mktemp -d "${TMPDIR:-/tmp}/weft-prof-XXXXXX")
trap 'rm -rf "$out"' EXIT
export WEFT_PLUGIN_PATH=$build/plugins/openmp/.libs
export WEFT_MODEL_PATH=$build/models/seir/.libs
for f in $fractions; do
	set -- run "$top/examples/covasim-hybrid.ini" --stats \
		--set "seir.agents=$agents" --set "simulation.steps=$days" \
		--set "seir.initial_fraction=$f" --set seir.initial_infected=0 \
		--set "seir.latent_duration=fixed(1)" --set backend.name=openmp \
		--set backend.threads=1 --set "output.directory=$out/o" \
		--set output.every=1 --set output.plot=none
	# initial_infected and initial_fraction cannot both be set: drop the
	# preset's initial_infected through a copy without it.
	grep -v '^initial_infected' "$top/examples/covasim-hybrid.ini" > "$out/h.ini"
	shift 2
	perf record -q -o "$out/perf.data" "$build/cli/weft" run "$out/h.ini" \
		$(echo "$@" | sed 's/--set seir.initial_infected=0//') > "$out/log" 2>&1
	kern=$(awk '$1 == "kernel" { print $2 }' "$out/log")
	echo "## $agents agents, $f infectious on day 1, $days days: kernels $(echo "$kern $days" | awk '{ printf "%.1f", $1 / $2 }') ms/day"
	awk -F, 'NR > 1 { printf "day %d: infectious %d, new infections %d\n", $1, $4 + $5, $8 }' "$out/o/daily.csv"
	grep -E "contacts stored" "$out/log"
	perf report -q -i "$out/perf.data" --no-children --sort symbol 2>/dev/null |
		grep -E "seir_|weft_philox|pop_|weft__pop" | head -12
	echo
done
