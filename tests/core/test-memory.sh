#!/bin/sh
# tests/core/test-memory.sh - bounded memory (docs/memory.md): a run
# that cannot fit is refused before anything is allocated, with the bytes
# needed, what needs them (the keys that drive each part) and the bytes
# available, by `weft check` as by `weft run`; and the models' estimates
# hold to what runs then use: the device bytes the run reports, and the
# peak resident memory of the process (on OpenMP, whose device memory is
# the host's).
#
# Every run that could allocate much runs under `ulimit -v`, so that a
# regression fails here, quickly, instead of exhausting the machine.
set -u
weft="$WEFT_BUILDDIR/cli/weft"
maxrss="$WEFT_BUILDDIR/tests/core/maxrss"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-memory-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT
unset WEFT_MEM_AVAILABLE WEFT_DEVICE_MEM_AVAILABLE

# ASan reserves terabytes of address space and doubles what is resident:
# ulimit -v and the estimate-against-RSS comparisons cannot hold there.
if [ -n "${WEFT_SANITIZE:-}" ]; then
	skip_all "a sanitizer build: address-space limits and resident memory do not apply under ASan"
fi

cat > "$tmp/seir.ini" <<INI
[simulation]
model = seir
steps = 20
[backend]
name = openmp
threads = 1
[output]
directory = $tmp/out
plot = none
[seir]
agents = 20000
INI
cat > "$tmp/cartpole.ini" <<INI
[simulation]
model = cartpole
steps = 100
[backend]
name = openmp
threads = 1
[output]
directory = $tmp/cpout
plot = none
INI
cat > "$tmp/sir.ini" <<INI
[simulation]
model = sir
steps = 10
[backend]
name = openmp
threads = 1
[output]
directory = $tmp/sirout
plot = none
INI

# refused NAME WANT... -- COMMAND: exits 1 at once (within 10 s), with one
# line on stderr holding every WANT, and the output directory as it was.
refused() {
	name=$1; shift
	wants=""
	while [ "$1" != "--" ]; do wants="$wants$1
"; shift; done
	shift
	mkdir -p "$tmp/out" && echo sentinel > "$tmp/out/daily.csv"
	t0=$(date +%s)
	"$@" > "$tmp/stdout" 2> "$tmp/stderr"
	rc=$? t=$(($(date +%s) - t0))
	good=0
	[ "$rc" -eq 1 ] && [ "$(wc -l < "$tmp/stderr")" -eq 1 ] && [ "$t" -le 10 ] &&
		grep -qx sentinel "$tmp/out/daily.csv" &&
		[ -z "$(ls -A "$tmp/out" | grep -v '^daily.csv$')" ] || good=1
	printf '%s' "$wants" | while IFS= read -r w; do
		grep -qF -- "$w" "$tmp/stderr" || exit 1
	done || good=1
	ok $good "$name"
	[ $good -eq 0 ] || { echo "# exit $rc after $t s; wanted: $(printf '%s' "$wants" | tr '\n' '|')"; diag "$tmp/stderr"; }
}

# Under an address-space limit of 4 GiB: a run that tried to allocate
# what these need would fail (or be killed) without touching the machine.
limited() { (ulimit -v 4194304 && exec "$@"); }

