#!/bin/sh
# bench/covasim-mechanisms.sh - what the SEIR model's severity, testing,
# tracing and vaccination cost, weft against Covasim 3.1 with the same
# interventions: person-days per second of Covasim's random population
# (examples/covasim-random.ini) without them and with each scenario of
# bench/validate/covasim_severity.py (severity with
# limited beds; testing by probability; testing and contact tracing with
# quarantine; a two-dose campaign for 60 % of the over-50s; all of them
# together), side by side; prints a Markdown table.
#
#   bench/covasim-mechanisms.sh [BUILD] [AGENTS] [SEEDS] [DAYS] [SCENARIOS]
#
# BUILD is a built tree (default _build), AGENTS 200000, SEEDS 3 (seeds
# 1..SEEDS on both sides, medians), DAYS 120, SCENARIOS "none severity
# testing tracing vaccine all" ("none": no interventions and unlimited
# beds; the others 150 hospital and 40 ICU beds, as
# bench/validate/covasim-severity.sh). Times exclude building the
# population, as bench/covasim-compare.sh's do: Covasim's sim.run() against weft's step
# loop (one OpenMP thread, `weft run`'s "steps"). Each run waits for idle
# CPUs (bench/idle.sh: IDLE_WAIT, IDLE_BUSY); NICE=N runs both under
# nice -n N. bytes/agent is weft's device memory per agent (its summary).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/_build}
n=${2:-200000} seeds=${3:-3} days=${4:-120}
scenarios=${5:-none severity testing tracing vaccine all}
pri=${NICE:+nice -n $NICE}
py=$("$top/bench/covasim-venv.sh" ${VENV:-})
sev=$top/bench/validate/covasim_severity.py
out=$(mktemp -d "${TMPDIR:-/tmp}/weft-mech-XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$out"' EXIT
. "$top/bench/idle.sh"

# weft_run SCENARIO SEED: one run, its summary in $out/log.
weft_run() {
	sc=$1 s=$2
	set --
	if [ "$sc" != none ]; then
		set -- --set seir.n_beds_hosp=150 --set seir.n_beds_icu=40
	fi
	while IFS= read -r kv; do
		if [ -n "$kv" ]; then set -- "$@" --set "$kv"; fi
	done <<SETS
$("$py" "$sev" sets "$sc")
SETS
	WEFT_PLUGIN_PATH=$build/plugins/openmp/.libs WEFT_MODEL_PATH=$build/models/seir/.libs \
	$pri "$build/cli/weft" run "$top/examples/covasim-random.ini" --quiet \
		--set "seir.agents=$n" --set "simulation.steps=$days" \
		--set "simulation.seed=$s" --set backend.name=openmp \
		--set backend.threads=1 --set "output.directory=$out/run" \
		--set "output.every=$days" --set output.plot=none "$@" > "$out/log"
}

echo "Covasim $("$py" -c 'import covasim; print(covasim.__version__)' 2>/dev/null | tail -1); $(WEFT_MODEL_PATH=$build/models/seir/.libs "$build/cli/weft" --version | head -1); $n agents, $days days; seeds 1-$seeds, medians; $(date -u '+%Y-%m-%d %H:%M UTC'); $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
echo
echo "| scenario | Covasim run (s) | Covasim attack | weft steps (s) | weft attack | weft bytes/agent | Covasim person-days/s | weft person-days/s | ratio | busy before, others during, load |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
for sc in $scenarios; do
	l0=$(load)
	: > "$out/cv"
	: > "$out/wf"
	: > "$out/busy"
	for s in $(seq "$seeds"); do
		timed $pri "$py" "$sev" time "$n" "$days" "$s" 150 40 "$sc" > "$out/cv1" 2>/dev/null
		tail -1 "$out/cv1" >> "$out/cv"
		timed weft_run "$sc" "$s"
		awk '$1 == "wall" && $2 == "time" { s = $7 }
		     /attack rate/ { a = $0; sub(/.*attack rate /, "", a); sub(/ %.*/, "", a) }
		     $1 == "device" && $2 == "memory" { b = $5 }
		     END { print s, a, b }' "$out/log" >> "$out/wf"
	done
	cv_run=$(cut -d' ' -f2 "$out/cv" | median)
	cv_att=$(cut -d' ' -f3 "$out/cv" | median)
	wf_run=$(cut -d' ' -f1 "$out/wf" | median)
	wf_att=$(cut -d' ' -f2 "$out/wf" | median)
	bytes=$(head -1 "$out/wf" | cut -d' ' -f3)
	bm=$(sort -n -k1,1 "$out/busy" | tail -1 | cut -d' ' -f1)
	om=$(sort -n -k2,2 "$out/busy" | tail -1 | cut -d' ' -f2)
	echo "$sc $cv_run $cv_att $wf_run $wf_att $bytes $n $days $bm $om $l0 $(load)" | awk '{
		cv = $7 * $8 / $2; wf = $7 * $8 / $4;
		printf "| %s | %.2f | %.2f %% | %.3f | %s %% | %s | %.3g | %.3g | %.1fx | %s %%, %s %%, %s-%s |\n",
		       $1, $2, $3, $4, $5, $6, cv, wf, wf / cv, $9, $10, $11, $12 }'
done
