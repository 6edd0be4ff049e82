#!/bin/sh
# tests/plugins/test-conform-async-order.sh - variants of the asynchronous
# test backend (tests/plugins/async.c, built with no queue delay) that each
# break one promise about order: blocking transfers, fences and the host
# memory of asynchronous transfers, and replica bounds; each is caught by
# the test point that states it. WEFT_CONFORM_RUNS and WEFT_CONFORM_LOAD
# (conform-lib.sh) repeat each check under load.
set -u
dir="$WEFT_BUILDDIR/tests/plugins/async/.libs"
. "$WEFT_SRCDIR/tests/plugins/conform-lib.sh"
needs "$dir/weft-backend-async.so" "the asynchronous test backend"

# Rule 4: blocking transfers wait for the work issued before them.
caught async-readnowait  'not ok .* - ordering: a blocking read right after step()' \
	"a blocking read that does not wait for queued work" --only=ordering
caught async-writenowait 'not ok .* - ordering: a blocking write after queued launches' \
	"a blocking write that lands before queued launches" --only=ordering
caught async-copynowait  'not ok .* - ordering: a blocking copy after queued launches' \
	"a blocking copy that runs before queued launches" --only=ordering
# Rule 5: the host memory of an async write.
caught async-writelate   'not ok .* - ordering: the host memory of an async write may be reused once wait()' \
	"a fence that does not cover async writes" --only=ordering
# Rule 6: the host memory of an async read, filled by wait() and sync()
# and not written afterwards.
caught async-readlate    'not ok .* - fence: wait(token) makes the async reads issued before the fence visible' \
	"async reads delivered at sync() only, not by wait()" --only=fence
caught async-readlate    'not ok .* - ordering: the host memory of an async read is filled when wait()' \
	"async reads delivered at sync() only, not by wait()" --only=ordering
# Fences: never waiting, nor waiting for later work; old tokens.
caught async-fencewaits  'not ok .* - fence: fence() never waits' \
	"a fence() that waits for the queue" --only=fence
says async-fencewaits "fence() right after busy work and a step took .* ms (.* ms of it on its thread's CPU), right after busy work of .* ms was queued, on the last of 4 tries with the busy work doubled: it waited for the queue (fence() never waits)" \
	"the message names the call, how long it took and the rule"
caught async-waitall     'not ok .* - fence: wait() on a fence returns without waiting for busy work issued after' \
	"a wait() that waits for later work" --only=fence
says async-waitall "wait() on a fence issued before the busy work took .* ms (.* ms of it on its thread's CPU), right after busy work of .* ms was queued, .*: it waited for the queue (wait() does not wait for work issued after its fence)" \
	"the message names the call, how long it took and the rule"
caught async-fencehistory 'not ok .* - fence: wait() on a fence 10000 fences old' \
	"fences older than the last 64 taken as done" --only=fence
# Replica bounds that wrap in 64-bit arithmetic.
caught async-replicaoverflow 'not ok .* - replicas: w.s stride 2^62 with 5 replicas' \
	"a replica stride whose bound wraps, accepted" --only=replicas
caught async-replicaoverflow 'not ok .* - replicas: a count.s stride 2^62 with 5 replicas' \
	"a count's stride whose bound wraps, accepted" --only=replicas
# Calls that must never wait.
caught async-stepwaits 'not ok .* - step: step() never waits' \
	"a step() that waits for the queue" --only=step
caught async-nativewaits 'not ok .* - native: native() never waits' \
	"a native() that waits for the queue" --only=native
# The same waits, spinning on the CPU as GPU drivers' waits do by default.
caught async-fencespin 'not ok .* - fence: fence() never waits' \
	"a fence() that waits for the queue by spinning" --only=fence
caught async-meminfospin 'not ok .* - open: mem_info() never waits' \
	"a mem_info() that waits for the queue by spinning" --only=open

tap_done