# ---- refused at once ------------------------------------------------------
for cmd in run check; do
	refused "$cmd: a run that does not fit the host is refused, naming what needs the memory" \
		"weft: model seir needs " " bytes (" ") of host memory (" \
		"for agents ([seir] agents = 20000)" \
		"WEFT_MEM_AVAILABLE is 1000000 bytes (976.6 KiB)" -- \
		env WEFT_MEM_AVAILABLE=1000000 "$weft" $cmd "$tmp/seir.ini"
	refused "$cmd: 1e8 agents are refused at once, not OOM-killed" \
		"weft: model seir needs " "[seir] agents = 100000000" -- \
		limited "$weft" $cmd "$tmp/seir.ini" --set seir.agents=100000000
	# (4e8 steps, the issue's case, are now refused by the model's own
	# limit on the series' rows, below; 5e7 fit that limit, not memory.)
	refused "$cmd: 5e7 steps with interventions are refused at once" \
		"weft: model seir needs " \
		"for the daily series ([simulation] steps = 50000000)" \
		"for the parameters and beta table ([seir] interventions" -- \
		limited "$weft" $cmd "$tmp/seir.ini" --set simulation.steps=50000000 \
		--set "seir.interventions=all 1-49999999 0.5"
	refused "$cmd: 4e8 steps are refused at once, by the series' limit" \
		"weft: model seir: 400000000 steps is more days than the series can hold" -- \
		limited "$weft" $cmd "$tmp/seir.ini" --set simulation.steps=400000000 \
		--set "seir.interventions=all 1-399999999 0.5"
	refused "$cmd: the template's largest grid is refused at once" \
		"weft: model sir needs " "[sir] width = 32768, height = 32768" -- \
		limited "$weft" $cmd "$tmp/sir.ini" --set sir.width=32768 --set sir.height=32768
	refused "$cmd: the address-space limit counts as what the host has" \
		"what the address-space limit (ulimit -v) leaves is " -- \
		limited "$weft" $cmd "$tmp/seir.ini" --set seir.agents=100000000
	refused "$cmd: a population file that is /dev/zero is refused before it is read" \
		"weft: model seir: the agents file '/dev/zero' is a character device, not a regular file" -- \
		limited "$weft" $cmd "$tmp/seir.ini" --set seir.population=csv \
		--set seir.agents_file=/dev/zero
	refused "$cmd: WEFT_MEM_AVAILABLE must be a number of bytes" \
		"weft: WEFT_MEM_AVAILABLE=lots is not a number of bytes" -- \
		env WEFT_MEM_AVAILABLE=lots "$weft" $cmd "$tmp/seir.ini"
done

# 5e7 CartPole environments: 2.4 GB of host memory and 7 GB of device
# memory: the host's alone fit, the two together do not. Whether the run
# fits depends on its device; weft check asks it, as weft run does, and
# both refuse on OpenMP.
for cmd in run check; do
	refused "$cmd: 5e7 CartPole environments are refused at once on a backend in host memory" \
		"weft: model cartpole needs " "[cartpole] envs = 50000000" \
		"(backend openmp keeps its buffers in host memory)" -- \
		limited "$weft" $cmd "$tmp/cartpole.ini" --set cartpole.envs=50000000
done

# ---- weft check gives weft run's verdict ----------------------------------
# SEIR's host bytes fit WEFT_MEM_AVAILABLE, its host and device bytes
# together do not: weft run refuses it on OpenMP, and weft check (which
# said ok, with a note) refuses it with the same line.
"$weft" check "$tmp/seir.ini" > "$tmp/check" 2>&1
mid=$(sed -n 's/.*host memory (\([0-9]*\) bytes), .*device memory.*/\1/p; s/.*(\([0-9]*\) bytes) on a backend whose device memory is host memory$/\1/p' "$tmp/check" |
	awk 'NR == 1 { h = $1 } NR == 2 { printf "%d\n", (h + $1) / 2 }')
for cmd in run check; do
	refused "$cmd: host bytes that fit, with the device's in host memory that do not, are refused" \
		"weft: model seir needs " "WEFT_MEM_AVAILABLE is ${mid:-?} bytes" \
		"(backend openmp keeps its buffers in host memory)" -- \
		env WEFT_MEM_AVAILABLE="${mid:-0}" "$weft" $cmd "$tmp/seir.ini"
	cp "$tmp/stderr" "$tmp/verdict.$cmd"
done
cmp -s "$tmp/verdict.run" "$tmp/verdict.check"
ok $? "check and run refuse it with the same message"
# Where the run's backend cannot be loaded, check cannot know its device:
# ok, noting that a backend in host memory refuses it.
WEFT_MEM_AVAILABLE="${mid:-0}" "$weft" check "$tmp/seir.ini" --set backend.name=nosuch > "$tmp/check" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q "note .*the run needs more than WEFT_MEM_AVAILABLE with its device buffers in host memory" "$tmp/check"
ok $? "check: without the run's backend here, the verdict is the run's, noted (exit $rc)"

