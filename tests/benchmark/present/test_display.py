"""benchmark.present._display: the findings and tables of the CLI and report."""

import io
import re

import numpy as np
import pandas as pd

from skggm_bench.benchmark.analysis._analysis import analyse
from skggm_bench.benchmark.present._findings import findings
from skggm_bench.benchmark.present._tables import (
    Table,
    agreement_table,
    failure_rate_table,
    leaderboard_table,
    rank_shift_table,
)
from skggm_bench.benchmark.present._text import evidence_line, text_report, text_table

ARTEFACT = re.compile(r"(^|\W)(nan|NaN|None|True|False|<NA>)(\W|$)")


def frame_with_a_hopeless_cell():
    """Learner 'c' never succeeds under TO at density 0.3; nobody does at 0.5."""
    rows = []
    for generator in ("DD", "TO"):
        for density in (0.1, 0.3, 0.5):
            for repeat in range(4):
                for learner, score in (("a", 0.8), ("b", 0.5), ("c", 0.2)):
                    failed = density == 0.5 and generator == "TO"
                    failed |= learner == "c" and generator == "TO" and density == 0.3
                    rows.append(
                        dict(
                            generator=generator,
                            n_features=10,
                            density=density,
                            n_samples=50,
                            repeat=repeat,
                            learner=learner,
                            f1=np.nan if failed else score + 0.01 * repeat,
                            status="failed" if failed else "ok",
                            message="ValueError: not chordal" if failed else "",
                        )
                    )
    return pd.DataFrame(rows)


def all_cells(table):
    return [cell for row in table.rows for cell in row] + table.columns


def test_no_data_reads_as_words_never_as_python_values():
    analysis = analyse(frame_with_a_hopeless_cell(), "f1", n_bootstrap=100)
    board = leaderboard_table(analysis.board)
    shift = rank_shift_table(analysis.comparisons[0].shift)
    for table in (board, shift):
        assert not [c for c in all_cells(table) if ARTEFACT.search(c)]
    rows = {tuple(row[:3]): row for row in board.rows}
    assert rows["TO", "0.3", "c"][3] == "no data"  # no position without a fit
    assert rows["TO", "0.5", "a"][3:5] == ["no data", "no data"]
    no_data = [row for row in shift.rows if row[0] == "0.5"]
    assert all(row[3:6] == ["no data", "no data", "no"] for row in no_data)


def test_findings_say_where_nothing_could_be_ranked():
    sentences = findings(analyse(frame_with_a_hopeless_cell(), "f1", n_bootstrap=100))
    assert "Under DD, a ranks first by F1 over the whole grid" in sentences[0]
    assert sentences[-3].startswith(
        "16 of 72 fits did not finish (22.2%): 16 failed. The most frequent "
        "message (16 fits; c (8), a (4), b (4)): \u201cValueError: not chordal\u201d"
    )
    assert sentences[-2].startswith(
        "Failure rates by generator: under DD 0% (0 of 36 fits); under TO 44% (16 "
        "of 36 fits: c 67% (8 of 12), a 33% (4 of 12), b 33% (4 of 12))."
    )
    assert sentences[-1] == (
        "Without any successful fit, and so without a position: c under TO, "
        "density 0.3; a under TO, density 0.5; b under TO, density 0.5; and 1 more "
        "(see the leaderboard)."
    )


def test_text_tables_fit_the_width_and_keep_every_word():
    names = ", ".join(f"learner_{i}" for i in range(12))
    table = Table(
        columns=["learner", "mean rank (95% CI)", "tied with"],
        rows=[["adalasso", "1.67 (1.08–2.58)", names]],
        wrap=frozenset({"tied with"}),
    )
    text = text_table(table, width=60)
    assert max(len(line) for line in text.splitlines()) <= 60
    assert " ".join(text.split()).count("learner_") == 12
    # The intervals are never broken over lines.
    assert "1.67 (1.08–2.58)" in text


def test_text_report_is_readable_at_100_columns():
    text = text_report(analyse(frame_with_a_hopeless_cell(), "f1", n_bootstrap=100))
    assert max(len(line) for line in text.splitlines()) <= 100
    headings = [line for line in text.splitlines() if re.fullmatch(r"=+", line)]
    assert len(headings) == 6  # findings, leaderboard, CD, shift, agreement, failures
    assert not ARTEFACT.search(text.replace("NaN", ""))


