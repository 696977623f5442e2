"""Tests for the batched bootstrap of skggm_bench.benchmark.analysis._ranking.

The leaderboard draws and reads the bootstrap of many groups at once. Each batched
helper is checked against the computation it replaces, done group by group the
plain way (a pandas groupby per group, one ``randint`` call per group,
``np.nanpercentile`` per group), for exact equality: batching must neither change
a number nor hand one group's draws or sums to another.
"""

import numpy as np
import pandas as pd
import pytest

from skggm_bench.benchmark.analysis import _ranking
from skggm_bench.benchmark.analysis._ranking import (
    bootstrap_indices,
    bootstrap_runs,
    group_boards,
    long_ranks,
    multiplicities,
    percentile_interval,
    percentile_intervals,
    ratio,
    resampled_sums,
)


def study(seed=0):
    """Results of 4 learners in 6 groups (generator x density, one density NaN).

    The groups have 6, 6, 3, 1, 6 and 2 repeats (so that runs of groups with as
    many units break), each its own level of values (so that a group given
    another's draws or sums gets other numbers), a few failures and missing rows,
    and a learner without any value in one group.
    """
    rng = np.random.default_rng(seed)
    rows = []
    groups = [(g, d) for g in ("DD", "TO") for d in (0.1, 0.2, np.nan)]
    for index, ((generator, density), n_repeats) in enumerate(
        zip(groups, (6, 6, 3, 1, 6, 2), strict=True)
    ):
        for repeat in range(n_repeats):
            for n_samples in (50, 100, 200):
                for learner in "abcd":
                    # Learner d fails everywhere in the third group.
                    failed = rng.random() < 0.1 or (index, learner) == (2, "d")
                    rows.append(
                        {
                            "generator": generator,
                            "graph": "erdos_renyi",
                            "data_model": "gaussian",
                            "n_features": 10,
                            "density": density,
                            "n_samples": n_samples,
                            "repeat": repeat,
                            "learner": learner,
                            "f1": np.nan if failed else index + rng.random(),
                            "status": "failed" if failed else "ok",
                        }
                    )
    frame = pd.DataFrame(rows)
    return frame[rng.random(len(frame)) > 0.05].reset_index(drop=True)


def test_bootstrap_runs_are_the_draws_of_the_groups_one_after_the_other(monkeypatch):
    n_units = np.array([3, 3, 3, 0, 5, 1, 1, 0, 0, 5, 5, 2])
    # Batches as large as allowed, then (a tiny limit) one group per batch.
    for limit in (_ranking._BATCH_ELEMENTS, 1):
        monkeypatch.setattr(_ranking, "_BATCH_ELEMENTS", limit)
        expected_rng, rng = np.random.RandomState(7), np.random.RandomState(7)
        expected = [
            bootstrap_indices(n, 40, expected_rng) if n else np.zeros((40, 0), int)
            for n in n_units
        ]
        drawn = []
        for start, stop, indices in bootstrap_runs(n_units, 40, rng, width=4):
            assert len(indices) == stop - start
            assert (n_units[start:stop] == indices.shape[2]).all()
            drawn.extend(indices)
        assert len(drawn) == len(n_units)
        for got, want in zip(drawn, expected, strict=True):
            np.testing.assert_array_equal(got, want)
        # The stream is left where the group-by-group draws leave it.
        assert rng.randint(10**9) == expected_rng.randint(10**9)


def test_bootstrap_runs_batch_successive_groups_with_as_many_units():
    runs = [
        (start, stop)
        for start, stop, _ in bootstrap_runs(
            np.array([2, 2, 4, 4, 4, 2]), 10, np.random.RandomState(0), width=3
        )
    ]
    assert runs == [(0, 2), (2, 5), (5, 6)]


def test_multiplicities_count_the_draws_of_each_replicate():
    indices = np.random.RandomState(1).randint(5, size=(3, 20, 5))
    weights = multiplicities(indices, 5)
    assert weights.shape == (3, 20, 5)
    for group, replicates in enumerate(indices):
        for replicate, drawn in enumerate(replicates):
            np.testing.assert_array_equal(
                weights[group, replicate], np.bincount(drawn, minlength=5)
            )


@pytest.mark.parametrize("k", [1, 2, 4, 13])
@pytest.mark.parametrize("n", [1, 3, 12, 40])
def test_resampled_sums_add_in_the_order_of_each_groups_draws(k, n):
    rng = np.random.default_rng(2)
    # Values whose sums depend on the order of addition.
    sums = rng.random((5, n, k)) * 10.0 ** rng.integers(-8, 8, size=(5, n, k))
    indices = rng.integers(0, n, size=(5, 30, n))
    got = resampled_sums(sums, indices)
    for group in range(5):
        # The computation of one group alone, as the per-group bootstrap did it.
        np.testing.assert_array_equal(
            got[group], sums[group][indices[group]].sum(axis=1)
        )


