#!/bin/sh
# bench/seir-mechanisms.sh - what the SEIR model's severity, testing,
# tracing and vaccination cost: the step loop of
# examples/covasim-random.ini (AGENTS agents, 120 days, OpenMP, one
# thread) in build tree BEFORE (weft without them), in build tree AFTER as
# it is (severe courses in stages), and in AFTER with 150 hospital and 40
# ICU beds, four age bands and a two-dose campaign for 60 % of the
# over-50s, then that with testing by probability and contact tracing
# (bench/validate/covasim_severity.py's tracing scenario), and with testing by
# number (2,000 tests a day) and tracing; REPEATS rounds, interleaved;
# prints each run's steps time (seconds, `weft run`'s steps line) and
# device memory.
#
#   bench/seir-mechanisms.sh BEFORE_BUILD AFTER_BUILD [AGENTS] [REPEATS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
before=$1 after=$2 agents=${3:-200000} repeats=${4:-3}
out=$(mktemp -d "${TMPDIR:-/tmp}/weft-mech-XXXXXX")
trap 'rm -rf "$out"' EXIT

# run LABEL BUILD [--set ...]: one run's line.
run() {
	label=$1 b=$2
	shift 2
	WEFT_PLUGIN_PATH=$b/plugins/openmp/.libs WEFT_MODEL_PATH=$b/models/seir/.libs \
		"$b/cli/weft" run "$top/examples/covasim-random.ini" --quiet \
		--set "seir.agents=$agents" --set simulation.steps=120 \
		--set backend.name=openmp --set backend.threads=1 \
		--set output.plot=none --set "output.directory=$out/$label" \
		"$@" > "$out/log"
	printf '%-10s steps %s s, device memory %s\n' "$label" \
		"$(awk '$1 == "steps" { print $4 }' "$out/log")" \
		"$(sed -n 's/^  device memory *//p' "$out/log")"
}

for r in $(seq "$repeats"); do
	run before "$before"
	run after "$after"
	run after-all "$after" --set seir.n_beds_hosp=150 \
		--set seir.n_beds_icu=40 \
		--set "seir.age_bands=0-17, 18-49, 50-64, 65+" \
		--set "seir.vaccine_campaigns=days=30- doses=2000 coverage=0.6 ages=50+ priority=oldest second=21"
	run after-tt "$after" --set seir.test_symp_prob=0.2 \
		--set seir.test_asymp_prob=0.002 --set seir.test_delay=1 \
		--set seir.trace_probs=0.5 --set seir.trace_time=1
	run after-num "$after" --set seir.test_daily=2000 \
		--set seir.test_delay=1 --set seir.trace_probs=0.5 \
		--set seir.trace_time=1
done
