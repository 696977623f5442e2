"""Any store is read or refused in one line.

A store is a file anyone can edit. Each case below crafts one from a sound store
(the damage an audit found: nested or invalid study JSON, a study that is not an
object, learners as a list, nested versions, NULL and BLOB values, a column name
with quotes, a bad status, text in a metric, negative sizes) and runs every
command that reads a store on it: ``leaderboard``, ``report``, ``export`` (every
format) and ``merge``. Each must print ``damaged store: ...`` naming the problem,
on one line, exit non-zero, and write nothing; never an internal error.
"""

import contextlib
import importlib.util
import shutil
import sqlite3

import pytest
from sklearn.covariance import LedoitWolf

from skggm_bench import cli
from skggm_bench.benchmark import Benchmark
from skggm_bench.benchmark.results.store import MergeError, ResultStore, merge_stores
from skggm_bench.generators import DiagonalDominance


@pytest.fixture(scope="module")
def sound(tmp_path_factory):
    path = tmp_path_factory.mktemp("sound") / "sound.sqlite"
    Benchmark(
        {"dd": DiagonalDominance()},
        {"lw": LedoitWolf(), "lw2": LedoitWolf(store_precision=True)},
        n_features=5,
        n_samples=(20,),
        n_repeats=2,
        metrics=("f1",),
        random_state=0,
        n_jobs=1,
        store=path,
    ).run()
    return path


def _loosen(conn):
    # Without the table's constraints (NOT NULL, CHECK), as an editor may leave it.
    conn.executescript(
        "CREATE TABLE loose AS SELECT * FROM results; DROP TABLE results; "
        "ALTER TABLE loose RENAME TO results;"
    )


CASES = {
    # name: (SQL run on a copy of a sound store, what the message names)
    "study nested deeply": (
        "UPDATE meta SET value = '" + "[" * 100_000 + "' WHERE key = 'study'",
        "study description is not valid JSON (nested too deeply)",
    ),
    "study invalid JSON": (
        "UPDATE meta SET value = '{\"learners\": ' WHERE key = 'study'",
        "study description is not valid JSON",
    ),
    "study 42": (
        "UPDATE meta SET value = '42' WHERE key = 'study'",
        "study description is 42, not a JSON object",
    ),
    "learners a list": (
        "UPDATE meta SET value = json_set(value, '$.learners', json('[1, 2]')) "
        "WHERE key = 'study'",
        "the learners of its study are [1, 2], not a JSON object",
    ),
    "meta a blob": (
        "UPDATE meta SET value = X'00FF' WHERE key = 'created'",
        "metadata entry 'created' holds b'\\x00\\xff', not text",
    ),
    "versions nested": (
        'UPDATE results SET versions = \'{"numpy": {"a": [1]}}\' WHERE rowid = 2',
        "column versions of row 2 holds",
    ),
    "versions nested deeply": (
        "UPDATE results SET versions = '" + "[" * 100_000 + "' WHERE rowid = 1",
        "not a JSON object of package versions",
    ),
    "learner NULL": (
        "UPDATE results SET learner = NULL WHERE rowid = 3",
        "column learner of row 3 holds None, not text",
    ),
    "learner a blob": (
        "UPDATE results SET learner = X'6C77' WHERE rowid = 1",
        "column learner of row 1 holds b'lw', not text",
    ),
    "learner of megabytes": (
        "UPDATE results SET learner = printf('%.*c', 3000000, 'x') WHERE rowid = 1",
        "a name longer than 1000 characters",
    ),
    "metric a blob": (
        "UPDATE results SET f1 = X'00' WHERE rowid = 1",
        "column f1 of row 1 holds b'\\x00', not a number",
    ),
    "metric text": (
        "UPDATE results SET f1 = 'abc' WHERE rowid = 4",
        "column f1 of row 4 holds 'abc', not a number",
    ),
    "negative n_features": (
        "UPDATE results SET n_features = -5 WHERE rowid = 1",
        "column n_features of row 1 holds -5, less than 1",
    ),
    "negative repeat": (
        "UPDATE results SET repeat = -1 WHERE rowid = 2",
        "column repeat of row 2 holds -1, less than 0",
    ),
    "negative n_warnings": (
        "UPDATE results SET n_warnings = -3 WHERE rowid = 2",
        "column n_warnings of row 2 holds -3, less than 0",
    ),
    "a duplicate key": (
        "INSERT INTO results SELECT * FROM results WHERE rowid = 3",
        "rows 3 and 5 have the same key",
    ),
    "results a view": (
        "ALTER TABLE results RENAME TO stored; "
        "CREATE VIEW results AS SELECT * FROM stored UNION ALL SELECT * FROM stored",
        "results is a 'view', not a table",
    ),
    "density above 1": (
        "UPDATE results SET density = 7.5 WHERE rowid = 1",
        "not a density between 0 and 1",
    ),
    "bad status": (
        "UPDATE results SET status = 'great' WHERE rowid = 1",
        "column status of row 1 holds 'great', not a status",
    ),
    "column name with quotes": (
        'ALTER TABLE results ADD COLUMN "x""); DROP TABLE meta; --" REAL',
        "has a column named 'x\"); DROP TABLE meta; --', not a plain identifier",
    ),
    "a fixed column gone": (
        "ALTER TABLE results DROP COLUMN message",
        "the results table has no column message",
    ),
}


