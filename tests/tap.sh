# tests/tap.sh - the TAP helper of the shell tests, as tests/tap.h is of
# the C tests: what they print is read by Automake's tap-driver.sh. A test
# sources it first:
#
#   . "$WEFT_SRCDIR/tests/tap.sh"
#
# (make check sets WEFT_SRCDIR, tests/local.mk). It sets n, the number of
# tests so far, and failed, how many of them failed, and defines:
#
#   ok STATUS TEXT     "ok N - TEXT" when STATUS is 0, else "not ok N -
#                      TEXT", counted in failed
#   skip TEXT REASON   "ok N - TEXT # SKIP REASON"; with REASON alone,
#                      "ok N # SKIP REASON"
#   diag [FILE...]     the files' lines (or standard input's) as
#                      diagnostics, "# LINE"
#   find_python MODULES [PYTHON...]
#                      the first Python that imports MODULES, printed
#                      (the ones given, the source tree's _venv, python3)
#   skip_all REASON    "1..0 # SKIP REASON" and exit 0: nothing to test here
#   bail [FILE...]     stop after a failure that leaves nothing to test:
#                      the files as diagnostics, the plan so far, exit 1
#   bail_out REASON    "Bail out! REASON" and exit 1: the test cannot run
#   plan               "1..N", N the tests so far
#   tap_done           the plan, then the script's status: 0 when no test
#                      failed (a script's last command)
#   hooks TEXT...      0 when the library reads its test hooks, the
#                      WEFT_TEST_* variables (configure --enable-test-hooks;
#                      make check says so in WEFT_TEST_HOOKS); otherwise
#                      each test TEXT is skipped, and 1:
#                        if hooks "killed in a commit"; then ...; ok $? ...
#   bands TEXT...      0 where the checks against a peer's seed band run;
#                      in the sanitizer build (WEFT_SANITIZE), whose runs
#                      are 10 to 20 times slower and whose purpose is the
#                      memory and undefined behaviour of code that the
#                      tests' own smaller runs reach, each test TEXT is
#                      skipped, and 1 (the plain suite makes those checks):
#                        if bands "20 seeds inside Starsim's band"; then ...
n=0 failed=0

ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}

skip() {
	n=$((n + 1))
	if [ $# -ge 2 ]; then
		echo "ok $n - $1 # SKIP $2"
	else
		echo "ok $n # SKIP $1"
	fi
}

diag() { sed 's/^/# /' "$@"; }

# find_python MODULES [PYTHON...]: print the first Python that imports
# MODULES ("gymnasium, numpy", as an import statement lists them): of
# the PYTHONs given (empty ones passed over, e.g. an unset
# ${WEFT_PYTHON:-}), then the source tree's _venv (`./quickstart python`
# makes it, `./quickstart test` too), then python3. Status 1, printing
# nothing, where none does.
find_python() {
	fp_mods=$1
	shift
	for fp_c in "$@" "${WEFT_SRCDIR:-.}/_venv/bin/python" python3; do
		if [ -n "$fp_c" ] && command -v "$fp_c" > /dev/null 2>&1 &&
			"$fp_c" -c "import $fp_mods" > /dev/null 2>&1; then
			echo "$fp_c"
			return 0
		fi
	done
	return 1
}

skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}

plan() { echo "1..$n"; }

bail() {
	[ $# -eq 0 ] || diag "$@"
	plan
	exit 1
}

bail_out() {
	echo "Bail out! $1"
	exit 1
}

# skip_each REASON TEXT...: each test TEXT skipped for REASON; status 1
# (what hooks and bands do when their tests cannot run).
skip_each() {
	tap_skip_reason=$1
	shift
	for tap_skip_text in "$@"; do
		skip "$tap_skip_text" "$tap_skip_reason"
	done
	return 1
}

hooks() {
	[ "${WEFT_TEST_HOOKS:-no}" = yes ] && return 0
	skip_each "the library is built without --enable-test-hooks" "$@"
}

bands() {
	[ -z "${WEFT_SANITIZE:-}" ] && return 0
	skip_each "a statistical check: made by the plain suite, not under the sanitizers" "$@"
}

tap_done() {
	plan
	[ "$failed" -eq 0 ]
}
