#!/bin/sh
# tests/core/test-batch-ensemble.sh - [ensemble] batch from the weft command: 6 runs of
# Astoria (40 days), of CartPole and of the template's SIR model, batched 4
# at a time (a full batch and one of 2), give every per-run file under
# runs/ and every aggregate byte for byte as batch = 1 does, on every
# backend available (openmp, opencl, the template backend built from
# source); a backend without step_replicas() is skipped there, saying so.
# Then: the fallback (WEFT_TEST_NO_STEP_REPLICAS: the runs one after
# another, a note in summary.txt, the same bytes), a failed batch (all of
# its runs fail, the other batch goes on) and bad values with file:line.
set -u
weft="$WEFT_BUILDDIR/cli/weft"
src="$WEFT_SRCDIR"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-batch-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT

# The template backend, built from its source as a third party would.
mkdir -p "$tmp/tpl"
${CC:-cc} -std=c11 -fPIC -shared -fvisibility=hidden -I"$src/include" \
	-o "$tmp/tpl/weft-backend-template.so" "$src/plugins/template/template.c" \
	2> "$tmp/tpl.log" || diag "$tmp/tpl.log"
WEFT_PLUGIN_PATH="$WEFT_PLUGIN_PATH:$WEFT_BUILDDIR/plugins/opencl/.libs:$tmp/tpl"
export WEFT_PLUGIN_PATH

# run NAME INI BATCH [--set ...]: 6 runs, no plots, into $tmp/NAME.
run() {
	name=$1 ini=$2 batch=$3
	shift 3
	rm -rf "$tmp/$name"
	"$weft" run "$ini" --set "output.directory=$tmp/$name" \
		--set output.plot=none --set ensemble.runs=6 \
		--set "ensemble.batch=$batch" "$@" > "$tmp/$name.log" 2>&1
}

# same A B: every file of A and B alike, summary.txt but for its batch line.
same() {
	grep -v '^batch ' "$tmp/$2/summary.txt" > "$tmp/$2.summary" &&
		cmp -s "$tmp/$1/summary.txt" "$tmp/$2.summary" &&
		diff -r -x summary.txt "$tmp/$1" "$tmp/$2" > "$tmp/diff" 2>&1 &&
		diff -r "$tmp/$1/runs" "$tmp/$2/runs" >> "$tmp/diff" 2>&1 &&
		[ "$(find "$tmp/$1/runs" -type f | wc -l)" -ge 12 ]
}

astoria="$src/examples/astoria.ini"
cartpole="$src/examples/cartpole.ini"
sir="$src/models/template/sir.ini"
for be in openmp opencl template; do
	if ! "$weft" backends 2>/dev/null | grep -q "^ *$be .*available"; then
		skip "$be: not available here"
		continue
	fi
	# sir first, the quickest: a backend that does not batch it batches
	# nothing, and the others are skipped with it.
	nobatch=
	for m in sir astoria cartpole; do
		if [ -n "$nobatch" ]; then
			skip "$m on $be: $nobatch"
			continue
		fi
		eval ini=\$$m
		case $m in
		astoria) sets="--set simulation.steps=40" ;;
		cartpole) sets="--set simulation.steps=200 --set cartpole.envs=256" ;;
		sir) sets="--set simulation.steps=60 --set sir.width=64 --set sir.height=64" ;;
		esac
		# shellcheck disable=SC2086
		run "$m-$be-1" "$ini" 1 --set "backend.name=$be" $sets &&
			run "$m-$be-4" "$ini" 4 --set "backend.name=$be" $sets
		rc=$?
		if grep -q '^batch .*none batched' "$tmp/$m-$be-4/summary.txt" 2>/dev/null; then
			nobatch=$(sed -n 's/^batch *//p' "$tmp/$m-$be-4/summary.txt")
			skip "$m on $be: $nobatch"
			continue
		fi
		[ $rc -eq 0 ] && same "$m-$be-1" "$m-$be-4"
		ok $? "$m on $be: 6 runs batched 4 at a time, every per-run file and aggregate as batch = 1"
		[ $rc -eq 0 ] || diag "$tmp/$m-$be-4.log"
		[ -f "$tmp/diff" ] && diag "$tmp/diff"
		rm -f "$tmp/diff"
		rm -rf "$tmp/$m-$be-1" "$tmp/$m-$be-4"
	done
done

# ---- the fallback: a backend without step_replicas() ------------------------
small="--set simulation.steps=20 --set seir.agents=3000 --set backend.name=openmp"
if hooks "without step_replicas() the ensemble runs" \
	"  ...and summary.txt says the runs ran one after another, and why" \
	"  ...with the same bytes as batch = 1" \
	"a run failing fails its batch's 4 runs; the other batch's 2 are written as alone"; then
	# shellcheck disable=SC2086
	run fb-1 "$astoria" 1 $small &&
		WEFT_TEST_NO_STEP_REPLICAS=1 run fb-4 "$astoria" 4 $small
	ok $? "without step_replicas() the ensemble runs"
	grep -q "^batch .*none batched: backend openmp (.*weft-backend-openmp.so) cannot batch replicas: its step_replicas() is NULL; the runs ran one after another" \
		"$tmp/fb-4/summary.txt"
	ok $? "  ...and summary.txt says the runs ran one after another, and why"
	diag "$tmp/fb-4/summary.txt" | head -3
	same fb-1 fb-4
	ok $? "  ...with the same bytes as batch = 1"

	# ---- a failed batch -------------------------------------------------------
	# shellcheck disable=SC2086
	WEFT_TEST_ENSEMBLE_FAIL=1 run fail "$astoria" 4 $small
	rc=$?
	[ $rc -eq 1 ] && [ "$(grep -c '^failed run [0-3] .*run 1 failed (test hook ENSEMBLE_FAIL)' "$tmp/fail/summary.txt")" -eq 4 ] &&
		! grep -q '^failed run [45]' "$tmp/fail/summary.txt" &&
		cmp -s "$tmp/fb-1/runs/base/20200305/daily.csv" "$tmp/fail/runs/base/20200305/daily.csv"
	ok $? "a run failing fails its batch's 4 runs; the other batch's 2 are written as alone (exit $rc)"
	diag "$tmp/fail.log" | head -8
fi

# ---- bad values ---------------------------------------------------------------
for v in 0 4097 two; do
	printf '[simulation]\nmodel = seir\n[ensemble]\nruns = 2\nbatch = %s\n' "$v" > "$tmp/bad.ini"
	rm -rf "$tmp/badout"
	"$weft" check "$tmp/bad.ini" > /dev/null 2> "$tmp/bad.err"
	rc=$?
	[ $rc -ne 0 ] && [ "$(wc -l < "$tmp/bad.err")" -eq 1 ] &&
		grep -q "bad.ini:5" "$tmp/bad.err" && grep -q "batch" "$tmp/bad.err"
	ok $? "batch = $v is refused in one line naming bad.ini:5 and the key"
	diag "$tmp/bad.err"
done

tap_done
