"""StARS: stability approach to regularisation selection (Liu, Roeder & Wasserman)."""

from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, MetaEstimatorMixin, _fit_context
from sklearn.utils import check_random_state

from ..utils._validation import RANDOM_STATE, Interval
from ._penalty_search import (
    SEARCH_PARAMETER_CONSTRAINTS,
    ProtocolAttributesMixin,
    check_tuned_parameter,
    edge_path,
    fit_at,
    penalty_grid,
)
from ._utils import validate_samples

# R huge's subsample size: 80 % of the samples up to n = 144, 10 sqrt(n) above
# (the two agree at n = 156.25; huge switches at 144).
_HUGE_SMALL_SAMPLE = 144
_HUGE_SMALL_FRACTION = 0.8
_HUGE_ROOT_FACTOR = 10.0


def huge_subsample_size(n_samples: int) -> int:
    """Subsample size of R huge's ``huge.select(criterion = "stars")``.

    ``floor(0.8 n)`` for ``n <= 144``, ``floor(10 sqrt(n))`` above, at least 2.

    Parameters
    ----------
    n_samples : int
        Number of samples.

    Returns
    -------
    size : int

    Examples
    --------
    >>> huge_subsample_size(100), huge_subsample_size(200), huge_subsample_size(10_000)
    (80, 141, 1000)
    """
    if n_samples > _HUGE_SMALL_SAMPLE:
        # huge computes n * (10 sqrt(n) / n); the same rounding here.
        size = np.floor(
            n_samples * (_HUGE_ROOT_FACTOR * np.sqrt(n_samples) / n_samples)
        )
    else:
        size = np.floor(n_samples * _HUGE_SMALL_FRACTION)
    return int(min(max(size, 2), n_samples))


