"""Tests for skggm_bench.benchmark.analysis.leaderboard on hand-built result tables.

Every expected rank, count and flag below is worked out by hand from the table the
test builds; the bootstrap is checked against the closed-form standard error of a
mean over independent repeats. The Friedman test, the Nemenyi critical difference
and Kendall's tau are checked against scipy (``friedmanchisquare``,
``studentized_range``, ``kendalltau``), against the published table of Demšar
(2006), and for size and power on simulated studies.
"""

import itertools

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from skggm_bench.benchmark.analysis.leaderboard import (
    critical_difference,
    failure_summary,
    generator_agreement,
    leaderboard,
    rank_shift,
    scenario_ranks,
    win_probability,
)
from skggm_bench.benchmark.present import (
    format_interval,
    format_leaderboard,
    format_rank_shift,
)
from skggm_bench.metrics import get_metric


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
    assert not get_metric(metric).greater_is_better
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
    # Within the hard density alone fragile has no value at all: no position there
    # (not a shared or last place), while its failures are still counted.
    hard = leaderboard(frame, "f1").query("density == 0.5").set_index("learner")
    assert hard.loc["steady", "position"] == 1
    assert pd.isna(hard.loc["fragile", "position"])
    assert np.isnan(hard.loc["fragile", "mean_rank"])
    assert np.isnan(hard.loc["fragile", "mean_metric"])
    assert hard.loc["fragile", "n_failed"] == 3
    assert list(hard.index) == ["steady", "fragile"]  # learners without data last


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


def test_format_leaderboard_names_ties_and_counts_failures():
    frame = results(
        {("G", 0.1, "a"): [0.9, 0.5, None], ("G", 0.1, "b"): [0.5, 0.9, 0.4]},
    )
    table = format_leaderboard(leaderboard(frame, "f1")).set_index("learner")
    assert table.loc["a", "failed"] == "1/3"
    assert table.loc["b", "failed"] == "0/3"
    # b ranks 2, 1, 1 and a 1, 2, last: positions 1 and 2, but their intervals
    # overlap. Ties are named in their own column, not by a symbol after the
    # position that a reader would have to decode.
    assert table["position"].to_dict() == {"b": "1", "a": "2"}
    assert table.loc["a", "tied with"] == "b"
    assert table.loc["a", "f1 (95% CI)"].startswith("0.70 (")
    assert "\u2013" in table.loc["a", "f1 (95% CI)"]  # "0.70 (0.50–0.90)"


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
    # a never ran under TO: that is no data, not a fall to last place.
    assert shift.loc["a", "comparison"] == "no data"
    assert pd.isna(shift.loc["a", "places_gained"])
    assert not shift.loc["a", "significant"]
    # b is the only learner with a position under TO.
    assert shift.loc["b", "position_to"] == 1
    assert shift.loc["b", "comparison"] == "compared"


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
            r"the columns \['status'\] are missing",
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
    with pytest.raises(ValueError, match=r"unknown metric 'f2'.*f1"):
        leaderboard(frame, "f2")
    # Only metrics rank: not a text column, not the seed.
    with pytest.raises(ValueError, match="unknown metric 'message'"):
        leaderboard(frame, "message")
    with pytest.raises(ValueError, match="unknown metric 'seed'"):
        leaderboard(frame, "seed")
    with pytest.raises(ValueError, match="must be numeric"):
        leaderboard(frame.assign(f1=frame["f1"].astype(str)), "f1")
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


# --------------------------------------------------------------------------------------
# No data: nothing is ranked, shifted or called significant without a successful fit
# --------------------------------------------------------------------------------------


