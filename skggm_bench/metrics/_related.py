"""Scores of learners of related models: K classes, T time points, hidden variables.

The learner protocol for these models follows the ecosystem (regain, gglasso
through a wrapper): ``fit(X, y)`` with ``y`` the class or time of each row, and
``precision_`` of shape (K, p, p), or ``adjacency_`` of that shape for a learner
that decides its edges itself. A latent-variable learner exposes ``precision_``
(the sparse part ``S``) and ``latent_`` (the low-rank part ``L``; its observed
precision is ``precision_ - latent_``), as regain's ``LatentGraphicalLasso`` does.

Per-group metrics are the single-graph edge metrics and precision losses of each
class or time, averaged over the groups. Change metrics score the edges that
differ between groups: between every pair of classes (``changes="pairs"``) or
between consecutive time points (``changes="consecutive"``), the true changes
``G_k xor G_l`` against the estimated ones ``G^_k xor G^_l``, pooled over the
pairs.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from itertools import combinations
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._edges import (
    f1_score,
    positive_predictive_value,
    structural_hamming_distance,
    true_positive_rate,
)
from ._losses import frobenius_loss, kl_divergence
from ._protocol import (
    DEFAULT_TOL,
    check_edge_decisions,
    check_tol,
    edges_from_estimator,
    fitted_learner,
)
from ._registry import GroundTruth, LearnerScores, Metric, get_metric, score_learner

__all__ = [
    "change_scores",
    "group_edges_from_estimator",
    "group_precision_from_estimator",
    "group_scores",
    "latent_scores",
    "score_group_learner",
    "score_latent_learner",
]

Changes = Literal["pairs", "consecutive"]


def _stack(matrices: Any, name: str) -> NDArray[np.float64]:
    array = np.asarray(matrices, dtype=np.float64)
    if array.ndim != 3 or array.shape[1] != array.shape[2]:
        raise ValueError(
            f"{name} must have shape (n_groups, p, p), got shape {array.shape}"
        )
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return array


def group_precision_from_estimator(estimator: Any) -> NDArray[np.float64]:
    """The ``precision_`` of shape (K, p, p) of a fitted learner of related models.

    Pipelines and searches are read through as in the single-model protocol.
    """
    learner, where = fitted_learner(estimator)
    precision = getattr(learner, "precision_", None)
    if precision is None:
        raise ValueError(f"{where} has no precision_ attribute")
    return _stack(precision, f"precision_ of {where}")


def group_edges_from_estimator(
    estimator: Any, *, tol: float = DEFAULT_TOL
) -> NDArray[np.bool_]:
    """The estimated graph of every group, shape (K, p, p), dtype bool.

    ``adjacency_`` of shape (K, p, p) if the learner has one; otherwise the pairs
    of each ``precision_[k]`` whose absolute partial correlation exceeds ``tol``.
    An array of shape (K, p, p) is accepted in place of an estimator (boolean: the
    graphs; otherwise: precisions).

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.metrics import group_edges_from_estimator
    >>> precisions = np.array([np.eye(2), [[1.0, 0.5], [0.5, 1.0]]])
    >>> group_edges_from_estimator(precisions)[:, 0, 1].tolist()
    [False, True]
    """
    tol = check_tol(tol)
    if isinstance(estimator, np.ndarray):
        if estimator.dtype == bool:
            return _edges_checked(estimator, "the estimated graphs")
        return _edges_from_precisions(_stack(estimator, "the precisions"), tol)
    learner, where = fitted_learner(estimator)
    adjacency = getattr(learner, "adjacency_", None)
    if adjacency is not None:
        name = f"{where}.adjacency_"
        decisions = np.asarray(check_edge_decisions(adjacency, name))
        return _edges_checked(decisions != 0, name)
    return _edges_from_precisions(group_precision_from_estimator(estimator), tol)


def _edges_checked(adjacency: np.ndarray, name: str) -> NDArray[np.bool_]:
    adjacency = np.array(adjacency, dtype=bool)
    if adjacency.ndim != 3 or adjacency.shape[1] != adjacency.shape[2]:
        raise ValueError(f"{name} must have shape (n_groups, p, p)")
    if not np.array_equal(adjacency, np.swapaxes(adjacency, 1, 2)):
        raise ValueError(f"{name} must be symmetric")
    index = np.arange(adjacency.shape[1])
    adjacency[:, index, index] = False
    return adjacency


def _edges_from_precisions(
    precisions: NDArray[np.float64], tol: float
) -> NDArray[np.bool_]:
    diagonal = np.diagonal(precisions, axis1=1, axis2=2)
    if np.any(diagonal <= 0):
        raise ValueError("every precision must have a positive diagonal")
    scale = 1.0 / np.sqrt(diagonal)
    partial = np.abs(precisions) * scale[:, :, None] * scale[:, None, :]
    # Estimates may be symmetric only up to rounding: a pair is an edge when
    # either triangle says so.
    edges = partial > tol
    edges |= np.swapaxes(edges, 1, 2)
    index = np.arange(precisions.shape[1])
    edges[:, index, index] = False
    return edges


def _group_pairs(n_groups: int, changes: Changes) -> list[tuple[int, int]]:
    if changes == "pairs":
        return list(combinations(range(n_groups), 2))
    if changes == "consecutive":
        return [(t, t + 1) for t in range(n_groups - 1)]
    raise ValueError(f"changes must be 'pairs' or 'consecutive', got {changes!r}")


def change_scores(
    true_adjacency: ArrayLike,
    estimated_adjacency: ArrayLike,
    *,
    changes: Changes = "pairs",
) -> dict[str, float]:
    """TPR and PPV of the edges that differ between groups.

    Parameters
    ----------
    true_adjacency, estimated_adjacency : array-like of shape (K, p, p)
        The true and estimated graphs of each group.
    changes : {"pairs", "consecutive"}, default="pairs"
        Compare every pair of classes, or consecutive time points.

    Returns
    -------
    dict
        ``change_tpr`` (share of the true changes found; NaN without true
        changes) and ``change_ppv`` (share of the estimated changes that are true;
        1 when none is estimated, as for the single-graph PPV), pooled over the
        compared pairs of groups, and ``n_true_changes``.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.metrics import change_scores
    >>> a = np.zeros((2, 3, 3), dtype=bool)
    >>> a[1, 0, 1] = a[1, 1, 0] = True          # one edge appears in group 1
    >>> b = a.copy(); b[1, 1, 2] = b[1, 2, 1] = True  # and a spurious change
    >>> change_scores(a, b)
    {'change_tpr': 1.0, 'change_ppv': 0.5, 'n_true_changes': 1}
    """
    truth = _edges_checked(np.asarray(true_adjacency) != 0, "true_adjacency")
    estimate = _edges_checked(np.asarray(estimated_adjacency) != 0, "estimated")
    if truth.shape != estimate.shape:
        raise ValueError(
            f"true and estimated graphs have shapes {truth.shape} and {estimate.shape}"
        )
    upper = np.triu(np.ones(truth.shape[1:], dtype=bool), 1)
    found = true_changes = estimated_changes = 0
    for k, other in _group_pairs(truth.shape[0], changes):
        true_change = (truth[k] ^ truth[other]) & upper
        estimated_change = (estimate[k] ^ estimate[other]) & upper
        found += int(np.count_nonzero(true_change & estimated_change))
        true_changes += int(np.count_nonzero(true_change))
        estimated_changes += int(np.count_nonzero(estimated_change))
    return {
        "change_tpr": found / true_changes if true_changes else float("nan"),
        "change_ppv": found / estimated_changes if estimated_changes else 1.0,
        "n_true_changes": true_changes,
    }


def group_scores(
    estimator: Any,
    true_adjacency: ArrayLike,
    true_precision: ArrayLike | None = None,
    *,
    changes: Changes = "pairs",
    tol: float = DEFAULT_TOL,
    per_group: bool = False,
) -> dict[str, Any]:
    """Every metric of a learner of related models, averaged over the groups.

    Parameters
    ----------
    estimator : fitted estimator or ndarray of shape (K, p, p)
        A learner following the protocol of this module (or its precisions, or
        its graphs as a boolean array).
    true_adjacency : array-like of shape (K, p, p)
        The true graph of each group.
    true_precision : array-like of shape (K, p, p) or None, default=None
        The true precisions; with them (and an estimated ``precision_``) the
        precision Frobenius loss and the KL divergence are added.
    changes : {"pairs", "consecutive"}, default="pairs"
        Which groups the change metrics compare (:func:`change_scores`).
    tol : float, default=1e-8
        Threshold on absolute partial correlations for an estimated edge.
    per_group : bool, default=False
        Also return each metric's values per group, under ``"<name>_per_group"``.

    Returns
    -------
    dict
        ``tpr``, ``ppv``, ``f1``, ``shd`` (means over the groups),
        ``precision_frobenius_loss`` and ``kl_divergence`` (with the truth's
        precisions), ``change_tpr``, ``change_ppv`` and ``n_true_changes``. The
        names are those of :data:`RELATED_METRICS`.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.metrics import group_scores
    >>> truth = np.zeros((2, 3, 3), dtype=bool)
    >>> truth[:, 0, 1] = truth[:, 1, 0] = True
    >>> scores = group_scores(truth, truth)
    >>> scores["f1"], scores["shd"], scores["change_tpr"]
    (1.0, 0.0, nan)
    """
    truth = _edges_checked(np.asarray(true_adjacency) != 0, "true_adjacency")
    estimated = group_edges_from_estimator(estimator, tol=tol)
    if estimated.shape != truth.shape:
        raise ValueError(
            f"the learner estimated {estimated.shape[0]} graphs on "
            f"{estimated.shape[1]} nodes; the truth has {truth.shape[0]} on "
            f"{truth.shape[1]}"
        )
    values: dict[str, list[float]] = {"tpr": [], "ppv": [], "f1": [], "shd": []}
    for true_graph, graph in zip(truth, estimated, strict=True):
        values["tpr"].append(true_positive_rate(true_graph, graph))
        values["ppv"].append(positive_predictive_value(true_graph, graph))
        values["f1"].append(f1_score(true_graph, graph))
        values["shd"].append(float(structural_hamming_distance(true_graph, graph)))
    precisions = _estimated_precisions(estimator)
    if true_precision is not None and precisions is not None:
        true_precision = _stack(true_precision, "true_precision")
        values["precision_frobenius_loss"] = [
            frobenius_loss(t, e)
            for t, e in zip(true_precision, precisions, strict=True)
        ]
        values["kl_divergence"] = [
            _kl_or_inf(t, e) for t, e in zip(true_precision, precisions, strict=True)
        ]
    scores: dict[str, Any] = {name: float(np.mean(v)) for name, v in values.items()}
    scores.update(change_scores(truth, estimated, changes=changes))
    if per_group:
        scores.update({f"{name}_per_group": v for name, v in values.items()})
    return scores


def _estimated_precisions(estimator: Any) -> NDArray[np.float64] | None:
    if isinstance(estimator, np.ndarray):
        return None if estimator.dtype == bool else _stack(estimator, "precisions")
    learner, _ = fitted_learner(estimator)
    if getattr(learner, "precision_", None) is None:
        return None
    return group_precision_from_estimator(estimator)


def _kl_or_inf(true_precision: np.ndarray, estimate: np.ndarray) -> float:
    # A singular or indefinite estimate is infinitely far in KL, not an error.
    symmetric = 0.5 * (estimate + estimate.T)
    if np.linalg.eigvalsh(symmetric)[0] <= 0:
        return float("inf")
    return kl_divergence(true_precision, symmetric, role="precision")


def latent_scores(
    estimator: Any,
    true_sparse: ArrayLike,
    true_low_rank: ArrayLike,
    *,
    rank_tol: float = 1e-6,
    tol: float = DEFAULT_TOL,
) -> dict[str, float]:
    """Scores of a latent-variable learner: rank recovered, error of ``S``, edges.

    Parameters
    ----------
    estimator : fitted estimator
        Exposes ``precision_`` (the sparse part) and ``latent_`` (the low-rank
        part), as regain's ``LatentGraphicalLasso``.
    true_sparse, true_low_rank : array-like of shape (p, p)
        The truth ``S`` and ``L`` (e.g. from
        :func:`~skggm_bench.datasets.make_latent_ggm`).
    rank_tol : float, default=1e-6
        Eigenvalues of ``latent_`` above ``rank_tol`` times its largest count
        towards its rank.
    tol : float, default=1e-8
        Threshold on the absolute partial correlations of ``precision_``.

    Returns
    -------
    dict
        ``rank`` (of ``latent_``), ``rank_error`` (``|rank - true rank|``: ranked
        lower-is-better, so an under- and an over-estimate count alike),
        ``sparse_relative_error`` (``||S^ - S||_F / ||S||_F``),
        ``low_rank_relative_error``, and ``tpr``, ``ppv``, ``f1`` of the support
        of ``S``.

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> from skggm_bench.metrics import latent_scores
    >>> S = np.array([[1.0, 0.3], [0.3, 1.0]]); L = np.full((2, 2), 0.1)
    >>> scores = latent_scores(SimpleNamespace(precision_=S, latent_=L), S, L)
    >>> scores["rank"], scores["rank_error"], scores["sparse_relative_error"]
    (1, 0, 0.0)
    """
    learner, where = fitted_learner(estimator)
    missing = [
        name
        for name in ("precision_", "latent_")
        if getattr(learner, name, None) is None
    ]
    if missing:
        raise ValueError(f"{where} has no {' or '.join(missing)} attribute")
    sparse = _stack(np.asarray(learner.precision_)[None], f"precision_ of {where}")[0]
    latent = _stack(np.asarray(learner.latent_)[None], f"latent_ of {where}")[0]
    sparse_truth = _stack(np.asarray(true_sparse)[None], "true_sparse")[0]
    low_rank_truth = _stack(np.asarray(true_low_rank)[None], "true_low_rank")[0]
    rank = _numerical_rank(latent, rank_tol)
    true_rank = _numerical_rank(low_rank_truth, rank_tol)
    truth = (sparse_truth != 0) & ~np.eye(sparse_truth.shape[0], dtype=bool)
    estimated = _edges_from_precisions(sparse[None], check_tol(tol))[0]
    return {
        "rank": rank,
        "rank_error": abs(rank - true_rank),
        "sparse_relative_error": float(
            np.linalg.norm(sparse - sparse_truth) / np.linalg.norm(sparse_truth)
        ),
        "low_rank_relative_error": float(
            np.linalg.norm(latent - low_rank_truth) / np.linalg.norm(low_rank_truth)
        ),
        "tpr": true_positive_rate(truth, estimated),
        "ppv": positive_predictive_value(truth, estimated),
        "f1": f1_score(truth, estimated),
    }


def _numerical_rank(matrix: np.ndarray, rank_tol: float) -> int:
    eigenvalues = np.abs(np.linalg.eigvalsh(0.5 * (matrix + matrix.T)))
    if eigenvalues.max() == 0:
        return 0
    return int(np.count_nonzero(eigenvalues > rank_tol * eigenvalues.max()))


# What a learner of related models exposes per group, read like a single-graph
# learner's attributes.
_GROUP_ATTRIBUTES = ("adjacency_", "precision_", "covariance_", "partial_correlation_")


class _OneGroup:
    """The estimate of one class or time point, read as a single-graph learner."""

    def __init__(self, attributes: dict[str, np.ndarray]) -> None:
        self.__dict__.update(attributes)


def _group_views(estimator: Any, n_groups: int) -> list[_OneGroup]:
    learner, where = fitted_learner(estimator)
    found = {}
    for name in _GROUP_ATTRIBUTES:
        value = getattr(learner, name, None)
        if value is None:
            continue
        value = np.asarray(value)
        if value.ndim == 2:
            raise ValueError(
                f"{where} estimated one graph ({name} of shape {value.shape}) for "
                f"{n_groups} classes or time points: it does not learn related "
                "models from fit(X, y). For the per-class baseline of a "
                f"single-graph learner, wrap it: PerClass({type(learner).__name__}"
                "(...))"
            )
        if value.ndim != 3 or value.shape[0] != n_groups:
            raise ValueError(
                f"{name} of {where} has shape {value.shape}; expected "
                f"({n_groups}, p, p), one matrix per class or time point"
            )
        found[name] = value
    if not found:
        raise ValueError(
            f"{where} exposes none of {', '.join(_GROUP_ATTRIBUTES)}: nothing to "
            "read its graphs from"
        )
    return [
        _OneGroup({name: value[k] for name, value in found.items()})
        for k in range(n_groups)
    ]


def _related_only(entry: Metric, has: str) -> str | None:
    if entry.needs == "groups" and has != "groups":
        return (
            "a metric of several related graphs (classes or time points); this "
            "data set has one graph"
        )
    if entry.needs == "latent" and has != "latent":
        return (
            "a metric of latent-variable models; this data set has no hidden variables"
        )
    return None


def score_group_learner(
    estimator: Any,
    truths: Sequence[GroundTruth],
    metrics: Iterable[str | Metric],
    *,
    changes: Changes = "pairs",
    X: Sequence[Any] | None = None,
    tol: float = DEFAULT_TOL,
) -> LearnerScores:
    """Score a fitted learner of K related models on any metrics of the registry.

    Each single-graph metric (edges, edge scores, losses) is computed for every
    class or time point, as :func:`~skggm_bench.metrics.score_learner` computes it
    for one graph, and averaged over the groups where it is defined; the change
    metrics (``change_tpr``, ``change_ppv``, ``n_true_changes``) compare the
    groups (:func:`change_scores`).

    Parameters
    ----------
    estimator : fitted estimator
        A learner of related models: ``adjacency_``, ``precision_``,
        ``covariance_`` or ``partial_correlation_`` of shape (K, p, p).
    truths : sequence of GroundTruth
        The truth of each group, in the learner's order of the classes.
    metrics : iterable of str or Metric
        Names of the registry, :data:`RELATED_METRICS` included.
    changes : {"pairs", "consecutive"}, default="pairs"
        Which groups the change metrics compare.
    X : sequence of array-like or None, default=None
        The rows of each group, for the losses' check that a matrix estimates
        the covariance of the data (see ``score_learner``).
    tol : float, default=1e-8
        Tolerance for "non-zero" when edges are read from a matrix.

    Returns
    -------
    LearnerScores
        Values (the means over the groups), notes for NaN values, and remarks
        (a group's selection remark, a metric defined for only some groups).

    Raises
    ------
    ValueError
        If the learner estimated one graph (a single-graph learner that ignores
        ``y``: the message suggests ``PerClass``) or another number of groups.

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> from skggm_bench.metrics import GroundTruth, score_group_learner
    >>> graphs = np.zeros((2, 3, 3), dtype=bool)
    >>> graphs[:, 0, 1] = graphs[:, 1, 0] = True
    >>> graphs[1, 1, 2] = graphs[1, 2, 1] = True
    >>> truths = [GroundTruth(g) for g in graphs]
    >>> fitted = SimpleNamespace(adjacency_=graphs)
    >>> score_group_learner(fitted, truths, ["f1", "change_tpr"]).values
    {'f1': 1.0, 'change_tpr': 1.0}
    """
    entries = [get_metric(metric) for metric in metrics]
    views = _group_views(estimator, len(truths))
    single = [e for e in entries if e.needs not in ("groups", "latent")]
    per_group = [
        score_learner(view, truth, single, tol=tol, X=None if X is None else X[k])
        for k, (view, truth) in enumerate(zip(views, truths, strict=True))
    ]
    values: dict[str, float] = {}
    notes: dict[str, str] = {}
    remarks: list[str] = []
    changed: dict[str, float] | None = None
    for entry in entries:
        reason = _related_only(entry, "groups")
        if reason is not None:
            values[entry.name], notes[entry.name] = math.nan, reason
        elif entry.needs == "groups":
            if changed is None:
                true_graphs = np.stack([truth.adjacency for truth in truths])
                estimated = np.stack(
                    [edges_from_estimator(view, tol=tol) for view in views]
                )
                changed = change_scores(true_graphs, estimated, changes=changes)
            values[entry.name] = float(changed[entry.name])
            if math.isnan(values[entry.name]):
                notes[entry.name] = "the true graphs do not change between groups"
        else:
            got = [scores.values[entry.name] for scores in per_group]
            defined = [k for k, value in enumerate(got) if not math.isnan(value)]
            if not defined:
                values[entry.name] = math.nan
                notes[entry.name] = f"group 0: {per_group[0].notes[entry.name]}"
                continue
            values[entry.name] = float(np.mean([got[k] for k in defined]))
            if len(defined) < len(got):
                k = next(k for k in range(len(got)) if k not in defined)
                remarks.append(
                    f"{entry.name} averaged over {len(defined)} of {len(got)} "
                    f"groups (group {k}: {per_group[k].notes[entry.name]})"
                )
    for k, scores in enumerate(per_group):
        remarks.extend(f"group {k} {remark}" for remark in scores.remarks)
    return LearnerScores(values, notes, tuple(remarks))


def score_latent_learner(
    estimator: Any,
    truth: GroundTruth,
    sparse: ArrayLike,
    low_rank: ArrayLike,
    metrics: Iterable[str | Metric],
    *,
    X: Any = None,
    tol: float = DEFAULT_TOL,
) -> LearnerScores:
    """Score a fitted learner on data with hidden variables, on any registry metrics.

    The single-graph metrics are :func:`~skggm_bench.metrics.score_learner`'s
    against ``truth`` (whose graph is the support of ``S``: what a latent-variable
    learner's ``precision_`` estimates); the latent metrics (``rank``,
    ``rank_error``, ``sparse_relative_error``, ``low_rank_relative_error``) are
    :func:`latent_scores`', NaN with a note for a learner without ``latent_``.

    Parameters
    ----------
    estimator : fitted estimator
        Any learner; a latent-variable one exposes ``latent_``.
    truth : GroundTruth
        The observed variables' truth: the graph of ``S``, and the covariance
        and precision (``S - L``) of the observed variables.
    sparse, low_rank : array-like of shape (p, p)
        The true ``S`` and ``L``.
    metrics : iterable of str or Metric
        Names of the registry, :data:`RELATED_METRICS` included.
    X : array-like or None, default=None
        The data, for the losses' check (see ``score_learner``).
    tol : float, default=1e-8
        Tolerance for "non-zero" when edges are read from a matrix.

    Returns
    -------
    LearnerScores

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> from skggm_bench.metrics import GroundTruth, score_latent_learner
    >>> S = np.array([[1.0, 0.3], [0.3, 1.0]]); L = np.full((2, 2), 0.1)
    >>> fitted = SimpleNamespace(precision_=S, latent_=L)
    >>> score_latent_learner(fitted, GroundTruth(S != 0), S, L,
    ...                      ["f1", "rank_error"]).values
    {'f1': 1.0, 'rank_error': 0.0}
    """
    entries = [get_metric(metric) for metric in metrics]
    single = [e for e in entries if e.needs not in ("groups", "latent")]
    base = score_learner(estimator, truth, single, tol=tol, X=X)
    values: dict[str, float] = {}
    notes: dict[str, str] = {}
    latent: dict[str, float] | str | None = None
    for entry in entries:
        reason = _related_only(entry, "latent")
        if entry.needs == "latent":
            if latent is None:
                learner, where = fitted_learner(estimator)
                if getattr(learner, "latent_", None) is None:
                    latent = (
                        f"{where} has no latent_ attribute: it does not estimate "
                        "a low-rank part"
                    )
                else:
                    latent = latent_scores(estimator, sparse, low_rank, tol=tol)
            if isinstance(latent, str):
                reason = latent
            else:
                values[entry.name] = float(latent[entry.name])
                continue
        if reason is not None:
            values[entry.name], notes[entry.name] = math.nan, reason
            continue
        values[entry.name] = base.values[entry.name]
        if entry.name in base.notes:
            notes[entry.name] = base.notes[entry.name]
    return LearnerScores(values, notes, base.remarks)
