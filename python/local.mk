# python/: the Python package (docs/python.md), built by pip, not by make
# (./quickstart python, or pip install ./python after make install); its
# sources travel in the release tarball, with its tests and examples.
EXTRA_DIST += python/pyproject.toml python/setup.py python/README.md \
	python/requirements-test.txt python/src/_weft.c \
	python/weft/__init__.py python/weft/_paths.py python/weft/envs.py \
	python/weft/errors.py python/weft/run.py python/weft/render.py \
	python/tests/conftest.py python/tests/test_api.py \
	python/tests/test_cartpole.py python/tests/test_dlpack.py \
	python/tests/test_cuda.py python/tests/test_cuda_envs.py \
	python/tests/test_ensemble.py \
	python/tests/test_crn.py \
	python/tests/test_interrupt.py python/tests/test_optional.py \
	python/tests/test_kstats.py python/tests/test_envs.py \
	python/tests/test_envs_bad_calls.py python/tests/test_render.py \
	python/tests/test_envs_generic.py python/tests/test_examples_learn.py \
	examples/python/reinforce_cartpole.py examples/python/ppo.py \
	examples/python/epidemic_ensemble.py bench/cartpole_python.py \
	python/weft/calibrate.py python/weft/calib_components.py \
	python/tests/test_calibrate.py python/tests/test_dlpack_torch113.py \
	python/tests/test_dlpack_jax.py python/tests/test_cartpole_max_return.py \
	python/tests/test_gym_agreement.py \
	python/weft/__main__.py python/tests/test_calibrate_cli.py \
	python/tests/test_calibrate_mpi.py python/tests/_child.py \
	python/tests/test_dlpack_numpy1.py python/tests/test_envs_modes.py \
	python/tests/test_envs_modes_inplace.py \
	python/tests/test_envs_modes_render.py \
	python/tests/test_envs_third_party.py \
	python/tests/test_minatar_agreement.py \
	python/tests/data/tpwalk/tpwalk.c python/tests/data/tpwalk/tpwalk.wk \
	python/tests/data/tpwalk/tpwalk_shared.h
