"""Node-wise regression learners of Krämer, Schäfer & Boulesteix (2009).

Each variable is regressed on all the others (after standardising every
column); the regression coefficients ``b_ij`` give partial correlations
``sign(b_ij) sqrt(b_ij b_ji)`` (0 when the signs disagree). The lasso learners
decide edges by the non-zero pattern; ridge and PLS, whose coefficients are all
non-zero, decide edges by local false discovery rate.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import StrOptions

from ..utils._validation import RANDOM_STATE, Interval
from ._cross_validation import make_folds
from ._edges import LFDR_PARAMETER_CONSTRAINTS, LocalFDREdgesMixin
from ._nodewise_lasso import nodewise_lasso
from ._nodewise_pls import nodewise_pls
from ._nodewise_ridge import nodewise_ridge
from ._partial_correlation import partial_correlation_from_coefficients
from ._utils import standardize_columns, validate_samples

_COMMON_CONSTRAINTS = {
    "cv": ["cv_object"],
    "penalty_selection": [StrOptions({"cv_min", "cv_1se"})],
    "random_state": RANDOM_STATE,
}
_LASSO_CONSTRAINTS = {
    **_COMMON_CONSTRAINTS,
    "n_alphas": [Interval(Integral, 1, None, closed="left")],
    "eps": [Interval(Real, 0.0, 1.0, closed="neither")],
    "rule": [StrOptions({"and", "or"})],
    "tol": [Interval(Real, 0.0, None, closed="neither")],
    "max_iter": [Interval(Integral, 1, None, closed="left")],
}
# parcor's ridge.net grid tops out at 0.1 * p per sample (lambda = 0.1 * n_train * p
# on the X'X scale). The cap matters: a node regressed on pure noise prefers an
# infinite penalty, and nodes shrunk by wildly different factors give partial
# correlations on different scales, which the single null of the local fdr
# then misreads as signal.
_RIDGE_MAX_PENALTY_PER_FEATURE = 0.1
_RIDGE_GRID_DECADES = 6.0


class _NodewiseNetwork(BaseEstimator):
    """Shared ``fit``: validate, standardise, split, regress, pcor, edges."""

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Run the node-wise regressions and decide the edges.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data; every column is centred and scaled to unit variance
            first (constant columns are left disconnected).
        y : None
            Ignored.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        X = validate_samples(self, X)
        Z, constant = standardize_columns(X)
        folds = make_folds(self.cv, X.shape[0], self.random_state)
        coef = self._fit_coefficients(Z, folds)
        # A constant variable explains nothing and is explained by nothing;
        # clear the rounding noise some solvers leave on its all-zero column.
        coef[constant, :] = 0.0
        coef[:, constant] = 0.0
        self.coef_ = coef
        self.partial_correlation_ = partial_correlation_from_coefficients(self.coef_)
        self._decide_edges()
        return self


class _SparseNodewiseNetwork(_NodewiseNetwork):
    """Edges from the lasso's zero pattern: AND with sign agreement, or OR."""

    def _decide_edges(self) -> None:
        if self.rule == "and":
            self.adjacency_ = self.partial_correlation_ != 0
        else:
            selected = self.coef_ != 0
            self.adjacency_ = selected | selected.T
        np.fill_diagonal(self.adjacency_, False)

    def _lasso(self, Z, folds, weights=None, fold_weights=None, penalty_selection=None):
        return nodewise_lasso(
            Z,
            folds,
            weights=weights,
            fold_weights=fold_weights,
            n_alphas=self.n_alphas,
            eps=self.eps,
            penalty_selection=penalty_selection or self.penalty_selection,
            tol=self.tol,
            max_iter=self.max_iter,
        )


