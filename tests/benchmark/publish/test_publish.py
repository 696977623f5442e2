"""``skggm-bench publish``: the static results site, its versions and refusals.

Tiny real studies (one generator pair, p = 6, two repeats) keep this fast; the
learner names carry HTML, quotes and ampersands, so that every page shows them as
text. The browser half is tests/benchmark/publish/test_publish_browser.py.
"""

import hashlib
import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest
from sklearn.covariance import GraphicalLasso, LedoitWolf

from skggm_bench.benchmark import Benchmark
from skggm_bench.benchmark.config import load_config
from skggm_bench.benchmark.publish import PublishError, publish
from skggm_bench.benchmark.publish import site as site_module
from skggm_bench.benchmark.publish._manifest import manifest_problem
from skggm_bench.cli import main
from skggm_bench.generators import DiagonalDominance, TriangulatedOrthogonalization

pytest.importorskip("plotly")
pytest.importorskip("pyarrow")

HOSTILE = "<b>\"sparse\" & 'co'</b>"
LEARNERS = {HOSTILE: GraphicalLasso(alpha=0.4), "dense": GraphicalLasso(alpha=0.05)}


def run_study(path, learners=LEARNERS, random_state=0):
    Benchmark(
        generators={
            "DiagonalDominance": DiagonalDominance(),
            "TriangulatedOrthogonalization": TriangulatedOrthogonalization(),
        },
        learners=learners,
        densities=(0.2, 0.4),
        n_features=6,
        n_samples=(20, 40),
        n_repeats=2,
        metrics=("f1", "tpr"),
        n_jobs=1,
        random_state=random_state,
        store=str(path),
    ).run()
    return path


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    root = tmp_path_factory.mktemp("stores")
    (root / "more").mkdir()
    return {
        "first": run_study(root / "tiny.sqlite"),
        # The same study with one learner more: the same data side.
        "more": run_study(
            root / "more" / "tiny.sqlite",
            learners={**LEARNERS, "ledoit": LedoitWolf()},
        ),
        "other_data": run_study(root / "other.sqlite", random_state=1),
    }


@pytest.fixture(scope="module")
def published(stores, tmp_path_factory):
    """A site with two versions of ``tiny``: its first store, then one learner more."""
    site = tmp_path_factory.mktemp("published") / "site"
    first = publish([stores["first"]], site, n_bootstrap=50)
    v1 = snapshot(site / "studies" / "tiny" / "v1")
    second = publish([stores["more"]], site, n_bootstrap=50)
    return site, first, second, v1


def snapshot(root):
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(Path(root).rglob("*"))
        if p.is_file()
    }


def test_a_site_has_an_index_study_learner_pages_and_downloads(published):
    site, first, _, _ = published
    assert first == [{"study": "tiny", "version": 1, "added": True}]
    version = site / "studies" / "tiny" / "v1"
    for name in (
        "index.html",
        "rows.parquet",
        "rows.csv",
        "redraw.csv",
        "study.toml",
        "study.json",
        "manifest.json",
        "report/report.html",
    ):
        assert (version / name).is_file(), name
    index = (site / "index.html").read_text()
    assert "studies/tiny/v2/index.html" in index
    assert "scikit-learn" in index  # the learners' package versions
    assert len(list((site / "learners").glob("*.html"))) == 3
    page = (version / "index.html").read_text()
    # The leaderboard and the rank shift come first, then findings, then tables.
    assert page.index("leaderboard-chart") < page.index("Findings")
    assert page.index("Findings") < page.index('class="sortable"')
    assert manifest_problem(site) is None
    assert manifest_problem(version) is None


def test_plotly_is_one_shared_file_and_pages_hold_aggregates(published):
    site = published[0]
    scripts = [
        p
        for p in site.rglob("*")
        if p.is_file() and b"plotly.js v" in p.read_bytes()[:2000]
    ]
    assert [p.relative_to(site).as_posix() for p in scripts] == ["assets/plotly.min.js"]
    page = site / "studies" / "tiny" / "v1" / "index.html"
    assert page.stat().st_size < 200_000
    # No row is on the page: the seeds of the data sets are only in the downloads.
    seed = (site / "studies" / "tiny" / "v1" / "redraw.csv").read_text().splitlines()
    seed_value = seed[1].split(",")[7]
    assert seed_value not in page.read_text()