# --------------------------------------------------------------------------------------
# Issue 28: failures told apart from recovery, thin evidence, wording, marks
# --------------------------------------------------------------------------------------


def _study(scores, *, fails=lambda generator, learner, repeat: False, repeats=6,
           message=lambda learner: "", metric="f1"):  # fmt: skip
    """Two generators; ``scores[generator][learner]`` plus a little noise."""
    rng = np.random.RandomState(0)
    rows = []
    for generator, by_learner in scores.items():
        for repeat in range(repeats):
            for learner, score in by_learner.items():
                failed = fails(generator, learner, repeat)
                rows.append(
                    dict(
                        generator=generator, n_features=10, density=0.1,
                        n_samples=50, repeat=repeat, learner=learner,
                        status="failed" if failed else "ok",
                        message="ValueError: boom" if failed else message(learner),
                        **{metric: np.nan if failed else score + 0.01 * rng.rand()},
                    )
                )  # fmt: skip
    return pd.DataFrame(rows)


UNCHANGED = {"DD": {"a": 0.8, "b": 0.5, "c": 0.3}, "TO": {"a": 0.8, "b": 0.5, "c": 0.3}}


def test_a_rise_made_by_another_learners_failures_is_not_a_change_of_the_learner():
    # a fails in every TO fit: b and c "rise" by one place with their F1 unchanged.
    frame = _study(UNCHANGED, fails=lambda g, learner, r: g == "TO" and learner == "a")
    analysis = analyse(frame, "f1", n_bootstrap=200)
    shift = analysis.comparisons[0].shift.set_index("learner")
    assert shift.loc["b", "places_gained"] == 1 and shift.loc["b", "significant"]
    complete = analysis.comparisons[0].complete_shift.set_index("learner")
    assert complete.loc["b", "rank_gain"] == 0 and not complete.loc["b", "significant"]
    sentences = [s for s in findings(analysis) if s.startswith("By F1")]
    assert {s.split(", ")[1].split()[0] for s in sentences} == {"b", "c"}
    for sentence in sentences:
        assert "significant change" not in sentence
        assert "6 of 12 blocks hold a fit without a value" in sentence
        assert (
            "the shift comes from other learners' failed fits, not from a change"
            in sentence
        )
    assert any(s.startswith("Failure rates by generator: under DD 0% (0 of 18 fits); "
                            "under TO 33% (6 of 18 fits: a 100% (6 of 6))")
               for s in findings(analysis))  # fmt: skip


def test_a_fall_made_by_the_learners_own_failures_says_so():
    # a fails in 2 of 6 TO fits; where it succeeds it still ranks first.
    frame = _study(
        UNCHANGED, fails=lambda g, learner, r: g == "TO" and learner == "a" and r < 2
    )
    analysis = analyse(frame, "f1", n_bootstrap=200)
    (sentence,) = [s for s in findings(analysis) if ", a keeps the 1st place" in s]
    assert "its mean rank worsens by 0.67" in sentence
    # a's 2 failures leave 10 complete blocks, but only the 4 repeats complete on
    # both sides are paired: the figure is computed on their 8 blocks.
    assert (
        "on the 8 blocks where every compared learner has a value, in the 4 repeats "
        "with such blocks on both sides, its mean rank changes by +0.00" in sentence
    )
    assert sentence.endswith(
        "the shift comes from failed fits, a's own among them (2 under TO), not "
        "from a change of a."
    )
    # The failure-rate table has a column per generator.
    table = failure_rate_table(frame)
    assert table.columns == ["learner", "under DD", "under TO", "all"]
    assert table.rows[0] == ["a", "0/6 (0%)", "2/6 (33%)", "2/12 (17%)"]


