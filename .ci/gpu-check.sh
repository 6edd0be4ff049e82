#!/bin/sh
# shellcheck disable=SC2317 # the steps are called as "do_$step"
# gpu-check.sh [--steps LIST] [--deadline S] [OUTDIR] - check weft on a
# GPU machine, from the kit made by .ci/gpu-prepare.sh (this script sits
# in the kit, next to the release tarball and deps/), and write one
# Markdown report.
#
# Steps (LIST is comma-separated, run in the order given; default all, in
# the order below):
#   build     unpack the tarball, configure (--with-cuda, deps/ for inih,
#             xxHash, Random123, OpenCL), make
#   test      make check (every TAP test; tests/plugins/test-cuda-*
#             included),
#             with nothing installed (the loader's tests need that)
#   conform   `weft conform` on the cuda, opencl and openmp plugins, and
#             `weft conform --model=M` for every installed model (its
#             state and outputs on each backend against OpenMP's)
#   memcheck  the cuda conformance run and a short SEIR run under
#             compute-sanitizer --tool memcheck (--leak-check full),
#             following forked children (--target-processes all);
#             WEFT_GPU_MEMCHECK_ONLY=G1,G2 limits the conformance run to
#             those groups (weft conform --only)
#   racecheck short SEIR and CartPole runs under --tool racecheck (it
#             checks __shared__ memory, which no weft kernel uses today,
#             so the conformance run is not repeated under it)
#   sanitize  memcheck and racecheck
#   agree     examples/astoria.ini on every available backend: daily.csv
#             must be identical to OpenMP's; examples/cartpole.ini: its
#             episodes.csv too; 8 Astoria runs as one batch on cuda
#             (step_replicas): each run's daily.csv and the aggregates
#             identical to OpenMP's runs one after another
#   bench     SEIR time per simulated day at 37,518 and 8,400,000 agents
#             (10 contacts each; CUDA with and without graphs, OpenMP for
#             reference), bench/cuda-bench: step() overhead with and
#             without graphs, copy bandwidth, the transmission kernel's
#             bytes per second; bench/blocks-bench on cuda against
#             bench/cub-bench.cu (NVIDIA CUB, compiled here by nvcc):
#             scan, sort and compaction of 2^25 u32; bench/cartpole-bench: CartPole env steps
#             per second on cuda and openmp (policy, host and device
#             actions, 8 to 1,048,576 environments)
#   abm       agent-based models on spaces: circles (3-D) and boids at
#             100,000 and 1,000,000 agents, time per step on cuda (and
#             openmp at 100,000 for reference), neighbour messages read
#             per second; FLAME GPU 2's published Circles figure is
#             2.12 ms per step at 1M agents on an H100 PCIe
#   replicas  bench/replicas.sh on cuda: 256 Astoria runs as one batch
#             against one after another (the measurement of
#             docs/benchmarks.md, "Batched replicas";
#             WEFT_GPU_REPLICAS="RUNS BATCH DAYS REPEATS" for another)
#   python    the Python package built against the build tree with the
#             machine's python3 (PyTorch's), and python/tests run:
#             test_cuda.py puts torch and CuPy tensors over the CUDA
#             backend's memory (DLPack) and steps with a GPU policy;
#             test_cuda_envs.py steps every environment on cuda against
#             openmp, byte for byte, and with a torch policy on the GPU
# Steps after build build first when nothing is built yet; the steps after
# test run the installed weft (make install, into the work directory).
# --deadline S: no run starts later than S seconds from now, and each
# run's time limit is cut to what is left (a lease's time is short).
#
# The report is OUTDIR/gpu-report.md (gpu-report-STEPS.md for a subset);
# OUTDIR is $OUT when set, else the current directory. Building happens in
# $WEFT_GPU_WORK (default: _gpuwork next to the kit), kept between runs.
#
# Exit status: 0 when every step passed, 1 when one failed, 2 when this
# machine has no usable GPU or toolkit (the report says which).
#
# Through the device tool (15 minutes of device time in all, machine
# starts included; 10 minutes a call): one call, the kit carried
# (carry ["_gpukit"]; it is git-ignored), the steps in order of worth,
# the logs brought back with the report:
#   WEFT_GPU_MEMCHECK_ONLY=open,alloc,transfer,step,fence,lifetime,ordering \
#   sh _gpukit/gpu-check.sh --deadline 480 \
#     --steps build,conform,agree,memcheck,bench,python,racecheck "$OUT";
#   tar czf "$OUT/logs.tgz" -C _gpuwork logs out/agree-openmp
# The time left is for one shorter call that re-checks a fix.
set -u

kit=$(cd "$(dirname "$0")" && pwd)
steps=all
deadline=""
out=${OUT:-$PWD}
while [ $# -gt 0 ]; do
	case $1 in
	--steps) steps=${2:-}; shift 2 || shift ;;
	--steps=*) steps=${1#--steps=}; shift ;;
	--deadline) deadline=$(($(date +%s) + ${2:-0})); shift 2 || shift ;;
	--deadline=*) deadline=$(($(date +%s) + ${1#--deadline=})); shift ;;
	-h | --help) sed -n '2,/^set -u/p' "$0" | sed -e '/shellcheck/d' -e '/^set -u/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "gpu-check: unknown option $1" >&2; exit 2 ;;
	*) out=$1; shift ;;
	esac
done
for s in $(echo "$steps" | tr ',' ' '); do
	case $s in
	all | build | test | conform | sanitize | memcheck | racecheck | agree | bench | \
		abm | replicas | python) ;;
	*) echo "gpu-check: unknown step '$s'" >&2; exit 2 ;;
	esac
