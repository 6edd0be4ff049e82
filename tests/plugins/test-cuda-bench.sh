#!/bin/sh
# tests/plugins/test-cuda-bench.sh - bench/cuda-bench, which
# .ci/gpu-check.sh runs on a GPU machine, runs to its end here on the CUDA
# plugin built against the stand-in runtime (tests/plugins/cuda-mock.c):
# step() overhead with and without graphs (the kernel ran as often as
# asked), copy bandwidth (the bytes came back), and SEIR's transmission
# kernel alone, whose exposures must be those of the same launches on the
# OpenMP backend. The transmission run lays out the model's whole tally
# (the infector of each agent it exposes is written there): a tally of
# the counters alone was overrun, which only a GPU reported.
set -u
. "${WEFT_SRCDIR:-$(dirname "$0")/../..}/tests/tap.sh"
build=${WEFT_BUILDDIR:-.}
bench="$build/bench/cuda-bench"
mock="$build/tests/plugins/cuda-mock/.libs/weft-backend-cuda.so"
openmp="$build/plugins/openmp/.libs/weft-backend-openmp.so"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-cuda-bench-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

[ -x "$bench" ] || skip_all "$bench is not built (make check builds it)"
[ -f "$mock" ] || skip_all "$mock is not built (make check builds it)"

# bench NAME PLUGIN ARGS...: run it, output in $tmp/NAME; its exit status.
bench() {
	name=$1 plugin=$2
	shift 2
	"$bench" "$plugin" "$@" > "$tmp/$name" 2>&1
}

bench overhead "$mock" overhead 300
rc=$?
runs=$(grep -c '^overhead graphs=[01] .*launches=601 count_ok=yes' "$tmp/overhead")
[ "$runs" -eq 2 ] || rc=${rc#0}1
ok "$rc" "overhead: 300 steps with graphs and without, each kernel run counted"
[ "$rc" -eq 0 ] || diag "$tmp/overhead"

bench bandwidth "$mock" bandwidth 2
rc=$?
grep -q '^bandwidth bytes=2097152 .*check=ok' "$tmp/bandwidth" || rc=${rc#0}1
ok "$rc" "bandwidth: 2 MiB copied and read back"
[ "$rc" -eq 0 ] || diag "$tmp/bandwidth"

for p in mock openmp; do
	eval "plugin=\$$p"
	bench "transmit-$p" "$plugin" transmit 20000 10 3
	rc=$?
	grep -q '^transmit agents=20000 contacts=10 steps=3 .*exposed=[1-9]' \
		"$tmp/transmit-$p" || rc=${rc#0}1
	ok "$rc" "transmit on $p: 20000 agents, 3 launches, some exposed"
	[ "$rc" -eq 0 ] || diag "$tmp/transmit-$p"
done
a=$(sed -n 's/.*exposed=\([0-9]*\).*/\1/p' "$tmp/transmit-mock")
b=$(sed -n 's/.*exposed=\([0-9]*\).*/\1/p' "$tmp/transmit-openmp")
ok "$([ -n "$a" ] && [ "$a" = "$b" ] && echo 0 || echo 1)" \
	"transmit: the stand-in exposes the agents OpenMP exposes ($a, $b)"
tap_done
