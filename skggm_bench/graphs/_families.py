"""Random graph families: each returns a :class:`networkx.Graph` on the nodes
``0, ..., p - 1``."""

from __future__ import annotations

import numbers
from typing import Any

import networkx as nx
import numpy as np

from ..utils._validation import check_random_state

# Under its name of before the split: a study records the bytecode of a family it
# is given, names included (results/_provenance.py), and that must not change.
from ._adjacency import graph_from_pairs as _graph_from_pairs

__all__ = [
    "band_graph",
    "chain_graph",
    "cluster_graph",
    "complete_graph",
    "erdos_renyi_graph",
    "hub_graph",
    "lattice_graph",
    "random_chordal_graph",
    "random_tree_graph",
    "scale_free_graph",
    "small_world_graph",
    "star_graph",
]


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
