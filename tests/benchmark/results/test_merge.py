"""Shards, merges and the data hash: results from several machines, one leaderboard."""

import sqlite3

import numpy as np
import pytest
from sklearn.covariance import GraphicalLasso, LedoitWolf

from skggm_bench.benchmark import Benchmark, StudyError
from skggm_bench.benchmark.analysis.leaderboard import leaderboard
from skggm_bench.benchmark.plan._sharding import shard_fits
from skggm_bench.benchmark.results.store import (
    MergeError,
    ResultStore,
    StoreError,
    merge_stores,
)
from skggm_bench.benchmark.run._worker import data_hash
from skggm_bench.datasets import make_ggm
from skggm_bench.generators import DiagonalDominance, PartialOrthogonalization

GENERATORS = {"dd": DiagonalDominance(), "port": PartialOrthogonalization()}
LEARNERS = {"glasso": GraphicalLasso(alpha=0.1), "lw": LedoitWolf()}
GRID = dict(
    n_features=8,
    densities=(0.2, 0.4),
    n_samples=(30, 60),
    n_repeats=2,
    metrics=("f1",),
    random_state=0,
    n_jobs=1,
)


def _run(tmp_path, name, learners=LEARNERS, **options):
    path = tmp_path / f"{name}.sqlite"
    result = Benchmark(GENERATORS, learners, store=path, **{**GRID, **options}).run()
    return path, result


@pytest.fixture(scope="module")
def single(tmp_path_factory):
    """One uninterrupted run of the whole study."""
    return _run(tmp_path_factory.mktemp("single"), "full")


def test_data_hash_is_the_hash_of_the_learners_data_and_the_truth(single):
    # The row's hash is recomputed from the data set make_ggm reproduces from
    # the row's seed: the data the learner got and the true matrix.
    _, result = single
    row = result.frame.iloc[5]
    data = make_ggm(
        n_samples=int(row.n_samples),
        n_features=int(row.n_features),
        density=row.density,
        generator=GENERATORS[row.generator],
        random_state=int(row.seed),
    )
    assert row.data_hash == data_hash(data.X, data.precision)
    assert row.data_hash != data_hash(data.X[:-1], data.precision)
    # One data set, one hash, whatever the learner; another data set, another.
    frame = result.frame
    per_data = frame.groupby(["generator", "density", "n_samples", "repeat"])
    assert (per_data["data_hash"].nunique() == 1).all()
    assert frame["data_hash"].nunique() == len(per_data)


def test_shards_partition_the_fits_and_balance_their_cost():
    grid = Benchmark(GENERATORS, LEARNERS, **GRID)._validate()
    fits = grid.fits()
    for count in (1, 3, 5, 40):
        parts = [shard_fits(fits, i, count) for i in range(1, count + 1)]
        assert sorted(f.key for part in parts for f in part) == sorted(
            f.key for f in fits
        )
        assert len({f for part in parts for f in part}) == len(fits)
        costs = [sum(f.n_samples for f in part) for part in parts]
        # Greedy largest-first: no part exceeds the mean by more than one unit
        # (one cell of 2 learners x (30 + 60) samples here, or one fit).
        unit = 180 if count <= 8 else 60
        assert max(costs) - sum(costs) / count <= unit
        # Deterministic: the same parts from the same list.
        assert parts == [shard_fits(fits, i, count) for i in range(1, count + 1)]
    # A cell is drawn by one shard only when there are enough cells.
    cells = [{f.cell for f in shard_fits(fits, i, 3)} for i in (1, 2, 3)]
    assert not (cells[0] & cells[1] or cells[1] & cells[2] or cells[0] & cells[2])


@pytest.mark.parametrize("shard", [(0, 2), (3, 2), (1, 0), (1,), "1/2", (1.0, 2)])
def test_bad_shards_are_refused(shard):
    with pytest.raises(StudyError, match="shard") as error:
        Benchmark(GENERATORS, LEARNERS, shard=shard, **GRID).validate()
    assert error.value.parameter == "shard"


def test_merged_shards_equal_one_uninterrupted_run(tmp_path, single):
    _, full = single
    parts = []
    for i in (1, 2, 3):
        path, result = _run(tmp_path, f"part{i}", shard=(i, 3))
        assert 0 < len(result.frame) < len(full.frame)
        parts.append(path)
    # A shard resumes its own part only.
    assert _run(tmp_path, "part2", shard=(2, 3))[1].n_computed == 0
    assert merge_stores(parts, tmp_path / "merged.sqlite") == len(full.frame)
    merged = Benchmark(
        GENERATORS, LEARNERS, store=tmp_path / "merged.sqlite", **GRID
    ).run()
    assert merged.n_computed == 0  # the merged store is the whole study
    assert merged.frame.drop(columns="fit_time").equals(
        full.frame.drop(columns="fit_time")
    )
    # Merging a store with itself (or an overlapping shard) changes nothing.
    assert merge_stores([parts[0], parts[0]], tmp_path / "twice.sqlite") == len(
        ResultStore(parts[0], read_only=True)
    )


