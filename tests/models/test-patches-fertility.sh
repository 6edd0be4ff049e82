#!/bin/sh
# tests/models/test-patches-fertility.sh - births by age of mother in the
# patch model (models/patches/patches.md, "Births by age of mother";
# Starsim's ss.Pregnancy):
# - conceptions a year at the table's rate per woman (the pregnant
#   included, Starsim's raised rate), within 4 % of the expected number
#   at 200 000 agents, and the pregnancies under way at day 0 (burn-in)
#   those of the mean pregnancy's days; none without the burn-in;
# - a pregnancy of 40 weeks delivers on its 280th day, not before;
#   female_share = 0 has no pregnancies; a mother's death ends hers;
#   the mothers' ages (fertility_min_age, fertility_max_age) bound them;
# - against Starsim 3.7.2 (ss.People(age_data=...), ss.Pregnancy,
#   ss.Deaths by age, dt one day; bench/starsim-demog.sh --fertility and
#   the stored band tests/data/patches-demog-starsim-fertility-band.csv):
#   the mean of 20 seeds of the living and of each age bin inside the band
#   of Starsim's 20 seeds on at least 95 % of the points, and with mothers
#   of at most 40 years outside it;
# - with an epidemic, three patches and two diseases: outputs byte for
#   byte on openmp with 1 and 2 threads and on OpenCL (skipped when it
#   cannot run), a checkpoint resumed gives them too, and the second
#   disease's agents are the first's;
# - bad settings and files name the key, and the file and its line.
set -u
. "$WEFT_SRCDIR/tests/models/patches-tests.sh"
patches_setup fertility
ex="$WEFT_SRCDIR/examples/patches-fertility.ini"

# preg LABEL FIELD: a number of the summary's pregnancies line: 1 under way
# at day 0, 2 conceived, 3 delivered, 4 pregnant at the end, 5 women.
preg() {
	sed -n 's/^pregnancies: \([0-9]*\) under way at day 0, \([0-9]*\) conceived and \([0-9]*\) delivered from day 0 on; \([0-9]*\) of \([0-9]*\) women of child-bearing age pregnant at the end$/\1 \2 \3 \4 \5/p' \
		"$tmp/$1/summary.txt" | cut -d' ' -f"$2"
}

# near X EXPECTED TOLERANCE: |X - EXPECTED| <= TOLERANCE x EXPECTED.
near() {
	awk -v x="$1" -v e="$2" -v t="$3" 'BEGIN { d = x - e; if (d < 0) d = -d; exit !(x != "" && d <= t * e) }'
}

# ---- rates -------------------------------------------------------------------
# The example's pyramid and table, no deaths: conceptions a year per
# 10 000 agents at day 0, the women (half) of each five years of 15 to 50
# times its rate, Starsim's expected number (every woman, pregnant or not,
# at her bin's rate): 500 x 0.05 + 225 x 0.15 + 225 x 0.16 + 375 x 0.12
# + 375 x 0.07 + 300 x 0.03 + 300 x 0.005 = 176.5; and as the women age
# over the year, of the 100 000 women of 200 000 agents, 1100 more of 20
# to 25 (2 % a year come in at 20, 0.9 % leave at 25), 600 fewer of 30 to
# 35 and 300 more of 40 to 45, half of each on average: 3530 + 550 x 0.15
# - 300 x 0.12 + 150 x 0.03 = 3581 (3595 the mean of seeds 1 to 10).
# Without Starsim's raised rate (pregnant women at their bin's rate too,
# 5.6 % of them pregnant) 5 % fewer.
big="--set patches.populations=200000 --set simulation.steps=365 --set patches.death_rates="
# shellcheck disable=SC2086
run big 2 $big
rc=$?
conc=$(preg big 2)
near "$conc" 3581 0.04
ok $? "200 000 agents, a year: $conc conceptions, within 4 % of 3581 (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/big.out"
# Under way at day 0: the conceptions a day at day 0's ages (the burn-in
# does not age the women) times the mean pregnancy of Starsim's weeks
# (40.11 weeks, 280.8 days).
near "$(preg big 1)" 2716 0.05
ok $? "the burn-in: $(preg big 1) pregnancies under way at day 0, within 5 % of 3530 x 280.8 / 365 = 2716"
# shellcheck disable=SC2086
run noburn 2 $big --set patches.pregnancy_burnin=false
[ "$(preg noburn 1)" = 0 ] && near "$(preg noburn 2)" 3581 0.04 &&
	[ "$(preg noburn 3)" -lt "$(preg big 3)" ]
ok $? "without the burn-in: none under way at day 0, $(preg noburn 2) conceptions, $(preg noburn 3) deliveries in the year against $(preg big 3)"

