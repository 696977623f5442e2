"""Rank-based (SKEPTIC) correlation matrices, and an adapter feeding them to learners.

Liu, Han, Yuan, Lafferty & Wasserman (2012), *High-dimensional semiparametric
Gaussian copula graphical models*, Annals of Statistics 40:2293-2326. For a latent
Gaussian observed through increasing transforms (Gaussian copula), the latent
correlation is a known function of a rank correlation:

- Spearman's ``rho_s``: ``Sigma_ij = 2 sin(pi rho_s / 6)``;
- Kendall's ``tau``: ``Sigma_ij = sin(pi tau / 2)``, which also holds for every
  elliptical law (e.g. the multivariate t), hence for transelliptical data.

The plug-in matrix need not be positive definite; it is then replaced by the
nearest correlation matrix (Higham 2002) with eigenvalues at least a small floor.
"""

import numpy as np
from scipy import linalg, stats
from sklearn.base import BaseEstimator, MetaEstimatorMixin, _fit_context, clone
from sklearn.covariance import GraphicalLasso
from sklearn.utils._param_validation import HasMethods, StrOptions, validate_params

from ._utils import validate_samples

# Smallest eigenvalue of a returned correlation matrix: a learner handed a
# "precomputed covariance" may factorise it; 1e-6 keeps the condition number below
# 1e6 p while moving a matrix that is already PD by nothing at all.
_EIGENVALUE_FLOOR = 1e-6
# Alternating projections stop when an iteration moves the matrix by less than this
# (relative Frobenius norm); they converge linearly, so this is reached in tens of
# iterations for the small violations sampling error creates.
_PROJECTION_TOL = 1e-10
_PROJECTION_MAX_ITER = 10_000
# Sign differences of at most this many (row pair, column) entries are held in
# memory at once by the Kendall computation (~32 MB of float64).
_KENDALL_BLOCK_ENTRIES = 4_000_000
# Attributes of the inner learner that the harness reads (the estimator protocol
# of skggm_bench.metrics), exposed by the adapter.
_PROTOCOL_ATTRIBUTES = (
    "adjacency_",
    "precision_",
    "partial_correlation_",
    "covariance_",
)


def _normalise_gram(gram: np.ndarray) -> np.ndarray:
    """``G_ij / sqrt(G_ii G_jj)``, 0 for a column with ``G_jj = 0``, unit diagonal."""
    norms = np.sqrt(np.diag(gram))
    safe = np.where(norms > 0, norms, 1.0)
    correlation = gram / np.outer(safe, safe)
    correlation[norms == 0, :] = 0.0
    correlation[:, norms == 0] = 0.0
    np.fill_diagonal(correlation, 1.0)
    return correlation


def _spearman(X: np.ndarray) -> np.ndarray:
    """Pearson correlation of average ranks (R's ``cor(x, method="spearman")``)."""
    ranks = stats.rankdata(X, axis=0)
    centred = ranks - ranks.mean(axis=0)
    return _normalise_gram(centred.T @ centred)


