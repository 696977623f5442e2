"""The analysis behind the command line and the report: every statistic, once.

:func:`analyse` computes what both front ends show -- leaderboards, critical
differences, rank shifts and generator agreement (from
:mod:`~skggm_bench.benchmark.leaderboard`), and which learners selected every pair
or none -- into an :class:`Analysis`. ``_display.py`` words it (findings
sentences, tables); nothing here is display text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pandas as pd

from ._schema import check_results_frame, rankable_metric
from .leaderboard import (
    DEFAULT_TIE_TOLERANCE,
    critical_difference,
    generator_agreement,
    leaderboard,
    rank_shift,
    selection_summary,
)

__all__ = [
    "REFERENCE_DATA_MODEL",
    "REFERENCE_GENERATOR",
    "REFERENCE_GRAPH",
    "SPLIT_AXES",
    "Analysis",
    "Comparison",
    "analyse",
]

#: The generator every other one is compared with, when the results contain it.
REFERENCE_GENERATOR = "DiagonalDominance"
#: The data model every other one is compared with, when the results contain it.
REFERENCE_DATA_MODEL = "gaussian"
#: The graph every other one is compared with, when the results contain it.
REFERENCE_GRAPH = "erdos_renyi"
# The grid columns that split every leaderboard when the results have several
# values, and the value the others are compared with.
SPLIT_AXES = {"graph": REFERENCE_GRAPH, "data_model": REFERENCE_DATA_MODEL}




@dataclass(frozen=True)
class Comparison:
    """A rank shift and its agreement between two values of a grid column.

    Attributes
    ----------
    axis : str
        The compared column (``"generator"``, ``"graph"`` or ``"data_model"``).
    source, target : str
        The reference value and the compared one.
    shift, agreement : pandas.DataFrame
        :func:`~skggm_bench.benchmark.leaderboard.rank_shift` and
        :func:`~skggm_bench.benchmark.leaderboard.generator_agreement`.
    """

    axis: str
    source: str
    target: str
    shift: pd.DataFrame
    agreement: pd.DataFrame


@dataclass(frozen=True)
class Analysis:
    """Every statistic the command line and the report show, computed once.

    Attributes
    ----------
    frame : pandas.DataFrame
        The checked result table.
    metric : str
        The canonical name of the metric ranked by.
    by : tuple of str
        The grouping columns of :attr:`board` (the generator first).
    board : pandas.DataFrame
        The leaderboard by ``by``.
    overall : pandas.DataFrame
        The leaderboard per generator (and graph and data model, when there are
        several) over the whole grid.
    cd : pandas.DataFrame
        Friedman tests and critical differences by ``by``.
    comparisons : list of Comparison
        From the reference generator to every other one, then from the reference
        graph, then data model, to every other one (when there are several).
    tie_tolerance : float
        The relative difference within which values tie in every ranking.
    selection : pandas.DataFrame
        :func:`~skggm_bench.benchmark.leaderboard.selection_summary`: the learners
        that selected every pair or none, and how often.
    """

    frame: pd.DataFrame
    metric: str
    by: tuple[str, ...]
    board: pd.DataFrame
    overall: pd.DataFrame
    cd: pd.DataFrame
    comparisons: list[Comparison]
    tie_tolerance: float = DEFAULT_TIE_TOLERANCE
    selection: pd.DataFrame = field(default_factory=pd.DataFrame)


def _reference(values: Sequence[str], reference: str | None, preferred: str) -> str:
    if reference is not None:
        if reference not in values:
            raise ValueError(
                f"reference={reference!r} is not a generator of the results; "
                f"available: {sorted(values)}"
            )
        return reference
    return preferred if preferred in values else sorted(values)[0]


def analyse(
    frame: pd.DataFrame,
    metric: str = "f1",
    *,
    by: Sequence[str] = ("density",),
    reference: str | None = None,
    n_bootstrap: int = 2000,
    tie_tolerance: float = DEFAULT_TIE_TOLERANCE,
) -> Analysis:
    """Compute the leaderboards, critical differences and comparisons of a study.

    Parameters
    ----------
    frame : pandas.DataFrame
        Benchmark results.
    metric : str, default="f1"
        The metric to rank by (a name of the metric registry).
    by : sequence of str, default=("density",)
        Grid columns that split the leaderboards besides the generator; the graph
        and the data model always do when the results have several. Comparisons
        between graphs pool the densities, since a fixed-structure graph has a
        density of its own.
    reference : str or None, default=None
        The generator the others are compared with (default
        :data:`REFERENCE_GENERATOR` when present, else the first by name).
    n_bootstrap : int, default=2000
        Bootstrap replicates of every interval.
    tie_tolerance : float, default=1e-4
        Relative difference within which two values of a block share their rank
        (:func:`~skggm_bench.benchmark.leaderboard.leaderboard`).

    Returns
    -------
    Analysis

    Raises
    ------
    ValueError
        For an empty table, a metric that is not in it, an unknown ``reference``,
        or the errors of :func:`~skggm_bench.benchmark.leaderboard.leaderboard`.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({
    ...     "generator": ["DD"] * 4 + ["TO"] * 4, "n_features": 10, "density": 0.1,
    ...     "n_samples": 50, "repeat": [0, 0, 1, 1] * 2, "learner": ["a", "b"] * 4,
    ...     "f1": [0.2, 0.6, 0.3, 0.7, 0.8, 0.1, 0.9, 0.2], "status": "ok"})
    >>> analysis = analyse(frame, "f1", n_bootstrap=100)
    >>> [(c.source, c.target) for c in analysis.comparisons]
    [('DD', 'TO')]
    """
    frame = check_results_frame(frame)
    if frame.empty:
        raise ValueError("the results have no rows: there is nothing to show")
    metric = rankable_metric(metric, frame)
    by = [c for c in by if c != "generator"]
    # Graphs and data models with several values always split the leaderboards:
    # pooling them would hide how the ranking changes across them.
    several = [c for c in SPLIT_AXES if frame[c].nunique() > 1]
    by += [c for c in several if c not in by]
    options = {"n_bootstrap": n_bootstrap, "tie_tolerance": tie_tolerance}
    board = leaderboard(frame, metric, by=by, **options)
    overall = leaderboard(frame, metric, by=several, **options)
    cd = critical_difference(frame, metric, by=by, tie_tolerance=tie_tolerance)
    comparisons = []
    generators = sorted(frame["generator"].unique())
    source = _reference(generators, reference, REFERENCE_GENERATOR)
    axes = [("generator", source, generators)]
    for column in several:
        levels = sorted(frame[column].unique())
        axes.append(
            (column, _reference(levels, None, SPLIT_AXES[column]), levels)
        )
    for axis, source, levels in axes:
        within = [c for c in by if c != axis and (axis, c) != ("graph", "density")]
        for target in (level for level in levels if level != source):
            arguments = (frame, metric, source, target)
            keywords = {"axis": axis, "by": within, **options}
            comparisons.append(
                Comparison(
                    axis,
                    source,
                    target,
                    rank_shift(*arguments, **keywords),
                    generator_agreement(*arguments, **keywords),
                )
            )
    return Analysis(
        frame=frame,
        metric=metric,
        by=tuple(board.attrs["by"]),
        board=board,
        overall=overall,
        cd=cd,
        comparisons=comparisons,
        tie_tolerance=board.attrs["tie_tolerance"],
        selection=selection_summary(frame),
    )
