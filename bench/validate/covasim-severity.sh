#!/bin/sh
# bench/validate/covasim-severity.sh - the validation scenarios of the
# SEIR model's severity, testing and tracing: "baseline with severity",
# "testing by probability with isolation" and "testing plus tracing plus
# quarantine": Covasim's random population with limited hospital and ICU
# beds, SEEDS seeds of Covasim 3.1 and of weft
# (examples/covasim-random.ini, DAYS days, one thread), the curves of new
# infections, agents severe (hospitalised + over capacity), critical,
# deaths and diagnoses compared by bench/validate/covasim_severity.py
# (weft's mean inside Covasim's 5-95 % band).
#
#   bench/validate/covasim-severity.sh [WEFT] [AGENTS] [SEEDS] [BEDS_HOSP] [BEDS_ICU] [DAYS] [SCENARIO]
#
# SCENARIO: severity (default), testing, tracing or vaccine (the
# interventions are in bench/validate/covasim_severity.py, on both
# sides).
# Defaults: _inst/bin/weft, 200000 agents, 10 seeds, 150 hospital and 40
# ICU beds (enough to be full at the peak of 200,000 agents), 180 days.
# Covasim's runs go to _bench/sev/cv-AGENTS-HOSP-ICU.csv (kept: minutes a
# seed at 200,000 agents), weft's to _bench/sev/weft-*.csv.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
weft=${1:-$top/_inst/bin/weft}
n=${2:-200000} seeds=${3:-10} hosp=${4:-150} icu=${5:-40} days=${6:-180}
scenario=${7:-severity}
py=$("$top/bench/covasim-venv.sh" ${VENV:-})
dir=$top/_bench/sev
mkdir -p "$dir"
cv=$dir/cv-$n-$hosp-$icu-$scenario.csv wf=$dir/weft-$n-$hosp-$icu-$scenario.csv
[ -s "$cv" ] || "$py" "$top/bench/validate/covasim_severity.py" run "$n" "$days" "1-$seeds" "$hosp" "$icu" "$cv" "$scenario"
# The scenario's weft keys, one per line (a value may hold spaces).
set --
while IFS= read -r kv; do
	if [ -n "$kv" ]; then set -- "$@" --set "$kv"; fi
done <<EOF
$("$py" "$top/bench/validate/covasim_severity.py" sets "$scenario")
EOF
echo "seed,day,new_infections,severe,critical,deaths,diagnoses" > "$wf"
for s in $(seq "$seeds"); do
	out=$dir/run-$n-$s
	"$weft" run "$top/examples/covasim-random.ini" --quiet \
		--set "seir.agents=$n" --set "simulation.steps=$days" \
		--set "simulation.seed=$s" --set backend.name=openmp \
		--set backend.threads=1 --set "seir.n_beds_hosp=$hosp" \
		--set "seir.n_beds_icu=$icu" --set "output.directory=$out" \
		--set output.plot=none "$@" > /dev/null
	# daily.csv: $8 new_infections, $7 D, $14 hospitalised, $15 icu,
	# $16 over_hosp, $17 over_icu, $21 diagnosed.
	awk -F, -v s="$s" 'NR > 1 { print s "," $1 "," $8 "," $14 + $16 "," $15 + $17 "," $7 "," $21 }' \
		"$out/daily.csv" >> "$wf"
done
"$py" "$top/bench/validate/covasim_severity.py" compare "$cv" "$wf"
