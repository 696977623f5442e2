"""Partial orthogonalization of the rows of a batch of square factors.

Shared by :class:`PartialOrthogonalization` (i.i.d. Gaussian factor) and
:class:`TriangulatedOrthogonalization` (uniform chordal Cholesky factor).

For each row ``i`` in turn, ``q_i`` is projected off the span of the already
processed rows ``q_j`` with ``j`` in ``S`` (``j < i`` and ``j`` not adjacent to
``i``), then normalised. With ``M`` the Gram matrix of the processed rows (the
output itself) and ``c = Q_S q_i``, the projection is ``Q_S^T M_SS^{-1} c``.

Solving with ``M_SS`` afresh for every row costs ``O(|S|^3)``, which is
``O(p^4)`` per matrix on sparse graphs. Instead the inverse ``K`` of the Gram
matrix of *all* earlier rows is kept up to date by bordering (``O(i^2)`` per row),
and ``M_SS^{-1}`` is obtained from it by the Schur-complement identity

    M_SS^{-1} c = (K c~)_S - K_SN K_NN^{-1} (K c~)_N,    c~ = [c on S, 0 on N],

where ``N`` are the earlier *neighbours* of ``i``: only a ``|N| x |N|`` system is
solved. The total is ``O(p^3)`` per matrix. Maintaining ``K`` is memory-bound,
though, so when the direct solves are small (dense graphs, small ``p``) they are
cheaper: a cost model computed from the graph picks one strategy per call.
Orthogonality is checked on the explicit rows either way, and a second pass
corrects what rounding left over.
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
# Relative cost of maintaining K (per squared row index) against one cubed size of a
# direct solve. Calibrated by timing both strategies (one BLAS thread): bordering
# wins when this is below 64 for ER(100, 0.05), 288 for ER(400, 0.0125) and 738 for
# ER(1000, 0.005), and loses above 31 for ER(100, 0.25) and 5 for ER(30, 0.3).
_BORDERING_COST = 45.0


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
    inverse = np.zeros((n, p, p)) if _prefer_bordering(non_neighbours) else None
    for i in range(p):
        remove = non_neighbours[i]
        keep = np.setdiff1d(np.arange(i), remove, assume_unique=True)
        for attempt in range(max_redraws + 1):
            if inverse is None:
                vanished = _project_direct(factors, gram, i, remove)
            else:
                vanished = _project_bordered(factors, inverse, i, remove, keep)
            if not vanished.any():
                break
            if redraw_row is None or attempt == max_redraws:
                raise np.linalg.LinAlgError(
                    f"row {i} became numerically zero after orthogonalisation against "
                    f"{remove.size} earlier rows"
                    + ("" if redraw_row is None else f" in {max_redraws} redraws")
                )
            factors[vanished, i] = redraw_row(i, vanished)
        column = (factors[:, :i] @ factors[:, i, :, None])[..., 0]
        gram[:, :i, i] = column
        gram[:, i, :i] = column
        gram[:, i, i] = 1.0
        if inverse is not None:
            _border_inverse(inverse, column, i)
    return gram


def _prefer_bordering(non_neighbours: list[np.ndarray]) -> bool:
    """Whether maintaining ``K`` beats one direct ``|S| x |S|`` solve per row."""
    removed = np.array([s.size for s in non_neighbours], dtype=float)
    earlier = np.arange(len(non_neighbours), dtype=float)
    kept = earlier - removed
    direct = np.sum(removed**3)
    bordered = np.sum(_BORDERING_COST * earlier**2 + np.where(removed > 0, kept**3, 0))
    return bordered < direct


def _border_inverse(inverse: np.ndarray, column: np.ndarray, i: int) -> None:
    """Grow ``K = M[:i, :i]^{-1}`` to ``M[:i+1, :i+1]^{-1}`` in place.

    ``M`` has a unit diagonal, so the new Schur complement is ``1 - b^T K b``.
    """
    if i == 0:
        inverse[:, 0, 0] = 1.0
        return
    block = inverse[:, :i, :i]
    k_column = (block @ column[..., None])[..., 0]
    schur = 1.0 - np.einsum("ni,ni->n", column, k_column)
    block += (k_column[:, :, None] * k_column[:, None, :]) / schur[:, None, None]
    inverse[:, :i, i] = -k_column / schur[:, None]
    inverse[:, i, :i] = inverse[:, :i, i]
    inverse[:, i, i] = 1.0 / schur


def _project_direct(
    factors: np.ndarray, gram: np.ndarray, i: int, remove: np.ndarray
) -> np.ndarray:
    """Project row ``i`` off the rows ``remove`` by solving with ``M_SS``."""
    row = factors[:, i]
    earlier = factors[:, :i]
    norm_before = np.linalg.norm(row, axis=1)
    if remove.size:
        gram_block = gram[:, remove[:, None], remove[None, :]]
        weights = np.zeros((row.shape[0], 1, i))
        for _ in range(2):
            inner = (earlier @ row[..., None])[:, remove, 0]
            scale = np.linalg.norm(row, axis=1)
            if np.all(np.abs(inner) <= _REORTHOGONALISE_ABOVE * scale[:, None]):
                break
            solved = np.linalg.solve(gram_block, inner[..., None])
            weights[:, 0, remove] = solved[..., 0]
            row = row - (weights @ earlier)[:, 0]
    return _normalise(factors, i, row, norm_before)


def _project_bordered(
    factors: np.ndarray,
    inverse: np.ndarray,
    i: int,
    remove: np.ndarray,
    keep: np.ndarray,
) -> np.ndarray:
    """Project row ``i`` off the rows ``remove`` through ``K`` (Schur identity).

    In both strategies products are taken with the contiguous block of all earlier
    rows rather than with a gathered copy of the rows in ``remove``: the extra
    flops cost less than copying ``|remove| x p`` values per sample.
    """
    row = factors[:, i]
    earlier = factors[:, :i]
    norm_before = np.linalg.norm(row, axis=1)
    if remove.size:
        block = inverse[:, :i, :i]
        neighbour_block = inverse[:, keep[:, None], keep[None, :]]
        for _ in range(2):
            inner = (earlier @ row[..., None])[..., 0]
            inner[:, keep] = 0.0
            scale = np.linalg.norm(row, axis=1)
            if np.all(np.abs(inner) <= _REORTHOGONALISE_ABOVE * scale[:, None]):
                break
            weights = (block @ inner[..., None])[..., 0]
            if keep.size:
                correction = np.linalg.solve(neighbour_block, weights[:, keep, None])
                weights -= (inverse[:, :i, keep] @ correction)[..., 0]
                weights[:, keep] = 0.0
            row = row - (weights[:, None, :] @ earlier)[:, 0]
    return _normalise(factors, i, row, norm_before)


def _normalise(
    factors: np.ndarray, i: int, row: np.ndarray, norm_before: np.ndarray
) -> np.ndarray:
    """Store the normalised row ``i``; return which samples' rows vanished."""
    norm_after = np.linalg.norm(row, axis=1)
    vanished = norm_after <= _VANISHING_RATIO * norm_before
    safe = np.where(vanished, 1.0, norm_after)
    factors[:, i] = row / safe[:, None]
    return vanished
