"""Neighbourhood selection (Meinshausen & Bühlmann 2006) and TIGER (Liu & Wang 2017).

Both regress every standardised variable on all the others with an l1 penalty,
all nodes at once (see ``_active_set_lasso``): the lasso for neighbourhood
selection, the square-root lasso for TIGER, whose penalty needs no knowledge of
the noise level.
"""

import warnings
from numbers import Real

import numpy as np
from scipy import stats
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils import check_array
from sklearn.utils._param_validation import StrOptions

from ..utils._validation import Interval
from ._active_set_lasso import (
    INTERPOLATION_SCALE,
    nodewise_lasso_path,
    nodewise_lasso_steps,
)
from ._partial_correlation import partial_correlation_from_coefficients
from ._utils import standardize_columns, validate_samples

# Meinshausen & Bühlmann's bound is set so that the probability of falsely
# joining two connectivity components is at most this level.
_MB_LEVEL = 0.05


def _edges_by_rule(coef: np.ndarray, rule: str) -> np.ndarray:
    """Symmetric adjacency from node-wise supports: both ("and") or either ("or")."""
    selected = coef != 0
    adjacency = selected & selected.T if rule == "and" else selected | selected.T
    np.fill_diagonal(adjacency, False)
    return adjacency


def _edges_along(Z, penalties, rule: str, square_root: bool = False) -> np.ndarray:
    """Adjacency at every penalty of the node-wise (square-root) lasso path.

    Edges are taken step by step: the coefficients of the whole path are
    never stored (see ``nodewise_lasso_steps``). Each step keeps the positions
    of its edges only, and the adjacency array is filled at the end: a large
    array allocated before the path and kept through it made the allocator
    return the path's working arrays to the system after every use, and
    fault them in again, a sixth of the path's CPU time at p = 400.
    """
    n_features = Z.shape[1]
    penalties = np.asarray(penalties, dtype=float)
    edges = [None] * penalties.size
    for k, coef in nodewise_lasso_steps(Z, penalties, square_root=square_root):
        edges[k] = np.flatnonzero(_edges_by_rule(coef, rule))
    adjacency = np.zeros((penalties.size, n_features * n_features), dtype=bool)
    for k, positions in enumerate(edges):
        adjacency[k, positions] = True
    return adjacency.reshape(penalties.size, n_features, n_features)


