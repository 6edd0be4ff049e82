#!/bin/sh
# tests/models/test-patches-measles.sh - the patch model's two keys for
# laser-measles' agent-based model (models/patches/patches.md, Against
# laser-measles): initial_exposed and force_after_progression.
# - initial_exposed: day 0 has the exposed, each becoming infectious after
#   its exposed duration;
# - force_after_progression, with a force that infects every susceptible
#   agent (beta 1000 among 20 agents) or none: the susceptible are
#   infected on the day an exposed agent becomes infectious, not the day
#   after; no one is infected on the day the only infectious agent
#   recovers (its timer ending on day 0, set by the host, or on a later
#   day, counted by the kernel), though everyone is without the key;
# - with the network, births and deaths: the same bytes on 1 and 2
#   threads, on opencl, and after a checkpoint at an odd day resumed;
# - refused with importation, and more exposed and infected than agents,
#   naming the keys;
# - laser-measles' ABM tutorial example (two patches, 20 exposed, 120
#   days): the mean of 20 seeds lies inside laser-measles' seed band
#   (bench/laser-measles-compare.sh --band-only, the stored band
#   tests/data/patches-measles-band.csv; sh and awk, no laser-measles),
#   while a biased model (beta 0.9 for 1) fails that check;
# - laser-measles' satellites (ten patches mixed through its own gravity
#   matrix, network_file and mixing_form = infectious; 80 of weft's seeds
#   against its 1000): the day the epidemic arrives in each patch and
#   the share of all the patch-state-days inside its band, while the
#   force's form of mixing fails;
# - one patch with its VitalDynamicsProcess (cbr, cdr, cdr_mode =
#   measles; 365 days), while cbr 25 for 20 fails; one patch with its
#   SIACalendarProcess (sia, 90 % on day 25), while a campaign a day late
#   fails.
set -u
. "$WEFT_SRCDIR/tests/models/patches-tests.sh"
patches_setup measles

# col DIR DAY COLUMN: counts.csv's COLUMN (2 S, 3 E, 4 I, 5 R) on DAY.
col() {
	awk -F, -v d="$2" -v c="$3" '$1 == d { print $c }' "$1/counts.csv"
}

# ---- initial_exposed -------------------------------------------------------------
run e0 1 --set patches.populations=1000 --set patches.initial_infected=0 \
	--set patches.initial_exposed=5 --set patches.beta=0 \
	--set patches.exposed_duration="constant(3)" \
	--set patches.infectious_duration="constant(4)" --set simulation.steps=10
rc=$?
[ "$rc" -eq 0 ] && [ "$(sed -n 2p "$tmp/e0/counts.csv")" = "0,995,5,0,0" ] &&
	[ "$(col "$tmp/e0" 2 3)" = 5 ] && [ "$(col "$tmp/e0" 3 4)" = 5 ] &&
	[ "$(col "$tmp/e0" 7 5)" = 5 ]
ok $? "initial_exposed = 5, exposed 3 days, infectious 4: day 0 has 5 exposed, infectious on day 3, recovered on day 7 (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/e0.out"
diag "$tmp/e0/counts.csv" | head -10

# ---- force_after_progression -----------------------------------------------------
# One patch of 20, a force of 50 per infectious agent (a chance of
# infection of 1) or 0.
all="--set patches.populations=20 --set patches.beta=1000 --set simulation.steps=8 --set patches.infectious_duration=constant(5)"
# shellcheck disable=SC2086
run onset 1 $all --set patches.initial_infected=0 --set patches.initial_exposed=1 \
	--set patches.exposed_duration="constant(3)" --set patches.force_after_progression=true
rc=$?
# shellcheck disable=SC2086
run onset0 1 $all --set patches.initial_infected=0 --set patches.initial_exposed=1 \
	--set patches.exposed_duration="constant(3)"
