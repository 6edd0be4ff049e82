#!/bin/sh
# bench/wolf-sheep-compare.sh - weft's wolf-sheep model against Mesa 3.5's
# Wolf-Sheep example (mesa.examples.advanced.wolf_sheep, the same rules and
# parameters: models/wolf-sheep/wolf-sheep.md): the agreement check, and
# with --bench the speed of both side by side.
#
#   bench/wolf-sheep-compare.sh [OPTIONS] [BUILD]
#
# BUILD is a configured and built tree (default _build at the top of the
# tree): its cli/weft runs with its own openmp plugin (plugins/openmp/.libs)
# and wolf-sheep model (models/wolf-sheep/.libs); --weft FILE, --plugins
# DIR and --models DIR name them one by one instead (an installed weft:
# --weft weft --plugins "" --models "" searches the installed directories).
#
# The check (the default). weft runs examples/wolf-sheep.ini (--ini FILE)
# for seeds 1..20 (--seeds N) on openmp with one thread (BACKEND, THREADS),
# every step written to its counts.csv (columns step, sheep, wolves, grass;
# step 0 the initial state). The mean over the seeds of each series, at
# every step the band has, must lie inside Mesa's seed-to-seed band: the 5 %
# to 95 % percentiles over Mesa's 20 seeds, widened by a slack of one
# animal or patch (BAND_SLACK, default 1: the counts are whole numbers, and
# once Mesa's wolves are extinct in every seed the band is 0..0, which a
# mean over 20 seeds would leave whenever one seed's last wolf lives a
# step longer) on at least 95 % of the steps (MIN_INSIDE, percent) for each
# of sheep, wolves and grass; and, as the band alone lets a mean drift far
# from Mesa's mean, that mean must also be within 3 standard errors of
# Mesa's mean (Mesa's sd from the band, weft's from its seeds) on at least
# 90 % of the steps (MIN_NEAR, percent) of each series. With the band
# criterion Mesa against itself (seeds 101-120, ..., 1601-1620 against the
# band of seeds 1-20) is inside on 100 % of the steps of every series. The band is
# tests/data/wolf-sheep-mesa-band.csv (bench/wolf_sheep_mesa.py made it:
# Mesa 3.5.1, the example's default parameters, 200 steps); with --fresh
# Mesa runs now (bench/mesa-venv.sh installs it) for the same seeds and
# steps instead. The INI's model parameters that have Mesa's names
# (width, height, initial_sheep, ...) must equal those the band's header
# lists. Prints a table (every 10th step and every step outside) and the
# verdict; writes compare.csv (every step) and, when a Python with
# matplotlib is found (the Mesa venv's, else python3), compare.png into
# the output directory (--out DIR, default _bench/wolf-sheep-compare).
# Each series' line gives both shares (inside the band, within 3
# standard errors) and its verdict; a series passes when both reach
# their minimum. Exit status 0 when every series passes, 1 when one
# fails, 2 on an error.
#
#   --band-only    the check with the stored band and nothing else: no
#                  Mesa, no network, no Python (sh and awk), no plot; for
#                  `make check`
#   --fresh        a fresh Mesa band instead of the stored one
#   --counts FILE  (repeatable) check these counts.csv files instead of
#                  running weft (one per seed)
#   --band FILE    another band file
#
# The benchmark (--bench): Mesa and weft one after the other on this
# machine at Mesa's example size (20 x 20, 100 sheep, 50 wolves) and at
# 100 times its agents (200 x 200, 10000 sheep, 5000 wolves: the same
# densities; the sheep crash there too, to about 20 by step 50, the wolves
# starve out by step 140 and the sheep then grow back to about 2000), for
# the same steps (BENCH_STEPS, 200) and seeds 1..3 (BENCH_SEEDS), times
# the medians over the seeds. Mesa: bench/wolf_sheep_mesa.py --timing,
# pinned to one core (taskset -c 0); its time is the step loop (model
# construction left out). weft: `weft run` on openmp with 1 thread pinned
# to one core, then 2 threads on two cores (THREADS, default "1 2"); its
# time is that of the steps, N / R from the summary's "steps N in T s (R
# steps/s)" line (setup and finish left out). Both write their counts
# every step. Each side's rate is also given in agent-steps per second
# (sheep + wolves alive at each step's start, summed over the steps, from
# its own counts: the two sides' runs differ, so this is the fairer
# rate), and the ratio per core = (weft's agent-steps/s / threads) /
# Mesa's agent-steps/s (Mesa runs on one core; a second core would run a
# second seed). The 100x keys are [MODEL] width, height, initial_sheep
# and initial_wolves of the INI times 10, 10, 100, 100 (WS_KEYS renames
# them: "W H SHEEP WOLVES"). Runs wait for idle CPUs as covasim-compare.sh
# does (bench/idle.sh: IDLE_WAIT, IDLE_BUSY); the CPU (lscpu), the load
# before and after each row, the busiest share before a run and the
# largest share others took during one are printed. SIZES ("1 10": the
# grid's scale per axis) changes the sizes.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
mode=check
band_only=
fresh=
band=$top/tests/data/wolf-sheep-mesa-band.csv
counts_given=
build=$top/_build
weft=
plugins="(unset)"
models="(unset)"
ini=$top/examples/wolf-sheep.ini
seeds=20
outdir=$top/_bench/wolf-sheep-compare
min=${MIN_INSIDE:-95}
min_near=${MIN_NEAR:-90}
slack=${BAND_SLACK:-1}
backend=${BACKEND:-openmp}

