# models/boids: Reynolds flocking as FLAME GPU 2's boids_spatial3D defines
# it (models/boids/boids.md), on weft's continuous space kit
# (weft/space.h, weft/space.wk). Built as every model in models/ is, from
# the installed headers and its kernels through weft-wk, and installed as
# $(pkglibdir)/weft-model-boids.so.
BOIDS_CPPFLAGS = $(WEFT_MODEL_CPPFLAGS) -I$(top_srcdir)/models/boids \
	-I$(top_builddir)/models/boids

plugin_LTLIBRARIES += models/boids/weft-model-boids.la
models_boids_weft_model_boids_la_SOURCES = models/boids/boids.c \
	models/boids/boids_shared.h
nodist_models_boids_weft_model_boids_la_SOURCES = \
	models/boids/boids_kernels.c models/boids/boids_kernels.h
models_boids_weft_model_boids_la_CPPFLAGS = $(BOIDS_CPPFLAGS)
models_boids_weft_model_boids_la_LDFLAGS = $(WEFT_MODEL_LDFLAGS)
models_boids_weft_model_boids_la_LIBADD = core/libweft.la -lm

BUILT_SOURCES += models/boids/boids_kernels.c models/boids/boids_kernels.h
CLEANFILES += models/boids/boids_kernels.c models/boids/boids_kernels.h
EXTRA_DIST += models/boids/boids.wk models/boids/boids.md

models/boids/boids_kernels.h: models/boids/boids_kernels.c
models/boids/boids_kernels.c: $(top_srcdir)/models/boids/boids.wk \
		$(top_srcdir)/models/boids/boids_shared.h \
		$(top_srcdir)/include/weft/kernel.h \
		$(top_srcdir)/include/weft/space.wk \
		$(top_srcdir)/include/weft/blocks.wk $(WEFT_WK)
	$(AM_V_GEN)$(MKDIR_P) models/boids && $(WEFT_WK_RUN) -n boids \
		-o models/boids/boids_kernels.c \
		-H models/boids/boids_kernels.h \
		$(top_srcdir)/models/boids/boids.wk
