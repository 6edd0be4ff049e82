#!/bin/sh
# bench/blocks.sh - weft's building blocks (weft/blocks.h) on the OpenMP
# backend at one thread, beside numpy on one thread and the machine's copy
# bandwidth, all in one run; for docs/benchmarks.md.
#
#   bench/blocks.sh [BUILDDIR] [N] [ROUNDS]
#
# BUILDDIR (_build) is a configured build tree: bench/blocks-bench is made
# there when missing, with the OpenMP plugin. N (10000000) elements;
# ROUNDS (5) rounds, each running bench/blocks-bench (weft, and a memcpy of
# 4 N bytes in C) and bench/blocks_numpy.py (numpy) once, one after the
# other, so that the machine's load moves both alike; every time is the
# median of the rounds. Workloads, on random u32 elements:
#   scan      weft scan_u32 (exclusive)     numpy cumsum(dtype=uint32)
#   sort      weft sort_u32, values 0..N-1  numpy argsort(kind="stable")
#             (permutation + sorted keys)    + gather x[order]
#   compact   weft compact_u32, u8 flags    numpy x[flags] (bool mask)
#             set with probability 1/2
# Bytes each must minimally move: scan 8 N (read and write once); sort
# 16 N (read and write keys and values once; an LSD radix sort of 8-bit
# digits moves them 4 times: 64 N); compact 5 N + 4 K (flags and values
# read, K kept written). Their rate is compared with the copy bandwidth
# (8 N bytes / memcpy's time: read + write). numpy comes from PyPI, in a
# virtual environment (BLOCKS_VENV, default _bench/blocks-venv). Prints
# the machine, date and load, then a Markdown table.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/_build}
n=${2:-10000000}
rounds=${3:-5}
venv=${BLOCKS_VENV:-$top/_bench/blocks-venv}

die() {
	echo "blocks.sh: $*" >&2
	exit 1
}

if ! [ -x "$venv/bin/python" ] ||
	! "$venv/bin/python" -c 'import numpy' 2> /dev/null; then
	python3 -m venv "$venv" ||
		die "cannot make a virtual environment in $venv: install Debian's python3-venv"
	"$venv/bin/pip" install -q --disable-pip-version-check numpy ||
		die "cannot install numpy from PyPI into $venv"
fi
[ -f "$build/Makefile" ] ||
	die "$build: not a configured build tree (run ../configure there)"
make -C "$build" -s bench/blocks-bench plugins/openmp/weft-backend-openmp.la > /dev/null ||
	die "$build: cannot make bench/blocks-bench and the OpenMP backend"
plugin="$build/plugins/openmp/.libs/weft-backend-openmp.so"

cores=$(nproc)
# One thread everywhere: weft's team, numpy and any BLAS under it.
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
export OMP_NUM_THREADS OPENBLAS_NUM_THREADS MKL_NUM_THREADS
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-blocks-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

load0=$(uptime | sed 's/.*load average: //')
r=1
while [ "$r" -le "$rounds" ]; do
	"$build/bench/blocks-bench" "$plugin" 1 "$n" 1 >> "$tmp/weft" ||
		die "blocks-bench failed (round $r)"
	"$venv/bin/python" "$top/bench/blocks_numpy.py" "$n" 1 >> "$tmp/numpy" ||
		die "blocks_numpy.py failed (round $r)"
	r=$((r + 1))
done
load1=$(uptime | sed 's/.*load average: //')

# The median of the values of key in file.
med() {
	sed -n "s/^$2=//p" "$1" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
			else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

kept=$(med "$tmp/weft" kept)
copy=$(med "$tmp/weft" copy_gbs)
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); $(lscpu | sed -n 's/^Model name: *//p'), $cores cores; numpy $(sed -n 's/^numpy=//p' "$tmp/numpy" | head -1)"
echo "# load average before: $load0; after: $load1"
echo "# bench/blocks.sh $*: N = $n, medians of $rounds rounds, one thread each"
echo "# copy bandwidth (memcpy of $((4 * n)) bytes, read + write): $copy GB/s; numpy's copyto: $(med "$tmp/numpy" copy_gbs) GB/s"
echo
echo "| block | weft ms | numpy ms | numpy / weft | bytes (minimum) | weft GB/s | of copy bandwidth |"
echo "|---|---:|---:|---:|---:|---:|---:|"
row() { # name weft_key numpy_key bytes
	w=$(med "$tmp/weft" "$2")
	p=$(med "$tmp/numpy" "$3")
	awk -v name="$1" -v w="$w" -v p="$p" -v b="$4" -v c="$copy" 'BEGIN {
		gbs = b / w / 1e6
		printf "| %s | %.1f | %.1f | %.2fx | %.0f MB | %.2f | 1/%.1f |\n",
			name, w, p, p / w, b / 1e6, gbs, c / gbs }'
}
row "scan_u32 (exclusive)" ms_scan_u32 ms_cumsum "$((8 * n))"
row "sort_u32 (keys + values)" ms_sort_u32 ms_argsort "$((16 * n))"
row "sort_u32, 4 passes' bytes" ms_sort_u32 ms_argsort "$((64 * n))"
row "compact_u32 ($kept kept)" ms_compact_u32 ms_mask "$((5 * n + 4 * kept))"
