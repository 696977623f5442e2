"""Sampler timings for docs/performance.md: floors and R references, same run.

Run with ``make bench`` or::

    R_LIBS=<library with gmat> OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 \\
        .venv/bin/python tests/benchmarks/bench_samplers.py [--r-blas default]

Python runs with one BLAS thread (threadpoolctl), R with one BLAS thread too. R is
timed with the BLAS and LAPACK Debian's alternatives give it (OpenBLAS when
``libopenblas0-pthread`` is installed) and, with ``--r-blas both`` (the default),
also with Debian's reference BLAS and LAPACK, loaded for that R process only
(``R_LD_LIBRARY_PATH``); the libraries R loaded are printed. Every ratio is
between two timings of this run: medians of ``--repeats`` calls, the R ones timed
inside R (``system.time``). Cases:

* p = 100, Erdos-Renyi density 0.25 (seed 0), 1000 draws: the batched ``U U^T``
  floor, ``UniformChordal`` (on the min-degree triangulation), the two
  orthogonalization samplers and ``DiagonalDominance``, against gmat's ``port``,
  ``port_chol`` and ``chol_mh`` (0.2.2) on the same graphs;
* p = 200, density 0.1, 100 draws: ``PartialOrthogonalization`` against ``port``;
* a data set from a model at p = 100 and p = 1000 (random graph with edge
  probability 3 / p, n = 1000 rows): huge's ``huge.generator`` against
  ``make_ggm`` with ``EigenShift`` (huge's construction) and with the default
  ``TriangulatedOrthogonalization``; ``huge.generator`` as shipped and with its
  ``gc()`` calls made no-ops (its computation alone);
* one ``PartialOrthogonalization`` draw at p = 2000, average degree 5.

gmat (or huge) is skipped, with the reason, when R cannot load it.
"""

from __future__ import annotations

import argparse
import itertools
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from _r_reference import (
    r_available,
    r_blas,
    r_library_path,
    r_timings,
    reference_blas_path,
    write_adjacency,
)
from threadpoolctl import threadpool_limits

from skggm_bench.datasets import make_ggm
from skggm_bench.generators import (
    DiagonalDominance,
    EigenShift,
    PartialOrthogonalization,
    TriangulatedOrthogonalization,
    UniformChordal,
)
from skggm_bench.generators.uniform_chordal import gram_matrices
from skggm_bench.graphs import check_adjacency, erdos_renyi_graph, triangulate

# The R side of the comparison. gmat 0.2.2 hands igraph::as_graphnel(ug) to
# gRbase::triangulate, which gRbase 2.0 no longer accepts; the adjacency matrix
# goes to the same routine instead (port_chol and ug_to_dag only).
R_TIMED = """
timed <- function(label, expr) {{
  for (r in seq_len({repeats})) {{
    seconds <- system.time(eval.parent(substitute(expr)))
    cat("TIME", label, seconds[["elapsed"]], "\\n")
    cat("TIME", paste0(label, "_cpu"),
        seconds[["user.self"]] + seconds[["sys.self"]], "\\n")
  }}
}}
set.seed(1)
"""
R_GMAT = """
suppressMessages({{library(gmat); library(igraph)}})
assignInNamespace("as_graphnel",
  function(graph) igraph::as_adjacency_matrix(graph, sparse = FALSE), ns = "igraph")
read_graph <- function(path) {{
  adj <- as.matrix(read.csv(path, header = FALSE)); dimnames(adj) <- NULL
  igraph::graph_from_adjacency_matrix(adj, mode = "undirected")
}}
ug <- read_graph("{graph}")
chordal <- read_graph("{chordal}")
dag <- ug_to_dag(chordal)
timed("port", port(N = {n}, ug = ug))
timed("port_chol", port_chol(N = {n}, ug = ug))
timed("chol_mh", chol_mh(N = {n}, dag = dag))
sparse <- read_graph("{sparse}")
timed("port_p200", port(N = {n_sparse}, ug = sparse))
"""
# huge.generator draws a random graph (edge probability 3 / d by default), its
# matrix, and n rows; make_ggm does the same. It calls gc(), a full collection of
# the R session that is most of its time at p = 100, so it is also timed with gc
# a no-op in its environment (its computation alone).
R_HUGE = """
suppressMessages(library(huge))
generator_no_gc <- huge.generator
environment(generator_no_gc) <- list2env(
  list(gc = function(...) invisible(NULL)), parent = environment(huge.generator))
for (p in c({sizes})) {{
  timed(paste0("huge_generator_", p),
        huge.generator(n = {n}, d = p, graph = "random", verbose = FALSE))
  timed(paste0("huge_generator_no_gc_", p),
        generator_no_gc(n = {n}, d = p, graph = "random", verbose = FALSE))
}}
"""
GENERATOR_SIZES = (100, 1000)


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
    """Times of the floor, every sampler, the p = 200 case and ``make_ggm``."""
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
        for p in GENERATOR_SIZES:
            for label, generator in [("EigenShift", EigenShift()), ("default", None)]:
                timed(
                    result,
                    f"make_ggm_{label}_{p}",
                    lambda p=p, g=generator: make_ggm(
                        n, p, density=3 / p, generator=g, random_state=0
                    ),
                    repeats,
                )
    return result


