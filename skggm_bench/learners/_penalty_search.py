"""What the penalty-selection meta-estimators (StARS, EBIC, RIC) share.

The default penalty grid, fitting a clone of the wrapped learner at one penalty,
reading the edges of a fitted learner, and exposing the chosen fit's protocol
attributes (``skggm_bench.metrics`` reads them from the meta-estimator as from
any learner).
"""

from numbers import Integral, Real

import numpy as np
from sklearn.base import clone
from sklearn.utils._param_validation import HasMethods

from ..metrics import fitted_learner
from ..utils._validation import Interval
from ._glasso_path import plain_graphical_lasso_path

# The attributes through which the harness and the scorers read a learner
# (``adjacency_``, ``precision_``, ``partial_correlation_``, ``covariance_``)
# plus the edge scores of learners that have no matrix to rank by.
PROTOCOL_ATTRIBUTES = (
    "adjacency_",
    "precision_",
    "partial_correlation_",
    "covariance_",
    "edge_scores_",
)

# Penalty used when the data have no pair of varying columns, so that every
# penalty gives the same (empty) graph.
PENALTY_WITHOUT_PAIRS = 1.0

SEARCH_PARAMETER_CONSTRAINTS = {
    "estimator": [HasMethods(["fit"])],
    "param": [str],
    "alphas": [Interval(Integral, 1, None, closed="left"), "array-like"],
    "alpha_min_ratio": [Interval(Real, 0.0, 1.0, closed="neither")],
    "n_jobs": [Interval(Integral, None, None, closed="neither"), None],
}


def largest_correlation(X: np.ndarray) -> float:
    """Largest absolute off-diagonal sample correlation of ``X`` (0 without pairs)."""
    centred = X - X.mean(axis=0)
    scale = np.sqrt(np.sum(centred**2, axis=0))
    varying = scale > 0
    if np.count_nonzero(varying) < 2:
        return 0.0
    Z = centred[:, varying] / scale[varying]
    correlation = np.abs(Z.T @ Z)
    np.fill_diagonal(correlation, 0.0)
    return float(min(correlation.max(), 1.0))


def penalty_grid(X: np.ndarray, alphas, alpha_min_ratio: float) -> np.ndarray:
    """The penalties to try, largest first.

    An integer ``alphas`` gives that many values log-spaced from the largest
    absolute sample correlation (where node-wise lasso, graphical lasso on the
    correlation matrix and correlation thresholding select nothing) down to
    ``alpha_min_ratio`` times it: R huge's default path (10 values, ratio 0.1).
    An array is used as given, sorted decreasingly.
    """
    if isinstance(alphas, Integral):
        largest = largest_correlation(X) or PENALTY_WITHOUT_PAIRS
        return largest * np.logspace(0.0, np.log10(alpha_min_ratio), int(alphas))
    grid = np.asarray(alphas, dtype=float).ravel()
    if grid.size == 0 or not np.all(np.isfinite(grid)) or np.any(grid <= 0):
        raise ValueError("alphas must be a non-empty array of positive, finite values.")
    return np.sort(grid)[::-1]


def check_tuned_parameter(estimator, param: str) -> None:
    """Raise a clear error if ``estimator`` has no parameter ``param``."""
    if param not in estimator.get_params(deep=True):
        raise ValueError(
            f"{type(estimator).__name__} has no parameter {param!r} to tune; "
            f"its parameters are {sorted(estimator.get_params(deep=True))}."
        )


def fit_at(estimator, param: str, value: float, X: np.ndarray):
    """A clone of ``estimator`` with ``param=value``, fitted on ``X``."""
    return clone(estimator).set_params(**{param: value}).fit(X)


def fitted_edges(fitted) -> np.ndarray:
    """Edges of a fitted learner: ``adjacency_``, else the support of ``precision_``.

    The first two rules of the learner protocol (``skggm_bench.metrics``),
    with exact zeros: the selection criteria count the edges a sparse learner
    decided, not those a tolerance would keep. A Pipeline is read through its
    final step and a fitted search through its best estimator, as the metrics
    read them (:func:`~skggm_bench.metrics.fitted_learner`): a rescaling step
    changes no zero.
    """
    learner, where = fitted_learner(fitted)
    adjacency = getattr(learner, "adjacency_", None)
    if adjacency is not None:
        edges = np.asarray(adjacency, dtype=bool).copy()
    else:
        precision = getattr(learner, "precision_", None)
        if precision is None:
            raise TypeError(
                f"{where} exposes neither adjacency_ nor precision_ after fit, so "
                "its edges cannot be read."
            )
        edges = np.asarray(precision) != 0
    np.fill_diagonal(edges, False)
    return edges


def edge_path(estimator, param: str, alphas: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Edges of ``estimator`` fitted on ``X`` at every penalty, (n_alphas, p, p).

    The path protocol, when the tuned parameter is the learner's ``alpha``:

    * a learner with an ``adjacency_path(X, alphas)`` method (the node-wise
      learners, CLIME and correlation thresholding of this package, which
      follow the whole path with warm starts) computes it in one pass;
    * scikit-learn's ``GraphicalLasso`` is solved along the path by the exact
      screened, warm-started solver of ``_glasso_path`` (a penalty where it does
      not settle is fitted by the learner itself);
    * any other learner is fitted once per penalty.

    The shortcuts give the edges of the exact solutions, which a learner that
    stops at a tolerance (``GraphicalLasso``) may miss by an entry near zero.
    """
    if param == "alpha" and callable(getattr(estimator, "adjacency_path", None)):
        return np.asarray(estimator.adjacency_path(X, alphas), dtype=bool)
    precisions = precision_path(estimator, param, alphas, X)
    if precisions is None:
        return np.stack([fitted_edges(fit_at(estimator, param, a, X)) for a in alphas])
    edges = precisions != 0
    for k in range(alphas.size):
        np.fill_diagonal(edges[k], False)
    return edges


def precision_path(estimator, param: str, alphas: np.ndarray, X: np.ndarray):
    """Precision matrices of ``estimator`` on ``X`` at every penalty, or None.

    Only for scikit-learn's ``GraphicalLasso`` tuned by ``alpha`` (see
    :func:`edge_path`): the exact solutions along the path, with the learner's
    own fit where the solver does not settle. None for any other learner.
    """
    path = None
    if param == "alpha":
        path = plain_graphical_lasso_path(estimator, X, alphas)
    if path is None:
        return None
    precisions, solved = path
    for k in np.flatnonzero(~solved):
        precisions[k] = fit_at(estimator, param, alphas[k], X).precision_
    return precisions


class ProtocolAttributesMixin:
    """Copies the chosen fit's protocol attributes onto the meta-estimator."""

    def _expose(self, best) -> None:
        self.best_estimator_ = best
        for name in PROTOCOL_ATTRIBUTES:
            value = getattr(best, name, None)
            if value is not None:
                setattr(self, name, value)
