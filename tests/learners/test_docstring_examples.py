"""Run the ``Examples`` sections of the learners' docstrings (they must stay true)."""

import doctest
import importlib

import pytest

MODULES = [
    "skggm_bench.learners._adapters",
    "skggm_bench.learners._clime",
    "skggm_bench.learners._edges",
    "skggm_bench.learners._information_criteria",
    "skggm_bench.learners._local_fdr",
    "skggm_bench.learners._neighbourhood",
    "skggm_bench.learners._nodewise",
    "skggm_bench.learners._nonparanormal",
    "skggm_bench.learners._partial_correlation",
    "skggm_bench.learners._rank_correlation",
    "skggm_bench.learners._shrinkage",
    "skggm_bench.learners._stars",
    "skggm_bench.learners._thresholding",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(
        importlib.import_module(name), optionflags=doctest.ELLIPSIS
    )
    assert result.attempted > 0
    assert result.failed == 0
