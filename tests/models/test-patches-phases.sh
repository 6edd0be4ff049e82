#!/bin/sh
# tests/models/test-patches-phases.sh - the patch model's seasonality per
# patch (models/patches/patches.md, Seasonality): seasonality_phases and
# seasonality_factors, a cosine of its own for each patch (LASER's
# ValuesMap by day and node):
# - two patches apart (gravity_k = 0), half of each infectious for good
#   and the exposed never infectious, so that a susceptible agent's daily
#   chance of infection is 1 - exp(-beta m_j(t) / 2): with phases 60 and
#   240 the first harmonic of each patch's daily infection rate over a
#   year peaks within 3 days of its phase, with amplitude 0.5 within 10 %;
#   with factors 0.2 and 0.8 (one phase) the amplitudes are each patch's;
# - each patch of the per-patch run is, byte for byte, the patch of a run
#   with its phase for every patch (seasonality_phase); patch_file's
#   column seasonality_phase gives the same bytes as the list;
# - with the gravity network, the same bytes on 1 and 2 threads, on
#   template and on opencl;
# - unset, the outputs are those of before (the golden outputs of
#   test-patches.sh and the seasonality tests of
#   test-patches-forcing.sh);
# - bad lists name the key and where it was set.
set -u
. "$WEFT_SRCDIR/tests/models/patches-tests.sh"
patches_setup phases

# Two patches of 200 000, half infectious for good, apart, a year.
apart="--set simulation.steps=365 --set patches.populations=200000,200000 --set patches.initial_infected=100000 --set patches.beta=0.002 --set patches.exposed_duration=constant(10000) --set patches.infectious_duration=constant(10000) --set patches.gravity_k=0 --set patches.patch_series=true"

# harmonic DIR: per patch, "PEAK AMPLITUDE" of the first harmonic of the
# daily infection rate of the susceptible: row d of incidence.csv holds the
# infections of day (tick) d - 1, of the susceptible of row d - 1.
harmonic() {
	awk -F, 'FNR == 1 { next }
		NR == FNR { S[$1 "," $2] = $3; next }
		$1 > 0 { for (j = 0; j < 2; j++) {
			r = $(j + 2) / S[($1 - 1) "," j]
			th = 2 * 3.141592653589793 * ($1 - 1) / 365
			c[j] += r * cos(th); s[j] += r * sin(th); m[j] += r } }
		END { for (j = 0; j < 2; j++) {
			pk = atan2(s[j], c[j]) * 365 / (2 * 3.141592653589793)
			if (pk < 0) pk += 365
			printf "%.2f %.4f\n", pk, 2 * sqrt(c[j] ^ 2 + s[j] ^ 2) / m[j] } }' \
		"$1/patches.csv" "$1/incidence.csv"
}

# ---- the phases ----------------------------------------------------------------
# shellcheck disable=SC2086
run pp 1 $apart --set patches.seasonality_factor=0.5 --set patches.seasonality_phases=60,240
rc=$?
harmonic "$tmp/pp" > "$tmp/pp.h" 2>/dev/null
[ "$rc" -eq 0 ] && awk 'NR == 1 { ph = 60 } NR == 2 { ph = 240 }
	{ d = $1 - ph; d = d < 0 ? -d : d; if (d > 3 || $2 < 0.45 || $2 > 0.55) bad = 1 }
	END { exit bad || NR != 2 }' "$tmp/pp.h"
ok $? "phases 60 and 240: each patch's infection rate peaks within 3 days of its phase, amplitude 0.5 within 10 % (exit $rc)"
diag "$tmp/pp.h"
[ "$rc" -eq 0 ] || diag "$tmp/pp.out"

# shellcheck disable=SC2086
run p60 1 $apart --set patches.seasonality_factor=0.5 --set patches.seasonality_phase=60
# shellcheck disable=SC2086
run p240 1 $apart --set patches.seasonality_factor=0.5 --set patches.seasonality_phase=240
[ -s "$tmp/pp/patches.csv" ] &&
	[ "$(grep '^[0-9]*,0,' "$tmp/pp/patches.csv")" = "$(grep '^[0-9]*,0,' "$tmp/p60/patches.csv")" ] &&
	[ "$(grep '^[0-9]*,1,' "$tmp/pp/patches.csv")" = "$(grep '^[0-9]*,1,' "$tmp/p240/patches.csv")" ]
