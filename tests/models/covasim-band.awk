# tests/models/covasim-band.awk - weft's mean over its seeds against a
# stored band of Covasim's seeds (tests/data/covasim-*-bands.csv, written
# by bench/validate/covasim_*.py bands), for the SEIR tests that compare
# with Covasim 3.1.9 (test-seir-waning.sh, test-seir-variants.sh):
#
#   awk -F, -v n=AGENTS -v seeds=SEEDS -v curves="NAME ..." \
#       -v sums="CURVE:LABEL ..." -f covasim-band.awk BANDS WEFT_CSV
#
# WEFT_CSV has a line per seed and day: seed,day, the curves in the
# order of `curves` (the third the cumulative infections, the fourth
# the deaths), and the agents infectious. BANDS has, for pop "random"
# and AGENTS agents, a line per day with each curve's 5 % and 95 %
# bounds, and a line "final" with the bounds of the outcomes: attack
# (infections per agent on the last day), peak prevalence, its day,
# deaths, then the total of each curve numbered in `sums` (from 1).
# Prints a line per curve, "NAME inside|outside mean inside on G of D
# days" (inside on at least 95 % of the days; a day whose band is
# [0, 0] counts when the mean is below 0.5), then one per outcome,
# "LABEL inside|outside mean M, band LO to HI".
BEGIN {
	k = split(curves, name, " ")
	m = split(sums, sm, " ")
	for (i = 1; i <= m; i++) {
		split(sm[i], part, ":")
		scol[i] = part[1]
		slab[i] = part[2]
	}
}
FILENAME != ARGV[1] {
	for (c = 1; c <= k; c++)
		sum[c, $2] += $(c + 2)
	if ($2 > last) last = $2
	if ($(k + 3) > peak[$1]) { peak[$1] = $(k + 3); pday[$1] = $2 }
	cum[$1, $2] = $5
	dead[$1, $2] = $6
	for (i = 1; i <= m; i++)
		tot[i] += $(scol[i] + 2)
	next
}
$1 != "random" || $2 != n { next }
$3 == "final" { for (j = 1; j <= 2 * (4 + m); j++) fin[j] = $(j + 3); next }
{ for (c = 1; c <= k; c++) { lo[c, $3] = $(2 * c + 2); hi[c, $3] = $(2 * c + 3) } }
END {
	for (c = 1; c <= k; c++) {
		good = 0
		for (d = 0; d <= last; d++) {
			mv = sum[c, d] / seeds
			if ((mv >= lo[c, d] && mv <= hi[c, d]) || (hi[c, d] == 0 && mv < 0.5))
				good++
		}
		printf "%s %s mean inside on %d of %d days\n", name[c],
		       (good >= 0.95 * (last + 1) ? "inside" : "outside"), good, last + 1
	}
	for (s in peak) {
		pk += peak[s] / n
		pd += pday[s]
		att += cum[s, last] / n
		dth += dead[s, last]
	}
	val[1] = att / seeds; lab[1] = "attack"
	val[2] = pk / seeds; lab[2] = "peak_prevalence"
	val[3] = pd / seeds; lab[3] = "peak_day"
	val[4] = dth / seeds; lab[4] = "deaths"
	for (i = 1; i <= m; i++) { val[4 + i] = tot[i] / seeds; lab[4 + i] = slab[i] }
	for (j = 1; j <= 4 + m; j++)
		printf "%s %s mean %.4f, band %s to %s\n", lab[j],
		       (val[j] >= fin[2 * j - 1] && val[j] <= fin[2 * j] ? "inside" : "outside"),
		       val[j], fin[2 * j - 1], fin[2 * j]
}
