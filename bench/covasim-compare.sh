#!/bin/sh
# bench/covasim-compare.sh - weft's SEIR model against Covasim 3.x on the
# same population sizes and days; prints a Markdown table with the ratio
# of person-days per second.
#
#   bench/covasim-compare.sh [WEFT] [SIZES] [THREADS]
#
# WEFT defaults to _inst/bin/weft; SIZES to "37518 1000000"; THREADS (the
# OpenMP threads weft uses) to "1 2". Covasim is installed from PyPI into
# _bench/venv the first time (pip, "covasim<4"). Both run 120 days with 20
# initial infections and Covasim's default parameters
# (examples/covasim-hybrid.ini gives weft the same layers, contacts,
# durations and beta), rescaling off; each side's time excludes building
# the population: Covasim's sim.run() against the step loop of
# `weft run --stats`. One run each (Covasim at 1M takes minutes).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
weft=${1:-$top/_inst/bin/weft}
sizes=${2:-37518 1000000}
threads=${3:-1 2}
days=120
venv=$top/_bench/venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import covasim' 2>/dev/null; then
	python3 -m venv "$venv"
	"$venv/bin/pip" install -q "covasim<4" >&2
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/weft-cv-XXXXXX")
trap 'rm -rf "$out"' EXIT
cv_version=$("$venv/bin/python" -c 'import covasim; print(covasim.__version__)' 2>/dev/null | tail -1)
echo "Covasim $cv_version; weft $("$weft" --version | head -1)"
echo
echo "| agents | population | Covasim run (s) | weft threads | weft steps (s) | Covasim person-days/s | weft person-days/s | ratio |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|"
for n in $sizes; do
	for pop in random hybrid; do
		line=$("$venv/bin/python" "$top/bench/covasim_run.py" "$pop" "$n" "$days" 1 2>/dev/null | tail -1)
		cv_run=$(echo "$line" | awk '{ print $5 }')
		for t in $threads; do
			"$weft" run "$top/examples/covasim-$pop.ini" --quiet --stats \
				--set "seir.agents=$n" --set "simulation.steps=$days" \
				--set "backend.name=openmp" --set "backend.threads=$t" \
				--set "output.directory=$out/$pop" --set "output.every=$days" \
				> "$out/log"
			w=$(awk '$1 == "steps" { print $4; exit }' "$out/log")
			echo "$n $pop $cv_run $t $w $days" | awk '{
				cv = $1 * $6 / $3; wf = $1 * $6 / $5;
				printf "| %d | %s | %.2f | %d | %.3f | %.3g | %.3g | %.1fx |\n",
				       $1, $2, $3, $4, $5, cv, wf, wf / cv }'
		done
	done
done