class LassoNetwork(_SparseNodewiseNetwork):
    """Node-wise lasso (parcor's ``lasso``), penalty of each node by K-fold CV.

    Every variable is regressed on all others by the lasso along a log grid of
    ``n_alphas`` penalties (coordinate descent with warm starts, or the exact
    piecewise-linear path for nodes with at most 40 predictors and for nodes
    where descent converges slowly); the penalty is chosen per node by K-fold
    cross-validation. Partial correlations are
    ``sign(b_ij) sqrt(b_ij b_ji)``, 0 if the two signs disagree, capped at 1.

    With ``penalty_selection="cv_min"`` (the published method) the chosen
    penalty minimises the CV prediction error, which is known to select too
    many variables for graph recovery (low precision). ``"cv_1se"`` takes the
    largest penalty within one standard error of that minimum instead.

    Parameters
    ----------
    cv : int or cross-validation splitter, default=5
        Number of folds (samples are assigned to folds at random, seeded by
        ``random_state``) or a scikit-learn splitter.
    n_alphas : int, default=100
        Number of penalties per node, log-spaced from the smallest penalty
        giving an empty model down to ``eps`` times it.
    eps : float, default=1e-3
        Ratio of the smallest to the largest penalty of the grid.
    penalty_selection : {"cv_min", "cv_1se"}, default="cv_min"
        Rule choosing the penalty from the CV error curve.
    rule : {"and", "or"}, default="and"
        Edge rule. ``"and"``: an edge where the partial correlation is non-zero,
        i.e. both coefficients are non-zero with the same sign. ``"or"``
        (Meinshausen–Bühlmann): an edge when either coefficient is non-zero
        (its partial correlation may then be 0).
    tol : float, default=1e-4
        Tolerance of coordinate descent (duality gap, as in scikit-learn). It
        does not apply to the nodes solved exactly: those with at most 40
        predictors, and those where descent needs more than 250 sweeps at one
        penalty.
    max_iter : int, default=1000
        Maximum number of coordinate-descent sweeps per penalty.
    random_state : int, RandomState instance or None, default=None
        Seeds the assignment of samples to folds when ``cv`` is an int.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features, n_features)
        ``coef_[i, j]``: coefficient of variable ``j`` when variable ``i`` is
        regressed on the others (standardised scale; zero diagonal).
    alpha_ : ndarray of shape (n_features,)
        Chosen penalty of each node (scikit-learn's lasso scaling).
    cv_errors_ : ndarray of shape (n_features, n_folds, n_alphas)
        Test mean squared error per node, fold and penalty; NaN past the point
        where a node's CV error had clearly passed its minimum and the path was
        stopped (see ``skggm_bench.learners._nodewise_lasso``).
    partial_correlation_ : ndarray of shape (n_features, n_features)
        Symmetric, zero diagonal.
    adjacency_ : ndarray of shape (n_features, n_features), bool
        Edge decisions.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    AdaptiveLassoNetwork : re-weighted second stage, far fewer false edges.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.learners import LassoNetwork
    >>> rng = np.random.default_rng(0)
    >>> precision = np.eye(10) - 0.4 * (np.eye(10, k=1) + np.eye(10, k=-1))
    >>> X = rng.multivariate_normal(np.zeros(10), np.linalg.inv(precision), size=500)
    >>> est = LassoNetwork(random_state=0).fit(X)
    >>> bool(np.all(np.diag(est.adjacency_, k=1)))  # every chain edge found
    True
    """

    _parameter_constraints: dict = _LASSO_CONSTRAINTS

    def __init__(
        self,
        cv=5,
        n_alphas=100,
        eps=1e-3,
        penalty_selection="cv_min",
        rule="and",
        tol=1e-4,
        max_iter=1000,
        random_state=None,
    ):
        self.cv = cv
        self.n_alphas = n_alphas
        self.eps = eps
        self.penalty_selection = penalty_selection
        self.rule = rule
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state

    def _fit_coefficients(self, Z, folds):
        coef, self.alpha_, self.cv_errors_, _ = self._lasso(Z, folds)
        return coef


