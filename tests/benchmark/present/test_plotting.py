"""benchmark.present.plotting: the figures hold the data and labels they claim.

Rendering uses the non-interactive Agg backend; figures are checked through their
artists (line data, labels, titles) and by writing real PNG files.
"""

import itertools
import re
import sys

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

from matplotlib.collections import LineCollection, PolyCollection

from skggm_bench.benchmark.analysis.leaderboard import (
    critical_difference,
    leaderboard,
    rank_shift,
)
from skggm_bench.benchmark.present.plotting import (
    plot_critical_difference,
    plot_curves,
    plot_difficulty,
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
    # The three learners sit at -10, 0, +10 around each size (40% of the
    # smallest gap, 50, spread evenly); the ticks mark the sizes themselves.
    np.testing.assert_allclose(glasso_tpr.get_xdata(), [40, 90, 190])
    shrink_tpr = axes[0, 0].get_lines()[2]
    np.testing.assert_allclose(shrink_tpr.get_xdata(), [60, 110, 210])
    np.testing.assert_array_equal(axes[0, 0].get_xticks(), [50, 100, 200])
    # mean over repeats 0, 1, 2 of 0.1 + n/1000 + repeat/100
    np.testing.assert_allclose(glasso_tpr.get_ydata(), [0.16, 0.21, 0.31])
    shrink_ppv = axes[1, 1].get_lines()[2]
    np.testing.assert_allclose(shrink_ppv.get_ydata(), [0.64, 0.59, 0.49])
    assert "density 0.25" in fig.get_suptitle()
    assert "vertical bar" in fig.get_suptitle()  # what the bars are
    legend = fig.legends[0]
    assert [t.get_text() for t in legend.get_texts()] == ["glasso", "lasso", "shrink"]
    assert "hollow" not in legend.get_title().get_text()


def test_curves_get_a_column_per_graph_and_data_model_never_a_pooled_mean():
    # Two graph families with different recovery: a pooled line would show their
    # average, 0.05 below the hub one.
    hub, band = grid_frame(), grid_frame()
    hub["graph"], band["graph"] = "hub", "band"
    band["tpr"] -= 0.1
    frame = pd.concat([hub, band], ignore_index=True)
    fig = plot_curves(frame, 0.05, metrics="tpr", generators=["DiagonalDominance"])
    assert [ax.get_title() for ax in fig.axes] == [
        "DiagonalDominance, graph band",
        "DiagonalDominance, graph hub",
    ]
    band_glasso, hub_glasso = (ax.get_lines()[0].get_ydata() for ax in fig.axes)
    np.testing.assert_allclose(hub_glasso, [0.16, 0.21, 0.31])
    np.testing.assert_allclose(band_glasso, [0.06, 0.11, 0.21])
    # One graph and two data models: a column per data model.
    gaussian, ordinal = grid_frame(), grid_frame()
    gaussian["data_model"], ordinal["data_model"] = "gaussian", "ordinal"
    frame = pd.concat([gaussian, ordinal], ignore_index=True)
    titles = [ax.get_title() for ax in plot_curves(frame, 0.05, metrics="tpr").axes]
    assert titles == [
        "DiagonalDominance, data_model gaussian",
        "DiagonalDominance, data_model ordinal",
        "TriangulatedOrthogonalization, data_model gaussian",
        "TriangulatedOrthogonalization, data_model ordinal",
    ]


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
        if not isinstance(c, LineCollection)  # the interval bars
        and len(c.get_offsets())
        and len(c.get_facecolors()) == 0
    ]
    assert len(hollow) == 1
    # lasso is the middle one of three learners: not shifted sideways.
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


