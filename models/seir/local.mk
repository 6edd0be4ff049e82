# models/seir: the SEIR epidemic on a layered contact network
# (models/seir/seir.md), as the plugin weft-model-seir.so.
#
# Everything but the entry is a convenience library, libseir.la, which the
# plugin and the tests of its parts (course, populations) link.
SEIR_CPPFLAGS = $(WEFT_MODEL_CPPFLAGS) -I$(top_srcdir)/models/seir \
	-I$(top_builddir)/models/seir

noinst_LTLIBRARIES += models/seir/libseir.la
models_seir_libseir_la_SOURCES = \
	models/seir/seir.h \
	models/seir/seir_shared.h \
	models/seir/seir_params.c \
	models/seir/seir_init.c \
	models/seir/severity.c \
	models/seir/repro.c \
	models/seir/outputs_age.c \
	models/seir/outputs_patch.c \
	models/seir/vaccination.c \
	models/seir/testing.c \
	models/seir/testing_keys.h \
	models/seir/variants.c \
	models/seir/waning.c \
	models/seir/waning_keys.h \
	models/seir/course.h \
	models/seir/course.c \
	models/seir/interventions.c \
	models/seir/population.h \
	models/seir/population_keys.h \
	models/seir/population_build.h \
	models/seir/population.c \
	models/seir/population_csr.c \
	models/seir/population_csv.c \
	models/seir/population_size.c \
	models/seir/spatial.c \
	models/seir/estimate.c
nodist_models_seir_libseir_la_SOURCES = \
	models/seir/seir_kernels.c models/seir/seir_kernels.h
models_seir_libseir_la_CPPFLAGS = $(SEIR_CPPFLAGS)
# course.c: lognormal and gamma distribution functions (erfc, lgamma).
models_seir_libseir_la_LIBADD = -lm

plugin_LTLIBRARIES += models/seir/weft-model-seir.la
models_seir_weft_model_seir_la_SOURCES = models/seir/seir.c
models_seir_weft_model_seir_la_CPPFLAGS = $(SEIR_CPPFLAGS)
models_seir_weft_model_seir_la_LDFLAGS = $(WEFT_MODEL_LDFLAGS)
models_seir_weft_model_seir_la_LIBADD = models/seir/libseir.la \
	core/libweft.la

BUILT_SOURCES += models/seir/seir_kernels.c models/seir/seir_kernels.h
CLEANFILES += models/seir/seir_kernels.c models/seir/seir_kernels.h
EXTRA_DIST += models/seir/seir.wk models/seir/seir.md \
	models/seir/populations.md models/seir/covasim-validation.png \
	models/seir/covasim-scenarios.png models/seir/covasim-waning.png \
	models/seir/covasim-variants.png models/seir/covasim-vaccine.png

models/seir/seir_kernels.h: models/seir/seir_kernels.c
models/seir/seir_kernels.c: $(top_srcdir)/models/seir/seir.wk \
		$(top_srcdir)/models/seir/seir_shared.h \
		$(top_srcdir)/include/weft/graph.wk \
		$(top_srcdir)/include/weft/kernel.h $(WEFT_WK)
	$(AM_V_GEN)$(MKDIR_P) models/seir && $(WEFT_WK_RUN) -n seir \
		-o models/seir/seir_kernels.c -H models/seir/seir_kernels.h \
		$(top_srcdir)/models/seir/seir.wk
