#!/bin/sh
# tests/core/test-commit.sh - a run's outputs are one set. Killed at any instant
# (SIGKILL at random times, and at each point of the commit through the test
# hook WEFT_TEST_COMMIT_KILL, with the directory exchange and with the two
# renames of filesystems that cannot exchange), the output directory holds
# the old set or the new one, complete, never a mix; the next run puts back
# or removes what the killed one left. A second run into the directory is
# refused, naming the first's pid; files weft did not write are carried over;
# files of the old set that the new one lacks go; a subdirectory is refused.
# Killed while a replaced checkpoint is being removed (WEFT_TEST_REMOVE_KILL),
# the next run removes what is left. A mount point, a read-only directory
# or parent are refused naming the directory; no run leaves its lock file.
set -u
weft="$WEFT_BUILDDIR/cli/weft"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-commit-XXXXXX")
out="$tmp/out"
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/run.ini" <<INI
[simulation]
model = seir
steps = 30
[backend]
name = openmp
threads = 1
[output]
directory = $out
plot = none
[seir]
agents = 3000
INI

# The set A (seed 1) or B (seed 2), or a failure after the output directory
# was prepared (what a next run does first: put back, remove leftovers).
run_a() { ("$weft" run --quiet "$tmp/run.ini" --set simulation.seed=1 "$@") > /dev/null 2>&1; }
run_b() { ("$weft" run --quiet "$tmp/run.ini" --set simulation.seed=2 "$@") > /dev/null 2>&1; }
run_fails() {
	WEFT_DEVICE_MEM_AVAILABLE=1 "$weft" run --quiet "$tmp/run.ini" \
		> /dev/null 2> "$tmp/fails"
}

# What a directory holds: each file (hidden ones too) and its checksum.
signature() { (cd "$1" 2> /dev/null && for f in $(ls -A | sort); do echo "$f $(cksum < "$f")"; done); }
leftovers() { ls -A "$tmp" | grep '^\.out\.weft-\(new\|old\)-'; }

# The two sets, each with notes.txt, a file weft did not write.
mkdir -p "$out" && echo "my notes" > "$out/notes.txt"
run_b; signature "$out" > "$tmp/sig-b"
run_a; signature "$out" > "$tmp/sig-a"
grep -q '^daily.csv ' "$tmp/sig-a" && grep -q '^notes.txt ' "$tmp/sig-a" && grep -q '^\.weft-outputs ' "$tmp/sig-a" &&
	! cmp -s "$tmp/sig-a" "$tmp/sig-b"
ok $? "two runs give two different complete sets, each with the file weft did not write"
ino=$(stat -c %i "$out/notes.txt")
run_b
test "$(stat -c %i "$out/notes.txt")" = "$ino" && grep -qx "my notes" "$out/notes.txt"
ok $? "a file weft did not write is carried over: the same file, not a copy"

# is_a_set [SUFFIX]: the directory holds exactly set A or set B (of the
# signatures sig-aSUFFIX, sig-bSUFFIX).
is_a_set() {
	signature "$out" > "$tmp/sig"
	cmp -s "$tmp/sig" "$tmp/sig-a${1:-}" || cmp -s "$tmp/sig" "$tmp/sig-b${1:-}"
}

# ---- killed at each point of the commit ------------------------------------
for how in exchange rename; do
	for k in 1 2 3 4 5 6 7; do
		hooks "$how, killed at commit point $k" || continue
		run_a
		if [ "$how" = rename ]; then
			WEFT_TEST_COMMIT_RENAME=1 WEFT_TEST_COMMIT_KILL=$k run_b
		else
			WEFT_TEST_COMMIT_KILL=$k run_b
		fi
		rc=$?
		if [ -d "$out" ]; then
			is_a_set
			st=$?
		else
			# Only between the two renames: the next run puts the
			# new set back.
			[ "$how" = rename ] && [ "$k" -eq 4 ]
			st=$?
		fi
		run_fails
		is_a_set && [ "$st" -eq 0 ] && [ "$rc" -eq 137 ] && [ -z "$(leftovers)" ]
		ok $? "$how, killed at commit point $k: the old set or the new one, never a mix; the next run leaves one set and no leftover"
		[ "$st" -eq 0 ] || { diag "$tmp/sig"; ls -A "$tmp" | diag; }
	done
