"""ExactGraphicalLasso against scikit-learn, skglm, gglasso side by side (not a test).

Run from the repository root, one BLAS thread everywhere:

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 .venv/bin/python \\
        tests/benchmarks/bench_glasso_exact.py [--sizes 100 300 1000 2000] \\
        [--cap 60] [--cap-large 120] [--baseline REV]

Data: the project's generators, n = 1000 samples, columns standardised (``S``
is the sample correlation), at p = 100, 300, 1000 and 2000:

    er  make_ggm(graph="erdos_renyi", density=4 / p), the default generator
    to  make_ggm(graph="erdos_renyi", density=10 / p,
                 generator=TriangulatedOrthogonalization()) (denser, and its
                 triangulated precision is dense)

The penalty is the 97th percentile of the ``|S_ij|`` (i < j), which leaves
about 2-3 % of the pairs in the solution (the table gives the density). Every
solver gets the same ``S`` (precomputed) and penalty, and runs in its own
process with its CPU time limited (``RLIMIT_CPU``) to ``--cap`` seconds
(``--cap-large`` at p = 2000); a solver over the cap is reported as ``> cap``
and not run at larger p for that data. Each runs to a tight tolerance so that
it reaches the objective of ExactGraphicalLasso within 1e-6 relative (the
table gives each objective's relative excess and says when it does not):

    exact    skggm_bench ExactGraphicalLasso(alpha, covariance="precomputed")
    sklearn  sklearn.covariance.GraphicalLasso(alpha, covariance="precomputed",
             tol=1e-7, enet_tol=1e-8, max_iter=1000)
    skglm    skglm.covariance.GraphicalLasso(alpha, tol=1e-8, inner_tol=1e-8,
             max_iter=1000).fit(S, mode="precomputed")
    gglasso  gglasso block_SGL(S, alpha, Omega_0=I, tol=1e-8, rtol=1e-8,
             max_iter=100000), its sparse iterate "Theta"

``--baseline REV`` adds ``graphical_lasso_path`` as it was at commit ``REV``
(e.g. 9a0fabe, before the sparse products), called directly on ``S``.

    quic     skggm 0.2.8's compiled QUIC (``quic`` above), tol=1e-8,
             max_iter=10000

skggm 0.2.8 builds only without build isolation (its setup imports Cython
without declaring it; see pyproject.toml's ``compat`` extra), e.g. in a
virtual environment of its own, whose package folder then goes on
``PYTHONPATH``:

    python -m venv /tmp/qv && /tmp/qv/bin/pip install "cython<3" numpy
    /tmp/qv/bin/pip install --no-build-isolation --no-deps skggm==0.2.8
    mkdir /tmp/quicpkg
    cp -r /tmp/qv/lib/python3.*/site-packages/inverse_covariance /tmp/quicpkg/

Without it the ``quic`` rows say that it is not installed.

Objective: ``-log det K + tr(S K) + alpha sum_{i != j} |K_ij|`` of the
returned precision (``inf`` when it is not positive definite), computed here
for every solver alike. Times are the solver process's CPU seconds
(``time.process_time`` around the fit, after a first fit of the leading 20 x 20
block of ``S`` has done the imports and skglm's just-in-time compilation) and
wall seconds, means over ``--repeats`` fits timed together (default 1: a fit
of milliseconds wants more, as the CPU clock advances in steps of a few
milliseconds here); the load average is printed with each size.
"""

import argparse
import itertools
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

SOLVERS = ("exact", "sklearn", "skglm", "gglasso", "quic")
RELATIVE_GAP = 1e-6


def make_covariance(case: str, p: int) -> np.ndarray:
    """The sample correlation of 1000 draws of the case's model (seed 0)."""
    from skggm_bench.datasets import make_ggm
    from skggm_bench.generators import TriangulatedOrthogonalization

    if case == "er":
        data = make_ggm(1000, p, graph="erdos_renyi", density=4 / p, random_state=0)
    else:
        data = make_ggm(
            1000,
            p,
            graph="erdos_renyi",
            density=10 / p,
            generator=TriangulatedOrthogonalization(),
            random_state=0,
        )
    X = data.X - data.X.mean(axis=0)
    X /= X.std(axis=0)
    S = X.T @ X / X.shape[0]
    return 0.5 * (S + S.T)


