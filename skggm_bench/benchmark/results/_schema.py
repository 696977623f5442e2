"""The result table: its columns, their types, the statuses, and its check.

The results table is the contract between the harness, the store, the leaderboard,
the plots, the report and the command line; this module is its one owner. Metric
columns are described by the metric registry of :mod:`skggm_bench.metrics`
(:data:`~skggm_bench.metrics.METRICS`): name, direction, range, label.

A result row describes one fit:

* its **key**, the grid coordinates :data:`KEY_COLUMNS` (unique in a store);
* the **cell** it was drawn in, :data:`CELL_COLUMNS`: the seed that reproduces its
  data set and numbers that say how hard the true graph is to recover;
* one column per requested **metric** (NaN unless ``status == "ok"``);
* the **outcome**, :data:`OUTCOME_COLUMNS`: fit time, status, message, the number
  of warnings the fit raised and the package versions of the process that ran it.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from ...metrics import METRICS, get_metric

__all__ = [
    "CELL_COLUMNS",
    "COLUMN_TYPES",
    "DATA_HASH",
    "GRID_COLUMNS",
    "KEY_COLUMNS",
    "LATER_COLUMNS",
    "OUTCOME_COLUMNS",
    "STATUSES",
    "UNKNOWN_GRAPH",
    "Status",
    "check_results_frame",
    "rankable_metric",
    "result_columns",
]


class Status(str, enum.Enum):
    """How a fit ended."""

    #: Fitted and scored.
    OK = "ok"
    #: Raised (any exception, ``SystemExit`` and ``KeyboardInterrupt`` included),
    #: exposed nothing usable, or its data set could not be drawn.
    FAILED = "failed"
    #: Still running at the deadline; its process was stopped.
    TIMEOUT = "timeout"
    #: Its process died (a segmentation fault, ``os._exit``, a signal).
    CRASHED = "crashed"
    #: Ran out of its memory limit, or was killed by the operating system for memory.
    MEMORY = "memory"


#: The ``graph`` of rows written before the graph became a grid column.
UNKNOWN_GRAPH = "unknown"

#: Every value of the ``status`` column.
STATUSES: tuple[str, ...] = tuple(status.value for status in Status)

#: The grid coordinates of a row: the unique key of the store.
KEY_COLUMNS: tuple[str, ...] = (
    "generator",
    "graph",
    "data_model",
    "learner",
    "density",
    "n_features",
    "n_samples",
    "repeat",
)
#: The columns that define a scenario (one point of the grid, all learners).
GRID_COLUMNS: tuple[str, ...] = (
    "generator",
    "graph",
    "data_model",
    "n_features",
    "density",
    "n_samples",
)
#: What the row's data set was: its seed (``make_ggm(..., random_state=seed)``
#: reproduces it), a hash of the data set itself (:data:`DATA_HASH`) and the
#: difficulty of its true graph.
CELL_COLUMNS: tuple[str, ...] = (
    "seed",
    "data_hash",
    "n_edges",
    "n_added_edges",
    "min_edge_partial_correlation",
    "median_edge_partial_correlation",
    "max_non_edge_correlation",
    "condition_number",
)
#: The column holding a hash of the row's data set: SHA-256 of the observed ``X``
#: the learner was given (shape and float64 bytes) and of the true matrix, so that
#: rows from different stores (shards, other groups) can prove they were computed on
#: the same data (``""`` where the data set could not be drawn).
DATA_HASH = "data_hash"
#: How the fit went. ``n_warnings`` counts the warnings raised while the learner
#: was loaded and fitted (NaN where the fit did not finish, and in rows of stores
#: written before the column existed).
OUTCOME_COLUMNS: tuple[str, ...] = (
    "fit_time",
    "status",
    "message",
    "n_warnings",
    "versions",
)
#: The outcome columns that rows written before them lack (read as NaN).
LATER_COLUMNS: tuple[str, ...] = ("n_warnings",)

#: The longest name (generator, graph, data model, learner) a study or a store may
#: hold: a name is a label, shown in tables and figures (a name of megabytes is
#: no label, and cannot be drawn).
MAX_NAME_LENGTH = 1000
#: The key columns that hold names.
NAME_COLUMNS: tuple[str, ...] = ("generator", "graph", "data_model", "learner")

#: Storage type of every fixed column (metrics are all ``"real"``).
COLUMN_TYPES: dict[str, str] = {
    "generator": "text",
    "graph": "text",
    "data_model": "text",
    "learner": "text",
    "density": "real",
    "n_features": "integer",
    "n_samples": "integer",
    "repeat": "integer",
    "seed": "integer",
    "data_hash": "text",
    "n_edges": "integer",
    "n_added_edges": "integer",
    "min_edge_partial_correlation": "real",
    "median_edge_partial_correlation": "real",
    "max_non_edge_correlation": "real",
    "condition_number": "real",
    "fit_time": "real",
    "status": "text",
    "message": "text",
    "n_warnings": "integer",
    "versions": "text",
}


def result_columns(metrics: Iterable[str]) -> list[str]:
    """Every column of a result table with these metrics, in table order.

    Parameters
    ----------
    metrics : iterable of str
        Canonical metric names.

    Returns
    -------
    list of str

    Examples
    --------
    >>> result_columns(["f1"])[-6:]
    ['f1', 'fit_time', 'status', 'message', 'n_warnings', 'versions']
    """
    return [*KEY_COLUMNS, *CELL_COLUMNS, *metrics, *OUTCOME_COLUMNS]


def rankable_metric(metric: str, frame: pd.DataFrame | None = None) -> str:
    """The canonical name of a metric that rows can be ranked by.

    Parameters
    ----------
    metric : str
        A metric name or alias of the registry (``fit_time`` included).
    frame : pandas.DataFrame or None
        If given, the metric must also be one of its columns.

    Returns
    -------
    str
        The canonical name.

    Raises
    ------
    ValueError
        If ``metric`` is not a metric (e.g. ``"seed"``) or not in ``frame``.

    Examples
    --------
    >>> rankable_metric("f1_score")
    'f1'
    """
    name = get_metric(metric).name
    if frame is not None and name not in frame.columns:
        present = [column for column in frame.columns if column in METRICS]
        raise ValueError(
            f"metric {metric!r} is not in these results; they have "
            f"{', '.join(present) or 'no metric columns'}"
        )
    return name


def check_results_frame(
    frame: Any, metrics: Sequence[str] = (), *, what: str = "results"
) -> pd.DataFrame:
    """Check that ``frame`` is a result table with the given metric columns.

    Tables written by an older version without ``data_model`` get the column
    (``"gaussian"``, the only data model it had); those without ``graph`` get
    ``"unknown"``: such versions did not record which graph family a study drew
    from, and any family name would be a guess.

    Parameters
    ----------
    frame : pandas.DataFrame
        A result table, e.g. ``BenchmarkResult.frame`` or ``ResultStore.frame()``.
    metrics : sequence of str
        Metric names that must be columns (aliases accepted).
    what : str, default="results"
        How to call the table in error messages.

    Returns
    -------
    pandas.DataFrame
        The frame (with ``data_model`` and ``graph`` added if they were missing).

    Raises
    ------
    TypeError
        If ``frame`` is not a DataFrame.
    ValueError
        If a key column, ``status`` or a requested metric is missing, or a
        status is unknown.

    Examples
    --------
    >>> import pandas as pd
    >>> check_results_frame(pd.DataFrame({"learner": ["a"]}))
    Traceback (most recent call last):
    ...
    ValueError: results: the columns ['generator', 'density', 'n_features', \
'n_samples', 'repeat', 'status'] are missing; pass the frame of a BenchmarkResult or \
a ResultStore
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(
            f"{what} must be a pandas DataFrame (BenchmarkResult.frame or "
            f"ResultStore.frame()), got {type(frame).__name__}"
        )
    if "data_model" not in frame.columns:
        frame = frame.assign(data_model="gaussian")
    if "graph" not in frame.columns:
        frame = frame.assign(graph=UNKNOWN_GRAPH)
    filled = ("data_model", "graph")
    required = [c for c in (*KEY_COLUMNS, "status") if c not in filled]
    missing = [column for column in required if column not in frame.columns]
    if missing:
        raise ValueError(
            f"{what}: the columns {missing} are missing; pass the frame of a "
            "BenchmarkResult or a ResultStore"
        )
    for metric in metrics:
        rankable_metric(metric, frame)
    unknown = sorted(set(frame["status"]) - set(STATUSES))
    if unknown:
        raise ValueError(f"{what} have unknown statuses {unknown}")
    return frame
