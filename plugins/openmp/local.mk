# plugins/openmp: the OpenMP host backend. Every backend directory uses the
# same file names for the same concerns: plugin.c (entry point, probe,
# open/close, stats), memory.c (allocation and pool), transfer.c, launch.c
# (programs and step), priv.h (what those files share).
if BUILD_OPENMP
plugin_LTLIBRARIES += plugins/openmp/weft-backend-openmp.la
plugins_openmp_weft_backend_openmp_la_SOURCES = \
	plugins/openmp/priv.h \
	plugins/openmp/plugin.c \
	plugins/openmp/memory.c \
	plugins/openmp/transfer.c \
	plugins/openmp/launch.c \
	plugins/openmp/team.c
plugins_openmp_weft_backend_openmp_la_LIBADD = plugins/common/libweft-plugin-common.la
plugins_openmp_weft_backend_openmp_la_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS)
# -z nodelete: libgomp's worker threads outlive any parallel region, so
# the plugin (and libgomp with it) must stay mapped after dlclose().
plugins_openmp_weft_backend_openmp_la_LDFLAGS = -module -avoid-version -shared \
	-export-symbols-regex '^weft_backend_entry$$' -Wl,-z,nodelete $(OPENMP_CFLAGS)
endif
