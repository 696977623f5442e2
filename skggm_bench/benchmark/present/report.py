"""A self-contained HTML report of a benchmark study.

:func:`write_report` turns a result table into one HTML file that can be mailed or
archived on its own: every figure is written as a PNG next to it *and* embedded in
the page (base64), and no script, stylesheet or font is fetched from anywhere. The
page is rendered from a jinja2 template (``templates/report.html``) with a data
context of display text and figures; the numbers and the wording are those of the
``skggm-bench leaderboard`` command (both come from the same display module). The
report has, in order:

1. **Findings**: a few sentences generated from the numbers, each with its
   interval -- who wins under each generator (and graph and data model), the
   largest rank shifts, the agreement of the learner orderings between generators
   (Kendall's tau), the critical differences, what failed and how often -- and the
   grid;
2. the leaderboard of the main metric per generator and density (and graph and
   data model, when there are several), then per generator over the whole grid,
   with a figure;
3. the Friedman tests and Nemenyi critical differences, with their diagrams;
4. the rank shift from the reference generator (diagonal dominance when present)
   to every other generator, as a table and a bump chart (and between graphs and
   between data models when there are several), and the agreement of the orderings;
5. the recovery curves against the sample size, one figure per density (and graph
   and data model);
6. the main metric against the difficulty of each true graph (its weakest edge);
7. the failure rate of each learner under each generator, and the fits that did
   not finish, grouped by message with counts;
8. the package versions recorded with the rows and the study configuration.

Each table of sections 2 to 4 is also written beside the report, as CSV and as
LaTeX (``tables/<name>.csv`` and ``.tex``, what ``skggm-bench leaderboard
--format`` prints), and linked under the table.

The main metric may be a loss (lower is better, e.g. ``frobenius_loss`` in the
``covariance`` preset): every table and figure reads its direction from the metric
registry. Figures need matplotlib (``pip install 'skggm-bench[plot]'``); without it
the report is still written, with the tables and a note saying why the figures are
missing.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pandas as pd

from ... import __version__
from ...metrics import get_metric
from ..analysis._analysis import (
    REFERENCE_GENERATOR,
    SIGNIFICANT,
    Analysis,
    analyse,
    shift_verdicts,
)
from ..analysis._ranking import MIN_REPEATS
from ..analysis.leaderboard import DEFAULT_TIE_TOLERANCE
from ._findings import findings
from ._formatting import THIN_MARK, thin_rows
from ._table_formats import format_table
from ._tables import (
    agreement_table,
    failure_rate_table,
    failure_table,
    grid_table,
    versions_table,
)
from ._text import evidence_line, report_tables

__all__ = [
    "REFERENCE_GENERATOR",
    "REPORT_NAME",
    "write_analysis_report",
    "write_report",
]

#: File name of the report inside ``out_dir``.
REPORT_NAME = "report.html"
_TEMPLATE = "report.html"
# The folder, beside the report, of its tables as CSV and LaTeX files.
_TABLES = "tables"
_FIGURE_DPI = 110
# Shown, with its link, where a caller draws the figures elsewhere.
_ELSEWHERE = (
    "This report leaves its figures out: the leaderboards, rank shifts and recovery "
    "curves are drawn as interactive charts, scenario by scenario, on the page this "
    "links to, and the numbers of the leaderboards, critical differences and rank "
    "shifts are in the tables below. skggm-bench report on the study's store (or "
    "write_report on its rows) draws every figure as a picture."
)
# The cell column of the "recovery against difficulty" figure.
_DIFFICULTY = "min_edge_partial_correlation"
_SECTIONS = (
    ("findings", "Findings"),
    ("leaderboard", "Leaderboard"),
    ("critical-differences", "Critical differences"),
    ("rank-shift", "Rank shift"),
    ("curves", "Curves"),
    ("difficulty", "Difficulty"),
    ("failures", "Failures"),
    ("versions", "Versions and configuration"),
)


def _matplotlib_missing() -> str | None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return (
            "Figures are not included: matplotlib is not installed "
            "(pip install 'skggm-bench[plot]')."
        )
    return None


def _safe_name(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in str(text))


class _Figures:
    """Saves figures under ``directory`` and describes them for the template."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def add(
        self, figure: Any, name: str, alt: str, caption: str = ""
    ) -> dict[str, Any]:
        path = self.directory / _safe_name(name)
        figure.savefig(path, dpi=_FIGURE_DPI)
        encoded = base64.b64encode(path.read_bytes()).decode("ascii")
        return {
            "src": f"data:image/png;base64,{encoded}",
            "name": path.name,
            "alt": alt,
            "caption": caption,
        }