ok $? "each patch byte for byte as in a run with its phase for every patch"
! cmp -s "$tmp/p60/patches.csv" "$tmp/p240/patches.csv"
ok $? "the two phases make different epidemics"
printf 'population,initial_infected,seasonality_phase\n200000,100000,60\n200000,100000,240\n' > "$tmp/ph.csv"
# shellcheck disable=SC2086
run pfile 1 $apart --set patches.seasonality_factor=0.5 --set patches.patch_file="$tmp/ph.csv"
[ -s "$tmp/pfile/patches.csv" ] && cmp -s "$tmp/pp/patches.csv" "$tmp/pfile/patches.csv"
ok $? "patch_file's column seasonality_phase: patches.csv byte for byte as with seasonality_phases"
[ -s "$tmp/pfile/patches.csv" ] || diag "$tmp/pfile.out"

# ---- the factors ---------------------------------------------------------------
# shellcheck disable=SC2086
run pf 1 $apart --set patches.seasonality_factors=0.2,0.8 --set patches.seasonality_phase=100
rc=$?
harmonic "$tmp/pf" > "$tmp/pf.h" 2>/dev/null
[ "$rc" -eq 0 ] && awk 'NR == 1 { a = 0.2 } NR == 2 { a = 0.8 }
	{ d = $1 - 100; d = d < 0 ? -d : d; if (d > 3 || $2 < 0.9 * a || $2 > 1.1 * a) bad = 1 }
	END { exit bad || NR != 2 }' "$tmp/pf.h"
ok $? "factors 0.2 and 0.8: each patch's amplitude within 10 %, peak within 3 days of day 100 (exit $rc)"
diag "$tmp/pf.h"

# ---- with the network ------------------------------------------------------------
three="--set patches.populations=30000,20000,15000 --set patches.latitudes=47.6,47.2,46.9 --set patches.longitudes=-122.3,-122.4,-121.9 --set patches.initial_infected=20,0,0 --set patches.beta=0.4 --set simulation.steps=120 --set patches.seasonality_phases=0,100,200 --set patches.seasonality_factors=0.9,0.5,0.1"
# shellcheck disable=SC2086
run net1 1 $three
rc=$?
# shellcheck disable=SC2086
run net2 2 $three
[ "$rc" -eq 0 ] && cmp -s "$tmp/net1/patches.csv" "$tmp/net2/patches.csv"
ok $? "three patches with the network and their own cosines: the same bytes on 1 and 2 threads (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/net1.out"
for b in template opencl; do
	if ! available "$b"; then
		skip "$b: the same bytes" "$b not built or not available"
		continue
	fi
	# shellcheck disable=SC2086
	(BACKEND=$b run "net-$b" 1 $three)
	rc=$?
	[ "$rc" -eq 0 ] && cmp -s "$tmp/net1/patches.csv" "$tmp/net-$b/patches.csv"
	ok $? "$b: the same bytes as openmp's (exit $rc)"
	[ "$rc" -eq 0 ] || diag "$tmp/net-$b.out"
done

