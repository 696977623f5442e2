"""The methods preset's learners on its cells, this tree against a baseline.

Not a test. Run from the repository root:

    .venv/bin/python tests/benchmarks/bench_stars_preset.py [--baseline REV]

For each learner of the methods preset named (default ``mb_stars``, StARS over
``NeighbourhoodSelection``, and ``glasso_stars``, StandardScaler then StARS over
``GraphicalLasso(enet_tol=1e-6)``; the node-wise ``lasso`` and ``adalasso`` too)
and each generator, the learner, built from the preset as the harness builds it,
is fitted on the generator's cells (4 graphs x 3 sample sizes x ``--repeats``
repeats, drawn once here as the harness draws them and handed to every run),
each run in a fresh process with one BLAS thread. A learner whose
``random_state`` the preset leaves to ``None`` (the harness seeds it per cell)
gets the cell's index. With ``--baseline REV`` the package at git revision
``REV`` (exported with ``git archive``; or, when ``REV`` is a directory, the
tree there, e.g. a checkout whose compiled kernels are built) is run first, then
this tree's, back to back, ``--rounds`` times. Printed per learner, generator
and round: the CPU seconds of each (process time, summed over the cells), their
ratio, the longest single fit of each, and in how many cells the chosen
penalties, the selected edges and the edge scores (StARS: all edge frequencies;
others: the absolute partial correlations, or of the precision where there are
none, as for CLIME) are the same, with the largest relative difference of the
scores, and in how many the fit raised as many warnings; then the load average.
"""

import argparse
import io
import itertools
import os
import subprocess
import sys
import tarfile
import tempfile
import time

import numpy as np

GRAPHS = ("hub", "band", "cluster", "erdos_renyi")
SAMPLE_SIZES = (50, 100, 200)
GENERATORS = ("DiagonalDominance", "TriangulatedOrthogonalization")


def draw_cells(generator: str, repeats: int) -> dict[str, np.ndarray]:
    """The preset's data sets of ``generator``, named ``graph/n/repeat``."""
    from skggm_bench.benchmark.config import get_preset

    benchmark = get_preset("methods").make_benchmark()
    cells = {}
    for graph in GRAPHS:
        for n_samples in SAMPLE_SIZES:
            for repeat in range(repeats):
                try:
                    cell = benchmark.dataset(
                        generator,
                        graph=graph,
                        density=0.1,
                        n_samples=n_samples,
                        repeat=repeat,
                    )
                except ValueError:  # a fixed structure (hub) has its own density
                    cell = benchmark.dataset(
                        generator,
                        graph=graph,
                        density=None,
                        n_samples=n_samples,
                        repeat=repeat,
                    )
                cells[f"{graph}/{n_samples}/{repeat}"] = cell.X
    return cells


def fit_cells(learner_name: str, cells_path: str, out_path: str) -> None:
    """Worker: fit the preset's learner on every cell; save choices and CPU time."""
    import warnings

    from sklearn.base import clone
    from threadpoolctl import threadpool_limits

    import skggm_bench
    from skggm_bench.benchmark.config import get_preset

    learner = get_preset("methods").make_learners()[learner_name]
    seeded = learner.get_params().get("random_state", 0) is None
    cells = np.load(cells_path)
    results = {"package": skggm_bench.__file__}
    with threadpool_limits(limits=1):
        for index, name in enumerate(cells.files):
            estimator = clone(learner)
            if seeded:
                estimator.set_params(random_state=index)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                start = time.process_time()
                fitted = estimator.fit(cells[name])
                cpu = time.process_time() - start
            final = fitted[-1] if hasattr(fitted, "steps") else fitted
            edges = getattr(final, "adjacency_", None)
            if edges is None:
                edges = final.precision_ != 0
            edges = np.asarray(edges, dtype=bool)
            np.fill_diagonal(edges, False)
            scores = getattr(final, "edge_frequencies_", None)
            if scores is None:
                scores = getattr(final, "partial_correlation_", None)
            if scores is None:  # CLIME: its precision's entries
                scores = final.precision_
            scores = np.abs(scores)
            results[f"{name}/cpu"] = cpu
            results[f"{name}/alpha"] = final.alpha_
            results[f"{name}/edges"] = edges
            results[f"{name}/scores"] = scores
            results[f"{name}/warnings"] = len(caught)
    np.savez(out_path, **results)


