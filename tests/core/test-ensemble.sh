#!/bin/sh
# tests/core/test-ensemble.sh - ensembles from the weft command: [sweep] and
# [scenario NAME] expansion and its errors (each with its file:line, before
# any run), the per-run outputs, the aggregates checked against a
# straightforward reference on the per-run CSVs (tests/core/ensemble_ref.py),
# the same bytes on a second run and without the per-run files, a failed
# run (reported with its scenario and seed, the others' aggregates
# written, exit 1), and the all-or-nothing commit.
set -u
weft="$WEFT_BUILDDIR/cli/weft"
src="$WEFT_SRCDIR"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-ens-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT

# write FILE BODY: a small SEIR ensemble with BODY appended.
write() {
	cat > "$1" <<INI
[simulation]
model = seir
steps = 30
seed = 100

[backend]
name = openmp
threads = 1

[output]
directory = $tmp/out
plot = none

[seir]
agents = 1500
initial_infected = 10

INI
	printf '%s\n' "$2" >> "$1"
}

# expect_error NAME TEXT BODY: weft check and weft run fail with one line
# naming TEXT, and nothing is written.
expect_error() {
	write "$tmp/bad.ini" "$3"
	rm -rf "$tmp/out"
	for cmd in check run; do
		"$weft" $cmd "$tmp/bad.ini" > "$tmp/stdout" 2> "$tmp/stderr"
		rc=$?
		lines=$(wc -l < "$tmp/stderr")
		if [ $rc -ne 0 ] && [ "$lines" -eq 1 ] &&
		   grep -qF -- "$2" "$tmp/stderr" && [ ! -e "$tmp/out" ]; then
			ok 0 "$1 ($cmd)"
		else
			ok 1 "$1 ($cmd): rc $rc, expected '$2'"
			diag "$tmp/stderr"
		fi
	done
}

good='[ensemble]
runs = 4

[sweep]
seir.beta = 0.012, 0.02

[scenario baseline]

[scenario distancing]
seir.beta_community = 0.1
seir.initial_infected = 5'

# ---- expansion --------------------------------------------------------------
write "$tmp/ens.ini" "$good"
"$weft" check "$tmp/ens.ini" > "$tmp/check" 2>&1
ok $? "weft check accepts the ensemble"
grep -q "16 runs: 4 scenarios x 4 seeds" "$tmp/check" &&
	grep -q "distancing+seir.beta=0.02" "$tmp/check"
ok $? "weft check reports the expansion (scenarios x sweep points x seeds)"
[ $? -eq 0 ] || diag "$tmp/check"

write "$tmp/range.ini" '[sweep]
seir.beta = 0.01:0.05:0.01
seir.initial_infected = 3:9:3'
"$weft" check "$tmp/range.ini" > "$tmp/check" 2>&1
grep -q "15 runs: 15 scenarios x 1 seeds" "$tmp/check" &&
	grep -q "seir.beta=0.05+seir.initial_infected=9" "$tmp/check"
ok $? "a range includes its stop; two keys give their product"
[ $? -eq 0 ] || diag "$tmp/check"

# ---- errors, before any run ---------------------------------------------------
expect_error "a bad value in a scenario names its file:line" \
	"bad.ini:21: [seir] beta = 7" '[scenario a]
seir.beta = 0.02
[scenario b]
seir.beta = 7'
expect_error "an unknown key in an override" \
	"bad.ini:19: unknown key 'betta' in [seir]" '[scenario a]
seir.betta = 0.02'
expect_error "an unknown section in an override" \
	"bad.ini:19: unknown section [sier]" '[scenario a]
sier.beta = 0.02'
expect_error "an override without a section" \
	"expected section.key = value" '[sweep]
beta = 0.01, 0.02'
expect_error "an empty list" "an empty value in the list" '[sweep]
seir.beta = 0.01, , 0.02'
expect_error "a value listed twice" "'0.02' is listed twice" '[sweep]
seir.beta = 0.02, 0.01, 0.02'
expect_error "a malformed range" "a range is start:stop:step" '[sweep]
seir.beta = 0.01:0.05'
expect_error "a range with step 0" "a step of 0 never goes" '[sweep]
seir.beta = 0.01:0.05:0'
expect_error "a range of the wrong sign" "a step of -0.01 never goes" '[sweep]
seir.beta = 0.01:0.05:-0.01'
expect_error "a scenario named twice" "[scenario a] appears twice (first at line 18)" '[scenario a]
seir.beta = 0.02
[scenario a]
seir.beta = 0.03'
expect_error "a scenario without a name" "a scenario needs a name" '[scenario]
seir.beta = 0.02'
expect_error "too many runs, with how many and the limit" \
	"has 12000 runs (3 scenarios x 1 sweep points x 4000 runs" '[ensemble]
