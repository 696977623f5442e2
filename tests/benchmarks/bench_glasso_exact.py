"""ExactGraphicalLasso against R's glassoFast and glasso, scikit-learn, skglm,
gglasso and QUIC side by side.

Not a test. Run from the repository root, one BLAS thread everywhere:

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 .venv/bin/python \\
        tests/benchmarks/bench_glasso_exact.py [--sizes 100 300 1000 2000] \\
        [--densities 0.01 0.02] [--solvers exact glassofast glasso sklearn] \\
        [--repeats N] [--cap 60] [--cap-large 120] [--baseline REV] [--path]

Data: the project's generators, n = 1000 samples, columns standardised (``S``
is the sample correlation), at p = 100, 300, 1000 and 2000:

    er  make_ggm(graph="erdos_renyi", density=4 / p), the default generator
    to  make_ggm(graph="erdos_renyi", density=10 / p,
                 generator=TriangulatedOrthogonalization()) (denser, and its
                 triangulated precision is dense)

For each target density ``d`` of ``--densities`` (and 10 % at p = 300) the
penalty is the ``1 - d`` quantile of the ``|S_ij|`` (i < j), which leaves
about that share of the pairs in the solution (the table gives the density
reached). Every solver gets the same ``S`` (precomputed) and penalty, and
runs in its own process with its CPU time limited (``RLIMIT_CPU``) to
``--cap`` seconds (``--cap-large`` at p = 2000).

Each solver at its strongest setting for the task: the same objective within
1e-6 relative. The reference is ExactGraphicalLasso at its default tolerance
(optimality conditions to 1e-10; row "exact, default"); every solver, this
package's included, then runs at the tolerances of ``LADDERS``, loosest
first, and the table gives the first that reaches the reference's objective
within 1e-6 (column "setting"), or the tightest with "not reached". A run
over the cap ends that solver's ladder, and the solver is not run at larger
p for that data.

    exact    skggm_bench ExactGraphicalLasso(alpha, covariance="precomputed",
             tol=t)
    sklearn  sklearn.covariance.GraphicalLasso(alpha, covariance="precomputed",
             tol=t, enet_tol=1e-8, max_iter=1000) (a loose enet_tol makes
             its outer iteration run to max_iter)
    skglm    skglm.covariance.GraphicalLasso(alpha, tol=t, inner_tol=t,
             max_iter=1000).fit(S, mode="precomputed")
    gglasso  gglasso block_SGL(S, alpha, Omega_0=I, tol=t, rtol=t,
             max_iter=100000), its sparse iterate "Theta"
    quic     skggm 0.2.8's compiled QUIC (``quic`` below), tol=t,
             max_iter=10000
    glassofast  R's glassoFast(S, rho, thr=t) (Sustik and Calderhead's
             Fortran), ``rho`` the penalty off the diagonal and 0 on it
    glasso   R's glasso(S, rho=alpha, thr=t, penalize.diagonal=FALSE)

The R solvers run in ``Rscript`` (one BLAS thread), timed there by
``system.time`` (user + system CPU) around the fits, with ``S`` and the
precision passed as raw doubles; their rows say why where R or the package is
missing (``R_LIBS`` names a library with glassoFast, which Debian lacks; see
docs/performance.md for its installation from the CRAN mirror on GitHub).

``--path`` times a whole warm-started path instead: 30 penalties log-spaced
from the largest ``|S_ij|`` down to a tenth of it (StARS's grid, the one it
solves on every subsample), ``graphical_lasso_path`` against glassoFast
called penalty after penalty with ``start="warm"`` from the previous
solution and glasso's ``glassopath``; a setting reaches the reference when
every penalty's objective does.

``--baseline REV`` adds ``graphical_lasso_path`` as it was at commit ``REV``
(e.g. 9a0fabe, before the sparse products), called directly on ``S`` at its
own fixed tolerance.

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
milliseconds here); the load average is printed with each row. Ratio: the
solver's CPU time over that of this package's row (the ladder's), the target
being at least 2 for every peer.
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
from _r_reference import r_available, r_blas

#: Tolerances tried, loosest first, per solver: every ladder starts at 1e-2 (a
#: solver that misses the objective there pays only a short run).
LADDERS = {
    "exact": (1e-2, 1e-3, 1e-4, 1e-6, 1e-8),
    "sklearn": (1e-2, 1e-3, 1e-4, 1e-5, 1e-7),
    "skglm": (1e-2, 1e-3, 1e-4, 1e-6, 1e-8),
    "gglasso": (1e-2, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8),
    "quic": (1e-2, 1e-3, 1e-4, 1e-6, 1e-8),
    "glassofast": (1e-2, 1e-3, 1e-4, 1e-6, 1e-8),
    "glasso": (1e-2, 1e-3, 1e-4, 1e-6, 1e-8),
}
R_SOLVERS = {"glassofast": "glassoFast", "glasso": "glasso"}
#: The path's penalties: StARS's default grid (ratio 0.1), 30 of them.
PATH_LENGTH, PATH_RATIO = 30, 0.1
SOLVERS = tuple(LADDERS)
DEFAULT_TOL = 1e-10  # ExactGraphicalLasso's, the reference
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


def fit(solver: str, S: np.ndarray, alpha: float, tol: float) -> np.ndarray:
    """The precision each solver returns for ``(S, alpha)`` at tolerance ``tol``."""
    p = S.shape[0]
    if solver.startswith("baseline="):
        from _git_revision import module_at

        module = module_at(
            solver.split("=", 1)[1], "skggm_bench/learners/_glasso_path.py"
        )
        return module.graphical_lasso_path(S, [alpha])[0][0]
    if solver == "exact":
        from skggm_bench.learners import ExactGraphicalLasso

        model = ExactGraphicalLasso(alpha=alpha, covariance="precomputed", tol=tol)
        return model.fit(S).precision_
    if solver == "sklearn":
        from sklearn.covariance import GraphicalLasso

        model = GraphicalLasso(
            alpha=alpha,
            covariance="precomputed",
            tol=tol,
            enet_tol=1e-8,
            max_iter=1000,
        )
        return model.fit(S).precision_
    if solver == "skglm":
        from skglm.covariance import GraphicalLasso

        model = GraphicalLasso(alpha=alpha, tol=tol, inner_tol=tol, max_iter=1000)
        return model.fit(S, mode="precomputed").precision_
    if solver == "quic":
        return quic(S, alpha, tol)
    from gglasso.solver.single_admm_solver import block_SGL

    solution = block_SGL(
        S, alpha, Omega_0=np.eye(p), tol=tol, rtol=tol, max_iter=100_000
    )
    return solution["Theta"]


def quic(S: np.ndarray, alpha: float, tol: float) -> np.ndarray:
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
    pyquic.quic(b"default", p, S, penalty, 1, np.empty(1), tol, 0, 10_000, theta,
                sigma, opt, cputime, iters, gap)  # fmt: skip
    return theta


def fit_path(solver: str, S: np.ndarray, alphas: np.ndarray, tol: float):
    """The precisions at every penalty: one fit, or this package's path solver."""
    if alphas.size == 1:
        return fit(solver, S, float(alphas[0]), tol)[None]
    if solver != "exact":
        raise ValueError(f"--path times exact and the R solvers, not {solver}")
    from skggm_bench.learners._glasso_path import graphical_lasso_path

    return graphical_lasso_path(S, alphas, tol=tol)[0]