def r_code(directory: Path, graphs: dict, n: int, repeats: int) -> tuple[str, str]:
    """The R script for the packages R can load, and what was left out and why."""
    code, skipped = R_TIMED.format(repeats=repeats), []
    reason = r_available("gmat", "igraph")
    if reason is None:
        paths = {
            name: write_adjacency(matrix, directory, name)
            for name, matrix in graphs.items()
        }
        code += R_GMAT.format(n=n, n_sparse=100, **paths)
    else:
        skipped.append(f"gmat not timed: {reason}")
    reason = r_available("huge")
    if reason is None:
        sizes = ", ".join(str(p) for p in GENERATOR_SIZES)
        code += R_HUGE.format(n=n, sizes=sizes)
    else:
        skipped.append(f"huge not timed: {reason}")
    return code, "; ".join(skipped)


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def pair(seconds: dict, name: str) -> tuple[float, float]:
    return seconds[name], seconds[name + "_cpu"]


def versus(r: tuple[float, float], ours: tuple[float, float]) -> str:
    """R's seconds (CPU) and the ratio R / ours, wall (CPU)."""
    return f"{r[0]:.3g} ({r[1]:.3g}) | {r[0] / ours[0]:.1f}x ({r[1] / ours[1]:.1f}x)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n-samples", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-r", action="store_true", help="skip the R timings")
    parser.add_argument("--r-blas", choices=["default", "both"], default="both")
    args = parser.parse_args()
    n, repeats = args.n_samples, args.repeats
    print(f"start: {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}, {load()}")

    graph = check_adjacency(erdos_renyi_graph(100, 0.25, random_state=0))
    chordal, _ = triangulate(graph)
    sparse = check_adjacency(erdos_renyi_graph(200, 0.1, random_state=0))
    graphs = {"graph": graph, "chordal": chordal, "sparse": sparse}
    # Python is timed before and after each R set-up (medians over all), so that
    # a change of load on the shared machine during the long R timings affects
    # both sides.
    runs = [python_timings(graph, chordal, sparse, n, repeats)]
    setups: dict[str, str | None] = {}
    if shutil.which("Rscript") is None or args.no_r:
        print("R not timed: " + ("--no-r" if args.no_r else "Rscript not found"))
    else:
        setups["R default BLAS"] = None
        reference = reference_blas_path() if args.r_blas == "both" else None
        if reference is not None:
            setups["R reference BLAS"] = reference
        elif args.r_blas == "both":
            print("reference BLAS not found: R timed with its default BLAS only")
    r_seconds: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as directory:
        for label, path in setups.items():
            with r_library_path(path):
                code, skipped = r_code(Path(directory), graphs, n, repeats)
                print(f"{label}: {r_blas()}", flush=True)
                if skipped:
                    print(skipped)
                r_seconds[label] = {
                    k: statistics.median(v) for k, v in r_timings(code).items()
                }
            runs.append(python_timings(graph, chordal, sparse, n, repeats))
    seconds = {k: statistics.median(x for run in runs for x in run[k]) for k in runs[0]}
    floor = pair(seconds, "floor")
    with threadpool_limits(limits=1, user_api="blas"):
        big = erdos_renyi_graph(2000, 5 / 1999, random_state=0)
        start = time.perf_counter()
        PartialOrthogonalization(random_state=0).fit(big).sample(1)
        big_seconds = time.perf_counter() - start

    print(
        f"\np=100, ER density 0.25 (seed 0), {n} draws, medians of {repeats} "
        f"timings x {len(runs)} rounds (Python), {repeats} (R)"
    )
    print(
        f"floor: batched U U^T of ({n}, 100, 100) = {floor[0]:.3f} s "
        f"(CPU {floor[1]:.3f} s)"
    )
    columns = "".join(
        f" {label}: gmat s (CPU) | ratio wall (CPU) |" for label in setups
    )
    print(f"\n| sampler | seconds (CPU) | x floor wall (CPU) | gmat |{columns}")
    print("|---" * (4 + 2 * len(setups)) + "|")
    for name, _, _, reference in SAMPLERS:
        mine = pair(seconds, name)
        cells = (
            f"{mine[0]:.3f} ({mine[1]:.3f}) | {mine[0] / floor[0]:.1f} "
            f"({mine[1] / floor[1]:.1f}) | {f'`{reference}`' if reference else ''}"
        )
        for label in setups:
            timings = r_seconds[label]
            cells += (
                f" | {versus(pair(timings, reference), mine)}"
                if reference in timings
                else " | |"
            )
        print(f"| {name} | {cells} |")
    mine = pair(seconds, "sparse")
    print(
        f"\nPartialOrthogonalization, ER p=200 d=0.1, 100 draws: "
        f"{mine[0]:.3f} s (CPU {mine[1]:.3f})"
    )
    for label in setups:
        if "port_p200" in r_seconds[label]:
            timings = pair(r_seconds[label], "port_p200")
            print(f"  {label}: `port` {versus(timings, mine)}")

    print(
        f"\nA data set: random graph (edge probability 3 / p), n = {n} rows, "
        "seconds (CPU)\n"
    )
    columns = "".join(
        f" {label}: `huge.generator` | ratio to EigenShift "
        f"| {label}: without `gc()` | ratio |"
        for label in setups
    )
    print(f"| p | `make_ggm`, EigenShift | `make_ggm`, default |{columns}")
    print("|---" * (3 + 4 * len(setups)) + "|")
    for p in GENERATOR_SIZES:
        ours = pair(seconds, f"make_ggm_EigenShift_{p}")
        default = pair(seconds, f"make_ggm_default_{p}")
        cells = f"{ours[0]:.3f} ({ours[1]:.3f}) | {default[0]:.3f} ({default[1]:.3f})"
        for label, name in itertools.product(
            setups, [f"huge_generator_{p}", f"huge_generator_no_gc_{p}"]
        ):
            timings = r_seconds[label]
            cells += (
                f" | {versus(pair(timings, name), ours)}" if name in timings else " | |"
            )
        print(f"| {p} | {cells} |")
    print(
        f"\nPartialOrthogonalization, ER p=2000 average degree 5, one draw: "
        f"{big_seconds:.2f} s"
    )
    print(f"end: {time.strftime('%H:%M:%S UTC', time.gmtime())}, {load()}")


if __name__ == "__main__":
    main()
