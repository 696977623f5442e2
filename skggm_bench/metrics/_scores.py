"""Score metrics: a true graph against continuous edge scores (ROC and PR)."""

from __future__ import annotations

import numpy as np
import scipy.stats
from numpy.typing import ArrayLike, NDArray
from sklearn import metrics as sklearn_metrics

from ..utils._linalg import upper_triangle
from ._validation import check_adjacency, check_same_shape, check_symmetric_real

__all__ = [
    "edge_average_precision",
    "edge_precision_recall_curve",
    "edge_roc_auc",
    "edge_roc_curve",
]


def _pair_labels_and_scores(
    true_adjacency: ArrayLike, edge_scores: ArrayLike
) -> tuple[NDArray[np.bool_], NDArray[np.float64]]:
    truth = check_adjacency(true_adjacency, name="true_adjacency")
    scores = check_symmetric_real(edge_scores, "edge_scores")
    check_same_shape(truth, scores, "true_adjacency", "edge_scores")
    return upper_triangle(truth), upper_triangle(scores)


# The two summary scores are computed here rather than by sklearn's functions: they
# give the same numbers (tested against them), but sklearn's input checks cost about
# 10 ms per call, which dominated the harness's time for fast learners.


def _roc_auc(labels: NDArray[np.bool_], scores: NDArray[np.float64]) -> float:
    """Mann-Whitney: P(score of an edge > score of a non-edge), ties one half."""
    ranks = scipy.stats.rankdata(scores)  # average ranks: ties count one half
    n_pos = int(np.count_nonzero(labels))
    n_neg = labels.size - n_pos
    return float((ranks[labels].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def _average_precision(labels: NDArray[np.bool_], scores: NDArray[np.float64]) -> float:
    """``sum_k (R_k - R_{k-1}) P_k`` over the distinct score thresholds."""
    order = np.argsort(-scores, kind="mergesort")
    sorted_scores, sorted_labels = scores[order], labels[order]
    # The last position of each group of tied scores is one threshold.
    last = np.flatnonzero(np.r_[np.diff(sorted_scores) != 0, True])
    true_positives = np.cumsum(sorted_labels)[last]
    precision = true_positives / (last + 1)
    recall = true_positives / true_positives[-1]
    return float(np.sum(np.diff(recall, prepend=0.0) * precision))


def _require_both_classes(labels: NDArray[np.bool_], what: str) -> None:
    # sklearn returns NaN (ROC) or 0 (AP) with a warning here; a benchmark should not
    # record such a number silently, so fail with the reason instead.
    if labels.size == 0 or labels.all() or not labels.any():
        kind = "has no edges" if not labels.any() else "is complete"
        raise ValueError(
            f"{what} is undefined because the true graph {kind}: it needs both "
            "edges and non-edges among the node pairs."
        )


def _require_true_edges(labels: NDArray[np.bool_], what: str) -> None:
    if not labels.any():
        raise ValueError(f"{what} is undefined because the true graph has no edges.")


def edge_roc_auc(true_adjacency: ArrayLike, edge_scores: ArrayLike) -> float:
    """Area under the ROC curve of ranking node pairs by edge score.

    The probability that a random true edge scores higher than a random non-edge
    (ties count one half), over the ``p(p-1)/2`` unordered pairs. Computed with
    :func:`sklearn.metrics.roc_auc_score` on the upper triangles.

    Parameters
    ----------
    true_adjacency : array-like of shape (p, p)
        Symmetric boolean / 0-1 adjacency of the true graph; diagonal ignored.
    edge_scores : array-like of shape (p, p)
        Symmetric, finite scores, higher = more likely an edge (e.g. absolute
        partial correlations); diagonal ignored.

    Returns
    -------
    float
        The ROC AUC, in [0, 1]; 0.5 for an uninformative ranking.

    Raises
    ------
    ValueError
        If the true graph is empty or complete (the AUC is undefined), or on
        invalid input (asymmetric scores, NaN, shape mismatch, ...).

    Examples
    --------
    >>> import numpy as np
    >>> true = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    >>> scores = np.array([[0, .9, .5], [.9, 0, .2], [.5, .2, 0]])
    >>> edge_roc_auc(true, scores)    # edge 01 beats non-edge 02, edge 12 does not
    0.5
    """
    labels, scores = _pair_labels_and_scores(true_adjacency, edge_scores)
    _require_both_classes(labels, "The ROC AUC")
    return _roc_auc(labels, scores)


def edge_average_precision(true_adjacency: ArrayLike, edge_scores: ArrayLike) -> float:
    """Average precision (area under the precision-recall step curve) of edge scores.

    ``AP = sum_k (R_k - R_{k-1}) P_k`` over the score thresholds, as in
    :func:`sklearn.metrics.average_precision_score`, applied to the ``p(p-1)/2``
    unordered pairs.

    Parameters
    ----------
    true_adjacency : array-like of shape (p, p)
        Symmetric boolean / 0-1 adjacency of the true graph; diagonal ignored.
    edge_scores : array-like of shape (p, p)
        Symmetric, finite scores, higher = more likely an edge; diagonal ignored.

    Returns
    -------
    float
        The average precision, in [0, 1]; about the edge density for an
        uninformative ranking.

    Raises
    ------
    ValueError
        If the true graph has no edges (recall is undefined), or on invalid input.

    Examples
    --------
    >>> import numpy as np
    >>> true = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    >>> scores = np.array([[0, .9, .5], [.9, 0, .2], [.5, .2, 0]])
    >>> round(edge_average_precision(true, scores), 4)   # 1/2 * 1 + 1/2 * 2/3
    0.8333
    """
    labels, scores = _pair_labels_and_scores(true_adjacency, edge_scores)
    _require_true_edges(labels, "The average precision")
    return _average_precision(labels, scores)


def edge_roc_curve(
    true_adjacency: ArrayLike,
    edge_scores: ArrayLike,
    *,
    drop_intermediate: bool = True,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """ROC curve of ranking the unordered node pairs by edge score.

    Thin wrapper of :func:`sklearn.metrics.roc_curve` on the upper triangles.

    Parameters
    ----------
    true_adjacency : array-like of shape (p, p)
        Symmetric boolean / 0-1 adjacency of the true graph; diagonal ignored.
    edge_scores : array-like of shape (p, p)
        Symmetric, finite scores, higher = more likely an edge; diagonal ignored.
    drop_intermediate : bool, default=True
        Drop thresholds that do not change the shape of the curve (passed on to
        sklearn).

    Returns
    -------
    fpr : ndarray
        False positive rates, increasing.
    tpr : ndarray
        True positive rates, increasing.
    thresholds : ndarray
        Decreasing thresholds; ``thresholds[0]`` is ``inf`` (nothing selected).

    Raises
    ------
    ValueError
        If the true graph is empty or complete, or on invalid input.

    Examples
    --------
    >>> import numpy as np
    >>> true = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    >>> scores = np.array([[0, .9, .5], [.9, 0, .2], [.5, .2, 0]])
    >>> fpr, tpr, thresholds = edge_roc_curve(true, scores, drop_intermediate=False)
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 1.0, 1.0], [0.0, 0.5, 0.5, 1.0])
    """
    labels, scores = _pair_labels_and_scores(true_adjacency, edge_scores)
    _require_both_classes(labels, "The ROC curve")
    fpr, tpr, thresholds = sklearn_metrics.roc_curve(
        labels, scores, drop_intermediate=drop_intermediate
    )
    return fpr, tpr, thresholds


def edge_precision_recall_curve(
    true_adjacency: ArrayLike,
    edge_scores: ArrayLike,
    *,
    drop_intermediate: bool = False,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Precision-recall curve of ranking the unordered node pairs by edge score.

    Thin wrapper of :func:`sklearn.metrics.precision_recall_curve` on the upper
    triangles (precision = PPV, recall = TPR at each threshold).

    Parameters
    ----------
    true_adjacency : array-like of shape (p, p)
        Symmetric boolean / 0-1 adjacency of the true graph; diagonal ignored.
    edge_scores : array-like of shape (p, p)
        Symmetric, finite scores, higher = more likely an edge; diagonal ignored.
    drop_intermediate : bool, default=False
        Drop thresholds that do not change the shape of the curve (passed on to
        sklearn).

    Returns
    -------
    precision : ndarray
        Precision at each threshold, followed by a final 1 (nothing selected).
    recall : ndarray
        Recall at each threshold, decreasing, followed by a final 0.
    thresholds : ndarray
        Increasing thresholds; one element shorter than ``precision``.

    Raises
    ------
    ValueError
        If the true graph has no edges, or on invalid input.

    Examples
    --------
    >>> import numpy as np
    >>> true = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    >>> scores = np.array([[0, .9, .5], [.9, 0, .2], [.5, .2, 0]])
    >>> precision, recall, thresholds = edge_precision_recall_curve(true, scores)
    >>> precision.round(3).tolist(), recall.tolist(), thresholds.tolist()
    ([0.667, 0.5, 1.0, 1.0], [1.0, 0.5, 0.5, 0.0], [0.2, 0.5, 0.9])
    """
    labels, scores = _pair_labels_and_scores(true_adjacency, edge_scores)
    _require_true_edges(labels, "The precision-recall curve")
    precision, recall, thresholds = sklearn_metrics.precision_recall_curve(
        labels, scores, drop_intermediate=drop_intermediate
    )
    return precision, recall, thresholds
