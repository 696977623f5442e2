"""Tests for skggm_bench.benchmark.leaderboard on hand-built result tables.

Every expected rank, count and flag below is worked out by hand from the table the
test builds; the bootstrap is checked against the closed-form standard error of a
mean over independent repeats.
"""

import itertools

import numpy as np
import pandas as pd
import pytest

from skggm_bench.benchmark.leaderboard import (
    LOWER_IS_BETTER,
    failure_summary,
    format_leaderboard,
    leaderboard,
    rank_shift,
    scenario_ranks,
)


def results(scores, *, n_samples=(100,), metric="f1", **fixed):
    """A result table from ``{(generator, density, learner): [value per repeat]}``.

    A value ``None`` makes a failed row; every n_samples gets the same value.
    """
    rows = []
    for (generator, density, learner), values in scores.items():
        for repeat, value in enumerate(values):
            for n in n_samples:
                rows.append(
                    {
                        "generator": generator,
                        "learner": learner,
                        "density": density,
                        "n_features": 20,
                        "n_samples": n,
                        "repeat": repeat,
                        "seed": 1000 + repeat,
                        metric: np.nan if value is None else float(value),
                        "fit_time": 0.1,
                        "status": "failed" if value is None else "ok",
                        "message": "ValueError: boom" if value is None else "",
                        "versions": "{}",
                        **fixed,
                    }
                )
    return pd.DataFrame(rows)


def by_learner(board):
    return board.set_index("learner")


# --------------------------------------------------------------------------------------
# Ranks within blocks
# --------------------------------------------------------------------------------------


def test_ranks_within_each_block_best_first_with_average_ties():
    frame = results(
        {
            ("G", 0.1, "a"): [0.2, 0.5],
            ("G", 0.1, "b"): [0.9, 0.5],
            ("G", 0.1, "c"): [0.4, 0.1],
        }
    )
    ranks = scenario_ranks(frame, "f1").set_index(["repeat", "learner"])["rank"]
    # repeat 0: b (0.9) > c (0.4) > a (0.2); repeat 1: a = b (0.5) tie for 1-2 > c.
    assert ranks[0].to_dict() == {"a": 3.0, "b": 1.0, "c": 2.0}
    assert ranks[1].to_dict() == {"a": 1.5, "b": 1.5, "c": 3.0}


@pytest.mark.parametrize("metric", ["shd", "fpr", "fit_time"])
def test_lower_is_better_metrics_rank_the_smallest_value_first(metric):
    assert metric in LOWER_IS_BETTER
    frame = results(
        {("G", 0.1, "small"): [3.0, 2.0], ("G", 0.1, "large"): [9.0, 8.0]},
        metric=metric if metric != "fit_time" else "f1",
    )
    if metric == "fit_time":
        frame["fit_time"] = np.where(frame["learner"] == "small", 0.1, 5.0)
    board = leaderboard(frame, metric)
    assert board["learner"].tolist() == ["small", "large"]
    assert board.attrs["higher_is_better"] is False


def test_higher_is_better_by_default():
    frame = results({("G", 0.1, "small"): [3.0], ("G", 0.1, "large"): [9.0]})
    assert leaderboard(frame, "f1")["learner"].tolist() == ["large", "small"]


def test_failed_rows_are_excluded_from_the_metric_but_rank_last_and_are_counted():
    # "fragile" is excellent where it runs but fails on the hard density; "steady"
    # is mediocre everywhere. Scored only where it ran, fragile would look best.
    frame = results(
        {
            ("G", 0.1, "fragile"): [0.9, 0.9, 0.9],
            ("G", 0.1, "steady"): [0.8, 0.8, 0.8],
            ("G", 0.5, "fragile"): [None, None, None],
            ("G", 0.5, "steady"): [0.3, 0.3, 0.3],
        }
    )
    overall = by_learner(leaderboard(frame, "f1", by=()))
    # Mean metric over ok rows only: fragile 0.9 (3 rows), steady (0.8+0.3)/2.
    assert overall.loc["fragile", "mean_metric"] == pytest.approx(0.9)
    assert overall.loc["steady", "mean_metric"] == pytest.approx(0.55)
    # Ranks: fragile 1 at 0.1 and last (2) at 0.5 -> 1.5; steady 2 then 1 -> 1.5.
    assert overall.loc["fragile", "mean_rank"] == pytest.approx(1.5)
    assert overall.loc["steady", "mean_rank"] == pytest.approx(1.5)
    assert overall.loc["fragile", "n_failed"] == 3
    assert overall.loc["fragile", "n_ok"] == 3
    assert overall.loc["steady", "n_failed"] == 0
    hard = leaderboard(frame, "f1").query("density == 0.5").set_index("learner")
    assert hard.loc["steady", "position"] == 1
    assert hard.loc["fragile", "position"] == 2
    assert np.isnan(hard.loc["fragile", "mean_metric"])


