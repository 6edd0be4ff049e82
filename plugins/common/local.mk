# plugins/common: what the first-party backends share, once, as a hidden
# convenience library linked into each plugin: the ABI's argument checks
# (check.h), error messages (error.h), counters (stats.h), the memory
# pool and live-buffer list (pool.h), a loaded program's names and the
# program list (program.h), the on-disk cache of compiled programs
# (cache.h), and a failed build's log, saved whole and quoted
# (buildlog.h). Nothing here needs OpenCL or CUDA. The template backend keeps
# its own copies: it is built from the installed header alone, as a third
# party's would be.
noinst_LTLIBRARIES += plugins/common/libweft-plugin-common.la
plugins_common_libweft_plugin_common_la_SOURCES = \
	plugins/common/check.h plugins/common/check.c \
	plugins/common/error.h plugins/common/error.c \
	plugins/common/stats.h plugins/common/stats.c \
	plugins/common/pool.h plugins/common/pool.c \
	plugins/common/program.h plugins/common/program.c \
	plugins/common/cache.h plugins/common/cache.c \
	plugins/common/buildlog.h plugins/common/buildlog.c
