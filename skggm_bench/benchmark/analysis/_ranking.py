"""Ranks within blocks and the bootstrap over repeats: the leaderboard's machinery.

Private to the harness: :mod:`~skggm_bench.benchmark.analysis.leaderboard` builds
its public
tables from these. A *block* is one scenario (a point of the grid) in one repeat;
learners are ranked within blocks, and intervals resample repeats (the independent
unit of the paired design) with the same resampled repeats for every learner.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Iterable, Iterator

import numpy as np
import pandas as pd
import scipy.stats

from ...metrics import get_metric
from ..results._schema import GRID_COLUMNS, check_results_frame, rankable_metric

__all__ = [
    "COMPARED",
    "DEFAULT_TIE_TOLERANCE",
    "MIN_REPEATS",
    "MISSING",
    "NO_DATA",
    "OK",
    "REQUIRED",
    "GroupKey",
    "as_columns",
    "block_columns",
    "block_values",
    "bootstrap_indices",
    "bootstrap_runs",
    "bootstrap_weights",
    "check_bootstrap",
    "check_by",
    "check_frame",
    "check_tie_tolerance",
    "greater_is_better",
    "group_boards",
    "group_codes",
    "groups",
    "insert_key",
    "long_ranks",
    "multiplicities",
    "percentile_interval",
    "percentile_intervals",
    "rank_matrix",
    "ratio",
    "resampled_sums",
    "scenario_columns",
    "unit_sums",
    "wide_groups",
]

REQUIRED = (*GRID_COLUMNS, "learner", "repeat", "status")
#: Relative difference within which two metric values of a block are a tie. Two
#: solvers of one problem that stop at slightly different iterates differ by their
#: stopping rule, not by quality: scikit-learn's GraphicalLasso at ``tol=1e-4`` and
#: ``tol=1e-5`` (``enet_tol=1e-6``) differ in KL divergence by up to 1.1e-5
#: relative on p = 10, n = 100, and two pcglasso solvers by a median 4.9e-5
#: (issue 28). 1e-4 covers such solver noise and stays below the differences
#: shown in the tables (two decimals).
DEFAULT_TIE_TOLERANCE = 1e-4
#: The fewest repeats whose bootstrap intervals are read as 95% intervals. The
#: percentile bootstrap over n repeats has C(2n - 1, n) distinct resamples: 10 at
#: n = 3, 35 at n = 4, 126 at n = 5. Putting 2.5% of them in each tail takes at
#: least 40, so with fewer than 5 repeats the interval's bounds are the extreme
#: resamples, not percentiles: the tables mark such intervals and the findings say
#: "too few repeats to tell" rather than "significant".
MIN_REPEATS = 5
OK = "ok"
MISSING = "missing"
#: ``comparison`` values of the comparison tables.
COMPARED = "compared"
NO_DATA = "no data"
#: A group's values of its grouping columns (scenario values: str, int, float, NaN).
GroupKey = tuple[object, ...]


# --------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------


def scenario_columns(frame: pd.DataFrame) -> list[str]:
    """The grid columns of ``frame`` (all of :data:`GRID_COLUMNS`, once checked)."""
    return [column for column in GRID_COLUMNS if column in frame.columns]


def block_columns(frame: pd.DataFrame) -> list[str]:
    """The columns that identify a block: the scenario and the repeat."""
    return [*scenario_columns(frame), "repeat"]


def check_frame(frame: object, metric: str) -> tuple[pd.DataFrame, str]:
    """The result table, checked, and the canonical name of the metric to rank by."""
    if not isinstance(metric, str):
        raise TypeError(f"metric must be a metric name (str), got {metric!r}")
    table = check_results_frame(frame, what="frame")
    metric = rankable_metric(metric, table)
    if not pd.api.types.is_numeric_dtype(table[metric]):
        raise ValueError(
            f"metric column {metric!r} must be numeric, got dtype {table[metric].dtype}"
        )
    if table.empty:
        raise ValueError("frame has no rows: there is nothing to rank")
    key = [*block_columns(table), "learner"]
    duplicated = table.duplicated(subset=key, keep=False)
    if duplicated.any():
        first = table.loc[duplicated, key].iloc[0].to_dict()
        raise ValueError(
            f"frame has {int(duplicated.sum())} rows sharing a task key; each "
            f"(scenario, repeat, learner) must appear once, e.g. {first}"
        )
    return table, metric


def greater_is_better(metric: str) -> bool:
    return get_metric(metric).greater_is_better


def as_columns(by: object) -> list[str]:
    if isinstance(by, str):
        by = (by,)
    if not isinstance(by, Iterable):
        raise TypeError(f"by must be a sequence of column names, got {by!r}")
    return list(by)


def check_by(by: object, frame: pd.DataFrame) -> list[str]:
    """``by`` as a list of grid columns, generator first (always present)."""
    by = as_columns(by)
    allowed = scenario_columns(frame)
    unknown = [column for column in by if column not in allowed]
    if unknown:
        raise ValueError(f"by={unknown} are not grid columns; choose among {allowed}")
    # Leaderboards are always split by generator: pooling generators would hide the
    # very rank shift the benchmark exists to show.
    return ["generator", *dict.fromkeys(c for c in by if c != "generator")]


def check_bootstrap(confidence: object, n_bootstrap: object) -> None:
    # numbers.Real's stub declares only < and <=, not the > that `0 < x` falls back
    # to at run time (int's < returns NotImplemented for a non-int Real).
    if not isinstance(confidence, numbers.Real) or not 0 < confidence < 1:  # type: ignore[operator]
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    if (
        isinstance(n_bootstrap, bool)
        or not isinstance(n_bootstrap, numbers.Integral)
        or n_bootstrap < 1
    ):
        raise ValueError(f"n_bootstrap must be a positive integer, got {n_bootstrap!r}")


def groups(
    table: pd.DataFrame, columns: list[str]
) -> list[tuple[GroupKey, pd.DataFrame]]:
    """``(key, part)`` per value of ``columns`` (sorted; NaN is a value), or one."""
    if not columns:
        return [((), table)]
    return list(table.groupby(columns, sort=True, dropna=False))


def insert_key(table: pd.DataFrame, columns: list[str], key: GroupKey) -> pd.DataFrame:
    for index, (column, value) in enumerate(zip(columns, key, strict=True)):
        table.insert(index, column, value)
    return table


# --------------------------------------------------------------------------------------
# Ranks within blocks
# --------------------------------------------------------------------------------------


def block_values(
    frame: pd.DataFrame, metric: str, learners: list[str]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Wide (block x learner) metric values (NaN unless ok) and statuses."""
    block = block_columns(frame)
    values = frame[metric].astype(float).where(frame["status"] == OK)
    wide = frame.assign(_value=values).pivot(
        index=block, columns="learner", values="_value"
    )
    wide = wide.reindex(columns=learners)
    status = (
        frame.pivot(index=block, columns="learner", values="status")
        .reindex(columns=learners)
        .fillna(MISSING)
    )
    return wide, status