done
if hooks "a commit cut between its two renames"; then
	WEFT_TEST_COMMIT_RENAME=1 WEFT_TEST_COMMIT_KILL=4 run_b
	run_fails
	signature "$out" | cmp -s "$tmp/sig-b" -
	ok $? "a commit cut between its two renames: the next run puts the complete new set back"
fi

# ---- killed at random instants -------------------------------------------
# Longer runs (60 days), so that the kills fall in every phase.
long="--set simulation.steps=60 --set seir.agents=20000"
run_b $long; signature "$out" > "$tmp/sig-b60"
run_a $long; signature "$out" > "$tmp/sig-a60"
mixed=0
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
	delay=$(awk -v i="$i" 'BEGIN { srand(i); printf "%.3f", rand() * 0.6 }')
	if [ $((i % 2)) -eq 0 ]; then seed=1; else seed=2; fi
	"$weft" run --quiet "$tmp/run.ini" --set simulation.seed=$seed \
		$long > /dev/null 2>&1 &
	pid=$!
	sleep "$delay"
	kill -KILL "$pid" 2> /dev/null
	wait "$pid" 2> /dev/null
	is_a_set 60 || { mixed=$((mixed + 1)); diag "$tmp/sig"; }
done
ok "$mixed" "16 runs killed at random instants (0 to 0.6 s): each left set A or set B"
run_fails
ok "$(test -z "$(leftovers)"; echo $?)" "the next run removes what they left"

# ---- two runs into one directory -----------------------------------------
"$weft" run --quiet "$tmp/run.ini" --set seir.agents=400000 \
	--set simulation.steps=100000 --set output.every=1000 > /dev/null 2> "$tmp/first" &
