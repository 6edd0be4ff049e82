#!/bin/sh
# tests/models/test-patches-diseases.sh - the patch model with two diseases
# (diseases = 2; models/patches/patches.md, "Two diseases"), its Starsim
# keys (infection_probability, cdr_mode) and Starsim's seed band:
# - examples/patches-two-diseases.ini writes counts_2.csv and
#   patches_2.csv; every day both diseases count the same living (the same
#   agents are born and die in both) and the summary has the second
#   disease's lines;
# - the first disease's outputs are byte for byte those of diseases = 1,
#   with two patches mixed through the network, births and deaths;
# - the same bytes on 1 and 2 threads, on OpenCL (skipped when it cannot
#   run), and after a checkpoint resumed;
# - under seasonality the second disease's beta is beta_2 (seasonality = 1
#   changes nothing; 1,0 leaves every other day without infections); a
#   patch file's initial_infected column seeds the first disease only;
#   with ages and mortality by age both count the same living;
# - infection_probability: with a force of 0.5 the chance is 0.5 (linear)
#   against 1 - exp(-0.5) (exp), counted over 20 seeds; cdr_mode
#   changes the deaths;
# - Starsim 3.7.2's two ss.SEIR in one ss.MixingPool with ss.Births and
#   ss.Deaths (bench/starsim-diseases.sh, the stored band
#   tests/data/patches-diseases-starsim-band.csv; sh and awk, no Python):
#   the mean of 20 seeds inside the band of Starsim's 20 on at least 95 %
#   of the disease-state-days, while beta 10 % high, the exponential
#   chance and the force before the day's progressions fail;
# - refused with importation, too many initial agents of the second
#   disease, a bad distribution and a bad choice, naming the keys.
set -u
. "$WEFT_SRCDIR/tests/models/patches-tests.sh"
patches_setup diseases
ex="$WEFT_SRCDIR/examples/patches-two-diseases.ini"

# ---- the example ---------------------------------------------------------------
run ex 1
rc=$?
[ "$rc" -eq 0 ] && [ -f "$tmp/ex/counts_2.csv" ] && [ -f "$tmp/ex/patches_2.csv" ] &&
	[ "$(head -1 "$tmp/ex/counts_2.csv")" = "day,S,E,I,R" ] &&
	[ "$(wc -l < "$tmp/ex/counts_2.csv")" -eq 202 ]
ok $? "the example writes counts_2.csv and patches_2.csv, a row a day for 200 days (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/ex.out"
paste -d, "$tmp/ex/counts.csv" "$tmp/ex/counts_2.csv" | awk -F, '
	NR > 1 { n++; if ($2 + $3 + $4 + $5 != $7 + $8 + $9 + $10) bad++
		if ($2 + $3 + $4 + $5 != last) changed++; last = $2 + $3 + $4 + $5 }
	END { exit !(n == 201 && !bad && changed > 100) }'
ok $? "every day both diseases count the same living, and the living change (births, deaths)"
! cmp -s "$tmp/ex/counts.csv" "$tmp/ex/counts_2.csv" &&
	grep -q "^disease 2 final S/E/I/R" "$tmp/ex/summary.txt" &&
	grep -q "^disease 2 durations.*exposed 1..2 days, infectious 1..9" "$tmp/ex/summary.txt"
ok $? "the diseases differ, and the summary has the second disease's durations and final counts"

# ---- the first disease is diseases = 1's --------------------------------------------
two="--set patches.populations=3000,2000 --set patches.latitudes=47.6,47.2
	--set patches.longitudes=-122.3,-122.4 --set patches.initial_exposed=10,0
	--set patches.initial_exposed_2=0,10 --set patches.cbr=60 --set patches.cdr=40
	--set patches.exposed_duration=gamma(3,1) --set patches.infectious_duration=normal(6,2)"
# shellcheck disable=SC2086
run one 1 $two --set patches.diseases=1
# shellcheck disable=SC2086
run ref 1 $two
rc=$?
[ "$rc" -eq 0 ] && cmp -s "$tmp/one/counts.csv" "$tmp/ref/counts.csv" &&
	cmp -s "$tmp/one/patches.csv" "$tmp/ref/patches.csv" &&
	[ ! -f "$tmp/one/counts_2.csv" ]
ok $? "two patches, births and deaths: the first disease's outputs byte for byte those of diseases = 1 (exit $rc)"

