"""Centred Gaussian data from a covariance or a precision, dense or sparse."""

from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from numpy.typing import NDArray
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import StrOptions

from ..utils._linalg import cholesky_factor
from ..utils._validation import (
    RANDOM_STATE,
    Interval,
    check_not_masked,
    validate_params,
)

__all__ = ["sample_gaussian", "transform_noise"]

RandomStateLike = int | np.random.RandomState | None

# A user's matrix that went through a pseudo-inverse or a product ``A @ A.T`` is
# symmetric only up to a few ulps of its largest entry (~1e-16 relative); 1e-8 leaves
# room for that and still rejects any genuinely asymmetric input.
_SYMMETRY_RTOL = 1e-8


def _check_dense_spd_input(matrix: Any, name: str) -> np.ndarray:
    check_not_masked(matrix, name)
    dense = np.array(matrix, dtype=np.float64)  # a copy: symmetrised below
    _check_square(dense.shape, name)
    if not np.all(np.isfinite(dense)):
        raise ValueError(f"{name} contains NaN or infinite values")
    asymmetry = np.max(np.abs(dense - dense.T))
    if asymmetry > _SYMMETRY_RTOL * np.max(np.abs(dense)):
        raise ValueError(
            f"{name} is not symmetric: max |{name} - {name}.T| = {asymmetry:.3g}"
        )
    return 0.5 * (dense + dense.T)


def _check_square(shape: tuple[int, ...], name: str) -> None:
    if len(shape) != 2 or shape[0] != shape[1] or shape[0] < 1:
        raise ValueError(f"{name} must be a non-empty square 2-D matrix, got {shape}")


def transform_noise(factor: np.ndarray, noise: np.ndarray, role: str) -> np.ndarray:
    """Map rows ``z ~ N(0, I)`` to ``N(0, Sigma)`` with ``L = factor``.

    covariance ``Sigma = L L^T``: ``x = L z``, i.e. ``X = Z L^T``.
    precision ``K = L L^T``: ``x = L^{-T} z`` (covariance ``L^{-T} L^{-1} = K^{-1}``),
    i.e. solve ``L^T X^T = Z^T`` -- one triangular solve, no inverse.
    """
    samples: NDArray[np.float64]
    if role == "covariance":
        samples = noise @ factor.T
        return samples
    samples = scipy.linalg.solve_triangular(
        factor, noise.T, lower=True, trans="T", check_finite=False
    ).T
    return samples


def _sample_sparse(matrix: Any, noise: np.ndarray, role: str, name: str) -> np.ndarray:
    """``N(0, Sigma)`` rows from a sparse covariance or precision, via sparse LU.

    scipy has no sparse Cholesky, but for a symmetric positive definite ``A`` an LU
    factorisation with *symmetric* permutation and diagonal pivots, ``P^T A P =
    L U``, is a Cholesky factorisation in disguise: ``U = D L^T`` with ``D =
    diag(U) > 0``. So ``C = P L D^{1/2}`` satisfies ``C C^T = A`` and

    * covariance ``A = Sigma``: ``x = C z``;
    * precision ``A = K``: ``x = K^{-1} C z``, whose covariance is
      ``K^{-1} K K^{-1} = K^{-1}``; the solve reuses the same LU.

    The minimum-degree ordering of ``A + A^T`` keeps the fill-in small (a banded
    or otherwise sparse ``A`` stays cheap). Positive pivots and a symmetric
    permutation are checked: together they prove ``A`` positive definite.
    """
    matrix = sp.csc_matrix(matrix, dtype=np.float64)
    _check_square(matrix.shape, name)
    matrix.sum_duplicates()
    if not np.all(np.isfinite(matrix.data)):
        raise ValueError(f"{name} contains NaN or infinite values")
    scale = abs(matrix).max()
    asymmetry = abs(matrix - matrix.T).max() if matrix.nnz else 0.0
    if asymmetry > _SYMMETRY_RTOL * scale:
        raise ValueError(
            f"{name} is not symmetric: max |{name} - {name}.T| = {asymmetry:.3g}"
        )
    matrix = ((matrix + matrix.T) * 0.5).tocsc()
    try:
        lu = spla.splu(
            matrix,
            permc_spec="MMD_AT_PLUS_A",
            diag_pivot_thresh=0.0,  # always pivot on the diagonal
            options={"SymmetricMode": True},
        )
    except RuntimeError as exc:  # SuperLU: "Factor is exactly singular"
        raise ValueError(f"{name} is not positive definite ({exc})") from exc
    pivots = lu.U.diagonal()
    if not np.array_equal(lu.perm_r, lu.perm_c) or not np.all(pivots > 0):
        raise ValueError(
            f"{name} is not positive definite (its LU factorisation has a "
            "non-positive pivot)"
        )
    # C z = P (L (D^{1/2} z)); with scipy's convention (P y)[i] = y[perm_c[i]].
    correlated = (lu.L @ (np.sqrt(pivots)[:, None] * noise.T))[lu.perm_c]
    if role == "covariance":
        return np.ascontiguousarray(correlated.T)
    return np.ascontiguousarray(lu.solve(correlated).T)


