#!/bin/sh
# bench/circles.sh - the circles model (FLAME GPU 2's Circles, 3-D) on one
# core and two: agent-steps per second and neighbour messages read per
# second at 1e5 and 1e6 agents, the median of 3 runs each, with the CPU
# model and the load before each size printed (docs/benchmarks.md).
#
#   bench/circles.sh [-b BACKEND] [-s STEPS] [-r RUNS] [N...]   (default N: 100000 1000000)
#
# Environment: WEFT (the weft command; default weft); the model is found
# through WEFT_MODEL_PATH as for any run. The step time is weft run's
# "steps ... in T s" (setup and finish excluded); messages read per agent
# per step come from the run's summary (candidates in the neighbouring
# bins, FLAME's "message reads").
set -u
backend=openmp
steps=20
runs=3
while [ $# -gt 0 ]; do
	case $1 in
	-b) backend=$2; shift 2 ;;
	-s) steps=$2; shift 2 ;;
	-r) runs=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || set -- 100000 1000000
weft=${WEFT:-weft}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-circles-bench-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)"
echo "backend: $backend, $steps steps per run, median of $runs runs"
printf '%-9s %-7s %-12s %-14s %-16s %s\n' agents threads s/step agent-steps/s messages/s msgs/agent/step
for n in "$@"; do
	echo "load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
	for t in 1 2; do
		: > "$tmp/times"
		for r in $(seq "$runs"); do
			printf '[simulation]\nmodel = circles\n[circles]\ndims = 3\n' > "$tmp/run.ini"
			OMP_NUM_THREADS=$t "$weft" run "$tmp/run.ini" \
				--set circles.agents="$n" \
				--set simulation.steps="$steps" \
				--set backend.name="$backend" --set backend.threads="$t" \
				--set output.csv=false --set output.plot=none \
				--set output.directory="$tmp/out" > "$tmp/log" 2>&1 ||
				{ cat "$tmp/log" >&2; exit 1; }
			sed -n 's/^ *steps *[0-9]* in \([0-9.]*\) s.*/\1/p' "$tmp/log" >> "$tmp/times"
			msgs=$(sed -n 's/^messages read: \([0-9.]*\) .*/\1/p' "$tmp/out/summary.txt")
		done
		med=$(sort -n "$tmp/times" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
		awk -v n="$n" -v t="$t" -v s="$steps" -v m="$med" -v g="$msgs" 'BEGIN {
			printf "%-9d %-7d %-12.4f %-14.4g %-16.4g %s\n", n, t, m / s, n * s / m, n * s * g / m, g }'
	done
done
