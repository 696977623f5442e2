"""HitAndRunUniform: timings, and the mixing study behind its defaults.

Run ``.venv/bin/python tests/benchmarks/bench_hit_and_run.py`` for the timings
(under a minute); add ``--mixing`` for the autocorrelation table of
docs/hit_and_run.md (about 10 minutes) and ``--large`` for the p = 1000 case
(Erdos-Renyi density 0.01, 100 draws with default settings, about a minute, run
once). The headline small case: p = 100, Erdos-Renyi density 0.05, 100 draws with
default settings. Times are wall-clock, best of ``--repeats`` runs, CPU time
alongside (on a shared machine wall time also measures the other processes).
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import networkx as nx
import numpy as np

from skggm_bench.generators import HitAndRunUniform
from skggm_bench.graphs import check_adjacency, erdos_renyi_graph, lattice_graph


def timed(function) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    function()
    return time.perf_counter() - wall, time.process_time() - cpu


def best_run(graph, n_draws: int, repeats: int, **params) -> dict:
    """Best-of-``repeats`` fit and sample times, and the generator of the best run."""
    best = None
    for seed in range(repeats):
        generator = HitAndRunUniform(random_state=seed, **params)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fit_wall, fit_cpu = timed(lambda g=generator: g.fit(graph))
            sample_wall, sample_cpu = timed(lambda g=generator: g.sample(n_draws))
        row = {
            "fit": fit_wall,
            "sample": sample_wall,
            "wall": fit_wall + sample_wall,
            "cpu": fit_cpu + sample_cpu,
            "generator": generator,
            "warnings": len(caught),
        }
        if best is None or row["wall"] < best["wall"]:
            best = row
    return best


def timings(repeats: int) -> None:
    er100 = erdos_renyi_graph(100, 0.05, random_state=0)
    cases = [
        ("ER p=100 d=0.05, defaults (node)", er100, 100, {}),
        ("ER p=100 d=0.05, move='edge'", er100, 100, {"move": "edge"}),
        ("ER p=100 d=0.05, defaults, 1000 draws", er100, 1000, {}),
        ("grid 10x10, defaults", lattice_graph(10), 100, {}),
        (
            "ER p=200 d=0.025, defaults",
            erdos_renyi_graph(200, 0.025, random_state=0),
            100,
            {},
        ),
        (
            "ER p=30 d=0.3, defaults, 1000 draws",
            erdos_renyi_graph(30, 0.3, random_state=0),
            1000,
            {},
        ),
    ]
    print(f"Timings, best of {repeats}; fit = burn-in; seconds\n")
    print(
        "| case | edges | draws | fit | sample | total (cpu) | ms per sweep "
        "| drift | warnings |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for name, graph, n_draws, params in cases:
        row = best_run(graph, n_draws, repeats, **params)
        generator = row["generator"]
        sweeps = generator.n_burn_in_ + generator.thinning_ * -(
            -n_draws // generator.n_chains
        )
        print(
            f"| {name} | {generator.edges_.shape[0]} | {n_draws} | {row['fit']:.2f} "
            f"| {row['sample']:.2f} | {row['wall']:.2f} ({row['cpu']:.2f}) "
            f"| {1e3 * row['wall'] / sweeps:.1f} "
            f"| {generator.diagnostics_['max_inverse_drift']:.0e} "
            f"| {row['warnings']} |",
            flush=True,
        )


def within_chain_autocorrelation(draws, adjacency, n_chains, lags) -> np.ndarray:
    """Pooled within-chain autocorrelation of every edge entry at ``lags`` (rows)."""
    rows, cols = np.nonzero(np.triu(adjacency, 1))
    values = draws[:, rows, cols]
    n = values.shape[0] // n_chains
    chains = values[: n * n_chains].reshape(n, n_chains, -1)
    centred = chains - chains.mean(axis=0)
    variance = (centred**2).sum(axis=(0, 1)) / (n * n_chains)
    return np.array(
        [
            (centred[lag:] * centred[:-lag]).sum(axis=(0, 1))
            / ((n - lag) * n_chains)
            / variance
            for lag in lags
        ]
    )


def mixing() -> None:
    graphs = {
        "cycle 4": nx.cycle_graph(4),
        "cycle 5": nx.cycle_graph(5),
        "grid 3x3": lattice_graph(3),
        "grid 5x5": lattice_graph(5),
        "star 20": nx.star_graph(19),
        "K5": nx.complete_graph(5),
        "K10": nx.complete_graph(10),
        "K5,5": nx.complete_bipartite_graph(5, 5),
        "WS(30, 4, 0.1)": nx.watts_strogatz_graph(30, 4, 0.1, seed=0),
        "ER(30, 0.3)": erdos_renyi_graph(30, 0.3, random_state=0),
        "BA(50, 2)": nx.barabasi_albert_graph(50, 2, seed=0),
        "ER(100, 0.05)": erdos_renyi_graph(100, 0.05, random_state=0),
    }
    lags = [1, 2, 4, 8, 16, 24]
    n_chains = 16
    print(
        "\nMixing: max over edge entries of the within-chain autocorrelation at a lag"
        f" of k sweeps ({n_chains} chains, thinning=1). Noise: s.e. 1/sqrt(N).\n"
    )
    print("| graph | move | N | " + " | ".join(f"k={k}" for k in lags) + " |")
    print("|---|---|---|" + "---|" * len(lags))
    for name, graph in graphs.items():
        adjacency = check_adjacency(graph)
        rounds = 1500 if adjacency.shape[0] <= 30 else 400
        for move in ("node", "edge"):
            generator = HitAndRunUniform(
                move, thinning=1, n_chains=n_chains, random_state=0
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # thinning=1 warns for move="edge"
                draws = generator.fit(graph).sample(rounds * n_chains)
            rho = within_chain_autocorrelation(draws, adjacency, n_chains, lags)
            print(
                f"| {name} | {move} | {draws.shape[0]} | "
                + " | ".join(f"{value:.3f}" for value in rho.max(axis=1))
                + " |",
                flush=True,
            )


def large() -> None:
    """p = 1000, ER density 0.01: fit and 100 draws with the defaults, once."""
    graph = erdos_renyi_graph(1000, 0.01, random_state=0)
    row = best_run(graph, 100, 1)
    generator = row["generator"]
    diagnostics = generator.diagnostics_
    ess = generator.effective_sample_size_
    print(
        f"\nER p=1000 d=0.01 ({generator.edges_.shape[0]} edges), defaults, 100 "
        f"draws: fit {row['fit']:.1f} s, sample {row['sample']:.1f} s, total "
        f"{row['wall']:.1f} s (CPU {row['cpu']:.1f} s); ESS over the edge entries "
        f"min {ess.min():.0f}, median {np.median(ess):.0f}, of log det M "
        f"{diagnostics['log_det_effective_sample_size']:.0f}; max R-hat "
        f"{diagnostics['max_r_hat']:.3f}; drift "
        f"{diagnostics['max_inverse_drift']:.0e}; warnings {row['warnings']}; "
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--mixing", action="store_true", help="also the mixing study")
    parser.add_argument("--large", action="store_true", help="also p = 1000")
    args = parser.parse_args()
    timings(args.repeats)
    if args.large:
        large()
    if args.mixing:
        mixing()


if __name__ == "__main__":
    main()
