#!/bin/sh
# tests/plugins/test-conform-async.sh - the conformance suite against a backend
# whose queue really is asynchronous: tests/plugins/async.c (the template
# on a worker thread that runs every command later) passes every group,
# models included, with its queue's usual delay and run lazily. The CUDA
# backend's logic, on the stand-in CUDA runtime, passes the same groups.
# Its broken variants are in test-conform-async-mem.sh, -life.sh and
# -order.sh.
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
# kernels the stand-in does not have, on four of its orders.
mock="$WEFT_BUILDDIR/tests/plugins/cuda-mock/.libs/weft-backend-cuda.so"
groups=entry,probe,open,alloc,align,transfer,async-order,invalid-args,oversize
groups=$groups,guard,step,device-extent,counters,fence,native,lifetime,ordering
groups=$groups,replicas
for seed in 1 2 4 10; do
	if [ -f "$mock" ]; then
		WEFT_MOCK_SEED=$seed passes "$mock" \
			"the CUDA backend on the stand-in runtime (seed $seed)" --only=$groups
	else
		skip "the CUDA backend on the stand-in runtime" "not built (no CUDA toolkit)"
	fi
done

tap_done