def worker(solver: str, directory: str, tol: float, repeats: int) -> None:
    """Fit one solver on the saved ``S`` and penalties; save the precisions and
    print the mean times.

    The mean over ``repeats`` fits timed together: this machine's CPU clock of a
    process advances in steps of a few milliseconds, so a fit of milliseconds
    timed alone reads as 0 or one step.
    """
    S = np.load(Path(directory) / "S.npy")
    alphas = np.load(Path(directory) / "alphas.npy")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # max_iter chatter: the objective tells
        # Imports and just-in-time compilation (skglm's numba) are not timed:
        # a first fit on a small problem of the same kind.
        fit_path(solver, S[:20, :20], alphas[:1], tol)
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(repeats):
            K = fit_path(solver, S, alphas, tol)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    np.save(Path(directory) / "K.npy", K)
    print(json.dumps({"cpu": cpu / repeats, "wall": wall / repeats}))


def objective(S: np.ndarray, K: np.ndarray, alpha: float) -> float:
    sign, log_det = np.linalg.slogdet(K)
    if sign <= 0 or not np.all(np.linalg.eigvalsh(0.5 * (K + K.T)) > 0):
        return np.inf
    off = ~np.eye(S.shape[0], dtype=bool)
    return float(-log_det + np.sum(S * K) + alpha * np.abs(K[off]).sum())