# ---- threads, OpenCL, a checkpoint -----------------------------------------------------
same_as_ref() {
	same_files ref "$1" counts.csv patches.csv counts_2.csv patches_2.csv summary.txt
}
# shellcheck disable=SC2086
run t2 2 $two
rc=$?
[ "$rc" -eq 0 ] && same_as_ref t2
ok $? "2 threads: both diseases' outputs and the summary byte for byte 1 thread's (exit $rc)"
if available opencl; then
	# shellcheck disable=SC2086
	(BACKEND=opencl run ocl 1 $two)
	rc=$?
	[ "$rc" -eq 0 ] && same_as_ref ocl
	ok $? "opencl: both diseases' outputs byte for byte openmp's (exit $rc)"
	[ "$rc" -eq 0 ] || diag "$tmp/ocl.out"
else
	skip "opencl: both diseases' outputs" "not available here"
fi
# shellcheck disable=SC2086
run ck 2 $two --set checkpoint.every=75 --set checkpoint.directory="$tmp/ckdir"
# shellcheck disable=SC2086
run res 1 $two --set checkpoint.directory="$tmp/ckdir2" --resume "$tmp/ckdir"
rc=$?
[ "$rc" -eq 0 ] && same_as_ref res && grep -q "resumed.*at step 150" "$tmp/res.out"
ok $? "a checkpoint at day 150 resumed: both diseases' outputs byte for byte the uninterrupted run's (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/res.out"

# ---- the second disease's own beta under seasonality, a patch file, ages ---------
# Seasonality of 1 every day: both diseases' outputs as without it (the
# second disease's multiplied beta is beta_2's, not beta's).
run s1 1 --set simulation.steps=80 --set patches.seasonality=1
run s0 1 --set simulation.steps=80
rc=$?
[ "$rc" -eq 0 ] && cmp -s "$tmp/s0/counts.csv" "$tmp/s1/counts.csv" &&
	cmp -s "$tmp/s0/counts_2.csv" "$tmp/s1/counts_2.csv"
ok $? "seasonality = 1: both diseases' outputs byte for byte as without it (exit $rc)"
run s2 1 --set simulation.steps=80 --set patches.seasonality=1,0 \
	--set patches.patch_series=true
rc=$?
[ "$rc" -eq 0 ] && [ -f "$tmp/s2/incidence_2.csv" ] &&
	awk -F, 'NR > 2 { n[$1 % 2] += $2 } END { exit !(n[0] == 0 && n[1] > 0) }' \
		"$tmp/s2/incidence_2.csv"
ok $? "seasonality = 1,0: the second disease's incidence_2.csv has new infections on odd days only (exit $rc)"
# A patch file's initial_infected column is the first disease's; the
# second takes initial_infected_2.
printf 'population,initial_infected,latitude,longitude\n3000,7,47.6,-122.3\n2000,0,47.2,-122.4\n' > "$tmp/p.csv"
run pf 1 --set patches.patch_file="$tmp/p.csv" --set patches.initial_exposed=0 \
	--set patches.initial_exposed_2=0 --set patches.initial_infected_2=0,3 \
	--set simulation.steps=1
rc=$?
[ "$rc" -eq 0 ] && [ "$(sed -n 2p "$tmp/pf/patches.csv")" = "0,0,2993,0,7,0" ] &&
	[ "$(sed -n 3p "$tmp/pf/patches.csv")" = "0,1,2000,0,0,0" ] &&
	[ "$(sed -n 2p "$tmp/pf/patches_2.csv")" = "0,0,3000,0,0,0" ] &&
	[ "$(sed -n 3p "$tmp/pf/patches_2.csv")" = "0,1,1997,0,3,0" ]
ok $? "patch_file: its initial_infected column seeds the first disease, initial_infected_2 the second (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/pf.out"
# Ages and mortality by age: the same living in both, every day.
run ag 1 --set patches.age_pyramid="$WEFT_SRCDIR/examples/patches-demography-pyramid.csv" \
	--set patches.death_rates="$WEFT_SRCDIR/examples/patches-demography-deaths.csv" \
	--set patches.cdr=0 --set simulation.steps=400
rc=$?
[ "$rc" -eq 0 ] && [ -f "$tmp/ag/ages.csv" ] &&
	paste -d, "$tmp/ag/counts.csv" "$tmp/ag/counts_2.csv" | awk -F, '
		NR > 1 { n++; if ($2 + $3 + $4 + $5 != $7 + $8 + $9 + $10) bad++ }
		END { exit !(n == 401 && !bad) }'
ok $? "ages and mortality by age: both diseases count the same living every day (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/ag.out"

