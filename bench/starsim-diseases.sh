#!/bin/sh
# bench/starsim-diseases.sh - weft's patch model with two diseases, births
# and deaths (examples/patches-two-diseases.ini; models/patches/patches.md,
# "Two diseases") against Starsim 3.7.2 running the same sim
# (bench/starsim_diseases.py: two ss.SEIR in one ss.MixingPool with
# ss.Births and ss.Deaths, dt one day): the agreement check, and with
# --bench the speed of both side by side.
#
#   bench/starsim-diseases.sh [OPTIONS] [BUILD]
#
# BUILD is a configured and built tree (default _build at the top of the
# tree): its cli/weft runs with its openmp plugin and the patch model.
#
# The check: weft runs as many seeds as the band has (an ensemble) with
# the band's weft options (its "# weft:" line); for each disease and each
# of S, E, I and R, the share of the days on which the mean over weft's
# seeds lies inside Starsim's 5-95 % band over its seeds, widened by one
# agent (bench/band-check.awk); PASS when every share is at least
# MIN_INSIDE percent (default 95). The stored band,
# tests/data/patches-diseases-starsim-band.csv, is of the defaults of
# bench/starsim_diseases.py (20 000 agents, 200 days, 20 seeds); `make
# check` runs the check against it (sh and awk, no Python). Exit status
# 0 on PASS, 1 on FAIL, 2 on an error.
#
#   --fresh        Starsim's band first (STARSIM_PYTHON, default
#                  bench/starsim-venv.sh's environment, made when
#                  missing), written to the stored band or --band FILE
#   --band FILE    another band file
#   --agents N, --days N, --seeds N
#                  with --fresh: the size of Starsim's runs (defaults
#                  20000, 200, 20)
#   --set K=V      (repeatable) one more weft key, e.g. --set
#                  patches.beta=0.33 to check that a biased weft fails
#   --bench        the benchmark instead: Starsim and weft one after the
#                  other, each on one core (taskset -c 0,
#                  OMP_NUM_THREADS=1), BENCH_AGENTS agents (default
#                  1000000) for 365 days, 3 runs each; prints wall and
#                  CPU seconds of the whole sim (Starsim's construction,
#                  init and run; weft's whole process), their medians,
#                  person-days per second, the ratios and peak RSS
#                  (Linux: taskset, lscpu and GNU time's /usr/bin/time)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=""
fresh=0
mode=check
agents=20000
days=200
seeds=20
band="$top/tests/data/patches-diseases-starsim-band.csv"
min_inside=${MIN_INSIDE:-95}
sets=""
while [ $# -gt 0 ]; do
	case $1 in
	--fresh) fresh=1 ;;
	--bench) mode=bench ;;
	--band) band=$2; shift ;;
	--agents) agents=$2; shift ;;
	--days) days=$2; shift ;;
	--seeds) seeds=$2; shift ;;
	--set) sets="$sets --set $2"; shift ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "starsim-diseases.sh: unknown option $1" >&2; exit 2 ;;
	*) build=$1 ;;
	esac
	shift
done
build=${build:-$top/_build}
weft="$build/cli/weft"
[ -x "$weft" ] || { echo "starsim-diseases.sh: no $weft (build first)" >&2; exit 2; }
export WEFT_MODEL_PATH="$build/models/patches/.libs"
export WEFT_PLUGIN_PATH="$build/plugins/openmp/.libs"
ini="$top/examples/patches-two-diseases.ini"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/starsim-diseases-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

starsim_python() {
	if [ -n "${STARSIM_PYTHON:-}" ]; then
		echo "$STARSIM_PYTHON"
	else
		sh "$top/bench/starsim-venv.sh"
	fi
}

