"""Harness scaling: speed-up and efficiency over worker counts, and overhead per fit.

Run with ``.venv/bin/python tests/benchmarks/bench_harness.py --n-jobs 1 2`` (not part
of the test suite). Figures:

* **Speed-up and efficiency** on the grid of 576 fits: 2 generators
  (DiagonalDominance, TriangulatedOrthogonalization) x 3 densities (0.05, 0.1, 0.25)
  x 2 sample sizes (100, 200) x 8 repeats x the 6 learners of the quick preset
  (the five of Krämer et al. 2009 and a cross-validated graphical lasso), p = 50.
  For each ``--n-jobs`` value the same study runs in memory; speed-up is the wall
  time at 1 worker over the wall time at n workers, efficiency is speed-up / n.
  The workers are started before the clock starts (a warm-up call), so that the
  figure measures the harness's scheduling, not process start-up, which is printed
  separately. BLAS uses one thread per worker. Also printed: the *bound* that no
  schedule can beat, ``max(total fit time / n, longest fit)``, and how far the run
  is from it.
* **Overhead per fit** (``--overhead``): a grid of fits that do nothing (a learner
  whose ``fit`` returns at once), at ``n_jobs=1``: wall time per fit is then the
  harness alone (drawing each cell once, the child process round trips, scoring,
  the store write, scheduling). With ``--in-process`` also the same grid with
  ``isolate=False``: the harness's own work, without child processes.

* **Floor of a fresh process per request** (``--floor``): what any isolation that
  forks one child per request must pay on this machine, whatever its plumbing. This
  process (it has imported the harness: numpy, scipy, scikit-learn and what they
  import) forks a child ahead of each request, sends it a small message, reads its
  answer and reaps it; the child does nothing else. Then the same through the
  harness's own :class:`~skggm_bench.benchmark.run._isolation.ForkServer` with a request
  that does nothing. Each is printed per request (wall, and CPU of all processes).
  The overhead grid needs 1.5 requests per fit (one per fit, one per draw of a cell
  of two sample sizes).

* **A study of cheap fits** (``--study``): 5000 fits of scikit-learn's
  ``LedoitWolf`` at p = 10, n = 50, one fit per cell (5 densities x 1000 repeats of
  DiagonalDominance: every fit has a draw of its own), at each ``--n-jobs`` value
  (default 1 and 2); wall and CPU (this process and all its descendants, the loky
  workers and their fork servers included) per fit. ``--study-fits`` changes the
  number of fits.

``--out FILE.json`` writes every figure for docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
import warnings

import joblib
import numpy as np
from sklearn.base import BaseEstimator
from threadpoolctl import threadpool_limits

from skggm_bench.benchmark import Benchmark
from skggm_bench.benchmark.config import get_preset
from skggm_bench.generators import DiagonalDominance, TriangulatedOrthogonalization


class NullLearner(BaseEstimator):
    """A fit that costs nothing: the run time is then pure harness overhead."""

    def fit(self, X, y=None):
        self.precision_ = np.eye(X.shape[1])
        return self


def grid(learners: dict, n_jobs: int, backend: str, **changes) -> Benchmark:
    params = {
        "densities": (0.05, 0.1, 0.25),
        "n_features": 50,
        "n_samples": (100, 200),
        "n_repeats": 8,
        "random_state": 0,
        "n_jobs": n_jobs,
        "backend": backend,
    }
    return Benchmark(
        {"dd": DiagonalDominance(), "to": TriangulatedOrthogonalization()},
        learners,
        **(params | changes),
    )


def warm_up(n_jobs: int, backend: str) -> float:
    """Start the workers (and import the package in them); return the time taken."""
    start = time.perf_counter()
    with joblib.parallel_config(backend=backend):
        joblib.Parallel(n_jobs=n_jobs)(
            joblib.delayed(__import__)("skggm_bench.benchmark") for _ in range(n_jobs)
        )
    return time.perf_counter() - start


def scaling(
    n_jobs_list: list[int], backend: str, out: str | None, n_repeats: int = 8
) -> list[dict]:
    learners = get_preset("quick").make_learners()
    rows: list[dict] = []
    for n_jobs in n_jobs_list:
        startup = warm_up(n_jobs, backend) if n_jobs > 1 else 0.0
        bench = grid(learners, n_jobs, backend, n_repeats=n_repeats)
        start = time.perf_counter()
        with threadpool_limits(1):
            frame = bench.run().frame
        wall = time.perf_counter() - start
        work = float(frame.fit_time.sum())
        bound = max(work / n_jobs, float(frame.fit_time.max()))
        rows.append(
            {
                "n_jobs": n_jobs,
                "backend": backend,
                "fits": len(frame),
                "ok": int((frame.status == "ok").sum()),
                "wall_s": wall,
                "startup_s": startup,
                "fit_time_sum_s": work,
                "longest_fit_s": float(frame.fit_time.max()),
                "bound_s": bound,
            }
        )
        print(
            f"n_jobs={n_jobs:>2} ({backend}): {wall:7.1f} s wall for {len(frame)} fits "
            f"({rows[-1]['ok']} ok); fits {work:.1f} CPU-s in all, longest "
            f"{rows[-1]['longest_fit_s']:.2f} s; no schedule can beat {bound:.1f} s "
            f"(wall / bound = {wall / bound:.2f}); worker start-up {startup:.1f} s",
            flush=True,
        )
        if out:  # after each run: a run stopped later keeps what was measured
            with open(out, "w") as handle:
                json.dump({"cpus": os.cpu_count(), "scaling": rows}, handle, indent=2)
    base = next((r for r in rows if r["n_jobs"] == 1), None)
    if base is not None:
        print("\nn_jobs  speed-up  efficiency")
        for row in rows:
            row["speedup"] = base["wall_s"] / row["wall_s"]
            row["efficiency"] = row["speedup"] / row["n_jobs"]
            print(f"{row['n_jobs']:>6} {row['speedup']:9.2f} {row['efficiency']:11.2f}")
    return rows


def draw_time(bench: Benchmark) -> float:
    """Seconds the data pipeline alone takes for every cell of ``bench``."""
    from skggm_bench.benchmark.run._seeding import cell_seed
    from skggm_bench.datasets._pipeline import draw_graph, draw_latent, draw_model

    start = time.perf_counter()
    for generator in bench.generators.values():
        for density in bench.densities:
            for repeat in range(bench.n_repeats):
                seed = cell_seed(
                    bench.random_state, "erdos_renyi", bench.n_features, density, repeat
                )
                graph = draw_graph("erdos_renyi", bench.n_features, density, {}, seed)
                truth = draw_model(graph.adjacency, generator, bench.model, seed)
                draw_latent(truth, max(bench.n_samples), seed)
                truth.signal()
    return time.perf_counter() - start


def overhead(backend: str, isolate: bool = True) -> dict:
    learners = {"null": NullLearner()}
    # Warm: imports, a child process.
    grid(learners, 1, backend, n_repeats=1, isolate=isolate).run()
    bench = grid(learners, 1, backend, n_repeats=20, isolate=isolate)
    load = os.getloadavg()[0]
    cpu = cpu_seconds()
    start = time.perf_counter()
    frame = bench.run().frame
    wall = time.perf_counter() - start
    cpu = cpu_seconds() - cpu
    drawing = draw_time(bench)
    per_fit = (wall - drawing) / len(frame)
    cpu_per_fit = (cpu - drawing) / len(frame)
    label = "overhead" if isolate else "overhead (isolate=False)"
    print(
        f"\n{label}: {len(frame)} fits that do nothing in {wall:.2f} s, of which "
        f"{drawing:.2f} s draw the {len(frame) // 2} data sets (graph, matrix, data, "
        f"signal); the harness itself: {1e3 * per_fit:.1f} ms per fit (process "
        "round trips, forks, cloning, scoring, store writes, scheduling), "
        f"{1e3 * cpu_per_fit:.1f} ms of CPU per fit in all its processes; load "
        f"average {load:.2f} before, {os.getloadavg()[0]:.2f} after",
        flush=True,
    )
    return {
        "fits": len(frame),
        "wall_s": wall,
        "draw_s": drawing,
        "per_fit_ms": 1e3 * per_fit,
        "cpu_per_fit_ms": 1e3 * cpu_per_fit,
        "load_average": load,
    }


def fork_floor(n_requests: int = 300) -> dict:
    """Wall and CPU per request of the bare fork-per-request loop, and of ForkServer."""
    import gc
    from multiprocessing.connection import Pipe

    from skggm_bench.benchmark.run._isolation import ForkServer
    from skggm_bench.benchmark.run._server import Server

    def fork_child():
        ours, theirs = Pipe()
        pid = os.fork()
        if pid == 0:  # the child: one request, one answer, exit
            try:
                ours.close()
                theirs.send(theirs.recv())
            finally:  # the last spare gets no request
                os._exit(0)
        theirs.close()
        return pid, ours

    gc.collect()
    figures = {"maps": sum(1 for _ in open("/proc/self/maps"))}
    load = os.getloadavg()[0]
    cpu, start = cpu_seconds(), time.perf_counter()
    spare = fork_child()
    for i in range(n_requests):
        pid, conn = spare
        conn.send(i)
        conn.recv()
        conn.close()
        spare = fork_child()  # the next child is forked ahead, as the template does
        os.waitpid(pid, 0)
    figures["bare_ms"] = 1e3 * (time.perf_counter() - start) / n_requests
    figures["bare_cpu_ms"] = 1e3 * (cpu_seconds() - cpu) / n_requests
    spare[1].close()
    os.waitpid(spare[0], 0)

    class Nothing(Server):
        def nothing(self) -> None:
            return None

    server = ForkServer(Nothing())
    server.call("nothing", ())  # the template is started before the clock
    cpu, start = cpu_seconds(), time.perf_counter()
    for _ in range(n_requests):
        server.call("nothing", ())
    wall = time.perf_counter() - start
    server.close()  # the template's CPU is counted once it is reaped
    figures["fork_server_ms"] = 1e3 * wall / n_requests
    figures["fork_server_cpu_ms"] = 1e3 * (cpu_seconds() - cpu) / n_requests
    print(
        f"\nfloor: a process with {figures['maps']} memory mappings forks one child "
        f"per request: {figures['bare_ms']:.2f} ms wall and "
        f"{figures['bare_cpu_ms']:.2f} ms of CPU per request (a bare loop); through "
        f"ForkServer, a request that does nothing: {figures['fork_server_ms']:.2f} ms "
        f"wall, {figures['fork_server_cpu_ms']:.2f} ms of CPU; load average {load:.2f} "
        "before",
        flush=True,
    )
    return figures | {"load_average": load}


def _process_cpu(pid: int) -> float:
    """CPU seconds of ``pid`` and of its children that it has reaped (Linux)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds() -> float:
    """CPU time of this process and of every descendant, live or reaped by one.

    The loky workers outlive a run, and so may their fork servers: their CPU
    is read from /proc, where ``RUSAGE_CHILDREN`` only counts reaped processes.
    """
    import psutil

    total = _process_cpu(os.getpid())
    for child in psutil.Process().children(recursive=True):
        try:
            total += _process_cpu(child.pid)
        except (OSError, ValueError):  # ended meanwhile: its parent counts it
            continue
    return total