def chordal_failure_study():
    """DiagonalDominance and UniformChordal on an Erdős–Rényi family.

    Three learners, densities 0.1 and 0.3, 4 repeats x 2 sample sizes. At density
    0.3 the Erdős–Rényi graphs are not chordal, so every UniformChordal fit there
    failed (all 8 per learner), as in a real study of that combination.
    """
    rng = np.random.RandomState(3)
    scores = {}
    for generator in ("DiagonalDominance", "UniformChordal"):
        for density in (0.1, 0.3):
            for learner, level in (("glasso", 0.6), ("lasso", 0.45), ("shrink", 0.3)):
                failed = generator == "UniformChordal" and density == 0.3
                scores[(generator, density, learner)] = [
                    None if failed else level + rng.normal(0, 0.03) for _ in range(4)
                ]
    return results(scores, n_samples=(50, 100))


def test_a_group_where_every_fit_failed_reports_no_data_never_a_shift():
    frame = chordal_failure_study()
    board = leaderboard(frame, "f1").set_index(["generator", "density", "learner"])
    failed = board.loc[("UniformChordal", 0.3)]
    # Before: all three shared position 1 with F1 "n/a".
    assert failed["position"].isna().all()
    assert failed["mean_rank"].isna().all()
    assert (failed["n_failed"] == 8).all() and (failed["n_ok"] == 0).all()
    assert not failed["tie"].any()

    shift = rank_shift(frame, "f1", "DiagonalDominance", "UniformChordal")
    dense = shift[shift.density == 0.3].set_index("learner")
    # Before: glasso -1.00 [-1.00, -1.00] and shrink +1.00, both "significant".
    assert (dense["comparison"] == "no data").all()
    assert dense[["rank_gain", "rank_gain_low", "rank_gain_high"]].isna().all().all()
    assert dense["places_gained"].isna().all() and dense["position_to"].isna().all()
    assert not dense["significant"].any()
    # The reference generator still ranks them: that half of the row is kept.
    assert dense["position_from"].to_dict() == {"glasso": 1, "lasso": 2, "shrink": 3}
    sparse = shift[shift.density == 0.1]
    assert (sparse["comparison"] == "compared").all()
    assert (sparse["places_gained"] == 0).all()

    shown = format_rank_shift(shift).set_index(["density", "learner"])
    assert shown.loc[(0.3, "glasso"), "position"] == "1 \u2192 \u2013"
    assert (shown.loc[0.3, "mean-rank gain (95% CI)"] == "no data").all()
    assert (shown.loc[0.3, "places gained"] == "no data").all()
    assert (shown.loc[0.3, "significant"] == "no").all()

    agreement = generator_agreement(frame, "f1", "DiagonalDominance", "UniformChordal")
    by_density = agreement[agreement.scope == "group"].set_index("density")
    assert by_density.loc[0.3, "comparison"] == "no data"
    assert np.isnan(by_density.loc[0.3, "tau"])
    assert by_density.loc[0.1, "tau"] == 1.0

    wins = win_probability(frame, "f1")
    dense_wins = wins[(wins.generator == "UniformChordal") & (wins.density == 0.3)]
    assert dense_wins["p_win"].isna().all() and (dense_wins["n_blocks"] == 0).all()
    assert (dense_wins["comparison"] == "no data").all()

    cd = critical_difference(frame, "f1")
    dense_cd = cd[(cd.generator == "UniformChordal") & (cd.density == 0.3)]
    assert (dense_cd["n_learners"] == 0).all() and (
        dense_cd["n_empty_blocks"] == 8
    ).all()
    assert dense_cd["mean_rank"].isna().all() and dense_cd["p_value"].isna().all()
    assert not dense_cd["different"].any()


def test_a_block_where_nobody_has_a_value_ranks_nobody():
    # At n=50 both fits failed in every repeat; at n=100 a beats b.
    frame = results({("G", 0.1, "a"): [0.9, 0.8], ("G", 0.1, "b"): [0.1, 0.2]})
    frame = pd.concat([frame, frame.assign(n_samples=50, status="failed", f1=np.nan)])
    ranks = scenario_ranks(frame, "f1")
    assert ranks.loc[ranks.n_samples == 50, "rank"].isna().all()
    board = by_learner(leaderboard(frame, "f1"))
    # Sharing rank 1.5 in the empty blocks would give a 1.25 and b 1.75.
    assert board.loc["a", "mean_rank"] == 1.0 and board.loc["b", "mean_rank"] == 2.0
    assert (board["n_blocks"] == 2).all()
    assert board.loc["a", "n_failed"] == 2


