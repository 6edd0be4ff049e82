# core/: libweft, the library every application, model and backend
# harness links, in layers (one folder each): util/ (the context,
# strings, child processes), plugin/ (plugin files), config/ (the
# configuration), output/ (output files and their commit), run/ (a run:
# validation, the step loop, the model API, checkpoints) and ensemble/.
#
# Everything the library is made of goes into one convenience library,
# core/libweft-internal.la: libweft.la wraps it with the exported
# interface, and tests link it directly so they can reach internal
# functions. It is core/libweft-body.la, the library but its test hooks,
# and this build's hooks (util.h: weft__test_hook): core/util/hooks.c
# with configure --enable-test-hooks (the WEFT_TEST_* variables the tests
# set), core/util/nohooks.c (none) without. tests/core/hooks.am links the
# body with nohooks.c into a release library and checks that it names no
# hook.
noinst_LTLIBRARIES += core/libweft-body.la core/libweft-internal.la
core_libweft_body_la_SOURCES = \
	core/internal.h \
	$(core_util) $(core_plugin) $(core_config) $(core_output) $(core_run) \
	$(core_ensemble)
if WEFT_TEST_HOOKS
core_libweft_internal_la_SOURCES = core/util/hooks.c
else
core_libweft_internal_la_SOURCES = core/util/nohooks.c
endif
core_libweft_internal_la_LIBADD = core/libweft-body.la $(INIH_LIBS) \
	$(XXHASH_LIBS) -lpthread -lm
# One variable a folder, bottom layer first: each folder calls and
# includes only the ones above it in this list (tests/core/test-layers.sh).
core_util = core/util/util.h core/util/util.c core/util/context.c \
	core/util/elf.c core/util/child.c core/util/value.c \
	core/util/crash.h core/util/crash.c
core_plugin = core/plugin/plugin.h core/plugin/loader.c \
	core/plugin/isolate.c core/plugin/backends.c core/plugin/models.c \
	core/plugin/envs.c
core_config = core/config/conf.h core/config/cfg.h core/config/config.c \
	core/config/config_file.c core/config/config_model.c \
	core/config/config_ref.c core/config/config_hash.c \
	core/config/calib.h core/config/config_calib.c
core_output = core/output/output.h core/output/output.c core/output/gnuplot.c \
	core/output/outdir.c
core_run = core/run/sim.h core/run/sim.c core/run/batch.h core/run/batch.c \
	core/run/run.c core/run/pipeline.c core/run/model_api.c \
	core/run/model_rows.c core/run/memory.h core/run/memory.c \
	core/run/plot.c core/run/checkpoint.h core/run/checkpoint.c \
	core/run/checkpoint_file.c core/run/resume.c \
	core/run/validate.h core/run/validate.c core/run/env.c
core_ensemble = core/ensemble/ensemble.h core/ensemble/ensemble.c \
	core/ensemble/ensemble_batch.c core/ensemble/ensemble_plan.c \
	core/ensemble/ensemble_agg.c core/ensemble/ensemble_plot.c
# -pthread: the output writer thread (core/run/pipeline.c) and the checkpoint
# writer (core/run/checkpoint.c).
core_libweft_body_la_CFLAGS = $(AM_CFLAGS) $(INIH_CFLAGS) -pthread
core_libweft_body_la_LIBADD = $(INIH_LIBS) $(XXHASH_LIBS) -lpthread -lm

lib_LTLIBRARIES += core/libweft.la
core_libweft_la_SOURCES = core/util/version.c
core_libweft_la_LIBADD = core/libweft-internal.la $(INIH_LIBS) $(XXHASH_LIBS) -lm
core_libweft_la_LDFLAGS = -version-info $(WEFT_LT_VERSION) -no-undefined

# include/weft: the public headers, installed as <weft/...>: weft.h
# (applications; distribute.h for ensembles spread over processes,
# harness.h for programs that load plugins themselves), backend.h
# (backends) and model.h with kernel*.h (models); program.h is what
# backends and models share, common.h what every header shares.
weftinclude_HEADERS += \
	include/weft/weft.h \
	include/weft/distribute.h \
	include/weft/harness.h \
	include/weft/common.h \
	include/weft/program.h \
	include/weft/backend.h \
	include/weft/model.h \
	include/weft/env.h \
	include/weft/env.wk \
	include/weft/kernel.h \
	include/weft/kernel_host.h \
	include/weft/math.h \
	include/weft/blocks.h \
	include/weft/blocks.wk \
	include/weft/agents.h \
	include/weft/agents.wk \
	include/weft/grid.h \
	include/weft/grid.wk \
	include/weft/space.h \
	include/weft/patches.h \
	include/weft/space.wk \
	include/weft/graph.h \
	include/weft/graph.wk \
	include/weft/double.h \
	include/weft/softf64.h