def test_missing_rows_rank_last_and_are_counted_separately():
    frame = results(
        {("G", 0.1, "a"): [0.1, 0.1, 0.1], ("G", 0.1, "b"): [0.9, 0.9, 0.9]}
    )
    frame = frame.drop(frame.index[(frame.learner == "b") & (frame.repeat == 2)])
    board = by_learner(leaderboard(frame, "f1"))
    # b: rank 1, 1, then missing -> last (2): mean 4/3; a: 2, 2, 1 -> 5/3.
    assert board.loc["b", "mean_rank"] == pytest.approx(4 / 3)
    assert board.loc["a", "mean_rank"] == pytest.approx(5 / 3)
    assert board.loc["b", "n_missing"] == 1
    assert board.loc["b", "n_failed"] == 0
    assert board.loc["b", "n_blocks"] == 3


def test_nan_metric_on_an_ok_row_ranks_last():
    frame = results({("G", 0.1, "a"): [0.1], ("G", 0.1, "b"): [0.9]})
    frame.loc[frame.learner == "b", "f1"] = np.nan  # e.g. an undefined metric
    ranks = scenario_ranks(frame, "f1").set_index("learner")["rank"]
    assert ranks.to_dict() == {"a": 1.0, "b": 2.0}


def test_rows_without_density_are_ranked_not_dropped():
    # Fixed-structure graph families store no density (NaN).
    frame = results({("G", np.nan, "a"): [0.1, 0.2], ("G", np.nan, "b"): [0.5, 0.6]})
    board = leaderboard(frame, "f1")
    assert len(board) == 2 and board["density"].isna().all()
    assert board["learner"].tolist() == ["b", "a"]


# --------------------------------------------------------------------------------------
# Aggregation, intervals, ties
# --------------------------------------------------------------------------------------


def test_groups_positions_and_grouping_columns():
    frame = results(
        {
            ("DD", 0.1, "a"): [0.9, 0.8],
            ("DD", 0.1, "b"): [0.1, 0.2],
            ("DD", 0.3, "a"): [0.1, 0.2],
            ("DD", 0.3, "b"): [0.9, 0.8],
            ("TO", 0.1, "a"): [0.5, 0.5],
            ("TO", 0.1, "b"): [0.6, 0.6],
        },
        n_samples=(50, 100),
    )
    board = leaderboard(frame, "f1", by=("density",))
    assert list(board.columns[:4]) == ["generator", "density", "learner", "position"]
    winners = board[board.position == 1].set_index(["generator", "density"])["learner"]
    assert winners.to_dict() == {("DD", 0.1): "a", ("DD", 0.3): "b", ("TO", 0.1): "b"}
    # 2 n_samples x 2 repeats = 4 blocks per (generator, density, learner).
    assert (board["n_blocks"] == 4).all()
    pooled = leaderboard(frame, "f1", by=())
    dd = pooled[pooled.generator == "DD"].set_index("learner")
    assert dd.loc["a", "mean_rank"] == dd.loc["b", "mean_rank"] == 1.5
    split = leaderboard(frame, "f1", by=("density", "n_samples"))
    assert len(split) == 3 * 2 * 2  # 3 (generator, density) x 2 n_samples x 2


