"""Shared fixtures: small graphs of every kind, in every accepted input form."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp


def _diamond() -> nx.Graph:
    """K4 minus one edge: chordal, 4 nodes, 5 edges."""
    graph = nx.complete_graph(4)
    graph.remove_edge(0, 3)
    return graph


GRAPHS = {
    "single_node": nx.empty_graph(1),
    "empty": nx.empty_graph(5),
    "complete": nx.complete_graph(6),
    "chain": nx.path_graph(7),
    "diamond": _diamond(),
    "chordal_random": nx.Graph(
        [(0, 1), (1, 2), (0, 2), (2, 3), (3, 4), (2, 4), (4, 5), (5, 6), (4, 6), (1, 7)]
    ),
    "cycle5": nx.cycle_graph(5),
    "grid3x3": nx.convert_node_labels_to_integers(nx.grid_2d_graph(3, 3)),
    "erdos_renyi": nx.gnp_random_graph(15, 0.3, seed=3),
}
CHORDAL = {name for name, g in GRAPHS.items() if nx.is_chordal(g)}


def as_form(graph: nx.Graph, form: str):
    """The same graph as networkx, dense 0/1 ndarray, or scipy.sparse matrix."""
    if form == "networkx":
        return graph
    dense = nx.to_numpy_array(graph, nodelist=list(graph.nodes), dtype=int)
    return dense if form == "ndarray" else sp.csr_matrix(dense)


@pytest.fixture(params=sorted(GRAPHS))
def graph_name(request) -> str:
    return request.param


@pytest.fixture
def rng() -> np.random.RandomState:
    return np.random.RandomState(0)
