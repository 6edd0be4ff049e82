#!/bin/sh
# tests/data/refresh.sh - how the reference outputs of tests/models/test-golden.sh
# were made. cartpole-*: by weft as it was before models became plugins
# (commit 4040abb, "Layout: public headers in include/weft, ..."), but for
# the first row of cartpole-episodes.csv, remade by the run below (issue
# 17: an interval in which no episode ended has empty means, not 0). astoria-*:
# remade when SEIR became Covasim's epidemic (issue 16: skip sampling,
# Covasim's course and contact draws change Astoria's epidemic on purpose),
# and again when severe courses got their stages (issue 17: new columns,
# and the stages drawn on their own change who recovers when), and when
# reproduction numbers were added (issue 17: two columns and summary lines
# appended, the earlier columns unchanged), and when testing and tracing
# added four columns before those two (zeros for Astoria: its first 18
# columns unchanged) and words to the parameters, tally and series,
# and when a mild course became its days to symptoms plus the rest
# (issue 17: symptoms inside the course, as Covasim's; other draws, the
# same law), by the same run from a build tree, with the build's plugins:
#
#   WEFT_PLUGIN_PATH=$B/plugins/openmp/.libs WEFT_MODEL_PATH=$B/models/seir/.libs \
#     $B/cli/weft run --quiet examples/astoria.ini --set backend.name=openmp \
#     --set output.plot=none --set output.directory=DIR
#
# and DIR's daily.csv and summary.txt copied to astoria-*. The first
# references were made by weft 4040abb built and installed on its own:
#
#   git worktree add /tmp/ref 4040abb && cd /tmp/ref && ./autogen.sh &&
#   mkdir _b && cd _b && ../configure --prefix=/tmp/ref/_i && make install
#
# then this script, from the top of the source tree:
#
#   tests/data/refresh.sh [/tmp/ref/_i/bin/weft]
#
# It runs examples/astoria.ini and examples/cartpole.ini on openmp (their
# models compiled in, the installed backends; WEFT_PLUGIN_PATH and
# WEFT_MODEL_PATH unset), with [output] plot = none, and keeps the CSV and
# summary.txt of each:
#
#   astoria-daily.csv     astoria-summary.txt
#   cartpole-episodes.csv cartpole-summary.txt
#
# summary.txt holds no timings (those are on the command's standard
# output, which is not kept): no line of it varied between two runs each
# on openmp and opencl, so it is kept whole. The files are small (under
# 5 kB), so they are stored as they are, not as digests.
set -eu
weft=${1:-/tmp/ref/_i/bin/weft}
data=$(dirname "$0")
src=$data/../..
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-refresh-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

run() {
	env -u WEFT_PLUGIN_PATH -u WEFT_MODEL_PATH "$weft" run --quiet \
		"$src/examples/$1.ini" --set backend.name=openmp \
		--set output.plot=none --set output.directory="$tmp/$1" > /dev/null
	cp "$tmp/$1/$2" "$data/$1-$2"
	cp "$tmp/$1/summary.txt" "$data/$1-summary.txt"
}

run astoria daily.csv
run cartpole episodes.csv
