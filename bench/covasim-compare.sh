#!/bin/sh
# bench/covasim-compare.sh - person-days per second of weft's SEIR model and
# of Covasim 3.1 on the same epidemic (examples/covasim-random.ini and
# covasim-hybrid.ini, which bench/validate/covasim_params.py checks
# against the installed Covasim), side by side on this machine; prints a
# Markdown table.
#
#   bench/covasim-compare.sh [BUILD] [SIZES] [POPS] [SEEDS]
#
# BUILD is a configured and built tree (default _build): its cli/weft runs
# with its own openmp plugin and seir model. SIZES defaults to "37518
# 1000000 8400000", POPS to "random hybrid", SEEDS to 3 (seeds 1..SEEDS on
# both sides); THREADS (default "1 2") are the OpenMP threads of weft and
# DAYS (default 120) the days. POPS may also name "waning" (the random
# population with waning immunity: examples/covasim-waning.ini against
# covasim_run.py --waning) and "variants" (with alpha and delta too:
# examples/covasim-variants.ini against covasim_run.py --variants
# alpha:30:10,delta:150:10).
# With WEFT_BEFORE=OLD_BUILD an older build tree runs too, with its own
# tree's presets, for the ratio before a change. Covasim is installed by
# bench/covasim-venv.sh; its numba functions run on one thread.
#
# Each row: Covasim's seeds one after the other (bench/covasim_run.py, a
# process per seed), then weft's (the old build's, then each thread
# count). Times exclude building the population: Covasim's sim.run()
# (after a small simulation in the same process, untimed, has loaded its
# numba functions from their cache) against weft's step loop (`weft
# run`'s "steps" in its "wall time" line: every launch, which with the
# OpenMP backend runs its kernel before it returns, and the reads of the
# outputs). The finish, which writes the outputs to disk and commits them
# (about 30 ms, most of it waiting for the disk), is left out as
# Covasim's exporting of its results is. Medians over the seeds;
# person-days/s = agents x DAYS / time;
# attack rates are medians too; bytes are weft's device memory per agent
# and per stored contact (its summary).
#
# On a shared machine other jobs come and go, so every run waits (up to
# IDLE_WAIT seconds, default 900) until the CPUs were busy less than
# IDLE_BUSY percent (default 10) over 5 seconds (/proc/stat). Each row
# notes the largest of those busy shares before its runs, the largest
# share of the CPUs that other processes used during a run (the machine's
# busy time less the run's own CPU time), and the load average before
# and after the row. With NICE=N every timed run (Covasim's and weft's
# alike) runs under `nice -n N` (a negative N needs root): on a machine
# whose other users keep both CPUs busy, a run then gets its core nearly
# whole; the busy shares still say what else ran. With KEEP set the
# scratch directory (logs, runs) is kept.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/_build}
sizes=${2:-37518 1000000 8400000}
pops=${3:-random hybrid}
seeds=${4:-3}
threads=${THREADS:-1 2}
days=${DAYS:-120}
pri=${NICE:+nice -n $NICE}
py=$("$top/bench/covasim-venv.sh")
out=$(mktemp -d "${TMPDIR:-/tmp}/weft-cv-XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$out"' EXIT

. "$top/bench/idle.sh"

# weft_run BUILD TREE N POP T SEED: one run, its summary in $out/log
weft_run() {
	WEFT_PLUGIN_PATH=$1/plugins/openmp/.libs WEFT_MODEL_PATH=$1/models/seir/.libs \
	$pri "$1/cli/weft" run "$2/examples/covasim-$4.ini" --quiet \
		--set "seir.agents=$3" --set "simulation.steps=$days" \
		--set "simulation.seed=$6" --set backend.name=openmp \
		--set "backend.threads=$5" --set "output.directory=$out/$4" \
		--set "output.every=$days" --set output.plot=none > "$out/log"
}

# weft_once BUILD TREE N POP T SEED: "steps_s attack% bytes_agent bytes_contact"
weft_once() {
	timed weft_run "$@"
	awk '$1 == "wall" && $2 == "time" { s = $7 }
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
echo "| agents | population | Covasim run (s) | Covasim attack | weft threads | weft steps (s) | weft attack | bytes/agent | bytes/contact | Covasim person-days/s | weft person-days/s | ratio | ratio before | busy before, others during, load |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
for n in $sizes; do
	for pop in $pops; do
		l0=$(load)
		: > "$out/cv"
		: > "$out/busy"
		for s in $(seq "$seeds"); do
			case $pop in
			waning) cv_args="--waning random" ;;
			variants) cv_args="--variants alpha:30:10,delta:150:10 random" ;;
			*) cv_args=$pop ;;
			esac
			# shellcheck disable=SC2086 # cv_args: options and a word
			timed $pri "$py" "$top/bench/covasim_run.py" $cv_args "$n" "$days" "$s" > "$out/cv1" 2>/dev/null
			grep "^${cv_args##* } " "$out/cv1" >> "$out/cv"
		done
		cv_run=$(awk '{ print $6 }' "$out/cv" | median)
		cv_attack=$(awk '{ print 100 * $7 }' "$out/cv" | median)
		before=-
		if [ -n "${WEFT_BEFORE:-}" ]; then
			before=$(weft_median "$WEFT_BEFORE" "$WEFT_BEFORE/.." "$n" "$pop" 1 | cut -d' ' -f1)
		fi
		for t in $threads; do
			res=$(weft_median "$build" "$top" "$n" "$pop" "$t")
			bm=$(sort -n -k1,1 "$out/busy" | tail -1 | cut -d' ' -f1)
			om=$(sort -n -k2,2 "$out/busy" | tail -1 | cut -d' ' -f2)
			echo "$n $pop $cv_run $cv_attack $t $res $days $before $l0 $(load) $bm $om" | awk '{
				cv = $1 * $10 / $3; wf = $1 * $10 / $6;
				rb = $11 == "-" || $5 != 1 ? "-" : sprintf("%.1fx", $1 * $10 / $11 / cv);
				printf "| %d | %s | %.2f | %.2f %% | %d | %.3f | %s %% | %s | %s | %.3g | %.3g | %.1fx | %s | %s %%, %s %%, %s-%s |\n",
				       $1, $2, $3, $4, $5, $6, $7, $8, $9, cv, wf, wf / cv, rb, $14, $15, $12, $13 }'
		done
	done
done
