#!/bin/sh
# tests/sanitize/fuzz.sh - each libFuzzer harness of tests/fuzz/ for
# FUZZ_SECONDS (60), in the sanitizer build (WEFT_BUILDDIR), starting from
# its seeds in tests/fuzz/NAME/ (and examples/ for the configuration,
# examples/population/ for the population loader); one TAP line each, ok
# when it ran its time without a crash, a leak, a sanitizer report, a
# timeout (10 s per input) or running out of memory (2 GiB). New inputs it
# finds go to WEFT_BUILDDIR/fuzz/NAME/, a failing one to
# WEFT_BUILDDIR/fuzz/NAME-crash-* (add it to tests/fuzz/NAME/ with the fix).
# Run by tests/sanitize/run.sh.
set -u
src=$WEFT_SRCDIR
build=$WEFT_BUILDDIR
secs=${FUZZ_SECONDS:-60}
WEFT_MODEL_PATH=$build/models/seir/.libs:$build/models/cartpole/.libs:$build/models/template/.libs
LD_LIBRARY_PATH=$build/core/.libs:$build/models/cartpole/.libs
# Model plugins are looked at in this process rather than in a forked
# child (core/plugin/isolate.c): the fuzzers then try about 2.5 times as many
# inputs, and the suite checks the isolation itself.
WEFT_PROBE_TIMEOUT=0
export WEFT_MODEL_PATH LD_LIBRARY_PATH WEFT_PROBE_TIMEOUT
. "$src/tests/tap.sh"

# fuzz NAME [MORE SEED DIRECTORIES]
fuzz() {
	name=$1
	shift
	mkdir -p "$build/fuzz/$name"
	"$build/tests/fuzz/fuzz-$name" -max_total_time="$secs" -timeout=10 \
		-rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
		-artifact_prefix="$build/fuzz/$name-" \
		"$build/fuzz/$name" "$src/tests/fuzz/$name" "$@" \
		> "$build/fuzz/$name.log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/fuzz/$name.log")
	if [ "$rc" -eq 0 ]; then
		ok 0 "fuzz-$name ran $secs s clean (${runs:-?} inputs)"
	else
		ok 1 "fuzz-$name failed (exit $rc; $build/fuzz/$name.log)"
		grep -m 5 -E 'ERROR|SUMMARY|runtime error|Test unit written' \
			"$build/fuzz/$name.log" | sed 's/^/# /'
	fi
}

fuzz config-load "$src/examples"
fuzz config-set
fuzz population "$src/examples/population"
tap_done