def run_worker(tree: str | None, learner: str, cells_path: str, out_path: str):
    """Run :func:`fit_cells` in a fresh process, importing the package from ``tree``."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            [tree, *filter(None, [os.environ.get("PYTHONPATH")])]
        )
    command = [sys.executable, __file__, "--worker", learner, cells_path, out_path]
    subprocess.run(command, env=env, check=True)
    return np.load(out_path)


def export_package(revision: str, folder: str) -> str:
    """Extract ``skggm_bench`` at git ``revision`` under ``folder``; return it."""
    archive = subprocess.run(
        ["git", "archive", revision, "skggm_bench"], check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        # The "data" filter where this Python has it (3.11.4 and later).
        options = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        tar.extractall(folder, **options)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", metavar="REV", default=None)
    parser.add_argument("--learners", default="mb_stars,glasso_stars")
    parser.add_argument("--generators", default=",".join(GENERATORS))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        fit_cells(*args.worker)
        return
    print(f"load average at the start: {os.getloadavg()}")
    print(
        f"| learner | generator | round | cells | {args.baseline or 'baseline'} "
        "CPU (s) | this tree CPU (s) | ratio | longest fit baseline / this tree (s) "
        "| same penalties | same edges | same edge scores | largest relative "
        "score difference | same number of warnings |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    totals = np.zeros(2)
    with tempfile.TemporaryDirectory() as folder:
        baseline = None
        if args.baseline is not None and os.path.isdir(args.baseline):
            baseline = os.path.abspath(args.baseline)
        elif args.baseline is not None:
            baseline = export_package(args.baseline, os.path.join(folder, "baseline"))
        for generator in args.generators.split(","):
            cells_path = os.path.join(folder, f"{generator}.npz")
            cells = draw_cells(generator, args.repeats)
            np.savez(cells_path, **cells)
            for learner, round_ in itertools.product(
                args.learners.split(","), range(1, args.rounds + 1)
            ):
                if baseline is not None:
                    old = run_worker(
                        baseline, learner, cells_path, os.path.join(folder, "old.npz")
                    )
                    if not str(old["package"]).startswith(baseline):
                        sys.exit(f"the baseline run imported {old['package']}")
                new = run_worker(
                    None, learner, cells_path, os.path.join(folder, "new.npz")
                )
                if baseline is None:
                    cpu = np.array([new[f"{c}/cpu"] for c in cells])
                    totals[1] += cpu.sum()
                    print(
                        f"| {learner} | {generator} | {round_} | {len(cells)} | | "
                        f"{cpu.sum():.1f} | | {cpu.max():.2f} | | | | | |",
                        flush=True,
                    )
                    continue
                cpu = np.array([[old[f"{c}/cpu"], new[f"{c}/cpu"]] for c in cells])
                same = {
                    key: sum(
                        np.array_equal(old[f"{c}/{key}"], new[f"{c}/{key}"])
                        for c in cells
                    )
                    for key in ("alpha", "edges", "scores", "warnings")
                }
                difference = max(
                    relative_difference(old[f"{c}/scores"], new[f"{c}/scores"])
                    for c in cells
                )
                totals += cpu.sum(axis=0)
                old_cpu, new_cpu = cpu.sum(axis=0)
                print(
                    f"| {learner} | {generator} | {round_} | {len(cells)} | "
                    f"{old_cpu:.1f} | {new_cpu:.1f} | {old_cpu / new_cpu:.2f}x | "
                    f"{cpu[:, 0].max():.2f} / {cpu[:, 1].max():.2f} | "
                    f"{same['alpha']} | {same['edges']} | {same['scores']} | "
                    f"{difference:.1e} | {same['warnings']} |",
                    flush=True,
                )
    ratio = f"{totals[0] / totals[1]:.2f}x" if totals[0] else ""
    print(f"| all | | | | {totals[0]:.1f} | {totals[1]:.1f} | {ratio} | | | | | | |")
    print(f"load average at the end: {os.getloadavg()}")


def relative_difference(old: np.ndarray, new: np.ndarray) -> float:
    """Largest ``|old - new|`` relative to the largest ``|old|`` (0 when both are 0)."""
    scale = np.abs(old).max()
    return float(np.abs(old - new).max() / scale) if scale > 0 else 0.0


if __name__ == "__main__":
    main()