def test_a_winner_that_leads_only_through_failures_is_named_so():
    scores = {"DD": {"a": 0.8, "b": 0.5}, "TO": {"a": 0.8, "b": 0.5}}
    # Under TO, a beats b where both succeed, but b "wins" because a fails 4 of 6.
    scores["TO"] = {"a": 0.8, "b": 0.5}
    frame = _study(scores, fails=lambda g, learner, r: g == "TO" and learner == "a"
                   and r < 4)  # fmt: skip
    (sentence,) = [s for s in findings(analyse(frame, "f1", n_bootstrap=200))
                   if s.startswith("Under TO")]  # fmt: skip
    assert sentence.startswith("Under TO, b ranks first")
    assert "4 of 6 blocks hold a fit without a value" in sentence
    assert "a ranks first instead" in sentence
    assert "the lead above comes from failed fits" in sentence


def test_thin_evidence_is_marked_and_never_called_significant():
    frame = _study(UNCHANGED | {"TO": {"a": 0.3, "b": 0.5, "c": 0.8}}, repeats=3)
    analysis = analyse(frame, "f1", n_bootstrap=200)
    sentences = findings(analysis)
    text = " ".join(sentences)
    assert "significant" not in text.replace("significantly", "")
    assert "significantly better" not in text
    assert "too few repeats to tell (n = 3)" in text
    assert "\u2020" in text
    board = leaderboard_table(analysis.board)
    assert all(row[4].endswith("\u2020") for row in board.rows)
    assert any("fewer than 5 repeats (n = 3 here)" in note for note in board.notes)
    # "1.00 (1.00–1.00)" is explained.
    assert any(note.startswith("An interval of zero width, such as 1.00 (1.00–1.00)")
               for note in board.notes)  # fmt: skip
    shift = rank_shift_table(analysis.comparisons[0].shift)
    assert {row[5] for row in shift.rows} == {"too few"}
    assert evidence_line(analysis).startswith(
        "Every interval is a 95% bootstrap interval over n = 3 repeats"
    )
    assert "An interval of zero width, such as 1.00 (1.00–1.00)" in evidence_line(
        analysis
    )
    # Five repeats: the old wording, no mark.
    enough = analyse(
        _study(UNCHANGED | {"TO": {"a": 0.3, "b": 0.5, "c": 0.8}}, repeats=5),
        "f1", n_bootstrap=200,
    )  # fmt: skip
    text = " ".join(findings(enough))
    assert "a significant change" in text and "\u2020" not in text


def test_a_shared_first_place_names_every_learner_and_its_numbers():
    same = {"a": 0.8, "b": 0.8, "c": 0.3}
    frame = _study({"DD": same, "TO": same})
    frame.loc[frame.learner == "b", "f1"] = frame.loc[frame.learner == "a", "f1"].values
    (sentence, *_) = findings(analyse(frame, "f1", n_bootstrap=200))
    assert sentence.startswith(
        "Under DD, a and b share the first place by F1 over the whole grid (a: mean "
        "rank 1.50 (1.50–1.50), mean F1 "
    )
    assert "; b: mean rank 1.50 (1.50–1.50), mean F1" in sentence
    assert " its " not in sentence
    assert sentence.endswith("no other learner's rank interval overlaps theirs.")


def test_the_edge_decision_finding_only_where_edges_are_ranked():
    def every(learner):
        return "selected every pair" if learner == "c" else ""

    for metric, shown in (("f1", True), ("roc_auc", False), ("kl_divergence", False)):
        frame = _study(UNCHANGED, message=every, metric=metric)
        text = " ".join(findings(analyse(frame, metric, n_bootstrap=100)))
        assert ("Edge decisions that say little" in text) is shown, metric


def test_a_learner_selecting_every_pair_is_marked_in_every_table():
    from skggm_bench.benchmark.present._table_formats import format_table
    from skggm_bench.benchmark.present._text import report_tables

    frame = _study(
        UNCHANGED, message=lambda learner: "selected every pair" * (learner == "c")
    )
    analysis = analyse(frame, "f1", n_bootstrap=100)
    tables = dict(report_tables(analysis))
    for name in ("leaderboard", "leaderboard_overall", "rank_shift_generator_DD_TO"):
        table = tables[name]
        edges = table.columns.index("edges")
        assert table.columns[edges - 1] == "learner"
        marked = {row[edges - 1]: row[edges] for row in table.rows}
        assert marked == {"a": "", "b": "", "c": "every pair"}, name
        assert any(note.startswith('edges "every pair"') for note in table.notes)
        for format in ("text", "markdown", "latex"):
            text = format_table(table, format)
            lines = [line for line in text.splitlines()
                     if re.search(r"(^|[|&] )c( [|&]|  )", line)]  # fmt: skip
            assert lines and all("every pair" in line for line in lines), text
        # The learner column stays the key of a CSV export.
        csv = pd.read_csv(io.StringIO(format_table(table, "csv")))
        assert set(csv["learner"]) == {"a", "b", "c"}
    for format in ("text", "markdown", "latex"):
        text = format_table(tables["critical_differences"], format)
        assert "c [every pair] (3.00)" in text and "a [every" not in text
    assert "every pair" in text_report(analysis).split("Leaderboard by F1")[1]