done

work=${WEFT_GPU_WORK:-$(dirname "$kit")/_gpuwork}
# The unpacked release tarball (the source tree), whichever step built it.
tarball=""
for t in "$kit"/weft-*.tar.gz; do [ -f "$t" ] && tarball=$t; done
src=$work/$(basename "${tarball:-weft.tar.gz}" .tar.gz)
deps=$kit/deps
logs=$work/logs
build=$work/build
inst=$work/inst
weft=$inst/bin/weft
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
if [ "$steps" = all ]; then
	report=$out/gpu-report.md
else
	report=$out/gpu-report-$(echo "$steps" | tr ',' '-').md
fi
: > "$report" || exit 1
failed=""
jobs=$(nproc 2>/dev/null || echo 4)

# ---- helpers ----------------------------------------------------------------

md() { printf '%s\n' "$*" >> "$report"; }
say() { echo "gpu-check: $*" >&2; }
want() {
	case ",$steps," in *,all,* | *,"$1",*) return 0 ;; esac
	return 1
}
fail() { failed="$failed $1"; }
# run NAME SECONDS CMD...: output in $logs/NAME.log; sets rc and secs.
# (Shell variables are global: run's own are prefixed run_.)
run() {
	run_name=$1 run_limit=$2
	shift 2
	run_t0=$(date +%s)
	if [ -n "$deadline" ]; then
		run_left=$((deadline - run_t0))
		if [ "$run_left" -lt 10 ]; then
			echo "gpu-check: not run: the --deadline has passed" > "$logs/$run_name.log"
			rc=124 secs=0
			say "$run_name: not run (deadline)"
			return $rc
		fi
		[ "$run_limit" -gt "$run_left" ] && run_limit=$run_left
	fi
	if command -v timeout >/dev/null 2>&1; then
		timeout "$run_limit" "$@" > "$logs/$run_name.log" 2>&1
	else
		"$@" > "$logs/$run_name.log" 2>&1
	fi
	rc=$?
	secs=$(($(date +%s) - run_t0))
	[ "$rc" -eq 124 ] && echo "gpu-check: timed out after $run_limit s" >> "$logs/$run_name.log"
	say "$run_name: exit $rc in $secs s"
	return $rc
}

# A log's last lines, fenced.
tail_of() {
	md '```'
	tail -n "${2:-25}" "$logs/$1.log" >> "$report"
	md '```'
}

# The step line of the report: command, status, time.
status_line() {
	md "- \`$1\`: exit $rc, $secs s"
}

# ok / not ok / skip counts of a TAP log, and its failures.
tap_summary() {
	log=$logs/$1.log
	plan=$(grep -m1 -E '^1\.\.[0-9]+' "$log" || echo "no plan")
	nok=$(grep -c -E '^ok ' "$log")
	nnot=$(grep -c -E '^not ok ' "$log")
	nskip=$(grep -c -E '^ok .*# *SKIP' "$log")
	md "  TAP: plan \`$plan\`, $nok ok ($nskip skipped), $nnot not ok"
	if [ "$nnot" -gt 0 ]; then
		md '```'
		grep -E -A3 '^not ok ' "$log" | head -n 60 >> "$report"
		md '```'
	fi
}

no_gpu() {
	md ""
	md "**No usable GPU: $1.** Nothing was built or run."
	say "no usable GPU: $1 (report: $report)"
	exit 2
}

# ---- the machine ---------------------------------------------------------------

md "# weft GPU check"
md ""
md "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
md "- host: $(uname -srm), $jobs CPUs: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)"
md "- steps: $steps; kit: $kit; work: $work"
[ -f "$kit/MANIFEST" ] && md "- kit: $(head -n 1 "$kit/MANIFEST")"

command -v nvidia-smi >/dev/null 2>&1 ||
	no_gpu "nvidia-smi not found (no NVIDIA driver installed?)"
smi=$(nvidia-smi -L 2>&1) || no_gpu "nvidia-smi -L failed: $smi"
echo "$smi" | grep -q '^GPU ' || no_gpu "nvidia-smi lists no GPU: $smi"
nvcc=$(command -v nvcc 2>/dev/null || true)
for d in ${CUDA_HOME:-} /usr/local/cuda; do
	[ -z "$nvcc" ] && [ -x "$d/bin/nvcc" ] && nvcc=$d/bin/nvcc
done
[ -n "$nvcc" ] || no_gpu "nvcc not found (set CUDA_HOME or PATH)"
cuda_home=$(dirname "$(dirname "$nvcc")")
sanitizer=$(command -v compute-sanitizer 2>/dev/null || true)
[ -z "$sanitizer" ] && [ -x "$cuda_home/bin/compute-sanitizer" ] &&
	sanitizer=$cuda_home/bin/compute-sanitizer

