"""The exact graphical lasso's path solver on three sets of problems (not a test).

Run from the repository root, one BLAS thread, with ``PYTHONPATH`` naming the
tree to measure (run it once per tree to compare two commits):

    PYTHONPATH=. OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 .venv/bin/python \\
        tests/benchmarks/bench_glasso_robust.py [--sets ill paths single]

The sets, each the CPU time of ``graphical_lasso_path`` (process time) summed
over its problems, and how many problems it left unsettled:

    ill     40 single-penalty fits of unstandardised data that are hard for
            every solver: make_ggm(n, 60, graph="erdos_renyi", density=d,
            generator=TriangulatedOrthogonalization(), random_state=seed) for
            seeds 0-9, d in (0.05, 0.15), n in (100, 400); the empirical
            covariance (variances spread over one to two orders of magnitude)
            at alpha = 0.1, where the solutions keep 17-46 % of the pairs.
    paths   48 paths of 10 penalties (the 99.9th down to the 80th percentile of
            the |S_ij|), make_ggm at density 0.1, seeds 0-11, (n, p) in
            (50, 60), (200, 100) with the default generator and (30, 80),
            (100, 150) with TriangulatedOrthogonalization: n < p in half;
            the worst certificate over all is printed too.
    single  12 single-penalty fits at p = 1000 (and 12 at p = 300) of
            standardised data as in bench_glasso_exact.py: seeds 0-2, er
            (average degree 4, default generator) and to (average degree 10,
            TriangulatedOrthogonalization), n = 1000, penalties at the 97th and
            94th percentiles of the |S_ij|, tol = 1e-2.
"""

import argparse
import time

import numpy as np
from sklearn.covariance import empirical_covariance

from skggm_bench.datasets import make_ggm
from skggm_bench.generators import TriangulatedOrthogonalization
from skggm_bench.learners._glasso_path import graphical_lasso_path, kkt_residual


def timed(S, alphas, tol=1e-10):
    start = time.process_time()
    _, solved = graphical_lasso_path(S, alphas, tol=tol)
    return time.process_time() - start, solved


def ill() -> None:
    seconds, settled = 0.0, 0
    for seed in range(10):
        for density in (0.05, 0.15):
            for n in (100, 400):
                X = make_ggm(
                    n,
                    60,
                    graph="erdos_renyi",
                    density=density,
                    generator=TriangulatedOrthogonalization(),
                    random_state=seed,
                ).X
                cpu, solved = timed(empirical_covariance(X), [0.1])
                seconds += cpu
                settled += int(solved.all())
    print(f"ill: {settled} of 40 settled, {seconds:.2f} s CPU")


def paths() -> None:
    seconds, unsettled, worst = 0.0, 0, 0.0
    shapes = [(50, 60, False), (200, 100, False), (30, 80, True), (100, 150, True)]
    for seed in range(12):
        for n, p, triangulated in shapes:
            generator = (
                {"generator": TriangulatedOrthogonalization()} if triangulated else {}
            )
            X = make_ggm(
                n, p, graph="erdos_renyi", density=0.1, random_state=seed, **generator
            ).X
            S = empirical_covariance(X)
            alphas = np.quantile(
                np.abs(S[np.triu_indices(p, 1)]), np.linspace(0.999, 0.8, 10)
            )
            cpu, solved = timed(S, alphas)
            seconds += cpu
            unsettled += int((~solved).sum())
            precisions, _ = graphical_lasso_path(S, alphas)
            for alpha, K in zip(alphas, precisions, strict=True):
                worst = max(worst, kkt_residual(S, K, alpha))
    print(
        f"paths: 48 paths of 10 penalties, {unsettled} penalties unsettled, "
        f"{seconds:.2f} s CPU, worst certificate {worst:.1e}"
    )


def single() -> None:
    for p in (300, 1000):
        seconds, unsettled = 0.0, 0
        for seed in range(3):
            for degree, generator in (
                (4, {}),
                (10, {"generator": TriangulatedOrthogonalization()}),
            ):
                X = make_ggm(
                    1000,
                    p,
                    graph="erdos_renyi",
                    density=degree / p,
                    random_state=seed,
                    **generator,
                ).X
                X = (X - X.mean(axis=0)) / X.std(axis=0)
                S = X.T @ X / X.shape[0]
                off = np.abs(S[np.triu_indices(p, 1)])
                for percentile in (97, 94):
                    alpha = np.percentile(off, percentile)
                    cpu, solved = timed(S, [alpha], tol=1e-2)
                    seconds += cpu
                    unsettled += int(not solved.all())
        print(f"single, p = {p}: 12 fits, {unsettled} unsettled, {seconds:.2f} s CPU")


SETS = {"ill": ill, "paths": paths, "single": single}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", choices=list(SETS), default=list(SETS))
    for name in parser.parse_args().sets:
        SETS[name]()


if __name__ == "__main__":
    main()
