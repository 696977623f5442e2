"""A self-contained HTML report of a benchmark study.

:func:`write_report` turns a result table into one HTML file that can be mailed or
archived on its own: every figure is written as a PNG next to it *and* embedded in
the page (base64), and no script, stylesheet or font is fetched from anywhere. The
report has, in order:

1. a summary: rows by status, the grid (generators, learners, densities, sample
   sizes, repeats) and where the results came from;
2. the leaderboard of the main metric per generator and density, then per
   generator over the whole grid
   (:func:`skggm_bench.benchmark.leaderboard.leaderboard`);
3. the rank shift from the reference generator (diagonal dominance when present)
   to every other generator, as a table and a bump chart;
4. TPR / PPV curves against the sample size, one figure per density with one
   column per generator (the layout of the paper's figures 7 and 8);
5. failures: counts by generator, learner, status and message;
6. run metadata: package versions recorded with the rows and the study
   configuration.

Figures need matplotlib (``pip install 'skggm-bench[plot]'``); without it the report
is still written, with the tables and a note saying why the figures are missing.
"""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pandas as pd

from .. import __version__
from .leaderboard import (
    failure_summary,
    format_leaderboard,
    leaderboard,
    rank_shift,
)

__all__ = ["REFERENCE_GENERATOR", "REPORT_NAME", "write_report"]

#: The generator every other one is compared with, when the results contain it.
REFERENCE_GENERATOR = "DiagonalDominance"
#: File name of the report inside ``out_dir``.
REPORT_NAME = "report.html"
_FIGURE_DPI = 110

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 75em;
       color: #222; line-height: 1.4; padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; }
