"""``ResultStore``: one study's rows in an SQLite file, written row by row.

The module :mod:`skggm_bench.benchmark.results.store` documents the store and
exports it; what a file holds is checked by ``_reading.py``.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import shlex
import sqlite3
import warnings
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

from ._reading import (
    FIXED_COLUMNS,
    REQUIRED,
    SCHEMA_VERSION,
    SQL_TYPES,
    StoreError,
    check_is_store,
    check_row,
    checked_meta,
    checked_records,
    left_at_creation,
    upgrade,
)
from ._schema import COLUMN_TYPES, KEY_COLUMNS, STATUSES

# Another process writing to the same file (two runs of one study) holds the lock for
# one short transaction; waiting up to 60 s rides that out instead of failing.
_BUSY_TIMEOUT_MS = 60_000


def _column_definition(name: str) -> str:
    sql = f"{name} {SQL_TYPES[COLUMN_TYPES[name]]}"
    if name == "status":
        allowed = ", ".join(f"'{status}'" for status in STATUSES)
        return f"{sql} NOT NULL CHECK (status IN ({allowed}))"
    if name in ("message", "data_hash"):
        return f"{sql} NOT NULL DEFAULT ''"
    if name == "versions":
        return f"{sql} NOT NULL DEFAULT '{{}}'"
    if name in REQUIRED and name != "density":
        return f"{sql} NOT NULL"
    return sql


_CREATE_RESULTS = (
    "CREATE TABLE IF NOT EXISTS results (\n    "
    + ",\n    ".join(_column_definition(name) for name in FIXED_COLUMNS)
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

    # Shown as results.store.StudyMismatchError, where users import it.
    __module__ = "skggm_bench.benchmark.results.store"


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

    def __init__(
        self, path: str | os.PathLike[str], *, read_only: bool = False
    ) -> None:
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
            if left_at_creation(conn):
                return  # re-created by _open_for_writing, with a note
            check_is_store(conn, self.path)
            checked_meta(conn, self.path)
            checked_records(conn, self.path)
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
        if tables and left_at_creation(conn):
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
                    (SCHEMA_VERSION,),
                )
        else:
            upgrade(conn)

    def _connection(self) -> sqlite3.Connection:
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        try:
            conn = (
                self._open_read_only() if self.read_only else self._open_for_writing()
            )
            try:
                check_is_store(conn, self.path)
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

    def __getstate__(self) -> dict[str, Any]:
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
        fixed = set(FIXED_COLUMNS)
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
            check_row(row)
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
    def completed_keys(self) -> set[tuple[Any, ...]]:
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
        result: int = (
            self._connection().execute("SELECT COUNT(*) FROM results").fetchone()[0]
        )
        return result

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
        checked_meta(conn, self.path)  # the rows of a damaged store are not used
        records, columns, dtypes = checked_records(conn, self.path)
        frame = pd.DataFrame.from_records(records, columns=columns)
        return frame.astype(dtypes)

    # -- study metadata ----------------------------------------------------------------

    @_store_errors
    def study(self) -> dict[str, Any] | None:
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
        return checked_meta(self._connection(), self.path).get("study")

    @_store_errors
    def metadata(self) -> dict[str, Any]:
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
        return checked_meta(self._connection(), self.path)

    @_store_errors
    def ensure_study(self, config: Mapping[str, Any]) -> dict[str, Any]:
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
                created: dict[str, Any] = wanted
                return created
        stored = json.loads(row[0])
        if stored != wanted:
            raise StudyMismatchError(
                f"store {self.path!r} holds another study: "
                f"{_describe_differences(stored, wanted)}. Use a new store path for "
                "a new study, or re-run with the stored configuration to resume it."
                + _against_hint(stored, wanted, self.path)
            )
        kept: dict[str, Any] = stored
        return kept


def raw_rows(store: ResultStore) -> tuple[list[str], list[tuple[Any, ...]]]:
    """A store's rows, each checked against the schema (a damaged one refused)."""
    records, columns, _ = checked_records(store._connection(), store.path)
    return columns, records


def _against_hint(stored: dict[str, Any], wanted: dict[str, Any], path: str) -> str:
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


def _describe_differences(stored: dict[str, Any], wanted: dict[str, Any]) -> str:
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
