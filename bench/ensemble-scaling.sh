#!/bin/sh
# bench/ensemble-scaling.sh [RUNS] [DAYS] [REPEATS] [BATCH] - an ensemble
# of RUNS runs of examples/covasim-random.ini at Astoria's size (37,518
# agents, DAYS days, seeds 1..RUNS), timed side by side, REPEATS times each:
#   weft run              one process
#   weft-mpi at K = 1, 2  mpirun -n K (one OpenMP thread per rank)
#   ... with batches      with BATCH > 1 (default 1: not timed), weft run
#                         and weft-mpi at K = 2 with [ensemble] batch =
#                         BATCH (a rank is handed BATCH runs at a time,
#                         stepped together)
#   Covasim's MultiSim    n_cpus = 2, every core (bench/covasim_multisim.py,
#                         with $COVASIM_PY, default the python of
#                         bench/covasim-venv.sh's _bench/venv), in the
#                         first repeat only (COVASIM_REPS=N: the first N;
#                         a run takes minutes)
# and prints each wall time, then the median of each, with the load
# (uptime) before and after, the CPU (lscpu) and the date. Results go to
# docs/benchmarks.md, "Ensembles over MPI". Needs a build with weft-mpi
# in ${WEFT_BUILDDIR:-_build}.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${WEFT_BUILDDIR:-$top/_build}
runs=${1:-200} days=${2:-60} reps=${3:-3} batch=${4:-1}
py=${COVASIM_PY:-$top/_bench/venv/bin/python}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-ens-bench-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export WEFT_MODEL_PATH="$build/models/seir/.libs"
export WEFT_PLUGIN_PATH="$build/plugins/openmp/.libs"
export OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
sets="--set simulation.steps=$days --set seir.agents=37518
	--set backend.name=openmp --set backend.threads=1
	--set output.directory=$tmp/out --set output.plot=none
	--set ensemble.runs=$runs --set ensemble.keep_runs=false"
ini="$top/examples/covasim-random.ini"

# t CMD...: wall seconds of CMD.
t() {
	s=$(date +%s.%N)
	"$@" > "$tmp/log" 2>&1 || { cat "$tmp/log" >&2; exit 1; }
	e=$(date +%s.%N)
	echo "$e - $s" | bc
}
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); $(lscpu | sed -n 's/^Model name: *//p'); $(nproc --all) cores"
echo "# $runs runs x $days days x 37518 agents; load before: $(uptime | sed 's/.*load average: //')"
: > "$tmp/weft"; : > "$tmp/k1"; : > "$tmp/k2"; : > "$tmp/c2"
: > "$tmp/wb"; : > "$tmp/k2b"
for r in $(seq 1 "$reps"); do
	# shellcheck disable=SC2086
	t "$build/cli/weft" run "$ini" $sets >> "$tmp/weft"
	# shellcheck disable=SC2086
	t mpirun --oversubscribe -n 1 "$build/mpi/weft-mpi" run "$ini" $sets >> "$tmp/k1"
	# shellcheck disable=SC2086
	t mpirun --oversubscribe -n 2 "$build/mpi/weft-mpi" run "$ini" $sets >> "$tmp/k2"
	grep "^  base" "$tmp/log" | head -1
	if [ "$batch" -gt 1 ]; then
		# shellcheck disable=SC2086
		t "$build/cli/weft" run "$ini" $sets --set ensemble.batch="$batch" >> "$tmp/wb"
		grep "^  batch" "$tmp/log" | head -1
		# shellcheck disable=SC2086
		t mpirun --oversubscribe -n 2 "$build/mpi/weft-mpi" run "$ini" $sets \
			--set ensemble.batch="$batch" >> "$tmp/k2b"
		echo "# repeat $r, batch = $batch: weft $(tail -1 "$tmp/wb") s, K=2 $(tail -1 "$tmp/k2b") s"
	fi
	if [ -x "$py" ] && [ "$r" -le "${COVASIM_REPS:-1}" ]; then
		"$py" "$top/bench/covasim_multisim.py" random 37518 "$days" "$runs" 2 > "$tmp/cv"
		cat "$tmp/cv"
		awk 'NF == 4 && $1 ~ /^[0-9]+$/ {print $3}' "$tmp/cv" >> "$tmp/c2"
	fi
	echo "# repeat $r: weft $(tail -1 "$tmp/weft") s, K=1 $(tail -1 "$tmp/k1") s, K=2 $(tail -1 "$tmp/k2") s, covasim 2 cpus $(tail -1 "$tmp/c2" 2>/dev/null) s"
done
echo "# load after: $(uptime | sed 's/.*load average: //')"
printf 'weft run (1 process)   %s s\n' "$(median < "$tmp/weft")"
printf 'weft-mpi K = 1         %s s\n' "$(median < "$tmp/k1")"
printf 'weft-mpi K = 2         %s s\n' "$(median < "$tmp/k2")"
[ -s "$tmp/wb" ] && printf 'weft run, batch %-5s  %s s\n' "$batch" "$(median < "$tmp/wb")"
[ -s "$tmp/k2b" ] && printf 'weft-mpi K = 2, batch %-3s %s s\n' "$batch" "$(median < "$tmp/k2b")"
[ -s "$tmp/c2" ] && printf 'Covasim MultiSim 2 cpu %s s\n' "$(median < "$tmp/c2")"
true
