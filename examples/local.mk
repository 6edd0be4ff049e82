# examples/: ready-to-run configurations.
examplesdir = $(pkgdatadir)/examples
dist_examples_DATA = examples/astoria.ini

# A small town from CSV files (population = csv; docs/populations.md).
examplespopulationdir = $(pkgdatadir)/examples/population
dist_examplespopulation_DATA = examples/population/town.ini \
	examples/population/agents.csv examples/population/edges.csv
