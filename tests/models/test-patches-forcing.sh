#!/bin/sh
# tests/models/test-patches-forcing.sh - the patch model's seasonality,
# importation and per-patch series (models/patches/patches.md), LASER's
# Transmission(seasonality=...) and Infect_Agents_In_Patch:
# - seasonality = 1 gives counts.csv byte for byte as none (and the golden
#   outputs, in test-patches.sh, are unchanged with none);
# - seasonality = 1,0 (a series repeated, ValuesMap.from_timeseries): no
#   new infections on odd days, and seasonality_file with the same
#   multipliers gives the same outputs;
# - a cosine (seasonality_factor 0.5, peak on day 100) on a setup where the
#   infectious are constant: the daily infection rate of the susceptible
#   around the peak and around the trough each match the forcing within 3 %,
#   and their ratio is (1 + 0.5) / (1 - 0.5) within 5 %;
# - the cosine against LASER's own seasonality: the mean of 20 seeds inside
#   the band of LASER's 20 (tests/data/patches-laser-band-season.csv), a
#   phase 20 days off outside it;
# - importation without transmission (beta 0): exactly importation_count
#   infectious more in each listed patch on each scheduled day, none in
#   the others, and a patch with fewer susceptible gets them all;
# - infectious.csv and incidence.csv: a column per patch, rows as
#   patches.csv's;
# - bad values name the file, the line and the key;
# - models/patches/patches-plot.py draws the heatmap and the map (when
#   matplotlib is there).
# Backends and threads: `weft conform --model=patches` (test-patches.sh)
# runs a configuration with all of them.
set -u
. "$WEFT_SRCDIR/tests/models/patches-tests.sh"
patches_setup forcing

# ---- seasonality -------------------------------------------------------------
run none 1 --set simulation.steps=120
run ones 1 --set simulation.steps=120 --set patches.seasonality=1
cmp -s "$tmp/none/counts.csv" "$tmp/ones/counts.csv"
ok $? "seasonality = 1: counts.csv byte for byte as without seasonality"

run alt 1 --set simulation.steps=120 --set patches.beta=0.8 --set patches.seasonality=1,0 \
	--set patches.patch_series=true
rc=$?
# Row day d holds the infections of day (tick) d - 1: multiplier 0 when
# d - 1 is odd.
[ "$rc" -eq 0 ] && awk -F, 'NR > 2 && $1 % 2 == 0 && $2 != 0 { bad = 1 }
	NR > 2 && $1 % 2 == 1 { n += $2 } END { exit bad || n < 1000 }' "$tmp/alt/incidence.csv"
ok $? "seasonality = 1,0: no new infections on odd days, some on even ones (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/alt.out"
printf '\n  \nmultiplier\n1\n\n0\n' > "$tmp/season.csv"
run altf 1 --set simulation.steps=120 --set patches.beta=0.8 --set patches.seasonality_file="$tmp/season.csv" \
	--set patches.patch_series=true
cmp -s "$tmp/alt/counts.csv" "$tmp/altf/counts.csv" &&
	cmp -s "$tmp/alt/incidence.csv" "$tmp/altf/incidence.csv"
ok $? "seasonality_file with a header after blank lines and 1, 0: outputs byte for byte as seasonality = 1,0"

# The cosine: 1e6 agents, half infectious for good, the exposed never
# infectious, so that the rate of infection of a susceptible on day t is
# 1 - exp(-beta m(t) I / N), m(t) = 1 + 0.5 cos(2 pi (t - 100) / 365).
run cos 1 --set simulation.steps=300 --set patches.populations=1000000 \
	--set patches.initial_infected=500000 --set patches.beta=0.002 \
	--set 'patches.exposed_duration=constant(10000)' \
	--set 'patches.infectious_duration=constant(10000)' \
	--set patches.seasonality_factor=0.5 --set patches.seasonality_phase=100 \
	--set patches.patch_series=true
