"""LatentGenerator: S - L is the marginal precision, rank(L) = h, support of S."""

import networkx as nx
import numpy as np
import pytest

from skggm_bench.generators import (
    DiagonalDominance,
    LatentGenerator,
    PartialOrthogonalization,
)
from skggm_bench.graphs import check_adjacency
from tests.conftest import GRAPHS, assert_valid_draws
from tests.generators.test_orthogonalization import two_sample_p_values

ALPHA = 1e-3


@pytest.mark.parametrize("base", [None, DiagonalDominance()], ids=["default", "dd"])
@pytest.mark.parametrize(
    "graph_name, n_latent, n_attached",
    [("chain", 1, 1), ("chain", 3, 2), ("grid3x3", 2, 4), ("erdos_renyi", 4, 3)],
)
def test_parts_are_the_marginal_precision_with_rank_h(
    base, graph_name, n_latent, n_attached
):
    graph = GRAPHS[graph_name]
    p = graph.number_of_nodes()
    gen = LatentGenerator(
        base, n_latent=n_latent, n_attached=n_attached, random_state=0
    ).fit(graph)
    joint, sparse, low_rank = gen.sample(20)
    assert_valid_draws(joint, gen.adjacency_)
    # S is the observed block: the observed graph is its support, exactly.
    assert_valid_draws(sparse, check_adjacency(graph))
    np.testing.assert_array_equal(gen.observed_adjacency_, check_adjacency(graph))
    marginal = np.linalg.inv(np.linalg.inv(joint)[:, :p, :p])
    np.testing.assert_allclose(sparse - low_rank, marginal, rtol=0, atol=1e-10)
    np.testing.assert_array_equal(low_rank, np.swapaxes(low_rank, 1, 2))
    eigenvalues = np.linalg.eigvalsh(low_rank)
    # Rank h: h clearly positive eigenvalues, the others zero to rounding.
    assert np.all(eigenvalues[:, -n_latent:] > 1e-8)
    assert np.all(np.abs(eigenvalues[:, :-n_latent]) < 1e-12)
    assert np.all(np.linalg.eigvalsh(sparse - low_rank)[:, 0] > 0)


def test_attachment_has_distinct_anchors_and_the_asked_size():
    gen = LatentGenerator(n_latent=5, n_attached=3, random_state=1)
    gen.fit(nx.empty_graph(6))
    assert gen.attachment_.shape == (6, 5)
    np.testing.assert_array_equal(gen.attachment_.sum(axis=0), 3)
    # Hidden nodes are not adjacent to each other.
    assert not gen.adjacency_[6:, 6:].any()


def test_joint_matrix_has_the_base_law_on_the_extended_graph():
    base = PartialOrthogonalization()
    gen = LatentGenerator(base, n_latent=2, n_attached=3, random_state=2)
    gen.fit(GRAPHS["grid3x3"])
    draws = gen.sample(3000).joint
    reference = base.set_params(random_state=9).fit(gen.adjacency_).sample(3000)
    p_values = two_sample_p_values(draws, reference, gen.adjacency_)
    assert p_values.min() > ALPHA / p_values.size


@pytest.mark.parametrize("name", ["n_latent", "n_attached"])
def test_too_many_hidden_or_attached_nodes_are_refused(name):
    with pytest.raises(ValueError, match=f"{name}=10 exceeds"):
        LatentGenerator(**{name: 10}).fit(nx.path_graph(4))
