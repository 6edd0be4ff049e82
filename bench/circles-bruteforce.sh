#!/bin/sh
# bench/circles-bruteforce.sh - the circles model against an O(N^2)
# reference (bench/circles-bruteforce.c): for each agent count and for 2-D
# and 3-D, two runs of K - 1 and K steps write circles-agents.csv, and the
# reference checks step K's neighbour counts exactly and its positions
# within 1e-5.
#
#   bench/circles-bruteforce.sh [-k K] [-b BACKEND] N...   (default: 2000 5000)
#
# Environment: WEFT (the weft command; default weft), BRUTE (the checker;
# default circles-bruteforce beside this script, then on PATH); the model
# is found through WEFT_MODEL_PATH as for any run. Exit 0 when every case
# agrees.
set -u
k=3
backend=openmp
while [ $# -gt 0 ]; do
	case $1 in
	-k) k=$2; shift 2 ;;
	-b) backend=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || set -- 2000 5000
weft=${WEFT:-weft}
here=$(cd "$(dirname "$0")" && pwd)
brute=${BRUTE:-$here/circles-bruteforce}
[ -x "$brute" ] || brute=circles-bruteforce
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-circles-bf-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
status=0

run() { # run N DIMS STEPS DIR
	printf '[simulation]\nmodel = circles\nsteps = %s\nseed = 7\n[circles]\nagents = %s\ndims = %s\nagents_csv = true\n[backend]\nname = %s\n[output]\ndirectory = %s\nplot = none\n' \
		"$3" "$1" "$2" "$backend" "$4" > "$tmp/run.ini"
	"$weft" run "$tmp/run.ini" --quiet > "$tmp/run.log" 2>&1 ||
		{ cat "$tmp/run.log" >&2; return 1; }
}

for n in "$@"; do
	for d in 2 3; do
		run "$n" "$d" $((k - 1)) "$tmp/before" &&
			run "$n" "$d" "$k" "$tmp/after" &&
			"$brute" "$d" 2 0.05 "$tmp/before/circles-agents.csv" \
				"$tmp/after/circles-agents.csv" > "$tmp/bf.out" 2>&1
		rc=$?
		if [ $rc -eq 0 ]; then
			echo "ok: $n agents, $d-D, step $k: neighbours equal the O(N^2) reference; $(head -n 1 "$tmp/bf.out")"
		else
			echo "FAIL: $n agents, $d-D, step $k:"
			cat "$tmp/bf.out" "$tmp/run.log" 2>/dev/null
			status=1
		fi
		rm -rf "$tmp/before" "$tmp/after"
	done
done
exit $status