def test_constant_results_give_zero_width_intervals():
    frame = results(
        {("G", 0.1, "a"): [0.7] * 5, ("G", 0.1, "b"): [0.2] * 5}, n_samples=(50, 100)
    )
    board = by_learner(leaderboard(frame, "f1"))
    assert board.loc["a", ["rank_low", "mean_rank", "rank_high"]].tolist() == [1, 1, 1]
    assert board.loc["a", "metric_low"] == pytest.approx(0.7)
    assert board.loc["a", "metric_high"] == pytest.approx(0.7)
    assert not board["tie"].any()


def test_bootstrap_resamples_repeats_not_rows():
    # Each repeat has a shared random effect u_r over its 4 sample sizes (as a
    # shared graph gives), plus small per-row noise. Resampling repeats gives a
    # 95% half-width ~ 1.96 * sd(repeat means) / sqrt(R); resampling the 4R rows
    # independently would give about half of that. With R=40 and 2000 replicates
    # the percentile endpoints carry ~3% Monte-Carlo error and the t/normal
    # difference is ~1%, so a 10% tolerance separates the two by far.
    rng = np.random.RandomState(0)
    n_repeats, sizes = 40, (25, 50, 100, 200)
    rows = []
    for repeat in range(n_repeats):
        effect = rng.normal(0.5, 0.1)
        for n in sizes:
            for learner, shift in (("a", 0.0), ("b", -0.3)):
                rows.append(
                    dict(
                        generator="G",
                        learner=learner,
                        density=0.1,
                        n_features=20,
                        n_samples=n,
                        repeat=repeat,
                        f1=effect + shift + rng.normal(0, 0.01),
                        status="ok",
                    )
                )
    frame = pd.DataFrame(rows)
    board = by_learner(leaderboard(frame, "f1", n_bootstrap=2000))
    repeat_means = frame[frame.learner == "a"].groupby("repeat")["f1"].mean()
    expected = 1.96 * repeat_means.std(ddof=0) / np.sqrt(n_repeats)
    half = (board.loc["a", "metric_high"] - board.loc["a", "metric_low"]) / 2
    assert half == pytest.approx(expected, rel=0.10)
    assert (
        board.loc["a", "metric_low"]
        < repeat_means.mean()
        < board.loc["a", "metric_high"]
    )


def test_bootstrap_is_reproducible_and_seeded():
    rng = np.random.RandomState(1)
    frame = results(
        {("G", 0.1, name): rng.uniform(size=8).tolist() for name in "abc"},
    )
    first = leaderboard(frame, "f1")
    pd.testing.assert_frame_equal(first, leaderboard(frame, "f1"))
    other = leaderboard(frame, "f1", random_state=1)
    assert not np.allclose(first["metric_low"], other["metric_low"])
    # Point estimates do not depend on the bootstrap.
    np.testing.assert_allclose(first["mean_metric"], other["mean_metric"])


def test_tie_flags_follow_interval_overlap():
    # a and b alternate wins (mean rank 1.5 each, intervals overlap); c is always
    # last (interval [3, 3]) and overlaps nobody.
    frame = results(
        {
            ("G", 0.1, "a"): [0.9, 0.5] * 4,
            ("G", 0.1, "b"): [0.5, 0.9] * 4,
            ("G", 0.1, "c"): [0.1] * 8,
        }
    )
    board = by_learner(leaderboard(frame, "f1"))
    assert board.loc["a", "tie"] and board.loc["b", "tie"]
    assert board.loc["a", "tied_with"] == "b"
    assert board.loc["b", "tied_with"] == "a"
    assert not board.loc["c", "tie"] and board.loc["c", "tied_with"] == ""
    assert board.loc["a", "position"] == board.loc["b", "position"] == 1
    assert board.loc["c", "position"] == 3
    assert board.loc["a", "rank_low"] < 1.5 < board.loc["a", "rank_high"]


def test_single_repeat_has_no_interval_and_ties_only_on_equal_ranks():
    frame = results(
        {("G", 0.1, "a"): [0.9], ("G", 0.1, "b"): [0.9], ("G", 0.1, "c"): [0.1]}
    )
    board = by_learner(leaderboard(frame, "f1"))
    assert board[["rank_low", "rank_high", "metric_low"]].isna().all().all()
    assert board.loc["a", "tie"] and board.loc["b", "tie"]
    assert not board.loc["c", "tie"]


