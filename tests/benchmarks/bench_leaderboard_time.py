"""Time to a leaderboard: the methods preset at two revisions, alternately (not a test).

Run from the repository root (the compiled kernel built in place first):

    .venv/bin/python tests/benchmarks/bench_leaderboard_time.py \\
        --baseline b7afb3a --pairs 3 --n-jobs 2 --keep /tmp/leaderboard

The package at git revision ``--baseline`` and at ``--head`` (default ``HEAD``,
with the compiled kernels built in place here copied in where their source is the
same) is exported with ``git archive``, so the working tree may change meanwhile,
and the methods preset (``--repeats`` repeats per cell: 3, as the preset had at b7afb3a,
864 fits) is run with one and the same command, ``skggm-bench run --config
FILE.toml --n-jobs N``, at the baseline and at the head, alternately (baseline
first), ``--pairs`` times, each run in a fresh process with one BLAS thread and
its own store. Printed per run: the load average before and after it, its wall
time, the summed ``fit_time`` of the learners the package implements, that of
scikit-learn's ``GraphicalLassoCV`` (``glasso_cv``) apart, and the learners that
cost the most; then, per side, the medians; then the rows of the first baseline
store against the first store of the head: the same keys, and per metric how many
rows are equal, differ by at most ``1e-9``, or differ more, with the learners
whose rows differ. ``--compare OLD NEW`` prints only that comparison (and the fit
times) for two stores kept by ``--keep``.
"""

import argparse
import io
import math
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRESET = "skggm_bench/benchmark/presets/methods.toml"
#: The preset's learner that scikit-learn implements; every other one is ours.
SKLEARN_LEARNERS = ("glasso_cv",)
KEY = (
    "generator",
    "graph",
    "data_model",
    "learner",
    "density",
    "n_features",
    "n_samples",
    "repeat",
)
#: Columns that are measured, not computed: never compared.
MEASURED = ("fit_time", "versions", "n_warnings", "message")
CLOSE = 1e-9


def study_file(revision: str, repeats: int, folder: str) -> str:
    """The methods preset at ``revision``, ``repeats`` repeats per cell, as TOML."""
    preset = subprocess.run(
        ["git", "show", f"{revision}:{PRESET}"],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    ).stdout
    text, count = re.subn(r"(?m)^n_repeats = \d+$", f"n_repeats = {repeats}", preset)
    if count != 1:
        sys.exit(f"{PRESET} has no single 'n_repeats = N' line")
    path = os.path.join(folder, "methods.toml")
    Path(path).write_text(text)
    return path


def export_package(revision: str, folder: str) -> str:
    """Extract ``skggm_bench`` at git ``revision`` under ``folder``; return it.

    A compiled module built in place here is copied in where the export has the
    same Cython source (a revision without that source gets none).
    """
    archive = subprocess.run(
        ["git", "archive", revision, "skggm_bench"],
        check=True,
        capture_output=True,
        cwd=ROOT,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        # The "data" filter where this Python has it (3.11.4 and later).
        options = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        tar.extractall(folder, **options)
    for source in Path(folder).rglob("*.pyx"):
        here = ROOT / source.relative_to(folder)
        built = list(here.parent.glob(here.stem + ".*.so"))
        if not built or here.read_bytes() != source.read_bytes():
            sys.exit(
                f"{revision} has {here.name}: build it here first "
                "(python setup.py build_ext --inplace) at that revision"
            )
        shutil.copy2(built[0], source.parent)
    return folder


def run_study(tree: str, study: str, store: str, n_jobs: int) -> dict:
    """Run ``study`` with the package of ``tree`` into ``store``; time and load."""
    env = dict(
        os.environ,
        PYTHONPATH=tree,
        OPENBLAS_NUM_THREADS="1",
        OMP_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
    )
    check = [sys.executable, "-c", "import skggm_bench; print(skggm_bench.__file__)"]
    imported = subprocess.run(check, env=env, check=True, capture_output=True, cwd=tree)
    if not imported.stdout.decode().startswith(tree):
        sys.exit(f"the run from {tree} imports {imported.stdout.decode().strip()}")
    command = [sys.executable, "-m", "skggm_bench.cli", "run", "--config", study]
    command += ["--store", store, "--n-jobs", str(n_jobs), "--no-progress"]
    load_before = os.getloadavg()
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL, cwd=tree)
    wall = time.perf_counter() - start
    return {"wall": wall, "load": (load_before, os.getloadavg()), "store": store}


def read_rows(store: str) -> dict[tuple, dict]:
    """Every row of ``store``, by key."""
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as connection:
        connection.row_factory = sqlite3.Row
        rows = connection.execute("SELECT * FROM results").fetchall()
    return {tuple(row[name] for name in KEY): dict(row) for row in rows}


def fit_times(rows: dict[tuple, dict]) -> dict[str, float]:
    """Summed ``fit_time`` per learner."""
    sums: dict[str, float] = {}
    for row in rows.values():
        sums[row["learner"]] = sums.get(row["learner"], 0.0) + row["fit_time"]
    return sums


def same(a, b) -> str:
    """``"equal"``, ``"close"`` (within ``CLOSE``) or ``"different"``."""
    if a == b or (
        isinstance(a, float)
        and isinstance(b, float)
        and math.isnan(a)
        and math.isnan(b)
    ):
        return "equal"
    if isinstance(a, float | int) and isinstance(b, float | int):
        if abs(a - b) <= CLOSE * max(1.0, abs(a), abs(b)):
            return "close"
    return "different"


