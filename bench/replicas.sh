#!/bin/sh
# bench/replicas.sh BACKEND [THREADS] [RUNS] [BATCH] [DAYS] [REPEATS] -
# batched replicas against runs one after another: RUNS runs of
# examples/astoria.ini (37,518 agents, DAYS days, its interventions and
# vaccination) as an ensemble (keep_runs = false, no plots) on BACKEND
# (openmp, opencl, cuda; THREADS for [backend] threads, 0: the backend's
# default), timed side by side REPEATS times each:
#   sequential   [ensemble] batch = 1
#   batched      [ensemble] batch = BATCH (default RUNS: one batch)
# and prints each wall time, the medians and their ratio, with the load
# (uptime) before and after, the CPU (lscpu) and the date; it checks the
# two ensembles' aggregates are the same bytes, and that the batched one
# really batched (its summary.txt). The defaults are the measurement of
# docs/benchmarks.md (256 runs, one batch of 256, 120 days, 3 repeats): a
# batch of 256 Astoria replicas needs 256 times a run's memory (the batch
# is refused at its start, naming the bytes, when it does not fit: lower
# BATCH).
# Results go to docs/benchmarks.md, "Batched replicas". Needs a build in
# ${WEFT_BUILDDIR:-_build}.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${WEFT_BUILDDIR:-$top/_build}
backend=${1:?usage: bench/replicas.sh BACKEND [THREADS] [RUNS] [BATCH] [DAYS] [REPEATS]}
threads=${2:-0} runs=${3:-256}
batch=${4:-$runs} days=${5:-120} reps=${6:-3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-replicas-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export WEFT_MODEL_PATH="$build/models/seir/.libs"
export WEFT_PLUGIN_PATH="$build/plugins/$backend/.libs"
ini="$top/examples/astoria.ini"

# run NAME BATCH: the ensemble into $tmp/NAME, its wall seconds on stdout.
run() {
	rm -rf "$tmp/$1"
	s=$(date +%s.%N)
	"$build/cli/weft" run "$ini" --set "backend.name=$backend" \
		--set "backend.threads=$threads" --set "simulation.steps=$days" \
		--set "output.directory=$tmp/$1" --set output.plot=none \
		--set "ensemble.runs=$runs" --set ensemble.keep_runs=false \
		--set "ensemble.batch=$2" > "$tmp/$1.log" 2>&1 ||
		{ cat "$tmp/$1.log" >&2; exit 1; }
	e=$(date +%s.%N)
	echo "$e - $s" | bc
}
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

echo "# bench/replicas.sh $backend threads=$threads runs=$runs batch=$batch days=$days repeats=$reps"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores"
echo "# load before: $(uptime | sed 's/.*load average: //')"
: > "$tmp/seq.t" && : > "$tmp/bat.t"
for r in $(seq "$reps"); do
	a=$(run seq 1) && echo "$a" >> "$tmp/seq.t"
	b=$(run bat "$batch") && echo "$b" >> "$tmp/bat.t"
	echo "repeat $r: sequential $a s, batched $b s"
done
echo "# load after: $(uptime | sed 's/.*load average: //')"
grep '^batch ' "$tmp/bat/summary.txt" || true
if grep -q '^batch .*none batched' "$tmp/bat/summary.txt"; then
	echo "$backend did not batch: the times compare two sequential ensembles" >&2
	exit 1
fi
for f in base.csv summary.csv; do
	cmp "$tmp/seq/$f" "$tmp/bat/$f" || { echo "$f differs" >&2; exit 1; }
done
echo "aggregates (base.csv, summary.csv): the same bytes"
ms=$(median < "$tmp/seq.t") mb=$(median < "$tmp/bat.t")
echo "median: sequential $ms s, batched $mb s, sequential / batched $(echo "scale=2; $ms / $mb" | bc)"
