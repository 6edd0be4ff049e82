# plugins/common: the backend ABI's argument checks, shared by the
# first-party backends as a hidden convenience library (check.h). The
# template backend keeps its own: it is built from the installed header
# alone, as a third party's would be.
noinst_LTLIBRARIES += plugins/common/libweft-plugin-check.la
plugins_common_libweft_plugin_check_la_SOURCES = \
	plugins/common/check.h plugins/common/check.c
