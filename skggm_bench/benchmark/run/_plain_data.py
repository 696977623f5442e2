"""The restricted reader of what a fit's process sends back: plain data only.

A fit's child runs a learner, that is arbitrary code: whatever it sends the fork
server's template may have been written by the learner (it can reach the child's
channel through its stack frames). :func:`pickle.loads` would call whatever the
message names (``__reduce__`` returning ``exec``), in the template, where the
next fits are forked from. :func:`loads_plain` instead builds only

* ``None``, ``bool``, ``int``, ``float``, ``complex``, ``str``, ``bytes``;
* ``list``, ``tuple``, ``dict`` and ``set`` of them;
* numpy arrays and scalars of a boolean or numeric dtype (no object arrays);
* instances of the dataclasses the caller names (``classes``), with their
  fields and nothing else.

and then checks the whole tree (:func:`check_plain`): a message that names
anything else, or carries anything else, raises :class:`NotPlainError`.
"""

from __future__ import annotations

import dataclasses
import io
import pickle
from typing import Any

import numpy as np

__all__ = ["NotPlainError", "check_plain", "dumps_plain", "loads_plain"]

# The numpy functions the pickles of arrays and scalars call, under both of the
# module names numpy has had (numpy.core before 2.0, numpy._core after).
_ARRAY_RECONSTRUCT = {
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "_reconstruct"),
}
_SCALAR = {("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar")}
_FROM_BUFFER = {
    ("numpy.core.numeric", "_frombuffer"),
    ("numpy._core.numeric", "_frombuffer"),
}
_NUMERIC_KINDS = frozenset("biufc")
_ATOMS = (type(None), bool, int, float, complex, str, bytes)


class NotPlainError(ValueError):
    """What a fit's process sent is not plain data."""


def _numeric_dtype(*args: Any, **kwargs: Any) -> np.dtype[Any]:
    dtype: np.dtype[Any] = np.dtype(*args, **kwargs)
    if dtype.kind not in _NUMERIC_KINDS or dtype.fields is not None:
        raise NotPlainError(f"an array of dtype {dtype!r} is not plain data")
    return dtype


def _array(cls: Any, shape: Any, dtype: Any) -> np.ndarray:
    if cls is not np.ndarray:
        raise NotPlainError("only plain numpy arrays are plain data")
    return np.ndarray.__new__(np.ndarray, shape, _numeric_dtype(dtype))


def _from_buffer(buffer: Any, dtype: Any, shape: Any, order: Any) -> np.ndarray:
    # How pickle protocol 5 sends a contiguous array: its bytes, then their form.
    array = np.frombuffer(buffer, dtype=_numeric_dtype(dtype))
    return array.reshape(shape, order="F" if order == "F" else "C")


def _scalar(dtype: Any, *args: Any) -> Any:
    if not isinstance(dtype, np.dtype) or dtype.kind not in _NUMERIC_KINDS:
        raise NotPlainError(f"a numpy scalar of dtype {dtype!r} is not plain data")
    return np.frombuffer(args[0], dtype=dtype)[0] if args else dtype.type()


class _Reader(pickle.Unpickler):
    def __init__(self, data: bytes, classes: dict[tuple[str, str], type]) -> None:
        super().__init__(io.BytesIO(data))
        self._classes = classes

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _ARRAY_RECONSTRUCT:
            return _array
        if (module, name) in _SCALAR:
            return _scalar
        if (module, name) in _FROM_BUFFER:
            return _from_buffer
        if (module, name) == ("numpy", "ndarray"):
            return np.ndarray
        if (module, name) == ("numpy", "dtype"):
            return _numeric_dtype
        if (module, name) in self._classes:
            return self._classes[(module, name)]
        raise NotPlainError(f"{module}.{name} is not plain data")


def check_plain(value: Any, classes: tuple[type, ...] = (), depth: int = 0) -> None:
    """Raise :class:`NotPlainError` unless ``value`` is plain data (see above)."""
    if depth > 50:
        raise NotPlainError("plain data nested deeper than 50 levels")
    if isinstance(value, _ATOMS) and type(value) in _ATOMS:
        return
    if isinstance(value, (np.ndarray, np.generic)):
        if isinstance(value, np.ndarray) and type(value) is not np.ndarray:
            raise NotPlainError(f"a {type(value).__name__} is not plain data")
        if value.dtype.kind not in _NUMERIC_KINDS or value.dtype.fields is not None:
            raise NotPlainError(f"an array of dtype {value.dtype} is not plain data")
        return
    if type(value) in (list, tuple, set):
        for item in value:
            check_plain(item, classes, depth + 1)
        return
    if type(value) is dict:
        for key, item in value.items():
            check_plain(key, classes, depth + 1)
            check_plain(item, classes, depth + 1)
        return
    if type(value) in classes:
        names = {field.name for field in dataclasses.fields(value)}
        if set(vars(value)) != names:
            raise NotPlainError(f"a {type(value).__name__} with other attributes")
        for name in names:
            check_plain(getattr(value, name), classes, depth + 1)
        return
    raise NotPlainError(f"a {type(value).__name__} is not plain data")


def dumps_plain(value: Any) -> bytes:
    """``value`` as bytes that :func:`loads_plain` reads back."""
    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def loads_plain(data: bytes, classes: tuple[type, ...] = ()) -> Any:
    """Read plain data from ``data``; :class:`NotPlainError` for anything else.

    ``classes`` are dataclasses that may appear (rebuilt from their fields, none
    of their code run); any other global the bytes name is refused before it is
    looked up, so nothing in them is ever called.
    """
    by_name = {(cls.__module__, cls.__qualname__): cls for cls in classes}
    try:
        value = _Reader(data, by_name).load()
    except NotPlainError:
        raise
    except Exception as exc:  # a malformed stream, or a refused reconstruction
        raise NotPlainError(f"unreadable ({type(exc).__name__}: {exc})") from None
    check_plain(value, classes)
    return value
