#!/bin/sh
# bench/boids-bruteforce.sh - the boids model's neighbour counts against an
# O(N^2) reference, exactly (tests/models/boids-bruteforce.c): for each
# case, weft runs STEPS steps with [boids] dump = true, which writes every
# boid's position as the last step read it and its count of neighbours
# within the radius; the reference counts them again over all pairs, with
# the model's f32 operations, and every count must be equal.
#
#   bench/boids-bruteforce.sh [BUILD_DIR] [BACKEND]
#
# Cases: 2,000 and 5,000 boids, 3-D and 2-D, walls and a torus, after 1,
# 50 and 200 steps (flocks form, so later steps have more neighbours),
# and tori of 2 and 3 cells per axis; then rules = agentsjl (Agents.jl's
# flocking example, examples/boids-agentsjl.ini: neighbours at most
# visual_distance away), 100 (its n_birds), 2,000 and 5,000 birds in its
# 100 x 100 torus after 1, 50 and 200 steps, and 2,000 in 3-D. `make
# check` runs a small version (tests/models/test-boids.sh). Exit status 1
# when any count differs.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/_build}
backend=${2:-openmp}
weft="$build/cli/weft"
bf="$build/tests/models/boids-bruteforce"
[ -x "$bf" ] || { echo "no $bf: run make check (or make tests/models/boids-bruteforce) first" >&2; exit 1; }
WEFT_PLUGIN_PATH="$build/plugins/$backend/.libs"
WEFT_MODEL_PATH="$build/models/boids/.libs"
LD_LIBRARY_PATH="$build/core/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export WEFT_PLUGIN_PATH WEFT_MODEL_PATH LD_LIBRARY_PATH
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-boids-bf-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
bad=0

# check N STEPS DIMS BOUNDARY BOX [INI]
check() {
	"$weft" run --quiet "$src/examples/${6:-boids.ini}" --set backend.name="$backend" \
		--set output.plot=none --set output.directory="$tmp/out" \
		--set boids.agents="$1" --set simulation.steps="$2" \
		--set boids.dims="$3" --set boids.boundary="$4" --set boids.box="$5" \
		--set boids.dump=true > "$tmp/log" 2>&1 ||
		{ cat "$tmp/log"; bad=1; return; }
	printf '%5d boids, %3d steps, box %-5s: ' "$1" "$2" "$5"
	"$bf" "$tmp/out/boids-agents.csv" > "$tmp/bf" 2>&1 || bad=1
	tail -n 1 "$tmp/bf"
}

for n in 2000 5000; do
	for d in 3 2; do
		for b in walls wrap; do
			for s in 1 50 200; do
				check "$n" "$s" "$d" "$b" 1
			done
		done
	done
done
# Tori of 2 and 3 cells per axis (radius 0.05; one narrower than two
# radii is refused).
for box in 0.12 0.16; do
	check 2000 20 3 wrap "$box"
	check 2000 20 2 wrap "$box"
done
# rules = agentsjl (its box of 100; 30 wide in 3-D for as many neighbours).
for n in 100 2000 5000; do
	for s in 1 50 200; do
		check "$n" "$s" 2 wrap 100 boids-agentsjl.ini
	done
done
check 2000 50 3 wrap 30 boids-agentsjl.ini
[ "$bad" -eq 0 ] && echo "every count equals the O(N^2) reference" ||
	echo "SOME COUNTS DIFFER"
exit "$bad"
