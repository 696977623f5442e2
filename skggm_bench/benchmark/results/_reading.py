"""What a store file holds, checked before anything is read from it.

A store may be damaged, written by another version, or crafted: its tables, its
schema version, every stored value and its ``meta`` table are checked here, and a
file that is not what a store writes is refused with a :class:`StoreError`
naming the first problem. A store of an older, upgradable version gets the later
columns here when it is opened for writing.
"""

from __future__ import annotations

import functools
import json
import re
import sqlite3
from collections.abc import Mapping
from typing import Any

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

SCHEMA_VERSION = "4"
# Version 3 lacks the columns of LATER_COLUMNS (n_warnings): read, its rows have
# them as NULL (unknown); opened for writing, the store is upgraded in place.
UPGRADABLE_VERSIONS = ("3",)
FIXED_COLUMNS = (*KEY_COLUMNS, *CELL_COLUMNS, *OUTCOME_COLUMNS)
# Metric columns are created from row keys; only plain identifiers are accepted so
# a column name can never inject SQL (it is also double-quoted).
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
SQL_TYPES = {"text": "TEXT", "integer": "INTEGER", "real": "REAL"}
REQUIRED = {*KEY_COLUMNS, "seed", "status"}


class StoreError(ValueError):
    """A file cannot be used as a results store (missing, damaged, not writable).

    Examples
    --------
    >>> issubclass(StoreError, ValueError)
    True
    """

    # Shown as results.store.StoreError, where users import it.
    __module__ = "skggm_bench.benchmark.results.store"


def upgrade(conn: sqlite3.Connection) -> None:
    """A store of an upgradable version gets the later columns, as NULL."""
    version = conn.execute(
        "SELECT value FROM meta WHERE key = 'schema_version'"
    ).fetchone()
    if version is None or version[0] not in UPGRADABLE_VERSIONS:
        return  # this version's own, or refused by check_is_store
    existing = {row[1] for row in conn.execute("PRAGMA table_info(results)")}
    with conn:
        for name in LATER_COLUMNS:
            if name not in existing:
                conn.execute(
                    f'ALTER TABLE results ADD COLUMN "{name}" '
                    f"{SQL_TYPES[COLUMN_TYPES[name]]}"
                )
        conn.execute(
            "UPDATE meta SET value = ? WHERE key = 'schema_version'",
            (SCHEMA_VERSION,),
        )


def left_at_creation(conn: sqlite3.Connection) -> bool:
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
        result: bool = conn.execute("SELECT COUNT(*) FROM results").fetchone()[0] == 0
        return result
    return True


def check_is_store(conn: sqlite3.Connection, path: str) -> None:
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
    if version is None or version[0] not in (SCHEMA_VERSION, *UPGRADABLE_VERSIONS):
        found = "no schema version" if version is None else f"version {version[0]}"
        readable = ", ".join((*UPGRADABLE_VERSIONS, SCHEMA_VERSION))
        raise StoreError(
            f"{path!r} is a results store of another skggm-bench version "
            f"({found}; this version reads versions {readable}); start a "
            "new store for this version"
        )


def checked_records(
    conn: sqlite3.Connection, path: str
) -> tuple[list[tuple[Any, ...]], list[str], dict[str, Any]]:
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
            f"damaged store: results is a {quote_value(kind[0])}, not a table "
            f"({path!r} was changed outside skggm-bench)"
        )
    existing = [row[1] for row in conn.execute("PRAGMA table_info(results)")]
    for name in existing:
        if not isinstance(name, str) or not IDENTIFIER.match(name):
            raise StoreError(
                f"damaged store: the results table has a column named "
                f"{quote_value(name)}, not a plain identifier ({path!r} was changed "
                "outside skggm-bench)"
            )
    version = conn.execute(
        "SELECT value FROM meta WHERE key = 'schema_version'"
    ).fetchone()
    # A store of an upgradable version lacks the later columns by design.
    optional = LATER_COLUMNS if version and version[0] in UPGRADABLE_VERSIONS else ()
    missing = [
        name for name in FIXED_COLUMNS if name not in existing and name not in optional
    ]
    if missing:
        raise StoreError(
            f"damaged store: the results table has no column {missing[0]} "
            f"({path!r} was changed outside skggm-bench)"
        )
    fixed = set(FIXED_COLUMNS)
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
    check_values(records, columns, dtypes, path)
    check_unique_keys(records, columns, path)
    return [record[1:] for record in records], columns, dtypes


def check_unique_keys(
    records: list[tuple[Any, ...]], columns: list[str], path: str
) -> None:
    """Refuse two rows of one key (the table's unique index dropped or bypassed):
    an export would hold both, and a merge keep one of them silently."""
    positions = [columns.index(name) + 1 for name in KEY_COLUMNS]
    seen: dict[tuple[Any, ...], Any] = {}
    for record in records:
        key = tuple(record[i] for i in positions)
        if key in seen:
            raise StoreError(
                f"damaged store: rows {seen[key]} and {record[0]} have the same key "
                f"{key_text(key)} ({path!r} was changed outside "
                "skggm-bench)"
            )
        seen[key] = record[0]


def check_values(
    records: list[tuple[Any, ...]],
    columns: list[str],
    dtypes: dict[str, Any],
    path: str,
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
            value: Any = record[position]
            if value is None and nullable:
                continue
            # bool is an int, but SQLite never gives one back
            typed = isinstance(value, allowed)
            if not typed:
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
                f"{quote_value(value)}, {problem} ({path!r} was changed outside "
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


def quote_value(value: Any, limit: int = 200) -> str:
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


def checked_meta(conn: sqlite3.Connection, path: str) -> dict[str, Any]:
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
                f"damaged store: the metadata entry {quote_value(key)} holds "
                f"{quote_value(value)}, not text {damaged}"
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
            f"damaged store: its study description is {quote_value(study)}, not a JSON "
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
                f"{quote_value(study[name])}, not a JSON object {damaged}"
            )
    meta["study"] = study
    return meta


def check_row(row: Mapping[str, Any]) -> None:
    missing = [name for name in FIXED_COLUMNS if name in REQUIRED and name not in row]
    if missing:
        raise ValueError(f"result row {row!r} misses the columns {missing}")
    if row["status"] not in STATUSES:
        raise ValueError(
            f"status must be one of {STATUSES}, got {row['status']!r} in row {row!r}"
        )
    for name in row:
        if not isinstance(name, str) or not IDENTIFIER.match(name):
            raise ValueError(
                f"column names must be plain identifiers (letters, digits, _), got "
                f"{name!r}"
            )


def key_text(key: tuple[Any, ...]) -> str:
    pairs = zip(KEY_COLUMNS, key, strict=True)
    return ", ".join(f"{name}={quote_value(value)}" for name, value in pairs)
