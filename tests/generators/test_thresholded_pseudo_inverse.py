"""ThresholdedPseudoInverse: GGLasso's recipe, checked against a direct computation."""

import networkx as nx
import numpy as np
import pytest

from skggm_bench.generators import ThresholdedPseudoInverse
from skggm_bench.graphs import check_adjacency, scale_free_graph
from tests.conftest import GRAPHS


def reference(weights, adjacency, perturbation, threshold):
    """The recipe step by step for one draw, with a plain inverse."""
    p = adjacency.shape[0]
    A = np.zeros((p, p))
    rows, cols = np.nonzero(np.triu(adjacency, 1))
    A[rows, cols] = A[cols, rows] = weights
    A[np.diag_indices(p)] = np.abs(A).sum(axis=1) + perturbation
    sigma = np.linalg.inv(A)
    d = np.sqrt(np.diag(sigma))
    theta = np.linalg.inv(sigma / np.outer(d, d))
    theta[np.abs(theta) < threshold] = 0.0
    return theta


@pytest.mark.parametrize("graph_name", ["chain", "grid3x3", "erdos_renyi", "complete"])
def test_draws_are_the_recipe(graph_name):
    adjacency = check_adjacency(GRAPHS[graph_name])
    gen = ThresholdedPseudoInverse(random_state=0).fit(adjacency)
    draw = gen.sample(1)[0]
    # Recover the weights the sampler drew from the same seed.
    rng = np.random.RandomState(0)
    n_edges = int(np.triu(adjacency, 1).sum())
    magnitudes = rng.uniform(0.5, 1.0, size=(1, n_edges))
    signs = np.where(rng.random_sample((1, n_edges)) < 0.5, -1.0, 1.0)
    expected = reference((magnitudes * signs)[0], adjacency, 0.1, 1e-2)
    np.testing.assert_allclose(draw, expected, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(draw == 0, expected == 0)


def test_zeros_off_the_graph_and_nothing_below_the_threshold():
    graph = scale_free_graph(40, random_state=1)
    adjacency = check_adjacency(graph)
    draws = ThresholdedPseudoInverse(random_state=1).fit(graph).sample(20)
    off = ~adjacency & ~np.eye(40, dtype=bool)
    assert np.all(draws[:, off] == 0.0)
    nonzero = np.abs(draws[draws != 0])
    assert nonzero.min() >= 1e-2
    np.testing.assert_array_equal(draws, np.swapaxes(draws, 1, 2))
    assert np.all(np.diagonal(draws, axis1=1, axis2=2) >= 1.0)


def test_the_threshold_removes_edges_on_dense_graphs():
    """The documented flaw: with p nodes, diagonal dominance makes the edge values
    of order 0.75 / (0.75 (p - 1)), about 0.01 at p = 100, so the threshold
    removes many of them: the support is not the graph."""
    draws = ThresholdedPseudoInverse(random_state=2).fit(nx.complete_graph(100))
    draws = draws.sample(2)
    upper = np.triu_indices(100, 1)
    lost = np.mean(draws[:, upper[0], upper[1]] == 0)
    assert lost > 0.05


def test_low_above_high_is_refused():
    with pytest.raises(ValueError, match="low=2"):
        ThresholdedPseudoInverse(low=2.0, high=1.0).fit(nx.path_graph(3))
