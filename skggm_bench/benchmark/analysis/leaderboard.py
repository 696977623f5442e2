"""Which learner wins, how sure we are, and how the ranking moves with the generator.

The input is the tidy result table of a benchmark (:attr:`BenchmarkResult.frame
<skggm_bench.benchmark.BenchmarkResult>` or :meth:`ResultStore.frame
<skggm_bench.benchmark.results.store.ResultStore>`): one row per (generator, graph, data
model, learner, n_features, density, n_samples, repeat) with a ``status`` and one
column per metric.

How a leaderboard is computed
-----------------------------
1. **Blocks.** A *scenario* is one point of the grid: every grid column of the table
   (:data:`GRID_COLUMNS`; tables of older versions without ``data_model`` are read as
   Gaussian data, those without ``graph`` as graph ``"unknown"``); a *block* is one
   scenario in one repeat. All learners in a block saw the same matrix and the same data
   (the harness's paired design), so they are ranked *within* each block: rank 1 is the
   best value of the metric. The direction comes from the metric registry
   (:data:`skggm_bench.metrics.METRICS`): higher is better except for the losses
   (``shd``, ``fpr``, the matrix losses, ``fit_time``). Equal values share the average
   rank, and so do values within ``tie_tolerance`` of each other (relative, default
   :data:`DEFAULT_TIE_TOLERANCE` = 1e-4): sorted from best to worst, a value is tied
   with the one before it when ``|a - b| <= tie_tolerance * max(|a|, |b|)``, and a
   chain of such ties shares one rank. Two solvers of the same problem whose losses
   differ by their stopping rule (scikit-learn's graphical lasso at two ``tol``
   differs by about 1e-5 relative) are not a win for either. Every table below ranks
   this way (leaderboards, rank shifts, win probabilities, critical differences).
2. **Failures.** A row whose ``status`` is not ``"ok"`` (``"failed"``,
   ``"timeout"``), and a learner with no row at all in a block (``"missing"``, e.g.
   an interrupted run), is *excluded from the mean metric* but *ranked last* in its
   block, and counted in ``n_failed`` / ``n_missing``. A learner that fails where the
   problem is hard therefore cannot look good by being scored only where it is easy.
   A NaN metric on an ``"ok"`` row is likewise ranked last.
3. **No data.** A block in which no learner has a value (every fit failed) says
   nothing about their order: nobody is ranked there. A learner with no value at all
   in a group has **no position** in that group (NaN mean rank, ``<NA>`` position),
   rather than a shared last or first place; comparisons involving it report
   ``"no data"``, never a shift and never a significant difference.
4. **Aggregation.** Within a group (the generator plus the ``by`` columns), each
   learner gets its mean rank over the group's blocks and its mean metric over its
   ``"ok"`` rows.
5. **Uncertainty.** 95% percentile bootstrap intervals resample *repeats* (the
   independent unit: one repeat is one random graph, shared by every generator,
   sample size and learner), with the same resampled repeats for every learner so
   that their comparison stays paired. The bootstrap has a fixed ``random_state``:
   the same table always gives the same intervals. With fewer than two repeats no
   interval can be estimated and the bounds are NaN; with fewer than
   :data:`MIN_REPEATS` (5) the bootstrap cannot resolve a 95% interval (n repeats
   have only C(2n - 1, n) distinct resamples, 35 at n = 4: too few to put 2.5% in
   each tail), and the displays mark such intervals and call no difference
   significant.
6. **Ties.** Two learners are flagged as tied when their mean-rank intervals
   overlap (with NaN intervals: when their mean ranks are equal). Overlap is a
   deliberately conservative rule: a learner is only called better when the
   evidence separates it clearly.

Beyond the leaderboard
----------------------
* :func:`rank_shift` compares two generators on the same grid: how many places each
  learner gains or loses, with a paired bootstrap interval for the change in mean
  rank (the paired design shares each repeat's graph across generators).
* :func:`generator_agreement` summarises that comparison in one number: Kendall's
  tau between the two orderings of the learners, per group and overall.
* :func:`win_probability` gives, for every pair of learners, how often one beats
  the other within a block.
* :func:`critical_difference` runs the Friedman test and the Nemenyi post-hoc
  comparison of Demšar (2006) per group.

The compared column of :func:`rank_shift` and :func:`generator_agreement` is a
parameter (``axis="generator"`` by default), so the same comparisons work across any
other grid column, e.g. two data models or two graphs (with ``by`` free of
``density`` when a fixed-structure graph, which has a density of its own, is
compared).
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Sequence

import numpy as np
import pandas as pd
import scipy.stats
from sklearn.utils import check_random_state

from ..results._messages import (
    selection_remark,
    short_reason,
    undefined_reason,
    warning_classes,
)
from ..results._schema import GRID_COLUMNS
from ._ranking import (
    DEFAULT_TIE_TOLERANCE,
    MIN_REPEATS,
    MISSING,
    OK,
    as_columns,
    block_values,
    bootstrap_indices,
    bootstrap_mean,
    bootstrap_weights,
    check_bootstrap,
    check_by,
    check_frame,
    check_tie_tolerance,
    greater_is_better,
    groups,
    insert_key,
    long_ranks,
    percentile_interval,
    rank_matrix,
    ratio,
    scenario_columns,
    unit_arrays,
    wide_groups,
)

__all__ = [
    "DEFAULT_TIE_TOLERANCE",
    "GRID_COLUMNS",
    "MIN_REPEATS",
    "critical_difference",
    "failure_summary",
    "generator_agreement",
    "leaderboard",
    "rank_shift",
    "scenario_ranks",
    "selection_summary",
    "warning_summary",
    "win_probability",
]

#: ``comparison`` values of the comparison tables.
_COMPARED = "compared"
_NO_DATA = "no data"
#: ... and of the agreement table, where learners have values on both sides but
#: one side gives them all the same mean rank (Kendall's tau is then undefined).
ALL_TIED = "all tied"


# --------------------------------------------------------------------------------------
# Ranks within blocks
# --------------------------------------------------------------------------------------


def scenario_ranks(
    frame: pd.DataFrame,
    metric: str = "f1",
    *,
    tie_tolerance: float = DEFAULT_TIE_TOLERANCE,
) -> pd.DataFrame:
    """Rank the learners within every (scenario, repeat) block.

    Parameters
    ----------
    frame : pandas.DataFrame
        Benchmark results (the schema of ``BenchmarkResult.frame``).
    metric : str, default="f1"
        Metric to rank by (a name or alias of the metric registry); its direction
        comes from the registry.
    tie_tolerance : float, default=DEFAULT_TIE_TOLERANCE
        Relative difference within which two values share their rank (see the
        module docstring); 0 ties equal values only.

    Returns
    -------
    ranks : pandas.DataFrame
        One row per (block, learner), every learner of ``frame`` in every block,
        with the grid columns, ``repeat``, ``learner``, ``value`` (the metric, NaN
        unless ``status == "ok"``), ``status`` (``"missing"`` when the learner has
        no row in that block) and ``rank`` (1 = best; non-ok rows and NaN values
        share the last places; ties get the average rank; NaN for every learner of
        a block in which no learner has a value).

    Examples
    --------
    >>> import pandas as pd
    >>> from skggm_bench.benchmark.analysis.leaderboard import scenario_ranks
    >>> frame = pd.DataFrame({
    ...     "generator": "G", "n_features": 10, "density": 0.1, "n_samples": 50,
    ...     "repeat": 0, "learner": ["a", "b", "c"], "f1": [0.2, 0.9, 0.5],
    ...     "status": ["ok", "ok", "failed"]})
    >>> scenario_ranks(frame, "f1")[["learner", "value", "status", "rank"]]
      learner  value  status  rank
    0       a    0.2      ok   2.0
    1       b    0.9      ok   1.0
    2       c    NaN  failed   3.0
    """
    frame, metric = check_frame(frame, metric)
    tie_tolerance = check_tie_tolerance(tie_tolerance)
    return long_ranks(frame, metric, sorted(frame["learner"].unique()), tie_tolerance)


# --------------------------------------------------------------------------------------
# Leaderboard
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


def _group_arrays(
    ranks: pd.DataFrame, group_columns: list[str], learners: list[str]
) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray], np.ndarray]:
    """Per-repeat sums and counts of every group at once.

    Returns the group of each row of ``ranks`` (sorted groups, numbered from 0),
    the group of each (group, repeat) pair (pairs sorted, so each group's repeats
    are one run of rows, in sorted order), the arrays of shape (n_pairs, k):
    ``rank`` and ``value`` sums (0 without a value) and ``rank_count`` and
    ``value_count`` -- :func:`unit_arrays` of every group, stacked -- and the
    status counts of shape (n_groups, 3, k): ok, failed, missing.
    """
    group = (
        ranks.groupby(group_columns, sort=True, dropna=False).ngroup().to_numpy()
        if group_columns
        else np.zeros(len(ranks), dtype=np.int64)
    )
    learner = pd.Categorical(ranks["learner"], categories=learners).codes
    pair = (
        pd.DataFrame({"group": group, "repeat": ranks["repeat"].to_numpy()})
        .groupby(["group", "repeat"], sort=True)
        .ngroup()
        .to_numpy()
    )
    n_pairs, k = int(pair.max()) + 1, len(learners)
    pair_group = np.empty(n_pairs, dtype=np.int64)
    pair_group[pair] = group
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
    status = ranks["status"].to_numpy()
    flags = np.stack(
        [status == OK, ~np.isin(status, [OK, MISSING]), status == MISSING], axis=1
    )
    n_groups = int(group.max()) + 1
    statuses = np.zeros((n_groups, 3, k), dtype=np.int64)
    np.add.at(statuses, (group, slice(None), learner), flags)
    return group, pair_group, arrays, statuses


def _group_board(
    arrays: dict[str, np.ndarray],
    statuses: np.ndarray,
    names: np.ndarray,
    higher_is_better: bool,
    confidence: float,
    n_bootstrap: int,
    rng: np.random.RandomState,
) -> dict[str, np.ndarray]:
    """The board of one group, best first, from its rows of :func:`_group_arrays`."""
    n_units = arrays["rank"].shape[0]
    indices = bootstrap_indices(n_units, n_bootstrap, rng)
    mean_rank, rank_low, rank_high = bootstrap_mean(
        arrays["rank"], arrays["rank_count"], indices, confidence
    )
    mean_metric, metric_low, metric_high = bootstrap_mean(
        arrays["value"], arrays["value_count"], indices, confidence
    )
    # A learner without a single value in the group has no place in its order: its
    # "mean rank" would only restate that it failed everywhere (see n_failed).
    no_data = arrays["value_count"].sum(axis=0) == 0
    for array in (mean_rank, rank_low, rank_high):
        array[no_data] = np.nan
    tied = _overlaps(rank_low, rank_high, mean_rank)
    board = {
        "learner": names,
        "mean_rank": mean_rank,
        "rank_low": rank_low,
        "rank_high": rank_high,
        "mean_metric": mean_metric,
        "metric_low": metric_low,
        "metric_high": metric_high,
        "n_blocks": arrays["rank_count"].sum(axis=0).astype(int),
        "n_ok": statuses[0],
        "n_failed": statuses[1],
        "n_missing": statuses[2],
        "n_repeats": np.full(len(names), n_units),
        "tie": tied.any(axis=1),
        "tied_with": np.array([", ".join(names[row]) for row in tied], dtype=object),
    }
    # Best first: by mean rank, then by the metric itself in its own direction;
    # learners without data last (lexsort puts NaN keys last).
    metric_key = -mean_metric if higher_is_better else mean_metric
    order = np.lexsort((names, np.nan_to_num(metric_key, nan=np.inf), mean_rank))
    return {column: values[order] for column, values in board.items()}


def _boards(
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
    (:func:`_group_arrays`), not from a pandas groupby per group; the groups'
    bootstrap draws follow each other in sorted group order from the one stream
    ``rng``, so the table is reproducible.
    """
    group, pair_group, arrays, statuses = _group_arrays(ranks, group_columns, learners)
    bounds = np.searchsorted(pair_group, np.arange(len(statuses) + 1))
    names = np.asarray(learners, dtype=object)
    parts = [
        _group_board(
            {
                column: values[bounds[g] : bounds[g + 1]]
                for column, values in arrays.items()
            },
            statuses[g],
            names,
            higher_is_better,
            confidence,
            n_bootstrap,
            rng,
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


def leaderboard(
    frame: pd.DataFrame,
    metric: str = "f1",
    by: Sequence[str] = ("density",),
    *,
    confidence: float = 0.95,
    n_bootstrap: int = 2000,
    random_state: int | np.random.RandomState | None = 0,
    tie_tolerance: float = DEFAULT_TIE_TOLERANCE,
) -> pd.DataFrame:
    """Rank learners per scenario and aggregate with bootstrap confidence intervals.

    See the module docstring for the exact procedure (blocks, failures, no data,
    bootstrap over repeats, tie rule).

    Parameters
    ----------
    frame : pandas.DataFrame
        Benchmark results (the schema of ``BenchmarkResult.frame``).
    metric : str, default="f1"
        Metric to rank by (a name or alias of the metric registry). Higher is
        better, except for the losses (``"shd"``, ``"fpr"``, the matrix losses,
        ``"fit_time"``).
    by : sequence of str, default=("density",)
        Grid columns that split the leaderboard, among the grid columns of
        ``frame`` (:data:`GRID_COLUMNS`). The
        generator is always a grouping column (pooling generators would hide the
        rank shift); ``by=()`` gives one leaderboard per generator over its whole
        grid.
    confidence : float, default=0.95
        Coverage of the percentile bootstrap intervals.
    n_bootstrap : int, default=2000
        Bootstrap replicates (resampled sets of repeats).
    random_state : int, RandomState instance or None, default=0
        Seed of the bootstrap; fixed by default so that the same results always
        give the same table.
    tie_tolerance : float, default=DEFAULT_TIE_TOLERANCE
        Relative difference within which two values of a block share their rank
        (see the module docstring); 0 ties equal values only.

    Returns
    -------
    board : pandas.DataFrame
        One row per (group, learner), best first within each group, with the
        grouping columns and ``learner``, ``position`` (1 = best by mean rank;
        nullable integers, ``<NA>`` for a learner with no value in the group),
        ``mean_rank``, ``rank_low``, ``rank_high`` (NaN without data),
        ``mean_metric`` (over ``"ok"`` rows only), ``metric_low``,
        ``metric_high``, ``n_blocks`` (blocks of the group in which the learner
        was ranked), ``n_ok``, ``n_failed`` (failed or timed out), ``n_missing``,
        ``n_repeats``, ``tie`` (the rank interval overlaps another learner's),
        ``tied_with`` (comma-separated names), ``no_value_reason`` (for a
        learner without a position: ``"no successful fit"``, or why its
        successful fits have no value, as their messages say, e.g. ``"no loss:
        covariance_ and precision_ disagree"``; empty otherwise), and
        ``n_every_pair`` / ``n_no_pair`` (its ``"ok"`` fits in the group that
        selected every pair, or none: their edge metrics describe a threshold,
        see :func:`selection_summary`). ``board.attrs``
        records ``metric``, ``higher_is_better``, ``confidence``, ``n_bootstrap``,
        ``tie_tolerance`` and ``by`` (the grouping columns).

    Raises
    ------
    ValueError
        If ``frame`` lacks a result column, ``metric`` is not a numeric column,
        ``by`` names a non-grid column, the table is empty or has duplicate tasks.

    See Also
    --------
    rank_shift : How the ranking changes between two generators.
    critical_difference : The Friedman test and Nemenyi critical difference.
    format_leaderboard : Display strings such as ``"1.50 (1.00–2.00)"``.

    Examples
    --------
    Two learners, three repeats: ``b`` beats ``a`` every time.

    >>> import pandas as pd
    >>> from skggm_bench.benchmark.analysis.leaderboard import leaderboard
    >>> frame = pd.DataFrame({
    ...     "generator": "G", "n_features": 10, "density": 0.1, "n_samples": 50,
    ...     "repeat": [0, 0, 1, 1, 2, 2], "learner": ["a", "b"] * 3,
    ...     "f1": [0.2, 0.6, 0.3, 0.7, 0.1, 0.5], "status": "ok"})
    >>> board = leaderboard(frame, "f1")
    >>> board[["learner", "position", "mean_rank", "rank_low", "rank_high", "tie"]]
      learner  position  mean_rank  rank_low  rank_high    tie
    0       b         1        1.0       1.0        1.0  False
    1       a         2        2.0       2.0        2.0  False
    >>> board["mean_metric"].round(2).tolist()
    [0.6, 0.2]
    """
    frame, metric = check_frame(frame, metric)
    group_columns = check_by(by, frame)
    check_bootstrap(confidence, n_bootstrap)
    rng = check_random_state(random_state)
    tie_tolerance = check_tie_tolerance(tie_tolerance)
    higher_is_better = greater_is_better(metric)
    learners = sorted(frame["learner"].unique())
    ranks = long_ranks(frame, metric, learners, tie_tolerance)
    result = _boards(
        ranks,
        group_columns,
        learners,
        higher_is_better,
        confidence,
        n_bootstrap,
        rng,
    )
    result["no_value_reason"] = _no_value_reasons(frame, metric, group_columns, result)
    selection = _selection_counts(frame, group_columns)
    result = result.merge(selection, on=[*group_columns, "learner"], how="left")
    for column in ("n_every_pair", "n_no_pair"):
        result[column] = result[column].fillna(0).astype(int)
    result.attrs.update(
        metric=metric,
        higher_is_better=higher_is_better,
        confidence=float(confidence),
        n_bootstrap=int(n_bootstrap),
        tie_tolerance=tie_tolerance,
        by=tuple(group_columns),
    )
    return result


def _no_value_reasons(
    frame: pd.DataFrame, metric: str, group_columns: list[str], board: pd.DataFrame
) -> list[str]:
    """Per row of ``board``: why the learner has no position ("" if it has one)."""
    ok = frame[frame["status"] == OK]
    undefined = ok[ok[metric].isna()]
    reasons = pd.Series(
        [
            short_reason(undefined_reason(message, metric) or "no value recorded")
            for message in undefined["message"]
        ]
        if "message" in undefined.columns
        else "no value recorded",
        index=undefined.index,
        dtype=object,
    )
    keys = [*group_columns, "learner"]

    def lookup(table: pd.DataFrame) -> dict[tuple, object]:
        return {
            tuple(None if pd.isna(v) else v for v in key): value
            for key, value in table.items()
        }

    has_ok = lookup(ok.groupby(keys, dropna=False).size())
    common = lookup(
        undefined.assign(_reason=reasons)
        .groupby(keys, dropna=False)["_reason"]
        .agg(lambda values: values.value_counts().index[0])
    )
    result = []
    for row in board[[*keys, "position"]].itertuples(index=False):
        if not pd.isna(row[-1]):
            result.append("")
            continue
        key = tuple(None if pd.isna(v) else v for v in row[:-1])
        if key not in has_ok:
            result.append("no successful fit")
        else:
            result.append(str(common.get(key, "no value recorded")))
    return result


def _selection_counts(frame: pd.DataFrame, group_columns: list[str]) -> pd.DataFrame:
    """Per group and learner, its ``ok`` fits that selected every pair, or none."""
    keys = [*group_columns, "learner"]
    ok = frame[frame["status"] == OK]
    if "message" in ok.columns:
        remark = ok["message"].map(selection_remark)
    else:
        remark = pd.Series(None, index=ok.index, dtype=object)
    counts = ok[keys].assign(
        n_every_pair=(remark == "selected every pair").astype(int),
        n_no_pair=(remark == "selected no pair").astype(int),
    )
    return counts.groupby(keys, dropna=False, sort=False).sum().reset_index()


def selection_summary(frame: pd.DataFrame, by: Sequence[str] = ()) -> pd.DataFrame:
    """How often each learner selected every pair, or no pair, in its ``ok`` fits.

    A learner whose estimate is dense (a shrinkage covariance) selects every pair:
    its edge metrics then describe its threshold (its precision is the density d
    of the true graph, its F1 2d / (1 + d)), not its ranking of the pairs. The
    harness says so in the ``message`` of each such row.

    Parameters
    ----------
    frame : pandas.DataFrame
        Benchmark results (with their ``message`` column).
    by : sequence of str, default=()
        Columns of ``frame`` that split the counts (e.g. the groups of a table):
        a learner is then counted in each group on its fits there. By default
        over the whole table.

    Returns
    -------
    pandas.DataFrame
        One row per (group and) learner with such fits (sorted): the ``by``
        columns, ``learner``, ``n_ok``, ``n_every_pair``, ``n_no_pair``,
        ``share_every_pair`` and ``share_no_pair`` (of its ``ok`` fits).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({
    ...     "generator": "G", "n_features": 10, "density": 0.1, "n_samples": 50,
    ...     "repeat": [0, 0, 1, 1], "learner": ["a", "b"] * 2, "status": "ok",
    ...     "message": ["selected every pair", "", "selected every pair", ""]})
    >>> selection_summary(frame)[["learner", "n_ok", "share_every_pair"]]
      learner  n_ok  share_every_pair
    0       a     2               1.0
    """
    by = as_columns(by)
    unknown = [column for column in by if column not in frame.columns]
    if unknown:
        raise ValueError(f"by={unknown} are not columns of the results")
    columns = [
        *by, "learner", "n_ok", "n_every_pair", "n_no_pair", "share_every_pair",
        "share_no_pair",
    ]  # fmt: skip
    if "message" not in frame.columns:
        return pd.DataFrame(columns=columns)
    ok = frame[frame["status"] == OK]
    remark = ok["message"].map(selection_remark)
    counts = (
        ok[[*by, "learner"]]
        .assign(
            n_ok=1,
            n_every_pair=(remark == "selected every pair").astype(int),
            n_no_pair=(remark == "selected no pair").astype(int),
        )
        .groupby([*by, "learner"], sort=True, dropna=False)
        .sum()
        .reset_index()
    )
    counts = counts[(counts["n_every_pair"] > 0) | (counts["n_no_pair"] > 0)]
    counts["share_every_pair"] = counts["n_every_pair"] / counts["n_ok"]
    counts["share_no_pair"] = counts["n_no_pair"] / counts["n_ok"]
    return counts[columns].reset_index(drop=True)


def warning_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """How many of each learner's ``ok`` fits raised a warning, and of which classes.

    Such a fit has values and is ranked like any other (a ``ConvergenceWarning``
    usually means an estimate short of the solver's optimum). Each row's
    ``message`` names every class of warning its fit raised; a fit counts once
    for each class it raised, so the counts of the classes can add up to more
    than ``n_warned``. Rows of older stores name only their first warning: for
    them only its class is known.

    Parameters
    ----------
    frame : pandas.DataFrame
        Benchmark results (with their ``message`` column).

    Returns
    -------
    pandas.DataFrame
        One row per learner with such fits (sorted by name): ``learner``,
        ``n_ok``, ``n_warned`` (fits that raised any warning) and ``classes``,
        per class the fits that raised it, most frequent first
        (``"ConvergenceWarning 3, RuntimeWarning 1"``).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({
    ...     "generator": "G", "n_features": 10, "density": 0.1, "n_samples": 50,
    ...     "repeat": [0, 0, 1, 1], "learner": ["a", "b"] * 2, "status": "ok",
    ...     "message": ["warnings: UserWarning 2, ConvergenceWarning 1; first "
    ...                 "warning: UserWarning: x", "", "", ""]})
    >>> warning_summary(frame)
      learner  n_ok  n_warned                              classes
    0       a     2         1  ConvergenceWarning 1, UserWarning 1
    """
    columns = ["learner", "n_ok", "n_warned", "classes"]
    if "message" not in frame.columns:
        return pd.DataFrame(columns=columns)
    ok = frame[frame["status"] == OK]
    classes = ok["message"].map(warning_classes)
    rows = []
    for learner, part in classes.groupby(ok["learner"], sort=True):
        counts = part.explode().dropna().value_counts()
        if counts.empty:
            continue
        # value_counts sorts by count; equal counts by name, for a stable text.
        ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        rows.append(
            {
                "learner": learner,
                "n_ok": len(part),
                "n_warned": int((part.map(len) > 0).sum()),
                "classes": ", ".join(f"{name} {count}" for name, count in ordered),
            }
        )
    return pd.DataFrame(rows, columns=columns)


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


def _key_mask(frame: pd.DataFrame, columns: list[str], key: tuple) -> np.ndarray:
    """Rows whose ``columns`` equal ``key``; NaN matches NaN (no-density families)."""
    mask = np.ones(len(frame), dtype=bool)
    for column, value in zip(columns, key, strict=True):
        if pd.isna(value):
            mask &= frame[column].isna().to_numpy()
        else:
            mask &= (frame[column] == value).to_numpy()
    return mask


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
        levels: tuple[object, object],
        arguments: tuple[str, str],
        axis: object,
        by: object,
        tie_tolerance: object,
    ) -> None:
        frame, metric = check_frame(frame, metric)
        tie_tolerance = check_tie_tolerance(tie_tolerance)
        self.axis = _check_axis(frame, axis)
        self.levels = {
            side: _check_level(frame, self.axis, level, argument)
            for side, level, argument in zip(
                ("from", "to"), levels, arguments, strict=True
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

    def groups(self) -> list[tuple[tuple, dict[str, pd.DataFrame]]]:
        """``(key, {side: ranks of that group})`` for every group of either side."""
        keys = pd.concat(
            [ranks[self.group_columns] for ranks in self.ranks.values()]
        ).drop_duplicates()
        keys = [key for key, _ in groups(keys, self.group_columns)]
        return [
            (
                key,
                {
                    side: ranks[_key_mask(ranks, self.group_columns, key)]
                    for side, ranks in self.ranks.items()
                },
            )
            for key in keys
        ]


def _paired_arrays(
    ranks_from: pd.DataFrame, ranks_to: pd.DataFrame, learners: list[str]
) -> tuple[list, dict[str, tuple[np.ndarray, ...]]]:
    """Per-repeat rank sums and counts and value counts of both sides.

    Only the repeats both sides have are kept: they are the pairs.
    """
    units = sorted(set(ranks_from["repeat"]) & set(ranks_to["repeat"]))
    arrays = {
        side: (
            *unit_arrays(ranks, "rank", learners, units),
            unit_arrays(ranks, "value", learners, units)[1],
        )
        for side, ranks in (("from", ranks_from), ("to", ranks_to))
    }
    return units, arrays


def _paired_rank_gain(
    ranks_from: pd.DataFrame,
    ranks_to: pd.DataFrame,
    learners: list[str],
    confidence: float,
    n_bootstrap: int,
    rng: np.random.RandomState,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean rank under ``from`` minus under ``to``, bootstrapped over shared repeats."""
    units, arrays = _paired_arrays(ranks_from, ranks_to, learners)
    if not units:
        nan = np.full(len(learners), np.nan)
        return nan, nan, nan
    (sums_from, counts_from, _), (sums_to, counts_to, _) = arrays.values()
    weights = bootstrap_weights(len(units), n_bootstrap, rng)
    point = ratio(sums_from.sum(axis=0), counts_from.sum(axis=0)) - ratio(
        sums_to.sum(axis=0), counts_to.sum(axis=0)
    )
    replicates = ratio(weights @ sums_from, weights @ counts_from) - ratio(
        weights @ sums_to, weights @ counts_to
    )
    low, high = percentile_interval(replicates, confidence, len(units))
    return point, low, high


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
        frame,
        metric,
        (from_generator, to_generator),
        ("from_generator", "to_generator"),
        axis,
        by,
        tie_tolerance,
    )
    group_columns = comparison.group_columns
    learners = comparison.learners
    rng = check_random_state(random_state)
    higher_is_better = greater_is_better(metric)
    boards = {
        side: _boards(
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
    gains = []
    for key, ranks in comparison.groups():
        point, low, high = _paired_rank_gain(
            ranks["from"], ranks["to"], learners, confidence, n_bootstrap, rng
        )
        paired = set(ranks["from"]["repeat"]) & set(ranks["to"]["repeat"])
        part = pd.DataFrame(
            {
                "learner": learners,
                "n_repeats": len(paired),
                "rank_gain": point,
                "rank_gain_low": low,
                "rank_gain_high": high,
            }
        )
        gains.append(insert_key(part, group_columns, key))
    table = table.merge(pd.concat(gains), on=[*group_columns, "learner"], how="left")
    compared = table["position_from"].notna() & table["position_to"].notna()
    table["comparison"] = np.where(compared, _COMPARED, _NO_DATA)
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


def _agreement_row(
    ranks_from: pd.DataFrame,
    ranks_to: pd.DataFrame,
    learners: list[str],
    confidence: float,
    n_bootstrap: int,
    rng: np.random.RandomState,
) -> dict[str, object]:
    units, arrays = _paired_arrays(ranks_from, ranks_to, learners)
    weights = bootstrap_weights(len(units), n_bootstrap, rng)
    (sums_from, counts_from, values_from), (sums_to, counts_to, values_to) = (
        arrays.values()
    )
    # Learners with a value on both sides are ordered; the others have no place.
    usable = (values_from.sum(axis=0) > 0) & (values_to.sum(axis=0) > 0)
    n_learners = int(usable.sum())
    nan_row = {
        "tau": np.nan,
        "tau_low": np.nan,
        "tau_high": np.nan,
        "n_learners": n_learners,
        "n_repeats": len(units),
        "comparison": _NO_DATA,
    }
    if n_learners < 2:
        return nan_row

    def mean_ranks(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        sides = [
            ratio(weights @ sums, weights @ counts)[:, usable]
            for sums, counts in ((sums_from, counts_from), (sums_to, counts_to))
        ]
        return sides[0], sides[1]

    tau = _kendall_tau_b(*mean_ranks(np.ones((1, len(units)))))[0]
    replicates = _kendall_tau_b(*mean_ranks(weights))
    low, high = percentile_interval(replicates[:, None], confidence, len(units))
    return {
        **nan_row,
        "tau": tau,
        "tau_low": low[0],
        "tau_high": high[0],
        # tau-b is undefined only where one side has no untied pair.
        "comparison": _COMPARED if not np.isnan(tau) else ALL_TIED,
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
        frame,
        metric,
        (from_generator, to_generator),
        ("from_generator", "to_generator"),
        axis,
        by,
        tie_tolerance,
    )
    group_columns = comparison.group_columns
    rng = check_random_state(random_state)
    options = (comparison.learners, confidence, n_bootstrap, rng)
    # Without grouping columns the one group is the whole grid: the overall row says it.
    groups = comparison.groups() if group_columns else []
    rows = [
        {
            "scope": "group",
            **dict(zip(group_columns, key, strict=True)),
            **_agreement_row(ranks["from"], ranks["to"], *options),
        }
        for key, ranks in groups
    ]
    ranks = comparison.ranks
    rows.append(
        {"scope": "overall", **_agreement_row(ranks["from"], ranks["to"], *options)}
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


# --------------------------------------------------------------------------------------
# Pairwise win probabilities
# --------------------------------------------------------------------------------------


def win_probability(
    frame: pd.DataFrame,
    metric: str = "f1",
    by: Sequence[str] = ("density",),
    *,
    confidence: float = 0.95,
    n_bootstrap: int = 2000,
    random_state: int | np.random.RandomState | None = 0,
    tie_tolerance: float = DEFAULT_TIE_TOLERANCE,
) -> pd.DataFrame:
    """P(A beats B): how often each learner beats each other one in a block.

    Within every block of a group (the generator plus the ``by`` columns), learner
    A *beats* B when its rank is better; a tie (equal values, or both failed)
    **counts one half** to each, so ``P(A beats B) + P(B beats A) = 1``. As in
    :func:`leaderboard`, a failed or missing fit ranks last, so it loses to any
    successful one; blocks where no learner has a value are not counted. The
    interval is a percentile bootstrap over repeats (the blocks of a repeat
    share a graph), with the same resampled repeats for every pair.

    Parameters
    ----------
    frame : pandas.DataFrame
        Benchmark results (the schema of ``BenchmarkResult.frame``).
    metric : str, default="f1"
        Metric to rank by (direction as in :func:`leaderboard`).
    by : sequence of str, default=("density",)
        Grid columns that split the table; the generator always does.
    confidence : float, default=0.95
        Coverage of the bootstrap intervals.
    n_bootstrap : int, default=2000
        Bootstrap replicates.
    random_state : int, RandomState instance or None, default=0
        Seed of the bootstrap.
    tie_tolerance : float, default=DEFAULT_TIE_TOLERANCE
        Relative difference within which two values of a block share their rank
        (as in :func:`leaderboard`).

    Returns
    -------
    wins : pandas.DataFrame
        One row per group and ordered pair of different learners, with the
        grouping columns, ``learner``, ``opponent``, ``p_win`` (P(learner beats
        opponent), ties counted one half), ``p_win_low``, ``p_win_high``,
        ``wins``, ``ties``, ``losses`` and ``n_blocks`` (blocks counted) and
        ``comparison`` (``"no data"`` when either learner has no value in the
        group: the probabilities are then NaN). ``wins.attrs`` records
        ``metric``, ``by`` and ``confidence``.

    Raises
    ------
    ValueError
        As :func:`leaderboard`.

    Examples
    --------
    ``b`` beats ``a`` in two blocks of three and ties in the third.

    >>> import pandas as pd
    >>> from skggm_bench.benchmark.analysis.leaderboard import win_probability
    >>> frame = pd.DataFrame({
    ...     "generator": "G", "n_features": 10, "density": 0.1, "n_samples": 50,
    ...     "repeat": [0, 0, 1, 1, 2, 2], "learner": ["a", "b"] * 3,
    ...     "f1": [0.2, 0.6, 0.3, 0.7, 0.5, 0.5], "status": "ok"})
    >>> wins = win_probability(frame, "f1")
    >>> wins[["learner", "opponent", "p_win", "wins", "ties", "losses"]].round(3)
      learner opponent  p_win  wins  ties  losses
    0       a        b  0.167     0     1       2
    1       b        a  0.833     2     1       0
    """
    frame, metric = check_frame(frame, metric)
    group_columns = check_by(by, frame)
    check_bootstrap(confidence, n_bootstrap)
    rng = check_random_state(random_state)
    tie_tolerance = check_tie_tolerance(tie_tolerance)
    learners = sorted(frame["learner"].unique())
    k = len(learners)
    first, second = np.nonzero(~np.eye(k, dtype=bool))
    parts = []
    values, _ = block_values(frame, metric, learners)
    for key, wide in wide_groups(values, group_columns):
        has_data = wide.notna().to_numpy().any(axis=0)
        r = rank_matrix(wide.to_numpy(float), metric, tie_tolerance)
        # Blocks where nobody has a value are not counted.
        counted = ~np.isnan(r).all(axis=1)
        r, wide = r[counted], wide[counted]
        # score[n, i, j]: what learner i earns against j in block n (1, 1/2 or 0).
        beats = r[:, :, None] < r[:, None, :]
        ties = r[:, :, None] == r[:, None, :]
        score = (beats + 0.5 * ties).reshape(len(r), k * k)
        repeats = wide.index.get_level_values("repeat")
        units = np.unique(repeats)
        unit_of_block = np.searchsorted(units, repeats)
        unit_scores = np.zeros((len(units), k * k))
        np.add.at(unit_scores, unit_of_block, score)
        unit_blocks = np.bincount(unit_of_block, minlength=len(units)).astype(float)
        weights = bootstrap_weights(len(units), n_bootstrap, rng)
        point = ratio(unit_scores.sum(axis=0), unit_blocks.sum())
        replicates = ratio(weights @ unit_scores, (weights @ unit_blocks)[:, None])
        low, high = percentile_interval(replicates, confidence, len(units))
        flat = first * k + second
        usable = has_data[first] & has_data[second]
        part = pd.DataFrame(
            {
                "learner": np.asarray(learners, dtype=object)[first],
                "opponent": np.asarray(learners, dtype=object)[second],
                "p_win": np.where(usable, point[flat], np.nan),
                "p_win_low": np.where(usable, low[flat], np.nan),
                "p_win_high": np.where(usable, high[flat], np.nan),
                "wins": beats.sum(axis=0).ravel()[flat],
                "ties": ties.sum(axis=0).ravel()[flat],
                "losses": beats.sum(axis=0).T.ravel()[flat],
                "n_blocks": len(r),
                "comparison": np.where(usable, _COMPARED, _NO_DATA),
            }
        )
        parts.append(insert_key(part, group_columns, key))
    table = pd.concat(parts, ignore_index=True)
    table.attrs.update(
        metric=metric, by=tuple(group_columns), confidence=float(confidence)
    )
    return table


# --------------------------------------------------------------------------------------
# Friedman test and Nemenyi critical difference
# --------------------------------------------------------------------------------------


@functools.cache
def _nemenyi_q(k: int, alpha: float) -> float:
    """Critical value of the Nemenyi test: studentized range / sqrt(2) (Demšar 2006)."""
    return float(scipy.stats.studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2))


def _friedman(ranks: np.ndarray) -> tuple[float, float, float, float]:
    """Friedman's chi-square (tie-corrected) and Iman-Davenport F with p-values.

    ``ranks`` is (n_blocks, k), ranked within rows with average ties.
    """
    n, k = ranks.shape
    # Per entry, the size t of its tie group; sum over entries of t^2 - 1 equals
    # the sum over tie groups of t^3 - t.
    tie_sizes = (ranks[:, :, None] == ranks[:, None, :]).sum(axis=2)
    ties = float((tie_sizes**2 - 1).sum())
    correction = 1 - ties / (n * k * (k * k - 1))
    if correction <= 0:
        # Every block ties every learner: no evidence of any difference.
        return 0.0, 1.0, 0.0, 1.0
    rank_sums = ranks.sum(axis=0)
    spread = 12 / (n * k * (k + 1)) * (rank_sums**2).sum() - 3 * n * (k + 1)
    chi2 = spread / correction
    chi2 = max(float(chi2), 0.0)
    p_chi2 = float(scipy.stats.chi2.sf(chi2, k - 1))
    # Iman and Davenport's F: Demšar's recommended, less conservative form.
    denominator = n * (k - 1) - chi2
    if n < 2:
        return chi2, p_chi2, np.nan, np.nan
    if denominator <= 0:
        return chi2, p_chi2, np.inf, 0.0
    f = (n - 1) * chi2 / denominator
    p_f = float(scipy.stats.f.sf(f, k - 1, (k - 1) * (n - 1)))
    return chi2, p_chi2, float(f), p_f


def critical_difference(
    frame: pd.DataFrame,
    metric: str = "f1",
    by: Sequence[str] = ("density",),
    *,
    alpha: float = 0.05,
    tie_tolerance: float = DEFAULT_TIE_TOLERANCE,
) -> pd.DataFrame:
    """Friedman test and Nemenyi critical difference per scenario group.

    Within a group (the generator plus the ``by`` columns) every block -- one
    scenario in one repeat -- ranks the learners, as in :func:`leaderboard`
    (failures last, ties averaged). Following Demšar (2006, JMLR 7:1-30):

    * the **Friedman test** asks whether the learners' mean ranks differ more than
      chance allows: statistic ``12 N / (k (k + 1)) [sum_j R_j^2 - k (k + 1)^2 / 4]``
      over ``N`` blocks and ``k`` learners with mean ranks ``R_j``, divided by the
      tie correction ``1 - sum (t^3 - t) / (N k (k^2 - 1))`` (as
      :func:`scipy.stats.friedmanchisquare`), referred to chi-square with
      ``k - 1`` degrees of freedom; Iman and Davenport's F, which Demšar
      recommends as less conservative, is reported too;
    * the **Nemenyi critical difference** ``CD = q_alpha sqrt(k (k + 1) / (6 N))``,
      with ``q_alpha`` the ``1 - alpha`` quantile of the studentized range of
      ``k`` means with infinite degrees of freedom divided by ``sqrt(2)``: two
      learners whose mean ranks differ by at least ``CD`` differ significantly
      (all pairs compared, family-wise level ``alpha``).

    Only learners with at least one value in the group take part (the others have
    no position there), and blocks in which no learner has a value are left out.
    The blocks of one repeat share a random graph, so they are not fully
    independent as the test assumes; with several scenarios per group the
    p-value and CD are then somewhat optimistic. The bootstrap intervals of
    :func:`leaderboard`, which resample whole repeats, do not make that
    assumption.

    Parameters
    ----------
    frame : pandas.DataFrame
        Benchmark results (the schema of ``BenchmarkResult.frame``).
    metric : str, default="f1"
        Metric to rank by (direction as in :func:`leaderboard`).
    by : sequence of str, default=("density",)
        Grid columns that split the table; the generator always does.
    alpha : float, default=0.05
        Significance level of the critical difference (and of ``different``).
    tie_tolerance : float, default=DEFAULT_TIE_TOLERANCE
        Relative difference within which two values of a block share their rank
        (as in :func:`leaderboard`).

    Returns
    -------
    cd : pandas.DataFrame
        One row per (group, learner), best mean rank first, with the grouping
        columns, ``learner``, ``mean_rank`` (NaN for a learner without a value in
        the group) and the group's ``n_learners`` (k), ``n_blocks`` (N),
        ``n_empty_blocks`` (blocks without any value, left out),
        ``statistic`` (Friedman's chi-square), ``p_value``, ``iman_davenport``,
        ``iman_davenport_p_value``, ``critical_difference``, ``different``
        (``p_value < alpha``: the learners are not all alike), then, per learner,
        ``not_different_from``: the learners whose mean rank is within the
        critical difference of this one (comma-separated). Group-level values are
        NaN when fewer than two learners have values. ``cd.attrs`` records
        ``metric``, ``alpha`` and ``by``; one row per group is
        ``cd.drop_duplicates(list(cd.attrs["by"]))``.

    Raises
    ------
    ValueError
        If ``alpha`` is not in (0, 1), plus the errors of :func:`leaderboard`.

    See Also
    --------
    skggm_bench.benchmark.present.plotting.plot_critical_difference : The CD diagram.

    Examples
    --------
    Three learners, four blocks; ``a`` is always first.

    >>> import pandas as pd
    >>> from skggm_bench.benchmark.analysis.leaderboard import critical_difference
    >>> frame = pd.DataFrame({
    ...     "generator": "G", "n_features": 10, "density": 0.1, "n_samples": 50,
    ...     "repeat": [r for r in range(4) for _ in "abc"],
    ...     "learner": list("abc") * 4,
    ...     "f1": [0.9, 0.5, 0.1, 0.9, 0.5, 0.1, 0.9, 0.1, 0.5, 0.9, 0.5, 0.1],
    ...     "status": "ok"})
    >>> cd = critical_difference(frame, "f1")
    >>> cd[["learner", "mean_rank", "not_different_from"]]
      learner  mean_rank not_different_from
    0       a       1.00                  b
    1       b       2.25               a, c
    2       c       2.75                  b
    >>> cd[["statistic", "p_value", "critical_difference"]].iloc[0].round(3).tolist()
    [6.5, 0.039, 1.657]
    """
    frame, metric = check_frame(frame, metric)
    if not isinstance(alpha, numbers.Real) or not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    group_columns = check_by(by, frame)
    tie_tolerance = check_tie_tolerance(tie_tolerance)
    learners = sorted(frame["learner"].unique())
    parts = []
    wide, _ = block_values(frame, metric, learners)
    for key, values in wide_groups(wide, group_columns):
        taking_part = values.columns[values.notna().any(axis=0)]
        values = values[taking_part].to_numpy(float)
        informative = ~np.isnan(values).all(axis=1)
        n_empty = int((~informative).sum())
        # Re-ranked among the learners that take part, so that a learner with no
        # value anywhere cannot share (and shift) the last places.
        within = rank_matrix(values[informative], metric, tie_tolerance)
        n, k = within.shape
        # Every learner taking part has a value in some block, so n >= 1 when k >= 1.
        mean_rank = pd.Series(within.sum(axis=0) / max(n, 1), index=taking_part)
        mean_rank = mean_rank.reindex(learners)
        if k >= 2 and n >= 1:
            statistic, p_value, f, p_f = _friedman(within)
            cd = _nemenyi_q(k, float(alpha)) * np.sqrt(k * (k + 1) / (6 * n))
        else:
            statistic = p_value = f = p_f = cd = np.nan
        distance = np.abs(mean_rank.to_numpy()[:, None] - mean_rank.to_numpy()[None, :])
        close = distance < cd
        np.fill_diagonal(close, False)
        names = np.asarray(learners, dtype=object)
        part = pd.DataFrame(
            {
                "learner": learners,
                "mean_rank": mean_rank.to_numpy(),
                "n_learners": k,
                "n_blocks": n,
                "n_empty_blocks": n_empty,
                "statistic": statistic,
                "p_value": p_value,
                "iman_davenport": f,
                "iman_davenport_p_value": p_f,
                "critical_difference": cd,
                "different": bool(p_value < alpha),
                "not_different_from": [", ".join(names[row]) for row in close],
            }
        )
        part = part.sort_values(
            ["mean_rank", "learner"], kind="stable", na_position="last"
        )
        parts.append(insert_key(part.reset_index(drop=True), group_columns, key))
    table = pd.concat(parts, ignore_index=True)
    table.attrs.update(metric=metric, alpha=float(alpha), by=tuple(group_columns))
    return table


# --------------------------------------------------------------------------------------
# Failures and display
# --------------------------------------------------------------------------------------


def failure_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Count the rows that did not finish, by generator, learner, status and message.

    Parameters
    ----------
    frame : pandas.DataFrame
        Benchmark results with ``generator``, ``learner``, ``status`` and (optionally)
        ``message`` columns.

    Returns
    -------
    failures : pandas.DataFrame
        Columns ``generator``, ``learner``, ``status``, ``message``, ``count``, most
        frequent first; empty when every row has ``status == "ok"``.

    Examples
    --------
    >>> import pandas as pd
    >>> from skggm_bench.benchmark.analysis.leaderboard import failure_summary
    >>> frame = pd.DataFrame({"generator": "G", "learner": ["a", "a", "b"],
    ...                       "status": ["failed", "failed", "ok"],
    ...                       "message": ["ValueError: singular"] * 2 + [""]})
    >>> failure_summary(frame)
      generator learner  status               message  count
    0         G       a  failed  ValueError: singular      2
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    missing = [c for c in ("generator", "learner", "status") if c not in frame.columns]
    if missing:
        raise ValueError(f"frame lacks the result columns {missing}")
    columns = ["generator", "learner", "status", "message"]
    failed = frame.loc[frame["status"] != OK].copy()
    if "message" not in failed.columns:
        failed["message"] = ""
    failed["message"] = failed["message"].fillna("").astype(str)
    counts = failed.groupby(columns, sort=True).size().rename("count").reset_index()
    counts = counts.sort_values(
        ["count", "generator", "learner"], ascending=[False, True, True], kind="stable"
    )
    return counts.reset_index(drop=True)
