"""Schäfer–Strimmer shrinkage correlation and its partial correlations (corpcor)."""

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, _fit_context

from ..utils._validation import Interval
from ._edges import LFDR_PARAMETER_CONSTRAINTS, LocalFDREdgesMixin
from ._partial_correlation import partial_correlation_from_precision
from ._utils import standardize_columns, validate_samples


def shrinkage_intensity(X) -> float:
    """Analytic optimal shrinkage intensity of the correlation matrix towards identity.

    Schäfer & Strimmer (2005, SAGMB 4:32), target "D" on the correlation scale:
    ``lambda = sum_{i != j} Var(r_ij) / sum_{i != j} r_ij^2``, clipped to
    ``[0, 1]``, where ``r_ij`` are sample correlations and ``Var(r_ij)`` their
    unbiased empirical variance ``n / (n - 1)^3 * sum_k (w_kij - mean_k w_kij)^2``
    with ``w_kij = z_ki z_kj`` on columns standardised with ``ddof=1``. This is the
    value of corpcor's ``estimate.lambda`` (unweighted samples).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data, at least 3 samples.

    Returns
    -------
    lambda : float
        Shrinkage intensity in ``[0, 1]`` (1 for a single feature).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).standard_normal((30, 50))
    >>> lam = shrinkage_intensity(X)
    >>> bool(0.5 < lam <= 1.0)  # independent data, n < p: heavy shrinkage
    True
    """
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must be two-dimensional, got shape {X.shape}.")
    n_samples, n_features = X.shape
    if n_features == 1:
        return 1.0
    if n_samples < 3:
        raise ValueError(
            f"The shrinkage intensity needs at least 3 samples, got {n_samples}."
        )
    Z, _ = standardize_columns(X, ddof=1)
    off_diagonal = ~np.eye(n_features, dtype=bool)
    mean_products = (Z.T @ Z) / n_samples  # mean_k w_kij
    mean_squared_products = ((Z**2).T @ Z**2) / n_samples  # mean_k w_kij^2
    # sum_k (w - mean w)^2 = n (mean w^2 - (mean w)^2); r = n / (n - 1) mean w
    # => Var(r) / r^2 summed: sum(mean w^2 - (mean w)^2) / ((n - 1) sum (mean w)^2)
    squared_signal = np.sum(mean_products[off_diagonal] ** 2)
    if squared_signal == 0.0:
        return 1.0
    spread = np.sum(mean_squared_products[off_diagonal]) - squared_signal
    return float(np.clip(spread / squared_signal / (n_samples - 1), 0.0, 1.0))


def _pseudo_inverse_spd(matrix: np.ndarray) -> np.ndarray:
    """Inverse of a symmetric PSD matrix (pseudo-inverse if singular)."""
    eigenvalues, eigenvectors = np.linalg.eigh(matrix)
    tolerance = eigenvalues.max() * matrix.shape[0] * np.finfo(float).eps
    inverse_values = np.where(eigenvalues > tolerance, 1.0 / eigenvalues, 0.0)
    inverse = (eigenvectors * inverse_values) @ eigenvectors.T
    return (inverse + inverse.T) / 2.0


class ShrinkagePartialCorrelation(LocalFDREdgesMixin, BaseEstimator):
    """Shrinkage partial correlations (corpcor's ``pcor.shrink``) with local-fdr edges.

    The sample correlation matrix ``R`` is shrunk towards the identity,
    ``R* = (1 - lambda) R + lambda I`` with the analytic optimal intensity of
    Schäfer & Strimmer (2005); partial correlations come from ``inv(R*)``.
    Edges are the partial correlations with local false discovery rate below
    ``lfdr_threshold`` under fdrtool's correlation mixture model (GeneNet's
    rule "prob > 0.8" is ``lfdr_threshold=0.2``).

    Parameters
    ----------
    shrinkage : float in [0, 1] or None, default=None
        Fixed shrinkage intensity; ``None`` estimates it from the data.
    lfdr_threshold : float in (0, 1], default=0.2
        Edges are the pairs with local fdr strictly below this value.
    lfdr_cutoff_method : {"locfdr", "fndr", "pct0"}, default="locfdr"
        How the local fdr picks the central partial correlations that fit the
        null; ``"fndr"`` is fdrtool's (and GeneNet's) default, see
        :func:`~skggm_bench.learners.local_fdr` for why it is not ours.

    Attributes
    ----------
    shrinkage_ : float
        The shrinkage intensity used.
    correlation_ : ndarray of shape (n_features, n_features)
        Shrunk correlation matrix ``R*``.
    covariance_ : ndarray of shape (n_features, n_features)
        ``D^(1/2) R* D^(1/2)`` with ``D`` the sample variances (``ddof=1``);
        the variances themselves are not shrunk.
    precision_ : ndarray of shape (n_features, n_features)
        (Pseudo-)inverse of ``covariance_``.
    partial_correlation_ : ndarray of shape (n_features, n_features)
        Symmetric, zero diagonal.
    lfdr_ : ndarray of shape (n_features, n_features)
        Local fdr of every pair (1 on the diagonal).
    adjacency_ : ndarray of shape (n_features, n_features), bool
        Edge decisions ``lfdr_ < lfdr_threshold``.
    null_proportion_ : float
        Estimated fraction of null pairs (fdrtool's ``eta0``).
    null_kappa_ : float
        Estimated degrees of freedom of the null partial correlations.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    LocalFDRSelector : the same edge rule around any covariance estimator.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.learners import ShrinkagePartialCorrelation
    >>> rng = np.random.default_rng(0)
    >>> precision = np.eye(30) - 0.4 * (np.eye(30, k=1) + np.eye(30, k=-1))
    >>> X = rng.multivariate_normal(np.zeros(30), np.linalg.inv(precision), size=500)
    >>> est = ShrinkagePartialCorrelation().fit(X)
    >>> bool(est.adjacency_[0, 1]), bool(est.adjacency_[0, 5])
    (True, False)
    """

    _parameter_constraints: dict = {
        "shrinkage": [Interval(Real, 0.0, 1.0, closed="both"), None],
        **LFDR_PARAMETER_CONSTRAINTS,
    }

    def __init__(self, shrinkage=None, lfdr_threshold=0.2, lfdr_cutoff_method="locfdr"):
        self.shrinkage = shrinkage
        self.lfdr_threshold = lfdr_threshold
        self.lfdr_cutoff_method = lfdr_cutoff_method

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Estimate the shrunk correlation, partial correlations and edges.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data (at least 3 samples when the intensity is estimated).
        y : None
            Ignored.

        Returns
        -------
        self : ShrinkagePartialCorrelation
            Fitted estimator.
        """
        X = validate_samples(self, X)
        n_samples = X.shape[0]
        shrinkage = (
            shrinkage_intensity(X) if self.shrinkage is None else float(self.shrinkage)
        )
        Z, constant = standardize_columns(X, ddof=1)
        correlation = (1.0 - shrinkage) * (Z.T @ Z) / (n_samples - 1)
        np.fill_diagonal(correlation, 1.0)
        inverse_correlation = _pseudo_inverse_spd(correlation)

        std = np.where(constant, 0.0, X.std(axis=0, ddof=1))
        inv_std = np.where(constant, 0.0, 1.0 / np.where(constant, 1.0, std))
        self.shrinkage_ = shrinkage
        self.correlation_ = correlation
        self.covariance_ = correlation * np.outer(std, std)
        self.precision_ = inverse_correlation * np.outer(inv_std, inv_std)
        self.partial_correlation_ = partial_correlation_from_precision(
            inverse_correlation
        )
        self._select_edges_by_local_fdr()
        return self
