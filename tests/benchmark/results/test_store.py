"""The SQLite results store: rows, keys, types, study metadata, durability."""

import contextlib
import math
import os
import pickle
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import patience
import pytest

from skggm_bench.benchmark.results._schema import (
    CELL_COLUMNS,
    KEY_COLUMNS,
    OUTCOME_COLUMNS,
    STATUSES,
)
from skggm_bench.benchmark.results.store import (
    ResultStore,
    StoreError,
    StudyMismatchError,
)

KEY = ("dd", "erdos_renyi", "gaussian", "glasso")


def make_row(**changes):
    row = {
        "generator": "dd",
        "graph": "erdos_renyi",
        "data_model": "gaussian",
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
    assert list(frame.columns) == [
        *KEY_COLUMNS,
        *CELL_COLUMNS,
        "f1",
        "shd",
        *OUTCOME_COLUMNS,
    ]
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
            "INSERT INTO results (generator, data_model, learner, density, n_features, "
            "n_samples, repeat, seed, status) VALUES ('dd', 'gaussian', 'glasso', "
            "0.1, 10, 50, 0, 1, 'ok')"
        )


def test_missing_density_is_one_key(path):
    # Fixed-structure graph families have no density: NULL in SQL, which a plain
    # UNIQUE constraint would let through twice.
    store = ResultStore(path)
    assert store.append([make_row(density=None), make_row(density=None)]) == 1
    assert store.append([make_row(density=math.nan)]) == 0
    assert store.completed_keys() == {(*KEY, None, 10, 50, 0)}
    assert math.isnan(store.frame()["density"].iloc[0])


def test_completed_keys_and_persistence_across_reopening(path):
    with ResultStore(path) as store:
        store.append([make_row(repeat=r, status="failed") for r in range(3)])
    reopened = ResultStore(path)
    assert reopened.completed_keys() == {(*KEY, 0.1, 10, 50, r) for r in range(3)}


def test_metric_columns_are_added_when_first_seen(path):
    store = ResultStore(path)
    store.append([make_row()])
    store.append([make_row(repeat=1, mcc=0.3)])
    assert store.metric_columns() == ["f1", "shd", "mcc"]
    frame = store.frame()
    assert math.isnan(frame["mcc"].iloc[0]) and frame["mcc"].iloc[1] == 0.3


def test_wal_mode_is_on_while_open_and_off_when_closed(path):
    def journal_mode():
        with contextlib.closing(sqlite3.connect(path)) as conn:
            return conn.execute("PRAGMA journal_mode").fetchone()[0]

    store = ResultStore(path)
    assert journal_mode() == "wal"
    store.close()
    assert journal_mode() == "delete"


def test_empty_store_frame_has_the_schema():
    frame = ResultStore(":memory:").frame()
    assert frame.empty
    assert list(frame.columns) == [*KEY_COLUMNS, *CELL_COLUMNS, *OUTCOME_COLUMNS]
    assert frame["seed"].dtype == np.int64


def test_every_status_of_the_schema_is_accepted_and_no_other(path):
    store = ResultStore(path)
    rows = [make_row(repeat=r, status=status) for r, status in enumerate(STATUSES)]
    assert store.append(rows) == len(STATUSES)
    assert store.frame()["status"].tolist() == list(STATUSES)
    with pytest.raises(ValueError, match="status must be one of"):
        store.append([make_row(repeat=99, status="exploded")])


def test_infinite_losses_survive(path):
    # A singular estimate has an infinite KL divergence: stored and read back as inf.
    store = ResultStore(path)
    store.append([make_row(kl_divergence=math.inf)])
    assert store.frame()["kl_divergence"].iloc[0] == math.inf


