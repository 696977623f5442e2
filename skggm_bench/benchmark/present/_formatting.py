"""Display versions of the leaderboard's tables: intervals and changes as text.

:mod:`~skggm_bench.benchmark.analysis.leaderboard` computes; this module only words its
numbers (``+1.42 (1.08–1.83)``, ``"2 → 1"``, ``yes``/``no``, ``–`` where there is
nothing). The three functions are re-exported by ``leaderboard``, where users
import them; the findings sentences and the front ends' tables are in
``_findings.py`` and ``_tables.py``.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..analysis._ranking import MIN_REPEATS

__all__ = [
    "THIN_MARK",
    "KeyedFrame",
    "format_interval",
    "format_leaderboard",
    "format_rank_shift",
]

#: Follows an interval computed from fewer than ``MIN_REPEATS`` repeats: too few
#: for the bootstrap to resolve a 95% interval (see ``_ranking.MIN_REPEATS``).
THIN_MARK = "\u2020"

#: The key of :data:`THIN_MARK`, under every table that shows it.
THIN_NOTE = (
    f"{THIN_MARK} An interval over fewer than {MIN_REPEATS} repeats (n = {{n}} "
    "here): n repeats give only C(2n - 1, n) distinct bootstrap resamples (35 at "
    "n = 4), too few to put 2.5% in each tail, so its bounds are the extreme "
    "resamples rather than a 95% interval. Read it as the range seen; no "
    'difference it shows is called significant ("too few" in a table).'
)


class KeyedFrame(pd.DataFrame):
    """A display table that prints the key of its marks under it.

    A :class:`pandas.DataFrame` whose ``to_string`` (and so ``print``) ends with
    its ``notes`` when the printed cells show :data:`THIN_MARK`: a mark is never
    printed without its key. Slices and copies keep the notes.

    Examples
    --------
    >>> from skggm_bench.benchmark.present import KeyedFrame
    >>> table = KeyedFrame({"mean rank": ["1.00 (1.00–1.00)†"]})
    >>> table.notes = ["† thin"]
    >>> print(table.to_string(index=False))
            mean rank
    1.00 (1.00–1.00)†
    <BLANKLINE>
    † thin
    """

    _metadata = ["notes"]
    #: The key of the marks, one paragraph each.
    notes: list[str] = []

    @property
    def _constructor(self) -> type[KeyedFrame]:
        return KeyedFrame

    def to_string(self, buf: Any = None, *args: Any, **kwargs: Any) -> str | None:
        """The table as text, as :meth:`pandas.DataFrame.to_string`, then the
        key of :data:`THIN_MARK` when the text shows one.

        Parameters
        ----------
        buf : str, path or writable buffer, default=None
            Where to write; None returns the text.
        *args, **kwargs
            As :meth:`pandas.DataFrame.to_string`.

        Returns
        -------
        str or None
        """
        text = super().to_string(None, *args, **kwargs)
        if THIN_MARK in text and self.notes:
            # The key is wrapped to the table's width (80 at least).
            width = max(80, *(len(line) for line in text.splitlines()))
            text += "\n\n" + "\n".join(textwrap.fill(n, width) for n in self.notes)
        if buf is None:
            result: str | None = text
            return result
        if hasattr(buf, "write"):
            buf.write(text)
        else:
            Path(buf).write_text(text, encoding=kwargs.get("encoding") or "utf-8")
        return None


def _keyed(table: pd.DataFrame, repeats: pd.Series) -> KeyedFrame:
    """``table`` as a :class:`KeyedFrame` with the key of its thin intervals."""
    thin = sorted({int(n) for n in repeats if is_thin(n)})
    keyed = KeyedFrame(table)
    keyed.attrs.update(table.attrs)
    keyed.notes = [THIN_NOTE.format(n=", ".join(map(str, thin)))] if thin else []
    return keyed


def is_thin(n_repeats: object) -> bool:
    """Whether an interval over ``n_repeats`` repeats gets :data:`THIN_MARK`."""
    # A count or NaN (an object to mypy): int() only sees it once NaN is ruled out.
    return not pd.isna(n_repeats) and int(n_repeats) < MIN_REPEATS  # type: ignore[call-overload]


def thin_rows(table: pd.DataFrame) -> np.ndarray:
    """Per row of ``table``, whether its ``n_repeats`` make its interval thin
    (all False without that column)."""
    if "n_repeats" not in table:
        return np.zeros(len(table), dtype=bool)
    result: np.ndarray = table["n_repeats"].map(is_thin).to_numpy(bool)
    return result


def format_interval(
    value: float,
    low: float = np.nan,
    high: float = np.nan,
    *,
    decimals: int = 2,
    signed: bool = False,
    missing: str = "no data",
    thin: bool = False,
) -> str:
    """A value with its interval in compact display form: ``+1.42 (1.08–1.83)``.

    Parameters
    ----------
    value : float
        The point estimate; NaN or None gives ``missing``.
    low, high : float, default=NaN
        The interval; when either is NaN (e.g. a single repeat) only the value is
        shown.
    decimals : int, default=2
        Digits after the decimal point.
    signed : bool, default=False
        Show the sign of the value even when positive (for changes such as a rank
        gain).
    missing : str, default="no data"
        Text for a missing value.
    thin : bool, default=False
        The interval comes from too few repeats to resolve it (fewer than
        ``MIN_REPEATS``): it is followed by :data:`THIN_MARK`.

    Returns
    -------
    str
        ``"value (low–high)"`` with an en dash, or ``"value (low to high)"`` when a
        bound is negative (a dash between negative numbers would read as a minus).

    Examples
    --------
    >>> from skggm_bench.benchmark.present import format_interval
    >>> format_interval(1.4213, 1.0812, 1.8334, signed=True)
    '+1.42 (1.08–1.83)'
    >>> format_interval(-1.0, -1.5, -0.5, signed=True)
    '-1.00 (-1.50 to -0.50)'
    >>> format_interval(0.5)
    '0.50'
    >>> format_interval(float("nan"), 0.1, 0.9)
    'no data'
    >>> format_interval(0.5, 0.4, 0.6, thin=True)
    '0.50 (0.40–0.60)†'
    """
    if value is None or pd.isna(value):
        return missing

    def number(x: float, sign: bool) -> str:
        x = float(x)
        if round(x, decimals) == 0:
            x = 0.0  # no "-0.00"
        return f"{x:+.{decimals}f}" if sign else f"{x:.{decimals}f}"

    text = number(value, signed)
    if low is None or high is None or pd.isna(low) or pd.isna(high):
        return text
    low_text, high_text = number(low, False), number(high, False)
    negative = low_text.startswith("-") or high_text.startswith("-")
    separator = " to " if negative else "\u2013"
    mark = THIN_MARK if thin else ""
    return f"{text} ({low_text}{separator}{high_text}){mark}"


def _yes_no(flag: object) -> str:
    return "yes" if bool(flag) else "no"


def _or_dash(value: object, template: str = "{}") -> str:
    return "\u2013" if pd.isna(value) else template.format(value)


def format_leaderboard(board: pd.DataFrame, decimals: int = 2) -> pd.DataFrame:
    """A display version of :func:`leaderboard` output, with intervals as text.

    Parameters
    ----------
    board : pandas.DataFrame
        The output of :func:`leaderboard`.
    decimals : int, default=2
        Digits after the decimal point.

    Returns
    -------
    table : KeyedFrame
        A data frame that prints the key of :data:`THIN_MARK` under it. The
        grouping columns, ``learner``, ``position`` (``"no data"`` for a
        learner without a value in the group, followed by the reason when its
        fits succeeded, e.g. ``"no data: no loss: covariance_ and precision_
        disagree"``), ``mean rank (95% CI)`` and
        ``<metric> (95% CI)`` in the form of :func:`format_interval`, ``failed``
        (failed, timed out or missing fits of all the learner's fits in the
        group, e.g. ``"1/8"``) and ``tied with`` (the learners whose rank
        interval overlaps this one's; such learners are not told apart).
        Intervals over fewer than ``MIN_REPEATS`` (5) repeats are followed by
        :data:`THIN_MARK`.

    Examples
    --------
    >>> import pandas as pd
    >>> from skggm_bench.benchmark.analysis.leaderboard import leaderboard
    >>> from skggm_bench.benchmark.present import format_leaderboard
    >>> frame = pd.DataFrame({
    ...     "generator": "G", "n_features": 10, "density": 0.1, "n_samples": 50,
    ...     "repeat": [0, 0, 1, 1], "learner": ["a", "b"] * 2,
    ...     "f1": [0.2, 0.6, 0.3, 0.7], "status": "ok"})
    >>> format_leaderboard(leaderboard(frame, "f1")).iloc[0, 2:].tolist()
    ['b', '1', '1.00 (1.00–1.00)†', '0.65 (0.60–0.70)†', '0/2', '']
    """
    metric = board.attrs.get("metric", "metric")
    confidence = board.attrs.get("confidence", 0.95)
    label = f"({100 * confidence:g}% CI)"
    group_columns = list(board.attrs.get("by", ("generator",)))
    table = board[[*group_columns, "learner"]].copy()
    reasons = (
        board["no_value_reason"]
        if "no_value_reason" in board.columns
        else pd.Series("", index=board.index)
    )
    table["position"] = [
        str(int(position))
        if not pd.isna(position)
        else "no data"
        if reason in ("", "no successful fit")
        else f"no data: {reason}"
        for position, reason in zip(board["position"], reasons, strict=True)
    ]
    thin = thin_rows(board)
    table[f"mean rank {label}"] = [
        format_interval(*values, decimals=decimals, thin=few)
        for *values, few in zip(
            board["mean_rank"],
            board["rank_low"],
            board["rank_high"],
            thin,
            strict=True,
        )
    ]
    table[f"{metric} {label}"] = [
        format_interval(*values, decimals=decimals, thin=few)
        for *values, few in zip(
            board["mean_metric"],
            board["metric_low"],
            board["metric_high"],
            thin,
            strict=True,
        )
    ]
    fits = board["n_ok"] + board["n_failed"] + board["n_missing"]
    table["failed"] = [
        f"{bad}/{total}"
        for bad, total in zip(board["n_failed"] + board["n_missing"], fits, strict=True)
    ]
    table["tied with"] = board["tied_with"]
    return _keyed(table, board.get("n_repeats", pd.Series(dtype=float)))


def format_rank_shift(shift: pd.DataFrame, decimals: int = 2) -> pd.DataFrame:
    """A compact display version of :func:`rank_shift` output.

    Each comparison is one cell reading from the reference to the compared
    generator (``"1 → 3"``), so that the table stays narrow whatever the
    generators' names; the caption should name the two.

    Parameters
    ----------
    shift : pandas.DataFrame
        The output of :func:`rank_shift`.
    decimals : int, default=2
        Digits after the decimal point.

    Returns
    -------
    table : KeyedFrame
        A data frame that prints the key of :data:`THIN_MARK` under it. The
        grouping columns, ``learner``, ``position`` (``"from → to"``, ``–``
        where a side has no position), ``places gained`` (signed, or
        ``"no data"``), ``mean-rank gain (95% CI)`` (as :func:`format_interval`,
        or ``"no data"``; followed by :data:`THIN_MARK` over fewer than
        ``MIN_REPEATS`` paired repeats), ``significant`` (``"yes"``/``"no"``;
        never ``"yes"`` without data; ``"too few"`` over fewer
        than ``MIN_REPEATS`` paired repeats), ``<metric>`` (mean metric,
        ``"from → to"``) and ``failed`` (failed fits, ``"from → to"``).
        ``table.attrs`` is ``shift.attrs``.

    Examples
    --------
    >>> import pandas as pd
    >>> from skggm_bench.benchmark.analysis.leaderboard import rank_shift
    >>> from skggm_bench.benchmark.present import format_rank_shift
    >>> rows = [
    ...     {"generator": g, "n_features": 10, "density": 0.1, "n_samples": 50,
    ...      "repeat": r, "learner": name, "f1": f1, "status": "ok"}
    ...     for r in range(4)
    ...     for g, scores in [("DD", {"a": 0.5, "b": 0.1}),
    ...                       ("TO", {"a": 0.3, "b": 0.8})]
    ...     for name, f1 in scores.items()]
    >>> table = format_rank_shift(rank_shift(pd.DataFrame(rows), "f1", "DD", "TO"))
    >>> table.iloc[0, 1:6].tolist()
    ['b', '2 → 1', '+1', '+1.00 (1.00–1.00)†', 'too few']
    >>> table.iloc[0, 6:].tolist()
    ['0.10 → 0.80', '0 → 0']
    """
    metric = shift.attrs.get("metric", "metric")
    confidence = shift.attrs.get("confidence", 0.95)
    group_columns = list(shift.attrs.get("by", ()))
    table = shift[[*group_columns, "learner"]].copy()
    table["position"] = [
        f"{_or_dash(a)} \u2192 {_or_dash(b)}"
        for a, b in zip(shift["position_from"], shift["position_to"], strict=True)
    ]
    table["places gained"] = [
        "no data" if pd.isna(gained) else "0" if gained == 0 else f"{int(gained):+d}"
        for gained in shift["places_gained"]
    ]
    repeats = (
        shift["n_repeats"] if "n_repeats" in shift else pd.Series(np.nan, shift.index)
    )
    table[f"mean-rank gain ({100 * confidence:g}% CI)"] = [
        format_interval(*values, decimals=decimals, signed=True, thin=is_thin(n))
        for *values, n in zip(
            shift["rank_gain"],
            shift["rank_gain_low"],
            shift["rank_gain_high"],
            repeats,
            strict=True,
        )
    ]
    table["significant"] = [
        "too few" if is_thin(n) and compared == "compared" else _yes_no(flag)
        for flag, n, compared in zip(
            shift["significant"], repeats, shift["comparison"], strict=True
        )
    ]
    number = f"{{:.{decimals}f}}"
    table[metric] = [
        f"{_or_dash(a, number)} \u2192 {_or_dash(b, number)}"
        for a, b in zip(shift["mean_metric_from"], shift["mean_metric_to"], strict=True)
    ]
    table["failed"] = [
        f"{_or_dash(a, '{:.0f}')} \u2192 {_or_dash(b, '{:.0f}')}"
        for a, b in zip(shift["n_failed_from"], shift["n_failed_to"], strict=True)
    ]
    table.attrs.update(shift.attrs)
    return _keyed(table, repeats)