rc=$?
paste -d, "$tmp/cos/counts.csv" "$tmp/cos/incidence.csv" > "$tmp/cos/both.csv"
awk -F, -v beta=0.002 -v a=0.5 -v ph=100 '
	NR == 1 { next }
	{ S[$1] = $2; I[$1] = $4; N[$1] = $2 + $3 + $4 + $5; inc[$1] = $7 }
	END {
		pi = atan2(0, -1)
		for (t = ph - 7; t <= ph + 7; t++) {
			m = 1 + a * cos(2 * pi * (t - ph) / 365)
			op += inc[t + 1]; sp += S[t]
			ep += S[t] * (1 - exp(-beta * m * I[t] / N[t]))
		}
		for (t = ph + 175; t <= ph + 189; t++) {
			m = 1 + a * cos(2 * pi * (t - ph) / 365)
			ot += inc[t + 1]; st += S[t]
			et += S[t] * (1 - exp(-beta * m * I[t] / N[t]))
		}
		r = (op / sp) / (ot / st)
		want = (1 - exp(-beta * 1.5 * 0.5)) / (1 - exp(-beta * 0.5 * 0.5))
		printf "peak: %d infections for %.1f expected; trough: %d for %.1f; rate ratio %.4f, forcing %.4f\n", op, ep, ot, et, r, want
		exit !(op > 0 && ot > 0 && op / ep > 0.97 && op / ep < 1.03 &&
		       ot / et > 0.97 && ot / et < 1.03 &&
		       r / want > 0.95 && r / want < 1.05)
	}' "$tmp/cos/both.csv" > "$tmp/cos.ratio" 2>&1
r=$?
[ "$rc" -eq 0 ] && [ "$r" -eq 0 ]
ok $? "seasonality_factor 0.5, peak on day 100: incidence around the peak and the trough as the forcing says (exit $rc)"
diag "$tmp/cos.ratio"
[ "$rc" -eq 0 ] || diag "$tmp/cos.out"

# Against LASER: its example with Transmission's seasonality 1 + 0.3
# cos(2 pi (t - 60) / 365) (bench/laser-compare.sh --fresh --season 0.3,60,
# the band of its 20 seeds in tests/data/patches-laser-band-season.csv):
# the mean of weft's 20 seeds inside it, a phase 30 days off (10 seeds)
# not.
lc="$WEFT_SRCDIR/bench/laser-compare.sh"
sband="$WEFT_SRCDIR/tests/data/patches-laser-band-season.csv"
# seeds LABEL RUNS PHASE: the example with the cosine, RUNS seeds.
seeds() {
	"$weft" run --quiet "$ex" --set backend.name=openmp --set output.plot=none \
		--set ensemble.runs="$2" --set patches.seasonality_factor=0.3 \
		--set patches.seasonality_phase="$3" \
		--set output.directory="$tmp/$1" > "$tmp/$1.out" 2>&1
}
seeds sseeds 20 60
# shellcheck disable=SC2046
set -- $(find "$tmp/sseeds" -name counts.csv -path '*/runs/*' | sort | sed 's/^/--counts /')
sh "$lc" --band-only --band "$sband" "$@" "$WEFT_BUILDDIR" > "$tmp/sband.out" 2>&1
r=$?
[ "$r" -eq 0 ] && [ $# -eq 40 ]
ok $? "seasonality 0.3, phase 60: the mean of 20 seeds inside LASER's seed band on at least 95 % of the days (exit $r)"
diag "$tmp/sband.out"
seeds sbiased 10 30
# shellcheck disable=SC2046
set -- $(find "$tmp/sbiased" -name counts.csv -path '*/runs/*' | sort | sed 's/^/--counts /')
sh "$lc" --band-only --band "$sband" "$@" "$WEFT_BUILDDIR" > "$tmp/sbiased.out" 2>&1
r=$?
[ "$r" -eq 1 ]
ok $? "a phase of 30 for LASER's 60 (10 seeds) fails that check (exit $r)"
tail -1 "$tmp/sbiased.out" | diag

# ---- importation ---------------------------------------------------------------
imp="--set patches.beta=0 --set patches.initial_infected=0 --set patches.populations=1000,2000,3000 --set patches.gravity_k=0 --set patches.infectious_duration=constant(1000) --set simulation.steps=40 --set patches.importation_period=7 --set patches.importation_count=5 --set patches.importation_patchlist=0,2 --set patches.importation_start=3 --set patches.importation_end=30"
# shellcheck disable=SC2086
run imp 1 $imp --set patches.patch_series=true
rc=$?
# Imports on days (ticks) 3, 10, 17 and 24, seen in the rows of days 4,
# 11, 18 and 25.
[ "$rc" -eq 0 ] && awk -F, 'NR > 1 {
		want = 0
		if ($2 != 1) for (t = 3; t < 30; t += 7) if ($1 >= t + 1) want += 5
		if ($5 != want || $4 != 0 || $6 != 0 || $3 + $5 != ($2 + 1) * 1000) bad = 1
	} END { exit bad }' "$tmp/imp/patches.csv" &&
	grep -q "^importation: 40 infected, every 7 days from day 3 to before day 30$" "$tmp/imp/summary.txt"
