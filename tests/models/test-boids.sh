#!/bin/sh
# tests/models/test-boids.sh - the boids model (models/boids/boids.md):
#  - its neighbour counts equal an O(N^2) reference exactly
#    (tests/models/boids-bruteforce, on [boids] dump = true's file): 2,000
#    boids after 20 steps, 3-D and 2-D, walls and a torus (one of 2 cells
#    per axis), and the reference does see a count that is off by one;
#  - its outputs (boids.csv, summary.txt and the dump: every agent's
#    position and count) byte for byte the same on openmp with 1 and 2
#    threads, the template backend and opencl (a backend that cannot run
#    here is skipped with its reason), 3-D walls and 2-D torus;
#  - examples/boids.ini's boids.csv and summary.txt byte for byte the
#    golden files tests/data/boids-*;
#  - rules = agentsjl (Agents.jl's flocking example,
#    examples/boids-agentsjl.ini): neighbour counts within visual_distance
#    (at most, not under) equal the O(N^2) reference, 2-D and 3-D, and
#    outputs byte for byte the same across backends and thread counts;
#    a key of the other rule set, and walls, refused by name;
#  - a torus narrower than two radii is refused by name;
#  - `weft conform --model=boids` on every backend built.
# (The CUDA plugin's stand-in runtime, tests/plugins/cuda-mock.c, runs only
# the kernels compiled into it, so boids is not run there.)
set -u
. "$WEFT_SRCDIR/tests/tap.sh"
build="$WEFT_BUILDDIR"
weft="$build/cli/weft"
bf="$build/tests/models/boids-bruteforce"
ini="$WEFT_SRCDIR/examples/boids.ini"
ajl_ini="$WEFT_SRCDIR/examples/boids-agentsjl.ini"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-boids-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

WEFT_MODEL_PATH="$build/models/boids/.libs"
export WEFT_MODEL_PATH
omp="$build/plugins/openmp/.libs"
[ -f "$WEFT_MODEL_PATH/weft-model-boids.so" ] ||
	skip_all "models/boids is not built"
[ -f "$omp/weft-backend-openmp.so" ] ||
	skip_all "the openmp backend (the reference) is not built"

# boids DIR BACKEND THREADS [--set ...]: run examples/boids.ini into
# $tmp/DIR on BACKEND (found in plugins/BACKEND/.libs).
boids() {
	d=$1 b=$2 t=$3
	shift 3
	WEFT_PLUGIN_PATH="$build/plugins/$b/.libs" "$weft" run --quiet "$ini" \
		--set backend.name="$b" --set backend.threads="$t" \
		--set output.plot=none --set output.directory="$tmp/$d" \
		"$@" > "$tmp/$d.log" 2>&1
}

# ---- neighbour counts against the O(N^2) reference -------------------------
# bruteforce LABEL [--set ...]
bruteforce() {
	label=$1
	shift
	boids "bf-$label" openmp 2 --set boids.agents=2000 \
		--set simulation.steps=20 --set boids.dump=true "$@"
	rc=$?
	if [ "$rc" -eq 0 ]; then
		"$bf" "$tmp/bf-$label/boids-agents.csv" > "$tmp/bf-$label.out" 2>&1
		rc=$?
	else
		cp "$tmp/bf-$label.log" "$tmp/bf-$label.out"
	fi
	ok $rc "$label: every boid's neighbours within the radius equal the O(N^2) count"
	tail -n 5 "$tmp/bf-$label.out" | diag
}
bruteforce "3-D walls"
bruteforce "2-D walls" --set boids.dims=2
bruteforce "3-D torus" --set boids.boundary=wrap
bruteforce "2-D torus of 2 x 2 cells" --set boids.dims=2 \
	--set boids.boundary=wrap --set boids.box=0.12

