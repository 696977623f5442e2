"""The graphical lasso solved exactly, with its optimality certificate."""

import warnings
from numbers import Real

import numpy as np
from sklearn.base import _fit_context
from sklearn.covariance import EmpiricalCovariance, empirical_covariance
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import StrOptions

from ..utils._validation import Interval
from ._glasso_descent import exactly_symmetric, symmetric_part
from ._glasso_path import certified_path
from ._utils import validate_samples

# A certificate above this (relative to the largest variance), or above twice
# ``tol``, is reported as a ConvergenceWarning. The solver stops at ``tol`` on
# the scaled problem; the residual recomputed from a fresh inverse carries the
# rounding of that inverse, about the condition number of K times the machine
# epsilon.
_CERTIFICATE_TOL = 1e-6


class ExactGraphicalLasso(EmpiricalCovariance):
    """Sparse inverse covariance by the graphical lasso, solved to optimality.

    Minimises, over positive definite ``K``, ::

        f(K) = -log det K + tr(S K) + alpha sum_{i != j} |K_ij|

    (``S`` the empirical covariance; the diagonal is not penalised): the
    problem of scikit-learn's :class:`~sklearn.covariance.GraphicalLasso`. The
    solver (Witten, Friedman & Simon 2011 and Mazumder & Hastie 2012
    screening, then on each component a compiled block coordinate descent,
    finished where needed by an orthant-wise Newton method) stops only when the
    optimality conditions hold to ``tol`` (1e-10) of the largest variance, so
    its zeros are those of the minimiser, not of a stopping rule.
    The conditions are checked on the result from an inverse of
    ``precision_`` computed afresh (not the descent's), and reported as
    ``kkt_residual_``: a certificate of optimality that does not trust the
    solver. It is also the check that ends the descent: a penalty where it
    misses ``tol`` is solved again with the solver's own checks.

    The name says what differs from scikit-learn's ``GraphicalLasso`` (the
    same objective; there, coordinate descent stopped by a duality-gap
    tolerance, which at p = 1000 can stop 1e-3 above the minimum), without
    shadowing it in code that imports both.

    Unlike this package's other learners, the columns are not standardised:
    like scikit-learn's, the estimator fits the covariance (standardise first
    to fit the correlation).

    Parameters
    ----------
    alpha : float or array-like of shape (n_alphas,), default=0.01
        Penalty on the off-diagonal entries, positive. An array fits the whole
        path, largest penalty first, each solution the warm start of the next
        (the screening's components only merge as the penalty falls); the
        fitted model is then the one at the smallest penalty.
    covariance : "precomputed" or None, default=None
        ``"precomputed"``: ``X`` in ``fit`` is the covariance ``S`` itself
        (square, symmetric, positive semi-definite with a positive diagonal).
    assume_centered : bool, default=False
        If True, the data are not centred before the covariance is computed.
    warm_start : bool, default=False
        If True, a new ``fit`` starts from the ``precision_`` of the previous
        fit (with the same number of features) instead of ``diag(1 / S_ii)``:
        fitting a nearby penalty, or new data of the same variables, then
        takes fewer sweeps. The solution does not depend on the start.
    tol : float, default=1e-10
        Largest violation of the optimality conditions at which the solver
        stops, relative to the largest ``S_ii``. The default leaves only
        rounding; a looser one (say 1e-6) stops a few sweeps earlier, at an
        objective within about ``tol`` of the minimum, and ``kkt_residual_``
        then says how far from optimal the result is (its zeros may differ from
        the minimiser's for entries that close to the penalty).

    Attributes
    ----------
    alpha_ : float
        The penalty of ``precision_`` (the smallest of a path).
    alphas_ : ndarray of shape (n_alphas,)
        The penalties fitted, largest first.
    precision_ : ndarray of shape (n_features, n_features)
        The graphical lasso estimate of the precision, with exact zeros.
    covariance_ : ndarray of shape (n_features, n_features)
        Its inverse (``S_ii`` on the diagonal, ``S_ij`` within ``alpha`` off it).
    location_ : ndarray of shape (n_features,)
        The estimated mean (zeros for ``assume_centered`` or a precomputed
        covariance).
    adjacency_ : ndarray of shape (n_features, n_features), bool
        The non-zero off-diagonal entries of ``precision_``: the edges.
    precision_path_ : ndarray of shape (n_alphas, n_features, n_features)
        The solution at each penalty of ``alphas_``; ``precision_`` is the last.
    kkt_residual_ : float
        The certificate of ``precision_``: the largest violation of the
        optimality conditions (with ``W = precision_^-1``: ``W_ii = S_ii``,
        ``W_ij = S_ij + alpha sign(K_ij)`` where ``K_ij != 0`` and
        ``|W_ij - S_ij| <= alpha`` where ``K_ij = 0``), divided by the largest
        ``S_ii``. 0 at the minimiser; in practice about 1e-12 to 1e-9 at the
        default ``tol``, the rounding of the inverse. Above 1e-6 and above
        twice ``tol`` a ``ConvergenceWarning`` is raised.
    kkt_residuals_ : ndarray of shape (n_alphas,)
        The same certificate at every penalty of the path.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    sklearn.covariance.GraphicalLasso : The same objective by coordinate descent.
    StARS, EBIC : Choose the penalty (their fast path solves the same way).

    Notes
    -----
    Screening: the connected components of the graph ``|S_ij| > alpha`` split
    the solution exactly (it is block diagonal on them). On a component, block
    coordinate descent (glasso's: a lasso per column of ``W = K^-1``, solved by
    coordinate descent on its active set, compiled with Cython) from the
    previous solution; where its result misses the optimality conditions, Newton
    steps whose directions come from conjugate gradients with sparse-dense
    products ``W D W`` and ``K R K`` on the support. See ``docs/performance.md``
    for timings against R's glassoFast and glasso, scikit-learn, skglm and
    gglasso. A component that does not settle (200 Newton steps, or a line
    search that cannot decrease ``f``) keeps its last iterate, and the
    certificate and a ``ConvergenceWarning`` say so.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.learners import ExactGraphicalLasso
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((500, 4))
    >>> X[:, 1] += X[:, 0]  # only variables 0 and 1 are related
    >>> model = ExactGraphicalLasso(alpha=0.1).fit(X)
    >>> model.adjacency_.astype(int)
    array([[0, 1, 0, 0],
           [1, 0, 0, 0],
           [0, 0, 0, 0],
           [0, 0, 0, 0]])
    >>> bool(model.kkt_residual_ < 1e-9)
    True
    >>> path = ExactGraphicalLasso(alpha=[0.5, 0.1, 0.05]).fit(X)
    >>> path.precision_path_.shape
    (3, 4, 4)
    """

    _parameter_constraints: dict = {
        "alpha": [Interval(Real, 0.0, None, closed="neither"), "array-like"],
        "covariance": [StrOptions({"precomputed"}), None],
        "assume_centered": ["boolean"],
        "warm_start": ["boolean"],
        "tol": [Interval(Real, 0.0, None, closed="neither")],
    }

    def __init__(
        self,
        alpha=0.01,
        *,
        covariance=None,
        assume_centered=False,
        warm_start=False,
        tol=1e-10,
    ):
        self.alpha = alpha
        self.covariance = covariance
        self.assume_centered = assume_centered
        self.warm_start = warm_start
        self.tol = tol

    def _penalties(self) -> np.ndarray:
        """The penalties as a float array, largest first; ValueError if not > 0."""
        alphas = np.atleast_1d(np.asarray(self.alpha, dtype=float))
        if alphas.ndim != 1 or alphas.size == 0:
            raise ValueError(
                "alpha must be a positive float or a non-empty 1-d array of them; "
                f"got shape {alphas.shape}."
            )
        if not np.all(np.isfinite(alphas) & (alphas > 0)):
            raise ValueError(
                f"every alpha must be positive and finite; got {self.alpha!r}."
            )
        return np.sort(alphas)[::-1]

    def _covariance_of(self, X) -> np.ndarray:
        """Validate ``X`` and return ``S``; sets ``location_``."""
        if self.covariance == "precomputed":
            S = validate_samples(self, X, samples=False)
            if S.shape[0] != S.shape[1]:
                raise ValueError(
                    "with covariance='precomputed', X must be a square covariance "
                    f"matrix; got shape {S.shape}."
                )
            # An exactly symmetric S is its own symmetric part: it is taken as
            # it is (only ever read), without a p x p copy (10-20 ms at p =
            # 2000, its pages faulted in as it is written). Otherwise
            # np.allclose's test both ways round (values are finite here) and
            # the symmetric part, in one compiled pass: numpy's transposed
            # passes and temporaries took a tenth of a fit at p = 1000.
            if not (S.flags.c_contiguous and exactly_symmetric(S)):
                S, symmetric = symmetric_part(S, 1.0, check=True)
                if not symmetric:
                    raise ValueError(
                        "with covariance='precomputed', X must be symmetric."
                    )
            self.location_ = np.zeros(S.shape[0])
        else:
            X = validate_samples(self, X)
            self.location_ = (
                np.zeros(X.shape[1]) if self.assume_centered else X.mean(axis=0)
            )
            S = empirical_covariance(X, assume_centered=self.assume_centered)
        zero = np.flatnonzero(np.diag(S) <= 0)
        if zero.size:
            raise ValueError(
                f"variable {zero[0]} has zero variance: the graphical lasso's "
                "precision is unbounded there (drop constant columns)."
            )
        return S

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Fit the graphical lasso at every penalty of ``alpha``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_features, n_features)
            Training data, or the covariance with ``covariance="precomputed"``.
        y : None
            Ignored.

        Returns
        -------
        self : ExactGraphicalLasso
            Fitted estimator.
        """
        alphas = self._penalties()
        previous = getattr(self, "precision_", None)
        S = self._covariance_of(X)
        start = None
        if self.warm_start and previous is not None and previous.shape == S.shape:
            start = previous
        # A precomputed S is its symmetric part already (_covariance_of).
        precisions, residuals, covariance = certified_path(
            S,
            alphas,
            start=start,
            tol=self.tol,
            symmetric=self.covariance == "precomputed",
        )
        if residuals.max() > max(_CERTIFICATE_TOL, 2 * self.tol):
            worst = alphas[np.argmax(residuals)]
            warnings.warn(
                f"the graphical lasso did not settle at alpha={worst:g}: its "
                f"optimality conditions are violated by {residuals.max():.2e} of "
                "the largest variance.",
                ConvergenceWarning,
                stacklevel=2,
            )
        self.alphas_ = alphas
        self.alpha_ = float(alphas[-1])
        self.precision_path_ = precisions
        self.kkt_residuals_ = residuals
        self.kkt_residual_ = float(residuals[-1])
        self.precision_ = precisions[-1]
        if covariance is None:  # not positive definite: no certificate
            covariance = np.linalg.inv(self.precision_)
            covariance = 0.5 * (covariance + covariance.T)
        self.covariance_ = covariance
        self.adjacency_ = self.precision_ != 0
        np.fill_diagonal(self.adjacency_, False)
        return self

    def get_precision(self) -> np.ndarray:
        """The fitted precision ``precision_``.

        Returns
        -------
        precision_ : ndarray of shape (n_features, n_features)
        """
        return self.precision_
