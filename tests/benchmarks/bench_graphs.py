"""Benchmark of the chordal tools in skggm_bench.graphs.

Run as a script (prints a markdown report, the source of the figures in
docs/graphs.md)::

    .venv/bin/python tests/benchmarks/bench_graphs.py

or through pytest, which asserts the speed targets::

    .venv/bin/python -m pytest tests/benchmarks/bench_graphs.py -q -s

Every speed figure is a ratio to networkx's ``complete_to_chordal_graph`` timed
in the same run on the same graph (p = 400, Erdős–Rényi, average degree 5, seed
0), so machine load cancels to first order. Times are the best of several
repetitions; networkx runs once per graph (it takes seconds).
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from collections.abc import Callable

import networkx as nx
import numpy as np

from skggm_bench import graphs
from skggm_bench.graphs import (
    _chordal,
    band_graph,
    chain_graph,
    erdos_renyi_graph,
    lattice_graph,
    perfect_ordering,
    random_tree_graph,
    triangulate,
)

METHODS = ("min_degree", "min_fill")


def best_time(function: Callable[[], object], repeat: int) -> float:
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def peak_memory(function: Callable[[], object]) -> float:
    """Peak traced allocation in bytes (numpy buffers included). Separate from
    timing: tracing slows Python-level code several-fold."""
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def fill_in(graph: nx.Graph, method: str) -> int:
    filled, _ = _chordal._triangulate_sparse(graph, method)
    return filled.nnz // 2 - graph.number_of_edges()


def benchmark_p400(repeat: int = 5) -> dict[str, float]:
    """triangulate vs networkx.complete_to_chordal_graph, p = 400, degree 5."""
    graph = erdos_renyi_graph(400, 5 / 399, random_state=0)
    start = time.perf_counter()
    chordal, _ = nx.complete_to_chordal_graph(graph)
    networkx_time = time.perf_counter() - start
    result = {
        "edges": graph.number_of_edges(),
        "networkx_time": networkx_time,
        "networkx_fill": chordal.number_of_edges() - graph.number_of_edges(),
    }
    for method in METHODS:
        result[f"{method}_time"] = best_time(
            lambda m=method: triangulate(graph, m), repeat
        )
        result[f"{method}_fill"] = fill_in(graph, method)
        result[f"{method}_speedup"] = networkx_time / result[f"{method}_time"]
    return result


def benchmark_fill_statistics(n_graphs: int = 40) -> list[dict[str, float]]:
    """How often min_fill adds more fill than min_degree, on Erdős–Rényi graphs."""
    rows = []
    for p, degree in [(60, 4), (100, 5), (400, 3), (400, 5)]:
        fills = np.array(
            [
                [
                    fill_in(erdos_renyi_graph(p, degree / (p - 1), random_state=s), m)
                    for m in METHODS
                ]
                for s in range(n_graphs)
            ]
        )
        rows.append(
            {
                "p": p,
                "degree": degree,
                "graphs": n_graphs,
                "min_fill_worse": int(np.sum(fills[:, 1] > fills[:, 0])),
                "min_fill_better": int(np.sum(fills[:, 1] < fills[:, 0])),
                "total_min_degree": int(fills[:, 0].sum()),
                "total_min_fill": int(fills[:, 1].sum()),
            }
        )
    return rows


def large_graphs() -> dict[str, nx.Graph]:
    return {
        "chain p=5000": chain_graph(5000),
        "random tree p=5000": random_tree_graph(5000, random_state=0),
        "band(3) p=5000": band_graph(5000, 3),
        "lattice 50x100": lattice_graph(50, 100),
        "ER degree 3 p=5000": erdos_renyi_graph(5000, 3 / 4999, random_state=0),
    }


def benchmark_large(repeat: int = 2) -> list[dict[str, float]]:
    rows = []
    for name, graph in large_graphs().items():
        adjacency = graphs.check_adjacency(graph, sparse=True)
        for method in METHODS:
            rows.append(
                {
                    "graph": name,
                    "method": method,
                    "edges": graph.number_of_edges(),
                    "fill": fill_in(graph, method),
                    "time": best_time(
                        lambda m=method, g=graph: triangulate(g, m), repeat
                    ),
                    "sparse_time": best_time(
                        lambda m=method, a=adjacency: _chordal._triangulate_sparse(
                            a, m
                        ),
                        repeat,
                    ),
                    "sparse_peak": peak_memory(
                        lambda m=method, a=adjacency: _chordal._triangulate_sparse(a, m)
                    ),
                }
            )
    return rows


def benchmark_band_100000(repeat: int = 3) -> dict[str, float]:
    """perfect_ordering of a band graph, p = 100,000, bandwidth 3."""
    graph = band_graph(100_000, 3)
    adjacency = graphs.check_adjacency(graph, sparse=True)
    return {
        "edges": graph.number_of_edges(),
        "networkx_input_time": best_time(lambda: perfect_ordering(graph), repeat),
        "sparse_input_time": best_time(lambda: perfect_ordering(adjacency), repeat),
        "is_chordal_time": best_time(lambda: graphs.is_chordal(adjacency), repeat),
        "networkx_input_peak": peak_memory(lambda: perfect_ordering(graph)),
        "sparse_input_peak": peak_memory(lambda: perfect_ordering(adjacency)),
        "dense_bytes": 100_000**2,
    }


def report() -> str:
    lines = ["## triangulate vs networkx, p = 400, Erdős–Rényi average degree 5", ""]
    small = benchmark_p400()
    lines += [
        f"{small['edges']} edges.",
        "",
        "| method | time (s) | speed-up vs networkx | fill-in edges |",
        "|---|---|---|---|",
        f"| networkx complete_to_chordal_graph | {small['networkx_time']:.3f} | 1 "
        f"| {small['networkx_fill']} |",
    ]
    for method in METHODS:
        lines.append(
            f"| triangulate {method} | {small[f'{method}_time']:.4f} "
            f"| {small[f'{method}_speedup']:.0f}x | {small[f'{method}_fill']} |"
        )
    lines += ["", "## min_fill vs min_degree fill-in (Erdős–Rényi, seeds 0..n-1)", ""]
    lines += [
        "| p | avg degree | graphs | min_fill worse | min_fill better "
        "| total fill min_degree | total fill min_fill |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in benchmark_fill_statistics():
        lines.append(
            f"| {row['p']} | {row['degree']} | {row['graphs']} "
            f"| {row['min_fill_worse']} | {row['min_fill_better']} "
            f"| {row['total_min_degree']} "
            f"| {row['total_min_fill']} |"
        )
    lines += ["", "## triangulate on large sparse graphs", ""]
    lines += [
        "| graph | method | edges | fill-in | triangulate (s, dense output) "
        "| sparse path (s) | sparse path peak memory (MB) |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in benchmark_large():
        lines.append(
            f"| {row['graph']} | {row['method']} | {row['edges']} | {row['fill']} "
            f"| {row['time']:.2f} | {row['sparse_time']:.2f} "
            f"| {row['sparse_peak'] / 1e6:.1f} |"
        )
    band = benchmark_band_100000()
    lines += [
        "",
        "## perfect_ordering(band_graph(100000, 3))",
        "",
        f"{band['edges']} edges; a dense boolean adjacency would take "
        f"{band['dense_bytes'] / 1e9:.0f} GB.",
        "",
        "| input | time (s) | peak traced memory (MB) |",
        "|---|---|---|",
        f"| networkx graph | {band['networkx_input_time']:.2f} "
        f"| {band['networkx_input_peak'] / 1e6:.0f} |",
        f"| scipy.sparse csr | {band['sparse_input_time']:.2f} "
        f"| {band['sparse_input_peak'] / 1e6:.0f} |",
        f"| is_chordal, csr | {band['is_chordal_time']:.2f} | |",
    ]
    return "\n".join(lines)


def test_triangulate_targets():
    """Speed targets: >= 10x faster than networkx at p = 400 (both methods),
    and every large sparse case in seconds."""
    small = benchmark_p400(repeat=3)
    print(small)
    for method in METHODS:
        assert small[f"{method}_speedup"] >= 10
        assert small[f"{method}_fill"] <= small["networkx_fill"]
    for row in benchmark_large(repeat=1):
        print(row)
        assert row["time"] < 10


def test_band_100000_targets():
    band = benchmark_band_100000(repeat=1)
    print(band)
    assert band["networkx_input_time"] < 5
    # Memory proportional to the edges: well under 1 kB per edge.
    assert band["networkx_input_peak"] < 1000 * band["edges"]


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__).parse_args()
    print(report())
