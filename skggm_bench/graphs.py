"""Undirected graphs: validation, random families and chordal tools.

Every function here accepts a graph in any of three forms, validated as in
:func:`check_adjacency`:

* a :class:`networkx.Graph` -- matrix index ``k`` is the node ``list(G.nodes)[k]``;
* a ``(p, p)`` array-like adjacency matrix with boolean or 0/1 entries;
* a ``scipy.sparse`` matrix or array holding such an adjacency.

:func:`check_adjacency` returns a dense boolean matrix. The chordal tools read
networkx and sparse input into sparse neighbour lists instead, so their memory is
proportional to the number of edges (plus the fill-in for :func:`triangulate`,
whose returned matrix alone is dense).

Random families return a :class:`networkx.Graph` on the nodes ``0, ..., p - 1`` and
take a ``random_state`` with :func:`sklearn.utils.check_random_state` semantics.

The chordal tools use the convention of the paper (Córdoba et al.): a *perfect
ordering* lists the vertices so that the *earlier* neighbours of every vertex form a
clique. This is the reverse of a perfect elimination ordering.
"""

from __future__ import annotations

import heapq
import numbers
from collections import Counter
from collections.abc import Iterable
from typing import Any, Literal, overload

import networkx as nx
import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from scipy.sparse.csgraph import breadth_first_order, connected_components

from .utils._validation import check_not_masked, check_random_state

__all__ = [
    "band_graph",
    "chain_graph",
    "check_adjacency",
    "cluster_graph",
    "complete_graph",
    "erdos_renyi_graph",
    "hub_graph",
    "is_chordal",
    "lattice_graph",
    "perfect_ordering",
    "random_chordal_graph",
    "random_tree_graph",
    "scale_free_graph",
    "small_world_graph",
    "star_graph",
    "triangulate",
]


# --------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------


# The result's type follows ``sparse``, so that callers need no isinstance check.
@overload
def check_adjacency(
    graph: Any, *, name: str = ..., sparse: Literal[False] = ...
) -> NDArray[np.bool_]: ...
@overload
def check_adjacency(
    graph: Any, *, name: str = ..., sparse: Literal[True]
) -> sp.csr_array: ...
@overload
def check_adjacency(
    graph: Any, *, name: str = ..., sparse: bool
) -> NDArray[np.bool_] | sp.csr_array: ...
def check_adjacency(
    graph: Any, *, name: str = "adjacency matrix", sparse: bool = False
) -> NDArray[np.bool_] | sp.csr_array:
    """Validate a graph and return its boolean adjacency matrix.

    This is the one validator of graphs in skggm-bench: generators, the data
    pipeline and the metrics all read graphs through it.

    Parameters
    ----------
    graph : networkx.Graph, array-like of shape (p, p) or scipy.sparse matrix
        The undirected graph. For a networkx graph, row ``k`` of the result is the
        node ``list(graph.nodes)[k]``. Arrays must hold booleans or the numbers 0 and
        1 off the diagonal and be symmetric. Explicitly stored zeros of a sparse
        matrix are not edges.
    name : str, default="adjacency matrix"
        What to call the graph in error messages (e.g. ``"true_adjacency"``).
    sparse : bool, default=False
        Return a ``scipy.sparse.csr_array`` instead of a dense array. Networkx
        graphs and sparse matrices are then read without ever building a dense
        ``(p, p)`` array: time and memory are proportional to ``p + |E|``.

    Returns
    -------
    adjacency : ndarray of shape (p, p) or scipy.sparse.csr_array, dtype bool
        Symmetric, with a ``False`` diagonal. A fresh array (never a view of the
        input); a sparse result is canonical (sorted indices, no duplicates, no
        stored zeros).

    Raises
    ------
    TypeError
        If ``graph`` is a string, an object that is neither a graph nor numeric,
        or a numpy masked array (its mask would be ignored).
    ValueError
        If the graph is directed or a multigraph, or the matrix is not 2-D, not
        square, not symmetric, contains NaN/inf or values other than 0 and 1 off the
        diagonal.

    Notes
    -----
    The diagonal is ignored, whatever it holds, and so are the self-loops of a
    networkx graph: in a Gaussian graphical model every variable depends on itself
    and the diagonal of a covariance or precision matrix is never zero, so a
    self-loop carries no information. The support of a precision matrix,
    ``precision != 0``, is therefore a valid graph as it is.

    See Also
    --------
    is_chordal, perfect_ordering, triangulate : Read sparse and networkx input
        without building a dense matrix.

    Examples
    --------
    >>> import networkx as nx
    >>> import numpy as np
    >>> from skggm_bench.graphs import check_adjacency
    >>> check_adjacency(nx.path_graph(3)).astype(int)
    array([[0, 1, 0],
           [1, 0, 1],
           [0, 1, 0]])
    >>> check_adjacency(np.array([[2.0, -0.5], [-0.5, 1.0]]) != 0).astype(int)
    array([[0, 1],
           [1, 0]])
    >>> check_adjacency([[0, 1], [0, 0]], name="true_adjacency")
    Traceback (most recent call last):
    ...
    ValueError: true_adjacency is not symmetric: entry (0, 1) is 1 but (1, 0) is 0
    """
    check_not_masked(graph, name)
    if isinstance(graph, nx.Graph):
        adjacency = _sparse_from_networkx(graph)
    elif sp.issparse(graph):
        adjacency = _sparse_from_sparse(graph, name)
    else:
        dense = _adjacency_from_matrix(_as_matrix(graph, name), name)
        return sp.csr_array(dense) if sparse else dense
    return adjacency if sparse else adjacency.toarray()


