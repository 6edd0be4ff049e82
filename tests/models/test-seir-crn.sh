#!/bin/sh
# tests/models/test-seir-crn.sh - SEIR's common random numbers ([seir]
# crn = true, models/seir/seir.md "Common random numbers"):
#   - with every path of `weft conform`'s set on (interventions,
#     isolation, vaccination, testing, tracing, the infection log) and
#     crn = true, the outputs are byte for byte the same on openmp with 1
#     and 2 threads, without the frontier, on the template backend and
#     on opencl (skipped when it cannot run here);
#   - bench/crn.sh at 10 seeds, 5,000 agents, 90 days, isolation_prob 0.5
#     against 0.55: with crn = true the variance of the difference in
#     cumulative infections between the scenarios is at least 100 times
#     smaller with the same seed for both than with independent seeds
#     (measured: 587; 25 without crn), at least 4 times smaller than
#     the same-seed variance without crn (measured: 19 times), and the
#     deaths' ratio at least 10 (measured: 84).
set -u
. "$WEFT_SRCDIR/tests/tap.sh"
. "$WEFT_SRCDIR/tests/models/seir-backends.sh"
seir_setup crn

# ---- the same bits on every backend and thread count -----------------------
cat > "$tmp/all.ini" <<'EOF'
[simulation]
model = seir
steps = 40
seed = 7
[output]
plot = none
[seir]
population = random
agents = 5000
contacts = 12
beta = 0.06
initial_infected = 20
death_prob = 0.05
rel_trans_dispersion = 0.45
viral_load = true
interventions = community 12-20 0.5, all 25-30 0.8
isolation_prob = 0.5
isolation_start = 10
vaccine_doses = 150
vaccine_start = 5
vaccine_priority = oldest
n_beds_hosp = 3
n_beds_icu = 1
age_bands = 0-19, 20-49, 50-64, 65+
vaccine_campaigns = days=8-30 doses=60 coverage=0.5 ages=50+ second=7 symptoms=0.5 severe=0.8
infection_log = true
test_daily = 150
test_quar_odds = 5
test_delay = 1
test_sensitivity = 0.9
test_loss_prob = 0.05
diagnosed_factor = 0.3, 0.1, 0.1, 0.1
trace_probs = 0.7
trace_time = 1
quar_period = 7
crn = true
EOF

run() { seir_run "$@"; }
same() { seir_same "$@"; }

run ref openmp 1
ok $? "crn = true runs with every path on (openmp, 1 thread)"
tail -n 3 "$tmp/ref.log" | diag
run omp2 openmp 2 && same omp2
ok $? "crn = true: openmp with 2 threads gives 1 thread's outputs"
run nofront openmp 2 --set seir.frontier=false && same nofront
ok $? "crn = true: without the frontier, the same outputs"
run tpl template 0 && same tpl
ok $? "crn = true: the template backend gives openmp's outputs"
run plain openmp 1 --set seir.crn=false && [ -s "$tmp/ref/daily.csv" ] &&
	! cmp -s "$tmp/ref/daily.csv" "$tmp/plain/daily.csv"
ok $? "crn = true draws other numbers than crn = false"
seir_opencl "crn = true"

# ---- the pairing -----------------------------------------------------------
# ratios CRN: bench/crn.sh's last line's two ratios and the same-seed
# variance of the infections, "RI RD VI", into $tmp/CRN.
ratios() {
	WEFT_PLUGIN_PATH="$build/plugins/openmp/.libs" CRN=$1 \
		"$WEFT_SRCDIR/bench/crn.sh" "$weft" 10 5000 90 \
		seir.isolation_prob=0.55 > "$tmp/bench$1.out" 2>&1 || return 1
	vi=$(awk -F'|' '/same seed/ { gsub(/ /, "", $4); print $4 }' \
		"$tmp/bench$1.out")
	sed -n 's/^variance ratio.*infections \([0-9.]*\), deaths \([0-9.]*\)$/\1 \2/p' \
		"$tmp/bench$1.out" | awk -v v="$vi" 'NF == 2 { print $1, $2, v }'
}
with=$(ratios seir.crn=true)
without=$(ratios seir.crn=false)
diag "$tmp/benchseir.crn=true.out"
set -- $with 0 0 0
ri=$1 rd=$2 vi_with=$3
set -- $without 0 0 0
vi_without=$3
awk -v r="$ri" 'BEGIN { exit !(r >= 100) }'
ok $? "crn = true: same-seed variance of the infections' difference >= 100 times below independent seeds' (ratio $ri)"
awk -v r="$rd" 'BEGIN { exit !(r >= 10) }'
ok $? "crn = true: the deaths' variance ratio >= 10 ($rd)"
awk -v a="$vi_with" -v b="$vi_without" 'BEGIN { exit !(a > 0 && b >= 4 * a) }'
ok $? "crn = true: same-seed variance >= 4 times below crn = false's ($vi_with against $vi_without)"

tap_done
