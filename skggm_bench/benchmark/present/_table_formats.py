"""The display tables of :mod:`._tables` in the formats of papers and spreadsheets.

A :class:`~._tables.Table` holds display text only; this module writes it as a
GitHub-flavoured Markdown pipe table, a LaTeX ``table`` (through pandas' Styler,
every cell escaped) or CSV, for ``skggm-bench leaderboard --format`` and the
files the HTML report links. Wording stays in ``_tables.py`` and
``_wording.py``; this module only lays the cells out.
"""

from __future__ import annotations

import re

import pandas as pd

from ._tables import Table
from ._text import text_table
from ._wording import MISSING

__all__ = [
    "TABLE_FORMATS",
    "csv_table",
    "format_table",
    "latex_table",
    "markdown_table",
]

#: The formats of :func:`format_table` (``"text"`` is :func:`text_table`).
TABLE_FORMATS: tuple[str, ...] = ("text", "markdown", "latex", "csv")


def _frame_of(table: Table) -> pd.DataFrame:
    return pd.DataFrame(table.rows, columns=table.columns, dtype=object)


def markdown_table(table: Table) -> str:
    """A :class:`Table` as a GitHub-flavoured Markdown pipe table, caption first.

    Parameters
    ----------
    table : Table
        The table.

    Returns
    -------
    str

    Examples
    --------
    >>> print(markdown_table(Table(["learner", "tied with"], [["a|b", "c"]])))
    | learner | tied with |
    | --- | --- |
    | a\\|b | c |
    """

    def cell(text: str) -> str:
        return " ".join(text.split()).replace("|", "\\|")

    lines = [f"*{cell(table.caption)}*", ""] if table.caption else []
    lines.append("| " + " | ".join(cell(c) for c in table.columns) + " |")
    lines.append("| " + " | ".join("---" for _ in table.columns) + " |")
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in table.rows]
    lines += [line for note in table.notes for line in ("", cell(note))]
    return "\n".join(lines)


def _latex_text(text: str) -> str:
    escaped = re.sub(r"([&%$#_{}])", r"\\\1", text.replace("\\", "\\textbackslash "))
    escaped = escaped.replace("~", "\\textasciitilde ").replace("^", "\\^{}")
    return escaped.replace(MISSING, "--").replace("\u2020", "\\textdagger{}")


def latex_table(table: Table) -> str:
    r"""A :class:`Table` as a LaTeX ``table`` (booktabs rules), through pandas' Styler.

    Every cell is escaped for LaTeX; intervals keep their text, ``1.42
    (1.08--1.83)``. Needs ``\usepackage{booktabs}``.

    Parameters
    ----------
    table : Table
        The table.

    Returns
    -------
    str

    Examples
    --------
    >>> text = latex_table(Table(["learner", "F1"], [["glasso_cv", "0.5 (0.4–0.6)"]]))
    >>> print(next(line for line in text.splitlines() if "glasso" in line))
    glasso\_cv & 0.5 (0.4--0.6) \\
    """
    frame = _frame_of(table)
    frame = frame.apply(lambda column: column.map(_latex_text))
    frame.columns = [_latex_text(c) for c in frame.columns]
    styler = frame.style.hide(axis="index")
    # The notes (marks, footnoted reasons) belong to the table wherever it goes.
    caption = " ".join([table.caption, *table.notes]).strip()
    latex: str = styler.to_latex(
        caption=_latex_text(caption) or None,
        hrules=True,
        position_float="centering",
        column_format="l" * len(frame.columns),
    )
    return latex


def csv_table(table: Table) -> str:
    """A :class:`Table` as CSV text (the display text of every cell).

    Parameters
    ----------
    table : Table
        The table.

    Returns
    -------
    str

    Examples
    --------
    >>> print(csv_table(Table(["learner", "tied with"], [["a", "b, c"]])), end="")
    learner,tied with
    a,"b, c"
    """
    result: str = _frame_of(table).to_csv(index=False, lineterminator="\n")
    return result


def format_table(table: Table, format: str, width: int = 100) -> str:
    """A :class:`Table` in one of :data:`TABLE_FORMATS`.

    Parameters
    ----------
    table : Table
        The table.
    format : {"text", "markdown", "latex", "csv"}
        The format.
    width : int, default=100
        The widest line of the text format.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        For an unknown format.

    Examples
    --------
    >>> print(format_table(Table(["learner"], [["a"]]), "csv"), end="")
    learner
    a
    """
    if format == "text":
        return text_table(table, width)
    writers = {"markdown": markdown_table, "latex": latex_table, "csv": csv_table}
    if format not in writers:
        raise ValueError(
            f"format must be one of {', '.join(TABLE_FORMATS)}, got {format!r}"
        )
    return writers[format](table)
