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