@validate_params(
    {
        "matrix": ["array-like", "sparse matrix"],
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "role": [StrOptions({"covariance", "precision"})],
        "random_state": RANDOM_STATE,
    },
    prefer_skip_nested_validation=True,
)
def sample_gaussian(
    matrix: Any,
    n_samples: int,
    *,
    role: str = "covariance",
    random_state: RandomStateLike = None,
) -> NDArray[np.float64]:
    """Draw centred Gaussian data from a covariance or a precision matrix.

    Nothing is inverted. With ``matrix = L L^T`` (Cholesky) the rows are ``x = L z``
    for a covariance and ``x = L^{-T} z`` (one triangular solve) for a precision,
    where ``z ~ N(0, I)``. A ``scipy.sparse`` matrix is factorised by a sparse LU
    with a fill-reducing symmetric ordering (see Notes), so a sparse precision of a
    large sparse graph never becomes dense.

    Parameters
    ----------
    matrix : array-like or scipy.sparse matrix of shape (p, p)
        Symmetric positive definite covariance ``Sigma`` or precision ``K``.
    n_samples : int
        Number of rows to draw, at least 1.
    role : {"covariance", "precision"}, default="covariance"
        Whether ``matrix`` is the covariance of the data or its inverse.
    random_state : int, RandomState instance or None, default=None
        Seed or generator for the standard normal draws.

    Returns
    -------
    X : ndarray of shape (n_samples, p)
        Independent rows from ``N(0, Sigma)`` with ``Sigma = matrix`` or
        ``matrix^{-1}``.

    Raises
    ------
    ValueError
        If ``n_samples < 1``, ``role`` is unknown, or ``matrix`` is not square,
        finite, symmetric (up to a relative ``1e-8``) and positive definite.

    Notes
    -----
    The data are ``X = Z A^T`` with ``Z = check_random_state(random_state)
    .standard_normal((n_samples, p))`` and ``A A^T = Sigma``: the same seed gives
    the same ``Z`` for both roles and for dense or sparse input. Dense and sparse
    inputs use different factors ``A``, hence different (equally distributed)
    draws, except that a sparse matrix whose fill-reducing ordering is the natural
    one reproduces the dense draw up to rounding.

    For sparse input: SuperLU factorises ``P^T A P = L U`` with diagonal pivots and
    a symmetric minimum-degree ordering ``P``; for a symmetric positive definite
    ``A`` this is ``L D L^T`` with ``D = diag(U) > 0``, i.e. a Cholesky
    factorisation. A precision is handled as ``x = K^{-1} (P L D^{1/2} z)``.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from skggm_bench.datasets import sample_gaussian
    >>> K = sp.diags([[-0.4] * 999, [1.0] * 1000, [-0.4] * 999], [-1, 0, 1])
    >>> X = sample_gaussian(K, 2000, role="precision", random_state=0)
    >>> X.shape
    (2000, 1000)
    >>> Sigma = np.array([[1.0, 0.5], [0.5, 2.0]])
    >>> X = sample_gaussian(Sigma, 100_000, random_state=0)
    >>> bool(np.allclose(X.T @ X / len(X), Sigma, atol=0.03))  # sampling sd < 0.01
    True
    """
    if sp.issparse(matrix):
        p = matrix.shape[0]
        noise = _standard_normal(random_state, n_samples, p)
        return _sample_sparse(matrix, noise, role, "matrix")
    dense = _check_dense_spd_input(matrix, "matrix")
    factor = cholesky_factor(dense, "matrix")
    noise = _standard_normal(random_state, n_samples, dense.shape[0])
    return transform_noise(factor, noise, role)


def _standard_normal(
    random_state: RandomStateLike, n_samples: int, p: int
) -> np.ndarray:
    noise: NDArray[np.float64] = check_random_state(random_state).standard_normal(
        (int(n_samples), p)
    )
    return noise