def check_tie_tolerance(tie_tolerance: object) -> float:
    """``tie_tolerance`` as a float in [0, 1), or a clear error."""
    if (
        isinstance(tie_tolerance, bool)
        or not isinstance(tie_tolerance, numbers.Real)
        or not 0 <= tie_tolerance < 1  # type: ignore[operator]  # as in check_bootstrap
    ):
        raise ValueError(
            "tie_tolerance must be a relative difference in [0, 1) (e.g. 1e-4; 0 "
            f"for exact ties only), got {tie_tolerance!r}"
        )
    return float(tie_tolerance)


def _snap_ties(signed: np.ndarray, tie_tolerance: float) -> np.ndarray:
    """Each value replaced by the best value of its chain of near-equal values.

    Within a row, sorted from best to worst, a value is tied with the one before
    it when ``|a - b| <= tie_tolerance * max(|a|, |b|)``; a chain of such ties
    shares one value (hence one rank). ``-inf`` (failures) stays apart from every
    finite value.
    """
    if tie_tolerance == 0 or signed.size == 0:
        return signed
    order = np.argsort(-signed, axis=1, kind="stable")
    ordered = np.take_along_axis(signed, order, axis=1)
    before, after = ordered[:, :-1], ordered[:, 1:]
    with np.errstate(invalid="ignore"):
        gap = before - after  # -inf - -inf is NaN: equal failures, a tie anyway
        scale = np.maximum(np.abs(before), np.abs(after))
        tied = np.isnan(gap) | (np.isfinite(gap) & (gap <= tie_tolerance * scale))
    starts = np.concatenate([np.ones((len(ordered), 1), bool), ~tied], axis=1)
    positions = np.where(starts, np.arange(ordered.shape[1]), 0)
    first = np.maximum.accumulate(positions, axis=1)
    snapped = np.empty_like(signed)
    np.put_along_axis(
        snapped, order, np.take_along_axis(ordered, first, axis=1), axis=1
    )
    return snapped


