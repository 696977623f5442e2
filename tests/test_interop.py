"""skggm-bench data in benchopt: benchopt_data, and a real ``benchopt run``."""

import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import patience
import pytest
from sklearn.covariance import empirical_covariance

from skggm_bench.datasets import MissingCompletelyAtRandom, Nonparanormal, make_ggm
from skggm_bench.generators import TriangulatedOrthogonalization
from skggm_bench.interop import benchopt_data

EXAMPLE = Path(__file__).parent.parent / "examples" / "benchopt"


@pytest.mark.parametrize(
    "generator", ["DiagonalDominance", "TriangulatedOrthogonalization"]
)
def test_benchopt_data_is_make_ggm_with_its_sample_covariance(generator):
    data = benchopt_data(150, 12, density=0.3, generator=generator, random_state=3)
    bunch = make_ggm(
        150,
        12,
        density=0.3,
        generator=getattr(
            __import__("skggm_bench.generators", fromlist=[generator]), generator
        )(),
        random_state=3,
    )
    # The one data pipeline: bit for bit what make_ggm draws.
    np.testing.assert_array_equal(data["X"], bunch.X)
    np.testing.assert_array_equal(data["Theta_true"], bunch.precision)
    np.testing.assert_array_equal(data["Sigma_true"], bunch.covariance)
    np.testing.assert_array_equal(data["adjacency"], bunch.adjacency)
    # S: centred, denominator n (sklearn's empirical covariance, to rounding).
    np.testing.assert_allclose(
        data["S"], empirical_covariance(data["X"]), rtol=1e-12, atol=1e-14
    )
    theta, adjacency = data["Theta_true"], data["adjacency"]
    off = ~np.eye(12, dtype=bool)
    assert np.array_equal(theta, theta.T)
    assert np.linalg.eigvalsh(theta)[0] > 0
    assert np.all(theta[off & ~adjacency] == 0)  # exact zeros off the graph
    assert np.all(theta[adjacency] != 0)
    np.testing.assert_allclose(theta @ data["Sigma_true"], np.eye(12), atol=1e-10)


def test_instances_and_data_models_are_accepted():
    by_name = benchopt_data(
        60,
        6,
        generator="TriangulatedOrthogonalization",
        data_model="Nonparanormal",
        random_state=1,
    )
    by_instance = benchopt_data(
        60,
        6,
        generator=TriangulatedOrthogonalization(),
        data_model=Nonparanormal(),
        random_state=1,
    )
    for key in by_name:
        np.testing.assert_array_equal(by_name[key], by_instance[key])


def test_bad_names_and_missing_values_are_refused():
    with pytest.raises(
        ValueError,
        match=r"unknown generator 'DiagonalDominanc'.*"
        r"DiagonalDominance",
    ):
        benchopt_data(50, 5, generator="DiagonalDominanc")
    with pytest.raises(ValueError, match="unknown data model 'GraphicalModel"):
        benchopt_data(50, 5, data_model="GraphicalModelGenerator")
    with pytest.raises(ValueError, match="leaves values missing"):
        benchopt_data(50, 5, data_model=MissingCompletelyAtRandom(0.2), random_state=0)


def test_benchopt_runs_the_shipped_benchmark_to_completion(tmp_path):
    """The shipped example, made tiny, run by benchopt in this environment."""
    pytest.importorskip("benchopt")
    bench = tmp_path / "benchmark"
    shutil.copytree(EXAMPLE, bench, ignore=shutil.ignore_patterns("__cache__"))
    dataset = bench / "datasets" / "skggm.py"
    dataset.write_text(dataset.read_text().replace("[(200, 50)]", "[(40, 8)]"))
    out = tmp_path / "results.parquet"
    command = [
        sys.executable,
        "-m",
        "benchopt",
        "run",
        str(bench),
        "-s",
        "sklearn",
        "-n",
        "3",
        "-r",
        "1",
        "--no-plot",
        "--no-display",
        "--no-timeout",
        "--output",
        str(out),
    ]
    done = patience.run(command, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    results = pd.read_parquet(out)
    assert set(results["p_dataset_generator"]) == {
        "DiagonalDominance",
        "TriangulatedOrthogonalization",
    }
    assert set(results["p_solver_mode"]) == {"cd", "lars"}
    assert set(results["p_dataset_n_features"]) == {8}
    final = (
        results.sort_values("stop_val")
        .groupby(["p_dataset_generator", "p_solver_mode"])
        .last()
    )
    first = (
        results.sort_values("stop_val")
        .groupby(["p_dataset_generator", "p_solver_mode"])
        .first()
    )
    # The solver does its job: the objective goes down from the identity, and
    # the graph it finds is scored against the truth benchopt_data gave.
    assert (final["objective_value"] < first["objective_value"]).all()
    assert final["objective_f1"].between(0, 1).all()
    assert (final["objective_f1"] > 0).all()
