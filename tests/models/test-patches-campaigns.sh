#!/bin/sh
# tests/models/test-patches-campaigns.sh - the patch model's supplementary
# immunization activities (sia; models/patches/patches.md, Campaigns):
# - coverage 1 in one patch: its every susceptible agent immune before
#   the campaign's day's transmission, the other patch untouched, the
#   summary's count the drop in S;
# - coverage 0.5: about half, within 4 standard deviations;
# - with births (blocks of several patches' newborns) coverage 1 leaves
#   only the day's own newborns susceptible (born at its end);
# - against the first disease only, with two;
# - the same bytes on 2 threads, on opencl, and resumed from a checkpoint
#   taken before the campaign;
# - bad campaigns refused, naming the key and the campaign;
# - a campaign listing 300 patches (over 1000 characters) immunizes each;
# - examples/patches-measles.ini runs.
set -u
. "$WEFT_SRCDIR/tests/models/patches-tests.sh"
patches_setup campaigns

# S, E, I or R (column 3 to 6) of patch P on day D of run L's patches.csv.
at() { awk -F, -v d="$2" -v p="$3" -v c="$4" '$1 == d && $2 == p { print $c }' "$tmp/$1/patches.csv"; }

two="--set patches.populations=50000,30000 --set patches.gravity_k=0 --set patches.initial_infected=10,0 --set simulation.steps=20"
# The patches apart (gravity_k 0): none of patch 1 is infected.
# shellcheck disable=SC2086
run one 1 $two --set patches.sia="day=5 coverage=1 patches=0, day=10 coverage=0.5 patches=1"
rc=$?
s0=$(at one 5 0 3) r0=$(at one 5 0 6) r0b=$(at one 6 0 6) s1=$(at one 10 1 3) s1b=$(at one 11 1 3)
imm=$(sed -n 's/^campaigns: \([0-9]*\) agents immunized in 2 campaigns$/\1/p' "$tmp/one/summary.txt")
[ "$rc" -eq 0 ] && [ "$(at one 6 0 3)" = 0 ] && [ "$(at one 6 1 3)" = "$(at one 5 1 3)" ] &&
	[ "$r0b" -ge $((r0 + s0 - 10)) ]
ok $? "coverage 1 in patch 0 on day 5: day 6 has no susceptible there ($s0 on day 5), patch 1 untouched (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/one.out"
half=$((s1 - s1b))
awk -v h="$half" -v s="$s1" 'BEGIN { exit !((h - s / 2) ^ 2 < 16 * s / 4) }'
ok $? "coverage 0.5 of $s1 susceptible agents in patch 1: $half immune, within 4 sd of half"
[ -n "$imm" ] && [ "$imm" -ge "$((s0 + half - 20))" ] && [ "$imm" -le "$((s0 + half))" ]
ok $? "the summary's count ($imm) is the campaigns' drop in S ($s0 + $half, less the day's exposures)"

# ---- newborns, mixed blocks ---------------------------------------------------------
three="--set patches.populations=3000,2000,1000 --set patches.latitudes=47,47.3,47.6 --set patches.longitudes=-122,-122,-122 --set patches.initial_infected=0 --set patches.cbr=100 --set patches.cdr=20 --set simulation.steps=60"
# shellcheck disable=SC2086
run born 1 $three --set patches.sia="day=50 coverage=1"
rc=$?
# The campaign comes before day 50's births (at its end): those few (a
# birth a day or two per patch) are the only susceptible left.
[ "$rc" -eq 0 ] && [ "$(at born 51 0 3)" -le 10 ] && [ "$(at born 51 1 3)" -le 10 ] &&
	[ "$(at born 51 2 3)" -le 10 ] && [ "$(at born 50 2 3)" -gt 1000 ] &&
	grep -q "born" "$tmp/born/summary.txt"
ok $? "births for 50 days, then coverage 1 everywhere: only day 50's newborns left susceptible (at most 10 a patch: $(at born 51 0 3), $(at born 51 1 3), $(at born 51 2 3)), the newborns of earlier days immunized (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/born.out"

# ---- the first disease only -------------------------------------------------------------
# shellcheck disable=SC2086
run pair 1 $two --set patches.diseases=2 --set patches.initial_infected_2=0 \
	--set patches.sia="day=5 coverage=1"
rc=$?
s2=$(awk -F, '$1 == 6 && $2 == 0 { print $3 }' "$tmp/pair/patches_2.csv")
[ "$rc" -eq 0 ] && [ "$(at pair 6 0 3)" = 0 ] && [ "$s2" = 50000 ]
ok $? "two diseases: the campaign immunizes against the first (S 0), not the second (S $s2) (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/pair.out"

# ---- the same bytes -----------------------------------------------------------------
camp="patches.sia=day=40 coverage=0.7 patches=0+2,day=45 coverage=0.5 patches=1-2"
# shellcheck disable=SC2086
run ref 1 $three --set patches.initial_infected=5,0,0 --set patches.beta=0.5 --set "$camp"
rc=$?
# shellcheck disable=SC2086
run th2 2 $three --set patches.initial_infected=5,0,0 --set patches.beta=0.5 --set "$camp"
[ "$rc" -eq 0 ] && cmp -s "$tmp/ref/patches.csv" "$tmp/th2/patches.csv" &&
	[ "$(at ref 41 1 3)" -gt 0 ]