def _curve_figures(
    frame: pd.DataFrame, metrics: list[str], figures: _Figures
) -> list[dict[str, Any]]:
    """One figure per (graph, data model, n_features, density), in that order."""
    from .plotting import plot_results

    several_p = frame["n_features"].nunique() > 1
    graphs = sorted(frame["graph"].unique())
    models = sorted(frame["data_model"].unique())
    result = []
    for graph, model in itertools.product(graphs, models):
        rows = frame[(frame["graph"] == graph) & (frame["data_model"] == model)]
        for p in sorted(rows["n_features"].unique()):
            curves = plot_results(rows, metrics=metrics, n_features=int(p))
            for density, figure in curves.items():
                label = "default" if density is None else f"{density:g}"
                name = f"curves_density_{label}"
                name += f"_p{p}" if several_p else ""
                name += f"_{graph}" if len(graphs) > 1 else ""
                name += f"_{model}" if len(models) > 1 else ""
                where = f"p = {p}, density {label}"
                where += f", graph {graph}" if len(graphs) > 1 else ""
                where += f", data model {model}" if len(models) > 1 else ""
                labels = ", ".join(get_metric(m).label for m in metrics)
                result.append(
                    figures.add(
                        figure,
                        f"{name}.png",
                        f"{labels} against the sample size, {where}",
                        f"{labels} against the sample size ({where}): mean over "
                        "the repeats and its 95% interval, one line per learner.",
                    )
                )
    return result


def _comparison_title(axis: str, source: str, target: str) -> str:
    if axis == "generator":
        return f"{source} \u2192 {target}"
    what = "Graph" if axis == "graph" else "Data model"
    return f"{what} {source} \u2192 {target}"


def _comparisons(
    analysis: Analysis, figures: _Figures | None, tables: Sequence[Any]
) -> list[dict[str, Any]]:
    """Per comparison: its title, rank-shift table (``tables``, one per comparison,
    from :func:`report_tables`) and bump chart."""
    from .plotting import plot_rank_shift

    items = []
    for comparison, table in zip(analysis.comparisons, tables, strict=True):
        figure = None
        verdicts = shift_verdicts(comparison)
        if figures is not None:
            prefix = "" if comparison.axis == "generator" else f"{comparison.axis}_"
            # Solid lines follow the table's significant column: a shift made by
            # failed fits is not drawn as a change of the learner.
            judged = comparison.shift.assign(significant=verdicts == SIGNIFICANT)
            figure = figures.add(
                plot_rank_shift(judged),
                f"rank_shift_{prefix}{comparison.target}.png",
                f"rank shift from {comparison.source} to {comparison.target}",
                "Bump chart: each learner's mean rank on both sides, named at both "
                "ends; solid lines are the changes the table calls significant"
                + (
                    f"; dotted lines are over fewer than {MIN_REPEATS} repeats, too "
                    "few to tell."
                    if thin_rows(comparison.shift).any()
                    else "."
                ),
            )
        items.append(
            {
                "title": _comparison_title(
                    comparison.axis, comparison.source, comparison.target
                ),
                "table": table,
                "figure": figure,
            }
        )
    return items


