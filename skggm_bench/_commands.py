"""What the ``skggm-bench`` sub-commands do, once :mod:`skggm_bench.cli` parsed them.

Each command takes the parsed arguments and returns an exit status. A problem the
user can act on -- a bad value, a file that cannot be written, a damaged store, a
request too large for the machine -- is raised as a :class:`CommandError` that
names it in one line, with the exit status :data:`EXIT_USAGE` (change the command)
or :data:`EXIT_FAILED` (the environment stands in the way). Checks that can fail
run before any long computation, so that an hour of fits is never lost to a
read-only store.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import shutil
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULT_PRESET",
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "RESULTS_DIR",
    "CommandError",
    "check_writable",
    "counted",
    "describe_os_error",
    "export_store",
    "installed_backends_help",
    "merge_results",
    "metric_name",
    "preset_names",
    "program_name",
    "publish_site",
    "shard_spec",
    "show_leaderboard",
    "show_presets",
    "silenced_warnings",
    "store_path",
    "study_config",
    "write_study_report",
]

#: The study ``run`` executes when neither ``--preset`` nor ``--config`` is given.
DEFAULT_PRESET = "quick"
#: Where stores and reports go by default (relative to the working directory).
RESULTS_DIR = Path("skggm-bench-results")

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130

# The leaderboard is printed at most this wide (and narrower on a narrow terminal).
_TEXT_WIDTH = 100


class CommandError(Exception):
    """A problem reported as one line on stderr, with the given exit status."""

    def __init__(self, message: str, status: int = EXIT_FAILED) -> None:
        super().__init__(message)
        self.status = status


def describe_os_error(exc: OSError) -> str:
    """``permission denied: 'path'`` rather than ``[Errno 13] Permission denied``."""
    reason = (exc.strerror or str(exc)).rstrip(".")
    reason = reason[:1].lower() + reason[1:]
    return f"{reason}: {str(exc.filename)!r}" if exc.filename else reason


def metric_name(text: str) -> str:
    """The canonical name of a metric of the registry (for ``--metric``)."""
    from .metrics import get_metric

    try:
        return get_metric(text).name
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def shard_spec(text: str) -> tuple[int, int]:
    """``I/K`` (for ``--shard``): the I-th of K parts, counting from 1."""
    index, sep, count = text.partition("/")
    try:
        shard = (int(index), int(count)) if sep else None
    except ValueError:
        shard = None
    if shard is None or not 1 <= shard[0] <= shard[1]:
        raise argparse.ArgumentTypeError(
            f"expected I/K with 1 <= I <= K, e.g. 2/8 for the second of eight "
            f"parts, got {text!r}"
        )
    return shard


def tie_tolerance(text: str) -> float:
    """A relative tie tolerance in [0, 1) (for ``--tie-tolerance``)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(
            f"must be a relative difference in [0, 1), e.g. 1e-6, got {text!r}"
        )
    return value


def _tie_tolerance(args: argparse.Namespace) -> float:
    """``--tie-tolerance``, else the study file's ``tie_tolerance``, else 1e-6."""
    from .benchmark.analysis.leaderboard import DEFAULT_TIE_TOLERANCE

    if args.tie_tolerance is not None:
        return args.tie_tolerance
    if args.store is None:
        tolerance = _settings(args).tie_tolerance
        if tolerance is not None:
            return tolerance
    return DEFAULT_TIE_TOLERANCE


def preset_names() -> str:
    """The built-in studies, the default first (for ``--preset``)."""
    from .benchmark.config import PRESETS

    others = sorted(name for name in PRESETS if name != DEFAULT_PRESET)
    return ", ".join([f"{DEFAULT_PRESET} (default)", *others])


def installed_backends_help() -> str:
    """The ``--backend`` help: installed backends, with an install hint for others."""
    from .benchmark.run._execution import backend_problem, known_backends

    usable = [b for b in known_backends() if backend_problem(b) is None]
    missing = [
        f"{b} ({(backend_problem(b) or '').rpartition(': ')[2]})"
        for b in known_backends()
        if backend_problem(b) is not None
    ]
    text = f"joblib backend (default loky): {', '.join(usable)}"
    if missing:
        text += f"; not installed: {', '.join(missing)}"
    return text


# --------------------------------------------------------------------------------------
# Studies and stores
# --------------------------------------------------------------------------------------


def study_config(args: argparse.Namespace) -> Any:
    from .benchmark.config import ConfigError, get_preset, load_config

    try:
        if args.config is not None:
            return load_config(args.config)
        return get_preset(args.preset or DEFAULT_PRESET)
    except ConfigError as exc:
        raise CommandError(str(exc), EXIT_USAGE) from None


def _settings(args: argparse.Namespace) -> Any:
    """What reading a study's store needs from ``--config``/``--preset``: never a
    class, so that a store reads without its learners' packages."""
    from .benchmark.config import ConfigError, store_settings

    try:
        return store_settings(args.config, preset=args.preset or DEFAULT_PRESET)
    except ConfigError as exc:
        raise CommandError(str(exc), EXIT_USAGE) from None


