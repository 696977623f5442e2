"""benchmark.present.report: a self-contained HTML page led by its findings."""

import base64
import json
import re
import sys
from html.parser import HTMLParser

import markupsafe
import matplotlib
import numpy as np
import pandas as pd
import pytest

from skggm_bench.benchmark.analysis._analysis import analyse
from skggm_bench.benchmark.analysis.leaderboard import leaderboard, rank_shift
from skggm_bench.benchmark.present import format_interval
from skggm_bench.benchmark.present.report import write_report

matplotlib.use("Agg")

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
DD, TO = "DiagonalDominance", "TriangulatedOrthogonalization"
SECTIONS = [
    "Findings",
    "Leaderboard",
    "Critical differences",
    "Rank shift",
    "Curves",
    "Recovery against graph difficulty",
    "Failures",
    "Versions and configuration",
]
PYTHON_ARTEFACTS = re.compile(r"(^|\W)(nan|NaN|None|True|False|<NA>)(\W|$)")


def study_frame(metric="f1", data_models=("gaussian",)):
    """Two generators, two densities, three learners; 'pls' fails twice.

    Under diagonal dominance glasso wins and pls is last; under triangulated
    orthogonalization lasso wins and glasso is last (the rank shift).
    """
    rng = np.random.RandomState(0)
    base = {"glasso": 0.6, "lasso": 0.5, "pls": 0.2}
    after = {"glasso": 0.3, "lasso": 0.55, "pls": 0.5}
    rows = []
    for model in data_models:
        for generator, level in ((DD, base), (TO, after)):
            for density in (0.05, 0.25):
                for learner, value in level.items():
                    for n in (50, 100):
                        for repeat in range(4):
                            score = value + rng.normal(0, 0.02)
                            rows.append(
                                dict(
                                    generator=generator,
                                    data_model=model,
                                    learner=learner,
                                    density=density,
                                    n_features=20,
                                    n_samples=n,
                                    repeat=repeat,
                                    seed=repeat,
                                    min_edge_partial_correlation=0.01 * (1 + repeat),
                                    tpr=score,
                                    ppv=1 - score,
                                    f1=score,
                                    fit_time=0.01,
                                    status="ok",
                                    message="",
                                    versions=json.dumps(
                                        {"numpy": "2.0.0", "skggm-bench": "0.1.0"}
                                    ),
                                )
                            )
    frame = pd.DataFrame(rows)
    if metric != "f1":  # a loss: lower is better, so flip the scores
        frame[metric] = 1 - frame["f1"]
        frame = frame.drop(columns=["tpr", "ppv", "f1"])
    broken = (frame.learner == "pls") & (frame.n_samples == 50) & (frame.repeat < 2)
    broken &= (frame.generator == TO) & (frame.density == 0.25)
    scores = [c for c in dict.fromkeys(("tpr", "ppv", "f1", metric)) if c in frame]
    frame.loc[broken, scores] = np.nan
    frame.loc[broken, "status"] = "failed"
    frame.loc[broken, "message"] = "LinAlgError: <script>alert(1)</script> singular"
    return frame


def embedded_pngs(page):
    return [
        base64.b64decode(data)
        for data in re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    ]


class Cells(HTMLParser):
    """The text of every table cell and every h2 heading of a page."""

    def __init__(self):
        super().__init__()
        self.cells, self.headings, self._open = [], [], None

    def handle_starttag(self, tag, attrs):
        if tag in ("td", "th", "h2"):
            self._open, self._text = tag, ""

    def handle_data(self, data):
        if self._open:
            self._text += data

    def handle_endtag(self, tag):
        if tag == self._open:
            (self.headings if tag == "h2" else self.cells).append(self._text.strip())
            self._open = None


def parse(page):
    parser = Cells()
    parser.feed(page)
    return parser


