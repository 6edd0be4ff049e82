#!/bin/sh
# tests/core/test-checkpoint-cli.sh - checkpoints through the weft command
# (`[checkpoint] every`, `weft run --resume`, `weft check --resume`): for
# SEIR, CartPole and the template (SIR), a run killed (SIGKILL) while it
# writes its third checkpoint leaves the second whole, and resuming from it
# gives every output file of an uninterrupted run byte for byte, on OpenMP
# with 1 and 2 threads, on OpenCL, and from one backend to the other; kill
# -9 at random instants leaves no checkpoint or a whole one; SIGTERM
# between steps writes one at the step reached and exits 143; refusals
# exit 1 with one line; a bad --resume is a usage error. The refusals'
# reasons one by one are tests/core/test-checkpoint.c's.
set -u
weft="$WEFT_BUILDDIR/cli/weft"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-checkpoint-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT
WEFT_PLUGIN_PATH="$WEFT_PLUGIN_PATH:$WEFT_BUILDDIR/plugins/opencl/.libs"
export WEFT_PLUGIN_PATH

cd "$tmp" || exit 1
cat > seir.ini << 'INI'
[simulation]
model = seir
steps = 48
[backend]
name = openmp
[output]
every = 3
plot = none
[seir]
population = random
agents = 4000
beta = 0.4
vaccine_doses = 40
isolation_prob = 0.3
interventions = all 12-25 0.5
[checkpoint]
every = 14
INI
cat > cartpole.ini << 'INI'
[simulation]
model = cartpole
steps = 200
[backend]
name = openmp
[output]
every = 25
plot = none
[cartpole]
envs = 500
policy = random
[checkpoint]
every = 60
INI
cat > sir.ini << 'INI'
[simulation]
model = sir
steps = 50
[backend]
name = openmp
[output]
every = 4
plot = none
[sir]
width = 24
height = 20
beta = 0.5
[checkpoint]
every = 12
INI

opencl=no
"$weft" backends 2> /dev/null | grep -q '^opencl *available' && opencl=yes

# same A B: the files of A and B are the same, byte for byte.
same() {
	[ -n "$(ls "$1")" ] && diff -r "$1" "$2" > diff.out 2>&1
}

# full MODEL: the uninterrupted run every resumed one is compared with.
full() {
	"$weft" run "$1.ini" --quiet --set output.directory="$1-full" \
		--set checkpoint.every=0 --set backend.name=openmp \
		--set backend.threads=1 > /dev/null 2> err
	ok $? "$1 runs uninterrupted on openmp, 1 thread"
	diag err
}

# on BACKEND THREADS: how messages name where a run ran.
on() { if [ "$2" = 0 ]; then echo "$1"; else echo "$1, $2 thread(s)"; fi; }

# resumed MODEL STEP A TA B TB: killed by SIGKILL while it writes its third
# checkpoint on backend A with TA threads, the second (at STEP) is left
# whole; resumed on B with TB threads, every output is the uninterrupted
# run's.
resumed() {
	tag="$1-$3$4-$5$6"
	if ! hooks "$1 on $(on "$3" "$4"): killed in its third checkpoint" \
		"  ...resumed on $(on "$5" "$6") from step $2"; then
		# The checkpoint that the command line's tests below read.
		"$weft" run "$1.ini" --quiet --set output.directory="$tag" \
			--set backend.name="$3" --set backend.threads="$4" \
			> /dev/null 2>&1
		return 0
	fi
	WEFT_TEST_CHECKPOINT_KILL=3 "$weft" run "$1.ini" --quiet \
		--set output.directory="$tag" --set backend.name="$3" \
		--set backend.threads="$4" > /dev/null 2>&1
	rc=$?
	grep -qx "step $2 [0-9]*" "$tag.checkpoint/checkpoint.txt" 2> /dev/null &&
		[ ! -e "$tag" ] && ls -a | grep -q "^\.$tag\.checkpoint\.weft-new-"
	ok $(($? + (rc != 137))) "$1 on $(on "$3" "$4"): killed in its third checkpoint (exit $rc): the second, at step $2, is whole; no outputs"
	"$weft" run "$1.ini" --quiet --resume "$tag.checkpoint" \
		--set output.directory="$tag" --set backend.name="$5" \
		--set backend.threads="$6" > out 2> err &&
		grep -q "resumed  *from $tag.checkpoint at step $2" out &&
		same "$1-full" "$tag" &&
		! ls -a | grep -q "^\.$tag\.checkpoint\.weft-new-"
	ok $? "  ...resumed on $(on "$5" "$6") from step $2: every output of the uninterrupted run byte for byte ($(ls "$1-full" | tr '\n' ' '))"
	diag err diff.out
}

