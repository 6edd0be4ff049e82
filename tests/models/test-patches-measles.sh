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
# - with LASER's importation too (the imported count their recoveries);
#   more exposed and infected than agents refused, naming the key;
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
#   fails;
# - constant_population (laser-measles' ConstantPopProcess): the living
#   as many every day in every patch, in both diseases, the births those
#   of cbr's daily rate, newborns of age 0 in ages.csv; the same bytes on
#   1 and 2 threads, OpenCL and after a checkpoint; refused without cbr,
#   with cdr or death_rates; the tutorial's two patches with births
#   replacing deaths (cbr 40, 365 days) inside laser-measles' band, while
#   cbr 30 fails it;
# - importation_pressure (laser-measles' ImportationPressureProcess):
#   without transmission, the imports of its rate (within 8 %), only in
#   the patches given and the days of the window; with births and
#   force_after_progression the same bytes on 1 and 2 threads, OpenCL and
#   after a checkpoint; refused with importation_period, two diseases, a
#   list not one per patch, a negative rate; the tutorial's two patches
#   with no agent seeded, importation starting the epidemic (rate 10,
#   365 days), inside laser-measles' band, while rate 7 fails it.
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
# Imports count their onsets and recoveries for force_after_progression
# (made after the day's pass, by the tally). LASER's: one agent of 20
# made infectious on day 2 for a day recovers on day 3, whose force is
# then 0: no one else is ever infected (without the key, day 3's force
# has it and everyone is).
# shellcheck disable=SC2086
run imprec 1 $all --set patches.initial_infected=0 --set patches.infectious_duration="constant(1)" \
	--set patches.importation_period=1000 --set patches.importation_start=2 \
	--set patches.force_after_progression=true
rc=$?
# shellcheck disable=SC2086
run imprec0 1 $all --set patches.initial_infected=0 --set patches.infectious_duration="constant(1)" \
	--set patches.importation_period=1000 --set patches.importation_start=2
[ "$rc" -eq 0 ] && [ "$(col "$tmp/imprec" 8 2)" = 19 ] && [ "$(col "$tmp/imprec0" 8 2)" = 0 ]
ok $? "an agent imported infectious for a day on day 2: no one infected with force_after_progression, everyone without (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/imprec.out"
# importation_pressure's: about 5 of 1000 exposed on day 2 for a day
# become infectious on day 3, whose force (beta 1000) then exposes
# nearly everyone (row 4); without their onsets counted no one would be
# until day 4.
run imponset 1 --set patches.populations=1000 --set patches.initial_infected=0 \
	--set patches.beta=1000 --set patches.exposed_duration="constant(1)" \
	--set patches.infectious_duration="constant(5)" --set patches.importation_pressure=1825 \
	--set patches.importation_start=2 --set patches.importation_end=3 \
	--set patches.force_after_progression=true --set simulation.steps=8
rc=$?
[ "$rc" -eq 0 ] && [ "$(col "$tmp/imponset" 3 3)" -gt 0 ] && [ "$(col "$tmp/imponset" 3 2)" -lt 1000 ] &&
	[ "$(col "$tmp/imponset" 4 3)" -gt 900 ]
ok $? "$((1000 - $(col "$tmp/imponset" 3 2))) agents exposed by importation on day 2 for a day: $(col "$tmp/imponset" 4 3) of 1000 exposed on day 3 with force_after_progression (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/imponset.out"
# LASER's importation with force_after_progression in a larger run.
# shellcheck disable=SC2086
run fimp 1 $three --set patches.importation_period=7 --set patches.importation_count=3
rc=$?
# shellcheck disable=SC2086
run fimp2 2 $three --set patches.importation_period=7 --set patches.importation_count=3
[ "$rc" -eq 0 ] && same_files fimp fimp2 patches.csv summary.txt &&
	grep -q "^importation: [1-9][0-9]* infected, every 7 days" "$tmp/fimp/summary.txt" &&
	! cmp -s "$tmp/ref/patches.csv" "$tmp/fimp/patches.csv"
