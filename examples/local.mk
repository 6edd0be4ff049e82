# examples/: ready-to-run configurations.
examplesdir = $(pkgdatadir)/examples
dist_examples_DATA = examples/astoria.ini examples/cartpole.ini
