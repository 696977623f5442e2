"""Fit time of the huge-style learners against R huge 1.3.5, side by side (not a test).

Run from the repository root (needs R with huge, and flare for the clime job;
``R_LIBS`` names the library that holds them if they are not in R's site
library):

    [R_LIBS=<library>] .venv/bin/python tests/benchmarks/bench_huge.py \\
        [--repeats 7] [--rounds 2] [--sizes 100 400] [--jobs mb_mid ...] \\
        [--clock cpu]

For each p of ``--sizes`` (default 100 and 400; n = 200) one data set
(Gaussian, random sparse precision, about 3 edges per node) is written to a
temporary CSV read by both sides. Each round times R (one ``Rscript``
process) and then Python on the same machine,
BLAS limited to one thread on both; the table gives the median over all rounds
and repeats. R is timed twice: the functions as shipped, which call ``gc()``
several times per fit (a full garbage collection of the R session, a large
share of their time), and with ``gc`` replaced by a no-op in their namespace
(``huge`` compute only). Ratios are R / Python: above 1, Python is faster.
``--clock wall`` (the default) times elapsed seconds, ``--clock cpu`` the CPU
seconds of the R process and of the Python process (user + system), the
steadier figure on a shared machine.

The jobs (one fit at one penalty; the same penalty on both sides):
    mb     huge.mb(x, lambda, sym = "or")   NeighbourhoodSelection(lambda)
           at lambda_mid = max|r| / sqrt(10) (the middle of huge's default
           path) and at lambda_end = max|r| / 10 (its end)
    mb_path  huge.mb(x, lambda = path, sym = "or") with huge's path of 30
           penalties from max|r| down to max|r| / 10 (log-spaced, as
           huge builds it with nlambda = 30, lambda.min.ratio = 0.1)
                                            NeighbourhoodSelection().adjacency_path
           The edges of both at every penalty are compared: the table's
           last line per p gives the pairs that differ over the whole path.
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
from skggm_bench.learners._active_set_lasso import nodewise_lasso_path

R_SCRIPT = r"""
args = commandArgs(trailingOnly = TRUE)
jobs = strsplit(args[4], ",")[[1]]; cpu = args[5] == "cpu"
suppressMessages({
  library(huge); library(jsonlite); if ("clime" %in% jobs) library(flare)
})
x = as.matrix(read.csv(args[1]))
repeats = as.integer(args[2]); clime_repeats = as.integer(args[3])
n = nrow(x); d = ncol(x)
r = abs(cor(x)); diag(r) = 0
lambda_mid = max(r) / sqrt(10); lambda_end = max(r) / 10; lambda_auto = sqrt(log(d) / n)
lambda_path = exp(seq(log(max(r)), log(max(r) / 10), length.out = 30))
without_gc = function(f) {
  e = new.env(parent = environment(f)); e$gc = function(...) invisible(NULL)
  environment(f) = e; f
}
seconds = function(call) {
  t = system.time(call())
  if (cpu) t[["user.self"]] + t[["sys.self"]] else t[["elapsed"]]
}
time_it = function(call, k = repeats) median(replicate(k, seconds(call)))
out = list()
for (shipped in c(TRUE, FALSE)) {
  wrap = if (shipped) identity else without_gc
  mb = wrap(huge.mb); tiger = wrap(huge.tiger); ct = wrap(huge.ct)
  tag = if (shipped) "_shipped" else "_no_gc"
  calls = list(
    mb_mid = function() mb(x, lambda = lambda_mid, sym = "or", verbose = FALSE),
    mb_end = function() mb(x, lambda = lambda_end, sym = "or", verbose = FALSE),
    mb_path = function() mb(x, lambda = lambda_path, sym = "or", verbose = FALSE),
    tiger = function() tiger(x, lambda = lambda_auto, sym = "or", verbose = FALSE),
    ct = function() ct(x, lambda = lambda_mid, verbose = FALSE))
  for (job in intersect(jobs, names(calls))) {
    out[[paste0(job, tag)]] = time_it(calls[[job]])
  }
}
if ("clime" %in% jobs) {
  out$clime_shipped = time_it(function() sugm(
    x, lambda = lambda_auto, method = "clime", standardize = TRUE, verbose = FALSE),
    clime_repeats)
}
if ("mb_path" %in% jobs) {
  path = huge.mb(x, lambda = lambda_path, sym = "or", verbose = FALSE)$path
  # Upper-triangle edges of every penalty, as 0-based linear indices i * d + j.
  out$mb_path_edges = lapply(path, function(a) {
    e = which(as.matrix(a) != 0 & upper.tri(a), arr.ind = TRUE)
    (e[, 1] - 1) * d + (e[, 2] - 1)
  })
}
out$r_setup = paste(
  R.version.string, "| huge", as.character(packageVersion("huge")),
  if ("clime" %in% jobs) paste("| flare", as.character(packageVersion("flare"))),
  "| BLAS", extSoftVersion()[["BLAS"]], "| LAPACK", La_library())
