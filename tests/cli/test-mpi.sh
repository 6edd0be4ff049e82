#!/bin/sh
# tests/cli/test-mpi.sh - weft-mpi: an ensemble over 1, 2 and 3 MPI ranks
# (mpirun --oversubscribe) writes aggregates byte-identical to `weft run`'s
# and every run's outputs, with [ensemble] batch = 1 and 3 (a batch is
# a rank's unit of work); a failed run is reported with its scenario and
# seed (exit 1, the others' aggregates written; with batch = 3, its
# batch's runs); a rank killed with SIGKILL fails the job with a message,
# without a hang, and replaces nothing. Skipped when weft-mpi was not
# built (configure found no Open MPI, or --without-mpi).
set -u
weft="$WEFT_BUILDDIR/cli/weft"
wmpi="$WEFT_BUILDDIR/mpi/weft-mpi"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-mpi-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT

if [ ! -x "$wmpi" ] || [ -z "${MPIRUN:-}" ]; then
	skip_all "weft-mpi not built (configure: no Open MPI, or --without-mpi)"
fi
# As root (CI), Open MPI refuses to start without these.
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
# One thread per rank: the ranks share this machine's cores.
OMP_NUM_THREADS=1
export OMP_NUM_THREADS

# Open MPI's own libraries leave allocations behind at exit, which
# LeakSanitizer reports (from libmpi and its components): in the
# sanitizer build (WEFT_SANITIZE) the ranks run with leak detection off;
# their memory errors are still caught.
mpix=
if [ -n "${WEFT_SANITIZE:-}" ]; then
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	export ASAN_OPTIONS
	mpix="-x ASAN_OPTIONS"
fi
# shellcheck disable=SC2086 # $mpix: none, or an option and its value
mpi() { k=$1; shift; timeout 120 "$MPIRUN" $mpix --oversubscribe -n "$k" "$wmpi" "$@"; }

cat > "$tmp/ens.ini" <<INI
[simulation]
model = seir
steps = 40
seed = 7

[backend]
name = openmp
threads = 1

[output]
directory = $tmp/out
plot = none

[ensemble]
runs = 5

[seir]
agents = 2000
initial_infected = 10

[sweep]
seir.beta = 0.012, 0.02

[scenario baseline]

[scenario distancing]
seir.beta_community = 0.1
INI

"$weft" run "$tmp/ens.ini" > "$tmp/run" 2>&1
ok $? "weft run: the single-process ensemble"
mkdir -p "$tmp/ref"
cp "$tmp/out"/*.csv "$tmp/out"/summary.txt "$tmp/ref/"
(cd "$tmp/out/runs" && find . -type f | sort) > "$tmp/ref-runs"
cp -r "$tmp/out/runs" "$tmp/refruns"

for k in 1 2 3; do
	rm -rf "$tmp/out"
	mpi $k run "$tmp/ens.ini" > "$tmp/mpi" 2>&1
	rc=$?
	same=0
	for f in "$tmp/ref"/*; do
		cmp -s "$f" "$tmp/out/$(basename "$f")" || same=1
	done
	[ $rc -eq 0 ] && [ $same -eq 0 ]
	ok $? "mpirun -n $k: aggregates and summary byte-identical to weft run's"
	[ $rc -eq 0 ] || diag "$tmp/mpi"
	(cd "$tmp/out/runs" && find . -type f | sort) > "$tmp/runs"
	cmp -s "$tmp/runs" "$tmp/ref-runs"
	ok $? "mpirun -n $k: every run's outputs in runs/SCENARIO/SEED/"
done

# [ensemble] batch = 3: each scenario's 5 runs as batches of 3 and 2 (a
# batch is the unit of work a rank is given). The aggregates are those of
# weft run with the same batch, and those of the runs one at a time.
"$weft" run "$tmp/ens.ini" --set ensemble.batch=3 > "$tmp/run" 2>&1
ok $? "weft run: the ensemble in batches of 3"
mkdir -p "$tmp/refb"
cp "$tmp/out"/*.csv "$tmp/out"/summary.txt "$tmp/refb/"
same=0
for f in "$tmp/ref"/*.csv; do
	cmp -s "$f" "$tmp/refb/$(basename "$f")" || same=1
done
[ $same -eq 0 ] && grep -q 'stepped together on backend openmp' "$tmp/refb/summary.txt"
ok $? "batched: the aggregates are the runs' one at a time, and summary.txt says it batched"
for k in 1 2 3; do
	rm -rf "$tmp/out"
	mpi $k run "$tmp/ens.ini" --set ensemble.batch=3 > "$tmp/mpi" 2>&1
	rc=$?
	same=0
	for f in "$tmp/refb"/*; do
		cmp -s "$f" "$tmp/out/$(basename "$f")" || same=1
	done
	for f in $(cat "$tmp/ref-runs"); do
		case $f in */daily.csv) cmp -s "$tmp/out/runs/$f" "$tmp/refruns/$f" || same=1 ;; esac
	done 2>/dev/null
	[ $rc -eq 0 ] && [ $same -eq 0 ]
	ok $? "mpirun -n $k, batch = 3: aggregates, summary and each run's daily.csv byte-identical to weft run's"
	[ $rc -eq 0 ] || diag "$tmp/mpi"
