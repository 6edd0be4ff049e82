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


def need(module, why):
    """The module, or a skip that says why it is needed and how to get
    it (the reason is printed in pytest's summary with -rs)."""
    return pytest.importorskip(
        module, reason="%s is not installed (%s; ./quickstart python "
        "installs it)" % (module, why))