def test_leaderboard_figure_lists_learners_best_first_and_explains_ties(tmp_path):
    frame = grid_frame()
    # At density 0.05, repeat 1, put glasso between lasso and shrink: glasso and
    # lasso then swap places in one repeat of three (tie), shrink stays first.
    swap = (frame.density == 0.05) & (frame.repeat == 1) & (frame.learner == "glasso")
    frame.loc[swap, "f1"] = 0.25 + frame.loc[swap, "n_samples"] / 1000
    board = leaderboard(frame, "f1")
    assert board.query("density == 0.05")["tie"].sum() == 4  # 2 per generator
    fig = plot_leaderboard(board)
    assert len(fig.axes) == 4
    titles = [ax.get_title() for ax in fig.axes]
    assert titles[0] == "DiagonalDominance, density 0.05"
    # Three repeats: every name carries the dagger, and the title says the bars
    # are ranges, not 95% intervals.
    labels = [t.get_text() for t in fig.axes[1].get_yticklabels()]
    assert labels == ["shrink †", "lasso †", "glasso †"]  # no ties
    assert "not a 95% CI" in fig.get_suptitle()
    # Tied learners keep their plain names (no unexplained "=" mark); the title
    # says what overlapping bars mean.
    tied = [t.get_text().removesuffix(" †") for t in fig.axes[0].get_yticklabels()]
    assert tied[0] == "shrink" and set(tied[1:]) == {"lasso", "glasso"}
    assert "overlap" in fig.get_suptitle() and "tied" in fig.get_suptitle()
    # Per panel one dot, one bar and two caps per learner, in three collections.
    dots, caps = fig.axes[0].collections[2], fig.axes[0].collections[1]
    assert len(dots.get_offsets()) == 3 and len(caps.get_offsets()) == 6
    bars = fig.axes[0].collections[0].get_segments()
    ranks = board.query("density == 0.05 and generator == 'DiagonalDominance'")
    assert sorted(bar[0][0] for bar in bars) == sorted(ranks["rank_low"])
    assert sorted(bar[1][0] for bar in bars) == sorted(ranks["rank_high"])
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
    # Three repeats are too few to tell: dotted, whatever the interval says.
    assert shift["significant"].any()
    assert {line.get_linestyle() for line in lines.values()} == {":"}
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "fewer than 5 repeats: too few to tell" in legend
    ticks = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert ticks == ["Diagonal\nDominance", "Triangulated\nOrthogonalization"]


def test_figures_claim_95_percent_only_from_enough_repeats():
    """With 6 repeats: plain names, solid and dashed lines, no dagger anywhere."""
    frame = grid_frame()
    more = frame.assign(repeat=frame["repeat"] + 3, f1=frame["f1"] + 0.001)
    frame = pd.concat([frame, more], ignore_index=True)
    target = (frame.generator == "TriangulatedOrthogonalization") & (
        frame.density == 0.25
    )
    frame.loc[target, "f1"] = 1 - frame.loc[target, "f1"]
    board = leaderboard(frame, "f1")
    fig = plot_leaderboard(board)
    labels = [t.get_text() for t in fig.axes[1].get_yticklabels()]
    assert labels == ["shrink", "lasso", "glasso"]
    assert "†" not in fig.get_suptitle()
    shift = rank_shift(
        frame, "f1", "DiagonalDominance", "TriangulatedOrthogonalization"
    )
    fig = plot_rank_shift(shift)
    lines = {line.get_label(): line for line in fig.axes[1].get_lines()}
    assert lines["shrink"].get_linestyle() == "-"  # significant: solid
    unchanged = {line.get_label(): line for line in fig.axes[0].get_lines()}
    np.testing.assert_allclose(unchanged["lasso"].get_ydata(), [2, 2])
    assert unchanged["lasso"].get_linestyle() == "--"  # no change: dashed
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert not any("too few" in text for text in legend)


def test_missing_matplotlib_gives_an_actionable_import_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match=r"pip install 'skggm-bench\[plot\]'"):
        plot_curves(grid_frame(), 0.05)


def chordal_failure_frame():
    """The grid of :func:`grid_frame` with TriangulatedOrthogonalization replaced by
    UniformChordal whose fits all failed at density 0.25 (Erdős–Rényi graphs
    there are not chordal)."""
    frame = grid_frame()
    frame["generator"] = frame["generator"].replace(
        "TriangulatedOrthogonalization", "UniformChordal"
    )
    dead = (frame.generator == "UniformChordal") & (frame.density == 0.25)
    frame.loc[dead, ["tpr", "ppv", "f1"]] = np.nan
    frame.loc[dead, "status"] = "failed"
    return frame


