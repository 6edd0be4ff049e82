#!/bin/sh
# bench/validate/covasim-waning.sh - weft's epidemic with waning immunity
# and reinfection against Covasim's: SEEDS seeds of weft
# (examples/covasim-waning.ini: Covasim's random population, [seir]
# waning = true, DAYS days, one thread) against Covasim 3.1's seeds 1 to
# SEEDS at the same size (use_waning=True, one variant, no vaccine,
# rescale=False), compared day by day by
# bench/validate/covasim_waning.py (new infections, new reinfections,
# cumulative infections and deaths: weft's mean inside Covasim's 5-95 %
# band; a plot with PLOT set).
#
#   bench/validate/covasim-waning.sh [WEFT] [SIZE] [SEEDS] [DAYS]
#
# WEFT defaults to _inst/bin/weft; SIZE to 200000; SEEDS to 20; DAYS to
# 360. Covasim's runs are kept in _bench/ref (cv-waning-SIZE-DAYS-SEEDS.csv,
# made once by bench/covasim_run.py --waning: about a minute a seed at
# 200,000 agents); weft's go to _bench/val-waning. With BANDS=FILE
# Covasim's bands are written as the reference of
# tests/models/test-seir-waning.sh.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
weft=${1:-$top/_inst/bin/weft}
n=${2:-200000}
seeds=${3:-20}
days=${4:-360}
py=$("$top/bench/covasim-venv.sh")
ref=$top/_bench/ref val=$top/_bench/val-waning
mkdir -p "$ref" "$val"
cv=$ref/cv-waning-$n-$days-$seeds.csv
wf=$val/weft-$n-$days-$seeds.csv
if [ ! -s "$cv" ]; then
	"$py" "$top/bench/covasim_run.py" --waning random "$n" "$days" \
		"1-$seeds" "$cv.tmp" > /dev/null 2>&1
	mv "$cv.tmp" "$cv"
fi
: > "$wf"
for s in $(seq "$seeds"); do
	out=$val/random-$n-$s
	"$weft" run "$top/examples/covasim-waning.ini" --quiet \
		--set "seir.agents=$n" --set "simulation.steps=$days" \
		--set "simulation.seed=$s" --set backend.name=openmp \
		--set backend.threads=1 --set "output.directory=$out" \
		--set output.plot=none > /dev/null
	awk -F, -v n="$n" -v s="$s" 'NR > 1 {
		print "random," n "," s "," $1 "," $8 "," $4 + $5 "," $10 "," $7 "," $26 }' \
		"$out/daily.csv" >> "$wf"
done
if [ -n "${BANDS:-}" ]; then
	"$py" "$top/bench/validate/covasim_waning.py" bands "$cv" "$BANDS"
fi
"$py" "$top/bench/validate/covasim_waning.py" compare "$cv" "$wf" ${PLOT:-}
