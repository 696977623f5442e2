"""Pairwise win probabilities, the Friedman test and the Nemenyi critical difference.

:func:`win_probability` and :func:`critical_difference` of
:mod:`~skggm_bench.benchmark.analysis.leaderboard` (which documents the procedure
and re-exports them).
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Sequence

import numpy as np
import pandas as pd
import scipy.stats
from sklearn.utils import check_random_state

from ._ranking import (
    COMPARED,
    DEFAULT_TIE_TOLERANCE,
    NO_DATA,
    block_values,
    bootstrap_weights,
    check_bootstrap,
    check_by,
    check_frame,
    check_tie_tolerance,
    insert_key,
    percentile_interval,
    rank_matrix,
    ratio,
    wide_groups,
)

__all__ = ["critical_difference", "win_probability"]


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
                "comparison": np.where(usable, COMPARED, NO_DATA),
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
