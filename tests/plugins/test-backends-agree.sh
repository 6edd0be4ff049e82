#!/bin/sh
# tests/plugins/test-backends-agree.sh - one model, one configuration, two backends:
# the OpenCL and the OpenMP backends must write byte-identical daily.csv
# for examples/astoria.ini (every random decision is an integer comparison
# of a counter-based draw, so results do not depend on the device). Also
# OpenMP on 1 and 2 threads. Skipped when the OpenCL backend is not
# available here (`weft backends` says why).
set -u
weft="$WEFT_BUILDDIR/cli/weft"
ini="$WEFT_SRCDIR/examples/astoria.ini"
# The plugins built in this tree, whatever the environment already names.
WEFT_PLUGIN_PATH="$WEFT_BUILDDIR/plugins/openmp/.libs:$WEFT_BUILDDIR/plugins/opencl/.libs${WEFT_PLUGIN_PATH:+:$WEFT_PLUGIN_PATH}"
export WEFT_PLUGIN_PATH
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-agree-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT

"$weft" backends > "$tmp/backends" 2>&1
if ! grep -q '^opencl  *available' "$tmp/backends"; then
	why=$(grep -A1 '^opencl ' "$tmp/backends" | tail -1 | sed 's/^ *//')
	skip_all "the OpenCL backend is not available: ${why:-not found}"
fi
grep -q '^openmp  *available' "$tmp/backends" ||
	skip_all "the OpenMP backend is not available"

# run NAME weft-args...: astoria into $tmp/NAME; stderr kept for diagnostics.
run() {
	name=$1; shift
	"$weft" run "$ini" --quiet --set "output.directory=$tmp/$name" \
		"$@" > "$tmp/$name.out" 2>&1
	rc=$?
	ok "$rc" "astoria runs on $name"
	[ "$rc" -eq 0 ] || sed 's/^/# /' "$tmp/$name.out"
}

# same A B: daily.csv of runs A and B are byte-identical.
same() {
	if cmp "$tmp/$1/daily.csv" "$tmp/$2/daily.csv" > "$tmp/cmp" 2>&1; then
		ok 0 "daily.csv: $1 and $2 agree byte for byte"
	else
		ok 1 "daily.csv: $1 and $2 agree byte for byte"
		sed 's/^/# /' "$tmp/cmp"
	fi
}

run opencl --set backend.name=opencl
run openmp --set backend.name=openmp
same opencl openmp
grep -q '^weft: seir on opencl' "$tmp/opencl.out"
ok $? "the opencl run ran on opencl"
test "$(wc -l < "$tmp/opencl/daily.csv")" -eq 122
ok $? "daily.csv has a header and 121 rows"
run openmp-1 --set backend.name=openmp --set backend.threads=1
run openmp-2 --set backend.name=openmp --set backend.threads=2
same openmp-1 openmp-2
same opencl openmp-2

tap_done
