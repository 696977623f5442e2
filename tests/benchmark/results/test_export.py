"""Exports of a store to CSV, Parquet and JSON lines read back as the store's frame."""

import json
import math
import os

import pandas as pd
import patience
import pytest

from skggm_bench.benchmark.results.store import (
    EXPORT_FORMATS,
    ResultStore,
    export_results,
    read_export,
)


def _awkward_rows():
    """Rows with everything a naive export loses: NaN, inf, missing ints, text
    with commas, quotes, newlines and non-ASCII, empty text, floats that need 17
    digits, a learner named "nan", big seeds."""
    rows = []
    for i in range(6):
        rows.append(
            dict(
                generator="DiagonalDominance",
                graph="chain",
                data_model="gaussian",
                learner=["nan", 'a,"b"\nü–', "", "1", "None", "x"][i],
                density=None if i == 0 else 0.1 * i + 1e-17,
                n_features=5,
                n_samples=9,
                repeat=i,
                seed=2**62 + i,
                data_hash="" if i == 2 else f"{i:032x}",
                n_edges=None if i == 2 else 3,
                n_added_edges=0,
                condition_number=math.inf if i == 3 else 1 / 3,
                f1=math.nan if i == 2 else 2 / 3 + i,
                fit_time=0.1 * i,
                status="failed" if i == 2 else "ok",
                message="ValueError: a, b\nc" if i == 2 else "",
                versions='{"numpy": "2.0"}',
            )
        )
    return rows


@pytest.fixture
def store(tmp_path):
    store = ResultStore(tmp_path / "results.sqlite")
    store.append(_awkward_rows())
    yield store
    store.close()


@pytest.mark.parametrize("format", EXPORT_FORMATS)
def test_export_reads_back_as_the_store_frame(store, tmp_path, format):
    if format == "parquet":
        pytest.importorskip("pyarrow")
    frame = store.frame()
    out = export_results(store.path, tmp_path / f"out.{format}")
    back = read_export(out)
    pd.testing.assert_frame_equal(back, frame, check_exact=True)
    assert back.equals(frame) and len(back) == 6


def test_plain_pandas_reads_the_exports_with_the_documented_options(store, tmp_path):
    # The calls docs/harness.md gives, without skggm-bench.
    frame = store.frame()
    csv = export_results(store, tmp_path / "out.csv")
    dtypes = json.loads((tmp_path / "out.csv.dtypes.json").read_text())
    back = pd.read_csv(
        csv,
        dtype=dtypes,
        keep_default_na=False,
        na_values={c: [""] for c, t in dtypes.items() if t != "object"},
    )
    pd.testing.assert_frame_equal(back, frame, check_exact=True)
    jsonl = export_results(store, tmp_path / "out.jsonl")
    dtypes = json.loads((tmp_path / "out.jsonl.dtypes.json").read_text())
    with open(jsonl, encoding="utf-8") as file:
        records = [json.loads(line) for line in file]
    back = pd.DataFrame.from_records(records, columns=list(dtypes)).astype(dtypes)
    pd.testing.assert_frame_equal(back, frame, check_exact=True)


def test_export_formats_are_checked(store, tmp_path):
    with pytest.raises(ValueError, match="cannot tell the format"):
        export_results(store, tmp_path / "out.xlsx")
    with pytest.raises(ValueError, match="format must be one of csv, parquet, jsonl"):
        export_results(store, tmp_path / "out", format="xlsx")


def test_parquet_without_pyarrow_says_how_to_install_it(store, tmp_path, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "pyarrow" else real(name, *a),
    )
    with pytest.raises(ImportError, match=r"pip install 'skggm-bench\[parquet\]'"):
        export_results(store, tmp_path / "out.parquet")
    assert not (tmp_path / "out.parquet").exists()


# --------------------------------------------------------------------------------------
# Atomic outputs: an export is whole or absent; an existing --out is kept
# --------------------------------------------------------------------------------------


def test_export_refuses_an_existing_out_unless_told(store, tmp_path):
    out = tmp_path / "out.csv"
    out.write_text("mine\n")
    with pytest.raises(FileExistsError, match="exists already"):
        export_results(store, out)
    assert out.read_text() == "mine\n"
    export_results(store, out, overwrite=True)
    pd.testing.assert_frame_equal(read_export(out), store.frame())


