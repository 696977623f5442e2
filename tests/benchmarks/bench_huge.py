"""Fit time of the huge-style learners against R huge 1.3.5, side by side (not a test).

Run from the repository root (needs R with huge and flare; ``R_LIBS`` names the
library that holds them if they are not in R's site library):

    [R_LIBS=<library>] .venv/bin/python tests/benchmarks/bench_huge.py \\
        [--repeats 7] [--rounds 2]

For p = 100 and 400 (n = 200) one data set (Gaussian, random sparse precision,
about 3 edges per node) is written to a temporary CSV read by both sides. Each
round times R (one ``Rscript`` process) and then Python on the same machine,
BLAS limited to one thread on both; the table gives the median over all rounds
and repeats. R is timed twice: the functions as shipped, which call ``gc()``
several times per fit (a full garbage collection of the R session, a large
share of their time), and with ``gc`` replaced by a no-op in their namespace
(``huge`` compute only). Ratios are R / Python: above 1, Python is faster.

The jobs (one fit at one penalty; the same penalty on both sides):
    mb     huge.mb(x, lambda, sym = "or")   NeighbourhoodSelection(lambda)
           at lambda_mid = max|r| / sqrt(10) (the middle of huge's default
           path) and at lambda_end = max|r| / 10 (its end)
    tiger  huge.tiger(x, sqrt(log p / n))   TIGER()
    ct     huge.ct(x, lambda_mid)           ThresholdedCorrelation(lambda_mid)
    clime  flare::sugm(x, sqrt(log p / n), method = "clime", standardize = TRUE)
                                            CLIME()  (huge has no CLIME;
                                            --clime-repeats times each)
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from skggm_bench.learners import (
    CLIME,
    TIGER,
    NeighbourhoodSelection,
    ThresholdedCorrelation,
)

R_SCRIPT = r"""
suppressMessages({library(huge); library(flare); library(jsonlite)})
args = commandArgs(trailingOnly = TRUE)
x = as.matrix(read.csv(args[1]))
repeats = as.integer(args[2]); clime_repeats = as.integer(args[3])
n = nrow(x); d = ncol(x)
r = abs(cor(x)); diag(r) = 0
lambda_mid = max(r) / sqrt(10); lambda_end = max(r) / 10; lambda_auto = sqrt(log(d) / n)
without_gc = function(f) {
  e = new.env(parent = environment(f)); e$gc = function(...) invisible(NULL)
  environment(f) = e; f
}
time_it = function(call, k = repeats) {
  median(replicate(k, system.time(call())[["elapsed"]]))
}
out = list()
for (shipped in c(TRUE, FALSE)) {
  wrap = if (shipped) identity else without_gc
  mb = wrap(huge.mb); tiger = wrap(huge.tiger); ct = wrap(huge.ct)
  tag = if (shipped) "_shipped" else "_no_gc"
  out[[paste0("mb_mid", tag)]] = time_it(
    function() mb(x, lambda = lambda_mid, sym = "or", verbose = FALSE))
  out[[paste0("mb_end", tag)]] = time_it(
    function() mb(x, lambda = lambda_end, sym = "or", verbose = FALSE))
  out[[paste0("tiger", tag)]] = time_it(
    function() tiger(x, lambda = lambda_auto, sym = "or", verbose = FALSE))
  out[[paste0("ct", tag)]] = time_it(
    function() ct(x, lambda = lambda_mid, verbose = FALSE))
}
out$clime_shipped = time_it(function() sugm(
  x, lambda = lambda_auto, method = "clime", standardize = TRUE, verbose = FALSE),
  clime_repeats)
out$r_setup = paste(
  R.version.string, "| huge", as.character(packageVersion("huge")),
  "| flare", as.character(packageVersion("flare")),
  "| BLAS", extSoftVersion()[["BLAS"]], "| LAPACK", La_library())
