"""G-Wishart timings for docs/performance.md: BDgraph's ``rgwish`` in the same run.

Run with ``make bench`` or::

    OPENBLAS_NUM_THREADS=1 .venv/bin/python tests/benchmarks/bench_g_wishart.py

Erdos-Renyi graphs with density 0.1 (seed 0) at p = 50 and p = 100, ``df = 3``,
identity scale, 100 draws. ``method="lenkoski"`` is the algorithm of BDgraph's
``rgwish``; both are timed here (medians of ``--repeats``; Python with one BLAS
thread, R with Debian's single-threaded reference BLAS). The exact sampler is
tried to show that it cannot run on these graphs, and the Gibbs sampler (the
default's fallback) is timed from ``fit`` to 100 draws, with the effective sample
sizes of its draws. ``--long`` also runs 4000 Gibbs draws at p = 100, where the
ESS estimates are precise enough to read ESS per draw.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from _r_reference import r_available, r_timings, write_adjacency
from threadpoolctl import threadpool_limits

from skggm_bench.generators import GWishart
from skggm_bench.graphs import check_adjacency, erdos_renyi_graph

R_BDGRAPH = """
suppressMessages(library(BDgraph))
set.seed(1)
for (name in c({names})) {{
  adj <- as.matrix(read.csv(paste0("{directory}/", name, ".csv"), header = FALSE))
  dimnames(adj) <- NULL
  for (r in seq_len({repeats})) {{
    seconds <- system.time(
      rgwish(n = 100, adj = adj, b = 3, D = diag(nrow(adj)))
    )[["elapsed"]]
    cat("TIME", name, seconds, "\\n")
  }}
}}
"""
SIZES = {"er50": 50, "er100": 100}


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def lenkoski_times(graphs: dict, repeats: int) -> dict[str, list[float]]:
    result = {}
    with threadpool_limits(limits=1, user_api="blas"):
        for name, adjacency in graphs.items():
            generator = GWishart(method="lenkoski", random_state=0).fit(adjacency)
            result[name] = []
            for _ in range(repeats):
                start = time.perf_counter()
                generator.sample(100)
                result[name].append(time.perf_counter() - start)
    return result


def gibbs_run(adjacency: np.ndarray, method: str, n_draws: int) -> dict:
    """Wall and CPU seconds from ``fit`` to ``n_draws`` draws, and their ESS."""
    with threadpool_limits(limits=1, user_api="blas"), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the auto fallback says so
        wall, cpu = time.perf_counter(), time.process_time()
        generator = GWishart(method=method, random_state=0).fit(adjacency)
        generator.sample(n_draws)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    ess = generator.effective_sample_size_
    return {
        "wall": wall,
        "cpu": cpu,
        "method": generator.method_,
        "ess_min": ess.min(),
        "ess_median": float(np.median(ess)),
        "ess_log_det": generator.diagnostics_["log_det_effective_sample_size"],
        "lag1": generator.diagnostics_["max_lag1_autocorrelation"],
        "r_hat": generator.diagnostics_["max_r_hat"],
    }


def exact_attempt(adjacency: np.ndarray) -> str:
    try:
        GWishart(method="exact", random_state=0).fit(adjacency).sample(100)
    except RuntimeError as exc:
        return str(exc).split(":")[0]
    return "exact sampling ran"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--long", action="store_true")
    args = parser.parse_args()
    print(f"start: {load()}", flush=True)
    graphs = {
        name: check_adjacency(erdos_renyi_graph(p, 0.1, random_state=0))
        for name, p in SIZES.items()
    }
    ours = lenkoski_times(graphs, args.repeats)
    reason = r_available("BDgraph")
    theirs: dict[str, list[float]] = {}
    if reason is None:
        with tempfile.TemporaryDirectory() as directory:
            for name, adjacency in graphs.items():
                write_adjacency(adjacency, Path(directory), name)
            names = ", ".join(f'"{name}"' for name in graphs)
            theirs = r_timings(
                R_BDGRAPH.format(
                    names=names, directory=directory, repeats=args.repeats
                )
            )
        # Python again after R: medians over both, against load drift.
        for name, extra in lenkoski_times(graphs, args.repeats).items():
            ours[name] += extra
    else:
        print(f"BDgraph not timed: {reason}")

    print("\nER density 0.1 (seed 0), df=3, scale=I, 100 draws, medians")
    print("\n| graph | BDgraph `rgwish` | `method=\"lenkoski\"` | ratio | exact |")
    print("|---|---|---|---|---|")
    for name, adjacency in graphs.items():
        mine = statistics.median(ours[name])
        if name in theirs:
            other = statistics.median(theirs[name])
            cells = f"{other:.3f} s | {mine:.3f} s | {other / mine:.2f}x"
        else:
            cells = f"- | {mine:.3f} s | -"
        print(f"| {name} | {cells} | {exact_attempt(adjacency)} |")

    print("\nGibbs, from fit to 100 draws (4 chains, 20 burn-in sweeps, thinning 1)")
    print("\n| graph | method | wall s | cpu s | ESS min / median / log det |")
    print("|---|---|---|---|---|")
    for name, adjacency in graphs.items():
        for method in ("gibbs", "auto"):
            run = gibbs_run(adjacency, method, 100)
            print(
                f"| {name} | {method} ({run['method']}) | {run['wall']:.2f} | "
                f"{run['cpu']:.2f} | {run['ess_min']:.0f} / "
                f"{run['ess_median']:.0f} / {run['ess_log_det']:.0f} |",
                flush=True,
            )
    if args.long:
        run = gibbs_run(graphs["er100"], "gibbs", 4000)
        print(
            f"\nLong run, er100, 4000 draws: {run['wall']:.1f} s; ESS per draw "
            f"min {run['ess_min'] / 4000:.2f}, median {run['ess_median'] / 4000:.2f}, "
            f"log det {run['ess_log_det'] / 4000:.2f}; max lag-1 "
            f"{run['lag1']:.3f}; max R-hat {run['r_hat']:.3f}"
        )
    print(f"end: {load()}")


if __name__ == "__main__":
    main()
