"""Figures of benchmark results: recovery curves, leaderboards and rank shifts.

matplotlib is an optional dependency (``pip install 'skggm-bench[plot]'``); it is
imported when a function here is called, never at import time. Figures are built
as :class:`matplotlib.figure.Figure` objects without :mod:`matplotlib.pyplot`, so
they do not pile up in pyplot's global registry (a report draws many) and work with
any backend; save them with ``fig.savefig(path)`` or show them in a notebook.

* :func:`plot_results` / :func:`plot_curves`: a metric (by default TPR and PPV)
  against the sample size, one line per learner, one column per generator, one
  figure per density -- the layout of figures 7 and 8 of Córdoba et al.
* :func:`plot_leaderboard`: mean ranks with their bootstrap intervals.
* :func:`plot_rank_shift`: each learner's position under two generators (a bump
  chart), the picture of the paper's main point.
* :func:`plot_critical_difference`: the critical-difference diagram of Demšar
  (2006): mean ranks on one axis, bars joining learners that do not differ
  significantly.
* :func:`plot_difficulty`: a metric against how hard each true graph is (its
  weakest edge, a cell column of the results), one panel per generator.

Each learner has the same colour in every panel and figure (colours follow the
sorted learner names), and every figure names its learners directly or in a
legend. A point where some fits failed or timed out is drawn with a hollow marker:
its mean is over the fits that finished, which may flatter the learner. A learner
with no successful fit in a panel gets no point there: the panel says "no data".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import scipy.stats

from ...metrics import METRICS
from ..analysis._ranking import MIN_REPEATS
from ._formatting import THIN_MARK, thin_rows

if TYPE_CHECKING:  # matplotlib is optional: imported for annotations only
    from matplotlib.figure import Figure

__all__ = [
    "plot_critical_difference",
    "plot_curves",
    "plot_difficulty",
    "plot_leaderboard",
    "plot_rank_shift",
    "plot_results",
]

_REQUIRED = ("generator", "learner", "density", "n_features", "n_samples", "status")
# Colour of text and marks that belong to no learner ("no data", the CD bar).
_GREY = "0.45"
# What a bar or a line over fewer than MIN_REPEATS repeats is, in a figure's words.
_THIN_LEGEND = (
    f"{THIN_MARK} fewer than {MIN_REPEATS} repeats: the bar is the range of the "
    "resampled means, not a 95% CI"
)


def _figure_class() -> type:
    """matplotlib's Figure, or an ImportError that says how to get it."""
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ImportError(
            "skggm_bench.benchmark.present.plotting needs matplotlib, an optional "
            "dependency; "
            "install it with: pip install 'skggm-bench[plot]'  "
            "(or: pip install matplotlib)"
        ) from exc
    return Figure


def _literal_text(fig: Figure) -> Figure:
    """``fig`` with every text shown as it is, never read as mathtext.

    Names are data: a learner named ``$\\foo$`` is shown so, instead of making
    matplotlib fail to parse it when the figure is drawn. (No label here uses
    mathtext.) The tick labels exist already (fixed ticks), so they are covered.
    """
    from matplotlib.text import Text

    for text in fig.findobj(Text):
        text.set_parse_math(False)
    return fig


def _label(metric: str) -> str:
    """The registry's label of a metric (its name for any other column)."""
    return METRICS[metric].label if metric in METRICS else metric


def _colours(learners: Sequence[str]) -> dict[str, Any]:
    """One fixed colour per learner (tab10, then tab20 for many learners)."""
    from matplotlib import colormaps

    names = sorted(learners)
    cmap = colormaps["tab10" if len(names) <= 10 else "tab20"]
    return {name: cmap(i % cmap.N) for i, name in enumerate(names)}


def _check_results(frame: Any, metrics: Sequence[str]) -> pd.DataFrame:
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(
            f"frame must be a pandas DataFrame of results, got {type(frame).__name__}"
        )
    missing = [c for c in (*_REQUIRED, *metrics) if c not in frame.columns]
    if missing:
        raise ValueError(f"frame lacks the columns {missing}")
    if frame.empty:
        raise ValueError("frame has no rows: there is nothing to plot")
    return frame


