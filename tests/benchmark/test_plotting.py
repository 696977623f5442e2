"""skggm_bench.benchmark.plotting: the figures hold the data and labels they claim.

Rendering uses the non-interactive Agg backend; figures are checked through their
artists (line data, labels, titles) and by writing real PNG files.
"""

import sys

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

from skggm_bench.benchmark.leaderboard import leaderboard, rank_shift
from skggm_bench.benchmark.plotting import (
    plot_curves,
    plot_leaderboard,
    plot_rank_shift,
    plot_results,
)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def grid_frame():
    """2 generators x 2 densities x 3 learners x 3 n_samples x 3 repeats.

    tpr = offset(learner) + n / 1000 + repeat / 100, ppv = 1 - that; so each
    curve's mean over repeats is known exactly: offset + n / 1000 + 0.01.
    """
    offsets = {"glasso": 0.1, "lasso": 0.2, "shrink": 0.3}
    rows = []
    for generator in ("DiagonalDominance", "TriangulatedOrthogonalization"):
        for density in (0.05, 0.25):
            for learner, offset in offsets.items():
                for n in (50, 100, 200):
                    for repeat in range(3):
                        tpr = offset + n / 1000 + repeat / 100
                        rows.append(
                            dict(
                                generator=generator,
                                learner=learner,
                                density=density,
                                n_features=30,
                                n_samples=n,
                                repeat=repeat,
                                tpr=tpr,
                                ppv=1 - tpr,
                                f1=tpr,
                                status="ok",
                                message="",
                            )
                        )
    return pd.DataFrame(rows)


def test_curves_layout_labels_and_data():
    frame = grid_frame()
    fig = plot_curves(frame, 0.25)
    axes = np.array(fig.axes).reshape(2, 2)  # rows: tpr, ppv; columns: generators
    assert [ax.get_title() for ax in axes[0]] == [
        "DiagonalDominance",
        "TriangulatedOrthogonalization",
    ]
    assert axes[0, 0].get_ylabel() == "TPR (power)"
    assert axes[1, 0].get_ylabel() == "PPV (true discovery rate)"
    assert axes[1, 1].get_xlabel() == "n_samples"
    for ax in axes.ravel():
        lines = ax.get_lines()
        assert [line.get_label() for line in lines] == ["glasso", "lasso", "shrink"]
    glasso_tpr = axes[0, 0].get_lines()[0]
    np.testing.assert_array_equal(glasso_tpr.get_xdata(), [50, 100, 200])
    # mean over repeats 0, 1, 2 of 0.1 + n/1000 + repeat/100
    np.testing.assert_allclose(glasso_tpr.get_ydata(), [0.16, 0.21, 0.31])
    shrink_ppv = axes[1, 1].get_lines()[2]
    np.testing.assert_allclose(shrink_ppv.get_ydata(), [0.64, 0.59, 0.49])
    assert "density 0.25" in fig.get_suptitle()
    legend = fig.legends[0]
    assert [t.get_text() for t in legend.get_texts()] == ["glasso", "lasso", "shrink"]
    assert "hollow" not in legend.get_title().get_text()


def test_failed_fits_are_left_out_of_the_mean_and_flagged():
    frame = grid_frame()
    failed = (frame.learner == "lasso") & (frame.n_samples == 50) & (frame.repeat == 2)
    frame.loc[failed, ["tpr", "status"]] = [99.0, "failed"]  # 99 must not be used
    fig = plot_curves(frame, 0.05, metrics="tpr")
    lasso = fig.axes[0].get_lines()[1]
    # repeats 0 and 1 only: 0.2 + 0.05 + 0.005
    assert lasso.get_ydata()[0] == pytest.approx(0.255)
    assert "hollow: some fits failed" in fig.legends[0].get_title().get_text()
    hollow = [
        c
        for c in fig.axes[0].collections
        if len(c.get_offsets()) and len(c.get_facecolors()) == 0
    ]
    assert len(hollow) == 1
    np.testing.assert_allclose(hollow[0].get_offsets(), [[50, 0.255]])


