"""G-Wishart timings for docs/performance.md: BDgraph's ``rgwish`` in the same run.

Run with ``make bench`` or::

    R_LIBS=<library with BDgraph> OPENBLAS_NUM_THREADS=1 \\
        .venv/bin/python tests/benchmarks/bench_g_wishart.py

Erdos-Renyi graphs with density 0.1 (seed 0) at p = 50 and p = 100, ``df = 3``,
identity scale, 100 draws. ``method="lenkoski"`` is the algorithm of BDgraph's
``rgwish``; both are timed here, one thread on both sides (``OPENBLAS_NUM_THREADS=1``
and ``OMP_NUM_THREADS=1``: BDgraph's C++ has OpenMP loops). Python is timed
``--repeats`` times before and after R. R is timed with the BLAS and LAPACK that
Debian's alternatives give it (OpenBLAS when ``libopenblas0-pthread`` is
installed) and, with ``--r-blas both`` (the default), also with Debian's reference
BLAS and LAPACK, loaded through ``R_LD_LIBRARY_PATH`` for that process only; the
libraries R actually loaded are printed. The exact sampler is tried to show that
it cannot run on these graphs, and the Gibbs sampler (the default's fallback) is
timed from ``fit`` to 100 draws, with the effective sample sizes of its draws
(``--lenkoski-only`` skips both). ``--long`` also runs 3000 Gibbs draws at
p = 100, where the ESS estimates are precise enough to read ESS per draw;
``--mixing`` prints the study behind the Gibbs defaults (lag-1 autocorrelation per
sweep, and ``log det K`` over the first sweeps from Lenkoski starts).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
import warnings
from pathlib import Path

import networkx as nx
import numpy as np
from _r_reference import (
    r_available,
    r_library_path,
    r_timings,
    reference_blas_path,
    write_adjacency,
)
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
R_SETUP = (
    'cat(R.version.string, "| BDgraph", as.character(packageVersion("BDgraph")), '
    '"| BLAS", extSoftVersion()[["BLAS"]], "| LAPACK", La_library())'
)


def r_setup() -> str:
    """R's version, BDgraph's, and the BLAS and LAPACK R has loaded."""
    environment = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    result = subprocess.run(
        ["Rscript", "-e", "suppressMessages(library(BDgraph)); " + R_SETUP],
        capture_output=True,
        text=True,
        env=environment,
    )
    return result.stdout.strip() or result.stderr.strip()


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
    parser.add_argument("--r-blas", choices=["default", "both"], default="both")
    parser.add_argument("--lenkoski-only", action="store_true")
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
    setups = {"R default BLAS": None}
    if args.r_blas == "both":
        reference = reference_blas_path()
        if reference is None:
            print("reference BLAS not found: R timed with its default BLAS only")
        else:
            setups["R reference BLAS"] = reference
    theirs: dict[str, dict[str, list[float]]] = {}
    if reason is None:
        with tempfile.TemporaryDirectory() as directory:
            for name, adjacency in graphs.items():
                write_adjacency(adjacency, Path(directory), name)
            names = ", ".join(f'"{name}"' for name in graphs)
            for label, path in setups.items():
                with r_library_path(path):
                    print(f"{label}: {r_setup()}", flush=True)
                    theirs[label] = r_timings(
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
    print(
        '\n| graph | `method="lenkoski"` wall (CPU) | R set-up | BDgraph `rgwish` '
        "wall (CPU) | ratio R / ours, wall (CPU) |"
    )
    print("|---|---|---|---|---|")
    for name in graphs:
        mine = statistics.median(ours[name])
        mine_cpu = statistics.median(ours[name + "_cpu"])
        for label, timings in (theirs or {"-": {}}).items():
            cells = "- | -"
            if name in timings:
                other = statistics.median(timings[name])
                other_cpu = statistics.median(timings[name + "_cpu"])
                cells = (
                    f"{other:.3f} s ({other_cpu:.3f}) | "
                    f"{other / mine:.2f}x ({other_cpu / mine_cpu:.2f}x)"
                )
            print(f"| {name} | {mine:.3f} s ({mine_cpu:.3f}) | {label} | {cells} |")
    if args.lenkoski_only:
        print(f"end: {load()}")
        return
    print("\n| graph | exact |")
    print("|---|---|")
    for name, adjacency in graphs.items():
        print(f"| {name} | {exact_attempt(adjacency)} |")

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