def _as_matrix(graph: Any, name: str) -> np.ndarray:
    if isinstance(graph, (str, bytes)) or graph is None:
        raise TypeError(
            f"{name} must be a networkx.Graph, a (p, p) adjacency array or a "
            f"scipy.sparse matrix, got {type(graph).__name__}"
        )
    try:
        return np.asarray(graph)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"{name} of type {type(graph).__name__} cannot be read as an adjacency "
            "matrix"
        ) from exc


def _check_matrix_type(
    dtype: np.dtype[Any], ndim: int, shape: tuple[int, ...], name: str
) -> None:
    """Checks shared by dense and sparse matrices, in the order users hit them."""
    # kinds: b(ool), i(nt), u(nsigned), f(loat), c(omplex); not object/str/time.
    if dtype.kind not in "biufc":
        raise TypeError(f"{name} must be boolean or numeric, got dtype {dtype}")
    if ndim != 2:
        raise ValueError(f"{name} must be 2-D, got {ndim} dimensions")
    if shape[0] != shape[1]:
        raise ValueError(f"{name} must be square, got shape {shape}")
    if np.issubdtype(dtype, np.complexfloating):
        raise ValueError(f"{name} must be real, got complex values")


def _check_values(
    values: np.ndarray, rows: np.ndarray, cols: np.ndarray, name: str
) -> None:
    """Reject NaN/inf and values other than 0/1; the first offender is row-major."""
    if values.dtype == bool:
        return
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{name} contains NaN or infinite values off the diagonal")
    bad = np.flatnonzero((values != 0) & (values != 1))
    if bad.size:
        k = bad[0]
        raise ValueError(
            f"{name} must hold only 0/1 or booleans off the diagonal, got "
            f"{values[k].item()!r} at ({rows[k]}, {cols[k]}); threshold edge "
            "weights first, or use the edge-score metrics for continuous scores"
        )


def _adjacency_from_matrix(matrix: np.ndarray, name: str) -> np.ndarray:
    _check_matrix_type(matrix.dtype, matrix.ndim, matrix.shape, name)
    off_diagonal = ~np.eye(matrix.shape[0], dtype=bool)
    if matrix.dtype != bool:
        bad = (~np.isfinite(matrix) | ((matrix != 0) & (matrix != 1))) & off_diagonal
        if bad.any():
            rows, cols = np.nonzero(bad)
            _check_values(matrix[rows, cols], rows, cols, name)
    adjacency = np.array(matrix != 0, dtype=bool) & off_diagonal
    asymmetric = adjacency != adjacency.T
    if asymmetric.any():
        i, j = np.argwhere(asymmetric)[0]
        raise ValueError(
            f"{name} is not symmetric: entry ({i}, {j}) is "
            f"{int(adjacency[i, j])} but ({j}, {i}) is {int(adjacency[j, i])}"
        )
    return adjacency


