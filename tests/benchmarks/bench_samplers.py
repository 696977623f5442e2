"""Sampler timings for docs/performance.md: floors and R references, same run.

Run with ``make bench`` or::

    R_LIBS=<library with gmat> OPENBLAS_NUM_THREADS=1 \\
        .venv/bin/python tests/benchmarks/bench_samplers.py

Python runs with one BLAS thread (threadpoolctl), R with Debian's single-threaded
reference BLAS. Every ratio is between two timings of this run: medians of
``--repeats`` calls, the R ones timed inside R (``system.time``). Cases:

* p = 100, Erdos-Renyi density 0.25 (seed 0), 1000 draws: the batched ``U U^T``
  floor, ``UniformChordal`` (on the min-degree triangulation), the two
  orthogonalization samplers and ``DiagonalDominance``, against gmat's ``port``,
  ``port_chol`` and ``chol_mh`` (0.2.2) on the same graphs;
* p = 200, density 0.1, 100 draws: ``PartialOrthogonalization`` against ``port``;
* one ``PartialOrthogonalization`` draw at p = 2000, average degree 5.

gmat is skipped (with the reason) when R cannot load it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from _r_reference import r_available, r_timings, write_adjacency
from threadpoolctl import threadpool_limits

from skggm_bench.generators import (
    DiagonalDominance,
    PartialOrthogonalization,
    TriangulatedOrthogonalization,
    UniformChordal,
)
from skggm_bench.generators.uniform_chordal import gram_matrices
from skggm_bench.graphs import check_adjacency, erdos_renyi_graph, triangulate

# The R side of the comparison. gmat 0.2.2 hands igraph::as_graphnel(ug) to
# gRbase::triangulate, which gRbase 2.0 no longer accepts; the adjacency matrix
# goes to the same routine instead (port_chol and ug_to_dag only).
R_GMAT = """
suppressMessages({{library(gmat); library(igraph)}})
assignInNamespace("as_graphnel",
  function(graph) igraph::as_adjacency_matrix(graph, sparse = FALSE), ns = "igraph")
