"""Exporting a store's rows to CSV, Parquet or JSON lines, and reading them back."""

from __future__ import annotations

import contextlib
import glob
import importlib.metadata
import json
import math
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._store import ResultStore

if TYPE_CHECKING:  # pandas is imported by the store that builds the frame
    import pandas as pd

#: The file formats of :func:`export_results`.
EXPORT_FORMATS: tuple[str, ...] = ("csv", "parquet", "jsonl")
_PARQUET_HINT = "pip install 'skggm-bench[parquet]'"


def _dtypes_path(path: Path) -> Path:
    return path.with_name(path.name + ".dtypes.json")


def _export_format(path: Path, format: str | None) -> str:
    if format is None:
        format = path.suffix.lstrip(".").lower()
        if format not in EXPORT_FORMATS:
            raise ValueError(
                f"cannot tell the format of {str(path)!r} from its suffix; give "
                f"format= one of {', '.join(EXPORT_FORMATS)}"
            )
    if format not in EXPORT_FORMATS:
        raise ValueError(
            f"format must be one of {', '.join(EXPORT_FORMATS)}, got {format!r}"
        )
    return format


def _checked_target(out: Path, format: str | None, overwrite: bool) -> str:
    """The format of an export to ``out``, once the export can be written there:
    a known format, pyarrow for Parquet, no file at ``out`` unless ``overwrite``."""
    format = _export_format(out, format)
    if format == "parquet":
        _require_pyarrow()
    if os.path.lexists(out) and not overwrite:
        raise FileExistsError(f"{str(out)!r} exists already")
    return format


def _require_pyarrow() -> None:
    import importlib.util

    if importlib.util.find_spec("pyarrow") is None:
        raise ImportError(
            f"Parquet files need pyarrow, which is not installed: {_PARQUET_HINT}"
        )


def _remove_abandoned(path: Path) -> None:
    """Remove the ``.partial`` files beside ``path`` of writers no longer alive.

    Each is named by its writer's pid: one a killed export or merge left (it
    could not clean up) goes; one being written now is left alone.
    """
    with contextlib.suppress(OSError):
        for partial in path.parent.glob(f".{glob.escape(path.name)}.*.partial"):
            pid = partial.name[len(path.name) + 2 :].split(".", 1)[0]
            if pid.isdigit() and not _alive(int(pid)):
                partial.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's: alive
        return True
    return True


def _written(path: Path, write: Callable[[Path], Any]) -> Path:
    """``write`` a temporary file beside ``path``, synced; its path.

    Renamed into place by the caller: a kill or a full disk leaves at most a
    hidden ``.NAME.PID.*.partial`` file, never a half-written file under the final
    name; the next write beside it removes it.
    """
    _remove_abandoned(path)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.{os.getpid()}.",
                                suffix=".partial")  # fmt: skip
    os.close(fd)
    temporary = Path(name)
    try:
        write(temporary)
        with open(temporary, "rb+") as file:
            os.fsync(file.fileno())
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return temporary


def export_results(
    store: str | os.PathLike[str] | ResultStore,
    out: str | os.PathLike[str],
    format: str | None = None,
    *,
    overwrite: bool = False,
) -> Path:
    """Write every row of a store to a CSV, Parquet or JSON-lines file.

    Reading the file back gives the store's frame (:meth:`ResultStore.frame`):
    the same rows, columns, values and dtypes. Parquet keeps the dtypes itself;
    for CSV and JSON lines a sidecar ``<out>.dtypes.json`` records them, and
    :func:`read_export` (or the pandas call in ``docs/harness.md``) applies them.
    Floats are written with all their digits, missing values as empty cells
    (CSV) or ``null`` (JSON lines), text as it is.

    The files are written under temporary names in the folder of ``out`` and
    renamed into place, the sidecar first, the data file last (an existing data
    file is removed before): a kill leaves either no data file, or a whole one
    with its own sidecar. A symbolic link at ``out`` is replaced, not followed.

    Parameters
    ----------
    store : str, os.PathLike or ResultStore
        The store (opened read-only when given as a path).
    out : str or os.PathLike
        The file to write (its folder is created).
    format : {"csv", "parquet", "jsonl"} or None, default=None
        None: from the suffix of ``out``.
    overwrite : bool, default=False
        Replace an existing ``out`` (and its sidecar).

    Returns
    -------
    pathlib.Path
        ``out``.

    Raises
    ------
    ValueError
        For an unknown format.
    FileExistsError
        For an existing ``out`` (a file, a link, anything) without ``overwrite``.
    ImportError
        For Parquet without pyarrow (``pip install 'skggm-bench[parquet]'``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> store = ResultStore(":memory:")
    >>> _ = store.append([dict(generator="g", graph="chain", data_model="gaussian",
    ...                        learner="l", density=None, n_features=5,
    ...                        n_samples=9, repeat=0, seed=1, f1=0.1,
    ...                        status="ok")])
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "results.csv"
    >>> path = export_results(store, out)
    >>> read_export(path).equals(store.frame())
    True
    """
    out = Path(out)
    # Checked before the store is read (export_frame checks again, at no cost):
    # a refused export reads nothing.
    format = _checked_target(out, format, overwrite)
    if isinstance(store, ResultStore):
        frame = store.frame()
    else:
        with ResultStore(store, read_only=True) as opened:
            frame = opened.frame()
    return export_frame(frame, out, format, overwrite=overwrite)