md ""
md "## Device"
md '```'
nvidia-smi --query-gpu=index,name,driver_version,memory.total,compute_cap,clocks.max.sm,clocks.max.memory \
	--format=csv >> "$report" 2>&1 || echo "$smi" >> "$report"
"$nvcc" --version | tail -n 2 >> "$report"
cc --version 2>/dev/null | head -n 1 >> "$report"
md '```'
md "- toolkit: $cuda_home; compute-sanitizer: ${sanitizer:-not found}"

mkdir -p "$logs" || exit 1
# The toolkit's lib64 too: libnvrtc opens libnvrtc-builtins by name.
export LD_LIBRARY_PATH="$deps/lib:$cuda_home/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PKG_CONFIG_PATH="$deps/lib/pkgconfig"
# NVIDIA's OpenCL, where the driver ships it but no ICD file names it (a
# container's driver mount): a vendors directory of our own, through the
# ICD loader's OCL_ICD_VENDORS; nothing of the machine's is changed.
if ! grep -q -s -l nvidia /etc/OpenCL/vendors/*.icd; then
	for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu /usr/lib64; do
		[ -e "$d/libnvidia-opencl.so.1" ] || continue
		mkdir -p "$work/icd" && echo "$d/libnvidia-opencl.so.1" > "$work/icd/nvidia.icd" &&
			export OCL_ICD_VENDORS="$work/icd"
		md "- NVIDIA OpenCL: $d/libnvidia-opencl.so.1, named by OCL_ICD_VENDORS=$work/icd"
		break
	done
fi

# ---- build ---------------------------------------------------------------------

do_build() {
	md ""
	md "## Build"
	[ -f "$tarball" ] || { md "no weft-*.tar.gz in $kit"; fail build; return 1; }
	[ -d "$src" ] || (cd "$work" && tar xzf "$tarball") ||
		{ md "cannot unpack $tarball"; fail build; return 1; }
	mkdir -p "$build"
	if [ ! -f "$build/Makefile" ]; then
		run configure 300 sh -c "cd '$build' && '$src/configure' \
			--prefix='$inst' --with-cuda='$cuda_home' --enable-cuda \
			--enable-test-hooks \
			CPPFLAGS='-I$deps/include' \
			LDFLAGS='-L$deps/lib -Wl,-rpath,$deps/lib' \
			INIH_CFLAGS='-I$deps/include' INIH_LIBS='-L$deps/lib -linih'"
		status_line "configure --with-cuda=$cuda_home --enable-cuda --enable-test-hooks (deps from the kit)"
		if [ "$rc" -ne 0 ]; then
			tail_of configure 40
			fail configure
			return 1
		fi
	fi
	grep -A4 '  backends:' "$logs/configure.log" 2>/dev/null | sed 's/^/    /' >> "$report"
	run make 900 make -C "$build" -j"$jobs"
	status_line "make -j$jobs"
	[ "$rc" -eq 0 ] || { tail_of make 40; fail make; return 1; }
}

built() { [ -f "$build/Makefile" ] && [ -x "$build/cli/weft" ]; }

ensure_built() {
	built && return 0
	do_build && built
}

# The steps after test run the installed weft (a real executable rather
# than libtool's wrapper script, for compute-sanitizer). Installed only
# then: the loader's tests expect no weft installed at the configured
# prefix (they would find its plugins).
ensure_installed() {
	[ -x "$weft" ] && return 0
	run install 300 make -C "$build" install
	md ""
	status_line "make install"
	[ "$rc" -eq 0 ] || { tail_of install; fail install; return 1; }
	run backends 60 "$weft" backends
	md '```'
	cat "$logs/backends.log" >> "$report"
	md '```'
}

# ---- test ------------------------------------------------------------------------

do_test() {
	md ""
	md "## Tests (make check)"
	[ -x "$weft" ] && make -C "$build" uninstall > "$logs/uninstall.log" 2>&1
	run check 900 make -C "$build" -j"$jobs" check
	status_line "make -j$jobs check"
	md ""
	md "| test | pass | fail | skip |"
	md "|---|---:|---:|---:|"
	for trs in $(find "$build/tests" -name '*.trs' | sort); do
		p=$(grep -c '^:test-result: PASS' "$trs")
		f=$(grep -c -E '^:test-result: (FAIL|XPASS|ERROR)' "$trs")
		k=$(grep -c '^:test-result: SKIP' "$trs")
		t=${trs#"$build/tests/"}
		md "| ${t%.trs} | $p | $f | $k |"
	done
	if [ "$rc" -ne 0 ]; then
		fail test
		md '```'
		find "$build/tests" -name '*.log' -exec grep -h -E '^(not ok|Bail out|# )' {} + 2>/dev/null |
			grep -v -E '^# (TOTAL|PASS|SKIP|XFAIL|FAIL|XPASS|ERROR):' |
			head -n 60 >> "$report"
		md '```'
	fi
}

# ---- conform ---------------------------------------------------------------------

plugin_of() { echo "$inst/lib/weft/weft-backend-$1.so"; }

conform_missing() {
	[ "$rc" -ne 0 ] && grep -q -i -E 'unknown command|usage:' "$logs/$1.log" &&
		! grep -q -E '^(1\.\.|ok |not ok )' "$logs/$1.log"
}

do_conform() {
	md ""
	md "## Conformance (weft conform)"
	for b in cuda opencl openmp; do
		p=$(plugin_of "$b")
		if [ ! -f "$p" ]; then
			md "- $b: not built"
			continue
		fi
		run "conform-$b" 500 "$weft" conform "$p"
		status_line "weft conform $p"
		if conform_missing "conform-$b"; then
			md "  \`weft conform\` is not in this build:"
			tail_of "conform-$b" 5
			fail conform-missing
			return 1
		fi
		tap_summary "conform-$b"
		[ "$rc" -eq 0 ] || fail "conform-$b"
		# With a GPU listed by nvidia-smi, cuda must not skip.
		if [ "$b" = cuda ] && grep -q -E '^1\.\.0 # *SKIP' "$logs/conform-$b.log"; then
			md "  cuda skipped every test on a machine with a GPU"
			fail conform-cuda-skipped
		fi
	done
	# Every installed model on every available backend: state and
	# outputs byte for byte against OpenMP's, checkpoints across backends.
	for m in "$inst"/lib/weft/weft-model-*.so; do
		[ -f "$m" ] || continue
		name=$(basename "$m" .so)
		name=${name#weft-model-}
		run "conform-model-$name" 500 "$weft" conform --model="$name"
		status_line "weft conform --model=$name"
		tap_summary "conform-model-$name"
		grep -q -E '^ok .* on cuda ' "$logs/conform-model-$name.log" ||
			{ md "  no test ran on cuda"; fail "conform-model-$name-cuda"; }
		[ "$rc" -eq 0 ] || fail "conform-model-$name"
	done
}

# ---- sanitize ----------------------------------------------------------------------

astoria_cfg() { # NAME BACKEND STEPS: config overrides for examples/astoria.ini
	echo "--set backend.name=$2 --set simulation.steps=$3 --set output.directory=$work/out/$1 --quiet"
}

# sanitize_run TOOL NAME LIMIT CMD...: one run under compute-sanitizer.
sanitize_run() {
	tool=$1 name=$2 limit=$3
	shift 3
	extra=""
	[ "$tool" = memcheck ] && extra="--leak-check full"
	# shellcheck disable=SC2086 # extra is two words or none
	run "san-$tool-$name" "$limit" "$sanitizer" --tool "$tool" $extra \
		--target-processes all --error-exitcode 86 --print-limit 40 "$@"
	status_line "compute-sanitizer --tool $tool $extra --target-processes all $(echo "$*" | sed "s|$inst/||g")"
	md "  $(grep -h 'ERROR SUMMARY' "$logs/san-$tool-$name.log" | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
	[ "$rc" -eq 0 ] || { tail_of "san-$tool-$name" 30; fail "sanitize-$tool-$name"; }
}

# do_sanitize TOOLS...
do_sanitize() {
	md ""
	md "## compute-sanitizer ($*)"
	if [ -z "$sanitizer" ]; then
		md "compute-sanitizer not found: skipped"
		fail sanitize-missing
		return 1
	fi
	p=$(plugin_of cuda)
	ex=$inst/share/weft/examples/astoria.ini
	[ -f "$p" ] || { md "no cuda plugin: skipped"; fail sanitize; return 1; }
	for tool in "$@"; do
		if [ "$tool" = memcheck ]; then
			# Kernels run 10-100 times slower under memcheck: a
			# group may take longer than conform's 120 s default.
			# WEFT_GPU_MEMCHECK_ONLY: a list of groups, to fit a lease.
			sanitize_run memcheck conform 420 "$weft" conform --timeout=400 \
				${WEFT_GPU_MEMCHECK_ONLY:+--only="$WEFT_GPU_MEMCHECK_ONLY"} "$p"
			tap_summary san-memcheck-conform
		fi
		# shellcheck disable=SC2046 # words, on purpose
		sanitize_run "$tool" seir 120 "$weft" run "$ex" $(astoria_cfg "san-$tool" cuda 30)
		[ "$tool" = racecheck ] &&
			sanitize_run racecheck cartpole 60 "$weft" run \
				"$inst/share/weft/examples/cartpole.ini" --set backend.name=cuda \
				--set simulation.steps=300 --set cartpole.envs=4096 \
				--set output.directory="$work/out/san-racecheck-cartpole" \
				--set output.plot=none
	done
	return 0
}

# ---- agree -------------------------------------------------------------------------

do_agree() {
	md ""
	md "## Same results on every backend (examples/astoria.ini, 120 days)"
	ex=$inst/share/weft/examples/astoria.ini
	for b in openmp cuda opencl; do
		if ! "$weft" backends 2>/dev/null | grep -q -E "^$b +available"; then
			md "- $b: not available"
			# With a GPU listed by nvidia-smi, CUDA must run.
			[ "$b" = cuda ] && fail agree-cuda-unavailable
			continue
		fi
		# shellcheck disable=SC2046
		run "agree-$b" 300 "$weft" run "$ex" $(astoria_cfg "agree-$b" "$b" 120)
		if [ "$rc" -ne 0 ]; then
			md "- $b: the run failed (exit $rc)"
			tail_of "agree-$b" 10
			fail "agree-$b"
		elif [ "$b" = openmp ]; then
			md "- openmp: reference, $(wc -l < "$work/out/agree-openmp/daily.csv") lines"
		elif cmp -s "$work/out/agree-openmp/daily.csv" "$work/out/agree-$b/daily.csv"; then
			md "- $b: daily.csv identical to OpenMP's"
		else
			md "- $b: daily.csv DIFFERS from OpenMP's:"
			md '```'
			diff "$work/out/agree-openmp/daily.csv" "$work/out/agree-$b/daily.csv" | head -n 20 >> "$report"
			md '```'
			fail "agree-$b"
		fi
	done
	agree_cartpole
	agree_batch
}

# same_files NAME REF DIR FILE...: each FILE of DIR is REF's, byte for byte.
same_files() {
	name=$1 ref=$2 dir=$3
	shift 3
	bad=""
	for f in "$@"; do
		cmp -s "$ref/$f" "$dir/$f" || bad="$bad $f"
	done
	if [ -z "$bad" ]; then
		n=$#
		[ "$n" -gt 3 ] && set -- "$1" "$2" ...
		what="$n files: $*"
		[ "$n" -eq 1 ] && what=$1
		md "- $name: identical to OpenMP's, byte for byte ($what)"
		return 0
	fi
	md "- $name: DIFFERS from OpenMP's in$bad"
	md '```'
	# shellcheck disable=SC2086 # one word per file
	set -- $bad
	diff "$ref/$1" "$dir/$1" 2>&1 | head -n 20 >> "$report"
	md '```'
	fail "agree-$name"
}

# CartPole (examples/cartpole.ini, 65,536 environments, 1,000 steps, its
# on-device linear policy): episodes.csv on each backend against OpenMP's.
agree_cartpole() {
	md ""
	md "## Same CartPole episodes on every backend (examples/cartpole.ini)"
	ex=$inst/share/weft/examples/cartpole.ini
	for b in openmp cuda opencl; do
		"$weft" backends 2>/dev/null | grep -q -E "^$b +available" || continue
		run "agree-cartpole-$b" 300 "$weft" run "$ex" --quiet \
			--set backend.name="$b" --set output.plot=none \
			--set output.directory="$work/out/agree-cartpole-$b"
		if [ "$rc" -ne 0 ]; then
			md "- cartpole on $b: the run failed (exit $rc)"
			tail_of "agree-cartpole-$b" 10
			fail "agree-cartpole-$b"
		elif [ "$b" != openmp ]; then
			same_files "cartpole-$b" "$work/out/agree-cartpole-openmp" \
				"$work/out/agree-cartpole-$b" episodes.csv
		fi
	done
}

# Batched replicas (step_replicas, [ensemble] batch): 8 Astoria runs of
# 60 days as one batch on cuda against one after another on OpenMP: the
# per-run daily.csv and the aggregates must be the same bytes.
agree_batch() {
	md ""
	md "## Batched replicas on cuda (8 Astoria runs, 60 days, one batch)"
	ex=$inst/share/weft/examples/astoria.ini
	for v in openmp:1 cuda:8; do
		b=${v%%:*}
		run "agree-batch-$b" 300 "$weft" run "$ex" --quiet \
			--set backend.name="$b" --set simulation.steps=60 \
			--set output.plot=none --set ensemble.runs=8 \
			--set ensemble.batch="${v#*:}" \
			--set output.directory="$work/out/agree-batch-$b"
		[ "$rc" -eq 0 ] && continue
		md "- $b: the ensemble failed (exit $rc)"
		tail_of "agree-batch-$b" 10
		fail "agree-batch-$b"
		return 1
	done
	d=$work/out/agree-batch-cuda
	if ! grep -q 'stepped together on backend cuda' "$d/summary.txt"; then
		md "- cuda: the runs were not batched (summary.txt):"
		md '```'
		head -n 5 "$d/summary.txt" >> "$report"
		md '```'
		fail agree-batch-cuda
	fi
	# shellcheck disable=SC2046 # file names without spaces
	same_files batch-cuda "$work/out/agree-batch-openmp" "$d" \
		base.csv summary.csv $(cd "$d" && ls runs/base/*/daily.csv)
}

