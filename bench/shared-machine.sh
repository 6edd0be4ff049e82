#!/bin/sh
# bench/shared-machine.sh - the OpenMP backend on a machine it shares: SEIR
# and CartPole at 1 and 2 threads, on the machine as it is and with a
# competing process keeping one core busy; for docs/benchmarks.md.
#
#   bench/shared-machine.sh [BUILDDIR] [REPEATS]
#
# BUILDDIR (.) is a built tree: cli/weft, bench/cartpole-bench (built by
# `make check`) and the plugins. Each point is the median of REPEATS (5)
# runs, the 1- and 2-thread runs of a repeat side by side. Workloads:
#   seir       examples/covasim-random.ini with 500,000 agents, 120 days:
#              the step loop's wall time ("steps" of `weft run`)
#   cp-policy  CartPole, 4096 environments, on-device policy
#   cp-host    CartPole, 4096 environments, host actions (one upload, one
#              launch, one read per step)
#   cp-large   CartPole, 65536 environments, on-device policy
# CartPole runs bench/cartpole-bench for 0.5 s per point and its time is
# the inverse of env_steps_per_s. "busy" runs `while :; do :; done` in a
# shell beside it. SHARED_WORKLOADS (all four) picks workloads; each
# row's samples go to standard error. With SHARED_FIXED=1 every point is
# also run with OMP_DYNAMIC=false, which keeps the team at the thread
# count (the backend before it adapted to the machine's load). Prints a
# Markdown table:
# milliseconds (SEIR) or nanoseconds per environment step (CartPole) at 1
# and 2 threads (medians), their ratio (2 threads over 1; below 1.10 is
# the target), the median of the ratios of the repeats' pairs (which the
# load of other processes, changing from repeat to repeat, moves less),
# and the load average (1 minute) when the row was done.
set -u
build=${1:-.}
repeats=${2:-5}
top=$(cd "$(dirname "$0")/.." && pwd)
WEFT_PLUGIN_PATH="$build/plugins/openmp/.libs"
WEFT_MODEL_PATH="$build/models/seir/.libs:$build/models/cartpole/.libs"
export WEFT_PLUGIN_PATH WEFT_MODEL_PATH
out=$(mktemp -d "${TMPDIR:-/tmp}/weft-shared-XXXXXX")
busy_pid=
trap '[ -n "$busy_pid" ] && kill "$busy_pid" 2>/dev/null; rm -rf "$out"' EXIT

# One run of WORKLOAD at THREADS threads: its time (see above).
run() {
	case $1 in
	seir)
		"$build/cli/weft" run "$top/examples/covasim-random.ini" \
			--set backend.name=openmp --set backend.threads="$2" \
			--set seir.agents=500000 --set simulation.steps=120 \
			--set output.plot=none \
			--set output.directory="$out/seir" 2>&1 |
			sed -n 's/.*wall time.*steps \([0-9.]*\) s.*/\1/p' |
			awk '{ printf "%.1f\n", $1 * 1000 }' ;;
	cp-*)
		case $1 in
		cp-policy) mode=policy envs=4096 ;;
		cp-host) mode=host envs=4096 ;;
		cp-large) mode=policy envs=65536 ;;
		esac
		"$build/bench/cartpole-bench" openmp "$2" $mode $envs -t 0.5 |
			sed -n 's/.*env_steps_per_s=//p' |
			awk '{ printf "%.3f\n", 1e9 / $1 }' ;;
	esac
}

median() {
	sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

# One row: WORKLOAD COMPETITOR TEAM. A repeat runs 1 and 2 threads side by
# side, in turn first, so that both meet the same load.
row() {
	: > "$out/t1"
	: > "$out/t2"
	: > "$out/pairs"
	for r in $(seq "$repeats"); do
		if [ $((r % 2)) -eq 1 ]; then
			a=$(run "$1" 1)
			b=$(run "$1" 2)
		else
			b=$(run "$1" 2)
			a=$(run "$1" 1)
		fi
		echo "$a" >> "$out/t1"
		echo "$b" >> "$out/t2"
		awk -v a="$a" -v b="$b" 'BEGIN { if (a > 0) printf "%.3f\n", b / a }' >> "$out/pairs"
	done
	t1=$(median < "$out/t1")
	t2=$(median < "$out/t2")
	echo "# $1 $2 $3: 1 thread $(tr '\n' ' ' < "$out/t1"); 2 threads $(tr '\n' ' ' < "$out/t2")" >&2
	ratio=$(awk -v a="$t1" -v b="$t2" 'BEGIN { if (a > 0) printf "%.2f", b / a }')
	paired=$(median < "$out/pairs" | awk '{ printf "%.2f", $1 }')
	echo "| $1 | $2 | $3 | $t1 | $t2 | $ratio | $paired | $(cut -d' ' -f1 /proc/loadavg) |"
}

busy_start() {
	sh -c 'while :; do :; done' &
	busy_pid=$!
}

busy_stop() {
	kill "$busy_pid" 2>/dev/null
	wait "$busy_pid" 2>/dev/null
	busy_pid=
}

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); $(uname -srm); $(nproc) CPUs:" \
	"$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1);" \
	"load before: $(cut -d' ' -f1-4 /proc/loadavg)"
echo "| workload | competitor | team | 1 thread | 2 threads | 2 / 1 | 2 / 1 paired | load |"
echo "|---|---|---|---:|---:|---:|---:|---:|"
teams=adaptive
[ "${SHARED_FIXED:-0}" = 1 ] && teams="adaptive fixed"
for w in ${SHARED_WORKLOADS:-seir cp-policy cp-host cp-large}; do
	for team in $teams; do
		if [ "$team" = fixed ]; then
			OMP_DYNAMIC=false
			export OMP_DYNAMIC
		else
			unset OMP_DYNAMIC
		fi
		row "$w" none "$team"
		busy_start
		row "$w" busy "$team"
		busy_stop
	done
done
echo "# load after: $(cut -d' ' -f1-4 /proc/loadavg)"
