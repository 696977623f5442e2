"""Batched symmetric matrices under many small updates, applied in bulk.

The Markov chain samplers keep the inverse ``K`` of their state and change it by
one low-rank Woodbury term per move, ``K += U C U^T`` with ``U`` of shape ``(p, 2)``.
Applied at once, each term is a pass over the ``p x p`` matrix (memory-bound,
``O(p^2)``), so a sweep of ``p`` moves costs ``p`` such passes. Here the terms are
kept aside, ``K = K0 + G V^T`` with ``V = [U_1, U_2, ...]`` and ``G = [U_1 C_1, ...]``,
and folded into ``K0`` by one matrix product (level-3 BLAS) every ``capacity``
columns. Meanwhile a move reads what it needs in ``O(p t)`` (``t`` pending
columns): rows, or combinations of rows built from the pending weights of a few
rows, and the diagonal, which is kept up to date.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.linalg import blas, lapack

__all__ = ["LowRankInverse", "inverse_and_log_det"]


def inverse_and_log_det(matrices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Inverses and log-determinants of SPD matrices, from one Cholesky each.

    Cholesky and LAPACK's ``potri`` take ``p^3`` flops, half of an LU-based
    inverse; the factorisation also certifies positive definiteness.

    Raises
    ------
    numpy.linalg.LinAlgError
        If a matrix is not positive definite.
    """
    inverses = np.empty_like(matrices, dtype=np.float64)
    log_dets = np.empty(matrices.shape[0])
    for k, matrix in enumerate(matrices):
        factor, info = lapack.dpotrf(matrix, lower=True, clean=False)
        if info != 0:
            raise np.linalg.LinAlgError("matrix is not positive definite")
        log_dets[k] = 2.0 * np.log(np.diagonal(factor)).sum()
        inverse, info = lapack.dpotri(factor, lower=True)
        if info != 0:  # pragma: no cover - potrf succeeded, so potri does too
            raise np.linalg.LinAlgError("matrix is singular")
        # potri fills the lower triangle only.
        lower = np.tril(inverse)
        inverses[k] = lower + np.tril(inverse, -1).T
    return inverses, log_dets


class LowRankInverse:
    """``K = K0 + G V^T`` for a batch of symmetric ``(p, p)`` matrices.

    ``G = V C`` collects the pending terms ``U_t C_t U_t^T``: row ``i`` of ``K`` is
    ``K0[i] + G[i] V^T``, so a move reads the rows ``S`` it needs as a gather from
    ``K0`` plus ``coefficients @ V^T`` with small ``coefficients`` built from
    ``G[S]``, in ``O(p t)``. The pending columns are stored as rows
    (``(c, capacity, p)``) so that these products use contiguous operands.

    Parameters
    ----------
    matrices : ndarray of shape (c, p, p)
        The initial matrices ``K0`` (copied).
    capacity : int
        Pending columns kept before they are folded into ``K0``; 0 applies every
        term at once (cheaper for small ``p``, where a pass over ``K`` is cheap and
        the reads of pending terms would only add calls).
    """

    def __init__(self, matrices: np.ndarray, capacity: int) -> None:
        c, p, _ = matrices.shape
        self.base = np.array(matrices, dtype=np.float64)
        self.vectors = np.zeros((c, capacity, p))  # V^T
        self.weighted = np.zeros((c, capacity, p))  # G^T = (V C)^T
        self.used = 0
        self.diagonal = np.diagonal(self.base, axis1=1, axis2=2).copy()

    def pending_weights(
        self, index: np.ndarray, chains: Any = slice(None)
    ) -> NDArray[np.float64]:
        """``G[index]^T``, shape ``(c', t, len(index))``: row ``i`` of ``K`` is
        ``K0[i] + G[i] V^T``."""
        weights: NDArray[np.float64] = self.weighted[chains][:, : self.used, index]
        return weights

    def expand(
        self, coefficients: np.ndarray, chains: Any = slice(None)
    ) -> NDArray[np.float64]:
        """``coefficients @ V^T`` for ``coefficients`` of shape ``(c', m, t)``."""
        terms: NDArray[np.float64] = (
            coefficients @ self.vectors[chains][:, : self.used, :]
        )
        return terms

    def rows(self, index: np.ndarray, chains: Any = slice(None)) -> np.ndarray:
        """Rows ``index`` of ``K`` for ``chains``, shape ``(c', len(index), p)``."""
        rows: NDArray[np.float64] = self.base[chains][:, index, :]
        if self.used:
            rows += self.expand(
                np.swapaxes(self.pending_weights(index, chains), 1, 2), chains
            )
        return rows

    def add(
        self, vectors: np.ndarray, core: np.ndarray, chains: Any = slice(None)
    ) -> None:
        """``K += U C U^T`` for ``chains``.

        ``U`` has shape ``(c', p, k)`` and ``C`` shape ``(c', k, k)`` (or ``(k, k)``).
        """
        self._add_rows(
            np.swapaxes(vectors, 1, 2), np.swapaxes(vectors @ core, 1, 2), chains
        )

    def add_signed(
        self, rows: np.ndarray, signs: np.ndarray, chains: Any = slice(None)
    ) -> None:
        """``K += sum_k signs[k] u_k u_k^T`` for ``chains``; ``rows`` holds the
        ``u_k`` as rows, shape ``(c', k, p)`` (the layout of the pending store)."""
        self._add_rows(rows, rows * signs[:, None], chains)

    def _add_rows(self, rows: np.ndarray, weighted: np.ndarray, chains: Any) -> None:
        """``K += W^T R`` for ``chains``, ``R`` and ``W`` of shape ``(c', k, p)``:
        into ``K0`` at once without a pending store, else into the store."""
        k = rows.shape[1]
        self.diagonal[chains] += np.einsum("ckp,ckp->cp", weighted, rows)
        if not self.vectors.shape[1]:
            self.base[chains] += np.swapaxes(weighted, 1, 2) @ rows
            return
        if self.used + k > self.vectors.shape[1]:
            self.flush()
        columns = slice(self.used, self.used + k)
        if not isinstance(chains, slice):
            self.vectors[:, columns] = 0.0
            self.weighted[:, columns] = 0.0
        self.vectors[chains, columns] = rows
        self.weighted[chains, columns] = weighted
        self.used += k

    def flush(self) -> None:
        """Fold the pending columns into ``K0``: one in-place product per matrix."""
        if not self.used:
            return
        pending = slice(0, self.used)
        for base, weighted, vectors in zip(
            self.base, self.weighted, self.vectors, strict=True
        ):
            # Row-major arrays: BLAS sees K0^T and adds V G^T to it, which is the
            # transpose of G V^T = U C U^T: the same symmetric matrix.
            blas.dgemm(
                1.0,
                vectors[pending].T,
                weighted[pending].T,
                trans_b=True,
                beta=1.0,
                c=base.T,
                overwrite_c=True,
            )
        self.used = 0

    def dense(self) -> np.ndarray:
        """``K`` itself, after folding the pending columns in."""
        self.flush()
        return self.base

    def assign(self, chains: Any, matrices: np.ndarray) -> None:
        """Replace ``K`` of ``chains`` by ``matrices``."""
        self.flush()
        self.base[chains] = matrices
        self.diagonal[chains] = np.diagonal(matrices, axis1=-2, axis2=-1)