def test_format_leaderboard_marks_ties_and_failures():
    frame = results(
        {("G", 0.1, "a"): [0.9, 0.5, None], ("G", 0.1, "b"): [0.5, 0.9, 0.4]},
    )
    table = format_leaderboard(leaderboard(frame, "f1")).set_index("learner")
    assert table.loc["a", "failed"] == "1/3"
    assert table.loc["b", "failed"] == "0/3"
    assert table.loc["a", "position"].endswith("=")
    assert table.loc["a", "f1 [95% CI]"].startswith("0.70 [")


# --------------------------------------------------------------------------------------
# Rank shift
# --------------------------------------------------------------------------------------


def test_rank_shift_on_a_known_reordering():
    # DD: a > b > c in every repeat; TO: c > a > b in every repeat.
    repeats = 6
    frame = results(
        {
            ("DD", 0.25, "a"): [0.9] * repeats,
            ("DD", 0.25, "b"): [0.6] * repeats,
            ("DD", 0.25, "c"): [0.3] * repeats,
            ("TO", 0.25, "a"): [0.6] * repeats,
            ("TO", 0.25, "b"): [0.4] * repeats,
            ("TO", 0.25, "c"): [0.8] * repeats,
        }
    )
    shift = rank_shift(frame, "f1", "DD", "TO").set_index("learner")
    assert shift["position_from"].to_dict() == {"a": 1, "b": 2, "c": 3}
    assert shift["position_to"].to_dict() == {"a": 2, "b": 3, "c": 1}
    assert shift["places_gained"].to_dict() == {"a": -1, "b": -1, "c": 2}
    assert shift["rank_gain"].to_dict() == {"a": -1.0, "b": -1.0, "c": 2.0}
    assert shift["significant"].all()
    assert shift.loc["c", "mean_metric_from"] == pytest.approx(0.3)
    assert shift.loc["c", "mean_metric_to"] == pytest.approx(0.8)
    # Ordered by the new ranking.
    assert list(shift.index) == ["c", "a", "b"]
    assert shift.attrs["from_generator"] == "DD"


def test_rank_shift_interval_covers_zero_without_a_systematic_change():
    # a and b alternate wins under both generators, in opposite phases: the mean
    # ranks are 1.5 everywhere, so the paired change is 0 on average.
    frame = results(
        {
            ("DD", 0.1, "a"): [0.9, 0.1] * 5,
            ("DD", 0.1, "b"): [0.1, 0.9] * 5,
            ("TO", 0.1, "a"): [0.1, 0.9] * 5,
            ("TO", 0.1, "b"): [0.9, 0.1] * 5,
        }
    )
    shift = rank_shift(frame, "f1", "DD", "TO").set_index("learner")
    assert shift.loc["a", "rank_gain"] == 0
    assert shift.loc["a", "rank_gain_low"] < 0 < shift.loc["a", "rank_gain_high"]
    assert not shift["significant"].any()


def test_rank_shift_per_density_and_pooled():
    frame = results(
        {
            ("DD", 0.05, "a"): [0.9] * 3,
            ("DD", 0.05, "b"): [0.1] * 3,
            ("DD", 0.25, "a"): [0.9] * 3,
            ("DD", 0.25, "b"): [0.1] * 3,
            ("TO", 0.05, "a"): [0.9] * 3,
            ("TO", 0.05, "b"): [0.1] * 3,
            ("TO", 0.25, "a"): [0.1] * 3,
            ("TO", 0.25, "b"): [0.9] * 3,
        }
    )
    per_density = rank_shift(frame, "f1", "DD", "TO")
    gained = per_density.set_index(["density", "learner"])["places_gained"]
    assert gained.to_dict() == {
        (0.05, "a"): 0,
        (0.05, "b"): 0,
        (0.25, "b"): 1,
        (0.25, "a"): -1,
    }
    pooled = rank_shift(frame, "f1", "DD", "TO", by=()).set_index("learner")
    # Pooled over both densities: b's mean rank goes from 2 to 1.5.
    assert pooled.loc["b", "rank_gain"] == pytest.approx(0.5)