full seir
full cartpole
full sir
resumed seir 28 openmp 1 openmp 1
resumed seir 28 openmp 1 openmp 2
resumed cartpole 120 openmp 2 openmp 1
resumed sir 24 openmp 1 openmp 2
if [ "$opencl" = yes ]; then
	resumed seir 28 opencl 0 opencl 0
	resumed seir 28 openmp 2 opencl 0
	resumed seir 28 opencl 0 openmp 1
	resumed cartpole 120 openmp 1 opencl 0
	resumed cartpole 120 opencl 0 openmp 2
	resumed sir 24 opencl 0 openmp 1
	resumed sir 24 openmp 1 opencl 0
else
	skip "resumed on OpenCL, and across backends" "no OpenCL backend available"
fi

# ---- kill -9 at random instants: no checkpoint, or a whole one -------------
whole=0 broken=0
for delay in 0.05 0.1 0.2 0.3 0.4 0.6; do
	rm -rf kill kill.checkpoint
	"$weft" run sir.ini --quiet --set output.directory=kill \
		--set sir.width=128 --set sir.height=128 --set simulation.steps=400 \
		--set checkpoint.every=1 > /dev/null 2>&1 &
	pid=$!
	sleep $delay
	kill -KILL $pid 2> /dev/null
	wait $pid
	if [ -d kill.checkpoint ]; then
		if "$weft" check sir.ini --set sir.width=128 --set sir.height=128 \
			--set simulation.steps=400 --resume kill.checkpoint > /dev/null 2>> err; then
			whole=$((whole + 1))
		else
			broken=$((broken + 1))
		fi
	fi
done
[ $broken -eq 0 ] && [ $whole -gt 0 ]
ok $? "kill -9 at 6 instants of a run checkpointing every step: $whole whole checkpoints, $broken damaged"
diag err

# ---- SIGTERM between steps: a checkpoint at the step reached ---------------
set -- --set sir.width=200 --set sir.height=200 --set simulation.steps=3000 \
	--set output.every=100 --set checkpoint.every=400
"$weft" run sir.ini --quiet "$@" --set output.directory=term-full \
	--set checkpoint.every=0 > /dev/null 2> err
ok $? "a longer sir runs uninterrupted"
"$weft" run sir.ini --quiet "$@" --set output.directory=term > /dev/null 2> err &
pid=$!
i=0
while [ ! -f term.checkpoint/checkpoint.txt ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
kill -TERM $pid
wait $pid
rc=$?
step=$(sed -n 's/^step \([0-9]*\) .*/\1/p' term.checkpoint/checkpoint.txt)
[ $rc -eq 143 ] && [ "$(wc -l < err)" -le 2 ] &&
	grep -q "^weft: interrupted by SIGTERM: .*; checkpoint at step $step written to term.checkpoint ('weft run sir.ini --resume term.checkpoint' continues)" err &&
	[ "$step" -ge 400 ]
ok $? "SIGTERM between steps: exit $rc, a checkpoint at the step reached ($step), said in one line"
diag err
"$weft" run sir.ini --quiet "$@" --resume term.checkpoint \
	--set output.directory=term > /dev/null 2> err && same term-full term
ok $? "  ...resumed from it: every output of the uninterrupted run byte for byte"
diag err diff.out

# ---- the command line --------------------------------------------------------
"$weft" check seir.ini --resume seir-openmp1-openmp1.checkpoint > out 2> err &&
	grep -qx "seir.ini: ok; seir-openmp1-openmp1.checkpoint: a checkpoint at step 42 it can resume from" out
ok $? "weft check --resume: the step it would resume from"
diag out err
"$weft" check seir.ini --set seir.beta=0.07 --resume seir-openmp1-openmp1.checkpoint > out 2> err
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l < err)" -eq 1 ] &&
	grep -q "^weft: checkpoint seir-openmp1-openmp1.checkpoint was written for another configuration: \[seir\] beta is 0.07 here (--set seir.beta) and 0.4 in the checkpoint" err
ok $? "weft check --resume of another configuration: exit $rc, one line naming the key"
diag err
"$weft" run sir.ini --quiet --resume seir-openmp1-openmp1.checkpoint > out 2> err
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l < err)" -eq 1 ] && grep -q "is of model seir" err
ok $? "weft run --resume of another model's checkpoint: exit $rc, one line"
diag err
"$weft" run sir.ini --resume > out 2> err
rc=$?
[ $rc -eq 2 ] && grep -q "^weft: --resume needs a checkpoint DIR" err
ok $? "--resume without a directory: usage error, exit $rc"
diag err
"$weft" check seir.ini --set output.directory=same \
	--set checkpoint.directory=same/ck > out 2> err
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l < err)" -eq 1 ] && grep -q "lies inside" err
ok $? "weft check: a checkpoint directory inside the output directory, exit $rc"
diag err

tap_done
