"""The tables of an analysis, as display text shared by the command line and the report.

Each ``*_table`` function turns part of an :class:`~..analysis._analysis.Analysis`
into a :class:`Table` whose cells are all display text (intervals as
``+1.42 (1.08–1.83)``, ``yes``/``no``, ``–`` where there is nothing), with the notes
a reader needs under it (thin evidence, zero-width intervals, learners that selected
every pair or none). The report renders a :class:`Table` as HTML through its
template, :func:`~._text.text_table` for a terminal, :mod:`._table_formats` as
Markdown, LaTeX or CSV. This module computes no statistic; it only counts and groups
what it lays out.
"""

from __future__ import annotations

import re
import textwrap
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd

from ..analysis._analysis import (
    COMPLETE_ONLY,
    FROM_FAILURES,
    NO_DATA,
    NOT_SIGNIFICANT,
    REVERSED,
    SIGNIFICANT,
    TOO_FEW,
    Comparison,
    failure_rates,
)
from ..analysis._ranking import MIN_REPEATS
from ..results._provenance import versions_seen
from ._formatting import (
    THIN_NOTE,
    format_leaderboard,
    format_rank_shift,
)
from ._wording import (
    EVERY_PAIR_F1,
    HEADERS,
    MISSING,
    best_and_others,
    cell_text,
    describe_group,
    group_text,
    metric_direction,
    metric_label,
    p_value_text,
    split_groups,
    tau_text,
    under,
)

__all__ = [
    "Table",
    "agreement_table",
    "critical_difference_table",
    "failure_rate_table",
    "failure_table",
    "grid_table",
    "leaderboard_table",
    "rank_shift_table",
    "versions_table",
]


# Failure messages are cut (at a word boundary) to this many characters.
_MESSAGE_WIDTH = 160


_DEGENERATE_NOTE = (
    "An interval of zero width, such as {example}, means that every resampled set "
    "of repeats gave the same value: the learner had that rank (or value) in every "
    "repeat. It says the repeats agree, not that the value is certain."
)


# The column, and in lists the bracketed mark, of learners that selected every
# pair or none.
_EDGES = "edges"


_SELECTION_NOTE = (
    'edges "every pair": the learner selected every pair in its successful fits '
    '("every pair 3/6": in 3 of its 6), "no pair": it selected none; its edge '
    f"metrics then describe that threshold ({EVERY_PAIR_F1}), not how it ranks "
    "the pairs: compare it by roc_auc or average_precision."
)


# Given the whole grid's selection summary, the rank-shift table's edges column
# counts each learner's fits over the whole grid, not the group's: the note says
# so.
_SELECTION_GRID_NOTE = (
    'edges "every pair": the learner selected every pair in its successful fits '
    'over the whole grid, all generators together ("every pair 3/6": in 3 of its '
    f'6), "no pair": none; its edge metrics then describe that threshold '
    f"({EVERY_PAIR_F1}), not how it ranks the pairs: compare it by roc_auc or "
    "average_precision."
)

# The rank-shift table's groups pool both sides of a comparison.
_SELECTION_POOLED_NOTE = (
    'edges "every pair": the learner selected every pair in its successful fits of '
    'the group, both sides together ("every pair 3/6": in 3 of its 6), "no pair": '
    f"none; its edge metrics then describe that threshold ({EVERY_PAIR_F1}), not "
    "how it ranks the pairs: compare it by roc_auc or average_precision."
)

_SELECTION_LIST_NOTE = (
    "[every pair] after a name: the learner selected every pair in its successful "
    "fits {where} ([every pair 3/6]: in 3 of its 6), [no pair]: none; its edge "
    "metrics then describe that threshold, not how it ranks the pairs."
)

# The significant column of a rank-shift table judged by shift_verdicts.
_VERDICT_CELLS = {
    SIGNIFICANT: "yes",
    NOT_SIGNIFICANT: "no",
    TOO_FEW: "too few",
    NO_DATA: "no",
    FROM_FAILURES: "no (failures)",
    REVERSED: "no (failures)",
    COMPLETE_ONLY: "yes (complete blocks)",
}

_VERDICT_NOTE = (
    "significant: the interval excludes 0 and, in a group where some block lacks a "
    "value of a compared learner (failed fits rank last and lift the others), the "
    "change on the blocks where every compared learner has a value is significant "
    'in the same direction; "no (failures)": the change comes from failed fits (it '
    "is not significant, or goes the other way, where every learner has a value); "
    '"yes (complete blocks)": significant only where every learner has a value.'
)

