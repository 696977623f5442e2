"""Shared test data: small graphs of every kind, in every accepted input form, and
the contract of a generator's draws (used by tests/generators/ and tests/datasets/).

The fixtures of one folder live in its own conftest.py (tests/generators/,
tests/benchmark/, tests/learners/)."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

# No __init__.py under tests/ (tests/README.md says why), so every conftest.py is the
# module "conftest": --doctest-modules, importing one while another holds that name,
# would stop the run. They hold no docstring examples; pytest still loads them as
# conftests.
collect_ignore_glob = ["conftest.py", "*/conftest.py"]


@pytest.fixture(autouse=True)
def _terminal_width(monkeypatch):
    """Every test sees a terminal 100 columns wide, however it is run.

    The command line prints its tables at most 100 characters wide, and narrower on
    a narrower terminal (``COLUMNS``); pytest-xdist sets ``COLUMNS=80`` in its
    workers, which would wrap the headers and cells the tests look for.
    """
    monkeypatch.setenv("COLUMNS", "100")


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


def assert_valid_draws(
    draws: np.ndarray, adjacency: np.ndarray, unit_diagonal: bool = True
) -> None:
    """The generator contract on a stack of draws.

    Finite float64, exactly symmetric, positive definite, exact zeros (not 1e-17,
    and not -0.0 either) off the graph, non-zero edges (with probability one), and a
    unit diagonal when promised (a positive one otherwise).
    """
    p = adjacency.shape[0]
    assert draws.dtype == np.float64
    assert draws.shape[1:] == (p, p)
    assert np.all(np.isfinite(draws))
    np.testing.assert_array_equal(draws, np.swapaxes(draws, 1, 2))
    diagonal = np.diagonal(draws, axis1=1, axis2=2)
    if unit_diagonal:
        np.testing.assert_array_equal(diagonal, 1.0)
    else:
        assert np.all(diagonal > 0)
    off_graph = ~adjacency & ~np.eye(p, dtype=bool)
    assert np.all(draws[:, off_graph] == 0.0)
    assert not np.any(np.signbit(draws[:, off_graph]))
    assert np.all(np.linalg.eigvalsh(draws)[:, 0] > 0)
    assert np.all(draws[:, adjacency] != 0.0)
