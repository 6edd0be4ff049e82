#!/bin/sh
# bench/partition-cut.sh - how SEIR's contact graph splits into K parts
# (docs/scaling.md): builds NYC's population (examples/nyc.ini) at each
# size, reads the graph back from the device (bench/partition-graph,
# libweft's public API), partitions it and counts the cut
# (bench/partition_cut.py). Prints Markdown rows; writes one TSV per size.
#
#   bench/partition-cut.sh [BUILD] [OUTDIR]
#
# BUILD is a configured build tree (default _build at the top of the
# tree; bench/partition-graph is made there when missing), OUTDIR where
# the TSVs and the log go (default _bench/partition). The environment
# chooses the work:
#
#   SIZES         agents of the graphs partitioned with METIS
#                 (default 1000000 2000000 4000000)
#   CHEAP_SIZES   agents of the graphs split by index and at random only
#                 (default 8400000: METIS would need about 14 GB there)
#   KAHIP_SIZES   agents of the graphs also partitioned with KaHIP
#                 (default none: KaHIP took 290 s at 1,000,000 agents)
#   PARTS         numbers of parts (default 2,4,16,64)
#   PARTITION_VENV  the virtual environment (default _bench/partition-venv),
#                 made here with numpy, pymetis and kahip from PyPI
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/_build}
outdir=${2:-$top/_bench/partition}
venv=${PARTITION_VENV:-$top/_bench/partition-venv}
sizes=${SIZES-1000000 2000000 4000000}
cheap=${CHEAP_SIZES-8400000}
kahip_sizes=${KAHIP_SIZES-}
parts=${PARTS:-2,4,16,64}

die() {
	echo "partition-cut.sh: $*" >&2
	exit 1
}

# The Python side: numpy, pymetis (METIS 5) and kahip, from PyPI.
if ! [ -x "$venv/bin/python" ] ||
	! "$venv/bin/python" -c 'import numpy, pymetis, kahip' 2> /dev/null; then
	python3 -m venv "$venv" ||
		die "cannot make a virtual environment in $venv: install Debian's python3-venv"
	"$venv/bin/pip" install -q --disable-pip-version-check numpy pymetis kahip ||
		die "cannot install numpy, pymetis and kahip from PyPI into $venv"
fi

[ -f "$build/Makefile" ] ||
	die "$build: not a configured build tree (run ../configure there)"
[ -x "$build/bench/partition-graph" ] || make -C "$build" bench/partition-graph > /dev/null ||
	die "$build: cannot make bench/partition-graph"
: "${WEFT_PLUGIN_PATH:=$build/plugins/openmp/.libs}"
: "${WEFT_MODEL_PATH:=$build/models/seir/.libs}"
export WEFT_PLUGIN_PATH WEFT_MODEL_PATH

mkdir -p "$outdir"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-partition-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; load: $(uptime | sed 's/.*load average: //')"

# run AGENTS METHODS: the graph of AGENTS agents, partitioned by METHODS.
run() {
	"$build/bench/partition-graph" "$top/examples/nyc.ini" "$tmp/g" \
		"seir.agents=$1" backend.name=openmp backend.threads=1 \
		"output.directory=$tmp/out" output.plot=none output.csv=false \
		simulation.steps=1 ||
		die "bench/partition-graph failed at $1 agents"
	"$venv/bin/python" "$top/bench/partition_cut.py" "$tmp/g" \
		--parts "$parts" --methods "$2" --tsv "$outdir/cut-$1-$(echo "$2" | tr , -).tsv" ||
		die "bench/partition_cut.py failed at $1 agents"
	rm -f "$tmp/g".*
}

for n in $sizes; do
	case " $kahip_sizes " in
	*" $n "*) run "$n" contiguous,random,metis,kahip ;;
	*) run "$n" contiguous,random,metis ;;
	esac
done
for n in $cheap; do
	run "$n" contiguous,random
done
