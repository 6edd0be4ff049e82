"""Shared fixtures of the weft package's tests (python/tests): the source
tree's examples, and which optional packages and backends are here."""
import os

import pytest

import weft

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
EXAMPLES = os.path.join(TOP, "examples")


def available_backends():
    return {b.name for b in weft.backends() if b.state == "available"}


@pytest.fixture(scope="session")
def backends():
    return available_backends()


@pytest.fixture
def astoria():
    return os.path.join(EXAMPLES, "astoria.ini")


def use_cuda_standin(monkeypatch, why):
    """Put the CUDA plugin built against the stand-in runtime
    (tests/plugins/cuda-mock.c) first on the plugin path, or skip saying
    why it was wanted: make check builds it where weft is configured with
    CUDA."""
    build = weft._paths.BUILD_DIR
    libs = os.path.join(build or "", "tests", "plugins", "cuda-mock", ".libs")
    if not build or not os.path.exists(
            os.path.join(libs, "weft-backend-cuda.so")):
        pytest.skip("%s (make check builds the CUDA stand-in where weft "
                    "is configured with CUDA)" % why)
    monkeypatch.setenv("WEFT_PLUGIN_PATH", os.pathsep.join(
        (libs, os.environ.get("WEFT_PLUGIN_PATH", ""))))


def need(module, why):
    """The module, or a skip that says why it is needed and how to get
    it (the reason is printed in pytest's summary with -rs)."""
    return pytest.importorskip(
        module, reason="%s is not installed (%s; ./quickstart python "
        "installs it)" % (module, why))
