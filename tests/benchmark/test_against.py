"""Adding a learner to a published study: only it runs, on the published data."""

import hashlib
import shutil
import sqlite3

import pytest
from sklearn.covariance import GraphicalLasso, LedoitWolf

from skggm_bench.benchmark import Benchmark, StudyError
from skggm_bench.benchmark.results.store import (
    ResultStore,
    StudyMismatchError,
    merge_stores,
)
from skggm_bench.cli import main
from skggm_bench.generators import DiagonalDominance, PartialOrthogonalization

GENERATORS = {"dd": DiagonalDominance(), "port": PartialOrthogonalization()}
PUBLISHED = {"glasso": GraphicalLasso(alpha=0.1)}
BOTH = {**PUBLISHED, "lw": LedoitWolf()}
GRID = dict(
    n_features=8,
    densities=(0.2, 0.4),
    n_samples=(30, 60),
    n_repeats=2,
    metrics=("f1", "mcc"),
    random_state=0,
    n_jobs=1,
)


def _bench(path, learners=BOTH, generators=GENERATORS, **options):
    return Benchmark(generators, learners, store=path, **{**GRID, **options})


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def studies(tmp_path_factory):
    """A published study of one learner, and the whole study run from scratch."""
    tmp = tmp_path_factory.mktemp("against")
    _bench(tmp / "published.sqlite", PUBLISHED).run()
    full = _bench(tmp / "full.sqlite").run()
    return tmp / "published.sqlite", full


@pytest.mark.parametrize("learners", [BOTH, {"lw": LedoitWolf()}])
def test_an_added_learner_alone_gives_the_rows_of_the_whole_study(
    tmp_path, studies, learners
):
    published, full = studies
    before = _digest(published)
    extended = _bench(tmp_path / "extended.sqlite", learners).run(against=published)
    # Only the new learner ran ...
    assert extended.n_computed == (full.frame.learner == "lw").sum()
    # ... and the extended study is the whole study, row for row (the fit times
    # are measured, not reproduced), data hashes included.
    columns = [c for c in full.frame.columns if c != "fit_time"]
    assert extended.frame[columns].equals(full.frame[columns])
    assert (extended.frame.data_hash != "").all()
    assert extended.study == full.study
    with ResultStore(tmp_path / "extended.sqlite", read_only=True) as store:
        assert store.study() == full.study and len(store) == len(full.frame)
    assert _digest(published) == before  # a published store is never changed


def test_an_interrupted_extension_resumes(tmp_path, studies):
    published, full = studies
    out = tmp_path / "extended.sqlite"
    first = _bench(out, shard=(1, 2)).run(against=published)
    again = _bench(out).run(against=published)
    new_rows = (full.frame.learner == "lw").sum()
    assert first.n_computed + again.n_computed == new_rows
    assert len(again.frame) == len(full.frame)


def test_the_parts_of_an_extension_merge_into_the_whole_study(tmp_path, studies):
    published, full = studies
    parts = [tmp_path / f"part{i}.sqlite" for i in (1, 2)]
    for i, part in enumerate(parts, start=1):
        _bench(part, {"lw": LedoitWolf()}, shard=(i, 2)).run(against=published)
    merge_stores(parts, tmp_path / "merged.sqlite")
    with ResultStore(tmp_path / "merged.sqlite", read_only=True) as store:
        assert store.study() == full.study
        assert len(store) == len(full.frame)


@pytest.mark.parametrize(
    "change, named",
    [
        ({"densities": (0.2, 0.3)}, "densities[1]: 0.4 against 0.3"),
        ({"random_state": 1}, "entropy: 0 against 1"),
        ({"n_repeats": 3}, "n_repeats: 2 against 3"),
        (
            {"generators": {**GENERATORS, "dd": DiagonalDominance(perturbation=0.5)}},
            "generators.dd.params.perturbation",
        ),
        ({"metrics": ("f1",)}, "metrics"),
    ],
)
def test_another_data_side_is_refused_naming_the_first_difference(
    tmp_path, studies, change, named
):
    published, _ = studies
    out = tmp_path / "extended.sqlite"
    with pytest.raises(StudyMismatchError, match="published store") as info:
        _bench(out, **change).run(against=published)
    assert named in str(info.value)
    assert "\n" not in str(info.value)
    assert not out.exists()  # refused before anything is written