def _figures(
    analysis: Analysis, figures: _Figures, curve_metrics: list[str]
) -> dict[str, Any]:
    """The figures of the leaderboard, critical-difference, curve and difficulty
    sections, with notes where one cannot be drawn."""
    from . import plotting

    frame, metric = analysis.frame, analysis.metric
    label = get_metric(metric).label
    result: dict[str, Any] = {
        "leaderboard_figure": figures.add(
            plotting.plot_leaderboard(analysis.board),
            "leaderboard.png",
            f"leaderboard by {label}",
            "Mean rank (dot) and its 95% bootstrap interval (bar) per group; "
            "learners whose bars overlap are not told apart."
            + (
                f" {THIN_MARK} after a name: fewer than {MIN_REPEATS} repeats, so "
                "the bar is the range of the resampled means, not a 95% interval."
                if thin_rows(analysis.board[analysis.board["mean_rank"].notna()]).any()
                else ""
            ),
        ),
        "critical_difference_figure": figures.add(
            plotting.plot_critical_difference(analysis.cd),
            "critical_difference.png",
            f"critical-difference diagrams by {label}",
            "Critical-difference diagrams: mean ranks on the axis (1 = best), "
            "learners labelled with their mean rank; a black bar joins learners "
            "that do not differ significantly; the CD bar shows the critical "
            "difference.",
        ),
        "figures_note": None,
        "figures_link": None,
        "curves": _curve_figures(frame, curve_metrics, figures),
        "curve_notes": [],
        "difficulty_figure": None,
        "difficulty_notes": [],
    }
    if _DIFFICULTY in frame and frame[_DIFFICULTY].notna().any():
        result["difficulty_figure"] = figures.add(
            plotting.plot_difficulty(frame, metric, difficulty=_DIFFICULTY),
            "difficulty.png",
            f"{label} against the weakest edge of the true graph",
            f"{label} against the smallest absolute partial correlation on an edge "
            "of the true graph: the weaker that edge, the harder the graph is to "
            "recover.",
        )
    else:
        result["difficulty_notes"].append(
            "The results do not record the difficulty of their graphs (rows written "
            "by an older version, or graphs without edges)."
        )
    return result


def _write_tables(
    tables: Sequence[tuple[str, Any]], out_dir: Path
) -> dict[str, dict[str, str]]:
    """Each table as CSV and LaTeX in ``out_dir/tables``; their relative links."""
    folder = out_dir / _TABLES
    folder.mkdir(exist_ok=True)
    links = {}
    for stem, table in tables:
        files = {}
        for format, suffix in (("csv", "csv"), ("latex", "tex")):
            (folder / f"{stem}.{suffix}").write_text(
                format_table(table, format), encoding="utf-8"
            )
            files[format] = f"{_TABLES}/{stem}.{suffix}"
        links[stem] = files
    return links


def _no_figures(reason: str, elsewhere: str | None = None) -> dict[str, Any]:
    return {
        "figures_note": reason,
        "figures_link": elsewhere,
        "leaderboard_figure": None,
        "critical_difference_figure": None,
        "curves": [],
        "curve_notes": [reason],
        "difficulty_figure": None,
        "difficulty_notes": [reason],
    }


def _context(
    analysis: Analysis,
    figures: _Figures | None,
    *,
    curve_metrics: list[str],
    title: str,
    metadata: Mapping[str, Any] | None,
    missing_plot: str | None,
    figures_elsewhere: str | None,
    tables: Sequence[tuple[str, Any]],
    table_files: Mapping[str, Mapping[str, str]],
) -> dict[str, Any]:
    """Everything the template shows, as text, tables and figures."""
    frame = analysis.frame
    entry = get_metric(analysis.metric)
    shifts = tables[3 : 3 + len(analysis.comparisons)]
    if figures_elsewhere is not None:
        drawn = _no_figures(_ELSEWHERE, figures_elsewhere)
    elif figures is None:
        drawn = _no_figures(missing_plot or "")
    else:
        drawn = _figures(analysis, figures, curve_metrics)
    return {
        "title": title,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "version": __version__,
        "metric_label": entry.label,
        "tie_tolerance": f"{analysis.tie_tolerance:g}",
        "direction": (
            "higher is better" if entry.greater_is_better else "lower is better"
        ),
        "sections": _SECTIONS,
        "findings": findings(analysis),
        "grid": grid_table(frame),
        "grouping": " and ".join(c.replace("_", " ") for c in analysis.by),
        # report_tables's order: the two leaderboards, the critical differences,
        # then a table per comparison.
        "board": tables[0][1],
        "overall": tables[1][1],
        "critical_differences": tables[2][1],
        "comparisons": [
            item | {"files": table_files[stem]}
            for item, stem in zip(
                _comparisons(analysis, figures, [t for _, t in shifts]),
                [stem for stem, _ in shifts],
                strict=True,
            )
        ],
        "table_files": table_files,
        "several_data_models": frame["data_model"].nunique() > 1,
        "several_graphs": frame["graph"].nunique() > 1,
        "agreement": agreement_table(analysis.comparisons),
        "failures": failure_table(frame),
        "failure_rates": failure_rate_table(frame),
        "evidence": evidence_line(analysis),
        "versions": versions_table(frame),
        "configuration": (
            json.dumps(dict(metadata), indent=2, default=str, sort_keys=True)
            if metadata
            else ""
        ),
        **drawn,
    }