def rank_matrix(
    values: np.ndarray, metric: str, tie_tolerance: float = DEFAULT_TIE_TOLERANCE
) -> np.ndarray:
    """Ranks within each row (1 = best); NaN values last; rows without a value NaN.

    Values within ``tie_tolerance`` of each other (relative, chained from the
    best down, see :func:`_snap_ties`) share their average rank.
    """
    # Rank descending on a signed copy so "higher is better" holds for every metric;
    # NaN (failures, timeouts, missing rows, undefined metrics) becomes the worst
    # value, so those entries share the last places.
    sign = 1.0 if greater_is_better(metric) else -1.0
    signed = np.where(np.isnan(values), -np.inf, sign * values)
    signed = _snap_ties(signed, tie_tolerance)
    ranks: np.ndarray = scipy.stats.rankdata(-signed, method="average", axis=1)
    # A block where nobody has a value orders nobody: sharing the average rank
    # there would pull every learner towards the middle, and give each a position.
    ranks[~(~np.isnan(values)).any(axis=1)] = np.nan
    return ranks


def wide_groups(
    wide: pd.DataFrame, group_columns: list[str]
) -> list[tuple[GroupKey, pd.DataFrame]]:
    """``(key, rows of wide)`` per group, from the block index of ``wide``."""
    keys = wide.index.to_frame(index=False)
    return [
        (key, wide.iloc[part.index.to_numpy()])
        for key, part in groups(keys, group_columns)
    ]


def long_ranks(
    frame: pd.DataFrame,
    metric: str,
    learners: list[str],
    tie_tolerance: float = DEFAULT_TIE_TOLERANCE,
) -> pd.DataFrame:
    """:func:`scenario_ranks` of a checked ``frame`` over the given ``learners``."""
    wide, status = block_values(frame, metric, learners)
    ranks = pd.DataFrame(
        rank_matrix(wide.to_numpy(float), metric, tie_tolerance),
        index=wide.index,
        columns=wide.columns,
    )
    long = pd.DataFrame(
        {
            "value": wide.stack(future_stack=True),
            "status": status.stack(future_stack=True),
            "rank": ranks.stack(future_stack=True),
        }
    )
    return long.reset_index()


# --------------------------------------------------------------------------------------
# Bootstrap over repeats
# --------------------------------------------------------------------------------------


def ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, numerator / np.maximum(denominator, 1), np.nan)


def bootstrap_indices(
    n_units: int, n_bootstrap: int, rng: np.random.RandomState
) -> np.ndarray:
    return rng.randint(n_units, size=(n_bootstrap, n_units))