@pytest.mark.parametrize(
    ("row", "match"),
    [
        ({k: v for k, v in make_row().items() if k != "repeat"}, "misses.*repeat"),
        (make_row(status="exploded"), "status must be one of"),
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
    with pytest.raises(StoreError, match=r"cannot use .*results\.csv.* results store"):
        ResultStore(bogus)
    with pytest.raises(StoreError, match=r"cannot use .*results\.csv.* results store"):
        ResultStore(bogus, read_only=True)


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
        "INSERT INTO results (generator, graph, data_model, learner, density, "
        "n_features, n_samples, repeat, seed, status) VALUES ('dd', 'erdos_renyi', "
        "'gaussian', 'glasso', 0.1, 10, 50, 9, 1, 'ok')"
    )
    assert len(ResultStore(path).frame()) == 1  # uncommitted row not visible
    writer.execute("COMMIT")
    writer.close()
    assert isinstance(ResultStore(path).frame(), pd.DataFrame)
    assert len(ResultStore(path)) == 2


# --------------------------------------------------------------------------------------
# Read-only opening: readers never create or change a file
# --------------------------------------------------------------------------------------


def _snapshot(folder):
    return {
        p.name: (p.stat().st_size, p.read_bytes()) for p in sorted(folder.iterdir())
    }


def test_read_only_store_reads_and_never_writes(path):
    with ResultStore(path) as store:
        store.append([make_row()])
        store.ensure_study({"n_repeats": 1})
    before = _snapshot(path.parent)
    reader = ResultStore(path, read_only=True)
    assert len(reader) == 1 and reader.study() == {"n_repeats": 1}
    assert reader.frame()["f1"].tolist() == [0.5]
    with pytest.raises(StoreError, match="readonly"):
        reader.append([make_row(repeat=1)])
    with pytest.raises(StoreError, match="read-only"):
        reader.check_writable()
    reader.close()
    assert _snapshot(path.parent) == before


def test_read_only_opening_of_files_that_are_not_stores(tmp_path):
    missing = tmp_path / "missing.sqlite"
    with pytest.raises(StoreError, match="no results store"):
        ResultStore(missing, read_only=True)
    assert not missing.exists()
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    with pytest.raises(StoreError, match="not a skggm-bench results store"):
        ResultStore(empty, read_only=True)
    assert empty.stat().st_size == 0  # a 0-byte file stays a 0-byte file
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE people (name TEXT)")
    before = other.read_bytes()
    for read_only in (True, False):
        with pytest.raises(StoreError, match=r"not a skggm-bench results store.*peo"):
            ResultStore(other, read_only=read_only)
    assert other.read_bytes() == before  # no results or meta table added


READ_ONLY_FOLDER_CHECK = """
import sys
from skggm_bench.benchmark.results.store import ResultStore, StoreError
path = sys.argv[1]
assert len(ResultStore(path, read_only=True).frame()) == 1
try:
    ResultStore(path).check_writable()  # opening for writing already fails
except StoreError as exc:
    assert "not writable" in str(exc), exc
else:
    raise AssertionError("a store in a read-only folder was called writable")
print("checked")
"""


def test_read_only_folder(tmp_path):
    """Readers work in a folder they cannot write to; writers are told at once.

    File permissions do not bind root, so as root the check runs without the
    capabilities that let root ignore them (``setpriv``).
    """
    command = [sys.executable, "-c", READ_ONLY_FOLDER_CHECK]
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: permissions cannot bind")
        caps = "-dac_override,-dac_read_search"
        command = ["setpriv", f"--bounding-set={caps}", f"--inh-caps={caps}", *command]
    folder = Path(tempfile.mkdtemp(prefix="skggm-ro-"))  # /tmp: others may enter
    try:
        path = folder / "store" / "study.sqlite"
        with ResultStore(path) as store:
            store.append([make_row()])
        folder.chmod(0o755)
        path.parent.chmod(0o555)
        path.chmod(0o444)
        done = subprocess.run(
            [*command, str(path)], capture_output=True, text=True, check=False
        )
        assert done.returncode == 0 and "checked" in done.stdout, done.stderr
        assert sorted(p.name for p in path.parent.iterdir()) == ["study.sqlite"]
    finally:
        path.parent.chmod(0o755)
        shutil.rmtree(folder)


def test_damaged_stores_give_a_store_error_never_a_sqlite_one(path):
    """Every way of damaging the file ends in StoreError (a ValueError) or works."""
    with ResultStore(path) as store:
        store.append([make_row(repeat=r) for r in range(50)])
        store.ensure_study({"n_repeats": 50})
    original = path.read_bytes()
    size = len(original)
    damages = {
        "truncated to 100 bytes": original[:100],
        "truncated to half": original[: size // 2],
        "header zeroed": b"\0" * 100 + original[100:],
        "random bytes": np.random.default_rng(0).bytes(size),
        "second page zeroed": original[:4096] + b"\0" * 4096 + original[8192:],
    }
    for what, data in damages.items():
        path.write_bytes(data)
        for suffix in ("-wal", "-shm"):
            path.with_name(path.name + suffix).unlink(missing_ok=True)
        for read_only in (True, False):
            try:
                store = ResultStore(path, read_only=read_only)
                store.frame()
                store.completed_keys()
                store.study()
            except StoreError:
                continue
            except Exception as exc:  # pragma: no cover - the failure we guard
                raise AssertionError(f"{what}: {type(exc).__name__}: {exc}") from exc


def test_old_schema_versions_are_refused_with_advice(path):
    with ResultStore(path):
        pass
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    with pytest.raises(StoreError, match=r"another skggm-bench version.*new store"):
        ResultStore(path, read_only=True)


def _as_version_3(path):
    """The store as version 3 wrote it: no n_warnings column."""
    with sqlite3.connect(path) as conn:
        conn.execute("ALTER TABLE results DROP COLUMN n_warnings")
        conn.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    conn.close()


def test_a_version_3_store_reads_with_unknown_warnings_and_upgrades_on_write(path):
    with contextlib.closing(ResultStore(path)) as store:
        store.append([make_row(), make_row(repeat=1)])
    _as_version_3(path)
    with contextlib.closing(ResultStore(path, read_only=True)) as store:
        frame = store.frame()
        assert store.metadata()["schema_version"] == "3"  # reading changes nothing
    assert frame.n_warnings.dtype == "Int64" and frame.n_warnings.isna().all()
    with contextlib.closing(ResultStore(path)) as store:  # resumed: upgraded
        store.append([make_row(repeat=2, n_warnings=3)])
        assert store.metadata()["schema_version"] == "4"
        frame = store.frame()
    assert frame.n_warnings.isna().sum() == 2
    assert frame.set_index("repeat").n_warnings[2] == 3


# --------------------------------------------------------------------------------------
# Creating a store is one transaction
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("tables", [("results",), ("results", "meta"), ("meta",)])
def test_a_store_left_empty_by_an_interrupted_creation_is_created_anew(
    tmp_path, tables
):
    # What earlier versions left when killed between their CREATE statements.
    path = tmp_path / "store.sqlite"
    with contextlib.closing(sqlite3.connect(path)) as conn:
        for table in tables:
            conn.execute(f"CREATE TABLE {table} (key TEXT, value TEXT)")
        conn.commit()
    with pytest.warns(UserWarning, match="left empty by an interrupted creation"):
        store = ResultStore(path)
    with store:
        assert len(store.notes) == 1 and "created anew" in store.notes[0]
        store.append([make_row()])
        assert len(store) == 1
    # A table with rows, or any other table, is not taken for such a leftover.
    with contextlib.closing(sqlite3.connect(tmp_path / "other.sqlite")) as conn:
        conn.execute("CREATE TABLE results (x)")
        conn.execute("INSERT INTO results VALUES (1)")
        conn.commit()
    with pytest.raises(StoreError, match="not a skggm-bench results store"):
        ResultStore(tmp_path / "other.sqlite")


KILLED_CREATION = """
import sys
from skggm_bench.benchmark.results.store import ResultStore
print("ready", flush=True)
for i in range(10**6):
    ResultStore(f"{sys.argv[1]}/s{i}.sqlite").close()
"""


def test_a_creation_killed_at_any_moment_leaves_a_usable_path(tmp_path):
    import random
    import signal
    import time

    random.seed(1)
    for attempt in range(5):
        folder = tmp_path / str(attempt)
        folder.mkdir()
        process = subprocess.Popen([sys.executable, "-c", KILLED_CREATION,
                                    str(folder)], stdout=subprocess.PIPE)  # fmt: skip
        process.stdout.readline()
        # Killed during a creation: once the first store is there (however long
        # the start takes under load), at a random moment of the ones after it.
        patience.wait_for(
            lambda folder=folder: any(folder.glob("s*.sqlite")),
            "the first store created",
        )
        time.sleep(random.uniform(0.05, 0.3))
        process.send_signal(signal.SIGKILL)
        process.wait()
        process.stdout.close()
        paths = sorted(folder.glob("s*.sqlite"))
        assert paths
        for path in paths:  # every one opens as a store, the last one too
            with warnings_ignored(), ResultStore(path) as store:
                assert len(store) == 0


@contextlib.contextmanager
def warnings_ignored():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def test_a_creation_on_a_full_filesystem_leaves_a_usable_path(tmp_path):
    # The filesystem full at each moment of the creation in turn: creating fails
    # with a StoreError, and once there is room the same path is a store.
    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs",
                           str(mount)], capture_output=True, text=True)  # fmt: skip
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small filesystem here: {done.stderr.strip()}")
    failures = 0
    try:
        for room in range(0, 48, 4):  # KiB left free
            for leftover in mount.iterdir():
                leftover.unlink()
            filler = mount / "filler"
            with contextlib.suppress(OSError), open(filler, "wb") as file:
                while True:
                    file.write(b"x" * 1024)
                    file.flush()
            with open(filler, "rb+") as file:
                file.truncate(max(0, filler.stat().st_size - room * 1024))
            path = mount / "store.sqlite"
            try:
                ResultStore(path).close()
            except StoreError as exc:
                assert "full" in str(exc) or "disk" in str(exc), exc
                failures += 1
            filler.unlink()
            with warnings_ignored(), ResultStore(path) as store:
                assert len(store) == 0
                store.append([make_row()])
                assert len(store) == 1
    finally:
        subprocess.run(["umount", str(mount)], check=False)
    assert failures > 0
