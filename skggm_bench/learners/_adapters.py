"""Local-fdr edge decisions for scikit-learn covariance estimators.

Sparse estimators (``GraphicalLasso``, ``GraphicalLassoCV``) need no adapter:
the harness takes the non-zero pattern of their ``precision_`` as edges. Dense
ones (``LedoitWolf``, ``OAS``, ``EmpiricalCovariance``, ``ShrunkCovariance``)
estimate every partial correlation as non-zero; unwrapped they can only be
scored by ranking metrics, wrapped in :class:`LocalFDRSelector` they decide
edges like the shrinkage learner of Krämer et al. (2009).
"""

from scipy import linalg
from sklearn.base import BaseEstimator, MetaEstimatorMixin, _fit_context, clone
from sklearn.covariance import LedoitWolf
from sklearn.utils._param_validation import HasMethods

from ._edges import LFDR_PARAMETER_CONSTRAINTS, LocalFDREdgesMixin
from ._partial_correlation import partial_correlation_from_precision
from ._utils import validate_samples


class LocalFDRSelector(LocalFDREdgesMixin, MetaEstimatorMixin, BaseEstimator):
    """Edges of a covariance estimator's partial correlations by local fdr.

    Fits ``estimator``, takes its ``precision_`` (or the pseudo-inverse of its
    ``covariance_``), turns it into partial correlations and declares an edge
    where the local false discovery rate under fdrtool's correlation mixture
    is below ``lfdr_threshold``.

    Parameters
    ----------
    estimator : estimator with ``precision_`` or ``covariance_``, default=None
        The covariance estimator to wrap (cloned at fit). ``None`` means
        :class:`sklearn.covariance.LedoitWolf`. ``EmpiricalCovariance`` only
        makes sense with more samples than features.
    lfdr_threshold : float in (0, 1], default=0.2
        Edges are the pairs with local fdr strictly below this value.
    lfdr_cutoff_method : {"locfdr", "fndr", "pct0"}, default="locfdr"
        How the local fdr picks the central partial correlations that fit the
        null; ``"fndr"`` is fdrtool's (and GeneNet's) default, see
        :func:`~skggm_bench.learners.local_fdr` for why it is not ours.

    Attributes
    ----------
    estimator_ : estimator
        The fitted clone of ``estimator``.
    precision_ : ndarray of shape (n_features, n_features)
        Precision matrix of the fitted estimator.
    covariance_ : ndarray of shape (n_features, n_features)
        Covariance matrix of the fitted estimator (when it has one).
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
    >>> from sklearn.covariance import OAS
    >>> from skggm_bench.learners import LocalFDRSelector
    >>> rng = np.random.default_rng(0)
    >>> precision = np.eye(30) - 0.4 * (np.eye(30, k=1) + np.eye(30, k=-1))
    >>> X = rng.multivariate_normal(np.zeros(30), np.linalg.inv(precision), size=500)
    >>> sel = LocalFDRSelector(OAS()).fit(X)
    >>> bool(sel.adjacency_[0, 1]), bool(sel.adjacency_[0, 5])
    (True, False)
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit"]), None],
        **LFDR_PARAMETER_CONSTRAINTS,
    }

    def __init__(self, estimator=None, lfdr_threshold=0.2, lfdr_cutoff_method="locfdr"):
        self.estimator = estimator
        self.lfdr_threshold = lfdr_threshold
        self.lfdr_cutoff_method = lfdr_cutoff_method

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y=None):
        """Fit the wrapped estimator and decide the edges.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : None
            Ignored.

        Returns
        -------
        self : LocalFDRSelector
            Fitted estimator.
        """
        X = validate_samples(self, X)
        estimator = LedoitWolf() if self.estimator is None else clone(self.estimator)
        estimator.fit(X)
        precision = getattr(estimator, "precision_", None)
        covariance = getattr(estimator, "covariance_", None)
        if precision is None:
            if covariance is None:
                raise TypeError(
                    f"{type(estimator).__name__} exposes neither precision_ nor "
                    "covariance_ after fit; LocalFDRSelector needs one of them."
                )
            precision = linalg.pinvh(covariance)
        self.estimator_ = estimator
        self.precision_ = precision
        if covariance is not None:
            self.covariance_ = covariance
        self.partial_correlation_ = partial_correlation_from_precision(precision)
        self._select_edges_by_local_fdr()
        return self
