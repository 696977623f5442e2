"""Node-wise lasso regressions with the penalty of each node chosen by K-fold CV.

Every node ``i`` is regressed on the others with scikit-learn's coordinate
descent path (:func:`~sklearn.linear_model.lasso_path`, warm starts along a log
grid of penalties). All regressions of a fold share one Gram matrix: the Gram
matrix of node ``i``'s predictors is a sub-block of it. Per-node predictor
weights turn the same machinery into the adaptive lasso.

The paths of a node are computed on all folds in lockstep, a chunk of penalties
at a time, and abandoned once the fold-averaged CV error exceeds
``stop_ratio`` times its running minimum. The lasso CV curve is U-shaped: when
``n`` is not much larger than ``p`` it climbs steeply towards the unpenalised
fit, and those last, nearly unpenalised fits are the badly conditioned ones
that dominate the cost of a full path (about 3/4 of it at p=100, n=200).
When ``n >> p`` the curve stays flat, the stop never triggers and the full
grid is evaluated (cheaply: the problem is then well conditioned).
"""

import numpy as np
from sklearn import config_context
from sklearn.linear_model import lasso_path

from ._cross_validation import select_penalty

# 10% above the running minimum is far outside the fold-to-fold noise of a
# 5-fold CV average near its minimum (typically 1-3% at n=200) and well
# before the error of the near-unpenalised end (2-3 times the minimum at p~n).
_STOP_RATIO = 1.1
_CHUNK = 20
# With this few predictors a whole path costs little more than the fixed cost of
# a lasso_path call, so it is computed in one call and never stopped early.
_SMALL_PROBLEM = 30


def _penalty_grid(
    Z: np.ndarray, weights: np.ndarray, n_alphas: int, eps: float
) -> np.ndarray:
    """Log grid per node from ``alpha_max`` (empty model) down to ``eps * alpha_max``.

    ``alpha_max`` of node ``i`` is ``max_j |<w_ij z_j, z_i>| / n`` on the full data,
    as in :class:`~sklearn.linear_model.LassoCV`; the same grid serves all folds
    so that fold errors can be averaged penalty by penalty.
    """
    alpha_max = np.abs(weights * (Z.T @ Z)).max(axis=1) / Z.shape[0]
    return alpha_max[:, None] * np.logspace(0.0, np.log10(eps), n_alphas)[None, :]


class _CenteredBlock:
    """A set of rows centred with its own means, its Gram matrix, and held-out rows."""

    def __init__(
        self, Z: np.ndarray, train: np.ndarray, test: np.ndarray | None = None
    ):
        mean = Z[train].mean(axis=0)
        self.X = np.asfortranarray(Z[train] - mean)
        self.gram = self.X.T @ self.X
        self.X_test = None if test is None else Z[test] - mean

    def path(self, node, predictors, scale, alphas, tol, max_iter, coef_init=None):
        """Lasso path of ``node`` on ``X[:, predictors] * scale`` (scaled coefs)."""
        _, coefs, _ = lasso_path(
            self.X[:, predictors] * scale,
            self.X[:, node],
            alphas=alphas,
            precompute=self.gram[np.ix_(predictors, predictors)]
            * np.outer(scale, scale),
            Xy=self.gram[predictors, node] * scale,
            tol=tol,
            max_iter=max_iter,
            coef_init=coef_init,
            check_input=False,
        )
        return coefs


def _node_cv_paths(blocks, node, predictors, scales, grid, tol, max_iter, stop_ratio):
    """Fold test errors and fold coefficient paths of one node along ``grid``.

    Returns
    -------
    errors : ndarray of shape (n_folds, n_alphas)
        NaN past an early stop.
    paths : list of ndarray of shape (n_predictors, n_evaluated)
        Per fold, coefficients on the original (unweighted) predictor scale.
    """
    errors = np.full((len(blocks), grid.size), np.nan)
    paths = [[] for _ in blocks]
    warm = [None] * len(blocks)
    chunk = grid.size if predictors.size <= _SMALL_PROBLEM else _CHUNK
    for start in range(0, grid.size, chunk):
        stop = min(start + chunk, grid.size)
        for fold, block in enumerate(blocks):
            scale = scales[fold]
            coefs = block.path(
                node, predictors, scale, grid[start:stop], tol, max_iter, warm[fold]
            )
            warm[fold] = coefs[:, -1]
            coefs = coefs * scale[:, None]
            paths[fold].append(coefs)
            residuals = block.X_test[:, [node]] - block.X_test[:, predictors] @ coefs
            errors[fold, start:stop] = np.mean(residuals**2, axis=0)
        mean = errors[:, :stop].mean(axis=0)
        if stop_ratio is not None and mean[-1] > stop_ratio * mean.min():
            break
    return errors, [np.hstack(chunks) for chunks in paths]