def _sparse_from_sparse(matrix: Any, name: str) -> sp.csr_array:
    _check_matrix_type(matrix.dtype, matrix.ndim, matrix.shape, name)
    p = matrix.shape[0]
    # A fresh canonical CSR copy: duplicates of a COO input are summed (as
    # ``toarray`` would), indices sorted so that entry order is row-major.
    csr = sp.csr_array(matrix, copy=True)
    csr.sum_duplicates()
    rows = np.repeat(np.arange(p, dtype=np.int64), np.diff(csr.indptr))
    cols = csr.indices.astype(np.int64)
    off_diagonal = rows != cols
    rows, cols, values = rows[off_diagonal], cols[off_diagonal], csr.data[off_diagonal]
    _check_values(values, rows, cols, name)
    stored = values != 0
    rows, cols = rows[stored], cols[stored]
    # Row-major keys are sorted; the matrix is symmetric iff the transposed keys are
    # the same set. The first asymmetric pair in row-major order matches the dense
    # check's message.
    keys = rows * p + cols
    transposed = np.sort(cols * p + rows)
    if not np.array_equal(keys, transposed):
        first = int(np.setxor1d(keys, transposed, assume_unique=True)[0])
        i, j = divmod(first, p)
        present = bool(np.isin(first, keys))
        raise ValueError(
            f"{name} is not symmetric: entry ({i}, {j}) is "
            f"{int(present)} but ({j}, {i}) is {int(not present)}"
        )
    return _csr_from_pairs(p, rows, cols)


def _sparse_from_networkx(graph: nx.Graph) -> sp.csr_array:
    if graph.is_directed():
        raise ValueError(
            "graph is directed; covariance and concentration graphs are undirected "
            "(use graph.to_undirected() if that is what you mean)"
        )
    if graph.is_multigraph():
        raise ValueError("graph is a multigraph; parallel edges are not allowed")
    index = {node: k for k, node in enumerate(graph.nodes)}
    n_edges = graph.number_of_edges()
    ends = np.fromiter(
        (index[node] for edge in graph.edges for node in edge),
        dtype=np.int64,
        count=2 * n_edges,
    )
    rows, cols = ends[0::2], ends[1::2]
    proper = rows != cols  # self-loops are ignored, as the diagonal of a matrix
    rows, cols = rows[proper], cols[proper]
    return _csr_from_pairs(
        len(index), np.concatenate([rows, cols]), np.concatenate([cols, rows])
    )


def _csr_from_pairs(p: int, rows: np.ndarray, cols: np.ndarray) -> sp.csr_array:
    """Canonical boolean CSR matrix with ``True`` at ``(rows[k], cols[k])``."""
    matrix = sp.csr_array(
        (np.ones(rows.size, dtype=bool), (rows, cols)), shape=(p, p), dtype=bool
    )
    matrix.sum_duplicates()
    return matrix


def _graph_from_pairs(n_nodes: int, rows: np.ndarray, cols: np.ndarray) -> nx.Graph:
    """Graph on nodes 0..n_nodes-1 with the edges (rows[k], cols[k])."""
    graph = nx.empty_graph(n_nodes)
    graph.add_edges_from(zip(rows.tolist(), cols.tolist(), strict=True))
    return graph


# --------------------------------------------------------------------------------------
# Argument checks shared by the families
# --------------------------------------------------------------------------------------


