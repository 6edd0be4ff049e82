#!/bin/bash
# bench/cartpole-anatomy.sh - where the time of CartPole's C API step goes:
# the step as built against timing-only builds of the CartPole plugin that
# leave out one part of the rare work at episode ends and starts, run
# alternately, each process pinned to one core (bench/cartpole-bench
# openmp 1 device N: the actions written in place, as PufferLib's own
# loop does). The timing-only builds compute wrong results on purpose:
# they say what a part costs, not what weft can skip.
#
#   bench/cartpole-anatomy.sh [BUILD_DIR] [REPS] [SECONDS] [ENVS]
#
# BUILD_DIR (default _build): a configured build tree where
# bench/cartpole-bench, cli/weft-wk, core/libweft and the OpenMP plugin are
# built (`make bench/cartpole-bench cli/weft-wk
# plugins/openmp/weft-backend-openmp.la`). REPS (15) alternations of every
# build, SECONDS (0.25) timed seconds each, ENVS (65536) environments.
#
# The builds (each compiled here, from a patched copy of
# models/cartpole/cartpole.wk in a temporary directory, with BUILD_DIR's
# compiler and CFLAGS; nothing in BUILD_DIR or the source tree is
# written, but for the results under _bench/):
#   as-built    models/cartpole/cartpole.wk as it is;
#   no-rare     no environment visited after the vectorised part: no
#               final observation kept, no first state drawn (an episode
#               that ends begins again from where it ended, out of
#               bounds, and so ends again at once: the vectorised part's
#               work, which has no branches, is the same);
#   no-philox   the first state of an episode from a multiplicative hash
#               of the environment's index instead of its Philox draw (no
#               Philox, no key words of the bookkeeping read);
#   keys-const  the Philox draw keyed by the run's seed and the
#               environment's index, as before any seeded reset, instead
#               of the four key words of the bookkeeping.
# A patch that no longer applies (the kernel changed) stops the script
# with the text it looked for.
#
# ANATOMY_CPU (0) is the core; ANATOMY_KEEP=1 keeps the temporary
# directory with the builds and their patched kernels (its path printed).
#
# Prints the CPU model, the 1-minute load before and after, and per build
# the median env steps/s, its largest, and the median of its ratios to
# as-built in the same alternation (with their range). Writes the runs to
# _bench/cartpole-anatomy/runs-ENVS.csv (rep, build, env_steps_per_s).
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$SRC/_build}" 2>/dev/null && pwd) || {
	echo "cartpole-anatomy: no build directory ${1:-$SRC/_build}" \
		"(configure and build one first: see bench/README.md)" >&2
	exit 2
}
REPS=${2:-15}
SECS=${3:-0.25}
ENVS=${4:-65536}
OUT=$SRC/_bench/cartpole-anatomy
CPU=${ANATOMY_CPU:-0}
BUILDS="as-built no-rare no-philox keys-const"

case $REPS in
'' | *[!0-9]* | 0)
	echo "cartpole-anatomy: REPS is $REPS: expected an integer of 1 or" \
		"more" >&2
	exit 2
	;;
esac
if [ ! -e "$BUILD/config.h" ] || [ ! -e "$BUILD/Makefile" ]; then
	echo "cartpole-anatomy: $BUILD is not a configured build tree (no" \
		"config.h or Makefile): run configure there first" >&2
	exit 2
fi
for f in bench/cartpole-bench cli/weft-wk core/.libs/libweft.so \
	plugins/openmp/.libs/weft-backend-openmp.so; do
	if [ ! -e "$BUILD/$f" ]; then
		echo "cartpole-anatomy: $BUILD/$f is missing: build it first" \
			"(make bench/cartpole-bench cli/weft-wk" \
			"plugins/openmp/weft-backend-openmp.la)" >&2
		exit 2
	fi
done
TMP=$(mktemp -d)
if [ -n "${ANATOMY_KEEP:-}" ]; then
	echo "builds kept in $TMP"
else
	trap 'rm -rf "$TMP"' EXIT
fi

# patch BUILD: the kernel file for BUILD, from the source's, on stdout.
patch_wk() {
	python3 - "$1" "$SRC/models/cartpole/cartpole.wk" <<'EOF'
import sys

build, path = sys.argv[1], sys.argv[2]
text = open(path).read()
MARK = """		WEFT_SIMD_DEFER((weft_u32)((ended & 11u) != 0u) |
				(weft_u32)(i == 0u));"""
DRAW = "weft_rand4 r = weft_env_rand(book, p->n_envs, i, 0u, 0u);"
patches = {
    "as-built": [],
    "no-rare": [(MARK, "\t\tWEFT_SIMD_DEFER((weft_u32)(i == 0u));")],
    "no-philox": [(DRAW, "weft_rand4 r;\n\n\t(void)book;\n"
                  "\tr.v[0] = i * 2654435761u;\n\tr.v[1] = r.v[0] * 3u;\n"
                  "\tr.v[2] = r.v[0] * 5u;\n\tr.v[3] = r.v[0] * 7u;")],
    "keys-const": [(DRAW, "weft_rand4 r = weft_philox(p->seed_lo, p->seed_hi,"
                   " i, weft_env_episode(book, p->n_envs, i), 0u,"
                   " WEFT_ENV_PURPOSE_RESET);")],
}
for old, new in patches[build]:
    if text.count(old) != 1:
        sys.exit("cartpole-anatomy: %s: %s no longer holds, once, the "
                 "text the build patches:\n%s" % (build, path, old))
    text = text.replace(old, new)
sys.stdout.write(text)
EOF
}

