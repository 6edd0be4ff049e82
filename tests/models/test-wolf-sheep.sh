#!/bin/sh
# tests/models/test-wolf-sheep.sh - the wolf-sheep model (models/wolf-sheep):
# examples/wolf-sheep.ini gives the golden counts.csv and summary.txt
# (tests/data/wolf-sheep-*); a busier grid gives counts.csv byte for byte
# the same on openmp and template with 1 and 2 threads and on opencl, and
# batched replicas as runs alone; 128 steps run as one chunk between
# collects, with the rows of shorter chunks; a
# population that outgrows its capacity stops the run with an error that
# names it and the key to raise; `weft conform` passes; and the mean of 20
# seeds lies inside Mesa 3.5's seed-to-seed band and within 3 standard
# errors of Mesa's mean (bench/wolf-sheep-compare.sh --band-only, the stored
# band), while a biased model (wolf_gain_from_food = 18) fails that check;
# configuration errors name their keys; the capacity keys' help says what
# a capacity must hold.
set -u
weft="$WEFT_BUILDDIR/cli/weft"
ex="$WEFT_SRCDIR/examples/wolf-sheep.ini"
data="$WEFT_SRCDIR/tests/data"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-wolf-sheep-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT
WEFT_MODEL_PATH="$WEFT_BUILDDIR/models/wolf-sheep/.libs"
export WEFT_MODEL_PATH

# run LABEL BACKEND THREADS [--set ...]: examples/wolf-sheep.ini into $tmp/LABEL.
run() {
	label=$1 b=$2 th=$3
	shift 3
	WEFT_PLUGIN_PATH="$WEFT_BUILDDIR/plugins/$b/.libs" "$weft" run --quiet \
		"$ex" --set backend.name="$b" --set backend.threads="$th" \
		--set output.plot=none --set output.directory="$tmp/$label" \
		"$@" > "$tmp/$label.out" 2>&1
}

available() {
	[ -f "$WEFT_BUILDDIR/plugins/$1/.libs/weft-backend-$1.so" ] &&
		WEFT_PLUGIN_PATH="$WEFT_BUILDDIR/plugins/$1/.libs" "$weft" backends 2>/dev/null |
		grep -q "^$1  *available "
}

# ---- golden outputs ---------------------------------------------------------
run golden openmp 1
rc=$?
for f in counts.csv summary.txt; do
	[ "$rc" -eq 0 ] && cmp -s "$data/wolf-sheep-$f" "$tmp/golden/$f"
	ok $? "examples/wolf-sheep.ini: $f is byte for byte tests/data/wolf-sheep-$f (exit $rc)"
	[ -f "$tmp/golden/$f" ] && diff "$data/wolf-sheep-$f" "$tmp/golden/$f" | head -10 | diag
done
[ "$rc" -eq 0 ] || diag "$tmp/golden.out"
[ "$(head -1 "$tmp/golden/counts.csv")" = "step,sheep,wolves,grass" ] &&
	[ "$(sed -n 2p "$tmp/golden/counts.csv" | cut -d, -f1-3)" = "0,100,50" ] &&
	[ "$(wc -l < "$tmp/golden/counts.csv")" -eq 202 ]
ok $? "counts.csv: the header, step 0 with 100 sheep and 50 wolves, a row per step to 200"