# ---- bench -------------------------------------------------------------------------

# seir_day NAME BACKEND AGENTS STEPS [VAR=VALUE]: one table row.
seir_day() {
	name=$1 b=$2 agents=$3 n=$4
	shift 4
	cfg=$work/bench.ini
	printf '[simulation]\nmodel = seir\nseed = 1\n[seir]\ncontacts = 10\n' > "$cfg"
	run "bench-$name" 500 env "$@" "$weft" run "$cfg" --quiet --stats \
		--set backend.profile=false \
		--set backend.name="$b" --set seir.agents="$agents" \
		--set simulation.steps="$n" --set output.every="$n" \
		--set output.directory="$work/out/bench-$name" --set output.plot=none
	if [ "$rc" -ne 0 ]; then
		md "| $b ${*:-} | $agents | $n | failed (exit $rc) | | |"
		fail "bench-$name"
		return
	fi
	awk -v b="$b ${*:-}" -v a="$agents" -v n="$n" '
		$1 == "wall" && $2 == "time" { run = $4 + $7 + $10; steps = $7 + $10 }
		$1 == "kernel" && $3 == "ms" { k = $2 }
		$1 == "step" && $2 == "graphs" { g = $3 "/" $5 }
		END { printf "| %s | %d | %d | %.3f | %.1f | %.1f | %s |\n", b, a, n, run, steps / n * 1e6, k / n * 1e3, g }' \
		"$logs/bench-$name.log" >> "$report"
}