def _check_size(value: Any, name: str, minimum: int = 1) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def _check_probability(value: Any, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number in [0, 1], got {value!r}")
    # numbers.Real declares < and <= only; NaN fails the second test.
    if value < 0.0 or not value <= 1.0:
        raise ValueError(f"{name} must be in [0, 1], got {value}")
    return float(value)


# --------------------------------------------------------------------------------------
# Random graph families
# --------------------------------------------------------------------------------------


def erdos_renyi_graph(
    n_nodes: int,
    density: float | None = None,
    *,
    n_edges: int | None = None,
    random_state: int | np.random.RandomState | None = None,
) -> nx.Graph:
    """Erdős–Rényi random graph.

    Parameters
    ----------
    n_nodes : int
        Number of nodes ``p >= 1``.
    density : float in [0, 1], optional
        Each of the ``p (p - 1) / 2`` possible edges is present independently with
        this probability, so ``density`` is the expected fraction of edges
        (the G(p, q) model).
    n_edges : int, optional
        Instead of ``density``: exactly this many edges, drawn uniformly among all
        graphs with ``n_edges`` edges (the G(p, m) model). Give exactly one of
        ``density`` and ``n_edges``.
    random_state : int, RandomState instance or None
        Seed or generator, as in scikit-learn.

    Returns
    -------
    graph : networkx.Graph
        On the nodes ``0, ..., n_nodes - 1``.

    Examples
    --------
    >>> from skggm_bench.graphs import erdos_renyi_graph
    >>> erdos_renyi_graph(10, n_edges=7, random_state=0).number_of_edges()
    7
    """
    p = _check_size(n_nodes, "n_nodes")
    if (density is None) == (n_edges is None):
        raise ValueError("give exactly one of density and n_edges")
    rng = check_random_state(random_state)
    n_pairs = p * (p - 1) // 2
    if density is not None:
        density = _check_probability(density, "density")
        selected = np.flatnonzero(rng.random_sample(n_pairs) < density)
    else:
        n_edges = _check_size(n_edges, "n_edges", minimum=0)
        if n_edges > n_pairs:
            raise ValueError(
                f"n_edges={n_edges} is impossible for {p} nodes (at most {n_pairs})"
            )
        selected = np.sort(rng.choice(n_pairs, size=n_edges, replace=False))
    return _graph_from_pairs(p, *_upper_pairs(p, selected))


def _upper_pairs(p: int, flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.triu_indices(p, 1)`` at the positions ``flat``, in O(p + len(flat))
    memory instead of O(p ** 2)."""
    rows_before = np.arange(p, dtype=np.int64)
    # Pairs (i, j), i < j, in rows before row i: i * (2p - i - 1) / 2.
    starts = rows_before * (2 * p - rows_before - 1) // 2
    rows = np.searchsorted(starts, flat, side="right") - 1
    return rows, flat - starts[rows] + rows + 1


def chain_graph(n_nodes: int) -> nx.Graph:
    """Chain (path) graph: node ``k`` is adjacent to node ``k + 1``.

    Examples
    --------
    >>> from skggm_bench.graphs import chain_graph
    >>> sorted(chain_graph(3).edges)
    [(0, 1), (1, 2)]
    """
    return nx.path_graph(_check_size(n_nodes, "n_nodes"))


def band_graph(n_nodes: int, bandwidth: int = 1) -> nx.Graph:
    """Band graph: ``i`` and ``j`` are adjacent when ``0 < abs(i - j) <= bandwidth``.

    Band graphs are chordal (the natural order is perfect), which makes them the
    standard large sparse test case.

    Examples
    --------
    >>> from skggm_bench.graphs import band_graph
    >>> band_graph(5, bandwidth=2).number_of_edges()
    7
    """
    p = _check_size(n_nodes, "n_nodes")
    bandwidth = _check_size(bandwidth, "bandwidth", minimum=0)
    graph = nx.empty_graph(p)
    for offset in range(1, min(bandwidth, p - 1) + 1):
        graph.add_edges_from((i, i + offset) for i in range(p - offset))
    return graph


def star_graph(n_nodes: int) -> nx.Graph:
    """Star graph: node 0 is adjacent to every other node.

    Examples
    --------
    >>> from skggm_bench.graphs import star_graph
    >>> star_graph(4).degree[0]
    3
    """
    p = _check_size(n_nodes, "n_nodes")
    graph = nx.empty_graph(p)
    graph.add_edges_from((0, k) for k in range(1, p))
    return graph


def complete_graph(n_nodes: int) -> nx.Graph:
    """Complete graph on ``n_nodes`` nodes.

    Examples
    --------
    >>> from skggm_bench.graphs import complete_graph
    >>> complete_graph(4).number_of_edges()
    6
    """
    return nx.complete_graph(_check_size(n_nodes, "n_nodes"))


def hub_graph(
    n_nodes: int,
    n_hubs: int = 1,
    *,
    random_state: int | np.random.RandomState | None = None,
) -> nx.Graph:
    """Hub graph: nodes split into ``n_hubs`` groups, each a star around one hub.

    This is the ``hub`` structure of the R package ``huge``: group membership is
    random, sizes as equal as possible.

    Examples
    --------
    >>> from skggm_bench.graphs import hub_graph
    >>> hub_graph(10, n_hubs=2, random_state=0).number_of_edges()
    8
    """
    p = _check_size(n_nodes, "n_nodes")
    n_hubs = _check_size(n_hubs, "n_hubs")
    if n_hubs > p:
        raise ValueError(f"n_hubs={n_hubs} is larger than n_nodes={p}")
    rng = check_random_state(random_state)
    groups = np.array_split(rng.permutation(p), n_hubs)
    graph = nx.empty_graph(p)
    for group in groups:
        hub, *members = group.tolist()
        graph.add_edges_from((hub, member) for member in members)
    return graph


def cluster_graph(
    n_nodes: int,
    n_clusters: int = 2,
    *,
    within_density: float = 0.3,
    between_density: float = 0.0,
    random_state: int | np.random.RandomState | None = None,
) -> nx.Graph:
    """Block (stochastic block model) graph with contiguous clusters.

    Nodes are split into ``n_clusters`` contiguous blocks of nearly equal size; a
    pair inside a block is an edge with probability ``within_density``, a pair
    across blocks with probability ``between_density``.

    Examples
    --------
    >>> from skggm_bench.graphs import cluster_graph
    >>> g = cluster_graph(6, 2, within_density=1.0, between_density=0.0)
    >>> g.number_of_edges()
    6
    """
    p = _check_size(n_nodes, "n_nodes")
    n_clusters = _check_size(n_clusters, "n_clusters")
    if n_clusters > p:
        raise ValueError(f"n_clusters={n_clusters} is larger than n_nodes={p}")
    within = _check_probability(within_density, "within_density")
    between = _check_probability(between_density, "between_density")
    rng = check_random_state(random_state)
    labels = np.repeat(
        np.arange(n_clusters),
        [len(b) for b in np.array_split(np.arange(p), n_clusters)],
    )
    rows, cols = np.triu_indices(p, 1)
    probability = np.where(labels[rows] == labels[cols], within, between)
    selected = rng.random_sample(rows.size) < probability
    return _graph_from_pairs(p, rows[selected], cols[selected])


def lattice_graph(n_rows: int, n_cols: int | None = None) -> nx.Graph:
    """Two-dimensional grid graph, nodes numbered row by row.

    Parameters
    ----------
    n_rows, n_cols : int
        Grid shape; ``n_cols`` defaults to ``n_rows``.

    Examples
    --------
    >>> from skggm_bench.graphs import lattice_graph
    >>> lattice_graph(3).number_of_edges()
    12
    """
    n_rows = _check_size(n_rows, "n_rows")
    n_cols = n_rows if n_cols is None else _check_size(n_cols, "n_cols")
    grid = nx.grid_2d_graph(n_rows, n_cols)
    return nx.convert_node_labels_to_integers(grid, ordering="sorted")


def scale_free_graph(
    n_nodes: int,
    n_edges_per_node: int = 1,
    *,
    random_state: int | np.random.RandomState | None = None,
) -> nx.Graph:
    """Barabási–Albert preferential-attachment graph (a tree when m = 1).

    Examples
    --------
    >>> from skggm_bench.graphs import scale_free_graph
    >>> scale_free_graph(10, random_state=0).number_of_edges()
    9
    """
    p = _check_size(n_nodes, "n_nodes")
    m = _check_size(n_edges_per_node, "n_edges_per_node")
    if m >= p and p > 1:
        raise ValueError(f"n_edges_per_node={m} must be smaller than n_nodes={p}")
    if p == 1:
        return nx.empty_graph(1)
    return nx.barabasi_albert_graph(p, m, seed=check_random_state(random_state))


def small_world_graph(
    n_nodes: int,
    n_neighbours: int = 4,
    rewire_probability: float = 0.1,
    *,
    random_state: int | np.random.RandomState | None = None,
) -> nx.Graph:
    """Watts–Strogatz small-world graph.

    Each node starts joined to its ``n_neighbours`` nearest neighbours on a ring
    (``n_neighbours / 2`` on each side, so it must be even); each edge is then
    rewired with probability ``rewire_probability``, which keeps the number of
    edges at ``n_nodes * n_neighbours / 2``.

    Examples
    --------
    >>> from skggm_bench.graphs import small_world_graph
    >>> small_world_graph(10, 4, 0.0).number_of_edges()
    20
    """
    p = _check_size(n_nodes, "n_nodes")
    k = _check_size(n_neighbours, "n_neighbours", minimum=0)
    if k >= p:
        raise ValueError(f"n_neighbours={k} must be smaller than n_nodes={p}")
    if k % 2:
        # networkx would silently join k - 1 neighbours (k // 2 on each side).
        raise ValueError(
            f"n_neighbours must be even (n_neighbours / 2 on each side of the "
            f"ring), got {k}"
        )
    beta = _check_probability(rewire_probability, "rewire_probability")
    return nx.watts_strogatz_graph(p, k, beta, seed=check_random_state(random_state))


def random_tree_graph(
    n_nodes: int, *, random_state: int | np.random.RandomState | None = None
) -> nx.Graph:
    """Uniformly random labelled tree (via a random Prüfer sequence).

    Examples
    --------
    >>> from skggm_bench.graphs import random_tree_graph
    >>> random_tree_graph(8, random_state=0).number_of_edges()
    7
    """
    p = _check_size(n_nodes, "n_nodes")
    if p <= 2:
        return nx.path_graph(p)
    rng = check_random_state(random_state)
    sequence = rng.randint(0, p, size=p - 2).tolist()
    return nx.from_prufer_sequence(sequence)


def random_chordal_graph(
    n_nodes: int,
    density: float = 0.5,
    *,
    random_state: int | np.random.RandomState | None = None,
) -> nx.Graph:
    """Random connected chordal graph.

    Vertices are added one at a time. Vertex ``v`` picks a random earlier vertex
    ``u`` and joins ``u`` plus each of ``u``'s earlier neighbours with probability
    ``density``. Those earlier neighbours form a clique by induction, so ``v``'s
    earlier neighbours form a clique too: the insertion order is a perfect
    ordering and the graph is chordal. Labels are then shuffled.

    Examples
    --------
    >>> import networkx as nx
    >>> from skggm_bench.graphs import random_chordal_graph
    >>> nx.is_chordal(random_chordal_graph(30, 0.5, random_state=0))
    True
    """
    p = _check_size(n_nodes, "n_nodes")
    density = _check_probability(density, "density")
    rng = check_random_state(random_state)
    earlier: list[list[int]] = [[]]
    for v in range(1, p):
        u = int(rng.randint(v))
        keep = rng.random_sample(len(earlier[u])) < density
        earlier.append([u, *np.asarray(earlier[u])[keep].tolist()])
    labels = rng.permutation(p)
    graph = nx.empty_graph(p)
    graph.add_edges_from(
        (int(labels[v]), int(labels[u])) for v in range(p) for u in earlier[v]
    )
    return graph


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
