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

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from sklearn.utils import check_random_state

from ..results._messages import (
    selection_remark,
    short_reason,
    undefined_reason,
    warning_classes,
)
from ..results._schema import GRID_COLUMNS
from ._comparisons import generator_agreement, rank_shift
from ._ranking import (
    DEFAULT_TIE_TOLERANCE,
    MIN_REPEATS,
    OK,
    as_columns,
    check_bootstrap,
    check_by,
    check_frame,
    check_tie_tolerance,
    greater_is_better,
    group_boards,
    long_ranks,
)
from ._significance import critical_difference, win_probability

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
    result = group_boards(
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
    if board["position"].notna().all():
        return [""] * len(board)
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

    def lookup(table: pd.DataFrame) -> dict[tuple[object, ...], object]:
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


def _per_message(messages: pd.Series, read: Callable[[object], object]) -> pd.Series:
    """``messages.map(read)``, reading each distinct message once.

    A study's rows share a handful of messages (most are empty); reading all of
    them is most of the cost of the selection and warning counts.
    """
    codes, distinct = pd.factorize(messages, use_na_sentinel=False)
    read_once = np.empty(len(distinct), dtype=object)
    for index, message in enumerate(distinct):  # (a list per message may be read)
        read_once[index] = read(message)
    return pd.Series(read_once[codes], index=messages.index, dtype=object)


def _selection_counts(frame: pd.DataFrame, group_columns: list[str]) -> pd.DataFrame:
    """Per group and learner, its ``ok`` fits that selected every pair, or none."""
    keys = [*group_columns, "learner"]
    ok = frame[frame["status"] == OK]
    if "message" in ok.columns:
        remark = _per_message(ok["message"], selection_remark)
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
    remark = _per_message(ok["message"], selection_remark)
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
    classes = _per_message(ok["message"], warning_classes)
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
