"""The results store: one SQLite file per study, written row by row, resumable.

A benchmark study produces one *result row* per fit, identified by its grid
coordinates (generator, graph, data model, learner, density, n_features,
n_samples, repeat). :class:`ResultStore` keeps these rows in an SQLite
database (the standard library's :mod:`sqlite3`, no server) so that

* rows are committed as soon as a task finishes: a crash or ``SIGKILL`` loses at most
  the tasks that were running;
* a re-run of the same study skips what is stored (:meth:`ResultStore.completed_keys`);
* a fit cannot be stored twice: the grid coordinates are a unique key and
  :meth:`ResultStore.append` ignores rows whose key is already present;
* the study's configuration is stored next to the rows
  (:meth:`ResultStore.ensure_study`), so a re-run with a different configuration
  fails with a clear error instead of mixing two studies in one file.

While a run writes, the database is in WAL mode (readers never block the writer,
e.g. a report built while a run is in progress) with ``synchronous=NORMAL``: every
committed row survives the death of the writing process; only an operating-system
crash or power loss can drop the last few commits. Closing the store returns the
file to rollback-journal mode, so that a reader opens it without creating any file.

``ResultStore(":memory:")`` gives the same behaviour without a file; the benchmark
harness uses it when no store is requested. ``ResultStore(path, read_only=True)``
(what ``skggm-bench leaderboard`` and ``report`` use) never creates or changes a
file, works in a read-only folder, and refuses a file that is not a store.

Schema
------
``results``: one column per fixed column of the result table (the harness's result
schema: key, cell and outcome columns, typed TEXT, INTEGER or REAL; ``graph`` is
the name of the row's graph on the study's graph axis; ``density`` is NULL for rows
drawn at their family's default density), and one REAL column per metric, added
the first time a row carries it. ``meta``: key/value TEXT pairs
(``schema_version``, ``study`` as JSON, ``created``).
"""

from __future__ import annotations

import contextlib
import functools
import glob
import importlib.metadata
import json
import math
import os
import re
import shlex
import sqlite3
import tempfile
import warnings
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

from ._schema import (
    CELL_COLUMNS,
    COLUMN_TYPES,
    KEY_COLUMNS,
    LATER_COLUMNS,
    MAX_NAME_LENGTH,
    NAME_COLUMNS,
    OUTCOME_COLUMNS,
    STATUSES,
    result_columns,
)

__all__ = [
    "EXPORT_FORMATS",
    "MergeError",
    "ResultStore",
    "StoreError",
    "StudyExtension",
    "StudyMismatchError",
    "export_results",
    "extend_study",
    "merge_stores",
    "read_export",
]

_SCHEMA_VERSION = "4"
# Version 3 lacks the columns of LATER_COLUMNS (n_warnings): read, its rows have
# them as NULL (unknown); opened for writing, the store is upgraded in place.
_UPGRADABLE_VERSIONS = ("3",)
_FIXED_COLUMNS = (*KEY_COLUMNS, *CELL_COLUMNS, *OUTCOME_COLUMNS)
# Metric columns are created from row keys; only plain identifiers are accepted so
# a column name can never inject SQL (it is also double-quoted).
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# Another process writing to the same file (two runs of one study) holds the lock for
# one short transaction; waiting up to 60 s rides that out instead of failing.
_BUSY_TIMEOUT_MS = 60_000
_SQL_TYPES = {"text": "TEXT", "integer": "INTEGER", "real": "REAL"}
_REQUIRED = {*KEY_COLUMNS, "seed", "status"}


def _column_definition(name: str) -> str:
    sql = f"{name} {_SQL_TYPES[COLUMN_TYPES[name]]}"
    if name == "status":
        allowed = ", ".join(f"'{status}'" for status in STATUSES)
        return f"{sql} NOT NULL CHECK (status IN ({allowed}))"
    if name in ("message", "data_hash"):
        return f"{sql} NOT NULL DEFAULT ''"
    if name == "versions":
        return f"{sql} NOT NULL DEFAULT '{{}}'"
    if name in _REQUIRED and name != "density":
        return f"{sql} NOT NULL"
    return sql


_CREATE_RESULTS = (
    "CREATE TABLE IF NOT EXISTS results (\n    "
    + ",\n    ".join(_column_definition(name) for name in _FIXED_COLUMNS)
    + "\n)"
)
# SQLite treats NULLs as distinct in a UNIQUE constraint; indexing IFNULL(density, -1)
# makes "no density" (a family's default density) one value, so such rows cannot
# be duplicated either. -1 is never a valid density.
_CREATE_KEY_INDEX = (
    "CREATE UNIQUE INDEX IF NOT EXISTS results_key ON results ("
    + ", ".join(
        "IFNULL(density, -1.0)" if name == "density" else name for name in KEY_COLUMNS
    )
    + ")"
)
_CREATE_META = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)
"""


class StoreError(ValueError):
    """A file cannot be used as a results store (missing, damaged, not writable).

    Examples
    --------
    >>> issubclass(StoreError, ValueError)
    True
    """


_T = TypeVar("_T")


def _store_errors(method: Callable[..., _T]) -> Callable[..., _T]:
    """Turn SQLite's errors into a StoreError naming the file."""

    @functools.wraps(method)
    def wrapped(self: ResultStore, *args: Any, **kwargs: Any) -> _T:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"cannot use {self.path!r} as a results store: {exc}"
            ) from None

    return wrapped


class StudyMismatchError(ValueError):
    """The store holds a study whose configuration differs from the requested one.

    Examples
    --------
    >>> issubclass(StudyMismatchError, ValueError)
    True
    """


def _is_idle_wal(path: Path) -> bool:
    """Whether an SQLite file's header says WAL mode while no log is beside it."""
    try:
        with path.open("rb") as handle:
            header = handle.read(20)
    except OSError:
        return False
    wal = header[:16] == b"SQLite format 3\x00" and header[18:20] == b"\x02\x02"
    return wal and not Path(f"{path}-wal").exists()


