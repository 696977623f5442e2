"""The correlation-thresholding graph (R huge's ``huge.ct``)."""

from numbers import Real

import numpy as np
from scipy import stats
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils import check_array
from sklearn.utils._param_validation import StrOptions

from ..utils._validation import Interval
from ._utils import standardize_columns, validate_samples

# Family-wise level of the "auto" threshold (Bonferroni over all pairs).
_FAMILY_LEVEL = 0.05


def _bonferroni_threshold(n_samples: int, n_features: int) -> float:
    """Smallest |r| significant at family-wise level 0.05 over all pairs.

    Under independence of two Gaussian variables ``t = r sqrt((n - 2) / (1 - r^2))``
    follows Student's t with ``n - 2`` degrees of freedom, exactly; the two-sided
    test of each of the ``p (p - 1) / 2`` pairs is at level
    ``0.05 / (p (p - 1) / 2)``. With fewer than 3 samples every correlation is
    +-1 and no threshold below 1 means anything: 1 (no edge) is returned.
    """
    n_pairs = n_features * (n_features - 1) / 2
    if n_samples < 3 or n_pairs == 0:
        return 1.0
    dof = n_samples - 2
    t = stats.t.isf(_FAMILY_LEVEL / n_pairs / 2.0, dof)
    return float(t / np.sqrt(dof + t**2))


class ThresholdedCorrelation(BaseEstimator):
    """Graph of the sample correlations larger than a threshold in magnitude.

    An edge joins two variables when ``|r_ij| > alpha``, ``r`` the sample
    correlation matrix: R huge's ``huge.ct`` at ``lambda = alpha``. The graph
    estimates marginal dependence (the covariance graph); in a Gaussian model
    with a sparse precision matrix it finds the edges whose variables are
    strongly correlated, plus the indirect ones.

    Parameters
    ----------
    alpha : float in [0, 1) or "auto", default="auto"
        Threshold on ``|r_ij|``. ``"auto"`` is the smallest correlation
        significant at family-wise level 0.05: the exact t-test of
        ``r = 0`` for Gaussian data with a Bonferroni correction over the
        ``p (p - 1) / 2`` pairs. Choose it from the data with :class:`StARS`.

    Attributes
    ----------
    alpha_ : float
        The threshold used (the value of ``"auto"``).
    correlation_ : ndarray of shape (n_features, n_features)
        Sample correlation matrix (0 for a constant column, unit diagonal).
    edge_scores_ : ndarray of shape (n_features, n_features)
        ``|r_ij|`` with a zero diagonal: the ranking this graph thresholds, for
        ROC and PR curves.
    adjacency_ : ndarray of shape (n_features, n_features), bool
        ``|r_ij| > alpha_`` off the diagonal.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.learners import ThresholdedCorrelation
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 4))
    >>> X[:, 1] += X[:, 0]  # only variables 0 and 1 are related
    >>> ThresholdedCorrelation().fit(X).adjacency_.astype(int)
    array([[0, 1, 0, 0],
           [1, 0, 0, 0],
           [0, 0, 0, 0],
           [0, 0, 0, 0]])
    """

    _parameter_constraints: dict = {
        "alpha": [Interval(Real, 0.0, 1.0, closed="left"), StrOptions({"auto"})],
    }

    def __init__(self, alpha="auto"):
        self.alpha = alpha

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Compute the correlations and threshold them.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data; constant columns are left disconnected.
        y : None
            Ignored.

        Returns
        -------
        self : ThresholdedCorrelation
            Fitted estimator.
        """
        X = validate_samples(self, X)
        n_samples, n_features = X.shape
        self.alpha_ = (
            _bonferroni_threshold(n_samples, n_features)
            if self.alpha == "auto"
            else float(self.alpha)
        )
        Z, _ = standardize_columns(X)
        # Clipped: rounding can push a perfect correlation past 1.
        correlation = np.clip(Z.T @ Z / n_samples, -1.0, 1.0)
        np.fill_diagonal(correlation, 1.0)
        self.correlation_ = correlation
        self.edge_scores_ = np.abs(correlation)
        np.fill_diagonal(self.edge_scores_, 0.0)
        self.adjacency_ = self.edge_scores_ > self.alpha_
        return self

    def adjacency_path(self, X, alphas) -> np.ndarray:
        """Edges at every threshold of ``alphas`` from one correlation matrix.

        The same edges as fitting a clone with each ``alpha`` in turn;
        :class:`StARS` uses it. Nothing is stored on the estimator.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data.
        alphas : array-like of shape (n_alphas,)
            Thresholds, in any order.

        Returns
        -------
        adjacency : ndarray of shape (n_alphas, n_features, n_features), bool
        """
        self._validate_params()
        X = check_array(X, dtype=np.float64, ensure_min_samples=2)
        Z, _ = standardize_columns(X)
        scores = np.abs(np.clip(Z.T @ Z / X.shape[0], -1.0, 1.0))
        np.fill_diagonal(scores, 0.0)
        thresholds = np.asarray(alphas, dtype=float)
        return scores[None, :, :] > thresholds[:, None, None]
