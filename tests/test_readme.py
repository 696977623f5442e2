"""The README's Python example runs as written."""

import re
from pathlib import Path

import numpy as np


def test_readme_python_example_runs():
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.DOTALL)
    assert blocks, "README has no python example"
    namespace: dict = {}
    for block in blocks:
        exec(block, namespace)
    assert namespace["matrices"].shape == (100, 50, 50)
    radius2 = namespace["uniform"][:, 0, 1] ** 2 + namespace["uniform"][:, 1, 2] ** 2
    assert np.all(radius2 < 1)


def test_getting_started_python_example_runs():
    page = (Path(__file__).parent.parent / "docs" / "getting_started.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", page, flags=re.DOTALL)
    assert blocks, "getting started has no python example"
    namespace: dict = {}
    for block in blocks:
        exec(block, namespace)
    assert namespace["matrices"].shape == (10, 30, 30)
    assert namespace["data"].X.shape == (200, 30)