first=$!
i=0
while [ -z "$(leftovers)" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
run_a
rc=$?
"$weft" run --quiet "$tmp/run.ini" > /dev/null 2> "$tmp/second"
grep -q "^weft: output directory $out is in use by another run (pid $first, which holds $tmp/.out.weft-lock)" "$tmp/second" &&
	[ "$rc" -eq 1 ] && [ "$(wc -l < "$tmp/second")" -eq 1 ]
ok $? "a second run into the directory is refused, naming the first's pid"
diag "$tmp/second"
kill -TERM "$first"
wait "$first"
rc=$?
is_a_set 60 && [ "$rc" -eq 143 ]
ok $? "the first, ended by SIGTERM (exit $rc), replaced nothing"

# ---- what the set holds ----------------------------------------------------
run_a
run_a --set output.summary=false
[ ! -e "$out/summary.txt" ] && [ -e "$out/notes.txt" ] && [ -e "$out/daily.csv" ]
ok $? "a file of the old set that the new set lacks is gone (summary.txt), the others are there"
touch "$out/.daily.csv.Ab12Cd"
run_a
[ ! -e "$out/.daily.csv.Ab12Cd" ]
ok $? "an older weft's temporary file (.daily.csv.XXXXXX) is removed"
mkdir "$out/sub"
"$weft" check "$tmp/run.ini" > /dev/null 2> "$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && grep -q "output directory $out holds a directory, 'sub', that weft did not write" "$tmp/err"
ok $? "a subdirectory in the output directory is refused by check and run (exit $rc)"
rmdir "$out/sub"
(cd "$out" && "$weft" check "$tmp/run.ini" --set output.directory=.) > /dev/null 2> "$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && grep -q "\[output\] directory = \.: it is the current directory" "$tmp/err"
ok $? "the current directory is refused as an output directory (exit $rc)"

# A configuration that writes nothing never touches the directory.
rm -rf "$tmp/untouched"
"$weft" run --quiet "$tmp/run.ini" --set "output.directory=$tmp/untouched" \
	--set output.csv=false --set output.summary=false > /dev/null 2>&1
ok "$(test ! -e "$tmp/untouched" && test ! -e "$tmp/.untouched.weft-lock"; echo $?)" \
	"a run that writes no file creates, locks and replaces nothing"

# ---- the lock file goes with the run ---------------------------------------
run_a
ok "$(test ! -e "$tmp/.out.weft-lock"; echo $?)" "a run removes its lock file (.out.weft-lock) when it ends"
run_fails
ok "$(test ! -e "$tmp/.out.weft-lock"; echo $?)" "so does a run that fails after locking"
# Runs started together into one directory: each completes or is refused
# as in use; none is left holding a lock file that another locked.
pids=""
for i in 1 2 3 4 5 6; do
	("$weft" run --quiet "$tmp/run.ini" --set simulation.seed=1 > /dev/null 2> "$tmp/race$i"; echo $? > "$tmp/race$i.rc") &
	pids="$pids $!"
done
wait $pids
bad=0
for i in 1 2 3 4 5 6; do
	rc=$(cat "$tmp/race$i.rc")
	[ "$rc" -eq 0 ] || { [ "$rc" -eq 1 ] && grep -q "is in use by another run" "$tmp/race$i"; } ||
		{ bad=$((bad + 1)); diag "$tmp/race$i"; }
done
is_a_set && [ "$bad" -eq 0 ] && [ -z "$(leftovers)" ] && [ ! -e "$tmp/.out.weft-lock" ]
ok $? "6 runs started together: each completed or was refused as in use; one set, no leftover, no lock file"

# ---- killed while a replaced checkpoint is being removed -------------------
# Checkpoints every 10 steps of 30: the second replaces the first, whose
# files (the manifest .weft-outputs, checkpoint.txt, state.bin,
# output.daily.csv) go one by one; killed after the K-th, the next run
# removes the rest.
ck="--set checkpoint.every=10"
ckleft() { ls -A "$tmp" | grep '^\.out\.checkpoint\.weft-\(new\|old\)-'; }
for k in 1 2 3; do
	hooks "killed after removing $k file(s) of a replaced checkpoint" || continue
	rm -rf "$out.checkpoint"
	WEFT_TEST_REMOVE_KILL=$k run_a $ck
	rc=$?
	left=$(ckleft)
	run_a $ck
	rc2=$?
	[ "$rc" -eq 137 ] && [ -n "$left" ] && [ "$rc2" -eq 0 ] && [ -z "$(ckleft)" ] &&
		[ -z "$(leftovers)" ] && grep -q '^step 20 ' "$out.checkpoint/checkpoint.txt" &&
		[ ! -e "$tmp/.out.checkpoint.weft-lock" ]
	st=$?
	ok $st "killed after removing $k file(s) of a replaced checkpoint (exit $rc, left: $(echo $left)): the next run removes the rest and writes its own"
	[ "$st" -eq 0 ] || ls -A "$tmp" | diag
done
if hooks "a replaced checkpoint left without its manifest (an older weft's removal)"; then
	WEFT_TEST_COMMIT_KILL=6 run_a $ck
	for d in $(ckleft); do rm -f "$tmp/$d/.weft-outputs"; done
	left=$(ckleft)
	run_a $ck
	[ -n "$left" ] && [ -z "$(ckleft)" ] && grep -q '^step 20 ' "$out.checkpoint/checkpoint.txt"
	st=$?
	ok $st "a replaced checkpoint left without its manifest (an older weft's removal: $(echo $left)): the next run removes it"
	[ "$st" -eq 0 ] || ls -A "$tmp" | diag
fi
rm -rf "$out.checkpoint"

# ---- a mount point -----------------------------------------------------------
# weft check on a mount point the system has (its device is not its
# parent's); where mounting is allowed (root, a mount namespace), a run
# into a tmpfs, and into a bind mount of the same filesystem (seen only
# when the exchange fails, and then not told from a busy directory).
mp=""
for d in /dev/shm /run /proc /sys /dev; do
	if [ -d "$d" ] && [ "$(stat -c %d "$d")" != "$(stat -c %d "$d/..")" ]; then mp=$d; break; fi
done
mounted="is a mount point: weft replaces the directory in one rename, which a mount point cannot take; use a directory inside it, e.g."
if [ -n "$mp" ]; then
	"$weft" check "$tmp/run.ini" --set "output.directory=$mp" > /dev/null 2> "$tmp/err"
	rc=$?
	[ "$rc" -eq 1 ] && grep -qF "[output] directory = $mp: output directory $mp $mounted $mp/run" "$tmp/err"
	ok $? "weft check: the mount point $mp is refused, saying why and what to do (exit $rc)"
	diag "$tmp/err"
else
	skip "weft check refuses a mount point" "no mount point found"
fi
mkdir -p "$tmp/mnt" "$tmp/bind" "$tmp/bound"
if command -v unshare > /dev/null && unshare -m true 2> /dev/null; then
	unshare -m sh -c 'mount -t tmpfs none "$1/mnt" && mount --bind "$1/bound" "$1/bind" || exit 77
		"$2" run --quiet "$1/run.ini" --set "output.directory=$1/mnt" > /dev/null 2> "$1/err-mnt"
		echo $? > "$1/rc-mnt"
		"$2" run --quiet "$1/run.ini" --set "output.directory=$1/bind" > /dev/null 2> "$1/err-bind"
		echo $? > "$1/rc-bind"
		"$2" run --quiet "$1/run.ini" --set "output.directory=$1/mnt/run" > /dev/null 2>&1
		echo $? > "$1/rc-in"; ls -A "$1/mnt" > "$1/ls-mnt"' sh "$tmp" "$weft"
	if [ $? -eq 77 ]; then
		skip "a run into a mount point" "cannot mount here"
	else
		[ "$(cat "$tmp/rc-mnt")" -eq 1 ] && grep -qF "output directory $tmp/mnt $mounted $tmp/mnt/run" "$tmp/err-mnt" &&
			[ "$(cat "$tmp/ls-mnt")" = run ] && [ "$(cat "$tmp/rc-in")" -eq 0 ]
		ok $? "a run into a mount point (tmpfs) is refused before it starts; one into a directory inside it runs"
		diag "$tmp/err-mnt"
		# A bind mount of the same filesystem has its parent's device:
		# the EBUSY of the exchange may be a mount point or a directory
		# some process holds busy, and is said as either.
		[ "$(cat "$tmp/rc-bind")" -eq 1 ] && [ "$(wc -l < "$tmp/err-bind")" -eq 1 ] &&
			grep -qF "output directory $tmp/bind is busy or a mount point (cannot exchange" "$tmp/err-bind" &&
			grep -qF "Device or resource busy): weft replaces the directory in one rename, which a mount point cannot take; if it is one, use a directory inside it, e.g. $tmp/bind/run; nothing was replaced" "$tmp/err-bind" &&
			! grep -qF "$mounted" "$tmp/err-bind" &&
			[ -z "$(ls -A "$tmp" | grep '^\.bind\.weft-')" ]
		ok $? "a run into a bind mount (EBUSY at the exchange, the parent's device) says it is busy or a mount point, and what to do"
		diag "$tmp/err-bind"
	fi
else
	skip "a run into a mount point" "no mount namespace here (unshare -m)"
fi

# ---- read-only directories ---------------------------------------------------
# As a user that permissions bind (root is not: then as nobody, through
# setpriv, where it can).
as_user=""
if [ "$(id -u)" -ne 0 ]; then
	as_user=" "
elif command -v setpriv > /dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups true 2> /dev/null; then
	as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi
if [ -n "$as_user" ]; then
	chmod 755 "$tmp"
	mkdir -m 777 "$tmp/w"
	mkdir -m 555 "$tmp/w/ro" "$tmp/w/rop"
	$as_user "$weft" run --quiet "$tmp/run.ini" --set "output.directory=$tmp/w/ro" > /dev/null 2> "$tmp/err"
	rc=$?
	[ "$rc" -eq 1 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] &&
		grep -qF "[output] directory = $tmp/w/ro: output directory $tmp/w/ro is not writable (Permission denied)" "$tmp/err" &&
		! grep -q "weft-new" "$tmp/err" && [ -z "$(ls -A "$tmp/w" | grep '^\.')" ]
	ok $? "a read-only output directory: refused naming it and the key, not a hidden directory (exit $rc)"
	diag "$tmp/err"
	$as_user "$weft" run --quiet "$tmp/run.ini" --set "output.directory=$tmp/w/rop/out" > /dev/null 2> "$tmp/err"
	rc=$?
	[ "$rc" -eq 1 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] &&
		grep -qF "[output] directory = $tmp/w/rop/out: cannot write in $tmp/w/rop (Permission denied)" "$tmp/err" &&
		grep -qF "output directory $tmp/w/rop/out" "$tmp/err"
	ok $? "a read-only parent: refused naming it, the output directory and the key (exit $rc)"
	diag "$tmp/err"
	chmod 755 "$tmp/w/ro" "$tmp/w/rop"
else
	skip "read-only output directories" "root, and no setpriv to run as another user"
fi

tap_done
