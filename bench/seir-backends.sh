#!/bin/sh
# bench/seir-backends.sh - time one simulated day of the SEIR model on each
# backend given, at several population sizes; prints a Markdown table.
#
#   bench/seir-backends.sh [WEFT] [REPEATS] [BACKENDS] [AGENTS]
#
# WEFT defaults to _inst/bin/weft (./quickstart run installs it there);
# BACKENDS to "openmp opencl", AGENTS to "37518 1000000". Each cell is the
# best of REPEATS runs (default 3) of `weft run --stats`, 120 days read back
# once at the end: "steps" is the wall time of the step loop plus finish
# (the "wall time" line of `weft run`: every launch enqueued, then waited
# for with the last outputs, so it is comparable between backends that
# run asynchronously and those that do not), divided into time per
# simulated day and person-days per second. Population build, upload and
# kernel compilation are outside it (compiled programs come from the
# cache after the first run).
set -eu
weft=${1:-_inst/bin/weft}
repeats=${2:-3}
backends=${3:-openmp opencl}
sizes=${4:-37518 1000000}
days=120
cfg=$(mktemp "${TMPDIR:-/tmp}/weft-bench-XXXXXX.ini")
out=$(mktemp -d "${TMPDIR:-/tmp}/weft-bench-XXXXXX")
trap 'rm -rf "$cfg" "$out"' EXIT
cat > "$cfg" <<INI
[simulation]
model = seir
steps = $days
seed = 1
[output]
directory = $out
every = $days
plot = none
[seir]
contacts = 12
beta = 0.045
initial_infected = 20
INI

echo "| agents | backend | steps (s) | ms per day | person-days/s |"
echo "|---:|---|---:|---:|---:|"
for agents in $sizes; do
	for b in $backends; do
		if ! "$weft" run "$cfg" --quiet --set "seir.agents=1000" \
			--set "backend.name=$b" > "$out/log" 2>&1; then
			echo "| $agents | $b | not available: $(head -c 120 "$out/log" | tr '\n|' ' /') | | |"
			continue
		fi
		best=999999
		for r in $(seq "$repeats"); do
			"$weft" run "$cfg" --quiet --stats --set "seir.agents=$agents" \
				--set "backend.name=$b" > "$out/log"
			t=$(awk '$1 == "wall" && $2 == "time" { print $7 + $10; exit }' "$out/log")
			best=$(echo "$t $best" | awk '{ print ($1 < $2) ? $1 : $2 }')
		done
		echo "$agents $b $best $days" | awk '{
			printf "| %d | %s | %.3f | %.3f | %.3g |\n",
			       $1, $2, $3, 1000 * $3 / $4, $1 * $4 / $3 }'
	done
done