class AdaptiveLassoNetwork(_SparseNodewiseNetwork):
    """Node-wise adaptive lasso (parcor's ``adalasso``), penalties by K-fold CV.

    Stage 1 is :class:`LassoNetwork` at the CV-minimum penalty. Stage 2 refits
    each node with the weighted penalty ``sum_j |b_j| / |b_j^(1)|``: variables
    with a zero first-stage coefficient are excluded, large first-stage
    coefficients are penalised little. The stage-2 penalty is chosen by K-fold
    CV on the same folds (rule ``penalty_selection``). Partial correlations and
    edges as in :class:`LassoNetwork`.

    Inside the stage-2 cross-validation each fold's weights come from the
    stage-1 lasso fitted on that fold's training samples. With
    ``weight_cv="shared"`` (default) it is taken at the stage-1 penalty chosen
    on all samples, from the stage-1 CV paths (no extra cost). With
    ``weight_cv="nested"`` its penalty is chosen by a stage-1 CV of its own
    inside the fold's training samples (re-standardised), and stage 1 on all
    samples uses folds of its own: parcor's ``adalasso``, at about ``cv + 1``
    times the stage-1 cost. The nested weights vary more from fold to fold, so
    the stage-2 CV error rises faster as the penalty decreases and the chosen
    penalty is larger: on weak, dense signals (GeneNet's
    ``ggm.simulate.pcor(50, etaA=0.2)``, n = 100) "nested" selects about a
    third fewer pairs, as parcor does, and finds fewer true edges at about the
    same precision (docs/learners.md has the comparison).

    Parameters
    ----------
    cv : int or cross-validation splitter, default=5
        Number of folds (random assignment seeded by ``random_state``) or a
        scikit-learn splitter.
    n_alphas : int, default=100
        Number of penalties per node and stage.
    eps : float, default=1e-3
        Ratio of the smallest to the largest penalty of each grid.
    penalty_selection : {"cv_min", "cv_1se"}, default="cv_min"
        Rule of the stage-2 penalty (stage 1 always uses the CV minimum).
    rule : {"and", "or"}, default="and"
        Edge rule, as in :class:`LassoNetwork`.
    tol : float, default=1e-4
        Tolerance of coordinate descent (duality gap, as in scikit-learn). It
        does not apply to the nodes solved exactly: those with at most 40
        predictors, and those where descent needs more than 250 sweeps at one
        penalty.
    max_iter : int, default=1000
        Maximum number of coordinate-descent sweeps per penalty.
    weight_cv : {"shared", "nested"}, default="shared"
        How the stage-2 CV folds get their adaptive weights (see above):
        ``"nested"`` reproduces parcor's ``adalasso``.
    random_state : int, RandomState instance or None, default=None
        Seeds the assignment of samples to folds when ``cv`` is an int.

    Attributes
    ----------
    initial_coef_ : ndarray of shape (n_features, n_features)
        Stage-1 (lasso) coefficients.
    coef_ : ndarray of shape (n_features, n_features)
        Adaptive-lasso coefficients, ``coef_[i, j]`` for variable ``j`` in the
        regression of variable ``i`` (standardised scale).
    alpha_ : ndarray of shape (n_features,)
        Chosen stage-2 penalty of each node, on the re-weighted design whose
        weights ``|b_j^(1)|`` are scaled to a maximum of 1 per node.
    cv_errors_ : ndarray of shape (n_features, n_folds, n_alphas)
        Stage-2 test mean squared errors (NaN past an early stop).
    partial_correlation_ : ndarray of shape (n_features, n_features)
        Symmetric, zero diagonal.
    adjacency_ : ndarray of shape (n_features, n_features), bool
        Edge decisions.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    LassoNetwork : the plain lasso (stage 1).

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.learners import AdaptiveLassoNetwork, LassoNetwork
    >>> rng = np.random.default_rng(0)
    >>> precision = np.eye(10) - 0.4 * (np.eye(10, k=1) + np.eye(10, k=-1))
    >>> X = rng.multivariate_normal(np.zeros(10), np.linalg.inv(precision), size=500)
    >>> ada = AdaptiveLassoNetwork(random_state=0).fit(X)
    >>> lasso = LassoNetwork(random_state=0).fit(X)
    >>> bool(np.all(np.diag(ada.adjacency_, k=1)))  # every chain edge found
    True
    >>> int(ada.adjacency_.sum()) // 2, int(lasso.adjacency_.sum()) // 2  # 9 true edges
    (10, 18)
    """

    _parameter_constraints: dict = {
        **_LASSO_CONSTRAINTS,
        "weight_cv": [StrOptions({"shared", "nested"})],
    }

    def __init__(
        self,
        cv=5,
        n_alphas=100,
        eps=1e-3,
        penalty_selection="cv_min",
        rule="and",
        tol=1e-4,
        max_iter=1000,
        weight_cv="shared",
        random_state=None,
    ):
        self.cv = cv
        self.n_alphas = n_alphas
        self.eps = eps
        self.penalty_selection = penalty_selection
        self.rule = rule
        self.tol = tol
        self.max_iter = max_iter
        self.weight_cv = weight_cv
        self.random_state = random_state

    def _nested_stage_one(self, Z, folds):
        """parcor's stage 1: CV on folds of its own for all samples, and a
        stage-1 CV inside every fold's (re-standardised) training samples."""
        rng = check_random_state(self.random_state)
        own_folds = make_folds(self.cv, Z.shape[0], rng.randint(np.iinfo(np.int32).max))
        initial = self._lasso(Z, own_folds, penalty_selection="cv_min")[0]
        fold_initial = np.zeros((len(folds), *initial.shape))
        for fold, (train, _) in enumerate(folds):
            inner = make_folds(self.cv, train.size, rng.randint(np.iinfo(np.int32).max))
            scale = Z[train].std(axis=0)
            Zt, constant = standardize_columns(Z[train])
            coef = self._lasso(Zt, inner, penalty_selection="cv_min")[0]
            # b_ij on re-standardised columns -> on Z's: times sd_i / sd_j.
            safe = np.where(constant, 1.0, scale)
            fold_initial[fold] = coef * safe[:, None] / safe[None, :]
        return initial, fold_initial

    def _fit_coefficients(self, Z, folds):
        if self.weight_cv == "nested":
            initial, fold_initial = self._nested_stage_one(Z, folds)
        else:
            initial, _, _, fold_initial = self._lasso(
                Z, folds, penalty_selection="cv_min"
            )
        self.initial_coef_ = initial
        # Rescaling column j by |b_j| turns the weighted penalty |b| / |b_j|
        # into a plain lasso penalty; a zero weight removes the column. Each
        # CV fold uses the stage-1 fit of its own training samples (at the
        # stage-1 penalty): weights fitted on the test fold would make its
        # noise variables look predictive and the CV would under-penalise.
        coef, self.alpha_, self.cv_errors_, _ = self._lasso(
            Z, folds, weights=_unit_max(initial), fold_weights=_unit_max(fold_initial)
        )
        return coef