die() {
	echo "wolf-sheep-compare.sh: $*" >&2
	exit 2
}
usage() {
	sed -n '2,/^set -eu/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
	exit "$1"
}
while [ $# -gt 0 ]; do
	case $1 in
	--band-only) band_only=1 ;;
	--fresh) fresh=1 ;;
	--bench) mode=bench ;;
	--band) band=$2; shift ;;
	--band=*) band=${1#*=} ;;
	--counts) counts_given="$counts_given
$2"; shift ;;
	--counts=*) counts_given="$counts_given
${1#*=}" ;;
	--weft) weft=$2; shift ;;
	--weft=*) weft=${1#*=} ;;
	--plugins) plugins=$2; shift ;;
	--plugins=*) plugins=${1#*=} ;;
	--models) models=$2; shift ;;
	--models=*) models=${1#*=} ;;
	--ini) ini=$2; shift ;;
	--ini=*) ini=${1#*=} ;;
	--seeds) seeds=$2; shift ;;
	--seeds=*) seeds=${1#*=} ;;
	--out) outdir=$2; shift ;;
	--out=*) outdir=${1#*=} ;;
	-h | --help) usage 0 ;;
	-*) echo "wolf-sheep-compare.sh: unknown option $1" >&2; usage 2 >&2 ;;
	*) build=$1 ;;
	esac
	shift
done
[ -n "$band_only" ] && [ -n "$fresh" ] && die "--band-only and --fresh exclude each other"
[ -n "$band_only" ] && [ "$mode" = bench ] && die "--band-only and --bench exclude each other (the benchmark runs Mesa)"
case $seeds in '' | *[!0-9]* | 0) die "--seeds $seeds: expected a whole number >= 1" ;; esac
[ -n "$weft" ] || weft=$build/cli/weft
[ "$plugins" != "(unset)" ] || plugins=$build/plugins/openmp/.libs
[ "$models" != "(unset)" ] || models=$build/models/wolf-sheep/.libs

