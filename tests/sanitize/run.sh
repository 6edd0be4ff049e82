#!/bin/sh
# tests/sanitize/run.sh SRCDIR BUILDDIR [FUZZ_SECONDS] - `make
# check-sanitize`: configure BUILDDIR (out of tree, from SRCDIR) with clang,
# -fsanitize=address,undefined and coverage for libFuzzer; build it; run
# the whole test suite there with every sanitizer report fatal; then run
# each fuzzer of tests/fuzz/ for FUZZ_SECONDS (60) through the TAP driver
# (tests/sanitize/fuzz.sh), so that its results are counted with the
# others (BUILDDIR/tests/fuzz.trs). Exits 1 when anything failed.
#
# Reports: AddressSanitizer (heap, stack and global overflows, use after
# free, and the OpenMP backend's poisoned block slack), LeakSanitizer
# (libraries' own leaks suppressed in lsan.supp), UndefinedBehaviorSanitizer
# (-fno-sanitize-recover=all: each report stops the process). LSan runs
# with use_tls=0: its thread-stopping tracer crashes on the TLS of
# libomp's threads (clang's OpenMP runtime) here. OpenCL runs on PoCL,
# whose libraries are not instrumented: what they do is not checked, the
# plugin's side of every call is. The CUDA plugin is compiled by nvcc with
# clang as host compiler and the same flags; with no driver it only
# probes, and its logic runs against the stand-in runtime (test-cuda-mock,
# test-conform-async).
set -u
src=$1
build=$2
secs=${3:-60}
cc=${SANITIZE_CC:-clang}
jobs=$(nproc 2>/dev/null || echo 2)
# One flag per sanitizer: nvcc cannot pass a comma on to its host compiler.
san="-fsanitize=address -fsanitize=undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
# libFuzzer's coverage (-fsanitize=fuzzer-no-link without stack-depth,
# whose counter only libFuzzer defines: every other program of the build
# must still load the plugins).
cov="-fsanitize-coverage=inline-8bit-counters -fsanitize-coverage=pc-table -fsanitize-coverage=trace-cmp"

if ! command -v "$cc" > /dev/null 2>&1; then
	echo "check-sanitize: $cc not found (./quickstart sanitize installs" \
		"clang, libclang-rt-dev and libomp-dev)" >&2
	exit 1
fi
t0=$(date +%s) # configure and build, suite, fuzzers: timed for the report
flags="CC=$cc CFLAGS=-g -O1 $san $cov LDFLAGS=$san --enable-test-hooks"
mkdir -p "$build" && cd "$build" || exit 1
if [ ! -f config.status ] || [ config.status -ot "$src/configure" ] ||
	[ "$(cat sanitize-flags 2> /dev/null)" != "$flags" ]; then
	echo "check-sanitize: configuring $build ($cc $san)"
	if ! "$src/configure" CC="$cc" \
		CFLAGS="-g -O1 $san $cov -Wno-unknown-warning-option" \
		LDFLAGS="$san" --enable-werror --enable-test-hooks \
		--prefix="$build/_inst" \
		> configure.log 2>&1; then
		tail -20 configure.log >&2
		echo "check-sanitize: configure failed ($build/configure.log)" >&2
		exit 1
	fi
	echo "$flags" > sanitize-flags
fi

ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1
UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1
LSAN_OPTIONS=use_tls=0:print_suppressions=0:suppressions=$src/tests/sanitize/lsan.supp
# tests/cli/test-wk.sh links a program that loads the plugins.
WEFT_PLUGIN_HOST_CC="$cc $san"
# Tests that cannot hold under ASan (address-space limits, resident
# memory measured) skip themselves when WEFT_SANITIZE is set.
WEFT_SANITIZE=1
export ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS WEFT_PLUGIN_HOST_CC WEFT_SANITIZE

status=0
make -j"$jobs" || exit 1
t1=$(date +%s)
make -j"$jobs" check || status=1
t2=$(date +%s)
make -j"$jobs" FUZZ_LDFLAGS=-fsanitize=fuzzer tests/fuzz/fuzz-config-load \
	tests/fuzz/fuzz-config-set tests/fuzz/fuzz-population || exit 1
AM_TAP_AWK=${AWK:-awk} FUZZ_SECONDS=$secs WEFT_SRCDIR=$src WEFT_BUILDDIR=$build \
	sh "$src/build-aux/tap-driver.sh" --test-name tests/fuzz \
	--log-file tests/fuzz.log --trs-file tests/fuzz.trs --color-tests no \
	--enable-hard-errors yes --expect-failure no -- \
	sh "$src/tests/sanitize/fuzz.sh"
grep -q '^:test-result: \(FAIL\|ERROR\)' tests/fuzz.trs && status=1
t3=$(date +%s)
echo "check-sanitize: $( [ "$status" -eq 0 ] && echo passed || echo FAILED)" \
	"(suite and fuzzers in $build; logs tests/*/*.log, fuzz/*.log);" \
	"build $((t1 - t0)) s, suite $((t2 - t1)) s, fuzzers $((t3 - t2)) s;" \
	"load $(cut -d' ' -f1-3 /proc/loadavg)"
exit "$status"