done
# A failed run fails its batch, as in weft run: run 6 (seed 8) is in the
# batch of runs 5 to 7 (seeds 7 to 9), so run 5 is reported too; the
# other scenarios are written.
if hooks "batch = 3, a failed run: its batch's runs reported" \
	"a failed run: reported with scenario and seed"; then
	WEFT_TEST_ENSEMBLE_FAIL=6 mpi 2 run "$tmp/ens.ini" --set ensemble.batch=3 > "$tmp/mpi" 2> "$tmp/stderr"
	rc=$?
	[ $rc -ne 0 ] &&
		grep -q "run 6 (scenario baseline+seir.beta=0.02, seed 8): .*test hook ENSEMBLE_FAIL" "$tmp/stderr" &&
		grep -q "run 5 (scenario baseline+seir.beta=0.02, seed 7): " "$tmp/stderr" &&
		[ ! -e "$tmp/out/baseline+seir.beta=0.02.csv" ] &&
		cmp -s "$tmp/refb/distancing+seir.beta=0.02.csv" "$tmp/out/distancing+seir.beta=0.02.csv"
	ok $? "batch = 3, a failed run: its batch's runs reported with scenario and seed, the others' aggregates written"
	[ $? -eq 0 ] || diag "$tmp/stderr"

	WEFT_TEST_ENSEMBLE_FAIL=6 mpi 3 run "$tmp/ens.ini" > "$tmp/mpi" 2> "$tmp/stderr"
	rc=$?
	[ $rc -ne 0 ] &&
		grep -q "run 6 (scenario baseline+seir.beta=0.02, seed 8): .*test hook ENSEMBLE_FAIL" "$tmp/stderr" &&
		[ ! -e "$tmp/out/baseline+seir.beta=0.02.csv" ] &&
		cmp -s "$tmp/ref/distancing+seir.beta=0.02.csv" "$tmp/out/distancing+seir.beta=0.02.csv"
	ok $? "a failed run: reported with scenario and seed, exit non-zero, the others' aggregates written"
	[ $? -eq 0 ] || diag "$tmp/stderr"
fi

# A rank killed mid-ensemble: longer runs, so that it is caught working.
cp -r "$tmp/out" "$tmp/before"
sed 's/^steps = 40/steps = 400/; s/^runs = 5/runs = 30/' "$tmp/ens.ini" > "$tmp/long.ini"
mpi 3 run "$tmp/long.ini" > "$tmp/mpi" 2> "$tmp/stderr" &
job=$!
victim=""
for i in $(seq 1 100); do
	for p in $(pgrep -f "weft-mpi run $tmp/long.ini"); do
		if tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null |
			grep -qx "OMPI_COMM_WORLD_RANK=1"; then
			victim=$p
		fi
	done
	[ -n "$victim" ] && break
	sleep 0.1
done
sleep 0.5
[ -n "$victim" ] && kill -9 "$victim"
wait $job
rc=$?
[ -n "$victim" ] && [ $rc -ne 0 ] && [ $rc -ne 124 ] &&
	grep -qi "signal 9\|killed" "$tmp/stderr"
ok $? "a rank killed with SIGKILL fails the job with a message, no hang (rc $rc)"
[ $? -eq 0 ] || diag "$tmp/stderr"
diff -r "$tmp/before" "$tmp/out" > /dev/null
ok $? "and replaces nothing"

tap_done
