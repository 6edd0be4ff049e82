# conform/: the conformance suite (`weft conform`): every promise of the
# backend ABI tested through a plugin's table, every model compared across
# backends, and a model plugin checked on every backend. A client of
# libweft's public headers only (weft/weft.h, weft/harness.h,
# weft/backend.h, weft/model.h), linked into the weft command.
noinst_LTLIBRARIES += conform/libweft-conform.la
conform_libweft_conform_la_SOURCES = \
	conform/weft_conform.h \
	conform/conform.h \
	conform/shared.h \
	conform/rng.h \
	conform/driver.c \
	conform/harness.c \
	conform/busy.c \
	conform/basics.c \
	conform/memory.c \
	conform/launch.c \
	conform/fence.c \
	conform/native.c \
	conform/replicas.c \
	conform/lifetime.c \
	conform/ordering.c \
	conform/kstats.c \
	conform/blocks.c \
	conform/floats.c \
	conform/math.c \
	conform/models.c
nodist_conform_libweft_conform_la_SOURCES = \
	conform/cf_kernels.c conform/cf_kernels.h
conform_libweft_conform_la_CPPFLAGS = -I$(top_srcdir)/include \
	-I$(top_builddir) -I$(top_srcdir)/conform -I$(top_builddir)/conform
conform_libweft_conform_la_LIBADD = core/libweft.la

BUILT_SOURCES += conform/cf_kernels.c conform/cf_kernels.h
CLEANFILES += conform/cf_kernels.c conform/cf_kernels.h
EXTRA_DIST += conform/conform.wk conform/floats.wk conform/math.wk

# The suite's kernels (conform.wk), through weft-wk like a model's.
conform/cf_kernels.h: conform/cf_kernels.c
conform/cf_kernels.c: $(top_srcdir)/conform/conform.wk \
		$(top_srcdir)/conform/shared.h \
		$(top_srcdir)/conform/floats.wk \
		$(top_srcdir)/include/weft/blocks.wk \
		$(top_srcdir)/conform/math.wk $(top_srcdir)/include/weft/math.h \
		$(top_srcdir)/include/weft/kernel.h $(WEFT_WK)
	$(AM_V_GEN)$(MKDIR_P) conform && $(WEFT_WK_RUN) -n cf \
		-o conform/cf_kernels.c -H conform/cf_kernels.h \
		$(top_srcdir)/conform/conform.wk