class StARS(ProtocolAttributesMixin, MetaEstimatorMixin, BaseEstimator):
    """Penalty of a graph learner by StARS (Liu, Roeder & Wasserman 2010).

    The learner is fitted at every penalty of a grid on ``n_subsamples``
    random subsamples (without replacement) of ``subsample_size`` samples.
    With ``theta_e`` the fraction of subsamples that select edge ``e``, the
    instability of a penalty is the mean over pairs of ``2 theta_e (1 -
    theta_e)`` (0 when every subsample agrees, 0.5 at most). Walking from the
    sparsest graph down the grid, the instability is made monotone (its running
    maximum) and the smallest penalty whose monotone instability is at most
    ``beta`` is chosen; the learner is then refitted on all samples there.

    This is R huge's ``huge.select(criterion = "stars")`` with
    ``stars.thresh = 2 * beta`` (huge reports ``4 theta (1 - theta)``, twice
    the paper's instability) and ``rep.num = n_subsamples``, with one
    difference: when no penalty reaches ``beta``, huge returns the sparsest
    graph, the paper's rule (followed here) the densest.

    Parameters
    ----------
    estimator : estimator
        Graph learner with the penalty parameter ``param``, exposing
        ``adjacency_`` or ``precision_`` after fit (cloned, never modified).
        When ``param="alpha"``, each subsample's whole path is followed in one
        pass, with the same edges as separate fits, by a learner with a method
        ``adjacency_path(X, alphas)`` (those of this package; CLIME's is a
        parametric simplex) and for scikit-learn's ``GraphicalLasso`` itself (an
        exact screened, warm-started solver on its empirical covariance); any
        other learner is fitted at every penalty and subsample.
    param : str, default="alpha"
        Name of the penalty parameter (``"step__alpha"`` inside a pipeline).
    alphas : int or array-like, default=10
        Penalties to try. An int ``k``: ``k`` values log-spaced from the largest
        absolute sample correlation down to ``alpha_min_ratio`` times it, R
        huge's default path, right for penalties on the correlation scale (all
        learners of this package; standardise the data first for scikit-learn's
        ``GraphicalLasso``, see the examples).
    alpha_min_ratio : float in (0, 1), default=0.1
        Smallest penalty of an automatic grid relative to its largest.
    beta : float in (0, 0.5), default=0.05
        Largest accepted instability (the paper's value).
    n_subsamples : int, default=20
        Number of subsamples.
    subsample_size : int, float or None, default=None
        Samples per subsample: an int (at least 2), a fraction of ``n_samples``
        in (0, 1), or ``None`` for R huge's rule, ``floor(0.8 n)`` for
        ``n <= 144`` and ``floor(10 sqrt(n))`` above (the paper's
        ``b = 10 sqrt(n)``, capped for small samples).
    n_jobs : int or None, default=None
        Subsamples fitted in parallel (joblib). The subsamples are drawn before
        any fit, so the result does not depend on ``n_jobs``.
    random_state : int, RandomState instance or None, default=None
        Seeds the subsamples. A learner with its own randomness keeps its own
        ``random_state`` (fix it too for reproducible results).

    Attributes
    ----------
    alphas_ : ndarray of shape (n_alphas,)
        The penalties tried, largest first.
    criterion_ : ndarray of shape (n_alphas,)
        Instability of each penalty.
    edge_frequencies_ : ndarray of shape (n_alphas, n_features, n_features)
        Fraction of subsamples selecting each edge.
    subsample_size_ : int
        Samples per subsample.
    best_index_ : int
        Position of the chosen penalty in ``alphas_``.
    alpha_ : float
        The chosen penalty.
    best_estimator_ : estimator
        The learner refitted on all samples at ``alpha_``.
    adjacency_, precision_, partial_correlation_, covariance_, edge_scores_ : ndarray
        Those of ``best_estimator_`` that it has.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    EBIC, RIC : other penalty selections.

    References
    ----------
    Liu, H., Roeder, K. and Wasserman, L. (2010). Stability approach to
    regularization selection (StARS) for high dimensional graphical models.
    Advances in Neural Information Processing Systems 23.

    Examples
    --------
    Neighbourhood selection, penalty by StARS:

    >>> import numpy as np
    >>> from skggm_bench.learners import NeighbourhoodSelection, StARS
    >>> rng = np.random.default_rng(0)
    >>> precision = np.eye(20) - 0.4 * (np.eye(20, k=1) + np.eye(20, k=-1))
    >>> X = rng.multivariate_normal(np.zeros(20), np.linalg.inv(precision), size=200)
    >>> stars = StARS(NeighbourhoodSelection(), random_state=0).fit(X)
    >>> found = np.diag(stars.adjacency_, k=1)  # the 19 true edges
    >>> int(found.sum()), int(stars.adjacency_.sum()) // 2 - int(found.sum())
    (19, 5)

    The graphical lasso of scikit-learn penalises the covariance matrix, so the
    data are standardised first (the grid is on the correlation scale); its
    inner lasso needs a tighter tolerance than the default to converge on small
    subsamples at small penalties:

    >>> from sklearn.covariance import GraphicalLasso
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> stars = StARS(GraphicalLasso(enet_tol=1e-6), random_state=0)
    >>> glasso = make_pipeline(StandardScaler(), stars)
    >>> precision = glasso.fit(X)[-1].precision_
    >>> int(np.count_nonzero(np.diag(precision, k=1)))  # the 19 true edges
    19
    """

    _parameter_constraints: dict = {
        **SEARCH_PARAMETER_CONSTRAINTS,
        "beta": [Interval(Real, 0.0, 0.5, closed="neither")],
        "n_subsamples": [Interval(Integral, 1, None, closed="left")],
        "subsample_size": [
            Interval(Integral, 2, None, closed="left"),
            Interval(Real, 0.0, 1.0, closed="neither"),
            None,
        ],
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        estimator,
        param="alpha",
        alphas=10,
        alpha_min_ratio=0.1,
        beta=0.05,
        n_subsamples=20,
        subsample_size=None,
        n_jobs=None,
        random_state=None,
    ):
        self.estimator = estimator
        self.param = param
        self.alphas = alphas
        self.alpha_min_ratio = alpha_min_ratio
        self.beta = beta
        self.n_subsamples = n_subsamples
        self.subsample_size = subsample_size
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _resolve_subsample_size(self, n_samples: int) -> int:
        if self.subsample_size is None:
            return huge_subsample_size(n_samples)
        if isinstance(self.subsample_size, Integral):
            if self.subsample_size > n_samples:
                raise ValueError(
                    f"subsample_size={self.subsample_size} exceeds the "
                    f"{n_samples} samples."
                )
            return int(self.subsample_size)
        return int(min(max(np.floor(self.subsample_size * n_samples), 2), n_samples))

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y=None):
        """Fit the learner on the subsamples, choose the penalty, refit.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : None
            Ignored.

        Returns
        -------
        self : StARS
            Fitted estimator.
        """
        X = validate_samples(self, X)
        check_tuned_parameter(self.estimator, self.param)
        n_samples, n_features = X.shape
        alphas = penalty_grid(X, self.alphas, self.alpha_min_ratio)
        size = self._resolve_subsample_size(n_samples)
        rng = check_random_state(self.random_state)
        subsamples = [
            rng.choice(n_samples, size=size, replace=False)
            for _ in range(self.n_subsamples)
        ]
        paths = Parallel(n_jobs=self.n_jobs, return_as="generator")(
            delayed(edge_path)(self.estimator, self.param, alphas, X[rows])
            for rows in subsamples
        )
        # Integer counts: the sum is exact in any order.
        counts = np.zeros((alphas.size, n_features, n_features), dtype=np.int64)
        for path in paths:
            counts += path
        frequencies = counts / self.n_subsamples
        rows, cols = np.triu_indices(n_features, k=1)
        pairs = frequencies[:, rows, cols]
        instability = (
            np.mean(2.0 * pairs * (1.0 - pairs), axis=1)
            if rows.size
            else np.zeros(alphas.size)
        )
        accepted = np.flatnonzero(np.maximum.accumulate(instability) <= self.beta)
        self.best_index_ = int(accepted[-1]) if accepted.size else 0
        self.alphas_ = alphas
        self.criterion_ = instability
        self.edge_frequencies_ = frequencies
        self.subsample_size_ = size
        self.alpha_ = float(alphas[self.best_index_])
        self._expose(fit_at(self.estimator, self.param, self.alpha_, X))
        return self