ok $? "2 threads: patches.csv byte for byte 1 thread's (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/ref.out"
if available opencl; then
	# shellcheck disable=SC2086
	(BACKEND=opencl run ocl 1 $three --set patches.initial_infected=5,0,0 --set patches.beta=0.5 --set "$camp")
	rc=$?
	[ "$rc" -eq 0 ] && cmp -s "$tmp/ref/patches.csv" "$tmp/ocl/patches.csv"
	ok $? "opencl: patches.csv byte for byte openmp's (exit $rc)"
	[ "$rc" -eq 0 ] || diag "$tmp/ocl.out"
else
	skip "opencl: the same bytes" "opencl not built or not available"
fi
# shellcheck disable=SC2086
run ck 1 $three --set patches.initial_infected=5,0,0 --set patches.beta=0.5 --set "$camp" \
	--set checkpoint.every=33 --set checkpoint.directory="$tmp/ckdir"
# shellcheck disable=SC2086
run res 1 $three --set patches.initial_infected=5,0,0 --set patches.beta=0.5 --set "$camp" \
	--set checkpoint.directory="$tmp/ckdir2" --resume "$tmp/ckdir"
rc=$?
[ "$rc" -eq 0 ] && cmp -s "$tmp/ref/patches.csv" "$tmp/res/patches.csv"
ok $? "resumed from a checkpoint at day 33, before the campaigns: the same bytes (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/res.out"

# ---- refused ------------------------------------------------------------------------
refused() { # MESSAGE SIA: weft check refuses sia = SIA with MESSAGE
	"$weft" check "$ex" --set patches.populations=100,100 \
		--set patches.latitudes=47,48 --set patches.longitudes=-122,-122 \
		--set simulation.steps=100 --set patches.sia="$2" > "$tmp/check.out" 2>&1
	[ $? -ne 0 ] && grep -q "\[patches\] sia (--set patches.sia): $1" "$tmp/check.out"
	ok $? "refused: sia = $2"
	diag "$tmp/check.out"
}
refused "campaign 1: a campaign needs day= and coverage=" "day=5"
refused "campaign 2: coverage= wants a number from 0 to 1" "day=5 coverage=1, day=6 coverage=1.5"
refused "campaign 1: day= wants a day of the run (0 to its steps less 1)" "day=100 coverage=0.5"
refused "campaign 2: a second campaign on the same day" "day=5 coverage=0.5, day=5 coverage=0.2 patches=1"
refused "campaign 1: patches= names a patch beyond the last" "day=5 coverage=0.5 patches=0+2"
refused "campaign 1: patches= names a patch beyond the last (or a range A-B with B below A)" "day=5 coverage=0.5 patches=1-0"
refused "campaign 1: unknown field (day=, coverage=, patches=)" "day=5 coverage=0.5 ages=0-5"
refused "campaign 1: a field runs into text after it" "day=5x coverage=0.5"
refused "campaign 1: day= given twice" "day=5 coverage=0.5 day=7"
refused "campaign 1: coverage= wants a number from 0 to 1" "day=5 coverage= 0.5"
refused "campaign 2: a campaign needs day= and coverage=" "day=5 coverage=0.5,"
many=$(awk 'BEGIN { for (i = 0; i < 65; i++) printf "%sday=%d coverage=0.1", i ? "," : "", i }')
refused "campaign 65: more campaigns than 64" "$many"

# ---- the example -------------------------------------------------------------------
# examples/patches-measles.ini (its network file beside it), 30 days.
"$weft" run --quiet "$WEFT_SRCDIR/examples/patches-measles.ini" \
	--set backend.name=openmp --set output.plot=none \
	--set simulation.steps=30 --set output.directory="$tmp/ex" > "$tmp/ex.out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q "^campaigns: [0-9]* agents immunized in 1 campaign$" "$tmp/ex/summary.txt" &&
	[ "$(at ex 21 0 3)" -lt 10000 ] && [ "$(at ex 20 0 3)" -gt 50000 ]
ok $? "examples/patches-measles.ini: its network file found beside it, the city's campaign on day 20 (S $(at ex 20 0 3) then $(at ex 21 0 3)) (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/ex.out"

# ---- a long list of patches ----------------------------------------------------------
# 600 patches of 100, coverage 1 in the even ones: a list of over 1000
# characters, every listed patch immunized.
pops=$(awk 'BEGIN { for (i = 0; i < 600; i++) printf "%s100", i ? "," : "" }')
even=$(awk 'BEGIN { for (i = 0; i < 600; i += 2) printf "%s%d", i ? "+" : "", i }')
run long 1 --set patches.populations="$pops" --set patches.gravity_k=0 \
	--set patches.initial_infected=0 --set simulation.steps=3 \
	--set patches.sia="day=1 coverage=1 patches=$even"
rc=$?
[ "$rc" -eq 0 ] && grep -q "^campaigns: 30000 agents immunized in 1 campaign$" "$tmp/long/summary.txt" &&
	[ "$(at long 2 598 6)" = 100 ] && [ "$(at long 2 599 6)" = 0 ]
ok $? "600 patches, the 300 even ones listed (a list of ${#even} characters): all 30000 of their agents immunized, none of the others (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/long.out"

tap_done