def _kendall_tau_b(X: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of every pair of columns.

    With ``D`` the matrix of ``sign(x_a - x_b)`` over row pairs ``a < b`` (one
    column per variable), ``D^T D`` holds concordant minus discordant pairs off
    the diagonal and the untied pairs on it, so tau-b is ``D^T D`` normalised to a
    unit diagonal. ``D`` is built and multiplied a block of rows at a time.
    """
    n, p = X.shape
    gram = np.zeros((p, p))
    block = max(1, _KENDALL_BLOCK_ENTRIES // max(1, n * p))
    for start in range(0, n - 1, block):
        stop = min(start + block, n - 1)
        later = X[start + 1 :]
        signs = np.sign(X[start:stop, None, :] - later[None, :, :])
        # Row a = start + i is paired with row b = start + 1 + k for k >= i only.
        keep = np.arange(later.shape[0])[None, :] >= np.arange(stop - start)[:, None]
        pairs = signs[keep]
        gram += pairs.T @ pairs
    return _normalise_gram(gram)


def _clip_eigenvalues(matrix: np.ndarray, floor: float) -> np.ndarray:
    values, vectors = linalg.eigh(matrix)
    clipped = (vectors * np.maximum(values, floor)) @ vectors.T
    return 0.5 * (clipped + clipped.T)


def _nearest_correlation(matrix: np.ndarray) -> np.ndarray:
    """Nearest correlation matrix (Frobenius) with eigenvalues >= the floor.

    Higham (2002), *Computing the nearest correlation matrix*, IMA J. Numer. Anal.
    22:329-343: alternating projections onto the positive semidefinite cone and
    the unit-diagonal matrices, with Dykstra's correction on the cone step. The
    result is then floored (eigenvalues below ``_EIGENVALUE_FLOOR`` raised) and
    rescaled to a unit diagonal, a congruence that keeps it positive definite.
    """
    current = matrix.copy()
    correction = np.zeros_like(matrix)
    for _ in range(_PROJECTION_MAX_ITER):
        shifted = current - correction
        projected = _clip_eigenvalues(shifted, 0.0)
        correction = projected - shifted
        updated = projected.copy()
        np.fill_diagonal(updated, 1.0)
        change = linalg.norm(updated - current) / linalg.norm(current)
        current = updated
        if change < _PROJECTION_TOL:
            break
    floored = _clip_eigenvalues(current, _EIGENVALUE_FLOOR)
    scale = 1.0 / np.sqrt(np.diag(floored))
    result = floored * np.outer(scale, scale)
    np.fill_diagonal(result, 1.0)
    return result


def _skeptic(X: np.ndarray, method: str) -> np.ndarray:
    if method == "spearman":
        correlation = 2.0 * np.sin(np.pi * _spearman(X) / 6.0)
    else:
        correlation = np.sin(np.pi * _kendall_tau_b(X) / 2.0)
    np.fill_diagonal(correlation, 1.0)
    correlation = 0.5 * (correlation + correlation.T)
    if linalg.eigvalsh(correlation)[0] < _EIGENVALUE_FLOOR:
        correlation = _nearest_correlation(correlation)
    return correlation


@validate_params(
    {"X": ["array-like"], "method": [StrOptions({"spearman", "kendall"})]},
    prefer_skip_nested_validation=True,
)
def skeptic_correlation(X, *, method: str = "spearman") -> np.ndarray:
    """Latent correlation matrix from rank correlations (SKEPTIC).

    ``2 sin(pi rho_s / 6)`` of Spearman's rho (with average ranks for ties, as
    R's ``cor(method="spearman")``; this is ``huge.npn(x, npn.func="skeptic")``)
    or ``sin(pi tau_b / 2)`` of Kendall's tau-b. Both are consistent for the
    latent correlation of a Gaussian copula (nonparanormal) model; Kendall's is
    also exact for elliptical laws such as the multivariate t. A constant column
    gets correlation 0 with every other. When the matrix is not positive definite
    (eigenvalue below 1e-6, common when ``p`` approaches ``n``), it is replaced by
    the nearest correlation matrix in Frobenius norm (Higham 2002) with
    eigenvalues at least 1e-6.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data, at least two samples, no missing values.
    method : {"spearman", "kendall"}, default="spearman"
        The rank correlation. Spearman costs ``O(n p log n + n p^2)``, Kendall
        ``O(n^2 p^2)`` (a matrix product over row pairs).

    Returns
    -------
    correlation : ndarray of shape (n_features, n_features)
        Symmetric positive definite, unit diagonal.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.learners import skeptic_correlation
    >>> rng = np.random.default_rng(0)
    >>> Z = rng.multivariate_normal([0, 0], [[1, 0.6], [0.6, 1]], size=20_000)
    >>> X = np.column_stack([np.exp(Z[:, 0]), Z[:, 1] ** 3])   # monotone maps
    >>> round(float(skeptic_correlation(X)[0, 1]), 2)
    0.6
    >>> round(float(skeptic_correlation(X[:2000], method="kendall")[0, 1]), 1)
    0.6
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 2 or X.shape[1] < 1:
        raise ValueError(
            f"X must be a 2-D array with at least 2 samples and 1 feature, got shape "
            f"{X.shape}"
        )
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or infinite values; impute them first")
    return _skeptic(X, method)


class RankCorrelationAdapter(MetaEstimatorMixin, BaseEstimator):
    """Fit a learner that takes a precomputed covariance on a rank correlation.

    ``fit(X)`` computes :func:`skeptic_correlation` ``(X, method=method)`` and
    calls ``estimator.fit(correlation)``: the inner learner must accept a
    covariance matrix in place of data, such as sklearn's
    ``GraphicalLasso(covariance="precomputed")`` (the default). The inner
    learner's protocol attributes (``adjacency_``, ``precision_``,
    ``partial_correlation_``, ``covariance_``; see :mod:`skggm_bench.metrics`) are
    exposed on the adapter, so the harness scores it like the inner learner.

    This is the SKEPTIC estimator of Liu et al. (2012): robust to any increasing
    transform of the variables (nonparanormal data) and, with
    ``method="kendall"``, to elliptical heavy tails (multivariate t).

    Parameters
    ----------
    estimator : estimator or None, default=None
        The learner, cloned at fit. ``None`` means
        ``GraphicalLasso(covariance="precomputed")``. If it has a ``covariance``
        parameter, it must be ``"precomputed"``.
    method : {"spearman", "kendall"}, default="spearman"
        The rank correlation (see :func:`skeptic_correlation`).

    Attributes
    ----------
    estimator_ : estimator
        The fitted clone of ``estimator``.
    correlation_ : ndarray of shape (n_features, n_features)
        The rank-based correlation matrix it was fitted on.
    precision_, covariance_, partial_correlation_, adjacency_ : ndarray
        Those of ``estimator_`` that it exposes.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.covariance import GraphicalLasso
    >>> from skggm_bench.learners import RankCorrelationAdapter
    >>> rng = np.random.default_rng(0)
    >>> precision = np.eye(4) - 0.3 * (np.eye(4, k=1) + np.eye(4, k=-1))  # chain
    >>> Z = rng.multivariate_normal(np.zeros(4), np.linalg.inv(precision), 1000)
    >>> X = np.exp(Z)                                   # log-normal marginals
    >>> model = RankCorrelationAdapter(
    ...     GraphicalLasso(alpha=0.1, covariance="precomputed")).fit(X)
    >>> (np.abs(model.precision_) > 1e-8).astype(int)
    array([[1, 1, 0, 0],
           [1, 1, 1, 0],
           [0, 1, 1, 1],
           [0, 0, 1, 1]])
    >>> raw = GraphicalLasso(alpha=0.1).fit(X)          # the Gaussian method alone
    >>> int((np.abs(raw.precision_) > 1e-8).sum() - 4)  # off-diagonal; the chain: 6
    10
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit"]), None],
        "method": [StrOptions({"spearman", "kendall"})],
    }

    def __init__(self, estimator=None, method="spearman"):
        self.estimator = estimator
        self.method = method

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y=None):
        """Compute the rank correlation and fit the inner learner on it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, no missing values.
        y : None
            Ignored.

        Returns
        -------
        self : RankCorrelationAdapter
            Fitted adapter.
        """
        X = validate_samples(self, X)
        if X.shape[1] < 2:
            # Inner learners fitted on a precomputed matrix need a 2 x 2 one at least
            # (sklearn's GraphicalLasso reads it as data with >= 2 rows).
            raise ValueError(
                f"Found array with {X.shape[1]} feature(s) (shape={X.shape}) while a "
                "minimum of 2 is required by RankCorrelationAdapter."
            )
        estimator = (
            GraphicalLasso(covariance="precomputed")
            if self.estimator is None
            else clone(self.estimator)
        )
        covariance_option = estimator.get_params(deep=False).get(
            "covariance", "precomputed"
        )
        if covariance_option != "precomputed":
            raise ValueError(
                f"{type(estimator).__name__} must be given covariance='precomputed' "
                "to be fitted on a rank correlation matrix, got covariance="
                f"{covariance_option!r}"
            )
        self.correlation_ = _skeptic(X, self.method)
        self.estimator_ = estimator.fit(self.correlation_)
        for name in _PROTOCOL_ATTRIBUTES:
            value = getattr(self.estimator_, name, None)
            if value is not None:
                setattr(self, name, value)
            else:  # not left over from an earlier fit with another learner
                self.__dict__.pop(name, None)
        return self
