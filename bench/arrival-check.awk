# bench/arrival-check.awk - the day an epidemic arrives in each patch, a
# reference's against weft's runs: for each patch the mean over the runs
# of the first day its agents ever infected (E + I + R) reach the
# threshold, against the reference's mean (a z score over both standard
# errors). The first file is the reference's band, whose comment lines
# give the threshold and, per patch, its mean, standard deviation and the
# runs that reach it:
#
#   # arrival: the first day a patch's E + I + R reaches 50: ...
#   # arrival,PATCH,MEAN,SD,RUNS
#
# the others are weft's patches.csv (day,patch,S,E,I,R). PASS (exit 0)
# when every patch's |z| is at most max_z (default 4) and as many of
# weft's runs reach it, in proportion, within 5 points; FAIL (exit 1);
# exit 2 when the band has no arrival lines.
#
#   awk -F, [-v max_z=4] [-v who=NAME] -f bench/arrival-check.awk BAND RUN...
BEGIN {
	if (max_z == "")
		max_z = 4
	if (who == "")
		who = "reference"
}
FNR == 1 { file++ }
file == 1 && /^# arrival: / {
	if (match($0, /reaches [0-9]+/))
		thr = substr($0, RSTART + 8, RLENGTH - 8) + 0
	next
}
file == 1 && /^# arrival,/ {
	ref_mean[$2] = $3
	ref_sd[$2] = $4
	ref_n[$2] = $5
	patches = $2 + 1 > patches ? $2 + 1 : patches
	next
}
file == 1 { next }
FNR == 1 { runs++; next }
{
	key = runs SUBSEP $2
	if (!(key in seen) && $4 + $5 + $6 >= thr) {
		seen[key] = 1
		n[$2]++
		sum[$2] += $1
		sq[$2] += $1 * $1
	}
}
END {
	if (!patches || !thr) {
		print "arrival-check.awk: no '# arrival' lines in the band" > "/dev/stderr"
		exit 2
	}
	bad = 0
	for (p = 0; p < patches; p++) {
		m = n[p] ? sum[p] / n[p] : 0
		v = n[p] > 1 ? (sq[p] - n[p] * m * m) / (n[p] - 1) : 0
		if (!(ref_n[p] > 1) || ref_sd[p] == "nan") {
			# The reference's runs never (or once) reach it.
			printf "patch %d arrival: the band has no mean of %s's arrival day; FAIL\n", p, who
			bad++
			continue
		}
		se2 = (n[p] ? v / n[p] : 0) + ref_sd[p] * ref_sd[p] / ref_n[p]
		z = se2 > 0 ? (m - ref_mean[p]) / sqrt(se2) : 0
		share = runs ? 100 * n[p] / runs : 0
		ok = n[p] > 1 && (z < 0 ? -z : z) <= max_z &&
			(share - 100 * ref_n[p] / ref_runs(p)) ^ 2 <= 25
		bad += !ok
		printf "patch %d arrival (E + I + R >= %d): weft day %.2f +- %.2f (%d of %d runs), %s %.2f +- %.2f (%d runs): z %.2f %s\n",
			p, thr, m, (n[p] > 1 ? sqrt(v / n[p]) : 0), n[p], runs, who,
			ref_mean[p], ref_sd[p] / sqrt(ref_n[p]), ref_n[p], z,
			ok ? "ok" : "FAIL"
	}
	printf "arrival: %d of %d patches within |z| <= %g; %s\n",
		patches - bad, patches, max_z, bad ? "FAIL" : "PASS"
	exit bad ? 1 : 0
}

# The reference's runs: the most that reach any patch (the band's lines
# give those that reach each, not the runs).
function ref_runs(p,    q, r) {
	r = 0
	for (q in ref_n)
		r = ref_n[q] > r ? ref_n[q] : r
	return r
}
