"""Recovery metrics for Gaussian graphical models, and scorers sklearn understands.

Four families of functions live here:

* **Edge metrics** compare a true and an estimated graph, both given as ``p x p``
  symmetric adjacency matrices (booleans or 0/1), called like sklearn's
  ``metric(y_true, y_pred)``: :func:`edge_confusion`, :func:`true_positive_rate`,
  :func:`positive_predictive_value`, :func:`false_positive_rate`, :func:`f1_score`,
  :func:`matthews_corrcoef`, :func:`structural_hamming_distance`. Graphs are
  undirected: each unordered pair ``{i, j}``, ``i != j``, is counted once (the upper
  triangle) and the diagonal is ignored.
* **Score metrics** rank the ``p(p-1)/2`` pairs by an edge score (higher = more
  likely an edge, e.g. absolute partial correlations): :func:`edge_roc_auc`,
  :func:`edge_average_precision`, :func:`edge_roc_curve`,
  :func:`edge_precision_recall_curve`.
* **Matrix losses** compare a true and an estimated covariance or precision matrix:
  :func:`frobenius_loss`, :func:`spectral_loss`, :func:`kl_divergence`,
  :func:`stein_loss`.
* **Estimator helpers**: :func:`edges_from_estimator`,
  :func:`edge_scores_from_estimator` and :func:`make_structure_scorer`, which read a
  fitted estimator following the protocol below.

Reading a fitted estimator (the estimator protocol)
---------------------------------------------------
This is the single reference for how skggm-bench turns *any* fitted sklearn
estimator into a graph. The helpers and scorers below implement it; other modules
and the documentation should link here rather than restate it. ``model`` says
which graph is being estimated: ``"concentration"`` (zeros of the precision matrix
= conditional independences) or ``"covariance"`` (zeros of the covariance matrix =
marginal independences).

Edges (:func:`edges_from_estimator`) are taken from the first of these attributes
that the estimator exposes (an attribute that is missing or ``None`` is skipped):

1. ``adjacency_`` -- the estimator's own edge decisions, a symmetric boolean / 0-1
   matrix, used as is for either ``model`` (``tol`` is not applied).
2. ``precision_`` (``model="concentration"`` only) -- pair ``{i, j}`` is an edge when
   the absolute partial correlation
   ``|rho_ij| = |Omega_ij| / sqrt(Omega_ii * Omega_jj)`` exceeds ``tol``.
3. ``covariance_`` (``model="covariance"`` only) -- pair ``{i, j}`` is an edge when
   the absolute correlation ``|Sigma_ij| / sqrt(Sigma_ii * Sigma_jj)`` exceeds
   ``tol``.

Edge scores (:func:`edge_scores_from_estimator`) need a ranking, so the continuous
matrix comes first: absolute partial correlations from ``precision_``
(``model="concentration"``) or absolute correlations from ``covariance_``
(``model="covariance"``). A concentration-graph estimator without ``precision_``
but with ``partial_correlation_`` (the node-wise regressions of
:mod:`skggm_bench.learners`) is scored by ``|partial_correlation_|``. Only if none
of these is present is ``adjacency_`` used, as 0/1 scores (its ROC curve then has a
single operating point).

``tol`` is applied to the *standardised* matrix rather than to raw entries so that
it does not depend on the units of the variables; "non-zero" means "above numerical
round-off", hence the small default (``1e-8``). An estimator exposing none of the
usable attributes (typically: not fitted yet) gets a ``ValueError`` naming what was
looked for. Matrices read from an estimator are validated like any other input
(square, finite, symmetric up to round-off, positive diagonal).

Empty-case conventions
----------------------
Following Krämer, Schäfer & Boulesteix (2009), *Regularized estimation of
large-scale gene association networks using graphical Gaussian models*, BMC
Bioinformatics 10:384, the true positive rate is 1 when the true graph has no edges
(nothing to find, nothing missed) and the positive predictive value is 1 when no
edge is selected (no false selection). Consistently, the false positive rate is 0
when the true graph is complete and F1 is 1 when both graphs are empty (perfect
recovery of the empty graph). The Matthews correlation is 0 whenever it is undefined
(either graph empty or complete), as in :func:`sklearn.metrics.matthews_corrcoef`.
Every such function takes ``zero_division=`` to choose another value (e.g.
``numpy.nan``).
"""

from __future__ import annotations

import inspect
import numbers
from collections.abc import Callable
from typing import Any, Literal, NamedTuple

import numpy as np
import scipy.linalg
import scipy.sparse
from numpy.typing import ArrayLike, NDArray
from sklearn import metrics as _skm

__all__ = [
    "EdgeConfusion",
    "StructureScorer",
    "edge_average_precision",
    "edge_confusion",
    "edge_precision_recall_curve",
    "edge_roc_auc",
    "edge_roc_curve",
    "edge_scores_from_estimator",
    "edges_from_estimator",
    "f1_score",
    "false_positive_rate",
    "frobenius_loss",
    "kl_divergence",
    "make_structure_scorer",
    "matthews_corrcoef",
    "positive_predictive_value",
    "spectral_loss",
    "stein_loss",
    "structural_hamming_distance",
    "true_positive_rate",
]

Model = Literal["concentration", "covariance"]
Role = Literal["covariance", "precision"]

_MODELS = ("concentration", "covariance")
_ROLES = ("covariance", "precision")

# Relative tolerance for "symmetric" real matrices (scores, covariances, precisions).
# Estimators produce matrices that are symmetric only up to floating-point round-off
# (e.g. a pseudo-inverse computed as U diag(s) U^T), which is ~1e-16 relative; 1e-8
# accepts that while rejecting any genuinely asymmetric input (e.g. a node-wise
# regression coefficient matrix passed by mistake).
_SYMMETRY_RTOL = 1e-8

# Default tolerance on |partial correlation| for "non-zero": far above round-off of
# a standardised matrix, far below anything estimable from data (the standard
# error of a partial correlation is about 1/sqrt(n)).
_DEFAULT_TOL = 1e-8