def test_a_learner_without_data_on_one_side_leaves_the_others_compared():
    frame = results(
        {
            ("DD", 0.1, "a"): [0.9] * 3,
            ("DD", 0.1, "b"): [0.5] * 3,
            ("DD", 0.1, "c"): [0.1] * 3,
            ("TO", 0.1, "a"): [None] * 3,
            ("TO", 0.1, "b"): [0.1] * 3,
            ("TO", 0.1, "c"): [0.5] * 3,
        }
    )
    shift = rank_shift(frame, "f1", "DD", "TO").set_index("learner")
    assert shift["comparison"].to_dict() == {
        "a": "no data",
        "b": "compared",
        "c": "compared",
    }
    assert shift.loc["c", "places_gained"] == 2  # 3rd of three -> 1st of two
    # Within blocks a's failures still rank last under TO, so b keeps mean rank 2.
    assert shift.loc["c", "rank_gain"] == 2 and shift.loc["c", "significant"]
    assert shift.loc["b", "rank_gain"] == 0 and not shift.loc["b", "significant"]
    assert list(shift.index) == ["c", "b", "a"]  # no position: last


# --------------------------------------------------------------------------------------
# Friedman test and Nemenyi critical difference
# --------------------------------------------------------------------------------------


def random_study(rng, levels, *, groups=("G",), sizes=(50,), repeats=4, **options):
    """Rows for every group (a generator name), size, repeat and learner.

    ``levels`` maps learner -> mean of its metric; values are
    ``level + N(0, noise)``, rounded to ``step`` (to make ties) when given, and
    fail with probability ``failure_rate``.
    """
    noise = options.get("noise", 0.1)
    step = options.get("step")
    failure_rate = options.get("failure_rate", 0.0)
    rows = []
    for generator, n, repeat in itertools.product(groups, sizes, range(repeats)):
        for learner, level in levels.items():
            value = level + rng.normal(0, noise)
            if step:
                value = np.round(value / step) * step
            failed = rng.uniform() < failure_rate
            rows.append(
                dict(
                    generator=generator,
                    learner=learner,
                    density=0.1,
                    n_features=20,
                    n_samples=n,
                    repeat=repeat,
                    f1=np.nan if failed else value,
                    status="failed" if failed else "ok",
                )
            )
    return pd.DataFrame(rows)


def group_summary(cd):
    return cd.drop_duplicates(list(cd.attrs["by"])).set_index(list(cd.attrs["by"]))


