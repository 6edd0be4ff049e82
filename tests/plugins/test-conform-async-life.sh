#!/bin/sh
# tests/plugins/test-conform-async-life.sh - variants of the asynchronous
# test backend (tests/plugins/async.c, built with no queue delay) that each
# break one rule of backend.h's "Lifetime and ordering" about what may be
# released under queued work (rules 1 to 3): each is caught by the test
# point of the group lifetime that states the rule, by its message, not
# by a crash. WEFT_CONFORM_RUNS and WEFT_CONFORM_LOAD (conform-lib.sh)
# repeat each check under load.
set -u
dir="$WEFT_BUILDDIR/tests/plugins/async/.libs"
. "$WEFT_SRCDIR/tests/plugins/conform-lib.sh"
needs "$dir/weft-backend-async.so" "the asynchronous test backend"

point='not ok .* - lifetime:'
caught async-freeearly   "$point free() while queued launches use the buffer" \
	"memory released under queued launches" --only=lifetime
caught async-freexfer    "$point free() while only queued transfers use" \
	"memory released under queued transfers" --only=lifetime
caught async-freetwice   "$point free() with queued work counts one free" \
	"a second free() counted" --only=lifetime
caught async-unloadearly "$point unload_program() while launches" \
	"queued launches dropped by unload_program()" --only=lifetime
caught async-unloadfree  "$point unload_program() releases the program's kernels only after" \
	"a kernel table handed on under queued launches" --only=lifetime
caught async-launchbyref "$point the launch list may be changed .*: the launches bind" \
	"a launch array read after step() returned" --only=lifetime
caught async-extentbyref "$point the launch list may be changed .*: device-extent launches" \
	"extents read through the launch array after step() returned" --only=lifetime
caught async-closeearly  "$point close() with work queued" \
	"buffers released by close() before the queue drained" --only=lifetime
caught async-closelate   "$point close() with work queued" \
	"an async read landing after close() returned" --only=lifetime

tap_done
