#!/bin/sh
# bench/crn.sh - common random numbers in SEIR: how much of the
# difference between two scenarios is seed noise. Two scenarios that
# differ by a small intervention (isolation_prob 0.5 against 0.55, the
# default; KEY=VALUE arguments replace it) run over SEEDS seeds, paired
# twice: with the same seed in both (common random numbers) and with
# independent seeds (seed against seed + 1000). For the cumulative
# infections and the deaths at the end it prints, per pairing, the mean
# difference (B - A) and its variance across the seeds, and the ratio of
# the two variances (independent over paired: how many times fewer seeds
# the paired comparison needs for the same precision).
#
#   bench/crn.sh [WEFT] [SEEDS] [AGENTS] [DAYS] [KEY=VALUE...]
#
# WEFT defaults to _build/cli/weft (the OpenMP plugin and the seir model
# of its build tree are found through WEFT_PLUGIN_PATH and
# WEFT_MODEL_PATH, which the script sets when unset), SEEDS to 100,
# AGENTS to 20000, DAYS to 120. Each KEY=VALUE after them is an override
# of scenario B alone (seir.isolation_prob=0.55 when none is given; the
# four first arguments must then be given); CRN=seir.KEY=VALUE in the
# environment sets that [seir] key in both scenarios (CRN=seir.crn=true:
# the common random numbers mode, models/seir/seir.md; the default,
# seir.crn=false, keeps the model's default draws in both ensembles,
# where an ensemble of two scenarios would otherwise turn the mode on
# and one of a single scenario would not). The scenarios
# are examples/ensemble.ini's baseline (Astoria's synthetic population,
# isolation of the symptomatic from day 21) at AGENTS agents, on openmp
# with one thread, niced: 3 x SEEDS runs of an ensemble, 30 to 45 s in
# all at the defaults on a busy core.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
weft=${1:-$top/_build/cli/weft}
seeds=${2:-100}
agents=${3:-20000}
days=${4:-120}
[ $# -gt 4 ] && shift 4 || set -- seir.isolation_prob=0.55
tree=$(dirname "$weft")/..
if [ -d "$tree/plugins/openmp/.libs" ]; then
	: "${WEFT_PLUGIN_PATH:=$tree/plugins/openmp/.libs}"
	: "${WEFT_MODEL_PATH:=$tree/models/seir/.libs}"
	export WEFT_PLUGIN_PATH WEFT_MODEL_PATH
fi
OMP_NUM_THREADS=1
export OMP_NUM_THREADS

out=$(mktemp -d "${TMPDIR:-/tmp}/weft-crn-XXXXXX")
trap 'rm -rf "$out"' EXIT
seed=20200301

# ensemble NAME SEED SCENARIO...: run an ensemble of SEEDS runs per
# scenario from SEED on, examples/ensemble.ini's [seir] at AGENTS agents
# and DAYS days; scenario a is the baseline, b has the overrides.
ensemble() {
	name=$1 first=$2
	shift 2
	{
		printf '[simulation]\nmodel = seir\nsteps = %s\nseed = %s\n' \
			"$days" "$first"
		printf '[backend]\nname = openmp\nthreads = 1\n'
		printf '[output]\ndirectory = %s\nplot = none\n' "$out/$name"
		printf '[ensemble]\nruns = %s\n' "$seeds"
		sed -n '/^\[seir\]/,/^\[scenario/p' "$top/examples/ensemble.ini" |
			grep -v -e '^\[scenario' -e '^agents'
		printf 'agents = %s\n' "$agents"
		printf '%s\n' "${CRN:-seir.crn=false}" | sed 's/^seir\.//'
		for sc in "$@"; do
			printf '[scenario %s]\n' "$sc"
			if [ "$sc" = b ]; then
				printf '%s\n' "$overrides"
			fi
		done
	} > "$out/$name.ini"
	nice "$weft" run "$out/$name.ini" --quiet > "$out/$name.log"
}

# final DIR: "cumulative deaths" on the last row of each run's daily.csv,
# one line per seed in seed order.
final() {
	for r in $(ls "$1" | sort -n); do
		tail -n 1 "$1/$r/daily.csv"
	done | awk -F, '{ print $10, $7 }'
}

overrides=$(for kv in "$@"; do printf '%s\n' "$kv" | sed 's/=/ = /'; done)
start=$(date +%s)
ensemble paired "$seed" a b
ensemble independent $((seed + 1000)) b
final "$out/paired/runs/a" > "$out/a"
final "$out/paired/runs/b" > "$out/b"
final "$out/independent/runs/b" > "$out/c"
secs=$(($(date +%s) - start))

# stats A B: mean and variance (n - 1) of B - A, infections then deaths.
stats() {
	paste -d ' ' "$1" "$2" | awk '
		{ di = $3 - $1; dd = $4 - $2; n++
		  si += di; sii += di * di; sd += dd; sdd += dd * dd }
		END { mi = si / n; md = sd / n
		      printf "%.2f %.2f %.3f %.3f\n", mi, (sii - n * mi * mi) / (n - 1),
			md, (sdd - n * md * md) / (n - 1) }'
}
set -- $(stats "$out/a" "$out/b")
pi=$1 pvi=$2 pd=$3 pvd=$4
set -- $(stats "$out/a" "$out/c")
ii=$1 ivi=$2 id=$3 ivd=$4
echo "SEIR, examples/ensemble.ini's baseline, $agents agents, $days days, $seeds seeds; B: $(echo $overrides)${CRN:+; both: $CRN}"
echo "$((3 * seeds)) runs in $secs s, one thread"
echo
echo "| pairing | infections: mean B - A | variance | deaths: mean B - A | variance |"
echo "|---|---:|---:|---:|---:|"
echo "| same seed (CRN) | $pi | $pvi | $pd | $pvd |"
echo "| independent seeds | $ii | $ivi | $id | $ivd |"
echo
awk -v a="$ivi" -v b="$pvi" -v c="$ivd" -v d="$pvd" 'BEGIN {
	ri = "inf"; rd = "inf"
	if (b > 0) ri = sprintf("%.1f", a / b)
	if (d > 0) rd = sprintf("%.1f", c / d)
	printf "variance ratio (independent / same seed): infections %s, deaths %s\n", ri, rd }'