_CROSSED_NOTE = (
    "A position counts the learners ranked ahead: a learner can lose a place while "
    "its own mean rank improves (another learner improved more and passed it), or "
    "gain one while its mean rank worsens."
)


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


def _from_frame(
    frame: pd.DataFrame,
    group_columns: Sequence[str],
    *,
    wrap: Iterable[str] = (),
    caption: str = "",
    headers: Mapping[str, str] | None = None,
) -> Table:
    headers = {**HEADERS, **(headers or {})}
    rows = [
        [group_text(c, v) for c, v in zip(group_columns, values, strict=False)]
        + [cell_text(v) for v in values[len(group_columns) :]]
        for values in frame.itertuples(index=False, name=None)
    ]
    return Table(
        columns=[headers.get(str(c), str(c)) for c in frame.columns],
        rows=rows,
        n_group=len(group_columns),
        wrap=frozenset(headers.get(c, c) for c in wrap),
        caption=caption,
    )


def _selection_mark(every: int, none: int, ok: int) -> str:
    """``every pair``, ``no pair 2/4``, ...: the learner's edge decisions."""
    return ", ".join(
        word if count == ok else f"{word} {count}/{ok}"
        for count, word in ((every, "every pair"), (none, "no pair"))
        if count
    )


def _selection_marks(
    selection: pd.DataFrame | None, by: Sequence[str]
) -> tuple[dict[tuple[Any, ...], str], bool]:
    """The marks of :func:`selection_summary` output by ``(*group key, learner)``,
    and whether they count per group (the summary has the ``by`` columns) rather
    than over the whole grid (then keyed by ``(learner,)``)."""
    if selection is None:
        return {}, False
    grouped = bool(by) and all(column in selection.columns for column in by)
    columns = [*(by if grouped else ()), "learner"]
    return {
        tuple(None if pd.isna(row[c]) else row[c] for c in columns): _selection_mark(
            row["n_every_pair"], row["n_no_pair"], row["n_ok"]
        )
        for row in selection.to_dict("records")
    }, grouped


def _mark_of(
    marks: dict[tuple[Any, ...], str],
    grouped: bool,
    by: Sequence[str],
    row: Mapping[str, Any],
) -> str:
    columns = [*(by if grouped else ()), "learner"]
    return marks.get(tuple(None if pd.isna(row[c]) else row[c] for c in columns), "")


def _with_edges_column(
    table: pd.DataFrame, marks: list[str], note: str = _SELECTION_NOTE
) -> list[str]:
    """Insert the ``edges`` column after ``learner`` when some learner has a mark.

    Returns ``[note]`` when it did (the note says what the marks count), else [].

    A column of its own, not a suffix of the name: the learner column stays the
    key of the table (CSV exports are joined and merged on it).
    """
    if not any(marks):
        return []
    table.insert(list(table.columns).index("learner") + 1, _EDGES, marks)
    return [note]


_INTERVAL = re.compile(r"(-?\d+\.\d+) \((-?\d+\.\d+)(?:\u2013| to )(-?\d+\.\d+)\)")


def _interval_notes(cells: Iterable[str], repeats: Iterable[Any]) -> list[str]:
    """The notes on thin (:data:`THIN_MARK`) and zero-width intervals of a table."""
    notes = []
    thin = sorted({int(n) for n in repeats if not pd.isna(n) and int(n) < MIN_REPEATS})
    if thin:
        notes.append(THIN_NOTE.format(n=", ".join(map(str, thin))))
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
        headers={f"{metric} {interval}": f"{metric_label(metric)} {interval}"},
        caption=(
            f"Learners by mean rank of {metric_label(metric)} "
            f"({metric_direction(metric)})."
        ),
    )
    return replace(result, notes=tuple(notes))


