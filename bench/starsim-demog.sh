#!/bin/sh
# bench/starsim-demog.sh - weft's ages and mortality by age (the patch model,
# models/patches/patches.md, "Ages and mortality by age") against
# Starsim's demography (pip install starsim; checked with 3.7.2).
#
#   bench/starsim-demog.sh [OPTIONS] [BUILD]
#
# BUILD is a configured and built tree (default _build at the top of the
# tree): its cli/weft runs with its openmp plugin and the patch model.
#
# weft runs examples/patches-demography.ini (10 000 agents with ages from
# examples/patches-demography-pyramid.csv, deaths by age from
# examples/patches-demography-deaths.csv, cbr 30 with cbr_mode = starsim,
# no epidemic, 20 years) for 20 seeds (--seeds N, an ensemble on openmp).
# The mean over its seeds of the living (S + E + I + R of counts.csv, a
# row a year) and of the living in each age bin of the pyramid (ages.csv,
# every 5 years) must lie inside Starsim's seed-to-seed band, the 5 % to
# 95 % percentiles over Starsim's 20 seeds (bench/starsim-demog.py:
# ss.People(age_data=pyramid), ss.Births(birth_rate=ss.peryear(30)),
# ss.Deaths(death_rate=the table), dt = 1 day), widened by one agent (the
# counts are whole numbers), on at least 95 % of the points (MIN_INSIDE,
# percent) of each kind (population, ages). The band is
# tests/data/patches-demog-starsim-band.csv; --fresh runs Starsim now
# (STARSIM_PYTHON, default bench/starsim-venv.sh's environment, made when
# missing) for seeds 1..20 and rewrites it, with
#
#   $STARSIM_PYTHON bench/starsim-demog.py tests/data/patches-demog-starsim-band.csv \
#       tests/data/patches-demog-pyramid.csv tests/data/patches-demog-deaths.csv
#
# (the same files as the example's; about 20 s a seed). Prints each kind's
# share of points inside and the verdict; exit status 0 when both pass, 1
# when one fails, 2 on an error.
#
# With --fertility births come from pregnancies instead:
# examples/patches-fertility.ini (fertility_rates
# examples/patches-demography-fertility.csv) against ss.Pregnancy with
# the same table (bench/starsim-demog.py --fertility), the band
# tests/data/patches-demog-starsim-fertility-band.csv. Starsim counts its
# unborn among the living; its band counts the born only, as weft's
# counts.csv does.
#
#   --fresh        a fresh Starsim band first (needs Starsim)
#   --fertility    births by age of mother (ss.Pregnancy)
#   --band FILE    another band file
#   --seeds N      weft's seeds (default 20)
#   --figure PNG   also draw the check's figure: Starsim's band and mean
#                  and weft's mean of the living by year and of the ages
#                  at the end (bench/band-figure.py; PYTHON, default
#                  python3, with numpy and matplotlib)
#   --set K=V      (repeatable) more settings for weft's runs (a biased
#                  model: --set patches.cbr_mode=laser)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=""
fresh=0
seeds=20
band=""
fert=0
spy=${STARSIM_PYTHON:-}
min_inside=${MIN_INSIDE:-95}
sets=""
figure=""
while [ $# -gt 0 ]; do
	case $1 in
	--fresh) fresh=1 ;;
	--fertility) fert=1 ;;
	--band) band=$2; shift ;;
	--seeds) seeds=$2; shift ;;
	--set) sets="$sets --set $2"; shift ;;
	--figure) figure=$2; shift ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "starsim-demog.sh: unknown option $1" >&2; exit 2 ;;
	*) build=$1 ;;
	esac
	shift
done
build=${build:-$top/_build}
ex="$top/examples/patches-demography.ini"
extra=""
if [ "$fert" -eq 1 ]; then
	ex="$top/examples/patches-fertility.ini"
	extra="--fertility $top/tests/data/patches-demog-fertility.csv"
	band=${band:-$top/tests/data/patches-demog-starsim-fertility-band.csv}
