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
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from ...metrics import get_metric
from ...utils._printable import printable
from ..analysis._analysis import Analysis, Comparison, failure_rates
from ..analysis._ranking import MIN_REPEATS
from ._formatting import (
    THIN_MARK,
    format_interval,
    format_leaderboard,
    format_rank_shift,
)

__all__ = [
    "MISSING",
    "Table",
    "agreement_table",
    "critical_difference_table",
    "evidence_line",
    "failure_rate_table",
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
# The note under every table with intervals from fewer than MIN_REPEATS repeats.
_THIN_NOTE = (
    f"{THIN_MARK} An interval over fewer than {MIN_REPEATS} repeats (n = {{n}} "
    "here): n repeats give only C(2n - 1, n) distinct bootstrap resamples (35 at "
    "n = 4), too few to put 2.5% in each tail, so its bounds are the extreme "
    "resamples rather than a 95% interval. Read it as the range seen; no "
    "difference it shows is called significant (\"too few\" in a table)."
)
_DEGENERATE_NOTE = (
    "An interval of zero width, such as {example}, means that every resampled set "
    "of repeats gave the same value: the learner had that rank (or value) in every "
    "repeat. It says the repeats agree, not that the value is certain."
)
# The column, and in lists the bracketed mark, of learners that selected every
# pair or none.
_EDGES = "edges"
_SELECTION_NOTE = (
    "edges \"every pair\": the learner selected every pair in its successful fits "
    "(\"every pair 3/6\": in 3 of its 6), \"no pair\": it selected none; its edge "
    "metrics then describe that threshold (with every pair selected, F1 is the "
    "density of the true graph), not how it ranks the pairs: compare it by "
    "roc_auc or average_precision."
)
# The critical-difference lists mark learners by their fits over the whole grid
# (the selection summary), not by the group the row is about: the note says so.
_SELECTION_LIST_NOTE = (
    "[every pair] after a name: the learner selected every pair in its successful "
    "fits over the whole grid ([every pair 3/6]: in 3 of its 6, all generators "
    "together), [no pair]: none; its edge metrics then describe that threshold, not "
    "how it ranks the pairs."
)


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
    notes : tuple of str
        Footnotes shown under the table: what its marks mean, and the long
        reasons its cells refer to as ``[1]``, ``[2]``, ...
    """

    columns: list[str]
    rows: list[list[str]]
    n_group: int = 0
    wrap: frozenset[str] = field(default_factory=frozenset)
    caption: str = ""
    quoted: frozenset[str] = field(default_factory=frozenset)
    notes: tuple[str, ...] = ()

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


def _selection_mark(every: int, none: int, ok: int) -> str:
    """``every pair``, ``no pair 2/4``, ...: the learner's edge decisions."""
    return ", ".join(
        word if count == ok else f"{word} {count}/{ok}"
        for count, word in ((every, "every pair"), (none, "no pair"))
        if count
    )


def _selection_marks(selection: pd.DataFrame | None) -> dict[str, str]:
    """Per learner of :func:`selection_summary` output, its mark (whole grid)."""
    if selection is None or selection.empty:
        return {}
    return {
        row["learner"]: _selection_mark(
            row["n_every_pair"], row["n_no_pair"], row["n_ok"]
        )
        for row in selection.to_dict("records")
    }


def _with_edges_column(table: pd.DataFrame, marks: list[str]) -> list[str]:
    """Insert the ``edges`` column after ``learner`` when some learner has a mark.

    A column of its own, not a suffix of the name: the learner column stays the
    key of the table (CSV exports are joined and merged on it).
    """
    if not any(marks):
        return []
    table.insert(list(table.columns).index("learner") + 1, _EDGES, marks)
    return [_SELECTION_NOTE]


_INTERVAL = re.compile(r"(-?\d+\.\d+) \((-?\d+\.\d+)(?:\u2013| to )(-?\d+\.\d+)\)")


def _interval_notes(cells: Iterable[str], repeats: Iterable[Any]) -> list[str]:
    """The notes on thin (:data:`THIN_MARK`) and zero-width intervals of a table."""
    notes = []
    thin = sorted(
        {int(n) for n in repeats if not pd.isna(n) and int(n) < MIN_REPEATS}
    )
    if thin:
        notes.append(_THIN_NOTE.format(n=", ".join(map(str, thin))))
    for cell in cells:
        match = _INTERVAL.search(cell)
        if match and match[1] == match[2] == match[3]:
            notes.append(_DEGENERATE_NOTE.format(example=match[0]))
            break
    return notes


def leaderboard_table(board: pd.DataFrame) -> Table:
    """The leaderboard of :func:`~..analysis.leaderboard.leaderboard`.

    Parameters
    ----------
    board : pandas.DataFrame
        A leaderboard.

    Returns
    -------
    Table
        Grouped by its grouping columns; per learner (with an ``edges`` column,
        ``every pair`` or ``no pair``, when some learner's fits there selected
        every pair, or none) its position (``no data`` without a value, with a
        footnote ``[1]`` giving the reason when its fits succeeded), mean rank
        and mean metric with
        intervals (marked with :data:`THIN_MARK` over fewer than
        ``MIN_REPEATS`` repeats), the fits that did not finish and the
        learners it is tied with. Its notes explain the marks, the reasons and
        any interval of zero width.

    Examples
    --------
    >>> import pandas as pd
    >>> from skggm_bench.benchmark.analysis.leaderboard import leaderboard
    >>> frame = pd.DataFrame({
    ...     "generator": "G", "n_features": 10, "density": 0.1, "n_samples": 50,
    ...     "repeat": [0, 0, 1, 1], "learner": ["a", "b"] * 2,
    ...     "f1": [0.2, 0.6, 0.3, 0.7], "status": "ok"})
    >>> table = leaderboard_table(leaderboard(frame, "f1"))
    >>> table.columns[2:5]
    ['learner', 'position', 'mean rank (95% CI)']
    >>> table.rows[0][2:]
    ['b', '1', '1.00 (1.00–1.00)†', '0.65 (0.60–0.70)†', '0/2', '']
    >>> table.notes[0][:39]
    '† An interval over fewer than 5 repeats'
    """
    metric = board.attrs.get("metric", "metric")
    table = format_leaderboard(board)
    by = list(board.attrs.get("by", ("generator",)))
    interval = f"({100 * board.attrs.get('confidence', 0.95):g}% CI)"
    marks = (
        [
            _selection_mark(*counts)
            for counts in zip(
                board["n_every_pair"], board["n_no_pair"], board["n_ok"], strict=True
            )
        ]
        if "n_every_pair" in board
        else []
    )
    selection_note = _with_edges_column(table, marks)
    # A reason can be long (a solver's message): a footnote keeps the row one line.
    reasons: dict[str, int] = {}
    positions = []
    for text in table["position"]:
        if text.startswith("no data: "):
            number = reasons.setdefault(text[len("no data: ") :], len(reasons) + 1)
            text = f"no data [{number}]"
        positions.append(text)
    table["position"] = positions
    notes = [f"[{n}] no data: {reason}" for reason, n in reasons.items()]
    intervals = [c for c in table.columns if c.endswith(interval)]
    notes += _interval_notes(
        table[intervals].to_numpy().ravel(), board.get("n_repeats", ())
    )
    notes += selection_note
    result = _from_frame(
        table,
        by,
        wrap=("learner", _EDGES, "tied with"),
        headers={f"{metric} {interval}": f"{_label(metric)} {interval}"},
        caption=f"Learners by mean rank of {_label(metric)} ({_direction(metric)}).",
    )
    return replace(result, notes=tuple(notes))


def rank_shift_table(
    shift: pd.DataFrame, selection: pd.DataFrame | None = None
) -> Table:
    """A rank shift of :func:`~skggm_bench.benchmark.analysis.leaderboard.rank_shift`.

    Parameters
    ----------
    shift : pandas.DataFrame
        A rank shift.
    selection : pandas.DataFrame or None, default=None
        :func:`~skggm_bench.benchmark.analysis.leaderboard.selection_summary` of the
        results: its learners are marked ``[every pair]`` or ``[no pair]``.

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
    >>> from skggm_bench.benchmark.analysis.leaderboard import rank_shift
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
    ['b', '2 → 1', '+1', '+1.00 (1.00–1.00)†']
    """
    metric = shift.attrs.get("metric", "metric")
    source, target = shift.attrs["from_generator"], shift.attrs["to_generator"]
    axis = shift.attrs.get("axis", "generator")
    table = format_rank_shift(shift)
    marks = _selection_marks(selection)
    selection_note = _with_edges_column(
        table, [marks.get(name, "") for name in table["learner"]]
    )
    gains = [c for c in table.columns if c.startswith("mean-rank gain")]
    notes = _interval_notes(
        table[gains].to_numpy().ravel(), shift.get("n_repeats", ())
    )
    notes += selection_note
    result = _from_frame(
        table,
        list(shift.attrs.get("by", ())),
        wrap=("learner", _EDGES),
        headers={metric: _label(metric)},
        caption=f"{_label(metric)} rank of each learner {_under(axis, source)} "
        f"\u2192 {_under(axis, target)} ({_direction(metric)}).",
    )
    return replace(result, notes=tuple(notes))


def _p_value(p: float) -> str:
    if pd.isna(p):
        return MISSING
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def critical_difference_table(
    cd: pd.DataFrame, selection: pd.DataFrame | None = None
) -> Table:
    """The Friedman tests and Nemenyi critical differences, one row per group.

    Parameters
    ----------
    cd : pandas.DataFrame
        The output of
        :func:`~skggm_bench.benchmark.analysis.leaderboard.critical_difference`.
    selection : pandas.DataFrame or None, default=None
        :func:`~skggm_bench.benchmark.analysis.leaderboard.selection_summary` of the
        results: its learners are marked ``[every pair]`` or ``[no pair]``.

    Returns
    -------
    Table
        Per group: learners with data, blocks, the Friedman p-value, the
        critical difference, the best learner with its mean rank, and the
        learners that are, and are not, significantly worse than it.

    Examples
    --------
    >>> import pandas as pd
    >>> from skggm_bench.benchmark.analysis.leaderboard import critical_difference
    >>> frame = pd.DataFrame({
    ...     "generator": "G", "n_features": 10, "density": 0.1, "n_samples": 50,
    ...     "repeat": [r for r in range(6) for _ in "abc"],
    ...     "learner": list("abc") * 6, "f1": [0.9, 0.5, 0.1] * 6, "status": "ok"})
    >>> table = critical_difference_table(critical_difference(frame, "f1"))
    >>> dict(zip(table.columns, table.rows[0]))["significantly worse"]
    'c (3.00)'
    """
    by = list(cd.attrs.get("by", ("generator",)))
    marks = _selection_marks(selection)
    rows = []
    for _, part in _groups(cd, by):
        first = part.iloc[0]
        ranked = part[part["mean_rank"].notna()]
        ranked = ranked.assign(
            learner=[
                f"{name} [{marks[name]}]" if marks.get(name) else name
                for name in ranked["learner"]
            ]
        )
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
    result = _from_frame(
        pd.DataFrame(rows),
        by,
        wrap=("not significantly worse", "significantly worse"),
        caption=f"Friedman test of equal mean ranks of {_label(metric)} and Nemenyi "
        f"critical difference (CD) at level {alpha:g}: two learners whose mean "
        "ranks differ by at least CD differ significantly. Each learner is shown "
        "with its mean rank; 'worse' is compared with the best.",
    )
    shown = set(cd.loc[cd["mean_rank"].notna(), "learner"])
    notes = (
        (_SELECTION_LIST_NOTE,)
        if any(marks.get(n) for n in shown)
        else ()
    )
    return replace(result, notes=notes)


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
    >>> from skggm_bench.benchmark.analysis._analysis import analyse
    >>> rows = [
    ...     {"generator": g, "n_features": 10, "density": 0.1, "n_samples": 50,
    ...      "repeat": r, "learner": name, "f1": f1, "status": "ok"}
    ...     for r in range(4)
    ...     for g, scores in [("DD", {"a": 0.9, "b": 0.5, "c": 0.1}),
    ...                       ("TO", {"a": 0.2, "b": 0.4, "c": 0.6})]
    ...     for name, f1 in scores.items()]
    >>> analysis = analyse(pd.DataFrame(rows), "f1", n_bootstrap=100)
    >>> agreement_table(analysis.comparisons).rows[-1]
    ['DD → TO', 'whole grid', '-1.00 (-1.00 to -1.00)†', '3', '4']
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
            tau = _tau(record)
            rows.append(
                [
                    f"{comparison.source} \u2192 {comparison.target}",
                    scope,
                    tau,
                    _cell(record["n_learners"]),
                    _cell(record["n_repeats"]),
                ]
            )
    repeats = [
        n for comparison in comparisons for n in comparison.agreement["n_repeats"]
    ]
    return Table(
        columns=["compared", "where", "Kendall's tau (95% CI)", "learners", "repeats"],
        rows=rows,
        n_group=1,
        caption="Agreement of the learner orderings: Kendall's tau-b between the "
        "mean ranks on the two sides (1: the same order, 0: unrelated, -1: "
        "reversed), with a paired bootstrap interval over repeats.",
        notes=tuple(_interval_notes([row[2] for row in rows], repeats)),
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


def _rate(failed: int, fits: int) -> str:
    return f"{failed}/{fits} ({100 * failed / fits:.0f}%)" if fits else MISSING


def failure_rate_table(frame: pd.DataFrame) -> Table:
    """How often each learner's fits did not finish, one column per generator.

    Parameters
    ----------
    frame : pandas.DataFrame
        Benchmark results.

    Returns
    -------
    Table
        One row per learner: the fits that did not finish (failed, timed out,
        crashed, out of memory) of all its fits, under each generator and over
        all of them, as ``failed/fits (share)``.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({
    ...     "generator": ["DD", "DD", "TO", "TO"], "learner": "a",
    ...     "status": ["ok", "ok", "failed", "ok"]})
    >>> table = failure_rate_table(frame)
    >>> table.columns
    ['learner', 'under DD', 'under TO', 'all']
    >>> table.rows
    [['a', '0/2 (0%)', '1/2 (50%)', '1/4 (25%)']]
    """
    rates = failure_rates(frame)
    generators = sorted(rates["generator"].unique())
    rows = []
    for learner, part in rates.groupby("learner", sort=True):
        cells = part.set_index("generator")
        rows.append(
            [
                str(learner),
                *(
                    _rate(int(cells.at[g, "n_failed"]), int(cells.at[g, "n_fits"]))
                    if g in cells.index
                    else MISSING
                    for g in generators
                ),
                _rate(int(part["n_failed"].sum()), int(part["n_fits"].sum())),
            ]
        )
    return Table(
        columns=["learner", *(f"under {g}" for g in generators), "all"],
        rows=rows,
        caption="Fits that did not finish (failed, timed out, crashed or out of "
        "memory) of each learner's fits, per generator. They rank last in their "
        "blocks, so they move the other learners' ranks too.",
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


def _key(values: Iterable[Any]) -> tuple:
    """A group key in which NaN (a family's default density) matches NaN."""
    return tuple(None if pd.isna(v) else v for v in values)


def _block_counts(
    blocks: pd.DataFrame, columns: Sequence[str], key: Sequence[Any]
) -> tuple[int, int, int]:
    """``(n_blocks, n_gaps, n_complete)`` of ``blocks`` in the group ``key``."""
    if blocks.empty:
        return 0, 0, 0
    mask = np.ones(len(blocks), dtype=bool)
    for column, value in zip(columns, key, strict=True):
        cells = blocks[column]
        mask &= (cells.isna() if pd.isna(value) else cells == value).to_numpy()
    rows = blocks[mask]
    return (
        int(rows["n_blocks"].sum()),
        int(rows["n_gaps"].sum()),
        int(rows["n_complete"].sum()),
    )


def _too_few(n: int) -> str:
    return f"too few repeats to tell (n = {n})"


def _without_value(n_blocks: int, n_gaps: int) -> str:
    return (
        f"{n_gaps} of {n_blocks} blocks hold a fit without a value (failed, timed "
        "out, missing or undefined), ranked last"
    )


def _records(
    table: pd.DataFrame | None, by: Sequence[str]
) -> dict[tuple, dict[str, Any]]:
    """The rows of a per-(group, learner) table, by ``(*group key, learner)``."""
    if table is None:
        return {}
    return {
        (*_key(record[c] for c in by), record["learner"]): record
        for record in table.to_dict("records")
    }


def _winner_sentences(analysis: Analysis) -> list[str]:
    board = analysis.overall
    label = _label(analysis.metric)
    by = list(board.attrs["by"])
    complete = (
        {_key(key): part for key, part in _groups(analysis.complete_overall, by)}
        if analysis.complete_overall is not None
        else {}
    )
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
        n = int(first["n_repeats"].iloc[0])
        thin = n < MIN_REPEATS

        def numbers(row: Mapping[str, Any], thin: bool = thin) -> str:
            rank = format_interval(
                row["mean_rank"], row["rank_low"], row["rank_high"], thin=thin
            )
            value = format_interval(
                row["mean_metric"], row["metric_low"], row["metric_high"], thin=thin
            )
            return f"mean rank {rank}, mean {label} {value}"

        names = list(first["learner"])
        records = first.to_dict("records")
        if len(names) == 1:
            who = f"{names[0]} ranks first by {label} over the whole grid: "
            who += numbers(records[0])
        else:
            details = "; ".join(f"{r['learner']}: {numbers(r)}" for r in records)
            who = (
                f"{_names(names)} share the first place by {label} over the whole "
                f"grid ({details})"
            )
        tied = sorted(
            {name for text in first["tied_with"] for name in text.split(", ") if name}
            - set(names)
        )
        if tied:
            verb = "is" if len(tied) == 1 else "are"
            close = (
                f"; {_names(tied)} {verb} not told apart from {_names(names)}: "
                "their rank intervals overlap"
            )
        elif thin:
            lead = "it leads" if len(names) == 1 else "they lead"
            close = f"; {_too_few(n)} whether {lead}"
        else:
            close = "; no other learner's rank interval overlaps " + (
                f"that of {names[0]}" if len(names) == 1 else "theirs"
            )
        sentence = f"{where[0].upper()}{where[1:]}, {who}{close}."
        n_blocks, n_gaps, n_complete = _block_counts(
            analysis.overall_blocks, by, key
        )
        if n_gaps:
            sentence += " " + _complete_winner(
                complete.get(_key(key)), names, (n_blocks, n_gaps, n_complete)
            )
        sentences.append(sentence)
    return sentences


def _complete_winner(
    part: pd.DataFrame | None, names: list[str], counts: tuple[int, int, int]
) -> str:
    """Who leads on the complete blocks of a group, against the leader on all."""
    n_blocks, n_gaps, n_complete = counts
    opening = _without_value(n_blocks, n_gaps)
    opening = f"{opening[0].upper()}{opening[1:]}"
    leaders = [] if part is None else list(part[part["position"] == 1]["learner"])
    if not leaders:
        return (
            f"{opening}, and no block has a value of every learner ranked here: "
            "this order rests on failures as much as on recovery."
        )
    on = f"on the {n_complete} blocks where every learner with a value has one"
    if set(leaders) == set(names):
        still = "still ranks" if len(names) == 1 else "still share the"
        return f"{opening}; {on}, {_names(names)} {still} first."
    verb = "ranks" if len(leaders) == 1 else "share the"
    row = part[part["position"] == 1].iloc[0]
    rank = format_interval(row["mean_rank"], row["rank_low"], row["rank_high"])
    return (
        f"{opening}; {on}, {_names(leaders)} {verb} first instead (mean rank "
        f"{rank}): the lead above comes from failed fits."
    )


def _shift_sentences(analysis: Analysis) -> list[str]:
    """The largest changes of mean rank, over every comparison and group.

    Where some block of a group lacks a value of a compared learner, the change
    is judged on the complete blocks (:func:`~._analysis.complete_blocks`), and
    ordered by its size there: a learner that "moves" only because others
    failed is never headlined as a change of that learner.
    """
    label = _label(analysis.metric)
    candidates = []
    for comparison in analysis.comparisons:
        shift = comparison.shift
        by = list(shift.attrs.get("by", ()))
        complete = _records(comparison.complete_shift, by)
        moved = (shift["comparison"] == "compared") & (shift["rank_gain"] != 0)
        for record in shift[moved].to_dict("records"):
            key = [record[c] for c in by]
            counts = _block_counts(comparison.blocks, by, key)
            other = complete.get((*_key(key), record["learner"]))
            if other is not None and other["comparison"] != "compared":
                other = None
            size = (
                abs(record["rank_gain"])
                if not counts[1]
                else 0.0
                if other is None
                else abs(other["rank_gain"])
            )
            candidates.append((size, comparison, by, record, other, counts))
    candidates.sort(key=lambda item: -item[0])
    return [
        _shift_sentence(label, comparison, by, record, other, counts)
        for _, comparison, by, record, other, counts in candidates[:_MAX_SENTENCES]
    ]


def _shift_sentence(
    label: str,
    comparison: Comparison,
    by: list[str],
    record: Mapping[str, Any],
    other: Mapping[str, Any] | None,
    counts: tuple[int, int, int],
) -> str:
    learner = record["learner"]
    gain = record["rank_gain"]
    low, high = record["rank_gain_low"], record["rank_gain_high"]
    before, after = record["position_from"], record["position_to"]
    source = _under(comparison.axis, comparison.source)
    target = _under(comparison.axis, comparison.target)
    n = int(record["n_repeats"])
    thin = n < MIN_REPEATS
    if after == before:
        move = f"keeps the {_ordinal(before)} place {source} and {target}"
    else:
        verb = "rises" if after < before else "falls"
        move = f"{verb} from {_ordinal(before)} {source} to {_ordinal(after)} {target}"
    change = _gain_text(gain, low, high, thin)
    where = _where(by, [record[c] for c in by])
    opening = f"By {label}{f' ({where})' if where else ''}, {learner} {move}; {change}"
    n_blocks, n_gaps, n_complete = counts
    if not n_gaps:
        verdict = (
            _too_few(n)
            if thin
            else "a significant change"
            if record["significant"]
            else "not significant: the interval includes no change"
        )
        return f"{opening}, {verdict}."
    share = _without_value(n_blocks, n_gaps)
    own = [
        f"{int(failed)} {side}"
        for failed, side in (
            (record["n_failed_from"], source),
            (record["n_failed_to"], target),
        )
        if not pd.isna(failed) and failed
    ]
    origin = (
        f"failed fits, {learner}'s own among them ({', '.join(own)})"
        if own
        else "other learners' failed fits"
    )
    not_learner = f"not from a change of {learner}"
    if other is None:
        tail = (
            f"{share}, and no block has a value of every compared learner on both "
            f"sides: the shift comes from {origin}, {not_learner}"
        )
    else:
        m = int(other["n_repeats"])
        there = _gain_text(
            other["rank_gain"],
            other["rank_gain_low"],
            other["rank_gain_high"],
            m < MIN_REPEATS,
        )
        on = f"on the {n_complete} blocks where every compared learner has a value"
        same = np.sign(other["rank_gain"]) == np.sign(gain)
        thin = m < MIN_REPEATS
        if other["significant"] and same and not thin:
            verdict = ", a significant change there too"
        elif other["significant"] and not thin:
            verdict = f", the other way: {origin} reverse it"
        elif thin and round(other["rank_gain"], 2) != 0:
            verdict = f", {_too_few(m)}"
        else:
            verdict = f": the shift comes from {origin}, {not_learner}"
        tail = f"{share}; {on}, {there}{verdict}"
    return f"{opening}. {tail[0].upper()}{tail[1:]}."


def _gain_text(gain: float, low: float, high: float, thin: bool) -> str:
    if round(gain, 2) == 0:
        return "its mean rank changes by " + format_interval(
            gain, low, high, signed=True, thin=thin
        )
    if gain > 0:
        return (
            "its mean rank improves by "
            + format_interval(gain, low, high, thin=thin)
        )
    return "its mean rank worsens by " + format_interval(
        -gain, -high, -low, thin=thin
    )


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
                _tau(overall)
                if overall["comparison"] == "compared"
                else "no data"
            )
            complete = _complete_tau(comparison)
            complete = f" ({complete})" if complete else ""
            parts.append(f"{comparison.target} {tau}{complete}")
        sentences.append(
            f"Kendall's tau between the learner orderings {lead}, over the whole "
            f"grid {scale}: {'; '.join(parts)}."
        )
    return sentences


def _tau(row: Mapping[str, Any]) -> str:
    thin = not pd.isna(row["n_repeats"]) and row["n_repeats"] < MIN_REPEATS
    return format_interval(row["tau"], row["tau_low"], row["tau_high"], thin=thin)


def _complete_tau(comparison: Comparison) -> str:
    """``k of N blocks ...; on the M blocks ...: tau``, or nothing."""
    n_blocks, n_gaps, n_complete = (
        int(comparison.blocks[c].sum()) if len(comparison.blocks) else 0
        for c in ("n_blocks", "n_gaps", "n_complete")
    )
    if not n_gaps:
        return ""
    there = (
        _overall(comparison.complete_agreement)
        if comparison.complete_agreement is not None
        else None
    )
    tau = (
        _tau(there)
        if there is not None and there["comparison"] == "compared"
        else "no data"
    )
    return (
        f"{_without_value(n_blocks, n_gaps)}; on the {n_complete} blocks where "
        f"every compared learner has a value: {tau}"
    )


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
    sentence = (
        f"Kendall's tau between the learner orderings {sides} is {_tau(overall)} "
        f"over the whole grid {scale}"
    )
    complete = _complete_tau(comparison)
    if complete:
        sentence += f"; {complete}"
    groups = agreement[
        (agreement["scope"] == "group") & (agreement["comparison"] == "compared")
    ]
    if len(groups) > 1:
        lowest = groups.loc[groups["tau"].idxmin()]
        sentence += f"; lowest ({_where(by, [lowest[c] for c in by])}): {_tau(lowest)}"
    n = overall["n_repeats"]
    if not pd.isna(n) and n < MIN_REPEATS:
        sentence += f"; {_too_few(int(n))} how closely they agree"
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
    repeats = {
        _key(key): int(part["repeat"].nunique())
        for key, part in _groups(analysis.frame, by)
    }
    different = [(key, part) for key, part in groups if part["p_value"].iloc[0] < alpha]
    what = " x ".join(_HEADERS.get(c, c) for c in by)
    opening = (
        f"Friedman tests at level {alpha:g}: the learners' mean ranks differ in "
        f"{len(different)} of {len(groups)} groups ({what})"
    )
    fewest = min(repeats.get(_key(key), 0) for key, _ in groups)
    if fewest < MIN_REPEATS:
        opening += (
            f"; {_too_few(fewest)}: the blocks of a repeat share its graph, so the "
            "test has fewer independent units than blocks"
        )
    sentences = [opening + "."]
    strongest = sorted(different, key=lambda item: -item[1]["statistic"].iloc[0])
    for key, part in strongest[:_MAX_SENTENCES]:
        best, worse, _ = _best_and_others(part[part["mean_rank"].notna()])
        first = part.iloc[0]
        where = _where(by, key)
        where = f"{where[0].upper()}{where[1:]}"
        evidence = (
            f"critical difference {first['critical_difference']:.2f}, Friedman p "
            f"{_p_value(first['p_value'])}"
        )
        n_blocks, n_gaps, _ = _block_counts(analysis.cd_blocks, by, key)
        if n_gaps:
            evidence += f"; {_without_value(n_blocks, n_gaps)}"
        n = repeats.get(_key(key), 0)
        if worse and n < MIN_REPEATS:
            names = _names([name for name, _ in worse])
            sentences.append(
                f"{where}, {best[0]} (mean rank {best[1]:.2f}) ranks ahead of "
                f"{names}, but {_too_few(n)} ({evidence})."
            )
        elif worse:
            names = _names([name for name, _ in worse])
            sentences.append(
                f"{where}, {best[0]} (mean rank {best[1]:.2f}) "
                f"is significantly better than {names} ({evidence})."
            )
        else:
            sentences.append(
                f"{where}, no learner is significantly worse "
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
    return [
        sentence + ".",
        *_failure_rate_sentences(analysis),
        *_no_position_sentences(analysis),
    ]


def _failure_rate_sentences(analysis: Analysis) -> list[str]:
    """The failure rate under each generator, and the learners that fail most."""
    rates = analysis.failures
    parts = []
    for generator, part in rates.groupby("generator", sort=True):
        failed, fits = int(part["n_failed"].sum()), int(part["n_fits"].sum())
        text = f"under {generator} {100 * failed / fits:.0f}% ({failed} of {fits} fits"
        worst = part[part["n_failed"] > 0].assign(
            share=lambda t: t["n_failed"] / t["n_fits"]
        )
        worst = worst.sort_values(["share", "learner"], ascending=[False, True])
        named = [
            f"{row['learner']} {100 * row['share']:.0f}% ({row['n_failed']} of "
            f"{row['n_fits']})"
            for row in worst.head(_MAX_SENTENCES).to_dict("records")
        ]
        more = len(worst) - len(named)
        if named:
            text += ": " + ", ".join(named) + (f" and {more} more" if more else "")
        parts.append(text + ")")
    return [
        "Failure rates by generator: "
        + "; ".join(parts)
        + ". Failed fits rank last, so they lift the other learners' ranks; the "
        "findings above say where a rank rests on them."
    ]


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
    # By a threshold-free metric or a loss the selection does not matter.
    if summary.empty or get_metric(analysis.metric).needs != "edges":
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
    >>> from skggm_bench.benchmark.analysis._analysis import analyse
    >>> frame = pd.DataFrame({
    ...     "generator": "DD", "n_features": 10, "density": 0.1, "n_samples": 50,
    ...     "repeat": [r for r in range(5) for _ in "ab"], "learner": ["a", "b"] * 5,
    ...     "f1": [0.2, 0.6, 0.3, 0.7, 0.1, 0.5, 0.2, 0.4, 0.3, 0.5], "status": "ok"})
    >>> for sentence in findings(analyse(frame, "f1", n_bootstrap=100)):
    ...     print(sentence)  # doctest: +NORMALIZE_WHITESPACE
    Under DD, b ranks first by F1 over the whole grid: mean rank 1.00 (1.00–1.00),
    mean F1 0.54 (0.46–0.62); no other learner's rank interval overlaps that of b.
    Friedman tests at level 0.05: the learners' mean ranks differ in 1 of 1 groups
    (generator x density).
    Under DD, density 0.1, b (mean rank 1.00) is significantly better than a
    (critical difference 0.88, Friedman p 0.025).
    All 10 fits finished.
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

    Wrappable columns are wrapped (at spaces) until the table fits; the notes
    follow, each a paragraph.

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
    blocks += [textwrap.fill(note, width) for note in table.notes]
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
    >>> from skggm_bench.benchmark.analysis._analysis import analyse
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
    parts = [
        heading("Findings"),
        paragraph(evidence_line(analysis)),
        "\n".join(bullets),
    ]
    differences = critical_difference_table(analysis.cd, analysis.selection)
    parts += [
        heading(f"Leaderboard by {label} ({_direction(analysis.metric)})"),
        text_table(leaderboard_table(analysis.board), width),
        heading("Critical differences"),
        paragraph(differences.caption),
        text_table(differences, width),
    ]
    for comparison in analysis.comparisons:
        table = rank_shift_table(comparison.shift, analysis.selection)
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
        rates = failure_rate_table(analysis.frame)
        parts += [
            heading("Fits that did not finish"),
            paragraph(rates.caption),
            text_table(rates, width),
            text_table(failures, width),
        ]
    # The findings and titles name learners too: none prints a control character.
    return printable("\n\n".join(parts))


def evidence_line(analysis: Analysis) -> str:
    """How many repeats carry the intervals, and what the marks mean.

    Parameters
    ----------
    analysis : Analysis
        From :func:`analyse`.

    Returns
    -------
    str

    Examples
    --------
    >>> import pandas as pd
    >>> from skggm_bench.benchmark.analysis._analysis import analyse
    >>> frame = pd.DataFrame({
    ...     "generator": "DD", "n_features": 10, "density": 0.1, "n_samples": 50,
    ...     "repeat": [0, 0, 1, 1], "learner": ["a", "b"] * 2,
    ...     "f1": [0.2, 0.6, 0.3, 0.7], "status": "ok"})
    >>> print(evidence_line(analyse(frame, n_bootstrap=100)))  # doctest: +ELLIPSIS
    Every interval is a 95% bootstrap interval over n = 2 repeats...
    """
    repeats = sorted(set(analysis.board["n_repeats"].astype(int)))
    n = str(repeats[0]) if len(repeats) == 1 else f"{repeats[0]} to {repeats[-1]}"
    plural = "repeat" if repeats == [1] else "repeats"
    line = (
        f"Every interval is a {100 * analysis.board.attrs['confidence']:g}% "
        f"bootstrap interval over n = {n} {plural} (the random graphs, each shared "
        "by every learner)"
    )
    if repeats[0] < 2:
        return line + ": with a single repeat no interval can be estimated."
    if repeats[0] < MIN_REPEATS:
        line += (
            f". Fewer than {MIN_REPEATS} repeats cannot resolve a 95% interval: "
            f"such intervals are marked {THIN_MARK}, and no difference they show is "
            "called significant"
        )
    board = analysis.board
    if (board["rank_low"] == board["rank_high"]).any():
        line += (
            ". An interval of zero width, such as 1.00 (1.00\u20131.00), means that "
            "every resampled set of repeats gave the same value: the repeats agree, "
            "which is not certainty"
        )
    return line + "."


# --------------------------------------------------------------------------------------
# The tables of a study, in report order
# --------------------------------------------------------------------------------------


def report_tables(analysis: Analysis) -> list[tuple[str, Table]]:
    """The tables of a study, each with a file-name stem, in report order.

    The leaderboard by scenario, over the whole grid, the critical differences,
    the rank shifts, the agreement of the orderings and, when some fit did not
    finish, the failure rates.

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
    >>> from skggm_bench.benchmark.analysis._analysis import analyse
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
        (
            "critical_differences",
            critical_difference_table(analysis.cd, analysis.selection),
        ),
    ]
    for comparison in analysis.comparisons:
        stem = re.sub(
            r"[^A-Za-z0-9]+",
            "_",
            f"rank_shift_{comparison.axis}_{comparison.source}_{comparison.target}",
        )
        tables.append((stem, rank_shift_table(comparison.shift, analysis.selection)))
    if analysis.comparisons:
        tables.append(("agreement", agreement_table(analysis.comparisons)))
    if (analysis.frame["status"] != "ok").any():
        tables.append(("failure_rates", failure_rate_table(analysis.frame)))
    return tables