def test_two_groups_with_the_same_data_share_one_leaderboard(tmp_path, single):
    _, full = single
    a, _ = _run(tmp_path, "a", {"glasso": LEARNERS["glasso"]})
    b, _ = _run(tmp_path, "b", {"lw": LEARNERS["lw"]})
    merge_stores([a, b], tmp_path / "ab.sqlite")
    with ResultStore(tmp_path / "ab.sqlite", read_only=True) as store:
        assert sorted(store.study()["learners"]) == ["glasso", "lw"]
        frame = store.frame()
    both = Benchmark(GENERATORS, LEARNERS, store=tmp_path / "ab.sqlite", **GRID).run()
    assert both.n_computed == 0
    assert both.frame.drop(columns="fit_time").equals(
        full.frame.drop(columns="fit_time")
    )
    board = leaderboard(frame, "f1", by=())
    assert set(board["learner"]) == {"glasso", "lw"}


def test_different_data_sides_are_refused_naming_the_first_difference(tmp_path):
    a, _ = _run(tmp_path, "a", {"glasso": LEARNERS["glasso"]})
    other, _ = _run(tmp_path, "seed1", {"lw": LEARNERS["lw"]}, random_state=1)
    with pytest.raises(MergeError, match=r"different data sides.*entropy: 0 against 1"):
        merge_stores([a, other], tmp_path / "out.sqlite")
    wider, _ = _run(tmp_path, "n", {"lw": LEARNERS["lw"]}, n_samples=(30,))
    with pytest.raises(MergeError, match=r"n_samples\[1\]|n_samples: "):
        merge_stores([a, wider], tmp_path / "out.sqlite")
    metric, _ = _run(tmp_path, "m", {"lw": LEARNERS["lw"]}, metrics=("tpr",))
    with pytest.raises(MergeError, match=r"judge their learners differently.*metrics"):
        merge_stores([a, metric], tmp_path / "out.sqlite")
    renamed, _ = _run(tmp_path, "r", {"glasso": GraphicalLasso(alpha=0.3)})
    with pytest.raises(MergeError, match=r"learner 'glasso' is not the same.*alpha"):
        merge_stores([a, renamed], tmp_path / "out.sqlite")
    assert not (tmp_path / "out.sqlite").exists()


def test_conflicting_rows_and_data_hashes_are_refused(tmp_path):
    a, _ = _run(tmp_path, "a", shard=(1, 2))
    b, _ = _run(tmp_path, "b")
    # A row of shard 1 tampered in the full store: the same key, another value.
    keys = ResultStore(a, read_only=True).completed_keys()
    with sqlite3.connect(b) as conn:
        conn.execute(
            "UPDATE results SET f1 = f1 + 1e-12 WHERE "
            "generator = ? AND graph = ? AND data_model = ? AND learner = ? AND "
            "density = ? AND n_features = ? AND n_samples = ? AND repeat = ?",
            sorted(keys)[0],
        )
    with pytest.raises(MergeError, match=r"with different values: f1 is"):
        merge_stores([a, b], tmp_path / "out.sqlite")
    # Another learner's row on the same data set, claiming other data.
    c, _ = _run(tmp_path, "c", {"glasso": LEARNERS["glasso"]})
    d, _ = _run(tmp_path, "d", {"lw": LEARNERS["lw"]})
    with sqlite3.connect(d) as conn:
        conn.execute("UPDATE results SET data_hash = 'forged' WHERE rowid = 1")
    with pytest.raises(MergeError, match=r"data_hash is '[0-9a-f]+' against 'forged'"):
        merge_stores([c, d], tmp_path / "out.sqlite")
    with pytest.raises(StoreError, match="exists already"):
        merge_stores([c], c)
    assert not list(tmp_path.glob("out.sqlite*"))


def test_data_hash_is_deterministic_and_sensitive():
    X = np.arange(12.0).reshape(4, 3)
    truth = np.eye(3)
    assert data_hash(X, truth) == data_hash(X.copy(order="F"), truth)
    changed = X.copy()
    changed[0, 0] = np.nextafter(0.0, 1.0)
    assert data_hash(changed, truth) != data_hash(X, truth)
    assert data_hash(X.reshape(3, 4), truth) != data_hash(X, truth)


def test_a_version_3_store_merges_with_a_version_4_one(single, tmp_path):
    """Rows of a store written before n_warnings existed (NULL there) merge with
    the same rows counted; a count that differs is a conflict."""
    import shutil

    full, _ = single
    old, new = tmp_path / "old.sqlite", tmp_path / "new.sqlite"
    shutil.copy(full, old)
    shutil.copy(full, new)
    with sqlite3.connect(old) as conn:
        conn.execute("ALTER TABLE results DROP COLUMN n_warnings")
        conn.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    conn.close()
    n_rows = len(ResultStore(full, read_only=True).frame())
    assert merge_stores([old, new], tmp_path / "merged.sqlite") == n_rows
    with sqlite3.connect(new) as conn:
        conn.execute("UPDATE results SET n_warnings = 7 WHERE rowid = 1")
    conn.close()
    other = tmp_path / "other.sqlite"
    shutil.copy(full, other)
    with pytest.raises(MergeError, match="n_warnings is 7 against 0"):
        merge_stores([new, other], tmp_path / "bad.sqlite")