def store_path(args: argparse.Namespace, config: Any) -> Path:
    if args.store is not None:
        return args.store
    against = getattr(args, "against", None)
    if against is not None:  # the extended study, next to the published one
        path = against.with_name(f"{against.stem}.extended.sqlite")
    elif config.run.get("store"):
        path = Path(config.run["store"])
    else:
        path = RESULTS_DIR / f"{config.name}.sqlite"
    shard = getattr(args, "shard", None)
    if shard is not None:  # each job of an array writes a store of its own
        path = path.with_name(f"{path.stem}.shard-{shard[0]}-of-{shard[1]}.sqlite")
    return path


def _read_results(args: argparse.Namespace) -> tuple[Any, dict, Path]:
    """The stored frame, metadata and path; the store is opened read-only."""
    from .benchmark.results.store import ResultStore, StoreError

    path = args.store if args.store is not None else store_path(args, _settings(args))
    if not path.exists():
        raise CommandError(
            f"no results store at {path}; run 'skggm-bench run' first, or point to "
            "the results with --store PATH (or the --preset/--config used to run)"
        )
    try:
        with contextlib.closing(ResultStore(path, read_only=True)) as store:
            frame, metadata = store.frame(), store.metadata()
    except StoreError as exc:
        raise CommandError(str(exc)) from None
    if frame.empty:
        raise CommandError(f"the store {path} holds no results yet")
    return frame, metadata, path


@contextlib.contextmanager
def silenced_warnings() -> Iterator[None]:
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


def program_name() -> str:
    """How to call this command again, as the user can type it."""
    invoked = sys.argv[0] if sys.argv else ""
    if Path(invoked).name == "skggm-bench":
        found = shutil.which("skggm-bench")
        if found and os.path.realpath(found) == os.path.realpath(invoked):
            return "skggm-bench"
        # Not on the PATH (e.g. `make run` calls .venv/bin/skggm-bench): the path
        # it was called by.
        return shlex.quote(invoked)
    return f"{shlex.quote(sys.executable)} -m skggm_bench.cli"


def counted(items: Any, noun: str) -> str:
    return f"{len(items)} {noun}{'' if len(items) == 1 else 's'}"


