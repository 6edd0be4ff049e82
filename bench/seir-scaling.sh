#!/bin/sh
# bench/seir-scaling.sh - time the SEIR model on the OpenMP backend at
# several population sizes and thread counts; prints a Markdown table.
#
#   bench/seir-scaling.sh [WEFT] [REPEATS]
#
# WEFT defaults to _inst/bin/weft (./quickstart run installs it there).
# Each cell is the best of REPEATS runs (default 3) of `weft run --stats`:
# wall time of the whole run (population build included) and the
# backend's kernel time, with person-days per second over kernel time.
set -eu
weft=${1:-_inst/bin/weft}
repeats=${2:-3}
cfg=$(mktemp "${TMPDIR:-/tmp}/weft-bench-XXXXXX.ini")
out=$(mktemp -d "${TMPDIR:-/tmp}/weft-bench-XXXXXX")
trap 'rm -rf "$cfg" "$out"' EXIT
cat > "$cfg" <<INI
[simulation]
model = seir
steps = 120
seed = 1
[output]
directory = $out
every = 120
[seir]
contacts = 12
beta = 0.045
initial_infected = 20
INI

echo "| agents | threads | run (s) | kernels (s) | person-days/s (kernels) |"
echo "|---:|---:|---:|---:|---:|"
for agents in 37518 1000000 8400000; do
	for threads in 1 2; do
		best_run=999999 best_k=999999
		for r in $(seq "$repeats"); do
			"$weft" run "$cfg" --quiet --stats --set "seir.agents=$agents" \
				--set "backend.threads=$threads" > "$out/log"
			run=$(awk '$1 == "steps" { print $4 }' "$out/log")
			k=$(awk '$1 == "kernel" { print $2 / 1000 }' "$out/log")
			best_run=$(echo "$run $best_run" | awk '{ print ($1 < $2) ? $1 : $2 }')
			best_k=$(echo "$k $best_k" | awk '{ print ($1 < $2) ? $1 : $2 }')
		done
		echo "$agents $threads $best_run $best_k" |
			awk '{ printf "| %d | %d | %.3f | %.3f | %.3g |\n", $1, $2, $3, $4, $1 * 120 / $4 }'
	done
done