# The reference is not vacuous: one count off by one is found.
f="$tmp/bf-3-D walls/boids-agents.csv"
if [ -f "$f" ]; then
	awk -F, 'NR == 3 { $5 = $5 + 1 } { print }' OFS=, "$f" > "$tmp/off.csv"
	"$bf" "$tmp/off.csv" > "$tmp/off.out" 2>&1
	test $? -eq 1 && grep -q ': 1 counts differ$' "$tmp/off.out"
	ok $? "the reference finds a dump whose first count is off by one"
	diag "$tmp/off.out"
else
	ok 1 "the reference finds a dump whose first count is off by one (no dump)"
fi

# ---- byte for byte across backends and thread counts ------------------------
# available B: 0 when backend B is built and `weft backends` finds it
# available, else 1 with the reason in $why.
available() {
	libs="$build/plugins/$1/.libs"
	if [ ! -f "$libs/weft-backend-$1.so" ]; then
		why="not built"
		return 1
	fi
	WEFT_PLUGIN_PATH=$libs "$weft" backends > "$tmp/backends" 2>&1
	if ! grep -q "^$1  *available " "$tmp/backends"; then
		why=$(sed -n '2s/^ *//p' "$tmp/backends")
		return 1
	fi
	return 0
}

# across LABEL [--set ...]: openmp with 1 thread against 2 threads, the
# template and opencl.
across() {
	label=$1
	shift
	set -- --set boids.agents=3000 --set simulation.steps=60 \
		--set output.every=10 --set boids.dump=true "$@"
	boids "ref" openmp 1 "$@"
	ok $? "$label: runs on openmp with 1 thread"
	diag "$tmp/ref.log"
	for run in "openmp 2" "template 0" "opencl 0"; do
		set -- $run "$@"
		b=$1 t=$2
		shift 2
		what="$label: boids.csv, summary.txt and the agents' dump on $b"
		[ "$t" -eq 0 ] || what="$what with $t threads"
		what="$what are byte for byte those of openmp with 1 thread"
		if ! available "$b"; then
			skip "$what" "$b: $why"
			continue
		fi
		boids "$b-$t" "$b" "$t" "$@"
		rc=$?
		for o in boids.csv summary.txt boids-agents.csv; do
			[ "$rc" -ne 0 ] && break
			cmp "$tmp/ref/$o" "$tmp/$b-$t/$o" > "$tmp/cmp" 2>&1 || rc=1
		done
		ok $rc "$what"
		[ "$rc" -eq 0 ] || { diag "$tmp/$b-$t.log"; diag "$tmp/cmp"; }
	done
}
across "3-D walls"
across "2-D torus" --set boids.dims=2 --set boids.boundary=wrap

# ---- rules = agentsjl (Agents.jl's flocking example) -------------------------
# The same checks on examples/boids-agentsjl.ini: its box (100 wide, r = 5)
# with 2,000 birds gives about 16 neighbours each.
flame_ini=$ini
ini=$ajl_ini
bruteforce "agentsjl 2-D torus"
bruteforce "agentsjl 3-D torus" --set boids.dims=3 --set boids.box=30
across "agentsjl 2-D torus"
ini=$flame_ini

# A FLAME key with rules = agentsjl (examples/boids.ini sets time_scale),
# and walls, are refused by name.
boids foreign openmp 1 --set boids.rules=agentsjl
rc=$?
line=$(grep -n '^time_scale' "$ini" | cut -d: -f1)
[ "$rc" -ne 0 ] && grep -qF "[boids] time_scale ($ini:$line) applies to rules = flame only, and rules is agentsjl (--set boids.rules): remove time_scale or change rules" "$tmp/foreign.log"
r=$?
ok $r "rules = agentsjl with examples/boids.ini's time_scale: refused, naming the key and where it and rules were set (exit $rc)"
[ "$r" -eq 0 ] || diag < "$tmp/foreign.log"
"$weft" check "$ajl_ini" --set boids.boundary=walls > "$tmp/walls.out" 2>&1
rc=$?
[ "$rc" -ne 0 ] && grep -qF "[boids] boundary = walls (--set boids.boundary) with rules = agentsjl ($ajl_ini:" "$tmp/walls.out" &&
	grep -qF "Agents.jl's flocking example has no walls, only a torus: use boundary = wrap" "$tmp/walls.out"