def check_writable(path: Path, option: str) -> None:
    """Create the folder of ``path`` and check that ``path`` can be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CommandError(
            f"{option} {path}: cannot create its folder: {describe_os_error(exc)}"
        ) from None
    if path.is_dir():
        raise CommandError(f"{option} {path} is a folder; give a file name", EXIT_USAGE)
    for place in (path, path.parent):
        if place.exists() and not os.access(place, os.W_OK):
            raise CommandError(f"{option} {path}: {place} is not writable")


# --------------------------------------------------------------------------------------
# leaderboard and report
# --------------------------------------------------------------------------------------


def show_presets(args: argparse.Namespace) -> int:
    """``skggm-bench presets [show NAME]``: list the built-in studies, or print one.

    The list gives each preset's description and cost in fits on this machine
    (optional learners whose software is missing are left out, as ``run`` would);
    ``show`` prints the preset's TOML file, comments included, to copy and edit.
    """
    from .benchmark.config import PRESETS, ConfigError, get_preset, preset_text

    if args.name is not None:
        try:
            print(preset_text(args.name), end="")
        except ConfigError as exc:
            raise CommandError(str(exc), EXIT_USAGE) from None
        return EXIT_OK
    for name in PRESETS:
        with silenced_warnings():
            config = get_preset(name)
        default = " (default)" if name == DEFAULT_PRESET else ""
        print(f"{name}{default}: {config.n_tasks:,} fits")
        print(f"    {PRESETS[name].get('description', '')}")
    print(
        "print one to copy: skggm-bench presets show NAME > study.toml; "
        "run it: skggm-bench run --config study.toml"
    )
    return EXIT_OK


def show_leaderboard(args: argparse.Namespace) -> int:
    """``skggm-bench leaderboard``: findings and tables, on stdout."""
    from .benchmark.analysis._analysis import analyse
    from .benchmark.present._text import text_report

    frame, _, path = _read_results(args)
    try:
        analysis = analyse(
            frame, args.metric, by=tuple(args.by), tie_tolerance=_tie_tolerance(args)
        )
    except ValueError as exc:
        raise CommandError(str(exc), EXIT_USAGE) from None
    if args.format != "text":
        print(_formatted_tables(analysis, args.format))
        return EXIT_OK
    width = min(shutil.get_terminal_size((_TEXT_WIDTH, 24)).columns, _TEXT_WIDTH)
    print(f"skggm-bench leaderboard of {path} ({counted(frame, 'row')})\n")
    print(text_report(analysis, width=max(width, 60)))
    if (frame["status"] != "ok").any():
        print(
            "\nFits that did not finish rank last; 'skggm-bench report' shows them "
            "with figures."
        )
    return EXIT_OK


def _formatted_tables(analysis: Any, format: str) -> str:
    """The leaderboard tables in ``format``; CSV is the leaderboard alone (one table
    per file is what a spreadsheet reads)."""
    from .benchmark.present._table_formats import format_table
    from .benchmark.present._text import report_tables

    tables = report_tables(analysis)
    if format == "csv":
        return format_table(tables[0][1], "csv").rstrip("\n")
    separator = "\n\n" if format == "markdown" else "\n"
    return separator.join(format_table(table, format) for _, table in tables)


def write_study_report(args: argparse.Namespace) -> int:
    """``skggm-bench report``: the HTML report of a stored study."""
    from .benchmark.present.report import write_report

    frame, metadata, path = _read_results(args)
    out = args.out or path.with_name(f"{path.stem}-report")
    try:
        report = write_report(
            frame,
            out,
            metric=args.metric,
            metadata={"store": str(path), **metadata},
            title=f"skggm-bench report: {path.stem}",
            tie_tolerance=_tie_tolerance(args),
        )
    except ValueError as exc:
        raise CommandError(str(exc), EXIT_USAGE) from None
    except OSError as exc:
        raise CommandError(
            f"cannot write the report to {out}: {describe_os_error(exc)}"
            + ("" if args.out else "; choose another folder with --out DIR")
        ) from None
    print(f"report written to {report}")
    return EXIT_OK


# --------------------------------------------------------------------------------------
# merge and export
# --------------------------------------------------------------------------------------


def merge_results(args: argparse.Namespace) -> int:
    """``skggm-bench merge``: shards, or studies on the same data, into one store."""
    from .benchmark.results.store import (
        MergeError,
        ResultStore,
        StoreError,
        merge_stores,
    )

    for source in args.stores:
        if not source.is_file():
            raise CommandError(f"no results store at {source}")
    check_writable(args.out, "--out")
    if args.out.exists():
        raise CommandError(
            f"--out {args.out} exists already; give a new file for the merged store",
            EXIT_USAGE,
        )
    try:
        n_rows = merge_stores(args.stores, args.out)
        with contextlib.closing(ResultStore(args.out, read_only=True)) as store:
            learners = sorted(store.study()["learners"])
    except (MergeError, StoreError) as exc:
        raise CommandError(str(exc)) from None
    print(
        f"merged {counted(args.stores, 'store')} into {args.out}: {n_rows} rows, "
        f"learners {', '.join(learners)}"
    )
    program = program_name()
    print(f"next: {program} leaderboard --store {shlex.quote(str(args.out))}")
    return EXIT_OK


def publish_site(args: argparse.Namespace) -> int:
    """``skggm-bench publish``: stores into a static, versioned results site."""
    from .benchmark.analysis.leaderboard import DEFAULT_TIE_TOLERANCE
    from .benchmark.publish import PublishError, publish

    tolerance = args.tie_tolerance
    try:
        published = publish(
            args.stores,
            args.out,
            metric=args.metric,
            tie_tolerance=DEFAULT_TIE_TOLERANCE if tolerance is None else tolerance,
            report_figures=args.report_figures,
        )
    except PublishError as exc:
        raise CommandError(str(exc)) from None
    for item in published:
        what = "added version" if item["added"] else "unchanged, still version"
        print(f"{item['study']}: {what} {item['version']}")
    print(f"open {(args.out / 'index.html').resolve().as_uri()}")
    return EXIT_OK


def export_store(args: argparse.Namespace) -> int:
    """``skggm-bench export``: every row of a store to CSV, Parquet or JSON lines."""
    from .benchmark.results.store import StoreError, export_results

    path = args.store if args.store is not None else store_path(args, _settings(args))
    if not path.exists():
        raise CommandError(
            f"no results store at {path}; point to it with --store PATH (or the "
            "--preset/--config used to run)"
        )
    check_writable(args.out, "--out")
    format = args.format or args.out.suffix.lstrip(".").lower()
    if format not in ("csv", "parquet", "jsonl"):
        raise CommandError(
            f"--out {args.out}: cannot tell the format from its suffix; give "
            "--format csv, parquet or jsonl",
            EXIT_USAGE,
        )
    if os.path.lexists(args.out) and not args.force:
        raise CommandError(
            f"--out {args.out} exists already; give --force to replace it",
            EXIT_USAGE,
        )
    try:
        export_results(path, args.out, format, overwrite=args.force)
    except ImportError as exc:
        raise CommandError(f"--format {format}: {exc}") from None
    except StoreError as exc:
        raise CommandError(str(exc)) from None
    except OSError as exc:
        raise CommandError(f"cannot write --out {args.out}: {exc}") from None
    sidecar = "" if format == "parquet" else f" (dtypes in {args.out}.dtypes.json)"
    print(f"wrote the rows of {path} to {args.out}{sidecar}")
    return EXIT_OK