cat(toJSON(out, auto_unbox = TRUE, digits = NA))
"""


def sparse_gaussian_data(n_features: int, n_samples: int, seed: int) -> np.ndarray:
    """Gaussian rows whose unit-diagonal precision has a random sparse graph."""
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.random((n_features, n_features)) < 3.0 / n_features, 1)
    weights = (
        upper
        * rng.choice([-1.0, 1.0], upper.shape)
        * rng.uniform(0.2, 0.4, upper.shape)
    )
    weights = weights + weights.T
    smallest = np.linalg.eigvalsh(np.eye(n_features) - weights)[0]
    if smallest < 0.2:
        weights *= 0.8 / (1.0 - smallest)
    covariance = np.linalg.inv(np.eye(n_features) - weights)
    return rng.multivariate_normal(np.zeros(n_features), covariance, size=n_samples)


def python_times(X: np.ndarray, repeats: int, clime_repeats: int) -> dict:
    correlation = np.abs(np.corrcoef(X, rowvar=False))
    np.fill_diagonal(correlation, 0.0)
    lambda_mid, lambda_end = correlation.max() / np.sqrt(10), correlation.max() / 10
    jobs = {
        "mb_mid": lambda: NeighbourhoodSelection(lambda_mid, rule="or").fit(X),
        "mb_end": lambda: NeighbourhoodSelection(lambda_end, rule="or").fit(X),
        "tiger": lambda: TIGER().fit(X),
        "ct": lambda: ThresholdedCorrelation(lambda_mid).fit(X),
        "clime": lambda: CLIME().fit(X),
    }
    times = {}
    for name, job in jobs.items():
        samples = []
        for _ in range(clime_repeats if name == "clime" else repeats):
            start = time.perf_counter()
            job()
            samples.append(time.perf_counter() - start)
        times[name] = samples
    return times


def r_times(path: Path, repeats: int, clime_repeats: int) -> dict:
    # The caller's environment goes on to R (R_LIBS names the library holding
    # flare or huge when they are not in R's site library); only the thread
    # counts are pinned.
    environment = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    result = subprocess.run(
        ["Rscript", "-e", R_SCRIPT, str(path), str(repeats), str(clime_repeats)],
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--clime-repeats", type=int, default=2, help="flare takes a minute at p=400"
    )
    args = parser.parse_args()
    if shutil.which("Rscript") is None:
        print("Rscript not found: this comparison needs R with huge and flare.")
        return
    rows = []
    for n_features in (100, 400):
        X = sparse_gaussian_data(n_features, 200, seed=n_features)
        ours: dict = {}
        theirs: dict = {}
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "x.csv"
            np.savetxt(
                path,
                X,
                delimiter=",",
                header=",".join(f"v{j}" for j in range(n_features)),
                comments="",
            )
            for _ in range(args.rounds):
                timings = r_times(path, args.repeats, args.clime_repeats)
                setup = timings.pop("r_setup")
                for key, value in timings.items():
                    theirs.setdefault(key, []).append(value)
                with threadpool_limits(limits=1):
                    times = python_times(X, args.repeats, args.clime_repeats)
                    for key, values in times.items():
                        ours.setdefault(key, []).extend(values)
        for job in ("mb_mid", "mb_end", "tiger", "ct", "clime"):
            python = statistics.median(ours[job])
            shipped = statistics.median(theirs[f"{job}_shipped"])
            no_gc = theirs.get(f"{job}_no_gc")
            no_gc = statistics.median(no_gc) if no_gc else float("nan")
            rows.append((n_features, job, python, shipped, no_gc))
    print(f"R: {setup}")
    print(
        "| p | job | ours (s) | R as shipped (s) | ratio | R without gc() (s) | ratio |"
    )
    print("|---|---|---|---|---|---|---|")
    for p, job, python, shipped, no_gc in rows:
        print(
            f"| {p} | {job} | {python:.4f} | {shipped:.4f} | {shipped / python:.1f} | "
            f"{no_gc:.4f} | {no_gc / python:.1f} |"
        )


if __name__ == "__main__":
    main()
