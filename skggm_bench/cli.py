"""The ``skggm-bench`` command: run a study, rank the learners, write a report.

::

    skggm-bench run [--preset NAME | --config FILE.toml] [--store PATH]
                    [--against STORE [--publish SITE]] [--n-jobs N]
                    [--backend NAME]
                    [--scheduler ADDRESS] [--shard I/K]
    skggm-bench leaderboard [--metric f1] [--by density ...] [--store PATH]
                            [--format text|markdown|latex|csv]
    skggm-bench report [--store PATH] [--out DIR] [--metric f1]
    skggm-bench merge A.sqlite B.sqlite ... --out C.sqlite
    skggm-bench export [--store PATH] [--format csv|parquet|jsonl] --out FILE [--force]
    skggm-bench sample --generator NAME [--base-generator NAME] [--param KEY=VALUE]
                       [--graph FAMILY] [--n-features P] [--density D] [--n N]
                       [--seed S] --out FILE.npy
    skggm-bench --version

``run`` executes a preset (``quick`` by default; see
:mod:`skggm_bench.benchmark.config`) or a TOML study file, with a progress bar, and
stores every result row as it finishes in an SQLite file (by default
``skggm-bench-results/<study>.sqlite``). Ctrl-C stops it cleanly (exit status 130);
running the same command again resumes where it stopped. ``leaderboard`` and
``report`` read that store without ever writing it; give them the same ``--preset``
/ ``--config`` (or ``--store``) as ``run``. ``sample`` writes random matrices with a
graph's zero pattern to a ``.npy`` file, for users who only want matrices.

This module only parses the arguments and dispatches to the commands; every
problem ends in one line on stderr, never a traceback. Exit status: 0 on success;
1 when the environment stands in the way (no results yet, a damaged or read-only
store, a folder that cannot be written, a failure while running); 2 for invalid
arguments or configurations, including requests too large for the machine (the
message names the offending option or key); 130 after Ctrl-C. An unexpected error
is reported as an internal error, with exit status 1.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from . import __version__
from ._command_run import run_study
from ._command_sample import sample_matrices
from ._commands import (
    DEFAULT_PRESET,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    RESULTS_DIR,
    CommandError,
    describe_os_error,
    export_store,
    installed_backends_help,
    merge_results,
    metric_name,
    preset_names,
    publish_site,
    shard_spec,
    show_leaderboard,
    show_presets,
    tie_tolerance,
    write_study_report,
)
from .utils._printable import PrintableStream

__all__ = ["DEFAULT_PRESET", "RESULTS_DIR", "main"]


class _HelpOnDemand(str):
    """Help text built only when help is shown.

    Listing the installed backends imports the harness (seconds); every other use
    of the command line should not pay for it. argparse formats help with ``%``.
    """

    def __new__(cls, build: Callable[[], str]) -> _HelpOnDemand:
        text = super().__new__(cls, "(built when shown)")
        text.build = build
        return text

    def __mod__(self, values: object) -> str:
        return self.build().replace("%", "%%") % values


def _add_study_options(parser: argparse.ArgumentParser, *, for_run: bool) -> None:
    study = parser.add_mutually_exclusive_group()
    what = "to run" if for_run else "whose results to read (sets the default store)"
    study.add_argument(
        "--preset",
        metavar="NAME",
        help=_HelpOnDemand(lambda: f"built-in study {what}: {preset_names()}"),
    )
    study.add_argument(
        "--config", metavar="FILE.toml", type=Path, help=f"TOML study file {what}"
    )
    parser.add_argument(
        "--store",
        metavar="PATH",
        type=Path,
        help="SQLite results file (default: skggm-bench-results/<study>.sqlite)"
        + ("" if for_run else "; opened read-only"),
    )


def _add_run(commands: Any) -> None:
    run = commands.add_parser(
        "run",
        help="run a study (resumes an interrupted one)",
        description="Run a study; rows are stored as they finish, and running the "
        "same command again resumes an interrupted run.",
    )
    _add_study_options(run, for_run=True)
    run.add_argument(
        "--against",
        metavar="STORE",
        type=Path,
        help="a published study's store: run only the study's learners that it "
        "lacks, on its very data (the study's data side must equal the store's, "
        "and every new row's data hash its), into --store (default: "
        "STORE's name with .extended), which then holds the extended study; "
        "STORE is never changed",
    )
    run.add_argument(
        "--publish",
        metavar="SITE",
        type=Path,
        help="with --against: then publish the extended study into the site SITE "
        "as a new version of STORE's study (see skggm-bench publish)",
    )
    run.add_argument(
        "--n-jobs",
        type=int,
        metavar="N",
        help="parallel workers (default: all cores; -1 = all cores)",
    )
    run.add_argument(
        "--backend", metavar="NAME", help=_HelpOnDemand(installed_backends_help)
    )
    run.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="dask scheduler address, e.g. tcp://10.0.0.1:8786 (implies --backend "
        "dask; without it, --backend dask starts a local cluster)",
    )
    run.add_argument(
        "--shard",
        type=shard_spec,
        metavar="I/K",
        help="run only the I-th of K deterministic parts of the study's fits "
        "(balanced by expected cost), e.g. one job of a SLURM array; the default "
        "store becomes <study>.shard-I-of-K.sqlite; join the K stores with "
        "'skggm-bench merge'",
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


def _add_leaderboard(commands: Any) -> None:
    board = commands.add_parser(
        "leaderboard",
        help="print the findings and the leaderboard of stored results",
        description="Rank the learners per scenario and print the findings, the "
        "mean ranks and mean metric with 95% bootstrap intervals, the critical "
        "differences, the rank shift between generators and the agreement of their "
        "orderings.",
    )
    _add_study_options(board, for_run=False)
    board.add_argument(
        "--metric",
        default="f1",
        type=metric_name,
        help="metric to rank by, a name of the metric registry (default f1)",
    )
    board.add_argument(
        "--tie-tolerance",
        type=tie_tolerance,
        metavar="REL",
        help="relative difference within which two values rank as a tie "
        "(default: the study file's tie_tolerance, else 1e-4)",
    )
    board.add_argument(
        "--by",
        nargs="*",
        default=["density"],
        metavar="COLUMN",
        help="grid columns that split the tables besides the generator "
        "(default: density; give none for the whole grid)",
    )
    board.add_argument(
        "--format",
        # TABLE_FORMATS of benchmark/present/_table_formats.py, written out so that the
        # CLI starts without importing the harness (tests/test_cli.py checks).
        choices=("text", "markdown", "latex", "csv"),
        default="text",
        help="text (default): findings and every table; markdown or latex: the "
        "tables, with intervals, for a paper; csv: the leaderboard table",
    )


def _add_report(commands: Any) -> None:
    report = commands.add_parser(
        "report",
        help="write the HTML report of stored results",
        description="Write a self-contained HTML report: findings, leaderboards, "
        "critical differences, rank shifts, curves, failures, versions.",
    )
    _add_study_options(report, for_run=False)
    report.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="output folder (default: skggm-bench-results/<study>-report)",
    )
    report.add_argument(
        "--metric",
        default="f1",
        type=metric_name,
        help="metric to rank by, a name of the metric registry (default f1)",
    )
    report.add_argument(
        "--tie-tolerance",
        type=tie_tolerance,
        metavar="REL",
        help="relative difference within which two values rank as a tie "
        "(default: the study file's tie_tolerance, else 1e-4)",
    )


def _add_sample(commands: Any) -> None:
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
        "--base-generator",
        metavar="NAME",
        help="for a generator that transforms another's draws (SpectralControl): "
        "the generator it wraps",
    )
    sample.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a parameter of the generator, e.g. condition_number=10 (repeatable)",
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


def _add_merge(commands: Any) -> None:
    merge = commands.add_parser(
        "merge",
        help="merge results stores: shards of a study, or studies on the same data",
        description="Merge the stores of the parts of a study (run --shard I/K) "
        "into the store of one run, or the stores of studies whose data side "
        "(generators, graphs, data models, grid, seeds) is identical but whose "
        "learners differ into one store holding all learners. Conflicting rows, "
        "data hashes or data sides are refused, naming the first difference.",
    )
    merge.add_argument(
        "stores", nargs="+", type=Path, metavar="STORE", help="stores to merge"
    )
    merge.add_argument(
        "--out", required=True, type=Path, metavar="FILE.sqlite", help="new store"
    )


def _add_publish(commands: Any) -> None:
    publish = commands.add_parser(
        "publish",
        help="publish results stores as a static, versioned results site",
        description="Write a static site (plain files, opens offline from file://) "
        "of the studies in the stores: an index of every study, a page per study "
        "with interactive charts, findings and sortable tables, a page per learner, "
        "and the downloads with their SHA-256 manifest. A study is named after its "
        "store's file (shards of one study join it); publishing into an existing "
        "site adds a version to each study whose rows changed, and never changes a "
        "published version.",
    )
    publish.add_argument(
        "stores", nargs="+", type=Path, metavar="STORE", help="stores to publish"
    )
    publish.add_argument(
        "--out", required=True, type=Path, metavar="SITE", help="the site folder"
    )
    publish.add_argument(
        "--metric",
        default="f1",
        type=metric_name,
        help="metric of the findings, tables and static pictures (default f1; the "
        "charts offer every metric of the study)",
    )
    publish.add_argument(
        "--tie-tolerance",
        type=tie_tolerance,
        default=1e-4,
        metavar="REL",
        help="relative difference within which two values rank as a tie (default 1e-4)",
    )
    publish.add_argument(
        "--report-figures",
        action="store_true",
        help="also draw the figures of each version's full report as pictures (one "
        "per group, comparison and density: slow on a large grid); by default the "
        "report links to the page's interactive charts",
    )


def _add_export(commands: Any) -> None:
    export = commands.add_parser(
        "export",
        help="write every row of a store to CSV, Parquet or JSON lines",
        description="Write every row of a results store to a file that pandas "
        "reads back as the store's frame (CSV and JSON lines come with a "
        "FILE.dtypes.json sidecar; Parquet needs pyarrow).",
    )
    _add_study_options(export, for_run=False)
    export.add_argument(
        "--format",
        choices=("csv", "parquet", "jsonl"),  # EXPORT_FORMATS of store.py (checked)
        help="file format (default: from the suffix of --out)",
    )
    export.add_argument("--out", required=True, type=Path, metavar="FILE")
    export.add_argument(
        "--force",
        action="store_true",
        help="replace an existing --out (and its sidecar)",
    )


def _add_presets(commands: Any) -> None:
    presets = commands.add_parser(
        "presets",
        help="list the built-in studies, or print one as a TOML file to copy",
        description="List the built-in studies with their descriptions and number "
        "of fits; 'presets show NAME' prints a study's TOML file, the same format "
        "run --config reads, so a preset can be copied and extended.",
    )
    actions = presets.add_subparsers(dest="action", metavar="show")
    show = actions.add_parser("show", help="print a preset's TOML file")
    show.add_argument("name", metavar="NAME", help=f"one of: {preset_names()}")
    presets.set_defaults(name=None)


class _Parser(argparse.ArgumentParser):
    """argparse, with its errors on one line like every other error of the CLI.

    argparse prints the usage (several lines for a command with many options)
    before the message; here the message names the problem and where the usage
    is. The subcommands' parsers are of this class too (``add_subparsers``).
    """

    def error(self, message: str) -> NoReturn:
        self.exit(
            EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n"
        )


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="skggm-bench",
        description="Benchmark Gaussian graphical model structure learners on random "
        "ground truth from several generators.",
        epilog="Run 'skggm-bench COMMAND --help' for the options of a command.",
    )
    parser.add_argument(
        "--version", action="version", version=f"skggm-bench {__version__}"
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_run(commands)
    _add_leaderboard(commands)
    _add_report(commands)
    _add_sample(commands)
    _add_merge(commands)
    _add_export(commands)
    _add_presets(commands)
    _add_publish(commands)
    return parser


_COMMANDS = {
    "run": run_study,
    "leaderboard": show_leaderboard,
    "report": write_study_report,
    "sample": sample_matrices,
    "merge": merge_results,
    "export": export_store,
    "presets": show_presets,
    "publish": publish_site,
}


def _quiet_stdout() -> None:
    """After a closed pipe (``| head``): send the rest of stdout nowhere."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout without a file (tests)
        pass


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
    wrote 3 matrices of shape (5, 5) from DiagonalDominance on a graph of the chain ...
    >>> status, shape
    (0, (3, 5, 5))
    """
    # Names are data: whatever a learner's name holds, the terminal gets no
    # control character (the progress bar keeps its carriage returns).
    streams = sys.stdout, sys.stderr
    sys.stdout = PrintableStream(streams[0])
    sys.stderr = PrintableStream(streams[1], keep="\r")
    try:
        return _main(argv)
    finally:
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
        sys.stdout, sys.stderr = streams


def _main(argv: Sequence[str] | None) -> int:
    args = _build_parser().parse_args(argv)
    prefix = f"skggm-bench {args.command}"
    try:
        status = _COMMANDS[args.command](args)
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
        return status
    except CommandError as exc:
        print(f"{prefix}: error: {exc}", file=sys.stderr)
        return exc.status
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_FAILED
    except KeyboardInterrupt:
        print(f"\n{prefix}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except MemoryError:
        print(f"{prefix}: error: out of memory", file=sys.stderr)
        return EXIT_FAILED
    except OSError as exc:
        print(f"{prefix}: error: {describe_os_error(exc)}", file=sys.stderr)
        return EXIT_FAILED
    except Exception as exc:
        print(
            f"{prefix}: internal error: {type(exc).__name__}: {exc} (please report)",
            file=sys.stderr,
        )
        return EXIT_FAILED


if __name__ == "__main__":  # pragma: no cover - exercised through subprocess tests
    sys.exit(main())
