"""The API reference lists every public object of every public module."""

import importlib
from pathlib import Path

import pytest

API = (Path(__file__).parent.parent / "docs" / "api.rst").read_text()
PUBLIC_MODULES = [
    "graphs",
    "generators",
    "datasets",
    "learners",
    "metrics",
    "benchmark",
    "benchmark.results.store",
    "benchmark.analysis.leaderboard",
    "benchmark.present",
    "benchmark.present.plotting",
    "benchmark.present.report",
    "benchmark.publish",
    "benchmark.config",
    "cli",
    "interop",
]


@pytest.mark.parametrize("module", PUBLIC_MODULES)
def test_api_reference_is_complete(module):
    names = importlib.import_module(f"skggm_bench.{module}").__all__
    section = API.split(f".. currentmodule:: skggm_bench.{module}\n")[1].split(
        ".. currentmodule::"
    )[0]
    listed = {line.strip() for line in section.splitlines()}
    missing = sorted(set(names) - listed)
    assert not missing, f"docs/api.rst lacks skggm_bench.{module}: {missing}"
