#!/bin/sh
# tests/models/test-seir-patches.sh - SEIR's patches ([seir] patch_file;
# models/seir/seir.md "Patches"): agents placed in the patches of a CSV
# file, households, schools and workplaces within a patch, community
# contacts between patches along LASER's migration network
# (tests/models/test-population.c checks the layers one by one):
#   - six towns (one empty) with an epidemic seeded in the first: the
#     same bytes on openmp with 1 and 2 threads, without the frontier,
#     on the template backend, opencl and the CUDA stand-in, and by_patch.csv
#     too;
#   - by_patch.csv: a row per patch a day, its columns adding up to
#     daily.csv's new infections, severe, critical, deaths and diagnoses
#     every day; the empty town has none;
#   - the share of community contacts between patches is the network's
#     (within 10 %), and without mixing (gravity_k = 0) none crosses and
#     the epidemic stays in the first town; with mixing it reaches every
#     town;
#   - network_file's network instead: only the towns it joins mix, and
#     the share built is the file's;
#   - a variant imported into one town (patch=N) starts its epidemic
#     there;
#   - initial_infected seeds the patches it names;
#   - seasonal forcing (seasonality_factor, in every run above): its peak
#     early gives more early infections than its trough;
#   - one patch of everyone gives the run without patches, byte for
#     byte;
#   - a checkpoint and a resume give the run's bytes;
#   - models/patches/patches-plot.py draws by_patch.csv's heatmap and
#     map (skipped without matplotlib);
#   - examples/seir-clatsop.ini runs;
#   - bad input fails naming the key, the file and its line.
set -u
. "$WEFT_SRCDIR/tests/tap.sh"
. "$WEFT_SRCDIR/tests/models/patches-tests.sh" # plot_check
. "$WEFT_SRCDIR/tests/models/seir-backends.sh"
seir_setup seir-patches

cp "$WEFT_SRCDIR/tests/data/seir-towns.csv" "$tmp/towns.csv"
cat > "$tmp/all.ini" <<'EOI'
[simulation]
model = seir
steps = 120
seed = 3
[output]
plot = none
[seir]
population = synthetic
patch_file = towns.csv
community_contacts = 12
age_bands = 0-17, 18-64, 65+
test_interventions = days=10- symp=0.2
infection_log = true
seasonality_factor = 0.3
seasonality_phase = 30
EOI

run() { seir_run "$@"; }

# ---- the same bits everywhere ------------------------------------------------
seir_everywhere "six towns"
for d in omp2 nofront tpl ocl mock; do
	[ -f "$tmp/$d/by_patch.csv" ] || continue
	cmp "$tmp/ref/by_patch.csv" "$tmp/$d/by_patch.csv" || echo "by_patch differs: $d"
done > "$tmp/bp.txt"
[ ! -s "$tmp/bp.txt" ]
ok $? "six towns: by_patch.csv is the same bytes wherever the outputs are $(cat "$tmp/bp.txt")"

# ---- by_patch.csv --------------------------------------------------------------
bp="$tmp/ref/by_patch.csv"
head -n 1 "$bp" | grep -q '^day,patch,new_infections,new_severe,new_critical,new_deaths,new_diagnoses$'
ok $? "by_patch.csv: day, patch and the five measures of by_age.csv"
awk -F, 'NR > 1 { rows[$1]++ } END { for (d in rows) if (rows[d] != 6) bad = 1; exit !(!bad && length(rows) == 121) }' "$bp"
ok $? "by_patch.csv: six rows (patches 0-5) for each of the 121 days"
# daily.csv's columns: new_infections 8, new_deaths 9, new_severe 12,
# new_critical 13, new_diagnoses 20.
awk -F, 'FNR == 1 { next }
	FILENAME ~ /by_patch/ { i[$1] += $3; s[$1] += $4; c[$1] += $5; d[$1] += $6; g[$1] += $7; next }
	{ if (i[$1] != $8 || d[$1] != $9 || s[$1] != $12 || c[$1] != $13 || g[$1] != $20) bad = 1; n += $8 }
	END { exit !(!bad && n > 1000) }' "$bp" "$tmp/ref/daily.csv"
