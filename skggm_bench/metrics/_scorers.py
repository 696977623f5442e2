"""sklearn scorers that rate graph recovery against a known graph."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._protocol import (
    DEFAULT_TOL,
    Model,
    check_model,
    check_tol,
    edge_scores_from_estimator,
    edges_from_estimator,
)
from ._registry import Metric, get_metric
from ._validation import check_adjacency

__all__ = ["StructureScorer", "make_structure_scorer"]


class StructureScorer:
    """sklearn scorer comparing an estimator's graph with a known true graph.

    Build it with :func:`make_structure_scorer`. Calling it as
    ``scorer(estimator, X, y=None)`` reads the fitted estimator's graph (or edge
    scores) following the estimator protocol of :mod:`skggm_bench.metrics` --
    through the final step of a Pipeline and the ``best_estimator_`` of a fitted
    search -- and returns ``sign * metric(true_adjacency, estimate,
    **metric_kwargs)``. ``X`` and ``y`` are ignored: the truth is known, so the
    score depends only on the fitted estimator (in cross-validation, on the training
    fold).

    Parameters
    ----------
    metric : Metric
        The registry entry of the metric.
    true_adjacency : ndarray of shape (p, p), dtype bool
        Validated true graph.
    model : {"concentration", "covariance"}
        Which graph the estimator estimates.
    tol : float
        Tolerance for "non-zero" when edges are read from a matrix.
    metric_kwargs : dict
        Extra keyword arguments of the metric (e.g. ``zero_division``).

    Attributes
    ----------
    metric_name : str
        The metric's canonical name.
    sign : int
        ``1`` if greater is better, ``-1`` for a loss (the scorer returns the
        negated loss so that greater is better, like sklearn's ``neg_*``).

    Examples
    --------
    >>> scorer = make_structure_scorer("structural_hamming_distance", [[0, 1], [1, 0]])
    >>> scorer
    make_structure_scorer('shd', <2 x 2 graph>)
    >>> scorer.sign
    -1
    """

    def __init__(
        self,
        metric: Metric,
        true_adjacency: NDArray[np.bool_],
        model: Model,
        tol: float,
        metric_kwargs: dict[str, Any],
    ) -> None:
        self.metric = metric
        self.metric_name = metric.name
        self.true_adjacency = true_adjacency
        self.model = model
        self.tol = tol
        self.metric_kwargs = metric_kwargs
        self.sign = 1 if metric.greater_is_better else -1

    def _estimate(self, estimator: Any) -> NDArray[Any]:
        if self.metric.needs == "edges":
            return edges_from_estimator(estimator, model=self.model, tol=self.tol)
        return edge_scores_from_estimator(estimator, model=self.model)

    def __call__(self, estimator: Any, X: Any = None, y: Any = None) -> float:
        """Score a fitted estimator; greater is better.

        Parameters
        ----------
        estimator : object
            Fitted estimator, pipeline or search exposing ``adjacency_``,
            ``precision_`` or ``covariance_`` (see the estimator protocol).
        X : object, optional
            Ignored (present for sklearn's scorer signature).
        y : object, optional
            Ignored.

        Returns
        -------
        float
            ``sign * metric(true_adjacency, estimate)``.
        """
        function = self.metric.function
        if function is None:
            raise TypeError(
                f"{self.metric_name} is measured by the harness, not scored"
            )
        value = function(
            self.true_adjacency, self._estimate(estimator), **self.metric_kwargs
        )
        return float(self.sign * value)

    def __repr__(self) -> str:
        p = self.true_adjacency.shape[0]
        extras = "".join(f", {k}={v!r}" for k, v in self.metric_kwargs.items())
        if self.model != "concentration":
            extras += f", model={self.model!r}"
        if self.tol != DEFAULT_TOL:
            extras += f", tol={self.tol!r}"
        return f"make_structure_scorer({self.metric_name!r}, <{p} x {p} graph>{extras})"


def make_structure_scorer(
    metric: str | Callable[..., Any],
    true_adjacency: ArrayLike,
    *,
    model: Model = "concentration",
    tol: float = DEFAULT_TOL,
    **metric_kwargs: Any,
) -> StructureScorer:
    """Make a ``scoring=`` object that rates graph recovery against a known graph.

    The result is a callable ``scorer(estimator, X, y=None) -> float`` (greater is
    better) for :class:`~sklearn.model_selection.GridSearchCV`,
    :func:`~sklearn.model_selection.cross_validate` and friends, for any estimator
    -- or Pipeline, or search -- that exposes ``precision_``, ``adjacency_`` (or
    ``covariance_`` with ``model="covariance"``), read as described in the
    estimator protocol of the :mod:`skggm_bench.metrics` module docstring. Losses
    are negated: ``"shd"`` and ``"fpr"`` give ``-SHD`` and ``-FPR``, like sklearn's
    ``neg_*`` scorers.

    Parameters
    ----------
    metric : str or callable
        One of the structure metrics of this module, as the function itself or by
        name: ``"tpr"`` (``"true_positive_rate"``), ``"ppv"``
        (``"positive_predictive_value"``), ``"fpr"`` (``"false_positive_rate"``),
        ``"f1"`` (``"f1_score"``), ``"mcc"`` (``"matthews_corrcoef"``), ``"shd"``
        (``"structural_hamming_distance"``), ``"roc_auc"`` (``"edge_roc_auc"``),
        ``"average_precision"`` (``"edge_average_precision"``). The last two rank
        pairs by the estimator's edge scores; the others use its edges.
    true_adjacency : array-like of shape (p, p)
        Symmetric boolean / 0-1 adjacency of the true graph.
    model : {"concentration", "covariance"}, default="concentration"
        Which graph the estimator estimates.
    tol : float, default=1e-8
        Tolerance for "non-zero" when edges are read from a matrix.
    **metric_kwargs
        Passed on to the metric, e.g. ``zero_division=0.0``.

    Returns
    -------
    StructureScorer
        The scorer.

    Raises
    ------
    ValueError
        For an unknown metric or a matrix loss (score those with
        :func:`score_learner`), an invalid ``true_adjacency``, or a metric that is
        undefined for this true graph (e.g. ROC AUC of an empty graph): the metric
        is tried once on the truth itself so that such problems surface here rather
        than as NaN scores in every cross-validation fold.
    TypeError
        For keyword arguments the metric does not accept.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.covariance import GraphicalLasso
    >>> from sklearn.model_selection import GridSearchCV
    >>> p = 5
    >>> precision = np.eye(p) + np.diag(np.full(p - 1, -0.4), 1)  # chain graph
    >>> precision = precision + np.triu(precision, 1).T
    >>> rng = np.random.default_rng(0)
    >>> X = rng.multivariate_normal(np.zeros(p), np.linalg.inv(precision), size=300)
    >>> search = GridSearchCV(
    ...     GraphicalLasso(), {"alpha": [0.01, 0.1, 0.4, 2.0]},
    ...     scoring=make_structure_scorer("f1", precision != 0), cv=3,
    ... ).fit(X)
    >>> search.best_params_       # 0.01 keeps spurious edges, 2.0 removes all
    {'alpha': 0.4}
    >>> search.cv_results_["mean_test_score"].round(2).tolist()
    [0.59, 0.83, 0.95, 0.0]
    """
    entry = get_metric(metric)
    if entry.needs not in ("edges", "scores") or entry.function is None:
        raise ValueError(
            f"{entry.name} is not a structure metric (it needs {entry.needs}); "
            "score matrix losses with skggm_bench.metrics.score_learner"
        )
    truth = check_adjacency(true_adjacency, name="true_adjacency")
    scorer = StructureScorer(
        entry, truth, check_model(model), check_tol(tol), dict(metric_kwargs)
    )
    # Fail now on typos in metric_kwargs, bad values, or a metric undefined for this
    # truth (the truth compared with itself exercises all of these); inside
    # GridSearchCV the same error would be turned into NaN scores with a warning.
    try:
        inspect.signature(entry.function).bind(truth, truth, **metric_kwargs)
    except TypeError as exc:
        raise TypeError(f"Invalid keyword arguments for {entry.name}: {exc}") from None
    reference = truth.astype(np.float64) if entry.needs == "scores" else truth
    entry.function(truth, reference, **metric_kwargs)
    return scorer