# ---- the cgroups' limits ---------------------------------------------------
# A fake /proc/self/cgroup and /sys/fs/cgroup (WEFT_TEST_CGROUP_ROOT): the
# limit of the process's cgroup, or of one above it, in cgroup v1 (the
# memory controller's memory.limit_in_bytes less memory.usage_in_bytes)
# as in cgroup v2 (memory.max less memory.current), refuses the run and
# is named. 4 MiB less 1 MiB used leaves 3 MiB; SEIR needs 5.5 MiB. What
# is used is the working set, as docker and the kubelet count it: less the
# inactive page cache of memory.stat (v2's inactive_file, v1's
# total_inactive_file, which counts the cgroups below as its usage does).
cg="$tmp/cg"
# cgroup FILE... : a fresh tree; /proc/self/cgroup from standard input.
cgroup() {
	rm -rf "$cg" && mkdir -p "$cg/proc/self" "$cg/sys/fs/cgroup/memory" &&
		cat > "$cg/proc/self/cgroup"
}
# memstat DIR INACTIVE: memory.stat of $cg/sys/fs/cgroup/DIR, INACTIVE bytes
# of its use inactive page cache, with the keys around it that must not be
# taken for it (v1's own inactive_file, the anonymous and active lists).
memstat() {
	cat > "$cg/sys/fs/cgroup/$1/memory.stat" <<STAT
anon 1000000000
file 1000000000
active_anon 1000000000
inactive_anon 1000000000
active_file 1000000000
inactive_file_x 1000000000
STAT
	case $1 in
	memory*) printf 'inactive_file 1000000000\ntotal_active_file 1000000000\ntotal_inactive_file %s\n' "$2" ;;
	*) printf 'inactive_file %s\n' "$2" ;;
	esac >> "$cg/sys/fs/cgroup/$1/memory.stat"
}
# limit DIR FILE USAGEFILE [LIMIT USED INACTIVE]: 4 MiB, 1 MiB of it used,
# none of that inactive page cache, in $cg/sys/fs/cgroup/DIR.
limit() {
	mkdir -p "$cg/sys/fs/cgroup/$1" && echo "${4:-4194304}" > "$cg/sys/fs/cgroup/$1/$2" &&
		echo "${5:-1048576}" > "$cg/sys/fs/cgroup/$1/$3" && memstat "$1" "${6:-0}"
}
leaves=", 4.0 MiB, leaves is 3145728 bytes (3.0 MiB)"
if hooks "cgroup v1: the memory controller's limit is read" \
	"cgroup v1: a limit of 9223372036854771712 is none" \
	"cgroup v1: a limit above the process's cgroup (a container's root) is read" \
	"cgroup v2: a parent's memory.max lower than the cgroup's is read" \
	"cgroup v2: a cgroup whose use is mostly inactive page cache still fits" \
	"cgroup v1: a cgroup whose use is mostly inactive page cache still fits"; then
	printf '5:cpu,cpuacct:/x\n4:memory:/x\n0::/\n' | cgroup
	limit memory/x memory.limit_in_bytes memory.usage_in_bytes
	echo 9223372036854771712 > "$cg/sys/fs/cgroup/memory/memory.limit_in_bytes"
	for cmd in run check; do
		refused "cgroup v1: the memory controller's limit is read ($cmd)" \
			"weft: model seir needs " \
			"what the cgroup v1 limit of $cg/sys/fs/cgroup/memory/x/memory.limit_in_bytes$leaves" -- \
			env WEFT_TEST_CGROUP_ROOT="$cg" "$weft" $cmd "$tmp/seir.ini"
	done

	echo 9223372036854771712 > "$cg/sys/fs/cgroup/memory/x/memory.limit_in_bytes"
	WEFT_TEST_CGROUP_ROOT="$cg" WEFT_MEM_AVAILABLE=1000000000000 "$weft" check "$tmp/seir.ini" > "$tmp/check" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] && grep -q "^ *WEFT_MEM_AVAILABLE: " "$tmp/check" && ! grep -q cgroup "$tmp/check"
	ok $? "cgroup v1: a limit of 9223372036854771712 is none (exit $rc)"

	printf '4:memory:/docker/abc\n' | cgroup
	limit memory memory.limit_in_bytes memory.usage_in_bytes
	refused "cgroup v1: a limit above the process's cgroup (a container's root) is read" \
		"what the cgroup v1 limit of $cg/sys/fs/cgroup/memory/memory.limit_in_bytes$leaves" -- \
		env WEFT_TEST_CGROUP_ROOT="$cg" "$weft" check "$tmp/seir.ini"

	printf '0::/a/b\n' | cgroup
	limit a memory.max memory.current
	mkdir -p "$cg/sys/fs/cgroup/a/b" && echo max > "$cg/sys/fs/cgroup/a/b/memory.max" &&
		echo 1048576 > "$cg/sys/fs/cgroup/a/b/memory.current"
	refused "cgroup v2: a parent's memory.max lower than the cgroup's is read" \
		"what the cgroup v2 limit of $cg/sys/fs/cgroup/a/memory.max$leaves" -- \
		env WEFT_TEST_CGROUP_ROOT="$cg" "$weft" check "$tmp/seir.ini"

	# 64 MiB, 63 MiB of it used, 62 MiB of that inactive page cache (files
	# read earlier, which the kernel reclaims): 63 MiB are left, and SEIR's
	# 5.5 MiB fit, in v2 as in v1 (counting the cache, 1 MiB was left).
	for v in 2 1; do
		if [ $v -eq 2 ]; then
			printf '0::/a\n' | cgroup
			limit a memory.max memory.current 67108864 66060288 65011712
		else
			printf '4:memory:/x\n' | cgroup
			limit memory/x memory.limit_in_bytes memory.usage_in_bytes 67108864 66060288 65011712
		fi
		WEFT_TEST_CGROUP_ROOT="$cg" WEFT_MEM_AVAILABLE=1000000000000 "$weft" check "$tmp/seir.ini" > "$tmp/check" 2>&1
		rc=$?
		[ "$rc" -eq 0 ] && grep -q "what the cgroup v$v limit of .*, 64.0 MiB, leaves: .*66060288" "$tmp/check"
		ok $? "cgroup v$v: a cgroup whose use is mostly inactive page cache still fits (exit $rc)"
		[ $? -eq 0 ] || diag "$tmp/check"
	done
	# (A run these let through, before cgroup v1 was read, wrote outputs.)
	rm -rf "$tmp/out"
