# tests/: TAP tests run by Automake's tap-driver.sh, in a folder each by
# what they check:
#   tests/core/     the library: configuration, loader, runs, outputs,
#                   checkpoints, memory, ensembles, batches, the layers
#   tests/plugins/  the backends, the conformance suite run on each, and the
#                   test backends (fake, broken, asynchronous, the CUDA mock)
#   tests/models/   the models, their references, model plugins, the
#                   model template
#   tests/cli/      the commands: weft, weft-wk, weft-mpi, signals
#   tests/sanitize/ make check-sanitize and the fuzzers of tests/fuzz/
# Each folder has one fragment per topic, FOLDER/TOPIC.am, included at the
# end of this file: a shell test is added with
#   TESTS += tests/FOLDER/test-NAME.sh
#   EXTRA_DIST += tests/FOLDER/test-NAME.sh
# (it sources tests/tap.sh), a C test with
#   check_PROGRAMS += tests/FOLDER/test-NAME
#   TESTS += tests/FOLDER/test-NAME
#   tests_FOLDER_test_NAME_SOURCES = tests/FOLDER/test-NAME.c
#   tests_FOLDER_test_NAME_CPPFLAGS = $(WEFT_TEST_CPPFLAGS)
#   tests_FOLDER_test_NAME_LDADD = $(WEFT_TEST_LIBS)
#   tests_FOLDER_test_NAME_LDFLAGS = $(WEFT_TEST_EXPORT)
# (it includes "tap.h"; a - in NAME is a _ in the variables' names).
LOG_DRIVER = env AM_TAP_AWK='$(AWK)' $(SHELL) $(top_srcdir)/build-aux/tap-driver.sh
TEST_EXTENSIONS = .sh
SH_LOG_DRIVER = $(LOG_DRIVER)
SH_LOG_COMPILER = $(SHELL)
EXTRA_DIST += build-aux/tap-driver.sh

# Where tests find plugins built in this tree, sources and data; caches
# (weft's binary cache, the OpenCL driver's) stay in the build tree.
# LC_ALL=C: listings sort and messages read the same on every machine.
# WEFT_TEST_HOOKS: yes when the library was configured with
# --enable-test-hooks; a test that sets a hook's variable skips without.
AM_TESTS_ENVIRONMENT = \
	WEFT_PLUGIN_PATH='$(abs_top_builddir)/plugins/openmp/.libs'; export WEFT_PLUGIN_PATH; \
	WEFT_MODEL_PATH='$(abs_top_builddir)/models/seir/.libs:$(abs_top_builddir)/models/cartpole/.libs:$(abs_top_builddir)/models/template/.libs'; export WEFT_MODEL_PATH; \
	LD_LIBRARY_PATH='$(abs_top_builddir)/core/.libs:$(abs_top_builddir)/models/cartpole/.libs'$${LD_LIBRARY_PATH:+:$$LD_LIBRARY_PATH}; export LD_LIBRARY_PATH; \
	WEFT_TEST_PLUGINS='$(abs_top_builddir)/tests/plugins/fake/.libs'; export WEFT_TEST_PLUGINS; \
	WEFT_TEST_ISOLATE='$(abs_top_builddir)/tests/plugins/isolate/.libs'; export WEFT_TEST_ISOLATE; \
	WEFT_SRCDIR='$(abs_top_srcdir)'; export WEFT_SRCDIR; \
	WEFT_BUILDDIR='$(abs_top_builddir)'; export WEFT_BUILDDIR; \
	WEFT_TEST_HOOKS='$(WEFT_TEST_HOOKS)'; export WEFT_TEST_HOOKS; \
	XDG_CACHE_HOME='$(abs_top_builddir)/tests/cache'; export XDG_CACHE_HOME; \
	MPIRUN='$(MPIRUN)'; export MPIRUN; \
	LC_ALL=C; export LC_ALL;

# The TAP helpers: tests/tap.h for C tests, tests/tap.sh for shell tests.
check_LTLIBRARIES += tests/libtap.la
tests_libtap_la_SOURCES = tests/tap.h tests/tap.c tests/rnd64.h
EXTRA_DIST += tests/tap.sh

# What every C test is compiled with: tap.h's folder, beside the core's
# headers (AM_CPPFLAGS).
WEFT_TEST_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests

# What every test program links: the TAP helper and the whole library,
# internals included. Programs that load model plugins also export the
# library's API from the program (WEFT_TEST_EXPORT), the whole of it, so
# that the plugins, which link libweft.so, use this copy of it for every
# call and never a second one.
WEFT_TEST_LIBS = tests/libtap.la core/libweft-internal.la $(INIH_LIBS)
WEFT_TEST_EXPORT = -export-dynamic \
	-Wl,--whole-archive,$(top_builddir)/core/.libs/libweft-internal.a,--no-whole-archive

# Every C file follows .clang-format: a check of the whole tree.
TESTS += tests/test-format.sh
EXTRA_DIST += tests/test-format.sh .clang-format

# The binary caches of tests (weft's and the OpenCL driver's, through
# XDG_CACHE_HOME) live under the build tree.
clean-local: clean-local-test-cache
clean-local-test-cache:
	-rm -rf tests/cache
.PHONY: clean-local-test-cache

# tests/core/: the library.
include tests/core/rng.am
include tests/core/config.am
include tests/core/loader.am
include tests/core/isolation.am
include tests/core/model.am
include tests/core/commit.am
include tests/core/plot.am
include tests/core/run.am
include tests/core/checkpoint.am
include tests/core/memory.am
include tests/core/ensemble.am
include tests/core/batch.am
include tests/core/validate-once.am
include tests/core/env.am

# tests/plugins/: the backends and the conformance suite.
include tests/plugins/openmp.am
include tests/plugins/opencl.am
include tests/plugins/cuda.am
include tests/plugins/template.am
include tests/plugins/conform.am
include tests/plugins/conform-async.am
include tests/plugins/blocks.am
include tests/plugins/buildlog.am

# tests/models/: the models.
include tests/models/seir.am
include tests/models/population.am
include tests/models/cartpole.am
include tests/models/model-template.am
include tests/models/model-plugins.am
include tests/models/golden.am
include tests/models/wolf-sheep.am
include tests/models/env.am
include tests/models/acrobot.am
include tests/models/mountain-car.am
include tests/models/pendulum.am
include tests/models/minatar.am

# tests/cli/: the commands.
include tests/cli/cli.am
include tests/cli/signals.am
include tests/cli/wk.am
include tests/cli/mpi.am
include tests/cli/kstats.am

# tests/sanitize/: make check-sanitize.
include tests/sanitize/sanitize.am

# Tests added beside the others (tests/core/NAME.am).
include tests/core/hooks.am
include tests/core/long-path.am
include tests/core/layers.am
include tests/core/needs.am
include tests/core/softf64.am
include tests/core/math.am
include tests/models/template-minimal.am
include tests/models/circles.am
include tests/models/boids.am
include tests/models/abm-kit.am
include tests/models/patches.am
