"""Cost of drawing K related models against K single draws, for docs/performance.md.

Run with::

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=. .venv/bin/python tests/benchmarks/bench_joint.py

``JointGenerator(base, n_classes=10, similarity=s)`` fits and draws one set of
ten class matrices at p = 200; the reference fits the same base generator on each
of the ten class graphs and draws one matrix from each: ten single draws, what a
user would do without the joint generator. Both sides are timed in the same run,
alternately, as medians of ``--repeats``; the ratio is the figure. The issue's
bound is 1.5.

Generators that accept any graph run on an Erdos-Renyi graph (density 0.1, seed
0) with the default ``shared_fraction=0.8``; with ``0 < similarity < 1`` the joint
generator then draws ``2 K + 1`` matrices (class, shared and specific parts), at
0 and 1 only ``K`` or ``K + 1``. ``UniformChordal`` and exact ``GWishart`` need
chordal class graphs: they run on a random chordal graph with
``shared_fraction=1`` (every class on the given graph), where the ``K + 1``
matrices share one graph. ``--g-wishart`` adds ``GWishart`` on the Erdos-Renyi
graph, where it needs its Lenkoski sampler (one repeat: about 5 s a pair).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from sklearn.base import clone
from threadpoolctl import threadpool_limits

from skggm_bench.generators import (
    DiagonalDominance,
    GWishart,
    JointGenerator,
    PartialOrthogonalization,
    TriangulatedOrthogonalization,
    UniformChordal,
)
from skggm_bench.graphs import check_adjacency, erdos_renyi_graph, random_chordal_graph

P, K, DENSITY = 200, 10, 0.1


def timed(function) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=11)
    parser.add_argument("--g-wishart", action="store_true")
    args = parser.parse_args()
    # The graphs as adjacency arrays on both sides: converting a networkx graph
    # (about 5 ms here) is not part of either way of drawing.
    any_graph = check_adjacency(erdos_renyi_graph(P, DENSITY, random_state=0))
    chordal = check_adjacency(random_chordal_graph(P, 0.5, random_state=0))
    cases = [
        (TriangulatedOrthogonalization(), any_graph, 0.8, args.repeats),
        (PartialOrthogonalization(), any_graph, 0.8, args.repeats),
        (DiagonalDominance(), any_graph, 0.8, 4 * args.repeats),
        (UniformChordal(), chordal, 1.0, 4 * args.repeats),
        (GWishart(), chordal, 1.0, args.repeats),
    ]
    if args.g_wishart:
        cases.append((GWishart(method="lenkoski"), any_graph, 0.8, 1))
    print(f"load average before: {os.getloadavg()}")
    print(f"{'base':<32}{'graph':>9}{'shared':>8}{'similarity':>11}{'joint (s)':>11}"
          f"{'10 single (s)':>15}{'ratio':>7}")  # fmt: skip
    for base, graph, shared_fraction, repeats in cases:
        for similarity in (0.0, 0.5, 1.0):
            joint = JointGenerator(
                base,
                n_classes=K,
                shared_fraction=shared_fraction,
                similarity=similarity,
                random_state=0,
            )
            class_graphs = joint.fit(graph).adjacency_

            def draw_joint(joint=joint, graph=graph):
                joint.fit(graph).sample(1)

            def draw_single(class_graphs=class_graphs, base=base):
                for k, adjacency in enumerate(class_graphs):
                    clone(base).set_params(random_state=k).fit(adjacency).sample(1)

            with threadpool_limits(1):
                # Alternate so that a change of load hits both sides alike.
                pairs = [
                    (timed(draw_joint), timed(draw_single)) for _ in range(repeats)
                ]
            t_joint = statistics.median(a for a, _ in pairs)
            t_single = statistics.median(b for _, b in pairs)
            name = base.__class__.__name__
            if name == "GWishart":
                name += f"({base.method})"
            kind = "chordal" if graph is chordal else "ER"
            print(
                f"{name:<32}{kind:>9}{shared_fraction:>8}{similarity:>11}"
                f"{t_joint:>11.4f}{t_single:>15.4f}{t_joint / t_single:>7.2f}"
            )
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
