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

Each row costs an ``|N| x |N|`` solve; the exact zeros, the unit diagonal and the
symmetry of ``M`` hold by construction. No row can vanish: ``nu >= r_ii > 0``.

*Blocks of rows, and V known only through inner products.* Rows are processed in
blocks (:func:`block_rows`). With ``V = [[V0, 0], [Vb, Vbb]]`` split at the block's
first row ``b0``, row ``i`` of the block (``t`` rows of it done) needs

    K_NN = [[P0[N1, N1], 0], [0, 0]] + Zb^T Zb,    y = (g_i[N1], 0) + Zb^T rho_b,

where ``P0 = V0^T V0 = M_{<b0}^{-1}``, ``g_i = V0^T rho[:b0]``, ``N1`` and ``N2``
are the neighbours before and inside the block, ``Zb = [Vb[:t, N1], Vbb[:t, N2]]``
(the rows of ``Z`` inside the block) and ``rho_b = rho[b0:]``. With ``m = e / nu``
split as ``(m_1, m_2)`` over ``(N1, N2)``, row ``i`` of ``Q`` is ``V0[:, N1] m_1``
before the block, so ``Q V = I`` gives its row of ``V``:

    V[i, :b0] = -(m_1^T P0[N1, :] + q_b^T Vb[:t]) / q_ii,   q_b = Zb m.

So ``V0`` itself is never formed: the block's end updates ``P`` (``P0 + Vb^T Vb``
and the new blocks) and ``g_j`` of every later row (``+ Vb^T rho_j[b0:b1]``), both
matrix products (BLAS level 3), and inside the block each row costs gathers and
products of size ``|N|`` and ``t`` only. The total is ``O(p^3)`` per draw, mostly
in those block-end products.

