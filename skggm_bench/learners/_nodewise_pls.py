"""Node-wise partial least squares regressions, number of components by K-fold CV.

PLS1 is computed with the kernel algorithm of Dayal & MacGregor (1997, J.
Chemometrics 11:73), which needs only ``X'X`` and ``X'y``. Regressing node ``i``
on the other columns equals regressing it on all columns with column ``i``
zeroed, and a zero column stays out of every PLS weight vector; so all ``p``
node regressions run at once as the columns of ``p x p`` matrices, sharing the
fold's Gram matrix (one matrix product per component for all nodes).
"""

import numpy as np

from ._cross_validation import select_penalty


def _kernel_pls_all_nodes(gram: np.ndarray, n_components: int) -> np.ndarray:
    """Coefficients of every node-on-the-rest PLS1 fit for 1..n_components components.

    Parameters
    ----------
    gram : ndarray of shape (p, p)
        ``X'X`` of centred data.
    n_components : int
        Largest number of components.

    Returns
    -------
    coefs : ndarray of shape (n_components, p, p)
        ``coefs[a][:, i]``: coefficients of node ``i`` with ``a + 1`` components
        (zero at row ``i``).
    """
    n_features = gram.shape[0]
    cross = gram.copy()
    np.fill_diagonal(cross, 0.0)  # column i: X_{-i}' x_i
    # A component whose covariance with the response has vanished (the node is
    # fitted exactly) adds nothing: its weight is set to zero, not to 0 / 0.
    tiny = np.finfo(float).eps * max(float(np.trace(gram)), 1.0)
    directions, loadings = [], []
    coef = np.zeros((n_features, n_features))
    coefs = np.empty((n_components, n_features, n_features))
    for a in range(n_components):
        norms = np.linalg.norm(cross, axis=0)
        weights = np.divide(cross, norms, out=np.zeros_like(cross), where=norms > tiny)
        # Express the weight in terms of the original (undeflated) X.
        direction = weights.copy()
        for previous_direction, previous_loading in zip(
            directions, loadings, strict=True
        ):
            direction -= previous_direction * np.sum(previous_loading * weights, axis=0)
        gram_direction = gram @ direction
        np.fill_diagonal(gram_direction, 0.0)  # node i's own column is not a predictor
        score_norm2 = np.sum(direction * gram_direction, axis=0)  # ||t||^2
        ok = score_norm2 > tiny
        safe = np.where(ok, score_norm2, 1.0)
        loading = np.where(ok, gram_direction / safe, 0.0)
        y_loading = np.where(ok, np.sum(direction * cross, axis=0) / safe, 0.0)
        cross = cross - loading * (y_loading * score_norm2)
        coef = coef + direction * y_loading
        directions.append(direction)
        loadings.append(loading)
        coefs[a] = coef
    return coefs


def nodewise_pls(
    Z: np.ndarray, folds, *, max_components: int = 15, penalty_selection="cv_min"
):
    """PLS regression of every column on the others, components by K-fold CV.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_features)
        Standardised data.
    folds : list of (train, test) index arrays
        Cross-validation splits.
    max_components : int, default=15
        Largest number of components tried (reduced to ``min(n_train - 1, p - 1)``
        when the data cannot support that many).
    penalty_selection : {"cv_min", "cv_1se"}
        Rule applied to the fold-averaged CV error (fewer components = simpler).

    Returns
    -------
    coef : ndarray of shape (n_features, n_features)
        ``coef[i, j]``: coefficient of ``z_j`` for node ``i`` (zero diagonal).
    n_components : ndarray of shape (n_features,), int
        Selected number of components of each node.
    cv_errors : ndarray of shape (n_features, n_folds, n_components_max)
        Test mean squared error for 1, 2, ... components.
    """
    n_features = Z.shape[1]
    smallest_train = min(train.size for train, _ in folds)
    n_components = max(1, min(max_components, smallest_train - 1, n_features - 1))
    cv_errors = np.empty((n_features, len(folds), n_components))
    for fold, (train, test) in enumerate(folds):
        mean = Z[train].mean(axis=0)
        X_train, X_test = Z[train] - mean, Z[test] - mean
        coefs = _kernel_pls_all_nodes(X_train.T @ X_train, n_components)
        residuals = X_test[None, :, :] - X_test[None, :, :] @ coefs  # (A, n_test, p)
        cv_errors[:, fold, :] = np.mean(residuals**2, axis=1).T

    chosen = select_penalty(cv_errors, penalty_selection)
    X_full = Z - Z.mean(axis=0)
    coefs = _kernel_pls_all_nodes(X_full.T @ X_full, int(chosen.max()) + 1)
    nodes = np.arange(n_features)
    coef = coefs[chosen, :, nodes]  # row i: coefficients of node i
    np.fill_diagonal(coef, 0.0)
    return coef, chosen + 1, cv_errors