def study(n_jobs_list: list[int], backend: str, n_fits: int = 5000) -> list[dict]:
    """Wall and CPU per fit of a study of ``n_fits`` LedoitWolf fits at p = 10."""
    from sklearn.covariance import LedoitWolf

    rows = []
    for n_jobs in n_jobs_list:
        if n_jobs > 1:
            warm_up(n_jobs, backend)
        bench = Benchmark(
            {"dd": DiagonalDominance()},
            {"ledoit_wolf": LedoitWolf()},
            densities=(0.1, 0.2, 0.3, 0.4, 0.5),
            n_features=10,
            n_samples=(50,),
            n_repeats=n_fits // 5,
            random_state=0,
            n_jobs=n_jobs,
            backend=backend,
        )
        load = os.getloadavg()[0]
        cpu, start = tree_cpu_seconds(), time.perf_counter()
        with threadpool_limits(1):
            frame = bench.run().frame
        wall = time.perf_counter() - start
        cpu = tree_cpu_seconds() - cpu
        fits = len(frame)
        fit_time = float(frame.fit_time.sum())
        rows.append(
            {
                "n_jobs": n_jobs,
                "fits": fits,
                "ok": int((frame.status == "ok").sum()),
                "wall_s": wall,
                "cpu_s": cpu,
                "fit_time_sum_s": fit_time,
                "wall_per_fit_ms": 1e3 * wall / fits,
                "cpu_per_fit_ms": 1e3 * cpu / fits,
                "load_average": load,
            }
        )
        print(
            f"\nstudy: {fits} LedoitWolf fits at p = 10 ({rows[-1]['ok']} ok), "
            f"n_jobs={n_jobs}: {wall:.1f} s wall, {cpu:.1f} s CPU in all processes: "
            f"{1e3 * wall / fits:.2f} ms wall and {1e3 * cpu / fits:.2f} ms CPU per "
            f"fit (the fits themselves: {1e3 * fit_time / fits:.3f} ms each); load "
            f"average {load:.2f} before, {os.getloadavg()[0]:.2f} after",
            flush=True,
        )
    return rows


