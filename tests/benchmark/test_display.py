"""skggm_bench.benchmark._display: the findings and tables of the CLI and report."""

import re

import numpy as np
import pandas as pd

from skggm_bench.benchmark._analysis import analyse
from skggm_bench.benchmark._display import (
    Table,
    findings,
    leaderboard_table,
    rank_shift_table,
    text_report,
    text_table,
)

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
