"""Undirected graphs: validation, random families and chordal tools.

Every function here accepts a graph in any of three forms and reads it through
:func:`check_adjacency`:

* a :class:`networkx.Graph` -- matrix index ``k`` is the node ``list(G.nodes)[k]``;
* a ``(p, p)`` array-like adjacency matrix with boolean or 0/1 entries;
* a ``scipy.sparse`` matrix or array holding such an adjacency.

Random families return a :class:`networkx.Graph` on the nodes ``0, ..., p - 1`` and
take a ``random_state`` with :func:`sklearn.utils.check_random_state` semantics.

The chordal tools use the convention of the paper (Córdoba et al.): a *perfect
ordering* lists the vertices so that the *earlier* neighbours of every vertex form a
clique. This is the reverse of a perfect elimination ordering.
"""

from __future__ import annotations

import heapq
import numbers
from typing import Any

import networkx as nx
import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

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


def check_adjacency(graph: Any) -> np.ndarray:
    """Validate a graph and return its boolean adjacency matrix.

    Parameters
    ----------
    graph : networkx.Graph, array-like of shape (p, p) or scipy.sparse matrix
        The undirected graph. For a networkx graph, row ``k`` of the result is the
        node ``list(graph.nodes)[k]``. Arrays must hold booleans or the numbers 0 and
        1, be symmetric and have a zero diagonal.

    Returns
    -------
    adjacency : ndarray of shape (p, p), dtype bool
        Symmetric, with a ``False`` diagonal. A fresh array (never a view of the
        input).

    Raises
    ------
    TypeError
        If ``graph`` is a string or an object that is neither a graph nor numeric.
    ValueError
        If the graph is directed or a multigraph, has self-loops, or the matrix is not
        2-D, not square, not symmetric, contains NaN/inf or values other than 0 and 1.

    Examples
    --------
    >>> import networkx as nx
    >>> from skggm_bench.graphs import check_adjacency
    >>> check_adjacency(nx.path_graph(3)).astype(int)
    array([[0, 1, 0],
           [1, 0, 1],
           [0, 1, 0]])
    >>> check_adjacency([[0, 1], [0, 0]])
    Traceback (most recent call last):
    ...
    ValueError: adjacency matrix is not symmetric: entry (0, 1) is 1 but (1, 0) is 0
    """
    if isinstance(graph, nx.Graph):
        return _adjacency_from_networkx(graph)
    if isinstance(graph, (str, bytes)) or graph is None:
        raise TypeError(
            "graph must be a networkx.Graph, a (p, p) adjacency array or a "
            f"scipy.sparse matrix, got {type(graph).__name__}"
        )
    if sp.issparse(graph):
        matrix = graph.toarray()
    else:
        try:
            matrix = np.asarray(graph)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"graph of type {type(graph).__name__} cannot be read as an adjacency "
                "matrix"
            ) from exc
    return _adjacency_from_matrix(matrix)


def _adjacency_from_networkx(graph: nx.Graph) -> np.ndarray:
    if graph.is_directed():
        raise ValueError(
            "graph is directed; covariance and concentration graphs are undirected "
            "(use graph.to_undirected() if that is what you mean)"
        )
    if graph.is_multigraph():
        raise ValueError("graph is a multigraph; parallel edges are not allowed")
    loops = list(nx.selfloop_edges(graph))
    if loops:
        raise ValueError(f"graph has self-loops, e.g. at node {loops[0][0]!r}")
    index = {node: k for k, node in enumerate(graph.nodes)}
    adjacency = np.zeros((len(index), len(index)), dtype=bool)
    if graph.number_of_edges():
        rows, cols = np.array([(index[u], index[v]) for u, v in graph.edges]).T
        adjacency[rows, cols] = True
        adjacency[cols, rows] = True
    return adjacency