def test_rank_shift_figure_draws_no_line_and_no_position_without_data():
    shift = rank_shift(
        chordal_failure_frame(), "f1", "DiagonalDominance", "UniformChordal"
    )
    fig = plot_rank_shift(shift)
    sparse, dense = fig.axes
    assert len(sparse.get_lines()) == 3  # every learner compared at 0.05
    # At 0.25 nothing is compared: no line at all (solid or dashed), and no
    # marker on the UniformChordal side, only hollow markers on the left.
    assert dense.get_lines() == []
    markers = np.concatenate([c.get_offsets() for c in dense.collections])
    assert (markers[:, 0] == 0).all() and len(markers) == 3
    assert all(len(c.get_facecolors()) == 0 for c in dense.collections)
    notes = [t.get_text() for t in dense.texts if "no data" in t.get_text()]
    assert len(notes) == 1 and "no data under UniformChordal" in notes[0]
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend == [
        "change beyond 95% CI",
        "change within 95% CI",
        "fewer than 5 repeats: too few to tell",  # three repeats
        "rank on one side only (no data on the other)",
    ]


def test_leaderboard_figure_says_no_data_instead_of_a_position():
    fig = plot_leaderboard(leaderboard(chordal_failure_frame(), "f1"))
    dense = fig.axes[3]
    assert dense.get_title() == "UniformChordal, density 0.25"
    assert not dense.collections  # no dot, no interval
    texts = [t.get_text() for t in dense.texts]
    assert texts == ["no data (no successful fit)"] * 3
    assert [t.get_text() for t in dense.get_yticklabels()] == [
        "glasso",
        "lasso",
        "shrink",
    ]


def test_curve_intervals_are_separate_bars_not_overlapping_bands():
    fig = plot_curves(grid_frame(), 0.05)
    for ax in fig.axes:
        # Filled bands (PolyCollection) piled into one mass; now each learner
        # has its own interval bars, shifted sideways from the others'.
        assert not [c for c in ax.collections if isinstance(c, PolyCollection)]
        bars = [c for c in ax.collections if isinstance(c, LineCollection)]
        assert len(bars) == 3
        centres = sorted(
            {segment[0][0] for bar in bars for segment in bar.get_segments()}
        )
        assert len(centres) == 9  # 3 learners x 3 sizes, no two at the same x


def cd_example():
    """Four learners over 3 sample sizes x 4 repeats; b and c alternate."""
    levels = {"a": 0.9, "b": 0.5, "c": 0.5, "d": 0.1}
    rows = []
    for n in (50, 100, 200):
        for repeat in range(4):
            for learner, level in levels.items():
                swing = 0.1 if (learner == "b") == (repeat % 2 == 0) else 0.0
                rows.append(
                    dict(
                        generator="G",
                        learner=learner,
                        density=0.1,
                        n_features=30,
                        n_samples=n,
                        repeat=repeat,
                        f1=level + swing,
                        status="ok",
                    )
                )
    return pd.DataFrame(rows)


