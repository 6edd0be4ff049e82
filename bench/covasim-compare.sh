#!/bin/sh
# bench/covasim-compare.sh - person-days per second of weft's SEIR model and
# of Covasim 3.1 on the same epidemic (examples/covasim-random.ini and
# covasim-hybrid.ini, which bench/covasim_params.py checks against the
# installed Covasim), side by side on this machine; prints a Markdown
# table.
#
#   bench/covasim-compare.sh [BUILD] [SIZES] [POPS] [SEEDS]
#
# BUILD is a configured and built tree (default _build): its cli/weft runs
# with its own openmp plugin and seir model. SIZES defaults to "37518
# 1000000 8400000", POPS to "random hybrid", SEEDS to 3 (seeds 1..SEEDS on
# both sides); THREADS (default "1 2") are the OpenMP threads of weft.
# With WEFT_BEFORE=OLD_BUILD an older build tree runs too, with its own
# tree's presets, for the ratio before a change. Covasim is installed by
# bench/covasim-venv.sh; its numba functions run on one thread.
#
# Each row: Covasim's seeds one after the other (bench/covasim_run.py),
# then weft's (each thread count, then the old build's). Times exclude
# building the population: Covasim's sim.run() against weft's step loop
# plus finish (the "wall time" line of `weft run`: every launch, the wait
# for the last outputs and their writing; no plot). Medians over the
# seeds; person-days/s = agents x 120 / time; attack rates are medians
# too; bytes are weft's device memory per agent and per stored contact
# (its summary). Before each row the script waits (up to IDLE_WAIT
# seconds, default 900) until the CPUs were busy less than IDLE_BUSY
# percent (default 10) over 5 seconds (/proc/stat): on a shared machine
# other jobs come and go. Each row notes that busy share and the load
# average before it, and the load average after it.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/_build}
sizes=${2:-37518 1000000 8400000}
pops=${3:-random hybrid}
seeds=${4:-3}
threads=${THREADS:-1 2}
days=120
py=$("$top/bench/covasim-venv.sh")
out=$(mktemp -d "${TMPDIR:-/tmp}/weft-cv-XXXXXX")
trap 'rm -rf "$out"' EXIT

load() { cut -d' ' -f1 /proc/loadavg; }
# busy: percent of CPU time not idle over the next 5 seconds.
busy() {
	a=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6 }' /proc/stat)
	sleep 5
	b=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6 }' /proc/stat)
	echo "$a $b" | awk '{ u = $3 - $1; i = $4 - $2; printf "%.0f", u + i ? 100 * u / (u + i) : 0 }'
}
# wait_idle: until busy is under IDLE_BUSY, or IDLE_WAIT s; sets $idle.
wait_idle() {
	w=0
	idle=$(busy)
	while [ "$w" -lt "${IDLE_WAIT:-900}" ] && [ "$idle" -ge "${IDLE_BUSY:-10}" ]; do
		w=$((w + 5))
		idle=$(busy)
	done
}
median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# weft_once BUILD TREE N POP T SEED: "steps_s attack% bytes_agent bytes_contact"
weft_once() {
	WEFT_PLUGIN_PATH=$1/plugins/openmp/.libs WEFT_MODEL_PATH=$1/models/seir/.libs \
	"$1/cli/weft" run "$2/examples/covasim-$4.ini" --quiet \
		--set "seir.agents=$3" --set "simulation.steps=$days" \
		--set "simulation.seed=$6" --set backend.name=openmp \
		--set "backend.threads=$5" --set "output.directory=$out/$4" \
		--set "output.every=$days" --set output.plot=none > "$out/log"
	awk '$1 == "wall" && $2 == "time" { s = $7 + $10 }
	     /attack rate/ { a = $0; sub(/.*attack rate /, "", a); sub(/ %.*/, "", a) }
	     $1 == "device" && $2 == "memory" { b = $5; c = $8 }
	     END { print s, a, b, c }' "$out/log"
}

# weft_median BUILD TREE N POP T: the medians over the seeds
weft_median() {
	: > "$out/runs"
	for s in $(seq "$seeds"); do
		weft_once "$@" "$s" >> "$out/runs"
	done
	echo "$(cut -d' ' -f1 "$out/runs" | median) $(cut -d' ' -f2 "$out/runs" | median) $(head -1 "$out/runs" | cut -d' ' -f3-)"
}

echo "Covasim $("$py" -c 'import covasim; print(covasim.__version__)' 2>/dev/null | tail -1); $(WEFT_MODEL_PATH=$build/models/seir/.libs "$build/cli/weft" --version | head -1); $days days; seeds 1-$seeds, medians; $(date -u '+%Y-%m-%d %H:%M UTC'); $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
echo
echo "| agents | population | Covasim run (s) | Covasim attack | weft threads | weft steps (s) | weft attack | bytes/agent | bytes/contact | Covasim person-days/s | weft person-days/s | ratio | ratio before | busy before, load |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
for n in $sizes; do
	for pop in $pops; do
		wait_idle
		l0=$(load)
		"$py" "$top/bench/covasim_run.py" "$pop" "$n" "$days" "1-$seeds" 2>/dev/null |
			grep "^$pop " > "$out/cv"
		cv_run=$(awk '{ print $6 }' "$out/cv" | median)
		cv_attack=$(awk '{ print 100 * $7 }' "$out/cv" | median)
		before=-
		if [ -n "${WEFT_BEFORE:-}" ]; then
			before=$(weft_median "$WEFT_BEFORE" "$WEFT_BEFORE/.." "$n" "$pop" 1 | cut -d' ' -f1)
		fi
		for t in $threads; do
			res=$(weft_median "$build" "$top" "$n" "$pop" "$t")
			echo "$n $pop $cv_run $cv_attack $t $res $days $before $l0 $(load) $idle" | awk '{
				cv = $1 * $10 / $3; wf = $1 * $10 / $6;
				rb = $11 == "-" || $5 != 1 ? "-" : sprintf("%.1fx", $1 * $10 / $11 / cv);
				printf "| %d | %s | %.2f | %.2f %% | %d | %.3f | %s %% | %s | %s | %.3g | %.3g | %.1fx | %s | %s %%, %s-%s |\n",
				       $1, $2, $3, $4, $5, $6, $7, $8, $9, cv, wf, wf / cv, rb, $14, $12, $13 }'
		done
	done
done
