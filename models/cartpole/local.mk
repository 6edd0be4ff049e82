# models/cartpole: CartPole-v1 for batched reinforcement learning, as the
# plugin weft-model-cartpole.so, and its C API (<weft/cartpole.h>), the
# library libweft-cartpole written on libweft's public run API.
CARTPOLE_CPPFLAGS = $(WEFT_MODEL_CPPFLAGS) -I$(top_srcdir)/models/cartpole \
	-I$(top_builddir)/models/cartpole

# The kernels' host builds in a convenience library, which the plugin and
# the tests link; the host's use of the dynamics (the reset state) and
# precision = f64's sin/cos table go with them. Their arithmetic must round
# operation by operation as on every other target (no fused multiply-add,
# whatever CFLAGS say): the file weft-wk generates turns contraction off
# itself (docs/kernel-tool.md), and reset.c has nothing to contract.
noinst_LTLIBRARIES += models/cartpole/libcartpole.la
models_cartpole_libcartpole_la_SOURCES = models/cartpole/cartpole.h \
	models/cartpole/cartpole_shared.h models/cartpole/cartpole_dyn64.h \
	models/cartpole/reset.c
nodist_models_cartpole_libcartpole_la_SOURCES = \
	models/cartpole/cartpole_kernels.c models/cartpole/cartpole_kernels.h
models_cartpole_libcartpole_la_CPPFLAGS = $(CARTPOLE_CPPFLAGS)

plugin_LTLIBRARIES += models/cartpole/weft-model-cartpole.la
models_cartpole_weft_model_cartpole_la_SOURCES = models/cartpole/cartpole.c
models_cartpole_weft_model_cartpole_la_CPPFLAGS = $(CARTPOLE_CPPFLAGS)
models_cartpole_weft_model_cartpole_la_LDFLAGS = $(WEFT_MODEL_LDFLAGS)
# -lm: fma(), which weft/double.h's weft_d64_fma calls in the host build
# for CPUs without FMA (the f64 step's build for CPUs with FMA uses the
# instruction: WEFT_D64_FN).
models_cartpole_weft_model_cartpole_la_LIBADD = \
	models/cartpole/libcartpole.la core/libweft.la -lm

# The C API: an application's library, on weft/weft.h alone.
lib_LTLIBRARIES += models/cartpole/libweft-cartpole.la
models_cartpole_libweft_cartpole_la_SOURCES = models/cartpole/cartpole_api.c
models_cartpole_libweft_cartpole_la_CPPFLAGS = \
	-I$(top_srcdir)/include -I$(top_srcdir)/models/cartpole/include \
	-I$(top_srcdir)/models/cartpole
models_cartpole_libweft_cartpole_la_LIBADD = core/libweft.la
models_cartpole_libweft_cartpole_la_LDFLAGS = \
	-version-info $(WEFT_LT_VERSION) -no-undefined
weftinclude_HEADERS += models/cartpole/include/weft/cartpole.h

BUILT_SOURCES += models/cartpole/cartpole_kernels.c \
	models/cartpole/cartpole_kernels.h
CLEANFILES += models/cartpole/cartpole_kernels.c \
	models/cartpole/cartpole_kernels.h
EXTRA_DIST += models/cartpole/cartpole.wk models/cartpole/cartpole.md

models/cartpole/cartpole_kernels.h: models/cartpole/cartpole_kernels.c
models/cartpole/cartpole_kernels.c: $(top_srcdir)/models/cartpole/cartpole.wk \
		$(top_srcdir)/models/cartpole/cartpole_shared.h \
		$(top_srcdir)/models/cartpole/cartpole_dyn64.h \
		$(top_srcdir)/include/weft/double.h \
		$(top_srcdir)/include/weft/softf64.h \
		$(top_srcdir)/include/weft/env.wk \
		$(top_srcdir)/include/weft/kernel.h $(WEFT_WK)
	$(AM_V_GEN)$(MKDIR_P) models/cartpole && $(WEFT_WK_RUN) -n cartpole \
		-o models/cartpole/cartpole_kernels.c \
		-H models/cartpole/cartpole_kernels.h \
		$(top_srcdir)/models/cartpole/cartpole.wk
