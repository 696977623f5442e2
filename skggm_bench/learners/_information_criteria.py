"""Penalty selection by information criteria: EBIC (Foygel & Drton 2010) and RIC."""

from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, MetaEstimatorMixin, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods

from ..metrics import fitted_learner, precision_from_estimator
from ..utils._validation import RANDOM_STATE, Interval
from ._penalty_search import (
    PENALTY_WITHOUT_PAIRS,
    SEARCH_PARAMETER_CONSTRAINTS,
    ProtocolAttributesMixin,
    check_tuned_parameter,
    fit_at,
    penalty_grid,
    precision_path,
)
from ._utils import standardize_columns, validate_samples


def _likelihood_precision(fitted, X: np.ndarray) -> np.ndarray | None:
    """The ``precision_`` of a fit on the scale of ``X``; None if it has none.

    A learner is read as it is. One reached through a Pipeline or a fitted
    search has its precision mapped back through the pipeline's rescaling
    steps (:func:`~skggm_bench.metrics.precision_from_estimator`): the
    likelihood is that of ``X``, not of the data as the steps transformed it.
    """
    learner, _ = fitted_learner(fitted)
    if learner is fitted:
        return getattr(fitted, "precision_", None)
    if getattr(learner, "precision_", None) is None:
        return None
    return precision_from_estimator(fitted, X=X)


def gaussian_ebic(
    precision: np.ndarray, covariance: np.ndarray, n_samples: int, gamma: float
) -> float:
    """Extended BIC of a Gaussian graphical model (Foygel & Drton 2010).

    ``-n (log det K - tr(S K)) + |E| (log n + 4 gamma log p)``: minus twice the
    log-likelihood (constants dropped) of the precision ``K`` at the sample
    covariance ``S``, plus the penalty of its ``|E|`` edges (non-zero entries
    above the diagonal). ``inf`` when ``K`` is not positive definite.

    Parameters
    ----------
    precision : ndarray of shape (p, p)
        Estimated precision matrix ``K``.
    covariance : ndarray of shape (p, p)
        Sample covariance ``S`` (denominator ``n``) of the data ``K`` is judged on.
    n_samples : int
        ``n``.
    gamma : float
        EBIC parameter in [0, 1]; 0 gives the ordinary BIC.

    Returns
    -------
    ebic : float

    Examples
    --------
    >>> import numpy as np
    >>> K = np.array([[2.0, -0.5], [-0.5, 1.0]])
    >>> S = np.linalg.inv(K)
    >>> value = gaussian_ebic(K, S, n_samples=100, gamma=0.5)
    >>> expected = -100 * (np.log(1.75) - 2) + np.log(100) + 2 * np.log(2)
    >>> bool(np.isclose(value, expected))
    True
    """
    sign, logdet = np.linalg.slogdet(precision)
    if sign <= 0:
        return np.inf
    n_features = precision.shape[0]
    n_edges = np.count_nonzero(np.triu(precision, k=1))
    log_likelihood = logdet - np.sum(covariance * precision)
    penalty = np.log(n_samples) + 4.0 * gamma * np.log(n_features)
    return float(-n_samples * log_likelihood + n_edges * penalty)