fi

# The device is checked once it is open: weft check cannot, weft run does.
refused "run: a run that does not fit the device is refused once it is open" \
	"weft: model seir needs " ") of device memory (" "for contacts ([seir] household_sizes" \
	"backend openmp's device: WEFT_DEVICE_MEM_AVAILABLE is 100000 bytes (97.7 KiB)" -- \
	env WEFT_DEVICE_MEM_AVAILABLE=100000 "$weft" run "$tmp/seir.ini"
WEFT_DEVICE_MEM_AVAILABLE=100000 "$weft" check "$tmp/seir.ini" > /dev/null 2>&1
ok $? "check: the device is not checked before it is open"

# ---- what weft check reports ---------------------------------------------
"$weft" check "$tmp/seir.ini" > "$tmp/check" 2>&1
grep -Eq '^  memory +[0-9.]+ MiB of host memory \([0-9]+ bytes\), [0-9.]+ MiB of device memory \([0-9]+ bytes\)$' "$tmp/check" &&
	grep -q 'for agents (\[seir\] agents = 20000), ' "$tmp/check" &&
	grep -Eq '\(([0-9]+) bytes\) on a backend whose device memory is host memory$' "$tmp/check" &&
	grep -Eq '^ +(MemAvailable|what .* leaves): ' "$tmp/check"
ok $? "check reports the estimate, its parts and what the host has"
[ $? -eq 0 ] || diag "$tmp/check"

# ---- the estimates against what runs use ----------------------------------
# est INI ARGS...: host, device and shared (device in host memory) bytes
# of the estimate, from weft check.
est() {
	"$weft" check "$@" > "$tmp/est" 2>&1
	sed -n 's/.*host memory (\([0-9]*\) bytes), .*device memory (\([0-9]*\) bytes)$/\1 \2/p' "$tmp/est"
	sed -n 's/.*(\([0-9]*\) bytes) on a backend whose device memory is host memory$/\1/p' "$tmp/est"
}
# within A B: A within 25 % of B.
# The estimate a within 25 % under or 35 % over the measure b: over is the
# safe side (a run near the limit is refused rather than OOM-killed); the
# series of a long run, counted in full on the host and on the device,
# is where SEIR's estimate is highest (30 % with issue 17's columns).
within() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(b > 0 && a >= 0.75 * b && a <= 1.35 * b) }'; }