ok $? "by_patch.csv: the patches add up to daily.csv's new infections, severe, critical, deaths and diagnoses every day ($(awk -F, 'NR > 1 { n += $8 } END { print n }' "$tmp/ref/daily.csv") infections)"
awk -F, 'NR > 1 && $2 == 4 && ($3 + $4 + $5 + $6 + $7) { bad = 1 }
	NR > 1 && $2 != 0 && $2 != 4 { t[$2] += $3 }
	END { exit !(!bad && t[1] > 0 && t[2] > 0 && t[3] > 0 && t[5] > 0) }' "$bp"
ok $? "by_patch.csv: the epidemic reaches every town from the first; the empty town has no event"

# ---- the mixing -------------------------------------------------------------------
line=$(grep 'community contacts between patches' "$tmp/ref/summary.txt")
got=$(echo "$line" | sed -n 's/.*(\([0-9.]*\) %; the network.s share \([0-9.]*\) %).*/\1 \2/p')
echo "$got" | awk '{ exit !($2 > 1 && $1 / $2 > 0.9 && $1 / $2 < 1.1) }'
ok $? "mixing: the share of community contacts between patches is the network's within 10 % ($got, in %)"
run nomix openmp 2 --set seir.gravity_k=0
awk -F, 'NR > 1 && $2 != 0 && $3 { bad = 1 } NR > 1 && $2 == 0 { n += $3 } END { exit !(!bad && n > 100) }' "$tmp/nomix/by_patch.csv" &&
	grep -q 'community contacts between patches: 0 of' "$tmp/nomix/summary.txt"
ok $? "gravity_k = 0: no community contact crosses, the epidemic stays in the first town"

# An empty patch takes no share, wherever it lies: first in the file and
# at the place of another, on every migration model.
{
	echo 'population,latitude,longitude,initial_infected'
	echo '0,40.30,-75.20,0'
	sed -n '2,4p;7p' "$tmp/towns.csv" | cut -d, -f2-
} > "$tmp/empty.csv"
st=0
for m in gravity radiation stouffer competing_destinations; do
	run "e-$m" openmp 2 --set seir.patch_file="$tmp/empty.csv" --set seir.migration="$m" || st=1
	grep -q 'infections per agent by patch.*(patch [1-9])' "$tmp/e-$m/summary.txt" || st=1
	awk -F, 'NR > 1 && $2 == 0 && ($3 + $4 + $5 + $6 + $7) { bad = 1 } END { exit bad }' "$tmp/e-$m/by_patch.csv" || st=1
	sed -n 's/.*(\([0-9.]*\) %; the network.s share \([0-9.]*\) %).*/\1 \2/p' "$tmp/e-$m/summary.txt" |
		awk '{ exit !($2 > 0 && $1 / $2 > 0.8 && $1 / $2 < 1.2) }' || st=1
done
ok $st "an empty first patch at another's place: no event, no share, on gravity, radiation, stouffer and competing_destinations"

# A network from a file: only the first two towns mix (a fifth of the
# first's community contacts go to the second, a tenth of the second's
# to the first); the others stay unreached, and the share built is the
# file's.
cat > "$tmp/net.csv" <<'EON'
from\to,0,1,2,3,4,5
0,0,0.2,0,0,0,0
1,0.1,0,0,0,0,0
2,0,0,0,0,0,0
3,0,0,0,0,0,0
4,0,0,0,0,0,0
5,0,0,0,0,0,0
EON
run netf openmp 2 --set seir.network_file="$tmp/net.csv"
awk -F, 'NR > 1 && ($2 == 2 || $2 == 3 || $2 == 5) && $3 { bad = 1 } NR > 1 && $2 == 1 { n += $3 } END { exit !(!bad && n > 100) }' "$tmp/netf/by_patch.csv" &&
	sed -n 's/.*(\([0-9.]*\) %; the network.s share \([0-9.]*\) %).*/\1 \2/p' "$tmp/netf/summary.txt" |
	awk '{ exit !($2 > 10.70 && $2 < 10.72 && $1 / $2 > 0.9 && $1 / $2 < 1.1) }'