class ResultStore:
    """SQLite store of benchmark result rows, one file per study.

    Parameters
    ----------
    path : str or os.PathLike
        The database file. In write mode it is created (with its parent
        directories) if missing. ``":memory:"`` keeps everything in memory for the
        life of the object.
    read_only : bool, default=False
        Open an existing store for reading only: nothing is ever created or
        changed, a folder without write permission is fine, and a missing file or
        a file that is not a store is an error.

    Attributes
    ----------
    path : str
        The database path as given (``":memory:"`` for an in-memory store).
    read_only : bool
        Whether the store was opened for reading only.

    See Also
    --------
    skggm_bench.benchmark.Benchmark : Writes its rows here when given ``store=``.

    Notes
    -----
    The connection is opened lazily and re-opened after a ``fork`` or unpickling,
    so a store object can be handed to another process; rows are written only by
    the process that runs the benchmark loop, never by workers. Each
    :meth:`append` is one transaction.

    Examples
    --------
    >>> from skggm_bench.benchmark.results.store import ResultStore
    >>> store = ResultStore(":memory:")
    >>> row = dict(generator="dd", graph="erdos_renyi", data_model="gaussian",
    ...            learner="glasso",
    ...            density=0.1, n_features=10, n_samples=50, repeat=0, seed=7,
    ...            f1=0.5, fit_time=0.01, status="ok", message="", versions="{}")
    >>> store.append([row, row])          # the second copy has the same key
    1
    >>> len(store), sorted(store.completed_keys())
    (1, [('dd', 'erdos_renyi', 'gaussian', 'glasso', 0.1, 10, 50, 0)])
    >>> store.frame()[["learner", "f1", "status"]]
      learner   f1 status
    0  glasso  0.5     ok
    """

    def __init__(self, path: str | os.PathLike, *, read_only: bool = False) -> None:
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(
                f"path must be a file path (str or os.PathLike), got {path!r}"
            )
        self.path = os.fspath(path)
        if not self.path:
            raise ValueError("path must be a non-empty file path or ':memory:'")
        self.read_only = bool(read_only)
        #: What opening the store did that its user should know (a re-creation).
        self.notes: list[str] = []
        self._conn: sqlite3.Connection | None = None
        self._pid: int | None = None
        self._connection()  # fail now, not mid-run, on an unusable path

    # -- connection --------------------------------------------------------------------

    def _open_read_only(self) -> sqlite3.Connection:
        if self.path == ":memory:" or not Path(self.path).is_file():
            raise StoreError(f"no results store at {self.path!r}")
        uri = Path(self.path).resolve().as_uri()
        if self.read_only and _is_idle_wal(Path(self.path)):
            # Nobody is writing a WAL database without its log, and opening it in
            # WAL mode would create the log and the shared-memory file beside it:
            # a reader reads the file as it is. Not the check before writing (the
            # writer creates those files anyway), nor while a log exists: closing
            # an "immutable" connection drops the locks of any other connection
            # this process holds on the file, e.g. a writer resuming the study.
            return sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True)
        try:
            conn = sqlite3.connect(f"{uri}?mode=ro", uri=True)
            conn.execute("SELECT name FROM sqlite_master").fetchall()
        except sqlite3.OperationalError:
            # A WAL database in a folder we cannot write to: reading it needs
            # "immutable", which is right there since nobody can be writing it.
            conn = sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True)
        return conn

    def _check_permissions(self) -> None:
        """Writing needs the file and its folder (for the journal) to be writable."""
        path = Path(self.path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot create the folder of the results store {self.path!r}: "
                f"{exc.strerror or exc}"
            ) from None
        for place in (path, path.parent):
            if place.exists() and not os.access(place, os.W_OK):
                raise StoreError(
                    f"cannot write the results store {self.path!r}: {place} is not "
                    "writable"
                )

    def _check_before_writing(self) -> None:
        """Refuse an existing file that is not a sound store, before writing to it.

        Opening a file for writing changes it (WAL mode rewrites the header and
        creates the -wal and -shm files) before SQLite reads a damaged page, so
        an existing file is first opened read-only: it must be a store of this
        version that passes SQLite's ``quick_check`` and whose values fit their
        columns. An empty (zero-byte) file is a new store: it holds nothing to
        lose (``mktemp`` makes such files).
        """
        path = Path(self.path)
        if not path.is_file() or path.stat().st_size == 0:
            return
        conn = self._open_read_only()
        try:
            if _left_at_creation(conn):
                return  # re-created by _open_for_writing, with a note
            _check_is_store(conn, self.path)
            _checked_meta(conn, self.path)
            _checked_records(conn, self.path)
            problems = [
                line
                for row in conn.execute("PRAGMA quick_check(3)")
                for line in row[0].splitlines()
                if not line.startswith("*** in database")
            ]
        finally:
            conn.close()
        if problems != ["ok"]:
            raise StoreError(
                f"{self.path!r} is a damaged results store ({'; '.join(problems)}); "
                "it was left as it is: restore it from a copy, or choose another path"
            )

    def _open_for_writing(self) -> sqlite3.Connection:
        if self.path != ":memory:":
            self._check_permissions()
            self._check_before_writing()
        conn = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT_MS / 1000)
        try:
            self._prepare_for_writing(conn)
        except BaseException:
            conn.close()  # a full disk: no descriptor of the file is kept
            raise
        return conn

    def _prepare_for_writing(self, conn: sqlite3.Connection) -> None:
        conn.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        if tables and _left_at_creation(conn):
            note = (
                f"{self.path!r} was left empty by an interrupted creation (it has "
                f"the tables {sorted(tables)} and no rows); it was created anew"
            )
            self.notes.append(note)
            warnings.warn(note, stacklevel=4)
            with conn:
                conn.execute("BEGIN IMMEDIATE")
                for table in ("results", "meta"):
                    conn.execute(f"DROP TABLE IF EXISTS {table}")
            tables = set()
        if tables and not {"results", "meta"} <= tables:
            raise StoreError(
                f"{self.path!r} is an SQLite database but not a skggm-bench results "
                f"store (it has the tables {sorted(tables)}); choose another path"
            )
        if self.path != ":memory:":
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        if not tables:
            # One transaction (Python's sqlite3 would commit each CREATE on its
            # own): a kill or a full disk leaves no store, or a whole empty one.
            with conn:
                conn.execute("BEGIN IMMEDIATE")
                conn.execute(_CREATE_RESULTS)
                conn.execute(_CREATE_KEY_INDEX)
                conn.execute(_CREATE_META)
                conn.execute(
                    "INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)",
                    (_SCHEMA_VERSION,),
                )
        else:
            _upgrade(conn)

    def _connection(self) -> sqlite3.Connection:
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        try:
            conn = (
                self._open_read_only() if self.read_only else self._open_for_writing()
            )
            try:
                _check_is_store(conn, self.path)
            except StoreError:
                conn.close()
                raise
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"cannot use {self.path!r} as a results store: {exc}"
            ) from None
        self._conn, self._pid = conn, os.getpid()
        return conn

    @_store_errors
    def check_writable(self) -> None:
        """Fail now, not after hours of computing, if rows cannot be written.

        Raises
        ------
        StoreError
            For a store opened read-only, or a file or folder without write
            permission.

        Examples
        --------
        >>> ResultStore(":memory:").check_writable()
        """
        if self.read_only:
            raise StoreError(f"the results store {self.path!r} was opened read-only")
        if self.path != ":memory:":
            self._check_permissions()
        conn = self._connection()
        conn.execute("BEGIN IMMEDIATE")  # takes the write lock, or fails
        conn.rollback()

    def close(self) -> None:
        """Close the database connection (it re-opens on the next use).

        Examples
        --------
        >>> store = ResultStore(":memory:")
        >>> store.close()
        """
        if self._conn is not None and self._pid == os.getpid():
            if not self.read_only and self.path != ":memory:":
                # Leave the file in rollback-journal mode: a reader can then open it
                # without creating the -wal and -shm files WAL mode needs (in a
                # read-only folder it could not). Another open connection keeps WAL
                # on; that is fine, the last one to close switches it.
                with contextlib.suppress(sqlite3.DatabaseError):
                    self._conn.execute("PRAGMA journal_mode = DELETE")
            self._conn.close()
        self._conn = None

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __getstate__(self) -> dict:
        if self.path == ":memory:":
            raise TypeError("an in-memory ResultStore cannot be pickled")
        return {
            "path": self.path,
            "read_only": self.read_only,
            "_conn": None,
            "_pid": None,
        }

    def __repr__(self) -> str:
        mode = ", read_only=True" if self.read_only else ""
        return f"ResultStore({self.path!r}{mode})"

    # -- rows ------------------------------------------------------------------------

    def _columns(self) -> list[str]:
        rows = self._connection().execute("PRAGMA table_info(results)").fetchall()
        return [row[1] for row in rows]

    @_store_errors
    def metric_columns(self) -> list[str]:
        """Names of the metric columns, in the order they were first stored.

        Returns
        -------
        list of str
            Every column that is not a fixed column of the result schema.

        Examples
        --------
        >>> ResultStore(":memory:").metric_columns()
        []
        """
        fixed = set(_FIXED_COLUMNS)
        return [name for name in self._columns() if name not in fixed]

    @_store_errors
    def append(self, rows: Iterable[Mapping[str, Any]]) -> int:
        """Store rows in one transaction; rows whose key is already stored are skipped.

        Parameters
        ----------
        rows : iterable of mappings
            Each with the key columns, ``seed`` and ``status``; the other fixed
            columns are optional; every other entry is a metric (a real number,
            NaN or inf), and gets its own column.

        Returns
        -------
        int
            Number of rows actually inserted.

        Raises
        ------
        ValueError
            If a row misses a key column, ``seed`` or ``status``, has an unknown
            status, or a metric name that is not a plain identifier.

        Examples
        --------
        >>> store = ResultStore(":memory:")
        >>> store.append([dict(generator="g", graph="chain", data_model="gaussian",
        ...                    learner="l", density=None, n_features=5,
        ...                    n_samples=9, repeat=0, seed=1, status="failed",
        ...                    message="ValueError: boom")])
        1
        """
        rows = [dict(row) for row in rows]
        if not rows:
            return 0
        for row in rows:
            _check_row(row)
        conn = self._connection()
        existing = self._columns()
        new_metrics = [
            name
            for name in dict.fromkeys(k for row in rows for k in row)
            if name not in existing
        ]
        columns = [*existing, *new_metrics]
        placeholders = ", ".join("?" for _ in columns)
        quoted = ", ".join(f'"{name}"' for name in columns)
        records = [
            tuple(_to_sql(row.get(name), name) for name in columns) for row in rows
        ]
        # One transaction: either every new column and row is committed or none is
        # (sqlite3's context manager rolls back on any exception, KeyboardInterrupt
        # included), so an interrupted append leaves the file as it was.
        with conn:
            for name in new_metrics:
                conn.execute(f'ALTER TABLE results ADD COLUMN "{name}" REAL')
            before = conn.total_changes
            conn.executemany(
                f"INSERT OR IGNORE INTO results ({quoted}) VALUES ({placeholders})",
                records,
            )
            inserted = conn.total_changes - before
        return inserted

    @_store_errors
    def completed_keys(self) -> set[tuple]:
        """Keys of the stored rows, whatever their status.

        Returns
        -------
        set of tuple
            ``(generator, graph, data_model, learner, density, n_features,
            n_samples, repeat)``, with ``density`` a float, or ``None`` for rows
            drawn at their family's default density.

        Examples
        --------
        >>> ResultStore(":memory:").completed_keys()
        set()
        """
        query = f"SELECT {', '.join(KEY_COLUMNS)} FROM results"
        return {tuple(row) for row in self._connection().execute(query)}

    def identity(self) -> tuple[int, int] | None:
        """The store file's (device, inode); None in memory or without a file."""
        if self.path == ":memory:":
            return None
        try:
            info = os.stat(self.path)
        except OSError:
            return None
        return info.st_dev, info.st_ino

    def check_intact(self, identity: tuple[int, int] | None, n_rows: int) -> None:
        """Check the file is still this store, readable, with ``n_rows`` or more rows.

        At the end of a run: a learner (it runs with this process's permissions)
        may have removed or replaced the file while its rows were being written.

        Raises
        ------
        StoreError
            Naming what happened to the file.
        """
        if self.path == ":memory:":
            return
        found = self.identity()
        if found is None:
            problem = "was removed during the run"
        elif identity is not None and found != identity:
            problem = "was replaced by another file during the run"
        else:
            try:
                reader = sqlite3.connect(
                    f"{Path(self.path).resolve().as_uri()}?mode=ro", uri=True
                )
                try:
                    count = reader.execute("SELECT COUNT(*) FROM results").fetchone()
                finally:
                    reader.close()
            except sqlite3.DatabaseError as exc:
                problem = f"cannot be read after the run ({exc})"
            else:
                if count[0] >= n_rows:
                    return
                problem = (
                    f"holds {count[0]} rows after the run, not the {n_rows} committed"
                )
        raise StoreError(
            f"the results store {self.path!r} {problem}: the rows of this run are "
            "lost (a learner can change files by their path); run the study again"
        )

    @_store_errors
    def __len__(self) -> int:
        return self._connection().execute("SELECT COUNT(*) FROM results").fetchone()[0]

    @_store_errors
    def frame(self) -> Any:
        """All stored rows as a tidy pandas DataFrame.

        Returns
        -------
        pandas.DataFrame
            One row per stored fit, in insertion order, with the columns in the
            order of the result schema (key, cell, metrics, outcome). Integer
            columns are ``int64`` (``Int64`` where a value may be missing), the
            others ``float64`` (a missing density or metric is NaN) or text.

        Examples
        --------
        >>> ResultStore(":memory:").frame().shape
        (0, 21)
        """
        import pandas as pd  # optional dependency, needed only for frames

        conn = self._connection()
        _checked_meta(conn, self.path)  # the rows of a damaged store are not used
        records, columns, dtypes = _checked_records(conn, self.path)
        frame = pd.DataFrame.from_records(records, columns=columns)
        return frame.astype(dtypes)

    # -- study metadata ----------------------------------------------------------------

    @_store_errors
    def study(self) -> dict | None:
        """The stored study configuration, or None if none was recorded yet.

        Returns
        -------
        dict or None
            The JSON-decoded configuration passed to :meth:`ensure_study`.

        Examples
        --------
        >>> store = ResultStore(":memory:")
        >>> store.study() is None
        True
        >>> _ = store.ensure_study({"densities": [0.1]})
        >>> store.study()
        {'densities': [0.1]}
        """
        return _checked_meta(self._connection(), self.path).get("study")

    @_store_errors
    def metadata(self) -> dict:
        """Everything in the ``meta`` table, with the study JSON decoded.

        Returns
        -------
        dict
            ``schema_version``, and once a study is recorded ``study`` (dict) and
            ``created`` (ISO 8601 UTC time of the first run).

        Examples
        --------
        >>> ResultStore(":memory:").metadata()
        {'schema_version': '4'}
        """
        return _checked_meta(self._connection(), self.path)

    @_store_errors
    def ensure_study(self, config: Mapping[str, Any]) -> dict:
        """Record ``config`` as this store's study, or check that it is the same.

        Parameters
        ----------
        config : mapping
            A JSON-serialisable description of the study (for the benchmark: the
            grid, the generators, the learners, the seed entropy, ...).

        Returns
        -------
        dict
            The stored configuration (equal to ``config`` after a JSON round trip).

        Raises
        ------
        StudyMismatchError
            If a different study is stored; the message names every differing key
            with both values.

        Examples
        --------
        >>> store = ResultStore(":memory:")
        >>> store.ensure_study({"n_repeats": 2})
        {'n_repeats': 2}
        >>> store.ensure_study({"n_repeats": 3})
        Traceback (most recent call last):
        ...
        skggm_bench.benchmark.results.store.StudyMismatchError: store ':memory:' holds \
another study: n_repeats: stored 2, requested 3. Use a new store path for a new \
study, or re-run with the stored configuration to resume it.
        """
        wanted = json.loads(json.dumps(dict(config), sort_keys=True))
        conn = self._connection()
        # BEGIN IMMEDIATE takes the write lock before reading, so two processes that
        # start the same new study cannot both believe they created it.
        with conn:
            conn.execute("BEGIN IMMEDIATE")
            row = conn.execute("SELECT value FROM meta WHERE key = 'study'").fetchone()
            if row is None:
                conn.execute(
                    "INSERT INTO meta VALUES ('study', ?)",
                    (json.dumps(wanted, sort_keys=True),),
                )
                conn.execute(
                    "INSERT OR REPLACE INTO meta VALUES ('created', ?)",
                    (datetime.now(timezone.utc).isoformat(timespec="seconds"),),
                )
                return wanted
        stored = json.loads(row[0])
        if stored != wanted:
            raise StudyMismatchError(
                f"store {self.path!r} holds another study: "
                f"{_describe_differences(stored, wanted)}. Use a new store path for "
                "a new study, or re-run with the stored configuration to resume it."
                + _against_hint(stored, wanted, self.path)
            )
        return stored


