"""What the command line and the HTML report show: findings and formatted tables.

Both front ends show the same numbers in the same words, so both are built here,
once, from an :class:`~._analysis.Analysis` (every statistic of a result table,
computed by :func:`~._analysis.analyse`): :func:`findings` turns it into a few
sentences, each with its interval; the ``*_table`` functions turn it into
:class:`Table` objects whose cells are all display text (intervals as
``+1.42 (1.08–1.83)``, ``yes``/``no``, ``–`` where there is nothing, never
``nan``, ``None``, ``True`` or ``False``). The report renders a :class:`Table` as
HTML through its template; :func:`text_table` renders it for a terminal. This
module computes no statistic; it only counts and groups what it lays out.
"""

from __future__ import annotations

import re
import textwrap
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..metrics import get_metric
from ..utils._printable import printable
from ._analysis import Analysis, Comparison
from ._formatting import format_interval, format_leaderboard, format_rank_shift

__all__ = [
    "MISSING",
    "Table",
    "agreement_table",
    "critical_difference_table",
    "failure_table",
    "findings",
    "grid_table",
    "leaderboard_table",
    "rank_shift_table",
    "report_tables",
    "text_report",
    "text_table",
    "versions_table",
]

#: What a cell shows where there is no value.
MISSING = "\u2013"

# Readable headers for the grid columns.
_HEADERS = {
    "data_model": "data model",
    "n_features": "variables",
    "n_samples": "samples",
}
# Failure messages are cut (at a word boundary) to this many characters.
_MESSAGE_WIDTH = 160
# At most this many findings sentences per kind (rank shifts, critical differences).
_MAX_SENTENCES = 3


# --------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Table:
    """A table of display text.

    Attributes
    ----------
    columns : list of str
        Column headers.
    rows : list of list of str
        The cells, as text.
    n_group : int
        How many leading columns group the rows (e.g. generator and density):
        shown once per group.
    wrap : frozenset of str
        Columns whose text may wrap over several lines (lists of names, messages);
        the others (numbers and intervals) stay on one line.
    caption : str
        What the table shows.
    quoted : frozenset of str
        Columns that quote text as it was recorded (failure messages), not
        values formatted here.
    """

    columns: list[str]
    rows: list[list[str]]
    n_group: int = 0
    wrap: frozenset[str] = field(default_factory=frozenset)
    caption: str = ""
    quoted: frozenset[str] = field(default_factory=frozenset)

    def groups(self) -> list[tuple[list[str], list[list[str]]]]:
        """``(group values, rows without the group columns)``, in table order."""
        result: list[tuple[list[str], list[list[str]]]] = []
        for row in self.rows:
            key = row[: self.n_group]
            if not result or result[-1][0] != key:
                result.append((key, []))
            result[-1][1].append(row[self.n_group :])
        return result


def _cell(value: Any) -> str:
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


def _group_value(column: str, value: Any) -> str:
    if column == "density" and (value is None or pd.isna(value)):
        return "family default"
    return _cell(value)


def _from_frame(
    frame: pd.DataFrame,
    group_columns: Sequence[str],
    *,
    wrap: Iterable[str] = (),
    caption: str = "",
    headers: Mapping[str, str] | None = None,
) -> Table:
    headers = {**_HEADERS, **(headers or {})}
    rows = [
        [_group_value(c, v) for c, v in zip(group_columns, values, strict=False)]
        + [_cell(v) for v in values[len(group_columns) :]]
        for values in frame.itertuples(index=False, name=None)
    ]
    return Table(
        columns=[headers.get(str(c), str(c)) for c in frame.columns],
        rows=rows,
        n_group=len(group_columns),
        wrap=frozenset(headers.get(c, c) for c in wrap),
        caption=caption,
    )


def _label(metric: str) -> str:
    return get_metric(metric).label


def _direction(metric: str) -> str:
    return (
        "higher is better"
        if get_metric(metric).greater_is_better
        else ("lower is better")
    )


def leaderboard_table(board: pd.DataFrame) -> Table:
    """The leaderboard of :func:`~skggm_bench.benchmark.leaderboard.leaderboard`.

    Parameters
    ----------
    board : pandas.DataFrame
        A leaderboard.

    Returns
    -------
    Table
        Grouped by its grouping columns; per learner its position (``no data``
        without a value, with the reason when its fits succeeded), mean rank and
        mean metric with intervals, the
        fits that did not finish and the learners it is tied with.

    Examples
    --------
    >>> import pandas as pd
    >>> from skggm_bench.benchmark.leaderboard import leaderboard
    >>> frame = pd.DataFrame({
    ...     "generator": "G", "n_features": 10, "density": 0.1, "n_samples": 50,
    ...     "repeat": [0, 0, 1, 1], "learner": ["a", "b"] * 2,
    ...     "f1": [0.2, 0.6, 0.3, 0.7], "status": "ok"})
    >>> table = leaderboard_table(leaderboard(frame, "f1"))
    >>> table.columns[2:5]
    ['learner', 'position', 'mean rank (95% CI)']
    >>> table.rows[0][2:]
    ['b', '1', '1.00 (1.00–1.00)', '0.65 (0.60–0.70)', '0/2', '']
    """
    metric = board.attrs.get("metric", "metric")
    table = format_leaderboard(board)
    by = list(board.attrs.get("by", ("generator",)))
    interval = f"({100 * board.attrs.get('confidence', 0.95):g}% CI)"
    return _from_frame(
        table,
        by,
        wrap=("position", "tied with"),
        headers={f"{metric} {interval}": f"{_label(metric)} {interval}"},
        caption=f"Learners by mean rank of {_label(metric)} ({_direction(metric)}).",
    )