def test_plot_results_one_figure_per_density_and_png_files(tmp_path):
    figures = plot_results(grid_frame(), metrics=("tpr", "ppv"))
    assert list(figures) == [0.05, 0.25]
    for density, fig in figures.items():
        path = tmp_path / f"curves_{density}.png"
        fig.savefig(path)
        data = path.read_bytes()
        assert data.startswith(PNG_SIGNATURE) and len(data) > 10_000


def test_plot_results_selects_generators_learners_and_n_features():
    frame = grid_frame()
    fig = plot_results(
        frame,
        generators=["TriangulatedOrthogonalization"],
        learners=["shrink"],
        metrics="f1",
    )[0.05]
    assert len(fig.axes) == 1
    assert [line.get_label() for line in fig.axes[0].get_lines()] == ["shrink"]
    two_sizes = pd.concat([frame, frame.assign(n_features=60)])
    with pytest.raises(ValueError, match=r"several n_features \[30, 60\]"):
        plot_results(two_sizes)
    assert len(plot_results(two_sizes, n_features=60)) == 2
    with pytest.raises(ValueError, match=r"no results at density=0\.5"):
        plot_curves(frame, 0.5)
    with pytest.raises(ValueError, match=r"learner \['nope'\] not in the results"):
        plot_curves(frame, 0.05, learners=["nope"])
    with pytest.raises(ValueError, match=r"lacks the columns \['mcc'\]"):
        plot_curves(frame, 0.05, metrics="mcc")


def test_leaderboard_figure_lists_learners_best_first_with_tie_marks(tmp_path):
    frame = grid_frame()
    # At density 0.05, repeat 1, put glasso between lasso and shrink: glasso and
    # lasso then swap places in one repeat of three (tie), shrink stays first.
    swap = (frame.density == 0.05) & (frame.repeat == 1) & (frame.learner == "glasso")
    frame.loc[swap, "f1"] = 0.25 + frame.loc[swap, "n_samples"] / 1000
    board = leaderboard(frame, "f1")
    fig = plot_leaderboard(board)
    assert len(fig.axes) == 4
    titles = [ax.get_title() for ax in fig.axes]
    assert titles[0] == "DiagonalDominance, density 0.05"
    labels = [t.get_text() for t in fig.axes[1].get_yticklabels()]
    assert labels == ["shrink", "lasso", "glasso"]  # density 0.25: no ties
    tied = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert tied[0] == "shrink" and set(tied[1:]) == {"lasso=", "glasso="}
    # one errorbar per learner in each panel
    assert len(fig.axes[0].containers) == 3
    fig.savefig(tmp_path / "board.png")
    assert (tmp_path / "board.png").stat().st_size > 5_000


def test_rank_shift_figure_draws_one_line_per_learner_between_mean_ranks():
    frame = grid_frame()
    # Under TriangulatedOrthogonalization reverse the order at density 0.25.
    target = (frame.generator == "TriangulatedOrthogonalization") & (
        frame.density == 0.25
    )
    frame.loc[target, "f1"] = 1 - frame.loc[target, "f1"]
    shift = rank_shift(
        frame, "f1", "DiagonalDominance", "TriangulatedOrthogonalization"
    )
    fig = plot_rank_shift(shift)
    assert [ax.get_title() for ax in fig.axes] == ["density 0.05", "density 0.25"]
    lines = {line.get_label(): line for line in fig.axes[1].get_lines()}
    assert set(lines) == {"glasso", "lasso", "shrink"}
    # shrink: best (rank 1) under DD, worst (rank 3) after the reversal.
    np.testing.assert_allclose(lines["shrink"].get_ydata(), [1, 3])
    assert lines["shrink"].get_linestyle() == "-"  # significant: solid
    unchanged = {line.get_label(): line for line in fig.axes[0].get_lines()}
    np.testing.assert_allclose(unchanged["lasso"].get_ydata(), [2, 2])
    assert unchanged["lasso"].get_linestyle() == "--"  # no change: dashed
    ticks = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert ticks == ["Diagonal\nDominance", "Triangulated\nOrthogonalization"]


def test_missing_matplotlib_gives_an_actionable_import_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match=r"pip install 'skggm-bench\[plot\]'"):
        plot_curves(grid_frame(), 0.05)
