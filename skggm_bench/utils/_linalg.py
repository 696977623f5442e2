"""Dense linear algebra used by several modules: one implementation of each."""

from __future__ import annotations

from typing import TypeVar

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike, NDArray

_Scalar = TypeVar("_Scalar", bound=np.generic)

__all__ = [
    "cholesky_factor",
    "inverse_from_cholesky",
    "partial_correlation_from_precision",
    "upper_triangle",
]


def cholesky_factor(matrix: NDArray[np.float64], name: str) -> NDArray[np.float64]:
    """Lower Cholesky factor of ``matrix``; a ValueError naming ``name`` if not PD.

    LAPACK's message ("leading minor not positive definite") does not say which of a
    caller's matrices failed; every caller names it here instead.
    """
    try:
        factor: NDArray[np.float64] = scipy.linalg.cholesky(
            matrix, lower=True, check_finite=False
        )
    except np.linalg.LinAlgError as exc:
        raise ValueError(f"{name} is not positive definite ({exc})") from None
    return factor


def inverse_from_cholesky(factor: NDArray[np.float64]) -> NDArray[np.float64]:
    """The inverse of ``L L^T`` from its lower factor ``L``, exactly symmetric."""
    inverse: NDArray[np.float64] = scipy.linalg.cho_solve(
        (factor, True), np.eye(factor.shape[0]), check_finite=False
    )
    return 0.5 * (inverse + inverse.T)


def partial_correlation_from_precision(precision: ArrayLike) -> NDArray[np.float64]:
    """``-K_ij / sqrt(K_ii K_jj)`` off the diagonal, 0 on it.

    The result is exactly symmetric, clipped to ``[-1, 1]`` (round-off of an
    estimated inverse can overshoot), and its zeros are ``+0.0`` (negating an exact
    zero gives ``-0.0``, which prints and hashes differently). Variables with a
    non-positive diagonal entry (a constant column handled by a pseudo-inverse) get
    zero partial correlations.
    """
    matrix = np.asarray(precision, dtype=np.float64)
    diagonal = np.diag(matrix)
    positive = diagonal > 0
    inv_sqrt = np.where(positive, 1.0 / np.sqrt(np.where(positive, diagonal, 1.0)), 0.0)
    partial: NDArray[np.float64] = -matrix * np.outer(inv_sqrt, inv_sqrt)
    partial = 0.5 * (partial + partial.T)
    np.fill_diagonal(partial, 0.0)
    partial = np.clip(partial, -1.0, 1.0)
    partial[partial == 0.0] = 0.0
    return partial


def upper_triangle(matrix: NDArray[_Scalar]) -> NDArray[_Scalar]:
    """The ``p (p - 1) / 2`` entries above the diagonal, row by row."""
    return matrix[np.triu_indices(matrix.shape[0], k=1)]
