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
import ast
import contextlib
import os
import shlex
import shutil
import sys
import time
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
    "describe_os_error",
    "export_store",
    "installed_backends_help",
    "merge_results",
    "metric_name",
    "preset_names",
    "publish_site",
    "run_study",
    "sample_matrices",
    "shard_spec",
    "show_leaderboard",
    "show_presets",
    "silenced_warnings",
    "write_study_report",
]

#: The study ``run`` executes when neither ``--preset`` nor ``--config`` is given.
DEFAULT_PRESET = "quick"
#: Where stores and reports go by default (relative to the working directory).
RESULTS_DIR = Path("skggm-bench-results")

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130

# The leaderboard is printed at most this wide (and narrower on a narrow terminal).
_TEXT_WIDTH = 100
# Refuse a sample whose matrices would take more than this share of the memory
# available: drawing needs working space besides the result.
_MEMORY_SHARE = 0.5


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


def _config(args: argparse.Namespace) -> Any:
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


def _store_path(args: argparse.Namespace, config: Any) -> Path:
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

    path = args.store if args.store is not None else _store_path(args, _settings(args))
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


# --------------------------------------------------------------------------------------
# run
# --------------------------------------------------------------------------------------


class _Progress:
    """The ``progress(done, total)`` callback behind a tqdm bar with ETA.

    The bar is drawn on the stderr of its creation; while it is shown, what else
    the run writes to ``sys.stderr`` (the harness's ``warnings:`` lines) goes
    through :meth:`lines_above`, so that it never shares the bar's line.
    """

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.done = 0
        self.total = 0
        self.bar: Any = None
        self.stream = sys.stderr

    def __call__(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        if not self.enabled:
            return
        if self.bar is None:
            from tqdm.auto import tqdm

            # initial=done: rows already stored are not counted in the rate, so the
            # ETA of a resumed run reflects the fits still to do.
            self.bar = tqdm(
                total=total,
                initial=done,
                unit="fit",
                desc="skggm-bench",
                smoothing=0.1,
                file=self.stream,
            )
        self.bar.update(done - self.bar.n)

    def lines_above(self) -> contextlib.AbstractContextManager:
        """Redirect ``sys.stderr`` to print whole lines above the bar while it shows."""
        return contextlib.redirect_stderr(_AboveTheBar(self))

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class _AboveTheBar:
    """A text stream that writes whole lines above a progress bar.

    A bar is redrawn on its own line with a carriage return and no newline: text
    written straight after it would continue its line. On a terminal the bar is
    cleared, the lines written and the bar drawn again below them (tqdm.write); in
    a file or a pipe, where a carriage return does not clear, the bar's line is
    ended first. Text without its newline yet waits for it; without a bar, text
    goes straight to the stream.
    """

    def __init__(self, progress: _Progress) -> None:
        self._progress = progress
        self._pending = ""

    def write(self, text: str) -> int:
        bar, stream = self._progress.bar, self._progress.stream
        if bar is None or bar.disable:  # no bar, or closed
            stream.write(self._pending + text)
            self._pending = ""
            return len(text)
        complete, _, self._pending = (self._pending + text).rpartition("\n")
        if complete:
            if stream.isatty():
                bar.write(complete, file=stream)
            else:
                stream.write(f"\n{complete}\n")
        return len(text)

    def flush(self) -> None:
        self._progress.stream.flush()

    def __getattr__(self, name: str) -> Any:  # fileno, encoding, isatty, ...
        return getattr(self._progress.stream, name)


def _dask_client(scheduler: str | None, n_jobs: int | None) -> Any:
    try:
        from dask.distributed import Client
    except ImportError:
        raise CommandError(
            "--backend dask needs dask.distributed: pip install 'skggm-bench[dask]'",
            EXIT_USAGE,
        ) from None
    if scheduler is not None:
        try:
            return Client(scheduler, timeout="30s")
        except (OSError, ValueError) as exc:
            raise CommandError(
                f"cannot reach the dask scheduler at {scheduler}: {exc}"
            ) from None
    workers = n_jobs if n_jobs is not None and n_jobs > 0 else os.cpu_count() or 1
    # A Client that starts its own local cluster also shuts it down on close().
    return Client(n_workers=workers, threads_per_worker=1, processes=True)


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


def _option(args: argparse.Namespace, config: Any, name: str) -> tuple[Any, str]:
    """The value of ``--name`` or else of the study file's ``[run] name``, and
    what to call it in a message."""
    value = getattr(args, name)
    if value is not None:
        return value, f"--{name.replace('_', '-')} {shlex.quote(str(value))}"
    value = config.run.get(name)
    where = f"{args.config}: " if getattr(args, "config", None) else ""
    return value, f"{where}run.{name} = {value!r}"


def _check_scheduler(address: str, where: str) -> None:
    """Refuse an address a dask Client could not even parse (no port, ...)."""
    try:
        from distributed.comm.addressing import parse_address, parse_host_port
    except ImportError:
        return  # _dask_client says how to install dask
    try:
        scheme, location = parse_address(address)
        if scheme in ("tcp", "tls"):
            _, port = parse_host_port(location)
            if not 0 < port < 2**16:
                raise ValueError(f"port {port} is not in 1..65535")
    except (TypeError, ValueError) as exc:
        raise CommandError(
            f"{where}: not a dask scheduler address ({exc}); give e.g. "
            "tcp://10.0.0.1:8786",
            EXIT_USAGE,
        ) from None


def _execution(args: argparse.Namespace, config: Any) -> tuple[str, int, str | None]:
    from .benchmark._benchmark import StudyError, check_execution

    backend, backend_where = _option(args, config, "backend")
    scheduler, scheduler_where = _option(args, config, "scheduler")
    if scheduler is not None:
        _check_scheduler(scheduler, scheduler_where)
        if backend not in (None, "dask"):
            raise CommandError(
                f"--scheduler needs --backend dask, got --backend {backend}",
                EXIT_USAGE,
            )
        backend, backend_where = "dask", f"{scheduler_where} (implies --backend dask)"
    backend = "loky" if backend is None else backend
    n_jobs, n_jobs_where = _option(args, config, "n_jobs")
    n_jobs = -1 if n_jobs is None else n_jobs
    # The harness's own rules, checked before the store is opened.
    try:
        check_execution(n_jobs, backend)
    except StudyError as exc:
        where = n_jobs_where if exc.parameter == "n_jobs" else backend_where
        raise CommandError(f"{where}: {exc}", EXIT_USAGE) from None
    return backend, n_jobs, scheduler


def _stored_rows(path: Path) -> str:
    """How many rows the store at ``path`` holds, as text ("no" if unreadable)."""
    from .benchmark.results.store import ResultStore, StoreError

    try:
        with ResultStore(path, read_only=True) as store:
            return str(len(store))
    except StoreError:
        return "no"


def _open_store(path: Path, n_tasks: int) -> tuple[Any, bool]:
    """The store to run into, checked writable; or a complete read-only one.

    Returns the store and whether fits are left to compute. A store that cannot
    be written is fine only when every fit of the study is already in it.
    """
    from .benchmark.results.store import ResultStore, StoreError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # its notes are printed below
            store = ResultStore(path)
        for note in store.notes:
            print(f"note: {note}", file=sys.stderr)
        store.check_writable()
        return store, True
    except StoreError as exc:
        problem = str(exc)
    # Only a store that cannot be written may still serve, if complete; a damaged
    # one is refused as it is.
    if path.is_file() and not (
        os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)
    ):
        try:
            stored = ResultStore(path, read_only=True)
        except StoreError:
            raise CommandError(problem) from None
        if len(stored) >= n_tasks:
            return stored, False
        left = n_tasks - len(stored)
        stored.close()
        raise CommandError(
            f"{problem}; {left} of the study's {n_tasks} fits are left to compute "
            "and could not be stored. Make the store writable or choose another "
            "--store"
        )
    raise CommandError(problem)