def test_rank_shift_reports_failures_of_each_generator():
    frame = results(
        {
            ("DD", 0.1, "a"): [0.9, 0.9],
            ("DD", 0.1, "b"): [0.1, 0.1],
            ("TO", 0.1, "a"): [None, None],
            ("TO", 0.1, "b"): [0.1, 0.1],
        }
    )
    shift = rank_shift(frame, "f1", "DD", "TO").set_index("learner")
    assert shift.loc["a", "n_failed_from"] == 0
    assert shift.loc["a", "n_failed_to"] == 2
    assert shift.loc["a", "places_gained"] == -1


def test_rank_shift_errors_name_the_problem():
    frame = results({("DD", 0.1, "a"): [0.1], ("TO", 0.1, "a"): [0.2]})
    with pytest.raises(ValueError, match=r"to_generator='XX'.*available"):
        rank_shift(frame, "f1", "DD", "XX")
    with pytest.raises(ValueError, match="two different generators"):
        rank_shift(frame, "f1", "DD", "DD")
    with pytest.raises(ValueError, match="must not include 'generator'"):
        rank_shift(frame, "f1", "DD", "TO", by=("generator",))


# --------------------------------------------------------------------------------------
# Failures and bad input
# --------------------------------------------------------------------------------------


def test_failure_summary_counts_by_message():
    frame = results({("G", 0.1, "a"): [None, None, 0.3], ("G", 0.1, "b"): [0.1] * 3})
    frame.loc[frame.index[0], "status"] = "timeout"
    frame.loc[frame.index[0], "message"] = "fit exceeded 5 s"
    summary = failure_summary(frame)
    assert summary.to_dict("records") == [
        dict(
            generator="G",
            learner="a",
            status="failed",
            message="ValueError: boom",
            count=1,
        ),
        dict(
            generator="G",
            learner="a",
            status="timeout",
            message="fit exceeded 5 s",
            count=1,
        ),
    ]
    assert failure_summary(frame[frame.status == "ok"]).empty


@pytest.mark.parametrize(
    ("mutate", "error", "match"),
    [
        (
            lambda f: f.drop(columns="status"),
            ValueError,
            r"lacks the result columns \['status'\]",
        ),
        (lambda f: f.iloc[:0], ValueError, "no rows"),
        (lambda f: pd.concat([f, f.iloc[:1]]), ValueError, "sharing a task key"),
        (lambda f: f.to_dict(), TypeError, "pandas DataFrame"),
    ],
)
def test_bad_frames_are_rejected_with_clear_errors(mutate, error, match):
    frame = results({("G", 0.1, "a"): [0.1, 0.2], ("G", 0.1, "b"): [0.3, 0.4]})
    with pytest.raises(error, match=match):
        leaderboard(mutate(frame), "f1")


def test_bad_arguments_are_rejected_with_clear_errors():
    frame = results({("G", 0.1, "a"): [0.1, 0.2], ("G", 0.1, "b"): [0.3, 0.4]})
    with pytest.raises(ValueError, match=r"'f2' is not a column.*'f1'"):
        leaderboard(frame, "f2")
    with pytest.raises(ValueError, match="must be numeric"):
        leaderboard(frame, "message")
    with pytest.raises(ValueError, match=r"by=\['learner'\] are not grid columns"):
        leaderboard(frame, "f1", by=("learner",))
    with pytest.raises(ValueError, match="confidence"):
        leaderboard(frame, "f1", confidence=1.5)
    with pytest.raises(ValueError, match="n_bootstrap"):
        leaderboard(frame, "f1", n_bootstrap=0)


def test_every_grid_combination_appears_once():
    frame = results(
        {
            (g, d, name): [0.5, 0.4]
            for g, d, name in itertools.product("XY", (0.1, 0.2), "abc")
        },
        n_samples=(50, 100),
    )
    board = leaderboard(frame, "f1", by=("density", "n_samples"))
    keys = board[["generator", "density", "n_samples", "learner"]]
    assert not keys.duplicated().any()
    assert len(board) == 2 * 2 * 2 * 3
