"""An analysis as text for a terminal: its findings, then its tables.

:func:`text_report` is what ``skggm-bench leaderboard`` prints; :func:`report_tables`
lists the tables of a study in the order the report and the command line show them
(the Markdown, LaTeX and CSV exports use it too).
"""

from __future__ import annotations

import re
import textwrap

from ...utils._printable import printable
from ..analysis._analysis import Analysis, shift_verdicts
from ..analysis._ranking import MIN_REPEATS
from ._findings import findings
from ._formatting import THIN_MARK
from ._tables import (
    Table,
    agreement_table,
    critical_difference_table,
    failure_rate_table,
    failure_table,
    leaderboard_table,
    rank_shift_table,
)
from ._wording import describe_group, metric_direction, metric_label

__all__ = ["evidence_line", "report_tables", "text_report", "text_table"]


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
        heading = describe_group(table.columns[: table.n_group], key) if key else ""
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
    label = metric_label(analysis.metric)

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
    differences = critical_difference_table(analysis.cd, analysis.cd_selection)
    parts += [
        heading(f"Leaderboard by {label} ({metric_direction(analysis.metric)})"),
        text_table(leaderboard_table(analysis.board), width),
        heading("Critical differences"),
        paragraph(differences.caption),
        text_table(differences, width),
    ]
    for comparison in analysis.comparisons:
        table = rank_shift_table(
            comparison.shift, comparison.selection, shift_verdicts(comparison)
        )
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
            critical_difference_table(analysis.cd, analysis.cd_selection),
        ),
    ]
    for comparison in analysis.comparisons:
        stem = re.sub(
            r"[^A-Za-z0-9]+",
            "_",
            f"rank_shift_{comparison.axis}_{comparison.source}_{comparison.target}",
        )
        tables.append(
            (
                stem,
                rank_shift_table(
                    comparison.shift, comparison.selection, shift_verdicts(comparison)
                ),
            )
        )
    if analysis.comparisons:
        tables.append(("agreement", agreement_table(analysis.comparisons)))
    if (analysis.frame["status"] != "ok").any():
        tables.append(("failure_rates", failure_rate_table(analysis.frame)))
    return tables
