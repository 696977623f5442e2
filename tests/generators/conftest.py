"""Fixtures of the generator tests: every small graph of tests/conftest.py by name."""

import pytest

from tests.conftest import GRAPHS


@pytest.fixture(params=sorted(GRAPHS))
def graph_name(request) -> str:
    return request.param
