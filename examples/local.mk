# examples/: ready-to-run configurations (docs/seir.md describes them).
examplesdir = $(pkgdatadir)/examples
dist_examples_DATA = examples/astoria.ini examples/nyc.ini \
	examples/covasim-random.ini examples/covasim-hybrid.ini \
	examples/csv-population.ini
