"""Partial orthogonalization of the rows of a batch of square factors.

Shared by :class:`PartialOrthogonalization` (i.i.d. Gaussian factor) and
:class:`TriangulatedOrthogonalization` (uniform chordal Cholesky factor).

For each row ``i`` in turn, ``q_i`` is projected off the span of the already
processed rows ``q_j`` with ``j < i`` and ``j`` not adjacent to ``i``, then
normalised. The Gram matrix ``M = Q Q^T`` of the processed rows is the output
itself, so the projection is computed from it without any extra factorisation:
with ``S`` the rows to remove and ``c = Q_S q_i``, the projection is
``Q_S^T M_SS^{-1} c``. One solve of an ``|S| x |S|`` system per row, batched over
the samples by LAPACK.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

# A row whose norm after projection falls below this fraction of its norm before is
# treated as numerically vanished: the orthogonality of what is left would be
# dominated by rounding.
_VANISHING_RATIO = 1e-8
# A second projection pass is done when the first leaves inner products larger than
# this (relative to the row norm): "twice is enough" re-orthogonalisation.
_REORTHOGONALISE_ABOVE = 1e-12


def earlier_non_neighbours(adjacency: np.ndarray) -> list[np.ndarray]:
    """For each row ``i``, the indices ``j < i`` that are not adjacent to ``i``."""
    p = adjacency.shape[0]
    return [np.flatnonzero(~adjacency[i, :i]) for i in range(p)]


def orthogonalize_rows(
    factors: np.ndarray,
    non_neighbours: list[np.ndarray],
    redraw_row: Callable[[int, np.ndarray], np.ndarray] | None = None,
    max_redraws: int = 10,
) -> np.ndarray:
    """Partially orthogonalise, in place, and return ``Q Q^T`` for each factor.

    Parameters
    ----------
    factors : ndarray of shape (n, p, p)
        Rows are the vectors ``q_i``; modified in place (normalised, projected).
    non_neighbours : list of ndarray
        ``non_neighbours[i]`` lists the earlier rows ``q_i`` must be orthogonal to.
    redraw_row : callable, optional
        ``redraw_row(i, mask)`` returns fresh rows ``i`` for the samples selected by
        the boolean ``mask``; used when a row vanishes numerically. Without it, a
        vanishing row is an error (the caller's distribution cannot be preserved).
    max_redraws : int
        Bound on redraws of one row before giving up.

    Returns
    -------
    gram : ndarray of shape (n, p, p)
        ``Q Q^T`` with unit diagonal.
    """
    n, p, _ = factors.shape
    gram = np.zeros((n, p, p))
    for i in range(p):
        for attempt in range(max_redraws + 1):
            vanished = _project_and_normalise(factors, gram, i, non_neighbours[i])
            if not vanished.any():
                break
            if redraw_row is None or attempt == max_redraws:
                raise np.linalg.LinAlgError(
                    f"row {i} became numerically zero after orthogonalisation against "
                    f"{non_neighbours[i].size} earlier rows"
                    + ("" if redraw_row is None else f" in {max_redraws} redraws")
                )
            factors[vanished, i] = redraw_row(i, vanished)
        # Inner products with all earlier rows fill row/column i of the Gram matrix.
        gram[:, :i, i] = np.einsum("nkp,np->nk", factors[:, :i], factors[:, i])
        gram[:, i, :i] = gram[:, :i, i]
        gram[:, i, i] = 1.0
    return gram


def _project_and_normalise(
    factors: np.ndarray, gram: np.ndarray, i: int, remove: np.ndarray
) -> np.ndarray:
    """Project row ``i`` off the rows ``remove`` and normalise; flag vanished rows."""
    row = factors[:, i]
    norm_before = np.linalg.norm(row, axis=1)
    if remove.size:
        basis = factors[:, remove]
        gram_block = gram[:, remove][:, :, remove]
        for _ in range(2):
            inner = np.einsum("nsp,np->ns", basis, row)
            scale = np.linalg.norm(row, axis=1)
            if np.all(np.abs(inner) <= _REORTHOGONALISE_ABOVE * scale[:, None]):
                break
            weights = np.linalg.solve(gram_block, inner[..., None])[..., 0]
            row = row - np.einsum("nsp,ns->np", basis, weights)
    norm_after = np.linalg.norm(row, axis=1)
    vanished = norm_after <= _VANISHING_RATIO * norm_before
    safe = np.where(vanished, 1.0, norm_after)
    factors[:, i] = row / safe[:, None]
    return vanished