def _adjacency_from_matrix(matrix: np.ndarray) -> np.ndarray:
    if matrix.dtype == object or not (
        matrix.dtype == bool or np.issubdtype(matrix.dtype, np.number)
    ):
        raise TypeError(
            f"adjacency matrix must be boolean or numeric, got dtype {matrix.dtype}"
        )
    if matrix.ndim != 2:
        raise ValueError(f"adjacency matrix must be 2-D, got {matrix.ndim} dimensions")
    if matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"adjacency matrix must be square, got shape {matrix.shape}")
    if np.iscomplexobj(matrix):
        raise ValueError("adjacency matrix must be real, got complex values")
    if matrix.dtype != bool:
        if not np.all(np.isfinite(matrix)):
            raise ValueError("adjacency matrix contains NaN or infinite values")
        bad = (matrix != 0) & (matrix != 1)
        if bad.any():
            i, j = np.argwhere(bad)[0]
            raise ValueError(
                "adjacency matrix must hold only 0/1 or booleans, got "
                f"{matrix[i, j]!r} at ({i}, {j})"
            )
    adjacency = np.array(matrix != 0, dtype=bool)
    diagonal = np.flatnonzero(np.diag(adjacency))
    if diagonal.size:
        raise ValueError(
            "adjacency matrix has a non-zero diagonal (self-loop) at node "
            f"{diagonal[0]}"
        )
    asymmetric = adjacency != adjacency.T
    if asymmetric.any():
        i, j = np.argwhere(asymmetric)[0]
        raise ValueError(
            f"adjacency matrix is not symmetric: entry ({i}, {j}) is "
            f"{int(adjacency[i, j])} but ({j}, {i}) is {int(adjacency[j, i])}"
        )
    return adjacency


def _neighbour_lists(adjacency: np.ndarray) -> list[np.ndarray]:
    indptr_matrix = sp.csr_matrix(adjacency)
    return [
        indptr_matrix.indices[indptr_matrix.indptr[k] : indptr_matrix.indptr[k + 1]]
        for k in range(adjacency.shape[0])
    ]


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
    if not 0.0 <= value <= 1.0:
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
    rows, cols = np.triu_indices(p, 1)
    return _graph_from_pairs(p, rows[selected], cols[selected])


def chain_graph(n_nodes: int) -> nx.Graph:
    """Path graph ``0 - 1 - ... - (p - 1)``.

    Examples
    --------
    >>> from skggm_bench.graphs import chain_graph
    >>> sorted(chain_graph(3).edges)
    [(0, 1), (1, 2)]
    """
    return nx.path_graph(_check_size(n_nodes, "n_nodes"))


def band_graph(n_nodes: int, bandwidth: int = 1) -> nx.Graph:
    """Band graph: ``i`` and ``j`` are adjacent when ``0 < |i - j| <= bandwidth``.

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

    Each node starts joined to its ``n_neighbours`` nearest neighbours on a ring;
    each edge is then rewired with probability ``rewire_probability``.

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
# --------------------------------------------------------------------------------------


def _maximum_cardinality_search(neighbours: list[np.ndarray]) -> np.ndarray:
    """Visit order of maximum cardinality search (Tarjan & Yannakakis, 1984).

    Each step visits an unvisited vertex with the most visited neighbours. On a
    chordal graph the visit order is perfect: earlier neighbours form a clique.
    Buckets keyed by the count make this O(p + |E|).
    """
    p = len(neighbours)
    count = np.zeros(p, dtype=np.int64)
    visited = np.zeros(p, dtype=bool)
    heap = [(0, v) for v in range(p)]
    order = np.empty(p, dtype=np.int64)
    for step in range(p):
        while True:
            negative_count, v = heapq.heappop(heap)
            if not visited[v] and -negative_count == count[v]:
                break
        visited[v] = True
        order[step] = v
        for w in neighbours[v]:
            if not visited[w]:
                count[w] += 1
                heapq.heappush(heap, (-int(count[w]), int(w)))
    return order


def _first_violation(neighbours: list[np.ndarray], order: np.ndarray) -> tuple | None:
    """Return ``(v, a, b)`` with ``a, b`` non-adjacent earlier neighbours of ``v``.

    Uses the classical test: ``order`` is perfect iff, for every ``v``, the earlier
    neighbours of ``v`` other than the latest one, ``u``, are earlier neighbours of
    ``u``. Returns None when the ordering is perfect.
    """
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    earlier = [
        set(w for w in neighbours[v] if position[w] < position[v])
        for v in range(len(order))
    ]
    for v in order:
        if len(earlier[v]) < 2:
            continue
        u = max(earlier[v], key=position.__getitem__)
        missing = earlier[v] - earlier[u] - {u}
        if missing:
            return int(v), int(u), int(next(iter(missing)))
    return None


def is_chordal(graph: Any) -> bool:
    """Whether every cycle of length at least 4 has a chord.

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
    neighbours = _neighbour_lists(check_adjacency(graph))
    return _first_violation(neighbours, _maximum_cardinality_search(neighbours)) is None


