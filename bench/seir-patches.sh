#!/bin/sh
# bench/seir-patches.sh - what SEIR's patches cost ([seir] patch_file;
# models/seir/seir.md "Patches"): examples/covasim-random.ini at AGENTS
# agents, DAYS days, OpenMP on one thread, without patches and in a grid
# of PATCHES patches (equal populations, 0.25 degrees apart, the
# community mixing along the default gravity network, 20 seeds in the
# first patch), REPEATS rounds interleaved; prints each run's steps time
# (`weft run`'s steps line), its infections, person-days per second and
# device memory, and the share of community contacts between patches.
#
#   bench/seir-patches.sh BUILD [AGENTS] [PATCHES] [DAYS] [REPEATS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
b=$1 agents=${2:-1000000} patches=${3:-100} days=${4:-120} repeats=${5:-3}
out=$(mktemp -d "${TMPDIR:-/tmp}/weft-seir-patches-XXXXXX")
trap 'rm -rf "$out"' EXIT

# The grid: side x side patches (the last row may be short), agents
# spread evenly (the first patches get the remainder).
awk -v n="$patches" -v a="$agents" 'BEGIN {
	side = int(sqrt(n)); if (side * side < n) side++
	print "id,population,latitude,longitude,initial_infected"
	for (i = 0; i < n; i++)
		printf "%d,%d,%.4f,%.4f,%d\n", i, int(a / n) + (i < a % n),
			40 + 0.25 * int(i / side), -100 + 0.25 * (i % side),
			i == 0 ? 20 : 0
}' > "$out/grid.csv"

# The example without its agents and seeds, which the patch file gives.
grep -v -e '^agents *=' -e '^initial_infected *=' \
	"$top/examples/covasim-random.ini" > "$out/random.ini"

# run LABEL [--set ...]: one run's line.
run() {
	label=$1
	shift
	WEFT_PLUGIN_PATH=$b/plugins/openmp/.libs WEFT_MODEL_PATH=$b/models/seir/.libs \
		"$b/cli/weft" run "$out/random.ini" --quiet \
		--set simulation.steps="$days" --set backend.name=openmp \
		--set backend.threads=1 --set output.plot=none \
		--set "output.directory=$out/$label" "$@" > "$out/log"
	t=$(awk '$1 == "steps" { print $4 }' "$out/log")
	inf=$(awk -F, 'NR > 1 { n += $8 } END { print n }' "$out/$label/daily.csv")
	printf '%-10s steps %s s, %s infections, %.3g person-days/s, device memory %s%s\n' \
		"$label" "$t" "$inf" "$(echo "$agents $days $t" | awk '{ print $1 * $2 / $3 }')" \
		"$(sed -n 's/^  device memory *//p' "$out/log")" \
		"$(sed -n 's/^  patches *[0-9]* (by_patch.csv); community contacts between patches: /; between patches: /p' "$out/log")"
}

echo "$(uname -n), $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$repeats"); do
	run none --set "seir.agents=$agents" --set seir.initial_infected=20
	run patches --set "seir.patch_file=$out/grid.csv"
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
