"""Fit time of every learner at p=100, n=200 on one core (not a unit test).

Run from the repository root:

    .venv/bin/python tests/benchmarks/bench_learners.py [--repeats 5]
    .venv/bin/python tests/benchmarks/bench_learners.py --baseline REV [--grid]

BLAS is limited to one thread (threadpoolctl) so the figures are per-core. The
data are Gaussian with a sparse random precision matrix (5% of pairs are edges,
the sparsest density of the Krämer et al. 2009 grid; partial correlations of
magnitude about 0.1-0.3). TPR/PPV of the edge decisions are printed for context.
Reported: median wall-clock and median CPU (process) time over the repeats, in
seconds. CPU time is the figure to compare on a loaded machine.

``--baseline REV`` instead times the lasso learners with the node-wise lasso of
git revision ``REV`` against the current one, alternating the two in this
process round by round, so that both see the same machine speed; it prints the
minimum CPU time of each and their ratio. Add ``--grid`` to do so on the data
of the Krämer et al. grid's hardest corner instead: n=200 from
``make_ggm`` with DiagonalDominance, TriangulatedOrthogonalization and
PartialOrthogonalization at densities 0.05, 0.1 and 0.25 (strongly correlated
predictors, where coordinate descent is slow).

``--glmnet`` times, for scale, R's glmnet-based node-wise lasso CV on two of
those data sets (``X <- scale(X)``, then ``cv.glmnet(X[, -i], X[, i], nfolds =
5)`` for every node; CPU seconds inside R, ``--repeats`` times) with R on its
default BLAS and on Debian's reference BLAS, beside ``LassoNetwork`` (least CPU
seconds of ``--repeats`` fits), in the same run.
"""

import argparse
import itertools
import statistics
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from _git_revision import module_at
from _r_reference import (
    r_available,
    r_blas,
    r_library_path,
    r_timings,
    reference_blas_path,
)
from sklearn.covariance import OAS, GraphicalLassoCV, LedoitWolf
from threadpoolctl import threadpool_limits

import skggm_bench.learners._nodewise as nodewise
from skggm_bench.datasets import make_ggm
from skggm_bench.generators import (
    DiagonalDominance,
    PartialOrthogonalization,
    TriangulatedOrthogonalization,
)
from skggm_bench.learners import (
    AdaptiveLassoNetwork,
    LassoNetwork,
    LocalFDRSelector,
    PLSNetwork,
    RidgeNetwork,
    ShrinkagePartialCorrelation,
)


def sparse_gaussian_data(n_features: int, n_samples: int, density: float, seed: int):
    """Gaussian data whose precision matrix has a random sparse graph.

    Edge weights are +-U(0.2, 0.4), scaled down when needed so that the unit-
    diagonal precision ``I - W`` has smallest eigenvalue >= 0.2; its partial
    correlations are then the entries of ``W``.
    """
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.random((n_features, n_features)) < density, k=1)
    signs = rng.choice([-1.0, 1.0], upper.shape)
    weights = upper * rng.uniform(0.2, 0.4, size=upper.shape) * signs
    weights = weights + weights.T
    largest = np.abs(np.linalg.eigvalsh(weights)).max()
    weights *= min(1.0, 0.8 / largest)
    covariance = np.linalg.inv(np.eye(n_features) - weights)
    X = rng.multivariate_normal(np.zeros(n_features), covariance, size=n_samples)
    return X, upper


LEARNERS = {
    "ShrinkagePartialCorrelation": lambda: ShrinkagePartialCorrelation(),
    "LassoNetwork": lambda: LassoNetwork(random_state=0),
    "LassoNetwork(cv_1se)": lambda: LassoNetwork(
        penalty_selection="cv_1se", random_state=0
    ),
    "AdaptiveLassoNetwork": lambda: AdaptiveLassoNetwork(random_state=0),
    "RidgeNetwork": lambda: RidgeNetwork(random_state=0),
    "PLSNetwork": lambda: PLSNetwork(random_state=0),
    "LocalFDRSelector(LedoitWolf)": lambda: LocalFDRSelector(LedoitWolf()),
    "LocalFDRSelector(OAS)": lambda: LocalFDRSelector(OAS()),
    "GraphicalLassoCV (sklearn, for scale)": lambda: GraphicalLassoCV(),
}


def grid_datasets(n_features: int, n_samples: int) -> dict:
    """``{label: X}`` over three generators and three densities (seed 0)."""
    makers = {
        "DD": DiagonalDominance,
        "TO": TriangulatedOrthogonalization,
        "PO": PartialOrthogonalization,
    }
    return {
        f"{name} d={density}": make_ggm(
            n_samples, n_features, density=density, generator=make(), random_state=0
        ).X
        for name, make in makers.items()
        for density in (0.05, 0.1, 0.25)
    }