fi
band=${band:-$top/tests/data/patches-demog-starsim-band.csv}
weft="$build/cli/weft"
[ -x "$weft" ] || { echo "starsim-demog.sh: no $weft (build first)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/starsim-demog-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

if [ "$fresh" -eq 1 ]; then
	[ -n "$spy" ] || spy=$(sh "$top/bench/starsim-venv.sh") || exit 2
	# shellcheck disable=SC2086
	"$spy" "$top/bench/starsim-demog.py" "$band" \
		"$top/tests/data/patches-demog-pyramid.csv" \
		"$top/tests/data/patches-demog-deaths.csv" $extra || exit 2
fi
[ -f "$band" ] || { echo "starsim-demog.sh: no band $band" >&2; exit 2; }

# shellcheck disable=SC2086
WEFT_MODEL_PATH="$build/models/patches/.libs" \
	WEFT_PLUGIN_PATH="$build/plugins/openmp/.libs" \
	"$weft" run --quiet "$ex" \
	--set backend.name=openmp --set output.plot=none \
	--set ensemble.runs="$seeds" --set output.directory="$tmp/weft" \
	$sets > "$tmp/weft.out" 2>&1 || { cat "$tmp/weft.out"; exit 2; }
counts=$(find "$tmp/weft" -name counts.csv -path '*/runs/*' | sort)
ages=$(find "$tmp/weft" -name ages.csv -path '*/runs/*' | sort)
[ -n "$counts" ] && [ -n "$ages" ] ||
	{ echo "starsim-demog.sh: no counts.csv or ages.csv" >&2; exit 2; }

# The band's lines are what,day,lo,hi,mean: what "pop" (the living) or
# "a<AGE>" (the living of the bin of lower edge AGE years).
# shellcheck disable=SC2086
awk -F, -v min="$min_inside" '
FNR == 1 { file++ }
file == 1 && (/^#/ || $1 == "what") { next }
file == 1 { lo[$1, $2] = $3; hi[$1, $2] = $4; ref[$1, $2] = $5; key[$1, $2] = 1; next }
FNR == 1 { for (k = 1; k <= NF; k++) col[k] = $k; kind = ($1 == "day" && col[2] == "S") ? "pop" : "ages"; next }
kind == "pop" { n = $2 + $3 + $4 + $5; sum["pop", $1] += n; runs["pop", $1]++; next }
{ for (k = 2; k <= NF; k++) { sum[col[k], $1] += $k; runs[col[k], $1]++ } }
END {
	bad = 0
	for (t = 0; t < 2; t++) {
		n = 0; inside = 0; worst = ""
		for (kd in key) {
			split(kd, q, SUBSEP)
			if ((q[1] == "pop") != (t == 0) || !runs[kd]) continue
			m = sum[kd] / runs[kd]; n++
			if (m >= lo[kd] - 1 && m <= hi[kd] + 1) inside++
			else worst = worst sprintf(" %s@%s: %.1f not in [%g, %g]", q[1], q[2], m, lo[kd], hi[kd])
		}
		share = n ? 100 * inside / n : 0
		printf "%s: weft mean inside Starsim band on %d of %d points (%.1f%%) %s\n",
			t == 0 ? "population" : "ages", inside, n, share,
			(n && share >= min ? "ok" : "FAIL")
		if (worst != "") printf "  outside:%s\n", worst
		if (!n || share < min) bad = 1
	}
	printf "%s\n", bad ? "FAIL" : "PASS"
	exit bad
}' "$band" $counts $ages
rc=$?
# The figure after the verdict, which it keeps (a figure that cannot be
# drawn makes the status 2 of a passing check).
# shellcheck disable=SC2086
[ -z "$figure" ] || "${PYTHON:-python3}" "$top/bench/band-figure.py" \
	--band "$band" --out "$figure" --peer "Starsim 3.7.2" \
	--title "weft against Starsim 3.7.2" $counts $ages ||
	[ "$rc" -ne 0 ] || rc=2
exit "$rc"
