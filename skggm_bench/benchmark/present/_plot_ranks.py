"""Figures of rankings: leaderboards, rank shifts and critical differences.

:func:`plot_leaderboard`, :func:`plot_rank_shift` and
:func:`plot_critical_difference` of :mod:`~skggm_bench.benchmark.present.plotting`
(which describes every figure and re-exports them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..analysis._ranking import MIN_REPEATS
from ._formatting import THIN_MARK, thin_rows
from ._plot_common import (
    GREY,
    learner_colours,
    literal_text,
    matplotlib_figure,
    metric_label,
    panel_title,
    split_panels,
)

if TYPE_CHECKING:  # matplotlib is optional: imported for annotations only
    from matplotlib.figure import Figure

__all__ = ["plot_critical_difference", "plot_leaderboard", "plot_rank_shift"]

# What a bar or a line over fewer than MIN_REPEATS repeats is, in a figure's words.
_THIN_LEGEND = (
    f"{THIN_MARK} fewer than {MIN_REPEATS} repeats: the bar is the range of the "
    "resampled means, not a 95% CI"
)


def plot_leaderboard(board: pd.DataFrame, *, n_cols: int | None = None) -> Figure:
    """Mean ranks with bootstrap intervals, one panel per leaderboard group.

    Parameters
    ----------
    board : pandas.DataFrame
        The output of :func:`skggm_bench.benchmark.analysis.leaderboard.leaderboard`.
    n_cols : int or None, default=None
        Panels per row (default: the number of generators).

    Returns
    -------
    matplotlib.figure.Figure
        In each panel the learners are listed by name, best first (top), with a
        dot at the mean rank and a bar over its 95% interval; the figure's title
        says that learners whose bars overlap are not told apart (tied). A learner
        whose interval comes from fewer than ``MIN_REPEATS`` repeats is named with
        a dagger, and the title says that its bar is the range of the resampled
        means, not a 95% interval. A learner without a successful fit in the
        group has no dot: its row reads "no data".

    Examples
    --------
    >>> import pandas as pd
    >>> from skggm_bench.benchmark.analysis.leaderboard import leaderboard
    >>> from skggm_bench.benchmark.present.plotting import plot_leaderboard
    >>> frame = pd.DataFrame({
    ...     "generator": "G", "n_features": 10, "density": 0.1, "n_samples": 50,
    ...     "repeat": [0, 0, 1, 1], "learner": ["a", "b"] * 2,
    ...     "f1": [0.2, 0.6, 0.3, 0.7], "status": "ok"})
    >>> fig = plot_leaderboard(leaderboard(frame, "f1"))
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
    ['b †', 'a †']
    """
    figure_class = matplotlib_figure()
    required = ["learner", "mean_rank", "rank_low", "rank_high"]
    missing = [c for c in required if c not in board.columns]
    if missing:
        raise ValueError(f"board lacks the leaderboard columns {missing}")
    columns = [c for c in board.attrs.get("by", ()) if c in board.columns]
    panels = split_panels(board, columns)
    n_generators = board["generator"].nunique() if "generator" in board else 1
    n_cols = n_cols or min(len(panels), max(n_generators, 1))
    n_rows = -(-len(panels) // n_cols)
    k = board["learner"].nunique()
    fig = figure_class(
        figsize=(4 * n_cols, (0.35 * k + 1.4) * n_rows), layout="constrained"
    )
    axes = fig.subplots(n_rows, n_cols, squeeze=False).ravel()
    colours = learner_colours(board["learner"].unique())
    for ax, (key, part) in zip(axes, panels, strict=False):
        part = part.sort_values("mean_rank", kind="stable", na_position="last")
        y = np.arange(len(part))[::-1]
        ranked = part["mean_rank"].notna().to_numpy()
        for yi in y[~ranked]:
            ax.text(
                (k + 1) / 2,
                yi,
                "no data (no successful fit)",
                ha="center",
                va="center",
                fontsize=8,
                color=GREY,
                style="italic",
            )
        if ranked.any():
            # A panel's dots, bars and caps are three artists, not an errorbar of
            # three artists per learner: a report holds dozens of such panels.
            mean = part["mean_rank"].to_numpy(float)[ranked]
            low = mean - (mean - part["rank_low"].to_numpy(float)[ranked]).clip(0)
            high = mean + (part["rank_high"].to_numpy(float)[ranked] - mean).clip(0)
            # No interval (one repeat): a zero-length bar at the dot.
            low = np.where(np.isnan(low), mean, low)
            high = np.where(np.isnan(high), mean, high)
            at = y[ranked]
            shades = [colours[name] for name in part["learner"][ranked]]
            ax.hlines(at, low, high, colors=shades, linewidth=1.5)
            ax.scatter(np.r_[low, high], np.r_[at, at], marker="|", s=40,
                       c=shades + shades, linewidths=1.5)  # fmt: skip
            ax.scatter(mean, at, marker="o", s=36, c=shades, zorder=3)
        # A learner without a rank here has no interval to qualify.
        thin = thin_rows(part) & part["mean_rank"].notna().to_numpy()
        names = [
            f"{name} {THIN_MARK}" if marked else name
            for name, marked in zip(part["learner"], thin, strict=True)
        ]
        ax.set_yticks(y, names)
        ax.set_xlim(0.5, k + 0.5)
        ax.set_ylim(-0.6, len(part) - 0.4)
        ax.set_xlabel("mean rank (1 = best)")
        ax.set_title(panel_title(columns, key), fontsize=10)
        ax.grid(True, axis="x", alpha=0.3)
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    metric = board.attrs.get("metric", "metric")
    ranked = board[board["mean_rank"].notna()]
    thin = f"\n{_THIN_LEGEND}" if thin_rows(ranked).any() else ""
    fig.suptitle(
        f"Leaderboard by {metric_label(metric)}: mean rank (dot) and 95% bootstrap CI "
        f"(bar){thin}\nlearners whose bars overlap are not told apart (tied)",
        fontsize=10,
    )
    return literal_text(fig)


def _spread(values: np.ndarray, gap: float) -> np.ndarray:
    """Label positions near ``values`` at least ``gap`` apart (keeps the order)."""
    if values.size == 0:
        return values.astype(float)
    order = np.argsort(values, kind="stable")
    placed = values[order].astype(float)
    for i in range(1, len(placed)):
        placed[i] = max(placed[i], placed[i - 1] + gap)
    # Centre the pushed block on the original values so labels stay near points.
    placed -= (placed - values[order]).mean()
    result = np.empty_like(placed)
    result[order] = placed
    return result


def _wrap(name: str, width: int = 14) -> str:
    """Break a long CamelCase generator name at a capital, for tick labels."""
    if len(name) <= width:
        return name
    capitals = [i for i, c in enumerate(name) if c.isupper() and i > 0]
    if not capitals:
        return name
    cut = min(capitals, key=lambda i: abs(i - len(name) / 2))
    return f"{name[:cut]}\n{name[cut:]}"


def _no_data_note(names: Sequence[str], where: str) -> str:
    return f"no data under {where}: {', '.join(names)}" if len(names) else ""


def plot_rank_shift(shift: pd.DataFrame) -> Figure:
    """Each learner's position under two generators, one panel per group.

    Parameters
    ----------
    shift : pandas.DataFrame
        The output of :func:`skggm_bench.benchmark.analysis.leaderboard.rank_shift`.

    Returns
    -------
    matplotlib.figure.Figure
        A bump chart per group: a line per learner from its mean rank under
        ``from_generator`` (left) to its mean rank under ``to_generator``
        (right), rank 1 on top, labelled with the learner's name at both ends;
        solid lines are shifts whose bootstrap interval excludes 0, dashed lines
        the others, dotted lines shifts over fewer than ``MIN_REPEATS`` repeats,
        which are too few to tell (the figure legend says so). A learner with no
        successful fit under one generator (``comparison == "no data"``) gets no
        line: only a hollow marker on the side where it has a rank, and the panel
        names it below the chart.

    Examples
    --------
    >>> import pandas as pd
    >>> from skggm_bench.benchmark.analysis.leaderboard import rank_shift
    >>> from skggm_bench.benchmark.present.plotting import plot_rank_shift
    >>> rows = [
    ...     {"generator": g, "n_features": 10, "density": 0.1, "n_samples": 50,
    ...      "repeat": r, "learner": name, "f1": f1, "status": "ok"}
    ...     for r in range(4)
    ...     for g, scores in [("DD", {"a": 0.5, "b": 0.1}),
    ...                       ("TO", {"a": 0.3, "b": 0.8})]
    ...     for name, f1 in scores.items()]
    >>> fig = plot_rank_shift(rank_shift(pd.DataFrame(rows), "f1", "DD", "TO"))
    >>> [(line.get_label(), line.get_linestyle()) for line in fig.axes[0].get_lines()]
    [('b', ':'), ('a', ':')]
    """
    figure_class = matplotlib_figure()
    from matplotlib.lines import Line2D

    required = ["learner", "mean_rank_from", "mean_rank_to", "significant"]
    missing = [c for c in required if c not in shift.columns]
    if missing:
        raise ValueError(f"shift lacks the rank-shift columns {missing}")
    columns = [c for c in shift.attrs.get("by", ()) if c in shift.columns]
    source = shift.attrs.get("from_generator", "from")
    target = shift.attrs.get("to_generator", "to")
    panels = split_panels(shift, columns)
    k = shift["learner"].nunique()
    fig = figure_class(
        figsize=(3.6 * len(panels), 0.45 * k + 2.4), layout="constrained"
    )
    axes = fig.subplots(1, len(panels), squeeze=False).ravel()
    colours = learner_colours(shift["learner"].unique())
    any_lone = False
    lines = shift[shift["comparison"] == "compared"] if "comparison" in shift else shift
    any_thin = bool(thin_rows(lines).any())
    for ax, (key, part) in zip(axes, panels, strict=True):
        # Mean ranks (not positions) on the y axis: they rarely coincide, and the
        # distance between two learners shows how clear their order is.
        y_from = part["mean_rank_from"].to_numpy(float)
        y_to = part["mean_rank_to"].to_numpy(float)
        if "comparison" in part:
            compared = (part["comparison"] == "compared").to_numpy()
        else:
            compared = ~(np.isnan(y_from) | np.isnan(y_to))
        label_from = np.full(len(part), np.nan)
        label_to = np.full(len(part), np.nan)
        has_from, has_to = ~np.isnan(y_from), ~np.isnan(y_to)
        label_from[has_from] = _spread(y_from[has_from], gap=0.22 * k / 6)
        label_to[has_to] = _spread(y_to[has_to], gap=0.22 * k / 6)
        thin = thin_rows(part)
        for i, row in enumerate(part.itertuples(index=False)):
            colour = colours[row.learner]
            if compared[i]:
                ax.plot(
                    [0, 1],
                    [y_from[i], y_to[i]],
                    ":" if thin[i] else ("-" if row.significant else "--"),
                    marker="o",
                    color=colour,
                    label=row.learner,
                )
            for side, y, label, has in (
                (0, y_from, label_from, has_from),
                (1, y_to, label_to, has_to),
            ):
                if not has[i]:
                    continue
                if not compared[i]:
                    # A rank on this side only: a hollow marker, never a line.
                    any_lone = True
                    ax.scatter(
                        [side], [y[i]], facecolors="none", edgecolors=[colour], s=30
                    )
                ax.text(
                    -0.06 if side == 0 else 1.06,
                    label[i],
                    row.learner,
                    ha="right" if side == 0 else "left",
                    va="center",
                    fontsize=8,
                )
        learners = part["learner"].to_numpy()
        notes = [
            _no_data_note(learners[~has_from], source),
            _no_data_note(learners[~has_to], target),
        ]
        note = "\n".join(_wrap_text(n) for n in notes if n)
        if note:
            ax.text(
                0.5,
                -0.16,
                note,
                transform=ax.transAxes,
                ha="center",
                va="top",
                fontsize=7,
                color=GREY,
                style="italic",
            )
        ax.set_xticks([0, 1], [_wrap(source), _wrap(target)], fontsize=8)
        ax.set_xlim(-0.7, 1.7)
        ax.set_ylim(k + 0.5, 0.5)
        ax.set_yticks(range(1, k + 1))
        ax.set_ylabel("mean rank (1 = best)")
        ax.set_title(panel_title(columns, key), fontsize=10)
    handles = [
        Line2D([], [], color="0.2", ls="-", marker="o", label="change beyond 95% CI"),
        Line2D([], [], color="0.2", ls="--", marker="o", label="change within 95% CI"),
    ]
    if any_thin:
        handles.append(
            Line2D(
                [],
                [],
                color="0.2",
                ls=":",
                marker="o",
                label=f"fewer than {MIN_REPEATS} repeats: too few to tell",
            )
        )
    if any_lone:
        handles.append(
            Line2D(
                [],
                [],
                ls="none",
                marker="o",
                markerfacecolor="none",
                markeredgecolor="0.2",
                label="rank on one side only (no data on the other)",
            )
        )
    fig.legend(
        handles=handles,
        loc="outside lower center",
        ncols=len(handles),
        fontsize=8,
    )
    metric = shift.attrs.get("metric", "metric")
    fig.suptitle(
        f"Rank shift by {metric_label(metric)}: mean rank under each generator"
    )
    return literal_text(fig)


def _wrap_text(text: str, width: int = 40) -> str:
    """Break a note into lines of about ``width`` characters, at spaces."""
    import textwrap

    return "\n".join(textwrap.wrap(text, width))


def _cliques(ranks: np.ndarray, cd: float) -> list[tuple[int, int]]:
    """Maximal runs ``(i, j)`` of sorted ``ranks`` spanning less than ``cd``.

    These are the groups of learners no two of which differ significantly
    (Nemenyi): the bars of a critical-difference diagram.
    """
    runs: list[tuple[int, int]] = []
    for i in range(len(ranks)):
        j = int(np.searchsorted(ranks, ranks[i] + cd, side="left")) - 1
        # Keep a run only if it has two learners and is not inside the previous one.
        if j > i and (not runs or j > runs[-1][1]):
            runs.append((i, j))
    return runs


def plot_critical_difference(cd: pd.DataFrame, *, n_cols: int | None = None) -> Figure:
    """Critical-difference diagrams (Demšar 2006), one panel per group.

    Parameters
    ----------
    cd : pandas.DataFrame
        The output of
        :func:`skggm_bench.benchmark.analysis.leaderboard.critical_difference`.
    n_cols : int or None, default=None
        Panels per row (default: the number of generators).

    Returns
    -------
    matplotlib.figure.Figure
        In each panel an axis of mean ranks (1 = best, on the left) and every
        learner labelled directly with its name and mean rank, the better half
        on the left, the other half on the right. Thick black bars join learners
        whose mean ranks differ by less than the Nemenyi critical difference:
        no pair within a bar differs significantly. The critical difference is
        drawn above the axis as a bar of its length, marked ``CD = <value>``.
        Panel titles give the Friedman p-value and the number of blocks;
        learners without data are listed below the axis.

    Examples
    --------
    >>> import pandas as pd
    >>> from skggm_bench.benchmark.analysis.leaderboard import critical_difference
    >>> from skggm_bench.benchmark.present.plotting import plot_critical_difference
    >>> frame = pd.DataFrame({
    ...     "generator": "G", "n_features": 10, "density": 0.1, "n_samples": 50,
    ...     "repeat": [r for r in range(4) for _ in "abc"],
    ...     "learner": list("abc") * 4,
    ...     "f1": [0.9, 0.5, 0.1, 0.9, 0.5, 0.1, 0.9, 0.1, 0.5, 0.9, 0.5, 0.1],
    ...     "status": "ok"})
    >>> fig = plot_critical_difference(critical_difference(frame, "f1"))
    >>> sorted(t.get_text() for t in fig.axes[0].texts if "CD" in t.get_text())
    ['CD = 1.66']
    >>> len([line for line in fig.axes[0].get_lines() if line.get_gid() == "clique"])
    2
    """
    figure_class = matplotlib_figure()
    required = ["learner", "mean_rank", "critical_difference", "p_value", "n_blocks"]
    missing = [c for c in required if c not in cd.columns]
    if missing:
        raise ValueError(f"cd lacks the critical-difference columns {missing}")
    columns = [c for c in cd.attrs.get("by", ()) if c in cd.columns]
    panels = split_panels(cd, columns)
    n_generators = cd["generator"].nunique() if "generator" in cd else 1
    n_cols = n_cols or min(len(panels), max(n_generators, 1))
    n_rows = -(-len(panels) // n_cols)
    k_max = max(int(part["mean_rank"].notna().sum()) for _, part in panels)
    height = 0.22 * max(k_max, 2) + 1.6
    fig = figure_class(figsize=(6 * n_cols, height * n_rows), layout="constrained")
    axes = fig.subplots(n_rows, n_cols, squeeze=False).ravel()
    colours = learner_colours(cd["learner"].unique())
    for ax, (key, part) in zip(axes, panels, strict=False):
        _draw_cd_panel(ax, part, colours)
        ax.set_title(_cd_title(columns, key, part), fontsize=9)
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    metric = cd.attrs.get("metric", "metric")
    alpha = cd.attrs.get("alpha", 0.05)
    fig.suptitle(
        f"Critical differences by {metric_label(metric)} (Friedman test, Nemenyi "
        f"post-hoc at level {alpha:g})\nlearners joined by a black bar do not differ "
        "significantly",
        fontsize=10,
    )
    return literal_text(fig)


def _cd_title(columns: Sequence[str], key: tuple[Any, ...], part: pd.DataFrame) -> str:
    title = panel_title(columns, key)
    first = part.iloc[0]
    if pd.isna(first["p_value"]):
        return f"{title}: fewer than two learners with data, no test"
    verdict = "" if first.get("different", True) else ", no significant difference"
    return (
        f"{title}: Friedman p = {first['p_value']:.2g}{verdict}, "
        f"N = {int(first['n_blocks'])} blocks"
    )


def _draw_cd_panel(ax: Any, part: pd.DataFrame, colours: dict[str, Any]) -> None:
    """One critical-difference diagram in ``ax``, drawn in rank units."""
    ax.set_axis_off()
    ranked = part[part["mean_rank"].notna()].sort_values("mean_rank", kind="stable")
    without = part.loc[part["mean_rank"].isna(), "learner"].tolist()
    k = len(ranked)
    if without:
        ax.text(
            0.5,
            0.0,
            _wrap_text(f"no data: {', '.join(without)}", 80),
            transform=ax.transAxes,
            ha="center",
            va="bottom",
            fontsize=7,
            color=GREY,
            style="italic",
        )
    if k < 2:
        ax.text(
            0.5,
            0.6,
            "fewer than two learners with data",
            transform=ax.transAxes,
            ha="center",
            fontsize=8,
            color=GREY,
        )
        return
    ranks = ranked["mean_rank"].to_numpy(float)
    names = ranked["learner"].tolist()
    cd = float(ranked["critical_difference"].iloc[0])
    # The rank axis spans the middle of the panel; labels hang off both ends.
    margin = 0.9 * (k - 1)
    ax.set_xlim(1 - margin, k + margin)
    n_left = -(-k // 2)
    n_label_rows = max(n_left, k - n_left)
    ax.set_ylim(-(n_label_rows + 0.9) * 0.35 - 0.25, 0.9)
    ax.plot([1, k], [0, 0], color="0.1", lw=1)
    for tick in range(1, k + 1):
        ax.plot([tick, tick], [0, 0.06], color="0.1", lw=1)
        ax.text(tick, 0.1, str(tick), ha="center", va="bottom", fontsize=8)
    ax.text((1 + k) / 2, 0.32, "mean rank (1 = best)", ha="center", fontsize=8)
    if np.isfinite(cd):
        ax.plot([1, 1 + cd], [0.65, 0.65], color=GREY, lw=2, gid="cd")
        for end in (1, 1 + cd):
            ax.plot([end, end], [0.6, 0.7], color=GREY, lw=1)
        ax.text(1 + cd / 2, 0.74, f"CD = {cd:.2f}", ha="center", fontsize=8, color=GREY)
    left_x, right_x = 1 - 0.15 * margin, k + 0.15 * margin
    for i, (rank, name) in enumerate(zip(ranks, names, strict=True)):
        left = i < n_left
        row = i if left else k - 1 - i
        y = -(row + 1) * 0.35 - 0.2
        end = left_x if left else right_x
        colour = colours[name]
        ax.plot([rank, rank, end], [0, y, y], color=colour, lw=1)
        ax.plot([rank], [0], "o", color=colour, ms=4)
        ax.text(
            end - 0.05 if left else end + 0.05,
            y,
            f"{name} ({rank:.2f})",
            ha="right" if left else "left",
            va="center",
            fontsize=8,
        )
    if np.isfinite(cd):
        for level, (i, j) in enumerate(_cliques(ranks, cd)):
            y = -0.1 - 0.07 * level
            ax.plot(
                [ranks[i] - 0.03, ranks[j] + 0.03],
                [y, y],
                color="black",
                lw=3,
                solid_capstyle="butt",
                gid="clique",
            )