# CartPole environment steps per second on cuda (and openmp for
# reference): on-device policy, host actions, actions from device memory.
cartpole_bench() {
	cp_bench=$build/bench/cartpole-bench
	[ -x "$cp_bench" ] || make -C "$build" bench/cartpole-bench > "$logs/cartpole-bench-build.log" 2>&1
	md ""
	md "### CartPole"
	md ""
	if [ ! -x "$cp_bench" ]; then
		md "bench/cartpole-bench could not be built"
		fail cartpole-bench
		return
	fi
	: > "$logs/bench-cartpole-all.log"
	for b in cuda:0 openmp:0; do
		for mode in policy host device; do
			run "bench-cartpole" 300 env WEFT_PLUGIN_PATH="$inst/lib/weft" \
				"$cp_bench" "${b%%:*}" "${b#*:}" "$mode" 8 256 4096 65536 1048576 -t 0.5 ||
				fail "bench-cartpole-${b%%:*}-$mode"
			cat "$logs/bench-cartpole.log" >> "$logs/bench-cartpole-all.log"
		done
	done
	md "bench/cartpole-bench (mode policy: the on-device linear policy; host:"
	md "packed actions up and results down every step; device: actions"
	md "written in place, weft_cartpole_step_device, a fence and a wait per"
	md "step). Target: 1e10 env steps/s at 1,048,576 envs, policy, on cuda."
	md '```'
	cat "$logs/bench-cartpole-all.log" >> "$report"
	md '```'
	awk '/backend=cuda/ && /mode=policy/ && /envs=1048576/ {
		for (i = 1; i <= NF; i++) if ($i ~ /^env_steps_per_s=/) { split($i, v, "="); r = v[2] }
	} END { if (r) printf "- cuda, on-device policy, 1,048,576 envs: %.3g env steps/s (%s the 1e10 target)\n", r, (r >= 1e10 ? "meets" : "BELOW") }' \
		"$logs/bench-cartpole-all.log" >> "$report"
}

