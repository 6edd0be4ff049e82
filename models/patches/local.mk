# models/patches: LASER's SEIR with a force of infection per patch and
# gravity mixing between patches (models/patches/patches.md), the plugin
# weft-model-patches.so, built like every model from the installed headers
# and its kernels through weft-wk.
PATCHES_CPPFLAGS = $(WEFT_MODEL_CPPFLAGS) -I$(top_srcdir)/models/patches \
	-I$(top_builddir)/models/patches

plugin_LTLIBRARIES += models/patches/weft-model-patches.la
models_patches_weft_model_patches_la_SOURCES = \
	models/patches/patches.c models/patches/patches_shared.h \
	models/patches/demography.c models/patches/demography.h \
	models/patches/demography_shared.h models/patches/chain_shared.h \
	models/patches/campaigns.c \
	models/patches/fertility.c
nodist_models_patches_weft_model_patches_la_SOURCES = \
	models/patches/patches_kernels.c models/patches/patches_kernels.h
models_patches_weft_model_patches_la_CPPFLAGS = $(PATCHES_CPPFLAGS)
models_patches_weft_model_patches_la_LDFLAGS = $(WEFT_MODEL_LDFLAGS)
models_patches_weft_model_patches_la_LIBADD = core/libweft.la -lm

BUILT_SOURCES += models/patches/patches_kernels.c \
	models/patches/patches_kernels.h
CLEANFILES += models/patches/patches_kernels.c \
	models/patches/patches_kernels.h
EXTRA_DIST += models/patches/patches.wk models/patches/patches.md \
	models/patches/patches-plot.py models/patches/patches-geojson.py \
	models/patches/laser-validation.png \
	models/patches/laser-vitals-validation.png \
	models/patches/laser-measles-validation.png \
	models/patches/starsim-demography.png models/patches/starsim-fertility.png

models/patches/patches_kernels.h: models/patches/patches_kernels.c
models/patches/patches_kernels.c: \
		$(top_srcdir)/models/patches/patches.wk \
		$(top_srcdir)/models/patches/patches_shared.h \
		$(top_srcdir)/models/patches/demography_shared.h \
		$(top_srcdir)/models/patches/chain_shared.h \
		$(top_srcdir)/include/weft/math.h \
		$(top_srcdir)/include/weft/kernel.h $(WEFT_WK)
	$(AM_V_GEN)$(MKDIR_P) models/patches && $(WEFT_WK_RUN) -n patches \
		-o models/patches/patches_kernels.c \
		-H models/patches/patches_kernels.h \
		$(top_srcdir)/models/patches/patches.wk
