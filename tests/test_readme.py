"""The README's and the getting-started page's Python examples run as written."""

import contextlib
import io
import re
from pathlib import Path

import numpy as np

ROOT = Path(__file__).parent.parent


def python_blocks(path):
    blocks = re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.DOTALL)
    assert blocks, f"{path.name} has no python example"
    return blocks


def run_alone(block):
    """Run one code block in a fresh namespace; return it and what it printed."""
    namespace: dict = {}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(block, namespace)
    return namespace, printed.getvalue()


def test_readme_blocks_each_run_on_their_own():
    sampling, leaderboard = python_blocks(ROOT / "README.md")
    namespace, _ = run_alone(sampling)
    assert namespace["matrices"].shape == (100, 50, 50)
    radius2 = namespace["uniform"][:, 0, 1] ** 2 + namespace["uniform"][:, 1, 2] ** 2
    assert np.all(radius2 < 1)
    _, printed = run_alone(leaderboard)
    # A readable table: every column, no pandas truncation, fits 100 columns.
    table, *key = printed.split("\n\n")
    lines = table.splitlines()
    assert lines[0].split()[:4] == ["generator", "density", "learner", "position"]
    assert "mean rank (95% CI)" in lines[0] and "tied with" in lines[0]
    assert len(lines) == 1 + 2 * 2 * 2  # header + generators x densities x learners
    assert "..." not in printed and "rows x" not in printed
    assert max(len(line) for line in printed.splitlines()) <= 100
    # Enough repeats for every interval to be taken at face value: no value carries
    # the dagger of an interval over too few repeats, so no key is printed either.
    assert "\u2020" not in printed and not key


def test_getting_started_python_example_runs():
    namespace: dict = {}
    for block in python_blocks(ROOT / "docs" / "getting_started.md"):
        exec(block, namespace)
    assert namespace["matrices"].shape == (10, 30, 30)
    assert namespace["data"].X.shape == (200, 30)
