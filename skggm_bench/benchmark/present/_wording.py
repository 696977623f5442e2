"""How values, groups, metrics and intervals are written, in tables and sentences alike.

The tables (:mod:`._tables`) and the findings (:mod:`._findings`) of an analysis
name the same things; they take the words from here so that a group, a p-value or
an agreement interval reads the same in a table cell and in a sentence. No cell
shows ``nan``, ``None``, ``True`` or ``False``: :data:`MISSING` where there is
nothing, ``yes``/``no`` for booleans.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...metrics import get_metric
from ...utils._printable import printable
from ..analysis._comparisons import ALL_TIED
from ..analysis._ranking import MIN_REPEATS
from ._formatting import format_interval

#: What a cell shows where there is no value.
MISSING = "\u2013"

#: What the edge metrics of a learner that selected every pair say: its precision
#: is the share of true edges among all pairs, and its recall 1.
EVERY_PAIR_F1 = (
    "with every pair selected, the precision is the density d of the true graph "
    "and F1 is 2d / (1 + d)"
)


# Readable headers for the grid columns.
HEADERS = {
    "data_model": "data model",
    "n_features": "variables",
    "n_samples": "samples",
}


def cell_text(value: Any) -> str:
    """Display text of one value: no ``nan``, ``None``, ``<NA>``, ``True``/``False``."""
    if value is None or value is pd.NA or value is pd.NaT:
        return MISSING
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (float, np.floating)):
        if np.isnan(value):
            return MISSING
        return f"{value:g}"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    text = printable(value)  # a name is data: no control character shown
    return MISSING if text in ("nan", "NaN", "None", "<NA>") else text


def group_text(column: str, value: Any) -> str:
    """A group's value as a heading, a cell or a sentence names it; a density to
    3 significant digits (a drawn graph's density, such as 0.0383673, reads
    0.0384)."""
    if column == "density":
        if value is None or pd.isna(value):
            return "family default"
        return f"{float(value):.3g}"
    return cell_text(value)


def metric_label(metric: str) -> str:
    return get_metric(metric).label


def metric_direction(metric: str) -> str:
    return (
        "higher is better"
        if get_metric(metric).greater_is_better
        else ("lower is better")
    )


def p_value_text(p: float) -> str:
    if pd.isna(p):
        return MISSING
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def best_and_others(
    ranked: pd.DataFrame,
) -> tuple[list[tuple[str, float]], list[tuple[str, float]], list[tuple[str, float]]]:
    """The best learners (all that share the best mean rank), those significantly
    worse than them, and the others."""
    if ranked.empty:
        return [], [], []
    ordered = ranked.sort_values(["mean_rank", "learner"], kind="stable")
    pairs = list(zip(ordered["learner"], ordered["mean_rank"], strict=True))
    cd = float(ordered["critical_difference"].iloc[0])
    # Mean ranks are ratios of small integers: equal up to rounding noise.
    best = [pair for pair in pairs if np.isclose(pair[1], pairs[0][1])]
    rest = pairs[len(best) :]
    if not np.isfinite(cd):
        return best, [], rest
    worse = [pair for pair in rest if pair[1] - best[0][1] >= cd]
    close = [pair for pair in rest if pair[1] - best[0][1] < cd]
    return best, worse, close


def under(axis: str, level: Any) -> str:
    if axis == "generator":
        return f"under {level}"
    if axis == "graph":
        return f"on {level} graphs"
    return f"with {level} data"


def describe_group(columns: Sequence[str], values: Sequence[Any]) -> str:
    """``density 0.25, data model heavy``; a generator is named as it is."""
    parts = []
    for column, value in zip(columns, values, strict=True):
        if column in ("generator", "graph", "data_model"):
            parts.append(under(column, value))
        else:
            parts.append(f"{HEADERS.get(column, column)} {group_text(column, value)}")
    return ", ".join(parts)


def split_groups(
    table: pd.DataFrame, columns: Sequence[str]
) -> list[tuple[tuple[Any, ...], Any]]:
    if not columns:
        return [((), table)]
    return [
        (key if isinstance(key, tuple) else (key,), part)
        for key, part in table.groupby(list(columns), sort=True, dropna=False)
    ]


def tau_text(row: Mapping[str, Any]) -> str:
    """Kendall's tau of an agreement row with its interval, or why there is none."""
    if row["comparison"] == ALL_TIED:
        return "undefined: one side ties every learner"
    thin = not pd.isna(row["n_repeats"]) and row["n_repeats"] < MIN_REPEATS
    return format_interval(row["tau"], row["tau_low"], row["tau_high"], thin=thin)
