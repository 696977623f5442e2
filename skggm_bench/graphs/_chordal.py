"""Chordal tools: maximum cardinality search, :func:`is_chordal`,
:func:`perfect_ordering` and :func:`triangulate`, on sparse neighbour lists."""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Iterable
from typing import Any

import networkx as nx
import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from scipy.sparse.csgraph import breadth_first_order, connected_components

from ._adjacency import check_adjacency

# Under its name of before the split: a study records the bytecode of a function it
# is given, names included (results/_provenance.py), and that must not change.
from ._adjacency import csr_from_pairs as _csr_from_pairs

__all__ = ["is_chordal", "perfect_ordering", "triangulate"]


# --------------------------------------------------------------------------------------
# Chordal tools
#
# They work on sparse neighbour lists (a canonical CSR matrix from
# check_adjacency(..., sparse=True)), so time and memory are proportional to
# p + |E| (plus the fill-in for triangulate); no dense (p, p) array is built unless
# the caller passes one or asks for one.
# --------------------------------------------------------------------------------------


def _maximum_cardinality_search(adjacency: sp.csr_array) -> np.ndarray:
    """Visit order of maximum cardinality search (Tarjan & Yannakakis, 1984).

    Each step visits an unvisited vertex with the most visited neighbours, the
    lowest index among ties. On a chordal graph the visit order is perfect: earlier
    neighbours form a clique. A heap with lazy deletion makes this
    O((p + |E|) log p); the loop is plain Python over lists because it is
    inherently sequential and numpy's per-call overhead would dominate.
    """
    p = adjacency.shape[0]
    starts = adjacency.indptr.tolist()
    neighbours = adjacency.indices.tolist()
    count = [0] * p
    visited = [False] * p
    # One int per heap entry, -count * p + v, orders by (most visited neighbours,
    # lowest index) and compares faster than tuples. range(p) is already a heap.
    heap = list(range(p))
    order = []
    heappop, heappush = heapq.heappop, heapq.heappush
    for _ in range(p):
        # Counts only grow and a larger count sorts first, so the first entry
        # popped for an unvisited vertex is its current one: skip visited only.
        v = heappop(heap) % p
        while visited[v]:
            v = heappop(heap) % p
        visited[v] = True
        order.append(v)
        for w in neighbours[starts[v] : starts[v + 1]]:
            if not visited[w]:
                count[w] += 1
                heappush(heap, -count[w] * p + w)
    return np.array(order, dtype=np.int64)