def _unit_max(coef: np.ndarray) -> np.ndarray:
    """``|coef|`` divided by its largest entry per node (last axis).

    The adaptive penalty is unchanged when all weights of a node are scaled
    by a constant (the penalty grid scales with them); scaling the largest to
    1 keeps the reweighted design on the scale of the standardised columns
    instead of shrinking it with tiny first-stage coefficients, which would
    push the penalties towards machine precision.
    """
    magnitude = np.abs(coef)
    largest = magnitude.max(axis=-1, keepdims=True)
    return np.divide(
        magnitude, largest, out=np.zeros_like(magnitude), where=largest > 0
    )


class RidgeNetwork(LocalFDREdgesMixin, _NodewiseNetwork):
    """Node-wise ridge regression (parcor's ``ridge.net``) with local-fdr edges.

    Every variable is regressed on the others by ridge regression with the
    penalty chosen per node by K-fold CV over a log grid; partial correlations
    ``sign(b_ij) sqrt(b_ij b_ji)`` (0 on sign disagreement). Ridge coefficients
    are never exactly zero, so edges are the pairs whose local false discovery
    rate (fdrtool's correlation model) is below ``lfdr_threshold``.

    Parameters
    ----------
    cv : int or cross-validation splitter, default=5
        Number of folds (random assignment seeded by ``random_state``) or a
        scikit-learn splitter.
    alphas : int or array-like, default=50
        Penalty grid, per sample and on standardised columns: node ``i``
        minimises ``||z_i - Z_{-i} b||^2 / n + alpha ||b||^2``. An int ``k``
        means ``k`` values log-spaced over six decades up to parcor's largest
        penalty, ``0.1 * n_features``.
    penalty_selection : {"cv_min", "cv_1se"}, default="cv_min"
        Rule choosing the penalty from the CV error curve.
    lfdr_threshold : float in (0, 1], default=0.2
        Edges are the pairs with local fdr strictly below this value.
    lfdr_cutoff_method : {"locfdr", "fndr", "pct0"}, default="locfdr"
        How the local fdr picks the central partial correlations that fit the
        null; ``"fndr"`` is fdrtool's (and GeneNet's) default, see
        :func:`~skggm_bench.learners.local_fdr` for why it is not ours.
    random_state : int, RandomState instance or None, default=None
        Seeds the assignment of samples to folds when ``cv`` is an int.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features, n_features)
        Ridge coefficients, ``coef_[i, j]`` for variable ``j`` in the regression
        of variable ``i`` (standardised scale; zero diagonal).
    alpha_ : ndarray of shape (n_features,)
        Chosen penalty of each node.
    cv_errors_ : ndarray of shape (n_features, n_folds, n_alphas)
        Test mean squared errors, penalties in decreasing order.
    partial_correlation_ : ndarray of shape (n_features, n_features)
        Symmetric, zero diagonal.
    lfdr_ : ndarray of shape (n_features, n_features)
        Local fdr of every pair (1 on the diagonal).
    adjacency_ : ndarray of shape (n_features, n_features), bool
        Edge decisions ``lfdr_ < lfdr_threshold``.
    null_proportion_ : float
        Estimated fraction of null pairs.
    null_kappa_ : float
        Estimated degrees of freedom of the null partial correlations.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.learners import RidgeNetwork
    >>> rng = np.random.default_rng(0)
    >>> precision = np.eye(30) - 0.4 * (np.eye(30, k=1) + np.eye(30, k=-1))
    >>> X = rng.multivariate_normal(np.zeros(30), np.linalg.inv(precision), size=500)
    >>> est = RidgeNetwork(random_state=0).fit(X)
    >>> bool(est.adjacency_[0, 1]), bool(est.adjacency_[0, 5])
    (True, False)
    """

    _parameter_constraints: dict = {
        **_COMMON_CONSTRAINTS,
        **LFDR_PARAMETER_CONSTRAINTS,
        "alphas": [Interval(Integral, 1, None, closed="left"), "array-like"],
    }

    def __init__(
        self,
        cv=5,
        alphas=50,
        penalty_selection="cv_min",
        lfdr_threshold=0.2,
        lfdr_cutoff_method="locfdr",
        random_state=None,
    ):
        self.cv = cv
        self.alphas = alphas
        self.penalty_selection = penalty_selection
        self.lfdr_threshold = lfdr_threshold
        self.lfdr_cutoff_method = lfdr_cutoff_method
        self.random_state = random_state

    def _penalty_grid(self, n_features: int) -> np.ndarray:
        if isinstance(self.alphas, Integral):
            largest = np.log10(_RIDGE_MAX_PENALTY_PER_FEATURE * n_features)
            return np.logspace(largest - _RIDGE_GRID_DECADES, largest, int(self.alphas))
        grid = np.asarray(self.alphas, dtype=float).ravel()
        if grid.size == 0 or not np.all(np.isfinite(grid)) or np.any(grid <= 0):
            raise ValueError(
                "alphas must be a non-empty array of positive, finite penalties."
            )
        return grid

    def _fit_coefficients(self, Z, folds):
        coef, self.alpha_, self.cv_errors_ = nodewise_ridge(
            Z,
            folds,
            alphas=self._penalty_grid(Z.shape[1]),
            penalty_selection=self.penalty_selection,
        )
        return coef

    def _decide_edges(self) -> None:
        self._select_edges_by_local_fdr()


