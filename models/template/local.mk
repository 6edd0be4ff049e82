# models/template: the starting point for model authors, a SIR epidemic
# on a grid (models/template/README.md, docs/writing-a-model.md).
#
# Built here exactly as every model in models/ is built, from the
# installed headers and its kernels through weft-wk, so that `make check`
# compiles it and the conformance runs (tests/plugins/conformance/*.conform) and
# tests/models/test-model-template.sh run it on every backend built. The plugin
# is built for `make check` only and never installed as a model; its
# sources and Makefile.example are installed into
# $(pkgdatadir)/model-template, so that an installed weft ships its own
# starting point (pkg-config --variable=modeltemplatedir weft).
SIR_CPPFLAGS = $(WEFT_MODEL_CPPFLAGS) -I$(top_srcdir)/models/template \
	-I$(top_builddir)/models/template

check_LTLIBRARIES += models/template/weft-model-sir.la
models_template_weft_model_sir_la_SOURCES = models/template/sir.c \
	models/template/sir_shared.h
nodist_models_template_weft_model_sir_la_SOURCES = \
	models/template/sir_kernels.c models/template/sir_kernels.h
models_template_weft_model_sir_la_CPPFLAGS = $(SIR_CPPFLAGS)
models_template_weft_model_sir_la_LDFLAGS = $(WEFT_MODEL_LDFLAGS) \
	-rpath /nowhere
models_template_weft_model_sir_la_LIBADD = core/libweft.la

BUILT_SOURCES += models/template/sir_kernels.c models/template/sir_kernels.h
CLEANFILES += models/template/sir_kernels.c models/template/sir_kernels.h

models/template/sir_kernels.h: models/template/sir_kernels.c
models/template/sir_kernels.c: $(top_srcdir)/models/template/sir.wk \
		$(top_srcdir)/models/template/sir_shared.h \
		$(top_srcdir)/include/weft/kernel.h $(WEFT_WK)
	$(AM_V_GEN)$(MKDIR_P) models/template && $(WEFT_WK_RUN) -n sir \
		-o models/template/sir_kernels.c \
		-H models/template/sir_kernels.h \
		$(top_srcdir)/models/template/sir.wk

modeltemplatedir = $(pkgdatadir)/model-template
dist_modeltemplate_DATA = models/template/README.md \
	models/template/Makefile.example models/template/sir.c \
	models/template/sir.wk models/template/sir_shared.h \
	models/template/sir.ini

# After `make install`: a copy of the installed template builds with the
# installed Makefile.example against the installed weft.pc and weft-wk,
# exports only its entry, and (when nothing is staged under DESTDIR, so
# that the installed weft command runs) passes `weft conform` on every
# installed backend and runs its example. pkg-config's paths are relative
# to ${prefix}, which DESTDIR moves.
installcheck-local: installcheck-model-template
installcheck-model-template:
	@set -e; tmp=$$(mktemp -d "$${TMPDIR:-/tmp}/weft-model-template-XXXXXX"); \
	trap 'rm -rf "$$tmp"' EXIT; \
	cp '$(DESTDIR)$(modeltemplatedir)'/* "$$tmp/"; \
	PKG_CONFIG_PATH='$(DESTDIR)$(libdir)/pkgconfig'; export PKG_CONFIG_PATH; \
	pc='$(PKG_CONFIG) --define-variable=prefix=$(DESTDIR)$(prefix)'; \
	if test -z '$(DESTDIR)'; then \
		$(MAKE) -C "$$tmp" -f Makefile.example check PKG_CONFIG="$$pc" \
			WEFT='$(bindir)/weft'; \
	else \
		$(MAKE) -C "$$tmp" -f Makefile.example exports PKG_CONFIG="$$pc"; \
	fi
.PHONY: installcheck-model-template

# The model author's guide, which walks from this template to a model of
# one's own.