ok $? "importation without transmission: 5 more infectious in patches 0 and 2 on days 3, 10, 17 and 24, none in patch 1, 40 in all (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/imp.out"
awk -F, 'NR > 1 && $3 != 0 { bad = 1 } END { exit bad }' "$tmp/imp/incidence.csv" &&
	[ "$(head -1 "$tmp/imp/infectious.csv")" = "day,p0,p1,p2" ] &&
	[ "$(sed -n 42p "$tmp/imp/infectious.csv")" = "40,20,0,20" ] &&
	[ "$(wc -l < "$tmp/imp/infectious.csv")" -eq 42 ]
ok $? "infectious.csv: a column per patch, a row per day; incidence.csv counts only transmission"
# shellcheck disable=SC2086
run all 1 $imp --set patches.importation_count=400 --set patches.importation_patchlist=0 \
	--set patches.importation_period=1 --set patches.importation_start=0
awk -F, '$2 == 0 && $1 >= 1 { want = 400 * $1; if (want > 1000) want = 1000; if ($5 != want) bad = 1 }
	END { exit bad }' "$tmp/all/patches.csv"
ok $? "400 a day into a patch of 1000: 400, 800, then all 1000"
# Importation into newborns: 5 a day into patches 0 and 2 of 300, 200 and
# 100 agents with births (cbr 100), for 400 days: once the agents of day 0
# are all infectious, the newborns of patches 0 and 2 are, each day (those
# born that day after the importation aside), and none of patch 1's.
# shellcheck disable=SC2086
run born 1 $imp --set patches.populations=300,200,100 --set patches.cbr=100 \
	--set patches.importation_period=1 --set patches.importation_start=0 \
	--set patches.importation_end=0 --set simulation.steps=400
rc=$?
[ "$rc" -eq 0 ] && awk -F, '$1 == 400 && $2 != 1 && ($3 > 2 || $4 + $6 != 0) { bad = 1 }
	$1 == 400 && $2 == 1 && ($5 != 0 || $3 <= 200) { bad = 1 }
	$1 == 400 { n++ } END { exit bad || n != 3 }' "$tmp/born/patches.csv" &&
	awk -F, '$1 == 400 && $2 != 1 { i += $5 } END { exit i <= 400 }' "$tmp/born/patches.csv"
ok $? "importation with births: the newborns of the listed patches infected too, none of the other's (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/born.out"

# ---- errors ------------------------------------------------------------------
# check LINE...: an INI file with these lines in [patches]; weft check.
check() {
	{ printf '[simulation]\nmodel = patches\nsteps = 50\n[patches]\npopulations = 100,200,300\ngravity_k = 0\n'
	  printf '%s\n' "$@"; } > "$tmp/bad.ini"
	"$weft" check "$tmp/bad.ini" > "$tmp/check.out" 2>&1
}
bad() { # bad EXPECTED DESCRIPTION LINE...
	want=$1 what=$2
	shift 2
	check "$@"
	[ $? -ne 0 ] && grep -qF -- "$want" "$tmp/check.out"
	ok $? "$what"
	diag "$tmp/check.out"
}
bad "$tmp/bad.ini:7: [patches] seasonality_factor = 1.5: out of range" \
	"seasonality_factor = 1.5: refused, naming file:line and the key" "seasonality_factor = 1.5"
