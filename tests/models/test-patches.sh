#!/bin/sh
# tests/models/test-patches.sh - the patch model (models/patches), LASER's
# SEIR: examples/patches.ini gives the golden counts.csv and summary.txt
# (tests/data/patches-*); counts add up to the population every day;
# three patches mixed through the gravity network give counts.csv and
# patches.csv byte for byte the same on openmp with 1 and 2 threads, on
# template and on opencl; the network carries the epidemic to patches
# without infected agents, and without it (gravity_k = 0) nothing reaches
# them; `weft conform --model=patches` passes; the mean of 20 seeds lies
# inside LASER's seed band (bench/laser-compare.sh --band-only, the stored
# band tests/data/patches-laser-band.csv), while a biased model (beta
# 0.22 for 0.198) fails that check; configuration errors name their keys.
set -u
weft="$WEFT_BUILDDIR/cli/weft"
ex="$WEFT_SRCDIR/examples/patches.ini"
data="$WEFT_SRCDIR/tests/data"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-patches-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT
WEFT_MODEL_PATH="$WEFT_BUILDDIR/models/patches/.libs"
export WEFT_MODEL_PATH

# run LABEL BACKEND THREADS [--set ...]: examples/patches.ini into $tmp/LABEL.
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
	[ "$rc" -eq 0 ] && cmp -s "$data/patches-$f" "$tmp/golden/$f"
	ok $? "examples/patches.ini: $f is byte for byte tests/data/patches-$f (exit $rc)"
	[ -f "$tmp/golden/$f" ] && diff "$data/patches-$f" "$tmp/golden/$f" | head -10 | diag
done
[ "$rc" -eq 0 ] || diag "$tmp/golden.out"
[ "$(head -1 "$tmp/golden/counts.csv")" = "day,S,E,I,R" ] &&
	[ "$(sed -n 2p "$tmp/golden/counts.csv")" = "0,99990,0,10,0" ] &&
	[ "$(wc -l < "$tmp/golden/counts.csv")" -eq 367 ] &&
	awk -F, 'NR > 1 && $2 + $3 + $4 + $5 != 100000 { exit 1 }' "$tmp/golden/counts.csv"
ok $? "counts.csv: the header, day 0 with 10 infectious, a row per day to 365, S + E + I + R = 100000 on every day"
[ "$(head -1 "$tmp/golden/patches.csv")" = "day,patch,S,E,I,R" ] &&
	[ "$(sed 1d "$tmp/golden/patches.csv" | cut -d, -f1,3-)" = "$(sed 1d "$tmp/golden/counts.csv")" ]
ok $? "patches.csv: one patch, its rows counts.csv's"

