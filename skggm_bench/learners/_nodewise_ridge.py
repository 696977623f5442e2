"""Node-wise ridge regressions, penalty per node by K-fold CV, one eigh per fold.

For a common penalty ``lam`` all ``p`` node-wise ridge regressions come from one
matrix: with ``M = X'X + lam I`` and ``C = inv(M)``, the block-inverse formula
gives the ridge coefficients of node ``i`` on the other columns as
``b_i = -C[-i, i] / C[i, i]`` and its residuals at any rows ``x`` as
``(x C)[:, i] / C[i, i]``. With the eigendecomposition ``X'X = V diag(d) V'``,
``C = V diag(1 / (d + lam)) V'`` for every ``lam`` at once, so a fold costs one
``p x p`` eigendecomposition plus matrix products, whatever the grid length.
"""

import numpy as np

from ._cross_validation import select_penalty


def _inverse_columns(eigenvalues, eigenvectors, penalties):
    """Column ``i`` of ``inv(X'X + penalties[i] I)`` for every ``i``, as a matrix."""
    weighted = eigenvectors.T / (eigenvalues[:, None] + penalties[None, :])
    return eigenvectors @ weighted


def nodewise_ridge(
    Z: np.ndarray, folds, *, alphas: np.ndarray, penalty_selection: str = "cv_min"
):
    """Ridge regression of every column on the others, penalty by K-fold CV.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_features)
        Standardised data.
    folds : list of (train, test) index arrays
        Cross-validation splits.
    alphas : ndarray of shape (n_alphas,)
        Penalties per sample: node ``i`` minimises
        ``||z_i - Z_{-i} b||^2 / n + alpha ||b||^2`` (so ``alpha`` is in units of
        the unit variance of standardised columns). Sorted decreasingly inside.
    penalty_selection : {"cv_min", "cv_1se"}
        Rule applied to the fold-averaged CV error.

    Returns
    -------
    coef : ndarray of shape (n_features, n_features)
        ``coef[i, j]``: coefficient of ``z_j`` for node ``i`` (zero diagonal).
    alpha : ndarray of shape (n_features,)
        Selected penalty of each node.
    cv_errors : ndarray of shape (n_features, n_folds, n_alphas)
        Test mean squared error (penalties in decreasing order).
    """
    alphas = np.sort(np.asarray(alphas, dtype=float))[::-1]  # simplest model first
    n_samples, n_features = Z.shape
    cv_errors = np.empty((n_features, len(folds), alphas.size))
    for fold, (train, test) in enumerate(folds):
        mean = Z[train].mean(axis=0)
        X_train, X_test = Z[train] - mean, Z[test] - mean
        eigenvalues, eigenvectors = np.linalg.eigh(X_train.T @ X_train)
        eigenvalues = np.clip(eigenvalues, 0.0, None)  # rounding can make them < 0
        penalties = alphas * train.size
        # inverse_values[k, m] = 1 / (d_m + lam_k); C_k = V diag(.) V'
        inverse_values = 1.0 / (eigenvalues[None, :] + penalties[:, None])
        rotated = X_test @ eigenvectors  # (n_test, p)
        # residual numerators (X_test C_k)[:, i] for all k, i: (n_alphas, n_test, p)
        numerators = (rotated[None, :, :] * inverse_values[:, None, :]) @ eigenvectors.T
        diagonals = inverse_values @ (eigenvectors**2).T  # C_k[i, i]: (n_alphas, p)
        residuals = numerators / diagonals[:, None, :]
        cv_errors[:, fold, :] = np.mean(residuals**2, axis=1).T

    chosen = select_penalty(cv_errors, penalty_selection)
    alpha = alphas[chosen]
    X_full = Z - Z.mean(axis=0)
    eigenvalues, eigenvectors = np.linalg.eigh(X_full.T @ X_full)
    eigenvalues = np.clip(eigenvalues, 0.0, None)
    columns = _inverse_columns(eigenvalues, eigenvectors, alpha * n_samples)
    coef = -(columns / np.diag(columns)[None, :]).T
    np.fill_diagonal(coef, 0.0)
    return coef, alpha, cv_errors