class EBIC(ProtocolAttributesMixin, MetaEstimatorMixin, BaseEstimator):
    """Penalty of a Gaussian-likelihood graph learner by the extended BIC.

    The learner is fitted on all samples at every penalty of a grid; each
    fit's precision matrix ``K`` is scored by::

        EBIC = -n (log det K - tr(S K)) + |E| (log n + 4 gamma log p)

    (Foygel & Drton 2010), ``S`` the sample covariance of ``X`` (denominator
    ``n``) and ``|E|`` the number of non-zero entries of ``K`` above the
    diagonal; the fit with the smallest EBIC is kept. A fit whose precision is
    not positive definite has no likelihood and is never chosen. ``gamma = 0``
    is the BIC; ``0.5`` is the paper's recommendation for ``p`` comparable to
    ``n``.

    With the graphical lasso of R huge on standardised data this is
    ``huge.select(criterion = "ebic", ebic.gamma = gamma)``, up to one
    difference: huge takes the likelihood of a variable without edges as if its
    precision were ``1 / S_ii``, not the penalised value the fit returns.

    For scikit-learn's ``GraphicalLasso`` the criterion is computed from the
    exact solutions along the whole grid (the screened, warm-started solver
    StARS uses), and the learner itself is fitted at the chosen penalty; any
    other learner is fitted at every penalty.

    Parameters
    ----------
    estimator : estimator
        Learner with the penalty parameter ``param`` exposing ``precision_``
        (e.g. scikit-learn's ``GraphicalLasso``, :class:`TIGER`,
        :class:`CLIME`), in the units of the ``X`` it is fitted on.
    param : str, default="alpha"
        Name of the penalty parameter.
    alphas : int or array-like, default=10
        Penalties to try; an int gives R huge's default path (see
        :class:`StARS`).
    alpha_min_ratio : float in (0, 1), default=0.1
        Smallest penalty of an automatic grid relative to its largest.
    gamma : float in [0, 1], default=0.5
        EBIC parameter.
    n_jobs : int or None, default=None
        Penalties fitted in parallel (joblib); the result does not depend on it.

    Attributes
    ----------
    alphas_ : ndarray of shape (n_alphas,)
        The penalties tried, largest first.
    criterion_ : ndarray of shape (n_alphas,)
        EBIC of each fit (``inf`` where the precision is not positive definite).
    best_index_ : int
        Position of the chosen penalty in ``alphas_``.
    alpha_ : float
        The chosen penalty.
    best_estimator_ : estimator
        The fit at ``alpha_``.
    adjacency_, precision_, partial_correlation_, covariance_, edge_scores_ : ndarray
        Those of ``best_estimator_`` that it has.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    StARS, RIC : other penalty selections.

    References
    ----------
    Foygel, R. and Drton, M. (2010). Extended Bayesian information criteria for
    Gaussian graphical models. Advances in Neural Information Processing
    Systems 23.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.covariance import GraphicalLasso
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from skggm_bench.learners import EBIC
    >>> rng = np.random.default_rng(0)
    >>> precision = np.eye(20) - 0.4 * (np.eye(20, k=1) + np.eye(20, k=-1))
    >>> X = rng.multivariate_normal(np.zeros(20), np.linalg.inv(precision), size=200)
    >>> glasso = GraphicalLasso(enet_tol=1e-6)
    >>> ebic = make_pipeline(StandardScaler(), EBIC(glasso)).fit(X)[-1]
    >>> edges = ebic.precision_ != 0
    >>> found = np.diag(edges, k=1)  # the 19 true edges
    >>> int(found.sum()), (int(edges.sum()) - 20) // 2 - int(found.sum())
    (19, 13)
    """

    _parameter_constraints: dict = {
        **SEARCH_PARAMETER_CONSTRAINTS,
        "gamma": [Interval(Real, 0.0, 1.0, closed="both")],
    }

    def __init__(
        self,
        estimator,
        param="alpha",
        alphas=10,
        alpha_min_ratio=0.1,
        gamma=0.5,
        n_jobs=None,
    ):
        self.estimator = estimator
        self.param = param
        self.alphas = alphas
        self.alpha_min_ratio = alpha_min_ratio
        self.gamma = gamma
        self.n_jobs = n_jobs

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y=None):
        """Fit the learner along the grid and keep the fit of smallest EBIC.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : None
            Ignored.

        Returns
        -------
        self : EBIC
            Fitted estimator.
        """
        X = validate_samples(self, X)
        check_tuned_parameter(self.estimator, self.param)
        n_samples = X.shape[0]
        alphas = penalty_grid(X, self.alphas, self.alpha_min_ratio)
        precisions = precision_path(self.estimator, self.param, alphas, X)
        fits = None
        if precisions is None:
            fits = Parallel(n_jobs=self.n_jobs)(
                delayed(fit_at)(self.estimator, self.param, a, X) for a in alphas
            )
            precisions = [_likelihood_precision(fitted, X) for fitted in fits]
        centred = X - X.mean(axis=0)
        covariance = centred.T @ centred / n_samples
        criterion = np.empty(alphas.size)
        for k, precision in enumerate(precisions):
            if precision is None:
                raise TypeError(
                    f"EBIC needs a likelihood, i.e. precision_, which "
                    f"{fitted_learner(fits[k])[1]} does not expose."
                )
            criterion[k] = gaussian_ebic(precision, covariance, n_samples, self.gamma)
        if not np.any(np.isfinite(criterion)):
            raise ValueError(
                "No fit along the grid has a positive definite precision matrix, "
                "so EBIC is undefined everywhere."
            )
        self.alphas_ = alphas
        self.criterion_ = criterion
        self.best_index_ = int(np.argmin(criterion))
        self.alpha_ = float(alphas[self.best_index_])
        if fits is None:
            best = fit_at(self.estimator, self.param, self.alpha_, X)
        else:
            best = fits[self.best_index_]
        self._expose(best)
        return self