[ "$rc" -eq 0 ] && [ "$(col "$tmp/onset" 2 2)" = 19 ] && [ "$(col "$tmp/onset" 3 2)" = 0 ] &&
	[ "$(col "$tmp/onset0" 3 2)" = 19 ] && [ "$(col "$tmp/onset0" 4 2)" = 0 ]
ok $? "an exposed agent infectious on day 2: everyone infected on day 2 (row 3) with force_after_progression, on day 3 without (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/onset.out"

# shellcheck disable=SC2086
run rec0 1 $all --set patches.initial_infected=1 \
	--set patches.infectious_duration="constant(1)" --set patches.force_after_progression=true
rc=$?
# shellcheck disable=SC2086
run rec00 1 $all --set patches.initial_infected=1 \
	--set patches.infectious_duration="constant(1)"
[ "$rc" -eq 0 ] && [ "$(col "$tmp/rec0" 8 2)" = 19 ] && [ "$(col "$tmp/rec00" 1 2)" = 0 ]
ok $? "the only infectious agent recovering on day 0 (the host's count): no one infected with force_after_progression, everyone without (exit $rc)"

# Seasonality 0 on even days: the infectious agent (2 days) can infect on
# day 1 only, the day it recovers.
# shellcheck disable=SC2086
run rec1 1 $all --set patches.initial_infected=1 --set patches.seasonality=0,1 \
	--set patches.infectious_duration="constant(2)" --set patches.force_after_progression=true
rc=$?
# shellcheck disable=SC2086
run rec10 1 $all --set patches.initial_infected=1 --set patches.seasonality=0,1 \
	--set patches.infectious_duration="constant(2)"
[ "$rc" -eq 0 ] && [ "$(col "$tmp/rec1" 8 2)" = 19 ] && [ "$(col "$tmp/rec10" 2 2)" = 0 ]
ok $? "the only infectious agent recovering on day 1 (the kernel's count): no one infected with force_after_progression, everyone without (exit $rc)"

# ---- byte for byte across threads, backends and a checkpoint ------------------------
three="--set patches.populations=30000,20000,15000 --set patches.latitudes=47.6,47.2,46.9 --set patches.longitudes=-122.3,-122.4,-121.9 --set patches.initial_infected=0 --set patches.initial_exposed=3,0,1 --set patches.beta=0.5 --set patches.force_after_progression=true --set patches.cbr=40 --set patches.cdr=20 --set simulation.steps=120"
# shellcheck disable=SC2086
run ref 1 $three
rc=$?
[ "$rc" -eq 0 ] && awk -F, 'END { exit !($5 > 10000) }' "$tmp/ref/counts.csv"
ok $? "three patches, the network, births and deaths: an epidemic (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/ref.out"
# shellcheck disable=SC2086
run th2 2 $three
rc=$?
[ "$rc" -eq 0 ] && cmp -s "$tmp/ref/patches.csv" "$tmp/th2/patches.csv"
ok $? "2 threads: patches.csv byte for byte 1 thread's (exit $rc)"
if available opencl; then
	# shellcheck disable=SC2086
	(BACKEND=opencl run ocl 1 $three)
	rc=$?
	[ "$rc" -eq 0 ] && cmp -s "$tmp/ref/patches.csv" "$tmp/ocl/patches.csv"
	ok $? "opencl: patches.csv byte for byte openmp's (exit $rc)"
	[ "$rc" -eq 0 ] || diag "$tmp/ocl.out"
else
	skip "opencl: the same bytes" "opencl not built or not available"
fi
# shellcheck disable=SC2086
run ck 2 $three --set checkpoint.every=75 --set checkpoint.directory="$tmp/ckdir"
# shellcheck disable=SC2086
run res 1 $three --set checkpoint.directory="$tmp/ckdir2" --resume "$tmp/ckdir"
rc=$?
[ "$rc" -eq 0 ] && cmp -s "$tmp/ref/patches.csv" "$tmp/res/patches.csv" &&
	grep -q "resumed.*at step 75" "$tmp/res.out"
ok $? "a checkpoint at day 75 resumed: patches.csv byte for byte the uninterrupted run's (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/res.out"