def _program() -> str:
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


def _study_arguments(args: argparse.Namespace) -> str:
    if args.store is not None:
        return f" --store {shlex.quote(str(args.store))}"
    if args.config is not None:
        return f" --config {shlex.quote(str(args.config))}"
    return f" --preset {args.preset}" if args.preset else ""


def _count(items: Any, noun: str) -> str:
    return f"{len(items)} {noun}{'' if len(items) == 1 else 's'}"


def run_study(args: argparse.Namespace) -> int:
    """``skggm-bench run``: run (or resume) a study into its store."""
    from .benchmark import StudyError
    from .benchmark.results.store import StoreError, StudyMismatchError

    config = _config(args)
    path = _store_path(args, config)
    backend, n_jobs, scheduler = _execution(args, config)
    part = "" if args.shard is None else f"part {args.shard[0]}/{args.shard[1]} of "
    if args.against is None:
        if getattr(args, "publish", None) is not None:
            raise CommandError(
                "--publish needs --against STORE (to publish a study, run it, then "
                "skggm-bench publish STORE --out SITE)",
                EXIT_USAGE,
            )
        print(
            f"study {config.name!r}: {part}{config.n_tasks} fits "
            f"({_count(config.generators, 'generator')} x "
            f"{_count(config.learners, 'learner')} x grid); results in {path}",
            file=sys.stderr,
        )
    else:
        _check_against(args.against, path)
        if getattr(args, "publish", None) is not None:
            _check_publish(args)
        print(
            f"study {config.name!r}: {part}the fits of its learners that "
            f"{args.against} lacks, on that store's data; the extended study "
            f"(its rows and theirs) in {path}",
            file=sys.stderr,
        )
    for note in config.notes:
        print(f"study {config.name!r}: {note}", file=sys.stderr)
    if args.against is not None:
        # Opened (created) by the run once the study is checked against the
        # published one: a refused study leaves no store behind.
        store, to_compute = None, True
    elif args.shard is None:
        store, to_compute = _open_store(path, config.n_tasks)
    else:
        store, to_compute = _open_shard_store(path), True
    progress = _Progress(enabled=not args.no_progress and to_compute)
    start = time.perf_counter()
    try:
        with contextlib.ExitStack() as context:
            if store is not None:
                context.callback(store.close)
            if not to_compute:
                frame, n_computed = store.frame(), 0
            else:
                if not args.show_warnings:
                    # Entered first, so that dask workers started below inherit it.
                    context.enter_context(silenced_warnings())
                if backend == "dask":
                    context.callback(_dask_client(scheduler, n_jobs).close)
                context.enter_context(progress.lines_above())
                benchmark = config.make_benchmark(
                    store=path if store is None else store,
                    # With dask the cluster's workers are the parallelism: use all.
                    n_jobs=-1 if backend == "dask" else n_jobs,
                    backend=backend,
                    shard=args.shard,
                )
                result = benchmark.run(progress=progress, against=args.against)
                frame, n_computed = result.frame, result.n_computed
    except KeyboardInterrupt:
        progress.close()
        if progress.total:
            saved = f"{progress.done} of {progress.total} fits are saved in {path}"
        else:  # during the run's start-up, before it counted the stored fits
            saved = f"{path} holds {_stored_rows(path)} fits"
        print(
            f"\nInterrupted: {saved}. Run the same command again to resume.",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    except StudyError as exc:
        raise CommandError(str(exc), EXIT_USAGE) from None
    except (StoreError, StudyMismatchError) as exc:
        raise CommandError(str(exc)) from None
    finally:
        progress.close()
    elapsed = time.perf_counter() - start
    counts = frame["status"].value_counts()
    status = ", ".join(f"{int(n)} {s}" for s, n in counts.items())
    print(
        f"done: {len(frame)} rows ({status}); {n_computed} computed in "
        f"{elapsed:.0f} s, stored in {path}",
        file=sys.stderr,
    )
    if getattr(args, "publish", None) is not None:
        return _publish_extended(path, args)
    program = _program()
    study = (
        _study_arguments(args)
        if args.against is None
        else f" --store {shlex.quote(str(path))}"
    )
    if args.shard is not None:
        stores = (
            "the stores of all parts"
            if args.store is not None
            else shlex.quote(str(path).replace(f".shard-{args.shard[0]}-", ".shard-*-"))
        )
        print(
            f"next, once all {args.shard[1]} parts are done: {program} merge "
            f"{stores} --out MERGED.sqlite"
        )
        return EXIT_OK
    print(f"next: {program} leaderboard{study}\n      {program} report{study}")
    return EXIT_OK


def _check_publish(args: argparse.Namespace) -> None:
    """``--publish SITE``: a site to extend, checked before anything runs."""
    from .benchmark.publish import PublishError, check_site

    if args.shard is not None:
        raise CommandError(
            "--publish cannot be used with --shard: merge the parts' stores, then "
            "skggm-bench publish MERGED.sqlite",
            EXIT_USAGE,
        )
    try:
        check_site(args.publish)
    except PublishError as exc:
        raise CommandError(f"--publish: {exc}") from None


def _publish_extended(path: Path, args: argparse.Namespace) -> int:
    """Publish the extended study as a new version of the study it extends."""
    from .benchmark.publish import PublishError, publish, study_name

    name = study_name(args.against)
    try:
        published = publish([path], args.publish, study=name)
    except PublishError as exc:
        raise CommandError(
            f"{exc} (the extended study is kept in {path}: skggm-bench publish "
            "can publish it later)"
        ) from None
    for item in published:
        what = "added version" if item["added"] else "unchanged, still version"
        print(f"{item['study']}: {what} {item['version']}")
    print(f"open {(args.publish / 'index.html').resolve().as_uri()}")
    return EXIT_OK


def _check_against(against: Path, path: Path) -> None:
    """The published store exists and is not the one the run writes."""
    if not against.is_file():
        raise CommandError(f"--against: no results store at {against}", EXIT_USAGE)
    if path.exists() and os.path.samefile(path, against):
        raise CommandError(
            f"--store {path} is the --against store, which a run never changes: "
            "give --store a new path for the extended study",
            EXIT_USAGE,
        )


def _open_shard_store(path: Path) -> Any:
    """A part of a study is written into a store of its own, which must be writable."""
    from .benchmark.results.store import ResultStore, StoreError

    try:
        store = ResultStore(path)
        store.check_writable()
    except StoreError as exc:
        raise CommandError(str(exc)) from None
    return store


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
    print(f"skggm-bench leaderboard of {path} ({_count(frame, 'row')})\n")
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
    _check_writable(args.out, "--out")
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
        f"merged {_count(args.stores, 'store')} into {args.out}: {n_rows} rows, "
        f"learners {', '.join(learners)}"
    )
    program = _program()
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

    path = args.store if args.store is not None else _store_path(args, _settings(args))
    if not path.exists():
        raise CommandError(
            f"no results store at {path}; point to it with --store PATH (or the "
            "--preset/--config used to run)"
        )
    _check_writable(args.out, "--out")
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