th { background: #f3f3f3; }
img { max-width: 100%; display: block; margin: 1em 0; }
.note { color: #555; font-size: 0.9em; }
pre { background: #f6f6f6; padding: 0.8em; overflow-x: auto; font-size: 0.8em; }
"""


def _section(title: str, *parts: str, anchor: str) -> str:
    return f'<h2 id="{anchor}">{html.escape(title)}</h2>\n' + "\n".join(parts)


def _note(text: str) -> str:
    return f'<p class="note">{html.escape(text)}</p>'


def _table(frame: pd.DataFrame) -> str:
    # escape=True (the default) keeps failure messages such as "<lambda>" inert.
    return frame.to_html(index=False, escape=True, border=0, na_rep="n/a")


def _figure_html(figure: Any, path: Path, alt: str) -> str:
    """Save ``figure`` as PNG at ``path`` and return an <img> embedding it."""
    figure.savefig(path, dpi=_FIGURE_DPI)
    encoded = base64.b64encode(path.read_bytes()).decode("ascii")
    return (
        f'<img alt="{html.escape(alt)}" title="{html.escape(path.name)}" '
        f'src="data:image/png;base64,{encoded}">'
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


def _grid_summary(frame: pd.DataFrame) -> pd.DataFrame:
    densities = sorted(float(d) for d in frame["density"].dropna().unique())
    if frame["density"].isna().any():
        densities_text = ", ".join(f"{d:g}" for d in densities) + " (family default)"
    else:
        densities_text = ", ".join(f"{d:g}" for d in densities)
    rows = [
        ("generators", ", ".join(sorted(frame["generator"].unique()))),
        ("learners", ", ".join(sorted(frame["learner"].unique()))),
        ("n_features", ", ".join(map(str, sorted(frame["n_features"].unique())))),
        ("densities", densities_text.strip(", ")),
        ("n_samples", ", ".join(map(str, sorted(frame["n_samples"].unique())))),
        ("repeats", str(frame["repeat"].nunique())),
        ("rows", str(len(frame))),
    ]
    counts = frame["status"].value_counts()
    rows += [(f"status {status}", str(int(n))) for status, n in counts.items()]
    return pd.DataFrame(rows, columns=["", "value"])


def _versions(frame: pd.DataFrame) -> pd.DataFrame:
    """Every package version recorded with the rows (several if runs differed)."""
    seen: dict[str, set[str]] = {}
    if "versions" in frame.columns:
        for text in frame["versions"].dropna().unique():
            try:
                versions = json.loads(text)
            except (TypeError, ValueError):
                continue
            if isinstance(versions, Mapping):
                for package, version in versions.items():
                    seen.setdefault(str(package), set()).add(str(version))
    return pd.DataFrame(
        [(p, ", ".join(sorted(v))) for p, v in sorted(seen.items())],
        columns=["package", "version"],
    )


def _reference(frame: pd.DataFrame, reference: str | None) -> str | None:
    generators = sorted(frame["generator"].unique())
    if reference is not None:
        if reference not in generators:
            raise ValueError(
                f"reference={reference!r} is not a generator of the results; "
                f"available: {generators}"
            )
        return reference
    if len(generators) < 2:
        return None
    return REFERENCE_GENERATOR if REFERENCE_GENERATOR in generators else generators[0]


def _shift_display(shift: pd.DataFrame) -> pd.DataFrame:
    table = shift.copy()
    for column in ("mean_rank_from", "mean_rank_to", "mean_metric_from"):
        table[column] = table[column].round(2)
    table["mean_metric_to"] = table["mean_metric_to"].round(2)
    table["rank_gain"] = [
        f"{g:+.2f} [{lo:+.2f}, {hi:+.2f}]" if pd.notna(lo) else f"{g:+.2f}"
        for g, lo, hi in zip(
            table["rank_gain"],
            table["rank_gain_low"],
            table["rank_gain_high"],
            strict=True,
        )
    ]
    table = table.drop(columns=["rank_gain_low", "rank_gain_high"])
    source, target = shift.attrs["from_generator"], shift.attrs["to_generator"]
    metric = shift.attrs["metric"]
    return table.rename(
        columns={
            "position_from": f"position ({source})",
            "position_to": f"position ({target})",
            "mean_rank_from": f"mean rank ({source})",
            "mean_rank_to": f"mean rank ({target})",
            "rank_gain": "mean-rank gain [95% CI]",
            "mean_metric_from": f"{metric} ({source})",
            "mean_metric_to": f"{metric} ({target})",
            "n_failed_from": f"failed ({source})",
            "n_failed_to": f"failed ({target})",
        }
    )


def _safe_name(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)


def write_report(
    frame: pd.DataFrame,
    out_dir: str | Path,
    *,
    metric: str = "f1",
    curve_metrics: Sequence[str] = ("tpr", "ppv"),
    reference: str | None = None,
    title: str = "skggm-bench report",
    metadata: Mapping[str, Any] | None = None,
    n_bootstrap: int = 2000,
) -> Path:
    """Write a self-contained HTML report of benchmark results.

    Parameters
    ----------
    frame : pandas.DataFrame
        Benchmark results (``BenchmarkResult.frame`` or ``ResultStore.frame()``).
    out_dir : str or pathlib.Path
        Directory for ``report.html`` and ``figures/*.png`` (created if missing;
        files of an earlier report are overwritten).
    metric : str, default="f1"
        Metric of the leaderboards and the rank shift.
    curve_metrics : sequence of str, default=("tpr", "ppv")
        Metrics plotted against the sample size (those present in ``frame``).
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

    Returns
    -------
    pathlib.Path
        Path of the HTML file.

    Raises
    ------
    ValueError
        If the table is empty, lacks ``metric``, or ``reference`` is unknown.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import pandas as pd
    >>> from skggm_bench.benchmark.report import write_report
    >>> frame = pd.DataFrame({
    ...     "generator": "G", "n_features": 10, "density": 0.1,
    ...     "n_samples": [50, 50, 100, 100], "repeat": 0,
    ...     "learner": ["a", "b"] * 2, "tpr": [0.2, 0.6, 0.3, 0.7],
    ...     "ppv": 0.8, "f1": [0.3, 0.6, 0.4, 0.7], "status": "ok"})
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = write_report(frame, tmp)
    ...     text = path.read_text()
    ...     pngs = sorted(p.name for p in (pathlib.Path(tmp) / "figures").glob("*"))
    >>> "Leaderboard" in text, path.name
    (True, 'report.html')
    >>> pngs
    ['curves_density_0.1.png', 'leaderboard.png']
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    if frame.empty:
        raise ValueError("frame has no rows: there is nothing to report")
    out_dir = Path(out_dir)
    figures = out_dir / "figures"
    figures.mkdir(parents=True, exist_ok=True)
    options = {"n_bootstrap": n_bootstrap}
    missing_plot = _matplotlib_missing()
    reference = _reference(frame, reference)

    by_density = leaderboard(frame, metric, by=("density",), **options)
    overall = leaderboard(frame, metric, by=(), **options)
    leaderboard_parts = [
        _note(
            f"Learners ranked by {metric} within each scenario (generator x density "
            "x n_samples) and repeat; mean rank and mean metric with 95% bootstrap "
            "intervals over repeats. '=' after a position: its rank interval "
            "overlaps another learner's. Failed, timed-out and missing fits rank "
            "last and are excluded from the mean metric; 'failed' counts them."
        ),
        "<h3>By generator and density</h3>",
        _table(format_leaderboard(by_density)),
        "<h3>By generator, whole grid</h3>",
        _table(format_leaderboard(overall)),
    ]
    if missing_plot is None:
        leaderboard_parts.append(
            _figure_html(
                _plotting().plot_leaderboard(by_density),
                figures / "leaderboard.png",
                f"leaderboard by {metric}",
            )
        )

    shift_parts = []
    if reference is None:
        shift_parts.append(_note("Only one generator: there is no rank shift to show."))
    else:
        for target in sorted(set(frame["generator"]) - {reference}):
            shift = rank_shift(frame, metric, reference, target, **options)
            shift_parts += [
                f"<h3>{html.escape(reference)} &rarr; {html.escape(target)}</h3>",
                _table(_shift_display(shift)),
            ]
            if missing_plot is None:
                shift_parts.append(
                    _figure_html(
                        _plotting().plot_rank_shift(shift),
                        figures / _safe_name(f"rank_shift_{target}.png"),
                        f"rank shift from {reference} to {target}",
                    )
                )
        shift_parts.insert(
            0,
            _note(
                f"How each learner's rank by {metric} changes when the ground truth "
                f"comes from another generator instead of {reference}. Positive "
                "gains: the learner ranks better under the other generator. The "
                "interval is a paired bootstrap over repeats (the generators share "
                "each repeat's graph)."
            ),
        )

    curve_parts = []
    present = [m for m in curve_metrics if m in frame.columns]
    if missing_plot is not None:
        curve_parts.append(_note(missing_plot))
    elif not present:
        curve_parts.append(
            _note(f"None of the metrics {list(curve_metrics)} is in the results.")
        )
    else:
        plotting = _plotting()
        for p in sorted(frame["n_features"].unique()):
            curves = plotting.plot_results(frame, metrics=present, n_features=p)
            for density, figure in curves.items():
                label = "default" if density is None else f"{density:g}"
                suffix = "" if frame["n_features"].nunique() == 1 else f"_p{p}"
                curve_parts.append(
                    _figure_html(
                        figure,
                        figures / f"curves_density_{label}{suffix}.png",
                        f"{', '.join(present)} against n_samples, density {label}",
                    )
                )

    failures = failure_summary(frame)
    if failures.empty:
        failure_parts = [_note("Every fit finished: no failures, no timeouts.")]
    else:
        failures["message"] = failures["message"].str.slice(0, 300)
        failure_parts = [
            _note(
                f"{int(failures['count'].sum())} of {len(frame)} fits did not finish."
            ),
            _table(failures),
        ]

    versions = _versions(frame)
    meta_parts = [
        "<h3>Package versions recorded with the results</h3>",
        _table(versions) if not versions.empty else _note("No versions recorded."),
    ]
    if metadata:
        meta_parts += [
            "<h3>Study</h3>",
            "<pre>"
            + html.escape(json.dumps(dict(metadata), indent=2, default=str))
            + "</pre>",
        ]
    if missing_plot is not None:
        leaderboard_parts.append(_note(missing_plot))
        shift_parts.append(_note(missing_plot))

    created = datetime.now(timezone.utc).isoformat(timespec="seconds")
    body = "\n".join(
        [
            f"<h1>{html.escape(title)}</h1>",
            _note(f"Written {created} by skggm-bench {__version__}."),
            _section("Summary", _table(_grid_summary(frame)), anchor="summary"),
            _section(
                f"Leaderboard ({metric})", *leaderboard_parts, anchor="leaderboard"
            ),
            _section(
                "Rank shift between generators", *shift_parts, anchor="rank-shift"
            ),
            _section("TPR / PPV curves", *curve_parts, anchor="curves"),
            _section("Failures", *failure_parts, anchor="failures"),
            _section("Run metadata", *meta_parts, anchor="metadata"),
        ]
    )
    page = (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n"
        f"<body>\n{body}\n</body>\n</html>\n"
    )
    path = out_dir / REPORT_NAME
    path.write_text(page, encoding="utf-8")
    return path


def _plotting() -> Any:
    from . import plotting

    return plotting