# --------------------------------------------------------------------------------------
# Input validation
# --------------------------------------------------------------------------------------


def _as_square_real_array(x: Any, name: str) -> NDArray[Any]:
    """Return ``x`` as a dense, non-empty, square, NaN-free real numpy array."""
    if scipy.sparse.issparse(x):
        x = x.toarray()
    arr = np.asarray(x)
    if arr.dtype.kind not in "biuf":
        raise TypeError(
            f"{name} must be a real (boolean, integer or float) array, "
            f"got dtype {arr.dtype}."
        )
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be a square 2-D array, got shape {arr.shape}.")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} must have at least one node, got shape {arr.shape}.")
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise ValueError(f"{name} contains NaN.")
    return arr


def _first_asymmetric_pair(mask: NDArray[np.bool_]) -> tuple[int, int]:
    i, j = np.argwhere(mask)[0]
    return int(i), int(j)


def _check_adjacency(x: Any, name: str) -> NDArray[np.bool_]:
    """Validate an adjacency matrix; return it as booleans with a False diagonal."""
    arr = _as_square_real_array(x, name)
    off_diagonal = ~np.eye(arr.shape[0], dtype=bool)
    if arr.dtype != bool:
        values = arr[off_diagonal]
        if not np.all((values == 0) | (values == 1)):
            raise ValueError(
                f"{name} must contain only booleans or 0/1 off the diagonal; "
                "threshold edge weights first, or use the edge-score metrics "
                "(edge_roc_auc, ...) for continuous scores."
            )
    adjacency = (arr != 0) & off_diagonal
    asymmetric = adjacency != adjacency.T
    if asymmetric.any():
        i, j = _first_asymmetric_pair(asymmetric)
        raise ValueError(
            f"{name} must be symmetric (an undirected graph), but entry ({i}, {j}) "
            f"is {bool(adjacency[i, j])} and entry ({j}, {i}) is "
            f"{bool(adjacency[j, i])}."
        )
    return adjacency


def _check_symmetric_real(x: Any, name: str) -> NDArray[np.float64]:
    """Validate a finite, symmetric (up to round-off) real matrix; symmetrise it."""
    arr = _as_square_real_array(x, name).astype(np.float64)
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains infinite values.")
    scale = np.abs(arr).max()
    asymmetric = np.abs(arr - arr.T) > _SYMMETRY_RTOL * scale
    if asymmetric.any():
        i, j = _first_asymmetric_pair(asymmetric)
        raise ValueError(
            f"{name} must be symmetric, but entry ({i}, {j}) = {arr[i, j]!r} and "
            f"entry ({j}, {i}) = {arr[j, i]!r}."
        )
    # Average away the round-off so downstream code sees an exactly symmetric matrix.
    return (arr + arr.T) / 2.0


def _check_same_shape(
    a: NDArray[Any], b: NDArray[Any], name_a: str, name_b: str
) -> None:
    if a.shape != b.shape:
        raise ValueError(
            f"{name_a} and {name_b} must have the same shape, got {a.shape} and "
            f"{b.shape}."
        )