def _against_hint(stored: dict, wanted: dict, path: str) -> str:
    """The way to add learners to a study, for a request that only adds learners."""
    from ._provenance import split_study

    (data, judged), (wanted_data, wanted_judged) = (
        split_study(stored),
        split_study(wanted),
    )
    stored_learners = judged.pop("learners", {})
    wanted_learners = wanted_judged.pop("learners", {})
    added = [name for name in wanted_learners if name not in stored_learners]
    if data != wanted_data or judged != wanted_judged or not added:
        return ""
    return (
        f" To add {', '.join(map(repr, added))} without re-running the stored "
        "learners, run the study against this store into a new one: skggm-bench "
        f"run --config STUDY.toml --against {shlex.quote(path)} --store NEW.sqlite "
        "(in Python: Benchmark(..., store=NEW).run(against=STORE))"
    )


def _upgrade(conn: sqlite3.Connection) -> None:
    """A store of an upgradable version gets the later columns, as NULL."""
    version = conn.execute(
        "SELECT value FROM meta WHERE key = 'schema_version'"
    ).fetchone()
    if version is None or version[0] not in _UPGRADABLE_VERSIONS:
        return  # this version's own, or refused by _check_is_store
    existing = {row[1] for row in conn.execute("PRAGMA table_info(results)")}
    with conn:
        for name in LATER_COLUMNS:
            if name not in existing:
                conn.execute(
                    f'ALTER TABLE results ADD COLUMN "{name}" '
                    f"{_SQL_TYPES[COLUMN_TYPES[name]]}"
                )
        conn.execute(
            "UPDATE meta SET value = ? WHERE key = 'schema_version'",
            (_SCHEMA_VERSION,),
        )