# ---- durations, sexes, deaths, ages ------------------------------------------
# Forty weeks without the burn-in: day 0's conceptions deliver on day 280.
w40="--set patches.pregnancy_weeks=40 --set patches.pregnancy_burnin=false --set patches.populations=100000"
# shellcheck disable=SC2086
run w279 1 $w40 --set simulation.steps=280
# shellcheck disable=SC2086
run w280 1 $w40 --set simulation.steps=281
[ "$(preg w279 3)" = 0 ] && [ "$(preg w280 3)" -gt 0 ] &&
	grep -q "^births and deaths: $(preg w280 3) born," "$tmp/w280/summary.txt"
ok $? "pregnancy_weeks = 40: no delivery in days 0 to 279, $(preg w280 3) on day 280, each a birth"
run nofem 1 --set patches.female_share=0 --set simulation.steps=400
[ "$(preg nofem 1)" = 0 ] && [ "$(preg nofem 2)" = 0 ] && [ "$(preg nofem 5)" = 0 ] &&
	grep -q "^births and deaths: 0 born," "$tmp/nofem/summary.txt"
ok $? "female_share = 0: no women, no pregnancy, no birth"
diag "$tmp/nofem/summary.txt"
# Every agent of 15 or more dies on day 0: the pregnancies under way end
# with their mothers, none delivers.
printf 'age,value\n0,0\n15,1e12\n' > "$tmp/die.csv"
run die 1 --set patches.death_rates="$tmp/die.csv" --set simulation.steps=400
[ "$(preg die 1)" -gt 0 ] && [ "$(preg die 3)" = 0 ] && [ "$(preg die 5)" = 0 ]
ok $? "mothers dying on day 0: $(preg die 1) pregnancies under way end with them, none delivered"
# Mothers of 30 to 35 only, at 120 per 1000 a year: of the 100 000 women,
# 7500 of 30 to 35 at day 0 (half the pyramid's 15 % of 30 to 40) and,
# with no deaths, 6900 at the end (those of 29 to 34 at day 0: 0.9 % +
# 4 x 1.5 %); a year's conceptions 0.12 x their mean, 7200.
# shellcheck disable=SC2086
run ages 2 $big --set patches.fertility_min_age=30 --set patches.fertility_max_age=34.99
near "$(preg ages 2)" 864 0.08 && near "$(preg ages 5)" 6900 0.03
ok $? "mothers of 30 to 35: $(preg ages 2) conceptions (0.12 x 7200 = 864, within 8 %), $(preg ages 5) women at the end (6900, within 3 %)"

# The default capacity holds the births of children who grow up: a
# pyramid of 0 to 10 years, 20 years.
printf 'age,value\n0,100\n10,0\n' > "$tmp/kids.csv"
run kids 2 --set patches.age_pyramid="$tmp/kids.csv"
rc=$?
[ "$rc" -eq 0 ] && [ "$(preg kids 1)" = 0 ] && [ "$(preg kids 3)" -gt 1000 ]
ok $? "children at day 0, 20 years: $(preg kids 3) deliveries within the default capacity (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/kids.out"
# Weeks of share 0 at the ends are never drawn: 40:1 with 60:0 as 40.
w40z="--set patches.pregnancy_burnin=false --set patches.populations=100000"
# shellcheck disable=SC2086
run w40z 1 $w40z --set "patches.pregnancy_weeks=30:0, 40:1, 60:0" --set simulation.steps=281
cmp -s "$tmp/w280/summary.txt" "$tmp/w40z/summary.txt"
ok $? "pregnancy_weeks = 30:0, 40:1, 60:0: the same run as 40"

# ---- against Starsim -----------------------------------------------------------
if bands "20 seeds: the living and the ages inside Starsim's ss.Pregnancy 5-95 % band" \
	"mothers of at most 40: the living outside Starsim's band"; then
	"$WEFT_SRCDIR/bench/starsim-demog.sh" --fertility "$WEFT_BUILDDIR" > "$tmp/ss.out" 2>&1
	ok $? "20 seeds: the living and the ages inside Starsim's ss.Pregnancy 5-95 % band (bench/starsim-demog.sh --fertility)"
	diag "$tmp/ss.out"
	"$WEFT_SRCDIR/bench/starsim-demog.sh" --fertility --set patches.fertility_max_age=40 "$WEFT_BUILDDIR" > "$tmp/ss-40.out" 2>&1
	[ $? -eq 1 ] && grep -q "^population: .* FAIL$" "$tmp/ss-40.out"
	ok $? "mothers of at most 40 (6 % fewer births): the living outside Starsim's band"
	diag "$tmp/ss-40.out"
fi

# ---- byte for byte across backends, threads and a checkpoint --------------------
three="--set patches.populations=3000,2000,1500 --set patches.latitudes=47.6,47.2,46.9 --set patches.longitudes=-122.3,-122.4,-121.9 --set patches.initial_infected=20,0,0 --set patches.beta=0.6 --set patches.patch_series=true --set simulation.steps=400 --set output.every=1 --set patches.ages_every=50 --set patches.diseases=2 --set patches.initial_infected_2=5,5,0"
# shellcheck disable=SC2086
run ref 1 $three
rc=$?
[ "$rc" -eq 0 ] && [ "$(preg ref 3)" -gt 100 ] &&
	awk -F, 'FNR == 1 { f++; next } f == 1 { n[$1] = $2 + $3 + $4 + $5; next }
		{ if (n[$1] != $2 + $3 + $4 + $5) bad = 1; rows++ } END { exit bad || rows != 401 }' \
		"$tmp/ref/counts.csv" "$tmp/ref/counts_2.csv"
