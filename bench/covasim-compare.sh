#!/bin/sh
# bench/covasim-compare.sh - weft's SEIR model against Covasim 3.x on the
# same population sizes, days and parameters; prints a Markdown table with
# person-days per second, weft's device bytes per agent and per stored
# contact, both attack rates, and the ratio.
#
#   bench/covasim-compare.sh [WEFT] [SIZES] [THREADS] [POPS]
#
# WEFT defaults to _inst/bin/weft; SIZES to "37518 1000000 8400000";
# THREADS (the OpenMP threads weft uses) to "1 2"; POPS to "random hybrid".
# Covasim is installed from PyPI into _bench/venv the first time (pip,
# "covasim<4"). Both sides run 120 days with 20 initial infections and
# Covasim's default parameters for the population type (examples/
# covasim-random.ini and covasim-hybrid.ini give weft the same layers,
# contacts per layer, layer weights, durations, age tables and beta),
# rescaling off so that Covasim simulates every agent. Each side's time
# excludes building the population: Covasim's sim.run() against weft's
# step loop plus finish (the "wall time" line of `weft run`: the wait for
# the last outputs and their writing; no plot). Covasim runs once (at 1
# million agents it takes minutes); weft runs WEFT_REPEATS times (default
# 3), best kept.
# Covasim's numba functions may use both cores (its default options).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
weft=${1:-$top/_inst/bin/weft}
sizes=${2:-37518 1000000 8400000}
threads=${3:-1 2}
pops=${4:-random hybrid}
repeats=${WEFT_REPEATS:-3}
days=120
venv=$top/_bench/venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import covasim' 2>/dev/null; then
	python3 -m venv "$venv"
	"$venv/bin/pip" install -q "covasim<4" >&2
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/weft-cv-XXXXXX")
trap 'rm -rf "$out"' EXIT
cv_version=$("$venv/bin/python" -c 'import covasim; print(covasim.__version__)' 2>/dev/null | tail -1)
echo "Covasim $cv_version; $("$weft" --version | head -1); $days days"
echo
echo "| agents | population | Covasim run (s) | Covasim attack | weft threads | weft steps (s) | weft attack | bytes/agent | bytes/contact | Covasim person-days/s | weft person-days/s | ratio |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"

# weft_once N POP T: one weft run; prints "steps_s attack% bytes_agent bytes_contact"
weft_once() {
	"$weft" run "$top/examples/covasim-$2.ini" --quiet --stats \
		--set "seir.agents=$1" --set "simulation.steps=$days" \
		--set "backend.name=openmp" --set "backend.threads=$3" \
		--set "output.directory=$out/$2" --set "output.every=$days" \
		--set "output.plot=none" > "$out/log"
	awk '$1 == "wall" && $2 == "time" { s = $7 + $10 }
	     /attack rate/ { a = $0; sub(/.*attack rate /, "", a); sub(/ %.*/, "", a) }
	     $1 == "device" && $2 == "memory" { b = $5; c = $8 }
	     END { print s, a, b, c }' "$out/log"
}

for n in $sizes; do
	for pop in $pops; do
		cv=$("$venv/bin/python" "$top/bench/covasim_run.py" "$pop" "$n" "$days" 1 2>/dev/null | tail -1)
		cv_run=$(echo "$cv" | awk '{ print $5 }')
		cv_attack=$(echo "$cv" | awk '{ printf "%.2f", 100 * $6 }')
		for t in $threads; do
			best=
			for r in $(seq "$repeats"); do
				res=$(weft_once "$n" "$pop" "$t")
				best=$(printf '%s\n%s\n' "$best" "$res" | awk 'NF { if (!b || $1 < m) { m = $1; b = $0 } } END { print b }')
			done
			echo "$n $pop $cv_run $cv_attack $t $best $days" | awk '{
				cv = $1 * $10 / $3; wf = $1 * $10 / $6;
				printf "| %d | %s | %.2f | %s %% | %d | %.3f | %s %% | %s | %s | %.3g | %.3g | %.0fx |\n",
				       $1, $2, $3, $4, $5, $6, $7, $8, $9, cv, wf, wf / cv }'
		done
	done
done
