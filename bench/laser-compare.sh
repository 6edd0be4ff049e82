#!/bin/sh
# bench/laser-compare.sh - weft's patch model (models/patches) against IDM's
# LASER (laser-generic 1.1) on LASER's own one-patch SEIR example
# (tests/test_seir.py's test_single, bench/laser-run.py): the agreement
# check, and with --bench the speed of both side by side.
#
#   bench/laser-compare.sh [OPTIONS] [BUILD]
#
# BUILD is a configured and built tree (default _build at the top of the
# tree): its cli/weft runs with its openmp plugin and the patch model.
#
# The check (the default). weft runs examples/patches.ini (LASER's example:
# 100 000 agents, 10 infectious, beta = 1.386 / 7, gamma(4.5, 1) exposed,
# normal(7, 2) infectious, 365 days) for 20 seeds (--seeds N) on openmp;
# the mean over its seeds of S, E, I and R on each day must lie inside
# LASER's seed-to-seed band, the 5 % to 95 % percentiles over LASER's 20
# seeds, widened by one agent (the counts are whole numbers), on at least
# 95 % of the days (MIN_INSIDE, percent) for each of S, E, I, R. The
# band is tests/data/patches-laser-band.csv; --fresh runs LASER now
# (LASER_PYTHON, default /tmp/venv-f/bin/python: a Python with
# laser-generic==1.1.0) for seeds 1..20 and writes the band there first.
# Prints each state's share of days inside and the verdict; exit status 0
# when every state passes, 1 when one fails, 2 on an error.
#
#   --band-only    the check with the stored band: no LASER, no Python
#                  (sh and awk); `make check` runs it (tests/models/test-patches.sh)
#   --fresh        a fresh LASER band (and the stored one rewritten)
#   --counts FILE  (repeatable) check these counts.csv files instead of
#                  running weft
#   --band FILE    another band file
#   --cbr X, --cdr Y, --days N
#                  births and deaths per 1000 per year (LASER's BirthsByCBR
#                  and MortalityByCDR, weft's [patches] cbr and cdr) and the
#                  days, for LASER's runs (--fresh) and weft's; the stored
#                  tests/data/patches-laser-band-vitals.csv is --cbr 100
#                  --cdr 50 --days 730
#   --figure PNG   also draw the check's figure: LASER's band and mean and
#                  weft's mean, S, E, I and R by day (bench/band-figure.py;
#                  PYTHON, default python3, with numpy and matplotlib)
#   --season A,P   seasonality 1 + A cos(2 pi (t - P) / 365): LASER's
#                  Transmission seasonality, weft's seasonality_factor and
#                  seasonality_phase; the stored
#                  tests/data/patches-laser-band-season.csv is --season 0.3,60
#
# A grid of patches (--grid MxN, e.g. 3x3): LASER and weft on the same
# grid (bench/laser-run.py's grid(): populations 20 000 to 60 000, 10
# infectious in patch 0 only) mixed through LASER's gravity network, 20
# seeds each (--seeds N), --days days, with births and deaths at --cbr and
# --cdr when given; per patch and state the share of days on which weft's
# mean lies inside LASER's band (needs LASER).
#
#   bench/laser-compare.sh --grid 3x3 [--cbr 30 --cdr 10] [BUILD]
#
# The benchmark (--bench): LASER and weft one after the other, each on one
# core (taskset -c 0, OMP_NUM_THREADS=1, NUMBA_NUM_THREADS=1) at
# BENCH_AGENTS agents (default 1000000; a list: "1000000 10000000") in one
# patch, 365 days, 3 runs each (after a warm-up run of LASER, the same
# set-up at 10 000 agents, that compiles its numba kernels); the medians
# of the wall time of the 365 days (LASER's model.run(), weft's "steps"
# time) and of the CPU time (LASER's process time of model.run(), weft's
# whole process), as person-days per second (agents x days / seconds;
# the agents at day 0). Prints the machine's load (uptime) before and
# after, and the CPU. On a loaded machine the CPU times are the fairer
# comparison: a process pinned to a shared core waits for it.
#
#   BENCH_AGENTS="1000000 10000000" bench/laser-compare.sh --bench \
#       [--grid MxN] [--cbr X --cdr Y] [BUILD]
#
# With --grid MxN the same on that grid of patches, its populations
# scaled so that they total each of BENCH_AGENTS (laser-run.py --grid MxN
# --agents N --print-weft gives weft's keys), mixed through LASER's
# gravity network; with --cbr and --cdr (one patch or a grid) births and
# deaths on both sides (weft's capacity its default, enough for cbr).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=""
mode=check
fresh=0
seeds=20
counts=""
band="$top/tests/data/patches-laser-band.csv"
lpy=${LASER_PYTHON:-/tmp/venv-f/bin/python}
min_inside=${MIN_INSIDE:-95}
cbr=0
cdr=0
days=365
season=""
bench=0
grid=""
figure=""
while [ $# -gt 0 ]; do
	case $1 in
	--band-only) mode=band ;;
	--fresh) fresh=1 ;;
	--bench) bench=1 ;;
	--grid) grid=$2; shift ;;
	--seeds) seeds=$2; shift ;;
	--counts) counts="$counts $2"; shift ;;
	--band) band=$2; shift ;;
	--cbr) cbr=$2; shift ;;
	--cdr) cdr=$2; shift ;;
	--days) days=$2; shift ;;
	--season) season=$2; shift ;;
	--figure) figure=$2; shift ;;
	-*) echo "laser-compare.sh: unknown option $1" >&2; exit 2 ;;
	*) build=$1 ;;
	esac
	shift