read_graph <- function(path) {{
  adj <- as.matrix(read.csv(path, header = FALSE)); dimnames(adj) <- NULL
  igraph::graph_from_adjacency_matrix(adj, mode = "undirected")
}}
timed <- function(label, expr) {{
  for (r in seq_len({repeats})) {{
    seconds <- system.time(eval.parent(substitute(expr)))
    cat("TIME", label, seconds[["elapsed"]], "\\n")
    cat("TIME", paste0(label, "_cpu"),
        seconds[["user.self"]] + seconds[["sys.self"]], "\\n")
  }}
}}
set.seed(1)
ug <- read_graph("{graph}")
chordal <- read_graph("{chordal}")
dag <- ug_to_dag(chordal)
timed("port", port(N = {n}, ug = ug))
timed("port_chol", port_chol(N = {n}, ug = ug))
timed("chol_mh", chol_mh(N = {n}, dag = dag))
sparse <- read_graph("{sparse}")
timed("port_p200", port(N = {n_sparse}, ug = sparse))
"""


# name, generator, graph ("graph" or "chordal"), gmat function compared with.
SAMPLERS = [
    ("UniformChordal, triangulated graph", UniformChordal, "chordal", "chol_mh"),
    ("PartialOrthogonalization", PartialOrthogonalization, "graph", "port"),
    (
        "TriangulatedOrthogonalization",
        TriangulatedOrthogonalization,
        "graph",
        "port_chol",
    ),
    ("DiagonalDominance", DiagonalDominance, "graph", None),
]


def timed(result: dict, name: str, function, repeats: int) -> None:
    """Wall seconds under ``name``, CPU seconds under ``name + "_cpu"``."""
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        function()
        result.setdefault(name, []).append(time.perf_counter() - wall)
        result.setdefault(name + "_cpu", []).append(time.process_time() - cpu)


def python_timings(graph, chordal, sparse, n: int, repeats: int) -> dict:
    """Times of the floor, every sampler and the p = 200 case (one BLAS thread)."""
    graphs = {"graph": graph, "chordal": chordal}
    result: dict[str, list[float]] = {}
    with threadpool_limits(limits=1, user_api="blas"):
        factors = np.random.RandomState(0).standard_normal((n, 100, 100))
        timed(result, "floor", lambda: gram_matrices(factors), repeats)
        for name, make, which, _ in SAMPLERS:
            generator = make(random_state=0).fit(graphs[which])
            timed(result, name, lambda g=generator: g.sample(n), repeats)
        sparse_po = PartialOrthogonalization(random_state=0).fit(sparse)
        timed(result, "sparse", lambda: sparse_po.sample(100), repeats)
    return result


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n-samples", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-r", action="store_true", help="skip the R timings")
    args = parser.parse_args()
    n, repeats = args.n_samples, args.repeats
    print(f"start: {load()}", flush=True)

    graph = check_adjacency(erdos_renyi_graph(100, 0.25, random_state=0))
    chordal, _ = triangulate(graph)
    sparse = check_adjacency(erdos_renyi_graph(200, 0.1, random_state=0))
    # Python is timed before and after R (medians over both), so that a change of
    # load on the shared machine during the long R timings affects both sides.
    before = python_timings(graph, chordal, sparse, n, repeats)
    reason = "--no-r" if args.no_r else r_available("gmat", "igraph")
    r_seconds: dict[str, float] = {}
    if reason is None:
        with tempfile.TemporaryDirectory() as directory:
            paths = {
                name: write_adjacency(matrix, Path(directory), name)
                for name, matrix in [
                    ("graph", graph),
                    ("chordal", chordal),
                    ("sparse", sparse),
                ]
            }
            code = R_GMAT.format(repeats=repeats, n=n, n_sparse=100, **paths)
            r_seconds = {k: statistics.median(v) for k, v in r_timings(code).items()}
        after = python_timings(graph, chordal, sparse, n, repeats)
        seconds = {k: statistics.median(before[k] + after[k]) for k in before}
    else:
        seconds = {k: statistics.median(v) for k, v in before.items()}
    floor, floor_cpu = seconds["floor"], seconds["floor_cpu"]
    sparse_seconds = seconds["sparse"]
    with threadpool_limits(limits=1, user_api="blas"):
        big = erdos_renyi_graph(2000, 5 / 1999, random_state=0)
        start = time.perf_counter()
        PartialOrthogonalization(random_state=0).fit(big).sample(1)
        big_seconds = time.perf_counter() - start

    timings = f"{repeats} before and {repeats} after R" if r_seconds else repeats
    print(f"\np=100, ER density 0.25 (seed 0), {n} draws, medians of {timings}")
    print(
        f"floor: batched U U^T of ({n}, 100, 100) = {floor:.3f} s "
        f"(CPU {floor_cpu:.3f} s)"
    )
    if reason is not None:
        print(f"gmat not timed: {reason}")
    print(
        "\n| sampler | seconds (CPU) | x floor wall (CPU) | gmat | gmat seconds (CPU) "
        "| speed-up wall (CPU) |"
    )
    print("|---|---|---|---|---|---|")
    for name, _, _, reference in SAMPLERS:
        mine, mine_cpu = seconds[name], seconds[name + "_cpu"]
        cells = (
            f"{mine:.3f} ({mine_cpu:.3f}) | {mine / floor:.1f} "
            f"({mine_cpu / floor_cpu:.1f})"
        )
        if reference in r_seconds:
            r, r_cpu = r_seconds[reference], r_seconds[reference + "_cpu"]
            cells += (
                f" | `{reference}` | {r:.2f} ({r_cpu:.2f}) | "
                f"{r / mine:.1f}x ({r_cpu / mine_cpu:.1f}x)"
            )
        else:
            cells += " | | |"
        print(f"| {name} | {cells} |")
    if "port_p200" in r_seconds:
        r, r_cpu = r_seconds["port_p200"], r_seconds["port_p200_cpu"]
        ratio = (
            f"`port` {r:.2f} s (CPU {r_cpu:.2f}), {r / sparse_seconds:.1f}x "
            f"({r_cpu / seconds['sparse_cpu']:.1f}x)"
        )
    else:
        ratio = "gmat not timed"
    print(
        f"\nPartialOrthogonalization, ER p=200 d=0.1, 100 draws: "
        f"{sparse_seconds:.3f} s (CPU {seconds['sparse_cpu']:.3f}; {ratio})"
    )
    print(
        f"PartialOrthogonalization, ER p=2000 average degree 5, one draw: "
        f"{big_seconds:.2f} s"
    )
    print(f"end: {load()}")


if __name__ == "__main__":
    main()