def rank_shift_table(shift: pd.DataFrame) -> Table:
    """A rank shift of :func:`~skggm_bench.benchmark.leaderboard.rank_shift`.

    Parameters
    ----------
    shift : pandas.DataFrame
        A rank shift.

    Returns
    -------
    Table
        Per group and learner: positions, places gained, the change in mean rank
        with its interval, whether it is significant, the mean metric and the
        failures, each as ``from → to``; ``no data`` where a side has no
        successful fit.

    Examples
    --------
    >>> import pandas as pd
    >>> from skggm_bench.benchmark.leaderboard import rank_shift
    >>> rows = [
    ...     {"generator": g, "n_features": 10, "density": 0.1, "n_samples": 50,
    ...      "repeat": r, "learner": name, "f1": f1, "status": "ok"}
    ...     for r in range(4)
    ...     for g, scores in [("DD", {"a": 0.5, "b": 0.1}),
    ...                       ("TO", {"a": 0.3, "b": 0.8})]
    ...     for name, f1 in scores.items()]
    >>> table = rank_shift_table(rank_shift(pd.DataFrame(rows), "f1", "DD", "TO"))
    >>> table.caption
    'F1 rank of each learner under DD → under TO (higher is better).'
    >>> table.rows[0][1:5]
    ['b', '2 → 1', '+1', '+1.00 (1.00–1.00)']
    """
    metric = shift.attrs.get("metric", "metric")
    source, target = shift.attrs["from_generator"], shift.attrs["to_generator"]
    axis = shift.attrs.get("axis", "generator")
    return _from_frame(
        format_rank_shift(shift),
        list(shift.attrs.get("by", ())),
        headers={metric: _label(metric)},
        caption=f"{_label(metric)} rank of each learner {_under(axis, source)} "
        f"\u2192 {_under(axis, target)} ({_direction(metric)}).",
    )


def _p_value(p: float) -> str:
    if pd.isna(p):
        return MISSING
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def critical_difference_table(cd: pd.DataFrame) -> Table:
    """The Friedman tests and Nemenyi critical differences, one row per group.

    Parameters
    ----------
    cd : pandas.DataFrame
        The output of
        :func:`~skggm_bench.benchmark.leaderboard.critical_difference`.

    Returns
    -------
    Table
        Per group: learners with data, blocks, the Friedman p-value, the
        critical difference, the best learner with its mean rank, and the
        learners that are, and are not, significantly worse than it.

    Examples
    --------
    >>> import pandas as pd
    >>> from skggm_bench.benchmark.leaderboard import critical_difference
    >>> frame = pd.DataFrame({
    ...     "generator": "G", "n_features": 10, "density": 0.1, "n_samples": 50,
    ...     "repeat": [r for r in range(6) for _ in "abc"],
    ...     "learner": list("abc") * 6, "f1": [0.9, 0.5, 0.1] * 6, "status": "ok"})
    >>> table = critical_difference_table(critical_difference(frame, "f1"))
    >>> dict(zip(table.columns, table.rows[0]))["significantly worse"]
    'c (3.00)'
    """
    by = list(cd.attrs.get("by", ("generator",)))
    rows = []
    for _, part in _groups(cd, by):
        first = part.iloc[0]
        ranked = part[part["mean_rank"].notna()]
        best, worse, close = _best_and_others(ranked)
        rows.append(
            {
                **{column: first[column] for column in by},
                "learners": len(ranked),
                "blocks": int(first["n_blocks"]),
                "Friedman p": _p_value(first["p_value"]),
                "CD": _cell(round(first["critical_difference"], 2)),
                "best (mean rank)": MISSING if best is None else _ranked(best),
                "not significantly worse": ", ".join(map(_ranked, close)) or MISSING,
                "significantly worse": ", ".join(map(_ranked, worse)) or MISSING,
            }
        )
    metric = cd.attrs.get("metric", "metric")
    alpha = cd.attrs.get("alpha", 0.05)
    return _from_frame(
        pd.DataFrame(rows),
        by,
        wrap=("not significantly worse", "significantly worse"),
        caption=f"Friedman test of equal mean ranks of {_label(metric)} and Nemenyi "
        f"critical difference (CD) at level {alpha:g}: two learners whose mean "
        "ranks differ by at least CD differ significantly. Each learner is shown "
        "with its mean rank; 'worse' is compared with the best.",
    )


