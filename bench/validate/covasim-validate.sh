#!/bin/sh
# bench/validate/covasim-validate.sh - weft's epidemic against Covasim's:
# SEEDS seeds of weft (examples/covasim-POP.ini, 120 days, one thread)
# against Covasim's seeds 1-20 at the same size, compared by
# bench/validate/covasim_validate.py (curves and outcomes inside
# Covasim's 5-95 % band; a plot with PLOT set).
#
#   bench/validate/covasim-validate.sh [WEFT] [SIZES] [POPS] [SEEDS]
#
# WEFT defaults to _inst/bin/weft; SIZES to "37518 1000000"; POPS to
# "random hybrid"; SEEDS to 20. Covasim's runs are kept in _bench/ref
# (cv-POP-N.csv, made once by bench/covasim_run.py: minutes a run at 1
# million agents); weft's go to _bench/val. With PLOT=FILE.png the curves
# are drawn; with BANDS=FILE Covasim's bands are written as the reference
# of tests/models/test-seir-covasim.sh (tests/data/refresh.sh does this).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
weft=${1:-$top/_inst/bin/weft}
sizes=${2:-37518 1000000}
pops=${3:-random hybrid}
seeds=${4:-20}
py=$("$top/bench/covasim-venv.sh")
ref=$top/_bench/ref val=$top/_bench/val
mkdir -p "$ref" "$val"
cv_all=$val/covasim.csv wf_all=$val/weft.csv
: > "$cv_all"
: > "$wf_all"
for n in $sizes; do
	for pop in $pops; do
		cv=$ref/cv-$pop-$n.csv
		if [ ! -s "$cv" ]; then
			"$py" "$top/bench/covasim_run.py" "$pop" "$n" 120 1-20 "$cv" > /dev/null 2>&1
		fi
		cat "$cv" >> "$cv_all"
		for s in $(seq "$seeds"); do
			out=$val/$pop-$n-$s
			"$weft" run "$top/examples/covasim-$pop.ini" --quiet \
				--set "seir.agents=$n" --set simulation.steps=120 \
				--set "simulation.seed=$s" --set backend.name=openmp \
				--set backend.threads=1 --set "output.directory=$out" \
				--set output.plot=none > /dev/null
			awk -F, -v p="$pop" -v n="$n" -v s="$s" 'NR > 1 {
				print p "," n "," s "," $1 "," $8 "," $4 + $5 "," $10 "," $7 }' \
				"$out/daily.csv" >> "$wf_all"
		done
	done
done
if [ -n "${BANDS:-}" ]; then
	"$py" "$top/bench/validate/covasim_validate.py" bands "$cv_all" "$BANDS"
fi
"$py" "$top/bench/validate/covasim_validate.py" compare "$cv_all" "$wf_all" ${PLOT:-}