def _left_at_creation(conn: sqlite3.Connection) -> bool:
    """Whether the database is what an interrupted creation of a store left.

    Stores of earlier versions were created one table at a time: a kill or a
    full disk in between left some of the tables, no schema version and no row.
    """
    tables = {
        row[0]
        for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
    }
    if not tables:
        return True  # a database, even with a header, holding nothing
    if not tables <= {"results", "meta"}:
        return False
    if "meta" in tables:
        keys = {row[0] for row in conn.execute("SELECT key FROM meta")}
        if "schema_version" in keys and "results" in tables:
            return False
        if keys - {"schema_version"}:
            return False
    if "results" in tables:
        return conn.execute("SELECT COUNT(*) FROM results").fetchone()[0] == 0
    return True


def _check_is_store(conn: sqlite3.Connection, path: str) -> None:
    """A results store of this version: its tables and its schema version."""
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    if not {"results", "meta"} <= tables:
        raise StoreError(
            f"{path!r} is not a skggm-bench results store"
            + (f" (it has the tables {sorted(tables)})" if tables else "")
        )
    version = conn.execute(
        "SELECT value FROM meta WHERE key = 'schema_version'"
    ).fetchone()
    if version is None or version[0] not in (_SCHEMA_VERSION, *_UPGRADABLE_VERSIONS):
        found = "no schema version" if version is None else f"version {version[0]}"
        readable = ", ".join((*_UPGRADABLE_VERSIONS, _SCHEMA_VERSION))
        raise StoreError(
            f"{path!r} is a results store of another skggm-bench version "
            f"({found}; this version reads versions {readable}); start a "
            "new store for this version"
        )


def _checked_records(
    conn: sqlite3.Connection, path: str
) -> tuple[list[tuple], list[str], dict[str, Any]]:
    """Every stored row in insertion order, its columns and their frame dtypes.

    Raises
    ------
    StoreError
        For a value its column cannot hold.
    """
    kind = conn.execute(
        "SELECT type FROM sqlite_master WHERE name = 'results'"
    ).fetchone()
    if kind is not None and kind[0] != "table":
        raise StoreError(
            f"damaged store: results is a {_quoted(kind[0])}, not a table "
            f"({path!r} was changed outside skggm-bench)"
        )
    existing = [row[1] for row in conn.execute("PRAGMA table_info(results)")]
    for name in existing:
        if not isinstance(name, str) or not _IDENTIFIER.match(name):
            raise StoreError(
                f"damaged store: the results table has a column named "
                f"{_quoted(name)}, not a plain identifier ({path!r} was changed "
                "outside skggm-bench)"
            )
    version = conn.execute(
        "SELECT value FROM meta WHERE key = 'schema_version'"
    ).fetchone()
    # A store of an upgradable version lacks the later columns by design.
    optional = LATER_COLUMNS if version and version[0] in _UPGRADABLE_VERSIONS else ()
    missing = [
        name for name in _FIXED_COLUMNS if name not in existing and name not in optional
    ]
    if missing:
        raise StoreError(
            f"damaged store: the results table has no column {missing[0]} "
            f"({path!r} was changed outside skggm-bench)"
        )
    fixed = set(_FIXED_COLUMNS)
    columns = result_columns([name for name in existing if name not in fixed])
    # A later column missing from an older store reads as NULL (unknown).
    quoted = ", ".join(
        f'"{name}"' if name in existing else f'NULL AS "{name}"' for name in columns
    )
    records = conn.execute(
        f"SELECT rowid, {quoted} FROM results ORDER BY rowid"
    ).fetchall()
    kinds = {name: COLUMN_TYPES.get(name, "real") for name in columns}
    dtypes: dict[str, Any] = {
        name: {"text": object, "real": "float64"}.get(kind, "int64")
        for name, kind in kinds.items()
    }
    # Cell statistics are missing in the rows of a data set that failed.
    dtypes |= {name: "Int64" for name in ("n_edges", "n_added_edges")}
    # Unknown where the fit did not finish, and in older stores.
    dtypes |= {name: "Int64" for name in LATER_COLUMNS}
    _check_values(records, columns, dtypes, path)
    _check_unique_keys(records, columns, path)
    return [record[1:] for record in records], columns, dtypes


def _check_unique_keys(records: list[tuple], columns: list[str], path: str) -> None:
    """Refuse two rows of one key (the table's unique index dropped or bypassed):
    an export would hold both, and a merge keep one of them silently."""
    positions = [columns.index(name) + 1 for name in KEY_COLUMNS]
    seen: dict[tuple, Any] = {}
    for record in records:
        key = tuple(record[i] for i in positions)
        if key in seen:
            raise StoreError(
                f"damaged store: rows {seen[key]} and {record[0]} have the same key "
                f"{_key_text(key)} ({path!r} was changed outside "
                "skggm-bench)"
            )
        seen[key] = record[0]


