"""Partial correlations from regression coefficients or from a precision matrix."""

import numpy as np


def partial_correlation_from_coefficients(coef: np.ndarray) -> np.ndarray:
    """Partial correlations from node-wise regression coefficients.

    In a Gaussian model the coefficient of ``x_j`` when ``x_i`` is regressed on all
    other variables is ``b_ij = -K_ij / K_ii`` (``K`` the precision matrix), so
    ``b_ij * b_ji = rho_ij ** 2``. The estimate is
    ``sign(b_ij) * sqrt(b_ij * b_ji)`` when both coefficients have the same sign,
    0 when they disagree or one is 0 (the sign-agreement AND rule), and it is
    capped to ``[-1, 1]`` because independently regularised fits can overshoot.

    Parameters
    ----------
    coef : ndarray of shape (n_features, n_features)
        ``coef[i, j]`` is the coefficient of variable ``j`` in the regression
        of variable ``i`` on the others; the diagonal is ignored.

    Returns
    -------
    partial_correlation : ndarray of shape (n_features, n_features)
        Symmetric, zero diagonal.

    Examples
    --------
    >>> import numpy as np
    >>> coef = np.array([[0.0, 0.5, -0.2], [0.32, 0.0, 0.1], [0.3, 0.1, 0.0]])
    >>> partial_correlation_from_coefficients(coef).round(2)
    array([[0. , 0.4, 0. ],
           [0.4, 0. , 0.1],
           [0. , 0.1, 0. ]])
    """
    coef = np.asarray(coef, dtype=float)
    product = coef * coef.T
    agree = product > 0
    pcor = np.where(agree, np.sign(coef) * np.sqrt(np.where(agree, product, 0.0)), 0.0)
    np.fill_diagonal(pcor, 0.0)
    return np.clip(pcor, -1.0, 1.0)


def partial_correlation_from_precision(precision: np.ndarray) -> np.ndarray:
    """Partial correlations ``-K_ij / sqrt(K_ii K_jj)`` with a zero diagonal.

    Variables with a non-positive diagonal entry (for example a constant column
    handled by a pseudo-inverse) get zero partial correlations.

    Parameters
    ----------
    precision : ndarray of shape (n_features, n_features)
        Symmetric precision (inverse covariance or inverse correlation) matrix.

    Returns
    -------
    partial_correlation : ndarray of shape (n_features, n_features)
        Symmetric, zero diagonal, entries in ``[-1, 1]``.

    Examples
    --------
    >>> import numpy as np
    >>> partial_correlation_from_precision(np.array([[2.0, -1.0], [-1.0, 2.0]]))
    array([[0. , 0.5],
           [0.5, 0. ]])
    """
    precision = np.asarray(precision, dtype=float)
    diag = np.diag(precision)
    inv_sqrt = np.where(diag > 0, 1.0 / np.sqrt(np.where(diag > 0, diag, 1.0)), 0.0)
    pcor = -precision * np.outer(inv_sqrt, inv_sqrt)
    pcor = (pcor + pcor.T) / 2.0  # remove rounding asymmetry of the inverse
    np.fill_diagonal(pcor, 0.0)
    return np.clip(pcor, -1.0, 1.0)


def upper_triangle(matrix: np.ndarray) -> np.ndarray:
    """The ``p (p - 1) / 2`` entries above the diagonal, row by row."""
    return matrix[np.triu_indices(matrix.shape[0], k=1)]


def symmetric_from_upper(values: np.ndarray, n_features: int, diagonal) -> np.ndarray:
    """Inverse of :func:`upper_triangle`: a symmetric matrix with a given diagonal."""
    out = np.zeros((n_features, n_features), dtype=np.asarray(values).dtype)
    rows, cols = np.triu_indices(n_features, k=1)
    out[rows, cols] = values
    out[cols, rows] = values
    np.fill_diagonal(out, diagonal)
    return out
