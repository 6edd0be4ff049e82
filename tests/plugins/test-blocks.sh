#!/bin/sh
# tests/plugins/test-blocks.sh - weft's building blocks (weft/blocks.wk,
# weft/blocks.h) in a program of their own: bench/blocks-bench, whose
# kernel file holds nothing but `#include <weft/blocks.wk>`, runs a scan,
# a sort and a compaction of 300,001 elements (73 tiles plus one element)
# on each backend built here (the host one at one and two threads), and
# checks each result against its C reference (it exits 1 on a
# difference); the program needs nothing of a device (needs 0). The
# conformance group "blocks" (tests/plugins/conform.am) checks every block
# in detail on each backend; here it runs once more on OpenCL with the
# device's fp64 hidden (WEFT_OPENCL_NO_FP64=1), where f64 sums take the
# software addition of weft/blocks.wk and must give the same bits.
set -u
. "${WEFT_SRCDIR:-$(dirname "$0")/../..}/tests/tap.sh"
build=${WEFT_BUILDDIR:-.}
bench="$build/bench/blocks-bench"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-blocks-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

[ -x "$bench" ] || skip_all "$bench is not built (make check builds it)"

# run NAME THREADS: the blocks on backend NAME (THREADS 0: its default);
# a skip when it is not built.
run() {
	plugin="$build/plugins/$1/.libs/weft-backend-$1.so"
	on="$1 backend"
	[ "$2" -eq 0 ] || on="$on, $2 thread(s)"
	what="$on: scan_u32, sort_u32 and compact_u32 of 300001 elements match their C reference"
	if [ ! -f "$plugin" ]; then
		skip "$what" "$plugin not built"
		return
	fi
	OMP_NUM_THREADS=$2 "$bench" "$plugin" "$2" 300001 1 > "$tmp/out" 2>&1 &&
		grep -q '^kept=[1-9]' "$tmp/out"
	rc=$?
	ok $rc "$what"
	[ $rc -eq 0 ] || diag "$tmp/out"
}

run openmp 1
run openmp 2
run opencl 0

grep -q '^	\.needs = 0,$' "$build/bench/bb_kernels.c"
ok $? "a program of the blocks alone needs nothing of a device (bb_kernels.c: .needs = 0)"

ocl="$build/plugins/opencl/.libs/weft-backend-opencl.so"
what="conformance group blocks on OpenCL without fp64 (software f64 sums)"
if [ -f "$ocl" ]; then
	WEFT_OPENCL_NO_FP64=1 "$build/cli/weft" conform --only=blocks "$ocl" \
		> "$tmp/nofp64.tap" 2>&1
	rc=$?
	[ $rc -eq 0 ] && ! grep -q '^not ok' "$tmp/nofp64.tap" &&
		grep -q 'sum_f64' "$tmp/nofp64.tap"
	rc=$?
	ok $rc "$what"
	[ $rc -eq 0 ] || grep -v '^ok' "$tmp/nofp64.tap" | head -20 | diag
else
	skip "$what" "$ocl not built"
fi
tap_done
