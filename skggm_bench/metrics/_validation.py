"""Input checks shared by the metric functions (private)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import scipy.sparse
from numpy.typing import NDArray

from ..graphs import check_adjacency
from ..utils._validation import check_not_masked

__all__ = [
    "SYMMETRY_RTOL",
    "as_square_real_array",
    "check_adjacency",
    "check_same_shape",
    "check_symmetric_real",
    "check_zero_division",
]

# Relative tolerance for "symmetric" real matrices (scores, covariances, precisions).
# Estimators produce matrices that are symmetric only up to floating-point round-off
# (e.g. a pseudo-inverse computed as U diag(s) U^T), which is ~1e-16 relative; 1e-8
# accepts that while rejecting any genuinely asymmetric input (e.g. a node-wise
# regression coefficient matrix passed by mistake).
SYMMETRY_RTOL = 1e-8


def as_square_real_array(x: Any, name: str) -> NDArray[Any]:
    """Return ``x`` as a dense, non-empty, square, NaN-free real numpy array."""
    check_not_masked(x, name)
    if scipy.sparse.issparse(x):
        x = x.toarray()
    arr = np.asarray(x)
    if arr.dtype.kind not in "biuf":
        raise TypeError(
            f"{name} must be a real (boolean, integer or float) array, "
            f"got dtype {arr.dtype}."
        )
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be a square 2-D array, got shape {arr.shape}.")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} must have at least one node, got shape {arr.shape}.")
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise ValueError(f"{name} contains NaN.")
    return arr


def _first_asymmetric_pair(mask: NDArray[np.bool_]) -> tuple[int, int]:
    i, j = np.argwhere(mask)[0]
    return int(i), int(j)


def check_symmetric_real(x: Any, name: str) -> NDArray[np.float64]:
    """Validate a finite, symmetric (up to round-off) real matrix; symmetrise it."""
    arr = as_square_real_array(x, name).astype(np.float64)
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains infinite values.")
    scale = np.abs(arr).max()
    asymmetric = np.abs(arr - arr.T) > SYMMETRY_RTOL * scale
    if asymmetric.any():
        i, j = _first_asymmetric_pair(asymmetric)
        raise ValueError(
            f"{name} must be symmetric, but entry ({i}, {j}) = {arr[i, j]!r} and "
            f"entry ({j}, {i}) = {arr[j, i]!r}."
        )
    # Average away the round-off so downstream code sees an exactly symmetric matrix.
    return (arr + arr.T) / 2.0


def check_same_shape(
    a: NDArray[Any], b: NDArray[Any], name_a: str, name_b: str
) -> None:
    if a.shape != b.shape:
        raise ValueError(
            f"{name_a} and {name_b} must have the same shape, got {a.shape} and "
            f"{b.shape}."
        )


def check_zero_division(value: Any, low: float, high: float) -> float:
    """``zero_division`` must be a real number in ``[low, high]`` or NaN."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"zero_division must be a real number or numpy.nan, got {value!r}."
        )
    number = float(value)
    if not (np.isnan(number) or low <= number <= high):
        raise ValueError(
            f"zero_division must lie in [{low}, {high}] or be numpy.nan, got {number}."
        )
    return number
