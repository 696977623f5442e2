"""Tests for the batched pairing of skggm_bench.benchmark.analysis._comparisons.

A comparison builds the per-repeat arrays of every group of both sides in one
grouped pass and bootstraps many groups at once; each step is checked against the
computation it replaces, group by group (a row mask and a pandas groupby per
group, one draw per group), for exact equality.
"""

import numpy as np
import pandas as pd
import pytest

from skggm_bench.benchmark.analysis import _ranking
from skggm_bench.benchmark.analysis._comparisons import (
    _agreement_row,
    _agreement_rows,
    _Comparison,
    _paired_rank_gains,
    compare,
    generator_agreement,
    rank_shift,
)
from skggm_bench.benchmark.analysis._ranking import (
    bootstrap_weights,
    percentile_interval,
    ratio,
)


def comparison(frame):
    return _Comparison(
        frame, "f1", "DD", "TO", "generator", ("density", "n_samples"), 1e-4
    )


def sides_frame():
    """Two generators, 4 learners, groups (density x n_samples) of different sizes.

    Each group has its own level of values; a density is NaN (a family's default);
    TO lacks repeat 0 at n = 50, DD has no row at density 0.2 and n = 200, and a
    few fits failed or are missing.
    """
    rng = np.random.default_rng(1)
    rows = [
        {
            "generator": generator,
            "graph": "erdos_renyi",
            "data_model": "gaussian",
            "n_features": 10,
            "density": density,
            "n_samples": n_samples,
            "repeat": repeat,
            "learner": learner,
            "f1": 10 * index + rng.random(),
            "status": "ok",
        }
        for generator in ("DD", "TO")
        for index, (density, n_samples) in enumerate(
            (d, n) for d in (0.1, 0.2, np.nan) for n in (50, 100, 200)
        )
        for repeat in range(3 + index % 4)
        for learner in "abcd"
    ]
    frame = pd.DataFrame(rows)
    failed = rng.random(len(frame)) < 0.1
    frame.loc[failed, "status"], frame.loc[failed, "f1"] = "failed", np.nan
    drop = (frame["generator"] == "TO") & (frame["repeat"] == 0)
    drop &= frame["n_samples"] == 50
    drop |= (
        (frame["generator"] == "DD")
        & (frame["density"] == 0.2)
        & (frame["n_samples"] == 200)
    )
    drop |= rng.random(len(frame)) < 0.05
    return frame[~drop].reset_index(drop=True)


def reference_pairs(compared):
    """Per group: the shared repeats and each side's arrays, the old way."""
    columns, learners = compared.group_columns, compared.learners
    keys = pd.concat([r[columns] for r in compared.ranks.values()]).drop_duplicates()
    result = []
    for key, _ in keys.groupby(columns, sort=True, dropna=False):
        parts = []
        for ranks in compared.ranks.values():
            mask = np.ones(len(ranks), dtype=bool)
            for column, value in zip(columns, key, strict=True):
                same = (
                    ranks[column].isna() if pd.isna(value) else ranks[column] == value
                )
                mask &= same.to_numpy()
            parts.append(ranks[mask])
        units = sorted(set(parts[0]["repeat"]) & set(parts[1]["repeat"]))
        arrays = []
        for part in parts:
            grouped = {
                c: part.groupby(["repeat", "learner"])[c] for c in ("rank", "value")
            }

            def wide(series, units=units):
                table = series.unstack("learner").reindex(index=units, columns=learners)
                return table.fillna(0.0).to_numpy(float)

            arrays.append(
                {
                    "rank": wide(grouped["rank"].sum(min_count=1)),
                    "rank_count": wide(grouped["rank"].count()),
                    "value_count": wide(grouped["value"].count()),
                }
            )
        result.append((key, units, *arrays))
    return result


