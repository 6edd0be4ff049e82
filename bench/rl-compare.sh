#!/bin/bash
# bench/rl-compare.sh - reinforcement-learning environments side by side,
# per core: weft (from Python with host actions, OpenMP with one thread;
# and CartPole's C API, bench/cartpole-bench: weft-c-host sends the
# actions and reads the results back, weft-c-device writes the actions in
# place and leaves the results where they are, as PufferLib's own C loop
# does, weft-c-policy steps with the on-device policy) against PufferLib
# 3's C CartPole, EnvPool, gymnax (jit + lax.scan on the CPU; as
# gymnax-obs with every step's observation used, since XLA drops what
# nothing uses) and Gymnasium (SyncVectorEnv; its own numpy vector env
# where it has one); for MinAtar also obs-floor, no environment at all: a
# numpy array of N observations set to 0 each step, what writing the
# observations alone costs on this core.
#
#   bench/rl-compare.sh [BUILD_DIR] [SECONDS]
#
# BUILD_DIR (default _build): a configured build tree where `make check`
# has built bench/cartpole-bench and the OpenMP and CartPole plugins (or
# just those: `make models/cartpole/cartpole_kernels.h && make
# bench/cartpole-bench plugins/openmp/weft-backend-openmp.la
# models/cartpole/weft-model-cartpole.la`), found through
# WEFT_MODEL_PATH and WEFT_PLUGIN_PATH; weft's
# Python package is taken from python/ (the extension built in place, see
# python/README.md). SECONDS (default 0.5): timed seconds per point.
#
# What it does:
#  - makes _bench/rl-venv (python3 -m venv; pip install numpy gymnasium
#    envpool gymnax "jax[cpu]" six) unless it is there; a peer whose
#    package cannot be installed or imported is skipped, with the reason
#    in the CSV (SKIP rows);
#  - downloads PufferLib 3.0.0's sdist from PyPI (pip download cannot be
#    used: preparing its metadata runs its setup.py, which downloads
#    raylib and builds torch extensions), unpacks
#    pufferlib/ocean/cartpole/cartpole.h and builds
#    bench/puffer-cartpole-bench.c against it with a stub raylib.h and
#    PufferLib's own release flags;
#  - RL_REPS (3) repetitions, interleaved: each repetition runs every
#    (peer, environment) once, one process at a time pinned to one core
#    (taskset -c RL_CPU, default 0), with `uptime` recorded before each;
#  - writes _bench/rl-compare/results.csv (rep, peer, env, envs, rate,
#    load1, uptime) and _bench/rl-compare/table.md (medians);
#  - when the median 1-minute load was above 3, runs the CartPole rows of
#    weft (Python and C API), PufferLib and EnvPool again at the end
#    (RL_RERUN_REPS, default 3, interleaved) into rerun.csv / rerun.md.
#
# Sizes: RL_SIZES (8,1024,65536). Gymnasium's SyncVectorEnv is run at 8
# and 1,024 only (RL_SYNC_SIZES): a Python loop over environments at
# about 1e5 env steps/s, 65,536 would take most of a second per step and
# minutes to build. RL_ENVS picks the environments.
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$SRC/_build}" && pwd)
SECS=${2:-0.5}
OUT=$SRC/_bench/rl-compare
VENV=$SRC/_bench/rl-venv
CPU=${RL_CPU:-0}
REPS=${RL_REPS:-3}
SIZES=${RL_SIZES:-8,1024,65536}
SYNC_SIZES=${RL_SYNC_SIZES:-8,1024}
ENVS=${RL_ENVS:-"CartPole-v1 Acrobot-v1 MountainCar-v0 MountainCarContinuous-v0 Pendulum-v1 MinAtar/Breakout-v1"}
PY=$VENV/bin/python
mkdir -p "$OUT"

if [ ! -x "$PY" ]; then
	python3 -m venv "$VENV" || { echo "rl-compare: no venv" >&2; exit 1; }
	"$VENV/bin/pip" install -q numpy gymnasium || exit 1
	for p in envpool gymnax "jax[cpu]" six; do
		"$VENV/bin/pip" install -q "$p" ||
			echo "rl-compare: pip install $p failed; its peer is skipped" >&2
	done
fi

# PufferLib's C CartPole from its sdist.
PUFFER=$OUT/puffer-cartpole-bench
if [ ! -x "$PUFFER" ]; then
	(
		set -e
		cd "$OUT"
		if [ ! -f pufferlib-3.0.0.tar.gz ]; then
			url=$(curl -fsS -H 'Accept: application/vnd.pypi.simple.v1+json' \
				https://pypi.org/simple/pufferlib/ |
				python3 -c 'import json,sys; print([f["url"] for f in json.load(sys.stdin)["files"] if f["filename"]=="pufferlib-3.0.0.tar.gz"][0])')
			curl -fsS -o pufferlib-3.0.0.tar.gz "$url"
		fi
		tar xzf pufferlib-3.0.0.tar.gz pufferlib-3.0.0/pufferlib/ocean/cartpole/cartpole.h
		mkdir -p stub
		cat >stub/raylib.h <<'EOF'
/* Stub of the raylib declarations PufferLib's cartpole.h uses: the
 * benchmark never renders. */
typedef struct Color { unsigned char r, g, b, a; } Color;
typedef struct Vector2 { float x, y; } Vector2;
#define KEY_ESCAPE 256
#define KEY_TAB 258
static inline void InitWindow(int w, int h, const char *t) { (void)w; (void)h; (void)t; }
static inline void SetTargetFPS(int f) { (void)f; }
static inline void CloseWindow(void) {}
static inline int IsKeyDown(int k) { (void)k; return 0; }
static inline int IsKeyPressed(int k) { (void)k; return 0; }
static inline void ToggleFullscreen(void) {}
static inline void BeginDrawing(void) {}
static inline void EndDrawing(void) {}
static inline void ClearBackground(Color c) { (void)c; }
static inline void DrawLine(int a, int b, int c, int d, Color e) { (void)a; (void)b; (void)c; (void)d; (void)e; }
static inline void DrawRectangle(int a, int b, int c, int d, Color e) { (void)a; (void)b; (void)c; (void)d; (void)e; }
static inline void DrawLineEx(Vector2 a, Vector2 b, float c, Color d) { (void)a; (void)b; (void)c; (void)d; }
static inline const char *TextFormat(const char *f, ...) { return f; }
static inline void DrawText(const char *t, int a, int b, int c, Color d) { (void)t; (void)a; (void)b; (void)c; (void)d; }
EOF
		${CC:-gcc} -O2 -flto -fwrapv -DPLATFORM_DESKTOP -Istub \
			-Ipufferlib-3.0.0/pufferlib/ocean/cartpole \
			-o puffer-cartpole-bench "$SRC/bench/puffer-cartpole-bench.c" -lm
	) || echo "rl-compare: PufferLib's CartPole could not be built; skipped" >&2