class RIC(ProtocolAttributesMixin, MetaEstimatorMixin, BaseEstimator):
    """Penalty of a graph learner by the rotation information criterion (RIC).

    Lysen (2009), as in R huge's ``huge.select(criterion = "ric")``: rotating
    the rows of every column by the same random shift breaks the dependence
    between variables while keeping their marginal distributions. For shift
    ``r`` let ``m_r`` be the largest absolute cross-product
    ``|sum_t z_{(t + r) mod n, j} z_{t, k}| / n`` over pairs ``j != k`` of the
    standardised columns; the penalty is the smallest ``m_r`` over
    ``n_rotations`` shifts, the largest correlation that pure noise still
    produces. The learner is fitted on all samples at that penalty (on the
    lasso scale of :class:`NeighbourhoodSelection`).

    huge applies the rotations to the data as given; they are applied here to
    the standardised columns, so the penalty does not depend on the units.

    Parameters
    ----------
    estimator : estimator
        Learner with the penalty parameter ``param``.
    param : str, default="alpha"
        Name of the penalty parameter.
    n_rotations : int, default=20
        Number of distinct random shifts in ``1 .. n - 1``; with
        ``n_rotations >= n - 1`` every shift is used and the result is
        deterministic.
    random_state : int, RandomState instance or None, default=None
        Seeds the shifts.

    Attributes
    ----------
    rotations_ : ndarray of shape (n_used,)
        The shifts used.
    criterion_ : ndarray of shape (n_used,)
        ``m_r`` of each shift.
    alpha_ : float
        The chosen penalty, ``min(criterion_)``.
    best_estimator_ : estimator
        The learner fitted at ``alpha_``.
    adjacency_, precision_, partial_correlation_, covariance_, edge_scores_ : ndarray
        Those of ``best_estimator_`` that it has.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    StARS, EBIC : other penalty selections.

    References
    ----------
    Lysen, S. (2009). Permuted inclusion criterion: a variable selection
    technique. PhD thesis, University of Pennsylvania.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.learners import NeighbourhoodSelection, RIC
    >>> rng = np.random.default_rng(0)
    >>> precision = np.eye(20) - 0.4 * (np.eye(20, k=1) + np.eye(20, k=-1))
    >>> X = rng.multivariate_normal(np.zeros(20), np.linalg.inv(precision), size=200)
    >>> ric = RIC(NeighbourhoodSelection(), random_state=0).fit(X)
    >>> found = np.diag(ric.adjacency_, k=1)  # the 19 true edges
    >>> int(found.sum()), int(ric.adjacency_.sum()) // 2 - int(found.sum())
    (19, 2)
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit"])],
        "param": [str],
        "n_rotations": [Interval(Integral, 1, None, closed="left")],
        "random_state": RANDOM_STATE,
    }

    def __init__(self, estimator, param="alpha", n_rotations=20, random_state=None):
        self.estimator = estimator
        self.param = param
        self.n_rotations = n_rotations
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y=None):
        """Compute the rotated maxima, choose the penalty, fit the learner.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : None
            Ignored.

        Returns
        -------
        self : RIC
            Fitted estimator.
        """
        X = validate_samples(self, X)
        check_tuned_parameter(self.estimator, self.param)
        n_samples = X.shape[0]
        Z, _ = standardize_columns(X)
        shifts = np.arange(1, n_samples)
        if self.n_rotations < shifts.size:
            rng = check_random_state(self.random_state)
            shifts = rng.choice(shifts, size=self.n_rotations, replace=False)
        maxima = np.empty(shifts.size)
        for k, shift in enumerate(shifts):
            # Row t of the rotated matrix is row (t + shift) mod n of Z.
            cross = np.roll(Z, -shift, axis=0).T @ Z / n_samples
            np.fill_diagonal(cross, 0.0)
            maxima[k] = np.abs(cross).max()
        self.rotations_ = shifts
        self.criterion_ = maxima
        alpha = float(maxima.min())
        if alpha <= 0:  # no pair of varying columns: any penalty is the same
            alpha = PENALTY_WITHOUT_PAIRS
        self.alpha_ = alpha
        self._expose(fit_at(self.estimator, self.param, self.alpha_, X))
        return self
