# bench/: weft timed against its peers, and bench/validate/: weft's
# results checked against its peers' (bench/README.md says which script
# measures what). Every script is in the release tarball, so that the
# ones the docs name run from a release as from a clone. The scripts that
# check weft on a GPU machine are developer tooling: .ci/gpu-prepare.sh
# and .ci/gpu-check.sh (in EXTRA_DIST in Makefile.am).

# Timing against peers (docs/benchmarks.md, docs/scaling.md), and the
# helpers they share with bench/validate/: bench/covasim-venv.sh (the
# Covasim environment, made by bench/pypi-venv.sh) and bench/covasim_run.py (Covasim's runs, timed and
# as the validation's reference); bench/idle.sh is sourced by the timing
# scripts that wait for idle CPUs.
EXTRA_DIST += bench/README.md bench/seir-backends.sh bench/seir-prevalence.sh \
	bench/seir-profile.sh bench/seir-mechanisms.sh bench/replicas.sh \
	bench/covasim-compare.sh bench/covasim_run.py bench/covasim-venv.sh \
	bench/pypi-venv.sh \
	bench/covasim-mechanisms.sh bench/idle.sh bench/cartpole_python.py

# Wolf-Sheep against Mesa 3.5: the agreement check against Mesa's band
# (tests/data/wolf-sheep-mesa-band.csv) and the timing side by side;
# bench/mesa-venv.sh makes Mesa's environment, bench/wolf_sheep_mesa.py
# runs Mesa's example.
EXTRA_DIST += bench/wolf-sheep-compare.sh bench/wolf_sheep_mesa.py \
	bench/mesa-venv.sh tests/data/wolf-sheep-mesa-band.csv

# The patch model against laser-measles' agent-based model: the agreement
# check (bench/laser-measles-compare.sh), laser-measles' runs and weft's
# keys for them (bench/laser_measles_run.py), its environment
# (bench/laser-measles-venv.sh).
EXTRA_DIST += bench/laser-measles-compare.sh bench/laser_measles_run.py \
	bench/laser-measles-venv.sh

# RL environments side by side per core (docs/benchmarks.md):
# bench/rl_compare.py runs one peer, bench/puffer-cartpole-bench.c is
# built by the script against PufferLib's sdist (not by make);
# bench/cartpole-anatomy.sh times CartPole's C API against timing-only
# builds of its plugin.
EXTRA_DIST += bench/rl-compare.sh bench/rl_compare.py \
	bench/puffer-cartpole-bench.c bench/cartpole-anatomy.sh

# Calibration's recovery of known parameters, and the same fit side by
# side with Covasim's cv.Calibration (docs/calibration.md).
EXTRA_DIST += bench/calibrate-recovery.py bench/calibrate-covasim.py

# The agreement checks against Covasim, and [seir] r0's calibration.
EXTRA_DIST += bench/validate/covasim-validate.sh \
	bench/validate/covasim_validate.py bench/validate/covasim_params.py \
	bench/validate/covasim-severity.sh bench/validate/covasim_severity.py \
	bench/validate/seir-r0.sh bench/validate/covasim-waning.sh \
	bench/validate/covasim_waning.py bench/validate/covasim-variants.sh \
	bench/validate/covasim_variants.py
EXTRA_DIST += bench/validate/covasim-vaccine.sh \
	bench/validate/covasim_vaccine.py bench/validate/covasim-scenario.sh \
	bench/validate/covasim-early.sh

# bench/cuda-bench: step() overhead with and without CUDA graphs, copy
# bandwidth and the SEIR transmission kernel's throughput, through the
# plugin's vtable. Built with the tests (never installed);
# .ci/gpu-check.sh runs it on a GPU machine.
if BUILD_CUDA
check_PROGRAMS += bench/cuda-bench
bench_cuda_bench_SOURCES = bench/cuda-bench.c
bench_cuda_bench_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/models/seir \
	-I$(top_builddir)/models/seir
bench_cuda_bench_LDADD = models/seir/libseir.la core/libweft-internal.la \
	$(INIH_LIBS)
endif

# bench/cartpole-bench: environment steps per second of the CartPole model
# through its C API, host actions and on-device policy (bench/cartpole.sh
# runs it on each backend, and bench/cartpole_gym.py the Python peers).
# Built with the tests, against libweft's public API alone.
check_PROGRAMS += bench/cartpole-bench
bench_cartpole_bench_SOURCES = bench/cartpole-bench.c
bench_cartpole_bench_LDADD = models/cartpole/libweft-cartpole.la \
	core/libweft.la
EXTRA_DIST += bench/cartpole.sh bench/cartpole_gym.py

# bench/shared-machine.sh: the OpenMP backend at 1 and 2 threads with and
# without a competing busy process (docs/benchmarks.md, "OpenMP on a
# shared machine"); runs bench/cartpole-bench and the weft command.
EXTRA_DIST += bench/shared-machine.sh

# bench/partition-graph: the SEIR contact graph read back from the device
# through libweft's public API; bench/partition-cut.sh partitions it
# (bench/partition_cut.py, METIS and KaHIP from PyPI) for docs/scaling.md.
check_PROGRAMS += bench/partition-graph
bench_partition_graph_SOURCES = bench/partition-graph.c
bench_partition_graph_LDADD = core/libweft.la
EXTRA_DIST += bench/partition-cut.sh bench/partition_cut.py

# bench/ensemble-scaling.sh: a 200-run ensemble with weft run, weft-mpi
# at K = 1 and 2, and Covasim's MultiSim (bench/covasim_multisim.py);
# docs/benchmarks.md, "Ensembles over MPI".
EXTRA_DIST += bench/ensemble-scaling.sh bench/covasim_multisim.py

# bench/blocks-bench: weft's building blocks (weft/blocks.h) through a
# backend's vtable beside a memcpy; bench/blocks.sh runs it on the OpenMP
# backend at one thread beside numpy (bench/blocks_numpy.py) for
# docs/benchmarks.md. Its kernels are weft/blocks.wk alone, through
# weft-wk (-n bb). Built with the tests.
check_PROGRAMS += bench/blocks-bench
bench_blocks_bench_SOURCES = bench/blocks-bench.c
nodist_bench_blocks_bench_SOURCES = bench/bb_kernels.c bench/bb_kernels.h
bench_blocks_bench_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_builddir)/bench
bench_blocks_bench_LDADD = core/libweft.la
BUILT_SOURCES += bench/bb_kernels.c bench/bb_kernels.h
CLEANFILES += bench/bb_kernels.c bench/bb_kernels.h
EXTRA_DIST += bench/blocks.sh bench/blocks_numpy.py bench/blocks-bench.wk \
	bench/cub-bench.cu
bench/bb_kernels.h: bench/bb_kernels.c
bench/blocks_bench-blocks-bench.$(OBJEXT): bench/bb_kernels.h
bench/bb_kernels.c: $(top_srcdir)/bench/blocks-bench.wk \
		$(top_srcdir)/include/weft/blocks.wk \
		$(top_srcdir)/include/weft/kernel.h $(WEFT_WK)
	$(AM_V_GEN)$(MKDIR_P) bench && $(WEFT_WK_RUN) -n bb \
		-o bench/bb_kernels.c -H bench/bb_kernels.h \
		$(top_srcdir)/bench/blocks-bench.wk

# A validation's figure: the peer's band and mean and weft's mean, drawn
# by laser-compare.sh, laser-measles-compare.sh and starsim-demog.sh with
# --figure; SEIR's cost of patches (bench/seir-patches.sh).
EXTRA_DIST += bench/band-figure.py bench/seir-patches.sh