def no_figures(monkeypatch):
    """Tables only: makes the report believe matplotlib is absent (faster)."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)


def test_report_sections_figures_and_self_containment(tmp_path):
    path = write_report(
        study_frame(), tmp_path / "out", metadata={"entropy": 7}, n_bootstrap=200
    )
    assert path == tmp_path / "out" / "report.html"
    page = path.read_text(encoding="utf-8")
    parsed = parse(page)
    assert parsed.headings == SECTIONS  # findings first, then the evidence
    # Failure messages are escaped, never executed; the page runs no script.
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script" not in page
    assert "<td>numpy</td>" in page and "<td>2.0.0</td>" in page
    assert "&#34;entropy&#34;: 7" in page
    # Nothing fetched: the only links are to the tables' CSV and LaTeX files,
    # written beside the report, which the page does not need to show itself.
    assert not re.search(r'(src|href)="(?!data:|#|tables/)', page)
    assert (tmp_path / "out" / "tables" / "leaderboard.csv").is_file()
    files = sorted(p.name for p in (tmp_path / "out" / "figures").iterdir())
    assert files == [
        "critical_difference.png",
        "curves_density_0.05.png",
        "curves_density_0.25.png",
        "difficulty.png",
        "leaderboard.png",
        f"rank_shift_{TO}.png",
    ]
    pngs = embedded_pngs(page)
    assert len(pngs) == len(files)
    assert all(png.startswith(PNG_SIGNATURE) and len(png) > 5_000 for png in pngs)
    bad = [cell for cell in parsed.cells if PYTHON_ARTEFACTS.search(cell)]
    assert bad == []


def test_findings_state_the_numbers_with_their_intervals(tmp_path, monkeypatch):
    no_figures(monkeypatch)
    frame = study_frame()
    page = write_report(frame, tmp_path, n_bootstrap=300).read_text(encoding="utf-8")
    findings = re.search(r'<ul class="findings">(.*?)</ul>', page, re.S).group(1)
    sentences = [s.strip() for s in re.findall(r"<li>(.*?)</li>", findings, re.S)]
    # The winners, with the intervals of the leaderboard over the whole grid.
    board = leaderboard(frame, "f1", by=(), n_bootstrap=300)
    for generator, winner in ((DD, "glasso"), (TO, "lasso")):
        row = board[(board.generator == generator) & (board.position == 1)].iloc[0]
        assert row.learner == winner
        rank = format_interval(row.mean_rank, row.rank_low, row.rank_high)
        assert any(
            s.startswith(f"Under {generator}, {winner} ranks first")
            and f"mean rank {rank}" in s
            for s in sentences
        ), sentences
    # The largest shift: glasso from 1st to 3rd at both densities.
    shift = rank_shift(frame, "f1", DD, TO, n_bootstrap=300)
    glasso = shift[(shift.learner == "glasso") & (shift.density == 0.05)].iloc[0]
    worse = format_interval(
        -glasso.rank_gain, -glasso.rank_gain_high, -glasso.rank_gain_low, thin=True
    )
    # Four repeats: the interval is marked, and no change is called significant.
    assert (
        f"glasso falls from 1st under {DD} to 3rd under {TO}; its mean rank worsens "
        f"by {worse}, too few repeats to tell (n = 4)." in page
    )
    assert "significant change" not in page
    assert "over n = 4 repeats" in page  # the header says what carries the intervals
    assert f"Kendall&#39;s tau between the learner orderings under {DD}" in page
    assert "Friedman tests at level 0.05: the learners&#39; mean ranks differ" in page
    assert "2 of 96 fits did not finish (2.1%): 2 failed." in page


def test_report_ranks_a_loss_lower_is_better(tmp_path, monkeypatch):
    no_figures(monkeypatch)
    frame = study_frame(metric="frobenius_loss")
    page = write_report(frame, tmp_path, metric="frobenius_loss", n_bootstrap=200)
    page = page.read_text(encoding="utf-8")
    assert "Ranked by Frobenius loss (covariance) (lower is better)" in page
    # The lowest loss wins: the same winners as by F1 in study_frame.
    assert f"Under {DD}, glasso ranks first by Frobenius loss (covariance)" in page
    assert f"Under {TO}, lasso ranks first" in page


def test_report_with_several_data_models(tmp_path):
    frame = study_frame(data_models=("gaussian", "heavy"))
    frame = frame[frame.density == 0.05]  # one density: fewer figures to draw
    heavy = frame.data_model == "heavy"
    # With heavy tails, pls overtakes glasso under diagonal dominance.
    frame.loc[heavy & (frame.learner == "pls") & (frame.generator == DD), "f1"] = 0.9
    page = write_report(frame, tmp_path, n_bootstrap=200).read_text(encoding="utf-8")
    parsed = parse(page)
    assert "data model" in parsed.cells  # the leaderboard's group column
    assert f"Under {DD}, with heavy data, pls ranks first" in page
    assert f"Under {DD}, with gaussian data, glasso ranks first" in page
    assert "Data model gaussian → heavy" in page  # the rank shift between them
    figures = sorted(p.name for p in (tmp_path / "figures").iterdir())
    assert "curves_density_0.05_heavy.png" in figures
    assert "rank_shift_data_model_heavy.png" in figures
    assert [c for c in parsed.cells if PYTHON_ARTEFACTS.search(c)] == []


def test_failures_grouped_by_message_with_counts(tmp_path, monkeypatch):
    no_figures(monkeypatch)
    frame = study_frame()
    failed = frame.index[frame.status == "failed"]
    long = "ValueError: the covariance estimate is singular " + "because " * 40
    frame.loc[failed[0], "message"] = "LinAlgError: 3-th leading minor is not PD"
    frame.loc[failed[1], "message"] = "LinAlgError: 12-th leading minor is not PD"
    extra = frame.index[(frame.learner == "lasso") & (frame.repeat == 3)][:3]
    frame.loc[extra, ["status", "message", "f1"]] = ["timeout", long, np.nan]
    page = write_report(frame, tmp_path, n_bootstrap=100).read_text(encoding="utf-8")
    cells = parse(page).cells
    start = cells.index("generators", cells.index("status"))  # the failure table
    rows = [cells[i : i + 5] for i in range(start + 1, len(cells), 5)]
    rows = [row for row in rows if row[0] in ("failed", "timeout")]
    assert rows[0][0] == "timeout" and rows[0][2] == "3"
    assert rows[0][1].endswith("because …") and len(rows[0][1]) <= 160
    assert rows[1] == [
        "failed",
        "LinAlgError: 3-th leading minor is not PD (+1 similar)",
        "2",
        "pls (2)",
        f"{TO} (2)",
    ]
    # The failure rate of each learner, a column per generator, before the messages.
    start = cells.index("learner", cells.index("all") - 3)
    assert cells[start : start + 4] == ["learner", f"under {DD}", f"under {TO}", "all"]
    rates = {cells[i]: cells[i + 1 : i + 4] for i in range(start + 4, start + 4 * 5, 4)}
    assert rates["pls"] == ["0/16 (0%)", "2/16 (12%)", "2/32 (6%)"]
    assert rates["lasso"] == ["3/16 (19%)", "0/16 (0%)", "3/32 (9%)"]
    assert (tmp_path / "tables" / "failure_rates.csv").is_file()


def test_report_without_matplotlib_still_has_the_tables(tmp_path, monkeypatch):
    no_figures(monkeypatch)
    page = write_report(study_frame(), tmp_path, n_bootstrap=100).read_text(
        encoding="utf-8"
    )
    assert "matplotlib is not installed" in page
    assert "mean rank (95% CI)" in page
    assert embedded_pngs(page) == []


def test_report_options_and_errors(tmp_path, monkeypatch):
    no_figures(monkeypatch)
    frame = study_frame()
    page = write_report(
        frame, tmp_path, metric="tpr", reference=TO, n_bootstrap=100
    ).read_text(encoding="utf-8")
    assert "Ranked by TPR (power)" in page
    assert f"{TO} → {DD}</h3>" in page
    with pytest.raises(ValueError, match="reference='Nope' is not a generator"):
        write_report(frame, tmp_path, reference="Nope")
    with pytest.raises(ValueError, match="no rows"):
        write_report(frame.iloc[:0], tmp_path)
    with pytest.raises(ValueError, match="metric 'mcc' is not in these results"):
        write_report(frame, tmp_path, metric="mcc")
    with pytest.raises(ValueError, match="unknown metric 'seed'"):
        write_report(frame, tmp_path, metric="seed")
    # An output folder that cannot be made fails before any work is done.
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(OSError):
        write_report(frame, blocker / "report")


def test_report_text_matches_the_leaderboard_command(tmp_path, monkeypatch):
    """The report and the command line show the same numbers in the same words."""
    from skggm_bench.benchmark.present._findings import findings
    from skggm_bench.benchmark.present._text import text_report

    no_figures(monkeypatch)
    frame = study_frame()
    page = write_report(frame, tmp_path, n_bootstrap=100).read_text(encoding="utf-8")
    analysis = analyse(frame, "f1", n_bootstrap=100)
    text = " ".join(text_report(analysis).split())  # unwrapped
    for sentence in findings(analysis):
        assert str(markupsafe.escape(sentence)) in page  # as jinja2 escapes
        assert f"- {sentence}" in text


def test_figures_elsewhere_draws_none_and_links_there(tmp_path):
    from skggm_bench.benchmark.present.report import write_analysis_report

    analysis = analyse(study_frame(), "f1", n_bootstrap=50)
    path = write_analysis_report(analysis, tmp_path, figures_elsewhere="../charts.html")
    text = path.read_text()
    assert "leaves its figures out" in text and 'href="../charts.html"' in text
    assert "<img" not in text and not list((tmp_path / "figures").glob("*.png"))
    # The tables are all there.
    assert len(list((tmp_path / "tables").glob("*.csv"))) >= 3
    for bad in ("", 3):
        with pytest.raises(ValueError, match="figures_elsewhere must be a link"):
            write_analysis_report(analysis, tmp_path, figures_elsewhere=bad)
