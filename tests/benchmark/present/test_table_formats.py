"""Leaderboard tables for papers and spreadsheets: Markdown, LaTeX, CSV."""

import io

import pandas as pd
import pytest

from skggm_bench.benchmark.analysis._analysis import analyse
from skggm_bench.benchmark.present._table_formats import format_table
from skggm_bench.benchmark.present._tables import Table
from skggm_bench.benchmark.present._text import report_tables
from skggm_bench.benchmark.present._wording import MISSING

AWKWARD = Table(
    ["learner", "F1 (95% CI)", "tied with"],
    [["glasso_cv & co", "0.41 (0.40–0.42)", MISSING], ["a|b #1", "1e-3 ~ $x$", "c, d"]],
    caption="By F1 (higher is better); 50% done.",
)


def test_latex_escapes_every_cell_and_keeps_intervals():
    text = format_table(AWKWARD, "latex")
    assert text.startswith("\\begin{table}") and "\\toprule" in text
    assert "\\caption{By F1 (higher is better); 50\\% done.}" in text
    assert "glasso\\_cv \\& co & 0.41 (0.40--0.42) & -- \\\\" in text
    assert "a|b \\#1 & 1e-3 \\textasciitilde  \\$x\\$ & c, d \\\\" in text
    assert "F1 (95\\% CI)" in text


def test_markdown_keeps_the_table_shape():
    lines = format_table(AWKWARD, "markdown").splitlines()
    assert lines[0] == "*By F1 (higher is better); 50% done.*"
    assert lines[2] == "| learner | F1 (95% CI) | tied with |"
    assert lines[4] == f"| glasso_cv & co | 0.41 (0.40–0.42) | {MISSING} |"
    assert lines[5] == "| a\\|b #1 | 1e-3 ~ $x$ | c, d |"
    assert all(line.count("|") - line.count("\\|") == 4 for line in lines[2:])


def test_csv_reads_back_as_the_table():
    back = pd.read_csv(io.StringIO(format_table(AWKWARD, "csv")), dtype=str)
    assert back.columns.tolist() == AWKWARD.columns
    assert back.values.tolist() == AWKWARD.rows


def test_report_tables_cover_every_comparison():
    frame = pd.DataFrame(
        {
            "generator": ["DD"] * 4 + ["TO"] * 4,
            "n_features": 10,
            "density": 0.1,
            "n_samples": 50,
            "repeat": [0, 0, 1, 1] * 2,
            "learner": ["a", "b"] * 4,
            "f1": [0.2, 0.6, 0.3, 0.7, 0.8, 0.1, 0.9, 0.2],
            "status": "ok",
        }
    )
    names = [name for name, _ in report_tables(analyse(frame, n_bootstrap=100))]
    assert names == [
        "leaderboard",
        "leaderboard_overall",
        "critical_differences",
        "rank_shift_generator_DD_TO",
        "agreement",
    ]
    with pytest.raises(ValueError, match="format must be one of text, markdown"):
        format_table(AWKWARD, "html")
