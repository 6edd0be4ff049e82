#!/bin/sh
# tests/models/test-patches-migration.sh - the patch model's migration
# models (models/patches/patches.md, "The migration network"), LASER's
# laser_core.migration: gravity, radiation, competing_destinations and
# stouffer, rows scaled down to max_rowsum:
# - for each case of tests/data/patches-migration-cases.txt on the patches
#   of tests/data/patches-migration.csv (a grid, with ties in distance, and
#   scattered patches), weft's network.csv (network_output = true) matches
#   LASER's network, tests/data/patches-migration-ref.csv, within a
#   relative 1e-12 in every entry (double rounding: about 1e-15 measured;
#   0 with network_float32, row_normalizer's float32 network).
#   The reference was computed by LASER (laser-core 1.0.5, with
#   laser-generic 1.1.0), regenerated with a Python that has it by
#     python bench/patches-migration-check.py --python-only \
#       --reference tests/data/patches-migration-ref.csv
#   (without --python-only and with --build BUILD it also compares a fresh
#   weft with a fresh LASER; the cases, network_float32 among them, are
#   tests/data/patches-migration-cases.txt);
# - migration unset is gravity: the same network.csv, and counts.csv of a
#   run with the network the same bytes;
# - radiation carries an epidemic from one patch to the others, the same
#   bytes on 1 and 2 threads;
# - network_output without a network (one patch) writes zeros;
# - examples/patches-migration.ini passes weft check;
# - bad values name the key and where it was set.
set -u
data="$WEFT_SRCDIR/tests/data"
. "$WEFT_SRCDIR/tests/models/patches-tests.sh"
patches_setup migration

# ---- against LASER's networks ----------------------------------------------
while read -r name settings; do
	case "$name" in '' | '#'*) continue ;; esac
	sets=""
	for kv in $settings; do
		sets="$sets --set patches.$kv"
	done
	# shellcheck disable=SC2086
	run "$name" 1 --set simulation.steps=1 --set patches.patch_file="$data/patches-migration.csv" \
		--set patches.initial_infected=1 --set patches.network_output=true $sets
	rc=$?
	[ "$rc" -eq 0 ] && awk -F, -v c="$name" '
		FNR == 1 { next }
		NR == FNR { if ($1 == c) { ref[$2 "," $3] = $4; nref++ } next }
		{ for (j = 2; j <= NF; j++) {
			k = $1 "," (j - 2); w = $j + 0; l = ref[k] + 0; seen++
			if (!(k in ref)) { bad = 1; continue }
			d = w - l; d = d < 0 ? -d : d; s = l < 0 ? -l : l
			r = s > 0 ? d / s : d
			if (r > worst) worst = r } }
		END { printf "%s: %d entries, largest relative difference %.3g\n", c, seen, worst
		      exit bad || nref == 0 || seen != nref || worst > 1e-12 }' \
		"$data/patches-migration-ref.csv" "$tmp/$name/network.csv" > "$tmp/$name.cmp"
	ok $? "$name ($settings): network.csv within 1e-12 of LASER's (exit $rc)"
	diag "$tmp/$name.cmp"
	[ "$rc" -eq 0 ] || diag "$tmp/$name.out"
done < "$data/patches-migration-cases.txt"

# ---- gravity, the default ----------------------------------------------------
three="--set patches.populations=30000,20000,15000 --set patches.latitudes=47.6,47.2,46.9 --set patches.longitudes=-122.3,-122.4,-121.9 --set patches.initial_infected=20,0,0 --set patches.beta=0.4 --set simulation.steps=120"
# shellcheck disable=SC2086
run default 1 $three --set patches.network_output=true
# shellcheck disable=SC2086
run gravity 1 $three --set patches.network_output=true --set patches.migration=gravity
cmp -s "$tmp/default/network.csv" "$tmp/gravity/network.csv" &&
	cmp -s "$tmp/default/counts.csv" "$tmp/gravity/counts.csv"
ok $? "migration = gravity: network.csv and counts.csv byte for byte as without the key"

# ---- radiation in a run ------------------------------------------------------
# shellcheck disable=SC2086
run rad1 1 $three --set patches.migration=radiation --set patches.gravity_k=0.2
rc=$?
# shellcheck disable=SC2086
run rad2 2 $three --set patches.migration=radiation --set patches.gravity_k=0.2
[ "$rc" -eq 0 ] && cmp -s "$tmp/rad1/patches.csv" "$tmp/rad2/patches.csv" &&
	awk -F, '$1 == 120 && $2 > 0 && $6 < 1000 { bad = 1 } END { exit bad }' "$tmp/rad1/patches.csv"
