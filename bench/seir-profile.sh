#!/bin/sh
# bench/seir-profile.sh - where a day of SEIR goes, kernel by kernel: the
# days of the epidemic of examples/covasim-POP.ini (AGENTS agents, seed 1,
# 120 days, one OpenMP thread) on which a share of the agents is first
# infectious, each share of PREVALENCES.
#
#   bench/seir-profile.sh [BUILD] [AGENTS] [PREVALENCES] [POP] [REPEATS]
#
# BUILD defaults to _build; AGENTS to 1000000; PREVALENCES to "0.01 0.1";
# POP to hybrid; REPEATS to 10. Needs perf and root (a uprobe). REPEATS
# runs under `perf record`: CPU-clock samples, one per 250 us of this
# process's CPU time (whatever else the machine runs; at this rate perf
# adds a few per cent), and a uprobe on the seir_tally kernel, which ends
# every day: the samples between two of its calls are that day's. For
# each chosen day, over the runs: each kernel's CPU time; the day's work,
# counted by two runs with [seir] count_work = true, to the day before
# and to that day (the draws are the same in every run); the transmission
# (seir_transmit, and seir_walk_layer where it is not inlined) per
# infectious agent, per candidate (a contact visited), per draw (an
# infector's first draw and one per candidate) and per transmission; and
# the source lines of the transmission with the most samples that day
# (perf report --time --sort srcline): what bounds it. Then the whole
# run's kernels per infectious agent-day. About 2 minutes at a million
# agents.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/_build}
agents=${2:-1000000}
prevalences=${3:-0.01 0.1}
pop=${4:-hybrid}
repeats=${5:-10}
period=250000 # ns of CPU time per sample
so=$build/models/seir/.libs/weft-model-seir.so
out=$(mktemp -d "${TMPDIR:-/tmp}/weft-prof-XXXXXX")
trap 'perf probe -q -d weft_prof:day 2> /dev/null; rm -rf "$out"' EXIT
export WEFT_PLUGIN_PATH=$build/plugins/openmp/.libs
export WEFT_MODEL_PATH=$build/models/seir/.libs
perf probe -q -x "$so" -a 'weft_prof:day=seir_tally'

# run DIR DAYS SETTING...: the preset for DAYS days, its summary in DIR.log
run() {
	d=$1 n=$2
	shift 2
	"$build/cli/weft" run "$top/examples/covasim-$pop.ini" --quiet \
		--set "seir.agents=$agents" --set "simulation.steps=$n" \
		--set simulation.seed=1 --set backend.name=openmp \
		--set backend.threads=1 --set "output.directory=$out/$d" \
		--set output.plot=none "$@" > "$out/$d.log"
}
# counted DIR: "infectors candidates" of a count_work run's summary
counted() {
	sed -n 's/.*work counted *\([0-9]*\) infectors drew, \([0-9]*\) candidates.*/\1 \2/p' "$out/$1.log"
}

# profile R: run R under perf; R.ends: each day's last moment; R.days:
# "day symbol samples" (day d's samples lie between the (d-1)th and the
# dth call of seir_tally).
profile() {
	perf record -q -e cpu-clock -c "$period" -e weft_prof:day \
		-o "$out/$1.data" "$build/cli/weft" run \
		"$top/examples/covasim-$pop.ini" --quiet \
		--set "seir.agents=$agents" --set simulation.steps=120 \
		--set simulation.seed=1 --set backend.name=openmp \
		--set backend.threads=1 --set "output.directory=$out/all" \
		--set output.plot=none > "$out/all.log"
	perf script -i "$out/$1.data" -F time,event,ip,sym 2> /dev/null > "$out/$1.script"
	awk '$2 == "weft_prof:day:" { sub(/:$/, "", $1); print ++d, $1 }' \
		"$out/$1.script" > "$out/$1.ends"
	awk '$2 == "weft_prof:day:" { d++; next }
		$4 ~ /^seir_/ && d >= 1 { n[d + 1, $4]++ }
		END { for (x in n) { split(x, i, SUBSEP); print i[1], i[2], n[x] } }' \
		"$out/$1.script" > "$out/$1.days"
	rm -f "$out/$1.script"
}
for r in $(seq "$repeats"); do
	profile "$r"