def test_a_long_no_data_reason_is_a_footnote_not_a_wrapped_table():
    reason = (
        "no loss: covariance_ and precision_ disagree (max |covariance_ @ "
        "precision_ - I| = 0.0707, tolerance 0.02) because the solver stopped "
        "early on a badly conditioned problem and returned its last iterate"
    )
    frame = _study(UNCHANGED, metric="kl_divergence")
    bad = frame.learner == "c"
    frame.loc[bad, "kl_divergence"] = np.nan
    frame.loc[bad, "message"] = f"kl_divergence undefined: {reason}"
    analysis = analyse(frame, "kl_divergence", n_bootstrap=100)
    table = leaderboard_table(analysis.board)
    text = text_table(table, width=100)
    lines = text.splitlines()
    # One line per learner: header, 3 rows, per generator.
    block = lines[: lines.index("")]
    assert len(block) == 5, block
    assert "no data [1]" in block[-1]
    assert table.notes[0].startswith(
        "[1] no data: no loss: covariance_ and precision_ disagree"
    )
    assert max(len(line) for line in lines) <= 100


def test_complete_blocks_counted_by_hand():
    from skggm_bench.benchmark.analysis._analysis import complete_blocks

    rows = []
    for generator in ("DD", "TO"):
        for density in (0.1, np.nan):
            for repeat in range(3):
                for learner in "abc":
                    where = (generator, density == 0.1, repeat, learner)
                    if where == ("TO", False, 1, "a"):
                        continue  # missing row
                    failed = where == ("DD", True, 0, "c") or (
                        generator == "TO" and density == 0.1 and learner == "b"
                    )
                    rows.append(dict(
                        generator=generator, n_features=10, density=density,
                        n_samples=50, repeat=repeat, learner=learner,
                        f1=np.nan if failed else 0.5,
                        status="failed" if failed else "ok"))  # fmt: skip
    frame = pd.DataFrame(rows)
    _, blocks = complete_blocks(frame, "f1", ["generator", "density"])
    counts = {
        (g, -1 if np.isnan(d) else d): (n, gaps, complete)
        for g, d, n, gaps, complete in blocks.itertuples(index=False)
    }
    assert counts == {
        ("DD", 0.1): (3, 1, 2),  # c failed in repeat 0
        ("DD", -1): (3, 0, 3),  # the family's default density (NaN) is a group
        ("TO", 0.1): (3, 0, 3),  # b never has a value there: not compared
        ("TO", -1): (3, 1, 2),  # a missing in repeat 1
    }
    rows, blocks = complete_blocks(frame, "f1", ["density"], axis="generator")
    at = blocks.set_index(blocks.density.fillna(-1))
    # density 0.1: a and c are compared (b only under DD); b's TO failures and c's
    # DD failure are gaps; 5 blocks have values of both a and c, 4 of them in the
    # repeats 1 and 2, complete on both sides: the comparison pairs those.
    assert at.loc[0.1, ["n_blocks", "n_gaps", "n_complete"]].tolist() == [6, 4, 4]
    assert at.loc[-1, ["n_blocks", "n_gaps", "n_complete"]].tolist() == [6, 1, 4]
    assert set(rows[rows.density == 0.1].learner) == {"a", "c"}
    assert sorted(set(rows[rows.density == 0.1].repeat)) == [1, 2]


