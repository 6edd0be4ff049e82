#!/bin/sh
# tests/models/test-circles.sh - the circles model (models/circles):
# its neighbour counts equal an O(N^2) reference exactly and its positions
# agree within 1e-5 (bench/circles-bruteforce.sh on 1500 agents, 2-D and
# 3-D, step 3); its outputs (circles.csv, circles-agents.csv) are byte for
# byte the same on openmp at 1 and 2 threads, on the template backend and
# on OpenCL, in 2-D and 3-D; and `weft conform` passes on every backend
# built; its outputs equal the golden ones (tests/data/circles-*);
# examples/circles.ini runs (shortened).
set -u
. "${WEFT_SRCDIR:-$(dirname "$0")/../..}/tests/tap.sh"
src=${WEFT_SRCDIR:-$(dirname "$0")/../..}
build=${WEFT_BUILDDIR:-.}
weft="$build/cli/weft"
model="$build/models/circles/.libs/weft-model-circles.so"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-circles-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

[ -f "$model" ] || skip_all "$model is not built"
WEFT_MODEL_PATH="$build/models/circles/.libs"; export WEFT_MODEL_PATH
plugins="$build/plugins/openmp/.libs"
for b in opencl template; do
	[ -f "$build/plugins/$b/.libs/weft-backend-$b.so" ] && plugins="$plugins:$build/plugins/$b/.libs"
done
WEFT_PLUGIN_PATH="$plugins"; export WEFT_PLUGIN_PATH

# The brute-force reference, small.
WEFT="$weft" BRUTE="$build/bench/circles-bruteforce" \
	sh "$src/bench/circles-bruteforce.sh" -k 3 1500 > "$tmp/bf.out" 2>&1
rc=$?
ok $rc "circles: neighbours within the radius equal the O(N^2) reference exactly, positions within 1e-5 (1500 agents, 2-D and 3-D)"
diag "$tmp/bf.out"

# run BACKEND THREADS DIMS DIR
run() {
	"$weft" run "$src/examples/circles.ini" --quiet \
		--set backend.name="$1" --set backend.threads="$2" \
		--set circles.dims="$3" --set circles.agents=3000 \
		--set circles.agents_csv=true --set simulation.steps=15 \
		--set output.every=1 --set output.plot=none \
		--set output.directory="$4" > "$4.log" 2>&1
}
for d in 2 3; do
	run openmp 1 "$d" "$tmp/ref$d"
	rc=$?
	ok $rc "circles $d-D runs on openmp, 1 thread (3000 agents, 15 steps)"
	[ $rc -eq 0 ] || diag "$tmp/ref$d.log"
	for bt in openmp:2 template:0 opencl:0; do
		b=${bt%:*}
		t=${bt#*:}
		what="circles $d-D outputs on $b (threads $t) equal openmp's at 1 thread byte for byte"
		if [ ! -f "$build/plugins/$b/.libs/weft-backend-$b.so" ]; then
			skip "$what" "the $b backend is not built"
			continue
		fi
		run "$b" "$t" "$d" "$tmp/$b$t-$d" &&
			cmp "$tmp/ref$d/circles.csv" "$tmp/$b$t-$d/circles.csv" &&
			cmp "$tmp/ref$d/circles-agents.csv" "$tmp/$b$t-$d/circles-agents.csv"
		rc=$?
		ok $rc "$what"
		[ $rc -eq 0 ] || diag "$tmp/$b$t-$d.log"
	done
done

# Golden outputs: 4096 agents, 3-D, seed 1, 20 steps (tests/data).
"$weft" run "$src/examples/circles.ini" --quiet --set circles.agents=4096 \
	--set simulation.steps=20 --set output.plot=none \
	--set output.directory="$tmp/golden" > "$tmp/golden.log" 2>&1 &&
	cmp "$src/tests/data/circles-circles.csv" "$tmp/golden/circles.csv" &&
	cmp "$src/tests/data/circles-summary.txt" "$tmp/golden/summary.txt"
rc=$?
ok $rc "circles.csv and summary.txt equal the golden outputs (tests/data/circles-*)"
[ $rc -eq 0 ] || diag "$tmp/golden.log"

# A radius too small for the box: refused, naming both keys and where
# each was set.
"$weft" check "$src/examples/circles.ini" --set circles.radius=0.001 \
	--set circles.env_max=1e6 > "$tmp/bins.log" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q "\[circles\] radius = 0.001 (--set circles.radius), env_max = 1e+06 (--set circles.env_max): the space's bins: too many cells" "$tmp/bins.log"
r=$?
ok $r "radius 0.001 in a box 1e6 wide: refused, naming radius and env_max and where each was set (exit $rc)"
[ $r -eq 0 ] || diag "$tmp/bins.log"

"$weft" conform --model=circles openmp > "$tmp/conform.tap" 2>&1
rc=$?
test "$rc" -eq 0 && ! grep -q '^not ok' "$tmp/conform.tap" && grep -q '^1\.\.[1-9]' "$tmp/conform.tap"
ok $? "weft conform --model=circles passes on every backend built ($(grep -c '^ok' "$tmp/conform.tap") tests)"
grep '^not ok' "$tmp/conform.tap" | head -n 5 | diag

"$weft" run "$src/examples/circles.ini" --quiet --set simulation.steps=2 \
	--set circles.agents=20000 --set output.plot=none \
	--set output.directory="$tmp/example" > "$tmp/example.log" 2>&1 &&
	grep -q '^messages read: ' "$tmp/example/summary.txt"
rc=$?
ok $rc "examples/circles.ini runs (20000 agents, 2 steps) and its summary counts the messages read"
[ $rc -eq 0 ] || diag "$tmp/example.log"
tap_done
