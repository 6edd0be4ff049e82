# examples/: ready-to-run configurations (models/seir/seir.md describes them).
examplesdir = $(pkgdatadir)/examples
dist_examples_DATA = examples/astoria.ini examples/nyc.ini \
	examples/covasim-random.ini examples/covasim-hybrid.ini \
	examples/cartpole.ini examples/ensemble.ini \
	examples/circles.ini examples/boids.ini examples/wolf-sheep.ini \
	examples/boids-agentsjl.ini examples/acrobot.ini \
	examples/minatar.ini \
	examples/pendulum.ini \
	examples/mountain_car.ini
dist_examples_DATA += examples/patches.ini examples/patches-seasonal.ini \
	examples/covasim-testing.ini
dist_examples_DATA += examples/covasim-waning.ini \
	examples/covasim-variants.ini
dist_examples_DATA += examples/covasim-vaccine.ini
# Ages and mortality by age in the patch model, with its two tables;
# two diseases with births and deaths (Starsim's sim).
dist_examples_DATA += examples/patches-demography.ini \
	examples/patches-demography-pyramid.csv \
	examples/patches-demography-deaths.csv \
	examples/patches-two-diseases.ini
# Births by age of mother (Starsim's ss.Pregnancy) and its table.
# Five towns with their own households, schools and workplaces (SEIR
# with patch_file), and their patch file.
dist_examples_DATA += examples/seir-clatsop.ini examples/seir-clatsop.csv
dist_examples_DATA += examples/patches-fertility.ini \
	examples/patches-demography-fertility.csv
# weft calibrate's example and its data (made by weft itself, as the
# example's header says).
dist_examples_DATA += examples/calibrate-seir.ini \
	examples/calibrate-seir-data.csv

# A small town from CSV files (population = csv; models/seir/populations.md).
examplespopulationdir = $(pkgdatadir)/examples/population
dist_examplespopulation_DATA = examples/population/town.ini \
	examples/population/agents.csv examples/population/edges.csv
dist_examples_DATA += examples/patches-migration.ini
# laser-measles' satellites: its own matrix, births and deaths, a campaign.
dist_examples_DATA += examples/patches-measles.ini \
	examples/patches-measles-network.csv