ok $? "network_file: the second town reached, the others not; the share built the file's, (6000 x 0.2 + 3000 x 0.1) / 14000 = 10.71 % ($(sed -n 's/.*between patches: //p' "$tmp/netf/summary.txt"))"

# ---- seeds ------------------------------------------------------------------------
sed 's/^2,2500,40.10,-74.60,0$/2,2500,40.10,-74.60,7/' "$tmp/towns.csv" > "$tmp/seeds.csv"
run seeds openmp 2 --set seir.patch_file="$tmp/seeds.csv" --set seir.gravity_k=0
# daily.csv's day 0: E = 22 (15 + 7); no mixing: the second town's
# epidemic is its own, the towns unseeded have none.
awk -F, 'NR == 2 { exit !($3 == 22) }' "$tmp/seeds/daily.csv" &&
	awk -F, 'NR > 1 && $2 == 2 { n += $3 } NR > 1 && ($2 == 1 || $2 == 3 || $2 == 5) { o += $3 } END { exit !(n > 0 && o == 0) }' "$tmp/seeds/by_patch.csv"
ok $? "initial_infected: 15 + 7 seeds in the towns that name them, the second town's epidemic its own"

# Imports into a patch (a variant's patch=N): ten of delta into the
# fourth town on day 20, no mixing; its epidemic begins on day 20, the
# towns neither seeded nor imported into have none.
run imp openmp 2 --set seir.gravity_k=0 --set seir.waning=true --set seir.test_interventions= \
	--set 'seir.variants=variant=delta day=20 imports=10 patch=3'
awk -F, 'NR > 1 && $2 == 3 && $1 < 20 && $3 { bad = 1 } NR > 1 && $2 == 3 && $1 == 20 && $3 != 10 { bad = 1 }
	NR > 1 && $2 == 3 { n += $3 } NR > 1 && ($2 == 1 || $2 == 2 || $2 == 5) && $3 { bad = 1 }
	END { exit !(!bad && n > 10) }' "$tmp/imp/by_patch.csv"
ok $? "imports with patch=3: 10 on day 20 in the fourth town, its epidemic from then on, none in the towns unseeded ($(awk -F, 'NR > 1 && $2 == 3 { n += $3 } END { print n }' "$tmp/imp/by_patch.csv") there)"

# ---- seasonality ------------------------------------------------------------------
# The cosine's peak on day 0 against its trough there: more infections
# in the first 60 days.
early() {
	awk -F, 'NR > 1 && $1 <= 60 { n += $8 } END { print n + 0 }' "$tmp/$1/daily.csv"
}
run peak openmp 2 --set seir.seasonality_factor=0.5 --set seir.seasonality_phase=0 &&
	run trough openmp 2 --set seir.seasonality_factor=0.5 --set seir.seasonality_phase=182.5
hi=$(early peak) lo=$(early trough)
[ "$hi" -gt "$lo" ] && [ "$lo" -gt 0 ]
ok $? "seasonality_factor 0.5: its peak on day 0 gives more infections in 60 days than its trough ($hi against $lo)"

# Common random numbers hold with seasonality: a measure from day 40
# changes nothing before day 40 (the level chance is the season's peak,
# whatever the interventions).
run crn0 openmp 2 --set seir.crn=true --set seir.seasonality_phase=50 &&
	run crn1 openmp 2 --set seir.crn=true --set seir.seasonality_phase=50 \
		--set 'seir.interventions=all 40-60 0.5'
first=$(awk -F, 'NR == FNR { a[FNR] = $0; next } a[FNR] != $0 { print $1; exit }' \
	"$tmp/crn0/daily.csv" "$tmp/crn1/daily.csv")
[ -n "$first" ] && [ "$first" -ge 40 ]
ok $? "crn with seasonality: an intervention from day 40 first changes daily.csv on day ${first:-none}"

# ---- one patch is none -----------------------------------------------------------
printf 'population\n14000\n' > "$tmp/one.csv"
run one openmp 2 --set seir.patch_file="$tmp/one.csv" \
	--set seir.initial_infected=15 &&
	run none openmp 2 --set seir.patch_file= --set seir.agents=14000 \
		--set seir.initial_infected=15