def test_percentile_intervals_equal_nanpercentile_group_by_group():
    rng = np.random.default_rng(3)
    replicates = rng.normal(size=(6, 200, 5))
    replicates[0, rng.random(200) < 0.3, 1] = np.nan  # some NaN in one column
    replicates[1, :, 2] = np.nan  # a column without any value
    replicates[2, :199, 0] = np.nan  # one value left
    replicates[3] = np.round(replicates[3], 1)  # many equal values
    replicates[4, :, :] = rng.normal(size=(200, 5)) + 10 * np.arange(5)
    n_units = np.array([10, 10, 10, 10, 1, 0])
    low, high = percentile_intervals(replicates, 0.9, n_units)
    for group in range(6):
        want = percentile_interval(replicates[group], 0.9, int(n_units[group]))
        np.testing.assert_array_equal(low[group], want[0])
        np.testing.assert_array_equal(high[group], want[1])
    assert np.isnan(low[4:]).all()  # fewer than two units: no interval


def reference_boards(ranks, group_columns, learners, confidence, n_bootstrap, rng):
    """Mean rank and metric and their intervals, one group at a time (the old way).

    Rows per group (sorted, NaN last) and learner (in ``learners`` order).
    """
    columns = {}
    for _, part in ranks.groupby(group_columns, sort=True, dropna=False):
        units = sorted(part["repeat"].unique())
        arrays = {}
        for column in ("rank", "value"):
            grouped = part.groupby(["repeat", "learner"])[column]
            arrays[column] = (
                grouped.sum(min_count=1)
                .unstack("learner")
                .reindex(index=units, columns=learners)
                .fillna(0.0)
                .to_numpy(float)
            )
            arrays[f"{column}_count"] = (
                grouped.count()
                .unstack("learner")
                .reindex(index=units, columns=learners)
                .fillna(0)
                .to_numpy(float)
            )
        indices = bootstrap_indices(len(units), n_bootstrap, rng)
        for name, column in (("rank", "rank"), ("metric", "value")):
            sums, counts = arrays[column], arrays[f"{column}_count"]
            point = ratio(sums.sum(axis=0), counts.sum(axis=0))
            replicates = ratio(sums[indices].sum(axis=1), counts[indices].sum(axis=1))
            low, high = percentile_interval(replicates, confidence, len(units))
            for what, values in (("mean", point), ("low", low), ("high", high)):
                columns.setdefault(f"{what}_{name}", []).extend(values)
        status = part.groupby("learner")["status"]
        for column, statuses in (
            ("n_ok", ["ok"]),
            ("n_failed", ["failed"]),
            ("n_missing", ["missing"]),
        ):
            counts = status.agg(lambda values, s=statuses: values.isin(s).sum())
            columns.setdefault(column, []).extend(
                counts.reindex(learners, fill_value=0)
            )
    return pd.DataFrame(columns)


@pytest.mark.parametrize("limit", [None, 1])
def test_group_boards_equal_the_bootstrap_of_each_group_alone(monkeypatch, limit):
    if limit is not None:  # one group per batch
        monkeypatch.setattr(_ranking, "_BATCH_ELEMENTS", limit)
    frame = study()
    learners = sorted(frame["learner"].unique())
    ranks = long_ranks(frame, "f1", learners)
    columns = ["generator", "density"]
    board = group_boards(
        ranks, columns, learners, True, 0.9, 300, np.random.RandomState(5)
    )
    want = reference_boards(
        ranks, columns, learners, 0.9, 300, np.random.RandomState(5)
    )
    group = board.groupby(columns, sort=True, dropna=False).ngroup()
    assert group.nunique() == 6
    got = board.assign(_group=group).sort_values(["_group", "learner"])
    # A learner without a value in its group has no rank there (a rule of the
    # board, applied after the bootstrap).
    no_data = got["mean_metric"].isna().to_numpy()
    assert no_data.any()
    for column, reference in {
        "mean_rank": "mean_rank",
        "rank_low": "low_rank",
        "rank_high": "high_rank",
        "mean_metric": "mean_metric",
        "metric_low": "low_metric",
        "metric_high": "high_metric",
        "n_ok": "n_ok",
        "n_failed": "n_failed",
        "n_missing": "n_missing",
    }.items():
        expected = want[reference].to_numpy()
        if reference.endswith("_rank"):
            expected = np.where(no_data, np.nan, expected)
        np.testing.assert_array_equal(got[column].to_numpy(), expected, err_msg=column)
