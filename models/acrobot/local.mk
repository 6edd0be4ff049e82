# models/acrobot: Gymnasium's Acrobot-v1 as a batch of environments
# (models/acrobot/acrobot.md), the plugin weft-model-acrobot.so, built like
# every model from the installed headers and its kernels through weft-wk.
# acrobot.c uses the kernels' dynamics for the first states: like every
# model's C it is compiled with AM_CFLAGS' -ffp-contract=off.
ACROBOT_CPPFLAGS = $(WEFT_MODEL_CPPFLAGS) -I$(top_srcdir)/models/acrobot \
	-I$(top_builddir)/models/acrobot

plugin_LTLIBRARIES += models/acrobot/weft-model-acrobot.la
models_acrobot_weft_model_acrobot_la_SOURCES = models/acrobot/acrobot.c \
	models/acrobot/acrobot_shared.h
nodist_models_acrobot_weft_model_acrobot_la_SOURCES = \
	models/acrobot/acrobot_kernels.c models/acrobot/acrobot_kernels.h
models_acrobot_weft_model_acrobot_la_CPPFLAGS = $(ACROBOT_CPPFLAGS)
models_acrobot_weft_model_acrobot_la_LDFLAGS = $(WEFT_MODEL_LDFLAGS)
models_acrobot_weft_model_acrobot_la_LIBADD = core/libweft.la

BUILT_SOURCES += models/acrobot/acrobot_kernels.c \
	models/acrobot/acrobot_kernels.h
CLEANFILES += models/acrobot/acrobot_kernels.c \
	models/acrobot/acrobot_kernels.h
EXTRA_DIST += models/acrobot/acrobot.wk models/acrobot/acrobot.md

models/acrobot/acrobot_kernels.h: models/acrobot/acrobot_kernels.c
models/acrobot/acrobot_kernels.c: $(top_srcdir)/models/acrobot/acrobot.wk \
		$(top_srcdir)/models/acrobot/acrobot_shared.h \
		$(top_srcdir)/include/weft/env.wk \
		$(top_srcdir)/include/weft/math.h \
		$(top_srcdir)/include/weft/kernel.h $(WEFT_WK)
	$(AM_V_GEN)$(MKDIR_P) models/acrobot && $(WEFT_WK_RUN) -n acrobot \
		-o models/acrobot/acrobot_kernels.c \
		-H models/acrobot/acrobot_kernels.h \
		$(top_srcdir)/models/acrobot/acrobot.wk