def _check_values(
    records: list[tuple], columns: list[str], dtypes: dict, path: str
) -> None:
    """Refuse a value the frame's column cannot hold (a file edited or damaged).

    SQLite keeps whatever a column is given; ``records`` are ``(rowid, *values)``.
    """
    numbers = {"float64": (int, float), "int64": (int,), "Int64": (int,)}
    for position, name in enumerate(columns, start=1):
        allowed = numbers.get(dtypes[name], (str,))
        what = {"float64": "a number", "int64": "an integer", "Int64": "an integer"}
        nullable = dtypes[name] in ("float64", "Int64")
        low = _LOWEST.get(name)
        for record in records:
            value = record[position]
            if value is None and nullable:
                continue
            # bool is an int, but SQLite never gives one back
            if not isinstance(value, allowed):
                problem = f"not {what.get(dtypes[name], 'text')}"
            elif low is not None and not value >= low:
                problem = f"less than {low}"
            elif name == "density" and not 0.0 <= value <= 1.0:
                problem = "not a density between 0 and 1"
            elif name == "status" and value not in STATUSES:
                problem = f"not a status ({', '.join(STATUSES)})"
            elif name in NAME_COLUMNS and len(value) > MAX_NAME_LENGTH:
                problem = f"a name longer than {MAX_NAME_LENGTH} characters"
            elif name == "versions" and not _plain_versions(value):
                problem = "not a JSON object of package versions"
            else:
                continue
            raise StoreError(
                f"damaged store: column {name} of row {record[0]} holds "
                f"{_quoted(value)}, {problem} ({path!r} was changed outside "
                "skggm-bench)"
            )


# The least value of the integer columns that have one.
_LOWEST = {"n_features": 1, "n_samples": 1, "repeat": 0, "seed": 0, "n_edges": 0,
           "n_added_edges": 0, "fit_time": 0.0, "n_warnings": 0}  # fmt: skip


@functools.lru_cache(maxsize=256)
def _plain_versions(text: str) -> bool:
    """Whether ``text`` is a JSON object of package names to version strings."""
    try:
        versions = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return isinstance(versions, dict) and all(
        isinstance(value, str) for value in versions.values()
    )


def _quoted(value: Any, limit: int = 200) -> str:
    """``repr(value)``, cut to ``limit`` characters (a value may be megabytes)."""
    if isinstance(value, (str, bytes)) and len(value) > limit:
        value = value[:limit]  # repr of the head only, not of megabytes
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _json_depth(value: Any) -> int:
    """How deeply containers nest in a JSON value (without recursion)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            items = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in items)
    return deepest


# A study description nests some levels (learner -> parameters -> a nested
# estimator's parameters); far deeper is no description this package wrote.
_MAX_STUDY_DEPTH = 32
_META_KEYS = ("schema_version", "study", "created")


def _checked_meta(conn: sqlite3.Connection, path: str) -> dict:
    """The ``meta`` table, checked: text values, the study a JSON object.

    Raises
    ------
    StoreError
        ``damaged store: ...`` naming the first problem.
    """
    damaged = f"({path!r} was changed outside skggm-bench)"
    meta: dict[str, Any] = {}
    for key, value in conn.execute("SELECT key, value FROM meta ORDER BY key"):
        if not isinstance(key, str) or not isinstance(value, str):
            raise StoreError(
                f"damaged store: the metadata entry {_quoted(key)} holds "
                f"{_quoted(value)}, not text {damaged}"
            )
        meta[key] = value
    if "study" not in meta:
        return meta
    try:
        study = json.loads(meta["study"])
    except (ValueError, RecursionError) as exc:
        problem = "nested too deeply" if isinstance(exc, RecursionError) else exc
        raise StoreError(
            f"damaged store: its study description is not valid JSON ({problem}) "
            f"{damaged}"
        ) from None
    if not isinstance(study, dict):
        raise StoreError(
            f"damaged store: its study description is {_quoted(study)}, not a JSON "
            f"object {damaged}"
        )
    if _json_depth(study) > _MAX_STUDY_DEPTH:
        raise StoreError(
            f"damaged store: its study description nests deeper than "
            f"{_MAX_STUDY_DEPTH} levels {damaged}"
        )
    for name in ("learners", "generators", "data_models", "graphs"):
        if name in study and not isinstance(study[name], dict):
            raise StoreError(
                f"damaged store: the {name} of its study are "
                f"{_quoted(study[name])}, not a JSON object {damaged}"
            )
    meta["study"] = study
    return meta


def _check_row(row: dict) -> None:
    missing = [name for name in _FIXED_COLUMNS if name in _REQUIRED and name not in row]
    if missing:
        raise ValueError(f"result row {row!r} misses the columns {missing}")
    if row["status"] not in STATUSES:
        raise ValueError(
            f"status must be one of {STATUSES}, got {row['status']!r} in row {row!r}"
        )
    for name in row:
        if not isinstance(name, str) or not _IDENTIFIER.match(name):
            raise ValueError(
                f"column names must be plain identifiers (letters, digits, _), got "
                f"{name!r}"
            )


def _to_sql(value: Any, name: str) -> Any:
    """A Python/numpy value as something sqlite3 stores faithfully."""
    if name in ("message", "data_hash", "versions") and value is None:
        return "{}" if name == "versions" else ""
    if value is None or isinstance(value, str):
        return value
    if hasattr(value, "item"):  # numpy scalar -> Python scalar
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None  # SQLite has no NaN; NULL reads back as NaN in the frame
    return value


def _describe_differences(stored: dict, wanted: dict) -> str:
    parts = []
    for key in sorted(set(stored) | set(wanted)):
        old, new = stored.get(key), wanted.get(key)
        if old == new:
            continue
        if key == "learners" and isinstance(old, dict) and isinstance(new, dict):
            if list(old) != list(new):  # the names say it; descriptions are long
                old, new = list(old), list(new)
        parts.append(f"{key}: stored {_short(old)}, requested {_short(new)}")
    return "; ".join(parts)


def _short(value: Any, limit: int = 200) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --------------------------------------------------------------------------------------
# Merging stores
# --------------------------------------------------------------------------------------


class MergeError(ValueError):
    """Stores that cannot be merged; the message names the first difference.

    Examples
    --------
    >>> issubclass(MergeError, ValueError)
    True
    """


# Columns a re-run of the same fit need not reproduce: a time measured on another
# machine, and the package versions of the process that ran it.
_MEASURED = ("fit_time", "versions")


def _raw_rows(store: ResultStore) -> tuple[list[str], list[tuple]]:
    """A store's rows, each checked against the schema (a damaged one refused)."""
    records, columns, _ = _checked_records(store._connection(), store.path)
    return columns, records


def _merged_study(studies: list[tuple[str, dict]]) -> dict:
    """One study for all: equal data sides and judging, the union of learners."""
    from ._provenance import split_study, study_conflict

    first_path, merged = studies[0]
    owner = dict.fromkeys(merged.get("learners", {}), first_path)
    for path, study in studies[1:]:
        conflict = study_conflict(merged, study)
        if conflict is not None and conflict.kind == "data":
            raise MergeError(
                f"{first_path!r} and {path!r} hold studies with different data "
                f"sides (their data sets are not the same): {conflict.difference}"
            )
        if conflict is not None and conflict.kind == "judging":
            raise MergeError(
                f"{first_path!r} and {path!r} judge their learners differently, "
                f"so one leaderboard cannot rank them: {conflict.difference}"
            )
        if conflict is not None:
            raise MergeError(
                f"learner {conflict.learner!r} is not the same estimator in "
                f"{owner[conflict.learner]!r} and {path!r}: {conflict.difference}; "
                "rename one of them"
            )
        learners = dict(merged.get("learners", {}))
        for name, description in study.get("learners", {}).items():
            learners.setdefault(name, description)
            owner.setdefault(name, path)
        data, judged = split_study(merged)
        merged = {**data, **judged, "learners": learners}
    return merged


