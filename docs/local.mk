# docs/: the manual page and the reference documents.
dist_man_MANS += docs/weft.1
EXTRA_DIST += docs/design.md docs/config.md docs/writing-a-backend.md docs/benchmarks.md \
	docs/writing-a-model.md docs/kernel-tool.md docs/python.md docs/scaling.md \
	docs/astoria.png