*Batched across draws.* All draws share the graph, hence the index sets and the
shapes of every product and solve: each step is one batched NumPy call over the
draws, on chunks of draws small enough for the working arrays to stay in cache.
The factors are made chunk by chunk too (the caller's ``factor_chunk``), so that
they are still in cache when read. ``docs/performance.md`` has the measured costs.

*Draws on different graphs.* :func:`orthogonalized_grams` batches draws whose
graphs differ (the class graphs of a joint model): row ``i`` of draw ``d`` then
has its own ``N_d``. The sets are padded to a common width with ``i`` itself,
which reads as an all-zero column of ``Z`` (``V`` is lower triangular, and ``V``'s
columns from ``b0`` on are zero in ``P0``) and gets a unit diagonal in ``K_NN``:
its coefficient in ``e`` is exactly zero, so the padding changes nothing. The
per-row overhead (a few dozen NumPy calls, most of the cost of a single draw at
``p = 200``) is then paid once for all the graphs.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = [
    "block_rows",
    "earlier_neighbours",
    "graphs_of_draws",
    "orthogonalized_gram",
    "orthogonalized_grams",
    "packed_factor_chunks",
]

# Draws per chunk: 2^20 entries (8 MB) per (chunk, p, p) working array keeps the
# gathers in this machine's cache; measured 1.4x faster than whole batches of 1000
# draws at p = 100.
_CHUNK_ENTRIES = 2**20

FactorChunk = Callable[[int, int], np.ndarray]


def block_rows(p: int) -> int:
    """Rows per block for ``p`` nodes: ``p // 8``, between 32 and 128.

    The block-end products cost ``O(b0^2 B)`` per block and the in-block work per
    row ``O((|N| + t) b0)``: larger blocks make fewer, larger products, at the
    price of longer in-block work. Measured with one BLAS thread (seconds for
    32 / 64 / 100 / 128 rows): 32 was the fastest (or within the noise of it) at
    p = 100, density 0.25, 1000 draws; one draw at p = 2000, average degree 5, took
    0.94 / 0.82 / 0.66 / 0.63 s, 8 draws at p = 500, density 0.02,
    0.27 / 0.22 / 0.21 / 0.21 s, and 20 draws at p = 300, density 0.1, were level.
    """
    return min(128, max(32, p // 8))


def earlier_neighbours(adjacency: np.ndarray) -> list[np.ndarray]:
    """For each node ``i``, its neighbours ``j < i`` in increasing order."""
    p = adjacency.shape[0]
    return [np.flatnonzero(adjacency[i, :i]) for i in range(p)]


def graphs_of_draws(
    neighbours: list[list[np.ndarray]], n_samples: int
) -> tuple[list[list[np.ndarray]], np.ndarray]:
    """The arguments ``neighbours, graph_of_draw`` of :func:`orthogonalized_grams`.

    For ``n_samples`` draws on each graph in turn, given by its
    :func:`earlier_neighbours`; graphs given by the same list (clones fitted on
    equal graphs share it) are one graph, whose draws take the faster
    single-graph path.
    """
    index: dict[int, int] = {}
    distinct: list[list[np.ndarray]] = []
    for graph in neighbours:
        if id(graph) not in index:
            index[id(graph)] = len(distinct)
            distinct.append(graph)
    graphs = np.array([index[id(graph)] for graph in neighbours])
    return distinct, np.repeat(graphs, n_samples)


def packed_factor_chunks(diagonal: np.ndarray, lower: np.ndarray) -> FactorChunk:
    """Dense lower triangular factors, chunk by chunk, from a packed form.

    ``diagonal`` has shape ``(n, p)``; ``lower`` ``(n, p (p - 1) / 2)`` holds the
    strictly lower triangles row by row (the order of ``np.tril_indices(p, -1)``).
    """
    p = diagonal.shape[1]
    rows, cols = np.tril_indices(p, -1)
    index = np.arange(p)

    def chunk(start: int, stop: int) -> np.ndarray:
        factor = np.zeros((stop - start, p, p))
        factor[:, rows, cols] = lower[start:stop]
        factor[:, index, index] = diagonal[start:stop]
        return factor

    return chunk


def orthogonalized_gram(
    factor_chunk: FactorChunk,
    n_samples: int,
    neighbours: list[np.ndarray],
    chunk_size: int | None = None,
) -> np.ndarray:
    """``M = Q Q^T`` for the rows of lower triangular factors, partially orthogonalised.

    Parameters
    ----------
    factor_chunk : callable
        ``factor_chunk(start, stop)`` returns the factors of draws
        ``[start, stop)``: a new ``(stop - start, p, p)`` lower triangular array
        with positive diagonal, which this function overwrites.
    n_samples : int
        Number of draws.
    neighbours : list of ndarray
        ``neighbours[i]``: the earlier neighbours of ``i``, sorted
        (:func:`earlier_neighbours`); row ``i`` is made orthogonal to every other
        earlier row.
    chunk_size : int, optional
        Draws processed together; by default as many as keep the working arrays
        near 8 MB. The result does not depend on it beyond rounding.

    Returns
    -------
    gram : ndarray of shape (n_samples, p, p)
        Symmetric, unit diagonal, exact zeros at the non-edges.
    """
    graph_of_draw = np.zeros(n_samples, dtype=np.int64)
    return orthogonalized_grams(factor_chunk, [neighbours], graph_of_draw, chunk_size)


def orthogonalized_grams(
    factor_chunk: FactorChunk,
    neighbours: list[list[np.ndarray]],
    graph_of_draw: np.ndarray,
    chunk_size: int | None = None,
) -> np.ndarray:
    """:func:`orthogonalized_gram` for draws on several graphs, batched together.

    Parameters
    ----------
    factor_chunk : callable
        As in :func:`orthogonalized_gram`.
    neighbours : list of list of ndarray
        ``neighbours[g]``: the earlier neighbours of every node in graph ``g``
        (:func:`earlier_neighbours`); all graphs have the same nodes.
    graph_of_draw : ndarray of shape (n_samples,), dtype int
        The graph of each draw.
    chunk_size : int, optional
        As in :func:`orthogonalized_gram`.

    Returns
    -------
    gram : ndarray of shape (n_samples, p, p)
        Draw ``d`` is orthogonalised on graph ``graph_of_draw[d]``: the same
        matrix, up to rounding, as :func:`orthogonalized_gram` gives it alone.
    """
    p = len(neighbours[0])
    n_samples = graph_of_draw.size
    if chunk_size is None:
        chunk_size = max(1, _CHUNK_ENTRIES // (p * p))
    table = widths = None
    if len(neighbours) > 1:
        table, widths = _padded_neighbours(neighbours)
    gram = np.zeros((n_samples, p, p))
    for start in range(0, n_samples, chunk_size):
        stop = min(start + chunk_size, n_samples)
        graphs = graph_of_draw[start:stop]
        row_neighbours: Callable[[int], np.ndarray]
        if table is None or widths is None or np.all(graphs == graphs[0]):
            row_neighbours = neighbours[graphs[0]].__getitem__
        else:
            row_neighbours = _padded_rows(table, widths, graphs)
        factor = factor_chunk(start, stop)
        _orthogonalize_chunk(factor, row_neighbours, gram[start:stop])
    index = np.arange(p)
    gram[:, index, index] = 1.0
    return gram


def _padded_rows(
    table: np.ndarray, widths: np.ndarray, graphs: np.ndarray
) -> Callable[[int], np.ndarray]:
    """Row ``i``'s earlier neighbours in each of ``graphs``, from the padded table."""

    def row_neighbours(i: int) -> np.ndarray:
        return table[graphs, i, : widths[graphs, i].max()]

    return row_neighbours


def _padded_neighbours(
    neighbours: list[list[np.ndarray]],
) -> tuple[np.ndarray, np.ndarray]:
    """Every graph's earlier neighbours in one ``(G, p, width)`` table, and the widths.

    Row ``i`` of graph ``g`` lists its neighbours, then ``i`` itself as padding
    (see the module docstring); ``widths[g, i]`` is the number of neighbours.
    """
    p = len(neighbours[0])
    widths = np.array([[n.size for n in graph] for graph in neighbours])
    table = np.tile(np.arange(p)[None, :, None], (len(neighbours), 1, widths.max()))
    for g, graph in enumerate(neighbours):
        rows = np.repeat(np.arange(p), widths[g])
        starts = np.cumsum(widths[g]) - widths[g]
        table[g, rows, np.arange(rows.size) - starts[rows]] = np.concatenate(graph)
    return table, widths


def _orthogonalize_chunk(
    factor: np.ndarray,
    row_neighbours: Callable[[int], np.ndarray],
    gram: np.ndarray,
) -> None:
    """Fill the off-diagonal entries of ``gram`` for one chunk of draws.

    ``row_neighbours(i)`` gives row ``i``'s earlier neighbours: one sorted array
    for every draw of the chunk, or a ``(chunk, width)`` array, one padded row per
    draw (:func:`_padded_neighbours`).
    """
    c, p, _ = factor.shape
    inverse_gram = np.zeros((c, p, p))
    size = block_rows(p)
    for b0 in range(0, p, size):
        block = _Block(factor, inverse_gram, b0, min(size, p - b0))
        for i in range(b0, b0 + block.size):
            neighbours = row_neighbours(i)
            if neighbours.ndim == 1:
                block.add_row(i, neighbours, gram)
            else:
                block.add_padded_row(i, neighbours, gram)
        block.finish()
    # Rows wrote only their strictly lower part (one scattered column write per row
    # is slow); the upper triangle is its transpose, added in one pass.
    gram += np.swapaxes(gram, 1, 2)


class _Block:
    """One block of rows ``[b0, b0 + size)`` of ``Q``, processed row by row.

    Reads ``P0 = M_{<b0}^{-1}`` from the leading block of ``inverse_gram``, and
    ``g_i = V0^T rho_i`` from ``factor[:, i, :b0]`` (the factor's rows hold
    ``g`` before the block and ``rho`` from it on); holds the block's rows of
    ``V`` in ``inverse_rows``, column ``j`` for node ``j``: ``Vb`` (columns
    before the block, ``inverse_before``) and ``Vbb`` (``inverse_inside``).
    """

    def __init__(
        self, factor: np.ndarray, inverse_gram: np.ndarray, b0: int, size: int
    ) -> None:
        c = factor.shape[0]
        self.factor, self.inverse_gram = factor, inverse_gram
        self.b0, self.size, self.t = b0, size, 0
        self.inverse_rows = np.zeros((c, size, b0 + size))
        self.inverse_before = self.inverse_rows[:, :, :b0]
        self.inverse_inside = self.inverse_rows[:, :, b0:]

    def add_row(self, i: int, neighbours: np.ndarray, gram: np.ndarray) -> None:
        """Process row ``i``: write ``m_iN`` into ``gram``, then its row of ``V``."""
        b0, t = self.b0, self.t
        self.t += 1
        if neighbours.size == 0:
            # Orthogonal to every earlier row: q_i = e_i and V's row is e_i too.
            self.inverse_inside[:, t, t] = 1.0
            return
        factor, inverse_before = self.factor, self.inverse_before
        a1 = int(np.searchsorted(neighbours, b0))
        n1, n2 = neighbours[:a1], neighbours[a1:] - b0
        # [rho_b, Zb] on the block's rows; one product gives Zb^T Zb and Zb^T rho_b.
        inside = np.empty((factor.shape[0], t, 1 + neighbours.size))
        inside[:, :, 0] = factor[:, i, b0:i]
        inside[:, :, 1 : 1 + a1] = inverse_before[:, :t, n1]
        inside[:, :, 1 + a1 :] = self.inverse_inside[:, :t, n2]
        products = np.swapaxes(inside, 1, 2) @ inside
        if a1:
            products[:, 1 : 1 + a1, 0] += factor[:, i, n1]
            products[:, 1 : 1 + a1, 1 : 1 + a1] += self.inverse_gram[:, n1[:, None], n1]
        y = products[:, 1:, 0]
        e = np.linalg.solve(products[:, 1:, 1:], y[..., None])[..., 0]
        r_ii = factor[:, i, i]
        nu = np.sqrt(r_ii * r_ii + np.einsum("ca,ca->c", y, e))
        m = e / nu[:, None]
        gram[:, i, neighbours] = m
        # q_b = Zb m (row i of Q on the block's columns), then row t of V.
        q_inside = (inside[:, :, 1:] @ m[..., None])[..., 0]
        minus_q_ii = -r_ii / nu
        row = q_inside[:, None, :] @ inverse_before[:, :t]
        if a1:
            row += m[:, None, :a1] @ self.inverse_gram[:, n1, :b0]
        inverse_before[:, t] = row[:, 0] / minus_q_ii[:, None]
        self.inverse_inside[:, t, :t] = (
            q_inside[:, None, :] @ self.inverse_inside[:, :t, :t]
        )[:, 0] / minus_q_ii[:, None]
        self.inverse_inside[:, t, t] = -1.0 / minus_q_ii

    def add_padded_row(self, i: int, neighbours: np.ndarray, gram: np.ndarray) -> None:
        """:meth:`add_row` with one padded set of neighbours per draw.

        The same steps on gathered entries: a neighbour's column of ``V`` is
        column ``j`` of ``inverse_rows`` whether ``j`` lies before the block or
        in it, and ``P0`` and ``g_i`` are read for every neighbour, those from
        the block on masked (``P0``'s are still zero, ``g_i``'s hold ``rho``).
        """
        b0, t = self.b0, self.t
        self.t += 1
        c, width = neighbours.shape
        if width == 0:
            self.inverse_inside[:, t, t] = 1.0
            return
        factor, inverse_gram = self.factor, self.inverse_gram
        draws = np.arange(c)[:, None]
        inside = np.empty((c, t, 1 + width))
        inside[:, :, 0] = factor[:, i, b0:i]
        inside[:, :, 1:] = np.take_along_axis(
            self.inverse_rows[:, :t], neighbours[:, None, :], axis=2
        )
        products = np.swapaxes(inside, 1, 2) @ inside
        before = neighbours < b0
        products[:, 1:, 0] += np.where(
            before, np.take_along_axis(factor[:, i], neighbours, axis=1), 0.0
        )
        products[:, 1:, 1:] += inverse_gram[
            draws[:, :, None], neighbours[:, :, None], neighbours[:, None, :]
        ]
        diagonal = np.arange(1, 1 + width)
        products[:, diagonal, diagonal] += neighbours == i  # the padding's unit pivot
        y = products[:, 1:, 0]
        e = np.linalg.solve(products[:, 1:, 1:], y[..., None])[..., 0]
        r_ii = factor[:, i, i]
        nu = np.sqrt(r_ii * r_ii + np.einsum("ca,ca->c", y, e))
        m = e / nu[:, None]
        gram[draws, i, neighbours] = m  # the padding writes 0.0 on the diagonal
        q_inside = (inside[:, :, 1:] @ m[..., None])[..., 0]
        minus_q_ii = -r_ii / nu
        row = (q_inside[:, None, :] @ self.inverse_rows[:, :t])[:, 0]
        row[:, :b0] += (m[:, None, :] @ inverse_gram[draws, neighbours, :b0])[:, 0]
        self.inverse_rows[:, t] = row / minus_q_ii[:, None]
        self.inverse_rows[:, t, i] = -1.0 / minus_q_ii

    def finish(self) -> None:
        """Extend ``P`` by the block and update ``g`` of every later row.

        ``P_new = V_new^T V_new`` with ``V_new = [[V0, 0], [Vb, Vbb]]``, and
        ``g_j = V_new^T rho_j[:b1]`` for ``j >= b1``: level-3 products, once per
        block.
        """
        b0, b1 = self.b0, self.b0 + self.size
        p = self.factor.shape[1]
        if b1 == p:
            return
        before, inside = self.inverse_before, self.inverse_inside
        inverse_gram, factor = self.inverse_gram, self.factor
        inside_t = np.swapaxes(inside, 1, 2)
        if b0:
            before_t = np.swapaxes(before, 1, 2)
            inverse_gram[:, :b0, :b0] += before_t @ before
            cross = before_t @ inside
            inverse_gram[:, :b0, b0:b1] = cross
            inverse_gram[:, b0:b1, :b0] = np.swapaxes(cross, 1, 2)
        inverse_gram[:, b0:b1, b0:b1] = inside_t @ inside
        rho = factor[:, b1:, b0:b1]
        if b0:
            factor[:, b1:, :b0] += rho @ before
        factor[:, b1:, b0:b1] = rho @ inside