def cpu_seconds() -> float:
    """CPU time of this process and of its children that have ended (and theirs)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--n-jobs",
        type=int,
        nargs="+",
        help="worker counts of the scaling figure (default: 1 2, or none with "
        "--overhead)",
    )
    parser.add_argument("--backend", default="loky")
    parser.add_argument(
        "--n-repeats",
        type=int,
        default=8,
        help="repeats of the scaling grid (8: 576 fits; fewer for a quicker figure)",
    )
    parser.add_argument("--overhead", action="store_true")
    parser.add_argument("--study", action="store_true")
    parser.add_argument("--study-fits", type=int, default=5000)
    parser.add_argument("--floor", action="store_true")
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="with --overhead: also the grid with isolate=False (no child processes)",
    )
    parser.add_argument("--out", help="write the figures to this JSON file")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    print(f"{os.cpu_count()} CPUs; load average {os.getloadavg()}", flush=True)
    if args.study:
        figures = {
            "cpus": os.cpu_count(),
            "study": study(args.n_jobs or [1, 2], args.backend, args.study_fits),
        }
        if args.out:
            with open(args.out, "w") as handle:
                json.dump(figures, handle, indent=2)
        return
    n_jobs = args.n_jobs or ([] if args.overhead or args.floor else [1, 2])
    rows = scaling(n_jobs, args.backend, args.out, args.n_repeats)
    figures = {"cpus": os.cpu_count(), "scaling": rows}
    if args.overhead:
        figures["overhead"] = overhead(args.backend)
        if args.in_process:
            figures["overhead_in_process"] = overhead(args.backend, isolate=False)
    if args.floor:
        figures["floor"] = fork_floor()
    if args.out:
        with open(args.out, "w") as handle:
            json.dump(figures, handle, indent=2)


if __name__ == "__main__":
    main()
