# models/template-minimal: the minimal model template, random walkers on a
# line (models/template-minimal/README.md, docs/writing-a-model.md): what
# every model needs of weft/model.h and nothing more.
#
# Built here as models/template is, from the installed headers and its
# kernel through weft-wk, so that `make check` compiles it; the plugin is
# never installed as a model. Its sources and Makefile.example are
# installed into $(pkgdatadir)/model-template-minimal beside the full
# template (pkg-config --variable=modeltemplateminimaldir weft), and
# tests/models/test-model-template-minimal.sh builds that copy out of tree
# and passes it through `weft conform`.
WALK_CPPFLAGS = $(WEFT_MODEL_CPPFLAGS) -I$(top_srcdir)/models/template-minimal \
	-I$(top_builddir)/models/template-minimal

check_LTLIBRARIES += models/template-minimal/weft-model-walk.la
models_template_minimal_weft_model_walk_la_SOURCES = \
	models/template-minimal/walk.c
nodist_models_template_minimal_weft_model_walk_la_SOURCES = \
	models/template-minimal/walk_kernels.c \
	models/template-minimal/walk_kernels.h
models_template_minimal_weft_model_walk_la_CPPFLAGS = $(WALK_CPPFLAGS)
models_template_minimal_weft_model_walk_la_LDFLAGS = $(WEFT_MODEL_LDFLAGS) \
	-rpath /nowhere
models_template_minimal_weft_model_walk_la_LIBADD = core/libweft.la

BUILT_SOURCES += models/template-minimal/walk_kernels.c \
	models/template-minimal/walk_kernels.h
CLEANFILES += models/template-minimal/walk_kernels.c \
	models/template-minimal/walk_kernels.h

models/template-minimal/walk_kernels.h: models/template-minimal/walk_kernels.c
models/template-minimal/walk_kernels.c: \
		$(top_srcdir)/models/template-minimal/walk.wk \
		$(top_srcdir)/include/weft/kernel.h $(WEFT_WK)
	$(AM_V_GEN)$(MKDIR_P) models/template-minimal && $(WEFT_WK_RUN) \
		-n walk -o models/template-minimal/walk_kernels.c \
		-H models/template-minimal/walk_kernels.h \
		$(top_srcdir)/models/template-minimal/walk.wk

modeltemplateminimaldir = $(pkgdatadir)/model-template-minimal
dist_modeltemplateminimal_DATA = models/template-minimal/README.md \
	models/template-minimal/Makefile.example \
	models/template-minimal/walk.c models/template-minimal/walk.wk \
	models/template-minimal/walk.ini

# After `make install`: a copy of the installed minimal template builds
# with its Makefile.example against the installed weft.pc and weft-wk,
# exports only its entry, and (when nothing is staged under DESTDIR)
# passes `weft conform` and runs its example, as models/template's does.
installcheck-local: installcheck-model-template-minimal
installcheck-model-template-minimal:
	@set -e; tmp=$$(mktemp -d "$${TMPDIR:-/tmp}/weft-model-walk-XXXXXX"); \
	trap 'rm -rf "$$tmp"' EXIT; \
	cp '$(DESTDIR)$(modeltemplateminimaldir)'/* "$$tmp/"; \
	PKG_CONFIG_PATH='$(DESTDIR)$(libdir)/pkgconfig'; export PKG_CONFIG_PATH; \
	pc='$(PKG_CONFIG) --define-variable=prefix=$(DESTDIR)$(prefix)'; \
	if test -z '$(DESTDIR)'; then \
		$(MAKE) -C "$$tmp" -f Makefile.example check PKG_CONFIG="$$pc" \
			WEFT='$(bindir)/weft'; \
	else \
		$(MAKE) -C "$$tmp" -f Makefile.example exports PKG_CONFIG="$$pc"; \
	fi
.PHONY: installcheck-model-template-minimal