def test_an_ordering_that_ties_every_learner_is_not_called_missing_data():
    """Under DD the three learners swap places between the two densities, so over
    the whole grid their mean ranks all tie: Kendall's tau is undefined there,
    although every learner has results on both sides. The finding and the
    agreement table say so (they used to say "fewer than two learners have
    results on both sides" and "no data"); per density tau is defined."""
    rows = [
        {"generator": generator, "n_features": 10, "density": density,
         "n_samples": 50, "repeat": repeat, "learner": name, "f1": f1,
         "status": "ok"}
        for repeat in range(5)
        for generator, density, scores in [
            ("DD", 0.1, {"a": 0.9, "b": 0.5, "c": 0.1}),
            ("DD", 0.3, {"a": 0.1, "b": 0.5, "c": 0.9}),
            ("TO", 0.1, {"a": 0.9, "b": 0.5, "c": 0.1}),
            ("TO", 0.3, {"a": 0.9, "b": 0.5, "c": 0.1}),
        ]
        for name, f1 in scores.items()
    ]  # fmt: skip
    analysis = analyse(pd.DataFrame(rows), "f1", n_bootstrap=100)
    [comparison] = analysis.comparisons
    overall = comparison.agreement.iloc[-1]
    assert overall["comparison"] == "all tied" and np.isnan(overall["tau"])
    assert overall["n_learners"] == 3
    groups = comparison.agreement.iloc[:-1]
    assert (groups["comparison"] == "compared").all()
    assert groups["tau"].tolist() == [1.0, -1.0]
    [sentence] = [s for s in findings(analysis) if "orderings" in s]
    assert "one side gives every learner the same mean rank" in sentence
    assert "fewer than two" not in sentence
    whole = agreement_table(analysis.comparisons).rows[-1]
    assert whole[1:3] == ["whole grid", "undefined: one side ties every learner"]
    # All three share the first place under DD: no "other" learner to overlap.
    [first] = [s for s in findings(analysis) if "first place" in s]
    assert "a, b and c share the first place" in first
    assert first.endswith("every learner ranked there shares it.")
    assert "no other learner" not in first


def test_edges_marks_count_the_groups_own_fits():
    """Learner b selected no pair in one fit, at density 0.3 under TO. Every table
    marks it where that fit is, with that group's counts: the leaderboard "no pair
    1/5" (TO, 0.3), the rank shift "no pair 1/10" (density 0.3, both generators
    pooled), the critical differences "[no pair 1/5]" (TO, 0.3); the rows of the
    other groups, where b selected pairs in every fit, carry no mark (issue 37
    item 9, issue 42 item 5: not "[no pair 1/20]" on every row)."""
    from skggm_bench.benchmark.present._tables import critical_difference_table

    rows = [
        {"generator": generator, "n_features": 10, "density": density,
         "n_samples": 50, "repeat": repeat, "learner": name, "f1": f1,
         "status": "ok",
         "message": "selected no pair" if (name, generator, density, repeat)
         == ("b", "TO", 0.3, 0) else ""}
        for repeat in range(5)
        for generator in ("DD", "TO")
        for density in (0.1, 0.3)
        for name, f1 in {"a": 0.9, "b": 0.5, "c": 0.1}.items()
    ]  # fmt: skip
    analysis = analyse(pd.DataFrame(rows), "f1", n_bootstrap=100)
    [comparison] = analysis.comparisons
    shift = rank_shift_table(comparison.shift, comparison.selection)
    edges = {(row[0], row[1]): row[shift.columns.index("edges")] for row in shift.rows}
    assert edges == {
        ("0.1", "a"): "", ("0.1", "b"): "", ("0.1", "c"): "",
        ("0.3", "a"): "", ("0.3", "b"): "no pair 1/10", ("0.3", "c"): "",
    }  # fmt: skip
    assert any("of the group, both sides together" in n for n in shift.notes)
    # Given the whole grid's counts, the table says so.
    whole = rank_shift_table(comparison.shift, analysis.selection)
    assert [row[whole.columns.index("edges")] for row in whole.rows].count(
        "no pair 1/20"
    ) == 2
    assert any("over the whole grid, all generators together" in n for n in whole.notes)
    board = leaderboard_table(analysis.board)
    marked = [row[:3] for row in board.rows if row[board.columns.index("edges")]]
    assert marked == [["TO", "0.3", "b"]]
    differences = critical_difference_table(analysis.cd, analysis.cd_selection)
    lists = {tuple(row[:2]): " ".join(row[2:]) for row in differences.rows}
    assert [key for key, text in lists.items() if "no pair" in text] == [("TO", "0.3")]
    assert "b [no pair 1/5] (2.00)" in lists["TO", "0.3"]
    assert differences.notes[0].startswith(
        "[every pair] after a name: the learner selected every pair in its "
        "successful fits of the group"
    )


