# models/: one directory per model, compiled into libweft. Each model's
# kernels (NAME.wk) are compiled here as C for host backends and embedded as
# text, after the dialect's shared header, for run-time compilers.
EXTRA_DIST += models/embed.sh
EMBED = $(SHELL) $(top_srcdir)/models/embed.sh
core_libweft_internal_la_SOURCES += models/models.c

include models/seir/local.mk
include models/cartpole/local.mk
