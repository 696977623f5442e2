"""skggm_bench.benchmark.report: a self-contained HTML file with tables, figures."""

import base64
import json
import re
import sys

import matplotlib
import numpy as np
import pandas as pd
import pytest

from skggm_bench.benchmark.report import write_report

matplotlib.use("Agg")

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def study_frame():
    """Two generators, two densities, three learners; 'pls' fails twice."""
    rng = np.random.RandomState(0)
    base = {"glasso": 0.6, "lasso": 0.5, "pls": 0.2}
    after = {"glasso": 0.3, "lasso": 0.55, "pls": 0.5}  # the rank shift
    rows = []
    for generator, level in (
        ("DiagonalDominance", base),
        ("TriangulatedOrthogonalization", after),
    ):
        for density in (0.05, 0.25):
            for learner, value in level.items():
                for n in (50, 100):
                    for repeat in range(4):
                        f1 = value + rng.normal(0, 0.02)
                        rows.append(
                            dict(
                                generator=generator,
                                learner=learner,
                                density=density,
                                n_features=20,
                                n_samples=n,
                                repeat=repeat,
                                seed=repeat,
                                tpr=f1,
                                ppv=1 - f1,
                                f1=f1,
                                fit_time=0.01,
                                status="ok",
                                message="",
                                versions=json.dumps(
                                    {"numpy": "2.0.0", "skggm-bench": "0.1.0"}
                                ),
                            )
                        )
    frame = pd.DataFrame(rows)
    broken = (frame.learner == "pls") & (frame.n_samples == 50) & (frame.repeat < 2)
    broken &= (frame.generator == "TriangulatedOrthogonalization") & (
        frame.density == 0.25
    )
    frame.loc[broken, ["tpr", "ppv", "f1"]] = np.nan
    frame.loc[broken, "status"] = "failed"
    frame.loc[broken, "message"] = "LinAlgError: <script>alert(1)</script> singular"
    return frame


def embedded_pngs(page):
    return [
        base64.b64decode(data)
        for data in re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    ]


def test_report_has_every_section_and_embeds_its_figures(tmp_path):
    path = write_report(study_frame(), tmp_path / "out", metadata={"entropy": 7})
    assert path == tmp_path / "out" / "report.html"
    page = path.read_text(encoding="utf-8")
    for heading in (
        "Summary",
        "Leaderboard (f1)",
        "Rank shift between generators",
        "TPR / PPV curves",
        "Failures",
        "Run metadata",
    ):
        assert f">{heading}</h2>" in page
    # Leaderboard tables: every learner, the interval columns, failure counts.
    assert "mean rank (95% CI)" in page and "f1 (95% CI)" in page
    for learner in ("glasso", "lasso", "pls"):
        assert f"<td>{learner}</td>" in page
    assert "<td>2/8</td>" in page  # pls failed 2 of its 8 blocks there
    # The rank shift: glasso falls from 1st to last.
    assert "DiagonalDominance &rarr; TriangulatedOrthogonalization" in page
    # Failures are listed, and their text is escaped, never executed.
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script>" not in page
    # Metadata: versions recorded with the rows and the study.
    assert "<td>numpy</td>" in page and "<td>2.0.0</td>" in page
    assert "&quot;entropy&quot;: 7" in page
    # Self-contained: figures inline, nothing fetched from elsewhere.
    assert not re.search(r'(src|href)="(?!data:)', page)
    pngs = embedded_pngs(page)
    # leaderboard + one rank shift + one curve figure per density
    assert len(pngs) == 4
    assert all(png.startswith(PNG_SIGNATURE) for png in pngs)
    files = sorted(p.name for p in (tmp_path / "out" / "figures").iterdir())
    assert files == [
        "curves_density_0.05.png",
        "curves_density_0.25.png",
        "leaderboard.png",
        "rank_shift_TriangulatedOrthogonalization.png",
    ]
    assert all((tmp_path / "out" / "figures" / f).stat().st_size > 5_000 for f in files)


def no_figures(monkeypatch):
    """Tables only: makes the report believe matplotlib is absent (faster)."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)


def test_report_leaderboard_values_match_the_leaderboard(tmp_path, monkeypatch):
    from skggm_bench.benchmark.leaderboard import format_leaderboard, leaderboard

    no_figures(monkeypatch)
    frame = study_frame()
    page = write_report(frame, tmp_path).read_text(encoding="utf-8")
    table = format_leaderboard(leaderboard(frame, "f1"))
    for cell in table["mean rank (95% CI)"]:
        assert f"<td>{cell}</td>" in page


def test_report_with_one_generator_says_there_is_no_rank_shift(tmp_path):
    frame = study_frame()
    frame = frame[frame.generator == "DiagonalDominance"]
    page = write_report(frame, tmp_path).read_text(encoding="utf-8")
    assert "Only one generator: there is no rank shift to show." in page
    assert "Every fit finished: no failures, no timeouts." in page
    assert len(embedded_pngs(page)) == 3  # leaderboard + two densities


def test_report_without_matplotlib_still_has_the_tables(tmp_path, monkeypatch):
    no_figures(monkeypatch)
    page = write_report(study_frame(), tmp_path).read_text(encoding="utf-8")
    assert "matplotlib is not installed" in page
    assert "mean rank (95% CI)" in page
    assert embedded_pngs(page) == []


def test_report_reference_and_metric_options(tmp_path, monkeypatch):
    no_figures(monkeypatch)
    frame = study_frame()
    page = write_report(
        frame, tmp_path, metric="tpr", reference="TriangulatedOrthogonalization"
    ).read_text(encoding="utf-8")
    assert "Leaderboard (tpr)" in page
    assert "TriangulatedOrthogonalization &rarr; DiagonalDominance" in page
    with pytest.raises(ValueError, match="reference='Nope' is not a generator"):
        write_report(frame, tmp_path, reference="Nope")
    with pytest.raises(ValueError, match="no rows"):
        write_report(frame.iloc[:0], tmp_path)
    with pytest.raises(ValueError, match="metric 'mcc' is not in these results"):
        write_report(frame, tmp_path, metric="mcc")
