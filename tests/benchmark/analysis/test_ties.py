"""Ties within a relative tolerance: leaderboards, win probabilities, critical
differences and rank shifts rank near-equal values alike (issue 21)."""

import numpy as np
import pandas as pd
import pytest

from skggm_bench.benchmark.analysis.leaderboard import (
    DEFAULT_TIE_TOLERANCE,
    critical_difference,
    leaderboard,
    rank_shift,
    scenario_ranks,
    win_probability,
)


def _frame(b_offset: float, metric: str = "kl_divergence") -> pd.DataFrame:
    """Two solvers of one problem (a, b) and a worse learner (c), four repeats.

    b's loss is a's times (1 + b_offset): a relative difference of b_offset.
    """
    rows = []
    for generator in ("DD", "TO"):
        for repeat in range(4):
            base = 1.0 + 0.1 * repeat
            for learner, value in (
                ("a", base),
                ("b", base * (1 + b_offset)),
                ("c", base + 1.0),
            ):
                rows.append(
                    {
                        "generator": generator,
                        "n_features": 10,
                        "density": 0.1,
                        "n_samples": 50,
                        "repeat": repeat,
                        "learner": learner,
                        metric: value,
                        "status": "ok",
                    }
                )
    return pd.DataFrame(rows)


def test_default_tolerance_is_documented_value():
    assert DEFAULT_TIE_TOLERANCE == 1e-4


def test_values_within_the_tolerance_share_their_rank():
    close = _frame(3.5e-5)
    ranks = scenario_ranks(close, "kl_divergence")
    tied = ranks[ranks.learner.isin(["a", "b"])]["rank"]
    assert (tied == 1.5).all()
    # Exact ties only: b's larger loss makes it second every time.
    exact = scenario_ranks(close, "kl_divergence", tie_tolerance=0)
    assert (exact[exact.learner == "b"]["rank"] == 2).all()
    # A difference above the tolerance is a difference.
    apart = scenario_ranks(_frame(1e-3), "kl_divergence")
    assert (apart[apart.learner == "b"]["rank"] == 2).all()


def test_leaderboard_puts_tied_solvers_in_one_position():
    board = leaderboard(_frame(3.5e-5), "kl_divergence", by=(), n_bootstrap=50)
    positions = dict(zip(board.learner, board.position, strict=True))
    assert positions["a"] == positions["b"] == 1 and positions["c"] == 3
    assert board.attrs["tie_tolerance"] == DEFAULT_TIE_TOLERANCE
    strict = leaderboard(
        _frame(3.5e-5), "kl_divergence", by=(), n_bootstrap=50, tie_tolerance=0
    )
    positions = dict(zip(strict.learner, strict.position, strict=True))
    assert positions["a"] == 1 and positions["b"] == 2


def test_win_probability_and_critical_difference_count_ties():
    wins = win_probability(_frame(3.5e-5), "kl_divergence", by=(), n_bootstrap=50)
    ab = wins[(wins.learner == "a") & (wins.opponent == "b")].iloc[0]
    assert ab.p_win == 0.5 and ab.ties == ab.n_blocks
    cd = critical_difference(_frame(3.5e-5), "kl_divergence", by=())
    dd = cd[cd.generator == "DD"].set_index("learner")
    assert dd.loc["a", "mean_rank"] == dd.loc["b", "mean_rank"] == 1.5


def test_rank_shift_uses_the_same_ties():
    shift = rank_shift(
        _frame(3.5e-5), "kl_divergence", "DD", "TO", by=(), n_bootstrap=50
    )
    solvers = shift.set_index("learner").loc[["a", "b"]]
    assert np.allclose(solvers[["mean_rank_from", "mean_rank_to"]], 1.5)


@pytest.mark.parametrize("bad", [-1e-6, 1.0, "1e-6", True])
def test_a_bad_tolerance_is_refused(bad):
    with pytest.raises(ValueError, match="tie_tolerance"):
        leaderboard(_frame(0.0), "kl_divergence", tie_tolerance=bad)


def _store(tmp_path, b_offset):
    """A stored study of two 'solvers' whose F1 differ by b_offset (relative)."""
    from skggm_bench.benchmark.results.store import ResultStore

    frame = _frame(b_offset, "f1")
    frame = frame[frame.generator == "DD"].assign(
        graph="erdos_renyi",
        data_model="gaussian",
        message="",
        fit_time=0.1,
        seed=0,
        versions="{}",
    )
    path = tmp_path / "ties.sqlite"
    with ResultStore(path) as store:
        store.ensure_study({"metrics": ["f1"]})
        store.append(frame.to_dict("records"))
    return path


def test_cli_tie_tolerance(tmp_path, capsys):
    from skggm_bench import cli

    path = _store(tmp_path, 1e-3)
    assert cli.main(["leaderboard", "--store", str(path), "--by"]) == 0
    default = capsys.readouterr().out
    # c is best (higher F1); b's F1 is a's times 1.001: second apart, or tied.
    assert "a (2.50), b (2.50)" not in default
    arguments = ["leaderboard", "--store", str(path), "--by", "--tie-tolerance"]
    assert cli.main([*arguments, "0.01"]) == 0
    assert "a (2.50), b (2.50)" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_:
        cli.main([*arguments, "2"])
    assert exit_.value.code == 2
    assert "must be a relative difference in [0, 1)" in capsys.readouterr().err


def test_graphical_lasso_at_two_tolerances_ties_by_default():
    """Two stopping rules of one solver differ by solver noise, not by quality.

    scikit-learn's graphical lasso at ``tol=1e-4`` and ``tol=1e-5`` reaches KL
    divergences that differ by up to ~1e-5 relative: the old default (1e-6) split
    them in some blocks; the default ties them in every block.
    """
    import warnings

    from sklearn.covariance import GraphicalLasso
    from sklearn.exceptions import ConvergenceWarning

    from skggm_bench.benchmark import Benchmark
    from skggm_bench.generators import DiagonalDominance

    learners = {
        f"tol={tol:g}": GraphicalLasso(alpha=0.05, tol=tol, enet_tol=1e-6)
        for tol in (1e-4, 1e-5)
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        result = Benchmark(
            {"dd": DiagonalDominance()}, learners, n_features=10, n_samples=(100,),
            n_repeats=6, metrics=("kl_divergence",), random_state=0,
        ).run()  # fmt: skip
    frame = result.frame
    assert (frame["status"] == "ok").all()
    wide = frame.pivot(index="repeat", columns="learner", values="kl_divergence")
    relative = (wide["tol=0.0001"] - wide["tol=1e-05"]).abs() / wide.max(axis=1)
    # Not identical: some blocks differ by more than the old default ...
    assert (relative > 1e-6).any()
    # ... and none by more than the new one.
    assert (relative <= DEFAULT_TIE_TOLERANCE).all()
    ranks = scenario_ranks(frame, "kl_divergence")
    assert (ranks["rank"] == 1.5).all()
    board = result.leaderboard("kl_divergence", by=(), n_bootstrap=50)
    assert board["position"].tolist() == [1, 1]
    strict = scenario_ranks(frame, "kl_divergence", tie_tolerance=1e-6)
    assert (strict["rank"] != 1.5).any()
