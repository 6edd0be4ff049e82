#!/bin/sh
# tests/cli/test-calibrate-mpi.sh - `mpirun -n 2 weft calibrate CONFIG`
# (docs/calibration.md): the two ranks share the trials of one study in
# [calibration] storage (a SQLite file), each trial tagged with its rank;
# rank 0 alone writes the outputs, once, after both ranks' trials; the
# other rank writes nothing. Without storage the job fails with one
# message naming the key; a rank that cannot start ends the job without
# a hang, and replaces none of the earlier outputs. Skipped without
# mpirun, or without a Python that has the weft package and optuna:
# $WEFT_PYTHON, else the source tree's _venv (./quickstart python), else
# python3.
set -u
weft="$WEFT_BUILDDIR/cli/weft"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-calibrate-mpi-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT

mpirun=${MPIRUN:-}
[ -n "$mpirun" ] || mpirun=$(command -v mpirun) ||
	skip_all "no mpirun (install openmpi-bin)"
"$mpirun" --version 2>&1 | grep -q "Open MPI" ||
	skip_all "$mpirun is not Open MPI's (this test passes its --oversubscribe)"
py=$(find_python "weft, optuna, weft.calibrate" "${WEFT_PYTHON:-}") ||
	skip_all "no Python with the weft package and optuna (set WEFT_PYTHON, or ./quickstart python for _venv)"
WEFT_PYTHON=$py
export WEFT_PYTHON
# As root (CI), Open MPI refuses to start without these; one thread a
# rank, the ranks share this machine's cores.
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM OMP_NUM_THREADS
mpi() { timeout 300 "$mpirun" --oversubscribe "$@"; }

printf 'day,infected\n2,20\n4,26\n6,31\n' > "$tmp/data.csv"
cat > "$tmp/tiny.ini" <<INI
[simulation]
model = seir
steps = 10
[output]
directory = $tmp/out
plot = none
[seir]
agents = 300
[calibration]
data = data.csv
trials = 5
storage = sqlite:///$tmp/study.db
param.seir.beta = 0.004 .. 0.03
component.infected = normal infected ~ cumulative
INI

# sql QUERY: the query's rows from the study's SQLite file.
sql() {
	"$py" -c 'import sqlite3, sys
for row in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]):
    print("|".join(str(v) for v in row))' "$tmp/study.db" "$1"
}

mpi -n 2 "$weft" calibrate "$tmp/tiny.ini" > "$tmp/stdout" 2> "$tmp/stderr"
rc=$?
ok $rc "mpirun -n 2 weft calibrate succeeds"
[ $rc -eq 0 ] || { diag "$tmp/stdout"; diag "$tmp/stderr"; }

[ -f "$tmp/study.db" ] && [ "$(sql 'select count(*) from trials')" = 5 ] &&
	[ "$(sql "select count(*) from trials where state = 'COMPLETE'")" = 5 ]
ok $? "the study holds exactly the 5 trials asked for, all complete"
sql "select a.value_json, count(*) from trials t join trial_user_attributes a
	on a.trial_id = t.trial_id where a.key = 'rank' group by a.value_json
	order by a.value_json" > "$tmp/ranks" 2>&1
printf '0|3\n1|2\n' | cmp -s - "$tmp/ranks"
r=$?
ok $r "rank 0 ran 3 trials and rank 1 ran 2 (the trials' user attribute rank)"
[ $r -eq 0 ] || diag "$tmp/ranks"

grep -q "2 MPI ranks (OMPI_COMM_WORLD_SIZE=2)" "$tmp/stdout" &&
	[ "$(grep -c '^best: seir.beta = ' "$tmp/stdout")" -eq 1 ] &&
	grep -q "^weft calibrate: rank 1 of 2: its trials done .*; rank 0 writes the outputs" "$tmp/stdout"
ok $? "rank 0 prints the summary once; rank 1 says it leaves the outputs to rank 0"
for f in best.ini trials.csv calibration.txt; do
	[ "$(grep -c "^  $tmp/out/$f\$" "$tmp/stdout")" -eq 1 ] || echo "$f"
done > "$tmp/missing"
[ ! -s "$tmp/missing" ] && [ "$(wc -l < "$tmp/out/trials.csv")" -eq 6 ] &&
	grep -q "^trials: 5 (this call: 5," "$tmp/out/calibration.txt" &&
	grep -q "^beta = " "$tmp/out/best.ini" &&
	[ "$(ls -A "$tmp/out" | grep -v '\.png$' | tr '\n' ' ')" = "best.ini calibration.txt trials.csv " ]
r=$?
ok $r "the outputs are written once, and hold all 5 trials"
[ $r -eq 0 ] || { diag "$tmp/missing"; diag "$tmp/stdout"; }
cp "$tmp/out/best.ini" "$tmp/best.before"

# No storage: one message, from rank 0, naming the key; nothing written.
mpi -n 2 "$weft" calibrate "$tmp/tiny.ini" --storage= \
	--set "output.directory=$tmp/out2" > "$tmp/stdout" 2> "$tmp/stderr"
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] &&
	[ "$(grep -c 'storage is not set' "$tmp/stderr")" -eq 1 ] &&
	grep -qF "weft calibrate: rank 0 of 2: $tmp/tiny.ini: [calibration] storage is not set: the 2 MPI ranks (OMPI_COMM_WORLD_SIZE=2) share one study through it: set storage = sqlite:///calib.db" "$tmp/stderr" &&
	[ ! -e "$tmp/out2" ]
r=$?
ok $r "without storage, 2 ranks fail with one message naming [calibration] storage"
[ $r -eq 0 ] || diag "$tmp/stderr"

# Rank 1 cannot start (no interpreter): mpirun ends the job, rank 0
# included, without waiting; the earlier outputs stay as they were.
mpi -n 1 "$weft" calibrate "$tmp/tiny.ini" : \
	-n 1 env WEFT_PYTHON=/nonexistent/python "$weft" calibrate \
	"$tmp/tiny.ini" > "$tmp/stdout" 2> "$tmp/stderr"
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] &&
	grep -qF "cannot run the Python interpreter /nonexistent/python" "$tmp/stderr" &&
	cmp -s "$tmp/best.before" "$tmp/out/best.ini"
r=$?
ok $r "a rank that fails ends the job without a hang (exit $rc); the outputs stay"
[ $r -eq 0 ] || diag "$tmp/stderr"
tap_done
