"""The analysis behind the command line and the report: every statistic, once.

:func:`analyse` computes what both front ends show -- leaderboards, critical
differences, rank shifts and generator agreement (from
:mod:`~skggm_bench.benchmark.analysis.leaderboard`), which learners selected every pair
or none, and the failure rates -- into an :class:`Analysis`. ``present/`` words
it (findings sentences, tables); nothing here is display text.

Failures and recovery told apart
--------------------------------
A failed fit ranks last in its block, so a learner's rank moves when *another*
learner fails: with one learner failing under one generator only, every other
learner "rises" there although its metric is unchanged. Every comparison of ranks
is therefore computed twice: on all blocks (failures last, as the leaderboard
ranks), and on the *complete blocks* -- the blocks in which every compared learner
(those with a value in the group, on both sides of a comparison) has a value --
by :func:`complete_blocks`. The findings say how many blocks hold a fit without a
value, and call a rank change a change of the learner only where it holds on the
complete blocks.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypedDict

import numpy as np
import pandas as pd

from ..results._schema import check_results_frame, rankable_metric
from ._comparisons import compare
from ._ranking import MIN_REPEATS, OK, block_columns
from .leaderboard import (
    DEFAULT_TIE_TOLERANCE,
    critical_difference,
    leaderboard,
    selection_summary,
    warning_summary,
)

__all__ = [
    "REFERENCE_DATA_MODEL",
    "REFERENCE_GENERATOR",
    "REFERENCE_GRAPH",
    "SPLIT_AXES",
    "Analysis",
    "Comparison",
    "analyse",
    "complete_blocks",
    "failure_rates",
    "shift_verdicts",
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


def complete_blocks(
    frame: pd.DataFrame,
    metric: str,
    group_columns: Sequence[str],
    *,
    axis: str | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The rows of the blocks in which every compared learner has a value.

    In each group (the values of ``group_columns``), the *compared* learners are
    those with a value of ``metric`` (an ``"ok"`` row with a number) in the group
    -- with ``axis``, under every value of ``axis`` the group holds, so that both
    sides of a comparison order the same learners. A block (one scenario in one
    repeat) is *complete* when each compared learner has a value in it. Ranked on
    the complete blocks alone, a learner's rank answers "how does it compare with
    the others where all of them delivered", free of the places other learners'
    failures give away. A comparison pairs the two sides repeat by repeat (its
    intervals resample the repeats both sides share), so with ``axis`` only the
    complete blocks of the repeats that have complete blocks under every value of
    ``axis`` are kept: the blocks the comparison's figures are computed on.

    Parameters
    ----------
    frame : pandas.DataFrame
        Checked benchmark results.
    metric : str
        The canonical metric name.
    group_columns : sequence of str
        Grid columns that define the groups (not ``axis``).
    axis : str or None, default=None
        The compared grid column of a comparison, or None for a leaderboard.

    Returns
    -------
    rows : pandas.DataFrame
        The compared learners' rows of the complete blocks.
    blocks : pandas.DataFrame
        Per group: ``n_blocks`` (blocks in which some learner has a value),
        ``n_gaps`` (of them, those in which a learner with a value somewhere in
        the group -- on either side -- has none: a failed, timed-out, missing or
        undefined fit, ranked last, which moves the others' ranks) and
        ``n_complete`` (the complete ones; with ``axis``, those of the paired
        repeats).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({
    ...     "generator": "G", "n_features": 10, "density": 0.1, "n_samples": 50,
    ...     "repeat": [0, 0, 1, 1], "learner": ["a", "b"] * 2,
    ...     "f1": [0.2, 0.6, 0.3, None], "status": ["ok", "ok", "ok", "failed"]})
    >>> rows, blocks = complete_blocks(frame, "f1", ["generator"])
    >>> rows["repeat"].tolist()
    [0, 0]
    >>> blocks[["n_blocks", "n_gaps", "n_complete"]].values.tolist()
    [[2, 1, 1]]
    """
    group_columns = list(group_columns)
    # Integer keys: NaN grid values (a family's default density) are values too.
    group = (
        frame.groupby(group_columns, dropna=False).ngroup()
        if group_columns
        else pd.Series(0, index=frame.index)
    )
    keys = frame.assign(
        _group=group,
        _valid=(frame["status"] == OK) & frame[metric].notna(),
        _block=frame.groupby(block_columns(frame), dropna=False).ngroup(),
    )
    pairs = pd.MultiIndex.from_frame(keys[["_group", "learner"]])
    with_value = keys[keys["_valid"]].groupby(["_group", "learner"])
    # Per (group, learner) with a value: on how many sides; per group: how many
    # sides there are (1 for a leaderboard).
    if axis is None:
        sides = with_value.size().clip(upper=1)
        levels = pd.Series(1, index=keys["_group"].unique())
    else:
        sides = with_value[axis].nunique()
        levels = keys.groupby("_group")[axis].nunique()
    needed = levels.reindex(sides.index.get_level_values("_group")).to_numpy()
    compared = sides[sides.to_numpy() == needed]
    kept = keys[pairs.isin(compared.index)]
    n_compared = kept.groupby("_group")["learner"].transform("nunique")
    n_valid = kept.groupby("_block")["_valid"].transform("sum")
    complete = kept[n_valid == n_compared]
    if axis is not None:
        # Only repeats with complete blocks on every side are paired.
        sides_there = complete.groupby(["_group", "repeat"])[axis].transform("nunique")
        needed_there = levels.reindex(complete["_group"]).to_numpy()
        complete = complete[sides_there.to_numpy() == needed_there]
    # Gaps: blocks where a learner with a value anywhere in the group has none.
    anywhere = keys[pairs.isin(sides.index)]
    n_present = anywhere.groupby("_group")["learner"].transform("nunique")
    valid_here = anywhere.groupby("_block")["_valid"].transform("sum")
    gap = (valid_here > 0) & (valid_here < n_present)
    ranked = keys[keys["_valid"]].groupby("_group")["_block"].nunique()

    def per_group(table: pd.DataFrame) -> pd.Series:
        return table.groupby("_group")["_block"].nunique()

    blocks = keys.drop_duplicates("_group")[[*group_columns, "_group"]]
    for column, counts in (
        ("n_blocks", ranked),
        ("n_gaps", per_group(anywhere[gap])),
        ("n_complete", per_group(complete)),
    ):
        blocks[column] = blocks["_group"].map(counts).fillna(0).astype(int)
    blocks = blocks.drop(columns="_group").reset_index(drop=True)
    rows = complete.drop(columns=["_group", "_valid", "_block"])
    return rows, blocks


