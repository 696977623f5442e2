"""Which learner wins, how sure we are, and how the ranking moves with the generator.

The input is the tidy result table of a benchmark (:attr:`BenchmarkResult.frame
<skggm_bench.benchmark.BenchmarkResult>` or :meth:`ResultStore.frame
<skggm_bench.benchmark.store.ResultStore>`): one row per (generator, learner,
n_features, density, n_samples, repeat) with a ``status`` and one column per metric.

How a leaderboard is computed
-----------------------------
1. **Blocks.** A *scenario* is one (generator, n_features, density, n_samples); a
   *block* is one scenario in one repeat. All learners in a block saw the same
   matrix and the same data (the harness's paired design), so they are ranked
   *within* each block: rank 1 is the best value of the metric. The direction is
   explicit: higher is better except for :data:`LOWER_IS_BETTER` (``shd``,
   ``fpr``, ``fit_time``). Equal values share the average rank.
2. **Failures.** A row whose ``status`` is not ``"ok"`` (``"failed"``,
   ``"timeout"``), and a learner with no row at all in a block (``"missing"``, e.g.
   an interrupted run), is *excluded from the mean metric* but *ranked last* in its
   block, and counted in ``n_failed`` / ``n_missing``. A learner that fails where the
   problem is hard therefore cannot look good by being scored only where it is easy.
   A NaN metric on an ``"ok"`` row is likewise ranked last.
3. **Aggregation.** Within a group (the generator plus the ``by`` columns), each
   learner gets its mean rank over the group's blocks and its mean metric over its
   ``"ok"`` rows.
4. **Uncertainty.** 95% percentile bootstrap intervals resample *repeats* (the
   independent unit: one repeat is one random graph, shared by every generator,
   sample size and learner), with the same resampled repeats for every learner so
   that their comparison stays paired. The bootstrap has a fixed ``random_state``:
   the same table always gives the same intervals. With fewer than two repeats no
   interval can be estimated and the bounds are NaN.
5. **Ties.** Two learners are flagged as tied when their mean-rank intervals
   overlap (with NaN intervals: when their mean ranks are equal). Overlap is a
   deliberately conservative rule: a learner is only called better when the
   evidence separates it clearly.

:func:`rank_shift` compares two generators on the same grid: how many places each
learner gains or loses, with a paired bootstrap interval for the change in mean rank
(the paired design shares each repeat's graph across generators).
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd
from sklearn.utils import check_random_state

__all__ = [
    "GRID_COLUMNS",
    "LOWER_IS_BETTER",
    "failure_summary",
    "format_leaderboard",
    "leaderboard",
    "rank_shift",
    "scenario_ranks",
]

#: Columns that define a scenario (one point of the benchmark grid).
GRID_COLUMNS: tuple[str, ...] = ("generator", "n_features", "density", "n_samples")
#: Metrics for which a smaller value is better; every other metric is maximised.
LOWER_IS_BETTER: frozenset[str] = frozenset(
    {
        "shd",
        "structural_hamming_distance",
        "fpr",
        "false_positive_rate",
        "fit_time",
    }
)

_REQUIRED = (*GRID_COLUMNS, "learner", "repeat", "status")
_BLOCK = (*GRID_COLUMNS, "repeat")
_OK = "ok"
_MISSING = "missing"


# --------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------


def _check_frame(frame: object, metric: str) -> pd.DataFrame:
    """The result table, checked for the columns and keys a leaderboard relies on."""
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(
            f"frame must be a pandas DataFrame of benchmark results, got "
            f"{type(frame).__name__}"
        )
    if not isinstance(metric, str):
        raise TypeError(f"metric must be a column name (str), got {metric!r}")
    missing = [column for column in _REQUIRED if column not in frame.columns]
    if missing:
        raise ValueError(
            f"frame lacks the result columns {missing}; expected the schema of "
            "BenchmarkResult.frame"
        )
    if metric not in frame.columns:
        raise ValueError(
            f"metric {metric!r} is not a column of the results; available metrics: "
            f"{sorted(_metric_columns(frame))}"
        )
    if not pd.api.types.is_numeric_dtype(frame[metric]):
        raise ValueError(
            f"metric column {metric!r} must be numeric, got dtype {frame[metric].dtype}"
        )
    if frame.empty:
        raise ValueError("frame has no rows: there is nothing to rank")
    key = [*_BLOCK, "learner"]
    duplicated = frame.duplicated(subset=key, keep=False)
    if duplicated.any():
        first = frame.loc[duplicated, key].iloc[0].to_dict()
        raise ValueError(
            f"frame has {int(duplicated.sum())} rows sharing a task key; each "
            f"(scenario, repeat, learner) must appear once, e.g. {first}"
        )
    return frame


def _metric_columns(frame: pd.DataFrame) -> list[str]:
    ignored = {*_REQUIRED, "seed"}
    return [
        column
        for column in frame.columns
        if column not in ignored and pd.api.types.is_numeric_dtype(frame[column])
    ]


def _check_by(by: object) -> list[str]:
    """``by`` as a list of grid columns, generator first (always present)."""
    if isinstance(by, str):
        by = (by,)
    if not isinstance(by, Iterable):
        raise TypeError(f"by must be a sequence of column names, got {by!r}")
    by = list(by)
    unknown = [column for column in by if column not in GRID_COLUMNS]
    if unknown:
        raise ValueError(
            f"by={unknown} are not grid columns; choose among {list(GRID_COLUMNS)}"
        )
    # Leaderboards are always split by generator: pooling generators would hide the
    # very rank shift the benchmark exists to show.
    return ["generator", *dict.fromkeys(c for c in by if c != "generator")]


def _check_bootstrap(confidence: object, n_bootstrap: object) -> None:
    if not isinstance(confidence, numbers.Real) or not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    if (
        isinstance(n_bootstrap, bool)
        or not isinstance(n_bootstrap, numbers.Integral)
        or n_bootstrap < 1
    ):
        raise ValueError(f"n_bootstrap must be a positive integer, got {n_bootstrap!r}")


# --------------------------------------------------------------------------------------
# Ranks within blocks
# --------------------------------------------------------------------------------------


def scenario_ranks(frame: pd.DataFrame, metric: str = "f1") -> pd.DataFrame:
    """Rank the learners within every (scenario, repeat) block.

    Parameters
    ----------
    frame : pandas.DataFrame
        Benchmark results (the schema of ``BenchmarkResult.frame``).
    metric : str, default="f1"
        Metric column to rank by; smaller is better for :data:`LOWER_IS_BETTER`.

    Returns
    -------
    ranks : pandas.DataFrame
        One row per (block, learner), every learner of ``frame`` in every block,
        with the grid columns, ``repeat``, ``learner``, ``value`` (the metric, NaN
        unless ``status == "ok"``), ``status`` (``"missing"`` when the learner has
        no row in that block) and ``rank`` (1 = best; non-ok rows and NaN values
        share the last places; ties get the average rank).

    Examples
    --------
    >>> import pandas as pd
    >>> from skggm_bench.benchmark.leaderboard import scenario_ranks
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
    frame = _check_frame(frame, metric)
    block = list(_BLOCK)
    learners = sorted(frame["learner"].unique())
    values = frame[metric].astype(float).where(frame["status"] == _OK)
    wide = frame.assign(_value=values).pivot(
        index=block, columns="learner", values="_value"
    )
    wide = wide.reindex(columns=learners)
    status = (
        frame.pivot(index=block, columns="learner", values="status")
        .reindex(columns=learners)
        .fillna(_MISSING)
    )
    # Rank descending on a signed copy so "higher is better" holds for every metric;
    # na_option="bottom" puts failures, timeouts, missing rows and NaNs last.
    sign = -1.0 if metric in LOWER_IS_BETTER else 1.0
    ranks = (sign * wide).rank(
        axis=1, ascending=False, method="average", na_option="bottom"
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


def _unit_arrays(
    ranks: pd.DataFrame, column: str, learners: list[str], units: list
) -> tuple[np.ndarray, np.ndarray]:
    """Per-repeat sums and counts of the non-NaN ``column``: shape (n_units, k)."""
    grouped = ranks.groupby(["repeat", "learner"])[column]
    sums = grouped.sum(min_count=1).unstack("learner")
    counts = grouped.count().unstack("learner")
    sums = sums.reindex(index=units, columns=learners).fillna(0.0).to_numpy(float)
    counts = counts.reindex(index=units, columns=learners).fillna(0).to_numpy(float)
    return sums, counts


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, numerator / np.maximum(denominator, 1), np.nan)


