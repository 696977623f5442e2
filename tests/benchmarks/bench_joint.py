"""Cost of drawing K related models against K single draws, for docs/performance.md.

Run with::

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=. .venv/bin/python tests/benchmarks/bench_joint.py

``JointGenerator(n_classes=10)`` on an Erdos-Renyi graph (p = 200, density 0.1,
seed 0) fits and draws one set of ten class matrices; the reference fits the same
base generator on each of the ten class graphs and draws one matrix from each:
ten single draws, what a user would do without the joint generator. Both sides
are timed in the same run, alternately, as medians of ``--repeats``; the ratio is
the figure. The issue's bound is 1.5. With ``0 < similarity < 1`` the joint
generator draws ``2 K + 1`` matrices (class, shared and specific parts; the last
two on sparser graphs), at 0 and 1 only ``K`` or ``K + 1``.
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
    JointGenerator,
    TriangulatedOrthogonalization,
)
from skggm_bench.graphs import check_adjacency, erdos_renyi_graph

P, K, DENSITY = 200, 10, 0.1


def timed(function, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=11)
    args = parser.parse_args()
    # The graph as an adjacency array on both sides: converting a networkx graph
    # (about 5 ms here) is not part of either way of drawing.
    graph = check_adjacency(erdos_renyi_graph(P, DENSITY, random_state=0))
    print(f"load average before: {os.getloadavg()}")
    print(f"{'base':<32}{'similarity':>10}{'joint (s)':>12}{'10 single (s)':>15}"
          f"{'ratio':>8}")  # fmt: skip
    for base in (TriangulatedOrthogonalization(), DiagonalDominance()):
        for similarity in (0.0, 0.5, 1.0):
            joint = JointGenerator(
                base, n_classes=K, similarity=similarity, random_state=0
            )
            class_graphs = joint.fit(graph).adjacency_

            def draw_joint(joint=joint):
                joint.fit(graph).sample(1)

            def draw_single(class_graphs=class_graphs, base=base):
                for k, adjacency in enumerate(class_graphs):
                    clone(base).set_params(random_state=k).fit(adjacency).sample(1)

            with threadpool_limits(1):
                # Alternate so that a change of load hits both sides alike.
                pairs = [
                    (timed(draw_joint, 1), timed(draw_single, 1))
                    for _ in range(args.repeats)
                ]
            t_joint = statistics.median(a for a, _ in pairs)
            t_single = statistics.median(b for _, b in pairs)
            print(
                f"{type(base).__name__:<32}{similarity:>10}{t_joint:>12.4f}"
                f"{t_single:>15.4f}{t_joint / t_single:>8.2f}"
            )
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
