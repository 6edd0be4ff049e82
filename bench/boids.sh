#!/bin/sh
# bench/boids.sh - the boids model (models/boids/boids.md) on the OpenMP
# backend: agent-steps per second and neighbour messages read per second
# at 1e5 and 1e6 boids in 3-D, on one thread and on two, each the median
# of 3 runs, with the CPU model and the load printed first.
#
#   bench/boids.sh [BUILD_DIR] [STEPS_1E5] [STEPS_1E6]
#
# BUILD_DIR: a configured and built tree (default: _build beside this
# script's folder). The box keeps FLAME GPU 2's density, 4000 boids per
# unit volume ([boids] box = 0: a side of (agents / 4000)^(1/3), 2.92 at
# 1e5 and 6.30 at 1e6), so each boid reads about as many neighbour
# messages as in FLAME's 4000-boid example (its interaction radius 0.05,
# cells of 0.05). The time is the run's own "steps N in T s" (setup and
# the initial population excluded); the runs start from uniformly placed
# boids, so the first steps read fewer messages than flocked ones later.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/_build}
steps5=${2:-200}
steps6=${3:-20}
weft="$build/cli/weft"
[ -x "$weft" ] || { echo "bench/boids.sh: no $weft: build first" >&2; exit 1; }
WEFT_PLUGIN_PATH="$build/plugins/openmp/.libs"
WEFT_MODEL_PATH="$build/models/boids/.libs"
LD_LIBRARY_PATH="$build/core/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export WEFT_PLUGIN_PATH WEFT_MODEL_PATH LD_LIBRARY_PATH
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-boids-bench-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "# cpu: $(lscpu | sed -n 's/^Model name: *//p')"
echo "# load (1, 5, 15 min): $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# weft boids, openmp backend, 3-D walls, FLAME's density, median of 3"
printf '%-8s %-7s %-6s %-11s %-14s %-10s %-14s\n' agents threads steps \
	"s/step" "agent-steps/s" "msgs/agent" "msgs/s/core"
for n in 100000 1000000; do
	steps=$steps5
	[ "$n" -lt 1000000 ] || steps=$steps6
	for t in 1 2; do
		for r in 1 2 3; do
			"$weft" run --quiet --set simulation.model=boids \
				--set simulation.steps="$steps" \
				--set simulation.seed=20240601 \
				--set backend.name=openmp --set backend.threads="$t" \
				--set output.directory="$tmp/out" \
				--set output.csv=false --set output.plot=none \
				--set boids.agents="$n" --set boids.box=0 \
				"$src/examples/boids.ini" > "$tmp/run.log" 2>&1 ||
				{ cat "$tmp/run.log" >&2; exit 1; }
			sed -n 's/^ *steps *[0-9]* in \([0-9.]*\) s.*/\1/p' "$tmp/run.log"
		done | sort -n | sed -n 2p > "$tmp/median"
		msgs=$(sed -n 's/^ *neighbour messages read *\([0-9.]*\) per agent.*/\1/p' "$tmp/run.log")
		awk -v n="$n" -v t="$t" -v steps="$steps" -v m="$msgs" \
			-v s="$(cat "$tmp/median")" 'BEGIN {
			as = n * steps / s
			printf "%-8d %-7d %-6d %-11.4f %-14.3e %-10.2f %-14.3e\n",
				n, t, steps, s / steps, as, m, as * m / t
		}'
	done
done