# ---- infection_probability and cdr_mode --------------------------------------------
# 500 exposed among 1,000 agents become infectious on day 1, with beta 1
# and the force after the day's onsets: each of the 500 susceptible is
# infected that day with 0.5 (linear) or 1 - exp(-0.5) = 0.3935; over 20
# seeds 5,000 and 3,935 infected in all (standard deviations 50 and 49).
day1() {
	label=$1
	shift
	run "$label" 1 --set patches.populations=1000 --set patches.initial_infected=0 \
		--set patches.initial_exposed=500 --set patches.exposed_duration="constant(1)" \
		--set patches.infectious_duration="constant(1)" --set patches.beta=1 \
		--set patches.diseases=1 --set patches.cbr=0 --set patches.cdr=0 \
		--set simulation.steps=1 --set output.every=1 \
		--set ensemble.runs=20 --set output.summary=false "$@"
}
exposed() {
	find "$tmp/$1" -name counts.csv -path '*/runs/*' -exec awk -F, '$1 == 1 { s += $3 } END { print s + 0 }' {} + |
		awk '{ t += $1 } END { print t }'
}
day1 lin
day1 exp --set patches.infection_probability=exp
nl=$(exposed lin) ne=$(exposed exp)
awk -v l="$nl" -v e="$ne" 'BEGIN { exit !(l > 5000 - 200 && l < 5000 + 200 && e > 3935 - 200 && e < 3935 + 200) }'
ok $? "infection_probability: linear infects $nl of 10,000 (expected 5,000), exp $ne (3,935), over 20 seeds"
run lm 1 --set patches.diseases=1 --set patches.cdr=300 --set simulation.steps=100 \
	--set patches.cdr_mode=laser
run ls 1 --set patches.diseases=1 --set patches.cdr=300 --set simulation.steps=100 \
	--set patches.cdr_mode=starsim
# At cdr 300, LASER's chance 1 - exp(-(1 - 0.7^(1/365))) is 9.77e-4 a day,
# Starsim's 1 - exp(-0.3/365) 8.22e-4: over 100 days of 20,000 agents
# about 1,870 and 1,600 deaths (SD about 42).
dl=$(awk -F, 'END { print 20000 - ($2 + $3 + $4 + $5) }' "$tmp/lm/counts.csv")
dd=$(awk -F, 'END { print 20000 - ($2 + $3 + $4 + $5) }' "$tmp/ls/counts.csv")
awk -v l="$dl" -v s="$dd" 'BEGIN { exit !(l > s + 100) }'
ok $? "cdr_mode at cdr 300 over 100 days: LASER's leaves $dl fewer living, Starsim's $dd"

# ---- against Starsim ------------------------------------------------------------------
check() {
	sh "$WEFT_SRCDIR/bench/starsim-diseases.sh" "$@" "$WEFT_BUILDDIR" > "$tmp/check.out" 2>&1
}
check
rc=$?
[ "$rc" -eq 0 ] && grep -q "disease-state-days.*inside; PASS" "$tmp/check.out"
ok $? "Starsim's two diseases, 20 seeds a side: $(sed -n 's/^all: //p' "$tmp/check.out") (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/check.out"
for bias in patches.beta=0.33 patches.infection_probability=exp \
	patches.force_after_progression=false; do
	check --set "$bias"
	rc=$?
	[ "$rc" -eq 1 ] && grep -q "inside; FAIL" "$tmp/check.out"
	ok $? "a biased weft ($bias) fails Starsim's band: $(sed -n 's/^all: //p' "$tmp/check.out") (exit $rc)"
done

# ---- errors ---------------------------------------------------------------------------
bad() {
	run bad 1 "$@"
	rc=$?
}
bad --set patches.importation_period=10 --set patches.force_after_progression=false
[ "$rc" -ne 0 ] && grep -q "diseases = 2 (.*patches-two-diseases.ini:[0-9]*): not with importation_period (--set" "$tmp/bad.out"
ok $? "diseases = 2 with importation: refused, naming both keys and where they are set"
bad --set patches.initial_exposed_2=20001 --set patches.initial_infected_2=0
[ "$rc" -ne 0 ] && grep -q "initial_exposed_2 (--set.*): patch 0 has 20001 exposed" "$tmp/bad.out"
ok $? "more exposed of the second disease than agents: refused, naming initial_exposed_2"
bad --set patches.exposed_duration_2="gamma(1)"
[ "$rc" -ne 0 ] && grep -q "exposed_duration_2" "$tmp/bad.out"
ok $? "a bad exposed_duration_2: refused, naming the key"
bad --set patches.diseases=3
[ "$rc" -ne 0 ] && grep -q "diseases = 3: out of range" "$tmp/bad.out"
ok $? "diseases = 3: refused, naming the key"
bad --set patches.infection_probability=square
[ "$rc" -ne 0 ] && grep -q "infection_probability" "$tmp/bad.out" && grep -q "linear" "$tmp/bad.out"
ok $? "infection_probability = square: refused, naming the key and the choices"
tap_done
