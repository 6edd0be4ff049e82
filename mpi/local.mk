# mpi/: weft-mpi, an ensemble's runs over MPI ranks (Open MPI), on the
# public API only; built when configure finds Open MPI (--without-mpi:
# never).
EXTRA_DIST += mpi/weft-mpi.c
if BUILD_MPI
bin_PROGRAMS += mpi/weft-mpi
mpi_weft_mpi_SOURCES = mpi/weft-mpi.c cli/ensemble-print.h cli/ensemble-print.c
mpi_weft_mpi_CPPFLAGS = -I$(top_srcdir)/include -I$(top_builddir) -I$(top_srcdir)/cli
mpi_weft_mpi_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
mpi_weft_mpi_LDADD = core/libweft.la $(MPI_LIBS)
endif
