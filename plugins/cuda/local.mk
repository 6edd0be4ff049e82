# plugins/cuda: the CUDA backend. Same file names as every backend (see
# plugins/openmp/local.mk), plus compile.c (the CUDA prelude and NVRTC) and
# cache.c (compiled kernels on disk).
#
# The plugin is C: it needs the toolkit's headers and its static runtime,
# not nvcc (kernels are compiled at run time by NVRTC, dlopen()ed). Linking
# libcudart_static.a rather than libcuda or libcudart.so lets the plugin
# load on machines without the driver; its probe then says why it cannot
# run. -z nodelete: the driver's threads outlive any call, so the plugin
# must stay mapped after dlclose().
if BUILD_CUDA
plugin_LTLIBRARIES += plugins/cuda/weft-backend-cuda.la
plugins_cuda_weft_backend_cuda_la_SOURCES = \
	plugins/cuda/priv.h \
	plugins/cuda/plugin.c \
	plugins/cuda/memory.c \
	plugins/cuda/transfer.c \
	plugins/cuda/launch.c \
	plugins/cuda/compile.c \
	plugins/cuda/cache.c
plugins_cuda_weft_backend_cuda_la_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
plugins_cuda_weft_backend_cuda_la_LIBADD = plugins/common/libweft-plugin-check.la $(CUDA_LIBS)
plugins_cuda_weft_backend_cuda_la_LDFLAGS = -module -avoid-version -shared \
	-export-symbols-regex '^weft_backend_entry$$' -Wl,-z,nodelete
endif
