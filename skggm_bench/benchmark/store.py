"""The results store: one SQLite file per study, written row by row, resumable.

A benchmark study produces one *result row* per (generator, learner, density,
n_features, n_samples, repeat). :class:`ResultStore` keeps these rows in an SQLite
database (the standard library's :mod:`sqlite3`, no server) so that

* rows are committed as soon as a task finishes: a crash or ``SIGKILL`` loses at most
  the tasks that were running;
* a re-run of the same study skips what is stored (:meth:`ResultStore.completed_keys`);
* a task cannot be stored twice: the six grid coordinates are a unique key and
  :meth:`ResultStore.append` ignores rows whose key is already present;
* the study's configuration is stored next to the rows
  (:meth:`ResultStore.ensure_study`), so a re-run with a different configuration
  fails with a clear error instead of mixing two studies in one file.

The database is in WAL mode (readers never block the writer, e.g. a report built
while a run is in progress) with ``synchronous=NORMAL``: every committed row survives
the death of the writing process; only an operating-system crash or power loss can
drop the last few commits.

``ResultStore(":memory:")`` gives the same behaviour without a file; the benchmark
harness uses it when no store is requested.

Schema
------
``results``: the six key columns ``generator`` (TEXT), ``learner`` (TEXT),
``density`` (REAL, NULL for graph families without a density), ``n_features``,
``n_samples``, ``repeat`` (INTEGER); then ``seed`` (INTEGER), ``fit_time`` (REAL),
``status`` (``'ok'``, ``'failed'`` or ``'timeout'``), ``message`` (TEXT),
``versions`` (TEXT, JSON) and one REAL column per metric, added the first time a row
carries it. ``meta``: key/value TEXT pairs (``schema_version``, ``study`` as JSON,
``created``).
"""

from __future__ import annotations

import json
import math
import os
import re
import sqlite3
from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

__all__ = [
    "INFO_COLUMNS",
    "KEY_COLUMNS",
    "STATUSES",
    "ResultStore",
    "StudyMismatchError",
]

#: The grid coordinates that identify a result row (the unique key of the store).
KEY_COLUMNS: tuple[str, ...] = (
    "generator",
    "learner",
    "density",
    "n_features",
    "n_samples",
    "repeat",
)
#: Columns every row has besides the key and the metrics, in frame order: ``seed``
#: comes right after the key, the others after the metric columns.
INFO_COLUMNS: tuple[str, ...] = ("seed", "fit_time", "status", "message", "versions")
#: Allowed values of the ``status`` column.
STATUSES: tuple[str, ...] = ("ok", "failed", "timeout")

_SCHEMA_VERSION = "1"
_INTEGER_COLUMNS = ("n_features", "n_samples", "repeat", "seed")
_TEXT_COLUMNS = ("generator", "learner", "status", "message", "versions")
# Metric columns are created from row keys; only plain identifiers are accepted so
# a column name can never inject SQL (it is also double-quoted).
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# Another process writing to the same file (two runs of one study) holds the lock for
# one short transaction; waiting up to 60 s rides that out instead of failing.
_BUSY_TIMEOUT_MS = 60_000

