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
from ._protocol import DEFAULT_TOL, check_tol, fitted_learner

__all__ = [
    "change_scores",
    "group_edges_from_estimator",
    "group_precision_from_estimator",
    "group_scores",
    "latent_scores",
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
        return _edges_checked(np.asarray(adjacency) != 0, f"adjacency_ of {where}")
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
        ``rank`` (of ``latent_``), ``rank_error`` (``rank - true rank``),
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
    true_sparse = _stack(np.asarray(true_sparse)[None], "true_sparse")[0]
    true_low_rank = _stack(np.asarray(true_low_rank)[None], "true_low_rank")[0]
    rank = _numerical_rank(latent, rank_tol)
    true_rank = _numerical_rank(true_low_rank, rank_tol)
    truth = (true_sparse != 0) & ~np.eye(true_sparse.shape[0], dtype=bool)
    estimated = _edges_from_precisions(sparse[None], check_tol(tol))[0]
    return {
        "rank": rank,
        "rank_error": rank - true_rank,
        "sparse_relative_error": float(
            np.linalg.norm(sparse - true_sparse) / np.linalg.norm(true_sparse)
        ),
        "low_rank_relative_error": float(
            np.linalg.norm(latent - true_low_rank) / np.linalg.norm(true_low_rank)
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