def export_frame(
    frame: pd.DataFrame,
    out: str | os.PathLike[str],
    format: str | None = None,
    *,
    overwrite: bool = False,
) -> Path:
    """Write a store's frame as :func:`export_results` writes the store.

    For a caller that holds the frame already (:meth:`ResultStore.frame`) and
    writes it in several formats: the store is read once, not once per file.

    Parameters
    ----------
    frame : pandas.DataFrame
        The rows, as :meth:`ResultStore.frame` returns them.
    out : str or os.PathLike
        The file to write (its folder is created).
    format : {"csv", "parquet", "jsonl"} or None, default=None
        None: from the suffix of ``out``.
    overwrite : bool, default=False
        Replace an existing ``out`` (and its sidecar).

    Returns
    -------
    pathlib.Path
        ``out``.

    Raises
    ------
    ValueError
        For an unknown format.
    FileExistsError
        For an existing ``out`` without ``overwrite``.
    ImportError
        For Parquet without pyarrow.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> store = ResultStore(":memory:")
    >>> _ = store.append([dict(generator="g", graph="chain", data_model="gaussian",
    ...                        learner="l", density=None, n_features=5,
    ...                        n_samples=9, repeat=0, seed=1, f1=0.1,
    ...                        status="ok")])
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "results.csv"
    >>> path = export_frame(store.frame(), out)
    >>> read_export(path).equals(store.frame())
    True
    """
    out = Path(out)
    format = _checked_target(out, format, overwrite)
    out.parent.mkdir(parents=True, exist_ok=True)
    if format == "parquet":
        data = _written(out, lambda path: frame.to_parquet(path, index=False))
        os.replace(data, out)
        return out

    def write_data(path: Path) -> None:
        if format == "csv":
            # repr of a float is its shortest exact decimal: read back bit for bit.
            frame.to_csv(path, index=False, na_rep="", lineterminator="\n")
            return
        with open(path, "w", encoding="utf-8") as file:
            for record in frame.itertuples(index=False, name=None):
                values = {
                    name: _json_value(value)
                    for name, value in zip(frame.columns, record, strict=True)
                }
                file.write(json.dumps(values, ensure_ascii=False) + "\n")

    dtypes = {name: str(dtype) for name, dtype in frame.dtypes.items()}
    data = _written(out, write_data)
    try:
        sidecar = _written(
            out, lambda path: path.write_text(json.dumps(dtypes, indent=1) + "\n")
        )
    except BaseException:
        data.unlink(missing_ok=True)
        raise
    # No moment at which a data file sits beside a sidecar not its own.
    if os.path.lexists(out):
        out.unlink()
    os.replace(sidecar, _dtypes_path(out))
    os.replace(data, out)
    return out


def _json_value(value: Any) -> Any:
    if value is None or value is _pandas_na():
        return None
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _pandas_na() -> Any:
    import pandas as pd

    return pd.NA


_PANDAS_MAJOR = int(importlib.metadata.version("pandas").split(".")[0])


def read_export(path: str | os.PathLike[str], format: str | None = None) -> Any:
    """Read a file of :func:`export_results` back into the store's frame.

    Parameters
    ----------
    path : str or os.PathLike
        The exported file (for CSV and JSON lines, with its ``.dtypes.json``
        sidecar beside it).
    format : {"csv", "parquet", "jsonl"} or None, default=None
        None: from the suffix of ``path``.

    Returns
    -------
    pandas.DataFrame
        Equal to the exporting store's :meth:`ResultStore.frame`.

    Examples
    --------
    See :func:`export_results`.
    """
    import pandas as pd

    path = Path(path)
    format = _export_format(path, format)
    if format == "parquet":
        _require_pyarrow()
        import pyarrow.parquet as pq

        # pandas >= 3 reads text as its ``str`` dtype; the store's frame (and the
        # file's pandas metadata) has ``object``.
        stored = pq.read_schema(path).pandas_metadata or {"columns": []}
        text = {
            c["name"]: object for c in stored["columns"] if c["numpy_type"] == "object"
        }
        return pd.read_parquet(path).astype(text)
    dtypes = json.loads(_dtypes_path(path).read_text())
    if format == "csv":
        # Text cells are never missing ("" is an empty message): only numeric
        # columns read an empty cell as missing. pandas < 3 parses floats exactly
        # only when asked to.
        exact = {"float_precision": "round_trip"} if _PANDAS_MAJOR < 3 else {}
        return pd.read_csv(
            path,
            dtype=dtypes,
            keep_default_na=False,
            na_values={c: [""] for c, t in dtypes.items() if t != "object"},
            **exact,
        )
    with open(path, encoding="utf-8") as file:
        records = [json.loads(line) for line in file if line.strip()]
    frame = pd.DataFrame.from_records(records, columns=list(dtypes))
    return frame.astype(dtypes)