def _best_and_others(
    ranked: pd.DataFrame,
) -> tuple[tuple[str, float] | None, list[tuple[str, float]], list[tuple[str, float]]]:
    """The best learner, those significantly worse than it, and the others."""
    if ranked.empty:
        return None, [], []
    ordered = ranked.sort_values("mean_rank", kind="stable")
    pairs = list(zip(ordered["learner"], ordered["mean_rank"], strict=True))
    cd = float(ordered["critical_difference"].iloc[0])
    best = pairs[0]
    if not np.isfinite(cd):
        return best, [], pairs[1:]
    worse = [pair for pair in pairs[1:] if pair[1] - best[1] >= cd]
    close = [pair for pair in pairs[1:] if pair[1] - best[1] < cd]
    return best, worse, close


def _ranked(pair: tuple[str, float]) -> str:
    return f"{pair[0]} ({pair[1]:.2f})"


def agreement_table(comparisons: Sequence[Comparison]) -> Table:
    """Kendall's tau between learner orderings, per comparison and group.

    Parameters
    ----------
    comparisons : sequence of Comparison
        From :attr:`Analysis.comparisons`.

    Returns
    -------
    Table
        Grouped by comparison; per group (and over the whole grid) tau with its
        interval, the learners ordered and the paired repeats.

    Examples
    --------
    >>> import pandas as pd
    >>> from skggm_bench.benchmark._analysis import analyse
    >>> rows = [
    ...     {"generator": g, "n_features": 10, "density": 0.1, "n_samples": 50,
    ...      "repeat": r, "learner": name, "f1": f1, "status": "ok"}
    ...     for r in range(4)
    ...     for g, scores in [("DD", {"a": 0.9, "b": 0.5, "c": 0.1}),
    ...                       ("TO", {"a": 0.2, "b": 0.4, "c": 0.6})]
    ...     for name, f1 in scores.items()]
    >>> analysis = analyse(pd.DataFrame(rows), "f1", n_bootstrap=100)
    >>> agreement_table(analysis.comparisons).rows[-1]
    ['DD → TO', 'whole grid', '-1.00 (-1.00 to -1.00)', '3', '4']
    """
    rows = []
    for comparison in comparisons:
        agreement = comparison.agreement
        by = list(agreement.attrs.get("by", ()))
        for record in agreement.to_dict("records"):
            if record["scope"] == "overall":
                scope = "whole grid"
            else:
                scope = _where(by, [record[c] for c in by]) or "whole grid"
            tau = format_interval(
                record["tau"], record["tau_low"], record["tau_high"], signed=False
            )
            rows.append(
                [
                    f"{comparison.source} \u2192 {comparison.target}",
                    scope,
                    tau,
                    _cell(record["n_learners"]),
                    _cell(record["n_repeats"]),
                ]
            )
    return Table(
        columns=["compared", "where", "Kendall's tau (95% CI)", "learners", "repeats"],
        rows=rows,
        n_group=1,
        caption="Agreement of the learner orderings: Kendall's tau-b between the "
        "mean ranks on the two sides (1: the same order, 0: unrelated, -1: "
        "reversed), with a paired bootstrap interval over repeats.",
    )