# ---- configuration errors ---------------------------------------------------
check() {
	"$weft" check "$ex" "$@" > "$tmp/check.out" 2>&1
}
check --set patches.populations=10 --set patches.initial_infected=4 --set patches.initial_exposed=7
[ $? -ne 0 ] && grep -q "\[patches\] initial_exposed (--set patches.initial_exposed): patch 0 has 7 exposed and 4 infected among 10 agents" "$tmp/check.out"
ok $? "more exposed and infected than agents: refused, naming the key"
diag "$tmp/check.out"
check --set patches.force_after_progression=true --set patches.importation_period=7
[ $? -ne 0 ] && grep -q "\[patches\] force_after_progression (--set patches.force_after_progression): not with importation_period (--set patches.importation_period)" "$tmp/check.out"
ok $? "force_after_progression with importation: refused, naming both keys"
diag "$tmp/check.out"

# ---- laser-measles' band ---------------------------------------------------------
mc="$WEFT_SRCDIR/bench/laser-measles-compare.sh"
sh "$mc" --band-only "$WEFT_BUILDDIR" > "$tmp/band.out" 2>&1
r=$?
[ "$r" -eq 0 ] && grep -q "^all: [0-9]* of 968 patch-state-days .*PASS" "$tmp/band.out"
ok $? "laser-measles' example: the mean of 20 seeds lies inside its seed band on at least 95 % of the days for S, E, I and R in both patches (exit $r)"
diag "$tmp/band.out"
sh "$mc" --band-only --seeds 10 --set patches.beta=0.9 "$WEFT_BUILDDIR" > "$tmp/biased-band.out" 2>&1
r=$?
[ "$r" -eq 1 ]
ok $? "a biased model (beta = 0.9 for laser-measles' 1; 10 seeds) fails that check (exit $r)"
tail -1 "$tmp/biased-band.out" | diag

# band NAME CHECK [OPTIONS]: bench/laser-measles-compare.sh --band-only
# with OPTIONS into $tmp/NAME.out, PASS expected (CHECK pass) or FAIL.
band() {
	name=$1 want=$2
	shift 2
	sh "$mc" --band-only "$@" "$WEFT_BUILDDIR" > "$tmp/$name.out" 2>&1
	r=$?
	if [ "$want" = pass ]; then
		[ "$r" -eq 0 ]
	else
		[ "$r" -eq 1 ]
	fi
}
band sat pass --scenario satellites --seeds 1000 --weft-seeds 80
ok $? "laser-measles' satellites, ten patches through its own matrix: the epidemic's arrival in every patch within |z| <= 4 of its 1000 seeds' and 95 % of the patch-state-days inside its band (exit $r)"
grep "arrival\|^all" "$tmp/sat.out" | diag
band satf fail --scenario satellites --seeds 1000 --weft-seeds 80 \
	--set patches.mixing_form=force
ok $? "the same with mixing_form = force (the forces flow, not the infectious) fails (exit $r)"
tail -2 "$tmp/satf.out" | diag
band vital pass --scenario single_patch --vital 20,8
ok $? "one patch with laser-measles' births and deaths (cbr 20, cdr 8, 365 days): weft's mean inside its band on 95 % of the days for S, E, I and R (exit $r)"
tail -1 "$tmp/vital.out" | diag
band vitalb fail --scenario single_patch --vital 20,8 --set patches.cbr=25
ok $? "the same with cbr 25 for its 20 fails (exit $r)"
tail -1 "$tmp/vitalb.out" | diag
band sia pass --scenario single_patch --sia 25,0.9
ok $? "one patch with laser-measles' campaign (90 % of the susceptible on day 25): weft's mean inside its band (exit $r)"
tail -1 "$tmp/sia.out" | diag
band siab fail --scenario single_patch --sia 25,0.9 --set "patches.sia=day=26 coverage=0.9"
ok $? "the same campaign a day late fails (exit $r)"
tail -1 "$tmp/siab.out" | diag

tap_done