st=$?
for f in daily.csv by_age.csv reproduction.csv; do
	cmp "$tmp/one/$f" "$tmp/none/$f" || st=1
done
ok $st "one patch of 14,000 agents gives the run of 14,000 without patches, byte for byte"

# ---- a checkpoint resumed -----------------------------------------------------
run ck openmp 2 --set checkpoint.every=50 --set checkpoint.directory="$tmp/ckdir" &&
	run res openmp 1 --set checkpoint.directory="$tmp/ckdir2" --resume "$tmp/ckdir"
rc=$?
st=$rc
for f in daily.csv by_age.csv by_patch.csv reproduction.csv infections.csv; do
	cmp "$tmp/ref/$f" "$tmp/res/$f" || st=1
done
ok $st "a checkpoint at day 100 resumed: daily.csv, by_age.csv, by_patch.csv and the reproduction numbers byte for byte the uninterrupted run's (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/res.log"

# ---- the plots ------------------------------------------------------------------
plot_check "$tmp/ref" "$tmp/towns.csv" "by_patch.csv"

# ---- the example -------------------------------------------------------------------
WEFT_PLUGIN_PATH="$build/plugins/openmp/.libs" "$weft" run --quiet \
	"$WEFT_SRCDIR/examples/seir-clatsop.ini" --set backend.name=openmp \
	--set simulation.steps=30 --set output.plot=none \
	--set output.directory="$tmp/clatsop" > "$tmp/clatsop.log" 2>&1 &&
	awk -F, 'END { exit !($1 == 30 && $2 == 4) }' "$tmp/clatsop/by_patch.csv" &&
	grep -q '^agents: 26855$' "$tmp/clatsop/summary.txt"
rc=$?
ok $rc "examples/seir-clatsop.ini runs: five towns, 26,855 agents, by_patch.csv to day 30"
[ "$rc" -eq 0 ] || diag "$tmp/clatsop.log"

# ---- errors ---------------------------------------------------------------------
# refused LABEL PATTERN [--set ...]: weft check fails, its message
# matching PATTERN (grep -E).
refused() {
	label=$1 pat=$2
	shift 2
	WEFT_PLUGIN_PATH="$build/plugins/openmp/.libs" "$weft" check \
		"$tmp/all.ini" "$@" > "$tmp/err.out" 2>&1
	rc=$?
	[ "$rc" -ne 0 ] && grep -Eq "$pat" "$tmp/err.out"
	ok $? "refused: $label"
	[ "$rc" -ne 0 ] && grep -Eq "$pat" "$tmp/err.out" || diag "$tmp/err.out"
}
printf 'population,lat,lon\n100,1,2\n50.5,1,3\n' > "$tmp/bad1.csv"
refused "a population that is not whole, at its file and line" \
	"patch_file \\(--set seir.patch_file\\): $tmp/bad1.csv, line 3: population is not a whole number" \
	--set seir.patch_file="$tmp/bad1.csv"
printf 'pop,lat,lon\n100,1,2\n' > "$tmp/bad2.csv"
refused "a file without the column population" \
	"line 1: the header has no column population" --set seir.patch_file="$tmp/bad2.csv"
printf 'population\n100\n200\n' > "$tmp/bad3.csv"
refused "patches that mix without coordinates" \
	"needs the columns latitude and longitude" --set seir.patch_file="$tmp/bad3.csv"
printf 'population,lat,lon\n100,1,2\n200,1,2\n' > "$tmp/bad4.csv"
refused "two patches at one place (the network's entry is not finite)" \
	"from patch 0 \\(.*bad4.csv, line 2\\) to patch 1 \\(line 3\\) is not a finite number: the two are at one place" \
	--set seir.patch_file="$tmp/bad4.csv" --set seir.gravity_c=2
refused "a file that is not there" "patch_file .*cannot open .*nothere.csv" \
	--set seir.patch_file="$tmp/nothere.csv"
refused "population = csv with patches" "patch_file .* with population = csv" \
	--set seir.population=csv --set seir.agents_file="$tmp/towns.csv"
