# models/: one directory per model plugin, built like a third party's
# (docs/writing-a-model.md): only the installed headers (-I include), the
# kernels through weft-wk, libweft for the model API, and the plugin
# installed as $(pkglibdir)/weft-model-NAME.so.
WEFT_MODEL_CPPFLAGS = -I$(top_srcdir)/include -D_GNU_SOURCE \
	-DWEFT_MODEL_VERSION='"$(PACKAGE_VERSION)"'
WEFT_MODEL_LDFLAGS = -module -avoid-version -shared -no-undefined
# Every model's C, the kernels' host builds included, gets AM_CFLAGS'
# -ffp-contract=off (Makefile.am): a model that sets its own _CFLAGS keeps
# $(AM_CFLAGS) in them.

include models/seir/local.mk
include models/cartpole/local.mk
include models/template/local.mk
include models/template-minimal/local.mk
include models/circles/local.mk
include models/boids/local.mk
include models/wolf-sheep/local.mk
include models/acrobot/local.mk
include models/mountain-car/local.mk
include models/pendulum/local.mk
include models/minatar/local.mk
include models/patches/local.mk
