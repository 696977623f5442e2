"""Clones on many graphs: fitted and drawn together, the same as one by one.

A related-models generator fits a clone of its base generator per derived graph
(2K + 1 for a joint model) and draws them all: ``fitted_clones`` and
``sample_fitted`` do it faster, and must give the same fitted generators and the
same draws as ``clone(g).set_params(random_state=seed).fit(graph).sample(n)``
(bitwise for the fits; up to rounding for batched draws, whose solves run on
padded systems), with every draw valid on its own graph.
"""

import networkx as nx
import numpy as np
import pytest
from sklearn.base import clone

from skggm_bench.generators import (
    DiagonalDominance,
    GWishart,
    HitAndRunUniform,
    PartialOrthogonalization,
    TriangulatedOrthogonalization,
    UniformChordal,
)
from skggm_bench.generators._base import (
    fitted_clones,
    sample_fitted,
    seeded_random_state,
)
from skggm_bench.graphs import check_adjacency
from tests.conftest import GRAPHS, assert_valid_draws

# Different graphs on 9 nodes, one repeated (equal graphs may share a fit).
GRAPHS_9 = [
    check_adjacency(GRAPHS["grid3x3"]),
    check_adjacency(nx.gnp_random_graph(9, 0.4, seed=1)),
    np.zeros((9, 9), dtype=bool),
    check_adjacency(GRAPHS["grid3x3"]),
    check_adjacency(nx.complete_graph(9)),
]
CHORDAL_9 = [check_adjacency(nx.path_graph(9)), check_adjacency(nx.star_graph(8))]
SEEDS = [11, 12, 13, 14, 15]

ANY_GRAPH = [
    TriangulatedOrthogonalization(),
    PartialOrthogonalization(),
    DiagonalDominance(),
    DiagonalDominance(distribution="uniform", perturbation=0.5),
    GWishart(method="lenkoski", unit_diagonal=True),
]


def one_by_one(base, graphs, seeds):
    return [
        clone(base).set_params(random_state=seed).fit(graph)
        for graph, seed in zip(graphs, seeds, strict=True)
    ]


def test_seeded_random_state_is_the_random_state_of_the_seed():
    for seed in (0, 1, 7, 2**31 - 2):
        fast, slow = seeded_random_state(seed), np.random.RandomState(seed)
        fast_state, slow_state = fast.get_state(), slow.get_state()
        np.testing.assert_array_equal(fast_state[1], slow_state[1])
        assert fast_state[2:] == slow_state[2:]
        np.testing.assert_array_equal(fast.standard_normal(5), slow.standard_normal(5))


@pytest.mark.parametrize(
    "base, graphs",
    [(base, GRAPHS_9) for base in ANY_GRAPH]
    + [
        (UniformChordal(), CHORDAL_9 * 2),
        (GWishart(), CHORDAL_9 * 2),
        (HitAndRunUniform(n_burn_in=2), GRAPHS_9[:2] * 2),
    ],
    ids=repr,
)
def test_fitted_clones_are_the_clones_fitted_one_by_one(base, graphs):
    seeds = SEEDS[: len(graphs)]
    fast = fitted_clones(base, graphs, seeds)
    slow = one_by_one(base, graphs, seeds)
    for a, b in zip(fast, slow, strict=True):
        assert a.get_params() == b.get_params()
        np.testing.assert_array_equal(a.adjacency_, b.adjacency_)
        np.testing.assert_array_equal(a.sample(3), b.sample(3))


def test_equal_graphs_share_their_fit_only_when_fit_is_deterministic():
    to = fitted_clones(TriangulatedOrthogonalization(), GRAPHS_9, SEEDS)
    assert to[3]._structure is to[0]._structure  # one triangulation
    assert to[1]._structure is not to[0]._structure
    assert to[3]._rng is not to[0]._rng
    # HitAndRunUniform's fit starts chains from random points: never shared.
    chains = fitted_clones(HitAndRunUniform(n_burn_in=2), GRAPHS_9[:1] * 2, [1, 2])
    assert chains[0]._chains is not chains[1]._chains


@pytest.mark.parametrize("base", ANY_GRAPH, ids=repr)
def test_sample_fitted_gives_each_clone_its_own_draws(base):
    """Batched draws are the clones' own draws, and valid on each graph."""
    batched = sample_fitted(fitted_clones(base, GRAPHS_9, SEEDS), 4)
    reference = one_by_one(base, GRAPHS_9, SEEDS)
    assert batched.shape == (len(GRAPHS_9), 4, 9, 9)
    unit = getattr(base, "unit_diagonal", True)
    for draws, generator, graph in zip(batched, reference, GRAPHS_9, strict=True):
        np.testing.assert_allclose(draws, generator.sample(4), rtol=0, atol=1e-12)
        assert_valid_draws(draws, graph, unit_diagonal=unit)


@pytest.mark.parametrize(
    "base", [TriangulatedOrthogonalization(), PartialOrthogonalization()], ids=repr
)
def test_sample_fitted_across_chunks_of_draws(base):
    # At p = 300 a chunk holds 11 draws: 5 graphs x 4 draws make chunks that
    # start and end inside a clone's draws and mix graphs.
    graphs = [
        check_adjacency(nx.gnp_random_graph(300, 0.01, seed=seed)) for seed in range(5)
    ]
    batched = sample_fitted(fitted_clones(base, graphs, SEEDS), 4)
    for draws, generator, graph in zip(
        batched, one_by_one(base, graphs, SEEDS), graphs, strict=True
    ):
        np.testing.assert_allclose(draws, generator.sample(4), rtol=0, atol=1e-10)
        assert_valid_draws(draws, graph)


class _HalvedTriangulatedOrthogonalization(TriangulatedOrthogonalization):
    """A subclass with its own _sample (off-diagonal entries halved)."""

    def _sample(self, n_samples, rng):
        draws = super()._sample(n_samples, rng) * 0.5
        index = np.arange(self.n_nodes_)
        draws[:, index, index] = 1.0
        return draws


def test_sample_fitted_draws_a_subclass_one_by_one():
    # The parent's batched sampler would miss the subclass's _sample.
    base = _HalvedTriangulatedOrthogonalization()
    draws = sample_fitted(fitted_clones(base, GRAPHS_9, SEEDS), 2)
    for batch, generator in zip(draws, one_by_one(base, GRAPHS_9, SEEDS), strict=True):
        np.testing.assert_array_equal(batch, generator.sample(2))