# ---- configuration errors ---------------------------------------------------
check() {
	"$weft" check "$ex" "$@" > "$tmp/check.out" 2>&1
}
two="--set patches.populations=1000,2000 --set patches.gravity_k=0"
# shellcheck disable=SC2086
check $two --set patches.seasonality_factor=0.3 --set patches.seasonality_phases=1,2,3
[ $? -ne 0 ] && grep -q "\[patches\] seasonality_phases (--set patches.seasonality_phases): 3 numbers for 2 patches; give one per patch" "$tmp/check.out"
ok $? "three phases for two patches: refused, naming the key"
diag "$tmp/check.out"
# shellcheck disable=SC2086
check $two --set patches.seasonality_factors=0.3,1.5
[ $? -ne 0 ] && grep -q "\[patches\] seasonality_factors (--set patches.seasonality_factors): item 2, 1.5, is not in \[0, 1\]" "$tmp/check.out"
ok $? "a factor above 1: refused, naming the key and the item"
# shellcheck disable=SC2086
check $two --set patches.seasonality_phases=10,20
[ $? -ne 0 ] && grep -q "\[patches\] seasonality_phases (--set patches.seasonality_phases) needs an amplitude: seasonality_factor (default) above 0, or seasonality_factors" "$tmp/check.out"
ok $? "phases without an amplitude: refused, naming the keys"
printf 'population,seasonality_factor\n100,0.5\n200,2\n' > "$tmp/badf.csv"
check --set patches.patch_file="$tmp/badf.csv" --set patches.gravity_k=0
[ $? -ne 0 ] && grep -q "\[patches\] patch_file (--set patches.patch_file): $tmp/badf.csv, line 3: seasonality_factor is not in \[0, 1\]" "$tmp/check.out"
ok $? "patch_file with a factor of 2: refused, naming the file and its line"
diag "$tmp/check.out"
check --set patches.patch_file="$tmp/ph.csv" --set patches.gravity_k=0 --set patches.seasonality_phases=1,2 --set patches.seasonality_factor=0.1
[ $? -ne 0 ] && grep -q "\[patches\] seasonality_phases (--set patches.seasonality_phases) and patch_file's column seasonality_phase (--set patches.patch_file): give one of them" "$tmp/check.out"
ok $? "seasonality_phases and the column seasonality_phase: refused, naming both"
printf 'population,seasonality_phase\n100,5\n200,\n' > "$tmp/empty.csv"
check --set patches.patch_file="$tmp/empty.csv" --set patches.gravity_k=0 --set patches.seasonality_factor=0.1
[ $? -ne 0 ] && grep -q "\[patches\] patch_file (--set patches.patch_file): $tmp/empty.csv, line 3: the column seasonality_phase is empty or not a number" "$tmp/check.out"
ok $? "patch_file with an empty phase: refused, naming the file, the line and the column"
diag "$tmp/check.out"
printf 'population,seasonality_phase,initial_infected\n100,,5\n200,3,1\n' > "$tmp/gap.csv"
check --set patches.patch_file="$tmp/gap.csv" --set patches.gravity_k=0 --set patches.seasonality_factor=0.1
[ $? -ne 0 ] && grep -q "$tmp/gap.csv, line 2: the column seasonality_phase is empty or not a number" "$tmp/check.out"
ok $? "patch_file with ',,': the empty field kept (columns not shifted), refused"
diag "$tmp/check.out"
printf 'population,seasonality_phase\n100,5\n200\n' > "$tmp/short.csv"
check --set patches.patch_file="$tmp/short.csv" --set patches.gravity_k=0 --set patches.seasonality_factor=0.1
[ $? -ne 0 ] && grep -q "$tmp/short.csv, line 3: the column seasonality_phase is empty or not a number" "$tmp/check.out"
ok $? "patch_file with a row short of a column: refused, naming the line and the column"
check --set patches.patch_file="$tmp/ph.csv" --set patches.gravity_k=0
[ $? -ne 0 ] && grep -q "\[patches\] patch_file (--set patches.patch_file): $tmp/ph.csv's column seasonality_phase needs an amplitude: a column seasonality_factor, seasonality_factor (default) above 0, or seasonality_factors" "$tmp/check.out"
ok $? "patch_file's phases without an amplitude: refused, naming patch_file's column"
diag "$tmp/check.out"
check --set patches.patch_file="$tmp/ph.csv" --set patches.gravity_k=0 --set patches.seasonality=1,2
[ $? -ne 0 ] && grep -q "\[patches\] seasonality (--set patches.seasonality), seasonality_file (default) and patch_file (--set patches.patch_file): $tmp/ph.csv's column seasonality_phase: give one of them" "$tmp/check.out"
ok $? "seasonality with patch_file's phases: refused, naming patch_file's column"
diag "$tmp/check.out"
# shellcheck disable=SC2086
check $two --set patches.seasonality=1,0 --set patches.seasonality_factors=0.1,0.2
[ $? -ne 0 ] && grep -q "give one of them" "$tmp/check.out"
ok $? "per-patch factors with a list of multipliers: refused"

tap_done