done
if [ -n "$figure" ] && { [ "$bench" = 1 ] || [ -n "$grid" ]; }; then
	echo "laser-compare.sh: --figure draws the check's figure, not with --bench or --grid" >&2
	exit 2
fi
if [ "$bench" = 1 ]; then
	mode=bench
elif [ -n "$grid" ]; then
	mode=grid
fi
case $grid in
"" | [1-9]*x[1-9]*) ;;
*) echo "laser-compare.sh: --grid $grid: not MxN (e.g. 3x3)" >&2; exit 2 ;;
esac
build=${build:-$top/_build}
weft="$build/cli/weft"
WEFT_PLUGIN_PATH="$build/plugins/openmp/.libs"
WEFT_MODEL_PATH="$build/models/patches/.libs"
export WEFT_PLUGIN_PATH WEFT_MODEL_PATH
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-laser-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

# ---- the benchmark ---------------------------------------------------------
# Medians of 3: wall seconds of the 365 days (LASER's model.run(), weft's
# "steps" line) and CPU seconds (LASER's process time of
# model.run(); weft's whole process, user + system, setup included).
# One patch, or with --grid the grid scaled to each total; births and
# deaths at cbr and cdr (0: none) on both sides.
median3() { sort -g | sed -n 2p; }
if [ "$mode" = bench ]; then
	where="in one patch"
	[ -z "$grid" ] || where="in a $grid grid of patches"
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "load before: $(uptime)"
	echo "cpu: $(lscpu | sed -n 's/^Model name: *//p')"
	echo "set-up: $where, cbr $cbr, cdr $cdr per 1000 per year, 365 days"
	for n in ${BENCH_AGENTS:-1000000}; do
		# weft's patches: one of n agents, or the grid scaled to n.
		if [ -n "$grid" ]; then
			wpatches=$("$lpy" "$top/bench/laser-run.py" --grid "$grid" \
				--agents "$n" --print-weft) || exit 2
		else
			wpatches="--set patches.populations=$n"
		fi
		OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 TQDM_DISABLE=1 \
			taskset -c 0 "$lpy" "$top/bench/laser-run.py" --bench \
			--agents "$n" --days 365 ${grid:+--grid "$grid"} \
			--cbr "$cbr" --cdr "$cdr" > "$tmp/laser.out" 2>&1 ||
			{ cat "$tmp/laser.out"; exit 2; }
		lw=$(awk '/^laser/ { print $6 }' "$tmp/laser.out" | median3)
		lc=$(awk '/^laser/ { print $9 }' "$tmp/laser.out" | median3)
		: > "$tmp/weft.wall"
		: > "$tmp/weft.cpu"
		for r in 1 2 3; do
			# shellcheck disable=SC2086
			OMP_NUM_THREADS=1 /usr/bin/time -f '%U %S' \
				-o "$tmp/time" taskset -c 0 "$weft" run \
				"$top/examples/patches.ini" \
				--set backend.name=openmp --set backend.threads=1 \
				$wpatches --set patches.cbr="$cbr" \
				--set patches.cdr="$cdr" \
				--set simulation.seed=$((1000 + r)) \
				--set output.plot=none --set output.csv=false \
				--set output.directory="$tmp/bench" \
				> "$tmp/w.out" 2>&1 || { cat "$tmp/w.out"; exit 2; }
			sed -n 's/.*steps  *365 in \([0-9.]*\) s.*/\1/p' \
				"$tmp/w.out" >> "$tmp/weft.wall"
			awk '{ print $1 + $2 }' "$tmp/time" >> "$tmp/weft.cpu"
		done
		ww=$(median3 < "$tmp/weft.wall")
		wc=$(median3 < "$tmp/weft.cpu")
		echo "LASER $n agents $where, wall/cpu s: $(awk '/^laser/ { printf "%s/%s ", $6, $9 }' "$tmp/laser.out")"
		echo "weft  $n agents $where, wall s: $(tr '\n' ' ' < "$tmp/weft.wall")cpu s: $(tr '\n' ' ' < "$tmp/weft.cpu")"
		awk -v n="$n" -v lw="$lw" -v lc="$lc" -v ww="$ww" -v wc="$wc" 'BEGIN {
			pd = n * 365
			printf "%d agents x 365 days, medians of 3:\n", n
			printf "  wall: LASER %.3f s (%.3g person-days/s), weft %.3f s (%.3g person-days/s), weft/LASER %.2fx\n",
				lw, pd / lw, ww, pd / ww, lw / ww
			printf "  cpu:  LASER %.3f s (%.3g person-days/s), weft %.3f s (%.3g person-days/s), weft/LASER %.2fx\n",
				lc, pd / lc, wc, pd / wc, lc / wc }'
	done
	echo "load after: $(uptime)"
	exit 0
