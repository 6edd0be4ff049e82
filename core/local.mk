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
	core/model_api.c \
	core/output.h \
	core/output.c
core_libweft_internal_la_CFLAGS = $(AM_CFLAGS) $(INIH_CFLAGS)
core_libweft_internal_la_LIBADD = $(INIH_LIBS)

lib_LTLIBRARIES += core/libweft.la
core_libweft_la_SOURCES = core/version.c
core_libweft_la_LIBADD = core/libweft-internal.la $(INIH_LIBS)
core_libweft_la_LDFLAGS = -version-info $(WEFT_LT_VERSION) -no-undefined

weftinclude_HEADERS += \
	core/include/weft/weft.h \
	core/include/weft/common.h \
	core/include/weft/backend.h \
	core/include/weft/model.h \
	core/include/weft/kernel.h \
	core/include/weft/kernel_host.h

bin_PROGRAMS += core/weft
core_weft_SOURCES = core/cli.c
core_weft_LDADD = core/libweft.la