def _earlier_edges(
    adjacency: sp.csr_array, order: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Directed edges ``(v, w)`` with ``w`` before ``v`` in ``order``, and positions."""
    p = adjacency.shape[0]
    position = np.empty(p, dtype=np.int64)
    position[order] = np.arange(p)
    rows = np.repeat(np.arange(p, dtype=np.int64), np.diff(adjacency.indptr))
    cols = adjacency.indices.astype(np.int64)
    earlier = position[cols] < position[rows]
    return rows[earlier], cols[earlier], position


def _first_violation(
    adjacency: sp.csr_array, order: np.ndarray
) -> tuple[int, int, int] | None:
    """Return ``(v, u, w)`` with ``u, w`` non-adjacent earlier neighbours of ``v``.

    Uses the classical test (Tarjan & Yannakakis, 1984): ``order`` is perfect iff,
    for every ``v``, the earlier neighbours of ``v`` other than the latest one,
    ``u``, are neighbours of ``u``. Vectorised as a sorted-key membership test over
    all edges. ``v`` is the earliest failing vertex in ``order``; ``None`` when the
    ordering is perfect.
    """
    p = adjacency.shape[0]
    rows, cols, position = _earlier_edges(adjacency, order)
    if rows.size == 0:
        return None
    latest = np.full(p, -1, dtype=np.int64)
    np.maximum.at(latest, rows, position[cols])
    follower = np.where(latest >= 0, order[latest.clip(min=0)], -1)
    others = cols != follower[rows]
    v, w = rows[others], cols[others]
    u = follower[v]
    # Canonical CSR: row-major keys of all (directed) edges are sorted.
    edge_keys = np.repeat(
        np.arange(p, dtype=np.int64), np.diff(adjacency.indptr)
    ) * p + adjacency.indices.astype(np.int64)
    wanted = u * p + w
    slot = np.searchsorted(edge_keys, wanted).clip(max=edge_keys.size - 1)
    missing = np.flatnonzero(edge_keys[slot] != wanted)
    if missing.size == 0:
        return None
    first = missing[np.argmin(position[v[missing]])]
    return int(v[first]), int(u[first]), int(w[first])


def _chordless_cycle(
    adjacency: sp.csr_array, order: np.ndarray, v: int
) -> list[int] | None:
    """A chordless cycle of length >= 4 through ``v``, the first violation.

    If ``v`` is the earliest vertex of a maximum cardinality search order whose
    earlier neighbours are not a clique, the graph induced by ``v`` and the earlier
    vertices is not chordal (the search order restricted to it is still a maximum
    cardinality search, which would be perfect on a chordal graph), while the graph
    induced by the earlier vertices alone is (the order is perfect there). So every
    chordless cycle of the former passes through ``v``: two non-adjacent earlier
    neighbours ``a, b`` of ``v`` joined by a path avoiding the other neighbours of
    ``v``. A shortest such path closes a chordless cycle with ``v``.
    """
    p = adjacency.shape[0]
    indptr, indices = adjacency.indptr, adjacency.indices
    neighbours_v = indices[indptr[v] : indptr[v + 1]]
    position = np.empty(p, dtype=np.int64)
    position[order] = np.arange(p)
    earlier = neighbours_v[position[neighbours_v] < position[v]]
    # Components of the graph without v and all its neighbours.
    keep = np.ones(p, dtype=bool)
    keep[neighbours_v] = False
    keep[v] = False
    kept = np.flatnonzero(keep)
    _, kept_labels = connected_components(adjacency[kept][:, kept], directed=False)
    label = np.full(p, -1, dtype=np.int64)
    label[kept] = kept_labels
    attached = {
        int(a): set(label[indices[indptr[a] : indptr[a + 1]]].tolist()) - {-1}
        for a in earlier
    }
    for i, a in enumerate(earlier.tolist()):
        adjacent = set(indices[indptr[a] : indptr[a + 1]].tolist())
        for b in earlier[i + 1 :].tolist():
            common = attached[a] & attached[b]
            if b in adjacent or not common:
                continue
            nodes = np.concatenate([[a, b], np.flatnonzero(label == min(common))])
            _, predecessors = breadth_first_order(
                adjacency[nodes][:, nodes],
                0,
                directed=False,
                return_predecessors=True,
            )
            path = [1]
            while path[-1] != 0:
                path.append(int(predecessors[path[-1]]))
            return [v, *(int(nodes[k]) for k in reversed(path))]
    return None


def _not_chordal_error(
    adjacency: sp.csr_array,
    order: np.ndarray,
    violation: tuple[int, int, int],
    graph: Any,
) -> ValueError:
    v, u, w = violation
    cycle = _chordless_cycle(adjacency, order, v)
    if cycle is None:  # pragma: no cover - excluded by the argument in the helper
        where = f"matrix indices {u} and {w} are both adjacent to {v} but not to "
        where += "each other"
    else:
        if isinstance(graph, nx.Graph):
            nodes = list(graph.nodes)
            names, kind = [repr(nodes[k]) for k in cycle], "networkx nodes"
        else:
            names, kind = [str(k) for k in cycle], "matrix indices"
        shown = names if len(names) <= 12 else [*names[:10], "...", names[-1]]
        where = (
            f"the cycle {' - '.join(shown)} - {names[0]} ({kind}) of length "
            f"{len(cycle)} has no chord"
        )
    return ValueError(
        f"graph is not chordal: {where}; triangulate it first "
        "(skggm_bench.graphs.triangulate)"
    )


def is_chordal(graph: Any) -> bool:
    """Whether every cycle of length at least 4 has a chord.

    Runs in time ``O((p + |E|) log p)`` and memory ``O(p + |E|)`` on networkx and
    scipy.sparse input: no dense ``(p, p)`` array is built.

    Parameters
    ----------
    graph : networkx.Graph, array-like or scipy.sparse matrix
        See :func:`check_adjacency`.

    Returns
    -------
    bool

    Examples
    --------
    >>> import networkx as nx
    >>> from skggm_bench.graphs import is_chordal
    >>> is_chordal(nx.cycle_graph(4)), is_chordal(nx.cycle_graph(3))
    (False, True)
    """
    adjacency = check_adjacency(graph, sparse=True)
    order = _maximum_cardinality_search(adjacency)
    return _first_violation(adjacency, order) is None


def perfect_ordering(graph: Any) -> NDArray[np.int64]:
    """A perfect ordering of a chordal graph.

    In a perfect ordering the earlier neighbours of every vertex form a clique
    (the reverse of a perfect elimination ordering). Along such an ordering the
    upper Cholesky factor ``U`` of a matrix ``M = U U^T`` in the graph's cone has
    no fill-in, which is what the uniform sampler needs.

    The ordering is the visit order of maximum cardinality search, ties going to
    the lowest matrix index, so it is deterministic. Time ``O((p + |E|) log p)`` and
    memory ``O(p + |E|)`` on networkx and scipy.sparse input (no dense ``(p, p)``
    array), e.g. under a second for a band graph with p = 100,000.

    Parameters
    ----------
    graph : networkx.Graph, array-like or scipy.sparse matrix
        A chordal graph; see :func:`check_adjacency`.

    Returns
    -------
    ordering : ndarray of shape (p,), dtype int64
        Matrix indices in perfect order.

    Raises
    ------
    ValueError
        If the graph is not chordal; the message names a chordless cycle (by
        matrix index, or by node for a networkx graph).

    Examples
    --------
    >>> import networkx as nx
    >>> from skggm_bench.graphs import perfect_ordering
    >>> perfect_ordering(nx.path_graph(4))
    array([0, 1, 2, 3])
    >>> perfect_ordering(nx.cycle_graph(4))
    Traceback (most recent call last):
    ...
    ValueError: graph is not chordal: the cycle 3 - 0 - 1 - 2 - 3 (networkx nodes) ...
    """
    adjacency = check_adjacency(graph, sparse=True)
    order = _maximum_cardinality_search(adjacency)
    violation = _first_violation(adjacency, order)
    if violation is not None:
        raise _not_chordal_error(adjacency, order, violation, graph)
    return order


def triangulate(
    graph: Any, method: str = "min_degree"
) -> tuple[NDArray[np.bool_], NDArray[np.int64]]:
    """Chordal supergraph by greedy vertex elimination, and a perfect ordering of it.

    Vertices are eliminated one at a time; the neighbours of an eliminated vertex
    are joined into a clique (the *fill-in*). The elimination order is a perfect
    elimination ordering of the filled graph, so its reverse is a perfect ordering.
    The elimination runs on sparse neighbour sets, and on a dense matrix over the
    remaining vertices once these are densely connected, so memory grows with the
    size of the filled graph, not with ``p ** 2`` (only the returned matrix is
    dense): a 5000-vertex tree, band or 50 x 100 lattice takes well under a second.

    Parameters
    ----------
    graph : networkx.Graph, array-like or scipy.sparse matrix
        See :func:`check_adjacency`.
    method : {"min_degree", "min_fill"}, default="min_degree"
        Which vertex to eliminate next: the one of smallest current degree, or the
        one whose elimination adds the fewest edges (ties to the smaller degree).
        ``"min_fill"`` usually adds less fill-in but is slower, and neither
        heuristic is always better. Remaining ties go to the lowest index, so the
        result is deterministic.

    Returns
    -------
    chordal_adjacency : ndarray of shape (p, p), dtype bool
        The input edges plus the fill-in. Equal to the input when it is chordal
        and the heuristic finds a zero-fill order (always the case for
        ``"min_fill"``).
    ordering : ndarray of shape (p,), dtype int64
        A perfect ordering of ``chordal_adjacency``.

    Examples
    --------
    >>> import networkx as nx
    >>> from skggm_bench.graphs import triangulate
    >>> filled, order = triangulate(nx.cycle_graph(4))
    >>> int(filled.sum() // 2)
    5
    """
    filled, ordering = _triangulate_sparse(graph, method)
    return filled.toarray(), ordering


def _triangulate_sparse(
    graph: Any, method: str = "min_degree"
) -> tuple[sp.csr_array, np.ndarray]:
    """:func:`triangulate` returning the filled graph as a canonical bool CSR array.

    For samplers on large sparse graphs: memory is proportional to the size of the
    filled graph.
    """
    if method not in ("min_degree", "min_fill"):
        raise ValueError(f"method must be 'min_degree' or 'min_fill', got {method!r}")
    adjacency = check_adjacency(graph, sparse=True)
    p = adjacency.shape[0]
    elimination, later = _Elimination(adjacency, method).run()
    # The filled graph joins each vertex to its neighbours at elimination time.
    rows = np.repeat(np.asarray(elimination, dtype=np.int64), [len(n) for n in later])
    cols = np.concatenate([np.zeros(0, dtype=np.int64), *later]).astype(np.int64)
    filled = _csr_from_pairs(
        p, np.concatenate([rows, cols]), np.concatenate([cols, rows])
    )
    return filled, np.asarray(elimination[::-1], dtype=np.int64)


# Switch from neighbour sets to a dense boolean matrix on the remaining vertices once
# they have at least r**2 / _DENSE_SWITCH edges among r vertices. A set entry costs
# tens of bytes against one byte per dense entry, so memory stays proportional to the
# filled graph, while numpy's vectorised row operations beat set operations on the
# dense cliques that elimination builds at the end (e.g. Erdős–Rényi graphs).
_DENSE_SWITCH = 64

# Upper bound on the elements of temporary (n_pairs, r) blocks in the dense phase.
_DENSE_CHUNK = 1 << 24


class _Elimination:
    """Greedy vertex elimination by minimum degree or minimum fill-in.

    The next vertex minimises ``(degree, index)`` or ``(fill, degree, index)``,
    where ``fill`` is the number of missing edges among the current neighbours.
    While the remaining graph is sparse it is held as neighbour sets with a heap of
    integer keys (lazy deletion); once dense, as a boolean matrix with argmin
    selection. Both phases apply the same rule, so the result does not depend on
    where the switch happens.

    Fill counts are updated incrementally. Eliminating ``v`` with neighbourhood
    ``N`` adds the set ``F`` of missing pairs of ``N``. A vertex ``x`` outside ``N``
    keeps its neighbourhood and its fill drops by the number of pairs of ``F``
    inside it, ``dropped(x)``. For ``x`` in ``N``, with ``O = N(x) - N - {v}`` (its
    neighbours outside ``N``) and new neighbours ``B = N - N(x) - {x}``,

        fill'(x) = fill(x) - |O| - dropped(x) + sum over b in B of |O - N(b)|:

    the missing pairs ``(v, o)`` disappear with ``v``, pairs inside ``N`` are
    joined, and each new neighbour ``b`` misses the vertices of ``O`` it is not
    adjacent to (edges from ``O`` are unchanged).
    """

    def __init__(self, adjacency: sp.csr_array, method: str) -> None:
        self.p: int = adjacency.shape[0]
        p = self.p
        self.sets = _neighbour_sets(adjacency)
        self.by_fill = method == "min_fill"
        self.fill: list[int] = (
            _initial_fill(adjacency).tolist() if self.by_fill else [0] * p
        )
        self.current = [self._key(v) for v in range(p)]
        self.heap = sorted(self.current)
        self.n_edges = adjacency.nnz // 2
        self.order: list[int] = []
        self.later: list[np.ndarray] = []

    def _key(self, v: int) -> int:
        # One int per heap entry compares faster than a tuple.
        p = self.p
        return (self.fill[v] * p + len(self.sets[v])) * p + v

    def run(self) -> tuple[list[int], list[np.ndarray]]:
        p, sets, current = self.p, self.sets, self.current
        remaining = p
        while remaining and self.n_edges * _DENSE_SWITCH < remaining * remaining:
            while True:
                key = heapq.heappop(self.heap)
                if current[key % p] == key:
                    break
            v = key % p
            current[v] = -1
            nbrs = sets[v]
            sets[v] = set()
            self.order.append(v)
            self.later.append(np.fromiter(nbrs, dtype=np.int64, count=len(nbrs)))
            changed = self._sparse_step(v, nbrs)
            for x in changed:
                key = self._key(x)
                if key != current[x]:
                    current[x] = key
                    heapq.heappush(self.heap, key)
            remaining -= 1
        if remaining:
            self._dense_phase()
        return self.order, self.later

    def _sparse_step(self, v: int, nbrs: set[int]) -> Iterable[int]:
        """Eliminate ``v`` from the neighbour sets; return the vertices whose key
        may have changed."""
        sets = self.sets
        added = {}
        for a in nbrs:
            new = nbrs - sets[a]
            new.discard(a)
            added[a] = new
        n_added = sum(map(len, added.values())) // 2
        self.n_edges += n_added - len(nbrs)
        changed: Iterable[int] = nbrs
        if self.by_fill and nbrs:
            changed = self._update_fill(v, nbrs, added, n_added)
        for a in nbrs:
            own = sets[a]
            own.discard(v)
            own |= added[a]
        return changed

    def _update_fill(
        self, v: int, nbrs: set[int], added: dict[int, set[int]], n_added: int
    ) -> set[int]:
        """Fill counts after eliminating ``v`` (class docstring), from the sets
        before the elimination."""
        sets, fill = self.sets, self.fill
        dropped: Counter[int] = Counter()
        if n_added:
            for a, new in added.items():
                own = sets[a]
                for b in new:
                    if a < b:
                        dropped.update(own & sets[b])
            del dropped[v]
        for x in nbrs:
            outside = sets[x] - nbrs
            outside.discard(v)
            gained = sum(len(outside - sets[b]) for b in added[x])
            fill[x] += gained - len(outside)
        for x, count in dropped.items():
            fill[x] -= count
        return nbrs | dropped.keys()

    def _dense_phase(self) -> None:
        """Eliminate the remaining vertices on a dense boolean matrix.

        Local indices follow the original order, so argmin's first-index tie
        breaking matches the heap's. Eliminating ``v`` ORs the indicator of its
        neighbourhood ``N`` into the rows of ``N``: contiguous row operations,
        several times faster than a fancy-indexed ``N x N`` block. The matrix is
        compacted to the live vertices whenever half of it is dead, so rows stay
        short and the total compaction cost is that of the first matrix.
        """
        rest = np.flatnonzero(np.array(self.current) >= 0)
        local = np.full(self.p, -1, dtype=np.int64)
        local[rest] = np.arange(rest.size)
        sizes = [len(self.sets[v]) for v in rest.tolist()]
        rows = np.repeat(np.arange(rest.size), sizes)
        cols = local[
            np.fromiter(
                (w for v in rest.tolist() for w in self.sets[v]),
                dtype=np.int64,
                count=sum(sizes),
            )
        ]
        self.sets = []  # free the sets: the matrix replaces them
        linked = np.zeros((rest.size, rest.size), dtype=bool)
        linked[rows, cols] = True
        degree = np.count_nonzero(linked, axis=1).astype(np.int64)
        fill = np.asarray(self.fill, dtype=np.int64)[rest]
        alive = np.ones(rest.size, dtype=bool)
        never = np.iinfo(np.int64).max
        for n_alive in range(rest.size, 0, -1):
            if 2 * n_alive <= alive.size:
                keep = np.flatnonzero(alive)
                linked = linked[np.ix_(keep, keep)]
                rest, degree, fill = rest[keep], degree[keep], fill[keep]
                alive = np.ones(keep.size, dtype=bool)
            if self.by_fill:
                masked = np.where(alive, fill, never)
                tied = np.flatnonzero(masked == masked.min())
                v = int(tied[np.argmin(degree[tied])])
            else:
                v = int(np.argmin(np.where(alive, degree, never)))
            nbrs = np.flatnonzero(linked[v])
            self.order.append(int(rest[v]))
            self.later.append(rest[nbrs])
            alive[v] = False
            linked[v] = False
            if nbrs.size == 0:
                continue
            block = linked[nbrs]  # (d, r) copy, before the elimination
            block[:, v] = False
            if self.by_fill:
                self._dense_fill_update(block, fill, v, nbrs)
            inside = np.zeros(alive.size, dtype=bool)
            inside[nbrs] = True
            block |= inside
            block[np.arange(nbrs.size), nbrs] = False
            linked[nbrs] = block
            degree[nbrs] = np.count_nonzero(block, axis=1)

    @staticmethod
    def _dense_fill_update(
        block: np.ndarray, fill: np.ndarray, v: int, nbrs: np.ndarray
    ) -> None:
        """The class docstring's fill update on the dense matrix, from the rows
        ``block`` of ``N = nbrs`` before the elimination (column ``v`` cleared)."""
        missing = ~block[:, nbrs]
        np.fill_diagonal(missing, False)
        first, second = np.nonzero(missing)
        upper = first < second
        first, second = first[upper], second[upper]
        inside = np.zeros(block.shape[1], dtype=bool)
        inside[nbrs] = True
        inside[v] = True
        outside = block & ~inside
        gained = np.zeros(nbrs.size, dtype=np.int64)
        dropped = np.zeros(block.shape[1], dtype=np.int64)
        step = max(1, _DENSE_CHUNK // block.shape[1])
        for start in range(0, first.size, step):
            a, b = first[start : start + step], second[start : start + step]
            dropped += np.count_nonzero(block[a] & block[b], axis=0)
            np.add.at(gained, a, np.count_nonzero(outside[a] & ~block[b], axis=1))
            np.add.at(gained, b, np.count_nonzero(outside[b] & ~block[a], axis=1))
        fill -= dropped
        fill[nbrs] += gained - np.count_nonzero(outside, axis=1)


def _neighbour_sets(adjacency: sp.csr_array) -> list[set[int]]:
    starts = adjacency.indptr.tolist()
    neighbours = adjacency.indices.tolist()
    return [set(neighbours[starts[v] : starts[v + 1]]) for v in range(len(starts) - 1)]


# Largest p for which _initial_fill may use dense float32 products (three p x p
# temporaries: 200 MB at p = 4096).
_DENSE_TRIANGLES_MAX = 4096


def _initial_fill(adjacency: sp.csr_array) -> NDArray[np.int64]:
    """Missing edges among each vertex's neighbours: C(d, 2) minus its triangles."""
    p = adjacency.shape[0]
    degree = np.diff(adjacency.indptr).astype(np.int64)
    if adjacency.nnz * _DENSE_SWITCH >= p * p and p <= _DENSE_TRIANGLES_MAX:
        # On dense graphs the sparse product costs the sum of squared degrees in
        # scalar code (10 s at p = 2000, density 0.5); a BLAS product takes 0.3 s.
        # Its entries are at most p < 2**24, so float32 is exact.
        dense = adjacency.toarray().astype(np.float32)
        paths = (dense @ dense) * dense
        triangles = paths.sum(axis=1, dtype=np.int64) // 2
    else:
        counts = adjacency.astype(np.int64)
        triangles = np.asarray(((counts @ counts) * counts).sum(axis=1)).ravel() // 2
    fill: NDArray[np.int64] = degree * (degree - 1) // 2 - triangles
    return fill
