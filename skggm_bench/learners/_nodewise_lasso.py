"""Node-wise lasso regressions with the penalty of each node chosen by K-fold CV.

Every node ``i`` is regressed on the others along a log grid of penalties. All
regressions of a fold share one Gram matrix: the Gram matrix of node ``i``'s
predictors is a sub-block of it. Per-node predictor weights turn the same
machinery into the adaptive lasso.

The paths of a node are computed on all folds in lockstep, a chunk of penalties
at a time, and abandoned once the fold-averaged CV error exceeds
``stop_ratio`` times its running minimum. The lasso CV curve is U-shaped: when
``n`` is not much larger than ``p`` it climbs steeply towards the unpenalised
fit, and those last, nearly unpenalised fits are the badly conditioned ones
that dominate the cost of a full path (about 3/4 of it at p=100, n=200).
When ``n >> p`` the curve stays flat, the stop never triggers and the full
grid is evaluated (cheaply: the problem is then well conditioned).

Two solvers compute the CV paths. Coordinate descent: scikit-learn's
:func:`~sklearn.linear_model.lasso_path` on the Gram matrix, warm starts along
the grid, computed by the compiled ``_lasso_descent`` to the same bits without
its Python overhead per penalty. That overhead dominated when a node has few
predictors, as in the second stage of the adaptive lasso, so such nodes follow
the exact, piecewise-linear lasso path from knot to knot instead (a homotopy,
see ``_FoldHomotopy``, its loop compiled in ``_lasso_paths``), whose cost
grows with the number of knots, about one or two per predictor, not with the
number of penalties (the threshold below was measured against ``lasso_path``;
moving it would change results at the tolerance's level, so it stays). The
homotopy's solutions are exact where coordinate descent stops at its
duality-gap tolerance, so the CV errors of the two agree to that tolerance.
Coordinate descent also slows down badly on strongly correlated predictors,
where the homotopy does not: a larger node starts with coordinate descent and
moves to the homotopy when one penalty needs more than ``_SWEEP_LIMIT`` sweeps.
The final fit of a node on all samples uses the solver its CV paths used.
"""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ._cross_validation import select_penalty
from ._lasso_descent import lasso_gram_paths
from ._lasso_paths import LassoHomotopy, Outcome, held_out_errors

# 10% above the running minimum is far outside the fold-to-fold noise of a
# 5-fold CV average near its minimum (typically 1-3% at n=200) and well
# before the error of the near-unpenalised end (2-3 times the minimum at p~n).
_STOP_RATIO = 1.1
# With this few predictors a whole path costs little more than one chunk of
# it, so it is computed at once and never stopped early.
_SMALL_PROBLEM = 30
# Up to this many weighted predictors in every fold the homotopy is the faster
# solver (measured at n=200; at 50 the two cost the same).
_HOMOTOPY_MAX_PREDICTORS = 40
# Safeguards of the homotopy, which hands the node to coordinate descent when
# one fails: an entering predictor whose residual variance given the active
# ones (relative to its own variance) is below _MIN_PIVOT is collinear with
# them; a path with more than _MAX_KNOTS_PER_PREDICTOR knots per predictor is
# cycling; every solution must satisfy the lasso optimality conditions to
# _KKT_RTOL relative to the penalty.
_MIN_PIVOT = 1e-8
_MAX_KNOTS_PER_PREDICTOR = 10
_KKT_RTOL = 1e-7
# A coefficient that moves the penalised gradient by less than this fraction of
# alpha is rounding residue of a knot (e.g. the first one, computed apart from
# the grid's alpha_max) and is set to exactly 0; doing so changes no optimality
# condition by more than that fraction, far inside _KKT_RTOL.
_ZERO_RTOL = 1e-10
# Coordinate-descent sweeps at one penalty beyond which a node's CV paths are
# handed to the homotopy, whose cost hardly depends on the conditioning. At
# p=100, n=200 well-conditioned nodes need at most about 150 sweeps; dense
# graphs from triangulated or partial orthogonalization (correlation matrices
# with condition numbers of 6,000-25,000) need up to max_iter, i.e. descent
# does not converge there, and the switch halves their fit time.
_SWEEP_LIMIT = 250


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