class PLSNetwork(LocalFDREdgesMixin, _NodewiseNetwork):
    """Node-wise partial least squares (parcor's ``pls.net``) with local-fdr edges.

    Every variable is regressed on the others by PLS1 with 1 to
    ``max_components`` components, the number chosen per node by K-fold CV;
    partial correlations ``sign(b_ij) sqrt(b_ij b_ji)`` (0 on sign
    disagreement); edges by local false discovery rate.

    Parameters
    ----------
    cv : int or cross-validation splitter, default=5
        Number of folds (random assignment seeded by ``random_state``) or a
        scikit-learn splitter.
    max_components : int, default=15
        Largest number of PLS components tried (capped by the training size
        minus one and the number of predictors).
    penalty_selection : {"cv_min", "cv_1se"}, default="cv_min"
        Rule choosing the number of components (fewer is simpler).
    lfdr_threshold : float in (0, 1], default=0.2
        Edges are the pairs with local fdr strictly below this value.
    lfdr_cutoff_method : {"locfdr", "fndr", "pct0"}, default="locfdr"
        How the local fdr picks the central partial correlations that fit the
        null; ``"fndr"`` is fdrtool's (and GeneNet's) default, see
        :func:`~skggm_bench.learners.local_fdr` for why it is not ours.
    random_state : int, RandomState instance or None, default=None
        Seeds the assignment of samples to folds when ``cv`` is an int.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features, n_features)
        PLS coefficients, ``coef_[i, j]`` for variable ``j`` in the regression
        of variable ``i`` (standardised scale; zero diagonal).
    n_components_ : ndarray of shape (n_features,), int
        Chosen number of components of each node.
    cv_errors_ : ndarray of shape (n_features, n_folds, n_components)
        Test mean squared errors for 1, 2, ... components.
    partial_correlation_ : ndarray of shape (n_features, n_features)
        Symmetric, zero diagonal.
    lfdr_ : ndarray of shape (n_features, n_features)
        Local fdr of every pair (1 on the diagonal).
    adjacency_ : ndarray of shape (n_features, n_features), bool
        Edge decisions ``lfdr_ < lfdr_threshold``.
    null_proportion_ : float
        Estimated fraction of null pairs.
    null_kappa_ : float
        Estimated degrees of freedom of the null partial correlations.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.learners import PLSNetwork
    >>> rng = np.random.default_rng(0)
    >>> precision = np.eye(30) - 0.4 * (np.eye(30, k=1) + np.eye(30, k=-1))
    >>> X = rng.multivariate_normal(np.zeros(30), np.linalg.inv(precision), size=500)
    >>> est = PLSNetwork(random_state=0).fit(X)
    >>> bool(est.adjacency_[0, 1]), bool(est.adjacency_[0, 5])
    (True, False)
    """

    _parameter_constraints: dict = {
        **_COMMON_CONSTRAINTS,
        **LFDR_PARAMETER_CONSTRAINTS,
        "max_components": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        cv=5,
        max_components=15,
        penalty_selection="cv_min",
        lfdr_threshold=0.2,
        lfdr_cutoff_method="locfdr",
        random_state=None,
    ):
        self.cv = cv
        self.max_components = max_components
        self.penalty_selection = penalty_selection
        self.lfdr_threshold = lfdr_threshold
        self.lfdr_cutoff_method = lfdr_cutoff_method
        self.random_state = random_state

    def _fit_coefficients(self, Z, folds):
        coef, self.n_components_, self.cv_errors_ = nodewise_pls(
            Z,
            folds,
            max_components=self.max_components,
            penalty_selection=self.penalty_selection,
        )
        return coef

    def _decide_edges(self) -> None:
        self._select_edges_by_local_fdr()
