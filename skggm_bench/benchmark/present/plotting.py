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
from ._plot_common import (
    GREY,
    density_title,
    learner_colours,
    literal_text,
    matplotlib_figure,
    metric_label,
    panel_title,
    split_panels,
)
from ._plot_ranks import plot_critical_difference, plot_leaderboard, plot_rank_shift

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
    figure_class = matplotlib_figure()
    metrics = _as_metrics(metrics)
    frame = _select_n_features(_check_results(frame, metrics), n_features)
    frame = frame[_density_mask(frame, density)]
    if frame.empty:
        raise ValueError(f"no results at density={density}")
    generators = _subset(frame, "generator", generators)
    learners = _subset(frame, "learner", learners)
    colours = learner_colours(frame["learner"].unique())
    frame = frame[frame["generator"].isin(generators)]
    columns = ["generator"]
    columns += [
        c for c in ("graph", "data_model") if c in frame and frame[c].nunique() > 1
    ]
    # In the generators' chosen order; the stable sort keeps graphs sorted within.
    panels = sorted(
        split_panels(frame, columns), key=lambda kv: generators.index(kv[0][0])
    )
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
                mean = curve["mean"].to_numpy()
                hollow = failed.to_numpy()
                # The filled markers ride on the learner's line (a scatter per
                # learner costs more to build and draw than the line itself); the
                # hollow ones, where some fits failed, are a scatter of their own.
                ax.plot(
                    x,
                    mean,
                    "-o",
                    color=colour,
                    label=learner,
                    lw=1.4,
                    markersize=np.sqrt(18),
                    markevery=np.flatnonzero(~hollow).tolist(),
                    zorder=3,
                )
                if hollow.any():
                    ax.scatter(
                        x[hollow],
                        mean[hollow],
                        edgecolors=[colour],
                        facecolors="none",
                        zorder=3,
                        s=18,
                    )
                entry = METRICS.get(metric)
                low, high = (entry.low, entry.high) if entry else (-np.inf, np.inf)
                half = curve["half_width"].to_numpy()
                # The interval as plain vertical segments, clipped to the metric's
                # range; a NaN interval (one repeat) draws no segment.
                ax.vlines(
                    x,
                    np.clip(mean - half, low, None),
                    np.clip(mean + half, None, high),
                    colors=[colour],
                    linewidth=1.0,
                    alpha=0.7,
                )
            if i == 0:
                ax.set_title(panel_title(columns, key))
            if j == 0:
                ax.set_ylabel(metric_label(metric))
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
        f"p = {p}, {density_title(density)}: mean over repeats (line) and its 95% "
        "Student-t CI (vertical bar)"
    )
    return literal_text(fig)


def _dodge(sizes: np.ndarray, n_learners: int) -> np.ndarray:
    """Sideways offsets of the learners' points: 40% of the smallest size gap."""
    gaps = np.diff(sizes)
    gap = gaps.min() if gaps.size else max(sizes[0] * 0.2, 1.0)
    if n_learners < 2:
        return np.zeros(max(n_learners, 1))
    return np.linspace(-0.2 * gap, 0.2 * gap, n_learners)


def _subset(
    frame: pd.DataFrame, column: str, chosen: Sequence[str] | None
) -> list[Any]:
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
        densities = [*sorted(float(d) for d in values if not pd.isna(d))]
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
    figure_class = matplotlib_figure()
    from matplotlib.lines import Line2D

    frame = _check_results(frame, [metric, difficulty])
    if isinstance(n_bins, bool) or not isinstance(n_bins, int) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer, got {n_bins!r}")
    columns = ["generator"]
    columns += [
        c for c in ("graph", "data_model") if c in frame and frame[c].nunique() > 1
    ]
    panels = split_panels(frame, columns)
    n_cols = min(len(panels), 3)
    n_rows = -(-len(panels) // n_cols)
    fig = figure_class(figsize=(4.2 * n_cols, 3.4 * n_rows), layout="constrained")
    axes = fig.subplots(n_rows, n_cols, squeeze=False, sharey=True).ravel()
    learners = sorted(frame["learner"].unique())
    colours = learner_colours(learners)
    for ax, (key, rows) in zip(axes, panels, strict=False):
        points = _per_graph(rows, metric, difficulty)
        ax.set_title(panel_title(columns, key), fontsize=10)
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
                color=GREY,
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
        ax.set_ylabel(metric_label(metric))
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
        f"{metric_label(metric)} against the difficulty of the true graph", fontsize=10
    )
    return literal_text(fig)