# --------------------------------------------------------------------------------------
# sample
# --------------------------------------------------------------------------------------


def _size(n_bytes: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if n_bytes < 1024 or unit == "TiB":
            return (
                f"{n_bytes:.0f} {unit}" if unit == "bytes" else f"{n_bytes:.1f} {unit}"
            )
        n_bytes /= 1024
    raise AssertionError("unreachable")  # pragma: no cover


def _available_memory() -> int | None:
    """Bytes of memory available to a new allocation (None if unknown)."""
    with contextlib.suppress(OSError, ValueError):
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    with contextlib.suppress(AttributeError, OSError, ValueError):
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    return None


def _check_memory(n: int, p: int) -> str:
    """Refuse, before drawing, an array the machine cannot hold; describe it."""
    needed = 8.0 * n * p * p
    what = f"{n} matrices of {p} x {p} float64 take {_size(needed)}"
    available = _available_memory()
    if available is not None and needed > _MEMORY_SHARE * available:
        raise CommandError(
            f"--n {n}: {what}, more than this machine can hold ({_size(available)} "
            "of memory available); ask for fewer matrices, or draw them in several "
            "files with different --seed values",
            EXIT_USAGE,
        )
    return what


def _check_disk(n: int, p: int, out: Path, what: str) -> None:
    """Refuse, before drawing, an array the disk of ``out`` cannot store."""
    free = shutil.disk_usage(out.parent).free
    if 8.0 * n * p * p > free:
        raise CommandError(
            f"--n {n}: {what}, more than the {_size(free)} free on the disk of {out}"
        )


def _check_writable(path: Path, option: str) -> None:
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


def _parameters(items: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` pairs; values are Python literals (numbers, ...) or text."""
    parameters = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise CommandError(
                f"--param {item!r}: expected KEY=VALUE, e.g. condition_number=10",
                EXIT_USAGE,
            )
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            value = text
        parameters[key.strip()] = value
    return parameters


def _wraps_a_generator(cls: type) -> bool:
    """Whether ``cls`` is a meta-generator: it needs another generator to wrap."""
    import inspect

    parameter = inspect.signature(cls).parameters.get("generator")
    return parameter is not None and parameter.default is inspect.Parameter.empty


def _build_generator(args: argparse.Namespace) -> Any:
    from .benchmark.config import ConfigError, generator_class

    try:
        cls = generator_class(args.generator, key="--generator")
        base = (
            generator_class(args.base_generator, key="--base-generator")
            if args.base_generator
            else None
        )
    except ConfigError as exc:
        raise CommandError(str(exc), EXIT_USAGE) from None
    parameters = _parameters(args.param)
    if "random_state" in parameters:
        raise CommandError(
            "--param random_state: the seed of the graph and the matrices is set "
            "with --seed S",
            EXIT_USAGE,
        )
    if _wraps_a_generator(cls):
        if base is None:
            raise CommandError(
                f"--generator {args.generator} transforms the draws of another "
                "generator: name it with --base-generator NAME (e.g. "
                "--base-generator DiagonalDominance), and its settings with --param "
                "(e.g. --param condition_number=10)",
                EXIT_USAGE,
            )
        parameters["generator"] = base()
    elif base is not None:
        raise CommandError(
            f"--base-generator is for generators that wrap another; "
            f"{args.generator} does not",
            EXIT_USAGE,
        )
    try:
        generator = cls(**parameters)
        # The generator's own constraints, as make_ggm checks them, but before
        # the output is checked and anything is drawn.
        generator._validate_params()
    except (TypeError, ValueError) as exc:
        raise CommandError(f"--generator {args.generator}: {exc}", EXIT_USAGE) from None
    return generator


def _save(path: Path, array: Any) -> None:
    """``numpy.save`` to exactly ``path`` (given a name, numpy would add .npy)."""
    import numpy as np

    with path.open("wb") as handle:
        np.save(handle, array)


def sample_matrices(args: argparse.Namespace) -> int:
    """``skggm-bench sample``: random matrices on one random graph, to .npy files."""
    import numpy as np

    from .datasets import make_ggm

    if args.n < 1:
        raise CommandError(f"--n must be >= 1, got {args.n}", EXIT_USAGE)
    if args.n_features < 1:
        raise CommandError(
            f"--n-features must be >= 1, got {args.n_features}", EXIT_USAGE
        )
    if args.density is not None and not 0 <= args.density <= 1:
        raise CommandError(
            f"--density must be in [0, 1], got {args.density}", EXIT_USAGE
        )
    generator = _build_generator(args)
    what = _check_memory(args.n, args.n_features)
    _check_writable(args.out, "--out")
    if args.graph_out is not None:
        _check_writable(args.graph_out, "--graph-out")
    _check_disk(args.n, args.n_features, args.out, what)
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
        raise CommandError(str(exc), EXIT_USAGE) from None
    matrices = data.generator.sample(args.n)
    _save(args.out, matrices)
    if args.graph_out is not None:
        _save(args.graph_out, data.adjacency)
    edges = int(np.triu(data.adjacency, 1).sum())
    print(
        f"wrote {args.n} matrices of shape {matrices.shape[1:]} from "
        f"{type(generator).__name__} on a graph of the {args.graph} family with "
        f"{edges} edges (density {data.edge_density:.3g}) to {args.out}"
    )
    return EXIT_OK
