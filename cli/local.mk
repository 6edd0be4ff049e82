# cli/: the weft command (docs/weft.1), and weft-wk, the kernel tool of
# the model author's kit.
bin_PROGRAMS += cli/weft
cli_weft_SOURCES = cli/weft.c cli/ensemble-print.h cli/ensemble-print.c \
	cli/weft-calibrate.h cli/weft-calibrate.c
cli_weft_CPPFLAGS = -I$(top_srcdir)/include -I$(top_builddir) \
	-I$(top_srcdir)/conform
cli_weft_LDADD = conform/libweft-conform.la core/libweft.la
# -pthread: the thread that takes signals (run, check).
cli_weft_CFLAGS = $(AM_CFLAGS) -pthread
cli_weft_LDFLAGS = -pthread

# weft-wk, the kernel tool (docs/kernel-tool.md): a model's NAME.wk to
# NAME_kernels.c and NAME_kernels.h. Plain libc, no libweft; it falls
# back to the installed weft/kernel.h when no -I directory has one.
bin_PROGRAMS += cli/weft-wk
cli_weft_wk_SOURCES = cli/weft-wk.h cli/weft-wk.c cli/weft-wk-scan.c \
	cli/weft-wk-check.c cli/weft-wk-emit.c
cli_weft_wk_CPPFLAGS = $(AM_CPPFLAGS) -DWEFT_WK_INCLUDEDIR='"$(includedir)"'

# How the tree's own kernels go through it (conform/, models/).
WEFT_WK = $(top_builddir)/cli/weft-wk$(EXEEXT)
WEFT_WK_RUN = $(WEFT_WK) -I $(top_srcdir)/include
