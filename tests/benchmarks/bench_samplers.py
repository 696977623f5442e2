"""Sampler timings for docs/performance.md, as ratios to floors from the same run.

Run with ``make bench`` or ``.venv/bin/python tests/benchmarks/bench_samplers.py``.
Reference figures for the R package gmat are the ones measured on this machine type
and quoted in issue 2 (R is not needed to run this script).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from skggm_bench.generators import (
    DiagonalDominance,
    PartialOrthogonalization,
    TriangulatedOrthogonalization,
    UniformChordal,
)
from skggm_bench.generators.uniform_chordal import gram_matrices
from skggm_bench.graphs import erdos_renyi_graph, triangulate

R_GMAT_UNIFORM_SECONDS = 3.9  # 1000 near-uniform chordal samples, p=100, d=0.25
R_GMAT_PORT_SECONDS = 19.3  # 1000 partial orthogonalizations, same graph untriangulated


def best_time(function, repeats: int) -> float:
    """Smallest wall time over ``repeats`` calls (the least disturbed run)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n-samples", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    n, repeats = args.n_samples, args.repeats

    graph = erdos_renyi_graph(100, 0.25, random_state=0)
    chordal, _ = triangulate(graph)
    floor_factors = np.random.RandomState(0).standard_normal((n, 100, 100))
    floor = best_time(lambda: gram_matrices(floor_factors), repeats)

    rows = []
    uniform = UniformChordal(random_state=0).fit(chordal)
    t = best_time(lambda: uniform.sample(n), repeats)
    rows.append(("UniformChordal exact, triangulated ER", t, R_GMAT_UNIFORM_SECONDS))
    for name, generator in [
        ("PartialOrthogonalization, ER", PartialOrthogonalization(random_state=0)),
        (
            "TriangulatedOrthogonalization, ER",
            TriangulatedOrthogonalization(random_state=0),
        ),
        ("DiagonalDominance, ER", DiagonalDominance(random_state=0)),
    ]:
        generator.fit(graph)
        reference = R_GMAT_PORT_SECONDS if name.startswith("Partial") else None
        rows.append(
            (name, best_time(lambda g=generator: g.sample(n), repeats), reference)
        )

    print(f"p=100, ER density 0.25 (seed 0), {n} draws, best of {repeats}")
    print(f"floor: batched U U^T of ({n}, 100, 100) = {floor:.3f} s\n")
    print("| sampler | seconds | x floor | speed-up vs R gmat |")
    print("|---|---|---|---|")
    for name, seconds, reference in rows:
        speedup = f"{reference / seconds:.1f}x" if reference else "-"
        print(f"| {name} | {seconds:.3f} | {seconds / floor:.2f} | {speedup} |")

    big = erdos_renyi_graph(2000, 5 / 1999, random_state=0)
    start = time.perf_counter()
    PartialOrthogonalization(random_state=0).fit(big).sample(1)
    print(
        f"\nPartialOrthogonalization, p=2000 ER average degree 5, one draw: "
        f"{time.perf_counter() - start:.1f} s"
    )


if __name__ == "__main__":
    main()