# The build tree's compiler and flags, as its Makefile has them (CC, and
# CFLAGS with weft's own: WEFT_CFLAGS, then -ffp-contract=off as for the
# plugin's kernels), one word each.
make_var() {
	sed -n "s/^$1 = //p" "$BUILD/Makefile" | head -n 1
}
CC_BUILD=$(make_var CC)
read -r -a CFLAGS_BUILD <<<"$(make_var WEFT_CFLAGS) $(make_var CFLAGS)"

# plugin BUILD: $TMP/BUILD/weft-model-cartpole.so, compiled as the build
# tree compiles the plugin.
plugin() {
	local d=$TMP/$1
	local cflags=(-DHAVE_CONFIG_H -I"$d" -I"$BUILD" -I"$SRC"
		-I"$SRC/include" -I"$SRC/models/cartpole" -D_GNU_SOURCE
		'-DWEFT_MODEL_VERSION="anatomy"' "${CFLAGS_BUILD[@]}"
		-ffp-contract=off -fPIC)
	mkdir -p "$d"
	cp "$SRC/models/cartpole/cartpole_shared.h" \
		"$SRC/models/cartpole/cartpole_dyn64.h" "$d/"
	patch_wk "$1" >"$d/cartpole.wk"
	"$BUILD/cli/weft-wk" -I "$SRC/include" -n cartpole \
		-o "$d/cartpole_kernels.c" -H "$d/cartpole_kernels.h" \
		"$d/cartpole.wk"
	# shellcheck disable=SC2086 # CC may be a command with words
	$CC_BUILD "${cflags[@]}" -shared -o "$d/weft-model-cartpole.so" \
		"$SRC/models/cartpole/cartpole.c" \
		"$SRC/models/cartpole/reset.c" "$d/cartpole_kernels.c" \
		"$BUILD/core/.libs/libweft.so" -lm -pthread \
		-Wl,-rpath,"$BUILD/core/.libs"
}

for b in $BUILDS; do
	plugin "$b"
done
mkdir -p "$OUT"
CSV=$OUT/runs-$ENVS.csv
echo "rep,build,env_steps_per_s" >"$CSV"
echo "cpu: $(lscpu | sed -n 's/^Model name: *//p')," \
	"family $(lscpu | sed -n 's/^CPU family: *//p')," \
	"model $(lscpu | sed -n 's/^Model: *//p')"
echo "load before: $(cut -d' ' -f1 /proc/loadavg)"
for r in $(seq "$REPS"); do
	for b in $BUILDS; do
		line=$(WEFT_MODEL_PATH=$TMP/$b \
			WEFT_PLUGIN_PATH=$BUILD/plugins/openmp/.libs \
			taskset -c "$CPU" "$BUILD/bench/cartpole-bench" openmp 1 \
			device "$ENVS" -t "$SECS" 2>&1 | tail -n 1)
		case $line in
		*env_steps_per_s=*) rate=${line##*env_steps_per_s=} ;;
		*)
			echo "cartpole-anatomy: build $b, alternation $r:" \
				"cartpole-bench said: $line" >&2
			exit 1
			;;
		esac
		echo "$r,$b,$rate" >>"$CSV"
	done
done
echo "load after: $(cut -d' ' -f1 /proc/loadavg)"
# shellcheck disable=SC2086 # one word per build
python3 - "$CSV" $BUILDS <<'EOF'
import csv
import statistics
import sys

runs = {}
for row in csv.DictReader(open(sys.argv[1])):
    runs.setdefault(row["build"], {})[row["rep"]] = float(row["env_steps_per_s"])
base = runs[sys.argv[2]]
print("%-11s %12s %12s %8s  %s" % ("build", "median", "largest",
                                    "ratio", "ratio range"))
for build in sys.argv[2:]:
    r = runs[build]
    ratios = sorted(r[k] / base[k] for k in r)
    print("%-11s %12.3e %12.3e %8.3f  %.2f to %.2f" % (
        build, statistics.median(r.values()), max(r.values()),
        statistics.median(ratios), ratios[0], ratios[-1]))
EOF
