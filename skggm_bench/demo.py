"""A short tour: sample from every generator on one graph and summarise the draws.

Run as ``python -m skggm_bench.demo`` (``make demo``). The table shows why the choice
of generator matters: diagonal dominance shrinks the off-diagonal entries that a
structure learner has to detect.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from . import generators
from .graphs import erdos_renyi_graph

__all__ = ["main", "summarise"]


def summarise(draws: np.ndarray, adjacency: np.ndarray) -> dict[str, float]:
    """Median |edge entry|, smallest eigenvalue and median condition number.

    Parameters
    ----------
    draws : ndarray of shape (n, p, p)
        Matrices from a generator.
    adjacency : ndarray of shape (p, p), dtype bool
        The graph they were drawn on.

    Returns
    -------
    summary : dict
        Keys ``"median_abs_edge"``, ``"min_eigenvalue"``, ``"median_condition"``.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.demo import summarise
    >>> draws = np.array([[[1.0, 0.5], [0.5, 1.0]]])
    >>> summarise(draws, np.array([[False, True], [True, False]]))["median_abs_edge"]
    0.5
    """
    eigenvalues = np.linalg.eigvalsh(draws)
    return {
        "median_abs_edge": float(np.median(np.abs(draws[:, adjacency]))),
        "min_eigenvalue": float(eigenvalues[:, 0].min()),
        "median_condition": float(np.median(eigenvalues[:, -1] / eigenvalues[:, 0])),
    }


def _demo_generators(seed: int) -> dict[str, generators.GraphicalModelGenerator]:
    return {
        "DiagonalDominance": generators.DiagonalDominance(random_state=seed),
        "PartialOrthogonalization": generators.PartialOrthogonalization(
            random_state=seed
        ),
        "TriangulatedOrthogonalization": generators.TriangulatedOrthogonalization(
            random_state=seed
        ),
    }


def main(argv: list[str] | None = None) -> None:
    """Print a summary of draws from every generator on one random graph."""
    parser = argparse.ArgumentParser(prog="python -m skggm_bench.demo")
    parser.add_argument("--n-nodes", type=int, default=50)
    parser.add_argument("--density", type=float, default=0.1)
    parser.add_argument("--n-samples", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    graph = erdos_renyi_graph(args.n_nodes, args.density, random_state=args.seed)
    print(
        f"Erdős–Rényi graph: p={args.n_nodes}, density={args.density}, "
        f"{graph.number_of_edges()} edges; {args.n_samples} draws per generator\n"
    )
    header = (
        f"{'generator':<32}{'median |m_ij|':>14}{'min eig':>10}"
        f"{'median cond':>13}{'seconds':>9}"
    )
    print(header)
    print("-" * len(header))
    for name, generator in _demo_generators(args.seed).items():
        start = time.perf_counter()
        draws = generator.fit(graph).sample(args.n_samples)
        elapsed = time.perf_counter() - start
        row = summarise(draws, generator.adjacency_)
        print(
            f"{name:<32}{row['median_abs_edge']:>14.3f}{row['min_eigenvalue']:>10.3g}"
            f"{row['median_condition']:>13.1f}{elapsed:>9.2f}"
        )
    chordal = generators.UniformChordal(random_state=args.seed)
    start = time.perf_counter()
    filled = generators.TriangulatedOrthogonalization().fit(graph).triangulation_
    draws = chordal.fit(filled).sample(args.n_samples)
    row = summarise(draws, chordal.adjacency_)
    print(
        f"{'UniformChordal (triangulation)':<32}{row['median_abs_edge']:>14.3f}"
        f"{row['min_eigenvalue']:>10.3g}{row['median_condition']:>13.1f}"
        f"{time.perf_counter() - start:>9.2f}"
    )


if __name__ == "__main__":
    main()