class StudyExtension:
    """A published study, and the learners a new study adds to it on its data.

    Made by :func:`extend_study`; :meth:`Benchmark.run(against=...)
    <skggm_bench.benchmark.Benchmark.run>` uses it to run only the new learners and
    to check that each of their rows was computed on the published data set.

    Attributes
    ----------
    study : dict
        The extended study: the published data side and judging, the published
        learners, then the new ones.
    published : str
        The path of the published store.
    new_learners : list of str
        The learners of the requested study that the published one lacks.

    Examples
    --------
    >>> columns = ["generator", "graph", "data_model", "learner", "density",
    ...            "n_features", "n_samples", "repeat", "seed", "data_hash"]
    >>> published = [("dd", "er", "gaussian", "glasso", 0.1, 10, 50, 0, 7, "ab12")]
    >>> extension = StudyExtension({}, "pub.sqlite", ["lw"], columns, published)
    >>> new = dict(zip(columns, ("dd", "er", "gaussian", "lw", 0.1, 10, 50, 0, 7,
    ...                          "ab12")))
    >>> extension.check_row(new)  # the published data set: accepted
    >>> extension.check_row({**new, "data_hash": "ff00"})
    Traceback (most recent call last):
    ...
    skggm_bench.benchmark.results.store.StudyMismatchError: the row generator='dd', \
graph='er', data_model='gaussian', learner='lw', density=0.1, n_features=10, \
n_samples=50, repeat=0 was not computed on the published data: its data_hash is \
'ff00', and the published row generator='dd', graph='er', data_model='gaussian', \
learner='glasso', density=0.1, n_features=10, n_samples=50, repeat=0 in \
'pub.sqlite' has 'ab12'; the data sets differ (another version of a generator, \
data model or numpy draws other data)
    """

    def __init__(
        self,
        study: dict,
        published: str,
        new_learners: list[str],
        columns: list[str],
        rows: list[tuple],
    ) -> None:
        self.study = study
        self.published = published
        self.new_learners = new_learners
        self._columns = columns
        self._rows = rows
        learner = KEY_COLUMNS.index("learner")
        key_at = [columns.index(name) for name in KEY_COLUMNS]
        seed, data_hash = columns.index("seed"), columns.index("data_hash")
        # One entry per published data set: the key of its first row (to name
        # it), its seed and its data hash.
        self._data: dict[tuple, tuple[tuple, Any, Any]] = {}
        for row in rows:
            key = tuple(row[i] for i in key_at)
            self._data.setdefault(
                key[:learner] + key[learner + 1 :], (key, row[seed], row[data_hash])
            )

    def published_rows(self) -> Iterable[dict]:
        """The published store's rows, to copy into the extended store."""
        return (dict(zip(self._columns, row, strict=True)) for row in self._rows)

    def check_covers(self, keys: Iterable[tuple]) -> None:
        """Refuse keys whose data set the published store does not hold.

        Raises
        ------
        StudyMismatchError
            Naming the first such key: nothing proves what its data should be.
        """
        learner = KEY_COLUMNS.index("learner")
        for key in keys:
            if key[:learner] + key[learner + 1 :] not in self._data:
                raise StudyMismatchError(
                    f"the published store {self.published!r} holds no row of the "
                    f"data set of {_key_text(key)}, so its data cannot be checked: "
                    "run --against a complete study (merge its shards first)"
                )

    def check_row(self, row: Mapping[str, Any]) -> None:
        """Refuse a new row whose data set is not the published one.

        Raises
        ------
        StudyMismatchError
            Naming the row, the published row of its data set, and the first of
            ``seed`` and ``data_hash`` that differs.
        """
        key = tuple(row[name] for name in KEY_COLUMNS)
        learner = KEY_COLUMNS.index("learner")
        found = self._data.get(key[:learner] + key[learner + 1 :])
        if found is None:
            self.check_covers([key])
            return
        published_key, seed, data_hash = found
        # A data set that could not be drawn has no hash: nothing to compare.
        pairs = [("seed", seed, row.get("seed"))]
        if data_hash and row.get("data_hash"):
            pairs.append(("data_hash", data_hash, row.get("data_hash")))
        for name, published, new in pairs:
            if published != new:
                raise StudyMismatchError(
                    f"the row {_key_text(key)} was not computed on the published "
                    f"data: its {name} is {_quoted(new)}, and the published row "
                    f"{_key_text(published_key)} in {self.published!r} has "
                    f"{_quoted(published)}; the data sets differ (another version "
                    "of a generator, data model or numpy draws other data)"
                )


def extend_study(
    published: str | os.PathLike | ResultStore, study: Mapping[str, Any]
) -> StudyExtension:
    """Check that ``study`` adds learners to a published study, on its very data.

    The requested study's data side (generators, graphs, data models, densities,
    sizes, seeds, repeats, seeding scheme, model) and its judging (metrics,
    timeout, memory limit) must equal the published study's, and a learner of
    both must be the same estimator. Its other learners are the new ones; the
    rows they produce are then checked one by one against the published rows of
    the same data set (:meth:`StudyExtension.check_row`).

    Parameters
    ----------
    published : str, os.PathLike or ResultStore
        The published study's store (read, never changed).
    study : mapping
        The requested study's fingerprint (what ``Benchmark.run`` records).

    Returns
    -------
    StudyExtension

    Raises
    ------
    StudyMismatchError
        Naming the first difference of the data sides, the judging or a shared
        learner; or if the published store records no study.
    StoreError
        If ``published`` is not a readable results store.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from sklearn.covariance import GraphicalLasso, LedoitWolf
    >>> from skggm_bench.benchmark import Benchmark
    >>> from skggm_bench.generators import DiagonalDominance
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "published.sqlite"
    >>> _ = Benchmark({"dd": DiagonalDominance()}, {"lw": LedoitWolf()},
    ...               n_features=6, metrics=("f1",), random_state=0,
    ...               store=path).run()
    >>> study = ResultStore(path, read_only=True).study()
    >>> extend_study(path, study).new_learners
    []
    >>> extend_study(path, {**study, "n_repeats": 2})
    Traceback (most recent call last):
    ...
    skggm_bench.benchmark.results.store.StudyMismatchError: the study does not \
draw the data of the published store '...': n_repeats: 1 against 2 (published \
against requested)
    """
    from ._provenance import split_study, study_conflict

    store = (
        published
        if isinstance(published, ResultStore)
        else ResultStore(published, read_only=True)
    )
    try:
        stored = store.study()
        if stored is None:
            raise StudyMismatchError(
                f"{store.path!r} holds no study description (it was not written by "
                "a Benchmark run), so nothing proves what its rows were computed on"
            )
        columns, rows = _raw_rows(store)
    finally:
        if store is not published:
            store.close()
    wanted = json.loads(json.dumps(dict(study), sort_keys=True))
    conflict = study_conflict(stored, wanted)
    if conflict is not None and conflict.kind == "data":
        raise StudyMismatchError(
            f"the study does not draw the data of the published store "
            f"{store.path!r}: {conflict.difference} (published against requested)"
        )
    if conflict is not None and conflict.kind == "judging":
        raise StudyMismatchError(
            f"the study judges its learners otherwise than the published store "
            f"{store.path!r}, so one leaderboard cannot rank them: "
            f"{conflict.difference} (published against requested)"
        )
    if conflict is not None:
        raise StudyMismatchError(
            f"learner {conflict.learner!r} is not the same estimator as in the "
            f"published store {store.path!r}: {conflict.difference} (published "
            "against requested); rename it to add it as a new learner"
        )
    data, judged = split_study(stored)
    learners = dict(judged.get("learners", {}))
    new = [name for name in wanted.get("learners", {}) if name not in learners]
    learners.update({name: wanted["learners"][name] for name in new})
    return StudyExtension(
        {**data, **judged, "learners": learners}, store.path, new, columns, rows
    )


