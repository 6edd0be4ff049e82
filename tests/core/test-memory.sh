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
	refused "$cmd: a population file that is /dev/zero is refused at its first line" \
		"weft: model seir: /dev/zero:1: a NUL byte at column 1: a population file holds text" -- \
		limited "$weft" $cmd "$tmp/seir.ini" --set seir.population=csv \
		--set seir.agents_file=/dev/zero
	refused "$cmd: WEFT_MEM_AVAILABLE must be a number of bytes" \
		"weft: WEFT_MEM_AVAILABLE=lots is not a number of bytes" -- \
		env WEFT_MEM_AVAILABLE=lots "$weft" $cmd "$tmp/seir.ini"
done

# 5e7 CartPole environments: 2.4 GB of host memory and 7 GB of device
# memory. weft check counts the host's alone (it opens no device) and
# says that the two together do not fit; weft run, on OpenMP, refuses.
refused "run: 5e7 CartPole environments are refused at once on a backend in host memory" \
	"weft: model cartpole needs " "[cartpole] envs = 50000000" \
	"(backend openmp keeps its buffers in host memory)" -- \
	limited "$weft" run "$tmp/cartpole.ini" --set cartpole.envs=50000000
limited "$weft" check "$tmp/cartpole.ini" --set cartpole.envs=50000000 > "$tmp/check" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q "note .*the run needs more than what the address-space limit (ulimit -v) leaves with its device buffers in host memory" "$tmp/check"
ok $? "check: 5e7 CartPole environments fit the host alone, and check notes they do not with the device buffers in it (exit $rc)"

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