def r_code(solver: str, directory: str, tol: float, repeats: int) -> str:
    """R code fitting ``S`` at every penalty ``repeats`` times (warm-started
    along a path), timing the fits and writing the precisions as raw doubles."""
    setup = f"""
suppressMessages(library({R_SOLVERS[solver]}))
directory <- "{directory}"
p <- as.integer(readLines(file.path(directory, "p.txt")))
S <- matrix(readBin(file.path(directory, "S.bin"), "double", p * p), p, p)
alphas <- readBin(file.path(directory, "alphas.bin"), "double", 1000)
thr <- {tol!r}
"""
    if solver == "glassofast":
        body = """
solve <- function() {
  out <- vector("list", length(alphas)); previous <- NULL
  for (k in seq_along(alphas)) {
    rho <- matrix(alphas[k], p, p); diag(rho) <- 0
    previous <- if (is.null(previous)) glassoFast(S, rho, thr = thr) else
      glassoFast(S, rho, thr = thr, start = "warm", w.init = previous$w,
                 wi.init = previous$wi)
    out[[k]] <- previous$wi
  }
  out
}
"""
    else:
        body = """
solve <- function() {
  if (length(alphas) == 1)
    return(list(glasso(S, rho = alphas, thr = thr, penalize.diagonal = FALSE)$wi))
  fits <- glassopath(S, rholist = alphas, thr = thr, penalize.diagonal = FALSE,
                     trace = 0)
  # glassopath solves its penalties in increasing order and returns them so.
  lapply(match(alphas, fits$rholist), function(k) fits$wi[, , k])
}
"""
    timing = f"""
small <- S[1:20, 1:20]; invisible(small)
started <- proc.time()
for (r in seq_len({repeats})) K <- solve()
used <- proc.time() - started
cat("TIME cpu", (used[["user.self"]] + used[["sys.self"]]) / {repeats}, "\n")
cat("TIME wall", used[["elapsed"]] / {repeats}, "\n")
writeBin(as.double(unlist(K)), file.path(directory, "K.bin"))
"""
    return setup + body + timing


def run(
    solver: str, directory: str, alphas: np.ndarray, tol: float, cap: int,
    repeats: int,
) -> dict:  # fmt: skip
    """One solver at one tolerance in a fresh process, CPU-limited to ``cap`` s;
    its times, with the objectives and density of what it returned."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (cap, cap + 5))

    load = os.getloadavg()[0]
    S = np.load(Path(directory) / "S.npy")
    p = S.shape[0]
    if solver in R_SOLVERS:
        reason = r_available(R_SOLVERS[solver])
        if reason is not None:
            return {"status": f"R skipped: {reason}", "load": load, "tol": tol}
        script = Path(directory) / "fit.R"
        script.write_text(r_code(solver, directory, tol, repeats))
        environment = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
        command = ["Rscript", str(script)]
    else:
        environment = None
        command = [sys.executable, __file__, "--worker", solver, directory,
                   repr(tol), str(repeats)]  # fmt: skip
    done = subprocess.run(
        command, capture_output=True, text=True, preexec_fn=limit, check=False,
        env=environment,
    )  # fmt: skip
    if done.returncode != 0:
        killed = done.returncode in (-24, -9)  # SIGXCPU, SIGKILL: over the cap
        status = f"> {cap} s" if killed else done.stderr.strip()[-200:]
        return {"status": status, "load": load, "tol": tol}
    if solver in R_SOLVERS:
        times = dict(
            line.split()[1:] for line in done.stdout.splitlines()
            if line.startswith("TIME ")
        )  # fmt: skip
        result = {key: float(value) for key, value in times.items()}
        K = np.fromfile(Path(directory) / "K.bin").reshape(alphas.size, p, p)
        K = K.transpose(0, 2, 1)  # R writes column-major
    else:
        result = json.loads(done.stdout.strip().splitlines()[-1])
        K = np.load(Path(directory) / "K.npy")
    objectives = [objective(S, Kk, alpha) for Kk, alpha in zip(K, alphas, strict=True)]
    result.update(
        load=load,
        tol=tol,
        objectives=np.array(objectives),
        objective=objectives[-1],
        density=(np.count_nonzero(K[-1]) - p) / (p * (p - 1)),
    )
    return result


def excess(result: dict, best: np.ndarray) -> float:
    """The largest relative excess of the objectives over the reference's."""
    return float(np.max((result["objectives"] - best) / np.abs(best)))


def ladder(
    solver: str, directory: str, alphas: np.ndarray, best: np.ndarray, cap: int,
    repeats: int,
) -> dict:  # fmt: skip
    """The solver at its loosest tolerance reaching ``best`` within 1e-6 (at
    every penalty of a path)."""
    result: dict = {}
    for tol in LADDERS[solver]:
        result = run(solver, directory, alphas, tol, cap, repeats)
        if "cpu" not in result:
            return result
        result["reached"] = excess(result, best) <= RELATIVE_GAP
        if result["reached"]:
            return result
    return result