class _CenteredFolds:
    """The training rows of some splits, each centred with its own means.

    Per split ``f``: ``X[f]`` the centred training rows (Fortran order) and
    ``X_test[f]`` the held-out rows centred with the same means (None where the
    split has none), also one after the other in ``held_out`` from row
    ``offsets[f]``. Stacked over the splits: the Gram matrices ``gram``, the
    norms of the columns ``norms`` and their correlation matrices
    ``correlation`` (0 where a column is constant), which every node's solvers
    read a block of, and the numbers of training rows ``n_train``.
    """

    def __init__(self, Z: np.ndarray, splits):
        self.X, self.X_test = [], []
        for train, test in splits:
            mean = Z[train].mean(axis=0)
            self.X.append(np.asfortranarray(Z[train] - mean))
            self.X_test.append(None if test is None else Z[test] - mean)
        self.gram = np.stack([X.T @ X for X in self.X])
        self.norms = np.sqrt(np.diagonal(self.gram, axis1=1, axis2=2))
        products = self.norms[:, :, None] * self.norms[:, None, :]
        self.correlation = np.divide(
            self.gram, products, out=np.zeros_like(self.gram), where=products > 0
        )
        self.n_train = np.array([X.shape[0] for X in self.X])
        if all(X is not None for X in self.X_test):
            self.held_out = np.concatenate(self.X_test)
            self.offsets = np.cumsum([0] + [len(X) for X in self.X_test])

    def __len__(self):
        return len(self.X)

    @staticmethod
    def block(stacked, predictors):
        """The ``predictors`` x ``predictors`` block of every fold, in C order."""
        return stacked.take(predictors, axis=1).take(predictors, axis=2)


class _SlowDescent(Exception):
    """Coordinate descent needs too many sweeps (badly conditioned node)."""


class _FoldCoordinateDescent:
    """Coordinate-descent paths of one node on all folds, warm starts along the grid.

    :func:`sklearn.linear_model.lasso_path` with the Gram matrix of each fold's
    weighted design ``X[:, predictors] * scale``, computed by
    ``lasso_gram_paths`` to the same bits without its per-penalty overhead (the
    folds in one call), and with its ``ConvergenceWarning`` where a penalty
    runs out of sweeps. With a ``sweep_limit``, ``path`` raises
    :class:`_SlowDescent` as soon as a penalty needs more sweeps than that.
    """

    # Penalties between two early-stop checks: each costs a fit per fold, so
    # frequent checks limit the fits wasted past the stop.
    chunk = 10

    def __init__(self, folds, node, predictors, scales, tol, max_iter, sweep_limit):
        # Each fold's Gram matrix, X'y and y'y: computed once per node and
        # reused for every chunk.
        self.gram = folds.block(folds.gram, predictors)
        self.gram *= scales[:, :, None] * scales[:, None, :]
        self.xy = folds.gram[:, :, node].take(predictors, axis=1) * scales
        self.y_norm2 = np.array([np.dot(X[:, node], X[:, node]) for X in folds.X])
        # lasso_path's penalties are per sample; the kernel's on X'X's scale.
        self.n_train = folds.n_train[:, None]
        self.scales, self.tol, self.max_iter = scales, tol, max_iter
        # No penalty takes more than max_iter sweeps (an infinite limit too).
        self.sweep_limit = (
            max_iter if sweep_limit is None else int(min(sweep_limit, max_iter))
        )
        self.warm = np.zeros(scales.shape)  # the kernel leaves the last solutions

    def path(self, alphas):
        """Coefficients of every fold at ``alphas``, shape (n_folds, n_predictors, m).

        On the original (unweighted) predictor scale; ``alphas`` continue the
        decreasing sequence of the previous call.
        """
        n_folds, n_predictors = self.xy.shape
        coefs = np.empty((n_folds, alphas.size, n_predictors))
        sweeps = np.empty((n_folds, alphas.size), dtype=np.intc)
        gaps = np.empty((n_folds, alphas.size))
        # Penalties past a stop count as converged: they warn of nothing.
        converged = np.ones((n_folds, alphas.size), dtype=np.uint8)
        n_solved_folds, n_solved = lasso_gram_paths(
            self.gram,
            self.xy,
            self.y_norm2,
            alphas * self.n_train,
            self.warm,
            coefs,
            sweeps,
            gaps,
            converged,
            self.max_iter,
            self.tol,
            self.sweep_limit,
        )
        for fold, penalty in zip(*np.nonzero(converged == 0), strict=True):
            warnings.warn(
                "Objective did not converge. You might want to increase the "
                "number of iterations, check the scale of the features or "
                "consider increasing regularisation. "
                f"Duality gap: {gaps[fold, penalty]:.6e}, "
                f"tolerance: {self.tol * self.y_norm2[fold]:.3e}",
                ConvergenceWarning,
                stacklevel=2,
            )
        if sweeps[n_solved_folds - 1, n_solved - 1] > self.sweep_limit:
            raise _SlowDescent
        # C order, as the products with the held-out rows expect.
        return np.multiply(coefs.transpose(0, 2, 1), self.scales[:, :, None], order="C")


