# plugins/template: the starting point for third-party backends.
#
# template.c is a minimal, correct, single-threaded host backend in one
# file; Makefile.example builds it out of weft's tree against the installed
# weft.pc. Both are installed into $(pkgdatadir)/template, so that an
# installed weft ships its own starting point.
#
# The plugin is built for `make check` only (tests/plugins/test-template.sh and the
# conformance suite run it); it is never installed as a backend.
check_LTLIBRARIES += plugins/template/weft-backend-template.la
plugins_template_weft_backend_template_la_SOURCES = plugins/template/template.c
plugins_template_weft_backend_template_la_LDFLAGS = -module -avoid-version \
	-shared -rpath /nowhere -export-symbols-regex '^weft_backend_entry$$'

templatedir = $(pkgdatadir)/template
dist_template_DATA = plugins/template/template.c plugins/template/Makefile.example

# After `make install`: the installed template builds with the installed
# Makefile.example against the installed weft.pc and exports only the
# entry. pkg-config's paths are relative to ${prefix}, which DESTDIR moves.
# When nothing is staged under DESTDIR, the installed weft also loads it.
installcheck-local: installcheck-template
installcheck-template:
	@set -e; tmp=$$(mktemp -d "$${TMPDIR:-/tmp}/weft-template-XXXXXX"); \
	trap 'rm -rf "$$tmp"' EXIT; \
	cp '$(DESTDIR)$(templatedir)/template.c' '$(DESTDIR)$(templatedir)/Makefile.example' "$$tmp/"; \
	PKG_CONFIG_PATH='$(DESTDIR)$(libdir)/pkgconfig'; export PKG_CONFIG_PATH; \
	$(MAKE) -C "$$tmp" -f Makefile.example check \
		PKG_CONFIG='$(PKG_CONFIG) --define-variable=prefix=$(DESTDIR)$(prefix)'; \
	if test -z '$(DESTDIR)'; then \
		WEFT_PLUGIN_PATH="$$tmp" '$(bindir)/weft' backends | \
			grep '^template  *available  *'"$$tmp"'/weft-backend-template.so$$'; \
	fi
.PHONY: installcheck-template
