#!/bin/sh
# tests/models/test-patches-network.sh - the patch model's network given
# as a file (network_file), its two forms of mixing (mixing_form) and
# laser-measles' daily chance of death (cdr_mode = measles)
# (models/patches/patches.md, The migration network, Against
# laser-measles):
# - a network written by network_output and read back by network_file
#   gives the run byte for byte, on openmp and opencl;
# - mixing_form = infectious divides patch i's infectious by patch j's
#   agents, force by patch i's: a small patch next to a large one is all
#   exposed on the first day with one and not with the other;
# - bad files and keys are refused naming the key, the file and its line;
# - cdr_mode = measles: deaths at (1 + cdr/1000)^(1/365) - 1 a day, told
#   apart from cdr_mode = laser's chance.
set -u
. "$WEFT_SRCDIR/tests/models/patches-tests.sh"
patches_setup network

nine="--set patches.populations=20000,5000,2000,5000,3000,1000,2000,1000,500 --set patches.latitudes=47.0,47.0,47.0,47.5,47.5,47.5,48.0,48.0,48.0 --set patches.longitudes=-122.0,-121.5,-121.0,-122.0,-121.5,-121.0,-122.0,-121.5,-121.0 --set patches.initial_infected=20,0,0,0,0,0,0,0,0 --set patches.beta=0.3 --set patches.migration=radiation --set patches.gravity_k=0.05 --set patches.cbr=30 --set patches.cdr=10 --set simulation.steps=150"
file="--set patches.populations=20000,5000,2000,5000,3000,1000,2000,1000,500 --set patches.initial_infected=20,0,0,0,0,0,0,0,0 --set patches.beta=0.3 --set patches.cbr=30 --set patches.cdr=10 --set simulation.steps=150"

# ---- network_file: network_output's file read back ---------------------------
# shellcheck disable=SC2086
run model 1 $nine --set patches.network_output=true
rc=$?
[ "$rc" -eq 0 ] && cp "$tmp/model/network.csv" "$tmp/net.csv"
# shellcheck disable=SC2086
run file 1 $file --set patches.network_file="$tmp/net.csv" \
	--set patches.network_output=true
rc2=$?
[ "$rc" -eq 0 ] && [ "$rc2" -eq 0 ] &&
	awk -F, 'END { exit !($5 > 10000) }' "$tmp/model/counts.csv" &&
	cmp -s "$tmp/model/patches.csv" "$tmp/file/patches.csv" &&
	cmp -s "$tmp/model/network.csv" "$tmp/file/network.csv"
ok $? "radiation's network (network_output) read back by network_file: network.csv and patches.csv byte for byte (exit $rc, $rc2)"
[ "$rc2" -eq 0 ] || diag "$tmp/file.out"
if available opencl; then
	# shellcheck disable=SC2086
	(BACKEND=opencl run filecl 1 $file --set patches.network_file="$tmp/net.csv")
	rc=$?
	[ "$rc" -eq 0 ] && cmp -s "$tmp/model/patches.csv" "$tmp/filecl/patches.csv"
	ok $? "opencl: the same bytes with network_file (exit $rc)"
	[ "$rc" -eq 0 ] || diag "$tmp/filecl.out"
else
	skip "opencl: the same bytes with network_file" "opencl not built or not available"
fi

# ---- mixing_form ------------------------------------------------------------------
# Patch 0: 1000 agents, 10 infectious; patch 1: 10 agents; network[0][1]
# 0.5; beta 100, the chance the force itself (linear). infectious: patch
# 1's force is 100 x 10 x 0.5 / 10 = 50, everyone exposed on day 0;
# force: patch 0's force 100 x 10 / 1000 = 1 times 0.5, a chance of 0.5.
printf 'source,p0,p1\n0,0,0.5\n1,0,0\n' > "$tmp/half.csv"
two="--set patches.populations=1000,10 --set patches.initial_infected=10,0 --set patches.beta=100 --set patches.infection_probability=linear --set patches.network_file=$tmp/half.csv --set patches.infectious_duration=constant(5) --set simulation.steps=1"
# E of patch 1 after day 0 (patches.csv: day,patch,S,E,I,R).
e1() { awk -F, '$1 == 1 && $2 == 1 { print $4 }' "$tmp/$1/patches.csv"; }
# shellcheck disable=SC2086
run inf 1 $two --set patches.mixing_form=infectious
rc=$?
# shellcheck disable=SC2086
run frc 1 $two
rc2=$?
[ "$rc" -eq 0 ] && [ "$rc2" -eq 0 ] && [ "$(e1 inf)" = 10 ] &&
	[ "$(e1 frc)" -lt 10 ] && [ "$(e1 frc)" -gt 0 ]
ok $? "mixing_form: the infectious of a large patch expose all 10 agents of a small one (infectious: $(e1 inf)), the flow of its force about half (force: $(e1 frc)) (exit $rc, $rc2)"