# ---- the benchmark ---------------------------------------------------------
median3() { sort -n | sed -n 2p; }
if [ "$mode" = bench ]; then
	spy=$(starsim_python) || exit 2
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "load before: $(uptime)"
	echo "cpu: $(lscpu | sed -n 's/^Model name: *//p')"
	echo "set-up: examples/patches-two-diseases.ini's two diseases, cbr 30, cdr 10, 365 days"
	for n in ${BENCH_AGENTS:-1000000}; do
		: > "$tmp/ss.out"
		for r in 1 2 3; do
			OMP_NUM_THREADS=1 taskset -c 0 "$spy" \
				"$top/bench/starsim_diseases.py" time \
				--agents "$n" --days 365 >> "$tmp/ss.out" 2>&1 ||
				{ cat "$tmp/ss.out"; exit 2; }
		done
		sw=$(awk '/^starsim/ { print $2 }' "$tmp/ss.out" | median3)
		sc=$(awk '/^starsim/ { print $3 }' "$tmp/ss.out" | median3)
		sm=$(awk '/^starsim/ { print $4 }' "$tmp/ss.out" | median3)
		: > "$tmp/weft.t"
		for r in 1 2 3; do
			# shellcheck disable=SC2086
			OMP_NUM_THREADS=1 /usr/bin/time -f '%e %U %S %M' \
				-o "$tmp/time" taskset -c 0 "$weft" run "$ini" \
				--set backend.name=openmp --set backend.threads=1 \
				--set patches.populations="$n" \
				--set simulation.steps=365 \
				--set simulation.seed=$((1000 + r)) \
				--set output.every=365 --set output.csv=false \
				--set output.directory="$tmp/bench" $sets \
				> "$tmp/w.out" 2>&1 || { cat "$tmp/w.out"; exit 2; }
			awk '{ print $1, $2 + $3, $4 / 1024 }' "$tmp/time" >> "$tmp/weft.t"
		done
		ww=$(awk '{ print $1 }' "$tmp/weft.t" | median3)
		wc=$(awk '{ print $2 }' "$tmp/weft.t" | median3)
		wm=$(awk '{ print $3 }' "$tmp/weft.t" | median3)
		echo "Starsim $n agents, wall/cpu s: $(awk '/^starsim/ { printf "%s/%s ", $2, $3 }' "$tmp/ss.out")"
		echo "weft    $n agents, wall/cpu s: $(awk '{ printf "%s/%s ", $1, $2 }' "$tmp/weft.t")"
		awk -v n="$n" -v sw="$sw" -v sc="$sc" -v sm="$sm" -v ww="$ww" \
			-v wc="$wc" -v wm="$wm" 'BEGIN {
			pd = n * 365
			printf "%d agents x 365 days, two diseases, medians of 3:\n", n
			printf "  wall: Starsim %.3f s (%.3g person-days/s), weft %.3f s (%.3g person-days/s), weft/Starsim %.1fx\n",
				sw, pd / sw, ww, pd / ww, sw / ww
			printf "  cpu:  Starsim %.3f s (%.3g person-days/s), weft %.3f s (%.3g person-days/s), weft/Starsim %.1fx\n",
				sc, pd / sc, wc, pd / wc, sc / wc
			printf "  peak RSS: Starsim %.0f MiB (%.0f bytes/agent), weft %.0f MiB (%.0f bytes/agent)\n",
				sm, sm * 1048576 / n, wm, wm * 1048576 / n }'
	done
	echo "load after: $(uptime)"
	exit 0
fi

# ---- the check -------------------------------------------------------------
if [ "$fresh" -eq 1 ]; then
	spy=$(starsim_python) || exit 2
	"$spy" "$top/bench/starsim_diseases.py" band "$band" \
		--agents "$agents" --days "$days" --seeds "$seeds" || exit 2
fi
[ -f "$band" ] || { echo "starsim-diseases.sh: no band $band" >&2; exit 2; }
wsets=$(sed -n 's/^# weft: //p' "$band")
bseeds=$(sed -n '1s/.*, \([0-9][0-9]*\) seeds:.*/\1/p' "$band")
[ -n "$wsets" ] && [ -n "$bseeds" ] ||
	{ echo "starsim-diseases.sh: $band has no '# weft:' line or seed count" >&2; exit 2; }
# shellcheck disable=SC2086
"$weft" run --quiet "$ini" --set backend.name=openmp \
	--set output.plot=none --set output.summary=false \
	--set ensemble.runs="$bseeds" --set output.directory="$tmp/weft" \
	$wsets $sets > "$tmp/weft.out" 2>&1 || { cat "$tmp/weft.out"; exit 2; }
# Each run's two diseases as rows day,disease,S,E,I,R.
n=0
for f in $(find "$tmp/weft" -name counts.csv -path '*/runs/*' | sort); do
	d=$(dirname "$f")
	[ -f "$d/counts_2.csv" ] || { echo "starsim-diseases.sh: no $d/counts_2.csv" >&2; exit 2; }
	awk -F, 'FNR == 1 { k++; next } { print $1 "," k "," $2 "," $3 "," $4 "," $5 }' \
		"$d/counts.csv" "$d/counts_2.csv" |
		(echo day,disease,S,E,I,R; cat) > "$tmp/both-$n.csv"
	n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "starsim-diseases.sh: weft wrote no runs" >&2; exit 2; }
echo "weft: $n seeds, $(sed -n 1p "$band" | sed 's/^# //')"
awk -F, -v min="$min_inside" -v keys=2 -v who=Starsim -v group=disease \
	-f "$top/bench/band-check.awk" "$band" "$tmp"/both-*.csv