done
cat "$out"/*.days > "$out/bydays"
echo "examples/covasim-$pop.ini, $agents agents, seed 1, one OpenMP thread;" \
	"$(date -u '+%Y-%m-%d %H:%M UTC'); $(grep 'wall time' "$out/all.log" | sed 's/^ *//')"
for prev in $prevalences; do
	day=$(awk -F, -v n="$agents" -v p="$prev" 'NR > 1 && $1 >= 2 && $4 + $5 >= p * n { print $1; exit }' "$out/all/daily.csv")
	[ -n "$day" ] || { echo "no day reaches $prev infectious"; continue; }
	set -- $(awk -F, -v d="$day" '$1 == d { print $4 + $5, $8 }' "$out/all/daily.csv")
	inf=$1 trans=$2
	run before $((day - 1)) --set seir.count_work=true
	run upto "$day" --set seir.count_work=true
	set -- $(counted before) $(counted upto)
	walk=$(($3 - $1)) cand=$(($4 - $2))
	echo
	echo "## day $day: $inf infectious ($(awk -v i="$inf" -v n="$agents" 'BEGIN { printf "%.2f", 100 * i / n }') %), $walk drew, $cand candidates walked, $trans transmissions"
	echo
	echo "| kernel | CPU ms | share |"
	echo "|---|---:|---:|"
	awk -v d="$day" -v p="$period" -v r="$repeats" '$1 == d { n[$2] += $3; t += $3 } END {
		for (k in n) printf "| %s | %.2f | %.1f %% |\n", k, n[k] * p / 1e6 / r, 100 * n[k] / t }' \
		"$out/bydays" | sort -t'|' -k3 -rn
	awk -v d="$day" -v p="$period" -v r="$repeats" -v i="$inf" -v w="$walk" -v c="$cand" -v t="$trans" '
		$1 == d && ($2 == "seir_transmit" || $2 == "seir_walk_layer") { n += $3 } END {
		ns = n * p / r;
		printf "\ntransmission %.2f ms (%d samples): %.0f ns per infectious agent, %.0f per candidate, %.0f per draw, %.0f per transmission\n",
		       ns / 1e6, n, ns / i, c ? ns / c : 0, ns / (w + c), t ? ns / t : 0 }' "$out/bydays"
	echo
	echo "source lines of the transmission with the most samples that day (file:line, share, the line):"
	for r in $(seq "$repeats"); do
		t0=$(awk -v d="$day" '$1 == d - 1 { print $2 }' "$out/$r.ends")
		t1=$(awk -v d="$day" '$1 == d { print $2 }' "$out/$r.ends")
		perf report -i "$out/$r.data" --time "$t0,$t1" --stdio -n \
			--sort srcline --symbols seir_transmit,seir_walk_layer 2> /dev/null |
			awk '$1 ~ /%$/ { print $3, $2 }'
	done | awk '{ n[$1] += $2; t += $2 } END { for (l in n) if (100 * n[l] / t >= 2) printf "%.1f %s\n", 100 * n[l] / t, l }' |
		sort -rn | head -14 | while read -r share line; do
		file=${line%%:*} no=${line##*:}
		src=$(find "$top/models/seir" "$top/include/weft" -name "$file" | head -1)
		text=$([ -n "$src" ] && sed -n "${no}p" "$src" | sed 's/^[[:space:]]*//' | cut -c1-70)
		printf "  %5s %%  %-18s %s\n" "$share" "$line" "$text"
	done
done
echo
awk -F, 'NR > 1 { s += $4 + $5 } END { print s }' "$out/all/daily.csv" > "$out/infdays"
awk -v p="$period" -v r="$repeats" -v i="$(cat "$out/infdays")" '{ n += $3 } END {
	s = n * p / 1e9 / r;
	printf "the whole run: the kernels took %.3f s of CPU for %d infectious agent-days, %.0f ns each\n", s, i, 1e9 * s / i }' "$out/bydays"
