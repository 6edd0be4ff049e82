# models/minatar: MinAtar's games for batched reinforcement learning
# (models/minatar/minatar.md), the plugin weft-model-minatar.so, built
# like every model from the installed headers and its kernels through
# weft-wk. Integer arithmetic only.
MINATAR_CPPFLAGS = $(WEFT_MODEL_CPPFLAGS) -I$(top_srcdir)/models/minatar \
	-I$(top_builddir)/models/minatar

plugin_LTLIBRARIES += models/minatar/weft-model-minatar.la
models_minatar_weft_model_minatar_la_SOURCES = models/minatar/minatar.c \
	models/minatar/minatar.h models/minatar/minatar_shared.h \
	models/minatar/minatar_breakout.h models/minatar/minatar_asterix.h \
	models/minatar/minatar_freeway.h \
	models/minatar/minatar_space_invaders.h \
	models/minatar/minatar_seaquest.h
nodist_models_minatar_weft_model_minatar_la_SOURCES = \
	models/minatar/minatar_kernels.c models/minatar/minatar_kernels.h
models_minatar_weft_model_minatar_la_CPPFLAGS = $(MINATAR_CPPFLAGS)
models_minatar_weft_model_minatar_la_LDFLAGS = $(WEFT_MODEL_LDFLAGS)
models_minatar_weft_model_minatar_la_LIBADD = core/libweft.la

BUILT_SOURCES += models/minatar/minatar_kernels.c \
	models/minatar/minatar_kernels.h
CLEANFILES += models/minatar/minatar_kernels.c \
	models/minatar/minatar_kernels.h
EXTRA_DIST += models/minatar/minatar.wk models/minatar/minatar.md

models/minatar/minatar_kernels.h: models/minatar/minatar_kernels.c
models/minatar/minatar_kernels.c: $(top_srcdir)/models/minatar/minatar.wk \
		$(top_srcdir)/models/minatar/minatar_shared.h \
		$(top_srcdir)/models/minatar/minatar_breakout.h \
		$(top_srcdir)/models/minatar/minatar_asterix.h \
		$(top_srcdir)/models/minatar/minatar_freeway.h \
		$(top_srcdir)/models/minatar/minatar_space_invaders.h \
		$(top_srcdir)/models/minatar/minatar_seaquest.h \
		$(top_srcdir)/include/weft/env.wk \
		$(top_srcdir)/include/weft/kernel.h $(WEFT_WK)
	$(AM_V_GEN)$(MKDIR_P) models/minatar && $(WEFT_WK_RUN) -n minatar \
		-o models/minatar/minatar_kernels.c \
		-H models/minatar/minatar_kernels.h \
		$(top_srcdir)/models/minatar/minatar.wk
