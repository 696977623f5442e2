"""``skggm-bench run --against STORE --publish SITE``: add a learner, publish it.

The extended study is published as a new version of the study it extends (named
after STORE), and a site that cannot take it is refused before anything runs.
"""

import json

import pytest

from skggm_bench.benchmark.results.store import ResultStore
from skggm_bench.cli import main

pytest.importorskip("plotly")
pytest.importorskip("pyarrow")

STUDY = """\
n_features = 6
densities = [0.3]
n_samples = [30]
n_repeats = 2
random_state = 0
metrics = ["f1"]
generators = ["DiagonalDominance"]

[learners.glasso]
class = "GraphicalLasso"
alpha = 0.1
"""
ADDED = STUDY + '\n[learners.lw]\nclass = "LedoitWolf"\n'
RUN = ["run", "--n-jobs", "1", "--no-progress"]


@pytest.fixture
def published(tmp_path, capsys):
    (tmp_path / "study.toml").write_text(STUDY)
    (tmp_path / "mine.toml").write_text(ADDED)
    store = tmp_path / "published.sqlite"
    config = ["--config", str(tmp_path / "study.toml")]
    assert main([*RUN, *config, "--store", str(store)]) == 0
    assert main(["publish", str(store), "--out", str(tmp_path / "site")]) == 0
    capsys.readouterr()
    return store


def test_the_extended_study_is_a_new_version_of_the_published_one(
    tmp_path, published, capsys
):
    site = tmp_path / "site"
    mine = ["--config", str(tmp_path / "mine.toml")]
    assert main([*RUN, *mine, "--against", str(published), "--publish", str(site)]) == 0
    out = capsys.readouterr().out
    assert "published: added version 2" in out
    assert (site / "index.html").resolve().as_uri() in out
    studies = json.loads((site / "site.json").read_text())["studies"]
    assert list(studies) == ["published"]  # not a study of its own
    assert [v["version"] for v in studies["published"]["versions"]] == [1, 2]
    assert [
        item["name"] for item in studies["published"]["versions"][1]["learners"]
    ] == [
        "glasso",
        "lw",
    ]
    assert "lw" in (site / "studies/published/v2/rows.csv").read_text()
    # The extended study is kept beside the published store, which is unchanged.
    with ResultStore(tmp_path / "published.extended.sqlite", read_only=True) as store:
        assert sorted(set(store.frame().learner)) == ["glasso", "lw"]
    with ResultStore(published, read_only=True) as store:
        assert set(store.frame().learner) == {"glasso"}


@pytest.mark.parametrize(
    "site, status, message",
    [
        ("file.txt", 1, "is a file, not a site folder"),
        ("notes", 1, "holds files that are not a skggm-bench site"),
        (None, 2, "--publish needs --against STORE"),
    ],
)
def test_a_site_that_cannot_take_it_is_refused_before_the_run(
    tmp_path, published, capsys, site, status, message
):
    (tmp_path / "file.txt").write_text("mine")
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.txt").write_text("mine")
    mine = ["--config", str(tmp_path / "mine.toml")]
    if site is None:  # --publish without --against
        arguments = [*RUN, *mine, "--store", str(tmp_path / "x.sqlite"), "--publish",
                     str(tmp_path / "site")]  # fmt: skip
    else:
        arguments = [*RUN, *mine, "--against", str(published), "--publish",
                     str(tmp_path / site)]  # fmt: skip
    assert main(arguments) == status
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("skggm-bench run: error: ")
    assert message in err[0]
    # Nothing ran: no extended store, and the site and the file are as they were.
    assert not (tmp_path / "published.extended.sqlite").exists()
    assert not (tmp_path / "x.sqlite").exists()
    assert (tmp_path / "file.txt").read_text() == "mine"
    assert sorted(p.name for p in (tmp_path / "notes").iterdir()) == ["a.txt"]
