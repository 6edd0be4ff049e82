# cli/: the weft command (docs/weft.1).
bin_PROGRAMS += cli/weft
cli_weft_SOURCES = cli/weft.c
cli_weft_LDADD = core/libweft.la
