# bench/band-check.awk - is weft's mean over its seeds inside another
# simulator's seed band? Used by bench/laser-compare.sh (LASER, one patch),
# bench/laser-measles-compare.sh (laser-measles, patches) and
# bench/starsim-diseases.sh (Starsim, two diseases).
#
#   awk -F, -v min=95 -v keys=1 -v who=LASER [-v group=disease] \
#       -f bench/band-check.awk BAND COUNTS...
#
# group names the second key column in what it prints (default patch).
#
# BAND: comment lines (#), a header (day,...), then one row per day (keys
# 1: day,S_lo,S_hi,S_mean,...,R_mean) or per day and patch (keys 2:
# day,patch,S_lo,...): the 5 % and 95 % percentiles and the mean over the
# other simulator's seeds. COUNTS: weft's runs, a header then rows with
# the same key columns and then S,E,I,R (counts.csv, keys 1; patches.csv,
# keys 2). For each patch (keys 2) and each of S, E, I and R, the days on
# which the mean over the COUNTS files lies inside the band widened by
# one agent (the counts are whole numbers); a share under min percent
# fails (with -v overall=1, only a share of all the patch-state-days
# under min fails). Prints each share and the verdict; exit status 0 on
# PASS, 1 on FAIL, 2 when no day of the band has runs.
FNR == 1 { file++ }
file == 1 && /^#/ { next }
file == 1 && $1 == "day" { next }
file == 1 {
	key = $1; g = ""
	if (keys > 1) { g = $2; key = key SUBSEP g }
	if (!(g in seen)) { seen[g] = 1; groups[++ng] = g }
	grp[key] = g
	for (k = 0; k < 4; k++) {
		lo[key, k] = $(keys + 1 + 3 * k); hi[key, k] = $(keys + 2 + 3 * k)
	}
	next
}
FNR > 1 {
	key = $1
	if (keys > 1) key = key SUBSEP $2
	runs[key]++
	for (k = 0; k < 4; k++) sum[key, k] += $(keys + 1 + k)
}
END {
	gname = group == "" ? "patch" : group
	split("S E I R", name, " ")
	bad = 0
	for (gi = 1; gi <= ng; gi++) {
		g = groups[gi]
		for (k = 0; k < 4; k++) {
			n = 0; inside = 0
			for (key in grp) {
				if (grp[key] != g || !runs[key]) continue
				m = sum[key, k] / runs[key]; n++
				if (m >= lo[key, k] - 1 && m <= hi[key, k] + 1) inside++
			}
			share = n ? 100 * inside / n : 0
			printf "%s%s: weft mean inside %s band on %d of %d days (%.1f%%) %s\n",
				(keys > 1 ? gname " " g " " : ""), name[k + 1], who,
				inside, n, share,
				(share >= min ? "ok" : overall ? "under" : "FAIL")
			tot += inside; totn += n
			if (share < min && !overall) bad = 1
		}
	}
	if (!totn) {
		print "band-check.awk: no day of the band in the runs" > "/dev/stderr"
		exit 2
	}
	if (overall && 100 * tot / totn < min) bad = 1
	printf "all: %d of %d %sstate-days (%.2f%%) inside; %s\n", tot, totn,
		(keys > 1 ? gname "-" : ""), 100 * tot / totn, bad ? "FAIL" : "PASS"
	exit bad
}
