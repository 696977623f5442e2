"""
Compare the random-matrix generators on the same graphs
=======================================================

For every generator and graph, draw matrices on the correlation scale (unit
diagonal, the same zeros as the graph) and summarise

* ``|m_ij|`` over the edges: how strong the dependences a learner must find are;
* the smallest eigenvalue and the condition number of each draw.

Prints a Markdown table (the one in ``docs/generator_comparison.md``) and writes a
figure. Run from the repository root::

    .venv/bin/python examples/plot_generator_comparison.py

Options: ``--n-draws``, ``--seed``, ``--output`` (PNG path).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import matplotlib
import numpy as np
from threadpoolctl import threadpool_limits

from skggm_bench import generators, graphs

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # after matplotlib.use: backend chosen first

# ``vert`` is deprecated from matplotlib 3.10, ``orientation`` missing before it.
_MPL_VERSION = tuple(int(part) for part in matplotlib.__version__.split(".")[:2])
_HORIZONTAL = (
    {"orientation": "horizontal"} if _MPL_VERSION >= (3, 10) else {"vert": False}
)

GRAPHS = {
    # Chordal and fairly dense (degree about 10): every generator applies.
    "band(p=50, bandwidth=5)": graphs.band_graph(50, bandwidth=5),
    # Sparse, non-chordal (triangulation adds 73 edges).
    "Erdos-Renyi(p=50, 75 edges)": graphs.erdos_renyi_graph(
        50, n_edges=75, random_state=0
    ),
}


def make_generators(seed: int) -> dict:
    """Generators to compare, all returning unit-diagonal matrices."""
    gens = {
        "DiagonalDominance": generators.DiagonalDominance(random_state=seed),
        "PartialOrthogonalization": generators.PartialOrthogonalization(
            random_state=seed
        ),
        "UniformChordal": generators.UniformChordal(random_state=seed),
        "TriangulatedOrthogonalization": generators.TriangulatedOrthogonalization(
            random_state=seed
        ),
        "GWishart (exact)": generators.GWishart(unit_diagonal=True, random_state=seed),
        "GWishart (lenkoski)": generators.GWishart(
            unit_diagonal=True, method="lenkoski", random_state=seed
        ),
        "EigenShift (huge)": generators.EigenShift(),
        "CholeskyProduct (sklearn)": generators.CholeskyProduct(random_state=seed),
    }
    # An optional sampler: compared when this version of the package has it.
    if hasattr(generators, "HitAndRunUniform"):
        gens["HitAndRunUniform"] = generators.HitAndRunUniform(random_state=seed)
    return gens


def summarise(draws: np.ndarray, adjacency: np.ndarray) -> dict:
    """Per-draw spectra and pooled |entries| on the edges."""
    eigenvalues = np.linalg.eigvalsh(draws)
    return {
        "abs_edges": np.abs(draws[:, np.triu(adjacency, 1)]).ravel(),
        "min_eigenvalue": eigenvalues[:, 0],
        "condition_number": eigenvalues[:, -1] / eigenvalues[:, 0],
    }


def run(n_draws: int, seed: int) -> dict:
    results: dict = {}
    for graph_name, graph in GRAPHS.items():
        adjacency = graphs.check_adjacency(graph)
        for gen_name, gen in make_generators(seed).items():
            try:
                gen.fit(graph)
            except ValueError as exc:  # generator needs a chordal graph
                results[graph_name, gen_name] = str(exc).split(";")[0].split(".")[0]
                continue
            start = time.perf_counter()
            draws = gen.sample(n_draws)
            stats = summarise(draws, adjacency)
            stats["seconds"] = time.perf_counter() - start
            results[graph_name, gen_name] = stats
    return results


def table(results: dict) -> str:
    lines = [
        "| graph | generator | median abs(m_ij) on edges | 90% quantile "
        "| median lambda_min | median condition number | seconds |",
        "|---|---|---|---|---|---|---|",
    ]
    for (graph_name, gen_name), stats in results.items():
        if isinstance(stats, str):
            lines.append(
                f"| {graph_name} | {gen_name} | n/a: needs a chordal graph | | | | |"
            )
            continue
        lines.append(
            f"| {graph_name} | {gen_name} "
            f"| {np.median(stats['abs_edges']):.3f} "
            f"| {np.quantile(stats['abs_edges'], 0.9):.3f} "
            f"| {np.median(stats['min_eigenvalue']):.3f} "
            f"| {np.median(stats['condition_number']):.1f} "
            f"| {stats['seconds']:.2f} |"
        )
    return "\n".join(lines)


def figure(results: dict, output: Path) -> None:
    columns = [
        ("abs_edges", "|m_ij| on the edges", False),
        ("min_eigenvalue", "smallest eigenvalue", True),
        ("condition_number", "condition number", True),
    ]
    fig, axes = plt.subplots(
        len(GRAPHS), len(columns), figsize=(15, 3.2 * len(GRAPHS) + 1), squeeze=False
    )
    for row, graph_name in enumerate(GRAPHS):
        names = [
            g
            for (gr, g), s in results.items()
            if gr == graph_name and not isinstance(s, str)
        ]
        for col, (key, title, log) in enumerate(columns):
            ax = axes[row, col]
            data = [results[graph_name, g][key] for g in names]
            ax.boxplot(data, showfliers=False, **_HORIZONTAL)
            ax.set_yticks(range(1, len(names) + 1))
            ax.set_yticklabels(names if col == 0 else [""] * len(names), fontsize=8)
            if log:
                ax.set_xscale("log")
            ax.set_title(f"{title}\n{graph_name}", fontsize=9)
            ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    output.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(output, dpi=110)
    # Left open: the documentation's gallery shows the figures a script leaves open.


def main() -> None:
    parser = argparse.ArgumentParser(
        description="Compare the random-matrix generators on the same graphs."
    )
    parser.add_argument("--n-draws", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--output", type=Path, default=Path("figures") / "generator_comparison.png"
    )
    args, _ = parser.parse_known_args()
    # Many small batched LAPACK calls: BLAS threads only add contention.
    with threadpool_limits(1):
        results = run(args.n_draws, args.seed)
    print(table(results))
    figure(results, args.output)
    print(f"\nfigure written to {args.output}")


if __name__ == "__main__":
    main()