# ini_get SECTION KEY: the value of KEY in [SECTION] of the INI, comments
# (; or #) and blanks stripped; empty when absent.
ini_get() {
	awk -v sec="$1" -v key="$2" '
	{ sub(/[;#].*/, ""); gsub(/^[ \t]+|[ \t]+$/, "") }
	/^\[/ { cur = substr($0, 2, length($0) - 2); gsub(/^[ \t]+|[ \t]+$/, "", cur); next }
	cur == sec && index($0, "=") {
		k = substr($0, 1, index($0, "=") - 1); v = substr($0, index($0, "=") + 1)
		gsub(/^[ \t]+|[ \t]+$/, "", k); gsub(/^[ \t]+|[ \t]+$/, "", v)
		if (k == key) val = v
	}
	END { print val }' "$ini"
}

mesa_py() {
	py=$("$top/bench/mesa-venv.sh") || die "bench/mesa-venv.sh could not make Mesa's environment"
}

# plot_py: a Python with matplotlib into $plot_py, or empty
plot_py() {
	plot_py=
	for p in "$top/_bench/mesa-venv/bin/python" python3; do
		if "$p" -c 'import matplotlib' > /dev/null 2>&1; then
			plot_py=$p
			return 0
		fi
	done
}

mkdir -p "$outdir" || die "cannot make the output directory $outdir"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/weft-ws-XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$scratch"' EXIT

need_weft() {
	[ -x "$weft" ] || command -v "$weft" > /dev/null 2>&1 ||
		die "no weft at $weft (build BUILD, or name it with --weft FILE)"
	[ -f "$ini" ] || die "no model configuration $ini (--ini FILE)"
	model=$(ini_get simulation model)
	[ -n "$model" ] || die "$ini: [simulation] model is not set"
}

# weft_run SEED DIR T [--set ...]: one run of the INI into DIR (its log in
# DIR.log), with T OpenMP threads, every step written; under $runpfx
# (taskset in the benchmark).
runpfx=
weft_run() {
	wr_seed=$1 wr_dir=$2 wr_threads=$3
	shift 3
	$runpfx env ${plugins:+WEFT_PLUGIN_PATH=$plugins} ${models:+WEFT_MODEL_PATH=$models} \
		"$weft" run "$ini" --quiet --set "simulation.seed=$wr_seed" --set "simulation.steps=$steps" \
		--set "backend.name=$backend" --set "backend.threads=$wr_threads" \
		--set "output.directory=$wr_dir" --set output.every=1 --set output.csv=true \
		--set output.plot=none "$@" > "$wr_dir.log" 2>&1
}

# ---- the band ---------------------------------------------------------------
if [ "$mode" = check ] && [ -n "$fresh" ]; then
	mesa_py
	# the stored band's seeds and steps, unless the stored band is absent
	steps=200
	[ -f "$band" ] && steps=$(awk -F, '!/^#/ && $1 ~ /^[0-9]+$/ { s = $1 } END { print s }' "$band")
	echo "Mesa: a fresh band over seeds 1..$seeds, $steps steps ($("$py" -c 'import mesa; print("Mesa", mesa.__version__)'))" >&2
	"$py" "$top/bench/wolf_sheep_mesa.py" --seeds "$seeds" --steps "$steps" \
		--band "$scratch/band.csv" > /dev/null || die "bench/wolf_sheep_mesa.py failed"
	band=$scratch/band.csv
fi

if [ "$mode" = check ]; then
	[ -f "$band" ] || die "no band file $band"
	steps=$(awk -F, '!/^#/ && $1 ~ /^[0-9]+$/ { s = $1 } END { print s }' "$band")
	[ -n "$steps" ] || die "$band: no step rows"
	mesa_n=$(sed -n 's/^# seeds \([0-9]*\)\.\.\([0-9]*\).*/\1 \2/p' "$band" | awk '{ print $2 - $1 + 1 }')
	[ -n "$mesa_n" ] || die "$band: no '# seeds A..B' header line"

	# ---- weft's counts, one file per seed ----
	: > "$scratch/files"
	if [ -n "$counts_given" ]; then
		printf '%s\n' "$counts_given" | sed '/^$/d' > "$scratch/files"
		seeds=$(wc -l < "$scratch/files" | tr -d ' ')
		wdesc="counts files given ($seeds)"
	else
		need_weft
		# the parameters: the INI's [MODEL] keys that have Mesa's names must
		# hold Mesa's values
		sed -n 's/^# parameters //p' "$band" | tr ' ' '\n' | sed '/^$/d' > "$scratch/params"
		: > "$scratch/param-table"
		bad=0
		while IFS="=" read -r k v; do
			w=$(ini_get "$model" "$k")
			if [ -z "$w" ]; then
				echo "| $k | $v | (not in the INI) |" >> "$scratch/param-table"
				continue
			fi
			if ! awk -v a="$v" -v b="$w" 'function n(x) { x = tolower(x); return x == "true" ? 1 : x == "false" ? 0 : x + 0 }
			     BEGIN { exit !(n(a) == n(b)) }'; then
				echo "| $k | $v | $w (differs) |" >> "$scratch/param-table"
				bad=1
			else
				echo "| $k | $v | $w |" >> "$scratch/param-table"
			fi
		done < "$scratch/params"
		echo "parameters (band: Mesa's; INI: [$model] of $ini):"
		echo
		echo "| key | Mesa | weft |"
		echo "|---|---:|---:|"
		cat "$scratch/param-table"
		echo
		[ "$bad" -eq 0 ] || die "the INI's parameters differ from those of the band (above)"
		i=1
		while [ "$i" -le "$seeds" ]; do
			d=$scratch/seed-$i
			if ! weft_run "$i" "$d" "${THREADS:-1}"; then
				cat "$d.log" >&2
				die "weft run $ini (seed $i) failed: $d.log above"
			fi
			[ -f "$d/counts.csv" ] || die "weft run $ini (seed $i) wrote no counts.csv (its outputs: $(ls "$d" | tr '\n' ' '))"
			echo "$d/counts.csv" >> "$scratch/files"
			i=$((i + 1))
		done
		wdesc="$($weft --version 2>/dev/null | head -1), $(basename "$ini"), $backend, seeds 1..$seeds"
	fi

	# ---- the comparison (awk: no Python needed) ----
	# compare.csv: step, then per series weft_mean, weft_sd, mesa_mean, p5,
	# p95, mesa_sd, inside (1/0), near (1/0: within 3 standard errors)
	xargs < "$scratch/files" awk -F, -v band="$band" -v steps="$steps" -v nm="$mesa_n" -v slack="$slack" \
		-v out="$scratch/compare.csv" -v files="$scratch/files" '
	function trim(x) { gsub(/^[ \t\r]+|[ \t\r]+$/, "", x); return x }
	BEGIN {
		ns = split("sheep wolves grass", ser, " "); split("mean p5 p95 sd", cn, " ")
		while ((getline line < band) > 0) {
			if (line ~ /^#/ || line ~ /^[ \t\r]*$/) continue
			n = split(line, f, ",")
			if (!bh) { for (i = 1; i <= n; i++) bc[trim(f[i])] = i; bh = 1
				for (j = 1; j <= ns; j++) for (c = 1; c <= 4; c++) {
					col = ser[j] "_" cn[c]
					if (!(col in bc)) { print "band " band ": no column " col > "/dev/stderr"; bad = 2; exit 2 } }
				continue }
			k = trim(f[bc["step"]]) + 0
			for (j = 1; j <= ns; j++) {
				m[k, j] = f[bc[ser[j] "_mean"]]; lo[k, j] = f[bc[ser[j] "_p5"]]
				hi[k, j] = f[bc[ser[j] "_p95"]]; msd[k, j] = f[bc[ser[j] "_sd"]] }
			have[k] = 1
		}
	}
	FNR == 1 {
		nf++; fname[nf] = FILENAME; delete hc
		for (i = 1; i <= NF; i++) hc[trim($i)] = i
		for (j = 1; j <= ns; j++) if (!(ser[j] in hc)) {
			printf "%s: no column %s in its header (%s)\n", FILENAME, ser[j], $0 > "/dev/stderr"; bad = 2; exit 2 }
		if (!("step" in hc)) { printf "%s: no column step\n", FILENAME > "/dev/stderr"; bad = 2; exit 2 }
		next
	}
	/^[ \t\r]*$/ { next }
	{
		k = trim($hc["step"])
		if (k !~ /^[0-9]+$/) { printf "%s:%d: step %s is not a whole number\n", FILENAME, FNR, k > "/dev/stderr"; bad = 2; exit 2 }
		k += 0
		if (seen[nf, k]++) { printf "%s:%d: step %d twice\n", FILENAME, FNR, k > "/dev/stderr"; bad = 2; exit 2 }
		for (j = 1; j <= ns; j++) { x = trim($hc[ser[j]]) + 0; sum[k, j] += x; sq[k, j] += x * x }
	}
	END {
		if (bad) exit bad
		if (nf == 0) { print "no counts files" > "/dev/stderr"; exit 2 }
		printf "step" > out
		for (j = 1; j <= ns; j++) printf ",%s_weft_mean,%s_weft_sd,%s_mesa_mean,%s_p5,%s_p95,%s_mesa_sd,%s_inside,%s_near", ser[j], ser[j], ser[j], ser[j], ser[j], ser[j], ser[j], ser[j] > out
		printf "\n" > out
		for (k = 0; k <= steps; k++) {
			if (!have[k]) continue
			for (i = 1; i <= nf; i++) if (!seen[i, k]) {
				printf "%s: no row for step %d (the band has steps 0..%d)\n", fname[i], k, steps > "/dev/stderr"; exit 2 }
			printf "%d", k > out
			for (j = 1; j <= ns; j++) {
				wm = sum[k, j] / nf
				var = nf > 1 ? (sq[k, j] - nf * wm * wm) / (nf - 1) : 0; if (var < 0) var = 0
				in_ = (wm >= lo[k, j] - slack && wm <= hi[k, j] + slack)
				se = sqrt(msd[k, j] * msd[k, j] / nm + var / nf)
				d = wm - m[k, j]; if (d < 0) d = -d
				near = d <= 3 * se + 1e-9
				printf ",%.4g,%.4g,%s,%s,%s,%s,%d,%d", wm, sqrt(var), m[k, j], lo[k, j], hi[k, j], msd[k, j], in_, near > out
			}
			printf "\n" > out
		}
		close(out)
	}' || die "comparison failed (above)"
	cp "$scratch/compare.csv" "$outdir/compare.csv"

	echo "Wolf-Sheep: weft ($wdesc) against Mesa's band ($(sed -n '1s/^# //p' "$band" | cut -d' ' -f1-2), $mesa_n seeds; $(basename "$band")); $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "a step is inside when weft's mean over its $seeds seeds is inside Mesa's 5-95 % band widened by $slack, near when it is within 3 standard errors of Mesa's mean"
	echo "a series passes when it is inside on at least $min % of the steps and near on at least $min_near %"
	echo
	echo "| step | sheep weft | sheep Mesa (5..95 %) | wolves weft | wolves Mesa (5..95 %) | grass weft | grass Mesa (5..95 %) |"
	echo "|---:|---:|---:|---:|---:|---:|---:|"
	awk -F, 'NR > 1 {
		out = !$8 || !$16 || !$24
		if (($1 % 10) == 0 || out)
			printf "| %d | %s%s | %s (%s..%s) | %s%s | %s (%s..%s) | %s%s | %s (%s..%s) |\n", $1,
			       $2, $8 ? "" : " **out**", $4, $5, $6, $10, $16 ? "" : " **out**", $12, $13, $14,
			       $18, $24 ? "" : " **out**", $20, $21, $22 }' "$scratch/compare.csv"
	echo
	verdict=$(awk -F, -v min="$min" -v min_near="$min_near" 'NR > 1 { n++; for (j = 0; j < 3; j++) { in_[j] += $(8 + 8 * j); near[j] += $(9 + 8 * j) } }
	END {
		split("sheep wolves grass", s, " "); fail = 0
		for (j = 0; j < 3; j++) {
			p = 100 * in_[j] / n; q = 100 * near[j] / n
			ok = p >= min && q >= min_near; fail += !ok
			printf "%s: inside the band on %d of %d steps (%.1f %%, need %s %%), within 3 standard errors of Mesa'"'"'s mean on %d (%.1f %%, need %s %%): %s\n",
			       s[j + 1], in_[j], n, p, min, near[j], q, min_near, ok ? "pass" : "FAIL"
		}
		print fail ? "FAIL" : "PASS"
	}' "$scratch/compare.csv")
	echo "$verdict"
	echo "(every step: $outdir/compare.csv)"

	if [ -z "$band_only" ]; then
		plot_py
		if [ -n "$plot_py" ]; then
			"$plot_py" - "$outdir/compare.csv" "$outdir/compare.png" "$seeds" "$mesa_n" << 'EOF' &&
import csv, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
src, png, nw, nm = sys.argv[1:5]
rows = list(csv.DictReader(open(src)))
k = [int(r["step"]) for r in rows]
fig, axes = plt.subplots(3, 1, figsize=(9, 9), sharex=True)
for ax, s, colour in zip(axes, ("sheep", "wolves", "grass"), ("tab:cyan", "tab:orange", "tab:green")):
    col = lambda c: [float(r[f"{s}_{c}"]) for r in rows]
    ax.fill_between(k, col("p5"), col("p95"), color=colour, alpha=0.25, label=f"Mesa 5-95 % ({nm} seeds)")
    ax.plot(k, col("mesa_mean"), color=colour, linestyle="--", label="Mesa mean")
    ax.plot(k, col("weft_mean"), color="black", linewidth=1.2, label=f"weft mean ({nw} seeds)")
    out = [(x, y) for x, y, i in zip(k, col("weft_mean"), col("inside")) if not i]
    if out:
        ax.plot(*zip(*out), "rx", label="outside the band")
    ax.set_ylabel(s if s != "grass" else "grass (grown patches)")
    ax.legend(loc="best", fontsize=8)
axes[-1].set_xlabel("step")
fig.suptitle("Wolf-Sheep: weft against Mesa 3.5")
fig.tight_layout()
fig.savefig(png, dpi=100)
EOF
				echo "(plot: $outdir/compare.png)"
		else
			echo "(no plot: no Python with matplotlib)"
		fi
	fi
	case $verdict in *FAIL) exit 1 ;; esac
	exit 0
fi

# ---- the benchmark ------------------------------------------------------------
need_weft
mesa_py
. "$top/bench/idle.sh"
out=$scratch
steps=${BENCH_STEPS:-200}
nseeds=${BENCH_SEEDS:-3}
sizes=${SIZES:-1 10}
threads=${THREADS:-1 2}
set -- ${WS_KEYS:-width height initial_sheep initial_wolves}
[ $# -eq 4 ] || die "WS_KEYS: expected four key names (width, height, sheep, wolves), got '$*'"
kw=$1 kh=$2 ks=$3 kv=$4
for k in "$kw" "$kh" "$ks" "$kv"; do
	[ -n "$(ini_get "$model" "$k")" ] || die "$ini: [$model] $k is not set (the 100x size scales it; WS_KEYS renames the keys)"
done
w0=$(ini_get "$model" "$kw") h0=$(ini_get "$model" "$kh") s0=$(ini_get "$model" "$ks") v0=$(ini_get "$model" "$kv")
command -v taskset > /dev/null 2>&1 && pin=1 || pin=

# agent_steps FILE: sheep + wolves at the start of each step (rows 0..S-1)
agent_steps() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	         { r[$c["step"] + 0] = $c["sheep"] + $c["wolves"]; if ($c["step"] + 0 > last) last = $c["step"] + 0 }
	         END { for (k = 0; k < last; k++) a += r[k]; print a }' "$1"
}

echo "Wolf-Sheep, Mesa $("$py" -c 'import mesa; print(mesa.__version__)') against $("$weft" --version 2>/dev/null | head -1) ($backend); $steps steps; seeds 1-$nseeds, medians; $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "CPU: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1) ($(nproc) CPUs); pinned with taskset: $([ -n "$pin" ] && echo yes || echo "no (not installed)")"
echo
echo "| grid | agents at start | Mesa ms/step | Mesa agent-steps/s | weft threads | weft ms/step | weft agent-steps/s | ratio (ms/step) | ratio per core (agent-steps/s) | load before-after, busy before, others during |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
for f in $sizes; do
	gw=$((w0 * f)) gh=$((h0 * f)) ns=$((s0 * f * f)) nw=$((v0 * f * f))
	l0=$(load)
	: > "$out/busy"
	timed ${pin:+taskset -c 0} "$py" "$top/bench/wolf_sheep_mesa.py" --seeds "$nseeds" --steps "$steps" \
		--scale "$f" --timing > "$out/mesa" || die "bench/wolf_sheep_mesa.py failed"
	mesa_ms=$(awk '{ print $10 }' "$out/mesa" | median)
	mesa_rate=$(awk '{ print $14 }' "$out/mesa" | median)
	for t in $threads; do
		runpfx=${pin:+taskset -c $(seq -s, 0 $((t - 1)))}
		: > "$out/w"
		i=1
		while [ "$i" -le "$nseeds" ]; do
			d=$out/w-$f-$t-$i
			timed weft_run "$i" "$d" "$t" --set "$model.$kw=$gw" --set "$model.$kh=$gh" \
				--set "$model.$ks=$ns" --set "$model.$kv=$nw" ||
				{ cat "$d.log" >&2; die "weft run failed (size x$f, $t threads, seed $i)"; }
			# the steps' time from the summary's rate ("steps N in T s (R
			# steps/s)"): T has 3 decimals, R more digits at this size
			st=$(awk '$1 == "steps" && $3 == "in" { r = $6; sub(/^\(/, "", r); if (r > 0) printf "%.9g\n", $2 / r }' "$d.log")
			[ -n "$st" ] || die "$d.log: no 'steps N in T s (R steps/s)' line"
			echo "$st $(agent_steps "$d/counts.csv")" >> "$out/w"
			i=$((i + 1))
		done
		weft_ms=$(awk -v n="$steps" '{ print 1e3 * $1 / n }' "$out/w" | median)
		weft_rate=$(awk '{ print ($1 > 0 ? $2 / $1 : 0) }' "$out/w" | median)
		bm=$(sort -n -k1,1 "$out/busy" | tail -1 | cut -d' ' -f1)
		om=$(sort -n -k2,2 "$out/busy" | tail -1 | cut -d' ' -f2)
		echo "$gw $gh $((ns + nw)) $mesa_ms $mesa_rate $t $weft_ms $weft_rate $l0 $(load) $bm $om" | awk '{
			printf "| %d x %d | %d | %.3f | %.3g | %d | %.4f | %.3g | %.1fx | %.1fx | %s-%s, %s %%, %s %% |\n",
			       $1, $2, $3, $4, $5, $6, $7, $8, ($7 > 0 ? $4 / $7 : 0), ($5 > 0 ? $8 / $6 / $5 : 0), $9, $10, $11, $12 }'
	done
done