ok $? "radiation: patches 1 and 2 infected through the network, patches.csv the same on 1 and 2 threads (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/rad1.out"
! cmp -s "$tmp/rad1/counts.csv" "$tmp/default/counts.csv"
ok $? "radiation's epidemic is not gravity's"

run one 1 --set simulation.steps=1 --set patches.network_output=true
[ "$(cat "$tmp/one/network.csv" 2>/dev/null)" = "$(printf 'source,p0\n0,0')" ]
ok $? "one patch, no network: network.csv holds its zero"

"$weft" check "$WEFT_SRCDIR/examples/patches-migration.ini" > "$tmp/ex.out" 2>&1
ok $? "examples/patches-migration.ini (radiation, phases per patch, network.csv): weft check passes"
diag "$tmp/ex.out"

# ---- configuration errors ---------------------------------------------------
check() {
	"$weft" check "$ex" "$@" > "$tmp/check.out" 2>&1
}
two="--set patches.populations=1000,2000 --set patches.latitudes=1,2 --set patches.longitudes=3,4"
# shellcheck disable=SC2086
check $two --set patches.migration=radiaton
[ $? -ne 0 ] && grep -qF "weft: --set patches.migration: [patches] migration = radiaton: expected one of: gravity, radiation, competing_destinations, stouffer; did you mean 'radiation'?" "$tmp/check.out"
ok $? "an unknown migration model: refused, naming the key and the models"
diag "$tmp/check.out"
# shellcheck disable=SC2086
check $two --set patches.migration_delta=0.5
[ $? -ne 0 ] && grep -q "\[patches\] migration_delta (--set patches.migration_delta) is a parameter of competing_destinations, not of migration = gravity (default)" "$tmp/check.out"
ok $? "migration_delta with gravity: refused, naming both keys"
# shellcheck disable=SC2086
check $two --set patches.migration=competing_destinations --set patches.migration_include_home=true
[ $? -ne 0 ] && grep -q "\[patches\] migration_include_home (--set patches.migration_include_home) is a parameter of radiation and stouffer, not of migration = competing_destinations (--set patches.migration)" "$tmp/check.out"
ok $? "migration_include_home with competing_destinations: refused, naming both keys"
# shellcheck disable=SC2086
check $two --set patches.migration=stouffer --set patches.gravity_b=-1
[ $? -ne 0 ] && grep -q "\[patches\] gravity_b = -1 (--set patches.gravity_b) is negative; migration = stouffer (--set patches.migration) needs it 0 or more" "$tmp/check.out"
ok $? "stouffer with a negative exponent: refused, naming the exponent and the model"
"$weft" run --quiet "$ex" --set output.plot=none --set output.directory="$tmp/same" --set simulation.steps=1 \
	--set patches.populations=1000,2000 --set patches.latitudes=1,1 --set patches.longitudes=3,3 \
	--set patches.migration=competing_destinations > "$tmp/same.out" 2>&1
[ $? -ne 0 ] && grep -q "\[patches\] latitudes (--set patches.latitudes) and longitudes (--set patches.longitudes), items 1 and 2: patches 0 and 1 are at one place (latitude 1, longitude 3); migration = competing_destinations (--set patches.migration) divides by their distance, 0" "$tmp/same.out"
ok $? "two patches at one place (distance 0): refused, naming the patches and the keys of their coordinates"
diag "$tmp/same.out"
# weft check finds them too, gravity's default blamed no more.
check --set patches.populations=1000,2000,500 --set patches.latitudes=1,2,1 --set patches.longitudes=3,4,3
[ $? -ne 0 ] && grep -q "\[patches\] latitudes (--set patches.latitudes) and longitudes (--set patches.longitudes), items 1 and 3: patches 0 and 2 are at one place (latitude 1, longitude 3); migration = gravity (default) divides by their distance, 0: move one or merge them" "$tmp/check.out"
ok $? "weft check: two patches at one place under gravity, refused naming the patches and latitudes/longitudes"
diag "$tmp/check.out"
printf 'population,lat,lon\n1000,1,3\n\n2000,2,4\n500,1,3\n' > "$tmp/same.csv"
check --set patches.patch_file="$tmp/same.csv"
[ $? -ne 0 ] && grep -q "\[patches\] patch_file (--set patches.patch_file): $tmp/same.csv, lines 2 and 5: patches 0 and 2 are at one place" "$tmp/check.out"
ok $? "weft check: two rows of patch_file at one place, refused naming the file and both lines"
diag "$tmp/check.out"
check --set patches.patch_file="$tmp/same.csv" --set patches.migration=radiation
ok $? "two patches at one place under radiation (no division by the distance): weft check passes"
diag "$tmp/check.out"

tap_done