runs = 4000
[scenario a]
[scenario b]
[scenario c]'
expect_error "a scenario named as one of the ensemble's own outputs" \
	"[scenario differences]: 'differences' names one of the ensemble's own outputs (summary, compare, runs, differences)" '[scenario differences]'
expect_error "an override of what every run shares" \
	"[output] is the same for every run" '[scenario a]
output.every = 2'
expect_error "the model's own checks see the overrides" \
	"in scenario" '[scenario a]
seir.agents = 5
seir.initial_infected = 10'

# ---- a run --------------------------------------------------------------------
rm -rf "$tmp/out"
"$weft" run "$tmp/ens.ini" > "$tmp/run" 2>&1
ok $? "weft run runs the ensemble"
[ $? -eq 0 ] || diag "$tmp/run"
ls "$tmp/out/runs/distancing+seir.beta=0.02" > "$tmp/seeds" 2>&1
[ "$(tr '\n' ' ' < "$tmp/seeds")" = "100 101 102 103 " ] &&
	[ -s "$tmp/out/runs/baseline+seir.beta=0.012/103/daily.csv" ]
ok $? "each run's outputs in runs/SCENARIO/SEED/, seeds seed, seed + 1, ..."
ls -a "$tmp/out/runs/baseline+seir.beta=0.012" | grep -q weft-lock
ok $((1 - $?)) "no run's lock is left in the set"
head -1 "$tmp/out/summary.csv" | grep -q "^scenario,runs,failed,attack_rate_pct_mean,attack_rate_pct_q05,attack_rate_pct_q95" &&
	[ "$(grep -c '' "$tmp/out/summary.csv")" -eq 5 ]
ok $? "summary.csv: a line per scenario with the model's outcomes"
grep -q "^  distancing+seir.beta=0.02 *attack_rate_pct" "$tmp/run"
ok $? "the summary is printed"
# differences.csv: each scenario but the first minus the first, seed by
# seed; the mean of the paired differences is the difference of the
# means (summary.csv), inside its own 95 % interval.
head -1 "$tmp/out/differences.csv" | grep -q "^scenario,baseline,pairs,attack_rate_pct_diff_mean,attack_rate_pct_diff_std,attack_rate_pct_diff_ci95_lo,attack_rate_pct_diff_ci95_hi,attack_rate_pct_diff_q05,attack_rate_pct_diff_q95" &&
	[ "$(grep -c '' "$tmp/out/differences.csv")" -eq 4 ] &&
	awk -F, 'NR == FNR { if (FNR > 1) m[$1] = $4; if (FNR == 2) b = $4; next }
		FNR > 1 { d = m[$1] - b; if ($2 != base || $3 != 4) bad = 1
			  if ((d - $4) ^ 2 > 1e-18 + 1e-20 * d * d || !($6 <= $4 && $4 <= $7)) bad = 1; n++ }
		END { exit !(n == 3 && !bad) }' base="$(sed -n '2s/,.*//p' "$tmp/out/summary.csv")" \
		"$tmp/out/summary.csv" "$tmp/out/differences.csv"
ok $? "differences.csv: each scenario minus the first, paired by seed, with a 95 % interval"
[ $? -eq 0 ] || diag "$tmp/out/differences.csv"
grep -q "^  difference *distancing+seir.beta=0.02 - baseline+seir.beta=0.012: attack_rate_pct" "$tmp/run"
ok $? "the differences are in the summary"
for s in baseline+seir.beta=0.012 distancing+seir.beta=0.02; do
	if out=$(python3 "$src/tests/core/ensemble_ref.py" "$tmp/out" "$s" daily.csv 100 101 102 103 2>&1) &&
	   [ "$out" -gt 1000 ]; then
		ok 0 "$s.csv: $out values equal the reference's (mean, std, quantiles)"
	else
		ok 1 "$s.csv against the reference"
		echo "# $out"
	fi
