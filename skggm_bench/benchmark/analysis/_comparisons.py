"""Comparisons between two values of a grid column: rank shift and agreement.

:func:`rank_shift` and :func:`generator_agreement` of
:mod:`~skggm_bench.benchmark.analysis.leaderboard` (which documents the procedure
and re-exports them): the two sides ranked once, the change in mean rank with a
paired bootstrap over the repeats both sides share, and Kendall's tau between the
two orderings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd
from sklearn.utils import check_random_state

from ._ranking import (
    COMPARED,
    DEFAULT_TIE_TOLERANCE,
    NO_DATA,
    GroupKey,
    as_columns,
    bootstrap_runs,
    check_bootstrap,
    check_by,
    check_frame,
    check_tie_tolerance,
    greater_is_better,
    group_boards,
    group_codes,
    insert_key,
    long_ranks,
    multiplicities,
    percentile_interval,
    percentile_intervals,
    ratio,
    scenario_columns,
    unit_sums,
)

__all__ = ["ALL_TIED", "compare", "generator_agreement", "rank_shift"]

#: A value of the agreement table's ``comparison``, where learners have values on
#: both sides but one side gives them all the same mean rank (Kendall's tau is
#: then undefined).
ALL_TIED = "all tied"


# --------------------------------------------------------------------------------------
# Comparisons between two values of a grid column (by default two generators)
# --------------------------------------------------------------------------------------


def _check_axis(frame: pd.DataFrame, axis: object) -> str:
    allowed = scenario_columns(frame)
    if not isinstance(axis, str) or axis not in allowed:
        raise ValueError(
            f"axis={axis!r} is not a grid column of these results; choose among "
            f"{allowed}"
        )
    return axis


def _check_level(frame: pd.DataFrame, axis: str, name: object, argument: str) -> object:
    available = sorted(frame[axis].dropna().unique())
    if name not in available:
        raise ValueError(
            f"{argument}={name!r} is not a {axis} of these results; available: "
            f"{available}"
        )
    return name


def _comparison_groups(frame: pd.DataFrame, axis: str, by: object) -> list[str]:
    """Grouping columns of a comparison along ``axis``: ``by``, never ``axis``.

    When the compared column is not the generator, the generator still splits the
    table, as it does every leaderboard.
    """
    columns = as_columns(by)
    if axis in columns:
        raise ValueError(f"by must not include {axis!r}: the two are compared")
    columns = check_by(columns, frame)
    return columns if axis != "generator" else columns[1:]


class _Comparison:
    """The two sides of a comparison along one grid column, ranked once.

    ``ranks[side]`` holds the block ranks of the rows whose ``axis`` value is that
    side's level, every learner of the whole table included, so that a learner
    absent on one side is "missing" there rather than silently dropped.
    """

    def __init__(
        self,
        frame: pd.DataFrame,
        metric: str,
        from_level: object,
        to_level: object,
        axis: object,
        by: object,
        tie_tolerance: object,
    ) -> None:
        frame, metric = check_frame(frame, metric)
        tie_tolerance = check_tie_tolerance(tie_tolerance)
        self.axis = _check_axis(frame, axis)
        # Named in errors as the public functions name them.
        arguments = ("from_generator", "to_generator")
        self.levels = {
            side: _check_level(frame, self.axis, level, argument)
            for side, level, argument in zip(
                ("from", "to"), (from_level, to_level), arguments, strict=True
            )
        }
        if self.levels["from"] == self.levels["to"]:
            what = (
                "generators" if self.axis == "generator" else f"values of {self.axis!r}"
            )
            raise ValueError(
                f"{arguments[0]} and {arguments[1]} are both {self.levels['from']!r}; "
                f"a comparison needs two different {what}"
            )
        self.group_columns = _comparison_groups(frame, self.axis, by)
        self.learners = sorted(frame["learner"].unique())
        self.ranks = {
            side: long_ranks(
                frame[frame[self.axis] == level], metric, self.learners, tie_tolerance
            )
            for side, level in self.levels.items()
        }
        self._paired: dict[bool, tuple[list[GroupKey], list[_Paired]]] = {}

    def paired(self, grouped: bool = True) -> tuple[list[GroupKey], list[_Paired]]:
        """The groups of either side (sorted keys) and their :class:`_Paired` arrays.

        One grouped pass per side (:func:`unit_sums`), not a pandas groupby per
        group; without ``grouped``, the whole table is one group (key ``()``).
        """
        if grouped in self._paired:
            return self._paired[grouped]
        columns = self.group_columns if grouped else []
        sides = list(self.ranks.values())
        if columns:
            grouping = pd.concat(
                [ranks[columns] for ranks in sides], ignore_index=True
            ).groupby(columns, sort=True, dropna=False)
            codes = grouping.ngroup().to_numpy()
            keys = [key for key, _ in grouping]
        else:
            codes, keys = group_codes(pd.concat(sides), []), [()]
        split = np.split(codes, [len(sides[0])])
        per_side = []
        for ranks, group in zip(sides, split, strict=True):
            pair_group, pair_repeat, arrays = unit_sums(ranks, group, self.learners)
            bounds = np.searchsorted(pair_group, np.arange(len(keys) + 1))
            per_side.append((bounds, pair_repeat, arrays))
        (bounds_from, repeats_from, from_), (bounds_to, repeats_to, to) = per_side
        paired = []
        for g in range(len(keys)):
            rows_from = slice(bounds_from[g], bounds_from[g + 1])
            rows_to = slice(bounds_to[g], bounds_to[g + 1])
            # The repeats both sides have are the pairs (each side's are sorted).
            units, at_from, at_to = np.intersect1d(
                repeats_from[rows_from],
                repeats_to[rows_to],
                assume_unique=True,
                return_indices=True,
            )
            paired.append(
                _Paired(
                    len(units),
                    *(
                        {
                            name: arrays[name][rows][at]
                            for name in ("rank", "rank_count", "value_count")
                        }
                        for arrays, rows, at in (
                            (from_, rows_from, at_from),
                            (to, rows_to, at_to),
                        )
                    ),
                )
            )
        self._paired[grouped] = keys, paired
        return keys, paired


class _Paired(NamedTuple):
    """A group's per-repeat rank sums and counts and value counts on both sides.

    Each array is (n_units, k), over the repeats both sides have (sorted).
    """

    n_units: int
    source: dict[str, np.ndarray]
    target: dict[str, np.ndarray]


def _mean_ranks(weights: np.ndarray, arrays: dict[str, np.ndarray]) -> np.ndarray:
    # Rank sums (of whole and half numbers) and counts are exact in any order of
    # addition, so one product with the multiplicities gives every replicate.
    return ratio(weights @ arrays["rank"], weights @ arrays["rank_count"])


def _paired_rank_gains(
    paired: list[_Paired],
    k: int,
    confidence: float,
    n_bootstrap: int,
    rng: np.random.RandomState,
) -> np.ndarray:
    """Mean rank under ``from`` minus under ``to`` per group, bootstrapped over the
    shared repeats: (n_groups, 3, k), the point and the interval's bounds.

    The groups draw one after the other (none without units), many at a time.
    """
    gains = np.full((len(paired), 3, k), np.nan)
    n_units = np.array([pair.n_units for pair in paired], dtype=int)
    for start, stop, indices in bootstrap_runs(n_units, n_bootstrap, rng, k):
        n = indices.shape[2]
        if n == 0:
            continue
        sides = [
            {
                name: np.stack(
                    [getattr(paired[g], side)[name] for g in range(start, stop)]
                )
                for name in ("rank", "rank_count")
            }
            for side in ("source", "target")
        ]
        gains[start:stop, 0] = ratio(
            sides[0]["rank"].sum(axis=1), sides[0]["rank_count"].sum(axis=1)
        ) - ratio(sides[1]["rank"].sum(axis=1), sides[1]["rank_count"].sum(axis=1))
        weights = multiplicities(indices, n)
        replicates = _mean_ranks(weights, sides[0]) - _mean_ranks(weights, sides[1])
        low, high = percentile_intervals(replicates, confidence, n_units[start:stop])
        gains[start:stop, 1], gains[start:stop, 2] = low, high
    return gains


def rank_shift(
    frame: pd.DataFrame,
    metric: str = "f1",
    from_generator: str = "DiagonalDominance",
    to_generator: str = "TriangulatedOrthogonalization",
    *,
    axis: str = "generator",
    by: Sequence[str] = ("density",),
    confidence: float = 0.95,
    n_bootstrap: int = 2000,
    random_state: int | np.random.RandomState | None = 0,
    tie_tolerance: float = DEFAULT_TIE_TOLERANCE,
) -> pd.DataFrame:
    """How each learner's rank changes from one generator to another.

    This is the paper's main point in one table: learners validated on
    diagonally dominant matrices are ranked differently when the ground truth
    comes from a sampler that does not shrink the off-diagonal entries.

    Parameters
    ----------
    frame : pandas.DataFrame
        Benchmark results containing both generators.
    metric : str, default="f1"
        Metric to rank by (direction as in :func:`leaderboard`).
    from_generator, to_generator : str
        The reference value of ``axis`` and the one compared with it (two
        generators by default).
    axis : str, default="generator"
        The grid column whose two values are compared, e.g. ``"data_model"``.
        Every other grid column is part of the scenario; when ``axis`` is not the
        generator, the generator is always a grouping column.
    by : sequence of str, default=("density",)
        Grid columns that split the table (not ``axis``).
    confidence : float, default=0.95
        Coverage of the bootstrap interval of the rank change.
    n_bootstrap : int, default=2000
        Bootstrap replicates.
    random_state : int, RandomState instance or None, default=0
        Seed of the bootstraps.
    tie_tolerance : float, default=DEFAULT_TIE_TOLERANCE
        Relative difference within which two values of a block share their rank
        (as in :func:`leaderboard`).

    Returns
    -------
    shift : pandas.DataFrame
        One row per (group, learner), ordered by ``position_to`` (learners
        without a position last), with the grouping columns, ``learner``,
        ``position_from``, ``position_to`` (nullable integers),
        ``places_gained`` (``position_from - position_to``: positive means the
        learner ranks better under ``to_generator``), ``mean_rank_from``,
        ``mean_rank_to``, ``rank_gain`` (``mean_rank_from - mean_rank_to``) with
        its paired bootstrap interval ``rank_gain_low`` / ``rank_gain_high``
        (resampling the repeats both sides share), ``significant`` (that
        interval excludes 0), ``comparison`` (``"compared"``, or ``"no data"``
        when the learner has no value in the group on one side or both: then
        the positions, gains and interval are missing and ``significant`` is
        False), ``mean_metric_from``, ``mean_metric_to``, ``n_failed_from``,
        ``n_failed_to`` and ``n_repeats`` (the repeats both sides share: the
        units of the interval). ``shift.attrs`` records ``metric``, ``axis``,
        ``from_generator``, ``to_generator``, ``by`` and ``confidence``.

    Raises
    ------
    ValueError
        If a generator is not in ``frame``, the two are the same, ``axis`` is
        not a grid column or ``by`` includes it (plus the errors of
        :func:`leaderboard`).

    See Also
    --------
    generator_agreement : The same comparison summarised by Kendall's tau.
    format_rank_shift : A compact display version of this table.

    Examples
    --------
    Under ``DD`` learner ``a`` wins; under ``TO`` learner ``b`` does.

    >>> import pandas as pd
    >>> from skggm_bench.benchmark.analysis.leaderboard import rank_shift
    >>> rows = [
    ...     {"generator": g, "n_features": 10, "density": 0.1, "n_samples": 50,
    ...      "repeat": r, "learner": name, "f1": f1, "status": "ok"}
    ...     for r in range(4)
    ...     for g, scores in [("DD", {"a": 0.5, "b": 0.1}),
    ...                       ("TO", {"a": 0.3, "b": 0.8})]
    ...     for name, f1 in scores.items()]
    >>> table = rank_shift(pd.DataFrame(rows), "f1", "DD", "TO")
    >>> table[["learner", "position_from", "position_to", "places_gained"]]
      learner  position_from  position_to  places_gained
    0       b              2            1              1
    1       a              1            2             -1
    """
    check_bootstrap(confidence, n_bootstrap)
    comparison = _Comparison(
        frame, metric, from_generator, to_generator, axis, by, tie_tolerance
    )
    return _shift_table(comparison, metric, confidence, n_bootstrap, random_state)


def _shift_table(
    comparison: _Comparison,
    metric: str,
    confidence: float,
    n_bootstrap: int,
    random_state: int | np.random.RandomState | None,
) -> pd.DataFrame:
    """The table of :func:`rank_shift` for a comparison."""
    group_columns = comparison.group_columns
    learners = comparison.learners
    rng = check_random_state(random_state)
    higher_is_better = greater_is_better(metric)
    boards = {
        side: group_boards(
            ranks,
            group_columns,
            learners,
            higher_is_better,
            confidence,
            n_bootstrap,
            rng,
        )
        for side, ranks in comparison.ranks.items()
    }
    kept = ["learner", "position", "mean_rank", "mean_metric", "n_failed"]
    table = pd.merge(
        boards["from"][[*group_columns, *kept]],
        boards["to"][[*group_columns, *kept]],
        on=[*group_columns, "learner"],
        how="outer",
        suffixes=("_from", "_to"),
    )
    keys, paired = comparison.paired()
    points = _paired_rank_gains(paired, len(learners), confidence, n_bootstrap, rng)
    gains = []
    for key, pair, (point, low, high) in zip(keys, paired, points, strict=True):
        part = pd.DataFrame(
            {
                "learner": learners,
                "n_repeats": pair.n_units,
                "rank_gain": point,
                "rank_gain_low": low,
                "rank_gain_high": high,
            }
        )
        gains.append(insert_key(part, group_columns, key))
    table = table.merge(pd.concat(gains), on=[*group_columns, "learner"], how="left")
    compared = table["position_from"].notna() & table["position_to"].notna()
    table["comparison"] = np.where(compared, COMPARED, NO_DATA)
    for column in ("rank_gain", "rank_gain_low", "rank_gain_high"):
        table[column] = table[column].where(compared)
    table["places_gained"] = table["position_from"] - table["position_to"]
    table["significant"] = compared & (
        (table["rank_gain_low"] > 0) | (table["rank_gain_high"] < 0)
    )
    columns = [
        *group_columns,
        "learner",
        "position_from",
        "position_to",
        "places_gained",
        "mean_rank_from",
        "mean_rank_to",
        "rank_gain",
        "rank_gain_low",
        "rank_gain_high",
        "significant",
        "comparison",
        "mean_metric_from",
        "mean_metric_to",
        "n_failed_from",
        "n_failed_to",
        "n_repeats",
    ]
    table = table[columns].sort_values(
        [*group_columns, "position_to", "learner"], kind="stable", na_position="last"
    )
    table = table.reset_index(drop=True)
    table.attrs.update(
        metric=metric,
        axis=comparison.axis,
        from_generator=comparison.levels["from"],
        to_generator=comparison.levels["to"],
        by=tuple(group_columns),
        confidence=float(confidence),
    )
    return table


def _kendall_tau_b(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's tau-b between ``x[b]`` and ``y[b]`` for every row ``b``.

    Entries that are NaN in either array are left out (as are all pairs they form).
    A row where either side has no untied pair gets NaN, as in
    :func:`scipy.stats.kendalltau`.
    """
    # Mean ranks are ratios of small integers: rounding removes the 1e-16 noise that
    # would otherwise turn an exact tie into a concordant or discordant pair.
    x, y = np.round(x, 9), np.round(y, 9)
    i, j = np.triu_indices(x.shape[1], k=1)
    valid = ~(np.isnan(x) | np.isnan(y))
    pair = valid[:, i] & valid[:, j]
    with np.errstate(invalid="ignore"):
        sign_x = np.where(pair, np.sign(x[:, i] - x[:, j]), 0.0)
        sign_y = np.where(pair, np.sign(y[:, i] - y[:, j]), 0.0)
    # tau-b = (concordant - discordant) / sqrt(untied pairs in x * untied in y).
    numerator = (sign_x * sign_y).sum(axis=1)
    untied = np.abs(sign_x).sum(axis=1) * np.abs(sign_y).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(untied > 0, numerator / np.sqrt(untied), np.nan)


