"""The site's ``redraw.csv``: each call, run, draws the very data its row was fit on.

A published row names the data it was fit on by ``data_hash`` (the harness's
hash of the observed ``X`` and the true matrix, ``run._worker.data_hash``).
Each call of ``redraw.csv`` is parsed, never evaluated as a string: only
``skggm_bench.datasets.make_ggm`` with keyword arguments that are literals or
classes of skggm_bench called with literal keywords is accepted, then run, and
the hash of what it draws must be the row's.
"""

import ast
import importlib

import pandas as pd
import pytest
from sklearn.covariance import LedoitWolf

from skggm_bench.benchmark import Benchmark
from skggm_bench.benchmark.publish import publish
from skggm_bench.benchmark.run._worker import data_hash
from skggm_bench.datasets import Gaussian, MultivariateT, make_ggm
from skggm_bench.generators import DiagonalDominance, TriangulatedOrthogonalization

pytest.importorskip("plotly")
pytest.importorskip("pyarrow")


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    assert isinstance(node, ast.Attribute), ast.dump(node)
    return f"{_dotted(node.value)}.{node.attr}"


def _argument(node: ast.expr):
    """A literal, or a skggm_bench class called with literal keywords."""
    if isinstance(node, ast.Call):
        path = _dotted(node.func)
        assert path.startswith("skggm_bench."), path
        assert not node.args, ast.unparse(node)
        module, _, name = path.rpartition(".")
        cls = getattr(importlib.import_module(module), name)
        return cls(**{k.arg: _argument(k.value) for k in node.keywords})
    return ast.literal_eval(node)


def redraw(call: str):
    tree = ast.parse(call, mode="eval").body
    assert isinstance(tree, ast.Call), call
    assert _dotted(tree.func) == "skggm_bench.datasets.make_ggm", call
    assert not tree.args, call
    return make_ggm(**{k.arg: _argument(k.value) for k in tree.keywords})


@pytest.mark.parametrize("model", ["concentration", "covariance"])
def test_every_redraw_call_draws_the_data_of_its_row(tmp_path, model):
    store = tmp_path / "redraw.sqlite"
    Benchmark(
        generators={
            "DiagonalDominance": DiagonalDominance(),
            "TriangulatedOrthogonalization": TriangulatedOrthogonalization(),
        },
        learners={"lw": LedoitWolf()},
        # A family with a parameter and a density of its own, and one without.
        graph={"er": "erdos_renyi", "hub": {"family": "hub", "n_hubs": 2}},
        data_models={"gaussian": Gaussian(), "t3": MultivariateT(df=3)},
        densities=(0.3,),
        n_features=6,
        n_samples=(20, 40),
        n_repeats=2,
        model=model,
        metrics=("f1",),
        n_jobs=1,
        random_state=0,
        store=str(store),
    ).run()
    publish([store], tmp_path / "site", n_bootstrap=20)
    calls = pd.read_csv(tmp_path / "site" / "studies" / "redraw" / "v1" / "redraw.csv")
    # 2 generators x (er at one density + hub) x 2 data models x 2 n x 2 repeats.
    assert len(calls) == 2 * 2 * 2 * 2 * 2
    assert set(calls["graph"]) == {"er", "hub"}
    assert set(calls["data_model"]) == {"gaussian", "t3"}
    for row in calls.itertuples():
        data = redraw(row.call)
        matrix = data.precision if model == "concentration" else data.covariance
        assert data_hash(data.X, matrix) == row.data_hash, row.call