def _as_metrics(metrics: str | Sequence[str]) -> list[str]:
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    if not metrics:
        raise ValueError("metrics is empty: give at least one metric to plot")
    return metrics


def _select_n_features(frame: pd.DataFrame, n_features: int | None) -> pd.DataFrame:
    values = sorted(int(p) for p in frame["n_features"].unique())
    if n_features is None:
        if len(values) > 1:
            raise ValueError(
                f"the results have several n_features {values}; choose one with "
                "n_features="
            )
        return frame
    if n_features not in values:
        raise ValueError(f"n_features={n_features} is not in the results: {values}")
    return frame[frame["n_features"] == n_features]


def _density_mask(frame: pd.DataFrame, density: float | None) -> pd.Series:
    if density is None or (isinstance(density, float) and np.isnan(density)):
        return frame["density"].isna()
    return np.isclose(frame["density"].astype(float), density, rtol=0, atol=1e-12)


def _density_title(density: float | None) -> str:
    return "family default density" if density is None else f"density {density:g}"


def _curves(rows: pd.DataFrame, metric: str) -> dict[str, pd.DataFrame]:
    """Per learner, per sample size: mean over ok rows, 95% t-interval, failures.

    One grouped pass over the rows of a panel (a groupby per learner costs more
    than the numbers it computes, on a report of many panels).
    """
    ok = rows["status"] == "ok"
    values = rows[metric].where(ok)
    keys = [rows["learner"], rows["n_samples"]]
    grouped = values.groupby(keys)
    summary = pd.DataFrame(
        {
            "mean": grouped.mean(),
            "std": grouped.std(ddof=1),
            "count": grouped.count(),
            "failed": (~ok).groupby(keys).sum(),
        }
    )
    # Student t because repeats are few (often 4-20); no interval from one value.
    dof = (summary["count"] - 1).clip(lower=1)
    half = scipy.stats.t.ppf(0.975, dof) * summary["std"] / np.sqrt(summary["count"])
    summary["half_width"] = half.where(summary["count"] > 1)
    return {
        learner: curve.droplevel("learner").sort_index()
        for learner, curve in summary.groupby(level="learner", sort=False)
    }


