# models/pendulum: Gymnasium's Pendulum-v1 on the environment protocol
# (models/pendulum/pendulum.md), the plugin weft-model-pendulum.so, built
# like every model from the installed headers and its kernels through
# weft-wk. The plugin computes the initial state with the kernels' own
# functions (pendulum_dyn.h), compiled with AM_CFLAGS' -ffp-contract=off
# (no contraction), so that it rounds as the devices do.
PENDULUM_CPPFLAGS = $(WEFT_MODEL_CPPFLAGS) -I$(top_srcdir)/models/pendulum \
	-I$(top_builddir)/models/pendulum

plugin_LTLIBRARIES += models/pendulum/weft-model-pendulum.la
models_pendulum_weft_model_pendulum_la_SOURCES = \
	models/pendulum/pendulum.c models/pendulum/pendulum_shared.h \
	models/pendulum/pendulum_dyn.h
nodist_models_pendulum_weft_model_pendulum_la_SOURCES = \
	models/pendulum/pendulum_kernels.c models/pendulum/pendulum_kernels.h
models_pendulum_weft_model_pendulum_la_CPPFLAGS = $(PENDULUM_CPPFLAGS)
models_pendulum_weft_model_pendulum_la_LDFLAGS = $(WEFT_MODEL_LDFLAGS)
models_pendulum_weft_model_pendulum_la_LIBADD = core/libweft.la

BUILT_SOURCES += models/pendulum/pendulum_kernels.c \
	models/pendulum/pendulum_kernels.h
CLEANFILES += models/pendulum/pendulum_kernels.c \
	models/pendulum/pendulum_kernels.h
EXTRA_DIST += models/pendulum/pendulum.wk models/pendulum/pendulum.md

models/pendulum/pendulum_kernels.h: models/pendulum/pendulum_kernels.c
models/pendulum/pendulum_kernels.c: $(top_srcdir)/models/pendulum/pendulum.wk \
		$(top_srcdir)/models/pendulum/pendulum_shared.h \
		$(top_srcdir)/models/pendulum/pendulum_dyn.h \
		$(top_srcdir)/include/weft/env.wk \
		$(top_srcdir)/include/weft/math.h \
		$(top_srcdir)/include/weft/double.h \
		$(top_srcdir)/include/weft/softf64.h \
		$(top_srcdir)/include/weft/kernel.h $(WEFT_WK)
	$(AM_V_GEN)$(MKDIR_P) models/pendulum && $(WEFT_WK_RUN) -n pendulum \
		-o models/pendulum/pendulum_kernels.c \
		-H models/pendulum/pendulum_kernels.h \
		$(top_srcdir)/models/pendulum/pendulum.wk