seir_bench() {
	md ""
	md "## Benchmarks"
	md ""
	md "SEIR, 10 contacts per agent, beta 0.05, outputs read once at the end,"
	md "not profiled (\`--stats --set backend.profile=false\`: CUDA replays"
	md "graphs). per day = (steps + finish time from \`--stats\`) / days: the"
	md "simulated days to the last byte back. enqueue = host time inside step()"
	md "(for OpenMP the kernels themselves). graphs = captured/launched. run ="
	md "the whole \`weft run\` (population build on the host included)."
	md ""
	md "| backend | agents | days | run (s) | per day (us) | enqueue per day (us) | graphs |"
	md "|---|---:|---:|---:|---:|---:|---|"
	seir_day cuda-small cuda 37518 3650
	seir_day cuda-small-nograph cuda 37518 3650 WEFT_CUDA_GRAPHS=0
	seir_day openmp-small openmp 37518 365
	seir_day cuda-large cuda 8400000 365
	seir_day openmp-large openmp 8400000 60
	bench=$build/bench/cuda-bench
	p=$(plugin_of cuda)
	[ -x "$bench" ] || make -C "$build" bench/cuda-bench > "$logs/cuda-bench-build.log" 2>&1
	if [ ! -x "$bench" ]; then
		md ""
		md "bench/cuda-bench could not be built"
		fail cuda-bench
		return 1
	fi
	run bench-overhead 300 "$bench" "$p" overhead 10000
	run bench-bandwidth 300 "$bench" "$p" bandwidth 1024
	run bench-transmit-large 300 "$bench" "$p" transmit 8400000 10 20
	run bench-transmit-small 300 "$bench" "$p" transmit 37518 10 500
	md ""
	md "bench/cuda-bench (numbers as key=value):"
	md '```'
	for t in overhead bandwidth transmit-large transmit-small; do
		cat "$logs/bench-$t.log" >> "$report"
	done
	md '```'
	if ! grep -q '^overhead graphs=1 .*count_ok=yes' "$logs/bench-overhead.log" ||
		! grep -q '^overhead graphs=0 .*count_ok=yes' "$logs/bench-overhead.log"; then
		fail bench-overhead
	fi
	awk '
		/^overhead graphs=1/ { for (i = 1; i <= NF; i++) if ($i ~ /^total_us/) { split($i, v, "="); g1 = v[2] } }
		/^overhead graphs=0/ { for (i = 1; i <= NF; i++) if ($i ~ /^total_us/) { split($i, v, "="); g0 = v[2] } }
		/^bandwidth/ { for (i = 1; i <= NF; i++) if ($i ~ /^d2d_gbps/) { split($i, v, "="); bw = v[2] } }
		/^transmit agents=8400000/ { for (i = 1; i <= NF; i++) if ($i ~ /^unique_gbps/) { split($i, v, "="); tx = v[2] } }
		END {
			if (g0 && g1) printf "- step() host overhead per step: %.2f us with graphs, %.2f us without\n", g1, g0
			if (bw && tx) printf "- transmission kernel at 8.4M agents: %.0f GB/s of unique bytes, %.0f%% of the %.0f GB/s device-to-device copy\n", tx, 100 * tx / bw, bw
		}' "$logs"/bench-overhead.log "$logs"/bench-bandwidth.log "$logs"/bench-transmit-large.log >> "$report"
}