def penalties(S: np.ndarray, density: float, path: bool) -> np.ndarray:
    """The penalty leaving about ``density`` of the pairs, or StARS's grid."""
    upper = np.abs(S[np.triu_indices(S.shape[0], 1)])
    if path:
        return upper.max() * np.logspace(0.0, np.log10(PATH_RATIO), PATH_LENGTH)
    return np.array([np.quantile(upper, 1.0 - density)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 300, 1000, 2000])
    parser.add_argument("--cases", nargs="+", default=["er", "to"])
    parser.add_argument(
        "--densities", type=float, nargs="+", default=[0.01, 0.02],
        help="target shares of pairs in the solution (0.10 is added at p = 300)",
    )  # fmt: skip
    parser.add_argument(
        "--solvers", nargs="+", default=["exact", "glassofast", "glasso", "sklearn"],
        choices=SOLVERS,
    )  # fmt: skip
    parser.add_argument("--cap", type=int, default=60)
    parser.add_argument("--cap-large", type=int, default=120)
    parser.add_argument("--baseline", help="also time the path solver at this commit")
    parser.add_argument("--path", action="store_true", help="time 30-penalty paths")
    parser.add_argument(
        "--repeats",
        type=int,
        default=1,
        help="fits per solver and setting, timed together; the times are their "
        "means (use more where a fit takes milliseconds)",
    )
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        solver, directory, tol, repeats = args.worker
        worker(solver, directory, float(tol), int(repeats))
        return
    if any(solver in R_SOLVERS for solver in args.solvers):
        print(f"R's BLAS: {r_blas()}")
    print(
        "| case | p | alpha | density | load | solver | setting | CPU s | wall s "
        "| objective | excess | ratio |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    dropped: dict[tuple[str, str], str] = {}
    ours: dict[tuple[str, int], float] = {}
    for p in args.sizes:
        cap = args.cap_large if p >= 2000 else args.cap
        densities = args.densities + ([0.10] if p == 300 and not args.path else [])
        for case, density in itertools.product(args.cases, densities):
            if args.path and density != densities[0]:
                continue  # one path per case
            S = make_covariance(case, p)
            alphas = penalties(S, density, args.path)
            with tempfile.TemporaryDirectory() as directory:
                folder = Path(directory)
                np.save(folder / "S.npy", S)
                np.save(folder / "alphas.npy", alphas)
                S.T.tofile(folder / "S.bin")  # column-major for R
                alphas.tofile(folder / "alphas.bin")
                (folder / "p.txt").write_text(str(p))
                reference = run("exact", directory, alphas, DEFAULT_TOL, cap,
                                args.repeats)  # fmt: skip
                best = reference["objectives"]
                rows = [("exact, default", reference)]
                for solver in args.solvers:
                    if (case, solver) in dropped:
                        result = {"status": dropped[case, solver], "tol": np.nan,
                                  "load": os.getloadavg()[0]}  # fmt: skip
                    else:
                        result = ladder(solver, directory, alphas, best, cap,
                                        args.repeats)  # fmt: skip
                        if "cpu" not in result and "skipped" not in result["status"]:
                            dropped[case, solver] = f"{result['status']} at p = {p}"
                    rows.append((solver, result))
                if args.baseline:
                    name = f"baseline={args.baseline}"
                    rows.append(
                        (name, run(name, directory, alphas, np.nan, cap, args.repeats))
                    )
            mine = dict(rows).get("exact", reference)
            ours[case, p] = mine["cpu"]
            shown = "path" if args.path else f"{alphas[0]:.4f}"
            for solver, result in rows:
                if "cpu" in result:
                    gap = excess(result, best)
                    cells = (
                        f"tol {result['tol']:g}" if np.isfinite(result["tol"]) else "",
                        f"{result['cpu']:.3g}",
                        f"{result['wall']:.3g}",
                        f"{result['objective']:.10g}",
                        f"{gap:.1e}"
                        + ("" if gap <= RELATIVE_GAP else " (not reached)"),
                        f"{result['cpu'] / ours[case, p]:.2f}x",
                    )
                else:
                    cells = ("", result["status"], "", "", "", "")
                print(
                    f"| {case} | {p} | {shown} | {reference['density']:.2%} | "
                    f"{result['load']:.1f} | {solver} | " + " | ".join(cells) + " |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
