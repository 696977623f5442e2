"""Edge metrics: a true graph against an estimated graph, over unordered pairs."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ._validation import check_adjacency, check_same_shape, check_zero_division

__all__ = [
    "EdgeConfusion",
    "edge_confusion",
    "f1_score",
    "false_positive_rate",
    "matthews_corrcoef",
    "positive_predictive_value",
    "structural_hamming_distance",
    "true_positive_rate",
]


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
    truth = check_adjacency(true_adjacency, name="true_adjacency")
    estimate = check_adjacency(estimated_adjacency, name="estimated_adjacency")
    check_same_shape(truth, estimate, "true_adjacency", "estimated_adjacency")
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
    zero_division = check_zero_division(zero_division, 0.0, 1.0)
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
    zero_division = check_zero_division(zero_division, 0.0, 1.0)
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
    zero_division = check_zero_division(zero_division, 0.0, 1.0)
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
    zero_division = check_zero_division(zero_division, 0.0, 1.0)
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
    zero_division = check_zero_division(zero_division, -1.0, 1.0)
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
