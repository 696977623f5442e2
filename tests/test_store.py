"""The SQLite results store: rows, keys, types, study metadata, durability."""

import math
import pickle
import sqlite3

import numpy as np
import pandas as pd
import pytest

from skggm_bench.benchmark.store import (
    INFO_COLUMNS,
    KEY_COLUMNS,
    ResultStore,
    StudyMismatchError,
)


def make_row(**changes):
    row = {
        "generator": "dd",
        "learner": "glasso",
        "density": 0.1,
        "n_features": 10,
        "n_samples": 50,
        "repeat": 0,
        "seed": 123456789012345678,  # needs more than 32 bits
        "f1": 0.5,
        "shd": 3.0,
        "fit_time": 0.01,
        "status": "ok",
        "message": "",
        "versions": '{"numpy": "2.0"}',
    }
    return row | changes


@pytest.fixture
def path(tmp_path):
    return tmp_path / "nested" / "study.sqlite"  # parent directory does not exist


def test_rows_round_trip_with_types(path):
    store = ResultStore(path)
    rows = [
        make_row(),
        make_row(repeat=1, f1=np.float64(0.25), n_samples=np.int64(50)),
        make_row(repeat=2, f1=math.nan, status="failed", message="ValueError: x"),
    ]
    assert store.append(rows) == 3
    frame = store.frame()
    assert list(frame.columns) == [*KEY_COLUMNS, "seed", "f1", "shd", *INFO_COLUMNS[1:]]
    assert frame["seed"].tolist() == [123456789012345678] * 3
    assert frame["f1"].tolist()[:2] == [0.5, 0.25]
    assert math.isnan(frame["f1"].iloc[2])  # NaN survives (stored as NULL)
    assert frame["status"].tolist() == ["ok", "ok", "failed"]
    for column in ("n_features", "n_samples", "repeat", "seed"):
        assert frame[column].dtype == np.int64
    for column in ("density", "f1", "shd", "fit_time"):
        assert frame[column].dtype == np.float64


def test_duplicate_keys_are_ignored_not_doubled(path):
    store = ResultStore(path)
    assert store.append([make_row(), make_row(f1=0.9)]) == 1
    assert store.append([make_row(f1=0.7)]) == 0
    assert len(store) == 1
    assert store.frame()["f1"].tolist() == [0.5]  # the first row is kept
    # The database itself refuses duplicates, whoever writes.
    with sqlite3.connect(path) as conn, pytest.raises(sqlite3.IntegrityError):
        conn.execute(
            "INSERT INTO results (generator, learner, density, n_features, "
            "n_samples, repeat, seed, status) VALUES ('dd', 'glasso', 0.1, 10, 50, "
            "0, 1, 'ok')"
        )


def test_missing_density_is_one_key(path):
    # Fixed-structure graph families have no density: NULL in SQL, which a plain
    # UNIQUE constraint would let through twice.
    store = ResultStore(path)
    assert store.append([make_row(density=None), make_row(density=None)]) == 1
    assert store.append([make_row(density=math.nan)]) == 0
    assert store.completed_keys() == {("dd", "glasso", None, 10, 50, 0)}
    assert math.isnan(store.frame()["density"].iloc[0])


def test_completed_keys_and_persistence_across_reopening(path):
    with ResultStore(path) as store:
        store.append([make_row(repeat=r, status="failed") for r in range(3)])
    reopened = ResultStore(path)
    assert reopened.completed_keys() == {
        ("dd", "glasso", 0.1, 10, 50, r) for r in range(3)
    }


def test_metric_columns_are_added_when_first_seen(path):
    store = ResultStore(path)
    store.append([make_row()])
    store.append([make_row(repeat=1, mcc=0.3)])
    assert store.metric_columns() == ["f1", "shd", "mcc"]
    frame = store.frame()
    assert math.isnan(frame["mcc"].iloc[0]) and frame["mcc"].iloc[1] == 0.3


def test_wal_mode_is_on(path):
    ResultStore(path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_empty_store_frame_has_the_schema():
    frame = ResultStore(":memory:").frame()
    assert frame.empty
    assert list(frame.columns) == [*KEY_COLUMNS, "seed", *INFO_COLUMNS[1:]]
    assert frame["seed"].dtype == np.int64


@pytest.mark.parametrize(
    ("row", "match"),
    [
        ({k: v for k, v in make_row().items() if k != "repeat"}, "misses.*repeat"),
        (make_row(status="crashed"), "status must be one of"),
        (make_row(**{"f1; DROP TABLE results": 1.0}), "plain identifiers"),
    ],
)
def test_bad_rows_are_rejected_and_nothing_is_written(path, row, match):
    store = ResultStore(path)
    with pytest.raises(ValueError, match=match):
        store.append([make_row(repeat=5), row])
    assert len(store) == 0


def test_study_is_recorded_then_checked(path):
    store = ResultStore(path)
    config = {"densities": [0.1, 0.2], "learners": {"a": 1}, "entropy": 7}
    assert store.ensure_study(config) == config
    assert ResultStore(path).ensure_study(dict(config)) == config
    meta = store.metadata()
    assert meta["study"] == config and "created" in meta
    with pytest.raises(StudyMismatchError) as info:
        ResultStore(path).ensure_study(config | {"densities": [0.1], "entropy": 8})
    message = str(info.value)
    # Every differing key is named with both values; equal keys are not.
    assert "densities: stored [0.1, 0.2], requested [0.1]" in message
    assert "entropy: stored 7, requested 8" in message
    assert "learners" not in message
    assert "new store path" in message
    assert isinstance(info.value, ValueError)


def test_not_a_database_gives_a_clear_error(tmp_path):
    bogus = tmp_path / "results.csv"
    bogus.write_text("generator,learner\n" * 100)
    with pytest.raises(ValueError, match=r"cannot use .*results\.csv.* results store"):
        ResultStore(bogus)


def test_path_type_is_checked():
    with pytest.raises(TypeError, match="file path"):
        ResultStore(3)
    with pytest.raises(ValueError, match="non-empty"):
        ResultStore("")


def test_file_store_pickles_and_reopens(path):
    store = ResultStore(path)
    store.append([make_row()])
    clone = pickle.loads(pickle.dumps(store))
    assert len(clone) == 1
    with pytest.raises(TypeError, match="in-memory"):
        pickle.dumps(ResultStore(":memory:"))


def test_frame_reads_while_another_connection_writes(path):
    # WAL: a reader (a report built during a run) sees the committed rows while a
    # writer holds an open transaction.
    store = ResultStore(path)
    store.append([make_row()])
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute(
        "INSERT INTO results (generator, learner, density, n_features, n_samples, "
        "repeat, seed, status) VALUES ('dd', 'glasso', 0.1, 10, 50, 9, 1, 'ok')"
    )
    assert len(ResultStore(path).frame()) == 1  # uncommitted row not visible
    writer.execute("COMMIT")
    writer.close()
    assert isinstance(ResultStore(path).frame(), pd.DataFrame)
    assert len(ResultStore(path)) == 2