def nodewise_lasso(
    Z: np.ndarray,
    folds,
    *,
    weights: np.ndarray | None = None,
    fold_weights: np.ndarray | None = None,
    n_alphas: int = 100,
    eps: float = 1e-3,
    penalty_selection: str = "cv_min",
    tol: float = 1e-4,
    max_iter: int = 1000,
    stop_ratio: float | None = _STOP_RATIO,
):
    """Lasso regression of every column on the others, penalty by K-fold CV.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_features)
        Standardised data.
    folds : list of (train, test) index arrays
        Cross-validation splits.
    weights : ndarray of shape (n_features, n_features) or None
        ``weights[i, j] >= 0`` rescales predictor ``j`` of node ``i`` in the
        fit on all samples (penalty ``|b_ij| / weights[i, j]``); 0 excludes it.
        ``None``: plain lasso.
    fold_weights : ndarray of shape (n_folds, n_features, n_features) or None
        Weights of each cross-validation fit, when they differ from ``weights``
        (adaptive-lasso weights must be estimated without the test fold).
    n_alphas : int
        Length of the penalty grid of each node.
    eps : float
        Smallest penalty of the grid relative to the largest.
    penalty_selection : {"cv_min", "cv_1se"}
        Rule applied to the fold-averaged CV error (see ``select_penalty``).
    tol, max_iter :
        Coordinate-descent settings of :func:`sklearn.linear_model.lasso_path`.
    stop_ratio : float or None
        Early stop of a node's CV paths (see the module docstring); ``None``
        evaluates the whole grid.

    Returns
    -------
    coef : ndarray of shape (n_features, n_features)
        ``coef[i, j]``: coefficient of ``z_j`` for node ``i`` (zero diagonal).
    alpha : ndarray of shape (n_features,)
        Selected penalty of each node (0 for nodes without predictors).
    cv_errors : ndarray of shape (n_features, n_folds, n_alphas)
        Test mean squared error along each node's grid (NaN where the path was
        stopped early).
    fold_coef : ndarray of shape (n_folds, n_features, n_features)
        Coefficients of each fold's training fit at the selected penalty.
    """
    n_samples, n_features = Z.shape
    if weights is None:
        weights = 1.0 - np.eye(n_features)
    if fold_weights is None:
        fold_weights = np.broadcast_to(weights, (len(folds), *weights.shape))
    grids = _penalty_grid(Z, weights, n_alphas, eps)
    coef = np.zeros((n_features, n_features))
    fold_coef = np.zeros((len(folds), n_features, n_features))
    alpha = np.zeros(n_features)
    cv_errors = np.full((n_features, len(folds), n_alphas), np.nan)
    # Parameter validation inside lasso_path costs more than a small path.
    with config_context(skip_parameter_validation=True, assume_finite=True):
        blocks = [_CenteredBlock(Z, train, test) for train, test in folds]
        full = _CenteredBlock(Z, np.arange(n_samples))
        for node in range(n_features):
            predictors = np.flatnonzero(
                weights[node] + fold_weights[:, node].sum(axis=0)
            )
            if predictors.size == 0 or grids[node, 0] <= 0:
                # No (weighted) predictor correlates with the node: the fit is
                # the intercept alone at any penalty.
                for fold, block in enumerate(blocks):
                    cv_errors[node, fold] = np.mean(block.X_test[:, node] ** 2)
                continue
            errors, paths = _node_cv_paths(
                blocks,
                node,
                predictors,
                fold_weights[:, node, predictors],
                grids[node],
                tol,
                max_iter,
                stop_ratio,
            )
            cv_errors[node] = errors
            evaluated = ~np.isnan(errors[0])
            chosen = select_penalty(errors[None, :, evaluated], penalty_selection)[0]
            for fold, path in enumerate(paths):
                fold_coef[fold, node, predictors] = path[:, chosen]
            # Warm-started path on all samples down to the chosen penalty only.
            scale = weights[node, predictors]
            coefs = full.path(
                node, predictors, scale, grids[node, : chosen + 1], tol, max_iter
            )
            coef[node, predictors] = coefs[:, -1] * scale
            alpha[node] = grids[node, chosen]
    return coef, alpha, cv_errors, fold_coef