def rank_shift_table(
    shift: pd.DataFrame,
    selection: pd.DataFrame | None = None,
    verdicts: pd.Series | None = None,
) -> Table:
    """A rank shift of :func:`~skggm_bench.benchmark.analysis.leaderboard.rank_shift`.

    Parameters
    ----------
    shift : pandas.DataFrame
        A rank shift.
    selection : pandas.DataFrame or None, default=None
        :func:`~skggm_bench.benchmark.analysis.leaderboard.selection_summary` of the
        compared rows by the shift's groups (as :attr:`Comparison.selection`), or
        of the whole grid: its learners are marked ``every pair`` or ``no pair``
        in an ``edges`` column.
    verdicts : pandas.Series or None, default=None
        :func:`~skggm_bench.benchmark.analysis._analysis.shift_verdicts` of the
        comparison: the ``significant`` column then follows its rule (a shift
        that comes from failed fits is ``no (failures)``), with a note. Without
        it, the column says whether the interval excludes 0.

    Returns
    -------
    Table
        Per group and learner: positions, places gained, the change in mean rank
        with its interval, whether it is significant, the mean metric and the
        failures, each as ``from → to``; ``no data`` where a side has no
        successful fit. A note explains a place lost while the mean rank
        improves (or the reverse).

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
    by = list(shift.attrs.get("by", ()))
    table = format_rank_shift(shift)
    marks, grouped = _selection_marks(selection, by)
    selection_note = _with_edges_column(
        table,
        [_mark_of(marks, grouped, by, row) for row in shift.to_dict("records")],
        _SELECTION_POOLED_NOTE if grouped else _SELECTION_GRID_NOTE,
    )
    notes = []
    if verdicts is not None:
        table["significant"] = [_VERDICT_CELLS[v] for v in verdicts]
        if any("(" in cell for cell in table["significant"]):
            notes.append(_VERDICT_NOTE)
    gains = [c for c in table.columns if c.startswith("mean-rank gain")]
    notes += _interval_notes(
        table[gains].to_numpy().ravel(), shift.get("n_repeats", ())
    )
    gain = shift["rank_gain"].round(2)
    places = shift["places_gained"].astype(float)
    if (((places < 0) & (gain >= 0)) | ((places > 0) & (gain <= 0))).any():
        notes.append(_CROSSED_NOTE)
    notes += selection_note
    result = _from_frame(
        table,
        by,
        wrap=("learner", _EDGES),
        headers={metric: metric_label(metric)},
        caption=f"{metric_label(metric)} rank of each learner {under(axis, source)} "
        f"\u2192 {under(axis, target)} ({metric_direction(metric)}).",
    )
    return replace(result, notes=tuple(notes))


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
        results by the groups of ``cd`` (:attr:`Analysis.cd_selection`), or over
        the whole grid: its learners are marked ``[every pair]`` or ``[no pair]``.

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
    marks, grouped = _selection_marks(selection, by)
    rows = []
    marked = False
    for _, part in split_groups(cd, by):
        first = part.iloc[0]
        ranked = part[part["mean_rank"].notna()]
        shown = [_mark_of(marks, grouped, by, row) for row in ranked.to_dict("records")]
        marked |= any(shown)
        ranked = ranked.assign(
            learner=[
                f"{name} [{mark}]" if mark else name
                for name, mark in zip(ranked["learner"], shown, strict=True)
            ]
        )
        best, worse, close = best_and_others(ranked)
        rows.append(
            {
                **{column: first[column] for column in by},
                "learners": len(ranked),
                "blocks": int(first["n_blocks"]),
                "Friedman p": p_value_text(first["p_value"]),
                "CD": cell_text(round(first["critical_difference"], 2)),
                "best (mean rank)": ", ".join(map(_ranked, best)) or MISSING,
                "not significantly worse": ", ".join(map(_ranked, close)) or MISSING,
                "significantly worse": ", ".join(map(_ranked, worse)) or MISSING,
            }
        )
    metric = cd.attrs.get("metric", "metric")
    alpha = cd.attrs.get("alpha", 0.05)
    result = _from_frame(
        pd.DataFrame(rows),
        by,
        # Learners tied at the best mean rank are all named: that cell wraps too.
        wrap=("best (mean rank)", "not significantly worse", "significantly worse"),
        caption=f"Friedman test of equal mean ranks of {metric_label(metric)} and "
        f"Nemenyi critical difference (CD) at level {alpha:g}: two learners whose "
        "mean ranks differ by at least CD differ significantly. Each learner is "
        "shown with its mean rank; 'worse' is compared with the best.",
    )
    where = "of the group" if grouped else "over the whole grid, all groups together"
    notes = (_SELECTION_LIST_NOTE.format(where=where),) if marked else ()
    return replace(result, notes=notes)


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
                scope = describe_group(by, [record[c] for c in by]) or "whole grid"
            tau = tau_text(record)
            rows.append(
                [
                    f"{comparison.source} \u2192 {comparison.target}",
                    scope,
                    tau,
                    cell_text(record["n_learners"]),
                    cell_text(record["n_repeats"]),
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
        text = [cell_text(v) for v in present]
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
    seen = versions_seen(frame["versions"]) if "versions" in frame else {}
    return Table(
        columns=["package", "version"],
        rows=[[package, ", ".join(found)] for package, found in seen.items()],
    )
