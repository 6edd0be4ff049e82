# plugins/opencl: the OpenCL backend (OpenCL 1.2 through the ICD loader).
# Same file names for the same concerns as every backend directory:
# plugin.c (entry point, probe, open/close, sync, stats), memory.c
# (allocation and pool), transfer.c, launch.c (programs and step), priv.h;
# and, for a run-time compiling backend, device.c (platforms and devices),
# prelude.c (the dialect in OpenCL C), compile.c (building a program) and
# cache.c (what goes into a cached binary's key, and how it is loaded).
# What the backends share (argument checks, messages, counters, the pool,
# program names, the disk cache) is plugins/common.
if BUILD_OPENCL
plugin_LTLIBRARIES += plugins/opencl/weft-backend-opencl.la
plugins_opencl_weft_backend_opencl_la_SOURCES = \
	plugins/opencl/priv.h \
	plugins/opencl/plugin.c \
	plugins/opencl/device.c \
	plugins/opencl/memory.c \
	plugins/opencl/transfer.c \
	plugins/opencl/prelude.c \
	plugins/opencl/compile.c \
	plugins/opencl/cache.c \
	plugins/opencl/launch.c
plugins_opencl_weft_backend_opencl_la_LIBADD = \
	plugins/common/libweft-plugin-common.la $(OPENCL_LIBS)
# -z nodelete: OpenCL drivers keep threads running after their devices are
# released, so the plugin (and the ICD loader with it) stays mapped after
# dlclose().
plugins_opencl_weft_backend_opencl_la_LDFLAGS = -module -avoid-version -shared \
	-export-symbols-regex '^weft_backend_entry$$' -Wl,-z,nodelete
endif
