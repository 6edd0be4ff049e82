#!/bin/sh
# tests/models/test-seir-covasim.sh - the validation of SEIR's Covasim presets, in
# small: examples/covasim-random.ini and covasim-hybrid.ini at 37,518
# agents, 120 days, seeds 1-10 on openmp, against Covasim 3.1.9's 5-95 %
# band over its seeds 1-20 (tests/data/covasim-bands.csv, made by
# tests/data/refresh-covasim.sh; Covasim itself never runs here). Passes
# when weft's mean over its seeds lies inside Covasim's band on at least
# 95 % of the days for new infections, infectious agents (prevalence),
# cumulative infections and cumulative deaths, and inside the band of each
# final outcome: attack rate, peak prevalence, its day and deaths
# (bench/validate/covasim-validate.sh makes the same comparison with 20
# seeds, at 1 million agents too). The same runs on opencl, when it is built and can
# run here, give the same daily.csv byte for byte, so the validation holds
# there too.
set -u
weft="$WEFT_BUILDDIR/cli/weft"
bands="$WEFT_SRCDIR/tests/data/covasim-bands.csv"
n_agents=37518 seeds=10
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-covasim-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT

# run POP SEED BACKEND: one run, its outputs in $tmp/BACKEND-POP-SEED.
run() {
	"$weft" run --quiet "$WEFT_SRCDIR/examples/covasim-$1.ini" \
		--set "seir.agents=$n_agents" --set simulation.steps=120 \
		--set "simulation.seed=$2" --set "backend.name=$3" \
		--set output.plot=none --set "output.directory=$tmp/$3-$1-$2" \
		> "$tmp/run.out" 2>&1 || { cat "$tmp/run.out" >&2; return 1; }
}

# weft's seeds of POP as rows seed,day,new,infectious,cumulative,deaths.
runs() {
	for s in $(seq "$seeds"); do
		out="$tmp/openmp-$1-$s"
		run "$1" "$s" openmp || return 1
		awk -F, -v s="$s" 'NR > 1 { print s "," $1 "," $8 "," $4 + $5 "," $10 "," $7 }' \
			"$out/daily.csv"
	done
}

# The comparison of POP: one "CHECK inside|outside DETAIL" line each.
compare() {
	awk -F, -v pop="$1" -v n="$n_agents" -v seeds="$seeds" '
	FILENAME != ARGV[1] {	# weft: seed,day,new,inf,cum,deaths
		for (c = 1; c <= 4; c++)
			sum[c, $2] += $(c + 2)
		if ($2 > last) last = $2
		if ($4 > peak[$1]) { peak[$1] = $4; pday[$1] = $2 }
		if ($2 == 120) { att += $5 / n; dth += $6 }
		next
	}
	$1 != pop || $2 != n { next }
	$3 == "final" { for (k = 1; k <= 8; k++) fin[k] = $(k + 3); next }
	{ for (c = 1; c <= 4; c++) { lo[c, $3] = $(2 * c + 2); hi[c, $3] = $(2 * c + 3) } }
	END {
		split("new_infections infectious cumulative deaths", name, " ")
		for (c = 1; c <= 4; c++) {
			good = 0
			for (d = 0; d <= last; d++) {
				mv = sum[c, d] / seeds
				if ((mv >= lo[c, d] && mv <= hi[c, d]) || (hi[c, d] == 0 && mv < 0.5))
					good++
			}
			printf "%s %s mean inside on %d of %d days\n", name[c],
			       (good >= 0.95 * (last + 1) ? "inside" : "outside"), good, last + 1
		}
		for (s in peak) { pk += peak[s] / n; pd += pday[s] }
		split(att / seeds " " pk / seeds " " pd / seeds " " dth / seeds, m, " ")
		split("attack peak_prevalence peak_day deaths", lab, " ")
		for (k = 1; k <= 4; k++)
			printf "%s %s mean %.4f, band %s to %s\n", lab[k],
			       (m[k] >= fin[2 * k - 1] && m[k] <= fin[2 * k] ? "inside" : "outside"),
			       m[k], fin[2 * k - 1], fin[2 * k]
	}' "$bands" "$tmp/$1.csv"
}

# same_on BACKEND POP: its runs give openmp's daily.csv, seed by seed.
same_on() {
	for s in $(seq "$seeds"); do
		run "$2" "$s" "$1" && cmp -s "$tmp/openmp-$2-$s/daily.csv" \
			"$tmp/$1-$2-$s/daily.csv" || return 1
	done
}

opencl=$WEFT_BUILDDIR/plugins/opencl/.libs
for pop in random hybrid; do
	if ! runs "$pop" > "$tmp/$pop.csv"; then
		ok 1 "$pop: weft runs examples/covasim-$pop.ini"
		continue
	fi
	compare "$pop" > "$tmp/$pop.cmp"
	[ -s "$tmp/$pop.cmp" ] || echo "none outside no comparison made" > "$tmp/$pop.cmp"
	while read -r what verdict detail; do
		[ "$verdict" = inside ]
		ok $? "$pop, $n_agents agents, $seeds seeds: $what: $detail (Covasim's 5-95 %)"
	done < "$tmp/$pop.cmp"
	if [ -f "$opencl/weft-backend-opencl.so" ] &&
		WEFT_PLUGIN_PATH=$opencl "$weft" backends 2>/dev/null |
		grep -q "^opencl  *available "; then
		(WEFT_PLUGIN_PATH=$opencl && export WEFT_PLUGIN_PATH &&
			same_on opencl "$pop")
		ok $? "$pop: opencl gives openmp's daily.csv for the $seeds seeds"
	else
		skip "$pop: opencl gives openmp's daily.csv" "opencl cannot run here"
	fi
done
tap_done
