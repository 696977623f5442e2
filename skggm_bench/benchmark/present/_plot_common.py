"""What the figures of :mod:`~skggm_bench.benchmark.present.plotting` share: the
optional matplotlib, literal text, metric labels, one colour per learner, panels.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from ...metrics import METRICS

if TYPE_CHECKING:  # matplotlib is optional: imported for annotations only
    from matplotlib.figure import Figure

__all__ = [
    "GREY",
    "density_title",
    "learner_colours",
    "literal_text",
    "matplotlib_figure",
    "metric_label",
    "panel_title",
    "split_panels",
]

# Colour of text and marks that belong to no learner ("no data", the CD bar).
GREY = "0.45"


def matplotlib_figure() -> type:
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


def literal_text(fig: Figure) -> Figure:
    """``fig`` with every text shown as it is, never read as mathtext.

    Names are data: a learner named ``$\\foo$`` is shown so, instead of making
    matplotlib fail to parse it when the figure is drawn. (No label here uses
    mathtext.) The tick labels exist already (fixed ticks), so they are covered.
    """
    from matplotlib.text import Text

    for text in fig.findobj(Text):
        text.set_parse_math(False)
    return fig


def metric_label(metric: str) -> str:
    """The registry's label of a metric (its name for any other column)."""
    return METRICS[metric].label if metric in METRICS else metric


def learner_colours(learners: Sequence[str]) -> dict[str, Any]:
    """One fixed colour per learner (tab10, then tab20 for many learners)."""
    from matplotlib import colormaps

    names = sorted(learners)
    cmap = colormaps["tab10" if len(names) <= 10 else "tab20"]
    return {name: cmap(i % cmap.N) for i, name in enumerate(names)}


def density_title(density: float | None) -> str:
    return "family default density" if density is None else f"density {density:g}"


def split_panels(
    table: pd.DataFrame, columns: Sequence[str]
) -> list[tuple[tuple[Any, ...], Any]]:
    if not columns:
        return [((), table)]
    groups = table.groupby(list(columns), sort=True, dropna=False)
    return [(key if isinstance(key, tuple) else (key,), part) for key, part in groups]


def panel_title(columns: Sequence[str], key: tuple[Any, ...]) -> str:
    parts = []
    for column, value in zip(columns, key, strict=True):
        if column == "generator":
            parts.append(str(value))
        elif column == "density":
            parts.append(density_title(None if pd.isna(value) else float(value)))
        else:
            parts.append(f"{column} {value}")
    return ", ".join(parts) or "all scenarios"
