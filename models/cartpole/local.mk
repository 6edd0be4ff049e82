# models/cartpole: CartPole-v1 for batched reinforcement learning, and its
# C API (<weft/cartpole.h>).
core_libweft_internal_la_SOURCES += \
	models/cartpole/cartpole.h \
	models/cartpole/cartpole.c \
	models/cartpole/cartpole_api.c
nodist_core_libweft_internal_la_SOURCES += models/cartpole/cartpole_source.c
BUILT_SOURCES += models/cartpole/cartpole_source.c
CLEANFILES += models/cartpole/cartpole_source.c
EXTRA_DIST += models/cartpole/cartpole.wk models/cartpole/cartpole_shared.h

# The host build of the kernels, in a convenience library of its own so
# that it alone gets -ffp-contract=off: its f32 arithmetic must round
# operation by operation as on every other target (no fused multiply-add,
# whatever CFLAGS say).
noinst_LTLIBRARIES += models/cartpole/libweft-cartpole-host.la
models_cartpole_libweft_cartpole_host_la_SOURCES = \
	models/cartpole/cartpole_host.c models/cartpole/cartpole.h
models_cartpole_libweft_cartpole_host_la_CFLAGS = $(AM_CFLAGS) \
	-ffp-contract=off
core_libweft_internal_la_LIBADD += models/cartpole/libweft-cartpole-host.la

models/cartpole/cartpole_source.c: $(top_srcdir)/include/weft/kernel.h $(top_srcdir)/models/cartpole/cartpole_shared.h $(top_srcdir)/models/cartpole/cartpole.wk $(top_srcdir)/models/embed.sh
	$(AM_V_GEN)$(MKDIR_P) models/cartpole && $(EMBED) weft__cartpole_source $@ \
		$(top_srcdir)/include/weft/kernel.h \
		$(top_srcdir)/models/cartpole/cartpole_shared.h \
		$(top_srcdir)/models/cartpole/cartpole.wk

# The model's guide and the C example it shows (built by tests/cartpole.am).
EXTRA_DIST += models/cartpole/cartpole.md
weftinclude_HEADERS += models/cartpole/include/weft/cartpole.h