def _normalised(message: str) -> str:
    """A message with its numbers and addresses blanked: near-duplicates match."""
    text = " ".join(str(message).split())
    text = re.sub(r"0x[0-9a-fA-F]+", "0x#", text)
    return re.sub(r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", "#", text)


def failure_table(frame: pd.DataFrame) -> Table:
    """The fits that did not finish, grouped by status and message.

    Messages that differ only in their numbers (a matrix size, a pivot index, an
    address) form one group, shown by its most frequent message, cut at a word
    boundary.

    Parameters
    ----------
    frame : pandas.DataFrame
        Benchmark results.

    Returns
    -------
    Table
        One row per group, most frequent first: status, message, number of fits,
        and the learners and generators concerned (with their counts). No rows
        when every fit finished.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({
    ...     "generator": "G", "learner": ["a", "a", "b"],
    ...     "status": ["failed", "failed", "ok"],
    ...     "message": ["LinAlgError: 3-th minor", "LinAlgError: 5-th minor", ""]})
    >>> failure_table(frame).rows
    [['failed', 'LinAlgError: 3-th minor (+1 similar)', '2', 'a (2)', 'G (2)']]
    """
    failed = frame.loc[frame["status"] != "ok"]
    messages = (
        failed["message"].fillna("").astype(str)
        if "message" in failed
        else pd.Series("", index=failed.index)
    )
    messages = messages.map(lambda m: " ".join(m.split()) or "(no message)")
    keys = messages.map(_normalised)
    rows = []
    for (status, _), part in failed.groupby([failed["status"], keys], sort=False):
        texts = Counter(messages[part.index])
        text = textwrap.shorten(
            texts.most_common(1)[0][0], _MESSAGE_WIDTH, placeholder=" \u2026"
        )
        if len(texts) > 1:
            text += f" (+{len(texts) - 1} similar)"
        rows.append(
            (
                len(part),
                [
                    str(status),
                    text,
                    str(len(part)),
                    _counts(part["learner"]),
                    _counts(part["generator"]),
                ],
            )
        )
    rows.sort(key=lambda item: -item[0])
    return Table(
        columns=["status", "message", "fits", "learners", "generators"],
        rows=[row for _, row in rows],
        wrap=frozenset({"message", "learners", "generators"}),
        quoted=frozenset({"message"}),
        caption="Fits that did not finish, grouped by message (messages that differ "
        "only in their numbers are one group).",
    )


def _counts(values: pd.Series) -> str:
    return ", ".join(f"{name} ({n})" for name, n in values.value_counts().items())


def grid_table(frame: pd.DataFrame) -> Table:
    """What was run: the grid, the number of fits and how they ended.

    Parameters
    ----------
    frame : pandas.DataFrame
        Benchmark results.

    Returns
    -------
    Table
        Two columns, ``what`` and ``value``.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({
    ...     "generator": "G", "n_features": 10, "density": [0.1, None],
    ...     "n_samples": 50, "repeat": 0, "learner": "a", "status": "ok"})
    >>> dict(grid_table(frame).rows)["densities"]
    '0.1, family default'
    """

    def values(column: str) -> str:
        present = frame[column].dropna().unique()
        try:
            present = sorted(present)
        except TypeError:
            present = list(present)
        text = [_cell(v) for v in present]
        if column == "density" and frame[column].isna().any():
            text.append("family default")
        return ", ".join(text)

    rows = [
        ["generators", values("generator")],
        *([["graphs", values("graph")]] if "graph" in frame else []),
        *([["data models", values("data_model")]] if "data_model" in frame else []),
        ["learners", values("learner")],
        ["variables (p)", values("n_features")],
        ["densities", values("density")],
        ["sample sizes (n)", values("n_samples")],
        ["repeats", str(frame["repeat"].nunique())],
        ["fits", str(len(frame))],
    ]
    counts = frame["status"].value_counts()
    rows.append(["status", ", ".join(f"{n} {s}" for s, n in counts.items())])
    return Table(columns=["what", "value"], rows=rows, wrap=frozenset({"value"}))


def versions_table(frame: pd.DataFrame) -> Table:
    """Every package version recorded with the rows (several if runs differed).

    Parameters
    ----------
    frame : pandas.DataFrame
        Benchmark results with a ``versions`` column of JSON objects.

    Returns
    -------
    Table
        Columns ``package`` and ``version``; no rows without versions.

    Examples
    --------
    >>> import pandas as pd
    >>> versions_table(pd.DataFrame({"versions": ['{"numpy": "2.0"}']})).rows
    [['numpy', '2.0']]
    """
    import json

    seen: dict[str, set[str]] = {}
    texts = frame["versions"].dropna().unique() if "versions" in frame else ()
    for text in texts:
        try:
            versions = json.loads(text)
        except (TypeError, ValueError):
            continue
        if isinstance(versions, Mapping):
            for package, version in versions.items():
                seen.setdefault(str(package), set()).add(str(version))
    return Table(
        columns=["package", "version"],
        rows=[[p, ", ".join(sorted(v))] for p, v in sorted(seen.items())],
    )


# --------------------------------------------------------------------------------------
# Findings
# --------------------------------------------------------------------------------------


def _ordinal(position: Any) -> str:
    n = int(position)
    suffix = (
        "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    )
    return f"{n}{suffix}"


def _names(names: Sequence[str]) -> str:
    names = list(names)
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def _under(axis: str, level: Any) -> str:
    if axis == "generator":
        return f"under {level}"
    if axis == "graph":
        return f"on {level} graphs"
    return f"with {level} data"


def _where(columns: Sequence[str], values: Sequence[Any]) -> str:
    """``density 0.25, data model heavy``; a generator is named as it is."""
    parts = []
    for column, value in zip(columns, values, strict=True):
        if column in ("generator", "graph", "data_model"):
            parts.append(_under(column, value))
        else:
            parts.append(
                f"{_HEADERS.get(column, column)} {_group_value(column, value)}"
            )
    return ", ".join(parts)


def _groups(table: pd.DataFrame, columns: Sequence[str]) -> list[tuple[tuple, Any]]:
    if not columns:
        return [((), table)]
    return [
        (key if isinstance(key, tuple) else (key,), part)
        for key, part in table.groupby(list(columns), sort=True, dropna=False)
    ]


def _winner_sentences(analysis: Analysis) -> list[str]:
    board = analysis.overall
    label = _label(analysis.metric)
    by = list(board.attrs["by"])
    sentences = []
    for key, part in _groups(board, by):
        where = _where(by, key)
        first = part[part["position"] == 1]
        if first.empty:
            reasons = set(part["no_value_reason"]) - {"", "no successful fit"}
            sentences.append(
                f"{where.capitalize()} no learner has a value of {label} "
                f"({'; '.join(sorted(reasons))}): no learner can be ranked."
                if reasons
                else f"{where.capitalize()} no fit succeeded: no learner can be "
                "ranked."
            )
            continue
        row = first.iloc[0]
        rank = format_interval(row["mean_rank"], row["rank_low"], row["rank_high"])
        value = format_interval(
            row["mean_metric"], row["metric_low"], row["metric_high"]
        )
        names = list(first["learner"])
        who = (
            f"{names[0]} ranks first"
            if len(names) == 1
            else f"{_names(names)} share the first place"
        )
        tied = row["tied_with"]
        close = (
            f"; its rank interval overlaps that of {_names(tied.split(', '))}, so "
            "they are not told apart"
            if tied
            else "; no other learner's rank interval overlaps it"
        )
        sentences.append(
            f"{where[0].upper()}{where[1:]}, {who} by {label} over the whole grid: "
            f"mean rank {rank}, mean {label} {value}{close}."
        )
    return sentences


def _shift_sentences(analysis: Analysis) -> list[str]:
    """The largest changes of mean rank, over every comparison and group."""
    label = _label(analysis.metric)
    candidates = []
    for comparison in analysis.comparisons:
        shift = comparison.shift
        by = list(shift.attrs.get("by", ()))
        moved = (shift["comparison"] == "compared") & (shift["rank_gain"] != 0)
        for record in shift[moved].to_dict("records"):
            candidates.append((abs(record["rank_gain"]), comparison, by, record))
    candidates.sort(key=lambda item: -item[0])
    sentences = []
    for _, comparison, by, record in candidates[:_MAX_SENTENCES]:
        gain = record["rank_gain"]
        low, high = record["rank_gain_low"], record["rank_gain_high"]
        before, after = record["position_from"], record["position_to"]
        source = _under(comparison.axis, comparison.source)
        target = _under(comparison.axis, comparison.target)
        if after == before:
            move = f"keeps the {_ordinal(before)} place {source} and {target}"
        else:
            verb = "rises" if after < before else "falls"
            move = (
                f"{verb} from {_ordinal(before)} {source} to {_ordinal(after)} {target}"
            )
        if gain > 0:
            change = f"its mean rank improves by {format_interval(gain, low, high)}"
        else:
            change = f"its mean rank worsens by {format_interval(-gain, -high, -low)}"
        verdict = (
            "a significant change"
            if record["significant"]
            else "not significant: the interval includes no change"
        )
        where = _where(by, [record[c] for c in by])
        where = f" ({where})" if where else ""
        sentences.append(
            f"By {label}{where}, {record['learner']} {move}; {change}, {verdict}."
        )
    return sentences


def _agreement_sentences(analysis: Analysis) -> list[str]:
    """Kendall's tau over the whole grid, and where it is lowest.

    Several comparisons from the same reference share one sentence.
    """
    sentences = []
    by_reference: dict[tuple[str, str], list[Comparison]] = {}
    for comparison in analysis.comparisons:
        key = (comparison.axis, comparison.source)
        by_reference.setdefault(key, []).append(comparison)
    scale = "(1: the same order, -1: reversed)"
    for (axis, source), comparisons in by_reference.items():
        if len(comparisons) == 1:
            sentences.append(_agreement_sentence(comparisons[0], scale))
            continue
        lead = {
            "generator": f"under {source} and under each other generator",
            "graph": f"on {source} graphs and on each other graph",
        }.get(axis, f"with {source} data and with each other data model")
        parts = []
        for comparison in comparisons:
            overall = _overall(comparison.agreement)
            tau = (
                format_interval(overall["tau"], overall["tau_low"], overall["tau_high"])
                if overall["comparison"] == "compared"
                else "no data"
            )
            parts.append(f"{comparison.target} {tau}")
        sentences.append(
            f"Kendall's tau between the learner orderings {lead}, over the whole "
            f"grid {scale}: {'; '.join(parts)}."
        )
    return sentences


def _overall(agreement: pd.DataFrame) -> pd.Series:
    return agreement[agreement["scope"] == "overall"].iloc[0]


def _agreement_sentence(comparison: Comparison, scale: str) -> str:
    agreement = comparison.agreement
    by = list(agreement.attrs.get("by", ()))
    sides = (
        f"{_under(comparison.axis, comparison.source)} and "
        f"{_under(comparison.axis, comparison.target)}"
    )
    overall = _overall(agreement)
    if overall["comparison"] != "compared":
        return (
            f"The learner orderings {sides} cannot be compared: fewer than two "
            "learners have results on both sides."
        )
    tau = format_interval(overall["tau"], overall["tau_low"], overall["tau_high"])
    sentence = (
        f"Kendall's tau between the learner orderings {sides} is {tau} over the "
        f"whole grid {scale}"
    )
    groups = agreement[
        (agreement["scope"] == "group") & (agreement["comparison"] == "compared")
    ]
    if len(groups) > 1:
        lowest = groups.loc[groups["tau"].idxmin()]
        low = format_interval(lowest["tau"], lowest["tau_low"], lowest["tau_high"])
        sentence += f"; lowest ({_where(by, [lowest[c] for c in by])}): {low}"
    return sentence + "."


def _critical_difference_sentences(analysis: Analysis) -> list[str]:
    """How many groups the Friedman test separates, and who the best beats."""
    cd = analysis.cd
    by = list(cd.attrs["by"])
    alpha = cd.attrs["alpha"]
    groups = [
        (key, part) for key, part in _groups(cd, by) if part["p_value"].notna().any()
    ]
    if not groups:
        return []
    different = [(key, part) for key, part in groups if part["p_value"].iloc[0] < alpha]
    what = " x ".join(_HEADERS.get(c, c) for c in by)
    sentences = [
        f"Friedman tests at level {alpha:g}: the learners' mean ranks differ in "
        f"{len(different)} of {len(groups)} groups ({what})."
    ]
    strongest = sorted(different, key=lambda item: -item[1]["statistic"].iloc[0])
    for key, part in strongest[:_MAX_SENTENCES]:
        best, worse, _ = _best_and_others(part[part["mean_rank"].notna()])
        first = part.iloc[0]
        where = _where(by, key)
        evidence = (
            f"critical difference {first['critical_difference']:.2f}, Friedman p "
            f"{_p_value(first['p_value'])}"
        )
        if worse:
            names = _names([name for name, _ in worse])
            sentences.append(
                f"{where[0].upper()}{where[1:]}, {best[0]} (mean rank {best[1]:.2f}) "
                f"is significantly better than {names} ({evidence})."
            )
        else:
            sentences.append(
                f"{where[0].upper()}{where[1:]}, no learner is significantly worse "
                f"than the best, {best[0]} (mean rank {best[1]:.2f}; {evidence})."
            )
    return sentences


def _failure_sentences(analysis: Analysis) -> list[str]:
    frame = analysis.frame
    failed = frame[frame["status"] != "ok"]
    if failed.empty:
        return [f"All {len(frame)} fits finished."]
    counts = failed["status"].value_counts()
    kinds = ", ".join(f"{n} {_STATUS_WORDS.get(s, s)}" for s, n in counts.items())
    share = 100 * len(failed) / len(frame)
    sentence = (
        f"{len(failed)} of {len(frame)} fits did not finish ({share:.1f}%): {kinds}"
    )
    table = failure_table(frame)
    if table.rows:
        _, message, fits, learners, _ = table.rows[0]
        sentence += (
            f". The most frequent message ({fits} fits; {learners}): "
            f"\u201c{message}\u201d"
        )
    return [sentence + ".", *_no_position_sentences(analysis)]


def _no_position_sentences(analysis: Analysis) -> list[str]:
    """Who has no position, and why: no successful fit, or no value in its fits."""
    board = analysis.board
    no_data = board[board["position"].isna()]
    by = list(board.attrs["by"])
    label = _label(analysis.metric)
    sentences = []
    failed = no_data["no_value_reason"] == "no successful fit"
    for rows, opening in (
        (no_data[failed], "Without any successful fit, and so without a position: "),
        (
            no_data[~failed],
            f"Without a value of {label} although their fits succeeded, and so "
            "without a position: ",
        ),
    ):
        if rows.empty:
            continue
        places = [
            f"{row['learner']} {_where(by, [row[c] for c in by])}"
            + ("" if row["no_value_reason"] == "no successful fit"
               else f" ({row['no_value_reason']})")
            for row in rows.to_dict("records")
        ]  # fmt: skip
        shown = places[:_MAX_SENTENCES]
        more = len(places) - len(shown)
        sentences.append(
            opening
            + "; ".join(shown)
            + (f"; and {more} more (see the leaderboard)" if more else "")
            + "."
        )
    return sentences


def _share(count: int, total: int) -> str:
    return f"{100 * count / total:.0f}% of its fits ({count} of {total})"


def _selection_sentences(analysis: Analysis) -> list[str]:
    """Learners that selected every pair, or none: their edge metrics mislead."""
    summary = analysis.selection
    if summary.empty:
        return []
    parts = []
    for row in summary.to_dict("records"):
        said = []
        if row["n_every_pair"]:
            said.append(
                f"selected every pair in {_share(row['n_every_pair'], row['n_ok'])}"
            )
        if row["n_no_pair"]:
            said.append(
                f"selected no pair in {_share(row['n_no_pair'], row['n_ok'])}"
            )
        parts.append(f"{row['learner']} {' and '.join(said)}")
    return [
        "Edge decisions that say little: "
        + "; ".join(parts)
        + ". Such a selection says nothing about how the learner ranks the pairs "
        "(with every pair selected, F1 is the density of the true graph): compare "
        "these learners by the threshold-free roc_auc or average_precision, or "
        "decide their edges with LocalFDRSelector (skggm_bench.learners)."
    ]


_STATUS_WORDS = {"timeout": "timed out", "memory": "ran out of memory"}


def findings(analysis: Analysis) -> list[str]:
    """A few sentences that say what the results show, each with its interval.

    Who wins under each generator (and data model), the largest rank shifts, the
    agreement of the learner orderings between generators, the critical
    differences, and what failed and how often.

    Parameters
    ----------
    analysis : Analysis
        From :func:`analyse`.

    Returns
    -------
    list of str

    Examples
    --------
    >>> import pandas as pd
    >>> from skggm_bench.benchmark._analysis import analyse
    >>> frame = pd.DataFrame({
    ...     "generator": "DD", "n_features": 10, "density": 0.1, "n_samples": 50,
    ...     "repeat": [0, 0, 1, 1, 2, 2], "learner": ["a", "b"] * 3,
    ...     "f1": [0.2, 0.6, 0.3, 0.7, 0.1, 0.5], "status": "ok"})
    >>> for sentence in findings(analyse(frame, "f1", n_bootstrap=100)):
    ...     print(sentence)  # doctest: +NORMALIZE_WHITESPACE
    Under DD, b ranks first by F1 over the whole grid: mean rank 1.00 (1.00–1.00),
    mean F1 0.60 (0.50–0.70); no other learner's rank interval overlaps it.
    Friedman tests at level 0.05: the learners' mean ranks differ in 0 of 1 groups
    (generator x density).
    All 6 fits finished.
    """
    return [
        *_winner_sentences(analysis),
        *_shift_sentences(analysis),
        *_agreement_sentences(analysis),
        *_critical_difference_sentences(analysis),
        *_selection_sentences(analysis),
        *_failure_sentences(analysis),
    ]


# --------------------------------------------------------------------------------------
# Text for a terminal
# --------------------------------------------------------------------------------------


def text_table(table: Table, width: int = 100) -> str:
    """A :class:`Table` as aligned text, one block per group, at most ``width`` wide.

    Wrappable columns are wrapped (at spaces) until the table fits.

    Parameters
    ----------
    table : Table
        The table.
    width : int, default=100
        The widest line (characters), as far as the columns allow.

    Returns
    -------
    str

    Examples
    --------
    >>> print(text_table(Table(["learner", "tied with"], [["a", "b, c"]])))
    learner  tied with
    a        b, c
    """
    blocks = []
    columns = table.columns[table.n_group :]
    for key, rows in table.groups():
        heading = _where(table.columns[: table.n_group], key) if key else ""
        body = _aligned(columns, rows, table.wrap, width)
        blocks.append(f"{heading[0].upper()}{heading[1:]}\n{body}" if heading else body)
    return "\n\n".join(blocks)


def _aligned(
    columns: list[str], rows: list[list[str]], wrap: frozenset[str], width: int
) -> str:
    """Rows under their headers, columns two spaces apart, ``width`` at most.

    While the table is too wide, long headers wrap at spaces (down to the width
    of their column's cells), then the cells of the ``wrap`` columns do (the
    widest column first, down to its longest word or 12 characters).
    """

    def longest_word(text: str) -> int:
        return max((len(word) for word in text.split()), default=0)

    widths = [
        max([len(header)] + [len(row[j]) for row in rows])
        for j, header in enumerate(columns)
    ]
    wrappable = [j for j, column in enumerate(columns) if column in wrap]
    floors = {
        j: max([longest_word(header)] + [len(row[j]) for row in rows])
        for j, header in enumerate(columns)
    }
    floors |= {
        j: max([12] + [longest_word(row[j]) for row in [columns, *rows]])
        for j in wrappable
    }

    def total() -> int:
        return sum(widths) + 2 * (len(widths) - 1)

    # Headers first (they wrap without hiding a number), then the wrappable cells.
    for candidates in ([j for j in floors if j not in wrappable], wrappable):
        while total() > width:
            shrinkable = [j for j in candidates if widths[j] > floors[j]]
            if not shrinkable:
                break
            j = max(shrinkable, key=lambda k: widths[k] - floors[k])
            widths[j] = max(widths[j] - (total() - width), floors[j])
    lines = []
    for i, row in enumerate([columns, *rows]):
        parts = [
            (textwrap.wrap(cell, widths[j]) or [""])
            if i == 0 or j in wrappable
            else [cell]
            for j, cell in enumerate(row)
        ]
        for k in range(max(len(part) for part in parts)):
            line = "  ".join(
                (part[k] if k < len(part) else "").ljust(widths[j])
                for j, part in enumerate(parts)
            )
            lines.append(line.rstrip())
    return "\n".join(lines)


def text_report(analysis: Analysis, width: int = 100) -> str:
    """What ``skggm-bench leaderboard`` prints: findings, then every table.

    Parameters
    ----------
    analysis : Analysis
        From :func:`analyse`.
    width : int, default=100
        The widest line, as far as the tables allow.

    Returns
    -------
    str

    Examples
    --------
    >>> import pandas as pd
    >>> from skggm_bench.benchmark._analysis import analyse
    >>> frame = pd.DataFrame({
    ...     "generator": "DD", "n_features": 10, "density": 0.1, "n_samples": 50,
    ...     "repeat": [0, 0, 1, 1], "learner": ["a", "b"] * 2,
    ...     "f1": [0.2, 0.6, 0.3, 0.7], "status": "ok"})
    >>> text = text_report(analyse(frame, "f1", n_bootstrap=100))
    >>> [line for line in text.splitlines() if line.startswith("Leaderboard")]
    ['Leaderboard by F1 (higher is better)']
    """
    label = _label(analysis.metric)

    def heading(text: str) -> str:
        return f"{text}\n{'=' * len(text)}"

    def paragraph(text: str) -> str:
        return textwrap.fill(text, width)

    bullets = (
        textwrap.fill(sentence, width, initial_indent="- ", subsequent_indent="  ")
        for sentence in findings(analysis)
    )
    parts = [heading("Findings"), "\n".join(bullets)]
    differences = critical_difference_table(analysis.cd)
    parts += [
        heading(f"Leaderboard by {label} ({_direction(analysis.metric)})"),
        text_table(leaderboard_table(analysis.board), width),
        heading("Critical differences"),
        paragraph(differences.caption),
        text_table(differences, width),
    ]
    for comparison in analysis.comparisons:
        table = rank_shift_table(comparison.shift)
        between = {"graph": "graphs", "data_model": "data models"}
        title = (
            f"Rank shift {comparison.source} -> {comparison.target}"
            if comparison.axis == "generator"
            else f"Rank shift between {between[comparison.axis]} "
            f"{comparison.source} -> {comparison.target}"
        )
        parts += [heading(title), text_table(table, width)]
    if analysis.comparisons:
        table = agreement_table(analysis.comparisons)
        parts += [
            heading("Agreement of the orderings"),
            paragraph(table.caption),
            text_table(table, width),
        ]
    failures = failure_table(analysis.frame)
    if failures.rows:
        parts += [heading("Fits that did not finish"), text_table(failures, width)]
    # The findings and titles name learners too: none prints a control character.
    return printable("\n\n".join(parts))


# --------------------------------------------------------------------------------------
# The tables of a study, in report order
# --------------------------------------------------------------------------------------


def report_tables(analysis: Analysis) -> list[tuple[str, Table]]:
    """The tables of a study, each with a file-name stem, in report order.

    The leaderboard by scenario, over the whole grid, the critical differences,
    the rank shifts and the agreement of the orderings.

    Parameters
    ----------
    analysis : Analysis
        From :func:`analyse`.

    Returns
    -------
    list of (str, Table)

    Examples
    --------
    >>> import pandas as pd
    >>> from skggm_bench.benchmark._analysis import analyse
    >>> frame = pd.DataFrame({
    ...     "generator": "DD", "n_features": 10, "density": 0.1, "n_samples": 50,
    ...     "repeat": [0, 0, 1, 1], "learner": ["a", "b"] * 2,
    ...     "f1": [0.2, 0.6, 0.3, 0.7], "status": "ok"})
    >>> [name for name, _ in report_tables(analyse(frame, n_bootstrap=100))]
    ['leaderboard', 'leaderboard_overall', 'critical_differences']
    """
    tables = [
        ("leaderboard", leaderboard_table(analysis.board)),
        ("leaderboard_overall", leaderboard_table(analysis.overall)),
        ("critical_differences", critical_difference_table(analysis.cd)),
    ]
    for comparison in analysis.comparisons:
        stem = re.sub(
            r"[^A-Za-z0-9]+",
            "_",
            f"rank_shift_{comparison.axis}_{comparison.source}_{comparison.target}",
        )
        tables.append((stem, rank_shift_table(comparison.shift)))
    if analysis.comparisons:
        tables.append(("agreement", agreement_table(analysis.comparisons)))
    return tables