def test_paired_arrays_are_those_of_each_group_alone():
    compared = comparison(sides_frame())
    keys, paired = compared.paired()
    want = reference_pairs(compared)
    assert len(keys) == len(want) == 3 * 3
    assert {pair.n_units for pair in paired} > {0}  # groups of different sizes
    for key, pair, (want_key, units, source, target) in zip(
        keys, paired, want, strict=True
    ):
        assert key == want_key or (
            pd.isna(key[0]) and pd.isna(want_key[0]) and key[1:] == want_key[1:]
        )
        assert pair.n_units == len(units)
        for got, expected in ((pair.source, source), (pair.target, target)):
            assert got.keys() == expected.keys()
            for name in got:
                np.testing.assert_array_equal(got[name], expected[name], name)


@pytest.mark.parametrize("limit", [None, 1])
def test_paired_rank_gains_equal_the_bootstrap_of_each_group_alone(monkeypatch, limit):
    if limit is not None:  # one group per batch
        monkeypatch.setattr(_ranking, "_BATCH_ELEMENTS", limit)
    compared = comparison(sides_frame())
    _, paired = compared.paired()
    k = len(compared.learners)
    gains = _paired_rank_gains(paired, k, 0.9, 200, np.random.RandomState(3))
    rng = np.random.RandomState(3)
    for (_, units, source, target), got in zip(
        reference_pairs(compared), gains, strict=True
    ):
        if not units:
            assert np.isnan(got).all()
            continue
        weights = bootstrap_weights(len(units), 200, rng)

        def mean_ranks(weights, arrays):
            return ratio(weights @ arrays["rank"], weights @ arrays["rank_count"])

        ones = np.ones((1, len(units)))
        point = (mean_ranks(ones, source) - mean_ranks(ones, target))[0]
        replicates = mean_ranks(weights, source) - mean_ranks(weights, target)
        low, high = percentile_interval(replicates, 0.9, len(units))
        for got_values, want_values in zip(got, (point, low, high), strict=True):
            np.testing.assert_array_equal(got_values, want_values)


def test_agreement_rows_draw_as_the_groups_one_after_the_other(monkeypatch):
    monkeypatch.setattr(_ranking, "_BATCH_ELEMENTS", 10**9)
    _, paired = comparison(sides_frame()).paired()
    rows = _agreement_rows(paired, 0.9, 200, np.random.RandomState(4))
    rng = np.random.RandomState(4)
    want = [
        _agreement_row(pair, bootstrap_weights(pair.n_units, 200, rng), 0.9)
        for pair in paired
    ]
    assert sum(row["comparison"] == "compared" for row in want) > 1
    assert len(rows) == len(want)
    for got, expected in zip(rows, want, strict=True):
        assert got.keys() == expected.keys()
        for name, value in expected.items():
            assert got[name] == value or (pd.isna(got[name]) and pd.isna(value))


@pytest.mark.parametrize("by", [("density", "n_samples"), ()])
def test_compare_gives_the_tables_of_rank_shift_and_generator_agreement(by):
    frame = sides_frame()
    keywords = {"by": by, "n_bootstrap": 200}
    shift, agreement = compare(frame, "f1", "DD", "TO", **keywords)
    pd.testing.assert_frame_equal(
        shift, rank_shift(frame, "f1", "DD", "TO", **keywords), check_exact=True
    )
    pd.testing.assert_frame_equal(
        agreement,
        generator_agreement(frame, "f1", "DD", "TO", **keywords),
        check_exact=True,
    )
    assert shift.attrs == rank_shift(frame, "f1", "DD", "TO", **keywords).attrs


def test_the_overall_agreement_pools_every_group():
    # The overall row does not depend on the grouping (its interval does: the
    # groups draw first); the per-repeat arrays of the groups and of the whole
    # table are kept apart.
    frame = sides_frame()
    grouped = compare(frame, "f1", "DD", "TO", by=("density", "n_samples"))[1]
    pooled = compare(frame, "f1", "DD", "TO", by=())[1]
    columns = ["tau", "n_learners", "n_repeats", "comparison"]
    assert len(pooled) == 1
    assert grouped[columns].iloc[-1].tolist() == pooled[columns].iloc[0].tolist()
    assert pooled["n_repeats"].iloc[0] == frame["repeat"].nunique()
