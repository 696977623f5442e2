"""CLIME's parametric simplex path against its version at another commit (not a test).

Run from the repository root:

    .venv/bin/python tests/benchmarks/bench_clime_path.py [--against REV]

The subsample matrices StARS gives ``clime_path``: for each generator
(DiagonalDominance, TriangulatedOrthogonalization) and n = 50, 100, 200, a band
graph at p = 50 (the methods preset's hardest family for CLIME), 20 subsamples of
``min(10 sqrt(n), 0.8 n)`` rows, each's perturbed correlation matrix, and a grid of
10 penalties from the largest correlation down to a tenth of it (StARS' default).
Both versions of ``learners/_clime_path.py`` (the working tree's, and ``git show
REV:...``, default the session's base 15fd905) solve all 120 paths, alternately,
three times, on one BLAS thread; printed: CPU seconds of each (the least of the
three), their ratio, and whether their solutions have the same support (the
largest difference of the entries too).
"""

import argparse
import time

import numpy as np
from _git_revision import module_at
from threadpoolctl import threadpool_limits

from skggm_bench.datasets import make_ggm
from skggm_bench.generators import DiagonalDominance, TriangulatedOrthogonalization
from skggm_bench.learners import CLIME

PATH = "skggm_bench/learners/_clime_path.py"


def problems() -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(0)
    out = []
    for generator in (DiagonalDominance(), TriangulatedOrthogonalization()):
        for n in (50, 100, 200):
            X = make_ggm(n, 50, graph="band", generator=generator, random_state=1).X
            rows = int(min(10 * np.sqrt(n), 0.8 * n))
            correlation = np.corrcoef(X, rowvar=False)
            largest = np.abs(correlation - np.eye(50)).max()
            grid = largest * np.logspace(0.0, -1.0, 10)
            for _ in range(20):
                subsample = X[rng.choice(n, rows, replace=False)]
                out.append((CLIME()._perturbed_correlation(subsample), grid))
    return out


def solve_all(module, cases) -> tuple[float, list]:
    start = time.process_time()
    solutions = [module.clime_path(S, grid) for S, grid in cases]
    return time.process_time() - start, solutions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default="15fd905")
    args = parser.parse_args()
    from skggm_bench.learners import _clime_path as current

    before = module_at(args.against, PATH)
    cases = problems()
    times = {"current": [], args.against: []}
    with threadpool_limits(1):
        for _ in range(3):
            seconds, new = solve_all(current, cases)
            times["current"].append(seconds)
            seconds, old = solve_all(before, cases)
            times[args.against].append(seconds)
    same = all(
        np.array_equal(a[0] != 0, b[0] != 0) and np.array_equal(a[1], b[1])
        for a, b in zip(new, old, strict=True)
    )
    largest = max(np.abs(a[0] - b[0]).max() for a, b in zip(new, old, strict=True))
    fast, slow = min(times["current"]), min(times[args.against])
    print(
        f"{len(cases)} paths: working tree {fast:.2f} s CPU, {args.against} "
        f"{slow:.2f} s ({slow / fast:.2f}x); same supports: {same}; largest "
        f"difference of an entry {largest:.1e}"
    )


if __name__ == "__main__":
    main()