def failure_rates(frame: pd.DataFrame) -> pd.DataFrame:
    """How many fits of each learner did not finish, under each generator.

    Parameters
    ----------
    frame : pandas.DataFrame
        Benchmark results.

    Returns
    -------
    pandas.DataFrame
        One row per (learner, generator), sorted: ``n_fits`` and ``n_failed``
        (status other than ``"ok"``: failed, timed out, crashed, out of memory).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"generator": ["G", "G", "H"], "learner": "a",
    ...                       "status": ["ok", "failed", "ok"]})
    >>> failure_rates(frame).values.tolist()
    [['a', 'G', 2, 1], ['a', 'H', 1, 0]]
    """
    return (
        frame.assign(_failed=(frame["status"] != OK).astype(int))
        .groupby(["learner", "generator"], sort=True)["_failed"]
        .agg(n_fits="size", n_failed="sum")
        .reset_index()
    )


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
        :func:`~skggm_bench.benchmark.analysis.leaderboard.rank_shift` and
        :func:`~skggm_bench.benchmark.analysis.leaderboard.generator_agreement`.
    complete_shift, complete_agreement : pandas.DataFrame or None
        The same on the complete blocks (:func:`complete_blocks`); None when no
        block is complete on both sides.
    blocks : pandas.DataFrame
        Per group of the comparison (both sides together): ``n_blocks``,
        ``n_gaps`` and ``n_complete``, as :func:`complete_blocks`.
    selection : pandas.DataFrame
        :func:`~.leaderboard.selection_summary` per group of the comparison, both
        sides together.
    """

    axis: str
    source: str
    target: str
    shift: pd.DataFrame
    agreement: pd.DataFrame
    complete_shift: pd.DataFrame | None = None
    complete_agreement: pd.DataFrame | None = None
    blocks: pd.DataFrame = field(default_factory=pd.DataFrame)
    selection: pd.DataFrame = field(default_factory=pd.DataFrame)


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
        :func:`~.leaderboard.selection_summary`: the learners
        that selected every pair or none, and how often, over the whole grid.
    cd_selection : pandas.DataFrame
        The same per group of :attr:`cd`.
    complete_overall : pandas.DataFrame or None
        :attr:`overall` on the complete blocks (:func:`complete_blocks`); None
        when no block is complete.
    overall_blocks, cd_blocks : pandas.DataFrame
        Per group of :attr:`overall` and of :attr:`cd`: ``n_blocks``, ``n_gaps``
        and ``n_complete``, as :func:`complete_blocks`.
    failures : pandas.DataFrame
        :func:`failure_rates`.
    warned : pandas.DataFrame
        :func:`~.leaderboard.warning_summary`: the learners whose finished fits
        raised warnings, and how often.
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
    cd_selection: pd.DataFrame = field(default_factory=pd.DataFrame)
    complete_overall: pd.DataFrame | None = None
    overall_blocks: pd.DataFrame = field(default_factory=pd.DataFrame)
    cd_blocks: pd.DataFrame = field(default_factory=pd.DataFrame)
    failures: pd.DataFrame = field(default_factory=pd.DataFrame)
    warned: pd.DataFrame = field(default_factory=pd.DataFrame)


def _reference(values: Sequence[str], reference: str | None, preferred: str) -> str:
    if reference is not None:
        if reference not in values:
            raise ValueError(
                f"reference={reference!r} is not a generator of the results; "
                f"available: {sorted(values)}"
            )
        return reference
    return preferred if preferred in values else sorted(values)[0]


class _Options(TypedDict):
    """The keywords that :func:`analyse` passes to every table it makes."""

    n_bootstrap: int
    tie_tolerance: float


class _Keywords(_Options):
    """And those of a comparison along an axis."""

    axis: str
    by: list[str]


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
        (:func:`~skggm_bench.benchmark.analysis.leaderboard.leaderboard`).

    Returns
    -------
    Analysis

    Raises
    ------
    ValueError
        For an empty table, a metric that is not in it, an unknown ``reference``,
        or the errors of :func:`~.leaderboard.leaderboard`.

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
    options: _Options = {"n_bootstrap": n_bootstrap, "tie_tolerance": tie_tolerance}
    board = leaderboard(frame, metric, by=by, **options)
    overall = leaderboard(frame, metric, by=several, **options)
    cd = critical_difference(frame, metric, by=by, tie_tolerance=tie_tolerance)
    rows, overall_blocks = complete_blocks(frame, metric, ["generator", *several])
    complete_overall = (
        leaderboard(rows, metric, by=several, **options) if len(rows) else None
    )
    _, cd_blocks = complete_blocks(frame, metric, list(cd.attrs["by"]))
    comparisons = []
    generators = sorted(frame["generator"].unique())
    source = _reference(generators, reference, REFERENCE_GENERATOR)
    axes = [("generator", source, generators)]
    for column in several:
        levels = sorted(frame[column].unique())
        axes.append((column, _reference(levels, None, SPLIT_AXES[column]), levels))
    for axis, source, levels in axes:
        within = [c for c in by if c != axis and (axis, c) != ("graph", "density")]
        for target in (level for level in levels if level != source):
            arguments = (frame, metric, source, target)
            keywords: _Keywords = {"axis": axis, "by": within, **options}
            shift, agreement = compare(*arguments, **keywords)
            sides = frame[frame[axis].isin([source, target])]
            rows, blocks = complete_blocks(
                sides, metric, list(shift.attrs["by"]), axis=axis
            )
            complete_shift = complete_agreement = None
            if rows[axis].nunique() == 2:
                complete_shift, complete_agreement = compare(
                    rows, metric, source, target, **keywords
                )
            comparisons.append(
                Comparison(
                    axis,
                    source,
                    target,
                    shift,
                    agreement,
                    complete_shift,
                    complete_agreement,
                    blocks,
                    selection_summary(sides, by=list(shift.attrs["by"])),
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
        cd_selection=selection_summary(frame, by=list(cd.attrs["by"])),
        complete_overall=complete_overall,
        overall_blocks=overall_blocks,
        cd_blocks=cd_blocks,
        failures=failure_rates(frame),
        warned=warning_summary(frame),
    )


#: The verdicts of :func:`shift_verdicts`.
SIGNIFICANT = "significant"
NOT_SIGNIFICANT = "not significant"
TOO_FEW = "too few"
NO_DATA = "no data"
#: Significant on all blocks, but not on the complete blocks (or none is complete).
FROM_FAILURES = "from failures"
#: Significant on the complete blocks, the other way from all blocks.
REVERSED = "reversed"
#: Significant on the complete blocks, not on all blocks.
COMPLETE_ONLY = "significant on the complete blocks only"


def _group_key(values: Iterable[object]) -> tuple[object, ...]:
    return tuple(None if pd.isna(v) else v for v in values)


def shift_verdicts(comparison: Comparison) -> pd.Series:
    """Whether each learner's rank shift is a change of the learner.

    The rule of the findings and of the rank-shift table alike. In a group where
    every block holds a value of every compared learner, the shift's own
    interval decides: :data:`SIGNIFICANT` when it excludes 0, else
    :data:`NOT_SIGNIFICANT` (:data:`TOO_FEW` over fewer than ``MIN_REPEATS``
    paired repeats). In a group with gaps (a failed, missing or undefined fit
    ranks last and lifts the others), the shift on the complete blocks
    (:attr:`Comparison.complete_shift`) decides: :data:`SIGNIFICANT` only when
    it is significant there and on all blocks, in the same direction;
    :data:`FROM_FAILURES` when it is significant on all blocks only (or no
    block is complete on both sides); :data:`REVERSED` when it is significant
    on the complete blocks the other way; :data:`COMPLETE_ONLY` when it is
    significant on the complete blocks alone; :data:`TOO_FEW` when either
    judgement rests on fewer than ``MIN_REPEATS`` paired repeats. A learner
    without a value on a side has :data:`NO_DATA`.

    Parameters
    ----------
    comparison : Comparison
        From :attr:`Analysis.comparisons`.

    Returns
    -------
    pandas.Series
        One verdict per row of ``comparison.shift``, on its index.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({
    ...     "generator": ["DD"] * 10 + ["TO"] * 10, "n_features": 10,
    ...     "density": 0.1, "n_samples": 50, "repeat": list(range(5)) * 4,
    ...     "learner": (["a"] * 5 + ["b"] * 5) * 2,
    ...     "f1": [0.9] * 5 + [0.5] * 5 + [0.4] * 5 + [0.8] * 5, "status": "ok"})
    >>> [comparison] = analyse(frame, "f1", n_bootstrap=100).comparisons
    >>> shift_verdicts(comparison).tolist()
    ['significant', 'significant']
    """
    shift = comparison.shift
    by = list(shift.attrs.get("by", ()))
    complete = {}
    if comparison.complete_shift is not None:
        complete = {
            (*_group_key(record[c] for c in by), record["learner"]): record
            for record in comparison.complete_shift.to_dict("records")
        }
    gaps = {
        _group_key(record[c] for c in by): record["n_gaps"]
        for record in comparison.blocks.to_dict("records")
    }
    verdicts = []
    for record in shift.to_dict("records"):
        key = _group_key(record[c] for c in by)
        if record["comparison"] != "compared":
            verdicts.append(NO_DATA)
            continue
        if record["n_repeats"] < MIN_REPEATS:
            verdicts.append(TOO_FEW)
            continue
        if not gaps.get(key, 0):
            verdicts.append(SIGNIFICANT if record["significant"] else NOT_SIGNIFICANT)
            continue
        other = complete.get((*key, record["learner"]))
        if other is None or other["comparison"] != "compared":
            verdicts.append(FROM_FAILURES if record["significant"] else NOT_SIGNIFICANT)
        elif other["n_repeats"] < MIN_REPEATS:
            verdicts.append(TOO_FEW)
        elif not other["significant"]:
            verdicts.append(FROM_FAILURES if record["significant"] else NOT_SIGNIFICANT)
        elif record["rank_gain"] and np.sign(other["rank_gain"]) != np.sign(
            record["rank_gain"]
        ):
            verdicts.append(REVERSED)
        else:
            verdicts.append(SIGNIFICANT if record["significant"] else COMPLETE_ONLY)
    return pd.Series(verdicts, index=shift.index, dtype=object)