r=$?
ok $r "weft check: rules = agentsjl with boundary = walls refused by name (exit $rc)"
[ "$r" -eq 0 ] || diag < "$tmp/walls.out"
"$weft" check "$ajl_ini" --set boids.rules=flame > "$tmp/ajlflame.out" 2>&1
rc=$?
[ "$rc" -ne 0 ] && grep -qF "[boids] speed ($ajl_ini:" "$tmp/ajlflame.out" &&
	grep -qF "applies to rules = agentsjl only, and rules is flame (--set boids.rules)" "$tmp/ajlflame.out"
r=$?
ok $r "weft check: rules = flame with examples/boids-agentsjl.ini's speed refused by name (exit $rc)"
[ "$r" -eq 0 ] || diag < "$tmp/ajlflame.out"

# ---- the example against the golden outputs ---------------------------------
boids golden openmp 2
rc=$?
for o in boids.csv summary.txt; do
	if [ "$rc" -eq 0 ] && cmp -s "$WEFT_SRCDIR/tests/data/boids-$o" "$tmp/golden/$o"; then
		ok 0 "examples/boids.ini's $o is byte for byte tests/data/boids-$o"
	else
		ok 1 "examples/boids.ini's $o is byte for byte tests/data/boids-$o (run exit $rc)"
		diag "$tmp/golden.log"
		[ -f "$tmp/golden/$o" ] && diff "$WEFT_SRCDIR/tests/data/boids-$o" "$tmp/golden/$o" | head -20 | diag
	fi
done

# ---- a torus narrower than two radii is refused ------------------------------
# (the minimum image would see one image of a neighbour with two in reach)
boids small openmp 1 --set boids.boundary=wrap --set boids.box=0.09 \
	--set boids.radius=0.05
rc=$?
[ "$rc" -ne 0 ] && grep -q "\[boids\] box = 0.09 (--set boids.box) with boundary = wrap (--set boids.boundary) and radius = 0.05 (--set boids.radius): a torus must be at least two radii wide, a side of 0.1 or more: raise \[boids\] box or lower radius" "$tmp/small.log"
r=$?
ok $r "boundary = wrap with box 0.09 < 2 x radius 0.05: refused, naming box, boundary and radius, where each was set, and the smallest side (exit $rc)"
[ "$r" -eq 0 ] || diag < "$tmp/small.log"
"$weft" check "$ini" --set boids.boundary=wrap --set boids.box=0 \
	--set boids.agents=3 --set boids.radius=0.05 > "$tmp/small0.out" 2>&1
rc=$?
[ "$rc" -ne 0 ] && grep -q "\[boids\] box = 0 (.*) with agents = 3 (--set boids.agents), a side of 0.0[0-9]*, with boundary = wrap" "$tmp/small0.out"
r=$?
ok $r "weft check: box = 0 with 3 agents (a side of (3 / 4000)^(1/3) = 0.091): refused, naming agents (exit $rc)"
[ "$r" -eq 0 ] || diag < "$tmp/small0.out"
boids edge openmp 1 --set boids.boundary=wrap --set boids.box=0.1 \
	--set boids.radius=0.05 --set simulation.steps=2
r=$?
ok $r "boundary = wrap with box exactly 2 x radius runs"
[ "$r" -eq 0 ] || diag < "$tmp/edge.log"

# ---- weft conform --model=boids on every backend built ----------------------
plugins=$omp
for b in opencl template; do
	[ -f "$build/plugins/$b/.libs/weft-backend-$b.so" ] && plugins="$plugins:$build/plugins/$b/.libs"
done
WEFT_PLUGIN_PATH=$plugins "$weft" conform --model=boids > "$tmp/conform" 2>&1
rc=$?
ok $rc "weft conform --model=boids passes on every backend available ($(echo "$plugins" | tr ':' '\n' | sed 's|.*/plugins/||; s|/.libs||' | tr '\n' ' '))"
grep -v '^ok' "$tmp/conform" | diag

tap_done