def bootstrap_weights(
    n_units: int, n_bootstrap: int, rng: np.random.RandomState
) -> np.ndarray:
    """:func:`multiplicities` of fresh bootstrap draws; no columns without units."""
    if n_units == 0:
        return np.zeros((n_bootstrap, 0))
    return multiplicities(bootstrap_indices(n_units, n_bootstrap, rng), n_units)


def multiplicities(indices: np.ndarray, n_units: int) -> np.ndarray:
    """How often each unit is drawn in each replicate: shape (..., n_units).

    ``indices`` holds one replicate's draws in its last axis, any leading axes
    (replicates, groups) kept. A resampled sum is then one matrix product,
    ``weights @ per_unit_sums``, however many quantities are resampled together.
    """
    replicates = indices.reshape(-1, indices.shape[-1])
    offsets = np.arange(len(replicates))[:, None] * n_units
    counts = np.bincount(
        (replicates + offsets).ravel(), minlength=len(replicates) * n_units
    )
    return counts.reshape(*indices.shape[:-1], n_units).astype(float)


#: The most elements of one temporary array of a batched bootstrap (32 MB of float64).
_BATCH_ELEMENTS = 2**22


def bootstrap_runs(
    n_units: np.ndarray, n_bootstrap: int, rng: np.random.RandomState, width: int
) -> Iterator[tuple[int, int, np.ndarray]]:
    """The bootstrap draws of successive groups, several groups at a time.

    Yields ``(start, stop, indices)``: ``indices[g - start]``, of shape
    ``(n_bootstrap, n_units[g])``, is what :func:`bootstrap_indices` would draw for
    group ``g`` after the groups before it (a group without units draws nothing).
    Successive groups with as many units draw in one call: ``RandomState.randint``
    fills its array element by element from one stream, so one draw of shape
    (groups, n_bootstrap, n_units) is, bit for bit, the draws of the groups one
    after the other. A batch holds at most as many groups as keep an array of
    ``(groups, n_bootstrap, n_units, width)`` elements (the caller's largest) under
    :data:`_BATCH_ELEMENTS`.
    """
    start = 0
    while start < len(n_units):
        n = int(n_units[start])
        most = max(1, _BATCH_ELEMENTS // (n_bootstrap * max(n, 1) * max(width, 1)))
        stop = start + 1
        while stop < len(n_units) and n_units[stop] == n and stop - start < most:
            stop += 1
        shape = (stop - start, n_bootstrap, n)
        indices = rng.randint(n, size=shape) if n else np.zeros(shape, dtype=int)
        yield start, stop, indices
        start = stop


def resampled_sums(sums: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Sums over each replicate's drawn units, in the order drawn: (groups, B, k).

    ``sums`` is (groups, n_units, k), ``indices`` (groups, B, n_units). The sums of
    floats that are not whole or half numbers (metric values) depend on the order
    of addition; this adds them as ``sums[g][indices[g]].sum(axis=1)`` does, group
    by group, so that the replicates do not depend on how groups are batched.
    Rank sums and counts are exact in any order: ``weights @ sums`` gives them.
    """
    n_groups, n_units, k = sums.shape
    rows = indices + (np.arange(n_groups) * n_units)[:, None, None]
    flat = sums.reshape(n_groups * n_units, k)
    if k == 1:
        # One column: numpy sums a contiguous axis pairwise, not in order.
        one: np.ndarray = np.take(flat, rows, axis=0).sum(axis=2)
        return one
    # Several columns: numpy adds the drawn units' rows one after the other, as
    # here (without the array of every drawn row).
    summed: np.ndarray = np.take(flat, rows[:, :, 0], axis=0)
    for unit in range(1, n_units):
        summed += np.take(flat, rows[:, :, unit], axis=0)
    return summed


def percentile_interval(
    replicates: np.ndarray, confidence: float, n_units: int
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval per column; NaN when fewer than two units exist."""
    k = replicates.shape[1]
    if n_units < 2:
        return np.full(k, np.nan), np.full(k, np.nan)
    alpha = 100 * (1 - confidence) / 2
    with warnings.catch_warnings():
        # A learner that failed in every resampled repeat has all-NaN replicates.
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high = np.nanpercentile(replicates, [alpha, 100 - alpha], axis=0)
    return low, high


def percentile_intervals(
    replicates: np.ndarray, confidence: float, n_units: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`percentile_interval` of many groups: (groups, B, k) -> (groups, k).

    ``np.nanpercentile`` along an axis calls itself once per column (to drop that
    column's NaN). Here ``np.percentile`` reads the columns without NaN at once,
    and the others sorted (NaN last), those with as many values together, on
    their values alone: the same order statistics and the same interpolation,
    hence the same numbers.
    """
    n_groups, n_bootstrap, k = replicates.shape
    alpha = 100 * (1 - confidence) / 2
    # One row per column of every group: the replicates of a column are contiguous.
    rows = np.swapaxes(replicates, 1, 2).reshape(n_groups * k, n_bootstrap)
    n_values = (~np.isnan(rows)).sum(axis=1)
    low, high = np.full(n_groups * k, np.nan), np.full(n_groups * k, np.nan)
    full = np.flatnonzero(n_values == n_bootstrap)
    if len(full):
        low[full], high[full] = np.percentile(rows[full], [alpha, 100 - alpha], axis=1)
    gaps = np.flatnonzero((n_values > 0) & (n_values < n_bootstrap))
    ordered = np.sort(rows[gaps], axis=1)  # NaN last
    for count in np.unique(n_values[gaps]):
        which = n_values[gaps] == count
        low[gaps[which]], high[gaps[which]] = np.percentile(
            ordered[which, :count], [alpha, 100 - alpha], axis=1
        )
    low, high = low.reshape(n_groups, k), high.reshape(n_groups, k)
    low[np.asarray(n_units) < 2] = np.nan
    high[np.asarray(n_units) < 2] = np.nan
    return low, high


# --------------------------------------------------------------------------------------
# Boards: mean ranks and metrics per group, with their intervals
# --------------------------------------------------------------------------------------


def _overlaps(low: np.ndarray, high: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """Boolean (k, k): intervals i and j overlap (equal means if no interval)."""
    with_interval = ~(np.isnan(low) | np.isnan(high))
    overlap = (low[:, None] <= high[None, :]) & (low[None, :] <= high[:, None])
    equal = mean[:, None] == mean[None, :]
    both = with_interval[:, None] & with_interval[None, :]
    result = np.where(both, overlap, equal)
    np.fill_diagonal(result, False)
    return result


def group_codes(table: pd.DataFrame, columns: list[str]) -> np.ndarray:
    """The group of each row: the rank of its ``columns`` values (NaN a value), or 0."""
    if not columns:
        return np.zeros(len(table), dtype=np.int64)
    codes: np.ndarray = (
        table.groupby(columns, sort=True, dropna=False).ngroup().to_numpy()
    )
    return codes


def unit_sums(
    ranks: pd.DataFrame, group: np.ndarray, learners: list[str]
) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Per-repeat sums and counts of every group at once, from one grouped pass.

    ``group`` numbers the group of each row of ``ranks``. Returns the group and
    the repeat of each (group, repeat) pair present (pairs sorted, so each group's
    repeats are one run of rows, in sorted order) and the arrays of shape
    (n_pairs, k): ``rank`` and ``value`` sums (0 without a value) and
    ``rank_count`` and ``value_count`` (the non-NaN entries) per learner.
    """
    learner = pd.Categorical(ranks["learner"], categories=learners).codes
    repeat = ranks["repeat"].to_numpy()
    pair = (
        pd.DataFrame({"group": group, "repeat": repeat})
        .groupby(["group", "repeat"], sort=True)
        .ngroup()
        .to_numpy()
    )
    n_pairs, k = int(pair.max()) + 1 if len(pair) else 0, len(learners)
    pair_group = np.empty(n_pairs, dtype=np.int64)
    pair_group[pair] = group
    pair_repeat = np.empty(n_pairs, dtype=repeat.dtype)
    pair_repeat[pair] = repeat
    keyed = pd.DataFrame(
        {
            "pair": pair,
            "learner": learner,
            "rank": ranks["rank"].to_numpy(),
            "value": ranks["value"].to_numpy(),
        }
    ).groupby(["pair", "learner"], sort=True)
    arrays = {}
    for column in ("rank", "value"):
        sums = keyed[column].sum(min_count=1)
        counts = keyed[column].count()
        rows = sums.index.get_level_values("pair").to_numpy()
        cols = sums.index.get_level_values("learner").to_numpy()
        arrays[column] = np.zeros((n_pairs, k))
        arrays[column][rows, cols] = sums.fillna(0.0).to_numpy(float)
        arrays[f"{column}_count"] = np.zeros((n_pairs, k))
        arrays[f"{column}_count"][rows, cols] = counts.to_numpy(float)
    return pair_group, pair_repeat, arrays


def _status_counts(
    ranks: pd.DataFrame, group: np.ndarray, learners: list[str]
) -> np.ndarray:
    """Per group and learner, its ok, failed and missing rows: (n_groups, 3, k)."""
    learner = pd.Categorical(ranks["learner"], categories=learners).codes
    status = ranks["status"].to_numpy()
    flags = np.stack(
        [status == OK, ~np.isin(status, [OK, MISSING]), status == MISSING], axis=1
    )
    n_groups, k = int(group.max()) + 1, len(learners)
    cell = group * k + learner
    counts = [np.bincount(cell[flag], minlength=n_groups * k) for flag in flags.T]
    return np.stack(counts).reshape(3, n_groups, k).transpose(1, 0, 2)


def _bootstrap_means(
    arrays: dict[str, np.ndarray],
    n_units: np.ndarray,
    confidence: float,
    n_bootstrap: int,
    rng: np.random.RandomState,
) -> dict[str, np.ndarray]:
    """Mean rank and metric of every group and their intervals: (n_groups, k) each.

    ``arrays`` are those of :func:`unit_sums`, the rows of group ``g`` being the
    ``n_units[g]`` after those of the groups before it. Each group resamples its
    units with its own draws (:func:`bootstrap_runs`), the same for ranks and
    metric values; its point estimate is the pooled ``sum / count`` over its units.
    """
    k = arrays["rank"].shape[1]
    bounds = np.concatenate([[0], np.cumsum(n_units)])
    names = ("rank", "metric")
    result = {
        f"{what}_{name}": np.empty((len(n_units), k))
        for what in ("mean", "low", "high")
        for name in names
    }
    for start, stop, indices in bootstrap_runs(n_units, n_bootstrap, rng, k):
        n = indices.shape[2]
        rows = slice(bounds[start], bounds[stop])
        part = {
            column: values[rows].reshape(stop - start, n, k)
            for column, values in arrays.items()
        }
        weights = multiplicities(indices, n)
        replicates = {
            "rank": ratio(weights @ part["rank"], weights @ part["rank_count"]),
            "metric": ratio(
                resampled_sums(part["value"], indices), weights @ part["value_count"]
            ),
        }
        for name, column in zip(names, ("rank", "value"), strict=True):
            result[f"mean_{name}"][start:stop] = ratio(
                part[column].sum(axis=1), part[f"{column}_count"].sum(axis=1)
            )
            low, high = percentile_intervals(
                replicates[name], confidence, n_units[start:stop]
            )
            result[f"low_{name}"][start:stop] = low
            result[f"high_{name}"][start:stop] = high
    return result


def _group_board(
    means: dict[str, np.ndarray],
    counts: dict[str, np.ndarray],
    names: np.ndarray,
    higher_is_better: bool,
) -> dict[str, np.ndarray]:
    """The board of one group, best first, from its row of every array."""
    mean_rank, rank_low, rank_high = (
        means[f"{what}_rank"].copy() for what in ("mean", "low", "high")
    )
    mean_metric = means["mean_metric"]
    # A learner without a single value in the group has no place in its order: its
    # "mean rank" would only restate that it failed everywhere (see n_failed).
    no_data = counts["n_values"] == 0
    for array in (mean_rank, rank_low, rank_high):
        array[no_data] = np.nan
    tied = _overlaps(rank_low, rank_high, mean_rank)
    board = {
        "learner": names,
        "mean_rank": mean_rank,
        "rank_low": rank_low,
        "rank_high": rank_high,
        "mean_metric": mean_metric,
        "metric_low": means["low_metric"],
        "metric_high": means["high_metric"],
        "n_blocks": counts["n_blocks"],
        "n_ok": counts["statuses"][0],
        "n_failed": counts["statuses"][1],
        "n_missing": counts["statuses"][2],
        "n_repeats": np.full(len(names), counts["n_units"]),
        "tie": tied.any(axis=1),
        "tied_with": np.array([", ".join(names[row]) for row in tied], dtype=object),
    }
    # Best first: by mean rank, then by the metric itself in its own direction;
    # learners without data last (lexsort puts NaN keys last).
    metric_key = -mean_metric if higher_is_better else mean_metric
    order = np.lexsort((names, np.nan_to_num(metric_key, nan=np.inf), mean_rank))
    return {column: values[order] for column, values in board.items()}


def group_boards(
    ranks: pd.DataFrame,
    group_columns: list[str],
    learners: list[str],
    higher_is_better: bool,
    confidence: float,
    n_bootstrap: int,
    rng: np.random.RandomState,
) -> pd.DataFrame:
    """One board per group of ``ranks``, with the group columns.

    The sums, counts and statuses of every group come from one grouped pass
    (:func:`unit_sums`), not from a pandas groupby per group, and the bootstrap of
    many groups is one computation (:func:`_bootstrap_means`); the groups'
    bootstrap draws follow each other in sorted group order from the one stream
    ``rng``, so the table is reproducible.
    """
    group = group_codes(ranks, group_columns)
    pair_group, _, arrays = unit_sums(ranks, group, learners)
    statuses = _status_counts(ranks, group, learners)
    n_units = np.bincount(pair_group, minlength=len(statuses))
    means = _bootstrap_means(arrays, n_units, confidence, n_bootstrap, rng)
    n_blocks = np.zeros((len(statuses), len(learners)), dtype=int)
    n_values = np.zeros((len(statuses), len(learners)))
    np.add.at(n_blocks, pair_group, arrays["rank_count"].astype(int))
    np.add.at(n_values, pair_group, arrays["value_count"])
    names = np.asarray(learners, dtype=object)
    parts = [
        _group_board(
            {name: values[g] for name, values in means.items()},
            {
                "n_blocks": n_blocks[g],
                "n_values": n_values[g],
                "statuses": statuses[g],
                "n_units": n_units[g],
            },
            names,
            higher_is_better,
        )
        for g in range(len(statuses))
    ]
    board = pd.DataFrame(
        {
            column: np.concatenate([part[column] for part in parts])
            for column in parts[0]
        }
    )
    of_group = np.repeat(np.arange(len(parts)), len(names))
    position = board["mean_rank"].groupby(of_group).rank(method="min")
    board.insert(1, "position", position.astype("Int64"))
    # The key of each group, from its first row (groups are numbered in sorted order).
    first = np.unique(group, return_index=True)[1]
    for index, column in enumerate(group_columns):
        board.insert(
            index, column, np.repeat(ranks[column].to_numpy()[first], len(names))
        )
    return board