# ---- byte for byte across backends and thread counts -------------------------
big="--set wolf_sheep.width=60 --set wolf_sheep.height=50 --set wolf_sheep.initial_sheep=600 --set wolf_sheep.initial_wolves=60 --set wolf_sheep.sheep_reproduce=0.1 --set simulation.steps=120"
# shellcheck disable=SC2086
run ref openmp 1 $big
ok $? "a 60 x 50 grid, 600 sheep (reproducing at 0.1), 60 wolves, 120 steps on openmp, 1 thread"
for bt in openmp:2 template:1 template:2 opencl:1; do
	b=${bt%:*} th=${bt#*:}
	if ! available "$b"; then
		skip "$b, $th threads: counts.csv as openmp's" "$b not built or not available"
		continue
	fi
	# shellcheck disable=SC2086
	run "$b-$th" "$b" "$th" $big
	rc=$?
	[ "$rc" -eq 0 ] && cmp -s "$tmp/ref/counts.csv" "$tmp/$b-$th/counts.csv" &&
		cmp -s "$tmp/ref/summary.txt" "$tmp/$b-$th/summary.txt"
	ok $? "$b, $th threads: counts.csv and summary.txt byte for byte openmp's, 1 thread (exit $rc)"
	[ "$rc" -eq 0 ] || diag "$tmp/$b-$th.out"
done
awk -F, 'NR > 1 && $2 > 0 && $3 > 0 { n++ } END { exit !(n == 121) }' "$tmp/ref/counts.csv"
ok $? "  ...where sheep and wolves live together for all 120 steps"

# ---- capacity ---------------------------------------------------------------
run over openmp 1 --set wolf_sheep.wolf_capacity=60
rc=$?
[ "$rc" -ne 0 ] && grep -q "population 'wolves' ran out of capacity at step [0-9]* (seen after step [0-9]*): its births needed [0-9]* slots, \[wolf_sheep\] wolf_capacity = 60; raise \[wolf_sheep\] wolf_capacity to at least [0-9]*" "$tmp/over.out"
ok $? "wolf_capacity = 60: an error naming the wolves, the step, the slots needed and the key"
diag "$tmp/over.out"

# ---- outputs collected every 128 steps ------------------------------------------
# The model's collect() serves 128 output points (its rows are appended on
# the device): at [output] every = 1 the core runs 128 steps as one chunk
# and waits on the device about once per chunk, not once a step. Chunks
# cut short by checkpoints every 7 steps give the same rows.
run chunk openmp 1 --set simulation.steps=300 --stats
waits=$(sed -n 's/.* steps, [0-9]* syncs, \([0-9]*\) fence waits.*/\1/p' "$tmp/chunk.out")
[ -n "$waits" ] && [ "$waits" -le 12 ] &&
	[ "$(tail -n +2 "$tmp/chunk/counts.csv" | wc -l)" -eq 301 ]
ok $? "300 steps, a row each: ${waits:-?} waits on the device (at most 12: a chunk of 128 steps per collect)"
run chunk7 openmp 1 --set simulation.steps=300 --set checkpoint.every=7
cmp -s "$tmp/chunk/counts.csv" "$tmp/chunk7/counts.csv"
ok $? "the same 300 steps in chunks of at most 7 (checkpoints every 7 steps): counts.csv byte for byte"

# ---- the memory estimate --------------------------------------------------------
# The estimate (weft check) counts every device byte a run allocates, the
# populations at their capacity: equal to the run's peak on openmp.
big2="--set wolf_sheep.width=200 --set wolf_sheep.height=200 --set wolf_sheep.initial_sheep=10000 --set wolf_sheep.initial_wolves=5000 --set simulation.steps=5"
# shellcheck disable=SC2086
WEFT_PLUGIN_PATH="$WEFT_BUILDDIR/plugins/openmp/.libs" "$weft" check "$ex" $big2 > "$tmp/check.out" 2>&1
est=$(sed -n 's/.* of device memory (\([0-9]*\) bytes).*/\1/p' "$tmp/check.out" | head -1)
# shellcheck disable=SC2086
run stats openmp 1 $big2 --stats
peak=$(sed -n 's/.*allocations .*peak \([0-9]*\) bytes.*/\1/p' "$tmp/stats.out")
[ -n "$est" ] && [ "$est" = "$peak" ]
ok $? "the memory estimate (${est:-?} device bytes, capacities 1000000 and 500000) is the run's peak (${peak:-?})"

# ---- batched replicas ----------------------------------------------------------
for b in 1 3; do
	run "batch$b" openmp 1 --set ensemble.runs=6 --set ensemble.batch=$b ||
		diag "$tmp/batch$b.out"
done
test -f "$tmp/batch3/runs/base/6/counts.csv" && diff -r "$tmp/batch1/runs" "$tmp/batch3/runs" > /dev/null
ok $? "6 seeds batched 3 at a time write every run's files as runs alone"

# ---- weft conform -------------------------------------------------------------
P=""
for b in openmp template opencl; do
	P="$P${P:+:}$WEFT_BUILDDIR/plugins/$b/.libs"
done
WEFT_PLUGIN_PATH="$P" "$weft" conform --model=wolf_sheep > "$tmp/conform.out" 2>&1
ok $? "weft conform --model=wolf_sheep on every backend available"
grep '^not ok' "$tmp/conform.out" | head -5 | diag

# ---- configuration errors and help ------------------------------------------
"$weft" check "$ex" --set wolf_sheep.width=65536 --set wolf_sheep.height=65536 \
	> "$tmp/cells.out" 2>&1
rc=$?
[ "$rc" -ne 0 ] && grep -q "\[wolf_sheep\] width = 65536 (--set wolf_sheep.width) and height = 65536 (--set wolf_sheep.height) make 4294967296 cells, more than [0-9]*" "$tmp/cells.out"
r=$?
ok $r "a 65536 x 65536 grid: refused, naming width and height and where each was set (exit $rc)"
[ "$r" -eq 0 ] || diag "$tmp/cells.out"
"$weft" config-reference > "$tmp/ref.md" 2>&1 &&
	grep "^| \`sheep_capacity\`" "$tmp/ref.md" | grep -q "the sheep alive at the start of a step plus the lambs born in it (births come before that step's deaths)" &&
	grep "^| \`wolf_capacity\`" "$tmp/ref.md" | grep -q "the wolves alive at the start of a step plus the cubs born in it"
ok $? "the capacity keys' help: the animals alive at a step's start plus those born in it"

# ---- Mesa's band --------------------------------------------------------------
sh "$WEFT_SRCDIR/bench/wolf-sheep-compare.sh" --band-only --out "$tmp/compare" \
	"$WEFT_BUILDDIR" > "$tmp/compare.out" 2>&1
r=$?
ok $r "the mean of 20 seeds lies inside Mesa 3.5's seed-to-seed band and near Mesa's mean (bench/wolf-sheep-compare.sh --band-only)"
tail -5 "$tmp/compare.out" | diag
# A biased model: wolves gaining 18 from a sheep instead of 20 stay inside
# the band but drift from Mesa's mean; the check must fail on the wolves.
files=
for i in $(seq 1 20); do
	run "bias$i" openmp 1 --set simulation.seed="$i" --set simulation.steps=200 \
		--set output.every=1 --set output.csv=true \
		--set wolf_sheep.wolf_gain_from_food=18 || diag "$tmp/bias$i.out"
	files="$files --counts $tmp/bias$i/counts.csv"
done
# shellcheck disable=SC2086
sh "$WEFT_SRCDIR/bench/wolf-sheep-compare.sh" --band-only --out "$tmp/bias" \
	$files "$WEFT_BUILDDIR" > "$tmp/bias.out" 2>&1
rc=$?
[ "$rc" -eq 1 ] && grep -q "^wolves: inside the band on 201 of 201 steps .*, within 3 standard errors of Mesa's mean on [0-9]* (.*, need 90 %): FAIL$" "$tmp/bias.out" &&
	grep -q "^sheep: .*: pass$" "$tmp/bias.out" && grep -q '^FAIL$' "$tmp/bias.out"
r=$?
ok $r "wolf_gain_from_food = 18 (inside the band, biased): the check fails on the wolves' 3 standard errors (exit $rc)"
[ "$r" -eq 0 ] || tail -6 "$tmp/bias.out" | diag

tap_done