# ---- refused --------------------------------------------------------------------------
check() {
	"$weft" check "$ex" --set patches.populations=100,100 \
		--set patches.initial_infected=1,0 "$@" > "$tmp/check.out" 2>&1
}
refused() { # MESSAGE WHAT [--set ...]: check refuses with MESSAGE
	msg=$1 what=$2
	shift 2
	check "$@"
	[ $? -ne 0 ] && grep -q "$msg" "$tmp/check.out"
	ok $? "refused: $what"
	diag "$tmp/check.out"
}
printf '0,-0.1\n0.1,0\n' > "$tmp/neg.csv"
printf '0,0.1\n0.1,0\n\n0,0.2\n' > "$tmp/three.csv"
printf '0.1,0.1\n0.1,0\n' > "$tmp/diag.csv"
printf 'source,p0,p1\n0,0,0.1\n' > "$tmp/one.csv"
printf 'source,p0,p1\n0,0,0.2\n5,0.1,0\n' > "$tmp/label.csv"
printf '0,0.7\n0.2,0\n' > "$tmp/big.csv"
printf '0,0.1,\n0.1,0\n' > "$tmp/comma.csv"
printf 'infected_from,to_0\n0,1e-320\n0.1,0\n' > "$tmp/tiny.csv"
printf '0,0.1\n0.1,abc\n' > "$tmp/text.csv"
refused "network_file (--set patches.network_file): cannot open $tmp/none.csv" \
	"a missing network_file, naming it" --set patches.network_file="$tmp/none.csv"
refused "neg.csv, line 1: a negative entry" "a negative entry, naming the file's line" \
	--set patches.network_file="$tmp/neg.csv"
refused "three.csv, line 4: more rows than patches" "more rows than patches" \
	--set patches.network_file="$tmp/three.csv"
refused "diag.csv, line 1: the entry from a patch to itself is not 0" \
	"an entry from a patch to itself" --set patches.network_file="$tmp/diag.csv"
refused "one.csv: 1 row for 2 patches" "fewer rows than patches" \
	--set patches.network_file="$tmp/one.csv"
refused "label.csv, line 3: a row of one field more than the patches does not begin with its source patch's number" \
	"a row labelled with another patch" --set patches.network_file="$tmp/label.csv"
refused "comma.csv, line 1: a comma at the end of the line (an empty entry)" \
	"a comma at the end of a row" --set patches.network_file="$tmp/comma.csv"
refused "text.csv, line 2: an entry is not a number" "an entry that is not a number" \
	--set patches.network_file="$tmp/text.csv"
check --set patches.network_file="$tmp/tiny.csv"
[ $? -eq 0 ]
ok $? "a header beginning with 'inf' and an entry of 1e-320 (below the doubles' normal range): accepted"
diag "$tmp/check.out"
"$weft" check "$ex" --set patches.populations=100 \
	--set patches.network_file="$tmp/none.csv" > "$tmp/check.out" 2>&1
[ $? -ne 0 ] && grep -q "cannot open $tmp/none.csv" "$tmp/check.out"
ok $? "refused: a missing network_file with one patch too"
diag "$tmp/check.out"
refused "\[patches\] max_rowsum (--set patches.max_rowsum) is a parameter of the migration model, which network_file (--set patches.network_file) replaces" \
	"a migration model's key with network_file" \
	--set patches.network_file="$tmp/big.csv" --set patches.max_rowsum=0.5
check --set patches.network_file="$tmp/big.csv" --set patches.mixing_form=infectious
[ $? -eq 0 ]
ok $? "a row sum of 0.7 with mixing_form = infectious: accepted"
printf '0,0.7\n1.25,0\n' > "$tmp/big.csv"
refused "mixing_form = infectious (--set patches.mixing_form): the network's row of patch 1 sums to 1.25, above 1" \
	"a row sum above 1 with mixing_form = infectious" \
	--set patches.network_file="$tmp/big.csv" --set patches.mixing_form=infectious

# ---- cdr_mode = measles -------------------------------------------------------------
# 1 000 000 agents, no one infected, cdr 100 for 10 days: deaths
# N (1 - (1 - p)^10), p = 1.1^(1/365) - 1 (measles: 2611.6 expected, sd
# 51) or 1 - exp(-(1 - 0.9^(1/365))) (laser: 2883.8), 5 sd apart.
dead() { awk -F, '$1 == 10 { print 1000000 - $2 - $3 - $4 - $5 }' "$tmp/$1/counts.csv"; }
mort="--set patches.populations=1000000 --set patches.initial_infected=0 --set patches.cdr=100 --set simulation.steps=10"
# shellcheck disable=SC2086
run dm 1 $mort --set patches.cdr_mode=measles
rc=$?
# shellcheck disable=SC2086
run dl 1 $mort
rc2=$?
[ "$rc" -eq 0 ] && [ "$rc2" -eq 0 ] &&
	awk -v m="$(dead dm)" -v l="$(dead dl)" 'BEGIN {
		n = 1e6; pm = exp(log(1.1) / 365) - 1
		pl = 1 - exp(-(1 - exp(log(0.9) / 365)))
		em = n * (1 - (1 - pm) ^ 10); el = n * (1 - (1 - pl) ^ 10)
		exit !((m - em) ^ 2 < 9 * em && (l - el) ^ 2 < 9 * el) }'
ok $? "cdr 100, 10 days, 10^6 agents: $(dead dm) deaths with cdr_mode = measles (2612 expected), $(dead dl) with laser (2884), each within 3 sd (exit $rc, $rc2)"

tap_done