def test_finished_fits_with_warnings_are_named_in_the_findings():
    """b's fits raised warnings in 3 of its 10 finished fits (two classes); its
    failed fit's warning is not counted; a and c raised none. The findings say so
    with the counts; without warnings there is no such sentence."""
    warned = {0: "ConvergenceWarning: no convergence", 1: "RuntimeWarning: overflow",
              2: "ConvergenceWarning: no convergence"}  # fmt: skip
    rows = [
        {"generator": generator, "n_features": 10, "density": 0.1,
         "n_samples": 50, "repeat": repeat, "learner": name, "f1": f1,
         "status": "ok", "message": ""}
        for repeat in range(5)
        for generator in ("DD", "TO")
        for name, f1 in {"a": 0.9, "b": 0.5, "c": 0.1}.items()
    ]  # fmt: skip
    frame = pd.DataFrame(rows)
    quiet = findings(analyse(frame, "f1", n_bootstrap=100))
    assert not any("warning" in s for s in quiet)
    b = frame.index[(frame.learner == "b") & (frame.generator == "DD")]
    for repeat, text in warned.items():
        frame.loc[b[repeat], "message"] = f"first warning: {text}"
    failed = frame.index[(frame.learner == "b") & (frame.generator == "TO")][0]
    frame.loc[failed, ["status", "f1"]] = ["failed", np.nan]
    frame.loc[failed, "message"] = "ValueError: boom; first warning: UserWarning: x"
    analysis = analyse(frame, "f1", n_bootstrap=100)
    assert analysis.warned.to_dict("records") == [
        {"learner": "b", "n_ok": 9, "n_warned": 3,
         "classes": "ConvergenceWarning 2, RuntimeWarning 1"}
    ]  # fmt: skip
    [sentence] = [s for s in findings(analysis) if "raised a warning" in s]
    assert "b in 33% of its fits (3 of 9): ConvergenceWarning 2, RuntimeWarning 1" in (
        sentence
    )
    assert " a in " not in sentence and " c in " not in sentence


def test_every_pair_selected_gives_the_f1_the_notes_state():
    """With every pair selected the precision is the true density d and the recall
    1, so F1 = 2d / (1 + d), not d: the findings and the notes say so, and no
    page of the package or its docs states the false formula."""
    from pathlib import Path

    d = 0.2
    every = "selected every pair"
    frame = _study(UNCHANGED, message=lambda name: every * (name == "c"))
    frame.loc[frame.learner == "c", "f1"] = 2 * d / (1 + d)
    analysis = analyse(frame, "f1", n_bootstrap=100)
    formula = "the precision is the density d of the true graph and F1 is 2d / (1 + d)"
    [sentence] = [s for s in findings(analysis) if s.startswith("Edge decisions")]
    assert formula in sentence
    notes = leaderboard_table(analysis.board).notes
    notes += rank_shift_table(analysis.comparisons[0].shift, analysis.selection).notes
    assert sum(formula in note for note in notes) == 2
    root = Path(__file__).parents[3]
    pages = [*(root / "skggm_bench").rglob("*.py"), *(root / "docs").glob("*.md")]
    false = re.compile(r"F1 is (just )?the\s+density", re.S)
    assert not [page.name for page in pages if false.search(page.read_text())]


# --------------------------------------------------------------------------------------
# Issues 37 and 42: shifts headlined by their verdict, sentences that do not confuse
# --------------------------------------------------------------------------------------


