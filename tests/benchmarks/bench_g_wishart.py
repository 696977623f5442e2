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
ESS estimates are precise enough to read ESS per draw; ``--mixing`` prints the
study behind the Gibbs defaults (lag-1 autocorrelation per sweep, and ``log det K``
over the first sweeps from Lenkoski starts).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import warnings
from pathlib import Path

import networkx as nx
import numpy as np
from _r_reference import r_available, r_timings, write_adjacency
from threadpoolctl import threadpool_limits

from skggm_bench.generators import GWishart
from skggm_bench.generators._mcmc import mixing_diagnostics
from skggm_bench.graphs import check_adjacency, erdos_renyi_graph

R_BDGRAPH = """
suppressMessages(library(BDgraph))
set.seed(1)
for (name in c({names})) {{
  adj <- as.matrix(read.csv(paste0("{directory}/", name, ".csv"), header = FALSE))
  dimnames(adj) <- NULL
  for (r in seq_len({repeats})) {{
    seconds <- system.time(rgwish(n = 100, adj = adj, b = 3, D = diag(nrow(adj))))
    cat("TIME", name, seconds[["elapsed"]], "\\n")
    cat("TIME", paste0(name, "_cpu"), seconds[["user.self"]] + seconds[["sys.self"]],
        "\\n")
  }}
}}
"""
SIZES = {"er50": 50, "er100": 100}


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def lenkoski_times(graphs: dict, repeats: int) -> dict[str, list[float]]:
    """Wall seconds under the graph's name, CPU seconds under ``name + "_cpu"``."""
    result: dict[str, list[float]] = {}
    with threadpool_limits(limits=1, user_api="blas"):
        for name, adjacency in graphs.items():
            generator = GWishart(method="lenkoski", random_state=0).fit(adjacency)
            for _ in range(repeats):
                wall, cpu = time.perf_counter(), time.process_time()
                generator.sample(100)
                result.setdefault(name, []).append(time.perf_counter() - wall)
                result.setdefault(name + "_cpu", []).append(time.process_time() - cpu)
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
        "ess": ess,
        "wall": wall,
        "cpu": cpu,
        "method": generator.method_,
        "ess_min": ess.min(),
        "ess_median": float(np.median(ess)),
        "ess_log_det": generator.diagnostics_["log_det_effective_sample_size"],
        "lag1": generator.diagnostics_["max_lag1_autocorrelation"],
        "r_hat": generator.diagnostics_["max_r_hat"],
        # The diagnostics read at most 2 million stored values: the latest draws.
        "n_diagnosed": generator.diagnostics_["n_draws"],
    }


def exact_attempt(adjacency: np.ndarray) -> str:
    try:
        GWishart(method="exact", random_state=0).fit(adjacency).sample(100)
    except RuntimeError as exc:
        return str(exc).split(":")[0]
    return "exact sampling ran"