def test_critical_difference_diagram_labels_learners_and_joins_cliques(tmp_path):
    cd = critical_difference(cd_example(), "f1")
    # Mean ranks a 1, b 2.5, c 2.5, d 4 (b and c alternate 2nd and 3rd) over
    # N = 12 blocks; CD for k = 4 is 2.569 sqrt(20 / 72) = 1.354. Only b and c
    # are closer than that (a-b and c-d are 1.5 apart): a single bar, b to c.
    assert cd["critical_difference"].iloc[0] == pytest.approx(1.354, abs=1e-3)
    fig = plot_critical_difference(cd)
    ax = fig.axes[0]
    texts = [t.get_text() for t in ax.texts]
    for label in ("a (1.00)", "b (2.50)", "c (2.50)", "d (4.00)"):
        assert label in texts
    assert "CD = 1.35" in texts
    cd_bar = [line for line in ax.get_lines() if line.get_gid() == "cd"]
    assert len(cd_bar) == 1 and np.ptp(cd_bar[0].get_xdata()) == pytest.approx(
        1.354, abs=1e-3
    )
    cliques = [line for line in ax.get_lines() if line.get_gid() == "clique"]
    assert len(cliques) == 1
    np.testing.assert_allclose(cliques[0].get_xdata(), [2.47, 2.53])
    assert "Friedman p =" in ax.get_title() and "N = 12 blocks" in ax.get_title()
    assert "do not differ" in fig.get_suptitle()
    fig.savefig(tmp_path / "cd.png")
    assert (tmp_path / "cd.png").stat().st_size > 5_000


def test_critical_difference_diagram_of_a_group_without_data():
    cd = critical_difference(chordal_failure_frame(), "f1")
    fig = plot_critical_difference(cd)
    assert len(fig.axes) == 4
    dead = fig.axes[3]
    assert "no test" in dead.get_title()
    texts = [t.get_text() for t in dead.texts]
    assert "no data: glasso, lasso, shrink" in texts
    assert not [line for line in dead.get_lines() if line.get_gid() == "clique"]


def figure_words(fig):
    """Every piece of text a reader sees: titles, ticks, texts and legends."""
    words = [fig.get_suptitle()]
    for ax in fig.axes:
        words += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
        words += [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels()]
        words += [t.get_text() for t in ax.texts]
    for legend in fig.legends:
        words += [t.get_text() for t in legend.get_texts()]
        words.append(legend.get_title().get_text())
    return " ".join(words)


def test_every_figure_names_every_learner_and_no_bare_symbols():
    frame = grid_frame()
    shift = rank_shift(
        frame, "f1", "DiagonalDominance", "TriangulatedOrthogonalization"
    )
    figures = [
        plot_curves(frame, 0.05),
        plot_leaderboard(leaderboard(frame, "f1")),
        plot_rank_shift(shift),
        plot_critical_difference(critical_difference(frame, "f1")),
    ]
    for fig in figures:
        words = figure_words(fig)
        for learner in ("glasso", "lasso", "shrink"):
            assert learner in words
        # No mark glued to a name (such as "lasso=") that the figure leaves
        # unexplained; "p = 30" or "CD = 1.35" are sentences, not marks.
        assert re.search(r"\w=", words) is None, words


@pytest.mark.parametrize("low, high", [(0.03, 0.8), (0.01, 0.25), (1e-4, 0.8)])
def test_difficulty_axis_labels_never_overlap(low, high):
    """A log axis over one to two decades: matplotlib labelled its minor ticks
    (2x10^-2, 3x10^-2, ...) and the labels ran into each other (issue 28)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    rows = [
        dict(generator=f"Generator{g}", learner=learner, density=0.1, n_features=10,
             n_samples=50, repeat=r, min_edge_partial_correlation=x,
             f1=0.1 * (r % 7), status="ok")
        for g in range(3)
        for r, x in enumerate(np.geomspace(low, high, 8))
        for learner in "ab"
    ]  # fmt: skip
    fig = plot_difficulty(pd.DataFrame(rows))
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    for ax in fig.axes:
        assert ax.get_xscale() == "log"
        lo, hi = ax.get_xlim()
        labels = sorted(
            (
                label
                for label in ax.get_xticklabels() + ax.get_xticklabels(minor=True)
                if label.get_text() and lo <= label.get_position()[0] <= hi
            ),
            key=lambda label: label.get_position()[0],
        )
        assert len(labels) >= 2
        boxes = [label.get_window_extent(renderer) for label in labels]
        for left, right in itertools.pairwise(boxes):
            assert left.x1 < right.x0, [label.get_text() for label in labels]
        # Plain numbers, not 2x10^-2.
        assert not any("times" in label.get_text() for label in labels)