cat(toJSON(out, auto_unbox = TRUE, digits = NA))
"""


JOBS = ("mb_mid", "mb_end", "mb_path", "tiger", "ct", "clime")


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


def path_penalties(X: np.ndarray) -> np.ndarray:
    """huge's default path: 30 log-spaced penalties from max|r| to max|r| / 10."""
    correlation = np.abs(np.corrcoef(X, rowvar=False))
    np.fill_diagonal(correlation, 0.0)
    top = correlation.max()
    return np.exp(np.linspace(np.log(top), np.log(top / 10), 30))


def python_times(
    X: np.ndarray, repeats: int, clime_repeats: int, names: list, clock
) -> dict:
    correlation = np.abs(np.corrcoef(X, rowvar=False))
    np.fill_diagonal(correlation, 0.0)
    lambda_mid, lambda_end = correlation.max() / np.sqrt(10), correlation.max() / 10
    penalties = path_penalties(X)
    jobs = {
        "mb_mid": lambda: NeighbourhoodSelection(lambda_mid, rule="or").fit(X),
        "mb_end": lambda: NeighbourhoodSelection(lambda_end, rule="or").fit(X),
        "mb_path": lambda: NeighbourhoodSelection(rule="or").adjacency_path(
            X, penalties
        ),
        "tiger": lambda: TIGER().fit(X),
        "ct": lambda: ThresholdedCorrelation(lambda_mid).fit(X),
        "clime": lambda: CLIME().fit(X),
    }
    times = {}
    for name in names:
        samples = []
        for _ in range(clime_repeats if name == "clime" else repeats):
            start = clock()
            jobs[name]()
            samples.append(clock() - start)
        times[name] = samples
    return times


def path_differences(X: np.ndarray, r_edges: list) -> tuple[int, int, float]:
    """Pairs whose edge differs between ours and huge's, over the whole path.

    Returns the number of differing (penalty, pair) entries, of edges in
    huge's path, and the largest of our coefficients (``|b_ij|``, ``|b_ji|``,
    standardised units) at a differing pair: huge stops at a loose tolerance
    and may keep or drop a pair whose exact coefficients are tiny (see
    tests/learners/test_huge_agreement.py).
    """
    n_features = X.shape[1]
    penalties = path_penalties(X)
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    coef = nodewise_lasso_path(Z, penalties)
    ours = NeighbourhoodSelection(rule="or").adjacency_path(X, penalties)
    upper = np.triu(np.ones((n_features, n_features), dtype=bool), 1)
    differing = total = 0
    largest = 0.0
    for adjacency, edges, c in zip(ours, r_edges, coef, strict=True):
        theirs = np.zeros(n_features * n_features, dtype=bool)
        theirs[np.asarray(edges, dtype=np.intp)] = True
        theirs = theirs.reshape(n_features, n_features)
        differ = (adjacency != theirs) & upper
        differing += int(np.count_nonzero(differ))
        total += int(theirs.sum())
        size = np.maximum(np.abs(c), np.abs(c.T))[differ]
        largest = max(largest, float(size.max(initial=0.0)))
    return differing, total, largest


def r_times(
    path: Path, repeats: int, clime_repeats: int, names: list, clock_name: str
) -> dict:
    # The caller's environment goes on to R (R_LIBS names the library holding
    # flare or huge when they are not in R's site library); only the thread
    # counts are pinned.
    environment = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    result = subprocess.run(
        [
            "Rscript",
            "-e",
            R_SCRIPT,
            str(path),
            str(repeats),
            str(clime_repeats),
            ",".join(names),
            clock_name,
        ],
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
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 400])
    parser.add_argument("--jobs", nargs="+", choices=JOBS, default=list(JOBS))
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    args = parser.parse_args()
    clock = time.perf_counter if args.clock == "wall" else time.process_time
    if shutil.which("Rscript") is None:
        print("Rscript not found: this comparison needs R with huge and flare.")
        return
    rows = []
    differences = {}
    for n_features in args.sizes:
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
                timings = r_times(
                    path, args.repeats, args.clime_repeats, args.jobs, args.clock
                )
                setup = timings.pop("r_setup")
                edges = timings.pop("mb_path_edges", None)
                for key, value in timings.items():
                    theirs.setdefault(key, []).append(value)
                with threadpool_limits(limits=1):
                    times = python_times(
                        X, args.repeats, args.clime_repeats, args.jobs, clock
                    )
                    for key, values in times.items():
                        ours.setdefault(key, []).extend(values)
        if edges is not None:
            differences[n_features] = path_differences(X, edges)
        for job in args.jobs:
            python = statistics.median(ours[job])
            shipped = statistics.median(theirs[f"{job}_shipped"])
            no_gc = theirs.get(f"{job}_no_gc")
            no_gc = statistics.median(no_gc) if no_gc else float("nan")
            rows.append((n_features, job, python, shipped, no_gc))
    print(f"R: {setup}")
    print(f"clock: {args.clock}; load average at the end: {os.getloadavg()}")
    for p, (differing, total, largest) in differences.items():
        print(
            f"p = {p}: mb_path edges differing from huge's: {differing} of {total}"
            f" (our largest coefficient at a differing pair: {largest:.2e})"
        )
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
