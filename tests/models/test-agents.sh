#!/bin/sh
# tests/models/test-agents.sh - populations with births and deaths
# (weft/agents.h): the test model tests/models/agents/agents-test.c, on
# every backend built, against the plain C reference agents-ref.c: the
# count and the next identity after every step, the identities, values
# and order of the live agents at the end; byte for byte across backends
# and thread counts; and a population that runs out of capacity fails the
# run with the step, the slots needed and the key to raise.
set -u
weft="$WEFT_BUILDDIR/cli/weft"
ref="$WEFT_BUILDDIR/tests/models/agents/agents-ref"
so="$WEFT_BUILDDIR/tests/models/agents/.libs/weft-model-agents_test.so"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-agents-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/at.ini" <<INI
[model]
plugin = $so
[simulation]
model = agents_test
steps = 40
seed = 12345
[output]
every = 1
plot = none
[agents_test]
initial = 300
capacity = 100000
max_children = 1
death = 0.45
INI

mkdir -p "$tmp/ref"
"$ref" 12345 40 300 1 0.45 100000 "$tmp/ref" > "$tmp/ref.out"
ok $? "the reference runs 40 steps"
test "$(wc -l < "$tmp/ref/agents.csv")" -gt 100
ok $? "  ...and its population neither dies out nor stays small"

# run LABEL BACKEND THREADS [--set ...]: a run into $tmp/LABEL.
run() {
	label=$1 b=$2 th=$3
	shift 3
	WEFT_PLUGIN_PATH="$WEFT_BUILDDIR/plugins/$b/.libs" "$weft" run --quiet \
		"$tmp/at.ini" --set backend.name="$b" --set backend.threads="$th" \
		--set output.directory="$tmp/$label" "$@" > "$tmp/$label.out" 2>&1
}

available() {
	WEFT_PLUGIN_PATH="$WEFT_BUILDDIR/plugins/$1/.libs" "$weft" backends 2>/dev/null |
		grep -q "^$1  *available "
}

for b in openmp template opencl; do
	if [ ! -f "$WEFT_BUILDDIR/plugins/$b/.libs/weft-backend-$b.so" ] || ! available "$b"; then
		skip "$b: births and deaths as the reference" "$b not built or not available"
		continue
	fi
	for th in 1 2; do
		[ "$b" = opencl ] && [ "$th" = 2 ] && continue
		run "$b-$th" "$b" "$th"
		rc=$?
		[ "$rc" -eq 0 ] && cmp -s "$tmp/ref/steps.csv" "$tmp/$b-$th/steps.csv" &&
			cmp -s "$tmp/ref/agents.csv" "$tmp/$b-$th/agents.csv"
		ok $? "$b, $th threads: counts, next identities, ids, values and order as the reference (exit $rc)"
		if [ "$rc" -ne 0 ]; then
			diag "$tmp/$b-$th.out"
		elif [ -f "$tmp/$b-$th/steps.csv" ]; then
			diff "$tmp/ref/steps.csv" "$tmp/$b-$th/steps.csv" | head -5 | diag
		fi
	done
done

# Capacity: the reference says at which step the population outgrows
# 500 slots and how many it needs then.
"$ref" 12345 40 300 1 0.45 500 "$tmp/ref" > "$tmp/over.ref"
read -r word step need < "$tmp/over.ref"
test "$word" = overflow
ok $? "the reference outgrows 500 slots (at step ${step:-?}, needing ${need:-?})"
for b in openmp template; do
	[ -f "$WEFT_BUILDDIR/plugins/$b/.libs/weft-backend-$b.so" ] || continue
	run "over-$b" "$b" 1 --set agents_test.capacity=500
	rc=$?
	want="population 'agents' ran out of capacity at step $step (seen after step $step): its births needed $need slots, [agents_test] capacity = 500; raise [agents_test] capacity to at least $need"
	[ "$rc" -ne 0 ] && grep -qF "$want" "$tmp/over-$b.out"
	ok $? "$b: out of capacity is an error naming the population, step, slots needed and key"
	[ "$rc" -ne 0 ] && grep -qF "$want" "$tmp/over-$b.out" || diag "$tmp/over-$b.out"
done

# weft conform on every backend available: state and outputs across
# backends and thread counts, repeats, and a checkpoint taken halfway on
# openmp resumed on each backend (the control block is state).
P=""
for b in openmp template opencl; do
	P="$P${P:+:}$WEFT_BUILDDIR/plugins/$b/.libs"
done
WEFT_PLUGIN_PATH="$P" "$weft" conform "$so" > "$tmp/conform.out" 2>&1
ok $? "weft conform passes for the test model (checkpoint and resume included)"
grep -q "resumed from step" "$tmp/conform.out"
ok $? "  ...and it resumed from a checkpoint"
grep '^not ok' "$tmp/conform.out" | head -5 | diag

# Batched replicas: 4 seeds stepped 2 at a time write every run's files
# byte for byte as runs alone (each replica's count drives its launches).
for mode in 1 2; do
	WEFT_PLUGIN_PATH="$WEFT_BUILDDIR/plugins/openmp/.libs" "$weft" run --quiet \
		"$tmp/at.ini" --set ensemble.runs=4 --set ensemble.batch=$mode \
		--set simulation.steps=30 --set output.directory="$tmp/batch$mode" \
		> "$tmp/batch$mode.out" 2>&1 || diag "$tmp/batch$mode.out"
done
test -f "$tmp/batch2/runs/base/12348/agents.csv" && diff -r "$tmp/batch1/runs" "$tmp/batch2/runs" > /dev/null
ok $? "openmp: 4 runs batched 2 at a time write what runs alone write"

tap_done