fi

# ---- a grid of patches ---------------------------------------------------------
# LASER and weft on the same grid (bench/laser-run.py's grid(): 10
# infectious in patch 0 only, the other patches reached through the
# gravity network), 20 seeds each, --days days, births and deaths at cbr
# and cdr; per patch and state, the share of days on which weft's mean
# lies inside LASER's 5-95 % band (widened by one agent). Needs LASER
# (LASER_PYTHON).
if [ "$mode" = grid ]; then
	OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 TQDM_DISABLE=1 "$lpy" \
		"$top/bench/laser-run.py" --grid "$grid" --seeds 1-"$seeds" \
		--days "$days" --cbr "$cbr" --cdr "$cdr" --out "$tmp/laser" \
		> "$tmp/laser.out" 2>&1 || { cat "$tmp/laser.out"; exit 2; }
	# shellcheck disable=SC2046
	"$weft" run --quiet "$top/examples/patches.ini" \
		--set backend.name=openmp --set output.plot=none \
		--set ensemble.runs="$seeds" --set output.directory="$tmp/weft" \
		--set patches.cbr="$cbr" --set patches.cdr="$cdr" \
		--set simulation.steps="$days" \
		$("$lpy" "$top/bench/laser-run.py" --grid "$grid" --print-weft) \
		> "$tmp/weft.out" 2>&1 || { cat "$tmp/weft.out"; exit 2; }
	"$lpy" - "$tmp/laser" "$tmp/weft" "$min_inside" <<'EOF'
import glob, sys
import numpy as np
def load(files):
    return np.array([np.loadtxt(f, delimiter=",", skiprows=1) for f in files])
las = load(sorted(glob.glob(sys.argv[1] + "/laser-*.csv")))
wef = load(sorted(glob.glob(sys.argv[2] + "/runs/*/*/patches.csv")))
P = int(las[0, :, 1].max()) + 1
las = las.reshape(las.shape[0], -1, P, 6)
wef = wef.reshape(wef.shape[0], -1, P, 6)
lo = np.percentile(las, 5, axis=0) - 1
hi = np.percentile(las, 95, axis=0) + 1
m = wef.mean(axis=0)
inside = (m >= lo) & (m <= hi)
bad = False
print("%d LASER seeds, %d weft seeds, %d patches" % (las.shape[0], wef.shape[0], P))
for p in range(P):
    share = [100.0 * inside[:, p, 2 + k].mean() for k in range(4)]
    print("patch %d: weft mean inside LASER band on %s %% of the days (S E I R)" %
          (p, " ".join("%.1f" % x for x in share)))
    bad |= min(share) < float(sys.argv[3])