def compare(old: dict[tuple, dict], new: dict[tuple, dict]) -> None:
    """Print how the rows of two stores of one study agree."""
    if old.keys() != new.keys():
        print(
            f"keys differ: {len(old.keys() - new.keys())} only at the baseline, "
            f"{len(new.keys() - old.keys())} only here"
        )
    keys = sorted(old.keys() & new.keys(), key=str)
    columns = [c for c in next(iter(old.values())) if c not in KEY + MEASURED]
    print(f"\n{len(keys)} rows with the same key on both sides")
    print("| column | equal | within 1e-9 | different | learners of the different |")
    print("|---|---|---|---|---|")
    for column in columns:
        counts = {"equal": 0, "close": 0, "different": 0}
        learners: dict[str, int] = {}
        for key in keys:
            verdict = same(old[key][column], new[key][column])
            counts[verdict] += 1
            if verdict == "different":
                learner = old[key]["learner"]
                learners[learner] = learners.get(learner, 0) + 1
        named = ", ".join(f"{name} {n}" for name, n in sorted(learners.items()))
        print(
            f"| {column} | {counts['equal']} | {counts['close']} | "
            f"{counts['different']} | {named} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", metavar="REV", default="b7afb3a")
    parser.add_argument("--head", metavar="REV", default="HEAD")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--keep", metavar="DIR", help="write the stores here rather than to a temp dir"
    )
    parser.add_argument(
        "--compare",
        nargs=2,
        metavar=("OLD", "NEW"),
        help="only compare the rows of two stores (e.g. kept by --keep) and exit",
    )
    args = parser.parse_args()
    if args.compare:
        old, new = (read_rows(store) for store in args.compare)
        for store, rows in zip(args.compare, (old, new), strict=True):
            sums = fit_times(rows)
            ours = sum(t for n, t in sums.items() if n not in SKLEARN_LEARNERS)
            named = ", ".join(f"{n} {t:.1f}" for n, t in sorted(sums.items()))
            print(f"{store}: {len(rows)} rows, fit_time ours {ours:.1f} s; {named}")
        compare(old, new)
        return
    head = subprocess.run(
        ["git", "rev-parse", "--short", args.head],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    ).stdout.strip()
    with tempfile.TemporaryDirectory() as folder:
        stores = args.keep or folder
        os.makedirs(stores, exist_ok=True)
        study = study_file(args.head, args.repeats, folder)
        sides = {
            args.baseline: export_package(
                args.baseline, os.path.join(folder, "baseline")
            ),
            head: export_package(args.head, os.path.join(folder, "head")),
        }
        print(f"n_jobs {args.n_jobs}, one BLAS thread, {args.repeats} repeats")
        print(
            "| run | code | load before / after (1, 5, 15 min) | wall (s) | "
            "fit_time, ours (s) | glasso_cv (s) | costliest of ours (s) |"
        )
        print("|---|---|---|---|---|---|---|")
        results: dict[str, list] = {side: [] for side in sides}
        for pair in range(args.pairs):
            for index, (side, tree) in enumerate(sides.items()):
                store = os.path.join(stores, f"pair{pair + 1}-{index}.sqlite")
                if os.path.exists(store):
                    sys.exit(f"{store} exists: the runs need fresh stores")
                run = run_study(tree, study, store, args.n_jobs)
                rows = read_rows(store)
                sums = fit_times(rows)
                ours = sum(t for n, t in sums.items() if n not in SKLEARN_LEARNERS)
                sklearn = sum(t for n, t in sums.items() if n in SKLEARN_LEARNERS)
                costliest = sorted(
                    (t, n) for n, t in sums.items() if n not in SKLEARN_LEARNERS
                )[::-1][:4]
                results[side].append((run["wall"], ours, sklearn, rows))
                loads = " / ".join(
                    ", ".join(f"{x:.1f}" for x in load) for load in run["load"]
                )
                top = ", ".join(f"{n} {t:.0f}" for t, n in costliest)
                print(
                    f"| {2 * pair + index + 1} | {side} | {loads} | "
                    f"{run['wall']:.0f} | "
                    f"{ours:.0f} | {sklearn:.0f} | {top} |",
                    flush=True,
                )
        print(
            "\n| code | median wall (s) | median fit_time, ours (s) | glasso_cv (s) |"
        )
        print("|---|---|---|---|")
        for side, runs in results.items():
            walls, ours, sklearn, _ = zip(*runs, strict=True)
            print(
                f"| {side} | {statistics.median(walls):.0f} | "
                f"{statistics.median(ours):.0f} | {statistics.median(sklearn):.0f} |"
            )
        per_side = {
            side: [fit_times(run[3]) for run in runs] for side, runs in results.items()
        }
        (old_name, old_sums), (new_name, new_sums) = per_side.items()
        print(
            f"\n| learner | {old_name}, median (s) | {new_name}, median (s) | ratio |"
        )
        print("|---|---|---|---|")
        for learner in sorted(old_sums[0], key=lambda n: -old_sums[0][n]):
            old_time = statistics.median(sums[learner] for sums in old_sums)
            new_time = statistics.median(sums.get(learner, 0.0) for sums in new_sums)
            ratio = old_time / new_time if new_time else math.inf
            print(f"| {learner} | {old_time:.1f} | {new_time:.1f} | {ratio:.2f}x |")
        old, new = (runs[0][3] for runs in results.values())
        compare(old, new)


if __name__ == "__main__":
    main()