# weft's building blocks (bench/blocks-bench, the cuda backend) against
# NVIDIA CUB's (bench/cub-bench.cu, built here with nvcc) on the same
# workloads and timing: 2^25 random u32, medians of 9.
blocks_bench() {
	bb=$build/bench/blocks-bench
	[ -x "$bb" ] || make -C "$build" bench/blocks-bench > "$logs/blocks-bench-build.log" 2>&1
	run cub-build 300 "$nvcc" -O3 -arch=sm_"$(nvidia-smi --query-gpu=compute_cap \
		--format=csv,noheader | head -n 1 | tr -d '. ')" -o "$work/cub-bench" "$src/bench/cub-bench.cu"
	md ""
	md "### Building blocks against CUB (2^25 u32, medians of 9, launch to sync)"
	md ""
	if [ ! -x "$bb" ] || [ "$rc" -ne 0 ]; then
		md "bench/blocks-bench or bench/cub-bench could not be built"
		tail_of cub-build 10
		fail blocks-bench
		return 1
	fi
	run bench-blocks-cuda 120 "$bb" "$(plugin_of cuda)" 0 33554432 9 || fail bench-blocks-cuda
	run bench-cub 120 "$work/cub-bench" 33554432 9 || fail bench-cub
	md '```'
	cat "$logs/bench-blocks-cuda.log" "$logs/bench-cub.log" >> "$report"
	md '```'
	awk -F= '{ v[$1] = $2 } END {
		n = split("scan sort compact", w, " ")
		for (i = 1; i <= n; i++) {
			a = v["ms_" w[i] "_u32"]; b = v["ms_cub_" w[i] "_u32"]
			if (a && b) printf "- %s: weft %.3f ms, CUB %.3f ms: %.2fx CUB (%s the 2x target)\n", w[i], a, b, a / b, (a <= 2 * b ? "meets" : "MISSES")
		}
	}' "$logs/bench-blocks-cuda.log" "$logs/bench-cub.log" >> "$report"
}

do_bench() {
	seir_bench
	bench_rc=$?
	blocks_bench || bench_rc=1
	cartpole_bench
	return "$bench_rc"
}

# ---- agent-based models on spaces -----------------------------------------------

# abm_run MODEL BACKEND AGENTS STEPS [--set K=V ...]: one timed run of
# examples/MODEL.ini (outputs read at the end only), a row of the
# report's table.
abm_run() {
	m=$1 b=$2 agents=$3 n=$4
	shift 4
	run "abm-$m-$b-$agents" 500 "$weft" run "$src/examples/$m.ini" --quiet "$@" \
		--stats --set backend.profile=false --set backend.name="$b" \
		--set "$m.agents=$agents" --set simulation.steps="$n" \
		--set output.every="$n" --set output.plot=none \
		--set output.directory="$work/out/abm-$m-$b-$agents"
	if [ "$rc" -ne 0 ]; then
		md "| $m | $b | $agents | $n | failed (exit $rc) | | |"
		tail_of "abm-$m-$b-$agents" 10
		fail "abm-$m-$b"
		return
	fi
	# The summary's "messages read per agent per step", if the model
	# gives it, turns the time into messages read per second.
	msgs=$(sed -n 's/.*messages read: \([0-9.][0-9.]*\) per agent per step.*/\1/p' \
		"$work/out/abm-$m-$b-$agents/summary.txt" 2>/dev/null | head -n 1)
	awk -v m="$m" -v b="$b" -v a="$agents" -v n="$n" -v msg="${msgs:-0}" '
		$1 == "wall" && $2 == "time" { steps = $7 + $10 }
		END { ms = steps / n * 1e3;
		      printf "| %s | %s | %d | %d | %.3f | %.3g | %s |\n", m, b, a, n, ms,
			a * n / steps, (msg > 0 ? sprintf("%.3g", msg * a * n / steps) : "") }' \
		"$logs/abm-$m-$b-$agents.log" >> "$report"
}

