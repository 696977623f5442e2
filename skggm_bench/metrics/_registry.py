"""The metric registry: the one place that says what each metric is.

Every consumer -- the sklearn scorers, the benchmark harness and its result schema,
the store, the leaderboard, the plots, the report and the command line -- reads a
metric's name, aliases, direction, range, label and what it needs from here. Adding
a metric to skggm-bench is adding one :class:`Metric` entry to ``_ENTRIES`` below.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from ..utils._linalg import upper_triangle
from ._edges import (
    f1_score,
    false_positive_rate,
    matthews_corrcoef,
    positive_predictive_value,
    structural_hamming_distance,
    true_positive_rate,
)
from ._losses import (
    frobenius_loss,
    kl_divergence,
    loss_problem,
    spectral_loss,
    stein_loss,
)
from ._protocol import (
    DEFAULT_TOL,
    Model,
    check_model,
    check_tol,
    covariance_from_estimator,
    edge_scores_from_estimator,
    edges_from_estimator,
    feature_scale,
    precision_from_estimator,
)
from ._scores import edge_average_precision, edge_roc_auc
from ._validation import check_adjacency, check_symmetric_real

__all__ = [
    "METRICS",
    "RELATED_METRICS",
    "GroundTruth",
    "LearnerScores",
    "Metric",
    "get_metric",
    "score_learner",
    "selection_remark",
]

#: What a metric reads from a fitted learner: its edges, its edge scores, its
#: ``covariance_`` or ``precision_``; ``"fit"`` marks a measurement of the fit itself
#: (its time), recorded by the harness rather than computed from the learner.
#: ``"groups"`` and ``"latent"`` mark the metrics of related models
#: (:data:`RELATED_METRICS`), computed together by
#: :func:`~skggm_bench.metrics.group_scores` and
#: :func:`~skggm_bench.metrics.latent_scores`.
Needs = Literal["edges", "scores", "covariance", "precision", "fit", "groups", "latent"]


@dataclass(frozen=True)
class GroundTruth:
    """What a learner is scored against: the true graph and, for losses, matrices.

    Parameters
    ----------
    adjacency : array-like of shape (p, p)
        The true graph (validated by :func:`skggm_bench.graphs.check_adjacency`).
    model : {"concentration", "covariance"}, default="concentration"
        Which graph it is: the zeros of the precision or of the covariance.
    covariance, precision : array-like of shape (p, p) or None, default=None
        The true covariance and precision matrices, needed by the matrix losses.

    Examples
    --------
    >>> import numpy as np
    >>> truth = GroundTruth(np.array([[0, 1], [1, 0]]))
    >>> truth.adjacency.dtype, truth.model
    (dtype('bool'), 'concentration')
    """

    adjacency: NDArray[np.bool_]
    model: Model = "concentration"
    covariance: NDArray[np.float64] | None = None
    precision: NDArray[np.float64] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "adjacency", check_adjacency(self.adjacency, name="true_adjacency")
        )
        check_model(self.model)
        for name in ("covariance", "precision"):
            matrix = getattr(self, name)
            if matrix is not None:
                object.__setattr__(
                    self, name, check_symmetric_real(matrix, f"true {name}")
                )


@dataclass(frozen=True)
class Metric:
    """One metric: how it is computed, named, ranked and drawn.

    Attributes
    ----------
    name : str
        The canonical name, also the result column.
    function : callable or None
        The function of :mod:`skggm_bench.metrics` that computes it (None for a
        measurement of the fit, such as ``fit_time``).
    needs : {"edges", "scores", "covariance", "precision", "fit", "groups", \
"latent"}
        What it reads from a fitted learner (``"groups"`` and ``"latent"``: the
        metrics of related models, undefined for a data set of one graph).
    greater_is_better : bool
        The ranking direction.
    low, high : float
        The range of its values (``high`` may be ``inf``).
    label : str
        A short human label for tables and plot axes.
    aliases : tuple of str
        Other accepted names (e.g. the function's name).
    keywords : mapping
        Fixed keyword arguments of ``function`` (e.g. ``role="covariance"``).

    Examples
    --------
    >>> f1 = get_metric("f1_score")
    >>> f1.name, f1.greater_is_better, f1.needs, (f1.low, f1.high)
    ('f1', True, 'edges', (0.0, 1.0))
    """

    name: str
    function: Callable[..., float] | None
    needs: Needs
    greater_is_better: bool
    low: float
    high: float
    label: str
    aliases: tuple[str, ...] = ()
    keywords: Mapping[str, Any] = field(default_factory=dict)
    singular_is_infinite: bool = False

    @property
    def is_loss(self) -> bool:
        """True for a matrix loss (reads ``covariance_`` or ``precision_``)."""
        return self.needs in ("covariance", "precision")

    def undefined_for(self, truth: GroundTruth) -> str | None:
        """Why this metric cannot be computed against ``truth`` (None if it can).

        Known before any learner is fitted, so that an undefined metric (the ROC
        AUC of an empty graph) is never blamed on a learner.

        Parameters
        ----------
        truth : GroundTruth
            The ground truth of a data set.

        Returns
        -------
        str or None
            The reason, or None.

        Examples
        --------
        >>> import numpy as np
        >>> get_metric("roc_auc").undefined_for(GroundTruth(np.zeros((3, 3))))
        'the true graph has no edges: it needs both edges and non-edges'
        """
        if self.needs == "scores":
            labels = upper_triangle(truth.adjacency)
            if not labels.any():
                both = ": it needs both edges and non-edges"
                return "the true graph has no edges" + (
                    both if self.name == "roc_auc" else ""
                )
            if self.name == "roc_auc" and labels.all():
                return "the true graph is complete: it needs both edges and non-edges"
        if self.is_loss and getattr(truth, self.needs) is None:
            return f"the true {self.needs} is not known"
        return _RELATED_ONLY.get(self.needs)


def _is_singular(estimate: NDArray[np.float64]) -> bool:
    """True for a positive semi-definite but singular estimate.

    KL and Stein's loss contain ``log det`` of the estimate (or of its inverse),
    which diverges when the estimate is singular: such an estimate is infinitely bad
    and ranks last. One that is not even positive semi-definite is left to the loss,
    which rejects it.
    """
    eigenvalues = np.linalg.eigvalsh(estimate)
    scale = max(float(np.abs(eigenvalues).max(initial=0.0)), 1.0)
    return bool(-1e-8 * scale <= eigenvalues.min() <= 1e-12 * scale)


def _n_selected_edges(
    true_adjacency: NDArray[np.bool_], estimated_adjacency: NDArray[np.bool_]
) -> float:
    """The number of pairs the learner selected as edges (the truth is not read)."""
    return float(upper_triangle(estimated_adjacency).sum())


def selection_remark(edges: NDArray[np.bool_]) -> str | None:
    """``"selected every pair"`` / ``"selected no pair"`` for such a graph, or None.

    A learner whose estimate is dense (a shrinkage covariance: partial
    correlations are never exactly zero) selects every pair: its precision is
    the density d of the true graph, its recall 1 and its F1 just 2d / (1 + d);
    one that selects nothing has F1 0. Either way
    its edge metrics describe its threshold, not its ranking of the pairs: the
    threshold-free ``roc_auc`` and ``average_precision`` do.

    Examples
    --------
    >>> import numpy as np
    >>> selection_remark(~np.eye(3, dtype=bool))
    'selected every pair'
    >>> selection_remark(np.zeros((3, 3), bool))
    'selected no pair'
    """
    selected = upper_triangle(edges)
    if selected.size == 0:
        return None
    if selected.all():
        return "selected every pair"
    if not selected.any():
        return "selected no pair"
    return None


_ENTRIES = (
    Metric("tpr", true_positive_rate, "edges", True, 0.0, 1.0, "TPR (power)",
           ("true_positive_rate",)),
    Metric("ppv", positive_predictive_value, "edges", True, 0.0, 1.0,
           "PPV (true discovery rate)", ("positive_predictive_value",)),
    Metric("fpr", false_positive_rate, "edges", False, 0.0, 1.0, "FPR",
           ("false_positive_rate",)),
    Metric("f1", f1_score, "edges", True, 0.0, 1.0, "F1", ("f1_score",)),
    Metric("mcc", matthews_corrcoef, "edges", True, -1.0, 1.0, "MCC",
           ("matthews_corrcoef",)),
    Metric("shd", structural_hamming_distance, "edges", False, 0.0, math.inf,
           "SHD", ("structural_hamming_distance",)),
    # A description of the selection (how many pairs), not a quality: ranked with
    # fewer first only because a direction is needed.
    Metric("n_selected_edges", _n_selected_edges, "edges", False, 0.0, math.inf,
           "selected edges"),
    Metric("roc_auc", edge_roc_auc, "scores", True, 0.0, 1.0, "ROC AUC",
           ("edge_roc_auc",)),
    Metric("average_precision", edge_average_precision, "scores", True, 0.0, 1.0,
           "average precision", ("edge_average_precision",)),
    Metric("frobenius_loss", frobenius_loss, "covariance", False, 0.0, math.inf,
           "Frobenius loss (covariance)"),
    Metric("spectral_loss", spectral_loss, "covariance", False, 0.0, math.inf,
           "Spectral loss (covariance)"),
    Metric("kl_divergence", kl_divergence, "covariance", False, 0.0, math.inf,
           "KL divergence", keywords={"role": "covariance"},
           singular_is_infinite=True),
    Metric("stein_loss", stein_loss, "covariance", False, 0.0, math.inf,
           "Stein's loss", keywords={"role": "covariance"},
           singular_is_infinite=True),
    Metric("precision_frobenius_loss", frobenius_loss, "precision", False, 0.0,
           math.inf, "Frobenius loss (precision)"),
    Metric("fit_time", None, "fit", False, 0.0, math.inf, "fit time (s)"),
)  # fmt: skip

#: Every metric, by canonical name (read-only).
METRICS: Mapping[str, Metric] = MappingProxyType({m.name: m for m in _ENTRIES})
# Metrics of related models (K classes, T times, hidden variables). Their per-group
# edge metrics and losses are the single-model ones above, averaged over the groups
# under the same names; the entries here are the ones only these models have.
_RELATED_ENTRIES = (
    Metric("change_tpr", None, "groups", True, 0.0, 1.0,
           "TPR of the changes between groups"),
    Metric("change_ppv", None, "groups", True, 0.0, 1.0,
           "PPV of the changes between groups"),
    Metric("n_true_changes", None, "groups", False, 0.0, math.inf,
           "true changes between groups"),
    Metric("rank", None, "latent", False, 0.0, math.inf, "rank of the latent part"),
    Metric("rank_error", None, "latent", False, 0.0, math.inf,
           "|rank recovered - true rank|"),
    Metric("sparse_relative_error", None, "latent", False, 0.0, math.inf,
           "relative error of S"),
    Metric("low_rank_relative_error", None, "latent", False, 0.0, math.inf,
           "relative error of L"),
)  # fmt: skip

#: The metrics only models of several groups or with hidden variables have, by name.
RELATED_METRICS: Mapping[str, Metric] = MappingProxyType(
    {m.name: m for m in _RELATED_ENTRIES}
)
# Related-model metrics are looked up like any other (a study's columns, the
# leaderboard's direction), but are not in METRICS: a data set of one graph has none.
_BY_ALIAS: dict[str, Metric] = {
    alias: metric
    for metric in (*_ENTRIES, *_RELATED_ENTRIES)
    for alias in (metric.name, *metric.aliases)
}
#: Why a metric of related models is undefined for a data set of one graph.
_RELATED_ONLY = {
    "groups": "a metric of several related graphs (classes or time points); this "
    "data set has one graph",
    "latent": "a metric of latent-variable models; this data set has no hidden "
    "variables",
}


def get_metric(metric: str | Callable[..., Any] | Metric) -> Metric:
    """The registry entry of a metric given by name, alias or function.

    Parameters
    ----------
    metric : str, callable or Metric
        A canonical name (``"f1"``), an alias (``"f1_score"``), or the function
        itself (:func:`skggm_bench.metrics.f1_score`).

    Returns
    -------
    Metric
        The entry.

    Raises
    ------
    ValueError
        For anything else; the message lists the accepted names.

    Examples
    --------
    >>> from skggm_bench.metrics import structural_hamming_distance
    >>> get_metric(structural_hamming_distance).name
    'shd'
    >>> get_metric("seed")
    Traceback (most recent call last):
    ...
    ValueError: unknown metric 'seed'; choose one of average_precision, f1, fit_time, \
fpr, frobenius_loss, kl_divergence, mcc, n_selected_edges, ppv, \
precision_frobenius_loss, roc_auc, shd, spectral_loss, stein_loss, tpr (or the \
function names of skggm_bench.metrics)
    """
    if isinstance(metric, Metric):
        return metric
    if isinstance(metric, str) and metric in _BY_ALIAS:
        return _BY_ALIAS[metric]
    if callable(metric):
        for entry in _ENTRIES:  # frobenius_loss: the covariance loss comes first
            if metric is entry.function:
                return entry
    raise ValueError(
        f"unknown metric {metric!r}; choose one of {', '.join(sorted(METRICS))} (or "
        "the function names of skggm_bench.metrics)"
    )


@dataclass(frozen=True)
class LearnerScores:
    """The values of several metrics for one fitted learner, and why some are NaN.

    Attributes
    ----------
    values : dict of str to float
        One value per metric, NaN where a metric is undefined.
    notes : dict of str to str
        For every NaN value: why (a truth that does not allow the metric, a
        learner that does not expose what the metric needs, or matrices that
        cannot be judged by a loss, see :func:`~skggm_bench.metrics.loss_problem`).
    remarks : tuple of str
        What else a reader of the values must know: ``"selected every pair"`` or
        ``"selected no pair"`` (:func:`selection_remark`).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.covariance import ShrunkCovariance
    >>> X = np.random.default_rng(0).standard_normal((50, 3))
    >>> truth = GroundTruth(np.zeros((3, 3)))  # no edges, no true covariance
    >>> scores = score_learner(ShrunkCovariance().fit(X), truth,
    ...                        ["ppv", "roc_auc", "frobenius_loss"])
    >>> scores.values
    {'ppv': 0.0, 'roc_auc': nan, 'frobenius_loss': nan}
    >>> scores.notes["frobenius_loss"]
    'the true covariance is not known'
    """

    values: dict[str, float]
    notes: dict[str, str]
    remarks: tuple[str, ...] = ()


def score_learner(
    estimator: Any,
    truth: GroundTruth,
    metrics: Iterable[str | Metric],
    *,
    tol: float = DEFAULT_TOL,
    X: Any = None,
) -> LearnerScores:
    """Score a fitted learner (estimator, pipeline or search) on several metrics.

    Each thing the metrics need (edges, edge scores, ``covariance_``,
    ``precision_``) is read once, following the estimator protocol of
    :mod:`skggm_bench.metrics`.

    Parameters
    ----------
    estimator : object
        The fitted learner.
    truth : GroundTruth
        What it is scored against.
    metrics : iterable of str or Metric
        The metrics (names, aliases or entries); ``fit_time`` is not computed here.
    tol : float, default=1e-8
        Tolerance for "non-zero" when edges are read from a matrix.
    X : array-like of shape (n_samples, p) or None, default=None
        The data the learner was fitted on. With it, the matrix losses are only
        computed for matrices that estimate the covariance of these data
        (:func:`~skggm_bench.metrics.loss_problem`: ``covariance_`` and
        ``precision_`` agree, ``covariance_`` is not a correlation matrix);
        otherwise they are NaN with the reason as their note. With or without
        it, the matrices of a pipeline's learner are mapped back through the
        steps that rescaled the features (:func:`~skggm_bench.metrics.feature_scale`);
        a step that is not such a rescaling makes the losses NaN, with why.

    Returns
    -------
    LearnerScores
        Values, notes and remarks. A metric undefined for the truth, or a loss of
        a learner without the matrix it needs, is NaN with a note; a loss of a
        singular estimate where the loss diverges (KL, Stein) is ``inf``.

    Raises
    ------
    ValueError
        If the learner exposes nothing that the edge or score metrics can read,
        or exposes an invalid matrix (NaN, asymmetric): the learner is unusable.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.covariance import GraphicalLasso
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((300, 3))
    >>> X[:, 1] += X[:, 0]
    >>> truth = GroundTruth(np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]]),
    ...                     covariance=np.array([[1, 1, 0], [1, 2, 0], [0, 0, 1.0]]))
    >>> scores = score_learner(GraphicalLasso(alpha=0.1).fit(X), truth,
    ...                        ["f1", "frobenius_loss"])
    >>> scores.values["f1"], round(scores.values["frobenius_loss"], 2)
    (1.0, 0.19)
    """
    tol = check_tol(tol)
    entries = [get_metric(metric) for metric in metrics]
    readers: dict[str, Callable[[], Any]] = {
        "edges": lambda: edges_from_estimator(estimator, model=truth.model, tol=tol),
        "scores": lambda: edge_scores_from_estimator(estimator, model=truth.model),
        "covariance": lambda: covariance_from_estimator(estimator, X=X),
        "precision": lambda: precision_from_estimator(estimator, X=X),
    }
    estimates: dict[str, Any] = {}
    values: dict[str, float] = {}
    notes: dict[str, str] = {}
    problem = unscaled = None
    if any(metric.is_loss for metric in entries):
        try:
            scale = feature_scale(estimator, X)
        except ValueError as exc:  # a step that is not a rescaling: no data scale
            unscaled = f"no loss: {exc}"
        else:
            if X is not None:
                problem = _loss_problem(readers, estimates, X, scale)
    for metric in entries:
        # A measurement of the fit (fit_time) has no function to score with.
        if metric.needs == "fit":
            raise ValueError(f"{metric.name} is measured by the harness, not scored")
        reason = metric.undefined_for(truth)
        if reason is None and metric.is_loss and unscaled is not None:
            reason = unscaled
        if reason is None and metric.needs not in estimates:
            try:
                estimates[metric.needs] = readers[metric.needs]()
            except AttributeError as exc:  # a loss of a learner without the matrix
                estimates[metric.needs] = exc
        estimate = estimates.get(metric.needs)
        if isinstance(estimate, AttributeError):
            reason = str(estimate)
        elif reason is None and metric.is_loss and problem is not None:
            reason = problem
        if reason is not None:
            values[metric.name], notes[metric.name] = math.nan, reason
            continue
        reference = (
            truth.adjacency
            if metric.needs in ("edges", "scores")
            else getattr(truth, metric.needs)
        )
        # Read by key, not .get: with no reason left, the estimate has been read.
        if metric.singular_is_infinite and _is_singular(estimates[metric.needs]):
            values[metric.name] = math.inf
            continue
        # Only fit measurements have no function, and they were refused above;
        # a related model's measure (e.g. change_tpr) is undefined for one graph.
        function = metric.function
        if function is None:
            raise ValueError(f"{metric.name} has no function to score with")
        values[metric.name] = float(function(reference, estimate, **metric.keywords))
    remark = None
    if "edges" not in estimates:
        try:
            estimates["edges"] = readers["edges"]()
        except (ValueError, AttributeError):  # no graph: the edge metrics say so
            estimates["edges"] = None
    if estimates["edges"] is not None:
        remark = selection_remark(estimates["edges"])
    return LearnerScores(values, notes, () if remark is None else (remark,))


def _loss_problem(
    readers: Mapping[str, Callable[[], Any]],
    estimates: dict[str, Any],
    X: Any,
    scale: Any,
) -> str | None:
    """:func:`loss_problem` of the learner's matrices, read once into ``estimates``."""
    matrices: list[NDArray[np.float64] | None] = []
    for needs in ("covariance", "precision"):
        if needs not in estimates:
            try:
                estimates[needs] = readers[needs]()
            except AttributeError as exc:
                estimates[needs] = exc
        matrix = estimates[needs]
        matrices.append(None if isinstance(matrix, AttributeError) else matrix)
    covariance, precision = matrices
    return loss_problem(covariance, precision, X, scale=scale)
