# core/: libweft, its public headers and the weft command.
#
# Everything the library is made of goes into one convenience library,
# core/libweft-internal.la (models/local.mk adds the models to it): libweft.la
# wraps it with the exported interface, and tests link it directly so they
# can reach internal functions.
noinst_LTLIBRARIES += core/libweft-internal.la
core_libweft_internal_la_SOURCES = \
	core/internal.h \
	core/util.c \
	core/context.c \
	core/config.c \
	core/loader.c \
	core/sim.h \
	core/sim.c \
	core/pipeline.c \
	core/model_api.c \
	core/model_rows.c \
	core/output.h \
	core/output.c \
	core/plot.c \
	core/conform.h \
	core/conform_shared.h \
	core/conform.c \
	core/conform_harness.c \
	core/conform_basics.c \
	core/conform_memory.c \
	core/conform_launch.c \
	core/conform_fence.c \
	core/conform_native.c \
	core/conform_models.c \
	core/conform_host.c
# -pthread: the output writer thread (core/pipeline.c).
core_libweft_internal_la_CFLAGS = $(AM_CFLAGS) $(INIH_CFLAGS) -pthread
core_libweft_internal_la_LIBADD = $(INIH_LIBS) $(XXHASH_LIBS) -lpthread \
	core/libweft-conform-source.la

# The conformance suite's kernels (core/conform.wk): compiled as C into
# conform_host.c, and embedded as text, after the dialect's shared header,
# for run-time compilers. The text lives in a convenience library of its
# own because it is generated (not distributed).
noinst_LTLIBRARIES += core/libweft-conform-source.la
nodist_core_libweft_conform_source_la_SOURCES = core/conform_source.c
BUILT_SOURCES += core/conform_source.c
CLEANFILES += core/conform_source.c
EXTRA_DIST += core/conform.wk

core/conform_source.c: $(top_srcdir)/core/include/weft/kernel.h $(top_srcdir)/core/conform_shared.h $(top_srcdir)/core/conform.wk $(top_srcdir)/models/embed.sh
	$(AM_V_GEN)$(MKDIR_P) core && $(SHELL) $(top_srcdir)/models/embed.sh \
		weft__conform_source $@ $(top_srcdir)/core/include/weft/kernel.h \
		$(top_srcdir)/core/conform_shared.h $(top_srcdir)/core/conform.wk

lib_LTLIBRARIES += core/libweft.la
core_libweft_la_SOURCES = core/version.c
core_libweft_la_LIBADD = core/libweft-internal.la $(INIH_LIBS) $(XXHASH_LIBS)
core_libweft_la_LDFLAGS = -version-info $(WEFT_LT_VERSION) -no-undefined

weftinclude_HEADERS += \
	core/include/weft/weft.h \
	core/include/weft/common.h \
	core/include/weft/backend.h \
	core/include/weft/model.h \
	core/include/weft/cartpole.h \
	core/include/weft/kernel.h \
	core/include/weft/kernel_host.h

bin_PROGRAMS += core/weft
core_weft_SOURCES = core/cli.c
core_weft_LDADD = core/libweft.la
