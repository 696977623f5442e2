"""Fit time of the candidate learners of a cross-method preset at p = 50 (not a test).

Run from the repository root:

    .venv/bin/python tests/benchmarks/bench_methods_preset.py [--repeats 3]

For n = 25, 50, 100 and 200 one Gaussian data set with a random sparse
precision (about 3 edges per node) is drawn; every learner is fitted
``--repeats`` times on one BLAS thread and the median wall-clock seconds are
printed, with the projected time of one preset run: the sum over learners and
sample sizes times the number of graph families and generators (4 x 2),
divided by the 2 cores the harness uses.
"""

import argparse
import statistics
import time
import warnings

import numpy as np
from sklearn.covariance import GraphicalLasso, GraphicalLassoCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from skggm_bench.learners import (
    CLIME,
    TIGER,
    AdaptiveLassoNetwork,
    LassoNetwork,
    NeighbourhoodSelection,
    PLSNetwork,
    RidgeNetwork,
    ShrinkagePartialCorrelation,
    StARS,
    ThresholdedCorrelation,
)

SAMPLE_SIZES = (25, 50, 100, 200)
CELLS_PER_SAMPLE_SIZE = 4 * 2  # graph families x generators
CORES = 2


def learners() -> dict:
    return {
        "NeighbourhoodSelection + StARS": StARS(
            NeighbourhoodSelection(), random_state=0
        ),
        "TIGER (default penalty)": TIGER(),
        "CLIME (default penalty)": CLIME(),
        "CLIME + StARS": StARS(CLIME(), random_state=0),
        "ThresholdedCorrelation + StARS": StARS(
            ThresholdedCorrelation(), random_state=0
        ),
        "GraphicalLasso + StARS": make_pipeline(
            StandardScaler(), StARS(GraphicalLasso(enet_tol=1e-6), random_state=0)
        ),
        "GraphicalLassoCV": GraphicalLassoCV(),
        "ShrinkagePartialCorrelation": ShrinkagePartialCorrelation(),
        "LassoNetwork": LassoNetwork(random_state=0),
        "AdaptiveLassoNetwork": AdaptiveLassoNetwork(random_state=0),
        "RidgeNetwork": RidgeNetwork(random_state=0),
        "PLSNetwork": PLSNetwork(random_state=0),
    }


def sparse_gaussian_data(n_features: int, n_samples: int, seed: int) -> np.ndarray:
    """Gaussian rows whose unit-diagonal precision has a random sparse graph."""
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.random((n_features, n_features)) < 3.0 / n_features, 1)
    signs = rng.choice([-1.0, 1.0], upper.shape)
    weights = upper * signs * rng.uniform(0.2, 0.4, upper.shape)
    weights = weights + weights.T
    smallest = np.linalg.eigvalsh(np.eye(n_features) - weights)[0]
    if smallest < 0.2:
        weights *= 0.8 / (1.0 - smallest)
    covariance = np.linalg.inv(np.eye(n_features) - weights)
    return rng.multivariate_normal(np.zeros(n_features), covariance, size=n_samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    data = {n: sparse_gaussian_data(50, n, seed=n) for n in SAMPLE_SIZES}
    print("| learner | " + " | ".join(f"n={n} (s)" for n in SAMPLE_SIZES) + " |")
    print("|---|" + "---|" * len(SAMPLE_SIZES))
    total = {n: 0.0 for n in SAMPLE_SIZES}
    with threadpool_limits(limits=1), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence chatter of GraphicalLasso
        for name, estimator in learners().items():
            row = []
            for n in SAMPLE_SIZES:
                times = []
                for _ in range(args.repeats):
                    start = time.perf_counter()
                    estimator.fit(data[n])
                    times.append(time.perf_counter() - start)
                row.append(statistics.median(times))
                total[n] += row[-1]
            print(f"| {name} | " + " | ".join(f"{t:.3f}" for t in row) + " |")
    print()
    for n in SAMPLE_SIZES:
        print(f"all learners, n={n}: {total[n]:.1f} s per data set")
    for sizes in ((25, 50, 100), (50, 100, 200)):
        seconds = sum(total[n] for n in sizes) * CELLS_PER_SAMPLE_SIZE / CORES
        print(f"projected preset, n in {sizes}: {seconds / 60:.1f} min")


if __name__ == "__main__":
    main()
