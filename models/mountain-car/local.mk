# models/mountain-car: Gymnasium's MountainCar-v0 and
# MountainCarContinuous-v0 as an environment model (weft/env.h), the
# plugin weft-model-mountain_car.so, built like every model from the
# installed headers and its kernels through weft-wk (which records the
# program's need of hardware doubles: weft/math.h).
MOUNTAIN_CAR_CPPFLAGS = $(WEFT_MODEL_CPPFLAGS) \
	-I$(top_srcdir)/models/mountain-car -I$(top_builddir)/models/mountain-car

plugin_LTLIBRARIES += models/mountain-car/weft-model-mountain_car.la
models_mountain_car_weft_model_mountain_car_la_SOURCES = \
	models/mountain-car/mountain_car.c \
	models/mountain-car/mountain_car_shared.h
nodist_models_mountain_car_weft_model_mountain_car_la_SOURCES = \
	models/mountain-car/mountain_car_kernels.c \
	models/mountain-car/mountain_car_kernels.h
models_mountain_car_weft_model_mountain_car_la_CPPFLAGS = \
	$(MOUNTAIN_CAR_CPPFLAGS)
models_mountain_car_weft_model_mountain_car_la_LDFLAGS = $(WEFT_MODEL_LDFLAGS)
models_mountain_car_weft_model_mountain_car_la_LIBADD = core/libweft.la

BUILT_SOURCES += models/mountain-car/mountain_car_kernels.c \
	models/mountain-car/mountain_car_kernels.h
CLEANFILES += models/mountain-car/mountain_car_kernels.c \
	models/mountain-car/mountain_car_kernels.h
EXTRA_DIST += models/mountain-car/mountain_car.wk \
	models/mountain-car/mountain-car.md

models/mountain-car/mountain_car_kernels.h: \
		models/mountain-car/mountain_car_kernels.c
models/mountain-car/mountain_car_kernels.c: \
		$(top_srcdir)/models/mountain-car/mountain_car.wk \
		$(top_srcdir)/models/mountain-car/mountain_car_shared.h \
		$(top_srcdir)/include/weft/env.wk \
		$(top_srcdir)/include/weft/math.h \
		$(top_srcdir)/include/weft/kernel.h $(WEFT_WK)
	$(AM_V_GEN)$(MKDIR_P) models/mountain-car && $(WEFT_WK_RUN) \
		-n mountain_car -o models/mountain-car/mountain_car_kernels.c \
		-H models/mountain-car/mountain_car_kernels.h \
		$(top_srcdir)/models/mountain-car/mountain_car.wk
