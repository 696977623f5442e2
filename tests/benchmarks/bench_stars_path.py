"""StARS along the path against the plain loop, side by side (not a test).

Run from the repository root:

    .venv/bin/python tests/benchmarks/bench_stars_path.py [--datasets 3]

For each data set (p = 50, n = 100, Gaussian with a random sparse precision,
about 3 edges per node, standardised), StARS with 10 penalties and 20
subsamples is fitted twice, alternately, on one BLAS thread:

* fast: ``StARS(GraphicalLasso())``, which solves each subsample's whole path
  with the screened, warm-started exact solver (``learners/_glasso_path.py``);
* plain: the same with a subclass of ``GraphicalLasso`` that the fast path does
  not recognise, so every subsample x penalty is a fresh ``GraphicalLasso`` fit.

Last, the two graphical lasso set-ups on one hard data set of the methods
preset (band graph, TriangulatedOrthogonalization, n = 200, repeat 2: condition
number about 480), where the path solver needs many more Newton steps.

Printed per data set: CPU seconds of each (process time, the figure to compare
on a shared machine; wall seconds in the totals), their ratio, the chosen penalty
of each and the largest difference of edge frequencies. The same for the methods
preset's set-up, ``GraphicalLasso(enet_tol=1e-6)``, and for CLIME on the first
data set only (its plain loop takes minutes): its ``adjacency_path``, a
parametric simplex, against one ``CLIME`` fit (HiGHS) per penalty and subsample.
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.covariance import GraphicalLasso
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from skggm_bench.benchmark.config import get_preset
from skggm_bench.learners import CLIME, StARS


class PlainGraphicalLasso(GraphicalLasso):
    """``GraphicalLasso`` under another name: StARS fits it penalty by penalty."""


class PlainCLIME(CLIME):
    """``CLIME`` without its path: StARS fits it penalty by penalty."""

    adjacency_path = None  # StARS uses a path only where it is callable


def sparse_gaussian_data(n_features: int, n_samples: int, seed: int) -> np.ndarray:
    """Standardised Gaussian rows, unit-diagonal precision with a sparse graph."""
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.random((n_features, n_features)) < 3.0 / n_features, 1)
    weights = upper * rng.choice([-1.0, 1.0], upper.shape) * rng.uniform(0.2, 0.4)
    weights = weights + weights.T
    weights *= min(1.0, 0.8 / np.abs(np.linalg.eigvalsh(weights)).max())
    covariance = np.linalg.inv(np.eye(n_features) - weights)
    X = rng.multivariate_normal(np.zeros(n_features), covariance, size=n_samples)
    return StandardScaler().fit_transform(X)


def timed_fit(estimator, X):
    """CPU and wall seconds of one fit, and the fitted estimator."""
    start, start_wall = time.process_time(), time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # GraphicalLasso's convergence chatter
        estimator.fit(X)
    return time.process_time() - start, time.perf_counter() - start_wall, estimator


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=int, default=3)
    parser.add_argument("--skip-clime", action="store_true")
    args = parser.parse_args()
    pairs = {
        "GraphicalLasso()": (GraphicalLasso(), PlainGraphicalLasso()),
        "GraphicalLasso(enet_tol=1e-6)": (
            GraphicalLasso(enet_tol=1e-6),
            PlainGraphicalLasso(enet_tol=1e-6),
        ),
    }
    if not args.skip_clime:
        pairs["CLIME()"] = (CLIME(), PlainCLIME())
    print(
        "| inner learner | data set | fast CPU (s) | plain CPU (s) | ratio | chosen "
        "penalty fast / plain | largest edge-frequency difference |"
    )
    print("|---|---|---|---|---|---|---|")
    datasets = {
        seed: sparse_gaussian_data(50, 100, seed) for seed in range(args.datasets)
    }
    hard = StandardScaler().fit_transform(
        get_preset("methods")
        .make_benchmark()
        .dataset(
            "TriangulatedOrthogonalization",
            density=0.1,
            repeat=2,
            n_samples=200,
            graph="band",
        )
        .X
    )
    runs = [(name, pair, datasets) for name, pair in pairs.items()]
    runs += [
        (name, pairs[name], {"band, n=200": hard})
        for name in ("GraphicalLasso()", "GraphicalLasso(enet_tol=1e-6)")
    ]
    with threadpool_limits(limits=1):
        for name, (fast_learner, plain_learner), data in runs:
            cpu, wall = np.zeros(2), np.zeros(2)
            for seed, X in data.items():
                if name == "CLIME()" and seed != 0:
                    continue
                stars = {"alphas": 10, "n_subsamples": 20, "random_state": 0}
                fast_cpu, fast_wall, fast = timed_fit(StARS(fast_learner, **stars), X)
                plain_cpu, plain_wall, plain = timed_fit(
                    StARS(plain_learner, **stars), X
                )
                cpu += fast_cpu, plain_cpu
                wall += fast_wall, plain_wall
                difference = np.abs(
                    fast.edge_frequencies_ - plain.edge_frequencies_
                ).max()
                print(
                    f"| {name} | {seed} | {fast_cpu:.2f} | {plain_cpu:.2f} | "
                    f"{plain_cpu / fast_cpu:.1f}x | {fast.alpha_:.4f} / "
                    f"{plain.alpha_:.4f} | {difference:.2f} |"
                )
            print(
                f"| {name} | all (wall {wall[0]:.1f} / {wall[1]:.1f} s) | "
                f"{cpu[0]:.2f} | {cpu[1]:.2f} | {cpu[1] / cpu[0]:.1f}x | | |"
            )


if __name__ == "__main__":
    main()