def _key_text(key: tuple) -> str:
    pairs = zip(KEY_COLUMNS, key, strict=True)
    return ", ".join(f"{name}={_quoted(value)}" for name, value in pairs)


def merge_stores(
    sources: Iterable[str | os.PathLike | ResultStore], out: str | os.PathLike
) -> int:
    """Merge results stores into a new one, proving that their data are the same.

    Two kinds of stores merge:

    * **shards of one study** (``Benchmark(..., shard=(i, k))``, ``skggm-bench run
      --shard I/K``): the merged store equals the store of one uninterrupted run,
      row for row;
    * **studies with the same data side** -- generators, graphs, data models, grid,
      seed entropy, seeding scheme and model -- but different learners (e.g. two
      groups' learners on the very same data sets): the merged store holds every
      learner, and one leaderboard ranks them all.

    The stores' studies must also judge their learners alike (metrics, timeout,
    memory limit), and a learner name present in two studies must be the same
    estimator. Rows are checked, not trusted: a row (key) present in two stores
    must have the same values (all but ``fit_time`` and ``versions``, which a
    re-run on another machine does not reproduce; the first store's copy is
    kept), and every row of one data set (same key but the learner) must carry
    the same ``seed`` and ``data_hash``: a hash of the data the learner was given
    and of the true matrix.

    Parameters
    ----------
    sources : iterable of str, os.PathLike or ResultStore
        The stores to merge (read, never changed), at least one.
    out : str or os.PathLike
        The merged store; it must not exist yet.

    Returns
    -------
    int
        The number of rows of the merged store.

    Raises
    ------
    MergeError
        Naming the first difference: between two data sides, two judging
        conditions, two estimators of one name, two copies of a row, or two
        data hashes of one data set. Nothing is written then.
    StoreError
        If a source is not a results store, or ``out`` exists.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from sklearn.covariance import GraphicalLasso, LedoitWolf
    >>> from skggm_bench.benchmark import Benchmark
    >>> from skggm_bench.generators import DiagonalDominance
    >>> tmp = pathlib.Path(tempfile.mkdtemp())
    >>> for i in (1, 2):
    ...     _ = Benchmark({"dd": DiagonalDominance()},
    ...                   {"glasso": GraphicalLasso(alpha=0.1), "lw": LedoitWolf()},
    ...                   n_features=6, n_repeats=4, metrics=("f1",),
    ...                   random_state=0, shard=(i, 2),
    ...                   store=tmp / f"part{i}.sqlite").run()
    >>> merge_stores([tmp / "part1.sqlite", tmp / "part2.sqlite"],
    ...              tmp / "all.sqlite")
    8
    """
    sources = list(sources)
    if not sources:
        raise ValueError("give at least one store to merge")
    out_path = os.fspath(out)
    if Path(out_path).exists():
        raise StoreError(
            f"the merged store {out_path!r} exists already; give a new path"
        )
    stores = [
        s if isinstance(s, ResultStore) else ResultStore(s, read_only=True)
        for s in sources
    ]
    try:
        studies = []
        for store in stores:
            study = store.study()
            if study is None:
                raise MergeError(
                    f"{store.path!r} holds no study description (it was not "
                    "written by a Benchmark run), so nothing proves what its "
                    "rows were computed on"
                )
            studies.append((store.path, study))
        study = _merged_study(studies)
        rows, columns = _merged_rows(stores)
    finally:
        for store, source in zip(stores, sources, strict=True):
            if store is not source:
                store.close()
    if out_path == ":memory:":
        raise ValueError("out must be a file path: an in-memory store is lost")
    # Written under a temporary name and renamed when complete: a merge that
    # fails half-way leaves no store that looks finished.
    partial = Path(out_path).with_name(Path(out_path).name + ".partial")
    partial.unlink(missing_ok=True)
    with ResultStore(partial) as merged:
        merged.ensure_study(study)
        merged.append(dict(zip(columns, row, strict=True)) for row in rows)
        count = len(merged)
    os.replace(partial, out_path)
    return count


def _merged_rows(stores: list[ResultStore]) -> tuple[list[tuple], list[str]]:
    """Every distinct row once, in the stores' order; conflicts refused."""
    columns: list[str] = list(_FIXED_COLUMNS)
    tables = []
    for store in stores:
        names, rows = _raw_rows(store)
        columns += [name for name in names if name not in columns]
        tables.append((store.path, names, rows))
    key_at = [columns.index(name) for name in KEY_COLUMNS]
    compared = [i for i, name in enumerate(columns) if name not in _MEASURED]
    kept: dict[tuple, tuple[str, tuple]] = {}
    for path, names, rows in tables:
        position = [names.index(c) if c in names else None for c in columns]
        for raw in rows:
            row = tuple(None if i is None else raw[i] for i in position)
            key = tuple(row[i] for i in key_at)
            if key not in kept:
                kept[key] = (path, row)
                continue
            first_path, first = kept[key]
            for i in compared:
                # A later column is unknown (NULL) in the rows of older stores.
                unknown = columns[i] in LATER_COLUMNS and None in (first[i], row[i])
                if first[i] != row[i] and not unknown:
                    raise MergeError(
                        f"the row {_key_text(key)} is in {first_path!r} and "
                        f"{path!r} with different values: {columns[i]} is "
                        f"{_quoted(first[i])} against {_quoted(row[i])}"
                    )
    _check_data_hashes(kept, columns)
    return [row for _, row in kept.values()], columns


def _check_data_hashes(kept: dict[tuple, tuple[str, tuple]], columns: list) -> None:
    """Every row of one data set (all learners) has the same seed and data hash."""
    learner = KEY_COLUMNS.index("learner")
    seed, data_hash = columns.index("seed"), columns.index("data_hash")
    seen: dict[tuple, tuple[str, tuple, tuple]] = {}
    for key, (path, row) in kept.items():
        data_key = key[:learner] + key[learner + 1 :]
        if not row[data_hash]:  # the data set could not be drawn: no data to hash
            continue
        if data_key not in seen:
            seen[data_key] = (path, key, row)
            continue
        first_path, first_key, first = seen[data_key]
        for i in (seed, data_hash):
            if first[i] != row[i]:
                raise MergeError(
                    f"the rows {_key_text(first_key)} (in {first_path!r}) and "
                    f"{_key_text(key)} (in {path!r}) should share one data set, but "
                    f"their {columns[i]} is {_quoted(first[i])} against "
                    f"{_quoted(row[i])}: the "
                    "data sets differ"
                )


# --------------------------------------------------------------------------------------
# Exports
# --------------------------------------------------------------------------------------

#: The file formats of :func:`export_results`.
EXPORT_FORMATS: tuple[str, ...] = ("csv", "parquet", "jsonl")
_PARQUET_HINT = "pip install 'skggm-bench[parquet]'"


def _dtypes_path(path: Path) -> Path:
    return path.with_name(path.name + ".dtypes.json")