def test_friedman_matches_scipy_with_ties_and_failures():
    # Values on a coarse grid (many ties) and 15% failures, which rank last and
    # tie with each other: both exercise the tie correction.
    rng = np.random.RandomState(0)
    levels = {"a": 0.0, "b": 0.05, "c": 0.1, "d": 0.1}
    frame = random_study(
        rng,
        levels,
        groups=("X", "Y"),
        sizes=(50, 100, 200),
        repeats=6,
        step=0.1,
        failure_rate=0.15,
    )
    summary = group_summary(critical_difference(frame, "f1", by=()))
    for generator, part in frame.groupby("generator"):
        values = part.assign(v=part.f1.where(part.status == "ok")).pivot(
            index=["n_samples", "repeat"], columns="learner", values="v"
        )
        # scipy ranks ascending: negate so the best value gets rank 1, and put
        # failures (NaN) after every value.
        columns = [(-values[c]).fillna(np.inf).to_numpy() for c in values.columns]
        reference = scipy.stats.friedmanchisquare(*columns)
        row = summary.loc[generator]
        assert row["n_blocks"] == 18 and row["n_learners"] == 4
        assert row["statistic"] == pytest.approx(reference.statistic, rel=1e-12)
        assert row["p_value"] == pytest.approx(reference.pvalue, rel=1e-9)
        # Iman-Davenport from scipy's chi-square (Demšar 2006, eq. for F_F).
        n, k, chi2 = 18, 4, reference.statistic
        f = (n - 1) * chi2 / (n * (k - 1) - chi2)
        assert row["iman_davenport"] == pytest.approx(f, rel=1e-12)
        p_f = scipy.stats.f.sf(f, k - 1, (k - 1) * (n - 1))
        assert row["iman_davenport_p_value"] == pytest.approx(p_f, rel=1e-9)
        # Without the tie correction the statistic would be clearly smaller:
        # the comparison above rejects that plausible variant.
        ranks = np.column_stack([scipy.stats.rankdata(r) for r in np.array(columns).T])
        sums = ranks.T.sum(axis=0)
        uncorrected = 12 / (n * k * (k + 1)) * (sums**2).sum() - 3 * n * (k + 1)
        assert uncorrected < 0.97 * reference.statistic


# Demšar (2006), table 5: critical values q_alpha of the two-tailed Nemenyi test
# for k = 2..10 classifiers (studentized range statistic divided by sqrt(2)).
DEMSAR_Q = {
    0.05: [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164],
    0.10: [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920],
}


@pytest.mark.parametrize("alpha", [0.05, 0.10])
def test_critical_difference_is_the_nemenyi_cd_for_every_k(alpha):
    # One group per k = 2..10: each generator has rows for its first k learners
    # only; the others are missing, so they have no data and take no part.
    rng = np.random.RandomState(1)
    names = [f"l{i}" for i in range(10)]
    frames = [
        random_study(
            rng,
            dict.fromkeys(names[:k], 0.0),
            groups=(f"k{k:02d}",),
            sizes=(50, 100),
            repeats=3,
        )
        for k in range(2, 11)
    ]
    summary = group_summary(critical_difference(pd.concat(frames), "f1", alpha=alpha))
    n = 6  # 2 sample sizes x 3 repeats: blocks are scenarios x repeats
    for k, published in zip(range(2, 11), DEMSAR_Q[alpha], strict=True):
        row = summary.loc[(f"k{k:02d}", 0.1)]
        assert row["n_learners"] == k and row["n_blocks"] == n
        q = scipy.stats.studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2)
        scale = np.sqrt(k * (k + 1) / (6 * n))
        assert row["critical_difference"] == pytest.approx(q * scale, rel=1e-12)
        # The published table agrees to its 3 decimals; forgetting the sqrt(2)
        # would be 41% off, using N = repeats (3) instead of blocks 41% too.
        assert row["critical_difference"] / scale == pytest.approx(
            published, abs=1.5e-3
        )