# ---- byte for byte across backends and thread counts -------------------------
three="--set patches.populations=30000,20000,15000 --set patches.latitudes=47.6,47.2,46.9 --set patches.longitudes=-122.3,-122.4,-121.9 --set patches.initial_infected=20,0,0 --set patches.beta=0.4 --set simulation.steps=120"
# shellcheck disable=SC2086
run ref openmp 1 $three
ok $? "three patches with the gravity network, infected only in patch 0, on openmp, 1 thread"
for bt in openmp:2 template:1 opencl:1; do
	b=${bt%:*} th=${bt#*:}
	if ! available "$b"; then
		skip "$b, $th threads: outputs as openmp's" "$b not built or not available"
		continue
	fi
	# shellcheck disable=SC2086
	run "$b-$th" "$b" "$th" $three
	rc=$?
	[ "$rc" -eq 0 ] && cmp -s "$tmp/ref/counts.csv" "$tmp/$b-$th/counts.csv" &&
		cmp -s "$tmp/ref/patches.csv" "$tmp/$b-$th/patches.csv" &&
		cmp -s "$tmp/ref/summary.txt" "$tmp/$b-$th/summary.txt"
	ok $? "$b, $th threads: counts.csv, patches.csv and summary.txt byte for byte openmp's, 1 thread (exit $rc)"
	[ "$rc" -eq 0 ] || diag "$tmp/$b-$th.out"
done

# ---- the network ------------------------------------------------------------------
# Patches 1 and 2 start without infected agents: with the network they
# are infected, without it (gravity_k = 0) never.
awk -F, '$1 == 120 && $2 > 0 && $6 > 1000 { n++ } END { exit !(n == 2) }' "$tmp/ref/patches.csv"
ok $? "with the gravity network patches 1 and 2 have more than 1000 recovered by day 120"
# shellcheck disable=SC2086
run nonet openmp 2 $three --set patches.gravity_k=0
awk -F, 'NR > 1 && $2 > 0 && $4 + $5 + $6 > 0 { exit 1 }' "$tmp/nonet/patches.csv" &&
	awk -F, '$1 == 120 && $2 == 0 && $6 > 1000 { f = 1 } END { exit !f }' "$tmp/nonet/patches.csv"
ok $? "with gravity_k = 0 patch 0's epidemic stays there"

# ---- patches from a CSV file ---------------------------------------------------
# The same three patches from patch_file (a path relative to the INI file,
# run from another directory) give patches.csv byte for byte.
mkdir -p "$tmp/pf"
printf 'id,population,lat,lon,initial_infected\n0,30000,47.6,-122.3,20\n1,20000,47.2,-122.4,0\n2,15000,46.9,-121.9,0\n' > "$tmp/pf/p.csv"
sed -e 's|^populations = .*|patch_file = p.csv|' -e '/^initial_infected = /d' "$ex" > "$tmp/pf/pf.ini"
(cd / && WEFT_PLUGIN_PATH="$WEFT_BUILDDIR/plugins/openmp/.libs" "$weft" run --quiet \
	"$tmp/pf/pf.ini" --set backend.name=openmp --set backend.threads=1 \
	--set output.plot=none --set output.directory="$tmp/pfout" \
	--set patches.beta=0.4 --set simulation.steps=120) > "$tmp/pf.out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && cmp -s "$tmp/ref/patches.csv" "$tmp/pfout/patches.csv"
ok $? "patch_file = p.csv (id, population, lat, lon, initial_infected; relative to the INI file): patches.csv as with the lists (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/pf.out"
printf 'id,pop\n0,100\n' > "$tmp/pf/nopop.csv"
WEFT_PLUGIN_PATH="$WEFT_BUILDDIR/plugins/openmp/.libs" "$weft" check "$tmp/pf/pf.ini" \
	--set patches.patch_file="$tmp/pf/nopop.csv" > "$tmp/nopop.out" 2>&1
[ $? -ne 0 ] && grep -q "\[patches\] patch_file (--set patches.patch_file): $tmp/pf/nopop.csv, line 1: the header has no column population" "$tmp/nopop.out"
ok $? "a patch file without a population column: refused, naming the key, the file and the line"
diag "$tmp/nopop.out"
printf 'id,population\n0,100\n2,100\n' > "$tmp/pf/ids.csv"
WEFT_PLUGIN_PATH="$WEFT_BUILDDIR/plugins/openmp/.libs" "$weft" check "$tmp/pf/pf.ini" \
	--set patches.patch_file="$tmp/pf/ids.csv" --set patches.gravity_k=0 > "$tmp/ids.out" 2>&1
[ $? -ne 0 ] && grep -q "ids.csv, line 3: ids must be 0, 1, 2, ... in order" "$tmp/ids.out"
ok $? "a patch file with ids out of order: refused, naming the line"
WEFT_PLUGIN_PATH="$WEFT_BUILDDIR/plugins/openmp/.libs" "$weft" check "$tmp/pf/pf.ini" \
	--set patches.patch_file="$tmp/pf/none.csv" > "$tmp/none.out" 2>&1
[ $? -ne 0 ] && grep -q "\[patches\] patch_file (--set patches.patch_file): cannot open $tmp/pf/none.csv: No such file or directory" "$tmp/none.out"
ok $? "a patch file that does not exist: refused, naming the key and the path"

# ---- weft conform -------------------------------------------------------------
P=""
for b in openmp template opencl; do
	P="$P${P:+:}$WEFT_BUILDDIR/plugins/$b/.libs"
done
WEFT_PLUGIN_PATH="$P" "$weft" conform --model=patches > "$tmp/conform.out" 2>&1
ok $? "weft conform --model=patches on every backend available"
grep '^not ok' "$tmp/conform.out" | head -5 | diag

# ---- LASER's band ------------------------------------------------------------
# 20 seeds of the example, their mean against the 5-95 % band of LASER's
# 20 seeds (bench/laser-compare.sh --band-only: sh and awk, no LASER).
lc="$WEFT_SRCDIR/bench/laser-compare.sh"
WEFT_PLUGIN_PATH="$WEFT_BUILDDIR/plugins/openmp/.libs" "$weft" run --quiet "$ex" \
	--set backend.name=openmp --set output.plot=none --set ensemble.runs=20 \
	--set output.directory="$tmp/seeds" > "$tmp/seeds.out" 2>&1
set -- $(find "$tmp/seeds" -name counts.csv -path '*/runs/*' | sort | sed 's/^/--counts /')
sh "$lc" --band-only "$@" "$WEFT_BUILDDIR" > "$tmp/band.out" 2>&1
r=$?
[ "$r" -eq 0 ] && [ $# -eq 40 ]
ok $? "the mean of 20 seeds lies inside LASER's seed band on at least 95 % of the days for S, E, I and R (exit $r)"
diag "$tmp/band.out"
WEFT_PLUGIN_PATH="$WEFT_BUILDDIR/plugins/openmp/.libs" "$weft" run --quiet "$ex" \
	--set backend.name=openmp --set output.plot=none --set ensemble.runs=10 \
	--set patches.beta=0.22 --set output.directory="$tmp/biased" > "$tmp/biased.out" 2>&1
set -- $(find "$tmp/biased" -name counts.csv -path '*/runs/*' | sort | sed 's/^/--counts /')
sh "$lc" --band-only "$@" "$WEFT_BUILDDIR" > "$tmp/biased-band.out" 2>&1
r=$?
[ "$r" -eq 1 ]
ok $? "a biased model (beta = 0.22 for LASER's 0.198; 10 seeds) fails that check (exit $r)"
tail -1 "$tmp/biased-band.out" | diag

# ---- births and deaths ------------------------------------------------------
# LASER's BirthsByCBR and MortalityByCDR at cbr 100, cdr 50 (per 1000 per
# year), 730 days: byte for byte across backends, within capacity, and the
# mean of 20 seeds inside LASER's band of 20 seeds
# (tests/data/patches-laser-band-vitals.csv), a biased one (cdr 35) not.
vit="--set patches.cbr=100 --set patches.cdr=50 --set simulation.steps=730"
# shellcheck disable=SC2086
run vit openmp 1 $vit
rc=$?
awk -F, 'NR > 1 { n = $2 + $3 + $4 + $5 } END { exit !(n > 105000 && n < 115000) }' "$tmp/vit/counts.csv" &&
	grep -q "^births and deaths: [0-9]* born, [0-9]* alive at the end, capacity 1[0-9]\{5\}$" "$tmp/vit/summary.txt"
ok $? "cbr 100, cdr 50, 730 days: the living grow from 100000 to 105000-115000 (LASER: 109000) (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/vit.out"
for bt in openmp:2 template:1 opencl:1; do
	b=${bt%:*} th=${bt#*:}
	if ! available "$b"; then
		skip "$b, $th threads: births and deaths as openmp's" "$b not built or not available"
		continue
	fi
	# shellcheck disable=SC2086
	run "vit-$b-$th" "$b" "$th" $vit
	rc=$?
	[ "$rc" -eq 0 ] && cmp -s "$tmp/vit/patches.csv" "$tmp/vit-$b-$th/patches.csv" &&
		cmp -s "$tmp/vit/summary.txt" "$tmp/vit-$b-$th/summary.txt"
	ok $? "$b, $th threads: with births and deaths patches.csv and summary.txt byte for byte openmp's, 1 thread (exit $rc)"
done
# shellcheck disable=SC2086
run over openmp 2 $vit --set patches.capacity=100500
rc=$?
[ "$rc" -ne 0 ] && grep -q "the agents ran out of capacity: [0-9]* births found no slot among \[patches\] capacity = 100500 (--set patches.capacity); raise it to at least [0-9]*" "$tmp/over.out"
ok $? "capacity = 100500: an error naming the births without a slot and the key"
diag "$tmp/over.out"
WEFT_PLUGIN_PATH="$WEFT_BUILDDIR/plugins/openmp/.libs" "$weft" run --quiet "$ex" $vit \
	--set backend.name=openmp --set output.plot=none --set ensemble.runs=20 \
	--set output.directory="$tmp/vseeds" > "$tmp/vseeds.out" 2>&1
set -- $(find "$tmp/vseeds" -name counts.csv -path '*/runs/*' | sort | sed 's/^/--counts /')
sh "$lc" --band-only --band "$data/patches-laser-band-vitals.csv" "$@" "$WEFT_BUILDDIR" > "$tmp/vband.out" 2>&1
r=$?
[ "$r" -eq 0 ] && [ $# -eq 40 ]
ok $? "with births and deaths the mean of 20 seeds lies inside LASER's seed band on at least 95 % of the days (exit $r)"
diag "$tmp/vband.out"
# shellcheck disable=SC2086
WEFT_PLUGIN_PATH="$WEFT_BUILDDIR/plugins/openmp/.libs" "$weft" run --quiet "$ex" $vit \
	--set patches.cdr=35 --set backend.name=openmp --set output.plot=none \
	--set ensemble.runs=10 --set output.directory="$tmp/vbiased" > "$tmp/vbiased.out" 2>&1
set -- $(find "$tmp/vbiased" -name counts.csv -path '*/runs/*' | sort | sed 's/^/--counts /')
sh "$lc" --band-only --band "$data/patches-laser-band-vitals.csv" "$@" "$WEFT_BUILDDIR" > "$tmp/vbiased-band.out" 2>&1
r=$?
[ "$r" -eq 1 ]
ok $? "a biased one (cdr 35 for 50; 10 seeds) fails that check (exit $r)"
tail -1 "$tmp/vbiased-band.out" | diag

# ---- configuration errors ---------------------------------------------------
check() {
	WEFT_PLUGIN_PATH="$WEFT_BUILDDIR/plugins/openmp/.libs" "$weft" check "$ex" "$@" > "$tmp/check.out" 2>&1
}
check --set patches.exposed_duration='gama(4.5, 1)'
[ $? -ne 0 ] && grep -q "\[patches\] exposed_duration = gama(4.5, 1) (--set patches.exposed_duration): expected gamma(shape, scale), normal(loc, scale)" "$tmp/check.out"
ok $? "an unknown distribution: refused, naming the key and the distributions known"
diag "$tmp/check.out"
check --set patches.infectious_duration='normal(7, 0)'
[ $? -ne 0 ] && grep -q "\[patches\] infectious_duration = normal(7, 0) (--set patches.infectious_duration): a scale, shape or width must be positive" "$tmp/check.out"
ok $? "normal(7, 0): refused, naming the key"
check --set patches.populations=1000,2000
[ $? -ne 0 ] && grep -q "\[patches\] latitudes (.*) and longitudes (.*): 0 and 0 numbers for 2 patches; the gravity network needs one of each per patch (or gravity_k = 0)" "$tmp/check.out"
ok $? "two patches without coordinates: refused, naming latitudes, longitudes and gravity_k"
diag "$tmp/check.out"
check --set patches.populations=1000,2000 --set patches.gravity_k=0 --set patches.initial_infected=5,3,1
[ $? -ne 0 ] && grep -q "\[patches\] initial_infected (--set patches.initial_infected): 3 numbers for 2 patches; give one, or one per patch" "$tmp/check.out"
ok $? "three initial_infected for two patches: refused, naming the key"
check --set patches.populations=5 --set patches.initial_infected=6
[ $? -ne 0 ] && grep -q "\[patches\] initial_infected (--set patches.initial_infected): patch 0 has 6 infected among 5 agents" "$tmp/check.out"
ok $? "more infected than agents: refused, naming the patch"
check --set patches.populations='100, x'
[ $? -ne 0 ] && grep -q "\[patches\] populations (--set patches.populations): item 2 is not a number" "$tmp/check.out"
ok $? "a population that is not a number: refused, naming the item"

# ---- every date kept: no transmission, long durations -------------------------
# Without transmission (beta 0) the agents at day 0 move on exactly when
# their durations say: exposed for 35 days, infectious for 40, in three
# patches with births (newborn blocks of several patches). Each date is
# more than 31 days ahead, past the blocks' masks' last bit, so that a
# block whose pass were skipped on the wrong day would leave its agents
# exposed or infectious for ever; rows of day 35, 40 and 75 and the last.
# shellcheck disable=SC2086
run dates openmp 2 --set patches.populations=3000,2000,1000 \
	--set patches.latitudes=47.6,47.2,46.9 --set patches.longitudes=-122.3,-122.4,-121.9 \
	--set patches.beta=0 --set patches.initial_infected=100,50,20 \
	--set patches.initial_exposed=30,20,10 --set patches.cbr=40 \
	--set 'patches.exposed_duration=constant(35)' \
	--set 'patches.infectious_duration=constant(40)' --set simulation.steps=120
rc=$?
[ "$rc" -eq 0 ] && awk -F, 'NR > 1 { E[$1] = $3; I[$1] = $4; R[$1] = $5 }
	END { exit !(E[34] == 60 && I[34] == 170 && E[35] == 0 && I[35] == 230 &&
		I[39] == 230 && I[40] == 60 && R[40] == 170 && I[74] == 60 &&
		I[75] == 0 && R[75] == 230 && E[120] == 0 && I[120] == 0 && R[120] == 230) }' \
	"$tmp/dates/counts.csv"
ok $? "beta 0, exposed 35 days, infectious 40, births: onsets on day 35, recoveries on days 40 and 75, none left (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/dates.out"

tap_done
