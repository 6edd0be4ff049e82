#!/bin/sh
# tests/models/test-graph.sh - the contact-graph kit (weft/graph.h,
# weft/graph.wk): tests/models/test-graph walks every row of a CSR graph
# of several rows per node (degrees 0 to 100000) with skip sampling at
# chances 0, 2^-28, about 1e-6 and 1e-4, 0.1, 0.5, 0.9, 1 and above, and
# compares the places visited, their count, the candidates and the
# neighbours read with a plain C reference, exactly, and the counts with
# the chances; on each backend built here (the host one at one and two
# threads: tests/models/vt-drive.sh).
set -u
srcdir=${WEFT_SRCDIR:-$(dirname "$0")/../..}
. "$srcdir/tests/tap.sh"
. "$srcdir/tests/models/vt-drive.sh"

vt_drive_all test-graph weft-graph \
	"skip sampling over CSR rows matches the C reference"
tap_done