def fit(solver: str, S: np.ndarray, alpha: float) -> np.ndarray:
    """The precision each solver returns for ``(S, alpha)``."""
    p = S.shape[0]
    if solver.startswith("baseline="):
        from _git_revision import module_at

        module = module_at(
            solver.split("=", 1)[1], "skggm_bench/learners/_glasso_path.py"
        )
        return module.graphical_lasso_path(S, [alpha])[0][0]
    if solver == "exact":
        from skggm_bench.learners import ExactGraphicalLasso

        model = ExactGraphicalLasso(alpha=alpha, covariance="precomputed")
        return model.fit(S).precision_
    if solver == "sklearn":
        from sklearn.covariance import GraphicalLasso

        model = GraphicalLasso(
            alpha=alpha,
            covariance="precomputed",
            tol=1e-7,
            enet_tol=1e-8,
            max_iter=1000,
        )
        return model.fit(S).precision_
    if solver == "skglm":
        from skglm.covariance import GraphicalLasso

        model = GraphicalLasso(alpha=alpha, tol=1e-8, inner_tol=1e-8, max_iter=1000)
        return model.fit(S, mode="precomputed").precision_
    if solver == "quic":
        return quic(S, alpha)
    from gglasso.solver.single_admm_solver import block_SGL

    solution = block_SGL(
        S, alpha, Omega_0=np.eye(p), tol=1e-8, rtol=1e-8, max_iter=100_000
    )
    return solution["Theta"]


def quic(S: np.ndarray, alpha: float) -> np.ndarray:
    """skggm 0.2.8's compiled QUIC (Hsieh et al.'s C++), called directly.

    skggm's Python package no longer imports with scikit-learn 1.x (it imports
    ``sklearn.utils.testing``), so its extension module is loaded from the
    installed package's folder without running the package's ``__init__``; the
    call is the one skggm's ``quic()`` makes, with the diagonal unpenalised as in
    the other solvers' objective.
    """
    import importlib.machinery
    import importlib.util

    package = importlib.util.find_spec("inverse_covariance")
    if package is None:
        raise ImportError("skggm (inverse_covariance) is not installed")
    [path] = Path(package.submodule_search_locations[0]).glob("pyquic/pyquic*.so")
    loader = importlib.machinery.ExtensionFileLoader("pyquic", str(path))
    pyquic = importlib.util.module_from_spec(
        importlib.util.spec_from_loader("pyquic", loader)
    )
    loader.exec_module(pyquic)
    p = S.shape[0]
    penalty = np.full((p, p), alpha)
    np.fill_diagonal(penalty, 0.0)
    theta, sigma = np.eye(p), np.eye(p)
    opt, cputime, gap = np.zeros(1), np.zeros(1), np.zeros(1)
    iters = np.zeros(1, dtype=np.uint32)
    S = np.ascontiguousarray(S)
    pyquic.quic(b"default", p, S, penalty, 1, np.empty(1), 1e-8, 0, 10_000, theta,
                sigma, opt, cputime, iters, gap)  # fmt: skip
    return theta


def worker(solver: str, directory: str, alpha: float, repeats: int) -> None:
    """Fit one solver on the saved ``S``; save its precision and mean times.

    The mean over ``repeats`` fits timed together: this machine's CPU clock of a
    process advances in steps of a few milliseconds, so a fit of milliseconds
    timed alone reads as 0 or one step.
    """
    S = np.load(Path(directory) / "S.npy")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # max_iter chatter: the objective tells
        # Imports and just-in-time compilation (skglm's numba) are not timed:
        # a first fit on a small problem of the same kind.
        fit(solver, S[:20, :20], alpha)
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(repeats):
            K = fit(solver, S, alpha)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    np.save(Path(directory) / f"K_{solver.split('=')[0]}.npy", K)
    print(json.dumps({"cpu": cpu / repeats, "wall": wall / repeats}))


def objective(S: np.ndarray, K: np.ndarray, alpha: float) -> float:
    sign, log_det = np.linalg.slogdet(K)
    if sign <= 0 or not np.all(np.linalg.eigvalsh(0.5 * (K + K.T)) > 0):
        return np.inf
    off = ~np.eye(S.shape[0], dtype=bool)
    return float(-log_det + np.sum(S * K) + alpha * np.abs(K[off]).sum())