def test_names_are_escaped_in_html_and_json(published):
    site = published[0]
    for page in site.rglob("*.html"):
        if "report" in page.parts:
            continue
        text = page.read_text()
        assert '<b>"sparse"' not in text, page
    page = (site / "studies" / "tiny" / "v1" / "index.html").read_text()
    data = re.search(r'id="chart-data">(.*?)</script>', page, re.S).group(1)
    assert "<" not in data
    assert HOSTILE in json.loads(data)["learners"]


def test_a_new_version_keeps_the_old_one_and_says_what_changed(published):
    site, _, second, v1 = published
    assert second == [{"study": "tiny", "version": 2, "added": True}]
    assert snapshot(site / "studies" / "tiny" / "v1") == v1
    history = (site / "studies" / "tiny" / "index.html").read_text()
    assert "Learners added: ledoit" in history
    changes = json.loads((site / "site.json").read_text())["studies"]["tiny"]
    assert changes["versions"][1]["changes"]["learners_added"] == ["ledoit"]


def test_publishing_the_same_rows_adds_no_version(published, stores, capsys):
    site = published[0]
    before = snapshot(site)
    assert main(["publish", str(stores["more"]), "--out", str(site)]) == 0
    assert "unchanged, still version 2" in capsys.readouterr().out
    assert snapshot(site) == before


def test_changed_rows_are_counted_with_their_likely_cause(stores, tmp_path):
    site = tmp_path / "site"
    publish([stores["first"]], site, n_bootstrap=50)
    changed = tmp_path / "tiny.sqlite"
    shutil.copy(stores["first"], changed)
    with sqlite3.connect(changed) as conn:
        conn.execute(
            "UPDATE results SET f1 = 0.123, versions = replace(versions, "
            '\'"scikit-learn": "\', \'"scikit-learn": "0.0-\') '
            "WHERE learner = 'dense'"
        )
    publish([changed], site, n_bootstrap=50)
    change = json.loads((site / "site.json").read_text())["studies"]["tiny"][
        "versions"
    ][1]["changes"]
    assert change["rows_changed"] == 16
    ((cause, count),) = change["causes"]
    assert (
        count == 16
        and cause.startswith("scikit-learn ")
        and cause.endswith(" -> 0.0-" + cause.split()[1])
    )


def test_study_file_loads_and_redraw_calls_name_every_data_set(published):
    version = published[0] / "studies" / "tiny" / "v1"
    config = load_config(version / "study.toml")
    assert sorted(config.learners) == sorted(LEARNERS)
    assert config.grid["n_samples"] == [20, 40] or tuple(config.grid["n_samples"]) == (
        20,
        40,
    )
    calls = (version / "redraw.csv").read_text().splitlines()
    # 2 generators x 2 densities x 2 sample sizes x 2 repeats data sets.
    assert len(calls) == 1 + 16
    assert "make_ggm(n_samples=" in calls[1]


def damage(path):
    path.write_bytes(b"this is not a database" * 100)


def other_schema(path):
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")