class _HomotopyFailure(Exception):
    """The exact path could not be followed (degenerate data)."""


_HOMOTOPY_FAILURES = {
    Outcome.COLLINEAR: "entering predictor collinear with active ones",
    Outcome.TOO_MANY_KNOTS: "too many knots",
    Outcome.NOT_OPTIMAL: "optimality conditions violated",
}


class _FoldHomotopy:
    """Exact lasso paths of one node on every fold (homotopy, as in LARS-lasso).

    Fold ``f`` minimises ``w'Gw / 2 - q'w + alpha |w|_1`` with ``G = X'X / n_f``
    and ``q = X'y / n_f`` of its weighted training design, scikit-learn's lasso
    objective divided by ``n_f``. Between two knots of the path the active set
    ``A`` and the signs ``s`` of its coefficients are fixed and the solution is
    linear in ``alpha``: ``w_A = u - alpha v`` with ``G_AA u = q_A`` and
    ``G_AA v = s``; every other predictor has correlation
    ``c_j = q_j - G_jA w_A = a_j + alpha b_j`` with the residual. The next knot
    is the largest ``alpha`` below the current one at which some ``|c_j|``
    reaches ``alpha`` (``j`` enters with the sign of ``c_j``) or some active
    coefficient reaches 0 (it leaves). All folds step to their own next knot
    together, in the compiled loop of ``_lasso_paths.LassoHomotopy``, which
    also checks the solutions' optimality conditions; this class sets up its
    problems.

    ``inv(G_AA)`` is updated by one rank-one term per knot instead of a solve,
    and kept as ``D^-1 inv(R_AA) D^-1`` with ``D`` the norms of the weighted
    predictors: ``R = D^-1 G D^-1`` is the correlation matrix of the unweighted
    predictors, whose conditioning the weights (spanning orders of magnitude)
    do not spoil.
    """

    # Penalties between two early-stop checks: a check (optimality conditions,
    # test errors) costs as much as several knots, so checks are sparser.
    chunk = 20

    def __init__(self, folds, node, predictors, scales):
        n_train = folds.n_train.astype(float)
        gram = folds.block(folds.gram, predictors)
        correlation = folds.block(folds.correlation, predictors)
        norms = folds.norms.take(predictors, axis=1)
        gram *= scales[:, :, None] * scales[:, None, :]
        gram /= n_train[:, None, None]
        xy = folds.gram[:, :, node].take(predictors, axis=1)
        xy *= scales / n_train[:, None]
        # Predictors without variance or weight have q_j = 0 and never enter.
        weighted_norms = norms * np.abs(scales) / np.sqrt(n_train[:, None])
        inverse_norms = np.divide(
            1.0, weighted_norms, out=np.zeros_like(norms), where=weighted_norms > 0
        )
        self.scales = scales
        self.kernel = LassoHomotopy(
            gram,
            correlation,
            xy,
            inverse_norms,
            _MAX_KNOTS_PER_PREDICTOR * predictors.size,
            _MIN_PIVOT,
            _ZERO_RTOL,
            _KKT_RTOL,
        )

    def path(self, alphas):
        """Coefficients of every fold at ``alphas``, shape (n_folds, n_predictors, m).

        On the original (unweighted) predictor scale; ``alphas`` continue the
        decreasing sequence of the previous call.
        """
        coefs = np.zeros((*self.scales.shape, alphas.size))
        outcome = self.kernel.path(alphas, coefs)
        if outcome != Outcome.OK:
            raise _HomotopyFailure(_HOMOTOPY_FAILURES[outcome])
        return coefs * self.scales[:, :, None]