print("all: %.2f %% of patch-state-days inside; %s" %
      (inside[:, :, 2:].mean() * 100, "FAIL" if bad else "PASS"))
sys.exit(1 if bad else 0)
EOF
	exit $?
fi

# ---- a fresh band ------------------------------------------------------------
if [ "$fresh" = 1 ]; then
	OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 TQDM_DISABLE=1 "$lpy" \
		"$top/bench/laser-run.py" --seeds 1-20 --agents 100000 \
		--days "$days" --cbr "$cbr" --cdr "$cdr" --out "$tmp/laser" \
		${season:+--season "$season"} \
		> "$tmp/laser.out" 2>&1 ||
		{ cat "$tmp/laser.out"; exit 2; }
	"$lpy" - "$tmp/laser" "$band" "$cbr" "$cdr" "${season:-none}" <<'EOF' || exit 2
import sys, glob
import numpy as np
runs = [np.loadtxt(f, delimiter=",", skiprows=1)
        for f in sorted(glob.glob(sys.argv[1] + "/laser-*.csv"))]
a = np.array(runs)  # seeds x days x 5
with open(sys.argv[2], "w") as f:
    f.write("# LASER (laser-generic 1.1) one-patch SEIR, tests/test_seir.py's "
            "test_single: 100000 agents, 10 infectious, beta 1.386/7, "
            "gamma(4.5,1) exposed, normal(7,2) infectious; cbr %s, cdr %s "
            "(BirthsByCBR, MortalityByCDR); seasonality A,P %s; %d seeds; "
            "5%%/95%% percentiles and mean per day (bench/laser-compare.sh "
            "--fresh)\n" % (sys.argv[3], sys.argv[4], sys.argv[5], len(runs)))
    f.write("day,S_lo,S_hi,S_mean,E_lo,E_hi,E_mean,I_lo,I_hi,I_mean,"
            "R_lo,R_hi,R_mean\n")
    for t in range(a.shape[1]):
        row = [str(int(a[0, t, 0]))]
        for k in range(1, 5):
            x = a[:, t, k]
            row += ["%.2f" % np.percentile(x, 5), "%.2f" % np.percentile(x, 95),
                    "%.2f" % x.mean()]
        f.write(",".join(row) + "\n")
EOF
fi

# ---- weft's runs ---------------------------------------------------------------
if [ -z "$counts" ]; then
	"$weft" run --quiet "$top/examples/patches.ini" \
		--set backend.name=openmp --set output.plot=none \
		--set ensemble.runs="$seeds" --set patches.cbr="$cbr" \
		--set patches.cdr="$cdr" --set simulation.steps="$days" \
		${season:+--set patches.seasonality_factor="${season%,*}"} \
		${season:+--set patches.seasonality_phase="${season#*,}"} \
		--set output.directory="$tmp/weft" > "$tmp/weft.out" 2>&1 ||
		{ cat "$tmp/weft.out"; exit 2; }
	counts=$(find "$tmp/weft" -name counts.csv -path '*/runs/*' | sort)
fi
[ -n "$counts" ] || { echo "laser-compare.sh: no counts.csv" >&2; exit 2; }

# ---- the check -------------------------------------------------------------------
# shellcheck disable=SC2086
awk -F, -v min="$min_inside" -v keys=1 -v who=LASER \
	-f "$top/bench/band-check.awk" "$band" $counts
rc=$?
# The figure after the verdict, which it keeps (a figure that cannot be
# drawn makes the status 2 of a passing check).
# shellcheck disable=SC2086
[ -z "$figure" ] || "${PYTHON:-python3}" "$top/bench/band-figure.py" \
	--band "$band" --out "$figure" --peer "LASER 1.1" \
	--title "weft's mean over $(echo $counts | wc -w | tr -d ' ') seeds against LASER (laser-generic 1.1)" \
	$counts || [ "$rc" -ne 0 ] || rc=2
exit "$rc"