def _bootstrap_indices(
    n_units: int, n_bootstrap: int, rng: np.random.RandomState
) -> np.ndarray:
    return rng.randint(n_units, size=(n_bootstrap, n_units))


def _percentile_interval(
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


def _bootstrap_mean(
    sums: np.ndarray,
    counts: np.ndarray,
    indices: np.ndarray,
    confidence: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pooled mean ``sum / count`` and its bootstrap interval over resampled units."""
    point = _ratio(sums.sum(axis=0), counts.sum(axis=0))
    # (B, n_units, k) -> (B, k): pooled sums over the resampled units.
    replicates = _ratio(sums[indices].sum(axis=1), counts[indices].sum(axis=1))
    low, high = _percentile_interval(replicates, confidence, sums.shape[0])
    return point, low, high


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


def _group_board(
    ranks: pd.DataFrame,
    learners: list[str],
    higher_is_better: bool,
    confidence: float,
    n_bootstrap: int,
    rng: np.random.RandomState,
) -> pd.DataFrame:
    units = sorted(ranks["repeat"].unique())
    indices = _bootstrap_indices(len(units), n_bootstrap, rng)
    rank_sums, rank_counts = _unit_arrays(ranks, "rank", learners, units)
    value_sums, value_counts = _unit_arrays(ranks, "value", learners, units)
    mean_rank, rank_low, rank_high = _bootstrap_mean(
        rank_sums, rank_counts, indices, confidence
    )
    mean_metric, metric_low, metric_high = _bootstrap_mean(
        value_sums, value_counts, indices, confidence
    )
    status = ranks.groupby("learner")["status"]
    tied = _overlaps(rank_low, rank_high, mean_rank)
    names = np.asarray(learners, dtype=object)
    board = pd.DataFrame(
        {
            "learner": learners,
            "mean_rank": mean_rank,
            "rank_low": rank_low,
            "rank_high": rank_high,
            "mean_metric": mean_metric,
            "metric_low": metric_low,
            "metric_high": metric_high,
            "n_blocks": rank_counts.sum(axis=0).astype(int),
            "n_ok": status.apply(lambda s: int((s == _OK).sum()))
            .reindex(learners)
            .to_numpy(),
            "n_failed": status.apply(lambda s: int((~s.isin([_OK, _MISSING])).sum()))
            .reindex(learners)
            .to_numpy(),
            "n_missing": status.apply(lambda s: int((s == _MISSING).sum()))
            .reindex(learners)
            .to_numpy(),
            "n_repeats": len(units),
            "tie": tied.any(axis=1),
            "tied_with": [", ".join(names[row]) for row in tied],
        }
    )
    # Best first: by mean rank, then by the metric itself in its own direction.
    metric_key = -mean_metric if higher_is_better else mean_metric
    order = np.lexsort((names, np.nan_to_num(metric_key, nan=np.inf), mean_rank))
    board = board.iloc[order].reset_index(drop=True)
    board.insert(1, "position", board["mean_rank"].rank(method="min").astype(int))
    return board


def leaderboard(
    frame: pd.DataFrame,
    metric: str = "f1",
    by: Sequence[str] = ("density",),
    *,
    confidence: float = 0.95,
    n_bootstrap: int = 2000,
    random_state: int | np.random.RandomState | None = 0,
) -> pd.DataFrame:
    """Rank learners per scenario and aggregate with bootstrap confidence intervals.

    See the module docstring for the exact procedure (blocks, failures, bootstrap
    over repeats, tie rule).

    Parameters
    ----------
    frame : pandas.DataFrame
        Benchmark results (the schema of ``BenchmarkResult.frame``).
    metric : str, default="f1"
        Metric column to rank by. Higher is better, except for the metrics in
        :data:`LOWER_IS_BETTER` (``"shd"``, ``"fpr"``, ``"fit_time"``).
    by : sequence of str, default=("density",)
        Grid columns that split the leaderboard, among :data:`GRID_COLUMNS`. The
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

    Returns
    -------
    board : pandas.DataFrame
        One row per (group, learner), best first within each group, with the
        grouping columns and ``learner``, ``position`` (1 = best by mean rank),
        ``mean_rank``, ``rank_low``, ``rank_high``, ``mean_metric`` (over ``"ok"``
        rows only), ``metric_low``, ``metric_high``, ``n_blocks``, ``n_ok``,
        ``n_failed`` (failed or timed out), ``n_missing``, ``n_repeats``, ``tie``
        (the rank interval overlaps another learner's) and ``tied_with``
        (comma-separated names). ``board.attrs`` records ``metric``,
        ``higher_is_better``, ``confidence`` and ``n_bootstrap``.

    Raises
    ------
    ValueError
        If ``frame`` lacks a result column, ``metric`` is not a numeric column,
        ``by`` names a non-grid column, the table is empty or has duplicate tasks.

    See Also
    --------
    rank_shift : How the ranking changes between two generators.
    format_leaderboard : Display strings such as ``"1.50 [1.00, 2.00]"``.

    Examples
    --------
    Two learners, three repeats: ``b`` beats ``a`` every time.

    >>> import pandas as pd
    >>> from skggm_bench.benchmark.leaderboard import leaderboard
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
    frame = _check_frame(frame, metric)
    group_columns = _check_by(by)
    _check_bootstrap(confidence, n_bootstrap)
    rng = check_random_state(random_state)
    higher_is_better = metric not in LOWER_IS_BETTER
    ranks = scenario_ranks(frame, metric)
    learners = sorted(frame["learner"].unique())
    boards = []
    # sort=True: groups are visited in a fixed order, so the bootstrap draws (one
    # stream for the whole table) are reproducible.
    for key, group in ranks.groupby(group_columns, sort=True, dropna=False):
        board = _group_board(
            group, learners, higher_is_better, confidence, n_bootstrap, rng
        )
        for column, value in zip(group_columns, key, strict=True):
            board.insert(group_columns.index(column), column, value)
        boards.append(board)
    result = pd.concat(boards, ignore_index=True)
    result.attrs.update(
        metric=metric,
        higher_is_better=higher_is_better,
        confidence=float(confidence),
        n_bootstrap=int(n_bootstrap),
        by=tuple(group_columns),
    )
    return result


# --------------------------------------------------------------------------------------
# Rank shift between two generators
# --------------------------------------------------------------------------------------


def _check_generator(frame: pd.DataFrame, name: object, argument: str) -> str:
    available = sorted(frame["generator"].unique())
    if name not in available:
        raise ValueError(
            f"{argument}={name!r} is not a generator of these results; available: "
            f"{available}"
        )
    return str(name)


def _key_mask(frame: pd.DataFrame, columns: list[str], key: tuple) -> np.ndarray:
    """Rows whose ``columns`` equal ``key``; NaN matches NaN (no-density families)."""
    mask = np.ones(len(frame), dtype=bool)
    for column, value in zip(columns, key, strict=True):
        if pd.isna(value):
            mask &= frame[column].isna().to_numpy()
        else:
            mask &= (frame[column] == value).to_numpy()
    return mask


def _paired_rank_gain(
    ranks_from: pd.DataFrame,
    ranks_to: pd.DataFrame,
    learners: list[str],
    confidence: float,
    n_bootstrap: int,
    rng: np.random.RandomState,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean rank under ``from`` minus under ``to``, bootstrapped over shared repeats."""
    units = sorted(set(ranks_from["repeat"]) & set(ranks_to["repeat"]))
    if not units:
        nan = np.full(len(learners), np.nan)
        return nan, nan, nan
    sums_from, counts_from = _unit_arrays(ranks_from, "rank", learners, units)
    sums_to, counts_to = _unit_arrays(ranks_to, "rank", learners, units)
    indices = _bootstrap_indices(len(units), n_bootstrap, rng)

    def gain(rows: np.ndarray | slice, axis: int) -> np.ndarray:
        return _ratio(
            sums_from[rows].sum(axis=axis), counts_from[rows].sum(axis=axis)
        ) - _ratio(sums_to[rows].sum(axis=axis), counts_to[rows].sum(axis=axis))

    point = gain(slice(None), 0)
    low, high = _percentile_interval(gain(indices, 1), confidence, len(units))
    return point, low, high


def rank_shift(
    frame: pd.DataFrame,
    metric: str = "f1",
    from_generator: str = "DiagonalDominance",
    to_generator: str = "TriangulatedOrthogonalization",
    *,
    by: Sequence[str] = ("density",),
    confidence: float = 0.95,
    n_bootstrap: int = 2000,
    random_state: int | np.random.RandomState | None = 0,
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
        The reference generator and the one compared with it.
    by : sequence of str, default=("density",)
        Grid columns that split the table (not ``"generator"``).
    confidence : float, default=0.95
        Coverage of the bootstrap interval of the rank change.
    n_bootstrap : int, default=2000
        Bootstrap replicates.
    random_state : int, RandomState instance or None, default=0
        Seed of the bootstraps.

    Returns
    -------
    shift : pandas.DataFrame
        One row per (group, learner), ordered by ``position_to``, with the ``by``
        columns, ``learner``, ``position_from``, ``position_to``,
        ``places_gained`` (``position_from - position_to``: positive means the
        learner ranks better under ``to_generator``), ``mean_rank_from``,
        ``mean_rank_to``, ``rank_gain`` (``mean_rank_from - mean_rank_to``) with
        its paired bootstrap interval ``rank_gain_low`` / ``rank_gain_high``
        (resampling the repeats both generators share), ``significant`` (that
        interval excludes 0), ``mean_metric_from``, ``mean_metric_to``,
        ``n_failed_from`` and ``n_failed_to``. ``shift.attrs`` records ``metric``,
        ``from_generator`` and ``to_generator``.

    Raises
    ------
    ValueError
        If a generator is not in ``frame``, the two are the same, or ``by``
        includes ``"generator"`` (plus the errors of :func:`leaderboard`).

    Examples
    --------
    Under ``DD`` learner ``a`` wins; under ``TO`` learner ``b`` does.

    >>> import pandas as pd
    >>> from skggm_bench.benchmark.leaderboard import rank_shift
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
    frame = _check_frame(frame, metric)
    from_generator = _check_generator(frame, from_generator, "from_generator")
    to_generator = _check_generator(frame, to_generator, "to_generator")
    if from_generator == to_generator:
        raise ValueError(
            f"from_generator and to_generator are both {from_generator!r}; a rank "
            "shift needs two different generators"
        )
    by_columns = _check_by(by)[1:]
    if "generator" in ([by] if isinstance(by, str) else list(by)):
        raise ValueError("by must not include 'generator': the two are compared")
    rng = check_random_state(random_state)
    options = {"confidence": confidence, "n_bootstrap": n_bootstrap}
    subsets = {
        side: frame[frame["generator"] == name]
        for side, name in (("from", from_generator), ("to", to_generator))
    }
    boards = {
        side: leaderboard(subset, metric, by_columns, random_state=rng, **options)
        for side, subset in subsets.items()
    }
    ranks = {side: scenario_ranks(subset, metric) for side, subset in subsets.items()}
    learners = sorted(set(frame["learner"]))
    kept = ["learner", "position", "mean_rank", "mean_metric", "n_failed"]
    table = pd.merge(
        boards["from"][[*by_columns, *kept]],
        boards["to"][[*by_columns, *kept]],
        on=[*by_columns, "learner"],
        how="outer",
        suffixes=("_from", "_to"),
    )
    table["places_gained"] = table["position_from"] - table["position_to"]
    gains = []
    groups = (
        table.groupby(by_columns, sort=True, dropna=False)
        if by_columns
        else [((), table)]
    )
    for key, _ in groups:
        key = key if isinstance(key, tuple) else (key,)
        selectors = {side: _key_mask(ranks[side], by_columns, key) for side in ranks}
        point, low, high = _paired_rank_gain(
            ranks["from"][selectors["from"]],
            ranks["to"][selectors["to"]],
            learners,
            confidence,
            n_bootstrap,
            rng,
        )
        part = pd.DataFrame(
            {
                "learner": learners,
                "rank_gain": point,
                "rank_gain_low": low,
                "rank_gain_high": high,
            }
        )
        for column, value in zip(by_columns, key, strict=True):
            part[column] = value
        gains.append(part)
    table = table.merge(pd.concat(gains), on=[*by_columns, "learner"], how="left")
    table["significant"] = (table["rank_gain_low"] > 0) | (table["rank_gain_high"] < 0)
    columns = [
        *by_columns,
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
        "mean_metric_from",
        "mean_metric_to",
        "n_failed_from",
        "n_failed_to",
    ]
    table = table[columns].sort_values(
        [*by_columns, "position_to", "learner"], kind="stable"
    )
    table = table.reset_index(drop=True)
    table.attrs.update(
        metric=metric,
        from_generator=from_generator,
        to_generator=to_generator,
        by=tuple(by_columns),
        confidence=float(confidence),
    )
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
    >>> from skggm_bench.benchmark.leaderboard import failure_summary
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
    failed = frame.loc[frame["status"] != _OK].copy()
    if "message" not in failed.columns:
        failed["message"] = ""
    failed["message"] = failed["message"].fillna("").astype(str)
    counts = failed.groupby(columns, sort=True).size().rename("count").reset_index()
    counts = counts.sort_values(
        ["count", "generator", "learner"], ascending=[False, True, True], kind="stable"
    )
    return counts.reset_index(drop=True)


def _interval(mean: pd.Series, low: pd.Series, high: pd.Series, decimals: int) -> list:
    def one(m: float, lo: float, hi: float) -> str:
        if np.isnan(m):
            return "n/a"
        text = f"{m:.{decimals}f}"
        if not (np.isnan(lo) or np.isnan(hi)):
            text += f" [{lo:.{decimals}f}, {hi:.{decimals}f}]"
        return text

    return [one(*values) for values in zip(mean, low, high, strict=True)]


def format_leaderboard(board: pd.DataFrame, decimals: int = 2) -> pd.DataFrame:
    """A display version of :func:`leaderboard` output, with intervals as text.

    Parameters
    ----------
    board : pandas.DataFrame
        The output of :func:`leaderboard`.
    decimals : int, default=2
        Digits after the decimal point.

    Returns
    -------
    table : pandas.DataFrame
        The grouping columns, ``learner``, ``position`` (suffixed ``=`` when tied),
        ``mean rank [95% CI]``, ``<metric> [95% CI]``, ``failed`` (``n_failed`` plus
        ``n_missing`` of ``n_blocks``) and ``tied with``.

    Examples
    --------
    >>> import pandas as pd
    >>> from skggm_bench.benchmark.leaderboard import format_leaderboard, leaderboard
    >>> frame = pd.DataFrame({
    ...     "generator": "G", "n_features": 10, "density": 0.1, "n_samples": 50,
    ...     "repeat": [0, 0, 1, 1], "learner": ["a", "b"] * 2,
    ...     "f1": [0.2, 0.6, 0.3, 0.7], "status": "ok"})
    >>> format_leaderboard(leaderboard(frame, "f1")).iloc[0, 2:].tolist()
    ['b', '1', '1.00 [1.00, 1.00]', '0.65 [0.60, 0.70]', '0/2', '']
    """
    metric = board.attrs.get("metric", "metric")
    confidence = board.attrs.get("confidence", 0.95)
    label = f"[{100 * confidence:g}% CI]"
    group_columns = list(board.attrs.get("by", ("generator",)))
    table = board[[*group_columns, "learner"]].copy()
    table["position"] = [
        f"{position}{'=' if tie else ''}"
        for position, tie in zip(board["position"], board["tie"], strict=True)
    ]
    table[f"mean rank {label}"] = _interval(
        board["mean_rank"], board["rank_low"], board["rank_high"], decimals
    )
    table[f"{metric} {label}"] = _interval(
        board["mean_metric"], board["metric_low"], board["metric_high"], decimals
    )
    table["failed"] = [
        f"{failed + missing}/{blocks}"
        for failed, missing, blocks in zip(
            board["n_failed"], board["n_missing"], board["n_blocks"], strict=True
        )
    ]
    table["tied with"] = board["tied_with"]
    return table