def plot_curves(
    frame: pd.DataFrame,
    density: float | None,
    *,
    metrics: str | Sequence[str] = ("tpr", "ppv"),
    generators: Sequence[str] | None = None,
    learners: Sequence[str] | None = None,
    n_features: int | None = None,
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """Metrics against sample size at one density; a column of panels per generator.

    When the results hold several graph families or data models, each generator
    gets one column per (graph, data model) instead: curves are never averaged
    across them.

    Parameters
    ----------
    frame : pandas.DataFrame
        Benchmark results (the schema of ``BenchmarkResult.frame``).
    density : float or None
        The density to plot (None for rows without a density).
    metrics : str or sequence of str, default=("tpr", "ppv")
        One row of panels per metric.
    generators, learners : sequence of str or None, default=None
        Subsets and orders to show (default: all, in sorted order).
    n_features : int or None, default=None
        Required when the results have several numbers of variables.
    figsize : tuple of float or None, default=None
        Figure size in inches (default: 4 x 3 per panel).

    Returns
    -------
    matplotlib.figure.Figure
        Lines are means over the successful repeats, vertical bars their 95%
        Student-t interval; the learners' points are shifted slightly sideways
        around each sample size (the ticks) so that their bars do not overlap;
        hollow markers flag points where some fits failed. Each line's label is
        the learner's name, shown in the figure legend; panel titles name the
        generator (and the graph and data model when there are several).

    Raises
    ------
    ImportError
        If matplotlib is not installed.
    ValueError
        If a column is missing, the density or a generator is not in the results.

    Examples
    --------
    >>> import pandas as pd
    >>> from skggm_bench.benchmark.present.plotting import plot_curves
    >>> frame = pd.DataFrame({
    ...     "generator": "G", "learner": ["a", "a", "b", "b"], "density": 0.1,
    ...     "n_features": 10, "n_samples": [50, 100] * 2, "repeat": 0,
    ...     "tpr": [0.2, 0.4, 0.3, 0.6], "ppv": [0.9, 0.9, 0.8, 0.7],
    ...     "status": "ok"})
    >>> fig = plot_curves(frame, 0.1)
    >>> [(ax.get_title(), ax.get_ylabel()) for ax in fig.axes]
    [('G', 'TPR (power)'), ('', 'PPV (true discovery rate)')]
    >>> [line.get_label() for line in fig.axes[0].get_lines()]
    ['a', 'b']
    """
    figure_class = _figure_class()
    metrics = _as_metrics(metrics)
    frame = _select_n_features(_check_results(frame, metrics), n_features)
    frame = frame[_density_mask(frame, density)]
    if frame.empty:
        raise ValueError(f"no results at density={density}")
    generators = _subset(frame, "generator", generators)
    learners = _subset(frame, "learner", learners)
    colours = _colours(frame["learner"].unique())
    frame = frame[frame["generator"].isin(generators)]
    columns = ["generator"]
    columns += [
        c for c in ("graph", "data_model") if c in frame and frame[c].nunique() > 1
    ]
    # In the generators' chosen order; the stable sort keeps graphs sorted within.
    panels = sorted(_panels(frame, columns), key=lambda kv: generators.index(kv[0][0]))
    n_rows, n_cols = len(metrics), len(panels)
    fig = figure_class(
        figsize=figsize or (4 * n_cols, 3 * n_rows), layout="constrained"
    )
    axes = fig.subplots(n_rows, n_cols, squeeze=False, sharex=True, sharey="row")
    sizes = np.sort(frame["n_samples"].unique()).astype(float)
    offsets = _dodge(sizes, len(learners))
    any_failed = False
    for i, metric in enumerate(metrics):
        for j, (key, part) in enumerate(panels):
            ax = axes[i, j]
            curves = _curves(part, metric)
            for index, learner in enumerate(learners):
                if learner not in curves:
                    continue
                curve = curves[learner]
                failed = curve["failed"] > 0
                any_failed |= bool(failed.any())
                colour = colours[learner]
                # Each learner is shifted sideways by a fraction of the gap between
                # sample sizes, so that the intervals of close learners stay apart.
                x = curve.index.to_numpy(float) + offsets[index]
                ax.plot(x, curve["mean"], "-", color=colour, label=learner, lw=1.4)
                for hollow in (False, True):
                    points = failed.to_numpy() == hollow
                    ax.scatter(
                        x[points],
                        curve["mean"].to_numpy()[points],
                        edgecolors=[colour],
                        facecolors="none" if hollow else [colour],
                        zorder=3,
                        s=18,
                    )
                entry = METRICS.get(metric)
                low, high = (entry.low, entry.high) if entry else (-np.inf, np.inf)
                below = curve["mean"] - (curve["mean"] - curve["half_width"]).clip(
                    lower=low
                )
                above = (curve["mean"] + curve["half_width"]).clip(upper=high) - curve[
                    "mean"
                ]
                ax.errorbar(
                    x,
                    curve["mean"],
                    yerr=[below.fillna(0), above.fillna(0)],
                    fmt="none",
                    ecolor=colour,
                    elinewidth=1.0,
                    alpha=0.7,
                )
            if i == 0:
                ax.set_title(_panel_title(columns, key))
            if j == 0:
                ax.set_ylabel(_label(metric))
            if i == n_rows - 1:
                ax.set_xlabel("n_samples")
            ax.set_xticks(sizes, [f"{size:g}" for size in sizes])
            ax.grid(True, alpha=0.3)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    note = " (hollow: some fits failed)" if any_failed else ""
    fig.legend(
        handles,
        labels,
        loc="outside lower center",
        ncols=min(len(labels), 6),
        title=f"learner{note}",
        fontsize=8,
        title_fontsize=8,
    )
    p = frame["n_features"].iloc[0]
    fig.suptitle(
        f"p = {p}, {_density_title(density)}: mean over repeats (line) and its 95% "
        "Student-t CI (vertical bar)"
    )
    return _literal_text(fig)


def _dodge(sizes: np.ndarray, n_learners: int) -> np.ndarray:
    """Sideways offsets of the learners' points: 40% of the smallest size gap."""
    gaps = np.diff(sizes)
    gap = gaps.min() if gaps.size else max(sizes[0] * 0.2, 1.0)
    if n_learners < 2:
        return np.zeros(max(n_learners, 1))
    return np.linspace(-0.2 * gap, 0.2 * gap, n_learners)


def _subset(frame: pd.DataFrame, column: str, chosen: Sequence[str] | None) -> list:
    available = sorted(frame[column].unique())
    if chosen is None:
        return available
    chosen = [chosen] if isinstance(chosen, str) else list(chosen)
    unknown = [value for value in chosen if value not in available]
    if unknown:
        raise ValueError(
            f"{column} {unknown} not in the results; available: {available}"
        )
    return chosen


def plot_results(
    frame: pd.DataFrame,
    *,
    metrics: str | Sequence[str] = ("tpr", "ppv"),
    densities: Sequence[float | None] | None = None,
    generators: Sequence[str] | None = None,
    learners: Sequence[str] | None = None,
    n_features: int | None = None,
) -> dict[float | None, Figure]:
    """Recovery curves for every density: one :func:`plot_curves` figure each.

    Parameters
    ----------
    frame : pandas.DataFrame
        Benchmark results (the schema of ``BenchmarkResult.frame``).
    metrics : str or sequence of str, default=("tpr", "ppv")
        Metrics to plot against the sample size.
    densities : sequence of float or None, default=None
        Densities to plot (default: every density of the results).
    generators, learners : sequence of str or None, default=None
        Subsets to show (default: all).
    n_features : int or None, default=None
        Required when the results have several numbers of variables.

    Returns
    -------
    dict
        ``{density: matplotlib.figure.Figure}`` in increasing density (``None``
        for rows without a density).

    Examples
    --------
    >>> import pandas as pd
    >>> from skggm_bench.benchmark.present.plotting import plot_results
    >>> frame = pd.DataFrame({
    ...     "generator": "G", "learner": "a", "density": [0.1, 0.1, 0.3, 0.3],
    ...     "n_features": 10, "n_samples": [50, 100] * 2, "repeat": 0,
    ...     "tpr": [0.2, 0.4, 0.1, 0.2], "ppv": 0.9, "status": "ok"})
    >>> sorted(plot_results(frame))
    [0.1, 0.3]
    """
    metrics = _as_metrics(metrics)
    frame = _select_n_features(_check_results(frame, metrics), n_features)
    if densities is None:
        values = frame["density"].unique()
        densities = sorted(float(d) for d in values if not pd.isna(d))
        if frame["density"].isna().any():
            densities.append(None)
    return {
        density: plot_curves(
            frame,
            density,
            metrics=metrics,
            generators=generators,
            learners=learners,
        )
        for density in densities
    }


def _panels(table: pd.DataFrame, columns: Sequence[str]) -> list[tuple[tuple, Any]]:
    if not columns:
        return [((), table)]
    groups = table.groupby(list(columns), sort=True, dropna=False)
    return [(key if isinstance(key, tuple) else (key,), part) for key, part in groups]


def _panel_title(columns: Sequence[str], key: tuple) -> str:
    parts = []
    for column, value in zip(columns, key, strict=True):
        if column == "generator":
            parts.append(str(value))
        elif column == "density":
            parts.append(_density_title(None if pd.isna(value) else float(value)))
        else:
            parts.append(f"{column} {value}")
    return ", ".join(parts) or "all scenarios"


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
    figure_class = _figure_class()
    required = ["learner", "mean_rank", "rank_low", "rank_high"]
    missing = [c for c in required if c not in board.columns]
    if missing:
        raise ValueError(f"board lacks the leaderboard columns {missing}")
    columns = [c for c in board.attrs.get("by", ()) if c in board.columns]
    panels = _panels(board, columns)
    n_generators = board["generator"].nunique() if "generator" in board else 1
    n_cols = n_cols or min(len(panels), max(n_generators, 1))
    n_rows = -(-len(panels) // n_cols)
    k = board["learner"].nunique()
    fig = figure_class(
        figsize=(4 * n_cols, (0.35 * k + 1.4) * n_rows), layout="constrained"
    )
    axes = fig.subplots(n_rows, n_cols, squeeze=False).ravel()
    colours = _colours(board["learner"].unique())
    for ax, (key, part) in zip(axes, panels, strict=False):
        part = part.sort_values("mean_rank", kind="stable", na_position="last")
        y = np.arange(len(part))[::-1]
        low = (part["mean_rank"] - part["rank_low"]).fillna(0).clip(lower=0)
        high = (part["rank_high"] - part["mean_rank"]).fillna(0).clip(lower=0)
        for yi, (_, row), lo, hi in zip(y, part.iterrows(), low, high, strict=True):
            if pd.isna(row["mean_rank"]):
                ax.text(
                    (k + 1) / 2,
                    yi,
                    "no data (no successful fit)",
                    ha="center",
                    va="center",
                    fontsize=8,
                    color=_GREY,
                    style="italic",
                )
                continue
            ax.errorbar(
                row["mean_rank"],
                yi,
                xerr=[[lo], [hi]],
                fmt="o",
                color=colours[row["learner"]],
                capsize=3,
            )
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
        ax.set_title(_panel_title(columns, key), fontsize=10)
        ax.grid(True, axis="x", alpha=0.3)
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    metric = board.attrs.get("metric", "metric")
    ranked = board[board["mean_rank"].notna()]
    thin = f"\n{_THIN_LEGEND}" if thin_rows(ranked).any() else ""
    fig.suptitle(
        f"Leaderboard by {_label(metric)}: mean rank (dot) and 95% bootstrap CI "
        f"(bar){thin}\nlearners whose bars overlap are not told apart (tied)",
        fontsize=10,
    )
    return _literal_text(fig)


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
    figure_class = _figure_class()
    from matplotlib.lines import Line2D

    required = ["learner", "mean_rank_from", "mean_rank_to", "significant"]
    missing = [c for c in required if c not in shift.columns]
    if missing:
        raise ValueError(f"shift lacks the rank-shift columns {missing}")
    columns = [c for c in shift.attrs.get("by", ()) if c in shift.columns]
    source = shift.attrs.get("from_generator", "from")
    target = shift.attrs.get("to_generator", "to")
    panels = _panels(shift, columns)
    k = shift["learner"].nunique()
    fig = figure_class(
        figsize=(3.6 * len(panels), 0.45 * k + 2.4), layout="constrained"
    )
    axes = fig.subplots(1, len(panels), squeeze=False).ravel()
    colours = _colours(shift["learner"].unique())
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
                color=_GREY,
                style="italic",
            )
        ax.set_xticks([0, 1], [_wrap(source), _wrap(target)], fontsize=8)
        ax.set_xlim(-0.7, 1.7)
        ax.set_ylim(k + 0.5, 0.5)
        ax.set_yticks(range(1, k + 1))
        ax.set_ylabel("mean rank (1 = best)")
        ax.set_title(_panel_title(columns, key), fontsize=10)
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
    fig.suptitle(f"Rank shift by {_label(metric)}: mean rank under each generator")
    return _literal_text(fig)


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
    figure_class = _figure_class()
    required = ["learner", "mean_rank", "critical_difference", "p_value", "n_blocks"]
    missing = [c for c in required if c not in cd.columns]
    if missing:
        raise ValueError(f"cd lacks the critical-difference columns {missing}")
    columns = [c for c in cd.attrs.get("by", ()) if c in cd.columns]
    panels = _panels(cd, columns)
    n_generators = cd["generator"].nunique() if "generator" in cd else 1
    n_cols = n_cols or min(len(panels), max(n_generators, 1))
    n_rows = -(-len(panels) // n_cols)
    k_max = max(int(part["mean_rank"].notna().sum()) for _, part in panels)
    height = 0.22 * max(k_max, 2) + 1.6
    fig = figure_class(figsize=(6 * n_cols, height * n_rows), layout="constrained")
    axes = fig.subplots(n_rows, n_cols, squeeze=False).ravel()
    colours = _colours(cd["learner"].unique())
    for ax, (key, part) in zip(axes, panels, strict=False):
        _draw_cd_panel(ax, part, colours)
        ax.set_title(_cd_title(columns, key, part), fontsize=9)
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    metric = cd.attrs.get("metric", "metric")
    alpha = cd.attrs.get("alpha", 0.05)
    fig.suptitle(
        f"Critical differences by {_label(metric)} (Friedman test, Nemenyi post-hoc "
        f"at level {alpha:g})\nlearners joined by a black bar do not differ "
        "significantly",
        fontsize=10,
    )
    return _literal_text(fig)


def _cd_title(columns: Sequence[str], key: tuple, part: pd.DataFrame) -> str:
    title = _panel_title(columns, key)
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
            color=_GREY,
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
            color=_GREY,
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
        ax.plot([1, 1 + cd], [0.65, 0.65], color=_GREY, lw=2, gid="cd")
        for end in (1, 1 + cd):
            ax.plot([end, end], [0.6, 0.7], color=_GREY, lw=1)
        ax.text(
            1 + cd / 2, 0.74, f"CD = {cd:.2f}", ha="center", fontsize=8, color=_GREY
        )
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


# Axis labels of the cell columns that measure how hard a true graph is.
_DIFFICULTY_LABELS = {
    "min_edge_partial_correlation": "weakest edge: min |partial correlation|",
    "median_edge_partial_correlation": "median |partial correlation| on the edges",
    "max_non_edge_correlation": "max |correlation| between non-adjacent variables",
    "condition_number": "condition number",
}


def _per_graph(rows: pd.DataFrame, metric: str, difficulty: str) -> pd.DataFrame:
    """One value per (random graph, learner): the mean metric over sample sizes.

    A random graph is one cell: generator, graph, data model, n_features, density
    and repeat. Only successful fits with a finite value count.
    """
    values = rows[metric].astype(float)
    usable = (rows["status"] == "ok") & np.isfinite(values)
    usable &= rows[difficulty].notna()
    cell = [
        c
        for c in ("graph", "data_model", "n_features", "density", "repeat")
        if c in rows
    ]
    kept = rows.loc[usable, [*cell, "learner", difficulty]].assign(value=values)
    grouped = kept.groupby([*cell, "learner"], dropna=False)
    return grouped.agg(x=(difficulty, "first"), y=("value", "mean")).reset_index()


def _binned_means(points: pd.DataFrame, edges: np.ndarray) -> pd.DataFrame:
    """Median x and mean y of the points in each bin of x (empty bins dropped)."""
    bins = np.clip(np.searchsorted(edges, points["x"], side="right") - 1, 0, None)
    bins = np.minimum(bins, len(edges) - 2)
    return points.groupby(bins).agg(x=("x", "median"), y=("y", "mean"))


def _log_axis(ax: Any, span: float) -> None:
    """A logarithmic x axis labelled in plain numbers that never overlap.

    Matplotlib labels the minor ticks of a log axis spanning about one to two
    decades (``2x10^-2``, ``3x10^-2``, ...), and those labels run into each
    other in a panel a few inches wide. Here only major ticks carry labels:
    1, 2 and 5 per decade below two decades, one per decade above, written as
    plain numbers (``0.05``, ``0.1``).
    """
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.set_xscale("log")
    subs = (1.0, 2.0, 5.0) if span < 100 else (1.0,)
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=subs))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())