ok $? "force_after_progression with LASER's importation: runs, 2 threads byte for byte 1 thread's (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/fimp.out"

# ---- constant_population ---------------------------------------------------------
# Two patches of 120 000 and 80 000, cbr 40 replacing deaths, 365 days:
# the living as many every day, births 200 000 x ((1.04)^(1/365) - 1) x
# 365 = 7843 (within 4 %); the second disease's living the first's.
cp="--set patches.populations=120000,80000 --set patches.latitudes=47.6,47.2 --set patches.longitudes=-122.3,-122.4 --set patches.initial_infected=10,0 --set patches.cbr=40 --set patches.constant_population=true --set patches.diseases=2 --set patches.initial_infected_2=0,10 --set patches.beta_2=0.3"
# shellcheck disable=SC2086
run cp 2 $cp
rc=$?
born=$(sed -n 's/^births and deaths: \([0-9]*\) born, \([0-9]*\) alive.*/\1 \2/p' "$tmp/cp/summary.txt")
[ "$rc" -eq 0 ] &&
	awk -F, 'NR > 1 { n = $3 + $4 + $5 + $6; if (n != ($2 == 0 ? 120000 : 80000)) bad = 1 } END { exit bad || NR < 700 }' "$tmp/cp/patches.csv" &&
	awk -F, 'NR > 1 { n = $3 + $4 + $5 + $6; if (n != ($2 == 0 ? 120000 : 80000)) bad = 1 } END { exit bad }' "$tmp/cp/patches_2.csv" &&
	awk -v b="${born% *}" -v n="${born#* }" 'BEGIN { e = 7843; d = b - e; if (d < 0) d = -d; exit !(d <= 0.04 * e && n == 200000) }' &&
	awk -F, 'NR > 1 && $4 + $5 > 0 { i = 1 } END { exit !i }' "$tmp/cp/patches.csv"
ok $? "constant_population, cbr 40: every patch's living as many every day in both diseases, ${born% *} births (7843 expected, within 4 %) (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/cp.out"
# With ages: the newborns are 0 years old; without births the first bin
# empties as its agents age.
ages="--set patches.age_pyramid=$WEFT_SRCDIR/examples/patches-demography-pyramid.csv --set patches.ages_every=365 --set simulation.steps=730"
# shellcheck disable=SC2086
run cpa 1 $cp $ages
rc=$?
# shellcheck disable=SC2086
run cpn 1 $cp $ages --set patches.cbr=0 --set patches.constant_population=false
a0=$(awk -F, '$1 == 730 { print $2 }' "$tmp/cpa/ages.csv")
n0=$(awk -F, '$1 == 730 { print $2 }' "$tmp/cpn/ages.csv")
# The 2 x 7843 newborns are under 5, less those replacing agents under 5
# (12 % of the pyramid): 13 800 more (within 5 %).
[ "$rc" -eq 0 ] && [ -n "$a0" ] && [ -n "$n0" ] &&
	awk -v d=$((a0 - n0)) 'BEGIN { exit !(d >= 13110 && d <= 14490) }'
ok $? "with ages: $a0 agents under 5 after two years against $n0 without births (13 800 more expected: the newborns are 0 years old) (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/cpa.out"
files="counts.csv patches.csv counts_2.csv patches_2.csv ages.csv summary.txt"
# shellcheck disable=SC2086
run cpa2 2 $cp $ages
# shellcheck disable=SC2086
same_files cpa cpa2 $files
ok $? "constant_population with ages and two diseases: 2 threads byte for byte 1 thread's"
if available opencl; then
	# shellcheck disable=SC2086
	(BACKEND=opencl run cpocl 1 $cp $ages)
	# shellcheck disable=SC2086
	same_files cpa cpocl $files
	ok $? "opencl: byte for byte openmp's"
else
	skip "opencl: the same bytes" "opencl not built or not available"