def _ranked_study(orders, repeats, densities=(0.1,)):
    """Rows whose F1 gives each learner the rank ``orders[generator][learner][r]``
    in repeat r (1 the best)."""
    rows = []
    for density in densities:
        for generator, by_learner in orders.items():
            for learner, ranks in by_learner.items():
                for repeat in range(repeats):
                    rows.append(dict(
                        generator=generator, n_features=10, density=density,
                        n_samples=50, repeat=repeat, learner=learner,
                        f1=0.9 - 0.1 * ranks[repeat], status="ok",
                        message=""))  # fmt: skip
    return pd.DataFrame(rows)


def test_a_significant_shift_leads_the_findings_over_a_larger_uncertain_one():
    """y improves by 0.83 in every repeat but one (significant); x by 1.00 on
    average, +3 in four repeats and -3 in two (its interval includes 0). The
    headline is y's, and x's sentence says "not significant" (issue 37 item 7)."""
    orders = {
        "DD": {"x": [4, 4, 4, 4, 1, 1], "y": [3, 3, 3, 3, 3, 2],
               "u": [1, 2, 1, 2, 2, 3], "v": [2, 1, 2, 1, 4, 4]},
        "TO": {"x": [1, 1, 1, 1, 4, 4], "y": [2, 2, 2, 2, 2, 2],
               "u": [3, 3, 3, 3, 1, 1], "v": [4, 4, 4, 4, 3, 3]},
    }  # fmt: skip
    analysis = analyse(_ranked_study(orders, 6), "f1", n_bootstrap=1000)
    shift = analysis.comparisons[0].shift.set_index("learner")
    assert shift.loc["y", "significant"] and not shift.loc["x", "significant"]
    assert shift.loc["x", "rank_gain"] > shift.loc["y", "rank_gain"]
    sentences = [s for s in findings(analysis) if s.startswith("By F1")]
    assert ", y rises" in sentences[0] and sentences[0].endswith(
        "a significant change."
    )
    [x] = [s for s in sentences if ", x " in s]
    assert x.endswith("not significant: its interval includes 0.")


def test_the_rank_shift_table_does_not_call_a_shift_made_by_failures_significant():
    """b and c rise significantly on all blocks only because a fails under TO:
    the table's significant column says "no (failures)", with its rule in a
    note (issue 37 item 7)."""
    from skggm_bench.benchmark.analysis._analysis import shift_verdicts

    frame = _study(UNCHANGED, fails=lambda g, learner, r: g == "TO" and learner == "a")
    analysis = analyse(frame, "f1", n_bootstrap=200)
    [comparison] = analysis.comparisons
    assert comparison.shift.set_index("learner")["significant"][["b", "c"]].all()
    table = rank_shift_table(
        comparison.shift, comparison.selection, shift_verdicts(comparison)
    )
    column = table.columns.index("significant")
    cells = {row[1]: row[column] for row in table.rows}
    assert cells == {"a": "no", "b": "no (failures)", "c": "no (failures)"}
    assert any(note.startswith("significant: the interval excludes 0 and") for note
               in table.notes)  # fmt: skip
    assert "no (failures)" in text_report(analysis)


def test_a_place_lost_while_the_mean_rank_improves_is_explained():
    """L falls from 2nd to 3rd while its mean rank improves by 0.20: B passed it.
    The sentence names B, and the table explains the two columns (issue 42)."""
    orders = {
        "DD": {"A": [1, 1, 1, 1, 1], "L": [2, 2, 2, 3, 3], "B": [3, 3, 3, 2, 2]},
        "TO": {"A": [1, 2, 1, 2, 3], "L": [3, 3, 3, 1, 1], "B": [2, 1, 2, 3, 2]},
    }
    analysis = analyse(_ranked_study(orders, 5), "f1", n_bootstrap=200)
    [sentence] = [s for s in findings(analysis) if ", L " in s]
    assert sentence.startswith(
        "By F1 (density 0.1), L falls from 2nd under DD to 3rd under TO (B is now "
        "ranked ahead of it); its mean rank improves by 0.20"
    )
    table = rank_shift_table(analysis.comparisons[0].shift)
    assert any(note.startswith("A position counts the learners ranked ahead")
               for note in table.notes)  # fmt: skip