def test_critical_difference_on_a_small_example_by_hand():
    # k = 3 learners, N = 4 blocks (2 sample sizes x 2 repeats), ranks chosen:
    #   block      a  b  c
    #   n50  r0    1  2  3
    #   n50  r1    1  2  3
    #   n100 r0    1  3  2
    #   n100 r1    2  1  3
    # Rank sums 5, 8, 11 -> mean ranks 1.25, 2, 2.75.
    # chi2 = 12 N / (k (k+1)) * (sum R_j^2 - k (k+1)^2 / 4)
    #      = 4 * (1.5625 + 4 + 7.5625 - 12) = 4.5; with 2 degrees of freedom the
    # chi-square tail is exp(-x / 2): p = exp(-2.25) = 0.1054.
    # F_F = (N-1) chi2 / (N (k-1) - chi2) = 13.5 / 3.5 on (2, 6) df.
    # CD = q_0.05(k=3) sqrt(k (k+1) / (6 N)) = 2.343 * sqrt(1/2) = 1.657 (table 5).
    values = {
        (50, 0): (0.9, 0.5, 0.1),
        (50, 1): (0.9, 0.5, 0.1),
        (100, 0): (0.9, 0.1, 0.5),
        (100, 1): (0.5, 0.9, 0.1),
    }
    frame = pd.DataFrame(
        [
            dict(
                generator="G",
                density=0.1,
                n_features=20,
                n_samples=n,
                repeat=r,
                learner=learner,
                f1=value,
                status="ok",
            )
            for (n, r), row in values.items()
            for learner, value in zip("abc", row, strict=True)
        ]
    )
    cd = critical_difference(frame, "f1").set_index("learner")
    assert cd["mean_rank"].to_dict() == {"a": 1.25, "b": 2.0, "c": 2.75}
    row = cd.iloc[0]
    assert row["n_blocks"] == 4 and row["n_learners"] == 3
    assert row["statistic"] == pytest.approx(4.5, rel=1e-12)
    assert row["p_value"] == pytest.approx(np.exp(-2.25), rel=1e-12)
    assert row["iman_davenport"] == pytest.approx(13.5 / 3.5, rel=1e-12)
    assert row["iman_davenport_p_value"] == pytest.approx(
        scipy.stats.f.sf(13.5 / 3.5, 2, 6), rel=1e-12
    )
    assert row["critical_difference"] == pytest.approx(2.343 * np.sqrt(0.5), abs=1e-3)
    assert not row["different"]  # p = 0.105 > 0.05
    # a-b (0.75) and b-c (0.75) are within the CD, a-c (1.5) too: 1.5 < 1.657.
    assert cd["not_different_from"].to_dict() == {
        "a": "b, c",
        "b": "a, c",
        "c": "a, b",
    }


def test_critical_difference_has_power_on_clearly_different_learners():
    # Three learners 0.3 apart with noise sd 0.05 (adjacent swaps have probability
    # about 1e-5), 4 sample sizes x 10 repeats = 40 blocks: mean ranks 1, 2, 3 and
    # CD = 2.343 sqrt(12 / 240) = 0.52 < 1.
    rng = np.random.RandomState(2)
    frame = random_study(
        rng,
        {"good": 0.6, "fair": 0.3, "poor": 0.0},
        sizes=(25, 50, 100, 200),
        repeats=10,
        noise=0.05,
    )
    cd = critical_difference(frame, "f1").set_index("learner")
    assert cd["p_value"].iloc[0] < 1e-3 and cd["different"].all()
    assert cd.index.tolist() == ["good", "fair", "poor"]
    gaps = np.diff(cd["mean_rank"].to_numpy())
    assert gaps.min() > cd["critical_difference"].iloc[0]
    assert (cd["not_different_from"] == "").all()


def test_friedman_p_values_look_uniform_for_identical_learners():
    # 200 independent null studies (one generator each) of 4 learners with the
    # same distribution, 12 blocks each. The Friedman statistic is discrete and
    # its chi-square approximation slightly conservative at this size, so the
    # thresholds leave room for that; referring the statistic to chi-square with
    # k instead of k - 1 degrees of freedom (a plausible slip) gives a KS p-value
    # below 1e-4 on the same draws.
    rng = np.random.RandomState(0)
    groups = [f"null{i:03d}" for i in range(200)]
    frame = random_study(
        rng, dict.fromkeys("abcd", 0.0), groups=groups, sizes=(50, 100, 200)
    )
    summary = group_summary(critical_difference(frame, "f1", by=()))
    p = summary["p_value"].to_numpy()
    assert scipy.stats.kstest(p, "uniform").pvalue > 0.01
    for level in (0.05, 0.25, 0.5, 0.75):
        # 3.5 binomial standard errors plus 0.03 for the conservative approximation
        assert (
            abs((p < level).mean() - level)
            < 3.5 * np.sqrt(level * (1 - level) / 200) + 0.03
        )
    wrong = scipy.stats.chi2.sf(summary["statistic"].to_numpy(), 4)
    assert scipy.stats.kstest(wrong, "uniform").pvalue < 1e-4


