#!/bin/sh
# tests/plugins/test-conform-async.sh - the conformance suite against a backend
# whose queue really is asynchronous: tests/plugins/async.c (the template
# on a worker thread that runs every command later) passes every group,
# models included, and each variant of it that breaks one rule of
# backend.h's "Lifetime and ordering" fails (status 1) with a `not ok`
# line in the group that states the rule. The CUDA backend's logic, on
# the stand-in CUDA runtime, passes the same groups.
set -u
dir="$WEFT_BUILDDIR/tests/plugins/async/.libs"
. "$WEFT_SRCDIR/tests/plugins/conform-lib.sh"
needs "$dir/weft-backend-async.so" "the asynchronous test backend"

passes "$dir/weft-backend-async.so" "the asynchronous backend (every group)"
# No group may depend on the test backend's delay: the lazy build of the
# same source (nothing runs until the host waits) passes too.
passes "$dir/weft-backend-async-lazy.so" "the asynchronous backend, run lazily"

# The CUDA backend's own queue (two streams, staging, graphs) against the
# stand-in runtime of tests/plugins/cuda-mock.c, which runs work late and in a
# random order across streams: every group but models, whose other models'
# kernels the stand-in does not have, on two of its orders.
mock="$WEFT_BUILDDIR/tests/plugins/cuda-mock/.libs/weft-backend-cuda.so"
groups=entry,probe,open,alloc,align,transfer,async-order,invalid-args,oversize
groups=$groups,guard,step,device-extent,counters,fence,native,lifetime,ordering
groups=$groups,replicas
for seed in 1 2; do
	if [ -f "$mock" ]; then
		WEFT_MOCK_SEED=$seed passes "$mock" \
			"the CUDA backend on the stand-in runtime (seed $seed)" --only=$groups
	else
		skip "the CUDA backend on the stand-in runtime" "not built (no CUDA toolkit)"
	fi
done

caught async-freeearly   'not ok .* - lifetime: free() while queued launches' \
	"memory released under queued work"
caught async-unloadearly 'not ok .* - lifetime: unload_program() while launches' \
	"queued launches dropped by unload_program()"
caught async-launchbyref 'not ok .* - lifetime: the launch list may be changed' \
	"a launch array read after step() returned"
caught async-readnowait  'not ok .* - ordering: a blocking read right after step()' \
	"a blocking read that does not wait for queued work"
caught async-writenowait 'not ok .* - ordering: a blocking write after queued launches' \
	"a blocking write that lands before queued launches"
caught async-writelate   'not ok .* - ordering: the host memory of an async write may be reused once wait()' \
	"a fence that does not cover async writes"

tap_done
