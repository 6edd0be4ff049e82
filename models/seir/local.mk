# models/seir: the SEIR epidemic on a layered contact network (models/seir/seir.md).
# population.h, population_keys.h and population_shim.c stand in for the
# populations module until it is merged.
core_libweft_internal_la_SOURCES += \
	models/seir/seir.h \
	models/seir/seir.c \
	models/seir/seir_params.c \
	models/seir/seir_init.c \
	models/seir/seir_host.c \
	models/seir/course.h \
	models/seir/course.c \
	models/seir/interventions.c \
	models/seir/population.h \
	models/seir/population_keys.h \
	models/seir/population_build.h \
	models/seir/population.c \
	models/seir/population_csr.c \
	models/seir/population_csv.c
# course.c: lognormal and gamma distribution functions (erfc, lgamma).
core_libweft_internal_la_LIBADD += -lm
EXTRA_DIST += models/seir/seir.md models/seir/populations.md
nodist_core_libweft_internal_la_SOURCES = models/seir/seir_source.c
BUILT_SOURCES += models/seir/seir_source.c
CLEANFILES += models/seir/seir_source.c
EXTRA_DIST += models/seir/seir.wk models/seir/seir_shared.h

models/seir/seir_source.c: $(top_srcdir)/include/weft/kernel.h $(top_srcdir)/models/seir/seir_shared.h $(top_srcdir)/models/seir/seir.wk $(top_srcdir)/models/embed.sh
	$(AM_V_GEN)$(MKDIR_P) models/seir && $(EMBED) weft__seir_source $@ \
		$(top_srcdir)/include/weft/kernel.h \
		$(top_srcdir)/models/seir/seir_shared.h $(top_srcdir)/models/seir/seir.wk
