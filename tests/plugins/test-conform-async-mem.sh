#!/bin/sh
# tests/plugins/test-conform-async-mem.sh - variants of the asynchronous
# test backend (tests/plugins/async.c, built with no queue delay) that each
# break one promise about memory: allocations of the size asked, launches
# within their extent, one device's buffers kept apart from another's,
# mem_info(); each is caught by the test point that states it, before
# glibc or a signal notices. WEFT_CONFORM_RUNS and WEFT_CONFORM_LOAD
# (conform-lib.sh) repeat each check under load.
set -u
dir="$WEFT_BUILDDIR/tests/plugins/async/.libs"
. "$WEFT_SRCDIR/tests/plugins/conform-lib.sh"
needs "$dir/weft-backend-async.so" "the asynchronous test backend"

caught async-shortalloc 'not ok .* - alloc: buffers of 1000, 12345 and 4100 bytes' \
	"an allocation shorter than asked (buffers side by side)" --only=alloc
says async-shortalloc "alloc(.*) gave memory at 0x.* that overlaps buffer #.*: bytes .* of #.* - an allocation shorter than asked" \
	"the harness names the overlap, the buffer and its bytes"
caught async-chunkoverrun 'not ok .* - guard: launches of extent 1, 63, 1000 and 4097 run exactly' \
	"a launch's last chunk running past its extent" --only=guard
says async-chunkoverrun "a launch of extent 1 ran 64 items" \
	"the message says how many items ran"
# The harness's guard check: in group open, the busy work's launch of one
# item overruns its guarded buffer; the test that ran it fails, naming the
# buffer and the guard bytes (before the child's heap gives way).
caught async-chunkoverrun 'not ok .* - open: mem_info() never waits' \
	"a guard overwritten under a test that checks no guard" --only=open
says async-chunkoverrun "buffer #.* lost its guard after its data: bytes .* now hold 0x" \
	"the harness names the buffer whose guard was overwritten"
caught async-onelist 'not ok .* - open: two devices open at once keep their buffers apart' \
	"buffers of two devices kept in one list" --only=open
caught async-meminfosync 'not ok .* - open: mem_info() never waits' \
	"a mem_info() that waits for the queue" --only=open
says async-meminfosync "mem_info() took .* ms (.* ms of it on its thread's CPU), right after busy work of .* ms was queued, on the last of 4 tries with the busy work doubled: it waited for the queue (mem_info() never waits)" \
	"the message says it waited for the queue"
caught async-meminfoshort 'not ok .* - open: mem_info() refuses a struct_size below' \
	"a mem_info() that accepts a too-short struct" --only=open
caught async-meminfokib 'not ok .* - open: mem_info() gives plausible sizes' \
	"a mem_info() reporting sizes 1024 times too small" --only=open
says async-meminfokib "1024 times too little: sizes in KiB" "the message names the KiB"

tap_done