bad "[patches] seasonality ($tmp/bad.ini:7): item 2, -2, is negative" \
	"a negative multiplier: refused, naming file:line and the key" "seasonality = 1, -2"
bad "[patches] seasonality ($tmp/bad.ini:7): item 2 is not a number" \
	"a multiplier that is not a number: refused" "seasonality = 1, x"
bad "and seasonality_factor ($tmp/bad.ini:8): give one of them" \
	"seasonality and seasonality_factor together: refused, naming both" "seasonality = 1" "seasonality_factor = 0.2"
printf '1\n0.5\nlow\n' > "$tmp/badseason.csv"
bad "[patches] seasonality_file ($tmp/bad.ini:7): $tmp/badseason.csv, line 3: not a number" \
	"seasonality_file with a bad line: refused, naming the key, the file and its line" "seasonality_file = badseason.csv"
bad "[patches] seasonality_file ($tmp/bad.ini:7): cannot open $tmp/none.csv" \
	"seasonality_file that does not exist: refused" "seasonality_file = none.csv"
{ echo 1; printf '0.5,'; awk 'BEGIN { while (i++ < 5000) printf "x"; print "" }'; echo 2; } > "$tmp/longseason.csv"
bad "[patches] seasonality_file ($tmp/bad.ini:7): $tmp/longseason.csv, line 2: a line longer than 4095 bytes" \
	"seasonality_file with a line over 4095 bytes: refused, naming the file and its line" "seasonality_file = longseason.csv"
{ echo population; printf '100'; awk 'BEGIN { while (i++ < 5000) printf " "; print "" }'; echo 200; } > "$tmp/longpatch.csv"
bad "[patches] patch_file ($tmp/bad.ini:7): $tmp/longpatch.csv, line 2: a line longer than 4095 bytes" \
	"patch_file with a line over 4095 bytes: refused, naming the file and its line" "patch_file = longpatch.csv"
bad "$tmp/bad.ini:7: [patches] importation_period = -1: out of range" \
	"importation_period = -1: refused, naming file:line and the key" "importation_period = -1"
bad "$tmp/bad.ini:8: [patches] importation_count = 0: out of range" \
	"importation_count = 0: refused, naming file:line and the key" "importation_period = 7" "importation_count = 0"
bad "[patches] importation_patchlist ($tmp/bad.ini:8): item 2, 3, is not a patch (0 to 2)" \
	"importation_patchlist naming patch 3 of 3: refused, naming file:line and the item" "importation_period = 7" "importation_patchlist = 0, 3"
bad "[patches] importation_end = 5 ($tmp/bad.ini:9) is not after importation_start = 20 ($tmp/bad.ini:8): no day would import" \
	"importation_end before importation_start: refused, naming both" "importation_period = 7" "importation_start = 20" "importation_end = 5"
bad "[patches] importation_start = 60 ($tmp/bad.ini:8) is not before the run's end, [simulation] steps = 50, where importation stops with importation_end = 0 (default)" \
	"importation_start past the run's end, importation_end unset: refused, naming importation_start and steps" "importation_period = 7" "importation_start = 60"
bad "$tmp/bad.ini:7: [patches] patch_series = maybe" \
	"patch_series = maybe: refused, naming file:line and the key" "patch_series = maybe"

"$weft" check "$WEFT_SRCDIR/examples/patches-seasonal.ini" > "$tmp/ex.out" 2>&1
ok $? "examples/patches-seasonal.ini (seasonality, importation, the series): weft check passes"
diag "$tmp/ex.out"

# ---- the plot ----------------------------------------------------------------
printf 'id,population,lat,lon\n0,1000,47.6,-122.3\n1,2000,47.2,-122.4\n2,3000,46.9,-121.9\n' > "$tmp/p.csv"
plot_check "$tmp/imp" "$tmp/p.csv" "the patch series"

tap_done