def test_a_shared_learner_must_be_the_same_estimator(tmp_path, studies):
    published, _ = studies
    learners = {"glasso": GraphicalLasso(alpha=0.3), "lw": LedoitWolf()}
    with pytest.raises(StudyMismatchError, match="learner 'glasso' is not the same"):
        _bench(tmp_path / "x.sqlite", learners).run(against=published)


def test_a_new_row_on_other_data_is_refused_naming_it(tmp_path, studies):
    published, _ = studies
    # The published data hash of one data set no longer matches what is drawn
    # (as after a change of numpy or of a generator): the run stops at that row.
    tampered = tmp_path / "tampered.sqlite"
    shutil.copy(published, tampered)
    with sqlite3.connect(tampered) as conn:
        conn.execute(
            "UPDATE results SET data_hash = 'feed' WHERE generator = 'port' "
            "AND density = 0.4 AND n_samples = 60 AND repeat = 1"
        )
    out = tmp_path / "extended.sqlite"
    with pytest.raises(StudyMismatchError) as info:
        _bench(out).run(against=tampered)
    message = str(info.value)
    assert "generator='port'" in message and "repeat=1" in message
    assert "its data_hash is" in message and "'feed'" in message
    with ResultStore(out, read_only=True) as store:  # the refused row is not stored
        stored = store.frame()
    refused = stored[
        (stored.learner == "lw")
        & (stored.generator == "port")
        & (stored.density == 0.4)
        & (stored.n_samples == 60)
        & (stored.repeat == 1)
    ]
    assert refused.empty


def test_a_published_study_without_some_data_sets_is_refused(tmp_path):
    part = tmp_path / "part.sqlite"
    _bench(part, PUBLISHED, shard=(1, 2)).run()
    with pytest.raises(StudyMismatchError, match="holds no row of the data set"):
        _bench(tmp_path / "x.sqlite").run(against=part)


def test_the_published_store_is_not_the_output(tmp_path, studies):
    published, _ = studies
    with pytest.raises(StudyError, match="never changed"):
        _bench(published).run(against=published)
    with pytest.raises(StudyError, match="against must be"):
        _bench(tmp_path / "x.sqlite").run(against=3)


STUDY = """\
n_features = 8
densities = [0.2]
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


def test_cli_names_against_and_extends_into_a_new_store(tmp_path, capsys):
    (tmp_path / "study.toml").write_text(STUDY)
    (tmp_path / "mine.toml").write_text(ADDED)
    published = tmp_path / "published.sqlite"
    run = ["run", "--n-jobs", "1", "--no-progress"]
    assert main([*run, "--config", str(tmp_path / "study.toml"), "--store",
                 str(published)]) == 0  # fmt: skip
    capsys.readouterr()
    # Adding a learner to the stored study: refused, naming the way that works.
    mine = ["--config", str(tmp_path / "mine.toml")]
    assert main([*run, *mine, "--store", str(published)]) == 1
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert 'learners: stored ["glasso"], requested ["glasso", "lw"]' in error
    assert f"--against {published}" in error and "'lw'" in error
    # The published store as the output is refused.
    assert main([*run, *mine, "--against", str(published), "--store",
                 str(published)]) == 2  # fmt: skip
    assert "--against store" in capsys.readouterr().err
    # The extended study, next to the published one by default.
    assert main([*run, *mine, "--against", str(published)]) == 0
    captured = capsys.readouterr()
    extended = tmp_path / "published.extended.sqlite"
    assert "2 computed" in captured.err
    assert f"--store {extended}" in captured.out
    with ResultStore(extended, read_only=True) as store:
        assert sorted(store.frame().learner) == ["glasso"] * 2 + ["lw"] * 2
    assert main(["leaderboard", "--store", str(extended)]) == 0
    board = capsys.readouterr().out
    assert "glasso" in board and "lw" in board
    # A tampered data side: one line, exit 1, naming the first difference.
    (tmp_path / "other.toml").write_text(ADDED.replace("[0.2]", "[0.3]"))
    other = ["--config", str(tmp_path / "other.toml")]
    out = tmp_path / "other.sqlite"
    assert main([*run, *other, "--against", str(published), "--store",
                 str(out)]) == 1  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("skggm-bench run: error: the study does not draw")
    assert "densities[0]: 0.2 against 0.3" in err[-1]
    assert not out.exists()
    assert main([*run, *mine, "--against", str(tmp_path / "none.sqlite")]) == 2
    assert "no results store" in capsys.readouterr().err