def mixing() -> None:
    """Largest within-chain lag-1 autocorrelation of the free entries, thinning 1."""
    graphs = {
        "cycle 4": nx.cycle_graph(4),
        "grid 3x3": nx.grid_2d_graph(3, 3),
        "ER(30, 0.3)": erdos_renyi_graph(30, 0.3, random_state=0),
        "ER(100, 0.1)": erdos_renyi_graph(100, 0.1, random_state=0),
    }
    print("\n| graph | draws | max lag-1 (noise s.e.) | log det K, sweeps 1-3 vs 20+ |")
    print("|---|---|---|---|")
    for name, graph in graphs.items():
        adjacency = check_adjacency(graph)
        n_rounds = 250 if adjacency.shape[0] > 50 else 1000
        with threadpool_limits(limits=1, user_api="blas"):
            generator = GWishart(
                method="gibbs", n_chains=16, n_burn_in=0, thinning=1, random_state=0
            ).fit(adjacency)
            draws = generator.sample(16 * n_rounds)
        pairs = np.argwhere(np.triu(adjacency | np.eye(len(adjacency), dtype=bool)))
        values = draws[:, pairs[:, 0], pairs[:, 1]].reshape(n_rounds, 16, -1)
        centred = values - values.mean(axis=0)
        lag1 = (centred[1:] * centred[:-1]).sum(axis=(0, 1)) / (centred**2).sum(
            axis=(0, 1)
        )
        log_det = np.linalg.slogdet(draws)[1].reshape(n_rounds, 16).mean(axis=1)
        print(
            f"| {name} | {draws.shape[0]} | {lag1.max():.3f} "
            f"({1 / np.sqrt(draws.shape[0]):.3f}) | {log_det[:3].mean():.2f} vs "
            f"{log_det[20:].mean():.2f} |",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--long", action="store_true")
    parser.add_argument("--mixing", action="store_true")
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
                R_BDGRAPH.format(names=names, directory=directory, repeats=args.repeats)
            )
        # Python again after R: medians over both, against load drift.
        for name, extra in lenkoski_times(graphs, args.repeats).items():
            ours[name] += extra
    else:
        print(f"BDgraph not timed: {reason}")

    print("\nER density 0.1 (seed 0), df=3, scale=I, 100 draws, medians")
    print(
        '\n| graph | BDgraph `rgwish` wall (CPU) | `method="lenkoski"` wall (CPU) '
        "| ratio wall (CPU) | exact |"
    )
    print("|---|---|---|---|---|")
    for name, adjacency in graphs.items():
        mine = statistics.median(ours[name])
        mine_cpu = statistics.median(ours[name + "_cpu"])
        if name in theirs:
            other = statistics.median(theirs[name])
            other_cpu = statistics.median(theirs[name + "_cpu"])
            cells = (
                f"{other:.2f} s ({other_cpu:.2f}) | {mine:.2f} s ({mine_cpu:.2f}) | "
                f"{other / mine:.2f}x ({other_cpu / mine_cpu:.2f}x)"
            )
        else:
            cells = f"- | {mine:.2f} s ({mine_cpu:.2f}) | -"
        print(f"| {name} | {cells} | {exact_attempt(adjacency)} |")

    print(
        "\nGibbs, from fit to 100 draws (defaults: 4 chains, 20 burn-in sweeps, "
        "2 sweeps between draws)"
    )
    print(
        "\n| graph | method | wall s | cpu s | ESS min / median / log det "
        "| independent draws: ESS min / median |"
    )
    print("|---|---|---|---|---|---|")
    for name, adjacency in graphs.items():
        for method in ("gibbs", "auto"):
            run = gibbs_run(adjacency, method, 100)
            # The same estimator on independent normal draws of the same shape
            # (25 rounds of 4 chains): the minimum over hundreds of entries of a
            # 100-draw ESS estimate is far below 100 even without autocorrelation.
            baseline = mixing_diagnostics(
                np.random.RandomState(0).standard_normal((25, 4, len(run["ess"])))
            )["ess"]
            print(
                f"| {name} | {method} ({run['method']}) | {run['wall']:.2f} | "
                f"{run['cpu']:.2f} | {run['ess_min']:.0f} / "
                f"{run['ess_median']:.0f} / {run['ess_log_det']:.0f} | "
                f"{baseline.min():.0f} / {np.median(baseline):.0f} |",
                flush=True,
            )
    if args.long:
        run = gibbs_run(graphs["er100"], "gibbs", 3000)
        n = run["n_diagnosed"]
        print(
            f"\nLong run, er100, 3000 draws: {run['wall']:.1f} s; ESS per draw "
            f"min {run['ess_min'] / n:.2f}, median {run['ess_median'] / n:.2f}, "
            f"log det {run['ess_log_det'] / n:.2f}; max lag-1 "
            f"{run['lag1']:.3f}; max R-hat {run['r_hat']:.3f}"
        )
        baseline = mixing_diagnostics(
            np.random.RandomState(0).standard_normal((n // 4, 4, len(run["ess"])))
        )
        print(
            f"Independent normal draws of the same shape: ESS per draw min "
            f"{baseline['ess'].min() / n:.2f}, median "
            f"{np.median(baseline['ess']) / n:.2f}"
        )
    if args.mixing:
        mixing()
    print(f"end: {load()}")


if __name__ == "__main__":
    main()
