"""Overhead of an RLearner fit above the R call's own time, p = 50 and p = 500.

An RLearner fit validates ``X``, copies it into R, seeds R, calls the function,
normalises and copies the estimates back. This script times the whole
``fit`` and, inside R, the function's own call (``Sys.time`` around it), and
prints the difference (median of the repeats) in two settings:

* ``in process``: R started once in this process, fits one after another;
* ``forked child``: as in the benchmark harness, R started once in the parent
  (``start_r``, then Python's collector frozen), each fit in a freshly forked
  child that sends its estimate back through a pipe and exits; the time is
  the parent's, from the fork to the answer, less the R call's;

and, for comparison, ``forked numpy``: the same fork, answer and exit around
numpy's inverse of the covariance (the fork's own cost, whatever the learner),
and R's start-up (``initr``), which is what starting R per fit would cost.

Usage: ``python tests/benchmarks/bench_r_learner.py [--repeats N]``; prints why
and exits 0 where R or rpy2 is missing.
"""

from __future__ import annotations

import argparse
import gc
import os
import pickle
import statistics
import time
import warnings

import numpy as np

from skggm_bench.learners import RLearner, r_unavailable
from skggm_bench.learners._r import start_r

# The function times its own work in R and leaves the time in R's global
# environment, where the script reads it after the fit.
TIMED = """function(x) {
  start <- Sys.time()
  precision <- solve(cov(x))
  .GlobalEnv$.skggm_elapsed <- as.numeric(Sys.time() - start, units = "secs")
  list(precision = precision)
}"""


def r_elapsed() -> float:
    import rpy2.rinterface as ri

    return float(ri.evalr(".skggm_elapsed")[0])


def in_process(X: np.ndarray, repeats: int) -> list[float]:
    learner = RLearner(TIMED)
    learner.fit(X)  # the first fit parses the function
    overheads = []
    for _ in range(repeats):
        start = time.perf_counter()
        learner.fit(X)
        overheads.append(time.perf_counter() - start - r_elapsed())
    return overheads


def forked(X: np.ndarray, repeats: int) -> list[float]:
    learner = RLearner(TIMED)
    learner.fit(X)
    # As the harness's template does: R started and collected (start_r), and
    # Python's collector frozen, before any child is forked.
    start_r()
    gc.collect()
    gc.freeze()
    overheads = []
    for _ in range(repeats):
        read, write = os.pipe()
        start = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            fitted = RLearner(TIMED).fit(X)
            payload = pickle.dumps((fitted.precision_, r_elapsed()))
            with os.fdopen(write, "wb") as pipe:
                pipe.write(payload)
            os._exit(0)
        os.close(write)
        with os.fdopen(read, "rb") as pipe:
            _, elapsed = pickle.loads(pipe.read())
        overheads.append(time.perf_counter() - start - elapsed)
        os.waitpid(pid, 0)
    return overheads


def forked_numpy(X: np.ndarray, repeats: int) -> list[float]:
    """The same fork, work and answer with numpy's inverse: the fork's own cost."""
    overheads = []
    for _ in range(repeats):
        read, write = os.pipe()
        start = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            begin = time.perf_counter()
            precision = np.linalg.inv(np.cov(X, rowvar=False))
            payload = pickle.dumps((precision, time.perf_counter() - begin))
            with os.fdopen(write, "wb") as pipe:
                pipe.write(payload)
            os._exit(0)
        os.close(write)
        with os.fdopen(read, "rb") as pipe:
            _, elapsed = pickle.loads(pipe.read())
        overheads.append(time.perf_counter() - start - elapsed)
        os.waitpid(pid, 0)
    return overheads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    repeats = parser.parse_args().repeats
    reason = r_unavailable()
    if reason is not None:
        print(f"bench_r_learner: skipped: {reason}")
        return
    import rpy2.rinterface as ri

    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        ri.initr()
    print(f"R start-up (initr, once per process): {time.perf_counter() - start:.3f} s")
    print(f"{'p':>5} {'n':>5} {'setting':>13} {'median ms':>10} {'p90 ms':>8}")
    for p in (50, 500):
        X = np.random.default_rng(p).standard_normal((2 * p, p))
        settings = (
            ("in process", in_process),
            ("forked child", forked),
            ("forked numpy", forked_numpy),
        )
        for setting, measure in settings:
            values = sorted(measure(X, repeats))
            median = statistics.median(values) * 1e3
            p90 = values[int(0.9 * (len(values) - 1))] * 1e3
            print(f"{p:>5} {2 * p:>5} {setting:>13} {median:>10.2f} {p90:>8.2f}")


if __name__ == "__main__":
    main()