def test_critical_difference_leaves_out_learners_without_data():
    # c failed everywhere: it neither counts in k nor shares the last places.
    frame = results(
        {
            ("G", 0.1, "a"): [0.9, 0.8, 0.7, 0.9],
            ("G", 0.1, "b"): [0.1, 0.2, 0.3, 0.1],
            ("G", 0.1, "c"): [None] * 4,
        }
    )
    cd = critical_difference(frame, "f1").set_index("learner")
    assert cd["mean_rank"].iloc[:2].to_dict() == {"a": 1.0, "b": 2.0}
    assert (
        np.isnan(cd.loc["c", "mean_rank"]) and cd.loc["c", "not_different_from"] == ""
    )
    assert (cd["n_learners"] == 2).all() and (cd["n_blocks"] == 4).all()
    with pytest.raises(ValueError, match="alpha must be in"):
        critical_difference(frame, "f1", alpha=1.0)


# --------------------------------------------------------------------------------------
# Generator agreement (Kendall's tau) and win probabilities
# --------------------------------------------------------------------------------------


def test_generator_agreement_is_kendalls_tau_b_of_the_mean_ranks():
    # Five learners; under TO, d and e score identically in every block, so their
    # mean ranks tie: tau-b (scipy's default) and tau-a then differ.
    rng = np.random.RandomState(4)
    rows = []
    for generator, density in itertools.product(("DD", "TO"), (0.1, 0.3)):
        levels = {"a": 0.5, "b": 0.4, "c": 0.3, "d": 0.2, "e": 0.1}
        if generator == "TO":
            levels = {"a": 0.5, "b": 0.45, "c": 0.1, "d": 0.3, "e": 0.3}
        part = random_study(
            rng, levels, groups=(generator,), sizes=(50, 100), repeats=5, noise=0.15
        )
        if generator == "TO":
            twin = part.learner == "e"
            part.loc[twin, "f1"] = part.loc[part.learner == "d", "f1"].to_numpy()
        rows.append(part.assign(density=density))
    frame = pd.concat(rows, ignore_index=True)
    agreement = generator_agreement(frame, "f1", "DD", "TO")
    assert agreement["scope"].tolist() == ["group", "group", "overall"]
    boards = {
        "group": leaderboard(frame, "f1", by=("density",)),
        "overall": leaderboard(frame, "f1", by=()),
    }
    for row in agreement.itertuples(index=False):
        board = boards[row.scope]
        if row.scope == "group":
            board = board[board.density == row.density]
        ranks = board.pivot(index="learner", columns="generator", values="mean_rank")
        reference = scipy.stats.kendalltau(ranks["DD"], ranks["TO"])
        assert row.tau == pytest.approx(reference.statistic, abs=1e-12)
        assert row.n_learners == 5 and row.n_repeats == 5
        assert row.tau_low <= row.tau <= row.tau_high
        # The tie of d and e under TO makes tau-a, (concordant - discordant) / all
        # 10 pairs, differ from tau-b = (c - d) / sqrt(10 * 9) by 5% of tau.
        assert ranks.loc["d", "TO"] == ranks.loc["e", "TO"]
        i, j = np.triu_indices(5, 1)
        dd, to = ranks["DD"].to_numpy(), ranks["TO"].to_numpy()
        tau_a = (np.sign(dd[i] - dd[j]) * np.sign(to[i] - to[j])).sum() / 10
        assert abs(reference.statistic) > 0.3
        assert abs(tau_a - row.tau) > 0.015