_CREATE_RESULTS = """
CREATE TABLE IF NOT EXISTS results (
    generator  TEXT    NOT NULL,
    learner    TEXT    NOT NULL,
    density    REAL,
    n_features INTEGER NOT NULL,
    n_samples  INTEGER NOT NULL,
    repeat     INTEGER NOT NULL,
    seed       INTEGER NOT NULL,
    fit_time   REAL,
    status     TEXT    NOT NULL CHECK (status IN ('ok', 'failed', 'timeout')),
    message    TEXT    NOT NULL DEFAULT '',
    versions   TEXT    NOT NULL DEFAULT '{}'
)
"""
# SQLite treats NULLs as distinct in a UNIQUE constraint; indexing IFNULL(density, -1)
# makes "no density" (fixed-structure graph families) one value, so such rows cannot
# be duplicated either. -1 is never a valid density.
_CREATE_KEY_INDEX = """
CREATE UNIQUE INDEX IF NOT EXISTS results_task_key ON results (
    generator, learner, IFNULL(density, -1.0), n_features, n_samples, repeat
)
"""
_CREATE_META = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)
"""


class StudyMismatchError(ValueError):
    """The store holds a study whose configuration differs from the requested one.

    Examples
    --------
    >>> issubclass(StudyMismatchError, ValueError)
    True
    """


class ResultStore:
    """SQLite store of benchmark result rows, one file per study.

    Parameters
    ----------
    path : str or os.PathLike
        The database file, created (with its parent directories) if missing.
        ``":memory:"`` keeps everything in memory for the life of the object.

    Attributes
    ----------
    path : str
        The database path as given (``":memory:"`` for an in-memory store).

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
    >>> from skggm_bench.benchmark.store import ResultStore
    >>> store = ResultStore(":memory:")
    >>> row = dict(generator="dd", learner="glasso", density=0.1, n_features=10,
    ...            n_samples=50, repeat=0, seed=7, f1=0.5, fit_time=0.01,
    ...            status="ok", message="", versions="{}")
    >>> store.append([row, row])          # the second copy has the same key
    1
    >>> len(store), sorted(store.completed_keys())
    (1, [('dd', 'glasso', 0.1, 10, 50, 0)])
    >>> store.frame()[["learner", "f1", "status"]]
      learner   f1 status
    0  glasso  0.5     ok
    """

    def __init__(self, path: str | os.PathLike) -> None:
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(
                f"path must be a file path (str or os.PathLike), got {path!r}"
            )
        self.path = os.fspath(path)
        if not self.path:
            raise ValueError("path must be a non-empty file path or ':memory:'")
        self._conn: sqlite3.Connection | None = None
        self._pid: int | None = None
        self._connection()  # fail now, not mid-run, on an unusable path

    # -- connection --------------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT_MS / 1000)
            conn.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
            if self.path != ":memory:":
                conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            # Create the schema only when missing: opening an existing store is then
            # read-only and never waits for a writer (e.g. a report during a run).
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
            if not {"results", "meta", "results_task_key"} <= tables:
                with conn:
                    conn.execute(_CREATE_RESULTS)
                    conn.execute(_CREATE_KEY_INDEX)
                    conn.execute(_CREATE_META)
                    conn.execute(
                        "INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)",
                        (_SCHEMA_VERSION,),
                    )
        except sqlite3.DatabaseError as exc:
            raise ValueError(
                f"cannot use {self.path!r} as a results store: {exc}"
            ) from exc
        version = conn.execute(
            "SELECT value FROM meta WHERE key = 'schema_version'"
        ).fetchone()[0]
        if version != _SCHEMA_VERSION:
            conn.close()
            raise ValueError(
                f"{self.path!r} has store schema version {version}, this version of "
                f"skggm-bench reads version {_SCHEMA_VERSION}"
            )
        self._conn, self._pid = conn, os.getpid()
        return conn

    def close(self) -> None:
        """Close the database connection (it re-opens on the next use).

        Examples
        --------
        >>> store = ResultStore(":memory:")
        >>> store.close()
        """
        if self._conn is not None and self._pid == os.getpid():
            self._conn.close()
        self._conn = None

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __getstate__(self) -> dict:
        if self.path == ":memory:":
            raise TypeError("an in-memory ResultStore cannot be pickled")
        return {"path": self.path, "_conn": None, "_pid": None}

    def __repr__(self) -> str:
        return f"ResultStore({self.path!r})"

    # -- rows ------------------------------------------------------------------------

    def _columns(self) -> list[str]:
        rows = self._connection().execute("PRAGMA table_info(results)").fetchall()
        return [row[1] for row in rows]

    def metric_columns(self) -> list[str]:
        """Names of the metric columns, in the order they were first stored.

        Returns
        -------
        list of str
            Every column that is neither a key column nor an info column.

        Examples
        --------
        >>> ResultStore(":memory:").metric_columns()
        []
        """
        fixed = set(KEY_COLUMNS) | set(INFO_COLUMNS)
        return [name for name in self._columns() if name not in fixed]

    def append(self, rows: Iterable[Mapping[str, Any]]) -> int:
        """Store rows in one transaction; rows whose key is already stored are skipped.

        Parameters
        ----------
        rows : iterable of mappings
            Each with the key columns, ``seed`` and ``status``; ``fit_time``,
            ``message`` and ``versions`` are optional; every other entry is a
            metric (a real number or NaN), and gets its own column.

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
        >>> store.append([dict(generator="g", learner="l", density=None,
        ...                    n_features=5, n_samples=9, repeat=0, seed=1,
        ...                    status="failed", message="ValueError: boom")])
        1
        """
        rows = [dict(row) for row in rows]
        if not rows:
            return 0
        for row in rows:
            _check_row(row)
        conn = self._connection()
        existing = set(self._columns())
        new_metrics = [
            name
            for name in dict.fromkeys(k for row in rows for k in row)
            if name not in existing
        ]
        columns = [*KEY_COLUMNS, *INFO_COLUMNS]
        columns += [name for name in self._columns() if name not in columns]
        columns += new_metrics
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

    def completed_keys(self) -> set[tuple]:
        """Keys of the stored rows, whatever their status.

        Returns
        -------
        set of tuple
            ``(generator, learner, density, n_features, n_samples, repeat)``, with
            ``density`` a float, or ``None`` for graph families without a density.

        Examples
        --------
        >>> ResultStore(":memory:").completed_keys()
        set()
        """
        query = f"SELECT {', '.join(KEY_COLUMNS)} FROM results"
        return {tuple(row) for row in self._connection().execute(query)}

    def __len__(self) -> int:
        return self._connection().execute("SELECT COUNT(*) FROM results").fetchone()[0]

    def frame(self) -> Any:
        """All stored rows as a tidy pandas DataFrame.

        Returns
        -------
        pandas.DataFrame
            One row per stored task, in insertion order, with the key columns,
            ``seed``, the metric columns, then ``fit_time``, ``status``,
            ``message`` and ``versions``. Integer columns are ``int64``, metrics,
            ``density`` and ``fit_time`` ``float64`` (a missing density or metric
            is NaN).

        Examples
        --------
        >>> ResultStore(":memory:").frame().shape
        (0, 11)
        """
        import pandas as pd  # optional dependency, needed only for frames

        metrics = self.metric_columns()
        columns = [*KEY_COLUMNS, "seed", *metrics, *INFO_COLUMNS[1:]]
        quoted = ", ".join(f'"{name}"' for name in columns)
        records = (
            self._connection()
            .execute(f"SELECT {quoted} FROM results ORDER BY rowid")
            .fetchall()
        )
        frame = pd.DataFrame.from_records(records, columns=columns)
        dtypes = {name: "int64" for name in _INTEGER_COLUMNS}
        dtypes |= {name: "float64" for name in ("density", "fit_time", *metrics)}
        dtypes |= {name: object for name in _TEXT_COLUMNS}
        return frame.astype(dtypes)

    # -- study metadata ----------------------------------------------------------------

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
        row = (
            self._connection()
            .execute("SELECT value FROM meta WHERE key = 'study'")
            .fetchone()
        )
        return None if row is None else json.loads(row[0])

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
        {'schema_version': '1'}
        """
        meta = dict(self._connection().execute("SELECT key, value FROM meta"))
        if "study" in meta:
            meta["study"] = json.loads(meta["study"])
        return meta

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
        skggm_bench.benchmark.store.StudyMismatchError: store ':memory:' holds another \
study: n_repeats: stored 2, requested 3. Use a new store path for a new study, or \
re-run with the stored configuration to resume it.
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
            )
        return stored


def _check_row(row: dict) -> None:
    missing = [name for name in (*KEY_COLUMNS, "seed", "status") if name not in row]
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
    if name in ("message", "versions") and value is None:
        return "" if name == "message" else "{}"
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
        if stored.get(key) != wanted.get(key):
            parts.append(
                f"{key}: stored {_short(stored.get(key))}, "
                f"requested {_short(wanted.get(key))}"
            )
    return "; ".join(parts)


def _short(value: Any, limit: int = 300) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 3] + "..."
