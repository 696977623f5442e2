"""Partial orthogonalization of random rows, batched across draws.

Shared by :class:`PartialOrthogonalization` (Gaussian rows) and
:class:`TriangulatedOrthogonalization` (rows of a uniform chordal factor).

The paper's algorithm takes rows ``u_0, ..., u_{p-1}`` and, for each ``i`` in turn,
projects ``u_i`` off the span of the processed rows ``q_j`` with ``j`` in ``S_i``
(``j < i`` not adjacent to ``i``) and normalises it; the draw is ``M = Q Q^T``.

*Only inner products matter.* Every step reads the rows through inner products,
so ``M`` is a function of ``W = U U^T`` alone and the rows may be replaced by any
``R`` with ``R R^T = W``; we take ``R`` lower triangular (the Cholesky factor of
``W``, or directly a Bartlett factor when the rows are Gaussian). Then ``Q`` is lower
triangular too: it is the Cholesky factor of ``M``.

*One row in closed form.* Write ``r_i = (rho, r_ii)`` with ``rho`` in ``R^i`` and let
``V = Q_{<i}^{-1}`` (lower triangular). Its columns ``v_j`` are dual to the processed
rows (``q_k . v_j = delta_kj``), so the orthogonal complement of ``span(q_S)`` in
``R^i`` is spanned by the columns ``Z = V[:, N]``, ``N`` the earlier neighbours of
``i``. The residual of ``rho`` is its projection on them, ``Z e`` with

    y = Z^T rho,    K_NN = Z^T Z  (= (M_{<i}^{-1})_NN),    e = K_NN^{-1} y,

and, with ``nu^2 = r_ii^2 + y . e`` the squared norm of the residual row,

    m_iN = e / nu,    m_iS = 0,    q_i = (Z e / nu, r_ii / nu).

Each row costs a gather of ``|N|`` columns of ``V`` and an ``|N| x |N|`` solve; the
exact zeros, the unit diagonal and the symmetry of ``M`` hold by construction. No
row can vanish: ``nu >= r_ii > 0``.

*Blocks of rows.* ``V`` grows by one row per processed row. Rows are processed in
blocks of ``_BLOCK_ROWS``: inside a block, with ``Q = [[Q0, 0], [Qb, Qbb]]``,

    V = [[V0, 0], [-Vbb Qb V0, Vbb]],     Vbb = Qbb^{-1},

so the rows of ``V`` inside the block are needed only on the columns ``N`` of the
current row (``-Vbb (Qb V0[:, N])``, small) and the block's rows of ``V`` are written
once at its end by one matrix product (BLAS level 3), instead of one level-2 update
per row. The total is ``O(p^3)`` per draw, mostly in those products.

*Batched across draws.* All draws share the graph, hence the index sets and the
shapes of every product and solve: each step is one batched NumPy call over the
draws, on chunks of draws small enough for the working arrays to stay in cache.
``docs/performance.md`` has the measured costs.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "earlier_neighbours",
    "orthogonalized_gram",
    "strictly_lower",
]

# Rows per block. The block-end product costs O(b0^2 B) and the in-block work per row
# O(b0 |N| B); 32 was within a few per cent of the best of 8 to 256 at p = 100
# (density 0.25) and p = 2000 (average degree 5), one BLAS thread.
_BLOCK_ROWS = 32
# Draws per chunk: 2^20 entries (8 MB) per (chunk, p, p) working array keeps the
# gathers in this machine's cache; measured 1.4x faster than whole batches of 1000
# draws at p = 100.
_CHUNK_ENTRIES = 2**20


def earlier_neighbours(adjacency: np.ndarray) -> list[np.ndarray]:
    """For each node ``i``, its neighbours ``j < i`` in increasing order."""
    p = adjacency.shape[0]
    return [np.flatnonzero(adjacency[i, :i]) for i in range(p)]


def strictly_lower(factors: np.ndarray) -> np.ndarray:
    """The strictly lower triangles of ``(n, p, p)`` matrices, packed row by row.

    Row ``i`` occupies ``[i (i - 1) / 2, i (i + 1) / 2)`` of the last axis.
    """
    rows, cols = np.tril_indices(factors.shape[-1], -1)
    return factors[:, rows, cols]


def orthogonalized_gram(
    diagonal: np.ndarray,
    lower: np.ndarray,
    neighbours: list[np.ndarray],
    chunk_size: int | None = None,
) -> np.ndarray:
    """``M = Q Q^T`` for the rows of lower triangular factors, partially orthogonalised.

    Parameters
    ----------
    diagonal : ndarray of shape (n, p)
        Positive diagonals ``r_ii`` of the factors.
    lower : ndarray of shape (n, p (p - 1) / 2)
        Their strictly lower triangles, packed as by :func:`strictly_lower`.
    neighbours : list of ndarray
        ``neighbours[i]``: the earlier neighbours of ``i``, sorted
        (:func:`earlier_neighbours`); row ``i`` is made orthogonal to every other
        earlier row.
    chunk_size : int, optional
        Draws processed together; by default as many as keep the working arrays
        near 8 MB. The result does not depend on it beyond rounding.

    Returns
    -------
    gram : ndarray of shape (n, p, p)
        Symmetric, unit diagonal, exact zeros at the non-edges.
    """
    n, p = diagonal.shape
    if chunk_size is None:
        chunk_size = max(1, _CHUNK_ENTRIES // (p * p))
    gram = np.zeros((n, p, p))
    for start in range(0, n, chunk_size):
        stop = min(start + chunk_size, n)
        _orthogonalize_chunk(
            diagonal[start:stop], lower[start:stop], neighbours, gram[start:stop]
        )
    index = np.arange(p)
    gram[:, index, index] = 1.0
    return gram


def _orthogonalize_chunk(
    diagonal: np.ndarray,
    lower: np.ndarray,
    neighbours: list[np.ndarray],
    gram: np.ndarray,
) -> None:
    """Fill the off-diagonal entries of ``gram`` for one chunk of draws."""
    c, p = diagonal.shape
    # inverse_t[:, j, :] is column j of V = Q^{-1} (V transposed): the columns a row
    # gathers are then contiguous rows of this array.
    inverse_t = np.zeros((c, p, p))
    for b0 in range(0, p, _BLOCK_ROWS):
        block = _Block(inverse_t[:, :b0, :b0], min(_BLOCK_ROWS, p - b0))
        for i in range(b0, b0 + block.size):
            packed = lower[:, i * (i - 1) // 2 : i * (i + 1) // 2]
            block.add_row(i, neighbours[i], diagonal[:, i], packed, gram)
        block.write_inverse(inverse_t)
    # Rows wrote only their strictly lower part (one scattered column write per row
    # is slow); the upper triangle is its transpose, added in one pass.
    gram += np.swapaxes(gram, 1, 2)


class _Block:
    """One block of rows ``[b0, b0 + size)`` of ``Q``, processed row by row.

    Holds the block's rows of ``Q`` on the columns before the block (``Qb``) and the
    inverse ``Vbb`` of its diagonal part, grown one row at a time; the rows before
    the block are known through ``V0^T``.
    """

    def __init__(self, inverse_t_before: np.ndarray, size: int) -> None:
        c, b0, _ = inverse_t_before.shape
        self.inverse_t_before = inverse_t_before
        self.b0, self.size, self.t = b0, size, 0
        self.q_before = np.zeros((c, size, b0))
        self.block_inverse = np.zeros((c, size, size))

    def add_row(
        self,
        i: int,
        neighbours: np.ndarray,
        r_ii: np.ndarray,
        rho: np.ndarray,
        gram: np.ndarray,
    ) -> None:
        """Process row ``i``: write ``m_iN`` into ``gram`` and grow the factors.

        ``Z = V[:i, N]`` is ``[V0[:, N1], 0]`` on the rows before the block
        (``N1``: the neighbours before it, ``N2`` those inside) and ``Zb`` on the
        block's rows.
        """
        b0, t = self.b0, self.t
        self.t += 1
        block_inverse = self.block_inverse
        if neighbours.size == 0:
            # Orthogonal to every earlier row: q_i = e_i, nothing to write.
            block_inverse[:, t, t] = 1.0
            return
        a1 = int(np.searchsorted(neighbours, b0))
        a = neighbours.size
        c = r_ii.shape[0]
        # Stack rho in front of the columns of Z, [rho, Z]; then one product per
        # part gives K_NN = Z^T Z and y = Z^T rho at once.
        before = np.empty((c, 1 + a1, b0))  # [rho, V0[:, N1]]^T
        before[:, 0] = rho[:, :b0]
        before[:, 1:] = self.inverse_t_before[:, neighbours[:a1]]
        inside = np.empty((c, t, 1 + a))  # [rho, Zb] on the block's rows
        inside[:, :, 0] = rho[:, b0:]
        if a1 and t:
            # V[block rows, N1] = -Vbb (Qb V0[:, N1]).
            projected = self.q_before[:, :t] @ np.swapaxes(before[:, 1:], 1, 2)
            inside[:, :, 1 : 1 + a1] = -(block_inverse[:, :t, :t] @ projected)
        else:
            inside[:, :, 1 : 1 + a1] = 0.0
        inside[:, :, 1 + a1 :] = block_inverse[:, :t, neighbours[a1:] - b0]
        products = np.swapaxes(inside, 1, 2) @ inside
        if a1:
            products[:, : 1 + a1, : 1 + a1] += before @ np.swapaxes(before, 1, 2)
        y = products[:, 1:, 0]
        e = np.linalg.solve(products[:, 1:, 1:], y[..., None])[..., 0]
        nu = np.sqrt(r_ii * r_ii + np.einsum("ca,ca->c", y, e))
        m = e / nu[:, None]
        gram[:, i, neighbours] = m
        # Row i of Q: Z m on the earlier columns, r_ii / nu on the diagonal.
        if a1:
            self.q_before[:, t] = (m[:, None, :a1] @ before[:, 1:])[:, 0]
        q_inside = (inside[:, :, 1:] @ m[..., None])[..., 0]
        q_ii = r_ii / nu
        # Row t of Vbb = Qbb^{-1}, from row t of Qbb Vbb = I.
        block_inverse[:, t, :t] = (
            -(q_inside[:, None, :] @ block_inverse[:, :t, :t])[:, 0] / q_ii[:, None]
        )
        block_inverse[:, t, t] = 1.0 / q_ii

    def write_inverse(self, inverse_t: np.ndarray) -> None:
        """Store the block's rows of ``V`` (transposed) once all its rows are done.

        ``V[block, :b0] = -Vbb Qb V0``, i.e. transposed ``-(V0^T Qb^T) Vbb^T``: the
        level-3 product that replaces one rank-one update per row.
        """
        b0, b1 = self.b0, self.b0 + self.size
        block_inverse_t = np.swapaxes(self.block_inverse, 1, 2)
        if b0:
            inverse_t[:, :b0, b0:b1] = (
                -(self.inverse_t_before @ np.swapaxes(self.q_before, 1, 2))
                @ block_inverse_t
            )
        inverse_t[:, b0:b1, b0:b1] = block_inverse_t
