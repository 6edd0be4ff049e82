# models/wolf-sheep: the wolf-sheep predator-prey model
# (models/wolf-sheep/wolf-sheep.md), the plugin weft-model-wolf_sheep.so,
# built like every model from the installed headers and its kernels
# through weft-wk; it uses the kit's populations (weft/agents.wk), grid
# (weft/grid.wk), bins (weft/space.wk) and blocks (weft/blocks.wk).
WOLF_SHEEP_CPPFLAGS = $(WEFT_MODEL_CPPFLAGS) -I$(top_srcdir)/models/wolf-sheep \
	-I$(top_builddir)/models/wolf-sheep

plugin_LTLIBRARIES += models/wolf-sheep/weft-model-wolf_sheep.la
models_wolf_sheep_weft_model_wolf_sheep_la_SOURCES = \
	models/wolf-sheep/wolf_sheep.c models/wolf-sheep/wolf_sheep_shared.h
nodist_models_wolf_sheep_weft_model_wolf_sheep_la_SOURCES = \
	models/wolf-sheep/wolf_sheep_kernels.c \
	models/wolf-sheep/wolf_sheep_kernels.h
models_wolf_sheep_weft_model_wolf_sheep_la_CPPFLAGS = $(WOLF_SHEEP_CPPFLAGS)
models_wolf_sheep_weft_model_wolf_sheep_la_LDFLAGS = $(WEFT_MODEL_LDFLAGS)
models_wolf_sheep_weft_model_wolf_sheep_la_LIBADD = core/libweft.la

BUILT_SOURCES += models/wolf-sheep/wolf_sheep_kernels.c \
	models/wolf-sheep/wolf_sheep_kernels.h
CLEANFILES += models/wolf-sheep/wolf_sheep_kernels.c \
	models/wolf-sheep/wolf_sheep_kernels.h
EXTRA_DIST += models/wolf-sheep/wolf_sheep.wk models/wolf-sheep/wolf-sheep.md \
	models/wolf-sheep/mesa-validation.png

models/wolf-sheep/wolf_sheep_kernels.h: models/wolf-sheep/wolf_sheep_kernels.c
models/wolf-sheep/wolf_sheep_kernels.c: \
		$(top_srcdir)/models/wolf-sheep/wolf_sheep.wk \
		$(top_srcdir)/models/wolf-sheep/wolf_sheep_shared.h \
		$(top_srcdir)/include/weft/agents.wk \
		$(top_srcdir)/include/weft/grid.wk \
		$(top_srcdir)/include/weft/space.wk \
		$(top_srcdir)/include/weft/blocks.wk \
		$(top_srcdir)/include/weft/kernel.h $(WEFT_WK)
	$(AM_V_GEN)$(MKDIR_P) models/wolf-sheep && $(WEFT_WK_RUN) -n wolf_sheep \
		-o models/wolf-sheep/wolf_sheep_kernels.c \
		-H models/wolf-sheep/wolf_sheep_kernels.h \
		$(top_srcdir)/models/wolf-sheep/wolf_sheep.wk
