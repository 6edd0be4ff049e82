# conform/: the conformance suite (`weft conform`), every promise of the
# backend ABI tested through a plugin's table, and every model compared
# across backends.
core_libweft_internal_la_SOURCES += \
	conform/conform.h \
	conform/shared.h \
	conform/driver.c \
	conform/harness.c \
	conform/basics.c \
	conform/memory.c \
	conform/launch.c \
	conform/fence.c \
	conform/native.c \
	conform/models.c \
	conform/host.c
core_libweft_internal_la_LIBADD += conform/libweft-conform-source.la

# The suite's kernels (conform/conform.wk): compiled as C into host.c, and
# embedded as text, after the dialect's shared header, for run-time
# compilers. The text lives in a convenience library of its own because it
# is generated (not distributed).
noinst_LTLIBRARIES += conform/libweft-conform-source.la
nodist_conform_libweft_conform_source_la_SOURCES = conform/conform_source.c
BUILT_SOURCES += conform/conform_source.c
CLEANFILES += conform/conform_source.c
EXTRA_DIST += conform/conform.wk

conform/conform_source.c: $(top_srcdir)/include/weft/kernel.h $(top_srcdir)/conform/shared.h $(top_srcdir)/conform/conform.wk $(top_srcdir)/models/embed.sh
	$(AM_V_GEN)$(MKDIR_P) conform && $(SHELL) $(top_srcdir)/models/embed.sh \
		weft__conform_source $@ $(top_srcdir)/include/weft/kernel.h \
		$(top_srcdir)/conform/shared.h $(top_srcdir)/conform/conform.wk
