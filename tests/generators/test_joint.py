"""JointGenerator: class graphs, shared values and each class's law.

Thresholds: KS tests at ALPHA = 1e-3 Bonferroni-corrected over the entries
compared (as the single-model sampler tests); correlations estimated from
N_DRAWS draws have a standard error below 1 / sqrt(N_DRAWS) ~ 0.018, so a
tolerance of 0.06 is over three standard errors, while the wrong weightings
checked below miss by more than 0.1.
"""

import networkx as nx
import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone

from skggm_bench.generators import (
    DiagonalDominance,
    GWishart,
    JointGenerator,
    PartialOrthogonalization,
    UniformChordal,
)
from skggm_bench.generators.joint import mixing_weights
from skggm_bench.graphs import check_adjacency
from tests.conftest import GRAPHS, assert_valid_draws
from tests.generators.test_orthogonalization import two_sample_p_values
from tests.generators.test_uniform_chordal import disk_p_values

ALPHA = 1e-3
N_DRAWS = 3000


@pytest.mark.parametrize("similarity", [0.0, 0.4, 1.0])
@pytest.mark.parametrize("shared_fraction", [0.0, 0.5, 1.0])
@pytest.mark.parametrize("graph_name", ["empty", "chain", "grid3x3", "erdos_renyi"])
def test_every_class_is_a_valid_draw_on_its_graph(
    graph_name, shared_fraction, similarity
):
    graph = GRAPHS[graph_name]
    gen = JointGenerator(
        n_classes=3,
        shared_fraction=shared_fraction,
        similarity=similarity,
        random_state=0,
    ).fit(graph)
    draws = gen.sample(10)
    assert draws.shape == (10, 3, graph.number_of_nodes(), graph.number_of_nodes())
    m = graph.number_of_edges()
    for k in range(3):
        assert_valid_draws(draws[:, k], gen.adjacency_[k])
        assert gen.adjacency_[k].sum() // 2 == m
        assert np.all(gen.adjacency_[k][gen.shared_adjacency_])
    assert gen.shared_adjacency_.sum() // 2 == round(shared_fraction * m)


@pytest.mark.parametrize(
    "base", [DiagonalDominance(), GWishart(unit_diagonal=False)], ids=repr
)
def test_other_base_generators(base):
    gen = JointGenerator(base, n_classes=2, similarity=0.5, random_state=1)
    draws = gen.fit(GRAPHS["grid3x3"]).sample(5)
    unit = getattr(base, "unit_diagonal", True)
    for k in range(2):
        assert_valid_draws(draws[:, k], gen.adjacency_[k], unit_diagonal=unit)


