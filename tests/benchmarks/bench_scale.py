"""Large sparse graphs and streaming, for docs/performance.md.

Run with ``.venv/bin/python tests/benchmarks/bench_scale.py``. Memory is the peak
traced by ``tracemalloc`` (Python and numpy allocations).
"""

from __future__ import annotations

import time
import tracemalloc

import networkx as nx

from skggm_bench.datasets import sample_gaussian
from skggm_bench.generators import UniformChordal
from skggm_bench.graphs import band_graph, random_chordal_graph


def traced(function):
    """Run ``function``; return (result, seconds, peak MB)."""
    tracemalloc.start()
    start = time.perf_counter()
    result = function()
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return result, seconds, peak


def main() -> None:
    p = 100_000
    adjacency = nx.to_scipy_sparse_array(band_graph(p, 3), format="csr")
    generator, fit_s, fit_mb = traced(
        lambda: UniformChordal(sparse_output=True, random_state=0).fit(adjacency)
    )
    draws, sample_s, sample_mb = traced(lambda: generator.sample(1))
    precision = draws[0]
    _, data_s, data_mb = traced(
        lambda: sample_gaussian(precision, 10, role="precision", random_state=0)
    )
    print(f"band graph p={p}, bandwidth 3, {precision.nnz} stored entries")
    print(f"| fit (perfect ordering, structure) | {fit_s:.2f} s | {fit_mb:.0f} MB |")
    print(f"| one sparse draw | {sample_s:.2f} s | {sample_mb:.0f} MB |")
    print(f"| 10 Gaussian samples from it | {data_s:.2f} s | {data_mb:.0f} MB |")

    chordal = random_chordal_graph(100, 0.3, random_state=0)
    streaming = UniformChordal(random_state=0).fit(chordal)

    def stream() -> int:
        return sum(b.shape[0] for b in streaming.iter_samples(100_000, batch_size=1000))

    count, stream_s, stream_mb = traced(stream)
    _, _, batch_mb = traced(lambda: streaming.sample(1000))
    print(
        f"\nstreaming {count} draws at p=100 in batches of 1000: {stream_s:.1f} s, "
        f"peak {stream_mb:.0f} MB (one batch of 1000: {batch_mb:.0f} MB; all "
        f"100,000 at once would hold {100_000 * 100 * 100 * 8 / 1e9:.0f} GB)"
    )


if __name__ == "__main__":
    main()