def _check_zero_division(value: Any, low: float, high: float) -> float:
    """``zero_division`` must be a real number in ``[low, high]`` or NaN."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"zero_division must be a real number or numpy.nan, got {value!r}."
        )
    value = float(value)
    if not (np.isnan(value) or low <= value <= high):
        raise ValueError(
            f"zero_division must lie in [{low}, {high}] or be numpy.nan, got {value}."
        )
    return value


def _upper_triangle(matrix: NDArray[Any]) -> NDArray[Any]:
    """Values at the pairs i < j, each unordered pair once, in row-major order."""
    return matrix[np.triu(np.ones(matrix.shape, dtype=bool), k=1)]


# --------------------------------------------------------------------------------------
# Edge metrics (true adjacency vs estimated adjacency)
# --------------------------------------------------------------------------------------


class EdgeConfusion(NamedTuple):
    """Counts of the ``p(p-1)/2`` unordered node pairs of an edge-recovery task.

    Attributes
    ----------
    tp : int
        True positives: edges of both graphs.
    fp : int
        False positives: estimated edges absent from the true graph.
    tn : int
        True negatives: pairs that are edges of neither graph.
    fn : int
        False negatives: true edges that were not estimated.

    Examples
    --------
    >>> counts = EdgeConfusion(tp=2, fp=1, tn=2, fn=1)
    >>> counts.n_pairs, counts.n_true_edges, counts.n_selected
    (6, 3, 3)
    """

    tp: int
    fp: int
    tn: int
    fn: int

    @property
    def n_pairs(self) -> int:
        """Number of unordered node pairs, ``p(p-1)/2``."""
        return self.tp + self.fp + self.tn + self.fn

    @property
    def n_true_edges(self) -> int:
        """Number of edges of the true graph, ``tp + fn``."""
        return self.tp + self.fn

    @property
    def n_selected(self) -> int:
        """Number of edges of the estimated graph, ``tp + fp``."""
        return self.tp + self.fp


def edge_confusion(
    true_adjacency: ArrayLike, estimated_adjacency: ArrayLike
) -> EdgeConfusion:
    """Count true/false positives/negatives over the unordered node pairs.

    Parameters
    ----------
    true_adjacency : array-like of shape (p, p)
        Adjacency of the true graph: symmetric, booleans or 0/1 (a ``scipy.sparse``
        matrix is accepted). The diagonal is ignored.
    estimated_adjacency : array-like of shape (p, p)
        Adjacency of the estimated graph, same requirements.

    Returns
    -------
    EdgeConfusion
        Named tuple ``(tp, fp, tn, fn)``; the four counts add up to ``p(p-1)/2``
        because each unordered pair ``{i, j}`` is counted once.

    Raises
    ------
    ValueError
        If an input is not square, not symmetric, contains NaN or values other than
        0/1 off the diagonal, or if the shapes differ.

    Examples
    --------
    >>> import numpy as np
    >>> true = np.zeros((4, 4), dtype=bool)
    >>> true[[0, 1, 2], [1, 2, 3]] = True      # chain 0-1-2-3
    >>> true = true | true.T
    >>> est = np.zeros((4, 4), dtype=bool)
    >>> est[[0, 1, 0], [1, 2, 2]] = True       # edges 01, 12, 02
    >>> est = est | est.T
    >>> edge_confusion(true, est)
    EdgeConfusion(tp=2, fp=1, tn=2, fn=1)
    """
    truth = _check_adjacency(true_adjacency, "true_adjacency")
    estimate = _check_adjacency(estimated_adjacency, "estimated_adjacency")
    _check_same_shape(truth, estimate, "true_adjacency", "estimated_adjacency")
    # Both matrices are symmetric with an empty diagonal, so every unordered pair
    # appears exactly twice in the full matrix: count there and halve. This avoids
    # materialising the p(p-1)/2 index arrays of the upper triangle.
    tp = np.count_nonzero(truth & estimate) // 2
    fp = np.count_nonzero(~truth & estimate) // 2
    fn = np.count_nonzero(truth & ~estimate) // 2
    p = truth.shape[0]
    tn = p * (p - 1) // 2 - tp - fp - fn
    return EdgeConfusion(tp=int(tp), fp=int(fp), tn=int(tn), fn=int(fn))


def _ratio(numerator: int, denominator: int, zero_division: float) -> float:
    return zero_division if denominator == 0 else numerator / denominator


def true_positive_rate(
    true_adjacency: ArrayLike,
    estimated_adjacency: ArrayLike,
    *,
    zero_division: float = 1.0,
) -> float:
    """Fraction of the true edges that were estimated (sensitivity, recall, power).

    ``TPR = TP / (TP + FN)``, each unordered pair counted once.

    Parameters
    ----------
    true_adjacency : array-like of shape (p, p)
        Symmetric boolean / 0-1 adjacency of the true graph; diagonal ignored.
    estimated_adjacency : array-like of shape (p, p)
        Symmetric boolean / 0-1 adjacency of the estimated graph; diagonal ignored.
    zero_division : float, default=1.0
        Value returned when the true graph has no edges (``TP + FN = 0``). The
        default 1 is the convention of Krämer et al. (2009): nothing was missed.
        Any value in [0, 1] or ``numpy.nan``.

    Returns
    -------
    float
        The true positive rate, in [0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> true = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    >>> est = np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]])
    >>> true_positive_rate(true, est)
    0.5
    >>> true_positive_rate(np.zeros((3, 3)), est)      # no true edge
    1.0
    """
    zero_division = _check_zero_division(zero_division, 0.0, 1.0)
    c = edge_confusion(true_adjacency, estimated_adjacency)
    return _ratio(c.tp, c.tp + c.fn, zero_division)


def positive_predictive_value(
    true_adjacency: ArrayLike,
    estimated_adjacency: ArrayLike,
    *,
    zero_division: float = 1.0,
) -> float:
    """Fraction of the estimated edges that are true edges (precision).

    ``PPV = TP / (TP + FP)``, each unordered pair counted once.

    Parameters
    ----------
    true_adjacency : array-like of shape (p, p)
        Symmetric boolean / 0-1 adjacency of the true graph; diagonal ignored.
    estimated_adjacency : array-like of shape (p, p)
        Symmetric boolean / 0-1 adjacency of the estimated graph; diagonal ignored.
    zero_division : float, default=1.0
        Value returned when no edge is estimated (``TP + FP = 0``). The default 1
        is the convention of Krämer et al. (2009): nothing was falsely selected.
        Any value in [0, 1] or ``numpy.nan``.

    Returns
    -------
    float
        The positive predictive value, in [0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> true = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    >>> est = np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]])
    >>> positive_predictive_value(true, est)
    0.5
    >>> positive_predictive_value(true, np.zeros((3, 3)))   # nothing selected
    1.0
    >>> positive_predictive_value(true, np.zeros((3, 3)), zero_division=0.0)
    0.0
    """
    zero_division = _check_zero_division(zero_division, 0.0, 1.0)
    c = edge_confusion(true_adjacency, estimated_adjacency)
    return _ratio(c.tp, c.tp + c.fp, zero_division)


def false_positive_rate(
    true_adjacency: ArrayLike,
    estimated_adjacency: ArrayLike,
    *,
    zero_division: float = 0.0,
) -> float:
    """Fraction of the true non-edges that were estimated as edges.

    ``FPR = FP / (FP + TN)``, each unordered pair counted once. Lower is better.

    Parameters
    ----------
    true_adjacency : array-like of shape (p, p)
        Symmetric boolean / 0-1 adjacency of the true graph; diagonal ignored.
    estimated_adjacency : array-like of shape (p, p)
        Symmetric boolean / 0-1 adjacency of the estimated graph; diagonal ignored.
    zero_division : float, default=0.0
        Value returned when the true graph is complete (``FP + TN = 0``): no
        non-edge could be falsely selected, so the default is the best value, 0.
        Any value in [0, 1] or ``numpy.nan``.

    Returns
    -------
    float
        The false positive rate, in [0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> true = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    >>> est = np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]])
    >>> false_positive_rate(true, est)
    1.0
    """
    zero_division = _check_zero_division(zero_division, 0.0, 1.0)
    c = edge_confusion(true_adjacency, estimated_adjacency)
    return _ratio(c.fp, c.fp + c.tn, zero_division)


def f1_score(
    true_adjacency: ArrayLike,
    estimated_adjacency: ArrayLike,
    *,
    zero_division: float = 1.0,
) -> float:
    """Harmonic mean of the positive predictive value and the true positive rate.

    ``F1 = 2 TP / (2 TP + FP + FN)``. With the default empty-case conventions this
    equals ``2 PPV TPR / (PPV + TPR)`` in every case: if only one of the graphs is
    empty, F1 is 0; it is undefined (``0 / 0``) only when both are empty.

    Parameters
    ----------
    true_adjacency : array-like of shape (p, p)
        Symmetric boolean / 0-1 adjacency of the true graph; diagonal ignored.
    estimated_adjacency : array-like of shape (p, p)
        Symmetric boolean / 0-1 adjacency of the estimated graph; diagonal ignored.
    zero_division : float, default=1.0
        Value returned when both graphs are empty (perfect recovery of the empty
        graph; also what the Krämer et al. conventions TPR = PPV = 1 give). Note
        that :func:`sklearn.metrics.f1_score` defaults to 0 there. Any value in
        [0, 1] or ``numpy.nan``.

    Returns
    -------
    float
        The F1 score, in [0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> true = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    >>> est = np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]])
    >>> f1_score(true, est)
    0.5
    """
    zero_division = _check_zero_division(zero_division, 0.0, 1.0)
    c = edge_confusion(true_adjacency, estimated_adjacency)
    return _ratio(2 * c.tp, 2 * c.tp + c.fp + c.fn, zero_division)


def matthews_corrcoef(
    true_adjacency: ArrayLike,
    estimated_adjacency: ArrayLike,
    *,
    zero_division: float = 0.0,
) -> float:
    """Matthews correlation coefficient between true and estimated edge indicators.

    ``MCC = (TP TN - FP FN) / sqrt((TP + FP)(TP + FN)(TN + FP)(TN + FN))``, the
    Pearson correlation of the two 0/1 vectors over the ``p(p-1)/2`` pairs.

    Parameters
    ----------
    true_adjacency : array-like of shape (p, p)
        Symmetric boolean / 0-1 adjacency of the true graph; diagonal ignored.
    estimated_adjacency : array-like of shape (p, p)
        Symmetric boolean / 0-1 adjacency of the estimated graph; diagonal ignored.
    zero_division : float, default=0.0
        Value returned when the denominator is 0, i.e. when either graph is empty
        or complete (a correlation with a constant is undefined). The default 0
        matches :func:`sklearn.metrics.matthews_corrcoef`. Any value in [-1, 1] or
        ``numpy.nan``.

    Returns
    -------
    float
        The MCC, in [-1, 1].

    Examples
    --------
    >>> import numpy as np
    >>> true = np.zeros((4, 4), dtype=bool)
    >>> true[[0, 1, 2], [1, 2, 3]] = True      # chain 0-1-2-3
    >>> est = np.zeros((4, 4), dtype=bool)
    >>> est[[0, 1, 0], [1, 2, 2]] = True       # edges 01, 12, 02
    >>> round(matthews_corrcoef(true | true.T, est | est.T), 6)   # 3 / 9
    0.333333
    """
    zero_division = _check_zero_division(zero_division, -1.0, 1.0)
    c = edge_confusion(true_adjacency, estimated_adjacency)
    # Floats, and two square roots rather than one of a four-fold product: with
    # p = 10^4 nodes the counts reach 5e7 and the product would overflow int64.
    denominator = np.sqrt(float(c.tp + c.fp) * float(c.tp + c.fn)) * np.sqrt(
        float(c.tn + c.fp) * float(c.tn + c.fn)
    )
    if denominator == 0.0:
        return zero_division
    numerator = float(c.tp) * float(c.tn) - float(c.fp) * float(c.fn)
    return float(numerator / denominator)


def structural_hamming_distance(
    true_adjacency: ArrayLike, estimated_adjacency: ArrayLike
) -> int:
    """Number of unordered node pairs on which the two graphs disagree.

    For undirected graphs the structural Hamming distance is the number of edge
    insertions plus deletions that turn the estimated graph into the true one,
    ``SHD = FP + FN`` (edge reversals, counted for DAGs, cannot occur). Lower is
    better; :func:`make_structure_scorer` negates it.

    Parameters
    ----------
    true_adjacency : array-like of shape (p, p)
        Symmetric boolean / 0-1 adjacency of the true graph; diagonal ignored.
    estimated_adjacency : array-like of shape (p, p)
        Symmetric boolean / 0-1 adjacency of the estimated graph; diagonal ignored.

    Returns
    -------
    int
        The SHD, between 0 and ``p(p-1)/2``.

    Examples
    --------
    >>> import numpy as np
    >>> true = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    >>> est = np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]])
    >>> structural_hamming_distance(true, est)    # add 12, delete 02
    2
    """
    c = edge_confusion(true_adjacency, estimated_adjacency)
    return c.fp + c.fn


# --------------------------------------------------------------------------------------
# Score metrics (true adjacency vs continuous edge scores)
# --------------------------------------------------------------------------------------


def _pair_labels_and_scores(
    true_adjacency: ArrayLike, edge_scores: ArrayLike
) -> tuple[NDArray[np.bool_], NDArray[np.float64]]:
    truth = _check_adjacency(true_adjacency, "true_adjacency")
    scores = _check_symmetric_real(edge_scores, "edge_scores")
    _check_same_shape(truth, scores, "true_adjacency", "edge_scores")
    return _upper_triangle(truth), _upper_triangle(scores)


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
    return float(_skm.roc_auc_score(labels, scores))


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
    return float(_skm.average_precision_score(labels, scores))


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
    fpr, tpr, thresholds = _skm.roc_curve(
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
    precision, recall, thresholds = _skm.precision_recall_curve(
        labels, scores, drop_intermediate=drop_intermediate
    )
    return precision, recall, thresholds


# --------------------------------------------------------------------------------------
# Matrix losses
# --------------------------------------------------------------------------------------


def _check_matrix_pair(
    true_matrix: ArrayLike, estimated_matrix: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    truth = _check_symmetric_real(true_matrix, "true_matrix")
    estimate = _check_symmetric_real(estimated_matrix, "estimated_matrix")
    _check_same_shape(truth, estimate, "true_matrix", "estimated_matrix")
    return truth, estimate


def _check_role(role: Any) -> str:
    if role not in _ROLES:
        raise ValueError(f"role must be one of {_ROLES}, got {role!r}.")
    return role


def _cholesky(matrix: NDArray[np.float64], name: str) -> NDArray[np.float64]:
    try:
        return scipy.linalg.cholesky(matrix, lower=True, check_finite=False)
    except scipy.linalg.LinAlgError:
        raise ValueError(f"{name} must be positive definite.") from None


def _gaussian_kl_from_covariances(
    cov_p: NDArray[np.float64],
    cov_q: NDArray[np.float64],
    name_p: str,
    name_q: str,
) -> float:
    """KL(N(0, A) || N(0, B)) = (tr(B^-1 A) - p - log det(B^-1 A)) / 2."""
    chol_p = _cholesky(cov_p, name_p)
    chol_q = _cholesky(cov_q, name_q)
    # With A = L_A L_A^T and B = L_B L_B^T: tr(B^-1 A) = ||L_B^-1 L_A||_F^2, and
    # log det(B^-1 A) = 2 sum log(diag L_A / diag L_B). No explicit inverse.
    whitened = scipy.linalg.solve_triangular(
        chol_q, chol_p, lower=True, check_finite=False
    )
    trace_term = np.sum(whitened**2)
    log_det_ratio = 2.0 * np.sum(np.log(np.diag(chol_p) / np.diag(chol_q)))
    kl = 0.5 * (trace_term - cov_p.shape[0] - log_det_ratio)
    # KL >= 0 exactly; for equal matrices round-off can leave about -1e-16.
    return float(max(kl, 0.0))


def frobenius_loss(true_matrix: ArrayLike, estimated_matrix: ArrayLike) -> float:
    """Frobenius norm of the estimation error, ``||M_est - M_true||_F``.

    ``||E||_F = sqrt(sum_ij E_ij^2)``. The matrices can be covariances or
    precisions (pass both in the same role); the norm is taken of the matrices as
    given.

    Parameters
    ----------
    true_matrix : array-like of shape (p, p)
        True symmetric matrix.
    estimated_matrix : array-like of shape (p, p)
        Estimated symmetric matrix.

    Returns
    -------
    float
        The Frobenius norm of the error, >= 0.

    Examples
    --------
    >>> import numpy as np
    >>> round(frobenius_loss(np.eye(2), [[2.0, 1.0], [1.0, 1.0]]), 6)   # sqrt(3)
    1.732051
    """
    truth, estimate = _check_matrix_pair(true_matrix, estimated_matrix)
    return float(np.linalg.norm(estimate - truth, ord="fro"))


def spectral_loss(true_matrix: ArrayLike, estimated_matrix: ArrayLike) -> float:
    """Spectral (operator 2-) norm of the estimation error, ``||M_est - M_true||_2``.

    For the symmetric error ``E`` this is its largest absolute eigenvalue. The
    matrices can be covariances or precisions (pass both in the same role).

    Parameters
    ----------
    true_matrix : array-like of shape (p, p)
        True symmetric matrix.
    estimated_matrix : array-like of shape (p, p)
        Estimated symmetric matrix.

    Returns
    -------
    float
        The spectral norm of the error, >= 0.

    Examples
    --------
    >>> import numpy as np
    >>> round(spectral_loss(np.eye(2), [[2.0, 1.0], [1.0, 1.0]]), 6)  # (1+sqrt 5)/2
    1.618034
    """
    truth, estimate = _check_matrix_pair(true_matrix, estimated_matrix)
    # Symmetric error: eigenvalues are cheaper than an SVD and give the same norm.
    return float(np.abs(np.linalg.eigvalsh(estimate - truth)).max())


def kl_divergence(
    true_matrix: ArrayLike, estimated_matrix: ArrayLike, *, role: Role
) -> float:
    """Kullback-Leibler divergence ``KL(N(0, Sigma_true) || N(0, Sigma_est))``.

    With ``p`` variables,

    ``KL = (tr(Sigma_est^-1 Sigma_true) - p - log det(Sigma_est^-1 Sigma_true)) / 2``

    which, in terms of precision matrices ``Omega = Sigma^-1``, reads
    ``(tr(Omega_est Omega_true^-1) - p - log det(Omega_est Omega_true^-1)) / 2``.
    Computed from Cholesky factors, without explicit inverses.

    Parameters
    ----------
    true_matrix : array-like of shape (p, p)
        True symmetric positive definite matrix.
    estimated_matrix : array-like of shape (p, p)
        Estimated symmetric positive definite matrix.
    role : {"covariance", "precision"}
        What both matrices are. Required: the two readings give different numbers.

    Returns
    -------
    float
        The divergence, >= 0, and 0 only when the matrices are equal.

    Raises
    ------
    ValueError
        If a matrix is not symmetric positive definite, or ``role`` is unknown.

    See Also
    --------
    stein_loss : twice the divergence in the other direction.

    Examples
    --------
    >>> import numpy as np
    >>> true, est = np.diag([1.0, 2.0]), np.diag([2.0, 2.0])
    >>> round(kl_divergence(true, est, role="covariance"), 6)  # (1/2 - 1 + log 2)/2
    0.096574
    >>> round(kl_divergence(true, est, role="precision"), 6)   # (2 - 1 - log 2)/2
    0.153426
    """
    role = _check_role(role)
    truth, estimate = _check_matrix_pair(true_matrix, estimated_matrix)
    if role == "covariance":
        return _gaussian_kl_from_covariances(
            truth, estimate, "true_matrix", "estimated_matrix"
        )
    # For precisions, tr(Sigma_e^-1 Sigma_t) = tr(Omega_t^-1 Omega_e) and
    # det(Sigma_e^-1 Sigma_t) = det(Omega_t^-1 Omega_e): the covariance formula with
    # the two arguments swapped.
    return _gaussian_kl_from_covariances(
        estimate, truth, "estimated_matrix", "true_matrix"
    )


def stein_loss(
    true_matrix: ArrayLike, estimated_matrix: ArrayLike, *, role: Role
) -> float:
    """Stein's loss, ``2 KL(N(0, Sigma_est) || N(0, Sigma_true))``.

    In covariance terms this is James and Stein's (1961) loss

    ``L = tr(Sigma_est Sigma_true^-1) - log det(Sigma_est Sigma_true^-1) - p``

    and in precision terms ``tr(Omega_est^-1 Omega_true) - log
    det(Omega_est^-1 Omega_true) - p``. Note the direction: it is *twice the KL
    divergence from the estimate to the truth*, the reverse of
    :func:`kl_divergence`. (Some papers on precision estimation call
    ``tr(Omega_est Sigma_true) - log det(Omega_est Sigma_true) - p``, i.e.
    ``2 * kl_divergence(..., role="precision")``, the Stein or entropy loss of the
    precision; compute that one with :func:`kl_divergence`.)

    Parameters
    ----------
    true_matrix : array-like of shape (p, p)
        True symmetric positive definite matrix.
    estimated_matrix : array-like of shape (p, p)
        Estimated symmetric positive definite matrix.
    role : {"covariance", "precision"}
        What both matrices are. Required: the two readings give different numbers.

    Returns
    -------
    float
        The loss, >= 0, and 0 only when the matrices are equal.

    Raises
    ------
    ValueError
        If a matrix is not symmetric positive definite, or ``role`` is unknown.

    Examples
    --------
    >>> import numpy as np
    >>> true, est = np.diag([1.0, 2.0]), np.diag([2.0, 2.0])
    >>> round(stein_loss(true, est, role="covariance"), 6)   # 2 + 1 - log 2 - 2
    0.306853
    """
    role = _check_role(role)
    truth, estimate = _check_matrix_pair(true_matrix, estimated_matrix)
    if role == "covariance":
        return 2.0 * _gaussian_kl_from_covariances(
            estimate, truth, "estimated_matrix", "true_matrix"
        )
    return 2.0 * _gaussian_kl_from_covariances(
        truth, estimate, "true_matrix", "estimated_matrix"
    )


# --------------------------------------------------------------------------------------
# Reading fitted estimators (the protocol is documented in the module docstring)
# --------------------------------------------------------------------------------------


def _check_model(model: Any) -> str:
    if model not in _MODELS:
        raise ValueError(f"model must be one of {_MODELS}, got {model!r}.")
    return model


def _check_tol(tol: Any) -> float:
    if isinstance(tol, bool) or not isinstance(tol, numbers.Real):
        raise TypeError(f"tol must be a real number, got {tol!r}.")
    if not (0.0 <= float(tol) < 1.0):
        raise ValueError(
            "tol must lie in [0, 1) because it thresholds absolute (partial) "
            f"correlations; got {tol!r}."
        )
    return float(tol)


def _fitted_attribute(estimator: Any, name: str) -> Any:
    # Unfitted sklearn estimators lack the attribute; some fitted ones set it to None
    # (e.g. EmpiricalCovariance(store_precision=False).precision_). Both mean "absent".
    return getattr(estimator, name, None)


def _matrix_attribute(model: str) -> str:
    return "precision_" if model == "concentration" else "covariance_"


def _absolute_standardised(matrix: Any, name: str) -> NDArray[np.float64]:
    """``|M_ij| / sqrt(M_ii M_jj)`` off the diagonal, 0 on it.

    For a precision matrix these are the absolute partial correlations
    (``rho_ij = -Omega_ij / sqrt(Omega_ii Omega_jj)``); for a covariance matrix, the
    absolute correlations.
    """
    arr = _check_symmetric_real(matrix, name)
    diagonal = np.diag(arr)
    if np.any(diagonal <= 0):
        raise ValueError(
            f"{name} must have a positive diagonal to be standardised, got minimum "
            f"{diagonal.min()!r}."
        )
    inv_sd = 1.0 / np.sqrt(diagonal)
    standardised = np.abs(arr) * inv_sd[:, None] * inv_sd[None, :]
    np.fill_diagonal(standardised, 0.0)
    return standardised


def _missing_attributes_error(estimator: Any, model: str) -> ValueError:
    wanted = ("adjacency_", _matrix_attribute(model))
    present = [
        name
        for name in ("adjacency_", "precision_", "covariance_")
        if _fitted_attribute(estimator, name) is not None
    ]
    hint = (
        f" It exposes {', '.join(present)}; is model={model!r} the intended graph?"
        if present
        else " Is it fitted?"
    )
    return ValueError(
        f"Cannot read a graph from {type(estimator).__name__} for model={model!r}: "
        f"it exposes none of {', '.join(wanted)}.{hint} See the estimator protocol "
        "in the skggm_bench.metrics module docstring."
    )


def edges_from_estimator(
    estimator: Any,
    *,
    model: Model = "concentration",
    tol: float = _DEFAULT_TOL,
) -> NDArray[np.bool_]:
    """Estimated graph of a fitted estimator, following the estimator protocol.

    Reads ``adjacency_`` if present, otherwise ``precision_``
    (``model="concentration"``) or ``covariance_`` (``model="covariance"``) and
    keeps the pairs whose absolute (partial) correlation exceeds ``tol``. The full
    rules are in the *estimator protocol* section of the
    :mod:`skggm_bench.metrics` module docstring.

    Parameters
    ----------
    estimator : object
        A fitted estimator (any object with the attributes above).
    model : {"concentration", "covariance"}, default="concentration"
        Which graph is estimated: zeros of the precision (conditional
        independences) or of the covariance (marginal independences).
    tol : float, default=1e-8
        A pair is an edge when its absolute (partial) correlation is ``> tol``.
        Not applied to ``adjacency_``.

    Returns
    -------
    ndarray of shape (p, p), dtype bool
        Symmetric adjacency with a False diagonal.

    Raises
    ------
    ValueError
        If the estimator exposes none of the usable attributes (e.g. it is not
        fitted), or the attribute read is not a valid matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.covariance import GraphicalLasso
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 4))
    >>> X[:, 1] += X[:, 0]                       # only variables 0 and 1 related
    >>> model = GraphicalLasso(alpha=0.2).fit(X)
    >>> edges_from_estimator(model).astype(int)
    array([[0, 1, 0, 0],
           [1, 0, 0, 0],
           [0, 0, 0, 0],
           [0, 0, 0, 0]])
    """
    model = _check_model(model)
    tol = _check_tol(tol)
    adjacency = _fitted_attribute(estimator, "adjacency_")
    if adjacency is not None:
        return _check_adjacency(adjacency, "estimator.adjacency_")
    attribute = _matrix_attribute(model)
    matrix = _fitted_attribute(estimator, attribute)
    if matrix is None:
        raise _missing_attributes_error(estimator, model)
    return _absolute_standardised(matrix, f"estimator.{attribute}") > tol


def _absolute_partial_correlation(partial: Any) -> NDArray[np.float64]:
    """``|partial_correlation_|`` validated as a symmetric matrix in [-1, 1]."""
    matrix = np.asarray(partial, dtype=np.float64)
    name = "estimator.partial_correlation_"
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {matrix.shape}")
    if not np.all(np.isfinite(matrix)):
        raise ValueError(f"{name} contains NaN or infinite values")
    if np.abs(matrix).max(initial=0.0) > 1.0 + 1e-8:
        raise ValueError(f"{name} has entries outside [-1, 1]")
    if not np.allclose(matrix, matrix.T, rtol=0.0, atol=1e-8):
        raise ValueError(f"{name} is not symmetric")
    scores = np.abs(matrix)
    np.fill_diagonal(scores, 0.0)
    return scores


def edge_scores_from_estimator(
    estimator: Any, *, model: Model = "concentration"
) -> NDArray[np.float64]:
    """Edge scores of a fitted estimator, following the estimator protocol.

    Absolute partial correlations from ``precision_`` (``model="concentration"``)
    or absolute correlations from ``covariance_`` (``model="covariance"``); for a
    concentration graph without ``precision_``, ``|partial_correlation_|`` (node-wise
    learners); failing all that, ``adjacency_`` as 0/1 scores. The full rules are in the
    *estimator protocol* section of the :mod:`skggm_bench.metrics` module
    docstring.

    Parameters
    ----------
    estimator : object
        A fitted estimator (any object with the attributes above).
    model : {"concentration", "covariance"}, default="concentration"
        Which graph is estimated.

    Returns
    -------
    ndarray of shape (p, p), dtype float64
        Symmetric scores in [0, 1] with a zero diagonal, higher = more likely an
        edge.

    Raises
    ------
    ValueError
        If the estimator exposes none of the usable attributes (e.g. it is not
        fitted), or the attribute read is not a valid matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.covariance import EmpiricalCovariance
    >>> X = np.random.default_rng(0).standard_normal((500, 3))
    >>> X[:, 2] += X[:, 1]
    >>> scores = edge_scores_from_estimator(EmpiricalCovariance().fit(X))
    >>> int(np.argmax(scores[1]))       # variable 1's strongest partner
    2
    """
    model = _check_model(model)
    attribute = _matrix_attribute(model)
    matrix = _fitted_attribute(estimator, attribute)
    if matrix is not None:
        return _absolute_standardised(matrix, f"estimator.{attribute}")
    partial = _fitted_attribute(estimator, "partial_correlation_")
    if partial is not None and model == "concentration":
        return _absolute_partial_correlation(partial)
    adjacency = _fitted_attribute(estimator, "adjacency_")
    if adjacency is not None:
        return _check_adjacency(adjacency, "estimator.adjacency_").astype(np.float64)
    raise _missing_attributes_error(estimator, model)


# --------------------------------------------------------------------------------------
# sklearn scorers
# --------------------------------------------------------------------------------------


class _MetricSpec(NamedTuple):
    function: Callable[..., Any]
    needs: Literal["edges", "scores"]
    sign: int  # +1: greater is better; -1: a loss, negated by the scorer


_STRUCTURE_METRICS: dict[str, _MetricSpec] = {
    "true_positive_rate": _MetricSpec(true_positive_rate, "edges", 1),
    "positive_predictive_value": _MetricSpec(positive_predictive_value, "edges", 1),
    "false_positive_rate": _MetricSpec(false_positive_rate, "edges", -1),
    "f1_score": _MetricSpec(f1_score, "edges", 1),
    "matthews_corrcoef": _MetricSpec(matthews_corrcoef, "edges", 1),
    "structural_hamming_distance": _MetricSpec(
        structural_hamming_distance, "edges", -1
    ),
    "edge_roc_auc": _MetricSpec(edge_roc_auc, "scores", 1),
    "edge_average_precision": _MetricSpec(edge_average_precision, "scores", 1),
}
_ALIASES = {
    "tpr": "true_positive_rate",
    "ppv": "positive_predictive_value",
    "fpr": "false_positive_rate",
    "f1": "f1_score",
    "mcc": "matthews_corrcoef",
    "shd": "structural_hamming_distance",
    "roc_auc": "edge_roc_auc",
    "average_precision": "edge_average_precision",
}


def _resolve_metric(metric: Any) -> tuple[str, _MetricSpec]:
    if isinstance(metric, str):
        name = _ALIASES.get(metric, metric)
        if name in _STRUCTURE_METRICS:
            return name, _STRUCTURE_METRICS[name]
    else:
        for name, spec in _STRUCTURE_METRICS.items():
            if spec.function is metric:
                return name, spec
    choices = sorted([*_STRUCTURE_METRICS, *_ALIASES])
    raise ValueError(
        f"metric must be one of the structure metrics of skggm_bench.metrics, given "
        f"as a function or one of the names {choices}; got {metric!r}."
    )


class StructureScorer:
    """sklearn scorer comparing an estimator's graph with a known true graph.

    Build it with :func:`make_structure_scorer`. Calling it as
    ``scorer(estimator, X, y=None)`` reads the fitted estimator's graph (or edge
    scores) following the estimator protocol of :mod:`skggm_bench.metrics` and
    returns ``sign * metric(true_adjacency, estimate, **metric_kwargs)``.
    ``X`` and ``y`` are ignored: the truth is known, so the score depends only on
    the fitted estimator (in cross-validation, on the training fold).

    Parameters
    ----------
    metric_name : str
        Canonical name of the metric in :mod:`skggm_bench.metrics`.
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
    sign : int
        ``1`` if the metric is a score, ``-1`` if it is a loss (the scorer returns
        the negated loss so that greater is better, like sklearn's ``neg_*``).

    Examples
    --------
    >>> scorer = make_structure_scorer("shd", [[0, 1], [1, 0]])
    >>> scorer
    make_structure_scorer('structural_hamming_distance', <2 x 2 graph>)
    >>> scorer.sign
    -1
    """

    def __init__(
        self,
        metric_name: str,
        true_adjacency: NDArray[np.bool_],
        model: str,
        tol: float,
        metric_kwargs: dict[str, Any],
    ) -> None:
        self.metric_name = metric_name
        self.true_adjacency = true_adjacency
        self.model = model
        self.tol = tol
        self.metric_kwargs = metric_kwargs
        self._spec = _STRUCTURE_METRICS[metric_name]
        self.sign = self._spec.sign

    def _estimate(self, estimator: Any) -> NDArray[Any]:
        if self._spec.needs == "edges":
            return edges_from_estimator(estimator, model=self.model, tol=self.tol)
        return edge_scores_from_estimator(estimator, model=self.model)

    def __call__(self, estimator: Any, X: Any = None, y: Any = None) -> float:
        """Score a fitted estimator; greater is better.

        Parameters
        ----------
        estimator : object
            Fitted estimator exposing ``adjacency_``, ``precision_`` or
            ``covariance_``.
        X : object, optional
            Ignored (present for sklearn's scorer signature).
        y : object, optional
            Ignored.

        Returns
        -------
        float
            ``sign * metric(true_adjacency, estimate)``.
        """
        value = self._spec.function(
            self.true_adjacency, self._estimate(estimator), **self.metric_kwargs
        )
        return float(self.sign * value)

    def __repr__(self) -> str:
        p = self.true_adjacency.shape[0]
        extras = "".join(f", {k}={v!r}" for k, v in self.metric_kwargs.items())
        if self.model != "concentration":
            extras += f", model={self.model!r}"
        if self.tol != _DEFAULT_TOL:
            extras += f", tol={self.tol!r}"
        return f"make_structure_scorer({self.metric_name!r}, <{p} x {p} graph>{extras})"


def make_structure_scorer(
    metric: str | Callable[..., Any],
    true_adjacency: ArrayLike,
    *,
    model: Model = "concentration",
    tol: float = _DEFAULT_TOL,
    **metric_kwargs: Any,
) -> StructureScorer:
    """Make a ``scoring=`` object that rates graph recovery against a known graph.

    The result is a callable ``scorer(estimator, X, y=None) -> float`` (greater is
    better) for :class:`~sklearn.model_selection.GridSearchCV`,
    :func:`~sklearn.model_selection.cross_validate` and friends, for any estimator
    that exposes ``precision_``, ``adjacency_`` (or ``covariance_`` with
    ``model="covariance"``), read as described in the estimator protocol of the
    :mod:`skggm_bench.metrics` module docstring. Losses are negated:
    ``"structural_hamming_distance"`` and ``"false_positive_rate"`` give ``-SHD``
    and ``-FPR``, like sklearn's ``neg_*`` scorers.

    Parameters
    ----------
    metric : str or callable
        One of the structure metrics of this module, as the function itself or by
        name: ``"true_positive_rate"`` (``"tpr"``), ``"positive_predictive_value"``
        (``"ppv"``), ``"false_positive_rate"`` (``"fpr"``), ``"f1_score"``
        (``"f1"``), ``"matthews_corrcoef"`` (``"mcc"``),
        ``"structural_hamming_distance"`` (``"shd"``), ``"edge_roc_auc"``
        (``"roc_auc"``), ``"edge_average_precision"`` (``"average_precision"``).
        The last two rank pairs by the estimator's edge scores; the others use its
        edges.
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
        For an unknown metric, an invalid ``true_adjacency``, or a metric that is
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
    >>> true_adjacency = (precision != 0) & ~np.eye(p, dtype=bool)
    >>> rng = np.random.default_rng(0)
    >>> X = rng.multivariate_normal(np.zeros(p), np.linalg.inv(precision), size=300)
    >>> search = GridSearchCV(
    ...     GraphicalLasso(), {"alpha": [0.01, 0.1, 0.4, 2.0]},
    ...     scoring=make_structure_scorer("f1", true_adjacency), cv=3,
    ... ).fit(X)
    >>> search.best_params_       # 0.01 keeps spurious edges, 2.0 removes all
    {'alpha': 0.4}
    >>> search.cv_results_["mean_test_score"].round(2).tolist()
    [0.59, 0.83, 0.95, 0.0]
    """
    name, spec = _resolve_metric(metric)
    truth = _check_adjacency(true_adjacency, "true_adjacency")
    scorer = StructureScorer(
        name, truth, _check_model(model), _check_tol(tol), dict(metric_kwargs)
    )
    # Fail now on typos in metric_kwargs, bad values, or a metric undefined for this
    # truth (the truth compared with itself exercises all of these); inside
    # GridSearchCV the same error would be turned into NaN scores with a warning.
    try:
        inspect.signature(spec.function).bind(truth, truth, **metric_kwargs)
    except TypeError as exc:
        raise TypeError(f"Invalid keyword arguments for {name}: {exc}") from None
    reference = truth.astype(np.float64) if spec.needs == "scores" else truth
    spec.function(truth, reference, **metric_kwargs)
    return scorer