def perfect_ordering(graph: Any) -> np.ndarray:
    """A perfect ordering of a chordal graph.

    In a perfect ordering the earlier neighbours of every vertex form a clique
    (the reverse of a perfect elimination ordering). Along such an ordering the
    upper Cholesky factor ``U`` of a matrix ``M = U U^T`` in the graph's cone has
    no fill-in, which is what the uniform sampler needs.

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
        If the graph is not chordal; the message names a chordless cycle's vertices.

    Examples
    --------
    >>> import networkx as nx
    >>> from skggm_bench.graphs import perfect_ordering
    >>> order = perfect_ordering(nx.path_graph(4))
    >>> sorted(order.tolist())
    [0, 1, 2, 3]
    >>> perfect_ordering(nx.cycle_graph(4))
    Traceback (most recent call last):
    ...
    ValueError: graph is not chordal: ...
    """
    neighbours = _neighbour_lists(check_adjacency(graph))
    order = _maximum_cardinality_search(neighbours)
    violation = _first_violation(neighbours, order)
    if violation is not None:
        v, a, b = violation
        raise ValueError(
            f"graph is not chordal: matrix indices {a} and {b} are both adjacent to "
            f"{v} but not to each other, and lie on a chordless cycle; triangulate it "
            "first (skggm_bench.graphs.triangulate)"
        )
    return order


def triangulate(
    graph: Any, method: str = "min_degree"
) -> tuple[np.ndarray, np.ndarray]:
    """Chordal supergraph by greedy vertex elimination, and a perfect ordering of it.

    Vertices are eliminated one at a time; the neighbours of an eliminated vertex
    are joined into a clique (the *fill-in*). The elimination order is a perfect
    elimination ordering of the filled graph, so its reverse is a perfect ordering.

    Parameters
    ----------
    graph : networkx.Graph, array-like or scipy.sparse matrix
        See :func:`check_adjacency`.
    method : {"min_degree", "min_fill"}, default="min_degree"
        Which vertex to eliminate next: the one of smallest current degree, or the
        one whose elimination adds the fewest edges (usually less fill-in, slower).
        Ties go to the lowest index, so the result is deterministic.

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
    if method not in ("min_degree", "min_fill"):
        raise ValueError(f"method must be 'min_degree' or 'min_fill', got {method!r}")
    adjacency = check_adjacency(graph)
    filled = adjacency.copy()
    working = adjacency.copy()
    p = adjacency.shape[0]
    alive = np.ones(p, dtype=bool)
    degree = working.sum(axis=1).astype(np.int64)
    fill = _fill_counts(working, np.arange(p), degree) if method == "min_fill" else None
    elimination = np.empty(p, dtype=np.int64)
    for step in range(p):
        key = degree if fill is None else fill * (p + 1) + degree
        v = int(np.argmin(np.where(alive, key, np.iinfo(np.int64).max)))
        elimination[step] = v
        nbrs = np.flatnonzero(working[v])
        block = working[np.ix_(nbrs, nbrs)]
        added = ~block
        np.fill_diagonal(added, False)
        if added.any():
            new_rows, new_cols = nbrs[np.nonzero(added)[0]], nbrs[np.nonzero(added)[1]]
            working[new_rows, new_cols] = True
            filled[new_rows, new_cols] = True
            degree[nbrs] += added.sum(axis=1)
        working[v, nbrs] = False
        working[nbrs, v] = False
        degree[nbrs] -= 1
        alive[v] = False
        degree[v] = 0
        if fill is not None and nbrs.size:
            # Only vertices adjacent to two endpoints of a changed pair can see their
            # fill count change: the neighbours themselves and their common
            # neighbours.
            touched = np.flatnonzero(working[:, nbrs].sum(axis=1) >= 2)
            touched = np.union1d(touched, nbrs)
            fill[touched] = _fill_counts(working, touched, degree)
    return filled, elimination[::-1].copy()


def _fill_counts(
    working: np.ndarray, vertices: np.ndarray, degree: np.ndarray
) -> np.ndarray:
    """Number of missing edges among the current neighbours of each vertex."""
    counts = np.empty(vertices.size, dtype=np.int64)
    for k, v in enumerate(vertices):
        nbrs = np.flatnonzero(working[v])
        present = int(working[np.ix_(nbrs, nbrs)].sum()) // 2
        counts[k] = degree[v] * (degree[v] - 1) // 2 - present
    return counts