def crafted(sound, tmp_path, case):
    path = tmp_path / "crafted.sqlite"
    shutil.copy(sound, path)
    with contextlib.closing(sqlite3.connect(path)) as conn:
        _loosen(conn)
        conn.executescript(CASES[case][0])
        conn.commit()
    return path


def commands(path, tmp_path):
    yield ["leaderboard", "--store", str(path)]
    yield ["leaderboard", "--store", str(path), "--format", "csv"]
    yield ["report", "--store", str(path), "--out", str(tmp_path / "report")]
    for format in ("csv", "jsonl", "parquet"):
        if format == "parquet" and importlib.util.find_spec("pyarrow") is None:
            continue
        out = tmp_path / f"rows.{format}"
        yield ["export", "--store", str(path), "--out", str(out)]
    yield ["merge", str(path), "--out", str(tmp_path / "merged.sqlite")]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("case", CASES)
def test_every_reading_command_refuses_a_crafted_store_in_one_line(
    sound, tmp_path, capsys, case
):
    path = crafted(sound, tmp_path, case)
    for argv in commands(path, tmp_path):
        status = cli.main(argv)
        err = capsys.readouterr().err
        lines = err.strip().splitlines()
        assert status != 0 and len(lines) == 1, (argv, err[-2000:])
        assert "internal error" not in err and "Traceback" not in err
        assert "damaged store: " in lines[0], (argv, lines[0][:2000])
        assert CASES[case][1] in lines[0], (argv, lines[0][:2000])
        assert len(lines[0]) < 1000
    # Nothing was written: no report, no export, no merged store.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["crafted.sqlite"]


def test_the_sound_store_is_read_by_every_command(sound, tmp_path, capsys):
    # The test above can fail: the same commands succeed on the sound store.
    for argv in commands(sound, tmp_path):
        assert cli.main(argv) == 0, (argv, capsys.readouterr().err)


def test_a_merge_conflict_quotes_at_most_200_characters_of_a_value(sound, tmp_path):
    other = tmp_path / "other.sqlite"
    shutil.copy(sound, other)
    huge = "x" * 5_000_000
    with contextlib.closing(sqlite3.connect(other)) as conn:
        conn.execute("UPDATE results SET message = ? WHERE rowid = 1", (huge,))
        conn.commit()
    with pytest.raises(MergeError, match="with different values: message") as caught:
        merge_stores([sound, other], tmp_path / "merged.sqlite")
    assert len(str(caught.value)) < 1000
    assert "x" * 201 not in str(caught.value)
    with ResultStore(other, read_only=True) as store:
        assert len(store) == 4


def test_a_store_whose_header_says_wal_is_read_without_creating_a_file(
    sound, tmp_path, capsys
):
    """A store left in WAL mode with no log beside it (copied, or its log removed)
    is read as it is: no -wal or -shm file appears next to it (issue 39 item 6)."""
    folder = tmp_path / "wal"
    folder.mkdir()
    path = folder / "wal.sqlite"
    shutil.copy(sound, path)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode = WAL").fetchone() == ("wal",)
    conn.close()  # the last connection: the log goes, the header keeps WAL
    assert sorted(p.name for p in folder.iterdir()) == ["wal.sqlite"]
    assert path.read_bytes()[18:20] == b"\x02\x02"  # WAL in the header
    expected = ResultStore(sound, read_only=True).frame()
    assert ResultStore(path, read_only=True).frame().equals(expected)
    assert cli.main(["leaderboard", "--store", str(path)]) == 0
    capsys.readouterr()
    assert sorted(p.name for p in folder.iterdir()) == ["wal.sqlite"]
