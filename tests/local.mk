# tests/: TAP tests run by Automake's tap-driver.sh. Topic fragments below
# add their programs to check_PROGRAMS and TESTS.
LOG_DRIVER = env AM_TAP_AWK='$(AWK)' $(SHELL) $(top_srcdir)/build-aux/tap-driver.sh
EXTRA_DIST += build-aux/tap-driver.sh

# Where tests find plugins built in this tree, sources and data; caches
# (weft's binary cache, the OpenCL driver's) stay in the build tree.
AM_TESTS_ENVIRONMENT = \
	WEFT_PLUGIN_PATH='$(abs_top_builddir)/plugins/openmp/.libs'; export WEFT_PLUGIN_PATH; \
	WEFT_MODEL_PATH='$(abs_top_builddir)/models/seir/.libs:$(abs_top_builddir)/models/cartpole/.libs:$(abs_top_builddir)/models/template/.libs'; export WEFT_MODEL_PATH; \
	LD_LIBRARY_PATH='$(abs_top_builddir)/core/.libs:$(abs_top_builddir)/models/cartpole/.libs'$${LD_LIBRARY_PATH:+:$$LD_LIBRARY_PATH}; export LD_LIBRARY_PATH; \
	WEFT_TEST_PLUGINS='$(abs_top_builddir)/tests/plugins/.libs'; export WEFT_TEST_PLUGINS; \
	WEFT_TEST_ISOLATE='$(abs_top_builddir)/tests/isolate/.libs'; export WEFT_TEST_ISOLATE; \
	WEFT_SRCDIR='$(abs_top_srcdir)'; export WEFT_SRCDIR; \
	WEFT_BUILDDIR='$(abs_top_builddir)'; export WEFT_BUILDDIR; \
	XDG_CACHE_HOME='$(abs_top_builddir)/tests/cache'; export XDG_CACHE_HOME; \
	MPIRUN='$(MPIRUN)'; export MPIRUN;

check_LTLIBRARIES += tests/libtap.la
tests_libtap_la_SOURCES = tests/tap.h tests/tap.c

# What every test program links: the TAP helper and the whole library,
# internals included. Programs that load model plugins also export the
# library's API from the program (WEFT_TEST_EXPORT), the whole of it, so
# that the plugins, which link libweft.so, use this copy of it for every
# call and never a second one.
WEFT_TEST_LIBS = tests/libtap.la core/libweft-internal.la $(INIH_LIBS)
WEFT_TEST_EXPORT = -export-dynamic \
	-Wl,--whole-archive,$(top_builddir)/core/.libs/libweft-internal.a,--no-whole-archive

include tests/rng.am
include tests/config.am
include tests/loader.am
include tests/isolation.am
include tests/openmp.am
include tests/model.am
include tests/seir.am
include tests/population.am
include tests/cuda.am
include tests/cli.am
include tests/commit.am
include tests/signals.am
include tests/template.am
include tests/model-template.am
include tests/conform.am
include tests/conform-async.am
include tests/sanitize.am
include tests/opencl.am
include tests/cartpole.am
include tests/plot.am
include tests/run.am
include tests/wk.am
include tests/model-plugins.am
include tests/golden.am
include tests/checkpoint.am
include tests/memory.am
include tests/ensemble.am
include tests/batch.am
include tests/mpi.am