def _render(context: Mapping[str, Any]) -> str:
    import jinja2

    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("skggm_bench.benchmark.present", "templates"),
        # Every value is text from the results (learner names, failure messages):
        # escaped, never markup.
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=False,
    )
    return environment.get_template(_TEMPLATE).render(**context)


def _prepare(out_dir: Path) -> Path:
    """Create ``out_dir/figures`` and check that it is writable, before any work."""
    figures = out_dir / "figures"
    figures.mkdir(parents=True, exist_ok=True)
    for place in (out_dir, figures):
        if not os.access(place, os.W_OK):
            raise PermissionError(f"{place} is not writable")
    return figures


def write_report(
    frame: pd.DataFrame,
    out_dir: str | Path,
    *,
    metric: str = "f1",
    curve_metrics: Sequence[str] | None = None,
    reference: str | None = None,
    title: str = "skggm-bench report",
    metadata: Mapping[str, Any] | None = None,
    n_bootstrap: int = 2000,
    tie_tolerance: float = DEFAULT_TIE_TOLERANCE,
) -> Path:
    """Write a self-contained HTML report of benchmark results.

    Parameters
    ----------
    frame : pandas.DataFrame
        Benchmark results (``BenchmarkResult.frame`` or ``ResultStore.frame()``).
    out_dir : str or pathlib.Path
        Directory for ``report.html``, ``figures/*.png`` and ``tables/*.csv``
        and ``*.tex`` (created if missing; files of an earlier report are
        overwritten).
    metric : str, default="f1"
        Metric of the findings, leaderboards, critical differences and rank
        shifts; any metric of the registry in the results (a loss ranks lower is
        better).
    curve_metrics : sequence of str or None, default=None
        Metrics plotted against the sample size; default TPR and PPV when the
        results have them, else ``metric``.
    reference : str or None, default=None
        Generator the others are compared with in the rank-shift section;
        default ``"DiagonalDominance"`` when present, else the first in sorted
        order. No rank shift is shown for a single generator.
    title : str, default="skggm-bench report"
        Page title.
    metadata : mapping or None, default=None
        Extra run information shown as JSON (e.g. the stored study
        configuration, ``ResultStore.metadata()``).
    n_bootstrap : int, default=2000
        Bootstrap replicates of the intervals.
    tie_tolerance : float, default=1e-4
        Relative difference within which two values of a block share their rank
        (:func:`~skggm_bench.benchmark.analysis.leaderboard.leaderboard`).

    Returns
    -------
    pathlib.Path
        Path of the HTML file.

    Raises
    ------
    ValueError
        If the table is empty, lacks ``metric`` or a curve metric, or
        ``reference`` is unknown.
    OSError
        If ``out_dir`` cannot be created or written (checked before any work).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import pandas as pd
    >>> from skggm_bench.benchmark.present.report import write_report
    >>> frame = pd.DataFrame({
    ...     "generator": "G", "n_features": 10, "density": 0.1,
    ...     "n_samples": [50, 50, 100, 100], "repeat": 0,
    ...     "learner": ["a", "b"] * 2, "tpr": [0.2, 0.6, 0.3, 0.7],
    ...     "ppv": 0.8, "f1": [0.3, 0.6, 0.4, 0.7], "status": "ok"})
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = write_report(frame, tmp, n_bootstrap=100)
    ...     text = path.read_text()
    ...     pngs = sorted(p.name for p in (pathlib.Path(tmp) / "figures").glob("*"))
    >>> "Findings" in text, path.name
    (True, 'report.html')
    >>> pngs
    ['critical_difference.png', 'curves_density_0.1.png', 'leaderboard.png']
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    if frame.empty:
        raise ValueError("frame has no rows: there is nothing to report")
    analysis = analyse(
        frame,
        metric,
        reference=reference,
        n_bootstrap=n_bootstrap,
        tie_tolerance=tie_tolerance,
    )
    return write_analysis_report(
        analysis,
        out_dir,
        curve_metrics=curve_metrics,
        title=title,
        metadata=metadata,
    )


def write_analysis_report(
    analysis: Analysis,
    out_dir: str | Path,
    *,
    curve_metrics: Sequence[str] | None = None,
    title: str = "skggm-bench report",
    metadata: Mapping[str, Any] | None = None,
    figures_elsewhere: str | None = None,
) -> Path:
    """Write the report of :func:`write_report` from an analysis already computed.

    The report of ``analyse(frame, metric, ...)`` is that of ``write_report(frame,
    out_dir, metric=metric, ...)``; a caller that needs the analysis itself (the
    results site shows its findings and tables) computes it once.

    Parameters
    ----------
    analysis : Analysis
        The result of :func:`~skggm_bench.benchmark.analysis._analysis.analyse`.
    out_dir : str or pathlib.Path
        Directory for ``report.html``, ``figures/*.png`` and ``tables/*.csv``
        and ``*.tex`` (created if missing; files of an earlier report are
        overwritten).
    curve_metrics : sequence of str or None, default=None
        Metrics plotted against the sample size; default TPR and PPV when the
        results have them, else the analysis's metric.
    title : str, default="skggm-bench report"
        Page title.
    metadata : mapping or None, default=None
        Extra run information shown as JSON.
    figures_elsewhere : str or None, default=None
        A link (relative URL) to where the report's figures are shown instead, e.g.
        the interactive charts of a results site: no figure is drawn, and the
        report says so and links there. Drawing the figures is most of a report's
        cost on a large grid (one per group and density). None draws them.

    Returns
    -------
    pathlib.Path
        Path of the HTML file.

    Raises
    ------
    ValueError
        If a curve metric is not in the results.
    OSError
        If ``out_dir`` cannot be created or written (checked before any work).

    Examples
    --------
    >>> import tempfile
    >>> import pandas as pd
    >>> from skggm_bench.benchmark.analysis._analysis import analyse
    >>> from skggm_bench.benchmark.present.report import write_analysis_report
    >>> frame = pd.DataFrame({
    ...     "generator": "G", "n_features": 10, "density": 0.1,
    ...     "n_samples": [50, 50, 100, 100], "repeat": 0,
    ...     "learner": ["a", "b"] * 2, "tpr": [0.2, 0.6, 0.3, 0.7],
    ...     "ppv": 0.8, "f1": [0.3, 0.6, 0.4, 0.7], "status": "ok"})
    >>> analysis = analyse(frame, "f1", n_bootstrap=100)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = write_analysis_report(analysis, tmp)
    ...     text = path.read_text()
    >>> "Findings" in text, path.name
    (True, 'report.html')
    """
    if not isinstance(analysis, Analysis):
        raise TypeError(
            "analysis must be an Analysis (from analyse), got "
            f"{type(analysis).__name__}"
        )
    if curve_metrics is None:
        present = [m for m in ("tpr", "ppv") if m in analysis.frame.columns]
        curves = present or [analysis.metric]
    else:
        curves = [get_metric(m).name for m in curve_metrics]
        if not curves:
            raise ValueError("curve_metrics is empty; give None for the default")
        absent = [m for m in curves if m not in analysis.frame.columns]
        if absent:
            raise ValueError(f"curve_metrics {absent} are not in these results")
    if figures_elsewhere is not None and (
        not isinstance(figures_elsewhere, str) or not figures_elsewhere
    ):
        raise ValueError(
            "figures_elsewhere must be a link (a non-empty string) or None, got "
            f"{figures_elsewhere!r}"
        )
    out_dir = Path(out_dir)
    directory = _prepare(out_dir)
    missing_plot = _matplotlib_missing()
    draw = missing_plot is None and figures_elsewhere is None
    tables = report_tables(analysis)
    context = _context(
        analysis,
        _Figures(directory) if draw else None,
        curve_metrics=curves,
        title=title,
        metadata=metadata,
        missing_plot=missing_plot,
        figures_elsewhere=figures_elsewhere,
        tables=tables,
        table_files=_write_tables(tables, out_dir),
    )
    path = out_dir / REPORT_NAME
    path.write_text(_render(context), encoding="utf-8")
    return path