fi

CBENCH=$BUILD/bench/cartpole-bench

# run CSV REP PEER ENV: one timed process on one core; appends rows.
run() {
	local csv=$1 rep=$2 peer=$3 env=$4 up load sizes=$SIZES
	up=$(uptime)
	load=$(echo "$up" | sed 's/.*load average: *\([0-9.]*\).*/\1/')
	[ "$peer" = gym-sync ] && sizes=$SYNC_SIZES
	case $peer in
	weft-c-host | weft-c-device | weft-c-policy)
		[ -x "$CBENCH" ] || { echo "$rep,$peer,$env,,,$load,\"no $CBENCH\"" >>"$csv"; return; }
		WEFT_MODEL_PATH=$BUILD/models/cartpole/.libs WEFT_PLUGIN_PATH=$BUILD/plugins/openmp/.libs \
			taskset -c "$CPU" "$CBENCH" openmp 1 "${peer#weft-c-}" ${sizes//,/ } -t "$SECS" |
			sed -n 's/.*envs=\([0-9]*\) .*env_steps_per_s=\([0-9.e+]*\).*/\1 \2/p' ;;
	pufferlib-c)
		[ -x "$PUFFER" ] || { echo "$rep,$peer,$env,,,$load,\"not built\"" >>"$csv"; return; }
		taskset -c "$CPU" "$PUFFER" ${sizes//,/ } -t "$SECS" |
			sed -n 's/.*envs=\([0-9]*\) .*env_steps_per_s=\([0-9.e+]*\).*/\1 \2/p' ;;
	*)
		PYTHONPATH=$SRC/python taskset -c "$CPU" "$PY" "$SRC/bench/rl_compare.py" \
			"$peer" "$env" -n "$sizes" -s "$SECS" 2>>"$OUT/stderr.log" |
			sed -n -e 's/^RESULT.*envs=\([0-9]*\) .*env_steps_per_s=\([0-9.e+]*\).*/\1 \2/p' \
				-e 's/^SKIP.*envs=\([0-9]*\) reason=\(.*\)/\1 SKIP:\2/p' ;;
	esac | while read -r n rate; do
		case $rate in
		SKIP:*) echo "$rep,$peer,$env,$n,,$load,\"${rate#SKIP:}\"" ;;
		*) echo "$rep,$peer,$env,$n,$rate,$load,\"$up\"" ;;
		esac
	done >>"$csv"
	echo "rl-compare: rep $rep $peer $env done ($(date -u +%H:%M:%S), load $load)" >&2
}

peers_for() {
	case $1 in
	CartPole-v1) echo weft-py weft-c-host weft-c-device weft-c-policy pufferlib-c envpool gymnax gymnax-obs gym-vector gym-sync ;;
	MinAtar/*) echo weft-py gymnax gymnax-obs obs-floor ;;
	*) echo weft-py weft-py-f32 envpool gymnax gymnax-obs gym-sync ;;
	esac
}

# median_load CSV
median_load() {
	cut -d, -f6 "$1" | grep -v load1 | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

CSV=$OUT/results.csv
echo "rep,peer,env,envs,rate,load1,uptime" >"$CSV"
echo "rl-compare: $(date -u) on $(lscpu | sed -n 's/^Model name: *//p'), pinned to CPU $CPU" >&2
for rep in $(seq "$REPS"); do
	for env in $ENVS; do
		for peer in $(peers_for "$env"); do
			run "$CSV" "$rep" "$peer" "$env"
		done
	done
done
"$PY" "$SRC/bench/rl_compare.py" --summarize "$CSV" "$OUT/table.md"

ML=$(median_load "$CSV")
if awk -v l="$ML" 'BEGIN {exit !(l > 3)}'; then
	echo "rl-compare: median load $ML > 3: CartPole rows of weft, PufferLib and EnvPool again" >&2
	RE=$OUT/rerun.csv
	echo "rep,peer,env,envs,rate,load1,uptime" >"$RE"
	for rep in $(seq "${RL_RERUN_REPS:-3}"); do
		for peer in weft-py weft-c-host weft-c-device weft-c-policy pufferlib-c envpool; do
			run "$RE" "$rep" "$peer" CartPole-v1
		done
	done
	"$PY" "$SRC/bench/rl_compare.py" --summarize "$RE" "$OUT/rerun.md"
fi
echo "rl-compare: done $(date -u); $CSV, $OUT/table.md" >&2
