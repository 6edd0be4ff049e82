#!/bin/sh
# bench/validate/covasim-scenario.sh - weft's epidemic with waning
# immunity against Covasim 3.1's, in one of four scenarios, day by day:
# SEEDS seeds of weft (examples/covasim-SCENARIO.ini, DAYS days, openmp on
# one thread) against Covasim's seeds 1 to SEEDS at the same size
# (bench/covasim_run.py: the random population, rescale=False), compared
# by bench/validate/covasim_SCENARIO.py (weft's mean inside Covasim's 5-95
# % band; a plot with PLOT=FILE, and with BANDS=FILE Covasim's bands
# written as a test's reference).
#
#   bench/validate/covasim-scenario.sh SCENARIO [WEFT] [SIZE] [SEEDS] [DAYS]
#
# SCENARIO is
#   waning    use_waning=True, one variant, no vaccine
#             (bench/validate/covasim-waning.sh);
#   variants  and alpha imported on day 30, delta on day 150, 10 agents
#             each (bench/validate/covasim-variants.sh);
#   vaccine   and alpha on day 60, delta on day 150, and Pfizer's doses to
#             the oldest: round(0.3 x SIZE / 21) first doses a day on days
#             30-50 (about 30 % of the agents), Covasim's
#             cv.vaccinate_num('pfizer', sequence='age') giving the second
#             doses in the same daily quota on the next 21 days; the
#             agents vaccinated and fully vaccinated at the end are
#             printed, mean over the seeds, for each side
#             (bench/validate/covasim-vaccine.sh);
#   vaccine-prob  the same with the doses by chance: Covasim's
#             cv.vaccinate_prob('pfizer', days=30..50, prob=0.0168), each
#             agent not yet vaccinated vaccinated with that chance each
#             day (about 30 % in all), its second dose 21 days later;
#             weft's campaign 'days=30-50 prob=0.0168 vaccine=pfizer'.
# WEFT defaults to _inst/bin/weft; SIZE to 200000; SEEDS to 20; DAYS to
# 360. Covasim's runs are kept in _bench/ref (cv-SCENARIO-SIZE-DAYS-SEEDS.csv,
# made once: about half a minute a seed at 200,000 agents); weft's go to
# _bench/val-SCENARIO.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
scenario=$1
weft=${2:-$top/_inst/bin/weft}
n=${3:-200000}
seeds=${4:-20}
days=${5:-360}
# What each side runs: Covasim's options, weft's further settings, and the
# daily.csv columns after new_infections, infectious, cumulative, deaths.
doses=$(awk -v n="$n" 'BEGIN { printf "%d", 0.3 * n / 21 + 0.5 }')
campaign="days=30-50 doses=$doses priority=oldest vaccine=pfizer"
case $scenario in
waning) cv_opts="--waning" cols="26" ;;
variants) cv_opts="--variants alpha:30:10,delta:150:10" cols="26 27 28 29" ;;
vaccine)
	cv_opts="--variants alpha:60:10,delta:150:10 --vaccine pfizer:30-50:$doses"
	cols="26 27 28 29 11 18" ;;
vaccine-prob)
	# About 30 % too: 1 - (1 - 0.0168)^21.
	campaign="days=30-50 prob=0.0168 vaccine=pfizer"
	cv_opts="--variants alpha:60:10,delta:150:10 --vaccine-prob pfizer:30-50:0.0168"
	cols="26 27 28 29 11 18" ;;
*) echo "covasim-scenario.sh: unknown scenario '$scenario' (waning, variants, vaccine or vaccine-prob)" >&2
	exit 2 ;;
esac
# vaccine-prob shares vaccine's example and comparison.
base=${scenario%-prob}
py=$("$top/bench/covasim-venv.sh")
ref=$top/_bench/ref val=$top/_bench/val-$scenario
mkdir -p "$ref" "$val"
cv=$ref/cv-$scenario-$n-$days-$seeds.csv
wf=$val/weft-$n-$days-$seeds.csv
if [ ! -s "$cv" ]; then
	# shellcheck disable=SC2086 # cv_opts: options and their values
	"$py" "$top/bench/covasim_run.py" $cv_opts random "$n" "$days" \
		"1-$seeds" "$cv.tmp" > /dev/null 2>&1
	mv "$cv.tmp" "$cv"
fi
: > "$wf"
for s in $(seq "$seeds"); do
	out=$val/random-$n-$s
	set -- --set "seir.agents=$n"
	[ "$base" = vaccine ] && set -- "$@" --set "seir.vaccine_campaigns=$campaign"
	"$weft" run "$top/examples/covasim-$base.ini" --quiet "$@" \
		--set "simulation.steps=$days" \
		--set "simulation.seed=$s" --set backend.name=openmp \
		--set backend.threads=1 --set "output.directory=$out" \
		--set output.plot=none > /dev/null
	awk -F, -v n="$n" -v s="$s" -v cols="$cols" 'NR > 1 {
		line = "random," n "," s "," $1 "," $8 "," $4 + $5 "," $10 "," $7
		k = split(cols, c, " ")
		for (i = 1; i <= k; i++)
			line = line "," $(c[i])
		print line }' "$out/daily.csv" >> "$wf"
done
if [ "$base" = vaccine ]; then
	for f in "$cv" "$wf"; do
		awk -F, -v d="$days" -v who="$(basename "$f")" -v doses="$campaign" '$4 == d {
			k++; v += $13; full += $14 }
			END { printf "%s: %s; vaccinated %.1f, every dose %.1f (mean of %d seeds, day %d)\n", who, doses, v / k, full / k, k, d }' "$f"
	done
fi
if [ -n "${BANDS:-}" ]; then
	"$py" "$top/bench/validate/covasim_$base.py" bands "$cv" "$BANDS"
fi
"$py" "$top/bench/validate/covasim_$base.py" compare "$cv" "$wf" ${PLOT:+"$PLOT"}