def _cv_paths(solver, folds, node, predictors, grid, stop_ratio):
    """Fold test errors and fold coefficient paths of one node along ``grid``.

    Returns
    -------
    errors : ndarray of shape (n_folds, n_alphas)
        NaN past an early stop.
    paths : ndarray of shape (n_folds, n_predictors, n_evaluated)
        Coefficients on the original (unweighted) predictor scale.
    """
    errors = np.full((len(folds), grid.size), np.nan)
    chunk = grid.size if predictors.size <= _SMALL_PROBLEM else solver.chunk
    paths = []
    for start in range(0, grid.size, chunk):
        stop = min(start + chunk, grid.size)
        coefs = solver.path(grid[start:stop])
        paths.append(coefs)
        held_out_errors(
            folds.held_out,
            folds.offsets,
            node,
            predictors,
            coefs,
            errors[:, start:stop],
        )
        mean = errors[:, :stop].mean(axis=0)
        if stop_ratio is not None and mean[-1] > stop_ratio * mean.min():
            break
    return errors, np.concatenate(paths, axis=2)


def _node_cv_paths(folds, node, predictors, scales, grid, tol, max_iter, stop_ratio):
    """``_cv_paths`` of one node, by the faster solver for its size and conditioning.

    Small nodes go to the homotopy directly. Larger ones start with coordinate
    descent and move to the homotopy when a penalty needs too many sweeps.
    Coordinate descent without a limit, which cannot fail, is the last resort
    when the homotopy fails (e.g. duplicated predictors). The third value
    returned says whether the homotopy solved the node.
    """
    attempts = [lambda: _FoldHomotopy(folds, node, predictors, scales)]
    if np.count_nonzero(scales, axis=1).max() > _HOMOTOPY_MAX_PREDICTORS:
        attempts.insert(
            0,
            lambda: _FoldCoordinateDescent(
                folds, node, predictors, scales, tol, max_iter, _SWEEP_LIMIT
            ),
        )
    for make_solver in attempts:
        try:
            solver = make_solver()
            errors, paths = _cv_paths(solver, folds, node, predictors, grid, stop_ratio)
        except (_SlowDescent, _HomotopyFailure):
            continue
        return errors, paths, isinstance(solver, _FoldHomotopy)
    solver = _FoldCoordinateDescent(
        folds, node, predictors, scales, tol, max_iter, sweep_limit=None
    )
    return (*_cv_paths(solver, folds, node, predictors, grid, stop_ratio), False)


def _full_fit(full, node, predictors, scale, alphas, tol, max_iter, exact):
    """Coefficients of ``node`` on all samples at ``alphas[-1]`` (original scale).

    By the homotopy when it solved the node's CV paths (``exact``; on the badly
    conditioned nodes that moved to it, coordinate descent would not converge),
    else by warm-started coordinate descent.
    """
    if exact:
        try:
            return _FoldHomotopy(full, node, predictors, scale[None]).path(alphas)[
                0, :, -1
            ]
        except _HomotopyFailure:
            pass
    descent = _FoldCoordinateDescent(
        full, node, predictors, scale[None], tol, max_iter, sweep_limit=None
    )
    return descent.path(alphas)[0, :, -1]


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
        Coordinate-descent settings of :func:`sklearn.linear_model.lasso_path`
        (the homotopy, used for small nodes and for nodes where descent is
        slow, solves exactly).
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
    centred = _CenteredFolds(Z, folds)
    full = _CenteredFolds(Z, [(np.arange(n_samples), None)])
    for node in range(n_features):
        predictors = np.flatnonzero(weights[node] + fold_weights[:, node].sum(axis=0))
        if predictors.size == 0 or grids[node, 0] <= 0:
            # No (weighted) predictor correlates with the node: the fit is
            # the intercept alone at any penalty.
            for fold, X_test in enumerate(centred.X_test):
                cv_errors[node, fold] = np.mean(X_test[:, node] ** 2)
            continue
        errors, paths, exact = _node_cv_paths(
            centred,
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
        fold_coef[:, node, predictors] = paths[:, :, chosen]
        # The path on all samples down to the chosen penalty only.
        coef[node, predictors] = _full_fit(
            full,
            node,
            predictors,
            weights[node, predictors],
            grids[node, : chosen + 1],
            tol,
            max_iter,
            exact,
        )
        alpha[node] = grids[node, chosen]
    return coef, alpha, cv_errors, fold_coef