def plot_difficulty(
    frame: pd.DataFrame,
    metric: str = "f1",
    *,
    difficulty: str = "min_edge_partial_correlation",
    n_bins: int = 5,
) -> Figure:
    """Recovery against how hard the true graph is, one panel per generator.

    Parameters
    ----------
    frame : pandas.DataFrame
        Benchmark results with the cell columns of the result schema (the
        difficulty of each row's true graph).
    metric : str, default="f1"
        The metric on the y axis.
    difficulty : str, default="min_edge_partial_correlation"
        The cell column on the x axis: by default the weakest edge of the true
        graph (smallest absolute partial correlation over its edges), the edge a
        learner finds last.
    n_bins : int, default=5
        Number of bins (quantiles of the x values) of the trend lines.

    Returns
    -------
    matplotlib.figure.Figure
        One panel per generator (and graph and data model, when the results have
        several of them):
        a point per random graph and learner (the metric averaged over the
        sample sizes, successful fits only), and per learner a line through its
        mean in each bin of graphs; learners are named in the figure legend.
        The x axis is logarithmic when the values span more than a factor of
        20, with plain-number labels at 1, 2 and 5 per decade (one per decade
        beyond two decades) and none on the minor ticks. A panel without any
        successful fit says "no data".

    Raises
    ------
    ValueError
        If a column is missing or ``n_bins`` is below 1.

    Examples
    --------
    >>> import pandas as pd
    >>> from skggm_bench.benchmark.present.plotting import plot_difficulty
    >>> frame = pd.DataFrame({
    ...     "generator": "G", "learner": ["a", "b"] * 3, "density": 0.1,
    ...     "n_features": 10, "n_samples": 50, "repeat": [0, 0, 1, 1, 2, 2],
    ...     "min_edge_partial_correlation": [0.05, 0.05, 0.1, 0.1, 0.3, 0.3],
    ...     "f1": [0.2, 0.3, 0.4, 0.5, 0.8, 0.9], "status": "ok"})
    >>> fig = plot_difficulty(frame, "f1")
    >>> fig.axes[0].get_title(), fig.axes[0].get_ylabel()
    ('G', 'F1')
    >>> sorted(t.get_text() for t in fig.legends[0].get_texts())
    ['a', 'b']
    """
    figure_class = _figure_class()
    from matplotlib.lines import Line2D

    frame = _check_results(frame, [metric, difficulty])
    if isinstance(n_bins, bool) or not isinstance(n_bins, int) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer, got {n_bins!r}")
    columns = ["generator"]
    columns += [
        c for c in ("graph", "data_model") if c in frame and frame[c].nunique() > 1
    ]
    panels = _panels(frame, columns)
    n_cols = min(len(panels), 3)
    n_rows = -(-len(panels) // n_cols)
    fig = figure_class(figsize=(4.2 * n_cols, 3.4 * n_rows), layout="constrained")
    axes = fig.subplots(n_rows, n_cols, squeeze=False, sharey=True).ravel()
    learners = sorted(frame["learner"].unique())
    colours = _colours(learners)
    for ax, (key, rows) in zip(axes, panels, strict=False):
        points = _per_graph(rows, metric, difficulty)
        ax.set_title(_panel_title(columns, key), fontsize=10)
        ax.set_xlabel(_DIFFICULTY_LABELS.get(difficulty, difficulty))
        ax.grid(True, alpha=0.3)
        if points.empty:
            ax.text(
                0.5,
                0.5,
                "no data (no successful fit)",
                transform=ax.transAxes,
                ha="center",
                va="center",
                fontsize=8,
                color=_GREY,
                style="italic",
            )
            continue
        x = points["x"].to_numpy(float)
        if x.min() > 0 and x.max() / x.min() > 20:
            _log_axis(ax, x.max() / x.min())
            edges = np.geomspace(x.min(), x.max(), n_bins + 1)
        else:
            edges = np.linspace(x.min(), x.max(), n_bins + 1)
        for learner in learners:
            mine = points[points["learner"] == learner]
            if mine.empty:
                continue
            colour = colours[learner]
            ax.scatter(mine["x"], mine["y"], s=10, alpha=0.35, color=colour, lw=0)
            trend = _binned_means(mine, edges)
            ax.plot(trend["x"], trend["y"], "-o", color=colour, ms=3, lw=1.4)
    for ax in axes[: len(panels) : n_cols]:
        ax.set_ylabel(_label(metric))
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    handles = [
        Line2D([], [], color=colours[name], marker="o", ms=4, label=name)
        for name in learners
    ]
    fig.legend(
        handles=handles,
        loc="outside lower center",
        ncols=min(len(handles), 6),
        title="learner (dots: one random graph, mean over sample sizes; "
        "line: mean per bin of graphs)",
        fontsize=8,
        title_fontsize=8,
    )
    fig.suptitle(
        f"{_label(metric)} against the difficulty of the true graph", fontsize=10
    )
    return _literal_text(fig)
