"""The nonparanormal transformation: each column to normal scores of its ranks.

Liu, Lafferty & Wasserman (2009), *The nonparanormal: semiparametric estimation of
high dimensional undirected graphs*, JMLR 10:2295-2328. If ``X_j = f_j(Z_j)`` with
``Z ~ N(0, Sigma)`` and ``f_j`` increasing, ``Phi^{-1}(F_j(X_j)) = Z_j / s_j``; the
empirical CDF, kept away from 0 and 1, gives a consistent plug-in. Any Gaussian
learner placed after :class:`NonparanormalTransformer` in a pipeline then estimates
the latent graph.
"""

from numbers import Real

import numpy as np
from scipy import special
from sklearn.base import (
    BaseEstimator,
    OneToOneFeatureMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from ..utils._validation import Interval
from ._utils import validate_samples


def liu_truncation(n_samples: int) -> float:
    """The truncation level ``delta_n = 1 / (4 n^{1/4} sqrt(pi log n))``.

    Liu, Lafferty & Wasserman (2009), eq. (11): the empirical CDF is clipped to
    ``[delta_n, 1 - delta_n]`` before the normal quantile is taken, which trades
    a little bias in the tails for a bounded variance. It is also ``huge.npn``'s
    default ``npn.thresh``.

    Parameters
    ----------
    n_samples : int >= 2
        Number of training samples.

    Returns
    -------
    float
        ``delta_n``, in (0, 0.5).

    Examples
    --------
    >>> from skggm_bench.learners import liu_truncation
    >>> round(liu_truncation(100), 5)
    0.02078
    """
    if n_samples < 2:
        raise ValueError(f"the truncation level needs n_samples >= 2, got {n_samples}")
    return float(1.0 / (4.0 * n_samples**0.25 * np.sqrt(np.pi * np.log(n_samples))))


class NonparanormalTransformer(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Map each column to normal scores of its empirical CDF (nonparanormal).

    ``fit`` stores the sorted training values of every column. ``transform``
    computes, for each value ``x`` of column ``j``, the empirical CDF with ties
    (and values between training points) at mid-rank,

    ``F(x) = (#{train < x} + #{train <= x} + 1) / (2 n)``,

    which is ``rank / n`` with average ranks on the training data, then

    - ``method="truncation"``: ``Phi^{-1}(clip(F, delta, 1 - delta))`` with
      ``delta`` = :func:`liu_truncation` ``(n)`` unless given;
    - ``method="shrinkage"``: ``Phi^{-1}(F n / (n + 1))``, i.e. ``rank / (n + 1)``;

    and divides by the standard deviation (``ddof=1``) of the scores of ``n``
    distinct values, so that a column without ties has unit variance. On the
    training data this is ``huge.npn(x, npn.func=method)`` of R's huge package,
    which divides by the standard deviation of its *first* transformed column
    instead: the two agree whenever that column has no ties, and ours does not
    depend on the order of the columns.

    Put it before a Gaussian learner, e.g.
    ``make_pipeline(NonparanormalTransformer(), GraphicalLasso())``: under the
    nonparanormal model (increasing transforms of a latent Gaussian, see
    :class:`skggm_bench.datasets.Nonparanormal`) the scores are close to the
    standardised latent Gaussian, whose graph is the target.

    Parameters
    ----------
    method : {"truncation", "shrinkage"}, default="truncation"
        How the empirical CDF is kept inside (0, 1).
    truncation : float in (0, 0.5) or None, default=None
        ``delta`` of ``method="truncation"``; ``None`` means
        :func:`liu_truncation` of the number of training samples. Ignored by
        ``"shrinkage"``.

    Attributes
    ----------
    quantiles_ : ndarray of shape (n_samples_fit, n_features)
        The training values, sorted within each column.
    truncation_ : float or None
        The ``delta`` used (``None`` for ``"shrinkage"``).
    scale_ : float
        The standard deviation the scores are divided by.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    skggm_bench.learners.RankCorrelationAdapter : The rank-correlation route to the
        same latent correlations (SKEPTIC).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.covariance import GraphicalLasso
    >>> from sklearn.pipeline import make_pipeline
    >>> from skggm_bench.learners import NonparanormalTransformer
    >>> X = np.exp(np.random.default_rng(0).standard_normal((200, 3)))
    >>> scores = NonparanormalTransformer().fit_transform(X)
    >>> order = np.argsort(X, axis=0)                  # scores increase with X
    >>> bool(np.all(np.diff(np.take_along_axis(scores, order, axis=0), axis=0) >= 0))
    True
    >>> round(float(scores[:, 0].std(ddof=1)), 6)
    1.0
    >>> model = make_pipeline(NonparanormalTransformer(), GraphicalLasso(0.1)).fit(X)
    >>> model[-1].precision_.shape
    (3, 3)
    """

    _parameter_constraints: dict = {
        "method": [StrOptions({"truncation", "shrinkage"})],
        "truncation": [Interval(Real, 0, 0.5, closed="neither"), None],
    }

    def __init__(self, method="truncation", truncation=None):
        self.method = method
        self.truncation = truncation

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Store the sorted training columns.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, at least two samples, no missing values.
        y : None
            Ignored.

        Returns
        -------
        self : NonparanormalTransformer
            Fitted transformer.
        """
        X = validate_samples(self, X)
        n_samples = X.shape[0]
        self.quantiles_ = np.sort(X, axis=0)
        if self.method == "truncation":
            self.truncation_ = (
                liu_truncation(n_samples)
                if self.truncation is None
                else self.truncation
            )
        else:
            self.truncation_ = None
        distinct = self._scores(np.arange(1, n_samples + 1) / n_samples, n_samples)
        self.scale_ = float(np.std(distinct, ddof=1))
        return self

    def _scores(self, cdf: np.ndarray, n_samples: int) -> np.ndarray:
        if self.truncation_ is None:
            return special.ndtri(cdf * n_samples / (n_samples + 1))
        return special.ndtri(np.clip(cdf, self.truncation_, 1.0 - self.truncation_))

    def transform(self, X):
        """Normal scores of ``X`` under the training columns' empirical CDFs.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data with the training features, no missing values.

        Returns
        -------
        X_scores : ndarray of shape (n_samples, n_features)
            Normal scores, increasing in ``X`` within each column.
        """
        check_is_fitted(self)
        X = validate_samples(self, X, reset=False)
        n_fit = self.quantiles_.shape[0]
        counts = np.empty_like(X)
        # One binary search per column: O(n log n_fit) each, no (n, n_fit) matrix.
        for j, column in enumerate(self.quantiles_.T):
            counts[:, j] = np.searchsorted(column, X[:, j], side="left")
            counts[:, j] += np.searchsorted(column, X[:, j], side="right")
        cdf = (counts + 1.0) / (2.0 * n_fit)
        return self._scores(cdf, n_fit) / self.scale_
