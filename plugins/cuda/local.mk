# plugins/cuda: the CUDA backend. Same file names as every backend (see
# plugins/openmp/local.mk), plus those of a run-time compiling backend, as
# in plugins/opencl: device.c (which device, and what it is), prelude.c
# (the dialect in CUDA C++), compile.c (NVRTC) and cache.c (what goes into
# a cached CUBIN's key). What the backends share is plugins/common.
#
# The plugin's files are C, compiled by nvcc (which runs $(CC) as its host
# compiler with the toolkit's include directories) through libtool, so the
# objects are ordinary libtool objects: plugins/cuda/nvcc-cc.sh gives nvcc
# the command line libtool expects of a C compiler. Kernels are compiled at
# run time by NVRTC, dlopen()ed. Linking libcudart_static.a rather than
# libcuda or libcudart.so lets the plugin load on machines without the
# driver; its probe then says why it cannot run. -z nodelete: the driver's
# threads outlive any call, so the plugin must stay mapped after dlclose().
# The files that make no CUDA runtime call, which tests compile alone
# (tests/plugins/cuda.am, tests/models/cartpole.am) with plugins/common.
cuda_compile_sources = \
	plugins/cuda/prelude.c \
	plugins/cuda/compile.c \
	plugins/cuda/cache.c
cuda_plugin_sources = \
	plugins/cuda/plugin.c \
	plugins/cuda/device.c \
	plugins/cuda/memory.c \
	plugins/cuda/transfer.c \
	plugins/cuda/launch.c \
	$(cuda_compile_sources)
cuda_plugin_headers = plugins/cuda/priv.h plugins/common/cache.h \
	plugins/common/check.h plugins/common/error.h plugins/common/pool.h \
	plugins/common/program.h plugins/common/stats.h \
	include/weft/backend.h include/weft/common.h
EXTRA_DIST += plugins/cuda/nvcc-cc.sh $(cuda_plugin_sources)
if BUILD_CUDA
plugin_LTLIBRARIES += plugins/cuda/weft-backend-cuda.la
cuda_plugin_objects = \
	plugins/cuda/nvcc-plugin.lo \
	plugins/cuda/nvcc-device.lo \
	plugins/cuda/nvcc-memory.lo \
	plugins/cuda/nvcc-transfer.lo \
	plugins/cuda/nvcc-launch.lo \
	plugins/cuda/nvcc-prelude.lo \
	plugins/cuda/nvcc-compile.lo \
	plugins/cuda/nvcc-cache.lo
plugins_cuda_weft_backend_cuda_la_SOURCES = plugins/cuda/priv.h
plugins_cuda_weft_backend_cuda_la_LIBADD = $(cuda_plugin_objects) \
	plugins/common/libweft-plugin-common.la $(CUDA_LIBS)
plugins_cuda_weft_backend_cuda_la_DEPENDENCIES = $(cuda_plugin_objects) \
	plugins/common/libweft-plugin-common.la
plugins_cuda_weft_backend_cuda_la_LDFLAGS = -module -avoid-version -shared \
	-export-symbols-regex '^weft_backend_entry$$' -Wl,-z,nodelete
MOSTLYCLEANFILES = plugins/cuda/nvcc-*.lo plugins/cuda/nvcc-*.o

# One libtool compile through nvcc; the caller appends -o and the source.
NVCC_LTCOMPILE = $(LIBTOOL) $(AM_V_lt) --tag=CC $(AM_LIBTOOLFLAGS) \
	$(LIBTOOLFLAGS) --mode=compile $(SHELL) \
	$(top_srcdir)/plugins/cuda/nvcc-cc.sh $(NVCC) $(CC) $(DEFS) \
	$(DEFAULT_INCLUDES) $(INCLUDES) $(AM_CPPFLAGS) $(CPPFLAGS) \
	$(AM_CFLAGS) $(CFLAGS) -c
AM_V_NVCC = $(am__v_NVCC_@AM_V@)
am__v_NVCC_ = $(am__v_NVCC_@AM_DEFAULT_V@)
am__v_NVCC_0 = @echo "  NVCC    " $@;
am__v_NVCC_1 =
cuda_nvcc_deps = $(cuda_plugin_headers) config.h plugins/cuda/nvcc-cc.sh \
	plugins/cuda/$(am__dirstamp)

plugins/cuda/nvcc-plugin.lo: plugins/cuda/plugin.c $(cuda_nvcc_deps)
	$(AM_V_NVCC)$(NVCC_LTCOMPILE) -o $@ $(srcdir)/plugins/cuda/plugin.c
plugins/cuda/nvcc-device.lo: plugins/cuda/device.c $(cuda_nvcc_deps)
	$(AM_V_NVCC)$(NVCC_LTCOMPILE) -o $@ $(srcdir)/plugins/cuda/device.c
plugins/cuda/nvcc-memory.lo: plugins/cuda/memory.c $(cuda_nvcc_deps)
	$(AM_V_NVCC)$(NVCC_LTCOMPILE) -o $@ $(srcdir)/plugins/cuda/memory.c
plugins/cuda/nvcc-transfer.lo: plugins/cuda/transfer.c $(cuda_nvcc_deps)
	$(AM_V_NVCC)$(NVCC_LTCOMPILE) -o $@ $(srcdir)/plugins/cuda/transfer.c
plugins/cuda/nvcc-launch.lo: plugins/cuda/launch.c $(cuda_nvcc_deps)
	$(AM_V_NVCC)$(NVCC_LTCOMPILE) -o $@ $(srcdir)/plugins/cuda/launch.c
plugins/cuda/nvcc-prelude.lo: plugins/cuda/prelude.c $(cuda_nvcc_deps)
	$(AM_V_NVCC)$(NVCC_LTCOMPILE) -o $@ $(srcdir)/plugins/cuda/prelude.c
plugins/cuda/nvcc-compile.lo: plugins/cuda/compile.c $(cuda_nvcc_deps)
	$(AM_V_NVCC)$(NVCC_LTCOMPILE) -o $@ $(srcdir)/plugins/cuda/compile.c
plugins/cuda/nvcc-cache.lo: plugins/cuda/cache.c $(cuda_nvcc_deps)
	$(AM_V_NVCC)$(NVCC_LTCOMPILE) -o $@ $(srcdir)/plugins/cuda/cache.c
endif
