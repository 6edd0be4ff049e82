# tests/models/seir-backends.sh - sourced by the SEIR tests that check one
# configuration gives the same bits everywhere (test-seir-waning.sh,
# test-seir-variants.sh, test-seir-crn.sh): $tmp/all.ini run on a
# backend and thread count, and its outputs compared with openmp's on
# one thread. Needs tests/tap.sh; seir_setup sets the rest.

# seir_setup NAME: $build, $weft, a scratch directory $tmp (removed at
# exit) and WEFT_MODEL_PATH; the whole test skipped when the SEIR model
# or the openmp backend (the reference) is not built.
seir_setup() {
	build="$WEFT_BUILDDIR"
	weft="$build/cli/weft"
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-$1-test-XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	WEFT_MODEL_PATH="$build/models/seir/.libs"
	export WEFT_MODEL_PATH
	[ -f "$WEFT_MODEL_PATH/weft-model-seir.so" ] ||
		skip_all "models/seir is not built"
	[ -f "$build/plugins/openmp/.libs/weft-backend-openmp.so" ] ||
		skip_all "the openmp backend (the reference) is not built"
}

# seir_run DIR BACKEND THREADS [--set ...]: $tmp/all.ini into $tmp/DIR.
seir_run() {
	d=$1 b=$2 t=$3
	shift 3
	WEFT_PLUGIN_PATH="$build/plugins/$b/.libs" "$weft" run --quiet \
		"$tmp/all.ini" --set backend.name="$b" \
		--set backend.threads="$t" --set output.directory="$tmp/$d" \
		"$@" > "$tmp/$d.log" 2>&1
}

# seir_same DIR: DIR's outputs are the reference's ($tmp/ref), byte for
# byte.
seir_same() {
	for f in daily.csv by_age.csv reproduction.csv infections.csv; do
		cmp "$tmp/ref/$f" "$tmp/$1/$f" || return 1
	done
}

# seir_opencl WHAT: a test that opencl gives the reference's outputs,
# skipped when opencl cannot run here.
seir_opencl() {
	ocl="$build/plugins/opencl/.libs"
	if [ -f "$ocl/weft-backend-opencl.so" ] &&
		WEFT_PLUGIN_PATH=$ocl "$weft" backends 2>/dev/null |
		grep -q "^opencl  *available "; then
		seir_run ocl opencl 0 && seir_same ocl
		ok $? "$1: opencl gives openmp's outputs"
	else
		skip "$1: opencl gives openmp's outputs" "opencl cannot run here"
	fi
}

# seir_everywhere WHAT: the reference (openmp, 1 thread) into $tmp/ref,
# then the same outputs with 2 threads, without the frontier, on the
# template backend, on opencl and on the CUDA plugin with the stand-in
# runtime (NVRTC compiling the real sources), each skipped when it
# cannot run here. WHAT names the configuration in the tests' names.
seir_everywhere() {
	seir_run ref openmp 1
	ok $? "$1 runs (openmp, 1 thread)"
	tail -n 3 "$tmp/ref.log" | diag
	seir_run omp2 openmp 2 && seir_same omp2
	ok $? "$1: openmp with 2 threads gives 1 thread's outputs"
	seir_run nofront openmp 2 --set seir.frontier=false &&
		seir_same nofront
	ok $? "$1: without the frontier, the same outputs"
	if [ -f "$build/plugins/template/.libs/weft-backend-template.so" ]; then
		seir_run tpl template 0 && seir_same tpl
		ok $? "$1: the template backend gives openmp's outputs"
	else
		skip "$1: the template backend gives openmp's outputs" "not built"
	fi
	seir_opencl "$1"
	mock="$build/tests/plugins/cuda-mock/.libs"
	if [ -f "$mock/weft-backend-cuda.so" ]; then
		WEFT_PLUGIN_PATH=$mock "$weft" run --quiet "$tmp/all.ini" \
			--set backend.name=cuda --set output.directory="$tmp/mock" \
			> "$tmp/mock.log" 2>&1 && seir_same mock
		ok $? "$1: the CUDA plugin (stand-in runtime) gives openmp's outputs"
	else
		skip "$1: the CUDA plugin (stand-in runtime) gives openmp's outputs" "CUDA is not built"
	fi
}