fi
# shellcheck disable=SC2086
run cpck 2 $cp $ages --set checkpoint.every=365 --set checkpoint.directory="$tmp/cpckdir"
# shellcheck disable=SC2086
run cpres 1 $cp $ages --set checkpoint.directory="$tmp/cpckdir2" --resume "$tmp/cpckdir"
# shellcheck disable=SC2086
same_files cpa cpres $files && grep -q "resumed.*at step 365" "$tmp/cpres.out"
ok $? "a checkpoint at day 365 resumed: byte for byte the uninterrupted run's"
check --set patches.constant_population=true
[ $? -ne 0 ] && grep -q "\[patches\] constant_population (--set patches.constant_population) needs cbr above 0: its births replace its deaths" "$tmp/check.out"
ok $? "constant_population without cbr: refused"
diag "$tmp/check.out"
check --set patches.constant_population=true --set patches.cbr=20 --set patches.cdr=8
[ $? -ne 0 ] && grep -q "\[patches\] constant_population (--set patches.constant_population): deaths are cbr's there; remove cdr (--set patches.cdr)" "$tmp/check.out"
ok $? "constant_population with cdr: refused, naming both"
check --set patches.constant_population=true --set patches.cbr=20 --set patches.age_pyramid="$WEFT_SRCDIR/examples/patches-demography-pyramid.csv" --set patches.death_rates="$WEFT_SRCDIR/examples/patches-demography-deaths.csv"
[ $? -ne 0 ] && grep -q "remove death_rates (--set patches.death_rates)" "$tmp/check.out"
ok $? "constant_population with death_rates: refused, naming both"

# ---- importation_pressure ------------------------------------------------------
# 150 000 agents, rate 10 per 1000 a year, beta 0: 150 000 x 10 / 365 000
# a day, 1500 in the year, all exposed (none of them infects).
ip="--set patches.populations=100000,50000 --set patches.latitudes=40,34 --set patches.longitudes=4,10 --set patches.initial_infected=0 --set patches.beta=0 --set patches.importation_pressure=10 --set output.every=1"
# impsum LABEL: the number of exposed in the summary's importation line.
impsum() {
	sed -n 's/^importation pressure: \([0-9]*\) exposed from day.*/\1/p' "$tmp/$1/summary.txt"
}
# shellcheck disable=SC2086
run ip 1 $ip
rc=$?
imported=$(impsum ip)
[ "$rc" -eq 0 ] && [ -n "$imported" ] && awk -v n="$imported" 'BEGIN { exit !(n >= 1380 && n <= 1620) }' &&
	awk -F, -v n="$imported" 'END { exit !($3 + $4 + $5 == n) }' "$tmp/ip/counts.csv"
ok $? "importation_pressure = 10, no transmission: $imported exposed in a year (1500 expected, within 8 %), every one of them in counts.csv (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/ip.out"
# shellcheck disable=SC2086
run ipl 1 $ip --set patches.importation_pressure=0,20 --set patches.importation_start=100 --set patches.importation_end=200
awk -F, '$2 == 0 && $3 != 100000 { bad = 1 }
	$2 == 1 && $1 <= 100 && $3 != 50000 { bad = 1 }
	$2 == 1 && $1 == 200 { s200 = $3 } $2 == 1 && $1 == 365 { s365 = $3 }
	END { exit bad || !(s200 < 50000 && s200 == s365) }' "$tmp/ipl/patches.csv"
ok $? "importation_pressure = 0,20 from day 100 to before 200: imports in patch 1 only, none before day 100 or after day 199"
# With births, deaths and force_after_progression: imports among the
# newborns too, the same bytes everywhere.
ipb="$ip --set patches.beta=0.5 --set patches.cbr=40 --set patches.cdr=20 --set patches.force_after_progression=true --set patches.importation_pressure=3"
files="counts.csv patches.csv summary.txt"
# shellcheck disable=SC2086
run ipb 1 $ipb
rc=$?
# shellcheck disable=SC2086
run ipb2 2 $ipb
# shellcheck disable=SC2086
[ "$rc" -eq 0 ] && same_files ipb ipb2 $files && [ "$(impsum ipb)" -gt 0 ]
ok $? "importation_pressure with births, deaths and force_after_progression: $(impsum ipb) exposed, 2 threads byte for byte 1 thread's (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/ipb.out"
if available opencl; then
	# shellcheck disable=SC2086
	(BACKEND=opencl run ipbocl 1 $ipb)
	# shellcheck disable=SC2086
	same_files ipb ipbocl $files
	ok $? "opencl: byte for byte openmp's"
