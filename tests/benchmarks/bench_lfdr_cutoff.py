"""Local-fdr edge decisions under the three null cutoff methods (not a unit test).

Run from the repository root:

    .venv/bin/python tests/benchmarks/bench_lfdr_cutoff.py [--repeats 5]

For every learner that decides edges by local fdr, the partial correlations are
estimated once and ``local_fdr`` is applied with ``cutoff_method`` "locfdr"
(our default), "fndr" (fdrtool's default) and "pct0". Printed per case:
mean TPR, mean PPV (over the datasets with at least one selection), mean and
largest number of selected pairs. Cases:

- the easy chain of ``tests/learners`` (p=20, n=2000), 20 datasets;
- independent data (p=20, n=200), 30 datasets;
- the known two-group mixture of the local-fdr tests (5000 statistics, eta0
  0.9, kappa 50), seeds 0-7: estimated eta0, kappa and the mean absolute lfdr
  error;
- the Krämer et al. (2009) grid at p=100, densities 0.05 and 0.25, n 25, 50
  and 200, ground truth from DiagonalDominance and TriangulatedOrthogonalization,
  ``--repeats`` datasets each.

Figures quoted in docs/learners.md come from this script.
"""

import argparse
import itertools
import sys
import warnings
from pathlib import Path

import numpy as np
from sklearn.covariance import LedoitWolf

from skggm_bench.datasets import make_ggm
from skggm_bench.generators import DiagonalDominance, TriangulatedOrthogonalization
from skggm_bench.learners import (
    LocalFDRSelector,
    PLSNetwork,
    RidgeNetwork,
    ShrinkagePartialCorrelation,
    local_fdr,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "learners"))
from conftest import chain_precision, correlation_mixture, gaussian_sample

METHODS = ("locfdr", "fndr", "pct0")
LEARNERS = {
    "shrink": lambda: ShrinkagePartialCorrelation(),
    "ridge": lambda: RidgeNetwork(random_state=0),
    "pls": lambda: PLSNetwork(random_state=0),
    "ledoit_wolf": lambda: LocalFDRSelector(LedoitWolf()),
}


def _decisions(partial_correlation: np.ndarray, method: str) -> np.ndarray:
    upper = partial_correlation[np.triu_indices(partial_correlation.shape[0], k=1)]
    return local_fdr(upper, cutoff_method=method).lfdr < 0.2


def _summary(datasets) -> dict:
    """{(learner, method): (TPR, PPV, mean selected, max selected)}."""
    rows = {}
    for name, make in LEARNERS.items():
        fits = [(make().fit(X).partial_correlation_, truth) for X, truth in datasets]
        for method in METHODS:
            tpr, ppv, selected = [], [], []
            for pcor, truth in fits:
                edges = truth[np.triu_indices(truth.shape[0], k=1)]
                chosen = _decisions(pcor, method)
                hits = np.sum(chosen & edges)
                tpr.append(hits / max(edges.sum(), 1))
                if chosen.any():
                    ppv.append(hits / chosen.sum())
                selected.append(int(chosen.sum()))
            rows[name, method] = (
                np.mean(tpr),
                np.mean(ppv) if ppv else np.nan,
                np.mean(selected),
                max(selected),
            )
    return rows


def _print(title: str, rows: dict) -> None:
    print(f"\n{title}")
    print(f"{'learner':12s}" + "".join(f"{m:>28s}" for m in METHODS))
    print(f"{'':12s}" + "   TPR   PPV  mean sel  max" * len(METHODS))
    for name in LEARNERS:
        cells = "".join(
            "{:6.2f}{:6.2f}{:10.1f}{:5d}".format(*rows[name, method])
            for method in METHODS
        )
        print(f"{name:12s}{cells}")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    warnings.simplefilter("ignore")

    truth = chain_precision() != 0
    np.fill_diagonal(truth, False)
    easy = [(gaussian_sample(chain_precision(), 2000, s), truth) for s in range(20)]
    _print("Easy chain, p=20, n=2000, 20 datasets", _summary(easy))
    empty = np.zeros((20, 20), dtype=bool)
    null = [(gaussian_sample(np.eye(20), 200, s), empty) for s in range(1000, 1030)]
    _print("Independent data, p=20, n=200, 30 datasets", _summary(null))

    print("\nKnown mixture, 5000 statistics, true eta0 0.9, kappa 50 (seeds 0-7)")
    for method in METHODS:
        fits = [
            (local_fdr(x, cutoff_method=method), true)
            for x, true in map(correlation_mixture, range(8))
        ]
        eta0 = [fit.eta0 for fit, _ in fits]
        kappa = [fit.kappa for fit, _ in fits]
        error = [np.mean(np.abs(fit.lfdr - true)) for fit, true in fits]
        print(
            f"{method:8s} eta0 {min(eta0):.3f}-{max(eta0):.3f}  kappa "
            f"{min(kappa):.1f}-{max(kappa):.1f}  mean |lfdr error| "
            f"{min(error):.3f}-{max(error):.3f}"
        )

    generators = {
        "DiagonalDominance": DiagonalDominance(),
        "TriangulatedOrthogonalization": TriangulatedOrthogonalization(),
    }
    for (name, generator), density, n in itertools.product(
        generators.items(), (0.05, 0.25), (25, 50, 200)
    ):
        datasets = []
        for seed in range(args.repeats):
            bunch = make_ggm(
                n, 100, density=density, generator=generator, random_state=seed
            )
            datasets.append((bunch.X, bunch.adjacency.astype(bool)))
        _print(
            f"{name}, p=100, density {density}, n={n}, {args.repeats} datasets",
            _summary(datasets),
        )


if __name__ == "__main__":
    main()