refused "community_daily with patches" "community_daily = true" \
	--set seir.community_daily=true
refused "agents that are not the patches' sum" \
	"agents = 5000 .*hold 14000" --set seir.agents=5000
refused "initial_infected next to the file's column" \
	"initial_infected \\(--set seir.initial_infected\\) and patch_file's column initial_infected" \
	--set seir.initial_infected=3
refused "a migration key without patches" \
	"\\[seir\\] gravity_k \\(--set seir.gravity_k\\) applies to patches: set patch_file too" \
	--set seir.patch_file= --set seir.gravity_k=10
sed 's/^1,0.1,0,0,/1,0.7,0,0.4,/' "$tmp/net.csv" > "$tmp/net2.csv"
refused "a network_file row above 1" \
	"network_file .*net2.csv: the row of patch 1 sums to 1.1000000000000001" \
	--set seir.network_file="$tmp/net2.csv"
sed 's/^3,0,0,0,0,0,0$/3,0,0,x,0,0,0/' "$tmp/net.csv" > "$tmp/net3.csv"
refused "a network_file entry that is not a number, at its line" \
	"network_file \\(--set seir.network_file\\): $tmp/net3.csv, line 5: an entry is not a number" \
	--set seir.network_file="$tmp/net3.csv"
refused "a migration key with network_file" \
	"\\[seir\\] gravity_c \\(--set seir.gravity_c\\) is a parameter of the migration model, which network_file" \
	--set seir.network_file="$tmp/net.csv" --set seir.gravity_c=1
printf 'population\n14000\n' > "$tmp/one.csv"
refused "a missing network_file with one patch too" \
	"network_file .*cannot open .*nothere.csv" \
	--set seir.patch_file="$tmp/one.csv" --set seir.network_file="$tmp/nothere.csv"
refused "migration_delta with network_file: the file replaces it" \
	"\\[seir\\] migration_delta .* is a parameter of the migration model, which network_file" \
	--set seir.network_file="$tmp/net.csv" --set seir.migration_delta=1
sed 's/^4,0,0,0,0,0,0$/4,7,7,7,7,0,7/' "$tmp/net.csv" > "$tmp/net4.csv"
refused "an empty patch's row above 1 (checked before the empty patches are left out)" \
	"network_file .*net4.csv: the row of patch 4 sums to 35" \
	--set seir.network_file="$tmp/net4.csv"
printf '0,0.1\000junk\n0.1,0\n' > "$tmp/nul.csv"
printf 'population,lat,lon\n100,1,2\n200,1,3\n' > "$tmp/two.csv"
refused "a NUL byte in network_file, at its line" \
	"network_file .*nul.csv, line 1: a NUL byte" \
	--set seir.patch_file="$tmp/two.csv" --set seir.network_file="$tmp/nul.csv"
refused "imports into a patch past the file's" \
	"entry 1: patch=9, but patch_file has fewer patches" \
	--set seir.waning=true --set seir.test_interventions= --set 'seir.variants=variant=delta day=20 patch=9'
refused "imports into an empty patch" "entry 1: patch=4 has no agents" \
	--set seir.waning=true --set seir.test_interventions= --set 'seir.variants=variant=delta day=20 patch=4'
refused "imports into a patch without patch_file" \
	"entry 1: patch=1, but there is no patch_file" --set seir.patch_file= \
	--set seir.agents=5000 --set seir.initial_infected=5 \
	--set seir.waning=true --set seir.test_interventions= --set 'seir.variants=variant=delta day=20 patch=1'
refused "seasonality_phase without seasonality_factor" \
	"\\[seir\\] seasonality_phase .* needs an amplitude" \
	--set seir.seasonality_factor=0
refused "network_file without patch_file" \
	"\\[seir\\] network_file .* applies to patches: set patch_file too" \
	--set seir.patch_file= --set seir.network_file="$tmp/net.csv"
refused "migration_delta with gravity (the kit's check, named [seir])" \
	"\\[seir\\] migration_delta .* is a parameter of competing_destinations" \
	--set seir.migration_delta=1
tap_done