def test_generator_agreement_bootstrap_is_paired_over_repeats():
    # Each repeat draws its own order of the six learners, shared by both
    # generators (the same graph orders them the same way): the orderings agree
    # exactly whatever repeats are drawn, so a paired bootstrap gives [1, 1].
    # Resampling the repeats of each generator independently would not.
    rng = np.random.RandomState(5)
    names = list("abcdef")
    rows = []
    for repeat in range(8):
        scores = rng.permutation(6) / 10
        for generator, (name, score) in itertools.product(
            ("DD", "TO"), zip(names, scores, strict=True)
        ):
            rows.append(
                dict(
                    generator=generator,
                    learner=name,
                    density=0.1,
                    n_features=20,
                    n_samples=100,
                    repeat=repeat,
                    f1=score,
                    status="ok",
                )
            )
    frame = pd.DataFrame(rows)
    overall = generator_agreement(frame, "f1", "DD", "TO", by=()).iloc[0]
    assert (overall["tau"], overall["tau_low"], overall["tau_high"]) == (1.0, 1.0, 1.0)
    ranks = scenario_ranks(frame, "f1").pivot(
        index=["generator", "repeat"], columns="learner", values="rank"
    )
    unpaired = []
    for _ in range(400):
        means = [
            ranks.loc[g].to_numpy()[rng.randint(8, size=8)].mean(axis=0)
            for g in ("DD", "TO")
        ]
        unpaired.append(scipy.stats.kendalltau(*means).statistic)
    assert np.percentile(unpaired, 2.5) < 0.8


def test_generator_agreement_and_rank_shift_across_data_models():
    # data_model is part of the scenario when present: two data models of one
    # generator are different blocks, and can be compared like two generators.
    gaussian = results({("G", 0.1, "a"): [0.9] * 3, ("G", 0.1, "b"): [0.1] * 3})
    heavy = results({("G", 0.1, "a"): [0.1] * 3, ("G", 0.1, "b"): [0.9] * 3})
    frame = pd.concat(
        [gaussian.assign(data_model="gaussian"), heavy.assign(data_model="t")]
    )
    pooled = by_learner(leaderboard(frame, "f1"))
    assert pooled.loc["a", "mean_rank"] == 1.5 and pooled.loc["a", "n_blocks"] == 6
    split = leaderboard(frame, "f1", by=("density", "data_model"))
    winners = split[split.position == 1].set_index("data_model")["learner"]
    assert winners.to_dict() == {"gaussian": "a", "t": "b"}
    shift = rank_shift(frame, "f1", "gaussian", "t", axis="data_model")
    assert shift.attrs["axis"] == "data_model"
    assert list(shift.columns[:3]) == ["generator", "density", "learner"]
    assert shift.set_index("learner")["places_gained"].to_dict() == {"b": 1, "a": -1}
    tau = generator_agreement(frame, "f1", "gaussian", "t", axis="data_model")
    assert tau["tau"].tolist() == [-1.0, -1.0]
    with pytest.raises(ValueError, match="must not include 'data_model'"):
        rank_shift(frame, "f1", "gaussian", "t", axis="data_model", by=("data_model",))
    with pytest.raises(ValueError, match="axis='learner' is not a grid column"):
        generator_agreement(frame, "f1", "a", "b", axis="learner")
    with pytest.raises(ValueError, match="two different values of 'data_model'"):
        rank_shift(frame, "f1", "t", "t", axis="data_model")