done

# The same bytes again, and with keep_runs = false.
mkdir -p "$tmp/first"
cp "$tmp/out"/*.csv "$tmp/first/"
sed 's/^runs = 4$/runs = 4\nkeep_runs = false/' "$tmp/ens.ini" > "$tmp/nokeep.ini"
"$weft" run "$tmp/nokeep.ini" > "$tmp/run2" 2>&1
rc=$?
same=0
for f in "$tmp/first"/*.csv; do
	cmp -s "$f" "$tmp/out/$(basename "$f")" || same=1
done
[ $rc -eq 0 ] && [ $same -eq 0 ] && [ ! -e "$tmp/out/runs" ]
ok $? "a second run (keep_runs = false) writes the same aggregates, no runs/"
[ $? -eq 0 ] || diag "$tmp/run2"

# ---- a failed run ---------------------------------------------------------------
if hooks "a failed run: exit 1, reported with its scenario and seed" \
	"its scenario has no aggregates and says so; the others' are written"; then
	WEFT_TEST_ENSEMBLE_FAIL=5 "$weft" run "$tmp/ens.ini" > "$tmp/run" 2> "$tmp/stderr"
	rc=$?
	[ $rc -eq 1 ] &&
		grep -q "run 5 (scenario baseline+seir.beta=0.02, seed 101): .*test hook ENSEMBLE_FAIL" "$tmp/stderr"
	ok $? "a failed run: exit 1, reported with its scenario and seed"
	[ $? -eq 0 ] || diag "$tmp/stderr"
	[ ! -e "$tmp/out/baseline+seir.beta=0.02.csv" ] &&
		[ -s "$tmp/out/distancing+seir.beta=0.02.csv" ] &&
		grep -q "^baseline+seir.beta=0.02,4,1,,," "$tmp/out/summary.csv" &&
		grep -q "failed run 5" "$tmp/out/summary.txt"
	ok $? "its scenario has no aggregates and says so; the others' are written"
fi

# ---- common random numbers: the default when runs are compared ---------------
# SEIR declares [seir] crn as its crn_key (model ABI 1.6): an ensemble of
# two scenarios or sweep points or more sets it true in every run unless
# the configuration sets it. A run of the ensemble is then the run `weft
# run` makes with the same seed and that value.
# crn_ens NAME BODY [--set ...]: the ensemble of BODY in $tmp/crn-NAME.
crn_ens() {
	name=$1 body=$2
	shift 2
	write "$tmp/crn.ini" "$body"
	sed -i "s|^directory = .*|directory = $tmp/crn-$name|" "$tmp/crn.ini"
	"$weft" run --quiet "$tmp/crn.ini" "$@" > /dev/null 2> "$tmp/crn-$name.err"
}
# alone CRN: the ensemble's first run alone (seed 100), with seir.crn = CRN.
alone() {
	write "$tmp/alone.ini" ""
	sed -i "s|^directory = .*|directory = $tmp/alone-$1|" "$tmp/alone.ini"
	"$weft" run --quiet "$tmp/alone.ini" --set seir.crn=$1 > /dev/null 2>&1
}
alone true && alone false &&
	! cmp -s "$tmp/alone-true/daily.csv" "$tmp/alone-false/daily.csv"
ok $? "seir.crn = true and false give other draws (the cases below can tell them apart)"
two='[ensemble]
runs = 2
[scenario a]
[scenario b]
seir.beta_community = 0.1'
crn_ens two "$two" &&
	grep -qxF "crn                      seir.crn = true in every run: common random numbers, the default when runs are compared (set seir.crn = false for the model's default draws)" "$tmp/crn-two/summary.txt" &&
	cmp -s "$tmp/crn-two/runs/a/100/daily.csv" "$tmp/alone-true/daily.csv"
ok $? "two scenarios: seir.crn = true in every run by default, and the summary says so"
"$weft" check "$tmp/crn.ini" > "$tmp/crn-check" 2>&1 &&
	grep -qxF "  crn                  seir.crn = true in every run (common random numbers, the default when runs are compared)" "$tmp/crn-check"
ok $? "weft check says so too"
crn_ens file "[ensemble]
runs = 2
[seir]
crn = false
[scenario a]
[scenario b]
seir.beta_community = 0.1" &&
	! grep -q '^crn ' "$tmp/crn-file/summary.txt" &&
	cmp -s "$tmp/crn-file/runs/a/100/daily.csv" "$tmp/alone-false/daily.csv"
ok $? "[seir] crn = false in the file is kept"
crn_ens set "$two" --set seir.crn=false &&
	! grep -q '^crn ' "$tmp/crn-set/summary.txt" &&
	cmp -s "$tmp/crn-set/runs/a/100/daily.csv" "$tmp/alone-false/daily.csv"
ok $? "--set seir.crn=false is kept"
crn_ens scen "$two
seir.crn = true" &&
	! grep -q '^crn ' "$tmp/crn-scen/summary.txt" &&
	cmp -s "$tmp/crn-scen/runs/a/100/daily.csv" "$tmp/alone-false/daily.csv" &&
	cmp -s "$tmp/crn-scen/runs/b/100/daily.csv" "$tmp/crn-two/runs/b/100/daily.csv"
ok $? "a scenario that sets seir.crn decides it: the others keep the model's default"
crn_ens one "[ensemble]
runs = 2" &&
	! grep -q '^crn ' "$tmp/crn-one/summary.txt" &&
	cmp -s "$tmp/crn-one/runs/base/100/daily.csv" "$tmp/alone-false/daily.csv"
ok $? "one scenario compares nothing: the model's default draws"
# A model may refuse its common random numbers with some settings (SEIR
# with waning immunity): then no run has them, so the runs still pair
# alike, and the summary says why.
crn_ens refused "$two
[seir]
waning = true" &&
	grep -q "^crn  *the model's common random numbers are off in every run: with them, .*waning = true does not work with the ensemble's default for compared runs: crn = true" "$tmp/crn-refused/summary.txt" &&
	write "$tmp/alone.ini" "" &&
	sed -i "s|^directory = .*|directory = $tmp/alone-waning|" "$tmp/alone.ini" &&
	"$weft" run --quiet "$tmp/alone.ini" --set seir.waning=true --set seir.crn=false > /dev/null 2>&1 &&
	cmp -s "$tmp/crn-refused/runs/a/100/daily.csv" "$tmp/alone-waning/daily.csv"
ok $? "a model that refuses them with its settings keeps its default draws in every run, and the summary says why"
"$weft" check "$tmp/crn.ini" > "$tmp/crn-check" 2>&1 &&
	grep -q "^  crn  *the model's common random numbers are off in every run: with them, .*waning = true" "$tmp/crn-check"
ok $? "weft check says so too"
crn_ens refused2 "$two
seir.beta = 7
[seir]
waning = true"
[ $? -ne 0 ] && grep -q "beta = 7.*out of range.*(in scenario b)" "$tmp/crn-refused2.err" &&
	! grep -q "common random\|crn = true" "$tmp/crn-refused2.err"
ok $? "a scenario's own error is reported as it is, not as the mode's refusal"
crn_ens sweep "[ensemble]
runs = 2
[sweep]
seir.beta_community = 0.1, 0.3" &&
	grep -q '^crn  *seir.crn = true in every run' "$tmp/crn-sweep/summary.txt"
ok $? "two sweep points: seir.crn = true by default"

# ---- all or nothing --------------------------------------------------------------
if hooks "an ensemble killed before its commit leaves the previous set"; then
	cp -r "$tmp/out" "$tmp/before"
	WEFT_TEST_COMMIT_KILL=3 "$weft" run "$tmp/ens.ini" > /dev/null 2>&1
	diff -r "$tmp/before" "$tmp/out" > /dev/null
	ok $? "an ensemble killed before its commit leaves the previous set"
fi
"$weft" run "$tmp/ens.ini" > /dev/null 2>&1 &&
	[ -s "$tmp/out/baseline+seir.beta=0.02.csv" ] && ! ls -a "$tmp" | grep -q "weft-new"
ok $? "the next ensemble replaces it, runs/ included, and leaves nothing beside"

"$weft" check "$src/examples/ensemble.ini" > "$tmp/check" 2>&1 &&
	grep -q "60 runs: 3 scenarios x 20 seeds" "$tmp/check"
ok $? "examples/ensemble.ini is valid: 3 scenarios x 20 seeds"

tap_done
