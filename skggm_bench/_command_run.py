"""``skggm-bench run``: a study from its preset or file to its store (and, with
``--publish``, its site), with progress, backends, shards and resuming."""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import sys
import time
import warnings
from pathlib import Path
from typing import Any

from ._commands import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    CommandError,
    counted,
    program_name,
    silenced_warnings,
    store_path,
    study_config,
)

__all__ = ["run_study"]

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


def _study_arguments(args: argparse.Namespace) -> str:
    if args.store is not None:
        return f" --store {shlex.quote(str(args.store))}"
    if args.config is not None:
        return f" --config {shlex.quote(str(args.config))}"
    return f" --preset {args.preset}" if args.preset else ""


def run_study(args: argparse.Namespace) -> int:
    """``skggm-bench run``: run (or resume) a study into its store."""
    from .benchmark import StudyError
    from .benchmark.results.store import StoreError, StudyMismatchError

    config = study_config(args)
    path = store_path(args, config)
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
            f"({counted(config.generators, 'generator')} x "
            f"{counted(config.learners, 'learner')} x grid); results in {path}",
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
    program = program_name()
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