def run(solver: str, directory: str, alpha: float, cap: int, repeats: int) -> dict:
    """One solver in a fresh process, CPU-limited to ``cap`` seconds."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (cap, cap + 5))

    command = [sys.executable, __file__, "--worker", solver, directory, repr(alpha),
               str(repeats)]  # fmt: skip
    done = subprocess.run(
        command, capture_output=True, text=True, preexec_fn=limit, check=False
    )
    if done.returncode != 0:
        killed = done.returncode in (-24, -9)  # SIGXCPU, SIGKILL: over the cap
        return {"status": f"> {cap} s" if killed else done.stderr.strip()[-200:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 300, 1000, 2000])
    parser.add_argument("--cases", nargs="+", default=["er", "to"])
    parser.add_argument("--solvers", nargs="+", default=list(SOLVERS))
    parser.add_argument("--cap", type=int, default=60)
    parser.add_argument("--cap-large", type=int, default=120)
    parser.add_argument("--baseline", help="also time the path solver at this commit")
    parser.add_argument(
        "--repeats",
        type=int,
        default=1,
        help="fits per solver and size, timed together; the times are their "
        "means (use more where a fit takes milliseconds)",
    )
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.baseline:
        args.solvers.append(f"baseline={args.baseline}")
    if args.worker:
        solver, directory, alpha, repeats = args.worker
        worker(solver, directory, float(alpha), int(repeats))
        return
    print(
        "| case | p | alpha | density | load | solver | CPU s | wall s "
        "| objective | excess | ratio |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    dropped: dict[tuple[str, str], str] = {}
    ours: dict[tuple[str, int], float] = {}
    for p in args.sizes:
        cap = args.cap_large if p >= 2000 else args.cap
        for case in args.cases:
            S = make_covariance(case, p)
            alpha = float(np.quantile(np.abs(S[np.triu_indices(p, 1)]), 0.97))
            with tempfile.TemporaryDirectory() as directory:
                np.save(Path(directory) / "S.npy", S)
                results = {}
                for solver in args.solvers:
                    load = os.getloadavg()[0]
                    if (case, solver) in dropped:
                        results[solver] = {
                            "status": dropped[case, solver],
                            "load": load,
                        }
                        continue
                    result = run(solver, directory, alpha, cap, args.repeats)
                    result["load"] = load
                    path = Path(directory) / f"K_{solver.split('=')[0]}.npy"
                    if "cpu" in result:
                        K = np.load(path)
                        result["objective"] = objective(S, K, alpha)
                        result["density"] = (np.count_nonzero(K) - p) / (p * (p - 1))
                    else:
                        dropped[case, solver] = f"{result['status']} at p = {p}"
                    results[solver] = result
            best = results["exact"].get("objective", np.nan)
            ours[case, p] = results["exact"].get("cpu", np.nan)
            density = results["exact"].get("density", np.nan)
            for solver, result in results.items():
                if "cpu" in result:
                    excess = (result["objective"] - best) / abs(best)
                    reached = excess <= RELATIVE_GAP
                    cpu = f"{result['cpu']:.3g}"
                    wall = f"{result['wall']:.3g}"
                    value = f"{result['objective']:.10g}"
                    gap = f"{excess:.1e}" + ("" if reached else " (not reached)")
                    ratio = f"{result['cpu'] / ours[case, p]:.1f}x"
                else:
                    cpu, wall, value, gap, ratio = result["status"], "", "", "", ""
                print(
                    f"| {case} | {p} | {alpha:.4f} | {density:.2%} | "
                    f"{result['load']:.1f} | {solver} | {cpu} | {wall} | {value} | "
                    f"{gap} | {ratio} |",
                    flush=True,
                )
    for case in args.cases:
        sizes = [p for p in args.sizes if (case, p) in ours]
        for a, b in itertools.pairwise(sizes):
            slope = np.log(ours[case, b] / ours[case, a]) / np.log(b / a)
            print(f"{case}: slope of exact's CPU from p = {a} to {b}: {slope:.2f}")
        if 300 in sizes and 2000 in sizes:
            slope = np.log(ours[case, 2000] / ours[case, 300]) / np.log(2000 / 300)
            print(f"{case}: slope from p = 300 to 2000: {slope:.2f}")


if __name__ == "__main__":
    main()