# The process without the model: a tiny run's peak.
"$maxrss" "$tmp/rss0" "$weft" run --quiet "$tmp/seir.ini" --set seir.agents=1000 > /dev/null 2>&1
base=$(($(cat "$tmp/rss0") * 1024))

# Population files of 300000 agents, households listed together,
# schools and workplaces at random, and 100000 edges.
# (Sizes are kept to a few hundred MB and a few seconds each: the machine
# running the suite may be small and shared.)
awk 'BEGIN { srand(5); print "id,age,household,school,work"; h = 0; left = 0
	for (i = 0; i < 300000; i++) {
		if (left == 0) { h++; left = 1 + int(rand() * 5) } left--
		age = int(rand() * 90); s = ""; w = ""
		if (age >= 6 && age <= 21) s = int(rand() * 1500)
		if (age >= 22 && age <= 64) w = int(rand() * 12000)
		print 700000 + i "," age "," h "," s "," w } }' > "$tmp/agents.csv"
awk 'BEGIN { srand(6); print "source,target,layer"
	for (k = 0; k < 100000; k++) { a = int(rand() * 300000); b = int(rand() * 300000)
		if (a != b) print 700000 + a "," 700000 + b ",c" } }' > "$tmp/edges.csv"

# measured WHAT INI PICK ARGS...: a run of INI with ARGS under maxrss;
# the device bytes it reports (PICK, a sed script printing them) and its
# peak resident memory (less the tiny run's) against the estimate.
measured() {
	what=$1 ini=$2 pick=$3; shift 3
	set -- $(est "$ini" "$@") "$@"
	dev=$2 shared=$3; shift 3
	limited "$maxrss" "$tmp/rss" "$weft" run --stats "$ini" "$@" > "$tmp/stdout" 2> "$tmp/stderr"
	rc=$?
	rss=$(($(cat "$tmp/rss" 2> /dev/null || echo 0) * 1024 - base))
	got=$(sed -n "$pick" "$tmp/stdout")
	[ "$rc" -eq 0 ] && within "$dev" "${got:-0}" && within "$shared" "$rss"
	ok $? "$what: the estimate is within -25 %/+35 % of the device memory reported ($dev for $got) and of the peak resident memory ($shared for $rss)"
	[ "$rc" -eq 0 ] || diag "$tmp/stderr"
}
# SEIR's summary line; CartPole's counters (its device memory is the
# pool's peak).
seir='s/^  device memory *\([0-9]*\) bytes.*/\1/p'
pool='s/^  allocations .* peak \([0-9]*\) bytes)$/\1/p'
measured "SEIR, 500000 agents" "$tmp/seir.ini" "$seir" --set seir.agents=500000
measured "SEIR, 1000000 agents, community daily" "$tmp/seir.ini" "$seir" \
	--set seir.agents=1000000 --set seir.community_daily=true
measured "SEIR, 500000 agents, random" "$tmp/seir.ini" "$seir" \
	--set seir.agents=500000 --set seir.population=random
measured "SEIR, 100000 agents, 200000 days" "$tmp/seir.ini" "$seir" \
	--set seir.agents=100000 --set simulation.steps=200000 --set output.every=1000
measured "SEIR, 300000 agents from CSV files" "$tmp/seir.ini" "$seir" \
	--set seir.population=csv --set seir.agents=300000 \
	--set "seir.agents_file=$tmp/agents.csv" --set "seir.edges_file=$tmp/edges.csv" \
	--set seir.community_contacts=5
measured "CartPole, 500000 environments" "$tmp/cartpole.ini" "$pool" --set cartpole.envs=500000
measured "CartPole, 2000000 environments" "$tmp/cartpole.ini" "$pool" --set cartpole.envs=2000000

tap_done
