#!/bin/sh
# bench/validate/covasim-early.sh - the early, stochastic phase of weft's
# epidemic against Covasim 3.1's, seed against seed: how far it has grown
# and how much that varies between seeds. Both start from 20 infections
# among SIZE agents of the random population with waning immunity
# (examples/covasim-waning.ini; `bench/covasim_run.py --waning`); for
# DAYS days, CV_SEEDS seeds of Covasim against WEFT_SEEDS of weft; once
# with Covasim's transmissibility dispersion (a negative binomial of
# dispersion 0.45: a few agents infect many) and once without it
# (weft's rel_trans_dispersion = 0, Covasim's beta_dist a constant 1);
# then weft with the dispersion once more, against Covasim given weft's
# 256 classes of transmissibility in place of its own draws
# (bench/covasim_run.py --weft-classes): whether the classes explain a
# difference.
#
#   bench/validate/covasim-early.sh [WEFT] [SIZE] [CV_SEEDS] [WEFT_SEEDS] [DAYS]
#
# Defaults: _inst/bin/weft, 200000 agents, 400 and 600 seeds, 30 days.
# Prints, every 5 days, each side's mean and standard deviation over its
# seeds of log(cumulative infections), the ratio of the variances
# (weft's over Covasim's) and z, that ratio's logarithm over its
# standard error for normal data, sqrt(2 / (n1 - 1) + 2 / (n2 - 1)): |z|
# under 2 is no evidence that the spreads differ (the counts have heavy
# tails: take z as a rough guide); then, on the last day, the median,
# the interquartile and 5-95 % ranges and the 1 % quantile of each side.
# The first wave's timing from seed to seed follows from this phase. Covasim's runs are kept in
# _bench/ref (cv-early-disp-SIZE-DAYS-SEEDS.csv, cv-early-nodisp-... and
# cv-early-classes-...; about 1.3 s a seed at 200,000 agents), weft's go
# to _bench/val-early.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
weft=${1:-$top/_inst/bin/weft}
n=${2:-200000}
cv_seeds=${3:-400}
wf_seeds=${4:-600}
days=${5:-30}
py=$("$top/bench/covasim-venv.sh")
ref=$top/_bench/ref val=$top/_bench/val-early
mkdir -p "$ref" "$val"

# Covasim's series (cached), weft's (rewritten): pop,agents,seed,day,
# new_infections,infectious,cumulative,deaths.
covasim() { # KIND OPTIONS...
	cv=$ref/cv-early-$1-$n-$days-$cv_seeds.csv
	shift
	if [ ! -s "$cv" ]; then
		"$py" "$top/bench/covasim_run.py" --waning "$@" random "$n" \
			"$days" "1-$cv_seeds" "$cv.tmp" > "$val/covasim.log" 2>&1 ||
			{ cat "$val/covasim.log" >&2; exit 2; }
		mv "$cv.tmp" "$cv"
	fi
}
weft_runs() { # KIND SETTINGS...
	wf=$val/weft-$1-$n-$days-$wf_seeds.csv
	shift
	out=$val/run
	: > "$wf"
	for s in $(seq "$wf_seeds"); do
		"$weft" run "$top/examples/covasim-waning.ini" --quiet "$@" \
			--set "seir.agents=$n" --set "simulation.steps=$days" \
			--set "simulation.seed=$s" --set backend.name=openmp \
			--set backend.threads=1 --set "output.directory=$out" \
			--set output.plot=none > /dev/null
		awk -F, -v n="$n" -v s="$s" 'NR > 1 {
			print "random," n "," s "," $1 "," $8 "," $4 + $5 "," \
				$10 "," $7 }' "$out/daily.csv" >> "$wf"
	done
	rm -rf "$out"
}
compare() { # TITLE
	echo "$1: log(cumulative infections), mean and sd over the seeds"
	awk -F, -v days="$days" '
	FNR == 1 { side++ }
	{ c[side, $4, $3] = $7; seeds[side, $3] = 1 }
	END {
		printf "%4s %24s %24s %9s %6s\n", "day", "Covasim", "weft", "var ratio", "z"
		for (d = 5; d <= days; d += 5) {
			for (k = 1; k <= 2; k++) {
				m[k] = q[k] = nn[k] = 0
				for (key in seeds) {
					split(key, f, SUBSEP)
					if (f[1] != k) continue
					v = log(c[k, d, f[2]]); nn[k]++; m[k] += v; q[k] += v * v
				}
				m[k] /= nn[k]
				sd[k] = sqrt((q[k] - nn[k] * m[k] ^ 2) / (nn[k] - 1))
			}
			r = (sd[2] / sd[1]) ^ 2
			z = log(r) / sqrt(2 / (nn[1] - 1) + 2 / (nn[2] - 1))
			printf "%4d  %5.3f sd %5.3f (n %4d)  %5.3f sd %5.3f (n %4d) %9.3f %6.2f\n",
				d, m[1], sd[1], nn[1], m[2], sd[2], nn[2], r, z
		}
	}' "$cv" "$wf"
	# The spread without the normal's assumption, on the last day: the
	# median, the interquartile range and the 5-95 % range each as a
	# standard deviation (/ 1.349, / 3.29), and the 1 % quantile.
	for f in "$cv" "$wf"; do
		awk -F, -v d="$days" '$4 == d { print log($7) }' "$f" | sort -g |
			awk -v who="$(basename "$f")" -v d="$days" '
			{ v[NR] = $1 }
			function q(p) { return v[int(p * (NR - 1)) + 1] }
			END { printf "day %d, %s: median %.3f, IQR/1.349 %.3f, (p95 - p5)/3.29 %.3f, p1 %.3f\n",
				d, who, q(0.5), (q(0.75) - q(0.25)) / 1.349,
				(q(0.95) - q(0.05)) / 3.29, q(0.01) }'
	done
}

covasim disp
weft_runs disp
compare "with Covasim's dispersion of transmissibility (0.45)"
covasim nodisp --no-dispersion
weft_runs nodisp --set seir.rel_trans_dispersion=0
compare "without it (every agent's transmissibility 1)"
covasim classes --weft-classes
wf=$val/weft-disp-$n-$days-$wf_seeds.csv
compare "weft with the dispersion against Covasim given weft's 256 classes of it"