else
	skip "opencl: the same bytes" "opencl not built or not available"
fi
# shellcheck disable=SC2086
run ipbck 2 $ipb --set checkpoint.every=150 --set checkpoint.directory="$tmp/ipbckdir"
# shellcheck disable=SC2086
run ipbres 1 $ipb --set checkpoint.directory="$tmp/ipbckdir2" --resume "$tmp/ipbckdir"
# shellcheck disable=SC2086
same_files ipb ipbres $files && grep -q "resumed.*at step 300" "$tmp/ipbres.out"
ok $? "a checkpoint at day 300 resumed: byte for byte the uninterrupted run's"
check --set patches.importation_pressure=1 --set patches.importation_period=7
[ $? -ne 0 ] && grep -q "\[patches\] importation_pressure (--set patches.importation_pressure): not with importation_period (--set patches.importation_period); give one of them" "$tmp/check.out"
ok $? "importation_pressure with importation_period: refused, naming both"
check --set patches.importation_pressure=1,2,3
[ $? -ne 0 ] && grep -q "\[patches\] importation_pressure (--set patches.importation_pressure): 3 items for 1 patches; give one, or one per patch" "$tmp/check.out"
ok $? "importation_pressure with 3 items for 1 patch: refused"
diag "$tmp/check.out"
check --set patches.importation_pressure=-1
[ $? -ne 0 ] && grep -q "item 1, -1, is not a rate from 0 to 365000 per 1000 a year" "$tmp/check.out"
ok $? "a negative importation_pressure: refused"
check --set patches.importation_pressure=1 --set patches.diseases=2
[ $? -ne 0 ] && grep -q "diseases = 2 (--set patches.diseases): not with importation_pressure (--set patches.importation_pressure)" "$tmp/check.out"
ok $? "importation_pressure with two diseases: refused, naming both"
check --set patches.importation_pressure=1 --set patches.importation_patchlist=0
[ $? -ne 0 ] && grep -q "\[patches\] importation_patchlist (--set patches.importation_patchlist): importation_period's, not importation_pressure's (--set patches.importation_pressure): remove it" "$tmp/check.out"
ok $? "importation_pressure with importation_patchlist: refused (the list is LASER's importation's)"
diag "$tmp/check.out"

# ---- laser-measles' band ---------------------------------------------------------
# The last section: statistics only, not made under the sanitizers.
if ! bands "laser-measles' seed bands: its example, satellites, births and deaths, a campaign, ConstantPopProcess and importation, each with a biased model that fails"; then
	tap_done
	exit
fi
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
band cpop pass --constant-pop 40
ok $? "the tutorial's two patches with laser-measles' ConstantPopProcess (cbr 40, 365 days): weft's mean inside its band on 95 % of the days for S, E, I and R (exit $r)"
tail -1 "$tmp/cpop.out" | diag
band cpopb fail --constant-pop 40 --set patches.cbr=30
ok $? "the same with cbr 30 for its 40 fails (exit $r)"
tail -1 "$tmp/cpopb.out" | diag
band imp pass --importation 10
ok $? "the tutorial's two patches, no agent seeded, laser-measles' ImportationPressureProcess (10 per 1000 a year, 365 days): weft's mean inside its band on 95 % of the days for S, E, I and R (exit $r)"
tail -1 "$tmp/imp.out" | diag
band impb fail --importation 10 --set patches.importation_pressure=7
ok $? "the same with a rate of 7 for its 10 fails (exit $r)"
tail -1 "$tmp/impb.out" | diag

tap_done
