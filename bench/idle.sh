# bench/idle.sh - sourced by the benchmarks that time runs on a shared
# machine (covasim-compare.sh, covasim-mechanisms.sh): wait until the CPUs
# are idle, time a command, and say what else ran meanwhile. Needs $out (a
# scratch directory); sets $idle and appends to $out/busy (see timed).
#
# On a shared machine other jobs come and go, so every timed run waits (up
# to IDLE_WAIT seconds, default 900) until the CPUs were busy less than
# IDLE_BUSY percent (default 10) over 5 seconds (/proc/stat).
load() { cut -d' ' -f1 /proc/loadavg; }
# ticks: the machine's busy and total CPU time so far (/proc/stat ticks).
ticks() { awk '/^cpu / { b = $2 + $3 + $4 + $7 + $8; print b, b + $5 + $6 }' /proc/stat; }
# busy: percent of CPU time not idle over the next 5 seconds.
busy() {
	a=$(ticks)
	sleep 5
	echo "$a $(ticks)" | awk '{ t = $4 - $2; printf "%.0f", t ? 100 * ($3 - $1) / t : 0 }'
}
# wait_idle: until busy is under IDLE_BUSY, or IDLE_WAIT s; sets $idle.
wait_idle() {
	w=0
	idle=$(busy)
	while [ "$w" -lt "${IDLE_WAIT:-900}" ] && [ "$idle" -ge "${IDLE_BUSY:-10}" ]; do
		w=$((w + 5))
		idle=$(busy)
	done
}
# own_cpu: CPU seconds of this shell's finished children into $cpu (times,
# run in this shell: in a pipe or $(...) it would count a subshell's).
own_cpu() {
	times > "$out/times"
	cpu=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, "m"); s += t[1] * 60 + t[2] } printf "%.2f", s }' "$out/times")
}
# timed CMD...: CMD once the CPUs are idle; appends to $out/busy the busy
# share before it and the share of the CPUs others used during it.
timed() {
	wait_idle
	t0=$(ticks)
	own_cpu
	c0=$cpu
	"$@"
	t1=$(ticks)
	own_cpu
	echo "$idle $t0 $t1 $c0 $cpu $(getconf CLK_TCK)" | awk '{
		t = ($5 - $3) / $8; o = ($4 - $2) / $8 - ($7 - $6);
		printf "%s %.0f\n", $1, (t > 0 && o > 0) ? 100 * o / t : 0 }' >> "$out/busy"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