def test_specific_edges_are_uniform_outside_the_shared_graph_and_independent():
    """Specific edges land on the given graph's non-shared edges at the uniform rate.

    With N pairs, m edges and s shared ones, a specific edge is one of the m - s
    non-shared edges of the graph with probability (m - s) / (N - s), and two
    classes' specific sets overlap in (m - s)^2 / (N - s) pairs on average. A
    generator keeping the graph's edges would give 1 and m - s; one drawing among
    the graph's non-edges would give 0; the same specific edges for all classes
    would give overlap m - s.
    """
    graph = nx.gnp_random_graph(20, 0.2, seed=5)
    adjacency = check_adjacency(graph)
    n_pairs, m = 190, graph.number_of_edges()
    on_graph, overlap = [], []
    for seed in range(200):
        gen = JointGenerator(n_classes=2, shared_fraction=0.5, random_state=seed)
        gen.fit(graph)
        s = int(gen.shared_adjacency_.sum() // 2)
        specific = gen.adjacency_ & ~gen.shared_adjacency_
        on_graph.append(np.triu(specific[0] & adjacency).sum() / (m - s))
        overlap.append(np.triu(specific[0] & specific[1]).sum())
    rate = (m - s) / (n_pairs - s)
    assert abs(np.mean(on_graph) - rate) < 4 * np.std(on_graph) / np.sqrt(200)
    expected_overlap = (m - s) ** 2 / (n_pairs - s)
    assert abs(np.mean(overlap) - expected_overlap) < 4 * np.std(overlap) / np.sqrt(200)


def test_independent_values_give_the_base_law_on_each_class_graph():
    """similarity=0: each class is a draw of the base generator on its own graph."""
    base = PartialOrthogonalization()
    gen = JointGenerator(base, n_classes=2, shared_fraction=0.5, similarity=0.0)
    gen.set_params(random_state=3).fit(GRAPHS["erdos_renyi"])
    draws = gen.sample(N_DRAWS)
    for k in range(2):
        reference = base.set_params(random_state=10 + k).fit(gen.adjacency_[k])
        p_values = two_sample_p_values(
            draws[:, k], reference.sample(N_DRAWS), gen.adjacency_[k]
        )
        assert p_values.min() > ALPHA / p_values.size
    # ... and the classes are independent.
    shared = np.triu(gen.shared_adjacency_, 1)
    r = np.corrcoef(draws[:, 0][:, shared][:, 0], draws[:, 1][:, shared][:, 0])
    assert abs(r[0, 1]) < 0.06


@pytest.mark.parametrize("similarity", [0.0, 1.0])
def test_uniform_base_stays_uniform_on_the_disk_at_both_ends(similarity):
    # With every edge shared, similarity 0 and 1 both give the base law (the same
    # draw for every class at 1): the single-model disk test applies as is.
    gen = JointGenerator(
        UniformChordal(), n_classes=2, shared_fraction=1.0, similarity=similarity
    )
    draws = gen.set_params(random_state=4).fit(nx.path_graph(3)).sample(N_DRAWS)
    for k in range(2):
        assert min(disk_p_values(draws[:, k])) > ALPHA / 4


def test_disk_test_sees_the_mixture_in_between():
    gen = JointGenerator(
        UniformChordal(), n_classes=2, shared_fraction=1.0, similarity=0.5
    )
    draws = gen.set_params(random_state=4).fit(nx.path_graph(3)).sample(N_DRAWS)
    assert min(disk_p_values(draws[:, 0])) < 1e-6


@pytest.mark.parametrize("similarity", [0.3, 0.7])
def test_similarity_is_the_correlation_of_shared_values(similarity):
    """With every edge shared, the correlation across classes equals similarity.

    Using similarity itself as the mixing weight would give a correlation of
    0.3^2 / (0.7^2 + 0.3^2) = 0.16 and 0.84, both more than 0.1 away.
    """
    gen = JointGenerator(
        PartialOrthogonalization(), n_classes=3, shared_fraction=1.0, random_state=2
    )
    draws = gen.set_params(similarity=similarity).fit(GRAPHS["grid3x3"])
    draws = draws.sample(N_DRAWS)
    rows, cols = np.nonzero(np.triu(gen.shared_adjacency_, 1))
    correlations = [
        np.corrcoef(draws[:, k, i, j], draws[:, other, i, j])[0, 1]
        for i, j in zip(rows, cols, strict=True)
        for k, other in ((0, 1), (1, 2))
    ]
    assert abs(np.mean(correlations) - similarity) < 0.03
    assert max(abs(np.array(correlations) - similarity)) < 0.08


def test_similarity_one_gives_equal_shared_values_and_monotone_correlation():
    graph = GRAPHS["erdos_renyi"]
    correlations = []
    for similarity in (0.0, 0.5, 0.9, 1.0):
        gen = JointGenerator(
            n_classes=2, shared_fraction=0.6, similarity=similarity, random_state=6
        ).fit(graph)
        draws = gen.sample(1000)
        shared = gen.shared_adjacency_
        first, second = draws[:, 0][:, shared], draws[:, 1][:, shared]
        correlations.append(
            np.mean(
                [
                    np.corrcoef(a, b)[0, 1]
                    for a, b in zip(first.T, second.T, strict=True)
                ]
            )
        )
    np.testing.assert_array_equal(first, second)
    assert correlations == sorted(correlations)
    assert abs(correlations[0]) < 0.05 and correlations[-1] == pytest.approx(1.0)


def test_mixing_weights_sum_to_one():
    for s in np.linspace(0, 1, 11):
        for c in (0.0, 0.3, 1.0):
            a, b = mixing_weights(s, c)
            assert a >= 0 and b >= 0 and a + b == pytest.approx(1.0)


@pytest.mark.parametrize(
    "base",
    [
        None,
        PartialOrthogonalization(),
        DiagonalDominance(),
        GWishart(method="lenkoski"),
    ],
    ids=repr,
)
def test_independent_values_are_each_class_clone_s_own_draws(base):
    """similarity=0: class k is exactly what its clone draws alone on its graph.

    The joint generator draws its clones in one batch; the base law on each class
    graph holds because each class is the same draw as the clone's own sample (up
    to the rounding of the batched solves).
    """
    gen = JointGenerator(base, n_classes=3, shared_fraction=0.5, similarity=0.0)
    draws = gen.set_params(random_state=8).fit(GRAPHS["erdos_renyi"]).sample(5)
    for k, fitted in enumerate(gen.generators_):
        alone = clone(fitted).fit(gen.adjacency_[k]).sample(5)
        np.testing.assert_allclose(draws[:, k], alone, rtol=0, atol=1e-12)


def test_draws_in_chunks_of_samples_are_fresh_and_valid(monkeypatch):
    # Large n_samples are drawn a chunk at a time (memory): every chunk must draw
    # afresh, keep shared values equal at similarity=1, and stay valid.
    from skggm_bench.generators import joint

    graph = GRAPHS["grid3x3"]
    monkeypatch.setattr(joint, "_CHUNK_ENTRIES", 2 * 81 * 7)  # 2 samples a chunk
    gen = JointGenerator(n_classes=3, shared_fraction=0.5, similarity=1.0)
    draws = gen.set_params(random_state=5).fit(graph).sample(7)
    assert draws.shape == (7, 3, 9, 9)
    for k in range(3):
        assert_valid_draws(draws[:, k], gen.adjacency_[k])
    shared = gen.shared_adjacency_
    np.testing.assert_array_equal(draws[:, 0][:, shared], draws[:, 2][:, shared])
    i, j = np.argwhere(np.triu(gen.adjacency_[0], 1))[0]
    assert np.unique(draws[:, 0, i, j]).size == 7


class _OutsideGenerator(BaseEstimator):
    """Not a package generator: only ``fit(graph)`` and ``sample(n)``."""

    def __init__(self, random_state=None):
        self.random_state = random_state

    def fit(self, graph):
        self.inner_ = DiagonalDominance(random_state=self.random_state).fit(graph)
        return self

    def sample(self, n_samples):
        return self.inner_.sample(n_samples)


@pytest.mark.parametrize("similarity", [0.0, 0.5, 1.0])
def test_a_generator_from_outside_the_package_is_fitted_and_drawn_one_by_one(
    similarity,
):
    gen = JointGenerator(
        _OutsideGenerator(), n_classes=3, shared_fraction=0.5, similarity=similarity
    )
    draws = gen.set_params(random_state=2).fit(GRAPHS["grid3x3"]).sample(4)
    for k in range(3):
        assert_valid_draws(draws[:, k], gen.adjacency_[k])
    if similarity == 0.0:
        for k, fitted in enumerate(gen.generators_):
            alone = clone(fitted).fit(gen.adjacency_[k]).sample(4)
            np.testing.assert_array_equal(draws[:, k], alone)
