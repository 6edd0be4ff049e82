# models/circles: FLAME GPU 2's Circles on the continuous space kit
# (models/circles/circles.md), as the plugin weft-model-circles.so.
CIRCLES_CPPFLAGS = $(WEFT_MODEL_CPPFLAGS) -I$(top_srcdir)/models/circles \
	-I$(top_builddir)/models/circles

plugin_LTLIBRARIES += models/circles/weft-model-circles.la
models_circles_weft_model_circles_la_SOURCES = models/circles/circles.c \
	models/circles/circles_shared.h
nodist_models_circles_weft_model_circles_la_SOURCES = \
	models/circles/circles_kernels.c models/circles/circles_kernels.h
models_circles_weft_model_circles_la_CPPFLAGS = $(CIRCLES_CPPFLAGS)
models_circles_weft_model_circles_la_LDFLAGS = $(WEFT_MODEL_LDFLAGS)
models_circles_weft_model_circles_la_LIBADD = core/libweft.la -lm

BUILT_SOURCES += models/circles/circles_kernels.c \
	models/circles/circles_kernels.h
CLEANFILES += models/circles/circles_kernels.c models/circles/circles_kernels.h
EXTRA_DIST += models/circles/circles.wk models/circles/circles.md

models/circles/circles_kernels.h: models/circles/circles_kernels.c
models/circles/circles_kernels.c: $(top_srcdir)/models/circles/circles.wk \
		$(top_srcdir)/models/circles/circles_shared.h \
		$(top_srcdir)/include/weft/space.wk \
		$(top_srcdir)/include/weft/blocks.wk \
		$(top_srcdir)/include/weft/math.h \
		$(top_srcdir)/include/weft/kernel.h $(WEFT_WK)
	$(AM_V_GEN)$(MKDIR_P) models/circles && $(WEFT_WK_RUN) -n circles \
		-o models/circles/circles_kernels.c \
		-H models/circles/circles_kernels.h \
		$(top_srcdir)/models/circles/circles.wk