class NeighbourhoodSelection(BaseEstimator):
    """Meinshausen & Bühlmann (2006) neighbourhood selection by node-wise lasso.

    Every variable is regressed on all the others by the lasso at one penalty
    ``alpha``; an edge joins two variables when one (``rule="or"``) or both
    (``rule="and"``) regressions select the other. This is ``huge.mb`` of R's
    huge package at ``lambda = alpha`` (``sym = rule``).

    The columns are centred and scaled to unit variance, and node ``i`` solves

        minimise over b:  ||z_i - Z_{-i} b||^2 / (2 n) + alpha ||b||_1,

    which is scikit-learn's :class:`~sklearn.linear_model.Lasso` scaling and that
    of ``huge.mb``'s ``lambda`` (huge works on the correlation matrix
    ``Z'Z / n``). No regression selects anything at ``alpha`` above the largest
    absolute sample correlation. The solutions are exact (an active-set method
    that stops only when the lasso optimality conditions hold), not stopped at
    a tolerance.

    Parameters
    ----------
    alpha : float > 0 or "auto", default="auto"
        Lasso penalty. ``"auto"`` is Meinshausen & Bühlmann's bound
        ``Phi^-1(1 - 0.05 / (2 p^2)) / sqrt(n)`` (their Theorem 3 at level 0.05,
        with unit noise variance on standardised data; halved because of the
        ``1/2`` in the objective above), which keeps the probability of falsely
        joining two unconnected components below 0.05. Choose it from the data
        with :class:`StARS` or :class:`RIC`.
    rule : {"or", "and"}, default="or"
        ``"or"``: an edge where either regression selects the other variable
        (huge's default); ``"and"``: where both do. Unlike the ``"and"`` rule of
        :class:`LassoNetwork`, signs need not agree.

    Attributes
    ----------
    alpha_ : float
        The penalty used (the value of ``"auto"``).
    coef_ : ndarray of shape (n_features, n_features)
        ``coef_[i, j]``: coefficient of variable ``j`` in the regression of
        variable ``i`` (standardised scale, zero diagonal).
    partial_correlation_ : ndarray of shape (n_features, n_features)
        ``sign(b_ij) sqrt(b_ij b_ji)`` when both coefficients are non-zero with
        the same sign, else 0 (edge scores for ROC and PR curves).
    adjacency_ : ndarray of shape (n_features, n_features), bool
        Edge decisions by ``rule``.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    TIGER : node-wise square-root lasso, penalty free of the noise level.
    StARS : chooses ``alpha`` by stability.

    References
    ----------
    Meinshausen, N. and Bühlmann, P. (2006). High-dimensional graphs and
    variable selection with the lasso. Annals of Statistics 34(3), 1436-1462.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.learners import NeighbourhoodSelection
    >>> rng = np.random.default_rng(0)
    >>> precision = np.eye(10) - 0.4 * (np.eye(10, k=1) + np.eye(10, k=-1))
    >>> X = rng.multivariate_normal(np.zeros(10), np.linalg.inv(precision), size=300)
    >>> est = NeighbourhoodSelection().fit(X)
    >>> int(est.adjacency_.sum()) // 2, bool(np.all(np.diag(est.adjacency_, k=1)))
    (9, True)
    """

    _parameter_constraints: dict = {
        "alpha": [Interval(Real, 0.0, None, closed="neither"), StrOptions({"auto"})],
        "rule": [StrOptions({"and", "or"})],
    }

    def __init__(self, alpha="auto", rule="or"):
        self.alpha = alpha
        self.rule = rule

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Run the node-wise lasso regressions and decide the edges.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data; constant columns are left disconnected.
        y : None
            Ignored.

        Returns
        -------
        self : NeighbourhoodSelection
            Fitted estimator.
        """
        X = validate_samples(self, X)
        n_samples, n_features = X.shape
        if self.alpha == "auto":
            level = _MB_LEVEL / (2.0 * n_features**2)
            self.alpha_ = float(stats.norm.isf(level) / np.sqrt(n_samples))
        else:
            self.alpha_ = float(self.alpha)
        Z, _ = standardize_columns(X)
        self.coef_ = nodewise_lasso_path(Z, [self.alpha_])[0]
        self.partial_correlation_ = partial_correlation_from_coefficients(self.coef_)
        self.adjacency_ = _edges_by_rule(self.coef_, self.rule)
        return self

    def adjacency_path(self, X, alphas) -> np.ndarray:
        """Edges at every penalty of ``alphas``, in one warm-started pass.

        The same edges as fitting a clone with each ``alpha`` in turn (all
        solutions are exact), at a fraction of the cost; :class:`StARS` uses it.
        Nothing is stored on the estimator.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data.
        alphas : array-like of shape (n_alphas,)
            Positive penalties, in any order.

        Returns
        -------
        adjacency : ndarray of shape (n_alphas, n_features, n_features), bool
        """
        self._validate_params()
        X = check_array(X, dtype=np.float64, ensure_min_samples=2)
        Z, _ = standardize_columns(X)
        return _edges_along(Z, alphas, self.rule)


class TIGER(BaseEstimator):
    """TIGER: tuning-insensitive graph estimation by node-wise square-root lasso.

    Liu & Wang (2017). Every variable, standardised to unit sample variance
    (denominator ``n - 1``, as R's ``scale``), is regressed on all the others by
    the square-root lasso

        minimise over b:  ||z_i - Z_{-i} b||_2 / sqrt(n) + alpha ||b||_1,

    whose optimal penalty does not depend on the unknown noise level, so the
    default ``alpha = sqrt(log p / n)`` needs no tuning. With
    ``tau_i = ||z_i - Z_{-i} b_i|| / sqrt(n)`` the standardised precision matrix
    has column ``i`` equal to ``1 / tau_i^2`` on the diagonal and
    ``-b_i / tau_i^2`` off it; it is symmetrised by keeping, of each pair of
    entries, the one of smaller magnitude, and scaled back to the units of
    ``X``. Edges follow ``rule`` on the regression supports, as ``huge.tiger``
    (whose ``lambda`` is this ``alpha``). The solutions are exact, not stopped at
    a tolerance.

    Parameters
    ----------
    alpha : float > 0 or "auto", default="auto"
        Square-root lasso penalty; ``"auto"`` is ``sqrt(log p / n)``, the
        paper's recommended ``zeta * pi * sqrt(log p / (2 n))`` at
        ``zeta = sqrt(2) / pi``.
    rule : {"or", "and"}, default="or"
        ``"or"``: an edge where either regression selects the other variable
        (huge's default); ``"and"``: where both do.

    Attributes
    ----------
    alpha_ : float
        The penalty used (the value of ``"auto"``).
    coef_ : ndarray of shape (n_features, n_features)
        ``coef_[i, j]``: coefficient of variable ``j`` in the regression of
        variable ``i`` (standardised scale, zero diagonal).
    noise_scale_ : ndarray of shape (n_features,)
        ``tau_i``, the residual standard deviation of each regression
        (standardised scale).
    precision_ : ndarray of shape (n_features, n_features)
        Symmetric precision matrix in the units of ``X`` (not necessarily
        positive definite); its zeros are the pairs where either regression
        left the other variable out.
    adjacency_ : ndarray of shape (n_features, n_features), bool
        Edge decisions by ``rule``.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    NeighbourhoodSelection : the node-wise lasso.

    References
    ----------
    Liu, H. and Wang, L. (2017). TIGER: a tuning-insensitive approach for
    optimally estimating Gaussian graphical models. Electronic Journal of
    Statistics 11(1), 241-294.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.learners import TIGER
    >>> rng = np.random.default_rng(0)
    >>> precision = np.eye(10) - 0.4 * (np.eye(10, k=1) + np.eye(10, k=-1))
    >>> X = rng.multivariate_normal(np.zeros(10), np.linalg.inv(precision), size=300)
    >>> est = TIGER().fit(X)
    >>> found = np.diag(est.adjacency_, k=1)  # the 9 true edges
    >>> int(found.sum()), int(est.adjacency_.sum()) // 2 - int(found.sum())
    (9, 6)
    >>> bool(np.allclose(est.precision_, est.precision_.T))
    True
    """

    _parameter_constraints: dict = {
        "alpha": [Interval(Real, 0.0, None, closed="neither"), StrOptions({"auto"})],
        "rule": [StrOptions({"and", "or"})],
    }

    def __init__(self, alpha="auto", rule="or"):
        self.alpha = alpha
        self.rule = rule

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Run the node-wise square-root lasso regressions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, no constant column (its precision would be infinite).
        y : None
            Ignored.

        Returns
        -------
        self : TIGER
            Fitted estimator.

        Warns
        -----
        UserWarning
            If a regression fits the data exactly (residual scale below 1e-4 of
            the variable's): collinear columns, or ``n <= p`` at small
            ``alpha``. Its precision is then computed with the scale floored.
        """
        X = validate_samples(self, X)
        n_samples, n_features = X.shape
        self.alpha_ = (
            float(np.sqrt(np.log(n_features) / n_samples))
            if self.alpha == "auto"
            else float(self.alpha)
        )
        Z, constant = standardize_columns(X)
        if np.any(constant):
            raise ValueError(
                "TIGER needs every column to vary; constant columns: "
                f"{np.flatnonzero(constant).tolist()}."
            )
        # Z has unit variance with denominator n; on R's scale (n - 1) the
        # objective is sqrt((n - 1) / n) times this one with the penalty
        # alpha * sqrt(n / (n - 1)), so that is the penalty on Z.
        ddof_factor = np.sqrt(n_samples / (n_samples - 1))
        coef = nodewise_lasso_path(Z, [self.alpha_ * ddof_factor], square_root=True)[0]
        residual_scale = np.linalg.norm(Z - Z @ coef.T, axis=0) / np.sqrt(n_samples)
        exact = np.flatnonzero(residual_scale < INTERPOLATION_SCALE)
        if exact.size:
            warnings.warn(
                f"TIGER at alpha={self.alpha_:.4g}: the regressions of variables "
                f"{exact.tolist()} fit the {n_samples} samples exactly (collinear "
                "columns, or n <= p at a small alpha), so their precision is "
                f"infinite; it is computed with the residual scale floored at "
                f"{INTERPOLATION_SCALE:g}. A larger alpha avoids this.",
                UserWarning,
                stacklevel=2,
            )
        self.coef_ = coef
        self.noise_scale_ = residual_scale / ddof_factor
        # Precision of Z: column i is (1, -b_i) / sigma_i^2 with sigma_i the
        # residual scale on Z; then into the units of X.
        floored = np.maximum(residual_scale, INTERPOLATION_SCALE)
        standardised = -coef.T / floored**2
        np.fill_diagonal(standardised, 1.0 / floored**2)
        smaller = np.abs(standardised) <= np.abs(standardised.T)
        symmetric = np.where(smaller, standardised, standardised.T)
        scale = X.std(axis=0)
        self.precision_ = symmetric / np.outer(scale, scale)
        self.adjacency_ = _edges_by_rule(coef, self.rule)
        return self

    def adjacency_path(self, X, alphas) -> np.ndarray:
        """Edges at every penalty of ``alphas``, in one warm-started pass.

        The same edges as fitting a clone with each ``alpha`` in turn (all
        solutions are exact); :class:`StARS` uses it. Nothing is stored on the
        estimator, and no precision is formed (so exact fits do not warn).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data without constant columns.
        alphas : array-like of shape (n_alphas,)
            Positive penalties, in any order.

        Returns
        -------
        adjacency : ndarray of shape (n_alphas, n_features, n_features), bool
        """
        self._validate_params()
        X = check_array(X, dtype=np.float64, ensure_min_samples=2)
        n_samples = X.shape[0]
        Z, constant = standardize_columns(X)
        if np.any(constant):
            raise ValueError(
                "TIGER needs every column to vary; constant columns: "
                f"{np.flatnonzero(constant).tolist()}."
            )
        ddof_factor = np.sqrt(n_samples / (n_samples - 1))
        penalties = np.asarray(alphas, dtype=float) * ddof_factor
        return _edges_along(Z, penalties, self.rule, square_root=True)
