"""The ``skggm-bench`` command: run a study, rank the learners, write a report.

::

    skggm-bench run [--preset NAME | --config FILE.toml] [--store PATH]
                    [--n-jobs N] [--backend loky|threading|dask] [--scheduler ADDRESS]
    skggm-bench leaderboard [--metric f1] [--by density ...] [--store PATH]
    skggm-bench report [--store PATH] [--out DIR] [--metric f1]
    skggm-bench sample --generator NAME --graph FAMILY [--n-features P]
                       [--density D] [--n N] [--seed S] --out FILE.npy

``run`` executes a preset (``quick`` by default; see
:mod:`skggm_bench.benchmark.config`) or a TOML study file, with a progress bar, and
stores every result row as it finishes in an SQLite file (by default
``skggm-bench-results/<study>.sqlite``). Ctrl-C stops it cleanly (exit status 130);
running the same command again resumes where it stopped. ``leaderboard`` and ``report``
read that store; give them the same ``--preset`` / ``--config`` (or ``--store``) as
``run``. ``sample`` writes random matrices with a graph's zero pattern to a ``.npy``
file, for users who only want matrices.

Exit status: 0 on success, 1 when the command could not do its job (no results
yet, a store holding another study, a failure while running), 2 for invalid
arguments or configurations (the message names the offending option or key),
130 after Ctrl-C.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_PRESET", "RESULTS_DIR", "main"]

#: The study ``run`` executes when neither ``--preset`` nor ``--config`` is given.
DEFAULT_PRESET = "quick"
#: Where stores and reports go by default (relative to the working directory).
RESULTS_DIR = Path("skggm-bench-results")

_EXIT_OK, _EXIT_FAILED, _EXIT_USAGE, _EXIT_INTERRUPTED = 0, 1, 2, 130
_BACKENDS = ("loky", "threading", "multiprocessing", "dask", "ray")


class _CommandError(Exception):
    """An error reported as one line on stderr with the given exit status."""

    def __init__(self, message: str, status: int = _EXIT_FAILED) -> None:
        super().__init__(message)
        self.status = status


# --------------------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------------------


def _add_study_options(parser: argparse.ArgumentParser, *, for_run: bool) -> None:
    study = parser.add_mutually_exclusive_group()
    what = "to run" if for_run else "whose results to read (sets the default store)"
    study.add_argument(
        "--preset",
        metavar="NAME",
        help=f"built-in study {what}: quick (default) or kramer2009",
    )
    study.add_argument(
        "--config",
        metavar="FILE.toml",
        type=Path,
        help=f"TOML study file {what}",
    )
    parser.add_argument(
        "--store",
        metavar="PATH",
        type=Path,
        help="SQLite results file (default: skggm-bench-results/<study>.sqlite)",
    )


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="skggm-bench",
        description=(
            "Benchmark Gaussian graphical model structure learners on random "
            "ground truth from several generators."
        ),
        epilog="Run 'skggm-bench COMMAND --help' for the options of a command.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    run = commands.add_parser(
        "run",
        help="run a study (resumes an interrupted one)",
        description="Run a study; rows are stored as they finish, and running the "
        "same command again resumes an interrupted run.",
    )
    _add_study_options(run, for_run=True)
    run.add_argument(
        "--n-jobs",
        type=int,
        metavar="N",
        help="parallel workers (default: all cores; -1 = all cores)",
    )
    run.add_argument(
        "--backend",
        choices=_BACKENDS,
        help="joblib backend (default: loky; dask needs the [dask] extra)",
    )
    run.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="dask scheduler address, e.g. tcp://10.0.0.1:8786 (implies --backend "
        "dask; without it, --backend dask starts a local cluster)",
    )
    run.add_argument(
        "--no-progress", action="store_true", help="do not show the progress bar"
    )
    run.add_argument(
        "--show-warnings",
        action="store_true",
        help="print the learners' warnings (e.g. ConvergenceWarning); by default "
        "they are silenced so the progress bar stays readable",
    )

    board = commands.add_parser(
        "leaderboard",
        help="print the leaderboard of stored results",
        description="Rank the learners per scenario and print mean ranks and mean "
        "metric with 95%% bootstrap intervals, then the rank shift between "
        "generators.",
    )
    _add_study_options(board, for_run=False)
    board.add_argument("--metric", default="f1", help="metric to rank by (default f1)")
    board.add_argument(
        "--by",
        nargs="*",
        default=["density"],
        metavar="COLUMN",
        help="grid columns that split the table besides the generator "
        "(default: density; give none for the whole grid)",
    )

    report = commands.add_parser(
        "report",
        help="write the HTML report of stored results",
        description="Write a self-contained HTML report (leaderboards, rank shift, "
        "TPR/PPV curves, failures, versions).",
    )
    _add_study_options(report, for_run=False)
    report.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="output directory (default: skggm-bench-results/<study>-report)",
    )
    report.add_argument("--metric", default="f1", help="metric to rank by (default f1)")

    sample = commands.add_parser(
        "sample",
        help="write random matrices with a graph's zero pattern to a .npy file",
        description="Draw one random graph and N matrices on it from a generator; "
        "save the (N, p, p) array with numpy.save.",
    )
    sample.add_argument(
        "--generator",
        required=True,
        metavar="NAME",
        help="generator class, e.g. TriangulatedOrthogonalization",
    )
    sample.add_argument(
        "--graph",
        default="erdos_renyi",
        metavar="FAMILY",
        help="graph family (default erdos_renyi), e.g. band, chain, cluster",
    )
    sample.add_argument(
        "--n-features", type=int, default=50, metavar="P", help="variables (50)"
    )
    sample.add_argument(
        "--density",
        type=float,
        metavar="D",
        help="edge density in [0, 1] (default: the family's own default)",
    )
    sample.add_argument(
        "--n", type=int, default=1, metavar="N", help="number of matrices (1)"
    )
    sample.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="S",
        help="random seed (default 0: the same command gives the same matrices)",
    )
    sample.add_argument("--out", required=True, type=Path, metavar="FILE.npy")
    sample.add_argument(
        "--graph-out",
        type=Path,
        metavar="FILE.npy",
        help="also save the graph's boolean adjacency matrix",
    )
    return parser


# --------------------------------------------------------------------------------------
# Study and store
# --------------------------------------------------------------------------------------


def _config(args: argparse.Namespace) -> Any:
    from .benchmark.config import ConfigError, get_preset, load_config

    try:
        if args.config is not None:
            return load_config(args.config)
        return get_preset(args.preset or DEFAULT_PRESET)
    except ConfigError as exc:
        raise _CommandError(str(exc), _EXIT_USAGE) from None


def _store_path(args: argparse.Namespace, config: Any) -> Path:
    if args.store is not None:
        return args.store
    if config.run.get("store"):
        return Path(config.run["store"])
    return RESULTS_DIR / f"{config.name}.sqlite"


def _read_results(args: argparse.Namespace) -> tuple[Any, Any, Path]:
    """The stored frame, store metadata and path; clear errors when there is none."""
    from .benchmark.store import ResultStore

    config = _config(args) if args.store is None else None
    path = _store_path(args, config) if config is not None else args.store
    if not path.exists():
        raise _CommandError(
            f"no results store at {path}; run 'skggm-bench run' first, or point to "
            "the results with --store PATH (or the --preset/--config used to run)"
        )
    try:
        store = ResultStore(path)
        frame, metadata = store.frame(), store.metadata()
        store.close()
    except ValueError as exc:
        raise _CommandError(str(exc)) from None
    if frame.empty:
        raise _CommandError(f"the store {path} holds no results yet")
    return frame, metadata, path


# --------------------------------------------------------------------------------------
# run
# --------------------------------------------------------------------------------------


class _Progress:
    """The ``progress(done, total)`` callback behind a tqdm bar with ETA."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.done = 0
        self.total = 0
        self.start_done: int | None = None
        self.bar: Any = None

    def __call__(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        if self.start_done is None:
            self.start_done = done
        if not self.enabled:
            return
        if self.bar is None:
            from tqdm.auto import tqdm

            # initial=done: rows already stored are not counted in the rate, so the
            # ETA of a resumed run reflects the fits still to do.
            self.bar = tqdm(
                total=total, initial=done, unit="fit", desc="skggm-bench", smoothing=0.1
            )
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _dask_client(scheduler: str | None, n_jobs: int | None) -> Any:
    try:
        from dask.distributed import Client
    except ImportError:
        raise _CommandError(
            "--backend dask needs dask.distributed: pip install 'skggm-bench[dask]'",
            _EXIT_USAGE,
        ) from None
    if scheduler is not None:
        try:
            return Client(scheduler, timeout="30s")
        except OSError as exc:
            raise _CommandError(
                f"cannot reach the dask scheduler at {scheduler}: {exc}"
            ) from None
    workers = n_jobs if n_jobs is not None and n_jobs > 0 else os.cpu_count() or 1
    # A Client that starts its own local cluster also shuts it down on close().
    return Client(n_workers=workers, threads_per_worker=1, processes=True)


@contextlib.contextmanager
def _silenced_warnings() -> Iterator[None]:
    """Silence warnings here and in the worker processes started meanwhile.

    Learners warn a lot (ConvergenceWarning, RuntimeWarning on degenerate folds);
    printed by every worker they bury the progress bar, and they do not change the
    results, which record failures themselves. Workers are new processes, so the
    filter goes through PYTHONWARNINGS, which they inherit; both are restored after.
    """
    previous = os.environ.get("PYTHONWARNINGS")
    os.environ["PYTHONWARNINGS"] = "ignore"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        if previous is None:
            os.environ.pop("PYTHONWARNINGS", None)
        else:
            os.environ["PYTHONWARNINGS"] = previous


def _execution(args: argparse.Namespace, config: Any) -> tuple[str, int | None, str]:
    backend = args.backend or config.run.get("backend")
    scheduler = args.scheduler or config.run.get("scheduler")
    if scheduler is not None:
        if backend not in (None, "dask"):
            raise _CommandError(
                f"--scheduler needs --backend dask, got --backend {backend}",
                _EXIT_USAGE,
            )
        backend = "dask"
    backend = backend or "loky"
    n_jobs = args.n_jobs if args.n_jobs is not None else config.run.get("n_jobs", -1)
    if n_jobs == 0:
        raise _CommandError("--n-jobs 0 has no meaning; use -1 or N >= 1", _EXIT_USAGE)
    return backend, n_jobs, scheduler


def _run(args: argparse.Namespace) -> int:
    config = _config(args)
    store = _store_path(args, config)
    backend, n_jobs, scheduler = _execution(args, config)
    print(
        f"study {config.name!r}: {config.n_tasks} fits "
        f"({_count(config.generators, 'generator')} x "
        f"{_count(config.learners, 'learner')} x grid); results in {store}",
        file=sys.stderr,
    )
    progress = _Progress(enabled=not args.no_progress)
    start = time.perf_counter()
    try:
        with contextlib.ExitStack() as context:
            if not args.show_warnings:
                # Entered first, so that dask workers started below inherit it.
                context.enter_context(_silenced_warnings())
            if backend == "dask":
                context.callback(_dask_client(scheduler, n_jobs).close)
            benchmark = config.make_benchmark(
                store=str(store),
                # With dask the cluster's workers are the parallelism: use them all.
                n_jobs=-1 if backend == "dask" else n_jobs,
                backend=backend,
            )
            result = benchmark.run(progress=progress)
    except KeyboardInterrupt:
        progress.close()
        print(
            f"\nInterrupted: {progress.done} of {progress.total} fits are saved in "
            f"{store}. Run the same command again to resume.",
            file=sys.stderr,
        )
        return _EXIT_INTERRUPTED
    except (ValueError, TypeError) as exc:
        progress.close()
        raise _CommandError(str(exc)) from None
    progress.close()
    elapsed = time.perf_counter() - start
    counts = result.frame["status"].value_counts()
    status = ", ".join(f"{int(n)} {s}" for s, n in counts.items())
    print(
        f"done: {len(result.frame)} rows ({status}); {result.n_computed} computed "
        f"in {elapsed:.0f} s, stored in {store}",
        file=sys.stderr,
    )
    study = _study_arguments(args, store)
    print(f"next: skggm-bench leaderboard{study}\n      skggm-bench report{study}")
    return _EXIT_OK


def _count(items: Any, noun: str) -> str:
    return f"{len(items)} {noun}{'' if len(items) == 1 else 's'}"


def _study_arguments(args: argparse.Namespace, store: Path) -> str:
    if args.store is not None:
        return f" --store {store}"
    if args.config is not None:
        return f" --config {args.config}"
    return f" --preset {args.preset}" if args.preset else ""


# --------------------------------------------------------------------------------------
# leaderboard and report
# --------------------------------------------------------------------------------------


def _leaderboard(args: argparse.Namespace) -> int:
    import pandas as pd

    from .benchmark.leaderboard import format_leaderboard, leaderboard, rank_shift
    from .benchmark.report import REFERENCE_GENERATOR

    frame, _, path = _read_results(args)
    try:
        board = leaderboard(frame, args.metric, by=tuple(args.by))
    except ValueError as exc:
        raise _CommandError(str(exc), _EXIT_USAGE) from None
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(f"Leaderboard by {args.metric} ({path}, {len(frame)} rows)\n")
        print(format_leaderboard(board).to_string(index=False))
        generators = sorted(frame["generator"].unique())
        if len(generators) > 1:
            reference = (
                REFERENCE_GENERATOR
                if REFERENCE_GENERATOR in generators
                else generators[0]
            )
            by = tuple(c for c in args.by if c != "generator")
            for target in (g for g in generators if g != reference):
                shift = rank_shift(frame, args.metric, reference, target, by=by)
                columns = [*by, "learner", "position_from", "position_to"]
                columns += ["places_gained", "rank_gain", "significant"]
                table = shift[columns].rename(
                    columns={
                        "position_from": reference,
                        "position_to": target,
                        "places_gained": "places gained",
                        "rank_gain": "mean-rank gain",
                    }
                )
                print(f"\nRank shift {reference} -> {target}\n")
                print(table.round(2).to_string(index=False))
    failed = int((frame["status"] != "ok").sum())
    if failed:
        print(
            f"\n{failed} fits failed or timed out (they rank last); "
            "'skggm-bench report' lists them with their messages."
        )
    return _EXIT_OK


def _report(args: argparse.Namespace) -> int:
    from .benchmark.report import write_report

    frame, metadata, path = _read_results(args)
    out = args.out or path.with_name(f"{path.stem}-report")
    try:
        report = write_report(
            frame,
            out,
            metric=args.metric,
            metadata={"store": str(path), **metadata},
            title=f"skggm-bench report: {path.stem}",
        )
    except ValueError as exc:
        raise _CommandError(str(exc), _EXIT_USAGE) from None
    print(f"report written to {report}")
    return _EXIT_OK


# --------------------------------------------------------------------------------------
# sample
# --------------------------------------------------------------------------------------


def _sample(args: argparse.Namespace) -> int:
    import numpy as np

    from .benchmark.config import ConfigError, generator_class
    from .datasets import make_ggm

    if args.n < 1:
        raise _CommandError(f"--n must be >= 1, got {args.n}", _EXIT_USAGE)
    if args.density is not None and not 0 <= args.density <= 1:
        raise _CommandError(
            f"--density must be in [0, 1], got {args.density}", _EXIT_USAGE
        )
    try:
        generator = generator_class(args.generator, key="--generator")()
    except ConfigError as exc:
        raise _CommandError(str(exc), _EXIT_USAGE) from None
    try:
        # make_ggm draws the graph (and one matrix) and returns the fitted
        # generator; its further draws share that graph.
        data = make_ggm(
            n_samples=1,
            n_features=args.n_features,
            graph=args.graph,
            density=args.density,
            generator=generator,
            random_state=args.seed,
        )
    except (ValueError, TypeError) as exc:
        raise _CommandError(str(exc), _EXIT_USAGE) from None
    matrices = data.generator.sample(args.n)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.save(args.out, matrices)
    if args.graph_out is not None:
        args.graph_out.parent.mkdir(parents=True, exist_ok=True)
        np.save(args.graph_out, data.adjacency)
    edges = int(np.triu(data.adjacency, 1).sum())
    print(
        f"wrote {args.n} matrices of shape {matrices.shape[1:]} from "
        f"{type(generator).__name__} on a {args.graph} graph with {edges} edges "
        f"(density {data.edge_density:.3g}) to {args.out}"
    )
    return _EXIT_OK


# --------------------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------------------

_COMMANDS = {
    "run": _run,
    "leaderboard": _leaderboard,
    "report": _report,
    "sample": _sample,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``skggm-bench`` command line.

    Parameters
    ----------
    argv : sequence of str or None, default=None
        Arguments without the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0 success, 1 failure, 2 invalid arguments or
        configuration, 130 interrupted.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import numpy as np
    >>> from skggm_bench.cli import main
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     out = pathlib.Path(tmp) / "m.npy"
    ...     status = main(["sample", "--generator", "DiagonalDominance",
    ...                    "--graph", "chain", "--n-features", "5", "--n", "3",
    ...                    "--out", str(out)])  # doctest: +ELLIPSIS
    ...     shape = np.load(out).shape
    wrote 3 matrices of shape (5, 5) from DiagonalDominance on a chain graph ...
    >>> status, shape
    (0, (3, 5, 5))
    """
    args = _build_parser().parse_args(argv)
    try:
        return _COMMANDS[args.command](args)
    except _CommandError as exc:
        print(f"skggm-bench {args.command}: error: {exc}", file=sys.stderr)
        return exc.status


if __name__ == "__main__":  # pragma: no cover - exercised through subprocess tests
    sys.exit(main())