ok $? "three patches, two diseases, 400 days: $(preg ref 3) deliveries, the second disease's living the first's every day (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/ref.out"
files="counts.csv counts_2.csv patches.csv ages.csv incidence.csv summary.txt"
for bt in openmp:2 opencl:1; do
	b=${bt%:*} th=${bt#*:}
	if ! available "$b"; then
		skip "$b, $th threads: outputs as openmp's" "$b not built or not available"
		continue
	fi
	BACKEND=$b
	# shellcheck disable=SC2086
	run "$b-$th" "$th" $three
	rc=$?
	BACKEND=
	# shellcheck disable=SC2086
	[ "$rc" -eq 0 ] && same_files ref "$b-$th" $files
	ok $? "$b, $th threads: counts, patches, ages, incidence and summary byte for byte openmp's, 1 thread (exit $rc)"
	[ "$rc" -eq 0 ] || diag "$tmp/$b-$th.out"
done
# shellcheck disable=SC2086
run ck 2 $three --set checkpoint.every=150 --set checkpoint.directory="$tmp/ckdir"
# shellcheck disable=SC2086
run res 1 $three --set checkpoint.directory="$tmp/ckdir2" --resume "$tmp/ckdir"
rc=$?
# shellcheck disable=SC2086
[ "$rc" -eq 0 ] && same_files ref res $files && grep -q "resumed.*at step 300" "$tmp/res.out"
ok $? "a checkpoint at day 300 (the pregnancies in it) resumed: the outputs byte for byte the uninterrupted run's (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/res.out"

# ---- errors ---------------------------------------------------------------------
# refused LABEL PATTERN WHAT [--set ...]: weft check of the example with
# the settings fails, its message matching PATTERN (grep).
refused() {
	label=$1 pattern=$2 what=$3
	shift 3
	"$weft" check "$ex" "$@" > "$tmp/$label.out" 2>&1
	[ $? -ne 0 ] && grep -q "$pattern" "$tmp/$label.out"
	ok $? "$what"
	diag "$tmp/$label.out"
}
refused nopyr "\[patches\] fertility_rates (.*patches-fertility.ini:[0-9]*) needs ages: give age_pyramid too" \
	"fertility_rates without age_pyramid: refused, naming the key's INI line" \
	--set patches.age_pyramid= --set patches.death_rates=
refused cbr "\[patches\] fertility_rates (.*patches-fertility.ini:[0-9]*) and cbr = 20 (--set patches.cbr): give one of them" \
	"fertility_rates with cbr: refused, naming both keys" --set patches.cbr=20
refused minmax "\[patches\] fertility_min_age = 40 (--set patches.fertility_min_age) is above fertility_max_age = 30 (--set patches.fertility_max_age)" \
	"fertility_min_age above fertility_max_age: refused, naming both" \
	--set patches.fertility_min_age=40 --set patches.fertility_max_age=30
refused wdec "\[patches\] pregnancy_weeks (--set patches.pregnancy_weeks): item 2: weeks must increase from item to item" \
	"pregnancy_weeks whose weeks decrease: refused, naming item 2" --set "patches.pregnancy_weeks=38:0.5, 37:0.5"
refused wbare "item 2: give every item's share (WEEKS:SHARE) when there are several" \
	"pregnancy_weeks with an item without its share among several: refused" --set "patches.pregnancy_weeks=38:0.5, 40"
refused wbig "item 1: expected weeks, from 1 to 60" "pregnancy_weeks of 61 weeks: refused" \
	--set "patches.pregnancy_weeks=61"
refused wneg "item 1: expected a share of 0 or more after ':'" "a negative share: refused" \
	--set "patches.pregnancy_weeks=38:-1"
refused wzero "item 1: every share is 0" "pregnancy_weeks whose shares are all 0: refused" \
	--set "patches.pregnancy_weeks=38:0, 40:0"
awk 'BEGIN { print "age,value"; for (a = 10; a < 43; a++) print a ",10" }' > "$tmp/many.csv"
refused many "\[patches\] fertility_rates (--set patches.fertility_rates): $tmp/many.csv:34: more than 32 age bins" \
	"a table of 33 bins: refused, naming the file and its last line" --set patches.fertility_rates="$tmp/many.csv"
printf 'age,value\n15,50\n20,x\n' > "$tmp/bad.csv"
refused bad "$tmp/bad.csv:3: expected two numbers, age,value" "a row that is not two numbers: refused, naming line 3" \
	--set patches.fertility_rates="$tmp/bad.csv"
"$weft" check "$ex" > "$tmp/ok.out" 2>&1
ok $? "weft check passes the example"
diag "$tmp/ok.out"

tap_done