def _agreement_rows(
    paired: list[_Paired],
    confidence: float,
    n_bootstrap: int,
    rng: np.random.RandomState,
) -> list[dict[str, object]]:
    """Kendall's tau and its interval per group (drawn one group after the other)."""
    if not paired:
        return []
    n_units = np.array([pair.n_units for pair in paired], dtype=int)
    k = paired[0].source["rank"].shape[1]
    rows: list[dict[str, object]] = []
    for start, stop, indices in bootstrap_runs(n_units, n_bootstrap, rng, k):
        n = indices.shape[2]
        weights = multiplicities(indices, n) if n else indices.astype(float)
        rows.extend(
            _agreement_row(paired[g], weights[g - start], confidence)
            for g in range(start, stop)
        )
    return rows


def _agreement_row(
    pair: _Paired, weights: np.ndarray, confidence: float
) -> dict[str, object]:
    source, target = pair.source, pair.target
    # Learners with a value on both sides are ordered; the others have no place.
    usable = (source["value_count"].sum(axis=0) > 0) & (
        target["value_count"].sum(axis=0) > 0
    )
    n_learners = int(usable.sum())
    nan_row = {
        "tau": np.nan,
        "tau_low": np.nan,
        "tau_high": np.nan,
        "n_learners": n_learners,
        "n_repeats": pair.n_units,
        "comparison": NO_DATA,
    }
    if n_learners < 2:
        return nan_row

    def mean_ranks(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return (
            _mean_ranks(weights, source)[:, usable],
            _mean_ranks(weights, target)[:, usable],
        )

    tau = _kendall_tau_b(*mean_ranks(np.ones((1, pair.n_units))))[0]
    replicates = _kendall_tau_b(*mean_ranks(weights))
    low, high = percentile_interval(replicates[:, None], confidence, pair.n_units)
    return {
        **nan_row,
        "tau": tau,
        "tau_low": low[0],
        "tau_high": high[0],
        # tau-b is undefined only where one side has no untied pair.
        "comparison": COMPARED if not np.isnan(tau) else ALL_TIED,
    }


def generator_agreement(
    frame: pd.DataFrame,
    metric: str = "f1",
    from_generator: str = "DiagonalDominance",
    to_generator: str = "TriangulatedOrthogonalization",
    *,
    axis: str = "generator",
    by: Sequence[str] = ("density",),
    confidence: float = 0.95,
    n_bootstrap: int = 2000,
    random_state: int | np.random.RandomState | None = 0,
    tie_tolerance: float = DEFAULT_TIE_TOLERANCE,
) -> pd.DataFrame:
    """Kendall's tau between the learner orderings under two generators.

    The ordering under each generator is the learners' mean ranks (as in
    :func:`leaderboard`); their agreement is Kendall's tau-b (the variant of
    :func:`scipy.stats.kendalltau`, which handles tied mean ranks): 1 when the
    two generators order the learners identically, -1 when one reverses the
    other, near 0 when the order under one says nothing about the other.
    Learners without a value in a group under either generator are left out of
    that group's tau. The interval is a paired percentile bootstrap over the
    repeats both generators share (each replicate recomputes both orderings
    from the same resampled repeats).

    Parameters
    ----------
    frame : pandas.DataFrame
        Benchmark results containing both generators.
    metric : str, default="f1"
        Metric to rank by (direction as in :func:`leaderboard`).
    from_generator, to_generator : str
        The two values of ``axis`` compared (tau is symmetric in them).
    axis : str, default="generator"
        The grid column whose two values are compared, e.g. ``"data_model"``.
    by : sequence of str, default=("density",)
        Grid columns that split the table (not ``axis``).
    confidence : float, default=0.95
        Coverage of the bootstrap interval.
    n_bootstrap : int, default=2000
        Bootstrap replicates.
    random_state : int, RandomState instance or None, default=0
        Seed of the bootstrap.
    tie_tolerance : float, default=DEFAULT_TIE_TOLERANCE
        Relative difference within which two values of a block share their rank
        (as in :func:`leaderboard`).

    Returns
    -------
    agreement : pandas.DataFrame
        One row per group (``scope == "group"``, with the grouping columns; none
        when there are no grouping columns) and a last row over the whole grid
        (``scope == "overall"``, grouping columns missing), with ``tau``,
        ``tau_low``, ``tau_high``, ``n_learners`` (the learners ordered),
        ``n_repeats`` (the paired repeats) and ``comparison`` (``"compared"``;
        ``"no data"`` when fewer than two learners have values on both sides;
        ``"all tied"`` when one side gives every learner the same mean rank;
        tau and its interval are NaN in the last two).
        ``agreement.attrs`` records ``metric``, ``axis``, ``from_generator``,
        ``to_generator``, ``by`` and ``confidence``.

    Raises
    ------
    ValueError
        As :func:`rank_shift`.

    See Also
    --------
    rank_shift : Which learners move, and by how much.

    Examples
    --------
    Three learners; ``TO`` reverses the order of ``DD``.

    >>> import pandas as pd
    >>> from skggm_bench.benchmark.analysis.leaderboard import generator_agreement
    >>> rows = [
    ...     {"generator": g, "n_features": 10, "density": 0.1, "n_samples": 50,
    ...      "repeat": r, "learner": name, "f1": f1, "status": "ok"}
    ...     for r in range(4)
    ...     for g, scores in [("DD", {"a": 0.9, "b": 0.5, "c": 0.1}),
    ...                       ("TO", {"a": 0.2, "b": 0.4, "c": 0.6})]
    ...     for name, f1 in scores.items()]
    >>> agreement = generator_agreement(pd.DataFrame(rows), "f1", "DD", "TO")
    >>> agreement[["scope", "density", "tau", "n_learners", "comparison"]]
         scope  density  tau  n_learners comparison
    0    group      0.1 -1.0           3   compared
    1  overall      NaN -1.0           3   compared
    """
    check_bootstrap(confidence, n_bootstrap)
    comparison = _Comparison(
        frame, metric, from_generator, to_generator, axis, by, tie_tolerance
    )
    return _agreement_table(comparison, metric, confidence, n_bootstrap, random_state)


def _agreement_table(
    comparison: _Comparison,
    metric: str,
    confidence: float,
    n_bootstrap: int,
    random_state: int | np.random.RandomState | None,
) -> pd.DataFrame:
    """The table of :func:`generator_agreement` for a comparison."""
    group_columns = comparison.group_columns
    rng = check_random_state(random_state)
    # Without grouping columns the one group is the whole grid: the overall row says it.
    keys, paired = comparison.paired() if group_columns else ([], [])
    rows = [
        {"scope": "group", **dict(zip(group_columns, key, strict=True)), **row}
        for key, row in zip(
            keys, _agreement_rows(paired, confidence, n_bootstrap, rng), strict=True
        )
    ]
    _, overall = comparison.paired(grouped=False)
    rows.append(
        {
            "scope": "overall",
            **_agreement_rows(overall, confidence, n_bootstrap, rng)[0],
        }
    )
    table = pd.DataFrame(
        rows,
        columns=[
            "scope",
            *group_columns,
            "tau",
            "tau_low",
            "tau_high",
            "n_learners",
            "n_repeats",
            "comparison",
        ],
    )
    table.attrs.update(
        metric=metric,
        axis=comparison.axis,
        from_generator=comparison.levels["from"],
        to_generator=comparison.levels["to"],
        by=tuple(group_columns),
        confidence=float(confidence),
    )
    return table


def compare(
    frame: pd.DataFrame,
    metric: str,
    from_generator: str,
    to_generator: str,
    *,
    axis: str = "generator",
    by: Sequence[str] = ("density",),
    confidence: float = 0.95,
    n_bootstrap: int = 2000,
    random_state: int | np.random.RandomState | None = 0,
    tie_tolerance: float = DEFAULT_TIE_TOLERANCE,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`rank_shift` and :func:`generator_agreement` with the same arguments.

    The two tables, each as its function returns it, from one ranking of the two
    sides and one set of per-repeat arrays (the costly part of both).
    """
    check_bootstrap(confidence, n_bootstrap)
    comparison = _Comparison(
        frame, metric, from_generator, to_generator, axis, by, tie_tolerance
    )
    return (
        _shift_table(comparison, metric, confidence, n_bootstrap, random_state),
        _agreement_table(comparison, metric, confidence, n_bootstrap, random_state),
    )