def test_tied_most_frequent_messages_are_all_named():
    """Two messages, 3 fits each: neither is "the most frequent" (issue 37 item 9)."""
    frame = _study(UNCHANGED, fails=lambda g, learner, r: learner != "a" and r < 3)
    frame.loc[(frame.learner == "b") & (frame.status != "ok"), "message"] = "A: x"
    frame.loc[(frame.learner == "c") & (frame.status != "ok"), "message"] = "B: y"
    [sentence] = [s for s in findings(analyse(frame, "f1", n_bootstrap=100))
                  if "did not finish" in s]  # fmt: skip
    assert "The most frequent message" not in sentence
    assert sentence.endswith(
        "2 messages tie as the most frequent, with 6 fits each: \u201cA: x\u201d (b "
        "(6)); \u201cB: y\u201d (c (6))."
    )


def test_learners_sharing_the_best_mean_rank_are_named_together():
    """a and b tie at the best mean rank: the critical-difference finding and
    table name both, not the first by name alone (issue 42 item 5)."""
    from skggm_bench.benchmark.present._tables import critical_difference_table

    orders = {g: {"a": [1.5] * 6, "b": [1.5] * 6, "c": [3] * 6} for g in ("DD", "TO")}
    analysis = analyse(_ranked_study(orders, 6), "f1", n_bootstrap=100)
    [sentence, *_] = [s for s in findings(analysis) if "significantly better" in s]
    assert sentence.startswith(
        "Under DD, density 0.1, a and b (each mean rank 1.50) are significantly "
        "better than c"
    )
    table = critical_difference_table(analysis.cd, analysis.cd_selection)
    best = table.columns.index("best (mean rank)")
    assert table.rows[0][best] == "a (1.50), b (1.50)"


def test_a_drawn_density_reads_rounded_in_prose_and_tables():
    """A drawn graph's density such as 0.0383673 reads 0.0384 (issue 42 item 5)."""
    frame = _study(UNCHANGED)
    frame["density"] = 0.0383673
    analysis = analyse(frame, "f1", n_bootstrap=100)
    text = text_report(analysis)
    assert "0.0383673" not in text and "density 0.0384" in text
    assert leaderboard_table(analysis.board).rows[0][1] == "0.0384"


def test_formatted_tables_print_the_key_of_their_dagger():
    """format_leaderboard and format_rank_shift print the key of † under the
    table, and only when a † is shown (issue 42 item 2)."""
    from skggm_bench.benchmark.analysis.leaderboard import leaderboard, rank_shift
    from skggm_bench.benchmark.present import format_leaderboard, format_rank_shift

    key = "\u2020 An interval over fewer than 5 repeats (n = 4 here)"
    for repeats, shown in ((4, True), (5, False)):
        frame = _study(UNCHANGED | {"TO": {"a": 0.3, "b": 0.5, "c": 0.8}},
                       repeats=repeats)  # fmt: skip
        tables = [
            format_leaderboard(leaderboard(frame, "f1")),
            format_rank_shift(rank_shift(frame, "f1", "DD", "TO")),
        ]
        for table in tables:
            assert (key in table.to_string(index=False)) is shown
            for text in (repr(table), str(table)):
                # A wide repr may hide the marked columns: then no key either.
                body = text.split("\n\n\u2020")[0]
                assert (key in text) is ("\u2020" in body)
            # Slices keep the key.
            assert (key in table.iloc[:2].to_string()) is shown


def test_the_reports_bump_chart_draws_no_shift_made_by_failures_as_solid():
    """The bump chart's solid lines follow the table's significant column: b and
    c, lifted by a's failures only, are dashed (issue 37 item 7)."""
    from skggm_bench.benchmark.present._text import report_tables
    from skggm_bench.benchmark.present.report import _comparisons

    class Figures:
        def add(self, figure, *_):
            self.figure = figure

    frame = _study(UNCHANGED, fails=lambda g, learner, r: g == "TO" and learner == "a")
    figures = Figures()
    analysis = analyse(frame, "f1", n_bootstrap=200)
    [(_, table)] = report_tables(analysis)[3:4]
    [item] = _comparisons(analysis, figures, [table])
    lines = {line.get_label(): line for line in figures.figure.axes[0].get_lines()}
    assert {lines[name].get_linestyle() for name in ("b", "c")} == {"--"}
    assert "no (failures)" in " ".join(map(" ".join, item["table"].rows))