def _export_format(path: Path, format: str | None) -> str:
    if format is None:
        format = path.suffix.lstrip(".").lower()
        if format not in EXPORT_FORMATS:
            raise ValueError(
                f"cannot tell the format of {str(path)!r} from its suffix; give "
                f"format= one of {', '.join(EXPORT_FORMATS)}"
            )
    if format not in EXPORT_FORMATS:
        raise ValueError(
            f"format must be one of {', '.join(EXPORT_FORMATS)}, got {format!r}"
        )
    return format


def _require_pyarrow() -> None:
    import importlib.util

    if importlib.util.find_spec("pyarrow") is None:
        raise ImportError(
            f"Parquet files need pyarrow, which is not installed: {_PARQUET_HINT}"
        )


def _remove_abandoned(path: Path) -> None:
    """Remove the ``.partial`` files beside ``path`` of writers no longer alive.

    Each is named by its writer's pid: one a killed export or merge left (it
    could not clean up) goes; one being written now is left alone.
    """
    with contextlib.suppress(OSError):
        for partial in path.parent.glob(f".{glob.escape(path.name)}.*.partial"):
            pid = partial.name[len(path.name) + 2 :].split(".", 1)[0]
            if pid.isdigit() and not _alive(int(pid)):
                partial.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's: alive
        return True
    return True


def _written(path: Path, write: Callable[[Path], Any]) -> Path:
    """``write`` a temporary file beside ``path``, synced; its path.

    Renamed into place by the caller: a kill or a full disk leaves at most a
    hidden ``.NAME.PID.*.partial`` file, never a half-written file under the final
    name; the next write beside it removes it.
    """
    _remove_abandoned(path)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.{os.getpid()}.",
                                suffix=".partial")  # fmt: skip
    os.close(fd)
    temporary = Path(name)
    try:
        write(temporary)
        with open(temporary, "rb+") as file:
            os.fsync(file.fileno())
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return temporary


def export_results(
    store: str | os.PathLike | ResultStore,
    out: str | os.PathLike,
    format: str | None = None,
    *,
    overwrite: bool = False,
) -> Path:
    """Write every row of a store to a CSV, Parquet or JSON-lines file.

    Reading the file back gives the store's frame (:meth:`ResultStore.frame`):
    the same rows, columns, values and dtypes. Parquet keeps the dtypes itself;
    for CSV and JSON lines a sidecar ``<out>.dtypes.json`` records them, and
    :func:`read_export` (or the pandas call in ``docs/harness.md``) applies them.
    Floats are written with all their digits, missing values as empty cells
    (CSV) or ``null`` (JSON lines), text as it is.

    The files are written under temporary names in the folder of ``out`` and
    renamed into place, the sidecar first, the data file last (an existing data
    file is removed before): a kill leaves either no data file, or a whole one
    with its own sidecar. A symbolic link at ``out`` is replaced, not followed.

    Parameters
    ----------
    store : str, os.PathLike or ResultStore
        The store (opened read-only when given as a path).
    out : str or os.PathLike
        The file to write (its folder is created).
    format : {"csv", "parquet", "jsonl"} or None, default=None
        None: from the suffix of ``out``.
    overwrite : bool, default=False
        Replace an existing ``out`` (and its sidecar).

    Returns
    -------
    pathlib.Path
        ``out``.

    Raises
    ------
    ValueError
        For an unknown format.
    FileExistsError
        For an existing ``out`` (a file, a link, anything) without ``overwrite``.
    ImportError
        For Parquet without pyarrow (``pip install 'skggm-bench[parquet]'``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> store = ResultStore(":memory:")
    >>> _ = store.append([dict(generator="g", graph="chain", data_model="gaussian",
    ...                        learner="l", density=None, n_features=5,
    ...                        n_samples=9, repeat=0, seed=1, f1=0.1,
    ...                        status="ok")])
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "results.csv"
    >>> path = export_results(store, out)
    >>> read_export(path).equals(store.frame())
    True
    """
    out = Path(out)
    format = _export_format(out, format)
    if format == "parquet":
        _require_pyarrow()
    if os.path.lexists(out) and not overwrite:
        raise FileExistsError(f"{str(out)!r} exists already")
    if isinstance(store, ResultStore):
        frame = store.frame()
    else:
        with ResultStore(store, read_only=True) as opened:
            frame = opened.frame()
    out.parent.mkdir(parents=True, exist_ok=True)
    if format == "parquet":
        data = _written(out, lambda path: frame.to_parquet(path, index=False))
        os.replace(data, out)
        return out

    def write_data(path: Path) -> None:
        if format == "csv":
            # repr of a float is its shortest exact decimal: read back bit for bit.
            frame.to_csv(path, index=False, na_rep="", lineterminator="\n")
            return
        with open(path, "w", encoding="utf-8") as file:
            for record in frame.itertuples(index=False, name=None):
                values = {
                    name: _json_value(value)
                    for name, value in zip(frame.columns, record, strict=True)
                }
                file.write(json.dumps(values, ensure_ascii=False) + "\n")

    dtypes = {name: str(dtype) for name, dtype in frame.dtypes.items()}
    data = _written(out, write_data)
    try:
        sidecar = _written(
            out, lambda path: path.write_text(json.dumps(dtypes, indent=1) + "\n")
        )
    except BaseException:
        data.unlink(missing_ok=True)
        raise
    # No moment at which a data file sits beside a sidecar not its own.
    if os.path.lexists(out):
        out.unlink()
    os.replace(sidecar, _dtypes_path(out))
    os.replace(data, out)
    return out


def _json_value(value: Any) -> Any:
    if value is None or value is _pandas_na():
        return None
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _pandas_na() -> Any:
    import pandas as pd

    return pd.NA


_PANDAS_MAJOR = int(importlib.metadata.version("pandas").split(".")[0])


def read_export(path: str | os.PathLike, format: str | None = None) -> Any:
    """Read a file of :func:`export_results` back into the store's frame.

    Parameters
    ----------
    path : str or os.PathLike
        The exported file (for CSV and JSON lines, with its ``.dtypes.json``
        sidecar beside it).
    format : {"csv", "parquet", "jsonl"} or None, default=None
        None: from the suffix of ``path``.

    Returns
    -------
    pandas.DataFrame
        Equal to the exporting store's :meth:`ResultStore.frame`.

    Examples
    --------
    See :func:`export_results`.
    """
    import pandas as pd

    path = Path(path)
    format = _export_format(path, format)
    if format == "parquet":
        _require_pyarrow()
        import pyarrow.parquet as pq

        # pandas >= 3 reads text as its ``str`` dtype; the store's frame (and the
        # file's pandas metadata) has ``object``.
        stored = pq.read_schema(path).pandas_metadata or {"columns": []}
        text = {
            c["name"]: object for c in stored["columns"] if c["numpy_type"] == "object"
        }
        return pd.read_parquet(path).astype(text)
    dtypes = json.loads(_dtypes_path(path).read_text())
    if format == "csv":
        # Text cells are never missing ("" is an empty message): only numeric
        # columns read an empty cell as missing. pandas < 3 parses floats exactly
        # only when asked to.
        exact = {"float_precision": "round_trip"} if _PANDAS_MAJOR < 3 else {}
        return pd.read_csv(
            path,
            dtype=dtypes,
            keep_default_na=False,
            na_values={c: [""] for c, t in dtypes.items() if t != "object"},
            **exact,
        )
    with open(path, encoding="utf-8") as file:
        records = [json.loads(line) for line in file if line.strip()]
    frame = pd.DataFrame.from_records(records, columns=list(dtypes))
    return frame.astype(dtypes)
