# core/: libweft, the library every application, model and backend
# harness links: configuration, the plugin loader, runs, the model API,
# outputs, the output pipeline and plots.
#
# Everything the library is made of goes into one convenience library,
# core/libweft-internal.la: libweft.la wraps it with the exported
# interface, and tests link it directly so they can reach internal
# functions.
noinst_LTLIBRARIES += core/libweft-internal.la
core_libweft_internal_la_SOURCES = \
	core/internal.h \
	core/util.c \
	core/context.c \
	core/cfg.h \
	core/config.c \
	core/config_file.c \
	core/config_model.c \
	core/config_ref.c \
	core/elf.c \
	core/child.c \
	core/loader.c \
	core/isolate.c \
	core/backends.c \
	core/models.c \
	core/sim.h \
	core/sim.c \
	core/batch.h \
	core/batch.c \
	core/run.c \
	core/pipeline.c \
	core/model_api.c \
	core/model_rows.c \
	core/memory.h \
	core/memory.c \
	core/output.h \
	core/output.c \
	core/outdir.c \
	core/plot.c \
	core/ensemble.h \
	core/ensemble.c \
	core/ensemble_batch.c \
	core/ensemble_plan.c \
	core/ensemble_agg.c \
	core/ensemble_plot.c \
	core/checkpoint.h \
	core/checkpoint.c \
	core/checkpoint_file.c \
	core/config_hash.c \
	core/resume.c
# -pthread: the output writer thread (core/pipeline.c) and the checkpoint
# writer (core/checkpoint.c).
core_libweft_internal_la_CFLAGS = $(AM_CFLAGS) $(INIH_CFLAGS) -pthread
core_libweft_internal_la_LIBADD = $(INIH_LIBS) $(XXHASH_LIBS) -lpthread -lm

lib_LTLIBRARIES += core/libweft.la
core_libweft_la_SOURCES = core/version.c
core_libweft_la_LIBADD = core/libweft-internal.la $(INIH_LIBS) $(XXHASH_LIBS) -lm
core_libweft_la_LDFLAGS = -version-info $(WEFT_LT_VERSION) -no-undefined

# include/weft: the three contracts, installed as <weft/...>.
weftinclude_HEADERS += \
	include/weft/weft.h \
	include/weft/common.h \
	include/weft/backend.h \
	include/weft/model.h \
	include/weft/kernel.h \
	include/weft/kernel_host.h