@pytest.mark.parametrize(
    "case", ["damaged", "schema", "data_sides", "file", "unrelated", "tampered"]
)
def test_bad_input_is_one_line_exit_1_and_leaves_the_site(
    case, published, stores, tmp_path, capsys
):
    site = tmp_path / "site"
    shutil.copytree(published[0], site)
    store = tmp_path / "tiny.sqlite"
    shutil.copy(stores["more"], store)
    arguments = [str(store)]
    out = site
    if case == "damaged":
        damage(store)
    elif case == "schema":
        other_schema(store)
    elif case == "data_sides":
        shard = tmp_path / "tiny.shard-2-of-2.sqlite"
        shutil.copy(stores["other_data"], shard)
        arguments.append(str(shard))
    elif case == "file":
        out = tmp_path / "a_file"
        out.write_text("x")
    elif case == "unrelated":
        out = tmp_path / "photos"
        out.mkdir()
        (out / "holiday.jpg").write_bytes(b"x")
    elif case == "tampered":
        page = site / "studies" / "tiny" / "v1" / "index.html"
        page.write_text(page.read_text().replace("Findings", "Findings!"))
    before = snapshot(tmp_path)
    assert main(["publish", *arguments, "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("skggm-bench publish: error: ")
    expected = {
        "damaged": "not a",
        "schema": "99",
        "data_sides": "data sides differ",
        "file": "is a file",
        "unrelated": "not a skggm-bench site",
        "tampered": "does not match its manifest",
    }[case]
    assert expected in err
    assert snapshot(tmp_path) == before


def test_an_interrupted_publication_leaves_the_site_as_it_was(
    published, stores, tmp_path, monkeypatch
):
    site = tmp_path / "site"
    shutil.copytree(published[0], site)
    changed = tmp_path / "tiny.sqlite"
    shutil.copy(stores["first"], changed)
    before = snapshot(tmp_path)

    def fail(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(site_module, "write_analysis_report", fail)
    with pytest.raises(KeyboardInterrupt):
        publish([changed], site, n_bootstrap=50)
    assert snapshot(tmp_path) == before


def test_a_version_is_analysed_once(stores, tmp_path, monkeypatch):
    # The report of a version is written from the publication's own analysis:
    # analysing the rows again would double the largest cost of a publication.
    from skggm_bench.benchmark.analysis import _analysis

    calls = []

    def counted(*args, **kwargs):
        calls.append(args[1] if len(args) > 1 else kwargs.get("metric"))
        return _analysis.analyse(*args, **kwargs)

    monkeypatch.setattr(site_module, "analyse", counted)
    monkeypatch.setattr("skggm_bench.benchmark.present.report.analyse", counted)
    publish([stores["first"]], tmp_path / "site", n_bootstrap=20)
    assert calls == ["f1"]


def test_the_report_links_to_the_charts_unless_asked_for_its_figures(
    published, stores, tmp_path
):
    # By default a version's report draws no figure (on a large grid they are most
    # of a publication's CPU): it says so and links to the page's charts, and the
    # page's static picture is its own one-panel leaderboard.
    version = published[0] / "studies" / "tiny" / "v1"
    report = (version / "report" / "report.html").read_text()
    assert "leaves its figures out" in report
    assert 'href="../index.html#charts"' in report
    assert "<img" not in report
    assert not list((version / "report" / "figures").glob("*.png"))
    assert (version / "leaderboard.png").read_bytes()[:4] == b"\x89PNG"
    assert '<img src="leaderboard.png"' in (version / "index.html").read_text()
    # --report-figures draws them, as skggm-bench report does.
    site = tmp_path / "site"
    code = main(
        ["publish", str(stores["first"]), "--out", str(site), "--report-figures"]
    )
    assert code == 0
    drawn = site / "studies" / "tiny" / "v1"
    report = (drawn / "report" / "report.html").read_text()
    assert "leaves its figures out" not in report
    names = {p.name for p in (drawn / "report" / "figures").glob("*.png")}
    assert {"leaderboard.png", "critical_difference.png"} <= names
    assert any(name.startswith("rank_shift_") for name in names)
    assert 'src="report/figures/rank_shift_' in (drawn / "index.html").read_text()
    assert manifest_problem(drawn) is None


def test_a_version_reads_its_store_once(stores, tmp_path, monkeypatch):
    from skggm_bench.benchmark.results._store import ResultStore

    reads = []
    frame = ResultStore.frame

    def counted(self, *args, **kwargs):
        reads.append(self)
        return frame(self, *args, **kwargs)

    monkeypatch.setattr(ResultStore, "frame", counted)
    publish([stores["first"]], tmp_path / "site", n_bootstrap=20)
    assert len(reads) == 1


def test_report_figures_must_be_a_bool(stores, tmp_path):
    with pytest.raises(PublishError, match="report_figures must be True or False"):
        publish([stores["first"]], tmp_path / "site", report_figures="no")
    assert not (tmp_path / "site").exists()


def test_no_store_is_refused():
    with pytest.raises(PublishError, match="at least one"):
        publish([], "site")