def test_export_replaces_a_link_at_out_instead_of_following_it(store, tmp_path):
    target = tmp_path / "elsewhere.txt"
    target.write_text("not to be overwritten\n")
    out = tmp_path / "out.jsonl"
    out.symlink_to(target)
    with pytest.raises(FileExistsError):
        export_results(store, out)
    export_results(store, out, overwrite=True)
    assert target.read_text() == "not to be overwritten\n"
    assert not out.is_symlink()
    pd.testing.assert_frame_equal(read_export(out), store.frame())


def test_the_cli_refuses_an_existing_out_in_one_line(store, tmp_path):
    import sys

    out = tmp_path / "out.csv"
    out.write_text("mine\n")
    command = [sys.executable, "-m", "skggm_bench.cli", "export", "--store",
               store.path, "--out", str(out)]  # fmt: skip
    done = patience.run(command, capture_output=True, text=True)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].endswith(
        f"error: --out {out} exists already; give --force to replace it"
    ), lines
    assert "Traceback" not in done.stderr and out.read_text() == "mine\n"
    done = patience.run([*command, "--force"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    pd.testing.assert_frame_equal(read_export(out), store.frame())


def _big_store(path, n_rows):
    rows = _awkward_rows()
    big = []
    for i in range(n_rows):
        row = dict(rows[i % 6], repeat=i, learner=f"l{i % 7}")
        big.append(row)
    with ResultStore(path) as store:
        store.append(big)
        return store.frame()


@pytest.mark.parametrize("format", ["csv", "jsonl"])
def test_an_export_killed_at_any_moment_leaves_no_readable_half(tmp_path, format):
    # As the interruption tests of run do: kill the CLI at random moments, over
    # an earlier export of another store (--force), and read what is left.
    import random
    import signal
    import subprocess
    import sys
    import time

    frame = _big_store(tmp_path / "big.sqlite", 20_000)
    small = _big_store(tmp_path / "small.sqlite", 12)
    out = tmp_path / f"rows.{format}"
    export_results(tmp_path / "small.sqlite", out)
    command = [sys.executable, "-m", "skggm_bench.cli", "export", "--store",
               str(tmp_path / "big.sqlite"), "--out", str(out), "--force"]  # fmt: skip
    whole = start = time.monotonic()
    patience.run(command, check=True, capture_output=True)
    whole = time.monotonic() - start
    random.seed(0)
    outcomes = set()
    for _ in range(6):
        export_results(tmp_path / "small.sqlite", out, overwrite=True)
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)  # fmt: skip
        time.sleep(random.uniform(0.3, 1.0) * whole)
        process.send_signal(signal.SIGKILL)
        process.wait()
        if not out.exists():
            outcomes.add("absent")
            with pytest.raises(FileNotFoundError):
                read_export(out)
            continue
        back = read_export(out)  # whole: the old export or the new one
        if len(back) == len(small):
            pd.testing.assert_frame_equal(back, small)
            outcomes.add("old")
        else:
            pd.testing.assert_frame_equal(back, frame)
            outcomes.add("new")
    # Killed at random moments: some before the renames, some after.
    assert outcomes, outcomes


def test_an_export_to_a_full_filesystem_leaves_nothing(store, tmp_path):
    import subprocess

    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs",
                           str(mount)], capture_output=True, text=True)  # fmt: skip
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small filesystem here: {done.stderr.strip()}")
    try:
        big = _big_store(tmp_path / "big.sqlite", 5_000)
        out = mount / "rows.csv"
        with pytest.raises(OSError):
            export_results(tmp_path / "big.sqlite", out)
        assert sorted(p.name for p in mount.iterdir()) == []
        assert len(big) == 5_000
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def test_an_export_removes_what_a_killed_export_left(store, tmp_path):
    # A killed export leaves its hidden, full-size .partial file; the next export
    # beside it removes it, and leaves alone that of a writer still alive.
    import subprocess

    gone = subprocess.Popen(["true"])
    gone.wait()
    abandoned = tmp_path / f".out.csv.{gone.pid}.x1y2.partial"
    writing = tmp_path / f".out.csv.{os.getpid()}.z3w4.partial"
    for partial in (abandoned, writing):
        partial.write_text("half an export")
    export_results(store.path, tmp_path / "out.csv")
    assert not abandoned.exists()
    assert writing.exists()
