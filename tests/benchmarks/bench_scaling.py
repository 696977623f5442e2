"""How samplers and learners scale with p, for docs/performance.md (not a test).

Run with ``make bench`` or::

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 .venv/bin/python \\
        tests/benchmarks/bench_scaling.py [--sizes 100 200 500 1000 2000] [--cap 60]

Erdos-Renyi graphs with average degree 5 (seed 0), one BLAS thread (threadpoolctl).
Samplers are timed from ``fit`` to one draw (``UniformChordal`` on the graph's
min-degree triangulation, the triangulation not timed); ``make_ggm`` draws the
graph, a ``TriangulatedOrthogonalization`` precision and ``--n-samples`` rows.
Learners are fitted with their defaults on ``--n-samples`` rows drawn from a
``DiagonalDominance`` precision on the graph. Each cell is the least CPU seconds of
2 to 10 calls (fewer once they took a second in all; one call when it took over
half of ``--cap``). Once a cell takes more than ``--cap`` seconds the larger sizes
of that row are skipped. The slopes are the exponents ``log(t2 / t1) / log(p2 /
p1)`` between neighbouring sizes, and from
p = 500 to the largest size measured. ``ExactGraphicalLasso`` is timed elsewhere
(``bench_glasso_exact.py``).
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import time
from collections.abc import Callable

from sklearn.covariance import LedoitWolf
from threadpoolctl import threadpool_limits

from skggm_bench.datasets import make_ggm
from skggm_bench.generators import (
    DiagonalDominance,
    GWishart,
    PartialOrthogonalization,
    TriangulatedOrthogonalization,
    UniformChordal,
)
from skggm_bench.graphs import erdos_renyi_graph, triangulate
from skggm_bench.learners import (
    CLIME,
    TIGER,
    LocalFDRSelector,
    NeighbourhoodSelection,
    ShrinkagePartialCorrelation,
    ThresholdedCorrelation,
)

SAMPLERS = {
    "DiagonalDominance": DiagonalDominance,
    "PartialOrthogonalization": PartialOrthogonalization,
    "TriangulatedOrthogonalization": TriangulatedOrthogonalization,
    "UniformChordal (triangulated graph)": UniformChordal,
    'GWishart(method="lenkoski")': lambda random_state: GWishart(
        method="lenkoski", random_state=random_state
    ),
}
LEARNERS = {
    "ThresholdedCorrelation": ThresholdedCorrelation,
    "ShrinkagePartialCorrelation": ShrinkagePartialCorrelation,
    "LocalFDRSelector(LedoitWolf())": lambda: LocalFDRSelector(LedoitWolf()),
    "TIGER": TIGER,
    "NeighbourhoodSelection": NeighbourhoodSelection,
    "CLIME": CLIME,
}


def cpu_seconds(function: Callable[[], object], cap: float) -> float:
    """Least CPU seconds of 2 to 10 calls, fewer once they took a second in all.

    The first call at a new size pays for fresh memory (page faults), which the
    later ones reuse; only a first call over half of ``cap`` is not repeated.
    """
    times: list[float] = []
    while len(times) < 10 and (len(times) < 2 or sum(times) <= 1.0):
        start = time.process_time()
        function()
        times.append(time.process_time() - start)
        if times[0] > cap / 2:
            break
    return min(times)


def cases(p: int, n_samples: int) -> dict[str, Callable[[], object]]:
    """Every row's timed call at size ``p``."""
    density = 5 / (p - 1)
    graph = erdos_renyi_graph(p, density, random_state=0)
    chordal, _ = triangulate(graph)
    X = make_ggm(
        n_samples,
        p,
        density=density,
        generator=DiagonalDominance(),
        random_state=0,
    ).X
    calls: dict[str, Callable[[], object]] = {}
    for name, make in SAMPLERS.items():
        adjacency = chordal if make is UniformChordal else graph
        calls[name] = lambda m=make, a=adjacency: m(random_state=0).fit(a).sample(1)
    calls["make_ggm"] = lambda: make_ggm(n_samples, p, density=density, random_state=0)
    for name, make in LEARNERS.items():
        calls[name] = lambda m=make: m().fit(X)
    return calls


def slope(small: tuple[int, float], large: tuple[int, float]) -> str:
    (p1, t1), (p2, t2) = small, large
    return f"{math.log(t2 / t1) / math.log(p2 / p1):.1f}"


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=[100, 200, 500, 1000, 2000]
    )
    parser.add_argument("--n-samples", type=int, default=1000)
    parser.add_argument("--cap", type=float, default=60.0)
    args = parser.parse_args()
    sizes = sorted(args.sizes)
    print(f"start: {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}, {load()}")
    seconds: dict[str, dict[int, float]] = {}
    skipped: dict[str, str] = {}
    with threadpool_limits(limits=1, user_api="blas"):
        for p in sizes:
            for name, call in cases(p, args.n_samples).items():
                if name in skipped:
                    continue
                seconds.setdefault(name, {})[p] = cpu_seconds(call, args.cap)
                print(f"p={p} {name}: {seconds[name][p]:.4f} s ({load()})", flush=True)
                if seconds[name][p] > args.cap and p < sizes[-1]:
                    skipped[name] = f"p > {p} skipped ({seconds[name][p]:.0f} s at {p})"

    pairs = list(itertools.pairwise(sizes))
    overall_from = 500 if 500 in sizes else sizes[0]
    print(
        f"\nER average degree 5 (seed 0), n = {args.n_samples}, one BLAS thread, "
        "CPU seconds (least of 2 to 10 calls)\n"
    )
    header = " | ".join(f"p = {p}" for p in sizes)
    slopes = " | ".join(f"slope {a}→{b}" for a, b in pairs)
    print(f"| | {header} | {slopes} | slope {overall_from}→largest |")
    print("|---" * (2 + len(sizes) + len(pairs)) + "|")
    for name, row in seconds.items():
        cells = [f"{row[p]:.3g}" if p in row else "—" for p in sizes]
        steps = [
            slope((a, row[a]), (b, row[b])) if a in row and b in row else "—"
            for a, b in pairs
        ]
        largest = max(row)
        overall = (
            slope((overall_from, row[overall_from]), (largest, row[largest]))
            if overall_from in row and largest > overall_from
            else "—"
        )
        print(f"| {name} | {' | '.join(cells + steps)} | {overall} |")
    for name, reason in skipped.items():
        print(f"{name}: {reason}")
    print(f"end: {time.strftime('%H:%M:%S UTC', time.gmtime())}, {load()}")


if __name__ == "__main__":
    main()
