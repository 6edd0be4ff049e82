# docs/: the manual page and the reference documents.
dist_man_MANS += docs/weft.1
# The documents, installed into $(docdir) together, so that their links to
# one another hold there: design.md, the guides and the reference, and the
# topic documents design.md links for each protocol.
dist_doc_DATA += docs/design.md docs/config.md docs/writing-a-backend.md \
	docs/writing-a-model.md docs/kernel-tool.md docs/python.md \
	docs/calibration.md \
	docs/benchmarks.md docs/scaling.md \
	docs/backend-abi.md docs/plugin-loading.md docs/kernel-dialect.md \
	docs/models.md docs/application-api.md docs/output-commit.md \
	docs/output-pipeline.md docs/plots.md docs/checkpoints.md \
	docs/memory.md docs/ensembles.md docs/conformance.md \
	docs/sanitizers.md docs/backend-openmp.md docs/backend-opencl.md \
	docs/backend-cuda.md docs/math.md \
	docs/blocks.md docs/double.md docs/space.md docs/grid.md \
	docs/agents.md docs/graph.md docs/environments.md
EXTRA_DIST += docs/astoria.png