def test_win_probability_counts_ties_one_half_and_failures_as_losses():
    #        a     b     c
    # r0    0.9   0.5   0.5    a > b, a > c, b = c
    # r1    0.1   0.5   fail   b > a, a > c, b > c   (a failure ranks last)
    # r2    fail  fail  0.3    c > a, c > b, a = b   (both failed: a tie)
    # r3    fail  fail  fail   nobody ranked: not counted
    frame = results(
        {
            ("G", 0.1, "a"): [0.9, 0.1, None, None],
            ("G", 0.1, "b"): [0.5, 0.5, None, None],
            ("G", 0.1, "c"): [0.5, None, 0.3, None],
        }
    )
    wins = win_probability(frame, "f1").set_index(["learner", "opponent"])
    assert wins.loc[("a", "b"), ["wins", "ties", "losses"]].tolist() == [1, 1, 1]
    assert wins.loc[("a", "b"), "p_win"] == pytest.approx(0.5)
    assert wins.loc[("a", "c"), "p_win"] == pytest.approx(2 / 3)
    assert wins.loc[("b", "c"), "p_win"] == pytest.approx(1.5 / 3)
    assert (wins["n_blocks"] == 3).all()
    for (learner, opponent), row in wins.iterrows():
        back = wins.loc[(opponent, learner)]
        assert row["p_win"] + back["p_win"] == pytest.approx(1.0)
        assert row["wins"] == back["losses"] and row["ties"] == back["ties"]
    assert len(wins) == 6  # every ordered pair of different learners


def test_win_probability_interval_resamples_repeats():
    # In each of 60 repeats one learner wins in all 4 sample sizes (a shared
    # graph), a with probability 0.7. Resampling repeats gives a 95% half-width
    # of about 1.96 sd / sqrt(60) with sd that of the per-repeat win fractions;
    # resampling the 240 blocks independently would halve it. The percentile
    # endpoints move in steps of 1/60 (~7% of the half-width): 15% tolerance.
    rng = np.random.RandomState(6)
    a_wins = rng.uniform(size=60) < 0.7
    scores = {
        ("G", 0.1, "a"): np.where(a_wins, 0.9, 0.1).tolist(),
        ("G", 0.1, "b"): [0.5] * 60,
    }
    frame = results(scores, n_samples=(25, 50, 100, 200))
    row = (
        win_probability(frame, "f1").set_index(["learner", "opponent"]).loc[("a", "b")]
    )
    assert row["p_win"] == pytest.approx(a_wins.mean())
    expected = 1.96 * a_wins.std() / np.sqrt(60)
    half = (row["p_win_high"] - row["p_win_low"]) / 2
    assert half == pytest.approx(expected, rel=0.15)


# --------------------------------------------------------------------------------------
# Display
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "options", "expected"),
    [
        ((1.4213, 1.0812, 1.8334), {"signed": True}, "+1.42 (1.08\u20131.83)"),
        ((0.5, 0.25, 0.75), {}, "0.50 (0.25\u20130.75)"),
        ((-1.0, -1.5, -0.5), {"signed": True}, "-1.00 (-1.50 to -0.50)"),
        ((-0.001, -0.3, 0.2), {"signed": True}, "+0.00 (-0.30 to 0.20)"),
        ((2.0, np.nan, np.nan), {}, "2.00"),
        ((np.nan, 0.1, 0.2), {}, "no data"),
        ((None,), {"missing": "n/a"}, "n/a"),
        ((0.123456, 0.1, 0.2), {"decimals": 3}, "0.123 (0.100\u20130.200)"),
    ],
)
def test_format_interval(arguments, options, expected):
    assert format_interval(*arguments, **options) == expected


def test_formatted_tables_show_no_python_literals():
    frame = chordal_failure_study()
    tables = [
        format_leaderboard(leaderboard(frame, "f1")),
        format_rank_shift(
            rank_shift(frame, "f1", "DiagonalDominance", "UniformChordal")
        ),
    ]
    for table in tables:
        cells = table.drop(columns=["generator", "density"], errors="ignore")
        text = set(cells.astype(str).to_numpy().ravel())
        for literal in ("nan", "NaN", "None", "True", "False", "<NA>"):
            assert not any(literal in cell for cell in text), literal
        assert not any(cell.endswith("=") for cell in text)
    assert set(tables[1]["significant"]) <= {"yes", "no", "too few"}
