"""``skggm-bench publish`` on a 100,000-row store: CPU time, page size, first paint.

Run from the repository root (not a test):

    .venv/bin/python tests/benchmarks/bench_publish.py [--rows N] [--report-figures]

A synthetic store of the result schema (4 generators, 2 graphs, 2 data models,
p = 20 and 50, 3 densities, 4 sample sizes, 20 repeats, 13 learners: 99,840 rows,
metrics f1, tpr, ppv drawn at random, 2% failed fits with messages) is
published with the command's defaults (or with the full report's figures,
``--report-figures``) into a new site, on one BLAS thread.
Printed: the CPU seconds of the publication (this process and its children),
the size of the study page and of its chart data, the size of the site's one
plotly.min.js, and the first contentful paint of the study page in headless
Chromium from file:// (the median of three loads).
"""

import argparse
import json
import re
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from skggm_bench.benchmark.publish import publish
from skggm_bench.benchmark.results.store import ResultStore

PAINT = """
<script>
window.addEventListener("load", function () {
  setTimeout(function () {
    var paint = performance.getEntriesByName("first-contentful-paint")[0];
    var out = document.createElement("pre");
    out.id = "paint";
    out.textContent = paint ? String(paint.startTime) : "none";
    document.body.appendChild(out);
  }, 100);
});
</script>
"""


def make_store(path: Path, n_rows: int) -> int:
    rng = np.random.default_rng(0)
    generators = ["DiagonalDominance", "TriangulatedOrthogonalization", "G3", "G4"]
    graphs, models = ["erdos_renyi", "hub"], ["gaussian", "t"]
    learners = [f"learner_{i:02d}" for i in range(13)]
    grid = [
        (g, gr, m, p, d, n, r)
        for g in generators
        for gr in graphs
        for m in models
        for p in (20, 50)
        for d in (0.05, 0.1, 0.2)
        for n in (50, 100, 200, 400)
        for r in range(20)
    ]
    grid = grid[: max(1, n_rows // len(learners))]
    study = {
        "generators": {g: {"class": f"x.{g}", "params": {}} for g in generators},
        "graph": {g: {"family": g} for g in graphs},
        "data_models": {m: None for m in models},
        "learners": {
            name: {"class": "sklearn.covariance.GraphicalLasso", "params": {}}
            for name in learners
        },
        "metrics": ["f1", "tpr", "ppv"],
        "densities": [0.05, 0.1, 0.2],
        "n_features": [20, 50],
        "n_samples": [50, 100, 200, 400],
        "n_repeats": 20,
        "model": "concentration",
        "entropy": 0,
        "seeding": "cells-v3",
        "timeout": None,
        "memory_limit": None,
    }
    versions = json.dumps({"scikit-learn": "1.6.1", "skggm-bench": "0.1.0"})
    rows = []
    for seed, (g, gr, m, p, d, n, r) in enumerate(grid):
        for i, learner in enumerate(learners):
            failed = rng.random() < 0.02
            score = None if failed else float(np.clip(rng.normal(0.3 + 0.03 * i), 0, 1))
            rows.append(
                {
                    "generator": g,
                    "graph": gr,
                    "data_model": m,
                    "learner": learner,
                    "density": d,
                    "n_features": p,
                    "n_samples": n,
                    "repeat": r,
                    "seed": seed,
                    "data_hash": f"{seed:032x}",
                    "f1": score,
                    "tpr": score,
                    "ppv": score,
                    "fit_time": float(rng.random()),
                    "status": "failed" if failed else "ok",
                    "message": "FloatingPointError: not SPD" if failed else "",
                    "n_warnings": 0,
                    "versions": versions,
                }
            )
    with ResultStore(path) as store:
        store.ensure_study(study)
        store.append(rows)
        return len(store)


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def first_paint(page: Path, profile: Path) -> float:
    probe = page.with_name("paint.html")
    probe.write_text(page.read_text().replace("</body>", f"{PAINT}</body>"))
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    done = subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            f"--user-data-dir={profile}",
            "--window-size=1300,1000",
            "--virtual-time-budget=10000",
            "--dump-dom",
            probe.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    probe.unlink()
    found = re.search(r'<pre id="paint">([^<]*)</pre>', done.stdout)
    return float(found.group(1)) / 1000 if found else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--report-figures", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        store = tmp / "large.sqlite"
        n_rows = make_store(store, args.rows)
        start, wall = cpu_seconds(), time.perf_counter()
        with threadpool_limits(1):
            publish([store], tmp / "site", report_figures=args.report_figures)
        cpu, wall = cpu_seconds() - start, time.perf_counter() - wall
        page = tmp / "site" / "studies" / "large" / "v1" / "index.html"
        text = page.read_text()
        data = re.search(r'id="chart-data">(.*?)</script>', text, re.S).group(1)
        plotly = (tmp / "site" / "assets" / "plotly.min.js").stat().st_size
        paints = [first_paint(page, tmp / f"profile{i}") for i in range(3)]
        print(f"rows: {n_rows}")
        print(f"publish: {cpu:.1f} s CPU ({wall:.1f} s wall)")
        print(
            f"study page: {len(text.encode()) / 1e6:.2f} MB, of which chart data "
            f"{len(data.encode()) / 1e6:.2f} MB; plotly.min.js (once per site): "
            f"{plotly / 1e6:.2f} MB"
        )
        print(
            f"first contentful paint: {statistics.median(paints):.2f} s "
            f"(median of {', '.join(f'{p:.2f}' for p in paints)})"
        )


if __name__ == "__main__":
    main()
