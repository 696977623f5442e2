"""Exports of a store to CSV, Parquet and JSON lines read back as the store's frame."""

import json
import math

import pandas as pd
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
