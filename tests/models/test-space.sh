#!/bin/sh
# tests/models/test-space.sh - the continuous space kit (weft/space.h,
# weft/space.wk): tests/models/space-test rebuilds the bins of walled and
# wrapped 2-D and 3-D spaces (agents outside a walled box; tori of 1, 2, 3
# and more cells per axis; 0, 1 and thousands of agents; pairs at the
# last float of a cell and the first of the cell after next; a torus
# position whose offset rounds to the box's width) and visits every
# agent's neighbours, and compares the cells' starts, the permutation,
# the gathered fields and each agent's candidates, neighbours within the
# radius (each in an adjacent cell) and the iterator's shifts with a C
# reference, exactly; and checks weft_space_params' refusals; on each
# backend built here (the host one at one and two threads).
set -u
srcdir=${WEFT_SRCDIR:-$(dirname "$0")/../..}
. "$srcdir/tests/tap.sh"
. "$srcdir/tests/models/vt-drive.sh"

vt_drive_all space-test weft-space \
	"space rebuild and neighbour visits match the C reference"
tap_done