do_abm() {
	md ""
	md "## Agent-based models on spaces (examples/circles.ini, examples/boids.ini)"
	md ""
	md "Time per step from \`weft run --stats\` (the steps' wall time,"
	md "outputs read once at the end, not profiled). FLAME GPU 2's published"
	md "Circles (3-D, 1M agents, about 204 messages read per agent): 2.12 ms"
	md "per step on an H100 PCIe, 3.72 ms on a V100."
	md ""
	md "| model | backend | agents | steps | ms per step | agent-steps/s | messages read/s |"
	md "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
	for m in circles boids; do
		if [ ! -f "$inst/lib/weft/weft-model-$m.so" ]; then
			md "| $m | | | | not built | | |"
			continue
		fi
		# boids at FLAME's density whatever the count ([boids] box = 0;
		# bench/boids.sh), circles at FLAME's by its own rule.
		set --
		[ "$m" = boids ] && set -- --set boids.box=0
		abm_run "$m" cuda 100000 200 "$@"
		abm_run "$m" cuda 1000000 100 "$@"
		abm_run "$m" openmp 100000 5 "$@"
	done
}

# ---- replicas ----------------------------------------------------------------------

# docs/benchmarks.md's measurement on cuda: 256 Astoria runs of 120 days,
# one batch of 256 against one after another (bench/replicas.sh, medians of 3).
do_replicas() {
	md ""
	# RUNS BATCH DAYS REPEATS ($WEFT_GPU_REPLICAS: a smaller dry run)
	# shellcheck disable=SC2086 # four words
	set -- ${WEFT_GPU_REPLICAS:-256 256 120 3}
	md "## Batched replicas: $1 Astoria runs on cuda (bench/replicas.sh)"
	run bench-replicas 560 env WEFT_BUILDDIR="$build" \
		sh "$src/bench/replicas.sh" cuda 0 "$@"
	status_line "bench/replicas.sh cuda 0 $*"
	md '```'
	grep -v '^ *$' "$logs/bench-replicas.log" | tail -n 25 >> "$report"
	md '```'
	[ "$rc" -eq 0 ] || { fail replicas; return 1; }
}

# ---- python ------------------------------------------------------------------------

# The Python package against the build tree, with the python3 that holds
# PyTorch (and CuPy): python/tests, test_cuda.py among them (DLPack
# tensors over the CUDA backend's memory, a GPU policy writing the
# actions in place, the streams waited for) and test_cuda_envs.py (every
# environment of the build on cuda against openmp, and with a torch
# policy writing its actions on the GPU).
do_python() {
	md ""
	md "## Python (python/tests, PyTorch and CuPy on the CUDA backend)"
	py=$(command -v python3 || true)
	if [ -z "$py" ] || ! "$py" -c 'import numpy, pytest' 2>/dev/null; then
		md "python3 with numpy and pytest not found: skipped"
		fail python-missing
		return 1
	fi
	md "- $("$py" -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.cuda.is_available())' 2>&1 | tail -n 1)"
	# The test programs and plugins too: the template models that the
	# tests run, and the CUDA stand-in.
	run python-check-build 300 make -C "$build" -j"$jobs" check TESTS=
	run python-build 300 sh -c "cd '$src/python' && WEFT_BUILD_DIR='$build' \
		'$py' setup.py -q build_ext --inplace"
	status_line "WEFT_BUILD_DIR=build python3 setup.py build_ext --inplace"
	[ "$rc" -eq 0 ] || { tail_of python-build 30; fail python-build; return 1; }
	run python-test 400 sh -c "cd '$src/python' && PYTHONPATH='$src/python' \
		'$py' -m pytest -p no:cacheprovider -rs -v tests"
	status_line "python3 -m pytest -rs -v python/tests"
	md '```'
	grep -E '(PASSED|FAILED|ERROR|SKIPPED)|^=+ .* in [0-9.]+s' \
		"$logs/python-test.log" | tail -n 60 >> "$report"
	md '```'
	grep -q 'test_cuda.py::test_policy_on_the_gpu_matches_host_actions PASSED' \
		"$logs/python-test.log" || fail python-cuda
	grep -q 'test_cuda_envs.py::test_policy_on_the_gpu_matches_host_actions PASSED' \
		"$logs/python-test.log" || fail python-cuda-envs
	[ "$rc" -eq 0 ] || { tail_of python-test 40; fail python; return 1; }
}

# ---- main --------------------------------------------------------------------------

if want build; then
	do_build || true
fi
order="test conform memcheck racecheck agree bench abm replicas python"
[ "$steps" = all ] || order=$(echo "$steps" | tr ',' ' ' | sed -e 's/sanitize/memcheck racecheck/' -e 's/build//')
for s in $order; do
	if ! ensure_built; then
		md ""
		md "## $s: skipped (the build failed)"
		fail "$s"
		continue
	fi
	if [ "$s" != test ] && ! ensure_installed; then
		md ""
		md "## $s: skipped (make install failed)"
		fail "$s"
		continue
	fi
	case $s in
	memcheck | racecheck) do_sanitize "$s" || true ;;
	*) "do_$s" || true ;;
	esac
done

md ""
if [ -z "$failed" ]; then
	md "## Result: PASS"
	say "PASS (report: $report)"
	exit 0
fi
md "## Result: FAIL ($failed )"
say "FAIL:$failed (report: $report)"
exit 1