def compare_with_baseline(datasets: dict, revision: str, repeats: int) -> None:
    """Minimum CPU time of the lasso learners, baseline vs current, alternating."""
    implementations = {
        revision: module_at(
            revision, "skggm_bench/learners/_nodewise_lasso.py"
        ).nodewise_lasso,
        "current": nodewise.nodewise_lasso,
    }
    learners = {
        "LassoNetwork": LEARNERS["LassoNetwork"],
        "AdaptiveLassoNetwork": LEARNERS["AdaptiveLassoNetwork"],
    }
    cpu = {
        (impl, data, name): []
        for impl in implementations
        for data in datasets
        for name in learners
    }
    try:
        for _ in range(repeats):
            for (impl, function), (data, X) in itertools.product(
                implementations.items(), datasets.items()
            ):
                nodewise.nodewise_lasso = function
                for name, make in learners.items():
                    start = time.process_time()
                    make().fit(X)
                    cpu[impl, data, name].append(time.process_time() - start)
    finally:
        nodewise.nodewise_lasso = implementations["current"]
    print(f"| data | learner | {revision} CPU (s) | current CPU (s) | speed-up |")
    print("|---|---|---|---|---|")
    for data, name in itertools.product(datasets, learners):
        before = min(cpu[revision, data, name])
        after = min(cpu["current", data, name])
        print(
            f"| {data} | {name} | {before:.3f} | {after:.3f} | {before / after:.2f}x |"
        )


R_GLMNET = """
suppressMessages(library(glmnet))
set.seed(1)
X <- scale(as.matrix(read.csv("{path}", header = FALSE)))
for (r in seq_len({repeats})) {{
  seconds <- system.time(for (i in seq_len(ncol(X))) {{
    cv.glmnet(X[, -i], X[, i], nfolds = 5)
  }})
  cat("TIME {label}", seconds[["user.self"]] + seconds[["sys.self"]], "\\n")
}}
"""
GLMNET_DATA = ("DD d=0.05", "TO d=0.25")


def compare_with_glmnet(datasets: dict, repeats: int) -> None:
    """CPU seconds of R's node-wise cv.glmnet and of LassoNetwork, same data."""
    reason = r_available("glmnet")
    if reason is not None:
        print(f"glmnet not timed: {reason}")
        return
    setups = {"R default BLAS": None, "R reference BLAS": reference_blas_path()}
    seconds: dict[str, dict[str, float]] = {label: {} for label in setups}
    with tempfile.TemporaryDirectory() as directory:
        for index, data in enumerate(GLMNET_DATA):
            path = Path(directory) / f"data{index}.csv"
            np.savetxt(path, datasets[data], delimiter=",")
            for label, library in setups.items():
                if label != "R default BLAS" and library is None:
                    continue
                with r_library_path(library):
                    if index == 0:
                        print(f"{label}: {r_blas()}", flush=True)
                    code = R_GLMNET.format(path=path, repeats=repeats, label=index)
                    times = r_timings(code)[str(index)]
                seconds[label][data] = statistics.median(times)
    ours = {}
    with threadpool_limits(limits=1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for data in GLMNET_DATA:
            cpu = []
            for _ in range(repeats):
                start = time.process_time()
                LassoNetwork().fit(datasets[data])
                cpu.append(time.process_time() - start)
            ours[data] = min(cpu)
    labels = [label for label in setups if seconds[label]]
    print("| data | LassoNetwork CPU (s) | " + " | ".join(labels) + " |")
    print("|---" * (2 + len(labels)) + "|")
    for data in GLMNET_DATA:
        cells = [
            f"{seconds[label][data]:.2f} ({seconds[label][data] / ours[data]:.1f}x)"
            for label in labels
        ]
        print(f"| {data} | {ours[data]:.3f} | " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--n-features", type=int, default=100)
    parser.add_argument("--n-samples", type=int, default=200)
    parser.add_argument("--baseline", metavar="REV", default=None)
    parser.add_argument("--grid", action="store_true")
    parser.add_argument("--glmnet", action="store_true")
    args = parser.parse_args()
    if args.glmnet:
        datasets = grid_datasets(args.n_features, args.n_samples)
        compare_with_glmnet(datasets, args.repeats)
        return
    X, truth = sparse_gaussian_data(
        args.n_features, args.n_samples, density=0.05, seed=0
    )
    if args.baseline is not None:
        datasets = (
            grid_datasets(args.n_features, args.n_samples)
            if args.grid
            else {"bench data": X}
        )
        with threadpool_limits(limits=1), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the baseline's ConvergenceWarnings
            compare_with_baseline(datasets, args.baseline, args.repeats)
        return
    print(f"p={args.n_features}, n={args.n_samples}, repeats={args.repeats}, 1 thread")
    print(f"| {'learner':40s} | wall (s) | CPU (s) | edges | TPR  | PPV  |")
    print(f"|{'-' * 42}|----------|---------|-------|------|------|")
    n_true = truth.sum()
    with threadpool_limits(limits=1), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence chatter of GraphicalLassoCV
        for name, make in LEARNERS.items():
            walls, cpus = [], []
            for _ in range(args.repeats):
                estimator = make()
                wall, cpu = time.perf_counter(), time.process_time()
                estimator.fit(X)
                walls.append(time.perf_counter() - wall)
                cpus.append(time.process_time() - cpu)
            if hasattr(estimator, "adjacency_"):
                edges = np.triu(estimator.adjacency_, k=1)
            else:
                edges = np.triu(estimator.precision_ != 0, k=1)
            hits = np.sum(edges & truth)
            wall, cpu = statistics.median(walls), statistics.median(cpus)
            tpr, ppv = hits / n_true, hits / max(edges.sum(), 1)
            print(
                f"| {name:40s} | {wall:8.3f} | {cpu:7.3f} "
                f"| {edges.sum():5d} | {tpr:.2f} | {ppv:.2f} |"
            )


if __name__ == "__main__":
    main()
